//! `vernier bench`, `vernier machine`, `vernier instrument` and
//! `vernier import hyperfine` (SPEC C, E).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::anyhow;
use chrono::{DateTime, Utc};
use clap::Args;
use serde_json::{Value, json};
use vernier_engine::display::inert;
use vernier_engine::duration;
use vernier_engine::harness::{
    self, ArmResult, BenchError, BenchEvent, BenchResult, BenchRunner, BenchSpec, BuildStep, Scan, Subject,
};
use vernier_engine::notebook::Source;
use vernier_engine::notebook::{KernelKind, KernelSpec};
use vernier_engine::notebook::{MetricSpec, Param};
use vernier_engine::notebook::{Notebook, NotebookError};
use vernier_engine::notebook::{RowRef, WarmupPolicy, build_warning, canary_value, canary_verdict, row_list};
use vernier_engine::platform::machine::Machine;
use vernier_engine::record_run;
use vernier_engine::self_check;
use vernier_engine::stats::units::{DisplayUnit, Figures};
use vernier_engine::stats::{CanaryVerdict, Evidence, format_significant};

use super::{CommandResult, Failure, given};

/// How a run or a comparison is named in every face (SPEC S11): `bench`
/// and `import csv` take the same three options.
#[derive(Debug, Args)]
pub struct Naming {
    /// What the run (or the comparison) is about; names its row(s).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub what: Option<String>,
    /// The label of arm A of a comparison (default: its command, or for an
    /// import its column's stem).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub label_a: Option<String>,
    /// The label of arm B of a comparison (default: as for arm A).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub label_b: Option<String>,
}

/// `vernier bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Timed trials per arm; must be odd.
    #[arg(short = 'n', long = "runs", default_value_t = harness::DEFAULT_RUNS)]
    runs: u32,
    /// Warm-up: a number of trials, or `settle` (until two agree within 5 %).
    #[arg(long, default_value = "3", value_parser = parse_warmup)]
    warmup: WarmupPolicy,
    /// Pin the measurement (and the commands it starts) to this CPU.
    #[arg(long, value_name = "CPU")]
    pin: Option<usize>,
    /// Pause this long before the reversed block of a comparison, then settle.
    #[arg(long, value_name = "SECONDS", value_parser = super::duration(duration::COOLDOWN))]
    cooldown: Option<Duration>,
    /// Kill a trial that runs longer than this; the run then fails.
    #[arg(long, value_name = "SECONDS", value_parser = super::duration(duration::TIMEOUT))]
    pub(super) timeout: Option<Duration>,
    /// The budget each trial should meet, e.g. 0.0167 for a 60 Hz frame:
    /// each row then gives how many timed trials missed it and its 95th
    /// percentile beside the median (S19). Default with --notebook: the
    /// notebook's "Trial budget", if one is set.
    #[arg(long, value_name = "SECONDS", value_parser = super::seconds(duration::BUDGET))]
    budget: Option<f64>,
    /// Record the run in this notebook (rows, raw file, notes).
    #[arg(long, value_name = "DIR")]
    pub(super) notebook: Option<PathBuf>,
    /// The prediction the recorded run or comparison answers (N14), e.g. P1.
    #[arg(long, value_name = "P", requires = "notebook", value_parser = super::notebook_cmds::parse_prediction_number)]
    answers: Option<u32>,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    /// A built-in kernel instead of a command.
    #[arg(long, value_name = "NAME", value_parser = parse_kernel)]
    kernel: Option<KernelKind>,
    /// Working set in bytes (seq, chase) or matrix dimension (matmul); in a
    /// sweep, {NAME} of a --param, e.g. --size '{SIZE}' --param SIZE=16K..64M*4.
    #[arg(long, value_name = "N")]
    size: Option<String>,
    /// Tile edge for matmul-blocked (or {NAME} of a --param).
    #[arg(long, value_name = "T")]
    tile: Option<String>,
    /// Compare against this command, interleaved (A is the command after --).
    #[arg(long, value_name = "'CMD B'", conflicts_with = "vs_kernel")]
    vs: Option<String>,
    /// Compare against this kernel, interleaved (A is --kernel).
    #[arg(long, value_name = "NAME", value_parser = parse_kernel, requires = "kernel")]
    vs_kernel: Option<KernelKind>,
    /// Run the command through /bin/sh -c; the shell's own cost is measured and stated.
    #[arg(long)]
    shell: bool,
    /// How the program was built, e.g. "g++ -O2 -std=c++17" (default: the
    /// Environment's Compiler + flags). A kernel's build is Vernier's own.
    #[arg(long, value_name = "TEXT", conflicts_with = "kernel", allow_hyphen_values = true)]
    build: Option<String>,
    /// Program A's own build in a comparison (--vs), e.g. "g++ -O2"; in place of --build for A.
    #[arg(long, value_name = "TEXT", requires = "vs", conflicts_with = "kernel", allow_hyphen_values = true)]
    build_a: Option<String>,
    /// Program B's own build in a comparison (--vs), e.g. "g++ -O3"; in place of --build for B.
    #[arg(long, value_name = "TEXT", requires = "vs", conflicts_with = "kernel", allow_hyphen_values = true)]
    build_b: Option<String>,
    #[command(flatten)]
    recipe: RecipeArgs,
    #[command(flatten)]
    naming: Naming,
    /// This run is the control condition, repeated in each session, that
    /// comparisons across sessions are weighed against (S14).
    #[arg(long, conflicts_with_all = ["vs", "vs_kernel"])]
    control: bool,
    /// After a kernel run, check that twice the input takes about twice the time,
    /// and for chase the loads per cycle against Vernier's own clock estimate (E12).
    #[arg(long, requires = "kernel")]
    sanity: bool,
    /// Rerun run N of --notebook to 51 timed trials with its own spec, as a new
    /// row linked to it, and see whether its median moved (S10).
    #[arg(long, value_name = "N", requires = "notebook", conflicts_with_all = [
        "command", "kernel", "vs", "vs_kernel", "shell", "sanity", "pin", "warmup", "runs", "cooldown",
        "params", "metric", "metric_json", "metric_unit", "metric_each", "build_cmd", "build_cmd_a", "build_cmd_b",
        "check", "inputs",
    ])]
    pub(super) extend: Option<u32>,
    /// With --extend: the difference you mean to claim, in the run's unit, with a
    /// time unit (0.5ms, 500us) or as a percentage of its median (5%).
    #[arg(long, value_name = "VALUE|PCT", requires = "extend", allow_hyphen_values = true)]
    pub(super) claim: Option<String>,
    /// With --extend: run it. Without this, Vernier only shows what it would
    /// run: the run's command is taken from the notebook, a file anyone can
    /// edit (N13).
    #[arg(long, requires = "extend")]
    pub(super) yes: bool,
    /// With --extend --yes: also run a command that runs code written in the
    /// notebook (a shell's `-c`, an interpreter's `-e`, …), which `--yes`
    /// alone refuses. A visible-pattern check, not a sandbox.
    #[arg(long, requires = "yes")]
    pub(super) allow_inline_code: bool,
    #[command(flatten)]
    own: OwnFigureArgs,
    /// The command and its arguments (after --).
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

