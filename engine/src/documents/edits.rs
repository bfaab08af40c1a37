//! What was changed in a spreadsheet (SPEC N12): the visible sheets of a
//! workbook Vernier wrote, compared cell by cell with what Vernier wrote
//! into them. The workbook keeps that in its hidden sheet — the cells as
//! written ([`Written`]) beside the notebook itself — so the comparison is
//! against the workbook's own layout, whichever Vernier wrote it.
//!
//! A re-save changes no cell: a number is the same when it agrees to the 15
//! significant digits LibreOffice and Excel keep, a line ending is a line
//! ending however it is written, and an empty text cell is no cell.
//!
//! Rows are matched by their key (a row's `#`, an Environment field, a
//! note's time), not by position, so sorting a sheet or typing a row between
//! two others changes nothing but what was typed.

use serde::{Deserialize, Serialize};

/// The value a cell holds, as a comparison needs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A number cell.
    Number(f64),
    /// A text cell (a date, a truth value or an error reads as its text).
    Text(String),
}

impl Value {
    /// True for an empty text cell, which a spreadsheet may drop on saving.
    pub fn is_empty(&self) -> bool {
        matches!(self, Value::Text(t) if t.trim().is_empty())
    }

    /// The value as a person reads it in a list of edits: a number with
    /// every digit it has, a text with its line endings as `\n`.
    pub fn text(&self) -> String {
        match self {
            Value::Number(v) => crate::stats::format_plain(*v),
            Value::Text(t) if t.contains('\r') => t.replace("\r\n", "\n").replace('\r', "\n"),
            Value::Text(t) => t.clone(),
        }
    }

    /// True when a re-save could have turned one into the other: numbers
    /// equal to 15 significant digits (a number typed as text counts as the
    /// number), texts equal up to their line endings.
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Number(a), Value::Number(b)) => same_number(*a, *b),
            (Value::Number(n), Value::Text(t)) | (Value::Text(t), Value::Number(n)) => {
                t.trim().parse::<f64>().is_ok_and(|v| same_number(*n, v))
            }
            (Value::Text(a), Value::Text(b)) if a.contains('\r') || b.contains('\r') => self.text() == other.text(),
            (Value::Text(a), Value::Text(b)) => a == b,
        }
    }
}

/// Significant digits a spreadsheet keeps of a number it saves.
pub const SPREADSHEET_DIGITS: usize = 15;

/// `a` and `b` agree to [`SPREADSHEET_DIGITS`] significant digits: what a
/// number keeps through a re-save by LibreOffice or Excel.
pub fn same_number(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    let digits = |v: f64| format!("{v:.*e}", SPREADSHEET_DIGITS - 1);
    // Rounding to 15 digits can land either side of a tie, so two values
    // a unit in the 15th digit apart are also one number re-saved.
    digits(a) == digits(b) || (a - b).abs() <= 1e-14 * a.abs().max(b.abs())
}

/// One visible sheet as Vernier wrote it: its header row, then each row's
/// cells, column by column. Kept in the hidden sheet (see
/// [`super::measurements::LAYOUT_VERSION`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Written {
    /// The sheet's name.
    pub name: String,
    /// The headers, left to right.
    pub headers: Vec<String>,
    /// Each data row's cells, in the order written.
    pub rows: Vec<Vec<Value>>,
}

/// One visible sheet as it is now: its header row and its data rows, each
/// with its 1-based row number.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Visible {
    /// The sheet's name.
    pub name: String,
    /// The header row (its first row that holds a cell).
    pub headers: Vec<String>,
    /// Each row below the header that holds a cell: its row number as a
    /// spreadsheet shows it, and its cells from column A.
    pub rows: Vec<(u32, Vec<Value>)>,
}

impl From<&Written> for Visible {
    /// The written cells as a spreadsheet shows them, unchanged: rows from
    /// line 2, under the header.
    fn from(w: &Written) -> Self {
        Visible {
            name: w.name.clone(),
            headers: w.headers.clone(),
            rows: w.rows.iter().enumerate().map(|(i, r)| (i as u32 + 2, r.clone())).collect(),
        }
    }
}

