//! What a median hides: two populations (SPEC S8) and a cold first trial
//! (SPEC S9).

use serde::{Deserialize, Serialize};

use super::percentile::percentile_sorted;
use super::rounding::Rounded;
use super::units::DisplayUnit;

/// Consecutive warm-up trials within this fraction of each other mean the
/// machine has settled (SPEC E3); a first trial slower than the rest by
/// more than this (and their IQR) stands out (S9).
pub const SETTLE_TOLERANCE: f64 = 0.05;

/// The fewest trials a clump holds before it counts as a population (SPEC
/// S17: a warning needs enough trials to mean anything): two trials apart
/// from the rest are two outliers, not a second machine.
pub const MIN_CLUMP: usize = 3;

/// Two clumps found in a sample: the median sits between two machines
/// (a thread that moved between CPUs, a clock that changed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bimodality {
    /// Trials in the lower clump.
    pub low_count: usize,
    /// Trials in the upper clump.
    pub high_count: usize,
    /// Median of the lower clump.
    pub low_median: f64,
    /// Median of the upper clump.
    pub high_median: f64,
    /// Width of the empty gap between the clumps.
    pub gap: f64,
}

impl Bimodality {
    /// The one warning every face shows (SPEC S8), each clump's median in
    /// the display unit of the lower one (S12): `two populations (13 trials
    /// near 8.01 ms, 4 near 8.86 ms) — …`. What to check names only what
    /// the run's facts allow (S17, E19): a pinned run, or one whose trials
    /// all ran on one CPU, did not migrate, so it is told to look elsewhere,
    /// never to pin; trials seen on several CPUs are named. `pinned` is
    /// `None` where the run is not known (a file of numbers); `cpus` where
    /// the OS told which CPU each trial ran on.
    pub fn describe(&self, unit: &str, pinned: Option<bool>, cpus: Option<&TrialCpus>) -> String {
        let shown = DisplayUnit::for_median(unit, self.low_median);
        let one_cpu = cpus.and_then(TrialCpus::only);
        let moved = cpus.map(TrialCpus::cpus).filter(|c| c.len() > 1);
        let check = match (pinned, one_cpu, moved) {
            (Some(true), ..) => {
                "; the run was pinned to one CPU, so look for another load or a clock that changed".to_owned()
            }
            (_, Some(cpu), _) => {
                format!(
                    "; every trial ran on CPU {cpu}, so no move between CPUs explains it: look for another load or a clock that changed"
                )
            }
            (_, _, Some(cpus)) => format!(
                "; its trials ran on CPUs {}: pinning the run to one CPU (--pin) rules out a move between them",
                cpus.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            ),
            (Some(false), ..) => "; pinning the run to one CPU (--pin) rules out a move between CPUs".to_owned(),
            (None, ..) => String::new(),
        };
        format!(
            "two populations ({} trials near {}, {} near {}) — the median hides them{check}",
            self.low_count,
            shown.quantity(self.low_median),
            self.high_count,
            shown.quantity(self.high_median)
        )
    }
}

/// The CPUs a run's timed trials ran on, where the OS told (SPEC E19): a
/// kernel trial's thread, a command's process where it last ran. Kept on
/// the row as one sentence ([`TrialCpus::describe`]), read back by
/// [`TrialCpus::read`], so every face says the same of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TrialCpus {
    /// Each CPU and how many timed trials ran on it, by CPU.
    pub counts: Vec<(u32, usize)>,
    /// Timed trials the OS did not tell.
    pub untold: usize,
}

