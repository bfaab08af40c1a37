//! `seq` and `chase` over the same array (SPEC E2).
//!
//! The working set is cut into 64-byte lines, one node per line; each node's
//! first word holds the index of the next node on a single random cycle
//! (Sattolo's algorithm, seed 12345). `chase` follows that cycle — each
//! load's address is the previous load's result — for whole laps; `seq`
//! reads the same words in address order. Same array, same number of loads.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};

use super::rng::SplitMix64;
use super::{Doubled, Kernel, KernelError, SEED};

const LINE_BYTES: u64 = 64;
const WORDS_PER_LINE: usize = 8;
/// Loads per repetition at least: small working sets take many laps so a
/// repetition is long enough to time; large ones take exactly one lap.
const MIN_LOADS: usize = 1 << 20;
/// Loads between two looks at the cancel flag.
const CANCEL_STRIDE: usize = 1 << 16;
/// Upper bound on the working set: 4 GiB.
const MAX_BYTES: u64 = 4 << 30;

/// Which walk over the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryWalk {
    /// Address order: prefetchable, many loads in flight.
    Sequential,
    /// The random cycle: one load in flight.
    Chase,
}

/// A prepared `seq` or `chase`.
pub struct Memory {
    walk: MemoryWalk,
    bytes: u64,
    words: Vec<u64>,
    nodes: usize,
    laps: usize,
    last: u64,
}

impl Memory {
    /// Builds the cycle over `bytes` (rounded down to whole 64-byte lines).
    pub fn new(walk: MemoryWalk, bytes: u64) -> Result<Self, KernelError> {
        Self::with_laps(walk, bytes, None)
    }

    /// [`Memory::new`] walking `laps` laps per repetition, or as many as
    /// make a repetition long enough to time.
    fn with_laps(walk: MemoryWalk, bytes: u64, laps: Option<usize>) -> Result<Self, KernelError> {
        if !(2 * LINE_BYTES..=MAX_BYTES).contains(&bytes) {
            return Err(KernelError::Invalid(format!(
                "working set must be between {} and {MAX_BYTES} bytes, not {bytes}",
                2 * LINE_BYTES
            )));
        }
        let nodes = usize::try_from(bytes / LINE_BYTES)
            .map_err(|_| KernelError::Invalid(format!("{bytes} bytes do not fit in memory here")))?;
        let mut words = vec![0u64; nodes * WORDS_PER_LINE];
        for (i, next) in sattolo_cycle(nodes).into_iter().enumerate() {
            words[i * WORDS_PER_LINE] = next as u64;
        }
        let laps = laps.unwrap_or_else(|| MIN_LOADS.div_ceil(nodes));
        Ok(Self { walk, bytes: nodes as u64 * LINE_BYTES, words, nodes, laps, last: 0 })
    }

    /// Loads per repetition.
    pub fn loads(&self) -> usize {
        self.nodes * self.laps
    }
}

/// A permutation of `0..n` that is one single cycle (Sattolo 1986): node
/// `i`'s successor is `result[i]`.
fn sattolo_cycle(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = SplitMix64::new(SEED);
    for i in (1..n).rev() {
        // j < i strictly: that is what makes a single cycle.
        let j = rng.below(i as u64) as usize;
        order.swap(i, j);
    }
    // `order` lists the cycle's nodes in visiting order; link each to the next.
    let mut next = vec![0; n];
    for w in 0..n {
        next[order[w]] = order[(w + 1) % n];
    }
    next
}

impl Kernel for Memory {
    fn run_once(&mut self, cancel: &AtomicBool) -> Result<(), KernelError> {
        let words = &self.words;
        let mut result = 0u64;
        match self.walk {
            MemoryWalk::Chase => {
                let mut node = 0usize;
                for _ in 0..self.laps {
                    for start in (0..self.nodes).step_by(CANCEL_STRIDE) {
                        for _ in start..(start + CANCEL_STRIDE).min(self.nodes) {
                            node = words[node * WORDS_PER_LINE] as usize;
                        }
                        if cancel.load(Ordering::Relaxed) {
                            return Err(KernelError::Cancelled);
                        }
                    }
                }
                result = node as u64;
            }
            MemoryWalk::Sequential => {
                for _ in 0..self.laps {
                    for start in (0..self.nodes).step_by(CANCEL_STRIDE) {
                        let end = (start + CANCEL_STRIDE).min(self.nodes);
                        for node in start..end {
                            result = result.wrapping_add(words[node * WORDS_PER_LINE]);
                        }
                        if cancel.load(Ordering::Relaxed) {
                            return Err(KernelError::Cancelled);
                        }
                    }
                }
            }
        }
        // The one barrier per repetition.
        self.last = black_box(result);
        Ok(())
    }

