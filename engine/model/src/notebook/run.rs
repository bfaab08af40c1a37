//! Rows of the Runs and Soak runs sections (SPEC N2, N5, N6).

use std::cell::OnceCell;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::columns::{RunColumn, SoakColumn};
use super::condition::{Brevity, BriefPart, Condition, ConditionName, Conditions};
use super::context::RowContext;
use super::environment::Environment;
use super::path::NotebookPath;
use super::recipe::Recipe;
use super::shared_conditions::RowParts;
use super::tag::Tag;
use super::{Boundary, KernelSpec, OwnFigure, Work};
use crate::display::inert_line;
use crate::stats::units::Figures;
use crate::stats::{CanaryVerdict, NoiseFloor, Summary, Tail, format_significant};

/// How warm-up trials were chosen (SPEC E3); part of every row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WarmupPolicy {
    /// Discard a fixed number of trials.
    Count(u32),
    /// Discard until two consecutive trials agree within 5 %, at most `max`.
    Settle {
        /// Upper bound on discarded trials.
        max: u32,
    },
    /// Not recorded by the tool that measured the run (an import).
    Unknown,
    /// This many warm-up trials ran but are not in the imported file (a
    /// student's driver that runs one warm-up pair and does not print it,
    /// SPEC E14), stated at import or later with `vernier set-run`: the
    /// count is the student's statement, not a trial Vernier can show.
    Stated(u32),
}

impl std::fmt::Display for WarmupPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WarmupPolicy::Count(n) => write!(f, "{n} warm-up trials"),
            WarmupPolicy::Settle { max } => write!(f, "settle (until two trials agree within 5 %, at most {max})"),
            WarmupPolicy::Unknown => f.write_str("warm-up not recorded"),
            WarmupPolicy::Stated(1) => f.write_str("1 warm-up trial, not in the file (stated by the student)"),
            WarmupPolicy::Stated(n) => write!(f, "{n} warm-up trials, not in the file (stated by the student)"),
        }
    }
}

/// Why and when a row was set aside (SPEC N5). The row stays in the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Discard {
    /// The user's reason.
    pub reason: String,
    /// When it was discarded.
    #[serde(with = "super::time")]
    pub at: DateTime<Utc>,
}

/// Where a row's raw data lives, with the hash taken when it was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFile {
    /// Path inside the notebook, under `raw/`.
    pub path: NotebookPath,
    /// SHA-256 (hex) of the file as written.
    pub sha256: String,
    /// Which arm's rows are this run's (`A`, or `B` in a comparison).
    pub arm: String,
    /// The importer that wrote this file, when the row was imported: what
    /// its trials are read back as (SPEC E14), never guessed from the
    /// file's name. `None` for Vernier's own trials, and for imports
    /// recorded before rows kept it (their file is told by its contents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<ImportFormat>,
}

/// An importer's id in the engine's table (`csv`, `gbench`, `pyperf`,
/// `hyperfine`), as an imported row keeps it. Text, not an enum here, so
/// that a format is added in the engine alone; a notebook may hold an id
/// this build does not know (a newer Vernier's, or a hand edit), which
/// reading back then says instead of guessing.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ImportFormat(String);

impl ImportFormat {
    /// The format of importer `id`.
    pub fn new(id: &str) -> Self {
        Self(id.to_owned())
    }

