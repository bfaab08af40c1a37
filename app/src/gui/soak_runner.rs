//! A soak started from the window (SPEC T, U): the protocol runs on its own
//! thread; samples and the result come back as messages.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

use vernier_engine::harness::raw::sha256_hex;
use vernier_engine::notebook::{Condition, SoakProtocol};
use vernier_engine::soak::{self, Analysis, file, run};

/// What the soak thread reports.
pub enum SoakEvent {
    /// A row was written: `t_seconds … score`.
    Sample([f64; 6]),
    /// The soak ended (or could not start).
    Finished(Result<Box<SoakDone>, String>),
}

/// A finished soak, read back and analysed on the soak thread.
pub struct SoakDone {
    /// The CSV written.
    pub path: PathBuf,
    /// Its SHA-256.
    pub sha256: String,
    /// The protocol it ran.
    pub protocol: SoakProtocol,
    /// The six numbers, or why there are none.
    pub analysis: Result<Analysis, String>,
    /// Conditions for the row.
    pub conditions: Vec<Condition>,
    /// Stopped before its duration.
    pub cancelled: bool,
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
            let spec = run::SoakSpec {
                duration: Duration::from_secs_f64(protocol.duration_s),
                interval: Duration::from_secs_f64(protocol.interval_s),
                workers,
                out: out.clone(),
                sensors_root: "/".into(),
                context,
            };
            let outcome = run::run(&spec, &flag, &mut |_, row| {
                // Samples arrive every few seconds; a full queue only drops a redraw.
                let _ = tx.try_send(SoakEvent::Sample(row));
                waker();
            });
            let done = outcome.map_err(|e| e.to_string()).and_then(|o| {
                let bytes = std::fs::read(&out).map_err(|e| format!("cannot read {} back: {e}", out.display()))?;
                let data = file::parse(&bytes[..], &out).map_err(|e| e.to_string())?;
                let mut conditions = vernier_engine::machine::Machine::read().conditions();
                let placeholders = if o.placeholders.is_empty() { "none".into() } else { o.placeholders.join(", ") };
                conditions.push(Condition { field: "placeholders".into(), value: placeholders });
                conditions.push(Condition { field: "workers".into(), value: workers.to_string() });
                conditions
                    .push(Condition { field: "calibrated chunk time".into(), value: format!("{:.3} ms", o.chunk_ms) });
                Ok(Box::new(SoakDone {
                    sha256: sha256_hex(&bytes),
                    analysis: soak::analyze(&data, &soak::Thresholds::from(&protocol)).map_err(|e| e.to_string()),
                    path: out,
                    protocol,
                    conditions,
                    cancelled: o.cancelled,
                }))
            });
            let _ = tx.send(SoakEvent::Finished(done));
            waker();
        })?;
        Ok(Self { events, cancel, thread: Some(thread) })
    }

    /// Stops the soak; the rows written so far are kept.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// The next event, if any.
    pub fn try_event(&self) -> Option<SoakEvent> {
        self.events.try_recv().ok()
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
