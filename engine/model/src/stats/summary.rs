//! The summary of one sample: median, percentiles, IQR, min/max, drift.

use serde::{Deserialize, Serialize};

use super::percentile::{median_of, percentile_sorted};
use super::rounding::{Rounded, format_percent};

/// Above this IQR/median the environment is the noise and more repetitions
/// will not fix it (SPEC S4).
pub const NOISY_IQR_FRACTION: f64 = 0.10;

/// The fewest trials in each half before the halves' medians are compared
/// (SPEC S12, S17: a warning needs enough trials to mean anything): from
/// three trials, "the machine changed" would rest on one trial against one.
pub const MIN_HALF_TRIALS: usize = 3;

/// Why a sample cannot be summarised.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// There is nothing to summarise.
    #[error("the sample is empty")]
    Empty,
    /// NaN or an infinity would poison every order statistic.
    #[error("value {index} is not a finite number ({value})")]
    NotFinite {
        /// Zero-based position of the value in the sample.
        index: usize,
        /// The offending value.
        value: f64,
    },
}

/// Summary statistics of timed trials, in trial order (SPEC S1–S5).
///
/// Every field keeps full precision; [`Summary::rounded`] is what is shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of timed trials.
    pub n: usize,
    /// Median (an observed trial when `n` is odd).
    pub median: f64,
    /// 25th percentile, interpolated (S2).
    pub p25: f64,
    /// 75th percentile, interpolated (S2).
    pub p75: f64,
    /// `p75 − p25`.
    pub iqr: f64,
    /// `iqr / median`; `None` when the median is zero.
    pub iqr_fraction: Option<f64>,
    /// Smallest trial — also the best-of-n, never the headline (S3).
    pub min: f64,
    /// Largest trial.
    pub max: f64,
    /// (median of second half − median of first half) / median of first
    /// half, by trial order (S5); `None` below two trials or with a zero
    /// first-half median.
    pub drift: Option<f64>,
    /// The two halves' medians that `drift` compares, kept so a row can be
    /// flagged when they differ by more than the IQR (S12). `None` below two
    /// trials, and in rows recorded before Vernier kept them: such a row
    /// shows its stored drift but cannot be flagged — the halves are never
    /// re-derived from anything else.
    #[serde(default)]
    pub halves: Option<Halves>,
    /// True for a row typed by hand into a workbook (N12): only its median,
    /// IQR, min and max were given, so P25 and P75 are not known. They stand
    /// at the median and nothing draws them; the IQR is the typed one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub typed: bool,
}

/// The medians of the first and the second half of the timed trials, by
/// trial order (SPEC S5). With an odd count the middle trial belongs to
/// neither half.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Halves {
    /// Median of the first half.
    pub first: f64,
    /// Median of the second half.
    pub second: f64,
}

/// Why a row's median is not the whole story: each is flagged beside the
/// row, with a sentence saying what it means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Flag {
    /// The IQR is above a tenth of the median (SPEC S4).
    Noisy,
    /// The two halves' medians differ by more than the IQR (SPEC S12).
    Drifted {
        /// The halves that differ.
        halves: Halves,
        /// The stored drift, when the first half's median is not zero.
        drift: Option<f64>,
    },
}

impl Flag {
    /// The sentence every face shows for this flag.
    pub fn sentence(&self) -> String {
        match self {
            Flag::Noisy => {
                "the IQR is more than a tenth of the median: the environment is the noise, and more repetitions \
                 will not fix it"
                    .to_owned()
            }
            Flag::Drifted { halves, drift } => {
                let direction = if halves.second > halves.first { "above" } else { "below" };
                let by = drift.map_or_else(String::new, |d| format!("{} ", format_percent(d.abs())));
                format!(
                    "the second half's median is {by}{direction} the first's, more than the IQR: the machine changed \
                     during the run"
                )
            }
        }
    }
}

impl std::fmt::Display for Flag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.sentence())
    }
}

