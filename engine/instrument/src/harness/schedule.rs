//! The order trials are taken in (SPEC E3–E6): warm-up by count or settle,
//! then timed trials, interleaved and reversed for a comparison.
//!
//! Written against [`Executor`] so tests drive it with scripted durations.

use std::time::Duration;

use super::{TrialError, TrialRecord, TrialStatus, TrialWork};
use vernier_model::notebook::WarmupPolicy;

use vernier_model::stats::SETTLE_TOLERANCE;
/// Warm-up trials a settle may take at most.
pub const SETTLE_MAX: u32 = 50;

/// Runs trials; the harness's real one spawns commands or runs kernels.
pub trait Executor {
    /// Times one trial of `arm`.
    fn trial(&mut self, arm: usize) -> Result<Timed, TrialError>;
    /// Waits out a cool-down; returns `false` when cancelled meanwhile.
    fn pause(&mut self, duration: Duration) -> bool;
    /// What a settle warm-up compares for the trial just taken, which
    /// lasted `ns`: its wall time, or the program's own figure when that is
    /// what is measured (SPEC E17).
    fn settle_value(&self, ns: u64) -> f64 {
        ns as f64
    }
}

/// One trial as an [`Executor`] took it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timed {
    /// Wall time, nanoseconds.
    pub ns: u64,
    /// How it ended.
    pub status: TrialStatus,
    /// What its processes did besides taking time (SPEC E13).
    pub work: TrialWork,
}

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialPlan {
    /// One arm, two for an interleaved comparison, or a sweep's points.
    pub arms: usize,
    /// A sweep (SPEC E16): one trial of every point per round, the order
    /// rotated by one each round, so drift spreads over every point.
    pub rotate: bool,
    /// Timed trials per arm.
    pub runs: u32,
    /// Warm-up before the first block.
    pub warmup: WarmupPolicy,
    /// Pause before each block after the first, then a settle warm-up.
    pub cooldown: Option<Duration>,
}

impl TrialPlan {
    /// The blocks of timed trials: one block for one arm; for two, the
    /// order A B for ⌈n/2⌉ pairs, then B A for ⌊n/2⌋ pairs, so each arm
    /// gets `runs` trials and both orders are seen (E5).
    /// A sweep's rounds are blocks of one trial per point.
    pub fn blocks(&self) -> Vec<(Vec<usize>, u32)> {
        if self.rotate {
            (0..self.runs as usize).map(|r| ((0..self.arms).map(|i| (i + r) % self.arms).collect(), 1)).collect()
        } else if self.arms == 1 {
            vec![(vec![0], self.runs)]
        } else {
            vec![(vec![0, 1], self.runs.div_ceil(2)), (vec![1, 0], self.runs / 2)]
        }
    }

    /// Trials the plan will take when warm-up uses its count (a settle is
    /// estimated at its minimum of two).
    pub fn estimated_trials(&self) -> u64 {
        let warm = match self.warmup {
            WarmupPolicy::Count(n) => u64::from(n),
            WarmupPolicy::Settle { .. } | WarmupPolicy::Unknown => 2,
            // Ran before the file was written; the harness takes none.
            WarmupPolicy::Stated(_) => 0,
        };
        (warm + u64::from(self.runs)) * self.arms as u64
    }
}

/// Why a schedule stopped early.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// A trial failed (non-zero exit, signal, timeout, wrong result).
    Failed {
        /// Which trial.
        index: u32,
        /// How it ended.
        status: TrialStatus,
    },
    /// The user cancelled.
    Cancelled,
    /// A trial could not even be started: the [`TrialError`]'s sentence,
    /// kept as text so that a stop can be compared and cloned.
    Error(String),
}

/// Every trial taken, and why the schedule stopped early if it did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TrialsTaken {
    /// All trials in the order taken, warm-up included.
    pub trials: Vec<TrialRecord>,
    /// `None` when every planned trial ran and succeeded.
    pub stopped: Option<Stop>,
}

