//! Importing measurements taken by other tools (SPEC C: `vernier import`).
//!
//! The file is someone else's: its size is bounded, every number is checked,
//! and a command string in it is only stored, never run.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::bounded::{ReadError, read_bounded};
use crate::harness::raw::{self, RawError};
use crate::harness::{TrialRecord, TrialStatus};
use crate::notebook::{Condition, ConditionName, Measurement, Notebook, Tag, WarmupPolicy};
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

/// Reads a `hyperfine --export-json` file and records one MEASURED Runs
/// row per command, with Vernier's own statistics over hyperfine's times and
/// a raw copy of the times in `raw/`. Returns the new run numbers; the
/// caller saves the notebook.
pub fn hyperfine(file: &Path, dir: &Path, notebook: &mut Notebook, at: DateTime<Utc>) -> Result<Vec<u32>, ImportError> {
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
    let source_hash = raw::sha256_hex(&bytes);
    let mut numbers = Vec::new();
    for (k, result) in export.results.iter().enumerate() {
        let label = format!("result {} ('{}')", k + 1, result.command);
        if let Some(bad) = result.times.iter().find(|t| !t.is_finite() || **t < 0.0) {
            return Err(invalid(format!("{label} has a time of {bad} s, which cannot be a measurement")));
        }
        let summary = Summary::of(&result.times).map_err(|e| invalid(format!("{label}: {e}")))?;
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
        let source = format!("hyperfine export {} (SHA-256 {})", file.display(), &source_hash[..12]);
        let conditions = vec![
            Condition::new(ConditionName::Source, source.clone()),
            Condition::new(
                ConditionName::NotRecorded,
                "not available: hyperfine does not record them; state them under Environment",
            ),
        ];
        let comments = vec![format!("imported from {source}"), format!("command: {}", result.command)];
        let raw_file = raw::write_once(
            dir,
            &format!("hyperfine-{}", notebook.runs().len() + 1),
            &raw::render(&comments, &trials),
        )?;
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
        };
        numbers.push(notebook.record_run(measurement, at));
    }
    Ok(numbers)
}
