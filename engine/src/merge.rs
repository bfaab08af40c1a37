//! Taking in what was typed into `measurements.xlsx` (SPEC N12).
//!
//! The workbook's edits ([`crate::documents::edits`]) are weighed against
//! the notebook as it is on disk now, under its lock: an edit the log's
//! rules allow becomes an [`Action`] — an Environment field, a new note, a
//! new or still-open prediction, a discard with its reason, a run typed by
//! hand — and every other edit is refused with the rule that forbids it: a
//! locked prediction (N4), a measured number, a run's conditions or raw
//! file (N9, N6), a deleted row (N5). An edit already in the notebook (a
//! workbook merged twice) is neither taken again nor refused.
//!
//! Each action is recorded with the time it is taken in and, as its
//! source, "edited in a spreadsheet" and the file's name.

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::display::inert;
use crate::documents::edits::{SheetChange, SheetEdit};
use crate::documents::foreign::{self, SheetRun};
use crate::documents::measurements::{
    OwnWorkbook, PREDICTION_FIGURE, PREDICTION_OUTCOME, PREDICTION_TEXT, TYPED_PREDICTION, TYPED_RUN_COLUMNS,
    TYPED_RUN_NUMBERS_OF_LAYOUT_4,
};
use crate::import::{Prepared, PreparedRow};
use crate::notebook::{
    Author, Boundary, Committed, Condition, ConditionName, EnvField, FROM_SPREADSHEET, Measurement, Notebook,
    NotebookError, PredictionText, RowRef, Tag, WarmupPolicy,
};
use crate::stats::Summary;

/// What the instrument of a run typed into a workbook is called (N12).
pub const TYPED_BY_HAND: &str = "typed by hand";

/// What taking in the workbook would do: each edit with its verdict.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    /// What every action is recorded with as its source: "edited in a
    /// spreadsheet", the file, and which export of the log it was (so the
    /// same row taken in twice is known, and the same words typed into a
    /// later export are new).
    pub source: String,
    /// The edits to take in, each group with what it does.
    pub take: Vec<(Vec<SheetEdit>, Action)>,
    /// Edits the notebook already holds (the workbook was merged before).
    pub already: Vec<SheetEdit>,
    /// Edits the log's rules forbid, each with why.
    pub refused: Vec<(SheetEdit, String)>,
}

/// One change the log's rules allow.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// An Environment field's new value (N2: every field may change).
    SetEnvironment {
        /// The field.
        field: EnvField,
        /// Its value before.
        old: String,
        /// The value typed.
        new: String,
    },
    /// A note typed below the others.
    AddNote {
        /// Its text.
        text: String,
        /// The time typed beside it, kept in its text (the note's own
        /// time is when it was taken in).
        typed_time: Option<String>,
    },
    /// A prediction typed below the others.
    AddPrediction(PredictionText),
    /// An open prediction's words, rewritten (N4 allows it until a run
    /// locks it).
    EditPrediction {
        /// Its number.
        number: u32,
        /// The words now.
        text: PredictionText,
    },
    /// A run or soak set aside with the reason typed in Discarded (N5).
    Discard {
        /// The row.
        subject: RowRef,
        /// The reason.
        reason: String,
    },
    /// A row typed into the Runs sheet: a run "typed by hand", its numbers
    /// read and checked as any imported row's are.
    TypedRun(Box<Prepared>),
}

impl Action {
    /// Where it goes in the order of taking in: what a run would lock
    /// before any run.
    fn rank(&self) -> u8 {
        match self {
            Action::SetEnvironment { .. } => 0,
            Action::EditPrediction { .. } => 1,
            Action::AddPrediction(_) => 2,
            Action::Discard { .. } => 3,
            Action::AddNote { .. } => 4,
            Action::TypedRun(_) => 5,
        }
    }

    /// One line saying what it does, for the plan and the notes.
    pub fn describe(&self) -> String {
        match self {
            Action::SetEnvironment { field, old, new } => {
                // Kept as a note: in words the window's font can show.
                format!("Environment · {}: “{}” changed to “{}”", field.label(), inert(old), inert(new))
            }
            Action::AddNote { text, .. } => format!("a new note: “{}”", crate::display::inert_prose(text)),
            Action::AddPrediction(p) => format!(
                "a new prediction: {} — {} — because {}",
                inert(&p.experiment),
                inert(&p.predict),
                inert(&p.why)
            ),
            Action::EditPrediction { number, text } => {
                format!(
                    "P{number} (still open) rewritten: {} — {} — because {}",
                    inert(&text.experiment),
                    inert(&text.predict),
                    inert(&text.why)
                )
            }
            Action::Discard { subject, reason } => format!("{subject} set aside: {}", inert(reason)),
            Action::TypedRun(p) => {
                let m = &p.rows[0].measurement;
                let figures = crate::stats::units::Figures::of(&m.summary, &m.unit);
                format!(
                    "a run typed by hand: {} — median {} (IQR {}), {} timed trials",
                    inert(&m.what),
                    figures.median(),
                    figures.iqr(),
                    m.summary.n
                )
            }
        }
    }
}

/// What taking a plan in did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Taken {
    /// One line per action taken, as [`Action::describe`] says it, with
    /// what it became (`run 7`, `P4`).
    pub lines: Vec<String>,
    /// Actions the notebook refused as they were applied (it changed in a
    /// way the plan did not foresee), each with why.
    pub failed: Vec<String>,
}