impl TrialCpus {
    /// The CPUs of `seen`, one per timed trial; `None` when the OS told
    /// none of them.
    pub fn of(seen: impl IntoIterator<Item = Option<u32>>) -> Option<Self> {
        let mut counts: Vec<(u32, usize)> = Vec::new();
        let mut untold = 0;
        for cpu in seen {
            match cpu {
                Some(cpu) => match counts.iter_mut().find(|(c, _)| *c == cpu) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((cpu, 1)),
                },
                None => untold += 1,
            }
        }
        counts.sort_unstable();
        (!counts.is_empty()).then_some(Self { counts, untold })
    }

    /// The CPUs seen, in order.
    pub fn cpus(&self) -> Vec<u32> {
        self.counts.iter().map(|(c, _)| *c).collect()
    }

    /// The one CPU every told trial ran on, when every trial was told.
    pub fn only(&self) -> Option<u32> {
        match self.counts.as_slice() {
            [(cpu, _)] if self.untold == 0 => Some(*cpu),
            _ => None,
        }
    }

    /// `CPU 1 for all 31 timed trials`, `CPU 0 for 12, CPU 1 for 19 of 31
    /// timed trials`, with `; 2 not told` when the OS did not say for some.
    pub fn describe(&self) -> String {
        let total: usize = self.counts.iter().map(|(_, n)| n).sum::<usize>() + self.untold;
        let mut text = match (self.counts.as_slice(), self.untold) {
            ([(cpu, n)], 0) => format!("CPU {cpu} for all {n} timed trials"),
            (counts, _) => format!(
                "{} of {total} timed trials",
                counts.iter().map(|(cpu, n)| format!("CPU {cpu} for {n}")).collect::<Vec<_>>().join(", ")
            ),
        };
        if self.untold > 0 {
            text.push_str(&format!("; {} not told", self.untold));
        }
        text
    }

    /// What [`TrialCpus::describe`] wrote, read back; `None` for any other text.
    pub fn read(text: &str) -> Option<Self> {
        let (main, untold) = match text.split_once("; ") {
            Some((main, rest)) => (main, rest.strip_suffix(" not told")?.parse().ok()?),
            None => (text, 0),
        };
        let counts: Option<Vec<(u32, usize)>> = if let Some(rest) = main.strip_prefix("CPU ") {
            match rest.split_once(" for all ") {
                Some((cpu, n)) => Some(vec![(cpu.parse().ok()?, n.strip_suffix(" timed trials")?.parse().ok()?)]),
                None => {
                    let (list, _) = main.rsplit_once(" of ")?;
                    list.split(", ")
                        .map(|part| {
                            let (cpu, n) = part.strip_prefix("CPU ")?.split_once(" for ")?;
                            Some((cpu.parse().ok()?, n.parse().ok()?))
                        })
                        .collect()
                }
            }
        } else {
            None
        };
        let seen = Self { counts: counts?, untold };
        (seen.describe() == text).then_some(seen)
    }
}

/// Looks for two clumps in `trials` (any order).
///
/// The sorted sample is split at its widest gap among the splits that leave
/// at least `max(MIN_CLUMP, 10 % of n)` trials on each side — so one outlier is never
/// a clump. The split counts as two populations when the gap is wider than
/// three times the larger clump's IQR *and* wider than 5 % of the overall
/// median, so a timer's quantisation steps alone do not trigger it.
pub fn bimodality(trials: &[f64]) -> Option<Bimodality> {
    let n = trials.len();
    let min_clump = MIN_CLUMP.max(n.div_ceil(10));
    if n < 2 * min_clump || trials.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut sorted = trials.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let (split, gap) =
        (min_clump..=n - min_clump).map(|k| (k, sorted[k] - sorted[k - 1])).max_by(|x, y| x.1.total_cmp(&y.1))?;
    let (low, high) = sorted.split_at(split);
    let iqr = |s: &[f64]| percentile_sorted(s, 0.75) - percentile_sorted(s, 0.25);
    let median = percentile_sorted(&sorted, 0.5);
    let separated = gap > 3.0 * iqr(low).max(iqr(high)) && gap > 0.05 * median.abs();
    separated.then(|| Bimodality {
        low_count: low.len(),
        high_count: high.len(),
        low_median: percentile_sorted(low, 0.5),
        high_median: percentile_sorted(high, 0.5),
        gap,
    })
}

