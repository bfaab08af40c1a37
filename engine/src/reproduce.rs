//! Reproducing a classmate's row (SPEC R1–R3): what their row says was run,
//! the same run here, both side by side with the S7 verdict and a diff of
//! the conditions. Their file is only read; nothing in it runs until the
//! user confirms the exact argv, and then only as an argument vector: the
//! rerun is held behind the engine's one [`Gate`] (SPEC N13). A command
//! that is not their own program or script, matched by the SHA-256 their
//! row keeps, can run code written in their file and needs a second,
//! explicit consent; and every foreign rerun writes only inside a scratch
//! folder where this OS can confine it.

mod rebuild;
mod same_experiment;
mod side_by_side;
mod sweep_rerun;
mod verdict;

use std::path::Path;

pub use rebuild::{Build, COMPILER_HERE, Rebuild, RebuildError, Scratch};
pub use same_experiment::{Placement, ProgramCheck, ResultCheck, placement, program_checks, result_check};
pub use side_by_side::{ArmSide, RatioSide, SideBySide};
pub use sweep_rerun::{PointByPoint, SweepOriginal};
pub use verdict::{Judged, MIN_TRIALS, Measured, NOISE_FACTOR, NOISE_FLOOR, RULE, Verdict, judge};

use crate::consent::{Gate, KeptFiles};
use crate::display::{inert, quote_argv};
use crate::documents::edits::SheetEdit;
use crate::documents::foreign::{Foreign, MAX_TRIALS, MAX_WORKBOOK_BYTES, SheetRun};
use crate::documents::measurements::{self, OpenedWorkbook, OwnWorkbook, WorkbookReadError};
use crate::harness::provenance::Hashes;
use crate::harness::{BenchSpec, CommandIdentity, DEFAULT_WARMUP, DEFAULT_WARMUP_TRIALS, Subject, recorded_cooldown};
use crate::notebook::{Boundary, KernelSpec};
use crate::notebook::{Condition, ConditionName, LoadError, Notebook, WarmupPolicy, conditions_text, store};
use crate::notebook::{MetricSpec, OwnFigure, Recipe};
use crate::stats::NoiseFloor;
use crate::stats::Summary;
use crate::stats::units::Figures;

/// The row being reproduced, as its owner recorded it.
#[derive(Debug, Clone, PartialEq)]
pub struct Original {
    /// Row number in their log.
    pub row: u32,
    /// `What`.
    pub what: String,
    /// `Command`, an argument vector.
    pub command: Vec<String>,
    /// The other arm, when the row was half of an interleaved comparison.
    pub partner: Option<Partner>,
    /// Warm-up trials, when stated.
    pub warmup_trials: Option<u32>,
    /// Their warm-up policy, which the rerun keeps (R3): not the trials
    /// discarded, which a cool-down's settle or a settle's stop can raise.
    pub policy: WarmupPolicy,
    /// Timed trials.
    pub timed: u32,
    /// Median, in `unit`.
    pub median: f64,
    /// IQR, in `unit`.
    pub iqr: f64,
    /// Unit of the median.
    pub unit: String,
    /// Their conditions.
    pub conditions: Vec<Condition>,
    /// The power source their row ran on, as it recorded it (SPEC S13).
    pub power_source: Option<String>,
    /// Their row measured the program's own figure this way (SPEC E17):
    /// the rerun reads it the same way, from as many processes.
    pub figure: Option<OwnFigure>,
    /// What their row's time is the time of (SPEC S16); `None` when their
    /// file does not say (a workbook from before rows said it).
    pub boundary: Option<Boundary>,
    /// The build recipe that built their program (SPEC N15, R5), when
    /// their notebook recorded one.
    pub recipe: Option<Recipe>,
    /// The noise floor their session measured (SPEC E18), when their
    /// notebook kept one: a workbook row has none.
    pub noise_floor: Option<NoiseFloor>,
    /// The budget their trials were held to, in seconds (SPEC S19), which
    /// the rerun is held to as well; `None` when their row had none (the
    /// rerun is then held to this notebook's trial budget, if one is set).
    pub budget: Option<f64>,
}