    /// The id as stored; someone else's text when the notebook is.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a measurement produced: everything in a Runs row except its number
/// and the log's bookkeeping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measurement {
    /// `What` — a short description.
    pub what: String,
    /// `Command` as an argument vector; a built-in kernel is written as the
    /// command that reruns it, `vernier bench --kernel NAME [--size N] [--tile N]`
    /// ([`KernelSpec::argv`](crate::notebook::KernelSpec::argv)).
    pub command: Vec<String>,
    /// Warm-up policy used.
    pub warmup: WarmupPolicy,
    /// Trials actually discarded as warm-up.
    pub warmup_trials: u32,
    /// Summary of the timed trials.
    pub summary: Summary,
    /// Unit of every time value: `s`, `ms`, `ns/access`, …
    pub unit: String,
    /// Nanoseconds of a raw trial per one `unit` (1e9 for `s`; for
    /// `ns/access`, the loads per repetition), to read the raw file back.
    pub ns_per_unit: f64,
    /// Conditions captured with the run.
    pub conditions: Vec<Condition>,
    /// The raw trials, if kept.
    pub raw_file: Option<RawFile>,
    /// Provenance.
    pub tag: Tag,
    /// True when the figures come from a shipped synthetic dataset; not
    /// written when false (schema 10).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub synthetic: bool,
    /// The run this one reran to more trials (SPEC S10); the link the
    /// `extends` condition states in words. Rows before it have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<u32>,
    /// The trials are the program's own figure read from its output (SPEC
    /// E17), not the wall time of its process; `None` for every other row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<OwnFigure>,
    /// What the timed trials did besides taking wall time — CPU time, and
    /// cycles and instructions where counters exist (SPEC E13); `None` for
    /// rows that did not measure it (imports, typed rows, older rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work: Option<Work>,
    /// What the row's time is the time of (SPEC S16); `None` in rows
    /// recorded before rows kept it (see [`Measurement::timing_boundary`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boundary: Option<Boundary>,
    /// The build recipe Vernier ran just before measuring (SPEC N15);
    /// `None` for a row whose build is only stated, and for older rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<Recipe>,
    /// How the timed trials fared against the budget the student stated
    /// for the run (SPEC S19), worked out when it was recorded; `None`
    /// when no budget was stated, and in older rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<Tail>,
    /// The instrument's noise floor measured at the start of the row's
    /// session (SPEC E18); `None` for rows Vernier did not measure
    /// (imports, typed rows) and older rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_floor: Option<NoiseFloor>,
}

impl Measurement {
    /// A copy of this measurement with `conditions` in place of its own,
    /// which are not copied. Every field is named, so a field added to
    /// [`Measurement`] cannot be left out of the copy.
    pub fn with_conditions(&self, conditions: Vec<Condition>) -> Self {
        let Self {
            what,
            command,
            warmup,
            warmup_trials,
            summary,
            unit,
            ns_per_unit,
            conditions: _,
            raw_file,
            tag,
            synthetic,
            extends,
            figure,
            work,
            boundary,
            recipe,
            tail,
            noise_floor,
        } = self;
        Self {
            what: what.clone(),
            command: command.clone(),
            warmup: *warmup,
            warmup_trials: *warmup_trials,
            summary: summary.clone(),
            unit: unit.clone(),
            ns_per_unit: *ns_per_unit,
            conditions,
            raw_file: raw_file.clone(),
            tag: *tag,
            synthetic: *synthetic,
            extends: *extends,
            figure: figure.clone(),
            work: work.clone(),
            boundary: boundary.clone(),
            recipe: recipe.clone(),
            tail: tail.clone(),
            noise_floor: noise_floor.clone(),
        }
    }
}

/// Where the warm-up is said: in the long form's count, or in the short
/// form's sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WarmupForm {
    Long,
    Short,
}

impl Measurement {
    /// The budget its trials were held to, in seconds (SPEC S19), for a
    /// rerun of the row (an extension, a reproduction) to be held to the
    /// same; `None` when it had none.
    pub fn budget_seconds(&self) -> Option<f64> {
        self.tail.as_ref().and_then(|t| Some(t.budget * crate::stats::units::time_factor(&self.unit, "s")?))
    }

    /// What the row's time is the time of: as recorded, or for a row
    /// recorded before rows kept it, what its kind of row always timed — a
    /// command's process, a kernel's call, the program's figure, the
    /// instrument's own as it states, or nothing stated for typed numbers.
    pub fn timing_boundary(&self) -> Boundary {
        if let Some(boundary) = &self.boundary {
            return boundary.clone();
        }
        if let Some(own) = &self.figure {
            return Boundary::OwnFigure { metric: own.spec.describe() };
        }
        if self.conditions.states(ConditionName::Source) {
            let instrument = self.conditions.value_of(ConditionName::Instrument).unwrap_or("its instrument").to_owned();
            return Boundary::Instrument { stated: super::boundary::as_states(&instrument), instrument };
        }
        if self.summary.typed || self.raw_file.is_none() {
            return Boundary::NotStated;
        }
        if KernelSpec::from_argv(&self.command).is_some() { Boundary::KernelCall } else { Boundary::ProcessWall }
    }

    /// The CPUs the timed trials ran on, as the row recorded them (SPEC
    /// E19); `None` where the OS did not tell or the row is older.
    pub fn trial_cpus(&self) -> Option<crate::stats::TrialCpus> {
        crate::stats::TrialCpus::read(self.conditions.value_of(ConditionName::TrialCpus)?)
    }

