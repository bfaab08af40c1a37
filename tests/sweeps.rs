//! SPEC E16, U4, D5: a sweep recorded as one group, drawn from one model in
//! every face, and kept honest when its file is someone else's.

use calamine::{Data, Reader, Xlsx};
use vernier_engine::documents::blocks::Block;
use vernier_engine::documents::{self, Attachments, measurements};
use vernier_engine::notebook::Document;
use vernier_engine::notebook::Param;
use vernier_engine::notebook::{NewSweep, Notebook, RowRef, RunsLine, store};
use vernier_engine::sweep_view::SweepView;

use crate::util::{at, measurement};

/// A notebook with a sweep W1 over SIZE = 16 KiB … 64 MiB (runs 2–8, the
/// median rising from 2 to 200 ns/access) after an unrelated run 1.
fn swept() -> Notebook {
    let mut nb = Notebook::new("Memory wall", at(0));
    nb.record_run(measurement("unrelated", &[1.0, 1.1, 1.2]), at(1));
    let size = Param::parse("SIZE=16K..64M*4").expect("param");
    let mut runs = Vec::new();
    for (i, value) in size.values.iter().enumerate() {
        let median = 2.0 * 3f64.powi(i as i32);
        let mut m = measurement(&format!("walk: SIZE={}", size.show(value)), &[median * 0.98, median, median * 1.03]);
        m.unit = "ns/access".into();
        m.command = vec!["./walk".into(), value.clone()];
        runs.push(nb.record_run(m, at(2 + i as i64)));
    }
    let points = size.values.iter().map(|v| vec![v.clone()]).collect();
    let sweep = NewSweep {
        what: "pointer chase".into(),
        template: vec!["./walk".into(), "{SIZE}".into()],
        params: vec![size],
        points,
    };
    nb.record_sweep(sweep, runs, at(20)).expect("sweep");
    nb
}

// SPEC E16: one group of rows, its line under its last row, and a file that
// names a run it does not have is refused on load.
#[test]
fn a_sweep_is_one_group_of_rows() {
    let nb = swept();
    let sweep = &nb.sweeps()[0];
    assert_eq!((sweep.label(), sweep.runs_text()), ("W1".to_owned(), "runs 2–8".to_owned()));
    assert_eq!(sweep.params_text(), "SIZE over 16 KiB … 64 MiB (7 values)");
    assert_eq!(nb.sweep_of(5).map(|s| s.number), Some(1));
    assert!(nb.sweep_of(1).is_none());
    let lines = nb.runs_lines();
    assert!(matches!(lines.last(), Some(RunsLine::Sweep(s)) if s.number == 1));
    assert!(matches!(lines[lines.len() - 2], RunsLine::Run(r) if r.number == 8));
    assert!(nb.comparison_partner(3).is_none(), "a sweep's points are not a comparison");

    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    store::create(&dir, "x", at(0)).expect("create");
    store::replace(&dir, &nb).expect("save");
    assert_eq!(store::load(&dir).expect("reload").sweeps(), nb.sweeps());
    let file = dir.join(store::NOTEBOOK_FILE);
    let text = std::fs::read_to_string(&file).expect("read");
    let planted = text.replacen("runs: [2, ", "runs: [99, ", 1);
    assert_ne!(planted, text, "the sweep's runs are where the test expects them");
    std::fs::write(&file, planted).expect("write");
    let refused = store::load(&dir).expect_err("a sweep naming run 99");
    assert!(refused.to_string().contains("sweep W1 names run 99"), "{refused}");
}

// SPEC E16, U4: the view puts x in bytes, each axis logarithmic only past
// two decades, and leaves discarded points out.
#[test]
fn the_sweep_view_reads_the_rows() {
    let mut nb = swept();
    let view = SweepView::of_sweep(&nb.sweeps()[0], &nb).expect("view");
    assert_eq!(view.series.len(), 1);
    let xs: Vec<f64> = view.points().map(|p| p.x).collect();
    assert_eq!(xs.first().copied(), Some(16384.0));
    assert_eq!(view.points().last().map(|p| p.x_text.clone()), Some("64 MiB".to_owned()));
    assert!(view.log_x() && view.log_y(), "4096× in x, 729× in y");
    assert_eq!(view.display_unit().name(), "ns/access");
    nb.discard(RowRef::Run(3), "fan test", at(30)).expect("discard");
    assert_eq!(SweepView::of_sweep(&nb.sweeps()[0], &nb).expect("view").points().count(), 6);
}

