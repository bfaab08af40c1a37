//! The rounding rule for display and documents (SPEC S6).
//!
//! The dispersion is quoted to one significant digit, or two when its leading
//! digit is 1 or 2; the median (and min / max beside it) is rounded to the
//! same decimal place. Raw values are never rounded — only their display.

use serde::{Deserialize, Serialize};

/// A summary's figures as they may be shown, all at the decimal place the
/// dispersion supports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rounded {
    /// Digits after the decimal point (negative: rounded to tens, hundreds…);
    /// `None` when the dispersion is zero and gives no place to round to.
    pub decimals: Option<i32>,
    /// The median at that place.
    pub median: String,
    /// The IQR at its one or two significant digits.
    pub iqr: String,
    /// The minimum at the same place.
    pub min: String,
    /// The maximum at the same place.
    pub max: String,
}

impl Rounded {
    /// Rounds `median`, `min` and `max` to the place `iqr` supports.
    pub fn new(median: f64, iqr: f64, min: f64, max: f64) -> Self {
        let decimals = decimals_for_dispersion(iqr);
        let show = |v: f64| match decimals {
            Some(d) => format_at(v, d),
            // A zero IQR supports every digit the value has.
            None => format_plain(v),
        };
        Self {
            decimals,
            median: show(median),
            iqr: decimals.map_or_else(|| "0".to_owned(), |d| format_at(iqr, d)),
            min: show(min),
            max: show(max),
        }
    }

    /// The course's headline form: `12.50 ms (IQR 0.20)`.
    pub fn headline(&self, unit: &str) -> String {
        let unit = if unit.is_empty() { String::new() } else { format!(" {unit}") };
        format!("{}{unit} (IQR {})", self.median, self.iqr)
    }
}

/// The decimal place at which a dispersion is quoted (S6): one significant
/// digit, or two when the leading digit is 1 or 2. `None` for a zero, negative
/// or non-finite dispersion.
pub fn decimals_for_dispersion(dispersion: f64) -> Option<i32> {
    if !(dispersion.is_finite() && dispersion > 0.0) {
        return None;
    }
    let (lead2, exp2) = leading_digit(dispersion, 2);
    if lead2 <= 2 {
        return Some(1 - exp2);
    }
    // One significant digit, unless rounding carried into a new leading 1
    // (0.96 → 1), which by the rule takes two digits again.
    let (lead1, exp1) = leading_digit(dispersion, 1);
    Some(if lead1 <= 2 { 1 - exp1 } else { -exp1 })
}

/// `value` rounded to `decimals` places (negative: to tens, hundreds…).
pub fn format_at(value: f64, decimals: i32) -> String {
    let text = if decimals >= 0 {
        // Cannot wrap: `decimals` is non-negative here.
        format!("{value:.prec$}", prec = decimals.unsigned_abs() as usize)
    } else {
        let scale = 10f64.powi(-decimals);
        format!("{:.0}", (value / scale).round() * scale)
    };
    strip_negative_zero(text)
}

/// The decimal place, `from` or finer, at which `a` and `b` written side by
/// side show what a sentence comparing them states (SPEC S17): two values
/// that differ never print equal, and a value that is not zero never prints
/// as 0 — "2.6 ms is within the IQRs' sum 3.0 ms", not "3 ms within 3 ms".
/// At most six places finer than `from`.
pub fn ordered_places(a: f64, b: f64, from: i32) -> i32 {
    let shows = |d: i32| {
        let [pa, pb] = [a, b].map(|v| format_at(v, d).parse::<f64>().unwrap_or(v));
        (a == b || pa != pb) && (a == 0.0 || pa != 0.0) && (b == 0.0 || pb != 0.0)
    };
    (from..=from + 6).find(|&d| shows(d)).unwrap_or(from + 6)
}

/// `value` written in full for a person: every digit an `f64` holds
/// reliably (15 significant), trailing zeros dropped, so the binary
/// representation's noise never shows (`0.008862572499999999` is
/// `0.0088625725`, `999999999.9999999` is `1000000000`). Non-finite values
/// are written as they are.
pub fn format_plain(value: f64) -> String {
    if value == 0.0 {
        return "0".to_owned();
    }
    if !value.is_finite() {
        return format!("{value}");
    }
    trim_zeros(format_at(value, significant_places(value, 15).max(0)))
}

