//! Fixtures shared by the test modules.

use std::path::PathBuf;

use chrono::{DateTime, TimeZone, Utc};
use vernier_engine::harness::{TrialRecord, TrialStatus, raw};
use vernier_engine::notebook::{
    Committed, Condition, Measurement, NewPair, Notebook, PredictionText, RawFile, Soak, SoakNumbers, SoakProtocol,
    Tag, WarmupPolicy, store,
};
use vernier_engine::stats::{self, Spread, Summary};

/// A fixed instant plus `seconds`, so tests never depend on the clock.
pub fn at(seconds: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).single().expect("valid date") + chrono::Duration::seconds(seconds)
}

/// A soak prediction's texts with its two numbers committed (T1, N14).
pub fn soak_text(experiment: &str, predict: &str, why: &str, figure: &str) -> PredictionText {
    PredictionText { figure: Some(Committed::parse(figure).expect("a soak figure")), ..text(experiment, predict, why) }
}

/// A prediction's text.
pub fn text(experiment: &str, predict: &str, why: &str) -> PredictionText {
    PredictionText { experiment: experiment.into(), predict: predict.into(), why: why.into(), figure: None }
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
        recipe: None,
        tail: None,
        noise_floor: None,
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
    let mut nb = Notebook::new("Project 3 — The Memory Wall Lab", at(0));
    nb.add_prediction(text("matmul ijk vs ikj, N=512", "ikj about 3x faster", "unit stride in the inner loop"), at(10))
        .expect("P1");
    nb.record_run(measurement("matmul ikj, N=512", &[12.4, 12.5, 12.4, 12.6, 24.9]), at(20));
    nb.add_prediction(text("seq vs chase at 64 MiB", "chase 20x slower", "no memory-level parallelism"), at(30))
        .expect("P2");
    nb.add_note("machine woke from sleep before run 1", at(40)).expect("note");
    // Written whole into notebook.ron (no journal yet), as the tests that
    // edit the file by hand expect to find it.
    store::create_from(&dir, &nb).expect("save");
    (tmp, dir, nb)
}

/// Interleaved trials of two arms, in ms, as the harness writes them.
pub fn raw_text(a: &[f64], b: &[f64]) -> String {
    let mut trials = Vec::new();
    for (k, (a, b)) in a.iter().zip(b).enumerate() {
        for (arm, ms) in [(0, a), (1, b)] {
            let index = u32::try_from(2 * k + arm).expect("few trials");
            let ns = (ms * 1e6).round() as u64;
            trials.push(TrialRecord {
                index,
                arm,
                position: 1,
                warmup: false,
                ns,
                status: TrialStatus::Ok,
                work: Default::default(),
            });
        }
    }
    raw::render(&[raw::unit_comment("A", "ms", 1e6), raw::unit_comment("B", "ms", 1e6)], &trials)
}

/// Records `a` against `b` as comparison rows whose raw file is `file`
/// (arms A and B), labelled `labels`, arm A built with `build_a` if given;
/// returns the pair's number.
pub fn record_comparison(
    nb: &mut Notebook,
    file: &RawFile,
    what: &str,
    labels: [&str; 2],
    trials: [&[f64]; 2],
    build_a: Option<&str>,
) -> u32 {
    let mut runs = [0; 2];
    for (i, arm) in ["A", "B"].into_iter().enumerate() {
        let mut m = measurement(&format!("{what}: {}", labels[i]), trials[i]);
        if let Some(build) = build_a.filter(|_| i == 0) {
            m.conditions.push(Condition { field: "build".into(), value: build.into() });
        }
        m.warmup_trials = 0;
        m.raw_file = Some(RawFile { arm: arm.into(), ..file.clone() });
        runs[i] = nb.record_run(m, at(100 + i as i64));
    }
    let summaries = trials.map(|t| Summary::of(t).expect("trials"));
    let verdict = stats::compare(
        Spread::from(&summaries[0]),
        Spread::from(&summaries[1]),
        (labels[0], labels[1]),
        "median wall time",
        "ms",
    );
    let pair = NewPair {
        what: what.into(),
        labels: labels.map(String::from),
        verdict,
        paired: stats::paired_ratios(trials[0], trials[1]),
        order: None,
    };
    nb.record_pair(pair, runs, at(102)).expect("pair")
}

/// The Runs sheet of a workbook Vernier wrote, from its header row down:
/// the line of shared conditions above the header (SPEC D8), when there is
/// one, is left out (see [`runs_shared_line`]).
pub fn runs_sheet(bytes: &[u8]) -> Vec<Vec<calamine::Data>> {
    use calamine::Reader as _;
    let mut book: calamine::Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes)).expect("readable");
    let rows: Vec<Vec<calamine::Data>> =
        book.worksheet_range("Runs").expect("Runs").rows().map(<[calamine::Data]>::to_vec).collect();
    let header = rows.iter().position(|r| r.first().is_some_and(|c| *c == "#")).expect("a header row");
    rows.into_iter().skip(header).collect()
}

/// The line above the Runs sheet's header, if any.
pub fn runs_shared_line(bytes: &[u8]) -> Option<String> {
    use calamine::Reader as _;
    let mut book: calamine::Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes)).expect("readable");
    let range = book.worksheet_range("Runs").expect("Runs");
    let first = range.rows().next()?.first()?.to_string();
    (first != "#").then_some(first)
}
