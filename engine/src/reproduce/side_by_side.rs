//! Their row and the rerun side by side (SPEC R3, R4): each arm judged
//! with the three outcomes, a comparison's paired ratio judged the same way,
//! the programs and a kernel's result check matched, the conditions that
//! differ — and one sentence, the verdict, that the command line, its JSON,
//! the window and the note in the notebook all show word for word.

use serde::Serialize;

use super::same_experiment::{ProgramCheck, ResultCheck, program_checks, result_check};
use super::verdict::{Judged, Measured, Verdict, judge};
use super::{EnvDifference, Original, env_diff};
use crate::compare::{Caveat, CaveatKind, guarded, percent, power_check, signed_percent, unit_scale};
use crate::display::inert_line;
use crate::harness::BenchResult;
use crate::notebook::{Boundary, Condition, ConditionName, Conditions, KernelSpec, RowContext, Run, canary_start_ms};
use crate::stats::units::{DisplayUnit, Figures};
use crate::stats::{Spread, Summary, compare};

/// One arm of the rerun against their row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArmSide {
    /// `A` or `B` for a comparison's arm; empty for a row alone.
    pub label: String,
    /// Their row.
    pub their_row: u32,
    /// The rerun's median, in their unit.
    pub median: f64,
    /// The rerun's IQR, in their unit.
    pub iqr: f64,
    /// The rerun's warm-up trials.
    pub warmup: u32,
    /// The rerun's timed trials.
    pub timed: usize,
    /// The run it was recorded as in my notebook.
    pub recorded_run: Option<u32>,
    /// S7 and the outcome's reasons; `None` when the units cannot be put
    /// on one scale.
    pub judged: Option<Judged>,
    /// The outcome on the times alone (S7 and the noise rule).
    pub times: Verdict,
    /// Its sentence.
    pub times_text: String,
    /// The arm's outcome once its program and result check are weighed.
    pub outcome: Verdict,
    /// The arm's sentence.
    pub text: String,
    /// The program and argument files, theirs against the rerun's.
    pub programs: Vec<ProgramCheck>,
    /// A kernel's result check, theirs against the rerun's.
    pub result_check: Option<ResultCheck>,
    /// S13's flag when the power sources cannot be told apart: said once
    /// for the whole reproduce, not in each arm's or point's sentence.
    pub power_flag: Option<String>,
}

impl ArmSide {
    /// Their median and IQR and the rerun's, both in the unit S12 picks for
    /// theirs, so the two read digit for digit.
    pub fn figures(&self, theirs: &Original) -> [Figures; 2] {
        let unit = DisplayUnit::for_median(&theirs.unit, theirs.median);
        [(theirs.median, theirs.iqr), (self.median, self.iqr)]
            .map(|(median, iqr)| unit.figures([median, iqr, median, median], None))
    }
}

/// Their paired ratio against the rerun's (S11, R4).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatioSide {
    /// Their ratio B/A.
    pub theirs: Measured,
    /// The rerun's.
    pub mine: Measured,
    /// S7 on the two and the outcome.
    pub judged: Judged,
}

impl RatioSide {
    /// Theirs and mine as shown (S6): `0.45 (IQR 0.01, 31 pairs)`.
    pub fn shown(&self) -> [String; 2] {
        [self.theirs, self.mine].map(|m| {
            let figures = Figures::new([m.median, m.iqr, m.median, m.median], None, "");
            format!("{} (IQR {}, {} pairs)", figures.median(), figures.iqr(), m.n)
        })
    }
}

/// Their row (or comparison) and the rerun, side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideBySide {
    /// Each arm, A then B.
    pub arms: Vec<ArmSide>,
    /// A comparison's paired ratio, when both sides have one.
    pub ratio: Option<RatioSide>,
    /// The headline: the ratio's outcome for a comparison (its claim),
    /// else the row's.
    pub outcome: Verdict,
    /// The verdict, one sentence, as every face shows it.
    pub text: String,
    /// Where the rerun ran (its `placement used`).
    pub placement: String,
    /// Conditions that differ between their picked row and the rerun's.
    pub diff: Vec<EnvDifference>,
}

