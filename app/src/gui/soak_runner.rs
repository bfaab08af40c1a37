//! A soak started from the window (SPEC T, U): the protocol runs on its own
//! thread; samples and the result come back as messages.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use vernier_engine::notebook::SoakProtocol;
use vernier_engine::soak::file::SoakRow;
use vernier_engine::soak::{load, record};

/// What the soak thread reports.
pub enum SoakEvent {
    /// A row was written.
    Sample(SoakRow),
    /// The soak ended, read back and analysed on the soak thread (or could
    /// not start, or its file could not be read back).
    Finished(Result<Box<record::Finished>, String>),
}

/// Handle to a running soak; dropping it stops the soak and waits for it.
pub struct SoakHandle {
    events: Receiver<SoakEvent>,
    cancel: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl SoakHandle {
    /// Starts `protocol` with `workers`, writing `out`.
    pub fn start(
        protocol: SoakProtocol,
        workers: usize,
        out: PathBuf,
        context: Vec<(String, String)>,
        waker: impl Fn() + Send + 'static,
    ) -> std::io::Result<Self> {
        let (tx, events): (SyncSender<SoakEvent>, _) = sync_channel(256);
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let thread = std::thread::Builder::new().name("vernier-soak".into()).spawn(move || {
            let spec = load::SoakSpec { protocol, workers, out: out.clone(), sensors_root: "/".into(), context };
            let outcome = load::run(&spec, &flag, &mut |_, row| {
                // Samples arrive every few seconds; a full queue only drops a redraw.
                let _ = tx.try_send(SoakEvent::Sample(row));
                waker();
            });
            let done = outcome
                .map_err(|e| e.to_string())
                .and_then(|o| record::finish(&out, protocol, &o).map(Box::new).map_err(|e| e.to_string()));
            let _ = tx.send(SoakEvent::Finished(done));
            waker();
        })?;
        Ok(Self { events, cancel, thread: Some(thread) })
    }

    /// Stops the soak; the rows written so far are kept.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// The next event; `Disconnected` when the soak thread has ended
    /// without its last word (it died).
    pub fn try_event(&self) -> Result<SoakEvent, std::sync::mpsc::TryRecvError> {
        self.events.try_recv()
    }
}

impl Drop for SoakHandle {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        // Drop the receiver first, so the thread's last send fails instead
        // of waiting for a window that will never read it.
        let (_, closed) = sync_channel(0);
        drop(std::mem::replace(&mut self.events, closed));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