/// A build recipe Vernier runs just before measuring (SPEC N15).
#[derive(Debug, Args)]
pub struct RecipeArgs {
    /// Build the program first with this command, run in the current folder
    /// (the project's), split into words, and record it as the row's build
    /// with the compiler's version, the sources' SHA-256 (copies in raw/) and
    /// the program's SHA-256, e.g. 'g++ -O2 -std=c++17 matmul.cpp -o mm-O2'.
    #[arg(long, value_name = "'CMD'", conflicts_with_all = ["build", "build_a", "kernel"])]
    build_cmd: Option<String>,
    /// Program A's own recipe in a comparison (--vs).
    #[arg(long, value_name = "'CMD'", requires = "vs", conflicts_with_all = ["build_cmd", "build_a", "kernel"])]
    build_cmd_a: Option<String>,
    /// Program B's own recipe in a comparison (--vs).
    #[arg(long, value_name = "'CMD'", requires = "vs", conflicts_with_all = ["build_cmd", "build_b", "kernel"])]
    build_cmd_b: Option<String>,
    /// The recipe needs a shell (&&, pipes, globs): it runs through /bin/sh -c,
    /// and a rerun from the notebook treats it as inline code (N13).
    #[arg(long)]
    build_shell: bool,
    /// A source the build reads that the compiler cannot list (a file, or a
    /// folder's files), inside the current folder; repeatable.
    #[arg(long = "source", value_name = "FILE|DIR")]
    sources: Vec<PathBuf>,
}

impl RecipeArgs {
    /// The recipes asked for: the session's, then arm A's and arm B's.
    fn steps(&self) -> Result<(Option<BuildStep>, [Option<BuildStep>; 2]), Failure> {
        let any = self.build_cmd.is_some() || self.build_cmd_a.is_some() || self.build_cmd_b.is_some();
        if !any && (self.build_shell || !self.sources.is_empty()) {
            return Err(Failure::input(anyhow!("--build-shell and --source go with --build-cmd CMD")));
        }
        let step = |text: &Option<String>| {
            given(text.as_deref())
                .map(|t| {
                    BuildStep::new(&t, self.build_shell, self.sources.clone()).map_err(|e| Failure::input(anyhow!(e)))
                })
                .transpose()
        };
        Ok((step(&self.build_cmd)?, [step(&self.build_cmd_a)?, step(&self.build_cmd_b)?]))
    }
}

