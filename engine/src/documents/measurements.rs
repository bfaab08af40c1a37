//! `measurements.xlsx` (SPEC D3, D4): one sheet per notebook section with
//! the exact column names, numbers stored as numbers, frozen headers and a
//! protected Predictions sheet. Every text goes in as a string — a note that
//! begins with `=` stays text, never a formula. A hidden sheet carries the
//! notebook itself, so Vernier reopens its own workbook with nothing lost.
//!
//! Each sheet is described once, as a [`Sheet`]: its columns in order, each
//! knowing its header and how to fill its cell. No column number is written
//! anywhere else, so a column added to a sheet moves its header and cells
//! together. Every text cell is cut to what a cell holds (see `visible`).
//!
//! The workbook is also read on paper: every number cell carries a number
//! format showing the digits S6 allows (the cell keeps them all), columns are
//! as wide as their cells need and share the page so a sheet prints one page
//! wide at 8.25 pt or larger, longer text wraps (each row as tall as its
//! wrapped text), and the header row repeats on every printed page.

use std::io::Cursor;

use calamine::{Data, Reader, Xlsx};
use rust_xlsxwriter::{Format, FormatAlign, FormatBorder, ProtectionOptions, Workbook, Worksheet, XlsxError};

use super::edits::{SheetEdit, Value, Visible, Written};

use super::packed;
use crate::notebook::store::{from_bytes, from_compact, to_compact};
use crate::notebook::{
    EnvField, LoadError, Note, Notebook, Pair, Prediction, PredictionColumn, RowParts, Run, RunColumn, Soak,
    SoakColumn, SoakProtocol, Sweep,
};
use crate::shared_work;

/// Name of the hidden sheet holding the notebook's own text.
pub const EMBED_SHEET: &str = "vernier";
/// The layout this build writes, kept in the hidden sheet with the cells as
/// written (N12). Version 1 (no number) wrote no cells and had no Source
/// column under Notes; version 2 keeps both; version 3 ends each run's
/// Conditions with its timing boundary (S16); version 4 states what every
/// run shares on a line above the Runs table and, in each row's Conditions,
/// only what differs (D8); version 5 keeps the numbers of each unit in
/// columns of their own ("Median (ms)", "Median (ns/access)"), where
/// version 4 had one value column beside a Unit column. A workbook of an
/// earlier version is compared with the cells it kept, never re-derived.
pub const LAYOUT_VERSION: u32 = 5;

/// The hidden sheet's column of the notebook's text, of the layout version
/// and of the cells as written (as JSON), each cut into cells.
const NOTEBOOK_COLUMN: u16 = 0;
const LAYOUT_COLUMN: u16 = 1;
const WRITTEN_COLUMN: u16 = 2;
/// How the notebook's text and the cells are packed ([`packed`]); empty
/// in a workbook that holds them as they are.
const PACKING_COLUMN: u16 = 3;
/// The words of a prediction, which may change while it is open (N4).
pub const PREDICTION_TEXT: [&str; 3] = ["Experiment", "What I predict", "Why"];
/// What a prediction typed below the others is read from: its words and
/// the figure it commits to (N12, N14).
pub const TYPED_PREDICTION: [&str; 4] = ["Experiment", "What I predict", "Why", PREDICTION_FIGURE];
/// The committed figure's column (N14).
pub const PREDICTION_FIGURE: &str = "Figure";
/// The columns Vernier computes from the rows that answer a prediction
/// (N14): protected, and an edit to them is refused by merge (N12).
pub const PREDICTION_OUTCOME: [&str; 2] = ["Answered by", "Outcome"];
/// The Runs columns a row typed by hand is written in (N12): the course's
/// own, each number with its unit in the text ("12.3 ms").
pub const TYPED_RUN_COLUMNS: [&str; 9] =
    ["#", "What", "Command", "n (warm-up + timed)", "Median", "Dispersion", "Min / Max", "Conditions", "Tag"];
/// The columns layout 4 also left open for a typed row — a unit and the
/// numbers in it, one column for every unit — still read from a workbook
/// of that layout.
pub const TYPED_RUN_NUMBERS_OF_LAYOUT_4: [&str; 5] = ["Unit", "Median (value)", "IQR (value)", "Min", "Max"];
/// The visible sheets, in the order they are written.
pub const SHEETS: [&str; 7] =
    ["Environment", "Predictions", "Runs", "Comparisons", "Sweeps", "Soak runs", "Notes and anomalies"];
/// Excel's limit on the text in one cell.
const CELL_LIMIT: usize = 32_000;

/// What one workbook cell holds: text, or a number a spreadsheet can
/// compute with (D3).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Written as a string, never as a formula.
    Text(String),
    /// Written as a number with every digit it has, shown as [`Shown`] says.
    Number(f64, Shown),
}

/// How a spreadsheet shows a number cell. The cell keeps the full value
/// (SPEC S6: raw values keep full precision); its number format shows the
/// digits a person should read, so a printed sheet says `0.0003241`, not
/// `0.0003241455000000011`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shown {
    /// The spreadsheet's General format, for numbers a person chose or
    /// counted (a protocol's seconds, a number of points).
    General,
    /// At this decimal place: the one S6 gives the row's dispersion (see
    /// `at_place`). A place left of the units (an IQR of 1200) shows as a
    /// whole number, since a number format cannot round to tens.
    Places(i32),
    /// A signed percentage with this many decimals, as drift is written
    /// (S5, S12): the fraction 0.012 shows as `+1.2%`.
    Percent(i32),
    /// Seconds, every digit as a person set them or a soak sampled them:
    /// `40 s`.
    Seconds,
    /// A row number after its section's letter (`S1`, `C2`; no letter for
    /// a run): the label a person reads, a number a spreadsheet sorts by.
    Whole(&'static str),
}

impl Shown {
    /// Excel's limit on the decimals of a number format.
    const MAX_PLACES: i32 = 30;
    /// Characters Excel's General format shows of a number in a cell.
    const GENERAL_CHARS: usize = 11;

    /// The cell's number format, or `None` for General.
    fn format(self) -> Option<String> {
        let digits = |places: i32| match places.min(Self::MAX_PLACES) {
            p if p > 0 => format!("0.{}", "0".repeat(p.unsigned_abs() as usize)),
            _ => "0".to_owned(),
        };
        match self {
            Shown::General => None,
            Shown::Places(places) => Some(digits(places)),
            Shown::Percent(places) => {
                let d = digits(places);
                Some(format!("+{d}%;-{d}%;{d}%"))
            }
            Shown::Seconds => Some("General\" s\"".to_owned()),
            Shown::Whole("") => Some("0".to_owned()),
            Shown::Whole(letter) => Some(format!("\"{letter}\"0")),
        }
    }

    /// `value` about as the spreadsheet shows it, to size its column: a
    /// number cell cannot wrap, and one wider than its column shows `###`.
    fn text(self, value: f64) -> String {
        match self {
            Shown::General => crate::stats::format_plain(value).chars().take(Self::GENERAL_CHARS).collect(),
            Shown::Places(places) => crate::stats::format_at(value, places.clamp(0, Self::MAX_PLACES)),
            Shown::Percent(_) => crate::stats::format_percent_change(value),
            Shown::Seconds => format!("{} s", Shown::General.text(value)),
            Shown::Whole(letter) => format!("{letter}{value:.0}"),
        }
    }
}

/// `value` at the decimal place S6 gives `dispersion`: the digits the row's
/// Median, Dispersion and Min / Max show, here in the stored unit; every
/// digit when the dispersion is zero and gives no place.
fn at_place(value: f64, dispersion: f64) -> Cell {
    Cell::Number(value, crate::stats::decimals_for_dispersion(dispersion).map_or(Shown::General, Shown::Places))
}

/// A median of the row's work (SPEC E13) at its IQR's place; empty where
/// the row has none.
fn work_median(run: &Run, pick: fn(&crate::notebook::Work) -> Option<&crate::stats::Summary>) -> Cell {
    optional(run.measurement.work.as_ref().and_then(pick).map(|s| at_place(s.median, s.iqr)))
}

/// A row number as a number cell (D3), shown after its section's letter.
fn whole(number: u32, letter: &'static str) -> Cell {
    Cell::Number(f64::from(number), Shown::Whole(letter))
}

/// The unit a run's figures are kept in.
fn run_unit(run: &Run) -> &str {
    &run.measurement.unit
}

/// The unit a comparison's medians and IQRs are in.
fn pair_unit(pair: &Pair) -> &str {
    &pair.verdict.unit
}

/// The unit a soak's P, S and tail IQR are in.
fn soak_unit(soak: &Soak) -> &str {
    &soak.numbers.unit
}

/// A cell, or an empty text cell when there is none.
fn optional(cell: Option<Cell>) -> Cell {
    cell.unwrap_or_else(|| Cell::Text(String::new()))
}

/// How a column fills its cell from a row, the notebook around it and the
/// row's [`RowFigures`].
type Fill<R> = Box<dyn Fn(&R, &Notebook, &RowFigures) -> Cell + Send + Sync>;

