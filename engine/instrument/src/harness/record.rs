//! Writing a finished benchmark into a notebook (SPEC N3, N6, E10): the
//! raw file ([`write_raw_reserved`]) and the rows ([`add_rows`]). The
//! faces do not call these one by one: the engine's `record_run` use case
//! puts them together under the folder's lock, the same way for the window
//! and the command line. [`record`] does both on a notebook held in memory,
//! for tests that build one.

use std::path::Path;

use chrono::{DateTime, Utc};

use super::raw::{self, RawError};
use super::{BenchResult, ScanSpec};
use vernier_model::notebook::{
    Boundary, Condition, ConditionKind, ConditionName, EnvField, Environment, Measurement, NewPair, NewSweep, Notebook,
    NotebookPath, RawFile, Tag,
};

/// What [`add_rows`] added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowsAdded {
    /// New Runs rows (empty when the run failed: it becomes a note).
    pub runs: Vec<u32>,
    /// The raw file written.
    pub raw_file: NotebookPath,
    /// Its SHA-256.
    pub sha256: String,
    /// The sweep the rows were recorded as, for a scan (SPEC E16).
    pub sweep: Option<u32>,
}

/// Writes the session's raw trials once into `raw/` of the notebook `dir`,
/// named after the run number the first row will get (`next_run`), with the
/// conditions as comments.
pub fn write_raw(dir: &Path, result: &BenchResult, next_run: usize) -> Result<RawFile, RawError> {
    write_raw_reserved(dir, result, raw::Reserved::take(dir, &raw_stem(next_run))?)
}

/// The name a run's raw file is reserved under when the run starts.
pub fn raw_stem(next_run: usize) -> String {
    format!("run-{next_run}")
}

/// [`write_raw`] into a name reserved when the run started; a run that
/// ended early is written under a `failed-…` name instead, and the
/// reservation is let go.
pub fn write_raw_reserved(dir: &Path, result: &BenchResult, reserved: raw::Reserved) -> Result<RawFile, RawError> {
    let mut comments = vec![format!("started: {}", result.started_at.to_rfc3339())];
    for (i, arm) in result.arms.iter().enumerate() {
        comments.push(format!("arm {}: {} — command: {}", arm.label, arm.what, arm.command.join(" ")));
        if let Some(build) = result.build_of(i) {
            comments.push(format!("build of arm {}: {build}", arm.label));
        }
        // A figure is not nanoseconds over a divisor: `ns` stays each
        // process's wall time, and the figures column says what was read.
        comments.push(match &arm.figure {
            Some(own) => raw::figures_comment(&arm.label, &own.spec.unit),
            None => raw::unit_comment(&arm.label, &arm.unit, arm.ns_per_unit),
        });
    }
    comments.extend(result.conditions().iter().map(|c| format!("{}: {}", c.field, c.value)));
    if let Some(failure) = &result.failure {
        comments.push(format!("ended early: {failure}"));
    }
    let text = raw::render_with(&comments, &result.trials, result.figures.as_deref());
    match &result.failure {
        None => reserved.write(&text),
        Some(_) => raw::write_once(dir, &format!("failed-{}", result.started_at.format("%Y%m%d-%H%M%S")), &text),
    }
}

/// Adds the session to `notebook`: one MEASURED Runs row per arm, and a note
/// with the verdict of a comparison. A run that ended early adds no row — a
/// note names what happened and the raw file that keeps its trials.
pub fn add_rows(notebook: &mut Notebook, result: &BenchResult, raw_file: &RawFile, at: DateTime<Utc>) -> RowsAdded {
    add_rows_extending(notebook, result, raw_file, at, &[])
}

