//! The notebook folder's lock (SPEC N10): one writer at a time, a wait that
//! is said and can be cancelled, a holder that is named only when it is
//! known, and a lock that is the file at the lock's path.
//!
//! The lock is `.vernier.lock` in the folder, held with std's advisory file
//! lock (`flock` on Unix, `LockFileEx` on Windows). While holding it, a
//! writer writes who it is into the file (host, pid, start time, program)
//! and empties it again before letting go, so a waiting writer can say who
//! it waits for. A crash leaves that text behind; it is believed only while
//! that pid is alive with that start time, so a stale line never names a
//! process that is gone.

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use crate::os::{lock_file, process_info};

/// Name of the lock file in a notebook folder.
pub const LOCK_FILE: &str = ".vernier.lock";

/// How long a writer waits silently before it says it is waiting (N10:
/// within a second).
pub const FIRST_WORD: Duration = Duration::from_millis(700);
/// How often a writer that is still waiting says so again.
pub const REPEAT_EVERY: Duration = Duration::from_secs(5);
/// How often the lock is tried while waiting: short enough that a released
/// lock is taken at once, long enough to cost nothing.
const POLL: Duration = Duration::from_millis(20);
/// The most of a lock file that is read for its holder.
const MAX_HOLDER_BYTES: u64 = 4096;

/// Who holds the lock, as far as it can be known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// A Vernier process, named by what it wrote into the lock file and
    /// alive with that start time.
    Vernier {
        /// Its process id.
        pid: u32,
        /// Its program name.
        program: String,
        /// When it took the lock (UTC, as it wrote it).
        since: String,
    },
    /// Not a Vernier that said so, but the process the OS reports as
    /// holding the lock.
    Process {
        /// Its process id.
        pid: u32,
        /// Its program name; `None` once it has ended.
        program: Option<String>,
    },
    /// Nothing says who.
    Unknown,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Holder::Vernier { pid, program, since } => write!(f, "{program} (pid {pid}, holding it since {since})"),
            Holder::Process { pid, program: Some(program) } => write!(f, "{program} (pid {pid})"),
            // The OS keeps naming the process that took the lock after it
            // ended, while a child that inherited the file holds it on.
            Holder::Process { pid, program: None } => {
                write!(
                    f,
                    "another program (the OS names process {pid}, which has ended: a process it started holds it)"
                )
            }
            Holder::Unknown => f.write_str("another program"),
        }
    }
}

/// A writer is waiting for the lock: said within a second, then again every
/// few seconds.
#[derive(Debug, Clone)]
pub struct Waiting {
    /// The notebook folder.
    pub dir: PathBuf,
    /// Who holds the lock now.
    pub holder: Holder,
    /// How long this writer has waited.
    pub waited: Duration,
}

impl std::fmt::Display for Waiting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "waiting for the notebook's lock, held by {} ({:.0} s so far); Ctrl-C cancels, nothing changed",
            self.holder,
            self.waited.as_secs_f64()
        )
    }
}

/// What a writer does while it waits for the lock: the command line prints
/// and listens for Ctrl-C, the window shows it in its status bar.
pub trait LockWait: Send + Sync {
    /// The writer is waiting (first within a second, then every few seconds).
    fn waiting(&self, waiting: &Waiting);
    /// True once the user asked to stop waiting.
    fn cancelled(&self) -> bool;
    /// The wait is over: the lock was taken or the wait cancelled.
    fn done(&self) {}
}

/// Waits in silence and is never cancelled: for a process that set no
/// [`LockWait`] (a library user, a test).
struct Silent;

impl LockWait for Silent {
    fn waiting(&self, _: &Waiting) {}
    fn cancelled(&self) -> bool {
        false
    }
}

fn wait_slot() -> &'static RwLock<Arc<dyn LockWait>> {
    static SLOT: OnceLock<RwLock<Arc<dyn LockWait>>> = OnceLock::new();
    SLOT.get_or_init(|| RwLock::new(Arc::new(Silent)))
}

/// Sets how every writer of this process waits for a notebook's lock. The
/// command line and the window each set one when they start, so every path
/// that changes a notebook waits the same way without being told.
pub fn set_lock_wait(wait: Arc<dyn LockWait>) {
    if let Ok(mut slot) = wait_slot().write() {
        *slot = wait;
    }
}

