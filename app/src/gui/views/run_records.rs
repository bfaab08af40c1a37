//! Which runs something shown was worked out from, so that it is worked out
//! again only when they changed. A notebook's revision moves with every
//! edit — a note, a prediction — while most views of the Runs section read
//! only the runs (and the sweeps): with 10 000 runs, redoing them on every
//! edit costs the frame that edit is made in.
//!
//! A run's measurement and stated Environment are shared between copies of
//! the notebook (see `Run::measurement`), and an edit of the row replaces
//! them, so the same allocation is the same record. They are held weakly —
//! what is kept here never keeps a record alive, nor makes an edit copy
//! one — and an allocation a weak reference holds is never reused while it
//! lives, so an equal address cannot be a new record.

use std::sync::{Arc, Weak};

use chrono::{DateTime, Utc};
use vernier_engine::notebook::{Discard, Environment, Measurement, Run};

/// One run as it was when something was worked out from it.
pub struct Record {
    number: u32,
    recorded_at: DateTime<Utc>,
    discarded: Option<Discard>,
    measurement: Weak<Measurement>,
    stated: Option<Weak<Environment>>,
}

impl Record {
    pub fn of(run: &Run) -> Self {
        Self {
            number: run.number,
            recorded_at: run.recorded_at,
            discarded: run.discarded.clone(),
            measurement: Arc::downgrade(&run.measurement),
            stated: run.stated.as_ref().map(Arc::downgrade),
        }
    }

    /// True when `run` is still this record, field for field.
    pub fn is(&self, run: &Run) -> bool {
        self.number == run.number
            && self.recorded_at == run.recorded_at
            && self.discarded == run.discarded
            && std::ptr::eq(self.measurement.as_ptr(), Arc::as_ptr(&run.measurement))
            && match (&self.stated, &run.stated) {
                (Some(seen), Some(now)) => std::ptr::eq(seen.as_ptr(), Arc::as_ptr(now)),
                (None, None) => true,
                _ => false,
            }
    }
}

/// Every run of a notebook, in order, as something was worked out from them.
#[derive(Default)]
pub struct RunRecords(Vec<Record>);

impl RunRecords {
    pub fn of(runs: &[Run]) -> Self {
        Self(runs.iter().map(Record::of).collect())
    }

    /// True when `runs` are these records, in the same order, and no more.
    pub fn are(&self, runs: &[Run]) -> bool {
        self.0.len() == runs.len() && self.0.iter().zip(runs).all(|(record, run)| record.is(run))
    }
}

#[cfg(test)]
mod tests {
    use vernier_engine::notebook::{RowRef, store};

    use super::*;
    use crate::gui::tests::measured;

    // SPEC D8, E16: what the Runs section derives from the runs is kept
    // across a copy of the notebook and an edit beside the runs, and not
    // across any change of a run.
    #[test]
    fn records_change_with_their_runs_alone() {
        let now = chrono::Utc::now();
        let tmp = tempfile::tempdir().expect("tmp");
        let mut nb = store::create(tmp.path(), "t", now).expect("created");
        for what in ["a", "b"] {
            nb.record_run(measured(what, &["true"]), now);
        }
        let records = RunRecords::of(nb.runs());
        let mut copy = nb.clone();
        copy.add_note("a note", now).expect("note");
        assert!(records.are(copy.runs()), "a copy with a note holds the same runs");
        copy.discard(RowRef::Run(1), "lid closed", now).expect("discard");
        assert!(!records.are(copy.runs()), "a discard changes run 1");
        assert!(records.are(nb.runs()), "the original is untouched");
        store::replace(tmp.path(), &nb).expect("saves");
        let read_back = store::load(tmp.path()).expect("reads");
        assert_eq!(read_back, nb);
        assert!(!records.are(read_back.runs()), "equal runs read again are new records");
        nb.record_run(measured("c", &["true"]), now);
        assert!(!records.are(nb.runs()), "a new run");
    }
}