    /// The warm-up in words: never a count the row does not hold (an
    /// import that did not record it is not "0 discarded").
    fn warmup_words(&self, form: WarmupForm) -> String {
        let k = self.warmup_trials;
        match (self.warmup, form) {
            (WarmupPolicy::Count(_), WarmupForm::Long) => format!("warm-up {k}"),
            (WarmupPolicy::Settle { .. }, WarmupForm::Long) => format!("warm-up {k}, settle"),
            (WarmupPolicy::Count(_) | WarmupPolicy::Settle { .. }, WarmupForm::Short) => format!("after {k} discarded"),
            (WarmupPolicy::Unknown, WarmupForm::Long) => "warm-up not recorded".to_owned(),
            (WarmupPolicy::Unknown, WarmupForm::Short) => "(warm-up not recorded)".to_owned(),
            (WarmupPolicy::Stated(n), WarmupForm::Long) => format!("warm-up {n}, not in the file"),
            (WarmupPolicy::Stated(n), WarmupForm::Short) => format!("after {n} warm-up trial(s) not in the file"),
        }
    }

    /// `n (warm-up + timed)`, e.g. `3 + 31`, or `7 + 31 (settle)`: what
    /// the Runs table shows, and an import's preview before it is a row.
    pub fn n_text(&self) -> String {
        let n = self.summary.n;
        // SPEC E17: with --metric-each, warm-up and -n count processes.
        if let Some(internal) = self.figure.as_ref().and_then(|f| f.internal_text(n)) {
            return format!("{} + {n} ({internal})", self.warmup_trials);
        }
        match self.warmup {
            WarmupPolicy::Count(_) => format!("{} + {}", self.warmup_trials, self.summary.n),
            WarmupPolicy::Settle { .. } => format!("{} + {} (settle)", self.warmup_trials, self.summary.n),
            WarmupPolicy::Unknown => format!("? + {} (warm-up not recorded)", self.summary.n),
            WarmupPolicy::Stated(n) => format!("{n} (not in the file) + {}", self.summary.n),
        }
    }
}

/// A row of the Runs section. The notebook file stores it through its
/// file form (the notebook's private `file` module), which keeps each distinct snapshot once.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// `#`.
    pub number: u32,
    /// When it was recorded.
    pub recorded_at: DateTime<Utc>,
    /// Set when the run was discarded.
    pub discarded: Option<Discard>,
    /// The measured content, shared between copies of the notebook (the
    /// window's, the file thread's): a copy costs a reference count per
    /// row, and changing a row copies that row alone.
    pub measurement: Arc<Measurement>,
    /// The Environment as stated when the run was recorded (SPEC N9);
    /// `None` for a row of a notebook written before rows kept it; shared
    /// like `measurement` (and between rows with the same snapshot).
    pub stated: Option<Arc<Environment>>,
}

impl Run {
    /// `#` as shown: runs are numbered plainly (`run 3`), unlike `P2` and `S1`.
    pub fn label(&self) -> String {
        self.number.to_string()
    }

    /// `n (warm-up + timed)`, e.g. `3 + 31`, or `7 + 31 (settle)`.
    pub fn n_column(&self) -> String {
        self.measurement.n_text()
    }

    /// The row's figures as every face shows them: in the unit S12 picks
    /// for its median, rounded per S6, drift beside the IQR.
    pub fn figures(&self) -> Figures {
        Figures::of(&self.measurement.summary, &self.measurement.unit)
    }

    /// `Median`, rounded per S6, in its display unit (S12).
    pub fn median_column(&self) -> String {
        self.figures().median()
    }

    /// `Dispersion`: the IQR at the place S6 allows, and the drift (S5, S12).
    pub fn dispersion_column(&self) -> String {
        self.figures().dispersion()
    }

    /// SPEC S19: how the timed trials fared against the budget stated for
    /// the run, beside the median, as every face shows it; `None` when no
    /// budget was stated (nothing is said of a budget nobody gave).
    pub fn tail_line(&self) -> Option<String> {
        let m = &self.measurement;
        m.tail.as_ref().map(|t| t.sentence(&self.figures(), m.summary.max))
    }

