//! Charts for the exported documents (SPEC D5), drawn to PNG. Every picture
//! carries its own context, so it stays honest when copied out of the
//! document: the measurement window, the thermal condition, axis labels
//! with units, "y-axis does not start at zero" when it doesn't, and
//! SYNTHETIC when the data is.

use std::sync::Once;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::display::inert;
use crate::units::DisplayUnit;

use crate::notebook::{Notebook, Run, Soak};
use crate::soak::file::SoakData;
use crate::sweeps::SweepView;

/// The font every chart is drawn with, shipped so a chart looks the same
/// on every machine (DejaVu Sans; its licence allows bundling).
const FONT: &[u8] = include_bytes!("../../../assets/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";
const WIDTH: u32 = 1200;
const HEIGHT: u32 = 640;

/// A chart ready to embed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// PNG bytes.
    pub png: Vec<u8>,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// What the picture shows, in words (alt text and the plain-text form).
    pub alt: String,
}

/// A chart could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("drawing a chart failed: {0}")]
pub struct ChartError(String);

/// What is written on the picture above the plot.
struct Caption {
    title: String,
    window: String,
    thermal: String,
    synthetic: bool,
}

/// One box of the results chart: a run's median, IQR and range.
struct RunBox {
    label: String,
    median: f64,
    p25: f64,
    p75: f64,
    min: f64,
    max: f64,
}

/// The results chart: each kept run's median (dot), IQR (box) and min/max
/// (whisker), for the unit most runs share. `None` when no run is kept.
pub fn results(nb: &Notebook) -> Result<Option<Picture>, ChartError> {
    let kept: Vec<&Run> = nb.runs().iter().filter(|r| r.discarded.is_none()).collect();
    let Some(unit) = most_common(kept.iter().map(|r| r.measurement.unit.as_str())) else {
        return Ok(None);
    };
    let runs: Vec<&Run> = kept.into_iter().filter(|r| r.measurement.unit == unit).collect();
    // S12: the axis is in the largest unit in which every median is at least 1.
    let smallest = runs.iter().map(|r| r.measurement.summary.median.abs()).filter(|m| *m > 0.0).reduce(f64::min);
    let shown = DisplayUnit::for_median(unit, smallest.unwrap_or(0.0));
    let boxes: Vec<RunBox> = runs
        .iter()
        .map(|r| {
            let s = &r.measurement.summary;
            let [median, p25, p75, min, max] = [s.median, s.p25, s.p75, s.min, s.max].map(|v| shown.scale(v));
            RunBox { label: r.label(), median, p25, p75, min, max }
        })
        .collect();
    let unit = shown.name();
    let (first, last) = (runs[0].recorded_at, runs[runs.len() - 1].recorded_at);
    let thermal = crate::sweeps::thermal(&runs);
    let caption = Caption {
        title: format!("Runs in {unit}: median (dot), IQR (box), min–max (whisker)"),
        window: format!(
            "window: {} … {}, {} runs{}",
            first.format("%Y-%m-%d %H:%M"),
            last.format("%Y-%m-%d %H:%M UTC"),
            runs.len(),
            if runs.len() < nb.runs().len() { " (discarded runs and other units left out)" } else { "" }
        ),
        thermal,
        synthetic: runs.iter().any(|r| r.measurement.synthetic),
    };
    draw_runs(&caption, &boxes, unit).map(Some)
}

/// Line colours of a sweep's series, in legend order.
const SERIES_COLOURS: [RGBColor; 6] = [
    RGBColor(40, 90, 170),
    RGBColor(200, 100, 20),
    RGBColor(40, 140, 70),
    RGBColor(150, 50, 150),
    RGBColor(170, 40, 40),
    RGBColor(90, 90, 90),
];

