//! The `vernier` binary as a user runs it: its commands, output, exit codes
//! and what it leaves on disk. One test binary for all of them (each file a
//! module), so the suite links once instead of once per file.

/// The binary's path, temporary notebooks and JSON output, shared by all.
mod common;

mod allowlist;
mod bench;
mod bounded;
mod children;
mod cli;
mod compare;
mod durations;
mod extend;
mod faces;
mod forms;
mod gate;
mod import_csv;
mod import_gbench;
mod import_pyperf;
mod merge;
mod parsed_cache;
mod recipe;
mod record_faces;
mod recover;
mod reproduce;
mod set_run;
mod soak;
mod sweep;
mod writers;
