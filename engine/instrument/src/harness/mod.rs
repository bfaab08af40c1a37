//! The benchmark harness (SPEC E): runs commands and kernels the honest
//! way and returns every trial with its summary and conditions.
//!
//! [`run_bench`] is the synchronous core; [`BenchRunner`] runs it on its own
//! thread behind message channels, which is how the app and the command
//! line use it.

mod bench_runner;
pub mod build_step;
mod inputs;
pub mod metric;
mod output_check;
mod process;
pub mod provenance;
pub mod raw;
mod record;
pub mod scan;
pub mod schedule;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::Serialize;

pub use bench_runner::{BenchEvent, BenchRunner, NotQueued, Progress, Wake};
pub use build_step::{BuildError, BuildStep, Built, KeptSource, UnsplitCommand};
pub use inputs::stated_inputs;
pub use metric::{Metric, MetricError, ReadFigureError, TryOnceError};
pub use output_check::{CheckError, OutputCheck, Printed};
pub use process::{Capture, CommandRunner, CommandTrial, OutputError};
pub use provenance::CommandIdentity;
pub use raw::keep_sources;
pub use record::{RowsAdded, add_rows, add_rows_extending, raw_stem, record, write_raw, write_raw_reserved};
pub use record::{build_condition, result_check};
pub use scan::{Scan, ScanError};

use crate::kernels::{Canary, Kernel, KernelError};
use crate::platform::counters::{self, Counters};
use crate::platform::cpu_time;
use crate::platform::machine::Machine;
use crate::platform::{self, program};
use vernier_model::notebook::{
    CONTROL, Condition, ConditionName, Conditions, Environment, KernelSpec, MetricSpec, OwnFigure, Recipe, TrialCounts,
    WarmupPolicy, Work, canary_value,
};
pub use vernier_model::stats::OrderCheck;
use vernier_model::stats::{self, Agreement, Comparison, NoiseFloor, Spread, Summary, Tail, WarmupCheck};

/// Default timed trials per arm (SPEC E4).
pub const DEFAULT_RUNS: u32 = 31;
/// Default warm-up trials (SPEC E3), also taken when a rerun's original
/// row states none.
pub const DEFAULT_WARMUP_TRIALS: u32 = 3;
/// Default warm-up (SPEC E3): [`DEFAULT_WARMUP_TRIALS`] discarded trials.
pub const DEFAULT_WARMUP: WarmupPolicy = WarmupPolicy::Count(DEFAULT_WARMUP_TRIALS);
/// Canary repetitions at each end of a session (SPEC E7).
const CANARY_REPS: usize = 5;
/// Runs of the bare shell used to state its cost (SPEC E2).
const SHELL_COST_RUNS: usize = 11;

/// What is measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// An external command.
    Command {
        /// Argument vector; never handed to a shell unless `shell`.
        argv: Vec<String>,
        /// Run through the platform's shell, `/bin/sh -c` (`cmd /C` on
        /// Windows); its own cost is then measured and stated.
        shell: bool,
    },
    /// A built-in kernel.
    Kernel(KernelSpec),
}

impl Subject {
    /// The row's `Command`.
    pub fn argv(&self) -> Vec<String> {
        match self {
            Subject::Command { argv, shell: false } => argv.clone(),
            Subject::Command { argv, shell: true } => program::shell_argv(&argv.join(" ")),
            Subject::Kernel(k) => k.argv(),
        }
    }
}

/// A benchmark request.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchSpec {
    /// One subject, two for an interleaved comparison (A then B), or one
    /// per point of a `scan`.
    pub arms: Vec<Subject>,
    /// A parameter scan (SPEC E16): `arms` are its points in
    /// [`Scan::points`] order, the command they were filled from is
    /// `template`.
    pub scan: Option<ScanSpec>,
    /// Read the program's own figure from its output instead of timing its
    /// process (SPEC E17); commands only.
    pub metric: Option<MetricSpec>,
    /// Read each trial's result from its output with this pattern and
    /// compare the arms' results (SPEC S18, `--check REGEX`); commands only.
    pub check: Option<String>,
    /// The fixed inputs as the student states them (SPEC E19, `--inputs`):
    /// kept with each command's row beside what its arguments show.
    pub inputs: Option<String>,
    /// Timed trials per arm; must be odd (SPEC E4).
    pub runs: u32,
    /// Warm-up policy (SPEC E3).
    pub warmup: WarmupPolicy,
    /// Pin the measuring thread (and the commands it starts) to this CPU.
    pub pin: Option<usize>,
    /// Pause before each later block of a comparison (SPEC E6).
    pub cooldown: Option<Duration>,
    /// Per-trial limit for commands; a kernel trial that overruns it ends
    /// the run as timed out once it returns.
    pub timeout: Option<Duration>,
    /// How the commands' program was built, as the student states it
    /// (SPEC N11); a kernel's build is Vernier's own and needs none.
    pub build: Option<String>,
    /// Arm A's and arm B's own build in a comparison of two commands (the
    /// course's -O2 against -O3), each in place of `build` for its arm.
    pub arm_builds: [Option<String>; 2],
    /// What the run (or the comparison) is about, as the student names it.
    pub what: Option<String>,
    /// The arms' labels, A then B (SPEC S11); an arm without one is named
    /// by its command.
    pub labels: [Option<String>; 2],
    /// The run is the control condition, repeated in each session (SPEC
    /// S14): its row says so, and comparisons across sessions weigh their
    /// difference against its drift. One subject only.
    pub control: bool,
    /// The notebook's Environment as stated when the run started, which its
    /// rows keep (SPEC N9); `None`: as stated when they are recorded.
    pub stated: Option<Environment>,
    /// Run the sanity check of arm A's kernel after the trials (SPEC E12),
    /// and keep its verdict and clock estimate with the rows.
    pub sanity: bool,
    /// The build recipe run just before measuring (SPEC N15): of every
    /// arm, or of each arm without its own in `arm_recipes`.
    pub recipe: Option<BuildStep>,
    /// Arm A's and arm B's own recipe in a comparison (`--build-cmd-a`,
    /// `--build-cmd-b`).
    pub arm_recipes: [Option<BuildStep>; 2],
    /// The project's folder, where the recipe and the trials run; `None`:
    /// the current folder. A rebuild's scratch folder (SPEC R5).
    pub folder: Option<std::path::PathBuf>,
    /// A foreign run (SPEC N13, R5): every command it starts may write
    /// only inside `folder` — or, without one, a scratch folder made for
    /// the run and removed after it — where this OS can confine it
    /// ([`platform::confine`]); `TMPDIR` points there, and rustup's
    /// toolchain is the user's default, never one a file there names.
    pub confined: bool,
    /// The budget each timed trial should meet, in seconds, as the student
    /// states it for the run (SPEC S19): each row then keeps how many of
    /// its trials missed it and its 95th percentile. Only for rows whose
    /// unit is a time: a run that states one in another unit is refused.
    pub budget: Option<f64>,
    /// The notebook's trial budget, in seconds, for a run that states none
    /// (SPEC S19): held by the rows whose unit is a time, and passed over
    /// by the others (a kernel's ns/access cannot miss it) without refusing
    /// the run.
    pub notebook_budget: Option<f64>,
}

impl BenchSpec {
    /// A spec with the defaults (31 runs, warm-up 3) for these subjects.
    pub fn new(arms: Vec<Subject>) -> Self {
        Self {
            arms,
            scan: None,
            metric: None,
            check: None,
            inputs: None,
            runs: DEFAULT_RUNS,
            warmup: DEFAULT_WARMUP,
            pin: None,
            cooldown: None,
            timeout: None,
            build: None,
            arm_builds: [None, None],
            what: None,
            labels: [None, None],
            control: false,
            stated: None,
            sanity: false,
            recipe: None,
            arm_recipes: [None, None],
            folder: None,
            confined: false,
            budget: None,
            notebook_budget: None,
        }
    }

    /// Arm `arm`'s build recipe: its own, else the session's (SPEC N15).
    pub fn recipe_of(&self, arm: usize) -> Option<&BuildStep> {
        self.arm_recipes.get(arm).and_then(Option::as_ref).or(self.recipe.as_ref())
    }

    /// A scan of `template` over `scan`'s points (SPEC E16): one arm per
    /// point, the command filled in with its values.
    pub fn scanning(template: Vec<String>, shell: bool, scan: Scan) -> Self {
        let arms = scan.points().iter().map(|p| Subject::Command { argv: scan.fill(&template, p), shell }).collect();
        Self { scan: Some(ScanSpec { template, scan }), ..Self::new(arms) }
    }

