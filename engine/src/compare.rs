//! Two recorded rows compared (SPEC S7, S13, S14, S16, S18, E18).
//!
//! S7 alone looks only at two medians and two IQRs. Two rows of a notebook
//! also carry where and when they were measured, and the course names two
//! ways that makes a difference meaningless: a run on mains against a run
//! on battery (S13), and a difference smaller than what the machine itself
//! did between two sessions (S14, checked against a control condition
//! repeated in each). Every face that compares two rows —
//! `vernier compare --notebook`, the window's Runs section and a reproduce —
//! takes its verdict from here, so the guards are the same everywhere.
//!
//! Sessions: the Runs rows, in the order they were recorded, form one
//! session until more than [`SESSION_GAP_HOURS`] pass without a row. A gap
//! in the rows, not the calendar date, because the notebook keeps UTC times
//! and no time zone: a date boundary would cut an evening's work in two at
//! UTC midnight, while a night away from the machine always leaves a gap.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::display::{inert, quote_argv};
use crate::notebook::{Boundary, ConditionName, Conditions, Measurement, Notebook, Run};
use crate::stats::{Agreement, Comparison, Spread, compare, format_significant};

/// A new session starts when this many hours pass without a recorded run.
pub const SESSION_GAP_HOURS: i64 = 8;

/// Why two rows cannot be compared at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    /// No such row.
    #[error("there is no run {0} in this notebook")]
    NoSuchRun(u32),
    /// The same row twice.
    #[error("run {0} is compared with itself: give two different runs")]
    SameRun(u32),
    /// Units with no common scale (`ns/access` against `s`, `GB/s` against `ms`).
    #[error(
        "run {a} is in '{unit_a}' and run {b} in '{unit_b}': these cannot be put on one scale, so their medians \
         cannot be compared"
    )]
    Units {
        /// Run A.
        a: u32,
        /// A's unit.
        unit_a: String,
        /// Run B.
        b: u32,
        /// B's unit.
        unit_b: String,
    },
}

/// The factor that turns a value in `from` into `to` for time units; 1 when
/// the units are the same text; `None` when they share no scale.
pub fn unit_scale(from: &str, to: &str) -> Option<f64> {
    if from == to { Some(1.0) } else { crate::stats::units::time_factor(from, to) }
}

/// The power sources S13 tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Power {
    Mains,
    Battery,
}

impl Power {
    /// What a recorded power source says plainly: the machine's `mains` or
    /// `battery`, or a student's "AC", "plugged in", "on battery (80 %)",
    /// "no battery — mains presumed". Text that names both, or neither,
    /// says nothing S13 can use.
    fn read(text: &str) -> Option<Power> {
        let mut text = text.to_lowercase();
        // A battery said to be absent is no battery.
        for absent in ["no battery", "without battery", "without a battery", "not on battery", "no batteries"] {
            text = text.replace(absent, " ");
        }
        let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        let has = |w: &[&str]| words.iter().any(|word| w.contains(word));
        let mains = has(&["mains", "ac", "plugged", "charger", "charging", "adapter", "wall"]);
        let battery = has(&["battery", "batteries", "unplugged"]);
        match (mains, battery) {
            (true, false) => Some(Power::Mains),
            (false, true) => Some(Power::Battery),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Power::Mains => "mains",
            Power::Battery => "battery",
        }
    }
}

/// What S13 found about the two rows' power sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PowerCheck {
    /// Both recorded, and the same.
    #[serde(rename = "same")]
    Same,
    /// One ran on mains, the other on battery: no claim.
    #[serde(rename = "differs")]
    Differs,
    /// At least one is not recorded, or does not say plainly which: flagged.
    #[serde(rename = "cannot tell")]
    CannotTell,
}

/// How much a check weighs on the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CaveatKind {
    /// The verdict makes no claim.
    NoClaim,
    /// The verdict stands, flagged with the reason.
    Flag,
    /// Said beside the verdict; it weakens nothing.
    Report,
}

/// One finding about two rows beyond their medians.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Caveat {
    /// The rule, e.g. `S13`.
    pub rule: &'static str,
    /// What it does to the verdict.
    pub kind: CaveatKind,
    /// The sentence, inert.
    pub text: String,
}

impl Caveat {
    pub(crate) fn new(rule: &'static str, kind: CaveatKind, text: String) -> Self {
        Self { rule, kind, text }
    }
}

/// SPEC S13 between two rows named `a.0` and `b.0` with the power sources
/// they recorded: only a known difference (mains against battery) takes the
/// claim away; a source not recorded, or not plain, is said and flagged.
pub fn power_check(a: (&str, Option<&str>), b: (&str, Option<&str>)) -> (PowerCheck, Option<Caveat>) {
    let (read_a, read_b) = (a.1.and_then(Power::read), b.1.and_then(Power::read));
    // The same words stated for both rows are the same source, whatever
    // they say (S13 is by meaning: "cloud VM, mains presumed" twice is one).
    let same_text = match (a.1, b.1) {
        (Some(pa), Some(pb)) => {
            let norm = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
            !norm(pa).is_empty() && norm(pa) == norm(pb) && !is_unknown(pa)
        }
        _ => false,
    };
    if same_text {
        return (PowerCheck::Same, None);
    }
    match (read_a, read_b) {
        (Some(pa), Some(pb)) if pa == pb => (PowerCheck::Same, None),
        (Some(pa), Some(pb)) => {
            let text = format!(
                "never compare a mains run against a battery run: {} ran on {}, {} on {}",
                a.0,
                pa.name(),
                b.0,
                pb.name()
            );
            (PowerCheck::Differs, Some(Caveat::new("S13", CaveatKind::NoClaim, text)))
        }
        _ => {
            let said = |(name, power): (&str, Option<&str>), read: Option<Power>| match (power, read) {
                (None, _) => format!("{name} did not record its power source"),
                (Some(p), None) => format!("{name} recorded \"{}\"", inert(p)),
                (Some(_), Some(p)) => format!("{name} ran on {}", p.name()),
            };
            let text = format!(
                "cannot tell whether both ran on the same power source: {}, {}",
                said(a, read_a),
                said(b, read_b)
            );
            (PowerCheck::CannotTell, Some(Caveat::new("S13", CaveatKind::Flag, text)))
        }
    }
}

