//! SPEC E1, E7, E10, N6: the engine thread, cancellation, the canary and
//! recording into a notebook.

use std::time::{Duration, Instant};

use vernier_engine::harness::{BenchSpec, Engine, EngineEvent, Refused, Subject, raw, record};
use vernier_engine::kernels::{KernelKind, KernelSpec};
use vernier_engine::notebook::{WarmupPolicy, store};

use crate::util::at;

fn command(words: &[&str]) -> Subject {
    Subject::Command { argv: words.iter().map(|w| (*w).to_owned()).collect(), shell: false }
}

fn finish(engine: &Engine, within: Duration) -> vernier_engine::harness::BenchResult {
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match engine.events().recv_timeout(left).expect("the engine answers in time") {
            EngineEvent::Finished(result) => return *result,
            EngineEvent::Failed(e) => panic!("failed: {e}"),
            EngineEvent::Started { .. } | EngineEvent::Trial(..) => {}
        }
    }
}

// SPEC E1: cancel stops a running command, kills it, and the result keeps
// what was measured.
#[test]
fn cancel_stops_the_trial_and_its_child() {
    let engine = Engine::spawn(|| {}).expect("engine");
    let mut spec = BenchSpec::new(vec![command(&["sleep", "7.913"])]);
    spec.warmup = WarmupPolicy::Count(0);
    spec.runs = 3;
    engine.start(spec);
    std::thread::sleep(Duration::from_millis(300));
    let cancelled_at = Instant::now();
    engine.cancel();
    let result = finish(&engine, Duration::from_secs(5));
    assert!(cancelled_at.elapsed() < Duration::from_secs(2), "cancel took {:?}", cancelled_at.elapsed());
    assert!(result.failure.as_deref().is_some_and(|f| f.starts_with("cancelled")), "{:?}", result.failure);
    assert_eq!(result.trials.len(), 1);
    let alive = std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(Result::ok)
        .filter(|e| std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == b"sleep\x007.913\x00"))
        .count();
    assert_eq!(alive, 0, "the child was left running");
}

// SPEC E1: events arrive per trial, then the result; the engine serves the
// next request after a finished one.
#[test]
fn engine_reports_trials_then_finishes() {
    let engine = Engine::spawn(|| {}).expect("engine");
    for _ in 0..2 {
        let mut spec =
            BenchSpec::new(vec![Subject::Kernel(KernelSpec { kind: KernelKind::Seq, size: Some(4096), tile: None })]);
        spec.runs = 5;
        spec.warmup = WarmupPolicy::Count(2);
        engine.start(spec);
        let mut trials = 0;
        let result = loop {
            match engine.events().recv_timeout(Duration::from_secs(30)).expect("event") {
                EngineEvent::Trial(..) => trials += 1,
                EngineEvent::Finished(r) => break r,
                EngineEvent::Failed(e) => panic!("{e}"),
                EngineEvent::Started { total } => assert_eq!(total, 7),
            }
        };
        assert_eq!(trials, 7);
        assert_eq!(result.arms[0].summary.as_ref().expect("summary").n, 5);
        assert_eq!(result.arms[0].unit, "ns/access");
        // SPEC E7: the canary bracket is part of every session.
        let canary = result.canary.expect("canary");
        assert!(canary.ratio > 0.0 && canary.start_ms > 0.0);
    }
}

// SPEC E1: an engine whose thread has died says so — `try_start` is
// refused as stopped (not busy) and the event stream reports disconnection —
// so a caller can show it instead of waiting for a run that never comes.
#[test]
fn a_stopped_engine_refuses_work() {
    // The waker runs on the engine thread; panicking there kills it after
    // the first event, as a bug in the engine would.
    let engine = Engine::spawn(|| panic!("the engine thread dies here (expected by this test)")).expect("engine");
    assert_eq!(engine.try_start(BenchSpec::new(vec![command(&["true"])])), Ok(()));
    let mut saw_disconnect = false;
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline && !saw_disconnect {
        match engine.events().recv_timeout(Duration::from_millis(100)) {
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => saw_disconnect = true,
            Ok(EngineEvent::Started { .. }) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Ok(other) => panic!("unexpected event {other:?}"),
        }
    }
    assert!(saw_disconnect, "the event stream reports the dead thread");
    assert_eq!(engine.try_start(BenchSpec::new(vec![command(&["true"])])), Err(Refused::Stopped));
}

// SPEC N6, N3: recording writes the raw file once, keeps its hash, and adds
// a MEASURED row that locks the predictions before it.
#[test]
fn record_writes_raw_once_and_adds_the_row() {
    let (_tmp, dir, mut nb) = crate::util::saved_notebook();
    let engine = Engine::spawn(|| {}).expect("engine");
    let mut spec = BenchSpec::new(vec![command(&["true"])]);
    spec.runs = 3;
    engine.start(spec);
    let result = finish(&engine, Duration::from_secs(30));
    let recorded = record(&dir, &mut nb, &result, at(500)).expect("recorded");
    assert_eq!(recorded.runs, [2]);
    let bytes = std::fs::read(dir.join(recorded.raw_file.as_str())).expect("raw file");
    assert_eq!(raw::sha256_hex(&bytes), recorded.sha256);
    let run = nb.run(2).expect("row");
    assert_eq!(run.measurement.raw_file.as_ref().expect("raw").sha256, recorded.sha256);
    assert_eq!(run.measurement.tag, vernier_engine::notebook::Tag::Measured);
    assert!(run.measurement.conditions.iter().any(|c| c.field == "canary end/start"));
    assert!(nb.lock_of(nb.prediction(2).expect("P2")).is_some(), "the run locked P2");
    store::save(&dir, &nb).expect("save");

    // A second file with the same stem gets a new name; nothing is overwritten.
    let again = raw::write_once(&dir, "run-2", "other").expect("written");
    assert_eq!(again.path.as_str(), "raw/run-2-2.csv");
    assert_eq!(std::fs::read(dir.join("raw/run-2.csv")).expect("kept"), bytes);
}
