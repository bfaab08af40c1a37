//! Raw trial files (SPEC N6): one row per trial, the conditions as `#`
//! comments on top. Written once into `raw/`, never modified; the notebook
//! keeps their SHA-256.

use std::fmt::Write as _;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::TrialRecord;
use crate::notebook::store::{self, OsStorage, RAW_DIR};
use crate::notebook::{NotebookPath, PathError, RawFile, SaveError};

/// The CSV header.
pub const HEADER: &str = "index,arm,position,warmup,ns,exit_status";

/// A raw file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum RawError {
    /// Writing the file failed.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// `raw/` could not be created.
    #[error("cannot create {}: {source}", path.display())]
    Folder {
        /// The folder.
        path: std::path::PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// The generated name was refused (cannot happen with Vernier's names).
    #[error(transparent)]
    Path(#[from] PathError),
}

/// The file's text: `comments` as `#` lines, then one row per trial.
pub fn render(comments: &[String], trials: &[TrialRecord]) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "# Vernier raw trials — written once; the notebook keeps this file's SHA-256");
    for comment in comments {
        // A comment must stay on its line: a newline would start a data row.
        let _ = writeln!(out, "# {}", comment.replace(['\n', '\r'], " "));
    }
    out.push_str(HEADER);
    out.push('\n');
    for t in trials {
        let arm = if t.arm == 0 { "A" } else { "B" };
        let _ = writeln!(out, "{},{arm},{},{},{},{}", t.index, t.position, u8::from(t.warmup), t.ns, t.status);
    }
    out
}

/// Writes `text` to `raw/STEM.csv` in the notebook `dir` — or `STEM-2.csv`,
/// `STEM-3.csv` … since a raw file is never overwritten — and returns its
/// path and SHA-256.
pub fn write_once(dir: &Path, stem: &str, text: &str) -> Result<RawFile, RawError> {
    let raw_dir = dir.join(RAW_DIR);
    std::fs::create_dir_all(&raw_dir).map_err(|source| RawError::Folder { path: raw_dir.clone(), source })?;
    let name = (1..)
        .map(|k| if k == 1 { format!("{stem}.csv") } else { format!("{stem}-{k}.csv") })
        .find(|n| !raw_dir.join(n).exists())
        .unwrap_or_else(|| format!("{stem}.csv"));
    let path = NotebookPath::new(format!("{RAW_DIR}/{name}"))?;
    store::atomic_write(&OsStorage, &raw_dir.join(&name), text.as_bytes())?;
    Ok(RawFile { path, sha256: sha256_hex(text.as_bytes()) })
}

/// SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::notebook::hex(&Sha256::digest(bytes))
}