    /// A scan of a built-in kernel (SPEC E16): its command, `vernier bench
    /// --kernel NAME --size {SIZE}`, is the template, a placeholder in its
    /// size (or tile), and each point is the kernel at those values — the
    /// same rotated order, rows and sweep as a command's scan. Refused when
    /// a point's value is not the whole number the kernel takes.
    pub fn scanning_kernel(
        kind: vernier_model::notebook::KernelKind,
        size: Option<&str>,
        tile: Option<&str>,
        params: Vec<vernier_model::notebook::Param>,
    ) -> Result<Self, ScanError> {
        let mut template = vec!["vernier".to_owned(), "bench".into(), "--kernel".into(), kind.name().into()];
        for (option, value) in [("--size", size), ("--tile", tile)] {
            if let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) {
                template.extend([option.to_owned(), value.to_owned()]);
            }
        }
        // A kernel's placeholders go in its options, not in a command the user wrote.
        let scan = Scan::new(params, &template).map_err(|why| match why {
            ScanError::Unused { name, placeholder, .. } => {
                ScanError::Unused { name, placeholder, place: "--size or --tile" }
            }
            other => other,
        })?;
        let arms = scan
            .points()
            .iter()
            .map(|point| {
                KernelSpec::from_argv(&scan.fill(&template, point))
                    .map(Subject::Kernel)
                    .ok_or_else(|| ScanError::NotWhole(scan.label(point)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { scan: Some(ScanSpec { template, scan }), ..Self::new(arms) })
    }

    /// The order trials are taken in.
    pub fn plan(&self) -> schedule::TrialPlan {
        schedule::TrialPlan {
            arms: self.arms.len(),
            rotate: self.scan.is_some(),
            runs: self.runs,
            warmup: self.warmup,
            cooldown: self.cooldown,
        }
    }
}

/// A scan and the command its points fill in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanSpec {
    /// The command with `{NAME}` where each value goes.
    pub template: Vec<String>,
    /// The parameters.
    pub scan: Scan,
}

/// How one trial ended (recorded per trial: SPEC E10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TrialStatus {
    /// Success.
    Ok,
    /// Non-zero exit code.
    Exit(i32),
    /// Killed by a signal.
    Signal(i32),
    /// Overran the per-trial timeout and was killed.
    Timeout,
    /// Stopped by the user.
    Cancelled,
    /// A kernel's result failed verification.
    WrongResult,
    /// The program's output lacked the figure to read (SPEC E17).
    NoFigure,
    /// The program printed more than the captured output's cap and was
    /// stopped (SPEC E17).
    TooMuchOutput,
}

impl std::fmt::Display for TrialStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrialStatus::Ok => f.write_str("0"),
            TrialStatus::Exit(c) => write!(f, "exit {c}"),
            TrialStatus::Signal(s) => write!(f, "signal {s}"),
            TrialStatus::Timeout => f.write_str("timeout"),
            TrialStatus::Cancelled => f.write_str("cancelled"),
            TrialStatus::WrongResult => f.write_str("wrong result"),
            TrialStatus::NoFigure => f.write_str("no figure"),
            TrialStatus::TooMuchOutput => f.write_str("too much output"),
        }
    }
}

/// One trial, as written to the raw file (SPEC N6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TrialRecord {
    /// Position in the whole session, from 0.
    pub index: u32,
    /// 0 for A, 1 for B.
    pub arm: usize,
    /// Position within its interleaved pair (1 or 2; always 1 for one arm).
    pub position: u32,
    /// A warm-up trial, not part of the summary.
    pub warmup: bool,
    /// Wall time in nanoseconds.
    pub ns: u64,
    /// How it ended.
    pub status: TrialStatus,
    /// What its processes did besides taking time (SPEC E13).
    pub work: TrialWork,
}

/// What one trial's processes did besides taking wall time (SPEC E13):
/// each figure `None` where it was not measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct TrialWork {
    /// CPU time, user plus system, nanoseconds ([`platform::cpu_time`]).
    pub cpu_ns: Option<u64>,
    /// CPU cycles in user space ([`platform::counters`]).
    pub cycles: Option<u64>,
    /// Instructions retired in user space.
    pub instructions: Option<u64>,
    /// The CPU it ran on (its thread's at the end, or where its process
    /// last ran), when the OS says (SPEC E19, [`platform::cpu_seen`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
}

/// One arm's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArmResult {
    /// `A` or `B`.
    pub label: String,
    /// The row's `What`.
    pub what: String,
    /// The row's `Command`.
    pub command: Vec<String>,
    /// Unit of `timed` and the summary: `s`, `ns/access` or `ms`.
    pub unit: String,
    /// Nanoseconds per one `unit`.
    pub ns_per_unit: f64,
    /// Warm-up trials taken.
    pub warmup_trials: u32,
    /// Timed trials in `unit`, in order.
    pub timed: Vec<f64>,
    /// Their summary; `None` when no timed trial succeeded.
    pub summary: Option<Summary>,
    /// Last verified checksum of a kernel.
    pub checksum: Option<String>,
    /// The result its trials computed, as its rows keep it (SPEC S18): a
    /// kernel's checksum verified after every trial, or what `--check`
    /// read from every trial's output, or where the trials disagreed.
    pub result_check: Option<String>,
    /// Its fixed inputs (SPEC E19): a kernel's own, or what a command's
    /// arguments and the student's statement say.
    pub inputs: Option<String>,
    /// The first timed trial against the rest (SPEC S9, S18): always after
    /// no warm-up; after a warm-up only when the first still stands out, so
    /// the warm-up was too short (see [`first_trial_check`]).
    pub first_trial_check: Option<WarmupCheck>,
    /// The CPUs its timed trials ran on, where the OS told (SPEC E19).
    pub trial_cpus: Option<stats::TrialCpus>,
    /// The program a command arm ran, identified as it started (SPEC N11);
    /// `None` for a kernel.
    pub provenance: Option<CommandIdentity>,
    /// The arm's trials are the program's own figure (SPEC E17).
    pub figure: Option<OwnFigure>,
    /// A sweep's point: each parameter's value (SPEC E16).
    pub point: Option<Vec<String>>,
    /// What the timed trials did besides taking time (SPEC E13).
    pub work: Option<Work>,
    /// The timed trials against the session's budget (SPEC S19), when one
    /// was stated.
    pub tail: Option<Tail>,
}

impl ArmResult {
    /// What the trials' CPU time and cycles say of their wall time (SPEC
    /// E13, C.6); a row of the program's own figure is not a wall time, so
    /// only its waiting is read.
    pub fn work_findings(&self) -> Vec<String> {
        let wall = self.summary.as_ref().filter(|_| self.figure.is_none());
        self.work.as_ref().map(|w| w.findings(wall)).unwrap_or_default()
    }
}

/// The canary bracket (SPEC E7).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CanaryBracket {
    /// Median canary time at the start, ms.
    pub start_ms: f64,
    /// Median canary time at the end, ms.
    pub end_ms: f64,
    /// end / start: above 1 the machine slowed down during the session.
    pub ratio: f64,
}

