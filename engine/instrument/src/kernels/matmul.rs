//! Matrix multiply in three loop orders (SPEC E2), checked after every
//! timed call against a reference computed before timing.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};

use super::rng::SplitMix64;
use super::{Doubled, Kernel, KernelError, SEED};

/// Largest dimension accepted: three 4096² matrices take 400 MB.
const MAX_N: u64 = 4096;

/// The loop order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatmulOrder {
    /// i, j, p: the inner loop strides down a column of B.
    Naive,
    /// i, k, j: the inner loop walks rows of B and C at unit stride.
    Ikj,
    /// i, k, j over `tile`-sized blocks; edge tiles are cut at the dimension.
    Blocked {
        /// Tile edge (≥ 1).
        tile: u64,
    },
}

/// A prepared multiply of two n×n matrices.
pub struct Matmul {
    order: MatmulOrder,
    n: usize,
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    reference: Vec<f64>,
}

impl Matmul {
    /// Builds seeded inputs, validates them and computes the reference.
    pub fn new(order: MatmulOrder, n: u64) -> Result<Self, KernelError> {
        if !(1..=MAX_N).contains(&n) {
            return Err(KernelError::Invalid(format!("matrix dimension must be between 1 and {MAX_N}, not {n}")));
        }
        if let MatmulOrder::Blocked { tile } = order
            && tile < 1
        {
            return Err(KernelError::Invalid("tile must be at least 1".into()));
        }
        let n = n as usize;
        let mut rng = SplitMix64::new(SEED);
        let a: Vec<f64> = (0..n * n).map(|_| rng.unit_interval()).collect();
        let b: Vec<f64> = (0..n * n).map(|_| rng.unit_interval()).collect();
        let mut kernel = Self { order, n, a, b, c: vec![0.0; n * n], reference: Vec::new() };
        kernel.validate()?;
        let mut reference = vec![0.0; n * n];
        naive(&kernel.a, &kernel.b, &mut reference, n, &AtomicBool::new(false))?;
        kernel.reference = reference;
        Ok(kernel)
    }

    /// Shapes consistent and every input finite.
    fn validate(&self) -> Result<(), KernelError> {
        let n2 = self.n * self.n;
        if self.a.len() != n2 || self.b.len() != n2 || self.c.len() != n2 {
            return Err(KernelError::Invalid("matrix shapes are inconsistent".into()));
        }
        if let Some(v) = self.a.iter().chain(&self.b).find(|v| !v.is_finite()) {
            return Err(KernelError::Invalid(format!("input holds a non-finite value ({v})")));
        }
        Ok(())
    }
}

fn naive(a: &[f64], b: &[f64], c: &mut [f64], n: usize, cancel: &AtomicBool) -> Result<(), KernelError> {
    for i in 0..n {
        for j in 0..n {
            let mut sum = 0.0;
            for p in 0..n {
                sum += a[i * n + p] * b[p * n + j];
            }
            c[i * n + j] = sum;
        }
        check(cancel)?;
    }
    Ok(())
}

fn ikj(a: &[f64], b: &[f64], c: &mut [f64], n: usize, cancel: &AtomicBool) -> Result<(), KernelError> {
    c.fill(0.0);
    for i in 0..n {
        let row = &mut c[i * n..(i + 1) * n];
        for k in 0..n {
            let aik = a[i * n + k];
            for (cij, bkj) in row.iter_mut().zip(&b[k * n..(k + 1) * n]) {
                *cij += aik * bkj;
            }
        }
        check(cancel)?;
    }
    Ok(())
}

fn blocked(a: &[f64], b: &[f64], c: &mut [f64], n: usize, tile: usize, cancel: &AtomicBool) -> Result<(), KernelError> {
    c.fill(0.0);
    for ii in (0..n).step_by(tile) {
        for kk in (0..n).step_by(tile) {
            for jj in (0..n).step_by(tile) {
                let j_end = (jj + tile).min(n);
                for i in ii..(ii + tile).min(n) {
                    for k in kk..(kk + tile).min(n) {
                        let aik = a[i * n + k];
                        for (cij, bkj) in c[i * n + jj..i * n + j_end].iter_mut().zip(&b[k * n + jj..k * n + j_end]) {
                            *cij += aik * bkj;
                        }
                    }
                }
            }
        }
        check(cancel)?;
    }
    Ok(())
}

