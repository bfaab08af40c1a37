//! `vernier soak run | analyze | compare` (SPEC T, C).

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use chrono::Utc;
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use vernier_engine::duration;
use vernier_engine::notebook::SoakProtocol;
use vernier_engine::soak::{self, Analysis, Thresholds, analysis, file, likeness, load, record};
use vernier_engine::stats::format_significant;
use vernier_engine::stats::units::DisplayUnit;

use super::notebook_cmds::{apply, open};
use super::{CommandResult, Failure};

use vernier_engine::soak::SCORE_UNIT as UNIT;

/// `vernier soak`.
#[derive(Debug, Subcommand)]
pub enum SoakCommand {
    /// Run the sustained-load protocol and write its CSV as it goes.
    Run(RunArgs),
    /// The six numbers of a soak file, and the course tool's view of it.
    Analyze(AnalyzeArgs),
    /// Two soak files number by number.
    Compare(SoakCompareArgs),
}

/// Analysis thresholds: each given one, else the file's own (the `#
/// analysis:` line Vernier writes with the protocol its row used), else
/// SPEC T1's default.
#[derive(Debug, Args, Clone, Copy)]
pub struct ThresholdArgs {
    /// Opening window for P, seconds (default: the file's, else 30).
    #[arg(long, value_parser = super::seconds(duration::SOAK_OPENING_WINDOW))]
    window: Option<f64>,
    /// Tail window for S, seconds (default: the file's, else 300).
    #[arg(long, value_parser = super::seconds(duration::SOAK_TAIL_WINDOW))]
    tail: Option<f64>,
    /// Onset threshold, as a fraction of P (default: the file's, else 0.95).
    #[arg(long)]
    threshold: Option<f64>,
    /// Stability band around S (default: the file's, else 0.03).
    #[arg(long)]
    band: Option<f64>,
    /// Consecutive samples for onset and stability (default: the file's, else 3).
    #[arg(long)]
    hold: Option<u32>,
    /// Opening window of the course tool's view, seconds.
    #[arg(long, default_value_t = analysis::COURSE_WINDOW_S, value_parser = super::seconds(duration::COURSE_WINDOW))]
    course_window: f64,
}

impl ThresholdArgs {
    /// The thresholds to analyse `data` (read from `path`) with.
    fn thresholds(&self, data: &soak::SoakData, path: &Path) -> Result<Thresholds, Failure> {
        let stated = Thresholds::stated_in(data).map_err(|why| {
            Failure::input(anyhow!(
                "{}: its analysis line does not read ({why}); give --window, --tail, --threshold, --hold and --band",
                vernier_engine::display::path(path)
            ))
        })?;
        let base = stated.unwrap_or_default();
        Ok(Thresholds {
            opening_s: self.window.unwrap_or(base.opening_s),
            tail_s: self.tail.unwrap_or(base.tail_s),
            threshold: self.threshold.unwrap_or(base.threshold),
            hold: self.hold.unwrap_or(base.hold),
            band: self.band.unwrap_or(base.band),
        })
    }
}

/// `vernier soak run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Duration, seconds (default 600; with --notebook, the protocol fixed with the prediction).
    #[arg(long, value_name = "SECONDS", value_parser = super::seconds(duration::SOAK_DURATION))]
    duration: Option<f64>,
    /// Sampling interval, seconds (default 10; with --notebook, from the protocol).
    #[arg(long, value_name = "SECONDS", value_parser = super::seconds(duration::SOAK_INTERVAL))]
    interval: Option<f64>,
    /// Opening window for P, seconds (default 30; with --notebook, from the protocol).
    #[arg(long, conflicts_with = "notebook", value_name = "SECONDS", value_parser = super::seconds(duration::SOAK_OPENING_WINDOW))]
    opening: Option<f64>,
    /// Tail window for S, seconds (default 300; with --notebook, from the protocol).
    #[arg(long, conflicts_with = "notebook", value_name = "SECONDS", value_parser = super::seconds(duration::SOAK_TAIL_WINDOW))]
    tail: Option<f64>,
    /// Onset threshold as a fraction of P (default 0.95; with --notebook, from the protocol).
    #[arg(long, conflicts_with = "notebook")]
    threshold: Option<f64>,
    /// Consecutive samples for onset and stability (default 3; with --notebook, from the protocol).
    #[arg(long, conflicts_with = "notebook")]
    hold: Option<u32>,
    /// Stability band around S (default 0.03; with --notebook, from the protocol).
    #[arg(long, conflicts_with = "notebook")]
    band: Option<f64>,
    /// Worker threads (default: the logical CPUs; at most 4 per logical CPU, never more than 1024).
    #[arg(long)]
    workers: Option<usize>,
    /// The CSV to write (refused if it exists). With --notebook, defaults to raw/soak-N.csv there.
    #[arg(long, value_name = "FILE.csv", required_unless_present = "notebook")]
    out: Option<PathBuf>,
    /// Record the soak in this notebook (its protocol, six numbers and file).
    #[arg(long, value_name = "DIR")]
    notebook: Option<PathBuf>,
    /// Print the analysis as JSON when done.
    #[arg(long)]
    json: bool,
}

