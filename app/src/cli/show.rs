//! `vernier show`: the whole notebook as text or as one JSON object.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};
use vernier_engine::notebook::{
    EnvField, Environment, Notebook, PREDICTION_COLUMNS, PREDICTIONS_HEADING, RUN_COLUMNS, RunColumn, SOAK_COLUMNS,
    SoakColumn, TRIAL_BUDGET, noise_floors, row_list,
};

use vernier_engine::display::{inert, quote_argv};
use vernier_engine::documents::edits::SheetEdit;
use vernier_engine::documents::foreign::Foreign;
use vernier_engine::notebook::store;

use vernier_engine::reproduce::Log;
use vernier_engine::shared_work;

use super::notebook_cmds::{left_at_exit, open_any, open_log};
use super::{CommandResult, table};

/// Prints the notebook; exit 1 when a prediction's seal is broken (N4). A
/// foreign workbook is listed read-only with what could not be read (exit
/// 1 when something could not).
pub fn show(dir: &Path, json: bool) -> CommandResult {
    let (notebook, spreadsheet) = match open_log(dir)? {
        Log::Notebook(nb) => (*nb, None),
        Log::Workbook(own) => {
            let own = *own;
            (own.notebook, Some((own.edits, own.problems)))
        }
        Log::Foreign(foreign) => return show_foreign(&foreign, dir, json),
    };
    if json {
        let mut value = to_json(&notebook, dir);
        if let Some((edits, problems)) = &spreadsheet {
            value["spreadsheet_edits"] = edits.iter().map(ToString::to_string).collect();
            value["spreadsheet_problems"] = json!(problems);
        }
        value["pending_recovery"] = pending_names(dir);
        out!("{value}");
    } else {
        out!("{}", to_text(&notebook, dir).trim_end());
        if let Some((edits, problems)) = &spreadsheet {
            out!("\n{}", spreadsheet_text(edits, problems, dir).trim_end());
        }
        // N10: changes a window kept beside the notebook are not in it yet.
        if let Some(line) = super::recover_cmd::pending_line(dir) {
            out!("\n{line}");
        }
    }
    let broken = !notebook.integrity().is_empty();
    left_at_exit(notebook);
    Ok(u8::from(broken))
}

/// The names of the recovery files pending in `dir` (N10), for JSON.
pub(super) fn pending_names(dir: &Path) -> serde_json::Value {
    vernier_engine::notebook::pending::pending(dir)
        .iter()
        .map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
        .collect()
}

/// What was changed in a spreadsheet in a workbook Vernier wrote (N12):
/// every edit, cell by cell, and how to take them in.
fn spreadsheet_text(edits: &[SheetEdit], problems: &[String], path: &Path) -> String {
    let mut out = String::new();
    if edits.is_empty() && problems.is_empty() {
        let _ = writeln!(out, "## Edits made in a spreadsheet\nnone: the workbook shows what Vernier wrote");
    } else if edits.is_empty() {
        let _ = writeln!(out, "## Edits made in a spreadsheet\nnone in its sheets");
    } else {
        let _ = writeln!(out, "## Edits made in a spreadsheet ({}), not in the log until taken in", edits.len());
        for edit in edits {
            let _ = writeln!(out, "- {edit}");
        }
        // The notebook folder the workbook was exported from, if it sits in one.
        let notebook = path.parent().and_then(Path::parent).filter(|d| d.join(store::NOTEBOOK_FILE).is_file());
        let folder = notebook.map_or_else(|| "DIR".to_owned(), |d| quote_argv(&[d.display().to_string()]));
        let _ = writeln!(
            out,
            "take them in where the log allows: vernier merge {} --notebook {folder}",
            quote_argv(&[path.display().to_string()])
        );
    }
    for problem in problems {
        let _ = writeln!(out, "WARNING: {}", inert(problem));
    }
    out
}

/// One run in the course's long or short form (D7).
pub fn show_run(dir: &Path, number: u32, form: &str) -> CommandResult {
    // A notebook folder: only the run's lines are read (issue 50).
    let notebook = if dir.join(store::NOTEBOOK_FILE).is_file() {
        store::load_run(dir, number).map_err(super::Failure::input)?
    } else {
        open_any(dir)?
    };
    let run = notebook.run(number).ok_or_else(|| {
        super::Failure::input(vernier_engine::notebook::NotebookError::NoSuchRow(
            vernier_engine::notebook::RowRef::Run(number),
        ))
    })?;
    let text = if form == "short" { run.short_form() } else { run.long_form() };
    out!("{text}");
    // An arm of a comparison: the comparison in its own sentence, with the
    // same conditions as the row's (S11, D7).
    if let Some((pair, _)) = notebook.pair_of(number) {
        out!(
            "{}",
            if form == "short" {
                pair.short_form(&notebook)
            } else {
                format!("  comparison: {}", pair.line(&notebook))
            }
        );
    }
    Ok(0)
}

