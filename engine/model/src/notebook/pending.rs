//! A change to the notebook as data (SPEC N10): what the window asks for,
//! kept so that it can be applied twice with the same result — at once to
//! the window's copy, then under the lock to the file as it is on disk —
//! and, when it cannot reach the file before the window closes, written to
//! a recovery file beside the notebook that `vernier recover` applies later
//! through the same [`Edit::apply`].
//!
//! The simple edits keep their arguments. A recording (a bench result, an
//! import, a soak, an extension, a reproduction's note) keeps the rows it
//! added to the window's copy ([`Recording`]): the harness's inputs are not
//! data, and the rows are what the file must get — the same time stamps,
//! measurements, conditions and raw files — numbered afresh on the file
//! when another program recorded rows meanwhile.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{
    AnsweredBy, Budget, Citation, Committed, EnvField, Environment, Measurement, NewProtocol, Note, Notebook,
    NotebookError, Pair, PredictionText, RawFile, RowRef, RunStatement, Soak, SoakNumbers, SoakProtocol, Sweep, Tag,
    condition::Condition, store, time,
};

/// What a change reports once applied: its message, and the runs it
/// recorded (for the window to select them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// Said once the change is on disk.
    pub message: String,
    /// Runs the change recorded.
    pub runs: Vec<u32>,
    /// The message is about a run that ended early (or a soak that could
    /// not be analysed).
    pub failed: bool,
}

impl Applied {
    /// A message alone.
    pub fn said(message: impl Into<String>) -> Self {
        Self { message: message.into(), ..Self::default() }
    }
}

/// One change the window makes to a notebook, with everything it needs —
/// its time stamp included — so every notebook it is applied to gets the
/// same rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Edit {
    /// Record a prediction.
    AddPrediction {
        /// Its three texts.
        text: PredictionText,
        /// When.
        #[serde(with = "time")]
        at: DateTime<Utc>,
    },
    /// Record a soak prediction with its protocol (T1).
    AddSoakPrediction {
        /// Its three texts.
        text: PredictionText,
        /// The protocol fixed with it.
        protocol: SoakProtocol,
        /// Why its windows or thresholds differ from T1's (T13); absent
        /// when they do not, and in edits kept before reasons were.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        protocol_why: Option<String>,
        /// When.
        #[serde(with = "time")]
        at: DateTime<Utc>,
    },
    /// Rewrite an open prediction.
    EditPrediction {
        /// Which.
        number: u32,
        /// Its new texts.
        text: PredictionText,
    },
    /// Amend a prediction.
    AmendPrediction {
        /// Which.
        number: u32,
        /// The new `What I predict`.
        predict: String,
        /// The new `Why`.
        why: String,
        /// A new committed figure (N14); `None` keeps the original's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        figure: Option<Committed>,
        /// When.
        #[serde(with = "time")]
        at: DateTime<Utc>,
    },
    /// Link a row to a prediction as its answer, or leave it open (N14).
    AnswerPrediction {
        /// Which prediction.
        number: u32,
        /// The row, or the reason it stays open.
        by: AnsweredBy,
        /// When.
        #[serde(with = "time")]
        at: DateTime<Utc>,
    },
    /// Lock every open prediction.
    LockPredictions {
        /// When.
        #[serde(with = "time")]
        at: DateTime<Utc>,
    },
    /// A soak starts under P`prediction`'s protocol (T1).
    StartSoak {
        /// The prediction whose protocol it runs.
        prediction: u32,
        /// When.
        #[serde(with = "time")]
        at: DateTime<Utc>,
    },
    /// Set Environment fields (one, or the machine's three filled at once);
    /// `said` is the message.
    SetEnvironment {
        /// Each field with its value.
        fields: Vec<(EnvField, String)>,
        /// What is said once saved.
        said: String,
    },
    /// Add a note.
    AddNote {
        /// The text.
        text: String,
        /// When.
        #[serde(with = "time")]
        at: DateTime<Utc>,
    },
    /// Discard a run with a reason.
    Discard {
        /// The run.
        run: u32,
        /// Why.
        reason: String,
        /// When.
        #[serde(with = "time")]
        at: DateTime<Utc>,
    },
    /// State what a run did not record (A1, A2).
    StateRun {
        /// The run.
        run: u32,
        /// What is stated.
        statements: Vec<RunStatement>,
        /// When.
        #[serde(with = "time")]
        at: DateTime<Utc>,
    },
    /// Write (or, empty, clear) the answer to a document's prompt (D2).
    Answer {
        /// The document's stem.
        document: String,
        /// The prompt.
        prompt: String,
        /// The answer.
        text: String,
    },
    /// Mark a prompt or a whole document not part of the submission (A16).
    NotPart {
        /// The document's stem.
        document: String,
        /// The prompt, or the whole-document key.
        prompt: String,
        /// Why; empty makes it part again.
        reason: String,
    },
    /// State that the report cites nothing, or take that back.
    NoCitations(bool),
    /// Add a citation.
    AddCitation(Citation),
    /// Remove citation N (1-based).
    RemoveCitation(usize),
    /// Keep these deadlines for the D6 placement table (saved under its first name).
    #[serde(rename = "SetPlacement")]
    SetDeadlines(Vec<Budget>),
    /// Set or clear the trial budget new runs are held to (S19).
    SetTrialBudget(Option<f64>),
    /// Rows recorded from a measurement, an import or a soak.
    Record(Recording),
}

