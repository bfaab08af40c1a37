//! The comparison verdict (SPEC S7).
//!
//! The course's convention, not a statistical test: a difference between two
//! medians is claimed only when it exceeds the sum of the two IQRs. A claimed
//! difference names the metric first, then the direction, then the ratio.

use serde::{Deserialize, Serialize};

use super::rounding::{
    decimals_for_dispersion, format_at, format_plain, format_significant, ordered_places, significant_places,
};
use super::summary::Summary;
use crate::stats::units::DisplayUnit;

/// The two numbers S7 needs from each side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Median of the side.
    pub median: f64,
    /// Interquartile range of the side.
    pub iqr: f64,
}

impl From<&Summary> for Spread {
    fn from(s: &Summary) -> Self {
        Self { median: s.median, iqr: s.iqr }
    }
}

/// Whether the two orders of an interleaved comparison agree (SPEC E5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderCheck {
    /// median(B) − median(A) over the A-first block.
    pub difference_ab: f64,
    /// median(B) − median(A) over the B-first block.
    pub difference_ba: f64,
    /// True when they differ by more than the two arms' IQRs together.
    pub confound: bool,
    /// The size of the order effect: how far B − A moves when the order
    /// is reversed, as a fraction of A's median; `None` when A's median
    /// is zero.
    pub effect: Option<f64>,
    /// What the move is judged against: the two arms' IQRs together, in
    /// the arms' unit. `None` in a check recorded before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowance: Option<f64>,
}

impl OrderCheck {
    /// The check from the two blocks' differences, the arms' IQRs and A's
    /// median.
    pub fn new(difference_ab: f64, difference_ba: f64, allowance: f64, median_a: f64) -> Self {
        let moved = difference_ab - difference_ba;
        Self {
            difference_ab,
            difference_ba,
            confound: moved.abs() > allowance,
            effect: (median_a != 0.0).then(|| moved / median_a),
            allowance: Some(allowance),
        }
    }

    /// The order effect as a signed percentage, `+0.3 %`.
    pub fn effect_text(&self) -> Option<String> {
        self.effect.map(|e| format!("{}{} %", if e >= 0.0 { "+" } else { "" }, format_significant(100.0 * e, 2)))
    }

    /// `order effect +0.3 % (within the noise)`: for a row's conditions,
    /// where the arms' figures are beside it (see
    /// [`super::Evidence::order_line`] for the full sentence).
    pub fn describe(&self) -> String {
        let verdict = if self.confound { "order is a confound" } else { "within the noise" };
        match self.effect_text() {
            Some(effect) => format!("order effect {effect} ({verdict})"),
            None => verdict.to_owned(),
        }
    }
}

/// SPEC S11: the ratios B/A of adjacent trials of an interleaved run — the
/// k-th timed trial of B over the k-th of A, which ran in the same round —
/// summarised like any trials. `None` with no pair or a zero in A.
pub fn paired_ratios(a: &[f64], b: &[f64]) -> Option<Summary> {
    let ratios: Vec<f64> = a.iter().zip(b).map(|(a, b)| b / a).collect();
    if ratios.iter().any(|r| !r.is_finite()) {
        return None;
    }
    Summary::of(&ratios).ok()
}

/// The outcome of comparing B against A.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Median of A.
    pub median_a: f64,
    /// Median of B.
    pub median_b: f64,
    /// IQR of A.
    pub iqr_a: f64,
    /// IQR of B.
    pub iqr_b: f64,
    /// `|median_a − median_b|`.
    pub difference: f64,
    /// True only when `difference > iqr_a + iqr_b`.
    pub claimed: bool,
    /// `median_b / median_a`; `None` when A's median is zero.
    pub ratio: Option<f64>,
    /// The sentence to write, metric first.
    pub verdict: String,
    /// The unit of the medians and IQRs (empty when they have none); the
    /// sentences quote differences in its display unit (S12).
    #[serde(default)]
    pub unit: String,
}

impl Comparison {
    /// The unit the two medians are shown in (S12): the smaller one's,
    /// picked once for both arms so they read side by side.
    pub fn shown_unit(&self) -> DisplayUnit {
        DisplayUnit::for_median(&self.unit, self.median_a.abs().min(self.median_b.abs()))
    }

