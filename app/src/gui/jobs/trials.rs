//! A run's trials read back from its raw file, for its plot (SPEC E17:
//! with each trial's figures when the file keeps the program's own).

use std::path::PathBuf;

use vernier_engine::harness::raw::{RawTrials, TrialsError};
use vernier_engine::notebook::NotebookPath;

use super::super::io::{Done, Follow, Job};
use super::super::{VernierApp, plots};

/// Why a run has no trials to plot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoTrials {
    /// It keeps none, or keeps an imported file in another tool's format:
    /// as it should be, said beside the row, not as an error.
    Absent(String),
    /// Its raw file could not be read or is damaged.
    Failed(String),
}

impl NoTrials {
    /// What the run's view says instead of the plot.
    pub fn text(&self) -> &str {
        match self {
            NoTrials::Absent(why) | NoTrials::Failed(why) => why,
        }
    }
}

/// Reads run `run`'s raw file, a path inside `dir` (resolving it looks at
/// the disk: symbolic links).
pub struct ReadTrials {
    /// The run.
    pub run: u32,
    /// The notebook's folder.
    pub dir: PathBuf,
    /// Its raw file, as the row names it.
    pub path: NotebookPath,
}

impl Job for ReadTrials {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        let ReadTrials { run, dir, path } = *self;
        let result = match RawTrials::read(&dir, &path) {
            Ok(raw) => Ok((raw.trials, raw.figures)),
            // An import keeps its file in the instrument's own format.
            Err(TrialsError::Foreign(path)) => Err(NoTrials::Absent(format!(
                "no trial plot: the trials are in {path}, the imported file unchanged, in its own format"
            ))),
            Err(e) => Err(NoTrials::Failed(e.to_string())),
        };
        Box::new(move |app: &mut VernierApp| match (result, app.doc.notebook.run(run)) {
            (Ok((trials, figures)), Some(r)) => {
                let view = plots::RunTrials::new(r, &trials, figures.as_deref());
                app.shown.trials.insert(run, Ok(view));
            }
            (Err(why), _) => {
                if let NoTrials::Failed(e) = &why {
                    app.say(format!("run {run}: {e}"), true);
                }
                app.shown.trials.insert(run, Err(why));
            }
            (Ok(_), None) => {}
        })
    }
}