/// A parameter scan (E16) and the program's own figure (E17).
#[derive(Debug, Args)]
pub struct OwnFigureArgs {
    /// Scan a parameter: NAME=V1,V2,… (each text exactly as listed) or
    /// NAME=START..END*FACTOR (integers; K, M, G are powers of two). {NAME} in
    /// the command receives each value; one row per value, recorded as one
    /// sweep. Repeat for every combination (the first is the x axis).
    #[arg(long = "param", value_name = "NAME=VALUES", value_parser = Param::parse)]
    params: Vec<Param>,
    /// Measure the program's own figure instead of its process's wall time: a
    /// regular expression whose one capture group is the number, e.g.
    /// 'ns/access: ([0-9.eE+-]+)'.
    #[arg(long, value_name = "REGEX", conflicts_with = "metric_json")]
    metric: Option<String>,
    /// Measure the program's own figure: this key of the JSON it prints
    /// (outer.inner reaches into objects; a number or an array of numbers).
    #[arg(long, value_name = "KEY")]
    metric_json: Option<String>,
    /// The figure's unit, e.g. "ns/access" (a unit that is not a time is never rescaled).
    #[arg(long, value_name = "UNIT", allow_hyphen_values = true)]
    metric_unit: Option<String>,
    /// Every figure a process prints is a trial (one per internal trial); -n,
    /// the warm-up and the odd-n rule then count processes.
    #[arg(long)]
    metric_each: bool,
    /// Read each trial's result from what it prints with this regular
    /// expression (its first capture group, or the whole match), e.g.
    /// 'checksum: (\S+)': a row keeps the result every trial printed, and a
    /// comparison whose arms printed different results claims nothing (S18).
    #[arg(long, value_name = "REGEX")]
    check: Option<String>,
    /// The program's fixed inputs, as you state them: its seed, input size and
    /// input files (E19), e.g. "seed 42, N=4096, data/graph.bin". A --seed or
    /// --size in its own arguments is read without this.
    #[arg(long, value_name = "TEXT")]
    inputs: Option<String>,
}

impl OwnFigureArgs {
    /// The metric asked for, checked: a unit goes with a pattern.
    pub fn metric(&self) -> Result<Option<MetricSpec>, Failure> {
        let source = match (&self.metric, &self.metric_json) {
            (Some(regex), None) => Source::Regex(regex.clone()),
            (None, Some(key)) => Source::JsonKey(key.clone()),
            (None, None) if self.metric_unit.is_some() || self.metric_each => {
                return Err(Failure::input(anyhow!(
                    "--metric-unit and --metric-each go with --metric REGEX or --metric-json KEY"
                )));
            }
            _ => return Ok(None),
        };
        let Some(unit) = given(self.metric_unit.as_deref()) else {
            return Err(Failure::input(anyhow!(
                "say the figure's unit with --metric-unit, e.g. --metric-unit \"ns/access\""
            )));
        };
        let spec = MetricSpec { source, unit, each: self.metric_each };
        vernier_engine::harness::Metric::compile(&spec).map_err(|e| Failure::input(anyhow!(e)))?;
        Ok(Some(spec))
    }

    /// The `--check` pattern, compiled once to say a bad one before anything runs.
    pub fn check(&self) -> Result<Option<String>, Failure> {
        if let Some(pattern) = &self.check {
            vernier_engine::harness::OutputCheck::compile(pattern).map_err(|e| Failure::input(anyhow!(e)))?;
        }
        Ok(self.check.clone())
    }
}