/// The timing boundary a workbook row's conditions state, if they do.
fn sheet_boundary(conditions: &[Condition]) -> Option<Boundary> {
    let timed = conditions.iter().find(|c| c.field.trim().eq_ignore_ascii_case(crate::notebook::BOUNDARY_FIELD))?;
    Boundary::from_brief(&timed.value)
}

/// The other half of their interleaved comparison (SPEC R4): its row, and
/// the paired ratio the comparison claimed.
#[derive(Debug, Clone, PartialEq)]
pub struct Partner {
    /// Which arm the picked row was: `A` or `B`.
    pub arm: String,
    /// The other arm's row, as recorded (its own partner left out).
    pub other: Box<Original>,
    /// Their paired ratio B/A (S11), as recorded with the comparison.
    pub paired: Option<Summary>,
    /// Their arms' labels, A then B.
    pub labels: [String; 2],
}

/// Why a row cannot be reproduced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReproduceError {
    /// No such row.
    #[error("there is no run {0} in that log")]
    NoSuchRow(u32),
    /// A `vernier bench --kernel` command that does not parse.
    #[error("run {row}: '{command}' is not a kernel Vernier knows how to rerun")]
    BadKernel {
        /// The row.
        row: u32,
        /// The command.
        command: String,
    },
    /// No such sweep.
    #[error("there is no sweep W{0} in that log")]
    NoSuchSweep(u32),
    /// A sweep that cannot be rerun as one.
    #[error("sweep {label} cannot be rerun as a sweep: {why}; reproduce its points one at a time with --row")]
    BadSweep {
        /// `W1`.
        label: String,
        /// What is wrong.
        why: String,
    },
    /// The row's trial counts cannot be rerun as they are.
    #[error("run {row}: {why}")]
    BadCount {
        /// The row.
        row: u32,
        /// What is wrong.
        why: String,
    },
}

/// Someone else's log, opened read-only: a notebook (a folder, or a
/// workbook Vernier wrote) or a foreign `measurements.xlsx`.
#[derive(Debug)]
pub enum Log {
    /// A Vernier notebook folder.
    Notebook(Box<Notebook>),
    /// A workbook Vernier wrote: the notebook it carries, and what was
    /// changed in it in a spreadsheet (N12) — shown, never run.
    Workbook(Box<OwnWorkbook>),
    /// A workbook Vernier did not write, read by header names (D4).
    Foreign(Foreign),
}

