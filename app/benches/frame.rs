//! CPU time per frame of the window, headless (issue: 10 000 runs must stay
//! smooth). Run with `cargo bench -p vernier --bench frame`.
//!
//! Each frame is one `egui_kittest` step: the app's `logic` and `ui`, egui's
//! layout and the AccessKit tree, without GPU painting. Reported as median
//! and 95th percentile over the frames of each case, empty notebook first.

use std::path::Path;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use vernier_app::gui::{AppCommand, Section, VernierApp};
use vernier_engine::harness::{BenchSpec, Subject};
use vernier_engine::notebook::pending::Edit;
use vernier_engine::notebook::{Condition, Measurement, Notebook, RawFile, Tag, WarmupPolicy, store};
use vernier_engine::notebook::{KernelKind, KernelSpec};
use vernier_engine::stats::Summary;

const FRAMES: usize = 300;

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let empty = tmp.path().join("empty");
    store::create(&empty, "empty", chrono::Utc::now()).expect("create");
    let big = tmp.path().join("big");
    build_big(&big);

    let mut results = Vec::new();
    for (name, dir) in [("empty notebook, Runs section", &empty), ("10 000 runs, table + selected run's plot", &big)] {
        let mut harness = harness(dir);
        harness.state_mut().apply(AppCommand::Show(Section::Runs));
        if dir == &big {
            harness.state_mut().apply(AppCommand::SelectRun(5_000));
        }
        settle(&mut harness);
        results.push((name.to_owned(), frames(&mut harness, FRAMES, |_| {})));
    }

    // The Documents and Audit sections on the big notebook: what they show
    // is computed when the notebook changes (or on the I/O thread), never
    // per frame.
    for (name, section) in
        [("10 000 runs, Documents section", Section::Documents), ("10 000 runs, Audit section", Section::Audit)]
    {
        let mut harness = harness(&big);
        harness.state_mut().apply(AppCommand::Show(section));
        settle(&mut harness);
        results.push((name.to_owned(), frames(&mut harness, FRAMES, |_| {})));
    }

    // Edits on the big notebook: the frame that applies one re-checks the
    // chain and hands the log to the I/O thread to save. Spaced edits find
    // the last save done; back-to-back edits find it still holding the log,
    // which then has to be copied.
    let mut harness_edit = harness(&big);
    settle(&mut harness_edit);
    // Last, with the Runs table shown: an edit makes it say its
    // conditions once again, for every run (D8).
    for (name, wait, section) in [
        ("10 000 runs, an edit after the last save", true, None),
        ("10 000 runs, edits back to back", false, None),
        ("10 000 runs, an edit beside the Runs table", true, Some(Section::Runs)),
    ] {
        if let Some(section) = section {
            harness_edit.state_mut().apply(AppCommand::Show(section));
            settle(&mut harness_edit);
        }
        let edits: Vec<Duration> = (0..30)
            .map(|i| {
                while wait && !harness_edit.state().saved() {
                    harness_edit.step();
                    std::thread::sleep(Duration::from_millis(5));
                }
                let start = Instant::now();
                harness_edit
                    .state_mut()
                    .apply(AppCommand::Edit(Edit::AddNote { text: format!("note {i}"), at: chrono::Utc::now() }));
                harness_edit.step();
                start.elapsed()
            })
            .collect();
        results.push((name.to_owned(), edits));
    }

    // A 100 000-sample soak in the Soak runs chart.
    let soak = tmp.path().join("soak-100k.csv");
    write_soak(&soak, 100_000);
    let mut harness_soak = harness(&big);
    harness_soak.state_mut().apply(AppCommand::OpenSoak(Some(soak)));
    harness_soak.state_mut().apply(AppCommand::Show(Section::Soaks));
    settle(&mut harness_soak);
    results.push(("10 000 runs, 100 000-sample soak chart".to_owned(), frames(&mut harness_soak, FRAMES, |_| {})));

    // While a benchmark runs on the engine thread (a 64 MiB chase keeps one
    // core busy), the window must keep drawing; then cancel must end it.
    let mut harness = harness(&big);
    harness.state_mut().apply(AppCommand::Show(Section::Runs));
    let mut spec =
        BenchSpec::new(vec![Subject::Kernel(KernelSpec { kind: KernelKind::Chase, size: Some(64 << 20), tile: None })]);
    spec.runs = 101;
    harness.state_mut().apply(AppCommand::StartRun(Box::new(spec)));
    let during = frames(&mut harness, FRAMES, |_| std::thread::sleep(Duration::from_millis(5)));
    assert!(harness.state().running(), "the run should still be going");
    harness.state_mut().apply(AppCommand::CancelRun);
    let cancelled = Instant::now();
    while harness.state().running() {
        harness.step();
        std::thread::sleep(Duration::from_millis(1));
    }
    // Taken now: cases measured after this one must not count.
    let cancel_to_idle = cancelled.elapsed();
    results.push(("10 000 runs, during a 64 MiB chase run".to_owned(), during));

    // A sweep of 84 points in 4 series beside 10 000 runs, in the Runs
    // section's sweep plot: its points are placed once per notebook change.
    let swept = tmp.path().join("swept");
    build_swept(&big, &swept);
    let mut harness_sweep = crate::harness(&swept);
    harness_sweep.state_mut().apply(AppCommand::Show(Section::Runs));
    settle(&mut harness_sweep);
    harness_sweep.get_by_role_and_label(egui::accesskit::Role::ComboBox, "Sweep").click();
    for _ in 0..3 {
        harness_sweep.step();
    }
    harness_sweep.get_by_label("W1: a swept walk").click();
    settle(&mut harness_sweep);
    results.push(("10 000 runs, an 84-point sweep plot".to_owned(), frames(&mut harness_sweep, FRAMES, |_| {})));

    println!("{:<44} {:>10} {:>10} {:>10}  frames", "case", "median", "p95", "max");
    for (name, times) in &results {
        let ms: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        let s = Summary::of(&ms).expect("frames");
        let mut sorted = ms.clone();
        sorted.sort_by(f64::total_cmp);
        let p95 = vernier_engine::stats::percentile_sorted(&sorted, 0.95);
        println!("{name:<44} {:>7.2} ms {:>7.2} ms {:>7.2} ms  {}", s.median, p95, s.max, ms.len());
    }
    println!("cancel to idle: {:.0} ms", cancel_to_idle.as_secs_f64() * 1e3);
}

