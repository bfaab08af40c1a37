//! Every sweep as one picture reads it (SPEC E16, U4, D5): a recorded
//! parameter scan, or the built-in seq/chase kernels' runs by working set.
//! The window's plot, the report's chart and its table all draw from this
//! one model, so they say the same thing: x the parameter, y each point's
//! median with its IQR, one line per series, each axis logarithmic when its
//! values span two decades or more, and the thermal condition with it.

use crate::notebook::{ConditionName, Conditions, Notebook, Run, Sweep, canary_ratio};
use crate::notebook::{DEFAULT_WORKING_SET, KernelKind, KernelSpec};
use crate::stats::units::DisplayUnit;

/// Values that span this factor or more are drawn on a logarithmic axis.
pub const LOG_SPAN: f64 = 100.0;

/// One point: a run's median and quartiles at one x value.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The run.
    pub run: u32,
    /// The x value (a size in bytes, or the parameter's number).
    pub x: f64,
    /// The x value as a person reads it (`16 KiB`).
    pub x_text: String,
    /// Median, first and third quartile, in the view's stored unit.
    pub median: f64,
    /// 25th percentile.
    pub p25: f64,
    /// 75th percentile.
    pub p75: f64,
}

/// One line of the sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Its name in the legend (`MODE=seq`, `chase`, or the sweep's what).
    pub name: String,
    /// Its points by increasing x.
    pub points: Vec<Point>,
}

/// A sweep ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepView {
    /// `W2: walk the working set`, or `seq / chase kernels`.
    pub title: String,
    /// The x axis's name: the parameter, `working set`.
    pub x_name: String,
    /// The x values are sizes in bytes (shown as KiB, MiB).
    pub x_sizes: bool,
    /// The unit the medians are stored in.
    pub unit: String,
    /// The lines.
    pub series: Vec<Series>,
    /// The x values as shown, in the parameter's order, when they are not
    /// all numbers (`seq, rand`): each point's x is then its position.
    pub categories: Option<Vec<String>>,
    /// The thermal condition over the sweep's runs, in words.
    pub thermal: String,
    /// Some run of it comes from a synthetic dataset.
    pub synthetic: bool,
}

impl SweepView {
    /// A recorded sweep's kept rows (discarded ones are left out).
    pub fn of_sweep(sweep: &Sweep, nb: &Notebook) -> Option<Self> {
        let x_param = sweep.x_param()?;
        let kept: Vec<_> = sweep.points(nb).into_iter().filter(|p| p.run.discarded.is_none()).collect();
        // Values that are not all numbers (or sizes below zero) are placed
        // in the parameter's order instead, each labelled with its text.
        let numeric = kept.iter().all(|p| p.x.is_some_and(|x| !x_param.sizes || x >= 0.0));
        let categories: Option<Vec<String>> =
            (!numeric).then(|| x_param.values.iter().map(|v| x_param.show(v)).collect());
        let mut series: Vec<Series> = Vec::new();
        let mut runs = Vec::new();
        for p in kept {
            let x = match (&categories, p.x) {
                (None, Some(x)) => x,
                (Some(shown), _) => shown.iter().position(|c| *c == p.x_text).unwrap_or(shown.len()) as f64,
                (None, None) => continue,
            };
            let name = if p.series.is_empty() { sweep.what.clone() } else { p.series.clone() };
            let point = point(p.run, x, p.x_text);
            match series.iter_mut().find(|s| s.name == name) {
                Some(s) => s.points.push(point),
                None => series.push(Series { name, points: vec![point] }),
            }
            runs.push(p.run);
        }
        Some(Self::new(
            format!("{}: {}", sweep.label(), crate::display::inert(&sweep.what)),
            x_param.name.clone(),
            x_param.sizes && numeric,
            series,
            categories,
            &runs,
        ))
    }

