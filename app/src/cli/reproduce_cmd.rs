//! `vernier reproduce` (SPEC R1–R3): rerun one row of a classmate's log on
//! this machine and put the two side by side. Their log is only read; the
//! rerun goes into *your* notebook with a note naming their row.

use std::path::PathBuf;

use anyhow::anyhow;
use chrono::Utc;
use clap::Args;
use serde_json::json;
use vernier_engine::display::{inert, quote_argv};
use vernier_engine::harness::{BenchSpec, Subject};
use vernier_engine::reproduce::{self, Original, SideBySide};

use super::bench_cmds::{record, reserve_raw, run_with_progress};
use super::notebook_cmds::{apply, open, open_log};
use super::{Failure, Outcome, table};

/// `vernier reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Their notebook folder or measurements.xlsx (opened read-only).
    path: PathBuf,
    /// The run to reproduce (its `#`); a sweep's point reruns alone.
    #[arg(long, value_name = "N", required_unless_present = "sweep", conflicts_with = "sweep")]
    row: Option<u32>,
    /// The sweep to reproduce (its number, W1 is 1): every point, rerun as
    /// one sweep and compared point by point (E16).
    #[arg(long, value_name = "N")]
    sweep: Option<u32>,
    /// Your notebook, where the rerun is recorded.
    #[arg(long, value_name = "DIR")]
    notebook: PathBuf,
    /// Run it. Without this, Vernier only shows what it would run.
    #[arg(long)]
    yes: bool,
    /// Also run a command that runs code written in their file (a shell's
    /// `-c`, an interpreter's `-e`, `find -exec`, …), which `--yes` alone
    /// refuses. A visible-pattern check, not a sandbox.
    #[arg(long, requires = "yes")]
    allow_inline_code: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn reproduce(args: &ReproduceArgs) -> Outcome {
    if reproduce::same_folder(&args.path, &args.notebook) {
        return Err(Failure::input(anyhow!(
            "{} is the notebook you are reproducing from; record the rerun in your own notebook",
            args.notebook.display()
        )));
    }
    let Some(row) = args.row else {
        return reproduce_sweep(args);
    };
    let original = open_log(&args.path)?.original(row).map_err(Failure::input)?;
    let spec = original.spec().map_err(Failure::input)?;
    // Fail before measuring if your notebook cannot be read.
    open(&args.notebook)?;
    let commands = spec.arms.iter().map(|a| quote_argv(&a.argv())).collect::<Vec<_>>().join("  vs  ");
    if let Some(stop) = consent(
        args,
        &spec,
        || original.plan(&args.path.display().to_string(), &spec),
        || plan_json(&original, &spec),
        &format!("run {}", original.row),
        &commands,
    ) {
        return stop;
    }
    let (reserved, stated) = reserve_raw(&args.notebook)?;
    let result = run_with_progress(BenchSpec { stated: Some(stated), ..spec.clone() })?;
    if let Some(failure) = &result.failure {
        record(&args.notebook, &result, reserved)?;
        return Err(Failure::failed(anyhow!("the rerun failed: {failure}")));
    }
    let recorded = record(&args.notebook, &result, reserved)?;
    let mine_row = recorded.runs.get(original.arm_index()).copied();
    // The rerun's row as recorded: its power source is what S13 weighs.
    let mine = open(&args.notebook)?;
    let outcome = SideBySide::new(&original, &result, mine_row.and_then(|n| mine.run(n)))
        .ok_or_else(|| Failure::failed(anyhow!("the rerun produced no trials")))?;
    let source = args.path.display().to_string();
    apply(&args.notebook, |nb| nb.add_note(&outcome.note(&original, &source), Utc::now()))?;
    if args.json {
        out!(
            "{}",
            json!({
                "ran": true, "plan": plan_json(&original, &spec), "recorded_run": mine_row,
                "theirs": {"median": original.median, "iqr": original.iqr, "unit": original.unit, "timed": original.timed},
                "mine": {"median": outcome.median, "iqr": outcome.iqr, "unit": original.unit, "timed": outcome.timed, "warmup": outcome.warmup},
                "verdict": outcome.verdict, "env_diff": outcome.diff,
            })
        );
    } else {
        let [theirs, mine] = outcome.figures(&original);
        let rows = vec![
            vec!["Median".into(), theirs.median(), mine.median()],
            vec!["IQR".into(), theirs.iqr(), mine.iqr()],
            vec![
                "n (warm-up + timed)".into(),
                format!(
                    "{} + {}",
                    original.warmup_trials.map_or_else(|| "?".into(), |w| w.to_string()),
                    original.timed
                ),
                format!("{} + {}", outcome.warmup, outcome.timed),
            ],
            vec![
                "Row".into(),
                format!("run {} of {source}", original.row),
                mine_row.map_or_else(|| "not recorded".into(), |n| format!("run {n} of {}", args.notebook.display())),
            ],
        ];
        out!("{}", table::render(&["", "Theirs", "Mine"], &rows));
        out!("\nverdict (S7): {}", inert(&outcome.verdict_text));
        if outcome.diff.is_empty() {
            out!("conditions: none differ");
        } else {
            let rows: Vec<Vec<String>> =
                outcome.diff.iter().map(|d| vec![d.field.clone(), d.theirs.clone(), d.ours.clone()]).collect();
            out!("\nconditions that differ:\n{}", table::render(&["Condition", "Theirs", "Mine"], &rows));
        }
    }
    Ok(0)
}

