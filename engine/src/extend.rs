//! Extending a run to more trials (SPEC S10): run N's spec — its command
//! or kernel, warm-up policy, pin, shell and cool-down, and for one arm of
//! an interleaved comparison both arms, interleaved again — rerun to 51
//! timed trials and recorded as new rows linked to the runs extended, then
//! whether the median moved by more than the difference the student means
//! to claim. The rows extended are never changed. A notebook is a file
//! anyone can edit, so the rerun is held behind the engine's one gate until
//! the student confirms its exact command (SPEC N13).

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::compare::unit_scale;
use crate::consent::{Gate, KeptFiles};
use crate::display::{inert, quote_argv};
use crate::harness::{self, BenchResult, BenchSpec, RowsAdded, Subject};
use crate::notebook::{ConditionName, Conditions, Notebook, RawFile, Run, Tag, WarmupPolicy};
use crate::platform::{pinning, program};
use crate::reproduce;
use crate::stats::units::DisplayUnit;
use crate::stats::{decimals_for_dispersion, format_at, format_plain, format_significant};

/// Timed trials of an extension: S10's "from 31 to 51".
pub const EXTENDED_TRIALS: u32 = crate::stats::EXTENDED_TRIALS as u32;

/// Why a run cannot be extended, or a claim not understood.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExtendError {
    /// No such row.
    #[error("there is no run {0} in this notebook")]
    NoSuchRun(u32),
    /// The row was set aside (N5).
    #[error("run {run} was discarded ({reason}); extend a run that is kept")]
    Discarded {
        /// The row.
        run: u32,
        /// Why it was discarded.
        reason: String,
    },
    /// Another tool measured it: there is no spec to repeat.
    #[error(
        "run {run} was imported ({from}): Vernier did not measure it, so there is no spec to rerun — time its command with `vernier bench` instead"
    )]
    Imported {
        /// The row.
        run: u32,
        /// Where it came from, as the row says.
        from: String,
    },
    /// Not a measurement at all (a synthetic, derived or cited figure).
    #[error("run {run} is not a measurement Vernier made ({what}), so there is nothing to rerun")]
    NotMeasured {
        /// The row.
        run: u32,
        /// What it is instead.
        what: String,
    },
    /// The warm-up policy is unknown, so the spec cannot be repeated.
    #[error("run {0} does not record its warm-up policy, so its spec cannot be repeated")]
    NoWarmup(u32),
    /// The row has no command.
    #[error("run {0} records no command, so there is nothing to rerun")]
    NoCommand(u32),
    /// A `vernier bench --kernel` command that does not parse.
    #[error("run {run}: '{command}' is not a kernel Vernier knows how to rerun")]
    BadKernel {
        /// The row.
        run: u32,
        /// Its command.
        command: String,
    },
    /// Already as long as an extension or longer.
    #[error("run {run} already has {timed} timed trials, no fewer than the {EXTENDED_TRIALS} an extension takes")]
    AlreadyExtended {
        /// The row.
        run: u32,
        /// Its timed trials.
        timed: usize,
    },
    /// A claim that cannot be read.
    #[error("'{given}' is not a claim: {why}")]
    BadClaim {
        /// The text given.
        given: String,
        /// What is wrong, and what to give instead.
        why: String,
    },
}

/// A run as it stood before the extension.
#[derive(Debug, Clone, PartialEq)]
pub struct Before {
    /// Its number.
    pub run: u32,
    /// `A` or `B` when it is one arm of a comparison.
    pub arm: Option<String>,
    /// Median, in `unit`.
    pub median: f64,
    /// IQR, in `unit`.
    pub iqr: f64,
    /// Timed trials.
    pub timed: usize,
    /// Its unit.
    pub unit: String,
}

/// What extending a run will do: the runs extended (one, or both arms of a
/// comparison, in the rerun's arm order) and the spec that reruns them.
#[derive(Debug, Clone, PartialEq)]
pub struct Extension {
    /// The run asked for.
    pub run: u32,
    /// Every run extended, in the order of the gate's commands.
    pub before: Vec<Before>,
    /// The rerun: the same subjects, warm-up, pin, shell and cool-down, 51
    /// timed trials; held until the student confirms it (N13).
    pub gate: Gate,
    /// Where a run extended came from when it was copied from someone's
    /// workbook (`run 1 was copied from the workbook …`), for the plan.
    pub origins: Vec<String>,
}

