//! Commands that change a notebook: new, predict, lock, note, discard, set.
//!
//! Each loads the folder, applies one rule-checked change through the engine
//! and saves atomically; a refused change leaves the file untouched.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use chrono::Utc;
use clap::Args;
use vernier_engine::duration;
use vernier_engine::notebook::{
    AnsweredBy, Author, Committed, EnvField, NewProtocol, Note, Notebook, NotebookError, PredictionText, RowRef,
    SoakProtocol, TRIAL_BUDGET, Workbench, store,
};
use vernier_engine::reproduce::Log;

use super::{CommandResult, Failure};

/// `vernier predict`.
#[derive(Debug, Args)]
pub struct PredictArgs {
    /// The notebook folder.
    dir: PathBuf,
    /// `Experiment`: what will be run (required for a new prediction).
    #[arg(long, allow_hyphen_values = true)]
    experiment: Option<String>,
    /// `What I predict`.
    #[arg(long, allow_hyphen_values = true)]
    predict: String,
    /// `Why`.
    #[arg(long, allow_hyphen_values = true)]
    why: String,
    /// The figure it commits to (N14): `median 100 ns/access ± 30 %`,
    /// `ratio naive/blocked = 3 ± 50 %`, or with --soak (required there)
    /// `onset 180 s ± 20 %, S/P 0.8 ± 0.05`.
    #[arg(long, value_name = "FIGURE", allow_hyphen_values = true)]
    figure: Option<String>,
    /// Rewrite open prediction N (refused once it is locked).
    #[arg(long, value_name = "N", value_parser = parse_prediction_number, conflicts_with = "amend")]
    edit: Option<u32>,
    /// Amend prediction N: a new, time-stamped row quoting it.
    #[arg(long, value_name = "N", value_parser = parse_prediction_number)]
    amend: Option<u32>,
    /// Fix a soak protocol with this prediction (T1); `soak run` then runs
    /// it. With --amend: change the protocol of a soak prediction (what is
    /// not given stays as it was).
    #[arg(long, conflicts_with = "edit")]
    soak: bool,
    /// Soak duration, seconds (with --soak; default 600).
    #[arg(long, requires = "soak", value_name = "SECONDS", value_parser = super::seconds(duration::SOAK_DURATION))]
    duration: Option<f64>,
    /// Soak sampling interval, seconds (with --soak; default 10).
    #[arg(long, requires = "soak", value_name = "SECONDS", value_parser = super::seconds(duration::SOAK_INTERVAL))]
    interval: Option<f64>,
    /// Opening window for P, seconds (with --soak; default 30).
    #[arg(long, requires = "soak", value_name = "SECONDS", value_parser = super::seconds(duration::SOAK_OPENING_WINDOW))]
    opening: Option<f64>,
    /// Tail window for S, seconds (with --soak; default 300).
    #[arg(long, requires = "soak", value_name = "SECONDS", value_parser = super::seconds(duration::SOAK_TAIL_WINDOW))]
    tail: Option<f64>,
    /// Onset threshold as a fraction of P (with --soak; default 0.95).
    #[arg(long, requires = "soak")]
    threshold: Option<f64>,
    /// Consecutive samples for onset and stability (with --soak; default 3).
    #[arg(long, requires = "soak")]
    hold: Option<u32>,
    /// Stability band around S (with --soak; default 0.03).
    #[arg(long, requires = "soak")]
    band: Option<f64>,
    /// Why a window, the threshold, hold or band differs from the default
    /// (or, with --amend, from the protocol amended): required then, and
    /// sealed with the protocol (T13).
    #[arg(long, requires = "soak", value_name = "TEXT", allow_hyphen_values = true)]
    protocol_why: Option<String>,
}

impl PredictArgs {
    /// The protocol given: each value as given, else as in `base` (the
    /// course's defaults, or the protocol an amendment changes), checked
    /// by the engine's one rule (T1, T11) before anything is locked.
    fn protocol(&self, base: SoakProtocol) -> Result<SoakProtocol, NotebookError> {
        let p = SoakProtocol {
            duration_s: self.duration.unwrap_or(base.duration_s),
            interval_s: self.interval.unwrap_or(base.interval_s),
            opening_window_s: self.opening.unwrap_or(base.opening_window_s),
            tail_window_s: self.tail.unwrap_or(base.tail_window_s),
            threshold: self.threshold.unwrap_or(base.threshold),
            hold: self.hold.unwrap_or(base.hold),
            band: self.band.unwrap_or(base.band),
        };
        p.check().map(|()| p).map_err(NotebookError::Protocol)
    }

