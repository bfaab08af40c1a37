//! Google Benchmark's JSON (SPEC E14, C: `vernier import gbench`).
//!
//! A C++ student who times a kernel with Google Benchmark and
//! `--benchmark_repetitions=N` gets, per benchmark, N repetitions — each
//! the mean `real_time` per iteration over many iterations — and the
//! library's aggregates (mean, median, stddev, cv) over them. The
//! repetitions are the trials: one MEASURED row per benchmark (its
//! `run_name`), Vernier's own median and IQR over the repetitions'
//! `real_time`, in the file's `time_unit`. The aggregates are never
//! trials; Google's `median` is only checked against Vernier's.
//!
//! The library's `context` (host, CPUs, caches, CPU scaling, its own build
//! type, the load) describes the machine that measured, so it goes into
//! each row's conditions marked "from the file" — never as something
//! Vernier read here. A benchmark that reported an error is not recorded;
//! a note says so, as for a failed trial of `bench` (E10).
//!
//! The file is untrusted: it is read bounded, every repetition's time is
//! checked before anything is written, and its texts are shown inert.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::csv::CsvSpec;
use super::{
    FileCheck, Format, ImportError, Importer, MAX_IMPORT_BYTES, Prepared, PreparedRow, ReadBackError, from_file,
};
use crate::bounded::read_bounded;
use crate::display::inert_line;
use crate::harness::raw::ArmValues;
use crate::notebook::{Condition, ConditionName, RawFile, Run, WarmupPolicy, plausible};
use crate::stats::{Summary, format_significant};

/// Google's median aggregate agrees with Vernier's median of the same
/// repetitions when they differ by at most this fraction of Vernier's:
/// both are the middle repetition (or the mean of the two middle ones),
/// but Google computes its own from unrounded totals, so the last digits
/// of the two may differ; a larger gap means the file was edited or the
/// aggregate was taken over other repetitions.
pub const MEDIAN_TOLERANCE: f64 = 1e-6;

/// Google Benchmark's time units, with nanoseconds per unit.
const UNITS: [(&str, f64); 4] = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)];

/// What a file this reader refuses as malformed should have been.
const TOOL: &str = "a Google Benchmark JSON file";

/// What to import and how to describe it; every text is the user's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GbenchSpec {
    /// Only these benchmarks (by `run_name`, e.g. `BM_Naive/128`); empty:
    /// every benchmark in the file.
    pub benchmarks: Vec<String>,
    /// N warm-up runs happened but are not in the file (Google Benchmark
    /// writes none to its JSON).
    pub warmup_stated: Option<u32>,
    /// How the file was produced, stored as the rows' command.
    pub command: Option<String>,
    /// How the measured program was built (default: the Environment's).
    pub build: Option<String>,
}

/// The file as Google Benchmark writes it (`--benchmark_format=json` or
/// `--benchmark_out`); fields this reader does not use are ignored.
#[derive(Deserialize)]
struct File {
    #[serde(default)]
    context: Map<String, Value>,
    benchmarks: Vec<Entry>,
}

/// One entry of `benchmarks`: a repetition (`run_type: iteration`) or an
/// aggregate over the repetitions.
#[derive(Deserialize)]
struct Entry {
    name: String,
    #[serde(default)]
    run_name: Option<String>,
    #[serde(default)]
    run_type: Option<String>,
    #[serde(default)]
    aggregate_name: Option<String>,
    #[serde(default)]
    repetitions: Option<u64>,
    #[serde(default)]
    repetition_index: Option<u64>,
    #[serde(default)]
    threads: Option<u64>,
    #[serde(default)]
    iterations: Option<u64>,
    #[serde(default)]
    real_time: Option<f64>,
    #[serde(default)]
    time_unit: Option<String>,
    #[serde(default)]
    error_occurred: bool,
    #[serde(default)]
    error_message: Option<String>,
}

impl Entry {
    /// An aggregate: `run_type: aggregate`, or (before the library wrote
    /// `run_type`) an entry with an `aggregate_name`.
    fn is_aggregate(&self) -> bool {
        self.run_type.as_deref() == Some("aggregate") || (self.run_type.is_none() && self.aggregate_name.is_some())
    }

    /// The benchmark it belongs to: `run_name`, or for a file written
    /// before the library wrote it, the name without its aggregate suffix.
    fn benchmark(&self) -> &str {
        if let Some(run) = &self.run_name {
            return run;
        }
        match &self.aggregate_name {
            Some(agg) => self.name.strip_suffix(&format!("_{agg}")).unwrap_or(&self.name),
            None => &self.name,
        }
    }
}

/// One benchmark's entries, in file order.
struct Benchmark<'a> {
    name: &'a str,
    repetitions: Vec<&'a Entry>,
    aggregates: Vec<&'a Entry>,
}

