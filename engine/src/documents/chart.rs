//! Charts for the exported documents (SPEC D5), drawn to PNG. Every picture
//! carries its own context, so it stays honest when copied out of the
//! document: the measurement window, the thermal condition, axis labels
//! with units, "y-axis does not start at zero" when it doesn't, and
//! SYNTHETIC when the data is.

use std::collections::BTreeSet;
use std::sync::Once;

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::{AsRangedCoord, DefaultFormatting, KeyPointHint, Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::display::inert;
use crate::stats::units::DisplayUnit;

use crate::notebook::{Notebook, Pair, Run, Soak};
use crate::soak::file::SoakData;
use crate::sweep_view::SweepView;
use crate::sweep_view::tick_text as tick;

/// The font every chart is drawn with, shipped so a chart looks the same
/// on every machine (DejaVu Sans; its licence allows bundling).
const FONT: &[u8] = include_bytes!("../../../assets/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";
const WIDTH: u32 = 1200;
/// The plot's height below the caption band, which grows with its lines.
const PLOT_HEIGHT: u32 = 544;
/// A comparison's plot (two arms side by side) reads at less height, so
/// two comparisons and their captions share a printed page (SPEC D8).
const COMPARISON_HEIGHT: u32 = 400;
/// Space left and right of the caption band's lines.
const MARGIN: i32 = 16;
/// At most this many runs in one picture of the results chart; more are
/// drawn as further pictures, so no row is squeezed out of reading.
const RESULT_ROWS: usize = 30;
/// At most this many pictures of the results chart per unit.
const RESULT_PICTURES: usize = 4;
/// The width of the results chart's run labels.
const LABEL_AREA: u32 = 430;
/// Font sizes in pixels. A chart is printed the width of the text column
/// (about 170 pixels to the inch), so 20 pixels read as body text does.
const TITLE: u32 = 26;
/// The red flags: "y-axis does not start at zero", SYNTHETIC.
const FLAG: u32 = 22;
/// The caption's other lines, notes on the plot, figures beside a box.
const LINE: u32 = 20;
/// Tick labels and legends.
const TICK: u32 = 19;
/// Axis descriptions.
const AXIS: u32 = 21;

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

/// What is written on the picture above the plot, each line wrapped to
/// the picture's width so nothing runs off it.
struct Caption {
    title: String,
    /// The measurement window (D5).
    window: String,
    /// The thermal condition (D5).
    thermal: String,
    /// Lines after those: a comparison's verdict and paired ratio.
    more: Vec<String>,
    /// What the picture does not show and why, in red under the flags.
    warnings: Vec<String>,
    /// What the axes show, in words, for the alt text (the picture draws them).
    axes: String,
    synthetic: bool,
}

/// One box of the results chart: a run's median, IQR and range.
struct RunBox {
    label: String,
    /// The median and IQR as the row shows them (S6, S12), beside its box.
    figures: String,
    median: f64,
    p25: f64,
    p75: f64,
    min: f64,
    max: f64,
}

/// The results chart: the kept runs no other chart draws — neither an arm
/// of a comparison nor a point of a sweep or of the seq/chase kernels'
/// view, each of which has its own chart — one chart per unit (S12 picks
/// its display unit), each run a labelled row (its number and What) with
/// its median (dot), IQR (box) and min–max (whisker), at most
/// 30 rows a picture and 4 pictures a unit (the results table lists every run).
/// Only the kept runs `listed` keeps are drawn: those the results table
/// lists (A18 leaves diagnostic builds out of it). Empty when every one is
/// charted elsewhere.
pub fn results(nb: &Notebook, listed: impl Fn(&Run) -> bool) -> Vec<Result<Picture, ChartError>> {
    let elsewhere = charted_elsewhere(nb);
    let kept: Vec<&Run> = nb.runs().iter().filter(|r| r.discarded.is_none()).collect();
    let in_table: Vec<&Run> = kept.iter().copied().filter(|r| listed(r)).collect();
    let rest: Vec<&Run> = in_table.iter().copied().filter(|r| !elsewhere.contains(&r.number)).collect();
    let mut left_out = Vec::new();
    if kept.len() < nb.runs().len() {
        left_out.push("discarded runs");
    }
    if in_table.len() < kept.len() {
        left_out.push("runs the results table leaves out");
    }
    if rest.len() < in_table.len() {
        left_out.push("runs charted with their comparison or sweep");
    }
    let left_out = match left_out.as_slice() {
        [] => String::new(),
        [one] => format!(" ({one} left out)"),
        [first @ .., last] => format!(" ({} and {last} left out)", first.join(", ")),
    };
    let mut units: Vec<&str> = Vec::new();
    for r in &rest {
        if !units.contains(&r.measurement.unit.as_str()) {
            units.push(&r.measurement.unit);
        }
    }
    let mut pictures = Vec::new();
    for unit in units {
        let runs: Vec<&Run> = rest.iter().copied().filter(|r| r.measurement.unit == unit).collect();
        // S12: the axis is in the largest unit in which every median is at least 1.
        let smallest = runs.iter().map(|r| r.measurement.summary.median.abs()).filter(|m| *m > 0.0).reduce(f64::min);
        let shown = DisplayUnit::for_median(unit, smallest.unwrap_or(0.0));
        // A log of thousands of runs is charted in its first pictures; the
        // results table lists every run.
        let charted = &runs[..runs.len().min(RESULT_ROWS * RESULT_PICTURES)];
        let beyond = match runs.get(charted.len()) {
            Some(r) => format!(
                " ({} runs from run {} on are not charted; the table lists them)",
                runs.len() - charted.len(),
                r.number
            ),
            None => String::new(),
        };
        let parts = charted.len().div_ceil(RESULT_ROWS);
        for (i, chunk) in charted.chunks(RESULT_ROWS).enumerate() {
            let part = if parts > 1 { format!(" (part {} of {parts})", i + 1) } else { String::new() };
            let rest = if i + 1 == parts { beyond.as_str() } else { "" };
            pictures.push(results_part(chunk, &shown, &format!("{part}{left_out}{rest}")));
        }
    }
    pictures
}

/// The runs another chart draws: the arms of every comparison, the points
/// of every sweep and of the seq/chase kernels' view.
fn charted_elsewhere(nb: &Notebook) -> BTreeSet<u32> {
    let views = nb.sweeps().iter().filter_map(|s| SweepView::of_sweep(s, nb)).chain(SweepView::of_kernels(nb));
    let swept: Vec<u32> = views.flat_map(|v| v.points().map(|p| p.run).collect::<Vec<_>>()).collect();
    nb.pairs().iter().flat_map(|p| p.runs).chain(swept).collect()
}

/// One picture of the results chart: `runs`, all in one unit, shown in
/// `shown`; `note` follows the run count in the window line.
fn results_part(runs: &[&Run], shown: &DisplayUnit, note: &str) -> Result<Picture, ChartError> {
    let boxes: Vec<RunBox> = runs
        .iter()
        .map(|r| {
            let s = &r.measurement.summary;
            let [median, p25, p75, min, max] = [s.median, s.p25, s.p75, s.min, s.max].map(|v| shown.scale(v));
            let f = shown.figures([s.median, s.iqr, s.min, s.max], None);
            let label = format!("run {} · {}", r.number, inert(&r.measurement.what));
            RunBox { label, figures: format!("{} (IQR {})", f.median(), f.iqr()), median, p25, p75, min, max }
        })
        .collect();
    let unit = shown.name();
    let first = runs.iter().map(|r| r.recorded_at).min();
    let last = runs.iter().map(|r| r.recorded_at).max();
    let window = match (first, last) {
        (Some(a), Some(b)) => format!("{} … {}", a.format("%Y-%m-%d %H:%M"), b.format("%Y-%m-%d %H:%M UTC")),
        _ => "no run".to_owned(),
    };
    // An import's file does not say when it was measured.
    let window = if runs.iter().any(|r| r.context().imported()) {
        format!("{window} (an imported run at the time of its import)")
    } else {
        window
    };
    let caption = Caption {
        title: format!("Runs in {unit}: median (dot), IQR (box), min–max (whisker)"),
        window: format!(
            "window: {window}, {}{note}",
            if runs.len() == 1 { "1 run".to_owned() } else { format!("{} runs", runs.len()) }
        ),
        thermal: crate::sweep_view::thermal(runs),
        // N12: a run typed by hand gave its IQR but not its quartiles.
        more: runs
            .iter()
            .filter(|r| r.measurement.summary.typed)
            .map(|r| format!("run {} was typed by hand: its quartiles are not known, so it has no box", r.number))
            .collect(),
        warnings: Vec::new(),
        axes: format!("one row per run, labelled with its number and What; x: {} ({unit})", per_trial(unit)),
        synthetic: runs.iter().any(|r| r.measurement.synthetic),
    };
    draw_runs(&caption, &boxes, unit)
}

/// Where the trials of a comparison's two arms sit on the x axis, and the
/// axis around them: room on the outer side of each for its figures.
const ARMS_X: std::ops::Range<f64> = -0.8..1.8;

/// One comparison (SPEC S11, S7, D5): each arm's timed trials as a strip
/// of points, spread sideways by a fixed pattern so none hides another, its
/// median as a bar and its IQR as a box with their values beside it,
/// labelled by the arms' labels, in the unit S12 picks once for both arms.
/// The caption names the comparison and gives its verdict and paired ratio.
/// `trials` holds each arm's timed values in its row's unit, or why they
/// could not be read: then the medians and IQRs are drawn alone, from the
/// rows, and the picture says why.
pub fn comparison(pair: &Pair, arms: [&Run; 2], trials: Result<&[Vec<f64>; 2], &str>) -> Result<Picture, ChartError> {
    let v = &pair.verdict;
    let shown = v.shown_unit();
    let unit = shown.name().to_owned();
    let label = |i: usize| format!("{}: {}", ["A", "B"][i], inert(&pair.labels[i]));
    let y_name = per_trial(&v.unit);
    let n = |r: &Run| r.n_column();
    let caption = Caption {
        title: format!("{}: {}", pair.label(), inert(&pair.what)),
        window: format!(
            "window: {}; n (warm-up + timed): A {}, B {}",
            // An import's file does not say when it was measured.
            if arms.iter().any(|r| r.context().imported()) {
                format!("not in the imported file (imported {})", pair.recorded_at.format("%Y-%m-%d %H:%M UTC"))
            } else {
                format!("one interleaved session recorded {}", pair.recorded_at.format("%Y-%m-%d %H:%M UTC"))
            },
            n(arms[0]),
            n(arms[1])
        ),
        thermal: crate::sweep_view::thermal(&arms),
        more: {
            let evidence = pair.evidence_of(&arms);
            let beside: Vec<String> = [evidence.paired_line(), evidence.order_line()].into_iter().flatten().collect();
            let mut more = vec![format!("verdict (S7): {}", inert(&v.verdict))];
            more.extend((!beside.is_empty()).then(|| inert(&beside.join(" · ")).into_owned()));
            more
        },
        warnings: Vec::new(),
        axes: format!(
            "x: the two arms, {} (run {}) and {} (run {}); y: {y_name} ({unit}); dots: trials, bar: median, box: IQR",
            label(0),
            arms[0].number,
            label(1),
            arms[1].number
        ),
        synthetic: arms.iter().any(|r| r.measurement.synthetic),
    };
    // A row in another unit than its comparison (a log edited by hand)
    // would be drawn at a wrong scale: nothing is drawn, and it says why.
    if let Some(r) = arms.iter().find(|r| r.measurement.unit != v.unit) {
        let why = format!(
            "not drawn: run {} is in {}, the comparison in {}",
            r.number,
            inert(&r.measurement.unit),
            inert(&v.unit)
        );
        return render(&caption, None, COMPARISON_HEIGHT, |area| note_on(area, &why));
    }
    let mut caption = caption;
    caption.warnings.extend(match trials {
        Err(why) => Some(format!("trials not drawn, only the medians and IQRs: {why}")),
        Ok(t) => (0..2).find(|&i| t[i].len() != arms[i].measurement.summary.n).map(|i| {
            format!(
                "the raw file holds {} timed trials of run {}, whose summary counts {}",
                t[i].len(),
                arms[i].number,
                arms[i].measurement.summary.n
            )
        }),
    });
    let strips: [Vec<f64>; 2] = match trials {
        Ok(t) => [0, 1].map(|i| t[i].iter().map(|&x| shown.scale(x)).collect()),
        Err(_) => [Vec::new(), Vec::new()],
    };
    let boxes = arms.map(|r| {
        let s = &r.measurement.summary;
        [s.p25, s.median, s.p75].map(|x| shown.scale(x))
    });
    // The figures beside each box, at the place its IQR allows (S6).
    let figures = arms.map(|r| {
        let s = &r.measurement.summary;
        shown.figures([s.median, s.iqr, s.min, s.max], None)
    });
    let values = || strips.iter().flatten().chain(boxes.iter().flatten()).copied();
    let Some(y) = Scale::of(values()) else {
        return render(&caption, None, COMPARISON_HEIGHT, |area| undrawable(area, values()));
    };
    let (lo, hi) = (
        values().map(|v| y.apply(v)).fold(f64::INFINITY, f64::min),
        values().map(|v| y.apply(v)).fold(f64::NEG_INFINITY, f64::max),
    );
    let (y0, y1) = y_range(lo, hi);
    let labels = [fit(&label(0), 390, TICK), fit(&label(1), 390, TICK)];
    let y_desc = y.described(&format!("{y_name} ({unit})"));
    render(&caption, (y0 != 0.0).then_some("y-axis"), COMPARISON_HEIGHT, |area| {
        let mut chart = axes(area, ARMS_X, y0..y1)?;
        mesh(&mut chart)
            .disable_x_mesh()
            .x_labels(4)
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && (0.0..=1.0).contains(&i) {
                    labels[i as usize].clone()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|t| tick(*t))
            .x_desc(match (pair.order.is_some(), arms.iter().any(|r| r.context().imported())) {
                // An import's order is the file's (a driver alternates pair by
                // pair), not Vernier's two blocks.
                (true, true) => "arm (trials in pairs, each pair's first arm as the file's first column says)",
                (true, false) => "arm (trials interleaved A B …, then B A …)",
                (false, true) => "arm (order not recorded in the file)",
                (false, false) => "arm",
            })
            .y_desc(y_desc)
            .draw()
            .map_err(err)?;
        for (i, colour) in [(0usize, ARM_COLOURS[0]), (1, ARM_COLOURS[1])] {
            let x = i as f64;
            let [p25, median, p75] = boxes[i].map(|v| y.apply(v));
            chart
                .draw_series([
                    Rectangle::new([(x - 0.2, p25), (x + 0.2, p75)], colour.mix(0.15).filled()),
                    Rectangle::new([(x - 0.2, p25), (x + 0.2, p75)], colour.stroke_width(2)),
                ])
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x - 0.27, median), (x + 0.27, median)],
                    BLACK.stroke_width(3),
                )))
                .map_err(err)?;
            // The trials over the bar, so the median trial shows on it.
            let dots = strips[i].iter().enumerate().map(|(k, &v)| (x + jitter(k), y.apply(v)));
            chart.draw_series(dots.map(|pt| Circle::new(pt, 5, colour.mix(0.6).filled()))).map_err(err)?;
            // A's figures to its left, B's to its right: never over a strip.
            let (at, h) = if i == 0 { (x - 0.3, HPos::Right) } else { (x + 0.3, HPos::Left) };
            let style = TextStyle::from((FAMILY, LINE).into_font()).pos(Pos::new(h, VPos::Center));
            let lines = [
                format!("median {}", figures[i].median()),
                format!("IQR {}", figures[i].iqr()),
                format!("run {}", arms[i].number),
            ];
            // Stacked away from the nearer edge of the plot.
            let step = if median - y0 < (y1 - y0) / 2.0 { -26 } else { 26 };
            chart
                .draw_series(
                    lines
                        .into_iter()
                        .zip([0, step, 2 * step])
                        .map(|(text, dy)| EmptyElement::at((at, median)) + Text::new(text, (0, dy), style.clone())),
                )
                .map_err(err)?;
        }
        Ok(())
    })
}

