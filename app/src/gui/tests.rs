//! The window driven like a user would, without a GPU (egui_kittest).

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use vernier_engine::notebook::store;

use super::VernierApp;

fn fixture_app() -> (tempfile::TempDir, Harness<'static, VernierApp>) {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/notebook-with-runs.ron");
    std::fs::copy(fixture, dir.join(store::NOTEBOOK_FILE)).expect("copy");
    let notebook = store::load(&dir).expect("fixture loads");
    let harness =
        Harness::builder().with_size(egui::vec2(1100.0, 700.0)).build_eframe(|_cc| VernierApp::new(dir, notebook));
    (tmp, harness)
}

// SPEC U1, N2: the side bar lists the five sections; the Environment opens
// first with the course's field names.
#[test]
fn opens_on_the_environment() {
    let (_tmp, harness) = fixture_app();
    for section in ["Predictions  (1)", "Runs  (2)", "Soak runs  (0)", "Notes and anomalies  (1)"] {
        harness.get_by_label(section);
    }
    // In the side bar and as the heading of the open section.
    assert_eq!(harness.get_all_by_label("Environment").count(), 2);
    harness.get_by_label("Power source");
    harness.get_by_label("mains");
}

// SPEC U1, N2, S6: clicking Runs shows the rows with rounded figures.
#[test]
fn clicking_runs_shows_the_rows() {
    let (_tmp, mut harness) = fixture_app();
    assert!(harness.query_by_label("matmul ikj, N=512").is_none());
    harness.get_by_label("Runs  (2)").click();
    harness.run();
    harness.get_by_label("n (warm-up + timed)");
    harness.get_by_label("matmul ikj, N=512");
    harness.get_by_label("12.40 ms");
    harness.get_by_label("IQR 0.15 ms");
}

// SPEC U2, N4: a prediction followed by a run shows its lock.
#[test]
fn locked_prediction_shows_a_lock() {
    let (_tmp, mut harness) = fixture_app();
    harness.get_by_label("Predictions  (1)").click();
    harness.run();
    harness.get_by_label("🔒 P1");
    harness.get_by_label("ikj about 3x faster");
}
