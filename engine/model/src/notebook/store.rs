//! The notebook folder on disk (SPEC N1, N7, N8, N10): creating it, loading
//! `notebook.ron` with its schema version and the journal that follows it,
//! appending a change to the journal, and compacting the two atomically.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::Notebook;
use super::error::{CreateError, LoadError, NotebookError, SaveError, SaveStep};
use crate::bounded;

mod journal;
mod leftovers;
mod lock;
mod output;
mod parsed;
mod partial;
mod verified;
pub use journal::JOURNAL_FILE;
pub use leftovers::{Leftover, Writer, find as leftovers, reservation_text, writer_tag};
pub use lock::{
    FIRST_WORD, FolderLock, Holder, LOCK_FILE, LockError, LockWait, REPEAT_EVERY, Waiting, set_lock_wait,
    set_thread_lock_wait,
};
pub use output::OutputFile;
pub use partial::load_run;
pub use verified::Verified;

/// The log's file name inside a notebook folder.
pub const NOTEBOOK_FILE: &str = "notebook.ron";
/// Raw trial files, written once (N6).
pub const RAW_DIR: &str = "raw";
/// Generated documents.
pub const EXPORTS_DIR: &str = "exports";
/// The schema version this build writes. Version 2 added the documents'
/// writing (answers, citations, placement deadlines); version 3 the rows'
/// snapshots (the stated Environment kept with every row, SPEC N9); version
/// 4 a note's source and a summary typed by hand (N12); version 5 a
/// prediction's committed figure and the rows that answer it (N14) and a
/// run's build recipe (N15), so a build before them says the file is newer
/// instead of failing on a field it does not know; version 6 the journal
/// beside the file (N1), so a build before it refuses a notebook whose
/// latest changes are in the journal instead of showing it without them;
/// version 7 a lock taken when a soak starts (T1) and the importer an
/// imported row's raw file was written by (E14), so a build before it says
/// the file is newer instead of failing on what it does not know; version
/// 8 a row's tail against its budget (S19) and its session's noise floor
/// (E18), for the same reason; version 9 the reason a soak protocol's
/// changed window or threshold was fixed with (T13); version 10 leaves out
/// a row's fields that hold nothing (not discarded, not synthetic, no
/// trial waited) and keeps the counters sentence, the same on every row
/// of a machine, once in the rows' snapshot (about 150 bytes a row, issue
/// 50), which a build before it would call missing; version 11 the trial
/// budget new runs are held to (S19), which a build before it would not
/// know. Older files are read and saved as version 11, their rows as
/// recorded (no tail, no floor, no reason: nothing is invented).
pub const SCHEMA_VERSION: u32 = 11;
/// A larger `notebook.ron` is refused as its bytes arrive: 10 000 runs take
/// about 20 MB, so this leaves room while keeping a hostile file from
/// exhausting memory.
pub const MAX_NOTEBOOK_BYTES: u64 = 256 * 1024 * 1024;

const HEADER: &str = "// Vernier notebook. Predictions are hash-chained: edit them in Vernier, not here.\n";

/// The file operations an atomic save needs.
///
/// Exists so tests can inject a failure into each step in turn; the real
/// implementation is [`OsStorage`].
pub trait Storage {
    /// An open file being written.
    type File: Write;
    /// Creates a new file for writing; fails when anything, a symbolic
    /// link included, is already at `path` (never follows or truncates).
    fn create(&self, path: &Path) -> io::Result<Self::File>;
    /// Flushes a file's data and metadata to the disk.
    fn sync(&self, file: &mut Self::File) -> io::Result<()>;
    /// Renames `from` over `to` (atomic within one folder).
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Flushes a folder, making a rename inside it durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    /// Removes a file (a failed save's temporary, a folded journal).
    fn remove(&self, path: &Path) -> io::Result<()>;
    /// Opens the file at `path` for appending (a journal line), created
    /// when missing; never through a symbolic link.
    fn append(&self, path: &Path) -> io::Result<Self::File>;
}

/// The operating system's file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct OsStorage;

impl Storage for OsStorage {
    type File = File;
    fn create(&self, path: &Path) -> io::Result<File> {
        File::options().write(true).create_new(true).open(path)
    }
    fn sync(&self, file: &mut File) -> io::Result<()> {
        file.sync_all()
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        crate::os::fs::rename_over(from, to)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        crate::os::fs::sync_dir(dir)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }
    fn append(&self, path: &Path) -> io::Result<File> {
        refuse_unless_regular(path)?;
        File::options().append(true).create(true).open(path)
    }
}

/// Replaces `target` with `bytes` so that a crash at any instant leaves
/// either the old or the new content (N7): temporary file in the same
/// folder, flush, fsync, rename, fsync the folder (a no-op on Windows, see
/// [`crate::os::fs`]).
///
/// Many writers may save into one folder at once (N10): each stages into a
/// temporary file of its own, created new (so a symbolic link planted at a
/// temporary name is never followed), and a `target` that is a symbolic
/// link or anything but a regular file is refused rather than replaced.
fn atomic_write<S: Storage>(storage: &S, target: &Path, bytes: &[u8]) -> Result<(), SaveError> {
    atomic_write_checked(storage, target, bytes, &|| Ok(true))
}

/// [`atomic_write`] that asks `may_commit` just before the rename that
/// commits it: a writer whose lock was lost meanwhile (N10) commits nothing.
fn atomic_write_checked<S: Storage>(
    storage: &S,
    target: &Path,
    bytes: &[u8],
    may_commit: &dyn Fn() -> io::Result<bool>,
) -> Result<(), SaveError> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let fail = |step| move |source| SaveError { path: target.to_path_buf(), step, source };
    refuse_unless_regular(target).map_err(fail(SaveStep::Confine))?;
    let (temp, mut file) = create_temp(storage, dir, target).map_err(fail(SaveStep::CreateTemp))?;

    let staged = (|| {
        file.write_all(bytes).map_err(fail(SaveStep::Write))?;
        file.flush().map_err(fail(SaveStep::Write))?;
        storage.sync(&mut file).map_err(fail(SaveStep::SyncTemp))?;
        drop(file);
        if !may_commit().map_err(fail(SaveStep::LockLost))? {
            let lost = io::Error::other("the folder's lock file was deleted or replaced while this writer held it");
            return Err(fail(SaveStep::LockLost)(lost));
        }
        storage.rename(&temp, target).map_err(fail(SaveStep::Rename))
    })();
    if staged.is_err() {
        // The save error is what matters; the temporary file is ours alone.
        let _ = storage.remove(&temp);
    }
    staged?;
    storage.sync_dir(dir).map_err(fail(SaveStep::SyncFolder))
}

