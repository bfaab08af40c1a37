//! SPEC D1–D4: the six documents, real files, and the workbook's round trip.

use std::io::Read as _;

use calamine::{Data, Reader, Xlsx};
use vernier_engine::documents::blocks::Block;
use vernier_engine::documents::measurements::{Layout, SheetColumn};
use vernier_engine::documents::{self, Attachments, measurements};
use vernier_engine::notebook::Document;
use vernier_engine::notebook::{Budget, Citation, Run, RunColumn, Tag};

use crate::util::{at, saved_notebook};

fn part(bytes: &[u8], name: &str) -> String {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip package");
    let mut text = String::new();
    zip.by_name(name).expect("the part").read_to_string(&mut text).expect("utf-8");
    text
}

// SPEC D1: exactly the six names, nothing else, as files in `exports/`.
#[test]
fn export_writes_exactly_the_six_documents() {
    let (_tmp, dir, nb) = saved_notebook();
    let written = documents::export_to(&dir, &nb, None, documents::Overwrite::Never).expect("export");
    let mut names: Vec<String> = std::fs::read_dir(dir.join("exports"))
        .expect("exports folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<String> = [
        "report.docx",
        "measurements.xlsx",
        "soc-architecture-review.docx",
        "placement-decision.docx",
        "threat-model-report.docx",
        "ai-usage.txt",
    ]
    .map(String::from)
    .to_vec();
    expected.sort();
    assert_eq!(names, expected);
    assert_eq!(written.len(), 6);
    assert!(written.iter().all(|p| std::fs::metadata(p).expect("file").len() > 0));
}

// SPEC D5: the report carries its results chart as an embedded PNG whose
// description names the window and the thermal condition.
#[test]
fn the_report_embeds_its_chart() {
    let (_tmp, _dir, nb) = saved_notebook();
    let files = documents::export(&nb, &Attachments::default()).expect("export");
    let report = &files[0].1;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(report)).expect("zip");
    let mut png = Vec::new();
    zip.by_name("word/media/chart1.png").expect("the chart is in the package").read_to_end(&mut png).expect("read");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let xml = part(report, "word/document.xml");
    let doc = roxmltree::Document::parse(&xml).expect("xml");
    let descr = doc
        .descendants()
        .find(|n| n.tag_name().name() == "docPr")
        .and_then(|n| n.attribute("descr"))
        .expect("the picture has a description");
    assert!(descr.contains("window:") && descr.contains("thermal:"), "{descr}");
    assert!(part(report, "word/_rels/document.xml.rels").contains("media/chart1.png"));
    assert!(part(report, "[Content_Types].xml").contains("image/png"));
}

// SPEC D2: what the student writes replaces its prompt; a table answer
// fills the table; citations and the placement deadlines fill theirs.
#[test]
fn written_answers_fill_the_documents() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    let prompts = documents::prompts(Document::Report);
    let question = prompts.iter().find(|p| p.contains("the question")).expect("a question prompt");
    nb.set_answer("report.docx", question, "Does the memory wall show at 8 MiB?");
    let soc_prompts = documents::prompts(Document::SocReview);
    let blocks_prompt = soc_prompts.iter().find(|p| p.starts_with("blocks of")).expect("block inventory prompt");
    nb.set_answer("soc-architecture-review.docx", blocks_prompt, "NPU | inference | DRAM | bandwidth | inferred | —");
    nb.add_citation(Citation {
        figure: "SoC-A peak bandwidth".into(),
        value: "68.3 GB/s".into(),
        url: "https://example.org/soc-a".into(),
        retrieved: "2026-11-02".into(),
        tag: Tag::Cited,
    })
    .expect("citation");
    nb.set_deadlines(vec![Budget {
        workload: "image_classification".into(),
        deadline_ms: 50.0,
        rate_per_s: Some(10.0),
    }])
    .expect("budget");
    let files = documents::export(&nb, &Attachments::default()).expect("export");
    let text = |i: usize| part(&files[i].1, "word/document.xml");
    let report = text(0);
    assert!(report.contains("Does the memory wall show at 8 MiB?"));
    assert!(!report.contains(&format!("{} {question}", documents::PROMPT_MARK)));
    assert!(report.contains("https://example.org/soc-a") && report.contains("2026-11-02"));
    let soc = text(2);
    assert!(soc.contains(">inferred<"), "the answer became table cells");
    assert!(soc.contains("7500e6 × 16 = 120.0e9 bytes/s"), "the soc-compare arithmetic is shown");
    let placement = text(3);
    assert!(placement.contains(">NPU<"));
    assert!(placement.contains("7 mJ × 10 /s = 70 mJ/s"), "the duty-cycle multiplication is shown");
    assert!(placement.contains("SYNTHETIC"));
    let before = documents::unwritten(&nb);
    nb.set_answer("report.docx", question, "");
    assert_eq!(
        documents::unwritten(&nb)[0].1.to_write(),
        before[0].1.to_write() + 1,
        "clearing an answer brings its prompt back"
    );
}

