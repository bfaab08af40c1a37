//! The thermal canary (SPEC E2, E7): a fixed block of dependent integer
//! arithmetic in registers, touching no memory, so its time moves only with
//! the clock.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Doubled, Kernel, KernelError};

/// Dependent xorshift steps per repetition (about 10 ms at 3 GHz).
const STEPS: u64 = 10_000_000;
const CANCEL_STRIDE: u64 = 1 << 20;

/// The canary.
pub struct Canary {
    /// Blocks of `CANCEL_STRIDE` steps per repetition: fixed, except in
    /// the doubling check's larger copy.
    blocks: u64,
    last: u64,
}

impl Canary {
    /// The one fixed canary.
    pub fn new() -> Self {
        Self { blocks: STEPS / CANCEL_STRIDE, last: 0 }
    }

    fn block(steps: u64) -> u64 {
        dependent_steps(steps)
    }
}

/// `steps` dependent xorshift steps in registers, touching no memory: the
/// canary's block and the soak's chunk of work.
pub fn dependent_steps(steps: u64) -> u64 {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..steps {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    x
}

impl Default for Canary {
    fn default() -> Self {
        Self::new()
    }
}

impl Kernel for Canary {
    fn run_once(&mut self, cancel: &AtomicBool) -> Result<(), KernelError> {
        let mut acc = 0u64;
        for _ in 0..self.blocks {
            // The input passes through a barrier so the block cannot be
            // computed at compile time.
            acc ^= Self::block(black_box(CANCEL_STRIDE));
            if cancel.load(Ordering::Relaxed) {
                return Err(KernelError::Cancelled);
            }
        }
        self.last = black_box(acc);
        Ok(())
    }

    fn verify(&mut self) -> Result<String, KernelError> {
        // Blocks repeat the same sequence, so pairs cancel under XOR: an odd
        // number of blocks leaves exactly one block's value.
        let expected = if self.blocks % 2 == 1 { Self::block(CANCEL_STRIDE) } else { 0 };
        if self.last == expected {
            Ok(format!("value {expected:#x}"))
        } else {
            Err(KernelError::WrongResult(format!("value {:#x} instead of {expected:#x}", self.last)))
        }
    }

    fn unit(&self) -> &'static str {
        "ms"
    }

    fn scale(&self, ns: f64) -> f64 {
        ns / 1e6
    }

    fn doubled(&self) -> Result<Doubled, KernelError> {
        let larger = Canary { blocks: 2 * self.blocks, last: 0 };
        Ok(Doubled { kernel: Box::new(larger), work_ratio: 2.0 })
    }

    fn inputs(&self) -> String {
        "none: fixed arithmetic on registers".to_owned()
    }

    fn describe(&self) -> String {
        format!("canary, {} dependent xorshift steps", self.blocks * CANCEL_STRIDE)
    }
}
