//! pyperf's JSON (SPEC E14, C: `vernier import pyperf`).
//!
//! pyperf times Python code in several worker processes; each process
//! first runs a few warm-up values, then its timed values, each the time
//! of one loop (the total over `loops` × `inner_loops`, divided). A file
//! holds one benchmark or a suite of several; metadata common to every
//! benchmark sits at the top, the rest with each benchmark or run.
//!
//! One MEASURED row per benchmark: its trials are every value of every
//! process, in order; its warm-ups are kept apart — counted as the row's
//! warm-up, never summarised — and pyperf's calibration runs (a process
//! that only finds the number of loops, and has no values) are skipped.
//! The metadata (Python, CPU, host, platform, CPU configuration, loops …)
//! describes the machine that measured, so it goes into each row's
//! conditions marked "from the file".
//!
//! The file is untrusted: it is read bounded (a `.json.gz` is unpacked
//! bounded too), every value and warm-up is checked before anything is
//! written, and its texts are shown inert.

use std::io::Read;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::csv::CsvSpec;
use super::{Format, ImportError, Importer, MAX_IMPORT_BYTES, Prepared, PreparedRow, ReadBackError, from_file};
use crate::bounded::read_bounded;
use crate::harness::raw::ArmValues;
use crate::notebook::{self, Condition, ConditionName, RawFile, WarmupPolicy, plausible};
use crate::stats::Summary;

/// The format version pyperf writes, and the only one this reader knows.
const VERSION: &str = "1.0";

/// Metadata shown elsewhere in the row: its name is the row's `What`, its
/// unit the row's unit.
const SHOWN_ELSEWHERE: [&str; 2] = ["name", "unit"];

/// What a file this reader refuses as malformed should have been.
const TOOL: &str = "a pyperf JSON file";

/// What to import and how to describe it; every text is the user's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PyperfSpec {
    /// Only these benchmarks (by name); empty: every benchmark in the file.
    pub benchmarks: Vec<String>,
    /// How the file was produced, stored as the rows' command.
    pub command: Option<String>,
    /// How the measured program was built (default: the Environment's).
    pub build: Option<String>,
}

/// The file as pyperf writes it (`-o FILE.json`, `pyperf convert`).
#[derive(Deserialize)]
struct File {
    /// `"1.0"`; perf 0.8 and 0.9 wrote the numbers 5 and 6.
    version: Value,
    #[serde(default)]
    metadata: Map<String, Value>,
    benchmarks: Vec<Benchmark>,
}

/// One benchmark: its own metadata (what is not common to the suite) and
/// its runs, one per worker process.
#[derive(Deserialize)]
struct Benchmark {
    #[serde(default)]
    metadata: Map<String, Value>,
    runs: Vec<Run>,
}

/// One worker process: its warm-ups as `[loops, value]` and its values.
#[derive(Deserialize)]
struct Run {
    #[serde(default)]
    metadata: Map<String, Value>,
    #[serde(default)]
    values: Vec<f64>,
    #[serde(default)]
    warmups: Vec<(f64, f64)>,
}

/// Where the bytes came from: a `.json.gz` keeps its own hash beside that
/// of the unpacked text, which becomes the raw copy.
struct Packed {
    sha256: String,
}

/// [`prepare_bytes`] on the file, read bounded.
pub fn prepare(file: &Path, spec: &PyperfSpec) -> Result<Prepared, ImportError> {
    let bytes = read_bounded(file, MAX_IMPORT_BYTES, TOOL)?;
    prepare_bytes(file, &bytes, spec)
}

