//! `vernier reproduce` (SPEC R1–R3): rerun one row of a classmate's log on
//! this machine and put the two side by side. Their log is only read; the
//! rerun goes into *your* notebook with a note naming their row.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use chrono::Utc;
use clap::Args;
use serde_json::json;
use vernier_engine::harness::{BenchSpec, Subject};
use vernier_engine::notebook::{conditions_text, store};
use vernier_engine::reproduce::{self, Original};
use vernier_engine::stats::at_allowance_place;

use super::bench_cmds::{record, run_with_progress};
use super::notebook_cmds::{Log, open, open_log};
use super::{Failure, Outcome, table};

/// `vernier reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// Their notebook folder or measurements.xlsx (opened read-only).
    path: PathBuf,
    /// The run to reproduce (its `#`).
    #[arg(long, value_name = "N")]
    row: u32,
    /// Your notebook, where the rerun is recorded.
    #[arg(long, value_name = "DIR")]
    notebook: PathBuf,
    /// Run it. Without this, Vernier only shows what it would run.
    #[arg(long)]
    yes: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn reproduce(args: &ReproduceArgs) -> Outcome {
    refuse_same_folder(&args.path, &args.notebook)?;
    let original = match open_log(&args.path)? {
        Log::Notebook(nb) => Original::from_notebook(&nb, args.row),
        Log::Foreign(f) => Original::from_sheet(&f.runs, args.row),
    }
    .map_err(Failure::input)?;
    let spec = original.spec().map_err(Failure::input)?;
    // Fail before measuring if your notebook cannot be read.
    open(&args.notebook)?;
    if !args.yes {
        if args.json {
            out!("{}", json!({"ran": false, "plan": plan_json(&original, &spec)}));
        } else {
            out!("{}", plan_text(&args.path, &original, &spec));
            out!("\nNothing was run. Check the command above, then add --yes to run it.");
        }
        return Ok(1);
    }
    let result = run_with_progress(spec.clone())?;
    if let Some(failure) = &result.failure {
        record(&args.notebook, &result)?;
        return Err(Failure::failed(anyhow!("the rerun failed: {failure}")));
    }
    let recorded = record(&args.notebook, &result)?;
    let arm = &result.arms[original.arm_index().min(result.arms.len() - 1)];
    let summary = arm.summary.as_ref().ok_or_else(|| Failure::failed(anyhow!("the rerun produced no trials")))?;
    let mine_row = recorded.runs.get(original.arm_index()).copied();
    let scale = unit_scale(&arm.unit, &original.unit);
    let (median, iqr) = match scale {
        Some(f) => (summary.median * f, summary.iqr * f),
        None => (summary.median, summary.iqr),
    };
    let verdict = scale.map(|_| reproduce::verdict(&original, median, iqr, &original.unit));
    let diff = reproduce::env_diff(&original.conditions, &result.conditions());
    let verdict_text = verdict.as_ref().map_or_else(
        || format!("no verdict: their unit is '{}', mine is '{}'", original.unit, arm.unit),
        |c| c.verdict.clone(),
    );
    let reference = format!("run {} of {}", original.row, args.path.display());
    let [their_median, their_iqr] = at_allowance_place([original.median, original.iqr], original.iqr);
    let [my_median, my_iqr] = at_allowance_place([median, iqr], iqr);
    let mut notebook = open(&args.notebook)?;
    let note = format!(
        "Run {} reproduces {reference} ({}): theirs median {their_median} {u} (IQR {their_iqr}), mine {my_median} {u} \
         (IQR {my_iqr}); {verdict_text}. {} condition(s) differ.",
        mine_row.map_or_else(|| "?".to_owned(), |n| n.to_string()),
        original.what,
        diff.len(),
        u = original.unit,
    );
    notebook.add_note(&note, Utc::now()).map_err(Failure::failed)?;
    store::save(&args.notebook, &notebook).map_err(Failure::failed)?;
    if args.json {
        out!(
            "{}",
            json!({
                "ran": true, "plan": plan_json(&original, &spec), "recorded_run": mine_row,
                "theirs": {"median": original.median, "iqr": original.iqr, "unit": original.unit, "timed": original.timed},
                "mine": {"median": median, "iqr": iqr, "unit": original.unit, "timed": summary.n, "warmup": arm.warmup_trials},
                "verdict": verdict, "env_diff": diff,
            })
        );
    } else {
        let rows = vec![
            vec![
                "Median".into(),
                format!("{} {}", original.median, original.unit),
                format!("{median:.6} {}", original.unit),
            ],
            vec!["IQR".into(), format!("{} {}", original.iqr, original.unit), format!("{iqr:.6} {}", original.unit)],
            vec![
                "n (warm-up + timed)".into(),
                format!(
                    "{} + {}",
                    original.warmup_trials.map_or_else(|| "?".into(), |w| w.to_string()),
                    original.timed
                ),
                format!("{} + {}", arm.warmup_trials, summary.n),
            ],
            vec![
                "Row".into(),
                reference.clone(),
                mine_row.map_or_else(|| "not recorded".into(), |n| format!("run {n} of {}", args.notebook.display())),
            ],
        ];
        out!("{}", table::render(&["", "Theirs", "Mine"], &rows));
        out!("\nverdict (S7): {verdict_text}");
        if diff.is_empty() {
            out!("conditions: none differ");
        } else {
            let rows: Vec<Vec<String>> =
                diff.iter().map(|d| vec![d.field.clone(), d.theirs.clone(), d.ours.clone()]).collect();
            out!("\nconditions that differ:\n{}", table::render(&["Condition", "Theirs", "Mine"], &rows));
        }
    }
    Ok(0)
}