/// A change made in a spreadsheet, where it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct SheetEdit {
    /// The sheet.
    pub sheet: String,
    /// The row as a spreadsheet shows it now (1 is the header); for a
    /// deleted row, where Vernier wrote it.
    pub line: u32,
    /// Which written row it touches, by its place among the written rows
    /// (the notebook's order), for a changed or deleted row.
    pub written_row: Option<usize>,
    /// The row's key as written or typed (`2`, `Ambient`), for reading.
    pub key: String,
    /// What changed.
    pub change: SheetChange,
}

/// What an [`SheetEdit`] changed.
#[derive(Debug, Clone, PartialEq)]
pub enum SheetChange {
    /// A cell of a written row: its column's header, the value Vernier
    /// wrote and the one there now (`""` for none).
    Cell {
        /// The column's header.
        column: String,
        /// What Vernier wrote.
        old: String,
        /// What is there now.
        new: String,
    },
    /// A row typed below (or between) the written ones: its cells by header.
    Added(Vec<(String, String)>),
    /// A written row that is no longer there: its cells by header.
    Deleted(Vec<(String, String)>),
    /// A column Vernier wrote whose header is gone.
    ColumnGone(String),
    /// A sheet Vernier wrote that is gone.
    SheetGone,
    /// A sheet Vernier did not write.
    SheetAdded,
}

impl std::fmt::Display for SheetEdit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let quote = |t: &str| format!("“{}”", crate::display::inert(t));
        let key = if self.key.is_empty() { String::new() } else { format!(" ({})", crate::display::inert(&self.key)) };
        let place = format!("{} row {}{key}", crate::display::inert(&self.sheet), self.line);
        let cells = |cells: &[(String, String)]| {
            cells
                .iter()
                .map(|(h, v)| format!("{}: {}", crate::display::inert(h), quote(v)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match &self.change {
            SheetChange::Cell { column, old, new } => {
                write!(f, "{place}, {}: {} → {}", crate::display::inert(column), quote(old), quote(new))
            }
            SheetChange::Added(c) => write!(f, "{place}: a new row: {}", cells(c)),
            SheetChange::Deleted(c) => {
                // The first cells name the row; the rest stay in the log.
                let more = if c.len() > DELETED_CELLS_SHOWN { ", …" } else { "" };
                let shown = &c[..c.len().min(DELETED_CELLS_SHOWN)];
                write!(f, "{place}: the row is gone (it held {}{more})", cells(shown))
            }
            SheetChange::ColumnGone(column) => {
                write!(f, "{}: the column {} is gone", crate::display::inert(&self.sheet), quote(column))
            }
            SheetChange::SheetGone => write!(f, "the sheet {} is gone", quote(&self.sheet)),
            SheetChange::SheetAdded => write!(f, "a sheet Vernier did not write: {}", quote(&self.sheet)),
        }
    }
}

/// How many of a deleted row's cells its edit quotes.
const DELETED_CELLS_SHOWN: usize = 3;

/// The column whose value names a row of `sheet`, so that a row is found
/// wherever it moved; a sheet without one matches rows by their content.
pub(super) fn key_column(sheet: &str) -> &'static str {
    match sheet {
        "Environment" => "Field",
        "Notes and anomalies" => "Time",
        _ => "#",
    }
}

/// Every edit that turns the `written` sheets into the `visible` ones, in
/// the written sheets' order, then sheets Vernier did not write.
pub fn compare(written: &[Written], visible: &[Visible]) -> Vec<SheetEdit> {
    let mut edits = Vec::new();
    for w in written {
        match visible.iter().find(|v| v.name == w.name) {
            Some(v) => compare_sheet(w, v, &mut edits),
            None => edits.push(SheetEdit {
                sheet: w.name.clone(),
                line: 1,
                written_row: None,
                key: String::new(),
                change: SheetChange::SheetGone,
            }),
        }
    }
    for v in visible.iter().filter(|v| !written.iter().any(|w| w.name == v.name)) {
        // A sheet the student added and left empty changes nothing.
        if !v.headers.iter().all(|h| h.trim().is_empty()) || !v.rows.is_empty() {
            edits.push(SheetEdit {
                sheet: v.name.clone(),
                line: 1,
                written_row: None,
                key: String::new(),
                change: SheetChange::SheetAdded,
            });
        }
    }
    edits
}