/// A sweep (SPEC E16, D5): each point's median joined in x order per
/// series, its IQR as a bar; an axis is logarithmic when its values span two
/// decades or more (sizes in powers of two, other values in powers of ten).
pub fn sweep(view: &SweepView, nb: &Notebook) -> Result<Picture, ChartError> {
    let shown = view.display_unit();
    let unit = shown.name().to_owned();
    let (log_x, log_y) = (view.log_x(), view.log_y());
    let x_base: f64 = if view.x_sizes { 2.0 } else { 10.0 };
    let fx = |x: f64| if log_x { x.log(x_base) } else { x };
    let fy = |y: f64| if log_y { shown.scale(y).log10() } else { shown.scale(y) };
    let times: Vec<_> = view.points().filter_map(|p| nb.run(p.run)).map(|r| r.recorded_at).collect();
    let (first, last) = (times.iter().min(), times.iter().max());
    let points = view.points().count();
    // A long What would run under the flags at the right of the band.
    let title: String = if view.title.chars().count() > 60 {
        format!("{}…", view.title.chars().take(59).collect::<String>())
    } else {
        view.title.clone()
    };
    let caption = Caption {
        title: format!("{title}: median {} (bar: IQR) by {}", unit, view.x_name),
        window: match (first, last) {
            (Some(a), Some(b)) => format!(
                "window: {} … {}, {points} points{}{}",
                a.format("%Y-%m-%d %H:%M"),
                b.format("%Y-%m-%d %H:%M UTC"),
                if log_x { " · log x" } else { "" },
                if log_y { " · log y" } else { "" },
            ),
            _ => "window: no kept run".to_owned(),
        },
        thermal: view.thermal.clone(),
        synthetic: view.synthetic,
    };
    let xs: Vec<f64> = view.points().map(|p| fx(p.x)).collect();
    let ys: Vec<f64> = view.points().flat_map(|p| [fy(p.p25), fy(p.median), fy(p.p75)]).collect();
    let (Some(x_scale), Some(y_scale)) = (Scale::of(xs.iter().copied()), Scale::of(ys.iter().copied())) else {
        return render(&caption, 0.0, |area| undrawable(area, xs.iter().chain(&ys).copied()));
    };
    // Plotted divided by a power of ten where the values are extreme (a
    // hostile notebook's), labelled with the values themselves.
    let (xd, yd) = (x_scale.divisor, y_scale.divisor);
    let xs: Vec<f64> = xs.iter().map(|x| x / xd).collect();
    let ys: Vec<f64> = ys.iter().map(|y| y / yd).collect();
    let sx = |x: f64| fx(x) / xd;
    let sy = |y: f64| fy(y) / yd;
    let categories = view.categories.as_ref().map(Vec::len);
    let (x0, x1) = match (min_of(&xs), max_of(&xs)) {
        // Each category sits on a whole position, half a step from the edges.
        (Some(lo), Some(hi)) if categories.is_some() => (lo - 0.5, hi + 0.5),
        (Some(lo), Some(hi)) => {
            let pad = ((hi - lo) * 0.05).max(if log_x { 0.25 } else { hi.abs() * 0.05 + 1e-12 });
            (lo - pad, hi + pad)
        }
        _ => (0.0, 1.0),
    };
    let (y0, y1) = match (min_of(&ys), max_of(&ys)) {
        (Some(lo), Some(hi)) if log_y => (lo - 0.1, hi + 0.1),
        (lo, hi) => y_range(lo.unwrap_or(0.0), hi.unwrap_or(1.0)),
    };
    let x_label = |t: &f64| {
        let t = t * xd;
        let x = if log_x { x_base.powf(t) } else { t };
        // Only exact powers are labelled on a log axis, so a label is a value.
        if log_x && (t - t.round()).abs() > 1e-6 { String::new() } else { view.x_label(x) }
    };
    let y_label = |t: &f64| {
        let t = t * yd;
        crate::stats::format_significant(if log_y { 10f64.powf(t) } else { t }, 3)
    };
    let x_desc = format!("{}{}", view.x_name, if log_x { " (log scale)" } else { "" });
    let y_desc = format!("median ({unit}){}", if log_y { ", log scale" } else { "" });
    render(&caption, if log_y { 1.0 } else { y0 }, |area| {
        let mut chart = axes(area, x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_labels(match categories {
                Some(n) => (n + 1).min(30),
                None if log_x => ((x1 - x0).ceil() as usize + 1).min(30),
                None => 10,
            })
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .x_desc(x_desc)
            .y_desc(y_desc)
            .light_line_style(RGBColor(238, 238, 238))
            .label_style((FAMILY, 16))
            .axis_desc_style((FAMILY, 18))
            .draw()
            .map_err(err)?;
        for (series, colour) in view.series.iter().zip(SERIES_COLOURS.iter().cycle()) {
            let line: Vec<(f64, f64)> = series.points.iter().map(|p| (sx(p.x), sy(p.median))).collect();
            chart
                .draw_series(LineSeries::new(line.iter().copied(), colour.stroke_width(2)))
                .map_err(err)?
                .label(inert(&series.name).into_owned())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(3)));
            for p in &series.points {
                let x = sx(p.x);
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(x, sy(p.p25)), (x, sy(p.p75))],
                        colour.stroke_width(2),
                    )))
                    .map_err(err)?;
            }
            chart.draw_series(line.iter().map(|&pt| Circle::new(pt, 5, colour.filled()))).map_err(err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(200, 200, 200))
            .label_font((FAMILY, 16))
            .draw()
            .map_err(err)?;
        Ok(())
    })
}