/// A run's [`Figures`](crate::stats::units::Figures), worked out once for
/// the row's figure columns (Median, Dispersion, Min / Max: each a 10 000th
/// of a semester's workbook, issue 50); never made for a row of another
/// kind.
pub type RowFigures = std::cell::OnceCell<crate::stats::units::Figures>;

/// The unit a row's numbers are kept in.
type UnitOf<R> = for<'a> fn(&'a R) -> &'a str;

/// One column of a sheet: its header and how a row fills its cell.
pub struct SheetColumn<R> {
    header: &'static str,
    fill: Fill<R>,
    /// For numbers kept in their row's unit: that unit. Such a column is
    /// written once per unit the rows are in, headed "Median (ms)", each
    /// holding only its unit's rows: one unit per numeric column, so a
    /// spreadsheet's sum or chart over a column never adds ms to ns/access.
    unit: Option<UnitOf<R>>,
}

impl<R> SheetColumn<R> {
    /// A column whose cells are text or numbers, row by row.
    pub fn new(header: &'static str, fill: impl Fn(&R, &Notebook) -> Cell + Send + Sync + 'static) -> Self {
        Self { header, fill: Box::new(move |row, nb, _| fill(row, nb)), unit: None }
    }

    /// A column of text cells drawn from the row's [`RowFigures`].
    fn with_figures(header: &'static str, text: impl Fn(&R, &RowFigures) -> String + Send + Sync + 'static) -> Self {
        Self { header, fill: Box::new(move |row, _, figures| Cell::Text(text(row, figures))), unit: None }
    }

    /// Numbers in their row's `unit`: one column per unit the rows are in
    /// (see [`SheetColumn`]); consecutive ones are grouped by unit.
    pub fn in_unit(header: &'static str, unit: UnitOf<R>, number: impl Fn(&R) -> Cell + Send + Sync + 'static) -> Self {
        Self { header, fill: Box::new(move |row, _, _| number(row)), unit: Some(unit) }
    }

    /// A column of text cells.
    pub fn text(header: &'static str, text: impl Fn(&R, &Notebook) -> String + Send + Sync + 'static) -> Self {
        Self::new(header, move |row, nb| Cell::Text(text(row, nb)))
    }

    /// A column of number cells in the General format.
    pub fn number(header: &'static str, number: impl Fn(&R) -> f64 + Send + Sync + 'static) -> Self {
        Self::new(header, move |row, _| Cell::Number(number(row), Shown::General))
    }
}

/// A sheet described once: its columns in order. A column's number in the
/// workbook is its index in `columns`, so adding, moving or removing a
/// column here moves its header and every cell together.
pub struct Sheet<R> {
    /// The columns, left to right.
    pub columns: Vec<SheetColumn<R>>,
    /// Which rows were set aside (N5): they stay, struck through.
    set_aside: fn(&R) -> bool,
    /// Which cells of a written row may be edited in the spreadsheet (N12):
    /// the row, the notebook and the column's header. Every other written
    /// cell is protected.
    open: fn(&R, &Notebook, &str) -> bool,
    /// The columns open for typing in the empty rows below the written
    /// ones (N12): what a new row of the section is read from.
    typable: &'static [&'static str],
}

impl<R> Sheet<R> {
    /// A sheet whose columns are `columns`, every cell protected.
    pub fn new(columns: impl IntoIterator<Item = SheetColumn<R>>) -> Self {
        Self { columns: columns.into_iter().collect(), set_aside: |_| false, open: |_, _, _| false, typable: &[] }
    }

    /// The same sheet, striking through the rows `set_aside` picks, as the
    /// log shows a discarded row (N5).
    fn struck_when(self, set_aside: fn(&R) -> bool) -> Self {
        Self { set_aside, ..self }
    }

    /// The same sheet with the cells the log's rules let a spreadsheet
    /// change left open (N12, D3): `open` picks them in the written rows,
    /// `typable` names the columns open in the empty rows below.
    fn open_where(self, open: fn(&R, &Notebook, &str) -> bool, typable: &'static [&'static str]) -> Self {
        Self { open, typable, ..self }
    }

    /// The index of the column headed `header`, if the sheet has one.
    pub fn position(&self, header: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.header == header)
    }

    /// The columns as written for `rows`: each column in its place, but a
    /// run of consecutive [`SheetColumn::in_unit`] columns repeated for every
    /// unit the rows are in (in the order they first appear), each copy
    /// with that unit.
    fn expanded<'s>(&'s self, rows: &'s [R]) -> Vec<(String, &'s SheetColumn<R>, Option<&'s str>)>
    where
        R: 's,
    {
        let mut out = Vec::new();
        let mut k = 0;
        while k < self.columns.len() {
            let column = &self.columns[k];
            let Some(unit) = column.unit else {
                out.push((column.header.to_owned(), column, None));
                k += 1;
                continue;
            };
            let group = self.columns[k..].iter().take_while(|c| c.unit.is_some()).count();
            let mut units: Vec<&str> = Vec::new();
            for row in rows {
                let u = unit(row);
                if !units.contains(&u) {
                    units.push(u);
                }
            }
            for u in units {
                for column in &self.columns[k..k + group] {
                    out.push((format!("{} ({u})", column.header), column, Some(u)));
                }
            }
            k += group;
        }
        out
    }
}

/// The workbook's visible sheets: one per notebook section (N2), in the
/// log's order, with the comparisons beside the Runs they pair (S11). [`Layout::default`] is the course's layout; [`write()`]
/// uses it.
pub struct Layout {
    /// Environment: field | value.
    pub environment: Sheet<EnvField>,
    /// The Predictions section's columns, then Amends and Locked.
    pub predictions: Sheet<Prediction>,
    /// The Runs section's columns (figures in their display unit, S12), then
    /// the stored unit and the figures in it as numbers, the discard's
    /// reason, the sweep and the comparison partner.
    pub runs: Sheet<Run>,
    /// Each interleaved comparison: its two runs, labels, verdict, paired
    /// ratio and order effect.
    pub comparisons: Sheet<Pair>,
    /// Each parameter scan: its runs, command and parameters (E16); every
    /// Runs row of one names it in its Sweep column.
    pub sweeps: Sheet<Sweep>,
    /// The Soak runs section's columns (the protocol and numbers as
    /// numbers), the numbers' unit, the rest of the protocol, the discard's
    /// reason.
    pub soaks: Sheet<Soak>,
    /// Notes and anomalies: time | note.
    pub notes: Sheet<Note>,
}