impl Edit {
    /// Applies the change through the notebook's own rules; a change they
    /// refuse changes nothing.
    pub fn apply(&self, nb: &mut Notebook) -> Result<Applied, NotebookError> {
        Ok(match self {
            Edit::AddPrediction { text, at } => {
                Applied::said(format!("recorded P{}", nb.add_prediction(text.clone(), *at)?))
            }
            Edit::AddSoakPrediction { text, protocol, protocol_why, at } => {
                let new = NewProtocol { protocol: *protocol, why: protocol_why.clone() };
                let n = nb.add_soak_prediction(text.clone(), new, *at)?;
                Applied::said(format!("recorded P{n} with its soak protocol"))
            }
            Edit::EditPrediction { number, text } => {
                nb.edit_prediction(*number, text.clone())?;
                Applied::said(format!("rewrote P{number}"))
            }
            Edit::AmendPrediction { number, predict, why, figure, at } => {
                let n = nb.amend_prediction_with(*number, predict, why, figure.clone(), None, *at)?;
                Applied::said(format!("recorded P{n}, amending P{number}"))
            }
            Edit::AnswerPrediction { number, by, at } => {
                nb.answer_prediction(*number, by.clone(), *at)?;
                Applied::said(match by {
                    AnsweredBy::Open(_) => format!("P{number} left open"),
                    row => format!("P{number} answered by {row}"),
                })
            }
            Edit::LockPredictions { at } => {
                Applied::said(format!("locked {} prediction(s)", nb.lock_open_predictions(*at)))
            }
            Edit::StartSoak { prediction, at } => {
                nb.start_soak(*prediction, *at)?;
                Applied::said(format!(
                    "the soak started under P{prediction}'s protocol, which stays fixed until it is recorded"
                ))
            }
            Edit::SetEnvironment { fields, said } => {
                // All or nothing: a refused field leaves the others as they were.
                let before = nb.environment.clone();
                for (field, value) in fields {
                    if let Err(e) = nb.set_environment_field(*field, value) {
                        nb.environment = before;
                        return Err(e);
                    }
                }
                Applied::said(said.clone())
            }
            Edit::AddNote { text, at } => {
                nb.add_note(text, *at)?;
                Applied::said("note added")
            }
            Edit::Discard { run, reason, at } => {
                nb.discard(RowRef::Run(*run), reason, *at)?;
                Applied::said(format!("discarded run {run}; it is listed under Notes and anomalies"))
            }
            Edit::StateRun { run, statements, at } => {
                let said = nb.state_run(*run, statements, *at)?;
                Applied::said(format!("run {run} now states {said}"))
            }
            Edit::Answer { document, prompt, text } => {
                nb.set_answer(document, prompt, text);
                Applied::said(format!("{document}: answer saved"))
            }
            Edit::NotPart { document, prompt, reason } => {
                nb.set_not_part(document, prompt, reason)?;
                Applied::said(if reason.trim().is_empty() {
                    format!("{document}: part of this submission again")
                } else {
                    format!("{document}: marked not part of this submission")
                })
            }
            Edit::NoCitations(none) => {
                nb.set_no_citations(*none)?;
                Applied::said(if *none { "stated: the report cites nothing" } else { "citations asked for again" })
            }
            Edit::AddCitation(citation) => {
                Applied::said(format!("citation {} added", nb.add_citation(citation.clone())?))
            }
            Edit::RemoveCitation(n) => {
                let c = nb.remove_citation(*n)?;
                Applied::said(format!("citation {n} ({}) removed", c.figure))
            }
            Edit::SetDeadlines(budgets) => {
                nb.set_deadlines(budgets.clone())?;
                Applied::said(format!("kept {} placement deadline(s)", budgets.len()))
            }
            Edit::SetTrialBudget(seconds) => {
                nb.set_trial_budget(*seconds)?;
                Applied::said(Notebook::trial_budget_said(*seconds))
            }
            Edit::Record(recording) => recording.apply(nb)?,
        })
    }

    /// Whether this very change is in `nb` already. The window saves a
    /// change and only then has its keeper rewrite the recovery file (see
    /// `gui::keeper`), so a kill in between leaves a saved change in the
    /// file too; `recover` finds it here by its own time stamp and words
    /// and does not add it twice. Changes that set a value (Environment,
    /// answers, deadlines, a prediction's text) give the same notebook
    /// applied twice and are never "already there"; a citation removed by
    /// its number has nothing to be recognised by.
    pub fn already_in(&self, nb: &Notebook) -> bool {
        match self {
            Edit::AddPrediction { text, at } | Edit::AddSoakPrediction { text, at, .. } => {
                nb.predictions().iter().any(|p| p.recorded_at == *at && p.predict == text.predict && p.amends.is_none())
            }
            Edit::AmendPrediction { predict, at, .. } => {
                nb.predictions().iter().any(|p| p.recorded_at == *at && p.predict == *predict && p.amends.is_some())
            }
            Edit::AnswerPrediction { number, by, at } => {
                nb.answers().iter().any(|a| a.prediction == *number && a.by == *by && a.at == *at)
            }
            Edit::AddNote { text, at } => nb.notes().iter().any(|n| n.at == *at && n.text == *text),
            Edit::Discard { run, at, .. } => {
                nb.runs().iter().any(|r| r.number == *run && r.discarded.as_ref().is_some_and(|d| d.at == *at))
            }
            Edit::Record(recording) => recording.already_in(nb),
            Edit::StartSoak { prediction, at } => nb.soak_started(*prediction) == Some(*at),
            Edit::EditPrediction { .. }
            | Edit::LockPredictions { .. }
            | Edit::SetEnvironment { .. }
            | Edit::StateRun { .. }
            | Edit::Answer { .. }
            | Edit::NotPart { .. }
            | Edit::NoCitations(_)
            | Edit::AddCitation(_)
            | Edit::RemoveCitation(_)
            | Edit::SetDeadlines(_)
            | Edit::SetTrialBudget(_) => false,
        }
    }

    /// The change in words, as `vernier recover` lists it.
    pub fn describe(&self) -> String {
        let stamp = |at: &DateTime<Utc>| at.format("%Y-%m-%d %H:%M:%S UTC").to_string();
        let quoted = |s: &str| format!("“{}”", crate::display::inert(s));
        match self {
            Edit::AddPrediction { text, at } => format!("a prediction ({}), {}", quoted(&text.predict), stamp(at)),
            Edit::AddSoakPrediction { text, at, .. } => {
                format!("a soak prediction with its protocol ({}), {}", quoted(&text.predict), stamp(at))
            }
            Edit::EditPrediction { number, text } => format!("P{number} rewritten as {}", quoted(&text.predict)),
            Edit::AmendPrediction { number, predict, at, .. } => {
                format!("an amendment of P{number} ({}), {}", quoted(predict), stamp(at))
            }
            Edit::AnswerPrediction { number, by, at } => format!("P{number}: {by}, {}", stamp(at)),
            Edit::LockPredictions { at } => format!("every open prediction locked, {}", stamp(at)),
            Edit::StartSoak { prediction, at } => {
                format!("a soak started under P{prediction}'s protocol, {}", stamp(at))
            }
            Edit::SetEnvironment { fields, .. } => fields
                .iter()
                .map(|(f, v)| format!("Environment “{}” set to {}", f.label(), quoted(v)))
                .collect::<Vec<_>>()
                .join("; "),
            Edit::AddNote { text, at } => format!("a note {}, {}", quoted(text), stamp(at)),
            Edit::Discard { run, reason, at } => format!("run {run} discarded ({}), {}", quoted(reason), stamp(at)),
            Edit::StateRun { run, statements, .. } => format!(
                "run {run} states its {}",
                statements.iter().map(RunStatement::what).collect::<Vec<_>>().join(", ")
            ),
            Edit::Answer { document, prompt, text } => {
                format!("{}: the answer to {} set to {}", quoted(document), quoted(prompt), quoted(text))
            }
            Edit::NotPart { document, prompt, reason } => {
                format!(
                    "{}: {} marked not part of the submission ({})",
                    quoted(document),
                    quoted(prompt),
                    quoted(reason)
                )
            }
            Edit::NoCitations(true) => "stated that the report cites nothing".to_owned(),
            Edit::NoCitations(false) => "citations asked for again".to_owned(),
            Edit::AddCitation(c) => format!("a citation ({})", quoted(&c.figure)),
            Edit::RemoveCitation(n) => format!("citation {n} removed"),
            Edit::SetDeadlines(b) => format!("{} placement deadline(s) kept", b.len()),
            Edit::SetTrialBudget(seconds) => Notebook::trial_budget_said(*seconds),
            Edit::Record(r) => r.describe(),
        }
    }
}

