//! SPEC N12 (with N2–N5, D3, D4, R1–R3): measurements.xlsx as a two-way
//! log, through the binary. The fixtures in `tests/fixtures/workbooks/` are a
//! real notebook, its export, that export re-saved by LibreOffice and the
//! same export edited by openpyxl as a student would (`make.sh`, `edit.py`).

use crate::common;

use std::path::{Path, PathBuf};

use common::{copy_tree, foreign_workbook, json, ok, stdout, text, vernier};

/// The workbook fixtures.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/workbooks")
}

/// The fixture notebook copied under `tmp`, with the fixture workbook
/// `workbook` as its exported measurements.xlsx; returns the folder and the
/// workbook's path.
fn notebook_with(tmp: &Path, workbook: &str) -> (String, String) {
    let dir = tmp.join("nb");
    copy_tree(&fixtures().join("notebook"), &dir);
    std::fs::create_dir_all(dir.join("exports")).expect("exports");
    let book = dir.join("exports/measurements.xlsx");
    std::fs::copy(fixtures().join(workbook), &book).expect("copy workbook");
    (dir.display().to_string(), book.display().to_string())
}

/// `show --json` of a notebook folder.
fn shown(dir: &str) -> serde_json::Value {
    json(&ok(vernier(&["show", dir, "--json"])))
}

/// An Environment field's value in `show --json`.
fn field(nb: &serde_json::Value, name: &str) -> String {
    let fields = nb["environment"].as_array().expect("environment");
    let found = fields.iter().find(|f| f["field"] == name).expect("the field");
    found["value"].as_str().expect("text").to_owned()
}

/// The values of the notebook's notes.
fn notes(nb: &serde_json::Value) -> Vec<serde_json::Value> {
    nb["notes"].as_array().expect("notes").clone()
}

// SPEC N12, D4: a re-save by LibreOffice (15 significant digits, its own
// styles and shared strings) alone is no edit: show lists none, merge
// takes nothing.
#[test]
fn a_libreoffice_resave_alone_lists_no_edit() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, book) = notebook_with(tmp.path(), "libreoffice.xlsx");
    let out = ok(vernier(&["show", &book]));
    assert!(stdout(&out).contains("none: the workbook shows what Vernier wrote"), "{}", text(&out));
    assert_eq!(json(&ok(vernier(&["show", &book, "--json"])))["spreadsheet_edits"], serde_json::json!([]));
    let merged = ok(vernier(&["merge", &book, "--notebook", &dir]));
    assert!(stdout(&merged).contains("no edit was made in a spreadsheet"), "{}", text(&merged));
}

// SPEC N12, N2: show lists each edit cell by cell — sheet, row, column,
// old and new — and says how to take them in.
#[test]
fn show_lists_the_edits_cell_by_cell() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, book) = notebook_with(tmp.path(), "openpyxl-edited.xlsx");
    let out = ok(vernier(&["show", &book]));
    let shown = stdout(&out);
    for line in [
        "## Edits made in a spreadsheet (9)",
        "Environment row 8 (Ambient), Value: “” → “22 °C, room thermometer”",
        "Notes and anomalies row 3: a new row: Note: “the fan spun up during run 2”",
        "Predictions row 2 (P1), What I predict: “about 10 ms” → “about 5 ms”",
        "Runs row 4 (run 3): the row is gone",
        "Runs row 3 (run 2), Discarded: “” → “the fan spun up”",
    ] {
        assert!(shown.contains(line), "missing {line:?} in:\n{shown}");
    }
    assert!(shown.contains(&format!("vernier merge {book} --notebook {dir}")), "{shown}");
    let edits = json(&ok(vernier(&["show", &book, "--json"])))["spreadsheet_edits"].clone();
    assert_eq!(edits.as_array().map(Vec::len), Some(9), "{edits}");
}

