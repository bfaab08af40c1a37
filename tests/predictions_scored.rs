//! SPEC N14, T1, N4: a prediction's committed figure, the rows that answer
//! it, and the outcome — held, missed or unresolvable.

use vernier_engine::notebook::{AnsweredBy, Committed, NotebookError, PredictionText, SoakProtocol, Word, store};
use vernier_engine::soak::{Thresholds, analyze, file};

use vernier_engine::notebook::{NewPair, Notebook};
use vernier_engine::stats::{self, Spread, Summary};

use crate::util::{at, measurement, saved_notebook, soak_row, soak_text, text};

/// Blocked (A) against naive (B), measured at `seconds`; the comparison's number.
fn comparison(nb: &mut Notebook, naive: &[f64], seconds: i64) -> u32 {
    let blocked = [10.0, 10.1, 9.9];
    let runs = [
        nb.record_run(measurement("blocked", &blocked), at(seconds)),
        nb.record_run(measurement("naive", naive), at(seconds)),
    ];
    let [a, b] = [&blocked[..], naive].map(|t| Spread::from(&Summary::of(t).expect("trials")));
    let verdict = stats::compare(a, b, ("blocked", "naive"), "median wall time", "ms");
    let pair = NewPair {
        what: "matmul".into(),
        labels: ["blocked".into(), "naive".into()],
        verdict,
        paired: stats::paired_ratios(&blocked, naive),
        order: None,
    };
    nb.record_pair(pair, runs, at(seconds)).expect("pair")
}

fn with_figure(experiment: &str, figure: &str) -> PredictionText {
    PredictionText { figure: Some(Committed::parse(figure).expect("a figure")), ..text(experiment, "p", "w") }
}

// SPEC N14, T1: the course's synthetic soak (onset 80 s, S/P 0.60) against a
// prediction of onset 180 s ± 20 % and S/P 0.8 ± 0.05 misses on both numbers.
#[test]
fn the_synthetic_soak_misses_a_prediction_of_180_s_and_0_8() {
    let text = include_str!("../datasets/thermal-soak.csv");
    let data = file::parse(text.as_bytes(), std::path::Path::new("thermal-soak.csv")).expect("parses");
    let analysis = analyze(&data, &Thresholds::default()).expect("analyses");
    assert_eq!(analysis.numbers.t_onset, Some(80.0));
    let Committed::Soak { onset, onset_tolerance, fraction, fraction_tolerance } =
        Committed::parse("onset 180 s ± 20 %, S/P 0.8 ± 0.05").expect("a soak figure")
    else {
        panic!("a soak figure");
    };
    let outcome =
        vernier_engine::notebook::score_soak(onset, onset_tolerance, fraction, fraction_tolerance, &analysis.numbers);
    assert_eq!(outcome.word, Word::Missed);
    assert_eq!(outcome.observed, "onset 80 s, S/P 0.60");
    assert_eq!(
        outcome.text,
        "missed on onset: predicted 180 s ± 20 %, observed 80 s (0.44× the prediction); \
         missed on S/P: predicted 0.8 ± 0.05, observed 0.60 (0.75× the prediction)"
    );
}

// SPEC N14, T1: a soak prediction commits its two numbers; a soak recorded
// after it answers it and is scored per number.
#[test]
fn a_soak_prediction_needs_its_two_numbers_and_is_answered_by_its_soak() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    let err = nb.add_soak_prediction(text("soak", "falls", "fanless"), SoakProtocol::default(), at(40));
    assert!(matches!(err, Err(NotebookError::Figure(_))), "{err:?}");
    let p = nb
        .add_soak_prediction(
            soak_text("soak", "falls", "fanless", "onset none, S/P 0.95 ± 0.05"),
            SoakProtocol::default(),
            at(41),
        )
        .expect("soak prediction");
    let numbers = vernier_engine::notebook::SoakNumbers {
        peak: 100.0,
        t_onset: None,
        t_stable: None,
        sustained: 97.0,
        ratio: 0.97,
        tail_iqr: 1.0,
        unit: "chunks/s".into(),
    };
    let s = nb.record_soak(soak_row(SoakProtocol::default(), numbers, 60), at(60));
    nb.answer_prediction(p, AnsweredBy::Soak(s), at(61)).expect("answered");
    let outcome = nb.outcome_text(p);
    assert!(outcome.starts_with("S1: held on onset: predicted none, observed none; held on S/P"), "{outcome}");
}