/// The edits of one sheet; see [`compare`].
fn compare_sheet(w: &Written, v: &Visible, edits: &mut Vec<SheetEdit>) {
    let header = |name: &str| v.headers.iter().position(|h| h.trim() == name);
    // Each written column's place now, if its header is still there.
    let places: Vec<Option<usize>> = w.headers.iter().map(|h| header(h)).collect();
    for (h, place) in w.headers.iter().zip(&places) {
        if place.is_none() && !h.is_empty() {
            edits.push(SheetEdit {
                sheet: w.name.clone(),
                line: 1,
                written_row: None,
                key: String::new(),
                change: SheetChange::ColumnGone(h.clone()),
            });
        }
    }
    // Columns typed beside the written ones.
    let extra: Vec<usize> =
        (0..v.headers.len()).filter(|k| !w.headers.iter().any(|h| h == v.headers[*k].trim())).collect();
    // A row's cell in column `k`; a missing one is empty.
    fn at(row: &[Value], k: usize) -> &Value {
        row.get(k).unwrap_or(&EMPTY)
    }
    let key_at = w.headers.iter().position(|h| h == key_column(&w.name));
    let written_key = |row: &[Value]| key_at.map(|k| at(row, k).clone());
    let visible_key = |row: &[Value]| key_at.and_then(|k| places[k]).map_or(&EMPTY, |k| at(row, k)).clone();
    // A visible row is the written one when every written column agrees.
    let same_row = |written: &[Value], visible: &[Value]| {
        places.iter().enumerate().all(|(k, place)| place.is_none_or(|p| same_cell(at(written, k), at(visible, p))))
    };
    // First the rows that are unchanged, then the ones that share a key,
    // each found through its canonical form (see `Buckets`), so a sheet of
    // any length is matched in one pass.
    let written_cells = |row: &[Value]| -> Vec<String> {
        places.iter().enumerate().filter(|(_, p)| p.is_some()).map(|(k, _)| canonical(at(row, k))).collect()
    };
    let visible_cells =
        |row: &[Value]| -> Vec<String> { places.iter().flatten().map(|&p| canonical(at(row, p))).collect() };
    let mut taken = vec![false; v.rows.len()];
    let mut matched: Vec<Option<usize>> = vec![None; w.rows.len()];
    let mut whole = Buckets::new(v.rows.iter().map(|(_, cells)| visible_cells(cells)));
    for (i, row) in w.rows.iter().enumerate() {
        matched[i] = whole.take(&written_cells(row), &mut taken, |j| same_row(row, &v.rows[j].1));
    }
    let mut keyed = Buckets::new(v.rows.iter().map(|(_, cells)| canonical(&visible_key(cells))));
    for (i, row) in w.rows.iter().enumerate() {
        let Some(key) = written_key(row).filter(|key| !key.is_empty()) else { continue };
        if matched[i].is_none() {
            matched[i] = keyed.take(&canonical(&key), &mut taken, |j| same_cell(&key, &visible_key(&v.rows[j].1)));
        }
    }
    let key_text = |key: Option<Value>| key.map(|k| row_label(&w.name, &k)).unwrap_or_default();
    for (i, row) in w.rows.iter().enumerate() {
        let Some(j) = matched[i] else {
            let cells = w.headers.iter().enumerate().map(|(k, h)| (h.clone(), at(row, k).text()));
            edits.push(SheetEdit {
                sheet: w.name.clone(),
                line: i as u32 + 2,
                written_row: Some(i),
                key: key_text(written_key(row)),
                change: SheetChange::Deleted(cells.filter(|(_, v)| !v.trim().is_empty()).collect()),
            });
            continue;
        };
        let (line, cells) = &v.rows[j];
        let mut changed = |column: &str, old: &Value, new: &Value| {
            edits.push(SheetEdit {
                sheet: w.name.clone(),
                line: *line,
                written_row: Some(i),
                key: key_text(written_key(row)),
                change: SheetChange::Cell { column: column.to_owned(), old: old.text(), new: new.text() },
            });
        };
        for (k, place) in places.iter().enumerate() {
            if let Some(p) = place
                && !same_cell(at(row, k), at(cells, *p))
            {
                changed(&w.headers[k], at(row, k), at(cells, *p));
            }
        }
        for &k in &extra {
            if !at(cells, k).is_empty() {
                changed(v.headers[k].trim(), &EMPTY, at(cells, k));
            }
        }
    }
    for (j, (line, cells)) in v.rows.iter().enumerate() {
        if taken[j] {
            continue;
        }
        let typed: Vec<(String, String)> = v
            .headers
            .iter()
            .enumerate()
            .map(|(k, h)| (h.trim().to_owned(), at(cells, k)))
            .chain(cells.iter().enumerate().skip(v.headers.len()).map(|(k, c)| (format!("column {}", k + 1), c)))
            .filter(|(_, c)| !c.is_empty())
            .map(|(h, c)| (h, c.text()))
            .collect();
        if typed.is_empty() {
            continue;
        }
        edits.push(SheetEdit {
            sheet: w.name.clone(),
            line: *line,
            written_row: None,
            key: key_text(Some(visible_key(cells))),
            change: SheetChange::Added(typed),
        });
    }
}