/// [`prepare_text`] on bytes already read (the window, a fuzz target): a
/// gzip stream (pyperf writes one for `-o FILE.json.gz`) is unpacked,
/// bounded like a file, and its unpacked JSON becomes the raw copy — the
/// row's source names both hashes. `file` names the bytes in messages.
pub fn prepare_bytes(file: &Path, bytes: &[u8], spec: &PyperfSpec) -> Result<Prepared, ImportError> {
    let gzip = |message: String| ImportError::Invalid { path: file.to_path_buf(), message };
    let (unpacked, packed) = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes)
            .take(MAX_IMPORT_BYTES + 1)
            .read_to_end(&mut out)
            .map_err(|e| gzip(format!("not a readable gzip file: {e}")))?;
        if out.len() as u64 > MAX_IMPORT_BYTES {
            return Err(gzip(format!("unpacked, it is larger than {} MiB", MAX_IMPORT_BYTES >> 20)));
        }
        (std::borrow::Cow::Owned(out), Some(Packed { sha256: crate::digest::sha256_hex(bytes) }))
    } else {
        (std::borrow::Cow::Borrowed(bytes), None)
    };
    let text = from_file::utf8(file, &unpacked, TOOL)?;
    prepare_checked(file, text, spec, packed.as_ref())
}

/// Checks a pyperf JSON file and summarises one row per benchmark,
/// recording nothing: every value and warm-up is checked first, so a bad
/// file is refused whole. The caller records the result under the
/// notebook's lock ([`Prepared::record`]).
pub fn prepare_text(file: &Path, text: &str, spec: &PyperfSpec) -> Result<Prepared, ImportError> {
    prepare_checked(file, text, spec, None)
}

fn prepare_checked(
    file: &Path,
    text: &str,
    spec: &PyperfSpec,
    packed: Option<&Packed>,
) -> Result<Prepared, ImportError> {
    let parsed: File = serde_json::from_str(text).map_err(|e| ImportError::Format {
        path: file.to_path_buf(),
        tool: TOOL,
        line: e.line(),
        column: e.column(),
        message: from_file::json_message(&e),
    })?;
    let invalid = |message: String| ImportError::Invalid { path: file.to_path_buf(), message };
    if parsed.version.as_str() != Some(VERSION) {
        return Err(invalid(format!(
            "pyperf file format version {}; Vernier reads version {VERSION}, which pyperf 1.x and 2.x write \
             (python3 -m pyperf convert FILE -o NEW.json rewrites an older file)",
            from_file::shown(&parsed.version.to_string())
        )));
    }
    let benchmarks = select(&parsed, &spec.benchmarks).map_err(invalid)?;

    let name = from_file::file_name(file);
    let mut prepared = Prepared {
        name: name.clone(),
        text: text.to_owned(),
        raw_stem: Pyperf.raw_name().0,
        raw_extension: Pyperf.raw_name().1,
        format: Some(Format(&Pyperf)),
        build: spec.build.clone(),
        boundary: None,
        rows: Vec::new(),
        pair: None,
        checks: Vec::new(),
        left_out: Vec::new(),
    };
    let hash = prepared.sha256();
    let format = match packed {
        Some(p) => {
            format!("pyperf JSON, gzip-compressed (SHA-256 {}); the raw file keeps it unpacked", &p.sha256[..12])
        }
        None => "pyperf JSON".to_owned(),
    };
    for Selected { title, benchmark, metadata } in benchmarks {
        let shown = from_file::shown(&title);
        let (unit, ns_per_unit) = unit_of(&metadata).map_err(|why| invalid(format!("benchmark {shown}: {why}")))?;
        let trials =
            Trials::of(benchmark, unit, ns_per_unit).map_err(|why| invalid(format!("benchmark {shown}, {why}")))?;
        super::check_trials(trials.values.len())
            .map_err(|why| invalid(format!("benchmark {shown}: {why}; rerun with more processes or values")))?;
        let summary = Summary::of(&trials.values).map_err(|e| invalid(format!("benchmark {shown}: {e}")))?;
        let warmups = u32::try_from(trials.warmups).unwrap_or(u32::MAX);
        let mut conditions = vec![
            Condition::new(
                ConditionName::Source,
                format!("{name} ({format}), benchmark {shown}, SHA-256 {}", &hash[..12]),
            ),
            Condition::new(ConditionName::Instrument, trials.instrument(&metadata)),
            Condition::new(ConditionName::WarmupPolicy, trials.warmup_text()),
        ];
        conditions.extend(from_file::machine(
            &metadata,
            &[("hostname", ""), ("cpu_model_name", ""), ("cpu_count", "CPUs"), ("platform", "")],
        ));
        conditions.extend(from_file::conditions(
            metadata.iter().filter(|(k, _)| !SHOWN_ELSEWHERE.contains(&k.as_str())),
            |_, v| from_file::json_text(v),
        ));
        if let Some(dates) = trials.dates() {
            conditions.push(from_file::condition("dates of the runs", &dates));
        }
        conditions
            .push(super::not_recorded("power source and thermal state not available: pyperf does not record them"));
        prepared.rows.push(PreparedRow::measured(
            shown.clone(),
            shown,
            spec.command.as_ref(),
            (WarmupPolicy::Count(warmups), warmups),
            summary,
            (unit, ns_per_unit),
            conditions,
        ));
    }
    Ok(prepared)
}

