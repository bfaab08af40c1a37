//! What an audit found of each raw file it read whole, remembered by what
//! tells a file's versions apart (issue 50). An audit reads every row's
//! raw file, hashes it and summarises its trials again (A3, N16): on a
//! semester's notebook, 10 000 files and most of the audit's time. A file
//! whose device, inode, size, modification and change times
//! ([`FileIdentity`]) are those it had when this user's Vernier last read
//! it, for a row that says the same, is the same file and gives the same
//! finding (or none): it is not read again.
//!
//! Like the parsed notebooks beside it ([`super::parsed`]), what is kept
//! is in the user's own cache folder, never in a notebook folder where a
//! classmate's files could plant it; one file per notebook folder, named
//! by the BLAKE3 of the folder's real path. Only a file that changed at
//! least [`SETTLED`] before the audit began is remembered (a change within
//! one tick of the file system's clock could leave its times as they were),
//! and only where the raw files' change times are the running kernel's
//! ([`kernel_keeps_change_times`]): on a USB stick, a network share or
//! Windows nothing is, and every file is read, as before. What one build
//! of Vernier found is not taken by another (the entry names the program's
//! size and time). A failure to read or write this costs only the time it
//! would have saved; `VERNIER_CACHE_DIR` set empty turns it off.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::bounded;
use crate::os::fs::{FileIdentity, kernel_keeps_change_times};

/// How long before the audit a file must have last changed to be
/// remembered: well over any file system's clock tick.
const SETTLED: Duration = Duration::from_secs(2);
/// A kept file larger than this is someone's mischief: not read.
const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// What a kept file's first line says: this program, by its version and
/// its file's size and modification time, so another build (whose checks
/// may differ) never takes what this one found.
fn magic() -> String {
    let program = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let time = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            format!("{} {}", m.len(), time.map_or(0, |t| t.as_nanos()))
        })
        .unwrap_or_default();
    format!("vernier-verified {} {program}\n", env!("CARGO_PKG_VERSION"))
}

/// What one raw file was found to be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Found {
    identity: FileIdentity,
    /// The SHA-256 its row records.
    sha256: String,
    /// What the row said that its check read (see [`Verified::recall`]).
    row: String,
    /// Why the row failed its check, or `None` when it passed.
    problem: Option<String>,
}

/// What this user's Vernier remembers of one notebook folder's raw files,
/// for one audit.
#[derive(Debug)]
pub struct Verified {
    /// Where it is kept; `None` when there is no cache folder.
    file: Option<PathBuf>,
    /// As read when the audit began.
    remembered: HashMap<String, Found>,
    /// What this audit found, recalled or read: what is kept afterwards (a
    /// file no row names any more is forgotten).
    found: HashMap<String, Found>,
    began: SystemTime,
}

impl Verified {
    /// What is remembered of the raw files of the notebook folder `dir`:
    /// nothing, and nothing kept, unless its `raw/` is on a file system
    /// whose change times are the kernel's.
    pub fn of(dir: &Path) -> Verified {
        let kept_by_kernel = kernel_keeps_change_times(&dir.join(super::RAW_DIR));
        let file = dir.canonicalize().ok().filter(|_| kept_by_kernel).and_then(|real| {
            let key = blake3::hash(real.as_os_str().as_encoded_bytes()).to_hex();
            Some(super::parsed::folder()?.join(format!("{key}.verified")))
        });
        let remembered = file.as_deref().and_then(read).unwrap_or_default();
        Verified { file, remembered, found: HashMap::new(), began: SystemTime::now() }
    }

    /// What was found of the raw file `path` (as its row names it), now
    /// `identity`, when it was last read as it is now, for a row recording
    /// `sha256` whose check read `row` (what the row says its trials give):
    /// `Some(None)` when the row passed, `Some(Some(why))` when it failed,
    /// `None` when nothing is known of this file as it is now.
    pub fn recall(
        &mut self,
        path: &str,
        identity: Option<FileIdentity>,
        sha256: &str,
        row: &str,
    ) -> Option<Option<String>> {
        self.file.as_ref()?;
        let identity = identity?;
        let found =
            self.remembered.get(path).filter(|f| f.identity == identity && f.sha256 == sha256 && f.row == row)?;
        self.found.insert(path.to_owned(), found.clone());
        Some(found.problem.clone())
    }

    /// Remembers what was found reading the raw file `path`, `identity`
    /// the file read (from its open handle, not its path, which may name
    /// another file by then; see [`Verified::recall`]), unless it changed
    /// too recently to be told apart from its next version.
    pub fn found(
        &mut self,
        path: &str,
        identity: Option<FileIdentity>,
        sha256: &str,
        row: &str,
        problem: Option<&str>,
    ) {
        let Some(identity) = identity.filter(|i| self.file.is_some() && i.settled(self.began, SETTLED)) else {
            return;
        };
        let found =
            Found { identity, sha256: sha256.to_owned(), row: row.to_owned(), problem: problem.map(str::to_owned) };
        self.found.insert(path.to_owned(), found);
    }

    /// Keeps what this audit found, when it is not what was remembered;
    /// quietly nothing when it cannot be written.
    pub fn keep(self) {
        let Some(file) = self.file else { return };
        if self.found == self.remembered {
            return;
        }
        let Some(dir) = file.parent() else { return };
        let Ok(body) = rmp_serde::to_vec(&self.found) else { return };
        let written = (|| -> std::io::Result<()> {
            let mut temp = tempfile::NamedTempFile::new_in(dir)?;
            temp.write_all(magic().as_bytes())?;
            temp.write_all(&body)?;
            temp.as_file().sync_all()?;
            temp.persist(&file).map_err(|e| e.error)?;
            Ok(())
        })();
        if written.is_ok() {
            super::parsed::forget_old(dir, "verified");
        }
    }
}

/// What was found, kept in `file`, or `None` when it is missing, another
/// build's, or does not read back whole.
fn read(file: &Path) -> Option<HashMap<String, Found>> {
    let bytes = bounded::read_bounded(file, MAX_BYTES, "what the audit remembers").ok()?;
    rmp_serde::from_slice(bytes.strip_prefix(magic().as_bytes())?).ok()
}
