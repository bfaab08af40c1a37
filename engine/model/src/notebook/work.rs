//! What a row's timed trials did besides taking wall time (SPEC E13): their
//! CPU time, and where counters exist their cycles and instructions.
//!
//! The course asks for cycles "as well as wall time where counters exist"
//! (C.6): a cycle count does not change with the clock, so a wall time
//! that drifts while the cycles stay put says the clock changed, not the
//! work. CPU time exists on every OS, and a trial whose wall time is far
//! above it was waiting — for a CPU, the disk, a neighbour — not working.
//! Both findings are worked out when the row is recorded and kept with it
//! as its "work check" condition.

use serde::{Deserialize, Serialize};

use crate::stats::Summary;
use crate::stats::units::Figures;

/// What a row's timed trials did besides taking wall time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Work {
    /// CPU time (user + system) of each timed trial, in seconds; `None`
    /// when the OS did not give it for every trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<Summary>,
    /// Cycles of each timed trial; `None` when not counted for every one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<Summary>,
    /// Instructions of each timed trial; `None` like `cycles`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<Summary>,
    /// What the counts are, or why the row has none. In the notebook file
    /// a row naming a snapshot leaves it to the snapshot (schema 10).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub counters: String,
    /// Timed trials that waited: their wall time exceeded their CPU time
    /// by more than half the wall time and by more than `resolution_ns`;
    /// not written when none did (schema 10).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub waited: u32,
    /// The smallest CPU-time difference the OS counts, which the waiting
    /// check allowed for, nanoseconds.
    pub resolution_ns: u64,
}

/// One timed trial as [`Work::of`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrialCounts {
    /// Wall time, nanoseconds.
    pub wall_ns: u64,
    /// CPU time, nanoseconds.
    pub cpu_ns: Option<u64>,
    /// Cycles.
    pub cycles: Option<u64>,
    /// Instructions.
    pub instructions: Option<u64>,
}

impl TrialCounts {
    /// The trial waited: its wall time exceeds its CPU time by more than
    /// half the wall time and by more than the OS's CPU-time resolution.
    pub fn waited(&self, resolution_ns: u64) -> bool {
        self.cpu_ns.is_some_and(|cpu| {
            let idle = self.wall_ns.saturating_sub(cpu);
            idle > self.wall_ns / 2 && idle > resolution_ns
        })
    }
}

impl Work {
    /// The work of `trials` (the timed ones, in order): a summary of each
    /// figure every trial has; `None` when no trial has any of them.
    pub fn of(trials: &[TrialCounts], counters: String, resolution_ns: u64) -> Option<Self> {
        let summary = |pick: fn(&TrialCounts) -> Option<u64>, scale: f64| {
            let values: Option<Vec<f64>> = trials.iter().map(|t| pick(t).map(|v| v as f64 / scale)).collect();
            values.and_then(|v| Summary::of(&v).ok())
        };
        let work = Self {
            cpu_s: summary(|t| t.cpu_ns, 1e9),
            cycles: summary(|t| t.cycles, 1.0),
            instructions: summary(|t| t.instructions, 1.0),
            counters,
            waited: u32::try_from(trials.iter().filter(|t| t.waited(resolution_ns)).count()).unwrap_or(u32::MAX),
            resolution_ns,
        };
        let any = |pick: fn(&TrialCounts) -> Option<u64>| trials.iter().any(|t| pick(t).is_some());
        (any(|t| t.cpu_ns) || any(|t| t.cycles)).then_some(work)
    }

    /// What the row's figures say about its wall time (C.6): `wall` is the
    /// row's summary when it is of wall times (not of a figure the program
    /// printed); empty when they say nothing.
    pub fn findings(&self, wall: Option<&Summary>) -> Vec<String> {
        let mut findings = Vec::new();
        if let Some(cpu) = self.cpu_s.as_ref().filter(|_| self.waited > 0) {
            let resolution = crate::stats::units::plain(self.resolution_ns as f64 / 1e9, "s");
            findings.push(format!(
                "{} of {} timed trials waited: wall time above CPU time by more than half, and by more than the {} \
                 the OS counts CPU time in — the program was not running for part of its time (another process, the \
                 disk, a sleep)",
                self.waited, cpu.n, resolution
            ));
        }
        if let (Some(cycles), Some(wall)) = (&self.cycles, wall) {
            let drift = |s: &Summary| s.drift.map_or_else(String::new, |d| format!(" ({:+.1} %)", d * 100.0));
            match (wall.drifted(), cycles.drifted()) {
                (true, false) => findings.push(format!(
                    "the wall time drifted{} while the cycles did not{}: the clock changed, not the work",
                    drift(wall),
                    drift(cycles)
                )),
                (true, true) => findings.push(format!(
                    "the wall time drifted{} and the cycles drifted with it{}: the work itself changed",
                    drift(wall),
                    drift(cycles)
                )),
                _ => {}
            }
        }
        findings
    }