// SPEC N12, N2–N5: merge takes in the Environment field, the new note, the
// open prediction's words, the new prediction, the discard and the run
// typed by hand, each noted as edited in a spreadsheet; it refuses, naming
// each, the locked prediction (N4), the changed median (N9) and the
// deleted run (N5); a second merge takes nothing twice; and the next
// export writes the workbook again without --force (A17).
#[test]
fn merge_takes_in_what_the_log_allows_and_refuses_the_rest() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, book) = notebook_with(tmp.path(), "openpyxl-edited.xlsx");
    // The Environment of the day the workbook is taken in says battery; the
    // run typed in it says mains.
    ok(vernier(&["set", &dir, "Power source", "battery"]));
    let before = shown(&dir);
    let out = vernier(&["merge", &book, "--notebook", &dir]);
    assert_eq!(out.status.code(), Some(1), "refusals make exit 1: {}", text(&out));
    let said = stdout(&out);
    assert!(said.contains("taken in and saved (6 edits)"), "{said}");
    for refused in [
        "P1 is locked (run 1 was recorded) (N4)",
        "run 1's measured numbers are sealed (N9)",
        "run 3 was deleted; nothing is deleted from the log (N5)",
    ] {
        assert!(said.contains(refused), "missing {refused:?} in:\n{said}");
    }

    let nb = shown(&dir);
    assert_eq!(field(&nb, "Ambient"), "22 °C, room thermometer");
    // Each taken in with its time and source: the file and which export.
    let from_spreadsheet = |n: &serde_json::Value| {
        n["source"].as_str().is_some_and(|s| s.starts_with("edited in a spreadsheet (measurements.xlsx, export "))
    };
    let typed_note = notes(&nb)
        .into_iter()
        .find(|n| n["text"] == "the fan spun up during run 2")
        .expect("the typed note is in the log");
    assert!(from_spreadsheet(&typed_note), "{typed_note}");
    assert!(typed_note["at"].is_string(), "{typed_note}");
    let ambient = |n: &&serde_json::Value| n["text"].as_str().is_some_and(|t| t.starts_with("Environment · Ambient"));
    assert!(notes(&nb).iter().filter(ambient).all(from_spreadsheet));
    assert_eq!(notes(&nb).iter().filter(ambient).count(), 1);
    let predictions = nb["predictions"].as_array().expect("predictions");
    assert_eq!(predictions[0]["predict"], "about 10 ms", "a locked prediction is never changed");
    assert_eq!(predictions[1]["why"], "not run yet; 40 ms of sleep");
    assert_eq!(predictions[2]["experiment"], "sleep 50 ms");
    let runs = nb["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 4, "run 3 stays, the typed run is run 4");
    assert_eq!(runs[0]["stats"], before["runs"][0]["stats"], "run 1's numbers are as measured");
    assert_eq!(runs[2]["stats"], before["runs"][2]["stats"]);
    assert_eq!(runs[1]["discarded"]["reason"], "the fan spun up");

    // The run typed by hand: its numbers parsed, its instrument stated.
    let typed = ok(vernier(&["show", &dir, "--run", "4"]));
    let typed = stdout(&typed);
    assert!(typed.contains("61.2 ms (IQR 0.8 ms, 1.3 % of the median), min 60.1, max 63.0 ms, n=5"), "{typed}");
    assert!(typed.contains("instrument: typed by hand"), "{typed}");
    assert!(typed.contains("provenance: MEASURED"), "{typed}");
    // SPEC N9: the conditions typed with the row are kept and named so; the
    // Environment of the day it was taken in fills only the rest.
    assert!(typed.contains("mains, idle 10 min (stated with the row)"), "{typed}");
    assert!(!typed.contains("battery power"), "the typed conditions say mains: {typed}");

    // Merged twice: nothing is taken twice.
    let again = vernier(&["merge", &book, "--notebook", &dir]);
    assert!(!stdout(&again).contains("taken in and saved"), "{}", text(&again));
    assert_eq!(notes(&shown(&dir)).len(), notes(&nb).len());

    // A17: the edits were weighed, so export writes the workbook again.
    ok(vernier(&["export", &dir]));
    let rewritten = ok(vernier(&["show", &book]));
    assert!(stdout(&rewritten).contains("none: the workbook shows what Vernier wrote"), "{}", text(&rewritten));
    assert!(stdout(&rewritten).contains("22 °C, room thermometer"));
}

// SPEC N12, R1: a workbook outside the notebook's exports folder is someone
// else's: merge refuses it and says what to do; the file is not written.
#[test]
fn a_workbook_outside_the_exports_folder_is_someone_elses() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, _) = notebook_with(tmp.path(), "exported.xlsx");
    let theirs = tmp.path().join("from-email.xlsx");
    std::fs::copy(fixtures().join("openpyxl-edited.xlsx"), &theirs).expect("copy");
    let bytes = std::fs::read(&theirs).expect("read");
    let out = vernier(&["merge", &theirs.display().to_string(), "--notebook", &dir]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("someone else's workbook"), "{}", text(&out));
    assert!(text(&out).contains("--new-notebook"), "{}", text(&out));
    assert_eq!(std::fs::read(&theirs).expect("read"), bytes);
    assert_eq!(field(&shown(&dir), "Ambient"), "");
}

