//! One voice (SPEC S17, issue 47): what Vernier says of a measurement — a
//! comparison's verdict and what its evidence means, a prediction's outcome,
//! a soak's numbers — is the same sentence with the same numbers on every
//! face: the command line, the window, report.docx and measurements.xlsx.
//! Read from the lab fixture, a notebook made only by Vernier's commands.

use std::path::{Path, PathBuf};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use serde_json::Value;
use vernier_app::gui::{AppCommand, Section, VernierApp};
use vernier_engine::documents::{self, blocks, edits::Visible, measurements};
use vernier_engine::notebook::{Document, store};

use crate::common;
use common::{copy_tree, json, vernier};

/// The lab fixture copied into `tmp`.
fn lab(tmp: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/lab-notebook/notebook");
    let dir = tmp.join("lab");
    copy_tree(&from, &dir);
    dir
}

/// The exported workbook's sheet `name`.
fn sheet(dir: &Path, name: &str) -> Visible {
    let path = dir.join("exports/measurements.xlsx");
    let bytes = std::fs::read(&path).expect("the workbook");
    let sheets = measurements::sheets(&bytes, "measurements.xlsx").expect("the workbook reads");
    sheets.into_iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no sheet {name}"))
}

/// The cell under `header` in the row whose first cell is `key` (`C1`, or
/// its number where the sheet keeps `#` as a number).
fn cell(sheet: &Visible, key: &str, header: &str) -> String {
    let column = sheet.headers.iter().position(|h| h == header).unwrap_or_else(|| panic!("no column {header}"));
    let number = key.trim_start_matches(char::is_alphabetic);
    let (_, row) = sheet
        .rows
        .iter()
        .find(|(_, cells)| cells.first().is_some_and(|c| c.text() == key || c.text() == number))
        .unwrap_or_else(|| panic!("no row {key} in {}", sheet.name));
    row.get(column).map(|v| v.text()).unwrap_or_default()
}

// SPEC S17, S15, N14, T5: every face renders the same findings.
#[test]
fn every_face_says_the_same_of_the_lab() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = lab(tmp.path());
    let text = dir.display().to_string();
    let shown = json(&vernier(&["show", &text, "--json"]));
    let printed = String::from_utf8_lossy(&vernier(&["show", &text]).stdout).into_owned();
    let exported = vernier(&["export", &text]);
    assert_eq!(exported.status.code(), Some(0), "{}", String::from_utf8_lossy(&exported.stderr));
    let nb = store::load(&dir).expect("the lab loads");
    let report = blocks::to_text(&documents::fill(&nb, Document::Report, &documents::Attachments::load(&dir, &nb)));

    // Comparisons: the verdict, and what the evidence means, once.
    let comparisons = sheet(&dir, "Comparisons");
    let pairs = shown["comparisons"].as_array().expect("comparisons");
    assert!(!pairs.is_empty());
    for pair in pairs {
        let label = pair["label"].as_str().expect("label");
        let verdict = pair["comparison"]["verdict"].as_str().expect("the S7 verdict");
        let in_sheet = cell(&comparisons, label, "Verdict (S7)");
        assert!(in_sheet.starts_with(verdict), "{label}: the workbook says {in_sheet:?}, the CLI {verdict:?}");
        if let Some(meaning) = pair["meaning"].as_str() {
            assert!(in_sheet.ends_with(meaning), "{label}: {in_sheet:?} against {meaning:?}");
            assert_eq!(report.matches(meaning).count(), 1, "{label}: said once in the report: {meaning}");
        } else {
            assert_eq!(in_sheet, verdict, "{label}: nothing more in the workbook than the CLI says");
        }
    }

    // Predictions: one outcome sentence on every face.
    let predictions = sheet(&dir, "Predictions");
    let mut outcomes = Vec::new();
    for p in shown["predictions"].as_array().expect("predictions") {
        let outcome = p["outcome"].as_str().unwrap_or_default().to_owned();
        if outcome.is_empty() {
            continue;
        }
        let label = p["label"].as_str().expect("label").to_owned();
        assert!(printed.contains(&outcome), "{label}: `show` prints {outcome:?}");
        assert_eq!(cell(&predictions, &label, "Outcome"), outcome, "{label}: the workbook");
        // The report's table gives what answered in a column of its own,
        // then the outcome, each clause tagged.
        for answer in p["answers"].as_array().expect("answers") {
            let (by, said) =
                (answer["by"].as_str().unwrap_or_default(), answer["outcome"].as_str().unwrap_or_default());
            let row = report.lines().find(|l| l.starts_with(&format!("{label} |")) && l.contains(by));
            let row = row.unwrap_or_else(|| panic!("{label}: no report row answered by {by}"));
            for clause in said.split("; ") {
                assert!(row.contains(clause), "{label}: the report's row {row:?} lacks “{clause}”");
            }
        }
        outcomes.push((label, outcome));
    }
    assert!(outcomes.len() >= 4, "the lab answers its four predictions: {outcomes:?}");

    // The soak's numbers: the row's, as the report prints them.
    let soak = &nb.soaks()[0];
    for (name, value) in soak.numbers.shown() {
        assert!(report.contains(&format!("{name} {value} (")), "the report's Thermals: {name} {value}");
    }
    let numbers: &Value = &shown["soaks"][0]["numbers"];
    // JSON's decimal text gives the number back to its last bit or so.
    let ratio = numbers["ratio"].as_f64().expect("S/P");
    assert!((ratio - soak.numbers.ratio).abs() <= 1e-12 * ratio.abs(), "{ratio} against {}", soak.numbers.ratio);

    // What the soak's numbers support (T8, T12), said alike by `soak
    // analyze` of its raw file and by the report.
    let raw = dir.join(soak.raw_file.as_ref().expect("the soak's file").path.to_string());
    let analysed = json(&vernier(&["soak", "analyze", &raw.display().to_string(), "--json"]));
    let finding = analysed["finding"].as_str().expect("a finding: the host is shared");
    assert!(report.contains(finding), "the report's Thermals says {finding:?}");

    // The window: the same outcome sentences, whole (on the label, hovered or not).
    let (notebook, stamp) = store::load_stamped(&dir).expect("loads");
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(|cc| VernierApp::new(cc, dir.clone(), notebook, stamp));
    harness.state_mut().apply(AppCommand::Show(Section::Predictions));
    harness.run_steps(4);
    for (label, outcome) in &outcomes {
        assert!(harness.query_by_label_contains(outcome).is_some(), "{label}: the window shows {outcome:?}");
    }
    // Its Runs section: each comparison's verdict, as the CLI gives it.
    harness.state_mut().apply(AppCommand::Show(Section::Runs));
    harness.run_steps(4);
    for pair in pairs {
        let verdict = pair["comparison"]["verdict"].as_str().expect("the S7 verdict");
        assert!(harness.query_by_label_contains(verdict).is_some(), "the window's Runs section shows {verdict:?}");
    }
    // Its Soak runs section: the finding `soak analyze` gives, for the soak chosen.
    harness.state_mut().apply(AppCommand::Show(Section::Soaks));
    harness.run_steps(4);
    harness.get_by_label(&soak.label()).click();
    for _ in 0..200 {
        harness.run_steps(2);
        if harness.query_by_label_contains(finding).is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(harness.query_by_label_contains(finding).is_some(), "the window's Soak runs section says {finding:?}");
}