/// Runs `plan`, reporting each trial to `on_trial` as it completes. Stops at
/// the first trial that does not succeed; what was taken is kept (E10).
pub fn run(exec: &mut dyn Executor, plan: &TrialPlan, on_trial: &mut dyn FnMut(&TrialRecord)) -> TrialsTaken {
    let mut out = TrialsTaken::default();
    let result = (|| {
        for (block, (order, pairs)) in plan.blocks().into_iter().enumerate() {
            if pairs == 0 {
                continue;
            }
            let warmup = if block == 0 {
                plan.warmup
            } else if let Some(cooldown) = plan.cooldown {
                if !exec.pause(cooldown) {
                    return Err(Stop::Cancelled);
                }
                WarmupPolicy::Settle { max: SETTLE_MAX }
            } else {
                // Back-to-back blocks: the machine is already warm.
                WarmupPolicy::Count(0)
            };
            for &arm in &order {
                warm_up(exec, arm, warmup, &mut out.trials, on_trial)?;
            }
            for _ in 0..pairs {
                for (position, &arm) in order.iter().enumerate() {
                    take(exec, arm, position as u32 + 1, false, &mut out.trials, on_trial)?;
                }
            }
        }
        Ok(())
    })();
    out.stopped = result.err();
    out
}

fn warm_up(
    exec: &mut dyn Executor,
    arm: usize,
    policy: WarmupPolicy,
    trials: &mut Vec<TrialRecord>,
    on_trial: &mut dyn FnMut(&TrialRecord),
) -> Result<(), Stop> {
    match policy {
        WarmupPolicy::Count(n) => {
            for _ in 0..n {
                take(exec, arm, 1, true, trials, on_trial)?;
            }
        }
        WarmupPolicy::Settle { max } => {
            let mut previous: Option<f64> = None;
            for _ in 0..max.max(2) {
                let ns = take(exec, arm, 1, true, trials, on_trial)?;
                let value = exec.settle_value(ns);
                if let Some(prev) = previous
                    && prev > 0.0
                    && (value - prev).abs() / prev <= SETTLE_TOLERANCE
                {
                    break;
                }
                previous = Some(value);
            }
        }
        WarmupPolicy::Unknown | WarmupPolicy::Stated(_) => {}
    }
    Ok(())
}