/// What an axis of trials in `unit` measures: a time, or the program's own
/// figure (E17) in a unit of its own.
fn per_trial(unit: &str) -> &'static str {
    if crate::stats::units::nanoseconds_per(unit).is_some() { "time per trial" } else { "figure per trial" }
}

/// The colours of a comparison's arms, A then B.
const ARM_COLOURS: [RGBColor; 2] = [RGBColor(40, 90, 170), RGBColor(210, 110, 20)];

/// The sideways offset of the `k`-th trial in a strip: the golden-ratio
/// sequence, spread evenly over the strip's width and the same every time
/// (a chart of the same log is the same picture).
fn jitter(k: usize) -> f64 {
    ((k as f64 * 0.618_033_988_749_895).fract() - 0.5) * 0.3
}

/// Writes `text` in red at the top of the plot area: what the picture does
/// not show, said on it so a copied picture still says it.
fn note_on(area: &Area<'_>, text: &str) -> Result<(), ChartError> {
    let style = (FAMILY, LINE).into_font().color(&RGBColor(190, 40, 40));
    let mut y = 24u32;
    for line in wrap(text, WIDTH - 200, LINE) {
        area.draw(&Text::new(line, (110, y as i32), style.clone())).map_err(err)?;
        y += line_height(LINE);
    }
    Ok(())
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
    let caption = Caption {
        title: format!("{}: median {} (bar: IQR) by {}", view.title, unit, view.x_name),
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
        more: Vec::new(),
        warnings: Vec::new(),
        axes: view.describe(),
        synthetic: view.synthetic,
    };
    let xs: Vec<f64> = view.points().map(|p| fx(p.x)).collect();
    let ys: Vec<f64> = view.points().flat_map(|p| [fy(p.p25), fy(p.median), fy(p.p75)]).collect();
    let (Some(x_scale), Some(y_scale)) = (Scale::of(xs.iter().copied()), Scale::of(ys.iter().copied())) else {
        return render(&caption, None, PLOT_HEIGHT, |area| undrawable(area, xs.iter().chain(&ys).copied()));
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
    // A log axis is ticked at round values only (U4, D5), so a label is a
    // value: powers of two for sizes, 1-2-5 for the rest.
    let x_ticks: Vec<f64> = if log_x {
        let ticks = crate::sweep_view::log_ticks(x_base.powf(x0 * xd), x_base.powf(x1 * xd), view.x_sizes);
        ticks.into_iter().map(|x| x.log(x_base) / xd).collect()
    } else {
        let hint = categories.map_or(10, |n| (n + 1).min(30));
        RangedCoordf64::from(x0..x1).key_points(hint)
    };
    let y_ticks: Vec<f64> = if log_y {
        let ticks = crate::sweep_view::log_ticks(10f64.powf(y0 * yd), 10f64.powf(y1 * yd), false);
        ticks.into_iter().map(|y| y.log10() / yd).collect()
    } else {
        RangedCoordf64::from(y0..y1).key_points(10)
    };
    let x_label = |t: &f64| {
        let t = t * xd;
        view.x_label(if log_x { x_base.powf(t) } else { t })
    };
    let y_label = |t: &f64| {
        let t = t * yd;
        tick(if log_y { 10f64.powf(t) } else { t })
    };
    let x_desc = format!("{}{}", view.x_name, if log_x { " (log scale)" } else { "" });
    let y_desc = format!("median ({unit}){}", if log_y { ", log scale" } else { "" });
    // A log axis never starts at zero, and its caption says log y.
    render(&caption, (!log_y && y0 != 0.0).then_some("y-axis"), PLOT_HEIGHT, |area| {
        let mut chart = axes(area, Ticked::new(x0..x1, x_ticks), Ticked::new(y0..y1, y_ticks))?;
        mesh(&mut chart)
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .x_desc(x_desc)
            .y_desc(y_desc)
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
            .label_font((FAMILY, TICK))
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
        more: Vec::new(),
        warnings: Vec::new(),
        axes: format!(
            "x: time since load started (s); y: score ({}); shaded: the opening window (P) and the tail window (S); \
             red lines: t_onset and t_stable",
            n.unit
        ),
        synthetic: soak.synthetic || data.synthetic(),
    };
    let points: Vec<(f64, f64)> = data.t.iter().copied().zip(data.score.iter().copied()).collect();
    // T10, T13: the windows P and S were taken over, as the analysis takes
    // them (the opening from 0, the tail back from the last sample).
    let end = data.t.last().copied().filter(|t| t.is_finite()).unwrap_or(0.0);
    let (opening, tail) = (soak.protocol.opening_window_s, soak.protocol.tail_window_s);
    let windows = [
        (format!("opening window ({opening} s): P"), 0.0, opening.min(end)),
        (format!("tail window ({tail} s): S"), (end - tail).max(0.0), end),
    ];
    draw_series(&caption, &points, &marks, &windows, ("time since load started (s)", &format!("score ({})", n.unit)))
}

/// Each run a row, the first at the top as in the results table, its
/// label at the left where a long What has room, the values along x.
fn draw_runs(caption: &Caption, boxes: &[RunBox], unit: &str) -> Result<Picture, ChartError> {
    let rows = boxes.len();
    let height = (100 + 40 * rows as u32).max(220);
    let values = || boxes.iter().flat_map(|b| [b.min, b.p25, b.median, b.p75, b.max]);
    let Some(x) = Scale::of(values()) else {
        return render(caption, None, height, |area| undrawable(area, values()));
    };
    let lo = values().map(|v| x.apply(v)).fold(f64::INFINITY, f64::min);
    let hi = values().map(|v| x.apply(v)).fold(f64::NEG_INFINITY, f64::max);
    let (x0, x1) = y_range(lo, hi);
    let labels: Vec<String> = boxes.iter().map(|b| fit(&b.label, LABEL_AREA - 24, TICK)).collect();
    // Row i from the top.
    let row_y = |i: usize| (rows - 1 - i) as f64;
    render(caption, (x0 != 0.0).then_some("x-axis"), height, |area| {
        let mut chart = ChartBuilder::on(area)
            .margin(16)
            .x_label_area_size(60)
            .y_label_area_size(LABEL_AREA)
            .build_cartesian_2d(x0..x1, -0.5..(rows as f64 - 0.5))
            .map_err(err)?;
        mesh(&mut chart)
            .disable_y_mesh()
            .y_labels(rows + 1)
            .y_label_formatter(&|t| {
                let i = t.round();
                let at = (rows as f64 - 1.0) - i;
                if (t - i).abs() < 1e-6 && at >= 0.0 {
                    labels.get(at as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .x_label_formatter(&|t| tick(*t))
            .x_desc(x.described(&format!("{} ({unit})", per_trial(unit))))
            .draw()
            .map_err(err)?;
        let blue = ARM_COLOURS[0];
        for (i, b) in boxes.iter().enumerate() {
            let y = row_y(i);
            let [median, p25, p75, min, max] = [b.median, b.p25, b.p75, b.min, b.max].map(|v| x.apply(v));
            let mut whisker = vec![PathElement::new(vec![(min, y), (max, y)], BLACK.stroke_width(2))];
            whisker.extend(
                [min, max].map(|v| PathElement::new(vec![(v, y - 0.15), (v, y + 0.15)], BLACK.stroke_width(2))),
            );
            chart.draw_series(whisker).map_err(err)?;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(p25, y - 0.25), (p75, y + 0.25)],
                    blue.mix(0.35).filled(),
                )))
                .map_err(err)?;
            chart.draw_series(std::iter::once(Circle::new((median, y), 6, blue.filled()))).map_err(err)?;
            // The figures beside the whisker, on the side with room; above
            // the median when the whisker spans the axis (a row alone, or
            // one far wider than the others), never over the row's label.
            let span = x1 - x0;
            let ((at, dx, dy), h, v) = if max - x0 < span * 0.6 {
                ((max, 10, 0), HPos::Left, VPos::Center)
            } else if min - x0 > span * 0.4 {
                ((min, -10, 0), HPos::Right, VPos::Center)
            } else {
                ((median, 0, -10), HPos::Center, VPos::Bottom)
            };
            let style = TextStyle::from((FAMILY, TICK).into_font()).pos(Pos::new(h, v));
            chart
                .draw_series(std::iter::once(EmptyElement::at((at, y)) + Text::new(b.figures.clone(), (dx, dy), style)))
                .map_err(err)?;
        }
        Ok(())
    })
}

/// A series over time with its marks (vertical lines) and windows (shaded
/// spans, each named at its top).
fn draw_series(
    caption: &Caption,
    points: &[(f64, f64)],
    marks: &[(String, f64)],
    windows: &[(String, f64, f64)],
    (x_desc, y_desc): (&str, &str),
) -> Result<Picture, ChartError> {
    let all = || points.iter().flat_map(|p| [p.0, p.1]).chain(marks.iter().map(|m| m.1));
    let (Some(x), Some(y)) =
        (Scale::of(points.iter().map(|p| p.0).chain(marks.iter().map(|m| m.1))), Scale::of(points.iter().map(|p| p.1)))
    else {
        return render(caption, None, PLOT_HEIGHT, |area| undrawable(area, all()));
    };
    let points: Vec<(f64, f64)> = points.iter().map(|&(t, v)| (x.apply(t), y.apply(v))).collect();
    let marks: Vec<(String, f64)> = marks.iter().map(|(label, t)| (label.clone(), x.apply(*t))).collect();
    let windows: Vec<(String, f64, f64)> =
        windows.iter().map(|(label, from, to)| (label.clone(), x.apply(*from), x.apply(*to))).collect();
    let ys: Vec<f64> = points.iter().map(|p| p.1).collect();
    let (y0, y1) = y_range(min_of(&ys).unwrap_or(0.0), max_of(&ys).unwrap_or(1.0));
    let x1 = points.last().map_or(1.0, |p| p.0).max(1.0);
    render(caption, (y0 != 0.0).then_some("y-axis"), PLOT_HEIGHT, |area| {
        let mut chart = axes(area, 0.0..x1, y0..y1)?;
        mesh(&mut chart)
            .x_label_formatter(&|t| tick(*t))
            .y_label_formatter(&|t| tick(*t))
            .x_desc(x.described(x_desc))
            .y_desc(y.described(y_desc))
            .draw()
            .map_err(err)?;
        // Under the line, so every sample stays visible; each label at its
        // window's top, inside it.
        for ((label, from, to), shade) in windows.iter().zip([RGBColor(40, 90, 170), RGBColor(230, 140, 30)]) {
            chart
                .draw_series(std::iter::once(Rectangle::new([(*from, y0), (*to, y1)], shade.mix(0.12).filled())))
                .map_err(err)?;
            let style = TextStyle::from((FAMILY, TICK).into_font()).pos(Pos::new(HPos::Left, VPos::Top));
            chart
                .draw_series(std::iter::once(EmptyElement::at((*from, y1)) + Text::new(label.clone(), (4, 18), style)))
                .map_err(err)?;
        }
        chart
            .draw_series(LineSeries::new(points.iter().copied(), RGBColor(40, 90, 170).stroke_width(2)))
            .map_err(err)?;
        for (label, t) in &marks {
            let red = RGBColor(190, 40, 40);
            chart
                .draw_series(std::iter::once(PathElement::new(vec![(*t, y0), (*t, y1)], red.stroke_width(1))))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    label.clone(),
                    (*t, y1),
                    (FAMILY, TICK).into_font().color(&red),
                )))
                .map_err(err)?;
        }
        Ok(())
    })
}

