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
mod compare_cmd;
mod confirm;
mod export_cmd;
mod extend_cmd;
mod import_cmds;
mod interrupt;
mod merge_cmd;
mod notebook_cmds;
mod placement_table_cmd;
mod recover_cmd;
mod reproduce_cmd;
mod samples;
mod show;
mod soak_cmds;
mod stats_cmds;
mod table;
mod writing_cmds;

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use vernier_engine::display::inert_multiline;
use vernier_engine::duration::{Bound, DurationError, Seconds};

use crate::exit::{CommandResult, Failure};

/// Vernier: a lab notebook for performance measurements.
#[derive(Debug, Parser)]
#[command(name = "vernier", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    verb: Option<Verb>,
}

/// The window's one subcommand, then every command of the command line.
#[derive(Debug, Subcommand)]
enum Verb {
    /// Open the app on a notebook folder (a measurements.xlsx opens read-only, to reproduce from).
    Open {
        /// The notebook folder, or a measurements.xlsx.
        path: PathBuf,
    },
    #[command(flatten)]
    Command(CliCommand),
}

/// A command of the command line.
#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Create a notebook folder (notebook.ron, raw/, exports/).
    New {
        /// The folder to create.
        dir: PathBuf,
        /// Project title, e.g. "Project 3 — The Memory Wall Lab".
        #[arg(long, default_value = "Untitled project", allow_hyphen_values = true)]
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
    Predict(Box<notebook_cmds::PredictArgs>),
    /// Link the row that answers a prediction (a run, a comparison, a soak), or leave it open with a reason.
    Answer(notebook_cmds::AnswerArgs),
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
        #[arg(allow_hyphen_values = true)]
        text: String,
    },
    /// Discard a run or a soak with a reason; it stays in the log.
    Discard(notebook_cmds::DiscardArgs),
    /// Set an Environment field, e.g. `vernier set DIR "Power source" mains`,
    /// or the trial budget new runs are held to: `vernier set DIR "Trial
    /// budget" 0.0167` (seconds; S19).
    Set {
        /// The notebook folder.
        dir: PathBuf,
        /// The field's name as the log shows it.
        field: String,
        /// The value (empty clears it).
        #[arg(allow_hyphen_values = true)]
        value: String,
    },
    /// State what a run did not record (build, warm-up, machine, power,
    /// thermal condition), kept as a statement made later; numbers never change.
    SetRun(notebook_cmds::SetRunArgs),
    /// Summarise numbers: median, IQR, min/max, drift, the rounded figure.
    Stats(stats_cmds::StatsArgs),
    /// The S7 verdict between two samples, or two rows of a notebook (--notebook DIR --run A --run B).
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
        /// Replace documents changed since Vernier wrote them (their changes are lost).
        #[arg(long)]
        force: bool,
    },
    /// The placement table: the cheapest processor that meets each deadline.
    Placement(placement_table_cmd::PlacementArgs),
    /// Write the parts of the documents only you can write (lists them without a document).
    Write(writing_cmds::WriteArgs),
    /// List, add or remove the report's citations.
    Cite(writing_cmds::CiteArgs),
    /// The pre-submission audit (A1–A21): exit 0 clean, 1 findings, 2 unreadable.
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
    /// Take in the edits typed into a measurements.xlsx in a spreadsheet, where the log's rules allow (N12).
    Merge(merge_cmd::MergeArgs),
    /// Show the changes a window could not save before it closed (kept beside the notebook); apply them with --apply.
    Recover(recover_cmd::RecoverArgs),
    /// The sustained-load (thermal soak) protocol.
    #[command(subcommand)]
    Soak(soak_cmds::SoakCommand),
    /// Import measurements taken by another tool.
    #[command(subcommand)]
    Import(import_cmds::ImportCommand),
}

/// Writes one line to standard output. A closed pipe ends the output
/// silently; any other failure is reported on stderr once.
///
/// Everything printed goes through here, and much of it comes from someone
/// else's file: it is made inert (SPEC N10) so no escape sequence reaches the
/// terminal. Line feeds stay (output has lines); a single-line value is made
/// inert where it is formatted (a table's cell, the reproduce plan), so it
/// cannot add a line. JSON stays valid: see `display::inert`.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let text = args.to_string();
    if let Err(e) = writeln!(std::io::stdout().lock(), "{}", inert_multiline(&text))
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: cannot write the output: {e}");
    }
}

