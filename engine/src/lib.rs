//! Vernier's engine: everything that measures, summarises, stores and
//! exports, with no GUI dependency. Rule IDs (`SPEC S7`) are listed in the
//! repository's `RULES.md`.
//!
//! - [`notebook`] — the measurement log: its sections and rules, locked
//!   predictions with a hash chain, the conditions vocabulary, and the atomic
//!   folder store (SPEC N).
//! - [`stats`] — the summary every number is reported with, the S6 rounding
//!   and the S7 verdict (SPEC S).
//! - [`harness`] — running a benchmark the honest way on its own thread:
//!   warm-up, interleaving and reversal, the canary, raw files, recording
//!   (SPEC E).
//! - [`kernels`] — the built-in workloads (seq, chase, three matmuls, canary).
//! - [`machine`] and [`instrument`] — the conditions read from the machine
//!   (E9) and the instrument's own check (E11, E12).
//! - [`soak`] — the thermal soak: its file, sensors, runner, analysis and
//!   recording (SPEC T).
//! - [`import`] — numbers measured by another tool (hyperfine).
//! - [`documents`] — the six submission documents, charts, the workbook and
//!   anyone else's workbook (SPEC D).
//! - [`audit`] — the pre-submission audit (SPEC A).
//! - [`reproduce`] — a classmate's row, its rerun and the verdict (SPEC R).
//! - [`consent`] — the one gate every command stored in a file passes
//!   before it runs: the exact argv shown, and the user's consent (SPEC N13).
//! - [`compare`] — two recorded rows compared: S7 with the power-source and
//!   session guards (SPEC S13, S14), for every face that compares rows.
//! - [`extend`] — one of my own rows rerun to 51 trials, and whether its
//!   median moved by more than the difference I mean to claim (SPEC S10).
//! - [`display`] — display rules several faces share (argument quoting).
//! - [`duration`] — the one rule for every duration a student types: seconds
//!   within a range named per option, bad input refused (SPEC C).
//! - [`units`] — the one rule for numbers with units: times in the largest
//!   unit the median allows, sizes in KiB/MiB/GiB, drift beside the IQR
//!   (SPEC S6, S12).
//!
//! The desktop app and the command line (crate `vernier`) are thin faces on
//! this library; tests drive it directly.

pub mod audit;
pub mod bounded;
pub mod compare;
pub mod consent;
pub mod display;
pub mod documents;
pub mod duration;
pub mod extend;
pub mod harness;
pub mod import;
pub mod instrument;
pub mod kernels;
pub mod machine;
pub mod merge;
pub mod notebook;
pub mod platform;
pub mod reproduce;
pub mod soak;
pub mod stats;
pub mod sweeps;
pub mod units;
