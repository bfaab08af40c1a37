//! Importing measurements taken by other tools (SPEC C: `vernier import`).
//!
//! The file is someone else's: its size is bounded, every number is checked,
//! and a command string in it is only stored, never run.

pub mod csv;

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::bounded::{ReadError, read_bounded};
use crate::harness::raw::{self, RawError};
use crate::harness::{TrialRecord, TrialStatus};
use crate::notebook::{Condition, ConditionName, Measurement, Notebook, Tag, WarmupPolicy, plausible};
use crate::stats::Summary;

/// A larger export is refused as its bytes arrive, before it is parsed.
pub const MAX_IMPORT_BYTES: u64 = 64 * 1024 * 1024;

/// Why an import failed.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read, or was refused unread.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Not the JSON hyperfine writes.
    #[error("{}:{line}:{column}: not a hyperfine JSON export: {message}", path.display())]
    Format {
        /// The file.
        path: std::path::PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was wrong.
        message: String,
    },
    /// Well-formed, but a value cannot be a measurement.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: std::path::PathBuf,
        /// Which result and value.
        message: String,
    },
    /// The raw copy could not be written.
    #[error(transparent)]
    Raw(#[from] RawError),
}

#[derive(Deserialize)]
struct Export {
    results: Vec<HyperfineResult>,
}

#[derive(Deserialize)]
struct HyperfineResult {
    command: String,
    times: Vec<f64>,
    #[serde(default)]
    exit_codes: Vec<Option<i32>>,
}

/// What became of one result of an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Imported {
    /// Recorded as this MEASURED Runs row.
    Run(u32),
    /// Not recorded: a trial exited non-zero, which ends a `bench` too (E10).
    /// The sentence names the trial and the raw file that keeps the times;
    /// the same sentence is added as a note.
    Failed(String),
}

/// Reads a `hyperfine --export-json` file and records one MEASURED Runs
/// row per command whose every trial exited 0, with Vernier's own
/// statistics over hyperfine's times and a raw copy of the times in `raw/`.
/// A command with a failed trial gets no row, only a note, as a `bench`
/// run that ended early. `build` is how the measured program was built
/// (SPEC N11; default: the Environment's Compiler + flags). Every time is
/// checked before anything is written; the caller saves the notebook.
pub fn hyperfine(
    file: &Path,
    dir: &Path,
    notebook: &mut Notebook,
    build: Option<&str>,
    at: DateTime<Utc>,
) -> Result<Vec<Imported>, ImportError> {
    let bytes = read_bounded(file, MAX_IMPORT_BYTES, "a hyperfine export")?;
    let export: Export = serde_json::from_slice(&bytes).map_err(|e| ImportError::Format {
        path: file.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let invalid = |message: String| ImportError::Invalid { path: file.to_path_buf(), message };
    if export.results.is_empty() {
        return Err(invalid("the export holds no results".into()));
    }
    let label = |k: usize, result: &HyperfineResult| format!("result {} ('{}')", k + 1, result.command);
    let mut summaries = Vec::with_capacity(export.results.len());
    for (k, result) in export.results.iter().enumerate() {
        for (i, &t) in result.times.iter().enumerate() {
            if let Some(why) = plausible::impossible(t).or_else(|| plausible::absurd(t, "s", Some(1e9))) {
                return Err(invalid(format!(
                    "{}: trial {} {why}; it cannot be a measurement",
                    label(k, result),
                    i + 1
                )));
            }
        }
        summaries.push(Summary::of(&result.times).map_err(|e| invalid(format!("{}: {e}", label(k, result))))?);
    }
    let source_hash = raw::sha256_hex(&bytes);
    let source = format!("hyperfine export {} (SHA-256 {})", file.display(), &source_hash[..12]);
    let mut imported = Vec::new();
    for ((k, result), summary) in export.results.iter().enumerate().zip(summaries) {
        let trials: Vec<TrialRecord> = result
            .times
            .iter()
            .enumerate()
            .map(|(i, t)| TrialRecord {
                index: u32::try_from(i).unwrap_or(u32::MAX),
                arm: 0,
                position: 1,
                warmup: false,
                ns: (t * 1e9).round() as u64,
                status: match result.exit_codes.get(i).copied().flatten() {
                    Some(0) | None => TrialStatus::Ok,
                    Some(code) => TrialStatus::Exit(code),
                },
            })
            .collect();
        let comments = vec![format!("imported from {source}"), format!("command: {}", result.command)];
        let failed = trials.iter().find(|t| t.status != TrialStatus::Ok);
        let stem = match failed {
            None => format!("hyperfine-{}", notebook.runs().len() + 1),
            Some(_) => format!("hyperfine-failed-{}", k + 1),
        };
        let raw_file = raw::write_once(dir, &stem, &raw::render(&comments, &trials))?;
        if let Some(t) = failed {
            let note = format!(
                "{} of {source} was not recorded: trial {} failed ({}). Its {} trials are kept in {} (SHA-256 {}).",
                label(k, result),
                t.index + 1,
                t.status,
                trials.len(),
                raw_file.path,
                &raw_file.sha256[..12]
            );
            let _ = notebook.add_note(&note, at);
            imported.push(Imported::Failed(note));
            continue;
        }
        let mut conditions = vec![
            Condition::new(ConditionName::Source, source.clone()),
            Condition::new(ConditionName::Instrument, "hyperfine: wall time of each run of the command"),
            Condition::new(
                ConditionName::NotRecorded,
                "not available: hyperfine does not record them; state them under Environment",
            ),
        ];
        conditions.extend(crate::harness::build_condition(notebook.environment(), build));
        let measurement = Measurement {
            what: format!("{} (imported from hyperfine)", result.command),
            // Stored as the one string hyperfine ran, usually through a shell.
            command: vec![result.command.clone()],
            warmup: WarmupPolicy::Unknown,
            warmup_trials: 0,
            summary,
            unit: "s".into(),
            ns_per_unit: 1e9,
            conditions,
            raw_file: Some(raw_file),
            tag: Tag::Measured,
            synthetic: false,
            extends: None,
        };
        imported.push(Imported::Run(notebook.record_run(measurement, at)));
    }
    Ok(imported)
}