/// The difference the student means to claim, in the row's unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Claim {
    /// The difference, in the unit of the run asked for.
    pub value: f64,
    /// Where it came from, for the verdict: the text given, or the
    /// comparison it defaults to.
    pub from: String,
}

/// How one run's median moved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Moved {
    /// The run extended.
    pub extends: u32,
    /// The new row.
    pub recorded_run: Option<u32>,
    /// `A` or `B` in a comparison.
    pub arm: Option<String>,
    /// Its median before.
    pub median_before: f64,
    /// The new row's median.
    pub median_after: f64,
    /// `|median_after − median_before|`.
    pub moved: f64,
    /// Its IQR before.
    pub iqr_before: f64,
    /// The new row's IQR.
    pub iqr_after: f64,
    /// Timed trials before.
    pub timed_before: usize,
    /// Timed trials of the new row.
    pub timed_after: usize,
    /// Unit of its figures: the run's own (two arms may differ).
    pub unit: String,
}

impl Moved {
    /// The medians before and after, and the move between them, as one
    /// sentence states them (S17): in one unit (S12) and at one place — the
    /// finer of the places the two IQRs support (S6) and the one the move
    /// needs for two significant digits — so the move shown is the
    /// difference of the medians shown: "from 206.8 ms to 204.0 ms, moved
    /// 2.8 ms", never "from 207 ms to 204 ms, moved 2.8 ms".
    pub fn moved_shown(&self) -> [String; 3] {
        let unit = self.display_unit();
        let [before, after, moved] = [self.median_before, self.median_after, self.moved].map(|v| unit.scale(v));
        let needed = (moved.is_finite() && moved > 0.0).then(|| 1 - moved.log10().floor() as i32);
        let s6 = |iqr: f64| decimals_for_dispersion(unit.scale(iqr));
        let Some(place) = [s6(self.iqr_before), s6(self.iqr_after), needed].into_iter().flatten().max() else {
            return [before, after, moved].map(|v| unit.after(&format_plain(v)));
        };
        let at = |v: f64| format_at(v, place);
        let shown_move =
            (at(before).parse::<f64>().unwrap_or(before) - at(after).parse::<f64>().unwrap_or(after)).abs();
        [at(before), at(after), at(shown_move)].map(|text| unit.after(&text))
    }

    /// The unit this extension's numbers are shown in (S12): the one the
    /// smaller of the two medians is shown in.
    pub fn display_unit(&self) -> DisplayUnit {
        DisplayUnit::for_median(&self.unit, self.median_before.min(self.median_after))
    }

    /// A move or an IQR of this extension, two significant digits, on its
    /// own scale: `1.2 ms`, `58 µs`.
    pub fn amount(&self, value: f64) -> String {
        quantity(&self.unit, value)
    }
}

/// The result of an extension (SPEC S10): the run asked for, every run
/// extended, and the verdict against the claim or, without one, the IQR.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extended {
    /// The run asked for.
    #[serde(flatten)]
    pub asked: Moved,
    /// The difference to claim, in the unit of the run asked for; `None` when none was given and
    /// the run is not part of a comparison.
    pub claim: Option<f64>,
    /// Where the claim came from.
    pub claim_from: Option<String>,
    /// True when some run extended in the claim's unit moved by more than it.
    pub moved_more_than_claim: Option<bool>,
    /// True when some run extended moved by more than its own IQR.
    pub moved_more_than_iqr: bool,
    /// Every run extended (both arms of a comparison).
    pub arms: Vec<Moved>,
    /// The sentence every face shows and the note records.
    pub verdict: String,
}

