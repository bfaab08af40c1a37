//! The notebook as `notebook.ron` holds it (SPEC N8, N9).
//!
//! In memory every row carries its whole record: its conditions and the
//! Environment as stated when it was recorded. On disk the part that
//! repeats from row to row — the stated Environment, the machine facts
//! and the harness texts that do not change between runs
//! ([`ConditionName::is_shared`]) — is kept
//! once in a table of snapshots, and each row names its snapshot by index,
//! so a notebook of thousands of runs does not repeat the same twenty
//! fields thousands of times. A row of a file written before snapshots
//! (schema 1 and 2) names none: it keeps its conditions as recorded and
//! says its stated environment was not recorded with it.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::condition::Condition;
use super::environment::Environment;
use super::run::{Discard, Measurement, RawFile, Run, Soak, SoakNumbers, SoakProtocol};
use super::{Answer, Note, Notebook, Pair, Prediction, SoakStart, Sweep, Tag, Writing};

/// What rows share: the stated Environment and the unchanging machine
/// facts and harness texts, as they were when the rows were recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Snapshot {
    /// The Environment as stated.
    stated: Environment,
    /// The leading shared conditions of every row that names this
    /// snapshot, in their order.
    machine: Vec<Condition>,
    /// What the hardware counters of every run naming this snapshot were,
    /// or why there were none ([`Work::counters`](super::Work)): the same
    /// sentence on every row of a machine (schema 10). Absent when the
    /// rows keep their own, or have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    counters: Option<String>,
}

/// The file's top level; the schema version is first, so it can be read
/// before anything else (see [`super::store::from_bytes`]).
#[derive(Serialize, Deserialize)]
#[serde(rename = "Notebook", deny_unknown_fields)]
pub(super) struct NotebookFile {
    schema: u32,
    /// What the first line of the journal beside this file follows (see
    /// [`super::store`]'s journal); absent before schema 6, and in a copy
    /// of the notebook kept outside its folder (a workbook's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) journal: Option<String>,
    title: String,
    #[serde(with = "super::time")]
    created_at: DateTime<Utc>,
    environment: Environment,
    /// Absent before schema 3.
    #[serde(default)]
    snapshots: Vec<Snapshot>,
    predictions: Vec<Prediction>,
    /// Most of a semester's file: the parse cache keeps them in parts,
    /// read side by side ([`super::store`]'s `parsed`).
    pub(super) runs: Vec<RunFile>,
    soaks: Vec<SoakFile>,
    /// Absent before schema 3.
    #[serde(default)]
    comparisons: Vec<Pair>,
    /// Parameter scans (E16); absent before there were any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    sweeps: Vec<Sweep>,
    notes: Vec<Note>,
    /// Absent in schema 1.
    #[serde(default)]
    writing: Writing,
    /// The rows answering predictions (N14); absent before there were any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    answers: Vec<Answer>,
    /// Soaks started and not recorded (T1); absent when none runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    soaks_started: Vec<SoakStart>,
    /// The trial budget new runs are held to (S19, schema 11); absent when
    /// none is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    trial_budget: Option<f64>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename = "Run", deny_unknown_fields)]
pub(super) struct RunFile {
    number: u32,
    #[serde(with = "super::time")]
    recorded_at: DateTime<Utc>,
    /// Absent when the row stands (schema 10: an empty field is not written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    discarded: Option<Discard>,
    /// Index into the snapshots; absent before schema 3.
    #[serde(default)]
    snapshot: Option<u32>,
    /// The measurement, its conditions without the snapshot's.
    measurement: Measurement,
}

#[derive(Serialize, Deserialize)]
#[serde(rename = "Soak", deny_unknown_fields)]
struct SoakFile {
    number: u32,
    #[serde(with = "super::time")]
    recorded_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    discarded: Option<Discard>,
    #[serde(default)]
    snapshot: Option<u32>,
    protocol: SoakProtocol,
    numbers: SoakNumbers,
    /// The soak's conditions without the snapshot's.
    conditions: Vec<Condition>,
    raw_file: Option<RawFile>,
    tag: Tag,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    synthetic: bool,
}

/// The snapshot table being built while a notebook is written.
#[derive(Default)]
struct Table(Vec<Snapshot>);

impl Table {
    /// Splits a row's record into its snapshot's index and how many of its
    /// conditions, from the first, the snapshot holds: the row keeps the
    /// rest itself. Only a row with a stated Environment has a snapshot,
    /// so a pre-snapshot row is written back as it was read. `counters` is
    /// the row's counters sentence, when it has one: kept in the snapshot
    /// too, so the row need not repeat it. The record is only read: a
    /// snapshot is copied once, when first met, not once per row (a
    /// semester's 10 000, issue 50).
    fn split(
        &mut self,
        stated: Option<&Environment>,
        conditions: &[Condition],
        counters: Option<&str>,
    ) -> (Option<u32>, usize) {
        let Some(stated) = stated else { return (None, 0) };
        let shared = conditions.iter().take_while(|c| c.name().is_some_and(|n| n.is_shared())).count();
        let machine = &conditions[..shared];
        let same = |s: &Snapshot| s.stated == *stated && s.machine == machine && s.counters.as_deref() == counters;
        let index = match self.0.iter().position(same) {
            Some(i) => i,
            None => {
                self.0.push(Snapshot {
                    stated: stated.clone(),
                    machine: machine.to_vec(),
                    counters: counters.map(str::to_owned),
                });
                self.0.len() - 1
            }
        };
        (Some(u32::try_from(index).unwrap_or(u32::MAX)), shared)
    }
}

/// A row's snapshot as read back: its index in the table, and itself.
type Named<'a> = Option<(usize, &'a Snapshot)>;

