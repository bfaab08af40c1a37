//! The desktop window (SPEC U): the live notebook, the engine behind it,
//! and plots.
//!
//! Views draw and push [`AppCommand`]s; the app applies
//! them after the frame. Measurements run on the engine thread and files are
//! read and written on the I/O thread, so no frame waits on either.

mod chrome;
mod dialogs;
mod events;
mod io;
mod jobs;
mod keeper;
mod lock_wait;
mod plots;
mod settings;
mod soak_runner;
#[cfg(test)]
mod tests;
mod views;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui::{Key, KeyboardShortcut, Modifiers, RichText};
use vernier_engine::extend::{Claim, Extension};
use vernier_engine::harness::{BenchRunner, BenchSpec, NotQueued, Wake, raw::Reserved};
use vernier_engine::notebook::pending::Edit;
use vernier_engine::notebook::{IntegrityFinding, Notebook, store};
use vernier_engine::record_run::Reservation;

use dialogs::export_question::ExportQuestion;
use dialogs::new_run::NewRunForm;
use dialogs::recovery::{CloseAnswer, CloseQuestion};
use dialogs::reproduce::Reproduce;
use dialogs::soak::SoakForm;
use dialogs::{Dialogs, Happened, import, new_run, pick, recovery, workbook};
pub use views::Section;

/// A greyed, italic line: an empty view, or what stands in for a plot.
pub fn hint(ui: &mut egui::Ui, text: &str) {
    ui.label(RichText::new(text).italics().weak());
}

/// Per frame, events are drained for at most this long so a burst of trials
/// never delays drawing.
const EVENT_BUDGET: Duration = Duration::from_millis(8);

/// While a benchmark or soak runs, the window redraws for new trials or
/// samples at most this often (SPEC E15: the window does not compete with
/// the measurement for CPU). Under software OpenGL (Mesa's llvmpipe, as
/// under Xvfb) one frame of this window costs about 40 ms of CPU, nearly all
/// of it the rasteriser's: ten frames a second took a third of a core, one
/// a second still 5 %; every two seconds keeps it near 3 %, and the
/// progress shown is still live.
const LIVE_PACE: Duration = Duration::from_secs(2);

/// With no trial arriving (a long trial), the progress and the elapsed time
/// are redrawn this often all the same.
const LIVE_CLOCK: Duration = LIVE_PACE;

/// Frames drawn between taking a run and handing it to the engine: the one
/// that lays out the Runs section with the live panel, which under software
/// OpenGL costs a tenth of a second of CPU or more and would otherwise fall
/// at the start of the measurement. The frame that hands it over is drawn
/// during the engine's settling pause (`BenchRunner::spawn_for_window`).
const FRAMES_BEFORE_START: u8 = 1;

const SHORTCUT_NEW: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::N);
const SHORTCUT_OPEN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
const SHORTCUT_SAVE_AS: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::S);
const SHORTCUT_CANCEL: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::Escape);
const SHORTCUT_EXPORT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::E);
const SHORTCUT_THEME: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::T);

/// Why the window could not start. `main` decides what exit code each earns.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The scratch notebook could not be created.
    #[error("{0:#}")]
    Scratch(anyhow::Error),
    /// The notebook given could not be read.
    #[error(transparent)]
    Notebook(#[from] vernier_engine::notebook::LoadError),
    /// No window could be opened.
    #[error("the window could not open (is there a display?): {0}")]
    Window(String),
}