impl Benchmark<'_> {
    /// True for the entries `->Complexity()` adds after a family's sizes
    /// (`BM_Fill_BigO`, `BM_Fill_RMS`, run_name `BM_Fill`): a fit of time
    /// against size, not a measurement with repetitions.
    fn is_fit(&self) -> bool {
        self.repetitions.is_empty()
            && !self.aggregates.is_empty()
            && self.aggregates.iter().all(|a| matches!(a.aggregate_name.as_deref(), Some("BigO" | "RMS")))
    }

    /// `mean, median, stddev, cv`: the aggregates' names, inert.
    fn aggregate_names(&self) -> String {
        let names: Vec<&str> = self.aggregates.iter().filter_map(|a| a.aggregate_name.as_deref()).collect();
        inert_line(names.join(", "))
    }
}

/// [`prepare_text`] on the file, read bounded.
pub fn prepare(file: &Path, spec: &GbenchSpec) -> Result<Prepared, ImportError> {
    let bytes = read_bounded(file, MAX_IMPORT_BYTES, TOOL)?;
    prepare_bytes(file, &bytes, spec)
}

/// [`prepare_text`] on bytes already read (the window, a fuzz target);
/// `file` names them in messages and rows.
pub fn prepare_bytes(file: &Path, bytes: &[u8], spec: &GbenchSpec) -> Result<Prepared, ImportError> {
    let text = from_file::utf8(file, bytes, TOOL)?;
    prepare_text(file, text, spec)
}

/// Checks a Google Benchmark JSON file and summarises one row per
/// benchmark, recording nothing: every repetition's `real_time` is checked
/// first, so a bad file is refused whole. A benchmark that reported an
/// error gets no row, only a note. The caller records the result under
/// the notebook's lock ([`Prepared::record`]).
pub fn prepare_text(file: &Path, text: &str, spec: &GbenchSpec) -> Result<Prepared, ImportError> {
    let parsed: File = serde_json::from_str(text).map_err(|e| ImportError::Format {
        path: file.to_path_buf(),
        tool: TOOL,
        line: e.line(),
        column: e.column(),
        message: from_file::json_message(&e),
    })?;
    let invalid = |message: String| ImportError::Invalid { path: file.to_path_buf(), message };
    let (benchmarks, fits) = select(group(&parsed.benchmarks), &spec.benchmarks).map_err(invalid)?;

    let name = from_file::file_name(file);
    let mut prepared = Prepared {
        name: name.clone(),
        text: text.to_owned(),
        raw_stem: Gbench.raw_name().0,
        raw_extension: Gbench.raw_name().1,
        format: Some(Format(&Gbench)),
        build: spec.build.clone(),
        boundary: None,
        rows: Vec::new(),
        pair: None,
        checks: Vec::new(),
        left_out: Vec::new(),
    };
    prepared.checks.extend(context_warnings(&parsed.context).into_iter().map(|text| FileCheck { text, failed: false }));
    for fit in fits {
        let text = format!("{fit}: Google Benchmark's complexity fit over the sizes, not a measurement; not imported");
        prepared.checks.push(FileCheck { text, failed: false });
    }
    let hash = prepared.sha256();
    let context = context_conditions(&parsed.context);
    let version = parsed.context.get("library_version").map(from_file::json_text);
    let (warmup, warmup_trials) = match spec.warmup_stated {
        Some(n) => (WarmupPolicy::Stated(n), n),
        None => (WarmupPolicy::Unknown, 0),
    };
    for benchmark in &benchmarks {
        // The name is the file's: inert, and cut if absurdly long.
        let shown = from_file::shown(benchmark.name);
        if let Some(text) = failed(benchmark) {
            prepared.checks.push(FileCheck { text, failed: true });
            continue;
        }
        let (unit, ns_per_unit, times) = times(benchmark).map_err(invalid)?;
        let summary = Summary::of(&times).map_err(|e| invalid(format!("benchmark {shown}: {e}")))?;
        let mut conditions = vec![
            Condition::new(
                ConditionName::Source,
                format!("{name} (Google Benchmark JSON), benchmark {shown}, SHA-256 {}", &hash[..12]),
            ),
            Condition::new(ConditionName::Instrument, instrument(benchmark, version.as_deref())),
            Condition::new(ConditionName::WarmupPolicy, warmup_text(warmup)),
        ];
        let (check, agrees) = median_check(benchmark, &summary, unit);
        conditions.push(Condition::new(ConditionName::ResultCheck, check.clone()));
        prepared.checks.push(FileCheck { text: format!("benchmark {shown}: {check}"), failed: !agrees });
        conditions.extend(from_file::machine(
            &parsed.context,
            &[("host_name", ""), ("num_cpus", "CPUs"), ("mhz_per_cpu", "MHz")],
        ));
        conditions.extend(context.iter().cloned());
        conditions.push(super::not_recorded(
            "power source and thermal state not available: Google Benchmark does not record them",
        ));
        prepared.rows.push(PreparedRow::measured(
            shown.clone(),
            shown,
            spec.command.as_ref(),
            (warmup, warmup_trials),
            summary,
            (unit, ns_per_unit),
            conditions,
        ));
    }
    if prepared.rows.is_empty() {
        let why: Vec<&str> = prepared.checks.iter().filter(|c| c.failed).map(|c| c.text.as_str()).collect();
        return Err(invalid(format!("nothing to record: {}", why.join("; "))));
    }
    Ok(prepared)
}

