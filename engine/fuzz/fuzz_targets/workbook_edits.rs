//! The comparison of a workbook's visible sheets with what Vernier wrote
//! (SPEC N12, D3, D4), and the plan that weighs each edit. Structure-aware:
//! the bytes choose sheets, rows and cells (not a zip), so every input
//! reaches `edits::compare`. Four modes, by the first byte:
//!
//! 0. any written and visible sheets: `compare` never panics, and every
//!    edit names a written row that exists;
//! 1. written sheets re-saved as a spreadsheet may (rows sorted, columns
//!    moved, numbers kept to 15 digits, CRLF, a number typed as text,
//!    empty cells dropped): no edit;
//! 2. one cell of a written row changed: exactly that edit, once; or
//!    changed only below 15 significant digits: no edit;
//! 3. a notebook built from the bytes, its written cells edited as a
//!    student might, then `merge::plan` against it (or against the notebook
//!    changed since): every edit gets exactly one verdict, and nothing
//!    taken in changes a measured number or a locked prediction. Now and
//!    then the workbook itself is written and read back: no edit.
#![no_main]

#[path = "common/plan_checks.rs"]
mod plan_checks;

use chrono::{DateTime, TimeZone, Utc};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use vernier_engine::documents::edits::{self, Change, Edit, Value, Visible, Written};
use vernier_engine::documents::measurements::{self, OwnWorkbook, SHEETS};
use vernier_engine::notebook::{
    EnvField, Measurement, Notebook, PredictionText, RowRef, Soak, SoakNumbers, SoakProtocol, Tag, WarmupPolicy,
};
use vernier_engine::stats::Summary;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = match u.int_in_range(0..=3u8) {
        Ok(0) => free(&mut u),
        Ok(1) => resaved(&mut u),
        Ok(2) => one_cell(&mut u),
        Ok(_) => notebook(&mut u),
        Err(e) => Err(e),
    };
});

// ---------------------------------------------------------------- values

/// Numbers a sheet holds, and the awkward ones.
const NUMBERS: [f64; 20] = [
    0.0,
    -0.0,
    1.0,
    2.0,
    22.0,
    -1.0,
    0.1,
    1.0 / 3.0,
    12.4,
    0.000_324_145_500_000_001_1,
    1e-300,
    5e-324,
    1e300,
    f64::MAX,
    f64::MIN_POSITIVE,
    123_456_789_012_345.6,
    0.999_999_999_999_999_9,
    9.999_999_999_999_995,
    1e15,
    1e16,
];

/// Texts a sheet holds, and the awkward ones.
const TEXTS: [&str; 24] = [
    "",
    " ",
    "22",
    " 1.5 ",
    "1e3",
    "NaN",
    "inf",
    "0.333333333333333",
    "a\r\nb",
    "a\nb",
    "a\rb",
    "MEASURED",
    "12.5 ms",
    "IQR 0.2 ms",
    "11 / 14 ms",
    "3 + 10",
    "kernel matmul-ikj --size 512",
    "ms",
    "2026-11-30 09:00:00 UTC",
    "=1+1",
    "é—·",
    "fan noise",
    "S1",
    "P2",
];

fn finite(u: &mut Unstructured) -> Result<f64> {
    let v = match u.int_in_range(0..=3u8)? {
        0 | 1 => NUMBERS[u.choose_index(NUMBERS.len())?],
        2 => f64::from(u.int_in_range(-1000i32..=100_000)?) / f64::from(u.int_in_range(1i32..=1000)?),
        _ => f64::from_bits(u.arbitrary()?),
    };
    Ok(if v.is_finite() { v } else { 0.5 })
}

fn number(u: &mut Unstructured, finite_only: bool) -> Result<f64> {
    if !finite_only && one_in(u, 16)? {
        return Ok([f64::NAN, f64::INFINITY, f64::NEG_INFINITY][u.choose_index(3)?]);
    }
    finite(u)
}

fn text(u: &mut Unstructured) -> Result<String> {
    Ok(if u.ratio(2, 3)? { TEXTS[u.choose_index(TEXTS.len())?].to_owned() } else { u.arbitrary::<String>()? })
}

fn value(u: &mut Unstructured, finite_only: bool) -> Result<Value> {
    Ok(if u.arbitrary()? { Value::Number(number(u, finite_only)?) } else { Value::Text(text(u)?) })
}

