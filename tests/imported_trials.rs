//! SPEC E14, D5 (issue 35, 46): an imported row's trials are read back from
//! the file it keeps — a CSV's column, Google Benchmark's repetitions,
//! pyperf's values, hyperfine's times — by the importer the row names, and
//! give the row's own median.

use std::path::{Path, PathBuf};

use vernier_engine::import::{self, csv, gbench, hyperfine, pyperf};
use vernier_engine::notebook::{ImportFormat, NotebookPath, Run, store};
use vernier_engine::row_trials::{self, RowTrials, RowTrialsError};

use crate::util::saved_notebook;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// A notebook with every format imported through the engine's use case,
/// and its imported rows.
fn imported_notebook() -> (tempfile::TempDir, PathBuf, Vec<Run>) {
    let (tmp, dir, nb) = saved_notebook();
    store::replace(&dir, &nb).expect("save");
    let spec = csv::CsvSpec {
        arms: csv::Arms::Two(["naive_ms".into(), "blocked_ms".into()]),
        pair: Some("pair".into()),
        first: Some("first".into()),
        ..csv::CsvSpec::column("")
    };
    let prepared = [
        csv::prepare(&fixture("matmul-driver.csv"), &spec).expect("csv"),
        gbench::prepare(&fixture("gbench/matmul-reps9.json"), &gbench::GbenchSpec::default()).expect("gbench"),
        pyperf::prepare(&fixture("pyperf/sums.json.gz"), &pyperf::PyperfSpec::default()).expect("pyperf"),
        hyperfine::prepare(&fixture("hyperfine-true.json"), None, None).expect("hyperfine"),
    ];
    let before = nb.runs().len();
    let mut last = None;
    for p in &prepared {
        last = Some(import::record(&dir, p).expect("recorded").notebook);
    }
    let nb = last.expect("a notebook");
    (tmp, dir, nb.runs()[before..].to_vec())
}

/// The row's timed trials, read back by the engine's one function.
fn timed(dir: &Path, run: &Run) -> Result<Vec<f64>, RowTrialsError> {
    row_trials::read(dir, run).map(|trials| trials.timed(run))
}

/// `run` with its raw file copied to `name` in `raw/`, saying `imported`.
fn moved(dir: &Path, run: &Run, name: &str, imported: Option<&str>) -> Run {
    let mut run = run.clone();
    let file = std::sync::Arc::make_mut(&mut run.measurement).raw_file.as_mut().expect("a raw file");
    std::fs::copy(dir.join(file.path.as_str()), dir.join("raw").join(name)).expect("copy");
    file.path = NotebookPath::new(format!("raw/{name}")).expect("path");
    file.imported = imported.map(ImportFormat::new);
    run
}

// SPEC E14: each format's rows read back, values in the row's unit, timed
// apart from the warm-up the file holds, with the row's median; every row
// names the importer that wrote its file.
#[test]
fn every_imported_format_reads_back_its_rows() {
    let (_tmp, dir, imported) = imported_notebook();
    assert!(imported.len() >= 7, "{} rows", imported.len());
    let formats: std::collections::BTreeSet<&str> = imported
        .iter()
        .map(|r| r.measurement.raw_file.as_ref().and_then(|f| f.imported.as_ref()).expect("kept").as_str())
        .collect();
    assert_eq!(formats.into_iter().collect::<Vec<_>>(), ["csv", "gbench", "hyperfine", "pyperf"]);
    for run in &imported {
        let values = timed(&dir, run).unwrap_or_else(|e| panic!("run {}: {e}", run.number));
        assert_eq!(values.len(), run.measurement.summary.n, "run {}", run.number);
        let median = vernier_engine::stats::Summary::of(&values).expect("values").median;
        let close = (median - run.measurement.summary.median).abs() <= 1e-6 * run.measurement.summary.median;
        assert!(close, "run {}: {median} against {}", run.number, run.measurement.summary.median);
    }
    // The driver's blocked column, exactly as the file has it.
    let blocked = timed(&dir, &imported[1]).expect("blocked");
    assert_eq!(blocked[..2], [2.618, 2.604]);
}

// SPEC E14: the row's stored format is what its file is read back as, never
// the file's name: a Google Benchmark file under a CSV's name, or under a
// name of no importer, reads as the row says; a row naming a CSV over that
// same file is read as a CSV, and fails as one.
#[test]
fn a_row_is_read_back_as_its_stored_format_whatever_its_file_is_called() {
    let (_tmp, dir, imported) = imported_notebook();
    let gbench = imported.iter().find(|r| r.measurement.what.contains("BM_")).expect("a gbench row");
    let want = timed(&dir, gbench).expect("as recorded");
    for name in ["import-csv-99.csv", "numbers.bin"] {
        let renamed = moved(&dir, gbench, name, Some("gbench"));
        assert_eq!(timed(&dir, &renamed).expect(name), want, "{name}");
    }
    let says_csv = moved(&dir, gbench, "import-gbench-98.json", Some("csv"));
    let refused = timed(&dir, &says_csv).expect_err("not a CSV");
    assert!(refused.to_string().contains("column"), "{refused}");
    let unknown = moved(&dir, gbench, "import-gbench-97.json", Some("criterion"));
    let refused = timed(&dir, &unknown).expect_err("unknown");
    assert_eq!(refused.to_string(), "raw/import-gbench-97.json is in a format Vernier does not read back");
}

// SPEC E14, N1: a row saved before rows kept their importer (a schema-6
// notebook.ron, no `imported`) loads, and its file is read back by the
// importer its contents match, even under another format's name.
#[test]
fn an_older_row_without_its_format_reads_back_by_its_contents() {
    let (_tmp, dir, imported) = imported_notebook();
    let nb = store::load(&dir).expect("load");
    let mut older =
        store::to_text(&nb).expect("text").replacen(&format!("schema: {},", store::SCHEMA_VERSION), "schema: 6,", 1);
    let mut stripped = 0;
    while let Some(k) = older.find(", imported: Some(\"") {
        let end = older[k..].find("\")").map(|e| k + e + 2).expect("the id's end");
        older.replace_range(k..end, "");
        stripped += 1;
    }
    assert_eq!(stripped, imported.len(), "every imported row kept its importer");
    std::fs::remove_file(dir.join(store::JOURNAL_FILE)).ok();
    std::fs::write(dir.join(store::NOTEBOOK_FILE), older).expect("write");
    let loaded = store::load(&dir).expect("an older notebook loads");
    for run in &imported {
        let run = loaded.run(run.number).expect("kept");
        assert!(run.measurement.raw_file.as_ref().is_some_and(|f| f.imported.is_none()), "run {}", run.number);
        let values = timed(&dir, run).unwrap_or_else(|e| panic!("run {}: {e}", run.number));
        assert_eq!(values.len(), run.measurement.summary.n, "run {}", run.number);
    }
    // Under a CSV's name, a pyperf file is still read as pyperf.
    let kept = |r: &&Run| r.measurement.raw_file.as_ref().and_then(|f| f.imported.clone());
    let pyperf = imported.iter().find(|r| kept(r) == Some(ImportFormat::new("pyperf"))).expect("pyperf");
    let pyperf = loaded.run(pyperf.number).expect("kept");
    let renamed = moved(&dir, pyperf, "import-csv-96.csv", None);
    assert_eq!(timed(&dir, &renamed).expect("by contents"), timed(&dir, pyperf).expect("as kept"));
    assert!(matches!(row_trials::read(&dir, &renamed), Ok(RowTrials::Imported(_))));
}
