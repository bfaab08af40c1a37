//! What a writer that died leaves in a notebook folder, and tidying it
//! (SPEC N6, N10): a temporary file of an atomic save that was never
//! renamed, and a raw file's name reserved for a run that never wrote it.
//!
//! Both are written outside the folder's lock (a run measures for minutes),
//! so each names its writer — host, pid and the process's start time — and
//! under the lock the ones of this host's dead writers are removed. A live
//! writer's, or another host's (a folder on a shared drive), are left alone
//! and the audit names them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::os::process_info;

use super::{EXPORTS_DIR, NOTEBOOK_FILE, RAW_DIR};

/// The first line of a reserved raw file until its trials replace it.
const RESERVED: &str = "# vernier: raw file reserved by ";
/// A reservation holds one short line; anything longer is someone's data.
const MAX_RESERVATION_BYTES: u64 = 512;

/// Who is writing, as it goes into a temporary file's name: host, pid and
/// start time, with anything a file name should not hold replaced.
pub fn writer_tag() -> String {
    static TAG: OnceLock<String> = OnceLock::new();
    TAG.get_or_init(|| {
        let pid = std::process::id();
        let host = process_info::file_name_safe(&process_info::host());
        format!("{host}~{pid}~{}", process_info::started(pid).unwrap_or_default())
    })
    .clone()
}

/// What a freshly reserved raw file holds until its trials are written.
pub fn reservation_text() -> String {
    format!("{RESERVED}{}\n", writer_tag())
}

/// A writer named by a tag, as far as this host can tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Writer {
    /// This host's, no longer running: what it left may be removed.
    Dead,
    /// Still running here (or this OS cannot tell): left alone.
    Running {
        /// Its pid.
        pid: u32,
    },
    /// Another host's (a folder on a shared drive): left alone.
    Elsewhere {
        /// That host's name.
        host: String,
        /// Its pid there.
        pid: u32,
    },
}

/// Whose a tag `host~pid~started` is.
fn writer(tag: &str) -> Option<Writer> {
    let mut parts = tag.splitn(3, '~');
    let (host, pid, started) = (parts.next()?, parts.next()?.parse().ok()?, parts.next()?);
    let here = writer_tag();
    if here.split('~').next() != Some(host) {
        return Some(Writer::Elsewhere { host: host.to_owned(), pid });
    }
    Some(match process_info::is_alive(pid, started) {
        Some(false) => Writer::Dead,
        _ => Writer::Running { pid },
    })
}

/// The tag in a temporary's name `.NAME.TAG-N.tmp`.
fn temporary_tag(name: &str) -> Option<&str> {
    let inner = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (before, _counter) = inner.rsplit_once('-')?;
    before.split('.').next_back().filter(|tag| tag.contains('~'))
}

/// The tag in a reserved raw file's text.
fn reservation_tag(text: &str) -> Option<&str> {
    text.strip_prefix(RESERVED)?.strip_suffix('\n').filter(|t| !t.contains('\n'))
}

/// One thing a dead or absent writer left in `raw/` or `exports/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    /// The file, relative to the notebook folder.
    pub path: String,
    /// Whose.
    pub writer: Writer,
    /// A reservation (an empty raw file's name), not a temporary.
    pub reservation: bool,
}

/// The temporaries and reservations in `raw/` and `exports/` of the folder
/// `dir`, with whose each is.
pub fn find(dir: &Path) -> Vec<Leftover> {
    find_in(dir, &[RAW_DIR, EXPORTS_DIR])
}

/// [`find`] in the sub-folders `subs` of `dir` alone.
fn find_in(dir: &Path, subs: &[&str]) -> Vec<Leftover> {
    let mut found = Vec::new();
    for &sub in subs {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else { continue };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = format!("{sub}/{name}");
            if let Some(writer) = temporary_tag(&name).and_then(writer) {
                found.push(Leftover { path, writer, reservation: false });
            } else if sub == RAW_DIR
                && let Some(writer) = reserved_by(&entry.path()).as_deref().and_then(reservation_tag).and_then(writer)
            {
                found.push(Leftover { path, writer, reservation: true });
            }
        }
    }
    found
}