fn take(
    exec: &mut dyn Executor,
    arm: usize,
    position: u32,
    warmup: bool,
    trials: &mut Vec<TrialRecord>,
    on_trial: &mut dyn FnMut(&TrialRecord),
) -> Result<u64, Stop> {
    let Timed { ns, status, work } = exec.trial(arm).map_err(|why| Stop::Error(why.to_string()))?;
    let index = u32::try_from(trials.len()).unwrap_or(u32::MAX);
    let record = TrialRecord { index, arm, position, warmup, ns, status, work };
    on_trial(&record);
    trials.push(record);
    match status {
        TrialStatus::Ok => Ok(ns),
        TrialStatus::Cancelled => Err(Stop::Cancelled),
        status => Err(Stop::Failed { index, status }),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;

    /// Durations scripted per arm, in test-time nanoseconds.
    struct Scripted {
        arms: Vec<VecDeque<(u64, TrialStatus)>>,
        paused: Vec<Duration>,
    }

    impl Scripted {
        fn new(arms: Vec<Vec<u64>>) -> Self {
            let arms = arms.into_iter().map(|a| a.into_iter().map(|ns| (ns, TrialStatus::Ok)).collect()).collect();
            Self { arms, paused: Vec::new() }
        }
    }

    impl Executor for Scripted {
        fn trial(&mut self, arm: usize) -> Result<Timed, TrialError> {
            // A script shorter than the schedule is a fault of the test.
            let (ns, status) = self.arms[arm].pop_front().expect("the script has every trial the schedule takes");
            Ok(Timed { ns, status, work: TrialWork::default() })
        }
        fn pause(&mut self, duration: Duration) -> bool {
            self.paused.push(duration);
            true
        }
    }

    fn plan(arms: usize, runs: u32, warmup: WarmupPolicy) -> TrialPlan {
        TrialPlan { arms, rotate: false, runs, warmup, cooldown: None }
    }

    // SPEC E3, E4: a fixed warm-up, then the timed trials.
    #[test]
    fn count_warmup_then_timed() {
        let mut exec = Scripted::new(vec![vec![50, 40, 30, 10, 11, 12, 13, 14]]);
        let out = run(&mut exec, &plan(1, 5, WarmupPolicy::Count(3)), &mut |_| {});
        assert_eq!(out.stopped, None);
        let warm: Vec<u64> = out.trials.iter().filter(|t| t.warmup).map(|t| t.ns).collect();
        let timed: Vec<u64> = out.trials.iter().filter(|t| !t.warmup).map(|t| t.ns).collect();
        assert_eq!((warm, timed), (vec![50, 40, 30], vec![10, 11, 12, 13, 14]));
    }

    // SPEC E3: settle discards until two consecutive trials agree within 5 %.
    #[test]
    fn settle_stops_when_two_agree() {
        let mut exec = Scripted::new(vec![vec![200, 150, 120, 104, 100, 10, 10, 10]]);
        let out = run(&mut exec, &plan(1, 3, WarmupPolicy::Settle { max: 50 }), &mut |_| {});
        assert_eq!(out.trials.iter().filter(|t| t.warmup).count(), 5, "104 → 100 is within 5 %");
        assert_eq!(out.trials.iter().filter(|t| !t.warmup).count(), 3);
    }

    // SPEC E3: settle is bounded.
    #[test]
    fn settle_is_bounded() {
        let noisy: Vec<u64> = (0..60).map(|i| if i % 2 == 0 { 100 } else { 200 }).collect();
        let mut exec = Scripted::new(vec![noisy.into_iter().chain([1, 1, 1]).collect()]);
        let out = run(&mut exec, &plan(1, 3, WarmupPolicy::Settle { max: 7 }), &mut |_| {});
        assert_eq!(out.trials.iter().filter(|t| t.warmup).count(), 7);
    }

    // SPEC E5: A B A B …, then B A B A …; each arm gets n timed trials.
    #[test]
    fn comparison_interleaves_then_reverses() {
        let mut exec = Scripted::new(vec![vec![1; 20], vec![2; 20]]);
        let out = run(&mut exec, &plan(2, 5, WarmupPolicy::Count(1)), &mut |_| {});
        assert_eq!(out.stopped, None);
        let sequence: String = out
            .trials
            .iter()
            .map(|t| match (t.arm, t.warmup) {
                (0, true) => 'a',
                (1, true) => 'b',
                (0, false) => 'A',
                _ => 'B',
            })
            .collect();
        assert_eq!(sequence, "abABABABBABA");
        for arm in [0, 1] {
            assert_eq!(out.trials.iter().filter(|t| t.arm == arm && !t.warmup).count(), 5);
        }
    }

    // SPEC E16: a sweep warms every point up, then takes one trial of each
    // per round with the order rotated by one each round.
    #[test]
    fn a_sweep_rotates_its_order_each_round() {
        let mut exec = Scripted::new(vec![vec![1; 9], vec![2; 9], vec![3; 9]]);
        let out = run(&mut exec, &TrialPlan { rotate: true, ..plan(3, 3, WarmupPolicy::Count(1)) }, &mut |_| {});
        assert_eq!(out.stopped, None);
        let sequence: Vec<(usize, bool, u32)> = out.trials.iter().map(|t| (t.arm, t.warmup, t.position)).collect();
        let warm = [(0, true, 1), (1, true, 1), (2, true, 1)];
        let rounds = [(0, false, 1), (1, false, 2), (2, false, 3), (1, false, 1), (2, false, 2), (0, false, 3)];
        assert_eq!(sequence[..3], warm);
        assert_eq!(sequence[3..9], rounds);
        assert_eq!(sequence[9..].iter().map(|t| t.0).collect::<Vec<_>>(), [2, 0, 1]);
        assert_eq!(TrialPlan { rotate: true, ..plan(3, 3, WarmupPolicy::Count(1)) }.estimated_trials(), 12);
    }

    // SPEC E6: a cool-down before the reversed block, then a settle warm-up.
    #[test]
    fn cooldown_is_followed_by_settle() {
        let mut exec = Scripted::new(vec![vec![10; 20], vec![20; 20]]);
        let p = TrialPlan { cooldown: Some(Duration::from_secs(30)), ..plan(2, 3, WarmupPolicy::Count(0)) };
        let out = run(&mut exec, &p, &mut |_| {});
        assert_eq!(exec.paused, [Duration::from_secs(30)]);
        // After the pause each arm settles with two agreeing trials.
        assert_eq!(out.trials.iter().filter(|t| t.warmup).count(), 4);
    }

    // SPEC E10: a failing trial ends the schedule and keeps what was taken.
    #[test]
    fn failure_stops_and_keeps_trials() {
        let mut exec = Scripted::new(vec![vec![10, 11]]);
        exec.arms[0].push_back((12, TrialStatus::Exit(3)));
        let mut seen = 0;
        let out = run(&mut exec, &plan(1, 5, WarmupPolicy::Count(1)), &mut |_| seen += 1);
        assert_eq!(out.stopped, Some(Stop::Failed { index: 2, status: TrialStatus::Exit(3) }));
        assert_eq!(out.trials.len(), 3);
        assert_eq!(seen, 3);
    }
}
