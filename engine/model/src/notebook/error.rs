//! Typed errors of the notebook layer.

use std::path::PathBuf;

use super::prediction::Lock;

/// A notebook could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read, or was refused unread (not a regular
    /// file, or past the size limit).
    #[error(transparent)]
    Read(#[from] crate::bounded::ReadError),
    /// The folder holds no `notebook.ron`.
    #[error("not a Vernier notebook (no notebook.ron): {}", path.display())]
    NotANotebook {
        /// The folder.
        path: PathBuf,
    },
    /// RON syntax or shape error, with its place in the file.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was wrong there.
        message: String,
    },
    /// Written by a newer Vernier; opening it could lose what it holds.
    #[error(
        "notebook schema {found} is newer than this Vernier understands (up to {supported}); \
         update Vernier to open it: {}", path.display()
    )]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// Version in the file.
        found: u32,
        /// Newest version this build reads.
        supported: u32,
    },
    /// Well-formed RON whose content breaks a rule of the log.
    #[error("{message}: {}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Which rule, and where.
        message: String,
    },
}

/// The step of an atomic save that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveStep {
    /// Taking the notebook folder's lock (N10).
    Lock,
    /// Waiting for another writer's lock, cancelled by the user (N10).
    Wait,
    /// Checking, just before committing, that the lock held is still the
    /// folder's (N10): its file was deleted or replaced meanwhile.
    LockLost,
    /// Loading the notebook as it is now, to apply the change to it.
    Reload,
    /// Checking that the target is a real file inside the folder (N10).
    Confine,
    /// Turning the notebook into text.
    Serialize,
    /// Refused: the text is larger than a load accepts, so the file written
    /// could never be opened again.
    TooLarge,
    /// Creating the temporary file.
    CreateTemp,
    /// Writing the temporary file.
    Write,
    /// Flushing the temporary file to disk.
    SyncTemp,
    /// Renaming it over the old file.
    Rename,
    /// Flushing the folder so the rename is durable.
    SyncFolder,
    /// Appending the change to the journal (a part-written line is never
    /// read, SPEC N7).
    Append,
    /// Flushing the journal's new line to disk.
    SyncJournal,
    /// Removing the journal a new notebook.ron holds (compaction).
    RemoveJournal,
}

impl std::fmt::Display for SaveStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SaveStep::Lock => "locking the notebook folder",
            SaveStep::Wait => "waiting for the notebook folder's lock",
            SaveStep::LockLost => "checking the folder's lock before committing",
            SaveStep::Reload => "reading the notebook as it is now",
            SaveStep::Confine => "checking the file to replace",
            SaveStep::Serialize => "serialising the notebook",
            SaveStep::TooLarge => "checking its size",
            SaveStep::CreateTemp => "creating the temporary file",
            SaveStep::Write => "writing the temporary file",
            SaveStep::SyncTemp => "flushing the temporary file",
            SaveStep::Rename => "replacing the old file",
            SaveStep::SyncFolder => "flushing the folder",
            SaveStep::Append => "appending the change to the journal",
            SaveStep::SyncJournal => "flushing the journal",
            SaveStep::RemoveJournal => "removing the journal folded into the notebook",
        })
    }
}

/// A save failed; the previous file on disk is intact unless the step was
/// [`SaveStep::SyncFolder`], where the new one is in place but may not have
/// reached the disk yet — and the message says which.
#[derive(Debug, thiserror::Error)]
#[error(
    "saving failed while {step} ({source}); {}: {}",
    if matches!(step, SaveStep::SyncFolder | SaveStep::SyncJournal) {
        "the new version is in place but may not have reached the disk"
    } else if *step == SaveStep::RemoveJournal {
        "the new version is in place"
    } else if *step == SaveStep::Wait {
        "nothing was changed"
    } else {
        "the previous version is kept"
    },
    path.display()
)]
pub struct SaveError {
    /// The file being saved.
    pub path: PathBuf,
    /// Where it failed.
    pub step: SaveStep,
    /// What the OS said.
    #[source]
    pub source: std::io::Error,
}

