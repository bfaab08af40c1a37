//! Fixtures shared by the test modules.

use std::path::PathBuf;

use chrono::{DateTime, TimeZone, Utc};
use vernier_engine::notebook::{
    Measurement, Notebook, PredictionText, Soak, SoakNumbers, SoakProtocol, Tag, WarmupPolicy, store,
};
use vernier_engine::stats::Summary;

/// A fixed instant plus `seconds`, so tests never depend on the clock.
pub fn at(seconds: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).single().expect("valid date") + chrono::Duration::seconds(seconds)
}

/// A prediction's text.
pub fn text(experiment: &str, predict: &str, why: &str) -> PredictionText {
    PredictionText { experiment: experiment.into(), predict: predict.into(), why: why.into() }
}

/// A measured run of `trials` in ms, as the engine would record it.
pub fn measurement(what: &str, trials: &[f64]) -> Measurement {
    Measurement {
        what: what.into(),
        command: vec!["kernel".into(), "matmul-ikj".into(), "--size".into(), "512".into()],
        warmup: WarmupPolicy::Count(3),
        warmup_trials: 3,
        summary: Summary::of(trials).expect("valid trials"),
        unit: "ms".into(),
        ns_per_unit: 1e6,
        conditions: Vec::new(),
        raw_file: None,
        tag: Tag::Measured,
        synthetic: false,
        extends: None,
        figure: None,
        work: None,
        boundary: None,
    }
}

/// A measured soak row run under `protocol` with `numbers`, recorded at
/// `seconds`, with no raw file or conditions (the row as a test needs it).
pub fn soak_row(protocol: SoakProtocol, numbers: SoakNumbers, seconds: i64) -> Soak {
    Soak {
        number: 0,
        recorded_at: at(seconds),
        discarded: None,
        protocol,
        numbers,
        conditions: Vec::new(),
        raw_file: None,
        tag: Tag::Measured,
        synthetic: false,
        stated: None,
    }
}

/// A notebook with two predictions (P1 locked by run 1, P2 open), one run
/// and a note, saved in a fresh temporary folder.
pub fn saved_notebook() -> (tempfile::TempDir, PathBuf, Notebook) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("nb");
    let mut nb = store::create(&dir, "Project 3 — The Memory Wall Lab", at(0)).expect("create");
    nb.add_prediction(text("matmul ijk vs ikj, N=512", "ikj about 3x faster", "unit stride in the inner loop"), at(10))
        .expect("P1");
    nb.record_run(measurement("matmul ikj, N=512", &[12.4, 12.5, 12.4, 12.6, 24.9]), at(20));
    nb.add_prediction(text("seq vs chase at 64 MiB", "chase 20x slower", "no memory-level parallelism"), at(30))
        .expect("P2");
    nb.add_note("machine woke from sleep before run 1", at(40)).expect("note");
    store::replace(&dir, &nb).expect("save");
    (tmp, dir, nb)
}