/// A relative change (`0.012` for 1.2 %) as a signed percentage: two
/// significant digits, never finer than a hundredth of a percent, with its
/// direction always written (`+1.2 %`, `-0.35 %`, `+150 %`; `0.00 %` for a
/// change too small to show). Used for drift (SPEC S5, S12).
pub fn format_percent_change(fraction: f64) -> String {
    let text = format_percent(fraction);
    let shown_as_zero = text.chars().all(|c| c == '0' || c == '.' || c == ' ' || c == '%');
    if fraction > 0.0 && !shown_as_zero { format!("+{text}") } else { text }
}

/// A fraction as a percentage with two significant digits, never finer than
/// a hundredth of a percent: `0.041` is `4.1 %`, `-0.0035` is `-0.35 %`.
pub fn format_percent(fraction: f64) -> String {
    let percent = 100.0 * fraction;
    if !percent.is_finite() {
        return format!("{percent} %");
    }
    format!("{} %", format_at(percent, percent_places(fraction)))
}

/// The decimals of a fraction shown as a percentage (see [`format_percent`]):
/// two significant digits, never finer than a hundredth of a percent. A
/// spreadsheet's percent format takes its decimals from here, so a cell and
/// a text show the same digits.
pub fn percent_places(fraction: f64) -> i32 {
    significant_places(100.0 * fraction, 2).clamp(0, 2)
}

/// `value` with `digits` significant digits (at least one), for ratios and
/// percentages in verdicts.
pub fn format_significant(value: f64, digits: u32) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    format_at(value, significant_places(value, digits))
}

/// The decimal place that leaves `digits` significant digits of `value`
/// (zero for a zero or non-finite value).
pub fn significant_places(value: f64, digits: u32) -> i32 {
    if value == 0.0 || !value.is_finite() {
        return 0;
    }
    let digits = digits.clamp(1, 17);
    let (_, exp) = leading_digit(value.abs(), digits);
    // digits − 1 − exponent: e.g. 2 digits of 2.36 (exponent 0) → 1 decimal.
    digits as i32 - 1 - exp
}

/// The leading digit and decimal exponent of a positive `value` once rounded
/// to `digits` significant digits. Rust's `{:e}` rounds the exact binary
/// value correctly, so carries (9.96 → 1.0e1) are already applied.
fn leading_digit(value: f64, digits: u32) -> (u32, i32) {
    use std::fmt::Write as _;
    let prec = digits.saturating_sub(1) as usize;
    // Written on the stack: every figure shown asks this once or twice
    // (a semester's export some 100 000 times, issue 50). A text too long
    // for it (more digits than an f64 has) is written on the heap.
    let mut stack = arrayvec::ArrayString::<48>::new();
    let owned;
    let text = if write!(stack, "{value:.prec$e}").is_ok() {
        stack.as_str()
    } else {
        owned = format!("{value:.prec$e}");
        owned.as_str()
    };
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let lead = mantissa.chars().next().and_then(|c| c.to_digit(10)).unwrap_or(0);
    (lead, exponent.parse().unwrap_or(0))
}

