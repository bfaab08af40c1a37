//! `vernier import`: numbers another instrument took, into the log (SPEC
//! C, E14). Each reader checks the whole file first; recording then only
//! writes, under the notebook's lock.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use vernier_engine::harness::raw::RawError;
use vernier_engine::import::{self, ImportRecorded, Prepared};
use vernier_engine::notebook::store;
use vernier_engine::platform::machine::Machine;

use super::bench_cmds::Naming;
use super::notebook_cmds::open;
use super::{CommandResult, Failure, given};

/// `vernier import`.
#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// A `hyperfine --export-json` file: one Runs row per command.
    Hyperfine {
        /// The JSON export.
        file: PathBuf,
        /// The notebook to record into.
        #[arg(long, value_name = "DIR")]
        notebook: PathBuf,
        /// How the measured program was built (default: the Environment's
        /// Compiler + flags).
        #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
        build: Option<String>,
        /// hyperfine's `--warmup N`, which its export does not record.
        #[arg(long, value_name = "N")]
        warmup_stated: Option<u32>,
    },
    /// A CSV of trials from your own instrument: one Runs row per arm, and
    /// two arms recorded as a comparison (SPEC E14).
    Csv(Box<CsvArgs>),
    /// Google Benchmark's JSON (`--benchmark_format=json` or
    /// `--benchmark_out`) with `--benchmark_repetitions`: one Runs row per
    /// benchmark, its repetitions the trials (SPEC E14).
    Gbench(Box<GbenchArgs>),
    /// pyperf's JSON (or `.json.gz`): one Runs row per benchmark, every
    /// value of every process a trial, its warm-ups kept apart (SPEC E14).
    Pyperf(Box<PyperfArgs>),
}

/// Where an import goes and what the file does not say, the same for
/// every reader.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The notebook to record into.
    #[arg(long, value_name = "DIR")]
    notebook: PathBuf,
    /// How the file was produced, stored as the rows' command.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    command: Option<String>,
    /// How the measured program was built (default: the Environment's
    /// Compiler + flags).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    build: Option<String>,
    /// What the instrument timed, e.g. "multiply only, steady_clock" (S16);
    /// default: as the instrument states.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    boundary: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// `vernier import gbench`.
#[derive(Debug, Args)]
pub struct GbenchArgs {
    /// The JSON Google Benchmark wrote.
    file: PathBuf,
    /// Import only this benchmark (its run_name, e.g. BM_Naive/128); repeat
    /// for several (default: every benchmark in the file).
    #[arg(long, value_name = "NAME")]
    benchmark: Vec<String>,
    /// N warm-up runs happened but are not in the file (Google Benchmark
    /// writes none; see --benchmark_min_warmup_time).
    #[arg(long, value_name = "N")]
    warmup_stated: Option<u32>,
    #[command(flatten)]
    record: RecordArgs,
}

/// `vernier import pyperf`.
#[derive(Debug, Args)]
pub struct PyperfArgs {
    /// The JSON (or .json.gz) pyperf wrote.
    file: PathBuf,
    /// Import only this benchmark (by name); repeat for several (default:
    /// every benchmark in the file).
    #[arg(long, value_name = "NAME")]
    benchmark: Vec<String>,
    #[command(flatten)]
    record: RecordArgs,
}

/// `vernier import csv`.
#[derive(Debug, Args)]
pub struct CsvArgs {
    /// The CSV: `#` comment lines allowed, a header row of names required.
    file: PathBuf,
    /// The one column of times (a single arm).
    #[arg(long, value_name = "NAME", required_unless_present = "a", conflicts_with_all = ["a", "b", "first"])]
    column: Option<String>,
    /// Arm A's column of a paired comparison (one row per pair).
    #[arg(long, value_name = "NAME", requires = "b")]
    a: Option<String>,
    /// Arm B's column of a paired comparison.
    #[arg(long, value_name = "NAME", requires = "a")]
    b: Option<String>,
    /// The column naming each pair.
    #[arg(long, value_name = "NAME")]
    pair: Option<String>,
    /// The column naming the arm that ran first in each row (by its label
    /// or its column's stem: `naive` for `naive_ms`).
    #[arg(long, value_name = "NAME")]
    first: Option<String>,
    /// The times' unit: ms, us, ns or s (default: the columns' suffix, `_ms` …).
    #[arg(long, value_name = "UNIT")]
    unit: Option<String>,
    /// The first K trials of each arm in the file are warm-up.
    #[arg(long, value_name = "K", conflicts_with = "warmup_stated")]
    warmup: Option<u32>,
    /// N warm-up trials ran but are not in the file.
    #[arg(long, value_name = "N")]
    warmup_stated: Option<u32>,
    #[command(flatten)]
    naming: Naming,
    /// The instrument that took the times ("benchmark.cpp, steady_clock,
    /// multiply only").
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    instrument: Option<String>,
    #[command(flatten)]
    record: RecordArgs,
}