/// A power source that says nothing: what a machine without a battery
/// interface reports, or a placeholder.
fn is_unknown(text: &str) -> bool {
    let t = text.trim().to_lowercase();
    ["", "?", "-", "—", "n/a", "na", "unknown", "not available", "not stated", "not readable"].contains(&t.as_str())
}

/// The S7 verdict `s7` after `checks`: no claim when one of them says so,
/// the verdict flagged when one flags it, and what is reported said after.
/// The metric stays first, as S7 writes it.
pub fn guarded(s7: &Comparison, metric: &str, checks: &[Caveat]) -> Comparison {
    let texts = |kind: CaveatKind| checks.iter().filter(move |c| c.kind == kind).map(|c| c.text.as_str());
    let blocks: Vec<&str> = texts(CaveatKind::NoClaim).collect();
    let mut guarded = if blocks.is_empty() { s7.clone() } else { s7.no_claim(metric, &blocks) };
    for flag in texts(CaveatKind::Flag) {
        guarded.verdict.push_str(&format!("; flagged: {flag}"));
    }
    for report in texts(CaveatKind::Report) {
        guarded.verdict.push_str(&format!("; {report}"));
    }
    guarded
}

/// Runs recorded without a gap of more than [`SESSION_GAP_HOURS`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Session {
    /// 1 for the notebook's first session.
    pub number: usize,
    /// When its first run was recorded.
    pub start: DateTime<Utc>,
    /// When its last run was recorded.
    pub end: DateTime<Utc>,
    /// Its runs, in recorded order.
    #[serde(skip)]
    pub runs: Vec<u32>,
}

impl Session {
    /// "session 2 (2026-12-02 09:00–11:40 UTC)", or one time when its runs
    /// fall within one minute.
    pub fn describe(&self) -> String {
        let start = self.start.format("%Y-%m-%d %H:%M").to_string();
        let end = self.end.format("%Y-%m-%d %H:%M").to_string();
        let end = if end == start {
            String::new()
        } else if self.end.date_naive() == self.start.date_naive() {
            format!("–{}", self.end.format("%H:%M"))
        } else {
            format!("–{end}")
        };
        format!("session {} ({start}{end} UTC)", self.number)
    }
}

/// The notebook's Runs rows grouped into sessions (see the module's note),
/// discarded rows included: the machine was in use then all the same.
pub fn sessions(runs: &[Run]) -> Vec<Session> {
    let mut order: Vec<&Run> = runs.iter().collect();
    order.sort_by_key(|r| (r.recorded_at, r.number));
    let mut sessions: Vec<Session> = Vec::new();
    for run in order {
        match sessions.last_mut() {
            Some(s) if run.recorded_at - s.end <= Duration::hours(SESSION_GAP_HOURS) => {
                s.end = run.recorded_at;
                s.runs.push(run.number);
            }
            _ => sessions.push(Session {
                number: sessions.len() + 1,
                start: run.recorded_at,
                end: run.recorded_at,
                runs: vec![run.number],
            }),
        }
    }
    sessions
}

/// The control condition measured in both sessions (SPEC S14).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ControlDrift {
    /// The control's command.
    pub command: Vec<String>,
    /// The control row in run A's session (the one nearest A in time).
    pub run_a: u32,
    /// The control row in run B's session (the one nearest B in time).
    pub run_b: u32,
    /// Its median in A's session, in `unit`.
    pub median_a: f64,
    /// Its median in B's session, in `unit`.
    pub median_b: f64,
    /// The unit of both medians (the control row's in A's session).
    pub unit: String,
    /// `(median_b − median_a) / median_a`: how far the machine moved.
    pub drift: f64,
}

/// Two rows of one notebook compared: S7 on their medians and IQRs as
/// recorded, on one scale, with S13 and S14 applied. Its JSON form is SPEC
/// C's `compare` keys (the guarded verdict) and the guards' own fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowComparison {
    /// Run A's number.
    pub run_a: u32,
    /// Run B's number.
    pub run_b: u32,
    /// The unit of every figure: A's (B's converted when it was recorded in
    /// another unit of time).
    pub unit: String,
    /// The metric the verdict names first.
    pub metric: String,
    /// The verdict after the guards: `claimed` only when S7 claims and no
    /// guard takes the claim away.
    #[serde(flatten)]
    pub comparison: Comparison,
    /// What S7 alone says (`d > iA + iB`).
    pub s7_claimed: bool,
    /// A's power source as it recorded it.
    pub power_a: Option<String>,
    /// B's power source as it recorded it.
    pub power_b: Option<String>,
    /// S13's finding.
    pub power: PowerCheck,
    /// A's session.
    pub session_a: Session,
    /// B's session.
    pub session_b: Session,
    /// `|median_b − median_a| / median_a`; `None` when A's median is zero.
    pub effect: Option<f64>,
    /// The control's drift between the two sessions, when they differ and
    /// both have one.
    pub control: Option<ControlDrift>,
    /// Every finding beyond S7, in the order the verdict says them.
    pub checks: Vec<Caveat>,
}