thread_local! {
    /// This thread's own [`LockWait`], before the process's.
    static THREAD_WAIT: std::cell::RefCell<Option<Arc<dyn LockWait>>> = const { std::cell::RefCell::new(None) };
}

/// Sets how the writers of the calling thread wait, before the process's
/// [`set_lock_wait`]: a window's file thread says its waits in its own
/// window even where one process holds several (the window's tests do).
pub fn set_thread_lock_wait(wait: Arc<dyn LockWait>) {
    THREAD_WAIT.with(|slot| *slot.borrow_mut() = Some(wait));
}

/// The calling thread's [`LockWait`], else the process's.
fn current_wait() -> Arc<dyn LockWait> {
    if let Some(own) = THREAD_WAIT.with(|slot| slot.borrow().clone()) {
        return own;
    }
    wait_slot().read().map(|w| Arc::clone(&w)).unwrap_or_else(|_| Arc::new(Silent))
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The lock file could not be opened or locked.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The user stopped waiting.
    #[error("cancelled; the lock is held by {holder}")]
    Cancelled {
        /// Who held it when the wait was cancelled.
        holder: Holder,
    },
}

/// This process's hold on a notebook folder while it applies one change
/// (N10). Released when dropped (its holder text emptied first); the
/// operating system releases it when the process dies.
#[derive(Debug)]
pub struct FolderLock {
    file: File,
    path: PathBuf,
}