/// Everything a benchmark produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchResult {
    /// When the session started.
    pub started_at: DateTime<Utc>,
    /// Per arm.
    pub arms: Vec<ArmResult>,
    /// Every trial, warm-up included.
    pub trials: Vec<TrialRecord>,
    /// Each trial's figures when the program's own were read (SPEC E17):
    /// `figures[i]` are trial `i`'s.
    #[serde(skip)]
    pub figures: Option<Vec<Vec<f64>>>,
    /// The scan, when the session was one (SPEC E16).
    #[serde(skip)]
    pub scan: Option<ScanSpec>,
    /// Warm-up policy used.
    #[serde(skip)]
    pub warmup: WarmupPolicy,
    /// B against A (S7), for two arms.
    pub comparison: Option<Comparison>,
    /// The two orders compared, for two arms.
    pub order: Option<OrderCheck>,
    /// The thermal canary around the session.
    pub canary: Option<CanaryBracket>,
    /// The instrument's noise floor, from the canary's opening timings
    /// (SPEC E11, E18), kept with every row of the session.
    pub noise_floor: Option<NoiseFloor>,
    /// "pinned to CPU n", or why not.
    pub placement: String,
    /// What happens to a command trial's descendants on this platform
    /// (SPEC E15); `None` when only kernels ran.
    pub process_cleanup: Option<String>,
    /// A foreign run's confinement, or why it is not confined here (SPEC
    /// N13); `None` for a run that was not asked to be.
    pub confinement: Option<String>,
    /// Median cost of the bare shell in seconds, when `--shell` was used.
    pub shell_cost_s: Option<f64>,
    /// Cool-down used between blocks, seconds.
    pub cooldown_s: Option<f64>,
    /// The machine's conditions at the start.
    pub machine: Machine,
    /// The commands' build as stated (SPEC N11).
    pub build: Option<String>,
    /// Each arm's own build, when a comparison gave one (see
    /// [`BenchSpec::arm_builds`] and [`BenchResult::build_of`]).
    pub arm_builds: [Option<String>; 2],
    /// What the session is about, as named (`--what`).
    pub what: Option<String>,
    /// Each arm's label: the one given, or its command (SPEC S11).
    pub labels: Vec<String>,
    /// SPEC S11: B/A of adjacent trials, for two arms.
    pub paired: Option<Summary>,
    /// The run is the control condition (SPEC S14).
    pub control: bool,
    /// The Environment as stated when the run started (SPEC N9).
    #[serde(skip)]
    pub stated: Option<Environment>,
    /// Why the run ended early, if it did; what was measured is kept.
    pub failure: Option<String>,
    /// What the window's own threads cost during a run started from it,
    /// and where they were kept (SPEC E15); `None` from the command line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_cpu: Option<String>,
    /// The sanity check asked for (SPEC E12), or why it could not run.
    #[serde(skip)]
    pub sanity: Option<Result<crate::self_check::Sanity, String>>,
    /// Each arm's build recipe as it ran (SPEC N15); `None` for an arm
    /// without one.
    pub recipes: Vec<Option<Recipe>>,
    /// The sources the recipes read, to keep in `raw/`: `(name there, bytes)`.
    #[serde(skip)]
    pub kept_sources: Vec<KeptSource>,
}

impl BenchResult {
    /// SPEC S18: whether a comparison's two arms computed the same result,
    /// where both kept one; the verdict has already taken the claim away
    /// where they did not.
    pub fn agreement(&self) -> Option<Agreement> {
        match (self.arms.as_slice(), self.labels.as_slice()) {
            ([a, b], [la, lb]) if self.scan.is_none() => agreement(a, b, (la, lb)),
            _ => None,
        }
    }

    /// What the session was, so a comparison's advice fits it (SPEC S17).
    pub fn facts(&self) -> vernier_model::stats::Facts {
        let summaries = || self.arms.iter().filter_map(|a| a.summary.as_ref());
        vernier_model::stats::Facts {
            pinned: self.placement.starts_with(vernier_model::notebook::PINNED_TO),
            trials: summaries().map(|s| s.n).min().unwrap_or(0),
            imported: false,
            noisy: summaries().any(Summary::is_noisy),
        }
    }

    /// Arm `arm`'s build as stated: its own, else the session's (SPEC N11).
    pub fn build_of(&self, arm: usize) -> Option<&str> {
        self.arm_builds.get(arm).and_then(Option::as_deref).or(self.build.as_deref())
    }

    /// True when the arms were given builds of their own: an arm without
    /// one then takes none from the Environment, whose one build cannot
    /// be both arms'.
    pub fn builds_per_arm(&self) -> bool {
        self.arm_builds.iter().any(Option::is_some)
    }

    /// The conditions written beside every row of this session. Vernier's
    /// own toolchain is the build only of its kernels (SPEC N11): a session
    /// of commands states the build it was given instead.
    pub fn conditions(&self) -> Vec<Condition> {
        let kernels = self.arms.iter().any(|a| a.provenance.is_none());
        let mut rows = self.machine.conditions();
        rows.retain(|c| kernels || c.name() != Some(ConditionName::Compiler));
        let mut add = |name: ConditionName, value: String| rows.push(Condition::new(name, value));
        if self.control {
            add(ConditionName::Control, CONTROL.to_owned());
        }
        add(ConditionName::WarmupPolicy, self.warmup.to_string());
        add(ConditionName::PlacementUsed, self.placement.clone());
        let instrument = match self.arms.iter().find_map(|a| a.figure.as_ref()) {
            Some(own) => own.spec.describe(),
            None => format!("Vernier harness, {} wall time per trial", platform::INSTANT_CLOCK),
        };
        add(ConditionName::Instrument, instrument);
        if let Some(cleanup) = &self.process_cleanup {
            add(ConditionName::ProcessCleanup, cleanup.clone());
        }
        if let Some(confinement) = &self.confinement {
            add(ConditionName::Confinement, confinement.clone());
        }
        if let Some(c) = &self.canary {
            add(ConditionName::Canary, canary_value(c.ratio, c.start_ms, c.end_ms));
        }
        if let Some(cost) = self.shell_cost_s {
            add(
                ConditionName::ShellCost,
                format!("{cost:.6} s per trial (median of {SHELL_COST_RUNS} runs of {} '')", program::SHELL.join(" ")),
            );
        }
        if let Some(cooldown) = self.cooldown_s {
            add(ConditionName::CoolDown, format!("{cooldown}{COOLDOWN_TEXT}"));
        }
        if let Some(order) = &self.order {
            add(ConditionName::OrderCheck, order.describe());
        }
        if let Some(window) = &self.window_cpu {
            add(ConditionName::WindowCpu, window.clone());
        }
        match &self.sanity {
            Some(Ok(sanity)) => add(ConditionName::SanityCheck, sanity.describe().join("; ")),
            Some(Err(why)) => add(ConditionName::SanityCheck, format!("asked for, not run: {why}")),
            None => {}
        }
        rows
    }
}

/// What follows the seconds in a row's `cool-down` condition.
const COOLDOWN_TEXT: &str = " s before the reversed block, then settle";

/// The cool-down a row's conditions state, read back exactly as
/// [`BenchResult::conditions`] writes it, so a rerun repeats it (S10).
pub fn recorded_cooldown(conditions: &[Condition]) -> Option<Duration> {
    let seconds: f64 = conditions.value_of(ConditionName::CoolDown)?.strip_suffix(COOLDOWN_TEXT)?.parse().ok()?;
    Duration::try_from_secs_f64(seconds).ok().filter(|d| !d.is_zero())
}