// SPEC N12, R3: "make a new notebook from this workbook" makes a folder
// from the hidden copy plus the permitted edits; their file stays
// byte-identical.
#[test]
fn a_new_notebook_from_their_workbook_leaves_their_file_byte_identical() {
    let tmp = tempfile::tempdir().expect("tmp");
    let theirs = tmp.path().join("measurements.xlsx");
    std::fs::copy(fixtures().join("openpyxl-edited.xlsx"), &theirs).expect("copy");
    let bytes = std::fs::read(&theirs).expect("read");
    let new = tmp.path().join("copy").display().to_string();
    let out = vernier(&["merge", &theirs.display().to_string(), "--new-notebook", &new]);
    assert_eq!(out.status.code(), Some(1), "their forbidden edits are listed: {}", text(&out));
    assert_eq!(std::fs::read(&theirs).expect("read"), bytes, "their file is never written");
    let nb = shown(&new);
    assert_eq!(nb["title"], "Workbook fixture");
    assert_eq!(field(&nb, "Ambient"), "22 °C, room thermometer");
    assert!(notes(&nb).iter().any(|n| n["text"] == "the fan spun up during run 2"));
    assert!(notes(&nb).iter().any(|n| n["text"].as_str().is_some_and(|t| t.contains("made from the workbook"))));
    assert_eq!(nb["runs"][0]["stats"]["median"], shown_workbook_median(&theirs));
    // A folder that holds something is not made into a notebook.
    let again = vernier(&["merge", &theirs.display().to_string(), "--new-notebook", &new]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
}

/// Run 1's median in the notebook a workbook carries.
fn shown_workbook_median(book: &Path) -> serde_json::Value {
    json(&ok(vernier(&["show", &book.display().to_string(), "--json"])))["runs"][0]["stats"]["median"].clone()
}

// SPEC N12, D4, R2: merge on a workbook Vernier did not write shows its
// rows, takes nothing without --yes, then imports them tagged with their
// source.
#[test]
fn merge_on_a_foreign_workbook_lists_its_rows_then_imports_them_after_yes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = common::notebook(tmp.path());
    let book = tmp.path().join("classmate.xlsx");
    foreign_workbook(
        &book,
        &[[
            "1",
            "matmul 512",
            "./mm 512",
            "3 + 11",
            "21 ms",
            "IQR 0.4 ms",
            "20.5 / 22.9 ms",
            "power source: battery",
            "raw/run-1.csv",
            "MEASURED",
        ]],
    );
    let book = book.display().to_string();
    let listed = vernier(&["merge", &book, "--notebook", &dir]);
    assert_eq!(listed.status.code(), Some(1), "{}", text(&listed));
    assert!(stdout(&listed).contains("matmul 512 — median 21.0 ms (IQR 0.4 ms), n = 11"), "{}", text(&listed));
    assert!(stdout(&listed).contains("nothing was taken in"), "{}", text(&listed));
    assert_eq!(shown(&dir)["runs"], serde_json::json!([]));
    let taken = ok(vernier(&["merge", &book, "--notebook", &dir, "--yes"]));
    assert!(stdout(&taken).contains("imported and saved: run 1"), "{}", text(&taken));
    let conditions = shown(&dir)["runs"][0]["conditions"].clone();
    let source = conditions.as_array().and_then(|c| c.iter().find(|c| c["field"] == "source")).expect("a source");
    assert_eq!(source["value"], "classmate.xlsx, Runs row 2 (# 1; a workbook not written by Vernier)");
    // Taken again: the same file and row is already in.
    let again = ok(vernier(&["merge", &book, "--notebook", &dir, "--yes"]));
    assert!(stdout(&again).contains("already in the notebook: 1 of its runs"), "{}", text(&again));
    assert_eq!(shown(&dir)["runs"].as_array().map(Vec::len), Some(1));
    // Another classmate's workbook of the same name, with other numbers, is new.
    std::fs::create_dir_all(tmp.path().join("bob")).expect("mkdir");
    let bob = tmp.path().join("bob/classmate.xlsx");
    foreign_workbook(
        &bob,
        &[["1", "matmul 512", "./mm 512", "3 + 11", "25 ms", "IQR 0.5 ms", "24.1 / 26.0 ms", "", "", "MEASURED"]],
    );
    let theirs = ok(vernier(&["merge", &bob.display().to_string(), "--notebook", &dir, "--yes"]));
    assert!(stdout(&theirs).contains("imported and saved: run 2"), "{}", text(&theirs));
}

// SPEC R1, R2, N12: reproducing from their edited workbook runs what its
// hidden copy says and warns, in the plan, that the sheets show otherwise.
#[test]
fn reproduce_warns_that_their_sheets_were_edited() {
    let tmp = tempfile::tempdir().expect("tmp");
    let theirs = tmp.path().join("measurements.xlsx");
    std::fs::copy(fixtures().join("openpyxl-edited.xlsx"), &theirs).expect("copy");
    let mine = common::notebook(tmp.path());
    let out = vernier(&["reproduce", &theirs.display().to_string(), "--row", "1", "--notebook", &mine]);
    assert_eq!(out.status.code(), Some(1), "no --yes, nothing runs: {}", text(&out));
    let plan = stdout(&out);
    assert!(
        plan.contains("WARNING: their workbook was edited in a spreadsheet after Vernier wrote it (9 edits)"),
        "{plan}"
    );
    assert!(plan.contains("Runs row 2 (run 1), Median (value): “0.011622101” → “0.5”"), "{plan}");
    let plan =
        json(&vernier(&["reproduce", &theirs.display().to_string(), "--row", "1", "--notebook", &mine, "--json"]));
    assert_eq!(plan["plan"]["spreadsheet_edits"].as_array().map(Vec::len), Some(9), "{plan}");
}

// SPEC A17, N12: the audit names a workbook's edits that were not taken in.
#[test]
fn the_audit_names_edits_not_taken_in() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, _) = notebook_with(tmp.path(), "openpyxl-edited.xlsx");
    let out = vernier(&["audit", &dir]);
    assert!(
        text(&out).contains("measurements.xlsx has 9 edits made in a spreadsheet that are not in the log"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("vernier merge"), "{}", text(&out));
}
