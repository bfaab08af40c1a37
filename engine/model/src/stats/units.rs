//! The one display rule for numbers with units (SPEC S6, S12), which every
//! face calls: the window, the command line's text, the workbook, the
//! report, the charts.
//!
//! A time is shown in the largest of ns, µs, ms and s in which its median is
//! at least 1 (below 1 ns it stays in ns), a unit per something such as
//! `ns/access` rescales the same way (`µs/access`), and the dispersion and
//! the extremes follow the median into that unit before S6 rounds them.
//! Units that are not times (`chunks/s`, `GB/s`, a student's own) are never
//! rescaled. Sizes are shown in B, KiB, MiB, GiB. What is stored, and every
//! JSON value, stays in the base unit at full precision; JSON adds the unit
//! a person is shown as `display_unit`.

use crate::stats::{
    Rounded, Summary, format_at, format_percent, format_percent_change, format_plain, format_significant, trim_zeros,
};

/// The time units Vernier rescales between, largest first, with the power
/// of ten of a second each one is.
const TIMES: [(&str, i32); 4] = [("s", 0), ("ms", -3), ("µs", -6), ("ns", -9)];

/// The time part of `unit` (a power of ten of a second) and what follows it:
/// `ns/access` → (−9, `/access`). `None` when the unit is not a time:
/// `chunks/s` is a rate, not a time.
fn time_of(unit: &str) -> Option<(i32, &str)> {
    let (head, rest) = unit.split_at(unit.find('/').unwrap_or(unit.len()));
    let exponent = match head {
        "s" => 0,
        "ms" => -3,
        // The micro sign, the Greek mu, and the ASCII spelling.
        "µs" | "μs" | "us" => -6,
        "ns" => -9,
        _ => return None,
    };
    Some((exponent, rest))
}

/// `value` multiplied by 10^`power`, exactly where the result can be: the
/// power of ten is an exact `f64` and a negative power divides by it.
fn times_ten_to(value: f64, power: i32) -> f64 {
    let scale = 10f64.powi(power.abs());
    if power >= 0 { value * scale } else { value / scale }
}

/// The factor that turns a value in time unit `from` into time unit `to`
/// (`ms` → `µs` is 1000), with the same "per something" after both; `None`
/// when either is not a time or what follows differs.
pub fn time_factor(from: &str, to: &str) -> Option<f64> {
    let ((a, rest_a), (b, rest_b)) = (time_of(from)?, time_of(to)?);
    (rest_a == rest_b).then(|| times_ten_to(1.0, a - b))
}

/// Nanoseconds in one of `unit`'s time part (`ms` and `ms/access` give
/// 1e6); `None` when the unit is not a time.
pub fn nanoseconds_per(unit: &str) -> Option<f64> {
    time_of(unit).map(|(exponent, _)| times_ten_to(1.0, exponent + 9))
}

/// The unit values are shown in, and how to get there from the unit they
/// are stored in.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayUnit {
    name: String,
    /// Powers of ten from the stored unit to the shown one (0: unchanged).
    power: i32,
}

impl DisplayUnit {
    /// The unit to show values of `unit` in, chosen by their `median` (S12):
    /// for a time, the largest unit in which the median is at least 1, ns
    /// below that; any other unit as it is. A median of zero or one that is
    /// not finite gives no scale to choose, so the unit stays as stored.
    pub fn for_median(unit: &str, median: f64) -> Self {
        let unchanged = Self { name: unit.to_owned(), power: 0 };
        let Some((exponent, rest)) = time_of(unit) else { return unchanged };
        if median == 0.0 || !median.is_finite() {
            return unchanged;
        }
        // A median a float's last bit short of 1 (999999999.9999999 ns) is 1.
        let (name, target) = TIMES
            .iter()
            .find(|(_, target)| times_ten_to(median.abs(), exponent - target) >= 1.0 - 1e-12)
            .unwrap_or(&TIMES[TIMES.len() - 1]);
        Self { name: format!("{name}{rest}"), power: exponent - target }
    }

    /// The unit's name as shown (`µs`, `µs/access`, `chunks/s`, or empty).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A stored value in this unit.
    pub fn scale(&self, value: f64) -> f64 {
        times_ten_to(value, self.power)
    }