fn show_foreign(f: &Foreign, path: &Path, json: bool) -> CommandResult {
    if json {
        let runs: Vec<Value> = f
            .runs
            .iter()
            .map(|r| {
                json!({
                    "number": r.number, "what": r.what, "command": r.command, "warmup": r.warmup_trials,
                    "timed": r.timed, "median": r.median, "iqr": r.iqr, "min_max": r.min_max, "unit": r.unit,
                    "display_unit": r.figures().unit().name(),
                    "conditions": r.conditions, "raw_file": r.raw_file, "tag": r.tag,
                })
            })
            .collect();
        out!(
            "{}",
            json!({
                "path": path.display().to_string(), "foreign": true, "environment": f.environment,
                "predictions": f.predictions, "runs": runs, "notes": f.notes, "problems": f.problems,
            })
        );
    } else {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# {} — not written by Vernier; read by the course's column names, read-only\n",
            vernier_engine::display::path(path)
        );
        let env: Vec<Vec<String>> = f.environment.iter().map(|(k, v)| vec![k.clone(), v.clone()]).collect();
        let _ = writeln!(out, "## Environment\n{}\n", table::render(&["Field", "Value"], &env));
        let rows: Vec<Vec<String>> = f
            .runs
            .iter()
            .map(|r| {
                vec![
                    r.number.to_string(),
                    r.what.clone(),
                    quote_argv(&r.command),
                    format!("{} + {}", r.warmup_trials.map_or_else(|| "?".to_owned(), |w| w.to_string()), r.timed),
                    r.figures().median(),
                    r.figures().dispersion(),
                ]
            })
            .collect();
        let headers = [
            RunColumn::Number,
            RunColumn::What,
            RunColumn::Command,
            RunColumn::N,
            RunColumn::Median,
            RunColumn::Dispersion,
        ]
        .map(RunColumn::header);
        let _ = writeln!(out, "## Runs\n{}\n", table::render(&headers, &rows));
        if f.problems.is_empty() {
            let _ = writeln!(out, "Everything in it was read.");
        } else {
            let _ = writeln!(out, "## Could not be read");
            for p in &f.problems {
                let _ = writeln!(out, "- {}", inert(p));
            }
        }
        out!("{}", out.trim_end());
    }
    Ok(u8::from(!f.problems.is_empty()))
}