impl Default for Layout {
    fn default() -> Self {
        Self {
            environment: Sheet::new([
                SheetColumn::text("Field", |f: &EnvField, _| f.label().to_owned()),
                SheetColumn::text("Value", |f: &EnvField, nb| nb.environment().get(*f)),
                // Rows keep what was stated when they ran (N9).
                SheetColumn::text("Rows measured with another value", |f: &EnvField, nb| {
                    nb.stated_hint(*f).unwrap_or_default()
                }),
            ])
            // N12: every field's value may be changed at any time.
            .open_where(|_, _, header| header == "Value", &[]),
            predictions: Sheet::new(
                PredictionColumn::ALL
                    .map(|c| match c {
                        PredictionColumn::Number => {
                            SheetColumn::new(c.header(), |p: &Prediction, _| whole(p.number, "P"))
                        }
                        _ => SheetColumn::text(c.header(), move |p: &Prediction, _| p.cell(c)),
                    })
                    .into_iter()
                    .chain([
                        SheetColumn::text("Amends", |p: &Prediction, _| {
                            p.amends.as_ref().map(|a| format!("P{}: “{}”", a.of, a.quote)).unwrap_or_default()
                        }),
                        SheetColumn::text("Locked", |p: &Prediction, nb| {
                            nb.lock_of(p).map(|l| l.short()).unwrap_or_default()
                        }),
                        // T1: a soak's protocol is visible with its prediction, before the run.
                        SheetColumn::text("Soak protocol", |p: &Prediction, _| {
                            p.protocol.as_ref().map(SoakProtocol::describe).unwrap_or_default()
                        }),
                        // N14: the figure committed, what answered it, predicted against observed.
                        SheetColumn::text(PREDICTION_FIGURE, |p: &Prediction, _| {
                            p.figure.as_ref().map(ToString::to_string).unwrap_or_default()
                        }),
                        SheetColumn::text(PREDICTION_OUTCOME[0], |p: &Prediction, nb| {
                            let rows = nb.scored_against(p.number);
                            rows.iter().map(|s| s.answer.by.to_string()).collect::<Vec<_>>().join("; ")
                        }),
                        SheetColumn::text(PREDICTION_OUTCOME[1], |p: &Prediction, nb| nb.outcome_text(p.number)),
                    ]),
            )
            // N4, N12: an open prediction's words may change; a locked one
            // is sealed. A new prediction is typed below.
            .open_where(
                |p, nb, header| nb.lock_of(p).is_none() && PREDICTION_TEXT.contains(&header),
                &TYPED_PREDICTION,
            ),
            runs: Sheet::new(
                RunColumn::ALL
                    .map(|c| match c {
                        // A number (D3); a discarded run says so in Discarded
                        // and is struck through (N5).
                        RunColumn::Number => SheetColumn::new(c.header(), |r: &Run, _| whole(r.number, "")),
                        // Filled for the whole table at once by
                        // `conditions_once`, which works each row's parts
                        // out once (10 000 rows in a semester, issue 50).
                        RunColumn::Conditions => SheetColumn::text(c.header(), |_: &Run, _| String::new()),
                        _ => SheetColumn::with_figures(c.header(), move |r: &Run, figures| r.cell_with(c, figures)),
                    })
                    .into_iter()
                    .chain([
                        // The figures as numbers, in the unit the row keeps.
                        SheetColumn::in_unit("Median", run_unit, |r: &Run| {
                            at_place(r.measurement.summary.median, r.measurement.summary.iqr)
                        }),
                        SheetColumn::in_unit("IQR", run_unit, |r: &Run| {
                            at_place(r.measurement.summary.iqr, r.measurement.summary.iqr)
                        }),
                        SheetColumn::in_unit("Min", run_unit, |r: &Run| {
                            at_place(r.measurement.summary.min, r.measurement.summary.iqr)
                        }),
                        SheetColumn::in_unit("Max", run_unit, |r: &Run| {
                            at_place(r.measurement.summary.max, r.measurement.summary.iqr)
                        }),
                        // S5 as a fraction (0.012 for +1.2 %); empty where there is none.
                        SheetColumn::new("Drift (value)", |r: &Run, _| {
                            optional(
                                r.measurement
                                    .summary
                                    .drift
                                    .map(|d| Cell::Number(d, Shown::Percent(crate::stats::percent_places(d)))),
                            )
                        }),
                        SheetColumn::text("Discarded", |r: &Run, _| {
                            r.discarded.as_ref().map(|d| d.reason.clone()).unwrap_or_default()
                        }),
                        // SPEC E16: the sweep a row is a point of, and its values.
                        SheetColumn::text("Sweep", |r: &Run, nb| {
                            nb.sweep_of(r.number)
                                .map(|s| format!("{} · {}", s.label(), s.point_text(r.number).unwrap_or_default()))
                                .unwrap_or_default()
                        }),
                        // S11: the two arms stay together in every view; on
                        // paper, each row names the other.
                        SheetColumn::text("Compared with", |r: &Run, nb| compared_with(r.number, nb)),
                        // SPEC E13: what the timed trials did besides taking
                        // time — medians at the place their IQR allows (S6).
                        SheetColumn::new("CPU time (s)", |r: &Run, _| work_median(r, |w| w.cpu_s.as_ref())),
                        SheetColumn::new("Cycles", |r: &Run, _| work_median(r, |w| w.cycles.as_ref())),
                        SheetColumn::new("Instructions", |r: &Run, _| work_median(r, |w| w.instructions.as_ref())),
                    ]),
            )
            .struck_when(|r| r.discarded.is_some())
            // N5, N9, N12: a run keeps what it measured; only a reason to set
            // it aside may be written, once. A run typed by hand goes below.
            .open_where(|r, _, header| header == "Discarded" && r.discarded.is_none(), &TYPED_RUN_COLUMNS),
            comparisons: Sheet::new([
                SheetColumn::new("#", |p: &Pair, _| whole(p.number, "C")),
                SheetColumn::text("What", |p: &Pair, _| p.what.clone()),
                SheetColumn::new("Run A", |p: &Pair, _| whole(p.runs[0], "")),
                SheetColumn::new("Run B", |p: &Pair, _| whole(p.runs[1], "")),
                SheetColumn::text("Label A", |p: &Pair, _| p.labels[0].clone()),
                SheetColumn::text("Label B", |p: &Pair, _| p.labels[1].clone()),
                SheetColumn::text("Verdict (S7)", |p: &Pair, nb| p.evidence(nb).verdict_cell()),
                SheetColumn::text("Paired B/A", |p: &Pair, nb| p.evidence(nb).paired_line().unwrap_or_default()),
                SheetColumn::text("Order", |p: &Pair, nb| p.evidence(nb).order_line().unwrap_or_default()),
                SheetColumn::in_unit("Median A", pair_unit, |p: &Pair| at_place(p.verdict.median_a, p.verdict.iqr_a)),
                SheetColumn::in_unit("Median B", pair_unit, |p: &Pair| at_place(p.verdict.median_b, p.verdict.iqr_b)),
                SheetColumn::in_unit("IQR A", pair_unit, |p: &Pair| at_place(p.verdict.iqr_a, p.verdict.iqr_a)),
                SheetColumn::in_unit("IQR B", pair_unit, |p: &Pair| at_place(p.verdict.iqr_b, p.verdict.iqr_b)),
                SheetColumn::new("Paired B/A median", |p: &Pair, _| {
                    optional(p.paired.as_ref().map(|s| at_place(s.median, s.iqr)))
                }),
                SheetColumn::new("Paired B/A IQR", |p: &Pair, _| {
                    optional(p.paired.as_ref().map(|s| at_place(s.iqr, s.iqr)))
                }),
            ]),
            sweeps: Sheet::new([
                SheetColumn::new("#", |s: &Sweep, _| whole(s.number, "W")),
                SheetColumn::text("What", |s: &Sweep, _| s.what.clone()),
                SheetColumn::text("Command", |s: &Sweep, _| crate::display::quote_argv(&s.template)),
                SheetColumn::text("Parameters", |s: &Sweep, _| s.params_text()),
                SheetColumn::text("Runs", |s: &Sweep, _| s.runs_text()),
                SheetColumn::number("Points", |s: &Sweep| s.runs.len() as f64),
                SheetColumn::text("Order", |_: &Sweep, _| {
                    "one trial of every point per round, the order rotated by one each round".to_owned()
                }),
            ]),
            soaks: Sheet::new(
                SoakColumn::ALL
                    .map(|c| SheetColumn::new(c.header(), move |s: &Soak, _| soak_cell(s, c)))
                    .into_iter()
                    .chain([
                        // P, S and the tail IQR as numbers, in the soak's unit.
                        SheetColumn::in_unit("P", soak_unit, |s: &Soak| at_place(s.numbers.peak, s.numbers.tail_iqr)),
                        SheetColumn::in_unit("S", soak_unit, |s: &Soak| {
                            at_place(s.numbers.sustained, s.numbers.tail_iqr)
                        }),
                        SheetColumn::in_unit("Tail IQR", soak_unit, |s: &Soak| {
                            at_place(s.numbers.tail_iqr, s.numbers.tail_iqr)
                        }),
                        // T1: the protocol the soak ran under, beside its numbers.
                        SheetColumn::number("Opening window (s)", |s: &Soak| s.protocol.opening_window_s),
                        SheetColumn::number("Tail window (s)", |s: &Soak| s.protocol.tail_window_s),
                        SheetColumn::number("Threshold (of P)", |s: &Soak| s.protocol.threshold),
                        SheetColumn::number("Hold (samples)", |s: &Soak| f64::from(s.protocol.hold)),
                        SheetColumn::number("Band", |s: &Soak| s.protocol.band),
                        SheetColumn::text("Discarded", |s: &Soak, _| {
                            s.discarded.as_ref().map(|d| d.reason.clone()).unwrap_or_default()
                        }),
                    ]),
            )
            .struck_when(|s| s.discarded.is_some())
            // A soak is recorded from its samples, never typed: only a reason
            // to set one aside may be written.
            .open_where(|s, _, header| header == "Discarded" && s.discarded.is_none(), &[]),
            notes: Sheet::new([
                SheetColumn::text("Time", |n: &Note, _| n.at.format("%Y-%m-%d %H:%M:%S UTC").to_string()),
                SheetColumn::text("Note", |n: &Note, _| n.text.clone()),
                // N12: where a note came from when not from Vernier itself.
                SheetColumn::text("Source", |n: &Note, _| n.source.clone().unwrap_or_default()),
            ])
            // A note stays as written; new ones are typed below.
            .open_where(|_, _, _| false, &["Time", "Note"]),
        }
    }
}

/// The runs that run `number` is compared with, each with its comparison:
/// `run 2 (C1)`; empty when it is in none.
fn compared_with(number: u32, nb: &Notebook) -> String {
    let partners: Vec<String> = nb
        .pairs()
        .iter()
        .filter_map(|p| {
            let arm = p.runs.iter().position(|&r| r == number)?;
            Some(format!("run {} ({})", p.runs[1 - arm], p.label()))
        })
        .collect();
    partners.join("; ")
}

