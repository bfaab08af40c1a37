//! SPEC N12, D3, D4: the workbook's protection matches the log's rules, and
//! its edits are seen whichever layout wrote it, through a re-save.

use std::io::Read as _;

use vernier_engine::documents::edits::{SheetChange, Value, Written};
use vernier_engine::documents::measurements::{self, EMBED_SHEET};

use crate::util::saved_notebook;

/// The text of part `name` of the workbook `bytes`.
fn part(bytes: &[u8], name: &str) -> String {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip");
    let mut text = String::new();
    zip.by_name(name).expect("the part").read_to_string(&mut text).expect("utf-8");
    text
}

/// Whether the cell format `index` of `styles` leaves its cells unlocked.
fn unlocked(styles: &str, index: usize) -> bool {
    let xfs = styles.split("<cellXfs").nth(1).and_then(|s| s.split("</cellXfs>").next()).expect("cellXfs");
    let xf = xfs.split("<xf ").nth(index + 1).expect("the format");
    let xf = xf.split("</xf>").next().unwrap_or(xf);
    xf.contains("locked=\"0\"")
}

/// The format index of cell `r` in a sheet's XML (0 when it has none).
fn cell_style(sheet: &str, r: &str) -> usize {
    let cell = sheet.split(&format!("<c r=\"{r}\"")).nth(1).unwrap_or_else(|| panic!("no cell {r}"));
    let head = cell.split('>').next().unwrap_or_default();
    head.split(" s=\"").nth(1).and_then(|s| s.split('"').next()).map_or(0, |s| s.parse().expect("a number"))
}

/// The format index of column `k` (1-based) in a sheet's XML, if it has one.
fn column_style(sheet: &str, k: usize) -> Option<usize> {
    sheet.split("<col ").skip(1).find_map(|col| {
        let attr =
            |name: &str| -> Option<usize> { col.split(&format!("{name}=\"")).nth(1)?.split('"').next()?.parse().ok() };
        (attr("min")? <= k && k <= attr("max")?).then(|| attr("style")).flatten()
    })
}

// SPEC D3, N12: every sheet is protected, but the cells the rules let a
// spreadsheet change are open: an Environment value, an open prediction's
// words, an empty Discarded cell; a locked prediction and a run's numbers
// are sealed; the typable columns are open in the empty rows below, and
// the sheets that take no typed row have none.
#[test]
fn only_sealed_content_is_protected() {
    let (_tmp, _dir, nb) = saved_notebook();
    let bytes = measurements::write(&nb).expect("write");
    let styles = part(&bytes, "xl/styles.xml");
    let sheet = |n: usize| part(&bytes, &format!("xl/worksheets/sheet{n}.xml"));
    for n in 1..=7 {
        assert!(sheet(n).contains("<sheetProtection"), "sheet {n} is protected");
    }
    let open = |xml: &str, r: &str| unlocked(&styles, cell_style(xml, r));
    let typable = |xml: &str, k: usize| column_style(xml, k + 1).is_some_and(|s| unlocked(&styles, s));
    let written = measurements::written(&nb);
    // A column's letter and index in sheet `name`, by its header.
    let column = |name: &str, header: &str| -> (char, usize) {
        let sheet = written.iter().find(|w| w.name == name).expect("the sheet");
        let k = sheet.headers.iter().position(|h| h == header).expect("the column");
        (char::from(b'A' + k as u8), k)
    };
    let env = sheet(1);
    assert!(open(&env, "B2"), "an Environment value is open");
    assert!(!open(&env, "A2"), "a field's name is sealed");
    let predictions = sheet(2);
    assert!(!open(&predictions, "C2"), "P1, locked by run 1, is sealed");
    assert!(open(&predictions, "C3"), "P2, still open, may be rewritten");
    assert!(!open(&predictions, "E3"), "its recorded time is Vernier's");
    assert!(typable(&predictions, column("Predictions", "What I predict").1), "a new prediction can be typed");
    assert!(!typable(&predictions, column("Predictions", "Recorded").1), "Recorded is not typed");
    let runs = sheet(3);
    let (median, median_k) = column("Runs", "Median");
    let (discarded, discarded_k) = column("Runs", "Discarded");
    assert!(!open(&runs, &format!("{median}2")), "a measured number is sealed");
    assert!(open(&runs, &format!("{discarded}2")), "a reason to set the run aside may be written");
    assert!(typable(&runs, median_k), "a run can be typed by hand below");
    assert!(!typable(&runs, discarded_k), "a typed run is not typed discarded");
    for n in [4, 5, 6] {
        assert!((0..20).all(|k| !typable(&sheet(n), k)), "sheet {n} takes no typed row");
    }
    let notes = sheet(7);
    assert!(!open(&notes, "B2"), "a note stays as written");
    assert!(typable(&notes, column("Notes and anomalies", "Note").1), "a new note can be typed");
    assert!(!typable(&notes, column("Notes and anomalies", "Source").1), "a note's source is Vernier's");
}