/// A temporary file beside `target` that no other writer uses: named with
/// this writer's tag (host, pid, start time: what the lock's tidying reads)
/// and a counter, and created new.
fn create_temp<S: Storage>(storage: &S, dir: &Path, target: &Path) -> io::Result<(PathBuf, S::File)> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let name = target.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let mut last = None;
    for _ in 0..16 {
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.{}-{n}.tmp", writer_tag()));
        match storage.create(&temp) {
            Ok(file) => return Ok((temp, file)),
            // Left by a crashed process with our id, or planted: take another name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Refuses to write over `path` unless it is a regular file or missing: a
/// symbolic link would be replaced by the save (taking its target's place in
/// the folder), and a folder, FIFO or device is not a file Vernier wrote.
pub fn refuse_unless_regular(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(io::Error::other(format!(
            "{} is a symbolic link; Vernier writes only real files inside the notebook folder",
            path.display()
        ))),
        Ok(meta) if !meta.is_file() => Err(io::Error::other(format!("{} is not a regular file", path.display()))),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Refuses a notebook subfolder (`raw/`, `exports/`) that is a symbolic link
/// or not a folder, so no write follows it out of the notebook (N1, N10).
pub fn refuse_unless_real_folder(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(io::Error::other(format!(
            "{} is a symbolic link; Vernier writes only inside the notebook folder",
            path.display()
        ))),
        Ok(meta) if !meta.is_dir() => Err(io::Error::other(format!("{} is not a folder", path.display()))),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// The path of `notebook.ron` for a notebook folder (or that file itself).
pub fn notebook_file(path: &Path) -> PathBuf {
    if path.file_name().is_some_and(|n| n == NOTEBOOK_FILE) && !path.is_dir() {
        path.to_path_buf()
    } else {
        path.join(NOTEBOOK_FILE)
    }
}

/// Creates a notebook folder with `notebook.ron`, `raw/` and `exports/`.
pub fn create(dir: &Path, title: &str, at: DateTime<Utc>) -> Result<Notebook, CreateError> {
    let notebook = Notebook::new(title, at);
    create_from(dir, &notebook)?;
    Ok(notebook)
}

/// Creates a notebook folder holding `notebook` (a copy saved elsewhere, a
/// notebook made from someone's workbook): refused when the folder already
/// has a `notebook.ron`, checked again under the folder's lock.
pub fn create_from(dir: &Path, notebook: &Notebook) -> Result<(), CreateError> {
    let file = dir.join(NOTEBOOK_FILE);
    if file.exists() {
        return Err(CreateError::Exists { path: file });
    }
    for sub in [dir.to_path_buf(), dir.join(RAW_DIR), dir.join(EXPORTS_DIR)] {
        std::fs::create_dir_all(&sub).map_err(|source| CreateError::Io { path: sub.clone(), source })?;
    }
    loop {
        let held = hold(dir)?;
        if std::fs::symlink_metadata(&file).is_ok() {
            return Err(CreateError::Exists { path: file });
        }
        // A journal without its notebook.ron follows no notebook; this
        // one starts its own.
        match std::fs::remove_file(dir.join(JOURNAL_FILE)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                return Err(SaveError { path: dir.join(JOURNAL_FILE), step: SaveStep::RemoveJournal, source: e }.into());
            }
            _ => {}
        }
        match write_snapshot(&OsStorage, dir, notebook, &fresh_token(), Some(&held)) {
            Err(e) if e.step == SaveStep::LockLost => continue,
            done => return done.map(drop).map_err(CreateError::from),
        }
    }
}

/// The folder's lock, held, with the notebook as it is on disk now
/// (`notebook.ron` and its journal): the one way to change it (N10).
/// Change [`Locked::notebook_mut`], then [`Locked::save`]; dropped
/// unsaved, it writes nothing. [`change`] and its kin wrap it for the
/// usual case, retrying when the lock was lost.
#[derive(Debug)]
pub struct Locked {
    dir: PathBuf,
    held: FolderLock,
    /// The notebook as loaded, which the change is told apart from.
    before: Notebook,
    notebook: Notebook,
    loaded: Stamp,
}

/// Why [`lock`] failed: the lock itself (not taken, its wait
/// cancelled, or its file could not be opened), or the notebook's load.
#[derive(Debug, thiserror::Error)]
pub enum LockedError {
    /// The folder's lock was not taken.
    #[error(transparent)]
    Lock(#[from] SaveError),
    /// The notebook could not be read as it is now.
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// Takes the lock of the notebook folder `dir` (N10), waiting while another
/// writer holds it — said within a second and cancellable through the
/// process's [`LockWait`] — removes what dead writers left behind, and
/// loads the notebook as it is now.
pub fn lock(dir: &Path) -> Result<Locked, LockedError> {
    let held = hold_notebook(dir, Tidy::Folder)?;
    let (notebook, loaded) = load_stamped(dir)?;
    Ok(Locked { dir: dir.to_path_buf(), held, before: notebook.clone(), notebook, loaded })
}

impl Locked {
    /// The notebook as it was on disk when the lock was taken, with the
    /// changes made to it since.
    pub fn notebook(&self) -> &Notebook {
        &self.notebook
    }

    /// The notebook to change, through its own methods (which keep the
    /// log's rules).
    pub fn notebook_mut(&mut self) -> &mut Notebook {
        &mut self.notebook
    }

    /// The stamp of the notebook as it was loaded under the lock.
    pub fn loaded(&self) -> &Stamp {
        &self.loaded
    }

    /// Saves the change and lets the lock go: one line appended to the
    /// journal and synced, or, for a notebook.ron written before there was
    /// a journal, the whole file rewritten atomically (its migration). The
    /// change is committed only while the lock held is still the file at
    /// the lock's path ([`SaveStep::LockLost`] otherwise, nothing written:
    /// take the lock again and reapply). A journal grown past
    /// [`compaction_threshold`] is then folded into a new notebook.ron.
    /// Returns the notebook as saved and the stamp of what is on disk.
    pub fn save(self) -> Result<(Notebook, Stamp), SaveError> {
        self.save_with(&OsStorage)
    }

    /// [`Locked::save`] through a given [`Storage`] (a test injects a
    /// failure into each step of the append and of a compaction this way).
    pub fn save_with<S: Storage>(self, storage: &S) -> Result<(Notebook, Stamp), SaveError> {
        let stamp = self.write(storage)?;
        Ok((self.notebook, stamp))
    }

    /// Folds the journal into a new notebook.ron now, whatever its length,
    /// through `storage`, and lets the lock go — the step a long journal
    /// takes after an append, here on its own for a test to break.
    pub fn compact_with<S: Storage>(self, storage: &S) -> Result<(Notebook, Stamp), SaveError> {
        let stamp = compact(storage, &self.dir, &self.notebook, &self.loaded, &self.held)?;
        Ok((self.notebook, stamp))
    }

    /// Writes the change, still holding the lock (a writer with a
    /// companion file lets it go only after that file), and returns the
    /// stamp of what is on disk.
    fn write<S: Storage>(&self, storage: &S) -> Result<Stamp, SaveError> {
        if self.loaded.token.is_none() {
            // A notebook.ron from before the journal: rewritten whole, as
            // version 6, so no older build reads it without its journal.
            let fresh = Stamp { tail: fresh_token(), ..self.loaded.clone() };
            return compact(storage, &self.dir, &self.notebook, &fresh, &self.held);
        }
        if self.loaded.older {
            // Its journal folded in and the change with it, as this version.
            return compact(storage, &self.dir, &self.notebook, &self.loaded, &self.held);
        }
        let edits = journal::diff(&self.before, &self.notebook);
        if edits.is_empty() {
            return Ok(self.loaded.clone());
        }
        append(storage, &self.dir, &self.loaded, edits, &self.held, |stamp| Ok((self.notebook.clone(), stamp.clone())))
    }
}

/// Takes the folder's lock alone, for what writes no `notebook.ron` under
/// it or writes the first one.
fn hold(dir: &Path) -> Result<FolderLock, SaveError> {
    hold_tidying(dir, Tidy::Folder)
}

/// What a writer tidies once it holds the lock.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tidy {
    /// Dead writers' leftovers in the whole folder, `raw/` listed too.
    Folder,
    /// Only `notebook.ron`'s temporaries: a change that reads nothing of the
    /// notebook (a note, a field) costs what the change does, not a listing
    /// of every raw file (issue 50); the next writer that loads it tidies.
    Notebook,
    /// `notebook.ron`'s temporaries and `exports/`: an export writes there
    /// and nowhere else, so it lists no raw file either (issue 50).
    Exports,
}

fn hold_tidying(dir: &Path, tidy: Tidy) -> Result<FolderLock, SaveError> {
    let held = lock::lock(dir).map_err(|e| lock_error(dir, e))?;
    match tidy {
        Tidy::Folder => leftovers::remove_dead(dir, &[RAW_DIR, EXPORTS_DIR]),
        Tidy::Notebook => leftovers::remove_notebook_temporaries(dir),
        Tidy::Exports => leftovers::remove_dead(dir, &[EXPORTS_DIR]),
    }
    Ok(held)
}

/// [`hold`] for a change to a notebook that is there: a folder without one
/// gets no lock file, and no word of a "previous version" that never was.
fn hold_notebook(dir: &Path, tidy: Tidy) -> Result<FolderLock, LockedError> {
    if std::fs::symlink_metadata(notebook_file(dir)).is_err_and(|e| e.kind() == io::ErrorKind::NotFound) {
        return Err(LoadError::NotANotebook { path: dir.to_path_buf() }.into());
    }
    Ok(hold_tidying(dir, tidy)?)
}

/// A [`LockError`] as the [`SaveError`] every writer reports.
fn lock_error(dir: &Path, e: LockError) -> SaveError {
    match e {
        LockError::Io(source) => SaveError { path: dir.join(LOCK_FILE), step: SaveStep::Lock, source },
        cancelled @ LockError::Cancelled { .. } => SaveError {
            path: dir.join(NOTEBOOK_FILE),
            step: SaveStep::Wait,
            source: io::Error::new(io::ErrorKind::Interrupted, cancelled.to_string()),
        },
    }
}

/// Runs `work` holding the folder's lock, for a writer of files other than
/// `notebook.ron` that must not interleave with another (a raw file's
/// reservation).
pub fn exclusive<T, E: From<SaveError>>(dir: &Path, work: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let _lock = hold(dir)?;
    work()
}

/// [`exclusive`] for the writer of the six documents and their record,
/// which tidies only what it writes in: `raw/`, 10 000 files in a
/// semester, is not listed for an export (issue 50).
pub fn exporting<T, E: From<SaveError>>(dir: &Path, work: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let _lock = hold_tidying(dir, Tidy::Exports)?;
    work()
}

/// Why a [`change`] did not happen. `E` is why the edit itself refused (the
/// log's rules, or an importer's reason).
#[derive(Debug, thiserror::Error)]
pub enum ChangeError<E: std::error::Error = NotebookError> {
    /// The notebook could not be read as it is now; nothing was written.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The edit was refused; nothing was written.
    #[error(transparent)]
    Refused(E),
    /// The change was applied but could not be saved (the message says
    /// whether the previous version is kept).
    #[error(transparent)]
    Save(#[from] SaveError),
}

/// One change to the notebook in `dir`, the way every writer makes one so
/// that the window, the command line and a second terminal can share a
/// notebook (N10): lock the folder, load the notebook as it is now, apply
/// `edit`, append what changed to the journal, unlock. Returns what `edit`
/// returned and the notebook as saved.
pub fn change<T, E: std::error::Error>(
    dir: &Path,
    edit: impl FnMut(&mut Notebook) -> Result<T, E>,
) -> Result<(T, Notebook), ChangeError<E>> {
    change_stamped(dir, None, edit).map(|c| (c.value, c.notebook))
}

/// Adds a note to the notebook in `dir` without reading the notebook: the
/// note is checked by the log's rule for notes, then appended to the
/// journal under the lock (N10), so its cost does not grow with the
/// notebook. Returns the note as recorded.
pub fn add_note(dir: &Path, note: super::Note) -> Result<super::Note, ChangeError> {
    let recorded = note.clone();
    append_unread(dir, vec![journal::Edit::AddNote(note)]).map(|()| recorded)
}

/// Sets an Environment field by its label without reading the notebook:
/// the field and value are checked as [`Notebook::set_environment`] checks
/// them (a value's rules do not depend on the notebook), then appended to
/// the journal under the lock.
pub fn set_environment(dir: &Path, field: &str, value: &str) -> Result<(), ChangeError> {
    super::Environment::default()
        .set(super::EnvField::named(field).map_err(NotebookError::from)?, value)
        .map_err(NotebookError::from)?;
    let edit = journal::Edit::SetEnvironment { field: field.to_owned(), value: value.to_owned() };
    append_unread(dir, vec![edit])
}

/// Sets or clears the trial budget (S19) without reading the notebook:
/// checked as [`Notebook::set_trial_budget`] checks it, then appended to
/// the journal under the lock.
pub fn set_trial_budget(dir: &Path, seconds: Option<f64>) -> Result<(), ChangeError> {
    super::checked_trial_budget(seconds).map_err(NotebookError::from)?;
    append_unread(dir, vec![journal::Edit::TrialBudget(seconds)])
}

impl From<NotebookError> for ChangeError {
    fn from(e: NotebookError) -> Self {
        Self::Refused(e)
    }
}

/// Appends `edits`, which need nothing of the notebook to be checked, to
/// the journal in `dir` under its lock: only the head of notebook.ron (its
/// version and token) and the journal are read, never parsed whole. A
/// notebook.ron from before the journal, or of an older schema, takes the
/// whole way once ([`transact`]), which migrates it.
fn append_unread(dir: &Path, edits: Vec<journal::Edit>) -> Result<(), ChangeError> {
    loop {
        let held = hold_notebook(dir, Tidy::Notebook)?;
        let (token, meta) = read_head(dir)?;
        let Some(token) = token else {
            drop(held);
            let apply = |nb: &mut Notebook| journal::apply(nb, edits.clone()).map_err(NotebookError::Journal);
            return transact(dir, None, apply, |_, _| ()).map(drop);
        };
        let journal = read_journal(dir)?;
        let tail = journal::whole_lines(&journal).last().map_or_else(|| token.clone(), journal::hash);
        let loaded = Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            token: Some(token),
            journal_len: journal::whole_len(&journal) as u64,
            tail,
            older: false,
        };
        match append(&OsStorage, dir, &loaded, edits.clone(), &held, |_| load_stamped(dir)) {
            Err(e) if e.step == SaveStep::LockLost => continue,
            done => return done.map(drop).map_err(ChangeError::Save),
        }
    }
}

/// The journal's path beside the notebook file of `dir`.
fn journal_file(dir: &Path) -> PathBuf {
    notebook_file(dir).with_file_name(JOURNAL_FILE)
}

/// Journals at least this long are folded into a new notebook.ron.
pub const COMPACT_AT_LEAST: u64 = 1 << 20;

/// A journal is folded into a new notebook.ron, under the lock, by the
/// writer whose line takes it past the larger of [`COMPACT_AT_LEAST`] and
/// an eighth of notebook.ron: a reader then parses at most an eighth more
/// than the snapshot, and a compaction's cost (the whole notebook written)
/// is spread over the lines that made it due. [`set_compaction_threshold`]
/// replaces it (a test compacts after every change this way).
pub fn compaction_threshold(snapshot_len: u64) -> u64 {
    match THRESHOLD.load(std::sync::atomic::Ordering::Relaxed) {
        0 => COMPACT_AT_LEAST.max(snapshot_len / 8),
        set => set,
    }
}

static THRESHOLD: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Sets this process's compaction threshold in bytes (`None`: the rule of
/// [`compaction_threshold`]).
pub fn set_compaction_threshold(bytes: Option<u64>) {
    THRESHOLD.store(bytes.unwrap_or(0), std::sync::atomic::Ordering::Relaxed);
}

/// Appends a record of `edits`, following what `loaded` saw, to the
/// journal in `dir` under `held`, then folds the journal into a new
/// notebook.ron when it has grown past [`compaction_threshold`] (`whole`
/// gives the notebook to fold and the stamp of what it holds, from the
/// stamp after the append; a compaction that fails leaves the change in the
/// journal, saved, for the next writer to fold). Returns the stamp of what
/// is on disk.
fn append<S: Storage>(
    storage: &S,
    dir: &Path,
    loaded: &Stamp,
    edits: Vec<journal::Edit>,
    held: &FolderLock,
    whole: impl FnOnce(&Stamp) -> Result<(Notebook, Stamp), LoadError>,
) -> Result<Stamp, SaveError> {
    let path = journal_file(dir);
    let fail = |step| {
        let path = path.clone();
        move |source| SaveError { path, step, source }
    };
    let record = journal::Record { follows: loaded.tail.clone(), edits };
    let mut line = journal::line(&record).map_err(|e| fail(SaveStep::Serialize)(io::Error::other(e)))?;
    let would_be = loaded.journal_len + line.len() as u64 + 1;
    if would_be > MAX_NOTEBOOK_BYTES {
        let message =
            format!("the journal would be {would_be} bytes, more than the {MAX_NOTEBOOK_BYTES} bytes a load accepts");
        return Err(fail(SaveStep::TooLarge)(io::Error::new(io::ErrorKind::FileTooLarge, message)));
    }
    let tail = journal::hash(line.as_bytes());
    line.push('\n');
    // A notebook.ron that is a link is not this folder's log (N10).
    refuse_unless_regular(&notebook_file(dir)).map_err(fail(SaveStep::Confine))?;
    let lost = || io::Error::other("the folder's lock file was deleted or replaced while this writer held it");
    if !held.is_held().map_err(fail(SaveStep::LockLost))? {
        return Err(fail(SaveStep::LockLost)(lost()));
    }
    // Whole lines past what was read are another writer's (who took the
    // lock after this one's was deleted): this change is made again on them.
    if !cut_torn_line(&path, loaded.journal_len).map_err(fail(SaveStep::Append))? {
        return Err(fail(SaveStep::LockLost)(lost()));
    }
    let mut file = storage.append(&path).map_err(fail(SaveStep::Append))?;
    file.write_all(line.as_bytes()).map_err(fail(SaveStep::Append))?;
    file.flush().map_err(fail(SaveStep::Append))?;
    storage.sync(&mut file).map_err(fail(SaveStep::SyncJournal))?;
    let stamp = Stamp { journal_len: loaded.journal_len + line.len() as u64, tail, ..loaded.clone() };
    if stamp.journal_len <= compaction_threshold(stamp.len) {
        return Ok(stamp);
    }
    Ok(whole(&stamp).ok().and_then(|(nb, folded)| compact(storage, dir, &nb, &folded, held).ok()).unwrap_or(stamp))
}

/// Cuts a journal back to `whole` bytes when what follows is a part of a
/// line (its writer died appending it; it was never reported saved).
/// False, and nothing cut, when whole lines follow: another writer's.
fn cut_torn_line(path: &Path, whole: u64) -> io::Result<bool> {
    refuse_unless_regular(path)?;
    let mut file = match File::options().read(true).write(true).open(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(true),
        file => file?,
    };
    if file.metadata()?.len() <= whole {
        return Ok(true);
    }
    io::Seek::seek(&mut file, io::SeekFrom::Start(whole))?;
    let mut rest = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(&mut file, MAX_NOTEBOOK_BYTES), &mut rest)?;
    if rest.contains(&b'\n') {
        return Ok(false);
    }
    file.set_len(whole)?;
    file.sync_data()?;
    Ok(true)
}

/// Writes `notebook` — what `folded` stamps — whole as a new notebook.ron
/// whose journal starts from `folded.tail` (the hash of the last line
/// folded in, or a fresh token), atomically and only while `held` is the
/// folder's lock, then removes the journal it folded in. Killed between
/// the two, the journal left is known as folded ([`journal::replay`]); a
/// journal that grew meanwhile (a writer that took the lock after this
/// one's file was deleted) is left for its lines to follow the new file.
/// Returns the stamp of what is on disk.
fn compact<S: Storage>(
    storage: &S,
    dir: &Path,
    notebook: &Notebook,
    folded: &Stamp,
    held: &FolderLock,
) -> Result<Stamp, SaveError> {
    let token = folded.tail.as_str();
    let text = write_snapshot(storage, dir, notebook, token, Some(held))?;
    let path = journal_file(dir);
    let grown = std::fs::symlink_metadata(&path).is_ok_and(|m| m.len() != folded.journal_len);
    match if grown { Ok(()) } else { storage.remove(&path) } {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            return Err(SaveError { path, step: SaveStep::RemoveJournal, source: e });
        }
        _ => {}
    }
    storage.sync_dir(dir).map_err(|source| SaveError { path, step: SaveStep::SyncFolder, source })?;
    let meta = std::fs::metadata(notebook_file(dir)).ok();
    Ok(Stamp {
        len: text.len() as u64,
        modified: meta.and_then(|m| m.modified().ok()),
        token: Some(token.to_owned()),
        journal_len: 0,
        tail: token.to_owned(),
        older: false,
    })
}

/// A token no other notebook.ron has, for one that starts a journal
/// without folding one in (a new notebook, a migrated one).
fn fresh_token() -> String {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    crate::digest::sha256_hex(format!("{} {} {n}", writer_tag(), now.as_nanos()).as_bytes())
}

/// Renders `notebook` with its journal token, refuses it when a load would
/// not accept it back (the file on disk stays as it was), writes it
/// atomically and returns the text. Under `held`, the save is committed
/// only while that lock is still the folder's ([`SaveStep::LockLost`]
/// otherwise, nothing written).
fn write_snapshot<S: Storage>(
    storage: &S,
    dir: &Path,
    notebook: &Notebook,
    token: &str,
    held: Option<&FolderLock>,
) -> Result<String, SaveError> {
    let path = notebook_file(dir);
    let text = snapshot_text(notebook, Some(token)).map_err(|e| SaveError {
        path: path.clone(),
        step: SaveStep::Serialize,
        source: io::Error::other(e),
    })?;
    if text.len() as u64 > MAX_NOTEBOOK_BYTES {
        let message = format!(
            "the notebook would be {} bytes, more than the {MAX_NOTEBOOK_BYTES} bytes a load accepts",
            text.len()
        );
        let source = io::Error::new(io::ErrorKind::FileTooLarge, message);
        return Err(SaveError { path, step: SaveStep::TooLarge, source });
    }
    let still_held = || held.map_or(Ok(true), FolderLock::is_held);
    atomic_write_checked(storage, &path, text.as_bytes(), &still_held)?;
    Ok(text)
}

/// The notebook as the text of a `notebook.ron` standing alone (a copy
/// kept in a workbook): no journal follows it.
pub fn to_text(notebook: &Notebook) -> Result<String, ron::Error> {
    snapshot_text(notebook, None)
}

/// The text of `notebook.ron`, naming the token its journal follows: its
/// sections one a line, their rows one a line (a row of 10 000 reads as
/// one line, and `show --run` parses only its own, see [`load_run`]).
fn snapshot_text(notebook: &Notebook, token: Option<&str>) -> Result<String, ron::Error> {
    let mut file = super::file::NotebookFile::from(notebook.clone());
    file.journal = token.map(str::to_owned);
    // ron ends lines with "\r\n" on Windows by default; one spelling on
    // every OS keeps a notebook the same file wherever it was saved.
    let config = ron::ser::PrettyConfig::new().struct_names(true).new_line("\n").depth_limit(2);
    Ok(format!("{HEADER}{}\n", ron::ser::to_string_pretty(&file, config)?))
}

/// The notebook in its compact form, standing alone (no journal follows
/// it): MessagePack with field names, as the parsed cache keeps it. A
/// workbook carries this copy (D4): a semester's notebook is written in
/// about a quarter of its text's time (issue 50).
pub fn to_compact(notebook: &Notebook) -> Result<Vec<u8>, rmp_serde::encode::Error> {
    rmp_serde::to_vec_named(notebook)
}

/// The notebook [`to_compact`] wrote, read from bytes that may be anyone's
/// (`path` names where they came from): refused by version when a newer
/// Vernier wrote them, checked like a `notebook.ron` (N4, N8).
pub fn from_compact(bytes: &[u8], path: &Path) -> Result<Notebook, LoadError> {
    let invalid = |e: rmp_serde::decode::Error| LoadError::Invalid {
        path: path.to_path_buf(),
        message: format!("its compact copy of the notebook cannot be read ({e})"),
    };
    #[derive(Deserialize)]
    struct Probe {
        schema: u32,
    }
    supported(shallow::<Probe>(bytes).map_err(invalid)?.schema, path)?;
    let file: super::file::NotebookFile = shallow(bytes).map_err(invalid)?;
    let mut notebook =
        Notebook::try_from(file).map_err(|message| LoadError::Invalid { path: path.to_path_buf(), message })?;
    notebook.schema = SCHEMA_VERSION;
    notebook.validate().map_err(|message| LoadError::Invalid { path: path.to_path_buf(), message })?;
    Ok(notebook)
}

/// How deep a compact copy may nest: a notebook nests about ten levels,
/// and a hostile copy nested deeper is refused before its reading can
/// exhaust a thread's stack (rmp's own limit, 1024, does not, in a
/// debug build's 2 MiB thread).
const COMPACT_DEPTH: usize = 64;

/// `T` read from MessagePack nested at most [`COMPACT_DEPTH`] deep.
fn shallow<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, rmp_serde::decode::Error> {
    let mut reader = rmp_serde::Deserializer::from_read_ref(bytes);
    reader.set_max_depth(COMPACT_DEPTH);
    T::deserialize(&mut reader)
}

/// Loads the notebook in folder `dir` (or the `notebook.ron` given): the
/// snapshot with its journal applied.
///
/// Integrity is not judged here: call [`Notebook::integrity`] on the result
/// and show what it finds.
pub fn load(dir: &Path) -> Result<Notebook, LoadError> {
    load_stamped(dir).map(|(notebook, _)| notebook)
}

/// What the notebook held when this process last read or wrote it: a
/// change made elsewhere shows as a different stamp. notebook.ron's size
/// and time, and the journal's length, decide whether to read again; the
/// snapshot's token and the journal's last line, whether it really changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    /// The snapshot's journal token; `None` for a notebook.ron from before
    /// the journal.
    token: Option<String>,
    /// The bytes of the journal's whole lines.
    journal_len: u64,
    /// The hash the next journal line follows (for a notebook.ron from
    /// before the journal, the hash of its bytes).
    tail: String,
    /// notebook.ron was written under an older schema than this build's.
    /// The next change writes it whole, as this version, instead of
    /// appending to its journal: a build of that older schema then refuses
    /// the notebook by its version (N8) rather than failing on a journal
    /// line it cannot read.
    older: bool,
}

impl Stamp {
    /// True when the two saw the same notebook, whatever the files' times.
    fn same_content(&self, other: &Stamp) -> bool {
        self.len == other.len
            && self.token == other.token
            && self.journal_len == other.journal_len
            && self.tail == other.tail
    }

    /// True when notebook.ron's size and time still match: the snapshot
    /// is the one seen.
    fn same_snapshot(&self, meta: &std::fs::Metadata) -> bool {
        self.token.is_some()
            && self.len == meta.len()
            && self.modified.is_some()
            && self.modified == meta.modified().ok()
    }

    /// True when notebook.ron's size and time and the journal's length
    /// still match: nothing need be read.
    fn same_files(&self, meta: &std::fs::Metadata, journal_len: u64) -> bool {
        self.len == meta.len()
            && self.modified.is_some()
            && self.modified == meta.modified().ok()
            && self.journal_len == journal_len
    }
}

/// [`load`], with the [`Stamp`] of what was read.
pub fn load_stamped(dir: &Path) -> Result<(Notebook, Stamp), LoadError> {
    load_read(dir, false).map(|(notebook, stamp, _)| (notebook, stamp))
}

/// [`load`], with the BLAKE3 of the bytes the notebook was read from
/// (notebook.ron's, then its journal's whole lines): the same bytes always
/// give the same notebook, so a reader that kept this digest of a notebook
/// it has seen (an export's record) knows it unchanged without serialising
/// it again (issue 50). Different bytes may still hold the same notebook
/// (a compaction); the digest says nothing then.
pub fn load_digested(dir: &Path) -> Result<(Notebook, String), LoadError> {
    load_read(dir, true).map(|(notebook, _, digest)| (notebook, digest.unwrap_or_default()))
}

/// [`load_stamped`], with the digest of [`load_digested`] when `digest`.
fn load_read(dir: &Path, digest: bool) -> Result<(Notebook, Stamp, Option<String>), LoadError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        // The journal first: a compaction landing between the two reads
        // then leaves lines the new snapshot already holds (skipped), never
        // a snapshot missing lines it was read without.
        let journal = read_journal(dir)?;
        let (bytes, meta, path) = read_notebook_file(dir)?;
        // The bytes hashed once: the cache's key is the digest so far.
        let mut hashed = crate::digest::Blake3Parts::default();
        hashed.part(&bytes);
        let key = (bounded::without_bom(&bytes).len() == bytes.len()).then(|| hashed.hex());
        let (mut notebook, token) = parse_snapshot_keyed(&bytes, &path, key)?;
        let tail = match &token {
            Some(token) => match journal::replay(&mut notebook, token, &journal) {
                Ok(tail) => tail,
                // A compaction between the two reads; read them again.
                Err(_) if attempt < 3 => continue,
                Err(broken) => {
                    return Err(LoadError::Syntax {
                        path: journal_file(dir),
                        line: broken.line,
                        column: 1,
                        message: broken.message,
                    });
                }
            },
            None if journal::whole_lines(&journal).next().is_some() => {
                return Err(LoadError::Invalid {
                    path: journal_file(dir),
                    message: "a journal beside a notebook.ron that names none (edited by hand?)".into(),
                });
            }
            None => crate::digest::sha256_hex(&bytes),
        };
        notebook.validate().map_err(|message| LoadError::Invalid { path: path.clone(), message })?;
        let whole = journal::whole_len(&journal);
        let digest = digest.then(|| {
            hashed.part(&journal[..whole]);
            hashed.hex()
        });
        let older = snapshot_schema(&bytes).is_none_or(|schema| schema < SCHEMA_VERSION);
        let stamp = Stamp {
            len: bytes.len() as u64,
            modified: meta.modified().ok(),
            token,
            journal_len: whole as u64,
            tail,
            older,
        };
        return Ok((notebook, stamp, digest));
    }
}