impl SideBySide {
    /// Compares `result` (the rerun of `original`) with it; `mine` are the
    /// rerun's rows as recorded, arm A then B, whose conditions (power
    /// source, program, result check) are weighed against theirs; an arm
    /// not recorded is weighed by what the session read.
    pub fn new(original: &Original, result: &BenchResult, mine: &[Option<&Run>]) -> Option<Self> {
        let theirs = original.arms();
        let labels: &[&str] = if theirs.len() == 2 { &["A", "B"] } else { &[""] };
        let arms = theirs
            .iter()
            .enumerate()
            .map(|(i, o)| {
                ArmSide::new(o, (i, labels.get(i).copied().unwrap_or("")), result, mine.get(i).copied().flatten())
            })
            .collect::<Option<Vec<_>>>()?;
        let index = original.arm_index().min(arms.len() - 1);
        let picked = &arms[index];
        let (read, my_power) = conditions(result, mine.get(index).copied().flatten(), index);
        let ratio =
            original.partner.as_ref().and_then(|p| p.paired.as_ref()).zip(result.paired.as_ref()).map(|(their, my)| {
                let measured = |s: &Summary| Measured { median: s.median, iqr: s.iqr, n: s.n };
                let (theirs, mine) = (measured(their), measured(my));
                let metric = "paired ratio B/A";
                let s7 = compare(Spread::from(their), Spread::from(my), ("theirs", "mine"), metric, "");
                let (power, power_blocks) = s13(original, my_power.as_deref());
                let kernel = result.arms.first().is_some_and(|a| KernelSpec::from_argv(&a.command).is_some());
                let unlike = s16(original, kernel, &original.unit);
                let s7 = guarded(&s7, metric, &guards(&power, unlike.as_deref()));
                RatioSide { theirs, mine, judged: judge(theirs, mine, s7, unlike.as_deref().or(power_blocks)) }
            });
        // A comparison's claim is its ratio; without one, each arm is its
        // own claim and the worst outcome leads. Either way every arm's
        // programs and result check are weighed.
        let (outcome, mut text) = match (&ratio, arms.as_slice()) {
            (Some(r), _) => (r.judged.outcome, r.judged.text.clone()),
            (None, [a, b]) => {
                let worst = a.times.max(b.times);
                (worst, format!("{} — arm A: {}; arm B: {}", worst.word(), a.times_text, b.times_text))
            }
            (None, _) => (picked.times, picked.times_text.clone()),
        };
        let programs: Vec<&ProgramCheck> = arms.iter().flat_map(|a| &a.programs).collect();
        let results: Vec<&ResultCheck> = arms.iter().filter_map(|a| a.result_check.as_ref()).collect();
        let (outcome, weighed) = weigh((outcome, &text), &programs, &results);
        text = weighed;
        if let Some(flag) = arms.iter().find_map(|a| a.power_flag.as_deref()) {
            text.push_str(&format!("; flagged: {flag}"));
        }
        if ratio.is_some() {
            let words: Vec<String> = arms.iter().map(|a| format!("arm {} {}", a.label, a.outcome.word())).collect();
            text.push_str(&format!(" [{}]", words.join(", ")));
        }
        Some(Self {
            diff: env_diff(&original.conditions, &read),
            placement: result.placement.clone(),
            arms,
            ratio,
            outcome,
            text,
        })
    }

    /// The picked row's arm.
    pub fn picked(&self, original: &Original) -> Option<&ArmSide> {
        self.arms.get(original.arm_index()).or(self.arms.first())
    }

