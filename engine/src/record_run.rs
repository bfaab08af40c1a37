//! Recording a measured run in a notebook: the one way every face does it
//! (SPEC N3, N10; issue 46).
//!
//! A run takes its raw file's name when it starts ([`reserve`]): a second
//! terminal's run can never take the same one, a refused `raw/` stops the
//! run before it measures, and the rows keep the Environment as stated
//! then (N9). When it ends, [`record`] keeps the build's sources, writes
//! the trials into the reserved name, and adds the rows — and whatever
//! joins them, an extension's verdict or a reproduction's note — to the
//! notebook as it is then, in one change under the folder's lock. The
//! command line calls these two on its own thread; the window on its file
//! thread.

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::extend::{self, Claim, Extension};
use crate::harness::{self, BenchResult, BenchSpec, RowsAdded, raw::RawError, raw::Reserved};
use crate::notebook::{
    Environment, IntegrityFinding, LoadError, Notebook, NotebookError, NotebookPath, SaveError, store,
};

/// Why a run could not be reserved or recorded.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The notebook could not be read as it is now.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The folder's lock could not be taken.
    #[error(transparent)]
    Lock(#[from] SaveError),
    /// The raw file (or a kept source) could not be reserved or written.
    #[error(transparent)]
    Raw(#[from] RawError),
    /// The trials are on disk, but the rows could not join the notebook
    /// (the wait for the lock was cancelled, the save failed, the notebook
    /// refused them): said with where the trials are.
    #[error("the trials are kept in {raw_file}, not recorded in the log: {source}")]
    NotRecorded {
        /// The raw file holding the trials.
        raw_file: NotebookPath,
        /// Why the change did not happen.
        #[source]
        source: store::ChangeError<NotebookError>,
    },
}

impl RecordError {
    /// True when the notebook or what was asked of it was refused (bad
    /// input), false when writing failed.
    pub fn is_refusal(&self) -> bool {
        match self {
            RecordError::Load(_) => true,
            RecordError::NotRecorded { source, .. } => !matches!(source, store::ChangeError::Save(_)),
            RecordError::Lock(_) | RecordError::Raw(_) => false,
        }
    }
}

/// What a run takes when it starts.
#[derive(Debug)]
pub struct Reservation {
    /// Its raw file's name, created empty (removed if the run is dropped).
    pub raw: Reserved,
    /// The Environment as stated now, which its rows keep (N9).
    pub stated: Environment,
    /// The notebook's integrity findings (N4), for the face to say.
    pub integrity: Vec<IntegrityFinding>,
    /// The notebook's trial budget (seconds) when the run starts (S19).
    pub trial_budget: Option<f64>,
}

impl Reservation {
    /// The raw file's name, and `spec` as the notebook holds it when the
    /// run starts: its rows keep the Environment as stated now (N9), and a
    /// run that states no budget is held to the notebook's trial budget
    /// (S19) where its unit is a time; its rows then keep the budget in
    /// their tail, so a later change of the budget never reaches them.
    pub fn start(self, spec: BenchSpec) -> (Reserved, BenchSpec) {
        (self.raw, BenchSpec { stated: Some(self.stated), notebook_budget: self.trial_budget, ..spec })
    }
}

/// Takes the raw-file name the next run of the notebook in `dir` will
/// write, after waiting for a lock held elsewhere: a run that could not be
/// recorded afterwards is not measured first (N10).
pub fn reserve(dir: &Path) -> Result<Reservation, RecordError> {
    store::exclusive(dir, || Ok::<_, SaveError>(()))?;
    let notebook = store::load(dir)?;
    let raw = Reserved::take(dir, &harness::raw_stem(notebook.runs().len() + 1))?;
    Ok(Reservation {
        raw,
        stated: notebook.environment().clone(),
        integrity: notebook.integrity(),
        trial_budget: notebook.trial_budget(),
    })
}

/// What a run's rows join, besides being new rows.
#[derive(Debug, Clone, Copy)]
pub enum Joins<'a> {
    /// Nothing: new rows.
    Nothing,
    /// Earlier rows of this notebook, rerun to more trials (S10), judged
    /// against `claim`.
    Extension {
        /// The rows extended.
        plan: &'a Extension,
        /// The difference the student means to claim.
        claim: Option<&'a Claim>,
    },
}

/// A run recorded.
#[derive(Debug)]
pub struct RunRecorded<T> {
    /// The rows (or the note of a run that ended early) and the raw file.
    pub recorded: RowsAdded,
    /// An extension's verdict, when the rows extend earlier ones and the
    /// rerun gave a median.
    pub extension: Option<extend::Extended>,
    /// What `also` returned.
    pub also: T,
    /// The notebook as saved: the file as it was, with the rows added.
    pub notebook: Notebook,
    /// The stamp of what was saved, for a face that follows the file.
    pub stamp: store::Stamp,
}