/// The notebook in `dir` when it is no longer what `known` saw — read
/// again only when notebook.ron's size or time or the journal's length
/// moved. Given `base`, the notebook `known` is the stamp of, a change that
/// only appended to the journal is read as those lines alone, applied to a
/// copy of `base` (the window's follow of another writer's note costs that
/// note, not the notebook). `Ok(None)`: unchanged (the stamp is refreshed
/// when only the time moved).
pub fn reload_if_changed(
    dir: &Path,
    known: &mut Stamp,
    base: Option<&Notebook>,
) -> Result<Option<Notebook>, LoadError> {
    let path = notebook_file(dir);
    let meta = std::fs::metadata(&path).map_err(|source| bounded::ReadError::Io { path: path.clone(), source })?;
    let journal_len = std::fs::metadata(journal_file(dir)).map_or(0, |m| m.len());
    if known.same_files(&meta, journal_len) {
        return Ok(None);
    }
    if let Some(base) = base.filter(|_| known.same_snapshot(&meta) && journal_len > known.journal_len)
        && let Some((notebook, stamp)) = read_tail(dir, known, base)
    {
        *known = stamp;
        return Ok(Some(notebook));
    }
    let (notebook, stamp) = load_stamped(dir)?;
    let same = stamp.same_content(known);
    *known = stamp;
    Ok((!same).then_some(notebook))
}