impl Summary {
    /// Summarises `trials`, given in the order they were taken (drift
    /// depends on the order; nothing else does).
    pub fn of(trials: &[f64]) -> Result<Self, StatsError> {
        if trials.is_empty() {
            return Err(StatsError::Empty);
        }
        if let Some((index, &value)) = trials.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(StatsError::NotFinite { index, value });
        }
        let mut sorted = trials.to_vec();
        sorted.sort_unstable_by(f64::total_cmp);
        let median = percentile_sorted(&sorted, 0.5);
        let p25 = percentile_sorted(&sorted, 0.25);
        let p75 = percentile_sorted(&sorted, 0.75);
        // Interpolation can leave a tiny negative difference when p25 and p75
        // straddle equal values; the IQR is a width and never negative.
        let iqr = (p75 - p25).max(0.0);
        let halves = halves(trials);
        Ok(Self {
            n: trials.len(),
            median,
            p25,
            p75,
            iqr,
            iqr_fraction: (median != 0.0).then(|| iqr / median.abs()),
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            drift: halves.and_then(|h| (h.first != 0.0).then(|| (h.second - h.first) / h.first.abs())),
            halves,
            typed: false,
        })
    }

    /// The summary of a row typed by hand (N12): `n` trials of which only
    /// the median, IQR, min and max are known. The quartiles are not
    /// invented: they stand at the median and [`Self::typed`] says so.
    pub fn typed(n: usize, median: f64, iqr: f64, min: f64, max: f64) -> Self {
        Self {
            n,
            median,
            p25: median,
            p75: median,
            iqr,
            iqr_fraction: (median != 0.0).then(|| iqr / median.abs()),
            min,
            max,
            drift: None,
            halves: None,
            typed: true,
        }
    }

    /// Why these numbers cannot all be one set of trials' summary, if they
    /// cannot (SPEC N16): the order min ≤ P25 ≤ median ≤ P75 ≤ max broken,
    /// an IQR that is not P75 − P25 (a typed row's is its own, but no wider
    /// than max − min), no trial, or a number that is not finite. What it
    /// says names values in the row's `unit`.
    pub fn contradiction(&self, unit: &str) -> Option<String> {
        let values = [self.median, self.p25, self.p75, self.iqr, self.min, self.max];
        if self.n == 0 || values.iter().any(|v| !v.is_finite()) {
            return None; // A1's own finding: a number missing or not a number.
        }
        let order =
            [("min", self.min), ("P25", self.p25), ("median", self.median), ("P75", self.p75), ("max", self.max)];
        if let Some(pair) = order.windows(2).find(|w| w[0].1 > w[1].1) {
            let ((a, x), (b, y)) = (pair[0], pair[1]);
            return Some(format!("its {a} ({x} {unit}) is above its {b} ({y} {unit})"));
        }
        if self.typed {
            if self.iqr < 0.0 || (self.iqr > self.max - self.min && !close(self.iqr, self.max - self.min)) {
                return Some(format!(
                    "its IQR ({} {unit}) is wider than max − min ({} {unit})",
                    self.iqr,
                    self.max - self.min
                ));
            }
        } else if !close(self.iqr, (self.p75 - self.p25).max(0.0)) {
            return Some(format!("its IQR ({} {unit}) is not P75 − P25 ({} {unit})", self.iqr, self.p75 - self.p25));
        }
        None
    }

    /// Where this summary and `other`'s differ beyond rounding, as
    /// `name: this vs other` for n, median, IQR, min and max (SPEC N16).
    pub fn differences(&self, other: &Summary) -> Vec<(&'static str, String, String)> {
        let mut out = Vec::new();
        if self.n != other.n {
            out.push(("n", self.n.to_string(), other.n.to_string()));
        }
        for (name, a, b) in [
            ("median", self.median, other.median),
            ("IQR", self.iqr, other.iqr),
            ("min", self.min, other.min),
            ("max", self.max, other.max),
        ] {
            if !close(a, b) {
                out.push((name, a.to_string(), b.to_string()));
            }
        }
        out
    }

    /// An even count makes the median an interpolation rather than a trial
    /// one can point at (S1); the user is warned, not refused.
    pub fn even_count(&self) -> bool {
        self.n.is_multiple_of(2)
    }

    /// True when the IQR exceeds a tenth of the median (S4).
    pub fn is_noisy(&self) -> bool {
        self.iqr_fraction.is_some_and(|f| f > NOISY_IQR_FRACTION)
    }

    /// True when the two halves' medians differ by more than the IQR: the
    /// machine changed during the run (S12). A row without its halves (an
    /// older notebook's) is never flagged.
    pub fn drifted(&self) -> bool {
        self.n >= 2 * MIN_HALF_TRIALS && self.halves.is_some_and(|h| (h.second - h.first).abs() > self.iqr)
    }

    /// What is flagged beside this summary, noise first (S4, S12).
    pub fn flags(&self) -> Vec<Flag> {
        let drifted = self.halves.filter(|_| self.drifted()).map(|halves| Flag::Drifted { halves, drift: self.drift });
        self.is_noisy().then_some(Flag::Noisy).into_iter().chain(drifted).collect()
    }

    /// The best-of-n, shown in its own column (S3).
    pub fn best(&self) -> f64 {
        self.min
    }

    /// The figures as they may be displayed (S6).
    pub fn rounded(&self) -> Rounded {
        Rounded::new(self.median, self.iqr, self.min, self.max)
    }
}

/// The medians of the two halves of a run, by trial order, that drift
/// compares (SPEC S5).
///
/// With an odd count the middle trial belongs to neither half, so both halves
/// have the same weight.
fn halves(trials: &[f64]) -> Option<Halves> {
    let half = trials.len() / 2;
    if half == 0 {
        return None;
    }
    let first = median_of(&mut trials[..half].to_vec())?;
    let second = median_of(&mut trials[trials.len() - half..].to_vec())?;
    Some(Halves { first, second })
}