/// The soak curve: the score over time with the onset and stable marks.
pub fn soak(soak: &Soak, data: &SoakData) -> Result<Picture, ChartError> {
    let n = &soak.numbers;
    let marks: Vec<(String, f64)> = [("t_onset", n.t_onset), ("t_stable", n.t_stable)]
        .into_iter()
        .filter_map(|(name, t)| t.map(|t| (format!("{name} {t} s"), t)))
        .collect();
    let ambient = soak.conditions.iter().find(|c| c.field.to_lowercase().contains("ambient"));
    let caption = Caption {
        title: format!("Soak {}: work rate under sustained load", soak.label()),
        window: format!(
            "window: {} s of sustained load from {}, sampled every {} s",
            soak.protocol.duration_s,
            soak.recorded_at.format("%Y-%m-%d %H:%M UTC"),
            soak.protocol.interval_s
        ),
        thermal: {
            // The numbers as every face rounds them (S6), the knee with them (T11).
            let shown = n.shown();
            let pick = |name: &str| shown.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone()).unwrap_or_default();
            format!(
                "thermal: the soak itself (P {}, S {}, S/P {}, knee {}){}",
                pick("P"),
                pick("S"),
                pick("S/P"),
                pick("knee"),
                ambient.map_or_else(String::new, |a| format!("; ambient {}", a.value)),
            )
        },
        synthetic: soak.synthetic || data.synthetic(),
    };
    let points: Vec<(f64, f64)> = data.t.iter().copied().zip(data.score.iter().copied()).collect();
    draw_series(&caption, &points, &marks, ("time since load started (s)", &format!("score ({})", n.unit)))
}

