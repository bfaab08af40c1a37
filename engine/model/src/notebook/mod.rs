//! The measurement log (SPEC N1–N8).
//!
//! A [`Notebook`] holds the five sections. Its rules live in its methods: a
//! locked prediction cannot be edited, nothing is deleted, a discard is noted
//! automatically. The folder on disk is handled by [`store`].

mod answer;
mod boundary;
mod columns;
mod committed;
mod condition;
mod context;
mod document;
mod environment;
mod error;
mod figure;
mod file;
mod kernel;
mod optimisation;
mod pair;
mod param;
mod path;
pub mod pending;
pub mod plausible;
mod prediction;
mod recipe;
mod run;
mod score;
mod shared_conditions;
mod statement;
pub mod store;
mod sweep;
mod tag;
mod time;
mod work;
mod writing;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use answer::{Answer, AnswerRefused, AnsweredBy};
pub use boundary::{BRIEF_FIELD as BOUNDARY_FIELD, Boundary, as_states};
pub use columns::{PredictionColumn, RunColumn, SoakColumn};
pub use committed::{Committed, FIGURE_FORMS, FigureError, Tolerance};
pub use condition::{
    Brevity, BriefPart, CONTROL, Condition, ConditionKind, ConditionName, Conditions, Facet, NO_PLACEMENT,
    brief_conditions, canary_ratio, canary_start_ms, canary_value, canary_verdict, conditions_text,
};
pub use context::{FROM_ENVIRONMENT, NOT_RECORDED, PINNED_TO, RowContext};
pub use document::Document;
pub use environment::{BadWorkbench, Bench, EnvField, Environment, UnknownField, Workbench};
pub use error::{CreateError, FolderError, JournalError, LoadError, NotebookError, SaveError, SaveStep, create_folder};
pub use figure::{MetricSpec, OwnFigure, Source};
pub use kernel::{DEFAULT_MATMUL_N, DEFAULT_TILE, DEFAULT_WORKING_SET, KernelKind, KernelSpec};
pub use optimisation::{Optimisation, build_warning};
pub use pair::{NewPair, Pair};
pub use param::{MAX_POINTS, MAX_VALUES, Param, ParamError, point_label};
pub use path::{NotebookPath, NotebookRoot, PathError};
pub use prediction::{Amendment, IntegrityFinding, Lock, LockCause, Prediction, PredictionText};
pub use recipe::{
    MAX_KEPT_BYTES, MAX_KEPT_SOURCE_BYTES, MAX_SOURCES, Rebuilt, Recipe, RecipeHashError, RecipeSource, is_confined,
    kept_name, rebuild_sentence, short_sha256,
};
pub use run::{
    Discard, ImportFormat, MAX_OPENING_SHARE, MAX_TAIL_SHARE, Measurement, NewProtocol, ProtocolError, RawFile, RowRef,
    Run, Soak, SoakNumbers, SoakProtocol, WarmupPolicy,
};
pub use score::{Score, Scored, Word, score_median, score_ratio, score_soak, short_row};
pub use shared_conditions::{RowParts, SharedConditions};
pub use statement::RunStatement;
pub use sweep::{NewSweep, Sweep, SweepError, SweepPoint};
pub use tag::Tag;
pub use work::{TrialCounts, Work};
pub use writing::{Budget, Citation, WHOLE_DOCUMENT, Writing, is_date};

/// The Runs section's column names, exactly as the log shows them (N2).
pub const RUN_COLUMNS: [&str; RunColumn::ALL.len()] = RunColumn::HEADERS;
/// The Predictions section's column names (N2), then the time recorded.
pub const PREDICTION_COLUMNS: [&str; PredictionColumn::ALL.len()] = PredictionColumn::HEADERS;
/// The Soak runs section's column names (N2).
pub const SOAK_COLUMNS: [&str; SoakColumn::ALL.len()] = SoakColumn::HEADERS;
/// The notebook's trial budget as every face names it (S19): shown with
/// the Environment, though not one of N2's ten fields, and set as one
/// (`vernier set DIR "Trial budget" 0.0167`).
pub const TRIAL_BUDGET: &str = "Trial budget";
/// The five sections, in order.
pub const SECTIONS: [&str; 5] = ["Environment", "Predictions", "Runs", "Soak runs", "Notes and anomalies"];
/// A Runs row's Conditions cell when it states nothing beyond what every
/// run shares, which the table says once above it (SPEC D8).
pub const AS_SHARED: &str = "as shared above";
/// The heading of the predictions section as the course writes it.
pub const PREDICTIONS_HEADING: &str = "Predictions — recorded BEFORE any run";

/// A time-stamped line under Notes and anomalies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Note {
    /// When it was written.
    #[serde(with = "time")]
    pub at: DateTime<Utc>,
    /// The text.
    pub text: String,
    /// The row it is about (set for the automatic discard notes).
    pub about: Option<RowRef>,
    /// Where it came from when not from Vernier itself: "edited in a
    /// spreadsheet (exports/measurements.xlsx)" for an edit taken in from a
    /// workbook (N12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Who wrote its words: a person, or Vernier (SPEC A20: Vernier's own
    /// text is never an audit finding, and is known so by this, never by
    /// reading the text).
    #[serde(default, skip_serializing_if = "Author::is_person")]
    pub by: Author,
}

/// Who wrote a note's words (SPEC A20).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Author {
    /// A person: typed in the window, with `vernier note`, in a workbook
    /// taken in by a merge, or the reason of a discard.
    #[default]
    Person,
    /// Vernier, when it recorded a comparison, an import, an extension, a
    /// soak, a rerun or a merge: generated from typed data.
    Vernier,
}

impl Author {
    fn is_person(&self) -> bool {
        *self == Author::Person
    }
}

impl Note {
    /// A note as the log takes it: its text trimmed, never empty.
    pub fn new(
        text: &str,
        about: Option<RowRef>,
        source: Option<&str>,
        by: Author,
        at: DateTime<Utc>,
    ) -> Result<Self, NotebookError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(NotebookError::Empty("note"));
        }
        Ok(Self { at, text: text.to_owned(), about, source: source.map(str::to_owned), by })
    }
}

/// The source every edit taken in from a workbook is recorded with (N12).
pub const FROM_SPREADSHEET: &str = "edited in a spreadsheet";

