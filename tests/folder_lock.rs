//! SPEC N10: the folder's lock is the file at the lock's path — a lock file
//! deleted while a change is in flight loses no change, and a link swapped
//! in at the lock's path is never followed.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use vernier_engine::notebook::store;

use crate::util::{at, saved_notebook};

fn notes(dir: &Path) -> Vec<String> {
    store::load(dir).expect("load").notes().iter().map(|n| n.text.clone()).collect()
}

// SPEC N10 (issue 31, finding 3): writer A holds the lock and has loaded the
// notebook; its lock file is deleted; writer B locks the new file and saves
// its note. A notices before committing that its lock is no longer the
// folder's, locks again, reloads and applies its note anew: both are kept.
#[test]
fn a_lock_file_deleted_mid_change_loses_no_change() {
    let (_tmp, dir, _) = saved_notebook();
    let loaded = Arc::new(Barrier::new(2));
    let b_done = Arc::new(Barrier::new(2));
    let applied = Arc::new(AtomicUsize::new(0));
    let writer_a = {
        let (dir, loaded, b_done, applied) =
            (dir.clone(), Arc::clone(&loaded), Arc::clone(&b_done), Arc::clone(&applied));
        std::thread::Builder::new()
            .name("writer-a".into())
            .spawn(move || {
                store::change(&dir, |nb| {
                    // Only the first attempt waits for B; the retry goes on.
                    if applied.fetch_add(1, Ordering::SeqCst) == 0 {
                        loaded.wait();
                        b_done.wait();
                    }
                    nb.add_note("A", at(1))
                })
                .map(drop)
            })
            .expect("spawn")
    };
    loaded.wait();
    std::fs::remove_file(dir.join(store::LOCK_FILE)).expect("delete the lock file, as a tidy user might");
    store::change(&dir, |nb| nb.add_note("B", at(2))).expect("B is saved at once, on a new lock file");
    b_done.wait();
    writer_a.join().expect("writer A").expect("A is saved too");
    let on_disk = notes(&dir);
    assert!(on_disk.contains(&"A".to_owned()) && on_disk.contains(&"B".to_owned()), "{on_disk:?}");
    assert_eq!(applied.load(Ordering::SeqCst), 2, "A was applied again to the file with B's note");
}

// SPEC N10 (issue 31, finding 4): a loop swapping the lock file for a link
// to a file outside the folder never gets a file created there, in 1,000
// tries; every lock taken is a regular file at the lock's path.
#[cfg(unix)]
#[test]
fn a_link_raced_in_at_the_lock_path_creates_nothing_outside() {
    use std::sync::atomic::AtomicBool;
    let (tmp, dir, _) = saved_notebook();
    let outside = tmp.path().join("outside-victim");
    let lock_path = dir.join(store::LOCK_FILE);
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (outside, lock_path, stop) = (outside.clone(), lock_path.clone(), Arc::clone(&stop));
        std::thread::Builder::new()
            .name("swapper".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let _ = std::fs::remove_file(&lock_path);
                    let _ = std::os::unix::fs::symlink(&outside, &lock_path);
                    std::thread::yield_now();
                    let _ = std::fs::remove_file(&lock_path);
                    let _ = std::fs::write(&lock_path, b"");
                }
            })
            .expect("spawn")
    };
    let mut taken = 0;
    for _ in 0..1000 {
        // Refused when it meets the link; taken when it meets the file.
        if let Ok(held) = store::lock(&dir) {
            taken += 1;
            drop(held);
        }
        assert!(!outside.exists(), "a file was created through the link");
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().expect("swapper");
    assert!(!outside.exists(), "a file was created through the link");
    assert!(taken > 0, "the lock was taken on the real file at least once");
}