pub fn import(command: &ImportCommand) -> CommandResult {
    let (file, dir, build, warmup_stated) = match command {
        ImportCommand::Hyperfine { file, notebook, build, warmup_stated } => (file, notebook, build, *warmup_stated),
        ImportCommand::Csv(args) => return import_csv(args),
        ImportCommand::Gbench(args) => return import_gbench(args),
        ImportCommand::Pyperf(args) => return import_pyperf(args),
    };
    open(dir)?;
    let prepared = import::hyperfine::prepare(file, build.as_deref(), warmup_stated).map_err(Failure::input)?;
    let imported = import::record(dir, &prepared).map_err(not_recorded)?.rows;
    for note in &imported.left_out {
        eprintln!("{}", vernier_engine::display::inert(note));
    }
    let rows: Vec<String> = imported.runs.iter().map(u32::to_string).collect();
    if !rows.is_empty() {
        out!("imported {} result(s) as run {}", rows.len(), rows.join(", "));
    }
    // Like a bench run that ended early: the operation did not measure.
    Ok(u8::from(!imported.left_out.is_empty()))
}

/// Why an import was not recorded, as the exit code says it: a notebook
/// that does not read is bad input, a write that failed is a failure.
fn not_recorded(e: store::ChangeError<RawError>) -> Failure {
    match e {
        store::ChangeError::Refused(e) => Failure::failed(e),
        store::ChangeError::Load(e) => Failure::input(e),
        store::ChangeError::Save(e) => Failure::failed(e),
    }
}

/// `vernier import csv` (SPEC E14): checks every cell, then records the
/// rows, their pair and the raw copy under the notebook's lock; a bad file
/// exits 2 naming its line and column and records nothing.
fn import_csv(args: &CsvArgs) -> CommandResult {
    use vernier_engine::import::csv::{self, Arms, CsvSpec};
    let arms = match (&args.column, &args.a, &args.b) {
        (Some(column), _, _) => Arms::One(column.clone()),
        (None, Some(a), Some(b)) => Arms::Two([a.clone(), b.clone()]),
        _ => return Err(Failure::input(anyhow!("give --column NAME, or --a NAME --b NAME"))),
    };
    if matches!(arms, Arms::One(_)) && (args.naming.label_b.is_some() || args.first.is_some()) {
        return Err(Failure::input(anyhow!(
            "--label-b and --first belong to a comparison: give --a NAME --b NAME (use --label-a or --what to name one arm)"
        )));
    }
    let spec = CsvSpec {
        arms,
        pair: given(args.pair.as_deref()),
        first: given(args.first.as_deref()),
        unit: given(args.unit.as_deref()),
        warmup: args.warmup,
        warmup_stated: args.warmup_stated,
        what: given(args.naming.what.as_deref()),
        labels: [given(args.naming.label_a.as_deref()), given(args.naming.label_b.as_deref())],
        command: given(args.record.command.as_deref()),
        build: given(args.record.build.as_deref()),
        instrument: given(args.instrument.as_deref()),
    };
    let dir = &args.record.notebook;
    open(dir)?;
    let prepared = csv::prepare(&args.file, &spec).map_err(Failure::input)?;
    record_import(dir, prepared.with_boundary(args.record.boundary.clone()), args.record.json)
}

/// `vernier import gbench` (SPEC E14): checks every repetition, then
/// records one row per benchmark; a bad file exits 2 naming it and records
/// nothing. A benchmark that reported an error, or whose median aggregate
/// disagrees with Vernier's, is a finding: the rest is recorded and the
/// exit code is 1, as for a `bench` run with a failed trial.
fn import_gbench(args: &GbenchArgs) -> CommandResult {
    use vernier_engine::import::gbench::{self, GbenchSpec};
    let spec = GbenchSpec {
        benchmarks: args.benchmark.iter().filter_map(|b| given(Some(b))).collect(),
        warmup_stated: args.warmup_stated,
        command: given(args.record.command.as_deref()),
        build: given(args.record.build.as_deref()),
    };
    open(&args.record.notebook)?;
    let prepared = gbench::prepare(&args.file, &spec).map_err(Failure::input)?;
    record_import(&args.record.notebook, prepared.with_boundary(args.record.boundary.clone()), args.record.json)
}