/// A run as a recording added it: everything but its number, which the
/// notebook it is applied to gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedRun {
    /// Its number in the notebook it was first recorded into.
    pub number: u32,
    /// When it was recorded.
    #[serde(with = "time")]
    pub at: DateTime<Utc>,
    /// The row.
    pub measurement: Measurement,
    /// The Environment as stated when it ran (N9).
    pub stated: Option<Environment>,
}

/// A soak as a recording added it, without its number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedSoak {
    /// When it was recorded.
    #[serde(with = "time")]
    pub at: DateTime<Utc>,
    /// Its protocol.
    pub protocol: SoakProtocol,
    /// The six numbers.
    pub numbers: SoakNumbers,
    /// Its conditions.
    pub conditions: Vec<Condition>,
    /// The soak CSV.
    pub raw_file: Option<RawFile>,
    /// Provenance.
    pub tag: Tag,
    /// A shipped synthetic dataset.
    pub synthetic: bool,
}

/// The rows one recording added, and what it said: taken from the window's
/// copy right after the harness, importer or soak recorded into it
/// ([`Recording::capture`]), applied to any notebook by [`Recording::apply`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recording {
    /// Runs rows, in order.
    pub runs: Vec<RecordedRun>,
    /// Interleaved comparisons of those runs.
    pub pairs: Vec<Pair>,
    /// Sweeps of those runs.
    pub sweeps: Vec<Sweep>,
    /// Soak runs rows.
    pub soaks: Vec<RecordedSoak>,
    /// Notes (a reproduction's, a failed check's, an unanalysed soak's).
    pub notes: Vec<Note>,
    /// What the recording said when it was made.
    pub message: String,
    /// The message is about a failure.
    pub failed: bool,
}

/// How many rows of each kind a notebook holds: what [`Recording::capture`]
/// takes everything after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    runs: usize,
    pairs: usize,
    sweeps: usize,
    soaks: usize,
    notes: usize,
}

impl Notebook {
    /// How many rows of each kind it holds now.
    pub fn counts(&self) -> Counts {
        Counts {
            runs: self.runs.len(),
            pairs: self.pairs.len(),
            sweeps: self.sweeps.len(),
            soaks: self.soaks.len(),
            notes: self.notes.len(),
        }
    }
}

impl Recording {
    /// The rows `nb` gained since it held `before` (its [`Notebook::counts`]
    /// then), said with `applied`.
    pub fn capture(nb: &Notebook, before: Counts, applied: &Applied) -> Self {
        Self {
            runs: nb.runs[before.runs..]
                .iter()
                .map(|r| RecordedRun {
                    number: r.number,
                    at: r.recorded_at,
                    measurement: Measurement::clone(&r.measurement),
                    stated: r.stated.as_deref().cloned(),
                })
                .collect(),
            pairs: nb.pairs[before.pairs..].to_vec(),
            sweeps: nb.sweeps[before.sweeps..].to_vec(),
            soaks: nb.soaks[before.soaks..]
                .iter()
                .map(|s| RecordedSoak {
                    at: s.recorded_at,
                    protocol: s.protocol,
                    numbers: s.numbers.clone(),
                    conditions: s.conditions.clone(),
                    raw_file: s.raw_file.clone(),
                    tag: s.tag,
                    synthetic: s.synthetic,
                })
                .collect(),
            notes: nb.notes[before.notes..].to_vec(),
            message: applied.message.clone(),
            failed: applied.failed,
        }
    }

    /// Whether these rows are in `nb` already: its first run (or soak)
    /// with the same time stamp and measurement, or, for a recording of
    /// notes alone, its first note.
    fn already_in(&self, nb: &Notebook) -> bool {
        if let Some(first) = self.runs.first() {
            nb.runs().iter().any(|r| r.recorded_at == first.at && *r.measurement == first.measurement)
        } else if let Some(first) = self.soaks.first() {
            nb.soaks().iter().any(|s| s.recorded_at == first.at && s.numbers == first.numbers)
        } else if let Some(first) = self.notes.first() {
            nb.notes().iter().any(|n| n.at == first.at && n.text == first.text)
        } else {
            false
        }
    }

    /// Adds the rows to `nb`: the runs take the next numbers there, and
    /// their comparisons, sweeps and notes name them by those. When they are
    /// not the numbers the recording was made with (another program
    /// recorded rows meanwhile), the message and every note it wrote say so,
    /// since their text names the earlier numbers.
    pub fn apply(&self, nb: &mut Notebook) -> Result<Applied, NotebookError> {
        let mut renumbered: BTreeMap<u32, u32> = BTreeMap::new();
        let mut work = nb.clone();
        for run in &self.runs {
            let stated = run.stated.clone().unwrap_or_else(|| work.environment.clone());
            let number = work.record_run_stated(run.measurement.clone(), stated, run.at);
            renumbered.insert(run.number, number);
        }
        let map = |n: u32| renumbered.get(&n).copied().unwrap_or(n);
        for pair in &self.pairs {
            let new = super::NewPair {
                what: pair.what.clone(),
                labels: pair.labels.clone(),
                verdict: pair.verdict.clone(),
                paired: pair.paired.clone(),
                order: pair.order.clone(),
            };
            work.record_pair(new, pair.runs.map(map), pair.recorded_at)?;
        }
        for sweep in &self.sweeps {
            let new = super::NewSweep {
                what: sweep.what.clone(),
                template: sweep.template.clone(),
                params: sweep.params.clone(),
                points: sweep.points.clone(),
            };
            work.record_sweep(new, sweep.runs.iter().copied().map(map).collect(), sweep.recorded_at)?;
        }
        for soak in &self.soaks {
            let row = Soak {
                number: 0,
                recorded_at: soak.at,
                discarded: None,
                protocol: soak.protocol,
                numbers: soak.numbers.clone(),
                conditions: soak.conditions.clone(),
                raw_file: soak.raw_file.clone(),
                tag: soak.tag,
                synthetic: soak.synthetic,
                stated: None,
            };
            work.record_soak(row, soak.at);
        }
        let moved: Vec<(u32, u32)> = renumbered.iter().map(|(&a, &b)| (a, b)).filter(|(a, b)| a != b).collect();
        let moved_said = (!moved.is_empty()).then(|| {
            let list = |f: fn(&(u32, u32)) -> u32| moved.iter().map(f).map(|n| n.to_string()).collect::<Vec<_>>();
            format!(
                "numbered {} when recorded, saved as run(s) {}: another program had recorded rows meanwhile",
                list(|m| m.0).join(", "),
                list(|m| m.1).join(", ")
            )
        });
        for note in &self.notes {
            let about = note.about.map(|r| match r {
                RowRef::Run(n) => RowRef::Run(map(n)),
                other => other,
            });
            let text = match &moved_said {
                Some(said) => format!("{} ({said})", note.text),
                None => note.text.clone(),
            };
            work.add_note_from(&text, about, note.source.as_deref(), note.by, note.at)?;
        }
        *nb = work;
        Ok(Applied {
            message: match &moved_said {
                Some(said) => format!("{} ({said})", self.message),
                None => self.message.clone(),
            },
            runs: self.runs.iter().map(|r| map(r.number)).collect(),
            failed: self.failed,
        })
    }

