//! Work over a semester's rows shared among the CPUs (issue 50): reading
//! ten thousand rows and turning them into text is most of a `show`, and a
//! student's laptop has more than one core. A few rows are worked on the
//! caller's thread: a thread costs more than they do.
//!
//! Threads started here inherit the caller's placement, so a window kept
//! off a pinned run's CPU (SPEC E15) keeps its helpers off it too. The
//! window shares nothing ([`at_most`] 1): its background work runs beside
//! the UI thread, and spread over every CPU it would take the UI's too.

use std::num::NonZero;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// The most threads one piece of work is shared among, the caller's
/// included; see [`at_most`].
static MOST_THREADS: AtomicUsize = AtomicUsize::new(usize::MAX);

/// From now on, this process shares a piece of work among at most
/// `threads` threads (1: each is worked on its caller's thread alone).
pub fn at_most(threads: usize) {
    MOST_THREADS.store(threads.max(1), Ordering::Relaxed);
}

/// Rows (cells, lines) fewer than this are turned into text on the
/// caller's thread: a thread starts in tens of microseconds, a row's text
/// takes a few.
pub const ROWS_WORTH_SHARING: usize = 512;

/// `f` of every item, in order, the items split into one run of
/// neighbours a CPU when there are at least `worth_sharing` of them. When
/// the OS will not start a thread, its items are worked on the caller's;
/// a panic in `f` is the caller's panic.
pub fn map<'a, T: Sync, R: Send>(items: &'a [T], worth_sharing: usize, f: impl Fn(&'a T) -> R + Sync) -> Vec<R> {
    let groups = match threads_for(items.len(), worth_sharing) {
        1 => return items.iter().map(f).collect(),
        threads => items.chunks(items.len().div_ceil(threads)).collect(),
    };
    shared(groups, |group: &'a [T]| group.iter().map(&f).collect())
}

/// [`map`] of items given up to `f` (a file's rows made into the
/// notebook's, say).
pub fn map_owned<T: Send, R: Send>(mut items: Vec<T>, worth_sharing: usize, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = threads_for(items.len(), worth_sharing);
    if threads == 1 {
        return items.into_iter().map(f).collect();
    }
    let per = items.len().div_ceil(threads);
    let mut groups = Vec::with_capacity(threads);
    while items.len() > per {
        groups.push(items.split_off(items.len() - per));
    }
    groups.push(items);
    groups.reverse();
    shared(groups, |group: Vec<T>| group.into_iter().map(&f).collect())
}

/// How many threads `len` items are worked on.
fn threads_for(len: usize, worth_sharing: usize) -> usize {
    if len < worth_sharing.max(2) {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, NonZero::get).min(len).min(MOST_THREADS.load(Ordering::Relaxed))
}

/// `work` of every group, in order: the first on the caller's thread, each
/// other on its own — or on the caller's, when the OS will not start one.
fn shared<G: Send, R: Send>(groups: Vec<G>, work: impl Fn(G) -> Vec<R> + Sync) -> Vec<R> {
    let work = &work;
    // Each group waits in its slot for whichever thread works it.
    let slots: Vec<Mutex<Option<G>>> = groups.into_iter().map(|g| Mutex::new(Some(g))).collect();
    let take = |slot: &Mutex<Option<G>>| slot.lock().unwrap_or_else(PoisonError::into_inner).take();
    let Some((first, others)) = slots.split_first() else { return Vec::new() };
    std::thread::scope(|scope| {
        let started: Vec<_> = others
            .iter()
            .map(|slot| {
                let thread = std::thread::Builder::new()
                    .name("vernier-rows".into())
                    .spawn_scoped(scope, move || take(slot).map(work).unwrap_or_default());
                (slot, thread)
            })
            .collect();
        let mut out = take(first).map(work).unwrap_or_default();
        for (slot, thread) in started {
            out.extend(match thread {
                Ok(thread) => joined(thread),
                Err(_) => take(slot).map(work).unwrap_or_default(),
            });
        }
        out
    })
}

/// What a scoped thread gave; its panic, if it panicked, goes on in the
/// thread that waited for it, as if the work had been done there.
pub fn joined<T>(thread: std::thread::ScopedJoinHandle<'_, T>) -> T {
    thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

#[cfg(test)]
mod tests {
    // SPEC U1 (issue 50: a semester's 10 000 rows read and shown on every
    // CPU):
    // shared or not, the result is every item's, in order, whether the
    // items are lent or given.
    #[test]
    fn every_item_in_order_whether_shared_or_not() {
        for n in [0, 1, 2, 3, super::ROWS_WORTH_SHARING - 1, super::ROWS_WORTH_SHARING, 10_007] {
            let items: Vec<u64> = (0..n as u64).collect();
            let doubled = super::map(&items, super::ROWS_WORTH_SHARING, |i| i * 2);
            assert_eq!(doubled, super::map(&items, 2, |i| i * 2), "{n} items, shared from 2");
            assert_eq!(doubled, super::map_owned(items.clone(), 2, |i| i * 2), "{n} items given");
            assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>(), "{n} items");
        }
    }

    // SPEC U1: a process that shares nothing (the window) works every item
    // on the caller's thread; results are the same.
    #[test]
    fn at_most_one_thread_works_on_the_callers_alone() {
        let items: Vec<usize> = (0..4 * super::ROWS_WORTH_SHARING).collect();
        let here = std::thread::current().id();
        super::at_most(1);
        let threads = super::map(&items, 2, |_| std::thread::current().id());
        let owned = super::map_owned(items.clone(), 2, |_| std::thread::current().id());
        super::at_most(usize::MAX);
        assert!(threads.iter().chain(&owned).all(|&t| t == here), "a helper thread worked an item");
        assert_eq!((threads.len(), owned.len()), (items.len(), items.len()));
    }

    // SPEC U1: a panic while working a row is the caller's, never a row
    // quietly missing.
    #[test]
    fn a_panic_on_a_helper_reaches_the_caller() {
        let items: Vec<usize> = (0..64).collect();
        let caught = std::panic::catch_unwind(|| super::map(&items, 2, |&i| assert!(i + 1 < items.len(), "last")));
        assert!(caught.is_err());
    }
}