/// Why someone's log could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The workbook could not be read, or was refused unread.
    #[error(transparent)]
    Read(#[from] crate::bounded::ReadError),
    /// A notebook folder that does not load.
    #[error(transparent)]
    Notebook(#[from] LoadError),
    /// A workbook that does not open.
    #[error(transparent)]
    Workbook(#[from] WorkbookReadError),
}

impl Log {
    /// Opens a notebook folder or any `measurements.xlsx`; never writes it.
    pub fn open(path: &Path) -> Result<Self, OpenError> {
        if !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("xlsx")) {
            return Ok(Log::Notebook(Box::new(store::load(path)?)));
        }
        let bytes = crate::bounded::read_bounded(path, MAX_WORKBOOK_BYTES, "a workbook")?;
        Ok(match measurements::open(&bytes, &path.display().to_string())? {
            OpenedWorkbook::Vernier(own) => Log::Workbook(own),
            OpenedWorkbook::Foreign(f) => Log::Foreign(f),
        })
    }

    /// Run `row`, as its owner recorded it.
    pub fn original(&self, row: u32) -> Result<Original, ReproduceError> {
        match (self.notebook(), self) {
            (Some(nb), _) => Original::from_notebook(nb, row),
            (None, Log::Foreign(f)) => Original::from_sheet(&f.runs, row),
            (None, _) => Err(ReproduceError::NoSuchRow(row)),
        }
    }

    /// Sweep `W{number}`, as its owner recorded it; a workbook Vernier did
    /// not write keeps no sweep.
    pub fn sweep(&self, number: u32) -> Result<SweepOriginal, ReproduceError> {
        match self.notebook() {
            Some(nb) => SweepOriginal::from_notebook(nb, number),
            None => Err(ReproduceError::NoSuchSweep(number)),
        }
    }

    /// Every run that can be offered for reproducing (discarded ones left out).
    pub fn originals(&self) -> Vec<Original> {
        let rows: Vec<u32> = match (self.notebook(), self) {
            (Some(nb), _) => nb.runs().iter().filter(|r| r.discarded.is_none()).map(|r| r.number).collect(),
            (None, Log::Foreign(f)) => f.runs.iter().map(|r| r.number).collect(),
            (None, _) => Vec::new(),
        };
        rows.into_iter().filter_map(|row| self.original(row).ok()).collect()
    }

    /// What a workbook could not give or compare (empty for a folder).
    pub fn problems(&self) -> &[String] {
        match self {
            Log::Notebook(_) => &[],
            Log::Workbook(own) => &own.problems,
            Log::Foreign(f) => &f.problems,
        }
    }

    /// The notebook, when the log is one (a folder, or a workbook Vernier
    /// wrote).
    pub fn notebook(&self) -> Option<&Notebook> {
        match self {
            Log::Notebook(nb) => Some(nb),
            Log::Workbook(own) => Some(&own.notebook),
            Log::Foreign(_) => None,
        }
    }

    /// The changes made to a workbook Vernier wrote in a spreadsheet (N12):
    /// its visible sheets no longer show what is run, so the plan lists
    /// them as warnings (R2). Empty for a folder or a foreign workbook.
    pub fn spreadsheet_edits(&self) -> &[SheetEdit] {
        match self {
            Log::Workbook(own) => &own.edits,
            _ => &[],
        }
    }
}

/// How many of a workbook's spreadsheet edits a plan lists before "and N
/// more".
const EDITS_LISTED: usize = 12;

impl Log {
    /// The plan's warning for their workbook when its sheets do not show
    /// what runs (R2, N12): edits made in a spreadsheet after Vernier wrote
    /// it, and a hidden notebook that does not match the cells it says were
    /// written. What runs is what that notebook says. `None` when there is
    /// nothing to say.
    pub fn workbook_warning(&self) -> Option<String> {
        let Log::Workbook(own) = self else { return None };
        let mut text = String::new();
        if !own.edits.is_empty() {
            text.push_str(&format!(
                "WARNING: their workbook was edited in a spreadsheet after Vernier wrote it ({} edits). Vernier \
                 reruns what its hidden copy of the notebook says, not what the sheets show:",
                own.edits.len()
            ));
            for edit in own.edits.iter().take(EDITS_LISTED) {
                text.push_str(&format!("\n  - {edit}"));
            }
            if own.edits.len() > EDITS_LISTED {
                let more = own.edits.len() - EDITS_LISTED;
                text.push_str(&format!("\n  … and {more} more (vernier show lists them all)"));
            }
        }
        for problem in &own.problems {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("WARNING: {}", inert(problem)));
        }
        (!text.is_empty()).then_some(text)
    }
}

/// True when `theirs` (a folder, or a file in one) is the notebook folder
/// `mine`: a rerun must never be recorded into the log it reproduces.
pub fn same_folder(theirs: &Path, mine: &Path) -> bool {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let their_folder = if theirs.is_dir() { canonical(theirs) } else { theirs.parent().and_then(canonical) };
    their_folder.is_some() && their_folder == canonical(mine)
}

impl Original {
    /// Row `row` of a Vernier notebook (theirs, opened read-only).
    pub fn from_notebook(nb: &Notebook, row: u32) -> Result<Self, ReproduceError> {
        let mut original = Self::alone(nb, row)?;
        // A sweep's point has no partner: it reruns alone (the whole sweep
        // is `SweepOriginal`).
        let raw = nb.run(row).and_then(|run| run.measurement.raw_file.as_ref());
        if let Some((raw, other)) = raw.zip(nb.comparison_partner(row)) {
            let (paired, labels) = match nb.pair_of(row) {
                Some((pair, _)) => (pair.paired.clone(), pair.labels.clone()),
                None => (None, ["A".to_owned(), "B".to_owned()]),
            };
            let other = Box::new(Self::alone(nb, other.number)?);
            original.partner = Some(Partner { arm: raw.arm.clone(), other, paired, labels });
        }
        Ok(original)
    }

