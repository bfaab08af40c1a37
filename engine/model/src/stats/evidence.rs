//! One comparison, one verdict (SPEC S15).
//!
//! An interleaved comparison carries three readings of the same trials: the
//! S7 verdict on the two medians, the paired ratio of adjacent trials (S11)
//! and the order check (E5). Printed one after the other they can seem to
//! say opposite things — "no difference I can resolve" above "paired 0.70".
//! The S7 verdict is the claim; the other two are evidence beside it; and
//! where the evidence points another way, one more sentence says what that
//! means and what would decide it. Every face that shows a comparison takes
//! its lines from here, so they all say the same thing.

use super::comparison::{Comparison, OrderCheck};
use super::rounding::{decimals_for_dispersion, format_at, format_significant};
use super::summary::Summary;

/// A comparison's verdict with the evidence beside it.
#[derive(Debug, Clone, Copy)]
pub struct Evidence<'a> {
    /// S7 between A and B, as recorded.
    pub verdict: &'a Comparison,
    /// The arms' labels, A then B.
    pub labels: [&'a str; 2],
    /// S11: B/A of adjacent trials.
    pub paired: Option<&'a Summary>,
    /// E5: the two orders compared.
    pub order: Option<&'a OrderCheck>,
    /// Written after each figure the evidence derives, for a document
    /// whose every result is tagged (A7): ` (DERIVED)`; empty elsewhere.
    pub tag: &'a str,
}

/// Where the middle half of the paired ratios B/A lies against 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// B measured lower than A in the middle half of the pairs.
    Lower,
    /// B measured higher.
    Higher,
    /// The middle half holds 1: pair by pair, either way.
    Both,
}

