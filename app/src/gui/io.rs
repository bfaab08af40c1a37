//! File work for the window, on its own thread (SPEC U5, N7): the UI thread
//! never waits on the disk or on a native file dialog.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

use vernier_engine::documents;
use vernier_engine::harness::{self, BenchResult, TrialRecord};
use vernier_engine::notebook::{Notebook, RawFile, store};

/// Work for the I/O thread.
pub enum Request {
    /// Save the notebook (the newest of several queued saves wins).
    Save { dir: PathBuf, notebook: Arc<Notebook>, generation: u64 },
    /// Load a notebook folder.
    Load { dir: PathBuf },
    /// Create a notebook folder, then load it.
    Create { dir: PathBuf },
    /// Load the folder if it holds a notebook, create one there otherwise.
    OpenOrCreate { dir: PathBuf },
    /// Copy the notebook, raw files included, into a new folder and save it there.
    SaveAs { from: PathBuf, to: PathBuf, notebook: Arc<Notebook> },
    /// Write the six documents into the notebook's exports/ folder.
    Export { dir: PathBuf, notebook: Arc<Notebook> },
    /// Write a finished run's raw file.
    WriteRaw { dir: PathBuf, result: Box<BenchResult>, next_run: usize },
    /// Read and analyse a soak file (`None`: the shipped synthetic one).
    ReadSoak { path: Option<PathBuf> },
    /// Read a run's trials back from its raw file, a path inside `dir`.
    ReadTrials { run: u32, dir: PathBuf, path: vernier_engine::notebook::NotebookPath },
    /// Read a classmate's notebook folder or workbook, read-only.
    ReadLog { path: PathBuf },
    /// Run the pre-submission audit (reads raw files and exports).
    Audit { dir: PathBuf, notebook: Arc<Notebook> },
    /// Stop.
    Shutdown,
}