// SPEC D2, D3: real headings, bold, tables, parseable XML; a control
// character in a note cannot break the file.
#[test]
fn docx_files_have_real_structure() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    nb.add_note("a control character \u{1} and <markup> & more", at(90)).expect("note");
    nb.title = "Project 3 \u{1} <The Memory Wall Lab>".into();
    let files = documents::export(&nb, &Attachments::default()).expect("export");
    for (name, bytes) in files.iter().filter(|(n, _)| n.ends_with(".docx")) {
        let xml = part(bytes, "word/document.xml");
        let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{name}: {e}"));
        let styles: Vec<&str> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "pStyle")
            .filter_map(|n| n.attributes().find(|a| a.name() == "val").map(|a| a.value()))
            .collect();
        assert!(styles.contains(&"Heading1"), "{name} has no Heading1");
        assert!(styles.contains(&"Heading2"), "{name} has no Heading2");
        assert!(doc.descendants().any(|n| n.tag_name().name() == "tbl"), "{name} has no table");
        assert!(
            doc.descendants().any(|n| n.tag_name().name() == "tblHeader"),
            "{name}: the header row does not repeat"
        );
        assert!(doc.descendants().any(|n| n.tag_name().name() == "b"), "{name} has no bold run");
        roxmltree::Document::parse(&part(bytes, "word/styles.xml")).expect("styles parse");
    }
    let report = &files[0].1;
    let xml = part(report, "word/document.xml");
    assert!(xml.contains("matmul ikj, N=512"), "the results table is filled from the notebook");
    assert!(!xml.contains("[["), "no placeholder is left, even for a chart with nothing to draw (no soak here)");
    assert!(xml.contains("MEASURED"));
    assert!(xml.contains(documents::PROMPT_MARK), "what only the student can write stays a marked prompt");
    let text = String::from_utf8(files[5].1.clone()).expect("text");
    assert!(text.starts_with("AI Usage — Project 3"), "{text}");
}

// SPEC D3: sheets and columns by the course's names, numbers as numbers, a
// protected Predictions sheet, frozen headers, and `=` text stays text.
#[test]
fn workbook_has_the_sections_and_keeps_formulas_as_text() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    nb.add_note("=HYPERLINK(\"http://example.invalid\",\"click\")", at(90)).expect("note");
    nb.add_note("+1 and -1 and @me", at(91)).expect("note");
    let bytes = measurements::write(&nb).expect("workbook");
    let mut book: Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes.clone())).expect("readable");
    let names = book.sheet_names();
    for sheet in ["Environment", "Predictions", "Runs", "Soak runs", "Notes and anomalies"] {
        assert!(names.iter().any(|n| n == sheet), "no sheet {sheet}");
    }
    let runs = book.worksheet_range("Runs").expect("Runs");
    let header: Vec<String> = runs.rows().next().expect("header").iter().map(ToString::to_string).collect();
    assert_eq!(header[..10], vernier_engine::notebook::RUN_COLUMNS.map(String::from));
    let median = header.iter().position(|h| h == "Median (ms)").expect("a Median (ms) column");
    assert_eq!(runs.get((1, median)), Some(&Data::Float(12.5)), "the median is stored as a number");
    let notes = book.worksheet_range("Notes and anomalies").expect("notes");
    let cells: Vec<String> = notes.rows().skip(1).map(|r| r[1].to_string()).collect();
    assert!(cells.iter().any(|c| c.starts_with("=HYPERLINK")));
    let formulas = book.worksheet_formula("Notes and anomalies").expect("formulas");
    assert!(formulas.used_cells().all(|(_, _, f)| f.is_empty()), "no cell became a formula");
    // Sheet order follows the log; the Predictions sheet is sheet 2.
    let predictions = part(&bytes, "xl/worksheets/sheet2.xml");
    assert!(predictions.contains("<sheetProtection"), "Predictions is protected");
    assert!(part(&bytes, "xl/worksheets/sheet3.xml").contains("state=\"frozen\""), "the Runs header is frozen");
}