impl<'a> Evidence<'a> {
    /// The evidence of one comparison, untagged.
    pub fn new(
        verdict: &'a Comparison,
        labels: [&'a str; 2],
        paired: Option<&'a Summary>,
        order: Option<&'a OrderCheck>,
    ) -> Self {
        Self { verdict, labels, paired, order, tag: "" }
    }

    /// The same evidence with `tag` after each figure it derives.
    pub fn tagged(self, tag: &'a str) -> Self {
        Self { tag, ..self }
    }

    /// The verdict, then the paired ratio and the order check as evidence,
    /// then — where they point another way — what that means. `extend` is
    /// the full command that would extend the comparison to 51 trials,
    /// where the face knows it.
    pub fn lines(&self, extend: Option<&str>) -> Vec<String> {
        let mut lines = self.head();
        lines.extend(self.meaning(extend));
        lines
    }

    /// [`Evidence::lines`] as one passage: the verdict and its evidence
    /// joined by `;`, what it means as its own sentence.
    pub fn passage(&self, extend: Option<&str>) -> String {
        self.then_meaning(self.head().join("; "), extend)
    }

    /// The verdict, then what the evidence means where it points another
    /// way, for a table's one verdict cell beside the evidence's own cells.
    pub fn verdict_cell(&self) -> String {
        self.then_meaning(self.verdict.verdict.clone(), None)
    }

    /// The verdict and the evidence's lines, without what they mean.
    fn head(&self) -> Vec<String> {
        [Some(self.verdict.verdict.clone()), self.paired_line(), self.order_line()].into_iter().flatten().collect()
    }

    /// `text`, then what the evidence means as its own sentence, if it
    /// says anything.
    fn then_meaning(&self, text: String, extend: Option<&str>) -> String {
        match self.meaning(extend) {
            Some(meaning) => format!("{text}. {meaning}"),
            None => text,
        }
    }

    /// `paired blocked/naive 0.70 (IQR 0.12, 31 pairs)`.
    pub fn paired_line(&self) -> Option<String> {
        let p = self.paired?;
        let r = p.rounded();
        Some(format!("paired {}/{} {} (IQR {}, {} pairs)", self.labels[1], self.labels[0], r.median, r.iqr, p.n))
    }

    /// The order check in words that cannot be read as the opposite: the
    /// order effect, the noise it is judged against, and which it is.
    pub fn order_line(&self) -> Option<String> {
        let o = self.order?;
        // The allowance the check used: the arms' IQRs together (kept with
        // the check; for a check recorded before it was kept, the same sum
        // from the verdict's IQRs).
        let allowance = o.allowance.unwrap_or(self.verdict.iqr_a + self.verdict.iqr_b);
        let noise = (self.verdict.median_a != 0.0).then(|| allowance / self.verdict.median_a.abs());
        let effect = o.effect_text();
        Some(match (effect, noise, o.confound) {
            (Some(e), Some(n), true) => {
                format!("order effect {e}: larger than the arms' IQRs together ({}), so order is a confound", pct(n))
            }
            (Some(e), Some(n), false) => {
                format!("order effect {e}: within the noise (the arms' IQRs together are {})", pct(n))
            }
            (_, _, true) => {
                "order is a confound: reversing the order moved the difference by more than the noise".into()
            }
            (_, _, false) => "the order effect is within the noise".into(),
        })
    }

    /// Where the middle half of the paired ratios lies.
    fn side(&self) -> Option<Side> {
        let p = self.paired?;
        Some(if p.p75 < 1.0 {
            Side::Lower
        } else if p.p25 > 1.0 {
            Side::Higher
        } else {
            Side::Both
        })
    }

    /// `0.64–0.76`: the paired ratios' middle half, at the place their IQR
    /// supports (S6).
    fn middle_half(&self) -> String {
        let Some(p) = self.paired else { return String::new() };
        let at = |v: f64| match decimals_for_dispersion(p.iqr) {
            Some(d) => format_at(v, d),
            None => format_significant(v, 3),
        };
        format!("{}–{}{}", at(p.p25), at(p.p75), self.tag)
    }

    /// One sentence, only where the evidence points another way than the
    /// verdict, saying what it means and what would decide it.
    pub fn meaning(&self, extend: Option<&str>) -> Option<String> {
        let [a, b] = self.labels;
        let v = self.verdict;
        let n = self.paired.map_or(0, |p| p.n);
        let decide = match extend {
            Some(command) => {
                format!("pin the run to one CPU (--pin), quiet the machine, or extend it to 51 trials: {command}")
            }
            None => "pin the run to one CPU (--pin), quiet the machine, or extend it to 51 trials (bench --extend)"
                .to_owned(),
        };
        let mut said = Vec::new();
        let b_higher = v.median_b > v.median_a;
        match (v.claimed, self.side()) {
            (false, Some(side @ (Side::Lower | Side::Higher))) => {
                let way = if side == Side::Lower { "lower" } else { "higher" };
                said.push(format!(
                    "Pair by pair, {b} measured {way} than {a} in the middle half of the {n} pairs (B/A {}), but at \
                     this noise the IQR-sum rule cannot resolve the difference, so no claim is made; to decide it, \
                     {decide}.",
                    self.middle_half()
                ));
            }
            (true, Some(Side::Both)) => said.push(format!(
                "The medians differ by more than the IQRs' sum, but pair by pair B/A falls on both sides of 1 (middle \
                 half {}): the difference is not steady from round to round, so the claim rests on the medians \
                 alone; to steady it, {decide}.",
                self.middle_half()
            )),
            (true, Some(side)) if (side == Side::Higher) != b_higher => said.push(format!(
                "Pair by pair, B/A points the other way (middle half {}): the medians and the pairs disagree, so \
                 the claim is not confirmed by its own trials; to decide it, {decide}.",
                self.middle_half()
            )),
            _ => {}
        }
        if self.order.is_some_and(|o| o.confound) {
            said.push(
                "Which arm ran first moved the difference by more than the noise: the verdict averages both orders; \
                 a cool-down between the blocks (--cooldown) or pinning shows whether heat or caches favour the arm \
                 that runs first."
                    .to_owned(),
            );
        }
        (!said.is_empty()).then(|| said.join(" "))
    }
}

/// `0.061` as `6.1 %`.
fn pct(share: f64) -> String {
    format!("{} %", format_significant(share * 100.0, 2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Spread, compare};

    fn summary(values: &[f64]) -> Summary {
        Summary::of(values).expect("values")
    }

    // SPEC S15: the case — S7 cannot resolve a difference the pairs
    // show: one verdict (no claim), the pairs as evidence, and one sentence
    // saying what it means and the command that would decide it.
    #[test]
    fn pairs_that_point_one_way_under_an_unresolved_verdict_say_what_decides() {
        let verdict = compare(
            Spread { median: 10.0, iqr: 3.0 },
            Spread { median: 7.0, iqr: 3.0 },
            ("naive", "blocked"),
            "m",
            "ms",
        );
        assert!(!verdict.claimed);
        let paired = summary(&[0.62, 0.66, 0.70, 0.72, 0.76]);
        let order = OrderCheck::new(-1.0, 2.3, 6.0, 10.0);
        let e = Evidence::new(&verdict, ["naive", "blocked"], Some(&paired), Some(&order));
        let lines = e.lines(Some("vernier bench --notebook lab --extend 4 --yes"));
        assert_eq!(lines[0], verdict.verdict, "the S7 verdict comes first");
        assert!(lines[1].starts_with("paired blocked/naive 0.7"), "{lines:?}");
        assert_eq!(lines[2], "order effect -33 %: within the noise (the arms' IQRs together are 60 %)");
        assert!(lines[3].contains("blocked measured lower than naive"), "{lines:?}");
        assert!(lines[3].contains("no claim is made"), "{lines:?}");
        assert!(lines[3].ends_with("vernier bench --notebook lab --extend 4 --yes."), "{lines:?}");
        assert!(!e.passage(None).contains("agree"), "never 'the orders agree'");
    }

    // SPEC S15: a claim the pairs confirm, with the order within the noise,
    // needs no further sentence; an order that is a confound says so in
    // words that cannot be read as the opposite.
    #[test]
    fn agreeing_evidence_adds_nothing_and_a_confound_is_named() {
        let verdict =
            compare(Spread { median: 10.0, iqr: 0.2 }, Spread { median: 5.0, iqr: 0.2 }, ("a", "b"), "m", "ms");
        let paired = summary(&[0.48, 0.49, 0.5, 0.51, 0.52]);
        let quiet = OrderCheck::new(-5.0, -5.1, 0.4, 10.0);
        let e = Evidence::new(&verdict, ["a", "b"], Some(&paired), Some(&quiet));
        assert_eq!(e.meaning(None), None);
        assert_eq!(e.lines(None).len(), 3);
        let loud = OrderCheck::new(-4.0, -6.0, 0.4, 10.0);
        let e = Evidence { order: Some(&loud), ..e };
        assert_eq!(
            e.order_line().as_deref(),
            Some("order effect +20 %: larger than the arms' IQRs together (4.0 %), so order is a confound")
        );
        assert!(e.meaning(None).is_some_and(|m| m.contains("Which arm ran first")), "{:?}", e.meaning(None));
    }

    // SPEC S15: a claimed difference whose pairs fall on both sides of 1 is
    // said to rest on the medians alone.
    #[test]
    fn a_claim_the_pairs_do_not_steady_is_said() {
        let verdict =
            compare(Spread { median: 10.0, iqr: 0.5 }, Spread { median: 12.0, iqr: 0.5 }, ("a", "b"), "m", "ms");
        assert!(verdict.claimed);
        let paired = summary(&[0.8, 0.9, 1.2, 1.4, 1.5]);
        let e = Evidence::new(&verdict, ["a", "b"], Some(&paired), None);
        let meaning = e.meaning(None).expect("a sentence");
        assert!(meaning.contains("both sides of 1"), "{meaning}");
    }
}