/// A workbook with `visible` sheets as given and a hidden sheet holding the
/// notebook `text`, and, in this build's layout, the cells as written.
fn book(visible: &[Written], text: &str, written: Option<&[Written]>) -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    for w in visible {
        let ws = book.add_worksheet();
        ws.set_name(&w.name).expect("name");
        for (k, h) in w.headers.iter().enumerate() {
            ws.write_string(0, k as u16, h).expect("header");
        }
        for (i, row) in w.rows.iter().enumerate() {
            for (k, cell) in row.iter().enumerate() {
                match cell {
                    Value::Number(v) => ws.write_number(i as u32 + 1, k as u16, *v),
                    Value::Text(t) if t.is_empty() => continue,
                    Value::Text(t) => ws.write_string(i as u32 + 1, k as u16, t),
                }
                .expect("cell");
            }
        }
    }
    let ws = book.add_worksheet();
    ws.set_name(EMBED_SHEET).expect("name");
    ws.write_string(0, 0, text).expect("text");
    if let Some(written) = written {
        ws.write_number(0, 1, f64::from(measurements::LAYOUT_VERSION)).expect("layout");
        ws.write_string(0, 2, serde_json::to_string(written).expect("json")).expect("cells");
    }
    book.save_to_buffer().expect("save")
}

/// The cells of the first layout: no Source column under Notes.
fn first_layout(mut written: Vec<Written>) -> Vec<Written> {
    let notes = written.iter_mut().find(|w| w.name == "Notes and anomalies").expect("notes");
    notes.headers.pop();
    for row in &mut notes.rows {
        row.pop();
    }
    written
}

// SPEC N12, D4: a workbook of the first layout — no layout number, no copy
// of its cells, no Source column — is compared by its own layout: as
// written it has no edit; a typed Ambient is one.
#[test]
fn a_first_layout_workbook_is_compared_by_its_own_layout() {
    let (_tmp, dir, nb) = saved_notebook();
    let text = std::fs::read_to_string(dir.join("notebook.ron")).expect("notebook");
    let cells = first_layout(measurements::written(&nb));
    let own = measurements::read_own(&book(&cells, &text, None), "old.xlsx").expect("reads");
    assert_eq!((own.layout, own.edits.len()), (1, 0), "{:?}", own.edits);
    let mut edited = cells.clone();
    let ambient = edited[0].rows.iter_mut().find(|r| r[0] == Value::Text("Ambient".into())).expect("Ambient");
    ambient[1] = Value::Text("21 °C".into());
    let own = measurements::read_own(&book(&edited, &text, None), "old.xlsx").expect("reads");
    assert_eq!(own.edits.len(), 1, "{:?}", own.edits);
    assert!(
        matches!(&own.edits[0].change, SheetChange::Cell { column, new, .. } if column == "Value" && new == "21 °C")
    );
}