/// Why edits of a sheet's rows are refused, by the kind of cell.
fn sealed_run_cell(column: &str, subject: RowRef) -> String {
    // A number kept in its unit's own column (layout 5): "Median (ms)".
    let in_unit =
        ["Median (", "IQR (", "Min (", "Max (", "P (", "S (", "Tail IQR ("].iter().any(|p| column.starts_with(p));
    match column {
        _ if in_unit => format!(
            "{subject}'s measured numbers are sealed (N9): a measurement is never edited; set the row aside with a \
             reason in Discarded and measure again"
        ),
        "n (warm-up + timed)"
        | "Median"
        | "Dispersion"
        | "Min / Max"
        | "Median (value)"
        | "IQR (value)"
        | "Drift (value)"
        | "Min"
        | "Max"
        | "Unit"
        | "P"
        | "S"
        | "S/P"
        | "Tail IQR"
        | "t_onset"
        | "t_stable"
        | "Knee" => format!(
            "{subject}'s measured numbers are sealed (N9): a measurement is never edited; set the row aside with a \
             reason in Discarded and measure again"
        ),
        "Conditions" => format!("{subject}'s conditions are kept as they were measured (N9)"),
        "Raw file" => format!("{subject}'s raw file is named by Vernier with its SHA-256 (N6)"),
        "Discarded" => format!("{subject}'s discard stays as it was written (N5)"),
        _ => format!("{subject} keeps what was recorded when it was measured (N9)"),
    }
}

/// The plan for taking `workbook`'s edits into `mine`, the notebook as it
/// is on disk now. `file` names the workbook in what is recorded.
pub fn plan(workbook: &OwnWorkbook, mine: &Notebook, file: &str) -> Plan {
    let source = format!("{FROM_SPREADSHEET} ({file}, export {})", workbook.id);
    let mut plan = Plan { source: source.clone(), ..Plan::default() };
    let mut seen = Seen::new(mine, &source);
    let theirs = &workbook.notebook;
    // An open prediction's cell edits are taken together, as one rewrite.
    let mut rewrites: Vec<(usize, Vec<SheetEdit>)> = Vec::new();
    for edit in &workbook.edits {
        let refuse = |why: String| (edit.clone(), why);
        let row = edit.written_row;
        let verdict: Result<Option<Action>, String> = match (edit.sheet.as_str(), &edit.change) {
            (_, SheetChange::SheetGone) => {
                Err("a sheet of the log was deleted; nothing is deleted (N5), and the next export writes it again"
                    .into())
            }
            (_, SheetChange::ColumnGone(_)) => {
                Err("a column of the log was deleted; nothing is deleted (N5), and the next export writes it again"
                    .into())
            }
            (_, SheetChange::SheetAdded) => {
                Err("not a sheet of the log: Vernier keeps nothing from it, and the next export does not write it"
                    .into())
            }
            (_, SheetChange::Deleted(_)) => Err(deleted(edit, theirs)),
            ("Environment", change) => environment(row, change, mine),
            ("Predictions", SheetChange::Cell { column, .. }) if PREDICTION_OUTCOME.contains(&column.as_str()) => {
                let named = row.and_then(|i| theirs.predictions().get(i)).map_or_else(String::new, |p| p.label());
                Err(format!(
                    "the {column} cell of {named} is Vernier's (N14): it is worked out from the rows that answer \
                     the prediction; link one with vernier answer DIR {named} --run N | --comparison C… | --soak S…"
                ))
            }
            ("Predictions", SheetChange::Cell { column, .. }) => match row.and_then(|i| theirs.predictions().get(i)) {
                Some(p) => match mine.prediction(p.number).and_then(|m| mine.lock_of(m).map(|l| (m, l))) {
                    Some((_, lock)) => Err(format!(
                        "P{} is locked ({lock}) (N4): it cannot be edited; amend it in Vernier, which quotes it",
                        p.number
                    )),
                    None if PREDICTION_TEXT.contains(&column.as_str()) => {
                        let i = row.unwrap_or_default();
                        match rewrites.iter_mut().find(|(r, _)| *r == i) {
                            Some((_, edits)) => edits.push(edit.clone()),
                            None => rewrites.push((i, vec![edit.clone()])),
                        }
                        continue;
                    }
                    None => Err(format!("Vernier writes the {column} column of P{}", p.number)),
                },
                None => Err("this prediction is not in the notebook".into()),
            },
            ("Predictions", SheetChange::Added(cells)) => new_prediction(cells).map(|a| seen.unless_taken(a)),
            ("Runs" | "Soak runs", SheetChange::Cell { column, old, new }) => {
                discard(edit.sheet == "Runs", row, (column, old, new), theirs, mine)
            }
            ("Runs", SheetChange::Added(cells)) => {
                typed_run(cells, edit.line, file, mine).map(|a| seen.unless_taken(a))
            }
            ("Soak runs", SheetChange::Added(_)) => {
                Err("a soak is recorded from its samples (vernier soak, or import its CSV in Vernier), not typed"
                    .into())
            }
            ("Notes and anomalies", SheetChange::Added(cells)) => new_note(cells).map(|a| seen.unless_taken(a)),
            ("Notes and anomalies", SheetChange::Cell { .. }) => {
                Err("a note stays as it was written (N5): type a new note below instead".into())
            }
            ("Comparisons" | "Sweeps", _) => {
                Err(format!("Vernier writes the {} sheet from the runs; it is not edited", edit.sheet))
            }
            _ => Err("not a sheet of the log".into()),
        };
        match verdict {
            Ok(Some(action)) => plan.take.push((vec![edit.clone()], action)),
            Ok(None) => plan.already.push(edit.clone()),
            Err(why) => plan.refused.push(refuse(why)),
        }
    }
    for (i, edits) in rewrites {
        match rewrite(i, &edits, theirs, mine) {
            Ok(Some(action)) => plan.take.push((edits, action)),
            Ok(None) => plan.already.extend(edits),
            Err(why) => plan.refused.extend(edits.into_iter().map(|e| (e, why.clone()))),
        }
    }
    // A run recorded locks every prediction before it (N4): predictions
    // are written first, runs typed by hand last.
    plan.take.sort_by_key(|(_, action)| action.rank());
    plan
}

/// The rows typed below the written ones that a merge of this same export
/// already took in (N12: merged twice, nothing is taken twice): each left
/// a note with the plan's source, so as many rows alike as there are such
/// notes are already in, and any more are new — the same words typed again
/// are a new note.
struct Seen {
    /// Notes with this export's source, by what they say.
    noted: Vec<String>,
    /// How many of each kind of note this plan has met so far.
    met: std::collections::HashMap<String, usize>,
}

