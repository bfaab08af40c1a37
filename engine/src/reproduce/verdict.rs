//! The three outcomes of a reproduction (SPEC R4): *differs*, *inconclusive*
//! or *reproduced*, each with the sentence every face shows word for word.
//!
//! S7 alone has two answers, and "no difference I can resolve" from a rerun
//! far noisier than the row it checks confirms nothing: its wide IQR hides
//! any difference the original's precision could have shown. The rule:
//!
//! 1. **differs** when S7 (with S13's power guard) claims a difference,
//!    the noise of a side above that bound named beside it;
//! 2. **inconclusive** when it does not, and
//!    - a guard took the claim away: S13 (mains against battery) or S16
//!      (their row and the rerun time different things), or
//!    - either side has fewer than [`MIN_TRIALS`] timed trials (an IQR of
//!      three trials is no spread to judge by), or
//!    - either side is too noisy to tell: an IQR above a tenth of its
//!      median (the course's bound, C.8.1) hides any difference smaller
//!      than itself, so two such rows "agree" about anything, or
//!    - the rerun is too noisy: its IQR fraction (IQR / median) is more than
//!      [`NOISE_FACTOR`] times theirs *and* more than [`NOISE_FLOOR`]. A
//!      rerun more precise than theirs is never the reason;
//! 3. **reproduced** otherwise.

use serde::Serialize;

use crate::stats::{Comparison, format_significant};

/// The rerun is too noisy when its IQR fraction is more than this many
/// times theirs …
pub const NOISE_FACTOR: f64 = 2.0;
/// … and more than this fraction of its median: a rerun whose IQR is within
/// 1 % of its median resolves what a course claims, whatever theirs was.
pub const NOISE_FLOOR: f64 = 0.01;
/// Fewer timed trials than this on either side are too few to tell.
pub const MIN_TRIALS: usize = 5;
/// Above this IQR fraction more trials do not help: the machine is the
/// problem (the course, C.8.1: "more than about a tenth of the median").
const ENVIRONMENT_BOUND: f64 = 0.1;

/// The rule in one sentence, for the plan and the README.
pub const RULE: &str = "differs when S7 claims a difference; inconclusive when it does not but either side's IQR is \
                        above a tenth of its median, the rerun's IQR fraction is more than twice theirs and above 1 % \
                        of its median, either side has fewer than 5 timed trials, or the power sources differ (S13); \
                        reproduced otherwise. A kernel that \
                        computed another result differs; times that agree on a program that is not theirs are \
                        inconclusive";

/// One of the three outcomes, ordered from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// S7 finds no difference and the rerun was precise enough to find one.
    Reproduced,
    /// S7 finds no difference, but the rerun could not have found one.
    Inconclusive,
    /// S7 claims a difference (or a kernel computed something else).
    Differs,
}

impl Verdict {
    /// The word every face shows.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Differs => "differs",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// One side's median, IQR and timed trials.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Measured {
    /// Median.
    pub median: f64,
    /// IQR, in the median's unit.
    pub iqr: f64,
    /// Timed trials (pairs, for a paired ratio).
    pub n: usize,
}

impl Measured {
    /// IQR / |median|; a zero median with a spread is infinitely noisy.
    fn fraction(self) -> f64 {
        if self.median != 0.0 {
            self.iqr / self.median.abs()
        } else if self.iqr == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    }
}

/// An outcome with its reasons.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judged {
    /// The outcome.
    pub outcome: Verdict,
    /// S7 between theirs (A) and mine (B), guarded by S13.
    pub s7: Comparison,
    /// Why it is inconclusive, and what to do, when it is.
    pub why: Option<String>,
    /// The sentence: the outcome, then S7's, then the reason.
    pub text: String,
}

/// Judges `theirs` against `mine` given S7's guarded comparison of the
/// two; `blocked` says why, when a guard (S13, S16) took S7's claim away.
pub fn judge(theirs: Measured, mine: Measured, s7: Comparison, blocked: Option<&str>) -> Judged {
    let why = if s7.claimed {
        None
    } else if let Some(blocked) = blocked {
        Some(blocked.to_owned())
    } else if let Some(few) = [("theirs", theirs.n), ("the rerun", mine.n)].into_iter().find(|(_, n)| *n < MIN_TRIALS) {
        Some(format!(
            "too short to tell: {} has {} timed trial(s), and an IQR needs at least {MIN_TRIALS} to mean anything; \
             rerun both with more trials (31 is the course's default)",
            few.0, few.1
        ))
    } else {
        noisy(theirs.fraction(), mine.fraction()).or_else(|| {
            too_noisy(theirs, mine).map(|noise| {
                format!(
                    "too noisy to tell: {noise}, so a difference smaller than that could not show; pin the run, \
                     close other programs, plug in and let the machine idle, then rerun"
                )
            })
        })
    };
    let outcome = match (s7.claimed, &why) {
        (true, _) => Verdict::Differs,
        (false, Some(_)) => Verdict::Inconclusive,
        (false, None) => Verdict::Reproduced,
    };
    // A difference S7 claims stays one, with the noise it was claimed through.
    let noise = if s7.claimed { too_noisy(theirs, mine).map(|n| format!("; noisy: {n}")) } else { None };
    let text = match &why {
        Some(why) => format!("{} — {why} ({})", outcome.word(), s7.verdict),
        None => format!("{} — {}{}", outcome.word(), s7.verdict, noise.unwrap_or_default()),
    };
    Judged { outcome, s7, why, text }
}