/// `bench` measuring a new row (`bench --extend` goes to `extend_cmd`, which
/// records through this module).
pub fn bench(args: &BenchArgs) -> CommandResult {
    let spec = spec(args)?;
    // A18 at once: an unoptimised build is said before the machine is
    // loaded, so the run can be stopped, and again with its row.
    let recipes = spec.recipe.iter().chain(spec.arm_recipes.iter().flatten()).map(BuildStep::quoted);
    super::warn_unoptimised(
        [&spec.build, &spec.arm_builds[0], &spec.arm_builds[1]].into_iter().flatten().cloned().chain(recipes),
    );
    // Fail before measuring if the notebook cannot be read or its raw/
    // cannot be written; the raw file's name is taken now (N10).
    let (reserved, spec) = match args.notebook.as_deref().map(reserve_raw).transpose()? {
        Some(reservation) => {
            let (raw, spec) = reservation.start(spec);
            (Some(raw), spec)
        }
        None => (None, spec),
    };
    if let (Some(dir), Some(p)) = (&args.notebook, args.answers) {
        super::notebook_cmds::check_prediction(dir, p)?;
    }
    let result = run_with_progress(spec)?;
    let recorded = match (&args.notebook, reserved) {
        (Some(dir), Some(reserved)) => {
            Some(record(dir, &result, reserved, record_run::Joins::Nothing, |_, _, _| Ok(()))?.recorded)
        }
        _ => None,
    };
    // SPEC E12: run by the harness right after the trials, kept with the rows.
    let (sanity, sanity_failed) = match &result.sanity {
        Some(Ok(sanity)) => (Some(sanity), None),
        Some(Err(why)) => (None, Some(why)),
        None => (None, None),
    };
    let raw = recorded.as_ref().map(|r| r.raw_file.to_string());
    let answered = match (&args.notebook, &recorded, args.answers) {
        (Some(dir), Some(recorded), Some(p)) => Some(super::notebook_cmds::answer_recorded(dir, p, recorded)),
        _ => None,
    };
    if args.json {
        let mut object = json!({
            "runs": result.arms.iter().map(|a| arm_json(a, raw.as_deref(), result.failure.is_some())).collect::<Vec<_>>(),
        });
        if let Some(c) = &result.comparison {
            object["comparison"] = json!(c);
            // SPEC S11: the arms' labels and the paired ratios B/A.
            object["comparison"]["label_a"] = json!(result.labels.first());
            object["comparison"]["label_b"] = json!(result.labels.get(1));
            object["comparison"]["paired_ratio"] = json!(result.paired.as_ref().map(|p| json!({
                "n": p.n, "median": p.median, "p25": p.p25, "p75": p.p75, "iqr": p.iqr,
                "min": p.min, "max": p.max, "rounded": p.rounded(),
            })));
            object["comparison"]["order_effect"] = json!(result.order.as_ref().and_then(|o| o.effect));
            object["comparison"]["display_unit"] = json!(c.display_unit());
            object["comparison"]["results"] =
                json!(result.agreement().map(|a| json!({"finding": a, "sentence": a.sentence()})));
            if let [la, lb] = result.labels.as_slice() {
                let evidence = Evidence::new(c, [la, lb], result.paired.as_ref(), result.order.as_ref())
                    .with_facts(result.facts());
                object["comparison"]["meaning"] = json!(evidence.meaning(None));
            }
        }
        object["order"] = json!(result.order);
        object["canary"] = json!(result.canary);
        object["canary_verdict"] =
            json!(session_canary(&result).map(|v| json!({"finding": v, "sentence": v.sentence()})));
        object["noise_floor"] = json!(result.noise_floor);
        object["placement"] = json!(result.placement);
        object["shell_cost_s"] = json!(result.shell_cost_s);
        object["process_cleanup"] = json!(result.process_cleanup);
        object["sanity"] = json!(sanity);
        object["recorded_runs"] = json!(recorded.as_ref().map(|r| &r.runs));
        object["failure"] = json!(result.failure);
        object["conditions"] = json!(result.machine);
        // Vernier's toolchain builds only its kernels (N11): a session of
        // commands states the build it was given instead.
        if result.arms.iter().all(|a| a.provenance.is_some())
            && let Some(conditions) = object["conditions"].as_object_mut()
        {
            conditions.remove("compiler");
        }
        object["build"] = json!(result.build);
        // Each arm's own build, when a comparison gave them (N11).
        object["arm_builds"] = json!((0..result.arms.len()).map(|i| result.build_of(i)).collect::<Vec<_>>());
        object["answers"] = json!(answered.as_ref().and_then(|a| a.as_ref().ok()));
        // SPEC N15: each arm's recipe as it ran.
        object["recipes"] = json!(result.recipes);
        out!("{object}");
    } else {
        // What would extend the comparison just recorded (S10, S15),
        // written out in full so it can be copied.
        let extend = match (&args.notebook, recorded.as_ref().map(|r| r.runs.as_slice())) {
            (Some(dir), Some([a, _])) => Some(vernier_engine::display::quote_argv(&[
                "vernier".into(),
                "bench".into(),
                "--notebook".into(),
                dir.display().to_string(),
                "--extend".into(),
                a.to_string(),
                "--yes".into(),
            ])),
            _ => None,
        };
        print_text(&result, recorded.as_ref(), sanity, extend.as_deref());
        if let Some(Ok(line)) = &answered {
            out!("{line}");
        }
    }
    if let Some(Err(refused)) = answered {
        return Err(refused.context("the run is recorded; answer the prediction with `vernier answer`".to_owned()));
    }
    match (&result.failure, sanity_failed) {
        (Some(failure), _) => Err(Failure::failed(anyhow!("the run failed: {failure}"))),
        (None, Some(why)) => Err(Failure::failed(anyhow!("sanity check: {why}"))),
        (None, None) => Ok(0),
    }
}

