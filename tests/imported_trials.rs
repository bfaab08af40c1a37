//! SPEC E14, D5 (issue 35): an imported row's trials are read back from the
//! file it keeps unchanged — a CSV's column, Google Benchmark's repetitions,
//! pyperf's values — and give the row's own median.

use std::path::Path;

use vernier_engine::import::{self, csv, gbench, pyperf};
use vernier_engine::notebook::store;

use crate::util::{at, saved_notebook};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

// SPEC E14: each format's rows read back, values in the row's unit, timed
// apart from the warm-up the file holds, with the row's median.
#[test]
fn every_imported_format_reads_back_its_rows() {
    let (_tmp, dir, mut nb) = saved_notebook();
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
    ];
    let before = nb.runs().len();
    for p in &prepared {
        p.record(&dir, &mut nb, at(10)).expect("recorded");
    }
    store::replace(&dir, &nb).expect("save");
    let imported = &nb.runs()[before..];
    assert!(imported.len() >= 6, "{} rows", imported.len());
    for run in imported {
        let values = import::read_back(&dir, run).unwrap_or_else(|e| panic!("run {}: {e}", run.number));
        assert_eq!(values.timed.len(), run.measurement.summary.n, "run {}", run.number);
        let median = vernier_engine::stats::Summary::of(&values.timed).expect("values").median;
        assert_eq!(median, run.measurement.summary.median, "run {}", run.number);
    }
    // The driver's blocked column, exactly as the file has it.
    let blocked = import::read_back(&dir, &imported[1]).expect("blocked");
    assert_eq!(blocked.timed[..2], [2.618, 2.604]);
}
