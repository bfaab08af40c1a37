//! Measuring the instrument before measuring anything with it (SPEC E11),
//! and the sanity checks on kernels (SPEC E12).

use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde::Serialize;

use crate::kernels::{Canary, Doubled, Kernel, KernelError};
use crate::platform::machine::Machine;
use vernier_model::notebook::{KernelKind, KernelSpec};
use vernier_model::stats::{Summary, format_significant};

/// Clock reads used to estimate the timer's cost and step.
const TIMER_READS: u32 = 1_000_000;
/// The noise floor's repetitions of one body (SPEC E11).
const NOISE_RUNS: usize = 16;

/// The noise floor: one body timed back to back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoiseFloor {
    /// Repetitions.
    pub runs: usize,
    /// Fastest, ms.
    pub min_ms: f64,
    /// Slowest, ms.
    pub max_ms: f64,
    /// max / min − 1: the spread this machine shows with nothing changing.
    pub spread: f64,
}

/// The instrument check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstrumentCheck {
    /// The clock Vernier reads.
    pub clock: String,
    /// Cost of one clock read, ns.
    pub timer_overhead_ns: f64,
    /// Smallest step seen between two successive reads, ns.
    pub timer_resolution_ns: f64,
    /// The canary timed 16 times back to back.
    pub noise_floor: NoiseFloor,
    /// Whether hardware counters can be read.
    pub counters: String,
    /// Whether threads can be pinned.
    pub placement: String,
}

/// Runs the instrument check (about a quarter of a second).
pub fn check() -> InstrumentCheck {
    let start = Instant::now();
    let mut last = start;
    let mut resolution = u128::MAX;
    for _ in 0..TIMER_READS {
        let now = black_box(Instant::now());
        let step = now.duration_since(last).as_nanos();
        if step > 0 {
            resolution = resolution.min(step);
        }
        last = now;
    }
    let overhead = start.elapsed().as_nanos() as f64 / f64::from(TIMER_READS);

    let mut canary = Canary::new();
    let never = AtomicBool::new(false);
    let times: Vec<f64> = (0..NOISE_RUNS)
        .filter_map(|_| {
            let t = Instant::now();
            canary.run_once(&never).ok()?;
            Some(t.elapsed().as_secs_f64() * 1e3)
        })
        .collect();
    let (min_ms, max_ms) = times.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &t| (lo.min(t), hi.max(t)));
    let machine = Machine::read();
    InstrumentCheck {
        clock: crate::platform::INSTANT_CLOCK.into(),
        timer_overhead_ns: overhead,
        timer_resolution_ns: if resolution == u128::MAX { f64::NAN } else { resolution as f64 },
        noise_floor: NoiseFloor { runs: times.len(), min_ms, max_ms, spread: max_ms / min_ms - 1.0 },
        counters: machine.counters,
        placement: machine.placement,
    }
}

/// Interleaved pairs of repetitions (original, larger) in the doubling check.
const DOUBLING_PAIRS: usize = 11;
/// Steps of the clock estimate's chain, each an add then a xor.
const CHAIN_STEPS: u64 = 5_000_000;
/// Timed chains; the median is kept.
const CHAIN_RUNS: usize = 7;
/// How far the time ratio may stray from the work ratio, as a fraction of
/// it, and still count as "about proportional" (1.6–2.4× for twice the work).
const DOUBLING_TOLERANCE: f64 = 0.2;

/// How the time grew against the work in the doubling check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Growth {
    /// About in proportion: the work is being done.
    About,
    /// Well below the work: the loop was likely deleted or hoisted.
    Less,
    /// Well above the work: the larger input costs more per unit of work
    /// (it left a cache level), which is not a deleted loop.
    More,
}

/// A clock estimate made by Vernier itself (SPEC E12). The figure the OS
/// reports (`/proc/cpuinfo`'s `cpu MHz`, a nominal frequency) is a stale
/// sample or a label, not the clock a measurement ran at, so it is never
/// used: a number that looks like a measurement and is not is worse than
/// none.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClockEstimate {
    /// Cycles per nanosecond.
    pub ghz: f64,
    /// The measurement it comes from.
    pub source: String,
}

