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
    AnsweredBy, Budget, Citation, Committed, EnvField, Environment, Measurement, Note, Notebook, NotebookError, Pair,
    PredictionText, RawFile, RowRef, RunStatement, Soak, SoakNumbers, SoakProtocol, Sweep, Tag, condition::Condition,
    store, time,
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
    /// Keep these placement deadlines (D6).
    SetPlacement(Vec<Budget>),
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
            Edit::AddSoakPrediction { text, protocol, at } => {
                let n = nb.add_soak_prediction(text.clone(), *protocol, *at)?;
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
            Edit::SetPlacement(budgets) => {
                nb.set_placement(budgets.clone())?;
                Applied::said(format!("kept {} placement deadline(s)", budgets.len()))
            }
            Edit::Record(recording) => recording.apply(nb)?,
        })
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
            Edit::SetPlacement(b) => format!("{} placement deadline(s) kept", b.len()),
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
            work.add_note_from(&text, about, note.source.as_deref(), note.at)?;
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

/// Writes `edits` to a new recovery file beside the notebook in `dir`,
/// `notebook.unsaved-<UTC time>.ron`: staged in a temporary file created
/// new, synced, then linked to its name, which fails rather than replace
/// anything (a file, or a link planted there) — so it is never written
/// through a link — and the folder synced. Returns its path.
pub fn keep(dir: &Path, edits: &[Edit], why: &str, at: DateTime<Utc>) -> Result<PathBuf, RecoveryError> {
    let unsaved = Unsaved { schema: RECOVERY_SCHEMA, written_at: at, why: why.to_owned(), edits: edits.to_vec() };
    let config = ron::ser::PrettyConfig::new().struct_names(true).new_line("\n");
    let text = ron::ser::to_string_pretty(&unsaved, config)
        .map_err(|e| RecoveryError::Write { path: dir.to_path_buf(), source: std::io::Error::other(e) })?;
    let text = format!(
        "// Changes the Vernier window could not save to notebook.ron. `vernier recover` shows them; `--apply` applies them.\n{text}\n"
    );
    let stamp = at.format("%Y%m%dT%H%M%S%.3fZ");
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
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let staged = (|| {
        let mut file = std::fs::File::options().write(true).create_new(true).open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        // A hard link is created new: it never replaces what is at `path`.
        std::fs::hard_link(&temp, path)
    })();
    // The temporary is ours alone (created new); the name holds the file now.
    let _ = std::fs::remove_file(&temp);
    staged?;
    crate::os::fs::sync_dir(dir)
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

/// Each change of a recovery file in words, and `Err(why)` when the log's
/// rules would refuse it.
pub type Weighed = Vec<(String, Result<(), String>)>;

/// Each change of a recovery file in words, with why the notebook's rules
/// would refuse it now (tried on a copy of `notebook`, in order, so a
/// change that depends on an earlier one is weighed after it).
pub fn weigh(notebook: &Notebook, unsaved: &Unsaved) -> Weighed {
    let mut copy = notebook.clone();
    unsaved
        .edits
        .iter()
        .map(|edit| (edit.describe(), edit.apply(&mut copy).map(drop).map_err(|e| e.to_string())))
        .collect()
}

/// What [`apply_file`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// Each change in words, with its message once applied or why it was refused.
    pub changes: Vec<(String, Result<String, String>)>,
    /// Where the file now is: renamed to `….applied.ron` once its changes
    /// are on disk; unchanged when nothing was applied.
    pub kept_as: PathBuf,
}

impl Recovered {
    /// How many changes reached the notebook.
    pub fn applied(&self) -> usize {
        self.changes.iter().filter(|(_, r)| r.is_ok()).count()
    }
}

/// Applies the recovery file at `path` to the notebook in `dir` as one
/// change under the folder's lock ([`store::change`]): each change the
/// log's rules allow, the others listed with why. Once saved, the file is
/// renamed to `….applied.ron` beside it (kept as the record of what was
/// applied, and no longer pending). When every change is refused nothing
/// is saved and the file stays pending.
pub fn apply_file(dir: &Path, path: &Path) -> Result<Recovered, ApplyError> {
    let unsaved = read(path)?;
    let outcome = store::change(dir, |nb| {
        let changes: Vec<(String, Result<String, String>)> = unsaved
            .edits
            .iter()
            .map(|edit| (edit.describe(), edit.apply(nb).map(|a| a.message).map_err(|e| e.to_string())))
            .collect();
        if changes.iter().all(|(_, r)| r.is_err()) {
            return Err(AllRefused(changes));
        }
        Ok(changes)
    });
    let changes = match outcome {
        Ok((changes, _)) => changes,
        Err(store::ChangeError::Refused(AllRefused(changes))) => {
            return Ok(Recovered { changes, kept_as: path.to_path_buf() });
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

/// Every change of a recovery file was refused: nothing to save.
#[derive(Debug)]
struct AllRefused(Vec<(String, Result<String, String>)>);

impl std::fmt::Display for AllRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("every change is refused")
    }
}

impl std::error::Error for AllRefused {}

/// Why [`apply_file`] failed.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] RecoveryError),
    /// The notebook could not be loaded or saved; nothing was applied.
    #[error(transparent)]
    Change(store::ChangeError),
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
        nb.add_note_from(&format!("runs {a} and {b} are one scan"), Some(RowRef::Run(a)), None, at)?;
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
        let path = keep(dir, &edits, "why", at).expect("kept");
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

    // SPEC N10: the fuzz target's seed is a recovery file this build reads,
    // and weighing it says which change the rules refuse (a run that is not there).
    #[test]
    fn the_fuzz_seed_reads_and_weighs() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/seeds/recovery/two-changes.ron");
        let unsaved = read(Path::new(path)).expect("the seed reads");
        let weighed = weigh(&Notebook::new("t", Utc::now()), &unsaved);
        let refused: Vec<bool> = weighed.iter().map(|(_, r)| r.is_err()).collect();
        assert_eq!(refused, [false, false, true], "{weighed:?}");
    }
}