/// `--sweep N`: every point of their sweep, rerun as a sweep here and
/// compared point by point; the same confirmation as a row.
fn reproduce_sweep(args: &ReproduceArgs) -> Outcome {
    let number = args.sweep.ok_or_else(|| Failure::input(anyhow!("give --row N or --sweep N")))?;
    let sweep = open_log(&args.path)?.sweep(number).map_err(Failure::input)?;
    let spec = sweep.spec().map_err(Failure::input)?;
    open(&args.notebook)?;
    let source = args.path.display().to_string();
    let plan_json = || {
        let commands: Vec<Vec<String>> = spec.arms.iter().map(Subject::argv).collect();
        json!({"sweep": sweep.label, "what": sweep.what, "commands": commands, "inline_code": reproduce::spec_inline_code(&spec)})
    };
    let commands = spec.arms.iter().map(|a| quote_argv(&a.argv())).collect::<Vec<_>>().join("; ");
    if let Some(stop) =
        consent(args, &spec, || sweep.plan(&source, &spec), plan_json, &format!("sweep {}", sweep.label), &commands)
    {
        return stop;
    }
    let (reserved, stated) = reserve_raw(&args.notebook)?;
    let result = run_with_progress(BenchSpec { stated: Some(stated), ..spec.clone() })?;
    let recorded = record(&args.notebook, &result, reserved)?;
    if let Some(failure) = &result.failure {
        return Err(Failure::failed(anyhow!("the rerun failed: {failure}")));
    }
    let mine = open(&args.notebook)?;
    let outcome = reproduce::PointByPoint::new(&sweep, &result, &mine, &recorded.runs);
    apply(&args.notebook, |nb| nb.add_note(&outcome.note(&sweep, &source, recorded.sweep), Utc::now()))?;
    if args.json {
        let points: Vec<serde_json::Value> = sweep
            .points
            .iter()
            .zip(&outcome.points)
            .map(|(o, (point, side))| {
                json!({
                    "point": point, "their_row": o.row, "recorded_run": side.recorded_run,
                    "theirs": {"median": o.median, "iqr": o.iqr, "unit": o.unit},
                    "mine": {"median": side.median, "iqr": side.iqr, "unit": o.unit},
                    "verdict": side.verdict, "env_diff": side.diff,
                })
            })
            .collect();
        out!(
            "{}",
            json!({"ran": true, "sweep": sweep.label, "recorded_sweep": recorded.sweep, "points": points, "differing": outcome.differing()})
        );
        return Ok(0);
    }
    let rows: Vec<Vec<String>> = sweep
        .points
        .iter()
        .zip(&outcome.points)
        .map(|(o, (point, side))| {
            let [theirs, mine] = side.figures(o);
            vec![
                point.clone(),
                format!("{} (IQR {})", theirs.median(), theirs.iqr()),
                format!("{} (IQR {})", mine.median(), mine.iqr()),
                inert(&side.verdict_text).into_owned(),
            ]
        })
        .collect();
    out!("{}", table::render(&["Point", "Theirs", "Mine", "Verdict (S7)"], &rows));
    let mine_label = recorded.sweep.map_or_else(|| "not recorded".to_owned(), |n| format!("sweep W{n}"));
    out!("\nrecorded as {mine_label} in {}", args.notebook.display());
    if let Some(diff) = outcome.points.first().map(|(_, side)| &side.diff).filter(|d| !d.is_empty()) {
        let rows: Vec<Vec<String>> =
            diff.iter().map(|d| vec![d.field.clone(), d.theirs.clone(), d.ours.clone()]).collect();
        out!("\nconditions that differ (first point):\n{}", table::render(&["Condition", "Theirs", "Mine"], &rows));
    }
    Ok(0)
}

/// Nothing runs without `--yes`, and code written in their file not
/// without `--allow-inline-code` as well (SPEC R2): until then the plan is
/// printed (`--json`: as JSON) and this is the outcome to return.
fn consent(
    args: &ReproduceArgs,
    spec: &BenchSpec,
    plan: impl FnOnce() -> String,
    plan_json: impl FnOnce() -> serde_json::Value,
    what: &str,
    commands: &str,
) -> Option<Outcome> {
    let inline = reproduce::spec_inline_code(spec);
    if !args.yes {
        if args.json {
            out!("{}", json!({"ran": false, "plan": plan_json()}));
        } else {
            out!("{}", plan());
            let flags = if inline.is_some() { "--yes --allow-inline-code" } else { "--yes" };
            out!("\nNothing was run. Check what will run above, then add {flags} to run it.");
        }
        return Some(Ok(1));
    }
    let why = inline.filter(|_| !args.allow_inline_code)?;
    Some(Err(Failure::input(anyhow!(
        "{what} {why}: {commands}; nothing was run. Read it, then add --allow-inline-code to --yes to run it anyway"
    ))))
}

fn plan_json(o: &Original, spec: &BenchSpec) -> serde_json::Value {
    json!({
        "row": o.row, "what": o.what, "commands": spec.arms.iter().map(Subject::argv).collect::<Vec<_>>(),
        "inline_code": reproduce::spec_inline_code(spec),
        "timed": o.timed, "warmup": o.warmup_trials, "settle": o.settle, "their_median": o.median,
        "their_iqr": o.iqr, "unit": o.unit, "their_conditions": o.conditions,
    })
}