/// pyperf's JSON (or its gzip): what else is a JSON object, so it is
/// the table's last.
pub(super) struct Pyperf;

impl Importer for Pyperf {
    fn id(&self) -> &'static str {
        "pyperf"
    }

    fn name(&self) -> &'static str {
        "pyperf JSON"
    }

    fn raw_name(&self) -> (&'static str, &'static str) {
        ("import-pyperf", "json")
    }

    fn detect(&self, bytes: &[u8]) -> bool {
        super::gzip(bytes) || super::json_object(bytes)
    }

    /// Every benchmark of the file, with the command and the build as
    /// stated.
    fn prepare(&self, file: &Path, bytes: &[u8], spec: &CsvSpec) -> Result<Prepared, ImportError> {
        let spec = PyperfSpec { benchmarks: Vec::new(), command: spec.command.clone(), build: spec.build.clone() };
        prepare_bytes(file, bytes, &spec)
    }

    /// The values of the row's benchmark (its arm) in the unpacked file,
    /// in the row's unit.
    fn read_back(&self, text: &str, run: &notebook::Run, file: &RawFile) -> Result<ArmValues, ReadBackError> {
        super::as_recorded(read_back(text, &file.arm)?, run, file)
    }
}

/// The values of benchmark `name` read back from the (unpacked) file it was
/// imported from, in the row's unit.
fn read_back(text: &str, name: &str) -> Result<Vec<f64>, ReadBackError> {
    let parsed: File = serde_json::from_str(text).map_err(|e| ReadBackError::Export(from_file::json_message(&e)))?;
    let benchmarks = select(&parsed, &[]).map_err(ReadBackError::Export)?;
    let Selected { benchmark, metadata, .. } = benchmarks
        .into_iter()
        .find(|s| from_file::shown(&s.title) == name)
        .ok_or_else(|| ReadBackError::NoBenchmark(from_file::shown(name)))?;
    let (unit, ns_per_unit) = unit_of(&metadata).map_err(ReadBackError::Export)?;
    Trials::of(benchmark, unit, ns_per_unit).map(|t| t.values).map_err(ReadBackError::Export)
}

/// A benchmark of the file with its name and its metadata: the suite's,
/// overridden by its own.
struct Selected<'a> {
    title: String,
    benchmark: &'a Benchmark,
    metadata: Map<String, Value>,
}