fn draw_runs(caption: &Caption, boxes: &[RunBox], unit: &str) -> Result<Picture, ChartError> {
    let values = || boxes.iter().flat_map(|b| [b.min, b.p25, b.median, b.p75, b.max]);
    let Some(y) = Scale::of(values()) else {
        return render(caption, 0.0, |area| undrawable(area, values()));
    };
    let boxes: Vec<RunBox> = boxes
        .iter()
        .map(|b| RunBox {
            label: b.label.clone(),
            median: y.apply(b.median),
            p25: y.apply(b.p25),
            p75: y.apply(b.p75),
            min: y.apply(b.min),
            max: y.apply(b.max),
        })
        .collect();
    let lo = boxes.iter().map(|b| b.min).fold(f64::INFINITY, f64::min);
    let hi = boxes.iter().map(|b| b.max).fold(f64::NEG_INFINITY, f64::max);
    let (y0, y1) = y_range(lo, hi);
    let count = boxes.len();
    render(caption, y0, |area| {
        let mut chart = axes(area, -0.5..(count as f64 - 0.5), y0..y1)?;
        let labels: Vec<String> = boxes.iter().map(|b| b.label.clone()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(count.min(24))
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    labels.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .x_desc("run")
            .y_desc(format!("median per trial ({}{unit})", y.prefix))
            .light_line_style(RGBColor(238, 238, 238))
            .label_style((FAMILY, 16))
            .axis_desc_style((FAMILY, 18))
            .draw()
            .map_err(err)?;
        let blue = RGBColor(40, 90, 170);
        for (i, b) in boxes.iter().enumerate() {
            let x = i as f64;
            chart
                .draw_series(std::iter::once(PathElement::new(vec![(x, b.min), (x, b.max)], BLACK.stroke_width(2))))
                .map_err(err)?;
            for y in [b.min, b.max] {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(x - 0.12, y), (x + 0.12, y)],
                        BLACK.stroke_width(2),
                    )))
                    .map_err(err)?;
            }
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x - 0.25, b.p25), (x + 0.25, b.p75)],
                    blue.mix(0.35).filled(),
                )))
                .map_err(err)?;
            chart.draw_series(std::iter::once(Circle::new((x, b.median), 6, blue.filled()))).map_err(err)?;
        }
        Ok(())
    })
}

fn draw_series(
    caption: &Caption,
    points: &[(f64, f64)],
    marks: &[(String, f64)],
    (x_desc, y_desc): (&str, &str),
) -> Result<Picture, ChartError> {
    let all = || points.iter().flat_map(|p| [p.0, p.1]).chain(marks.iter().map(|m| m.1));
    let (Some(x), Some(y)) =
        (Scale::of(points.iter().map(|p| p.0).chain(marks.iter().map(|m| m.1))), Scale::of(points.iter().map(|p| p.1)))
    else {
        return render(caption, 0.0, |area| undrawable(area, all()));
    };
    let points: Vec<(f64, f64)> = points.iter().map(|&(t, v)| (x.apply(t), y.apply(v))).collect();
    let marks: Vec<(String, f64)> = marks.iter().map(|(label, t)| (label.clone(), x.apply(*t))).collect();
    let ys: Vec<f64> = points.iter().map(|p| p.1).collect();
    let (y0, y1) = y_range(min_of(&ys).unwrap_or(0.0), max_of(&ys).unwrap_or(1.0));
    let x1 = points.last().map_or(1.0, |p| p.0).max(1.0);
    render(caption, y0, |area| {
        let mut chart = axes(area, 0.0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc(x.described(x_desc))
            .y_desc(y.described(y_desc))
            .light_line_style(RGBColor(238, 238, 238))
            .label_style((FAMILY, 16))
            .axis_desc_style((FAMILY, 18))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new(points.iter().copied(), RGBColor(40, 90, 170).stroke_width(2)))
            .map_err(err)?;
        for (label, t) in &marks {
            let red = RGBColor(190, 40, 40);
            chart
                .draw_series(std::iter::once(PathElement::new(vec![(*t, y0), (*t, y1)], red.stroke_width(1))))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(label.clone(), (*t, y1), (FAMILY, 15).into_font().color(&red))))
                .map_err(err)?;
        }
        Ok(())
    })
}

/// The plot area's axes: room for the labels, linear in both directions.
fn axes<'a, 'b>(
    area: &'a Area<'b>,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
) -> Result<ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>, ChartError> {
    ChartBuilder::on(area).margin(16).x_label_area_size(48).y_label_area_size(90).build_cartesian_2d(x, y).map_err(err)
}

/// The part of the picture below the caption band.
type Area<'b> = DrawingArea<BitMapBackend<'b>, plotters::coord::Shift>;