impl Seen {
    fn new(mine: &Notebook, source: &str) -> Self {
        let noted =
            mine.notes().iter().filter(|n| n.source.as_deref() == Some(source)).map(|n| n.text.clone()).collect();
        Self { noted, met: std::collections::HashMap::new() }
    }

    /// `action`, unless this row is one a merge of this export already took.
    fn unless_taken(&mut self, action: Action) -> Option<Action> {
        let described = action.describe();
        // The note each kind leaves: the typed note itself, or a line that
        // ends with the action's description.
        let leaves = |text: &str| match &action {
            Action::AddNote { text: note, typed_time } => text == note_text(note, typed_time.as_deref()),
            _ => text.ends_with(&format!(": {described}")),
        };
        let count = self.noted.iter().filter(|t| leaves(t)).count();
        let met = self.met.entry(described).or_default();
        *met += 1;
        (*met > count).then_some(action)
    }
}

/// Why a deleted row is refused, naming it.
fn deleted(edit: &SheetEdit, theirs: &Notebook) -> String {
    let row = edit.written_row.unwrap_or_default();
    let named = match edit.sheet.as_str() {
        "Runs" => theirs.runs().get(row).map(|r| format!("run {}", r.number)),
        "Soak runs" => theirs.soaks().get(row).map(|s| format!("soak S{}", s.number)),
        "Predictions" => theirs.predictions().get(row).map(|p| format!("P{}", p.number)),
        _ => None,
    };
    match named {
        Some(name) if edit.sheet != "Predictions" => format!(
            "{name} was deleted; nothing is deleted from the log (N5): write a reason in its Discarded cell to set it \
             aside"
        ),
        Some(name) => format!("{name} was deleted; a prediction is never deleted (N4, N5)"),
        None => "a row of the log was deleted; nothing is deleted (N5)".into(),
    }
}

/// An Environment edit: a field's value may change; its name and the
/// column Vernier fills may not, and no field is added.
fn environment(row: Option<usize>, change: &SheetChange, mine: &Notebook) -> Result<Option<Action>, String> {
    match change {
        SheetChange::Cell { column, old, new } if column == "Value" => {
            let field = row.and_then(|i| EnvField::ALL.get(i)).ok_or("not one of the Environment's fields")?;
            let now = mine.environment().get(*field);
            if now.trim() == new.trim() {
                Ok(None)
            } else if now.trim() == old.trim() {
                // A value the field cannot hold (Workbench is L, B or D) is
                // refused here, with why, not when taken in.
                mine.environment().clone().set(*field, new).map_err(|e| e.to_string())?;
                Ok(Some(Action::SetEnvironment { field: *field, old: now, new: new.trim().to_owned() }))
            } else {
                Err(format!(
                    "{} was changed in Vernier since this workbook was written (it is now “{}”); set it there",
                    field.label(),
                    inert(&now)
                ))
            }
        }
        SheetChange::Cell { column, .. } if column == "Field" => {
            Err("the Environment's fields are named by the log (N2); change a field's Value".into())
        }
        SheetChange::Cell { column, .. } => Err(format!("Vernier writes the {} column", inert(column))),
        _ => Err("the Environment has its ten fields (N2); write anything else as a note".into()),
    }
}

/// A cell typed in a new row, by header.
fn typed<'a>(cells: &'a [(String, String)], column: &str) -> &'a str {
    cells.iter().find(|(h, _)| h == column).map(|(_, v)| v.trim()).unwrap_or("")
}

/// Cells typed where nothing is read from them.
fn stray<'a>(cells: &'a [(String, String)], read: &[&str]) -> Vec<&'a str> {
    cells.iter().filter(|(h, _)| !read.contains(&h.as_str())).map(|(h, _)| h.as_str()).collect()
}

/// A prediction typed below the others.
fn new_prediction(cells: &[(String, String)]) -> Result<Action, String> {
    let mut read = vec!["#"];
    read.extend(TYPED_PREDICTION);
    let others = stray(cells, &read);
    if !others.is_empty() {
        return Err(format!(
            "Vernier writes {} of a prediction; a soak's protocol is fixed in Vernier (vernier predict --soak)",
            others.join(", ")
        ));
    }
    let text = PredictionText {
        experiment: typed(cells, "Experiment").to_owned(),
        predict: typed(cells, "What I predict").to_owned(),
        why: typed(cells, "Why").to_owned(),
        // N14: a typed figure is read as `predict --figure` reads it.
        figure: match typed(cells, PREDICTION_FIGURE) {
            "" => None,
            figure => Some(Committed::parse(figure).map_err(|e| e.to_string())?),
        },
    };
    if let Some(missing) = [("Experiment", &text.experiment), ("What I predict", &text.predict), ("Why", &text.why)]
        .iter()
        .find(|(_, v)| v.is_empty())
    {
        return Err(format!(
            "a prediction needs all three of Experiment, What I predict and Why; {} is empty",
            missing.0
        ));
    }
    Ok(Action::AddPrediction(text))
}

/// An open prediction's words rewritten in the cells `edits` of written
/// row `i`.
fn rewrite(i: usize, edits: &[SheetEdit], theirs: &Notebook, mine: &Notebook) -> Result<Option<Action>, String> {
    let p = theirs.predictions().get(i).ok_or("this prediction is not in the notebook")?;
    let now = mine.prediction(p.number).ok_or("this prediction is not in the notebook")?;
    let mut text = PredictionText {
        experiment: p.experiment.clone(),
        predict: p.predict.clone(),
        why: p.why.clone(),
        figure: p.figure.clone(),
    };
    for edit in edits {
        if let SheetChange::Cell { column, new, .. } = &edit.change {
            let slot = match column.as_str() {
                "Experiment" => &mut text.experiment,
                "What I predict" => &mut text.predict,
                _ => &mut text.why,
            };
            new.trim().clone_into(slot);
        }
    }
    // The same workbook merged again: the rewrite is already there.
    if (&now.experiment, &now.predict, &now.why) == (&text.experiment, &text.predict, &text.why) {
        return Ok(None);
    }
    if (&now.experiment, &now.predict, &now.why) != (&p.experiment, &p.predict, &p.why) {
        return Err(format!(
            "P{} was rewritten in Vernier since this workbook was written; rewrite it there",
            p.number
        ));
    }
    if [&text.experiment, &text.predict, &text.why].iter().any(|v| v.is_empty()) {
        return Err(format!("P{} needs all three of Experiment, What I predict and Why", p.number));
    }
    Ok(Some(Action::EditPrediction { number: p.number, text }))
}