/// Every row of the workbook's Runs sheet, header first.
use crate::util::runs_sheet;

// SPEC D3, N2: a sheet's columns are one list. A column added to it (here
// after `Median`) is found in that place in the header row and in every
// row, each later column moves one to the right with its values, and the
// section's columns keep their exact names.
#[test]
fn a_column_added_to_the_layout_lands_in_its_place_in_the_workbook() {
    let (_tmp, _dir, nb) = saved_notebook();
    let before = runs_sheet(&measurements::write(&nb).expect("workbook"));
    let mut layout = Layout::default();
    let at = layout.runs.position(RunColumn::Median.header()).expect("a Median column") + 1;
    layout.runs.columns.insert(at, SheetColumn::number("Median (µs)", |r: &Run| r.measurement.summary.median * 1e3));
    let after = runs_sheet(&measurements::write_with(&nb, &layout).expect("workbook"));

    assert_eq!(after[0][at], Data::String("Median (µs)".into()));
    assert_eq!(after[1][at], Data::Float(12_500.0), "the run's median in µs, as a number");
    assert_eq!(after.len(), before.len());
    for (old, new) in before.iter().zip(&after) {
        assert_eq!(new.len(), old.len() + 1);
        assert_eq!(new[..at], old[..at], "the columns before it stay");
        assert_eq!(new[at + 1..], old[at..], "every later column moves one to the right");
    }
    let header: Vec<String> = after[0].iter().map(ToString::to_string).collect();
    for column in RunColumn::ALL {
        let k = header.iter().position(|h| h == column.header()).expect("every Runs column by its name");
        assert_eq!(Some(k), layout.runs.position(column.header()), "the header row follows the layout");
    }
    let value = header.iter().position(|h| h == "Median (ms)").expect("Median (ms)");
    assert_eq!(value, RunColumn::ALL.len() + 1, "one to the right of where it stood without the new column");
    assert_eq!(after[1][value], Data::Float(12.5));
}

// SPEC D2, N2, S12: the report's results table takes each run's cells by
// column name, so it carries the run's own Median, Dispersion (with its
// drift), n and Tag.
#[test]
fn the_report_results_table_takes_run_cells_by_name() {
    let (_tmp, _dir, nb) = saved_notebook();
    let blocks = documents::fill(&nb, Document::Report, &Attachments::default());
    let rows = blocks
        .iter()
        .find_map(|b| match b {
            Block::Table(rows) if rows[0][0] == "Experiment" => Some(rows),
            _ => None,
        })
        .expect("the results table");
    let header = &rows[0];
    let cell = |column: RunColumn| {
        let k = header.iter().position(|h| h == column.header()).expect("a column named as in the Runs section");
        rows[1][k].as_str()
    };
    assert_eq!(rows[1][0], "matmul ikj, N=512");
    assert_eq!(cell(RunColumn::Median), "12.50 ms");
    assert_eq!(cell(RunColumn::Dispersion), "IQR 0.20 ms · drift +51 %");
    assert_eq!(cell(RunColumn::N), "3 + 5");
    assert_eq!(cell(RunColumn::Tag), "MEASURED");
}

// SPEC D2, S11 (issue 49, item 4): no two rows of the report's results
// table share a name: two runs of one name each say their run.
#[test]
fn the_report_names_each_row_once() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    let again = nb.runs()[0].measurement.what.clone();
    nb.record_run(crate::util::measurement(&again, &[12.0, 12.1, 12.2]), at(300));
    let blocks = documents::fill(&nb, Document::Report, &Attachments::default());
    let rows = blocks
        .iter()
        .find_map(|b| match b {
            Block::Table(rows) if rows[0][0] == "Experiment" => Some(rows),
            _ => None,
        })
        .expect("the results table");
    let names: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    assert!(names.contains(&format!("{again} (run 1)").as_str()), "{names:?}");
}