/// The sides whose IQR is above a tenth of their median, in words, or
/// `None` when neither is.
fn too_noisy(theirs: Measured, mine: Measured) -> Option<String> {
    let pct = |f: f64| format!("{} %", format_significant(100.0 * f, 2));
    let said: Vec<String> = [("their row's", theirs), ("the rerun's", mine)]
        .into_iter()
        .filter(|(_, m)| m.fraction() > ENVIRONMENT_BOUND)
        .map(|(whose, m)| format!("{whose} IQR is {} of its median", pct(m.fraction())))
        .collect();
    (!said.is_empty()).then(|| format!("{} (above a tenth)", said.join(" and ")))
}

/// Why a rerun is too noisy to confirm theirs, or `None`.
fn noisy(theirs: f64, mine: f64) -> Option<String> {
    if mine <= NOISE_FLOOR || mine <= NOISE_FACTOR * theirs {
        return None;
    }
    let pct = |f: f64| format!("{} %", format_significant(100.0 * f, 2));
    let times = if theirs > 0.0 { format!("{}× ", format_significant(mine / theirs, 2)) } else { String::new() };
    let what_to_do = if mine > ENVIRONMENT_BOUND {
        "an IQR over a tenth of the median is the machine, not the sample size: pin the run, close other programs, \
         plug in and let the machine idle before rerunning"
    } else {
        "pin the run, let the machine idle longer, or take more trials"
    };
    Some(format!(
        "the rerun is {times}noisier than theirs (IQR {} of its median against their {}), too noisy to confirm their \
         precision; {what_to_do}",
        pct(mine),
        pct(theirs)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Spread, compare};

    fn judged(theirs: (f64, f64, usize), mine: (f64, f64, usize)) -> Judged {
        let side = |(median, iqr, n)| Measured { median, iqr, n };
        let s7 = compare(
            Spread { median: theirs.0, iqr: theirs.1 },
            Spread { median: mine.0, iqr: mine.1 },
            ("theirs", "mine"),
            "median (s)",
            "s",
        );
        judge(side(theirs), side(mine), s7, None)
    }

    // SPEC R4: the case — a precise row (IQR 1.1 % of its median)
    // and a rerun 55× noisier with about the same median — is inconclusive.
    #[test]
    fn a_noisy_rerun_confirms_nothing() {
        let j = judged((0.00789, 0.00009, 31), (0.009, 0.005, 31));
        assert_eq!(j.outcome, Verdict::Inconclusive, "{}", j.text);
        assert!(j.text.starts_with("inconclusive — the rerun is 49× noisier"), "{}", j.text);
        assert!(j.text.contains("pin the run"), "{}", j.text);
    }

    // SPEC R4: a rerun more precise than theirs is never inconclusive; a
    // little noisier, or within the 1 % floor, reproduces.
    #[test]
    fn precise_reruns_reproduce() {
        for (theirs, mine) in [
            ((10.0, 0.9, 31), (10.5, 0.1, 31)),
            ((10.0, 0.1, 31), (10.05, 0.19, 31)),
            ((10.0, 0.0, 31), (10.0, 0.09, 31)),
        ] {
            let j = judged(theirs, mine);
            assert_eq!(j.outcome, Verdict::Reproduced, "{}", j.text);
            assert!(j.text.starts_with("reproduced — median (s): no difference I can resolve"), "{}", j.text);
        }
    }

    // SPEC R4, S7: a difference S7 claims differs, however noisy the rerun.
    #[test]
    fn a_claimed_difference_differs() {
        let j = judged((10.0, 0.1, 31), (15.0, 1.0, 31));
        assert_eq!(j.outcome, Verdict::Differs);
        assert!(j.text.starts_with("differs — median (s): mine is 1.50× theirs"), "{}", j.text);
    }

    // SPEC R4: the case — both rows with an IQR about a third of
    // the median — is inconclusive, never reproduced; a difference S7
    // claims through such noise still differs, the noise named.
    #[test]
    fn two_noisy_rows_are_inconclusive() {
        let j = judged((10.0, 3.3, 31), (10.4, 3.4, 31));
        assert_eq!(j.outcome, Verdict::Inconclusive, "{}", j.text);
        assert!(
            j.text.contains("too noisy to tell: their row's IQR is 33 % of its median and the rerun's IQR is 33 %"),
            "{}",
            j.text
        );
        let one = judged((10.0, 0.8, 31), (10.2, 1.5, 31));
        assert_eq!(one.outcome, Verdict::Inconclusive, "{}", one.text);
        assert!(one.text.contains("the rerun's IQR is 15 %") && !one.text.contains("their row's"), "{}", one.text);
        let claimed = judged((10.0, 1.5, 31), (20.0, 3.0, 31));
        assert_eq!(claimed.outcome, Verdict::Differs, "{}", claimed.text);
        assert!(claimed.text.contains("; noisy: their row's IQR is 15 %"), "{}", claimed.text);
    }

    // SPEC R4: too few trials, or S13's guard, leave it inconclusive.
    #[test]
    fn too_short_or_unguarded_is_inconclusive() {
        let j = judged((10.0, 0.1, 3), (10.0, 0.1, 3));
        assert_eq!(j.outcome, Verdict::Inconclusive);
        assert!(j.text.contains("too short to tell: theirs has 3 timed trial(s)"), "{}", j.text);
        let s7 = compare(Spread { median: 1.0, iqr: 0.1 }, Spread { median: 1.0, iqr: 0.1 }, ("a", "b"), "m", "s");
        let side = Measured { median: 1.0, iqr: 0.1, n: 31 };
        assert_eq!(judge(side, side, s7, Some("a guard")).outcome, Verdict::Inconclusive);
    }
}
