//! Measuring the instrument before measuring anything with it (SPEC E11),
//! and the sanity checks on kernels (SPEC E12).

use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde::Serialize;

use crate::kernels::{Canary, Kernel, KernelError, KernelKind, KernelSpec};
use crate::machine::Machine;
use crate::stats::Summary;

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

/// Sanity checks of one kernel (SPEC E12).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sanity {
    /// The kernel as described.
    pub kernel: String,
    /// Median time of two repetitions back to back over one repetition.
    pub doubling_ratio: f64,
    /// True when twice the work took about twice the time (1.6–2.4×);
    /// otherwise the loop was likely deleted or hoisted.
    pub doubling_ok: bool,
    /// Dependent loads per clock cycle (`chase` only, where a clock
    /// estimate exists).
    pub loads_per_cycle: Option<f64>,
    /// False when more than one dependent load retired per cycle, which is
    /// impossible: the chain was optimised away.
    pub loads_per_cycle_ok: Option<bool>,
}

/// Runs the doubling check (and for `chase` the loads-per-cycle check).
pub fn sanity(spec: &KernelSpec) -> Result<Sanity, KernelError> {
    let mut kernel = spec.prepare()?;
    let never = AtomicBool::new(false);
    let median_of = |reps: u32, kernel: &mut Box<dyn Kernel>| -> Result<f64, KernelError> {
        let mut times = Vec::new();
        for _ in 0..5 {
            let start = Instant::now();
            for _ in 0..reps {
                kernel.run_once(&never)?;
            }
            times.push(start.elapsed().as_nanos() as f64);
            kernel.verify()?;
        }
        Ok(Summary::of(&times).map_or(f64::NAN, |s| s.median))
    };
    median_of(1, &mut kernel)?; // warm-up
    let one = median_of(1, &mut kernel)?;
    let two = median_of(2, &mut kernel)?;
    let doubling_ratio = two / one;
    let loads_per_cycle = (spec.kind == KernelKind::Chase)
        .then(|| Machine::current_mhz().map(|mhz| 1.0 / (kernel.scale(one) * mhz / 1000.0)))
        .flatten();
    Ok(Sanity {
        kernel: kernel.describe(),
        doubling_ratio,
        doubling_ok: (1.6..=2.4).contains(&doubling_ratio),
        loads_per_cycle,
        loads_per_cycle_ok: loads_per_cycle.map(|l| l <= 1.0),
    })
}
