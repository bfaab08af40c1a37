//! `measurements.xlsx` (SPEC D3, D4): one sheet per notebook section with
//! the exact column names, numbers stored as numbers, frozen headers and a
//! protected Predictions sheet. Every text goes in as a string — a note that
//! begins with `=` stays text, never a formula. A hidden sheet carries the
//! notebook itself, so Vernier reopens its own workbook with nothing lost.

use std::io::Cursor;

use calamine::{Data, Reader, Xlsx};
use rust_xlsxwriter::{Format, Workbook, Worksheet, XlsxError};

use crate::notebook::store::{from_bytes, to_text};
use crate::notebook::{EnvField, LoadError, Notebook, PREDICTION_COLUMNS, RUN_COLUMNS, SOAK_COLUMNS};

/// Name of the hidden sheet holding the notebook's own text.
pub const EMBED_SHEET: &str = "vernier";
/// Excel's limit on the text in one cell.
const CELL_LIMIT: usize = 32_000;

/// Writes the workbook.
pub fn write(nb: &Notebook) -> Result<Vec<u8>, super::ExportError> {
    let mut book = Workbook::new();
    let bold = Format::new().set_bold();

    let ws = sheet(&mut book, "Environment", &["Field", "Value"], &bold)?;
    for (i, field) in EnvField::ALL.into_iter().enumerate() {
        let row = i as u32 + 1;
        ws.write_string(row, 0, field.label())?;
        ws.write_string(row, 1, visible(&nb.environment().get(field)))?;
    }

    let mut columns = PREDICTION_COLUMNS.to_vec();
    columns.extend(["Amends", "Locked"]);
    let ws = sheet(&mut book, "Predictions", &columns, &bold)?;
    for (i, p) in nb.predictions().iter().enumerate() {
        let row = i as u32 + 1;
        let cells = p.columns();
        for (k, cell) in cells.iter().enumerate() {
            ws.write_string(row, k as u16, visible(cell))?;
        }
        let amends = p.amends.as_ref().map(|a| format!("P{}: “{}”", a.of, a.quote)).unwrap_or_default();
        ws.write_string(row, 5, amends)?;
        ws.write_string(row, 6, nb.lock_of(p).map(|l| l.short()).unwrap_or_default())?;
    }
    // D3: the predictions are read-only in the workbook too.
    ws.protect();

    let mut columns = RUN_COLUMNS.to_vec();
    columns.extend(["Unit", "Median (value)", "IQR (value)", "Min", "Max", "Discarded"]);
    let ws = sheet(&mut book, "Runs", &columns, &bold)?;
    for (i, r) in nb.runs().iter().enumerate() {
        let row = i as u32 + 1;
        for (k, cell) in r.columns().iter().enumerate() {
            ws.write_string(row, k as u16, visible(cell))?;
        }
        let s = &r.measurement.summary;
        ws.write_string(row, 10, &r.measurement.unit)?;
        for (k, v) in [s.median, s.iqr, s.min, s.max].into_iter().enumerate() {
            ws.write_number(row, 11 + k as u16, v)?;
        }
        ws.write_string(row, 15, r.discarded.as_ref().map(|d| d.reason.as_str()).unwrap_or_default())?;
    }

    let ws = sheet(&mut book, "Soak runs", &SOAK_COLUMNS, &bold)?;
    for (i, s) in nb.soaks().iter().enumerate() {
        let row = i as u32 + 1;
        let cells = s.columns();
        let n = &s.numbers;
        ws.write_string(row, 0, &cells[0])?;
        ws.write_number(row, 1, s.protocol.duration_s)?;
        ws.write_number(row, 2, s.protocol.interval_s)?;
        ws.write_number(row, 3, n.peak)?;
        for (col, t) in [(4u16, n.t_onset), (5, n.t_stable)] {
            match t {
                Some(t) => ws.write_number(row, col, t)?,
                None => ws.write_string(row, col, "none observed")?,
            };
        }
        ws.write_number(row, 6, n.sustained)?;
        ws.write_number(row, 7, n.ratio)?;
        ws.write_number(row, 8, n.tail_iqr)?;
        ws.write_string(row, 9, &cells[9])?;
        ws.write_string(row, 10, &cells[10])?;
    }

    let ws = sheet(&mut book, "Notes and anomalies", &["Time", "Note"], &bold)?;
    for (i, note) in nb.notes().iter().enumerate() {
        let row = i as u32 + 1;
        ws.write_string(row, 0, note.at.format("%Y-%m-%d %H:%M:%S UTC").to_string())?;
        ws.write_string(row, 1, visible(&note.text))?;
    }

    // The notebook itself, for a lossless reopen (D4).
    let text = to_text(nb)?;
    let ws = book.add_worksheet();
    ws.set_name(EMBED_SHEET)?;
    for (i, chunk) in chunks(&text, CELL_LIMIT).enumerate() {
        ws.write_string(i as u32, 0, chunk)?;
    }
    ws.set_hidden(true);
    Ok(book.save_to_buffer()?)
}