    /// Row `row` as it is, without its partner.
    fn alone(nb: &Notebook, row: u32) -> Result<Self, ReproduceError> {
        let run = nb.run(row).ok_or(ReproduceError::NoSuchRow(row))?;
        let m = &run.measurement;
        Ok(Self {
            row,
            what: m.what.clone(),
            command: m.command.clone(),
            partner: None,
            warmup_trials: (m.warmup != WarmupPolicy::Unknown).then_some(m.warmup_trials),
            policy: m.warmup,
            timed: u32::try_from(m.summary.n).unwrap_or(u32::MAX),
            median: m.summary.median,
            iqr: m.summary.iqr,
            unit: m.unit.clone(),
            // Their row's own record, the power source they stated included.
            conditions: run.context().effective_conditions(),
            power_source: run.context().power_source(),
            figure: m.figure.clone(),
            boundary: Some(m.timing_boundary()),
            recipe: m.recipe.clone(),
            noise_floor: m.noise_floor.clone(),
            budget: m.budget_seconds(),
        })
    }

    /// Row `row` of a foreign workbook's Runs sheet.
    ///
    /// Its timing boundary is what its Conditions cell's `timed` says (SPEC
    /// S16), or not known.
    pub fn from_sheet(runs: &[SheetRun], row: u32) -> Result<Self, ReproduceError> {
        let r = runs.iter().find(|r| r.number == row).ok_or(ReproduceError::NoSuchRow(row))?;
        Ok(Self {
            row,
            what: r.what.clone(),
            command: r.command.clone(),
            partner: None,
            warmup_trials: r.warmup_trials,
            policy: r.warmup_trials.map_or(WarmupPolicy::Unknown, WarmupPolicy::Count),
            timed: r.timed,
            median: r.median,
            iqr: r.iqr,
            unit: r.unit.clone(),
            conditions: r.conditions.clone(),
            // Their Conditions column, read by name whatever its case.
            power_source: r
                .conditions
                .iter()
                .find(|c| c.field.eq_ignore_ascii_case(ConditionName::PowerSource.as_str()) && c.is_stated())
                .map(|c| c.value.clone()),
            figure: None,
            boundary: sheet_boundary(&r.conditions),
            recipe: None,
            noise_floor: None,
            budget: None,
        })
    }

    /// The trials the rerun takes per arm: their timed trials, or with
    /// `--metric-each` their processes (each printed several figures).
    pub fn runs(&self) -> u32 {
        match &self.figure {
            Some(own) if own.spec.each => own.processes,
            _ => self.timed,
        }
    }

    /// The timed trials the plan says will run: their count, or with
    /// `--metric-each` the processes and the figures they printed.
    pub fn trials_text(&self) -> String {
        match &self.figure {
            Some(own) if own.spec.each => format!(
                "{} runs, each printing its internal trials (theirs printed {} figures in all)",
                own.processes, self.timed
            ),
            _ => self.timed.to_string(),
        }
    }

    /// How their row read the program's own figure, for the rerun.
    fn metric(&self) -> Option<MetricSpec> {
        self.figure.as_ref().map(|own| own.spec.clone())
    }

    /// The warm-up the rerun takes: their policy — a count, a statement of
    /// warm-ups their own driver ran, or a settle with its bound — or, when
    /// they recorded none, the harness's [`DEFAULT_WARMUP`] (an import).
    fn rerun_warmup(&self) -> Result<WarmupPolicy, String> {
        match self.policy {
            WarmupPolicy::Count(c) | WarmupPolicy::Stated(c) if c > MAX_TRIALS => {
                Err(format!("{c} warm-up trials is more than {MAX_TRIALS}"))
            }
            WarmupPolicy::Count(c) | WarmupPolicy::Stated(c) => Ok(WarmupPolicy::Count(c)),
            WarmupPolicy::Settle { max } => Ok(WarmupPolicy::Settle { max: max.clamp(1, 50) }),
            WarmupPolicy::Unknown => Ok(DEFAULT_WARMUP),
        }
    }