/// A cell of a written Runs or Soak runs row: only a reason typed into an
/// empty Discarded cell is taken.
fn discard(
    runs: bool,
    row: Option<usize>,
    (column, old, new): (&str, &str, &str),
    theirs: &Notebook,
    mine: &Notebook,
) -> Result<Option<Action>, String> {
    let subject = row
        .and_then(|i| {
            if runs {
                theirs.runs().get(i).map(|r| RowRef::Run(r.number))
            } else {
                theirs.soaks().get(i).map(|s| RowRef::Soak(s.number))
            }
        })
        .ok_or("this row is not in the notebook")?;
    if column != "Discarded" || !old.trim().is_empty() || new.trim().is_empty() {
        return Err(sealed_run_cell(column, subject));
    }
    let now = match subject {
        RowRef::Run(n) => mine.run(n).map(|r| r.discarded.as_ref().map(|d| d.reason.clone())),
        RowRef::Soak(n) => {
            mine.soaks().iter().find(|s| s.number == n).map(|s| s.discarded.as_ref().map(|d| d.reason.clone()))
        }
    }
    .ok_or("this row is not in the notebook")?;
    match now {
        Some(reason) if reason == new.trim() => Ok(None),
        Some(reason) => Err(format!("{subject} was already set aside in Vernier: {}", inert(&reason))),
        None => Ok(Some(Action::Discard { subject, reason: new.trim().to_owned() })),
    }
}

/// A note typed below the others.
fn new_note(cells: &[(String, String)]) -> Result<Action, String> {
    let text = typed(cells, "Note");
    if text.is_empty() {
        return Err("a note needs its text in the Note column".into());
    }
    let others = stray(cells, &["Time", "Note"]);
    if !others.is_empty() {
        return Err(format!("Vernier writes the {} of a note", others.join(", ")));
    }
    let typed_time = Some(typed(cells, "Time")).filter(|t| !t.is_empty()).map(str::to_owned);
    Ok(Action::AddNote { text: text.to_owned(), typed_time })
}

/// A note's text as recorded: the time typed beside it kept with it.
fn note_text(text: &str, typed_time: Option<&str>) -> String {
    match typed_time {
        Some(time) => format!("{text} (time typed in the spreadsheet: {time})"),
        None => text.to_owned(),
    }
}

/// A row typed into the Runs sheet, read as a classmate's row is (D4) and
/// recorded as an import is (E14): MEASURED unless it says otherwise, its
/// warm-up as stated, its instrument "typed by hand", what it does not say
/// stated as not recorded, and the typed cells kept as its raw file.
fn typed_run(cells: &[(String, String)], line: u32, file: &str, mine: &Notebook) -> Result<Action, String> {
    let read: Vec<&str> = TYPED_RUN_COLUMNS.iter().chain(&TYPED_RUN_NUMBERS_OF_LAYOUT_4).copied().collect();
    let others = stray(cells, &read);
    if !others.is_empty() {
        return Err(format!(
            "Vernier writes the {} of a run; leave them empty in a row typed by hand",
            others.join(", ")
        ));
    }
    // The figure columns stand in for the text ones when only they were typed.
    let with_unit = |value: &str| match typed(cells, "Unit") {
        "" => value.to_owned(),
        unit => format!("{value} {unit}"),
    };
    let text = |column: &str| -> String {
        let given = typed(cells, column);
        if !given.is_empty() {
            return given.to_owned();
        }
        match column {
            "Median" => Some(typed(cells, "Median (value)")).filter(|v| !v.is_empty()).map(with_unit),
            "Dispersion" => Some(typed(cells, "IQR (value)")).filter(|v| !v.is_empty()).map(with_unit),
            "Min / Max" => match (typed(cells, "Min"), typed(cells, "Max")) {
                ("", _) | (_, "") => None,
                (min, max) => Some(format!("{} / {}", with_unit(min), with_unit(max))),
            },
            _ => None,
        }
        .unwrap_or_default()
    };
    let run =
        foreign::sheet_run(&text, mine.runs().len() as u32 + 1, line).map_err(|why| format!("not taken in: {why}"))?;
    let source = format!("{file}, Runs row {line} ({FROM_SPREADSHEET})");
    let measurement = sheet_measurement(&run, source, TYPED_BY_HAND, "as typed")?;
    let kept: String = cells.iter().map(|(h, v)| format!("{h}: {v}\n")).collect();
    Ok(Action::TypedRun(Box::new(Prepared {
        name: format!("{file}, Runs row {line}"),
        text: format!("# A run typed by hand into {file}, Runs row {line}, as it was typed.\n{kept}"),
        raw_stem: "typed",
        raw_extension: "txt",
        format: None,
        build: None,
        boundary: None,
        rows: vec![PreparedRow { measurement, arm: String::new() }],
        pair: None,
        checks: Vec::new(),
        left_out: Vec::new(),
    })))
}

