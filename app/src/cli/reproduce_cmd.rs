//! `vernier reproduce` (SPEC R1–R3): rerun one row of a classmate's log on
//! this machine and put the two side by side. Their log is only read; the
//! rerun goes into *your* notebook with a note naming their row.

use std::path::PathBuf;

use anyhow::anyhow;
use clap::Args;
use serde_json::json;
use vernier_engine::display::inert;
use vernier_engine::harness::provenance::Hashes;
use vernier_engine::record_run;
use vernier_engine::reproduce::{self, ArmSide, Original, Rerun, SideBySide};

use super::bench_cmds::{record, reserve_raw, run_with_progress};
use super::confirm::{ConsentFlags, ask};
use super::notebook_cmds::{open, open_log};
use super::{CommandResult, Failure, table};

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
    /// Rebuild their program first (R5): their build recipe runs on the
    /// sources their notebook keeps, in a scratch folder of yours, and the
    /// program it builds is compared with theirs before the rerun.
    #[arg(long, conflicts_with = "sweep")]
    rebuild: bool,
    /// With --rebuild: a folder holding the sources their notebook hashed
    /// but did not keep (too large), found by their SHA-256.
    #[arg(long, value_name = "DIR", requires = "rebuild")]
    sources: Option<PathBuf>,
    /// With --rebuild: keep the scratch folder after the run, to be looked
    /// at (it is removed otherwise).
    #[arg(long, requires = "rebuild")]
    keep_scratch: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl ReproduceArgs {
    /// What was answered to the plan (N13).
    fn answer(&self) -> ConsentFlags {
        ConsentFlags { yes: self.yes, allow_inline_code: self.allow_inline_code, json: self.json }
    }
}

