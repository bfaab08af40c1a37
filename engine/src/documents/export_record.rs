//! What the last export wrote (SPEC A17), kept in the notebook folder as
//! [`RECORD_FILE`]: for each export folder, each document's SHA-256 and the
//! notebook's. A document whose bytes no longer match was changed after
//! Vernier wrote it — most often by the student, in Word or a spreadsheet —
//! and is never replaced without being told to. The notebook's hash tells
//! the audit whether the documents still show the log as it is (A11).
//!
//! The record is a file of its own rather than part of `notebook.ron`: an
//! export changes no row of the log. It is not in the export folder, which
//! must hold exactly the six documents (A11, D1).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::digest::{blake3_hex_parts, sha256_hex};
use crate::notebook::store::{OutputFile, to_compact, to_text};
use crate::notebook::{Notebook, SaveError, SaveStep};

/// The record's file name in the notebook folder.
pub const RECORD_FILE: &str = ".vernier-exports.json";

/// A record larger than this is not one Vernier wrote.
const MAX_RECORD_BYTES: u64 = 1024 * 1024;

/// The last export into each folder, by [`folder_key`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Records {
    folders: BTreeMap<String, ExportRecord>,
}

/// The hashes of one export.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportRecord {
    /// BLAKE3 of the notebook's compact form as it was exported (the copy
    /// the workbook carries, [`to_compact`]): the same log gives the same
    /// digest on every OS. Absent in records written before it (issue 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notebook_blake3: Option<String>,
    /// SHA-256 of the notebook's text as it was exported, in records
    /// written before [`Self::notebook_blake3`]; empty in later ones.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notebook_sha256: String,
    /// The digest of the bytes the exported notebook was read from
    /// ([`load_digested`]), when the export knew it: an audit that read the
    /// same bytes knows the documents still show the log without
    /// serialising it to hash its text (issue 50). Absent in records
    /// written before, and by an export of a notebook kept in memory.
    ///
    /// [`load_digested`]: crate::notebook::store::load_digested
    /// BLAKE3 since issue 50's second pass: a record that kept a SHA-256
    /// here (under `notebook_read_sha256`) is read without it, and the
    /// audit then hashes the notebook's text as for any older record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notebook_read_blake3: Option<String>,
    /// SHA-256 of each document as written, by file name.
    pub files: BTreeMap<String, String>,
}

/// A document in the export folder that an export would overwrite and lose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    /// The file name, e.g. `report.docx`.
    pub name: String,
    /// Why it counts as edited.
    pub why: EditedWhy,
}

/// Why a document counts as edited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditedWhy {
    /// Its bytes differ from what the last export wrote.
    Changed,
    /// No export record names it: Vernier did not write it, or wrote it
    /// before it kept records, so its content cannot be vouched for.
    Unrecorded,
    /// The export record is there but cannot be read (not a regular file,
    /// too large, not Vernier's), so it vouches for nothing.
    RecordUnreadable,
}

impl std::fmt::Display for Edited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.why {
            EditedWhy::Changed => write!(f, "{} (changed since Vernier wrote it)", self.name),
            EditedWhy::Unrecorded => write!(f, "{} (not written by a recorded export)", self.name),
            EditedWhy::RecordUnreadable => write!(f, "{} (the export record {RECORD_FILE} cannot be read)", self.name),
        }
    }
}

impl ExportRecord {
    /// The record of the last export from notebook `dir` into `folder`, if
    /// there is a readable one. A record that cannot be read vouches for
    /// nothing, so every document present then counts as
    /// [`EditedWhy::Unrecorded`].
    pub fn read(dir: &Path, folder: &Path) -> Option<Self> {
        read_all(dir).ok()?.folders.remove(&folder_key(dir, folder))
    }

    /// The record of documents `written`, exported from the notebook whose
    /// compact form ([`to_compact`]) is `compact`: the copy the workbook
    /// carries, hashed here rather than serialised again. `read` is the
    /// digest of the bytes that notebook was read from, if known.
    pub fn of(compact: &[u8], read: Option<&str>, written: &[(&str, Vec<u8>)]) -> Self {
        Self {
            notebook_blake3: Some(blake3_hex_parts(&[compact])),
            notebook_sha256: String::new(),
            notebook_read_blake3: read.map(str::to_owned),
            files: written.iter().map(|(name, bytes)| ((*name).to_owned(), sha256_hex(bytes))).collect(),
        }
    }

