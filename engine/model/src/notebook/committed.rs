//! The figure a prediction commits to (SPEC N14, T1): one number with a
//! tolerance, so that what was measured can later say whether the
//! prediction held. Words alone ("ikj about 4× faster") cannot be scored;
//! a committed figure can.
//!
//! Three shapes, each typed the way a student writes it:
//!
//! - a row's median: `median 100 ns/access ± 30 %`
//! - a ratio between two named arms: `ratio naive/blocked = 3 ± 50 %`
//! - a soak's two numbers: `onset 180 s ± 20 %, S/P 0.8 ± 0.05` (or
//!   `onset none, S/P 0.8 ± 0.05` when no onset is expected)
//!
//! `±` may be typed `+-` or `+/-`; a tolerance ending in `%` is relative to
//! the figure, any other is in the figure's own unit.

use serde::{Deserialize, Serialize};

use crate::stats::format_plain;

/// How far from the figure an observation may lie and still agree with it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Tolerance {
    /// A fraction of the figure (`± 30 %` is `Relative(0.3)`).
    Relative(f64),
    /// An amount in the figure's unit (`± 0.05`).
    Absolute(f64),
}

impl Tolerance {
    /// The closed range `figure` ± this tolerance, low end first.
    pub fn range(self, figure: f64) -> (f64, f64) {
        let half = match self {
            Tolerance::Relative(f) => (figure * f).abs(),
            Tolerance::Absolute(a) => a,
        };
        (figure - half, figure + half)
    }

    /// Whether `observed` lies within `figure` ± this tolerance.
    pub fn holds(self, figure: f64, observed: f64) -> bool {
        let (low, high) = self.range(figure);
        (low..=high).contains(&observed)
    }

    /// `± 30 %`, or `± 0.05` / `± 30 s` in the figure's `unit`.
    pub fn text(self, unit: &str) -> String {
        match self {
            Tolerance::Relative(f) => format!("± {} %", format_plain(f * 100.0)),
            Tolerance::Absolute(a) if unit.is_empty() => format!("± {}", format_plain(a)),
            Tolerance::Absolute(a) => format!("± {} {unit}", format_plain(a)),
        }
    }
}

/// A prediction's committed figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Committed {
    /// A run's median, in `unit` (answered by a run or a sweep point).
    Median {
        /// The predicted median.
        value: f64,
        /// Its unit, as the row will state it (`ns/access`, `ms`).
        unit: String,
        /// How far the observed median may lie from it.
        tolerance: Tolerance,
    },
    /// `numerator / denominator` of the two arms' medians, arms named by
    /// their labels (answered by a comparison).
    Ratio {
        /// The arm above the line.
        numerator: String,
        /// The arm below the line.
        denominator: String,
        /// The predicted ratio.
        value: f64,
        /// How far the observed ratio may lie from it.
        tolerance: Tolerance,
    },
    /// A soak's two numbers (T1): when the score falls, and to what
    /// fraction of its peak (answered by a soak).
    Soak {
        /// The onset second; `None` predicts no onset.
        onset: Option<f64>,
        /// Tolerance of the onset (unused when no onset is predicted).
        onset_tolerance: Tolerance,
        /// S/P.
        fraction: f64,
        /// Tolerance of S/P.
        fraction_tolerance: Tolerance,
    },
}

/// A figure typed badly: nothing is recorded, and this says why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the figure “{text}” is refused: {reason}")]
pub struct FigureError {
    /// What was typed.
    pub text: String,
    /// Why it cannot be a figure, and what would be.
    pub reason: String,
}

/// The forms a figure may take, quoted in every refusal.
pub const FIGURE_FORMS: &str = "write `median 100 ns/access ± 30 %`, `ratio naive/blocked = 3 ± 50 %` or, for a \
                                soak, `onset 180 s ± 20 %, S/P 0.8 ± 0.05` (`onset none, …` for no onset)";