/// The plot area's axes: room for the labels, linear in both directions
/// (a range), or ticked where a chart says (its key points).
fn axes<'a, 'b, X: AsRangedCoord<Value = f64>, Y: AsRangedCoord<Value = f64>>(
    area: &'a Area<'b>,
    x: X,
    y: Y,
) -> Result<Chart<'a, 'b, X::CoordDescType, Y::CoordDescType>, ChartError> {
    ChartBuilder::on(area).margin(16).x_label_area_size(60).y_label_area_size(104).build_cartesian_2d(x, y).map_err(err)
}

/// An axis ticked at the values a chart gives (a log axis's round values,
/// U4, D5), labelled by the chart's formatter; no lighter lines between.
struct Ticked {
    range: RangedCoordf64,
    ticks: Vec<f64>,
}

impl Ticked {
    fn new(range: std::ops::Range<f64>, ticks: Vec<f64>) -> Self {
        Self { range: range.into(), ticks }
    }
}

impl Ranged for Ticked {
    type ValueType = f64;
    type FormatOption = DefaultFormatting;

    fn range(&self) -> std::ops::Range<f64> {
        self.range.range()
    }

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.range.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() { Vec::new() } else { self.ticks.clone() }
    }
}

/// A plot's mesh in the charts' one style — light grid lines, the chart
/// font for the ticks and the axis names — for each chart to label.
fn mesh<'a, 'c, 'b, X, Y>(chart: &'c mut Chart<'a, 'b, X, Y>) -> MeshStyle<'a, 'c, X, Y, BitMapBackend<'b>>
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(RGBColor(238, 238, 238)).label_style((FAMILY, TICK)).axis_desc_style((FAMILY, AXIS));
    mesh
}

