//! The window's file thread (SPEC E1, N10): the UI thread never waits
//! on the disk. The thread knows the store's protocol — the window's
//! changes applied under the folder's lock, the open notebook followed for
//! changes made elsewhere — and runs every other piece of disk work as a
//! [`Job`]: a type of its own, defined beside what asks for it (a dialog's
//! jobs in the dialog's file, the window's own in `jobs/`), answered by a
//! [`Done`] the window applies between frames. This module knows no dialog.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::thread::JoinHandle;

use vernier_engine::documents;
use vernier_engine::notebook::{Document, Notebook, store};

use super::Done;

/// Disk work for the file thread: one type per job, defined beside what
/// asks for it, so a new dialog's work touches its own file only.
pub trait Job: Send + 'static {
    /// Does the work, on the file thread; `follow` is the notebook the
    /// thread follows (a job that saves or opens one tells it). Returns what
    /// it found or did, for the window to apply.
    fn run(self: Box<Self>, follow: &mut Follow) -> Done;

    /// True when the status bar counts it as work the user waits for (a
    /// look the window takes on its own is not).
    fn counted(&self) -> bool {
        true
    }
}

/// Something the file thread looks at once a second and after every job
/// (the notebook's own workbook, say): registered when the thread starts.
pub trait Lookout: Send + 'static {
    /// Looks, and says what the window should know, if anything.
    fn look(&mut self, followed: &Followed) -> Option<Done>;
}

/// Work for the file thread.
pub enum Request {
    /// Apply a change to the notebook in `dir` as it is on disk, under the
    /// folder's lock (N10); `generation` is the window's count of changes.
    Change { dir: PathBuf, change: super::Change, generation: u64 },
    /// Follow the notebook in `dir` from here on, from the stamp of what the
    /// window `seen` when it read it (before the window existed).
    Watch { dir: PathBuf, seen: store::Stamp },
    /// Any other disk work.
    Job(Box<dyn Job>),
    /// Stop.
    Shutdown,
}

/// What the file thread reports.
pub enum Event {
    /// The changes numbered `generations` were applied to the file and
    /// saved, or could not be (nothing of them is on disk then). It answers
    /// as many change requests (those queued behind each other share it).
    Changed { generations: Vec<u64>, result: Result<Box<Saved>, String> },
    /// Another program changed the notebook file; here it is as it is now.
    ChangedElsewhere { notebook: Box<Notebook>, unwritten: Unwritten },
    /// A job's answer (or a watch's, or a thread's of its own): `counted`
    /// when it answers a counted request.
    Answered { done: Box<Done>, counted: bool },
}

impl Request {
    /// True when the file thread answers it with exactly one event (what
    /// the window counts to say how long the thread has been busy).
    pub fn is_answered(&self) -> bool {
        match self {
            Request::Change { .. } => true,
            Request::Job(job) => job.counted(),
            Request::Watch { .. } | Request::Shutdown => false,
        }
    }
}

impl Event {
    /// How many requests it answers (see [`Request::is_answered`]): a
    /// save as many as the changes it took in; a change noticed on disk
    /// and what was not asked for none.
    pub fn answers(&self) -> usize {
        match self {
            Event::Changed { generations, .. } => generations.len(),
            Event::ChangedElsewhere { .. } => 0,
            Event::Answered { counted, .. } => usize::from(*counted),
        }
    }
}

/// Parts of each document still to write (see `documents::unwritten`).
pub type Unwritten = Vec<(Document, documents::WritingState)>;

/// What the file holds after the window's changes were applied to it.
pub struct Saved {
    /// The notebook as saved — the window's changes on top of the file as
    /// it was, so another program's changes are in it too — or `None` when
    /// it is the window's own copy: no other program changed the file and
    /// every change applied as it did in the window. The window then keeps
    /// what it shows and what it worked out from it (a re-read of a file
    /// that did not change would redo that work for 10 000 rows), and the
    /// copy is dropped here, off the UI thread.
    pub notebook: Option<Notebook>,
    /// Each change's message, or why the notebook on disk refused it.
    pub messages: Vec<Result<super::Applied, String>>,
    /// The file had been changed by another program since the window last
    /// read or wrote it.
    pub changed_elsewhere: bool,
    /// Parts of each document still to write (counted here, off the UI thread).
    pub unwritten: Unwritten,
}

/// How often the file thread looks whether another program changed the
/// open notebook (a `stat`; the file is read only when it moved).
const WATCH_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