fn harness(dir: &Path) -> Harness<'static, VernierApp> {
    let (notebook, stamp) = store::load_stamped(dir).expect("load");
    let dir = dir.to_path_buf();
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_accessibility_check(false)
        .build_eframe(move |cc| VernierApp::new(cc, dir, notebook, stamp))
}

/// Lets the background threads deliver (the selected run's trials).
fn settle(harness: &mut Harness<'static, VernierApp>) {
    for _ in 0..50 {
        harness.step();
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn frames(harness: &mut Harness<'static, VernierApp>, n: usize, between: impl Fn(usize)) -> Vec<Duration> {
    (0..n)
        .map(|i| {
            let start = Instant::now();
            harness.step();
            let took = start.elapsed();
            between(i);
            took
        })
        .collect()
}

/// A soak file of `rows` samples every 0.5 s that throttles slowly.
fn write_soak(path: &Path, rows: u32) {
    let mut text = String::from(
        "# synthetic benchmark input\n# placeholders: none\nt_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n",
    );
    for k in 1..=rows {
        let t = f64::from(k) * 0.5;
        let frac = (-t / 5000.0).exp();
        let wobble = f64::from(k % 7) * 0.1;
        text.push_str(&format!(
            "{t},{},{},{},35,{}\n",
            1800.0 + 1200.0 * frac,
            6.0 + 9.0 * frac,
            60.0 + 30.0 * (1.0 - frac),
            60.0 + 40.0 * frac + wobble
        ));
    }
    std::fs::write(path, text).expect("soak file");
}

/// A notebook of 10 000 runs with 31 trials each; run 5000 has a raw file.
fn build_big(dir: &Path) {
    let mut nb: Notebook = store::create(dir, "10 000 runs", chrono::Utc::now()).expect("create");
    let conditions: Vec<Condition> = vernier_engine::platform::machine::Machine::read().conditions();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut trials = || {
        (0..31)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                10.0 + (state % 1000) as f64 / 1000.0
            })
            .collect::<Vec<f64>>()
    };
    let mut raw_trials = Vec::new();
    for i in 1..=10_000u32 {
        let t = trials();
        if i == 5_000 {
            raw_trials = t.clone();
        }
        let raw_file = (i == 5_000).then(|| RawFile {
            path: vernier_engine::notebook::NotebookPath::new("raw/run-5000.csv").expect("path"),
            sha256: String::new(),
            arm: "A".into(),
            imported: None,
        });
        nb.record_run(
            Measurement {
                what: format!("matmul ikj, N=512, take {i}"),
                command: vec!["vernier".into(), "bench".into(), "--kernel".into(), "matmul-ikj".into()],
                warmup: WarmupPolicy::Count(3),
                warmup_trials: 3,
                summary: Summary::of(&t).expect("trials"),
                unit: "ms".into(),
                ns_per_unit: 1e6,
                conditions: conditions.clone(),
                raw_file,
                tag: Tag::Measured,
                synthetic: false,
                extends: None,
                figure: None,
                work: None,
                boundary: None,
                recipe: None,
                tail: None,
                noise_floor: None,
            },
            chrono::Utc::now(),
        );
    }
    let rows: Vec<vernier_engine::harness::TrialRecord> = raw_trials
        .iter()
        .enumerate()
        .map(|(i, ms)| vernier_engine::harness::TrialRecord {
            index: i as u32,
            arm: 0,
            position: 1,
            warmup: false,
            ns: (ms * 1e6) as u64,
            status: vernier_engine::harness::TrialStatus::Ok,
            work: Default::default(),
        })
        .collect();
    std::fs::write(dir.join("raw/run-5000.csv"), vernier_engine::harness::raw::render(&[], &rows)).expect("raw");
    store::replace(dir, &nb).expect("save");
}

