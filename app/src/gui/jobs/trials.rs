//! A run's trials read back from its raw file, for its plot (SPEC E17:
//! with each trial's figures when the file keeps the program's own).

use std::path::PathBuf;

use vernier_engine::row_trials::{self, RowTrials, RowTrialsError};

use super::super::Done;
use super::super::io::{Follow, Job};
use super::super::plots::{self, NoTrials};

/// Reads a run's raw file, a path inside `dir` (resolving it looks at
/// the disk: symbolic links), through the engine's one read-back of a
/// row's trials; an imported row's file in its instrument's own format is
/// read back against the row.
pub struct ReadTrials {
    /// The row as the window has it (its raw file, its unit, its median).
    pub row: Box<vernier_engine::notebook::Run>,
    /// The notebook's folder.
    pub dir: PathBuf,
}

impl Job for ReadTrials {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        let ReadTrials { row, dir } = *self;
        let run = row.number;
        let result = match row.measurement.raw_file.as_ref().map(|_| row_trials::read(&dir, &row)) {
            Some(Ok(RowTrials::Recorded(raw))) => Ok(plots::RunTrials::new(&row, &raw.trials, raw.figures.as_deref())),
            // An import keeps its file in the instrument's own format: its
            // values are read back from it.
            Some(Ok(RowTrials::Imported(values))) => Ok(plots::RunTrials::of_values(&row, values)),
            Some(Err(RowTrialsError::Imported(why))) => Err(NoTrials::Absent(format!("no trial plot: {why}"))),
            Some(Err(RowTrialsError::Raw(e))) => Err(NoTrials::Failed(e.to_string())),
            None => Err(NoTrials::Absent("no trial plot: the row keeps no raw file".into())),
        };
        Done::Trials { run, result }
    }
}
