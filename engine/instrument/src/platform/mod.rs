//! Everything that differs between Linux, macOS and Windows, one concern
//! per module, so the rest of the engine is written once.
//!
//! Each module has a Linux implementation and a macOS and a Windows
//! counterpart, or says [`NOT_ON_THIS_PLATFORM`] — a reading is never
//! promised where the OS cannot give it. What an OS reports (a `/proc`
//! file, `sysctl` output, a Windows API value) is interpreted by pure
//! functions behind small traits with fakes, so the parsing and the "not
//! available" paths of all three are tested on Linux.

pub mod conditions;
pub mod confine;
pub mod counters;
pub mod cpu_seen;
pub mod cpu_time;
pub mod machine;
pub mod own_threads;
pub mod parent_death;
pub mod pinning;
pub mod process_group;
pub mod program;
pub mod reaper;

/// What a reading says when this OS has no source for it at all.
pub const NOT_ON_THIS_PLATFORM: &str = "not available on this platform";

/// The clock behind `std::time::Instant` here, named by the instrument
/// check (SPEC E11) and beside every row.
pub const INSTANT_CLOCK: &str = if cfg!(target_os = "linux") {
    "std::time::Instant (CLOCK_MONOTONIC)"
} else if cfg!(target_os = "macos") {
    "std::time::Instant (CLOCK_UPTIME_RAW)"
} else if cfg!(windows) {
    "std::time::Instant (QueryPerformanceCounter)"
} else {
    "std::time::Instant"
};