/// A soak's cell in the workbook: the protocol and the six numbers as
/// numbers (D3) — times in seconds, P, S and the tail IQR at the place the
/// tail IQR supports and S/P to two digits, as
/// [`crate::notebook::SoakNumbers::shown`] writes them (S6); an unobserved
/// time, the conditions and raw file as the log shows them.
fn soak_cell(s: &Soak, column: SoakColumn) -> Cell {
    let n = &s.numbers;
    let time = |t: Option<f64>| t.map_or_else(|| Cell::Text(s.cell(column)), |t| Cell::Number(t, Shown::Seconds));
    match column {
        SoakColumn::Number => whole(s.number, "S"),
        SoakColumn::Duration => Cell::Number(s.protocol.duration_s, Shown::Seconds),
        SoakColumn::Interval => Cell::Number(s.protocol.interval_s, Shown::Seconds),
        // The figures in the soak's unit are text here, as the log shows
        // them; as numbers they stand in their unit's own columns.
        SoakColumn::Peak | SoakColumn::Sustained | SoakColumn::TailIqr => Cell::Text(s.cell(column)),
        SoakColumn::Onset => time(n.t_onset),
        SoakColumn::Stable => time(n.t_stable),
        SoakColumn::Knee => time(n.knee().ok()),
        SoakColumn::Ratio => Cell::Number(n.ratio, Shown::Places(crate::stats::significant_places(n.ratio, 2))),
        SoakColumn::Conditions | SoakColumn::RawFile => Cell::Text(s.cell(column)),
    }
}

/// Writes the workbook in the course's [`Layout`].
pub fn write(nb: &Notebook) -> Result<Vec<u8>, super::ExportError> {
    write_with(nb, &Layout::default())
}

/// Writes the workbook with the sheets laid out by `layout`.
pub fn write_with(nb: &Notebook, layout: &Layout) -> Result<Vec<u8>, super::ExportError> {
    let compact = to_compact(nb)?;
    let parts = super::results::RunsParts::of(nb);
    write_embedding(nb, layout, &parts, || Ok(packed::pack(&compact).map_err(XlsxError::IoError)?))
}

/// [`write_with`], the notebook's copy taken from `carried` once the
/// visible sheets are written: its compact form ([`to_compact`] of `nb`)
/// packed, which an export makes on another thread meanwhile and also
/// hashes for its record (issue 50). The runs' conditions come from
/// `parts`, which the report shares.
pub(super) fn write_embedding(
    nb: &Notebook,
    layout: &Layout,
    parts: &super::results::RunsParts<'_>,
    carried: impl FnOnce() -> Result<String, super::ExportError>,
) -> Result<Vec<u8>, super::ExportError> {
    let mut book = Workbook::new();
    let tables = tables(nb, layout, parts);
    for table in &tables {
        sheet(&mut book, table)?;
    }
    // The notebook itself, for a lossless reopen (D4), and the cells as
    // written in this layout, to see what a spreadsheet changed (N12).
    let written: Vec<Written> = tables.iter().map(Table::written).collect();
    let cells = serde_json::to_string(&written)
        .map_err(|e| super::ExportError::Xlsx(XlsxError::ParameterError(e.to_string())))?;
    let cells = packed::pack(cells.as_bytes()).map_err(XlsxError::IoError)?;
    let text = carried()?;
    let ws = book.add_worksheet();
    ws.set_name(EMBED_SHEET)?;
    for (i, chunk) in chunks(&text, CELL_LIMIT).enumerate() {
        ws.write_string(i as u32, NOTEBOOK_COLUMN, chunk)?;
    }
    ws.write_number(0, LAYOUT_COLUMN, f64::from(LAYOUT_VERSION))?;
    for (i, chunk) in chunks(&cells, CELL_LIMIT).enumerate() {
        ws.write_string(i as u32, WRITTEN_COLUMN, chunk)?;
    }
    ws.write_string(0, PACKING_COLUMN, packed::COMPACT_DEFLATE_BASE64)?;
    ws.set_hidden(true);
    // Deflate's fastest level: the embedded notebook is most of the file,
    // and at level 6 compressing it took a sixth of a semester's export;
    // level 1 halves that for a somewhat larger file (issue 50).
    book.set_zip_compression_level(1);
    Ok(book.save_to_buffer()?)
}

/// The visible sheets of `nb` in `layout`, in the order written.
fn tables(nb: &Notebook, layout: &Layout, parts: &super::results::RunsParts<'_>) -> [Table; 7] {
    let [environment, predictions, runs, comparisons, sweeps, soaks, notes] = SHEETS;
    [
        layout.environment.table(environment, &EnvField::ALL, nb),
        layout.predictions.table(predictions, nb.predictions(), nb),
        course_columns_printed(conditions_once(layout.runs.table(runs, nb.runs(), nb), parts.get())),
        layout.comparisons.table(comparisons, nb.pairs(), nb),
        layout.sweeps.table(sweeps, nb.sweeps(), nb),
        layout.soaks.table(soaks, nb.soaks(), nb),
        layout.notes.table(notes, nb.notes(), nb),
    ]
}

/// The Runs table with its Conditions said once (D8): what every run
/// shares on the line above it, each row's cell only what differs, "as run
/// 3" where that is shorter. Computed for the whole table at once, as a
/// cell alone cannot know what the other rows share.
fn conditions_once(mut table: Table, rows: &[RowParts]) -> Table {
    let Some(k) = table.headers.iter().position(|h| h == RunColumn::Conditions.header()) else { return table };
    let split = Notebook::runs_conditions_of(rows);
    let cells: Vec<String> = if split.shared.is_empty() {
        // Nothing said once: every row's cell is its conditions in full.
        rows.iter().map(|row| crate::display::inert_line(row.text())).collect()
    } else {
        table.above = Some(format!("{}{}", super::SHARED_LINE, split.shared_text()));
        split.cells
    };
    for (row, cell) in table.rows.iter_mut().zip(cells) {
        row.cells[k] = as_held(Cell::Text(cell));
    }
    table
}

/// The Runs table printing its columns up to the course's last, Tag (N2).
fn course_columns_printed(mut table: Table) -> Table {
    if let Some(tag) = table.headers.iter().position(|h| h == RunColumn::Tag.header()) {
        table.printed = tag + 1;
    }
    table
}

/// The cells Vernier writes into the visible sheets for `nb` in the course's
/// layout, as a spreadsheet holds them: what a workbook of the first layout,
/// which kept no copy, is compared with (N12).
pub fn written(nb: &Notebook) -> Vec<Written> {
    tables(nb, &Layout::default(), &super::results::RunsParts::of(nb)).iter().map(Table::written).collect()
}

/// One sheet filled in: every cell, which rows are struck through, which
/// cells stay open for typing (N12).
struct Table {
    name: &'static str,
    /// A line above the header, across the printed columns (the Runs
    /// sheet's shared conditions, D8).
    above: Option<String>,
    /// How many of the columns, from the first, are printed: all but on
    /// the Runs sheet, whose paper shows the course's columns (N2) and
    /// leaves the values kept for computing (Median (ms) …) to
    /// the screen, so a printed page holds as many rows as it can (D8).
    printed: usize,
    headers: Vec<String>,
    rows: Vec<TableRow>,
    /// Per column: open for typing in the empty rows below.
    typable: Vec<bool>,
}

/// One filled-in row of a [`Table`].
struct TableRow {
    struck: bool,
    cells: Vec<Cell>,
    /// Per cell: left open to edit (N12).
    open: Vec<bool>,
}

impl<R: Sync> Sheet<R> {
    /// This sheet filled with `rows`.
    fn table(&self, name: &'static str, rows: &[R], nb: &Notebook) -> Table {
        let columns = self.expanded(rows);
        let headers: Vec<String> = columns.iter().map(|(h, _, _)| h.clone()).collect();
        Table {
            name,
            above: None,
            printed: headers.len(),
            typable: headers.iter().map(|h| self.typable.contains(&h.as_str())).collect(),
            // A semester's rows are shared among the CPUs (issue 50).
            rows: shared_work::map(rows, shared_work::ROWS_WORTH_SHARING, |item| {
                let figures = RowFigures::new();
                TableRow {
                    struck: (self.set_aside)(item),
                    cells: columns
                        .iter()
                        .map(|(_, c, only)| match (only, c.unit) {
                            // Another unit's column: this row leaves it empty.
                            (Some(u), Some(unit)) if unit(item) != *u => optional(None),
                            _ => as_held((c.fill)(item, nb, &figures)),
                        })
                        .collect(),
                    open: headers.iter().map(|h| (self.open)(item, nb, h)).collect(),
                }
            }),
            headers,
        }
    }
}

/// A cell as the spreadsheet will hold it, made so once for the sheet, its
/// column widths and the cells kept as written alike: a number it can
/// hold, an infinite or NaN one (a drift over a first half's median of
/// almost nothing) as the text the log shows, which the cells kept as
/// written (JSON) can hold too; a text as [`visible`] writes it.
fn as_held(cell: Cell) -> Cell {
    match cell {
        Cell::Number(value, _) if !value.is_finite() => Cell::Text(crate::stats::format_plain(value)),
        Cell::Text(text) => Cell::Text(visible_owned(text)),
        cell => cell,
    }
}

