//! What a measured number may be (SPEC N10, D4, E15). A value that is not
//! a finite, non-negative number cannot be a measurement: it is refused
//! wherever it enters (an import, a load). One that is merely absurd —
//! above 10^15 in its unit, or a trial longer than a day — is refused at
//! import and, in a notebook that already holds it, loaded and named by
//! the audit (A1), so nobody loses a log over it.

use crate::stats::Summary;

/// The largest value a row may hold, in its unit.
pub const MAX_VALUE: f64 = 1e15;
/// The longest one trial may take, in nanoseconds: a day.
pub const MAX_TRIAL_NS: f64 = 86_400e9;

/// Why a value is not a measurement, as a phrase to follow its name.
pub fn impossible(value: f64) -> Option<String> {
    if !value.is_finite() {
        Some(format!("is {value}, not a finite number"))
    } else if value < 0.0 {
        Some(format!("is {}, a negative time", short(value)))
    } else {
        None
    }
}

/// Why a possible value is still absurd: above [`MAX_VALUE`], or a trial
/// above [`MAX_TRIAL_NS`] when `ns_per_unit` turns it into nanoseconds.
pub fn absurd(value: f64, unit: &str, ns_per_unit: Option<f64>) -> Option<String> {
    if value > MAX_VALUE {
        Some(format!("is {} {unit}, more than 10^15 {unit}", short(value)))
    } else if ns_per_unit.is_some_and(|k| value * k > MAX_TRIAL_NS) {
        Some(format!("is {} {unit}, more than a day per trial", short(value)))
    } else {
        None
    }
}

/// The shortest time a trial may report: a picosecond. Below it no clock
/// can tell (a 0 is a trial shorter than the clock's tick).
pub const MIN_TRIAL_NS: f64 = 1e-3;

/// Why a trial a tool reported cannot be taken in: impossible, absurd, or
/// below any clock's resolution when `ns_per_unit` says what it is in
/// nanoseconds. Every importer asks this of every value it reads; the
/// summaries already stored are only asked [`impossible`] and [`absurd`]
/// (an IQR of 0 is a fine IQR).
pub fn refused_trial(value: f64, unit: &str, ns_per_unit: Option<f64>) -> Option<String> {
    impossible(value).or_else(|| absurd(value, unit, ns_per_unit)).or_else(|| {
        ns_per_unit
            .filter(|k| value * k < MIN_TRIAL_NS)
            .map(|_| format!("is {} {unit}, under a picosecond: below any clock's resolution", short(value)))
    })
}

/// A value as a message shows it: whole when short, else in scientific
/// notation (a 309-digit number helps no one).
fn short(value: f64) -> String {
    let text = value.to_string();
    if text.len() > 16 { format!("{value:e}") } else { text }
}

/// The values of a summary that a check applies to, by name: the halves'
/// medians too, since they flag a row (S12).
fn figures(s: &Summary) -> impl Iterator<Item = (&'static str, f64)> {
    let halves = s.halves.map(|h| [("first half's median", h.first), ("second half's median", h.second)]);
    [("median", s.median), ("P25", s.p25), ("P75", s.p75), ("IQR", s.iqr), ("min", s.min), ("max", s.max)]
        .into_iter()
        .chain(halves.into_iter().flatten())
}

/// The first impossible figure of a summary, named: "max is NaN, …".
pub fn impossible_summary(s: &Summary) -> Option<String> {
    figures(s).find_map(|(name, v)| impossible(v).map(|why| format!("its {name} {why}")))
}

/// The first absurd figure of a summary, named.
pub fn absurd_summary(s: &Summary, unit: &str, ns_per_unit: f64) -> Option<String> {
    figures(s).find_map(|(name, v)| absurd(v, unit, Some(ns_per_unit)).map(|why| format!("its {name} {why}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N10: NaN, infinities and negative times are impossible; huge ones absurd.
    #[test]
    fn values_are_sorted_into_impossible_absurd_and_plausible() {
        assert!(impossible(f64::NAN).is_some());
        assert!(impossible(f64::INFINITY).is_some());
        assert!(impossible(-1.0).is_some());
        assert_eq!(impossible(f64::MAX), None);
        assert!(absurd(f64::MAX, "s", None).is_some_and(|m| m.contains("10^15")));
        assert!(absurd(86_401.0, "s", Some(1e9)).is_some_and(|m| m.contains("a day")));
        assert_eq!(absurd(86_399.0, "s", Some(1e9)), None);
        assert_eq!(absurd(12.5, "ms", Some(1e6)), None);
    }

    // SPEC E14, N10: a trial of 0 or under a picosecond is below any
    // clock's resolution; a huge value is shown short.
    #[test]
    fn a_trial_below_any_clock_is_refused() {
        assert!(refused_trial(0.0, "ms", Some(1e6)).is_some_and(|m| m.contains("below any clock's resolution")));
        assert!(refused_trial(-0.0, "ms", Some(1e6)).is_some());
        assert!(refused_trial(1e-20, "ms", Some(1e6)).is_some());
        assert_eq!(refused_trial(0.002, "ns", Some(1.0)), None);
        assert_eq!(refused_trial(5.7, "ms", Some(1e6)), None);
        assert!(refused_trial(1e308, "ms", Some(1e6)).is_some_and(|m| m.contains("1e308") && m.len() < 80));
    }
}