// SPEC D4: a workbook Vernier wrote reopens with nothing lost.
#[test]
fn workbook_round_trip_is_lossless() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    nb.add_note(&"long note ".repeat(8_000), at(95)).expect("a note longer than one cell");
    nb.set_answer("report.docx", "the question", "line one\nline two");
    let bytes = measurements::write(&nb).expect("workbook");
    let back = measurements::read(&bytes, "measurements.xlsx").expect("reopens");
    assert_eq!(back, nb);
    assert!(back.integrity().is_empty());
    assert!(measurements::read(b"not a workbook", "x.xlsx").is_err());
}

// SPEC S5, S12: the exported workbook and report show each row's figures in
// its display unit with the drift beside the IQR; an old row without its
// halves still shows its stored drift; the workbook's numbers stay in the
// stored unit at full precision.
#[test]
fn exported_documents_show_drift_and_display_units() {
    let (_tmp, dir, mut nb) = saved_notebook();
    let mut seconds =
        crate::util::measurement("true, timed", &[0.000700, 0.000712, 0.000715, 0.000730, 0.000731, 0.000729]);
    (seconds.unit, seconds.ns_per_unit) = ("s".into(), 1e9);
    nb.record_run(seconds, at(50));
    let mut old = crate::util::measurement("recorded before the halves were kept", &[0.30, 0.31, 0.29, 0.30, 0.32]);
    (old.unit, old.ns_per_unit, old.summary.halves, old.summary.drift) = ("ns/access".into(), 1.0, None, Some(0.012));
    nb.record_run(old, at(60));
    documents::export_to(&dir, &nb, None, documents::Overwrite::Never).expect("export");

    let bytes = std::fs::read(dir.join("exports/measurements.xlsx")).expect("workbook");
    let rows = runs_sheet(&bytes);
    let header: Vec<String> = rows[0].iter().map(ToString::to_string).collect();
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let text = |row: usize, name: &str| rows[row][col(name)].to_string();
    assert_eq!(text(2, "Median"), "722 µs");
    assert_eq!(text(2, "Dispersion"), "IQR 17 µs · drift +2.5 %");
    assert_eq!(text(2, "Min / Max"), "700 / 731 µs");
    assert_eq!(rows[2][col("Median (s)")], Data::Float(0.000722));
    // One unit per numeric column (issue 47): each row's numbers stand only
    // in its own unit's columns, every other unit's left empty.
    for (row, unit) in [(1, "ms"), (2, "s"), (3, "ns/access")] {
        for figure in ["Median", "IQR", "Min", "Max"] {
            for other in ["ms", "s", "ns/access"] {
                let cell = &rows[row][col(&format!("{figure} ({other})"))];
                assert_eq!(
                    matches!(cell, Data::Float(_)),
                    other == unit,
                    "row {row} in {unit}: {figure} ({other}) {cell:?}"
                );
            }
        }
    }
    assert!(!header.iter().any(|h| h == "Unit" || h.ends_with("(value)") && h != "Drift (value)"), "{header:?}");
    let Data::Float(drift) = rows[2][col("Drift (value)")] else { panic!("drift is a number: {:?}", rows[2]) };
    assert!((drift - 18.0 / 712.0).abs() < 1e-9, "{drift}");
    assert_eq!(text(3, "Median"), "0.300 ns/access", "below 1 ns a time stays in ns");
    assert_eq!(text(3, "Dispersion"), "IQR 0.010 ns/access · drift +1.2 %", "an old row shows its stored drift");

    let xml = part(&std::fs::read(dir.join("exports/report.docx")).expect("report"), "word/document.xml");
    let doc = roxmltree::Document::parse(&xml).expect("xml");
    let report: Vec<&str> = doc.descendants().filter(|n| n.tag_name().name() == "t").filter_map(|n| n.text()).collect();
    let report = report.join("\n");
    for shown in
        ["722 µs", "IQR 17 µs · drift +2.5 %", "IQR 0.20 ms · drift +51 %", "IQR 0.010 ns/access · drift +1.2 %"]
    {
        assert!(report.contains(shown), "the report's results table shows “{shown}”");
    }
    assert!(!report.contains("99999") && !report.contains("00000"), "no float artefact in the report: {report}");
}

