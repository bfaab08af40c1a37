//! The summary of one sample: median, percentiles, IQR, min/max, drift.

use serde::{Deserialize, Serialize};

use super::percentile::{median_of, percentile_sorted};
use super::rounding::Rounded;

/// Above this IQR/median the environment is the noise and more repetitions
/// will not fix it (SPEC S4).
pub const NOISY_IQR_FRACTION: f64 = 0.10;

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
        Ok(Self {
            n: trials.len(),
            median,
            p25,
            p75,
            iqr,
            iqr_fraction: (median != 0.0).then(|| iqr / median.abs()),
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            drift: drift(trials),
        })
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

    /// The best-of-n, shown in its own column (S3).
    pub fn best(&self) -> f64 {
        self.min
    }

    /// The figures as they may be displayed (S6).
    pub fn rounded(&self) -> Rounded {
        Rounded::new(self.median, self.iqr, self.min, self.max)
    }
}

/// Drift between the two halves of a run, by trial order (SPEC S5).
///
/// With an odd count the middle trial belongs to neither half, so both halves
/// have the same weight.
fn drift(trials: &[f64]) -> Option<f64> {
    let half = trials.len() / 2;
    if half == 0 {
        return None;
    }
    let first = median_of(&mut trials[..half].to_vec())?;
    let second = median_of(&mut trials[trials.len() - half..].to_vec())?;
    (first != 0.0).then(|| (second - first) / first.abs())
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

    #[test]
    fn refuses_empty_and_non_finite() {
        assert_eq!(Summary::of(&[]), Err(StatsError::Empty));
        assert!(matches!(Summary::of(&[1.0, f64::NAN]), Err(StatsError::NotFinite { index: 1, .. })));
    }
}