impl ClockEstimate {
    /// Times a dependent chain of single-cycle integer operations (an add
    /// then a xor, each waiting for the one before: one operation per cycle
    /// on any core, however wide) and counts operations per nanosecond.
    /// The median of several chains, after one that lets the clock ramp up.
    /// Refused, with the reason, when the figure would not be a clock.
    pub fn measure() -> Result<Self, &'static str> {
        // Unoptimised code keeps the chain's value in memory, so each step
        // waits on a store and a load, not on one operation: the figure
        // would look like a clock and not be one.
        if cfg!(debug_assertions) {
            return Err("this is an unoptimised (debug) build, where the timed add chain does not run one operation \
                        per cycle; use a release build");
        }
        let (add, mix) = (black_box(0x9E37_79B9_7F4A_7C15u64), black_box(0x2545_F491_4F6C_DD1Du64));
        let mut times = Vec::with_capacity(CHAIN_RUNS);
        for run in 0..=CHAIN_RUNS {
            let start = Instant::now();
            black_box(dependent_add_chain(black_box(run as u64), add, mix, CHAIN_STEPS));
            let ns = start.elapsed().as_nanos() as f64;
            if run > 0 {
                times.push(ns);
            }
        }
        let unusable = "the timed add chain gave no usable figure";
        let ns = Summary::of(&times).map_err(|_| unusable)?.median;
        let operations = 2 * CHAIN_STEPS;
        let ghz = operations as f64 / ns;
        if !(ghz.is_finite() && ghz > 0.0) {
            return Err(unusable);
        }
        Ok(Self {
            ghz,
            source: format!(
                "a timed dependent add chain ({operations} adds and xors, one cycle each; median of {CHAIN_RUNS})"
            ),
        })
    }

    /// "clock estimated from …: 2.9 GHz".
    pub fn describe(&self) -> String {
        format!("clock estimated from {}: {} GHz", self.source, format_significant(self.ghz, 2))
    }
}

/// `steps` dependent steps of an add and a xor. Neither a closed form nor a
/// reordering can shorten the chain, so it takes one cycle per operation.
#[inline(never)]
fn dependent_add_chain(mut x: u64, add: u64, mix: u64, steps: u64) -> u64 {
    for _ in 0..steps {
        x = x.wrapping_add(add) ^ mix;
    }
    x
}

/// Sanity checks of one kernel (SPEC E12).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sanity {
    /// The kernel as described.
    pub kernel: String,
    /// The same kernel on the larger input, as described.
    pub doubled: String,
    /// Work of one repetition of the larger over the original: 2, or the
    /// ratio the input could really grow by (matmul's whole dimension).
    pub work_ratio: f64,
    /// Fastest repetition of the larger over the fastest of the original.
    pub doubling_ratio: f64,
    /// How the time grew against the work.
    pub growth: Growth,
    /// True when the time grew about as the work did (within 20 %).
    pub doubling_ok: bool,
    /// Vernier's own clock estimate, if it has one.
    pub clock: Option<ClockEstimate>,
    /// Where the clock estimate came from, or that there is none.
    pub clock_estimate: String,
    /// Dependent loads per clock cycle in the fastest repetition (`chase`
    /// only, with a clock estimate).
    pub loads_per_cycle: Option<f64>,
    /// False when more than one dependent load retired per cycle, which is
    /// impossible: the chain was optimised away.
    pub loads_per_cycle_ok: Option<bool>,
}

