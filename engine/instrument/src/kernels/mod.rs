//! Built-in kernels (SPEC E2): `seq`, `chase`, three matmul orders and the
//! `canary`.
//!
//! A kernel is prepared once (inputs built and validated, any reference
//! computed), then its body runs once per timed repetition. The result goes
//! through one optimisation barrier per repetition, never per iteration, and
//! is verified after every timed call, outside the timed interval.

mod canary;
mod matmul;
mod memory;
mod rng;

use std::sync::atomic::AtomicBool;

pub use canary::{Canary, dependent_steps};
pub use matmul::{Matmul, MatmulOrder};
pub use memory::{Memory, MemoryWalk};
use vernier_model::notebook::{DEFAULT_MATMUL_N, DEFAULT_TILE, DEFAULT_WORKING_SET, KernelKind, KernelSpec};

/// Seed of every kernel input, fixed so runs and machines see the same data.
pub const SEED: u64 = 12345;

/// Why a kernel cannot be prepared or did not run correctly.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KernelError {
    /// The kernel's parameters are out of range.
    #[error("{0}")]
    Invalid(String),
    /// A timed result did not match the reference: the measurement is void.
    #[error("wrong result: {0}")]
    WrongResult(String),
    /// The user cancelled during the body.
    #[error("cancelled")]
    Cancelled,
}

/// Validates a kernel's parameters and builds its inputs.
pub fn prepare(spec: &KernelSpec) -> Result<Box<dyn Kernel>, KernelError> {
    let invalid = |m: String| Err(KernelError::Invalid(m));
    if spec.tile.is_some() && spec.kind != KernelKind::MatmulBlocked {
        return invalid(format!("--tile applies to matmul-blocked, not {}", spec.kind.name()));
    }
    Ok(match spec.kind {
        KernelKind::Seq | KernelKind::Chase => {
            let walk = if spec.kind == KernelKind::Seq { MemoryWalk::Sequential } else { MemoryWalk::Chase };
            Box::new(Memory::new(walk, spec.size.unwrap_or(DEFAULT_WORKING_SET))?)
        }
        KernelKind::MatmulNaive | KernelKind::MatmulIkj | KernelKind::MatmulBlocked => {
            let order = match spec.kind {
                KernelKind::MatmulNaive => MatmulOrder::Naive,
                KernelKind::MatmulIkj => MatmulOrder::Ikj,
                _ => MatmulOrder::Blocked { tile: spec.tile.unwrap_or(DEFAULT_TILE) },
            };
            Box::new(Matmul::new(order, spec.size.unwrap_or(DEFAULT_MATMUL_N))?)
        }
        KernelKind::Canary => {
            if spec.size.is_some() {
                return invalid("the canary has a fixed size".into());
            }
            Box::new(Canary::new())
        }
    })
}

/// A prepared kernel.
pub trait Kernel: Send {
    /// The timed body: one repetition.
    fn run_once(&mut self, cancel: &AtomicBool) -> Result<(), KernelError>;
    /// Checks the last repetition's result (untimed) and returns its
    /// checksum as text.
    fn verify(&mut self) -> Result<String, KernelError>;
    /// The row's unit: `ns/access` or `ms`.
    fn unit(&self) -> &'static str;
    /// Converts one repetition's nanoseconds into the unit.
    fn scale(&self, ns: f64) -> f64;
    /// What the kernel does, for the row's `What`.
    fn describe(&self) -> String;
    /// Its fixed inputs, for the row's `inputs` (SPEC E19: "fixed seed,
    /// fixed input size, … all recorded").
    fn inputs(&self) -> String;
    /// The same kernel on a larger input, for the doubling check (SPEC
    /// E12): the check must grow the input, not repeat the same work, since
    /// a loop the compiler hoisted out of the repetitions would double
    /// with a repeat but not with a larger input.
    fn doubled(&self) -> Result<Doubled, KernelError>;
}

/// A kernel on a larger input and how much more work it does (SPEC E12).
pub struct Doubled {
    /// The larger kernel, prepared.
    pub kernel: Box<dyn Kernel>,
    /// Work of one repetition of it over one of the original (loads for
    /// `seq` and `chase`, multiply-adds for matmul, steps for the canary):
    /// 2, or the ratio actually used when the input cannot grow by exactly
    /// two (a matrix dimension is a whole number).
    pub work_ratio: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    // SPEC R2: a kernel row's command reads back as exactly the kernel it
    // ran, and nothing else is taken for one.
    #[test]
    fn a_kernel_command_reads_back_as_its_kernel() {
        let specs = [
            KernelSpec { kind: KernelKind::Chase, size: Some(1 << 20), tile: None },
            KernelSpec { kind: KernelKind::Seq, size: None, tile: None },
            KernelSpec { kind: KernelKind::MatmulBlocked, size: Some(256), tile: Some(32) },
        ];
        for spec in specs {
            assert_eq!(KernelSpec::from_argv(&spec.argv()), Some(spec));
        }
        let spec = KernelSpec::from_argv(&argv(&["/opt/bin/vernier", "bench", "--kernel", "seq"]));
        assert_eq!(spec.map(|s| s.kind), Some(KernelKind::Seq));
        for bad in [
            &["vernier", "bench", "--kernel", "seq", "--evil", "x"][..],
            &["vernier", "bench", "--kernel", "nope"],
            &["vernier", "bench", "--size", "12"],
            &["vernier", "bench", "--kernel"],
            &["vernier", "stats", "--kernel", "seq"],
            &["./matmul", "bench", "--kernel", "seq"],
        ] {
            assert_eq!(KernelSpec::from_argv(&argv(bad)), None, "{bad:?}");
        }
    }

    // SPEC E12: the doubling check grows the input — twice the working set
    // over as many laps (twice the loads, even for a set small enough to
    // take many laps), N·∛2 for matmul with the work ratio it really gives —
    // and the larger kernel runs and verifies.
    #[test]
    fn doubling_grows_the_input_and_the_work() {
        let cancel = AtomicBool::new(false);
        let cases = [
            (KernelSpec { kind: KernelKind::Seq, size: Some(16 * 1024), tile: None }, "working set 32 KiB", 2.0),
            (KernelSpec { kind: KernelKind::Chase, size: Some(16 * 1024), tile: None }, "working set 32 KiB", 2.0),
            (KernelSpec { kind: KernelKind::MatmulIkj, size: Some(64), tile: None }, "N=81", (81f64 / 64.0).powi(3)),
            (KernelSpec { kind: KernelKind::MatmulBlocked, size: Some(1), tile: Some(4) }, "N=2", 8.0),
            (KernelSpec { kind: KernelKind::Canary, size: None, tile: None }, "18874368 dependent", 2.0),
        ];
        for (spec, larger_input, ratio) in cases {
            let kernel = prepare(&spec).expect("valid");
            let Doubled { kernel: mut larger, work_ratio } = kernel.doubled().expect("grows");
            assert!((work_ratio - ratio).abs() < 1e-12, "{spec:?}: work ratio {work_ratio}, not {ratio}");
            assert!(larger.describe().contains(larger_input), "{spec:?}: {}", larger.describe());
            larger.run_once(&cancel).expect("runs");
            larger.verify().expect("verifies");
        }
        let memory = prepare(&KernelSpec { kind: KernelKind::Seq, size: Some(16 * 1024), tile: None }).expect("valid");
        let larger = memory.doubled().expect("grows").kernel;
        assert_eq!(larger.scale(2.0), memory.scale(1.0), "twice the loads per repetition");
    }
}
