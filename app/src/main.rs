//! `vernier` — the desktop app when run without a subcommand (or with
//! `open`), the command line with one. This file only dispatches; the exit
//! codes are [`exit`]'s.

use std::process::ExitCode;

use vernier_app::{cli, exit, gui};

fn main() -> ExitCode {
    let outcome = match cli::parse() {
        cli::Invocation::Window(path) => gui::run(path).map(|()| 0).map_err(|e| match e {
            gui::StartError::Notebook(e) => exit::Failure::input(e),
            other => exit::Failure::failed(other),
        }),
        cli::Invocation::Command(command) => cli::run(*command),
    };
    exit::code(outcome)
}