fn to_text(nb: &Notebook, dir: &Path) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = writeln!(out, "# Measurement Log — {}\n{}\n", inert(&nb.title), vernier_engine::display::path(dir));

    let env: Vec<Vec<String>> = nb.environment().rows().map(|(f, v)| vec![f.label().to_owned(), v]).collect();
    let _ = writeln!(out, "## Environment\n{}", table::render(&["Field", "Value"], &env));
    // SPEC S19: the budget new runs are held to, beside the ten fields.
    if let Some(budget) = nb.trial_budget() {
        let _ = writeln!(
            out,
            "{TRIAL_BUDGET}: {} (new runs that state no budget are held to it)",
            Notebook::trial_budget_words(budget)
        );
    }
    // Rows keep what was stated when they were recorded (SPEC N9).
    for field in EnvField::ALL {
        if let Some(hint) = nb.stated_hint(field) {
            let now = nb.environment().get(field);
            let now = if now.is_empty() { "(empty)".to_owned() } else { inert(&now).into_owned() };
            let _ = writeln!(out, "{}: {now} — {}", field.label(), inert(&hint));
        }
    }
    out.push('\n');

    let mut headers = PREDICTION_COLUMNS.to_vec();
    headers.push("Lock");
    let rows: Vec<Vec<String>> = nb
        .predictions()
        .iter()
        .map(|p| {
            let mut row = p.columns().to_vec();
            row.push(nb.lock_of(p).map_or_else(|| "open".to_owned(), |l| format!("locked {}", l.short())));
            row
        })
        .collect();
    let _ = writeln!(out, "## {PREDICTIONS_HEADING}\n{}\n", table::render(&headers, &rows));
    // Predicted against observed (N14), one line per prediction that
    // commits a figure or has an outcome to show.
    let mut scored = false;
    for p in nb.predictions() {
        let outcome = nb.outcome_text(p.number);
        if p.figure.is_none() && outcome.is_empty() {
            continue;
        }
        let figure = p.figure.as_ref().map_or_else(|| "no figure".to_owned(), ToString::to_string);
        let outcome = if outcome.is_empty() { "open".to_owned() } else { outcome };
        let _ = writeln!(out, "{}: {} → {}", p.label(), inert(&figure), inert(&outcome));
        scored = true;
    }
    if scored {
        out.push('\n');
    }

    // Each comparison sits under its two rows with its verdict (S11).
    let rows: Vec<Vec<String>> =
        shared_work::map(&nb.runs_lines(), shared_work::ROWS_WORTH_SHARING, |line| line.columns().to_vec());
    let _ = writeln!(out, "## Runs\n{}\n", table::render(&RUN_COLUMNS, &rows));
    for pair in nb.pairs() {
        let _ = writeln!(out, "{}", pair.line(nb));
    }
    for sweep in nb.sweeps() {
        let _ = writeln!(out, "{}", sweep.line());
    }
    // SPEC S19: each row's tail against the budget stated for it.
    let tails: Vec<String> =
        nb.runs().iter().filter_map(|r| Some(format!("run {}: {}", r.number, r.tail_line()?))).collect();
    // SPEC E18: the noise floor each session measured, once for its rows.
    let floors = noise_floors(nb.runs());
    for tail in &tails {
        let _ = writeln!(out, "{tail}");
    }
    for (floor, rows) in &floors {
        let _ = writeln!(out, "noise floor of {}: {floor}", row_list(rows));
    }
    if !nb.pairs().is_empty() || !nb.sweeps().is_empty() || !tails.is_empty() || !floors.is_empty() {
        out.push('\n');
    }

    let rows: Vec<Vec<String>> = nb.soaks().iter().map(|s| s.columns().to_vec()).collect();
    let _ = writeln!(out, "## Soak runs\n{}\n", table::render(&SOAK_COLUMNS, &rows));

    let _ = writeln!(out, "## Notes and anomalies");
    for note in nb.notes() {
        let source = note.source.as_deref().map(|s| format!("  ({s})")).unwrap_or_default();
        let _ = writeln!(out, "- {}  {}{source}", note.at.format("%Y-%m-%d %H:%M"), note.text);
    }
    for finding in nb.integrity() {
        let _ = writeln!(out, "\nINTEGRITY: {}", inert(&finding.message));
    }
    out
}

