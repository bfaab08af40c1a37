//! File work for the window, on its own thread (SPEC U5, N7): the UI thread
//! never waits on the disk or on a native file dialog.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::thread::JoinHandle;

use vernier_engine::documents;
use vernier_engine::harness::{self, BenchResult, TrialRecord};
use vernier_engine::import::Prepared;
use vernier_engine::notebook::{Document, MetricSpec, Notebook, RawFile, store};

/// Work for the I/O thread.
pub enum Request {
    /// Apply a change to the notebook in `dir` as it is on disk, under the
    /// folder's lock (N10); `generation` is the window's count of changes.
    Change { dir: PathBuf, change: super::Change, generation: u64 },
    /// Follow the notebook in `dir` from here on, from the stamp of what the
    /// window `seen` when it read it (before the window existed).
    Watch { dir: PathBuf, seen: store::Stamp },
    /// Load a notebook folder.
    Load { dir: PathBuf },
    /// Create a notebook folder, then load it.
    Create { dir: PathBuf },
    /// Load the folder if it holds a notebook, create one there otherwise.
    OpenOrCreate { dir: PathBuf },
    /// Copy the notebook, raw files included, into a new folder and save it there.
    SaveAs { from: PathBuf, to: PathBuf, notebook: Arc<Notebook> },
    /// Write the six documents into the notebook's exports/ folder;
    /// documents edited since they were written only as `overwrite` says (A17).
    Export { dir: PathBuf, notebook: Arc<Notebook>, overwrite: documents::Overwrite },
    /// Write a finished run's raw file.
    WriteRaw { dir: PathBuf, result: Box<BenchResult>, next_run: usize },
    /// Read and summarise numbers for the import dialog; writes nothing.
    PreviewImport(Box<super::import_dialog::ImportRequest>),
    /// Write a previewed import's file unchanged into `raw/`.
    WriteImportRaw { dir: PathBuf, prepared: Arc<Prepared>, next_run: usize },
    /// Read and analyse a soak file (`None`: the shipped synthetic one).
    ReadSoak { path: Option<PathBuf> },
    /// Read a run's trials back from its raw file, a path inside `dir`.
    ReadTrials { run: u32, dir: PathBuf, path: vernier_engine::notebook::NotebookPath },
    /// Read a classmate's notebook folder or workbook, read-only, refusing
    /// it when it is `mine`, the open notebook (which needs the disk to tell).
    ReadLog { path: PathBuf, mine: PathBuf },
    /// Run the pre-submission audit (reads raw files and exports).
    Audit { dir: PathBuf, notebook: Arc<Notebook> },
    /// Read this machine's conditions (`/proc`, `/sys`, the counter and
    /// placement probes) for the Environment's "Fill from this machine".
    ReadMachine,
    /// Run a command once and read its figure (the New run dialog's "Try
    /// once"); answered from a thread of its own, so the program's run
    /// never holds up a save. `cancel` stops its process.
    TryOnce {
        /// Matches the answer to the request.
        id: u64,
        /// The command.
        argv: Vec<String>,
        /// How its figure is read.
        metric: MetricSpec,
        /// Its time limit.
        timeout: Option<std::time::Duration>,
        /// Set to stop it.
        cancel: Arc<std::sync::atomic::AtomicBool>,
    },
    /// Weigh the edits of a workbook of the notebook in `dir` other than
    /// the one the thread follows (`vernier open` on it, N12).
    LookAtWorkbook { dir: PathBuf, path: PathBuf },
    /// Take the workbook's edits into the notebook in `dir`, under its lock (N12).
    TakeIn { dir: PathBuf, path: PathBuf },
    /// Make a new notebook in `target` from the workbook at `workbook`,
    /// someone else's, which is only read (N12, R1).
    NewNotebook { workbook: PathBuf, target: PathBuf },
    /// Look for recovery files a window left beside the notebook in `dir`
    /// (N10) and weigh their changes against the notebook on disk.
    LookForRecovery { dir: PathBuf },
    /// Apply the recovery file at `path` to the notebook in `dir`, under its lock.
    ApplyRecovery { dir: PathBuf, path: PathBuf },
    /// Stop.
    Shutdown,
}