/// How long closing the window waits for the file thread to save the
/// changes queued before it; past that they go to a recovery file (N10).
pub const SHUTDOWN_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Why a request did not reach the I/O thread.
pub enum Refused {
    /// The queue is full: the thread is alive but behind. The request comes
    /// back so the caller can retry it.
    Busy(Request),
    /// The thread has ended: nothing sent to it will ever run.
    Stopped,
}

/// What the window and the file thread agree on about committing saves:
/// once the window is closing and has kept its unsaved changes in a
/// recovery file, no save may commit them too (they would be applied twice).
#[derive(Debug, Default)]
struct CommitGate {
    /// Set by [`Io::abandon`]: no change commits from now on.
    abandoned: bool,
    /// The changes (by generation) whose save has committed.
    committed: Vec<u64>,
}

/// A save refused because the window is closing with its changes kept in
/// a recovery file.
#[derive(Debug)]
struct Abandoned;

impl std::fmt::Display for Abandoned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the window closed with this change kept in a recovery file")
    }
}

impl std::error::Error for Abandoned {}

/// Where a thread of the window's sends what it found, waking the window:
/// the file thread, and threads of their own (a native file dialog, "Try
/// once") that must not hold up a save.
#[derive(Clone)]
pub struct Reply {
    sender: SyncSender<Event>,
    waker: Arc<dyn Fn() + Send + Sync>,
}

impl Reply {
    /// Sends `event` and wakes the window; false once the window is gone.
    fn event(&self, event: Event) -> bool {
        if self.sender.send(event).is_err() {
            return false;
        }
        (self.waker)();
        true
    }

    /// Sends what a thread of its own found (not file work the status bar
    /// counts); false once the window is gone.
    pub fn answer(&self, done: Done) -> bool {
        self.event(Event::Answered { done: Box::new(done), counted: false })
    }

    /// As [`Reply::answer`], without waiting for room in the queue: for a
    /// thread that could not even start.
    pub fn try_answer(&self, done: Done) {
        let _ = self.sender.try_send(Event::Answered { done: Box::new(done), counted: false });
        (self.waker)();
    }
}

/// Handle to the I/O thread.
pub struct Io {
    gate: Arc<std::sync::Mutex<CommitGate>>,
    requests: SyncSender<Request>,
    events: Receiver<Event>,
    reply: Reply,
    thread: Option<JoinHandle<()>>,
}

impl Io {
    /// Starts the thread; `waker` asks the window to repaint; `lookouts`
    /// look at the disk once a second and after every job.
    pub fn spawn(
        waker: impl Fn() + Send + Sync + 'static,
        lookouts: Vec<Box<dyn Lookout>>,
        lock_wait: Arc<dyn vernier_engine::notebook::store::LockWait>,
    ) -> std::io::Result<Self> {
        let (requests, inbox) = sync_channel::<Request>(64);
        let (sender, events) = sync_channel::<Event>(64);
        let reply = Reply { sender, waker: Arc::new(waker) };
        let out = reply.clone();
        let gate: Arc<std::sync::Mutex<CommitGate>> = Arc::default();
        let shared = Arc::clone(&gate);
        let thread = std::thread::Builder::new().name("vernier-io".into()).spawn(move || {
            // This thread's waits for a folder's lock are said in this
            // window (N10), whatever other window the process holds.
            vernier_engine::notebook::store::set_thread_lock_wait(lock_wait);
            serve(&inbox, &out, &shared, lookouts)
        })?;
        Ok(Self { gate, requests, events, reply, thread: Some(thread) })
    }

    /// Where a thread of its own sends its answer.
    pub fn reply(&self) -> Reply {
        self.reply.clone()
    }

    /// Stops every save from committing from now on — waiting for one that
    /// is committing right now — and returns the changes (by generation)
    /// whose save has committed: the rest are certainly not on disk, and
    /// never will be through this thread (N10: they go to a recovery file).
    pub fn abandon(&self) -> Vec<u64> {
        let mut gate = self.gate.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        gate.abandoned = true;
        gate.committed.clone()
    }

    fn abandoned(&self) -> bool {
        self.gate.lock().unwrap_or_else(std::sync::PoisonError::into_inner).abandoned
    }

    /// Queues work without waiting, telling a full queue from a dead thread.
    pub fn send(&self, request: Request) -> Result<(), Refused> {
        self.requests.try_send(request).map_err(|e| match e {
            TrySendError::Full(request) => Refused::Busy(request),
            TrySendError::Disconnected(_) => Refused::Stopped,
        })
    }

