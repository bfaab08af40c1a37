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

/// The canary's verdict on its session (course 003: timings "marked with
/// the conditions they were taken under and the canary's verdict on the
/// session"; SPEC E7, E18). The canary is timed at the session's start and
/// end; its end/start ratio is judged against the floor the same body
/// showed timed back to back, so "the machine slowed" is said only where the
/// change is larger than the canary's own noise.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum CanaryVerdict {
    /// The change is within the floor: none the instrument can see.
    Steady {
        /// end / start, as the row recorded it.
        ratio: String,
        /// The floor's spread, max/min − 1.
        floor: f64,
    },
    /// The canary took longer at the end: the machine ran slower late in
    /// the session (its clock, its heat, or another load).
    Slowed {
        /// end / start, as the row recorded it.
        ratio: String,
        /// The floor's spread.
        floor: f64,
        /// end / start − 1.
        change: f64,
    },
    /// The canary took less time at the end: the machine ran faster late
    /// in the session, so its first trials ran on a slower one.
    SpedUp {
        /// end / start, as the row recorded it.
        ratio: String,
        /// The floor's spread.
        floor: f64,
        /// 1 − end / start.
        change: f64,
    },
    /// No floor was measured with the session (a row recorded before
    /// Vernier kept one): the ratio is shown, never judged.
    Unjudged {
        /// end / start, as the row recorded it.
        ratio: String,
    },
}

impl CanaryVerdict {
    /// The verdict on a canary whose end/start ratio is `ratio` (its text
    /// as recorded: `1.012`), against the session's `floor`; `None` when the
    /// text is not a ratio.
    pub fn judge(ratio: &str, floor: Option<&NoiseFloor>) -> Option<Self> {
        let value: f64 = ratio.parse().ok().filter(|r: &f64| r.is_finite() && *r > 0.0)?;
        let ratio = ratio.to_owned();
        let Some(floor) = floor else { return Some(Self::Unjudged { ratio }) };
        let change = value - 1.0;
        Some(if change.abs() <= floor.spread {
            Self::Steady { ratio, floor: floor.spread }
        } else if change > 0.0 {
            Self::Slowed { ratio, floor: floor.spread, change }
        } else {
            Self::SpedUp { ratio, floor: floor.spread, change: -change }
        })
    }

    /// The verdict in one sentence, the change and the floor at digits that
    /// show which is larger (S17).
    pub fn sentence(&self) -> String {
        let percents = |change: f64, floor: f64| {
            let [c, f] = [change, floor].map(|v| 100.0 * v);
            let place = ordered_places(c, f, significant_places(c, 2).min(significant_places(f, 2)));
            [c, f].map(|v| super::rounding::format_at(v, place))
        };
        match self {
            Self::Steady { ratio, floor } => format!(
                "canary end/start {ratio}, within its noise floor ({} %): the machine's speed did not change \
                 measurably during the session",
                format_significant(100.0 * floor, 2)
            ),
            Self::Slowed { ratio, floor, change } => {
                let [c, f] = percents(*change, *floor);
                format!(
                    "canary end/start {ratio}: it took {c} % longer at the end, beyond its noise floor ({f} %): the \
                     machine slowed during the session (its clock, its heat or another load), so the later trials \
                     ran on a slower machine than the first"
                )
            }
            Self::SpedUp { ratio, floor, change } => {
                let [c, f] = percents(*change, *floor);
                format!(
                    "canary end/start {ratio}: it took {c} % less time at the end, beyond its noise floor ({f} %): \
                     the machine was slower at the start of the session (a clock still rising, or a load that \
                     ended), so the first trials ran on a slower machine than the later ones"
                )
            }
            Self::Unjudged { ratio } => format!(
                "canary end/start {ratio}, not judged: its session measured no noise floor to judge it against \
                 (recorded before Vernier kept one)"
            ),
        }
    }
}

impl std::fmt::Display for CanaryVerdict {
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

    // SPEC E7, E18 (course 003, the canary's verdict on the session): the
    // end/start ratio is judged against the canary's own floor, both ways,
    // and never judged without one.
    #[test]
    fn the_canary_is_judged_against_its_floor() {
        let floor = NoiseFloor::of(&[10.0, 10.2, 10.5, 10.1]).expect("timings");
        let judged = |ratio: &str| CanaryVerdict::judge(ratio, Some(&floor)).expect("a ratio");
        assert!(matches!(judged("1.030"), CanaryVerdict::Steady { .. }));
        assert!(matches!(judged("0.960"), CanaryVerdict::Steady { .. }));
        assert_eq!(
            judged("1.012").sentence(),
            "canary end/start 1.012, within its noise floor (5.0 %): the machine's speed did not change measurably \
             during the session"
        );
        let slowed = judged("1.120");
        assert!(matches!(slowed, CanaryVerdict::Slowed { .. }), "{slowed:?}");
        assert!(
            slowed
                .sentence()
                .starts_with("canary end/start 1.120: it took 12 % longer at the end, beyond its noise floor (5 %)"),
            "{slowed}"
        );
        let sped = judged("0.900");
        assert!(matches!(sped, CanaryVerdict::SpedUp { .. }), "{sped:?}");
        assert!(sped.sentence().contains("10 % less time at the end, beyond its noise floor (5 %)"), "{sped}");
        // Just past the floor: the digits show the change is the larger.
        assert!(judged("1.051").sentence().contains("5.1 % longer at the end, beyond its noise floor (5.0 %)"));
        assert!(matches!(CanaryVerdict::judge("1.5", None), Some(CanaryVerdict::Unjudged { .. })));
        assert_eq!(CanaryVerdict::judge("n/a", Some(&floor)), None);
        assert_eq!(CanaryVerdict::judge("-1", Some(&floor)), None);
    }
}