/// Why a benchmark could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The request itself is wrong (no arms, a sanity check without a kernel …).
    #[error("{0}")]
    Invalid(String),
    /// The request breaks a rule every face checks (an even `-n` …).
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The program does not exist or cannot be executed.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// The build recipe failed, or what it built cannot be measured (SPEC N15).
    #[error(transparent)]
    Build(#[from] build_step::BuildError),
    /// A kernel's parameters are wrong.
    #[error("kernel: {0}")]
    Kernel(#[from] KernelError),
    /// The metric cannot be compiled.
    #[error(transparent)]
    Metric(#[from] MetricError),
    /// The `--check` pattern cannot be compiled.
    #[error(transparent)]
    Check(#[from] CheckError),
    /// The harness could not start a thread.
    #[error("cannot start the harness: {0}")]
    Io(#[from] std::io::Error),
}

/// A program that could not be started (every face says it the same way).
#[derive(Debug, thiserror::Error)]
#[error("cannot run '{program}': {source}")]
pub struct SpawnError {
    /// The program as given.
    pub program: String,
    /// What the OS said.
    #[source]
    pub source: std::io::Error,
}

/// Why a trial could not even be taken (one that ran and failed has a
/// [`TrialStatus`] instead).
#[derive(Debug, thiserror::Error)]
pub enum TrialError {
    /// The arm is not the kind of subject asked for (a fault of the harness).
    #[error("not a {0}")]
    WrongArm(&'static str),
    /// The program could not be started.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// A built-in kernel failed other than by a wrong result.
    #[error(transparent)]
    Kernel(#[from] KernelError),
}

/// A subject ready to be timed.
enum Prepared {
    Command { argv: Vec<String> },
    Kernel(Box<dyn Kernel>),
}

/// The real [`schedule::Executor`]: commands through the runner, kernels in
/// this thread.
struct Live<'a> {
    arms: Vec<Prepared>,
    checksums: Vec<Option<String>>,
    runner: &'a CommandRunner,
    timeout: Option<Duration>,
    cancel: &'a AtomicBool,
    /// Trials started so far: the next one's index in the raw file.
    taken: u32,
    /// (trial index, how many) for each trial after which descendants
    /// that had left its group were killed (SPEC E15).
    strays: Vec<(u32, usize)>,
    /// The program's own figure (SPEC E17).
    own: Option<metric::Metric>,
    /// Where a command's output goes, when its figure or its result is read.
    capture: Option<Capture>,
    /// The pattern that reads each trial's result (SPEC S18), and what
    /// each arm's trials printed.
    check: Option<(OutputCheck, Vec<Printed>)>,
    /// Each trial's figures, when `own` reads them.
    figures: Vec<Vec<f64>>,
    /// The last failed trial's command and why it has no figure, or the
    /// end of its output (SPEC E17).
    output_note: Option<String>,
    /// Cycles and instructions, counted on this thread and inherited by
    /// every trial's processes (SPEC E13); `None` where they cannot be.
    counters: Option<Counters>,
    /// What the counts are, or why there are none.
    counted: String,
}

/// One trial as it ran: wall time, how it ended, CPU time and the CPU it
/// ran on (each `None` where the OS does not say).
type Ran = (u64, TrialStatus, Option<u64>, Option<u32>);

impl Live<'_> {
    /// One trial of a command: its wall time, how it ended and the CPU time
    /// its process used; its figures are read after the clock stopped.
    fn command_trial(&mut self, arm: usize, index: u32) -> Result<Ran, TrialError> {
        let Prepared::Command { argv } = &self.arms[arm] else { return Err(TrialError::WrongArm("command")) };
        let cannot = |source| SpawnError { program: argv[0].clone(), source };
        let t = match &mut self.capture {
            Some(capture) => self.runner.run_capturing(argv, self.timeout, capture).map_err(cannot)?,
            None => self.runner.run(argv, self.timeout).map_err(cannot)?,
        };
        if t.strays > 0 {
            self.strays.push((index, t.strays));
        }
        let Some(capture) = &mut self.capture else { return Ok((t.ns, t.status, t.cpu_ns, t.cpu)) };
        // Read after the clock stopped: parsing is not the program's time.
        let output = capture.text();
        // SPEC S18: the result this trial printed, beside its arm's others.
        if let Some((check, printed)) = &mut self.check {
            let result = match &output {
                Ok(text) => check.read(text).ok_or_else(|| "has no match for --check".to_owned()),
                Err(why) => Err(format!("could not be read: {why}")),
            };
            printed[arm].see(index, result);
        }
        let Some(metric) = &self.own else { return Ok((t.ns, t.status, t.cpu_ns, t.cpu)) };
        // Only its text is kept, in the row's note.
        let figures = match &output {
            Ok(text) => metric.read(text).map_err(|why| why.to_string()),
            Err(why) => Err(why.to_string()),
        };
        let command = vernier_model::display::quote_argv(argv);
        let (figures, status) = match (figures, t.status) {
            (Ok(figures), status) => (figures, status),
            (Err(why), TrialStatus::Ok) => {
                self.output_note = Some(format!("`{command}`: {why}"));
                (Vec::new(), TrialStatus::NoFigure)
            }
            // A trial that failed anyway is named by how it ended,
            // with what it printed last (its own reason, often).
            (Err(_), status) => {
                let ended = output.map_or_else(
                    |why| why.to_string(),
                    |text| format!("its output ended with: {}", metric::tail(&text)),
                );
                self.output_note = Some(format!("`{command}`: {ended}"));
                (Vec::new(), status)
            }
        };
        self.figures.push(figures);
        Ok((t.ns, status, t.cpu_ns, t.cpu))
    }

    /// One call of a built-in kernel on this thread, and the thread's CPU
    /// time during it.
    fn kernel_trial(&mut self, arm: usize) -> Result<Ran, TrialError> {
        let Prepared::Kernel(kernel) = &mut self.arms[arm] else { return Err(TrialError::WrongArm("kernel")) };
        let cpu_before = cpu_time::this_thread_ns();
        let start = Instant::now();
        let ran = kernel.run_once(self.cancel);
        let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let cpu_ns = cpu_time::this_thread_ns().zip(cpu_before).map(|(after, before)| after.saturating_sub(before));
        let cpu = platform::cpu_seen::this_thread();
        match ran {
            Err(KernelError::Cancelled) => return Ok((ns, TrialStatus::Cancelled, cpu_ns, cpu)),
            Err(e) => return Err(e.into()),
            Ok(()) => {}
        }
        // Verified after every timed call, outside the timed interval.
        match kernel.verify() {
            Ok(sum) => self.checksums[arm] = Some(sum),
            Err(_) => return Ok((ns, TrialStatus::WrongResult, cpu_ns, cpu)),
        }
        let late = self.timeout.is_some_and(|t| Duration::from_nanos(ns) > t);
        Ok((ns, if late { TrialStatus::Timeout } else { TrialStatus::Ok }, cpu_ns, cpu))
    }

    /// The counters now, if they are open. A counter that cannot be read
    /// is closed for the rest of the run, and the row says after which
    /// trial; the trials go on (SPEC E13).
    fn count(&mut self, index: u32) -> Option<counters::CounterReading> {
        match self.counters.as_mut()?.read() {
            Ok(reading) => Some(reading),
            Err(why) => {
                self.counters = None;
                self.counted = format!("{}; stopped at trial {index}: {why}", self.counted);
                None
            }
        }
    }
}

impl schedule::Executor for Live<'_> {
    fn trial(&mut self, arm: usize) -> Result<schedule::Timed, TrialError> {
        let index = self.taken;
        self.taken += 1;
        let before = self.count(index);
        let (ns, status, cpu_ns, cpu) = match &self.arms[arm] {
            Prepared::Command { .. } => self.command_trial(arm, index)?,
            Prepared::Kernel(_) => self.kernel_trial(arm)?,
        };
        let counts = before.zip(self.count(index)).and_then(|(before, after)| before.until(&after));
        let work = TrialWork { cpu_ns, cycles: counts.map(|c| c.0), instructions: counts.map(|c| c.1), cpu };
        Ok(schedule::Timed { ns, status, work })
    }

    fn settle_value(&self, ns: u64) -> f64 {
        match self.figures.last() {
            Some(figures) if self.own.is_some() && !figures.is_empty() => {
                figures.iter().sum::<f64>() / figures.len() as f64
            }
            _ => ns as f64,
        }
    }

    fn pause(&mut self, duration: Duration) -> bool {
        let end = Instant::now() + duration;
        while Instant::now() < end {
            if self.cancel.load(Ordering::Relaxed) {
                return false;
            }
            std::thread::sleep((end - Instant::now()).min(Duration::from_millis(20)));
        }
        !self.cancel.load(Ordering::Relaxed)
    }
}

/// The names of the threads a benchmark runs on: the measuring thread and
/// the watchdog it starts. They follow the run's placement; every other
/// thread of a window's process is kept off a pinned run's CPU (SPEC E15).
pub(crate) const RUN_THREADS: &[&str] = &[BENCH_THREAD, process::WATCHDOG_THREAD, platform::confine::CONFINED_THREAD];

/// The thread the [`BenchRunner`] runs each benchmark on.
pub(crate) const BENCH_THREAD: &str = "vernier-bench";

/// Who started a benchmark: the window's threads are moved and counted
/// around it (SPEC E15); the command line has no window to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caller {
    /// `vernier bench` and the other commands.
    CommandLine,
    /// The window.
    Window,
}

/// Runs a benchmark on the calling thread. `on_trial` sees every trial as
/// it completes; `cancel` stops it within 100 ms.
///
/// Pinning applies to the calling thread for the rest of its life, so the
/// [`BenchRunner`] runs each benchmark on a fresh thread.
pub fn run_bench(
    spec: &BenchSpec,
    cancel: &Arc<AtomicBool>,
    on_trial: &mut dyn FnMut(&TrialRecord),
) -> Result<BenchResult, BenchError> {
    run_bench_for(spec, cancel, on_trial, &mut |_| {}, Caller::CommandLine)
}

/// [`run_bench`] for `face`: from the window, the process's other threads'
/// CPU time is counted from this thread's first step to its last, and once
/// it is pinned they are kept off its CPU (SPEC E15).
pub(crate) fn run_bench_for(
    spec: &BenchSpec,
    cancel: &Arc<AtomicBool>,
    on_trial: &mut dyn FnMut(&TrialRecord),
    on_built: &mut dyn FnMut(&str),
    face: Caller,
) -> Result<BenchResult, BenchError> {
    validate(spec)?;
    // Started before anything else this thread does, and ended after its
    // last step, so the row counts the window over the whole span an
    // outside reader sees the run's thread live (issue 34).
    let mut window = (face == Caller::Window).then(|| platform::own_threads::Watch::start(RUN_THREADS));
    let started_at = Utc::now();
    let machine = Machine::read();
    let placement = platform::pinning::pin(spec.pin);
    if let Some(window) = &mut window {
        window.keep_off(platform::pinning::pinned_cpu(&placement));
    }
    let runner = CommandRunner::new(Arc::clone(cancel))?.in_folder(spec.folder.clone());
    // Removed when the run ends, whatever way it ends.
    let (runner, confinement, _scratch) = confine(runner, spec)?;
    // SPEC N15: the build heats the machine, so it runs before the canary
    // and the warm-up, never between trials.
    let (recipes, kept_sources) = build_recipes(spec, &runner, on_built)?;
    let prepared = spec.arms.iter().map(prepare).collect::<Result<Vec<_>, _>>()?;
    check_budget(spec, &prepared)?;
    // A sweep's points share their program: hashed and asked once.
    let mut hashes = provenance::Hashes::default();
    let provenance: Vec<Option<CommandIdentity>> = spec
        .arms
        .iter()
        .map(|subject| match subject {
            // What really runs: with `--shell`, the shell and its text.
            Subject::Command { .. } => Some(CommandIdentity::of_running(&subject.argv(), &mut hashes)),
            Subject::Kernel(_) => None,
        })
        .collect();
    // The program about to be measured is the one the build wrote.
    for (recipe, found) in recipes.iter().zip(&provenance) {
        if let (Some(recipe), Some(found)) = (recipe, found)
            && provenance::recorded_sha256(&found.program) != Some(recipe.program_sha256.as_str())
        {
            return Err(BenchError::Build(build_step::BuildError::Program(format!(
                "the program measured, {}, is not the one the build wrote ({}, SHA-256 {})",
                found.program, recipe.program, recipe.program_sha256
            ))));
        }
    }
    let shell_cost_s = if spec.arms.iter().any(|a| matches!(a, Subject::Command { shell: true, .. })) {
        shell_cost(&runner)
    } else {
        None
    };

    let mut canary = Canary::new();
    // SPEC E7, E11, E18: the opening canary is the noise floor's body,
    // timed back to back; its median opens the canary bracket.
    let opening = crate::self_check::canary_times(&mut canary, cancel, crate::self_check::NOISE_RUNS);
    let whole = opening.len() == crate::self_check::NOISE_RUNS;
    let canary_start = Summary::of(&opening).ok().filter(|_| whole).map(|s| s.median);
    let noise_floor = NoiseFloor::of(&opening).filter(|_| whole);
    let arms = prepared.len();
    let own = spec.metric.as_ref().map(Metric::compile).transpose()?;
    let check = spec.check.as_deref().map(OutputCheck::compile).transpose()?;
    let capture = if own.is_some() || check.is_some() { Some(Capture::new()?) } else { None };
    // Opened last, after every thread of the run has started, so that only
    // this thread and the trials' processes count into them.
    let (counters, counted) = match Counters::open(counters::Events::Hardware) {
        Ok(open) => (Some(open), counters::COUNTED.to_owned()),
        Err(why) => (None, why.to_string()),
    };
    let mut live = Live {
        arms: prepared,
        checksums: vec![None; arms],
        runner: &runner,
        timeout: spec.timeout,
        cancel,
        taken: 0,
        strays: Vec::new(),
        own,
        capture,
        check: check.map(|c| (c, vec![Printed::default(); arms])),
        figures: Vec::new(),
        output_note: None,
        counters,
        counted,
    };
    let outcome = schedule::run(&mut live, &spec.plan(), on_trial);
    let canary_end = if outcome.stopped.is_none() { time_canary(&mut canary, cancel) } else { None };
    // SPEC E12: right after the trials, while the machine is as warm.
    let sanity = match spec.arms.first() {
        Some(Subject::Kernel(kernel)) if spec.sanity && outcome.stopped.is_none() => {
            Some(crate::self_check::sanity(kernel).map_err(|e| e.to_string()))
        }
        _ => None,
    };

    let points = spec.scan.as_ref().map(|s| s.scan.points()).unwrap_or_default();
    let mut arm_results: Vec<ArmResult> = spec
        .arms
        .iter()
        .zip(provenance)
        .enumerate()
        .map(|(i, (subject, provenance))| {
            let arm = arm_result(i, subject, provenance, &live, &outcome.trials, spec.inputs.as_deref());
            // SPEC S19: the budget in the arm's unit (a time; checked before the run).
            let budget =
                spec.budget.or(spec.notebook_budget).and_then(|b| Some(b * stats::units::time_factor("s", &arm.unit)?));
            ArmResult { point: points.get(i).cloned(), tail: budget.and_then(|b| Tail::of(&arm.timed, b)), ..arm }
        })
        .collect();
    let labels = name_arms(&mut arm_results, spec);
    let (comparison, order, paired) = match (arm_results.as_slice(), labels.as_slice()) {
        ([a, b], [la, lb]) if spec.scan.is_none() => (
            compare_arms(a, b, (la, lb), noise_floor.as_ref()),
            order_check(&outcome.trials, a, b, &live),
            stats::paired_ratios(&a.timed, &b.timed),
        ),
        _ => (None, None, None),
    };
    let failure = outcome.stopped.map(|stop| describe_stop(&stop, spec, &outcome.trials, live.output_note.as_deref()));
    let mut result = BenchResult {
        started_at,
        arms: arm_results,
        trials: outcome.trials,
        figures: live.own.is_some().then_some(live.figures),
        scan: spec.scan.clone(),
        warmup: spec.warmup,
        comparison,
        order,
        canary: canary_start.zip(canary_end).map(|(start_ms, end_ms)| CanaryBracket {
            start_ms,
            end_ms,
            ratio: end_ms / start_ms,
        }),
        noise_floor,
        placement,
        process_cleanup: spec
            .arms
            .iter()
            .any(|a| matches!(a, Subject::Command { .. }))
            .then(|| process_cleanup(runner.reach(), &live.strays)),
        confinement,
        shell_cost_s,
        cooldown_s: spec.cooldown.map(|d| d.as_secs_f64()),
        machine,
        // SPEC N11, N15: a recipe is the build, exactly as it ran, with its
        // compiler's version.
        build: spec.build.clone().or_else(|| {
            let session = (0..spec.arms.len())
                .find(|&i| spec.recipe.is_some() && spec.arm_recipes.get(i).is_none_or(Option::is_none));
            session.and_then(|i| recipes.get(i)?.as_ref().map(Recipe::build_text))
        }),
        arm_builds: [0, 1].map(|i| {
            let own = spec.arm_recipes[i].as_ref().and(recipes.get(i)).and_then(Option::as_ref);
            spec.arm_builds[i].clone().or_else(|| own.map(Recipe::build_text))
        }),
        what: spec.what.clone(),
        labels,
        paired,
        control: spec.control,
        stated: spec.stated.clone(),
        failure,
        window_cpu: None,
        sanity,
        recipes,
        kept_sources,
    };
    // The watchdog's time is read before the runner ends it, so that it is
    // counted as the run's; then the runner's ending (the watchdog joined,
    // the trials' guardian waited for) is inside the watch too.
    if let Some(window) = &mut window {
        window.helpers_ending();
    }
    drop(runner);
    result.window_cpu = window.map(|w| w.finish().describe());
    Ok(result)
}

/// The runner of a foreign run (`spec.confined`, SPEC N13, R5), its writes
/// confined to the run's folder — a scratch folder made for it when the
/// spec names none, returned so that it lives as long as the run — with
/// `TMPDIR` there and rustup's toolchain pinned to the user's default; and
/// the row's sentence saying so, or why it is not confined here.
fn confine(
    runner: CommandRunner,
    spec: &BenchSpec,
) -> std::io::Result<(CommandRunner, Option<String>, Option<tempfile::TempDir>)> {
    if !spec.confined {
        return Ok((runner, None, None));
    }
    let (folder, scratch) = match &spec.folder {
        Some(folder) => (folder.clone(), None),
        None => {
            let scratch = tempfile::Builder::new().prefix("vernier-rerun-").tempdir()?;
            (scratch.path().to_path_buf(), Some(scratch))
        }
    };
    let mut env = vec![("TMPDIR".to_owned(), folder.clone().into_os_string())];
    env.extend(program::pinned_toolchain());
    let (runner, said) = match platform::confine::Confinement::to(&folder) {
        Ok(confinement) => {
            let said = confinement.describe();
            (runner.confined(confinement, env), said)
        }
        Err(why) => (runner.confined_env(env), why.to_string()),
    };
    Ok((runner, Some(said), scratch))
}

/// Runs each distinct recipe of `spec` once, in its folder, before
/// anything is measured (SPEC N15): each arm's recipe as it ran, and every
/// source to keep. `on_built` is told what each build did.
fn build_recipes(
    spec: &BenchSpec,
    runner: &CommandRunner,
    on_built: &mut dyn FnMut(&str),
) -> Result<(Vec<Option<Recipe>>, Vec<KeptSource>), BenchError> {
    let mut steps: Vec<(&BuildStep, Vec<usize>)> = Vec::new();
    for arm in 0..spec.arms.len() {
        let Some(step) = spec.recipe_of(arm) else { continue };
        match steps.iter_mut().find(|(s, _)| *s == step) {
            Some((_, arms)) => arms.push(arm),
            None => steps.push((step, vec![arm])),
        }
    }
    let mut recipes = vec![None; spec.arms.len()];
    let mut kept: Vec<KeptSource> = Vec::new();
    if steps.is_empty() {
        return Ok((recipes, kept));
    }
    let folder = match &spec.folder {
        Some(folder) => folder.clone(),
        None => std::env::current_dir()?,
    };
    for (step, arms) in steps {
        let measured: Vec<&str> = arms
            .iter()
            .filter_map(|&i| match &spec.arms[i] {
                Subject::Command { argv, .. } => argv.first().map(String::as_str),
                Subject::Kernel(_) => None,
            })
            .collect();
        let built = build_step::run(step, &folder, &measured, runner)?;
        on_built(&built.report);
        for arm in arms {
            recipes[arm] = Some(built.recipe.clone());
        }
        for source in built.kept {
            if !kept.iter().any(|(name, _)| *name == source.0) {
                kept.push(source);
            }
        }
    }
    Ok((recipes, kept))
}

/// How many descendants at most are named trial by trial in the "process
/// cleanup" condition; beyond, the rest are summed up.
const STRAY_TRIALS_NAMED: usize = 5;

/// SPEC E15: what reaches a trial's descendants here, and every trial
/// after which some that had left its group were still running and were
/// killed — a daemon left behind is part of what the command did.
fn process_cleanup(reach: &str, strays: &[(u32, usize)]) -> String {
    let mut text = reach.to_owned();
    for &(trial, count) in strays.iter().take(STRAY_TRIALS_NAMED) {
        let what = if count == 1 {
            "1 process that left the trial's group was".to_owned()
        } else {
            format!("{count} processes that left the trial's group were")
        };
        text.push_str(&format!("; {what} killed after trial {trial}"));
    }
    if let Some(rest) = strays.get(STRAY_TRIALS_NAMED..).filter(|r| !r.is_empty()) {
        let count: usize = rest.iter().map(|&(_, n)| n).sum();
        text.push_str(&format!("; {count} more after {} later trials", rest.len()));
    }
    text
}

/// Why a run's request breaks a rule every face checks here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// An even count of timed trials (SPEC E4), with the two nearest odd ones.
    #[error(
        "the number of timed trials must be odd (got {got}): with an odd count the median is a trial you can point at; use {below} or {above}"
    )]
    EvenTrials {
        /// The count given.
        got: u32,
        /// The odd count just below (at least 1).
        below: u32,
        /// The odd count just above.
        above: u32,
    },
    /// A control in a comparison (SPEC S14).
    #[error("a control is one condition repeated in each session: time it on its own, not in a comparison")]
    ControlCompared,
    /// A name holding a line break or another control character.
    #[error("{option} is one line of text: it holds the control character U+{code:04X}")]
    ControlCharacter {
        /// The option that named it.
        option: &'static str,
        /// The character's code point.
        code: u32,
    },
}