impl<T> RunRecorded<T> {
    /// What recording said, for a status line: the run ended early, the
    /// extension's verdict, the sweep's rows, or the runs.
    pub fn message(&self, result: &BenchResult) -> String {
        let recorded = &self.recorded;
        if let Some(failure) = &result.failure {
            return format!("the run ended early ({failure}); its trials are in {}", recorded.raw_file);
        }
        if let Some(outcome) = &self.extension {
            return outcome.verdict.clone();
        }
        let runs = &recorded.runs;
        match (recorded.sweep, runs.first(), runs.last()) {
            // SPEC E16: a scan's rows are one sweep.
            (Some(w), Some(first), Some(last)) => {
                format!("recorded sweep W{w}: {} rows, runs {first}–{last}", runs.len())
            }
            _ => format!("recorded run {}", runs.iter().map(u32::to_string).collect::<Vec<_>>().join(" and ")),
        }
    }
}

/// Records `result` in the notebook in `dir`: keeps the build's sources
/// (N15), writes the trials into `reserved`, then — in one change under
/// the lock, on the notebook as it is now — adds the rows as `joins` says
/// and calls `also` with them (a reproduction's note). Run numbers are
/// taken at that moment (N10). A run that ended early is written under a
/// `failed-…` name and recorded as a note.
pub fn record<T>(
    dir: &Path,
    result: &BenchResult,
    reserved: Reserved,
    joins: Joins<'_>,
    mut also: impl FnMut(&mut Notebook, &RowsAdded, DateTime<Utc>) -> Result<T, NotebookError>,
) -> Result<RunRecorded<T>, RecordError> {
    harness::keep_sources(dir, &result.kept_sources)?;
    let raw_file = harness::write_raw_reserved(dir, result, reserved)?;
    let at = Utc::now();
    let changed = store::change_stamped(dir, None, |nb| {
        let (recorded, extension) = match joins {
            Joins::Nothing => (harness::add_rows(nb, result, &raw_file, at), None),
            Joins::Extension { plan, claim } => plan.record(nb, result, &raw_file, at, claim),
        };
        let also = also(nb, &recorded, at)?;
        Ok((recorded, extension, also))
    })
    .map_err(|source| RecordError::NotRecorded { raw_file: raw_file.path.clone(), source })?;
    let store::Changed { value: (recorded, extension, also), notebook, stamp, .. } = changed;
    Ok(RunRecorded { recorded, extension, also, notebook, stamp })
}

// The tests measure `true`, a Unix program.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::sync::{Arc, atomic::AtomicBool};

    use crate::harness::{BenchSpec, Subject};
    use crate::notebook::WarmupPolicy;

    /// A short run of `true`, measured for real.
    fn measured(stated: Environment) -> BenchResult {
        let mut spec = BenchSpec::new(vec![Subject::Command { argv: vec!["true".into()], shell: false }]);
        spec.runs = 3;
        spec.warmup = WarmupPolicy::Count(0);
        spec.stated = Some(stated);
        harness::run_bench(&spec, &Arc::new(AtomicBool::new(false)), &mut |_| {}).expect("bench")
    }

    // SPEC N10: the raw name is taken at the start; the rows are numbered
    // when recorded, on the notebook as it is then.
    #[test]
    fn a_run_is_numbered_when_recorded_and_keeps_its_reserved_raw_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        store::create(dir.path(), "Mine", Utc::now()).expect("create");
        let reservation = reserve(dir.path()).expect("reserve");
        assert!(dir.path().join("raw/run-1.csv").exists(), "the name is taken before measuring");
        let result = measured(reservation.stated.clone());
        // A second terminal starts and finishes a run meanwhile: it takes
        // the next free name, and the first row number.
        let theirs = reserve(dir.path()).expect("their reservation");
        let their_result = measured(theirs.stated.clone());
        let them = record(dir.path(), &their_result, theirs.raw, Joins::Nothing, |_, _, _| Ok(())).expect("theirs");
        assert_eq!(
            (them.recorded.runs.as_slice(), them.recorded.raw_file.to_string().as_str()),
            (&[1][..], "raw/run-1-2.csv")
        );
        let done = record(dir.path(), &result, reservation.raw, Joins::Nothing, |_, _, _| Ok(())).expect("record");
        assert_eq!(done.recorded.runs, vec![2]);
        assert_eq!(done.recorded.raw_file.to_string(), "raw/run-1.csv");
        assert_eq!(done.message(&result), "recorded run 2");
        let on_disk = store::load(dir.path()).expect("load");
        assert_eq!(on_disk.runs().len(), 2, "both runs are kept");
        assert_eq!(on_disk.run(2).map(|r| r.raw_file_column()), Some("raw/run-1.csv".into()));
        assert_eq!(done.notebook.runs().len(), 2, "the notebook returned is the one saved");
    }

    // SPEC N10: rows a notebook refuses leave the trials on disk, said.
    #[test]
    fn rows_that_cannot_join_say_where_the_trials_are() {
        let dir = tempfile::tempdir().expect("tempdir");
        store::create(dir.path(), "Mine", Utc::now()).expect("create");
        let reservation = reserve(dir.path()).expect("reserve");
        let result = measured(reservation.stated.clone());
        let refused = record(dir.path(), &result, reservation.raw, Joins::Nothing, |_, _, _| {
            Err::<(), _>(NotebookError::Empty("a test's refusal"))
        })
        .expect_err("refused");
        assert!(refused.is_refusal());
        assert!(refused.to_string().starts_with("the trials are kept in raw/run-1.csv, not recorded"), "{refused}");
        assert!(dir.path().join("raw/run-1.csv").exists());
        assert!(store::load(dir.path()).expect("load").runs().is_empty());
    }
}