    /// The built-in seq and chase kernels' kept runs by working set: the
    /// gap between the two lines is prefetching and memory-level
    /// parallelism. `None` when neither kernel ran at two working sets or
    /// more.
    pub fn of_kernels(nb: &Notebook) -> Option<Self> {
        let mut runs = Vec::new();
        let series: Vec<Series> = [KernelKind::Seq, KernelKind::Chase]
            .into_iter()
            .filter_map(|kind| {
                let points: Vec<Point> = nb
                    .runs()
                    .iter()
                    .filter(|r| r.discarded.is_none() && r.measurement.unit == "ns/access")
                    .filter_map(|r| {
                        let spec = KernelSpec::from_argv(&r.measurement.command).filter(|s| s.kind == kind)?;
                        let bytes = spec.size.unwrap_or(DEFAULT_WORKING_SET) as f64;
                        runs.push(r);
                        Some(point(r, bytes, crate::stats::units::size(bytes)))
                    })
                    .collect();
                (!points.is_empty()).then(|| Series { name: kind.name().to_owned(), points })
            })
            .collect();
        // One working set is no sweep: its runs are read as results.
        if !series.iter().any(|s| s.points.len() > 1) {
            return None;
        }
        Some(Self::new("seq / chase kernels".to_owned(), "working set".to_owned(), true, series, None, &runs))
    }

    fn new(
        title: String,
        x_name: String,
        x_sizes: bool,
        mut series: Vec<Series>,
        categories: Option<Vec<String>>,
        runs: &[&Run],
    ) -> Self {
        for s in &mut series {
            s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
        }
        let unit = runs.first().map(|r| r.measurement.unit.clone()).unwrap_or_default();
        Self {
            title,
            x_name,
            x_sizes,
            unit,
            series,
            categories,
            thermal: thermal(runs),
            synthetic: runs.iter().any(|r| r.measurement.synthetic),
        }
    }

    /// Every point of every series.
    pub fn points(&self) -> impl Iterator<Item = &Point> {
        self.series.iter().flat_map(|s| &s.points)
    }

    /// The x axis is logarithmic: its values are numbers that span two
    /// decades or more.
    pub fn log_x(&self) -> bool {
        self.categories.is_none() && spans_decades(self.points().map(|p| p.x))
    }

    /// The y axis is logarithmic: the quartiles span two decades or more.
    pub fn log_y(&self) -> bool {
        spans_decades(self.points().flat_map(|p| [p.p25, p.p75]))
    }

    /// The unit the y axis is shown in (S12): the largest in which the
    /// smallest median is at least 1.
    pub fn display_unit(&self) -> DisplayUnit {
        let smallest = self.points().map(|p| p.median.abs()).filter(|m| *m > 0.0).reduce(f64::min);
        DisplayUnit::for_median(&self.unit, smallest.unwrap_or(0.0))
    }

    /// An x value as the axis labels it: a category's text at its
    /// position (nothing between two), a size, or the number.
    pub fn x_label(&self, x: f64) -> String {
        match &self.categories {
            Some(shown) if (x - x.round()).abs() < 1e-6 && x >= 0.0 => {
                shown.get(x.round() as usize).cloned().unwrap_or_default()
            }
            Some(_) => String::new(),
            None if self.x_sizes => crate::stats::units::size(x),
            None => tick_text(x),
        }
    }

    /// What the picture shows, in one line: axes, scales, what is left out.
    pub fn describe(&self) -> String {
        let n: usize = self.series.iter().map(|s| s.points.len()).sum();
        let mut text = format!(
            "median {} of {n} points (bars: IQR) against {}{}{}",
            self.display_unit().name(),
            self.x_name,
            if self.log_x() { " · log x" } else { "" },
            if self.log_y() { " · log y" } else { "" },
        );
        if self.categories.is_some() {
            text.push_str(" · x in the parameter's order (its values are not all numbers)");
        }
        text
    }
}

fn point(run: &Run, x: f64, x_text: String) -> Point {
    let s = &run.measurement.summary;
    Point { run: run.number, x, x_text, median: s.median, p25: s.p25, p75: s.p75 }
}