/// SPEC E4: the number of timed trials must be odd, so the median is a
/// trial one can point at; the message names the two nearest odd counts.
/// Every face checks `n` here (the bench, the New run dialog, a reproduce).
pub fn check_odd_trials(n: u32) -> Result<(), SpecError> {
    if n != 0 && !n.is_multiple_of(2) {
        return Ok(());
    }
    let below = n.saturating_sub(1).max(1);
    let above = if n == 0 { 3 } else { n.saturating_add(1) };
    Err(SpecError::EvenTrials { got: n, below, above })
}

/// SPEC S14: a control is one condition, timed on its own in each session;
/// a comparison of two subjects cannot be it. Every face checks here.
pub fn check_control(control: bool, arms: usize) -> Result<(), SpecError> {
    if control && arms > 1 {
        return Err(SpecError::ControlCompared);
    }
    Ok(())
}

/// A run's What and its arms' labels name rows in every face, one line
/// each: a line break or another control character in one is refused,
/// so no name can start a line of its own in a verdict or a note.
pub fn check_names(what: Option<&String>, labels: &[Option<String>; 2]) -> Result<(), SpecError> {
    let names = what
        .map(|w| ("--what", w))
        .into_iter()
        .chain(labels.iter().zip(["--label-a", "--label-b"]).filter_map(|(l, option)| l.as_ref().map(|l| (option, l))));
    for (option, name) in names {
        if let Some(c) = name.chars().find(|c| c.is_control()) {
            return Err(SpecError::ControlCharacter { option, code: u32::from(c) });
        }
    }
    Ok(())
}

