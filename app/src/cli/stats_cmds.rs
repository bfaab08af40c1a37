//! `vernier stats` and `vernier compare`.

use anyhow::anyhow;
use clap::Args;
use serde_json::{Value, json};
use vernier_engine::harness::{TrialRecord, TrialStatus, raw};
use vernier_engine::stats::units::{DisplayUnit, Figures};
use vernier_engine::stats::{self, Comparison, Spread, Summary, format_percent_change, format_plain};

use super::samples::{Input, RawSamples, Sample, read_input, read_sample};
use super::{CommandResult, Failure};

/// `vernier stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// File of numbers, one per line; `-` or nothing reads standard input.
    /// One of Vernier's raw trial files is summarised per arm, timed trials
    /// only, in the unit the file states for each arm.
    #[arg(default_value = "-")]
    file: String,
    /// Read this column of a CSV file (with a header row) instead.
    #[arg(long, value_name = "NAME")]
    column: Option<String>,
    /// Unit to print after the figures (e.g. ms).
    #[arg(long, default_value = "")]
    unit: String,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// `vernier compare`: two samples, or two rows of a notebook.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Sample A: a file of numbers (`-` for standard input).
    #[arg(required_unless_present_any = ["median_a", "notebook"])]
    file_a: Option<String>,
    /// Sample B.
    #[arg(required_unless_present_any = ["median_b", "notebook"])]
    file_b: Option<String>,
    /// Compare two rows of this notebook instead (with --run A --run B):
    /// S7 with the power-source and session checks (S13, S14).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["file_a", "file_b", "column", "median_a", "median_b"])]
    notebook: Option<std::path::PathBuf>,
    /// A row of --notebook, given twice: first A, then B.
    #[arg(long = "run", value_name = "N", requires = "notebook")]
    runs: Vec<u32>,
    /// Read this CSV column from both files.
    #[arg(long, value_name = "NAME")]
    column: Option<String>,
    /// A's median, when only the summary is known (with --iqr-a).
    #[arg(long, requires = "iqr_a", conflicts_with = "file_a")]
    median_a: Option<f64>,
    /// A's IQR.
    #[arg(long, requires = "median_a")]
    iqr_a: Option<f64>,
    /// B's median (with --iqr-b).
    #[arg(long, requires = "iqr_b", conflicts_with = "file_b")]
    median_b: Option<f64>,
    /// B's IQR.
    #[arg(long, requires = "median_b")]
    iqr_b: Option<f64>,
    /// The metric named first in the verdict.
    #[arg(long, default_value = "median wall time")]
    metric: String,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn stats(args: &StatsArgs) -> CommandResult {
    match read_input(&args.file, args.column.as_deref())? {
        Input::Numbers(sample) => {
            let summary = Summary::of(&sample.values).map_err(Failure::input)?;
            if args.json {
                let mut object = summary_json(&summary, &sample.values);
                if !args.unit.is_empty() {
                    object["unit"] = json!(args.unit);
                    object["display_unit"] = json!(DisplayUnit::for_median(&args.unit, summary.median).name());
                }
                out!("{object}");
            } else {
                print_summary(&summary, &sample.values, &args.unit);
            }
        }
        Input::Raw(raw) => raw_stats(&raw, args.json),
    }
    Ok(0)
}

/// A summary and what its median hides (S8, S9), as one JSON object.
fn summary_json(summary: &Summary, values: &[f64]) -> Value {
    json!({
        "n": summary.n,
        "median": summary.median,
        "p25": summary.p25,
        "p75": summary.p75,
        "iqr": summary.iqr,
        "iqr_fraction": summary.iqr_fraction,
        "min": summary.min,
        "max": summary.max,
        "drift": summary.drift,
        "rounded": summary.rounded(),
        "noisy": summary.is_noisy(),
        "drifted": summary.drifted(),
        "even_count": summary.even_count(),
        "bimodal": stats::bimodality(values),
        "warmup_check": stats::warmup_check(values),
    })
}

