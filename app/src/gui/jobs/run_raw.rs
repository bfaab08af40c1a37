//! A finished run's raw file, written before its rows are recorded: a row
//! never points at trials that are not on disk.

use std::path::PathBuf;
use std::sync::Arc;

use vernier_engine::harness::{self, BenchResult};

use super::super::VernierApp;
use super::super::io::{Done, Follow, Job};

/// Writes the raw file of a finished run, the notebook's run `next_run`.
pub struct WriteRunRaw {
    /// The notebook's folder.
    pub dir: PathBuf,
    /// The run, as the engine finished it.
    pub result: Box<BenchResult>,
    /// The number its first row will have.
    pub next_run: usize,
}

impl Job for WriteRunRaw {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        let WriteRunRaw { dir, result, next_run } = *self;
        // SPEC N15: the build's sources are kept before the rows naming them.
        let raw = harness::keep_sources(&dir, &result.kept_sources)
            .and_then(|()| harness::write_raw(&dir, &result, next_run))
            .map_err(|e| e.to_string());
        Box::new(move |app: &mut VernierApp| match raw {
            Ok(raw_file) => app.record_run(Arc::from(result), raw_file),
            Err(e) => {
                app.measure.extending = None;
                app.say(format!("the run finished but its raw file could not be written: {e}"), true)
            }
        })
    }
}