/// `base` with the journal lines appended since `known`, and their stamp;
/// `None` when they do not follow on from what `known` saw (the journal
/// was compacted and begun again, say), and the whole must be read.
fn read_tail(dir: &Path, known: &Stamp, base: &Notebook) -> Option<(Notebook, Stamp)> {
    let mut file = File::open(journal_file(dir)).ok()?;
    io::Seek::seek(&mut file, io::SeekFrom::Start(known.journal_len)).ok()?;
    let mut tail = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(file, MAX_NOTEBOOK_BYTES), &mut tail).ok()?;
    let mut notebook = base.clone();
    let follows = journal::replay(&mut notebook, &known.tail, &tail).ok()?;
    notebook.validate().ok()?;
    let journal_len = known.journal_len + journal::whole_len(&tail) as u64;
    Some((notebook, Stamp { journal_len, tail: follows, ..known.clone() }))
}

/// When the notebook in `dir` last changed: the later of notebook.ron's
/// time and its journal's.
pub fn modified(dir: &Path) -> Option<std::time::SystemTime> {
    let time = |p: PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    time(notebook_file(dir)).max(time(journal_file(dir)))
}

/// A [`change_stamped`] that was applied and saved.
#[derive(Debug)]
pub struct Changed<T> {
    /// What the edit returned.
    pub value: T,
    /// The notebook as saved: the file as it was, with the edit applied.
    pub notebook: Notebook,
    /// The stamp of what was saved.
    pub stamp: Stamp,
    /// True when the file was not what `known` saw: another program changed
    /// it since, and its change is kept under this one.
    pub changed_elsewhere: bool,
}