fn sheet<'a>(
    book: &'a mut Workbook,
    name: &str,
    header: &[&str],
    bold: &Format,
) -> Result<&'a mut Worksheet, XlsxError> {
    let ws = book.add_worksheet();
    ws.set_name(name)?;
    for (k, h) in header.iter().enumerate() {
        ws.write_string_with_format(0, k as u16, *h, bold)?;
        ws.set_column_width(k as u16, if k == 0 { 12 } else { 24 })?;
    }
    ws.set_freeze_panes(1, 0)?;
    // Printed or turned into a PDF, each sheet is one page wide.
    ws.set_landscape();
    ws.set_print_fit_to_pages(1, 0);
    ws.set_repeat_rows(0, 0)?;
    Ok(ws)
}

/// A cell's text, cut to what a spreadsheet cell holds; the full text stays
/// in the embedded notebook.
fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(CELL_LIMIT) {
        Some((cut, _)) => format!("{}… (cut here; the whole text is in the notebook)", &text[..cut]).into(),
        None => text.into(),
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
pub enum ReadError {
    /// Not a readable workbook (or the reader gave up on it).
    #[error("cannot read {path} as a workbook: {message}")]
    Unreadable {
        /// The file, for messages.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A workbook without Vernier's hidden sheet.
    #[error("{0} was not written by Vernier (no '{EMBED_SHEET}' sheet)")]
    Foreign(String),
    /// The embedded notebook failed to load.
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// A workbook opened for reading (D4).
#[derive(Debug)]
pub enum Opened {
    /// Written by Vernier: the notebook, with nothing lost.
    Vernier(Box<Notebook>),
    /// Anyone else's, read by header names, read-only.
    Foreign(super::foreign::Foreign),
}

/// Opens any `measurements.xlsx`: Vernier's own through its embedded
/// notebook, anyone else's by the course's header names.
pub fn open(bytes: &[u8], path: &str) -> Result<Opened, ReadError> {
    match read(bytes, path) {
        Ok(nb) => Ok(Opened::Vernier(Box::new(nb))),
        Err(ReadError::Foreign(_)) => super::foreign::read(bytes)
            .map(Opened::Foreign)
            .map_err(|message| ReadError::Unreadable { path: path.to_owned(), message }),
        Err(e) => Err(e),
    }
}

/// Reopens a `measurements.xlsx` written by Vernier, with nothing lost. The
/// reader runs behind `catch_unwind`: a hostile file can make it panic.
pub fn read(bytes: &[u8], path: &str) -> Result<Notebook, ReadError> {
    let unreadable = |message: String| ReadError::Unreadable { path: path.to_owned(), message };
    super::foreign::check_package(bytes).map_err(unreadable)?;
    let embedded = std::panic::catch_unwind(|| -> Result<Option<String>, String> {
        let mut book: Xlsx<_> =
            calamine::open_workbook_from_rs(Cursor::new(bytes)).map_err(|e: calamine::XlsxError| e.to_string())?;
        if !book.sheet_names().iter().any(|n| n == EMBED_SHEET) {
            return Ok(None);
        }
        let range = book.worksheet_range(EMBED_SHEET).map_err(|e| e.to_string())?;
        let text: String = range
            .rows()
            .filter_map(|row| match row.first() {
                Some(Data::String(s)) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        Ok(Some(text))
    })
    .map_err(|_| unreadable("the workbook reader gave up on this file".into()))?
    .map_err(unreadable)?;
    let text = embedded.ok_or_else(|| ReadError::Foreign(path.to_owned()))?;
    Ok(from_bytes(text.as_bytes(), std::path::Path::new(path))?)
}
