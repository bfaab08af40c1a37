//! A run's raw-file name, taken on the file thread when the run starts
//! (N10, through the engine's [`record_run::reserve`]), and what a run that
//! will not be recorded lets go.

use std::path::PathBuf;

use vernier_engine::record_run;

use super::super::Done;
use super::super::io::{Follow, Job};

/// Takes the raw-file name of the run numbered `start` (the window's count
/// of starts, so an answer to a cancelled start is known).
pub struct Reserve {
    /// The notebook's folder.
    pub dir: PathBuf,
    /// Which start this answers.
    pub start: u64,
}

impl Job for Reserve {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        let reservation = record_run::reserve(&self.dir).map_err(|e| e.to_string());
        Done::Reserved { start: self.start, reservation }
    }
}

/// Drops what it holds on the file thread: a raw-file reservation or a
/// scratch folder no run will use (removing them is disk work).
pub struct Release<T: Send + 'static>(pub T);

impl<T: Send + 'static> Job for Release<T> {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        drop(self.0);
        Done::Released
    }

    fn counted(&self) -> bool {
        false
    }
}