    /// The protocol given, with the reason its windows or thresholds differ
    /// from `base`'s, which T13 requires.
    fn new_protocol(&self, base: SoakProtocol) -> Result<NewProtocol, NotebookError> {
        let protocol = self.protocol(base)?;
        let why = protocol
            .reason_for_change(&base, self.protocol_why.as_deref())
            .map_err(|e| NotebookError::BadProtocol(format!("{e}; give it with --protocol-why \"…\"")))?;
        Ok(NewProtocol { protocol, why })
    }
}

/// `vernier answer`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("by").required(true))]
pub struct AnswerArgs {
    /// The notebook folder.
    dir: PathBuf,
    /// The prediction answered (`P1` or `1`).
    #[arg(value_parser = parse_prediction_number)]
    prediction: u32,
    /// A run, or one point of a sweep, answers it (its number, e.g. 3).
    #[arg(long, value_name = "N", group = "by", value_parser = |s: &str| parse_number(s, 'R'))]
    run: Option<u32>,
    /// A comparison answers it (`C2` or `2`).
    #[arg(long, value_name = "C", group = "by", value_parser = |s: &str| parse_number(s, 'C'))]
    comparison: Option<u32>,
    /// A soak answers it (`S1` or `1`).
    #[arg(long, value_name = "S", group = "by", value_parser = |s: &str| parse_number(s, 'S'))]
    soak: Option<u32>,
    /// Leave it open, with the reason (A19).
    #[arg(long, value_name = "REASON", group = "by", allow_hyphen_values = true)]
    open: Option<String>,
}

/// `vernier discard`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("row").required(true))]
pub struct DiscardArgs {
    /// The notebook folder.
    dir: PathBuf,
    /// The run to discard (its number, e.g. 3).
    #[arg(long, value_name = "N", group = "row", value_parser = |s: &str| parse_number(s, 'R'))]
    run: Option<u32>,
    /// The soak to discard (`1` or `S1`).
    #[arg(long, value_name = "N", group = "row", value_parser = |s: &str| parse_number(s, 'S'))]
    soak: Option<u32>,
    /// Why it is set aside; it is listed under Notes and anomalies.
    #[arg(long, allow_hyphen_values = true)]
    why: String,
}

/// `vernier set-run`: what a run did not record, stated later (SPEC A1, A2).
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("statement").required(true).multiple(true)))]
pub struct SetRunArgs {
    /// The notebook folder.
    dir: PathBuf,
    /// The run (its number, e.g. 3).
    #[arg(long, value_name = "N", value_parser = |s: &str| parse_number(s, 'R'))]
    run: u32,
    /// How the measured program was built ("g++ -O2 -march=native").
    #[arg(long, value_name = "TEXT", group = "statement", allow_hyphen_values = true)]
    build: Option<String>,
    /// How many warm-up trials ran before the timed ones, not in the file.
    #[arg(long, value_name = "N", group = "statement")]
    warmup: Option<u32>,
    /// The machine it ran on.
    #[arg(long, value_name = "TEXT", group = "statement", allow_hyphen_values = true)]
    machine: Option<String>,
    /// The power source it ran on (mains, battery).
    #[arg(long, value_name = "TEXT", group = "statement", allow_hyphen_values = true)]
    power: Option<String>,
    /// Its thermal condition ("idle 5 min before the run").
    #[arg(long, value_name = "TEXT", group = "statement", allow_hyphen_values = true)]
    thermal: Option<String>,
}

pub fn set_run(args: &SetRunArgs) -> CommandResult {
    use vernier_engine::audit::{self, Check, Place};
    use vernier_engine::notebook::RunStatement;
    let texts = [
        args.build.clone().map(RunStatement::Build),
        args.warmup.map(RunStatement::Warmup),
        args.machine.clone().map(RunStatement::Machine),
        args.power.clone().map(RunStatement::PowerSource),
        args.thermal.clone().map(RunStatement::Thermal),
    ];
    let statements: Vec<RunStatement> = texts.into_iter().flatten().collect();
    let (sentence, left) = apply(&args.dir, |nb| {
        let sentence = nb.state_run(args.run, &statements, Utc::now())?;
        if nb.run(args.run).is_some_and(|r| r.discarded.is_some()) {
            return Ok((sentence, vec![format!("run {} is discarded: the audit does not check it", args.run)]));
        }
        // What the audit still finds on this row, once the statement is made.
        let left: Vec<String> = audit::audit(&args.dir, nb)
            .findings
            .into_iter()
            .filter(|f| matches!(f.check, Check::A1 | Check::A2) && f.place == Place::Run { number: args.run })
            .map(|f| format!("still {}: {}", f.check, f.message))
            .collect();
        Ok::<_, NotebookError>((sentence, left))
    })?;
    out!("run {} now states, as stated later: {}", args.run, vernier_engine::display::inert_line(sentence));
    if left.is_empty() {
        out!("the audit's A1 and A2 find nothing more on run {}", args.run);
    }
    for finding in left {
        out!("{}", vernier_engine::display::inert_line(finding));
    }
    Ok(0)
}