/// `12.500` → `12.5`, `64.0` → `64`; a number without a decimal point is
/// left alone.
pub fn trim_zeros(text: String) -> String {
    if !text.contains('.') {
        return text;
    }
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

fn strip_negative_zero(text: String) -> String {
    match text.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_owned(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC S6: worked cases from the course (IQR 0.3 → 12.4 ms; IQR 0.9 → 41.7).
    #[test]
    fn course_rows_round_as_published() {
        let r = Rounded::new(12.4, 0.3, 12.1, 19.8);
        assert_eq!((r.median.as_str(), r.iqr.as_str()), ("12.4", "0.3"));
        assert_eq!((r.min.as_str(), r.max.as_str()), ("12.1", "19.8"));
        let r = Rounded::new(41.73, 0.91, 40.0, 44.0);
        assert_eq!((r.median.as_str(), r.iqr.as_str()), ("41.7", "0.9"));
        assert_eq!(r.headline("ms"), "41.7 ms (IQR 0.9)");
    }

    // SPEC S6: the place a figure is rounded at comes from its leading
    // digit as `{:e}` writes it, written on the stack or not.
    #[test]
    fn leading_digit_reads_what_format_writes() {
        let values = [f64::MIN_POSITIVE, 5e-324, 0.000_999_5, 0.96, 1.0, 2.5, 9.999_999, 123_456.7, 1e300, f64::MAX];
        for value in values {
            for digits in 0..=20_u32 {
                let text = format!("{value:.prec$e}", prec = digits.saturating_sub(1) as usize);
                let (mantissa, exponent) = text.split_once('e').expect("an exponent");
                let lead = mantissa.chars().next().and_then(|c| c.to_digit(10)).expect("a digit");
                assert_eq!(leading_digit(value, digits), (lead, exponent.parse().expect("a number")), "{text}");
            }
        }
    }

    // SPEC S6: a leading 1 or 2 keeps two significant digits.
    #[test]
    fn leading_one_or_two_keeps_two_digits() {
        assert_eq!(decimals_for_dispersion(0.19999999999999), Some(2));
        assert_eq!(decimals_for_dispersion(0.25), Some(2));
        assert_eq!(decimals_for_dispersion(0.34), Some(1));
        assert_eq!(decimals_for_dispersion(0.96), Some(1)); // carries to 1.0
        assert_eq!(decimals_for_dispersion(1234.0), Some(-2)); // 1200
        assert_eq!(decimals_for_dispersion(7.0), Some(0));
        assert_eq!(decimals_for_dispersion(0.0), None);
        let r = Rounded::new(12.5, 0.19999999999999, 12.4, 24.9);
        assert_eq!((r.median.as_str(), r.iqr.as_str()), ("12.50", "0.20"));
        let r = Rounded::new(123_456.0, 1234.0, 100_000.0, 150_049.0);
        assert_eq!((r.median.as_str(), r.iqr.as_str(), r.max.as_str()), ("123500", "1200", "150000"));
    }

    #[test]
    fn zero_dispersion_keeps_the_value() {
        let r = Rounded::new(3.25, 0.0, 3.25, 3.25);
        assert_eq!((r.decimals, r.median.as_str(), r.iqr.as_str()), (None, "3.25", "0"));
    }

    #[test]
    fn significant_digits_for_ratios() {
        assert_eq!(format_significant(2.3629, 2), "2.4");
        assert_eq!(format_significant(0.2234, 2), "0.22");
        assert_eq!(format_significant(70.26, 2), "70");
        assert_eq!(format_significant(9.96, 2), "10");
        assert_eq!(format_at(-0.0004, 2), "0.00");
    }

    // SPEC S12: a number written in full carries no float artefact.
    #[test]
    fn plain_numbers_have_no_float_artefacts() {
        assert_eq!(format_plain(0.008862572499999999), "0.0088625725");
        assert_eq!(format_plain(999999999.9999999), "1000000000");
        assert_eq!(format_plain(0.1 + 0.2), "0.3");
        assert_eq!(format_plain(12.5), "12.5");
        assert_eq!(format_plain(-0.0), "0");
        assert_eq!(format_plain(1e20), "100000000000000000000");
        let r = Rounded::new(0.1 + 0.2, 0.0, 0.1 + 0.2, 0.1 + 0.2);
        assert_eq!(r.median, "0.3");
    }

    // SPEC S5, S12: drift is a signed percentage, two significant digits.
    #[test]
    fn percent_changes_are_signed() {
        assert_eq!(format_percent_change(0.012), "+1.2 %");
        assert_eq!(format_percent_change(-0.0035), "-0.35 %");
        assert_eq!(format_percent_change(1.5), "+150 %");
        assert_eq!(format_percent_change(0.0), "0 %");
        assert_eq!(format_percent_change(3e-7), "0.00 %");
        assert_eq!(format_percent(0.041), "4.1 %");
    }
}