/// Positive values whose largest is at least [`LOG_SPAN`] times the smallest.
fn spans_decades(values: impl Iterator<Item = f64>) -> bool {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for v in values {
        if v <= 0.0 || !v.is_finite() {
            return false;
        }
        lo = lo.min(v);
        hi = hi.max(v);
    }
    hi >= lo * LOG_SPAN && lo.is_finite()
}

/// The thermal condition over `runs`, in words, as every chart of runs
/// says it (D5): the thermal state the rows state (a pre-run idle, the
/// ambient, from each row's own record, N9) and the thermal canary's
/// end/start ratio over the runs that timed it.
pub(crate) fn thermal(runs: &[&Run]) -> String {
    let mut stated: Vec<String> = Vec::new();
    let mut unstated = 0;
    for r in runs {
        match r.context().thermal() {
            Some(t) if !stated.contains(&t) => stated.push(t),
            Some(_) => {}
            None => unstated += 1,
        }
    }
    let stated = match (stated.as_slice(), unstated) {
        ([], _) => None,
        ([one], 0) => Some(one.clone()),
        ([one], _) => Some(format!("{one} ({unstated} of {} runs state none)", runs.len())),
        (many, _) => Some(format!("stated differently across the runs: {}", many.join(" / "))),
    };
    let canaries: Vec<f64> = runs
        .iter()
        .filter_map(|r| r.measurement.conditions.value_of(ConditionName::Canary))
        .filter_map(canary_ratio)
        .collect();
    let lo = canaries.iter().copied().reduce(f64::min);
    let hi = canaries.iter().copied().reduce(f64::max);
    let canary = match (lo, hi) {
        (Some(lo), Some(hi)) => {
            let ratio = if lo == hi { format!("{lo:.3}") } else { format!("{lo:.3}–{hi:.3}") };
            let of = if canaries.len() == runs.len() {
                String::new()
            } else {
                format!(" over {} of {} runs", canaries.len(), runs.len())
            };
            Some(format!("canary end/start {ratio}{of} (1.000 = no slowdown)"))
        }
        _ => None,
    };
    match (stated, canary) {
        (None, None) => "thermal: not recorded for these runs".to_owned(),
        (stated, canary) => {
            format!("thermal: {}", [stated, canary].into_iter().flatten().collect::<Vec<_>>().join("; "))
        }
    }
}

/// Where a logarithmic axis from `lo` to `hi` (values, not their places)
/// is ticked (SPEC U4, D5), so every label is a round value: sizes at
/// powers of two — every second one, or fewer when they are many, so
/// 16 KiB, 64 KiB, 256 KiB … — other values at 1, 2 and 5 times a power of
/// ten (only the powers when the decades are many). The window's plot and
/// the report's chart both tick here.
pub fn log_ticks(lo: f64, hi: f64, sizes: bool) -> Vec<f64> {
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        return Vec::new();
    }
    // A tick exactly at an end counts, whatever the rounding of a log.
    let (lo, hi) = (lo * (1.0 - 1e-9), hi * (1.0 + 1e-9));
    if sizes {
        let (first, last) = (lo.log2().ceil() as i32, hi.log2().floor() as i32);
        let count = last - first + 1;
        let step =
            if count <= 6 { 1 } else { [2, 4, 6, 10, 20, 30, 60].into_iter().find(|s| count / s < 8).unwrap_or(100) };
        return (first..=last).filter(|e| e.rem_euclid(step) == 0).map(|e| 2f64.powi(e)).collect();
    }
    let (first, last) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let decades = last - first;
    let (multiples, every): (&[f64], i32) = match decades {
        ..=3 => (&[1.0, 2.0, 5.0], 1),
        4..=8 => (&[1.0], 1),
        _ => (&[1.0], (decades + 7) / 8),
    };
    (first..=last)
        .filter(|d| d.rem_euclid(every) == 0)
        .flat_map(|d| multiples.iter().map(move |m| m * 10f64.powi(d)))
        .filter(|v| (lo..=hi).contains(v))
        .collect()
}