/// The benchmarks asked for (all when none is named), in file order.
fn select<'a>(file: &'a File, wanted: &[String]) -> Result<Vec<Selected<'a>>, String> {
    if file.benchmarks.is_empty() {
        return Err("the file holds no benchmarks".into());
    }
    let mut all: Vec<Selected<'a>> = Vec::with_capacity(file.benchmarks.len());
    for (k, benchmark) in file.benchmarks.iter().enumerate() {
        let mut metadata = file.metadata.clone();
        metadata.extend(benchmark.metadata.iter().map(|(key, v)| (key.clone(), v.clone())));
        let title = metadata.get("name").and_then(Value::as_str).map_or_else(|| format!("{}", k + 1), str::to_owned);
        if all.iter().any(|s| s.title == title) {
            return Err(format!("two benchmarks are named '{}'", from_file::shown(&title)));
        }
        all.push(Selected { title, benchmark, metadata });
    }
    if let Some(missing) = wanted.iter().find(|w| !all.iter().any(|s| s.title == w.trim())) {
        let names: Vec<String> = all.iter().take(20).map(|s| from_file::shown(&s.title)).collect();
        let more = all.len().saturating_sub(20);
        let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
        return Err(format!(
            "no benchmark '{}' (--benchmark) in the file; it holds {}{tail}",
            from_file::shown(missing),
            names.join(", ")
        ));
    }
    Ok(all.into_iter().filter(|s| wanted.is_empty() || wanted.iter().any(|w| s.title == w.trim())).collect())
}

/// The row's unit from the metadata's `unit` (pyperf's default: second).
/// pyperf's other units (`byte` for --track-memory, `integer`) are not
/// times, and a row of them would be read as one: they are refused.
fn unit_of(metadata: &Map<String, Value>) -> Result<(&'static str, f64), String> {
    match metadata.get("unit").map(from_file::json_text).as_deref() {
        None | Some("second") => Ok(("s", 1e9)),
        Some(other) => Err(format!(
            "its unit is '{}', not a time (pyperf writes byte for --track-memory, integer for counts); \
             Vernier imports pyperf's timings",
            from_file::shown(other)
        )),
    }
}

/// A benchmark's values and warm-ups, checked, and what its runs were.
struct Trials<'a> {
    /// Every value of every process, in file order.
    values: Vec<f64>,
    /// Warm-up values of the processes that have values.
    warmups: usize,
    /// Processes with values, and how many values each.
    per_process: Vec<usize>,
    /// Calibration runs skipped (no values).
    calibration: usize,
    /// The runs with values (for their metadata).
    runs: Vec<&'a Run>,
}

impl<'a> Trials<'a> {
    fn of(benchmark: &'a Benchmark, unit: &str, ns_per_unit: f64) -> Result<Self, String> {
        let check = |v: f64| plausible::refused_trial(v, unit, Some(ns_per_unit));
        let mut trials =
            Trials { values: Vec::new(), warmups: 0, per_process: Vec::new(), calibration: 0, runs: Vec::new() };
        for (r, run) in benchmark.runs.iter().enumerate() {
            // A calibration run (calibrate_loops, recalibrate_loops …)
            // only finds the number of loops: its "warm-ups" are probes at
            // growing loop counts, not the benchmark's warm-up.
            if run.values.is_empty() {
                trials.calibration += 1;
                continue;
            }
            for (j, &(_, v)) in run.warmups.iter().enumerate() {
                if let Some(why) = check(v) {
                    return Err(format!(
                        "run {}, warm-up {}: the value {why}; it cannot be a measurement",
                        r + 1,
                        j + 1
                    ));
                }
            }
            for (j, &v) in run.values.iter().enumerate() {
                if let Some(why) = check(v) {
                    return Err(format!("run {}, value {}: the value {why}; it cannot be a measurement", r + 1, j + 1));
                }
            }
            trials.values.extend_from_slice(&run.values);
            trials.warmups += run.warmups.len();
            trials.per_process.push(run.values.len());
            trials.runs.push(run);
        }
        if trials.values.is_empty() {
            return Err(format!("its {} run(s) hold no values: only calibration", benchmark.runs.len()));
        }
        Ok(trials)
    }

    /// `3 processes × 3 values` or `9 values from 3 processes`.
    fn processes(&self) -> String {
        let p = self.per_process.len();
        match self.per_process.first() {
            Some(&v) if self.per_process.iter().all(|&x| x == v) => {
                format!("{p} process{} × {v} value{}", plural_es(p), plural(v))
            }
            _ => format!("{} values from {p} processes", self.values.len()),
        }
    }

