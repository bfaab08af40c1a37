//! Plots (SPEC U4): a run's trials as a strip with its box beside it, the
//! seq/chase sweep on a log axis, and the live strip of a running benchmark.
//! The conditions and the measurement window are written on the plot itself.

use egui::{Color32, Ui};
use egui_plot::{BoxElem, BoxPlot, BoxSpread, HLine, Legend, Line, Plot, PlotPoints, Points};
use vernier_engine::harness::{TrialRecord, TrialStatus};
use vernier_engine::notebook::{Notebook, Run, WarmupPolicy};
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

/// The trials in order (warm-up grey), the median and the IQR band, and a
/// box (P25–P75, whiskers to min and max) to the right — two clumps show
/// as two bands of points.
pub fn run_plot(ui: &mut Ui, run: &Run, trials: &RunTrials) {
    let m = &run.measurement;
    let s = &m.summary;
    let warmup_n = trials.warmup.len();
    let caption = format!(
        "{} timed trials after {} · {}",
        s.n,
        match m.warmup {
            WarmupPolicy::Count(_) => format!("{warmup_n} warm-up"),
            WarmupPolicy::Settle { .. } => format!("{warmup_n} warm-up (settle)"),
            WarmupPolicy::Unknown => "an unrecorded warm-up".into(),
        },
        short_conditions(run)
    );
    if let Some(b) = stats::bimodality(&trials.timed) {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!(
                "⚠ two populations: {} trials near {:.4}, {} near {:.4} {}",
                b.low_count, b.low_median, b.high_count, b.high_median, m.unit
            ),
        );
    }
    let warm: PlotPoints = trials.warmup.iter().enumerate().map(|(i, &v)| [i as f64, v]).collect();
    let timed: PlotPoints = trials.timed.iter().enumerate().map(|(i, &v)| [(warmup_n + i) as f64, v]).collect();
    let box_x = (warmup_n + trials.timed.len()) as f64 + 3.0;
    let spread = BoxSpread::new(s.min, s.p25, s.median, s.p75, s.max);
    let starts_above_zero = s.min > 0.0;
    let note = if starts_above_zero { format!("{caption} · y-axis does not start at zero") } else { caption };
    let response = Plot::new(("run-plot", run.number))
        .height(ui.available_height().max(160.0))
        .legend(Legend::default())
        .x_axis_label("trial (in order taken)")
        .y_axis_label(format!("time per trial ({})", m.unit))
        .show(ui, |plot| {
            plot.points(Points::new("warm-up", warm).color(WARM).radius(3.0));
            plot.points(Points::new("timed", timed).color(TIMED).radius(3.0));
            plot.hline(HLine::new(format!("median {}", s.rounded().median), s.median).color(TIMED));
            let quartile = TIMED.gamma_multiply(0.4);
            plot.hline(HLine::new("P25 / P75", s.p25).color(quartile).style(egui_plot::LineStyle::dashed_loose()));
            plot.hline(HLine::new("P25 / P75", s.p75).color(quartile).style(egui_plot::LineStyle::dashed_loose()));
            plot.box_plot(BoxPlot::new("box", vec![BoxElem::new(box_x, spread).box_width(1.5)]).color(TIMED));
        });
    caption_on(ui, &response.response, &note);
}

/// Writes `text` on the plot's own pixels, top left, so the conditions go
/// wherever a screenshot of the plot goes (SPEC U4, D5).
fn caption_on(ui: &Ui, plot: &egui::Response, text: &str) {
    let font = egui::FontId::proportional(11.0);
    ui.painter().text(
        plot.rect.left_top() + egui::vec2(52.0, 6.0),
        egui::Align2::LEFT_TOP,
        text,
        font,
        ui.visuals().weak_text_color(),
    );
}

fn short_conditions(run: &Run) -> String {
    let get = |field: &str| run.measurement.conditions.iter().find(|c| c.field == field).map(|c| c.value.as_str());
    let mut parts = Vec::new();
    if let Some(power) = get("power source") {
        parts.push(format!("power {power}"));
    }
    if let Some(canary) = get("canary end/start") {
        parts.push(format!("canary end/start {}", canary.split_whitespace().next().unwrap_or(canary)));
    }
    if let Some(placement) = get("placement used") {
        parts.push(placement.to_owned());
    }
    if parts.is_empty() { "conditions not recorded".into() } else { parts.join(" · ") }
}

/// The seq and chase kernel runs of the notebook by working set, on a log
/// axis: the gap between the curves is prefetching and memory-level
/// parallelism.
pub fn sweep_plot(ui: &mut Ui, nb: &Notebook) {
    let series = |kernel: &str| -> Vec<[f64; 2]> {
        let mut points: Vec<[f64; 2]> = nb
            .runs()
            .iter()
            .filter(|r| r.discarded.is_none() && r.measurement.unit == "ns/access")
            .filter_map(|r| {
                let c = &r.measurement.command;
                let is_kernel = c.windows(2).any(|w| w[0] == "--kernel" && w[1] == kernel);
                let size = c.windows(2).find(|w| w[0] == "--size").and_then(|w| w[1].parse::<f64>().ok());
                (is_kernel)
                    .then_some(size.unwrap_or(64.0 * 1024.0 * 1024.0))
                    .map(|bytes| [bytes.log2(), r.measurement.summary.median])
            })
            .collect();
        points.sort_by(|a, b| a[0].total_cmp(&b[0]));
        points
    };
    let (seq, chase) = (series("seq"), series("chase"));
    if seq.is_empty() && chase.is_empty() {
        super::views::hint(ui, "No seq or chase runs yet: run the kernels at several --size values to see the sweep.");
        return;
    }
    let note = format!(
        "median ns per access of {} seq and {} chase runs · log working-set axis · discarded runs left out",
        seq.len(),
        chase.len()
    );
    let response = Plot::new("sweep")
        .height(ui.available_height().max(160.0))
        .legend(Legend::default())
        .x_axis_label("working set (log scale)")
        .y_axis_label("ns per access")
        .x_axis_formatter(|mark, _| bytes_label(2f64.powf(mark.value)))
        .show(ui, |plot| {
            plot.line(Line::new("seq", PlotPoints::new(seq.clone())).color(TIMED));
            plot.points(Points::new("seq", PlotPoints::new(seq)).color(TIMED).radius(4.0));
            plot.line(Line::new("chase", PlotPoints::new(chase.clone())).color(ARM_B));
            plot.points(Points::new("chase", PlotPoints::new(chase)).color(ARM_B).radius(4.0));
        });
    caption_on(ui, &response.response, &note);
}

fn bytes_label(bytes: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < units.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{} {}", stats::format_significant(value, 3), units[unit])
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