/// The big notebook copied to `dir` with 84 more rows recorded as one
/// sweep: SIZE over 1 KiB … 1 GiB (21 values) for 4 modes.
fn build_swept(big: &Path, dir: &Path) {
    use vernier_engine::notebook::NewSweep;
    use vernier_engine::notebook::Param;
    let (mut nb, _) = store::load_stamped(big).expect("load");
    std::fs::create_dir_all(dir.join("raw")).expect("raw dir");
    let params = vec![Param::parse("SIZE=1K..1G*2").expect("sizes"), Param::parse("MODE=a,b,c,d").expect("modes")];
    let template: Vec<String> = ["./walk", "--bytes", "{SIZE}", "--mode", "{MODE}"].map(str::to_owned).to_vec();
    let scan = vernier_engine::harness::Scan::new(params.clone(), &template).expect("scan");
    let mut runs = Vec::new();
    let points = scan.points();
    for (k, point) in points.iter().enumerate() {
        let base = 1.0 + k as f64;
        runs.push(nb.record_run(
            Measurement {
                what: scan.label(point),
                command: scan.fill(&template, point),
                warmup: WarmupPolicy::Count(1),
                warmup_trials: 1,
                summary: Summary::of(&[base * 0.9, base, base * 1.2]).expect("trials"),
                unit: "ns/access".into(),
                ns_per_unit: 1.0,
                conditions: Vec::new(),
                raw_file: None,
                tag: Tag::Measured,
                synthetic: false,
                extends: None,
                figure: None,
                work: None,
                boundary: None,
                recipe: None,
                tail: None,
                noise_floor: None,
            },
            chrono::Utc::now(),
        ));
    }
    let sweep = NewSweep { what: "a swept walk".into(), template, params, points };
    nb.record_sweep(sweep, runs, chrono::Utc::now()).expect("sweep");
    store::create_from(dir, &nb).expect("create");
}
