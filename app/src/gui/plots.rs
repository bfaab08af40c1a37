//! Plots (SPEC U4): a run's trials as a strip with its box beside it, any
//! sweep (a recorded scan or the seq/chase kernels) with log axes where the
//! values span two decades, and the live strip of a running benchmark.
//! The conditions and the measurement window are written on the plot itself.

use egui::{Color32, RichText, Ui};
use egui_plot::{BoxElem, BoxPlot, BoxSpread, GridMark, HLine, Legend, Line, Plot, PlotPoints, Points};
use vernier_engine::display::{inert, inert_line};
use vernier_engine::harness::{TrialRecord, raw};
use vernier_engine::notebook::{Brevity, Run, WarmupPolicy, plausible};
use vernier_engine::stats;
use vernier_engine::stats::units::DisplayUnit;
use vernier_engine::sweep_view::SweepView;

/// Why a run has no trials to plot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoTrials {
    /// It keeps none, or keeps an imported file in another tool's format:
    /// as it should be, said beside the row, not as an error.
    Absent(String),
    /// Its raw file could not be read or is damaged.
    Failed(String),
}

impl NoTrials {
    /// What the run's view says instead of the plot.
    pub fn text(&self) -> &str {
        match self {
            NoTrials::Absent(why) | NoTrials::Failed(why) => why,
        }
    }
}

/// A run's trials, read back from its raw file and put in the row's unit:
/// the processes' times, or the program's own figures when the row was
/// measured by them (SPEC E17).
pub struct RunTrials {
    /// The run.
    pub run: u32,
    /// Warm-up trials, in order.
    pub warmup: Vec<f64>,
    /// Timed trials, in order.
    pub timed: Vec<f64>,
    /// Each trial's CPU time in the row's unit, warm-up then timed, when
    /// the raw file has it for every one and the row is of wall times
    /// (SPEC E13): drawn beside the wall times, a trial that waited stands
    /// out as a gap between the two.
    pub cpu: Option<Vec<f64>>,
}

impl RunTrials {
    /// Picks `run`'s arm out of the raw file's trials; with `figures` (one
    /// list per trial) and a row measured by them, its figures in order,
    /// each process's in the order it printed them.
    pub fn new(run: &Run, trials: &[TrialRecord], figures: Option<&[Vec<f64>]>) -> Self {
        let raw::ArmValues { warmup, timed } = raw::arm_values(run, trials, figures);
        let m = &run.measurement;
        let arm = m.raw_file.as_ref().and_then(|r| raw::arm_index(&r.arm)).unwrap_or(0);
        let ok = |t: &&TrialRecord| t.arm == arm && t.status == vernier_engine::harness::TrialStatus::Ok;
        let in_order =
            trials.iter().filter(ok).filter(|t| t.warmup).chain(trials.iter().filter(ok).filter(|t| !t.warmup));
        let cpu = in_order.map(|t| t.work.cpu_ns.map(|ns| ns as f64 / m.ns_per_unit)).collect::<Option<Vec<f64>>>();
        let cpu = cpu.filter(|c| m.figure.is_none() && c.len() == warmup.len() + timed.len());
        Self { run: run.number, warmup, timed, cpu }
    }

    /// An imported row's values read back from its instrument's file: no
    /// CPU time (the file does not record it).
    pub fn of_values(run: &Run, values: raw::ArmValues) -> Self {
        Self { run: run.number, warmup: values.warmup, timed: values.timed, cpu: None }
    }
}

const WARM: Color32 = Color32::from_rgb(150, 150, 150);
const TIMED: Color32 = Color32::from_rgb(90, 160, 255);
const ARM_B: Color32 = Color32::from_rgb(255, 160, 60);
const HALVES: Color32 = Color32::from_rgb(80, 200, 120);
const CPU: Color32 = Color32::from_rgb(200, 110, 220);

/// The CPU-time series' name on the trial plot.
const CPU_NAME: &str = "CPU time (user + system)";