/// `v` kept to 15 significant digits, as a spreadsheet re-saves it (near
/// f64::MAX that rounds past it; a spreadsheet holds no such number).
fn round15(v: f64) -> f64 {
    format!("{v:.14e}").parse().ok().filter(|r: &f64| r.is_finite()).unwrap_or(v)
}

/// True one time in `n`, and false once the bytes run out (where
/// `Unstructured::ratio` says true).
fn one_in(u: &mut Unstructured, n: u8) -> Result<bool> {
    Ok(u.int_in_range(1..=n)? == n)
}

// ---------------------------------------------------------------- sheets

/// Headers a sheet may have, key columns among them.
const HEADERS: [&str; 17] = [
    "#",
    "Field",
    "Value",
    "Time",
    "Note",
    "Source",
    "What",
    "Command",
    "Median",
    "Median (value)",
    "Median (ms)",
    "Experiment",
    "What I predict",
    "Why",
    "Discarded",
    "Conditions",
    "Tag",
];

/// The column a sheet's rows are keyed by (as `edits` keys them).
fn key_column(sheet: &str) -> &'static str {
    match sheet {
        "Environment" => "Field",
        "Notes and anomalies" => "Time",
        _ => "#",
    }
}

/// A sheet as Vernier might write it: one of the log's names, distinct
/// non-empty headers with its key column among them, each row's key
/// distinct (a row number, or a field's or a time's text).
fn written_sheet(u: &mut Unstructured, name: &str) -> Result<Written> {
    let key = key_column(name);
    let mut headers = vec![key.to_owned()];
    for _ in 0..u.int_in_range(0..=5u8)? {
        let h = HEADERS[u.choose_index(HEADERS.len())?];
        if !headers.iter().any(|x| x == h) {
            headers.insert(u.int_in_range(0..=headers.len())?, h.to_owned());
        }
    }
    let k = headers.iter().position(|h| h == key).expect("the key column");
    let mut rows = Vec::new();
    for i in 0..u.int_in_range(0..=6u8)? {
        let width = if u.ratio(1, 8)? { u.int_in_range(0..=headers.len())? } else { headers.len() };
        let mut row = Vec::new();
        for _ in 0..width {
            row.push(value(u, true)?);
        }
        // The key: a row number (a number, or typed as text), or a text.
        let key = match (key, u.int_in_range(0..=2u8)?) {
            ("#", 0 | 1) => Value::Number(f64::from(i) + 1.0),
            ("#", _) => Value::Text(format!("S{}", i + 1)),
            (_, _) => Value::Text(format!("{key} {}", i + 1)),
        };
        if row.len() <= k {
            row.resize(k + 1, Value::Text(String::new()));
        }
        row[k] = key;
        rows.push(row);
    }
    Ok(Written { name: name.to_owned(), headers, rows })
}

/// Distinct sheets of the log, each as [`written_sheet`].
fn written_sheets(u: &mut Unstructured) -> Result<Vec<Written>> {
    let mut sheets = Vec::new();
    for name in SHEETS {
        if u.arbitrary()? {
            sheets.push(written_sheet(u, name)?);
        }
    }
    Ok(sheets)
}

/// `v` after a spreadsheet re-saved it and a person sorted it: nothing a
/// comparison may call an edit. `cell` is kept where it is, if given.
fn resave(u: &mut Unstructured, v: &mut Visible) -> Result<()> {
    // Rows sorted, and numbered as the spreadsheet now shows them.
    for i in (1..v.rows.len()).rev() {
        let j = u.int_in_range(0..=i)?;
        v.rows.swap(i, j);
    }
    if u.arbitrary()? {
        let mut line = 2u32;
        for (l, _) in &mut v.rows {
            line += u.int_in_range(0..=3u32)?;
            *l = line;
            line += 1;
        }
    }
    // Columns moved (headers and cells together), headers padded.
    if v.headers.len() > 1 && u.arbitrary()? {
        let (a, b) = (u.choose_index(v.headers.len())?, u.choose_index(v.headers.len())?);
        v.headers.swap(a, b);
        for (_, r) in &mut v.rows {
            r.resize(r.len().max(a.max(b) + 1), Value::Text(String::new()));
            r.swap(a, b);
        }
    }
    if u.ratio(1, 4)? {
        for h in &mut v.headers {
            *h = format!(" {h} ");
        }
    }
    // Cells re-saved.
    for (_, r) in &mut v.rows {
        for c in r.iter_mut() {
            *c = match std::mem::replace(c, Value::Text(String::new())) {
                Value::Number(n) => match u.int_in_range(0..=3u8)? {
                    0 => Value::Number(round15(n)),
                    1 => Value::Text(format!("{n}")),
                    _ => Value::Number(n),
                },
                Value::Text(t) => match u.int_in_range(0..=3u8)? {
                    0 => Value::Text(t.replace("\r\n", "\n")),
                    1 => Value::Text(t.replace('\n', "\r\n").replace("\r\r\n", "\r\n")),
                    2 if t.trim().is_empty() => Value::Text(String::new()),
                    _ => Value::Text(t),
                },
            };
        }
        // A spreadsheet keeps no empty cell at a row's end.
        if u.arbitrary()? {
            while r.last().is_some_and(Value::is_empty) {
                r.pop();
            }
        }
    }
    Ok(())
}