impl Sanity {
    /// The check's lines as every face prints them: the doubling, where the
    /// clock estimate came from, and the loads per cycle when checked.
    pub fn describe(&self) -> Vec<String> {
        let verdict = match self.growth {
            Growth::About => "about in proportion: ok",
            // Every repetition's result is verified, so the work did run:
            // the original input is the slow one for its size.
            Growth::Less => {
                "NOT in proportion: less than the work, though every result was verified — the original input is \
                 slower for its size than the larger one (a matmul N that is a power of two makes columns collide \
                 in the cache: try an N that is not)"
            }
            Growth::More => {
                "more than the work: the larger input costs more per unit of work, likely because it left a cache level"
            }
        };
        let work = if self.work_ratio == 2.0 {
            "twice the work".to_owned()
        } else {
            format!("{}× the work", format_significant(self.work_ratio, 3))
        };
        let mut lines = vec![format!(
            "the input grown from {} to {}: {work} took {}× the time ({verdict})",
            self.kernel,
            self.doubled,
            format_significant(self.doubling_ratio, 2)
        )];
        lines.push(self.clock_estimate.clone());
        if let (Some(lpc), Some(ok)) = (self.loads_per_cycle, self.loads_per_cycle_ok) {
            let verdict = if ok { "possible: at most one" } else { "IMPOSSIBLE for a dependent chain" };
            lines.push(format!("{} dependent loads per cycle ({verdict})", format_significant(lpc, 2)));
        }
        lines
    }
}

/// Runs the doubling check (and for `chase` the loads-per-cycle check):
/// the kernel and its larger copy, interleaved so a drifting clock slows
/// both alike, then a clock estimate timed right after, while the core is
/// as warm as it was for the kernel.
pub fn sanity(spec: &KernelSpec) -> Result<Sanity, KernelError> {
    let mut kernel = crate::kernels::prepare(spec)?;
    let Doubled { kernel: mut larger, work_ratio } = kernel.doubled()?;
    let never = AtomicBool::new(false);
    let time = |k: &mut Box<dyn Kernel>| -> Result<f64, KernelError> {
        let start = Instant::now();
        k.run_once(&never)?;
        let ns = start.elapsed().as_nanos() as f64;
        k.verify()?;
        Ok(ns)
    };
    time(&mut kernel)?; // warm-up
    time(&mut larger)?;
    let (mut one, mut two) = (Vec::with_capacity(DOUBLING_PAIRS), Vec::with_capacity(DOUBLING_PAIRS));
    for _ in 0..DOUBLING_PAIRS {
        one.push(time(&mut kernel)?);
        two.push(time(&mut larger)?);
    }
    // The fastest of each, as the cycle-counting write-up publishes its
    // ratios ("interleaved, minimum of N"): interruptions only ever add
    // time, and on a noisy machine a median of a few short repetitions
    // swings the ratio both ways. The ratio is a check, not a headline.
    let fastest = |times: &[f64]| times.iter().copied().reduce(f64::min).unwrap_or(f64::NAN);
    let (one, two) = (fastest(&one), fastest(&two));
    let doubling_ratio = two / one;
    let growth = growth(doubling_ratio, work_ratio);
    let (clock, clock_estimate) = match ClockEstimate::measure() {
        Ok(clock) => {
            let text = clock.describe();
            (Some(clock), text)
        }
        Err(why) => (None, format!("no clock estimate: {why}")),
    };
    let loads_per_cycle =
        (spec.kind == KernelKind::Chase).then(|| clock.as_ref().map(|c| 1.0 / (kernel.scale(one) * c.ghz))).flatten();
    Ok(Sanity {
        kernel: kernel.describe(),
        doubled: larger.describe(),
        work_ratio,
        doubling_ratio,
        growth,
        doubling_ok: growth == Growth::About,
        clock,
        clock_estimate,
        loads_per_cycle,
        loads_per_cycle_ok: loads_per_cycle.map(possible_for_a_chain),
    })
}

/// True when a dependent chain could retire `loads_per_cycle`: each load
/// waits for the one before, so at most one a cycle.
fn possible_for_a_chain(loads_per_cycle: f64) -> bool {
    loads_per_cycle <= 1.0
}

