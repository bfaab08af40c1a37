//! `vernier` — the desktop app when run without a subcommand, the command
//! line with one. Both drive the same engine library (`vernier_engine`).

mod cli;
mod gui;
mod scratch;

fn main() -> std::process::ExitCode {
    cli::main()
}
