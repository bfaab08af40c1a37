//! Vernier's desktop app and command line, over the `vernier_engine`
//! library. The `vernier` binary's `main` parses the arguments with
//! [`cli::parse`] and hands them to [`gui::run`] or [`cli::run`]; [`exit`]
//! turns the outcome into the exit code. The window and the command line do
//! not import each other (`.ci/run` checks it).

pub mod cli;
pub mod exit;
pub mod gui;
mod scratch;