    /// The plan's warm-up line: their policy, kept, with what they
    /// discarded when that differs from it.
    fn warmup_text(&self) -> String {
        let discarded = self.warmup_trials.map_or_else(String::new, |w| format!(" (they discarded {w})"));
        match self.rerun_warmup() {
            Ok(_) if self.policy == WarmupPolicy::Unknown => {
                format!("not stated by them; {DEFAULT_WARMUP_TRIALS} will be discarded{discarded}")
            }
            Ok(policy) => format!("{policy}, their policy{discarded}"),
            Err(why) => why,
        }
    }

    /// The rows the rerun repeats, arm A first: this one, or both arms of
    /// their comparison.
    pub fn arms(&self) -> Vec<&Original> {
        match &self.partner {
            None => vec![self],
            Some(p) if p.arm == "B" => vec![&p.other, self],
            Some(p) => vec![self, &p.other],
        }
    }

    /// The run that repeats this row: same subject(s), n, warm-up,
    /// interleaving order and cool-down (SPEC R3); where it is pinned is
    /// [`Original::rerun`]'s to say. Refuses counts Vernier would not take;
    /// whether it runs inline code is the [`Gate`]'s question.
    fn unpinned_spec(&self) -> Result<BenchSpec, ReproduceError> {
        let bad = |why: String| ReproduceError::BadCount { row: self.row, why };
        let runs = self.runs();
        crate::harness::check_odd_trials(runs).map_err(|e| bad(e.to_string()))?;
        if runs > MAX_TRIALS {
            return Err(bad(format!("{runs} timed trials is more than {MAX_TRIALS}")));
        }
        let warmup = self.rerun_warmup().map_err(bad)?;
        for o in self.arms() {
            let plausible = |v: f64| v.is_finite() && v.abs() <= crate::notebook::plausible::MAX_VALUE;
            if !(plausible(o.median) && plausible(o.iqr) && o.iqr >= 0.0) {
                return Err(ReproduceError::BadCount {
                    row: o.row,
                    why: format!(
                        "its median {} and IQR {} are not a measurement that can be compared",
                        o.median, o.iqr
                    ),
                });
            }
        }
        let arms = self.arms().iter().map(|o| subject(o.row, &o.command)).collect::<Result<Vec<_>, _>>()?;
        let pair = arms.len() == 2;
        Ok(BenchSpec {
            runs,
            warmup,
            metric: self.metric(),
            cooldown: recorded_cooldown(&self.conditions).filter(|_| pair),
            labels: self.partner.as_ref().map_or([None, None], |p| p.labels.clone().map(Some)),
            // SPEC S19: held to the budget their row was held to.
            budget: self.budget,
            ..BenchSpec::new(arms)
        })
    }

    /// The rerun, ready for confirmation: its spec behind the gate (N13),
    /// pinned where theirs was when this machine has that CPU (R4), and each
    /// command's program here matched against theirs. Hashes the programs,
    /// so it reads the disk; `hashes` keeps each file's hash for the other
    /// rows of their log.
    pub fn rerun(&self, hashes: &mut Hashes) -> Result<Rerun, ReproduceError> {
        Rerun::new(&self.arms(), self.unpinned_spec()?, hashes)
    }

    /// The rerun of a program rebuilt from their sources (SPEC R5): their
    /// recipe runs first in `rebuild`'s scratch folder, behind the same
    /// gate; the programs are matched against theirs once built, so the
    /// plan lists the recipe instead. `source` names their log.
    pub fn rebuilt_rerun(&self, rebuild: &Rebuild, source: &str) -> Result<Rerun, ReproduceError> {
        let spec = rebuild.spec(source, self.unpinned_spec()?);
        let placement = placement(&self.conditions);
        Ok(Rerun {
            gate: Gate::new(BenchSpec { pin: placement.cpu, ..spec }, &[]),
            placement,
            programs: Vec::new(),
            rebuild: rebuild.plan_lines(),
            confinement: confinement_here(),
        })
    }

    /// The recipes that built the rerun's arms (SPEC N15), each with the
    /// arm it built: one, named by no arm, for a row alone or a comparison
    /// built by one recipe; else each arm's own (an arm without one left
    /// out).
    pub fn recipes(&self) -> Vec<(&'static str, &Recipe)> {
        let recipes: Vec<Option<&Recipe>> = self.arms().iter().map(|o| o.recipe.as_ref()).collect();
        rebuild::distinct_recipes(&recipes).into_iter().filter_map(|(arm, i)| Some((arm, recipes[i]?))).collect()
    }