    /// The canary's verdict on the row's session (course 003; SPEC E7,
    /// E18), as every face shows it; `None` for a row that kept no canary.
    pub fn canary_verdict(&self) -> Option<CanaryVerdict> {
        let m = &self.measurement;
        super::condition::canary_verdict(m.conditions.value_of(ConditionName::Canary)?, m.noise_floor.as_ref())
    }

    /// `Command`, quoted so that it reads as one would type it.
    pub fn command_column(&self) -> String {
        crate::display::quote_argv(&self.measurement.command)
    }

    /// What the row says about where and how it was measured: its own
    /// conditions and its stated snapshot, never today's Environment.
    pub fn context(&self) -> RowContext<'_> {
        RowContext {
            conditions: &self.measurement.conditions,
            stated: self.stated.as_deref(),
            own_code: KernelSpec::from_argv(&self.measurement.command).map(|_| "Vernier's built-in kernel"),
        }
    }

    /// `Conditions` in short (see [`RowContext::brief`]), then what the
    /// time is the time of (SPEC S16): two rows whose numbers look alike
    /// may not time the same thing.
    pub fn conditions_column(&self) -> String {
        self.conditions_parts().text()
    }

    /// [`Run::conditions_column`] part by part, named for a table that
    /// says what its rows share once (SPEC D8).
    pub fn conditions_parts(&self) -> RowParts {
        let mut parts = self.context().brief_parts(Brevity::Column);
        parts.push(BriefPart::method(self.measurement.timing_boundary().brief()));
        RowParts { label: format!("run {}", self.number), parts }
    }

    /// `Raw file`, or an empty string.
    pub fn raw_file_column(&self) -> String {
        raw_file_text(self.measurement.raw_file.as_ref())
    }

    /// The course's long form (D7): the figures, then one line each for
    /// machine, build, conditions, placement, the command (N13), instrument
    /// and provenance, all from the row's own record (SPEC N9).
    pub fn long_form(&self) -> String {
        let m = &self.measurement;
        let instrument = m.conditions.value_of(ConditionName::Instrument).unwrap_or("instrument not stated").to_owned();
        let mut provenance = if m.synthetic { format!("{} (SYNTHETIC data)", m.tag) } else { m.tag.to_string() };
        if let Some(from) = m.conditions.value_of(ConditionName::CopiedFrom) {
            provenance.push_str(&format!(", copied from {from}"));
        }
        let [machine, build, conditions, placement] = self.context().long_lines();
        // The command as it will run, so a row's What never stands in for
        // what its command does (N13).
        let command = if m.command.is_empty() {
            "command: none recorded".to_owned()
        } else {
            format!("command: {}", self.command_column())
        };
        // Each line is made inert on its own, so a stated value cannot add
        // a line of its own (SPEC N10).
        [
            m.what.clone(),
            format!("{}, n={} ({})", self.figures().line(), m.summary.n, m.warmup_words(WarmupForm::Long)),
            machine,
            build,
            conditions,
            placement,
            command,
            format!("instrument: {instrument}"),
            format!("timing boundary: {}", m.timing_boundary().describe()),
            format!("provenance: {provenance}"),
        ]
        .into_iter()
        // SPEC N15: the recipe that built the program, and what it read.
        .chain(m.recipe.iter().flat_map(Recipe::lines))
        // SPEC S19: the tail against the budget stated; E18: the floor.
        .chain(self.tail_line().map(|t| format!("tail: {t}")))
        .chain(m.noise_floor.as_ref().map(|f| format!("noise floor: {}", f.describe())))
        .chain(self.canary_verdict().map(|v| format!("canary: {v}")))
        // SPEC E13: what the trials did besides taking time, when measured,
        // and what that says; SPEC E12: the kernel's sanity check.
        .chain(m.work.as_ref().map(|w| format!("work: {}", w.line())))
        .chain(
            [ConditionName::WorkCheck, ConditionName::SanityCheck]
                .into_iter()
                .filter_map(|name| m.conditions.value_of(name).map(|value| format!("{}: {value}", name.as_str()))),
        )
        .map(inert_line)
        .collect::<Vec<_>>()
        .join("\n  ")
    }

    /// The course's short form (D7): one report sentence with its
    /// conditions as the row recorded them, shown inert.
    pub fn short_form(&self) -> String {
        let m = &self.measurement;
        let f = self.figures();
        let [conditions, build] = self.context().sentence_parts();
        let command = self.command_column();
        let command = if command.is_empty() { String::new() } else { format!(", {command}") };
        inert_line(format!(
            "{}: median {} of {} repetitions {}, {}, {conditions}, {build}{command} ({}).",
            m.what,
            f.median(),
            m.summary.n,
            self.warmup_short(),
            f.dispersion(),
            m.tag,
        ))
    }

    /// The warm-up as the short form says it: `after 3 discarded`.
    pub(crate) fn warmup_short(&self) -> String {
        self.measurement.warmup_words(WarmupForm::Short)
    }

    /// The cell under `column` as displayed; a discarded run is marked in
    /// `#`, never hidden (N5). Every face's table shows cells through here,
    /// so this is where a cell is made inert (SPEC N10).
    pub fn cell(&self, column: RunColumn) -> String {
        self.cell_with(column, &OnceCell::new())
    }

    /// Every cell of the row as displayed, in the order of [`RunColumn::ALL`].
    pub fn columns(&self) -> [String; RunColumn::ALL.len()] {
        self.cells(RunColumn::ALL)
    }

    /// The cells under `columns`, the row's [`Figures`] worked out once for
    /// its figure cells (a semester's table has 10 000 rows, issue 50).
    pub fn cells<const N: usize>(&self, columns: [RunColumn; N]) -> [String; N] {
        let figures = OnceCell::new();
        columns.map(|c| self.cell_with(c, &figures))
    }

    /// [`Self::cell`], the row's figures taken from `figures` once made:
    /// the cells of one row share them.
    pub fn cell_with(&self, column: RunColumn, figures: &OnceCell<Figures>) -> String {
        let figures = || figures.get_or_init(|| self.figures());
        inert_line(match column {
            RunColumn::Number => discarded_label(self.label(), self.discarded.as_ref()),
            RunColumn::What => self.measurement.what.clone(),
            RunColumn::Command => self.command_column(),
            RunColumn::N => self.n_column(),
            RunColumn::Median => figures().median(),
            RunColumn::Dispersion => figures().dispersion(),
            RunColumn::MinMax => figures().min_max(),
            RunColumn::Conditions => self.conditions_column(),
            RunColumn::RawFile => self.raw_file_column(),
            RunColumn::Tag => self.measurement.tag.to_string(),
        })
    }
}