    /// The name of [`Comparison::shown_unit`] (`µs`).
    pub fn display_unit(&self) -> String {
        self.shown_unit().name().to_owned()
    }

    /// S7 on the numbers themselves: the difference exceeds the IQRs' sum.
    pub(super) fn claimed_by_s7(&self) -> bool {
        self.difference > self.iqr_a + self.iqr_b
    }

    /// The same comparison making no claim, for `reasons` (the guards
    /// beyond S7: S13–S18, E18), the metric first as S7 writes it:
    /// `median wall time: no claim — REASON; REASON`. The figures stay.
    pub fn no_claim(&self, metric: &str, reasons: &[&str]) -> Comparison {
        Comparison { claimed: false, verdict: format!("{metric}: no claim — {}", reasons.join("; ")), ..self.clone() }
    }

    /// How S7 decided, quoted no more finely than the IQRs' sum allows:
    /// "difference 2.2 is more than the IQRs' sum 0.4 (…)". Measured on the
    /// numbers, so it still says what S7 found when a guard has taken the
    /// claim away (see `crate::compare`).
    pub fn reasoning(&self) -> String {
        let [d, sum] = difference_and_allowance(self.median_a, self.median_b, self.iqr_a + self.iqr_b, &self.unit);
        let relation = if self.claimed_by_s7() { "more than" } else { "not more than" };
        format!("difference {d} is {relation} the IQRs' sum {sum} (the course's convention, not a statistical test)")
    }
}

/// The difference of two medians and the IQRs' sum, in the display unit of
/// the smaller median (S12), at the place S6 gives the sum: `0.4 ms`.
/// Finer where that place would hide the order the sentence states (S17).
fn difference_and_allowance(ma: f64, mb: f64, allowance: f64, unit: &str) -> [String; 2] {
    let shown = DisplayUnit::for_median(unit, ma.abs().min(mb.abs()));
    let scaled = shown.scale(allowance);
    let difference = shown.scale((ma - mb).abs());
    match decimals_for_dispersion(scaled) {
        Some(from) => {
            let places = ordered_places(difference, scaled, from);
            [difference, scaled].map(|v| shown.after(&format_at(v, places)))
        }
        None => [difference, scaled].map(|v| shown.after(&format_plain(v))),
    }
}

/// Compares B against A on `metric` (for example "median wall time"),
/// both in `unit`, naming the sides `names.0` (A) and `names.1` (B) in the
/// verdict.
pub fn compare(a: Spread, b: Spread, names: (&str, &str), metric: &str, unit: &str) -> Comparison {
    let difference = (a.median - b.median).abs();
    let allowance = a.iqr + b.iqr;
    let claimed = difference > allowance;
    let ratio = (a.median != 0.0).then(|| b.median / a.median);
    let verdict = if claimed {
        claimed_verdict(a.median, b.median, names, metric)
    } else {
        let [d, sum] = difference_and_allowance(a.median, b.median, allowance, unit);
        format!(
            "{metric}: no difference I can resolve between {} and {} (difference {d} is within the IQRs' sum {sum})",
            names.0, names.1,
        )
    };
    Comparison {
        median_a: a.median,
        median_b: b.median,
        iqr_a: a.iqr,
        iqr_b: b.iqr,
        difference,
        claimed,
        ratio,
        verdict,
        unit: unit.to_owned(),
    }
}

/// `values` at the decimal place S6 gives the IQR sum, so a difference is
/// quoted no more finely than the dispersion allows.
pub fn at_allowance_place<const N: usize>(values: [f64; N], allowance: f64) -> [String; N] {
    values.map(|v| decimals_for_dispersion(allowance).map_or_else(|| format_plain(v), |d| format_at(v, d)))
}

/// A ratio as a verdict writes it, without its `×`: two significant digits
/// of its distance from 1, so 1.22 keeps its 0.22 and 3.36 is 3.4 (S7).
pub fn times(ratio: f64) -> String {
    format_at(ratio, significant_places(ratio - 1.0, 2))
}