impl Committed {
    /// Reads a figure as typed (see the module's forms).
    pub fn parse(text: &str) -> Result<Committed, FigureError> {
        let refuse = |reason: String| FigureError { text: text.trim().to_owned(), reason };
        let t = text.trim();
        let lower = t.to_lowercase();
        if let Some(rest) = strip_word(t, &lower, "median") {
            let (amount, tolerance) = with_tolerance(rest).map_err(refuse)?;
            let (value, unit) = split_number(amount).map_err(refuse)?;
            if unit.is_empty() {
                return Err(refuse("a median needs its unit (`100 ns/access`, `2.5 ms`)".to_owned()));
            }
            return Ok(Committed::Median { value, unit: unit.to_owned(), tolerance });
        }
        if let Some(rest) = strip_word(t, &lower, "ratio") {
            let (arms, amount) = rest.split_once('=').ok_or_else(|| {
                refuse("a ratio names its two arms then its value: `naive/blocked = 3 ± 50 %`".into())
            })?;
            let (numerator, denominator) = arms
                .split_once('/')
                .map(|(a, b)| (a.trim(), b.trim()))
                .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                .ok_or_else(|| refuse("a ratio names its two arms by their labels: `naive/blocked`".into()))?;
            if numerator.eq_ignore_ascii_case(denominator) {
                return Err(refuse(format!("a ratio of {numerator} to itself says nothing; name two arms")));
            }
            let (amount, tolerance) = with_tolerance(amount).map_err(refuse)?;
            let (value, unit) = split_number(amount).map_err(refuse)?;
            let value_ok = value > 0.0 && (unit.is_empty() || unit == "×" || unit.eq_ignore_ascii_case("x"));
            if !value_ok {
                return Err(refuse("a ratio is a positive number with no unit (`3`, `3×`)".to_owned()));
            }
            return Ok(Committed::Ratio {
                numerator: numerator.to_owned(),
                denominator: denominator.to_owned(),
                value,
                tolerance,
            });
        }
        if let Some(rest) = strip_word(t, &lower, "onset") {
            let (onset_text, fraction_text) = rest.split_once([',', ';']).ok_or_else(|| {
                refuse("a soak prediction commits two numbers: `onset 180 s ± 20 %, S/P 0.8 ± 0.05`".into())
            })?;
            let onset_text = onset_text.trim();
            let (onset, onset_tolerance) = if onset_text.eq_ignore_ascii_case("none") {
                (None, Tolerance::Absolute(0.0))
            } else {
                let (amount, tolerance) = with_tolerance(onset_text).map_err(refuse)?;
                let (value, unit) = split_number(amount).map_err(refuse)?;
                if !matches!(unit, "s" | "sec" | "seconds") || value < 0.0 {
                    return Err(refuse("the onset is a second of the run (`180 s`), or `none`".to_owned()));
                }
                if let Tolerance::Absolute(_) = tolerance
                    && !tolerance_text(onset_text).is_some_and(|t| t.ends_with('s'))
                {
                    return Err(refuse("the onset's tolerance is in seconds (`± 30 s`) or a percentage".to_owned()));
                }
                (Some(value), tolerance)
            };
            let lower_fraction = fraction_text.trim().to_lowercase();
            let rest = strip_word(fraction_text.trim(), &lower_fraction, "s/p")
                .ok_or_else(|| refuse("the second number is the fraction: `S/P 0.8 ± 0.05`".into()))?;
            let (amount, fraction_tolerance) = with_tolerance(rest).map_err(refuse)?;
            let (fraction, unit) = split_number(amount).map_err(refuse)?;
            if !unit.is_empty() || !(0.0..=2.0).contains(&fraction) {
                return Err(refuse("S/P is a plain fraction of the peak, such as 0.8".to_owned()));
            }
            return Ok(Committed::Soak { onset, onset_tolerance, fraction, fraction_tolerance });
        }
        Err(refuse(format!("it names no kind of figure; {FIGURE_FORMS}")))
    }

