//! `vernier bench --extend N` (SPEC S10): rerun one of the notebook's own
//! runs to 51 timed trials as a new row linked to it, and say whether its
//! median moved by more than the difference the student means to claim.

use std::path::Path;
use std::time::Duration;

use anyhow::anyhow;
use chrono::Utc;
use serde_json::json;
use vernier_engine::extend::{Extension, Outcome};
use vernier_engine::harness;

use super::bench_cmds::{record, reserve_raw, run_with_progress};
use super::notebook_cmds::{apply, open};
use super::{Failure, table};

/// Extends run `run` of the notebook in `dir`, judged against `claim` (or
/// the comparison's difference, or the IQR). Everything is checked before a
/// trial runs: the row, the claim, and that its program is still there.
pub fn extend(
    dir: &Path,
    run: u32,
    claim: Option<&str>,
    timeout: Option<Duration>,
    json_output: bool,
) -> super::Outcome {
    let plan = Extension::plan(&open(dir)?, run).map_err(Failure::input)?;
    let claim = plan.claim(claim).map_err(Failure::input)?;
    let mut spec = plan.spec.clone();
    spec.timeout = timeout;
    harness::validate(&spec).map_err(|e| Failure::input(anyhow!("run {run} cannot be rerun: {e}")))?;
    let (reserved, stated) = reserve_raw(dir)?;
    let result = run_with_progress(harness::BenchSpec { stated: Some(stated), ..spec })?;
    if let Some(failure) = &result.failure {
        record(dir, &result, reserved)?;
        return Err(Failure::failed(anyhow!("the rerun of run {run} failed: {failure}")));
    }
    let raw_file = harness::write_raw_reserved(dir, &result, reserved).map_err(Failure::failed)?;
    let (recorded, outcome) = apply(dir, |nb| {
        Ok::<_, std::convert::Infallible>(plan.record(nb, &result, &raw_file, Utc::now(), claim.as_ref()))
    })?;
    let outcome = outcome.ok_or_else(|| {
        Failure::failed(anyhow!(
            "the rerun of run {run} was kept in {} but gave no median to compare",
            recorded.raw_file
        ))
    })?;
    if json_output {
        let mut object = json!(outcome);
        object["raw_file"] = json!(recorded.raw_file.to_string());
        object["display_unit"] = json!(outcome.asked.display_unit().name());
        out!("{object}");
    } else {
        print_text(&outcome);
    }
    Ok(0)
}

fn print_text(outcome: &Outcome) {
    let rows: Vec<Vec<String>> = outcome
        .arms
        .iter()
        .map(|m| {
            let [before, after] = m.medians_shown();
            vec![
                format!("{} → {}", m.extends, m.recorded_run.map_or_else(|| "?".to_owned(), |n| n.to_string())),
                m.arm.clone().unwrap_or_default(),
                before,
                after,
                m.amount(m.moved),
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