/// What the I/O thread reports.
pub enum Event {
    /// The changes numbered `generations` were applied to the file and
    /// saved, or could not be (nothing of them is on disk then). It answers
    /// as many change requests (those queued behind each other share it).
    Changed { generations: Vec<u64>, result: Result<Box<Saved>, String> },
    /// Another program changed the notebook file; here it is as it is now.
    ChangedElsewhere { notebook: Box<Notebook>, unwritten: Unwritten },
    /// A notebook was loaded (or created), with its unwritten parts.
    Loaded { dir: PathBuf, result: Result<Box<Notebook>, String>, unwritten: Unwritten },
    /// The notebook now lives in `to` (or could not be copied there).
    SavedAs { to: PathBuf, result: Result<(), String> },
    /// The documents were written: each name with its unwritten parts.
    Exported(Result<Vec<(Document, usize)>, String>),
    /// Nothing was written: these documents changed since Vernier wrote
    /// them, and the user has to say whether to replace them (A17).
    ExportWouldOverwrite(Vec<String>),
    /// A raw file was written (or not).
    RawWritten { result: Box<BenchResult>, raw: Result<RawFile, String> },
    /// Numbers read and summarised for the import dialog.
    ImportPreviewed(Box<super::import_dialog::ImportPreview>),
    /// A previewed import's raw copy was written (or not).
    ImportRawWritten { prepared: Arc<Prepared>, raw: Result<RawFile, String> },
    /// A soak, analysed and ready to draw.
    Soak(Result<Box<super::plots::SoakView>, String>),
    /// A run's trials, with each trial's figures when the file keeps the
    /// program's own (SPEC E17).
    Trials { run: u32, result: Result<(Vec<TrialRecord>, Option<harness::raw::TrialFigures>), NoTrials> },
    /// A classmate's log, read (or why not).
    TheirLog(Box<Result<super::reproduce::TheirLog, String>>),
    /// The audit's findings.
    Audited(Box<vernier_engine::audit::Report>),
    /// This machine's conditions, as read for the Environment.
    MachineRead(Box<vernier_engine::platform::machine::Machine>),
    /// What "Try once" `id` found, or why its command could not run.
    Tried { id: u64, result: Result<harness::metric::TryOnce, String> },
    /// The edits of the workbook at `path`, of the notebook in `dir`:
    /// something to offer, nothing, or why it could not be read. Sent when
    /// the file changed, and after opening, exporting or taking it in.
    WorkbookEdits { dir: PathBuf, path: PathBuf, offer: Result<Option<Box<super::workbook::Offer>>, String> },
    /// A workbook's edits were taken in and saved (or not), with the
    /// notebook as it is on disk afterwards.
    TakenIn { dir: PathBuf, path: PathBuf, result: Result<Box<TakenIn>, String> },
    /// A new notebook was made in `target` from someone's workbook and
    /// loaded (or not); the file thread follows it from now on.
    MadeNotebook { target: PathBuf, result: Result<Box<MadeNotebook>, String> },
    /// The recovery files pending beside the notebook in `dir`, with their
    /// changes weighed (empty: none).
    RecoveryFound { dir: PathBuf, found: Vec<super::recovery::Found> },
    /// A recovery file was applied (or not), with the notebook as it is on
    /// disk afterwards when it changed.
    Recovered { dir: PathBuf, result: Result<Box<Recovered>, String> },
    /// A file dialog closed. `failed` is set when it closed with nothing
    /// too fast for a person to have cancelled it: no dialog service ran.
    Picked { purpose: Pick, path: Option<PathBuf>, failed: bool },
}

impl Request {
    /// True when the file thread answers it with exactly one event (what
    /// the window counts to say how long the thread has been busy).
    pub fn is_answered(&self) -> bool {
        // A try runs a program, not file work: the status bar's "busy"
        // count is about the disk.
        !matches!(
            self,
            Request::Watch { .. }
                | Request::Shutdown
                | Request::TryOnce { .. }
                | Request::LookAtWorkbook { .. }
                | Request::LookForRecovery { .. }
        )
    }
}