    /// The rows in words.
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.runs.is_empty() {
            let what: Vec<String> =
                self.runs.iter().map(|r| format!("“{}”", crate::display::inert(&r.measurement.what))).collect();
            parts.push(format!("{} Runs row(s) ({})", self.runs.len(), what.join(", ")));
        }
        if !self.pairs.is_empty() {
            parts.push(format!("{} comparison(s)", self.pairs.len()));
        }
        if !self.sweeps.is_empty() {
            parts.push(format!("{} sweep(s)", self.sweeps.len()));
        }
        if !self.soaks.is_empty() {
            parts.push(format!("{} Soak runs row(s)", self.soaks.len()));
        }
        if !self.notes.is_empty() {
            parts.push(format!("{} note(s)", self.notes.len()));
        }
        let when =
            self.runs.first().map(|r| r.at).or(self.soaks.first().map(|s| s.at)).or(self.notes.first().map(|n| n.at));
        let when = when.map(|at| format!(", {}", at.format("%Y-%m-%d %H:%M:%S UTC"))).unwrap_or_default();
        format!("recorded {}{when} (“{}”)", parts.join(", "), crate::display::inert(&self.message))
    }
}

/// The start of every recovery file's name in a notebook folder.
pub const RECOVERY_PREFIX: &str = "notebook.unsaved-";
/// The end of a pending recovery file's name.
pub const RECOVERY_SUFFIX: &str = ".ron";
/// The end of one that was applied (kept, renamed, as the record of it).
pub const APPLIED_SUFFIX: &str = ".applied.ron";
/// A larger recovery file is refused: a window's unsaved changes are a few
/// rows, and a hostile file must not exhaust memory.
pub const MAX_RECOVERY_BYTES: u64 = 64 * 1024 * 1024;
/// The recovery file's format version.
pub const RECOVERY_SCHEMA: u32 = 1;

/// A recovery file: the changes the window could not save before it closed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename = "Unsaved")]
pub struct Unsaved {
    /// [`RECOVERY_SCHEMA`].
    pub schema: u32,
    /// When the window wrote it.
    #[serde(with = "time")]
    pub written_at: DateTime<Utc>,
    /// Why they were not saved, as the window knew it.
    pub why: String,
    /// The changes, in the order they were made.
    pub edits: Vec<Edit>,
    /// Where it was written and for which notebook (issue 45 item 8); a
    /// file without it (written before Vernier said so, or by hand) is of
    /// unknown origin and is applied only when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

impl Unsaved {
    /// `edits` kept now, for the reason `why`, by this process for the
    /// notebook `origin` names.
    pub fn new(edits: Vec<Edit>, why: &str, at: DateTime<Utc>, origin: Origin) -> Self {
        Self { schema: RECOVERY_SCHEMA, written_at: at, why: why.to_owned(), edits, origin: Some(origin) }
    }
}

/// Where and by whom a recovery file was written, and for which notebook:
/// what tells a window's own file from one copied in with someone's folder
/// or planted there (issue 45 item 8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Origin {
    /// The machine's name.
    pub host: String,
    /// The process that wrote it.
    pub pid: u32,
    /// When that process started (`os::process_info::started`), so a later
    /// process with the same pid is not taken for it.
    pub started: Option<String>,
    /// The notebook's folder, as the writer named it.
    pub folder: String,
    /// The notebook's title then.
    pub title: String,
    /// When that notebook was created: with the title, its identity.
    #[serde(with = "time")]
    pub created_at: DateTime<Utc>,
    /// Written by a window still running, which may yet save these changes
    /// itself (the file it keeps from the moment a change is made, so that
    /// no ending — a lost display, a crash, a SIGKILL — loses one).
    pub running: bool,
}

impl Origin {
    /// This process, writing for the notebook in `dir` titled `title` and
    /// created at `created_at`.
    pub fn here(dir: &Path, title: &str, created_at: DateTime<Utc>, running: bool) -> Self {
        let pid = std::process::id();
        Self {
            host: crate::os::process_info::host(),
            pid,
            started: crate::os::process_info::started(pid),
            folder: dir.display().to_string(),
            title: title.to_owned(),
            created_at,
            running,
        }
    }
}

/// Whose a recovery file is, as judged against the notebook beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provenance {
    /// Written on this host for this notebook by a window that has ended
    /// (or closed with it): applied by `recover --apply`.
    Ours,
    /// It does not say where it was written.
    Unknown,
    /// Written on another machine.
    OtherHost(String),
    /// Written for another notebook (another title or creation time).
    OtherNotebook {
        /// Its title.
        title: String,
        /// When it was created.
        created_at: DateTime<Utc>,
    },
    /// Kept by a Vernier window that is still running: it saves these
    /// changes itself, and applying them too would add them twice.
    Running(u32),
}

impl Provenance {
    /// Judges `unsaved` against the notebook it sits beside.
    pub fn of(unsaved: &Unsaved, notebook: &Notebook) -> Self {
        let Some(origin) = &unsaved.origin else { return Self::Unknown };
        if origin.host != crate::os::process_info::host() {
            return Self::OtherHost(origin.host.clone());
        }
        if origin.title != notebook.title || origin.created_at != notebook.created_at {
            return Self::OtherNotebook { title: origin.title.clone(), created_at: origin.created_at };
        }
        if Self::still_running(origin) {
            return Self::Running(origin.pid);
        }
        Self::Ours
    }