/// The trials in order (warm-up grey), the median and the IQR band, and a
/// box (P25–P75, whiskers to min and max) to the right — two clumps show
/// as two bands of points.
pub fn run_plot(ui: &mut Ui, run: &Run, trials: &RunTrials) {
    let m = &run.measurement;
    let s = &m.summary;
    let figures = [s.min, s.p25, s.median, s.p75, s.max];
    if let Some(v) = beyond_plot(figures.iter().chain(&trials.warmup).chain(&trials.timed).copied()) {
        super::hint(
            ui,
            &format!("Not plotted: a value of {v:e} {} is beyond 10^15; the audit names this row.", m.unit),
        );
        return;
    }
    let warmup_n = trials.warmup.len();
    // SPEC E17: a row measured by the program's own figure says so on its
    // plot, and how its trials came out of the processes.
    let own = m.figure.as_ref().map(|f| match f.internal_text(s.n) {
        Some(count) => format!("the program's own figure ({count}) · "),
        None => format!("the program's own figure (one per run, {} runs) · ", f.processes),
    });
    let caption = format!(
        "{}{} timed trials after {} · {}",
        own.as_deref().unwrap_or(""),
        s.n,
        match m.warmup {
            WarmupPolicy::Count(_) => format!("{warmup_n} warm-up"),
            WarmupPolicy::Settle { .. } => format!("{warmup_n} warm-up (settle)"),
            WarmupPolicy::Unknown => "an unrecorded warm-up".into(),
            WarmupPolicy::Stated(n) => format!("{n} warm-up not in the file"),
        },
        caption_conditions(run)
    );
    // S4, S12, S8: what the median does not say, above the plot.
    for flag in s.flags() {
        ui.colored_label(ui.visuals().warn_fg_color, inert(&format!("⚠ {flag}")));
    }
    if let Some(b) = stats::bimodality(&trials.timed) {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            inert(&format!(
                "⚠ {}",
                b.describe(&m.unit, Some(run.context().pinned()), run.measurement.trial_cpus().as_ref())
            )),
        );
    }
    // Every value is drawn in the unit the row's median is shown in (S12).
    let figures = run.figures();
    let unit = figures.unit();
    let y = |v: f64| unit.scale(v);
    // The range comes from the quartiles (U4): a trial beyond it is drawn
    // at its edge, marked, and named above the plot.
    let all = trials.warmup.iter().chain(&trials.timed).chain(trials.cpu.iter().flatten()).map(|&v| y(v));
    let range = TrialRange::new(y(s.p25), y(s.p75), all);
    let at = |i: usize, v: f64| [i as f64, range.clamp(y(v))];
    let inside = |v: &&f64| !range.beyond(y(**v));
    let warm: PlotPoints =
        trials.warmup.iter().enumerate().filter(|(_, v)| inside(v)).map(|(i, &v)| at(i, v)).collect();
    let timed: PlotPoints =
        trials.timed.iter().enumerate().filter(|(_, v)| inside(v)).map(|(i, &v)| at(warmup_n + i, v)).collect();
    let beyond: Vec<(usize, f64)> = trials
        .warmup
        .iter()
        .chain(&trials.timed)
        .enumerate()
        .filter(|(_, v)| !inside(v))
        .map(|(i, &v)| (i, y(v)))
        .collect();
    let box_x = (warmup_n + trials.timed.len()) as f64 + 3.0;
    let spread = BoxSpread::new(range.clamp(y(s.min)), y(s.p25), y(s.median), y(s.p75), range.clamp(y(s.max)));
    let halves = halves_marks(run, warmup_n);
    let starts_above_zero = range.lo > 0.0;
    let note = if starts_above_zero { format!("{caption} · y-axis does not start at zero") } else { caption };
    let median_name = inert(&format!("median {}", figures.median())).into_owned();
    let cpu: Option<PlotPoints> =
        trials.cpu.as_ref().map(|cpu| cpu.iter().enumerate().map(|(i, &v)| at(i, v)).collect());
    // The legend sits above the plot, never on it (U4).
    // Warm-up is listed only where there are warm-up trials to see.
    let warm_entry = (!trials.warmup.is_empty()).then(|| (WARM, Swatch::Dot, "warm-up".to_owned()));
    let mut legend: Vec<_> = warm_entry.into_iter().collect();
    legend.extend([
        (TIMED, Swatch::Dot, "timed".to_owned()),
        (TIMED, Swatch::Line, median_name.clone()),
        (TIMED.gamma_multiply(0.4), Swatch::Line, "P25 / P75".to_owned()),
        (TIMED, Swatch::Box, "box: P25–P75, whiskers min–max".to_owned()),
    ]);
    if cpu.is_some() {
        legend.push((CPU, Swatch::Ring, CPU_NAME.to_owned()));
    }
    legend.extend(halves.iter().map(|(name, _)| (HALVES, Swatch::Line, inert(name).into_owned())));
    if !beyond.is_empty() {
        legend.push((BEYOND, Swatch::Edge, "beyond the range, at its edge".to_owned()));
        let listed: Vec<String> =
            beyond.iter().take(5).map(|&(i, v)| format!("trial {i} ({})", unit.after(&tick_text(v)))).collect();
        let more = if beyond.len() > 5 { format!(" and {} more", beyond.len() - 5) } else { String::new() };
        let noun = if beyond.len() == 1 { "trial is" } else { "trials are" };
        ui.label(
            RichText::new(format!(
                "{} {noun} beyond the range drawn (P25 − 3·IQR to P75 + 3·IQR), marked at its edge: {}{more}",
                beyond.len(),
                listed.join(", ")
            ))
            .weak(),
        );
    }
    legend_row(ui, &legend);
    let height = ui.available_height().max(160.0);
    let band = CaptionBand::new(ui, &note, std::iter::empty(), height);
    let response = Plot::new(("run-plot", run.number))
        .id(trial_plot_id(run.number))
        .height(height)
        .include_y(range.lo)
        .include_y(band.top(range.lo, range.hi))
        .y_axis_min_width(64.0)
        .x_axis_label("trial (in order taken)")
        .y_axis_label(inert(&format!("{} per trial ({})", if own.is_some() { "figure" } else { "time" }, unit.name())))
        .y_axis_formatter(|mark, _| unit.after(&tick_at(mark.value, mark.step_size)))
        // 1-2-5 steps, so a narrow range still gets several labels (U4).
        .y_grid_spacer(|input| {
            let (lo, hi) = input.bounds;
            let step = vernier_engine::sweep_view::linear_step(lo, hi);
            let ticks = vernier_engine::sweep_view::linear_ticks(lo, hi);
            ticks.into_iter().map(|value| GridMark { value, step_size: step }).collect()
        })
        .show(ui, |plot| {
            plot.points(Points::new("warm-up", warm).color(WARM).radius(3.0));
            if let Some(cpu) = cpu {
                // SPEC E13: a ring per trial at its CPU time, under the
                // wall-time dot: a dot inside its ring worked all along; a
                // dot far above its ring was waiting.
                plot.points(Points::new(CPU_NAME, cpu).color(CPU).radius(5.0).filled(false));
            }
            plot.points(Points::new("timed", timed).color(TIMED).radius(3.0));
            for (above, shape) in [(true, egui_plot::MarkerShape::Up), (false, egui_plot::MarkerShape::Down)] {
                let edge = if above { range.hi } else { range.lo };
                let marks: PlotPoints =
                    beyond.iter().filter(|(_, v)| (*v > range.hi) == above).map(|&(i, _)| [i as f64, edge]).collect();
                plot.points(Points::new("beyond", marks).color(BEYOND).shape(shape).radius(6.0));
            }
            plot.hline(HLine::new(median_name, y(s.median)).color(TIMED));
            let quartile = TIMED.gamma_multiply(0.4);
            let dashed = egui_plot::LineStyle::dashed_loose();
            plot.hline(HLine::new("P25 / P75", y(s.p25)).color(quartile).style(dashed));
            plot.hline(HLine::new("P25 / P75", y(s.p75)).color(quartile).style(dashed));
            for (name, points) in halves {
                plot.line(Line::new(inert(&name), PlotPoints::new(points)).color(HALVES).width(3.0));
            }
            plot.box_plot(BoxPlot::new("box", vec![BoxElem::new(box_x, spread).box_width(1.5)]).color(TIMED));
        });
    band.paint(ui, *response.transform.frame());
}

/// The trial plot's id: the same for a run in every frame, so its bounds
/// can be read back (egui_plot keeps them under it).
pub fn trial_plot_id(run: u32) -> egui::Id {
    egui::Id::unique(("run-plot", run))
}

/// A tick on a linear axis: as many decimals as its step needs, none padded.
fn tick_at(value: f64, step: f64) -> String {
    let decimals = if step > 0.0 { (-step.log10().floor()).max(0.0) as usize } else { 0 };
    vernier_engine::stats::trim_zeros(format!("{value:.decimals$}"))
}

/// A value as a tick or a note on a plot reads it (three digits at most).
fn tick_text(value: f64) -> String {
    vernier_engine::sweep_view::tick_text(value)
}

/// The y range of a run's trial plot (SPEC U4), from the timed trials'
/// quartiles so one slow trial does not squash the rest to the bottom:
/// P25 − 3·IQR to P75 + 3·IQR, narrowed to the values inside it, with a
/// little room. A value beyond it is drawn at its edge.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TrialRange {
    lo: f64,
    hi: f64,
}