    /// The next finished piece of work; `Disconnected` once the thread has
    /// ended and everything it sent has been read. The handle keeps a sender
    /// for the dialog threads, so the channel alone would never say so.
    pub fn try_event(&self) -> Result<Event, TryRecvError> {
        let ended = self.thread.as_ref().is_none_or(JoinHandle::is_finished);
        match self.events.try_recv() {
            // Checked before reading, so an event sent just before the end is still read.
            Err(TryRecvError::Empty) if ended => Err(TryRecvError::Disconnected),
            other => other,
        }
    }

    /// Ends the thread as a crash would, leaving the handle in place (tests
    /// of what the window shows when the file thread is gone).
    #[cfg(test)]
    pub fn stop(&mut self) {
        let _ = self.requests.send(Request::Shutdown);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Io {
    /// Lets the work queued before closing finish (it runs before the thread
    /// sees `Shutdown`), but never waits forever: a thread stuck on a slow
    /// disk or a held lock is left behind after [`SHUTDOWN_WAIT`], and
    /// stderr says so. Once [`Io::abandon`] was called — the window kept
    /// its unsaved changes in a recovery file — nothing it could still do
    /// is waited for.
    fn drop(&mut self) {
        if self.abandoned() {
            let _ = self.requests.try_send(Request::Shutdown);
            return;
        }
        let deadline = std::time::Instant::now() + SHUTDOWN_WAIT;
        let mut shutdown = Request::Shutdown;
        loop {
            match self.requests.try_send(shutdown) {
                Err(TrySendError::Full(back)) if std::time::Instant::now() < deadline => {
                    shutdown = back;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                _ => break,
            }
        }
        let Some(thread) = self.thread.take() else { return };
        while !thread.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if thread.is_finished() {
            let _ = thread.join();
        } else {
            eprintln!(
                "vernier: the file thread did not finish within {} s; the work it was doing is left unfinished",
                SHUTDOWN_WAIT.as_secs()
            );
        }
    }
}

/// The notebook the file thread follows, if any: the open one, as the
/// thread last read or wrote it.
#[derive(Default)]
pub struct Follow {
    followed: Option<Followed>,
    /// Followings started so far, to number them.
    started: u64,
}

/// The open notebook as the file thread last read or wrote it, with the
/// counts a [`Lookout`] compares to know when to look again.
pub struct Followed {
    /// Its folder.
    pub dir: PathBuf,
    stamp: store::Stamp,
    /// The notebook `stamp` is the stamp of, once the thread has read or
    /// saved it: another program's change that only added journal lines
    /// is then read as those lines (issue 50).
    notebook: Option<Notebook>,
    /// Which following this is: a new number each time a notebook is opened.
    pub id: u64,
    /// Moves whenever the thread saved the notebook or read a new version of it.
    pub version: u64,
    /// Moves when a job asks every watch to look again at once (it rewrote
    /// or took in a file a watch weighs).
    pub again: u64,
}

impl Followed {
    /// The notebook as it is now, when it is no longer what was last read
    /// or written; kept as the base of the next look.
    fn reload(&mut self) -> Option<Notebook> {
        let notebook = store::reload_if_changed(&self.dir, &mut self.stamp, self.notebook.as_ref()).ok().flatten()?;
        self.notebook = Some(notebook.clone());
        Some(notebook)
    }
}

impl Follow {
    /// Follows the notebook in `dir` from `stamp`, what was last read or
    /// written of it.
    pub fn start(&mut self, dir: PathBuf, stamp: store::Stamp) {
        self.started += 1;
        self.followed = Some(Followed { dir, stamp, notebook: None, id: self.started, version: 0, again: 0 });
    }

    /// The notebook followed, when it is the one in `dir`.
    fn of(&mut self, dir: &std::path::Path) -> Option<&mut Followed> {
        self.followed.as_mut().filter(|f| f.dir == dir)
    }

    /// After a job changed the notebook in `dir` through the store: the
    /// notebook as it is now, when it changed, with the followed stamp
    /// moved so the save is not reported as another program's. `None` when
    /// `dir` is not the notebook followed, or it did not change.
    pub fn reload(&mut self, dir: &std::path::Path) -> Option<Notebook> {
        let followed = self.of(dir)?;
        let notebook = followed.reload()?;
        followed.version += 1;
        Some(notebook)
    }

    /// After the notebook in `dir` was saved here as `notebook` (stamped
    /// `stamp`): followed from there, so the save is not reported as
    /// another program's, and the next look starts from it.
    pub fn saved(&mut self, dir: &std::path::Path, stamp: store::Stamp, notebook: &Notebook) {
        match self.of(dir) {
            Some(followed) => {
                followed.stamp = stamp;
                followed.version += 1;
            }
            None => self.start(dir.to_path_buf(), stamp),
        }
        if let Some(followed) = self.of(dir) {
            followed.notebook = Some(notebook.clone());
        }
    }

    /// Asks every watch to look again at once, when `dir` is followed.
    pub fn look_again(&mut self, dir: &std::path::Path) {
        if let Some(followed) = self.of(dir) {
            followed.again += 1;
        }
    }
}

fn serve(
    inbox: &Receiver<Request>,
    out: &Reply,
    gate: &std::sync::Mutex<CommitGate>,
    mut lookouts: Vec<Box<dyn Lookout>>,
) {
    let mut pending: Option<Request> = None;
    let mut follow = Follow::default();
    loop {
        let request = match pending.take() {
            Some(request) => request,
            None => match inbox.recv_timeout(WATCH_INTERVAL) {
                Ok(request) => request,
                Err(RecvTimeoutError::Timeout) => {
                    if let Some(event) = look_for_changes(&mut follow)
                        && !out.event(event)
                    {
                        return;
                    }
                    if !look(&mut lookouts, &follow, out) {
                        return;
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return,
            },
        };
        let event = match request {
            Request::Shutdown => return,
            Request::Change { dir, change, generation } => {
                // Changes queued behind this one go to the disk in the same
                // lock, load and save.
                let (mut changes, mut generations) = (vec![change], vec![generation]);
                while let Ok(next) = inbox.try_recv() {
                    match next {
                        Request::Change { dir: d, change: c, generation: g } if d == dir => {
                            changes.push(c);
                            generations.push(g);
                        }
                        other => {
                            pending = Some(other);
                            break;
                        }
                    }
                }
                let result = save_changes(&dir, &changes, &generations, gate, &mut follow);
                Event::Changed { generations, result }
            }
            Request::Watch { dir, seen } => {
                follow.start(dir, seen);
                if !look(&mut lookouts, &follow, out) {
                    return;
                }
                continue;
            }
            Request::Job(job) => {
                let counted = job.counted();
                Event::Answered { done: Box::new(job.run(&mut follow)), counted }
            }
        };
        if !out.event(event) || !look(&mut lookouts, &follow, out) {
            return;
        }
    }
}

/// Applies the window's `changes` to the notebook in `dir` as it is on
/// disk, under its lock, and saves it; the followed stamp moves with the
/// save. The gate is held from before the changes are applied until the
/// save has committed or failed, so the window closing either sees them
/// committed or stops them.
fn save_changes(
    dir: &std::path::Path,
    changes: &[super::Change],
    generations: &[u64],
    gate: &std::sync::Mutex<CommitGate>,
    follow: &mut Follow,
) -> Result<Box<Saved>, String> {
    let known = follow.of(dir).map(|f| f.stamp.clone());
    let changed = store::change_stamped(dir, known.as_ref(), |nb| {
        let gate = gate.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if gate.abandoned {
            return Err(Abandoned);
        }
        let messages: Vec<_> = changes.iter().map(|c| c.apply(nb).map_err(|e| e.to_string())).collect();
        Ok((messages, gate))
    })
    .map_err(|e| e.to_string())?;
    let store::Changed { value: (messages, mut gate), notebook, stamp, changed_elsewhere } = changed;
    gate.committed.extend(generations);
    drop(gate);
    follow.saved(dir, stamp, &notebook);
    let unwritten = documents::unwritten(&notebook);
    let notebook = (changed_elsewhere || messages.iter().any(Result::is_err)).then_some(notebook);
    Ok(Box::new(Saved { unwritten, notebook, messages, changed_elsewhere }))
}

/// Lets every watch look at the notebook followed; false once the window is gone.
fn look(lookouts: &mut [Box<dyn Lookout>], follow: &Follow, out: &Reply) -> bool {
    let Some(followed) = &follow.followed else { return true };
    lookouts.iter_mut().filter_map(|w| w.look(followed)).all(|done| out.answer(done))
}

/// The open notebook as it is now, when another program changed it since
/// the file thread last read or wrote it. A file that cannot be read now
/// (being replaced, say) is looked at again next time.
fn look_for_changes(follow: &mut Follow) -> Option<Event> {
    let followed = follow.followed.as_mut()?;
    let notebook = followed.reload()?;
    followed.version += 1;
    // What the lookouts weighed, they weigh against the notebook as it is now.
    followed.again += 1;
    let unwritten = documents::unwritten(&notebook);
    Some(Event::ChangedElsewhere { notebook: Box::new(notebook), unwritten })
}