/// The row a [`SheetRun`] becomes, from `source`, measured by `instrument`.
/// Its own conditions are kept as `said` ("as typed"): a name Vernier gives
/// its own conditions is marked, so no typed cell stands for what Vernier
/// read or recorded.
fn sheet_measurement(run: &SheetRun, source: String, instrument: &str, said: &str) -> Result<Measurement, String> {
    let unit = run.unit.trim();
    let ns_per_unit = crate::import::csv::UNITS
        .iter()
        .find(|(u, _)| *u == unit)
        .map(|(_, ns)| *ns)
        .ok_or_else(|| format!("the median's unit “{}” is not a time in s, ms, us or ns", inert(unit)))?;
    let (min, max) = run.min_max.ok_or("a run needs its Min / Max beside its median (S3)")?;
    if !(min <= run.median && run.median <= max) {
        return Err("its median is not between its min and max".into());
    }
    if run.iqr > max - min {
        return Err("its IQR is wider than its min–max range".into());
    }
    if run.command.is_empty() {
        return Err("a run needs the Command it measured".into());
    }
    let tag = match run.tag.trim() {
        "" => Tag::Measured,
        t => Tag::ALL
            .into_iter()
            .find(|tag| tag.as_str().eq_ignore_ascii_case(t))
            .ok_or_else(|| format!("Tag “{}” is not one of MEASURED, DERIVED, CITED, MODELED", inert(t)))?,
    };
    let warmup = run.warmup_trials.map_or(WarmupPolicy::Unknown, WarmupPolicy::Stated);
    let mut conditions = vec![
        Condition::new(ConditionName::Source, source),
        Condition::new(ConditionName::Instrument, instrument),
        Condition::new(ConditionName::WarmupPolicy, warmup.to_string()),
    ];
    // What the student typed under Conditions is their statement.
    conditions.extend(run.conditions.iter().map(|c| match c.name() {
        Some(ConditionName::TypedConditions) | None => c.clone(),
        Some(_) => Condition { field: format!("{} ({said})", c.field), value: c.value.clone() },
    }));
    conditions.push(Condition::new(
        ConditionName::NotRecorded,
        "not recorded: only its median, IQR, min and max were given, so its quartiles and trials are not known; \
         state the rest with vernier set-run (in the window: State what is missing…)",
    ));
    Ok(Measurement {
        what: run.what.clone(),
        command: run.command.clone(),
        warmup,
        warmup_trials: 0,
        summary: Summary::typed(run.timed as usize, run.median, run.iqr, min, max),
        unit: unit.to_owned(),
        ns_per_unit,
        conditions,
        raw_file: None,
        tag,
        synthetic: false,
        extends: None,
        figure: None,
        work: None,
        // Typed numbers: nothing says what they time.
        boundary: Some(Boundary::NotStated),
        recipe: None,
    })
}

impl Plan {
    /// How many edits it takes in.
    pub fn taken_count(&self) -> usize {
        self.take.iter().map(|(edits, _)| edits.len()).sum()
    }

    /// Applies the actions to `nb` — the notebook as it is on disk now,
    /// under its lock, in folder `dir` — at time `at`, each recorded with
    /// the plan's source. A run typed by hand keeps its typed cells in
    /// `raw/`.
    pub fn apply(&self, dir: &Path, nb: &mut Notebook, at: DateTime<Utc>) -> Taken {
        let source = &self.source;
        let mut taken = Taken::default();
        // E14: a run taken in keeps what Vernier reads here as it is taken,
        // labelled "read at import", as every import's does.
        let typed = self.take.iter().any(|(_, a)| matches!(a, Action::TypedRun(_)));
        let machine = typed.then(crate::platform::machine::Machine::read);
        for (_, action) in &self.take {
            let done: Result<String, String> = (|| match action {
                Action::SetEnvironment { field, new, .. } => {
                    nb.set_environment_field(*field, new).map_err(|e| e.to_string())?;
                    note(nb, &action.describe(), None, (source, Author::Vernier), at)?;
                    Ok(action.describe())
                }
                Action::AddNote { text, typed_time } => {
                    note(nb, &note_text(text, typed_time.as_deref()), None, (source, Author::Person), at)?;
                    Ok(action.describe())
                }
                Action::AddPrediction(text) => {
                    let n = nb.add_prediction(text.clone(), at).map_err(|e| e.to_string())?;
                    note(nb, &format!("P{n} recorded: {}", action.describe()), None, (source, Author::Vernier), at)?;
                    Ok(format!("P{n}: {}", action.describe()))
                }
                Action::EditPrediction { number, text } => {
                    nb.edit_prediction(*number, text.clone()).map_err(|e| e.to_string())?;
                    note(nb, &action.describe(), None, (source, Author::Vernier), at)?;
                    Ok(action.describe())
                }
                Action::Discard { subject, reason } => {
                    nb.discard_from(*subject, reason, Some(source), at).map_err(|e| e.to_string())?;
                    Ok(action.describe())
                }
                Action::TypedRun(prepared) => {
                    let prepared = match &machine {
                        Some(machine) => Prepared::clone(prepared).read_here(machine),
                        None => Prepared::clone(prepared),
                    };
                    let recorded = prepared.record(dir, nb, at).map_err(|e| e.to_string())?;
                    let runs: Vec<String> = recorded.runs.iter().map(|r| format!("run {r}")).collect();
                    let line = format!("{}: {}", runs.join(", "), action.describe());
                    let about = recorded.runs.first().map(|&r| RowRef::Run(r));
                    note(nb, &line, about, (source, Author::Vernier), at)?;
                    Ok(line)
                }
            })();
            match done {
                Ok(line) => taken.lines.push(line),
                Err(why) => taken.failed.push(format!("{}: {why}", action.describe())),
            }
        }
        taken
    }
}

/// Records `text` as a note from the spreadsheet: Vernier's account of an
/// edit it took in (SPEC A20), or the note a person typed there.
fn note(
    nb: &mut Notebook,
    text: &str,
    about: Option<RowRef>,
    (source, by): (&str, Author),
    at: DateTime<Utc>,
) -> Result<(), String> {
    nb.add_note_from(text, about, Some(source), by, at).map_err(|e: NotebookError| e.to_string())
}

