//! `vernier bench --extend N` (SPEC S10): rerun one of the notebook's own
//! runs to 51 timed trials as a new row linked to it, and say whether its
//! median moved by more than the difference the student means to claim.
//! The run's command comes from the notebook, a file anyone can edit: it is
//! shown and runs only after `--yes` (SPEC N13).

use std::path::Path;
use std::time::Duration;

use anyhow::anyhow;
use serde_json::json;
use vernier_engine::extend::{Extended, Extension};
use vernier_engine::harness;
use vernier_engine::record_run;

use super::bench_cmds::{record, reserve_raw, run_with_progress};
use super::confirm::{ConsentFlags, ask};
use super::notebook_cmds::open;
use super::{Failure, table};

/// Extends run `run` of the notebook in `dir`, judged against `claim` (or
/// the comparison's difference, or the IQR). Everything is checked before
/// the plan is shown: the row, the claim, and that its program is still
/// there; then nothing runs until the student answers `--yes` (N13).
pub fn extend(
    dir: &Path,
    run: u32,
    claim: Option<&str>,
    timeout: Option<Duration>,
    answer: ConsentFlags,
) -> super::CommandResult {
    let plan = Extension::plan(&open(dir)?, run).map_err(Failure::input)?;
    let claim = plan.claim(claim).map_err(Failure::input)?;
    plan.gate.check().map_err(|e| Failure::input(anyhow!("run {run} cannot be rerun: {e}")))?;
    let spec = match ask(answer, &plan.gate, &format!("run {run}"), || plan.describe(), || plan_json(&plan)) {
        Ok(spec) => spec,
        Err(stop) => return stop,
    };
    let (reserved, spec) = reserve_raw(dir)?.start(harness::BenchSpec { timeout, ..spec });
    let result = run_with_progress(spec)?;
    let joins = record_run::Joins::Extension { plan: &plan, claim: claim.as_ref() };
    let done = record(dir, &result, reserved, joins, |_, _, _| Ok(()))?;
    if let Some(failure) = &result.failure {
        return Err(Failure::failed(anyhow!("the rerun of run {run} failed: {failure}")));
    }
    let outcome = done.extension.ok_or_else(|| {
        Failure::failed(anyhow!(
            "the rerun of run {run} was kept in {} but gave no median to compare",
            done.recorded.raw_file
        ))
    })?;
    let recorded = done.recorded;
    if answer.json {
        let mut object = json!(outcome);
        object["raw_file"] = json!(recorded.raw_file.to_string());
        object["display_unit"] = json!(outcome.asked.display_unit().name());
        out!("{object}");
    } else {
        print_text(&outcome);
    }
    Ok(0)
}

/// The plan as JSON, for `--json` without `--yes`.
fn plan_json(plan: &Extension) -> serde_json::Value {
    let gate = &plan.gate;
    json!({
        "run": plan.run, "extends": plan.before.iter().map(|b| b.run).collect::<Vec<_>>(),
        "commands": gate.commands().iter().map(|c| &c.argv).collect::<Vec<_>>(), "inline_code": gate.inline_code(),
        "runs": gate.runs(), "warmup_policy": gate.warmup().to_string(), "pin": gate.pin(),
        "cooldown_s": gate.cooldown().map(|c| c.as_secs_f64()), "from": plan.origins, "text": plan.describe(),
    })
}

fn print_text(outcome: &Extended) {
    let rows: Vec<Vec<String>> = outcome
        .arms
        .iter()
        .map(|m| {
            let [before, after, moved] = m.moved_shown();
            vec![
                format!("{} → {}", m.extends, m.recorded_run.map_or_else(|| "?".to_owned(), |n| n.to_string())),
                m.arm.clone().unwrap_or_default(),
                before,
                after,
                moved,
                m.amount(m.iqr_before),
                m.amount(m.iqr_after),
                format!("{} → {}", m.timed_before, m.timed_after),
            ]
        })
        .collect();
    let headers = ["Run", "Arm", "Median before", "Median after", "Moved", "IQR before", "IQR after", "Timed trials"];
    out!("{}", table::render(&headers, &rows));
    let against = match (outcome.claim, &outcome.claim_from) {
        (Some(claim), Some(from)) => {
            format!(
                "the difference you mean to claim, {} ({from})",
                vernier_engine::extend::quantity(&outcome.asked.unit, claim)
            )
        }
        _ => "the IQR before — no claim was given (--claim VALUE or PCT)".to_owned(),
    };
    out!("\njudged against: {against}");
    out!("verdict (S10): {}", outcome.verdict);
}