// SPEC T1, T11: the soak protocol is in the visible workbook — with its
// prediction before the run, and beside a soak's numbers.
#[test]
fn the_workbook_shows_the_soak_protocol() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    let text = vernier_engine::notebook::PredictionText {
        experiment: "soak".into(),
        predict: "S/P below 0.8".into(),
        why: "thin chassis".into(),
        figure: vernier_engine::notebook::Committed::parse("onset 180 s ± 20 %, S/P 0.8 ± 0.05").ok(),
    };
    nb.add_soak_prediction(text, vernier_engine::notebook::SoakProtocol::default(), at(50)).expect("soak prediction");
    let bytes = measurements::write(&nb).expect("workbook");
    let mut book: Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes)).expect("readable");
    let predictions: Vec<Vec<String>> = book
        .worksheet_range("Predictions")
        .expect("Predictions")
        .rows()
        .map(|r| r.iter().map(ToString::to_string).collect())
        .collect();
    let column = predictions[0].iter().position(|h| h == "Soak protocol").expect("a Soak protocol column");
    assert_eq!(
        predictions.last().expect("the soak prediction")[column],
        "600 s sampled every 10 s; opening window 30 s, tail 300 s; onset below 0.95 of P for 3 samples; band ±0.03"
    );
    let soaks = book.worksheet_range("Soak runs").expect("Soak runs");
    let header: Vec<String> = soaks.rows().next().expect("header").iter().map(ToString::to_string).collect();
    for name in ["Knee", "Opening window (s)", "Tail window (s)", "Threshold (of P)", "Hold (samples)", "Band"] {
        assert!(header.iter().any(|h| h == name), "no {name} in {header:?}");
    }
}

// SPEC T5, T8, T11, S6: the report's Thermals paragraph gives the six
// numbers and the knee rounded by S6, each tagged, and on a shared host
// without an onset the sentence the course calls not optional.
#[test]
fn the_thermals_paragraph_is_complete() {
    use vernier_engine::notebook::{Condition, Soak, SoakNumbers, SoakProtocol};
    use vernier_engine::soak::analysis::SHARED_HOST;
    let (_tmp, _dir, mut nb) = saved_notebook();
    let numbers = SoakNumbers {
        peak: 40.495_123,
        t_onset: None,
        t_stable: None,
        sustained: 40.312_77,
        ratio: 0.995_48,
        tail_iqr: 0.213,
        unit: "chunks/s".into(),
    };
    let soak = Soak {
        number: 0,
        recorded_at: at(60),
        discarded: None,
        protocol: SoakProtocol::default(),
        numbers,
        conditions: vec![Condition { field: "hypervisor".into(), value: "yes (KVM) — a shared host".into() }],
        raw_file: None,
        tag: Tag::Measured,
        synthetic: false,
        stated: None,
    };
    nb.record_soak(soak, at(60));
    let blocks = documents::fill(&nb, Document::Report, &Attachments::default());
    let thermals = blocks
        .iter()
        .find_map(|b| match b {
            Block::Paragraph(runs) => {
                let text: String = runs.iter().map(|r| r.text.as_str()).collect();
                text.starts_with("Soak S1").then_some(text)
            }
            _ => None,
        })
        .expect("the Thermals paragraph");
    assert!(thermals.contains("P 40.50 chunks/s (MEASURED)"), "{thermals}");
    assert!(thermals.contains("S 40.31 chunks/s (MEASURED)"), "{thermals}");
    // SPEC A7, S17: what is computed from the samples is DERIVED.
    assert!(thermals.contains("knee none (no onset observed) (DERIVED)"), "{thermals}");
    assert!(thermals.contains("t_onset none observed (DERIVED)"), "{thermals}");
    assert!(thermals.contains("S/P 1.0 (DERIVED)"), "{thermals}");
    assert!(thermals.contains("tail IQR 0.21 chunks/s (MEASURED)"), "{thermals}");
    assert!(thermals.ends_with(SHARED_HOST), "{thermals}");
    assert!(!thermals.contains("analysed under"), "the defaults need no word: {thermals}");
}