/// Writes `notebook` whole in place of the folder's — notebook.ron
/// rewritten, the journal folded away — under the lock: for a notebook
/// built in memory (a test's fixture), never for a change to the log,
/// which goes through [`change`] so no other writer's change is lost.
pub fn replace(dir: &Path, notebook: &Notebook) -> Result<(), ChangeError> {
    loop {
        let locked = lock(dir)?;
        match compact(&OsStorage, dir, notebook, &locked.loaded, &locked.held) {
            Err(e) if e.step == SaveStep::LockLost => continue,
            done => return done.map(drop).map_err(ChangeError::Save),
        }
    }
}

/// [`change`] for a writer that keeps a [`Stamp`] of what it last saw (the
/// window), so it can tell the user when it applied its edit to a file that
/// another program had changed.
pub fn change_stamped<T, E: std::error::Error>(
    dir: &Path,
    known: Option<&Stamp>,
    edit: impl FnMut(&mut Notebook) -> Result<T, E>,
) -> Result<Changed<T>, ChangeError<E>> {
    transact(dir, known, edit, |_, _| ()).map(|(changed, ())| changed)
}

/// [`change`], then `after` — still under the lock, once the change is on
/// disk — for a writer whose change has a companion file that must not
/// interleave with another writer's (merge's export record). Returns what
/// both returned and the notebook as saved.
pub fn change_then<T, A, E: std::error::Error>(
    dir: &Path,
    edit: impl FnMut(&mut Notebook) -> Result<T, E>,
    after: impl FnOnce(&T, &Notebook) -> A,
) -> Result<(T, A, Notebook), ChangeError<E>> {
    transact(dir, None, edit, after).map(|(c, a)| (c.value, a, c.notebook))
}