    /// The note that goes into my notebook, naming their row(s): the
    /// figures side by side, then the verdict as every face shows it.
    pub fn note(&self, original: &Original, source: &str) -> String {
        let theirs = original.arms();
        let rows = |f: &dyn Fn(&ArmSide) -> String| self.arms.iter().map(f).collect::<Vec<_>>().join(" and ");
        let mine = rows(&|a| a.recorded_run.map_or_else(|| "?".to_owned(), |n| n.to_string()));
        let their_rows = rows(&|a| a.their_row.to_string());
        let (noun, verb) = if self.arms.len() == 2 { ("Runs", "reproduce runs") } else { ("Run", "reproduces run") };
        let figures: Vec<String> = self
            .arms
            .iter()
            .zip(&theirs)
            .map(|(a, o)| {
                let [t, m] = a.figures(o);
                let arm = if a.label.is_empty() { String::new() } else { format!("{}: ", a.label) };
                format!("{arm}theirs median {} (IQR {}), mine {} (IQR {})", t.median(), t.iqr(), m.median(), m.iqr())
            })
            .chain(self.ratio.as_ref().map(|r| {
                let [t, m] = r.shown();
                format!("paired ratio B/A: theirs {t}, mine {m}")
            }))
            .collect();
        inert_line(format!(
            "{noun} {mine} {verb} {their_rows} of {source} ({}): {}; {}. {} condition(s) differ.",
            original.what,
            figures.join("; "),
            self.text,
            self.diff.len(),
        ))
    }
}

/// A judgement once the programs and result checks are weighed (R4): a
/// kernel that computed another result than theirs *differs*, whatever the
/// times say; times that agree on a program that is not theirs cannot
/// confirm their row (*inconclusive*); any other outcome stands, with the
/// different file named.
fn weigh((outcome, text): (Verdict, &str), programs: &[&ProgramCheck], results: &[&ResultCheck]) -> (Verdict, String) {
    let s7 = text.split_once(" — ").map_or(text, |(_, rest)| rest);
    if let Some(wrong) = results.iter().find(|c| c.same == Some(false)) {
        return (Verdict::Differs, format!("differs — the kernel computed another result ({}); {s7}", wrong.text));
    }
    let different: Vec<&str> = programs.iter().filter(|c| c.differs()).map(|c| c.text.as_str()).collect();
    match (different.is_empty(), outcome) {
        (true, _) => (outcome, text.to_owned()),
        (false, Verdict::Reproduced) => (
            Verdict::Inconclusive,
            format!(
                "inconclusive — {}: times that agree do not confirm their row on a program that is not theirs ({s7})",
                different.join("; ")
            ),
        ),
        (false, _) => (outcome, format!("{text}; {}", different.join("; "))),
    }
}

/// What the guard S13 says when it takes the claim away.
const POWER_BLOCKS: &str =
    "the two runs were on different power sources, so S7 may not claim either way; rerun on theirs";

/// S13 between their row's power source and the rerun's: the check S7 is
/// guarded with, and why it takes the claim away, when it does.
fn s13(theirs: &Original, my_power: Option<&str>) -> (Option<Caveat>, Option<&'static str>) {
    let name = format!("their run {}", theirs.row);
    let (_, power) = power_check((&name, theirs.power_source.as_deref()), ("the rerun", my_power));
    let blocked = power.as_ref().is_some_and(|c| c.kind == CaveatKind::NoClaim).then_some(POWER_BLOCKS);
    (power, blocked)
}

/// S16 between their row and the rerun of it: what the rerun times (the
/// process, a kernel call, or the program's figure read their way) against
/// what their row states it timed; `None` when they are one measure or
/// their row does not say.
fn s16(theirs: &Original, kernel: bool, unit: &str) -> Option<String> {
    let their = theirs.boundary.as_ref()?;
    let mine = match (&theirs.figure, kernel) {
        (Some(own), _) => Boundary::OwnFigure { metric: own.spec.describe() },
        (None, true) => Boundary::KernelCall,
        (None, false) => Boundary::ProcessWall,
    };
    (!their.same_as(&mine, [&theirs.unit, unit])).then(|| {
        format!(
            "not like with like (S16): their row times {}, the rerun {}, so S7 may not claim either way; rerun it \
             with their instrument",
            their.describe(),
            mine.describe()
        )
    })
}

