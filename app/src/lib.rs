//! Vernier's desktop app and command line, over the `vernier_engine`
//! library. The `vernier` binary's `main` parses the arguments with
//! [`cli::parse`] and hands them to [`gui::run`] or [`cli::run`]; [`exit`]
//! turns the outcome into the exit code. The window and the command line do
//! not import each other (`.ci/run` checks it).

/// mimalloc, for the window and every command (issue 50). Measured on a
/// 10 000-run notebook against glibc's allocator, tuned as it was: `show`
/// 281 → 169 ms, `audit` 1.07 → 0.86 s, `export` 1.02 → 0.78 s (means of
/// 11, the kernel's page faults most of the difference), and its freed
/// blocks are reused without the whole-heap merges that cost the window's
/// frames (SPEC U1). A kernel's buffers come from it too, in the window and
/// on the command line alike, so every run is placed the same way.
#[cfg(not(vernier_cross_check))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod cli;
pub mod exit;
pub mod gui;
mod scratch;
