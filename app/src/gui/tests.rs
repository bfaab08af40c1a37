//! The window driven as a user would, without a GPU (egui_kittest): the
//! engine and file threads are the real ones.

use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use vernier_engine::notebook::Document;
use vernier_engine::notebook::pending::Edit;
use vernier_engine::notebook::store;

use super::dialogs::import::ImportForm;
use super::dialogs::workbook::TakeIn;
use super::{ExportQuestion, NewRunForm, Reproduce, SoakForm, VernierApp};

fn app_on(dir: std::path::PathBuf) -> Harness<'static, VernierApp> {
    let (notebook, stamp) = store::load_stamped(&dir).expect("notebook loads");
    // The file thread wakes the window when a save lands (and with it the
    // count of unwritten prompts), which may fall inside a `run`: allow a few
    // more frames for it to settle than the default four.
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_max_steps(12)
        .build_eframe(|cc| VernierApp::new(cc, dir, notebook, stamp))
}

/// Steps frames until `done` holds, waiting for the engine and file threads.
fn step_until(harness: &mut Harness<'static, VernierApp>, what: &str, done: impl Fn(&VernierApp) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        harness.step();
        if done(harness.state()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("timed out waiting for {what}; the status bar says {:?}", harness.state().status);
}

/// A new, empty notebook titled `title` in a fresh temporary folder: the
/// folder (kept while the guard lives), its path and the notebook.
fn new_notebook(title: &str) -> (tempfile::TempDir, std::path::PathBuf, vernier_engine::notebook::Notebook) {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    let nb = store::create(&dir, title, chrono::Utc::now()).expect("create");
    (tmp, dir, nb)
}

fn fixture_app() -> (tempfile::TempDir, Harness<'static, VernierApp>) {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/notebook-with-runs.ron");
    std::fs::copy(fixture, dir.join(store::NOTEBOOK_FILE)).expect("copy");
    let harness = app_on(dir);
    (tmp, harness)
}

// SPEC U1, N2: the side bar lists the sections; Environment opens first.
#[test]
fn opens_on_the_environment() {
    let (_tmp, harness) = fixture_app();
    for section in ["Predictions  (1)", "Runs  (2)", "Soak runs  (0)", "Notes and anomalies  (1)", "Documents", "Audit"]
    {
        harness.get_by_label(section);
    }
    assert_eq!(harness.get_all_by_label("Environment").count(), 2, "side bar and heading");
    assert_eq!(harness.get_by_role_and_label(Role::TextInput, "Power source").value().as_deref(), Some("mains"));
}

// SPEC U1, N2, S6, S12: the Runs table shows rounded figures under the
// exact names, the stored drift beside the IQR (rows recorded before the
// halves were kept, so never flagged).
#[test]
fn runs_table_shows_the_rows() {
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    harness.get_by_label("n (warm-up + timed)");
    harness.get_by_label("matmul ikj, N=512");
    harness.get_by_label("12.40 ms");
    harness.get_by_label("IQR 0.15 ms · drift 0 %");
    harness.get_by_label("IQR 0.6 ms · drift -0.48 %");
}

// SPEC D8, N2 (issue 35): the Runs table says once, above it, what every
// run shares; a row's Conditions gives only what differs, or names the
// earlier row it differs like.
#[test]
fn the_runs_table_says_shared_conditions_once() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    let from = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/report-notebook/notebook/notebook.ron");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::copy(from, dir.join(store::NOTEBOOK_FILE)).expect("copy");
    let mut harness = app_on(dir);
    harness.get_by_label("Runs  (24)").click();
    harness.run();
    harness.get_by_label_contains("Every run: idle 2 min before");
    harness.get_by_label_contains("a row's Conditions gives only what differs");
    assert!(harness.query_all_by_label("as run 1").count() > 3, "the sweep's points differ like run 1");
    assert!(harness.query_all_by_label_contains("idle 2 min before").count() == 1, "said once");
}

// SPEC S5, S12, S4: a row whose halves' medians differ by more than its IQR
// is flagged in the Runs table as a noisy row would be, and its plot says
// the machine changed during the run.
#[test]
fn a_drifting_run_is_flagged() {
    let (_tmp, dir, mut nb) = new_notebook("Drift");
    // Halves 100 and 110 ms apart by more than the IQR (8 ms), which is
    // under a tenth of the median: drifting, not noisy.
    let ms = [100.0, 100.0, 100.0, 106.0, 106.0, 104.0, 104.0, 110.0, 110.0, 110.0];
    let summary = vernier_engine::stats::Summary::of(&ms).expect("summary");
    assert!(summary.drifted() && !summary.is_noisy(), "{summary:?}");
    record_trials(&dir, &mut nb, "drifting run", &ms);
    let mut harness = app_on(dir);
    harness.get_by_label("Runs  (1)").click();
    harness.run();
    harness.get_by_label("⚠ IQR 8 ms · drift +10 %");
    harness.get_by_label("drifting run").click();
    step_until(&mut harness, "the trials", |app| app.views.runs.trials.contains_key(&1));
    harness.run();
    harness.get_by_label(
        "⚠ the second half's median is 10 % above the first's, more than the IQR: the machine changed during the run",
    );
}

/// Records run 1 of `nb` in `dir`: `ms`, timed trials in milliseconds, with
/// their raw file, as `what`.
fn record_trials(dir: &std::path::Path, nb: &mut vernier_engine::notebook::Notebook, what: &str, ms: &[f64]) {
    record_measured(dir, nb, what, ms, None, None);
}

/// [`record_trials`] with the budget stated for the run (S19, ms) and the
/// noise floor its session measured (E18).
fn record_measured(
    dir: &std::path::Path,
    nb: &mut vernier_engine::notebook::Notebook,
    what: &str,
    ms: &[f64],
    budget: Option<f64>,
    noise_floor: Option<vernier_engine::stats::NoiseFloor>,
) {
    use vernier_engine::harness::{TrialRecord, TrialStatus, raw};
    use vernier_engine::notebook::{Measurement, Tag, WarmupPolicy};
    let trials: Vec<TrialRecord> = (0u32..)
        .zip(ms)
        .map(|(index, v)| TrialRecord {
            index,
            arm: 0,
            position: 1,
            warmup: false,
            ns: (v * 1e6) as u64,
            status: TrialStatus::Ok,
            work: Default::default(),
        })
        .collect();
    let text = raw::render(&[raw::unit_comment("A", "ms", 1e6)], &trials);
    let raw_file = raw::write_once(dir, "run-1", &text).expect("raw file");
    let summary = vernier_engine::stats::Summary::of(ms).expect("summary");
    nb.record_run(
        Measurement {
            what: what.into(),
            command: vec!["./work".into()],
            warmup: WarmupPolicy::Count(0),
            warmup_trials: 0,
            summary,
            unit: "ms".into(),
            ns_per_unit: 1e6,
            conditions: Vec::new(),
            raw_file: Some(raw_file),
            tag: Tag::Measured,
            synthetic: false,
            extends: None,
            figure: None,
            work: None,
            boundary: None,
            recipe: None,
            tail: budget.and_then(|b| vernier_engine::stats::Tail::of(ms, b)),
            noise_floor,
        },
        chrono::Utc::now(),
    );
    store::replace(dir, nb).expect("save");
}

// SPEC S19, E18 (issue 48 items 2, 3): a run's detail gives its tail
// against the budget stated for it, the sentence every face shows, and the
// noise floor its session measured.
#[test]
fn a_runs_detail_shows_its_tail_and_its_noise_floor() {
    let (_tmp, dir, mut nb) = new_notebook("Frames");
    let mut ms = vec![15.0; 28];
    ms.extend([18.0, 20.0, 18.0]);
    let floor = vernier_engine::stats::NoiseFloor::of(&[10.0, 10.5]);
    record_measured(&dir, &mut nb, "frames", &ms, Some(16.7), floor);
    let mut harness = app_on(dir);
    harness.get_by_label("Runs  (1)").click();
    harness.run();
    harness.get_by_label("frames").click();
    harness.run();
    harness.get_by_label(
        "tail: budget 16.7 ms: 3 of 31 timed trials missed it (took longer); p95 18 ms beside the median 15 ms \
         (interpolated between closest ranks)",
    );
    harness.get_by_label("noise floor: 5.0 % (the canary ×2 back to back: 10.0 – 10.5 ms)");
}

// SPEC U4 (issue 49, item 5): a 51-trial run with one slow trial. The y
// range comes from the quartiles, so the 50 others are not squashed to the
// bottom; the outlier is marked at the top edge and named above the plot;
// the legend is a row above the plot, so it covers no point (trials 31 and
// later included). Read back from the plot's own bounds and frame.
#[test]
fn the_trial_plot_keeps_an_outlier_at_its_edge() {
    let (_tmp, dir, mut nb) = new_notebook("Outlier");
    let mut ms: Vec<f64> = (0..51).map(|i| 12.0 + f64::from(i % 7) * 0.1).collect();
    ms[40] = 250.0;
    record_trials(&dir, &mut nb, "51 trials, one slow", &ms);
    let mut harness = app_on(dir);
    harness.get_by_label("Runs  (1)").click();
    harness.run();
    harness.get_by_label("51 trials, one slow").click();
    step_until(&mut harness, "the trials", |app| app.views.runs.trials.contains_key(&1));
    harness.run();
    harness.get_by_label_contains(
        "1 trial is beyond the range drawn (P25 − 3·IQR to P75 + 3·IQR), marked at its edge: trial 40 (250 ms)",
    );
    let memory = egui_plot::PlotMemory::load(&harness.ctx, super::plots::trial_plot_id(1)).expect("the trial plot");
    let transform = memory.transform();
    let bounds = transform.bounds();
    assert!(bounds.max()[1] < 20.0, "the outlier does not set the range: {bounds:?}");
    assert!(bounds.min()[1] > 10.0, "the range is the trials', not from zero: {bounds:?}");
    let frame = *transform.frame();
    for entry in ["timed", "P25 / P75", "beyond the range, at its edge"] {
        let at = harness.get_by_label(entry).rect();
        assert!(!frame.intersects(at), "the legend's {entry:?} {at:?} is on the plot {frame:?}");
    }
    assert!(harness.query_by_label("warm-up").is_none(), "no warm-up was taken: the legend lists none");
}

// SPEC U4 (issue 49, item 5): the live plot of a running benchmark keeps
// its legend in a row above the plot, so the newest trials — top right in
// a chase sweep, where they are slowest — are never under it.
#[test]
fn the_live_plot_s_legend_covers_no_point() {
    let rising: Vec<egui_plot::PlotPoint> = (0..40).map(|i| egui_plot::PlotPoint::new(i, 1.0 + f64::from(i))).collect();
    let points = [rising, Vec::new()];
    let mut harness = Harness::new_ui(|ui| super::plots::live_plot(ui, &points, "trials (every point)"));
    harness.run();
    let memory = egui_plot::PlotMemory::load(&harness.ctx, super::plots::live_plot_id()).expect("the live plot");
    let frame = *memory.transform().frame();
    let legend = harness.get_by_label("trials (every point)").rect();
    assert!(!frame.intersects(legend), "the legend {legend:?} is on the plot {frame:?}");
}

/// Replaces what the text field `label` holds with `text`, as a user
/// would: select all, then type.
fn replace_text(harness: &mut Harness<'static, VernierApp>, label: &str, text: &str) {
    harness.get_by_role_and_label(Role::TextInput, label).focus();
    harness.run();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.run();
    harness.get_by_role_and_label(Role::TextInput, label).type_text(text);
    harness.run();
}

/// Types `text` into the Environment's Ambient field and leaves it, which
/// is when the window takes the edit in.
fn type_ambient(harness: &mut Harness<'static, VernierApp>, text: &str) {
    let field = harness.get_by_role_and_label(Role::TextInput, "Ambient");
    field.focus();
    field.type_text(text);
    harness.run();
    harness.get_by_role_and_label(Role::TextInput, "Other load").focus();
    harness.step();
}

// SPEC N2: an Environment field typed in the window is saved to disk.
#[test]
fn environment_edit_is_saved() {
    let (_tmp, mut harness) = fixture_app();
    type_ambient(&mut harness, "22 °C, room thermometer");
    step_until(&mut harness, "the save", |app| app.saved() && app.notebook().environment().ambient.starts_with("22"));
    let dir = harness.state().doc.dir.clone();
    assert_eq!(store::load(&dir).expect("reload").environment().ambient, "22 °C, room thermometer");
}

// SPEC S19 (issue 48 item 2): the trial budget typed beside the
// Environment, in milliseconds, is saved; what is not a budget is said
// under the field and saved as nothing. A run started from the New run
// dialog with no budget of its own is held to it; one with its own budget
// keeps its own.
#[cfg(unix)]
#[test]
fn the_trial_budget_holds_new_runs_from_the_window() {
    use super::new_run::NewRunForm;
    let (_tmp, mut harness) = fixture_app();
    replace_text(&mut harness, "Trial budget", "16.7");
    step_until(&mut harness, "the save", |app| app.saved() && app.notebook().trial_budget().is_some());
    let dir = harness.state().doc.dir.clone();
    let held = store::load(&dir).expect("reload").trial_budget().expect("saved");
    assert!((held - 0.0167).abs() < 1e-12, "{held}");
    // Refused in the unit typed, quoting what was typed.
    for typed in ["-3", "0.5", "fast"] {
        replace_text(&mut harness, "Trial budget", typed);
        harness.get_by_label(&format!(
            "a trial's budget is a number of milliseconds from 1 to 86400000 (1 day); '{typed}' is not"
        ));
    }
    harness.run();
    assert_eq!(store::load(&dir).expect("reload").trial_budget(), Some(held), "a refused budget is not saved");

    harness.get_by_label("Runs  (2)").click();
    harness.run();
    for (budget_ms, run) in [(0.0, 3), (250.0, 4)] {
        harness.get_by_label("▶ New run…").click();
        harness.run();
        let form = NewRunForm {
            kernel_mode: false,
            command: "true".into(),
            runs: 3,
            warmup: 0,
            budget_ms,
            ..NewRunForm::default()
        };
        harness.state_mut().dialogs.open(form);
        harness.run();
        harness.get_by_label("▶ Start").click();
        harness.run();
        step_until(&mut harness, "the run to be recorded", |app| app.notebook().runs().len() == run && app.saved());
    }
    let nb = store::load(&dir).expect("reload");
    let budget = |run: u32| nb.run(run).and_then(|r| r.measurement.tail.as_ref()).map(|t| t.budget);
    // In the row's unit (seconds here): 16.7 ms held, then its own 250 ms.
    assert_eq!(nb.run(3).map(|r| r.measurement.unit.as_str()), Some("s"));
    assert!(budget(3).is_some_and(|b| (b - 0.0167).abs() < 1e-12), "{:?}", budget(3));
    assert!(budget(4).is_some_and(|b| (b - 0.25).abs() < 1e-12), "{:?}", budget(4));
}

// SPEC N2, U1 (issue 49, item 3): the Workbench field reads what a person
// types, says what it read while it is typed, and keeps that; what names no
// bench is said under the field, with an example.
#[test]
fn the_workbench_field_says_what_it_read() {
    use vernier_engine::notebook::{Bench, Workbench};
    let (_tmp, mut harness) = fixture_app();
    replace_text(&mut harness, "Workbench", "laptop, shared");
    harness.get_by_label("read as: L — shared host");
    let read = Workbench { bench: Some(Bench::L), shared_host: Some(true) };
    step_until(&mut harness, "the save", |app| app.saved() && app.notebook().environment().workbench == read);
    harness.get_by_role_and_label(Role::TextInput, "Workbench").type_text(" or desktop device");
    harness.run();
    harness.get_by_label_contains("it names more than one workbench; write its letter or word");
}

// SPEC N10, U5: the window follows the disk. A note and a run recorded by
// the command line while the window is open both survive a note typed in the
// window; text being typed survives the reload; the status bar says the
// notebook was changed elsewhere.
#[test]
fn the_window_and_the_command_line_share_a_notebook() {
    let (_tmp, mut harness) = fixture_app();
    let dir = harness.state().doc.dir.clone();
    // Half-typed, still focused: a draft, not yet an edit.
    let field = harness.get_by_role_and_label(Role::TextInput, "Ambient");
    field.focus();
    field.type_text("22 °C");
    harness.run();
    // Meanwhile a terminal changes the notebook the way `vernier note` and
    // `vernier set` do: under the folder's lock, on the file as it is.
    store::change(&dir, |nb| {
        nb.add_note("fan spun up at 10:02 (from the terminal)", chrono::Utc::now())?;
        nb.set_environment("Power source", "battery")
    })
    .expect("the terminal's change");
    step_until(&mut harness, "the window to notice", |app| {
        app.notebook().notes().iter().any(|n| n.text.contains("from the terminal"))
    });
    harness.run();
    harness.get_by_label_contains("changed by another program");
    assert_eq!(harness.get_by_role_and_label(Role::TextInput, "Power source").value().as_deref(), Some("battery"));
    assert_eq!(
        harness.get_by_role_and_label(Role::TextInput, "Ambient").value().as_deref(),
        Some("22 °C"),
        "the text being typed survives the reload"
    );
    // Another terminal change lands while the window's own edit is made: the
    // window applies its edit to the file as it is, so both survive.
    store::change(&dir, |nb| nb.add_note("second terminal note", chrono::Utc::now())).expect("terminal");
    harness.get_by_role_and_label(Role::TextInput, "Other load").focus();
    harness.step();
    harness
        .state_mut()
        .apply(super::AppCommand::Edit(Edit::AddNote { text: "typed in the window".into(), at: chrono::Utc::now() }));
    step_until(&mut harness, "the window's changes on disk", |app| {
        app.saved() && app.notebook().notes().iter().any(|n| n.text == "second terminal note")
    });
    let on_disk = store::load(&dir).expect("loads");
    let texts: Vec<&str> = on_disk.notes().iter().map(|n| n.text.as_str()).collect();
    for expected in ["fan spun up at 10:02 (from the terminal)", "second terminal note", "typed in the window"] {
        assert!(texts.contains(&expected), "{expected:?} is on disk: {texts:?}");
    }
    assert_eq!(on_disk.environment().ambient, "22 °C");
    assert_eq!(on_disk.environment().power_source, "battery");
    assert_eq!(harness.state().notebook(), &on_disk, "the window shows the file as it is");
}

// SPEC U2, U3, N4, N5: type a prediction, run a small kernel and see the
// row appear, see the prediction locked and an edit refused, discard the run
// and find it under Notes and anomalies.
#[test]
fn predict_run_lock_discard() {
    let (_tmp, dir, _) = new_notebook("GUI test");
    let mut harness = app_on(dir.clone());

    harness.get_by_label("Predictions  (0)").click();
    harness.run();
    for (label, text) in
        [("Experiment", "seq at 1 MiB"), ("What I predict", "under 2 ns per access"), ("Why", "fits in L2")]
    {
        let field = harness.get_by_role_and_label(Role::TextInput, label);
        field.focus();
        field.type_text(text);
        harness.run();
    }
    harness.get_by_label("Record").click();
    harness.run();
    assert_eq!(harness.state().notebook().predictions().len(), 1);
    assert_eq!(harness.state().notebook().predictions()[0].predict, "under 2 ns per access");

    // A small kernel run from the New run dialog.
    harness.get_by_label("Runs  (0)").click();
    harness.run();
    harness.get_by_label("▶ New run…").click();
    harness.run();
    // The dialog opens on the seq kernel over 1 MiB: small and quick.
    assert_eq!(harness.get_by_role_and_label(Role::TextInput, "Size").value().as_deref(), Some("1048576"));
    harness.get_by_label("▶ Start").click();
    harness.run();
    assert!(harness.state().running(), "the run started");
    step_until(&mut harness, "the run to be recorded", |app| app.notebook().runs().len() == 1 && app.saved());
    let nb = harness.state().notebook();
    let p1 = &nb.predictions()[0];
    assert!(nb.lock_of(p1).is_some(), "the run locked P1");

    // The locked prediction offers no edit, only an amendment (U2); the
    // notebook itself refuses an edit, and says why.
    harness.get_by_label("Predictions  (1)").click();
    harness.run();
    harness.get_by_label("🔒 P1");
    assert!(harness.query_by_label("Edit").is_none(), "a locked prediction offers no Edit");
    harness.get_by_label("Amend…");
    let text = vernier_engine::notebook::PredictionText {
        experiment: "seq at 1 MiB".into(),
        predict: "over 2 ns".into(),
        why: "edited".into(),
        figure: None,
    };
    harness.state_mut().apply(super::AppCommand::Edit(Edit::EditPrediction { number: 1, text }));
    harness.run();
    harness.get_by_label_contains("prediction P1 is locked");
    assert_eq!(harness.state().notebook().predictions()[0].predict, "under 2 ns per access");

    // Discard the run with a reason; it stays, and the notes list it.
    harness.get_by_label("Runs  (1)").click();
    harness.run();
    harness.get_all_by_label_contains("seq, working set").next().expect("the row").click();
    harness.run();
    harness.get_by_label("Discard…").click();
    harness.run();
    let reason = harness.get_by_role_and_label(Role::TextInput, "Reason");
    reason.focus();
    reason.type_text("lid closed at t=120 s");
    harness.run();
    harness.get_by_label("Discard").click();
    harness.run();
    step_until(&mut harness, "the discard to be saved", VernierApp::saved);
    assert!(harness.state().notebook().runs()[0].discarded.is_some());
    harness.get_by_label("Notes and anomalies  (1)").click();
    harness.run();
    harness.get_by_label_contains("Discarded run 1: lid closed at t=120 s");
    let on_disk = store::load(&dir).expect("reload");
    assert_eq!(on_disk.runs().len(), 1);
    assert!(on_disk.runs()[0].discarded.is_some());
    // No other program wrote: the window kept its own copy, which is the file.
    assert_eq!(harness.state().notebook(), &on_disk);
}