/// Google Benchmark's JSON: an object with a `context`.
pub(super) struct Gbench;

impl Importer for Gbench {
    fn id(&self) -> &'static str {
        "gbench"
    }

    fn name(&self) -> &'static str {
        "Google Benchmark JSON"
    }

    fn raw_name(&self) -> (&'static str, &'static str) {
        ("import-gbench", "json")
    }

    fn detect(&self, bytes: &[u8]) -> bool {
        super::json_object(bytes) && super::has_key(bytes, "context")
    }

    /// Every benchmark of the file, with the warm-up not in it, the
    /// command and the build as stated.
    fn prepare(&self, file: &Path, bytes: &[u8], spec: &CsvSpec) -> Result<Prepared, ImportError> {
        let spec = GbenchSpec {
            benchmarks: Vec::new(),
            warmup_stated: spec.warmup_stated,
            command: spec.command.clone(),
            build: spec.build.clone(),
        };
        prepare_bytes(file, bytes, &spec)
    }

    /// The repetitions of the row's benchmark (its arm), in the file's
    /// own time unit.
    fn read_back(&self, text: &str, run: &Run, file: &RawFile) -> Result<ArmValues, ReadBackError> {
        super::as_recorded(read_back(text, &file.arm)?, run, file)
    }
}

/// The repetitions of benchmark `name` read back from the file it was
/// imported from, in its own time unit.
fn read_back(text: &str, name: &str) -> Result<Vec<f64>, ReadBackError> {
    let parsed: File = serde_json::from_str(text).map_err(|e| ReadBackError::Export(from_file::json_message(&e)))?;
    let benchmarks = group(&parsed.benchmarks);
    let benchmark = benchmarks
        .iter()
        .find(|b| from_file::shown(b.name) == name)
        .ok_or_else(|| ReadBackError::NoBenchmark(inert_line(name.to_owned())))?;
    times(benchmark).map(|(_, _, times)| times).map_err(ReadBackError::Export)
}

/// The entries by benchmark, in the order each first appears.
fn group(entries: &[Entry]) -> Vec<Benchmark<'_>> {
    let mut order: Vec<Benchmark<'_>> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for entry in entries {
        let k = *index.entry(entry.benchmark()).or_insert_with(|| {
            order.push(Benchmark { name: entry.benchmark(), repetitions: Vec::new(), aggregates: Vec::new() });
            order.len() - 1
        });
        if entry.is_aggregate() {
            order[k].aggregates.push(entry);
        } else {
            order[k].repetitions.push(entry);
        }
    }
    order
}

/// The benchmarks asked for (all when none is named), each checked to hold
/// repetitions rather than aggregates only; and the names of the
/// complexity fits left out.
fn select<'a>(all: Vec<Benchmark<'a>>, wanted: &[String]) -> Result<(Vec<Benchmark<'a>>, Vec<String>), String> {
    if all.is_empty() {
        return Err("the file holds no benchmarks".into());
    }
    let listed = || {
        let names: Vec<String> = all.iter().take(20).map(|b| inert_line(b.name.to_owned())).collect();
        let more = all.len().saturating_sub(20);
        let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
        format!("{}{tail}", names.join(", "))
    };
    if let Some(missing) = wanted.iter().find(|w| !all.iter().any(|b| b.name == w.trim())) {
        return Err(format!(
            "no benchmark '{}' (--benchmark) in the file; it holds {}",
            inert_line(missing.clone()),
            listed()
        ));
    }
    let asked = |b: &Benchmark<'_>| wanted.iter().any(|w| b.name == w.trim());
    if let Some(fit) = all.iter().find(|b| b.is_fit() && asked(b)) {
        return Err(format!(
            "'{}' (--benchmark) is Google Benchmark's complexity fit ({}) over other benchmarks, not a benchmark \
             with repetitions",
            inert_line(fit.name.to_owned()),
            fit.aggregate_names()
        ));
    }
    let (fits, picked): (Vec<Benchmark<'a>>, Vec<Benchmark<'a>>) =
        all.into_iter().filter(|b| wanted.is_empty() || asked(b)).partition(Benchmark::is_fit);
    if let Some(b) = picked.iter().find(|b| b.repetitions.is_empty()) {
        return Err(format!(
            "benchmark {} holds only aggregates ({}), not its repetitions: Vernier takes each repetition's real_time \
             as a trial and never an aggregate. Rerun with --benchmark_report_aggregates_only=false (the default); \
             --benchmark_display_aggregates_only=true drops the repetitions only from what is printed, so with it \
             write the file with --benchmark_out=FILE.json, which keeps them",
            inert_line(b.name.to_owned()),
            b.aggregate_names()
        ));
    }
    if picked.is_empty() {
        return Err("the file holds only complexity fits (BigO, RMS), no benchmark with repetitions".into());
    }
    let fits = fits.iter().map(|b| format!("{} ({})", from_file::shown(b.name), b.aggregate_names())).collect();
    Ok((picked, fits))
}