/// A row's key as the log names the row: `P2`, `run 3`, `S1`, `C1`, `W2`
/// for a number in a sheet of numbered rows, else the key's text.
pub fn row_label(sheet: &str, key: &Value) -> String {
    let prefix = match sheet {
        "Predictions" => "P",
        "Runs" => "run ",
        "Soak runs" => "S",
        "Comparisons" => "C",
        "Sweeps" => "W",
        _ => "",
    };
    match key {
        Value::Number(n) if !prefix.is_empty() && n.fract() == 0.0 && (1.0..=f64::from(u32::MAX)).contains(n) => {
            format!("{prefix}{n}")
        }
        _ => key.text(),
    }
}

/// A value's canonical form: equal for two values [`Value::same`] finds
/// the same (but for numbers at a 15-digit rounding tie), so rows are
/// looked up by it and only then compared.
fn canonical(value: &Value) -> String {
    let number = |n: f64| format!("n{n:.*e}", SPREADSHEET_DIGITS - 1);
    match value {
        Value::Number(n) => number(*n),
        Value::Text(t) if t.trim().is_empty() => String::new(),
        Value::Text(t) => match t.trim().parse::<f64>() {
            Ok(n) if n.is_finite() => number(n),
            _ => format!("t{}", value.text()),
        },
    }
}

/// How many rows that share a canonical form a lookup compares before it
/// gives up: rows alike in form are almost always the same, so a few
/// suffice, and a hostile sheet of look-alike rows stays linear.
const CANDIDATES: usize = 8;

/// Visible rows by a canonical form, in order, to find a written row's
/// match without comparing it with every row.
struct Buckets<K> {
    rows: std::collections::HashMap<K, std::collections::VecDeque<usize>>,
}

impl<K: std::hash::Hash + Eq> Buckets<K> {
    /// The rows, numbered in order, by their forms.
    fn new(forms: impl Iterator<Item = K>) -> Self {
        let mut rows: std::collections::HashMap<K, std::collections::VecDeque<usize>> =
            std::collections::HashMap::new();
        for (j, form) in forms.enumerate() {
            rows.entry(form).or_default().push_back(j);
        }
        Self { rows }
    }

    /// The first row of form `form` not yet `taken` that `same` accepts,
    /// marked taken.
    fn take(&mut self, form: &K, taken: &mut [bool], same: impl Fn(usize) -> bool) -> Option<usize> {
        let bucket = self.rows.get_mut(form)?;
        while bucket.front().is_some_and(|&j| taken[j]) {
            bucket.pop_front();
        }
        let at = bucket.iter().take(CANDIDATES).position(|&j| !taken[j] && same(j))?;
        let j = bucket.remove(at)?;
        taken[j] = true;
        Some(j)
    }
}