impl FolderLock {
    /// True while the locked file is still the one at the lock's path: a
    /// lock file deleted or replaced by someone else means another writer
    /// may hold "the" lock too, so nothing may be committed under this one.
    pub fn is_held(&self) -> io::Result<bool> {
        lock_file::is_at_path(&self.file, &self.path)
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // The next holder writes its own line; an emptied file says nobody
        // is holding it. Best effort: a leftover line is checked for life.
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// Takes the lock of the notebook folder `dir`, waiting — said and
/// cancellable through the process's [`LockWait`] — while another writer
/// holds it.
pub fn lock(dir: &Path) -> Result<FolderLock, LockError> {
    lock_waiting(dir, current_wait().as_ref())
}

/// [`lock`] with a given [`LockWait`].
pub fn lock_waiting(dir: &Path, wait: &dyn LockWait) -> Result<FolderLock, LockError> {
    let path = dir.join(LOCK_FILE);
    let started = Instant::now();
    let mut next_word = FIRST_WORD;
    let mut said = false;
    let outcome = loop {
        let file = lock_file::open(&path)?;
        match file.try_lock() {
            Ok(()) => {
                // Locked — but perhaps a file someone deleted or replaced
                // while we opened it: then another writer can lock the new
                // one, so take the lock again on the file now at the path.
                if lock_file::is_at_path(&file, &path)? {
                    break Ok(held(file, path));
                }
                continue;
            }
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => break Err(e.into()),
        }
        if wait.cancelled() {
            break Err(LockError::Cancelled { holder: holder(&file) });
        }
        let waited = started.elapsed();
        if waited >= next_word {
            wait.waiting(&Waiting { dir: dir.to_path_buf(), holder: holder(&file), waited });
            said = true;
            next_word = waited + REPEAT_EVERY;
        }
        std::thread::sleep(POLL);
    };
    if said {
        wait.done();
    }
    outcome
}

/// The lock taken: who holds it is written into the file.
fn held(mut file: File, path: PathBuf) -> FolderLock {
    let line = format!(
        "vernier-lock-holder 1\nhost={}\npid={}\nstarted={}\nprogram={}\nsince={}\n",
        process_info::host(),
        std::process::id(),
        process_info::started(std::process::id()).unwrap_or_default(),
        std::env::current_exe()
            .ok()
            .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "vernier".into()),
        chrono::Utc::now().format("%H:%M:%S UTC"),
    );
    // Best effort: a holder that cannot say who it is is "another program".
    let _ = file.set_len(0).and_then(|()| file.rewind()).and_then(|()| file.write_all(line.as_bytes()));
    FolderLock { file, path }
}

/// Who holds the lock on `file`: what the holder wrote, if that process is
/// alive with that start time on this host; else the process the OS names;
/// else nobody known.
fn holder(file: &File) -> Holder {
    written_holder(file).or_else(|| os_holder(file)).unwrap_or(Holder::Unknown)
}

fn written_holder(mut file: &File) -> Option<Holder> {
    let mut text = String::new();
    file.rewind().ok()?;
    // On Windows the holder's byte-range lock refuses this read: then the
    // OS is asked instead.
    file.take(MAX_HOLDER_BYTES).read_to_string(&mut text).ok()?;
    let fields = parse_holder(&text)?;
    let field = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let pid: u32 = field("pid")?.parse().ok()?;
    let alive = field("host") == Some(process_info::host().as_str())
        && process_info::is_alive(pid, field("started")?) == Some(true);
    alive.then(|| Holder::Vernier {
        pid,
        program: field("program").unwrap_or("vernier").to_owned(),
        since: field("since").unwrap_or("an unknown time").to_owned(),
    })
}

/// The `key=value` lines of a holder's text, or `None` when it is not one.
fn parse_holder(text: &str) -> Option<Vec<(&str, &str)>> {
    let mut lines = text.lines();
    (lines.next()? == "vernier-lock-holder 1").then(|| lines.filter_map(|l| l.split_once('=')).collect())
}

fn os_holder(file: &File) -> Option<Holder> {
    lock_file::os_holder(file).map(|pid| Holder::Process { pid, program: process_info::program(pid) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Records what a writer said while waiting, and cancels on request.
    #[derive(Default)]
    struct Recorder {
        said: Mutex<Vec<(Holder, Duration)>>,
        cancel_after: Option<usize>,
        cancelled: AtomicBool,
    }

    impl LockWait for Recorder {
        fn waiting(&self, waiting: &Waiting) {
            let mut said = self.said.lock().expect("said");
            said.push((waiting.holder.clone(), waiting.waited));
            if self.cancel_after.is_some_and(|n| said.len() >= n) {
                self.cancelled.store(true, Ordering::Relaxed);
            }
        }
        fn cancelled(&self) -> bool {
            self.cancelled.load(Ordering::Relaxed)
        }
    }

    // SPEC N10: a waiting writer says so within a second, names this
    // process as the holder, and a cancel ends the wait with nothing taken.
    #[test]
    fn a_wait_is_said_within_a_second_and_can_be_cancelled() {
        let tmp = tempfile::tempdir().expect("tmp");
        let first = lock(tmp.path()).expect("first writer");
        let recorder = Recorder { cancel_after: Some(1), ..Recorder::default() };
        let started = Instant::now();
        let e = lock_waiting(tmp.path(), &recorder).expect_err("cancelled");
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        let said = recorder.said.lock().expect("said").clone();
        assert_eq!(said.len(), 1);
        assert!(said[0].1 < Duration::from_secs(1), "said after {:?}", said[0].1);
        match (&said[0].0, &e) {
            (Holder::Vernier { pid, .. }, LockError::Cancelled { .. }) => assert_eq!(*pid, std::process::id()),
            other => panic!("expected this process named and a cancel, got {other:?}"),
        }
        drop(first);
        let again = lock(tmp.path()).expect("free again");
        drop(again);
        assert_eq!(std::fs::read(tmp.path().join(LOCK_FILE)).expect("read").len(), 0, "emptied on release");
    }

    // SPEC N10: a holder line left by a process that is gone names nobody.
    #[test]
    fn a_stale_holder_line_is_not_believed() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join(LOCK_FILE);
        let line = format!(
            "vernier-lock-holder 1\nhost={}\npid={}\nstarted=boot+1\nprogram=vernier\nsince=09:00:00 UTC\n",
            process_info::host(),
            std::process::id()
        );
        std::fs::write(&path, line).expect("write");
        let file = lock_file::open(&path).expect("open");
        assert_eq!(written_holder(&file), None);
        std::fs::write(&path, "junk\npid=1\n").expect("write");
        assert_eq!(written_holder(&file), None);
    }

    // SPEC N10: a lock file deleted while held is noticed, and the lock is
    // taken again on the new file.
    #[cfg(unix)]
    #[test]
    fn a_deleted_lock_file_is_noticed() {
        let tmp = tempfile::tempdir().expect("tmp");
        let held = lock(tmp.path()).expect("lock");
        assert!(held.is_held().expect("check"));
        std::fs::remove_file(tmp.path().join(LOCK_FILE)).expect("rm");
        assert!(!held.is_held().expect("check"));
        let other = lock(tmp.path()).expect("a second writer takes the new file at once");
        assert!(other.is_held().expect("check"));
    }
}
