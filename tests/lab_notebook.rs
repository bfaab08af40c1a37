//! SPEC A20, S17 (issue 47): a notebook made only by Vernier's own commands
//! — the fixture `fixtures/lab-notebook`, the whole G06 + Memory Wall lab
//! made by its `make.sh`: a driver built by a recipe, its pairs imported, an
//! -O0/-O2 pair built by recipes with the -O0 run discarded, two kernels
//! compared, a 13-point sweep, a soak, an extension, a workbook edit merged
//! back, four predictions answered — exports documents whose audit finds
//! nothing in the text Vernier wrote.

use std::path::{Path, PathBuf};

use vernier_engine::audit::{self, Check, Place};
use vernier_engine::documents::blocks::Block;
use vernier_engine::documents::{self, Overwrite};
use vernier_engine::notebook::{Author, Document, Notebook, Word};

/// The fixture copied into a fresh folder, loaded.
fn fixture() -> (tempfile::TempDir, PathBuf, Notebook) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("lab");
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lab-notebook/notebook");
    crate::report_pages::copy_dir(&from, &dir);
    let nb = vernier_engine::notebook::store::load(&dir).expect("the fixture loads");
    (tmp, dir, nb)
}

// SPEC A20, A7, A8, A3: the notebook's own documents, exported, audit with
// no finding in a line of a document (every such line here is Vernier's or
// the fixture's prose, which states no result) and no raw file unaccounted
// for — the sources its build recipes kept are named by their rows.
//
// SPEC A21: the fixture's flattering choice was written before A21 and
// says what reversing it does to the points, not whether the conclusion
// survives: that one finding, in the student's text, is A21's, and with
// the sentence finished the notebook audits clean.
#[test]
fn a_notebook_made_by_vernier_audits_clean_in_vernier_text() {
    let (_tmp, dir, mut nb) = fixture();
    documents::export_to(&dir, &nb, None, Overwrite::Never).expect("export");
    let forms: Vec<_> = audit::audit(&dir, &nb).findings.into_iter().filter(|f| f.check == Check::A21).collect();
    assert!(forms.len() == 1 && forms[0].message.contains("whether the conclusion survives"), "{forms:#?}");
    let prompt = documents::prompts(Document::Report)
        .into_iter()
        .find(|p| p.starts_with("the choice that most helps"))
        .expect("the flattering choice's prompt");
    nb.set_answer(
        "report.docx",
        prompt,
        "Reading the chase program's own ns/access figure rather than the process's wall time; reversed, every \
         point would carry the list's setup cost, and my conclusion survives: the steps stand well above it.",
    );
    documents::export_to(&dir, &nb, None, Overwrite::Edited).expect("export again");
    let report = audit::audit(&dir, &nb);
    assert!(report.documents_exported);
    let in_text: Vec<_> = report
        .findings
        .iter()
        .filter(|f| matches!(f.place, Place::Document { .. }) || matches!(f.check, Check::A3 | Check::A7 | Check::A8))
        .collect();
    assert!(in_text.is_empty(), "{in_text:#?}");
    // Made by a release build (make.sh), its built-in kernels are optimised
    // and every row says how it was built: nothing at all is left to find.
    assert!(report.is_clean(), "{:#?}", report.findings);
}

// SPEC A20: the notes Vernier wrote (the comparisons, the extension, the
// merge) say so by their author, and the one a person typed does not.
#[test]
fn the_notes_say_who_wrote_them() {
    let (_tmp, _dir, nb) = fixture();
    let by_vernier = |start: &str| {
        nb.notes().iter().filter(|n| n.text.starts_with(start)).all(|n| n.by == Author::Vernier)
            && nb.notes().iter().any(|n| n.text.starts_with(start))
    };
    assert!(by_vernier("Comparison C1"), "{:#?}", nb.notes());
    assert!(by_vernier("Sweep W1"), "{:#?}", nb.notes());
    assert!(nb.notes().iter().any(|n| n.text.starts_with("Discarded run 4") && n.by == Author::Person));
}