/// Reads a row's snapshot back: the snapshot (its stated Environment) and
/// the row's conditions in full. An index outside the table is a file
/// edited by hand.
fn join(
    snapshots: &[Snapshot],
    index: Option<u32>,
    own: Vec<Condition>,
    row: impl FnOnce() -> String,
) -> Result<(Named<'_>, Vec<Condition>), String> {
    let Some(index) = index else { return Ok((None, own)) };
    let (i, snapshot) = usize::try_from(index)
        .ok()
        .and_then(|i| Some((i, snapshots.get(i)?)))
        .ok_or_else(|| format!("{} names snapshot {index}, which the file does not have", row()))?;
    let mut conditions = snapshot.machine.clone();
    conditions.extend(own);
    Ok((Some((i, snapshot)), conditions))
}

impl From<Notebook> for NotebookFile {
    fn from(nb: Notebook) -> Self {
        let mut table = Table::default();
        let runs = nb
            .runs
            .into_iter()
            .map(|r| {
                let counters = r.measurement.work.as_ref().map(|w| w.counters.as_str()).filter(|c| !c.is_empty());
                let (snapshot, shared) = table.split(r.stated.as_deref(), &r.measurement.conditions, counters);
                // A row no other copy holds is taken as it is; a shared one
                // is copied but for the conditions its snapshot holds.
                let mut measurement = match Arc::try_unwrap(r.measurement) {
                    Ok(mut measurement) => {
                        measurement.conditions.drain(..shared);
                        measurement
                    }
                    Err(shared_row) => shared_row.with_conditions(shared_row.conditions[shared..].to_vec()),
                };
                // Its snapshot says it now.
                if let (Some(_), Some(work)) = (snapshot, measurement.work.as_mut()) {
                    work.counters.clear();
                }
                RunFile { number: r.number, recorded_at: r.recorded_at, discarded: r.discarded, snapshot, measurement }
            })
            .collect();
        let soaks = nb
            .soaks
            .into_iter()
            .map(|mut s| {
                let (snapshot, shared) = table.split(s.stated.as_ref(), &s.conditions, None);
                let conditions = s.conditions.split_off(shared);
                SoakFile {
                    number: s.number,
                    recorded_at: s.recorded_at,
                    discarded: s.discarded,
                    snapshot,
                    protocol: s.protocol,
                    numbers: s.numbers,
                    conditions,
                    raw_file: s.raw_file,
                    tag: s.tag,
                    synthetic: s.synthetic,
                }
            })
            .collect();
        NotebookFile {
            schema: nb.schema,
            journal: None,
            title: nb.title,
            created_at: nb.created_at,
            environment: nb.environment,
            snapshots: table.0,
            predictions: nb.predictions,
            runs,
            soaks,
            comparisons: nb.pairs,
            sweeps: nb.sweeps,
            notes: nb.notes,
            writing: nb.writing,
            answers: nb.answers,
            soaks_started: nb.soaks_started,
            trial_budget: nb.trial_budget,
        }
    }
}

impl TryFrom<NotebookFile> for Notebook {
    type Error = String;

