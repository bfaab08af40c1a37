//! hyperfine's `--export-json` (SPEC C: `vernier import hyperfine`): one
//! MEASURED Runs row per command whose every trial exited 0, with Vernier's
//! own statistics over hyperfine's times and a raw copy of the commands'
//! times in `raw/`. A command with a failed trial gets no row, only a note,
//! as a `bench` run that ended early.
//!
//! As every importer does, reading and checking ([`prepare`]) is apart
//! from recording ([`super::record`]), so that the record step, under the
//! notebook's lock, only writes: a bad file has recorded nothing. The
//! commands' times are kept in one raw file in Vernier's raw format, one
//! arm per command, so their trials are drawn like a `bench` row's.

use std::path::Path;

use serde::Deserialize;

use super::csv::CsvSpec;
use super::{
    Format, ImportError, Importer, LeftOut, MAX_IMPORT_BYTES, Prepared, PreparedRow, ReadBackError, check_trials,
    from_file, not_recorded,
};
use crate::bounded::read_bounded;
use crate::harness::raw;
use crate::harness::{TrialRecord, TrialStatus};
use crate::notebook::{Boundary, Condition, ConditionName, Measurement, RawFile, Run, Tag, WarmupPolicy, plausible};
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

/// Reads a `hyperfine --export-json` file and checks every time. `build` is
/// how the measured program was built (SPEC N11; default: the
/// Environment's Compiler + flags, taken when recorded); `warmup_stated` is
/// hyperfine's `--warmup` count when the student gives it, which the export
/// does not record.
pub fn prepare(file: &Path, build: Option<&str>, warmup_stated: Option<u32>) -> Result<Prepared, ImportError> {
    let bytes = read_bounded(file, MAX_IMPORT_BYTES, "a hyperfine export")?;
    prepare_bytes(file, &bytes, build, warmup_stated)
}

/// [`prepare`] on bytes already read; `file` names them in messages and
/// rows. The raw copy is the export's times in Vernier's raw format, one
/// arm per command, so its trials are drawn like a `bench` row's; a
/// command with a failed trial gets no row, only a note naming the copy.
pub fn prepare_bytes(
    file: &Path,
    bytes: &[u8],
    build: Option<&str>,
    warmup_stated: Option<u32>,
) -> Result<Prepared, ImportError> {
    let export: Export =
        serde_json::from_slice(crate::bounded::without_bom(bytes)).map_err(|e| ImportError::Format {
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
    let sha = crate::digest::sha256_hex(bytes);
    let source = format!("hyperfine export {} (SHA-256 {})", file.display(), &sha[..12]);
    let mut comments = vec![format!("imported from {source}")];
    let mut all_trials = Vec::new();
    let mut rows = Vec::new();
    let mut left_out = Vec::new();
    for (k, result) in export.results.into_iter().enumerate() {
        let label = format!("result {} ('{}')", k + 1, result.command);
        for (i, &t) in result.times.iter().enumerate() {
            if let Some(why) = plausible::refused_trial(t, "s", Some(1e9)) {
                return Err(invalid(format!("{label}: trial {} {why}; it cannot be a measurement", i + 1)));
            }
        }
        check_trials(result.times.len()).map_err(|why| invalid(format!("{label}: {why}")))?;
        let summary = Summary::of(&result.times).map_err(|e| invalid(format!("{label}: {e}")))?;
        let arm = raw::arm_label(k);
        comments.push(format!("arm {arm} command: {}", result.command));
        let trials: Vec<TrialRecord> = result
            .times
            .iter()
            .enumerate()
            .map(|(i, t)| TrialRecord {
                index: u32::try_from(i).unwrap_or(u32::MAX),
                arm: k,
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
        if let Some(t) = trials.iter().find(|t| t.status != TrialStatus::Ok) {
            let why = format!("{label} of {source} was not recorded: trial {} failed ({})", t.index + 1, t.status);
            left_out.push(LeftOut { why, trials: trials.len() });
        } else {
            rows.push(row(&source, &result.command, arm, summary, warmup_stated));
        }
        all_trials.extend(trials);
    }
    Ok(Prepared {
        name: from_file::file_name(file),
        text: raw::render(&comments, &all_trials),
        raw_stem: Hyperfine.raw_name().0,
        raw_extension: Hyperfine.raw_name().1,
        format: Some(Format(&Hyperfine)),
        build: build.map(str::to_owned),
        boundary: None,
        rows,
        pair: None,
        checks: Vec::new(),
        left_out,
    })
}

/// The row of one command whose every trial exited 0.
fn row(source: &str, command: &str, arm: String, summary: Summary, warmup_stated: Option<u32>) -> PreparedRow {
    let measurement = Measurement {
        what: format!("{command} (imported from hyperfine)"),
        // Stored as the one string hyperfine ran, usually through a shell.
        command: vec![command.to_owned()],
        warmup: warmup_stated.map_or(WarmupPolicy::Unknown, WarmupPolicy::Stated),
        warmup_trials: warmup_stated.unwrap_or(0),
        summary,
        unit: "s".into(),
        ns_per_unit: 1e9,
        conditions: vec![
            Condition::new(ConditionName::Source, source.to_owned()),
            Condition::new(ConditionName::Instrument, "hyperfine: wall time of each run of the command"),
            not_recorded("not available: hyperfine does not record them"),
        ],
        raw_file: None,
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
        tail: None,
        noise_floor: None,
    };
    PreparedRow { measurement, arm }
}

/// hyperfine's `--export-json`: an object with `results`.
pub(super) struct Hyperfine;

impl Importer for Hyperfine {
    fn id(&self) -> &'static str {
        "hyperfine"
    }

    fn name(&self) -> &'static str {
        "a hyperfine JSON export"
    }

    fn raw_name(&self) -> (&'static str, &'static str) {
        ("hyperfine", "csv")
    }

    fn detect(&self, bytes: &[u8]) -> bool {
        super::json_object(bytes) && super::has_key(bytes, "results") && !super::has_key(bytes, "benchmarks")
    }

    /// Every command of the export, with the warm-up and the build as
    /// stated.
    fn prepare(&self, file: &Path, bytes: &[u8], spec: &CsvSpec) -> Result<Prepared, ImportError> {
        prepare_bytes(file, bytes, spec.build.as_deref(), spec.warmup_stated)
    }

    /// The row's arm of the raw copy, as a `bench` row's trials are read.
    fn read_back(&self, text: &str, run: &Run, file: &RawFile) -> Result<raw::ArmValues, ReadBackError> {
        let (trials, figures) =
            raw::parse_with_figures(text).map_err(|why| ReadBackError::Malformed { path: file.path.clone(), why })?;
        Ok(raw::arm_values(run, &trials, figures.as_deref()))
    }
}
