//! A finished run recorded, on the file thread, through the engine's one
//! way of recording a run ([`record_run`]): the window's record path is UI
//! → file thread → UI, and the command line calls the same function.

use std::path::PathBuf;
use std::sync::Arc;

use vernier_engine::documents;
use vernier_engine::extend::{Claim, Extension};
use vernier_engine::harness::{BenchResult, raw::Reserved};
use vernier_engine::record_run::{self, Joins};
use vernier_engine::reproduce::{Original, SideBySide};

use super::super::Done;
use super::super::io::{Follow, Job};

/// What a finished run's rows join.
pub enum Joining {
    /// Nothing: new rows.
    Nothing,
    /// Rows of this notebook rerun to more trials (S10), with the claim.
    Extension(Box<Extension>, Option<Claim>),
    /// A classmate's row rerun here, and where it came from (R4).
    Reproduction(Box<Original>, String),
}

/// Records a finished run in the notebook in `dir`.
pub struct RecordRun {
    /// The notebook's folder.
    pub dir: PathBuf,
    /// The run, as the engine finished it.
    pub result: Arc<BenchResult>,
    /// The raw-file name taken when it started.
    pub reserved: Reserved,
    /// What its rows join.
    pub joining: Joining,
}

/// A finished run as recorded, for the window to show.
pub struct RunOnDisk {
    /// What the engine recorded, with the notebook as saved.
    pub done: record_run::RunRecorded<Option<SideBySide>>,
    /// Parts of each document still to write, counted here.
    pub unwritten: super::super::io::Unwritten,
}

impl Job for RecordRun {
    fn run(self: Box<Self>, follow: &mut Follow) -> Done {
        let RecordRun { dir, result, reserved, joining } = *self;
        let joins = match &joining {
            Joining::Extension(plan, claim) => Joins::Extension { plan, claim: claim.as_ref() },
            Joining::Nothing | Joining::Reproduction(..) => Joins::Nothing,
        };
        let recorded = record_run::record(&dir, &result, reserved, joins, |nb, recorded, at| {
            let Joining::Reproduction(original, source) = &joining else { return Ok(None) };
            if result.failure.is_some() {
                return Ok(None);
            }
            // The note naming their row, in the same change as the rows.
            let rows: Vec<_> = recorded.runs.iter().map(|&n| nb.run(n)).collect();
            let Some(side) = SideBySide::new(original, &result, &rows) else { return Ok(None) };
            nb.add_vernier_note(&side.note(original, source), at)?;
            Ok(Some(side))
        })
        .map(|done| {
            follow.saved(&dir, done.stamp.clone(), &done.notebook);
            let unwritten = documents::unwritten(&done.notebook);
            Box::new(RunOnDisk { done, unwritten })
        })
        .map_err(|e| e.to_string());
        Done::RunRecorded { result, recorded, joining }
    }
}

/// The window's copy after a recording: what was saved, with the window's
/// changes still on their way applied on top, as the file will hold them.
pub fn with_unsaved<'a>(
    mut notebook: vernier_engine::notebook::Notebook,
    unsaved: impl Iterator<Item = &'a super::super::Change>,
) -> vernier_engine::notebook::Notebook {
    for change in unsaved {
        // A change the file refuses is said when its save answers.
        let _ = change.apply(&mut notebook);
    }
    notebook
}