/// A line of the Runs table: a run, a comparison shown under its two
/// rows with its verdict (SPEC S11), or a sweep under its points (E16).
#[derive(Debug, Clone, Copy)]
pub enum RunsLine<'a> {
    /// A Runs row.
    Run(&'a Run),
    /// A comparison, after the later of its two rows.
    Pair(&'a Pair),
    /// A sweep, after the last of its rows.
    Sweep(&'a Sweep),
}

impl RunsLine<'_> {
    /// The cell under `column`, inert.
    pub fn cell(&self, column: RunColumn) -> String {
        match self {
            RunsLine::Run(run) => run.cell(column),
            RunsLine::Pair(pair) => pair.cell(column),
            RunsLine::Sweep(sweep) => sweep.cell(column),
        }
    }

    /// Every cell of the line, in the order of [`RunColumn::ALL`].
    pub fn columns(&self) -> [String; RunColumn::ALL.len()] {
        match self {
            RunsLine::Run(run) => run.columns(),
            _ => RunColumn::ALL.map(|c| self.cell(c)),
        }
    }
}

/// The whole log of one project. It is written and read through its file
/// form (the private `file` module), which stores each row's snapshot once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "file::NotebookFile", try_from = "file::NotebookFile")]
pub struct Notebook {
    /// Schema version of the file (N8).
    pub schema: u32,
    /// Project title, e.g. "Project 3 — The Memory Wall Lab".
    pub title: String,
    /// When the notebook was created.
    #[serde(with = "time")]
    pub created_at: DateTime<Utc>,
    /// The Environment section; every field may be edited at any time.
    environment: Environment,
    predictions: Vec<Prediction>,
    runs: Vec<Run>,
    soaks: Vec<Soak>,
    /// Interleaved comparisons, each naming its two Runs rows (S11).
    pairs: Vec<Pair>,
    /// Parameter scans, each naming its Runs rows (E16).
    sweeps: Vec<Sweep>,
    notes: Vec<Note>,
    /// What the student wrote for the documents (D2).
    writing: Writing,
    /// The rows that answer predictions, and predictions left open (N14).
    answers: Vec<Answer>,
    /// Soaks started and not recorded yet, by the prediction whose
    /// protocol each runs (T1): that prediction is fixed while it runs.
    soaks_started: Vec<SoakStart>,
    /// The budget, in seconds, each trial of a new run is held to when the
    /// run states none of its own (S19): a notebook-wide setting shown with
    /// the Environment. A row keeps the budget it was measured against in
    /// its tail, so changing this never changes a recorded row.
    trial_budget: Option<f64>,
}

/// A trial budget as the notebook keeps it: `None`, or seconds within the
/// range `bench --budget` takes (S19) — whoever typed it, wherever.
pub(crate) fn checked_trial_budget(seconds: Option<f64>) -> Result<Option<f64>, crate::duration::DurationError> {
    seconds.map(|s| crate::duration::BUDGET.check(s).map(crate::duration::Seconds::get)).transpose()
}

/// A soak started under P`prediction`'s protocol at `at` (T1), until a soak
/// is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoakStart {
    /// The prediction whose protocol the soak runs.
    pub prediction: u32,
    /// When it started.
    #[serde(with = "time")]
    pub at: DateTime<Utc>,
}

impl Notebook {
    /// An empty notebook.
    pub fn new(title: &str, at: DateTime<Utc>) -> Self {
        Self {
            schema: store::SCHEMA_VERSION,
            title: title.to_owned(),
            created_at: at,
            environment: Environment::default(),
            predictions: Vec::new(),
            runs: Vec::new(),
            soaks: Vec::new(),
            pairs: Vec::new(),
            sweeps: Vec::new(),
            notes: Vec::new(),
            writing: Writing::default(),
            answers: Vec::new(),
            soaks_started: Vec::new(),
            trial_budget: None,
        }
    }

    /// The budget (seconds) a new run that states none is held to (S19).
    pub fn trial_budget(&self) -> Option<f64> {
        self.trial_budget
    }

    /// Sets the budget new runs that state none are held to, within the
    /// range `bench --budget` takes; `None` clears it (S19).
    pub fn set_trial_budget(&mut self, seconds: Option<f64>) -> Result<(), NotebookError> {
        self.trial_budget = checked_trial_budget(seconds)?;
        Ok(())
    }

    /// A trial budget in words, in the unit that suits it (`16.7 ms`).
    pub fn trial_budget_words(seconds: f64) -> String {
        let unit = crate::stats::units::DisplayUnit::for_median("s", seconds);
        unit.after(&crate::stats::format_plain(unit.scale(seconds)))
    }

    /// What a change of the trial budget to `seconds` says once saved, the
    /// same on every face (S19).
    pub fn trial_budget_said(seconds: Option<f64>) -> String {
        match seconds {
            Some(s) => format!(
                "trial budget set: {}; new runs that state no budget of their own are held to it",
                Self::trial_budget_words(s)
            ),
            None => "trial budget cleared: new runs are held to a budget only when they state one".to_owned(),
        }
    }

    /// The Environment section.
    pub fn environment(&self) -> &Environment {
        &self.environment
    }

    /// What the student wrote for the documents: answers, citations,
    /// placement deadlines.
    pub fn writing(&self) -> &Writing {
        &self.writing
    }

    /// Sets an Environment field (any field, at any time; empty clears it).
    pub fn set_environment_field(&mut self, field: EnvField, value: &str) -> Result<(), NotebookError> {
        Ok(self.environment.set(field, value)?)
    }

    /// Writes (or, empty, clears) the answer to a document's prompt (D2).
    pub fn set_answer(&mut self, document: &str, prompt: &str, text: &str) {
        self.writing.set_answer(document, prompt, text);
    }

    /// Marks a prompt (or, with [`WHOLE_DOCUMENT`], a whole document) as not
    /// part of this submission with its reason; an empty reason takes it back
    /// (SPEC A16).
    pub fn set_not_part(&mut self, document: &str, prompt: &str, reason: &str) -> Result<(), NotebookError> {
        self.writing.set_not_part(document, prompt, reason)
    }

    /// States that the report cites nothing, or takes that back.
    pub fn set_no_citations(&mut self, none: bool) -> Result<(), NotebookError> {
        self.writing.set_no_citations(none)
    }

