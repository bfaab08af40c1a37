//! Statistics for timing samples (SPEC S1–S9).
//!
//! Pure functions over slices of `f64`, no I/O. The course's method is
//! deliberately small: median, interpolated percentiles, IQR, min/max, drift,
//! a rounding rule and a comparison convention. No means, no standard
//! deviations, no p-values — timing samples are one-sided and not independent
//! draws, so those would only look rigorous.

mod agreement;
mod comparison;
mod evidence;
mod floor;
mod percentile;
mod rounding;
mod shape;
mod summary;
mod tail;
pub mod units;

pub use agreement::{Agreement, RESULTS_DIFFER};
pub use comparison::{Comparison, OrderCheck, Spread, at_allowance_place, compare, paired_ratios, times};
pub use evidence::{Evidence, Facts};
pub use floor::{BelowFloor, CanaryVerdict, NoiseFloor};
pub use tail::{P95_MIN_TRIALS, Tail};

/// Timed trials of an extension: S10's "from 31 to 51".
pub const EXTENDED_TRIALS: usize = 51;
pub use percentile::{median_of, percentile_sorted};
pub use rounding::{
    Rounded, decimals_for_dispersion, format_at, format_percent, format_percent_change, format_plain,
    format_significant, percent_places,
};
pub use rounding::{ordered_places, significant_places, trim_zeros};
pub use shape::{Bimodality, SETTLE_TOLERANCE, TrialCpus, WarmupCheck, bimodality, warmup_check};
pub use summary::{Flag, Halves, NOISY_IQR_FRACTION, StatsError, Summary};