impl TrialRange {
    fn new(p25: f64, p75: f64, values: impl Iterator<Item = f64>) -> Self {
        let iqr = p75 - p25;
        let reach = if iqr > 0.0 { 3.0 * iqr } else { (p75.abs() * 0.05).max(1e-12) };
        let (low_fence, high_fence) = (p25 - reach, p75 + reach);
        let (lo, hi) = values
            .filter(|v| (low_fence..=high_fence).contains(v))
            .fold((p25, p75), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-3).max(1e-12);
        Self { lo: lo - pad, hi: hi + pad }
    }

    fn beyond(self, v: f64) -> bool {
        v < self.lo || v > self.hi
    }

    fn clamp(self, v: f64) -> f64 {
        v.clamp(self.lo, self.hi)
    }
}

/// The marker drawn for the trials beyond the plot's range.
const BEYOND: Color32 = Color32::from_rgb(230, 80, 80);

/// How a legend entry is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Swatch {
    Dot,
    Ring,
    Line,
    Box,
    Edge,
}

/// A plot's legend as a row of its own above the plot, so it never covers
/// a point (SPEC U4): each entry's mark, then its name.
fn legend_row(ui: &mut Ui, entries: &[(Color32, Swatch, String)]) {
    ui.horizontal_wrapped(|ui| {
        for (color, swatch, name) in entries {
            let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
            let painter = ui.painter();
            let c = rect.center();
            match swatch {
                Swatch::Dot => {
                    painter.circle_filled(c, 3.5, *color);
                }
                Swatch::Ring => {
                    painter.circle_stroke(c, 5.0, egui::Stroke::new(1.0, *color));
                }
                Swatch::Line => {
                    painter.hline(rect.x_range(), c.y, egui::Stroke::new(2.0, *color));
                }
                Swatch::Box => {
                    painter.rect_stroke(
                        rect.shrink(2.0),
                        0.0,
                        egui::Stroke::new(1.5, *color),
                        egui::StrokeKind::Inside,
                    );
                }
                Swatch::Edge => {
                    let points = vec![c + egui::vec2(0.0, -5.0), c + egui::vec2(5.0, 4.0), c + egui::vec2(-5.0, 4.0)];
                    painter.add(egui::Shape::convex_polygon(points, *color, egui::Stroke::NONE));
                }
            }
            ui.label(RichText::new(name).small());
            ui.add_space(8.0);
        }
    });
}

/// The medians of the run's two halves (S5) as two marks, each across the
/// trials of its half, in the unit the plot is drawn in; none for a row
/// recorded before Vernier kept them.
fn halves_marks(run: &Run, warmup_n: usize) -> Vec<(String, Vec<[f64; 2]>)> {
    let s = &run.measurement.summary;
    let figures = run.figures();
    let (Some(h), Some([first, second])) = (s.halves, figures.halves()) else { return Vec::new() };
    let unit = figures.unit();
    let (start, half) = (warmup_n as f64, (s.n / 2) as f64);
    let end = start + s.n as f64 - 1.0;
    vec![
        (
            format!("first half median {first}"),
            vec![[start - 0.3, unit.scale(h.first)], [start + half - 0.7, unit.scale(h.first)]],
        ),
        (
            format!("second half median {second}"),
            vec![[end - half + 0.7, unit.scale(h.second)], [end + 0.3, unit.scale(h.second)]],
        ),
    ]
}

/// The first value a plot must not be given: egui_plot pads its automatic
/// bounds, which overflows to infinity near f64::MAX. Only a notebook edited
/// by hand can hold such a value (imports refuse it, the audit names it).
fn beyond_plot(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    values.into_iter().find(|v| !v.is_finite() || v.abs() > plausible::MAX_VALUE)
}

/// Power, thermal state and placement, written on the plot (SPEC U4).
fn caption_conditions(run: &Run) -> String {
    let text = run.context().brief(Brevity::Caption);
    if text.is_empty() { "conditions not recorded".into() } else { text }
}

/// How an axis places its values: as they are, or by their logarithm
/// (SPEC U4: when they span two decades or more). Sizes go by powers of two
/// so the grid falls on 16 KiB, 64 KiB …; other numbers by powers of ten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scale {
    Linear,
    Log2,
    Log10,
}

impl Scale {
    fn new(log: bool, sizes: bool) -> Self {
        match (log, sizes) {
            (false, _) => Scale::Linear,
            (true, true) => Scale::Log2,
            (true, false) => Scale::Log10,
        }
    }

    /// A value's place on the plot.
    fn place(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log2 => v.log2(),
            Scale::Log10 => v.log10(),
        }
    }

    /// The value at a place on the plot.
    fn value_at(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log2 => v.exp2(),
            Scale::Log10 => 10f64.powf(v),
        }
    }

    fn words(self) -> &'static str {
        if self == Scale::Linear { "" } else { ", log scale" }
    }

    /// A log axis's grid over the places `bounds` (SPEC U4): a mark at each
    /// of the engine's round values — powers of two for sizes, 1-2-5 for
    /// the rest — each as far apart as the closest two, so all are labelled
    /// or none. `None` for a linear axis (egui_plot's own grid).
    fn log_marks(self, bounds: (f64, f64), sizes: bool) -> Option<Vec<GridMark>> {
        if self == Scale::Linear {
            return None;
        }
        let ticks = vernier_engine::sweep_view::log_ticks(self.value_at(bounds.0), self.value_at(bounds.1), sizes);
        let places: Vec<f64> = ticks.into_iter().map(|v| self.place(v)).collect();
        let step = places.windows(2).map(|w| w[1] - w[0]).reduce(f64::min).unwrap_or(1.0);
        Some(places.into_iter().map(|value| GridMark { value, step_size: step }).collect())
    }
}

/// Colours of a sweep's series, in legend order; after the last they repeat.
const SERIES: [Color32; 8] = [
    TIMED,
    ARM_B,
    HALVES,
    Color32::from_rgb(230, 80, 80),
    Color32::from_rgb(170, 110, 230),
    Color32::from_rgb(200, 150, 90),
    Color32::from_rgb(240, 120, 200),
    Color32::from_rgb(60, 200, 210),
];

/// One series moved onto the plot's axes.
struct DrawnSeries {
    name: String,
    color: Color32,
    /// Medians in x order: the line through them shows plateaus and steps.
    line: Vec<egui_plot::PlotPoint>,
    /// Each point's P25–P75 as a vertical segment with a cap at each end.
    bars: Vec<[[f64; 2]; 6]>,
    /// What the hover label says of each point of `line`.
    labels: Vec<String>,
}

/// A sweep ready to draw (SPEC E16, U4): built once when the notebook
/// changes, so a frame only hands borrowed points to the plot.
pub struct SweepPlot {
    /// The sweep as the engine reads it.
    pub view: SweepView,
    unit: DisplayUnit,
    x_scale: Scale,
    y_scale: Scale,
    series: Vec<DrawnSeries>,
    /// The lowest and highest bar ends on the plot's y axis.
    y_extent: Option<(f64, f64)>,
    caption: String,
}