// ----------------------------------------------------------------- modes

/// Mode 0: anything; never panic, and name only rows that exist.
fn free(u: &mut Unstructured) -> Result<()> {
    let mut written = Vec::new();
    for _ in 0..u.int_in_range(0..=3u8)? {
        let name = if u.arbitrary()? { SHEETS[u.choose_index(SHEETS.len())?].to_owned() } else { text(u)? };
        let headers = (0..u.int_in_range(0..=5u8)?).map(|_| header(u)).collect::<Result<_>>()?;
        let mut rows = Vec::new();
        for _ in 0..u.int_in_range(0..=5u8)? {
            rows.push((0..u.int_in_range(0..=6u8)?).map(|_| value(u, false)).collect::<Result<_>>()?);
        }
        written.push(Written { name, headers, rows });
    }
    let mut visible: Vec<Visible> = written.iter().map(Visible::from).collect();
    if u.arbitrary()? {
        for v in &mut visible {
            resave(u, v)?;
        }
    }
    for _ in 0..u.int_in_range(0..=6u8)? {
        edit_visible(u, &mut visible, None)?;
    }
    let found = edits::compare(&written, &visible);
    for e in &found {
        let _ = e.to_string();
        // Two written sheets may share a name here: any of them.
        let mut sheets = written.iter().filter(|w| w.name == e.sheet);
        if let Some(i) = e.written_row {
            assert!(sheets.any(|w| i < w.rows.len()), "an edit of a row that was not written: {e:?}");
        } else if !matches!(e.change, Change::SheetAdded) {
            assert!(sheets.next().is_some(), "an edit of a sheet that was not written: {e:?}");
        }
    }
    Ok(())
}

fn header(u: &mut Unstructured) -> Result<String> {
    Ok(if u.ratio(3, 4)? { HEADERS[u.choose_index(HEADERS.len())?].to_owned() } else { text(u)? })
}

/// Mode 1: the written sheets, re-saved: no edit.
fn resaved(u: &mut Unstructured) -> Result<()> {
    let written = written_sheets(u)?;
    let mut visible: Vec<Visible> = written.iter().map(Visible::from).collect();
    for v in &mut visible {
        resave(u, v)?;
    }
    // The sheets in any order.
    visible.reverse();
    let found = edits::compare(&written, &visible);
    assert!(found.is_empty(), "a re-saved workbook has edits: {found:#?}\nwritten {written:#?}\nvisible {visible:#?}");
    Ok(())
}

