//! The instrument's noise floor (SPEC E11, E18; the course's 004: "THE
//! NOISE FLOOR, measured before any claim is made"): one body timed back
//! to back, nothing changing between the timings, and the spread it still
//! shows. A difference between two rows smaller than that spread is one the
//! instrument cannot tell from its own noise, so it claims nothing.

use serde::{Deserialize, Serialize};

use super::rounding::{format_significant, ordered_places, significant_places};

/// The noise floor: one body timed back to back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoiseFloor {
    /// Repetitions.
    pub runs: usize,
    /// Fastest, ms.
    pub min_ms: f64,
    /// Slowest, ms.
    pub max_ms: f64,
    /// max / min − 1: the spread this machine shows with nothing changing.
    pub spread: f64,
}

impl NoiseFloor {
    /// The floor of `times_ms`, one body's timings back to back; `None`
    /// with none, or with a fastest that is not a positive time.
    pub fn of(times_ms: &[f64]) -> Option<Self> {
        let (min_ms, max_ms) = times_ms.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &t| (lo.min(t), hi.max(t)));
        (!times_ms.is_empty() && min_ms > 0.0 && max_ms.is_finite()).then(|| Self {
            runs: times_ms.len(),
            min_ms,
            max_ms,
            spread: max_ms / min_ms - 1.0,
        })
    }

    /// `4.2 % (the canary ×16 back to back: 10.1 – 10.5 ms)`: what a row
    /// shows of the floor its session measured.
    pub fn describe(&self) -> String {
        format!(
            "{} % (the canary ×{} back to back: {} – {} ms)",
            format_significant(self.spread * 100.0, 2),
            self.runs,
            format_significant(self.min_ms, 3),
            format_significant(self.max_ms, 3)
        )
    }

    /// SPEC E18: the finding when the relative difference `difference`
    /// (|B − A| / A) between the rows or arms `names` (A, B) is below this
    /// floor; `None` when it is not.
    pub fn below(&self, difference: f64, names: [&str; 2]) -> Option<BelowFloor> {
        (difference.abs() < self.spread).then(|| BelowFloor {
            names: names.map(str::to_owned),
            difference: difference.abs(),
            floor: self.spread,
        })
    }
}

/// SPEC E18's finding: a difference smaller than the instrument's noise
/// floor, which makes no claim. One type, one sentence, for every face
/// that compares two rows (a recorded comparison, `compare`, the window).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BelowFloor {
    /// What was compared, A then B (`run 1`, or an arm's label).
    pub names: [String; 2],
    /// The difference, |B − A| / A.
    pub difference: f64,
    /// The floor's spread it is below (the larger of the two rows').
    pub floor: f64,
}

impl BelowFloor {
    /// `the difference between run 1 and run 2 (2.1 %) is below the
    /// instrument's noise floor (4.8 %, one body timed back to back): the
    /// instrument cannot tell it from its own noise`, the two percentages
    /// at digits that show which is larger (S17).
    pub fn sentence(&self) -> String {
        let [d, f] = [self.difference, self.floor].map(|v| 100.0 * v);
        let from = significant_places(d, 2).min(significant_places(f, 2));
        let place = ordered_places(d, f, from);
        let show = |v: f64| super::rounding::format_at(v, place);
        format!(
            "the difference between {} and {} ({} %) is below the instrument's noise floor ({} %, one body timed back \
             to back): the instrument cannot tell it from its own noise",
            self.names[0],
            self.names[1],
            show(d),
            show(f)
        )
    }
}

impl std::fmt::Display for BelowFloor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.sentence())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E18: the floor is max/min − 1 of the body's timings, and a
    // difference below it is a finding that says so; one above is none.
    #[test]
    fn a_difference_below_the_floor_is_a_finding() {
        let floor = NoiseFloor::of(&[10.0, 10.2, 10.5, 10.1]).expect("timings");
        assert!((floor.spread - 0.05).abs() < 1e-12);
        assert_eq!(floor.describe(), "5.0 % (the canary ×4 back to back: 10.0 – 10.5 ms)");
        let below = floor.below(0.021, ["run 1", "run 2"]).expect("below the floor");
        assert_eq!(
            below.sentence(),
            "the difference between run 1 and run 2 (2.1 %) is below the instrument's noise floor (5.0 %, one body \
             timed back to back): the instrument cannot tell it from its own noise"
        );
        assert_eq!(floor.below(0.08, ["run 1", "run 2"]), None);
        assert_eq!(NoiseFloor::of(&[]), None);
        assert_eq!(NoiseFloor::of(&[0.0, 1.0]), None);
    }
}