    /// True when `origin` is a running window's live file, its process alive.
    fn still_running(origin: &Origin) -> bool {
        origin.running
            && origin.host == crate::os::process_info::host()
            && match &origin.started {
                Some(started) => crate::os::process_info::is_alive(origin.pid, started) != Some(false),
                None => crate::os::process_info::started(origin.pid).is_some(),
            }
    }

    /// Whether `recover --apply` and the window apply it without its name.
    pub fn applies_unasked(&self) -> bool {
        matches!(self, Self::Ours)
    }

    /// The file's origin in words, said beside its name.
    pub fn describe(&self) -> String {
        match self {
            Self::Ours => "written on this host for this notebook".to_owned(),
            Self::Unknown => "of unknown origin: it does not say which host, process or notebook wrote it".to_owned(),
            Self::OtherHost(host) => format!("written on another host (“{}”)", crate::display::inert(host)),
            Self::OtherNotebook { title, created_at } => format!(
                "written for another notebook (“{}”, created {})",
                crate::display::inert(title),
                created_at.format("%Y-%m-%d %H:%M:%S UTC")
            ),
            Self::Running(pid) => {
                format!("kept by a Vernier window still running (pid {pid}), which saves these changes itself")
            }
        }
    }
}

/// Why a recovery file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum RecoveryError {
    /// Writing it failed; nothing was left under its name.
    #[error("the recovery file {} could not be written: {source}", crate::display::inert(&path.display().to_string()))]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// It could not be read (too large, not a regular file, gone).
    #[error("{0}")]
    Read(#[from] crate::bounded::ReadError),
    /// It is a symbolic link: never followed.
    #[error("{} is a symbolic link; a recovery file is only read as a regular file in the notebook folder", crate::display::inert(&.0.display().to_string()))]
    Link(PathBuf),
    /// It is not a recovery file Vernier wrote.
    #[error("{} is not a recovery file Vernier can read: {message}", crate::display::inert(&path.display().to_string()))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, with line and column.
        message: String,
    },
}

/// The text of a recovery file.
fn text_of(dir: &Path, unsaved: &Unsaved) -> Result<String, RecoveryError> {
    let config = ron::ser::PrettyConfig::new().struct_names(true).new_line("\n");
    let text = ron::ser::to_string_pretty(unsaved, config)
        .map_err(|e| RecoveryError::Write { path: dir.to_path_buf(), source: std::io::Error::other(e) })?;
    Ok(format!(
        "// Changes the Vernier window could not save to notebook.ron. `vernier recover` shows them; `--apply` applies them.\n{text}\n"
    ))
}

/// Writes `unsaved` to a new recovery file beside the notebook in `dir`,
/// `notebook.unsaved-<UTC time>.ron`: staged in a temporary file created
/// new, synced, then linked to its name, which fails rather than replace
/// anything (a file, or a link planted there) — so it is never written
/// through a link — and the folder synced. Returns its path.
pub fn keep(dir: &Path, unsaved: &Unsaved) -> Result<PathBuf, RecoveryError> {
    let text = text_of(dir, unsaved)?;
    let stamp = unsaved.written_at.format("%Y%m%dT%H%M%S%.3fZ");
    let mut last = None;
    for n in 0..100u32 {
        let suffix = if n == 0 { String::new() } else { format!("-{n}") };
        let path = dir.join(format!("{RECOVERY_PREFIX}{stamp}{suffix}{RECOVERY_SUFFIX}"));
        match write_new(dir, &path, text.as_bytes()) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some((path, e)),
            Err(source) => return Err(RecoveryError::Write { path, source }),
        }
    }
    let (path, source) = last.unwrap_or_else(|| (dir.to_path_buf(), std::io::Error::other("no free name")));
    Err(RecoveryError::Write { path, source })
}

/// `bytes` into a new file at `path`, whole or not at all.
fn write_new(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // A hard link is created new: it never replaces what is at `path`.
    staged(dir, path, bytes, |temp, path| std::fs::hard_link(temp, path))
}

/// `bytes` staged in a temporary file created new beside `path` and synced,
/// then put at `path` by `place`; the temporary removed and the folder synced.
fn staged(
    dir: &Path,
    path: &Path,
    bytes: &[u8],
    place: impl FnOnce(&Path, &Path) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let staged = (|| {
        let mut file = std::fs::File::options().write(true).create_new(true).open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        place(&temp, path)
    })();
    // The temporary is ours alone (created new); the name holds the file now.
    let _ = std::fs::remove_file(&temp);
    staged?;
    crate::os::fs::sync_dir(dir)
}

/// The recovery file a running window keeps beside its notebook from the
/// moment a change is made until the change is on disk (issue 45 item 4):
/// written new the first time ([`keep`]), then replaced whole by a rename
/// of a new temporary over it (a rename replaces the name, never writes
/// through a link planted there), removed once nothing is pending. So
/// however the window ends — a lost display, a panic, a SIGKILL — what it
/// had not saved is on disk for `vernier recover`.
#[derive(Debug)]
pub struct Kept {
    dir: PathBuf,
    path: Option<PathBuf>,
}

impl Kept {
    /// Nothing kept yet for the notebook in `dir`.
    pub fn new(dir: &Path) -> Self {
        Self { dir: dir.to_path_buf(), path: None }
    }

    /// Keeps `unsaved` (replacing what this handle kept before); returns its path.
    pub fn write(&mut self, unsaved: &Unsaved) -> Result<PathBuf, RecoveryError> {
        let Some(path) = &self.path else {
            let path = keep(&self.dir, unsaved)?;
            self.path = Some(path.clone());
            return Ok(path);
        };
        let text = text_of(&self.dir, unsaved)?;
        staged(&self.dir, path, text.as_bytes(), crate::os::fs::rename_over)
            .map_err(|source| RecoveryError::Write { path: path.clone(), source })?;
        Ok(path.clone())
    }

    /// Nothing is pending any more: the file goes (one already gone — applied
    /// by `recover`, removed by hand — is fine).
    pub fn clear(&mut self) -> Result<(), RecoveryError> {
        let Some(path) = self.path.take() else { return Ok(()) };
        match std::fs::remove_file(&path) {
            Err(source) if source.kind() != std::io::ErrorKind::NotFound => Err(RecoveryError::Write { path, source }),
            _ => Ok(()),
        }
    }
}