impl SweepPlot {
    /// Scales and places `view`'s points once: y in its display unit (S12),
    /// each axis logarithmic when it spans two decades.
    pub fn new(view: SweepView) -> Self {
        let unit = view.display_unit();
        let x_scale = Scale::new(view.log_x(), view.x_sizes);
        let y_scale = Scale::new(view.log_y(), false);
        let mut left_out = 0;
        // Caps a hundredth of the x range wide, so a short bar still reads.
        let xs = view.points().map(|p| x_scale.place(p.x)).filter(|x| x.is_finite());
        let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
        let cap = if hi > lo { (hi - lo) * 0.008 } else { 0.05 };
        let series: Vec<DrawnSeries> = view
            .series
            .iter()
            .zip(SERIES.iter().cycle())
            .map(|(s, &color)| {
                let mut drawn =
                    DrawnSeries { name: s.name.clone(), color, line: Vec::new(), bars: Vec::new(), labels: Vec::new() };
                for p in &s.points {
                    if beyond_plot([p.x, p.median, p.p25, p.p75]).is_some() {
                        left_out += 1;
                        continue;
                    }
                    let x = x_scale.place(p.x);
                    let [median, p25, p75] = [p.median, p.p25, p.p75].map(|v| y_scale.place(unit.scale(v)));
                    drawn.line.push(egui_plot::PlotPoint::new(x, median));
                    drawn.bars.push([
                        [x - cap, p25],
                        [x + cap, p25],
                        [x, p25],
                        [x, p75],
                        [x - cap, p75],
                        [x + cap, p75],
                    ]);
                    drawn.labels.push(format!(
                        "{} = {}: median {} (IQR {} – {}), run {}",
                        view.x_name,
                        p.x_text,
                        unit.quantity(p.median),
                        unit.quantity(p.p25),
                        unit.quantity(p.p75),
                        p.run
                    ));
                }
                drawn
            })
            .collect();
        let y_extent = series
            .iter()
            .flat_map(|s| s.bars.iter().flat_map(|b| [b[0][1], b[5][1]]))
            .fold(None, |acc: Option<(f64, f64)>, y| Some(acc.map_or((y, y), |(lo, hi)| (lo.min(y), hi.max(y)))));
        let mut caption = format!("{} · {}", view.describe(), view.thermal);
        if left_out > 0 {
            caption.push_str(&format!(" · {left_out} points beyond 10^15 left out"));
        }
        Self { unit, x_scale, y_scale, series, y_extent, caption, view }
    }

    /// The x axis's grid marks over the places `bounds`, each with its
    /// label: a log axis's round values (U4), else egui_plot's own grid.
    fn x_marks(&self, bounds: (f64, f64)) -> Option<Vec<(GridMark, String)>> {
        let marks = self.x_scale.log_marks(bounds, self.view.x_sizes)?;
        Some(marks.into_iter().map(|m| (m, self.x_tick(m.value))).collect())
    }

    /// The y axis's grid marks, as [`Self::x_marks`].
    fn y_marks(&self, bounds: (f64, f64)) -> Option<Vec<(GridMark, String)>> {
        let marks = self.y_scale.log_marks(bounds, false)?;
        Some(marks.into_iter().map(|m| (m, self.y_tick(m.value))).collect())
    }

    /// The label of the x axis at a place.
    fn x_tick(&self, place: f64) -> String {
        self.view.x_label(self.x_scale.value_at(place))
    }

    /// The label of the y axis at a place, in the plot's display unit.
    fn y_tick(&self, place: f64) -> String {
        vernier_engine::sweep_view::tick_text(self.y_scale.value_at(place))
    }

    /// The axis label of y: what is plotted, in which unit.
    fn y_label(&self) -> String {
        let unit = self.unit.name();
        let unit = if unit.is_empty() { String::new() } else { format!(" ({unit}{})", self.y_scale.words()) };
        inert(&format!("median per point{unit}")).into_owned()
    }

    /// The axis label of x: the parameter and its unit.
    fn x_label(&self) -> String {
        let unit = if self.view.x_sizes { " (bytes" } else { " (" };
        let scale = self.x_scale.words().trim_start_matches(", ");
        match (self.view.x_sizes, scale.is_empty()) {
            (false, true) => self.view.x_name.clone(),
            (false, false) => format!("{}{unit}{scale})", self.view.x_name),
            (true, true) => format!("{}{unit})", self.view.x_name),
            (true, false) => format!("{}{unit}, {scale})", self.view.x_name),
        }
    }
}

/// A caption written on a plot's own pixels, top left, in a band kept
/// free of data (the plot's y range is raised to leave room for it) and
/// wrapped short of the legend, top right, so the two never overlap.
struct CaptionBand {
    galley: std::sync::Arc<egui::Galley>,
    /// The band's height as a fraction of the data's.
    headroom: f64,
}

impl CaptionBand {
    /// Lays out `text` for a plot `height` high whose legend lists `names`.
    fn new<'a>(ui: &Ui, text: &str, names: impl Iterator<Item = &'a str>, height: f32) -> Self {
        // The legend's size from its entries (egui_plot lays it out itself):
        // one row per distinct name, as wide as the longest.
        let mut seen: Vec<&str> = Vec::new();
        for name in names {
            if !seen.contains(&name) {
                seen.push(name);
            }
        }
        let longest = seen.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        let legend = egui::vec2(longest as f32 * 7.5 + 48.0, seen.len() as f32 * 18.0 + 10.0);
        let wrap = (ui.available_width() - CAPTION_LEFT - legend.x - 24.0).max(160.0);
        let galley = ui.painter().layout(
            inert(text).into_owned(),
            egui::FontId::proportional(CAPTION_FONT),
            ui.visuals().weak_text_color(),
            wrap,
        );
        // egui_plot's frame and axes take about 40 points of the height;
        // the band covers the caption and the legend beside it.
        let band = galley.size().y.max(legend.y) + 12.0;
        let data_height = (height - 40.0).max(band + 40.0);
        Self { galley, headroom: f64::from(band / (data_height - band)) }
    }

    /// The y value to include so that data from `lo` to `hi` stays below the band.
    fn top(&self, lo: f64, hi: f64) -> f64 {
        let range = (hi - lo).max(hi.abs() * 0.1).max(1e-9);
        hi + range * self.headroom * 1.1
    }

    /// Writes the caption inside the plot's `frame` (its data area, from
    /// the plot's transform), top left.
    fn paint(self, ui: &Ui, frame: egui::Rect) {
        let colour = ui.visuals().weak_text_color();
        ui.painter().galley(frame.left_top() + egui::vec2(8.0, 6.0), self.galley, colour);
    }
}