// SPEC N14 (issue 36): the New run dialog names the prediction the run
// answers; once the run is recorded the link is made, its seal untouched.
#[test]
fn the_new_run_dialog_answers_a_prediction() {
    use vernier_engine::notebook::{AnsweredBy, Committed, PredictionText};
    let (_tmp, dir, mut nb) = new_notebook("answers from the dialog");
    let text = PredictionText {
        experiment: "seq at 1 MiB".into(),
        predict: "a few ns per access".into(),
        why: "fits in L2".into(),
        figure: Committed::parse("median 2 ns/access ± 1000 %").ok(),
    };
    nb.add_prediction(text, chrono::Utc::now()).expect("P1");
    store::replace(&dir, &nb).expect("save");
    let mut harness = app_on(dir.clone());
    harness.get_by_label("Runs  (0)").click();
    harness.run();
    harness.get_by_label("▶ New run…").click();
    harness.run();
    harness.get_by_label("Answers").click();
    harness.run();
    harness.get_by_label("P1 — median 2 ns/access ± 1000 %").click();
    harness.run();
    harness.get_by_label("▶ Start").click();
    harness.run();
    step_until(&mut harness, "the run and its answer to be saved", |app| {
        app.notebook().runs().len() == 1 && !app.notebook().answers().is_empty() && app.saved()
    });
    let on_disk = store::load(&dir).expect("reload");
    assert_eq!(on_disk.answers()[0].by, AnsweredBy::Run(1));
    assert!(on_disk.integrity().is_empty(), "answering touched no seal");
    assert_eq!(harness.state().notebook(), &on_disk, "the window's copy of a recorded run is the file's");
}

// SPEC T1, T10, U: the soak protocol is fixed with a prediction first; the
// soak started from the window runs, is recorded with its six numbers, locks
// the prediction, and its chart opens.
#[test]
fn soak_from_the_window() {
    use vernier_engine::notebook::{Committed, PredictionText, SoakProtocol};
    let (_tmp, dir, _) = new_notebook("soak test");
    let mut harness = app_on(dir.clone());
    harness.get_by_label("Soak runs  (0)").click();
    harness.run();
    harness.get_by_label("▶ Soak…").click();
    harness.run();
    // Without a protocol the dialog asks for one; fix a short one.
    harness.get_by_label("Record prediction and protocol");
    let text = PredictionText {
        experiment: "short soak".into(),
        predict: "no onset".into(),
        why: "a VM".into(),
        figure: Committed::parse("onset none, S/P 1 ± 0.2").ok(),
    };
    // A short protocol whose windows fit (T11), with an opening window of
    // four samples: a machine under load starts sampling late, and a first
    // sample after the opening window leaves P unmeasured.
    let protocol = SoakProtocol {
        duration_s: 20.0,
        interval_s: 0.5,
        opening_window_s: 2.0,
        tail_window_s: 10.0,
        ..SoakProtocol::default()
    };
    harness.state_mut().apply(super::AppCommand::Edit(Edit::AddSoakPrediction {
        text,
        protocol,
        protocol_why: None,
        at: chrono::Utc::now(),
    }));
    harness.run();
    harness.get_by_label_contains("P1 fixed the protocol: 20 s sampled every 0.5 s");
    harness.get_by_label("▶ Start soak").click();
    harness.step();
    step_until(&mut harness, "the soak to be recorded", |app| app.notebook().soaks().len() == 1 && app.saved());
    let nb = harness.state().notebook();
    assert!(nb.lock_of(&nb.predictions()[0]).is_some(), "the soak locked its prediction");
    let soak = &nb.soaks()[0];
    assert_eq!(soak.protocol, protocol);
    assert!(soak.numbers.peak > 0.0);
    assert!(dir.join("raw/soak-1.csv").is_file());
    step_until(&mut harness, "the chart", |app| app.views.soaks.soak.is_some());
}

// SPEC T8, T11: a soak file from a shared host with no onset shows the
// negative result with the shared-host sentence, and the knee with the six.
#[test]
fn a_shared_host_soak_shows_its_negative_result() {
    let (_tmp, mut harness) = fixture_app();
    let file = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/shared-host-soak.csv"));
    harness.get_by_label_contains("Soak runs").click();
    harness.run();
    harness.state_mut().apply(super::AppCommand::OpenSoak(Some(file)));
    step_until(&mut harness, "the soak", |app| app.views.soaks.soak.is_some());
    harness.run();
    harness.get_by_label_contains("knee none (no onset observed)");
    harness.get_by_label_contains("This ran on a shared host");
}

/// Writes a 60-sample soak file at `path` — `comments` on top, the clock
/// at `clock_mhz` and a score alternating 10.00/10.02 — and opens it in the
/// Soak runs section.
fn open_soak_file(harness: &mut Harness<'static, VernierApp>, path: &std::path::Path, comments: &str, clock_mhz: f64) {
    let rows: String =
        (1..=60).map(|t| format!("{t},{clock_mhz},0,50,0,{}\n", 10.0 + f64::from(t % 2) * 0.02)).collect();
    let text = format!("{comments}t_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n{rows}");
    std::fs::write(path, text).expect("write the soak");
    harness.get_by_label_contains("Soak runs").click();
    harness.run();
    harness.state_mut().apply(super::AppCommand::OpenSoak(Some(path.to_path_buf())));
    step_until(harness, "the soak", |app| app.views.soaks.soak.is_some());
    harness.run();
}

// SPEC T3, T12 (issue 33): a soak whose clock column is a placeholder (no
// cpufreq) says there is no clock reading instead of drawing a flat line.
#[test]
fn a_placeholder_clock_is_said_not_drawn() {
    let (tmp, mut harness) = fixture_app();
    let comments = "# placeholders: clock_mhz, power_w, soc_temp_c, skin_temp_c\n";
    open_soak_file(&mut harness, &tmp.path().join("no-clock.csv"), comments, 0.0);
    harness.get_by_label_contains("clock: no clock reading on this machine");
    let view = harness.state().views.soaks.soak.as_ref().expect("the soak");
    assert!(view.clock.is_none(), "no clock series is kept to draw");
    assert_eq!(view.score.len(), 60);
}

// SPEC T5 (issue 47): a loose soak file whose `# analysis:` line does not
// read is not analysed under the defaults behind the user's back, as `soak
// analyze` refuses it: the window says why and what reads it, and shows no
// numbers.
#[test]
fn a_soak_file_with_an_unreadable_analysis_line_is_not_analysed() {
    let (tmp, mut harness) = fixture_app();
    let comments = "# analysis: opening 5 s, tail fortnight\n";
    open_soak_file(&mut harness, &tmp.path().join("odd-analysis.csv"), comments, 2000.0);
    harness.get_by_label_contains("Not analysed: the file states how it was analysed, unreadably");
    harness.get_by_label_contains("its analysis line does not read");
    let view = harness.state().views.soaks.soak.as_ref().expect("the soak");
    assert!(view.defaults.numbers().is_none(), "no numbers under windows the file did not ask for");
    assert_eq!(view.score.len(), 60, "the samples are still drawn");
}

// SPEC U5: opening another notebook reads it on the file thread and shows it;
// it joins the recent list.
#[test]
fn open_another_notebook() {
    let (tmp, mut harness) = fixture_app();
    let other = tmp.path().join("other");
    store::create(&other, "The other project", chrono::Utc::now()).expect("create");
    harness.state_mut().apply(super::AppCommand::OpenDir(other.clone()));
    step_until(&mut harness, "the other notebook", |app| app.notebook().title == "The other project");
    assert_eq!(harness.state().settings.recent.first(), Some(&other));
    harness.get_by_label("The other project");
}

// SPEC D1, U: Export from the window writes exactly the six documents and
// the Documents section says what is still to write.
#[test]
fn export_from_the_window() {
    let (tmp, mut harness) = fixture_app();
    harness.get_by_label("Documents").click();
    harness.run();
    harness.get_by_label("Export the six documents").click();
    harness.step();
    step_until(&mut harness, "the export", |app| app.views.documents.exported.is_some());
    let mut names: Vec<String> = std::fs::read_dir(tmp.path().join("nb/exports"))
        .expect("exports")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 6);
    harness.run();
    harness.get_by_label_contains("Exported in this session");
    for stem in Document::ALL.map(Document::stem).iter().filter(|s| !s.ends_with(".xlsx")) {
        let pending = format!("{stem} · ");
        assert!(harness.get_all_by_label_contains(&pending).next().is_some(), "{stem} has prompts left");
    }
    harness.get_by_label("✔ measurements.xlsx");
}

// SPEC D2: an answer typed in the Documents section is kept in the notebook
// on disk and fills the prompt; a malformed citation is refused with the form kept.
#[test]
fn documents_prompts_are_written_in_the_window() {
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Documents").click();
    harness.run();
    let prompt = "the question this project answers, and what is out of scope";
    let label = format!("○ {prompt}");
    let field = harness.get_by_role_and_label(Role::MultilineTextInput, &label);
    field.focus();
    field.type_text("Where does the memory wall start on this laptop?");
    harness.run();
    harness.get_by_role_and_label(Role::TextInput, "Figure").focus();
    harness.step();
    step_until(&mut harness, "the answer saved", |app| {
        app.saved() && app.notebook().writing().answer("report.docx", prompt).is_some()
    });
    let dir = harness.state().doc.dir.clone();
    let back = store::load(&dir).expect("reload");
    assert_eq!(back.writing().answer("report.docx", prompt), Some("Where does the memory wall start on this laptop?"));
    harness.run();
    harness.get_by_role_and_label(Role::MultilineTextInput, &format!("✔ {prompt}"));

    harness.get_by_role_and_label(Role::TextInput, "Figure").scroll_to_me();
    harness.run();
    harness.get_by_role_and_label(Role::TextInput, "Figure").type_text("DRAM latency");
    harness.get_by_role_and_label(Role::TextInput, "Value").focus();
    harness.get_by_role_and_label(Role::TextInput, "Value").type_text("100 ns");
    harness.get_by_role_and_label(Role::TextInput, "URL").focus();
    harness.get_by_role_and_label(Role::TextInput, "URL").type_text("ftp://example.org");
    harness.run();
    // The form sits below the report's prompts.
    harness.get_by_label("Add citation").scroll_to_me();
    harness.run();
    harness.get_by_label("Add citation").click();
    harness.run();
    harness.get_by_label_contains("is not an http(s) URL");
    assert!(harness.state().notebook().writing().citations.is_empty());
}

// SPEC A17, U: an export over a document edited since Vernier wrote it
// asks first; Esc keeps the file, "Replace them" replaces it.
#[test]
fn export_asks_before_replacing_an_edited_document() {
    let (tmp, mut harness) = fixture_app();
    let dir = tmp.path().join("nb");
    let nb = store::load(&dir).expect("load");
    vernier_engine::documents::export_to(&dir, &nb, None, vernier_engine::documents::Overwrite::Never).expect("export");
    let report = dir.join("exports/report.docx");
    let mut edited = std::fs::read(&report).expect("read");
    edited.extend_from_slice(b"typed in Word");
    std::fs::write(&report, &edited).expect("edit");
    harness.get_by_label("Documents").click();
    harness.run();
    harness.get_by_label("Export the six documents").click();
    harness.step();
    step_until(&mut harness, "the question", |app| app.dialogs.get::<ExportQuestion>().is_some());
    harness.run();
    harness.get_by_label("Replace edited documents?");
    harness.get_by_label("• report.docx (changed since Vernier wrote it)");
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(harness.state().dialogs.get::<ExportQuestion>().is_none(), "Esc keeps the documents");
    assert_eq!(std::fs::read(&report).expect("read"), edited, "nothing was written");
    harness.get_by_label("Export the six documents").click();
    harness.step();
    step_until(&mut harness, "the question again", |app| app.dialogs.get::<ExportQuestion>().is_some());
    harness.run();
    harness.get_by_label("Replace them").click();
    harness.step();
    step_until(&mut harness, "the export", |app| app.views.documents.exported.is_some());
    assert_ne!(std::fs::read(&report).expect("read"), edited, "replaced once the user said so");
}

// SPEC A16, D2: a prompt marked not part of this submission in the window
// keeps its reason in the notebook; "no citations" is a stated answer.
#[test]
fn a_prompt_is_marked_not_part_in_the_window() {
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Documents").click();
    harness.run();
    let energy = "energy, or what you could not measure about it";
    let index = vernier_engine::documents::prompts(Document::Report).iter().position(|p| *p == energy).expect("energy");
    harness.get_all_by_label("Not part of this submission").nth(index).expect("its box").click();
    harness.run();
    let field = harness.get_by_role_and_label(Role::TextInput, "Reason:");
    field.focus();
    field.type_text("no energy counter on this machine");
    harness.run();
    harness.get_by_role_and_label(Role::TextInput, "Figure").focus();
    harness.step();
    step_until(&mut harness, "the mark saved", |app| {
        app.saved() && app.notebook().writing().not_part("report.docx", energy).is_some()
    });
    let back = store::load(&harness.state().doc.dir).expect("reload");
    assert_eq!(back.writing().not_part("report.docx", energy), Some("no energy counter on this machine"));
    harness.get_by_label("This report cites no figure from a source").scroll_to_me();
    harness.run();
    harness.get_by_label("This report cites no figure from a source").click();
    harness.step();
    step_until(&mut harness, "no citations", |app| app.saved() && app.notebook().writing().no_citations);
}

/// The fixture's window on its Audit section, the audit done.
fn audited_fixture() -> (tempfile::TempDir, Harness<'static, VernierApp>) {
    let (tmp, mut harness) = fixture_app();
    harness.get_by_label("Audit").click();
    harness.run();
    step_until(&mut harness, "the audit", |app| app.views.audit.report.is_some());
    harness.run();
    (tmp, harness)
}

// SPEC A, U1: the Audit section runs the audit off the UI thread, groups the
// findings by check, and a click on one opens the row it points at.
#[test]
fn audit_findings_open_their_row() {
    let (_tmp, mut harness) = audited_fixture();
    harness.get_by_label_contains("A11  The export folder holds exactly the six required documents.");
    harness.get_by_label("run 1: names no raw file").click();
    harness.run();
    assert_eq!(harness.state().views.section, super::Section::Runs);
    assert_eq!(harness.state().views.runs.selected_run, Some(1));
}

// SPEC A, U1 (issue 49, item 6): every kind of audit finding opens the
// place it is about. Clicked: a prompt's finding opens its document at that
// prompt, marked (the one it quotes, not the document's first); a finding
// on a line that is all Vernier's (Method) names the line above the
// document, no prompt marked. Each other kind opens its own section and row.
#[test]
fn every_audit_finding_opens_its_place() {
    use super::views::Spot;
    use vernier_engine::audit::{Check, Finding, Place};
    let (_tmp, mut harness) = audited_fixture();
    harness.get_by_label_contains("report.docx line 44 (7. Limitations, and the flattering choice): “7.").click();
    harness.run();
    let state = &harness.state().views;
    assert_eq!(state.section, super::Section::Documents);
    assert_eq!(state.documents.document, Document::Report);
    let limitations = "the choice that most helps your conclusion, why it was defensible, and what your headline \
                       becomes if it is reversed";
    assert_eq!(state.documents.opened.target, Some(Spot::Prompt(limitations)));
    harness.get_by_label_contains("⚠ audit: report.docx line 44");
    let said = |harness: &mut Harness<'static, VernierApp>, place: Place, message: &str| {
        let finding = Finding { check: Check::A16, place, message: message.into() };
        harness.state_mut().apply(super::AppCommand::Jump(finding));
        harness.run();
    };
    let jump = |harness: &mut Harness<'static, VernierApp>, place: Place| said(harness, place, "what is wrong");
    // Two prompts under the title: the one the finding quotes.
    let top =
        Place::Document { document: Document::Report, line: 3, section: "Project 3 — The Memory Wall Lab".into() };
    said(&mut harness, top, "“what the workbench limited” is not written");
    assert_eq!(harness.state().views.documents.opened.target, Some(Spot::Prompt("what the workbench limited")));
    // Unquoted, among two prompts: none is guessed (it used to mark the first).
    let top =
        Place::Document { document: Document::Report, line: 3, section: "Project 3 — The Memory Wall Lab".into() };
    jump(&mut harness, top.clone());
    assert_eq!(harness.state().views.documents.opened.target, None, "no prompt guessed among two");
    // A gap the empty Workbench leaves in the document opens the Environment,
    // where it is filled.
    let workbench = "unfinished: “Workbench is empty in the Environment (vernier set DIR \"Workbench\" …); \
                     what it limited:”";
    said(&mut harness, top, workbench);
    assert_eq!(harness.state().views.section, super::Section::Environment);
    let method = Place::Document { document: Document::Report, line: 12, section: "2. Method".into() };
    jump(&mut harness, method);
    assert_eq!(harness.state().views.documents.opened.target, None, "Method is all Vernier's: no prompt");
    harness.get_by_label("⚠ audit: report.docx line 12 (2. Method): what is wrong");
    let performance = Place::Document { document: Document::Report, line: 27, section: "Performance".into() };
    jump(&mut harness, performance);
    let performance = Spot::Prompt("performance, with the metric named first");
    assert_eq!(harness.state().views.documents.opened.target, Some(performance));
    jump(&mut harness, Place::Citation { number: 1 });
    assert_eq!(harness.state().views.documents.opened.target, Some(Spot::Citation(1)));
    jump(&mut harness, Place::Exports);
    harness.get_by_label("⚠ audit: exports/: what is wrong");
    jump(&mut harness, Place::Prediction { number: 1 });
    assert_eq!(harness.state().views.section, super::Section::Predictions);
    assert!(harness.state().views.predictions.opened.is(&1));
    jump(&mut harness, Place::Run { number: 2 });
    assert_eq!(harness.state().views.section, super::Section::Runs);
    assert_eq!(harness.state().views.runs.selected_run, Some(2));
    jump(&mut harness, Place::Soak { number: 1 });
    assert_eq!(harness.state().views.section, super::Section::Soaks);
    jump(&mut harness, Place::Notebook);
    assert_eq!(harness.state().views.section, super::Section::Notes, "raw files no row names: the notes");
}

/// Opens the Reproduce dialog, types `path` and presses Read, as a user
/// would, then waits for the file thread's answer (their log or a refusal).
fn read_their_log(harness: &mut Harness<'static, VernierApp>, path: &std::path::Path) {
    harness.state_mut().apply(super::AppCommand::open::<Reproduce>());
    harness.run();
    let field = harness.get_by_role_and_label(Role::TextInput, "Their notebook folder or measurements.xlsx");
    field.focus();
    field.type_text(&path.display().to_string());
    harness.run();
    harness.get_by_label("Read").click();
    step_until(harness, "their log", |app| app.dialogs.get::<Reproduce>().is_some_and(|d| d.log.is_some()));
    harness.run();
}