/// Refuses a request that cannot run — an even count, no arm, a program
/// not found — before anything is measured or reserved. [`run_bench`]
/// checks it again; a face calls it to refuse before it starts.
pub fn validate(spec: &BenchSpec) -> Result<(), BenchError> {
    check_odd_trials(spec.runs)?;
    match &spec.scan {
        None if spec.arms.is_empty() || spec.arms.len() > 2 => {
            return Err(BenchError::Invalid("give one subject, or two to compare".into()));
        }
        Some(scan) if scan.scan.points().len() != spec.arms.len() => {
            return Err(BenchError::Invalid("a scan has one command per point".into()));
        }
        Some(_) if spec.cooldown.is_some() => {
            return Err(BenchError::Invalid(
                "--cooldown pauses before a comparison's reversed block; a scan has none (its order rotates each round)"
                    .into(),
            ));
        }
        _ => {}
    }
    if let Some(check) = &spec.check {
        OutputCheck::compile(check)?;
        if spec.arms.iter().any(|a| matches!(a, Subject::Kernel(_))) {
            return Err(BenchError::Invalid(
                "--check reads a command's result from its output; a built-in kernel verifies its own after every \
                 trial"
                    .into(),
            ));
        }
    }
    if let Some(metric) = &spec.metric {
        Metric::compile(metric)?;
        if spec.arms.iter().any(|a| matches!(a, Subject::Kernel(_))) {
            return Err(BenchError::Invalid(
                "--metric reads a program's own figure from its output; a built-in kernel prints none".into(),
            ));
        }
    }
    let commands = spec.arms.iter().all(|a| matches!(a, Subject::Command { .. }));
    if spec.arm_builds.iter().any(Option::is_some) && (spec.arms.len() != 2 || spec.scan.is_some() || !commands) {
        return Err(BenchError::Invalid(
            "--build-a and --build-b give each program of a comparison of two commands its own build (--vs); \
             one program's build is --build"
                .into(),
        ));
    }
    if spec.sanity && !matches!(spec.arms.first(), Some(Subject::Kernel(_))) {
        return Err(BenchError::Invalid(
            "the sanity check (E12) grows a built-in kernel's input: it is for a kernel run".into(),
        ));
    }
    check_control(spec.control, spec.arms.len())?;
    check_names(spec.what.as_ref(), &spec.labels)?;
    for (i, arm) in spec.arms.iter().enumerate() {
        let recipe = spec.recipe_of(i);
        match (arm, recipe) {
            (Subject::Command { argv, shell }, None) => {
                let Some(program) = argv.first() else {
                    return Err(BenchError::Invalid("the command is empty".into()));
                };
                if !shell {
                    find_program(program)?;
                }
            }
            // The program does not exist yet: the recipe writes it.
            (Subject::Command { argv, shell: false }, Some(step)) if !argv.is_empty() => {
                if let Some(compiler) = step.argv.first().filter(|_| !step.shell) {
                    find_program(compiler)?;
                }
            }
            (_, Some(_)) => {
                return Err(BenchError::Invalid(
                    "a build recipe builds the program a command runs, measured directly: not a kernel, not --shell"
                        .into(),
                ));
            }
            (Subject::Kernel(_), None) => {}
        }
    }
    let both = spec.build.is_some() && spec.recipe.is_some()
        || spec.arm_recipes.iter().zip(&spec.arm_builds).any(|(r, b)| r.is_some() && b.is_some());
    if both {
        return Err(BenchError::Invalid("a recipe is the row's build: give --build or --build-cmd, not both".into()));
    }
    Ok(())
}