/// `vernier import pyperf` (SPEC E14): checks every value and warm-up,
/// then records one row per benchmark; a bad file exits 2 naming it and
/// records nothing.
fn import_pyperf(args: &PyperfArgs) -> CommandResult {
    use vernier_engine::import::pyperf::{self, PyperfSpec};
    let spec = PyperfSpec {
        benchmarks: args.benchmark.iter().filter_map(|b| given(Some(b))).collect(),
        command: given(args.record.command.as_deref()),
        build: given(args.record.build.as_deref()),
    };
    open(&args.record.notebook)?;
    let prepared = pyperf::prepare(&args.file, &spec).map_err(Failure::input)?;
    record_import(&args.record.notebook, prepared.with_boundary(args.record.boundary.clone()), args.record.json)
}

/// Records a prepared import under the notebook's lock, with what this
/// machine reads labelled "read at import", and prints what it recorded:
/// one line per row, the comparison, the file's checks and its raw copy
/// (or one JSON object). A failed check of the file (checksums that
/// differ, a benchmark that reported an error, a median that disagrees) is
/// a finding (SPEC C): what could be recorded is, the finding is on stderr
/// and in the notes, and the exit code is 1.
fn record_import(dir: &Path, prepared: Prepared, json: bool) -> CommandResult {
    let prepared = &prepared.read_here(&Machine::read());
    let finding = u8::from(prepared.checks.iter().any(|c| c.failed));
    let ImportRecorded { rows: imported, notebook, .. } = import::record(dir, prepared).map_err(not_recorded)?;
    for check in prepared.checks.iter().filter(|c| c.failed) {
        eprintln!("{}", vernier_engine::display::inert_line(check.text.clone()));
    }
    let runs: Vec<_> = imported.runs.iter().filter_map(|&n| notebook.run(n)).collect();
    let pair = imported.pair.and_then(|n| notebook.pair(n));
    // A18 at once: the build the rows were recorded with, when unoptimised.
    super::warn_unoptimised(runs.iter().filter_map(|r| r.context().build()));
    if json {
        let rows: Vec<Value> = runs
            .iter()
            .map(|r| {
                let s = &r.measurement.summary;
                json!({
                    "run": r.number,
                    "what": r.measurement.what,
                    "unit": r.measurement.unit,
                    "n": r.n_column(),
                    "median": s.median,
                    "iqr": s.iqr,
                    "min": s.min,
                    "max": s.max,
                })
            })
            .collect();
        let pair = pair.map(|p| {
            json!({
                "pair": p.number,
                "labels": p.labels,
                "verdict": p.verdict.verdict,
                "claimed": p.verdict.claimed,
                "paired_median": p.paired.as_ref().map(|s| s.median),
                "paired_iqr": p.paired.as_ref().map(|s| s.iqr),
                "order_effect": p.order.as_ref().and_then(|o| o.effect),
                "order_confound": p.order.as_ref().map(|o| o.confound),
                "meaning": p.evidence(&notebook).meaning(None),
            })
        });
        let checks: Vec<Value> =
            prepared.checks.iter().map(|c| json!({ "text": c.text, "failed": c.failed })).collect();
        let object = json!({
            "runs": rows,
            "comparison": pair,
            "checks": checks,
            "raw_file": imported.raw_file.path.to_string(),
            "sha256": imported.raw_file.sha256,
        });
        out!("{object}");
        return Ok(finding);
    }
    for run in &runs {
        out!(
            "recorded run {}: {} — median {}, {}, n {}",
            run.number,
            vernier_engine::display::inert_line(run.measurement.what.clone()),
            run.median_column(),
            run.dispersion_column(),
            run.n_column()
        );
    }
    if let Some(p) = pair {
        // One verdict (S15), the evidence beside it.
        let mut lines = p.evidence(&notebook).lines(None).into_iter();
        out!(
            "recorded comparison C{} (runs {} and {}): {}",
            p.number,
            p.runs[0],
            p.runs[1],
            lines.next().unwrap_or_default()
        );
        for line in lines {
            out!("  {line}");
        }
    }
    for check in prepared.checks.iter().filter(|c| !c.failed) {
        out!("{}", vernier_engine::display::inert_line(check.text.clone()));
    }
    out!("raw file {} (SHA-256 {}), the file unchanged", imported.raw_file.path, &imported.raw_file.sha256[..12]);
    Ok(finding)
}