pub fn new(dir: &Path, title: &str) -> CommandResult {
    store::create(dir, title, Utc::now()).map_err(|e| match e {
        vernier_engine::notebook::CreateError::Save(e) => Failure::failed(e),
        other => Failure::input(other),
    })?;
    out!("created notebook '{title}' in {}", vernier_engine::display::path(dir));
    Ok(0)
}

pub fn predict(args: &PredictArgs) -> CommandResult {
    let now = Utc::now();
    // A bad figure is refused before the notebook is touched.
    let figure = args.figure.as_deref().map(Committed::parse).transpose().map_err(Failure::input)?;
    change(&args.dir, |nb| {
        let figure = figure.clone();
        if let Some(n) = args.amend {
            // T11: --soak with --amend changes the protocol; the rest as it was.
            let protocol = match (args.soak, nb.prediction(n).and_then(|p| p.protocol)) {
                (true, Some(base)) => Some(args.new_protocol(base)?),
                (true, None) => {
                    return Err(NotebookError::BadProtocol(format!(
                        "P{n} fixed no soak protocol; record a soak prediction with: vernier predict {} --soak \
                         --experiment … --predict … --why …",
                        vernier_engine::display::path(&args.dir)
                    )));
                }
                (false, _) => None,
            };
            let number = nb.amend_prediction_with(n, &args.predict, &args.why, figure, protocol, now)?;
            // What was sealed: a reason kept from the amended protocol included.
            let said = nb.prediction(number).filter(|_| args.soak).and_then(|p| {
                let fixed = NewProtocol { protocol: p.protocol?, why: p.protocol_why.clone() };
                Some(format!(", with the soak protocol {}", described(&fixed)))
            });
            return Ok(format!("recorded P{number}, amending P{n}{}", said.unwrap_or_default()));
        }
        let experiment = match (&args.experiment, args.edit) {
            (Some(e), _) => e.clone(),
            (None, Some(n)) => nb.prediction(n).ok_or(NotebookError::NoSuchPrediction(n))?.experiment.clone(),
            (None, None) => return Err(NotebookError::Empty("Experiment")),
        };
        let text = PredictionText { experiment, predict: args.predict.clone(), why: args.why.clone(), figure };
        if args.soak {
            let defaults = args.protocol(SoakProtocol::default())?.defaults_for();
            let protocol = args.new_protocol(defaults)?;
            let said = described(&protocol);
            return nb
                .add_soak_prediction(text, protocol, now)
                .map(|n| format!("recorded P{n} with its soak protocol: {said}"));
        }
        match args.edit {
            Some(n) => nb.edit_prediction(n, text).map(|()| format!("rewrote open prediction P{n}")),
            None => nb
                .add_prediction(text, now)
                .map(|n| format!("recorded P{n} at {}", now.format("%Y-%m-%d %H:%M:%S UTC"))),
        }
    })
}

/// A protocol as `predict` confirms it: its numbers, then the reason for
/// a changed window (T13), inert.
fn described(p: &NewProtocol) -> String {
    match &p.why {
        Some(why) => {
            format!("{} (changed because: {})", p.protocol.describe(), vernier_engine::display::inert_line(why.clone()))
        }
        None => p.protocol.describe(),
    }
}

/// Links a row to a prediction as its answer, or leaves it open with a
/// reason (N14, A19), then says the outcome.
pub fn answer(args: &AnswerArgs) -> CommandResult {
    let by = match (args.run, args.comparison, args.soak, &args.open) {
        (Some(n), ..) => AnsweredBy::Run(n),
        (_, Some(c), ..) => AnsweredBy::Comparison(c),
        (_, _, Some(s), _) => AnsweredBy::Soak(s),
        (.., Some(reason)) => AnsweredBy::Open(reason.clone()),
        // clap's required group guarantees one of the four.
        _ => return Err(Failure::input(anyhow::anyhow!("name the answer with --run, --comparison, --soak or --open"))),
    };
    let number = args.prediction;
    change(&args.dir, |nb| {
        nb.answer_prediction(number, by.clone(), Utc::now())?;
        let last = nb.answers().last().map(|a| nb.score(a).line(number)).unwrap_or_default();
        Ok(format!("P{number} — {last}"))
    })
}