/// An edit the log's rules refuse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NotebookError {
    /// N4: locked predictions are read-only; amend instead.
    #[error("prediction P{number} is locked ({lock}); add an amendment instead")]
    PredictionLocked {
        /// The prediction.
        number: u32,
        /// What locked it.
        lock: Lock,
    },
    /// No prediction with that number.
    #[error("there is no prediction P{0}")]
    NoSuchPrediction(u32),
    /// No run or soak with that number.
    #[error("there is no {0}")]
    NoSuchRow(super::run::RowRef),
    /// N5: discarding twice would overwrite the first reason.
    #[error("{0} is already discarded")]
    AlreadyDiscarded(super::run::RowRef),
    /// A change in the journal that does not fit the notebook it follows.
    #[error("{0}")]
    Journal(#[from] JournalError),
    /// A required text is empty.
    #[error("'{0}' must not be empty")]
    Empty(&'static str),
    /// An Environment field name that does not exist.
    #[error(transparent)]
    UnknownField(#[from] super::environment::UnknownField),
    /// A Workbench value from which no one bench can be read.
    #[error(transparent)]
    BadWorkbench(#[from] super::environment::BadWorkbench),
    /// A citation whose URL or date is malformed.
    #[error("citation refused: {0}")]
    BadCitation(String),
    /// A16: the report and ai-usage.txt are always part of a submission.
    #[error("{0} is always part of a submission; mark one of its prompts as not part instead")]
    AlwaysPart(String),
    /// A16: a written prompt cannot also be marked not part.
    #[error("“{0}” is written; clear its answer first to mark it not part of this submission")]
    AnsweredPrompt(String),
    /// "No citations" stated while the citations table holds some.
    #[error("the notebook holds {0} citation(s); remove them before saying the report cites nothing")]
    HasCitations(usize),
    /// A placement deadline or rate that is not a positive number.
    #[error("the placement budget of '{0}' needs a positive deadline (ms) and, if given, a positive rate")]
    BadBudget(String),
    /// A trial budget for new runs outside what `bench --budget` takes
    /// (S19).
    #[error("the trial budget: {0}")]
    TrialBudget(#[from] crate::duration::DurationError),
    /// A soak protocol that cannot give the six numbers it promises (T1,
    /// T11); the message says which value and what would fit.
    #[error("the soak protocol does not fit: {0}")]
    BadProtocol(String),
    /// A soak protocol whose numbers do not fit, as [`super::SoakProtocol::check`] says.
    #[error("the soak protocol does not fit: {0}")]
    Protocol(#[from] super::ProtocolError),
    /// No citation with that number.
    #[error("there is no citation {0}")]
    NoSuchCitation(usize),
    /// A statement made after the fact about what the row already states
    /// (its own record is never replaced, SPEC N9).
    #[error("run {run} already states its {what}: {value}")]
    AlreadyStated {
        /// The run.
        run: u32,
        /// What was to be stated.
        what: &'static str,
        /// What the row states.
        value: String,
    },
    /// A committed figure typed badly (N14); nothing is recorded.
    #[error(transparent)]
    Figure(#[from] super::committed::FigureError),
    /// A row that cannot answer a prediction (N4, N14), and why.
    #[error(transparent)]
    AnswerRefused(#[from] super::answer::AnswerRefused),
}

/// A new notebook could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// Refused: creating would overwrite someone's log.
    #[error("a notebook already exists here: {}", path.display())]
    Exists {
        /// The existing notebook file.
        path: PathBuf,
    },
    /// A folder could not be made.
    #[error("cannot create {}: {source}", path.display())]
    Io {
        /// The folder.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// The first save failed.
    #[error(transparent)]
    Save(#[from] SaveError),
}

/// A folder of the notebook (`raw/`, `exports/`) could not be created.
#[derive(Debug, thiserror::Error)]
#[error("cannot create {}: {source}", path.display())]
pub struct FolderError {
    /// The folder.
    pub path: std::path::PathBuf,
    /// What the OS said.
    #[source]
    pub source: std::io::Error,
}

/// Creates `dir` and its parents, naming it in the error.
pub fn create_folder(dir: &std::path::Path) -> Result<(), FolderError> {
    std::fs::create_dir_all(dir).map_err(|source| FolderError { path: dir.to_path_buf(), source })
}

/// A journal line that does not fit the notebook it follows: a line
/// edited by hand. Defined here, beside [`NotebookError`] which carries it,
/// so that this module does not depend on `store`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JournalError {
    /// A value it sets is refused: an Environment field, the trial budget.
    #[error("{0}")]
    Refused(#[source] Box<NotebookError>),
    /// A row placed past the end of its section.
    #[error("a change puts row {row} of the {section} after their end")]
    PastEnd {
        /// The row's index.
        row: usize,
        /// The section (`runs` …).
        section: &'static str,
    },
    /// A section left at another length than the change says.
    #[error("a change leaves the {section} {rows} rows long where it says {len}")]
    Length {
        /// The section.
        section: &'static str,
        /// Its length after the change.
        rows: usize,
        /// The length the change says.
        len: usize,
    },
}
