//! The one way for code outside the store to write a file: a document, the
//! export record, a raw file. It writes atomically, as the store does
//! (N7), but only a plain name inside a folder and never one of the
//! store's own files, so the notebook itself is written by the store alone
//! (N1, N10).

use std::path::{Component, Path, PathBuf};

use super::{JOURNAL_FILE, LOCK_FILE, NOTEBOOK_FILE, OsStorage, SaveError, SaveStep, atomic_write};

/// What every file the store keeps for itself starts with (the notebook,
/// its journal, a recovery file), besides the lock's own name.
const STORE_PREFIX: &str = "notebook.";

/// A file in a folder that is not the store's: write it with [`Self::write`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    path: PathBuf,
}

impl OutputFile {
    /// `name` in `folder`. Refused: a name that is not one plain file name
    /// (empty, a separator, `..`), or that names one of the store's files.
    pub fn new(folder: &Path, name: &str) -> Result<Self, SaveError> {
        let path = folder.join(name);
        let refuse = |why: &str| SaveError {
            path: path.clone(),
            step: SaveStep::Confine,
            source: std::io::Error::other(why.to_owned()),
        };
        let mut parts = Path::new(name).components();
        if !matches!((parts.next(), parts.next()), (Some(Component::Normal(_)), None)) || name.contains(['/', '\\']) {
            return Err(refuse("not a plain file name"));
        }
        if is_store_file(name) {
            return Err(refuse("this name is the notebook's own file, written by its store only"));
        }
        Ok(Self { path })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the file with `bytes`: the old content or the new after a
    /// crash, never a link followed or anything but a regular file replaced.
    pub fn write(&self, bytes: &[u8]) -> Result<(), SaveError> {
        atomic_write(&OsStorage, &self.path, bytes)
    }
}

/// Whether `name` is one the store keeps for itself, compared as Windows
/// and macOS compare names (without case).
fn is_store_file(name: &str) -> bool {
    let name = name.to_lowercase();
    [NOTEBOOK_FILE, JOURNAL_FILE, LOCK_FILE].iter().any(|own| name == *own) || name.starts_with(STORE_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N1, N10: only the store writes the notebook; a writer for
    // documents and raw files cannot be pointed at it.
    #[test]
    fn the_store_files_and_paths_are_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        for name in ["notebook.ron", "NOTEBOOK.RON", "notebook.journal.ron", ".vernier.lock", "notebook.unsaved-1.ron"]
        {
            let e = OutputFile::new(dir.path(), name).expect_err(name);
            assert_eq!(e.step, SaveStep::Confine, "{name}");
        }
        for name in ["", "..", "../x.docx", "raw/run-1.csv", "/etc/passwd", "a\\b"] {
            assert!(OutputFile::new(dir.path(), name).is_err(), "{name:?} accepted");
        }
        assert!(!dir.path().join("notebook.ron").exists());
    }

    #[test]
    fn a_plain_name_is_written_whole() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = OutputFile::new(dir.path(), "report.docx").expect("plain name");
        out.write(b"one").expect("written");
        out.write(b"two").expect("replaced");
        assert_eq!(std::fs::read(dir.path().join("report.docx")).expect("read"), b"two");
        assert_eq!(out.path(), dir.path().join("report.docx"));
    }
}