/// The soak protocol, fixed before the run (SPEC T1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoakProtocol {
    /// Total duration, seconds.
    pub duration_s: f64,
    /// Sampling interval, seconds.
    pub interval_s: f64,
    /// Opening window for P, seconds.
    pub opening_window_s: f64,
    /// Tail window for S, seconds.
    pub tail_window_s: f64,
    /// Onset threshold as a fraction of P.
    pub threshold: f64,
    /// Consecutive samples needed for onset and stability.
    pub hold: u32,
    /// Stability band around S, as a fraction.
    pub band: f64,
}

/// A soak protocol to fix with a prediction, and the reason its windows or
/// thresholds differ from what they replace (T13), as
/// [`SoakProtocol::reason_for_change`] gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewProtocol {
    /// The protocol.
    pub protocol: SoakProtocol,
    /// Why it differs; `None` when it does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// A protocol fixed with no reason: what T1's defaults, or windows left as
/// they were, need.
impl From<SoakProtocol> for NewProtocol {
    fn from(protocol: SoakProtocol) -> Self {
        NewProtocol { protocol, why: None }
    }
}

/// The opening window may take at most this share of the duration (T11).
pub const MAX_OPENING_SHARE: f64 = 0.1;
/// The tail window may take at most this share of the duration (T11).
pub const MAX_TAIL_SHARE: f64 = 0.5;

/// A soak protocol that cannot give the six numbers it promises (SPEC
/// T1, T11); the message says which value and what would fit.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProtocolError {
    /// A duration outside its option's range.
    #[error(transparent)]
    Duration(#[from] crate::duration::DurationError),
    /// Numbers that do not fit together (a window longer than the soak …).
    #[error("{0}")]
    Numbers(String),
    /// A window or threshold changed with no reason given (T13).
    #[error(
        "{changed}: a changed window or threshold keeps the reason it was changed (T13); say why, e.g. \
         \"the fan spins up at 20 s, so the burst is over by then\""
    )]
    Unexplained {
        /// What changed, each with the value it replaces.
        changed: String,
    },
}

