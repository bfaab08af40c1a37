//! Vernier's instrument, the middle layer: everything that runs a program
//! or reads the machine, over the notebook model (`vernier-model`), which it
//! records into through the store. Rule IDs (`SPEC E7`) are listed in the
//! repository's `RULES.md`.
//!
//! - [`harness`] — running a benchmark the honest way on its own thread:
//!   warm-up, interleaving and reversal, the canary, raw files, recording
//!   (SPEC E).
//! - [`kernels`] — the built-in workloads (seq, chase, three matmuls, canary).
//! - [`self_check`] — the instrument's check of itself (E11, E12).
//! - [`soak`] — the thermal soak: its file, sensors, runner, analysis and
//!   recording (SPEC T).
//! - [`consent`] — the one gate every command stored in a file passes
//!   before it runs: the exact argv shown, and the user's consent (SPEC N13).
//! - [`platform`] — what differs between Linux, macOS and Windows, and
//!   the conditions read from the machine (E9, `platform::machine`).

pub mod consent;
pub mod harness;
pub mod kernels;
pub mod platform;
pub mod self_check;
pub mod soak;
