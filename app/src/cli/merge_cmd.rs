//! `vernier merge`: what was typed into a measurements.xlsx, taken into the
//! notebook where the log's rules allow it (SPEC N12).
//!
//! Three cases, by whose the workbook is: the notebook's own (in its
//! exports folder) is merged under its lock; someone else's workbook that
//! Vernier wrote can only become a new notebook (`--new-notebook`), their
//! file read and never written; a workbook Vernier did not write is listed,
//! and its runs are imported after `--yes` (D4).

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use chrono::Utc;
use clap::Args;
use serde_json::{Value, json};
use vernier_engine::documents::foreign::{self, MAX_WORKBOOK_BYTES};
use vernier_engine::documents::measurements::WorkbookReadError;
use vernier_engine::merge::{self, MergeError, Merged, Plan};

use super::{CommandResult, Failure};

/// `vernier merge FILE.xlsx --notebook DIR`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The workbook.
    pub file: PathBuf,
    /// The notebook to take its edits into.
    #[arg(long, value_name = "DIR", required_unless_present = "new_notebook")]
    pub notebook: Option<PathBuf>,
    /// Make a new notebook in this (new or empty) folder from someone
    /// else's workbook: the notebook it carries plus the edits its rules
    /// allow. Their file is only read.
    #[arg(long, value_name = "DIR", conflicts_with = "notebook")]
    pub new_notebook: Option<PathBuf>,
    /// Take in the runs of a workbook Vernier did not write, after reading
    /// the list this prints without it.
    #[arg(long)]
    pub yes: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Runs `vernier merge`. Exit 0 when every edit was taken in (or was
/// already in), 1 when some were refused — listed, with why — or nothing
/// was taken in for want of `--yes`.
pub fn merge(args: &MergeArgs) -> CommandResult {
    let bytes =
        vernier_engine::bounded::read_bounded(&args.file, MAX_WORKBOOK_BYTES, "a workbook").map_err(Failure::input)?;
    let file = merge::file_name(&args.file);
    // The engine reads the workbook once, and tells a foreign one apart.
    let not_vernier = |e: &MergeError| matches!(e, MergeError::Workbook(WorkbookReadError::Foreign(_)));
    let failure = |e: MergeError| match e {
        MergeError::Save(e) => Failure::failed(e),
        MergeError::Raw(e) => Failure::failed(e),
        MergeError::NotMine(why) => Failure::input(anyhow!(
            "{why}; reproduce its rows (vernier reproduce) or make a new notebook from it (vernier merge {} \
             --new-notebook NEWDIR)",
            vernier_engine::display::quote_argv(&[args.file.display().to_string()])
        )),
        e => Failure::input(e),
    };
    match (&args.new_notebook, &args.notebook) {
        (Some(target), _) => match merge::new_notebook(&bytes, &args.file, target, Utc::now()) {
            Ok(merged) => {
                let what = format!(
                    "a new notebook in {} from {file}; {file} was not written",
                    vernier_engine::display::path(target)
                );
                report(&merged, &what, args.json);
                Ok(u8::from(!merged.plan.refused.is_empty()))
            }
            Err(e) if not_vernier(&e) => Err(Failure::input(anyhow!(
                "{file} was not written by Vernier: name the notebook to import its runs into with --notebook DIR"
            ))),
            Err(e) => Err(failure(e)),
        },
        (None, Some(dir)) => match merge::merge(dir, &args.file, Utc::now()) {
            Ok(merged) => {
                report(&merged, &format!("{file} into {}", vernier_engine::display::path(dir)), args.json);
                Ok(u8::from(!merged.plan.refused.is_empty() || !merged.taken.failed.is_empty()))
            }
            Err(e) if not_vernier(&e) => {
                let f = foreign::read(&bytes).map_err(|why| Failure::input(anyhow!("cannot read {file}: {why}")))?;
                foreign_runs(&f, &file, dir, args)
            }
            Err(e) => Err(failure(e)),
        },
        // clap asks for one of the two.
        (None, None) => Err(Failure::input(anyhow!("name the notebook with --notebook DIR"))),
    }
}

/// Prints what a merge weighed and did.
fn report(merged: &Merged, what: &str, json: bool) {
    let Merged { plan, taken, record_updated, warnings } = merged;
    if json {
        out!(
            "{}",
            json!({
                "merged": what,
                "warnings": warnings,
                "taken": taken.lines,
                "failed": taken.failed,
                "already": plan.already.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "refused": refused_json(plan),
                "record_updated": record_updated,
            })
        );
        return;
    }
    out!("merge (N12): {what}");
    // R2, N13: a hidden copy that is not what the sheets show is said
    // first, as `show` and `reproduce` say it.
    for warning in warnings {
        out!("WARNING: {}", vernier_engine::display::inert(warning));
    }
    if plan.take.is_empty() && plan.already.is_empty() && plan.refused.is_empty() {
        if warnings.is_empty() {
            out!("no edit was made in a spreadsheet: the workbook shows what Vernier wrote");
        } else {
            out!(
                "no edit was made in its sheets, but the notebook inside it is not what they show: see the WARNING above"
            );
        }
        return;
    }
    if !taken.lines.is_empty() {
        out!(
            "taken in and saved ({} edits), each noted as {}:",
            plan.taken_count(),
            vernier_engine::notebook::FROM_SPREADSHEET
        );
        for line in &taken.lines {
            out!("  {line}");
        }
    }
    for line in &taken.failed {
        out!("  NOT taken in: {line}");
    }
    if !plan.already.is_empty() {
        out!("already in the notebook ({}):", plan.already.len());
        for edit in &plan.already {
            out!("  {edit}");
        }
    }
    list_refused(plan);
    if *record_updated {
        out!("the next export writes the workbook again without asking: its edits were weighed here");
    }
}

/// The refused edits as JSON.
fn refused_json(plan: &Plan) -> Vec<Value> {
    plan.refused.iter().map(|(edit, why)| json!({"edit": edit.to_string(), "why": why})).collect()
}

/// Prints the refused edits, each with the rule that refuses it.
fn list_refused(plan: &Plan) {
    if plan.refused.is_empty() {
        return;
    }
    out!("refused ({}): the log's rules do not allow these; nothing of them was taken in:", plan.refused.len());
    for (edit, why) in &plan.refused {
        out!("  {edit}\n    why: {why}");
    }
}

/// Lists what a workbook Vernier did not write holds, then imports its
/// runs after `--yes` (D4, R2: nothing from it is taken without consent).
fn foreign_runs(f: &foreign::Foreign, file: &str, dir: &Path, args: &MergeArgs) -> CommandResult {
    let (runs, refused) = merge::foreign_runs(f, file);
    let rows: Vec<String> = runs.iter().map(describe_run).collect();
    if args.json && !args.yes {
        out!("{}", json!({"foreign": true, "runs": rows, "not_read": refused, "problems": f.problems, "taken": false}));
        return Ok(1);
    }
    if !args.json {
        out!("{file} was not written by Vernier; its runs, read by the course's column names (D4):");
        for row in &rows {
            out!("  {row}");
        }
        for why in refused.iter().chain(&f.problems) {
            out!("  not read: {why}");
        }
    }
    if !args.yes {
        let count = if runs.len() == 1 { "this run".to_owned() } else { format!("these {} runs", runs.len()) };
        out!("nothing was taken in: run again with --yes to import {count}, tagged with their source");
        return Ok(1);
    }
    let (numbers, already) = merge::take_foreign(dir, &runs, Utc::now()).map_err(|e| match e {
        merge::MergeError::Save(e) => Failure::failed(e),
        merge::MergeError::Raw(e) => Failure::failed(e),
        e => Failure::input(e),
    })?;
    let list: Vec<String> = numbers.iter().map(|n| format!("run {n}")).collect();
    if args.json {
        out!(
            "{}",
            json!({"foreign": true, "runs": rows, "not_read": refused, "problems": f.problems, "taken": numbers,
                   "already": already})
        );
    } else {
        if !list.is_empty() {
            out!("imported and saved: {}", list.join(", "));
        }
        if already > 0 {
            out!("already in the notebook: {already} of its runs, from the same file and row");
        }
    }
    Ok(u8::from(!refused.is_empty()))
}

/// One imported run as the list shows it.
fn describe_run(p: &vernier_engine::import::Prepared) -> String {
    let m = &p.rows[0].measurement;
    let figures = vernier_engine::stats::units::Figures::of(&m.summary, &m.unit);
    format!(
        "{}: {} — median {} (IQR {}), n = {}, tag {}",
        vernier_engine::display::inert(&p.name),
        vernier_engine::display::inert(&m.what),
        figures.median(),
        figures.iqr(),
        m.summary.n,
        m.tag
    )
}
