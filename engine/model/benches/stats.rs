//! Benchmark of the statistics on one million samples (SPEC S).
//!
//! Run with `cargo bench -p vernier-model --bench stats`. The samples are a
//! fixed pseudo-random right-skewed sequence, like timing data, so runs are
//! comparable across machines and commits.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use vernier_model::stats::{Summary, bimodality};

/// One million timings: 10 ms plus a one-sided, skewed noise term
/// (xorshift64*, fixed seed).
fn samples() -> Vec<f64> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..1_000_000)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let u = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
            10.0 + 0.5 * u * u * u
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let data = samples();
    let mut group = c.benchmark_group("stats_1m");
    group.sample_size(20);
    group.bench_function("summary", |b| b.iter(|| Summary::of(black_box(&data))));
    group.bench_function("summary_rounded", |b| b.iter(|| Summary::of(black_box(&data)).map(|s| s.rounded())));
    group.bench_function("bimodality", |b| b.iter(|| bimodality(black_box(&data))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