/// Opens the window on `path`, or on the scratch notebook when none is given.
pub fn run(path: Option<PathBuf>) -> Result<(), StartError> {
    // A workbook is someone's log to read, not a notebook to write: the
    // window opens on the scratch notebook with the workbook's rows shown
    // read-only in the Reproduce dialog (R1).
    let mut workbook = path.clone().filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("xlsx")));
    // One of a notebook's own workbooks opens that notebook instead, with
    // its spreadsheet edits offered (N12).
    let own = workbook.as_deref().and_then(workbook::own_notebook);
    let dir = match (path, &own) {
        (_, Some(dir)) => dir.clone(),
        (Some(p), None) if workbook.is_none() => p,
        _ => crate::scratch::ensure_scratch().map_err(StartError::Scratch)?,
    };
    let other_workbook = workbook.take_if(|_| own.is_some()).filter(|p| !same_file(p, &workbook::default_path(&dir)));
    // Read before the window exists, so the first frame already shows it;
    // the stamp of what was read lets the file thread follow the file.
    let (notebook, stamp) = store::load_stamped(&dir)?;
    let options = native_options();
    // SPEC E15: SIGINT, SIGTERM and SIGHUP close the window the way its
    // close button does — a run in flight is cancelled and its trial's
    // process group killed, queued changes reach the disk — instead of
    // ending the process under a running trial.
    let terminate = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let woken: Arc<std::sync::OnceLock<egui::Context>> = Arc::default();
    let (flag, wake) = (Arc::clone(&terminate), Arc::clone(&woken));
    // Refused only when a handler is already set (never, for the window).
    let _ = ctrlc::set_handler(move || {
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(ctx) = wake.get() {
            ctx.request_repaint();
        }
    });
    eframe::run_native(
        "Vernier",
        options,
        Box::new(move |cc| {
            let _ = woken.set(cc.egui_ctx.clone());
            let mut app = VernierApp::new(cc, dir, notebook, stamp);
            app.terminate = terminate;
            if let Some(workbook) = workbook {
                app.apply(AppCommand::ReadTheirLog(workbook));
            }
            // The followed workbook is weighed on its own; another one of
            // this notebook's (a copy in exports/) is weighed when asked.
            if let Some(path) = other_workbook {
                let dir = app.doc.dir.clone();
                app.send_job(workbook::Weigh { dir, path });
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| StartError::Window(e.to_string()))
}

/// The window's options. Its position and size are not persisted: eframe
/// asks winit for the window's position when it saves them — at exit, and
/// every 30 s — and winit's X11 backend panics (`inner_position …
/// unwrap()`) when the X connection is gone, which skipped `on_exit` and
/// its recovery file (issue 45 item 4). The window opens at 1280×800.
fn native_options() -> eframe::NativeOptions {
    eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Vernier")
            .with_app_id("vernier")
            .with_inner_size([1280.0, 800.0])
            .with_min_inner_size([720.0, 480.0]),
        persist_window: false,
        ..Default::default()
    }
}

/// True when both paths name the same file.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Everything the window can be asked to do.
pub enum AppCommand {
    /// Show a section.
    Show(Section),
    /// Ask for a folder with a native dialog.
    Pick(pick::Pick),
    /// Open this notebook folder.
    OpenDir(PathBuf),
    /// Create a notebook in this folder and open it.
    CreateDir(PathBuf),
    /// Open the notebook in this folder, or create one there if it has none.
    OpenOrCreateDir(PathBuf),
    /// Copy the open notebook, raw files included, into this new folder and
    /// carry on there.
    SaveAs(PathBuf),
    /// Hand this job to the file thread: how a section asks for what it
    /// needs read.
    Job(Box<dyn io::Job>),
    /// Open a dialog that opens on its own (see [`AppCommand::open`]).
    Open(fn(&mut Dialogs, &dialogs::OpenCx<'_>)),
    /// Read this file in the import dialog.
    ImportFile(PathBuf),
    /// Read and summarise numbers for the import dialog, recording nothing.
    PreviewImport(Box<import::ImportRequest>),
    /// Record an import exactly as it was previewed.
    RecordImport(Arc<vernier_engine::import::Prepared>),
    /// Start a benchmark.
    StartRun(Box<BenchSpec>),
    /// Work out, off the UI thread, the Runs table's conditions said once
    /// for the notebook at this revision (SPEC D8).
    SayConditionsOnce(u64),
    /// Run a command once and read its figure for the New run dialog,
    /// recording nothing (SPEC E17, U3).
    TryOnce {
        /// The command.
        argv: Vec<String>,
        /// How its figure is read.
        metric: vernier_engine::notebook::MetricSpec,
        /// Its time limit.
        timeout: Option<Duration>,
    },
    /// Cancel the benchmark in flight.
    CancelRun,
    /// Stop the New run dialog's "Try once" process, if one runs.
    StopTry,
    /// The run about to start answers this prediction (SPEC N14).
    AnswerOnRecord(Option<u32>),
    /// Say this in the status bar (`error`: as a failure).
    Say {
        /// What is said.
        text: String,
        /// Said as a failure.
        error: bool,
    },
    /// What the user answered when closing with changes not on disk (N10).
    Closing(CloseAnswer),
    /// Change the notebook: applied to the window's copy, then saved
    /// (see `VernierApp::edit`). The view that asks builds the
    /// change, its time stamp included, so a new kind of change is one
    /// `Edit` variant and no window code.
    Edit(Edit),
    /// Fill the Environment's machine fields from what Vernier reads here.
    FillEnvironment,
    /// Select a run and show its trials.
    SelectRun(u32),
    /// Switch between the dark and light themes.
    ToggleTheme,
    /// Read, analyse and chart a soak file (`None`: the shipped synthetic one).
    OpenSoak(Option<PathBuf>),
    /// Write the six documents into exports/, never over a document
    /// edited since it was written (A17).
    Export,
    /// Write them, replacing documents edited since (the user said so).
    ExportReplacing,
    /// Start the fixed soak protocol with this many workers.
    StartSoak(usize),
    /// Stop the running soak, keeping its rows.
    CancelSoak,
    /// Run the pre-submission audit.
    Audit,
    /// Open the Reproduce dialog on this folder or workbook.
    ReadTheirLog(PathBuf),
    /// Rerun row N (an index into the Reproduce dialog's rows), with the
    /// consent its confirmation made (N13).
    ReproduceRow(usize, vernier_engine::consent::Consent),
    /// Plan run N's rerun to 51 trials as a new row linked to it, judged
    /// against the claim typed (empty: none), and ask to confirm it (S10).
    ExtendRun(u32, String),
    /// Start the extension being confirmed, with the consent its
    /// confirmation made (N13).
    StartExtension(vernier_engine::consent::Consent),
    /// Show what an audit finding points at.
    Jump(vernier_engine::audit::Finding),
    /// Open the dialog listing the spreadsheet edits on offer (N12).
    TakeInDialog,
    /// Take the edits of this workbook of the open notebook in (N12).
    TakeIn(PathBuf),
    /// Make a new notebook in this empty folder from the Vernier workbook
    /// read in the Reproduce dialog, and open it (N12).
    NewNotebookFrom(PathBuf),
}

impl AppCommand {
    /// Open dialog `T`, as its menu entry does: how a view's button opens one.
    pub fn open<T: dialogs::Opens>() -> Self {
        AppCommand::Open(T::open)
    }
}

/// What a thread of the window's answers (issue 46): a job on the file
/// thread, a lookout, a file dialog or a "Try once" each say what was found
/// or done as a value, applied between frames by `VernierApp::answered`,
/// one arm per kind, each by the section it is for or the method beside the
/// job that asked. A thread never holds code over the window's fields, a
/// job's answer can be looked at in a test without a window, and a kind
/// nobody applies does not compile.
pub enum Done {
    /// A notebook opened (or created, then opened).
    Opened {
        /// Its folder.
        dir: PathBuf,
        /// The notebook as read, with its parts still to write, or why not.
        result: Result<Box<(Notebook, io::Unwritten)>, String>,
    },
    /// The open notebook saved into another folder, now the open one.
    SavedAs {
        /// The new folder.
        to: PathBuf,
        /// Whether it was saved.
        result: Result<(), String>,
    },
    /// The raw-file name taken for a run that starts.
    Reserved {
        /// The window's count of starts, to know a cancelled start's answer.
        start: u64,
        /// The name taken, or why not.
        reservation: Result<Reservation, String>,
    },
    /// A finished run, recorded or not.
    RunRecorded {
        /// The run as the engine finished it.
        result: Arc<vernier_engine::harness::BenchResult>,
        /// What recording it did, or why it was not recorded.
        recorded: Result<Box<jobs::RunOnDisk>, String>,
        /// What its rows join.
        joining: jobs::Joining,
    },
    /// A run's trials read back for its plot.
    Trials {
        /// The run's number.
        run: u32,
        /// Its trials, or why there is no plot.
        result: Result<plots::RunTrials, plots::NoTrials>,
    },
    /// This machine, read for the Environment.
    Machine(Box<vernier_engine::platform::machine::Machine>),
    /// The audit of the notebook shown.
    Audited(Box<vernier_engine::audit::Report>),
    /// The six documents written (their parts still to write), or why not.
    Exported(Result<io::Unwritten, vernier_engine::documents::ExportError>),
    /// A soak file read for the Soak runs section.
    Soak(Result<Box<plots::SoakView>, String>),
    /// The Runs table's conditions said once.
    ConditionsSplit {
        /// The notebook's revision they were worked out from.
        revision: u64,
        /// What all rows share, and each row's own.
        split: views::conditions_once::Split,
    },
    /// A file dialog closed.
    Picked {
        /// What the path was asked for.
        purpose: pick::Pick,
        /// The path chosen, if any.
        path: Option<PathBuf>,
        /// No dialog service answered: the path is asked for by hand.
        no_service: bool,
    },
    /// A "Try once" ran.
    Tried {
        /// Which try (an earlier try's answer is ignored).
        id: u64,
        /// What it found, or why it did not run.
        result: Result<vernier_engine::harness::metric::TryOnce, String>,
    },
    /// A file of measurements read and summarised for the import dialog.
    ImportPreview(import::ImportPreview),
    /// An import recorded, or not.
    ImportRecorded {
        /// The rows as previewed.
        prepared: Box<vernier_engine::import::Prepared>,
        /// What was recorded with the notebook as saved, or why not.
        recorded: Result<Box<(vernier_engine::import::ImportRecorded, io::Unwritten)>, String>,
    },
    /// A classmate's log read for the Reproduce dialog.
    TheirLog(Result<dialogs::reproduce::TheirLog, String>),
    /// A rebuild's sources written, for the rerun of their row.
    SourcesWritten {
        /// Their row's index in the dialog.
        row: usize,
        /// What the rerun runs.
        spec: Box<BenchSpec>,
        /// The scratch folder holding the sources, or why not.
        written: Result<vernier_engine::reproduce::Scratch, String>,
    },
    /// A new notebook made from a Vernier workbook.
    NotebookFromWorkbook {
        /// Its folder.
        target: PathBuf,
        /// What was taken and the notebook as saved, or why not.
        made: Result<Box<dialogs::reproduce::FromWorkbook>, String>,
    },
    /// A notebook's workbook weighed for spreadsheet edits.
    WorkbookEdits {
        /// The notebook's folder.
        dir: PathBuf,
        /// The workbook.
        path: PathBuf,
        /// What it offers to take in, nothing, or why it could not be weighed.
        offer: Result<Option<Box<workbook::EditsOffer>>, String>,
    },
    /// A workbook's edits taken in.
    TakenIn {
        /// The notebook's folder.
        dir: PathBuf,
        /// The workbook.
        path: PathBuf,
        /// What was taken and the notebook as saved, or why nothing was.
        result: Result<workbook::TakenIn, String>,
    },
    /// Recovery files found beside a notebook.
    RecoveryFound {
        /// The notebook's folder.
        dir: PathBuf,
        /// Each file, with its changes weighed.
        found: Vec<recovery::Found>,
    },
    /// A recovery file applied.
    Recovered {
        /// The notebook's folder.
        dir: PathBuf,
        /// What applying it did, or why not.
        result: Result<recovery::RecoveryApplied, String>,
    },
    /// Nothing to show: what a job that only lets go of something answers.
    Released,
}

impl VernierApp {
    /// Hands the sections to `ask`, then does what it asked, at once and in
    /// order: how a section's method reaches the window.
    fn asked(&mut self, ask: impl FnOnce(&mut views::Views, &mut Vec<AppCommand>)) {
        let mut asks = Vec::new();
        ask(&mut self.views, &mut asks);
        for command in asks {
            self.run_command(command);
        }
    }

    /// Applies what a thread answered: each kind by the section it is
    /// for, or the method beside the job that asks for it.
    fn answered(&mut self, done: Done) {
        match done {
            Done::Opened { dir, result } => self.opened(dir, result),
            Done::SavedAs { to, result } => self.saved_as(to, result),
            Done::Reserved { start, reservation } => self.reserved(start, reservation),
            Done::RunRecorded { result, recorded, joining } => self.run_recorded(&result, recorded, joining),
            Done::Trials { run, result } => self.asked(|v, asks| v.runs.trials_read(run, result, asks)),
            Done::Machine(machine) => self.asked(|v, asks| v.environment.machine_read(&machine, asks)),
            Done::Audited(report) => self.asked(|v, asks| v.audit.audited(*report, asks)),
            Done::Exported(written) => self.exported(written),
            Done::Soak(result) => self.asked(|v, asks| v.soaks.soak_read(result, asks)),
            Done::ConditionsSplit { revision, split } => self.views.runs.conditions_split(revision, split),
            Done::Picked { purpose, path, no_service } => self.picked(purpose, path, no_service),
            Done::Tried { id, result } => self.tried(id, result),
            Done::ImportPreview(preview) => self.import_previewed(preview),
            Done::ImportRecorded { prepared, recorded } => self.import_recorded(&prepared, recorded),
            Done::TheirLog(log) => self.their_log_read(log),
            Done::SourcesWritten { row, spec, written } => self.sources_written(row, *spec, written),
            Done::NotebookFromWorkbook { target, made } => self.notebook_from_workbook(target, made),
            Done::WorkbookEdits { dir, path, offer } => self.on_workbook_edits(&dir, &path, offer),
            Done::TakenIn { dir, path, result } => self.on_taken_in(&dir, &path, result),
            Done::RecoveryFound { dir, found } => self.on_recovery_found(&dir, found),
            Done::Recovered { dir, result } => self.on_recovered(&dir, result),
            Done::Released => {}
        }
    }
}
pub use vernier_engine::notebook::pending::Applied;

/// One change to the notebook, as data ([`Edit`]): applied at once to the
/// window's copy, then by the file thread to the notebook as it is on disk,
/// under the folder's lock (N10), through the same [`Edit::apply`]. It
/// holds everything it needs, its time stamp included, so both give the
/// same row; one not yet on disk when the window closes goes to a recovery
/// file (see `keep_unsaved`).
pub type Change = Arc<Edit>;

/// The soak in flight.
struct LiveSoak {
    handle: soak_runner::SoakHandle,
    total: usize,
    points: Vec<egui_plot::PlotPoint>,
    started: Instant,
}

/// The shipped synthetic soak, built into the binary so it opens anywhere.
pub const SHIPPED_SOAK: &str = include_str!("../../../datasets/thermal-soak.csv");

/// The benchmark in flight.
struct LiveRun {
    done: u64,
    total: u64,
    remaining: Duration,
    points: [Vec<egui_plot::PlotPoint>; 2],
    started: Instant,
    title: String,
    /// A scan: its trials are one strip (its points are not arms A and B).
    scan: bool,
}

/// The open notebook and whether it is on disk.
struct Doc {
    dir: PathBuf,
    /// Shared with the file thread's export, audit and watch requests: handing
    /// it over costs a reference count, and an edit copies the log only while
    /// one of them still holds it.
    notebook: Arc<Notebook>,
    findings: Vec<IntegrityFinding>,
    /// Bumped whenever `notebook` changes, so views rebuild what they
    /// derive from it (the sweeps' plots) once per change.
    revision: u64,
    /// Parts of each document still to write, as of the last save (counted
    /// on the I/O thread: with 10 000 runs it takes tens of milliseconds).
    unwritten: io::Unwritten,
    /// Bumped on every change: each change's number.
    generation: u64,
    /// The changes applied to `notebook` that are not yet on disk, oldest
    /// first: sent to the file thread, or (`failed`) refused by the disk
    /// and waiting to be sent again with the next change or "Retry". One
    /// leaves only when a save that holds it succeeds or the user discards
    /// it — never because a later save succeeded (N10).
    unsaved: VecDeque<Unsaved>,
    /// Why the last save failed, while changes it held are still unsaved.
    save_error: Option<String>,
    /// When the notebook on disk last matched the window (loaded or saved):
    /// what a user loses if the file thread stops now.
    on_disk_at: chrono::DateTime<chrono::Local>,
    /// Since when a change has been waiting for the file thread (the status
    /// bar counts the seconds when it takes long).
    saving_since: Option<Instant>,
}

impl Doc {
    fn new(dir: PathBuf, notebook: Notebook, unwritten: io::Unwritten) -> Self {
        let findings = notebook.integrity();
        Self {
            dir,
            notebook: Arc::new(notebook),
            findings,
            revision: 0,
            unwritten,
            generation: 0,
            unsaved: VecDeque::new(),
            save_error: None,
            on_disk_at: chrono::Local::now(),
            saving_since: None,
        }
    }

    /// The notebook changed: checks it again and bumps its revision.
    fn changed(&mut self) {
        self.findings = self.notebook.integrity();
        self.revision += 1;
    }

    /// Shows `notebook` as read from disk (or saved by another writer),
    /// with its documents' unwritten counts.
    fn adopt(&mut self, notebook: Notebook, unwritten: io::Unwritten) {
        self.notebook = Arc::new(notebook);
        self.changed();
        self.unwritten = unwritten;
        self.on_disk_at = chrono::Local::now();
    }
}

/// A change applied to the window's copy and not yet on disk.
struct Unsaved {
    generation: u64,
    change: Change,
    /// A save that held it failed; it waits to be sent again.
    failed: bool,
}

/// Said when a request meets a stopped file thread: it was not carried out.
const IO_REFUSED: &str = "the file thread stopped, so that was not done — restart Vernier";

/// Said when the engine thread is gone: nothing can be measured until a restart.
const ENGINE_STOPPED: &str = "the engine thread stopped — restart Vernier to measure again";

/// The window's link to its file thread.
struct Files {
    /// `None` once the file thread has stopped (or never started).
    io: Option<io::Io>,
    /// Requests the I/O thread's full queue turned away, oldest first,
    /// retried every frame in order: busy is not lost.
    backlog: VecDeque<io::Request>,
    /// Requests sent to the file thread and not answered yet, and since
    /// when it has had work: a long export or audit is said, not hidden.
    waiting: usize,
    busy_since: Option<Instant>,
    /// The file thread's wait for the folder's lock, if it waits (N10).
    lock_wait: Arc<lock_wait::WindowWait>,
    /// Keeps the changes not on disk in a recovery file from the moment
    /// they are made; `None` when its thread could not start.
    keeper: Option<keeper::Keeper>,
}

/// What the window is measuring, or about to.
struct Measuring {
    /// `None` once the engine thread has stopped (or never started).
    engine: Option<BenchRunner>,
    /// The benchmark in flight.
    live: Option<LiveRun>,
    /// A run the window has taken but not yet handed to the engine, and the
    /// frames still to draw first (SPEC E15: the window redraws for the
    /// closing dialog and the new live panel before the measurement starts,
    /// not during it).
    starting: Option<Starting>,
    /// Runs started so far, to number them: a reservation answering a
    /// start that was cancelled is let go.
    starts: u64,
    /// The raw-file name the run in flight took when it started (N10).
    reserved: Option<Reserved>,
    /// The extension the run in flight is (S10), with its claim: recorded
    /// linked to the runs it extends, with its verdict said.
    extending: Option<(Extension, Option<Claim>)>,
    /// The soak running, if any.
    live_soak: Option<LiveSoak>,
    /// The prediction the run started from the New run dialog answers,
    /// linked when its rows are recorded (SPEC N14).
    answers_on_record: Option<u32>,
    /// The New run dialog's "Try once" runs.
    tries: new_run::Tries,
}

/// A run taken by the window and not yet handed to the engine.
struct Starting {
    spec: Box<BenchSpec>,
    /// Frames still to draw first.
    frames: u8,
    /// Its number among the window's starts.
    number: u64,
    /// The raw-file name and the Environment as stated, once the file
    /// thread has taken them (`None` until it answers).
    reservation: Option<Reservation>,
}

/// What was read from the disk to show above the sections (what a section
/// shows, its section keeps); it belongs to the open notebook and goes when
/// another opens.
#[derive(Default)]
struct Shown {
    /// Edits typed into a workbook of the open notebook, on offer (N12).
    spreadsheet: Option<workbook::EditsOffer>,
    /// Recovery files of the open notebook, from an earlier session, on
    /// offer: each with its changes in words (or why it cannot be read).
    recovery: Option<recovery::RecoveryOffer>,
}

/// The app.
pub struct VernierApp {
    doc: Doc,
    settings: settings::Settings,
    files: Files,
    measure: Measuring,
    dialogs: Dialogs,
    shown: Shown,
    views: views::Views,
    status: Option<(String, bool)>,
    commands: Vec<AppCommand>,
    /// For waking the window from other threads.
    egui_ctx: egui::Context,
    /// Set by a termination signal: cancel what runs and close.
    terminate: Arc<std::sync::atomic::AtomicBool>,
    /// Close once every change is on disk (the user chose to wait).
    close_when_saved: bool,
}

impl VernierApp {
    /// The app on an already loaded notebook. Works without storage (tests).
    pub fn new(cc: &eframe::CreationContext<'_>, dir: PathBuf, notebook: Notebook, seen: store::Stamp) -> Self {
        // A frame must not wait for a CPU its own background work took: a reload or a
        // document's preview keeps to its thread (issue 50's frame bench:
        // edits back to back had frames of 3–6 ms while both CPUs read).
        vernier_engine::shared_work::at_most(1);
        let mut settings: settings::Settings =
            cc.storage.and_then(|s| eframe::get_value(s, settings::KEY)).unwrap_or_default();
        settings.remember(&dir);
        cc.egui_ctx.set_theme(if settings.dark { egui::Theme::Dark } else { egui::Theme::Light });
        // The file thread's waits for the folder's lock are said in the
        // status bar (N10); any other writer of the process waits the same.
        let lock_wait = Arc::new(lock_wait::WindowWait::new(cc.egui_ctx.clone()));
        store::set_lock_wait(Arc::clone(&lock_wait) as Arc<dyn store::LockWait>);
        let ctx = cc.egui_ctx.clone();
        let io = io::Io::spawn(
            move || ctx.request_repaint(),
            vec![Box::new(workbook::FollowWorkbook::default())],
            Arc::clone(&lock_wait) as Arc<dyn store::LockWait>,
        )
        .ok();
        let ctx = cc.egui_ctx.clone();
        // Progress waits for the window's slow pace; an ending is shown at
        // once. Around a pinned run the engine keeps this process's other
        // threads off the run's CPU and records what they cost (SPEC E15).
        let engine = BenchRunner::spawn_for_window(move |wake| match wake {
            Wake::Progress => ctx.request_repaint_after(LIVE_PACE),
            Wake::Done => ctx.request_repaint(),
        })
        .ok();
        let mut app = Self {
            doc: {
                // Counted once before the first frame; afterwards on the I/O thread.
                let unwritten = vernier_engine::documents::unwritten(&notebook);
                Doc::new(dir, notebook, unwritten)
            },
            settings,
            files: Files {
                io,
                backlog: VecDeque::new(),
                waiting: 0,
                busy_since: None,
                lock_wait,
                keeper: keeper::Keeper::spawn().ok(),
            },
            measure: Measuring {
                engine,
                live: None,
                starting: None,
                starts: 0,
                reserved: None,
                extending: None,
                live_soak: None,
                answers_on_record: None,
                tries: new_run::Tries::default(),
            },
            dialogs: Dialogs::default(),
            shown: Shown::default(),
            views: views::Views::default(),
            status: None,
            commands: Vec::new(),
            egui_ctx: cc.egui_ctx.clone(),
            terminate: Arc::default(),
            close_when_saved: false,
        };
        // The file thread follows the file from what was read (N10): a
        // change made since shows at its first look.
        let request = io::Request::Watch { dir: app.doc.dir.clone(), seen };
        app.send_io(request);
        app.send_job(recovery::LookForRecovery { dir: app.doc.dir.clone() });
        app
    }

    /// Queues a command as if a view had pushed it (tests and benchmarks).
    pub fn apply(&mut self, command: AppCommand) {
        self.run_command(command);
    }

    /// The notebook shown (read-only; changes go through commands).
    pub fn notebook(&self) -> &Notebook {
        &self.doc.notebook
    }

    /// True while a benchmark runs.
    pub fn running(&self) -> bool {
        self.measure.live.is_some()
    }

    /// True when every change has been saved.
    pub fn saved(&self) -> bool {
        self.doc.unsaved.is_empty()
    }

    /// How many changes shown are not on disk (saving, or failed to save).
    pub fn unsaved(&self) -> usize {
        self.doc.unsaved.len()
    }

    fn say(&mut self, text: impl Into<String>, error: bool) {
        self.status = Some((text.into(), error));
    }

    /// The notebook, to change it (copied first only if the file thread still holds it).
    fn notebook_mut(&mut self) -> &mut Notebook {
        Arc::make_mut(&mut self.doc.notebook)
    }

    /// Hands work to the I/O thread, behind any it could not take yet, so
    /// requests keep their order. No request is dropped silently: a busy
    /// thread gets it later, a stopped one is reported.
    fn send_io(&mut self, request: io::Request) {
        if request.is_answered() {
            self.files.waiting += 1;
            self.files.busy_since.get_or_insert_with(Instant::now);
        }
        self.files.backlog.push_back(request);
        self.flush_io();
    }

    /// Hands a job to the file thread (see [`send_io`](Self::send_io)).
    fn send_job(&mut self, job: impl io::Job) {
        self.send_io(io::Request::Job(Box::new(job)));
    }

    /// Sends the backlog until the queue is full; called again every frame.
    pub(super) fn flush_io(&mut self) {
        while let Some(request) = self.files.backlog.pop_front() {
            let sent = self.files.io.as_ref().map(|io| io.send(request));
            match sent {
                Some(Ok(())) => {}
                Some(Err(io::Refused::Busy(request))) => return self.files.backlog.push_front(request),
                Some(Err(io::Refused::Stopped)) | None => {
                    self.io_stopped();
                    return self.say(IO_REFUSED, true);
                }
            }
        }
    }

    /// The file thread is gone: nothing more reaches the disk, and the status
    /// bar's save indicator says so from now on (see `status_ui`).
    pub(super) fn io_stopped(&mut self) {
        self.files.io = None;
        self.files.backlog.clear();
        self.files.waiting = 0;
        self.files.busy_since = None;
    }

    /// The engine thread is gone: the run in flight will never finish, so
    /// its panel closes instead of spinning, and later starts say why.
    pub(super) fn engine_stopped(&mut self) {
        self.measure.engine = None;
        self.dialogs.happened(Happened::EngineStopped);
        self.remove_scratch();
        self.measure.extending = None;
        self.release_reservations();
        let message = match self.measure.live.take() {
            Some(live) => format!("{ENGINE_STOPPED}; the run “{}” is lost", live.title),
            None => ENGINE_STOPPED.to_owned(),
        };
        self.say(message, true);
    }

    fn open(&mut self, dir: PathBuf, notebook: Notebook, unwritten: io::Unwritten) {
        if dir != self.doc.dir {
            self.keep_failed();
        }
        self.settings.remember(&dir);
        self.doc = Doc::new(dir, notebook, unwritten);
        // What was shown belonged to the previous notebook.
        self.views = views::Views { section: self.views.section, ..Default::default() };
        self.shown.spreadsheet = None;
        self.dialogs.happened(Happened::NotebookOpened);
        self.shown.recovery = None;
        self.send_job(recovery::LookForRecovery { dir: self.doc.dir.clone() });
    }

    /// Applies one command: a change to the notebook goes through
    /// [`edit`](Self::edit); everything else to the part of the window
    /// that owns it.
    fn run_command(&mut self, command: AppCommand) {
        let change: Edit = match command {
            AppCommand::Show(section) => {
                // Asked for the next frame, as a view's command is.
                let mut asks = Vec::new();
                self.views.show(section, &mut asks);
                return self.commands.extend(asks);
            }
            AppCommand::Job(job) => return self.send_io(io::Request::Job(job)),
            AppCommand::Audit => {
                return self
                    .send_job(jobs::Audit { dir: self.doc.dir.clone(), notebook: Arc::clone(&self.doc.notebook) });
            }
            AppCommand::Jump(finding) => {
                let (nb, dir) = (Arc::clone(&self.doc.notebook), self.doc.dir.clone());
                return self.asked(|v, asks| v.jump(finding, &nb, &dir, asks));
            }
            AppCommand::TakeInDialog => return self.open_take_in(),
            AppCommand::TakeIn(path) => return self.take_in(path),
            AppCommand::NewNotebookFrom(target) => return self.new_notebook_from(target),
            AppCommand::ReadTheirLog(path) => return self.read_their_log(path),
            AppCommand::ReproduceRow(i, consent) => return self.reproduce_row(i, consent),
            AppCommand::ExtendRun(run, claim) => {
                let (nb, running) = (Arc::clone(&self.doc.notebook), self.measure.live.is_some());
                return self.asked(|v, asks| v.runs.extend(run, &claim, &nb, running, asks));
            }
            AppCommand::StartExtension(consent) => return self.start_extension(consent),
            AppCommand::Pick(purpose) => return self.pick(purpose),
            AppCommand::OpenDir(dir) => return self.send_job(jobs::Open { dir, how: jobs::How::Load }),
            AppCommand::CreateDir(dir) => return self.send_job(jobs::Open { dir, how: jobs::How::Create }),
            AppCommand::OpenOrCreateDir(dir) => return self.send_job(jobs::Open { dir, how: jobs::How::LoadOrCreate }),
            AppCommand::SaveAs(to) => {
                let (from, notebook) = (self.doc.dir.clone(), Arc::clone(&self.doc.notebook));
                return self.send_job(jobs::SaveAs { from, to, notebook });
            }
            AppCommand::FillEnvironment => return self.send_job(jobs::ReadMachine),
            AppCommand::Open(open) => {
                let cx = dialogs::OpenCx {
                    notebook: &self.doc.notebook,
                    running: self.measure.live.is_some(),
                    soaking: self.measure.live_soak.is_some(),
                };
                return open(&mut self.dialogs, &cx);
            }
            AppCommand::ImportFile(path) => return self.import_file(&path),
            AppCommand::PreviewImport(request) => return self.send_job(*request),
            AppCommand::RecordImport(prepared) => return self.write_import(prepared),
            AppCommand::StartRun(spec) => {
                self.start_run(*spec);
                return;
            }
            AppCommand::TryOnce { argv, metric, timeout } => return self.try_once(argv, metric, timeout),
            AppCommand::SayConditionsOnce(revision) => {
                let (nb, reply) = (Arc::clone(&self.doc.notebook), self.files.io.as_ref().map(io::Io::reply));
                return self.asked(|v, asks| v.runs.say_conditions_once(nb, revision, reply, asks));
            }
            AppCommand::CancelRun => return self.cancel_run(),
            AppCommand::StopTry => return self.stop_try(),
            AppCommand::AnswerOnRecord(prediction) => {
                self.measure.answers_on_record = prediction;
                return;
            }
            AppCommand::Say { text, error } => return self.say(text, error),
            AppCommand::Closing(answer) => return self.closing(answer),
            AppCommand::ToggleTheme => {
                self.settings.dark = !self.settings.dark;
                return;
            }
            AppCommand::OpenSoak(path) => return self.send_job(jobs::ReadSoak { path }),
            AppCommand::Export => return self.export(vernier_engine::documents::Overwrite::Never),
            AppCommand::ExportReplacing => return self.export(vernier_engine::documents::Overwrite::Edited),
            AppCommand::StartSoak(workers) => return self.start_soak(workers),
            AppCommand::CancelSoak => {
                if let Some(live) = &self.measure.live_soak {
                    live.handle.cancel();
                }
                return;
            }
            AppCommand::SelectRun(number) => return self.select_run(number),
            AppCommand::Edit(change) => change,
        };
        self.edit(change);
    }

    /// Asks for a folder or file with a native dialog. What is picked is
    /// handed to the file thread, so a dialog without it would only lead
    /// to a refusal.
    fn pick(&mut self, purpose: pick::Pick) {
        match &self.files.io {
            Some(io) => pick::pick(io.reply(), purpose, self.doc.dir.parent().map(PathBuf::from)),
            None => self.say(IO_REFUSED, true),
        }
    }

    /// Writes the documents into exports/, replacing edited ones only as
    /// `overwrite` says (A17).
    fn export(&mut self, overwrite: vernier_engine::documents::Overwrite) {
        self.dialogs.close::<ExportQuestion>();
        let (dir, notebook) = (self.doc.dir.clone(), Arc::clone(&self.doc.notebook));
        self.send_job(jobs::Export { dir, notebook, overwrite });
    }

    /// Starts the extension being confirmed, with the consent its
    /// confirmation made (N13).
    fn start_extension(&mut self, consent: vernier_engine::consent::Consent) {
        let (running, mut confirmed) = (self.measure.live.is_some(), None);
        self.asked(|v, asks| confirmed = v.runs.confirmed(consent, running, asks));
        if let Some((spec, plan, claim)) = confirmed
            && self.start_run(spec)
        {
            self.measure.extending = Some((plan, claim));
        }
    }

    /// Cancels the run in flight, or the one about to start.
    fn cancel_run(&mut self) {
        if self.measure.starting.is_some() {
            return self.not_started("cancelled before it started".to_owned());
        }
        // Without an engine there is no run to cancel: its death already
        // ended the live panel and said so.
        if let Some(engine) = &self.measure.engine {
            engine.cancel();
        }
    }

    /// Applies `change` to the window's copy at once, so the window shows
    /// it, then hands it to the file thread, which applies it to the notebook
    /// as it is on disk under the folder's lock (N10). Its message is said
    /// when the file thread reports it saved; a change the notebook's rules
    /// refuse is said now and goes nowhere.
    fn edit(&mut self, change: Edit) -> Option<Applied> {
        match change.apply(self.notebook_mut()) {
            Err(e) => {
                self.say(e.to_string(), true);
                None
            }
            Ok(applied) => {
                self.doc.generation += 1;
                self.doc.changed();
                self.doc.saving_since.get_or_insert_with(Instant::now);
                // A change that failed to save goes first, in its order:
                // this one may build on it.
                self.retry_unsaved();
                let (generation, change) = (self.doc.generation, Arc::new(change));
                self.doc.unsaved.push_back(Unsaved { generation, change: Arc::clone(&change), failed: false });
                self.keep_pending();
                self.send_io(io::Request::Change { dir: self.doc.dir.clone(), change, generation });
                Some(applied)
            }
        }
    }

    /// Sends every change whose save failed to the file thread again, in
    /// order ("Retry", or before a new change).
    pub(super) fn retry_unsaved(&mut self) {
        let mut again = Vec::new();
        for unsaved in self.doc.unsaved.iter_mut().filter(|u| u.failed) {
            unsaved.failed = false;
            again.push((unsaved.generation, Arc::clone(&unsaved.change)));
        }
        if !again.is_empty() {
            self.doc.saving_since.get_or_insert_with(Instant::now);
        }
        for (generation, change) in again {
            self.send_io(io::Request::Change { dir: self.doc.dir.clone(), change, generation });
        }
    }

    /// Drops the changes not on disk, as the user asked, and shows the
    /// notebook as it is on disk again.
    /// Changes still on their way to the file thread stay: their save
    /// answers for them.
    pub(super) fn discard_unsaved(&mut self) {
        let before = self.doc.unsaved.len();
        self.doc.unsaved.retain(|u| !u.failed);
        let n = before - self.doc.unsaved.len();
        self.doc.save_error = None;
        if self.doc.unsaved.is_empty() {
            self.doc.saving_since = None;
            self.send_job(jobs::Open { dir: self.doc.dir.clone(), how: jobs::How::Load });
        }
        self.say(
            format!("discarded {n} change(s) that were not on disk; showing the notebook as it is on disk"),
            false,
        );
    }

    /// Starts a benchmark; true when the engine took it.
    fn start_run(&mut self, spec: BenchSpec) -> bool {
        if self.measure.live_soak.is_some() {
            self.say("a soak is running: it needs the machine to itself; stop it or wait", true);
            return false;
        }
        if self.measure.engine.is_none() {
            self.say(ENGINE_STOPPED, true);
            return false;
        }
        // A scan is one command over its points, not a comparison of them.
        let title = match &spec.scan {
            Some(scan) => format!(
                "{} over {} points ({})",
                vernier_engine::display::quote_argv(&scan.template),
                spec.arms.len(),
                scan.scan.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
            ),
            None => spec.arms.iter().map(|a| a.argv().join(" ")).collect::<Vec<_>>().join("  vs  "),
        };
        let scan = spec.scan.is_some();
        // Handed to the engine once the window has drawn the change and the
        // file thread has taken its raw file's name (see `hand_to_engine`);
        // a refusal then is said as it would be now.
        self.measure.starts += 1;
        let number = self.measure.starts;
        self.send_job(jobs::Reserve { dir: self.doc.dir.clone(), start: number });
        self.measure.starting =
            Some(Starting { spec: Box::new(spec), frames: FRAMES_BEFORE_START, number, reservation: None });
        self.egui_ctx.request_repaint();
        // A process still being tried would compete with the measurement.
        self.stop_try();
        self.dialogs.close::<NewRunForm>();
        self.measure.live = Some(LiveRun {
            done: 0,
            total: 0,
            remaining: Duration::ZERO,
            points: [Vec::new(), Vec::new()],
            started: Instant::now(),
            title,
            scan,
        });
        self.views.section = Section::Runs;
        true
    }

    /// Hands the run taken by `start_run` to the engine once the frames
    /// that show it have been drawn (SPEC E15), asking for them meanwhile,
    /// and its raw file's name is taken (N10; the answer wakes the window).
    fn hand_to_engine(&mut self, ctx: &egui::Context) {
        let Some(mut starting) = self.measure.starting.take() else { return };
        if starting.frames > 0 {
            starting.frames -= 1;
            self.measure.starting = Some(starting);
            ctx.request_repaint();
            return;
        }
        let Some(reservation) = starting.reservation.take() else {
            self.measure.starting = Some(starting);
            return;
        };
        // The rows keep the Environment as stated when the run starts (N9),
        // and a run stating no budget is held to the notebook's (S19).
        let (raw, spec) = reservation.start(*starting.spec);
        let Some(engine) = &self.measure.engine else {
            self.send_job(jobs::Release(raw));
            return self.engine_stopped();
        };
        self.measure.reserved = Some(raw);
        match engine.try_start(spec) {
            Ok(()) => {}
            Err(NotQueued::Busy) => {
                self.not_started(
                    "the engine is still busy with the previous run; start again when it finishes".to_owned(),
                );
            }
            Err(NotQueued::Stopped) => self.engine_stopped(),
        }
    }

    /// A run taken by `start_run` never reached the engine: its panel
    /// closes, and what it was for (a reproduction, an extension) with it.
    fn not_started(&mut self, why: String) {
        self.measure.live = None;
        self.release_reservations();
        self.measure.extending = None;
        self.dialogs.happened(Happened::RunNotStarted);
        self.remove_scratch();
        self.say(why, true);
    }

    /// Lets go of the raw-file names taken for a run that will not be
    /// recorded (it never started, or the engine is gone).
    fn release_reservations(&mut self) {
        let starting = self.measure.starting.take().and_then(|s| s.reservation).map(|r| r.raw);
        for raw in starting.into_iter().chain(self.measure.reserved.take()) {
            self.send_job(jobs::Release(raw));
        }
    }

    /// Starts the protocol fixed with the newest open soak prediction.
    fn start_soak(&mut self, workers: usize) {
        let Some((prediction, protocol)) = self.doc.notebook.next_soak_protocol() else {
            self.say("fix the soak protocol with a prediction first", true);
            return;
        };
        if self.measure.live.is_some() || self.measure.live_soak.is_some() {
            self.say("wait for the measurement in progress to finish: a soak needs the machine to itself", true);
            return;
        }
        // T1: the prediction and its protocol are fixed from the start.
        if self.edit(Edit::StartSoak { prediction, at: chrono::Utc::now() }).is_none() {
            return;
        }
        let out = vernier_engine::soak::record::raw_path(&self.doc.dir, &self.doc.notebook);
        let context = vernier_engine::soak::load::stated_context(self.doc.notebook.environment());
        let ctx = self.egui_ctx.clone();
        // A sample waits for the window's slow pace (SPEC E15).
        match soak_runner::SoakHandle::start(protocol, workers, out, context, move || {
            ctx.request_repaint_after(LIVE_PACE)
        }) {
            Ok(handle) => {
                let total = protocol.samples() as usize;
                self.measure.live_soak = Some(LiveSoak { handle, total, points: Vec::new(), started: Instant::now() });
                self.dialogs.close::<SoakForm>();
                self.views.section = Section::Soaks;
            }
            Err(e) => self.say(format!("the soak could not start: {e}"), true),
        }
    }

    /// Selects run `number` in the Runs section, its trials read if they were not.
    fn select_run(&mut self, number: u32) {
        let (nb, dir) = (Arc::clone(&self.doc.notebook), self.doc.dir.clone());
        self.asked(|v, asks| v.runs.select(number, &nb, &dir, asks));
    }
}

impl eframe::App for VernierApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        let terminating = self.terminate.load(std::sync::atomic::Ordering::Relaxed);
        if terminating {
            self.run_command(AppCommand::CancelRun);
            self.run_command(AppCommand::CancelSoak);
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        } else if ctx.input(|i| i.viewport().close_requested())
            && !self.saved()
            && self.dialogs.get::<CloseQuestion>().is_none()
        {
            // Closed by hand with changes not on disk: asked, not dropped (N10).
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.dialogs.open(CloseQuestion::Asking);
        } else if self.close_when_saved && self.saved() {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        } else if self.close_when_saved && self.doc.unsaved.iter().all(|u| u.failed) {
            // The save it waited for failed: asked again, not closed.
            self.close_when_saved = false;
            self.dialogs.open(CloseQuestion::Asking);
        }
        self.hand_to_engine(ctx);
        self.drain_events();
        // A change saved (or discarded) leaves the file the window keeps.
        self.keep_pending();
        self.shortcuts(ctx);
        if self.measure.live.is_some() {
            // Keep the elapsed time moving even between trials; new trials
            // wake the window themselves, at its slow pace (SPEC E15).
            ctx.request_repaint_after(LIVE_CLOCK);
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let theme = if self.settings.dark { egui::Theme::Dark } else { egui::Theme::Light };
        if ui.ctx().theme() != theme {
            ui.ctx().set_theme(theme);
        }
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui));
        egui::Panel::left("sections").resizable(false).default_size(200.0).show(ui, |ui| {
            ui.add_space(6.0);
            ui.heading("Vernier");
            ui.label(RichText::new(&self.doc.notebook.title).weak());
            ui.separator();
            for section in Section::ALL {
                let count = section.count(&self.doc.notebook).map(|n| format!("  ({n})")).unwrap_or_default();
                if ui.selectable_label(self.views.section == section, format!("{}{count}", section.title())).clicked() {
                    self.commands.push(AppCommand::Show(section));
                }
            }
        });
        if self.measure.live.is_some() {
            egui::Panel::bottom("live").resizable(true).default_size(260.0).show(ui, |ui| self.live_ui(ui));
        }
        if self.measure.live_soak.is_some() {
            egui::Panel::bottom("live-soak").resizable(true).default_size(260.0).show(ui, |ui| self.live_soak_ui(ui));
        }
        egui::CentralPanel::default().show(ui, |ui| {
            self.recovery_bar_ui(ui);
            self.spreadsheet_bar_ui(ui);
            ui.heading(self.views.section.heading());
            ui.add_space(4.0);
            let mut cx = views::Context {
                notebook: &self.doc.notebook,
                commands: &mut self.commands,
                unwritten: &self.doc.unwritten,
                dir: &self.doc.dir,
                revision: self.doc.revision,
            };
            if self.views.section.scrolls_itself() {
                self.views.ui(ui, &mut cx);
            } else {
                egui::ScrollArea::vertical().auto_shrink(false).show(ui, |ui| self.views.ui(ui, &mut cx));
            }
        });
        let mut cx = dialogs::Cx {
            notebook: &self.doc.notebook,
            commands: &mut self.commands,
            measuring: self.measure.live.is_some() || self.measure.live_soak.is_some(),
            unsaved: self.doc.unsaved.len(),
            save_error: self.doc.save_error.as_deref(),
        };
        self.dialogs.show(ui.ctx(), &mut cx);
        for command in std::mem::take(&mut self.commands) {
            self.run_command(command);
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, settings::KEY, &self.settings);
    }

    /// The window is closing (by hand, or on SIGTERM/SIGHUP/SIGINT): what
    /// the file thread cannot save within `io::SHUTDOWN_WAIT` goes to a
    /// recovery file, named on stderr (N10).
    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.keep_unsaved(io::SHUTDOWN_WAIT);
        // Nothing unsaved is left to wait for: a write still waiting for
        // the folder's lock (an export) gives up rather than hold the exit.
        self.files.lock_wait.close();
    }
}