/// Refuses, before anything is measured, a run said to answer a
/// prediction the notebook does not have.
pub(super) fn check_prediction(dir: &Path, number: u32) -> Result<(), Failure> {
    match open(dir)?.prediction(number) {
        Some(_) => Ok(()),
        None => Err(Failure::input(NotebookError::NoSuchPrediction(number))),
    }
}

/// Links what `bench --answers P` just recorded to the prediction (N14):
/// the comparison its two rows form, or its one run. A sweep's points are
/// many rows, so the point is named with `vernier answer`. Returns the
/// outcome's line.
pub(super) fn answer_recorded(
    dir: &Path,
    number: u32,
    recorded: &vernier_engine::harness::RowsAdded,
) -> Result<String, Failure> {
    if recorded.sweep.is_some() {
        return Err(Failure::input(anyhow::anyhow!(
            "a sweep answers through one of its points: vernier answer {} P{number} --run N",
            vernier_engine::display::path(dir)
        )));
    }
    let Some(&first) = recorded.runs.first() else {
        return Err(Failure::failed(anyhow::anyhow!("the run recorded no row to answer P{number} with")));
    };
    apply(dir, |nb| {
        let by = match nb.pair_of(first) {
            Some((pair, _)) => AnsweredBy::Comparison(pair.number),
            None => AnsweredBy::Run(first),
        };
        nb.answer_prediction(number, by, Utc::now())?;
        let line = nb.answers().last().map(|a| nb.score(a).line(number)).unwrap_or_default();
        Ok::<_, NotebookError>(format!("P{number} — {line}"))
    })
}

pub fn lock(dir: &Path) -> CommandResult {
    change(dir, |nb| {
        let count = nb.lock_open_predictions(Utc::now());
        Ok(match count {
            0 => "no open predictions to lock".to_owned(),
            1 => "locked 1 prediction".to_owned(),
            n => format!("locked {n} predictions"),
        })
    })
}

/// Adds a note without reading the notebook (issue 50): its cost does not
/// grow with the notebook.
pub fn note(dir: &Path, text: &str) -> CommandResult {
    let note = Note::new(text, None, None, Author::Person, Utc::now()).map_err(Failure::input)?;
    store::add_note(dir, note).map_err(change_failure)?;
    out!("note added");
    Ok(0)
}

pub fn discard(args: &DiscardArgs) -> CommandResult {
    let subject = match (args.run, args.soak) {
        (Some(n), _) => RowRef::Run(n),
        (None, Some(n)) => RowRef::Soak(n),
        // clap's required group guarantees one of the two.
        (None, None) => {
            return Err(Failure::input(anyhow::anyhow!("name the row with --run N or --soak N")));
        }
    };
    change(&args.dir, |nb| {
        nb.discard(subject, &args.why, Utc::now())
            .map(|()| format!("discarded {subject}; it is listed under Notes and anomalies"))
    })
}

/// Sets an Environment field without reading the notebook, like [`note`].
pub fn set(dir: &Path, field: &str, value: &str) -> CommandResult {
    // SPEC S19: the trial budget is set as a field, in seconds.
    if field.trim().eq_ignore_ascii_case(TRIAL_BUDGET) {
        let seconds = match value.trim() {
            "" => None,
            given => Some(duration::BUDGET.parse(given).map_err(Failure::input)?.get()),
        };
        store::set_trial_budget(dir, seconds).map_err(change_failure)?;
        out!("{}", Notebook::trial_budget_said(seconds));
        return Ok(0);
    }
    if let Err(unknown) = EnvField::named(field) {
        // `set` takes one name more than the Environment has: say so.
        return Err(Failure::input(anyhow::anyhow!("{unknown}; or \"{TRIAL_BUDGET}\", in seconds (S19)")));
    }
    store::set_environment(dir, field, value).map_err(change_failure)?;
    // The Workbench is read from what was written: say what was read (N2).
    match (EnvField::from_label(field), Workbench::parse(value)) {
        (Some(EnvField::Workbench), Ok(read)) if !value.trim().is_empty() => out!(
            "Workbench set: {read} (read from \"{}\")",
            vernier_engine::display::inert_line(value.trim().to_owned())
        ),
        _ => out!("{} set", field.trim()),
    }
    Ok(0)
}