// SPEC R1–R3, U: reproduce a classmate's row from the window — read their
// notebook, pick the row, see the command, confirm, and get both rows side
// by side with the verdict; the rerun is in my notebook, theirs is untouched.
#[test]
fn reproduce_a_row_from_the_window() {
    let tmp = tempfile::tempdir().expect("tmp");
    let theirs = tmp.path().join("theirs");
    their_notebook(&theirs, "true, their laptop", &["true"]);
    let before = std::fs::read(theirs.join(store::NOTEBOOK_FILE)).expect("read");
    let mine = tmp.path().join("mine");
    store::create(&mine, "Mine", chrono::Utc::now()).expect("create");
    let mut harness = app_on(mine.clone());
    read_their_row(&mut harness, &theirs);
    harness.get_by_label_contains("command: true");
    assert!(run_disabled(&harness), "true is not their program: the second consent is asked");
    allow_their_code(&mut harness);
    harness.get_by_label("Run it here").click();
    step_until(&mut harness, "the rerun", |app| app.dialogs.get::<Reproduce>().is_some_and(|d| d.outcome.is_some()));
    harness.run();
    harness.get_by_label("their run 1, mine run 1");
    let (outcome, text) = {
        let dialog = harness.state().dialogs.get::<Reproduce>().expect("dialog");
        let (_, side) = dialog.outcome.as_ref().expect("outcome");
        (side.outcome.word(), side.text.clone())
    };
    // SPEC R4: the outcome and the sentence the note keeps, word for word.
    assert!(harness.get_all_by_label(outcome).count() >= 2, "the headline and the table say {outcome}");
    harness.get_by_label(&text);
    assert!(text.contains("median (s): "), "{text}");
    step_until(&mut harness, "the save", |app| app.saved());
    let back = store::load(&mine).expect("mine reloads");
    assert_eq!(back.runs().len(), 1);
    assert!(
        back.notes().iter().any(|n| n.text.contains("reproduces run 1 of") && n.text.contains(&text)),
        "{:?}",
        back.notes()
    );
    assert_eq!(std::fs::read(theirs.join(store::NOTEBOOK_FILE)).expect("read"), before, "theirs is never written");
    // SPEC R4, U: Esc closes the dialog over its result.
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(harness.state().dialogs.get::<Reproduce>().is_none(), "Esc closes the Reproduce dialog");
}

// SPEC R4, U: the Reproduce dialog's Close is in view and closes it, in a
// window as small as 1024×700, with their rows and a plan shown.
#[test]
fn reproduce_dialog_closes_with_close_and_esc() {
    let tmp = tempfile::tempdir().expect("tmp");
    let theirs = tmp.path().join("theirs");
    their_notebook(&theirs, "true, their laptop", &["true"]);
    let mine = tmp.path().join("mine");
    store::create(&mine, "Mine", chrono::Utc::now()).expect("create");
    let mut harness = app_on(mine);
    harness.set_size(egui::vec2(1024.0, 700.0));
    read_their_row(&mut harness, &theirs);
    harness.get_by_label_contains("command: true");
    let close = harness.get_by_label("Close");
    let bottom = close.rect().bottom();
    assert!(bottom <= 700.0, "Close is inside the 700-pixel window (its bottom at {bottom})");
    close.click();
    harness.run();
    assert!(harness.state().dialogs.get::<Reproduce>().is_none(), "Close closes the Reproduce dialog");
    read_their_row(&mut harness, &theirs);
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(harness.state().dialogs.get::<Reproduce>().is_none(), "Esc closes the Reproduce dialog");
}

/// Their notebook at `dir` with one run of `argv` (one arm) or an
/// interleaved comparison `naive` against `blocked` of it (two arms),
/// measured here, n = 5, then written over with another machine's long
/// condition values, as a classmate's laptop would record them.
#[cfg(target_os = "linux")]
fn their_bench(dir: &std::path::Path, argv: &[&str], arms: usize) {
    use std::sync::{Arc, atomic::AtomicBool};
    use vernier_engine::harness::{self, BenchSpec, Subject};
    use vernier_engine::notebook::WarmupPolicy;
    let mut nb = store::create(dir, "Their project", chrono::Utc::now()).expect("create");
    let arm = || Subject::Command { argv: argv.iter().map(|w| (*w).to_owned()).collect(), shell: false };
    let mut spec = BenchSpec::new((0..arms).map(|_| arm()).collect());
    spec.runs = 5;
    spec.warmup = WarmupPolicy::Count(1);
    if arms == 2 {
        spec.labels = [Some("naive".into()), Some("blocked".into())];
    }
    let result = harness::run_bench(&spec, &Arc::new(AtomicBool::new(false)), &mut |_| {}).expect("bench");
    harness::record(dir, &mut nb, &result, chrono::Utc::now()).expect("record");
    store::replace(dir, &nb).expect("save");
    let file = dir.join(store::NOTEBOOK_FILE);
    let theirs = [
        ("CPU model", "AMD Ryzen 7 PRO 7840U w/ Radeon 780M Graphics"),
        ("OS", "Ubuntu 22.04.5 LTS"),
        ("kernel", "6.8.0-45-generic #45~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Wed Sep 11 15:25:05 UTC 2"),
        (
            "caches",
            "L1 Data 32K (x8 instances), L1 Instruction 32K (x8 instances), L2 Unified 1024K (x8 instances), \
             L3 Unified 16384K (x1 instance), per-core private L2, shared victim L3",
        ),
    ];
    // notebook.ron holds a row a line: each condition is
    // `Condition(field: "NAME", value: "…")`; the value is written over.
    let mut ron = std::fs::read_to_string(&file).expect("read");
    for (name, value) in theirs {
        let opening = format!("Condition(field: \"{name}\", value: \"");
        let mut from = 0;
        while let Some(at) = ron[from..].find(&opening).map(|i| from + i + opening.len()) {
            let end = at + ron[at..].find("\")").expect("the value ends");
            ron.replace_range(at..end, value);
            from = at + value.len();
        }
    }
    std::fs::write(&file, ron).expect("write");
    assert_eq!(store::load(dir).expect("theirs reloads").runs().len(), arms);
}

/// Steps frames until a scroll or a resize has finished moving things
/// (longer than `run`'s frame budget allows).
#[cfg(target_os = "linux")]
fn settle(harness: &mut Harness<'static, VernierApp>) {
    for _ in 0..30 {
        harness.step();
    }
    harness.run();
}

/// The rect of the one widget labelled `label`.
#[cfg(target_os = "linux")]
fn rect_of(harness: &Harness<'static, VernierApp>, label: &str) -> egui::Rect {
    harness.get_by_label(label).rect()
}

// SPEC R4, U: a comparison's result fits the window: at 1280×800 the
// verdict, the paired ratio B/A and every condition that differs are in view
// above Close without scrolling, and at 1024×700 the verdict, the ratio and
// the conditions' heading still are, the longest condition wraps inside the
// window instead of widening it, and Close is reachable. (Linux: it writes
// over the CPU model and caches conditions this machine recorded.)
#[cfg(target_os = "linux")]
#[test]
fn reproduce_a_comparison_fits_the_window() {
    let tmp = tempfile::tempdir().expect("tmp");
    let theirs = tmp.path().join("theirs");
    their_bench(&theirs, &["true"], 2);
    let mine = tmp.path().join("mine");
    store::create(&mine, "Mine", chrono::Utc::now()).expect("create");
    let mut harness = app_on(mine);
    harness.set_size(egui::vec2(1024.0, 700.0));
    read_their_row(&mut harness, &theirs);
    let tick = harness.get_by_label_contains("I have read it: let it run code written in their file");
    tick.scroll_to_me();
    settle(&mut harness);
    allow_their_code(&mut harness);
    // The plan is longer than the small window: scroll to Run, then run.
    let run = harness.get_by_label("Run it here");
    run.scroll_to_me();
    settle(&mut harness);
    harness.get_by_label("Run it here").click();
    step_until(&mut harness, "the rerun", |app| app.dialogs.get::<Reproduce>().is_some_and(|d| d.outcome.is_some()));
    harness.run();
    let (text, differ) = {
        let dialog = harness.state().dialogs.get::<Reproduce>().expect("dialog");
        let (_, side) = dialog.outcome.as_ref().expect("outcome");
        assert!(side.ratio.is_some(), "a comparison has its paired ratio");
        (side.text.clone(), format!("{} condition(s) differ", side.diff.len()))
    };
    let caches = "L1 Data 32K (x8 instances), L1 Instruction 32K (x8 instances), L2 Unified 1024K (x8 instances), \
                  L3 Unified 16384K (x1 instance), per-core private L2, shared victim L3";
    for (width, height) in [(1024.0, 700.0), (1280.0, 800.0)] {
        harness.set_size(egui::vec2(width, height));
        settle(&mut harness);
        let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(width, height));
        let close = rect_of(&harness, "Close");
        assert!(window.contains_rect(close), "Close {close:?} is inside the {width}×{height} window");
        // The body scrolls between the title bar and Close, and the result
        // opens at its top (not where the long plan was scrolled to): the
        // path field, first in the body, is in view below the title bar.
        let top = rect_of(&harness, "Reproduce a classmate's row").top() + 32.0;
        let field = rect_of(&harness, "Their notebook folder or measurements.xlsx");
        assert!(field.top() >= top, "the result opens at the top of the body ({field:?} below {top})");
        let mut in_view = vec!["Their run 1 and 2:", text.as_str(), "paired ratio B/A", differ.as_str()];
        if width > 1200.0 {
            in_view.extend(["Condition", "CPU model", "caches", caches]);
        }
        for label in in_view {
            let rect = rect_of(&harness, label);
            assert!(
                window.contains_rect(rect) && rect.top() >= top && rect.bottom() <= close.top(),
                "{label:?} at {rect:?} is in view without scrolling in the {width}×{height} window (Close at {close:?})"
            );
        }
        // Nothing pushes the dialog wider than the window: the long value
        // wraps over more than one line inside it.
        let long = rect_of(&harness, caches);
        assert!(long.left() >= 0.0 && long.right() <= width, "{long:?} fits {width} pixels across");
        assert!(long.height() > 30.0, "the long value wraps ({long:?})");
    }
    harness.get_by_label("Close").click();
    harness.run();
    assert!(harness.state().dialogs.get::<Reproduce>().is_none(), "Close closes the Reproduce dialog");
}

// SPEC R4, U: before anything runs, a program whose SHA-256 differs from the
// one their row recorded is named in a warning above the plan, in view.
#[cfg(target_os = "linux")]
#[test]
fn reproduce_warns_of_a_different_binary_before_the_plan() {
    let tmp = tempfile::tempdir().expect("tmp");
    let prog = tmp.path().join("prog");
    std::fs::copy("/bin/true", &prog).expect("copy true");
    let theirs = tmp.path().join("theirs");
    their_bench(&theirs, &[prog.to_str().expect("utf-8 path")], 1);
    // Their program was rebuilt since: one byte more.
    let mut bytes = std::fs::read(&prog).expect("read prog");
    bytes.push(b'x');
    std::fs::write(&prog, bytes).expect("write prog");
    let mine = tmp.path().join("mine");
    store::create(&mine, "Mine", chrono::Utc::now()).expect("create");
    let mut harness = app_on(mine);
    harness.set_size(egui::vec2(1024.0, 700.0));
    read_their_row(&mut harness, &theirs);
    let said = format!("Warning: {}: a different binary: theirs had SHA-256", prog.display());
    let warning = harness.get_by_label_contains(&said).rect();
    let plan = harness.get_by_label_contains("Reproduce run 1 of").rect();
    let close = rect_of(&harness, "Close");
    assert!(warning.bottom() <= plan.top(), "the warning {warning:?} comes before the plan {plan:?}");
    assert!(warning.right() <= 1024.0 && warning.bottom() <= close.top(), "the warning {warning:?} is in view");
}

// SPEC R2, N10: in the Reproduce dialog their text is shown inert, and a row
// that runs code written in their file cannot run until its own box is ticked.
#[test]
fn inline_code_needs_the_box_ticked_in_the_window() {
    let tmp = tempfile::tempdir().expect("tmp");
    let theirs = tmp.path().join("theirs");
    their_notebook(&theirs, "spoof\x1b[2K\u{202e}", &["env", "sh", "-c", "true"]);
    let mine = tmp.path().join("mine");
    store::create(&mine, "Mine", chrono::Utc::now()).expect("create");
    let mut harness = app_on(mine);
    read_their_row(&mut harness, &theirs);
    harness.get_by_label(r"spoof\x1b[2K\u202e");
    harness.get_by_label_contains("WARNING: env sh -c true runs code written in their file (env … sh -c)");
    assert!(run_disabled(&harness), "inline code runs only after the tick");
    harness.get_by_label_contains("let it run code written in their file").click();
    harness.run();
    assert!(!run_disabled(&harness), "the tick enables the run");
    harness.get_by_label_contains("let it run code written in their file").click();
    harness.run();
    assert!(run_disabled(&harness), "untick disables it again");
}

/// Presses the Reproduce dialog's "Run it here" and waits for the rerun's
/// result and its save.
fn run_it_here(harness: &mut Harness<'static, VernierApp>) {
    harness.get_by_label("Run it here").click();
    step_until(harness, "the rerun", |app| app.dialogs.get::<Reproduce>().is_some_and(|d| d.outcome.is_some()));
    harness.run();
    step_until(harness, "the save", VernierApp::saved);
}

/// Ticks the dialog's "I have read it": the commands here rerun programs
/// of this machine (`true`), which their row does not vouch for, so they
/// need the second consent (SPEC N13, R2).
fn allow_their_code(harness: &mut Harness<'static, VernierApp>) {
    harness.get_by_label_contains("I have read it: let it run code written in their file").click();
    harness.run();
}

/// Whether the dialog's "Run it here" button is greyed out.
fn run_disabled(harness: &Harness<'static, VernierApp>) -> bool {
    use egui_kittest::kittest::NodeT as _;
    harness.get_by_label("Run it here").accesskit_node().is_disabled()
}

/// A measured run of `command`, n = 3, without conditions.
pub(super) fn measured(what: &str, command: &[&str]) -> vernier_engine::notebook::Measurement {
    use vernier_engine::notebook::{Measurement, Tag, WarmupPolicy};
    Measurement {
        what: what.into(),
        command: command.iter().map(|w| (*w).to_owned()).collect(),
        warmup: WarmupPolicy::Count(1),
        warmup_trials: 1,
        summary: vernier_engine::stats::Summary::of(&[0.0007, 0.0008, 0.0009]).expect("summary"),
        unit: "s".into(),
        ns_per_unit: 1e9,
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
    }
}

/// Their notebook at `dir` with one measured run of `command`, n = 3.
fn their_notebook(dir: &std::path::Path, what: &str, command: &[&str]) {
    let mut nb = store::create(dir, "Their project", chrono::Utc::now()).expect("create");
    nb.record_run(measured(what, command), chrono::Utc::now());
    store::replace(dir, &nb).expect("save");
}

// SPEC N9: rows keep the Environment stated when they ran; the field that
// changed since says which rows kept which value.
#[test]
fn the_environment_names_rows_measured_under_another_value() {
    let (_tmp, dir, mut nb) = new_notebook("Power");
    nb.set_environment("Power source", "mains").expect("field");
    for i in 1..=4 {
        nb.record_run(measured(&format!("run {i}"), &["true"]), chrono::Utc::now());
    }
    nb.set_environment("Power source", "battery").expect("field");
    nb.record_run(measured("on battery", &["true"]), chrono::Utc::now());
    store::replace(&dir, &nb).expect("save");
    let mut harness = app_on(dir);
    harness.run();
    assert_eq!(harness.get_by_role_and_label(Role::TextInput, "Power source").value().as_deref(), Some("battery"));
    harness.get_by_label("runs 1–4 were measured with \"mains\"");
}

/// Opens the Reproduce dialog, reads `theirs` and picks its run 1.
fn read_their_row(harness: &mut Harness<'static, VernierApp>, theirs: &std::path::Path) {
    read_their_log(harness, theirs);
    harness.get_by_label("1").click();
    harness.run();
}

// SPEC D6, D2: deadlines set in the Documents section are kept in the
// notebook and give the placement table, cheapest processor first.
#[test]
fn placement_deadlines_from_the_window() {
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Documents").click();
    harness.run();
    harness.get_by_label_contains("placement-decision.docx").click();
    harness.run();
    // The table sits below the document's prompts.
    harness.get_by_label("game_frame").scroll_to_me();
    harness.run();
    harness.get_by_label("game_frame").click();
    harness.run();
    let deadline = harness.get_by_role_and_label(Role::TextInput, "deadline for game_frame");
    deadline.focus();
    deadline.type_text("16.7");
    harness.run();
    harness.get_by_label("Keep these deadlines").scroll_to_me();
    harness.run();
    harness.get_by_label("Keep these deadlines").click();
    step_until(&mut harness, "the deadline saved", |app| app.saved() && !app.notebook().writing().deadlines.is_empty());
    let kept = &harness.state().notebook().writing().deadlines;
    assert_eq!((kept[0].workload.as_str(), kept[0].deadline_ms), ("game_frame", 16.7));
    harness.run();
    harness.get_by_label("GPU");
    harness.get_by_label("kept in the notebook");
}

// SPEC N7, U5: when the file thread dies, the status bar says so at once —
// changes cannot be saved, and since when nothing is on disk — an edit made
// afterwards is reported as not done, and the window never claims "saved".
#[test]
fn a_stopped_file_thread_is_reported() {
    let (_tmp, mut harness) = fixture_app();
    let dir = harness.state().doc.dir.clone();
    harness.state_mut().files.io.as_mut().expect("the file thread runs").stop();
    harness.run();
    let stopped = "⚠ the file thread stopped: changes cannot be saved — restart Vernier; nothing since";
    harness.get_by_label_contains(stopped);

    type_ambient(&mut harness, "written after the file thread died");
    harness.run();
    assert!(harness.state().notebook().environment().ambient.starts_with("written after"), "the edit is in the window");
    harness.get_by_label("the file thread stopped, so that was not done — restart Vernier");
    harness.get_by_label_contains(stopped);
    assert!(!harness.state().saved(), "an unsaved edit is not reported saved");
    assert!(harness.query_by_label("✔ saved").is_none() && harness.query_by_label("saving…").is_none());
    assert!(!store::load(&dir).expect("reload").environment().ambient.starts_with("written after"));
}

// SPEC E1, U3: when the engine thread dies during a run, the live panel ends
// in a message saying the run is lost instead of running forever, and a new
// run says it cannot start.
#[test]
fn a_stopped_engine_thread_is_reported() {
    use vernier_engine::harness::{BenchRunner, BenchSpec, Subject};
    let (_tmp, mut harness) = fixture_app();
    // The waker runs on the engine thread, so panicking there kills the
    // thread right after its first event, as a bug in the engine would.
    let dying = BenchRunner::spawn(|| panic!("the engine thread dies here (expected by this test)")).expect("engine");
    harness.state_mut().measure.engine = Some(dying);
    let spec = BenchSpec::new(vec![Subject::Command { argv: vec!["true".into()], shell: false }]);
    harness.state_mut().apply(super::AppCommand::StartRun(Box::new(spec.clone())));
    assert!(harness.state().running(), "the run was handed to the engine");
    step_until(&mut harness, "the dead engine to be noticed", |app| !app.running());
    harness.run();
    harness.get_by_label("the engine thread stopped — restart Vernier to measure again; the run “true” is lost");
    harness.get_by_label("⚠ engine stopped");

    harness.state_mut().apply(super::AppCommand::StartRun(Box::new(spec)));
    harness.run();
    assert!(!harness.state().running());
    harness.get_by_label("the engine thread stopped — restart Vernier to measure again");
}

// SPEC U1, U5: every section has a title, a heading and a shortcut of its
// own (none shared with another section or a menu action), and each
// shortcut opens its section.
#[test]
fn every_section_has_a_title_a_heading_and_its_own_shortcut() {
    use super::{
        SHORTCUT_CANCEL, SHORTCUT_EXPORT, SHORTCUT_NEW, SHORTCUT_OPEN, SHORTCUT_SAVE_AS, SHORTCUT_THEME, Section,
    };
    let (_tmp, mut harness) = fixture_app();
    let mut taken =
        vec![SHORTCUT_NEW, SHORTCUT_OPEN, SHORTCUT_SAVE_AS, SHORTCUT_CANCEL, SHORTCUT_EXPORT, SHORTCUT_THEME];
    // The registered dialogs' keys: none shared with another dialog either.
    for shortcut in super::dialogs::OPENED.iter().filter_map(|o| o.entry?.shortcut) {
        assert!(!taken.contains(&shortcut), "a dialog's shortcut {shortcut:?} is already taken");
        taken.push(shortcut);
    }
    for (i, section) in Section::ALL.into_iter().enumerate() {
        assert_eq!(section as usize, i, "Section::ALL lists {section:?} once, in order");
        assert!(!section.title().trim().is_empty(), "{section:?} has no title");
        assert!(!section.heading().trim().is_empty(), "{section:?} has no heading");
        let shortcut = section.shortcut();
        assert!(!taken.contains(&shortcut), "{section:?}'s shortcut is already taken");
        taken.push(shortcut);
    }
    // Backwards, so each press moves away from the section shown before.
    for section in Section::ALL.into_iter().rev() {
        let shortcut = section.shortcut();
        harness.key_press_modifiers(shortcut.modifiers, shortcut.logical_key);
        harness.run();
        assert_eq!(harness.state().views.section, section);
        // The heading above the view (for most sections also the side bar's name).
        assert!(harness.get_all_by_label(section.heading()).next().is_some(), "{section:?}'s heading is shown");
    }
}