/// What a missing cell holds.
static EMPTY: Value = Value::Text(String::new());

/// Two cells hold the same thing: [`Value::same`], with an empty text cell
/// the same as a missing one.
fn same_cell(a: &Value, b: &Value) -> bool {
    (a.is_empty() && b.is_empty()) || a.same(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> Value {
        Value::Text(t.to_owned())
    }

    fn notes(rows: &[(&str, &str)]) -> Written {
        Written {
            name: "Notes and anomalies".into(),
            headers: vec!["Time".into(), "Note".into()],
            rows: rows.iter().map(|(t, n)| vec![text(t), text(n)]).collect(),
        }
    }

    // SPEC N12: a re-save keeps 15 significant digits; that is no edit.
    #[test]
    fn fifteen_digits_are_the_same_number() {
        let v = 0.000_324_145_500_000_001_1_f64;
        let resaved: f64 = format!("{v:.14e}").parse().expect("number");
        assert!(same_number(v, resaved));
        assert!(same_number(1.0 / 3.0, 0.333_333_333_333_333));
        assert!(!same_number(0.0123, 0.0124));
        assert!(!same_number(1.0, 1.000_000_001));
        assert!(!same_number(f64::NAN, f64::NAN));
        assert!(Value::Number(22.0).same(&text("22")));
        assert!(text("a\r\nb").same(&text("a\nb")));
        assert!(!text("a").same(&text("A")));
    }

    // SPEC N12: an unchanged sheet has no edit, however its rows are sorted.
    #[test]
    fn an_unchanged_or_sorted_sheet_has_no_edit() {
        let w = notes(&[("2026-12-01 10:00:00 UTC", "one"), ("2026-12-01 10:05:00 UTC", "two")]);
        assert_eq!(compare(std::slice::from_ref(&w), &[Visible::from(&w)]), []);
        let mut sorted = Visible::from(&w);
        sorted.rows.reverse();
        assert_eq!(compare(std::slice::from_ref(&w), &[sorted]), []);
    }

    // SPEC N12: a changed cell, a typed row and a deleted row are each named
    // with their sheet, row and column.
    #[test]
    fn changes_are_listed_cell_by_cell() {
        let w = notes(&[("t1", "one"), ("t2", "two")]);
        let mut v = Visible::from(&w);
        v.rows[0].1[1] = text("one, edited");
        v.rows.remove(1);
        v.rows.push((7, vec![text(""), text("fan noise")]));
        let edits = compare(std::slice::from_ref(&w), &[v]);
        let shown: Vec<String> = edits.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "Notes and anomalies row 2 (t1), Note: “one” → “one, edited”",
                "Notes and anomalies row 3 (t2): the row is gone (it held Time: “t2”, Note: “two”)",
                "Notes and anomalies row 7: a new row: Note: “fan noise”",
            ]
        );
        assert_eq!(edits[0].written_row, Some(0));
        assert_eq!(edits[1].written_row, Some(1));
        assert_eq!(edits[2].written_row, None);
    }

    // SPEC N12: a column or sheet removed, and a sheet added, are edits too.
    #[test]
    fn structure_changes_are_edits() {
        let w = notes(&[("t1", "one")]);
        let mut v = Visible::from(&w);
        v.headers.truncate(1);
        for (_, r) in &mut v.rows {
            r.truncate(1);
        }
        let extra = Visible { name: "Mine".into(), headers: vec!["x".into()], rows: vec![] };
        let edits = compare(std::slice::from_ref(&w), &[v, extra]);
        assert!(matches!(&edits[0].change, SheetChange::ColumnGone(c) if c == "Note"), "{edits:?}");
        assert!(matches!(edits[1].change, SheetChange::SheetAdded));
        assert!(matches!(compare(&[w], &[])[0].change, SheetChange::SheetGone));
    }
}