/// The one way a notebook is changed (N10): lock → load the notebook as it
/// is now → `edit` → append what changed to the journal (synced) → `after`
/// → unlock. [`add_note`] and [`set_environment`] take the same lock and
/// append the same way without the load.
///
/// The lock is checked after it is taken and again just before the change
/// is committed: if its file was deleted or replaced meanwhile (another
/// writer may then hold "the" lock too), nothing is committed, and the lock
/// is taken again, the notebook reloaded and `edit` applied anew — so
/// `edit` must change nothing but the notebook it is given.
fn transact<T, A, E: std::error::Error>(
    dir: &Path,
    known: Option<&Stamp>,
    mut edit: impl FnMut(&mut Notebook) -> Result<T, E>,
    after: impl FnOnce(&T, &Notebook) -> A,
) -> Result<(Changed<T>, A), ChangeError<E>> {
    loop {
        let mut locked = lock(dir)?;
        let value = edit(locked.notebook_mut()).map_err(ChangeError::Refused)?;
        let changed_elsewhere = known.is_some_and(|k| !k.same_content(&locked.loaded));
        // The lock is let go only after `after`, which must not interleave
        // with another writer.
        let stamp = match locked.write(&OsStorage) {
            Err(e) if e.step == SaveStep::LockLost => continue,
            stamp => stamp?,
        };
        let also = after(&value, &locked.notebook);
        return Ok((Changed { value, notebook: locked.notebook, stamp, changed_elsewhere }, also));
    }
}