impl Table {
    /// The cells as the spreadsheet holds them.
    fn written(&self) -> Written {
        Written {
            name: self.name.to_owned(),
            headers: self.headers.clone(),
            rows: self
                .rows
                .iter()
                .map(|row| {
                    row.cells
                        .iter()
                        .map(|cell| match cell {
                            Cell::Text(text) => Value::Text(text.clone()),
                            Cell::Number(value, _) => Value::Number(*value),
                        })
                        .collect()
                })
                .collect(),
        }
    }
}

/// What a row's cell's format depends on: whether its row is struck
/// through, whether it is open for typing, and how it shows its number
/// (`None` for a text); see [`cell_format`].
type FormatKey = (bool, bool, Option<Shown>);

/// A row's cell's format, top-aligned: struck through on a row set aside,
/// unlocked where open for typing, and a text wrapped or a number shown
/// as its [`Shown`] says (`None` for a text).
fn cell_format((struck, open, shown): FormatKey) -> Format {
    let mut format = Format::new().set_align(FormatAlign::Top);
    if struck {
        format = format.set_font_strikethrough();
    }
    if open {
        format = format.set_unlocked();
    }
    match shown.map(Shown::format) {
        None => format.set_text_wrap(),
        Some(Some(code)) => format.set_num_format(code),
        Some(None) => format,
    }
}

/// Adds `table` as a sheet: a bold, wrapped, frozen header row, then one
/// row per item, each cell in its column's position, the columns as wide
/// as their cells need (see [`widths`]), the page set up for print (see
/// [`page_setup`]), and the sheet protected but for the cells the log lets
/// a spreadsheet change and the typable columns of the empty rows (N12).
fn sheet<'a>(book: &'a mut Workbook, table: &Table) -> Result<&'a mut Worksheet, XlsxError> {
    // Kept whole until saved. The writer's constant-memory sheets (rows
    // streamed to a temporary file) were measured 2 % less CPU on a
    // semester's notebook, cost a fixed few milliseconds on a small one,
    // and panic when the temporary file cannot be written (issue 50).
    let ws = book.add_worksheet();
    ws.set_name(table.name)?;
    // The printed columns share the page; the others are sized alone.
    let split = table.printed.min(table.headers.len());
    let printed = widths(&table.headers[..split], table.rows.iter().map(|row| &row.cells[..split]));
    let rest = widths(&table.headers[split..], table.rows.iter().map(|row| &row.cells[split..]));
    let widths: Vec<usize> = printed.into_iter().chain(rest).collect();
    // The line above the table, if any, spans its printed columns; the
    // header and the rows come under it.
    let top = u32::from(table.above.is_some());
    if let Some(above) = &table.above {
        let last = split.saturating_sub(1) as u16;
        let format = Format::new().set_italic().set_text_wrap().set_align(FormatAlign::Top);
        let text = visible(above);
        if last == 0 {
            ws.write_string_with_format(0, 0, text.as_ref(), &format)?;
        } else {
            ws.merge_range(0, 0, 0, last, text.as_ref(), &format)?;
        }
        let across: usize = widths[..split].iter().sum();
        ws.set_row_height(0, row_height(std::iter::once(text.as_ref()), &[across]))?;
    }
    let header =
        Format::new().set_bold().set_text_wrap().set_align(FormatAlign::Top).set_border_bottom(FormatBorder::Thin);
    for (k, column) in table.headers.iter().enumerate() {
        ws.write_string_with_format(top, k as u16, column.as_str(), &header)?;
    }
    let typing = Format::new().set_unlocked().set_align(FormatAlign::Top).set_text_wrap();
    for (k, &width) in widths.iter().enumerate() {
        ws.set_column_width(k as u16, width as f64)?;
        if table.typable[k] {
            ws.set_column_format(k as u16, &typing)?;
        }
    }
    ws.set_row_height(top, row_height(table.headers.iter().map(String::as_str), &widths))?;
    // The few formats the rows' cells take, each made once. A semester's
    // Runs sheet has some 200 000 cells, and the writer looks up each
    // cell's format by hashing it whole, so an empty cell not open for
    // typing is not written at all, as nothing would show of its format
    // (issue 50). Not in a typable column: a cell there without a format
    // of its own takes the column's, open for typing.
    let mut formats: Vec<(FormatKey, Format)> = Vec::new();
    for (i, row) in table.rows.iter().enumerate() {
        let line = i as u32 + 1 + top;
        let texts = row.cells.iter().map(|cell| match cell {
            Cell::Text(text) => text.as_str(),
            Cell::Number(..) => "",
        });
        let height = row_height(texts, &widths);
        // A row of one line is as tall as the sheet's rows are anyway.
        if height != LINE_PT {
            ws.set_row_height(line, height)?;
        }
        for (k, cell) in row.cells.iter().enumerate() {
            let column = k as u16;
            let shown = match cell {
                Cell::Text(text) if text.is_empty() && !row.open[k] && !table.typable[k] => continue,
                Cell::Text(_) => None,
                Cell::Number(_, shown) => Some(*shown),
            };
            let key = (row.struck, row.open[k], shown);
            let format = match formats.iter().position(|(made, _)| *made == key) {
                Some(at) => &formats[at].1,
                None => {
                    formats.push((key, cell_format(key)));
                    &formats[formats.len() - 1].1
                }
            };
            match cell {
                Cell::Text(text) => ws.write_string_with_format(line, column, text, format)?,
                Cell::Number(value, _) => ws.write_number_with_format(line, column, *value, format)?,
            };
        }
    }
    ws.set_freeze_panes(top + 1, 0)?;
    // D3, N12: sealed content cannot be typed over by accident; the
    // columns and rows may still be resized, and the sheet sorted.
    ws.protect_with_options(&ProtectionOptions {
        format_columns: true,
        format_rows: true,
        sort: true,
        use_autofilter: true,
        ..ProtectionOptions::default()
    });
    page_setup(ws, top)?;
    if split < table.headers.len() {
        ws.set_print_area(0, 0, table.rows.len() as u32 + top, split.saturating_sub(1) as u16)?;
    }
    Ok(ws)
}

/// Left and right page margins, inches: narrow, so a wide sheet prints
/// large, yet clear of what a printer cannot reach.
const SIDE_MARGIN_IN: f64 = 0.25;
/// Top and bottom margins, inches, with room for the footer.
const END_MARGIN_IN: f64 = 0.6;
/// Pixels (at 96 per inch) across a landscape page inside the side margins:
/// US Letter's 11 inches, the narrower of Letter and A4 (11.7), so the sheet
/// fits either.
const PAGE_PX: f64 = (11.0 - 2.0 * SIDE_MARGIN_IN) * 96.0;
/// The workbook's font size (Calibri 11, the spreadsheet's default).
const FONT_PT: f64 = 11.0;
/// The smallest size the text may print at once a sheet is fitted to the
/// page's width: the columns together are at most `FONT_PT / PRINT_PT`
/// pages wide, unless their least widths alone are wider.
const PRINT_PT: f64 = 8.25;
/// Calibri 11's width of a digit at 96 pixels per inch: the unit of a
/// column's width. A column `w` characters wide is `w × 7 + 5` pixels, as
/// the spreadsheet counts it, and holds `w` digits.
const CHAR_PX: f64 = 7.0;
/// The padding a column adds to its characters, in pixels.
const PADDING_PX: f64 = 5.0;
/// A column of text is never wider than this, in characters: longer text
/// wraps, and a screen still shows several columns.
const MAX_WIDTH: f64 = 60.0;
/// A word up to this wide is not broken across lines by a narrow column;
/// a longer one (a path, a hash) may be.
const WORD_WIDTH: f64 = 12.0;
/// What a column's least width adds to its widest word, as a share: a
/// printer's font may round up.
const SPARE: f64 = 1.05;
/// The same for a header's widest word, which is bold: Calibri's bold is
/// about a tenth wider than its regular face (`Instructions` wrapped
/// mid-word at [`SPARE`]).
const HEADER_SPARE: f64 = 1.15;

