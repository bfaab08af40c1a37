//! The notebook folder on disk (SPEC N1, N7, N8): creating it, loading
//! `notebook.ron` with its schema version, and saving it atomically.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::Notebook;
use super::error::{CreateError, LoadError, SaveError, SaveStep};
use crate::bounded;

/// The log's file name inside a notebook folder.
pub const NOTEBOOK_FILE: &str = "notebook.ron";
/// Raw trial files, written once (N6).
pub const RAW_DIR: &str = "raw";
/// Generated documents.
pub const EXPORTS_DIR: &str = "exports";
/// The schema version this build writes. Version 2 added the documents'
/// writing (answers, citations, placement deadlines); version 1 files are
/// read and saved as version 2.
pub const SCHEMA_VERSION: u32 = 2;
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
    /// Creates (or truncates) a file for writing.
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
        File::create(path)
    }
    fn sync(&self, file: &mut File) -> io::Result<()> {
        file.sync_all()
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }
}

/// Replaces `target` with `bytes` so that a crash at any instant leaves
/// either the old or the new content (N7): temporary file in the same
/// folder, flush, fsync, rename, fsync the folder.
pub fn atomic_write<S: Storage>(storage: &S, target: &Path, bytes: &[u8]) -> Result<(), SaveError> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp"));
    let fail = |step| move |source| SaveError { path: target.to_path_buf(), step, source };

    let staged = (|| {
        let mut file = storage.create(&temp).map_err(fail(SaveStep::CreateTemp))?;
        file.write_all(bytes).map_err(fail(SaveStep::Write))?;
        file.flush().map_err(fail(SaveStep::Write))?;
        storage.sync(&mut file).map_err(fail(SaveStep::SyncTemp))?;
        drop(file);
        storage.rename(&temp, target).map_err(fail(SaveStep::Rename))
    })();
    if staged.is_err() {
        // The save error is what matters; a temporary file left behind is
        // overwritten by the next save.
        let _ = storage.remove(&temp);
    }
    staged?;
    storage.sync_dir(dir).map_err(fail(SaveStep::SyncFolder))
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
    let file = dir.join(NOTEBOOK_FILE);
    if file.exists() {
        return Err(CreateError::Exists { path: file });
    }
    for sub in [dir.to_path_buf(), dir.join(RAW_DIR), dir.join(EXPORTS_DIR)] {
        std::fs::create_dir_all(&sub).map_err(|source| CreateError::Io { path: sub.clone(), source })?;
    }
    let notebook = Notebook::new(title, at);
    save(dir, &notebook)?;
    Ok(notebook)
}

/// Saves `notebook` into the folder `dir` atomically; a notebook larger
/// than a load accepts is refused and the file on disk stays as it was.
pub fn save(dir: &Path, notebook: &Notebook) -> Result<(), SaveError> {
    save_with(&OsStorage, dir, notebook)
}

/// [`save`] through a given [`Storage`].
pub fn save_with<S: Storage>(storage: &S, dir: &Path, notebook: &Notebook) -> Result<(), SaveError> {
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
    atomic_write(storage, &path, text.as_bytes())
}

/// The notebook as the text of `notebook.ron`.
pub fn to_text(notebook: &Notebook) -> Result<String, ron::Error> {
    let config = ron::ser::PrettyConfig::new().struct_names(true);
    Ok(format!("{HEADER}{}\n", ron::ser::to_string_pretty(notebook, config)?))
}

/// Loads the notebook in folder `dir` (or the `notebook.ron` given).
///
/// Integrity is not judged here: call [`Notebook::integrity`] on the result
/// and show what it finds.
pub fn load(dir: &Path) -> Result<Notebook, LoadError> {
    let path = notebook_file(dir);
    let bytes = match bounded::read_bounded(&path, MAX_NOTEBOOK_BYTES, "a notebook") {
        Err(e) if e.is_not_found() => return Err(LoadError::NotANotebook { path: dir.to_path_buf() }),
        read => read?,
    };
    from_bytes(&bytes, &path)
}

/// Parses the bytes of a `notebook.ron`; `path` is only used in messages.
pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Notebook, LoadError> {
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
        // Version 1 lacks the `writing` section, which defaults to empty:
        // the same parse reads it, and the save below writes version 2, so
        // an older Vernier then refuses the file by version, not by field.
        1 | SCHEMA_VERSION => {}
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