/// `vernier soak analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// The soak CSV.
    file: PathBuf,
    #[command(flatten)]
    thresholds: ThresholdArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// `vernier soak compare`.
#[derive(Debug, Args)]
pub struct SoakCompareArgs {
    /// Soak A.
    a: PathBuf,
    /// Soak B.
    b: PathBuf,
    #[command(flatten)]
    thresholds: ThresholdArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn soak(command: &SoakCommand) -> CommandResult {
    match command {
        SoakCommand::Run(args) => run_soak(args),
        SoakCommand::Analyze(args) => analyze(args),
        SoakCommand::Compare(args) => compare(args),
    }
}

fn load(path: &Path) -> Result<soak::SoakData, Failure> {
    file::read(path).map_err(Failure::input)
}

fn analysed(data: &soak::SoakData, th: &Thresholds) -> Result<Analysis, Failure> {
    soak::analyze(data, th).map_err(Failure::input)
}

fn analyze(args: &AnalyzeArgs) -> CommandResult {
    let data = load(&args.file)?;
    let th = args.thresholds.thresholds(&data, &args.file)?;
    let a = analysed(&data, &th)?;
    // T5: a changed threshold is stated, with the default result beside it.
    let default = (th != Thresholds::default()).then(|| analysed(&data, &Thresholds::default())).transpose()?;
    let sight = analysis::Sight::of_file(&data);
    let course = soak::course_view(&data, args.thresholds.course_window, th.tail_s, a.t_onset, sight);
    let placeholders = data.placeholders();
    if args.json {
        let mut object = numbers_json(&a);
        object["placeholders"] = json!(placeholders);
        object["synthetic"] = json!(data.synthetic());
        object["samples"] = json!(data.len());
        object["course_view"] = json!(course);
        object["honesty"] = json!(analysis::honesty_line(&a, UNIT));
        object["windows_warning"] = json!(a.windows_warning);
        object["ramp_warning"] = json!(a.ramp_warning);
        object["finding"] = json!(analysis::finding(&a, sight));
        object["default_thresholds_result"] = json!(default.as_ref().map(numbers_json));
        out!("{object}");
        return Ok(0);
    }
    if data.synthetic() {
        out!("SYNTHETIC data: a modeled shape, not a measurement — tag anything taken from it MODELED");
    }
    print_six(&a, "Vernier's view (median score)");
    if let Some(d) = &default {
        out!("thresholds changed from the protocol's defaults; with the defaults:");
        print_six(d, "default thresholds");
    }
    out!("{}", analysis::honesty_line(&a, UNIT));
    if let Some(finding) = analysis::finding(&a, sight) {
        out!("{finding}");
    }
    if !placeholders.is_empty() {
        out!("placeholders (not observations): {}", placeholders.join(", "));
    }
    out!("course tool's view (opening window {} s, score as a mean):", course.window_s);
    match course.clock_onset {
        Some(t) => out!("  throttle onset from the clock: t = {t} s"),
        None => {
            out!("  throttle onset from the clock: none observed — the run never left its peak point (no clock data)")
        }
    }
    out!(
        "  mean score: {} {UNIT} in the opening window, {} {UNIT} in the tail",
        format_significant(course.burst_mean_score, 3),
        format_significant(course.tail_mean_score, 3)
    );
    if let Some(w) = &course.warning {
        out!("  warning: {w}");
    }
    Ok(0)
}

fn numbers_json(a: &Analysis) -> serde_json::Value {
    json!({
        "peak": a.peak,
        "t_onset": a.t_onset,
        "t_stable": a.t_stable,
        // SPEC T11: null, with the reason, when there is no knee.
        "knee": a.knee().ok(),
        "knee_reason": a.knee().err(),
        "sustained": a.sustained,
        "ratio": a.ratio,
        "tail_iqr": a.tail_iqr,
        "tail_iqr_fraction": a.tail_iqr_fraction,
        "thresholds": a.thresholds,
        // The times (t_onset, t_stable, the windows) are in seconds at full
        // precision; a person is shown them in this unit (S12). The scores
        // are a rate and are never rescaled.
        "display_unit": DisplayUnit::for_median("s", a.duration_s).name(),
    })
}

fn print_six(a: &Analysis, view: &str) {
    let th = &a.thresholds;
    out!(
        "{view} — opening {} s, tail {} s, threshold {} of P held {} samples, band ±{}",
        th.opening_s,
        th.tail_s,
        th.threshold,
        th.hold,
        th.band
    );
    for (name, value) in a.shown() {
        out!("  {name:<8} {value}");
    }
    out!("  tail IQR is {}% of S", format_significant(100.0 * a.tail_iqr_fraction, 2));
    if let Some(warning) = &a.ramp_warning {
        out!("  warning: {warning}");
    }
}

fn compare(args: &SoakCompareArgs) -> CommandResult {
    let (data_a, data_b) = (load(&args.a)?, load(&args.b)?);
    let (th_a, th_b) = (args.thresholds.thresholds(&data_a, &args.a)?, args.thresholds.thresholds(&data_b, &args.b)?);
    // T13: like with like — two soaks are compared under one analysis.
    if th_a != th_b {
        return Err(Failure::input(anyhow!(
            "the two files were analysed differently (A: {}; B: {}); give --window, --tail, --threshold, --hold and \
             --band to compare them under one analysis",
            th_a.fact(),
            th_b.fact()
        )));
    }
    let a = analysed(&data_a, &th_a)?;
    let b = analysed(&data_b, &th_b)?;
    let c = analysis::compare(&a, &b, UNIT);
    // T13: the numbers stand; what they mean together, only like with like.
    let unlike: Vec<String> = likeness::unlike(&data_a, &data_b).iter().map(ToString::to_string).collect();
    if args.json {
        let disagree = if unlike.is_empty() { json!(c.disagree) } else { Value::Null };
        out!(
            "{}",
            json!({"a": numbers_json(&a), "b": numbers_json(&b), "lines": c.lines, "disagree": disagree, "unlike": unlike})
        );
        return Ok(0);
    }
    for line in &c.lines {
        out!("{line}");
    }
    if !unlike.is_empty() {
        out!(
            "no comparison claim (T13): the two soaks were not run under like stated conditions: {}. To decide: {}",
            unlike.join("; "),
            likeness::WHAT_WOULD_DECIDE
        );
    } else if c.disagree {
        out!(
            "S differs by more than the tail IQR: if these are two runs of one configuration, the day drifted — say so, and report both"
        );
    } else {
        out!("S agrees within the tail IQR");
    }
    Ok(0)
}

fn run_soak(args: &RunArgs) -> CommandResult {
    let notebook = args.notebook.as_deref().map(|dir| open(dir).map(|nb| (dir, nb))).transpose()?;
    // T1: in a notebook, the protocol was fixed with the prediction before the run.
    let (protocol, fixed_by) = match &notebook {
        Some((dir, nb)) => {
            let Some((number, protocol)) = nb.next_soak_protocol() else {
                return Err(Failure::input(anyhow!(
                    "fix the soak protocol with your prediction first: vernier predict {} --soak --experiment … --predict … --why …",
                    vernier_engine::display::path(dir)
                )));
            };
            for (given, fixed, name) in
                [(args.duration, protocol.duration_s, "--duration"), (args.interval, protocol.interval_s, "--interval")]
            {
                if let Some(g) = given.filter(|&g| g != fixed) {
                    return Err(Failure::input(anyhow!(
                        "{name} differs from the protocol fixed with P{number} ({fixed} s); to change it, amend the \
                         prediction: vernier predict {} --amend P{number} --soak {name} {g} --predict … --why …",
                        vernier_engine::display::path(dir)
                    )));
                }
            }
            (protocol, Some(number))
        }
        None => {
            // T11: the windows must fit the duration, with or without a
            // notebook, checked before the machine is loaded.
            let base = SoakProtocol::default();
            let protocol = SoakProtocol {
                duration_s: args.duration.unwrap_or(base.duration_s),
                interval_s: args.interval.unwrap_or(base.interval_s),
                opening_window_s: args.opening.unwrap_or(base.opening_window_s),
                tail_window_s: args.tail.unwrap_or(base.tail_window_s),
                threshold: args.threshold.unwrap_or(base.threshold),
                hold: args.hold.unwrap_or(base.hold),
                band: args.band.unwrap_or(base.band),
            };
            protocol.check().map_err(|why| Failure::input(anyhow!("{why}")))?;
            (protocol, None)
        }
    };
    // A protocol read from a notebook is someone's file: checked by the same rule.
    duration::SOAK_DURATION.check(protocol.duration_s).map_err(Failure::input)?;
    duration::SOAK_INTERVAL.check(protocol.interval_s).map_err(Failure::input)?;
    let workers =
        args.workers.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get));
    load::check_workers(workers).map_err(|why| Failure::input(anyhow!("--workers: {why}")))?;
    let out_path = match (&args.out, &notebook) {
        (Some(p), _) => p.clone(),
        (None, Some((dir, nb))) => record::raw_path(dir, nb),
        (None, None) => return Err(Failure::input(anyhow!("give --out FILE.csv or --notebook DIR"))),
    };
    // T1: from here the prediction and its protocol are fixed; an edit or
    // amendment is refused until the soak is recorded.
    if let (Some((dir, _)), Some(number)) = (&notebook, fixed_by) {
        apply(dir, |nb| nb.start_soak(number, Utc::now()))?;
    }
    let context = notebook.as_ref().map_or_else(Vec::new, |(_, nb)| load::stated_context(nb.environment()));
    let spec = load::SoakSpec { protocol, workers, out: out_path.clone(), sensors_root: "/".into(), context };
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    super::interrupt::cancels(std::sync::Arc::clone(&cancel));
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(u64::from(protocol.samples())),
        indicatif::ProgressDrawTarget::stderr(),
    );
    let outcome = load::run(&spec, &cancel, &mut |n, row| {
        bar.set_position(n as u64);
        bar.set_message(format!("score {} {UNIT}", format_significant(row.score, 3)));
    })
    .map_err(|e| match e {
        load::SoakRunError::Invalid(_) | load::SoakRunError::Workers(_) => Failure::input(e),
        other => Failure::failed(other),
    })?;
    bar.finish_and_clear();
    let finished = record::finish(&out_path, protocol, &outcome).map_err(Failure::input)?;
    // With --json, stdout holds the JSON alone; what is said goes to stderr.
    let say = |line: String| if args.json { eprintln!("{line}") } else { out!("{line}") };
    if let Some((dir, _)) = notebook {
        let added =
            apply(dir, |nb| Ok::<_, std::convert::Infallible>(record::add_row(nb, dir, &finished, Utc::now())))?;
        let dir = vernier_engine::display::path(dir);
        say(match added {
            record::Added::Soak(n) => format!("recorded as soak S{n} in {dir}"),
            record::Added::Note(_) => format!("not recorded as a row; a note in {dir} names the file"),
        });
    }
    say(format!(
        "{} samples written to {} ({workers} worker{}, chunk {:.1} ms{}){}",
        outcome.samples,
        vernier_engine::display::path(&out_path),
        if workers == 1 { "" } else { "s" },
        outcome.chunk_ms,
        if outcome.placeholders.is_empty() {
            String::new()
        } else {
            format!("; placeholders: {}", outcome.placeholders.join(", "))
        },
        if outcome.cancelled { " — stopped early; every row written is kept" } else { "" }
    ));
    // T8, T12: what the numbers support, said with them.
    let finding = |a: &Analysis| analysis::finding(a, analysis::Sight::of_conditions(&finished.conditions));
    match &finished.analysis {
        Ok(a) if args.json => {
            let mut object = numbers_json(a);
            object["finding"] = json!(finding(a));
            out!("{object}");
        }
        Ok(a) => {
            print_six(a, "the six numbers");
            if let Some(finding) = finding(a) {
                out!("{finding}");
            }
        }
        Err(e) => say(format!("not analysable yet: {e}")),
    }
    Ok(0)
}