fn spec(args: &BenchArgs) -> Result<BenchSpec, Failure> {
    let metric = args.own.metric()?;
    if metric.is_some() && (args.kernel.is_some() || args.vs_kernel.is_some()) {
        return Err(Failure::input(anyhow!(
            "--metric reads a program's own figure from its output; a built-in kernel prints none"
        )));
    }
    let subjects = if args.own.params.is_empty() { arms_spec(args)? } else { scan_spec(args)? };
    let (recipe, arm_recipes) = args.recipe.steps()?;
    Ok(BenchSpec {
        recipe,
        arm_recipes,
        runs: args.runs,
        warmup: args.warmup,
        pin: args.pin,
        cooldown: args.cooldown,
        timeout: args.timeout,
        budget: args.budget,
        build: given(args.build.as_deref()),
        arm_builds: [given(args.build_a.as_deref()), given(args.build_b.as_deref())],
        what: given(args.naming.what.as_deref()),
        metric,
        check: args.own.check()?,
        inputs: given(args.own.inputs.as_deref()),
        sanity: args.sanity,
        ..subjects
    })
}

/// SPEC E16: one command over every point of its parameters (the
/// subjects; [`spec`] adds what every run takes).
fn scan_spec(args: &BenchArgs) -> Result<BenchSpec, Failure> {
    if args.vs.is_some() || args.vs_kernel.is_some() {
        return Err(Failure::input(anyhow!(
            "a scan is not combined with --vs: scan each command on its own, then compare two of their rows with `vernier compare`"
        )));
    }
    if args.command.is_empty() && args.kernel.is_none() {
        return Err(Failure::input(anyhow!(
            "--param scans a command or a kernel: give the command after -- with {{NAME}} where each value goes, \
             or --kernel NAME --size '{{SIZE}}'"
        )));
    }
    if args.control || args.naming.label_a.is_some() || args.naming.label_b.is_some() {
        return Err(Failure::input(anyhow!(
            "a scan's rows are named by their values: --control, --label-a and --label-b do not apply (--what names the sweep)"
        )));
    }
    if let Some(kind) = args.kernel {
        if !args.command.is_empty() {
            return Err(Failure::input(anyhow!("give either --kernel or a command after --, not both")));
        }
        return BenchSpec::scanning_kernel(kind, args.size.as_deref(), args.tile.as_deref(), args.own.params.clone())
            .map_err(|e| Failure::input(anyhow!(e)));
    }
    let template = args.command.clone();
    let scan = Scan::new(args.own.params.clone(), &template).map_err(|e| Failure::input(anyhow!(e)))?;
    Ok(BenchSpec::scanning(template, args.shell, scan))
}

/// One subject, or two compared, with their labels (the subjects; [`spec`]
/// adds what every run takes).
fn arms_spec(args: &BenchArgs) -> Result<BenchSpec, Failure> {
    let a = match (args.kernel, args.command.is_empty()) {
        (Some(kind), true) => Subject::Kernel(kernel_spec(kind, args)?),
        (None, false) => Subject::Command { argv: args.command.clone(), shell: args.shell },
        (Some(_), false) => {
            return Err(Failure::input(anyhow!("give either --kernel or a command after --, not both")));
        }
        (None, true) => {
            return Err(Failure::input(anyhow!("nothing to measure: give a command after -- or --kernel NAME")));
        }
    };
    let mut arms = vec![a];
    if let Some(b) = &args.vs {
        let argv = if args.shell {
            vec![b.clone()]
        } else {
            vernier_engine::platform::program::split_command(b)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| Failure::input(anyhow!("cannot split --vs '{b}' into words")))?
        };
        arms.push(Subject::Command { argv, shell: args.shell });
    }
    if let Some(kind) = args.vs_kernel {
        let tile = (kind == KernelKind::MatmulBlocked).then_some(whole(args.tile.as_deref(), "--tile")?).flatten();
        arms.push(Subject::Kernel(KernelSpec { kind, size: whole(args.size.as_deref(), "--size")?, tile }));
    }
    if arms.len() == 1 && (args.naming.label_a.is_some() || args.naming.label_b.is_some()) {
        return Err(Failure::input(anyhow!(
            "--label-a and --label-b name the arms of a comparison: add --vs 'CMD B' or --vs-kernel NAME (use --what to name one run)"
        )));
    }
    Ok(BenchSpec {
        labels: [given(args.naming.label_a.as_deref()), given(args.naming.label_b.as_deref())],
        control: args.control,
        ..BenchSpec::new(arms)
    })
}