/// Size of the caption's text on a plot.
const CAPTION_FONT: f32 = 11.0;
/// Left edge of text written on a plot: just right of the y axis's labels.
const CAPTION_LEFT: f32 = 52.0;

/// A sweep (SPEC E16, U4): x the parameter, y each point's median with its
/// IQR as a bar, one line per series joining its points in x order, and on
/// the plot the thermal condition, the axes' scales and SYNTHETIC when it
/// is. The caption is written top left inside a band kept free of data,
/// and wrapped short of the legend, top right, so the two never overlap.
pub fn sweep_plot(ui: &mut Ui, sweep: &SweepPlot) {
    let height = ui.available_height().max(160.0);
    let names = sweep.series.iter().map(|s| s.name.as_str());
    let band = CaptionBand::new(ui, &sweep.caption, names, height);
    let (x_scale, y_scale) = (sweep.x_scale, sweep.y_scale);
    let (x_view, unit) = (&sweep.view, &sweep.unit);
    let mut plot = Plot::new(("sweep", sweep.view.title.as_str()))
        .height(height)
        .legend(Legend::default())
        .x_axis_label(inert(&sweep.x_label()))
        .y_axis_label(sweep.y_label())
        .x_axis_formatter(|mark, _| sweep.x_tick(mark.value))
        .y_axis_formatter(|mark, _| sweep.y_tick(mark.value))
        .label_formatter(|position| match position {
            egui_plot::HoverPosition::NearDataPoint { plot_name, index, .. } => sweep
                .series
                .iter()
                .find(|s| s.name == *plot_name)
                .and_then(|s| s.labels.get(*index))
                .map(|label| format!("{plot_name}\n{label}")),
            egui_plot::HoverPosition::Elsewhere { position } => Some(format!(
                "{}\n{}",
                x_view.x_label(x_scale.value_at(position.x)),
                unit.after(&vernier_engine::stats::format_significant(y_scale.value_at(position.y), 3))
            )),
        });
    if let Some((lo, hi)) = sweep.y_extent {
        plot = plot.include_y(band.top(lo, hi));
    }
    // A log axis is ticked at round values only (U4): 16 KiB, 64 KiB …; 1, 2, 5 ….
    let marks_only =
        |marks: Option<Vec<(GridMark, String)>>| marks.unwrap_or_default().into_iter().map(|(m, _)| m).collect();
    if sweep.x_scale != Scale::Linear {
        plot = plot.x_grid_spacer(|input| marks_only(sweep.x_marks(input.bounds)));
    }
    if sweep.y_scale != Scale::Linear {
        plot = plot.y_grid_spacer(|input| marks_only(sweep.y_marks(input.bounds)));
    }
    let response = plot.show(ui, |plot| {
        for s in &sweep.series {
            let name = inert(&s.name).into_owned();
            for bar in &s.bars {
                plot.line(Line::new(name.clone(), PlotPoints::new(bar.to_vec())).color(s.color).allow_hover(false));
            }
            plot.line(Line::new(name.clone(), &s.line[..]).color(s.color).width(2.0));
            plot.points(Points::new(name, &s.line[..]).color(s.color).radius(4.0));
        }
    });
    let rect = response.response.rect;
    band.paint(ui, *response.transform.frame());
    if sweep.view.synthetic {
        ui.painter().text(
            rect.right_bottom() - egui::vec2(16.0, 40.0),
            egui::Align2::RIGHT_BOTTOM,
            "SYNTHETIC",
            egui::FontId::proportional(28.0),
            Color32::from_rgba_unmultiplied(230, 80, 80, 160),
        );
    }
}

/// The live plot's id, the same in every frame (its bounds can be read back).
pub fn live_plot_id() -> egui::Id {
    egui::Id::unique("live-plot")
}

/// The trials of a running benchmark as they arrive, per arm (a scan's
/// all as `first`). They come in ms; the axis shows them in the unit their
/// median so far reads in (SPEC S12), so a 40 µs kernel does not read 0.04.
pub fn live_plot(ui: &mut Ui, points: &[Vec<egui_plot::PlotPoint>; 2], first: &str) {
    let mut ys: Vec<f64> = points.iter().flatten().map(|p| p.y).filter(|y| y.is_finite()).collect();
    let median = if ys.is_empty() {
        0.0
    } else {
        let mid = ys.len() / 2;
        *ys.select_nth_unstable_by(mid, f64::total_cmp).1
    };
    let unit = DisplayUnit::for_median("ms", median);
    let scaled = |arm: &[egui_plot::PlotPoint]| -> Vec<egui_plot::PlotPoint> {
        arm.iter().map(|p| egui_plot::PlotPoint::new(p.x, unit.scale(p.y))).collect()
    };
    let (a, b) = (scaled(&points[0]), scaled(&points[1]));
    // Above the plot, not on it: the newest trials, often the slowest, sit
    // top right, where egui_plot's legend would cover them (U4).
    let mut legend = vec![(TIMED, Swatch::Dot, inert(first).into_owned())];
    if !b.is_empty() {
        legend.push((ARM_B, Swatch::Dot, "B".to_owned()));
    }
    legend_row(ui, &legend);
    Plot::new("live")
        .id(live_plot_id())
        .height(ui.available_height().clamp(120.0, 260.0))
        .x_axis_label("trial")
        .y_axis_label(format!("wall time per trial ({})", unit.name()))
        .show(ui, |plot| {
            plot.points(Points::new(first, &a[..]).color(TIMED).radius(3.0));
            if !b.is_empty() {
                plot.points(Points::new("B", &b[..]).color(ARM_B).radius(3.0));
            }
        });
}

/// A soak file shown in the Soak runs section: its samples (downsampled
/// once for drawing), what its comments say, and the file read under the
/// T1 defaults — the only protocol a file opened on its own can be read
/// under. A recorded soak is shown under the protocol it ran with instead
/// ([`SoakView::reading`]), so its row, its numbers and its chart agree.
pub struct SoakView {
    /// Where it came from.
    pub title: String,
    /// Tells one loaded file from the next (the view is kept in place, so
    /// its address does not), for what is derived from it once.
    pub id: u64,
    /// The file's columns, kept to read a recorded soak under its own
    /// protocol (its six numbers still come from its row).
    data: vernier_engine::soak::SoakData,
    /// The file read on its own: under the analysis its `# analysis:` line
    /// states, else the T1 defaults; not analysed when that line does not read.
    pub defaults: SoakReading,
    /// Why the file's `# analysis:` line does not read, when it does not.
    unread: Option<String>,
    /// Last sample's time, seconds: where the tail window ends.
    pub end_s: f64,
    /// Score against time, at most ~2000 points (min/max per bucket).
    pub score: Vec<egui_plot::PlotPoint>,
    /// Clock against time, when the clock is an observation.
    pub clock: Option<Vec<egui_plot::PlotPoint>>,
    /// SoC temperature against time, when observed.
    pub soc_temp: Option<Vec<egui_plot::PlotPoint>>,
    /// Placeholder columns.
    pub placeholders: Vec<String>,
    /// Labelled synthetic.
    pub synthetic: bool,
    /// Thermal condition line from the comments (ambient, setup).
    pub condition: String,
}