/// The time ratio against the work ratio, within [`DOUBLING_TOLERANCE`].
fn growth(time_ratio: f64, work_ratio: f64) -> Growth {
    let proportion = time_ratio / work_ratio;
    // No usable timing is no evidence the work was done.
    if proportion.is_nan() || proportion < 1.0 - DOUBLING_TOLERANCE {
        Growth::Less
    } else if proportion > 1.0 + DOUBLING_TOLERANCE {
        Growth::More
    } else {
        Growth::About
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E12: a chase that retired more than one dependent load per cycle
    // did not run its chain (the compiler removed it): said IMPOSSIBLE; at
    // most one is possible.
    #[test]
    fn more_than_one_dependent_load_per_cycle_is_impossible() {
        let sanity = |lpc: f64| Sanity {
            kernel: "chase, working set 16 KiB".into(),
            doubled: "chase, working set 32 KiB".into(),
            work_ratio: 2.0,
            doubling_ratio: 2.0,
            growth: Growth::About,
            doubling_ok: true,
            clock: None,
            clock_estimate: "clock estimate: 3.0 GHz".into(),
            loads_per_cycle: Some(lpc),
            loads_per_cycle_ok: Some(possible_for_a_chain(lpc)),
        };
        let lines = sanity(2.5).describe();
        assert_eq!(
            lines.last().map(String::as_str),
            Some("2.5 dependent loads per cycle (IMPOSSIBLE for a dependent chain)")
        );
        let lines = sanity(0.25).describe();
        assert_eq!(lines.last().map(String::as_str), Some("0.25 dependent loads per cycle (possible: at most one)"));
    }

    // SPEC E12: the time ratio is judged against the work ratio actually
    // used, and a missing timing is never "ok".
    #[test]
    fn growth_is_judged_against_the_work() {
        assert_eq!(growth(2.1, 2.0), Growth::About);
        assert_eq!(growth(1.9993, 1.9993), Growth::About);
        assert_eq!(growth(1.0, 2.0), Growth::Less, "the same time for twice the work: the loop is gone");
        assert_eq!(growth(3.5, 2.0), Growth::More);
        assert_eq!(growth(f64::NAN, 2.0), Growth::Less);
    }

    // SPEC E12: the doubling check runs the kernel on twice the input (not
    // the same work twice), and its clock estimate comes from Vernier's own
    // timed chain, never from the OS's `cpu MHz`.
    #[test]
    fn sanity_doubles_the_input_and_times_its_own_clock() {
        let spec = KernelSpec { kind: KernelKind::Chase, size: Some(16 * 1024), tile: None };
        let s = sanity(&spec).expect("runs");
        assert!(s.kernel.contains("working set 16 KiB"), "{}", s.kernel);
        assert!(s.doubled.contains("working set 32 KiB"), "{}", s.doubled);
        assert_eq!(s.work_ratio, 2.0);
        assert!(s.doubling_ratio.is_finite() && s.doubling_ratio > 0.0, "{}", s.doubling_ratio);
        assert_eq!(s.doubling_ok, s.growth == Growth::About);
        match &s.clock {
            Some(clock) => {
                assert!(clock.ghz.is_finite() && clock.ghz > 0.0);
                assert!(s.clock_estimate.starts_with("clock estimated from a timed dependent add chain ("));
                assert!(s.clock_estimate.ends_with(" GHz"), "{}", s.clock_estimate);
                // An L1-resident chase cannot retire a dependent load per cycle.
                assert_eq!(s.loads_per_cycle_ok, Some(true), "{:?}", s.loads_per_cycle);
            }
            None => assert!(s.clock_estimate.starts_with("no clock estimate: "), "{}", s.clock_estimate),
        }
        assert_eq!(s.clock.is_none(), cfg!(debug_assertions), "a debug build's chain is not a clock");
        let text = s.describe().join("\n");
        for stale in ["MHz", "cpuinfo", "nominal"] {
            assert!(!text.contains(stale), "the clock must not come from {stale}: {text}");
        }
        assert!(text.contains("twice the work took"), "{text}");
    }

    // SPEC E12: the larger matmul's work ratio is stated as used, not as 2.
    #[test]
    fn matmul_states_the_work_ratio_it_used() {
        let spec = KernelSpec { kind: KernelKind::MatmulIkj, size: Some(32), tile: None };
        let s = sanity(&spec).expect("runs");
        assert!(s.doubled.contains("N=40"), "{}", s.doubled);
        assert_eq!(s.work_ratio, (40f64 / 32.0).powi(3));
        assert_eq!(s.loads_per_cycle, None, "only a dependent chain has a one-per-cycle limit");
        assert!(s.describe()[0].contains("1.95× the work took"), "{:?}", s.describe());
    }
}