/// SPEC S14 between their session and the rerun's, with the canary as the
/// control every session measures: a difference (`effect`, rerun over
/// theirs) the canary's own move between the two sessions matches or
/// exceeds is the machine or the day, not the row, and makes no claim; a
/// side that kept no canary timing leaves the drift unknown and makes none
/// either. A smaller move is reported beside the claim.
fn s14(theirs: &[Condition], mine: &[Condition], effect: f64) -> Caveat {
    let start = |c: &[Condition]| c.value_of(ConditionName::Canary).and_then(canary_start_ms);
    let apart = "their row and the rerun were measured in different sessions";
    match (start(theirs), start(mine)) {
        (Some(a), Some(b)) => {
            let drift = b / a - 1.0;
            let moved = format!(
                "the canary, the fixed kernel each session times first, took {a} ms in theirs and {b} ms in the \
                 rerun's ({})",
                signed_percent(drift)
            );
            if drift.abs() >= effect.abs() {
                Caveat::new(
                    "S14",
                    CaveatKind::NoClaim,
                    format!(
                        "{apart}, and the difference ({}) cannot be told from the machine's drift between them: \
                         {moved}, as much as the difference; the difference would stand out only beside a canary \
                         that moved less — rerun where the canary matches theirs",
                        percent(effect.abs())
                    ),
                )
            } else {
                Caveat::new(
                    "S14",
                    CaveatKind::Report,
                    format!("{moved}, less than the difference ({})", percent(effect.abs())),
                )
            }
        }
        (theirs, _) => {
            let who = if theirs.is_none() { "their row" } else { "the rerun" };
            Caveat::new(
                "S14",
                CaveatKind::NoClaim,
                format!(
                    "{apart}, and {who} kept no canary timing, so the machine's drift between them is unknown; \
                     reproduce from their notebook folder, whose rows keep their session's canary, or rerun both \
                     in one session"
                ),
            )
        }
    }
}

/// The guards on one arm's, point's or ratio's verdict: S13 only where it
/// knows a difference (mains against battery; a flag is said once for the
/// whole reproduce), and S16 where the two time different things.
fn guards(power: &Option<Caveat>, unlike: Option<&str>) -> Vec<Caveat> {
    let power = power.iter().filter(|c| c.kind == CaveatKind::NoClaim).cloned();
    power.chain(unlike.map(|text| Caveat::new("S16", CaveatKind::NoClaim, text.to_owned()))).collect()
}

/// The conditions the rerun's arm `i` recorded (`mine`, its row), or what
/// the session read with the arm's program and result check when it was
/// not recorded; and the power source S13 weighs.
fn conditions(result: &BenchResult, mine: Option<&Run>, i: usize) -> (Vec<Condition>, Option<String>) {
    match mine {
        Some(run) => (run.context().effective_conditions(), run.context().power_source()),
        None => {
            let mut read = result.conditions();
            if let Some(arm) = result.arms.get(i) {
                read.extend(arm.provenance.iter().flat_map(|p| p.conditions()));
                read.extend(arm.result_check.clone().map(|kept| Condition::new(ConditionName::ResultCheck, kept)));
            }
            let power = RowContext { conditions: &read, stated: None, own_code: None }.power_source();
            (read, power)
        }
    }
}