// SPEC R1, U5: the Reproduce dialog's Read goes through the command queue to
// the file thread, which refuses the open notebook itself (a rerun must never
// be recorded into the log it reproduces), with nothing read on the UI thread.
#[test]
fn reproduce_refuses_the_open_notebook() {
    let (_tmp, mut harness) = fixture_app();
    let mine = harness.state().doc.dir.clone();
    read_their_log(&mut harness, &mine);
    harness.get_by_label("that is the open notebook; open your own notebook and reproduce from theirs");
}

/// A notebook of two command runs an hour apart: run 1 stated on mains,
/// run 2 on battery.
fn mains_then_battery() -> (tempfile::TempDir, std::path::PathBuf) {
    use vernier_engine::notebook::{Measurement, Tag, WarmupPolicy};
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    let start = chrono::Utc::now() - chrono::Duration::hours(2);
    let mut nb = store::create(&dir, "compare", start).expect("create");
    let row = |command: &str, median: f64| Measurement {
        what: format!("matmul {}", command.trim_start_matches("./")),
        command: vec![command.into(), "512".into()],
        warmup: WarmupPolicy::Count(3),
        warmup_trials: 3,
        summary: vernier_engine::stats::Summary::of(&[median - 0.1, median, median + 0.1]).expect("trials"),
        unit: "ms".into(),
        ns_per_unit: 1e6,
        conditions: Vec::new(),
        raw_file: None,
        tag: Tag::Measured,
        synthetic: false,
        extends: None,
        figure: None,
        work: None,
        // A process's wall time each, as `bench` keeps it (S16).
        boundary: Some(vernier_engine::notebook::Boundary::ProcessWall),
        recipe: None,
        tail: None,
        noise_floor: None,
    };
    nb.set_environment("Power source", "mains").expect("field");
    nb.record_run(row("./naive", 10.0), start);
    nb.set_environment("Power source", "battery").expect("field");
    nb.record_run(row("./blocked", 12.2), start + chrono::Duration::hours(1));
    store::replace(&dir, &nb).expect("save");
    (tmp, dir)
}

// SPEC S13, S7: the Runs section compares two rows with the engine's
// verdict — "Compare with…" on run 1, then a click on run 2 — and a mains
// run against a battery run makes no claim; Esc closes the window.
#[test]
fn compare_two_runs_from_the_runs_section() {
    let (_tmp, dir) = mains_then_battery();
    let mut harness = app_on(dir);
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    harness.get_by_label("matmul naive").click();
    harness.run();
    harness.get_by_label("Compare with…").click();
    harness.run();
    harness.get_by_label_contains("Comparing run 1: click the run to compare it with");
    harness.get_by_label("matmul blocked").click();
    harness.run();
    harness.get_by_label(
        "median wall time: no claim — never compare a mains run against a battery run: run 1 ran on mains, run 2 on \
         battery",
    );
    harness.get_by_label_contains("S13 (no claim)");
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(harness.state().views.runs.comparing.is_none(), "Esc closes the comparison");
    assert!(harness.query_by_label_contains("never compare a mains run").is_none());
}

// SPEC S14, U3: the New run dialog's "Control (repeated each session)"
// marks the run as the control; with a second subject it refuses to start.
#[test]
fn new_run_marks_the_control() {
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    harness.get_by_label("▶ New run…").click();
    harness.run();
    harness.get_by_label("Control (repeated each session)").click();
    harness.run();
    let form = harness.state().dialogs.get::<NewRunForm>().cloned().expect("the dialog is open");
    assert!(form.control && form.spec().expect("a valid run").control);
    let two = super::new_run::NewRunForm { versus_kernel: Some(vernier_engine::notebook::KernelKind::Chase), ..form };
    assert!(two.spec().is_err_and(|e| e.contains("a control is one condition")));
}

// SPEC S10, U3: "Extend to 51 trials" on a selected run starts the rerun in
// the background like any run; it is recorded as a new row linked to the
// run, which is unchanged, and the verdict is said when it is done. An
// imported row's button is greyed out: there is no spec to rerun.
#[test]
fn extend_a_run_from_the_window() {
    use egui_kittest::kittest::NodeT as _;
    use vernier_engine::notebook::{Condition, ConditionName, WarmupPolicy};
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    their_notebook(&dir, "true, quick", &["true"]);
    store::change(&dir, |nb| {
        let mut imported = (*nb.runs()[0].measurement).clone();
        imported.what = "imported from hyperfine".into();
        imported.warmup = WarmupPolicy::Unknown;
        imported.conditions = vec![Condition::new(ConditionName::Source, "hyperfine export results.json")];
        nb.record_run(imported, chrono::Utc::now());
        Ok::<_, std::convert::Infallible>(())
    })
    .expect("an imported row");
    let mut harness = app_on(dir.clone());
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    harness.get_by_label("imported from hyperfine").click();
    harness.run();
    assert!(harness.get_by_label("Extend to 51 trials").accesskit_node().is_disabled(), "no spec to rerun");

    harness.get_by_label("true, quick").click();
    harness.run();
    let claim = harness.get_by_role_and_label(Role::TextInput, "Claim");
    claim.focus();
    claim.type_text("1000s");
    harness.run();
    harness.get_by_label("Extend to 51 trials").click();
    harness.run();
    // SPEC N13: the command is shown as it will run, and nothing starts
    // before the confirmation.
    harness.get_by_label_contains("Extend run 1 to 51 timed trials");
    harness.get_by_label_contains("command: true");
    assert!(!harness.state().running(), "nothing starts before Run it");
    // SPEC N13: `true` is not a program the row vouches for.
    harness.get_by_label_contains("I have read it: let it run code written in the notebook").click();
    harness.run();
    harness.get_by_label("Run it").click();
    harness.run();
    assert!(harness.state().running(), "the rerun started in the background");
    step_until(&mut harness, "the extension to be recorded", |app| app.notebook().runs().len() == 3 && app.saved());
    harness.run();
    let nb = harness.state().notebook();
    let (original, new) = (&nb.runs()[0], &nb.runs()[2]);
    assert_eq!(new.measurement.extends, Some(1));
    assert_eq!(new.measurement.summary.n, 51);
    assert_eq!(original.measurement.summary.n, 3, "the run extended is unchanged");
    // Said in the status bar, and whole beside the new run.
    let verdict = "Run 1 extended to 51 trials as run 3";
    assert_eq!(harness.get_all_by_label_contains(verdict).count(), 2);
    let shown = harness.get_by_label_contains(&format!("S10: {verdict}")).accesskit_node().value().unwrap_or_default();
    assert!(shown.contains("the median moved by less than the 1000 s you mean to claim (given as 1000s)"), "{shown}");
    harness.get_by_label("extends run 1");
    assert_eq!(store::load(&dir).expect("reload").runs()[2].measurement.extends, Some(1));
}

// SPEC N13, R2: a row of the student's own notebook whose command runs code
// written in the file (a notebook anyone can edit) is shown with its
// finding in the Extend confirmation, which cannot start it before its own
// tick, nor before Run it.
#[test]
fn extend_shows_the_argv_and_starts_only_from_its_confirmation() {
    use egui_kittest::kittest::NodeT as _;
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    let marker = tmp.path().join("MARKER");
    let script = format!("touch {}; true", marker.display());
    their_notebook(&dir, "looks harmless", &["/bin/sh", "-c", &script]);
    let mut harness = app_on(dir);
    harness.get_by_label("Runs  (1)").click();
    harness.run();
    harness.get_by_label("looks harmless").click();
    harness.run();
    harness.get_by_label("Extend to 51 trials").click();
    harness.run();
    let warning = format!("WARNING: /bin/sh -c '{script}' runs code written in their file (sh -c)");
    harness.get_by_label_contains(&warning);
    harness.get_by_label_contains(&format!("command: /bin/sh -c '{script}'"));
    let run_it = |harness: &Harness<'static, VernierApp>| harness.get_by_label("Run it").accesskit_node().is_disabled();
    assert!(run_it(&harness), "inline code needs its own tick");
    assert!(!harness.state().running() && !marker.exists(), "nothing started");
    harness.get_by_label_contains("let it run code written in the notebook").click();
    harness.run();
    assert!(!run_it(&harness), "the tick enables Run it");
    assert!(!harness.state().running() && !marker.exists(), "the tick alone starts nothing");
    harness.get_by_label("Cancel").click();
    harness.run();
    assert!(harness.query_by_label("Run it").is_none(), "Cancel closes the confirmation");
    assert!(!harness.state().running() && !marker.exists(), "a cancelled confirmation starts nothing");
}

/// Opens "Add run from numbers…" from the Runs section.
fn open_import(harness: &mut Harness<'static, VernierApp>) {
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    harness.get_by_label("+ Add run from numbers…").click();
    harness.run();
}

/// Types into the one-line field labelled `label`.
fn type_into(harness: &mut Harness<'static, VernierApp>, label: &str, text: &str) {
    let field = harness.get_by_role_and_label(Role::TextInput, label);
    field.focus();
    field.type_text(text);
    harness.run();
}

/// Presses Preview and waits for the file thread's summary.
fn preview_import(harness: &mut Harness<'static, VernierApp>) {
    harness.get_by_label("Preview").click();
    step_until(harness, "the preview", |app| {
        app.dialogs.get::<ImportForm>().is_some_and(|f| f.preview.is_some() && !f.busy)
    });
    harness.run();
}

/// Presses Record and waits until the dialog has closed on a saved row.
fn record_import(harness: &mut Harness<'static, VernierApp>, runs: usize) {
    harness.get_by_label("Record").click();
    step_until(harness, "the import to be recorded", |app| {
        app.dialogs.get::<ImportForm>().is_none() && app.doc.notebook.runs().len() == runs && app.saved()
    });
    harness.run();
}

// SPEC E14, U3: numbers typed or pasted into the window are previewed as the
// row they would become (nothing recorded yet), then recorded as measured by
// the named instrument, with the typed numbers kept as the raw file.
#[test]
fn add_a_run_from_pasted_numbers() {
    let (tmp, mut harness) = fixture_app();
    open_import(&mut harness);
    harness.get_by_label("Type or paste numbers").click();
    harness.run();
    let numbers = harness.get_by_role_and_label(Role::MultilineTextInput, "Numbers");
    numbers.focus();
    numbers.type_text("5.712 5.688 5.731\n5.694 5.705");
    harness.run();
    harness.state_mut().dialogs.get_mut::<ImportForm>().expect("open").unit = "ms".into();
    type_into(&mut harness, "Instrument", "stopwatch app, tap to tap");
    harness.run();
    preview_import(&mut harness);
    harness.get_by_label("time: median 5.705 ms, IQR 0.018 ms · drift -0.01 %, n ? + 5 (warm-up not recorded)");
    assert_eq!(harness.state().doc.notebook.runs().len(), 2, "a preview records nothing");
    record_import(&mut harness, 3);
    let on_disk = store::load(&tmp.path().join("nb")).expect("loads");
    let run = on_disk.run(3).expect("run 3 on disk");
    assert!((run.measurement.summary.median - 5.705).abs() < 1e-12);
    let conditions = vernier_engine::notebook::conditions_text(&run.measurement.conditions);
    assert!(conditions.contains("instrument: stopwatch app, tap to tap"), "{conditions}");
    let raw = run.measurement.raw_file.as_ref().expect("raw file");
    let kept = std::fs::read_to_string(tmp.path().join("nb").join(raw.path.to_string())).expect("raw");
    assert!(kept.ends_with("time\n5.712\n5.688\n5.731\n5.694\n5.705\n"), "{kept}");

    // SPEC A1, A2: the new row (selected) states no warm-up; stating it in
    // the window answers A1 and leaves the numbers as they were.
    harness.get_by_label("State what is missing…").click();
    harness.run();
    type_into(&mut harness, "Warm-up trials (not in the file)", "2");
    harness.get_by_label("State").click();
    step_until(&mut harness, "the statement to be saved", |app| {
        app.doc.notebook.run(3).is_some_and(|r| r.n_column() == "2 (not in the file) + 5") && app.saved()
    });
    let on_disk = store::load(&tmp.path().join("nb")).expect("loads");
    let stated = on_disk.run(3).expect("run 3");
    assert_eq!(stated.n_column(), "2 (not in the file) + 5");
    assert_eq!(stated.measurement.summary, run.measurement.summary);
}

// SPEC E14, S7: the matmul driver's CSV, chosen as a file, has its arms,
// pair and order columns found from the header; the preview shows both
// rows and the verdict, and Record makes them a named comparison.
#[test]
fn add_a_comparison_from_a_csv_file() {
    let (tmp, mut harness) = fixture_app();
    open_import(&mut harness);
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/matmul-driver.csv");
    type_into(&mut harness, "File", fixture);
    type_into(&mut harness, "Warm-up not in the file", "1");
    preview_import(&mut harness);
    let form = harness.state().dialogs.get::<ImportForm>().cloned().expect("open");
    assert_eq!((form.column_a.as_str(), form.column_b.as_str()), ("naive_ms", "blocked_ms"));
    assert_eq!((form.pair.as_str(), form.first.as_str()), ("pair", "first"));
    harness.get_by_label("A · naive: median 5.705 ms, IQR 0.025 ms · drift -0.12 %, n 1 (not in the file) + 7");
    harness.get_by_label("paired blocked/naive 0.4573 (IQR 0.0029, 7 pairs)");
    record_import(&mut harness, 4);
    // The new row is selected; its raw file is the CSV as it was, and its
    // column is read back from it for the trial plot (issue 35): the
    // driver's seven blocked times, the file's own numbers.
    step_until(&mut harness, "the trials", |app| app.views.runs.trials.contains_key(&4));
    harness.run();
    let Some(Ok(plotted)) = harness.state().views.runs.trials.get(&4) else { panic!("the imported trials are drawn") };
    assert_eq!(plotted.timed.len(), 7);
    assert_eq!(vernier_engine::stats::Summary::of(&plotted.timed).expect("trials").median, 2.604);
    assert!(!harness.state().status.as_ref().is_some_and(|(_, error)| *error), "no error in the status bar");
    let on_disk = store::load(&tmp.path().join("nb")).expect("loads");
    let pair = on_disk.pairs().last().expect("a comparison");
    assert_eq!(pair.runs, [3, 4]);
    assert_eq!(pair.labels, ["naive".to_owned(), "blocked".to_owned()]);
    assert!(pair.verdict.claimed);
    assert!(pair.order.is_some());
}

// SPEC E14: a Google Benchmark JSON chosen in the same dialog is read as
// the tool wrote it: one row per benchmark, no columns to pick.
#[test]
fn add_runs_from_a_google_benchmark_file() {
    let (_tmp, mut harness) = fixture_app();
    open_import(&mut harness);
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/gbench/matmul-reps9.json");
    type_into(&mut harness, "File", fixture);
    preview_import(&mut harness);
    let form = harness.state().dialogs.get::<ImportForm>().cloned().expect("open");
    let preview = form.preview.expect("previewed");
    assert_eq!(preview.format.id(), "gbench");
    let rows = preview.result.expect("prepared").rows.len();
    assert_eq!(rows, 3, "one row per benchmark");
    harness.get_by_label(
        "Google Benchmark JSON: one row per benchmark, its own warm-ups and context kept; the tool is named as the instrument.",
    );
    record_import(&mut harness, 2 + rows);
}

/// A notebook at `dir` with one recorded sweep, W1 "pointer chase": three
/// points of SIZE, each a row whose median is `ns` per access.
fn swept_notebook(dir: &std::path::Path) {
    use vernier_engine::notebook::NewSweep;
    use vernier_engine::notebook::Param;
    let mut nb = store::create(dir, "Memory wall", chrono::Utc::now()).expect("create");
    let param = Param::parse("SIZE=16K..64K*2").expect("a range");
    let mut runs = Vec::new();
    for (size, ns) in param.values.iter().zip([1.5, 2.0, 9.0]) {
        let mut m = measured(&format!("pointer chase, SIZE={size}"), &["./walk", "--bytes", size]);
        m.summary = vernier_engine::stats::Summary::of(&[ns * 0.9, ns, ns * 1.1]).expect("summary");
        m.unit = "ns/access".into();
        m.ns_per_unit = 1.0;
        runs.push(nb.record_run(m, chrono::Utc::now()));
    }
    let points = param.values.iter().map(|v| vec![v.clone()]).collect();
    let sweep = NewSweep {
        what: "pointer chase".into(),
        template: vec!["./walk".into(), "--bytes".into(), "{SIZE}".into()],
        params: vec![param],
        points,
    };
    nb.record_sweep(sweep, runs, chrono::Utc::now()).expect("a sweep");
    store::replace(dir, &nb).expect("save");
}

// SPEC E16, U4: the Runs section's sweep picker lists every recorded sweep;
// picking one plots it, and a point of it offers its whole sweep.
#[test]
fn the_sweep_picker_lists_a_recorded_sweep() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    swept_notebook(&dir);
    let mut harness = app_on(dir);
    harness.get_by_label("Runs  (3)").click();
    harness.run();
    let picker = harness.get_by_role_and_label(Role::ComboBox, "Sweep");
    assert_eq!(picker.value().as_deref(), Some("choose one to plot…"));
    picker.click();
    harness.run();
    harness.get_by_label("W1: pointer chase").click();
    harness.run();
    assert!(harness.state().views.runs.show_sweep, "the sweep is shown");
    let picker = harness.get_by_role_and_label(Role::ComboBox, "Sweep");
    assert_eq!(picker.value().as_deref(), Some("W1: pointer chase"));
    harness.get_by_label("W1: pointer chase");

    // A point of the sweep leads back to it.
    // Its parameter value first (issue 35), then what the sweep is about.
    harness.get_by_label("SIZE=32 KiB · pointer chase").click();
    harness.run();
    assert!(!harness.state().views.runs.show_sweep, "the run's trials are shown");
    harness.get_by_label("Show sweep W1").click();
    harness.run();
    assert!(harness.state().views.runs.show_sweep);
}

// SPEC U3, R4 (issue 35): the New run, "Add run from numbers" and
// Reproduce dialogs keep their buttons in place as what they hold changes —
// another tab, a field typed into, a preview arriving, another row picked —
// so a button never moves from under the pointer about to click it.
#[test]
fn dialog_buttons_keep_their_place() {
    let (tmp, mut harness) = fixture_app();
    let at = |harness: &Harness<'static, VernierApp>, label: &str| harness.get_by_label(label).rect();
    open_import(&mut harness);
    let close = at(&harness, "Close");
    harness.get_by_label("Type or paste numbers").click();
    harness.run();
    assert_eq!(at(&harness, "Close"), close, "another tab");
    let numbers = harness.get_by_role_and_label(Role::MultilineTextInput, "Numbers");
    numbers.focus();
    numbers.type_text("5.712 5.688 5.731\n5.694 5.705\n5.70\n5.71\n5.69\n5.72\n5.73");
    harness.run();
    harness.state_mut().dialogs.get_mut::<ImportForm>().expect("open").unit = "ms".into();
    preview_import(&mut harness);
    harness.get_by_label_contains("time: median");
    assert_eq!(at(&harness, "Close"), close, "a preview shown");
    harness.get_by_label("Close").click();
    harness.run();

    harness.get_by_label("▶ New run…").click();
    harness.run();
    let (start, close) = (at(&harness, "▶ Start"), at(&harness, "Close"));
    harness.get_by_role_and_label(Role::Button, "Command").click();
    harness.run();
    assert_eq!((at(&harness, "▶ Start"), at(&harness, "Close")), (start, close), "the Command tab, empty");
    type_into(&mut harness, "Command A", "true");
    harness.run();
    assert_eq!((at(&harness, "▶ Start"), at(&harness, "Close")), (start, close), "a command typed");
    harness.get_by_label("Close").click();
    harness.run();

    // Reproduce: "Run it here" stays under the plan whichever row is
    // picked, whatever its plan's length.
    let theirs = tmp.path().join("theirs");
    their_notebook(&theirs, "true", &["true"]);
    store::change(&theirs, |nb| {
        let long: Vec<&str> = std::iter::repeat_n("--a-long-flag", 40).collect();
        nb.record_run(measured("a long command", &[["true"].as_slice(), &long].concat()), chrono::Utc::now());
        Ok::<_, std::convert::Infallible>(())
    })
    .expect("a second row");
    // Away from the Runs table, whose row numbers would match too.
    harness.state_mut().apply(super::AppCommand::Show(super::Section::Environment));
    read_their_log(&mut harness, &theirs);
    let (run, close) = (at(&harness, "Run it here"), at(&harness, "Close"));
    assert!(run_disabled(&harness), "no row picked yet");
    harness.get_by_label("1").click();
    harness.run();
    assert_eq!((at(&harness, "Run it here"), at(&harness, "Close")), (run, close), "row 1 picked");
    assert!(run_disabled(&harness), "true is not their program: the second consent is asked");
    allow_their_code(&mut harness);
    assert!(!run_disabled(&harness));
    harness.get_by_label("2").click();
    harness.run();
    assert_eq!((at(&harness, "Run it here"), at(&harness, "Close")), (run, close), "row 2's longer plan");
}