/// The first timed trial against the rest, for a run taken with warm-up 0
/// (SPEC S9): the user raises the warm-up until trial one looks like trial ten.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WarmupCheck {
    /// The first trial.
    pub first: f64,
    /// Median of every later trial.
    pub median_rest: f64,
    /// IQR of every later trial.
    pub iqr_rest: f64,
    /// `first / median_rest` (`None` when that median is zero).
    pub ratio: Option<f64>,
    /// True when the first trial is slower than the rest's median by more
    /// than the rest's IQR (the S7 test with the first trial as a sample of
    /// one) and by more than 5 % (the settle rule's tolerance, so a few
    /// nearly equal trials with a tiny IQR do not flag a 1 % difference).
    /// A cold start is slow; a first trial faster than the rest says
    /// nothing about warm-up.
    pub stands_out: bool,
}

impl WarmupCheck {
    /// The one sentence every face prints and a row stores (SPEC S9), so
    /// `stats`, `bench` and the notebook say it the same way. Both figures
    /// are in the display unit of the rest's median and at the place the
    /// rest's IQR supports (S6, S12), so they compare digit for digit.
    pub fn describe(&self, unit: &str) -> String {
        let shown = DisplayUnit::for_median(unit, self.median_rest);
        let r = Rounded::new(
            shown.scale(self.median_rest),
            shown.scale(self.iqr_rest),
            shown.scale(self.first),
            shown.scale(self.first),
        );
        let verdict = if self.stands_out { "stands out: consider a longer warm-up" } else { "looks like the rest" };
        format!(
            "first value {} against the median of the rest {}: {verdict}",
            shown.after(&r.min),
            shown.after(&r.median)
        )
    }
}