impl<E: std::error::Error> From<LockedError> for ChangeError<E> {
    fn from(e: LockedError) -> Self {
        match e {
            LockedError::Lock(e) => Self::Save(e),
            LockedError::Load(e) => Self::Load(e),
        }
    }
}

/// The bytes of the notebook file in `dir`, size-checked, with its metadata.
fn read_notebook_file(dir: &Path) -> Result<(Vec<u8>, std::fs::Metadata, PathBuf), LoadError> {
    let path = notebook_file(dir);
    // Its time is taken before it is read: a change landing in between then
    // only makes the next look read the file once more, never miss it.
    let meta = match std::fs::metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(LoadError::NotANotebook { path: dir.to_path_buf() });
        }
        meta => meta.map_err(|source| bounded::ReadError::Io { path: path.clone(), source })?,
    };
    let bytes = match bounded::read_bounded(&path, MAX_NOTEBOOK_BYTES, "a notebook") {
        Err(e) if e.is_not_found() => return Err(LoadError::NotANotebook { path: dir.to_path_buf() }),
        read => read?,
    };
    Ok((bytes, meta, path))
}

/// The journal's bytes, size-checked; empty when there is none.
fn read_journal(dir: &Path) -> Result<Vec<u8>, LoadError> {
    let path = journal_file(dir);
    refuse_unless_regular(&path).map_err(|source| bounded::ReadError::Io { path: path.clone(), source })?;
    match bounded::read_bounded(&path, MAX_NOTEBOOK_BYTES, "a notebook's journal") {
        Err(e) if e.is_not_found() => Ok(Vec::new()),
        read => Ok(read?),
    }
}

/// The bytes read of notebook.ron's head: enough for its version and token.
const HEAD_BYTES: u64 = 4096;

