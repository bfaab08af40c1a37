//! Vernier's engine, the top layer: the six submission documents, the
//! audit, other people's files (import, merge, reproduce) and row
//! comparisons. Rule IDs (`SPEC S7`) are listed in the repository's
//! `RULES.md`.
//!
//! The engine is three crates whose dependencies point only down (the
//! repository's `tests/layers.rs` holds this):
//!
//! - `vernier-model` — the notebook and every type saved in notebook.ron,
//!   the statistics and units, the store (SPEC N, S);
//! - `vernier-instrument` — the harness, kernels, soak, platform code and
//!   the consent gate (SPEC E, T, N13);
//! - this crate — what reads and writes documents and other people's files.
//!
//! Their modules are re-exported here under their own names, so the desktop
//! app and the command line (crate `vernier`), thin faces on the engine,
//! have one door to it.
//!
//! - [`documents`] — the six submission documents, charts, the workbook and
//!   anyone else's workbook (SPEC D).
//! - [`audit`] — the pre-submission audit (SPEC A).
//! - [`import`] — numbers measured by another tool: hyperfine, Google
//!   Benchmark, pyperf, a CSV of the student's own instrument.
//! - [`merge`] — a classmate's notebook or workbook taken into mine.
//! - [`reproduce`] — a classmate's row, its rerun and the verdict (SPEC R).
//! - [`compare`] — two recorded rows compared: S7 with the power-source and
//!   session guards (SPEC S13, S14), for every face that compares rows.
//! - [`row_trials`] — a row's trials read back from its raw file, measured
//!   or imported, for every face and document that draws them.
//! - [`record_run`] — a measured run recorded: its raw file reserved when it
//!   starts, its rows added when it ends, the same way from every face.
//! - [`extend`] — one of my own rows rerun to 51 trials, and whether its
//!   median moved by more than the difference I mean to claim (SPEC S10).
//! - [`sweep_view`] — the sweeps of a notebook as tables and charts read them.

pub mod audit;
pub mod compare;
pub mod documents;
pub mod extend;
pub mod import;
pub mod merge;
pub mod record_run;
pub mod reproduce;
pub mod row_trials;
pub mod sweep_view;

pub use vernier_instrument::{consent, harness, kernels, platform, self_check, soak};
/// An enum and its `ALL` from the same lines (the window's sections use it too).
pub use vernier_model::closed_enum;
pub use vernier_model::{bounded, digest, display, duration, notebook, os, shared_work, stats};