/// Compares the first trial of `trials` (in order) with the others; needs at
/// least three trials.
pub fn warmup_check(trials: &[f64]) -> Option<WarmupCheck> {
    let (&first, rest) = trials.split_first()?;
    if rest.len() < 2 || !first.is_finite() || rest.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut sorted = rest.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let median_rest = percentile_sorted(&sorted, 0.5);
    let iqr_rest = percentile_sorted(&sorted, 0.75) - percentile_sorted(&sorted, 0.25);
    Some(WarmupCheck {
        first,
        median_rest,
        iqr_rest,
        ratio: (median_rest != 0.0).then(|| first / median_rest),
        stands_out: first - median_rest > iqr_rest.max(SETTLE_TOLERANCE * median_rest.abs()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC S8: performance and efficiency cores, 18 and 13 trials.
    #[test]
    fn two_core_types_are_flagged() {
        let mut trials: Vec<f64> = (0..18).map(|i| 10.0 + 0.01 * f64::from(i % 5)).collect();
        trials.extend((0..13).map(|i| 15.0 + 0.02 * f64::from(i % 4)));
        let b = bimodality(&trials).expect("two clumps");
        assert_eq!((b.low_count, b.high_count), (18, 13));
        assert!((b.low_median - 10.02).abs() < 1e-9);
        assert!(b.describe("ms", None, None).starts_with("two populations (18 trials near 10.0 ms, 13 near 15.0 ms)"));
        // SPEC S12: no float artefact in the clumps' medians.
        let b = Bimodality {
            low_count: 13,
            high_count: 2,
            low_median: 0.00801109,
            high_median: 0.008862572499999999,
            gap: 0.0008,
        };
        assert!(
            b.describe("s", None, None).starts_with("two populations (13 trials near 8.01 ms, 2 near 8.86 ms)"),
            "{}",
            b.describe("s", None, None)
        );
    }

    // SPEC S8: one slow outlier, or a smooth spread, is not two populations.
    #[test]
    fn outliers_and_smooth_spreads_are_not() {
        assert_eq!(bimodality(&[12.4, 12.5, 12.4, 12.6, 24.9]), None);
        let smooth: Vec<f64> = (0..31).map(|i| 10.0 + 0.1 * f64::from(i)).collect();
        assert_eq!(bimodality(&smooth), None);
        // A 10 ns timer tick on a 1 µs trial: two values, but 1 % apart.
        let quantised = [1000.0, 1000.0, 1010.0, 1000.0, 1010.0, 1000.0, 1000.0];
        assert_eq!(bimodality(&quantised), None);
    }

    // SPEC S9: a cold first trial stands out; a warm one does not.
    #[test]
    fn cold_first_trial_stands_out() {
        let cold = warmup_check(&[19.0, 12.4, 12.5, 12.4, 12.6, 12.5]).expect("enough trials");
        assert!(cold.stands_out);
        assert!((cold.ratio.expect("ratio") - 19.0 / 12.5).abs() < 1e-12);
        let warm = warmup_check(&[12.5, 12.4, 12.5, 12.4, 12.6, 12.5]).expect("enough trials");
        assert!(!warm.stands_out);
        // Two rest trials give a tiny IQR: 1 % slower, or faster, is not a cold start.
        assert!(!warmup_check(&[206.2, 203.6, 203.7]).expect("three").stands_out);
        assert!(!warmup_check(&[150.0, 203.6, 203.7]).expect("three").stands_out);
        assert_eq!(warmup_check(&[1.0, 2.0]), None);
        assert_eq!(
            warm.describe("ms"),
            "first value 12.50 ms against the median of the rest 12.50 ms: looks like the rest"
        );
        let cold = warmup_check(&[0.0019, 0.00124, 0.00125, 0.00124, 0.00126]).expect("enough trials");
        assert_eq!(
            cold.describe("s"),
            "first value 1.900 ms against the median of the rest 1.245 ms: stands out: consider a longer warm-up"
        );
    }

    // SPEC S17, S8 (issue 47 item 5): two trials apart from nine are no
    // second population, and a pinned run is never told to pin or to look
    // for core types.
    #[test]
    fn two_populations_need_enough_trials_and_the_runs_facts() {
        let mut trials: Vec<f64> = (0..9).map(|i| 10.0 + 0.01 * f64::from(i % 3)).collect();
        trials.extend([15.0, 15.1]);
        assert_eq!(bimodality(&trials), None, "two trials are two outliers");
        trials.push(15.05);
        let b = bimodality(&trials).expect("three trials apart are a clump");
        let pinned = b.describe("ms", Some(true), None);
        assert!(!pinned.contains("--pin") && !pinned.contains("core types"), "{pinned}");
        assert!(b.describe("ms", Some(false), None).contains("--pin"));
        // SPEC E19: trials that all ran on one CPU did not migrate either;
        // trials seen on two CPUs name them.
        let one = TrialCpus::of([Some(1); 12]).expect("told");
        let said = b.describe("ms", Some(false), Some(&one));
        assert!(said.contains("every trial ran on CPU 1") && !said.contains("--pin"), "{said}");
        let two = TrialCpus::of((0..12).map(|i| Some(i % 2))).expect("told");
        assert!(b.describe("ms", Some(false), Some(&two)).contains("its trials ran on CPUs 0, 1: pinning"));
    }

    // SPEC E19: the CPUs the trials ran on, said in one sentence and read
    // back from it; trials the OS did not tell are counted, never guessed.
    #[test]
    fn the_cpus_trials_ran_on_are_said_and_read_back() {
        let cases = [
            (vec![Some(1); 31], "CPU 1 for all 31 timed trials"),
            ([vec![Some(0); 12], vec![Some(1); 19]].concat(), "CPU 0 for 12, CPU 1 for 19 of 31 timed trials"),
            ([vec![Some(3); 5], vec![None; 2]].concat(), "CPU 3 for 5 of 7 timed trials; 2 not told"),
        ];
        for (seen, text) in cases {
            let cpus = TrialCpus::of(seen).expect("told");
            assert_eq!(cpus.describe(), text);
            assert_eq!(TrialCpus::read(text), Some(cpus), "{text}");
        }
        assert_eq!(TrialCpus::of([None, None]), None, "nothing told, nothing said");
        assert_eq!(TrialCpus::of([Some(3), None]).and_then(|c| c.only()), None, "one untold trial may have moved");
        for other in ["CPU x for all 3 timed trials", "on CPU 1", "CPU 1 for all 3 timed trials; many not told"] {
            assert_eq!(TrialCpus::read(other), None, "{other}");
        }
    }
}