/// Checks that `program` names an executable file, directly or on `PATH`,
/// so a typo fails before any warm-up is spent on it.
fn find_program(program: &str) -> Result<(), BenchError> {
    if program::is_on_path(program, std::env::var_os("PATH").as_deref()) {
        Ok(())
    } else {
        Err(BenchError::Spawn(SpawnError {
            program: program.to_owned(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such program (not found on PATH)"),
        }))
    }
}

/// SPEC S19: a budget is a time per trial, so every arm's unit must be a
/// time (a figure in GB/s, or a kernel's ns/access, cannot miss it).
fn check_budget(spec: &BenchSpec, prepared: &[Prepared]) -> Result<(), BenchError> {
    if spec.budget.is_none() {
        return Ok(());
    }
    for arm in prepared {
        let unit = match (arm, &spec.metric) {
            (Prepared::Kernel(k), _) => k.unit().to_owned(),
            (Prepared::Command { .. }, Some(metric)) => metric.unit.clone(),
            (Prepared::Command { .. }, None) => "s".to_owned(),
        };
        if stats::units::time_factor("s", &unit).is_none() {
            return Err(BenchError::Invalid(format!(
                "a budget is a time each trial should meet; this run's trials are in '{}', which is not a time per \
                 trial, so none of them can be held to it",
                vernier_model::display::inert_line(unit)
            )));
        }
    }
    Ok(())
}

fn prepare(subject: &Subject) -> Result<Prepared, BenchError> {
    Ok(match subject {
        Subject::Command { .. } => Prepared::Command { argv: subject.argv() },
        Subject::Kernel(k) => Prepared::Kernel(crate::kernels::prepare(k)?),
    })
}

fn shell_cost(runner: &CommandRunner) -> Option<f64> {
    let argv = program::shell_argv("");
    let mut times = Vec::with_capacity(SHELL_COST_RUNS);
    for _ in 0..SHELL_COST_RUNS {
        let t = runner.run(&argv, None).ok()?;
        times.push(t.ns as f64 / 1e9);
    }
    Summary::of(&times).ok().map(|s| s.median)
}

fn time_canary(canary: &mut Canary, cancel: &AtomicBool) -> Option<f64> {
    let mut times = Vec::with_capacity(CANARY_REPS);
    for _ in 0..CANARY_REPS {
        let start = Instant::now();
        canary.run_once(cancel).ok()?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    Summary::of(&times).ok().map(|s| s.median)
}

fn scale(live: &Live<'_>, arm: usize, ns: u64) -> f64 {
    match &live.arms[arm] {
        Prepared::Command { .. } => ns as f64 / 1e9,
        Prepared::Kernel(k) => k.scale(ns as f64),
    }
}

fn arm_result(
    arm: usize,
    subject: &Subject,
    provenance: Option<CommandIdentity>,
    live: &Live<'_>,
    trials: &[TrialRecord],
    stated_inputs: Option<&str>,
) -> ArmResult {
    let timed_trials = || trials.iter().filter(|t| t.arm == arm && !t.warmup && t.status == TrialStatus::Ok);
    let (timed, figure): (Vec<f64>, _) = match &live.own {
        Some(metric) => {
            let per_trial: Vec<&Vec<f64>> = timed_trials().filter_map(|t| live.figures.get(t.index as usize)).collect();
            let counts: Vec<usize> = per_trial.iter().map(|f| f.len()).collect();
            let internal = counts.first().filter(|&&k| counts.iter().all(|&c| c == k));
            (
                per_trial.into_iter().flatten().copied().collect(),
                Some(OwnFigure {
                    spec: metric.spec().clone(),
                    processes: u32::try_from(counts.len()).unwrap_or(u32::MAX),
                    internal: internal.and_then(|&k| u32::try_from(k).ok()),
                }),
            )
        }
        None => (timed_trials().map(|t| scale(live, arm, t.ns)).collect(), None),
    };
    let (what, unit) = match (&live.arms[arm], &figure) {
        (Prepared::Kernel(k), _) => (k.describe(), k.unit().to_owned()),
        (Prepared::Command { argv }, Some(own)) => (argv.join(" "), own.spec.unit.clone()),
        (Prepared::Command { argv }, None) => (argv.join(" "), "s".to_owned()),
    };
    // A figure's unit is the program's: a time one is still nanoseconds
    // per unit for the plausibility checks; any other unit is counted as is.
    let ns_per_unit = match &figure {
        Some(own) => vernier_model::stats::units::nanoseconds_per(&own.spec.unit).unwrap_or(1.0),
        None => 1.0 / scale(live, arm, 1),
    };
    let warmup_trials = u32::try_from(trials.iter().filter(|t| t.arm == arm && t.warmup).count()).unwrap_or(u32::MAX);
    ArmResult {
        label: raw::arm_label(arm),
        what,
        command: subject.argv(),
        unit,
        ns_per_unit,
        warmup_trials,
        summary: Summary::of(&timed).ok(),
        first_trial_check: first_trial_check(warmup_trials, &timed),
        trial_cpus: stats::TrialCpus::of(timed_trials().map(|t| t.work.cpu)),
        timed,
        checksum: live.checksums[arm].clone(),
        inputs: match &live.arms[arm] {
            Prepared::Kernel(k) => Some(format!("{} (Vernier's kernel)", k.inputs())),
            Prepared::Command { argv } => inputs::command_inputs(argv, stated_inputs),
        },
        result_check: match &live.check {
            Some((check, printed)) => printed[arm].kept(check),
            None => live.checksums[arm].as_deref().map(|sum| result_check(sum).value),
        },
        provenance,
        figure,
        point: None,
        tail: None,
        work: Work::of(
            &timed_trials()
                .map(|t| TrialCounts {
                    wall_ns: t.ns,
                    cpu_ns: t.work.cpu_ns,
                    cycles: t.work.cycles,
                    instructions: t.work.instructions,
                })
                .collect::<Vec<_>>(),
            live.counted.clone(),
            cpu_time::resolution_ns(),
        ),
    }
}

/// Each arm's label (the one given, else its command) and its row's
/// `What`: the label, under the session's `--what` when one was given.
fn name_arms(arms: &mut [ArmResult], spec: &BenchSpec) -> Vec<String> {
    // A sweep's point is named by its values, under the session's --what
    // or else its command with the placeholders (SPEC E16).
    if let Some(scan) = &spec.scan {
        let what = spec.what.clone().unwrap_or_else(|| vernier_model::display::inert_line(scan.template.join(" ")));
        return arms
            .iter_mut()
            .map(|arm| {
                let label = arm.point.as_deref().map(|p| scan.scan.label(p)).unwrap_or_default();
                arm.what = format!("{what}: {label}");
                label
            })
            .collect();
    }
    // A command named by itself is shown inert, so a line break in its
    // arguments cannot start a line of a verdict (given labels are checked).
    let mut labels: Vec<String> = arms
        .iter()
        .zip(&spec.labels)
        .map(|(arm, label)| label.clone().unwrap_or_else(|| vernier_model::display::inert_line(arm.what.clone())))
        .collect();
    // Each row's name says what differs (SPEC S11): an arm is named by its
    // program or kernel, and two arms of the same one by their arm too.
    if let [a, b] = labels.as_mut_slice()
        && a == b
    {
        a.push_str(" (arm A)");
        b.push_str(" (arm B)");
    }
    let single = arms.len() == 1;
    for (arm, label) in arms.iter_mut().zip(&labels) {
        arm.what = match &spec.what {
            Some(what) if single => what.clone(),
            Some(what) => format!("{what}: {label}"),
            None => label.clone(),
        };
    }
    labels
}

/// S7 between the arms; no claim where their results differ (SPEC S18)
/// or the difference is below the session's noise floor (SPEC E18).
fn compare_arms(a: &ArmResult, b: &ArmResult, names: (&str, &str), floor: Option<&NoiseFloor>) -> Option<Comparison> {
    let (sa, sb) = (a.summary.as_ref()?, b.summary.as_ref()?);
    let metric = if a.unit == b.unit { format!("median {}", metric_name(&a.unit)) } else { return None };
    let s7 = stats::compare(Spread::from(sa), Spread::from(sb), names, &metric, &a.unit);
    let results = agreement(a, b, names);
    let below = floor.zip(s7.ratio).and_then(|(f, ratio)| f.below(ratio - 1.0, [names.0, names.1]));
    let reasons: Vec<String> = results
        .filter(Agreement::claims_nothing)
        .map(|r| r.sentence())
        .into_iter()
        .chain(below.map(|b| b.sentence()))
        .collect();
    Some(if reasons.is_empty() {
        s7
    } else {
        s7.no_claim(&metric, &reasons.iter().map(String::as_str).collect::<Vec<_>>())
    })
}

/// SPEC S18: whether arms `a` and `b`, named `names`, computed the same
/// result, where both kept one.
fn agreement(a: &ArmResult, b: &ArmResult, names: (&str, &str)) -> Option<Agreement> {
    let (x, y) = (a.result_check.as_deref()?, b.result_check.as_deref()?);
    Agreement::of_commands([names.0, names.1], [x, y], [&a.command, &b.command])
}

fn metric_name(unit: &str) -> &'static str {
    match unit {
        "ns/access" => "time per access",
        _ => "wall time",
    }
}

/// SPEC E5: the difference B − A measured A-first against B-first.
fn order_check(trials: &[TrialRecord], a: &ArmResult, b: &ArmResult, live: &Live<'_>) -> Option<OrderCheck> {
    let median = |arm: usize, position: u32| {
        let values: Vec<f64> = trials
            .iter()
            .filter(|t| t.arm == arm && t.position == position && !t.warmup && t.status == TrialStatus::Ok)
            .map(|t| scale(live, arm, t.ns))
            .collect();
        Summary::of(&values).ok().map(|s| s.median)
    };
    // A-first block: A at position 1, B at 2; the reversed block swaps them.
    let difference_ab = median(1, 2)? - median(0, 1)?;
    let difference_ba = median(1, 1)? - median(0, 2)?;
    let (sa, sb) = (a.summary.as_ref()?, b.summary.as_ref()?);
    Some(OrderCheck::new(difference_ab, difference_ba, sa.iqr + sb.iqr, sa.median))
}

fn describe_stop(stop: &schedule::Stop, spec: &BenchSpec, trials: &[TrialRecord], output: Option<&str>) -> String {
    match stop {
        schedule::Stop::Failed { index, status } => {
            // Raw-file indices count from 0 and include the warm-up.
            let warm = trials.get(*index as usize).is_some_and(|t| t.warmup);
            let trial = format!("trial {index}{}", if warm { " (a warm-up trial)" } else { "" });
            let what = match status {
                TrialStatus::Timeout => {
                    format!(
                        "timeout: {trial} ran past {} s and was killed",
                        spec.timeout.map_or(0.0, |t| t.as_secs_f64())
                    )
                }
                TrialStatus::WrongResult => format!("{trial} produced a wrong result; the measurement is void"),
                TrialStatus::TooMuchOutput => format!(
                    "{trial} printed more than {} of output; stopped",
                    vernier_model::stats::units::size(metric::MAX_OUTPUT_BYTES as f64)
                ),
                TrialStatus::NoFigure => {
                    format!("{trial} gave no figure it could read: {}", output.unwrap_or("its output held none"))
                }
                other => match output {
                    Some(output) => format!("{trial} failed ({other}): {output}"),
                    None => format!("{trial} failed ({other})"),
                },
            };
            format!("{what}; every trial taken so far is kept")
        }
        schedule::Stop::Cancelled => "cancelled; every trial taken so far is kept".into(),
        schedule::Stop::Error(e) => e.clone(),
    }
}

/// The first timed trial against the rest (SPEC S9, S18). With warm-up 0
/// it is always reported: the student chooses a warm-up from it. After a
/// warm-up it is reported only when the first trial still stands out — the
/// course's "raise the warm-up until repetition one is indistinguishable
/// from repetition ten" — and otherwise says nothing, as there is nothing
/// to act on.
pub fn first_trial_check(warmup_trials: u32, timed: &[f64]) -> Option<WarmupCheck> {
    stats::warmup_check(timed).filter(|check| warmup_trials == 0 || check.stands_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC S9, S18: after a warm-up, a first timed trial still slower than
    // the rest by more than their IQR is reported (raise the warm-up); one
    // that looks like the rest says nothing; with warm-up 0 it is always said.
    #[test]
    fn a_warm_up_too_short_is_said_whatever_its_length() {
        let cold = [14.0, 10.0, 10.1, 9.9, 10.0, 10.2, 9.8];
        let warm = [10.05, 10.0, 10.1, 9.9, 10.0, 10.2, 9.8];
        let check = first_trial_check(3, &cold).expect("a first trial that stands out after 3 warm-ups");
        assert!(check.stands_out);
        assert!(check.describe("ms").ends_with("stands out: consider a longer warm-up"), "{}", check.describe("ms"));
        assert_eq!(first_trial_check(3, &warm), None, "nothing to act on");
        assert!(first_trial_check(0, &warm).is_some_and(|c| !c.stands_out), "warm-up 0 always reports it");
    }

    // SPEC E4: odd counts pass; an even count or zero is refused with the
    // two nearest odd counts to use instead.
    #[test]
    fn only_odd_trial_counts_are_taken() {
        for n in [1, 3, 31, 51] {
            assert_eq!(check_odd_trials(n), Ok(()));
        }
        for (n, hint) in [(0, "use 1 or 3"), (2, "use 1 or 3"), (30, "use 29 or 31"), (u32::MAX - 1, "use")] {
            let message = check_odd_trials(n).expect_err("even").to_string();
            assert!(message.contains("must be odd") && message.contains(hint), "{message}");
        }
    }

    // SPEC E15: the strays killed are named trial by trial, the rest summed.
    #[test]
    fn process_cleanup_names_the_strays() {
        assert_eq!(process_cleanup("group killed", &[]), "group killed");
        assert_eq!(
            process_cleanup("group killed", &[(5, 2), (7, 1)]),
            "group killed; 2 processes that left the trial's group were killed after trial 5; \
             1 process that left the trial's group was killed after trial 7"
        );
        let many: Vec<(u32, usize)> = (0..8).map(|t| (t, 1)).collect();
        assert!(process_cleanup("g", &many).ends_with("after trial 4; 3 more after 3 later trials"));
    }

    /// An arm of `trials` in ms, as the harness summarises one.
    fn arm(trials: &[f64]) -> ArmResult {
        ArmResult {
            label: "A".into(),
            what: "w".into(),
            command: vec!["./w".into()],
            unit: "ms".into(),
            ns_per_unit: 1e6,
            warmup_trials: 3,
            timed: trials.to_vec(),
            summary: Summary::of(trials).ok(),
            checksum: None,
            result_check: None,
            inputs: None,
            first_trial_check: None,
            provenance: None,
            figure: None,
            point: None,
            work: None,
            tail: None,
            trial_cpus: None,
        }
    }

    // SPEC E18 (issue 48 item 3): the interleaved verdict makes no claim
    // where the difference is below the session's noise floor, and says
    // so in E18's one sentence; above the floor S7 stands as it was.
    #[test]
    fn an_interleaved_difference_below_the_floor_makes_no_claim() {
        let (a, b) = (arm(&[9.9, 9.95, 10.0, 10.05, 10.1]), arm(&[10.2, 10.25, 10.3, 10.35, 10.4]));
        let floor = NoiseFloor::of(&[10.0, 10.5]).expect("a floor of 5 %");
        let plain = compare_arms(&a, &b, ("a", "b"), None).expect("a verdict");
        assert!(plain.claimed, "{}", plain.verdict);
        let guarded = compare_arms(&a, &b, ("a", "b"), Some(&floor)).expect("a verdict");
        assert!(!guarded.claimed);
        assert_eq!(
            guarded.verdict,
            "median wall time: no claim — the difference between a and b (3.0 %) is below the instrument's noise \
             floor (5.0 %, one body timed back to back): the instrument cannot tell it from its own noise"
        );
        let quiet = NoiseFloor::of(&[10.0, 10.1]).expect("a floor of 1 %");
        assert_eq!(compare_arms(&a, &b, ("a", "b"), Some(&quiet)), Some(plain));
    }

    // SPEC S19: a budget holds only trials in a time; a kernel's ns/access
    // or a figure in GB/s is refused before anything runs.
    #[test]
    fn a_budget_needs_a_time() {
        let kernel = KernelSpec::from_argv(&["vernier".into(), "bench".into(), "--kernel".into(), "seq".into()])
            .expect("the seq kernel");
        let spec = BenchSpec { budget: Some(0.01), ..BenchSpec::new(vec![Subject::Kernel(kernel)]) };
        let prepared = spec.arms.iter().map(prepare).collect::<Result<Vec<_>, _>>().expect("prepared");
        let refused = check_budget(&spec, &prepared).expect_err("ns/access is not a time per trial");
        assert!(refused.to_string().contains("'ns/access', which is not a time per trial"), "{refused}");
        let command = BenchSpec {
            budget: Some(0.01),
            ..BenchSpec::new(vec![Subject::Command { argv: vec!["true".into()], shell: false }])
        };
        let prepared = command.arms.iter().map(prepare).collect::<Result<Vec<_>, _>>().expect("prepared");
        assert!(check_budget(&command, &prepared).is_ok());
    }
}
