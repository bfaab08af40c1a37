//! The bench runner (SPEC E1): benchmarks run away from the caller's
//! thread, driven by messages — start and cancel in; progress, trials,
//! finished and failed out.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{BENCH_THREAD, BenchError, BenchResult, BenchSpec, Caller, TrialRecord, run_bench_for};

/// A window's run starts this long after it is handed over (cancellable),
/// so the frame the window draws as it hands it over is finished before
/// the measurement starts (SPEC E15: the window does not compete with the
/// measurement for CPU; under software OpenGL one frame takes tens of
/// milliseconds).
const WINDOW_SETTLE: Duration = Duration::from_millis(250);

/// Events buffered between the runner and its reader. Trial events beyond
/// this are dropped (the finished result carries every trial); the final
/// event is always delivered.
const EVENT_CAPACITY: usize = 1024;

/// Progress of the benchmark in flight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Trials taken.
    pub done: u64,
    /// Trials planned (an estimate when warm-up is `settle`).
    pub total: u64,
    /// Time since the start.
    pub elapsed: Duration,
    /// Estimated time left.
    pub remaining: Duration,
}

/// What the runner reports.
#[derive(Debug)]
pub enum BenchEvent {
    /// A benchmark started.
    Started {
        /// Trials planned.
        total: u64,
    },
    /// A trial completed.
    Trial(TrialRecord, Progress),
    /// A build recipe ran (SPEC N15): what it did, said before the warm-up.
    Built(String),
    /// The benchmark finished (possibly ended early: see `failure`).
    Finished(Box<BenchResult>),
    /// It could not run at all.
    Failed(BenchError),
}

/// Why [`BenchRunner::try_start`] did not queue a benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotQueued {
    /// The command queue is full; the runner still runs, so a later try may succeed.
    #[error("the engine is busy with earlier benchmarks")]
    Busy,
    /// The runner thread has ended (it panicked or was shut down): nothing
    /// sent to it will ever run.
    #[error("the engine thread has stopped")]
    Stopped,
}

/// Why the runner wakes its owner: a window repaints for progress at its
/// own slow pace, but shows an ending at once (SPEC E15: the window does
/// not compete with the measurement for CPU).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// A run started or a trial completed.
    Progress,
    /// A run finished or failed: its result is waiting.
    Done,
}

enum Command {
    Start(Box<BenchSpec>),
    Shutdown,
}

/// Handle to the runner thread. Dropping it cancels any benchmark in
/// flight and joins the thread.
pub struct BenchRunner {
    commands: SyncSender<Command>,
    events: Receiver<BenchEvent>,
    cancel: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl BenchRunner {
    /// Starts the runner thread. `waker` is called after each event is
    /// queued (the command line passes nothing).
    pub fn spawn(waker: impl Fn() + Send + Sync + 'static) -> std::io::Result<Self> {
        Self::spawn_for(Caller::CommandLine, move |_| waker())
    }

    /// Starts the runner thread of a window: `waker` hears why it is
    /// woken; each run starts after a short settling pause, for the
    /// window's last frame to be drawn; and around each pinned run every
    /// other thread of the process is kept off the run's CPU and its CPU
    /// time recorded on the row (SPEC E15).
    pub fn spawn_for_window(waker: impl Fn(Wake) + Send + Sync + 'static) -> std::io::Result<Self> {
        Self::spawn_for(Caller::Window, waker)
    }

    fn spawn_for(face: Caller, waker: impl Fn(Wake) + Send + Sync + 'static) -> std::io::Result<Self> {
        let (commands, inbox) = sync_channel::<Command>(16);
        let (outbox, events) = sync_channel::<BenchEvent>(EVENT_CAPACITY);
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let thread = std::thread::Builder::new().name("vernier-runner".into()).spawn(move || {
            let waker: Arc<dyn Fn(Wake) + Send + Sync> = Arc::new(waker);
            serve(&inbox, &outbox, &flag, &waker, face);
        })?;
        Ok(Self { commands, events, cancel, thread: Some(thread) })
    }

    /// Starts a benchmark (queued behind any in flight), waiting for room
    /// in the queue. A stopped runner is seen on [`BenchRunner::events`], which
    /// then reports the channel disconnected.
    pub fn start(&self, spec: BenchSpec) {
        self.cancel.store(false, Ordering::Relaxed);
        let _ = self.commands.send(Command::Start(Box::new(spec)));
    }

    /// Starts a benchmark without waiting, for a caller that must not block
    /// (the window's UI thread): says whether the queue was full or the
    /// engine thread has stopped, so neither is mistaken for a run started.
    pub fn try_start(&self, spec: BenchSpec) -> Result<(), NotQueued> {
        self.cancel.store(false, Ordering::Relaxed);
        self.commands.try_send(Command::Start(Box::new(spec))).map_err(|e| match e {
            TrySendError::Full(_) => NotQueued::Busy,
            TrySendError::Disconnected(_) => NotQueued::Stopped,
        })
    }

    /// Cancels the benchmark in flight: its child processes are killed and
    /// it finishes, within 100 ms, with what it had measured.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// A handle on the cancel flag, for a signal handler: setting it does
    /// what [`BenchRunner::cancel`] does.
    pub fn cancel_token(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.cancel)
    }