/// [`add_rows`] for a rerun of earlier rows to more trials (SPEC S10): arm
/// `i`'s row is linked to run `extends[i]`, by its `extends` field and a
/// condition naming it. The earlier rows are not touched.
pub fn add_rows_extending(
    notebook: &mut Notebook,
    result: &BenchResult,
    raw_file: &RawFile,
    at: DateTime<Utc>,
    extends: &[u32],
) -> RowsAdded {
    let (path, sha256) = (raw_file.path.clone(), raw_file.sha256.clone());
    let mut runs = Vec::new();
    if let Some(failure) = &result.failure {
        // Commands quoted as they would run, so a line break in one shows.
        let quoted = |argv: &[String]| format!("`{}`", vernier_model::display::quote_argv(argv));
        let what = match &result.scan {
            Some(scan) => {
                let points = result.arms.len();
                let noun = if points == 1 { "point" } else { "points" };
                format!("A sweep of {} over {points} {noun}", quoted(&scan.template))
            }
            None => {
                let commands: Vec<String> = result.arms.iter().map(|a| quoted(&a.command)).collect();
                format!("A run of {}", commands.join(" against "))
            }
        };
        let note = format!(
            "{what} ended early: {failure}. Its {} trials are kept in {path} (SHA-256 {}).",
            result.trials.len(),
            &sha256[..12]
        );
        let _ = notebook.add_vernier_note(&note, at);
        return RowsAdded { runs, raw_file: path, sha256, sweep: None };
    }
    let conditions = result.conditions();
    // The Environment as stated when the run started, if the face said.
    let stated = result.stated.clone().unwrap_or_else(|| notebook.environment().clone());
    for (i, arm) in result.arms.iter().enumerate() {
        let Some(summary) = arm.summary.clone() else { continue };
        let mut row_conditions = conditions.clone();
        if let Some(kept) = &arm.result_check {
            row_conditions.push(Condition::new(ConditionName::ResultCheck, kept.clone()));
        }
        // SPEC E19: its fixed inputs, where known or stated.
        if let Some(inputs) = &arm.inputs {
            row_conditions.push(Condition::new(ConditionName::Inputs, inputs.clone()));
        }
        if let Some(check) = &arm.first_trial_check {
            row_conditions.push(Condition::new(ConditionName::FirstTrialCheck, check.describe(&arm.unit)));
        }
        // SPEC E19: where its trials ran, when the OS told.
        if let Some(cpus) = &arm.trial_cpus {
            row_conditions.push(Condition::new(ConditionName::TrialCpus, cpus.describe()));
        }
        // SPEC E13, C.6: what the CPU time and the cycles say of the wall
        // time, worked out now and kept with the row.
        let findings = arm.work_findings();
        if !findings.is_empty() {
            row_conditions.push(Condition::new(ConditionName::WorkCheck, findings.join("; ")));
        }
        // SPEC N11: each arm's build as stated, else the Environment's —
        // unless the arms were given their own, and this one was not.
        let build = match result.build_of(i) {
            Some(build) => Some(Condition::new(ConditionName::Build, build)),
            None if arm.provenance.is_some() && !result.builds_per_arm() => build_condition(&stated, None),
            None => None,
        };
        // Listed where it always was: after what was read from the machine.
        let after_machine = row_conditions
            .iter()
            .position(|c| c.name().is_none_or(|n| n.kind() != ConditionKind::Machine))
            .unwrap_or(row_conditions.len());
        row_conditions.splice(after_machine..after_machine, build);
        // SPEC N15: the recipe ran just before this row's warm-up.
        let recipe = result.recipes.get(i).cloned().flatten();
        if let Some(recipe) = &recipe {
            let at = (after_machine + 1).min(row_conditions.len());
            row_conditions.insert(at, Condition::new(ConditionName::BuildRecipe, recipe.condition_text()));
        }
        if let Some(provenance) = &arm.provenance {
            row_conditions.extend(provenance.conditions());
        }
        let extends = extends.get(i).copied();
        if let Some(run) = extends {
            let text = format!("run {run}, rerun to {} timed trials (S10)", summary.n);
            row_conditions.push(Condition::new(ConditionName::Extends, text));
        }
        let measurement = Measurement {
            what: arm.what.clone(),
            command: arm.command.clone(),
            warmup: result.warmup,
            warmup_trials: arm.warmup_trials,
            summary,
            unit: arm.unit.clone(),
            ns_per_unit: arm.ns_per_unit,
            conditions: row_conditions,
            raw_file: Some(RawFile { arm: arm.label.clone(), ..raw_file.clone() }),
            tag: Tag::Measured,
            synthetic: false,
            extends,
            figure: arm.figure.clone(),
            work: arm.work.clone(),
            recipe,
            // SPEC S19, E18: the tail against the budget, and the session's floor.
            tail: arm.tail.clone(),
            noise_floor: result.noise_floor.clone(),
            // SPEC S16: what this row's time is the time of.
            boundary: Some(match (&arm.figure, &arm.provenance) {
                (Some(own), _) => Boundary::OwnFigure { metric: own.spec.describe() },
                (None, Some(_)) => Boundary::ProcessWall,
                (None, None) => Boundary::KernelCall,
            }),
        };
        runs.push(notebook.record_run_stated(measurement, stated.clone(), at));
    }
    let sweep = result.scan.as_ref().and_then(|scan| record_sweep(notebook, result, scan, &runs, at));
    if let (Some(c), [a, b], [la, lb]) = (&result.comparison, runs.as_slice(), result.labels.as_slice()) {
        let pair = NewPair {
            what: result.what.clone().unwrap_or_else(|| format!("{la} vs {lb}")),
            labels: [la.clone(), lb.clone()],
            verdict: c.clone(),
            paired: result.paired.clone(),
            order: result.order.clone(),
        };
        // Both rows were just recorded, so the pair's runs exist.
        if let Ok(number) = notebook.record_pair(pair, [*a, *b], at)
            && let Some(note) = notebook.pair(number).map(|p| p.note(notebook, "interleaved"))
        {
            let _ = notebook.add_vernier_note(&note, at);
        }
    }
    RowsAdded { runs, raw_file: path, sha256, sweep }
}