    /// The row's instrument: pyperf, its timer, loops and processes.
    fn instrument(&self, metadata: &Map<String, Value>) -> String {
        let get = |key: &str| metadata.get(key).map(|v| from_file::shown(&from_file::json_text(v)));
        let version = get("perf_version").map(|v| format!(" {v}")).unwrap_or_default();
        // The timer as pyperf names it, in backticks like code: its
        // resolution is pyperf's text, no result of this row's (A7).
        let timer = get("timer").map(|t| format!(" (timer `{t}`)")).unwrap_or_default();
        let loops = get("loops").map(|l| format!(", {l} loops per value")).unwrap_or_default();
        let inner = get("inner_loops").map(|l| format!(" × {l} inner loops")).unwrap_or_default();
        let calibration = match self.calibration {
            0 => String::new(),
            1 => ", 1 calibration run skipped".into(),
            c => format!(", {c} calibration runs skipped"),
        };
        format!("pyperf{version}: wall time per loop{timer}{loops}{inner}; {}{calibration}", self.processes())
    }

    /// The row's `warm-up policy` condition.
    fn warmup_text(&self) -> String {
        let p = self.per_process.len();
        let each =
            self.runs.first().map(|r| r.warmups.len()).filter(|&w| self.runs.iter().all(|r| r.warmups.len() == w));
        let how = match each {
            Some(w) => format!("{w} in each of the {p} process{}", plural_es(p)),
            None => format!("{} over the {p} process{}", self.warmups, plural_es(p)),
        };
        format!("pyperf's warm-up values, {how}: kept apart in the file, never among the trials")
    }