/// What the arguments ask for: the window (no subcommand, or `open`), or a
/// command of the command line.
pub enum Invocation {
    /// Open the window on this notebook folder or workbook (`None`: the scratch notebook).
    Window(Option<PathBuf>),
    /// Run a command and exit.
    Command(Box<CliCommand>),
}

/// Parses the process's arguments (clap prints usage and exits on bad ones).
pub fn parse() -> Invocation {
    match Cli::parse().verb {
        None => Invocation::Window(None),
        Some(Verb::Open { path }) => Invocation::Window(Some(path)),
        Some(Verb::Command(command)) => Invocation::Command(Box::new(command)),
    }
}

/// Runs a command of the command line.
pub fn run(command: CliCommand) -> CommandResult {
    interrupt::install();
    match command {
        CliCommand::New { dir, title } => notebook_cmds::new(&dir, &title),
        CliCommand::Show { dir, run: Some(n), form, .. } => show::show_run(&dir, n, &form),
        CliCommand::Show { dir, json, run: None, .. } => show::show(&dir, json),
        CliCommand::Predict(args) => notebook_cmds::predict(&args),
        CliCommand::Answer(args) => notebook_cmds::answer(&args),
        CliCommand::Lock { dir } => notebook_cmds::lock(&dir),
        CliCommand::Note { dir, text } => notebook_cmds::note(&dir, &text),
        CliCommand::Discard(args) => notebook_cmds::discard(&args),
        CliCommand::Set { dir, field, value } => notebook_cmds::set(&dir, &field, &value),
        CliCommand::SetRun(args) => notebook_cmds::set_run(&args),
        CliCommand::Stats(args) => stats_cmds::stats(&args),
        CliCommand::Compare(args) => stats_cmds::compare(&args),
        CliCommand::Bench(args) => match (args.extend, &args.notebook) {
            (Some(run), Some(dir)) => {
                let answer =
                    confirm::ConsentFlags { yes: args.yes, allow_inline_code: args.allow_inline_code, json: args.json };
                extend_cmd::extend(dir, run, args.claim.as_deref(), args.timeout, answer)
            }
            _ => bench_cmds::bench(&args),
        },
        CliCommand::Machine { json } => bench_cmds::machine(json),
        CliCommand::Instrument { json } => bench_cmds::instrument(json),
        CliCommand::Import(command) => import_cmds::import(&command),
        CliCommand::Soak(command) => soak_cmds::soak(&command),
        CliCommand::Placement(args) => placement_table_cmd::placement(&args),
        CliCommand::Write(args) => writing_cmds::write(&args),
        CliCommand::Cite(args) => writing_cmds::cite(&args),
        CliCommand::Reproduce(args) => reproduce_cmd::reproduce(&args),
        CliCommand::Merge(args) => merge_cmd::merge(&args),
        CliCommand::Recover(args) => recover_cmd::recover(&args),
        CliCommand::Audit { dir, exports, json } => audit_cmd::audit(&dir, exports.as_deref(), json),
        CliCommand::Export { dir, out, force } => export_cmd::export(&dir, out.as_ref(), force),
    }
}

/// A text option as given, trimmed; blank counts as not given.
pub(crate) fn given(text: Option<&str>) -> Option<String> {
    text.map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned)
}

/// The clap parser of a duration option, as a [`Duration`]: the engine's
/// one rule with this option's range (SPEC C); bad input exits 2 with the
/// range.
///
/// [`Duration`]: std::time::Duration
fn duration(bound: Bound) -> impl Fn(&str) -> Result<std::time::Duration, DurationError> + Clone + Send + Sync {
    move |text| bound.parse(text).map(Seconds::duration)
}

/// [`duration`] for an option kept as seconds (a soak's protocol).
fn seconds(bound: Bound) -> impl Fn(&str) -> Result<f64, DurationError> + Clone + Send + Sync {
    move |text| bound.parse(text).map(Seconds::get)
}

/// A18 at once: each distinct warning of `builds` that are diagnostics
/// (-O0, or a compiler with no level), on stderr, said when a row is
/// measured or imported rather than only at the audit.
pub(crate) fn warn_unoptimised(builds: impl IntoIterator<Item = String>) {
    let mut warned = Vec::new();
    for warning in builds.into_iter().filter_map(|b| vernier_engine::notebook::build_warning(&b)) {
        if !warned.contains(&warning) {
            eprintln!("vernier: {warning}");
            warned.push(warning);
        }
    }
}