// SPEC E16, U4: values that are not all numbers are placed in the
// parameter's order, each labelled with its text, never dropped.
#[test]
fn values_that_are_not_numbers_keep_their_order() {
    let mut nb = Notebook::new("modes", at(0));
    let mode = Param::parse("MODE=seq,rand,stride").expect("param");
    let runs: Vec<u32> = (0..3)
        .map(|i| {
            nb.record_run(
                measurement(&format!("mode {i}"), &[1.0 + f64::from(i), 2.0 + f64::from(i), 3.0]),
                at(i64::from(i)),
            )
        })
        .collect();
    let points = mode.values.iter().map(|v| vec![v.clone()]).collect();
    let sweep =
        NewSweep { what: "modes".into(), template: vec!["./walk".into(), "{MODE}".into()], params: vec![mode], points };
    nb.record_sweep(sweep, runs, at(9)).expect("sweep");
    let view = SweepView::of_sweep(&nb.sweeps()[0], &nb).expect("view");
    assert_eq!(view.categories.as_deref(), Some(&["seq".to_owned(), "rand".to_owned(), "stride".to_owned()][..]));
    assert_eq!(view.points().map(|p| p.x).collect::<Vec<_>>(), [0.0, 1.0, 2.0]);
    assert_eq!((view.x_label(1.0), view.x_label(0.5)), ("rand".to_owned(), String::new()));
    assert!(!view.log_x());
    let blocks = documents::fill(&nb, Document::Report, &Attachments::default());
    let table = blocks
        .iter()
        .find_map(|b| match b {
            Block::Table(t) if t.first().is_some_and(|h| h[0] == "MODE") => Some(t),
            _ => None,
        })
        .expect("the sweep's table");
    assert_eq!(table.iter().skip(1).map(|r| r[0].as_str()).collect::<Vec<_>>(), ["seq", "rand", "stride"]);
}

// SPEC E16, N8: a sweep that names one run twice was edited by hand.
#[test]
fn a_sweep_naming_a_run_twice_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    store::create(&dir, "x", at(0)).expect("create");
    store::replace(&dir, &swept()).expect("save");
    let file = dir.join(store::NOTEBOOK_FILE);
    let text = std::fs::read_to_string(&file).expect("read");
    let planted = text.replacen("runs: [2, 3, ", "runs: [2, 2, ", 1);
    assert_ne!(planted, text);
    std::fs::write(&file, planted).expect("write");
    let refused = store::load(&dir).expect_err("run 2 twice");
    assert!(refused.to_string().contains("sweep W1 names a run twice"), "{refused}");
}

// SPEC E16, D5: the report holds the sweep's chart, its sentence and its
// table (one row per value); the workbook links each row to its sweep.
#[test]
fn the_documents_chart_and_link_a_sweep() {
    let nb = swept();
    let blocks = documents::fill(&nb, Document::Report, &Attachments::default());
    let at_sweep = blocks
        .iter()
        .position(|b| matches!(b, Block::Paragraph(r) if r.iter().any(|r| r.text.starts_with("Sweep W1: runs 2–8"))))
        .expect("the sweep's sentence");
    // SPEC D8: the sentence, the one table, then the chart with its caption
    // drawn inside it (so the two never part).
    let Block::Picture(picture) = &blocks[at_sweep + 2] else { panic!("no chart after {:?}", blocks[at_sweep + 1]) };
    assert!(picture.alt.contains("W1") && picture.alt.contains("thermal:"), "{}", picture.alt);
    let Block::Table(table) = &blocks[at_sweep + 1] else { panic!("no table") };
    assert_eq!(table.len(), 8, "a header and one row per value");
    assert_eq!(table[0][0], "SIZE");
    assert_eq!(table[1][0], "16 KiB");
    assert_eq!(table[7][0], "64 MiB");

    let bytes = measurements::write(&nb).expect("workbook");
    let runs = crate::util::runs_sheet(&bytes);
    let mut book: Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes)).expect("readable");
    let column = runs[0].iter().position(|c| *c == "Sweep").expect("a Sweep column");
    assert_eq!(runs[1][column].to_string(), "");
    assert_eq!(runs[2][column].to_string(), "W1 · SIZE=16 KiB");
    let sweeps = book.worksheet_range("Sweeps").expect("a Sweeps sheet");
    let row = sweeps.rows().nth(1).expect("W1");
    // D3: `#` is a number (its format shows it as W1).
    assert_eq!(row[0], Data::Float(1.0));
    let row: Vec<String> = row.iter().map(ToString::to_string).collect();
    assert!(row.iter().any(|c| c == "runs 2–8"), "{row:?}");
}