/// Mode 2: one cell changed: that edit, once; or only below 15 digits: none.
fn one_cell(u: &mut Unstructured) -> Result<()> {
    let written = written_sheets(u)?;
    let Some(s) = (!written.is_empty()).then(|| u.choose_index(written.len())).transpose()? else {
        return Ok(());
    };
    let w = &written[s];
    if w.rows.is_empty() || w.headers.len() < 2 {
        return Ok(());
    }
    let i = u.choose_index(w.rows.len())?;
    let key = w.headers.iter().position(|h| h == key_column(&w.name)).expect("a key column");
    let k = u.choose_index(w.headers.len())?;
    if k == key {
        return Ok(());
    }
    let old = w.rows[i].get(k).cloned().unwrap_or(Value::Text(String::new()));
    // A number at the top of the range has no larger neighbour a
    // spreadsheet could keep: it is left as it is.
    let below =
        u.arbitrary()? && !matches!(old, Value::Number(n) if !n.next_up().is_finite() || !round15(n).is_finite());
    let new = match (&old, below) {
        (Value::Number(n), true) => match u.int_in_range(0..=2u8)? {
            0 => Value::Number(round15(*n)),
            1 => Value::Number(n.next_up()),
            _ => Value::Text(format!("{}", round15(*n))),
        },
        (_, true) => return Ok(()),
        (Value::Number(n), false) if u.arbitrary()? => {
            // Changed in the 13th digit: an edit.
            Value::Number(n * (1.0 + 1e-12 * f64::from(u.int_in_range(1i32..=9)?)))
        }
        _ => value(u, true)?,
    };
    let mut visible: Vec<Visible> = written.iter().map(Visible::from).collect();
    resave(u, &mut visible[s])?;
    // The row as it is shown now, wherever it was sorted to, and the column.
    let place = visible[s].headers.iter().position(|h| h.trim() == w.headers[k]).expect("the column");
    let key_place = visible[s].headers.iter().position(|h| h.trim() == w.headers[key]).expect("the key");
    let wkey = w.rows[i][key].clone();
    let j = visible[s].rows.iter().position(|(_, r)| r.get(key_place).is_some_and(|c| c.same(&wkey))).expect("the row");
    let row = &mut visible[s].rows[j].1;
    row.resize(row.len().max(place + 1), Value::Text(String::new()));
    row[place] = new.clone();
    let line = visible[s].rows[j].0;
    let found = edits::compare(&written, &visible);
    let is_edit = !((old.is_empty() && new.is_empty()) || old.same(&new));
    if below {
        assert!(!is_edit, "a number changed below 15 digits is an edit: {old:?} → {new:?}");
    }
    if let (Value::Number(a), Value::Number(b)) = (&old, &new) {
        // An independent bound: numbers apart by more than a unit in the
        // 14th digit never agree to 15.
        if (a - b).abs() > 1e-13 * a.abs().max(b.abs()) {
            assert!(is_edit, "{a:e} and {b:e} taken as one number");
        }
    }
    if !is_edit {
        assert!(found.is_empty(), "no cell changed, yet: {found:#?}");
        return Ok(());
    }
    let expected = Edit {
        sheet: w.name.clone(),
        line,
        written_row: Some(i),
        key: edits::row_label(&w.name, &wkey),
        change: Change::Cell { column: w.headers[k].clone(), old: old.text(), new: new.text() },
    };
    assert_eq!(found, [expected], "one cell changed ({old:?} → {new:?})\nwritten {w:#?}\nvisible {:#?}", visible[s]);
    Ok(())
}

// -------------------------------------------------------------- notebook

fn at(seconds: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).single().expect("valid date") + chrono::Duration::seconds(seconds)
}

fn words(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => "ikj about 3x faster".to_owned(),
        1 => TEXTS[u.choose_index(TEXTS.len())?].to_owned(),
        _ => u.arbitrary::<String>()?,
    })
}

fn measurement(u: &mut Unstructured) -> Result<Option<Measurement>> {
    let mut trials = Vec::new();
    for _ in 0..u.int_in_range(1..=7u8)? {
        trials.push(if u.arbitrary()? { 12.0 + f64::from(u.int_in_range(0u8..=40)?) / 10.0 } else { finite(u)?.abs() });
    }
    let Ok(summary) = Summary::of(&trials) else { return Ok(None) };
    Ok(Some(Measurement {
        what: words(u)?,
        command: vec!["kernel".into(), "matmul-ikj".into(), "--size".into(), "512".into()],
        warmup: WarmupPolicy::Count(3),
        warmup_trials: 3,
        summary,
        unit: ["ms", "ns", "s", "us"][u.choose_index(4)?].into(),
        ns_per_unit: 1e6,
        conditions: Vec::new(),
        raw_file: None,
        tag: Tag::Measured,
        synthetic: false,
        extends: None,
        figure: None,
        work: None,
        boundary: None,
        recipe: None,
    }))
}

fn soak(u: &mut Unstructured, t: i64) -> Result<Soak> {
    // As the soak analysis records them: a peak of zero is refused there,
    // so S/P is a number.
    let peak = Some(finite(u)?).filter(|p| *p != 0.0).unwrap_or(1.0);
    let sustained = Some(finite(u)?).filter(|s| (s / peak).is_finite()).unwrap_or(peak);
    Ok(Soak {
        number: 0,
        recorded_at: at(t),
        discarded: None,
        protocol: SoakProtocol::default(),
        numbers: SoakNumbers {
            peak,
            t_onset: if u.arbitrary()? { Some(finite(u)?) } else { None },
            t_stable: if u.arbitrary()? { Some(finite(u)?) } else { None },
            sustained,
            ratio: sustained / peak,
            tail_iqr: finite(u)?,
            unit: "GFLOP/s".into(),
        },
        conditions: Vec::new(),
        raw_file: None,
        tag: Tag::Measured,
        synthetic: false,
        stated: None,
    })
}