    /// `text` followed by the unit, when there is one: `721 µs`.
    pub fn after(&self, text: &str) -> String {
        if self.name.is_empty() { text.to_owned() } else { format!("{text} {}", self.name) }
    }

    /// Median, IQR, min and max in the stored unit, shown in this unit
    /// (so two rows compared side by side read in one unit).
    pub fn figures(&self, [median, iqr, min, max]: [f64; 4], drift: Option<f64>) -> Figures {
        let rounded = Rounded::new(self.scale(median), self.scale(iqr), self.scale(min), self.scale(max));
        let share = (median != 0.0 && iqr.is_finite()).then(|| iqr / median.abs());
        Figures { unit: self.clone(), rounded, drift, halves: None, share }
    }

    /// One stored value shown alone, in this unit, with three significant
    /// digits (a clump's median, an order effect): `8.01 ms`.
    pub fn quantity(&self, value: f64) -> String {
        self.after(&format_significant(self.scale(value), 3))
    }
}

/// A summary as every face shows it (SPEC S6, S12): in its display unit,
/// rounded to the place its IQR supports, drift beside the dispersion.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    unit: DisplayUnit,
    rounded: Rounded,
    drift: Option<f64>,
    /// The halves' medians at the median's place, when known.
    halves: Option<[String; 2]>,
    /// IQR / |median|, where the median is not zero.
    share: Option<f64>,
}

impl Figures {
    /// `summary`, whose values are in `unit`, as it is shown.
    pub fn of(summary: &Summary, unit: &str) -> Self {
        let mut figures = Self::new([summary.median, summary.iqr, summary.min, summary.max], summary.drift, unit);
        figures.halves = summary.halves.map(|h| {
            let at_place = |v: f64| {
                let v = figures.unit.scale(v);
                figures.unit.after(&figures.rounded.decimals.map_or_else(|| format_plain(v), |d| format_at(v, d)))
            };
            [at_place(h.first), at_place(h.second)]
        });
        figures
    }

    /// Figures known only as numbers — median, IQR, min, max in `unit` —
    /// such as a row of someone else's workbook (give the median for
    /// extremes that were not stated).
    pub fn new(values: [f64; 4], drift: Option<f64>, unit: &str) -> Self {
        DisplayUnit::for_median(unit, values[0]).figures(values, drift)
    }

    /// The unit the figures are shown in.
    pub fn unit(&self) -> &DisplayUnit {
        &self.unit
    }

    /// The figures' digits, at the place S6 allows, in [`Figures::unit`].
    pub fn rounded(&self) -> &Rounded {
        &self.rounded
    }

    /// `721 µs`.
    pub fn median(&self) -> String {
        self.unit.after(&self.rounded.median)
    }

    /// `23 µs`.
    pub fn iqr(&self) -> String {
        self.unit.after(&self.rounded.iqr)
    }

    /// `IQR 23 µs · drift +1.2 %`; no drift is shown when there is none
    /// (below two trials, or a first half with a zero median).
    pub fn dispersion(&self) -> String {
        self.dispersion_with(None)
    }

    /// The dispersion with `share` said after the IQR.
    fn dispersion_with(&self, share: Option<String>) -> String {
        let iqr = match share {
            Some(share) => format!("IQR {}, {share}", self.iqr()),
            None => format!("IQR {}", self.iqr()),
        };
        match self.drift {
            Some(drift) => format!("{iqr} · drift {}", format_percent_change(drift)),
            None => iqr,
        }
    }

    /// The first and the second half's medians at the median's place, with
    /// the unit (`712 µs`, `730 µs`); `None` for a row recorded before
    /// Vernier kept them.
    pub fn halves(&self) -> Option<&[String; 2]> {
        self.halves.as_ref()
    }

    /// `700 / 800 µs`.
    pub fn min_max(&self) -> String {
        self.unit.after(&format!("{} / {}", self.rounded.min, self.rounded.max))
    }