/// Opens the New run dialog on a command.
fn new_command_run(harness: &mut Harness<'static, VernierApp>, command: &str) {
    harness.get_by_label("▶ New run…").click();
    harness.run();
    // The mode's tab (the Runs table has a Command column too).
    harness.get_by_role_and_label(Role::Button, "Command").click();
    harness.run();
    type_into(harness, "Command A", command);
}

/// Types into the New run dialog's Parameters box (several lines).
fn type_parameters(harness: &mut Harness<'static, VernierApp>, text: &str) {
    let field = harness.get_by_role_and_label(Role::MultilineTextInput, "Parameters");
    field.focus();
    field.type_text(text);
    harness.run();
}

// SPEC E16, U3: a parameter in the New run dialog shows the commands it
// expands to and builds a scan; a parameter the command does not use is
// refused with the scan's own message.
#[test]
fn new_run_with_a_parameter_builds_a_scan() {
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    new_command_run(&mut harness, "./walk --bytes {SIZE}");
    type_parameters(&mut harness, "SIZE=16K..64M*4");
    harness.get_by_label("7 commands: ./walk --bytes 16384, ./walk --bytes 65536 … ./walk --bytes 67108864");
    let form = harness.state().dialogs.get::<NewRunForm>().cloned().expect("the dialog is open");
    let spec = form.spec().expect("a scan");
    assert_eq!(spec.arms.len(), 7);
    assert!(spec.scan.is_some_and(|s| s.template == ["./walk", "--bytes", "{SIZE}"]));
    let unused = super::new_run::NewRunForm { command: "./walk --bytes 4096".into(), ..form };
    assert!(unused.spec().is_err_and(|e| e.contains("--param SIZE is not used")));
}

// SPEC E16, U3: a scan is not combined with a comparison: Command B with a
// parameter is refused, and Start stays greyed out.
#[test]
fn new_run_refuses_a_scan_with_command_b() {
    use egui_kittest::kittest::NodeT as _;
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    new_command_run(&mut harness, "./walk --bytes {SIZE}");
    type_parameters(&mut harness, "SIZE=1K,2K");
    type_into(&mut harness, "Command B", "./other");
    harness.get_by_label_contains("a scan is not combined with a comparison");
    assert!(harness.get_by_label("▶ Start").accesskit_node().is_disabled());
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(harness.state().dialogs.get::<NewRunForm>().is_none(), "Esc closes the dialog");
}

// SPEC E17, U3: "Try once" runs the command once off the UI thread and
// shows the figure read from its output with the wall time; nothing is
// recorded. (Cargo gives lib unit tests no CARGO_BIN_EXE_figure-walk, so
// the program is a shell's echo.)
#[cfg(unix)]
#[test]
fn try_once_shows_the_figure() {
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    new_command_run(&mut harness, "sh -c 'echo ns/access: 2.5'");
    harness.get_by_role_and_label(Role::ComboBox, "Figure").click();
    harness.run();
    harness.get_by_label("regular expression").click();
    harness.run();
    type_into(&mut harness, "Pattern", "ns/access: ([0-9.eE+-]+)");
    type_into(&mut harness, "Unit", "ns/access");
    harness.get_by_label("Try once").click();
    step_until(&mut harness, "the try", |app| {
        app.dialogs.get::<NewRunForm>().is_some_and(|f| matches!(f.tried, Some(super::new_run::Tried::Done(..))))
    });
    harness.run();
    harness.get_by_label("figure: 2.5 ns/access");
    harness.get_by_label_contains("wall time");
    assert_eq!(harness.state().notebook().runs().len(), 2, "nothing recorded");
}

/// Presses Start on the New run dialog's three-point sweep over the
/// fixture's two runs, and waits until it is recorded as sweep W1, runs 3–5.
fn start_the_three_point_sweep(harness: &mut Harness<'static, VernierApp>) {
    harness.get_by_label("▶ Start").click();
    harness.run();
    step_until(harness, "the sweep to be recorded", |app| app.notebook().runs().len() == 5 && app.saved());
    harness.run();
    let nb = harness.state().notebook();
    assert_eq!(nb.sweeps().len(), 1);
    assert_eq!(nb.sweeps()[0].runs, [3, 4, 5]);
}

// SPEC E16, E17, U3: a scan started from the New run dialog records one
// row per point as sweep W1, read by the program's own figure, and the
// window shows the sweep when it is recorded.
#[cfg(unix)]
#[test]
fn a_scan_from_the_window_is_recorded_as_a_sweep() {
    use super::new_run::{FigureSource, NewRunForm};
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    harness.get_by_label("▶ New run…").click();
    harness.run();
    harness.state_mut().dialogs.open(NewRunForm {
        kernel_mode: false,
        command: "sh -c 'echo ns/access: {V}'".into(),
        params: "V=1,2,4".into(),
        figure: FigureSource::Regex,
        figure_pattern: "ns/access: ([0-9.eE+-]+)".into(),
        figure_unit: "ns/access".into(),
        runs: 1,
        warmup: 0,
        ..NewRunForm::default()
    });
    harness.run();
    harness.get_by_label_contains("3 commands: sh -c");
    start_the_three_point_sweep(&mut harness);
    let nb = harness.state().notebook();
    assert_eq!(nb.run(5).map(|r| r.measurement.summary.median), Some(4.0), "the program's own figure");
    assert!(harness.state().views.runs.show_sweep);
    assert_eq!(harness.state().views.runs.sweep, Some(super::views::SweepPick::Recorded(1)));
    harness.get_by_label_contains("recorded sweep W1");
}

// SPEC S18, E19: the New run dialog's Result check and Inputs are there
// for a command and reach the run as the command line's --check and
// --inputs do; a bad pattern is said in the form; a kernel takes neither.
#[test]
fn the_new_run_dialog_carries_a_result_check_and_inputs() {
    use super::new_run::NewRunForm;
    let (_tmp, mut harness) = fixture_app();
    let form = NewRunForm {
        kernel_mode: false,
        command: "./mm 512".into(),
        check: r"checksum: (\S+)".into(),
        inputs: "seed 42".into(),
        ..NewRunForm::default()
    };
    harness.state_mut().dialogs.open(form.clone());
    harness.run();
    for field in ["Result check", "Inputs"] {
        harness.get_by_role_and_label(Role::TextInput, field);
    }
    let spec = form.spec().expect("a spec");
    assert_eq!((spec.check.as_deref(), spec.inputs.as_deref()), (Some(r"checksum: (\S+)"), Some("seed 42")));
    let bad = NewRunForm { check: "(".into(), ..form.clone() };
    assert!(bad.spec().is_err_and(|e| e.contains("--check is not a regular expression")));
    let spec = NewRunForm { kernel_mode: true, ..form }.spec().expect("a kernel's spec");
    assert_eq!((spec.check, spec.inputs), (None, None));
}

// SPEC E16, U3 (issue 49, item 1): the built-in chase swept from the New
// run dialog — {SIZE} typed in its Size, the range in Parameters — shows the
// kernel's commands, records one row per size as one sweep, and the window
// shows its chart.
#[test]
fn a_kernel_sweep_from_the_new_run_dialog() {
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    harness.get_by_label("▶ New run…").click();
    harness.run();
    harness.get_by_role_and_label(Role::ComboBox, "Kernel").click();
    harness.run();
    harness.get_by_label("chase").click();
    harness.run();
    replace_text(&mut harness, "Size", "{SIZE}");
    assert_eq!(harness.get_by_role_and_label(Role::TextInput, "Size").value().as_deref(), Some("{SIZE}"));
    type_parameters(&mut harness, "SIZE=16K..64K*2");
    harness.get_by_label_contains("3 commands: vernier bench --kernel chase --size 16384");
    if let Some(form) = harness.state_mut().dialogs.get_mut::<NewRunForm>() {
        form.runs = 1;
        form.warmup = 0;
    }
    harness.run();
    start_the_three_point_sweep(&mut harness);
    let nb = harness.state().notebook();
    assert_eq!(nb.sweeps()[0].template, ["vernier", "bench", "--kernel", "chase", "--size", "{SIZE}"]);
    assert_eq!(nb.run(4).map(|r| r.measurement.unit.as_str()), Some("ns/access"));
    assert_eq!(harness.state().views.runs.sweep, Some(super::views::SweepPick::Recorded(1)));
    harness.get_by_label_contains("recorded sweep W1");
}

// ---- Dialogs that fit the window, the Environment filled from this
// machine, and locked predictions offering only an amendment (issue 21,
// parts 6 to 8).

/// The rect of the dialog's Close button, checked to be inside a window of
/// `width`×`height` (after the dialog has settled at that size).
fn close_in_view(harness: &mut Harness<'static, VernierApp>, width: f32, height: f32, dialog: &str) {
    settle_dialog(harness);
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(width, height));
    let close = harness.get_by_label("Close").rect();
    assert!(window.contains_rect(close), "{dialog}: Close {close:?} is inside the {width}×{height} window");
}

/// Steps frames until a dialog has laid itself out against its footer's
/// height and any scroll has finished.
fn settle_dialog(harness: &mut Harness<'static, VernierApp>) {
    for _ in 0..10 {
        harness.step();
    }
    harness.run();
}

/// Presses Esc and lets the window take it.
fn press_esc(harness: &mut Harness<'static, VernierApp>) {
    harness.key_press(egui::Key::Escape);
    harness.run();
}

/// A New run form as tall as it gets: a command scanned over a parameter,
/// its own figure read by a pattern, and a second command to compare.
fn tall_new_run() -> super::new_run::NewRunForm {
    use super::new_run::{FigureSource, NewRunForm};
    NewRunForm {
        kernel_mode: false,
        command: "./walk --bytes {SIZE}".into(),
        versus: "./walk --bytes 1".into(),
        params: "SIZE=16K..64M*4\nMODE=seq,rand".into(),
        figure: FigureSource::Regex,
        figure_pattern: "ns/access: ([0-9.eE+-]+)".into(),
        figure_unit: "ns/access".into(),
        ..NewRunForm::default()
    }
}

// SPEC U3, U1: the New run dialog fits a 1024×700 window at its tallest (a
// scan, a figure, a problem line): Close is inside the window and closes it,
// and Esc closes it too.
#[test]
fn new_run_fits_the_window_and_closes_with_close_and_esc() {
    let (_tmp, mut harness) = fixture_app();
    harness.set_size(egui::vec2(1024.0, 700.0));
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    harness.get_by_label("▶ New run…").click();
    harness.run();
    harness.state_mut().dialogs.open(tall_new_run());
    close_in_view(&mut harness, 1024.0, 700.0, "New run");
    harness.get_by_label_contains("a scan is not combined with a comparison");
    harness.get_by_label("Close").click();
    harness.run();
    assert!(harness.state().dialogs.get::<NewRunForm>().is_none(), "Close closes New run");
    harness.get_by_label("▶ New run…").click();
    harness.run();
    harness.state_mut().dialogs.open(tall_new_run());
    harness.run();
    press_esc(&mut harness);
    assert!(harness.state().dialogs.get::<NewRunForm>().is_none(), "Esc closes New run");
}

// SPEC U3: switching kernels in New run gives the size field that kernel's
// default (the engine's, as `vernier bench --kernel` runs without --size):
// a matmul's N, never seq's bytes; the canary has no size to type.
#[test]
fn new_run_switching_kernels_takes_their_default_size() {
    use vernier_engine::notebook::{DEFAULT_MATMUL_N, DEFAULT_WORKING_SET};
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    harness.get_by_label("▶ New run…").click();
    harness.run();
    let size = |harness: &Harness<'static, VernierApp>| {
        harness.get_by_role_and_label(Role::TextInput, "Size").value().unwrap_or_default()
    };
    assert_eq!(size(&harness), "1048576", "the dialog opens on seq over 1 MiB");
    let choose = |harness: &mut Harness<'static, VernierApp>, kernel: &str| {
        harness.get_by_role_and_label(Role::ComboBox, "Kernel").click();
        harness.run();
        harness.get_by_label(kernel).click();
        harness.run();
    };
    // Seq to chase: both read the size in bytes, so what was there stays.
    choose(&mut harness, "chase");
    assert_eq!(size(&harness), "1048576");
    choose(&mut harness, "matmul-ikj");
    assert_eq!(size(&harness), DEFAULT_MATMUL_N.to_string(), "a matmul takes its N, not 1 MiB");
    let form = harness.state().dialogs.get::<NewRunForm>().cloned().expect("open");
    assert!(form.spec().is_ok(), "the matmul can start as it is");
    choose(&mut harness, "canary");
    assert_eq!(size(&harness), "");
    assert!(harness.state().dialogs.get::<NewRunForm>().expect("open").spec().is_ok(), "the canary can start as it is");
    choose(&mut harness, "seq");
    assert_eq!(size(&harness), DEFAULT_WORKING_SET.to_string());
}

// SPEC T13: changing a window in the soak dialog asks why in a row of its
// own, and the prediction cannot be recorded until the reason is written;
// recorded, the reason is sealed with it on disk.
#[test]
fn a_changed_window_in_the_soak_dialog_asks_why() {
    use egui_kittest::kittest::NodeT as _;
    let (_tmp, dir, _) = new_notebook("soak reason");
    let mut harness = app_on(dir.clone());
    harness.get_by_label("Soak runs  (0)").click();
    harness.run();
    harness.get_by_label("▶ Soak…").click();
    harness.run();
    let fill = |harness: &mut Harness<'static, VernierApp>, why: &str| {
        let form = harness.state_mut().dialogs.get_mut::<SoakForm>().expect("open");
        form.experiment = "soak".into();
        form.predict = "falls".into();
        form.why = "thin chassis".into();
        form.figure = "onset 180 s ± 20 %, S/P 0.8 ± 0.05".into();
        form.protocol.opening_window_s = 20.0;
        form.protocol_why = why.into();
        harness.run();
    };
    let record = |harness: &Harness<'static, VernierApp>| {
        harness.get_by_label("Record prediction and protocol").accesskit_node().is_disabled()
    };
    fill(&mut harness, "");
    harness.get_by_label("Why changed");
    harness.get_by_label_contains("the opening window is 20 s, not 30 s");
    assert!(record(&harness), "no reason, no record");
    fill(&mut harness, "the fan spins up at 20 s");
    assert!(!record(&harness), "with its reason it records");
    harness.get_by_label("Record prediction and protocol").click();
    harness.run();
    step_until(&mut harness, "the prediction saved", |app| app.notebook().predictions().len() == 1 && app.saved());
    let on_disk = store::load(&dir).expect("loads");
    assert_eq!(on_disk.predictions()[0].protocol_why.as_deref(), Some("the fan spins up at 20 s"));
}

// SPEC U1, T1: the soak dialog, with every protocol field shown, fits a
// 1024×700 window: Close is inside it and closes it; Esc closes it too.
#[test]
fn soak_dialog_fits_the_window_and_closes_with_close_and_esc() {
    let (_tmp, mut harness) = fixture_app();
    harness.set_size(egui::vec2(1024.0, 700.0));
    let open = |harness: &mut Harness<'static, VernierApp>| {
        harness.get_by_label("Soak runs  (0)").click();
        harness.run();
        harness.get_by_label("▶ Soak…").click();
        harness.run();
        harness.get_by_label("Record prediction and protocol");
    };
    open(&mut harness);
    close_in_view(&mut harness, 1024.0, 700.0, "the soak dialog");
    harness.get_by_label("Close").click();
    harness.run();
    assert!(harness.state().dialogs.get::<SoakForm>().is_none(), "Close closes the soak dialog");
    open(&mut harness);
    press_esc(&mut harness);
    assert!(harness.state().dialogs.get::<SoakForm>().is_none(), "Esc closes the soak dialog");
}

// SPEC U1, E14: "Add run from numbers" with a comparison previewed (its
// rows, verdict and checks below the form) fits a 1024×700 window: Close is
// inside it and closes it; Esc closes it too.
#[test]
fn import_dialog_fits_the_window_and_closes_with_close_and_esc() {
    let (_tmp, mut harness) = fixture_app();
    harness.set_size(egui::vec2(1024.0, 700.0));
    open_import(&mut harness);
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/matmul-driver.csv");
    type_into(&mut harness, "File", fixture);
    preview_import(&mut harness);
    // The preview, below the form, is scrolled into view when it comes.
    settle_dialog(&mut harness);
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1024.0, 700.0));
    let rows = harness.get_by_label_contains("would become:").rect();
    assert!(window.contains_rect(rows), "the preview {rows:?} is in view");
    close_in_view(&mut harness, 1024.0, 700.0, "Add run from numbers");
    harness.get_by_label("Close").click();
    harness.run();
    assert!(harness.state().dialogs.get::<ImportForm>().is_none(), "Close closes Add run from numbers");
    open_import(&mut harness);
    press_esc(&mut harness);
    assert!(harness.state().dialogs.get::<ImportForm>().is_none(), "Esc closes Add run from numbers");
    assert_eq!(harness.state().notebook().runs().len(), 2, "nothing recorded");
}

// SPEC N2, E9, N7: "Fill from this machine" fills Machine / OS, Counter
// access and Placement control with what Vernier reads here (read on the
// file thread), they are saved — the notebook on disk has them — and a
// filled value edited in the field is saved as it is typed, before the
// field is left.
#[test]
fn environment_fill_from_this_machine_is_saved() {
    use vernier_engine::notebook::EnvField;
    let (_tmp, mut harness) = fixture_app();
    let dir = harness.state().doc.dir.clone();
    let read = super::views::machine_fill(&vernier_engine::platform::machine::Machine::read());
    harness.get_by_label("Fill from this machine").click();
    step_until(&mut harness, "the filled fields on disk", |app| {
        app.saved() && read.iter().all(|(field, value)| app.notebook().environment().get(*field) == *value)
    });
    harness.run();
    let on_disk = store::load(&dir).expect("reload");
    for (field, value) in &read {
        assert!(!value.trim().is_empty(), "{field:?} is filled");
        assert_eq!(on_disk.environment().get(*field), *value, "{field:?} is on disk");
        let shown = harness.get_by_role_and_label(Role::TextInput, field.label()).value().unwrap_or_default();
        assert_eq!(&shown, value, "{field:?} is shown in its field");
    }
    let machine = &read[0].1;
    assert!(machine.contains("logical CPUs") && machine.contains("RAM"), "{machine}");
    // The student adds what Vernier cannot read, in the filled field.
    harness.get_by_role_and_label(Role::TextInput, "Machine / OS").focus();
    harness.run();
    harness.key_press(egui::Key::End);
    harness.run();
    harness.get_by_role_and_label(Role::TextInput, "Machine / OS").type_text(" (a desktop)");
    harness.run();
    let typed = format!("{machine} (a desktop)");
    step_until(&mut harness, "the typed text on disk", |app| {
        app.saved() && app.notebook().environment().get(EnvField::MachineOs) == typed
    });
    assert_eq!(store::load(&dir).expect("reload").environment().get(EnvField::MachineOs), typed);
    // Keystrokes saved together (one lock, load and save) are all answered:
    // the status bar does not go on saying the file thread is busy.
    assert_eq!(harness.state().files.waiting, 0, "every change typed is answered");
    harness.run();
    harness.get_by_label("✔ saved");
}

// SPEC U2, N4: a locked prediction shows its lock and offers "Amend…",
// never "Edit"; an open one still offers "Edit" (and no amendment).
#[test]
fn a_locked_prediction_offers_amend_not_edit() {
    let (_tmp, mut harness) = fixture_app();
    let nb = harness.state().notebook();
    assert!(nb.lock_of(&nb.predictions()[0]).is_some(), "the fixture's P1 is locked by its runs");
    harness.get_by_label("Predictions  (1)").click();
    harness.run();
    harness.get_by_label("🔒 P1");
    assert!(harness.query_by_label("Edit").is_none(), "no Edit on a locked prediction");
    harness.get_by_label("Amend…").click();
    harness.run();
    harness.get_by_label("Amend P1");
    harness.get_by_label("Cancel").click();
    harness.run();
    let text = vernier_engine::notebook::PredictionText {
        experiment: "chase at 64 MiB".into(),
        predict: "about 90 ns per access".into(),
        why: "every access misses".into(),
        figure: None,
    };
    harness.state_mut().apply(super::AppCommand::Edit(Edit::AddPrediction { text, at: chrono::Utc::now() }));
    harness.run();
    harness.get_by_label("P2");
    assert_eq!(harness.get_all_by_label("Edit").count(), 1, "the open P2 offers Edit");
    assert_eq!(harness.get_all_by_label("Amend…").count(), 1, "only the locked P1 offers an amendment");
}