/// Why a workbook could not be taken in.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// The file could not be read, or was refused unread.
    #[error(transparent)]
    Read(#[from] crate::bounded::ReadError),
    /// The workbook does not open.
    #[error(transparent)]
    Workbook(#[from] crate::documents::measurements::WorkbookReadError),
    /// The notebook does not load.
    #[error(transparent)]
    Load(#[from] crate::notebook::LoadError),
    /// The notebook could not be saved: nothing was taken in.
    #[error(transparent)]
    Save(#[from] crate::notebook::SaveError),
    /// The new notebook could not be made.
    #[error(transparent)]
    Create(#[from] crate::notebook::CreateError),
    /// A run's raw copy could not be written: nothing was taken in.
    #[error(transparent)]
    Raw(#[from] crate::harness::raw::RawError),
    /// A workbook of another notebook, or one outside this notebook's
    /// export folders: someone else's, read-only (R1, R3).
    #[error("{0}")]
    NotMine(String),
    /// The folder for a new notebook already holds something.
    #[error("{} is not empty; a new notebook is made in a new or empty folder", .0.display())]
    NotEmpty(std::path::PathBuf),
}

/// Whose a workbook Vernier wrote is (N12, R1): its ownership.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// The notebook's own: in one of its export folders, carrying this
    /// notebook. Its edits may be taken in.
    Mine,
    /// Someone else's, with why: read-only.
    Theirs(String),
}

/// Whether the workbook at `path`, carrying `theirs`, belongs to the
/// notebook `mine` in folder `dir`: it must sit in `dir`'s `exports/` or in a
/// folder an export from `dir` recorded, and carry the same notebook (the
/// same title and creation time).
pub fn whose(path: &Path, theirs: &Notebook, dir: &Path, mine: &Notebook) -> Ownership {
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    let folder = path.parent().map(|p| if p.as_os_str().is_empty() { Path::new(".") } else { p });
    let in_exports = folder.and_then(real).is_some_and(|f| {
        real(&dir.join(crate::notebook::store::EXPORTS_DIR)) == Some(f.clone())
            || crate::documents::export_record::ExportRecord::read(dir, &f).is_some()
    });
    if !in_exports {
        return Ownership::Theirs(format!(
            "{} is not in this notebook's exports folder, so it is someone else's workbook: read-only (R1). If it is \
             this notebook's, copied elsewhere, copy it back into {} to take its edits in",
            path.display(),
            dir.join(crate::notebook::store::EXPORTS_DIR).display()
        ));
    }
    // A link in the exports folder may point at any file: only a real one
    // is the notebook's own.
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) {
        return Ownership::Theirs(format!("{} is not a regular file in the exports folder: read-only", path.display()));
    }
    if (theirs.created_at, &theirs.title) != (mine.created_at, &mine.title) {
        return Ownership::Theirs(format!(
            "{} carries another notebook (“{}”, made {}), so it is someone else's workbook: read-only (R1)",
            path.display(),
            inert(&theirs.title),
            theirs.created_at.format("%Y-%m-%d %H:%M UTC")
        ));
    }
    Ownership::Mine
}

/// What [`merge`] did.
#[derive(Debug)]
pub struct Merged {
    /// What was weighed.
    pub plan: Plan,
    /// What was taken in and saved.
    pub taken: Taken,
    /// True when the export record now vouches for the workbook, so the
    /// next export replaces it without asking (A17).
    pub record_updated: bool,
    /// What reading the workbook found about its hidden copy of the
    /// notebook, e.g. that it does not match the cells the sheets show
    /// (R2, N13): what is taken in, and what its rows run, is that copy.
    pub warnings: Vec<String>,
}

/// Takes the edits of the workbook at `path` into the notebook in `dir`:
/// under the folder's lock, the workbook and the notebook are read as they
/// are now, the plan is applied and saved, and the export record is told
/// the workbook's edits were taken in (N10, N12, A17). Someone else's
/// workbook is refused ([`MergeError::NotMine`]).
pub fn merge(dir: &Path, path: &Path, at: DateTime<Utc>) -> Result<Merged, MergeError> {
    let bytes = crate::bounded::read_bounded(path, foreign::MAX_WORKBOOK_BYTES, "a workbook")?;
    let own = crate::documents::measurements::read_own(&bytes, &path.display().to_string())?;
    let file = file_name(path);
    let weigh = |mine: &mut Notebook| {
        if let Ownership::Theirs(why) = whose(path, &own.notebook, dir, mine) {
            return Err(MergeError::NotMine(why));
        }
        let plan = plan(&own, mine, &file);
        let taken = plan.apply(dir, mine, at);
        Ok((plan, taken))
    };
    // The edits are in the notebook now (or refused, and said so): the
    // workbook may be written again without asking. Told under the same
    // lock, so no export's record interleaves.
    let tell_record = |_: &(Plan, Taken), _: &Notebook| match path.parent() {
        Some(folder) => {
            let folder = if folder.as_os_str().is_empty() { Path::new(".") } else { folder };
            let mut record = crate::documents::export_record::ExportRecord::read(dir, folder).unwrap_or_default();
            record.files.insert(file.clone(), crate::digest::sha256_hex(&bytes));
            record.write(dir, folder).is_ok()
        }
        None => false,
    };
    let ((plan, taken), record_updated, _) =
        crate::notebook::store::change_then(dir, weigh, tell_record).map_err(MergeError::from)?;
    Ok(Merged { plan, taken, record_updated, warnings: own.problems })
}

impl From<crate::notebook::store::ChangeError<MergeError>> for MergeError {
    fn from(e: crate::notebook::store::ChangeError<MergeError>) -> Self {
        match e {
            crate::notebook::store::ChangeError::Load(e) => e.into(),
            crate::notebook::store::ChangeError::Refused(e) => e,
            crate::notebook::store::ChangeError::Save(e) => e.into(),
        }
    }
}

/// The name a workbook is recorded by: its file name, inert.
pub fn file_name(path: &Path) -> String {
    crate::import::from_file::file_name(path)
}

/// Makes a new notebook in `target` from a workbook Vernier wrote (someone
/// else's, sent by e-mail): the notebook it carries, plus the edits its
/// owner's rules allow, recorded as taken in from it. Every run remembers
/// the workbook it was copied from, and a hidden copy that does not match
/// the cells it shows is said in the returned warnings and in the note the
/// notebook starts with (N13). Their file is only read. Returns the plan
/// and what was taken.
pub fn new_notebook(bytes: &[u8], path: &Path, target: &Path, at: DateTime<Utc>) -> Result<Merged, MergeError> {
    let own = crate::documents::measurements::read_own(bytes, &path.display().to_string())?;
    if std::fs::read_dir(target).is_ok_and(|mut d| d.next().is_some()) {
        return Err(MergeError::NotEmpty(target.to_path_buf()));
    }
    crate::notebook::store::create(target, &own.notebook.title, at)?;
    let file = file_name(path);
    let sha = &crate::digest::sha256_hex(bytes)[..12];
    let mut origin = format!(
        "This notebook was made from the workbook {file} (SHA-256 {sha}): its runs' raw files stayed with the \
         workbook's owner."
    );
    for warning in &own.problems {
        origin.push_str(&format!(" WARNING: {}.", inert(warning)));
    }
    let fill = |nb: &mut Notebook| {
        *nb = own.notebook.clone();
        nb.mark_copied_from(&format!("the workbook {file} (SHA-256 {sha}), {}", at.format("%Y-%m-%d %H:%M UTC")));
        let plan = plan(&own, nb, &file);
        let taken = plan.apply(target, nb, at);
        let _ = nb.add_note_from(&origin, None, Some(FROM_SPREADSHEET), Author::Vernier, at);
        Ok::<_, MergeError>((plan, taken))
    };
    let ((plan, taken), _) = crate::notebook::store::change(target, fill)?;
    Ok(Merged { plan, taken, record_updated: false, warnings: own.problems.clone() })
}

/// The runs of a workbook Vernier did not write (D4), each as the run it
/// would become: imported, tagged with the file and row it came from. Rows
/// that cannot be read are left out with why.
pub fn foreign_runs(f: &foreign::Foreign, file: &str) -> (Vec<Prepared>, Vec<String>) {
    let (mut runs, mut refused) = (Vec::new(), Vec::new());
    for run in &f.runs {
        let source = format!("{file}, Runs row {} (# {}; a workbook not written by Vernier)", run.line, run.number);
        match sheet_measurement(run, source, "not recorded: their workbook does not say", "as their workbook says") {
            Ok(measurement) => runs.push(Prepared {
                name: format!("{file}, run {}", run.number),
                text: format!(
                    "# Run {} of {file}, a workbook not written by Vernier, as it was read.\n{run:#?}\n",
                    run.number
                ),
                raw_stem: "import-xlsx",
                raw_extension: "txt",
                format: None,
                build: None,
                boundary: None,
                rows: vec![PreparedRow { measurement, arm: String::new() }],
                pair: None,
                checks: Vec::new(),
                left_out: Vec::new(),
            }),
            Err(why) => refused.push(format!("run {}: {why}", run.number)),
        }
    }
    (runs, refused)
}

/// Takes in the runs of a workbook Vernier did not write into the notebook
/// in `dir`, under its lock; returns the runs recorded and how many were
/// already in (the same file's row with the same numbers).
pub fn take_foreign(dir: &Path, runs: &[Prepared], at: DateTime<Utc>) -> Result<(Vec<u32>, usize), MergeError> {
    // The same row of a file of the same name, with the same numbers: a
    // workbook taken in before. Another classmate's measurements.xlsx, or
    // a row changed since, is new.
    let source_of = |m: &Measurement| {
        m.conditions.iter().find(|c| c.name() == Some(ConditionName::Source)).map(|c| c.value.clone())
    };
    let same = |a: &Measurement, b: &Measurement| {
        source_of(a).is_some()
            && source_of(a) == source_of(b)
            && (&a.what, &a.command, &a.unit, a.tag) == (&b.what, &b.command, &b.unit, b.tag)
            && a.summary == b.summary
    };
    let machine = crate::platform::machine::Machine::read();
    let take = |nb: &mut Notebook| {
        let (fresh, already): (Vec<&Prepared>, Vec<&Prepared>) =
            runs.iter().partition(|p| !nb.runs().iter().any(|r| same(&r.measurement, &p.rows[0].measurement)));
        let mut numbers = Vec::new();
        for prepared in fresh {
            let recorded = prepared.clone().read_here(&machine).record(dir, nb, at)?;
            numbers.extend(recorded.runs);
        }
        Ok::<_, MergeError>((numbers, already.len()))
    };
    Ok(crate::notebook::store::change(dir, take)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::edits::{Value, Visible, compare};
    use crate::documents::measurements::{OwnWorkbook, written};
    use chrono::TimeZone;

    fn at() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).single().expect("a time")
    }

    /// A notebook with one open prediction.
    fn notebook() -> Notebook {
        let mut nb = Notebook::new("t", at());
        let text = PredictionText { experiment: "e".into(), predict: "p".into(), why: "w".into(), figure: None };
        nb.add_prediction(text, at()).expect("P1");
        nb
    }

    /// The workbook of export `id` of `nb`, its visible sheets changed by
    /// `edit`.
    fn workbook(nb: &Notebook, id: &str, edit: impl FnOnce(&mut Vec<Visible>)) -> OwnWorkbook {
        let cells = written(nb);
        let mut visible: Vec<Visible> = cells.iter().map(Visible::from).collect();
        edit(&mut visible);
        let edits = compare(&cells, &visible);
        OwnWorkbook { notebook: nb.clone(), layout: 2, id: id.into(), edits, problems: Vec::new() }
    }

    /// Types `cells` (header, text) as a new row of sheet `name`.
    fn type_row(visible: &mut [Visible], name: &str, cells: &[(&str, &str)]) {
        let sheet = visible.iter_mut().find(|v| v.name == name).expect("the sheet");
        let mut row = vec![Value::Text(String::new()); sheet.headers.len()];
        for (header, text) in cells {
            let k = sheet.headers.iter().position(|h| h == header).expect("the column");
            row[k] = Value::Text((*text).into());
        }
        let line = sheet.rows.len() as u32 + 2;
        sheet.rows.push((line, row));
    }

    // SPEC N12, N14: the outcome and link cells are Vernier's: an edit to
    // them is refused with the reason; a prediction typed with a figure is
    // taken with it, and a bad figure is refused with its reason.
    #[test]
    fn outcome_cells_are_refused_and_a_typed_figure_is_read() {
        let nb = notebook();
        let own = workbook(&nb, "a", |visible| {
            let sheet = visible.iter_mut().find(|v| v.name == "Predictions").expect("Predictions");
            let k = sheet.headers.iter().position(|h| h == "Outcome").expect("Outcome");
            sheet.rows[0].1[k] = Value::Text("held".into());
        });
        let plan_a = plan(&own, &nb, "m.xlsx");
        assert!(plan_a.take.is_empty(), "{plan_a:?}");
        assert_eq!(plan_a.refused.len(), 1);
        assert!(plan_a.refused[0].1.contains("the Outcome cell of P1 is Vernier's"), "{:?}", plan_a.refused);
        let typed = |figure: &'static str| {
            workbook(&nb, "b", move |visible| {
                type_row(
                    visible,
                    "Predictions",
                    &[("Experiment", "e2"), ("What I predict", "3x"), ("Why", "w"), ("Figure", figure)],
                );
            })
        };
        let good = plan(&typed("ratio naive/blocked = 3 ± 50 %"), &nb, "m.xlsx");
        let mut mine = nb.clone();
        assert!(good.apply(Path::new("."), &mut mine, at()).failed.is_empty());
        assert_eq!(
            mine.prediction(2).and_then(|p| p.figure.as_ref()).map(ToString::to_string).as_deref(),
            Some("ratio naive/blocked = 3 ± 50 %")
        );
        let bad = plan(&typed("median 3 ± 50 %"), &nb, "m.xlsx");
        assert!(bad.take.is_empty() && bad.refused[0].1.contains("needs its unit"), "{bad:?}");
    }

    // SPEC N12: an open prediction's rewrite, merged twice, is already in
    // the notebook the second time — not refused as rewritten since
    // (found by the workbook_edits fuzz target).
    #[test]
    fn a_rewrite_merged_twice_is_already_in() {
        let nb = notebook();
        let own = workbook(&nb, "a", |visible| {
            let sheet = visible.iter_mut().find(|v| v.name == "Predictions").expect("Predictions");
            let k = sheet.headers.iter().position(|h| h == "Experiment").expect("Experiment");
            sheet.rows[0].1[k] = Value::Text("MEASURED".into());
        });
        let first = plan(&own, &nb, "m.xlsx");
        assert_eq!(first.take.len(), 1, "{first:?}");
        let mut mine = nb.clone();
        assert!(first.apply(Path::new("."), &mut mine, at()).failed.is_empty());
        let again = plan(&own, &mine, "m.xlsx");
        assert!(again.take.is_empty() && again.refused.is_empty(), "{again:?}");
        assert_eq!(again.already.len(), 1);
    }

    // SPEC N12: rows typed into one export and merged twice are taken once;
    // the same words typed into a later export — or twice into one — are
    // new notes, never dropped as "already in".
    #[test]
    fn the_same_words_typed_again_are_a_new_note() {
        let nb = notebook();
        let note = |visible: &mut Vec<Visible>| type_row(visible, "Notes and anomalies", &[("Note", "fan spun up")]);
        let own = workbook(&nb, "first", |v| {
            note(v);
            note(v);
        });
        let first = plan(&own, &nb, "m.xlsx");
        assert_eq!(first.take.len(), 2, "two rows typed, two notes: {first:?}");
        let mut mine = nb.clone();
        first.apply(Path::new("."), &mut mine, at());
        let again = plan(&own, &mine, "m.xlsx");
        assert_eq!((again.take.len(), again.already.len()), (0, 2), "{again:?}");
        let later = workbook(&mine, "second", note);
        let later = plan(&later, &mine, "m.xlsx");
        assert_eq!(later.take.len(), 1, "typed again in a later export: {later:?}");
    }

    // SPEC N12, N9, E14: a run typed by hand is refused when its IQR is wider
    // than its min–max range; its own conditions never stand for Vernier's
    // (a typed "instrument" is marked as typed).
    #[test]
    fn a_typed_run_is_checked_and_its_conditions_marked_as_typed() {
        let nb = notebook();
        let row = |iqr: &'static str| {
            move |v: &mut Vec<Visible>| {
                type_row(
                    v,
                    "Runs",
                    &[
                        ("What", "stopwatch"),
                        ("Command", "./mm 512"),
                        ("n (warm-up + timed)", "2 + 5"),
                        ("Median", "12 ms"),
                        ("Dispersion", iqr),
                        ("Min / Max", "11 / 13 ms"),
                        ("Conditions", "instrument: my phone; room: cold"),
                    ],
                )
            }
        };
        let wide = plan(&workbook(&nb, "a", row("IQR 900 ms")), &nb, "m.xlsx");
        assert!(wide.refused[0].1.contains("wider than its min–max range"), "{wide:?}");
        let taken = plan(&workbook(&nb, "a", row("IQR 0.5 ms")), &nb, "m.xlsx");
        let Some((_, Action::TypedRun(prepared))) = taken.take.first() else { panic!("taken: {taken:?}") };
        let conditions = &prepared.rows[0].measurement.conditions;
        let named =
            |field: &str| conditions.iter().filter(|c| c.field == field).map(|c| c.value.as_str()).collect::<Vec<_>>();
        assert_eq!(named("instrument"), [TYPED_BY_HAND]);
        assert_eq!(named("instrument (as typed)"), ["my phone"]);
        assert_eq!(named("room"), ["cold"]);
        assert!(prepared.rows[0].measurement.summary.typed);
    }

    // SPEC N2, N12: a value an Environment field cannot hold is refused in
    // the plan, with why, not when it is taken in.
    #[test]
    fn a_value_the_field_cannot_hold_is_refused_in_the_plan() {
        let nb = notebook();
        let own = workbook(&nb, "a", |visible| {
            let env = visible.iter_mut().find(|v| v.name == "Environment").expect("Environment");
            let row = env.rows.iter_mut().find(|(_, r)| r[0] == Value::Text("Workbench".into())).expect("Workbench");
            row.1[1] = Value::Text("Q".into());
        });
        let plan = plan(&own, &nb, "m.xlsx");
        assert!(plan.take.is_empty(), "{plan:?}");
        assert!(plan.refused[0].1.to_lowercase().contains("workbench"), "{plan:?}");
    }
}