/// The step of a linear axis from `lo` to `hi`: 1, 2 or 5 times a power
/// of ten, the smallest that puts at most 8 ticks on it (so a narrow range
/// gets several labelled ticks, not one).
pub fn linear_step(lo: f64, hi: f64) -> f64 {
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return 1.0;
    }
    let decade = 10f64.powi((span / 8.0).log10().floor() as i32);
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * decade).find(|step| span / step <= 8.0).unwrap_or(10.0 * decade)
}

/// The ticks of a linear axis from `lo` to `hi`: every multiple of
/// [`linear_step`] inside it.
pub fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let step = linear_step(lo, hi);
    if !(hi > lo && hi.is_finite() && lo.is_finite()) {
        return Vec::new();
    }
    let (first, last) = ((lo / step).ceil() as i64, (hi / step).floor() as i64);
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A number as a tick labels it: three significant digits at most, none
/// padded (`2`, not `2.00`).
pub fn tick_text(value: f64) -> String {
    crate::stats::trim_zeros(crate::stats::format_significant(value, 3))
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC U4 (issue 49, item 5): a linear axis is ticked at 1-2-5 steps,
    // enough of them that a narrow range (a run's trials, 11.2–13.0 ms)
    // gets several labels, not the single "12" a decade step gave.
    #[test]
    fn a_narrow_linear_axis_gets_several_ticks() {
        let ticks = linear_ticks(11.2, 13.0);
        assert_eq!(linear_step(11.2, 13.0), 0.5);
        assert_eq!(ticks, vec![11.5, 12.0, 12.5, 13.0]);
        assert_eq!(linear_step(0.0, 100.0), 20.0);
        assert_eq!(linear_ticks(0.0, 100.0), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(linear_step(1.75, 1.93), 0.05);
        for (lo, hi) in [(0.001, 0.0017), (3.0, 3_000.0), (-5.0, 7.0)] {
            let n = linear_ticks(lo, hi).len();
            assert!((3..=8).contains(&n), "{n} ticks from {lo} to {hi}");
        }
        assert!(linear_ticks(1.0, 1.0).is_empty(), "no span, no ticks");
    }

    // SPEC E16, U4: an axis goes logarithmic when its values span two
    // decades or more, never with a value at or below zero.
    #[test]
    fn log_axes_need_two_decades() {
        assert!(spans_decades([16384.0, 67108864.0].into_iter()));
        assert!(spans_decades([1.0, 100.0].into_iter()));
        assert!(!spans_decades([1.0, 99.0].into_iter()));
        assert!(!spans_decades([0.0, 1000.0].into_iter()));
        assert!(!spans_decades(std::iter::empty()));
    }

    // SPEC U4, D5 (issue 49, item 7): a log axis is ticked at round values:
    // sizes at powers of two, every second one over many (16 KiB, 64 KiB …),
    // times at 1, 2 and 5 times a power of ten — never 1.58, 2.51, 3.98.
    #[test]
    fn log_axes_are_ticked_at_round_values() {
        let sizes: Vec<String> =
            log_ticks(16384.0, 67108864.0, true).into_iter().map(crate::stats::units::size).collect();
        assert_eq!(sizes, ["16 KiB", "64 KiB", "256 KiB", "1 MiB", "4 MiB", "16 MiB", "64 MiB"]);
        let few: Vec<String> = log_ticks(1024.0, 8192.0, true).into_iter().map(crate::stats::units::size).collect();
        assert_eq!(few, ["1 KiB", "2 KiB", "4 KiB", "8 KiB"]);
        let times: Vec<String> = log_ticks(1.3, 310.0, false).into_iter().map(tick_text).collect();
        assert_eq!(times, ["2", "5", "10", "20", "50", "100", "200"]);
        let decades: Vec<String> = log_ticks(0.002, 40000.0, false).into_iter().map(tick_text).collect();
        assert_eq!(decades, ["0.01", "0.1", "1", "10", "100", "1000", "10000"]);
        assert!(log_ticks(0.0, 10.0, false).is_empty());
    }
}