/// A soak read under one protocol (SPEC T1, T5): whose protocol it is, the
/// six numbers, and what follows from them (T7, T8, T11). Built once per
/// soak shown, not every frame.
pub struct SoakReading {
    /// The recorded soak whose protocol this is; `None`: the T1 defaults.
    pub soak: Option<u32>,
    /// The protocol: its windows, threshold, hold and band.
    pub protocol: vernier_engine::notebook::SoakProtocol,
    /// The six numbers under it — a recorded soak's as its row keeps them —
    /// with the windows that gave them; or why the file gives none.
    pub analysis: Result<vernier_engine::soak::Analysis, String>,
    /// The numbers a recorded soak's row keeps, shown even when its file
    /// no longer reads under its protocol.
    recorded: Option<vernier_engine::notebook::SoakNumbers>,
    /// The finding the numbers support (T8, T12): the negative result when
    /// no onset was observed, a fall whose cause was not observed, with the
    /// shared-host sentence when the file says the host is shared.
    pub finding: Option<String>,
    /// The power source the notebook stated when the soak was recorded
    /// (N9), shown beside the sensor's reading: the two may differ.
    pub stated_power: Option<String>,
    /// The file states its analysis in a line that does not read: nothing
    /// is worked out under windows it did not ask for (as `soak analyze`
    /// refuses it), and the line says so.
    unread_line: bool,
}

impl SoakReading {
    /// `data` under `protocol`; with `recorded`, the six numbers are the
    /// row's (a row shows what was recorded, SPEC N9) and only the windows'
    /// sample counts and the file's length come from the file.
    fn new(
        data: &vernier_engine::soak::SoakData,
        protocol: vernier_engine::notebook::SoakProtocol,
        recorded: Option<&vernier_engine::notebook::Soak>,
    ) -> Self {
        use vernier_engine::soak::{Thresholds, analysis, analyze};
        let analysis = analyze(data, &Thresholds::from(&protocol)).map_err(|e| e.to_string()).map(|mut a| {
            if let Some(soak) = recorded {
                a.numbers = soak.numbers.clone();
                a.tail_iqr_fraction =
                    if a.numbers.sustained == 0.0 { f64::NAN } else { a.numbers.tail_iqr / a.numbers.sustained };
            }
            a
        });
        let finding = analysis.as_ref().ok().and_then(|a| analysis::finding(a, analysis::Sight::of_file(data)));
        Self {
            soak: recorded.map(|s| s.number),
            protocol,
            analysis,
            recorded: recorded.map(|s| s.numbers.clone()),
            finding,
            stated_power: recorded
                .and_then(|s| s.stated.as_ref())
                .map(|e| e.power_source.trim().to_owned())
                .filter(|p| !p.is_empty()),
            unread_line: false,
        }
    }

    /// A loose file whose `# analysis:` line does not read (`why`): no
    /// numbers, and what would read it.
    fn unread(why: &str) -> Self {
        Self {
            soak: None,
            protocol: vernier_engine::notebook::SoakProtocol::default(),
            analysis: Err(format!(
                "its analysis line does not read ({why}); `vernier soak analyze FILE --window … --tail … --threshold … \
                 --hold … --band …` reads it under windows you give"
            )),
            recorded: None,
            finding: None,
            stated_power: None,
            unread_line: true,
        }
    }

    /// The six numbers and the knee as every face shows them (T5, T11, S6).
    pub fn numbers(&self) -> Option<&vernier_engine::notebook::SoakNumbers> {
        self.recorded.as_ref().or(self.analysis.as_ref().ok().map(|a| &a.numbers))
    }

    /// Whose protocol the numbers are under, and the protocol in words.
    pub fn protocol_line(&self) -> String {
        let p = &self.protocol;
        let windows = format!(
            "opening window {} s, tail window {} s, onset below {} of P held {} samples, stability band ±{}",
            p.opening_window_s, p.tail_window_s, p.threshold, p.hold, p.band
        );
        match self.soak {
            Some(n) => format!("S{n} under the protocol it ran with: {windows}"),
            None if self.unread_line => "Not analysed: the file states how it was analysed, unreadably".to_owned(),
            None => format!("Under the T1 defaults (a file opened on its own records no protocol): {windows}"),
        }
    }
}

/// Gives each loaded soak file its [`SoakView::id`].
static NEXT_SOAK_VIEW: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Longest series drawn point for point; longer ones are bucketed.
const MAX_POINTS: usize = 2000;

impl SoakView {
    /// Reads `data` under the analysis its file states (the `# analysis:`
    /// line Vernier writes), else the T1 defaults, as `soak analyze` does,
    /// and downsamples it once, off the drawing path.
    pub fn new(title: String, data: &vernier_engine::soak::SoakData) -> Self {
        // SPEC T3, T12: a placeholder, or a nominal clock, is never drawn.
        let placeholders = data.unobserved();
        let protocol = file_protocol(data).map_err(|why| why.to_string());
        let observed = |name: &str| !placeholders.iter().any(|p| p == name);
        let comment = |key: &str| data.comments.iter().find_map(|c| c.strip_prefix(key).map(|v| v.trim().to_owned()));
        // The file's power source is what its sensor read (T12); the row
        // states the notebook's beside it (SoakReading::stated_power).
        let condition = [
            ("ambient:", "ambient"),
            ("physical setup:", "physical setup"),
            ("power source:", "power source read by the sensor"),
        ]
        .iter()
        .filter_map(|(k, label)| comment(k).map(|v| format!("{label}: {v}")))
        .collect::<Vec<_>>()
        .join(" · ");
        Self {
            title,
            id: NEXT_SOAK_VIEW.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            defaults: match &protocol {
                Ok(protocol) => SoakReading::new(data, *protocol, None),
                Err(why) => SoakReading::unread(why),
            },
            unread: protocol.err(),
            end_s: data.t.last().copied().unwrap_or(0.0),
            score: bucketed(&data.t, &data.score),
            clock: observed("clock_mhz").then(|| bucketed(&data.t, &data.clock)),
            soc_temp: observed("soc_temp_c").then(|| bucketed(&data.t, &data.soc_temp)),
            synthetic: data.synthetic(),
            placeholders,
            condition: if condition.is_empty() { "thermal condition not stated in the file".into() } else { condition },
            data: data.clone(),
        }
    }