fn check(cancel: &AtomicBool) -> Result<(), KernelError> {
    if cancel.load(Ordering::Relaxed) { Err(KernelError::Cancelled) } else { Ok(()) }
}

impl Kernel for Matmul {
    fn run_once(&mut self, cancel: &AtomicBool) -> Result<(), KernelError> {
        let (a, b, n) = (&self.a, &self.b, self.n);
        match self.order {
            MatmulOrder::Naive => naive(a, b, &mut self.c, n, cancel)?,
            MatmulOrder::Ikj => ikj(a, b, &mut self.c, n, cancel)?,
            // Validated ≥ 1 in `new`; a tile wider than the matrix is one tile.
            MatmulOrder::Blocked { tile } => blocked(a, b, &mut self.c, n, tile.min(n as u64) as usize, cancel)?,
        }
        // The one barrier per repetition: the whole result escapes.
        black_box(&mut self.c);
        Ok(())
    }

    fn verify(&mut self) -> Result<String, KernelError> {
        for (idx, (got, want)) in self.c.iter().zip(&self.reference).enumerate() {
            if (got - want).abs() > 1e-9 * (1.0 + want.abs()) {
                let (i, j) = (idx / self.n, idx % self.n);
                return Err(KernelError::WrongResult(format!("C[{i}][{j}] is {got}, the reference says {want}")));
            }
        }
        Ok(format!("checksum {:.6}", self.c.iter().sum::<f64>()))
    }

    fn unit(&self) -> &'static str {
        "ms"
    }

    fn scale(&self, ns: f64) -> f64 {
        ns / 1e6
    }

    fn doubled(&self) -> Result<Doubled, KernelError> {
        // N³ multiply-adds: N·∛2 doubles them, rounded to a whole dimension
        // (at least one more), and the ratio actually used is stated.
        let n = self.n as u64;
        let larger = ((n as f64 * 2f64.cbrt()).round() as u64).max(n + 1);
        if larger > MAX_N {
            return Err(KernelError::Invalid(format!(
                "the doubling check needs N={larger}, more than the largest dimension {MAX_N}"
            )));
        }
        let work_ratio = (larger as f64 / n as f64).powi(3);
        Ok(Doubled { kernel: Box::new(Matmul::new(self.order, larger)?), work_ratio })
    }

    fn inputs(&self) -> String {
        format!("seed {SEED} (the matrices' values), N={}", self.n)
    }

    fn describe(&self) -> String {
        match self.order {
            MatmulOrder::Naive => format!("matmul ijk (naive), N={}", self.n),
            MatmulOrder::Ikj => format!("matmul ikj, N={}", self.n),
            MatmulOrder::Blocked { tile } => format!("matmul blocked, N={}, tile {tile}", self.n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E2: all three orders agree with the reference, edge tiles included.
    #[test]
    fn orders_agree_with_the_reference() {
        let cancel = AtomicBool::new(false);
        for order in
            [MatmulOrder::Naive, MatmulOrder::Ikj, MatmulOrder::Blocked { tile: 7 }, MatmulOrder::Blocked { tile: 100 }]
        {
            let mut m = Matmul::new(order, 37).expect("valid");
            m.run_once(&cancel).expect("runs");
            assert!(m.verify().expect("matches").starts_with("checksum"));
        }
    }

    // SPEC E2: invalid inputs are refused before anything runs.
    #[test]
    fn refuses_bad_parameters() {
        assert!(Matmul::new(MatmulOrder::Naive, 0).is_err());
        assert!(Matmul::new(MatmulOrder::Blocked { tile: 0 }, 8).is_err());
        assert!(Matmul::new(MatmulOrder::Ikj, MAX_N + 1).is_err());
    }

    // SPEC E2: a wrong result is caught.
    #[test]
    fn a_corrupted_result_fails_verification() {
        let mut m = Matmul::new(MatmulOrder::Ikj, 8).expect("valid");
        m.run_once(&AtomicBool::new(false)).expect("runs");
        m.c[9] += 1.0;
        assert!(matches!(m.verify(), Err(KernelError::WrongResult(_))));
    }
}