// SPEC T5, T13: a soak analysed under other windows says which, each with
// its default, the reason sealed with the prediction that fixed them (or
// that none was recorded), and what the defaults give on the same file —
// numbers when they fit it, else why not, and never a number when the file
// was not read.
#[test]
fn thermals_state_other_windows_their_reason_and_what_the_defaults_give() {
    use vernier_engine::notebook::{Committed, NewProtocol, PredictionText, Soak, SoakProtocol};
    use vernier_engine::soak::analysis::{Thresholds, analyze};
    let text = include_str!("../datasets/thermal-soak.csv");
    let data =
        vernier_engine::soak::file::parse(text.as_bytes(), std::path::Path::new("thermal-soak.csv")).expect("parses");
    let protocol = SoakProtocol { opening_window_s: 60.0, threshold: 0.9, ..SoakProtocol::default() };
    let numbers = analyze(&data, &Thresholds::from(&protocol)).expect("analysed").numbers;
    let defaults = analyze(&data, &Thresholds::from(&SoakProtocol::default())).expect("analysed").numbers;
    // The report's Thermals paragraph of a notebook whose soak ran under
    // `protocol`, fixed with a prediction giving `why` when there is one.
    let thermals = |why: Option<&str>, attachments: &Attachments| {
        let (_tmp, _dir, mut nb) = saved_notebook();
        if let Some(why) = why {
            let text = PredictionText {
                experiment: "soak".into(),
                predict: "falls".into(),
                why: "fan".into(),
                figure: Committed::parse("onset 80 s ± 20 %, S/P 0.6 ± 0.1").ok(),
            };
            let fixed = NewProtocol { protocol, why: Some(why.to_owned()) };
            nb.add_soak_prediction(text, fixed, at(50)).expect("a soak prediction");
        }
        let soak = Soak {
            number: 0,
            recorded_at: at(60),
            discarded: None,
            protocol,
            numbers: numbers.clone(),
            conditions: Vec::new(),
            raw_file: None,
            tag: Tag::Measured,
            synthetic: true,
            stated: None,
        };
        nb.record_soak(soak, at(60));
        documents::fill(&nb, Document::Report, attachments)
            .iter()
            .find_map(|b| match b {
                Block::Paragraph(runs) => {
                    let text: String = runs.iter().map(|r| r.text.as_str()).collect();
                    text.starts_with("Soak S1").then_some(text)
                }
                _ => None,
            })
            .expect("the Thermals paragraph")
    };
    let read = Attachments { soak: Some(Ok((1, data.clone()))), ..Attachments::default() };
    let said = thermals(Some("the burst ends by 60 s on this fan"), &read);
    assert!(
        said.contains(&format!(
            "It was analysed under opening window 60 s (default 30 s), onset threshold 0.9 of P (default 0.95 of P), \
             changed because: the burst ends by 60 s on this fan; under the defaults the same file gives {}.",
            defaults.shown_line()
        )),
        "{said}"
    );
    let unexplained = thermals(None, &read);
    assert!(unexplained.contains("(default 0.95 of P), with no reason recorded; under the defaults"), "{unexplained}");
    let unread = thermals(None, &Attachments::default());
    assert!(unread.contains("(default 30 s)") && unread.contains("what the defaults give is not shown"), "{unread}");
}

/// The report's Method paragraph as `nb` fills it.
fn method_paragraph(nb: &vernier_engine::notebook::Notebook) -> String {
    documents::fill(nb, Document::Report, &Attachments::default())
        .iter()
        .find_map(|b| match b {
            Block::Paragraph(runs) => {
                let text: String = runs.iter().map(|r| r.text.as_str()).collect();
                text.contains("harness").then_some(text)
            }
            _ => None,
        })
        .expect("the Method paragraph")
}

// SPEC N15: the report's Method names a build recipe once, with every row
// it built, and the compiler's version beside it.
#[test]
fn the_method_names_a_shared_recipe_once() {
    use vernier_engine::notebook::{Recipe, RecipeSource};
    let (_tmp, _dir, mut nb) = saved_notebook();
    let recipe = Recipe {
        argv: ["g++", "-O2", "mm.cpp", "-o", "mm"].map(String::from).to_vec(),
        shell: false,
        compiler: "g++ (GCC) 12.2.0".into(),
        listed_by: "listed by g++ -MM".into(),
        sources: vec![RecipeSource { path: "mm.cpp".into(), bytes: 10, sha256: "ab".repeat(32), kept: None }],
        program: "mm".into(),
        program_sha256: "cd".repeat(32),
        rebuilt_from: None,
    };
    let first = nb.record_run(
        vernier_engine::notebook::Measurement {
            recipe: Some(recipe.clone()),
            ..crate::util::measurement("a", &[1.0, 1.1, 1.2])
        },
        at(70),
    );
    let second = nb.record_run(
        vernier_engine::notebook::Measurement {
            recipe: Some(recipe),
            ..crate::util::measurement("b", &[1.0, 1.1, 1.2])
        },
        at(80),
    );
    let method = method_paragraph(&nb);
    use vernier_engine::notebook::{RowRef, row_list};
    let said = format!(
        "The program of {} was built by Vernier just before it was measured, with `g++ -O2 mm.cpp -o mm` (g++ \
         (GCC) 12.2.0)",
        row_list(&[RowRef::Run(first), RowRef::Run(second)])
    );
    assert!(method.contains(&said), "{method}");
    assert_eq!(method.matches("built by Vernier").count(), 1, "{method}");
}