    /// The event stream.
    pub fn events(&self) -> &Receiver<BenchEvent> {
        &self.events
    }
}

impl Drop for BenchRunner {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        let _ = self.commands.send(Command::Shutdown);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    inbox: &Receiver<Command>,
    outbox: &SyncSender<BenchEvent>,
    cancel: &Arc<AtomicBool>,
    waker: &Arc<dyn Fn(Wake) + Send + Sync>,
    face: Caller,
) {
    while let Ok(Command::Start(spec)) = inbox.recv() {
        if face == Caller::Window {
            settle(cancel);
        }
        let total = schedule_total(&spec);
        let _ = outbox.try_send(BenchEvent::Started { total });
        waker(Wake::Progress);
        let started = Instant::now();
        let flag = Arc::clone(cancel);
        let events = outbox.clone();
        let wake = Arc::clone(waker);
        // Each benchmark runs on a thread of its own, so pinning it (E8)
        // never outlives the benchmark.
        let worker = std::thread::Builder::new().name(BENCH_THREAD.into()).spawn(move || {
            let mut done = 0u64;
            let mut on_trial = |t: &TrialRecord| {
                done += 1;
                let elapsed = started.elapsed();
                let left = total.saturating_sub(done);
                let remaining = elapsed.checked_div(u32::try_from(done).unwrap_or(u32::MAX)).unwrap_or_default()
                    * u32::try_from(left).unwrap_or(u32::MAX);
                let progress = Progress { done, total: total.max(done), elapsed, remaining };
                // Never block the timed loop: a full queue drops a progress event.
                match events.try_send(BenchEvent::Trial(*t, progress)) {
                    // The owner decides how soon to look (a window: at its
                    // own slow pace while the run lasts).
                    Ok(()) => wake(Wake::Progress),
                    Err(TrySendError::Full(_)) => {}
                    Err(TrySendError::Disconnected(_)) => flag.store(true, Ordering::Relaxed),
                }
            };
            let (said, woken) = (events.clone(), Arc::clone(&wake));
            let mut on_built = |report: &str| {
                // Said before the trials start: waiting for room here delays no trial.
                if said.send(BenchEvent::Built(report.to_owned())).is_ok() {
                    woken(Wake::Progress);
                }
            };
            run_bench_for(&spec, &flag, &mut on_trial, &mut on_built, face)
        });
        let last = match worker {
            Ok(handle) => match handle.join() {
                Ok(Ok(result)) => BenchEvent::Finished(Box::new(result)),
                Ok(Err(e)) => BenchEvent::Failed(e),
                Err(_) => BenchEvent::Failed(BenchError::Invalid("the benchmark thread panicked".into())),
            },
            Err(e) => BenchEvent::Failed(BenchError::Io(e)),
        };
        // The final event must arrive: wait for room if the reader is behind.
        if outbox.send(last).is_err() {
            return;
        }
        waker(Wake::Done);
    }
}

/// Waits [`WINDOW_SETTLE`], or less when the run is cancelled meanwhile
/// (it then ends as cancelled at once, having measured nothing).
fn settle(cancel: &AtomicBool) {
    let end = Instant::now() + WINDOW_SETTLE;
    while !cancel.load(Ordering::Relaxed) && Instant::now() < end {
        std::thread::sleep((end - Instant::now()).min(Duration::from_millis(20)));
    }
}

fn schedule_total(spec: &BenchSpec) -> u64 {
    spec.plan().estimated_trials()
}