fn kernel_spec(kind: KernelKind, args: &BenchArgs) -> Result<KernelSpec, Failure> {
    // With --vs-kernel, a tile belongs to whichever side is blocked.
    let tile = whole(args.tile.as_deref(), "--tile")?;
    let tile = if args.vs_kernel.is_some() && kind != KernelKind::MatmulBlocked { None } else { tile };
    Ok(KernelSpec { kind, size: whole(args.size.as_deref(), "--size")?, tile })
}

/// A kernel's `--size` or `--tile` outside a sweep: a whole number, or
/// what to write instead (a placeholder needs its `--param`).
fn whole(text: Option<&str>, option: &str) -> Result<Option<u64>, Failure> {
    let Some(text) = text.map(str::trim) else { return Ok(None) };
    text.parse::<u64>().map(Some).map_err(|_| {
        let why = if text.starts_with('{') {
            format!("{option} {text} is filled by a sweep: add --param, e.g. --param SIZE=16K..64M*4")
        } else {
            format!(
                "{option} takes a whole number, not '{text}' (a sweep: {option} '{{SIZE}}' --param SIZE=16K..64M*4)"
            )
        };
        Failure::input(anyhow!(why))
    })
}

/// Runs the benchmark on the engine thread, drawing a progress bar on a
/// terminal; Ctrl-C cancels it (children killed) instead of orphaning them.
pub(super) fn run_with_progress(spec: BenchSpec) -> Result<BenchResult, Failure> {
    let engine = BenchRunner::spawn(|| {}).map_err(Failure::failed)?;
    super::interrupt::cancels(engine.cancel_token());
    engine.start(spec);
    let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} trials  {msg}") {
        bar.set_style(style);
    }
    loop {
        let event = engine.events().recv().map_err(|_| Failure::failed(anyhow!("the engine stopped unexpectedly")))?;
        match event {
            BenchEvent::Started { total } => bar.set_length(total),
            BenchEvent::Trial(_, p) => {
                bar.set_length(p.total);
                bar.set_position(p.done);
                bar.set_message(format!("{:.0} s left", p.remaining.as_secs_f64().ceil()));
            }
            // SPEC N15: what the build did, before the first trial.
            BenchEvent::Built(report) => bar.suspend(|| eprintln!("{report}")),
            BenchEvent::Finished(result) => {
                bar.finish_and_clear();
                return Ok(*result);
            }
            BenchEvent::Failed(e) => {
                bar.finish_and_clear();
                // SPEC N15: the compiler's own message, on its lines, above the error.
                if let BenchError::Build(harness::BuildError::Failed { output, .. }) = &e
                    && !output.is_empty()
                {
                    eprintln!("the build printed:\n{output}");
                }
                return Err(match e {
                    BenchError::Io(e) => Failure::failed(e),
                    // The build ran and failed, or built another program: exit 1.
                    e @ BenchError::Build(_) => Failure::failed(e),
                    other => Failure::input(other),
                });
            }
        }
    }
}

/// Takes the raw file's name for the next run of the notebook in `dir`,
/// before the run starts, through the engine's one way of recording a run
/// ([`record_run::reserve`]); a lock held elsewhere is waited for here, out
/// loud and cancellable, before the first trial (N10).
pub(super) fn reserve_raw(dir: &std::path::Path) -> Result<record_run::Reservation, Failure> {
    let reservation = record_run::reserve(dir).map_err(record_failure)?;
    super::notebook_cmds::warn_integrity(&reservation.integrity);
    Ok(reservation)
}

/// Records a finished run through the engine ([`record_run::record`]):
/// its raw file, then its rows — with what they join and what `also` adds
/// — in one change to the notebook as it is now.
pub(super) fn record<T>(
    dir: &std::path::Path,
    result: &BenchResult,
    reserved: harness::raw::Reserved,
    joins: record_run::Joins<'_>,
    also: impl FnMut(&mut Notebook, &harness::RowsAdded, DateTime<Utc>) -> Result<T, NotebookError>,
) -> Result<record_run::RunRecorded<T>, Failure> {
    let done = record_run::record(dir, result, reserved, joins, also).map_err(record_failure)?;
    super::notebook_cmds::warn_integrity(&done.notebook.integrity());
    Ok(done)
}