impl Extension {
    /// The extension of run `run` of `notebook`, or why it cannot be
    /// extended. One arm of a kept comparison brings its partner: both are
    /// rerun interleaved, as they were measured.
    pub fn plan(notebook: &Notebook, run: u32) -> Result<Self, ExtendError> {
        let this = notebook.run(run).ok_or(ExtendError::NoSuchRun(run))?;
        let subject = rerunnable(this)?;
        let partner = notebook.comparison_partner(run).filter(|p| p.discarded.is_none());
        let mut arms = vec![(this, subject)];
        if let Some(other) = partner {
            let pair = (other, rerunnable(other)?);
            if arm_of(this).as_deref() == Some("B") {
                arms.insert(0, pair);
            } else {
                arms.push(pair);
            }
        }
        let m = &this.measurement;
        // Named and built as the rows it extends: the pair's labels and
        // what, or the run's own What; the build the row stated (N11).
        let pair = notebook.pair_of(run).map(|(p, _)| p).filter(|_| partner.is_some());
        let spec = BenchSpec {
            runs: EXTENDED_TRIALS,
            warmup: m.warmup,
            pin: m.conditions.value_of(ConditionName::PlacementUsed).and_then(pinning::pinned_cpu),
            cooldown: harness::recorded_cooldown(&m.conditions),
            build: m.conditions.value_of(ConditionName::Build).map(str::to_owned),
            what: match (pair, partner) {
                (Some(p), _) => Some(p.what.clone()),
                // A What that a command's line break made two lines stays unnamed.
                (None, None) => Some(m.what.clone()).filter(|w| !w.chars().any(char::is_control)),
                // A comparison from before pairs were kept: named by its commands.
                (None, Some(_)) => None,
            },
            labels: pair.map_or([None, None], |p| p.labels.clone().map(Some)),
            // The program's own figure, read as the row read it (E17).
            metric: m.figure.as_ref().map(|f| f.spec.clone()),
            // SPEC S19: held to the budget the row was, in seconds.
            budget: m.budget_seconds(),
            // SPEC E19: the inputs the row's student stated, stated again.
            inputs: m.conditions.value_of(ConditionName::Inputs).and_then(|i| harness::stated_inputs(&m.command, i)),
            ..BenchSpec::new(arms.iter().map(|(_, subject)| subject.clone()).collect())
        };
        let before = arms
            .iter()
            .map(|(r, _)| Before {
                run: r.number,
                arm: partner.and(arm_of(r)),
                median: r.measurement.summary.median,
                iqr: r.measurement.summary.iqr,
                timed: r.measurement.summary.n,
                unit: r.measurement.unit.clone(),
            })
            .collect();
        let origins = arms
            .iter()
            .filter_map(|(r, _)| {
                let from = r.measurement.conditions.value_of(ConditionName::CopiedFrom)?;
                Some(format!("run {} was copied from {}", r.number, inert(from)))
            })
            .collect();
        // What each row keeps of the files it ran vouches for its command.
        let kept: Vec<KeptFiles> = arms.iter().map(|(r, _)| KeptFiles::of(&r.measurement.conditions)).collect();
        Ok(Self { run, before, gate: Gate::new(spec, &kept), origins })
    }

    /// What will run, for the confirmation (N13, R2): the exact command(s)
    /// with any inline-code finding, the trials, the warm-up, where it is
    /// pinned, the cool-down, and where the runs came from when they were
    /// copied from someone's workbook.
    pub fn describe(&self) -> String {
        let gate = &self.gate;
        let runs: Vec<String> = self.before.iter().map(|b| b.run.to_string()).collect();
        let had: Vec<String> = self.before.iter().map(|b| b.timed.to_string()).collect();
        let (head, as_before) = match runs.as_slice() {
            [one] => (
                format!("Extend run {one} to {EXTENDED_TRIALS} timed trials, as a new row linked to it"),
                format!("as run {one}"),
            ),
            _ => (
                format!(
                    "Extend runs {} (a comparison) to {EXTENDED_TRIALS} timed trials each, interleaved again, as new \
                     rows linked to them",
                    runs.join(" and ")
                ),
                format!("as runs {}", runs.join(" and ")),
            ),
        };
        let placement =
            gate.pin().map_or_else(|| "not pinned".to_owned(), |cpu| format!("pinned to CPU {cpu}, {as_before}"));
        let cooldown = gate.cooldown().map_or_else(String::new, |c| {
            format!("\n  cool-down: {} s before the reversed block, {as_before}", c.as_secs_f64())
        });
        let origins: String = self.origins.iter().map(|o| format!("\n  from: {o}")).collect();
        format!(
            "{head}{}\n  timed trials: {EXTENDED_TRIALS} (they had {})\n  warm-up: {}, {as_before}\n  placement: \
             {placement}{cooldown}{origins}\n\
             Each command runs as an argument vector, exactly as quoted above, with your privileges.",
            gate.command_lines(),
            had.join(" and "),
            gate.warmup(),
        )
    }

    /// The run asked for, before.
    fn asked(&self) -> Option<&Before> {
        self.before.iter().find(|b| b.run == self.run)
    }

