//! A large `notebook.ron`, parsed once (issue 50): the RON parse of a
//! semester's notebook (10 000 runs, ~20 MB) costs most of a `show`, an
//! `export` or an `audit`, so what it gives is kept in the user's own cache
//! folder, in a form read about eight times faster (MessagePack with field
//! names: self-describing, floats bit for bit), named by the BLAKE3 of the
//! file's exact bytes. The rows, nearly all of it, are kept in [`PARTS`]
//! parts, each framed by its length, so that they are read on every CPU at
//! once ([`crate::shared_work`]); the rest of the file is one more part,
//! first, and the counts of parts and rows come before them all.
//!
//! The notebook shown is always the one the RON holds: an entry is found
//! only by the hash of the bytes just read, was written only by this user's
//! Vernier from those very bytes, and repeats its key inside; any entry
//! that does not read back whole is ignored and the RON parsed again. The
//! cache is never in a notebook folder, where a classmate's files could
//! plant an entry for the bytes they also wrote. It holds a few entries
//! (the least recently used go); a failure to read or write it costs only
//! the time it would have saved.
//!
//! `VERNIER_CACHE_DIR` names another folder; set empty, it turns the cache
//! off. The same folder keeps what the audit found of a folder's raw files
//! ([`super::verified`]).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::bounded;
use crate::notebook::file::{NotebookFile, RunFile};

/// Smaller files parse in a few milliseconds: not worth an entry.
const WORTH_CACHING: usize = 1024 * 1024;
/// Entries kept; the least recently used beyond this are removed.
const ENTRIES: usize = 8;
/// The parts an entry's rows are kept in: enough for the CPUs of a
/// student's laptop to share the read evenly.
const PARTS: usize = 8;
/// What an entry's first line says: this build's encoding of this schema,
/// so a newer or older Vernier never reads another's entry.
fn magic() -> String {
    format!("vernier-parsed {} schema {} rmp-named-parts-counted\n", env!("CARGO_PKG_VERSION"), super::SCHEMA_VERSION)
}

/// The cache entry for one `notebook.ron`'s bytes.
pub(super) struct Entry {
    path: PathBuf,
    key: String,
}

impl Entry {
    /// The entry for `bytes`, or `None` when they are too small to be worth
    /// one or there is no cache folder. Its key is the BLAKE3 of the bytes
    /// preceded by their length ([`crate::digest::blake3_hex_parts`]), given
    /// as `key` by a caller that hashed them already.
    pub(super) fn of(bytes: &[u8], key: Option<String>) -> Option<Entry> {
        if bytes.len() < WORTH_CACHING {
            return None;
        }
        let dir = folder()?;
        let key = key.unwrap_or_else(|| crate::digest::blake3_hex_parts(&[bytes]));
        Some(Entry { path: dir.join(format!("{key}.nb")), key })
    }

    /// The notebook file parsed from these bytes before, if an entry holds
    /// it whole.
    pub(super) fn read(&self) -> Option<NotebookFile> {
        let bytes = bounded::read_bounded(&self.path, 2 * super::MAX_NOTEBOOK_BYTES, "a parsed notebook").ok()?;
        let body = bytes.strip_prefix(self.header().as_bytes())?;
        // How many parts and rows were written: an entry cut short at a
        // part's end reads as no entry, never as a notebook without its
        // last rows.
        let (parts, body) = body.split_first_chunk::<8>()?;
        let (rows, body) = body.split_first_chunk::<8>()?;
        let mut framed = unframe(body)?.into_iter();
        let mut file: NotebookFile = rmp_serde::from_slice(framed.next()?).ok()?;
        if u64::try_from(framed.len()).ok()? != u64::from_le_bytes(*parts) {
            return None;
        }
        file.runs = read_rows(framed.as_slice())?;
        if u64::try_from(file.runs.len()).ok()? != u64::from_le_bytes(*rows) {
            return None;
        }
        // Recently used: the last to be removed.
        if let Ok(f) = std::fs::File::options().append(true).open(&self.path) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
        Some(file)
    }