impl Event {
    /// How many requests it answers (see [`Request::is_answered`]): a
    /// save as many as the changes it took in; a change noticed on disk
    /// and a closed file dialog none.
    pub fn answers(&self) -> usize {
        match self {
            Event::Changed { generations, .. } => generations.len(),
            Event::ChangedElsewhere { .. } | Event::Picked { .. } | Event::Tried { .. } => 0,
            // Answers `LookAtWorkbook`, but is also sent unasked.
            Event::WorkbookEdits { .. } | Event::RecoveryFound { .. } => 0,
            _ => 1,
        }
    }
}

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

/// What taking a workbook in did, and the notebook it left on disk.
pub struct TakenIn {
    /// The plan, what was taken and whether the export record vouches for the workbook.
    pub merged: vernier_engine::merge::Merged,
    /// The notebook as saved, with its unwritten parts, when it changed.
    pub notebook: Option<(Notebook, Unwritten)>,
}

/// What applying a recovery file did, and the notebook it left on disk.
pub struct Recovered {
    /// Each change with its message or why it was refused; where the file is now.
    pub recovered: vernier_engine::notebook::pending::Recovered,
    /// The notebook as saved, with its unwritten parts, when it changed.
    pub notebook: Option<(Notebook, Unwritten)>,
}

/// A notebook made from someone's workbook, loaded.
pub struct MadeNotebook {
    /// What was taken in from the workbook.
    pub merged: vernier_engine::merge::Merged,
    /// The new notebook as saved.
    pub notebook: Notebook,
    /// Its parts still to write.
    pub unwritten: Unwritten,
}

/// Parts of each document still to write (see `documents::unwritten`).
pub type Unwritten = Vec<(Document, usize)>;

/// What the file holds after the window's changes were applied to it.
pub struct Saved {
    /// The notebook as saved: the window's changes on top of the file as
    /// it was, so another program's changes are in it too.
    pub notebook: Notebook,
    /// Each change's message, or why the notebook on disk refused it.
    pub messages: Vec<Result<super::Applied, String>>,
    /// The file had been changed by another program since the window last
    /// read or wrote it.
    pub changed_elsewhere: bool,
    /// Parts of each document still to write (counted here, off the UI thread).
    pub unwritten: Unwritten,
}

/// How often the file thread looks whether another program changed the
/// open notebook (a `stat`; the file is read only when it moved).
const WATCH_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

/// How long closing the window waits for the file thread to save the
/// changes queued before it; past that they go to a recovery file (N10).
pub const SHUTDOWN_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Why a folder is being picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// Open an existing notebook.
    Open,
    /// Create a new notebook.
    New,
    /// Save the current notebook under a new folder.
    SaveAs,
    /// A classmate's notebook folder to reproduce from.
    Reproduce,
    /// A classmate's workbook to reproduce from.
    ReproduceWorkbook,
    /// A CSV of trials to import (SPEC E14).
    ImportFile,
    /// An empty folder for a new notebook made from someone's workbook (N12).
    NewFromWorkbook,
}

/// Why a request did not reach the I/O thread.
pub enum Refused {
    /// The queue is full: the thread is alive but behind. The request comes
    /// back so the caller can retry it.
    Busy(Request),
    /// The thread has ended: nothing sent to it will ever run.
    Stopped,
}

/// What the window and the file thread agree on about committing saves:
/// once the window is closing and has kept its unsaved changes in a
/// recovery file, no save may commit them too (they would be applied twice).
#[derive(Debug, Default)]
struct Gate {
    /// Set by [`Io::abandon`]: no change commits from now on.
    abandoned: bool,
    /// The changes (by generation) whose save has committed.
    committed: Vec<u64>,
}

/// A save refused because the window is closing with its changes kept in
/// a recovery file.
#[derive(Debug)]
struct Abandoned;

impl std::fmt::Display for Abandoned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the window closed with this change kept in a recovery file")
    }
}

impl std::error::Error for Abandoned {}

/// Handle to the I/O thread.
pub struct Io {
    gate: Arc<std::sync::Mutex<Gate>>,
    requests: SyncSender<Request>,
    events: Receiver<Event>,
    sender: SyncSender<Event>,
    waker: std::sync::Arc<dyn Fn() + Send + Sync>,
    thread: Option<JoinHandle<()>>,
}