impl RowComparison {
    /// True when the two rows are from one session.
    pub fn same_session(&self) -> bool {
        self.session_a.number == self.session_b.number
    }
}

/// Compares run `b` against run `a` of `nb` (SPEC S7, S13, S14).
pub fn compare_runs(nb: &Notebook, a: u32, b: u32) -> Result<RowComparison, CompareError> {
    if a == b {
        return Err(CompareError::SameRun(a));
    }
    let run_a = nb.run(a).ok_or(CompareError::NoSuchRun(a))?;
    let run_b = nb.run(b).ok_or(CompareError::NoSuchRun(b))?;
    let (ma, mb) = (&run_a.measurement, &run_b.measurement);
    let scale = unit_scale(&mb.unit, &ma.unit).ok_or_else(|| CompareError::Units {
        a,
        unit_a: ma.unit.clone(),
        b,
        unit_b: mb.unit.clone(),
    })?;
    let (boundary_a, boundary_b) = (ma.timing_boundary(), mb.timing_boundary());
    let metric = metric_of(&boundary_a, &boundary_b, &ma.unit);
    let (name_a, name_b) = (format!("run {a}"), format!("run {b}"));
    let side_a = Spread::from(&ma.summary);
    let side_b = Spread { median: mb.summary.median * scale, iqr: mb.summary.iqr * scale };
    let s7 = compare(side_a, side_b, (&name_a, &name_b), &metric, &ma.unit);

    let mut checks = Vec::new();
    for run in [run_a, run_b].into_iter().filter(|r| r.discarded.is_some()) {
        let reason = run.discarded.as_ref().map(|d| inert(&d.reason).into_owned()).unwrap_or_default();
        checks.push(Caveat::new("N5", CaveatKind::Flag, format!("run {} was discarded ({reason})", run.number)));
    }
    // S16: two times of different things are not one measure.
    if !boundary_a.same_as(&boundary_b, [&ma.unit, &mb.unit]) {
        checks.push(Caveat::new(
            "S16",
            CaveatKind::NoClaim,
            format!(
                "not like with like: run {a} times {}, run {b} times {}; compare rows that time the same thing",
                boundary_a.describe(),
                boundary_b.describe()
            ),
        ));
    }
    // S18: like conditions on both sides — the same warm-up, the same n.
    let conditions = |m: &Measurement| (m.warmup.to_string(), m.warmup_trials, m.summary.n);
    let ((warm_a, warmed_a, n_a), (warm_b, warmed_b, n_b)) = (conditions(ma), conditions(mb));
    if (&warm_a, warmed_a, n_a) != (&warm_b, warmed_b, n_b) {
        checks.push(Caveat::new(
            "S18",
            CaveatKind::NoClaim,
            format!(
                "not under like conditions: run {a} had {warm_a} ({warmed_a} taken) and {n_a} timed trials, run {b} had \
                 {warm_b} ({warmed_b} taken) and {n_b}; measure both with the same warm-up and n"
            ),
        ));
    }
    // E18: a difference below the instrument's noise floor — the larger
    // of the two sessions' floors — is one it cannot tell from its noise.
    let effect = (side_a.median > 0.0).then(|| (side_b.median - side_a.median).abs() / side_a.median);
    let floor = [&ma.noise_floor, &mb.noise_floor].into_iter().flatten().max_by(|x, y| x.spread.total_cmp(&y.spread));
    if let Some(below) = floor.zip(effect).and_then(|(f, e)| f.below(e, [&name_a, &name_b])) {
        checks.push(Caveat::new("E18", CaveatKind::NoClaim, below.sentence()));
    }
    checks.extend(result_check(run_a, run_b));
    let (power_a, power_b) = (run_a.context().power_source(), run_b.context().power_source());
    let (power, power_finding) = power_check((&name_a, power_a.as_deref()), (&name_b, power_b.as_deref()));
    checks.extend(power_finding);

    let all = sessions(nb.runs());
    let session_of = |n: u32| all.iter().find(|s| s.runs.contains(&n)).cloned().ok_or(CompareError::NoSuchRun(n));
    let (session_a, session_b) = (session_of(a)?, session_of(b)?);
    let mut control = None;
    if session_a.number != session_b.number {
        let found = control_drift(nb, (run_a, &session_a), (run_b, &session_b));
        checks.push(session_check(&found, (a, b), effect));
        control = found.ok();
    }
    Ok(RowComparison {
        run_a: a,
        run_b: b,
        unit: ma.unit.clone(),
        comparison: guarded(&s7, &metric, &checks),
        metric,
        s7_claimed: s7.claimed,
        power_a,
        power_b,
        power,
        session_a,
        session_b,
        effect,
        control,
        checks,
    })
}