/// Draws the caption band and hands the plot area to `plot`, then encodes.
fn render(
    caption: &Caption,
    y0: f64,
    plot: impl FnOnce(&Area<'_>) -> Result<(), ChartError>,
) -> Result<Picture, ChartError> {
    // A unit or an ambient value may come from someone else's file.
    let [title, window, thermal] = [&caption.title, &caption.window, &caption.thermal].map(|t| inert(t).into_owned());
    let alt = format!("{title}. {window} {thermal}.");
    register_font();
    let mut rgb = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    let flags: Vec<&str> = [(y0 != 0.0, "y-axis does not start at zero"), (caption.synthetic, "SYNTHETIC data")]
        .into_iter()
        .filter_map(|(on, text)| on.then_some(text))
        .collect();
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (WIDTH, HEIGHT)).into_drawing_area();
        let (band, area) = root.split_vertically(96);
        band.draw(&Text::new(title, (16, 8), (FAMILY, 22).into_font())).map_err(err)?;
        band.draw(&Text::new(window, (16, 38), (FAMILY, 16).into_font())).map_err(err)?;
        band.draw(&Text::new(thermal, (16, 60), (FAMILY, 16).into_font())).map_err(err)?;
        if !flags.is_empty() {
            let style = (FAMILY, 18).into_font().color(&RGBColor(190, 40, 40));
            band.draw(&Text::new(
                flags.join(" · "),
                (WIDTH as i32 - 16 - 11 * flags.join(" · ").len() as i32, 8),
                style,
            ))
            .map_err(err)?;
        }
        plot(&area)?;
        root.present().map_err(err)?;
    }
    let alt = if flags.is_empty() { alt } else { format!("{alt} {}.", flags.join("; ")) };
    Ok(Picture { png: encode(&rgb)?, width: WIDTH, height: HEIGHT, alt })
}

fn encode(rgb: &[u8]) -> Result<Vec<u8>, ChartError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, WIDTH, HEIGHT);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(err)?;
    writer.write_image_data(rgb).map_err(err)?;
    writer.finish().map_err(err)?;
    Ok(out)
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is compiled in and known to parse (a test draws with it).
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
    });
}

/// Values divided by a power of ten so that plotters only ever sees ranges
/// of ordinary size: its tick search never ends on a range that reaches
/// towards f64::MAX (the padding overflows to infinity) or into subnormal
/// numbers. Ordinary magnitudes are drawn as they are.
struct Scale {
    divisor: f64,
    /// Put before the unit: "" or "×10^15 ".
    prefix: String,
}

impl Scale {
    /// The scale for `values`, or `None` when no power of ten brings them
    /// to an ordinary size (then the chart is not drawn and says why).
    fn of(values: impl Iterator<Item = f64> + Clone) -> Option<Self> {
        let largest = values.clone().map(f64::abs).fold(0.0, f64::max);
        if !largest.is_finite() {
            return None;
        }
        if largest == 0.0 || (1e-6..1e12).contains(&largest) {
            return Some(Self { divisor: 1.0, prefix: String::new() });
        }
        let exponent = largest.log10().floor() as i32;
        let divisor = 10f64.powi(exponent);
        let fits = divisor.is_normal() && values.map(|v| v / divisor).all(|v| v.is_finite() && v.abs() < 1e3);
        fits.then(|| Self { divisor, prefix: format!("×10^{exponent} ") })
    }

    fn apply(&self, value: f64) -> f64 {
        value / self.divisor
    }

    /// An axis description with the scale put before its unit in brackets.
    fn described(&self, desc: &str) -> String {
        match desc.split_once('(') {
            Some((name, unit)) if !self.prefix.is_empty() => format!("{name}({}{unit}", self.prefix),
            _ => desc.to_owned(),
        }
    }
}

/// Fills the plot area with why nothing is drawn, naming the extremes.
fn undrawable(area: &Area<'_>, values: impl Iterator<Item = f64>) -> Result<(), ChartError> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let text = format!("not drawn: the values run from {lo:e} to {hi:e}, beyond what a chart can show");
    area.draw(&Text::new(text, (32, 48), (FAMILY, 20).into_font().color(&RGBColor(190, 40, 40)))).map_err(err)
}