    /// One line for the long form: the CPU time and the counts, each as
    /// median (IQR), and what the counters were.
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        if let Some(cpu) = &self.cpu_s {
            parts.push(format!("CPU time {}", Figures::of(cpu, "s").line()));
        }
        for (name, summary) in [("cycles", &self.cycles), ("instructions", &self.instructions)] {
            if let Some(s) = summary {
                parts.push(format!("{name} {}", Figures::of(s, name).line()));
            }
        }
        parts.push(format!("counters: {}", self.counters));
        parts.join("; ")
    }
}

/// `waited` is written only when a trial waited.
fn is_zero(waited: &u32) -> bool {
    *waited == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(wall_ns: u64, cpu_ns: u64, cycles: Option<u64>) -> TrialCounts {
        TrialCounts { wall_ns, cpu_ns: Some(cpu_ns), cycles, instructions: cycles.map(|c| c * 2) }
    }

    // SPEC E13: a trial waited when its wall time is more than twice its
    // CPU time and the gap is beyond the OS's resolution; a short trial
    // whose gap is within a tick is not called waiting.
    #[test]
    fn waiting_needs_half_the_wall_time_and_more_than_a_tick() {
        let tick = 10_000_000;
        assert!(trial(300_000_000, 100_000_000, None).waited(tick));
        assert!(!trial(300_000_000, 200_000_000, None).waited(tick), "a third idle is not half");
        assert!(!trial(8_000_000, 1_000_000, None).waited(tick), "7 ms idle is within a 10 ms tick");
        assert!(!TrialCounts { wall_ns: 300_000_000, ..TrialCounts::default() }.waited(tick), "no CPU time, no claim");
    }

    // SPEC E13: the summaries are of every timed trial; the waiting count
    // and its sentence follow the trials.
    #[test]
    fn work_summarises_every_trial_and_says_who_waited() {
        let trials = [
            trial(100_000_000, 99_000_000, None),
            trial(400_000_000, 100_000_000, None),
            trial(101_000_000, 100_000_000, None),
        ];
        let work = Work::of(&trials, "not available: no counter".into(), 10_000_000).expect("CPU times");
        assert_eq!(work.cpu_s.as_ref().map(|s| s.median), Some(0.1));
        assert_eq!((work.cycles.as_ref(), work.waited), (None, 1));
        let wall = Summary::of(&[0.1, 0.4, 0.101]).expect("wall");
        let findings = work.findings(Some(&wall));
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(findings[0].starts_with("1 of 3 timed trials waited"), "{}", findings[0]);
        assert!(work.line().starts_with("CPU time 100.0 ms (IQR 0.5 ms"), "{}", work.line());
        assert!(work.line().ends_with("counters: not available: no counter"), "{}", work.line());
        assert_eq!(Work::of(&[TrialCounts { wall_ns: 5, ..TrialCounts::default() }], String::new(), 1), None);
    }

    // SPEC E13, C.6: wall time that drifts while the cycles hold says the
    // clock changed; cycles that drift with it say the work did.
    #[test]
    fn drifting_wall_time_is_read_against_the_cycles() {
        // A steady climb: the halves differ by more than the IQR (S12).
        let wall = Summary::of(&[1.0, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06]).expect("wall");
        assert!(wall.drifted());
        let steady: Vec<TrialCounts> =
            (0..7).map(|i| trial(1_000_000_000 + i * 10_000_000, 1_000_000_000, Some(3_000_000 + i % 2))).collect();
        let work = Work::of(&steady, "counted".into(), 10_000_000).expect("work");
        let findings = work.findings(Some(&wall));
        assert!(findings.iter().any(|f| f.contains("the clock changed, not the work")), "{findings:?}");
        assert!(work.findings(None).is_empty(), "a figure row's summary is not a wall time");
        let growing: Vec<TrialCounts> =
            (0..7).map(|i| trial(1_000_000_000, 1_000_000_000, Some(3_000_000 + i * 30_000))).collect();
        let work = Work::of(&growing, "counted".into(), 10_000_000).expect("work");
        assert!(work.findings(Some(&wall)).iter().any(|f| f.contains("the work itself changed")));
        let calm = Summary::of(&[1.0, 1.0, 1.0]).expect("wall");
        assert!(work.findings(Some(&calm)).is_empty());
    }
}
