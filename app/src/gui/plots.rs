//! Plots (SPEC U4): a run's trials as a strip with its box beside it, the
//! seq/chase sweep on a log axis, and the live strip of a running benchmark.
//! The conditions and the measurement window are written on the plot itself.

use egui::{Color32, Ui};
use egui_plot::{BoxElem, BoxPlot, BoxSpread, HLine, Legend, Line, Plot, PlotPoints, Points};
use vernier_engine::display::inert;
use vernier_engine::harness::{TrialRecord, TrialStatus};
use vernier_engine::kernels::{DEFAULT_WORKING_SET, KernelKind, KernelSpec};
use vernier_engine::notebook::{Brevity, Notebook, Run, WarmupPolicy, plausible};
use vernier_engine::stats;

/// A run's trials, read back from its raw file and put in the row's unit.
pub struct RunTrials {
    /// The run.
    pub run: u32,
    /// Warm-up trials, in order.
    pub warmup: Vec<f64>,
    /// Timed trials, in order.
    pub timed: Vec<f64>,
}

impl RunTrials {
    /// Picks `run`'s arm out of the raw file's trials.
    pub fn new(run: &Run, trials: &[TrialRecord]) -> Self {
        let arm = run.measurement.raw_file.as_ref().map_or(0, |r| usize::from(r.arm == "B"));
        let scale = run.measurement.ns_per_unit;
        let pick = |warm: bool| {
            trials
                .iter()
                .filter(|t| t.arm == arm && t.warmup == warm && t.status == TrialStatus::Ok)
                .map(|t| t.ns as f64 / scale)
                .collect()
        };
        Self { run: run.number, warmup: pick(true), timed: pick(false) }
    }
}

const WARM: Color32 = Color32::from_rgb(150, 150, 150);
const TIMED: Color32 = Color32::from_rgb(90, 160, 255);
const ARM_B: Color32 = Color32::from_rgb(255, 160, 60);
const HALVES: Color32 = Color32::from_rgb(80, 200, 120);

