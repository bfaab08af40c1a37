//! The journal beside `notebook.ron` (SPEC N1, N7, N10): one line of RON a
//! change, appended under the folder's lock, so that a change costs what
//! it holds, not what the notebook holds.
//!
//! Each line is a [`Record`] naming the SHA-256 of what it follows: the
//! line before it or, for the first line, the token the snapshot
//! (`notebook.ron`) carries. A line edited, removed or moved by hand breaks
//! the chain and the load says which line (N4's prediction seals are kept
//! in the predictions themselves, as before). A last line without its
//! newline was being appended when its writer died: it was never reported
//! saved, so readers ignore it and the next writer cuts it off.
//!
//! Compaction writes the snapshot anew with the journal folded in
//! (atomically, N7), then removes the journal. The new snapshot's token is
//! the hash of the last line it folded in, so a journal left behind by a
//! compaction killed before it removed the file is known as folded and
//! never applied twice.

use serde::{Deserialize, Serialize};

use super::super::file::{RunEntry, SoakEntry};
use super::super::{Answer, Environment, JournalError, Note, Notebook, Pair, Prediction, SoakStart, Sweep, Writing};
use crate::digest::sha256_hex;

/// The journal's file name inside a notebook folder.
pub const JOURNAL_FILE: &str = "notebook.journal.ron";

/// One change: what it follows and what it changed.
#[derive(Serialize, Deserialize)]
#[serde(rename = "Change", deny_unknown_fields)]
pub(super) struct Record {
    /// The SHA-256 of the line before, or the snapshot's token.
    pub(super) follows: String,
    /// What changed, in order.
    pub(super) edits: Vec<Edit>,
}

/// A change to one part of the notebook. A section's change names the
/// rows it replaced or added by position ([`Items`]); the two small
/// changes a writer makes without reading the notebook ([`Edit::AddNote`],
/// [`Edit::SetEnvironment`]) are checked by the same rules when written.
#[derive(Clone, Serialize, Deserialize)]
pub(super) enum Edit {
    /// The project's title.
    Title(String),
    /// When the notebook was created.
    Created(#[serde(with = "super::super::time")] chrono::DateTime<chrono::Utc>),
    /// The Environment section, whole.
    Environment(Environment),
    /// One Environment field set by its label.
    SetEnvironment {
        /// The field's label.
        field: String,
        /// Its new value.
        value: String,
    },
    /// A note added at the end.
    AddNote(Note),
    /// What was written for the documents, whole.
    Writing(Writing),
    /// Rows of each section replaced or added.
    Predictions(Items<Prediction>),
    /// See [`Edit::Predictions`].
    Runs(Items<RunEntry>),
    /// See [`Edit::Predictions`].
    Soaks(Items<SoakEntry>),
    /// See [`Edit::Predictions`].
    Comparisons(Items<Pair>),
    /// See [`Edit::Predictions`].
    Sweeps(Items<Sweep>),
    /// See [`Edit::Predictions`].
    Notes(Items<Note>),
    /// See [`Edit::Predictions`].
    Answers(Items<Answer>),
    /// The soaks started and not recorded, whole (T1).
    SoaksStarted(Vec<SoakStart>),
    /// The trial budget new runs are held to, or none (S19, schema 11).
    TrialBudget(Option<f64>),
}

/// A section's rows after a change: its length, and the rows at the
/// positions that changed or were added.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Items<T> {
    len: u32,
    set: Vec<(u32, T)>,
}

impl<T> Items<T> {
    /// The section's length after the change, and the rows it put.
    pub(super) fn into_parts(self) -> (u32, Vec<(u32, T)>) {
        (self.len, self.set)
    }
}

/// What changed from `before` to `after`, section by section; empty when
/// nothing did.
pub(super) fn diff(before: &Notebook, after: &Notebook) -> Vec<Edit> {
    let mut edits = Vec::new();
    if before.title != after.title {
        edits.push(Edit::Title(after.title.clone()));
    }
    if before.created_at != after.created_at {
        edits.push(Edit::Created(after.created_at));
    }
    if before.environment != after.environment {
        edits.push(Edit::Environment(after.environment.clone()));
    }
    if before.writing != after.writing {
        edits.push(Edit::Writing(after.writing.clone()));
    }
    edits.extend(items(&before.predictions, &after.predictions, Clone::clone).map(Edit::Predictions));
    edits.extend(items(&before.runs, &after.runs, |r| RunEntry::from(r)).map(Edit::Runs));
    edits.extend(items(&before.soaks, &after.soaks, |s| SoakEntry::from(s)).map(Edit::Soaks));
    edits.extend(items(&before.pairs, &after.pairs, Clone::clone).map(Edit::Comparisons));
    edits.extend(items(&before.sweeps, &after.sweeps, Clone::clone).map(Edit::Sweeps));
    edits.extend(items(&before.notes, &after.notes, Clone::clone).map(Edit::Notes));
    edits.extend(items(&before.answers, &after.answers, Clone::clone).map(Edit::Answers));
    if before.soaks_started != after.soaks_started {
        edits.push(Edit::SoaksStarted(after.soaks_started.clone()));
    }
    if before.trial_budget != after.trial_budget {
        edits.push(Edit::TrialBudget(after.trial_budget));
    }
    edits
}