    /// Adds a checked citation; returns its number (1-based).
    pub fn add_citation(&mut self, citation: Citation) -> Result<usize, NotebookError> {
        self.writing.add_citation(citation)
    }

    /// Removes citation `number` (1-based) and returns it.
    pub fn remove_citation(&mut self, number: usize) -> Result<Citation, NotebookError> {
        self.writing.remove_citation(number)
    }

    /// Keeps these deadlines for the placement table (D6).
    pub fn set_deadlines(&mut self, budgets: Vec<Budget>) -> Result<(), NotebookError> {
        self.writing.set_deadlines(budgets)
    }

    /// The Predictions section, amendments included, in recorded order.
    pub fn predictions(&self) -> &[Prediction] {
        &self.predictions
    }

    /// The Runs section, discarded rows included.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// The Soak runs section, discarded rows included.
    pub fn soaks(&self) -> &[Soak] {
        &self.soaks
    }

    /// The interleaved comparisons, in recorded order.
    pub fn pairs(&self) -> &[Pair] {
        &self.pairs
    }

    /// Comparison `C{number}`.
    pub fn pair(&self, number: u32) -> Option<&Pair> {
        self.pairs.iter().find(|p| p.number == number)
    }

    /// The comparison run `number` is an arm of, with the arm's index (0
    /// for A, 1 for B).
    pub fn pair_of(&self, number: u32) -> Option<(&Pair, usize)> {
        self.pairs.iter().find_map(|p| p.runs.iter().position(|&r| r == number).map(|arm| (p, arm)))
    }

    /// The Runs table's Conditions said once (SPEC D8, N2): what every run
    /// shares, and each run's own cell in the order of [`Notebook::runs`],
    /// inert. The full conditions stay in each run's long form.
    pub fn runs_conditions(&self) -> SharedConditions {
        let rows: Vec<RowParts> = self.runs.iter().map(Run::conditions_parts).collect();
        Self::runs_conditions_of(&rows)
    }

    /// [`Notebook::runs_conditions`] from each run's
    /// [`Run::conditions_parts`], in the order of [`Notebook::runs`], worked
    /// out beforehand: a window keeps a run's parts until its record
    /// changes.
    pub fn runs_conditions_of<R: std::borrow::Borrow<RowParts>>(rows: &[R]) -> SharedConditions {
        let mut split = SharedConditions::of(rows, AS_SHARED);
        for part in &mut split.shared {
            part.text = crate::display::inert_line(std::mem::take(&mut part.text));
        }
        for cell in &mut split.cells {
            *cell = crate::display::inert_line(std::mem::take(cell));
        }
        split
    }