    /// This file read as `soak`, the recorded soak it is the raw file of,
    /// under the protocol that soak ran with (SPEC T1, T5); `None`: the
    /// file on its own, under its own analysis or the T1 defaults.
    pub fn reading(&self, soak: Option<&vernier_engine::notebook::Soak>) -> SoakReading {
        match soak {
            Some(soak) => SoakReading::new(&self.data, soak.protocol, Some(soak)),
            None if let Some(why) = &self.unread => SoakReading::unread(why),
            None => SoakReading::new(&self.data, self.defaults.protocol, None),
        }
    }
}

/// The protocol a loose soak file is read under: the T1 defaults with the
/// windows and thresholds its `# analysis:` line states; an unreadable line
/// is an error, as `soak analyze` makes it (T5).
fn file_protocol(
    data: &vernier_engine::soak::SoakData,
) -> Result<vernier_engine::notebook::SoakProtocol, vernier_engine::soak::analysis::AnalysisLineError> {
    let defaults = vernier_engine::notebook::SoakProtocol::default();
    Ok(vernier_engine::soak::Thresholds::stated_in(data)?.map_or(defaults, |stated| stated.on(defaults)))
}

/// Keeps the shape of a long series: each bucket contributes its minimum
/// and maximum, in time order.
fn bucketed(t: &[f64], y: &[f64]) -> Vec<egui_plot::PlotPoint> {
    if t.len() <= MAX_POINTS {
        return t.iter().zip(y).map(|(&t, &y)| egui_plot::PlotPoint::new(t, y)).collect();
    }
    let size = t.len().div_ceil(MAX_POINTS / 2);
    let mut out = Vec::with_capacity(MAX_POINTS + 2);
    for (ts, ys) in t.chunks(size).zip(y.chunks(size)) {
        let (lo, hi) = ys
            .iter()
            .enumerate()
            .fold((0, 0), |(lo, hi), (i, v)| (if *v < ys[lo] { i } else { lo }, if *v > ys[hi] { i } else { hi }));
        let (a, b) = if lo <= hi { (lo, hi) } else { (hi, lo) };
        out.push(egui_plot::PlotPoint::new(ts[a], ys[a]));
        if b != a {
            out.push(egui_plot::PlotPoint::new(ts[b], ys[b]));
        }
    }
    out
}

/// The soak chart (SPEC T10): score against time, the opening and tail
/// windows of `reading`'s protocol shaded and named, onset and stable
/// marked, the protocol, the window and the thermal condition written on
/// the chart, SYNTHETIC stamped on synthetic data; then the clock and the
/// SoC temperature where they were observed, on the same time axis. Every
/// piece of text has its own place: the caption in a band kept free above
/// the data and wrapped short of the legend, the windows' names along the
/// bottom (on two rows when they would meet), SYNTHETIC above them.
pub fn soak_chart(ui: &mut Ui, view: &SoakView, reading: &SoakReading) {
    use egui_plot::{Span, VLine};
    let p = &reading.protocol;
    let end = view.end_s;
    if view.clock.is_none() {
        // Said above the chart, where it is seen, rather than a flat line.
        ui.weak("clock: no clock reading on this machine — the file's clock column is a placeholder, not drawn");
    }
    let aux = usize::from(view.clock.is_some()) + usize::from(view.soc_temp.is_some());
    let height = if aux == 0 { ui.available_height().max(200.0) } else { (ui.available_height() * 0.5).max(200.0) };
    let onset = reading.analysis.as_ref().ok().and_then(|a| a.t_onset);
    let stable = reading.analysis.as_ref().ok().and_then(|a| a.t_stable);
    // SPEC T5, S17: a P window that holds the start-up ramp is marked on
    // the chart where it lies, not only said beside it.
    let ramp = reading.analysis.as_ref().ok().is_some_and(|a| a.ramp_warning.is_some());
    let names: Vec<String> = [Some("score".to_owned()), Some("P".to_owned()), Some("S".to_owned())]
        .into_iter()
        .chain([ramp.then(|| RAMP_MARK.to_owned())])
        .chain([onset.map(|t| format!("onset {t} s")), stable.map(|t| format!("stable {t} s"))])
        .flatten()
        .collect();
    let caption = soak_caption(view, reading);
    let band = CaptionBand::new(ui, &caption, names.iter().map(String::as_str), height);
    let hi = view.score.iter().map(|q| q.y).fold(0.0, f64::max);
    let response = Plot::new(("soak", view.id))
        .height(height)
        .legend(Legend::default())
        .link_axis(egui::Id::unique("soak-time"), [true, false])
        .y_axis_min_width(SOAK_Y_AXIS)
        .x_axis_label("time (s)")
        .y_axis_label(format!("score ({})", vernier_engine::soak::SCORE_UNIT))
        .include_x(0.0)
        .include_x(end)
        .include_y(0.0)
        .include_y(band.top(0.0, hi))
        .show(ui, |plot| {
            // Unnamed: the windows' names are written along the bottom below.
            plot.add(Span::new("", 0.0..=p.opening_window_s).fill(TIMED.gamma_multiply(0.15)));
            if ramp {
                let warn = Color32::from_rgb(230, 160, 40);
                // Its name in the middle of the window: the chart's caption
                // is written along the top.
                plot.add(
                    Span::new(RAMP_MARK, 0.0..=p.opening_window_s)
                        .fill(warn.gamma_multiply(0.25))
                        .border_color(warn)
                        .label_align(egui::Align2::CENTER_CENTER),
                );
            }
            plot.add(Span::new("", (end - p.tail_window_s)..=end).fill(ARM_B.gamma_multiply(0.12)));
            if let Some(t) = onset {
                plot.vline(VLine::new(format!("onset {t} s"), t).color(Color32::from_rgb(230, 80, 80)));
            }
            if let Some(t) = stable {
                plot.vline(VLine::new(format!("stable {t} s"), t).color(Color32::from_rgb(80, 200, 120)));
            }
            if let Some(n) = reading.numbers() {
                plot.hline(HLine::new("P", n.peak).color(TIMED.gamma_multiply(0.6)));
                plot.hline(HLine::new("S", n.sustained).color(ARM_B.gamma_multiply(0.6)));
            }
            plot.line(Line::new("score", &view.score[..]).color(TIMED));
        });
    let frame = *response.transform.frame();
    band.paint(ui, frame);
    let labels_top = window_labels(ui, &response.transform, p, end);
    if view.synthetic {
        ui.painter().text(
            egui::pos2(frame.center().x, labels_top - 6.0),
            egui::Align2::CENTER_BOTTOM,
            "SYNTHETIC",
            egui::FontId::proportional(28.0),
            Color32::from_rgba_unmultiplied(230, 80, 80, 160),
        );
    }
    let series: Vec<(&str, &Vec<egui_plot::PlotPoint>, &str)> =
        [("clock", &view.clock, "MHz"), ("SoC temperature", &view.soc_temp, "°C")]
            .into_iter()
            .filter_map(|(name, s, unit)| s.as_ref().map(|s| (name, s, unit)))
            .collect();
    for (name, points, unit) in series {
        let (lo, hi) = points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| (lo.min(q.y), hi.max(q.y)));
        // A steady column (a clock that never moved) still gets a scale
        // whose ticks differ: two percent of its value either side.
        let pad = ((hi - lo) * 0.1).max(hi.abs() * 0.02).max(1.0);
        // Each chart's own scale: its unit on the axis and on every tick,
        // so a temperature reads as one without the axis label.
        Plot::new(("soak-aux", name, view.id))
            .height(((ui.available_height() - 8.0 * aux as f32) / aux as f32).max(100.0))
            .link_axis(egui::Id::unique("soak-time"), [true, false])
            .y_axis_min_width(SOAK_Y_AXIS)
            .x_axis_label("time (s)")
            .y_axis_label(format!("{name} ({unit})"))
            .y_axis_formatter(move |mark, _| {
                // `100 °C`, not `100.0 °C`: a tick's trailing zeros say nothing.
                let text = vernier_engine::stats::format_significant(mark.value, 4);
                let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
                format!("{text} {unit}")
            })
            .include_y(lo - pad)
            .include_y(hi + pad)
            .y_grid_spacer(egui_plot::uniform_grid_spacer(three_labels))
            .show(ui, |plot| plot.line(Line::new(name, &points[..]).color(TIMED)));
    }
}