/// SPEC S18: where both rows kept the result their program computed (a
/// kernel's checksum, verified after every trial; the text `--check` read
/// from a command's output; a driver's checksum column, checked on import),
/// the two are compared as [`Agreement`] says: identical is said beside the
/// verdict, a difference takes the claim away.
fn result_check(a: &Run, b: &Run) -> Option<Caveat> {
    fn kept(r: &Run) -> Option<&str> {
        r.measurement.conditions.value_of(ConditionName::ResultCheck)
    }
    let names = [a.number, b.number].map(|n| format!("run {n}"));
    let commands = [&a.measurement.command[..], &b.measurement.command[..]];
    let agreement = Agreement::of_commands([&names[0], &names[1]], [kept(a)?, kept(b)?], commands)?;
    let kind = if agreement.claims_nothing() { CaveatKind::NoClaim } else { CaveatKind::Report };
    Some(Caveat::new("S18", kind, agreement.sentence()))
}

/// The metric the verdict names: wall time only where both rows time a
/// process or a kernel call on Vernier's clock; another instrument's time
/// is a time; a figure is its unit.
fn metric_of(a: &Boundary, b: &Boundary, unit: &str) -> String {
    let wall = |x: &Boundary| matches!(x, Boundary::ProcessWall | Boundary::KernelCall | Boundary::NotStated);
    match unit_scale(unit, "s") {
        Some(_) if wall(a) && wall(b) => "median wall time".to_owned(),
        Some(_) => "median time".to_owned(),
        None => format!("median ({})", inert(unit)),
    }
}

/// Why no control drift could be found between two sessions.
#[derive(Debug, Clone, PartialEq)]
enum NoControl {
    /// The sessions of these runs have no control row.
    Missing(Vec<u32>),
    /// Both have control rows, but of different commands.
    Unmatched,
}

/// The control rows of a session: kept rows marked as the control.
fn controls<'a>(nb: &'a Notebook, session: &Session) -> Vec<&'a Run> {
    session
        .runs
        .iter()
        .filter_map(|n| nb.run(*n))
        .filter(|r| r.discarded.is_none() && r.measurement.conditions.states(ConditionName::Control))
        .collect()
}

/// The control's drift between the session of `a` and that of `b`: for each
/// command controlled in both, its row nearest `a` in A's session against
/// its row nearest `b` in B's; when several commands are, the one that
/// moved most, so the drift is never understated.
fn control_drift(nb: &Notebook, a: (&Run, &Session), b: (&Run, &Session)) -> Result<ControlDrift, NoControl> {
    let (in_a, in_b) = (controls(nb, a.1), controls(nb, b.1));
    let missing: Vec<u32> =
        [(a.0.number, in_a.is_empty()), (b.0.number, in_b.is_empty())].iter().filter(|m| m.1).map(|m| m.0).collect();
    if !missing.is_empty() {
        return Err(NoControl::Missing(missing));
    }
    let mut commands: Vec<&Vec<String>> = Vec::new();
    for row in &in_a {
        if !commands.contains(&&row.measurement.command) {
            commands.push(&row.measurement.command);
        }
    }
    commands
        .into_iter()
        .filter_map(|command| {
            let ca = nearest(&in_a, command, a.0.recorded_at)?;
            let cb = nearest(&in_b, command, b.0.recorded_at)?;
            let scale = unit_scale(&cb.measurement.unit, &ca.measurement.unit)?;
            let (median_a, median_b) = (ca.measurement.summary.median, cb.measurement.summary.median * scale);
            (median_a > 0.0).then(|| ControlDrift {
                command: command.clone(),
                run_a: ca.number,
                run_b: cb.number,
                median_a,
                median_b,
                unit: ca.measurement.unit.clone(),
                drift: (median_b - median_a) / median_a,
            })
        })
        .max_by(|x, y| x.drift.abs().total_cmp(&y.drift.abs()))
        .ok_or(NoControl::Unmatched)
}

/// The row of `rows` that ran `command` nearest in time to `at`.
fn nearest<'a>(rows: &[&'a Run], command: &[String], at: DateTime<Utc>) -> Option<&'a Run> {
    rows.iter().copied().filter(|r| r.measurement.command == command).min_by_key(|r| (r.recorded_at - at).abs())
}

/// What decides a comparison across sessions (S14, the course's C.6:
/// never half an experiment on Monday and half on Wednesday).
const RERUN_OR_CONTROL: &str = "rerun both in one session, or measure a control (bench --control) in each session";

/// SPEC S14's finding for two rows of different sessions.
fn session_check(found: &Result<ControlDrift, NoControl>, (a, b): (u32, u32), effect: Option<f64>) -> Caveat {
    let apart = format!("runs {a} and {b} were recorded in different sessions");
    match (found, effect) {
        (Err(NoControl::Missing(runs)), _) => {
            let whose = match runs.as_slice() {
                [one] => format!("the session of run {one}"),
                _ => format!("the sessions of runs {a} and {b}"),
            };
            Caveat::new(
                "S14",
                CaveatKind::NoClaim,
                format!("{apart}; no control run in {whose}, so the day-to-day drift is unknown; {RERUN_OR_CONTROL}"),
            )
        }
        (Err(NoControl::Unmatched), _) => Caveat::new(
            "S14",
            CaveatKind::NoClaim,
            format!(
                "{apart}; their sessions' control runs time different commands, so the day-to-day drift is unknown; \
                 {RERUN_OR_CONTROL}"
            ),
        ),
        (Ok(c), effect) => {
            let moved = format!(
                "the control ({}) moved {} between them (run {} to run {})",
                quote_argv(&c.command),
                signed_percent(c.drift),
                c.run_a,
                c.run_b
            );
            match effect {
                Some(e) if c.drift.abs() > e => Caveat::new(
                    "S14",
                    CaveatKind::NoClaim,
                    format!(
                        "{apart} and the difference ({}) cannot be told from the day-to-day drift: {moved}, more \
                         than the difference",
                        percent(e)
                    ),
                ),
                Some(e) => Caveat::new(
                    "S14",
                    CaveatKind::Report,
                    format!("{apart}; {moved}, less than the difference ({})", percent(e)),
                ),
                None => Caveat::new(
                    "S14",
                    CaveatKind::NoClaim,
                    format!(
                        "{apart}; {moved}, but run {a}'s median is zero, so the difference has no share to weigh it \
                         against; {RERUN_OR_CONTROL}"
                    ),
                ),
            }
        }
    }
}