impl SoakProtocol {
    /// T1's defaults for a soak of this duration and interval: what its
    /// windows and thresholds are changed from (T5, T13).
    pub fn defaults_for(&self) -> SoakProtocol {
        SoakProtocol { duration_s: self.duration_s, interval_s: self.interval_s, ..SoakProtocol::default() }
    }

    /// The analysis settings — windows, onset threshold, hold, band — on
    /// which this protocol differs from `base`, each as its name, its value
    /// here and its value in `base` (SPEC T5, T13).
    pub fn changed_from(&self, base: &SoakProtocol) -> Vec<(&'static str, String, String)> {
        let seconds = |v: f64| format!("{v} s");
        [
            ("opening window", seconds(self.opening_window_s), seconds(base.opening_window_s)),
            ("tail window", seconds(self.tail_window_s), seconds(base.tail_window_s)),
            ("onset threshold", format!("{} of P", self.threshold), format!("{} of P", base.threshold)),
            ("hold", format!("{} samples", self.hold), format!("{} samples", base.hold)),
            ("stability band", format!("±{}", self.band), format!("±{}", base.band)),
        ]
        .into_iter()
        .filter(|(_, here, there)| here != there)
        .collect()
    }

    /// SPEC T13: a window or threshold changed from `base` (T1's defaults,
    /// or the protocol an amendment replaces) keeps the reason given for
    /// it. The reason to seal with the protocol, trimmed; `None` when
    /// nothing changed (a reason for no change says nothing and is not
    /// kept); refused when something changed and no reason is given.
    pub fn reason_for_change(&self, base: &SoakProtocol, why: Option<&str>) -> Result<Option<String>, ProtocolError> {
        let changed = self.changed_from(base);
        if changed.is_empty() {
            return Ok(None);
        }
        match why.map(str::trim).filter(|w| !w.is_empty()) {
            Some(why) => Ok(Some(why.to_owned())),
            None => Err(ProtocolError::Unexplained {
                changed: changed
                    .iter()
                    .map(|(name, here, there)| format!("the {name} is {here}, not {there}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// SPEC T1, T11: a protocol whose numbers can mean what they say — the
    /// opening window (P) at most a tenth of the duration and the tail
    /// window (S) at most half, so between them there is room for the onset
    /// and the knee and S never takes in the burst; at least one sample in
    /// the opening window. The message gives the numbers and what would fit.
    pub fn check(&self) -> Result<(), ProtocolError> {
        use crate::duration::{SOAK_DURATION, SOAK_INTERVAL, SOAK_OPENING_WINDOW, SOAK_TAIL_WINDOW};
        let times = [
            (SOAK_DURATION, self.duration_s),
            (SOAK_INTERVAL, self.interval_s),
            (SOAK_OPENING_WINDOW, self.opening_window_s),
            (SOAK_TAIL_WINDOW, self.tail_window_s),
        ];
        for (bound, value) in times {
            bound.check(value)?;
        }
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return Err(ProtocolError::Numbers(format!(
                "the onset threshold must be a fraction of P in (0, 1] (got {})",
                self.threshold
            )));
        }
        if self.hold < 1 || !(self.band >= 0.0 && self.band.is_finite()) {
            return Err(ProtocolError::Numbers(format!(
                "hold must be at least 1 sample and the band not negative (got {}, {})",
                self.hold, self.band
            )));
        }
        let d = self.duration_s;
        if self.interval_s > d {
            return Err(ProtocolError::Numbers(format!(
                "the interval ({} s) is longer than the duration ({d} s)",
                self.interval_s
            )));
        }
        if self.opening_window_s > d * MAX_OPENING_SHARE {
            return Err(ProtocolError::Numbers(format!(
                "the opening window ({} s) is more than a tenth of the duration ({d} s): P would not be the burst; \
                 make it at most {} s, or the duration at least {} s",
                self.opening_window_s,
                d * MAX_OPENING_SHARE,
                self.opening_window_s / MAX_OPENING_SHARE
            )));
        }
        if self.tail_window_s > d * MAX_TAIL_SHARE {
            return Err(ProtocolError::Numbers(format!(
                "the tail window ({} s) is more than half the duration ({d} s): S would take in the burst and the \
                 knee; make it at most {} s, or the duration at least {} s",
                self.tail_window_s,
                d * MAX_TAIL_SHARE,
                self.tail_window_s / MAX_TAIL_SHARE
            )));
        }
        if self.interval_s > self.opening_window_s {
            return Err(ProtocolError::Numbers(format!(
                "the interval ({} s) is longer than the opening window ({} s): no sample would measure P",
                self.interval_s, self.opening_window_s
            )));
        }
        Ok(())
    }

    /// The whole protocol in words, as the log shows it before and after
    /// the run (T1): `600 s sampled every 10 s; opening window 30 s, tail
    /// 300 s; onset below 0.95 of P for 3 samples; band ±0.03`.
    pub fn describe(&self) -> String {
        format!(
            "{} s sampled every {} s; opening window {} s, tail {} s; onset below {} of P for {} samples; band ±{}",
            self.duration_s,
            self.interval_s,
            self.opening_window_s,
            self.tail_window_s,
            self.threshold,
            self.hold,
            self.band
        )
    }

    /// How many samples the protocol takes: one at the end of every whole
    /// interval of the duration (the soak's progress total).
    pub fn samples(&self) -> u32 {
        let n = (self.duration_s / self.interval_s).floor();
        if n.is_finite() && n > 0.0 { n.min(f64::from(u32::MAX)) as u32 } else { 0 }
    }
}

impl Default for SoakProtocol {
    /// The course's conventions: 600 s, 10 s, 30 s, 300 s, 0.95, 3, 0.03.
    fn default() -> Self {
        Self {
            duration_s: 600.0,
            interval_s: 10.0,
            opening_window_s: 30.0,
            tail_window_s: 300.0,
            threshold: 0.95,
            hold: 3,
            band: 0.03,
        }
    }
}

/// The six numbers of a soak (SPEC T5), always reported together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoakNumbers {
    /// P: median score over the opening window.
    pub peak: f64,
    /// t_onset in seconds; `None` is "none observed".
    pub t_onset: Option<f64>,
    /// t_stable in seconds; `None` is "none observed".
    pub t_stable: Option<f64>,
    /// S: median score over the tail window.
    pub sustained: f64,
    /// S/P.
    pub ratio: f64,
    /// IQR of the score over the tail window.
    pub tail_iqr: f64,
    /// Unit of P, S and the tail IQR, e.g. `chunks/s`.
    pub unit: String,
}

impl SoakNumbers {
    /// The knee (SPEC T11): how long the fall from the onset to the stable
    /// band took, t_stable − t_onset in seconds — or why there is none.
    pub fn knee(&self) -> Result<f64, &'static str> {
        match (self.t_onset, self.t_stable) {
            (Some(onset), Some(stable)) => Ok(stable - onset),
            (None, _) => Err("no onset observed"),
            (Some(_), None) => Err("the score never held within the band of S after the onset"),
        }
    }

    /// The six numbers and the knee as every face shows them (SPEC T5,
    /// T11, S6): P and S at the place the tail IQR supports (the one
    /// dispersion a soak has), the IQR at its significant digits, S/P to
    /// two, the times in seconds as sampled.
    pub fn shown(&self) -> [(&'static str, String); 7] {
        let rounded = |v: f64| crate::stats::Rounded::new(v, self.tail_iqr, v, v);
        let with_unit = |text: String| if self.unit.is_empty() { text } else { format!("{text} {}", self.unit) };
        let seconds = |t: Option<f64>| t.map_or_else(|| "none observed".to_owned(), |t| format!("{t} s"));
        [
            ("P", with_unit(rounded(self.peak).median)),
            ("t_onset", seconds(self.t_onset)),
            ("t_stable", seconds(self.t_stable)),
            ("knee", self.knee_text()),
            ("S", with_unit(rounded(self.sustained).median)),
            ("S/P", format_significant(self.ratio, 2)),
            ("tail IQR", with_unit(rounded(self.sustained).iqr)),
        ]
    }

    /// The tag each of [`Self::shown`]'s figures carries (A7, S17) on a row
    /// tagged `row`: P, S and the tail IQR summarise the samples, so they
    /// carry the row's own tag; t_onset, t_stable, the knee and S/P are
    /// computed from those summaries by the T5 rules, so a MEASURED soak's
    /// are DERIVED (a MODELED or CITED soak's stay as the row says).
    pub fn tags(row: Tag) -> [Tag; 7] {
        let computed = if row == Tag::Measured { Tag::Derived } else { row };
        [row, computed, computed, computed, row, computed, row]
    }

    /// [`Self::shown`] on one line: `P 99.3 chunks/s · t_onset 80 s · …`.
    pub fn shown_line(&self) -> String {
        self.shown().map(|(name, value)| format!("{name} {value}")).join(" · ")
    }

    /// The knee as every face shows it: `120 s`, or `none (no onset observed)`.
    pub fn knee_text(&self) -> String {
        match self.knee() {
            Ok(seconds) => format!("{seconds} s"),
            Err(why) => format!("none ({why})"),
        }
    }
}

/// A row of the Soak runs section, stored like a [`Run`] through the
/// notebook's file form.
#[derive(Debug, Clone, PartialEq)]
pub struct Soak {
    /// `#`, shown as `S{number}`.
    pub number: u32,
    /// When it was recorded.
    pub recorded_at: DateTime<Utc>,
    /// Set when the soak was discarded.
    pub discarded: Option<Discard>,
    /// The protocol fixed before the run.
    pub protocol: SoakProtocol,
    /// The six numbers.
    pub numbers: SoakNumbers,
    /// Conditions of the run.
    pub conditions: Vec<Condition>,
    /// The soak CSV.
    pub raw_file: Option<RawFile>,
    /// Provenance.
    pub tag: Tag,
    /// True for a shipped synthetic dataset.
    pub synthetic: bool,
    /// The Environment as stated when the soak was recorded (SPEC N9).
    pub stated: Option<Environment>,
}

impl Soak {
    /// `S{number}`.
    pub fn label(&self) -> String {
        format!("S{}", self.number)
    }

    /// What the row says about where and how it ran (see [`Run::context`]).
    pub fn context(&self) -> RowContext<'_> {
        // The soak's load is Vernier's own code: its build is Vernier's.
        RowContext { conditions: &self.conditions, stated: self.stated.as_ref(), own_code: Some("Vernier's soak load") }
    }

    /// The cell under `column` as displayed, inert (SPEC N10); a discarded
    /// soak is marked in `#`, never hidden (N5). P, S, S/P and the tail IQR
    /// are [`SoakNumbers::shown`]'s, so the row reads exactly as the numbers
    /// beside its chart, the workbook and the report (S6: P and S at the
    /// place the tail IQR supports).
    pub fn cell(&self, column: SoakColumn) -> String {
        let n = &self.numbers;
        let [peak, onset, stable, knee, sustained, ratio, tail_iqr] = n.shown().map(|(_, value)| value);
        inert_line(match column {
            SoakColumn::Number => discarded_label(self.label(), self.discarded.as_ref()),
            SoakColumn::Duration => format!("{} s", self.protocol.duration_s),
            SoakColumn::Interval => format!("{} s", self.protocol.interval_s),
            SoakColumn::Peak => peak,
            SoakColumn::Onset => onset,
            SoakColumn::Stable => stable,
            SoakColumn::Knee => knee,
            SoakColumn::Sustained => sustained,
            SoakColumn::Ratio => ratio,
            SoakColumn::TailIqr => {
                if n.sustained == 0.0 {
                    tail_iqr
                } else {
                    format!("{tail_iqr} ({}% of S)", format_significant(100.0 * n.tail_iqr / n.sustained, 2))
                }
            }
            SoakColumn::Conditions => self.context().brief(Brevity::Column),
            SoakColumn::RawFile => raw_file_text(self.raw_file.as_ref()),
        })
    }

    /// Every cell of the row as displayed, in the order of [`SoakColumn::ALL`].
    pub fn columns(&self) -> [String; SoakColumn::ALL.len()] {
        SoakColumn::ALL.map(|c| self.cell(c))
    }
}

/// A row a discard or a note can point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RowRef {
    /// A Runs row.
    Run(u32),
    /// A Soak runs row.
    Soak(u32),
}

impl std::fmt::Display for RowRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowRef::Run(n) => write!(f, "run {n}"),
            RowRef::Soak(n) => write!(f, "soak S{n}"),
        }
    }
}

/// A row's `#` cell: its label, marked when the row was discarded (N5).
fn discarded_label(label: String, discarded: Option<&Discard>) -> String {
    match discarded {
        Some(_) => format!("{label} (discarded)"),
        None => label,
    }
}

fn raw_file_text(raw: Option<&RawFile>) -> String {
    raw.map(|r| r.path.to_string()).unwrap_or_default()
}