// SPEC E15: while a pinned run started from the window is in flight, the
// window's own threads (the UI thread — the test's, here — the file thread
// and the engine thread) may not run on the run's CPU, as
// `/proc/self/task/*/status` says; the run's own thread is pinned to it;
// afterwards they are put back, and the row records the window's CPU time.
#[cfg(target_os = "linux")]
#[test]
fn a_pinned_run_keeps_the_window_off_its_cpu() {
    use vernier_engine::harness::{BenchSpec, Subject};
    use vernier_engine::notebook::{ConditionName, Conditions as _};
    use vernier_engine::platform::own_threads::thread_placements;

    let Ok(cpus) = vernier_engine::platform::pinning::cpus_here() else {
        return println!("skipped: this machine cannot pin (no placement control)");
    };
    let Some(&cpu) = cpus.last().filter(|_| cpus.len() >= 2) else {
        return println!("skipped: with one CPU there is no other CPU to keep the window on");
    };
    let (_tmp, dir, _) = new_notebook("GUI test");
    let mut harness = app_on(dir);
    // The UI thread, by its id (`/proc/thread-self` is `PID/task/TID`).
    let link = std::fs::read_link("/proc/thread-self").expect("/proc/thread-self");
    let ui: i32 = link.file_name().and_then(|t| t.to_str()?.parse().ok()).expect("a thread id");
    let mut spec = BenchSpec::new(vec![Subject::Command { argv: vec!["sleep".into(), "0.2".into()], shell: false }]);
    spec.runs = 5;
    spec.warmup = vernier_engine::notebook::WarmupPolicy::Count(0);
    spec.pin = Some(cpu);
    harness.state_mut().apply(super::AppCommand::StartRun(Box::new(spec)));
    assert!(harness.state().running(), "the run started");

    // Looked at until the run's thread is seen pinned with the window's
    // threads off its CPU: the window's are moved just after the pin.
    let mut seen = None;
    let mut last = Vec::new();
    while harness.state().running() && seen.is_none() {
        harness.step();
        last = thread_placements().expect("Cpus_allowed_list is readable on Linux");
        let of = |name: &str| last.iter().find(|(_, comm, _)| comm == name).map(|(_, _, cpus)| cpus.clone());
        let main = last.iter().find(|(tid, _, _)| *tid == ui).map(|(_, _, cpus)| cpus.clone());
        let (Some(bench), Some(io), Some(engine), Some(main)) =
            (of("vernier-bench"), of("vernier-io"), of("vernier-runner"), main)
        else {
            continue;
        };
        if bench == [cpu] && [&io, &engine, &main].iter().all(|c| !c.contains(&cpu)) {
            seen = Some((io, engine, main));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let Some((io, _, main)) = seen else {
        panic!("the window's threads were never seen off CPU {cpu} during the run: {last:?}")
    };
    assert!(!io.is_empty() && !main.is_empty(), "they still have somewhere to run");

    step_until(&mut harness, "the run to be recorded", |app| app.notebook().runs().len() == 1 && app.saved());
    let placements = thread_placements().expect("readable");
    let main_after = placements.iter().find(|(tid, _, _)| *tid == ui).map(|(_, _, c)| c.clone());
    assert!(main_after.is_some_and(|c| c.contains(&cpu)), "the UI thread is put back: {placements:?}");
    let row = &harness.state().notebook().runs()[0];
    let window = row.measurement.conditions.value_of(ConditionName::WindowCpu).expect("the window CPU condition");
    assert!(window.contains("% of a core ("), "{window}");
    assert!(window.contains(&format!("the window's threads were kept off CPU {cpu}")), "{window}");
}

// ---- Issue 21 (views): the Runs table's groups, every sweep, the soak's own protocol.

/// A notebook at `dir` with run 1 on its own, then runs 2 (A) and 3 (B)
/// recorded as comparison C1, then run 4 with a very long "what".
fn compared_notebook(dir: &std::path::Path) {
    use vernier_engine::notebook::NewPair;
    use vernier_engine::stats::{Spread, Summary, compare};
    let mut nb = store::create(dir, "Compared", chrono::Utc::now()).expect("create");
    let at = chrono::Utc::now();
    nb.record_run(measured("alone", &["./alone"]), at);
    let mut a = measured("naive", &["./naive"]);
    a.summary = Summary::of(&[0.010, 0.011, 0.012]).expect("summary");
    let mut b = measured("blocked", &["./blocked"]);
    b.summary = Summary::of(&[0.004, 0.0045, 0.005]).expect("summary");
    let verdict =
        compare(Spread::from(&a.summary), Spread::from(&b.summary), ("naive", "blocked"), "median wall time", "s");
    let runs = [nb.record_run(a, at), nb.record_run(b, at)];
    let pair = NewPair {
        what: "naive vs blocked".into(),
        labels: ["naive".into(), "blocked".into()],
        verdict,
        paired: None,
        order: None,
    };
    nb.record_pair(pair, runs, at).expect("a pair");
    nb.record_run(measured(LONG_WHAT, &["./long"]), at);
    store::replace(dir, &nb).expect("save");
}

const LONG_WHAT: &str = "a run whose description goes on and on, far longer than its column is wide at 1280 points, \
     so that the table has to cut it short";

// SPEC S11, U1: a comparison's two rows and its verdict line are shown
// together — each row marked with its place in the comparison, the
// verdict line straight under the later row — and a row outside it is not.
#[test]
fn a_comparison_is_grouped_with_its_verdict() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    compared_notebook(&dir);
    let mut harness = app_on(dir);
    harness.get_by_label("Runs  (4)").click();
    harness.run();
    let (a, b) = (harness.get_by_label("C1 A").rect(), harness.get_by_label("C1 B").rect());
    let verdict = harness.get_by_label("C1 (2 vs 3)").rect();
    assert!(a.top() < b.top() && b.top() < verdict.top(), "A, B, then the verdict: {a:?} {b:?} {verdict:?}");
    let row = b.height().max(20.0);
    assert!(verdict.top() - b.top() < row * 1.6, "the verdict line is the next line after B");
    // The two arms' marks and the verdict line, nothing else: run 1 and
    // run 4 are in no comparison.
    assert_eq!(harness.query_all_by_label_contains("C1 ").count(), 3);
}

// SPEC U1: a sentence cut short in its column shows all of itself on hover.
#[test]
fn a_cut_cell_shows_its_whole_text_on_hover() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    compared_notebook(&dir);
    let mut harness = app_on(dir);
    harness.get_by_label("Runs  (4)").click();
    harness.run();
    let cell = harness.get_by_label(LONG_WHAT);
    assert!(cell.rect().width() < 400.0, "cut to its column: {:?}", cell.rect());
    cell.hover();
    for _ in 0..60 {
        harness.step();
        if harness.query_all_by_label(LONG_WHAT).count() > 1 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("no tooltip with the whole text");
}

// SPEC U4, E16: the built-in seq and chase kernels' runs at several working
// sets have their sweep view — in the picker and from each of their rows.
#[test]
fn the_kernels_runs_have_their_sweep_view() {
    let (_tmp, dir, mut nb) = new_notebook("Kernels");
    for (kernel, ns) in [("seq", 0.8), ("chase", 2.0)] {
        for (size, factor) in [("16384", 1.0), ("1048576", 3.0), ("67108864", 40.0)] {
            let what = format!("{kernel}, working set {size}");
            let mut m = measured(&what, &["vernier", "bench", "--kernel", kernel, "--size", size]);
            let v = ns * factor;
            m.summary = vernier_engine::stats::Summary::of(&[v * 0.95, v, v * 1.05]).expect("summary");
            m.unit = "ns/access".into();
            m.ns_per_unit = 1.0;
            nb.record_run(m, chrono::Utc::now());
        }
    }
    store::replace(&dir, &nb).expect("save");
    let mut harness = app_on(dir);
    harness.get_by_label("Runs  (6)").click();
    harness.run();
    harness.get_by_role_and_label(Role::ComboBox, "Sweep").click();
    harness.run();
    harness.get_by_label("seq / chase kernels");
    harness.key_press(egui::Key::Escape);
    harness.run();
    harness.get_by_label("chase, working set 1048576").click();
    harness.run();
    harness.get_by_label("Show sweep seq / chase").click();
    harness.run();
    assert!(harness.state().views.runs.show_sweep);
    assert_eq!(harness.state().views.runs.sweep, Some(super::views::SweepPick::Kernels));
    // S12: sizes as KiB/MiB on the x axis's hover labels; the title is the kernels'.
    harness.get_by_label("seq / chase kernels");
}

// SPEC T1, T5, N2: a recorded soak shows the tail IQR of its own protocol in
// its row and above its chart — one number, not a second one read again
// under the T1 defaults — and its protocol with it.
#[test]
fn a_soak_is_shown_under_its_own_protocol() {
    use vernier_engine::notebook::{SoakColumn, SoakProtocol};
    use vernier_engine::soak::{Thresholds, analyze, file, load::SoakOutcome, record};
    let (_tmp, dir, mut nb) = new_notebook("Soaked");
    let csv = record::raw_path(&dir, &nb);
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../datasets/thermal-soak.csv");
    std::fs::copy(shipped, &csv).expect("copy the soak");
    // Windows other than T1's, so the defaults would give another tail IQR.
    let protocol = SoakProtocol {
        opening_window_s: 20.0,
        tail_window_s: 120.0,
        threshold: 0.9,
        hold: 2,
        ..SoakProtocol::default()
    };
    let outcome =
        SoakOutcome { samples: 61, chunk_steps: 1, chunk_ms: 1.0, placeholders: vec![], workers: 1, cancelled: false };
    let finished = record::finish(&csv, protocol, &outcome).expect("read back");
    let at = chrono::Utc::now();
    assert!(matches!(record::add_row(&mut nb, &dir, &finished, at), record::Added::Soak(1)));
    store::replace(&dir, &nb).expect("save");
    let soak = nb.soaks()[0].clone();
    let own = soak.numbers.shown()[6].1.clone();
    let data = file::read(&csv).expect("the file");
    let defaults = analyze(&data, &Thresholds::default()).expect("analysable");
    let by_default = defaults.numbers.shown()[6].1.clone();
    assert_ne!(own, by_default, "the test needs a protocol whose tail IQR differs from the defaults'");

    let mut harness = app_on(dir);
    harness.get_by_label("Soak runs  (1)").click();
    harness.run();
    assert!(soak.cell(SoakColumn::TailIqr).starts_with(&own), "{}", soak.cell(SoakColumn::TailIqr));
    harness.get_by_label(&soak.cell(SoakColumn::TailIqr));
    harness.get_by_label("S1").click();
    step_until(&mut harness, "the soak's chart", |app| app.views.soaks.soak.is_some());
    harness.run();
    harness.get_by_label_contains(&format!("tail IQR {own}"));
    assert!(harness.query_by_label_contains(&format!("tail IQR {by_default}")).is_none(), "no second tail IQR");
    harness.get_by_label_contains("S1 under the protocol it ran with: opening window 20 s, tail window 120 s");
    // N2: the protocol beside the numbers, under the workbook's names.
    harness.get_by_label("Tail window (s)");
    harness.get_by_label("120");
}

/// Types `text` into `cell` (say `B8`) of worksheet `sheet` (1 is
/// Environment) of the workbook at `path`, saved as a spreadsheet saves a
/// typed string: inline, in place of the empty cell Vernier wrote, or after
/// the row's first cell.
fn type_into_cell(path: &std::path::Path, sheet: usize, cell: &str, text: &str) {
    use std::io::{Read as _, Write as _};
    let typed = format!(r#"<c r="{cell}" t="inlineStr"><is><t>{text}</t></is></c>"#);
    let end_of = |xml: &str, start: usize| {
        let open = start + xml[start..].find('>').expect("cell tag ends");
        if xml.as_bytes()[open - 1] == b'/' {
            open + 1
        } else {
            start + xml[start..].find("</c>").expect("cell ends") + 4
        }
    };
    let edit = |xml: String| {
        if let Some(start) = xml.find(&format!(r#"<c r="{cell}""#)) {
            return format!("{}{typed}{}", &xml[..start], &xml[end_of(&xml, start)..]);
        }
        let row: String = cell.chars().filter(char::is_ascii_digit).collect();
        let first = xml.find(&format!(r#"<c r="A{row}""#)).expect("the row's first cell");
        let at = end_of(&xml, first);
        format!("{}{typed}{}", &xml[..at], &xml[at..])
    };
    let bytes = std::fs::read(path).expect("read workbook");
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..zip.len() {
        let mut file = zip.by_index(i).expect("entry");
        let name = file.name().expect("entry name").into_owned();
        let mut content = Vec::new();
        file.read_to_end(&mut content).expect("read entry");
        if name == format!("xl/worksheets/sheet{sheet}.xml") {
            content = edit(String::from_utf8(content).expect("utf-8")).into_bytes();
        }
        out.start_file(name, zip::write::SimpleFileOptions::default()).expect("start");
        out.write_all(&content).expect("write");
    }
    std::fs::write(path, out.finish().expect("finish").into_inner()).expect("save workbook");
}

/// The fixture notebook exported, with its workbook edited in a
/// "spreadsheet": Ambient typed (allowed, N2) and the note rewritten
/// (refused, N5). Returns the folder and the workbook.
fn edited_workbook(tmp: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = tmp.join("nb");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/notebook-with-runs.ron");
    std::fs::copy(fixture, dir.join(store::NOTEBOOK_FILE)).expect("copy");
    let nb = store::load(&dir).expect("loads");
    vernier_engine::documents::export_to(&dir, &nb, None, vernier_engine::documents::Overwrite::Never).expect("export");
    let workbook = dir.join("exports/measurements.xlsx");
    type_into_cell(&workbook, 1, "B8", "22 C");
    type_into_cell(&workbook, 7, "B2", "the fan spun up during run 1");
    (dir, workbook)
}

// SPEC N12: edits typed into the notebook's own measurements.xlsx are
// offered above the section; the dialog lists what is taken in and what
// is refused with why; taking them in saves them into notebook.ron, and the
// offer goes once they are in.
#[test]
fn spreadsheet_edits_are_offered_and_taken_in() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, _) = edited_workbook(tmp.path());
    let mut harness = app_on(dir.clone());
    step_until(&mut harness, "the offer", |app| app.shown.spreadsheet.is_some());
    harness.run();
    harness.get_by_label_contains("measurements.xlsx was edited in a spreadsheet: 1 can be taken in; 1 is refused");
    harness.get_by_label("Take in the 1 edit made in a spreadsheet").click();
    harness.run();
    harness.get_by_label("Will be taken in (1 edit)");
    harness.get_by_label_contains("Environment · Ambient: “” changed to “22 C”");
    harness.get_by_label_contains("Notes and anomalies row 2");
    harness.get_by_label_contains("a note stays as it was written (N5)");
    assert_eq!(store::load(&dir).expect("loads").environment().get(vernier_engine::notebook::EnvField::Ambient), "");
    harness.get_by_label("Take in 1 edit").click();
    step_until(&mut harness, "the take-in", |app| app.dialogs.get::<TakeIn>().is_some_and(|d| d.done.is_some()));
    harness.run();
    let status = harness.state().status.clone();
    assert_eq!(status, Some(("1 edit taken in and saved; 1 refused (listed in the dialog)".to_owned(), false)));
    let on_disk = store::load(&dir).expect("loads");
    assert_eq!(on_disk.environment().get(vernier_engine::notebook::EnvField::Ambient), "22 C");
    assert!(on_disk.notes().iter().any(|n| n.text.contains("22 C")), "the take-in is noted");
    assert_eq!(harness.state().notebook().environment().get(vernier_engine::notebook::EnvField::Ambient), "22 C");
    // A second weighing finds the edit in and the refusal reported: no offer.
    step_until(&mut harness, "the offer to go", |app| app.shown.spreadsheet.is_none());
    harness.get_by_label("Close").click();
    harness.run();
    assert!(harness.query_by_label_contains("made in a spreadsheet").is_none(), "no offer left");
}

// SPEC N12, R1: someone's edited workbook read in Reproduce lists its edits
// as warnings above the plan, and a new notebook made from it holds what
// their log allows; their file is never written.
#[test]
fn a_new_notebook_from_their_edited_workbook() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_, workbook) = edited_workbook(tmp.path());
    let before = std::fs::read(&workbook).expect("read");
    let (_mine_tmp, mut harness) = fixture_app();
    read_their_log(&mut harness, &workbook);
    harness.get_by_label("Make a new notebook from this workbook…");
    harness.get_by_label("1").click();
    harness.run();
    harness.get_by_label_contains("their workbook was edited in a spreadsheet (2 edit(s))");
    harness.get_by_label_contains("Environment row 8 (Ambient), Value: “” -> “22 C”");
    let target = tmp.path().join("new");
    harness.state_mut().apply(super::AppCommand::NewNotebookFrom(target.clone()));
    step_until(&mut harness, "the new notebook", |app| app.doc.dir == target);
    harness.run();
    assert_eq!(harness.state().notebook().environment().get(vernier_engine::notebook::EnvField::Ambient), "22 C");
    assert_eq!(store::load(&target).expect("loads").runs().len(), 2);
    assert_eq!(std::fs::read(&workbook).expect("read"), before, "their workbook is only read");
    assert!(harness.state().dialogs.get::<Reproduce>().is_none());
}

/// The text of every note in notebook.ron as it is on disk.
fn notes_on_disk(dir: &std::path::Path) -> Vec<String> {
    store::load(dir).expect("loads").notes().iter().map(|n| n.text.clone()).collect()
}

// SPEC N10 (finding 5): with the folder's lock held elsewhere the note typed
// cannot be saved; closing the window keeps it in a named recovery file
// beside the notebook instead of dropping it, the file thread commits
// nothing afterwards (no note twice), and applying the file puts it in
// notebook.ron.
#[test]
fn a_change_the_lock_keeps_out_goes_to_a_recovery_file() {
    let (_tmp, dir, _) = new_notebook("Held");
    let mut harness = app_on(dir.clone());
    let held = store::lock(&dir).expect("the test holds the lock");
    harness.state_mut().apply(super::AppCommand::Edit(Edit::AddNote {
        text: "typed while the lock was held".into(),
        at: chrono::Utc::now(),
    }));
    for _ in 0..20 {
        harness.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!harness.state().saved(), "the save waits for the lock");
    assert_eq!(harness.state().unsaved(), 1);
    let kept = harness.state_mut().keep_unsaved(Duration::from_millis(300));
    let path = kept.expect("something was kept").expect("the recovery file is written");
    let name = path.file_name().expect("a name").to_string_lossy().into_owned();
    assert!(name.starts_with("notebook.unsaved-") && name.ends_with(".ron"), "{name}");
    assert_eq!(path.parent(), Some(dir.as_path()), "beside the notebook");
    assert!(harness.state().saved(), "nothing is left unsaved: it is in the file");
    drop(held);
    // The file thread now gets the lock, and must not save the kept note too.
    drop(harness);
    std::thread::sleep(Duration::from_millis(300));
    assert!(notes_on_disk(&dir).is_empty(), "the kept change is not also saved: {:?}", notes_on_disk(&dir));
    let recovered = vernier_engine::notebook::pending::apply_file(&dir, &path).expect("applies");
    assert_eq!(recovered.applied(), 1);
    assert_eq!(notes_on_disk(&dir), ["typed while the lock was held"]);
    assert!(!path.exists() && recovered.kept_as.exists(), "renamed to …applied.ron");
}

/// Where [`keeper_child`] finds the notebook it adds a note to.
const KEEPER_CHILD_DIR: &str = "VERNIER_TEST_KEEPER_CHILD_DIR";

/// The note [`keeper_child`] adds.
const KEPT_NOTE: &str = "typed, then the window was killed";

/// Run by [`a_change_survives_a_sigkill_of_the_window`] in a process of
/// its own (ignored otherwise): a window on the notebook named in
/// [`KEEPER_CHILD_DIR`] adds a note, then keeps drawing frames until it is
/// killed.
#[test]
#[ignore = "a child process of a_change_survives_a_sigkill_of_the_window"]
fn keeper_child() {
    let Some(dir) = std::env::var_os(KEEPER_CHILD_DIR) else { return };
    let mut harness = app_on(dir.into());
    harness
        .state_mut()
        .apply(super::AppCommand::Edit(Edit::AddNote { text: KEPT_NOTE.into(), at: chrono::Utc::now() }));
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        harness.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}

// SPEC N10 (issue 45 item 4): with the folder's lock held elsewhere, a note
// added in the window is in a recovery file as soon as it is made — not
// only at a signal — so a SIGKILL of the window (as a lost display, a panic
// or the OOM killer ends it) loses nothing: the file holds the note, says
// it was written here for this notebook by a process now gone, and
// applying it puts the note in notebook.ron once.
#[cfg(unix)]
#[test]
fn a_change_survives_a_sigkill_of_the_window() {
    use vernier_engine::notebook::pending::{self, Edit, Provenance};
    let (_tmp, dir, _) = new_notebook("Killed");
    let held = store::lock(&dir).expect("the test holds the lock");
    let mut child = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args(["--exact", "gui::tests::keeper_child", "--ignored", "--test-threads=1"])
        .env(KEEPER_CHILD_DIR, &dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the window's process starts");
    let holds_the_note = |path: &std::path::PathBuf| {
        pending::read(path)
            .is_ok_and(|u| u.edits.iter().any(|e| matches!(e, Edit::AddNote { text, .. } if text == KEPT_NOTE)))
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let kept = loop {
        if let Some(path) = pending::pending(&dir).into_iter().find(|p| holds_the_note(p)) {
            break path;
        }
        assert!(Instant::now() < deadline, "no recovery file holds the note while the window runs");
        std::thread::sleep(Duration::from_millis(20));
    };
    let live = pending::read(&kept).expect("reads");
    let notebook = store::load(&dir).expect("loads");
    assert_eq!(Provenance::of(&live, &notebook), Provenance::Running(child.id()), "a live window's file");
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    drop(held);
    assert!(notes_on_disk(&dir).is_empty(), "the window never got the lock");
    let left = pending::read(&kept).expect("the file outlives the window");
    assert_eq!(Provenance::of(&left, &notebook), Provenance::Ours, "its window is gone");
    let recovered = pending::apply_file(&dir, &kept).expect("applies");
    assert_eq!(recovered.applied(), 1);
    assert_eq!(notes_on_disk(&dir), [KEPT_NOTE]);
}

// SPEC N10 (finding 5, second case): with notebook.ron broken on disk a
// note shows "not saved"; once the file is restored, the next save carries
// that note too — it never drops out behind a "✔ saved".
#[test]
fn a_change_that_failed_to_save_is_saved_with_the_next() {
    let (_tmp, dir, _) = new_notebook("Broken");
    let file = dir.join(store::NOTEBOOK_FILE);
    let good = std::fs::read(&file).expect("read");
    let mut harness = app_on(dir.clone());
    std::fs::write(&file, b"(this is not a notebook").expect("break it");
    harness
        .state_mut()
        .apply(super::AppCommand::Edit(Edit::AddNote { text: "first, while broken".into(), at: chrono::Utc::now() }));
    step_until(&mut harness, "the failed save", |app| app.doc.save_error.is_some());
    assert!(!harness.state().saved());
    harness.run();
    assert!(harness.query_by_label_contains("not saved").is_some(), "the status bar says not saved");
    assert!(harness.query_by_label("✔ saved").is_none());
    std::fs::write(&file, &good).expect("restore it");
    harness
        .state_mut()
        .apply(super::AppCommand::Edit(Edit::AddNote { text: "second, once restored".into(), at: chrono::Utc::now() }));
    step_until(&mut harness, "the save", |app| app.saved());
    assert_eq!(notes_on_disk(&dir), ["first, while broken", "second, once restored"]);
    let shown: Vec<_> = harness.state().notebook().notes().iter().map(|n| n.text.clone()).collect();
    assert_eq!(shown, ["first, while broken", "second, once restored"]);
}

// SPEC N10: a failed change can also be discarded by hand; it then leaves
// the window, which shows the notebook as it is on disk.
#[test]
fn a_change_that_failed_to_save_can_be_discarded() {
    let (_tmp, dir, _) = new_notebook("Discard");
    let file = dir.join(store::NOTEBOOK_FILE);
    let good = std::fs::read(&file).expect("read");
    let mut harness = app_on(dir.clone());
    std::fs::write(&file, b"(broken").expect("break it");
    harness
        .state_mut()
        .apply(super::AppCommand::Edit(Edit::AddNote { text: "to be discarded".into(), at: chrono::Utc::now() }));
    step_until(&mut harness, "the failed save", |app| app.doc.save_error.is_some());
    std::fs::write(&file, &good).expect("restore it");
    harness.run();
    harness.get_by_label("Discard unsaved changes").click();
    step_until(&mut harness, "the notebook on disk", |app| app.saved() && app.notebook().notes().is_empty());
    assert!(notes_on_disk(&dir).is_empty());
}

// SPEC N10: opening a notebook with a recovery file pending offers it
// above the section, its changes listed, and "Apply them" puts them in
// notebook.ron under the lock.
#[test]
fn the_window_offers_a_pending_recovery_file() {
    use vernier_engine::notebook::pending::{self, Edit};
    let (_tmp, dir, _) = new_notebook("Offer");
    let at = chrono::Utc::now();
    let edits = vec![Edit::AddNote { text: "kept by an earlier window".into(), at }];
    let nb = store::load(&dir).expect("loads");
    let origin = pending::Origin::here(&dir, &nb.title, nb.created_at, false);
    let path = pending::keep(&dir, &pending::Unsaved::new(edits, "the save failed", at, origin)).expect("kept");
    let mut harness = app_on(dir.clone());
    step_until(&mut harness, "the offer", |app| app.shown.recovery.is_some());
    harness.run();
    harness.get_by_label("Show the changes").click();
    harness.run();
    assert!(harness.query_by_label_contains("kept by an earlier window").is_some(), "its change is listed");
    harness.get_by_label("Apply them").click();
    step_until(&mut harness, "the note applied", |app| {
        app.shown.recovery.is_none() && app.notebook().notes().iter().any(|n| n.text == "kept by an earlier window")
    });
    assert_eq!(notes_on_disk(&dir), ["kept by an earlier window"]);
    assert!(!path.exists(), "no longer pending");
}

// SPEC N10 (issue 45 item 8): a recovery file written on another host is
// offered named as such, with "Apply them anyway", never as this window's
// own; the window's own live file is not offered at all.
#[test]
fn the_window_names_a_recovery_file_from_another_host() {
    use vernier_engine::notebook::pending::{self, Edit};
    let (_tmp, dir, _) = new_notebook("Foreign");
    let at = chrono::Utc::now();
    let nb = store::load(&dir).expect("loads");
    let mut origin = pending::Origin::here(&dir, &nb.title, nb.created_at, false);
    origin.host = "their-laptop".into();
    let edits = vec![Edit::AddNote { text: "planted".into(), at }];
    pending::keep(&dir, &pending::Unsaved::new(edits.clone(), "the save failed", at, origin)).expect("planted");
    // A file this very process keeps while running: not offered.
    let live = pending::Origin::here(&dir, &nb.title, nb.created_at, true);
    pending::keep(&dir, &pending::Unsaved::new(edits, "pending", at, live)).expect("live");
    let mut harness = app_on(dir.clone());
    step_until(&mut harness, "the offer", |app| app.shown.recovery.is_some());
    harness.run();
    harness.get_by_label_contains("written on another host (“their-laptop”)");
    harness.get_by_label("Apply them anyway");
    assert!(harness.query_by_label("Apply them").is_none(), "not offered as our own");
    assert_eq!(harness.state().shown.recovery.as_ref().map(|o| o.found.len()), Some(1), "the live file is not offered");
}

// SPEC N10: closing the window by hand with a change not on disk (the
// folder's lock held elsewhere) asks first; "Keep them in a recovery file
// and close" writes it and names it in the dialog before closing.
#[test]
fn closing_by_hand_with_a_change_not_on_disk_asks_and_names_the_recovery_file() {
    let (_tmp, dir, _) = new_notebook("Close");
    let mut harness = app_on(dir.clone());
    let held = store::lock(&dir).expect("the test holds the lock");
    harness
        .state_mut()
        .apply(super::AppCommand::Edit(Edit::AddNote { text: "typed before closing".into(), at: chrono::Utc::now() }));
    harness.run();
    harness.input_mut().viewports.entry(egui::ViewportId::ROOT).or_default().events.push(egui::ViewportEvent::Close);
    harness.run();
    assert!(harness.query_by_label("Changes not on disk").is_some(), "the window asks before closing");
    harness.get_by_label("Keep them in a recovery file and close").click();
    harness.run();
    let pending = vernier_engine::notebook::pending::pending(&dir);
    assert_eq!(pending.len(), 1, "one recovery file beside the notebook");
    let name = pending[0].file_name().expect("name").to_string_lossy().into_owned();
    assert!(harness.query_by_label_contains(&name).is_some(), "the dialog names {name}");
    let kept = vernier_engine::notebook::pending::read(&pending[0]).expect("reads");
    assert!(
        matches!(&kept.edits[..], [vernier_engine::notebook::pending::Edit::AddNote { text, .. }] if text == "typed before closing")
    );
    drop(held);
}

// SPEC N10: a save waiting for the folder's lock is said in the status bar
// with the holder (here this process, named by its line in the lock file),
// and the words go once the lock is free and the change is on disk. It is
// said in its own window even when a second window opened after it in the
// same process (as the other tests' windows do).
#[test]
fn a_save_waiting_for_the_lock_is_said_in_the_status_bar() {
    let (_tmp, dir, _) = new_notebook("Waiting");
    let mut harness = app_on(dir.clone());
    let (_other_tmp, other_dir, _) = new_notebook("Another window");
    let _other = app_on(other_dir);
    let held = store::lock(&dir).expect("the test holds the lock");
    harness.state_mut().apply(super::AppCommand::Edit(Edit::AddNote {
        text: "typed while the lock was held".into(),
        at: chrono::Utc::now(),
    }));
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while harness.query_by_label_contains("saving waits for the notebook's lock").is_none() {
        assert!(std::time::Instant::now() < deadline, "the wait was never said");
        harness.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = format!("pid {}", std::process::id());
    assert!(
        harness.query_by_label_contains(&pid).is_some(),
        "the holder is named: {:?}",
        harness.state().files.lock_wait.shown()
    );
    drop(held);
    step_until(&mut harness, "the save", |app| app.saved());
    harness.run();
    assert!(harness.query_by_label_contains("saving waits").is_none(), "the words go with the wait");
    assert_eq!(notes_on_disk(&dir), ["typed while the lock was held"]);
}

// SPEC D2, A16 (issue 35): the Documents section counts what `vernier write`
// lists — prompts neither written nor marked not part — and a document
// marked not part says so instead of a count.
#[test]
fn the_documents_counts_are_the_command_lines() {
    let (_tmp, dir, mut nb) = new_notebook("Counts");
    let report = vernier_engine::documents::prompts(Document::Report);
    nb.set_answer("report.docx", report[0], "Memory-bound: the chase is 20× the sequential scan.");
    nb.set_answer("report.docx", report[1], "Medium.");
    nb.set_not_part("report.docx", report[2], "no energy counter on this machine").expect("mark");
    let threat = Document::ThreatModel.stem();
    nb.set_not_part(threat, vernier_engine::notebook::WHOLE_DOCUMENT, "not asked this term").expect("mark");
    store::replace(&dir, &nb).expect("save");
    let mut harness = app_on(dir);
    harness.get_by_label("Documents").click();
    harness.run();
    harness.get_by_label(&format!("report.docx · {} to write", report.len() - 3));
    harness.get_by_label(&format!("{threat} · not part of this submission"));
    let soc = vernier_engine::documents::prompts(Document::SocReview).len();
    harness.get_by_label(&format!("{} · {soc} to write", Document::SocReview.stem()));
}

// SPEC N14, U2: a prediction is answered in one action from its run's
// context, and the Predictions section shows the outcome at a glance: its
// mark and exactly the sentence the CLI prints (S17).
#[test]
fn a_prediction_is_answered_from_a_run() {
    use vernier_engine::notebook::{Committed, NewPair, PredictionText};
    use vernier_engine::stats::{Spread, Summary, compare};
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    let start = chrono::Utc::now();
    let mut nb = store::create(&dir, "Answered", start).expect("create");
    let text = PredictionText {
        experiment: "naive vs blocked".into(),
        predict: "blocked about 3× faster".into(),
        why: "each line used 8 times".into(),
        figure: Committed::parse("ratio naive/blocked = 3 ± 50 %").ok(),
    };
    nb.add_prediction(text, start).expect("P1");
    let at = start + chrono::Duration::seconds(1);
    let mut a = measured("blocked", &["./blocked"]);
    a.summary = Summary::of(&[0.004, 0.0045, 0.005]).expect("summary");
    let mut b = measured("naive", &["./naive"]);
    b.summary = Summary::of(&[0.010, 0.011, 0.012]).expect("summary");
    let verdict =
        compare(Spread::from(&a.summary), Spread::from(&b.summary), ("blocked", "naive"), "median wall time", "s");
    let runs = [nb.record_run(a, at), nb.record_run(b, at)];
    let pair = NewPair {
        what: "naive vs blocked".into(),
        labels: ["blocked".into(), "naive".into()],
        verdict,
        paired: None,
        order: None,
    };
    nb.record_pair(pair, runs, at).expect("a pair");
    store::replace(&dir, &nb).expect("save");

    let mut harness = app_on(dir.clone());
    harness.get_by_label("Predictions  (1)").click();
    harness.run();
    harness.get_by_label("not answered yet");
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    harness.get_by_label("C1 A").click();
    harness.run();
    harness.get_by_label("Answers a prediction (C1)…").click();
    harness.run();
    harness.get_by_label("P1 — ratio naive/blocked = 3 ± 50 %").click();
    harness.run();
    step_until(&mut harness, "the answer to be saved", |app| app.saved() && !app.notebook().answers().is_empty());
    harness.get_by_label("Predictions  (1)").click();
    harness.run();
    // SPEC S17 (issue 49 item 8): the window shows the CLI's sentence.
    harness.get_by_label("C1: held (observed 2.4×)");
    let on_disk = store::load(&dir).expect("reload");
    assert_eq!(on_disk.outcome_text(1), "C1: held (observed 2.4×)");
    assert!(on_disk.integrity().is_empty(), "answering touched no seal");
}

/// Their notebook in `dir` with one row per recipe, each `(build command,
/// program)` run in `project` on `project/prog.c` with `cc` (SPEC N15):
/// one recipe, a row alone; two, a comparison whose arms each have their
/// own. `None` where no `cc` is installed.
fn their_recipe_rows(dir: &std::path::Path, project: &std::path::Path, recipes: &[(&str, &str)]) -> Option<()> {
    use std::sync::{Arc, atomic::AtomicBool};
    use vernier_engine::harness::{self, BenchSpec, BuildStep, Subject};
    use vernier_engine::notebook::WarmupPolicy;
    if !std::process::Command::new("cc").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("cc is not installed here: the rebuild test needs a C compiler and is skipped");
        return None;
    }
    std::fs::create_dir_all(project).expect("project");
    std::fs::write(project.join("prog.c"), "int main(void) { return 0; }\n").expect("source");
    let mut nb = store::create(dir, "Their project", chrono::Utc::now()).expect("create");
    let arms = recipes
        .iter()
        .map(|(_, program)| Subject::Command { argv: vec![project.join(program).display().to_string()], shell: false })
        .collect();
    let mut spec = BenchSpec::new(arms);
    spec.runs = 5;
    spec.warmup = WarmupPolicy::Count(1);
    let steps: Vec<BuildStep> =
        recipes.iter().map(|(text, _)| BuildStep::new(text, false, Vec::new()).expect("recipe")).collect();
    match steps.as_slice() {
        [one] => spec.recipe = Some(one.clone()),
        [a, b] => spec.arm_recipes = [Some(a.clone()), Some(b.clone())],
        _ => panic!("one recipe, or one per arm of a comparison"),
    }
    spec.folder = Some(project.to_path_buf());
    let result = harness::run_bench(&spec, &Arc::new(AtomicBool::new(false)), &mut |_| {}).expect("bench");
    harness::record(dir, &mut nb, &result, chrono::Utc::now()).expect("record");
    store::replace(dir, &nb).expect("save");
    Some(())
}

// SPEC R5, N13, U: the Reproduce dialog shows their recipe and the
// compilers side by side; with the rebuild ticked, the plan shows the build
// as it will run, and on confirmation their sources are written into a
// scratch folder, the recipe runs there and the rebuilt program is rerun
// and recorded with the recipe — their folder untouched, the project gone.
#[test]
fn reproduce_rebuilds_from_their_sources_on_confirmation() {
    let tmp = tempfile::tempdir().expect("tmp");
    let theirs = tmp.path().join("theirs");
    let project = tmp.path().join("project");
    if their_recipe_rows(&theirs, &project, &[("cc -O2 prog.c -o prog", "prog")]).is_none() {
        return;
    }
    std::fs::remove_dir_all(&project).expect("their project is gone");
    let before = std::fs::read(theirs.join(store::NOTEBOOK_FILE)).expect("read");
    let mine = tmp.path().join("mine");
    store::create(&mine, "Mine", chrono::Utc::now()).expect("create");
    let mut harness = app_on(mine.clone());
    harness.set_size(egui::vec2(1280.0, 800.0));
    read_their_row(&mut harness, &theirs);
    harness.get_by_label("Their build recipe");
    let compiler = {
        let dialog = harness.state().dialogs.get::<Reproduce>().expect("dialog");
        let Some(Ok(log)) = &dialog.log else { panic!("their log") };
        log.rows[0].0.recipe.as_ref().expect("their recipe").compiler.clone()
    };
    // SPEC N13: their compiler, and the one here asked only after the yes.
    assert_eq!(harness.get_all_by_label(&compiler).count(), 1, "their compiler");
    harness.get_by_label("asked after you agree");
    harness.get_by_label("Rebuild it from their sources first (in a scratch folder of yours)").click();
    harness.run();
    harness.get_by_label_contains("build (runs first in ");
    harness.get_by_label_contains(": cc -O2 prog.c -o prog");
    // SPEC N13 (issue 45, finding 2): Read ran no compiler of theirs.
    harness.get_by_label_contains("compiler here: asked after you agree");
    harness.get_by_label_contains("confinement: ");
    run_it_here(&mut harness);
    let back = store::load(&mine).expect("mine reloads");
    let recipe = back.runs()[0].measurement.recipe.as_ref().expect("the rerun keeps the recipe");
    assert_eq!(recipe.command(), "cc -O2 prog.c -o prog");
    assert_eq!(recipe.rebuilt_from.as_ref().map(|r| r.compiler.as_str()), Some(compiler.as_str()));
    // The same cc on the same source, without -g: the same program.
    harness.get_by_label_contains("the same binary as theirs");
    assert_eq!(std::fs::read(theirs.join(store::NOTEBOOK_FILE)).expect("read"), before, "theirs is never written");
}

// SPEC R5, N13, U: a comparison whose arms two recipes built shows one
// table per arm's recipe with the compilers side by side; ticked, the plan
// shows both builds as they will run, and on confirmation both are rebuilt
// in one scratch folder and rerun interleaved, recorded as a comparison
// whose rows each keep their recipe and both compilers, named as theirs.
#[test]
fn reproduce_rebuilds_each_arm_from_its_own_recipe() {
    let tmp = tempfile::tempdir().expect("tmp");
    let theirs = tmp.path().join("theirs");
    let project = tmp.path().join("project");
    let recipes = [("cc -O2 prog.c -o fast", "fast"), ("cc -O0 prog.c -o slow", "slow")];
    if their_recipe_rows(&theirs, &project, &recipes).is_none() {
        return;
    }
    std::fs::remove_dir_all(&project).expect("their project is gone");
    let mine = tmp.path().join("mine");
    store::create(&mine, "Mine", chrono::Utc::now()).expect("create");
    let mut harness = app_on(mine.clone());
    read_their_row(&mut harness, &theirs);
    harness.get_by_label("Their build recipe (arm A)");
    harness.get_by_label("Their build recipe (arm B)");
    let (compilers, names) = {
        let dialog = harness.state().dialogs.get::<Reproduce>().expect("dialog");
        let Some(Ok(log)) = &dialog.log else { panic!("their log") };
        let arms = log.rows[0].0.arms();
        let compilers: Vec<String> =
            arms.iter().map(|o| o.recipe.as_ref().expect("a recipe per arm").compiler.clone()).collect();
        (compilers, arms.iter().map(|o| o.what.clone()).collect::<Vec<_>>())
    };
    // Each table: their compiler; the one here is asked after the yes.
    assert_eq!(harness.get_all_by_label(&compilers[0]).count(), 2, "two tables, theirs in each");
    assert_eq!(harness.get_all_by_label("asked after you agree").count(), 2);
    harness.get_by_label("Rebuild it from their sources first (in a scratch folder of yours)").click();
    harness.run();
    harness.get_by_label_contains("build A (runs first in ");
    harness.get_by_label_contains(": cc -O2 prog.c -o fast");
    harness.get_by_label_contains("build B (runs first in ");
    harness.get_by_label_contains(": cc -O0 prog.c -o slow");
    run_it_here(&mut harness);
    let back = store::load(&mine).expect("mine reloads");
    assert_eq!(back.runs().len(), 2, "both arms rerun");
    assert_eq!(back.pairs().len(), 1, "recorded as a comparison");
    for (i, (run, (text, _))) in back.runs().iter().zip(recipes).enumerate() {
        let recipe = run.measurement.recipe.as_ref().expect("each arm keeps its recipe");
        assert_eq!(recipe.command(), text);
        assert_eq!(recipe.rebuilt_from.as_ref().map(|r| r.compiler.as_str()), Some(compilers[i].as_str()));
        assert!(!recipe.compiler.is_empty(), "the compiler here");
        assert_eq!(run.measurement.what, names[i], "named as their row");
    }
    assert_eq!(harness.get_all_by_label_contains("the same binary as theirs").count(), 2);
}

// SPEC N15, U3: the New run dialog's Build becomes a recipe Vernier runs
// first when its tick is set: the run's spec then carries the build step
// (split into words, no shell) instead of a stated build.
#[test]
fn new_run_build_can_be_a_recipe() {
    use super::new_run::NewRunForm;
    let (_tmp, mut harness) = fixture_app();
    harness.state_mut().dialogs.open(NewRunForm {
        kernel_mode: false,
        command: "./mm 10".into(),
        build: "g++ -O2 mm.cpp -o mm".into(),
        ..NewRunForm::default()
    });
    harness.run();
    let stated = harness.state().dialogs.get::<NewRunForm>().cloned().expect("open").spec().expect("valid");
    assert_eq!((stated.build.as_deref(), stated.recipe.is_some()), (Some("g++ -O2 mm.cpp -o mm"), false));
    harness.get_by_label("Vernier runs it first (a recipe: g++ -O2 mm.cpp -o mm)").click();
    harness.run();
    let spec = harness.state().dialogs.get::<NewRunForm>().cloned().expect("open").spec().expect("valid");
    assert_eq!(spec.build, None, "the recipe is the build, filled in as it ran");
    let recipe = spec.recipe.expect("a recipe");
    assert_eq!(recipe.argv, ["g++", "-O2", "mm.cpp", "-o", "mm"]);
    assert!(!recipe.shell);
}

// SPEC T5, T12, N9 (issue 49 item 9): a soak whose opening (P) window holds
// the start-up ramp is marked on its chart, and the chart says the power
// source its file's sensor read beside the one the notebook stated, each
// labelled.
#[test]
fn a_soak_chart_marks_a_ramp_and_says_both_power_sources() {
    use vernier_engine::notebook::SoakProtocol;
    use vernier_engine::soak::{file, load::SoakOutcome, record};
    let (_tmp, dir, mut nb) = new_notebook("Ramped");
    nb.set_environment("Power source", "mains (wall socket)").expect("stated");
    let csv = record::raw_path(&dir, &nb);
    let shipped = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../datasets/thermal-soak.csv"))
        .expect("the shipped soak");
    // Its first 20 s ramp up (scores well below the rest): the T1 opening
    // window then holds the ramp.
    let ramped: Vec<String> = shipped
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            match fields.first().and_then(|t| t.parse::<f64>().ok()) {
                Some(t) if t <= 20.0 && fields.len() == 6 => {
                    let score: f64 = fields[5].parse().expect("a score");
                    format!("{},{}", fields[..5].join(","), score * (0.3 + t / 30.0))
                }
                _ => line.to_owned(),
            }
        })
        .collect();
    std::fs::write(&csv, ramped.join("\n") + "\n").expect("the ramped soak");
    let outcome =
        SoakOutcome { samples: 61, chunk_steps: 1, chunk_ms: 1.0, placeholders: vec![], workers: 1, cancelled: false };
    let finished = record::finish(&csv, SoakProtocol::default(), &outcome).expect("read back");
    assert!(matches!(record::add_row(&mut nb, &dir, &finished, chrono::Utc::now()), record::Added::Soak(1)));
    store::replace(&dir, &nb).expect("save");
    let soak = nb.soaks()[0].clone();

    let view = super::plots::SoakView::new("S1".into(), &file::read(&csv).expect("the file"));
    let reading = view.reading(Some(&soak));
    assert!(
        reading.analysis.as_ref().is_ok_and(|a| a.ramp_warning.is_some()),
        "the fixture's opening window holds a ramp"
    );
    let caption = super::plots::soak_caption(&view, &reading);
    assert!(caption.contains("power source read by the sensor: mains (modeled)"), "{caption}");
    assert!(caption.contains("power source stated in the notebook: mains (wall socket)"), "{caption}");

    let mut harness = app_on(dir);
    harness.get_by_label("Soak runs  (1)").click();
    harness.run();
    harness.get_by_label("S1").click();
    step_until(&mut harness, "the soak's chart", |app| app.views.soaks.soak.is_some());
    harness.run();
    // The mark's legend entry beside the chart (egui_plot names it there).
    harness.get_by_label(super::plots::RAMP_MARK);
}

/// Where [`read_probe_child`] works: a folder holding `bin/rustc` (a
/// planted compiler that leaves `PROBED` when asked anything but a build),
/// their project and the two notebooks.
const READ_PROBE_CHILD_DIR: &str = "VERNIER_TEST_READ_PROBE_CHILD_DIR";

/// Run by [`the_window_s_read_runs_no_compiler_of_theirs`] in a process of
/// its own whose PATH starts with the planted `rustc` (ignored otherwise):
/// their row is built by a recipe through that compiler, then the window
/// reads it, picks it and ticks the rebuild, and nothing may have run it.
#[test]
#[ignore = "a child process of the_window_s_read_runs_no_compiler_of_theirs"]
fn read_probe_child() {
    use std::sync::{Arc, atomic::AtomicBool};
    use vernier_engine::harness::{self, BenchSpec, BuildStep, Subject};
    use vernier_engine::notebook::WarmupPolicy;
    let Some(root) = std::env::var_os(READ_PROBE_CHILD_DIR).map(std::path::PathBuf::from) else { return };
    let [theirs, project, mine, marker] = ["theirs", "project", "mine", "PROBED"].map(|n| root.join(n));
    std::fs::create_dir_all(&project).expect("project");
    std::fs::write(project.join("m.rs"), "#!/bin/sh\nexit 0\n").expect("source");
    let mut nb = store::create(&theirs, "Their project", chrono::Utc::now()).expect("create");
    let mut spec =
        BenchSpec::new(vec![Subject::Command { argv: vec![project.join("mm").display().to_string()], shell: false }]);
    spec.runs = 3;
    spec.warmup = WarmupPolicy::Count(0);
    spec.recipe = Some(BuildStep::new("rustc m.rs -o mm", false, Vec::new()).expect("recipe"));
    spec.folder = Some(project.clone());
    let result = harness::run_bench(&spec, &Arc::new(AtomicBool::new(false)), &mut |_| {}).expect("their bench");
    harness::record(&theirs, &mut nb, &result, chrono::Utc::now()).expect("record");
    store::replace(&theirs, &nb).expect("save");
    // Their own bench asked its compiler; from here on nothing may.
    let _ = std::fs::remove_file(&marker);
    store::create(&mine, "Mine", chrono::Utc::now()).expect("create");
    let mut window = app_on(mine);
    window.set_size(egui::vec2(1280.0, 800.0));
    read_their_log(&mut window, &theirs);
    assert!(!marker.exists(), "Read, with no row picked, ran their PATH's rustc");
    window.get_by_label("1").click();
    window.run();
    window.get_by_label("Rebuild it from their sources first (in a scratch folder of yours)").click();
    window.run();
    window.get_by_label_contains("compiler here: asked after you agree");
    assert!(!marker.exists(), "the rebuild's plan ran their PATH's rustc");
}

// SPEC N13, R5 (issue 45, finding 2 — the window's half): with a `rustc`
// planted first on PATH (as a toolchain file in their tree would plant
// it), the Reproduce dialog's Read, picking their row and ticking the
// rebuild run nothing of theirs: the planted compiler's marker stays
// absent until the user agrees. In a child process, so PATH is its own.
#[cfg(unix)]
#[test]
fn the_window_s_read_runs_no_compiler_of_theirs() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().expect("tmp");
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let rustc = bin.join("rustc");
    let marker = tmp.path().join("PROBED");
    std::fs::write(
        &rustc,
        format!(
            "#!/bin/sh\ncase \"$1\" in -*) touch '{}'; echo 'rustc 0.0.0 (planted)'; exit 0;; esac\n\
             cp \"$1\" \"$3\" && chmod +x \"$3\"\n",
            marker.display()
        ),
    )
    .expect("planted rustc");
    std::fs::set_permissions(&rustc, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = std::env::join_paths(
        std::iter::once(bin.clone()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("PATH");
    let out = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args(["--exact", "gui::tests::read_probe_child", "--ignored", "--test-threads=1"])
        .env(READ_PROBE_CHILD_DIR, tmp.path())
        .env("PATH", path)
        .output()
        .expect("the window's process runs");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");
    assert!(said.contains("1 passed"), "the child ran the test: {said}");
    assert!(tmp.path().join("theirs").join(store::NOTEBOOK_FILE).exists(), "their notebook was made: {said}");
}

/// Where [`storm_window_child`] writes, and the name its notes carry.
const STORM_CHILD_DIR: &str = "VERNIER_TEST_STORM_CHILD_DIR";
const STORM_CHILD_NAME: &str = "VERNIER_TEST_STORM_CHILD_NAME";

/// Run by [`a_storm_of_killed_windows_loses_no_note_and_adds_none_twice`]
/// in a process of its own (ignored otherwise): a window adding notes
/// “NAME note I” one after another, printing `ACK I` once each is saved
/// (the moment the window says so), until it is killed.
#[test]
#[ignore = "a child process of a_storm_of_killed_windows_loses_no_note_and_adds_none_twice"]
fn storm_window_child() {
    use std::io::Write as _;
    let (Some(dir), Some(name)) = (std::env::var_os(STORM_CHILD_DIR), std::env::var(STORM_CHILD_NAME).ok()) else {
        return;
    };
    // Written straight to stdout (libtest captures `println!`), a line at a time.
    let say = |line: &str| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };
    let mut harness = app_on(dir.into());
    say("READY");
    for i in 0.. {
        harness
            .state_mut()
            .apply(super::AppCommand::Edit(Edit::AddNote { text: format!("{name} note {i}"), at: chrono::Utc::now() }));
        step_until(&mut harness, "the note's save", VernierApp::saved);
        say(&format!("ACK {i}"));
    }
}

// SPEC N10, N1 (issue 45 item 4, "the storms, rerun"): windows adding
// notes are SIGKILLed at random moments — while saving, waiting for the
// lock, or between a save and their keeper's rewrite — beside another
// writer, with the journal folded after every change and the lock file
// deleted again and again. Once every recovery file the dead windows
// left is applied, each note a window said was saved is in the notebook
// exactly once, no note is there twice, and the seals are whole.
#[cfg(unix)]
#[test]
fn a_storm_of_killed_windows_loses_no_note_and_adds_none_twice() {
    use std::collections::BTreeMap;
    use std::io::BufRead as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use vernier_engine::notebook::pending;
    let (_tmp, dir, _) = new_notebook("Storm");
    let done = Arc::new(AtomicBool::new(false));
    let acked: Arc<Mutex<BTreeMap<String, Vec<u32>>>> = Arc::default();
    let lock = dir.join(".vernier.lock");
    let attacker = {
        let done = Arc::clone(&done);
        std::thread::Builder::new()
            .name("lock-attacker".into())
            .spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    let _ = std::fs::remove_file(&lock);
                    std::thread::sleep(Duration::from_millis(41));
                }
            })
            .expect("the attacker's thread")
    };
    let writer = {
        let (done, dir) = (Arc::clone(&done), dir.clone());
        std::thread::Builder::new()
            .name("other-writer".into())
            .spawn(move || {
                let mut n = 0u32;
                while !done.load(Ordering::Relaxed) {
                    let text = format!("writer note {n}");
                    if store::change(&dir, |nb| nb.add_note(&text, chrono::Utc::now())).is_ok() {
                        n += 1;
                    }
                    // Holding the lock a while, as a long save would, so the
                    // windows' notes wait unsaved most of the time.
                    if let Ok(held) = store::lock(&dir) {
                        std::thread::sleep(Duration::from_millis(120));
                        drop(held);
                    }
                    std::thread::sleep(Duration::from_millis(30));
                }
                n
            })
            .expect("the writer's thread")
    };
    // A cheap, seeded spread of kill delays (0.05–2 s after the window is up).
    let mut seed = 0x9e37_79b9_u64;
    let mut next_delay = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        Duration::from_millis(50 + seed % 1950)
    };
    let storm_ends = Instant::now() + Duration::from_secs(20);
    let (mut windows, mut held_kills) = (0, 0);
    while Instant::now() < storm_ends {
        let name = format!("window {windows}");
        windows += 1;
        let mut child = std::process::Command::new(std::env::current_exe().expect("this test binary"))
            .args(["--exact", "gui::tests::storm_window_child", "--ignored", "--test-threads=1"])
            .env(STORM_CHILD_DIR, &dir)
            .env(STORM_CHILD_NAME, &name)
            .env("VERNIER_COMPACT_AT", "1")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("a window's process starts");
        let stdout = child.stdout.take().expect("piped");
        let (ready, started) = std::sync::mpsc::sync_channel(1);
        let reader = {
            let (acked, name) = (Arc::clone(&acked), name.clone());
            std::thread::Builder::new()
                .name("window-reader".into())
                .spawn(move || {
                    for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                        // libtest's "test … ... " line has no end yet: READY ends it.
                        if line.ends_with("READY") {
                            let _ = ready.try_send(());
                        } else if let Some(i) = line.strip_prefix("ACK ").and_then(|i| i.parse().ok()) {
                            acked.lock().expect("acks").entry(name.clone()).or_default().push(i);
                        }
                    }
                })
                .expect("the reader's thread")
        };
        // Killed a while after its window is up, however slow the start:
        // every other one while this test holds the lock, so its next note
        // is surely unsaved (and kept by its keeper), the others wherever
        // the kill lands — mid-save, mid-compaction, between a save and
        // the keeper's rewrite.
        let _ = started.recv_timeout(Duration::from_secs(60));
        std::thread::sleep(next_delay());
        let held = (windows % 2 == 0).then(|| store::lock(&dir).expect("the test takes the lock"));
        if held.is_some() {
            std::thread::sleep(Duration::from_millis(300));
            held_kills += 1;
        }
        child.kill().expect("SIGKILL");
        drop(held);
        child.wait().expect("reaped");
        reader.join().expect("reader");
    }
    done.store(true, Ordering::Relaxed);
    attacker.join().expect("attacker");
    let writer_notes = writer.join().expect("the other writer");
    let before_recovery = store::load(&dir).expect("loads").notes().len();
    for path in pending::pending(&dir) {
        pending::apply_file(&dir, &path).expect("a dead window's recovery file applies");
    }
    let notebook = store::load(&dir).expect("loads");
    assert!(notebook.integrity().is_empty(), "seals whole: {:?}", notebook.integrity());
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for n in notebook.notes() {
        *count.entry(n.text.as_str()).or_default() += 1;
    }
    let twice: Vec<_> = count.iter().filter(|(_, c)| **c > 1).collect();
    assert!(twice.is_empty(), "notes added twice: {twice:?}");
    let acked = acked.lock().expect("acks");
    let said_saved: usize = acked.values().map(Vec::len).sum();
    let lost: Vec<String> = acked
        .iter()
        .flat_map(|(name, is)| is.iter().map(move |i| format!("{name} note {i}")))
        .filter(|text| !count.contains_key(text.as_str()))
        .collect();
    assert!(lost.is_empty(), "notes a window said were saved are gone: {lost:?}");
    assert!(said_saved > 0, "no window saved a note in the storm ({windows} windows)");
    // A window types its next note only once the last is saved, so a kill
    // leaves at most that one unsaved, and its keeper had it in a recovery
    // file (a kill within the keeper's millisecond may miss it).
    for w in 0..windows {
        let name = format!("window {w}");
        let next = acked.get(&name).and_then(|is| is.iter().max()).map_or(0, |i| i + 1);
        let never_typed: Vec<&&str> = count
            .keys()
            .filter(|t| t.strip_prefix(&format!("{name} note ")).and_then(|i| i.parse::<u32>().ok()) > Some(next))
            .collect();
        assert!(never_typed.is_empty(), "notes {name} never typed: {never_typed:?}");
    }
    let recovered = notebook.notes().len() - before_recovery;
    assert!(
        recovered * 2 >= held_kills,
        "only {recovered} unsaved notes came back from the recovery files of {held_kills} windows killed while \
         they waited for the lock"
    );
    eprintln!(
        "{windows} windows killed, {said_saved} notes acknowledged by them, {recovered} unsaved ones recovered, \
         {writer_notes} by the other writer, {} in the notebook",
        notebook.notes().len()
    );
}