/// The text of a small regular file that may be a reservation.
fn reserved_by(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_RESERVATION_BYTES {
        return None;
    }
    crate::bounded::read_text_bounded(path, MAX_RESERVATION_BYTES, "a raw file").ok()
}

/// Removes, under the folder's lock, what dead writers left: every
/// `notebook.ron` temporary (only a lock holder writes one, so with the lock
/// held all are stale), and in the sub-folders `subs` (`raw/`, `exports/`)
/// the temporaries and reservations of this host's dead writers — each
/// looked in once per process, so a window saving often does not list
/// `raw/` each time. Best effort: a leftover is untidy, never harmful.
pub(super) fn remove_dead(dir: &Path, subs: &[&str]) {
    remove_notebook_temporaries(dir);
    static TIDIED: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    let first: Vec<&str> = match TIDIED.get_or_init(Mutex::default).lock() {
        Ok(mut seen) => subs.iter().copied().filter(|sub| seen.insert(dir.join(sub))).collect(),
        Err(_) => Vec::new(),
    };
    for leftover in find_in(dir, &first).into_iter().filter(|l| l.writer == Writer::Dead) {
        // `remove_file` on a symbolic link removes the link, never its target.
        let _ = std::fs::remove_file(dir.join(&leftover.path));
    }
}

/// Removes `notebook.ron`'s temporaries: only a lock holder writes one, so
/// with the lock held every one is stale.
pub(super) fn remove_notebook_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let prefix = format!(".{NOTEBOOK_FILE}.");
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(".tmp") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N10: a temporary's and a reservation's writer is read back from
    // what it wrote.
    #[test]
    fn tags_are_read_back_from_names_and_reservations() {
        let tag = writer_tag();
        assert_eq!(temporary_tag(&format!(".run-3.csv.{tag}-7.tmp")), Some(tag.as_str()));
        assert_eq!(temporary_tag(".run-3.csv.6186-0.tmp"), None, "an older name carries no writer");
        assert_eq!(reservation_tag(&reservation_text()), Some(tag.as_str()));
        assert_eq!(reservation_tag("index,ns\n"), None);
        assert!(matches!(writer(&tag), Some(Writer::Running { .. })), "this process is running");
        assert!(matches!(writer("elsewhere~42~boot+1"), Some(Writer::Elsewhere { pid: 42, .. })));
    }

    // SPEC N10 (issue 31, finding 11): under the lock, this host's dead
    // writers' reservations and temporaries go; a live one's stay.
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    #[test]
    fn a_dead_writers_leftovers_are_removed_and_a_live_ones_kept() {
        let tmp = tempfile::tempdir().expect("tmp");
        let raw = tmp.path().join(RAW_DIR);
        std::fs::create_dir(&raw).expect("raw");
        let host = writer_tag().split('~').next().map(str::to_owned).expect("host");
        let dead = format!("{host}~{}~boot+1", std::process::id());
        std::fs::write(raw.join("run-9.csv"), format!("{RESERVED}{dead}\n")).expect("dead reservation");
        std::fs::write(raw.join(format!(".run-9.csv.{dead}-0.tmp")), "partial").expect("dead temporary");
        std::fs::write(raw.join("run-10.csv"), reservation_text()).expect("live reservation");
        std::fs::write(raw.join("run-1.csv"), "index,ns\n0,5\n").expect("a real raw file");
        let found = find(tmp.path());
        assert_eq!(found.iter().filter(|l| l.writer == Writer::Dead).count(), 2, "{found:?}");
        remove_dead(tmp.path(), &[RAW_DIR, EXPORTS_DIR]);
        let mut left: Vec<String> = std::fs::read_dir(&raw)
            .expect("raw")
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        left.sort();
        assert_eq!(left, ["run-1.csv", "run-10.csv"]);
    }
}
