//! SPEC S1–S9: fixed cases against numpy, and invariants as properties.

use proptest::prelude::*;
use serde::Deserialize;
use vernier_engine::stats::{Rounded, Summary, decimals_for_dispersion};

#[derive(Deserialize)]
struct Reference {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    trials: Vec<f64>,
    median: f64,
    p25: f64,
    p75: f64,
    iqr: f64,
    min: f64,
    max: f64,
    drift: Option<f64>,
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

// SPEC S1, S2, S3, S5: every figure matches numpy (fixtures/gen_stats_fixtures.py).
#[test]
fn matches_numpy_reference() {
    let text = include_str!("fixtures/stats_reference.json");
    let reference: Reference = serde_json::from_str(text).expect("fixture parses");
    assert!(reference.cases.len() >= 9);
    for case in &reference.cases {
        let s = Summary::of(&case.trials).expect("valid case");
        let name = &case.name;
        assert_eq!(s.n, case.trials.len(), "{name}");
        for (what, ours, theirs) in [
            ("median", s.median, case.median),
            ("p25", s.p25, case.p25),
            ("p75", s.p75, case.p75),
            ("iqr", s.iqr, case.iqr),
            ("min", s.min, case.min),
            ("max", s.max, case.max),
        ] {
            assert!(close(ours, theirs), "{name}: {what} is {ours}, numpy says {theirs}");
        }
        match (s.drift, case.drift) {
            (Some(ours), Some(theirs)) => {
                assert!(close(ours, theirs), "{name}: drift {ours} vs {theirs}")
            }
            (ours, theirs) => assert_eq!(ours, theirs, "{name}: drift"),
        }
    }
}

// SPEC S1: with an odd count the median is one of the trials.
#[test]
fn odd_median_is_an_observed_trial() {
    let text = include_str!("fixtures/stats_reference.json");
    let reference: Reference = serde_json::from_str(text).expect("fixture parses");
    for case in reference.cases.iter().filter(|c| c.trials.len() % 2 == 1) {
        let s = Summary::of(&case.trials).expect("valid");
        assert!(case.trials.contains(&s.median), "{}", case.name);
    }
}

/// Digits after the decimal point ("12.50" → 2, "1200" → 0).
fn places(text: &str) -> usize {
    text.split_once('.').map_or(0, |(_, frac)| frac.len())
}

fn sample() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(0.001f64..1.0e6, 1..200)
}

proptest! {
    // SPEC S1, S3: the median lies between min and max; the best is the min.
    #[test]
    fn median_between_min_and_max(trials in sample()) {
        let s = Summary::of(&trials).expect("finite");
        prop_assert!(s.min <= s.p25 && s.p25 <= s.median && s.median <= s.p75 && s.p75 <= s.max);
        prop_assert_eq!(s.best(), s.min);
    }

    // SPEC S2: the IQR is never negative.
    #[test]
    fn iqr_is_not_negative(trials in sample()) {
        prop_assert!(Summary::of(&trials).expect("finite").iqr >= 0.0);
    }

    // SPEC S2, S5: reordering changes nothing but the drift.
    #[test]
    fn permutation_invariant_except_drift(trials in sample(), seed in any::<u64>()) {
        let mut shuffled = trials.clone();
        // Fisher–Yates with a small deterministic generator.
        let mut state = seed | 1;
        for i in (1..shuffled.len()).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            shuffled.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let (a, b) = (Summary::of(&trials).expect("finite"), Summary::of(&shuffled).expect("finite"));
        prop_assert_eq!((a.median, a.p25, a.p75, a.iqr, a.min, a.max), (b.median, b.p25, b.p75, b.iqr, b.min, b.max));
    }

    // SPEC S6: never more digits than the dispersion supports — one
    // significant digit, two only when the leading one is 1 or 2 — and the
    // median at exactly the dispersion's place.
    #[test]
    fn rounding_never_shows_unsupported_digits(median in -1.0e6f64..1.0e6, iqr in 1.0e-6f64..1.0e5) {
        let r = Rounded::new(median, iqr, median, median);
        let d = decimals_for_dispersion(iqr).expect("positive");
        let shown: f64 = r.iqr.parse().expect("number");
        // Significant digits = digits from the leading one down to place d.
        let exponent = shown.log10().floor() as i32;
        let digits = exponent + d + 1;
        let lead = r.iqr.chars().find(|c| c.is_ascii_digit() && *c != '0');
        prop_assert!(digits == 1 || digits == 2, "{} shows {} significant digits", r.iqr, digits);
        if digits == 2 {
            prop_assert!(matches!(lead, Some('1' | '2')), "two digits of {} need a leading 1 or 2", r.iqr);
        } else {
            prop_assert!(!matches!(lead, Some('1' | '2')), "{} should have kept a second digit", r.iqr);
        }
        prop_assert_eq!(places(&r.median), usize::try_from(d.max(0)).expect("small"));
        prop_assert_eq!(places(&r.iqr), places(&r.median));
        // The shown dispersion is the real one, rounded: never off by more than half a unit of its last place.
        prop_assert!((shown - iqr).abs() <= 0.5 * 10f64.powi(-d) * (1.0 + 1e-9));
    }
}