    /// Which arm of the rerun is this row: 0 for A, 1 for B.
    pub fn arm_index(&self) -> usize {
        usize::from(self.partner.as_ref().is_some_and(|p| p.arm == "B"))
    }
}

/// A row's command as something to run: a Vernier kernel, or an argument
/// vector handed to `execve` as it is (so `;`, `|`, `$( )` are just text).
pub fn subject(row: u32, argv: &[String]) -> Result<Subject, ReproduceError> {
    let program = argv.first().map(String::as_str).unwrap_or("");
    let base = program.rsplit('/').next().unwrap_or(program);
    if base == "vernier" && argv.get(1).is_some_and(|a| a == "bench") {
        return KernelSpec::from_argv(argv)
            .map(Subject::Kernel)
            .ok_or_else(|| ReproduceError::BadKernel { row, command: quote_argv(argv) });
    }
    Ok(Subject::Command { argv: argv.to_vec(), shell: false })
}

/// A rerun ready for confirmation (SPEC R2, R4): what will run, where, and
/// whether the programs found here are the ones their row ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Rerun {
    /// What runs, held until the user confirms it (N13).
    pub gate: Gate,
    /// Their placement, reapplied or not, and why.
    pub placement: Placement,
    /// Per arm, A then B: the program (and argument files) found here
    /// against what their row recorded; empty for a kernel, and for a
    /// rebuild (matched once built).
    pub programs: Vec<Vec<ProgramCheck>>,
    /// A rebuild's plan lines (SPEC R5), each starting a line break; empty
    /// when the program found here is rerun.
    pub rebuild: String,
    /// What confines the rerun's writes here, or why nothing does (N13).
    pub confinement: String,
}

/// What confines a foreign rerun's writes on this machine, or why nothing
/// does: the plan's sentence, asked of the OS without running anything.
pub fn confinement_here() -> String {
    crate::platform::confine::available().unwrap_or_else(|why| why.to_string())
}

impl Rerun {
    /// `spec` (the rerun of `rows`, one per arm, in order) pinned where the
    /// first row was, with every command's program and argument files
    /// matched against what its row recorded.
    fn new(rows: &[&Original], spec: BenchSpec, hashes: &mut Hashes) -> Result<Self, ReproduceError> {
        let placement = placement(rows.first().map(|o| o.conditions.as_slice()).unwrap_or_default());
        let programs = rows
            .iter()
            .zip(&spec.arms)
            .map(|(o, subject)| match subject {
                Subject::Command { argv, .. } => {
                    program_checks(&o.conditions, &CommandIdentity::of_cached(argv, hashes).conditions())
                }
                Subject::Kernel(_) => Vec::new(),
            })
            .collect();
        let kept: Vec<KeptFiles> = rows.iter().map(|o| KeptFiles::of(&o.conditions)).collect();
        Ok(Self {
            gate: Gate::new(BenchSpec { pin: placement.cpu, confined: true, ..spec }, &kept),
            placement,
            programs,
            rebuild: String::new(),
            confinement: confinement_here(),
        })
    }

    /// The checks that found a different file here.
    pub fn different_files(&self) -> impl Iterator<Item = &ProgramCheck> {
        self.programs.iter().flatten().filter(|c| c.differs())
    }

    /// The plan's program lines, each starting a new line, each said once
    /// (a sweep's points share their binary): a different file is a
    /// WARNING, where a reader of the plan cannot miss it.
    fn program_lines(&self) -> String {
        let mut lines: Vec<String> = Vec::new();
        for c in self.programs.iter().flatten() {
            let line =
                if c.differs() { format!("\n  WARNING: {}", c.text) } else { format!("\n  program: {}", c.text) };
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
        lines.concat()
    }
}

/// One condition that differs between their run and this one.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EnvDifference {
    /// The condition.
    pub field: String,
    /// Theirs ("not recorded" when absent).
    pub theirs: String,
    /// Ours ("not recorded" when absent).
    pub ours: String,
}