/// A summary and what its median hides (S4, S8, S9, S12), as text, in the
/// display unit S12 picks for `unit_name`.
fn print_summary(summary: &Summary, values: &[f64], unit_name: &str) {
    let figures = Figures::of(summary, unit_name);
    let unit = figures.unit();
    out!("{}, n={}", figures.line(), summary.n);
    out!(
        "  P25 {} / P75 {} (interpolated; full precision)",
        format_plain(unit.scale(summary.p25)),
        unit.after(&format_plain(unit.scale(summary.p75)))
    );
    if let (Some(drift), Some([first, second])) = (summary.drift, figures.halves()) {
        let direction = if drift > 0.0 {
            "slowing down"
        } else if drift < 0.0 {
            "speeding up"
        } else {
            "flat"
        };
        out!(
            "  drift {}: second half's median {second} against the first's {first} ({direction})",
            format_percent_change(drift)
        );
    }
    if summary.even_count() {
        out!(
            "warning: an even count — the median is the mean of the two middle values, not an observed trial; use an odd count"
        );
    }
    for flag in summary.flags() {
        out!("warning: {flag}");
    }
    if let Some(b) = stats::bimodality(values) {
        out!("warning: {}", b.describe(unit_name, None, None));
    }
    if let Some(w) = stats::warmup_check(values) {
        out!("  {}", w.describe(unit_name));
    }
}

/// One arm of a raw trial file as `stats` summarises it: the timed trials
/// that succeeded (S1, E10), the warm-up apart (E3), in the unit its row
/// uses when the file states it reliably, else in nanoseconds.
struct RawArm {
    label: String,
    unit: String,
    /// True when `unit` comes from the file's `arm X unit` comment.
    stated: bool,
    /// The values are the program's own figures (E17), not wall times.
    figures: bool,
    timed: Vec<f64>,
    warmup: Vec<f64>,
    failed: usize,
}

impl RawArm {
    fn of(raw: &RawSamples) -> Vec<Self> {
        let mut arms: Vec<usize> = raw.trials.iter().map(|t| t.arm).collect();
        arms.sort_unstable();
        arms.dedup();
        arms.into_iter()
            .map(|arm| {
                let label = raw::arm_label(arm);
                let stated = raw.units.iter().find(|u| u.label == label);
                let (unit, ns_per_unit) = stated.map_or(("ns".to_owned(), 1.0), |u| (u.unit.clone(), u.ns_per_unit));
                let trials = || raw.trials.iter().enumerate().filter(move |(_, t)| t.arm == arm);
                // A run of figures: each trial's figures, else its wall time in the unit.
                let figures = stated.is_some_and(|u| u.figures).then_some(raw.figures.as_ref()).flatten();
                let values = |(i, t): (usize, &TrialRecord)| -> Vec<f64> {
                    match figures {
                        Some(figures) => figures.get(i).cloned().unwrap_or_default(),
                        None => vec![t.ns as f64 / ns_per_unit],
                    }
                };
                let ok = |(_, t): &(usize, &TrialRecord)| t.status == TrialStatus::Ok;
                RawArm {
                    unit,
                    stated: stated.is_some(),
                    figures: figures.is_some(),
                    timed: trials().filter(|p| !p.1.warmup && ok(p)).flat_map(values).collect(),
                    warmup: trials().filter(|p| p.1.warmup).flat_map(values).collect(),
                    failed: trials().filter(|p| !p.1.warmup && !ok(p)).count(),
                    label,
                }
            })
            .collect()
    }

    /// Where the unit comes from, said once per arm.
    fn unit_note(&self) -> String {
        if self.figures {
            format!("in {}, the program's own figures (each process's wall time left out)", self.unit)
        } else if self.stated {
            format!("in {}, the unit of its row (converted from the file's ns)", self.unit)
        } else {
            "in ns (the file states no unit for this arm that can be read)".to_owned()
        }
    }
}

