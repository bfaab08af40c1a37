//! The command line (SPEC C): argument parsing, dispatch and exit codes.
//!
//! Exit codes: 0 success, 1 findings or a failed operation, 2 bad usage or
//! bad input, with a message that names the place.

/// `println!` for command output that ends quietly when the reader has gone
/// (`vernier show DIR | head`) instead of panicking on a broken pipe.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!($($arg)*))
    };
}

mod audit_cmd;
mod bench_cmds;
mod export_cmd;
mod notebook_cmds;
mod numbers;
mod placement_cmd;
mod reproduce_cmd;
mod show;
mod soak_cmds;
mod stats_cmds;
mod table;
mod writing_cmds;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Vernier: a lab notebook for performance measurements.
#[derive(Debug, Parser)]
#[command(name = "vernier", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Open the app on a notebook folder (a measurements.xlsx opens read-only, to reproduce from).
    Open {
        /// The notebook folder, or a measurements.xlsx.
        path: PathBuf,
    },
    /// Create a notebook folder (notebook.ron, raw/, exports/).
    New {
        /// The folder to create.
        dir: PathBuf,
        /// Project title, e.g. "Project 3 — The Memory Wall Lab".
        #[arg(long, default_value = "Untitled project")]
        title: String,
    },
    /// Show the whole notebook.
    Show {
        /// The notebook folder, or a measurements.xlsx that Vernier wrote.
        dir: PathBuf,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Only this run, in the course's long or short form (see --form).
        #[arg(long, value_name = "N", conflicts_with = "json")]
        run: Option<u32>,
        /// With --run: `long` (the measurement-log entry) or `short` (a report sentence).
        #[arg(long, value_parser = ["long", "short"], default_value = "long", requires = "run")]
        form: String,
    },
    /// Record a prediction — before the run it predicts.
    Predict(notebook_cmds::PredictArgs),
    /// Lock every open prediction now.
    Lock {
        /// The notebook folder.
        dir: PathBuf,
    },
    /// Add a time-stamped note under Notes and anomalies.
    Note {
        /// The notebook folder.
        dir: PathBuf,
        /// The note.
        text: String,
    },
    /// Discard a run or a soak with a reason; it stays in the log.
    Discard(notebook_cmds::DiscardArgs),
    /// Set an Environment field, e.g. `vernier set DIR "Power source" mains`.
    Set {
        /// The notebook folder.
        dir: PathBuf,
        /// The field's name as the log shows it.
        field: String,
        /// The value (empty clears it).
        value: String,
    },
    /// Summarise numbers: median, IQR, min/max, drift, the rounded figure.
    Stats(stats_cmds::StatsArgs),
    /// The S7 verdict between two samples.
    Compare(stats_cmds::CompareArgs),
    /// Time a command or a built-in kernel, the honest way.
    Bench(Box<bench_cmds::BenchArgs>),
    /// The conditions Vernier can read on this machine.
    Machine {
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Measure the instrument: timer cost and step, noise floor, counters, pinning.
    Instrument {
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write the six submission documents (default: the notebook's exports/).
    Export {
        /// The notebook folder.
        dir: PathBuf,
        /// Where to write them.
        #[arg(long, value_name = "OUTDIR")]
        out: Option<PathBuf>,
    },
    /// The placement table: the cheapest processor that meets each deadline.
    Placement(placement_cmd::PlacementArgs),
    /// Write the parts of the documents only you can write (lists them without a document).
    Write(writing_cmds::WriteArgs),
    /// List, add or remove the report's citations.
    Cite(writing_cmds::CiteArgs),
    /// The pre-submission audit (A1–A15): exit 0 clean, 1 findings, 2 unreadable.
    Audit {
        /// The notebook folder.
        dir: PathBuf,
        /// Where the documents were exported, when not the notebook's exports/.
        #[arg(long, value_name = "OUTDIR")]
        exports: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Rerun one row of a classmate's notebook or measurements.xlsx here (shows it first; runs with --yes).
    Reproduce(reproduce_cmd::ReproduceArgs),
    /// The sustained-load (thermal soak) protocol.
    #[command(subcommand)]
    Soak(soak_cmds::SoakCommand),
    /// Import measurements taken by another tool.
    #[command(subcommand)]
    Import(bench_cmds::ImportCommand),
}

/// Writes one line to standard output. A closed pipe ends the output
/// silently; any other failure is reported on stderr once.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    if let Err(e) = writeln!(std::io::stdout().lock(), "{args}")
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: cannot write the output: {e}");
    }
}

/// The error and its causes on one line, leaving out a cause whose text the
/// message already quotes (the engine's errors name their OS error).
pub fn describe(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

/// A command that did not succeed, with the exit code it earns.
#[derive(Debug)]
pub struct Failure {
    code: u8,
    error: anyhow::Error,
}

impl Failure {
    /// Bad usage or bad input: exit 2.
    pub fn input(error: impl Into<anyhow::Error>) -> Self {
        Self { code: 2, error: error.into() }
    }

    /// The operation failed (a save, a measurement): exit 1.
    pub fn failed(error: impl Into<anyhow::Error>) -> Self {
        Self { code: 1, error: error.into() }
    }
}

/// What a command returns: the exit code to use when it ran to the end
/// (0, or 1 when it reported findings).
pub type Outcome = Result<u8, Failure>;

/// Parses the arguments, runs the command or the app, and maps the result to
/// an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        None => crate::gui::run(None),
        Some(Command::Open { path }) => crate::gui::run(Some(path)),
        Some(Command::New { dir, title }) => notebook_cmds::new(&dir, &title),
        Some(Command::Show { dir, run: Some(n), form, .. }) => show::show_run(&dir, n, &form),
        Some(Command::Show { dir, json, run: None, .. }) => show::show(&dir, json),
        Some(Command::Predict(args)) => notebook_cmds::predict(&args),
        Some(Command::Lock { dir }) => notebook_cmds::lock(&dir),
        Some(Command::Note { dir, text }) => notebook_cmds::note(&dir, &text),
        Some(Command::Discard(args)) => notebook_cmds::discard(&args),
        Some(Command::Set { dir, field, value }) => notebook_cmds::set(&dir, &field, &value),
        Some(Command::Stats(args)) => stats_cmds::stats(&args),
        Some(Command::Compare(args)) => stats_cmds::compare(&args),
        Some(Command::Bench(args)) => bench_cmds::bench(&args),
        Some(Command::Machine { json }) => bench_cmds::machine(json),
        Some(Command::Instrument { json }) => bench_cmds::instrument(json),
        Some(Command::Import(command)) => bench_cmds::import(&command),
        Some(Command::Soak(command)) => soak_cmds::soak(&command),
        Some(Command::Placement(args)) => placement_cmd::placement(&args),
        Some(Command::Write(args)) => writing_cmds::write(&args),
        Some(Command::Cite(args)) => writing_cmds::cite(&args),
        Some(Command::Reproduce(args)) => reproduce_cmd::reproduce(&args),
        Some(Command::Audit { dir, exports, json }) => audit_cmd::audit(&dir, exports.as_deref(), json),
        Some(Command::Export { dir, out }) => export_cmd::export(&dir, out.as_ref()),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(Failure { code, error }) => {
            eprintln!("error: {}", describe(&error));
            ExitCode::from(code)
        }
    }
}