    /// Keeps `file`, parsed from this entry's bytes (its rows are taken out
    /// while the rest is written, and put back); quietly does nothing when
    /// the cache cannot be written.
    pub(super) fn write(&self, file: &mut NotebookFile) {
        let Some(dir) = self.path.parent() else { return };
        let runs = std::mem::take(&mut file.runs);
        let rest = rmp_serde::to_vec_named(&*file);
        let parts: Result<Vec<Vec<u8>>, _> =
            runs.chunks(runs.len().div_ceil(PARTS).max(1)).map(rmp_serde::to_vec_named).collect();
        file.runs = runs;
        let (Ok(rest), Ok(parts)) = (rest, parts) else { return };
        let rows = file.runs.len() as u64;
        let written = (|| -> std::io::Result<()> {
            let mut temp = std::io::BufWriter::new(tempfile::NamedTempFile::new_in(dir)?);
            temp.write_all(self.header().as_bytes())?;
            temp.write_all(&(parts.len() as u64).to_le_bytes())?;
            temp.write_all(&rows.to_le_bytes())?;
            for part in std::iter::once(&rest).chain(&parts) {
                temp.write_all(&(part.len() as u64).to_le_bytes())?;
                temp.write_all(part)?;
            }
            let temp = temp.into_inner().map_err(|e| e.into_error())?;
            // On disk before it has its name: a crash leaves no entry
            // rather than a torn one.
            temp.as_file().sync_all()?;
            temp.persist(&self.path).map_err(|e| e.error)?;
            Ok(())
        })();
        if written.is_ok() {
            forget_old(dir, "nb");
        }
    }

    fn header(&self) -> String {
        format!("{}{}\n", magic(), self.key)
    }
}

/// The parts of an entry's body, each framed by its length (eight bytes,
/// little-endian); `None` when a frame runs past the end.
fn unframe(mut body: &[u8]) -> Option<Vec<&[u8]>> {
    let mut parts = Vec::new();
    while !body.is_empty() {
        let (len, rest) = body.split_first_chunk::<8>()?;
        let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
        if len > rest.len() {
            return None;
        }
        let (part, rest) = rest.split_at(len);
        parts.push(part);
        body = rest;
    }
    Some(parts)
}

/// The rows of an entry's parts, in order, read on every CPU; `None` when
/// a part does not read back.
fn read_rows(parts: &[&[u8]]) -> Option<Vec<RunFile>> {
    let read = crate::shared_work::map(parts, 2, |part| rmp_serde::from_slice::<Vec<RunFile>>(part).ok());
    Some(read.into_iter().collect::<Option<Vec<_>>>()?.into_iter().flatten().collect())
}

/// The cache folder, created when missing (owner-only where the OS has
/// modes); `None` when there is none or it is turned off.
pub(super) fn folder() -> Option<PathBuf> {
    let dir = match std::env::var_os("VERNIER_CACHE_DIR") {
        Some(dir) if dir.is_empty() => return None,
        Some(dir) => PathBuf::from(dir),
        None => dirs::cache_dir()?.join("vernier").join("parsed"),
    };
    if !dir.is_dir() {
        create_private(&dir).ok()?;
    }
    // A link in the cache's place is not followed.
    std::fs::symlink_metadata(&dir).ok().filter(|m| m.is_dir()).map(|_| dir)
}

#[cfg(unix)]
fn create_private(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn create_private(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Removes all but the [`ENTRIES`] most recently used entries whose names
/// end in `.extension`.
pub(super) fn forget_old(dir: &Path, extension: &str) {
    let Ok(listing) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<(std::time::SystemTime, PathBuf)> = listing
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == extension))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if entries.len() <= ENTRIES {
        return;
    }
    entries.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (_, path) in entries.drain(ENTRIES..) {
        let _ = std::fs::remove_file(path);
    }
}