/// `stats` of a raw trial file: one summary per arm, the warm-up and the
/// failed trials listed apart and never in the summary.
fn raw_stats(raw: &RawSamples, json_output: bool) {
    let arms = RawArm::of(raw);
    if json_output {
        let objects: Vec<Value> = arms
            .iter()
            .map(|arm| {
                let summary = Summary::of(&arm.timed).ok();
                let mut object =
                    summary.as_ref().map_or_else(|| json!({"n": 0}), |summary| summary_json(summary, &arm.timed));
                object["arm"] = json!(arm.label);
                object["unit"] = json!(arm.unit);
                if let Some(summary) = &summary {
                    object["display_unit"] = json!(DisplayUnit::for_median(&arm.unit, summary.median).name());
                }
                object["unit_from_file"] = json!(arm.stated);
                object["warmup"] = json!({"count": arm.warmup.len(), "values": arm.warmup});
                object["failed"] = json!(arm.failed);
                object
            })
            .collect();
        out!("{}", json!({"source": raw.source, "raw_trials": true, "arms": objects}));
        return;
    }
    out!("{}: Vernier's raw trials — one summary per arm, of its successful timed trials only", raw.source);
    for arm in &arms {
        out!("arm {}, {}:", arm.label, arm.unit_note());
        let summary = Summary::of(&arm.timed);
        match &summary {
            Ok(summary) => print_summary(summary, &arm.timed, &arm.unit),
            Err(_) => out!("  no successful timed trial"),
        }
        // The warm-up in the unit the timed trials are shown in (S12).
        let unit = DisplayUnit::for_median(&arm.unit, summary.map_or(0.0, |s| s.median));
        let values: Vec<String> = arm.warmup.iter().map(|&v| format_plain(unit.scale(v))).collect();
        match values.len() {
            0 => out!("  warm-up: none"),
            n => out!("  warm-up (not in the summary): {}: {}", trials(n), unit.after(&values.join(" "))),
        }
        if arm.failed > 0 {
            out!("  failed (not in the summary): {}", trials(arm.failed));
        }
    }
}

/// "1 trial", "3 trials".
fn trials(n: usize) -> String {
    if n == 1 { "1 trial".to_owned() } else { format!("{n} trials") }
}

pub fn compare(args: &CompareArgs) -> CommandResult {
    if let Some(dir) = &args.notebook {
        return super::compare_cmd::rows(dir, &args.runs, args.json);
    }
    let (a, sample_a) = side(args.file_a.as_deref(), args.median_a.zip(args.iqr_a), args.column.as_deref())?;
    let (b, sample_b) = side(args.file_b.as_deref(), args.median_b.zip(args.iqr_b), args.column.as_deref())?;
    let comparison = stats::compare(a, b, ("A", "B"), &args.metric, "");
    if args.json {
        out!("{}", serde_json::to_value(&comparison).map_err(Failure::failed)?);
        return Ok(0);
    }
    print_comparison(&comparison, [sample_a.as_ref(), sample_b.as_ref()]);
    Ok(0)
}

/// One side of a comparison, from a file or from a given median and IQR.
fn side(
    file: Option<&str>,
    given: Option<(f64, f64)>,
    column: Option<&str>,
) -> Result<(Spread, Option<Sample>), Failure> {
    if let Some((median, iqr)) = given {
        if !(median.is_finite() && iqr.is_finite() && iqr >= 0.0) {
            return Err(Failure::input(anyhow!("a median must be finite and an IQR finite and not negative")));
        }
        return Ok((Spread { median, iqr }, None));
    }
    let file = file.ok_or_else(|| Failure::input(anyhow!("give a file or --median/--iqr for each side")))?;
    let sample = read_sample(file, column)?;
    let summary = Summary::of(&sample.values).map_err(Failure::input)?;
    Ok((Spread::from(&summary), Some(sample)))
}

fn print_comparison(c: &Comparison, samples: [Option<&Sample>; 2]) {
    out!("{}", c.verdict);
    for (name, (median, iqr), sample) in
        [("A", (c.median_a, c.iqr_a), samples[0]), ("B", (c.median_b, c.iqr_b), samples[1])]
    {
        let r = stats::Rounded::new(median, iqr, median, median);
        let from = sample.map_or_else(String::new, |s| format!("   n={}  {}", s.values.len(), s.source));
        out!("  {name}  {}{from}", r.headline(""));
    }
    out!("  {}", c.reasoning());
}