/// A chart drawn into a picture, with its two axes.
type Chart<'a, 'b, X, Y> = ChartContext<'a, BitMapBackend<'b>, Cartesian2d<X, Y>>;

/// The part of the picture below the caption band.
type Area<'b> = DrawingArea<BitMapBackend<'b>, plotters::coord::Shift>;

/// Draws the caption band — title, the flags (D5: "y-axis does not start
/// at zero" for `not_from_zero`, SYNTHETIC), window, thermal condition and
/// any further lines, each wrapped to the picture's width — and hands the
/// plot area of `plot_height` pixels below it to `plot`, then encodes.
fn render(
    caption: &Caption,
    not_from_zero: Option<&str>,
    plot_height: u32,
    plot: impl FnOnce(&Area<'_>) -> Result<(), ChartError>,
) -> Result<Picture, ChartError> {
    register_font();
    // A unit, a label or an ambient value may come from someone else's file.
    let safe = |t: &str| inert(t).into_owned();
    let mut flags: Vec<String> = Vec::new();
    if let Some(axis) = not_from_zero {
        flags.push(format!("{axis} does not start at zero"));
    }
    if caption.synthetic {
        flags.push("SYNTHETIC data".to_owned());
    }
    let black = RGBColor(0, 0, 0);
    let red = RGBColor(190, 40, 40);
    let room = WIDTH - 2 * MARGIN as u32;
    let mut lines: Vec<(String, u32, RGBColor)> = Vec::new();
    let mut add = |text: &str, size: u32, colour: RGBColor| {
        lines.extend(wrap(text, room, size).into_iter().map(|line| (line, size, colour)));
    };
    add(&safe(&caption.title), TITLE, black);
    if !flags.is_empty() {
        add(&flags.join(" · "), FLAG, red);
    }
    for line in &caption.warnings {
        add(&safe(line), LINE, red);
    }
    for line in [&caption.window, &caption.thermal].into_iter().chain(&caption.more) {
        add(&safe(line), LINE, black);
    }
    let band = 10 + lines.iter().map(|(_, size, _)| line_height(*size)).sum::<u32>() + 6;
    let height = band + plot_height;
    let mut rgb = vec![255u8; (WIDTH * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (WIDTH, height)).into_drawing_area();
        let (top, area) = root.split_vertically(band);
        let mut y = 10;
        for (text, size, colour) in &lines {
            top.draw(&Text::new(text.as_str(), (MARGIN, y as i32), (FAMILY, *size).into_font().color(colour)))
                .map_err(err)?;
            y += line_height(*size);
        }
        plot(&area)?;
        root.present().map_err(err)?;
    }
    let mut alt: Vec<String> = [&caption.title, &caption.window, &caption.thermal]
        .into_iter()
        .chain(&caption.more)
        .chain(&caption.warnings)
        .chain([&caption.axes])
        .filter(|t| !t.is_empty())
        .map(|t| safe(t))
        .collect();
    alt.extend(flags);
    Ok(Picture { png: encode(&rgb, height)?, width: WIDTH, height, alt: format!("{}.", alt.join(". ")) })
}

/// The height of a caption line in a font of `size` pixels.
fn line_height(size: u32) -> u32 {
    size * 4 / 3 + 2
}

/// How wide `text` is in the chart font at `size` pixels; an estimate when
/// the font cannot say.
fn text_width(text: &str, size: u32) -> u32 {
    let font = (FAMILY, size).into_font();
    font.box_size(text).map_or_else(|_| text.chars().count() as u32 * size * 3 / 5, |(w, _)| w)
}

/// The most of one caption text a picture shows; a longer one (a What of
/// someone else's log) ends in an ellipsis, and the document around the
/// picture has it whole. It also bounds the time spent measuring text.
const MAX_TEXT: usize = 600;

/// `text` broken at spaces into lines no wider than `room` pixels (a word
/// wider than that on its own is broken where it must be).
fn wrap(text: &str, room: u32, size: u32) -> Vec<String> {
    let text: String = if text.chars().count() > MAX_TEXT {
        format!("{}…", text.chars().take(MAX_TEXT).collect::<String>())
    } else {
        text.to_owned()
    };
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let candidate = if line.is_empty() { word.to_owned() } else { format!("{line} {word}") };
        if text_width(&candidate, size) <= room {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        let mut rest: Vec<char> = word.chars().collect();
        while rest.len() > 1 && text_width(&rest.iter().collect::<String>(), size) > room {
            let k = longest_fitting(&rest, room, size, "").max(1);
            lines.push(rest[..k].iter().collect());
            rest.drain(..k);
        }
        line = rest.into_iter().collect();
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The most leading characters of `chars` that, followed by `suffix`, fit
/// in `room` pixels (a binary search: the width grows with the count).
fn longest_fitting(chars: &[char], room: u32, size: u32, suffix: &str) -> usize {
    let (mut lo, mut hi) = (0, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if text_width(&format!("{}{suffix}", chars[..mid].iter().collect::<String>()), size) <= room {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// `text` shortened with an ellipsis to fit `room` pixels: a label beside
/// an axis, whose whole text is in the caption or the alt text.
fn fit(text: &str, room: u32, size: u32) -> String {
    let chars: Vec<char> = text.chars().take(MAX_TEXT).collect();
    if chars.len() == text.chars().count() && text_width(text, size) <= room {
        return text.to_owned();
    }
    let k = longest_fitting(&chars, room, size, "…");
    format!("{}…", chars[..k].iter().collect::<String>().trim_end())
}

fn encode(rgb: &[u8], height: u32) -> Result<Vec<u8>, ChartError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, WIDTH, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    // fdeflate's PNG-tuned mode: a semester's export and audit each draw
    // its four results charts, which at the default level cost 488 M
    // instructions to encode and now 150 M (callgrind), for files about
    // twice as large (175 KB → 330 KB a chart; issue 50).
    encoder.set_compression(png::Compression::Fast);
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
    area.draw(&Text::new(text, (32, 48), (FAMILY, LINE).into_font().color(&RGBColor(190, 40, 40)))).map_err(err)
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

/// A value on an axis: three significant digits at most, none padded
/// (`2.5`, `3`, not `3.00`).
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

    /// A caption of placeholder words, `synthetic` or not.
    fn plain_caption(synthetic: bool) -> Caption {
        Caption {
            title: "t".into(),
            window: "w".into(),
            thermal: "th".into(),
            more: Vec::new(),
            warnings: Vec::new(),
            axes: String::new(),
            synthetic,
        }
    }

    // SPEC N12, D5: a run typed by hand has no quartiles, so its chart draws
    // no box and says why.
    #[test]
    fn a_run_typed_by_hand_says_it_has_no_box() {
        use crate::notebook::{Measurement, Tag, WarmupPolicy};
        let at = chrono::DateTime::UNIX_EPOCH;
        let mut nb = Notebook::new("t", at);
        let measurement = Measurement {
            what: "stopwatch".into(),
            command: vec!["./mm".into()],
            warmup: WarmupPolicy::Unknown,
            warmup_trials: 0,
            summary: crate::stats::Summary::typed(5, 61.2, 0.8, 60.1, 63.0),
            unit: "ms".into(),
            ns_per_unit: 1e6,
            conditions: Vec::new(),
            raw_file: None,
            tag: Tag::Measured,
            synthetic: false,
            extends: None,
            figure: None,
            work: None,
            boundary: None,
            recipe: None,
            tail: None,
            noise_floor: None,
        };
        nb.record_run(measurement, at);
        let pictures = results(&nb, |_| true);
        let alt = &pictures.first().expect("a chart").as_ref().expect("drawn").alt;
        assert!(alt.contains("run 1 was typed by hand: its quartiles are not known, so it has no box"), "{alt}");
    }

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
        let one =
            |v: f64| RunBox { label: "1".into(), figures: String::new(), median: v, p25: v, p75: v, min: v, max: v };
        for v in [f64::MAX, 1e300, 1e15, 0.0, 5e-324, 1e-310, f64::MIN_POSITIVE, 12.5] {
            let pic = draw_runs(&plain_caption(false), &[one(v), one(v / 2.0)], "s").expect("draws");
            assert_eq!(&pic.png[..8], b"\x89PNG\r\n\x1a\n", "{v}");
        }
        assert_eq!(Scale::of([f64::MAX].into_iter()).map(|s| s.prefix), Some("×10^308 ".to_owned()));
        assert!(Scale::of([5e-324].into_iter()).is_none());
        assert_eq!(Scale::of([12.5, 0.0].into_iter()).map(|s| s.divisor), Some(1.0));
        let points = [(0.0, f64::MAX), (f64::MAX, 1.0)];
        draw_series(&plain_caption(false), &points, &[("t_onset".into(), f64::MAX)], &[], ("x (s)", "y (u)"))
            .expect("draws");
    }

    // SPEC D5: a caption line never runs off the picture: it is wrapped at
    // spaces (a word too long on its own is broken), and an axis label is
    // shortened with an ellipsis.
    #[test]
    fn caption_lines_fit_the_picture() {
        register_font();
        let text = "verdict (S7): median wall time: matmul blocked, N=128, tile 64 is 77% below matmul ijk (naive), \
                    N=128 (matmul ijk (naive), N=128 is 4.3× matmul blocked, N=128, tile 64)";
        let lines = wrap(text, 600, LINE);
        assert!(lines.len() > 1 && lines.iter().all(|l| text_width(l, LINE) <= 600), "{lines:?}");
        assert_eq!(lines.join(" "), text, "nothing is lost");
        let word = "x".repeat(400);
        assert!(wrap(&word, 300, LINE).iter().all(|l| text_width(l, LINE) <= 300));
        // Someone else's What of a million characters costs no more than 600.
        let huge = "y".repeat(1_000_000);
        let started = std::time::Instant::now();
        assert!(wrap(&huge, 1000, LINE).concat().ends_with('…'));
        assert!(fit(&huge, 300, TICK).ends_with('…'));
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
        assert_eq!(wrap("", 300, LINE), [""]);
        let label = fit("B: matmul blocked, N=128, tile 64, a label far too long for its place", 200, TICK);
        assert!(label.ends_with('…') && text_width(&label, TICK) <= 200, "{label}");
        assert_eq!(fit("A: naive", 200, TICK), "A: naive");
    }

    // SPEC D5: a chart is a real PNG of the stated size, with the flags in its words.
    #[test]
    fn a_soak_chart_is_a_png_that_says_synthetic() {
        let text = include_str!("../../../datasets/thermal-soak.csv");
        let data = crate::soak::file::parse(text.as_bytes(), std::path::Path::new("thermal-soak.csv")).expect("parses");
        let caption = plain_caption(true);
        let points: Vec<(f64, f64)> = data.t.iter().copied().zip(data.score.iter().copied()).collect();
        let pic =
            draw_series(&caption, &points, &[("t_onset 80 s".into(), 80.0)], &[], ("x (s)", "y (u)")).expect("draws");
        assert_eq!(&pic.png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(pic.width, WIDTH);
        assert!(pic.height > PLOT_HEIGHT, "the caption band sits above the plot");
        assert!(pic.alt.contains("SYNTHETIC"), "{}", pic.alt);
    }

    // SPEC T10, T13: the exported soak chart shades the opening and tail
    // windows: drawn with them, a large part of the plot changes colour,
    // and only towards blue or orange, never over the line.
    #[test]
    fn a_soak_chart_shades_its_windows() {
        let caption = plain_caption(false);
        let points: Vec<(f64, f64)> = (1..=600).map(|t| (f64::from(t), 10.0 - f64::from(t) / 200.0)).collect();
        let windows =
            [("opening window (30 s): P".to_owned(), 0.0, 30.0), ("tail window (300 s): S".to_owned(), 300.0, 600.0)];
        let pixels = |windows: &[(String, f64, f64)]| {
            let pic = draw_series(&caption, &points, &[], windows, ("x (s)", "y (u)")).expect("draws");
            let mut reader = png::Decoder::new(std::io::Cursor::new(pic.png)).read_info().expect("a png");
            let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
            let info = reader.next_frame(&mut buf).expect("a frame");
            buf.truncate(info.buffer_size());
            buf
        };
        let (plain, shaded) = (pixels(&[]), pixels(&windows));
        assert_eq!(plain.len(), shaded.len());
        let changed = plain.chunks(3).zip(shaded.chunks(3)).filter(|(a, b)| a != b).count();
        let total = plain.len() / 3;
        // The two spans cover 55 % of the plot's width; the plot, about half the picture.
        assert!(changed > total / 5, "{changed} of {total} pixels changed");
    }
}
