//! The window's own disk work, one [`Job`](super::io::Job) per file: what
//! no dialog owns (a dialog's jobs live in the dialog's file). Each runs on
//! the file thread and answers with a [`Done`](super::Done); what the
//! window does with it is said in the same file when it is the window's
//! (open, save as, export), else by the section it is for (a run's trials,
//! the machine, the soak, the audit: `views/`).

mod audit;
mod export;
mod machine;
mod open;
mod record_run;
mod reserve;
mod save_as;
mod soak;
mod trials;

pub use audit::Audit;
pub use export::Export;
pub use machine::ReadMachine;
pub use open::{How, Open};
pub use record_run::{Joining, RecordRun, RunOnDisk, with_unsaved};
pub use reserve::{Release, Reserve};
pub use save_as::SaveAs;
pub use soak::ReadSoak;
pub use trials::ReadTrials;