// SPEC S17, N14 (issue 47 items 3 and 6): P2 is answered by the -O0/-O2
// comparison whose -O0 run is discarded: it is not scored "held".
#[test]
fn a_prediction_answered_by_a_discarded_run_is_not_held() {
    let (_tmp, _dir, nb) = fixture();
    let text = nb.outcome_text(2);
    assert!(text.contains("run 4 is discarded"), "{text}");
    for answer in nb.answers().iter().filter(|a| a.prediction == 2) {
        assert_ne!(nb.score(answer).outcome.word, Word::Held);
    }
}

/// The lab's report, as blocks, with its attachments read.
fn report(dir: &Path, nb: &Notebook) -> Vec<Block> {
    documents::fill(nb, Document::Report, &documents::Attachments::load(dir, nb))
}

fn tables(blocks: &[Block]) -> Vec<&Vec<Vec<String>>> {
    blocks.iter().filter_map(|b| if let Block::Table(t) = b { Some(t) } else { None }).collect()
}

// SPEC A7, S17 (issue 47 item 6): the Provenance table counts the tags the
// report prints on its rows: the results' MEASURED rows (not the discarded
// -O0 run), one DERIVED per comparison in the comparisons table, and one for
// the soak's computed figures.
#[test]
fn the_provenance_table_counts_what_the_report_shows() {
    let (_tmp, dir, nb) = fixture();
    let blocks = report(&dir, &nb);
    let all = tables(&blocks);
    let count = |tag: &str| -> usize {
        let provenance = all.iter().find(|t| t[0][0] == "Category").expect("the provenance table");
        provenance.iter().find(|r| r[0] == tag).expect("a row per tag")[1].parse().expect("a count")
    };
    let results = all.iter().find(|t| t[0][0] == "Experiment").expect("the results table");
    let measured = |t: &Vec<Vec<String>>| t[1..].iter().filter(|r| r.last().is_some_and(|t| t == "MEASURED")).count();
    // A sweep's points are in its own table, its parameter first.
    let sweep_points: usize =
        all.iter().filter(|t| t[0].iter().any(|h| h == "#") && t[0][0] != "Experiment").map(|t| measured(t)).sum();
    assert_eq!(count("MEASURED"), measured(results) + sweep_points, "{results:?}");
    let comparisons = all.iter().find(|t| t[0][0] == "Comparison").map_or(0, |t| t.len() - 1);
    assert!(comparisons > 0);
    // And the soak's computed figures in Thermals, tagged DERIVED there.
    let text = documents::blocks::to_text(&blocks);
    let thermals = text.lines().find(|l| l.starts_with("Soak S")).expect("the Thermals paragraph");
    assert!(thermals.contains("S/P") && thermals.contains("(DERIVED)"), "{thermals}");
    assert_eq!(count("DERIVED"), comparisons + 1);
}

// SPEC D8, S17, S3 (issue 47 item 9): a comparison's verdict cell is the
// verdict, at most 160 characters, its evidence said once in a paragraph
// under the table; the results table has a run-number column (its cells say
// "as run N") and Min / Max.
#[test]
fn the_report_tables_stay_short_and_say_each_thing_once() {
    let (_tmp, dir, nb) = fixture();
    let blocks = report(&dir, &nb);
    let all = tables(&blocks);
    let comparisons = all.iter().find(|t| t[0][0] == "Comparison").expect("the comparisons table");
    for row in comparisons.iter() {
        for cell in row {
            assert!(cell.chars().count() <= 160, "{} characters: {cell}", cell.chars().count());
        }
    }
    let text = documents::blocks::to_text(&blocks);
    for pair in nb.pairs() {
        if let Some(meaning) = pair.evidence(&nb).meaning(None) {
            assert_eq!(text.matches(meaning.as_str()).count(), 1, "said once: {meaning}");
        }
    }
    let results = all.iter().find(|t| t[0][0] == "Experiment").expect("the results table");
    assert!(results[0].iter().any(|h| h == "#") && results[0].iter().any(|h| h == "Min / Max"), "{:?}", results[0]);
}

