//! The notebook folder on disk (SPEC N1, N7, N8): creating it, loading
//! `notebook.ron` with its schema version, and saving it atomically.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::Notebook;
use super::error::{CreateError, LoadError, NotebookError, SaveError, SaveStep};
use crate::bounded;

mod leftovers;
mod lock;
pub use leftovers::{Leftover, Writer, find as leftovers, reservation_text, writer_tag};
pub use lock::{
    FIRST_WORD, FolderLock, Holder, LOCK_FILE, LockError, LockWait, REPEAT_EVERY, Waiting, set_lock_wait,
    set_thread_lock_wait,
};

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
/// instead of failing on a field it does not know. Older files are read and
/// saved as version 5, their rows as recorded.
pub const SCHEMA_VERSION: u32 = 5;
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
    /// Removes a file (used to clean up after a failed save).
    fn remove(&self, path: &Path) -> io::Result<()>;
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
pub fn atomic_write<S: Storage>(storage: &S, target: &Path, bytes: &[u8]) -> Result<(), SaveError> {
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
        match write_text(&OsStorage, dir, notebook, Some(&held)) {
            Err(e) if e.step == SaveStep::LockLost => continue,
            done => return done.map(drop).map_err(CreateError::from),
        }
    }
}

/// The folder's lock, held, with `notebook.ron` as it is on disk now: the
/// one way to write the file (N10). Change [`Locked::notebook_mut`], then
/// [`Locked::save`]; dropped unsaved, it writes nothing. [`change`] and its
/// kin wrap it for the usual case, retrying when the lock was lost.
#[derive(Debug)]
pub struct Locked {
    dir: PathBuf,
    held: FolderLock,
    notebook: Notebook,
    loaded: Stamp,
}

/// Why [`lock`] could not give a [`Locked`]: the lock (waiting was
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
    // A folder without a notebook gets no lock file, and no word of a
    // "previous version" that never was.
    if std::fs::symlink_metadata(notebook_file(dir)).is_err_and(|e| e.kind() == io::ErrorKind::NotFound) {
        return Err(LoadError::NotANotebook { path: dir.to_path_buf() }.into());
    }
    let held = hold(dir)?;
    let (notebook, loaded) = load_stamped(dir)?;
    Ok(Locked { dir: dir.to_path_buf(), held, notebook, loaded })
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

    /// The stamp of the file as it was loaded under the lock.
    pub fn loaded(&self) -> &Stamp {
        &self.loaded
    }

    /// Saves the notebook atomically and lets the lock go. The save is
    /// committed only while the lock held is still the file at the lock's
    /// path ([`SaveStep::LockLost`] otherwise, nothing written: take the
    /// lock again and reapply). Returns the notebook as saved and the
    /// stamp of what was written.
    pub fn save(self) -> Result<(Notebook, Stamp), SaveError> {
        self.save_with(&OsStorage)
    }

    /// [`Locked::save`] through a given [`Storage`] (a test injects a
    /// failure into each step of the atomic save this way).
    pub fn save_with<S: Storage>(self, storage: &S) -> Result<(Notebook, Stamp), SaveError> {
        let stamp = self.write(storage)?;
        Ok((self.notebook, stamp))
    }

    /// Writes the notebook, still holding the lock (a writer with a
    /// companion file lets it go only after that file), and returns the
    /// stamp of what was written.
    fn write<S: Storage>(&self, storage: &S) -> Result<Stamp, SaveError> {
        let text = write_text(storage, &self.dir, &self.notebook, Some(&self.held))?;
        let meta = std::fs::metadata(self.dir.join(NOTEBOOK_FILE)).ok();
        Ok(Stamp::of(text.as_bytes(), meta.as_ref()))
    }
}

