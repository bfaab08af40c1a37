//! One way to record a run (SPEC N3, N9, N10; issue 46): the window and
//! the command line record a finished run through the engine's one use
//! case, so the same run makes the same row from either face — its number,
//! raw file, what it names, its tag, its trial counts, the conditions it
//! keeps and the Environment as stated when it started. Only what was
//! measured (the numbers, the moment, the machine's readings) may differ.
// The run measured is `true`, a Unix program.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use vernier_app::gui::{AppCommand, VernierApp};
use vernier_engine::harness::{BenchSpec, Subject};
use vernier_engine::notebook::{ConditionName, Notebook, Run, WarmupPolicy, store};

use crate::common;
use common::vernier;

/// A new notebook in `tmp/name` with the same stated Environment as the other.
fn notebook(tmp: &Path, name: &str) -> PathBuf {
    let dir = tmp.join(name);
    let text = dir.display().to_string();
    for args in [
        vec!["new", text.as_str()],
        vec!["set", text.as_str(), "Power source", "mains"],
        vec!["set", text.as_str(), "Ambient", "21 °C"],
    ] {
        let o = vernier(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
    dir
}

/// What a row keeps that does not depend on what was measured.
fn recorded_shape(run: &Run) -> String {
    let m = &run.measurement;
    // The window also says what its own threads used while the run went
    // (E15): a reading only the window can take, not a way of recording.
    // What the trials showed (E13's work check, the first trial against the
    // rest) is there when the numbers call for it, on either face.
    let measured =
        [ConditionName::WindowCpu, ConditionName::WorkCheck, ConditionName::FirstTrialCheck].map(|c| c.as_str());
    let conditions: Vec<_> =
        m.conditions.iter().map(|c| c.field.clone()).filter(|f| !measured.contains(&f.as_str())).collect();
    format!(
        "run {} · {:?} · {:?} · raw {:?} · tag {:?} · unit {} · warm-up {:?}/{} · n {} · extends {:?} · conditions {:?} · \
         stated {:?}",
        run.number,
        m.what,
        m.command,
        m.raw_file.as_ref().map(|r| r.path.to_string()),
        m.tag,
        m.unit,
        m.warmup,
        m.warmup_trials,
        m.summary.n,
        m.extends,
        conditions,
        run.stated,
    )
}

/// Steps the window until `done` holds.
fn step_until(harness: &mut Harness<'static, VernierApp>, what: &str, done: impl Fn(&VernierApp) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        harness.step();
        if done(harness.state()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("timed out waiting for {what}");
}

// SPEC N3, N9, N10: the same run recorded from the window and from the
// command line makes the same row, and each raw file holds its trials.
#[test]
fn the_window_and_the_command_line_record_a_run_the_same_way() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (by_window, by_cli) = (notebook(tmp.path(), "window"), notebook(tmp.path(), "cli"));

    let cli = by_cli.display().to_string();
    let o = vernier(&["bench", "-n", "5", "--warmup", "0", "--notebook", &cli, "--", "true"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));

    let (notebook, stamp) = store::load_stamped(&by_window).expect("loads");
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(|cc| VernierApp::new(cc, by_window.clone(), notebook, stamp));
    let mut spec = BenchSpec::new(vec![Subject::Command { argv: vec!["true".into()], shell: false }]);
    spec.runs = 5;
    spec.warmup = WarmupPolicy::Count(0);
    harness.state_mut().apply(AppCommand::StartRun(Box::new(spec)));
    step_until(&mut harness, "the window's run recorded", |app| app.notebook().runs().len() == 1 && app.saved());

    let (window_nb, cli_nb): (Notebook, Notebook) =
        (store::load(&by_window).expect("window's"), store::load(&by_cli).expect("cli's"));
    assert_eq!(harness.state().notebook(), &window_nb, "the window shows the notebook as saved");
    let (w, c) = (window_nb.run(1).expect("the window's row"), cli_nb.run(1).expect("the command line's row"));
    assert_eq!(recorded_shape(w), recorded_shape(c));
    assert!(
        w.measurement.conditions.iter().any(|c| c.field == ConditionName::WindowCpu.as_str()),
        "the window's row says what the window used"
    );
    for (dir, run) in [(&by_window, w), (&by_cli, c)] {
        let raw = run.measurement.raw_file.as_ref().expect("a raw file");
        let text = std::fs::read_to_string(dir.join(raw.path.to_string())).expect("the raw file is on disk");
        assert!(text.lines().filter(|l| !l.starts_with('#')).count() > 5, "its trials are in it:\n{text}");
    }
}