// SPEC E18: the report's Method states the noise floor each session
// measured, once per floor, with the rows it stands under; a row without
// one (an import) is not given another's.
#[test]
fn the_method_states_each_sessions_noise_floor() {
    use vernier_engine::stats::NoiseFloor;
    let (_tmp, _dir, mut nb) = saved_notebook();
    /// A run recorded in `nb` at `seconds`, its session's floor `floor`.
    fn floored(nb: &mut vernier_engine::notebook::Notebook, what: &str, floor: &NoiseFloor, seconds: i64) -> u32 {
        let measurement = vernier_engine::notebook::Measurement {
            noise_floor: Some(floor.clone()),
            ..crate::util::measurement(what, &[1.0, 1.1, 1.2])
        };
        nb.record_run(measurement, at(seconds))
    }
    let floor = NoiseFloor::of(&[10.0, 10.2, 10.5, 10.1]).expect("timings");
    let first = floored(&mut nb, "a", &floor, 70);
    let second = floored(&mut nb, "b", &floor, 80);
    let bare = nb.record_run(crate::util::measurement("c", &[1.0, 1.1, 1.2]), at(90));
    // Another session's floor, then the first one's again: each floor is
    // said once, with every row that measured it.
    let wider = NoiseFloor::of(&[10.0, 11.0, 12.5, 10.1]).expect("timings");
    let other = floored(&mut nb, "d", &wider, 100);
    let again = floored(&mut nb, "e", &floor, 110);
    let method = method_paragraph(&nb);
    use vernier_engine::notebook::{RowRef, row_list};
    let rows = [RowRef::Run(first), RowRef::Run(second), RowRef::Run(again)];
    let said = format!("{}: {}", row_list(&rows), floor.describe());
    assert!(method.contains("noise floor") && method.contains(&said), "{method}");
    assert_eq!(method.matches(&floor.describe()).count(), 1, "{method}");
    let said = format!("{}: {}", row_list(&[RowRef::Run(other)]), wider.describe());
    assert!(method.contains(&said), "{method}");
    assert!(!method.contains(&format!("{}: {}", row_list(&[RowRef::Run(bare)]), floor.describe())), "{method}");
}

// SPEC S19 (issue 48 item 2): the report's results table gives the tail
// beside the median of each row whose budget was stated — the sentence
// every face shows — leaves a row without one empty, and has no such
// column when no row stated a budget.
#[test]
fn the_report_results_table_shows_the_tail_against_the_budget() {
    let results = |nb: &vernier_engine::notebook::Notebook| {
        documents::fill(nb, Document::Report, &Attachments::default())
            .into_iter()
            .find_map(|b| match b {
                Block::Table(rows) if rows[0][0] == "Experiment" => Some(rows),
                _ => None,
            })
            .expect("the results table")
    };
    let (_tmp, _dir, mut nb) = saved_notebook();
    assert!(!results(&nb)[0].iter().any(|h| h.starts_with("Tail")), "no budget stated, no column");
    let mut trials = vec![15.0; 28];
    trials.extend([18.0, 20.0, 18.0]);
    let tail = vernier_engine::stats::Tail::of(&trials, 16.7);
    nb.record_run(
        vernier_engine::notebook::Measurement { tail, ..crate::util::measurement("frame", &trials) },
        at(300),
    );
    let rows = results(&nb);
    let column = rows[0].iter().position(|h| h == "Tail against the budget").expect("the tail's column");
    let framed = rows.iter().find(|r| r[0] == "frame").expect("the row with a budget");
    assert_eq!(
        framed[column],
        "budget 16.7 ms: 3 of 31 timed trials missed it (took longer); p95 18 ms beside the median 15 ms \
         (interpolated between closest ranks)"
    );
    assert_eq!(rows[1][column], "", "a row without a budget says nothing of one");
}