/// Each column's width in characters, from its header and `rows`' cells.
/// A column is at least as wide as its header's widest word and its widest
/// number (a number cannot wrap: one wider than its column shows `###`),
/// and at most as wide as its header or longest line of text, up to
/// [`MAX_WIDTH`].
/// Between the two, the text columns share what is left of the page so
/// that their longest texts wrap to about the same number of lines — the
/// conditions get more room than a tag — at the fewest lines that still
/// let the sheet print at [`PRINT_PT`] or larger, one page wide.
fn widths<'a>(headers: &[String], rows: impl Iterator<Item = &'a [Cell]> + Clone) -> Vec<usize> {
    let widest = |text: &str, spare: f64| pieces(text).map(|(width, _)| width * spare).fold(0.0, f64::max);
    let widest_piece = |text: &str| widest(text, SPARE);
    // (least, most, longest line of text), in characters.
    let bounds: Vec<(f64, f64, f64)> = headers
        .iter()
        .enumerate()
        .map(|(k, header)| {
            let (mut least, mut longest) = (widest(header, HEADER_SPARE), span(header) * HEADER_SPARE);
            for cell in rows.clone().filter_map(|cells| cells.get(k)) {
                match cell {
                    // A digit is one character; a label's letter may be more (`W1`).
                    Cell::Number(value, shown) => {
                        let text = shown.text(*value);
                        least = least.max((span(&text) * SPARE).max(text.chars().count() as f64));
                    }
                    Cell::Text(text) => {
                        least = least.max(widest_piece(text).min(WORD_WIDTH));
                        longest = text.lines().map(span).fold(longest, f64::max);
                    }
                }
            }
            let least = least.ceil().max(1.0);
            (least, longest.min(MAX_WIDTH).ceil().max(least), longest)
        })
        .collect();
    let at = |lines: f64| bounds.iter().map(move |&(least, most, longest)| (longest / lines).ceil().clamp(least, most));
    let pixels = |lines: f64| at(lines).map(|w| w * CHAR_PX + PADDING_PX).sum::<f64>();
    let budget = PAGE_PX * FONT_PT / PRINT_PT;
    // At as many lines as the longest text has characters, every column is
    // at its least: the narrowest the sheet can be.
    let most_lines = bounds.iter().map(|&(_, _, longest)| longest.ceil() as usize).max().unwrap_or(0).max(1);
    let lines = (1..=most_lines).map(|l| l as f64).find(|&lines| pixels(lines) <= budget).unwrap_or(most_lines as f64);
    at(lines).map(|w| w as usize).collect()
}

/// The height of one line of Calibri 11, points: a row of `n` wrapped lines
/// is `n` times this.
const LINE_PT: f64 = 15.0;
/// The tallest row a spreadsheet allows, points.
const MAX_ROW_PT: f64 = 409.0;

/// How tall a row of `texts` is with each text wrapped in its column of
/// `widths`, in points. Set on every row taller than one line, since
/// LibreOffice does not grow a row to its wrapped text by itself.
fn row_height<'a>(texts: impl Iterator<Item = &'a str>, widths: &[usize]) -> f64 {
    let lines = texts.zip(widths).map(|(text, &width)| wrapped_lines(text, width as f64)).max();
    (lines.unwrap_or(1) as f64 * LINE_PT).min(MAX_ROW_PT)
}

/// The lines `text` takes wrapped to `width` characters where a
/// spreadsheet wraps it (see [`pieces`]), a piece wider than that broken
/// across lines; at least one.
fn wrapped_lines(text: &str, width: f64) -> usize {
    let width = width.max(1.0);
    // One line, told without measuring: no character is wider than
    // [`WIDEST_CHAR`] nor shorter than a byte (most of a semester's
    // 200 000 cells, issue 50).
    if text.len() as f64 * WIDEST_CHAR <= width && !text.contains('\n') {
        return 1;
    }
    let space = span(" ");
    let paragraph = |line: &str| {
        let (mut lines, mut used) = (1, 0.0);
        for (piece, spaced) in pieces(line) {
            let joined = used + if spaced { space } else { 0.0 } + piece;
            if used > 0.0 && joined <= width {
                used = joined;
                continue;
            }
            if used > 0.0 {
                lines += 1;
            }
            let broken = (piece / width).ceil().max(1.0) - 1.0;
            lines += broken as usize;
            used = piece - broken * width;
        }
        lines
    };
    text.lines().map(paragraph).sum::<usize>().max(1)
}

/// The pieces a line of text wraps between, each with its [`span`] and
/// whether a space comes before it: words, and a word's parts after a
/// hyphen (`matmul-` `naive`), where spreadsheets also break a line. A
/// slash is no such place: `ns/access` breaks only where it must.
fn pieces(line: &str) -> impl Iterator<Item = (f64, bool)> + '_ {
    line.split_whitespace()
        .flat_map(|word| word.split_inclusive('-').enumerate().map(|(i, piece)| (span(piece), i == 0)))
}

/// Calibri 11's advance widths of the printable ASCII characters, space to
/// `~`, in digits (the unit of a column's width): measured on Carlito, its
/// metric twin. Prose takes about 0.85 of a digit a character, capitals and
/// `m` more than one.
#[rustfmt::skip]
const ASCII_WIDTHS: [f64; 95] = [
    0.45, 0.64, 0.79, 0.98, 1.00, 1.41, 1.35, 0.44, 0.60, 0.60, 0.98, 0.98,
    0.49, 0.60, 0.50, 0.76, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00, 1.00,
    1.00, 1.00, 0.53, 0.53, 0.98, 0.98, 0.98, 0.91, 1.76, 1.14, 1.07, 1.05,
    1.21, 0.96, 0.91, 1.24, 1.23, 0.50, 0.63, 1.03, 0.83, 1.69, 1.27, 1.31,
    1.02, 1.33, 1.07, 0.91, 0.96, 1.27, 1.12, 1.76, 1.02, 0.96, 0.92, 0.61,
    0.76, 0.61, 0.98, 0.98, 0.57, 0.95, 1.04, 0.83, 1.04, 0.98, 0.60, 0.93,
    1.04, 0.45, 0.47, 0.90, 0.45, 1.58, 1.04, 1.04, 1.04, 1.04, 0.69, 0.77,
    0.66, 1.04, 0.89, 1.41, 0.85, 0.89, 0.78, 0.62, 0.91, 0.62, 0.98,
];

/// The widest character [`span`] knows: a full em, beyond Latin.
const WIDEST_CHAR: f64 = 1.97;

/// How many characters of a column's width `text` takes in Calibri 11.
fn span(text: &str) -> f64 {
    let width = |c: char| match c {
        ' '..='~' => ASCII_WIDTHS[c as usize - ' ' as usize],
        '·' => 0.5,
        '—' => 1.79,
        // Beyond Latin (CJK, emoji): a full em.
        c if c > '\u{2E7F}' => WIDEST_CHAR,
        _ => 1.1,
    };
    text.chars().map(width).sum()
}

/// Sets a sheet up for print, so a PDF of it reads: landscape, one page
/// wide (as many tall as it needs), the header row on every page, narrow
/// margins, the gridlines printed, and the sheet's name and page number
/// in the footer.
fn page_setup(ws: &mut Worksheet, header_row: u32) -> Result<(), XlsxError> {
    ws.set_landscape();
    ws.set_print_fit_to_pages(1, 0);
    // The header, and the line above it when there is one, on every page.
    ws.set_repeat_rows(0, header_row)?;
    ws.set_margins(SIDE_MARGIN_IN, SIDE_MARGIN_IN, END_MARGIN_IN, END_MARGIN_IN, 0.3, 0.3);
    ws.set_print_gridlines(true);
    ws.set_footer("&L&A&Rpage &P of &N");
    Ok(())
}

/// A cell's text as a spreadsheet shows it: inert (SPEC N10 — a line feed
/// stays, since a cell's own border keeps it from forging another cell, but
/// no control or direction character acts), and cut to what a cell holds.
/// The full, unchanged text stays in the embedded notebook.
fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    let text = crate::display::inert_multiline(text);
    match text.char_indices().nth(CELL_LIMIT) {
        Some((cut, _)) => format!("{}… (cut here; the whole text is in the notebook)", &text[..cut]).into(),
        None => text,
    }
}

/// [`visible`] of an owned text, which stays as it is when nothing changes.
fn visible_owned(text: String) -> String {
    match visible(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(shown) => shown,
    }
}

/// `text` in pieces of at most `limit` bytes, cut on character boundaries.
fn chunks(text: &str, limit: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut cut = rest.len().min(limit);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let (head, tail) = rest.split_at(cut);
        rest = tail;
        Some(head)
    })
}