/// The trials in order (warm-up grey), the median and the IQR band, and a
/// box (P25–P75, whiskers to min and max) to the right — two clumps show
/// as two bands of points.
pub fn run_plot(ui: &mut Ui, run: &Run, trials: &RunTrials) {
    let m = &run.measurement;
    let s = &m.summary;
    let figures = [s.min, s.p25, s.median, s.p75, s.max];
    if let Some(v) = beyond_plot(figures.iter().chain(&trials.warmup).chain(&trials.timed).copied()) {
        super::views::hint(
            ui,
            &format!("Not plotted: a value of {v:e} {} is beyond 10^15; the audit names this row.", m.unit),
        );
        return;
    }
    let warmup_n = trials.warmup.len();
    let caption = format!(
        "{} timed trials after {} · {}",
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
        ui.colored_label(ui.visuals().warn_fg_color, inert(&format!("⚠ {}", b.describe(&m.unit))));
    }
    // Every value is drawn in the unit the row's median is shown in (S12).
    let figures = run.figures();
    let unit = figures.unit();
    let y = |v: f64| unit.scale(v);
    let warm: PlotPoints = trials.warmup.iter().enumerate().map(|(i, &v)| [i as f64, y(v)]).collect();
    let timed: PlotPoints = trials.timed.iter().enumerate().map(|(i, &v)| [(warmup_n + i) as f64, y(v)]).collect();
    let box_x = (warmup_n + trials.timed.len()) as f64 + 3.0;
    let spread = BoxSpread::new(y(s.min), y(s.p25), y(s.median), y(s.p75), y(s.max));
    let halves = halves_marks(run, warmup_n);
    let starts_above_zero = s.min > 0.0;
    let note = if starts_above_zero { format!("{caption} · y-axis does not start at zero") } else { caption };
    let response = Plot::new(("run-plot", run.number))
        .height(ui.available_height().max(160.0))
        .legend(Legend::default())
        .x_axis_label("trial (in order taken)")
        .y_axis_label(inert(&format!("time per trial ({})", unit.name())))
        .show(ui, |plot| {
            plot.points(Points::new("warm-up", warm).color(WARM).radius(3.0));
            plot.points(Points::new("timed", timed).color(TIMED).radius(3.0));
            plot.hline(HLine::new(inert(&format!("median {}", figures.median())), y(s.median)).color(TIMED));
            let quartile = TIMED.gamma_multiply(0.4);
            let dashed = egui_plot::LineStyle::dashed_loose();
            plot.hline(HLine::new("P25 / P75", y(s.p25)).color(quartile).style(dashed));
            plot.hline(HLine::new("P25 / P75", y(s.p75)).color(quartile).style(dashed));
            for (name, points) in halves {
                plot.line(Line::new(inert(&name), PlotPoints::new(points)).color(HALVES).width(3.0));
            }
            plot.box_plot(BoxPlot::new("box", vec![BoxElem::new(box_x, spread).box_width(1.5)]).color(TIMED));
        });
    caption_on(ui, &response.response, &note);
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

/// Writes `text` on the plot's own pixels, top left, so the conditions go
/// wherever a screenshot of the plot goes (SPEC U4, D5). Conditions and units
/// may come from someone's file: the caption is shown inert (SPEC N10).
fn caption_on(ui: &Ui, plot: &egui::Response, text: &str) {
    let font = egui::FontId::proportional(11.0);
    ui.painter().text(
        plot.rect.left_top() + egui::vec2(52.0, 6.0),
        egui::Align2::LEFT_TOP,
        vernier_engine::display::inert(text),
        font,
        ui.visuals().weak_text_color(),
    );
}

/// Power, thermal state and placement, written on the plot (SPEC U4).
fn caption_conditions(run: &Run) -> String {
    let text = run.context().brief(Brevity::Caption);
    if text.is_empty() { "conditions not recorded".into() } else { text }
}

/// The seq and chase kernel runs of the notebook by working set, on a log
/// axis: the gap between the curves is prefetching and memory-level
/// parallelism.
pub fn sweep_plot(ui: &mut Ui, nb: &Notebook) {
    let series = |kernel: KernelKind| -> Vec<[f64; 2]> {
        let mut points: Vec<[f64; 2]> = nb
            .runs()
            .iter()
            .filter(|r| r.discarded.is_none() && r.measurement.unit == "ns/access")
            .filter_map(|r| {
                let spec = KernelSpec::from_argv(&r.measurement.command).filter(|s| s.kind == kernel)?;
                let bytes = spec.size.unwrap_or(DEFAULT_WORKING_SET) as f64;
                Some([bytes.log2(), r.measurement.summary.median])
            })
            .collect();
        points.sort_by(|a, b| a[0].total_cmp(&b[0]));
        points
    };
    let (mut seq, mut chase) = (series(KernelKind::Seq), series(KernelKind::Chase));
    let left_out = [&mut seq, &mut chase]
        .into_iter()
        .map(|points| {
            let before = points.len();
            points.retain(|p| beyond_plot(p.iter().copied()).is_none());
            before - points.len()
        })
        .sum::<usize>();
    if seq.is_empty() && chase.is_empty() {
        super::views::hint(ui, "No seq or chase runs yet: run the kernels at several --size values to see the sweep.");
        return;
    }
    let note = format!(
        "median ns per access of {} seq and {} chase runs · log working-set axis · discarded runs left out{}",
        seq.len(),
        chase.len(),
        if left_out > 0 { format!(" · {left_out} runs beyond 10^15 left out") } else { String::new() }
    );
    let response = Plot::new("sweep")
        .height(ui.available_height().max(160.0))
        .legend(Legend::default())
        .x_axis_label("working set (log scale)")
        .y_axis_label("ns per access")
        .x_axis_formatter(|mark, _| vernier_engine::units::size(2f64.powf(mark.value)))
        .show(ui, |plot| {
            plot.line(Line::new("seq", PlotPoints::new(seq.clone())).color(TIMED));
            plot.points(Points::new("seq", PlotPoints::new(seq)).color(TIMED).radius(4.0));
            plot.line(Line::new("chase", PlotPoints::new(chase.clone())).color(ARM_B));
            plot.points(Points::new("chase", PlotPoints::new(chase)).color(ARM_B).radius(4.0));
        });
    caption_on(ui, &response.response, &note);
}

/// The trials of a running benchmark as they arrive, per arm, in ms.
pub fn live_plot(ui: &mut Ui, points: &[Vec<egui_plot::PlotPoint>; 2]) {
    Plot::new("live")
        .height(ui.available_height().clamp(120.0, 260.0))
        .legend(Legend::default())
        .x_axis_label("trial")
        .y_axis_label("wall time per trial (ms)")
        .show(ui, |plot| {
            plot.points(Points::new("A", &points[0][..]).color(TIMED).radius(3.0));
            if !points[1].is_empty() {
                plot.points(Points::new("B", &points[1][..]).color(ARM_B).radius(3.0));
            }
        });
}

/// A soak shown in the Soak runs section: its samples (downsampled once
/// for drawing) and its analysis.
pub struct SoakView {
    /// Where it came from.
    pub title: String,
    /// The six numbers.
    pub analysis: Result<vernier_engine::soak::Analysis, String>,
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

/// Longest series drawn point for point; longer ones are bucketed.
const MAX_POINTS: usize = 2000;

impl SoakView {
    /// Analyses and downsamples `data` once, off the drawing path.
    pub fn new(title: String, data: &vernier_engine::soak::SoakData) -> Self {
        let placeholders = data.placeholders();
        let observed = |name: &str| !placeholders.iter().any(|p| p == name);
        let comment = |key: &str| data.comments.iter().find_map(|c| c.strip_prefix(key).map(|v| v.trim().to_owned()));
        let condition = ["ambient:", "physical setup:", "power source:"]
            .iter()
            .filter_map(|k| comment(k).map(|v| format!("{} {v}", k.trim_end_matches(':'))))
            .collect::<Vec<_>>()
            .join(" · ");
        Self {
            title,
            analysis: vernier_engine::soak::analyze(data, &vernier_engine::soak::Thresholds::default())
                .map_err(|e| e.to_string()),
            score: bucketed(&data.t, &data.score),
            clock: observed("clock_mhz").then(|| bucketed(&data.t, &data.clock)),
            soc_temp: observed("soc_temp_c").then(|| bucketed(&data.t, &data.soc_temp)),
            synthetic: data.synthetic(),
            placeholders,
            condition: if condition.is_empty() { "thermal condition not stated in the file".into() } else { condition },
        }
    }
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
/// windows shaded, onset and stable marked, the window and the thermal
/// condition written on the chart, SYNTHETIC stamped on synthetic data.
pub fn soak_chart(ui: &mut Ui, view: &SoakView) {
    use egui_plot::{Span, VLine};
    let height = (ui.available_height() * 0.6).max(200.0);
    let end = view.score.last().map_or(0.0, |p| p.x);
    let response = Plot::new(("soak", view.title.as_str()))
        .height(height)
        .legend(Legend::default())
        .x_axis_label("time (s)")
        .y_axis_label("score (chunks/s)")
        .include_y(0.0)
        .show(ui, |plot| {
            if let Ok(a) = &view.analysis {
                let th = &a.thresholds;
                plot.add(Span::new("opening window", 0.0..=th.opening_s).fill(TIMED.gamma_multiply(0.15)));
                plot.add(Span::new("tail window", (end - th.tail_s)..=end).fill(ARM_B.gamma_multiply(0.12)));
                if let Some(t) = a.t_onset {
                    plot.vline(VLine::new(format!("onset {t} s"), t).color(Color32::from_rgb(230, 80, 80)));
                }
                if let Some(t) = a.t_stable {
                    plot.vline(VLine::new(format!("stable {t} s"), t).color(Color32::from_rgb(80, 200, 120)));
                }
                plot.hline(HLine::new("P", a.peak).color(TIMED.gamma_multiply(0.6)));
                plot.hline(HLine::new("S", a.sustained).color(ARM_B.gamma_multiply(0.6)));
            }
            plot.line(Line::new("score", &view.score[..]).color(TIMED));
        });
    let mut caption = format!("{} · {}", view.title, view.condition);
    if let Ok(a) = &view.analysis {
        caption = format!(
            "window: opening {} s, tail {} s of {} s · {caption}",
            a.thresholds.opening_s, a.thresholds.tail_s, a.duration_s
        );
    }
    caption_on(ui, &response.response, &caption);
    if view.synthetic {
        ui.painter().text(
            response.response.rect.right_bottom() - egui::vec2(16.0, 40.0),
            egui::Align2::RIGHT_BOTTOM,
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
        Plot::new(("soak-aux", name, view.title.as_str()))
            .height(((ui.available_height() - 8.0) / 2.0).max(100.0))
            .legend(Legend::default())
            .x_axis_label("time (s)")
            .y_axis_label(format!("{name} ({unit})"))
            .show(ui, |plot| plot.line(Line::new(name, &points[..])));
    }
}