    /// `|median B − median A|` of the comparison, when the run is one arm
    /// of one and both arms share a unit.
    pub fn comparison_difference(&self) -> Option<f64> {
        match self.before.as_slice() {
            [a, b] if a.unit == b.unit => Some((b.median - a.median).abs()),
            _ => None,
        }
    }

    /// The claim to judge against: `given` (a value in the run's unit, with
    /// a time unit — `0.5ms`, `500us` — or a percentage of its median,
    /// `5%`), else the comparison's difference, else none.
    pub fn claim(&self, given: Option<&str>) -> Result<Option<Claim>, ExtendError> {
        let Some(asked) = self.asked() else { return Ok(None) };
        if let Some(text) = given {
            let value = parse_claim(text, &asked.unit, asked.median)
                .map_err(|why| ExtendError::BadClaim { given: text.to_owned(), why })?;
            return Ok(Some(Claim { value, from: format!("given as {}", text.trim()) }));
        }
        Ok(self.comparison_difference().map(|value| {
            let runs: Vec<String> = self.before.iter().map(|b| b.run.to_string()).collect();
            Claim { value, from: format!("the difference between the medians of runs {}", runs.join(" and ")) }
        }))
    }

    /// Records the rerun as new rows linked to the runs extended, with a
    /// note carrying the verdict; returns what was added and, when the
    /// rerun succeeded, the outcome. A rerun that ended early is recorded as
    /// any run is (a note, no row) and has no outcome.
    pub fn record(
        &self,
        notebook: &mut Notebook,
        result: &BenchResult,
        raw_file: &RawFile,
        at: DateTime<Utc>,
        claim: Option<&Claim>,
    ) -> (RowsAdded, Option<Extended>) {
        let links: Vec<u32> = self.before.iter().map(|b| b.run).collect();
        let recorded = harness::add_rows_extending(notebook, result, raw_file, at, &links);
        let outcome = self.outcome(result, claim, &recorded.runs);
        if let Some(outcome) = &outcome {
            // The note cannot be empty; a refusal would only lose the sentence.
            let _ = notebook.add_vernier_note(&outcome.verdict, at);
        }
        (recorded, outcome)
    }

    /// Compares the rerun with the runs extended; `recorded` are the new
    /// rows, in arm order.
    pub fn outcome(&self, result: &BenchResult, claim: Option<&Claim>, recorded: &[u32]) -> Option<Extended> {
        if result.failure.is_some() || result.arms.len() != self.before.len() {
            return None;
        }
        let arms = self
            .before
            .iter()
            .zip(&result.arms)
            .enumerate()
            .map(|(i, (before, arm))| {
                let summary = arm.summary.as_ref()?;
                let f = unit_scale(&arm.unit, &before.unit)?;
                let median_after = summary.median * f;
                Some(Moved {
                    extends: before.run,
                    recorded_run: recorded.get(i).copied(),
                    arm: before.arm.clone(),
                    median_before: before.median,
                    median_after,
                    moved: (median_after - before.median).abs(),
                    iqr_before: before.iqr,
                    iqr_after: summary.iqr * f,
                    timed_before: before.timed,
                    timed_after: summary.n,
                    unit: before.unit.clone(),
                })
            })
            .collect::<Option<Vec<Moved>>>()?;
        let asked = arms.iter().find(|m| m.extends == self.run)?.clone();
        let unit = &asked.unit;
        let moved_more_than_claim = claim.map(|c| arms.iter().filter(|m| m.unit == *unit).any(|m| m.moved > c.value));
        let moved_more_than_iqr = arms.iter().any(|m| m.moved > m.iqr_before);
        let verdict = verdict(&arms, unit, claim, moved_more_than_claim, moved_more_than_iqr);
        Some(Extended {
            asked,
            claim: claim.map(|c| c.value),
            claim_from: claim.map(|c| c.from.clone()),
            moved_more_than_claim,
            moved_more_than_iqr,
            arms,
            verdict,
        })
    }
}

