//! hyperfine's `--export-json` (SPEC C: `vernier import hyperfine`): one
//! MEASURED Runs row per command whose every trial exited 0, with Vernier's
//! own statistics over hyperfine's times and a raw copy of each command's
//! times in `raw/`. A command with a failed trial gets no row, only a note,
//! as a `bench` run that ended early.
//!
//! As every importer does, reading and checking ([`prepare`]) is apart
//! from recording ([`Hyperfine::record`]), so that the record step, under
//! the notebook's lock, only writes: a bad file has recorded nothing. Each
//! command keeps its own raw file of trials, in Vernier's raw format, so
//! its trials are drawn like a `bench` row's.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::{ImportError, MAX_IMPORT_BYTES, check_trials, not_recorded};
use crate::bounded::read_bounded;
use crate::harness::raw::{self, RawError};
use crate::harness::{TrialRecord, TrialStatus};
use crate::notebook::{Boundary, Condition, ConditionName, Measurement, Notebook, Tag, WarmupPolicy, plausible};
use crate::stats::Summary;

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

/// An export read and checked, not yet recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Hyperfine {
    /// `hyperfine export FILE (SHA-256 …)`, as the rows name their source.
    source: String,
    build: Option<String>,
    warmup_stated: Option<u32>,
    results: Vec<Checked>,
}

/// One command of the export, checked.
#[derive(Debug, Clone, PartialEq)]
struct Checked {
    /// `result K ('COMMAND')`.
    label: String,
    command: String,
    trials: Vec<TrialRecord>,
    /// `None` when a trial failed: no row, only a note.
    summary: Option<Summary>,
}

/// Reads a `hyperfine --export-json` file and checks every time. `build` is
/// how the measured program was built (SPEC N11; default: the
/// Environment's Compiler + flags, taken when recorded); `warmup_stated` is
/// hyperfine's `--warmup` count when the student gives it, which the export
/// does not record.
pub fn prepare(file: &Path, build: Option<&str>, warmup_stated: Option<u32>) -> Result<Hyperfine, ImportError> {
    let bytes = read_bounded(file, MAX_IMPORT_BYTES, "a hyperfine export")?;
    let export: Export =
        serde_json::from_slice(crate::bounded::without_bom(&bytes)).map_err(|e| ImportError::Format {
            path: file.to_path_buf(),
            tool: "a hyperfine JSON export",
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
    let invalid = |message: String| ImportError::Invalid { path: file.to_path_buf(), message };
    if export.results.is_empty() {
        return Err(invalid("the export holds no results".into()));
    }
    let mut results = Vec::with_capacity(export.results.len());
    for (k, result) in export.results.into_iter().enumerate() {
        let label = format!("result {} ('{}')", k + 1, result.command);
        for (i, &t) in result.times.iter().enumerate() {
            if let Some(why) = plausible::refused_trial(t, "s", Some(1e9)) {
                return Err(invalid(format!("{label}: trial {} {why}; it cannot be a measurement", i + 1)));
            }
        }
        check_trials(result.times.len()).map_err(|why| invalid(format!("{label}: {why}")))?;
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
                work: Default::default(),
            })
            .collect();
        let failed = trials.iter().any(|t| t.status != TrialStatus::Ok);
        results.push(Checked { label, command: result.command, trials, summary: (!failed).then_some(summary) });
    }
    let sha = crate::digest::sha256_hex(&bytes);
    Ok(Hyperfine {
        source: format!("hyperfine export {} (SHA-256 {})", file.display(), &sha[..12]),
        build: build.map(str::to_owned),
        warmup_stated,
        results,
    })
}

impl Hyperfine {
    /// Writes each command's raw file and records its row — or, for a
    /// command with a failed trial, a note naming the trial and the raw
    /// file that keeps its times. Only writes: everything was checked by
    /// [`prepare`].
    pub fn record(&self, dir: &Path, notebook: &mut Notebook, at: DateTime<Utc>) -> Result<Vec<Imported>, RawError> {
        let source = &self.source;
        let mut imported = Vec::with_capacity(self.results.len());
        for (k, result) in self.results.iter().enumerate() {
            let comments = vec![format!("imported from {source}"), format!("command: {}", result.command)];
            let stem = match result.summary {
                Some(_) => format!("hyperfine-{}", notebook.runs().len() + 1),
                None => format!("hyperfine-failed-{}", k + 1),
            };
            let raw_file = raw::write_once(dir, &stem, &raw::render(&comments, &result.trials))?;
            let Some(summary) = result.summary.clone() else {
                let Some(t) = result.trials.iter().find(|t| t.status != TrialStatus::Ok) else { continue };
                let note = format!(
                    "{} of {source} was not recorded: trial {} failed ({}). Its {} trials are kept in {} (SHA-256 {}).",
                    result.label,
                    t.index + 1,
                    t.status,
                    result.trials.len(),
                    raw_file.path,
                    &raw_file.sha256[..12]
                );
                let _ = notebook.add_vernier_note(&note, at);
                imported.push(Imported::Failed(note));
                continue;
            };
            let mut conditions = vec![
                Condition::new(ConditionName::Source, source.clone()),
                Condition::new(ConditionName::Instrument, "hyperfine: wall time of each run of the command"),
                not_recorded("not available: hyperfine does not record them"),
            ];
            conditions.extend(crate::harness::build_condition(notebook.environment(), self.build.as_deref()));
            let measurement = Measurement {
                what: format!("{} (imported from hyperfine)", result.command),
                // Stored as the one string hyperfine ran, usually through a shell.
                command: vec![result.command.clone()],
                warmup: self.warmup_stated.map_or(WarmupPolicy::Unknown, WarmupPolicy::Stated),
                warmup_trials: self.warmup_stated.unwrap_or(0),
                summary,
                unit: "s".into(),
                ns_per_unit: 1e9,
                conditions,
                raw_file: Some(raw_file),
                tag: Tag::Measured,
                synthetic: false,
                extends: None,
                figure: None,
                work: None,
                boundary: Some(Boundary::Instrument {
                    instrument: "hyperfine".into(),
                    stated: "wall time of each run of the command, as hyperfine states".into(),
                }),
                recipe: None,
            };
            imported.push(Imported::Run(notebook.record_run(measurement, at)));
        }
        Ok(imported)
    }
}