/// A few of the things a notebook records, from the bytes, at `t` on.
fn record(u: &mut Unstructured, nb: &mut Notebook, t: &mut i64, ops: u8) -> Result<()> {
    for _ in 0..u.int_in_range(0..=ops)? {
        *t += 10;
        match u.int_in_range(0..=7u8)? {
            0 | 1 => {
                let text = PredictionText { experiment: words(u)?, predict: words(u)?, why: words(u)?, figure: None };
                let _ = nb.add_prediction(text, at(*t));
            }
            2 => {
                if let Some(m) = measurement(u)? {
                    nb.record_run(m, at(*t));
                }
            }
            3 => {
                let s = soak(u, *t)?;
                nb.record_soak(s, at(*t));
            }
            4 => {
                let _ = nb.add_note(&words(u)?, at(*t));
            }
            5 => {
                let field = EnvField::ALL[u.choose_index(EnvField::ALL.len())?];
                let _ = nb.set_environment_field(field, &words(u)?);
            }
            6 => {
                let n = u.int_in_range(1..=4u32)?;
                let subject = if u.arbitrary()? { RowRef::Run(n) } else { RowRef::Soak(n) };
                let _ = nb.discard(subject, &words(u)?, at(*t));
            }
            _ => {
                nb.lock_open_predictions(at(*t));
            }
        }
    }
    Ok(())
}

/// One change a student makes to the visible sheets; in `fields`' sheet
/// when given, the cells typed follow its headers.
fn edit_visible(u: &mut Unstructured, visible: &mut Vec<Visible>, rows_of: Option<&[Written]>) -> Result<()> {
    if visible.is_empty() {
        return Ok(());
    }
    let s = u.choose_index(visible.len())?;
    let v = &mut visible[s];
    match u.int_in_range(0..=9u8)? {
        // A cell typed over (most of what a student does).
        0..=4 if !v.rows.is_empty() => {
            let j = u.choose_index(v.rows.len())?;
            let k = u.int_in_range(0..=v.headers.len())?;
            let header = v.headers.get(k).map(|h| h.trim().to_owned()).unwrap_or_default();
            let new = typed(u, &header)?;
            let row = &mut v.rows[j].1;
            row.resize(row.len().max(k + 1), Value::Text(String::new()));
            row[k] = new;
        }
        // A row typed below.
        0..=6 => {
            let line = v.rows.iter().map(|(l, _)| *l).max().unwrap_or(1) + u.int_in_range(1..=3u32)?;
            let mut row = Vec::new();
            for h in v.headers.clone() {
                row.push(if u.ratio(3, 4)? { typed(u, h.trim())? } else { Value::Text(String::new()) });
            }
            // A row typed by hand may carry a written row's key.
            if let (Some(w), true) = (rows_of.and_then(|w| w.iter().find(|w| w.name == v.name)), u.ratio(1, 4)?) {
                if let (Some(k), false) =
                    (v.headers.iter().position(|h| h.trim() == key_column(&v.name)), w.rows.is_empty())
                {
                    let r = &w.rows[u.choose_index(w.rows.len())?];
                    if let (Some(key), Some(slot)) = (r.get(k), row.get_mut(k)) {
                        *slot = key.clone();
                    }
                }
            }
            v.rows.push((line, row));
        }
        7 if !v.rows.is_empty() => {
            let j = u.choose_index(v.rows.len())?;
            v.rows.remove(j);
        }
        8 if !v.headers.is_empty() => {
            let k = u.choose_index(v.headers.len())?;
            if u.arbitrary()? {
                v.headers[k] = header(u)?;
            } else {
                v.headers.remove(k);
                for (_, r) in &mut v.rows {
                    if k < r.len() {
                        r.remove(k);
                    }
                }
            }
        }
        _ => {
            if u.arbitrary()? {
                visible.remove(s);
            } else {
                let name = if u.arbitrary()? { SHEETS[u.choose_index(SHEETS.len())?].to_owned() } else { text(u)? };
                let headers = (0..u.int_in_range(0..=2u8)?).map(|_| header(u)).collect::<Result<_>>()?;
                visible.push(Visible { name, headers, rows: Vec::new() });
            }
        }
    }
    Ok(())
}