pub fn reproduce(args: &ReproduceArgs) -> CommandResult {
    if reproduce::same_folder(&args.path, &args.notebook) {
        return Err(Failure::input(anyhow!(
            "{} is the notebook you are reproducing from; record the rerun in your own notebook",
            vernier_engine::display::path(&args.notebook)
        )));
    }
    let Some(row) = args.row else {
        return reproduce_sweep(args);
    };
    let log = open_log(&args.path)?;
    let original = log.original(row).map_err(Failure::input)?;
    let source = args.path.display().to_string();
    // SPEC R5: their sources, checked and held, and a scratch folder of
    // mine; nothing is written there or run before the consent.
    let folder = matches!(log, reproduce::Log::Notebook(_)).then_some(args.path.as_path());
    let rebuild = if args.rebuild {
        Some(reproduce::Rebuild::prepare(&original, folder, args.sources.as_deref()).map_err(Failure::input)?)
    } else {
        None
    };
    let rerun = match &rebuild {
        Some(rebuild) => original.rebuilt_rerun(rebuild, &source),
        None => original.rerun(&mut Hashes::default()),
    }
    .map_err(Failure::input)?;
    // R2, N12: what their sheets show that their notebook does not say.
    let mut edited = log.workbook_warning().map(|w| format!("{w}\n")).unwrap_or_default();
    // SPEC R5: a workbook carries the recipe and hashes, not the sources.
    if folder.is_none() && !original.recipes().is_empty() {
        edited.push_str(
            "their build recipe and its hashes are shown below; the sources are not in a workbook (they are in the \
             notebook folder's raw/)\n",
        );
    }
    let edits: Vec<String> = log.spreadsheet_edits().iter().map(ToString::to_string).collect();
    // Fail before measuring if your notebook cannot be read.
    open(&args.notebook)?;
    // SPEC R5: the folder this plan names is the one a run uses; without
    // --yes nothing runs, and it goes with this plan.
    let unused = if rebuild.is_some() {
        "\nThe scratch folder above was made for this plan and is removed now; --yes makes a new one and says where."
    } else {
        ""
    };
    let spec = match ask(
        args.answer(),
        &rerun.gate,
        &format!("run {}", original.row),
        || format!("{edited}{}{unused}", original.plan(&source, &rerun)),
        || {
            let mut plan = plan_json(&original, &rerun);
            plan["spreadsheet_edits"] = json!(edits);
            plan
        },
    ) {
        Ok(spec) => spec,
        Err(stop) => return stop,
    };
    // SPEC R5: removed once the run has ended, however it ended, unless
    // --keep-scratch.
    let scratch = match rebuild {
        Some(rebuild) => {
            let scratch = rebuild.write_sources().map_err(Failure::failed)?;
            if !args.json {
                out!("their sources are written in {}", vernier_engine::display::path(scratch.path()));
            }
            Some(scratch)
        }
        None => None,
    };
    let (reserved, spec) = reserve_raw(&args.notebook)?.start(spec);
    let result = run_with_progress(spec);
    if let Some(scratch) = scratch {
        let shown = vernier_engine::display::path(scratch.path());
        if args.keep_scratch {
            scratch.keep();
            if !args.json {
                out!("the scratch folder is kept: {shown}");
            }
        } else {
            drop(scratch);
            if !args.json {
                out!("the scratch folder {shown} is removed");
            }
        }
    }
    let result = result?;
    // The rerun's rows as recorded — their power source, program and
    // result check are what the verdict weighs — and the note naming their
    // row, in the same change.
    let done = record(&args.notebook, &result, reserved, record_run::Joins::Nothing, |nb, recorded, at| {
        if result.failure.is_some() {
            return Ok(None);
        }
        let rows: Vec<_> = recorded.runs.iter().map(|&n| nb.run(n)).collect();
        let Some(outcome) = SideBySide::new(&original, &result, &rows) else { return Ok(None) };
        nb.add_vernier_note(&outcome.note(&original, &source), at)?;
        Ok(Some(outcome))
    })?;
    if let Some(failure) = &result.failure {
        return Err(Failure::failed(anyhow!("the rerun failed: {failure}")));
    }
    let recorded = done.recorded;
    let outcome = done.also.ok_or_else(|| Failure::failed(anyhow!("the rerun produced no trials")))?;
    let picked = outcome.picked(&original);
    if args.json {
        let arms: Vec<serde_json::Value> =
            outcome.arms.iter().zip(original.arms()).map(|(side, theirs)| arm_json(side, theirs)).collect();
        let ratio = outcome.ratio.as_ref().map(|r| {
            json!({"theirs": r.theirs, "mine": r.mine, "outcome": r.judged.outcome, "text": r.judged.text,
                   "why": r.judged.why, "verdict": r.judged.s7})
        });
        out!(
            "{}",
            json!({
                "ran": true, "plan": plan_json(&original, &rerun), "recorded_run": picked.and_then(|a| a.recorded_run),
                "recorded_runs": recorded.runs, "outcome": outcome.outcome, "verdict_text": outcome.text,
                "theirs": {"median": original.median, "iqr": original.iqr, "unit": original.unit, "timed": original.timed},
                "mine": picked.map(|a| json!({"median": a.median, "iqr": a.iqr, "unit": original.unit, "timed": a.timed, "warmup": a.warmup})),
                "verdict": picked.and_then(|a| a.judged.as_ref()).map(|j| &j.s7),
                "arms": arms, "ratio": ratio, "placement": outcome.placement, "env_diff": outcome.diff,
            })
        );
        return Ok(0);
    }
    let trials = |w: Option<u32>, n: String| format!("{} + {n}", w.map_or_else(|| "?".into(), |w| w.to_string()));
    let mut rows: Vec<Vec<String>> = outcome
        .arms
        .iter()
        .zip(original.arms())
        .map(|(side, theirs)| {
            let [t, m] = side.figures(theirs);
            let arm = if side.label.is_empty() { String::new() } else { format!("{} ", side.label) };
            vec![
                format!(
                    "{arm}run {} → {}",
                    side.their_row,
                    side.recorded_run.map_or_else(|| "?".into(), |n| format!("run {n}"))
                ),
                format!("{} (IQR {}), {}", t.median(), t.iqr(), trials(theirs.warmup_trials, theirs.timed.to_string())),
                format!("{} (IQR {}), {}", m.median(), m.iqr(), trials(Some(side.warmup), side.timed.to_string())),
                side.outcome.word().to_owned(),
            ]
        })
        .collect();
    if let Some(r) = &outcome.ratio {
        let [t, m] = r.shown();
        rows.push(vec!["paired ratio B/A".into(), t, m, r.judged.outcome.word().to_owned()]);
    }
    out!("{}", table::render(&["", "Theirs (median, IQR, warm-up + timed)", "Mine", "Outcome"], &rows));
    out!("\nverdict (R4): {}", inert(&outcome.text));
    if outcome.arms.len() == 2 {
        for side in &outcome.arms {
            out!("  arm {}: {}", side.label, inert(&side.text));
        }
    }
    for side in &outcome.arms {
        let arm = if side.label.is_empty() { String::new() } else { format!(" ({})", side.label) };
        for check in &side.programs {
            out!("program{arm}: {}", check.text);
        }
        if let Some(check) = &side.result_check {
            out!("kernel{arm} {}", check.text);
        }
    }
    out!("placement: {}", inert(&outcome.placement));
    out!("recorded in {}", vernier_engine::display::path(&args.notebook));
    if outcome.diff.is_empty() {
        out!("conditions: none differ");
    } else {
        let rows: Vec<Vec<String>> =
            outcome.diff.iter().map(|d| vec![d.field.clone(), d.theirs.clone(), d.ours.clone()]).collect();
        out!("\nconditions that differ:\n{}", table::render(&["Condition", "Theirs", "Mine"], &rows));
    }
    Ok(0)
}