/// Equal but for the last bits floating point rounding moves (a summary
/// recomputed from the same trials in another order of operations).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(f64::MIN_POSITIVE)
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC S1, S2, S3: the course's five timings.
    #[test]
    fn course_example() {
        let s = Summary::of(&[12.4, 12.5, 12.4, 12.6, 24.9]).expect("valid sample");
        assert_eq!(s.n, 5);
        assert_eq!(s.median, 12.5);
        assert_eq!(s.min, 12.4);
        assert_eq!(s.max, 24.9);
        assert_eq!(s.p25, 12.4);
        assert_eq!(s.p75, 12.6);
        assert!(!s.even_count());
        assert_eq!(s.best(), 12.4);
    }

    // SPEC S4: the 0.10 flag.
    #[test]
    fn noisy_flag_is_strictly_above_a_tenth() {
        let quiet = Summary::of(&[10.0, 10.0, 10.0, 10.0, 10.0]).expect("valid");
        assert!(!quiet.is_noisy());
        let noisy = Summary::of(&[8.0, 9.0, 10.0, 11.5, 12.0]).expect("valid");
        assert!(noisy.iqr_fraction.expect("non-zero median") > 0.10);
        assert!(noisy.is_noisy());
    }

    // SPEC S5: positive drift is slowing down, negative is speeding up.
    #[test]
    fn drift_sign_follows_the_order() {
        let heating = Summary::of(&[10.0, 10.0, 10.0, 99.0, 11.0, 11.0, 11.0]).expect("valid");
        assert!((heating.drift.expect("drift") - 0.1).abs() < 1e-12);
        let ramping = Summary::of(&[11.0, 11.0, 10.0, 10.0]).expect("valid");
        assert!(ramping.drift.expect("drift") < 0.0);
        assert_eq!(Summary::of(&[1.0]).expect("valid").drift, None);
    }

    // SPEC S5, S12: halves that differ by more than the IQR flag the row
    // with the sentence saying the machine changed; halves within it do not.
    #[test]
    fn drift_beyond_the_iqr_is_flagged() {
        let heating = Summary::of(&[10.0, 12.0, 10.0, 13.0, 11.0, 13.0]).expect("valid");
        assert_eq!(heating.halves, Some(Halves { first: 10.0, second: 13.0 }));
        assert!(heating.iqr < 3.0 && heating.drifted(), "{heating:?}");
        let flags = heating.flags();
        assert_eq!(flags.len(), 2, "{flags:?}");
        assert_eq!(
            flags[1].sentence(),
            "the second half's median is 30 % above the first's, more than the IQR: the machine changed during the run"
        );
        let steady = Summary::of(&[10.0, 10.4, 9.8, 10.2, 10.1, 9.9]).expect("valid");
        assert!(!steady.drifted(), "{steady:?}");
        assert!(steady.flags().is_empty());
        let ramping = Summary::of(&[13.0, 11.0, 13.0, 10.0, 12.0, 10.0]).expect("valid");
        let sentence = ramping.flags().last().map(Flag::sentence).unwrap_or_default();
        assert!(sentence.starts_with("the second half's median is 23 % below the first's"), "{sentence}");
    }

    // SPEC S5, S12: a row recorded before the halves were kept loads with its
    // drift, and is never flagged from anything else.
    #[test]
    fn an_old_row_without_halves_keeps_its_drift_unflagged() {
        let old = "(n: 4, median: 10.5, p25: 10.0, p75: 11.0, iqr: 1.0, iqr_fraction: Some(0.095), \
                   min: 10.0, max: 30.0, drift: Some(0.5))";
        let s: Summary = ron::from_str(old).expect("an old summary loads");
        assert_eq!((s.drift, s.halves), (Some(0.5), None));
        assert!(!s.drifted());
        assert!(s.flags().is_empty());
    }

    // SPEC S4: the noisy flag comes first and says more trials will not help.
    #[test]
    fn noise_is_flagged_with_its_sentence() {
        let noisy = Summary::of(&[8.0, 12.0, 9.0, 11.5, 10.0]).expect("valid");
        assert_eq!(noisy.flags().first(), Some(&Flag::Noisy));
        assert!(Flag::Noisy.sentence().contains("more repetitions will not fix it"));
    }

    #[test]
    fn refuses_empty_and_non_finite() {
        assert_eq!(Summary::of(&[]), Err(StatsError::Empty));
        assert!(matches!(Summary::of(&[1.0, f64::NAN]), Err(StatsError::NotFinite { index: 1, .. })));
    }

    // SPEC S17, S12 (issue 47 item 5): halves of one or two trials are no
    // evidence that the machine changed.
    #[test]
    fn drift_needs_three_trials_a_half() {
        let short = Summary::of(&[1.0, 1.0, 3.73]).expect("trials");
        assert!(short.halves.is_some_and(|h| (h.second - h.first).abs() > short.iqr), "the halves differ");
        assert!(!short.drifted(), "{:?}", short.flags());
        let long = Summary::of(&[1.0, 1.01, 1.02, 1.03, 1.2, 1.21, 1.22, 1.23]).expect("trials");
        assert!(long.drifted());
    }
}