/// A run not reserved or not recorded: refused input exits 2, a failed
/// write 1 (measured but not recorded says where the trials are).
fn record_failure(e: record_run::RecordError) -> Failure {
    if e.is_refusal() { Failure::input(e) } else { Failure::failed(e) }
}

fn arm_json(arm: &ArmResult, raw_file: Option<&str>, failed: bool) -> Value {
    let mut object = match &arm.summary {
        Some(s) => json!({
            "n": s.n, "median": s.median, "p25": s.p25, "p75": s.p75, "iqr": s.iqr,
            "iqr_fraction": s.iqr_fraction, "min": s.min, "max": s.max, "drift": s.drift,
            "rounded": s.rounded(),
            // The values stay in `unit` at full precision; a person is shown them in this one (S12).
            "display_unit": DisplayUnit::for_median(&arm.unit, s.median).name(),
        }),
        None => json!({"n": 0}),
    };
    object["what"] = json!(arm.what);
    object["command"] = json!(arm.command);
    object["warmup"] = json!(arm.warmup_trials);
    object["timed"] = json!(arm.timed.len());
    // SPEC E16, E17: a sweep's point; the figure's source and processes.
    object["point"] = json!(arm.point);
    object["own_figure"] = json!(arm.figure);
    object["raw_file"] = json!(raw_file);
    object["failed"] = json!(failed);
    object["unit"] = json!(arm.unit);
    object["checksum"] = json!(arm.checksum);
    object["result_check"] = json!(arm.result_check);
    object["inputs"] = json!(arm.inputs);
    // The program a command ran, identified (N11).
    object["program"] = json!(arm.provenance.as_ref().map(|p| &p.program));
    object["argument_files"] = json!(arm.provenance.as_ref().map(|p| &p.argument_files));
    // The same key `vernier stats --json` uses for the same check.
    object["warmup_check"] = json!(arm.first_trial_check);
    // SPEC E13: CPU time (s), cycles and instructions of the timed trials.
    object["work"] = json!(arm.work);
    // SPEC S19: the trials against the budget stated for the run.
    object["tail"] = json!(arm.tail);
    object
}

fn print_text(
    result: &BenchResult,
    recorded: Option<&harness::RowsAdded>,
    sanity: Option<&self_check::Sanity>,
    extend: Option<&str>,
) {
    for (i, arm) in result.arms.iter().enumerate() {
        out!("{}: {}", arm.label, arm.what);
        if result.builds_per_arm() {
            out!("  build: {}", result.build_of(i).unwrap_or("not stated (say it with `vernier set-run --build`)"));
        }
        if let Some(warning) = result.build_of(i).and_then(build_warning) {
            out!("  warning: {warning}");
        }
        match &arm.summary {
            Some(s) => {
                let internal = arm.figure.as_ref().and_then(|f| f.internal_text(s.n)).map(|t| format!(" ({t})"));
                out!(
                    "  {}, n={}{} (+{} warm-up)",
                    Figures::of(s, &arm.unit).line(),
                    s.n,
                    internal.unwrap_or_default(),
                    arm.warmup_trials
                );
                // SPEC S19: the tail against the budget, beside the median.
                if let Some(tail) = &arm.tail {
                    out!("  tail: {}", tail.sentence(&Figures::of(s, &arm.unit), s.max));
                }
                for flag in s.flags() {
                    out!("  warning: {flag}");
                }
                if let Some(b) = vernier_engine::stats::bimodality(&arm.timed) {
                    out!("  warning: {}", b.describe(&arm.unit, Some(result.facts().pinned), arm.trial_cpus.as_ref()));
                }
            }
            None => out!("  no successful timed trial"),
        }
        if let Some(check) = &arm.first_trial_check {
            out!("  warm-up {}: {}", arm.warmup_trials, check.describe(&arm.unit));
        }
        // SPEC E13: the trials' CPU time and counts, and what they say.
        if let Some(work) = &arm.work {
            out!("  {}", work.line());
            for finding in arm.work_findings() {
                out!("  work check: {finding}");
            }
        }
        if let Some(sum) = &arm.checksum {
            out!("  result verified after every trial: {sum}");
        } else if let Some(kept) = &arm.result_check {
            // SPEC S18: what --check read from every trial's output.
            out!("  result: {}", inert(kept));
        }
    }
    // One verdict (S15): S7's, then the paired ratio and the order check
    // as its evidence, then what they mean where they point elsewhere.
    if let (Some(c), [la, lb]) = (&result.comparison, result.labels.as_slice()) {
        let evidence =
            Evidence::new(c, [la, lb], result.paired.as_ref(), result.order.as_ref()).with_facts(result.facts());
        out!("{}", c.verdict);
        // SPEC S18: results that agree are said beside the verdict (those
        // that differ have already taken its claim away).
        if let Some(agree) = result.agreement().filter(|a| !a.claims_nothing()) {
            out!("  results: {agree}");
        }
        if let Some(paired) = evidence.paired_line() {
            out!("  evidence: {paired} of adjacent trials");
        }
        if let (Some(line), Some(o)) = (evidence.order_line(), &result.order) {
            // The differences in the unit arm A's median is shown in (S12).
            let unit = result.arms.first().map_or_else(
                || DisplayUnit::for_median("", 0.0),
                |a| DisplayUnit::for_median(&a.unit, a.summary.as_ref().map_or(0.0, |s| s.median)),
            );
            out!(
                "  evidence: {line} (B − A: {} A-first, {} B-first)",
                unit.quantity(o.difference_ab),
                unit.quantity(o.difference_ba)
            );
        }
        if let Some(meaning) = evidence.meaning(extend) {
            out!("{meaning}");
        }
    }
    let mut footer = vec![result.placement.clone()];
    // SPEC E18: the floor every row of the session keeps; E7: the canary
    // judged against it, the verdict every row of the session shows.
    if let Some(floor) = &result.noise_floor {
        footer.push(format!("noise floor {}", floor.describe()));
    }
    footer.extend(session_canary(result).map(|v| v.sentence()));
    if let Some(cost) = result.shell_cost_s {
        footer.push(format!("the shell alone costs {} per trial", DisplayUnit::for_median("s", cost).quantity(cost)));
    }
    if let Some(r) = recorded {
        let rows: Vec<String> = r.runs.iter().map(u32::to_string).collect();
        footer.push(if rows.is_empty() {
            format!("raw trials kept in {} (noted, no row: the run failed)", r.raw_file)
        } else if let Some(sweep) = r.sweep {
            let runs: Vec<RowRef> = r.runs.iter().map(|&n| RowRef::Run(n)).collect();
            format!("recorded as sweep W{sweep}, {}, with {}", row_list(&runs), r.raw_file)
        } else {
            format!("recorded as run {} with {}", rows.join(" and "), r.raw_file)
        });
    }
    out!("{}", footer.join(" · "));
    for line in sanity.map(self_check::Sanity::describe).unwrap_or_default() {
        out!("sanity: {line}");
    }
}

