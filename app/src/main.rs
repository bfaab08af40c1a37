//! `vernier` — the desktop app when run without a subcommand, the command
//! line with one.

fn main() -> std::process::ExitCode {
    vernier_app::cli::main()
}