    /// The Runs table's lines: every run in order, each comparison right
    /// after the later of its two rows, each sweep after its last.
    pub fn runs_lines(&self) -> Vec<RunsLine<'_>> {
        let mut pairs: Vec<(u32, &Pair)> = self.pairs.iter().map(|p| (p.runs[0].max(p.runs[1]), p)).collect();
        pairs.sort_by_key(|(closing, _)| *closing);
        let mut pairs = pairs.into_iter().peekable();
        let mut sweeps: Vec<(u32, &Sweep)> =
            self.sweeps.iter().map(|s| (s.runs.iter().copied().max().unwrap_or(0), s)).collect();
        sweeps.sort_by_key(|(closing, _)| *closing);
        let mut sweeps = sweeps.into_iter().peekable();
        let mut lines = Vec::with_capacity(self.runs.len() + self.pairs.len() + self.sweeps.len());
        for run in &self.runs {
            lines.push(RunsLine::Run(run));
            while let Some((_, pair)) = pairs.next_if(|(closing, _)| *closing <= run.number) {
                lines.push(RunsLine::Pair(pair));
            }
            while let Some((_, sweep)) = sweeps.next_if(|(closing, _)| *closing <= run.number) {
                lines.push(RunsLine::Sweep(sweep));
            }
        }
        lines
    }

    /// Records runs `a` and `b` as one comparison; returns its number.
    pub fn record_pair(&mut self, pair: NewPair, runs: [u32; 2], at: DateTime<Utc>) -> Result<u32, NotebookError> {
        for n in runs {
            if self.run(n).is_none() {
                return Err(NotebookError::NoSuchRow(RowRef::Run(n)));
            }
        }
        let number = next_number(self.pairs.iter().map(|p| p.number));
        let NewPair { what, labels, verdict, paired, order } = pair;
        self.pairs.push(Pair { number, what, runs, labels, verdict, paired, order, recorded_at: at });
        Ok(number)
    }

    /// The parameter scans, in recorded order.
    pub fn sweeps(&self) -> &[Sweep] {
        &self.sweeps
    }

    /// The sweep run `number` is a point of.
    pub fn sweep_of(&self, number: u32) -> Option<&Sweep> {
        self.sweeps.iter().find(|s| s.runs.contains(&number))
    }

    /// Records `runs` (one per point, in `sweep.points` order) as one
    /// sweep; returns its number.
    pub fn record_sweep(&mut self, sweep: NewSweep, runs: Vec<u32>, at: DateTime<Utc>) -> Result<u32, NotebookError> {
        for &n in &runs {
            if self.run(n).is_none() {
                return Err(NotebookError::NoSuchRow(RowRef::Run(n)));
            }
        }
        let number = next_number(self.sweeps.iter().map(|s| s.number));
        let NewSweep { what, template, params, points } = sweep;
        self.sweeps.push(Sweep { number, what, template, params, runs, points, recorded_at: at });
        Ok(number)
    }

    /// Notes and anomalies, in time order.
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// Prediction `P{number}`.
    pub fn prediction(&self, number: u32) -> Option<&Prediction> {
        self.predictions.iter().find(|p| p.number == number)
    }

    /// Run `R{number}`.
    pub fn run(&self, number: u32) -> Option<&Run> {
        self.runs.iter().find(|r| r.number == number)
    }

    /// The other arm of the interleaved comparison run `number` belongs
    /// to: its pair's other run; for rows recorded before comparisons were
    /// kept as pairs, the run that shares its raw file (arm A or B) — never
    /// for a sweep's point.
    pub fn comparison_partner(&self, number: u32) -> Option<&Run> {
        if let Some((pair, arm)) = self.pair_of(number) {
            return self.run(pair.runs[1 - arm]);
        }
        // A sweep's points share one raw file but compare with nothing (E16).
        if self.sweep_of(number).is_some() {
            return None;
        }
        let raw = self.run(number)?.measurement.raw_file.as_ref()?;
        self.runs
            .iter()
            .find(|r| r.number != number && r.measurement.raw_file.as_ref().is_some_and(|o| o.path == raw.path))
    }

    /// Records a new prediction and seals it into the chain; returns its
    /// number. A soak's two numbers belong to a soak prediction, with its
    /// protocol (T1).
    pub fn add_prediction(&mut self, text: PredictionText, at: DateTime<Utc>) -> Result<u32, NotebookError> {
        let text = checked(text)?;
        if let Some(figure @ Committed::Soak { .. }) = &text.figure {
            return Err(NotebookError::Figure(FigureError {
                text: figure.to_string(),
                reason: "onset and S/P are a soak's numbers: record them with the soak's protocol (`predict --soak`)"
                    .to_owned(),
            }));
        }
        Ok(self.push_prediction(text, None, None, at))
    }

    /// Records a soak prediction with the protocol fixed before the run
    /// (T1): both are sealed together and lock when the soak is recorded.
    pub fn add_soak_prediction(
        &mut self,
        text: PredictionText,
        protocol: impl Into<NewProtocol>,
        at: DateTime<Utc>,
    ) -> Result<u32, NotebookError> {
        let NewProtocol { protocol, why } = protocol.into();
        let text = checked(text)?;
        protocol.check()?;
        // T1: the prediction commits when the rate falls and to what fraction.
        if !matches!(text.figure, Some(Committed::Soak { .. })) {
            return Err(NotebookError::Figure(FigureError {
                text: text.figure.as_ref().map(ToString::to_string).unwrap_or_default(),
                reason: "a soak prediction commits its two numbers, the onset second and the fraction S/P: \
                         `onset 180 s ± 20 %, S/P 0.8 ± 0.05` (`onset none, …` for no onset)"
                    .to_owned(),
            }));
        }
        Ok(self.push_prediction(text, None, Some(NewProtocol { protocol, why }), at))
    }

    /// The protocol the next soak must run (T1, T11): the newest soak
    /// prediction that no soak has followed yet, locked or open — a bench
    /// run locks every open prediction (N4), and a locked protocol is still
    /// the fixed one, so it never blocks its soak.
    pub fn next_soak_protocol(&self) -> Option<(u32, SoakProtocol)> {
        let newest = self.predictions.iter().rev().find(|p| p.protocol.is_some())?;
        let followed = self.soaks.iter().any(|s| s.recorded_at >= newest.recorded_at);
        (!followed).then_some(newest).and_then(|p| p.protocol.map(|proto| (p.number, proto)))
    }

    /// Why soak `soak`'s windows or thresholds were changed (T13): the
    /// reason sealed with the prediction that fixed its protocol — the
    /// newest one with that protocol, written before the soak was recorded.
    pub fn protocol_why(&self, soak: &Soak) -> Option<&str> {
        self.predictions
            .iter()
            .rev()
            .filter(|p| p.recorded_at <= soak.recorded_at)
            .find(|p| p.protocol == Some(soak.protocol))?
            .protocol_why
            .as_deref()
    }

    /// Rewrites an open prediction. A locked one is refused (N4).
    pub fn edit_prediction(&mut self, number: u32, text: PredictionText) -> Result<(), NotebookError> {
        let text = checked(text)?;
        let index = self.prediction_index(number)?;
        if let Some(lock) = self.lock_of(&self.predictions[index]) {
            return Err(NotebookError::PredictionLocked { number, lock });
        }
        let mut before = prediction::chain_states(&self.predictions);
        // The edited row is open, so its new content is legitimately sealed.
        before[index] = prediction::ChainState::Sound;
        let p = &mut self.predictions[index];
        p.experiment = text.experiment;
        p.predict = text.predict;
        p.why = text.why;
        p.figure = text.figure;
        // Only open predictions follow an open one (locks cover a prefix of
        // the chain), so re-sealing from here on touches no locked row.
        prediction::reseal_from(&mut self.predictions, index, &before);
        Ok(())
    }

    /// Adds an amendment to `P{number}`, quoting it; the original is kept
    /// unchanged. Returns the amendment's own number.
    pub fn amend_prediction(
        &mut self,
        number: u32,
        predict: &str,
        why: &str,
        at: DateTime<Utc>,
    ) -> Result<u32, NotebookError> {
        self.amend_prediction_with(number, predict, why, None, None, at)
    }

    /// [`Self::amend_prediction`], changing the committed figure (N14)
    /// or a soak prediction's protocol as well (T1, T11): the amendment
    /// carries the new one, sealed and chained like any amendment; what is
    /// not given stays as the original had it. A soak already run keeps the
    /// protocol it ran under, and a row measured before the amendment is
    /// scored against the figure it replaced. A protocol for a prediction
    /// that fixed none is refused, and so is a figure of another kind.
    pub fn amend_prediction_with(
        &mut self,
        number: u32,
        predict: &str,
        why: &str,
        figure: Option<Committed>,
        protocol: Option<NewProtocol>,
        at: DateTime<Utc>,
    ) -> Result<u32, NotebookError> {
        let original = &self.predictions[self.prediction_index(number)?];
        // T1: a soak running under this protocol runs it as it was fixed.
        if let Some(started) = self.soak_started(number) {
            return Err(NotebookError::BadProtocol(format!(
                "P{number}'s soak started at {} and is not recorded yet: its prediction and protocol stay as they \
                 were fixed until it is; if that soak stopped without being recorded, fix a new protocol with a new \
                 prediction (`vernier predict --soak`)",
                started.format("%Y-%m-%d %H:%M:%S UTC")
            )));
        }
        let figure = match (figure, &original.figure) {
            (Some(new), Some(old)) if std::mem::discriminant(&new) != std::mem::discriminant(old) => {
                return Err(NotebookError::Figure(FigureError {
                    text: new.to_string(),
                    reason: format!(
                        "P{number} commits a figure answered by {}; an amendment keeps that kind",
                        old.answered_by()
                    ),
                }));
            }
            (Some(new), _) => Some(new),
            (None, kept) => kept.clone(),
        };
        let text = checked(PredictionText {
            experiment: original.experiment.clone(),
            predict: predict.to_owned(),
            why: why.to_owned(),
            figure,
        })?;
        let amends = Amendment { of: number, quote: original.predict.clone() };
        let protocol = match (protocol, original.protocol) {
            (Some(mut new), Some(old)) => {
                new.protocol.check()?;
                // T13: windows left as they were keep the reason they had.
                if new.why.is_none() && new.protocol.changed_from(&old).is_empty() {
                    new.why.clone_from(&original.protocol_why);
                }
                Some(new)
            }
            (Some(_), None) => {
                return Err(NotebookError::BadProtocol(format!(
                    "P{number} fixed no soak protocol, so an amendment of it cannot change one"
                )));
            }
            // The protocol kept, with the reason it was fixed with.
            (None, kept) => kept.map(|protocol| NewProtocol { protocol, why: original.protocol_why.clone() }),
        };
        Ok(self.push_prediction(text, Some(amends), protocol, at))
    }

    /// A soak starts under the protocol of P`number` (T1): every open
    /// prediction locks now, as a recorded row would lock it (N4), so the
    /// prediction and the protocol the soak runs are the ones fixed before
    /// it, and no edit or amendment changes them while it runs. Refused when
    /// P`number` is not the protocol the next soak must run.
    pub fn start_soak(&mut self, number: u32, at: DateTime<Utc>) -> Result<SoakProtocol, NotebookError> {
        match self.next_soak_protocol() {
            Some((next, protocol)) if next == number => {
                self.lock_open(Lock { at, cause: LockCause::SoakStarted });
                self.soaks_started.retain(|s| s.prediction != number);
                self.soaks_started.push(SoakStart { prediction: number, at });
                Ok(protocol)
            }
            _ => Err(NotebookError::BadProtocol(format!(
                "P{number} is not the soak protocol the next soak runs; fix one with `vernier predict --soak`"
            ))),
        }
    }

    /// The soaks started and not recorded yet (T1).
    pub fn soaks_started(&self) -> &[SoakStart] {
        &self.soaks_started
    }

    /// The soak started under P`number`'s protocol and not recorded yet:
    /// when it started (T1). A soak recorded since ends it.
    pub fn soak_started(&self, number: u32) -> Option<DateTime<Utc>> {
        self.soaks_started.iter().find(|s| s.prediction == number).map(|s| s.at)
    }

    /// Locks every open prediction now (the CLI's `lock`); returns how many.
    pub fn lock_open_predictions(&mut self, at: DateTime<Utc>) -> usize {
        self.lock_open(Lock { at, cause: LockCause::User })
    }

    /// What has locked `prediction`, if anything: its stored lock, or the
    /// first run or soak recorded at or after it (so a lock deleted from the
    /// file by hand still holds).
    pub fn lock_of(&self, prediction: &Prediction) -> Option<Lock> {
        let after = |at: &DateTime<Utc>| *at >= prediction.recorded_at;
        let runs = self
            .runs
            .iter()
            .filter(|r| after(&r.recorded_at))
            .map(|r| Lock { at: r.recorded_at, cause: LockCause::Run(r.number) });
        let soaks = self
            .soaks
            .iter()
            .filter(|s| after(&s.recorded_at))
            .map(|s| Lock { at: s.recorded_at, cause: LockCause::Soak(s.number) });
        prediction.lock.into_iter().chain(runs).chain(soaks).min_by_key(|l| l.at)
    }

    /// Records a run; every open prediction locks (N4). Returns its number.
    /// The row keeps the Environment as stated now (N9): every way a row
    /// enters the log comes through here or [`Self::record_soak`].
    pub fn record_run(&mut self, measurement: Measurement, at: DateTime<Utc>) -> u32 {
        let stated = self.environment.clone();
        self.record_run_stated(measurement, stated, at)
    }

    /// [`Self::record_run`] for a run that kept the Environment as it was
    /// stated when it started (N9): a field changed while it ran (from
    /// another terminal, say) is not what it was measured under.
    pub fn record_run_stated(&mut self, mut measurement: Measurement, stated: Environment, at: DateTime<Utc>) -> u32 {
        let number = next_number(self.runs.iter().map(|r| r.number));
        self.lock_open(Lock { at, cause: LockCause::Run(number) });
        shared_first(&mut measurement.conditions);
        self.runs.push(Run {
            number,
            recorded_at: at,
            discarded: None,
            measurement: Arc::new(measurement),
            stated: Some(Arc::new(stated)),
        });
        number
    }

    /// Marks every run as copied from `source`, a workbook someone sent
    /// (N13): a row keeps its owner's command, and what runs is what that
    /// file said, so wherever the row is shown it says where it came from.
    /// A run already marked keeps its first origin; its numbers never change.
    pub fn mark_copied_from(&mut self, source: &str) {
        for run in &mut self.runs {
            if run.measurement.conditions.states(ConditionName::CopiedFrom) {
                continue;
            }
            Arc::make_mut(&mut run.measurement).conditions.push(Condition::new(ConditionName::CopiedFrom, source));
        }
    }

    /// Records a soak; every open prediction locks (N4). Returns its number.
    /// The row's bookkeeping is the notebook's: `soak` is given the next
    /// number, `at` as its time, the Environment as stated now (N9), and
    /// starts kept, whatever it held.
    pub fn record_soak(&mut self, mut soak: Soak, at: DateTime<Utc>) -> u32 {
        let number = next_number(self.soaks.iter().map(|s| s.number));
        self.lock_open(Lock { at, cause: LockCause::Soak(number) });
        // The soak that started is this one: its prediction is answered, not running.
        self.soaks_started.clear();
        shared_first(&mut soak.conditions);
        let stated = Some(self.environment.clone());
        self.soaks.push(Soak { number, recorded_at: at, discarded: None, stated, ..soak });
        number
    }

    /// The hint beside an Environment field when earlier rows kept another
    /// value (N9), e.g. `runs 1–4 were measured with "mains"`; `None` when
    /// every row agrees with today's value.
    pub fn stated_hint(&self, field: EnvField) -> Option<String> {
        let parts: Vec<String> = self
            .stated_differently(field)
            .into_iter()
            .map(|(value, rows)| {
                let verb = if rows.len() == 1 { "was" } else { "were" };
                let value = if value.is_empty() { "nothing stated".to_owned() } else { format!("\"{value}\"") };
                format!("{} {verb} measured with {value}", row_list(&rows))
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// For each Environment field, the rows recorded under a different
    /// stated value than today's, with the value they kept (N9): the hint
    /// "runs 1–4 were measured on mains" beside the field.
    pub fn stated_differently(&self, field: EnvField) -> Vec<(String, Vec<RowRef>)> {
        let now = self.environment.get(field);
        let rows = self.runs.iter().map(|r| (RowRef::Run(r.number), r.stated.as_deref()));
        let soaks = self.soaks.iter().map(|s| (RowRef::Soak(s.number), s.stated.as_ref()));
        // Rows recorded together share one stated Environment: its value
        // is read once for the run of rows that hold it, not once a row.
        let mut last: Option<(*const Environment, Option<String>)> = None;
        let mut differs = |stated: &Environment| -> Option<String> {
            match &last {
                Some((seen, then)) if std::ptr::eq(*seen, stated) => then.clone(),
                _ => {
                    let then = Some(stated.get(field)).filter(|then| *then != now);
                    last = Some((stated, then.clone()));
                    then
                }
            }
        };
        group_rows(rows.chain(soaks).filter_map(|(row, stated)| Some((row, differs(stated?)?))))
    }

    /// Sets a run or soak aside with a reason (N5): it stays in the log and a
    /// note naming it is added under Notes and anomalies.
    pub fn discard(&mut self, subject: RowRef, reason: &str, at: DateTime<Utc>) -> Result<(), NotebookError> {
        self.discard_from(subject, reason, None, at)
    }

    /// [`Self::discard`], its note saying where the reason came from when
    /// not from Vernier itself (N12).
    pub fn discard_from(
        &mut self,
        subject: RowRef,
        reason: &str,
        source: Option<&str>,
        at: DateTime<Utc>,
    ) -> Result<(), NotebookError> {
        let reason = reason.trim();
        if reason.is_empty() {
            return Err(NotebookError::Empty("reason"));
        }
        let slot = match subject {
            RowRef::Run(n) => self.runs.iter_mut().find(|r| r.number == n).map(|r| &mut r.discarded),
            RowRef::Soak(n) => self.soaks.iter_mut().find(|s| s.number == n).map(|s| &mut s.discarded),
        }
        .ok_or(NotebookError::NoSuchRow(subject))?;
        if slot.is_some() {
            return Err(NotebookError::AlreadyDiscarded(subject));
        }
        *slot = Some(Discard { reason: reason.to_owned(), at });
        let text = format!("Discarded {subject}: {reason}");
        self.notes.push(Note { at, text, about: Some(subject), source: source.map(str::to_owned), by: Author::Person });
        Ok(())
    }

    /// Adds a free note a person wrote.
    pub fn add_note(&mut self, text: &str, at: DateTime<Utc>) -> Result<(), NotebookError> {
        self.add_note_from(text, None, None, Author::Person, at)
    }

    /// Adds a note Vernier wrote, from typed data (SPEC A20).
    pub fn add_vernier_note(&mut self, text: &str, at: DateTime<Utc>) -> Result<(), NotebookError> {
        self.add_note_from(text, None, None, Author::Vernier, at)
    }

    /// Adds a note about `about`, written `by`, from `source` when it did
    /// not come from Vernier itself (N12: an edit taken in from a
    /// spreadsheet says so).
    pub fn add_note_from(
        &mut self,
        text: &str,
        about: Option<RowRef>,
        source: Option<&str>,
        by: Author,
        at: DateTime<Utc>,
    ) -> Result<(), NotebookError> {
        self.notes.push(Note::new(text, about, source, by, at)?);
        Ok(())
    }

    /// True when Vernier wrote `note` (SPEC A20): by its author, or, for a
    /// note kept before notes said who wrote them, when it is word for
    /// word the note Vernier adds when it records a comparison.
    pub fn wrote(&self, note: &Note) -> bool {
        note.by == Author::Vernier
            || (note.source.is_none() && self.pairs.iter().any(|p| p.restated_by(self, &note.text)))
    }

    /// Sets an Environment field named by its label (`"Power source"`).
    pub fn set_environment(&mut self, field: &str, value: &str) -> Result<(), NotebookError> {
        self.set_environment_field(EnvField::named(field)?, value)
    }

    /// The links from predictions to the rows that answer them, and the
    /// predictions left open, in the order they were made (N14).
    pub fn answers(&self) -> &[Answer] {
        &self.answers
    }

    /// The first prediction of `number`'s amendments: the one they all
    /// amend, directly or through each other.
    pub fn first_of(&self, number: u32) -> u32 {
        let mut n = number;
        // Each amendment names an earlier prediction (checked on load), so
        // this ends.
        while let Some(of) = self.prediction(n).and_then(|p| p.amends.as_ref()).map(|a| a.of) {
            n = of;
        }
        n
    }

    /// Every answer to `number`, to what it amends, or to an amendment of it.
    pub fn answers_to(&self, number: u32) -> Vec<&Answer> {
        let first = self.first_of(number);
        self.answers.iter().filter(|a| self.first_of(a.prediction) == first).collect()
    }

    /// The prediction in force for a row measured at `at` (N14): the newest
    /// of `number`'s amendments (or itself) recorded at or before `at`.
    pub fn in_force(&self, number: u32, at: DateTime<Utc>) -> Option<&Prediction> {
        let first = self.first_of(number);
        self.predictions.iter().rfind(|p| self.first_of(p.number) == first && p.recorded_at <= at)
    }

    /// When the row `by` names was measured, and whether it is discarded;
    /// `None` for a row the notebook does not have (or a prediction left
    /// open).
    pub fn measured(&self, by: &AnsweredBy) -> Option<(DateTime<Utc>, bool)> {
        match by {
            AnsweredBy::Run(n) => self.run(*n).map(|r| (r.recorded_at, r.discarded.is_some())),
            AnsweredBy::Comparison(n) => {
                let pair = self.pair(*n)?;
                let discarded = pair.runs.iter().any(|&r| self.run(r).is_some_and(|r| r.discarded.is_some()));
                Some((pair.recorded_at, discarded))
            }
            AnsweredBy::Soak(n) => {
                self.soaks.iter().find(|s| s.number == *n).map(|s| (s.recorded_at, s.discarded.is_some()))
            }
            AnsweredBy::Open(_) => None,
        }
    }

    /// Links `by` to prediction `P{number}` as its answer, or leaves the
    /// prediction open with a reason (N14, A19). The prediction's seal is
    /// not touched: the link is its own record. Refused, with the reason: a
    /// row measured before the prediction was recorded (N4), a discarded
    /// row, a row of the wrong kind for the committed figure, a comparison
    /// whose arms the ratio does not name, a run in a unit the figure
    /// cannot be put in, and a link made twice.
    pub fn answer_prediction(&mut self, number: u32, by: AnsweredBy, at: DateTime<Utc>) -> Result<(), NotebookError> {
        let offered = by.to_string();
        let refuse = |reason: String| AnswerRefused { prediction: number, by: offered.clone(), reason };
        let first = self.prediction(self.first_of(number)).ok_or(NotebookError::NoSuchPrediction(number))?;
        let by = match by {
            AnsweredBy::Open(reason) => {
                let reason = reason.trim();
                if reason.is_empty() {
                    return Err(NotebookError::Empty("reason"));
                }
                AnsweredBy::Open(reason.to_owned())
            }
            row => {
                let Some((measured, discarded)) = self.measured(&row) else {
                    return Err(refuse("the notebook has no such row".to_owned()).into());
                };
                if discarded {
                    return Err(refuse("it is discarded (N5)".to_owned()).into());
                }
                if measured < first.recorded_at {
                    return Err(refuse(format!(
                        "it was measured at {}, before {} was recorded at {} (N4): a prediction is answered only \
                         by what was measured after it",
                        measured.format("%Y-%m-%d %H:%M:%S%.3f UTC"),
                        first.label(),
                        first.recorded_at.format("%Y-%m-%d %H:%M:%S%.3f UTC"),
                    ))
                    .into());
                }
                let in_force = self.in_force(number, measured).unwrap_or(first);
                if let Some(figure) = &in_force.figure
                    && let Some(reason) = self.mismatch(figure, &row)
                {
                    return Err(refuse(reason).into());
                }
                row
            }
        };
        if self.answers_to(number).iter().any(|a| a.by == by) {
            return Err(refuse("it is linked already".to_owned()).into());
        }
        self.answers.push(Answer { prediction: number, by, at });
        Ok(())
    }

    /// Why `row` cannot answer `figure`, or `None` when it can.
    fn mismatch(&self, figure: &Committed, row: &AnsweredBy) -> Option<String> {
        match (figure, row) {
            (Committed::Median { unit, .. }, AnsweredBy::Run(n)) => {
                let run_unit = &self.run(*n)?.measurement.unit;
                (run_unit != unit && crate::stats::units::time_factor(run_unit, unit).is_none()).then(|| {
                    format!("the figure is in '{unit}' and run {n} in '{run_unit}', which cannot be put on one scale")
                })
            }
            (Committed::Ratio { numerator, denominator, .. }, AnsweredBy::Comparison(c)) => {
                let pair = self.pair(*c)?;
                committed::b_over_a(numerator, denominator, &pair.labels).is_none().then(|| {
                    format!(
                        "the ratio names {numerator}/{denominator} and {}'s arms are {} and {}",
                        pair.label(),
                        pair.labels[0],
                        pair.labels[1]
                    )
                })
            }
            (Committed::Soak { .. }, AnsweredBy::Soak(_)) => None,
            (figure, _) => Some(format!("its figure ({figure}) is answered by {}", figure.answered_by())),
        }
    }

    /// Every prediction whose seal or link is broken (N4), with a sentence
    /// naming it: "prediction P2 changed after run 3 was recorded".
    pub fn integrity(&self) -> Vec<IntegrityFinding> {
        prediction::verify_chain(&self.predictions, |p| self.lock_of(p))
    }

    /// Rules a file can break that its syntax cannot show: numbering and
    /// references. Returns a message naming the row.
    fn validate(&self) -> Result<(), String> {
        check_numbering("prediction P", self.predictions.iter().map(|p| p.number))?;
        check_numbering("run ", self.runs.iter().map(|r| r.number))?;
        check_numbering("soak S", self.soaks.iter().map(|s| s.number))?;
        check_numbering("comparison C", self.pairs.iter().map(|p| p.number))?;
        for p in &self.pairs {
            if let Some(n) = p.runs.iter().find(|&&n| self.run(n).is_none()) {
                return Err(format!("comparison {} names run {n}, which the notebook does not have", p.label()));
            }
        }
        check_numbering("sweep W", self.sweeps.iter().map(|s| s.number))?;
        for s in &self.sweeps {
            s.check().map_err(|e| e.to_string())?;
            if let Some(n) = s.runs.iter().find(|&&n| self.run(n).is_none()) {
                return Err(format!("sweep {} names run {n}, which the notebook does not have", s.label()));
            }
            if let Some(other) =
                self.sweeps.iter().find(|o| o.number < s.number && o.runs.iter().any(|r| s.runs.contains(r)))
            {
                return Err(format!("sweeps {} and {} name the same run", other.label(), s.label()));
            }
        }
        // An absurd but possible figure loads and is named by the audit (A1).
        for run in &self.runs {
            if let Some(why) = plausible::impossible_summary(&run.measurement.summary) {
                return Err(format!("run {} cannot be a measurement: {why}", run.number));
            }
            if let Some(recipe) = &run.measurement.recipe {
                recipe.check().map_err(|why| format!("run {}: {why}", run.number))?;
            }
        }
        for a in &self.answers {
            if self.prediction(a.prediction).is_none() {
                return Err(format!("an answer names prediction P{}, which the notebook does not have", a.prediction));
            }
            if !matches!(a.by, AnsweredBy::Open(_)) && self.measured(&a.by).is_none() {
                return Err(format!("P{} is answered by {}, which the notebook does not have", a.prediction, a.by));
            }
        }
        for p in &self.predictions {
            if let Some(a) = &p.amends
                && a.of >= p.number
            {
                return Err(format!("prediction P{} amends P{}, which is not an earlier prediction", p.number, a.of));
            }
        }
        Ok(())
    }

    fn push_prediction(
        &mut self,
        text: PredictionText,
        amends: Option<Amendment>,
        protocol: Option<NewProtocol>,
        at: DateTime<Utc>,
    ) -> u32 {
        let number = next_number(self.predictions.iter().map(|p| p.number));
        let prev = self.predictions.last().map(|p| p.hash.clone()).unwrap_or_default();
        let mut p = Prediction {
            number,
            experiment: text.experiment,
            predict: text.predict,
            why: text.why,
            recorded_at: at,
            amends,
            protocol: protocol.as_ref().map(|p| p.protocol),
            protocol_why: protocol.and_then(|p| p.why),
            figure: text.figure,
            lock: None,
            prev: String::new(),
            hash: String::new(),
        };
        p.reseal(&prev);
        self.predictions.push(p);
        number
    }

    /// Locks every open prediction and re-seals from the first of them. The
    /// open rows are always the tail of the chain, so no locked row's seal
    /// changes; a row already broken by a hand edit stays broken.
    fn lock_open(&mut self, lock: Lock) -> usize {
        let before = prediction::chain_states(&self.predictions);
        let open: Vec<usize> = (0..self.predictions.len()).filter(|&i| self.predictions[i].lock.is_none()).collect();
        for &i in &open {
            self.predictions[i].lock = Some(lock);
        }
        if let Some(&first) = open.first() {
            prediction::reseal_from(&mut self.predictions, first, &before);
        }
        open.len()
    }

    fn prediction_index(&self, number: u32) -> Result<usize, NotebookError> {
        self.predictions.iter().position(|p| p.number == number).ok_or(NotebookError::NoSuchPrediction(number))
    }
}

/// The text with surrounding space trimmed; every field is required.
fn checked(text: PredictionText) -> Result<PredictionText, NotebookError> {
    let field = |name, value: String| {
        let value = value.trim();
        if value.is_empty() { Err(NotebookError::Empty(name)) } else { Ok(value.to_owned()) }
    };
    Ok(PredictionText {
        experiment: field("Experiment", text.experiment)?,
        predict: field("What I predict", text.predict)?,
        why: field("Why", text.why)?,
        figure: text.figure,
    })
}

/// Rows grouped by a value each holds, in the order values first appear:
/// `[("mains", [run 1, run 2]), ("battery", [run 3])]`.
pub fn group_rows(rows: impl IntoIterator<Item = (RowRef, String)>) -> Vec<(String, Vec<RowRef>)> {
    let mut groups: Vec<(String, Vec<RowRef>)> = Vec::new();
    // Each value's group, found by one lookup: a semester's rows may hold
    // thousands of different values (a noise floor a session), and a
    // search of the groups for each row would grow with their square.
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (row, value) in rows {
        match index.get(&value) {
            Some(&i) => groups[i].1.push(row),
            None => {
                index.insert(value.clone(), groups.len());
                groups.push((value, vec![row]));
            }
        }
    }
    groups
}

/// The noise floor each session measured (SPEC E18), described once for
/// the rows that share it, in the order first met. A session's rows follow
/// one another under one floor, so a floor equal to the row before's is
/// not described again (a semester has 10 000 rows, issue 50).
pub fn noise_floors<'a>(runs: impl IntoIterator<Item = &'a Run>) -> Vec<(String, Vec<RowRef>)> {
    let mut last: Option<(&crate::stats::NoiseFloor, String)> = None;
    group_rows(runs.into_iter().filter_map(|r| {
        let floor = r.measurement.noise_floor.as_ref()?;
        let text = match &last {
            Some((seen, text)) if *seen == floor => text.clone(),
            _ => floor.describe(),
        };
        last = Some((floor, text.clone()));
        Some((RowRef::Run(r.number), text))
    }))
}

/// Rows named compactly: `runs 1–4, 7 and soak S2`.
pub fn row_list(rows: &[RowRef]) -> String {
    let runs: Vec<u32> = rows.iter().filter_map(|r| if let RowRef::Run(n) = r { Some(*n) } else { None }).collect();
    let soaks: Vec<u32> = rows.iter().filter_map(|r| if let RowRef::Soak(n) = r { Some(*n) } else { None }).collect();
    let ranges = |numbers: &[u32], prefix: &str| {
        let mut parts: Vec<String> = Vec::new();
        let mut i = 0;
        while i < numbers.len() {
            let start = numbers[i];
            while i + 1 < numbers.len() && numbers[i + 1] == numbers[i] + 1 {
                i += 1;
            }
            let end = numbers[i];
            parts.push(if end == start {
                format!("{prefix}{start}")
            } else {
                format!("{prefix}{start}–{prefix}{end}")
            });
            i += 1;
        }
        parts.join(", ")
    };
    let mut named = Vec::new();
    if !runs.is_empty() {
        let noun = if runs.len() == 1 { "run" } else { "runs" };
        named.push(format!("{noun} {}", ranges(&runs, "")));
    }
    if !soaks.is_empty() {
        let noun = if soaks.len() == 1 { "soak" } else { "soaks" };
        named.push(format!("{noun} {}", ranges(&soaks, "S")));
    }
    named.join(" and ")
}

/// Orders a row's conditions with the unchanging machine facts first (a
/// stable partition), so its file form can share them with other rows
/// (the `file` module) and read them back in the same order.
fn shared_first(conditions: &mut [Condition]) {
    conditions.sort_by_key(|c| !c.name().is_some_and(ConditionName::is_shared));
}

fn next_number(existing: impl Iterator<Item = u32>) -> u32 {
    existing.max().unwrap_or(0) + 1
}

/// Numbers must run 1, 2, 3 … in order: nothing is ever deleted (N5), so a
/// gap or a repeat means the file was edited by hand.
fn check_numbering(kind: &str, numbers: impl Iterator<Item = u32>) -> Result<(), String> {
    for (expected, n) in (1..).zip(numbers) {
        if n != expected {
            return Err(format!(
                "{kind}{n} is out of sequence (expected {kind}{expected}): rows were removed or reordered"
            ));
        }
    }
    Ok(())
}