/// "B is 1.2× A (22% above A)" or "B is 70% below A (A is 3.4× B)".
///
/// A ratio shows two significant digits of its distance from 1, so 1.22×
/// keeps its 0.22 and 3.36 becomes 3.4×; a percentage shows two significant
/// digits.
fn claimed_verdict(ma: f64, mb: f64, (a, b): (&str, &str), metric: &str) -> String {
    if ma <= 0.0 || mb <= 0.0 {
        // Ratios of zero or negative quantities do not read as "× A".
        let (dir, d) = if mb > ma { ("above", mb - ma) } else { ("below", ma - mb) };
        return format!("{metric}: {b} is {} {dir} {a}", format_significant(d, 2));
    }
    if mb > ma {
        let pct = (mb / ma - 1.0) * 100.0;
        format!("{metric}: {b} is {}× {a} ({}% above {a})", times(mb / ma), format_significant(pct, 2))
    } else {
        let pct = (1.0 - mb / ma) * 100.0;
        format!("{metric}: {b} is {}% below {a} ({a} is {}× {b})", format_significant(pct, 2), times(ma / mb))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC S7: the course's matmul pair, ijk 41.7 ms (IQR 0.9) vs ikj 12.4 ms (IQR 0.3).
    #[test]
    fn matmul_example_is_claimed_with_its_ratio() {
        let c = compare(
            Spread { median: 41.7, iqr: 0.9 },
            Spread { median: 12.4, iqr: 0.3 },
            ("A", "B"),
            "median wall time",
            "ms",
        );
        assert!(c.claimed);
        assert!((c.difference - 29.3).abs() < 1e-9);
        assert!((c.ratio.expect("non-zero A") - 12.4 / 41.7).abs() < 1e-12);
        assert_eq!(c.verdict, "median wall time: B is 70% below A (A is 3.4× B)");
    }

    // SPEC S7: d must exceed the IQR sum strictly.
    #[test]
    fn within_the_iqr_sum_is_unresolved() {
        let c = compare(Spread { median: 10.0, iqr: 0.5 }, Spread { median: 10.4, iqr: 0.3 }, ("A", "B"), "median", "");
        assert!(!c.claimed);
        assert!(c.verdict.starts_with("median: no difference I can resolve"));
        let edge = compare(Spread { median: 10.0, iqr: 0.5 }, Spread { median: 11.0, iqr: 0.5 }, ("A", "B"), "m", "");
        assert!(!edge.claimed, "d equal to the IQR sum is not a difference");
    }

    // SPEC S7, S12: an unresolved difference is quoted in the display unit
    // of the smaller median, never as a bare fraction of a second.
    #[test]
    fn an_unresolved_difference_is_quoted_in_a_readable_unit() {
        let a = Spread { median: 0.00801, iqr: 0.0009 };
        let b = Spread { median: 0.00829, iqr: 0.0012 };
        let c = compare(a, b, ("A", "B"), "median wall time", "s");
        assert_eq!(
            c.verdict,
            "median wall time: no difference I can resolve between A and B (difference 0.3 ms is within the IQRs' sum \
             2.1 ms)"
        );
        assert_eq!(
            c.reasoning(),
            "difference 0.3 ms is not more than the IQRs' sum 2.1 ms (the course's convention, not a statistical test)"
        );
    }

    #[test]
    fn slower_b_is_phrased_as_a_multiple() {
        let c = compare(
            Spread { median: 10.0, iqr: 0.1 },
            Spread { median: 12.2, iqr: 0.1 },
            ("old", "new"),
            "median wall time",
            "s",
        );
        assert_eq!(c.verdict, "median wall time: new is 1.22× old (22% above old)");
    }

    // SPEC S17 (issue 47 item 4): a sentence comparing two numbers prints
    // them with the digits that show the order it states.
    #[test]
    fn a_comparison_keeps_its_order_when_rounded() {
        let within =
            compare(Spread { median: 40.0, iqr: 1.5 }, Spread { median: 42.58, iqr: 1.5 }, ("a", "b"), "m", "ms");
        assert!(within.verdict.contains("difference 2.6 ms is within the IQRs' sum 3.0 ms"), "{}", within.verdict);
        let small =
            compare(Spread { median: 40.0, iqr: 2.0 }, Spread { median: 40.4, iqr: 2.0 }, ("a", "b"), "m", "ms");
        assert!(small.verdict.contains("difference 0.4 ms is within the IQRs' sum 4.0 ms"), "{}", small.verdict);
    }
}