    /// `3.2 % of the median`: the IQR as a share of the median, two
    /// significant digits (the course's 003 quotes every timing "with its
    /// interquartile range as a fraction of that median"); `None` for a
    /// median of zero.
    pub fn iqr_share(&self) -> Option<String> {
        self.share.map(|share| format!("{} of the median", format_percent(share)))
    }

    /// The figures in one line, as `bench`, `stats` and the long form print
    /// them, the IQR's share of the median beside it: `721 µs (IQR 23 µs,
    /// 3.2 % of the median · drift +1.2 %), min 700, max 800 µs`.
    pub fn line(&self) -> String {
        format!(
            "{} ({}), min {}, max {}",
            self.median(),
            self.dispersion_with(self.iqr_share()),
            self.rounded.min,
            self.unit.after(&self.rounded.max)
        )
    }
}

/// One derived value in `unit` as a person reads it — a product or a
/// quotient of figures, such as a duty cycle's energy per second, which
/// has no dispersion for S6 to round it to: in the unit S12 gives it (a
/// time rescaled, any other unit, mJ or W, as it is) with every digit an
/// `f64` holds reliably and none of its binary noise, so 0.06 mJ/s in
/// watts is `0.00006 W`, not `0.000059999999999999995 W`.
pub fn plain(value: f64, unit: &str) -> String {
    let shown = DisplayUnit::for_median(unit, value);
    shown.after(&format_plain(shown.scale(value)))
}

/// A size in bytes as a person reads it: bytes below 1 KiB, then KiB, MiB,
/// GiB or TiB with three significant digits (`64 MiB`, `23.5 GiB`).
pub fn size(bytes: f64) -> String {
    const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let digits = if unit == 0 { format_plain(value) } else { trim_zeros(format_significant(value, 3)) };
    format!("{digits} {}", UNITS[unit])
}