// SPEC N12: every number re-saved at 15 significant digits, as LibreOffice
// and Excel keep them, is no edit; a change in the 12th digit is one.
#[test]
fn numbers_kept_to_fifteen_digits_are_no_edit() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    nb.record_run(
        crate::util::measurement("odd digits", &[1.0 / 3.0, 2.0 / 3.0, 0.123_456_789_012_345_68]),
        crate::util::at(50),
    );
    let text = vernier_engine::notebook::store::to_text(&nb).expect("text");
    let written = measurements::written(&nb);
    let resaved: Vec<Written> = written
        .iter()
        .map(|w| Written {
            rows: w
                .rows
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|c| match c {
                            Value::Number(v) => Value::Number(format!("{v:.14e}").parse().expect("number")),
                            other => other.clone(),
                        })
                        .collect()
                })
                .collect(),
            ..w.clone()
        })
        .collect();
    let own = measurements::read_own(&book(&resaved, &text, Some(&written)), "resaved.xlsx").expect("reads");
    assert_eq!(own.edits, [], "a re-save alone is no edit");
    let mut changed = resaved.clone();
    let runs = changed.iter_mut().find(|w| w.name == "Runs").expect("runs");
    let k = runs.headers.iter().position(|h| h.starts_with("Median (")).expect("median");
    if let Value::Number(v) = &mut runs.rows[1][k] {
        *v *= 1.000_000_000_01;
    }
    let own = measurements::read_own(&book(&changed, &text, Some(&written)), "changed.xlsx").expect("reads");
    assert_eq!(own.edits.len(), 1, "{:?}", own.edits);
}

// SPEC R2, N12: a hidden notebook changed by hand — a command that is not
// what the sheets and the cells kept as written say — is named wherever
// the workbook is read, since what runs is what that notebook says.
#[test]
fn a_hidden_notebook_that_does_not_match_its_cells_is_named() {
    let (_tmp, dir, nb) = saved_notebook();
    let text = std::fs::read_to_string(dir.join("notebook.ron")).expect("notebook");
    let written = measurements::written(&nb);
    let honest = measurements::read_own(&book(&written, &text, Some(&written)), "theirs.xlsx").expect("reads");
    assert_eq!((honest.edits.len(), honest.problems.len()), (0, 0), "{:?}", honest.problems);
    assert!(text.contains("\"matmul-ikj\""));
    let tampered = text.replace("\"matmul-ikj\"", "\"matmul-ijk\"");
    let own = measurements::read_own(&book(&written, &tampered, Some(&written)), "theirs.xlsx").expect("reads");
    assert!(own.edits.is_empty(), "the sheets still show what was written");
    assert!(
        own.problems.iter().any(|p| p.contains("does not match the cells") && p.contains("Command")),
        "{:?}",
        own.problems
    );
}

// SPEC N13, R2, N12: a new notebook made from a workbook whose hidden copy
// is not what its cells show says so (the warnings, and the note it starts
// with), and every run it copies remembers the workbook, which its long
// form names beside the command as it will run.
#[test]
fn a_new_notebook_from_a_tampered_workbook_warns_and_its_rows_remember_it() {
    let (tmp, dir, nb) = saved_notebook();
    let text = std::fs::read_to_string(dir.join("notebook.ron")).expect("notebook");
    let written = measurements::written(&nb);
    let tampered = text.replace("\"matmul-ikj\"", "\"matmul-ijk\"");
    let path = tmp.path().join("theirs.xlsx");
    let bytes = book(&written, &tampered, Some(&written));
    let target = tmp.path().join("copy");
    let merged = vernier_engine::merge::new_notebook(&bytes, &path, &target, chrono::Utc::now()).expect("made");
    assert!(merged.warnings.iter().any(|w| w.contains("does not match the cells")), "{:?}", merged.warnings);
    let copy = vernier_engine::notebook::store::load(&target).expect("loads");
    assert!(copy.notes().iter().any(|n| n.text.contains("WARNING: the notebook this workbook carries does not match")));
    let run = &copy.runs()[0];
    let long = run.long_form();
    assert!(long.contains("command: kernel matmul-ijk --size 512"), "{long}");
    assert!(long.contains("provenance: MEASURED, copied from the workbook theirs.xlsx (SHA-256 "), "{long}");

    // An honest workbook warns of nothing; its rows still remember it.
    let honest = book(&written, &text, Some(&written));
    let target = tmp.path().join("honest");
    let merged = vernier_engine::merge::new_notebook(&honest, &path, &target, chrono::Utc::now()).expect("made");
    assert!(merged.warnings.is_empty(), "{:?}", merged.warnings);
    let copy = vernier_engine::notebook::store::load(&target).expect("loads");
    assert!(copy.runs()[0].long_form().contains("copied from the workbook theirs.xlsx"));
}
