//! `vernier` — the desktop app when run without a subcommand (or with
//! `open`), the command line with one. This file only dispatches; the exit
//! codes are [`exit`]'s.

use std::process::ExitCode;

use vernier_app::{cli, exit, gui};

fn main() -> ExitCode {
    // The journal's compaction threshold in bytes, for a test or a bench
    // that wants compactions to happen often (SPEC N1).
    if let Some(bytes) = std::env::var("VERNIER_COMPACT_AT").ok().and_then(|v| v.parse().ok()) {
        vernier_engine::notebook::store::set_compaction_threshold(Some(bytes));
    }
    let outcome = match cli::parse() {
        cli::Invocation::Window(path) => gui::run(path).map(|()| 0).map_err(|e| match e {
            gui::StartError::Notebook(e) => exit::Failure::input(e),
            other => exit::Failure::failed(other),
        }),
        cli::Invocation::Command(command) => cli::run(*command),
    };
    exit::code(outcome)
}