/// The soak chart's caption: whose protocol and its windows, the file, the
/// conditions its header gives (the power source as its sensor read it),
/// and the power source the notebook stated for the row, each labelled
/// (SPEC T12, N9: the two may differ, and neither is hidden).
pub fn soak_caption(view: &SoakView, reading: &SoakReading) -> String {
    let p = &reading.protocol;
    let whose = match reading.soak {
        Some(n) => format!("S{n}'s protocol"),
        None => "T1 default protocol".to_owned(),
    };
    let stated = match &reading.stated_power {
        Some(power) => format!(" · power source stated in the notebook: {}", inert_line(power.clone())),
        None => String::new(),
    };
    format!(
        "{whose}: opening {} s, tail {} s of {} s, onset below {} of P held {}, band ±{} · {} · {}{stated}",
        p.opening_window_s, p.tail_window_s, view.end_s, p.threshold, p.hold, p.band, view.title, view.condition
    )
}

/// The soak chart's mark on an opening (P) window that holds the start-up
/// ramp (its legend entry).
pub const RAMP_MARK: &str = "⚠ P window holds the start-up ramp";

/// Grid steps that label a short chart about three times: egui_plot's
/// default steps are powers of ten only, which left a 20–95 °C temperature
/// chart with a single "100 °C" on its axis. The middle step is 1, 2 or 5
/// times a power of ten, a third of the range or more.
fn three_labels(input: egui_plot::GridInput) -> [f64; 3] {
    let third = ((input.bounds.1 - input.bounds.0) / 3.0).max(f64::MIN_POSITIVE);
    let power = 10f64.powf(third.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| *s >= third).unwrap_or(10.0 * power);
    [step / 5.0, step, step * 5.0]
}

/// Room kept for the soak charts' y axes, so their time axes line up.
const SOAK_Y_AXIS: f32 = 64.0;

/// Writes the opening and tail windows' names (with their lengths) along
/// the bottom of the soak chart, each inside or beside its own shading:
/// the opening's from its left edge, the tail's up to its right edge, one
/// above the other when on one row they would meet. Returns the top of
/// the text, for what goes above it.
fn window_labels(
    ui: &Ui,
    transform: &egui_plot::PlotTransform,
    p: &vernier_engine::notebook::SoakProtocol,
    end: f64,
) -> f32 {
    let frame = *transform.frame();
    let font = egui::FontId::proportional(CAPTION_FONT + 1.0);
    let colour = ui.visuals().text_color();
    let painter = ui.painter();
    let opening = painter.layout_no_wrap(format!("opening window ({} s): P", p.opening_window_s), font.clone(), colour);
    let tail = painter.layout_no_wrap(format!("tail window ({} s): S", p.tail_window_s), font, colour);
    let row = opening.size().y + 2.0;
    let opening_x = transform.position_from_point_x(0.0).max(frame.left()) + 4.0;
    let tail_x = transform.position_from_point_x(end).min(frame.right()) - 4.0 - tail.size().x;
    let bottom = frame.bottom() - 4.0;
    let apart = opening_x + opening.size().x + 12.0 <= tail_x;
    let (opening_y, tail_y) = if apart { (bottom - row, bottom - row) } else { (bottom - 2.0 * row, bottom - row) };
    painter.galley(egui::pos2(opening_x, opening_y), opening, colour);
    painter.galley(egui::pos2(tail_x.max(frame.left() + 4.0), tail_y), tail, colour);
    opening_y.min(tail_y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use vernier_engine::sweep_view::{Point, Series};

    /// The Memory Wall's 13 working sets, 16 KiB to 64 MiB, with medians
    /// from 1.3 to 310 ns/access.
    fn memory_wall() -> SweepPlot {
        let points = (0..13)
            .map(|i| {
                let x = 16384.0 * 2f64.powi(i);
                let median = 1.3 * (310.0f64 / 1.3).powf(f64::from(i) / 12.0);
                Point { run: i as u32 + 1, x, x_text: String::new(), median, p25: median, p75: median }
            })
            .collect();
        SweepPlot::new(SweepView {
            title: "W1: chase".into(),
            x_name: "SIZE".into(),
            x_sizes: true,
            unit: "ns/access".into(),
            series: vec![Series { name: "chase".into(), points }],
            categories: None,
            thermal: String::new(),
            synthetic: false,
        })
    }

    // SPEC U4 (issue 49, item 7): the window's sweep plot ticks its log axes
    // at round values, read back from its own grid marks and their labels:
    // powers of two for sizes, 1-2-5 for times — never 1.58, 2.51, 3.98.
    #[test]
    fn the_sweep_plot_ticks_round_values() {
        let plot = memory_wall();
        let labels = |marks: Option<Vec<(GridMark, String)>>| -> Vec<String> {
            marks.expect("a log axis").into_iter().map(|(_, label)| label).collect()
        };
        let x = labels(plot.x_marks((16384f64.log2(), 67108864f64.log2())));
        assert_eq!(x, ["16 KiB", "64 KiB", "256 KiB", "1 MiB", "4 MiB", "16 MiB", "64 MiB"]);
        let y = labels(plot.y_marks((1.3f64.log10(), 310f64.log10())));
        assert_eq!(y, ["2", "5", "10", "20", "50", "100", "200"]);
    }
}