/// The conditions that differ, in their order then any only we recorded.
/// The canary's timing text changes every run; only its ratio is compared.
/// A kernel's result check is about the result, not the machine: left out.
pub fn env_diff(theirs: &[Condition], ours: &[Condition]) -> Vec<EnvDifference> {
    // A workbook typed by hand writes `Placement Used`: one field, whatever its case.
    let same = |a: &str, b: &str| a.trim().eq_ignore_ascii_case(b.trim());
    let value = |list: &[Condition], field: &str| {
        list.iter().find(|c| same(&c.field, field)).map(|c| c.brief_value().to_owned())
    };
    let mut fields: Vec<&str> = Vec::new();
    for c in theirs.iter().chain(ours) {
        if !fields.iter().any(|f| same(f, &c.field)) {
            fields.push(&c.field);
        }
    }
    fields
        .into_iter()
        .filter(|field| {
            ConditionName::parse(&field.trim().to_lowercase()).is_none_or(ConditionName::compared_in_reproduce)
        })
        .filter_map(|field| {
            let (t, o) = (value(theirs, field), value(ours, field));
            (t != o).then(|| EnvDifference {
                field: field.to_owned(),
                theirs: t.unwrap_or_else(|| "not recorded".into()),
                ours: o.unwrap_or_else(|| "not recorded".into()),
            })
        })
        .collect()
}