    fn verify(&mut self) -> Result<String, KernelError> {
        match self.walk {
            // Whole laps of a single cycle end where they started.
            MemoryWalk::Chase if self.last != 0 => Err(KernelError::WrongResult(format!(
                "the chase ended at node {} instead of closing its cycle at 0",
                self.last
            ))),
            MemoryWalk::Sequential => {
                // Every node index appears once per lap as some node's successor.
                let n = self.nodes as u64;
                let expected = (n * (n - 1) / 2).wrapping_mul(self.laps as u64);
                if self.last == expected {
                    Ok(format!("sum {expected}"))
                } else {
                    Err(KernelError::WrongResult(format!("sum {} instead of {expected}", self.last)))
                }
            }
            MemoryWalk::Chase => Ok(format!("{} laps closed", self.laps)),
        }
    }

    fn unit(&self) -> &'static str {
        "ns/access"
    }

    fn scale(&self, ns: f64) -> f64 {
        ns / self.loads() as f64
    }

    fn doubled(&self) -> Result<Doubled, KernelError> {
        // As many laps over twice the lines: exactly twice the loads. With
        // the laps left to `new`, a small working set would take half the
        // laps and the work would not grow at all.
        let bytes = self.bytes.saturating_mul(2);
        if bytes > MAX_BYTES {
            return Err(KernelError::Invalid(format!(
                "the doubling check needs twice the working set, {bytes} bytes, more than the {MAX_BYTES} a kernel may take"
            )));
        }
        let larger = Self::with_laps(self.walk, bytes, Some(self.laps))?;
        let work_ratio = larger.loads() as f64 / self.loads() as f64;
        Ok(Doubled { kernel: Box::new(larger), work_ratio })
    }

    fn inputs(&self) -> String {
        format!(
            "seed {SEED} (the random cycle through the array), working set {}",
            vernier_model::stats::units::size(self.bytes as f64)
        )
    }

    fn describe(&self) -> String {
        let walk = match self.walk {
            MemoryWalk::Sequential => "seq",
            MemoryWalk::Chase => "chase",
        };
        format!(
            "{walk}, working set {}, {} loads per repetition",
            vernier_model::stats::units::size(self.bytes as f64),
            self.loads()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E2: Sattolo gives one cycle through every node.
    #[test]
    fn sattolo_is_a_single_full_cycle() {
        for n in [2, 3, 64, 1000] {
            let next = sattolo_cycle(n);
            let (mut node, mut steps) = (0, 0);
            loop {
                node = next[node];
                steps += 1;
                if node == 0 {
                    break;
                }
            }
            assert_eq!(steps, n, "cycle of length {steps} in {n} nodes");
        }
    }

    // SPEC E2: both walks run and verify; same loads per repetition.
    #[test]
    fn seq_and_chase_share_the_load_count_and_verify() {
        let cancel = AtomicBool::new(false);
        let mut seq = Memory::new(MemoryWalk::Sequential, 16 * 1024).expect("valid");
        let mut chase = Memory::new(MemoryWalk::Chase, 16 * 1024).expect("valid");
        assert_eq!(seq.loads(), chase.loads());
        for k in [&mut seq, &mut chase] {
            k.run_once(&cancel).expect("runs");
            k.verify().expect("correct");
        }
        assert!(Memory::new(MemoryWalk::Chase, 64).is_err());
        cancel.store(true, Ordering::Relaxed);
        assert_eq!(chase.run_once(&cancel), Err(KernelError::Cancelled));
    }
}