/// Applies `edit` to the notebook in `dir` as it is on disk now, under the
/// folder's lock (N10), and prints its message once the change is saved;
/// warns about any broken seal. A refused edit is bad input (exit 2) and
/// saves nothing.
pub fn change(dir: &Path, edit: impl FnMut(&mut Notebook) -> Result<String, NotebookError>) -> CommandResult {
    let message = apply(dir, edit)?;
    out!("{message}");
    Ok(0)
}

/// [`change`] without the printing: the edit's value once it is on disk.
pub fn apply<T, E: std::error::Error + Send + Sync + 'static>(
    dir: &Path,
    edit: impl FnMut(&mut Notebook) -> Result<T, E>,
) -> Result<T, Failure> {
    let (value, notebook) = store::change(dir, edit).map_err(change_failure)?;
    report_findings(&notebook);
    Ok(value)
}

/// A change that did not happen, as the command line reports it: a save
/// that failed, or input (the notebook, the edit) refused.
fn change_failure<E: std::error::Error + Send + Sync + 'static>(e: store::ChangeError<E>) -> Failure {
    match e {
        store::ChangeError::Save(e) => Failure::failed(e),
        store::ChangeError::Load(e) => Failure::input(e),
        store::ChangeError::Refused(e) => Failure::input(e),
    }
}

/// Loads a notebook for the command line and reports any integrity finding
/// on stderr (N4: never silently accepted). Returns the notebook.
pub fn open(dir: &Path) -> Result<Notebook, Failure> {
    let notebook = store::load(dir).map_err(Failure::input)?;
    report_findings(&notebook);
    Ok(notebook)
}

/// [`open`], with the digest of the bytes read
/// ([`store::load_digested`]): what export records and audit compares, so
/// an audit after an export need not serialise the notebook again.
pub fn open_digested(dir: &Path) -> Result<(Notebook, String), Failure> {
    let (notebook, read) = store::load_digested(dir).map_err(Failure::input)?;
    report_findings(&notebook);
    Ok((notebook, read))
}

/// Opens a folder or any `measurements.xlsx` for reading; never writes it.
/// A notebook's broken seals are reported on stderr.
pub fn open_log(path: &Path) -> Result<Log, Failure> {
    let log = Log::open(path).map_err(Failure::input)?;
    if let Some(nb) = log.notebook() {
        report_findings(nb);
    }
    Ok(log)
}

/// Reads a notebook for `show --run`: a folder, or a `measurements.xlsx`
/// that Vernier wrote (D4), reopened from the copy it carries.
pub fn open_any(path: &Path) -> Result<Notebook, Failure> {
    match open_log(path)? {
        Log::Notebook(nb) => Ok(*nb),
        Log::Workbook(own) => Ok(own.notebook),
        Log::Foreign(_) => Err(Failure::input(anyhow::anyhow!(
            "{} was not written by Vernier; `vernier show` lists what it holds",
            vernier_engine::display::path(path)
        ))),
    }
}

/// Lets go of a notebook read for a command that ends the process: freeing
/// a semester's rows one by one costs more than the system takes back at
/// exit (issue 50), so they are left to it.
pub fn left_at_exit(notebook: Notebook) {
    std::mem::forget(notebook);
}

fn report_findings(notebook: &Notebook) {
    warn_integrity(&notebook.integrity());
}

/// Says each integrity finding (N4) on stderr, shown inert.
pub(super) fn warn_integrity(findings: &[vernier_engine::notebook::IntegrityFinding]) {
    for finding in findings {
        eprintln!("warning: {}", vernier_engine::display::inert(&finding.message));
    }
}

pub(super) fn parse_prediction_number(text: &str) -> Result<u32, String> {
    parse_number(text, 'P')
}

/// `3`, `R3` or `r3` → 3 (with the row's letter as `prefix`).
fn parse_number(text: &str, prefix: char) -> Result<u32, String> {
    let digits = text.trim().trim_start_matches([prefix, prefix.to_ascii_lowercase()]);
    digits
        .parse::<u32>()
        .ok()
        .filter(|&n| n > 0)
        .with_context(|| format!("'{text}' is not a row number (write 3 or {prefix}3)"))
        .map_err(|e| e.to_string())
}