// SPEC N14, N4: answering touches no sealed byte; a row older than the
// prediction cannot answer it; an amendment's figure scores only the rows
// measured after it.
#[test]
fn answers_leave_the_seal_alone_and_follow_amendments() {
    let (_tmp, dir, mut nb) = saved_notebook();
    let p = nb.add_prediction(with_figure("naive vs blocked", "ratio naive/blocked = 3 ± 50 %"), at(50)).expect("P3");
    let c1 = comparison(&mut nb, &[160.0, 161.0, 159.0], 100);
    let sealed: Vec<String> = nb.predictions().iter().map(|p| p.hash.clone()).collect();
    nb.answer_prediction(p, AnsweredBy::Comparison(c1), at(110)).expect("C1 answers P3");
    assert_eq!(nb.predictions().iter().map(|p| p.hash.clone()).collect::<Vec<_>>(), sealed, "no seal changed");
    assert!(nb.integrity().is_empty());
    assert_eq!(nb.outcome_text(p), "C1: missed (observed 16×, 5.3× the prediction)");

    // Run 1 was measured before P3 was written (N4).
    let err = nb.answer_prediction(p, AnsweredBy::Run(1), at(111)).expect_err("too old");
    assert!(err.to_string().contains("before P3 was recorded"), "{err}");
    // Arms the ratio does not name are refused.
    let q = nb.add_prediction(with_figure("ijk vs ikj", "ratio ijk/ikj = 3 ± 50 %"), at(111)).expect("P4");
    let c2 = comparison(&mut nb, &[28.0, 28.1, 27.9], 112);
    let err = nb.answer_prediction(q, AnsweredBy::Comparison(c2), at(113)).expect_err("no such arms");
    assert!(err.to_string().contains("arms are blocked and naive"), "{err}");

    // P3 amended to 16 ± 20 %: rows after the amendment are scored against it.
    let amended = nb
        .amend_prediction_with(
            p,
            "about 16x",
            "the naive loop misses every line",
            Committed::parse("ratio naive/blocked = 16 ± 20 %").ok(),
            None,
            at(115),
        )
        .expect("amended");
    let c3 = comparison(&mut nb, &[160.0, 161.0, 159.0], 120);
    nb.answer_prediction(p, AnsweredBy::Comparison(c3), at(130)).expect("C3 answers the family");
    assert_eq!(nb.outcome_text(p), "C1: missed (observed 16×, 5.3× the prediction)", "C1 keeps P3's figure");
    assert_eq!(nb.outcome_text(amended), "C3: held (observed 16×)");
    store::replace(&dir, &nb).expect("save");
    let back = store::load(&dir).expect("reload");
    assert_eq!(back.answers(), nb.answers());
    assert!(back.integrity().is_empty(), "the chain test still holds after answers");
}

// SPEC N14, N8: a notebook written before figures and answers opens, and its
// locked predictions show "not answered yet".
#[test]
fn an_older_notebook_shows_its_predictions_unanswered() {
    let v1 = include_str!("fixtures/notebook-with-runs.ron");
    let nb = store::from_bytes(v1.as_bytes(), std::path::Path::new("v1/notebook.ron")).expect("loads");
    assert!(nb.answers().is_empty());
    let p = &nb.predictions()[0];
    assert!(p.figure.is_none() && nb.lock_of(p).is_some());
    assert_eq!(nb.outcome_text(p.number), "not answered yet");
    assert!(nb.integrity().is_empty(), "a prediction without a figure seals as before");
}

// SPEC N14: a run answers a median figure, in the figure's unit.
#[test]
fn a_run_answers_a_median() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    let p = nb.add_prediction(with_figure("seq", "median 12 ms ± 10 %"), at(50)).expect("P3");
    let r = nb.record_run(measurement("seq", &[12.4, 12.5, 12.4, 12.6, 12.5]), at(60));
    nb.answer_prediction(p, AnsweredBy::Run(r), at(61)).expect("answered");
    assert_eq!(nb.outcome_text(p), "run 2: held (observed 12.50 ms)");
    let q = nb.add_prediction(with_figure("seq", "median 12 GB/s ± 10 %"), at(62)).expect("P4");
    let r = nb.record_run(measurement("seq", &[12.4, 12.5, 12.4, 12.6, 12.5]), at(63));
    let err = nb.answer_prediction(q, AnsweredBy::Run(r), at(64)).expect_err("GB/s is not ms");
    assert!(err.to_string().contains("cannot be put on one scale"), "{err}");
    nb.answer_prediction(q, AnsweredBy::Open("ran out of time".into()), at(65)).expect("left open");
    assert_eq!(nb.outcome_text(q), "left open: ran out of time");
}

// SPEC S17, A18, N5 (issue 47 item 6): a prediction answered by a run that
// is then discarded is not scored "held": a discarded row answers nothing.
#[test]
fn a_discarded_row_answers_nothing() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    let p = nb.add_prediction(with_figure("seq", "median 12 ms ± 10 %"), at(50)).expect("P3");
    let r = nb.record_run(measurement("seq", &[12.4, 12.5, 12.4, 12.6, 12.5]), at(60));
    nb.answer_prediction(p, AnsweredBy::Run(r), at(61)).expect("answered");
    assert_eq!(nb.outcome_text(p), "run 2: held (observed 12.50 ms)");
    nb.discard(vernier_engine::notebook::RowRef::Run(r), "the fan was blocked", at(62)).expect("discarded");
    let outcome = nb.outcome_text(p);
    assert!(!outcome.contains("held"), "{outcome}");
    assert!(outcome.contains("run 2 is discarded"), "{outcome}");
}