/// The pending recovery files in `dir`, oldest name first.
pub fn pending(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(RECOVERY_PREFIX) && name.ends_with(RECOVERY_SUFFIX) && !name.ends_with(APPLIED_SUFFIX)
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// Reads a recovery file: a regular file (a link is refused, never
/// followed), within [`MAX_RECOVERY_BYTES`], of a known format version.
pub fn read(path: &Path) -> Result<Unsaved, RecoveryError> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(RecoveryError::Link(path.to_path_buf()));
    }
    let bytes = crate::bounded::read_bounded(path, MAX_RECOVERY_BYTES, "a recovery file")?;
    from_bytes(&bytes, path)
}

/// Parses the bytes of a recovery file; `path` is only used in messages.
pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Unsaved, RecoveryError> {
    let invalid = |message: String| RecoveryError::Invalid { path: path.to_path_buf(), message };
    let text = std::str::from_utf8(bytes).map_err(|_| invalid("not UTF-8 text".into()))?;
    let unsaved: Unsaved = ron::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))
        .map_err(|e| invalid(format!("line {}, column {}: {}", e.span.start.line, e.span.start.col, e.code)))?;
    if unsaved.schema != RECOVERY_SCHEMA {
        return Err(invalid(format!("format version {} (this Vernier reads {RECOVERY_SCHEMA})", unsaved.schema)));
    }
    Ok(unsaved)
}

/// What becomes of one change of a recovery file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    /// Applied (or, weighed, would be), with what it said.
    Applied(String),
    /// The notebook holds this very change already ([`Edit::already_in`]):
    /// not added again.
    AlreadyThere,
    /// The log's rules refuse it, with why.
    Refused(String),
}

impl Fate {
    /// Tries `edit` on `nb`.
    fn of(edit: &Edit, nb: &mut Notebook) -> Self {
        if edit.already_in(nb) {
            return Self::AlreadyThere;
        }
        match edit.apply(nb) {
            Ok(applied) => Self::Applied(applied.message),
            Err(e) => Self::Refused(e.to_string()),
        }
    }
}

impl std::fmt::Display for Fate {
    /// How `recover` and the window say it after the change's words.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Applied(said) => f.write_str(said),
            Self::AlreadyThere => {
                f.write_str("already in the notebook (saved before its window ended): not added again")
            }
            Self::Refused(why) => f.write_str(why),
        }
    }
}

/// Each change of a recovery file in words, and what applying it now
/// would do.
pub type Weighed = Vec<(String, Fate)>;

/// Each change of a recovery file in words, with what applying it now
/// would do (tried on a copy of `notebook`, in order, so a change that
/// depends on an earlier one is weighed after it).
pub fn weigh(notebook: &Notebook, unsaved: &Unsaved) -> Weighed {
    let mut copy = notebook.clone();
    unsaved.edits.iter().map(|edit| (edit.describe(), Fate::of(edit, &mut copy))).collect()
}

/// What [`apply_file`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// Each change in words, with its message once applied or why it was refused.
    pub changes: Vec<(String, Fate)>,
    /// Where the file now is: renamed to `….applied.ron` once its changes
    /// are on disk; unchanged when nothing was applied.
    pub kept_as: PathBuf,
}

impl Recovered {
    /// How many changes reached the notebook.
    pub fn applied(&self) -> usize {
        self.count(|f| matches!(f, Fate::Applied(_)))
    }

    /// How many were in the notebook already.
    pub fn already_there(&self) -> usize {
        self.count(|f| matches!(f, Fate::AlreadyThere))
    }

    /// How many the log's rules refused.
    pub fn refused(&self) -> usize {
        self.count(|f| matches!(f, Fate::Refused(_)))
    }

    fn count(&self, which: impl Fn(&Fate) -> bool) -> usize {
        self.changes.iter().filter(|(_, fate)| which(fate)).count()
    }
}

/// Applies the recovery file at `path` to the notebook in `dir` as one
/// change under the folder's lock ([`store::change`]): each change the
/// log's rules allow and the notebook does not hold already, the others
/// listed with why. Once nothing in it is pending — its changes saved, or
/// all of them in the notebook already — the file is renamed to
/// `….applied.ron` beside it (kept as the record of what was applied).
/// When the rules refuse a change and nothing is applied, nothing is saved
/// and the file stays pending.
///
/// A file kept by a window still running is never applied (the window
/// saves its changes itself): callers judge the rest ([`Provenance`]).
pub fn apply_file(dir: &Path, path: &Path) -> Result<Recovered, ApplyError> {
    let unsaved = read(path)?;
    if let Some(origin) = unsaved.origin.as_ref().filter(|o| Provenance::still_running(o)) {
        return Err(ApplyError::Running { path: path.to_path_buf(), pid: origin.pid });
    }
    let outcome = store::change(dir, |nb| {
        let changes: Vec<(String, Fate)> =
            unsaved.edits.iter().map(|edit| (edit.describe(), Fate::of(edit, nb))).collect();
        if !changes.iter().any(|(_, fate)| matches!(fate, Fate::Applied(_))) {
            return Err(NothingApplied(changes));
        }
        Ok(changes)
    });
    let changes = match outcome {
        Ok((changes, _)) => changes,
        Err(store::ChangeError::Refused(NothingApplied(changes))) => {
            if changes.iter().any(|(_, fate)| matches!(fate, Fate::Refused(_))) {
                return Ok(Recovered { changes, kept_as: path.to_path_buf() });
            }
            changes
        }
        Err(store::ChangeError::Load(e)) => return Err(ApplyError::Change(store::ChangeError::Load(e))),
        Err(store::ChangeError::Save(e)) => return Err(ApplyError::Change(store::ChangeError::Save(e))),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let applied_name = format!("{}{APPLIED_SUFFIX}", name.strip_suffix(RECOVERY_SUFFIX).unwrap_or(&name));
    let kept_as = path.with_file_name(applied_name);
    std::fs::rename(path, &kept_as).map_err(|source| ApplyError::Rename { path: path.to_path_buf(), source })?;
    Ok(Recovered { changes, kept_as })
}

/// No change of a recovery file was applied: nothing to save.
#[derive(Debug)]
struct NothingApplied(Vec<(String, Fate)>);

impl std::fmt::Display for NothingApplied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no change is applied")
    }
}

impl std::error::Error for NothingApplied {}