/// SPEC E16: the rows of a scan, one per point, as one sweep with a note.
fn record_sweep(
    notebook: &mut Notebook,
    result: &BenchResult,
    scan: &ScanSpec,
    runs: &[u32],
    at: DateTime<Utc>,
) -> Option<u32> {
    // Rows are recorded for the arms that have a summary; a failed run has none.
    let points: Vec<Vec<String>> =
        result.arms.iter().filter(|a| a.summary.is_some()).filter_map(|a| a.point.clone()).collect();
    if points.len() != runs.len() {
        return None;
    }
    let template = vernier_model::display::quote_argv(&scan.template);
    let sweep = NewSweep {
        what: result.what.clone().unwrap_or_else(|| template.clone()),
        template: scan.template.clone(),
        params: scan.scan.params.clone(),
        points,
    };
    let number = notebook.record_sweep(sweep, runs.to_vec(), at).ok()?;
    if let Some(recorded) = notebook.sweeps().iter().find(|s| s.number == number) {
        let note = format!(
            "Sweep {}: {} of `{template}`, {}; every round took one trial of each point, the order rotated by one each round.",
            recorded.label(),
            recorded.runs_text(),
            recorded.params_text(),
        );
        let _ = notebook.add_vernier_note(&note, at);
    }
    Some(number)
}

/// A measured program's `build` condition (SPEC N11): the build `given`
/// for the row, else `environment`'s Compiler + flags (as stated when the
/// run started), said to come from there. Nothing when neither says: the audit
/// then names the row (A2).
pub fn build_condition(environment: &Environment, given: Option<&str>) -> Option<Condition> {
    if let Some(given) = given.map(str::trim).filter(|g| !g.is_empty()) {
        return Some(Condition::new(ConditionName::Build, given));
    }
    let stated = environment.get(EnvField::CompilerFlags);
    let stated = stated.trim();
    (!stated.is_empty()).then(|| {
        Condition::new(ConditionName::Build, format!("{stated} {}", vernier_model::notebook::FROM_ENVIRONMENT))
    })
}

/// [`write_raw`] then [`add_rows`] on a notebook in memory; the caller
/// saves it (tests that build a notebook row by row).
pub fn record(
    dir: &Path,
    notebook: &mut Notebook,
    result: &BenchResult,
    at: DateTime<Utc>,
) -> Result<RowsAdded, RawError> {
    // SPEC N15: the build's sources, kept before the rows that name them.
    super::raw::keep_sources(dir, &result.kept_sources)?;
    let raw_file = write_raw(dir, result, notebook.runs().len() + 1)?;
    Ok(add_rows(notebook, result, &raw_file, at))
}

/// A kernel row's `result check`: verified after every trial, and the
/// result it verified (a checksum, a closed cycle).
pub fn result_check(sum: &str) -> Condition {
    Condition::new(ConditionName::ResultCheck, format!("verified after every trial; {sum}"))
}
