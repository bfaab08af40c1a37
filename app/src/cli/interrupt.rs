//! Ctrl-C, SIGTERM and SIGHUP for the command line (SPEC E15, N10): one
//! handler for the whole process — the `ctrlc` crate takes only one — that
//! every command listening for them shares: a running benchmark or soak is
//! cancelled, and a writer waiting for a notebook's lock stops waiting with
//! nothing changed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use vernier_engine::display::inert_line;
use vernier_engine::notebook::store::{self, LockWait, Waiting};

type Listener = Box<dyn Fn() + Send + Sync>;

struct Interrupt {
    seen: AtomicBool,
    listeners: Mutex<Vec<Listener>>,
}

fn interrupt() -> &'static Interrupt {
    static INTERRUPT: OnceLock<Interrupt> = OnceLock::new();
    INTERRUPT.get_or_init(|| {
        // Refused only when a handler is already set, which nothing else in
        // the command line does; then the signal ends the process as usual.
        let _ = ctrlc::set_handler(|| {
            let interrupt = interrupt();
            interrupt.seen.store(true, Ordering::Relaxed);
            if let Ok(listeners) = interrupt.listeners.lock() {
                listeners.iter().for_each(|listen| listen());
            }
        });
        Interrupt { seen: AtomicBool::new(false), listeners: Mutex::new(Vec::new()) }
    })
}

/// Installs the handler and makes every notebook writer of this process
/// wait for a held lock out loud (on stderr) and stop at Ctrl-C.
pub fn install() {
    interrupt();
    store::set_lock_wait(Arc::new(Stderr));
}

/// True once Ctrl-C, SIGTERM or SIGHUP arrived.
pub fn interrupted() -> bool {
    interrupt().seen.load(Ordering::Relaxed)
}

/// Sets `flag` when Ctrl-C, SIGTERM or SIGHUP arrives (at once, if one
/// already has).
pub fn cancels(flag: Arc<AtomicBool>) {
    if interrupted() {
        flag.store(true, Ordering::Relaxed);
    }
    if let Ok(mut listeners) = interrupt().listeners.lock() {
        listeners.push(Box::new(move || flag.store(true, Ordering::Relaxed)));
    }
}

/// A lock wait said on stderr, cancelled by the process's interrupt.
struct Stderr;

impl LockWait for Stderr {
    fn waiting(&self, waiting: &Waiting) {
        eprintln!("vernier: {}", inert_line(waiting.to_string()));
    }
    fn cancelled(&self) -> bool {
        interrupted()
    }
}
