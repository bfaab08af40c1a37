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
use super::rounding::{decimals_for_dispersion, format_at, format_significant, ordered_places, significant_places};
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
    /// What the run was, so its advice offers only what applies (S17).
    pub facts: Facts,
}

/// What a comparison's run was, as far as advice depends on it (SPEC S17):
/// a remedy is offered only where it applies — no "pin" to a pinned run, no
/// "extend to 51" to a run of 51, no `bench --extend` to trials Vernier did
/// not take, no more repetitions to a run whose noise they will not fix.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Facts {
    /// Both arms ran pinned to a CPU.
    pub pinned: bool,
    /// Timed trials in the smaller arm; 0 when not known.
    pub trials: usize,
    /// The trials were imported: another tool took them, and only its
    /// driver can take more.
    pub imported: bool,
    /// An arm's IQR is above a tenth of its median (S4): the environment is
    /// the noise, and more repetitions will not fix it.
    pub noisy: bool,
}

impl Facts {
    /// The remedies that apply, in one phrase: `pin the run to one CPU
    /// (--pin), quiet the machine, or extend it to 51 trials: COMMAND`.
    /// `extend` is the full command that would extend the run, where the
    /// face knows it.
    pub fn remedies(&self, extend: Option<&str>) -> String {
        let mut said = Vec::new();
        if self.imported {
            said.push("rerun your driver with more pairs, pinned to one CPU if it can be".to_owned());
        } else if !self.pinned {
            said.push("pin the run to one CPU (--pin)".to_owned());
        }
        said.push("quiet the machine".to_owned());
        if !self.imported && !self.noisy && self.trials < crate::stats::EXTENDED_TRIALS {
            said.push(match extend {
                Some(command) => format!("extend it to 51 trials: {command}"),
                None => "extend it to 51 trials (bench --extend)".to_owned(),
            });
        }
        match said.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{}, or {last}", rest.join(", ")),
            _ => said.concat(),
        }
    }
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
        Self { verdict, labels, paired, order, tag: "", facts: Facts::default() }
    }

    /// The same evidence, its advice fitted to what the run was (S17).
    pub fn with_facts(self, facts: Facts) -> Self {
        Self { facts, ..self }
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
        // The effect and the noise at one place that shows which is larger
        // (S17): never "+1.3 %: larger than … (1.3 %)".
        let pair = o.effect.zip(noise).map(|(e, n)| {
            let [e, n] = [100.0 * e, 100.0 * n];
            let own = [e, n].map(|v| significant_places(v, 2));
            let from = own[0].min(own[1]);
            let [pe, pn] =
                if ordered_places(e.abs(), n, from) == from { own } else { [ordered_places(e.abs(), n, from); 2] };
            let sign = if e >= 0.0 { "+" } else { "" };
            (format!("{sign}{} %", format_at(e, pe)), format!("{} %", format_at(n, pn)))
        });
        Some(match (pair, o.confound) {
            (Some((e, n)), true) => {
                format!("order effect {e}: larger than the arms' IQRs together ({n}), so order is a confound")
            }
            (Some((e, n)), false) => format!("order effect {e}: within the noise (the arms' IQRs together are {n})"),
            (None, true) => {
                "order is a confound: reversing the order moved the difference by more than the noise".into()
            }
            (None, false) => "the order effect is within the noise".into(),
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
        let decide = self.facts.remedies(extend);
        let mut said = Vec::new();
        let b_higher = v.median_b > v.median_a;
        match (v.claimed, self.side()) {
            // Where S7 resolved it and a guard took the claim away, the
            // verdict already says why; the IQR-sum rule is not the reason.
            (false, Some(side @ (Side::Lower | Side::Higher))) if !v.claimed_by_s7() => {
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

    // SPEC S17 (issue 47 item 2): advice offers only what applies to the
    // run — no "pin" to a pinned run, no "extend to 51" to a run of 51 or
    // to a noisy one, and to imported pairs the driver, never bench --extend.
    #[test]
    fn advice_fits_the_run() {
        let verdict = compare(
            Spread { median: 10.0, iqr: 3.0 },
            Spread { median: 7.0, iqr: 3.0 },
            ("naive", "blocked"),
            "m",
            "ms",
        );
        let paired = summary(&[0.62, 0.66, 0.70, 0.72, 0.76]);
        let e = Evidence::new(&verdict, ["naive", "blocked"], Some(&paired), None);
        let advice = |facts: Facts| e.with_facts(facts).meaning(None).expect("the pairs point one way");
        let pinned = advice(Facts { pinned: true, trials: 11, ..Facts::default() });
        assert!(!pinned.contains("pin"), "{pinned}");
        assert!(pinned.contains("extend it to 51 trials"), "{pinned}");
        let long = advice(Facts { pinned: true, trials: 51, ..Facts::default() });
        assert!(!long.contains("51"), "{long}");
        let imported = advice(Facts { trials: 15, imported: true, ..Facts::default() });
        assert!(imported.contains("rerun your driver with more pairs"), "{imported}");
        assert!(!imported.contains("--extend") && !imported.contains("(--pin)"), "{imported}");
        let noisy = advice(Facts { trials: 11, noisy: true, ..Facts::default() });
        assert!(!noisy.contains("extend"), "more repetitions will not fix a noisy run: {noisy}");
    }
}