    /// Keeps this as the record of `folder` in notebook `dir`, atomically
    /// (never through a link). The caller holds the notebook's lock.
    pub fn write(self, dir: &Path, folder: &Path) -> Result<(), SaveError> {
        // An unreadable record is replaced: the documents it would vouch
        // for were just written.
        let mut all = read_all(dir).unwrap_or_default();
        all.folders.insert(folder_key(dir, folder), self);
        let file = OutputFile::new(dir, RECORD_FILE)?;
        let path = file.path().to_path_buf();
        let text = serde_json::to_vec_pretty(&all).map_err(|e| SaveError {
            path: path.clone(),
            step: SaveStep::Serialize,
            source: std::io::Error::other(e),
        })?;
        file.write(&text)
    }
}

/// Every folder's record in notebook `dir`: none yet when there is no
/// record file, an error when there is one that cannot be read.
fn read_all(dir: &Path) -> Result<Records, ()> {
    let path = dir.join(RECORD_FILE);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(Records::default());
    }
    let bytes = crate::bounded::read_bounded(&path, MAX_RECORD_BYTES, "an export record").map_err(drop)?;
    serde_json::from_slice(&bytes).map_err(drop)
}

/// How a folder is named in the record: relative to the notebook when it is
/// inside it (so a moved notebook keeps its record), else its full path.
fn folder_key(dir: &Path, folder: &Path) -> String {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (dir, folder) = (real(dir), real(folder));
    match folder.strip_prefix(&dir) {
        Ok(inside) => inside.to_string_lossy().replace('\\', "/"),
        Err(_) => folder.to_string_lossy().into_owned(),
    }
}

/// Of the documents named `names`, those present in `folder` whose content
/// the last export from notebook `dir` into it does not vouch for.
pub fn edited(dir: &Path, folder: &Path, names: &[&str]) -> Vec<Edited> {
    let all = read_all(dir);
    let unreadable = all.is_err();
    let record = all.ok().and_then(|mut all| all.folders.remove(&folder_key(dir, folder)));
    names
        .iter()
        .filter_map(|&name| {
            let path = folder.join(name);
            // A name that is not a regular file is refused by the write.
            if !path.is_file() {
                return None;
            }
            let recorded = record.as_ref().and_then(|r| r.files.get(name));
            let why = match recorded {
                None if unreadable => EditedWhy::RecordUnreadable,
                None => EditedWhy::Unrecorded,
                Some(hash) => {
                    let bytes = crate::bounded::read_bounded(&path, super::MAX_DOCUMENT_BYTES, "a document").ok();
                    if bytes.is_some_and(|b| &sha256_hex(&b) == hash) {
                        return None;
                    }
                    EditedWhy::Changed
                }
            };
            Some(Edited { name: name.to_owned(), why })
        })
        .collect()
}

/// The digest that tells whether exported documents still show `nb`: of
/// its compact form, so the same log gives the same digest on every OS.
pub fn notebook_blake3(nb: &Notebook) -> String {
    blake3_hex_parts(&[&to_compact(nb).unwrap_or_default()])
}

impl ExportRecord {
    /// True when the documents this record vouches for no longer show `nb`
    /// (A11). `read` is the digest of the bytes `nb` was read from
    /// ([`load_digested`]): when the export recorded the same, the
    /// notebook is the one exported and is not serialised again; otherwise
    /// the digest of its compact form decides, or for a record written
    /// before that digest, its text's SHA-256.
    ///
    /// [`load_digested`]: crate::notebook::store::load_digested
    pub fn is_stale(&self, nb: &Notebook, read: Option<&str>) -> bool {
        if read.is_some() && self.notebook_read_blake3.as_deref() == read {
            return false;
        }
        match &self.notebook_blake3 {
            Some(digest) => *digest != notebook_blake3(nb),
            None => self.notebook_sha256 != sha256_hex(to_text(nb).unwrap_or_default().as_bytes()),
        }
    }
}
