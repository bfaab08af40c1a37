//! `vernier placement` (SPEC D6): the placement table from a dataset and a
//! budget per workload.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::anyhow;
use clap::Args;
use vernier_engine::bounded;
use vernier_engine::documents::placement_decision;
use vernier_engine::import::MAX_IMPORT_BYTES;

use vernier_engine::notebook::Budget;

use super::notebook_cmds::change;
use super::{CommandResult, Failure, table};

/// `vernier placement`.
#[derive(Debug, Args)]
pub struct PlacementArgs {
    /// A placement dataset (workload,processor,latency_ms,energy_mj,supported);
    /// the shipped synthetic one when omitted.
    file: Option<PathBuf>,
    /// A deadline per workload, e.g. `--budget game_frame=16.7` (ms); repeatable.
    #[arg(long, value_name = "WORKLOAD=MS", value_parser = pair, required = true)]
    budget: Vec<(String, f64)>,
    /// Runs per second of a workload, for the duty-cycle energy line.
    #[arg(long, value_name = "WORKLOAD=PER_S", value_parser = pair)]
    rate: Vec<(String, f64)>,
    /// Keep these deadlines in the notebook, so placement-decision.docx
    /// carries this table (the shipped dataset only).
    #[arg(long, value_name = "DIR", conflicts_with = "file")]
    notebook: Option<PathBuf>,
}

pub fn placement(args: &PlacementArgs) -> CommandResult {
    let text = match &args.file {
        Some(path) => {
            bounded::read_text_bounded(path, MAX_IMPORT_BYTES, "a placement table").map_err(Failure::input)?
        }
        None => placement_decision::SHIPPED.to_owned(),
    };
    let source = args
        .file
        .as_ref()
        .map_or_else(|| "datasets/placement-bench.csv".to_owned(), |p| vernier_engine::display::path(p));
    let entries = placement_decision::parse(&text).map_err(|e| Failure::input(anyhow!("{e} (in {source})")))?;
    let budgets: BTreeMap<String, f64> = args.budget.iter().cloned().collect();
    let rates: BTreeMap<String, f64> = args.rate.iter().cloned().collect();
    let rows: Vec<Vec<String>> = placement_decision::decide(&entries, &budgets, &rates)
        .into_iter()
        .map(|d| vec![d.workload, d.processor, d.why, d.cost])
        .collect();
    if text.to_ascii_uppercase().contains("SYNTHETIC") {
        out!("SYNTHETIC data ({source}): every figure below is MODELED");
    }
    out!("{}", table::render(&["Workload", "Processor", "Why (and what it beat)", "What it costs"], &rows));
    if let Some(dir) = &args.notebook {
        let unknown: Vec<&str> =
            budgets.keys().filter(|w| !entries.iter().any(|e| &e.workload == *w)).map(String::as_str).collect();
        if !unknown.is_empty() {
            return Err(Failure::input(anyhow!("{source} has no workload named {}", unknown.join(", "))));
        }
        let kept: Vec<_> = budgets
            .iter()
            .map(|(w, &deadline_ms)| Budget { workload: w.clone(), deadline_ms, rate_per_s: rates.get(w).copied() })
            .collect();
        return change(dir, |nb| {
            nb.set_deadlines(kept.clone()).map(|()| "kept in the notebook for placement-decision.docx".to_owned())
        });
    }
    Ok(0)
}

fn pair(text: &str) -> Result<(String, f64), String> {
    let (name, value) = text.split_once('=').ok_or_else(|| format!("'{text}' is not WORKLOAD=NUMBER"))?;
    let value: f64 = value.trim().parse().map_err(|_| format!("'{value}' is not a number"))?;
    if !(value.is_finite() && value > 0.0) {
        return Err(format!("'{value}' must be a positive number"));
    }
    Ok((name.trim().to_owned(), value))
}