    /// The first and last run's `date`, when the runs have one.
    fn dates(&self) -> Option<String> {
        let date = |r: &&Run| r.metadata.get("date").map(from_file::json_text);
        let first = self.runs.first().and_then(date)?;
        match self.runs.last().and_then(date) {
            Some(last) if last != first => Some(format!("{first} to {last}")),
            _ => Some(first),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn plural_es(n: usize) -> &'static str {
    if n == 1 { "" } else { "es" }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;
    use crate::notebook::{Conditions, Notebook};
    use std::path::PathBuf;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/pyperf/");

    fn fixture(name: &str) -> PathBuf {
        Path::new(FIXTURES).join(name)
    }

    fn text() -> String {
        std::fs::read_to_string(fixture("sums.json")).expect("fixture")
    }

    /// `text` prepared as if read from `p.json`; the message on failure.
    fn message(text: &str) -> String {
        match prepare_text(Path::new("p.json"), text, &PyperfSpec::default()) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs()
    }

    /// numpy's median and IQR of each benchmark's values, every value of
    /// every run, warm-ups left out:
    ///   python3 -c "import json,numpy as np; d=json.load(open('tests/fixtures/pyperf/sums.json'));
    ///     [print(b['metadata']['name'], np.percentile(v,50), np.subtract(*np.percentile(v,[75,25])))
    ///     for b in d['benchmarks'] for v in [[x for r in b['runs'] for x in r.get('values',[])]]]"
    const NUMPY: [(&str, f64, f64); 2] = [
        ("loop_sum", 3.458_986_926_269_461e-5, 1.531_278_869_628_533e-5),
        ("builtin_sum", 8.241_238_464_355_01e-6, 2.948_672_363_281_383_5e-6),
    ];

    fn check_rows(prepared: &Prepared) {
        assert_eq!(prepared.rows.len(), 2);
        for (row, (name, median, iqr)) in prepared.rows.iter().zip(NUMPY) {
            let m = &row.measurement;
            assert_eq!((m.what.as_str(), row.arm.as_str(), m.unit.as_str()), (name, name, "s"));
            assert!(close(m.ns_per_unit, 1e9));
            assert_eq!(m.summary.n, 9, "the values only: 3 processes × 3");
            assert!(close(m.summary.median, median), "{name}: {}", m.summary.median);
            assert!(close(m.summary.iqr, iqr), "{name}: {}", m.summary.iqr);
            // One warm-up value per process, kept apart.
            assert_eq!((m.warmup, m.warmup_trials), (WarmupPolicy::Count(3), 3));
        }
    }

    // SPEC E14: the file pyperf wrote becomes one row per benchmark whose
    // median and IQR are numpy's over the values, its warm-ups counted but
    // kept apart, its calibration run skipped, its metadata in the
    // conditions as from the file.
    #[test]
    fn the_real_suite_becomes_one_row_per_benchmark_with_numpys_medians() {
        let prepared = prepare(&fixture("sums.json"), &PyperfSpec::default()).expect("imports");
        check_rows(&prepared);
        assert_eq!((prepared.raw_stem, prepared.raw_extension), ("import-pyperf", "json"));
        assert_eq!(prepared.text, text(), "the raw copy is the file unchanged");
        assert!(prepared.checks.is_empty());
        let c = &prepared.rows[0].measurement.conditions;
        let source = c.value_of(ConditionName::Source).unwrap_or_default();
        assert_eq!(
            source,
            format!("sums.json (pyperf JSON), benchmark loop_sum, SHA-256 {}", &prepared.sha256()[..12])
        );
        assert_eq!(
            c.value_of(ConditionName::Instrument),
            Some(
                "pyperf 2.11.0: wall time per loop (timer `clock_gettime(CLOCK_MONOTONIC), resolution: 1.00 ns`), \
                 8192 loops per value; 3 processes × 3 values, 1 calibration run skipped"
            )
        );
        assert_eq!(
            c.value_of(ConditionName::WarmupPolicy),
            Some(
                "pyperf's warm-up values, 1 in each of the 3 processes: kept apart in the file, never among the trials"
            )
        );
        let field = |f: &str| c.iter().find(|x| x.field == f).map(|x| x.value.as_str());
        assert_eq!(field("python_version (from the file)"), Some("3.11.7 (64-bit)"));
        assert_eq!(field("cpu_model_name (from the file)"), Some("Intel(R) Xeon(R) Processor"));
        assert_eq!(field("hostname (from the file)"), Some("vm"));
        assert_eq!(
            field("machine (from the file)"),
            Some("vm, Intel(R) Xeon(R) Processor, 2 CPUs, Linux-6.18.44-fc-v657-x86_64-with-glibc2.36")
        );
        assert_eq!(field("cpu_config (from the file)"), Some("idle:none"));
        assert_eq!(field("loops (from the file)"), Some("8192"));
        assert_eq!(
            field("dates of the runs (from the file)"),
            Some("2026-12-01 10:32:04.244731 to 2026-12-01 10:32:06.576542")
        );
        assert_eq!(field("name (from the file)"), None, "the name is the row's What");
        assert!(c.condition(ConditionName::CpuModel).is_none(), "nothing poses as read on this machine");
    }

    // SPEC E14: the same file gzip-compressed (as pyperf writes
    // `-o FILE.json.gz`) gives the same rows; the raw copy is the unpacked
    // JSON and the source names the .gz's own hash.
    #[test]
    fn a_gzip_file_is_unpacked_bounded() {
        let prepared = prepare(&fixture("sums.json.gz"), &PyperfSpec::default()).expect("imports");
        check_rows(&prepared);
        assert_eq!(prepared.text, text());
        let gz = std::fs::read(fixture("sums.json.gz")).expect("gz");
        let source = prepared.rows[0].measurement.conditions.value_of(ConditionName::Source).unwrap_or_default();
        let expected = format!(
            "gzip-compressed (SHA-256 {}); the raw file keeps it unpacked",
            &crate::digest::sha256_hex(&gz)[..12]
        );
        assert!(source.contains(&expected), "{source}");
        let broken = [&gz[..20], b"not gzip at all"].concat();
        let got = prepare_bytes(Path::new("b.json.gz"), &broken, &PyperfSpec::default()).err().map(|e| e.to_string());
        assert!(got.as_deref().is_some_and(|m| m.starts_with("b.json.gz: not a readable gzip file")), "{got:?}");
    }

    // SPEC E14: recorded, the row reads "3 + 9": pyperf's warm-ups are the
    // row's warm-up, its values its trials.
    #[test]
    fn recorded_rows_read_warmup_plus_values() {
        let dir = tempfile::tempdir().expect("tempdir");
        let spec = PyperfSpec { benchmarks: vec!["builtin_sum".into()], ..PyperfSpec::default() };
        let prepared = prepare(&fixture("sums.json"), &spec).expect("imports");
        let mut nb = Notebook::new("t", Utc::now());
        let recorded = prepared.record(dir.path(), &mut nb, Utc::now()).expect("records");
        assert_eq!(recorded.runs, vec![1]);
        assert_eq!(nb.runs()[0].n_column(), "3 + 9");
        assert_eq!(nb.runs()[0].measurement.what, "builtin_sum");
        let raw = std::fs::read_to_string(dir.path().join(recorded.raw_file.path.to_string())).expect("raw copy");
        assert_eq!(raw, text());
    }

    // SPEC E14, N10: an impossible value or warm-up is refused naming the
    // benchmark, run and value; JSON that is not a number names its line
    // and column; a unit that is not a time and a file with no values are
    // refused.
    #[test]
    fn bad_values_are_refused_naming_benchmark_run_and_value() {
        let real = text();
        let value = "3.458986926269461e-05";
        let warmup = "[8192,2.407040319824319e-05]";
        assert!(real.contains(value) && real.contains(warmup));
        let column = real.find(value).map_or(0, |i| i + 1);
        let cases = [
            (
                real.replace(value, "-3.4e-05"),
                "p.json: benchmark loop_sum, run 2, value 2: the value is -0.000034, a negative time".to_owned(),
            ),
            (
                real.replace(value, "1e6"),
                "benchmark loop_sum, run 2, value 2: the value is 1000000 s, more than a day per trial".to_owned(),
            ),
            (
                real.replace(warmup, "[8192,-1]"),
                "benchmark loop_sum, run 3, warm-up 1: the value is -1, a negative time".to_owned(),
            ),
            (real.replace(value, "NaN"), format!("p.json:1:{column}: not a pyperf JSON file: expected value")),
            (
                real.replace("\"unit\":\"second\"", "\"unit\":\"byte\""),
                "benchmark loop_sum: its unit is 'byte', not a time".to_owned(),
            ),
            (
                real.replace("\"version\":\"1.0\"", "\"version\":\"9.0\""),
                "p.json: pyperf file format version \"9.0\"; Vernier reads version 1.0".to_owned(),
            ),
            (
                real.replace("\"version\":\"1.0\"", "\"version\":6"),
                "pyperf file format version 6; Vernier reads version 1.0, which pyperf 1.x and 2.x write \
                 (python3 -m pyperf convert FILE -o NEW.json rewrites an older file)"
                    .to_owned(),
            ),
            (
                "{\"version\": \"1.0\", \"benchmarks\": [{\"runs\": [{\"warmups\": [[1, 0.5]]}]}]}".to_owned(),
                "benchmark 1, its 1 run(s) hold no values: only calibration".to_owned(),
            ),
            (
                "{\"version\": \"1.0\", \"benchmarks\": []}".to_owned(),
                "p.json: the file holds no benchmarks".to_owned(),
            ),
            (
                "{\"benchmarks\": [], \"context\": {}}".to_owned(),
                "p.json:1:33: not a pyperf JSON file: missing field `version`".to_owned(),
            ),
        ];
        for (text, expected) in cases {
            let got = message(&text);
            assert!(got.contains(&expected), "{expected}: got {got}");
            assert!(!got.contains(" at line "), "the place is named once: {got}");
        }
        let spec = PyperfSpec { benchmarks: vec!["dict_sum".into()], ..PyperfSpec::default() };
        let got = prepare_text(Path::new("p.json"), &real, &spec).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            got.contains("no benchmark 'dict_sum' (--benchmark) in the file; it holds loop_sum, builtin_sum"),
            "{got}"
        );
    }
}
