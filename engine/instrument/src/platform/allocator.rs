//! The C allocator's settings that matter to the window (issue 31).
//!
//! glibc keeps small freed blocks in "fast bins" and merges them only when
//! a larger request comes. After the window replaces a 10 000-run notebook
//! (it does after every save), the next request of about a kilobyte — a
//! list of notes growing past 16 — paid for merging them all, 9–17 ms in
//! one frame (measured: the frame bench's "an edit after the last save"
//! had a frame above 10 ms in 3 of 10 runs; with fast bins off, 0 of 6 and
//! the same medians). Off, freed blocks are merged as they are freed, a
//! little at a time. Other allocators (macOS, Windows, musl) have no such
//! setting here, and nothing is changed.

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

#[cfg(test)]
mod tests {
    // SPEC U1 (10 000 rows stay smooth; issue 31): the setting takes on
    // glibc, and is a no-op elsewhere.
    #[test]
    fn the_setting_takes_where_it_exists() {
        assert_eq!(super::merge_as_freed(), cfg!(all(target_os = "linux", target_env = "gnu")));
    }
}