// SPEC D3, N2 (issue 47): in measurements.xlsx every numeric column holds
// one unit — a row's numbers stand only under its own unit's headers
// ("Median (ms)", "P (chunks/s)"), equal to what the row keeps — on the
// lab's notebook, whose runs, comparisons and soak are in ms, s, ns/access
// and chunks/s.
#[test]
fn every_numeric_column_of_the_workbook_holds_one_unit() {
    use calamine::{Data, Reader as _, Xlsx};
    let (_tmp, _dir, nb) = fixture();
    let bytes = vernier_engine::documents::measurements::write(&nb).expect("workbook");
    let mut book: Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes)).expect("readable");
    let mut sheet = |name: &str| -> Vec<Vec<Data>> {
        let rows: Vec<Vec<Data>> = book.worksheet_range(name).expect(name).rows().map(<[Data]>::to_vec).collect();
        let header = rows.iter().position(|r| r.first().is_some_and(|c| *c == "#")).expect("a header row");
        rows.into_iter().skip(header).collect()
    };
    // Each sheet, each row's unit and the numbers it keeps, by figure.
    let runs: Vec<(String, Vec<(&str, f64)>)> = nb
        .runs()
        .iter()
        .map(|r| {
            let s = &r.measurement.summary;
            (r.measurement.unit.clone(), vec![("Median", s.median), ("IQR", s.iqr), ("Min", s.min), ("Max", s.max)])
        })
        .collect();
    let pairs: Vec<(String, Vec<(&str, f64)>)> = nb
        .pairs()
        .iter()
        .map(|p| {
            let v = &p.verdict;
            (
                v.unit.clone(),
                vec![("Median A", v.median_a), ("Median B", v.median_b), ("IQR A", v.iqr_a), ("IQR B", v.iqr_b)],
            )
        })
        .collect();
    let soaks: Vec<(String, Vec<(&str, f64)>)> = nb
        .soaks()
        .iter()
        .map(|s| {
            let n = &s.numbers;
            (n.unit.clone(), vec![("P", n.peak), ("S", n.sustained), ("Tail IQR", n.tail_iqr)])
        })
        .collect();
    let mut units_seen = std::collections::BTreeSet::new();
    for (name, kept) in [("Runs", runs), ("Comparisons", pairs), ("Soak runs", soaks)] {
        let rows = sheet(name);
        let header: Vec<String> = rows[0].iter().map(ToString::to_string).collect();
        assert!(!header.iter().any(|h| h == "Unit"), "{name}: no unit column beside mixed numbers: {header:?}");
        assert_eq!(rows.len() - 1, kept.len(), "{name}: a line per row");
        for (i, (unit, figures)) in kept.iter().enumerate() {
            units_seen.insert(unit.clone());
            for (figure, value) in figures {
                for (k, h) in header.iter().enumerate() {
                    let Some(u) = h.strip_prefix(&format!("{figure} (")).and_then(|h| h.strip_suffix(')')) else {
                        continue;
                    };
                    let cell = &rows[i + 1][k];
                    if u == unit {
                        assert_eq!(cell, &Data::Float(*value), "{name} row {}: {h}", i + 1);
                    } else {
                        assert_eq!(cell, &Data::Empty, "{name} row {} in {unit} leaves {h} empty", i + 1);
                    }
                }
                assert!(header.contains(&format!("{figure} ({unit})")), "{name}: a {figure} ({unit}) column");
            }
        }
    }
    assert!(units_seen.len() >= 3, "the lab's rows are in several units: {units_seen:?}");
}

// SPEC N9, A2 (issue 48 item 8): the soak's load is Vernier's own code, so
// the build its row recorded (Vernier's compiler) is its build; the report
// no longer says "not stated" for a soak that records it.
#[test]
fn the_soak_s_build_is_the_one_its_row_recorded() {
    let (_tmp, dir, nb) = fixture();
    let attachments = vernier_engine::documents::Attachments::load(&dir, &nb);
    let text: Vec<String> =
        vernier_engine::documents::fill(&nb, vernier_engine::notebook::Document::Report, &attachments)
            .iter()
            .filter_map(|b| match b {
                Block::Paragraph(runs) | Block::Bullet(runs) => Some(runs.iter().map(|r| r.text.as_str()).collect()),
                _ => None,
            })
            .collect();
    let build = text.iter().find(|t| t.starts_with("Build: ")).expect("the Build line");
    assert!(!build.contains("not stated (soak S1)"), "{build}");
    assert!(build.contains("(Vernier's soak load) (soak S1)"), "{build}");
}