/// One arm of a reproduction as JSON: their figures, the rerun's, and the
/// arm's outcome with its S7 comparison and checks.
fn arm_json(side: &ArmSide, theirs: &Original) -> serde_json::Value {
    json!({
        "label": side.label, "their_row": side.their_row, "recorded_run": side.recorded_run,
        "theirs": {"median": theirs.median, "iqr": theirs.iqr, "unit": theirs.unit, "timed": theirs.timed, "warmup": theirs.warmup_trials},
        "mine": {"median": side.median, "iqr": side.iqr, "unit": theirs.unit, "timed": side.timed, "warmup": side.warmup},
        "outcome": side.outcome, "text": side.text, "why": side.judged.as_ref().and_then(|j| j.why.as_ref()),
        "verdict": side.judged.as_ref().map(|j| &j.s7), "programs": side.programs, "result_check": side.result_check,
    })
}

/// `--sweep N`: every point of their sweep, rerun as a sweep here and
/// compared point by point; the same confirmation as a row.
fn reproduce_sweep(args: &ReproduceArgs) -> CommandResult {
    let number = args.sweep.ok_or_else(|| Failure::input(anyhow!("give --row N or --sweep N")))?;
    let log = open_log(&args.path)?;
    let sweep = log.sweep(number).map_err(Failure::input)?;
    let rerun = sweep.rerun().map_err(Failure::input)?;
    let edited = log.workbook_warning().map(|w| format!("{w}\n")).unwrap_or_default();
    let edits: Vec<String> = log.spreadsheet_edits().iter().map(ToString::to_string).collect();
    let gate = &rerun.gate;
    open(&args.notebook)?;
    let source = args.path.display().to_string();
    let plan_json = || {
        let commands: Vec<&Vec<String>> = gate.commands().iter().map(|c| &c.argv).collect();
        let first = sweep.points.first();
        let theirs: Vec<serde_json::Value> = sweep
            .points
            .iter()
            .map(|o| json!({"row": o.row, "median": o.median, "iqr": o.iqr, "unit": o.unit, "timed": o.timed}))
            .collect();
        json!({
            "sweep": sweep.label, "what": sweep.what, "commands": commands, "theirs": theirs,
            "inline_code": gate.inline_code(), "runs": gate.runs(),
            "warmup": first.and_then(|o| o.warmup_trials), "warmup_policy": first.map(|o| o.policy.to_string()),
            "metric": first.and_then(|o| o.figure.as_ref()).map(|f| f.spec.describe()),
            "pin": gate.pin(), "placement": rerun.placement.text, "programs": rerun.programs,
            "different_files": rerun.different_files().count(), "outcome_rule": reproduce::RULE,
            "spreadsheet_edits": edits,
        })
    };
    let spec = match ask(
        args.answer(),
        gate,
        &format!("sweep {}", sweep.label),
        || format!("{edited}{}", sweep.plan(&source, &rerun)),
        plan_json,
    ) {
        Ok(spec) => spec,
        Err(stop) => return stop,
    };
    let (reserved, spec) = reserve_raw(&args.notebook)?.start(spec);
    let result = run_with_progress(spec)?;
    // Their sweep point by point against the rows as recorded, and its
    // note, in the same change.
    let done = record(&args.notebook, &result, reserved, record_run::Joins::Nothing, |nb, recorded, at| {
        if result.failure.is_some() {
            return Ok(None);
        }
        let outcome = reproduce::PointByPoint::new(&sweep, &result, nb, &recorded.runs);
        nb.add_vernier_note(&outcome.note(&sweep, &source, recorded.sweep), at)?;
        Ok(Some(outcome))
    })?;
    let (recorded, outcome) = match (&result.failure, done.also) {
        (None, Some(outcome)) => (done.recorded, outcome),
        (Some(failure), _) => return Err(Failure::failed(anyhow!("the rerun failed: {failure}"))),
        (None, None) => return Err(Failure::failed(anyhow!("the rerun produced no trials"))),
    };
    if args.json {
        let points: Vec<serde_json::Value> = sweep
            .points
            .iter()
            .zip(&outcome.points)
            .map(|(o, (point, side))| {
                let mut value = arm_json(side, o);
                value["point"] = json!(point);
                value
            })
            .collect();
        out!(
            "{}",
            json!({"ran": true, "sweep": sweep.label, "recorded_sweep": recorded.sweep, "points": points,
                   "differing": outcome.with(reproduce::Verdict::Differs),
                   "inconclusive": outcome.with(reproduce::Verdict::Inconclusive), "summary": outcome.summary(),
                   "placement": result.placement})
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
                inert(&side.text).into_owned(),
            ]
        })
        .collect();
    out!("{}", table::render(&["Point", "Theirs", "Mine", "Outcome (R4)"], &rows));
    out!("\nverdict (R4): {}", outcome.summary());
    for check in rerun.programs.iter().flatten() {
        out!("program: {}", check.text);
    }
    out!("placement: {}", inert(&result.placement));
    let mine_label = recorded.sweep.map_or_else(|| "not recorded".to_owned(), |n| format!("sweep W{n}"));
    out!("\nrecorded as {mine_label} in {}", vernier_engine::display::path(&args.notebook));
    if !outcome.diff.is_empty() {
        let rows: Vec<Vec<String>> =
            outcome.diff.iter().map(|d| vec![d.field.clone(), d.theirs.clone(), d.ours.clone()]).collect();
        out!("\nconditions that differ (first point):\n{}", table::render(&["Condition", "Theirs", "Mine"], &rows));
    }
    Ok(0)
}