impl Io {
    /// Starts the thread; `waker` asks the window to repaint.
    pub fn spawn(waker: impl Fn() + Send + Sync + 'static) -> std::io::Result<Self> {
        let (requests, inbox) = sync_channel::<Request>(64);
        let (sender, events) = sync_channel::<Event>(64);
        let waker: std::sync::Arc<dyn Fn() + Send + Sync> = std::sync::Arc::new(waker);
        let (out, wake) = (sender.clone(), std::sync::Arc::clone(&waker));
        let gate: Arc<std::sync::Mutex<Gate>> = Arc::default();
        let shared = Arc::clone(&gate);
        let thread =
            std::thread::Builder::new().name("vernier-io".into()).spawn(move || serve(&inbox, &out, &wake, &shared))?;
        Ok(Self { gate, requests, events, sender, waker, thread: Some(thread) })
    }

    /// Stops every save from committing from now on — waiting for one that
    /// is committing right now — and returns the changes (by generation)
    /// whose save has committed: the rest are certainly not on disk, and
    /// never will be through this thread (N10: they go to a recovery file).
    pub fn abandon(&self) -> Vec<u64> {
        let mut gate = self.gate.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        gate.abandoned = true;
        gate.committed.clone()
    }

    fn abandoned(&self) -> bool {
        self.gate.lock().unwrap_or_else(std::sync::PoisonError::into_inner).abandoned
    }

    /// Queues work without waiting, telling a full queue from a dead thread.
    pub fn send(&self, request: Request) -> Result<(), Refused> {
        self.requests.try_send(request).map_err(|e| match e {
            TrySendError::Full(request) => Refused::Busy(request),
            TrySendError::Disconnected(_) => Refused::Stopped,
        })
    }

    /// The next finished piece of work; `Disconnected` once the thread has
    /// ended and everything it sent has been read. The handle keeps a sender
    /// for the dialog threads, so the channel alone would never say so.
    pub fn try_event(&self) -> Result<Event, TryRecvError> {
        let ended = self.thread.as_ref().is_none_or(JoinHandle::is_finished);
        match self.events.try_recv() {
            // Checked before reading, so an event sent just before the end is still read.
            Err(TryRecvError::Empty) if ended => Err(TryRecvError::Disconnected),
            other => other,
        }
    }

    /// Ends the thread as a crash would, leaving the handle in place (tests
    /// of what the window shows when the file thread is gone).
    #[cfg(test)]
    pub fn stop(&mut self) {
        let _ = self.requests.send(Request::Shutdown);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// Opens a native dialog on a thread of its own — a folder, or for
    /// [`Pick::ReproduceWorkbook`] an `.xlsx` file and for
    /// [`Pick::ImportFile`] a CSV; the answer arrives as
    /// [`Event::Picked`].
    pub fn pick(&self, purpose: Pick, start: Option<PathBuf>) {
        let (out, wake) = (self.sender.clone(), std::sync::Arc::clone(&self.waker));
        let spawned = std::thread::Builder::new().name("vernier-dialog".into()).spawn(move || {
            let title = match purpose {
                Pick::Open => "Open a notebook folder",
                Pick::New => "Choose a folder for the new notebook",
                Pick::SaveAs => "Save the notebook as (a new folder)",
                Pick::Reproduce => "Open a classmate's notebook folder (read-only)",
                Pick::ReproduceWorkbook => "Open a classmate's measurements.xlsx (read-only)",
                Pick::ImportFile => "Choose the numbers your instrument wrote",
                Pick::NewFromWorkbook => "Choose an empty folder for the new notebook",
            };
            let mut dialog = rfd::FileDialog::new().set_title(title);
            if let Some(start) = start {
                dialog = dialog.set_directory(start);
            }
            let opened = std::time::Instant::now();
            let path = match purpose {
                Pick::ReproduceWorkbook => dialog.add_filter("Workbook", &["xlsx"]).pick_file(),
                Pick::ImportFile => dialog.add_filter("Measurements", &["csv", "txt", "json", "gz"]).pick_file(),
                Pick::Open | Pick::New | Pick::SaveAs | Pick::Reproduce | Pick::NewFromWorkbook => dialog.pick_folder(),
            };
            let failed = path.is_none() && opened.elapsed() < std::time::Duration::from_millis(300);
            let _ = out.send(Event::Picked { purpose, path, failed });
            wake();
        });
        if spawned.is_err() {
            let _ = self.sender.try_send(Event::Picked { purpose, path: None, failed: true });
        }
    }
}

impl Drop for Io {
    /// Lets the work queued before closing finish (it runs before the thread
    /// sees `Shutdown`), but never waits forever: a thread stuck on a slow
    /// disk or a held lock is left behind after [`SHUTDOWN_WAIT`], and
    /// stderr says so. Once [`Io::abandon`] was called — the window kept
    /// its unsaved changes in a recovery file — nothing it could still do
    /// is waited for.
    fn drop(&mut self) {
        if self.abandoned() {
            let _ = self.requests.try_send(Request::Shutdown);
            return;
        }
        let deadline = std::time::Instant::now() + SHUTDOWN_WAIT;
        let mut shutdown = Request::Shutdown;
        loop {
            match self.requests.try_send(shutdown) {
                Err(TrySendError::Full(back)) if std::time::Instant::now() < deadline => {
                    shutdown = back;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                _ => break,
            }
        }
        let Some(thread) = self.thread.take() else { return };
        while !thread.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if thread.is_finished() {
            let _ = thread.join();
        } else {
            eprintln!(
                "vernier: the file thread did not finish within {} s; the work it was doing is left unfinished",
                SHUTDOWN_WAIT.as_secs()
            );
        }
    }
}

/// The open notebook as the file thread last read or wrote it.
struct Watched {
    dir: PathBuf,
    stamp: store::Stamp,
    /// Size and time of its `exports/measurements.xlsx` when last weighed;
    /// `None` to weigh it again at once (opened, exported, taken in).
    workbook: Option<FileStamp>,
    /// The last weighing offered something, so a change to the notebook
    /// weighs it again (the offer may now be already in).
    offered: bool,
}

impl Watched {
    fn new(dir: PathBuf, stamp: store::Stamp) -> Self {
        Self { dir, stamp, workbook: None, offered: false }
    }
}

/// A file's size and modification time (`None`: not there): a `stat`, so
/// looking every second costs nothing while the file does not change.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp(Option<(u64, Option<std::time::SystemTime>)>);

impl FileStamp {
    fn of(path: &Path) -> Self {
        Self(std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok())))
    }
}

