//! The C allocator's settings that matter to the window (issue 31) and to
//! a command reading a semester's notebook (issue 50).
//!
//! glibc keeps small freed blocks in "fast bins" and merges them only when
//! a larger request comes. After the window replaces a 10 000-run notebook
//! (it does after every save), the next request of about a kilobyte — a
//! list of notes growing past 16 — paid for merging them all, 9–17 ms in
//! one frame (measured: the frame bench's "an edit after the last save"
//! had a frame above 10 ms in 3 of 10 runs; with fast bins off, 0 of 6 and
//! the same medians). Off, freed blocks are merged as they are freed, a
//! little at a time.
//!
//! glibc also gives each block above 128 KiB (a threshold it raises as such
//! blocks are freed) pages of its own from the OS, and returns them when
//! it is freed. A command on a 10 000-run notebook reads a 17 MB file, then
//! a 12 MB parse, then builds megabytes of text: each such block was fresh
//! pages, each page a fault — a third of a `show`'s CPU time was the
//! kernel's. Blocks up to 32 MiB (glibc's most) are taken from the heap
//! instead, where a block freed below the heap's top is reused; one freed
//! at the top is still given back (the trim threshold stays 128 KiB), so
//! some faults remain: 33 100 in a 10 000-run `show` became 24 600. Only a
//! command that measures nothing sets it: a kernel's working set is placed
//! as in the window's runs.
//!
//! Other allocators (macOS, Windows, musl) have no such settings here, and
//! nothing is changed.

/// Turns glibc's fast bins off for this process; true when it took.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn merge_as_freed() -> bool {
    // SAFETY: `mallopt` only sets an allocator parameter; M_MXFAST 0 is a
    // documented value, valid at any time (blocks already in fast bins are
    // merged by the allocator as usual).
    unsafe { libc::mallopt(libc::M_MXFAST, 0) == 1 }
}

/// Nothing to set with this platform's allocator.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn merge_as_freed() -> bool {
    false
}

/// Blocks up to 32 MiB come from the heap, for a short-lived command;
/// true when it took.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn large_blocks_from_heap() -> bool {
    // glibc's upper limit for the threshold on 64-bit (HEAP_MAX_SIZE / 2);
    // 512 KiB on 32-bit, where a larger value is refused.
    let threshold = if cfg!(target_pointer_width = "64") { 32 << 20 } else { 512 << 10 };
    // SAFETY: `mallopt` only sets an allocator parameter; M_MMAP_THRESHOLD
    // within glibc's bound is a documented value, valid at any time (blocks
    // already mapped are freed as they were made).
    unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, threshold) == 1 }
}

/// Nothing to set with this platform's allocator.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn large_blocks_from_heap() -> bool {
    false
}

#[cfg(test)]
mod tests {
    // SPEC U1 (10 000 rows stay smooth; issue 31): the setting takes on
    // glibc, and is a no-op elsewhere.
    #[test]
    fn the_setting_takes_where_it_exists() {
        assert_eq!(super::merge_as_freed(), cfg!(all(target_os = "linux", target_env = "gnu")));
    }

    // SPEC U1 (issue 50): so does a command's.
    #[test]
    fn the_commands_setting_takes_where_it_exists() {
        assert_eq!(super::large_blocks_from_heap(), cfg!(all(target_os = "linux", target_env = "gnu")));
    }
}