/// What a student types under `header`: mostly what the column holds.
fn typed(u: &mut Unstructured, header: &str) -> Result<Value> {
    if u.ratio(1, 3)? {
        return value(u, false);
    }
    let pick = |u: &mut Unstructured, xs: &[&str]| -> Result<Value> {
        Ok(Value::Text(xs[u.choose_index(xs.len())?].to_owned()))
    };
    match header {
        "What" | "Experiment" | "What I predict" | "Why" | "Note" | "Value" | "Discarded" => Ok(Value::Text(words(u)?)),
        "Command" => pick(u, &["kernel matmul-ikj --size 512", "./a.out 3", ""]),
        "n (warm-up + timed)" => pick(u, &["3 + 10", "10", "0 + 5", "3 + 0"]),
        "Median" => pick(u, &["12.5 ms", "0.3 ns", "12.5", "1 s"]),
        "Dispersion" => pick(u, &["IQR 0.2 ms", "IQR 0.2 ms · drift +2.5 %", ""]),
        "Min / Max" => pick(u, &["11 / 14 ms", "14 / 11 ms", "12.5 / 12.5 ms"]),
        "Tag" => pick(u, &["MEASURED", "cited", "", "GUESSED"]),
        "Unit" => pick(u, &["ms", "ns", "s", "us", "GFLOP/s"]),
        "Median (value)" | "Median (ms)" | "IQR (value)" | "Min" | "Max" | "#" => Ok(Value::Number(finite(u)?)),
        "Time" => pick(u, &["2026-11-30 09:00:40 UTC", "yesterday", ""]),
        "Conditions" => pick(u, &["Power source: mains", "", "anything"]),
        _ => value(u, false),
    }
}

/// Mode 3: a notebook's workbook, edited, weighed by `merge::plan`.
fn notebook(u: &mut Unstructured) -> Result<()> {
    let mut nb = Notebook::new("Project 3 — The Memory Wall Lab", at(0));
    let mut t = 0;
    record(u, &mut nb, &mut t, 10)?;
    let written = measurements::written(&nb);
    // Only a notebook that loads again (a time is never negative, …): the
    // generator may build one the loader refuses.
    let loads = || {
        let text = vernier_engine::notebook::store::to_text(&nb).ok()?;
        vernier_engine::notebook::store::from_bytes(text.as_bytes(), std::path::Path::new("fuzz/notebook.ron")).ok()
    };
    // A number that is not finite (a drift that overflowed) is written as
    // text, so the hidden copy always holds every cell.
    assert!(
        written.iter().flat_map(|w| &w.rows).flatten().all(|c| !matches!(c, Value::Number(n) if !n.is_finite())),
        "a cell written as a number that is not finite"
    );
    if one_in(u, 64)? && loads().is_some() {
        // The workbook itself, written and read back: nothing changed.
        let bytes = measurements::write(&nb).expect("a notebook's workbook writes");
        let own = measurements::read_own(&bytes, "measurements.xlsx").expect("Vernier reads its own workbook");
        assert!(
            own.edits.is_empty() && own.problems.is_empty(),
            "a workbook just written has edits: {:#?}\nproblems {:?}\nnotebook {nb:#?}",
            own.edits,
            own.problems
        );
        assert_eq!(own.notebook, nb);
        plan_checks::check(&own, &nb);
    }
    let mut visible: Vec<Visible> = written.iter().map(Visible::from).collect();
    if u.arbitrary()? {
        for v in &mut visible {
            resave(u, v)?;
        }
    }
    let untouched = edits::compare(&written, &visible);
    assert!(untouched.is_empty(), "a notebook's workbook, re-saved, has edits: {untouched:#?}");
    for _ in 0..u.int_in_range(0..=8u8)? {
        edit_visible(u, &mut visible, Some(&written))?;
    }
    let found = edits::compare(&written, &visible);
    let own = OwnWorkbook {
        notebook: nb.clone(),
        layout: measurements::LAYOUT_VERSION,
        id: "fuzz".into(),
        edits: found,
        problems: Vec::new(),
    };
    // The notebook on disk: as written, or changed in Vernier since.
    let mut mine = nb;
    if u.arbitrary()? {
        record(u, &mut mine, &mut t, 4)?;
    }
    plan_checks::check(&own, &mine);
    Ok(())
}
