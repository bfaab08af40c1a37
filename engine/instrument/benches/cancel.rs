//! How long cancelling a running benchmark takes, from `BenchRunner::cancel` to
//! the finished result with the child killed (SPEC E1 asks for 100 ms).
//!
//! Run with `cargo bench -p vernier-instrument --bench cancel`.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use vernier_instrument::harness::{BenchEvent, BenchRunner, BenchSpec, Subject};
use vernier_model::notebook::WarmupPolicy;

fn cancel_latency(c: &mut Criterion) {
    let engine = BenchRunner::spawn(|| {}).expect("engine thread");
    let mut spec = BenchSpec::new(vec![Subject::Command { argv: vec!["sleep".into(), "30".into()], shell: false }]);
    spec.warmup = WarmupPolicy::Count(0);
    spec.runs = 1;
    let mut group = c.benchmark_group("engine");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(8));
    group.bench_function("cancel_to_finished", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                engine.start(spec.clone());
                // Past the opening canary, so a trial is in flight.
                std::thread::sleep(Duration::from_millis(150));
                let cancelled = Instant::now();
                engine.cancel();
                loop {
                    match engine.events().recv() {
                        Ok(BenchEvent::Finished(_) | BenchEvent::Failed(_)) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
                total += cancelled.elapsed();
            }
            total
        });
    });
    group.finish();
}

criterion_group!(benches, cancel_latency);
criterion_main!(benches);