// Issue 46: a dialog is its file in gui/dialogs/ plus its line in
// `dialogs!`. A file without its line is never compiled, which the compiler
// cannot see; this finds it.
#[test]
fn every_dialog_file_has_its_line() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gui/dialogs");
    let mut files: Vec<String> = std::fs::read_dir(&folder)
        .expect("gui/dialogs/ is read")
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".rs").map(str::to_owned))
        .filter(|name| name != "mod")
        .collect();
    files.sort();
    let mut declared: Vec<String> = super::dialogs::MODULES.iter().map(|m| (*m).to_owned()).collect();
    declared.sort();
    assert!(files.len() >= 5, "the dialogs are read: {files:?}");
    assert_eq!(files, declared, "each file in gui/dialogs/ has its line in dialogs! (gui/dialogs/mod.rs)");
}

// SPEC U5 (issue 46): the menu's dialog entries and their keys come from the
// dialogs' registry: each opens its own dialog, Ctrl+Shift+R the Reproduce
// dialog and not the New run one that Ctrl+R opens.
#[test]
fn the_menu_and_the_keys_open_the_registered_dialogs() {
    use super::dialogs::pick::PathPrompt;
    let (_tmp, mut harness) = fixture_app();
    let press = |harness: &mut Harness<'static, VernierApp>, modifiers: egui::Modifiers, key: egui::Key| {
        harness.key_press_modifiers(modifiers, key);
        harness.run();
    };
    press(&mut harness, egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::R);
    assert!(harness.state().dialogs.is_open::<Reproduce>(), "Ctrl+Shift+R opens the Reproduce dialog");
    assert!(!harness.state().dialogs.is_open::<NewRunForm>(), "and not the New run dialog");
    press(&mut harness, egui::Modifiers::COMMAND, egui::Key::R);
    assert!(harness.state().dialogs.is_open::<NewRunForm>(), "Ctrl+R opens the New run dialog");
    press(&mut harness, egui::Modifiers::COMMAND, egui::Key::I);
    assert!(harness.state().dialogs.is_open::<ImportForm>(), "Ctrl+I opens the import dialog");

    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label("Open or create by path…").click();
    harness.run();
    assert!(harness.state().dialogs.is_open::<PathPrompt>(), "File › Open or create by path… opens its prompt");
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Run").click();
    harness.run();
    // An entry's label ends with its keys.
    harness.get_by_label("Add run from numbers… Ctrl+I").click();
    harness.run();
    assert!(harness.state().dialogs.is_open::<ImportForm>(), "Run › Add run from numbers… opens the import dialog");
}

// Issue 46: a section is its file in gui/views/ plus its line in
// `sections!`. A file no line declares is never compiled, which the
// compiler cannot see; this finds it.
#[test]
fn every_view_file_has_its_line() {
    let declared = include_str!("views/mod.rs");
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gui/views");
    let files: Vec<String> = std::fs::read_dir(&folder)
        .expect("gui/views/ is read")
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".rs").map(str::to_owned))
        .filter(|name| name != "mod")
        .collect();
    assert!(files.len() >= 7, "the views are read: {files:?}");
    for name in files {
        let line = declared
            .lines()
            .any(|l| l.trim().ends_with(&format!("=> {name},")) || l.trim().ends_with(&format!("mod {name};")));
        assert!(line, "gui/views/{name}.rs has no line in sections! (nor a `mod {name};`) in gui/views/mod.rs");
    }
}