/// Takes the folder's lock alone, for what writes no `notebook.ron` under
/// it or writes the first one.
fn hold(dir: &Path) -> Result<FolderLock, SaveError> {
    let held = lock::lock(dir).map_err(|e| lock_error(dir, e))?;
    leftovers::remove_dead(dir);
    Ok(held)
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
/// `notebook.ron` that must not interleave with another (the six documents
/// and their record).
pub fn exclusive<T, E: From<SaveError>>(dir: &Path, work: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let _lock = hold(dir)?;
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
/// notebook (N10): lock the folder, load the file as it is now, apply
/// `edit`, save atomically, unlock. Returns what `edit` returned and the
/// notebook as saved.
pub fn change<T, E: std::error::Error>(
    dir: &Path,
    edit: impl FnMut(&mut Notebook) -> Result<T, E>,
) -> Result<(T, Notebook), ChangeError<E>> {
    change_stamped(dir, None, edit).map(|c| (c.value, c.notebook))
}

/// Renders `notebook`, refuses it when a load would not accept it back (the
/// file on disk stays as it was), writes it atomically and returns the text.
/// Under `held`, the save is committed only while that lock is still the
/// folder's ([`SaveStep::LockLost`] otherwise, nothing written).
fn write_text<S: Storage>(
    storage: &S,
    dir: &Path,
    notebook: &Notebook,
    held: Option<&FolderLock>,
) -> Result<String, SaveError> {
    let path = dir.join(NOTEBOOK_FILE);
    let text = to_text(notebook).map_err(|e| SaveError {
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

/// The notebook as the text of `notebook.ron`.
pub fn to_text(notebook: &Notebook) -> Result<String, ron::Error> {
    // ron ends lines with "\r\n" on Windows by default; one spelling on
    // every OS keeps a notebook the same file wherever it was saved.
    let config = ron::ser::PrettyConfig::new().struct_names(true).new_line("\n");
    Ok(format!("{HEADER}{}\n", ron::ser::to_string_pretty(notebook, config)?))
}

/// Loads the notebook in folder `dir` (or the `notebook.ron` given).
///
/// Integrity is not judged here: call [`Notebook::integrity`] on the result
/// and show what it finds.
pub fn load(dir: &Path) -> Result<Notebook, LoadError> {
    load_stamped(dir).map(|(notebook, _)| notebook)
}

/// What the notebook file held when this process last read or wrote it: a
/// change made elsewhere shows as a different stamp. Size and time decide
/// whether to read the file again; the hash, whether it really changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    sha256: String,
}

impl Stamp {
    fn of(bytes: &[u8], meta: Option<&std::fs::Metadata>) -> Self {
        Self {
            len: bytes.len() as u64,
            modified: meta.and_then(|m| m.modified().ok()),
            sha256: crate::digest::sha256_hex(bytes),
        }
    }

    /// True when size and time still match: the file need not be read.
    fn same_size_and_time(&self, meta: &std::fs::Metadata) -> bool {
        self.len == meta.len() && self.modified.is_some() && self.modified == meta.modified().ok()
    }
}

/// [`load`], with the [`Stamp`] of what was read.
pub fn load_stamped(dir: &Path) -> Result<(Notebook, Stamp), LoadError> {
    let (bytes, meta, path) = read_notebook_file(dir)?;
    let notebook = from_bytes(&bytes, &path)?;
    Ok((notebook, Stamp::of(&bytes, Some(&meta))))
}

/// The notebook in `dir` when it is no longer what `known` saw — re-read
/// only when its size or time moved, parsed only when its content did.
/// `Ok(None)`: unchanged (the stamp is refreshed when only the time moved).
pub fn reload_if_changed(dir: &Path, known: &mut Stamp) -> Result<Option<Notebook>, LoadError> {
    let path = notebook_file(dir);
    let meta = std::fs::metadata(&path).map_err(|source| bounded::ReadError::Io { path: path.clone(), source })?;
    if known.same_size_and_time(&meta) {
        return Ok(None);
    }
    let (bytes, meta, path) = read_notebook_file(dir)?;
    let stamp = Stamp::of(&bytes, Some(&meta));
    if stamp.sha256 == known.sha256 {
        *known = stamp;
        return Ok(None);
    }
    let notebook = from_bytes(&bytes, &path)?;
    *known = stamp;
    Ok(Some(notebook))
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

/// Writes `notebook` whole in place of the folder's, through [`lock`] —
/// for a notebook built in memory (a test's fixture), never for a change
/// to the log, which goes through [`change`] so no other writer's change
/// is lost.
pub fn replace(dir: &Path, notebook: &Notebook) -> Result<(), ChangeError> {
    change(dir, |nb| {
        *nb = notebook.clone();
        Ok::<_, NotebookError>(())
    })
    .map(drop)
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

/// The one way a notebook is changed (N10): lock → load the file as it is
/// now → `edit` → atomic save → `after` → unlock.
///
/// The lock is checked after it is taken and again just before the save is
/// committed: if its file was deleted or replaced meanwhile (another writer
/// may then hold "the" lock too), nothing is committed, and the lock is
/// taken again, the file reloaded and `edit` applied anew — so `edit` must
/// change nothing but the notebook it is given.
fn transact<T, A, E: std::error::Error>(
    dir: &Path,
    known: Option<&Stamp>,
    mut edit: impl FnMut(&mut Notebook) -> Result<T, E>,
    after: impl FnOnce(&T, &Notebook) -> A,
) -> Result<(Changed<T>, A), ChangeError<E>> {
    loop {
        let mut locked = lock(dir)?;
        let value = edit(locked.notebook_mut()).map_err(ChangeError::Refused)?;
        let changed_elsewhere = known.is_some_and(|k| k.sha256 != locked.loaded.sha256);
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

/// Parses the bytes of a `notebook.ron`; `path` is only used in messages.
pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Notebook, LoadError> {
    let bytes = bounded::without_bom(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_column(&bytes[..e.valid_up_to()]);
        LoadError::Syntax { path: path.to_path_buf(), line, column, message: "not UTF-8 text".into() }
    })?;

    /// Only the version, read first so a newer file is refused by version
    /// rather than by whatever field it added.
    #[derive(Deserialize)]
    #[serde(rename = "Notebook")]
    struct Probe {
        schema: u32,
    }
    let found = ron::from_str::<Probe>(text).map_err(|e| syntax(path, &e))?.schema;
    match found {
        // Version 1 lacks the `writing` section and versions 1–2 the
        // snapshots, which default to empty: the same parse reads them, and
        // the next save writes version 3, so an older Vernier then refuses
        // the file by version, not by field.
        1..=SCHEMA_VERSION => {}
        v if v > SCHEMA_VERSION => {
            return Err(LoadError::NewerSchema { path: path.to_path_buf(), found: v, supported: SCHEMA_VERSION });
        }
        v => {
            return Err(LoadError::Invalid {
                path: path.to_path_buf(),
                message: format!("schema version {v} was never written by Vernier"),
            });
        }
    }
    let mut notebook: Notebook = ron::from_str(text).map_err(|e| syntax(path, &e))?;
    notebook.schema = SCHEMA_VERSION;
    notebook.validate().map_err(|message| LoadError::Invalid { path: path.to_path_buf(), message })?;
    Ok(notebook)
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