/// The failed check for a benchmark that reported an error in any
/// repetition: it gets no row, only this sentence as a note, as a `bench`
/// run with a failed trial gets none (E10).
fn failed(benchmark: &Benchmark<'_>) -> Option<String> {
    let errors: Vec<(usize, &Entry)> =
        benchmark.repetitions.iter().enumerate().filter(|(_, e)| e.error_occurred).map(|(k, e)| (k, *e)).collect();
    let (k, first) = errors.first()?;
    let message = first.error_message.as_deref().map(|m| format!(": '{}'", from_file::shown(m))).unwrap_or_default();
    Some(format!(
        "benchmark {} was not recorded: Google Benchmark reported an error in {} of its {} repetitions \
         (first in {}{message}); the file is kept unchanged as the import's raw file",
        inert_line(benchmark.name.to_owned()),
        errors.len(),
        benchmark.repetitions.len(),
        repetition_name(first, *k),
    ))
}

/// `repetition 3`: the library's own index, 1-based, else the position.
fn repetition_name(entry: &Entry, position: usize) -> String {
    let index =
        entry.repetition_index.map_or(position + 1, |i| usize::try_from(i).unwrap_or(usize::MAX).saturating_add(1));
    format!("repetition {index}")
}

/// The benchmark's unit, its nanoseconds per unit and every repetition's
/// `real_time`, each checked.
fn times(benchmark: &Benchmark<'_>) -> Result<(&'static str, f64, Vec<f64>), String> {
    let shown = inert_line(benchmark.name.to_owned());
    let mut unit: Option<(&'static str, f64)> = None;
    let mut times = Vec::with_capacity(benchmark.repetitions.len());
    for (k, entry) in benchmark.repetitions.iter().enumerate() {
        let at = || format!("benchmark {shown}, {}", repetition_name(entry, k));
        if let Some(kind) = entry.run_type.as_deref().filter(|t| *t != "iteration") {
            return Err(format!("{}: unknown run_type '{}'", at(), inert_line(kind.to_owned())));
        }
        let written = entry.time_unit.as_deref().unwrap_or_default();
        let Some(this) = UNITS.iter().find(|(u, _)| *u == written).copied() else {
            return Err(format!(
                "{}: time_unit '{}' is none of Google Benchmark's ns, us, ms, s",
                at(),
                inert_line(written.to_owned())
            ));
        };
        match unit {
            Some((u, _)) if u != this.0 => {
                return Err(format!("{}: time_unit {} where the earlier repetitions say {u}", at(), this.0));
            }
            _ => unit = Some(this),
        }
        let Some(t) = entry.real_time else {
            return Err(format!("{}: no real_time", at()));
        };
        if let Some(why) = plausible::refused_trial(t, this.0, Some(this.1)) {
            return Err(format!("{}: real_time {why}; it cannot be a measurement", at()));
        }
        times.push(t);
    }
    let (unit, ns) = unit.ok_or_else(|| format!("benchmark {shown}: no repetitions"))?;
    if let Err(why) = super::check_trials(times.len()) {
        return Err(format!("benchmark {shown}: {why}; rerun with --benchmark_repetitions=9 (or more)"));
    }
    Ok((unit, ns, times))
}

/// The row's instrument: the library, what a repetition is, its
/// iterations and threads.
fn instrument(benchmark: &Benchmark<'_>, version: Option<&str>) -> String {
    let version = version.map(|v| format!(" {}", from_file::shown(v))).unwrap_or_default();
    let iterations: Vec<u64> = benchmark.repetitions.iter().filter_map(|e| e.iterations).collect();
    let per = match (iterations.iter().min(), iterations.iter().max()) {
        (Some(lo), Some(hi)) if lo == hi => format!(", {lo} iterations per repetition"),
        (Some(lo), Some(hi)) => format!(", {lo}–{hi} iterations per repetition"),
        _ => String::new(),
    };
    let threads = benchmark.repetitions.iter().filter_map(|e| e.threads).max().filter(|&t| t > 1);
    let threads = threads.map(|t| format!(", {t} threads")).unwrap_or_default();
    let stated = benchmark.repetitions.iter().filter_map(|e| e.repetitions).max();
    let reps = benchmark.repetitions.len();
    let of = match stated {
        Some(s) if usize::try_from(s).is_ok_and(|s| s != reps) => format!(" ({reps} of the {s} repetitions it states)"),
        _ => String::new(),
    };
    format!("Google Benchmark{version}: real_time per iteration, each repetition a trial{of}{per}{threads}")
}

/// SPEC E14: Google's `median` aggregate against Vernier's median of the
/// same repetitions, within [`MEDIAN_TOLERANCE`]. A mismatch is stated,
/// not refused: the repetitions, not the aggregate, are the measurement.
/// Returns the sentence and whether they agree (true when there is no
/// aggregate to check).
fn median_check(benchmark: &Benchmark<'_>, summary: &Summary, unit: &str) -> (String, bool) {
    let theirs = benchmark
        .aggregates
        .iter()
        .find(|a| a.aggregate_name.as_deref() == Some("median") && a.time_unit.as_deref() == Some(unit))
        .and_then(|a| a.real_time);
    let ours = summary.median;
    let n = summary.n;
    let Some(theirs) = theirs else {
        return ("no median aggregate in the file to check against".into(), true);
    };
    let show = |v: f64| format!("{} {unit}", format_significant(v, 6));
    let gap = (theirs - ours).abs();
    if theirs.is_finite() && gap <= MEDIAN_TOLERANCE * ours.abs() {
        (
            format!(
                "Google Benchmark's median aggregate {} agrees with Vernier's median of the {n} repetitions",
                show(theirs)
            ),
            true,
        )
    } else {
        let relative = if ours == 0.0 {
            String::new()
        } else {
            format!(" ({} %)", format_significant(100.0 * gap / ours.abs(), 2))
        };
        (
            format!(
                "Google Benchmark's median aggregate {} differs from Vernier's median of the {n} repetitions, {}, by more than a relative {MEDIAN_TOLERANCE:e}{relative}; the row keeps Vernier's",
                show(theirs),
                show(ours)
            ),
            false,
        )
    }
}

/// The row's `warm-up policy` condition.
fn warmup_text(policy: WarmupPolicy) -> String {
    match policy {
        WarmupPolicy::Unknown => "not recorded: Google Benchmark writes no warm-up to its JSON (its \
                                  --benchmark_min_warmup_time is 0 unless set); state it with --warmup-stated N"
            .into(),
        other => other.to_string(),
    }
}

/// The library's `context` as conditions from the file: the caches and
/// the load written plainly, and the two settings the library itself warns
/// about (CPU scaling, a debug build of the library) said in words.
fn context_conditions(context: &Map<String, Value>) -> Vec<Condition> {
    from_file::conditions(context.iter(), |key, value| match (key, value) {
        ("caches", Value::Array(caches)) => caches_text(caches).unwrap_or_else(|| from_file::json_text(value)),
        ("cpu_scaling_enabled", Value::Bool(true)) => {
            "true (CPU frequency scaling was on; Google Benchmark warns that real time may be noisy)".into()
        }
        ("library_build_type", Value::String(t)) if t.eq_ignore_ascii_case("debug") => {
            "debug (the Google Benchmark library itself was built for debugging; it warns that timings may be affected)"
                .into()
        }
        _ => from_file::json_text(value),
    })
}

/// The warnings Google Benchmark itself prints about its context, as
/// lines the import shows: they are facts of the file, kept in every row's
/// conditions, not failed checks.
fn context_warnings(context: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    if context.get("library_build_type").and_then(Value::as_str).is_some_and(|t| t.eq_ignore_ascii_case("debug")) {
        out.push(
            "warning: the Google Benchmark library was built as debug (library_build_type in the file's context); \
             the library warns that timings may be affected"
                .to_owned(),
        );
    }
    if context.get("cpu_scaling_enabled").and_then(Value::as_bool) == Some(true) {
        out.push(
            "warning: CPU frequency scaling was enabled (cpu_scaling_enabled in the file's context); \
             the library warns that real time may be noisy"
                .to_owned(),
        );
    }
    out
}

/// `L1 Data 48 KiB, L2 Unified 2 MiB, L3 Unified 300 MiB (shared by 2)`.
fn caches_text(caches: &[Value]) -> Option<String> {
    let one = |c: &Value| -> Option<String> {
        let level = c.get("level")?.as_u64()?;
        let kind = c.get("type")?.as_str()?;
        let size = c.get("size")?.as_f64()?;
        let sharing = c.get("num_sharing").and_then(Value::as_u64).filter(|&s| s > 1);
        let sharing = sharing.map(|s| format!(" (shared by {s})")).unwrap_or_default();
        Some(format!("L{level} {kind} {}{sharing}", crate::stats::units::size(size)))
    };
    caches.iter().map(one).collect::<Option<Vec<_>>>().map(|all| all.join(", "))
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;
    use crate::notebook::{Conditions, Notebook};
    use std::path::PathBuf;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/gbench/");

    fn fixture(name: &str) -> PathBuf {
        Path::new(FIXTURES).join(name)
    }

    fn text(name: &str) -> String {
        std::fs::read_to_string(fixture(name)).expect("fixture")
    }

    /// `text` prepared as if read from `file.json`; the message on failure.
    fn message(text: &str, spec: &GbenchSpec) -> String {
        match prepare_text(Path::new("file.json"), text, spec) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs()
    }

    // SPEC E14: the real library's file, 9 repetitions of three benchmarks,
    // becomes three rows whose medians and IQRs are numpy's on the same
    // real_time values:
    //   python3 -c "import json,numpy as np; d=json.load(open('tests/fixtures/gbench/matmul-reps9.json'));
    //     [print(n, np.percentile(v,50), np.subtract(*np.percentile(v,[75,25]))) for n in dict.fromkeys(
    //     b['run_name'] for b in d['benchmarks']) for v in [[b['real_time'] for b in d['benchmarks']
    //     if b['run_name']==n and b['run_type']=='iteration']]]"
    #[test]
    fn the_real_file_becomes_one_row_per_benchmark_with_numpys_medians() {
        let prepared = prepare(&fixture("matmul-reps9.json"), &GbenchSpec::default()).expect("imports");
        let expected = [
            ("BM_Naive/128", "ms", 1e6, 2.253_179_933_503_829_6, 0.354_508_549_872_060_6),
            ("BM_Blocked/128", "ms", 1e6, 1.894_208_687_943_332, 0.376_032_505_910_248_06),
            ("BM_RowSum/128", "us", 1e3, 13.115_977_954_253_447, 0.612_152_365_692_066_9),
        ];
        assert_eq!(prepared.rows.len(), 3);
        assert!(prepared.checks.iter().all(|c| !c.failed), "{:?}", prepared.checks);
        // Debian's libbenchmark reports itself as a debug build: a warning line, not a failed check.
        assert!(prepared.checks[0].text.starts_with("warning: the Google Benchmark library was built as debug"));
        assert_eq!((prepared.raw_stem, prepared.raw_extension), ("import-gbench", "json"));
        assert_eq!(prepared.text, text("matmul-reps9.json"), "the raw copy is the file unchanged");
        for (row, (name, unit, ns, median, iqr)) in prepared.rows.iter().zip(expected) {
            let m = &row.measurement;
            assert_eq!((m.what.as_str(), row.arm.as_str(), m.unit.as_str()), (name, name, unit));
            assert!(close(m.ns_per_unit, ns));
            assert_eq!(m.summary.n, 9);
            assert!(close(m.summary.median, median), "{name}: {}", m.summary.median);
            assert!(close(m.summary.iqr, iqr), "{name}: {}", m.summary.iqr);
            assert_eq!((m.warmup, m.warmup_trials, m.tag), (WarmupPolicy::Unknown, 0, crate::notebook::Tag::Measured));
            let c = &m.conditions;
            let source = c.value_of(ConditionName::Source).unwrap_or_default();
            assert!(
                source.starts_with(&format!("matmul-reps9.json (Google Benchmark JSON), benchmark {name}, SHA-256 "))
            );
            assert!(source.ends_with(&prepared.sha256()[..12]), "{source}");
            let check = c.value_of(ConditionName::ResultCheck).unwrap_or_default();
            assert!(check.contains("agrees with Vernier's median of the 9 repetitions"), "{check}");
            let field = |f: &str| c.iter().find(|x| x.field == f).map(|x| x.value.as_str());
            assert_eq!(field("host_name (from the file)"), Some("vm"));
            // The machine the library named counts as the row's (A2).
            let machine = c.value_of(ConditionName::FileMachine).unwrap_or_default();
            assert!(machine.starts_with("vm, 2 CPUs"), "{machine}");
            let context = crate::notebook::RowContext { conditions: c, stated: None, own_code: None };
            assert!(!context.unstated().contains(&"machine"), "{:?}", context.unstated());
            assert_eq!(field("num_cpus (from the file)"), Some("2"));
            assert_eq!(field("cpu_scaling_enabled (from the file)"), Some("false"));
            assert!(field("library_build_type (from the file)").is_some_and(|v| v.starts_with("debug (")));
            assert_eq!(
                field("caches (from the file)"),
                Some("L1 Data 48 KiB, L1 Instruction 32 KiB, L2 Unified 2 MiB, L3 Unified 300 MiB (shared by 2)")
            );
            // Nothing from the file poses as read on this machine.
            assert!(
                c.condition(ConditionName::CpuModel).is_none() && c.condition(ConditionName::LoadAverage).is_none()
            );
        }
        let instrument = prepared.rows[0].measurement.conditions.value_of(ConditionName::Instrument);
        assert_eq!(
            instrument,
            Some("Google Benchmark: real_time per iteration, each repetition a trial, 391 iterations per repetition")
        );
    }

    // SPEC E14: recorded, the row keeps the file as its raw copy and a
    // stated warm-up reads "N (not in the file) + 9".
    #[test]
    fn recorded_with_a_stated_warmup() {
        let dir = tempfile::tempdir().expect("tempdir");
        let spec =
            GbenchSpec { benchmarks: vec!["BM_Blocked/128".into()], warmup_stated: Some(1), ..GbenchSpec::default() };
        let prepared = prepare(&fixture("matmul-reps9.json"), &spec).expect("imports");
        let mut nb = Notebook::new("t", Utc::now());
        let recorded = prepared.record(dir.path(), &mut nb, Utc::now()).expect("records");
        assert_eq!(recorded.runs, vec![1]);
        let run = &nb.runs()[0];
        assert_eq!(run.n_column(), "1 (not in the file) + 9");
        assert_eq!(run.measurement.what, "BM_Blocked/128");
        let raw = std::fs::read_to_string(dir.path().join(recorded.raw_file.path.to_string())).expect("raw copy");
        assert_eq!(raw, text("matmul-reps9.json"));
    }

    // SPEC E14: a file of aggregates only is refused with the flag to rerun
    // with; the display-only flag is explained, not confused with it.
    #[test]
    fn aggregates_only_is_refused_with_the_flag_to_rerun_with() {
        let message = prepare(&fixture("matmul-aggregates-only.json"), &GbenchSpec::default())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            message.contains(
                "matmul-aggregates-only.json: benchmark BM_Naive/128 holds only aggregates (mean, median, stddev, cv)"
            ),
            "{message}"
        );
        assert!(message.contains("Rerun with --benchmark_report_aggregates_only=false"), "{message}");
        assert!(message.contains("--benchmark_out=FILE.json"), "{message}");
    }

    // SPEC E14, E10: a benchmark that reported an error gets no row, only a
    // note; the others are recorded (numpy on BM_RowSum/128's 3 values:
    // median 13.904087393815134, IQR 0.6665052219317253).
    #[test]
    fn an_error_entry_is_a_note_not_a_row() {
        let prepared = prepare(&fixture("with-error-reps3.json"), &GbenchSpec::default()).expect("imports");
        assert_eq!(prepared.rows.len(), 1);
        let s = &prepared.rows[0].measurement.summary;
        assert!(close(s.median, 13.904_087_393_815_134) && close(s.iqr, 0.666_505_221_931_725_3), "{s:?}");
        let failed: Vec<&str> = prepared.checks.iter().filter(|c| c.failed).map(|c| c.text.as_str()).collect();
        let [text] = failed.as_slice() else { panic!("one failed check: {failed:?}") };
        assert!(text.starts_with("benchmark BM_Broken was not recorded: Google Benchmark reported an error"), "{text}");
        assert!(text.contains("in 3 of its 3 repetitions (first in repetition 1: 'deliberate failure"), "{text}");
        // Recorded, the sentence becomes a note.
        let dir = tempfile::tempdir().expect("tempdir");
        let mut nb = Notebook::new("t", Utc::now());
        prepared.record(dir.path(), &mut nb, Utc::now()).expect("records");
        let note = &nb.notes()[0].text;
        assert!(
            note.starts_with("Imported with-error-reps3.json (run 1): benchmark BM_Broken was not recorded"),
            "{note}"
        );
        // A file whose every benchmark failed records nothing.
        let spec = GbenchSpec { benchmarks: vec!["BM_Broken".into()], ..GbenchSpec::default() };
        let message =
            prepare(&fixture("with-error-reps3.json"), &spec).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.contains("with-error-reps3.json: nothing to record: benchmark BM_Broken was not recorded"),
            "{message}"
        );
        assert!(
            note.contains("an error in 3 of its 3 repetitions (first in repetition 1: 'deliberate failure"),
            "{note}"
        );
    }

    // SPEC E14, N10: an impossible or absurd time is refused naming the
    // benchmark and repetition; JSON that is not a number is refused with
    // its line and column.
    #[test]
    fn bad_values_are_refused_naming_benchmark_and_repetition() {
        let real = text("matmul-reps9.json");
        let third = "\"real_time\": 2.2531799335038296e+00";
        assert!(real.contains(third));
        let spec = GbenchSpec::default();
        let cases = [
            (
                real.replace(third, "\"real_time\": -2.25"),
                "file.json: benchmark BM_Naive/128, repetition 3: real_time is -2.25, a negative time",
            ),
            (
                real.replace(third, "\"real_time\": 5e15"),
                "benchmark BM_Naive/128, repetition 3: real_time is 5000000000000000 ms, more than 10^15 ms",
            ),
            (
                real.replace(third, "\"real_time\": 9e10"),
                "repetition 3: real_time is 90000000000 ms, more than a day per trial",
            ),
            (
                real.replace(third, "\"real_time\": NaN"),
                "file.json:77:20: not a Google Benchmark JSON file: expected value",
            ),
            (real.replace(third, "\"real_time\": 1e999"), "file.json:77:"),
            (
                real.replacen("\"time_unit\": \"ms\"", "\"time_unit\": \"min\"", 1),
                "repetition 1: time_unit 'min' is none of",
            ),
            (
                "{\"results\": []}".to_owned(),
                "file.json:1:15: not a Google Benchmark JSON file: missing field `benchmarks`",
            ),
            ("{\"benchmarks\": []}".to_owned(), "file.json: the file holds no benchmarks"),
        ];
        for (text, expected) in cases {
            let got = message(&text, &spec);
            assert!(got.contains(expected), "{expected}: got {got}");
            assert!(!got.contains(" at line "), "the place is named once: {got}");
        }
        let bytes = b"{\"benchmarks\": [\xff]}";
        let got = prepare_bytes(Path::new("file.json"), bytes, &spec).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(got.contains("file.json:1:17: not a Google Benchmark JSON file: not UTF-8 text"), "{got}");
    }

    // SPEC E14: Google's median aggregate that differs from Vernier's
    // median is stated in the row and a note; the row keeps Vernier's.
    #[test]
    fn a_median_aggregate_that_disagrees_is_stated_not_used() {
        let real = text("matmul-reps9.json");
        let theirs = "\"real_time\": 2.2531799335038301e+00";
        assert!(real.contains(theirs));
        let prepared =
            prepare_text(Path::new("m.json"), &real.replace(theirs, "\"real_time\": 2.26"), &GbenchSpec::default())
                .expect("imports");
        let m = &prepared.rows[0].measurement;
        assert!(close(m.summary.median, 2.253_179_933_503_829_6));
        let check = m.conditions.value_of(ConditionName::ResultCheck).unwrap_or_default();
        assert!(
            check
                .contains("median aggregate 2.26000 ms differs from Vernier's median of the 9 repetitions, 2.25318 ms"),
            "{check}"
        );
        let failed = prepared.checks.iter().find(|c| c.failed).map(|c| c.text.as_str()).unwrap_or_default();
        assert!(
            failed.starts_with("benchmark BM_Naive/128: Google Benchmark's median aggregate 2.26000 ms differs"),
            "{failed}"
        );
    }

    // SPEC E14: --benchmark picks rows; an unknown name lists the file's;
    // fewer than three repetitions are refused with the flag to rerun with.
    #[test]
    fn picking_benchmarks_and_refusing_a_single_repetition() {
        let real = text("matmul-reps9.json");
        let spec =
            GbenchSpec { benchmarks: vec!["BM_RowSum/128".into(), "BM_Naive/128".into()], ..GbenchSpec::default() };
        let prepared = prepare_text(Path::new("m.json"), &real, &spec).expect("imports");
        let names: Vec<&str> = prepared.rows.iter().map(|r| r.arm.as_str()).collect();
        assert_eq!(names, ["BM_Naive/128", "BM_RowSum/128"], "file order");
        let spec = GbenchSpec { benchmarks: vec!["BM_Tiled".into()], ..GbenchSpec::default() };
        assert!(message(&real, &spec).contains(
            "no benchmark 'BM_Tiled' (--benchmark) in the file; it holds BM_Naive/128, BM_Blocked/128, BM_RowSum/128"
        ));
        let one = r#"{"benchmarks": [{"name": "BM_A", "run_name": "BM_A", "run_type": "iteration", "iterations": 10, "real_time": 5.0, "time_unit": "ns"}]}"#;
        assert!(
            message(one, &GbenchSpec::default()).contains("BM_A: 1 timed trial(s): a median needs at least 3"),
            "{}",
            message(one, &GbenchSpec::default())
        );
    }

    // SPEC E14: the BigO and RMS entries `->Complexity()` adds (as Google
    // Benchmark 1.7.1 writes them) are a fit, not a benchmark: left out of
    // a whole-file import with a line saying so, refused when asked for.
    #[test]
    fn complexity_fits_are_left_out() {
        let file = r#"{"benchmarks": [
  {"name": "BM_Fill/64", "run_name": "BM_Fill/64", "run_type": "iteration", "repetitions": 2, "repetition_index": 0,
   "threads": 1, "iterations": 5617978, "real_time": 124.33766881615173, "time_unit": "ns"},
  {"name": "BM_Fill/64", "run_name": "BM_Fill/64", "run_type": "iteration", "repetitions": 2, "repetition_index": 1,
   "threads": 1, "iterations": 5617978, "real_time": 209.8776606698646, "time_unit": "ns"},
  {"name": "BM_Fill/64", "run_name": "BM_Fill/64", "run_type": "iteration", "repetitions": 2, "repetition_index": 2,
   "threads": 1, "iterations": 5617978, "real_time": 130.25, "time_unit": "ns"},
  {"name": "BM_Fill_BigO", "run_name": "BM_Fill", "run_type": "aggregate", "repetitions": 2, "threads": 1,
   "aggregate_name": "BigO", "aggregate_unit": "time", "cpu_coefficient": 0.39, "real_coefficient": 0.89,
   "big_o": "N", "time_unit": "ns"},
  {"name": "BM_Fill_RMS", "run_name": "BM_Fill", "run_type": "aggregate", "repetitions": 2, "threads": 1,
   "aggregate_name": "RMS", "aggregate_unit": "percentage", "rms": 0.056}
]}"#;
        let prepared = prepare_text(Path::new("cx.json"), file, &GbenchSpec::default()).expect("imports");
        assert_eq!(prepared.rows.len(), 1);
        assert_eq!(prepared.rows[0].arm, "BM_Fill/64");
        let fit = &prepared.checks[0];
        assert!(
            !fit.failed && fit.text.starts_with("BM_Fill (BigO, RMS): Google Benchmark's complexity fit"),
            "{fit:?}"
        );
        let spec = GbenchSpec { benchmarks: vec!["BM_Fill".into()], ..GbenchSpec::default() };
        assert!(
            message(file, &spec).contains("'BM_Fill' (--benchmark) is Google Benchmark's complexity fit (BigO, RMS)")
        );
    }
}
