//! No change is lost however the window ends (SPEC N10, issue 45 item 4).
//!
//! A change is applied to the window's copy at once and saved by the file
//! thread when it gets the folder's lock. Until then it lives only in
//! memory — and a window can end without a word: its display lost (Xlib
//! exits the process), a panic, a SIGKILL, the OOM killer. So from the
//! moment a change is made, the keeper thread writes the window's changes
//! not yet on disk to a recovery file beside the notebook
//! ([`pending::Kept`]: `notebook.unsaved-<time>.ron`, marked as kept by a
//! running window), rewrites it whole as that list changes, and removes it
//! once every change is on disk. What it holds when the process dies is
//! what `vernier recover` applies; while the window runs, `recover` leaves
//! it alone (the window saves those changes itself).
//!
//! A kill in the instant between a save's commit and the keeper's rewrite
//! (the window hears of the save, then the keeper rewrites: a millisecond
//! or so) leaves a change both in notebook.ron and in the file; `recover`
//! recognises it by its time stamp and words, says it is already there and
//! does not add it twice ([`Edit::already_in`]).
//!
//! Its own thread, so neither the UI thread (which never touches the disk)
//! nor a file thread waiting for the folder's lock holds a change back.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use chrono::{DateTime, Utc};
use vernier_engine::display::inert;
use vernier_engine::notebook::pending::{Edit, Kept, Origin, Unsaved};

/// Said in a file a running window keeps: why its changes would be there
/// once the window has gone.
const WHY_RUNNING: &str = "kept while the window ran, before the changes reached notebook.ron: \
                           the window ended before it could save them (a lost display, a crash or a kill)";

/// How long closing waits for the keeper to write the last file.
const LAST_WAIT: Duration = Duration::from_secs(10);

/// The notebook a snapshot is for: its folder and identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct For {
    /// Its folder.
    pub dir: PathBuf,
    /// Its title.
    pub title: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// What the keeper is asked.
enum Request {
    /// These changes are not on disk yet (none: they all are).
    Keep { of: For, edits: Vec<Edit> },
    /// The window leaves the notebook (closing, or opening another) with
    /// these changes unsaved: written as its last word, said `why`, and
    /// never rewritten.
    Last { of: For, edits: Vec<Edit>, why: String, reply: SyncSender<Result<PathBuf, String>> },
}

/// Handle to the keeper thread.
pub struct Keeper {
    requests: SyncSender<Request>,
    /// What was last handed over: the notebook and the generations kept,
    /// so an unchanged list is not sent again.
    sent: Option<(PathBuf, Vec<u64>)>,
    thread: Option<JoinHandle<()>>,
}

impl Keeper {
    /// Starts the thread.
    pub fn spawn() -> std::io::Result<Self> {
        let (requests, inbox) = sync_channel::<Request>(16);
        let thread = std::thread::Builder::new().name("vernier-keep".into()).spawn(move || serve(&inbox))?;
        Ok(Self { requests, sent: None, thread: Some(thread) })
    }

    /// Keeps `changes` (by generation) as the changes to `of` not on disk,
    /// when they are not what was kept last. A full queue is tried again
    /// at the next call.
    pub fn keep(&mut self, of: &For, changes: &[(u64, &Edit)]) {
        let generations: Vec<u64> = changes.iter().map(|(g, _)| *g).collect();
        if self.sent.as_ref().is_some_and(|(dir, kept)| *dir == of.dir && *kept == generations) {
            return;
        }
        let edits = changes.iter().map(|(_, e)| Edit::clone(e)).collect();
        match self.requests.try_send(Request::Keep { of: of.clone(), edits }) {
            Ok(()) => self.sent = Some((of.dir.clone(), generations)),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {}
        }
    }

    /// Writes `edits` as the last word on `of` and waits (up to
    /// [`LAST_WAIT`]) for where: the file a running window kept becomes it.
    pub fn last(&mut self, of: &For, edits: Vec<Edit>, why: &str) -> Result<PathBuf, String> {
        let (reply, answer) = sync_channel(1);
        let request = Request::Last { of: of.clone(), edits, why: why.to_owned(), reply };
        self.requests.send(request).map_err(|_| "the keeper thread has stopped".to_owned())?;
        // What is kept from now on starts afresh.
        self.sent = None;
        match answer.recv_timeout(LAST_WAIT) {
            Ok(kept) => kept,
            Err(RecvTimeoutError::Timeout) => Err(format!("not written within {} s", LAST_WAIT.as_secs())),
            Err(RecvTimeoutError::Disconnected) => Err("the keeper thread has stopped".to_owned()),
        }
    }
}

impl Drop for Keeper {
    /// The thread ends once its queue is empty; what it is writing is
    /// waited for (a few small writes), so the file is whole at exit.
    fn drop(&mut self) {
        // The thread's queue closes with the last sender.
        let (requests, _) = sync_channel(0);
        drop(std::mem::replace(&mut self.requests, requests));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(inbox: &Receiver<Request>) {
    let mut kept: BTreeMap<PathBuf, Kept> = BTreeMap::new();
    while let Ok(first) = inbox.recv() {
        // Only the newest list for a notebook is written.
        let mut batch = vec![first];
        batch.extend(inbox.try_iter());
        for (k, request) in batch.iter().enumerate() {
            match request {
                Request::Keep { of, edits } => {
                    let newer =
                        batch[k + 1..].iter().any(|r| matches!(r, Request::Keep { of: o, .. } if o.dir == of.dir));
                    if !newer {
                        keep(&mut kept, of, edits);
                    }
                }
                Request::Last { of, edits, why, reply } => {
                    let mut file = kept.remove(&of.dir).unwrap_or_else(|| Kept::new(&of.dir));
                    let unsaved = Unsaved::new(edits.clone(), why, Utc::now(), origin(of, false));
                    let _ = reply.try_send(file.write(&unsaved).map_err(|e| e.to_string()));
                }
            }
        }
    }
}

/// Writes (or, none pending, removes) the running window's file for `of`.
fn keep(kept: &mut BTreeMap<PathBuf, Kept>, of: &For, edits: &[Edit]) {
    let file = kept.entry(of.dir.clone()).or_insert_with(|| Kept::new(&of.dir));
    let written = if edits.is_empty() {
        file.clear().map(|()| None)
    } else {
        file.write(&Unsaved::new(edits.to_vec(), WHY_RUNNING, Utc::now(), origin(of, true))).map(Some)
    };
    if let Err(e) = written {
        eprintln!(
            "vernier: {} change(s) to {} not yet on disk could not be kept in a recovery file: {}",
            edits.len(),
            inert(&of.dir.display().to_string()),
            inert(&e.to_string())
        );
    }
}

fn origin(of: &For, running: bool) -> Origin {
    Origin::here(&of.dir, &of.title, of.created_at, running)
}