/// What the I/O thread reports.
pub enum Event {
    /// A save finished; with the parts of each document still to write in
    /// the notebook saved (counted here, off the UI thread).
    Saved { generation: u64, result: Result<(), String>, unwritten: Unwritten },
    /// A notebook was loaded (or created), with its unwritten parts.
    Loaded { dir: PathBuf, result: Result<Box<Notebook>, String>, unwritten: Unwritten },
    /// The notebook now lives in `to` (or could not be copied there).
    SavedAs { to: PathBuf, result: Result<(), String> },
    /// The documents were written: each name with its unwritten parts.
    Exported(Result<Vec<(&'static str, usize)>, String>),
    /// A raw file was written (or not).
    RawWritten { result: Box<BenchResult>, raw: Result<RawFile, String> },
    /// A soak, analysed and ready to draw.
    Soak(Result<Box<super::plots::SoakView>, String>),
    /// A run's trials.
    Trials { run: u32, result: Result<Vec<TrialRecord>, String> },
    /// A classmate's log, read (or why not).
    TheirLog(Box<Result<super::reproduce::TheirLog, String>>),
    /// The audit's findings.
    Audited(Box<vernier_engine::audit::Report>),
    /// A file dialog closed. `failed` is set when it closed with nothing
    /// too fast for a person to have cancelled it: no dialog service ran.
    Picked { purpose: Pick, path: Option<PathBuf>, failed: bool },
}

/// Parts of each document still to write (see `documents::unwritten`).
pub type Unwritten = Vec<(&'static str, usize)>;

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
}

/// Handle to the I/O thread.
pub struct Io {
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
        let thread =
            std::thread::Builder::new().name("vernier-io".into()).spawn(move || serve(&inbox, &out, &*wake))?;
        Ok(Self { requests, events, sender, waker, thread: Some(thread) })
    }

    /// Queues work; `false` when the queue is full (try again next frame).
    pub fn send(&self, request: Request) -> bool {
        !matches!(self.requests.try_send(request), Err(TrySendError::Full(_)))
    }

    /// The next finished piece of work, if any.
    pub fn try_event(&self) -> Option<Event> {
        self.events.try_recv().ok()
    }

    /// Opens a native dialog on a thread of its own — a folder, or for
    /// [`Pick::ReproduceWorkbook`] an `.xlsx` file; the answer arrives as
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
            };
            let mut dialog = rfd::FileDialog::new().set_title(title);
            if let Some(start) = start {
                dialog = dialog.set_directory(start);
            }
            let opened = std::time::Instant::now();
            let path = if purpose == Pick::ReproduceWorkbook {
                dialog.add_filter("Workbook", &["xlsx"]).pick_file()
            } else {
                dialog.pick_folder()
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
    fn drop(&mut self) {
        // Queued saves run before the thread sees this, so nothing is lost.
        let _ = self.requests.send(Request::Shutdown);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(inbox: &Receiver<Request>, out: &SyncSender<Event>, wake: &(dyn Fn() + Send + Sync)) {
    let mut pending: Option<Request> = None;
    loop {
        let Some(request) = pending.take().or_else(|| inbox.recv().ok()) else { return };
        let event = match request {
            Request::Shutdown => return,
            Request::Save { dir, notebook, generation } => {
                // Later saves of the same folder make this one redundant.
                let (mut dir, mut notebook, mut generation) = (dir, notebook, generation);
                while let Ok(next) = inbox.try_recv() {
                    match next {
                        Request::Save { dir: d, notebook: n, generation: g } if d == dir => {
                            (dir, notebook, generation) = (d, n, g)
                        }
                        other => {
                            pending = Some(other);
                            break;
                        }
                    }
                }
                let result = store::save(&dir, &notebook).map_err(|e| e.to_string());
                Event::Saved { generation, result, unwritten: documents::unwritten(&notebook) }
            }
            Request::Load { dir } => loaded(dir, store::load),
            Request::OpenOrCreate { dir } if dir.join(store::NOTEBOOK_FILE).exists() => loaded(dir, store::load),
            Request::Create { dir } | Request::OpenOrCreate { dir } => {
                let title =
                    dir.file_name().map_or_else(|| "Untitled project".to_owned(), |n| n.to_string_lossy().into_owned());
                loaded(dir, |dir| store::create(dir, &title, chrono::Utc::now()))
            }
            Request::SaveAs { from, to, notebook } => Event::SavedAs { result: save_as(&from, &to, &notebook), to },
            Request::Export { dir, notebook } => Event::Exported(export(&dir, &notebook)),
            Request::ReadLog { path } => Event::TheirLog(Box::new(super::reproduce::read_log(&path))),
            Request::Audit { dir, notebook } => Event::Audited(Box::new(vernier_engine::audit::audit(&dir, &notebook))),
            Request::WriteRaw { dir, result, next_run } => {
                let raw = harness::write_raw(&dir, &result, next_run).map_err(|e| e.to_string());
                Event::RawWritten { result, raw }
            }
            Request::ReadSoak { path } => Event::Soak(read_soak(path.as_deref())),
            Request::ReadTrials { run, dir, path } => {
                let result = path
                    .resolve(&dir)
                    .map_err(|e| format!("the raw file is refused: {e}"))
                    .and_then(|p| harness::raw::read(&p).map_err(|e| e.to_string()))
                    .and_then(|bytes| harness::raw::parse(&String::from_utf8_lossy(&bytes)));
                Event::Trials { run, result }
            }
        };
        if out.send(event).is_err() {
            return;
        }
        wake();
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

/// Writes the six documents atomically into `dir/exports`.
fn export(dir: &std::path::Path, notebook: &Notebook) -> Result<Vec<(&'static str, usize)>, String> {
    documents::export_to(dir, notebook, None).map_err(|e| e.to_string())?;
    Ok(documents::unwritten(notebook))
}

/// Loads (or creates) with `open`, and counts what is left to write.
fn loaded<E: std::fmt::Display>(dir: PathBuf, open: impl FnOnce(&Path) -> Result<Notebook, E>) -> Event {
    let result = open(&dir).map(Box::new).map_err(|e| e.to_string());
    let unwritten = result.as_ref().map(|nb| documents::unwritten(nb)).unwrap_or_default();
    Event::Loaded { dir, result, unwritten }
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
    store::save(to, notebook).map_err(|e| e.to_string())
}
