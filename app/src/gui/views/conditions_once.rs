//! The Runs table's Conditions said once (SPEC D8): what every run shares,
//! shown above the table, and each run's own cell. Splitting 10 000 runs
//! takes a worker thread (see `AppCommand::SayConditionsOnce`), so what
//! this keeps is arranged to make that work rare and small: a split stays
//! good for as long as every run is the record it was made from (an edit
//! of a note or a prediction touches none; see `run_records`), and a run
//! whose record did not change keeps its parts for the next split.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use vernier_engine::notebook::{Notebook, RowParts, Run};

use super::run_records::{Record, RunRecords};

/// The split the table shows, and what it was made from.
#[derive(Default)]
pub struct ConditionsOnce {
    /// What every run shares, `part; part`.
    shared: String,
    /// Each run's own cell, by run number (in the runs' order, which is
    /// ascending).
    cells: Vec<(u32, String)>,
    /// The runs the split was made from.
    made_from: RunRecords,
    /// The notebook revision the split is good for.
    good_for: Option<u64>,
    /// The revision a split was last asked for.
    asked: Option<u64>,
    /// Each run's parts, kept for the worker between splits.
    parts: Arc<Mutex<RunParts>>,
}

/// What the worker hands back: the split of the runs given, and the
/// records it was made from.
pub struct Split {
    shared: String,
    cells: Vec<(u32, String)>,
    made_from: RunRecords,
}

impl ConditionsOnce {
    /// True when a split for `revision` must be asked of the worker: none
    /// was asked yet, and the split shown was made from other records than
    /// `runs` (when it was made from these, it is good for this revision
    /// too, and nothing is worked out).
    pub fn needs_asking(&mut self, runs: &[Run], revision: u64) -> bool {
        if self.asked == Some(revision) || self.good_for == Some(revision) {
            return false;
        }
        if self.good_for.is_some() && self.made_from.are(runs) {
            self.good_for = Some(revision);
            return false;
        }
        self.asked = Some(revision);
        true
    }

    /// The worker's answer for `revision`; an answer to an older question
    /// is dropped.
    pub fn answered(&mut self, revision: u64, split: Split) {
        if self.asked == Some(revision) {
            (self.shared, self.cells, self.made_from) = (split.shared, split.cells, split.made_from);
            self.good_for = Some(revision);
        }
    }

    /// What the worker keeps between splits.
    pub fn parts(&self) -> Arc<Mutex<RunParts>> {
        Arc::clone(&self.parts)
    }

    /// The shared part, when the split is of the notebook at `revision`
    /// and something is shared.
    pub fn shared_for(&self, revision: u64) -> Option<&str> {
        (self.good_for == Some(revision) && !self.shared.is_empty()).then_some(self.shared.as_str())
    }

    /// Run `number`'s own cell, when the split is of the notebook at
    /// `revision`.
    pub fn cell(&self, number: u32, revision: u64) -> Option<&str> {
        if self.good_for != Some(revision) {
            return None;
        }
        let at = self.cells.binary_search_by_key(&number, |(n, _)| *n).ok()?;
        Some(&self.cells[at].1)
    }
}

/// Splits `nb`'s runs, working out only the parts of runs not seen as
/// they are now (on the worker thread).
pub fn split(nb: &Notebook, parts: &Mutex<RunParts>) -> Split {
    let runs = nb.runs();
    let rows = parts.lock().unwrap_or_else(PoisonError::into_inner).of(runs);
    let split = Notebook::runs_conditions_of(&rows);
    Split {
        shared: split.shared_text(),
        cells: runs.iter().map(|r| r.number).zip(split.cells).collect(),
        made_from: RunRecords::of(runs),
    }
}

/// Each run's conditions part by part, as last worked out, by run number.
#[derive(Default)]
pub struct RunParts(HashMap<u32, (Record, Arc<RowParts>)>);

impl RunParts {
    /// Every run's parts, in order, worked out only for a run not seen as
    /// it is now; runs no longer in `runs` are forgotten.
    fn of(&mut self, runs: &[Run]) -> Vec<Arc<RowParts>> {
        let mut seen = HashMap::with_capacity(runs.len());
        let rows = runs
            .iter()
            .map(|run| {
                let parts = match self.0.remove(&run.number) {
                    Some((record, parts)) if record.is(run) => parts,
                    _ => Arc::new(run.conditions_parts()),
                };
                seen.insert(run.number, (Record::of(run), Arc::clone(&parts)));
                parts
            })
            .collect();
        self.0 = seen;
        rows
    }
}

#[cfg(test)]
mod tests {
    use vernier_engine::notebook::RunStatement;

    use super::*;
    use crate::gui::tests::measured;

    fn cells(once: &ConditionsOnce, revision: u64) -> Vec<Option<String>> {
        (1..=3).map(|n| once.cell(n, revision).map(str::to_owned)).collect()
    }

    // SPEC D8: the split is worked out again only when a run's record
    // changed, and then only that run's parts.
    #[test]
    fn a_split_is_worked_out_again_only_for_the_runs_that_changed() {
        let now = chrono::Utc::now();
        let mut nb = Notebook::new("t", now);
        for what in ["a", "b", "c"] {
            nb.record_run(measured(what, &["true"]), now);
        }
        let mut once = ConditionsOnce::default();
        assert!(once.needs_asking(nb.runs(), 1));
        assert!(!once.needs_asking(nb.runs(), 1), "asked once per revision");
        assert_eq!(cells(&once, 1), [None, None, None], "nothing shown before the answer");
        once.answered(1, split(&nb, &once.parts()));
        let first = cells(&once, 1);
        assert!(first.iter().all(Option::is_some), "{first:?}");
        let kept: Vec<Arc<RowParts>> = once.parts.lock().expect("lock").of(nb.runs());

        // A note changes no run: the split shown is good for the next revision.
        nb.add_note("a note", now).expect("note");
        assert!(!once.needs_asking(nb.runs(), 2));
        assert_eq!(cells(&once, 2), first);

        // Stating run 2's power source changes its record alone.
        nb.state_run(2, &[RunStatement::PowerSource("battery".into())], now).expect("stated");
        assert!(once.needs_asking(nb.runs(), 3));
        assert_eq!(cells(&once, 3), [None, None, None], "the old split is not shown as this one");
        let again: Vec<Arc<RowParts>> = once.parts.lock().expect("lock").of(nb.runs());
        assert!(Arc::ptr_eq(&kept[0], &again[0]) && Arc::ptr_eq(&kept[2], &again[2]), "runs 1 and 3 kept");
        assert!(!Arc::ptr_eq(&kept[1], &again[1]), "run 2 worked out again");
        once.answered(3, split(&nb, &once.parts()));
        let cell = once.cell(2, 3).expect("run 2's cell");
        assert!(cell.contains("battery"), "{cell}");

        // An answer to an older question is dropped.
        once.answered(1, split(&nb, &once.parts()));
        assert!(once.cell(2, 3).is_some_and(|c| c.contains("battery")));
    }
}