    fn try_from(file: NotebookFile) -> Result<Self, String> {
        let snapshots = file.snapshots;
        // The rows of one snapshot share its stated Environment, as they
        // did when recorded.
        let stated: Vec<Arc<Environment>> = snapshots.iter().map(|s| Arc::new(s.stated.clone())).collect();
        // A semester's rows are shared among the CPUs (issue 50).
        let runs = crate::shared_work::map_owned(file.runs, crate::shared_work::ROWS_WORTH_SHARING, |r| {
            let mut measurement = r.measurement;
            let own = std::mem::take(&mut measurement.conditions);
            let (snapshot, conditions) = join(&snapshots, r.snapshot, own, || format!("run {}", r.number))?;
            measurement.conditions = conditions;
            if let (Some((_, Snapshot { counters: Some(counters), .. })), Some(work)) =
                (snapshot, measurement.work.as_mut())
                && work.counters.is_empty()
            {
                work.counters.clone_from(counters);
            }
            Ok(Run {
                number: r.number,
                recorded_at: r.recorded_at,
                discarded: r.discarded,
                measurement: Arc::new(measurement),
                stated: snapshot.and_then(|(i, _)| stated.get(i).cloned()),
            })
        })
        .into_iter()
        .collect::<Result<_, String>>()?;
        let soaks = file
            .soaks
            .into_iter()
            .map(|s| {
                let (snapshot, conditions) =
                    join(&snapshots, s.snapshot, s.conditions, || format!("soak S{}", s.number))?;
                let stated = snapshot.map(|(_, snapshot)| snapshot.stated.clone());
                Ok(Soak {
                    number: s.number,
                    recorded_at: s.recorded_at,
                    discarded: s.discarded,
                    protocol: s.protocol,
                    numbers: s.numbers,
                    conditions,
                    raw_file: s.raw_file,
                    tag: s.tag,
                    synthetic: s.synthetic,
                    stated,
                })
            })
            .collect::<Result<_, String>>()?;
        // A budget typed into the file by hand is held to what `bench
        // --budget` takes (S19).
        super::checked_trial_budget(file.trial_budget).map_err(|e| format!("the trial budget: {e}"))?;
        Ok(Notebook {
            schema: file.schema,
            title: file.title,
            created_at: file.created_at,
            environment: file.environment,
            predictions: file.predictions,
            runs,
            soaks,
            pairs: file.comparisons,
            sweeps: file.sweeps,
            notes: file.notes,
            writing: file.writing,
            answers: file.answers,
            soaks_started: file.soaks_started,
            trial_budget: file.trial_budget,
        })
    }
}

/// A run as a journal line holds it: whole, its stated Environment and
/// conditions inline (a line stands alone; the snapshot table is the
/// snapshot's).
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename = "Run", deny_unknown_fields)]
pub(super) struct RunEntry {
    number: u32,
    #[serde(with = "super::time")]
    recorded_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    discarded: Option<Discard>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stated: Option<Environment>,
    measurement: Measurement,
}

impl From<&Run> for RunEntry {
    fn from(r: &Run) -> Self {
        Self {
            number: r.number,
            recorded_at: r.recorded_at,
            discarded: r.discarded.clone(),
            stated: r.stated.as_deref().cloned(),
            measurement: (*r.measurement).clone(),
        }
    }
}

impl From<RunEntry> for Run {
    fn from(r: RunEntry) -> Self {
        Run {
            number: r.number,
            recorded_at: r.recorded_at,
            discarded: r.discarded,
            measurement: Arc::new(r.measurement),
            stated: r.stated.map(Arc::new),
        }
    }
}

/// A soak as a journal line holds it, like [`RunEntry`].
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename = "Soak", deny_unknown_fields)]
pub(super) struct SoakEntry {
    number: u32,
    #[serde(with = "super::time")]
    recorded_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    discarded: Option<Discard>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stated: Option<Environment>,
    protocol: SoakProtocol,
    numbers: SoakNumbers,
    conditions: Vec<Condition>,
    raw_file: Option<RawFile>,
    tag: Tag,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    synthetic: bool,
}

impl From<&Soak> for SoakEntry {
    fn from(s: &Soak) -> Self {
        let s = s.clone();
        Self {
            number: s.number,
            recorded_at: s.recorded_at,
            discarded: s.discarded,
            stated: s.stated,
            protocol: s.protocol,
            numbers: s.numbers,
            conditions: s.conditions,
            raw_file: s.raw_file,
            tag: s.tag,
            synthetic: s.synthetic,
        }
    }
}

impl From<SoakEntry> for Soak {
    fn from(s: SoakEntry) -> Self {
        Soak {
            number: s.number,
            recorded_at: s.recorded_at,
            discarded: s.discarded,
            protocol: s.protocol,
            numbers: s.numbers,
            conditions: s.conditions,
            raw_file: s.raw_file,
            tag: s.tag,
            synthetic: s.synthetic,
            stated: s.stated,
        }
    }
}