impl Original {
    /// What will run, for the confirmation: command(s), trials, warm-up,
    /// interleaving, placement, whether each program is the one their row
    /// ran, their result and conditions, and whether it runs code written
    /// in their file. Every text from their file is shown inert, one line
    /// each, so no cell can redraw or reorder the plan (SPEC R2, R4).
    pub fn plan(&self, source: &str, rerun: &Rerun) -> String {
        let gate = &rerun.gate;
        let warmup = self.warmup_text();
        let interleaving = if gate.commands().len() == 2 {
            let cooldown = gate
                .cooldown()
                .map_or_else(String::new, |c| format!(", {} s cool-down between, as theirs", c.as_secs_f64()));
            format!(
                "both arms interleaved, A B … then B A …{cooldown} (this row is arm {})",
                ["A", "B"][self.arm_index()]
            )
        } else {
            "none (one subject)".to_owned()
        };
        let arms = self.arms();
        let results: Vec<String> = arms
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let figures = o.figures();
                let arm = if arms.len() == 2 { format!("{} (run {}) ", ["A", "B"][i], o.row) } else { String::new() };
                format!("{arm}median {}, IQR {}", inert(&figures.median()), inert(&figures.iqr()))
            })
            .chain(self.partner.as_ref().map(|p| match &p.paired {
                Some(r) => {
                    let shown = r.rounded();
                    format!("paired ratio B/A {} (IQR {}, {} pairs)", shown.median, shown.iqr, r.n)
                }
                None => "no paired ratio recorded".to_owned(),
            }))
            .collect();
        let conditions =
            if self.conditions.is_empty() { "none recorded".to_owned() } else { conditions_text(&self.conditions) };
        let figure = self
            .figure
            .as_ref()
            .map_or_else(String::new, |own| format!("\n  measured: {}", inert(&own.spec.describe())));
        let mut programs = rerun.program_lines();
        // SPEC N15, R5: the recipe their program was built with, and how
        // the rerun gets that program; a rebuild's own lines give each
        // arm's recipe, compilers, program and sources.
        let recipes = if rerun.rebuild.is_empty() { self.recipes() } else { Vec::new() };
        for (arm, recipe) in &recipes {
            let arm = if arm.is_empty() { String::new() } else { format!("arm {arm}: ") };
            for line in recipe.lines() {
                let their = if line.starts_with(' ') { String::new() } else { format!("{arm}their ") };
                programs.push_str(&format!("\n  {their}{line}"));
            }
        }
        if !recipes.is_empty() {
            programs.push_str(
                "\n  rebuild: not asked; the program found here is run (add --rebuild to build it from the sources \
                 their notebook keeps)",
            );
        }
        programs.push_str(&rerun.rebuild);
        format!(
            "Reproduce run {} of {} ({}){}\n  timed trials: {}\n  warm-up: {warmup}\n  \
             interleaving: {interleaving}\n  placement: {}\n  confinement: {}{figure}{programs}\n  their result: \
             {}\n  their conditions: {}\n  outcome: {RULE}\n\
             Each command runs as an argument vector, exactly as quoted above, with your privileges.",
            self.row,
            inert(source),
            inert(&self.what),
            gate.command_lines(),
            self.trials_text(),
            rerun.placement.text,
            rerun.confinement,
            results.join("; "),
            inert(&conditions),
        )
    }

    /// Their median and IQR as shown (S6, S12), in their unit rescaled
    /// when it is a time.
    pub fn figures(&self) -> Figures {
        Figures::new([self.median, self.iqr, self.median, self.median], None, &self.unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::KernelKind;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| (*x).to_owned()).collect()
    }

    // SPEC R2, untrusted input: metacharacters are arguments; a shell's `-c`
    // is an argument vector too, flagged in the plan for its own consent.
    #[test]
    fn commands_stay_argument_vectors() {
        let argv = s(&["echo", "hi;", "rm", "-rf", "$HOME", "|", "cat"]);
        assert_eq!(subject(1, &argv), Ok(Subject::Command { argv: argv.clone(), shell: false }));
        let shell = s(&["env", "sh", "-c", "touch X"]);
        assert_eq!(subject(1, &shell), Ok(Subject::Command { argv: shell.clone(), shell: false }));
    }

    // SPEC R2, N10: the plan shows their text inert, one line each, and says
    // when the command runs code written in their file.
    #[test]
    fn plan_is_inert_and_flags_inline_code() {
        let original = Original {
            row: 1,
            what: "seq\n  command: true".into(),
            command: s(&["env", "sh", "-c", "touch X"]),
            partner: None,
            warmup_trials: Some(1),
            policy: WarmupPolicy::Count(1),
            timed: 3,
            median: 1.0,
            iqr: 0.1,
            unit: "ms".into(),
            conditions: vec![Condition { field: "governor".into(), value: "\x1b[2K\rcommand: true".into() }],
            power_source: None,
            figure: None,
            boundary: None,
            recipe: None,
            noise_floor: None,
            budget: None,
        };
        let rerun = original.rerun(&mut Hashes::default()).expect("rerun");
        let plan = original.plan("theirs", &rerun);
        assert!(!plan.contains('\x1b') && !plan.contains('\r'), "{plan}");
        assert!(plan.contains(r"seq\x0a  command: true") && plan.contains(r"\x1b[2K\x0dcommand: true"), "{plan}");
        assert!(plan.contains("command: env sh -c 'touch X'"), "{plan}");
        let warning = "WARNING: env sh -c 'touch X' runs code written in their file (env … sh -c)";
        assert!(plan.contains(warning), "{plan}");
    }

    // SPEC R3: a kernel row reruns the same kernel.
    #[test]
    fn kernel_rows_round_trip() {
        let k = KernelSpec { kind: KernelKind::MatmulBlocked, size: Some(256), tile: Some(32) };
        assert_eq!(subject(1, &k.argv()), Ok(Subject::Kernel(k)));
        assert!(subject(1, &s(&["vernier", "bench", "--kernel", "nope"])).is_err());
        assert!(subject(1, &s(&["vernier", "bench", "--kernel", "seq", "--evil", "x"])).is_err());
    }

    // SPEC R3: the diff names what changed and ignores the canary's timings.
    #[test]
    fn env_diff_names_changes() {
        let c = |f: &str, v: &str| Condition { field: f.into(), value: v.into() };
        let theirs =
            vec![c("power source", "battery"), c("canary end/start", "1.000 (2 ms, then 2 ms)"), c("CPU model", "X")];
        let ours = vec![
            c("power source", "mains"),
            c("canary end/start", "1.000 (3 ms, then 3 ms)"),
            c("governor", "performance"),
        ];
        let d = env_diff(&theirs, &ours);
        let fields: Vec<&str> = d.iter().map(|x| x.field.as_str()).collect();
        assert_eq!(fields, ["power source", "CPU model", "governor"]);
        assert_eq!(d[1].ours, "not recorded");
    }
}