/// SPEC E7, E18: the canary judged against the session's floor, as the
/// session's rows will show it.
fn session_canary(result: &BenchResult) -> Option<CanaryVerdict> {
    let c = result.canary.as_ref()?;
    canary_verdict(&canary_value(c.ratio, c.start_ms, c.end_ms), result.noise_floor.as_ref())
}

pub fn machine(json_output: bool) -> CommandResult {
    let m = Machine::read();
    if json_output {
        out!("{}", json!(m));
    } else {
        for c in m.conditions() {
            out!("{:<20} {}", c.shown_field(), c.shown_value());
        }
    }
    Ok(0)
}

pub fn instrument(json_output: bool) -> CommandResult {
    let check = self_check::check();
    if json_output {
        out!("{}", json!(check));
        return Ok(0);
    }
    out!("clock                {}", check.clock);
    out!("timer overhead       {} ns per read", format_significant(check.timer_overhead_ns, 2));
    out!("timer resolution     {} ns (smallest step seen)", check.timer_resolution_ns);
    match &check.noise_floor {
        Some(nf) => out!(
            "noise floor          {}% (canary ×{} back to back: {} – {} ms)",
            format_significant(nf.spread * 100.0, 2),
            nf.runs,
            format_significant(nf.min_ms, 3),
            format_significant(nf.max_ms, 3)
        ),
        None => out!("noise floor          not measured (no canary timing completed)"),
    }
    out!("counters             {}", check.counters);
    out!("placement            {}", check.placement);
    Ok(0)
}

fn parse_warmup(text: &str) -> Result<WarmupPolicy, String> {
    if text.eq_ignore_ascii_case("settle") {
        return Ok(WarmupPolicy::Settle { max: harness::schedule::SETTLE_MAX });
    }
    text.parse::<u32>()
        .map(WarmupPolicy::Count)
        .map_err(|_| format!("'{text}' is neither a number of trials nor 'settle'"))
}

fn parse_kernel(name: &str) -> Result<KernelKind, String> {
    KernelKind::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = KernelKind::ALL.iter().map(|(n, _)| *n).collect();
        format!("no kernel '{name}'; the kernels are {}", names.join(", "))
    })
}