    /// What kind of row answers it, for refusals: "a run", "a comparison",
    /// "a soak".
    pub fn answered_by(&self) -> &'static str {
        match self {
            Committed::Median { .. } => "a run (or a sweep's point)",
            Committed::Ratio { .. } => "a comparison",
            Committed::Soak { .. } => "a soak",
        }
    }

    /// The bytes the hash chain seals (N4): every field, so no hand edit
    /// of the figure goes unnoticed.
    pub(super) fn sealed(&self) -> String {
        let tol = |t: &Tolerance| match t {
            Tolerance::Relative(f) => format!("rel {:?}", f.to_bits()),
            Tolerance::Absolute(a) => format!("abs {:?}", a.to_bits()),
        };
        match self {
            Committed::Median { value, unit, tolerance } => {
                format!("median {}|{unit}|{}", value.to_bits(), tol(tolerance))
            }
            Committed::Ratio { numerator, denominator, value, tolerance } => {
                format!(
                    "ratio {}:{numerator}|{}:{denominator}|{}|{}",
                    numerator.len(),
                    denominator.len(),
                    value.to_bits(),
                    tol(tolerance)
                )
            }
            Committed::Soak { onset, onset_tolerance, fraction, fraction_tolerance } => format!(
                "soak {}|{}|{}|{}",
                onset.map_or_else(|| "none".to_owned(), |o| o.to_bits().to_string()),
                tol(onset_tolerance),
                fraction.to_bits(),
                tol(fraction_tolerance)
            ),
        }
    }

    /// The onset as predicted: `180 s ± 20 %`, or `none`.
    pub fn onset_text(onset: Option<f64>, tolerance: Tolerance) -> String {
        onset.map_or_else(|| "none".to_owned(), |o| format!("{} s {}", format_plain(o), tolerance.text("s")))
    }

    /// S/P as predicted: `0.8 ± 0.05`.
    pub fn fraction_text(fraction: f64, tolerance: Tolerance) -> String {
        format!("{} {}", format_plain(fraction), tolerance.text(""))
    }
}

impl std::fmt::Display for Committed {
    /// The figure as it is typed, so it reads back the same way.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Committed::Median { value, unit, tolerance } => {
                write!(f, "median {} {unit} {}", format_plain(*value), tolerance.text(unit))
            }
            Committed::Ratio { numerator, denominator, value, tolerance } => {
                write!(f, "ratio {numerator}/{denominator} = {} {}", format_plain(*value), tolerance.text(""))
            }
            Committed::Soak { onset, onset_tolerance, fraction, fraction_tolerance } => write!(
                f,
                "onset {}, S/P {}",
                Committed::onset_text(*onset, *onset_tolerance),
                Committed::fraction_text(*fraction, *fraction_tolerance)
            ),
        }
    }
}

/// How a ratio's arms sit in a comparison whose arms are `labels` (A, B):
/// `Some(true)` when the ratio is B/A as the comparison stores it,
/// `Some(false)` when it is A/B, `None` when the labels name other arms.
/// Labels match ignoring case and surrounding space.
pub fn b_over_a(numerator: &str, denominator: &str, labels: &[String; 2]) -> Option<bool> {
    let is = |name: &str, label: &String| name.trim().eq_ignore_ascii_case(label.trim());
    if is(numerator, &labels[1]) && is(denominator, &labels[0]) {
        Some(true)
    } else if is(numerator, &labels[0]) && is(denominator, &labels[1]) {
        Some(false)
    } else {
        None
    }
}

/// `text` after its leading `word` (case-insensitive), or `None`.
fn strip_word<'a>(text: &'a str, lower: &str, word: &str) -> Option<&'a str> {
    lower.starts_with(word).then(|| text[word.len()..].trim_start_matches(':').trim())
}

/// The tolerance's text: what follows `±`, `+-` or `+/-`.
fn tolerance_text(text: &str) -> Option<&str> {
    ["±", "+/-", "+-"].iter().find_map(|sign| text.split_once(sign)).map(|(_, t)| t.trim())
}