/// What reruns `run`, or why nothing can.
fn rerunnable(run: &Run) -> Result<Subject, ExtendError> {
    let m = &run.measurement;
    let number = run.number;
    if let Some(d) = &run.discarded {
        return Err(ExtendError::Discarded { run: number, reason: d.reason.clone() });
    }
    if let Some(from) = m.conditions.value_of(ConditionName::Source) {
        return Err(ExtendError::Imported { run: number, from: from.to_owned() });
    }
    if m.synthetic || m.tag != Tag::Measured {
        let what = if m.synthetic { "synthetic data".to_owned() } else { format!("tagged {}", m.tag) };
        return Err(ExtendError::NotMeasured { run: number, what });
    }
    if m.warmup == WarmupPolicy::Unknown {
        return Err(ExtendError::NoWarmup(number));
    }
    if m.summary.n >= EXTENDED_TRIALS as usize {
        return Err(ExtendError::AlreadyExtended { run: number, timed: m.summary.n });
    }
    if m.command.is_empty() {
        return Err(ExtendError::NoCommand(number));
    }
    // A `--shell` row keeps the shell's argument vector; it goes through
    // the shell again, so the shell's cost is measured and stated again.
    if m.conditions.states(ConditionName::ShellCost)
        && let [_, _, script] = m.command.as_slice()
        && m.command == program::shell_argv(script)
    {
        return Ok(Subject::Command { argv: vec![script.clone()], shell: true });
    }
    reproduce::subject(number, &m.command)
        .map_err(|_| ExtendError::BadKernel { run: number, command: quote_argv(&m.command) })
}

/// The arm a run was in its comparison, from its raw file.
fn arm_of(run: &Run) -> Option<String> {
    run.measurement.raw_file.as_ref().map(|r| r.arm.clone())
}

/// Reads a claim in `unit`: a bare number is in the unit; a suffix may be
/// the unit itself or a time unit (converted to the unit's time, so `2ns`
/// is 2 for `ns/access`); `5%` is 5 % of `median`.
fn parse_claim(text: &str, unit: &str, median: f64) -> Result<f64, String> {
    let number = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
    let usage = || {
        format!(
            "give the difference you mean to claim as a number in the run's unit ({unit}), with a time unit (0.5ms, 500us) or as a percentage of its median (5%)"
        )
    };
    let text = text.trim();
    if let Some(percent) = text.strip_suffix('%') {
        return number(percent).map(|p| p / 100.0 * median.abs()).ok_or_else(usage);
    }
    if let Some(value) = number(text) {
        return Ok(value);
    }
    let mut suffixes = vec![unit, "ns", "us", "µs", "ms", "s"];
    suffixes.sort_by_key(|s| std::cmp::Reverse(s.len()));
    for suffix in suffixes.into_iter().filter(|s| !s.is_empty()) {
        let Some(value) = text.strip_suffix(suffix).and_then(number) else { continue };
        if suffix == unit {
            return Ok(value);
        }
        // The unit's time: `ns` of `ns/access`, the unit itself otherwise.
        let time = unit.split('/').next().unwrap_or(unit);
        return unit_scale(suffix, time)
            .map(|f| value * f)
            .ok_or_else(|| format!("the run's unit is {unit}, not a time; {}", usage()));
    }
    Err(usage())
}

/// `value` (in `unit`) on its own display scale (S12), two significant
/// digits, with the unit: a claim of 1000 s reads `1000 s`, not a billion µs.
pub fn quantity(unit: &str, value: f64) -> String {
    let shown = DisplayUnit::for_median(unit, value);
    shown.after(&format_significant(shown.scale(value), 2))
}