impl ArmSide {
    /// Arm `i` of `result` (labelled `label`) against their row `o`;
    /// `mine` is its row as recorded.
    pub(super) fn new(
        o: &Original,
        (i, label): (usize, &str),
        result: &BenchResult,
        mine: Option<&Run>,
    ) -> Option<Self> {
        let arm = result.arms.get(i)?;
        let summary = arm.summary.as_ref()?;
        let scale = unit_scale(&arm.unit, &o.unit);
        let f = scale.unwrap_or(1.0);
        let (median, iqr) = (summary.median * f, summary.iqr * f);
        let (read, my_power) = conditions(result, mine, i);
        let (power, power_blocks) = s13(o, my_power.as_deref());
        let unlike = s16(o, KernelSpec::from_argv(&arm.command).is_some(), &arm.unit);
        let judged = scale.map(|_| {
            let metric = format!("median ({})", o.unit);
            let s7 = compare(
                Spread { median: o.median, iqr: o.iqr },
                Spread { median, iqr },
                ("theirs", "mine"),
                &metric,
                &o.unit,
            );
            // SPEC E18: a difference S7 would claim but smaller than the
            // larger floor of the two sessions cannot be told from noise.
            let floor = [o.noise_floor.as_ref(), result.noise_floor.as_ref()]
                .into_iter()
                .flatten()
                .max_by(|x, y| x.spread.total_cmp(&y.spread));
            let below = floor
                .filter(|_| s7.claimed && o.median != 0.0)
                .and_then(|f| f.below(median / o.median - 1.0, ["their row", "the rerun"]))
                .map(|b| b.sentence());
            let mut checks = guards(&power, unlike.as_deref());
            checks.extend(below.iter().map(|b| Caveat::new("E18", CaveatKind::NoClaim, b.clone())));
            // SPEC S14: their session and the rerun's are days apart; a
            // claimed difference must stand out from the machine's drift.
            let days = (s7.claimed && o.median != 0.0).then(|| s14(&o.conditions, &read, median / o.median - 1.0));
            let apart = days.as_ref().filter(|c| c.kind == CaveatKind::NoClaim).map(|c| c.text.clone());
            checks.extend(days.clone().filter(|c| c.kind == CaveatKind::NoClaim));
            let mut s7 = guarded(&s7, &metric, &checks);
            if let Some(drift) = days.filter(|c| c.kind == CaveatKind::Report) {
                s7.verdict.push_str(&format!("; {}", drift.text));
            }
            judge(
                Measured { median: o.median, iqr: o.iqr, n: o.timed as usize },
                Measured { median, iqr, n: summary.n },
                s7,
                unlike.as_deref().or(power_blocks).or(below.as_deref()).or(apart.as_deref()),
            )
        });
        let result_check = result_check(&o.conditions, &read);
        let programs = program_checks(&o.conditions, &read);
        let (times, times_text) = judged.as_ref().map_or_else(
            || {
                let why = format!("no verdict: their unit is '{}', mine is '{}'", o.unit, arm.unit);
                (Verdict::Inconclusive, format!("{} — {why}", Verdict::Inconclusive.word()))
            },
            |j| (j.outcome, j.text.clone()),
        );
        let checks: Vec<&ProgramCheck> = programs.iter().collect();
        let (outcome, text) = weigh((times, &times_text), &checks, &result_check.iter().collect::<Vec<_>>());
        Some(Self {
            label: label.to_owned(),
            their_row: o.row,
            median,
            iqr,
            warmup: arm.warmup_trials,
            timed: summary.n,
            recorded_run: mine.map(|r| r.number),
            judged,
            times,
            times_text,
            outcome,
            text,
            programs,
            result_check,
            power_flag: power.filter(|c| c.kind == CaveatKind::Flag).map(|c| c.text),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::canary_value;

    fn canary(start_ms: f64) -> Vec<Condition> {
        vec![Condition::new(ConditionName::Canary, canary_value(1.0, start_ms, start_ms))]
    }

    // SPEC S14: across sessions the canary is the control; a difference it
    // matches makes no claim, a smaller move is reported beside the claim,
    // and a side with no canary leaves the drift unknown (no claim).
    #[test]
    fn a_difference_across_sessions_is_weighed_against_the_canary() {
        let steady = s14(&canary(2.0), &canary(2.1), 0.5);
        assert_eq!((steady.rule, steady.kind), ("S14", CaveatKind::Report), "{steady:?}");
        assert!(steady.text.contains("took 2 ms in theirs and 2.1 ms in the rerun's (+5.0%)"), "{}", steady.text);
        assert!(steady.text.contains("less than the difference (50%)"), "{}", steady.text);

        let moved = s14(&canary(2.0), &canary(3.0), -0.3);
        assert_eq!(moved.kind, CaveatKind::NoClaim, "{moved:?}");
        assert!(moved.text.contains("the difference (30%) cannot be told from the machine's drift"), "{}", moved.text);

        for (theirs, mine, who) in [(vec![], canary(2.0), "their row"), (canary(2.0), vec![], "the rerun")] {
            let unknown = s14(&theirs, &mine, 0.5);
            assert_eq!(unknown.kind, CaveatKind::NoClaim, "{unknown:?}");
            assert!(unknown.text.contains(&format!("{who} kept no canary timing")), "{}", unknown.text);
        }
    }
}
