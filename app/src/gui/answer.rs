//! What the window's threads answer (issue 46): a job on the file thread, a
//! lookout, a file dialog or a "Try once" each answer with an [`Answer`], a
//! value that says what was found or done. The window applies it between
//! frames in [`VernierApp::answered`], one arm per kind, each calling the
//! method beside the job that asked (`jobs/`, `dialogs/`): a thread never
//! holds code over the window's fields, an answer can be looked at in a
//! test without a window, and an answer nobody applies does not compile.

use std::path::PathBuf;
use std::sync::Arc;

use vernier_engine::audit;
use vernier_engine::documents::ExportError;
use vernier_engine::harness::metric::TryOnce;
use vernier_engine::harness::{BenchResult, BenchSpec};
use vernier_engine::notebook::Notebook;
use vernier_engine::platform::machine::Machine;
use vernier_engine::record_run::Reservation;
use vernier_engine::reproduce::Scratch;

use super::VernierApp;
use super::dialogs::{import, pick, recovery, reproduce, workbook};
use super::io::Unwritten;
use super::jobs::{Joining, RunOnDisk};
use super::plots::SoakView;
use super::plots::{NoTrials, RunTrials};
use super::views::conditions_once::Split;

/// One answer from a thread of the window's, applied on the UI thread.
pub enum Answer {
    /// A notebook opened (or created, then opened) in `dir`.
    Opened { dir: PathBuf, result: Result<Box<(Notebook, Unwritten)>, String> },
    /// The open notebook saved into `to`, which is now the open one.
    SavedAs { to: PathBuf, result: Result<(), String> },
    /// The raw-file name taken for the run numbered `start`.
    Reserved { start: u64, reservation: Result<Reservation, String> },
    /// A finished run, recorded or not.
    RunRecorded { result: Arc<BenchResult>, recorded: Result<Box<RunOnDisk>, String>, joining: Joining },
    /// Run `run`'s trials for its plot.
    Trials { run: u32, result: Result<RunTrials, NoTrials> },
    /// This machine, read for the Environment.
    Machine(Box<Machine>),
    /// The audit of the notebook shown.
    Audited(Box<audit::Report>),
    /// The six documents written, or why not.
    Exported(Result<Unwritten, ExportError>),
    /// A soak file read for the Soak section.
    Soak(Result<Box<SoakView>, String>),
    /// The Runs table's conditions said once, as of `revision`.
    ConditionsSplit { revision: u64, split: Split },
    /// A file dialog closed; `no_service` when no dialog service answered.
    Picked { purpose: pick::Pick, path: Option<PathBuf>, no_service: bool },
    /// "Try once" number `id` ran.
    Tried { id: u64, result: Result<TryOnce, String> },
    /// A file of measurements read and summarised for the import dialog.
    ImportPreview(import::ImportPreview),
    /// An import recorded, or not.
    ImportRecorded {
        prepared: Box<vernier_engine::import::Prepared>,
        recorded: Result<Box<(vernier_engine::import::ImportRecorded, Unwritten)>, String>,
    },
    /// A classmate's log read for the Reproduce dialog.
    TheirLog(Result<reproduce::TheirLog, String>),
    /// A rebuild's sources written for the rerun of their row `row`.
    SourcesWritten { row: usize, spec: Box<BenchSpec>, written: Result<Scratch, String> },
    /// A new notebook made in `target` from a Vernier workbook.
    NotebookFromWorkbook { target: PathBuf, made: Result<Box<reproduce::FromWorkbook>, String> },
    /// The notebook's workbook in `dir` at `path` weighed for edits.
    WorkbookEdits { dir: PathBuf, path: PathBuf, offer: Result<Option<Box<workbook::EditsOffer>>, String> },
    /// A workbook's edits taken in.
    TakenIn { dir: PathBuf, path: PathBuf, result: Result<workbook::TakenIn, String> },
    /// Recovery files found beside the notebook in `dir`.
    RecoveryFound { dir: PathBuf, found: Vec<recovery::Found> },
    /// A recovery file applied.
    Recovered { dir: PathBuf, result: Result<recovery::Recovered, String> },
    /// Nothing to show: what a job that only lets go of something answers.
    Released,
}

impl VernierApp {
    /// Applies what a thread answered: each kind by the method beside the
    /// job that asks for it.
    pub(super) fn answered(&mut self, answer: Answer) {
        match answer {
            Answer::Opened { dir, result } => self.opened(dir, result),
            Answer::SavedAs { to, result } => self.saved_as(to, result),
            Answer::Reserved { start, reservation } => self.reserved(start, reservation),
            Answer::RunRecorded { result, recorded, joining } => self.run_recorded(&result, recorded, joining),
            Answer::Trials { run, result } => self.trials_read(run, result),
            Answer::Machine(machine) => self.machine_read(&machine),
            Answer::Audited(report) => self.audited(*report),
            Answer::Exported(written) => self.exported(written),
            Answer::Soak(result) => self.soak_read(result),
            Answer::ConditionsSplit { revision, split } => self.views.runs.table.conditions.answered(revision, split),
            Answer::Picked { purpose, path, no_service } => self.picked(purpose, path, no_service),
            Answer::Tried { id, result } => self.tried(id, result),
            Answer::ImportPreview(preview) => self.import_previewed(preview),
            Answer::ImportRecorded { prepared, recorded } => self.import_recorded(&prepared, recorded),
            Answer::TheirLog(log) => self.their_log_read(log),
            Answer::SourcesWritten { row, spec, written } => self.sources_written(row, *spec, written),
            Answer::NotebookFromWorkbook { target, made } => self.notebook_from_workbook(target, made),
            Answer::WorkbookEdits { dir, path, offer } => self.on_workbook_edits(&dir, &path, offer),
            Answer::TakenIn { dir, path, result } => self.on_taken_in(&dir, &path, result),
            Answer::RecoveryFound { dir, found } => self.on_recovery_found(&dir, found),
            Answer::Recovered { dir, result } => self.on_recovered(&dir, result),
            Answer::Released => {}
        }
    }
}