/// The verdict sentence: how the medians moved, then against the claim or,
/// without one, against the IQR with a plain word that none was given.
fn verdict(
    arms: &[Moved],
    unit: &str,
    claim: Option<&Claim>,
    more_than_claim: Option<bool>,
    more_than_iqr: bool,
) -> String {
    let claimed = |value: f64| quantity(unit, value);
    let moves: Vec<String> = arms
        .iter()
        .map(|m| {
            let [before, after, moved] = m.moved_shown();
            let name = m.arm.as_ref().map_or_else(String::new, |arm| format!("{arm} "));
            // Words, not arrows: the window's font has no arrow.
            format!("{name}median from {before} to {after}, moved {moved}")
        })
        .collect();
    let runs = |pick: fn(&Moved) -> Option<u32>| {
        arms.iter().map(|m| pick(m).map_or_else(|| "?".to_owned(), |n| n.to_string())).collect::<Vec<_>>()
    };
    let (old, new) = (runs(|m| Some(m.extends)), runs(|m| m.recorded_run));
    let trials = arms.first().map_or(0, |m| m.timed_before);
    let head = match arms {
        [_] => format!("Run {} extended to {EXTENDED_TRIALS} trials as run {}", old.join(""), new.join("")),
        _ => format!(
            "Runs {} extended to {EXTENDED_TRIALS} trials, interleaved again, as runs {}",
            old.join(" and "),
            new.join(" and ")
        ),
    };
    let (either, all, its) = if arms.len() > 1 {
        ("a median", "both medians", "their IQRs")
    } else {
        ("the median", "the median", "its IQR")
    };
    let judgement = match (claim, more_than_claim) {
        (Some(c), Some(true)) => format!(
            "{either} moved by more than the {} you mean to claim ({}): at {trials} trials the median was not settled \
             to that precision — do not claim a difference that small from these runs",
            claimed(c.value),
            c.from
        ),
        (Some(c), _) => format!(
            "{all} moved by less than the {} you mean to claim ({}): {trials} trials were enough for that claim",
            claimed(c.value),
            c.from
        ),
        (None, _) => {
            let iqrs: Vec<String> = arms.iter().map(|m| m.amount(m.iqr_before)).collect();
            let against = if more_than_iqr {
                format!(
                    "{either} moved by more than its IQR before ({}): it was not settled at {trials} trials",
                    iqrs.join(", ")
                )
            } else {
                format!("{all} stayed within {its} before ({})", iqrs.join(", "))
            };
            format!(
                "{against}. No claim was given, so this says nothing about a difference you mean to claim: name it (a value, or a percentage of the median) to judge it"
            )
        }
    };
    format!("{head}: {}; {judgement}.", moves.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC S10: a claim is a value in the row's unit, a time with its unit
    // (converted), or a percentage of the median; anything else is refused
    // with what to give instead.
    #[test]
    fn claims_are_read_in_the_rows_unit() {
        let close = |got: Result<f64, String>, want: f64| {
            let got = got.expect("a claim");
            assert!((got - want).abs() <= want.abs() * 1e-12, "{got} vs {want}");
        };
        close(parse_claim("0.0005", "s", 0.01), 0.0005);
        close(parse_claim("0.5ms", "s", 0.01), 0.0005);
        close(parse_claim("500us", "s", 0.01), 0.0005);
        close(parse_claim("500 µs", "s", 0.01), 0.0005);
        close(parse_claim("5%", "s", 0.01), 0.0005);
        close(parse_claim("2ns", "ns/access", 80.0), 2.0);
        close(parse_claim("2 ns/access", "ns/access", 80.0), 2.0);
        close(parse_claim("0.5ms", "ms", 8.0), 0.5);
        close(parse_claim("1s", "ms", 8.0), 1000.0);
        close(parse_claim("0", "s", 0.01), 0.0);
        for bad in ["", "fast", "-1ms", "5 %%", "1e999", "NaN", "3 furlongs"] {
            let why = parse_claim(bad, "s", 0.01).expect_err(bad);
            assert!(why.contains("percentage of its median"), "{bad}: {why}");
        }
        assert!(parse_claim("1ms", "GB/s", 3.0).expect_err("not a time").contains("not a time"));
    }

    // SPEC S19, S10 (issue 48 item 2): an extension is held to the budget
    // its row was, given back in seconds; a row without one states none.
    #[test]
    fn an_extension_keeps_the_rows_budget() {
        use crate::notebook::Notebook;
        use crate::stats::Tail;
        let trials = [10.0, 10.1, 10.2, 10.3, 17.0];
        let row = |tail: Option<Tail>| crate::notebook::Measurement { tail, ..frame_row(&trials, Vec::new()) };
        let mut nb = Notebook::new("t", chrono::Utc::now());
        nb.record_run(row(Tail::of(&trials, 16.7)), chrono::Utc::now());
        nb.record_run(row(None), chrono::Utc::now());
        let budget = |run: u32| {
            let gate = Extension::plan(&nb, run).expect("a plan").gate;
            let consent = gate.confirm(crate::consent::InlineCode::Allowed).expect("consent");
            gate.release(consent).expect("this plan").budget
        };
        let held = budget(1).expect("the row's budget");
        assert!((held - 0.0167).abs() < 1e-12, "{held}");
        assert_eq!(budget(2), None);
    }

    /// A recorded `./frame` row of `trials` (ms) with `conditions`.
    fn frame_row(trials: &[f64], conditions: Vec<crate::notebook::Condition>) -> crate::notebook::Measurement {
        crate::notebook::Measurement {
            what: "frame".into(),
            command: vec!["./frame".into(), "--seed".into(), "7".into()],
            warmup: WarmupPolicy::Count(3),
            warmup_trials: 3,
            summary: crate::stats::Summary::of(trials).expect("trials"),
            unit: "ms".into(),
            ns_per_unit: 1e6,
            conditions,
            raw_file: None,
            tag: Tag::Measured,
            synthetic: false,
            extends: None,
            figure: None,
            work: None,
            boundary: None,
            recipe: None,
            tail: None,
            noise_floor: None,
        }
    }

    // SPEC E19 (issue 48 item 4): an extension states again the inputs its
    // row's student stated; what the arguments show is read again from them.
    #[test]
    fn an_extension_keeps_the_rows_stated_inputs() {
        use crate::notebook::{Condition, Notebook};
        let mut nb = Notebook::new("t", chrono::Utc::now());
        let trials = [10.0, 10.1, 10.2];
        let recorded = "seed 7 (read from its arguments); words.txt (as stated)";
        let stated = frame_row(&trials, vec![Condition::new(ConditionName::Inputs, recorded)]);
        nb.record_run(stated, chrono::Utc::now());
        let seen = "seed 7 (read from its arguments)";
        nb.record_run(frame_row(&trials, vec![Condition::new(ConditionName::Inputs, seen)]), chrono::Utc::now());
        let inputs = |run: u32| {
            let gate = Extension::plan(&nb, run).expect("a plan").gate;
            let consent = gate.confirm(crate::consent::InlineCode::Allowed).expect("consent");
            gate.release(consent).expect("this plan").inputs
        };
        assert_eq!(inputs(1).as_deref(), Some("words.txt"));
        assert_eq!(inputs(2), None);
    }

    fn moved(run: u32, before: f64, after: f64, iqr: f64) -> Moved {
        Moved {
            extends: run,
            recorded_run: Some(run + 10),
            arm: None,
            median_before: before,
            median_after: after,
            moved: (after - before).abs(),
            iqr_before: iqr,
            iqr_after: iqr,
            timed_before: 31,
            timed_after: 51,
            unit: "ms".into(),
        }
    }

    // SPEC S17, S6, S12 (issue 47 item 4): the move reads as the difference
    // of the medians shown — one unit, one place, as fine as the move needs.
    #[test]
    fn the_move_is_the_difference_of_the_medians_shown() {
        let m = moved(3, 206.83, 204.02, 3.0);
        assert_eq!(m.moved_shown(), ["206.8 ms", "204.0 ms", "2.8 ms"]);
        let mixed = Moved { median_after: 12.65, iqr_after: 1.0, ..moved(3, 12.31, 12.65, 0.1) };
        assert_eq!(mixed.moved_shown(), ["12.31 ms", "12.65 ms", "0.34 ms"]);
        let still = moved(3, 5.0, 5.0, 0.0);
        assert_eq!(still.moved_shown(), ["5 ms", "5 ms", "0 ms"]);
    }

    // SPEC S10, S12: the verdict says how far the median moved and whether
    // that is more than the claim (each on its own readable scale); with no
    // claim it says so plainly.
    #[test]
    fn the_verdict_names_the_move_and_what_it_was_judged_against() {
        let arms = [moved(3, 1.20, 1.25, 0.02)];
        let claim = Claim { value: 0.5, from: "given as 0.5".into() };
        let held = verdict(&arms, "ms", Some(&claim), Some(false), true);
        let start = "Run 3 extended to 51 trials as run 13: median from 1.200 ms to 1.250 ms, moved 0.050 ms; ";
        assert!(held.starts_with(start), "{held}");
        assert!(held.contains("the median moved by less than the 500 µs you mean to claim (given as 0.5)"), "{held}");
        let small = Claim { value: 0.01, from: "given as 0.01".into() };
        let moved_more = verdict(&arms, "ms", Some(&small), Some(true), true);
        assert!(moved_more.contains("the median moved by more than the 10 µs you mean to claim"), "{moved_more}");
        let none = verdict(&arms, "ms", None, None, true);
        assert!(none.contains("more than its IQR before (20 µs)") && none.contains("No claim was given"), "{none}");
        let still = verdict(&[moved(3, 1.20, 1.21, 0.02)], "ms", None, None, false);
        assert!(still.contains("the median stayed within its IQR before (20 µs). No claim was given"), "{still}");
    }
}