/// The rows of `after` that are not those of `before` at the same place.
fn items<T: PartialEq, E>(before: &[T], after: &[T], entry: impl Fn(&T) -> E) -> Option<Items<E>> {
    let set: Vec<(u32, E)> = after
        .iter()
        .enumerate()
        .filter(|(i, row)| before.get(*i) != Some(row))
        .map(|(i, row)| (index(i), entry(row)))
        .collect();
    (!set.is_empty() || before.len() != after.len()).then(|| Items { len: index(after.len()), set })
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Applies a record's edits to `nb`. Refused (the reason in words) when
/// one does not fit the notebook it follows: a line edited by hand.
pub(super) fn apply(nb: &mut Notebook, edits: Vec<Edit>) -> Result<(), JournalError> {
    for edit in edits {
        match edit {
            Edit::Title(title) => nb.title = title,
            Edit::Created(at) => nb.created_at = at,
            Edit::Environment(environment) => nb.environment = environment,
            Edit::SetEnvironment { field, value } => {
                nb.set_environment(&field, &value).map_err(|e| JournalError::Refused(Box::new(e)))?
            }
            Edit::TrialBudget(seconds) => {
                nb.set_trial_budget(seconds).map_err(|e| JournalError::Refused(Box::new(e)))?
            }
            Edit::AddNote(note) => nb.notes.push(note),
            Edit::Writing(writing) => nb.writing = writing,
            Edit::Predictions(items) => put(&mut nb.predictions, items, "predictions", |p| p)?,
            Edit::Runs(items) => put(&mut nb.runs, items, "runs", Into::into)?,
            Edit::Soaks(items) => put(&mut nb.soaks, items, "soaks", Into::into)?,
            Edit::Comparisons(items) => put(&mut nb.pairs, items, "comparisons", |p| p)?,
            Edit::Sweeps(items) => put(&mut nb.sweeps, items, "sweeps", |s| s)?,
            Edit::Notes(items) => put(&mut nb.notes, items, "notes", |n| n)?,
            Edit::Answers(items) => put(&mut nb.answers, items, "answers", |a| a)?,
            Edit::SoaksStarted(started) => nb.soaks_started = started,
        }
    }
    Ok(())
}

/// Puts a section's changed rows in place.
fn put<T, E>(
    rows: &mut Vec<T>,
    items: Items<E>,
    section: &'static str,
    row: impl Fn(E) -> T,
) -> Result<(), JournalError> {
    let len = usize::try_from(items.len).unwrap_or(usize::MAX);
    rows.truncate(len);
    for (i, entry) in items.set {
        let i = usize::try_from(i).unwrap_or(usize::MAX);
        match i.cmp(&rows.len()) {
            std::cmp::Ordering::Less => rows[i] = row(entry),
            std::cmp::Ordering::Equal => rows.push(row(entry)),
            std::cmp::Ordering::Greater => {
                return Err(JournalError::PastEnd { row: i, section });
            }
        }
    }
    if rows.len() == len { Ok(()) } else { Err(JournalError::Length { section, rows: rows.len(), len }) }
}

/// A record as its line (without the newline): RON on one line, with any
/// newline inside a text escaped.
pub(super) fn line(record: &Record) -> Result<String, ron::Error> {
    ron::to_string(record)
}

/// The hash a line is followed by.
pub(super) fn hash(line: &[u8]) -> String {
    sha256_hex(line)
}

/// The whole lines of a journal's bytes, each without its newline; a last
/// line without one (a writer killed while appending it) is left out.
pub(super) fn whole_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes[..whole_len(bytes)].split(|&b| b == b'\n').filter(|l| !l.is_empty())
}

/// The length of the whole lines of `bytes` (what a writer keeps before
/// appending).
pub(super) fn whole_len(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
}

/// Why a journal could not be read over its snapshot.
#[derive(Debug)]
pub(super) struct Broken {
    /// 1-based line.
    pub(super) line: usize,
    /// What was wrong there.
    pub(super) message: String,
}

/// Applies the journal's lines that follow the snapshot whose token is
/// `token` to `nb`, the snapshot's notebook, and returns the hash the next
/// line must follow. Lines up to the one whose hash is `token` are already
/// in the snapshot (a compaction that did not live to remove them).
pub(super) fn replay(nb: &mut Notebook, token: &str, bytes: &[u8]) -> Result<String, Broken> {
    let lines: Vec<&[u8]> = whole_lines(bytes).collect();
    let folded = lines.iter().position(|l| hash(l) == token).map_or(0, |i| i + 1);
    let mut follows = token.to_owned();
    for (i, line) in lines.iter().enumerate().skip(folded) {
        let broken = |message: String| Broken { line: i + 1, message };
        let text = std::str::from_utf8(line).map_err(|_| broken("not UTF-8 text".into()))?;
        let record: Record = ron::from_str(text).map_err(|e| broken(e.code.to_string()))?;
        if record.follows != follows {
            return Err(broken(if i == folded {
                "the journal does not follow this notebook.ron (edited by hand, or another notebook's)".into()
            } else {
                format!("the line does not follow line {i} (a line was edited, removed or moved by hand)")
            }));
        }
        apply(nb, record.edits).map_err(|e| broken(e.to_string()))?;
        follows = hash(line);
    }
    Ok(follows)
}