fn serve(
    inbox: &Receiver<Request>,
    out: &SyncSender<Event>,
    wake: &Arc<dyn Fn() + Send + Sync>,
    gate: &std::sync::Mutex<Gate>,
) {
    let mut pending: Option<Request> = None;
    let mut watched: Option<Watched> = None;
    loop {
        let request = match pending.take() {
            Some(request) => request,
            None => match inbox.recv_timeout(WATCH_INTERVAL) {
                Ok(request) => request,
                Err(RecvTimeoutError::Timeout) => {
                    if let Some(event) = look_for_changes(watched.as_mut()) {
                        if out.send(event).is_err() {
                            return;
                        }
                        wake();
                    }
                    if !weigh_workbook(watched.as_mut(), out, wake) {
                        return;
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return,
            },
        };
        let event = match request {
            Request::Shutdown => return,
            Request::Change { dir, change, generation } => {
                // Changes queued behind this one go to the disk in the same
                // lock, load and save.
                let (mut changes, mut generations) = (vec![change], vec![generation]);
                while let Ok(next) = inbox.try_recv() {
                    match next {
                        Request::Change { dir: d, change: c, generation: g } if d == dir => {
                            changes.push(c);
                            generations.push(g);
                        }
                        other => {
                            pending = Some(other);
                            break;
                        }
                    }
                }
                let known = watched.as_ref().filter(|w| w.dir == dir).map(|w| &w.stamp);
                // The gate is held from before the changes are applied until
                // the save has committed or failed, so the window closing
                // either sees them committed or stops them.
                let result = store::change_stamped(&dir, known, |nb| {
                    let gate = gate.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    if gate.abandoned {
                        return Err(Abandoned);
                    }
                    let messages: Vec<_> = changes.iter().map(|c| c.apply(nb).map_err(|e| e.to_string())).collect();
                    Ok((messages, gate))
                });
                let result = match result {
                    Ok(changed) => {
                        let store::Changed { value: (messages, mut gate), notebook, stamp, changed_elsewhere } =
                            changed;
                        gate.committed.extend(&generations);
                        drop(gate);
                        match watched.as_mut().filter(|w| w.dir == dir) {
                            Some(w) => {
                                w.stamp = stamp;
                                // What was offered may now be in the notebook.
                                if w.offered {
                                    w.workbook = None;
                                }
                            }
                            None => watched = Some(Watched::new(dir, stamp)),
                        }
                        Ok(Box::new(Saved {
                            unwritten: documents::unwritten(&notebook),
                            notebook,
                            messages,
                            changed_elsewhere,
                        }))
                    }
                    Err(e) => Err(e.to_string()),
                };
                Event::Changed { generations, result }
            }
            Request::TryOnce { id, argv, metric, timeout, cancel } => {
                try_once(id, argv, metric, timeout, cancel, out.clone(), Arc::clone(wake));
                continue;
            }
            Request::Watch { dir, seen } => {
                watched = Some(Watched::new(dir, seen));
                if !weigh_workbook(watched.as_mut(), out, wake) {
                    return;
                }
                continue;
            }
            Request::Load { dir } => loaded(dir, &mut watched, |_| Ok(())),
            Request::OpenOrCreate { dir } if dir.join(store::NOTEBOOK_FILE).exists() => {
                loaded(dir, &mut watched, |_| Ok(()))
            }
            Request::Create { dir } | Request::OpenOrCreate { dir } => {
                let title =
                    dir.file_name().map_or_else(|| "Untitled project".to_owned(), |n| n.to_string_lossy().into_owned());
                loaded(dir, &mut watched, |dir| {
                    store::create(dir, &title, chrono::Utc::now()).map(drop).map_err(|e| e.to_string())
                })
            }
            Request::SaveAs { from, to, notebook } => {
                let result = save_as(&from, &to, &notebook);
                if result.is_ok() {
                    watched = store::load_stamped(&to).ok().map(|(_, stamp)| Watched::new(to.clone(), stamp));
                }
                Event::SavedAs { result, to }
            }
            Request::Export { dir, notebook, overwrite } => {
                if let Some(w) = watched.as_mut().filter(|w| w.dir == dir) {
                    w.workbook = None;
                }
                export(&dir, &notebook, overwrite)
            }
            Request::LookAtWorkbook { dir, path } => {
                let offer = super::workbook::look(&dir, &path).map(|o| o.map(Box::new));
                Event::WorkbookEdits { dir, path, offer }
            }
            Request::TakeIn { dir, path } => {
                let result = take_in(&dir, &path, watched.as_mut().filter(|w| w.dir == dir));
                Event::TakenIn { dir, path, result }
            }
            Request::NewNotebook { workbook, target } => {
                let result = made_notebook(&workbook, &target, &mut watched);
                Event::MadeNotebook { target, result }
            }
            Request::LookForRecovery { dir } => Event::RecoveryFound { found: super::recovery::look(&dir), dir },
            Request::ApplyRecovery { dir, path } => {
                let result = apply_recovery(&dir, &path, watched.as_mut().filter(|w| w.dir == dir));
                Event::Recovered { dir, result }
            }
            Request::ReadLog { path, mine } => Event::TheirLog(Box::new(super::reproduce::read_log(&path, &mine))),
            Request::Audit { dir, notebook } => Event::Audited(Box::new(vernier_engine::audit::audit(&dir, &notebook))),
            Request::ReadMachine => Event::MachineRead(Box::new(vernier_engine::platform::machine::Machine::read())),
            Request::WriteRaw { dir, result, next_run } => {
                let raw = harness::write_raw(&dir, &result, next_run).map_err(|e| e.to_string());
                Event::RawWritten { result, raw }
            }
            Request::PreviewImport(request) => {
                Event::ImportPreviewed(Box::new(super::import_dialog::preview(*request)))
            }
            Request::WriteImportRaw { dir, prepared, next_run } => {
                let prepared =
                    Arc::new(Prepared::clone(&prepared).read_here(&vernier_engine::platform::machine::Machine::read()));
                let raw = prepared.write_raw(&dir, next_run).map_err(|e| e.to_string());
                Event::ImportRawWritten { prepared, raw }
            }
            Request::ReadSoak { path } => Event::Soak(read_soak(path.as_deref())),
            Request::ReadTrials { run, dir, path } => {
                let result = match harness::raw::RawTrials::read(&dir, &path) {
                    Ok(raw) => Ok((raw.trials, raw.figures)),
                    // An import keeps its file in the instrument's own format.
                    Err(harness::raw::TrialsError::Foreign(path)) => Err(NoTrials::Absent(format!(
                        "no trial plot: the trials are in {path}, the imported file unchanged, in its own format"
                    ))),
                    Err(e) => Err(NoTrials::Failed(e.to_string())),
                };
                Event::Trials { run, result }
            }
        };
        if out.send(event).is_err() {
            return;
        }
        wake();
        if !weigh_workbook(watched.as_mut(), out, wake) {
            return;
        }
    }
}

/// Weighs the edits of the open notebook's `exports/measurements.xlsx`
/// when its size or time moved since it was last weighed (or a weighing is
/// due), and sends what was found; false once the window is gone.
fn weigh_workbook(watched: Option<&mut Watched>, out: &SyncSender<Event>, wake: &Arc<dyn Fn() + Send + Sync>) -> bool {
    let Some(w) = watched else { return true };
    let path = super::workbook::default_path(&w.dir);
    let now = FileStamp::of(&path);
    if w.workbook.as_ref() == Some(&now) {
        return true;
    }
    w.workbook = Some(now);
    let offer = super::workbook::look(&w.dir, &path).map(|o| o.map(Box::new));
    w.offered = matches!(offer, Ok(Some(_)));
    if out.send(Event::WorkbookEdits { dir: w.dir.clone(), path, offer }).is_err() {
        return false;
    }
    wake();
    true
}

/// Makes a new notebook in `target` from the workbook at `workbook` (only
/// read), loads it and follows it from now on.
fn made_notebook(workbook: &Path, target: &Path, watched: &mut Option<Watched>) -> Result<Box<MadeNotebook>, String> {
    let bytes = vernier_engine::bounded::read_bounded(workbook, documents::foreign::MAX_WORKBOOK_BYTES, "a workbook")
        .map_err(|e| e.to_string())?;
    let merged =
        vernier_engine::merge::new_notebook(&bytes, workbook, target, chrono::Utc::now()).map_err(|e| e.to_string())?;
    let (notebook, stamp) = store::load_stamped(target).map_err(|e| e.to_string())?;
    *watched = Some(Watched::new(target.to_path_buf(), stamp));
    let unwritten = documents::unwritten(&notebook);
    Ok(Box::new(MadeNotebook { merged, notebook, unwritten }))
}

/// Takes the workbook's edits in (`merge` locks, loads, applies, saves),
/// then reads the notebook back for the window, moving the followed stamp
/// so the watch does not report the save as another program's.
fn take_in(dir: &Path, path: &Path, watched: Option<&mut Watched>) -> Result<Box<TakenIn>, String> {
    let merged = vernier_engine::merge::merge(dir, path, chrono::Utc::now()).map_err(|e| e.to_string())?;
    let notebook = match watched {
        Some(w) => {
            w.workbook = None;
            store::reload_if_changed(dir, &mut w.stamp).ok().flatten()
        }
        None => None,
    };
    let notebook = notebook.map(|nb| {
        let unwritten = documents::unwritten(&nb);
        (nb, unwritten)
    });
    Ok(Box::new(TakenIn { merged, notebook }))
}

/// Applies a recovery file (the engine locks, loads, applies, saves and
/// renames it), then reads the notebook back for the window, moving the
/// followed stamp so the watch does not report the save as another program's.
fn apply_recovery(dir: &Path, path: &Path, watched: Option<&mut Watched>) -> Result<Box<Recovered>, String> {
    let recovered = vernier_engine::notebook::pending::apply_file(dir, path).map_err(|e| e.to_string())?;
    let notebook = match watched {
        Some(w) => store::reload_if_changed(dir, &mut w.stamp).ok().flatten(),
        None => None,
    };
    let notebook = notebook.map(|nb| {
        let unwritten = documents::unwritten(&nb);
        (nb, unwritten)
    });
    Ok(Box::new(Recovered { recovered, notebook }))
}

/// Runs "Try once" on a thread of its own and sends what it found.
fn try_once(
    id: u64,
    argv: Vec<String>,
    metric: MetricSpec,
    timeout: Option<std::time::Duration>,
    cancel: Arc<std::sync::atomic::AtomicBool>,
    out: SyncSender<Event>,
    wake: Arc<dyn Fn() + Send + Sync>,
) {
    let (failed, failed_wake) = (out.clone(), Arc::clone(&wake));
    let spawned = std::thread::Builder::new().name("vernier-try-once".into()).spawn(move || {
        let result = harness::metric::try_once(&argv, &metric, timeout, cancel);
        let _ = out.send(Event::Tried { id, result });
        wake();
    });
    if let Err(e) = spawned {
        let _ = failed.try_send(Event::Tried { id, result: Err(format!("cannot start a thread to run it: {e}")) });
        failed_wake();
    }
}

/// Reads, analyses and downsamples a soak here, so the UI thread only draws.
fn read_soak(path: Option<&std::path::Path>) -> Result<Box<super::plots::SoakView>, String> {
    use vernier_engine::soak::file;
    let (title, data) = match path {
        Some(p) => (p.display().to_string(), file::read(p).map_err(|e| e.to_string())?),
        None => (
            "datasets/thermal-soak.csv".to_owned(),
            file::parse(super::SHIPPED_SOAK.as_bytes(), std::path::Path::new("datasets/thermal-soak.csv"))
                .map_err(|e| e.to_string())?,
        ),
    };
    Ok(Box::new(super::plots::SoakView::new(title, &data)))
}

/// Writes the six documents atomically into `dir/exports`, or says which
/// edited documents stopped it.
fn export(dir: &std::path::Path, notebook: &Notebook, overwrite: documents::Overwrite) -> Event {
    match documents::export_to(dir, notebook, None, overwrite) {
        Ok(_) => Event::Exported(Ok(documents::unwritten(notebook))),
        Err(documents::ExportError::Edited(edited)) => {
            Event::ExportWouldOverwrite(edited.iter().map(ToString::to_string).collect())
        }
        Err(e) => Event::Exported(Err(e.to_string())),
    }
}

/// Loads (or creates) with `open`, and counts what is left to write.
/// Prepares `dir` (nothing, or creating the notebook), loads it and starts
/// watching it for changes made by other programs.
fn loaded(dir: PathBuf, watched: &mut Option<Watched>, prepare: impl FnOnce(&Path) -> Result<(), String>) -> Event {
    let result = prepare(&dir).and_then(|()| store::load_stamped(&dir).map_err(|e| e.to_string()));
    let result = result.map(|(notebook, stamp)| {
        *watched = Some(Watched::new(dir.clone(), stamp));
        Box::new(notebook)
    });
    let unwritten = result.as_ref().map(|nb| documents::unwritten(nb)).unwrap_or_default();
    Event::Loaded { dir, result, unwritten }
}

/// The open notebook as it is now, when another program changed it since
/// the file thread last read or wrote it. A file that cannot be read now
/// (being replaced, say) is looked at again next time.
fn look_for_changes(watched: Option<&mut Watched>) -> Option<Event> {
    let watched = watched?;
    let notebook = store::reload_if_changed(&watched.dir, &mut watched.stamp).ok()??;
    // The workbook's edits are weighed against the notebook as it is now.
    watched.workbook = None;
    let unwritten = documents::unwritten(&notebook);
    Some(Event::ChangedElsewhere { notebook: Box::new(notebook), unwritten })
}

/// Creates the folder layout in `to`, copies every raw file (they are the
/// evidence the rows point at), then saves the notebook there. Refuses a
/// folder that already holds a notebook.
fn save_as(from: &std::path::Path, to: &std::path::Path, notebook: &Notebook) -> Result<(), String> {
    if to.join(store::NOTEBOOK_FILE).exists() {
        return Err(format!("a notebook already exists in {}; choose an empty folder", to.display()));
    }
    let raw_to = to.join(store::RAW_DIR);
    for dir in [&raw_to, &to.join(store::EXPORTS_DIR)] {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    if let Ok(entries) = std::fs::read_dir(from.join(store::RAW_DIR)) {
        for entry in entries.filter_map(Result::ok).filter(|e| e.path().is_file()) {
            let target = raw_to.join(entry.file_name());
            std::fs::copy(entry.path(), &target).map_err(|e| format!("cannot copy to {}: {e}", target.display()))?;
        }
    }
    store::create_from(to, notebook).map_err(|e| e.to_string())
}
