//! SPEC D5, S11, S12: the report charts what it claims — a chart per
//! comparison with its arms' labels, its unit, verdict and paired ratio —
//! read back from report.docx as a reader's program would.

use std::io::Read as _;

use vernier_engine::documents;
use vernier_engine::harness::raw;
use vernier_engine::notebook::{Notebook, NotebookPath, RawFile, store};

use crate::util::{raw_text, record_comparison, saved_notebook};

/// The report's pictures' descriptions, in document order, and its text.
fn report(dir: &std::path::Path, nb: &Notebook) -> (Vec<String>, String, usize) {
    documents::export_to(dir, nb, None, documents::Overwrite::Never).expect("export");
    let bytes = std::fs::read(dir.join("exports/report.docx")).expect("report.docx");
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip package");
    let pictures =
        zip.file_names().filter_map(Result::ok).filter(|n| n.starts_with("word/media/") && n.ends_with(".png")).count();
    let mut xml = String::new();
    zip.by_name("word/document.xml").expect("document.xml").read_to_string(&mut xml).expect("utf-8");
    let doc = roxmltree::Document::parse(&xml).expect("xml");
    let alts = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "docPr")
        .filter_map(|n| n.attribute("descr").map(str::to_owned))
        .collect();
    let text: String = doc.descendants().filter(|n| n.tag_name().name() == "t").filter_map(|n| n.text()).collect();
    (alts, text, pictures)
}

// SPEC S11, S12, D5: one chart per comparison, after the comparisons
// table: named by the comparison, labelled with both arms' labels, in the
// unit picked once for both arms, with its verdict, paired ratio, window
// and thermal condition; a comparison whose raw file is gone is still
// charted from its rows' medians and IQRs, and the document says why its
// trials are not drawn. The results chart then draws only the runs no
// other chart draws.
#[test]
fn the_report_charts_each_comparison_with_its_labels() {
    let (_tmp, dir, mut nb) = saved_notebook();
    let naive = [2.54, 2.49, 2.61, 2.52, 3.23];
    let blocked = [0.60, 0.58, 0.62, 0.59, 0.75];
    let file = raw::write_once(&dir, "run-2", &raw_text(&naive, &blocked)).expect("raw file");
    let first =
        record_comparison(&mut nb, &file, "matmul N=128", ["naive ijk", "blocked 64"], [&naive, &blocked], None);
    let gone = RawFile {
        path: NotebookPath::new("raw/gone.csv").expect("path"),
        sha256: String::new(),
        arm: "A".into(),
        imported: None,
    };
    let second = record_comparison(
        &mut nb,
        &gone,
        "sleep",
        ["two ms", "two ms again"],
        [&[2.1, 2.2, 2.3], &[2.2, 2.1, 2.4]],
        None,
    );
    store::replace(&dir, &nb).expect("save");

    let (alts, text, pictures) = report(&dir, &nb);
    let comparisons: Vec<&String> = alts.iter().filter(|a| a.starts_with('C')).collect();
    assert_eq!(comparisons.len(), 2, "one chart per comparison: {alts:?}");
    assert_eq!(pictures, 3, "two comparisons and the results chart of the one other run");
    let c1 = comparisons[0];
    assert!(c1.starts_with(&format!("C{first}: matmul N=128.")), "{c1}");
    for part in ["A: naive ijk (run 2)", "B: blocked 64 (run 3)", "time per trial (µs)", "window:", "thermal:"] {
        assert!(c1.contains(part), "{part:?} in {c1}");
    }
    assert!(c1.contains("verdict (S7): median wall time: blocked 64 is "), "{c1}");
    assert!(c1.contains("paired blocked 64/naive ijk 0.2"), "{c1}");
    assert!(!c1.contains("y-axis does not start at zero"), "this one starts at zero: {c1}");
    assert!(text.contains(&format!(
        "C{first} — matmul N=128: naive ijk (run 2) against blocked 64 (run 3), every timed trial as a dot"
    )));
    // The unit is picked once for both arms (S12): µs, the smaller median's.
    assert!(text.contains("as a box, in µs (trials MEASURED, comparison DERIVED)."), "{text}");

    let c2 = comparisons[1];
    assert!(c2.contains("A: two ms (run 4)") && c2.contains("B: two ms again (run 5)"), "{c2}");
    assert!(c2.contains("time per trial (ms)") && c2.contains("y-axis does not start at zero"), "{c2}");
    assert!(
        text.contains(&format!("C{second} — sleep: two ms (run 4) against two ms again (run 5), each arm's median as a bar and its IQR as a box, the trials not drawn (cannot read")),
        "{text}"
    );
    // Charted once: the comparisons' arms are not in the results chart.
    let results = alts.iter().position(|a| a.starts_with("Runs in ms")).expect("the results chart");
    assert!(results > 1, "after the comparisons: {alts:?}");
    assert!(
        alts[results].contains("1 run (runs charted with their comparison or sweep left out)"),
        "{}",
        alts[results]
    );
    assert!(text.find("Paired ratio") < text.find(&format!("C{first} — ")), "the charts follow the comparisons table");
    // SPEC A7: the sentences under the charts carry their tags, so the
    // numbers in the arms' labels raise no finding.
    let audit = vernier_engine::audit::audit(&dir, &nb);
    let untagged: Vec<&str> = audit
        .findings
        .iter()
        .filter(|f| f.check == vernier_engine::audit::Check::A7 && f.message.contains(" — "))
        .map(|f| f.message.as_str())
        .collect();
    assert!(untagged.is_empty(), "{untagged:?}");
}

// SPEC A18 (amended), S11: a comparison one of whose arms was built at
// -O0 is left out of the comparisons table and not charted, with the line
// that says so: a diagnostic is never one side of a result.
#[test]
fn a_comparison_with_a_diagnostic_arm_says_so() {
    let (_tmp, dir, mut nb) = saved_notebook();
    let a = [2.54, 2.49, 2.61];
    let b = [0.60, 0.58, 0.62];
    let file = raw::write_once(&dir, "run-o0", &raw_text(&a, &b)).expect("raw file");
    record_comparison(&mut nb, &file, "matmul N=128", ["naive", "blocked"], [&a, &b], Some("g++ -O0"));
    store::replace(&dir, &nb).expect("save");
    let (_, text, _) = report(&dir, &nb);
    let diagnostic = nb.runs().iter().find(|r| r.context().build().as_deref() == Some("g++ -O0")).expect("the -O0 arm");
    let its = format!("its run {} is built without optimisation (-O0)", diagnostic.number);
    assert!(text.contains(&format!("Left out of these comparisons: C1 — {its}")), "{text}");
    assert!(text.contains(&format!("C1 is not charted: {its}")), "{text}");
    assert!(!text.contains("C1 — matmul N=128:"), "no chart caption for it: {text}");
    assert!(!text.contains("C1: matmul N=128"), "no table row for it: {text}");
}