fn plan_json(o: &Original, rerun: &Rerun) -> serde_json::Value {
    let gate = &rerun.gate;
    let arms: Vec<serde_json::Value> = o
        .arms()
        .iter()
        .map(|a| json!({"row": a.row, "command": a.command, "median": a.median, "iqr": a.iqr, "unit": a.unit, "timed": a.timed}))
        .collect();
    json!({
        "row": o.row, "what": o.what, "commands": gate.commands().iter().map(|c| &c.argv).collect::<Vec<_>>(),
        "inline_code": gate.inline_code(),
        "timed": o.timed, "runs": gate.runs(), "warmup": o.warmup_trials, "warmup_policy": o.policy.to_string(), "their_median": o.median,
        "their_iqr": o.iqr, "unit": o.unit, "their_conditions": o.conditions, "arms": arms,
        "their_paired": o.partner.as_ref().and_then(|p| p.paired.as_ref()),
        "pin": gate.pin(), "placement": rerun.placement.text, "cooldown_s": gate.cooldown().map(|c| c.as_secs_f64()),
        "programs": rerun.programs, "different_files": rerun.different_files().count(),
        "metric": o.figure.as_ref().map(|f| f.spec.describe()), "outcome_rule": reproduce::RULE,
        "their_recipe": o.recipe, "builds": gate.builds().iter().map(|c| &c.argv).collect::<Vec<_>>(),
    })
}