/// Why [`apply_file`] failed.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] RecoveryError),
    /// The notebook could not be loaded or saved; nothing was applied.
    #[error(transparent)]
    Change(store::ChangeError),
    /// A window still running keeps it and will save its changes itself.
    #[error(
        "{} is kept by a Vernier window still running (pid {pid}), which saves these changes itself; not applied",
        crate::display::inert(&path.display().to_string())
    )]
    Running {
        /// The file.
        path: PathBuf,
        /// The window's process.
        pid: u32,
    },
    /// The changes are saved, but the file could not be renamed: it still
    /// looks pending, and applying it again would add them twice.
    #[error(
        "the changes are saved in notebook.ron, but {} could not be renamed ({source}); remove it by hand so it is not applied twice",
        crate::display::inert(&path.display().to_string())
    )]
    Rename {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::Param;
    use crate::notebook::{ConditionName, NewSweep, WarmupPolicy};
    use crate::stats::Summary;

    fn measured(what: &str) -> Measurement {
        Measurement {
            what: what.into(),
            command: vec!["./bench".into()],
            warmup: WarmupPolicy::Count(1),
            warmup_trials: 1,
            summary: Summary::of(&[1.0, 2.0, 3.0]).expect("summary"),
            unit: "ms".into(),
            ns_per_unit: 1e6,
            conditions: vec![Condition::new(ConditionName::Source, "here")],
            raw_file: None,
            tag: Tag::Measured,
            synthetic: false,
            extends: None,
            figure: None,
            work: None,
            boundary: None,
            recipe: None,
            tail: None,
            noise_floor: None,
        }
    }

    /// What the harness does for a scan: rows, their sweep, a note about one.
    fn record_scan(nb: &mut Notebook, at: DateTime<Utc>) -> Result<Applied, NotebookError> {
        let a = nb.record_run(measured("n=1"), at);
        let b = nb.record_run(measured("n=2"), at);
        let params = vec![Param { name: "n".into(), values: vec!["1".into(), "2".into()], sizes: false }];
        let sweep = NewSweep {
            what: "scan".into(),
            template: vec!["./bench".into(), "{n}".into()],
            params,
            points: vec![vec!["1".into()], vec!["2".into()]],
        };
        nb.record_sweep(sweep, vec![a, b], at)?;
        nb.add_note_from(
            &format!("runs {a} and {b} are one scan"),
            Some(RowRef::Run(a)),
            None,
            crate::notebook::Author::Vernier,
            at,
        )?;
        Ok(Applied { message: format!("recorded runs {a} and {b}"), runs: vec![a, b], failed: false })
    }

    fn open_prediction(nb: &mut Notebook, at: DateTime<Utc>) {
        let text = PredictionText { experiment: "E".into(), predict: "p".into(), why: "w".into(), figure: None };
        nb.add_prediction(text, at).expect("prediction");
    }

    // SPEC N10, N4: a recording's rows, taken from the window's copy and
    // applied to the same notebook on disk, give exactly the notebook the
    // harness made — rows, sweep, note, and the lock of the open prediction.
    #[test]
    fn a_recording_applies_as_it_was_made() {
        let at = Utc::now();
        let mut before = Notebook::new("t", at);
        open_prediction(&mut before, at);
        let mut window = before.clone();
        let counts = window.counts();
        let applied = record_scan(&mut window, at).expect("records");
        let edit = Edit::Record(Recording::capture(&window, counts, &applied));
        let mut file = before.clone();
        assert_eq!(edit.apply(&mut file).expect("applies"), applied);
        assert_eq!(file, window);
        // Through a recovery file's text and back, too.
        let text = ron::to_string(&edit).expect("ron");
        let back: Edit = ron::from_str(&text).expect("reads back");
        let mut again = before;
        back.apply(&mut again).expect("applies");
        assert_eq!(again, window);
    }

    // SPEC N10: on a notebook where another program recorded a run
    // meanwhile, the rows take the next numbers, the sweep and the note name
    // them by those, and the message and note say the numbers moved.
    #[test]
    fn a_recording_on_a_changed_notebook_is_renumbered_and_says_so() {
        let at = Utc::now();
        let before = Notebook::new("t", at);
        let mut window = before.clone();
        let counts = window.counts();
        let applied = record_scan(&mut window, at).expect("records");
        let recording = Recording::capture(&window, counts, &applied);
        let mut file = before;
        file.record_run(measured("another program's"), at);
        let said = recording.apply(&mut file).expect("applies");
        assert_eq!(said.runs, [2, 3]);
        assert!(said.message.contains("saved as run(s) 2, 3"), "{}", said.message);
        assert_eq!(file.sweeps()[0].runs, [2, 3]);
        let note = &file.notes()[0];
        assert_eq!(note.about, Some(RowRef::Run(2)));
        assert!(note.text.contains("numbered 1, 2 when recorded"), "{}", note.text);
    }

    // SPEC N10: an edit the log's rules refuse changes nothing, not even
    // the fields of the same edit set before the refused one.
    #[test]
    fn a_refused_edit_changes_nothing() {
        let mut nb = Notebook::new("t", Utc::now());
        let before = nb.clone();
        let edit = Edit::SetEnvironment {
            fields: vec![(EnvField::Ambient, "21 °C".into()), (EnvField::Workbench, "not a workbench".into())],
            said: "set".into(),
        };
        assert!(edit.apply(&mut nb).is_err());
        assert_eq!(nb, before);
    }

    // SPEC N10: a recovery file is written new beside the notebook, read
    // back whole, never written through a link planted at its name, and a
    // link is never read.
    #[cfg(unix)]
    #[test]
    fn a_recovery_file_is_created_new_and_never_through_a_link() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        let at = Utc::now();
        let edits = [Edit::AddNote { text: "kept".into(), at }];
        let target = tmp.path().join("outside");
        std::fs::write(&target, "untouched").expect("target");
        let name = format!("{RECOVERY_PREFIX}{}{RECOVERY_SUFFIX}", at.format("%Y%m%dT%H%M%S%.3fZ"));
        std::os::unix::fs::symlink(&target, dir.join(&name)).expect("plant");
        let origin = Origin::here(dir, "t", at, false);
        let path = keep(dir, &Unsaved::new(edits.to_vec(), "why", at, origin)).expect("kept");
        assert_ne!(path, dir.join(&name), "another name than the link's");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "untouched");
        assert_eq!(read(&path).expect("reads").edits, edits);
        assert!(matches!(read(&dir.join(&name)), Err(RecoveryError::Link(_))));
        let names: Vec<_> = pending(dir).iter().map(|p| p.file_name().map(|n| n.to_owned())).collect();
        assert_eq!(names.len(), 2, "both are pending by name: {names:?}");
        assert!(
            std::fs::read_dir(dir).expect("ls").all(|e| !e.expect("e").file_name().to_string_lossy().ends_with(".tmp")),
            "no temporary left"
        );
    }

    // SPEC N10 (issue 45 item 4): a running window's file is written new,
    // then replaced whole in place as its pending changes change, and goes
    // once nothing is pending; a file already gone is no error.
    #[test]
    fn a_kept_file_is_rewritten_in_place_and_removed_when_empty() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        let at = Utc::now();
        let nb = Notebook::new("t", at);
        let unsaved = |texts: &[&str]| {
            let edits = texts.iter().map(|t| Edit::AddNote { text: (*t).into(), at }).collect();
            Unsaved::new(edits, "pending", at, Origin::here(dir, &nb.title, nb.created_at, true))
        };
        let mut kept = Kept::new(dir);
        let first = kept.write(&unsaved(&["one"])).expect("written");
        let second = kept.write(&unsaved(&["one", "two"])).expect("rewritten");
        assert_eq!(first, second, "the same file");
        assert_eq!(read(&second).expect("reads").edits.len(), 2);
        assert_eq!(pending(dir), std::slice::from_ref(&second), "one file, no temporary");
        kept.clear().expect("cleared");
        assert!(pending(dir).is_empty());
        let again = kept.write(&unsaved(&["three"])).expect("a new file");
        std::fs::remove_file(&again).expect("removed by hand");
        kept.clear().expect("a file already gone is fine");
    }

    // SPEC N10 (issue 45 item 8): a recovery file says where, when and for
    // which notebook it was written; one of unknown origin, from another
    // host or for another notebook is named as such, and one a running
    // window keeps is never applied.
    #[test]
    fn a_recovery_file_is_judged_by_where_it_was_written() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        let at = Utc::now();
        let nb = Notebook::new("mine", at);
        let edits = vec![Edit::AddNote { text: "n".into(), at }];
        let ours = Unsaved::new(edits.clone(), "why", at, Origin::here(dir, &nb.title, nb.created_at, false));
        assert_eq!(Provenance::of(&ours, &nb), Provenance::Ours);
        assert!(Provenance::of(&ours, &nb).applies_unasked());
        let unknown = Unsaved { origin: None, ..ours.clone() };
        assert_eq!(Provenance::of(&unknown, &nb), Provenance::Unknown);
        let mut far = ours.clone();
        far.origin.as_mut().expect("origin").host = "elsewhere".into();
        assert_eq!(Provenance::of(&far, &nb), Provenance::OtherHost("elsewhere".into()));
        let theirs = Notebook::new("theirs", at);
        assert!(matches!(Provenance::of(&ours, &theirs), Provenance::OtherNotebook { .. }));
        assert!(Provenance::of(&ours, &theirs).describe().contains("another notebook (“mine”"));
        // This test process is alive: its running window's file is live.
        let live = Unsaved::new(edits, "pending", at, Origin::here(dir, &nb.title, nb.created_at, true));
        assert_eq!(Provenance::of(&live, &nb), Provenance::Running(std::process::id()));
        for judged in [Provenance::Unknown, Provenance::OtherHost("x".into()), Provenance::Running(1)] {
            assert!(!judged.applies_unasked(), "{judged:?}");
        }
        let path = keep(dir, &live).expect("kept");
        assert!(matches!(apply_file(dir, &path), Err(ApplyError::Running { .. })));
        // Read back whole, the origin included.
        assert_eq!(read(&path).expect("reads").origin, live.origin);
    }

    // SPEC N10 (issue 45 item 4): a window killed after a save and before
    // its keeper rewrote the recovery file leaves saved changes in it. The
    // file's note, prediction, answer and recorded rows that the notebook
    // holds already (same time stamp and words) are said to be there and
    // not added again; the one change that is not there is applied once.
    #[test]
    fn a_change_saved_before_its_window_ended_is_not_applied_twice() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("nb");
        let at = Utc::now();
        let nb = store::create(&dir, "t", at).expect("create");
        let text = PredictionText { experiment: "E".into(), predict: "p".into(), why: "w".into(), figure: None };
        let mut window = nb.clone();
        let counts = window.counts();
        let applied = record_scan(&mut window, at).expect("records");
        let saved = vec![
            Edit::AddNote { text: "saved".into(), at },
            Edit::AddPrediction { text, at },
            Edit::Record(Recording::capture(&window, counts, &applied)),
        ];
        store::change(&dir, |nb| saved.iter().try_for_each(|e| e.apply(nb).map(drop))).expect("the window's save");
        let on_disk = store::load(&dir).expect("loads");
        let edits = [saved.clone(), vec![Edit::AddNote { text: "not saved".into(), at }]].concat();
        let origin = Origin::here(&dir, &nb.title, nb.created_at, false);
        let path = keep(&dir, &Unsaved::new(edits, "killed", at, origin.clone())).expect("kept");
        let fates: Vec<Fate> = weigh(&on_disk, &read(&path).expect("reads")).into_iter().map(|(_, f)| f).collect();
        assert!(matches!(
            fates.as_slice(),
            [Fate::AlreadyThere, Fate::AlreadyThere, Fate::AlreadyThere, Fate::Applied(_)]
        ));
        let recovered = apply_file(&dir, &path).expect("applies");
        assert_eq!((recovered.applied(), recovered.already_there(), recovered.refused()), (1, 3, 0));
        let back = store::load(&dir).expect("loads");
        let notes: Vec<&str> = back.notes().iter().map(|n| n.text.as_str()).filter(|t| t.contains("saved")).collect();
        assert_eq!(notes, ["saved", "not saved"]);
        assert_eq!((back.predictions().len(), back.runs().len(), back.sweeps().len()), (1, 2, 1));
        // A file whose every change is there already is no longer pending,
        // and nothing is written.
        let path = keep(&dir, &Unsaved::new(saved, "killed", at, origin)).expect("kept");
        let before = std::fs::read(dir.join(store::NOTEBOOK_FILE)).expect("read");
        let recovered = apply_file(&dir, &path).expect("applies");
        assert_eq!((recovered.applied(), recovered.already_there()), (0, 3));
        assert!(!path.exists() && recovered.kept_as.exists(), "renamed to …applied.ron");
        assert_eq!(std::fs::read(dir.join(store::NOTEBOOK_FILE)).expect("read"), before);
    }

    // SPEC N10: the fuzz target's seed is a recovery file this build reads,
    // and weighing it says which change the rules refuse (a run that is not there).
    #[test]
    fn the_fuzz_seed_reads_and_weighs() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/seeds/recovery/two-changes.ron");
        let unsaved = read(Path::new(path)).expect("the seed reads");
        let weighed = weigh(&Notebook::new("t", Utc::now()), &unsaved);
        let refused: Vec<bool> = weighed.iter().map(|(_, f)| matches!(f, Fate::Refused(_))).collect();
        assert_eq!(refused, [false, false, true], "{weighed:?}");
    }
}