/// The y range: from zero when zero is near enough not to flatten the
/// data (the lowest value is under half the highest), otherwise a padded
/// window around the data — which the picture then says.
fn y_range(lo: f64, hi: f64) -> (f64, f64) {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    // All zeros still get a unit-high axis rather than a subnormal one.
    let span = (hi - lo).max(hi.abs() * 0.01);
    let span = if span > 0.0 { span } else { 1.0 };
    let top = hi + span * 0.08;
    if lo >= 0.0 && lo <= hi * 0.5 { (0.0, top) } else { (lo - span * 0.08, top) }
}

fn most_common<'a>(items: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for item in items {
        match counts.iter_mut().find(|(k, _)| *k == item) {
            Some((_, n)) => *n += 1,
            None => counts.push((item, 1)),
        }
    }
    counts.into_iter().max_by_key(|&(_, n)| n).map(|(k, _)| k)
}

fn min_of(v: &[f64]) -> Option<f64> {
    v.iter().copied().filter(|x| x.is_finite()).reduce(f64::min)
}

fn max_of(v: &[f64]) -> Option<f64> {
    v.iter().copied().filter(|x| x.is_finite()).reduce(f64::max)
}

fn err(e: impl std::fmt::Display) -> ChartError {
    ChartError(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC D5: the y-axis starts at zero unless that would flatten the data.
    #[test]
    fn the_axis_starts_at_zero_only_when_it_does_not_flatten() {
        assert_eq!(y_range(1.0, 10.0).0, 0.0);
        let (lo, hi) = y_range(12.4, 12.6);
        assert!(lo > 12.0 && lo < 12.4 && hi > 12.6, "{lo} {hi}");
        assert!(y_range(-3.0, 5.0).0 < -3.0);
    }

    // SPEC D5, N10: any finite value gives a picture in bounded time: huge
    // ones are drawn in powers of ten, ones no power of ten brings to an
    // ordinary size are named on the picture instead of drawn.
    #[test]
    fn extreme_values_are_scaled_or_named_never_looped_on() {
        let caption = || Caption { title: "t".into(), window: "w".into(), thermal: "th".into(), synthetic: false };
        let one = |v: f64| RunBox { label: "1".into(), median: v, p25: v, p75: v, min: v, max: v };
        for v in [f64::MAX, 1e300, 1e15, 0.0, 5e-324, 1e-310, f64::MIN_POSITIVE, 12.5] {
            let pic = draw_runs(&caption(), &[one(v), one(v / 2.0)], "s").expect("draws");
            assert_eq!(&pic.png[..8], b"\x89PNG\r\n\x1a\n", "{v}");
        }
        assert_eq!(Scale::of([f64::MAX].into_iter()).map(|s| s.prefix), Some("×10^308 ".to_owned()));
        assert!(Scale::of([5e-324].into_iter()).is_none());
        assert_eq!(Scale::of([12.5, 0.0].into_iter()).map(|s| s.divisor), Some(1.0));
        let points = [(0.0, f64::MAX), (f64::MAX, 1.0)];
        draw_series(&caption(), &points, &[("t_onset".into(), f64::MAX)], ("x (s)", "y (u)")).expect("draws");
    }

    // SPEC D5: a chart is a real PNG of the stated size, with the flags in its words.
    #[test]
    fn a_soak_chart_is_a_png_that_says_synthetic() {
        let text = include_str!("../../../datasets/thermal-soak.csv");
        let data = crate::soak::file::parse(text.as_bytes(), std::path::Path::new("thermal-soak.csv")).expect("parses");
        let caption = Caption { title: "t".into(), window: "w".into(), thermal: "th".into(), synthetic: true };
        let points: Vec<(f64, f64)> = data.t.iter().copied().zip(data.score.iter().copied()).collect();
        let pic = draw_series(&caption, &points, &[("t_onset 80 s".into(), 80.0)], ("x (s)", "y (u)")).expect("draws");
        assert_eq!(&pic.png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!((pic.width, pic.height), (WIDTH, HEIGHT));
        assert!(pic.alt.contains("SYNTHETIC"), "{}", pic.alt);
    }
}