/// `0.061` as "6.1%", two significant digits as S7 writes its percentages,
/// so the verdict's figures read alike.
pub(crate) fn percent(share: f64) -> String {
    format!("{}%", format_significant(share * 100.0, 2))
}

/// `0.061` as "+6.1%", `-0.0041` as "-0.41%".
pub(crate) fn signed_percent(share: f64) -> String {
    let sign = if share > 0.0 { "+" } else { "" };
    format!("{sign}{}", percent(share))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::notebook::{CONTROL, Condition, Measurement, Tag, WarmupPolicy};
    use crate::stats::{NoiseFloor, Summary};

    /// 2026-11-30 09:00 UTC plus `hours`.
    fn at(hours: f64) -> DateTime<Utc> {
        let start = Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).single().expect("a valid date");
        start + Duration::seconds((hours * 3600.0) as i64)
    }

    fn row(command: &str, trials: &[f64], unit: &str, control: bool) -> Measurement {
        let mut conditions = vec![Condition::new(ConditionName::PowerSource, "not available")];
        if control {
            conditions.push(Condition::new(ConditionName::Control, CONTROL));
        }
        Measurement {
            what: command.into(),
            command: command.split(' ').map(str::to_owned).collect(),
            warmup: WarmupPolicy::Count(3),
            warmup_trials: 3,
            summary: Summary::of(trials).expect("trials"),
            unit: unit.into(),
            ns_per_unit: 1e6,
            conditions,
            raw_file: None,
            tag: Tag::Measured,
            synthetic: false,
            extends: None,
            figure: None,
            work: None,
            // Each a process's wall time, as a `bench` of the command keeps it.
            boundary: Some(Boundary::ProcessWall),
            recipe: None,
            tail: None,
            noise_floor: None,
        }
    }

    /// Medians 10.0 (IQR 0.1) and `b` (IQR 0.1), in ms.
    fn ten() -> [f64; 5] {
        [9.9, 9.95, 10.0, 10.05, 10.1]
    }

    fn around(m: f64) -> [f64; 5] {
        ten().map(|t| t - 10.0 + m)
    }

    /// A notebook stated on mains, with whatever rows `build` adds.
    fn notebook(build: impl FnOnce(&mut Notebook)) -> Notebook {
        let mut nb = Notebook::new("t", at(0.0));
        nb.set_environment("Power source", "mains").expect("field");
        build(&mut nb);
        nb
    }

    // SPEC S7: two rows of one session on one power source get S7's own
    // verdict, with nothing added.
    #[test]
    fn same_power_same_session_is_plain_s7() {
        let nb = notebook(|nb| {
            nb.record_run(row("./a", &ten(), "ms", false), at(0.1));
            nb.record_run(row("./b", &around(12.2), "ms", false), at(0.2));
        });
        let c = compare_runs(&nb, 1, 2).expect("comparable");
        let s7 = compare(
            Spread::from(&nb.runs()[0].measurement.summary),
            Spread::from(&nb.runs()[1].measurement.summary),
            ("run 1", "run 2"),
            "median wall time",
            "ms",
        );
        assert_eq!(c.comparison, s7);
        assert_eq!(c.comparison.verdict, "median wall time: run 2 is 1.22× run 1 (22% above run 1)");
        assert!(c.comparison.claimed && c.s7_claimed && c.checks.is_empty() && c.same_session());
        assert_eq!(c.power, PowerCheck::Same);
    }

    // SPEC S18 (issue 48 item 1): arms with another warm-up or another n
    // are flagged and make no claim, whatever S7 says; the same ones add
    // nothing.
    #[test]
    fn unlike_warm_up_or_n_makes_no_claim() {
        let nb = notebook(|nb| {
            nb.record_run(row("./a", &ten(), "ms", false), at(0.1));
            nb.record_run(
                Measurement {
                    warmup: WarmupPolicy::Count(0),
                    warmup_trials: 0,
                    ..row("./b", &around(12.2), "ms", false)
                },
                at(0.2),
            );
            nb.record_run(row("./c", &[11.0, 12.0, 12.2, 12.4, 13.0, 12.1, 12.3], "ms", false), at(0.3));
            nb.record_run(row("./d", &around(12.2), "ms", false), at(0.4));
        });
        for (b, why) in
            [(2, "run 2 had 0 warm-up trials (0 taken) and 5"), (3, "run 3 had 3 warm-up trials (3 taken) and 7")]
        {
            let c = compare_runs(&nb, 1, b).expect("comparable");
            assert!(c.s7_claimed && !c.comparison.claimed, "run {b}: {:?}", c.comparison);
            let s18 = c.checks.iter().find(|k| k.rule == "S18").expect("an S18 finding");
            assert_eq!(s18.kind, CaveatKind::NoClaim);
            assert!(s18.text.contains(why), "{}", s18.text);
        }
        assert!(compare_runs(&nb, 1, 4).expect("comparable").checks.is_empty(), "like with like adds nothing");
    }

    // SPEC E18 (issue 48 item 3): a difference S7 would claim but below the
    // noise floor either row's session measured makes no claim, in E18's
    // one sentence; a difference above it stands; rows without a floor
    // (imports, older rows) are compared as before.
    #[test]
    fn a_difference_below_the_noise_floor_makes_no_claim() {
        let nb = notebook(|nb| {
            let floored = NoiseFloor::of(&[10.0, 10.5]);
            nb.record_run(Measurement { noise_floor: floored, ..row("./a", &ten(), "ms", false) }, at(0.1));
            nb.record_run(row("./b", &around(10.3), "ms", false), at(0.2));
            nb.record_run(row("./c", &around(12.2), "ms", false), at(0.3));
        });
        let c = compare_runs(&nb, 2, 1).expect("comparable");
        assert!(c.s7_claimed && !c.comparison.claimed, "{:?}", c.comparison);
        let e18 = c.checks.iter().find(|k| k.rule == "E18").expect("an E18 finding");
        assert_eq!(e18.kind, CaveatKind::NoClaim);
        assert!(
            c.comparison.verdict.starts_with(
                "median wall time: no claim — the difference between run 2 and run 1 (2.9 %) is below the \
                 instrument's noise floor (5.0 %, one body timed back to back)"
            ),
            "{}",
            c.comparison.verdict
        );
        let c = compare_runs(&nb, 1, 3).expect("comparable");
        assert!(c.comparison.claimed && c.checks.is_empty(), "{:?}", c.checks);
        assert!(compare_runs(&nb, 2, 3).expect("comparable").checks.is_empty(), "no floor, nothing said");
    }

    // SPEC S18: two rows whose kept results (a kernel's checksum, a
    // driver's checksum column) differ make no claim and say both; the
    // same result is said beside the verdict; a row with none adds nothing.
    #[test]
    fn different_results_make_no_claim() {
        use crate::notebook::{Condition, ConditionName};
        let with_result = |cmd: &str, trials: &[f64], result: &str| {
            let mut m = row(cmd, trials, "ms", false);
            m.conditions.push(Condition::new(ConditionName::ResultCheck, result.to_owned()));
            m
        };
        let nb = notebook(|nb| {
            nb.record_run(with_result("./a", &ten(), "verified after every trial; checksum 12.5"), at(0.1));
            nb.record_run(with_result("./b", &around(12.2), "verified after every trial; checksum 12.5"), at(0.2));
            nb.record_run(with_result("./c", &around(12.2), "verified after every trial; checksum 13"), at(0.3));
            let differs = "checksums differ: checksum is not the same on every row";
            nb.record_run(with_result("./d", &around(12.2), differs), at(0.4));
            nb.record_run(row("./e", &around(12.2), "ms", false), at(0.5));
        });
        let same = compare_runs(&nb, 1, 2).expect("comparable");
        let s18 = same.checks.iter().find(|k| k.rule == "S18").expect("the results said");
        assert_eq!((s18.kind, s18.text.as_str()), (CaveatKind::Report, "the arms' results agree (checksum 12.5)"));
        assert!(same.comparison.claimed, "identical results take nothing away: {:?}", same.comparison);
        let differ = compare_runs(&nb, 1, 3).expect("comparable");
        let s18 = differ.checks.iter().find(|k| k.rule == "S18").expect("the results said");
        assert_eq!(s18.kind, CaveatKind::NoClaim);
        assert!(s18.text.contains("run 1 checksum 12.5, run 3 checksum 13"), "{}", s18.text);
        assert!(!differ.comparison.claimed);
        let within = compare_runs(&nb, 1, 4).expect("comparable");
        assert!(within.checks.iter().any(|k| k.rule == "S18" && k.kind == CaveatKind::NoClaim), "{:?}", within.checks);
        assert!(compare_runs(&nb, 1, 5).expect("comparable").checks.iter().all(|k| k.rule != "S18"));
        // Different computations differ by design: a sequential walk's sum
        // against a chase's closed laps, or one kernel at two sizes.
        let nb = notebook(|nb| {
            nb.record_run(with_result("seq", &ten(), "verified after every trial; sum 499500"), at(0.1));
            nb.record_run(with_result("chase", &around(12.2), "verified after every trial; 7 laps closed"), at(0.2));
            let mm = |size: &str, sum: &str| with_result(&format!("k --size {size}"), &ten(), sum);
            nb.record_run(mm("128", "verified after every trial; checksum 12.5"), at(0.3));
            nb.record_run(mm("256", "verified after every trial; checksum 99.5"), at(0.4));
        });
        for (a, b) in [(1, 2), (3, 4)] {
            let c = compare_runs(&nb, a, b).expect("comparable");
            assert!(c.checks.iter().all(|k| k.rule != "S18"), "runs {a} and {b}: {:?}", c.checks);
        }
    }

    // SPEC S16 (issue 48 item 8): two rows that state nothing about what
    // their numbers time (typed by hand) are not one measure: no claim.
    #[test]
    fn two_rows_that_state_no_boundary_make_no_claim() {
        let typed = |cmd: &str, trials: &[f64]| Measurement { boundary: None, ..row(cmd, trials, "ms", false) };
        let nb = notebook(|nb| {
            nb.record_run(typed("./a", &ten()), at(0.1));
            nb.record_run(typed("./b", &around(12.2)), at(0.2));
        });
        let c = compare_runs(&nb, 1, 2).expect("comparable");
        let s16 = c.checks.iter().find(|k| k.rule == "S16").expect("an S16 finding");
        assert_eq!(s16.kind, CaveatKind::NoClaim);
        assert!(c.s7_claimed && !c.comparison.claimed, "{:?}", c.comparison);
    }

    // SPEC S13: mains against battery (as stated when each row was
    // recorded) is flagged and makes no claim, whatever S7 says.
    #[test]
    fn mains_against_battery_makes_no_claim() {
        let nb = notebook(|nb| {
            nb.record_run(row("./a", &ten(), "ms", false), at(0.1));
            nb.set_environment("Power source", "on battery (80 %)").expect("field");
            nb.record_run(row("./b", &around(12.2), "ms", false), at(0.2));
            // Today's Environment is not what either row ran on.
            nb.set_environment("Power source", "mains").expect("field");
        });
        let c = compare_runs(&nb, 1, 2).expect("comparable");
        assert!(c.s7_claimed && !c.comparison.claimed);
        assert_eq!(c.power, PowerCheck::Differs);
        assert_eq!(
            c.comparison.verdict,
            "median wall time: no claim — never compare a mains run against a battery run: run 1 ran on mains, run 2 \
             on battery"
        );
        assert!(!c.comparison.verdict.contains('×'), "{}", c.comparison.verdict);
        // The machine's own reading wins over what was stated.
        let nb = notebook(|nb| {
            let mut battery = row("./a", &ten(), "ms", false);
            battery.conditions = vec![Condition::new(ConditionName::PowerSource, "battery")];
            nb.record_run(battery, at(0.1));
            nb.record_run(row("./b", &around(10.01), "ms", false), at(0.2));
        });
        let c = compare_runs(&nb, 1, 2).expect("comparable");
        assert!(!c.s7_claimed && !c.comparison.claimed);
        assert!(c.comparison.verdict.contains("run 1 ran on battery, run 2 on mains"), "{}", c.comparison.verdict);
    }

    // SPEC S13: one source unknown is said and flagged, but only a known
    // difference takes the claim away.
    #[test]
    fn an_unknown_power_source_is_flagged_not_blocking() {
        let nb = notebook(|nb| {
            nb.record_run(row("./a", &ten(), "ms", false), at(0.1));
            nb.set_environment("Power source", "").expect("field");
            nb.record_run(row("./b", &around(12.2), "ms", false), at(0.2));
        });
        let c = compare_runs(&nb, 1, 2).expect("comparable");
        assert_eq!(c.power, PowerCheck::CannotTell);
        assert!(c.comparison.claimed);
        assert_eq!(
            c.comparison.verdict,
            "median wall time: run 2 is 1.22× run 1 (22% above run 1); flagged: cannot tell whether both ran on the \
             same power source: run 1 ran on mains, run 2 did not record its power source"
        );
        assert_eq!(Power::read("AC"), Some(Power::Mains));
        assert_eq!(Power::read("mains (stated)"), Some(Power::Mains));
        assert_eq!(Power::read("Battery"), Some(Power::Battery));
        assert_eq!(Power::read("unknown"), None);
        assert_eq!(Power::read("mains, battery at 100 %"), None);
    }

    // SPEC S13 by meaning: the same words stated for both rows are one
    // source, and "no battery — mains presumed" is mains, not both.
    #[test]
    fn the_same_stated_source_is_the_same_source() {
        let vm = "not readable (cloud VM, no battery) — mains presumed";
        assert_eq!(Power::read(vm), Some(Power::Mains));
        assert_eq!(power_check(("run 1", Some(vm)), ("run 2", Some(vm))), (PowerCheck::Same, None));
        let odd = "the lab's bench supply";
        assert_eq!(
            power_check(("run 1", Some(odd)), ("run 2", Some("The lab's  bench supply"))),
            (PowerCheck::Same, None)
        );
        assert_eq!(power_check(("run 1", Some(odd)), ("run 2", Some("mains"))).0, PowerCheck::CannotTell);
        assert_eq!(
            power_check(("run 1", Some("not available")), ("run 2", Some("not available"))).0,
            PowerCheck::CannotTell
        );
    }

    // SPEC S14: a session ends after more than SESSION_GAP_HOURS without a row.
    #[test]
    fn sessions_are_split_by_gaps() {
        let nb = notebook(|nb| {
            for hours in [0.0, 3.0, 10.9, 19.0, 48.0] {
                nb.record_run(row("./a", &ten(), "ms", false), at(hours));
            }
        });
        let found = sessions(nb.runs());
        let members: Vec<Vec<u32>> = found.iter().map(|s| s.runs.clone()).collect();
        assert_eq!(members, [vec![1, 2, 3], vec![4], vec![5]]);
        assert_eq!(found[0].describe(), "session 1 (2026-11-30 09:00–19:54 UTC)");
        assert_eq!(found[2].describe(), "session 3 (2026-12-02 09:00 UTC)");
    }

    /// Run 1 (A) and its control (run 2) on day one; the control (run 3)
    /// at `control_b` and B (run 4) at 12.2 ms on day three.
    fn two_sessions(control_b: f64) -> Notebook {
        notebook(|nb| {
            nb.record_run(row("./a", &ten(), "ms", false), at(0.0));
            nb.record_run(row("./ctl", &around(5.0), "ms", true), at(0.5));
            nb.record_run(row("./ctl", &around(control_b), "ms", true), at(48.0));
            nb.record_run(row("./b", &around(12.2), "ms", false), at(48.5));
        })
    }

    // SPEC S14: across sessions, a control that moved more than the effect
    // leaves no claim.
    #[test]
    fn a_control_that_moved_more_than_the_effect_leaves_no_claim() {
        let c = compare_runs(&two_sessions(6.5), 1, 4).expect("comparable");
        assert!(c.s7_claimed && !c.comparison.claimed);
        let control = c.control.as_ref().expect("a control in both sessions");
        assert_eq!((control.run_a, control.run_b), (2, 3));
        assert!((control.drift - 0.3).abs() < 1e-9);
        assert_eq!(
            c.comparison.verdict,
            "median wall time: no claim — runs 1 and 4 were recorded in different sessions and the difference (22%) \
             cannot be told from the day-to-day drift: the control (./ctl) moved +30% between them (run 2 to run 3), \
             more than the difference"
        );
    }

    // SPEC S14: a steady control lets the claim stand, its drift reported.
    #[test]
    fn a_steady_control_lets_the_claim_stand() {
        let c = compare_runs(&two_sessions(5.02), 1, 4).expect("comparable");
        assert!(c.comparison.claimed && !c.same_session());
        assert_eq!(
            c.comparison.verdict,
            "median wall time: run 4 is 1.22× run 1 (22% above run 1); runs 1 and 4 were recorded in different \
             sessions; the control (./ctl) moved +0.40% between them (run 2 to run 3), less than the difference (22%)"
        );
        assert_eq!(c.checks[0].kind, CaveatKind::Report);
    }

    // SPEC S14 (amended): without a control in one session the drift is
    // unknown, so no claim, and the sentence says what would decide it. A
    // discarded control is no control.
    #[test]
    fn no_control_in_a_session_makes_no_claim() {
        let mut nb = two_sessions(5.0);
        nb.discard(crate::notebook::RowRef::Run(3), "lid closed", at(49.0)).expect("discard");
        let c = compare_runs(&nb, 1, 4).expect("comparable");
        assert!(c.s7_claimed && !c.comparison.claimed && c.control.is_none());
        assert_eq!(c.checks[0].kind, CaveatKind::NoClaim);
        assert_eq!(
            c.comparison.verdict,
            "median wall time: no claim — runs 1 and 4 were recorded in different sessions; no control run in the \
             session of run 4, so the day-to-day drift is unknown; rerun both in one session, or measure a control \
             (bench --control) in each session"
        );
    }

    // SPEC S16: a driver's in-process time against a process's wall time
    // makes no claim and names both boundaries; the metric is not called
    // wall time.
    #[test]
    fn unlike_boundaries_make_no_claim() {
        let nb = notebook(|nb| {
            let mut driver = row("./driver", &ten(), "ms", false);
            driver.boundary = Some(Boundary::Instrument {
                instrument: "benchmark.cpp".into(),
                stated: "multiply only, steady_clock".into(),
            });
            nb.record_run(driver, at(0.1));
            let mut wall = row("./mm", &around(20.0), "ms", false);
            wall.boundary = Some(Boundary::ProcessWall);
            nb.record_run(wall, at(0.2));
        });
        let c = compare_runs(&nb, 1, 2).expect("comparable");
        assert!(c.s7_claimed && !c.comparison.claimed, "{}", c.comparison.verdict);
        assert_eq!(c.metric, "median time");
        assert!(c.comparison.verdict.contains("not like with like: run 1 times multiply only, steady_clock (benchmark.cpp), run 2 times each run's wall time as a whole process"), "{}", c.comparison.verdict);
    }

    // SPEC S7, S12: rows in two units of time are put on A's scale; rows
    // whose units share none are refused, naming both.
    #[test]
    fn units_are_put_on_one_scale_or_refused() {
        let nb = notebook(|nb| {
            nb.record_run(row("./a", &ten(), "ms", false), at(0.1));
            nb.record_run(row("./b", &around(12.2).map(|t| t / 1000.0), "s", false), at(0.2));
            nb.record_run(row("./seq", &ten(), "ns/access", false), at(0.3));
        });
        let c = compare_runs(&nb, 1, 2).expect("comparable");
        assert!((c.comparison.median_b - 12.2).abs() < 1e-9 && c.unit == "ms");
        assert_eq!(
            compare_runs(&nb, 1, 3).map(|_| ()),
            Err(CompareError::Units { a: 1, unit_a: "ms".into(), b: 3, unit_b: "ns/access".into() })
        );
        assert_eq!(compare_runs(&nb, 1, 1).map(|_| ()), Err(CompareError::SameRun(1)));
        assert_eq!(compare_runs(&nb, 1, 9).map(|_| ()), Err(CompareError::NoSuchRun(9)));
    }
}