/// Why a workbook cannot be reopened as a notebook.
#[derive(Debug, thiserror::Error)]
pub enum WorkbookReadError {
    /// Not a readable workbook (or the reader gave up on it).
    #[error("cannot read {path} as a workbook: {message}")]
    Unreadable {
        /// The file, for messages.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// Refused before the reader inflated it, or by the reader of someone
    /// else's workbook.
    #[error("cannot read {path} as a workbook: {source}")]
    Refused {
        /// The file, for messages.
        path: String,
        /// Why it could not be read.
        #[source]
        source: super::foreign::ForeignError,
    },
    /// A workbook without Vernier's hidden sheet.
    #[error("{0} was not written by Vernier (no '{EMBED_SHEET}' sheet)")]
    Foreign(String),
    /// The embedded notebook failed to load.
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// A workbook Vernier wrote, reopened (D4), with what was changed in it
/// since (N12).
#[derive(Debug)]
pub struct OwnWorkbook {
    /// The notebook it carries, with nothing lost.
    pub notebook: Notebook,
    /// The layout it was written in ([`LAYOUT_VERSION`]; 1 for a workbook
    /// that kept no cells).
    pub layout: u32,
    /// Which export of the log it is: the start of the SHA-256 of the
    /// notebook it carries. Edits taken in from it are recorded with it.
    pub id: String,
    /// Each change made in a spreadsheet, cell by cell.
    pub edits: Vec<SheetEdit>,
    /// What could not be compared, one sentence each: cells past the read
    /// limits, a hidden copy of the cells that cannot be read.
    pub problems: Vec<String>,
}

/// A workbook opened for reading (D4).
#[derive(Debug)]
pub enum OpenedWorkbook {
    /// Written by Vernier: the notebook, with nothing lost, and the edits.
    Vernier(Box<OwnWorkbook>),
    /// Anyone else's, read by header names, read-only.
    Foreign(super::foreign::Foreign),
}

/// Opens any `measurements.xlsx`: Vernier's own through its embedded
/// notebook, anyone else's by the course's header names.
pub fn open(bytes: &[u8], path: &str) -> Result<OpenedWorkbook, WorkbookReadError> {
    match read_own(bytes, path) {
        Ok(own) => Ok(OpenedWorkbook::Vernier(Box::new(own))),
        Err(WorkbookReadError::Foreign(_)) => super::foreign::read(bytes)
            .map(OpenedWorkbook::Foreign)
            .map_err(|source| WorkbookReadError::Refused { path: path.to_owned(), source }),
        Err(e) => Err(e),
    }
}

/// Reopens a `measurements.xlsx` written by Vernier, with nothing lost.
/// Only the hidden sheet is read: nothing is compared.
pub fn read(bytes: &[u8], path: &str) -> Result<Notebook, WorkbookReadError> {
    let (hidden, _, _) = read_book(bytes, path, false)?;
    Ok(hidden.unpacked(path)?.notebook(path)?)
}

/// What the hidden sheet holds: the notebook (as text, or in its compact
/// form), the layout version and the cells as written (none in layout 1),
/// as they stand in the cells: packed when `packing` says so.
struct Hidden {
    text: String,
    layout: u32,
    written: Option<String>,
    packing: Option<String>,
}

/// The notebook a hidden sheet carries, unpacked.
enum Carried {
    /// Its text, as a `notebook.ron` holds it (every workbook before the
    /// compact form).
    Text(String),
    /// Its compact form ([`to_compact`]).
    Compact(Vec<u8>),
}

impl Carried {
    fn bytes(&self) -> &[u8] {
        match self {
            Carried::Text(text) => text.as_bytes(),
            Carried::Compact(bytes) => bytes,
        }
    }
}

/// A hidden sheet unpacked: the notebook it carries, its layout and the
/// cells as written.
struct Unpacked {
    carried: Carried,
    layout: u32,
    written: Option<String>,
}

impl Unpacked {
    /// The notebook carried, checked as any notebook read is.
    fn notebook(&self, path: &str) -> Result<Notebook, LoadError> {
        let path = std::path::Path::new(path);
        match &self.carried {
            Carried::Text(text) => from_bytes(text.as_bytes(), path),
            Carried::Compact(bytes) => from_compact(bytes, path),
        }
    }
}

impl Hidden {
    /// The notebook and the cells as written, unpacked where the sheet
    /// packed them. A packing this build does not know is refused, never
    /// read as text.
    fn unpacked(self, path: &str) -> Result<Unpacked, WorkbookReadError> {
        let unreadable = |message: String| WorkbookReadError::Unreadable { path: path.to_owned(), message };
        let unpacked = |e: packed::UnpackError| unreadable(e.to_string());
        let limit = crate::notebook::store::MAX_NOTEBOOK_BYTES;
        let written = |w: Option<String>| w.map(|w| packed::unpack(&w, limit)).transpose().map_err(unpacked);
        let (layout, packing) = (self.layout, self.packing.as_deref());
        let (carried, written) = match packing {
            None => (Carried::Text(self.text), self.written),
            Some(packed::DEFLATE_BASE64) => {
                (Carried::Text(packed::unpack(&self.text, limit).map_err(unpacked)?), written(self.written)?)
            }
            Some(packed::COMPACT_DEFLATE_BASE64) => {
                (Carried::Compact(packed::unpack_bytes(&self.text, limit).map_err(unpacked)?), written(self.written)?)
            }
            Some(other) => {
                return Err(unreadable(format!(
                    "its hidden sheet is packed as \"{}\", which this version of Vernier cannot read",
                    crate::display::inert_line(other.chars().take(40).collect())
                )));
            }
        };
        Ok(Unpacked { carried, layout, written })
    }
}

/// A workbook as read: its hidden sheet, its visible sheets, and which
/// cells were past the read limits.
type Sheets = (Hidden, Vec<Visible>, Vec<String>);

/// Reads a workbook Vernier wrote: its hidden sheet and, with `sheets`,
/// its visible sheets and which of their cells were past the read limits.
/// The reader runs behind `catch_unwind`: a hostile file can make it panic.
fn read_book(bytes: &[u8], path: &str, sheets: bool) -> Result<Sheets, WorkbookReadError> {
    let unreadable = |message: String| WorkbookReadError::Unreadable { path: path.to_owned(), message };
    super::foreign::check_package(bytes)
        .map_err(|e| WorkbookReadError::Refused { path: path.to_owned(), source: e.into() })?;
    let read = std::panic::catch_unwind(|| -> Result<Option<Sheets>, String> {
        let mut book: Xlsx<_> =
            calamine::open_workbook_from_rs(Cursor::new(bytes)).map_err(|e: calamine::XlsxError| e.to_string())?;
        let names = book.sheet_names();
        if !names.iter().any(|n| n == EMBED_SHEET) {
            return Ok(None);
        }
        let sheet = super::sheet::SheetCells::read(&mut book, EMBED_SHEET).map_err(|e| e.to_string())?;
        // A notebook cut short would load as a different log: refuse instead.
        if let Some(left_out) = sheet.left_out {
            return Err(left_out);
        }
        let mut hidden = Hidden { text: String::new(), layout: 1, written: None, packing: None };
        for (i, row) in sheet.rows() {
            let cell = |k: u16| row.get(usize::from(k));
            if let Some(Data::String(chunk)) = cell(NOTEBOOK_COLUMN) {
                hidden.text.push_str(chunk);
            }
            if let (0, Some(Data::Float(v))) = (i, cell(LAYOUT_COLUMN)) {
                hidden.layout = if v.fract() == 0.0 && (1.0..=f64::from(u16::MAX)).contains(v) { *v as u32 } else { 0 };
            }
            if let Some(Data::String(chunk)) = cell(WRITTEN_COLUMN) {
                hidden.written.get_or_insert_with(String::new).push_str(chunk);
            }
            if let (0, Some(Data::String(packing))) = (i, cell(PACKING_COLUMN)) {
                hidden.packing = Some(packing.clone());
            }
        }
        let (mut visible, mut problems) = (Vec::new(), Vec::new());
        for name in names.iter().filter(|n| sheets && *n != EMBED_SHEET) {
            let sheet = super::sheet::SheetCells::read(&mut book, name).map_err(|e| e.to_string())?;
            problems.extend(sheet.left_out.clone());
            visible.push(visible_sheet(name, &sheet, lines_above(name, hidden.layout)));
        }
        Ok(Some((hidden, visible, problems)))
    })
    .map_err(|_| unreadable("the workbook reader gave up on this file".into()))?
    .map_err(unreadable)?;
    read.ok_or_else(|| WorkbookReadError::Foreign(path.to_owned()))
}

/// The visible sheets of a `measurements.xlsx` written by Vernier, as a
/// spreadsheet shows them: what the audit reads (A7).
pub fn sheets(bytes: &[u8], path: &str) -> Result<Vec<Visible>, WorkbookReadError> {
    let (_, visible, _) = read_book(bytes, path, true)?;
    Ok(visible)
}

/// Reopens a `measurements.xlsx` written by Vernier and compares its
/// visible sheets with what Vernier wrote (N12).
pub fn read_own(bytes: &[u8], path: &str) -> Result<OwnWorkbook, WorkbookReadError> {
    let (hidden, visible, mut problems) = read_book(bytes, path, true)?;
    let hidden = hidden.unpacked(path)?;
    let notebook = hidden.notebook(path)?;
    // The cells as written in the workbook's own layout; a workbook of the
    // first layout kept none, and is compared with what this build writes
    // less the column layout 2 added.
    let baseline = match hidden.written.as_deref().map(serde_json::from_str::<Vec<Written>>) {
        Some(Ok(cells)) => cells,
        Some(Err(e)) => {
            problems.push(format!(
                "the hidden copy of the cells cannot be read ({e}); compared with what this build writes for its notebook"
            ));
            written(&notebook)
        }
        None => first_layout(written(&notebook)),
    };
    if hidden.layout == 0 || (hidden.layout > LAYOUT_VERSION && hidden.written.is_none()) {
        problems.push("the hidden sheet names no layout Vernier wrote".to_owned());
    }
    // R2: what runs is what the notebook says. When the cells kept as
    // written are not what this layout writes for that notebook, the
    // hidden sheet was changed by hand (or another build wrote it): said,
    // with the first difference, wherever the workbook is read.
    if hidden.layout == LAYOUT_VERSION && hidden.written.is_some() {
        let rendered = written(&notebook);
        let differ = super::edits::compare(&baseline, &rendered.iter().map(Visible::from).collect::<Vec<_>>());
        if let Some(first) = differ.first() {
            problems.push(format!(
                "the notebook this workbook carries does not match the cells it says were written ({} differ, first: \
                 {first}): its hidden sheet was changed outside Vernier, or another version wrote it; what runs and \
                 what is taken in is what the notebook says",
                differ.len()
            ));
        }
    }
    let mut edits = super::edits::compare(&baseline, &visible);
    // Where Vernier wrote a row is counted from line 1 as the header: under
    // a line above it, one further down.
    for edit in &mut edits {
        let found_now =
            matches!(edit.change, super::edits::SheetChange::Added(_) | super::edits::SheetChange::Cell { .. });
        if !found_now {
            edit.line += lines_above(&edit.sheet, hidden.layout) as u32;
        }
    }
    let id = crate::digest::sha256_hex(hidden.carried.bytes())[..12].to_owned();
    Ok(OwnWorkbook { notebook, layout: hidden.layout, id, edits, problems })
}

/// The written cells of the first layout: this build's, without the Notes
/// sheet's Source column.
fn first_layout(mut written: Vec<Written>) -> Vec<Written> {
    for sheet in written.iter_mut().filter(|s| s.name == "Notes and anomalies") {
        if let Some(k) = sheet.headers.iter().position(|h| h == "Source") {
            sheet.headers.remove(k);
            for row in &mut sheet.rows {
                if k < row.len() {
                    row.remove(k);
                }
            }
        }
    }
    written
}

/// The lines Vernier wrote above a sheet's header in `layout`: the Runs
/// sheet's shared conditions since layout 4 (D8).
fn lines_above(sheet: &str, layout: u32) -> usize {
    usize::from(layout >= 4 && sheet == SHEETS[2])
}

/// A sheet as read: `above` lines Vernier wrote above its header, the
/// header row, then its data rows. A line above that a spreadsheet deleted
/// is not taken for one: only a row whose first cell is not the header's
/// first is passed over.
fn visible_sheet(name: &str, sheet: &super::sheet::SheetCells, above: usize) -> Visible {
    let first_header = super::edits::key_column(name);
    let mut rows = sheet
        .rows()
        .enumerate()
        .skip_while(|(k, (_, cells))| {
            *k < above && cells.first().is_none_or(|c| value(c).text().trim() != first_header)
        })
        .map(|(_, (i, cells))| (i + 1, cells.iter().map(value).collect::<Vec<_>>()));
    let headers = rows.next().map(|(_, cells)| cells.iter().map(Value::text).collect()).unwrap_or_default();
    Visible { name: name.to_owned(), headers, rows: rows.collect() }
}

/// A spreadsheet's date serial (days since 1899-12-30, the fraction the
/// time of day) as `2026-11-30 10:00:00`, the date alone at midnight, the
/// time alone below one day; `None` when it is no date a calendar holds.
fn excel_date(serial: f64) -> Option<String> {
    let epoch = chrono::NaiveDate::from_ymd_opt(1899, 12, 30)?.and_hms_opt(0, 0, 0)?;
    let seconds = (serial * 86_400.0).round();
    if !seconds.is_finite() || seconds.abs() > 1e12 {
        return None;
    }
    let t = epoch.checked_add_signed(chrono::TimeDelta::try_seconds(seconds as i64)?)?;
    // A time typed alone is a fraction of a day, with no date.
    let format = match (serial.trunc() == 0.0, t.time() == chrono::NaiveTime::MIN) {
        (true, _) => "%H:%M:%S",
        (false, true) => "%Y-%m-%d",
        (false, false) => "%Y-%m-%d %H:%M:%S",
    };
    Some(t.format(format).to_string())
}

/// A cell's value for comparing: numbers as numbers, everything else as
/// the text a spreadsheet shows.
fn value(cell: &Data) -> Value {
    match cell {
        Data::Float(v) => Value::Number(*v),
        Data::Int(v) => Value::Number(*v as f64),
        Data::String(s) => Value::Text(s.clone()),
        Data::Empty => Value::Text(String::new()),
        // A date typed into a cell reads as the date, not the spreadsheet's
        // serial number; midnight is a date alone.
        Data::DateTime(d) if d.is_datetime() => Value::Text(excel_date(d.as_f64()).unwrap_or_else(|| d.to_string())),
        other => Value::Text(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_short_line_is_one_line_however_it_is_measured() {
        use super::{ASCII_WIDTHS, WIDEST_CHAR, span, wrapped_lines};
        // SPEC D3: a row is as tall as its cells' wrapped lines; the one-line
        // shortcut must agree with measuring. No character is wider than
        // WIDEST_CHAR, so a text of n bytes spans at most n of them.
        let widest = ASCII_WIDTHS.iter().copied().chain([0.5, 1.79, 1.1, WIDEST_CHAR]).fold(0.0, f64::max);
        assert_eq!(widest, WIDEST_CHAR);
        for text in ["", "1 + 5", "IQR 0.020 s · drift +2.0 %", "matmul-naive — ünïcode", "漢字 and 😀", "a\tb"]
        {
            let bound = text.len() as f64 * WIDEST_CHAR;
            assert!(span(text) <= bound, "{text}");
            assert_eq!(wrapped_lines(text, bound), 1, "{text}");
            // One byte more than the bound allows goes the measured way,
            // and there too the text takes one line.
            assert_eq!(wrapped_lines(&format!("{text}x"), bound + WIDEST_CHAR / 2.0), 1, "{text}");
        }
        assert_eq!(wrapped_lines("one\ntwo", 100.0), 2);
        assert!(wrapped_lines(&"word ".repeat(30), 20.0) > 1);
    }

    // SPEC N12: a date typed into a cell reads as the date, a time typed
    // alone as the time, never as the spreadsheet's serial number.
    #[test]
    fn typed_dates_read_as_dates() {
        assert_eq!(super::excel_date(46_357.0).as_deref(), Some("2026-12-01"));
        assert_eq!(super::excel_date(46_357.437_5).as_deref(), Some("2026-12-01 10:30:00"));
        assert_eq!(super::excel_date(0.437_5).as_deref(), Some("10:30:00"));
        assert_eq!(super::excel_date(f64::NAN), None);
        assert_eq!(super::excel_date(1e300), None);
    }

    // SPEC D4: the notebook a hidden sheet carries reads back whole in
    // each form a workbook was written in (as text, packed text, packed
    // compact form); a packing this build does not know is refused; a
    // compact form that is not a notebook is refused, not read as one.
    #[test]
    fn every_form_of_the_hidden_notebook_reads_back() {
        use super::{Hidden, packed};
        use crate::notebook::store::{to_compact, to_text};
        let mut nb = crate::notebook::Notebook::new("carried", chrono::Utc::now());
        nb.add_note("a note ünïcode", chrono::Utc::now()).expect("note");
        let text = to_text(&nb).expect("text");
        let compact = to_compact(&nb).expect("compact");
        let hidden = |text: String, packing: Option<&str>| Hidden {
            text,
            layout: super::LAYOUT_VERSION,
            written: None,
            packing: packing.map(str::to_owned),
        };
        let forms = [
            hidden(text.clone(), None),
            hidden(packed::pack(text.as_bytes()).expect("packed"), Some(packed::DEFLATE_BASE64)),
            hidden(packed::pack(&compact).expect("packed"), Some(packed::COMPACT_DEFLATE_BASE64)),
        ];
        for form in forms {
            let read = form.unpacked("m.xlsx").expect("unpacked").notebook("m.xlsx").expect("a notebook");
            assert_eq!(read, nb);
        }
        let unknown = hidden(packed::pack(&compact).expect("packed"), Some("zstd"));
        assert!(unknown.unpacked("m.xlsx").is_err());
        let not_a_notebook =
            hidden(packed::pack(b"\x93\x01\x02\x03").expect("packed"), Some(packed::COMPACT_DEFLATE_BASE64));
        let unpacked = not_a_notebook.unpacked("m.xlsx").expect("it unpacks");
        assert!(unpacked.notebook("m.xlsx").is_err());
        // A version the reader takes, then a title of arrays nested a
        // hundred thousand deep: refused at the reader's depth limit, not
        // by overflowing the stack.
        let mut deep = vec![0x82, 0xa6];
        deep.extend(b"schema");
        deep.extend([0x0a, 0xa5]);
        deep.extend(b"title");
        deep.extend([0x91; 100_000]);
        let nested = hidden(packed::pack(&deep).expect("packed"), Some(packed::COMPACT_DEFLATE_BASE64));
        let err = nested.unpacked("m.xlsx").expect("it unpacks").notebook("m.xlsx").expect_err("refused");
        assert!(err.to_string().contains("depth"), "{err}");
        let text_as_compact =
            hidden(packed::pack(text.as_bytes()).expect("packed"), Some(packed::COMPACT_DEFLATE_BASE64));
        assert!(text_as_compact.unpacked("m.xlsx").expect("it unpacks").notebook("m.xlsx").is_err());
    }
}
