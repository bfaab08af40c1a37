//! The tail against a budget the student states (SPEC S19; the course's
//! C.2: "a renderer hitting its budget on the median frame and missing one
//! in twenty produces a visible stutter, and the median is silent about
//! it"). Worked out from the timed trials when the row is recorded and kept
//! with it, so the row says what was true when it was measured.

use serde::{Deserialize, Serialize};

use super::percentile::percentile_sorted;
use super::rounding::{format_at, format_plain, ordered_places};
use super::units::Figures;

/// The fewest timed trials for which a 95th percentile is shown. Below
/// twenty fewer than one trial is expected above it, and the percentile
/// interpolated between the closest ranks (S2) lies between the two
/// slowest trials: the max in all but name, so the max is shown instead.
pub const P95_MIN_TRIALS: usize = 20;

/// How a row's timed trials fared against the budget stated for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tail {
    /// The budget, in the row's unit.
    pub budget: f64,
    /// Timed trials that took longer than the budget.
    pub missed: usize,
    /// Timed trials.
    pub n: usize,
    /// The 95th percentile of the timed trials, in the row's unit,
    /// interpolated between the closest ranks (S2, `PERCENTILE.INC`).
    pub p95: f64,
}

impl Tail {
    /// The tail of `trials` (in the row's unit) against `budget` (in the
    /// same unit); `None` with no trial, a value that is not finite, or a
    /// budget that is not a positive number.
    pub fn of(trials: &[f64], budget: f64) -> Option<Self> {
        if trials.is_empty() || trials.iter().any(|t| !t.is_finite()) || !(budget.is_finite() && budget > 0.0) {
            return None;
        }
        let mut sorted = trials.to_vec();
        sorted.sort_unstable_by(f64::total_cmp);
        Some(Self {
            budget,
            missed: trials.iter().filter(|&&t| t > budget).count(),
            n: trials.len(),
            p95: percentile_sorted(&sorted, 0.95),
        })
    }

    /// True when there are trials enough for the 95th percentile to be
    /// more than the max (see [`P95_MIN_TRIALS`]).
    pub fn p95_shown(&self) -> bool {
        self.n >= P95_MIN_TRIALS
    }

    /// The sentence every face shows, its values in `figures`' unit (the
    /// row's, S12): `budget 16.7 ms: 2 of 31 timed trials missed it (took
    /// longer); p95 17.3 ms beside the median 15.1 ms (interpolated between
    /// closest ranks)`. Below [`P95_MIN_TRIALS`] trials the max stands in
    /// its place, and the sentence says why. `max` is the row's max.
    pub fn sentence(&self, figures: &Figures, max: f64) -> String {
        let unit = figures.unit();
        let budget = unit.after(&format_plain(unit.scale(self.budget)));
        let (name, value) = if self.p95_shown() { ("p95", self.p95) } else { ("max", max) };
        // At the median's place, finer where the budget would otherwise
        // print equal to a value on the other side of it (S17).
        // A zero IQR gives no place: every digit the value has (S6).
        let (scaled, budget_scaled) = (unit.scale(value), unit.scale(self.budget));
        let value = unit.after(&match figures.rounded().decimals {
            Some(from) => format_at(scaled, ordered_places(scaled, budget_scaled, from)),
            None => format_plain(scaled),
        });
        let why = if self.p95_shown() {
            "interpolated between closest ranks".to_owned()
        } else {
            format!(
                "{} trials are too few for a 95th percentile: below {P95_MIN_TRIALS} it is the max in all but name",
                self.n
            )
        };
        format!(
            "budget {budget}: {} of {} timed trials missed it (took longer); {name} {value} beside the median {} ({why})",
            self.missed,
            self.n,
            figures.median()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Summary;

    /// 31 frames of 15 ms, two of them 18 ms and one 20 ms.
    fn frames() -> Vec<f64> {
        let mut trials = vec![15.0; 28];
        trials.extend([18.0, 20.0, 18.0]);
        trials
    }

    // SPEC S19: the misses are counted and the p95 is interpolated between
    // closest ranks (numpy's default), beside the median.
    #[test]
    fn the_tail_counts_misses_and_gives_the_p95() {
        let trials = frames();
        let tail = Tail::of(&trials, 16.7).expect("a tail");
        assert_eq!((tail.missed, tail.n), (3, 31));
        // rank 0.95 × 30 = 28.5: halfway between the 29th and 30th
        // fastest, 18 and 18.
        assert_eq!(tail.p95, 18.0);
        let summary = Summary::of(&trials).expect("trials");
        let figures = Figures::of(&summary, "ms");
        assert_eq!(
            tail.sentence(&figures, summary.max),
            "budget 16.7 ms: 3 of 31 timed trials missed it (took longer); p95 18 ms beside the median 15 ms \
             (interpolated between closest ranks)"
        );
    }

    // SPEC S19: below twenty trials a p95 is the max in all but name, so
    // the max is shown and the sentence says why.
    #[test]
    fn few_trials_show_the_max_not_a_p95() {
        let trials = [10.0, 10.2, 10.1, 10.3, 12.0, 10.2, 10.1, 10.0, 10.2, 10.1, 10.4];
        let tail = Tail::of(&trials, 10.5).expect("a tail");
        assert!(!tail.p95_shown());
        let summary = Summary::of(&trials).expect("trials");
        let text = tail.sentence(&Figures::of(&summary, "ms"), summary.max);
        assert!(
            text.starts_with("budget 10.5 ms: 1 of 11 timed trials missed it (took longer); max 12.00 ms"),
            "{text}"
        );
        assert!(
            text.ends_with("(11 trials are too few for a 95th percentile: below 20 it is the max in all but name)")
        );
        assert!(!text.contains("p95"), "{text}");
    }

    // SPEC S19: a value on the other side of the budget never prints equal
    // to it (S17), and nothing is made of no trials or no budget.
    #[test]
    fn the_p95_and_the_budget_never_print_equal() {
        let mut trials = vec![16.0; 20];
        trials.extend([16.72; 11]);
        let tail = Tail::of(&trials, 16.7).expect("a tail");
        let summary = Summary::of(&trials).expect("trials");
        let text = tail.sentence(&Figures::of(&summary, "ms"), summary.max);
        assert!(text.contains("11 of 31 timed trials missed it"), "{text}");
        assert!(text.contains("p95 16.72 ms beside the median 16.0 ms"), "{text}");
        assert_eq!(Tail::of(&[], 1.0), None);
        assert_eq!(Tail::of(&[1.0], 0.0), None);
        assert_eq!(Tail::of(&[f64::NAN], 1.0), None);
    }
}
