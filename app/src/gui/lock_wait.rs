//! The file thread's wait for a notebook's lock, said in the status bar
//! (SPEC N10): who holds it and for how long, redrawn each second while it
//! lasts, and given up once the window is closing with its unsaved changes
//! kept in a recovery file.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use vernier_engine::notebook::store::{Holder, LockWait, Waiting};

/// The window's [`LockWait`]: set for the whole process when the window
/// starts, so every writer of the window's file thread waits the same way.
pub struct WindowWait {
    /// Who holds the lock, and since when this wait began.
    waiting: Mutex<Option<(Holder, Instant)>>,
    ctx: egui::Context,
    closing: AtomicBool,
}

impl WindowWait {
    pub fn new(ctx: egui::Context) -> Self {
        Self { waiting: Mutex::new(None), ctx, closing: AtomicBool::new(false) }
    }

    /// The status bar's words while a save waits for the lock.
    pub fn shown(&self) -> Option<String> {
        let waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        waiting.as_ref().map(|(holder, since)| {
            self.ctx.request_repaint_after(Duration::from_secs(1));
            format!(
                "⏳ saving waits for the notebook's lock, held by {} ({} s) — your change is kept until it is on disk",
                vernier_engine::display::inert_line(holder.to_string()),
                since.elapsed().as_secs()
            )
        })
    }

    /// The window is closing and has kept what is unsaved: stop waiting.
    pub fn close(&self) {
        self.closing.store(true, Ordering::Relaxed);
    }
}

impl LockWait for WindowWait {
    fn waiting(&self, waiting: &Waiting) {
        let since = Instant::now().checked_sub(waiting.waited).unwrap_or_else(Instant::now);
        *self.waiting.lock().unwrap_or_else(PoisonError::into_inner) = Some((waiting.holder.clone(), since));
        self.ctx.request_repaint();
    }

    fn cancelled(&self) -> bool {
        self.closing.load(Ordering::Relaxed)
    }

    fn done(&self) {
        *self.waiting.lock().unwrap_or_else(PoisonError::into_inner) = None;
        self.ctx.request_repaint();
    }
}