/// Splits `3 ± 50 %` into `3` and its tolerance; a missing or negative
/// tolerance is refused.
fn with_tolerance(text: &str) -> Result<(&str, Tolerance), String> {
    let Some(tol) = tolerance_text(text) else {
        return Err("a figure needs its tolerance (`± 30 %`, `± 0.05`), so the outcome can be judged".to_owned());
    };
    let amount = ["±", "+/-", "+-"].iter().find_map(|sign| text.split_once(sign)).map_or(text, |(a, _)| a).trim();
    let (number, relative) = match tol.strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (tol, false),
    };
    let (value, _unit) = split_number(number)?;
    if value < 0.0 || value.is_nan() {
        return Err(format!("a tolerance cannot be negative ({tol})"));
    }
    Ok((amount, if relative { Tolerance::Relative(value / 100.0) } else { Tolerance::Absolute(value) }))
}

/// `100 ns/access` → (100, "ns/access"); the number must be finite.
fn split_number(text: &str) -> Result<(f64, &str), String> {
    let text = text.trim();
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || ((c == '-' || c == '+') && i == 0) || c == 'e' && i > 0))
        .map_or(text.len(), |(i, _)| i);
    let (number, unit) = text.split_at(end);
    number
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(|v| (v, unit.trim()))
        .ok_or_else(|| format!("“{text}” does not start with a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N14
    #[test]
    fn the_three_forms_read_back_as_typed() {
        let ratio = Committed::parse("ratio naive/blocked = 3 ± 50 %").expect("a figure");
        assert_eq!(
            ratio,
            Committed::Ratio {
                numerator: "naive".into(),
                denominator: "blocked".into(),
                value: 3.0,
                tolerance: Tolerance::Relative(0.5)
            }
        );
        assert_eq!(ratio.to_string(), "ratio naive/blocked = 3 ± 50 %");
        let median = Committed::parse("median 100 ns/access +- 30%").expect("a figure");
        assert_eq!(median.to_string(), "median 100 ns/access ± 30 %");
        let soak = Committed::parse("onset 180 s ± 20 %, S/P 0.8 ± 0.05").expect("a figure");
        assert_eq!(soak.to_string(), "onset 180 s ± 20 %, S/P 0.8 ± 0.05");
        let none = Committed::parse("onset none; S/P 0.9 ± 0.03").expect("a figure");
        assert!(matches!(none, Committed::Soak { onset: None, .. }));
        let seconds = Committed::parse("onset 180 s ± 30 s, S/P 0.8 ± 0.05").expect("a figure");
        assert!(matches!(seconds, Committed::Soak { onset_tolerance: Tolerance::Absolute(30.0), .. }));
    }

    // SPEC N14
    #[test]
    fn bad_figures_are_refused_with_the_reason() {
        for (text, why) in [
            ("median 100 ± 30 %", "unit"),
            ("ratio naive/blocked = 3 ± -50 %", "negative"),
            ("ratio = 3 ± 50 %", "two arms"),
            ("ratio naive/naive = 3 ± 50 %", "itself"),
            ("ratio naive/blocked = 3", "tolerance"),
            ("onset 180 s ± 20 %", "two numbers"),
            ("onset 180 ± 20 %, S/P 0.8 ± 0.05", "second"),
            ("x", "no kind of figure"),
        ] {
            let e = Committed::parse(text).expect_err(text);
            assert!(e.to_string().contains(why), "{text}: {e}");
        }
    }

    // SPEC N14
    #[test]
    fn a_tolerance_is_a_closed_range() {
        assert!(Tolerance::Relative(0.5).holds(3.0, 4.5));
        assert!(!Tolerance::Relative(0.5).holds(3.0, 4.51));
        assert!(Tolerance::Absolute(0.05).holds(0.8, 0.75));
        assert!(!Tolerance::Absolute(0.05).holds(0.8, 0.6));
    }
}
