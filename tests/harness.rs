//! SPEC E1, E7, E10, N6: the engine thread, cancellation, the canary and
//! recording into a notebook.

use std::time::{Duration, Instant};

use vernier_engine::harness::{BenchEvent, BenchRunner, BenchSpec, NotQueued, Subject, raw, record};
use vernier_engine::notebook::Document;
use vernier_engine::notebook::{KernelKind, KernelSpec};
use vernier_engine::notebook::{WarmupPolicy, store};

use crate::util::at;

fn command(words: &[&str]) -> Subject {
    Subject::Command { argv: words.iter().map(|w| (*w).to_owned()).collect(), shell: false }
}

fn finish(engine: &BenchRunner, within: Duration) -> vernier_engine::harness::BenchResult {
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match engine.events().recv_timeout(left).expect("the engine answers in time") {
            BenchEvent::Finished(result) => return *result,
            BenchEvent::Failed(e) => panic!("failed: {e}"),
            BenchEvent::Started { .. } | BenchEvent::Trial(..) | BenchEvent::Built(_) => {}
        }
    }
}

// SPEC E1: cancel stops a running command, kills it, and the result keeps
// what was measured.
#[test]
fn cancel_stops_the_trial_and_its_child() {
    let engine = BenchRunner::spawn(|| {}).expect("engine");
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
    let engine = BenchRunner::spawn(|| {}).expect("engine");
    for _ in 0..2 {
        let mut spec =
            BenchSpec::new(vec![Subject::Kernel(KernelSpec { kind: KernelKind::Seq, size: Some(4096), tile: None })]);
        spec.runs = 5;
        spec.warmup = WarmupPolicy::Count(2);
        engine.start(spec);
        let mut trials = 0;
        let result = loop {
            match engine.events().recv_timeout(Duration::from_secs(30)).expect("event") {
                BenchEvent::Trial(..) => trials += 1,
                BenchEvent::Finished(r) => break r,
                BenchEvent::Failed(e) => panic!("{e}"),
                BenchEvent::Started { total } => assert_eq!(total, 7),
                BenchEvent::Built(report) => panic!("a kernel has no build recipe, yet: {report}"),
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
    let engine = BenchRunner::spawn(|| panic!("the engine thread dies here (expected by this test)")).expect("engine");
    assert_eq!(engine.try_start(BenchSpec::new(vec![command(&["true"])])), Ok(()));
    let mut saw_disconnect = false;
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline && !saw_disconnect {
        match engine.events().recv_timeout(Duration::from_millis(100)) {
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => saw_disconnect = true,
            Ok(BenchEvent::Started { .. }) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Ok(other) => panic!("unexpected event {other:?}"),
        }
    }
    assert!(saw_disconnect, "the event stream reports the dead thread");
    assert_eq!(engine.try_start(BenchSpec::new(vec![command(&["true"])])), Err(NotQueued::Stopped));
}

// SPEC N6, N3: recording writes the raw file once, keeps its hash, and adds
// a MEASURED row that locks the predictions before it.
#[test]
fn record_writes_raw_once_and_adds_the_row() {
    let (_tmp, dir, mut nb) = crate::util::saved_notebook();
    let engine = BenchRunner::spawn(|| {}).expect("engine");
    let mut spec = BenchSpec::new(vec![command(&["true"])]);
    spec.runs = 3;
    engine.start(spec);
    let result = finish(&engine, Duration::from_secs(30));
    let recorded = record(&dir, &mut nb, &result, at(500)).expect("recorded");
    assert_eq!(recorded.runs, [2]);
    let bytes = std::fs::read(dir.join(recorded.raw_file.as_str())).expect("raw file");
    assert_eq!(vernier_engine::digest::sha256_hex(&bytes), recorded.sha256);
    let run = nb.run(2).expect("row");
    assert_eq!(run.measurement.raw_file.as_ref().expect("raw").sha256, recorded.sha256);
    assert_eq!(run.measurement.tag, vernier_engine::notebook::Tag::Measured);
    assert!(run.measurement.conditions.iter().any(|c| c.field == "canary end/start"));
    assert!(nb.lock_of(nb.prediction(2).expect("P2")).is_some(), "the run locked P2");
    store::replace(&dir, &nb).expect("save");

    // A second file with the same stem gets a new name; nothing is overwritten.
    let again = raw::write_once(&dir, "run-2", "other").expect("written");
    assert_eq!(again.path.as_str(), "raw/run-2-2.csv");
    assert_eq!(std::fs::read(dir.join("raw/run-2.csv")).expect("kept"), bytes);
}

// SPEC E13: every trial's CPU time is recorded beside its wall time (in
// the raw file, summarised on the row); a trial that sleeps is said to have
// waited, in the row's work check (a trial that works is not: the unit
// test of `TrialCounts::waited`, free of this machine's load); the row
// says what its counters were or why it has none.
#[cfg(unix)]
#[test]
fn a_trial_that_sleeps_is_said_to_have_waited() {
    let (_tmp, dir, mut nb) = crate::util::saved_notebook();
    let engine = BenchRunner::spawn(|| {}).expect("engine");
    let mut spec = BenchSpec::new(vec![command(&["sleep", "0.15"])]);
    spec.runs = 3;
    spec.warmup = WarmupPolicy::Count(0);
    engine.start(spec);
    let result = finish(&engine, Duration::from_secs(30));
    let work = result.arms[0].work.clone().expect("the trials' work");
    let cpu = work.cpu_s.as_ref().expect("a CPU time per trial");
    assert!(cpu.median < 0.05, "sleep used {} s of CPU", cpu.median);
    assert_eq!(work.waited, 3, "{work:?}");
    assert!(!work.counters.is_empty());
    let recorded = record(&dir, &mut nb, &result, at(500)).expect("recorded");
    let run = nb.run(recorded.runs[0]).expect("row");
    let check = run.measurement.conditions.iter().find(|c| c.field == "work check").expect("a work check");
    assert!(check.value.starts_with("3 of 3 timed trials waited"), "{}", check.value);
    assert!(run.long_form().contains("work: CPU time"), "{}", run.long_form());
    let text = std::fs::read_to_string(dir.join(recorded.raw_file.as_str())).expect("raw file");
    assert!(text.contains(raw::HEADER_WORK), "{text}");
    let trials = raw::parse(&text).expect("parses");
    assert!(trials.iter().all(|t| t.work.cpu_ns.is_some()), "{trials:?}");
}

// SPEC E12: the sanity check asked for with a kernel run is run right
// after its trials and kept with its row (its verdict and the clock
// estimate), in the long form too; asked of a command, it is refused.
#[test]
fn the_sanity_check_is_kept_with_the_row() {
    let (_tmp, dir, mut nb) = crate::util::saved_notebook();
    let engine = BenchRunner::spawn(|| {}).expect("engine");
    let mut spec =
        BenchSpec::new(vec![Subject::Kernel(KernelSpec { kind: KernelKind::Seq, size: Some(65_536), tile: None })]);
    spec.runs = 3;
    spec.sanity = true;
    engine.start(spec);
    let result = finish(&engine, Duration::from_secs(60));
    assert!(matches!(result.sanity, Some(Ok(_))), "{:?}", result.sanity);
    let recorded = record(&dir, &mut nb, &result, at(500)).expect("recorded");
    let run = nb.run(recorded.runs[0]).expect("row");
    let check = run.measurement.conditions.iter().find(|c| c.field == "sanity check").expect("kept");
    assert!(check.value.starts_with("the input grown from"), "{}", check.value);
    assert!(check.value.contains("clock"), "the clock estimate is kept: {}", check.value);
    assert!(run.long_form().contains("\n  sanity check: the input grown from"), "{}", run.long_form());

    let mut spec = BenchSpec::new(vec![command(&["true"])]);
    spec.sanity = true;
    let refused = vernier_engine::harness::validate(&spec).expect_err("a command has no sanity check");
    assert!(refused.to_string().contains("kernel"), "{refused}");
}

// SPEC N11: a comparison's two programs each keep their own build (the
// course's -O2 against -O3); given for one arm only, the other states none
// rather than the Environment's one build, so the audit names it and
// `set-run --build` can state it; refused where there are no two commands.
#[cfg(unix)]
#[test]
fn each_arm_of_a_comparison_keeps_its_own_build() {
    use vernier_engine::notebook::{ConditionName, Conditions as _};
    let (_tmp, dir, mut nb) = crate::util::saved_notebook();
    nb.set_environment("Compiler + flags", "g++ -O1").expect("field");
    let engine = BenchRunner::spawn(|| {}).expect("engine");
    let build_of = |nb: &vernier_engine::notebook::Notebook, run: u32| {
        nb.run(run).expect("row").measurement.conditions.value_of(ConditionName::Build).map(str::to_owned)
    };
    let mut spec = BenchSpec::new(vec![command(&["true"]), command(&["true", "b"])]);
    spec.runs = 3;
    spec.build = Some("g++ -std=c++17".into());
    spec.arm_builds = [Some("g++ -O2".into()), Some("g++ -O3".into())];
    engine.start(spec);
    let result = finish(&engine, Duration::from_secs(30));
    let recorded = record(&dir, &mut nb, &result, at(500)).expect("recorded");
    let [a, b] = recorded.runs[..] else { panic!("two rows: {:?}", recorded.runs) };
    assert_eq!((build_of(&nb, a).as_deref(), build_of(&nb, b).as_deref()), (Some("g++ -O2"), Some("g++ -O3")));

    let mut spec = BenchSpec::new(vec![command(&["true"]), command(&["true", "b"])]);
    spec.runs = 3;
    spec.arm_builds = [Some("g++ -O2".into()), None];
    engine.start(spec);
    let result = finish(&engine, Duration::from_secs(30));
    let recorded = record(&dir, &mut nb, &result, at(600)).expect("recorded");
    let [a, b] = recorded.runs[..] else { panic!("two rows: {:?}", recorded.runs) };
    assert_eq!((build_of(&nb, a).as_deref(), build_of(&nb, b)), (Some("g++ -O2"), None));

    let mut spec = BenchSpec::new(vec![command(&["true"])]);
    spec.arm_builds = [Some("g++ -O2".into()), None];
    let refused = vernier_engine::harness::validate(&spec).expect_err("one program has one build");
    assert!(refused.to_string().contains("--build-a"), "{refused}");
}

// SPEC S11, S7, E5: an interleaved comparison is recorded as one pair of
// rows with its labels, verdict, paired ratios and order effect, and every
// face carries it: the Runs lines, the workbook's Comparisons sheet, the
// report's comparisons table, the comparison's sentence.
#[test]
fn a_comparison_is_recorded_as_a_pair_in_every_face() {
    use calamine::{Reader, Xlsx};
    use vernier_engine::documents::{self, Attachments, blocks::Block, measurements};
    use vernier_engine::notebook::{RunColumn, RunsLine};

    let (_tmp, dir, mut nb) = crate::util::saved_notebook();
    let engine = BenchRunner::spawn(|| {}).expect("engine");
    let mut spec = BenchSpec::new(vec![command(&["sleep", "0.02"]), command(&["sleep", "0.002"])]);
    spec.runs = 5;
    spec.warmup = WarmupPolicy::Count(1);
    spec.what = Some("sleep length".into());
    spec.labels = [Some("long".into()), Some("short".into())];
    engine.start(spec);
    let result = finish(&engine, Duration::from_secs(60));
    let recorded = record(&dir, &mut nb, &result, at(500)).expect("recorded");
    assert_eq!(recorded.runs, [2, 3]);
    store::replace(&dir, &nb).expect("save");
    let nb = store::load(&dir).expect("the pair survives a save");

    let pair = &nb.pairs()[0];
    assert_eq!((pair.label(), pair.runs, pair.labels.clone()), ("C1".into(), [2, 3], ["long".into(), "short".into()]));
    assert_eq!(nb.run(2).expect("A").measurement.what, "sleep length: long");
    // On a loaded machine the IQRs can swallow the difference: the verdict
    // names the labels either way.
    let verdict = &pair.verdict.verdict;
    assert!(verdict.contains("short is") || verdict.contains("between long and short"), "{verdict}");
    let paired = pair.paired.as_ref().expect("paired ratios");
    assert_eq!(paired.n, 5);
    assert!(paired.median > 0.0 && paired.median < 1.0, "B/A of adjacent trials: {}", paired.median);
    assert!(pair.order.as_ref().and_then(|o| o.effect).is_some(), "the order effect is sized");
    assert_eq!(nb.pair_of(3).map(|(p, arm)| (p.number, arm)), Some((1, 1)));

    // The Runs table: the pair's line right under its two rows.
    let lines = nb.runs_lines();
    assert!(matches!(lines[3], RunsLine::Pair(p) if p.number == 1));
    assert!(lines[3].cell(RunColumn::Median).starts_with("B/A 0."), "{}", lines[3].cell(RunColumn::Median));
    assert_eq!(lines[3].cell(RunColumn::What), *verdict, "the verdict beside the pair");
    let sentence = pair.short_form(&nb);
    assert!(sentence.starts_with("sleep length: median "), "{sentence}");
    assert!(sentence.contains("paired short/long"), "{sentence}");

    // The workbook's Comparisons sheet and the report's table.
    let bytes = measurements::write(&nb).expect("workbook");
    let mut book: Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(bytes)).expect("readable");
    let sheet = book.worksheet_range("Comparisons").expect("a Comparisons sheet");
    let rows: Vec<Vec<String>> = sheet.rows().map(|r| r.iter().map(ToString::to_string).collect()).collect();
    assert_eq!(rows[0][..3], ["#", "What", "Run A"].map(String::from));
    // The verdict first; what the evidence means, where it points
    // elsewhere, follows it in the same cell (S15).
    assert!(rows[1].iter().any(|c| c.starts_with(verdict.as_str())), "{:?}", rows[1]);
    assert!(rows[1].iter().any(|c| c.starts_with("paired short/long")), "{:?}", rows[1]);
    let table = documents::fill(&nb, Document::Report, &Attachments::default())
        .into_iter()
        .find_map(|b| match b {
            Block::Table(rows) if rows[0][0] == "Comparison" => Some(rows),
            _ => None,
        })
        .expect("the report's comparisons table");
    assert_eq!(table[1][1], "2 (long) vs 3 (short)");
    assert!(table[1][3].starts_with("paired short/long"), "{:?}", table[1]);
}

// SPEC N9, N11: a run keeps the Environment as stated when it started: a
// field changed while it ran (from another terminal) is not what it was
// measured under, nor is the build defaulted from it.
#[test]
fn a_run_keeps_the_environment_stated_when_it_started() {
    use vernier_engine::notebook::{ConditionName, Conditions, EnvField};
    let (_tmp, dir, mut nb) = crate::util::saved_notebook();
    nb.set_environment("Power source", "mains").expect("field");
    nb.set_environment("Compiler + flags", "gcc -O2").expect("field");
    let engine = BenchRunner::spawn(|| {}).expect("engine");
    let mut spec = BenchSpec::new(vec![command(&["true"])]);
    spec.runs = 3;
    spec.stated = Some(nb.environment().clone());
    engine.start(spec);
    let result = finish(&engine, Duration::from_secs(30));
    // Changed while it ran.
    nb.set_environment("Power source", "battery").expect("field");
    nb.set_environment("Compiler + flags", "clang -O3").expect("field");
    let recorded = record(&dir, &mut nb, &result, at(500)).expect("recorded");
    let run = nb.run(recorded.runs[0]).expect("row");
    assert_eq!(run.stated.as_ref().map(|e| e.get(EnvField::PowerSource)).as_deref(), Some("mains"));
    assert_eq!(run.context().power_source().as_deref(), Some("mains"));
    assert_eq!(run.measurement.conditions.value_of(ConditionName::Build), Some("gcc -O2 (from the Environment)"));
}