/// A text that is a count of bytes (`25276502016`), or one as the Linux
/// kernel writes a cache's size (`48K`, `12288K`), as a [`size`]; any other
/// text (`not available`) as it is.
pub fn size_text(text: &str) -> String {
    let trimmed = text.trim();
    let (digits, multiple) = match trimmed.char_indices().last() {
        Some((i, 'K')) => (&trimmed[..i], 1024),
        Some((i, 'M')) => (&trimmed[..i], 1024 * 1024),
        Some((i, 'G')) => (&trimmed[..i], 1024 * 1024 * 1024),
        _ => (trimmed, 1),
    };
    match digits.parse::<u64>() {
        Ok(n) if digits.bytes().all(|b| b.is_ascii_digit()) => size(n as f64 * multiple as f64),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(median: f64, iqr: f64, unit: &str) -> Figures {
        Figures::new([median, iqr, median - iqr, median + iqr], None, unit)
    }

    // SPEC S12: a time in the largest unit where the median is at least 1,
    // its IQR and extremes in the same unit, then S6.
    #[test]
    fn times_take_the_largest_unit_with_a_median_of_at_least_one() {
        let f = Figures::new([0.000721, 0.000023, 0.000700, 0.000800], Some(0.012), "s");
        assert_eq!(f.unit().name(), "µs");
        assert_eq!(format!("{} ({})", f.median(), f.dispersion()), "721 µs (IQR 23 µs · drift +1.2 %)");
        assert_eq!(f.min_max(), "700 / 800 µs");
        // The course's 003: the IQR as a fraction of the median, beside it.
        assert_eq!(f.line(), "721 µs (IQR 23 µs, 3.2 % of the median · drift +1.2 %), min 700, max 800 µs");
        assert_eq!(Figures::new([0.0, 0.0, 0.0, 0.0], None, "ms").iqr_share(), None);
        assert_eq!(figures(12.5, 0.2, "ms").median(), "12.50 ms");
        assert_eq!(figures(2.5, 0.1, "s").median(), "2.50 s");
        assert_eq!(figures(0.0125, 0.0002, "s").median(), "12.50 ms");
        assert_eq!(figures(1500.0, 30.0, "ms").median(), "1.50 s");
        assert_eq!(figures(0.5, 0.01, "us").median(), "500 ns");
    }

    // SPEC S5, S12: the halves' medians follow the median's unit and place.
    #[test]
    fn halves_are_shown_beside_the_median() {
        let s = Summary::of(&[0.000700, 0.000712, 0.000715, 0.000730, 0.000731, 0.000729]).expect("valid");
        let f = Figures::of(&s, "s");
        assert_eq!(f.median(), "722 µs");
        assert_eq!(f.halves(), Some(&["712 µs".to_owned(), "730 µs".to_owned()]));
        assert!(f.dispersion().starts_with("IQR 17 µs · drift +2.5 %"), "{}", f.dispersion());
    }

    // SPEC S12: below 1 ns a time stays in ns; a time per access rescales
    // like a time.
    #[test]
    fn sub_nanosecond_stays_in_ns_and_per_access_rescales() {
        let f = figures(0.30, 0.02, "ns/access");
        assert_eq!((f.median(), f.dispersion()), ("0.300 ns/access".to_owned(), "IQR 0.020 ns/access".to_owned()));
        let f = figures(1500.0, 40.0, "ns/access");
        assert_eq!((f.median(), f.dispersion()), ("1.50 µs/access".to_owned(), "IQR 0.04 µs/access".to_owned()));
        assert_eq!(figures(3e-10, 1e-11, "s").median(), "0.300 ns");
    }

    // SPEC S12: units that are not times are never rescaled.
    #[test]
    fn other_units_are_never_rescaled() {
        for unit in ["chunks/s", "GB/s", "frames", ""] {
            let f = figures(0.000721, 0.000023, unit);
            assert_eq!(f.unit().name(), unit);
            assert_eq!(f.rounded().median, "0.000721");
        }
        assert_eq!(figures(12_000.0, 300.0, "chunks/s").median(), "12000 chunks/s");
        assert_eq!(DisplayUnit::for_median("s", 0.0).name(), "s");
    }

    // SPEC S12: no float artefact in any figure.
    #[test]
    fn awkward_values_show_no_artefacts() {
        let v = 0.008862572499999999;
        let f = Figures::new([v, 0.0, v, v], None, "s");
        assert_eq!((f.median(), f.dispersion()), ("8.8625725 ms".to_owned(), "IQR 0 ms".to_owned()));
        let v = 999999999.9999999;
        let f = Figures::new([v, 0.0, v, v], None, "ns");
        assert_eq!(f.median(), "1 s");
        assert_eq!(DisplayUnit::for_median("s", 0.008).quantity(0.008862572499999999), "8.86 ms");
        assert_eq!(DisplayUnit::for_median("ns", 5.0).quantity(999999999.9999999), "1000000000 ns");
        assert_eq!(time_factor("s", "ms"), Some(1000.0));
        assert_eq!(time_factor("ns/access", "µs/access"), Some(0.001));
        assert_eq!(time_factor("ns/access", "ns"), None);
        assert_eq!(time_factor("chunks/s", "s"), None);
    }

    // SPEC S12, D6: a derived value keeps its unit (watts stay watts) and
    // shows no float artefact; a time still takes its S12 unit.
    #[test]
    fn derived_values_are_plain() {
        assert_eq!(plain(0.06 / 1000.0, "W"), "0.00006 W");
        assert_eq!(plain(0.1 + 0.2, "mJ/s"), "0.3 mJ/s");
        assert_eq!(plain(2640.0, "mJ/s"), "2640 mJ/s");
        assert_eq!(plain(0.0125, "s"), "12.5 ms");
        assert_eq!(plain(7.0, ""), "7");
    }

    // SPEC S12: sizes in KiB, MiB, GiB.
    #[test]
    fn sizes_are_binary_multiples() {
        assert_eq!(size(67_108_864.0), "64 MiB");
        assert_eq!(size(25_276_502_016.0), "23.5 GiB");
        assert_eq!(size(16_384.0), "16 KiB");
        assert_eq!(size(1_536.0), "1.5 KiB");
        assert_eq!(size(512.0), "512 bytes");
        assert_eq!(size_text("25276502016"), "23.5 GiB");
        assert_eq!(size_text("not available"), "not available");
        assert_eq!(size_text("48K"), "48 KiB");
        assert_eq!(size_text("12288K"), "12 MiB");
        assert_eq!(size_text("+48K"), "+48K");
    }
}