/// The JSON form: every section, each row with its displayed columns under
/// their exact names, plus the raw values.
fn to_json(nb: &Notebook, dir: &Path) -> Value {
    let columns = |cells: &mut dyn Iterator<Item = (&str, String)>| -> Value {
        cells.map(|(name, cell)| (name.to_owned(), Value::String(cell))).collect::<serde_json::Map<_, _>>().into()
    };
    // A row's snapshot of the Environment (SPEC N9); null when the row was
    // recorded before rows kept one.
    let stated = |env: Option<&Environment>| -> Value {
        env.map_or(Value::Null, |e| e.rows().map(|(f, v)| (f.label().to_owned(), Value::String(v))).collect())
    };
    json!({
        "path": dir.display().to_string(),
        "title": nb.title,
        "schema": nb.schema,
        "created_at": nb.created_at,
        "environment": nb.environment().rows().map(|(f, v)| json!({"field": f.label(), "value": v})).collect::<Vec<_>>(),
        // SPEC S19: seconds; null when none is set.
        "trial_budget": nb.trial_budget(),
        "predictions": nb.predictions().iter().map(|p| {
            let lock = nb.lock_of(p);
            json!({
                "number": p.number,
                "label": p.label(),
                "experiment": p.experiment,
                "predict": p.predict,
                "why": p.why,
                "recorded_at": p.recorded_at,
                "amends": p.amends,
                "locked": lock.is_some(),
                "locked_by": lock.map(|l| l.to_string()),
                "figure": p.figure.as_ref().map(ToString::to_string),
                "outcome": nb.outcome_text(p.number),
                "answers": nb.scored_against(p.number).iter().map(|s| json!({
                    "by": s.answer.by.to_string(),
                    "at": s.answer.at,
                    "word": s.outcome.word.as_str(),
                    "predicted": s.outcome.predicted,
                    "observed": s.outcome.observed,
                    "outcome": s.outcome.text,
                })).collect::<Vec<_>>(),
                "hash": p.hash,
            })
        }).collect::<Vec<_>>(),
        "runs": nb.runs().iter().map(|r| json!({
            "number": r.number,
            "columns": columns(&mut RunColumn::ALL.iter().map(|&c| (c.header(), r.cell(c)))),
            "command": r.measurement.command,
            "warmup": r.measurement.warmup_trials,
            "timed": r.measurement.summary.n,
            "unit": r.measurement.unit,
            // The stats stay in `unit` at full precision; a person is shown them in this one (S12).
            "display_unit": r.figures().unit().name(),
            "stats": r.measurement.summary,
            "conditions": r.measurement.conditions,
            "stated_environment": stated(r.stated.as_deref()),
            "extends": r.measurement.extends,
            // SPEC E17: how the program's own figure was read, and from how many processes.
            "own_figure": r.measurement.figure,
            // SPEC E13: CPU time (s), cycles and instructions of the timed trials.
            // The file leaves out none waited and a sentence its snapshot
            // keeps; here both are always given.
            "work": r.measurement.work.as_ref().map(|w| {
                let mut work = json!(w);
                work["waited"] = w.waited.into();
                work["counters"] = w.counters.clone().into();
                work
            }),
            // SPEC N15: the build recipe that built the program measured.
            "recipe": r.measurement.recipe,
            // SPEC S19: the trials against the budget stated for the run,
            // and the sentence every face shows; null without a budget.
            "tail": r.measurement.tail.as_ref().map(|t| json!({
                "budget": t.budget,
                "missed": t.missed,
                "n": t.n,
                "p95": t.p95,
                "p95_shown": t.p95_shown(),
                "p95_method": "interpolated between closest ranks (PERCENTILE.INC); below 20 trials the max is shown",
                "sentence": r.tail_line(),
            })),
            // SPEC E18: the noise floor of the row's session.
            "noise_floor": r.measurement.noise_floor,
            // SPEC E7: the canary judged against that floor, and its sentence.
            "canary_verdict": r.canary_verdict().map(|v| json!({"finding": v, "sentence": v.sentence()})),
            // SPEC S16: what the row's time is the time of (as recorded, or
            // as a row of its kind recorded before always timed).
            "boundary": r.measurement.timing_boundary(),
            "sweep": nb.sweep_of(r.number).map(|s| s.label()),
            "tag": r.measurement.tag,
            "synthetic": r.measurement.synthetic,
            "recorded_at": r.recorded_at,
            "discarded": r.discarded,
        })).collect::<Vec<_>>(),
        "soaks": nb.soaks().iter().map(|s| json!({
            "number": s.number,
            "columns": columns(&mut SoakColumn::ALL.iter().map(|&c| (c.header(), s.cell(c)))),
            "protocol": s.protocol,
            "numbers": s.numbers,
            "conditions": s.conditions,
            "stated_environment": stated(s.stated.as_ref()),
            "tag": s.tag,
            "synthetic": s.synthetic,
            "recorded_at": s.recorded_at,
            "discarded": s.discarded,
        })).collect::<Vec<_>>(),
        "comparisons": nb.pairs().iter().map(|p| json!({
            "number": p.number,
            "label": p.label(),
            "what": p.what,
            "runs": p.runs,
            "label_a": p.labels[0],
            "label_b": p.labels[1],
            "unit": p.verdict.unit,
            "comparison": p.verdict,
            "display_unit": p.verdict.display_unit(),
            "paired_ratio": p.paired,
            "order": p.order,
            // S15: what the evidence means where it points elsewhere.
            "meaning": p.evidence(nb).meaning(None),
            "sentence": p.short_form(nb),
            "recorded_at": p.recorded_at,
        })).collect::<Vec<_>>(),
        // SPEC E16: each sweep with its parameters and each row's point.
        "sweeps": nb.sweeps().iter().map(|s| json!({
            "number": s.number,
            "label": s.label(),
            "what": s.what,
            "template": s.template,
            "params": s.params,
            "runs": s.runs,
            "points": s.points,
            "recorded_at": s.recorded_at,
        })).collect::<Vec<_>>(),
        "notes": nb.notes(),
        "writing": nb.writing(),
        "integrity": nb.integrity(),
    })
}