/// Their log and your notebook must be different folders: their files are
/// never written.
fn refuse_same_folder(theirs: &Path, mine: &Path) -> Result<(), Failure> {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let their_folder = if theirs.is_dir() { canonical(theirs) } else { theirs.parent().and_then(canonical) };
    match (their_folder, canonical(mine)) {
        (Some(t), Some(m)) if t == m => Err(Failure::input(anyhow!(
            "{} is the notebook you are reproducing from; record the rerun in your own notebook",
            mine.display()
        ))),
        _ => Ok(()),
    }
}

fn plan_text(path: &Path, o: &Original, spec: &BenchSpec) -> String {
    let commands: Vec<String> = spec.arms.iter().map(shown).collect();
    let warmup = match o.warmup_trials {
        Some(w) if o.settle => format!("until settled (they discarded {w})"),
        Some(w) => format!("{w} trials discarded"),
        None => format!("not stated by them; {} will be discarded", reproduce::DEFAULT_WARMUP),
    };
    let interleaving = if commands.len() == 2 {
        format!("interleaved with its partner, A B … then B A … (this row is arm {})", ["A", "B"][o.arm_index()])
    } else {
        "none (one subject)".to_owned()
    };
    format!(
        "Reproduce run {} of {} ({})\n  command: {}\n  timed trials: {}\n  warm-up: {warmup}\n  interleaving: {interleaving}\n  their result: median {} {u}, IQR {} {u} (as they recorded it)\n  their conditions: {}\nEach command runs as an argument vector — no shell reads it.",
        o.row,
        path.display(),
        o.what,
        commands.join("  vs  "),
        o.timed,
        at_allowance_place([o.median], o.iqr)[0],
        at_allowance_place([o.iqr], o.iqr)[0],
        if o.conditions.is_empty() { "none recorded".to_owned() } else { conditions_text(&o.conditions) },
        u = o.unit,
    )
}

fn plan_json(o: &Original, spec: &BenchSpec) -> serde_json::Value {
    json!({
        "row": o.row, "what": o.what, "commands": spec.arms.iter().map(Subject::argv).collect::<Vec<_>>(),
        "timed": o.timed, "warmup": o.warmup_trials, "settle": o.settle, "their_median": o.median,
        "their_iqr": o.iqr, "unit": o.unit, "their_conditions": o.conditions,
    })
}

/// The argument vector, each word quoted where a shell would need it.
fn shown(subject: &Subject) -> String {
    subject
        .argv()
        .iter()
        .map(|a| shlex::try_quote(a).map_or_else(|_| format!("{a:?}"), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The factor that turns `from` into `to` for time units; 1 when equal.
fn unit_scale(from: &str, to: &str) -> Option<f64> {
    if from == to {
        return Some(1.0);
    }
    let seconds = |u: &str| match u {
        "s" => Some(1.0),
        "ms" => Some(1e-3),
        "us" | "µs" => Some(1e-6),
        "ns" => Some(1e-9),
        _ => None,
    };
    Some(seconds(from)? / seconds(to)?)
}