/// notebook.ron's journal token as its head states it (`None` when it
/// names none, the head is not as Vernier writes it, or an older schema
/// wrote it: the change then takes the whole way, which writes the file
/// anew), and its metadata; a newer schema is refused here as on a load.
fn read_head(dir: &Path) -> Result<(Option<String>, std::fs::Metadata), LoadError> {
    let path = notebook_file(dir);
    let io_error = |source| LoadError::from(bounded::ReadError::Io { path: path.clone(), source });
    let file = File::open(&path).map_err(io_error)?;
    let meta = file.metadata().map_err(io_error)?;
    let mut start = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(file, HEAD_BYTES), &mut start).map_err(io_error)?;
    let text = String::from_utf8_lossy(bounded::without_bom(&start)).into_owned();
    let Some((schema, token)) = head(&text) else { return Ok((None, meta)) };
    if schema > SCHEMA_VERSION {
        return Err(LoadError::NewerSchema { path, found: schema, supported: SCHEMA_VERSION });
    }
    Ok((token.filter(|t| crate::digest::is_sha256(t) && schema == SCHEMA_VERSION), meta))
}

/// The schema version at the head of `bytes` of a notebook.ron as Vernier
/// writes it.
fn snapshot_schema(bytes: &[u8]) -> Option<u32> {
    let bytes = bounded::without_bom(bytes);
    head(&String::from_utf8_lossy(&bytes[..bytes.len().min(HEAD_BYTES as usize)])).map(|(schema, _)| schema)
}

/// The schema version and journal token at the head of a notebook.ron as
/// Vernier writes it (comments, `Notebook(`, `schema: N,`, then
/// `journal: Some("…"),` where there is one); `None` when it is not so.
fn head(text: &str) -> Option<(u32, Option<String>)> {
    let mut rest = text.trim_start();
    while let Some(comment) = rest.strip_prefix("//") {
        rest = comment.split_once('\n')?.1.trim_start();
    }
    let rest = value_of(rest.strip_prefix("Notebook")?.trim_start().strip_prefix('(')?, "schema")?;
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let schema = rest[..digits].parse().ok()?;
    let rest = rest[digits..].trim_start().strip_prefix(',')?;
    let token = value_of(rest, "journal").and_then(|value| {
        let value = value.strip_prefix("Some(").unwrap_or(value).strip_prefix('"')?;
        Some(value[..value.find('"')?].to_owned())
    });
    Some((schema, token))
}

/// What follows `name:` at the start of `text`, blanks skipped.
fn value_of<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    Some(text.trim_start().strip_prefix(name)?.trim_start().strip_prefix(':')?.trim_start())
}

/// Parses the bytes of a `notebook.ron` standing alone (a copy kept in a
/// workbook); `path` is only used in messages.
pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Notebook, LoadError> {
    let (notebook, _) = parse_snapshot(bytes, path)?;
    notebook.validate().map_err(|message| LoadError::Invalid { path: path.to_path_buf(), message })?;
    Ok(notebook)
}

/// Parses a `notebook.ron` into its notebook (not yet validated: its
/// journal may follow) and the token its journal follows.
fn parse_snapshot(bytes: &[u8], path: &Path) -> Result<(Notebook, Option<String>), LoadError> {
    parse_snapshot_keyed(bytes, path, None)
}

/// [`parse_snapshot`], `key` the parsed cache's key of `bytes` when the
/// caller has hashed them already ([`parsed::Entry::of`]).
fn parse_snapshot_keyed(
    bytes: &[u8],
    path: &Path,
    key: Option<String>,
) -> Result<(Notebook, Option<String>), LoadError> {
    let bytes = bounded::without_bom(bytes);
    // The same bytes parsed before give the same file (issue 50: a large
    // notebook's parse is most of a command's time). An entry is kept only
    // for bytes that were UTF-8 RON of a schema this build reads, so a
    // found entry needs neither asked again.
    let cached = parsed::Entry::of(bytes, key);
    let file = match cached.as_ref().and_then(parsed::Entry::read) {
        Some(file) => file,
        None => {
            let mut file = parse_text(bytes, path)?;
            if let Some(entry) = &cached {
                entry.write(&mut file);
            }
            file
        }
    };
    let token = file.journal.clone();
    let mut notebook =
        Notebook::try_from(file).map_err(|message| LoadError::Invalid { path: path.to_path_buf(), message })?;
    notebook.schema = SCHEMA_VERSION;
    Ok((notebook, token))
}

/// Parses the RON of a `notebook.ron` (without its byte-order mark), after
/// its schema version says this build reads it.
fn parse_text(bytes: &[u8], path: &Path) -> Result<super::file::NotebookFile, LoadError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_column(&bytes[..e.valid_up_to()]);
        LoadError::Syntax { path: path.to_path_buf(), line, column, message: "not UTF-8 text".into() }
    })?;

    /// Only the version, read first so a newer file is refused by version
    /// rather than by whatever field it added — from the head where it is
    /// as Vernier writes it, else by a parse of the whole.
    #[derive(Deserialize)]
    #[serde(rename = "Notebook")]
    struct Probe {
        schema: u32,
    }
    let found = match head(text) {
        Some((schema, _)) => schema,
        None => ron::from_str::<Probe>(text).map_err(|e| syntax(path, &e))?.schema,
    };
    supported(found, path)?;
    ron::from_str(text).map_err(|e| syntax(path, &e))
}

/// A notebook of schema `found` is one this build reads. Version 1 lacks
/// the `writing` section and versions 1–2 the snapshots, which default to
/// empty: the same parse reads them, and the next save writes the current
/// version, so an older Vernier then refuses the file by version, not by
/// field.
fn supported(found: u32, path: &Path) -> Result<(), LoadError> {
    match found {
        1..=SCHEMA_VERSION => Ok(()),
        v if v > SCHEMA_VERSION => {
            Err(LoadError::NewerSchema { path: path.to_path_buf(), found: v, supported: SCHEMA_VERSION })
        }
        v => Err(LoadError::Invalid {
            path: path.to_path_buf(),
            message: format!("schema version {v} was never written by Vernier"),
        }),
    }
}

fn syntax(path: &Path, e: &ron::error::SpannedError) -> LoadError {
    LoadError::Syntax {
        path: path.to_path_buf(),
        line: e.span.start.line,
        column: e.span.start.col,
        message: e.code.to_string(),
    }
}

/// 1-based line and column just after `prefix`.
fn line_column(prefix: &[u8]) -> (usize, usize) {
    let line = prefix.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = prefix.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, column)
}
