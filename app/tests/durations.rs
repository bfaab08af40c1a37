//! Every duration option as a user types it (SPEC C): bad input is bad
//! usage — exit 2 with the allowed range — never a panic (issue 31,
//! finding 7: `Duration::from_secs_f64` exited 101 on `1e300`).

use crate::common;
use common::{text, vernier};

/// Runs `args`, which must be refused as bad usage naming `range`.
fn refused(args: &[&str], range: &str) {
    let o = vernier(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(said.contains(range), "{args:?}: {said}");
    assert!(!said.contains("panicked"), "{args:?}: {said}");
}

// SPEC C, E1: `bench --timeout 1e300` is bad usage with the range.
#[test]
fn a_huge_timeout_is_bad_usage() {
    refused(&["bench", "-n", "1", "--timeout", "1e300", "--", "true"], "from 0.001 to 86400 (1 day)");
}

// SPEC C, E6: `bench --cooldown 1e300` likewise.
#[test]
fn a_huge_cooldown_is_bad_usage() {
    refused(&["bench", "-n", "1", "--cooldown", "1e300", "--", "true"], "from 0.001 to 3600 (1 hour)");
}

// SPEC C, T1: `soak run --duration 1e300` likewise, before anything is written.
#[test]
fn a_huge_soak_duration_is_bad_usage() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("soak.csv");
    let out = out.display().to_string();
    refused(&["soak", "run", "--duration", "1e300", "--out", &out], "a soak's duration is a number of seconds");
    assert!(!tmp.path().join("soak.csv").exists());
}

// SPEC C: negative, NaN, infinite, empty and garbage values of every
// duration option are refused the same way.
#[test]
fn every_duration_option_refuses_bad_values() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("soak.csv").display().to_string();
    let csv = tmp.path().join("none.csv").display().to_string();
    for bad in ["-1", "NaN", "inf", "", "soon", "0", "1e300"] {
        // `--option=VALUE`: how a value starting with '-' is given at all.
        let given = |option: &str| format!("{option}={bad}");
        refused(&["bench", "-n", "1", &given("--timeout"), "--", "true"], "a trial's timeout");
        refused(&["bench", "-n", "1", &given("--cooldown"), "--", "true"], "the cool-down");
        refused(&["soak", "run", &given("--interval"), "--out", &out], "a soak's sampling interval");
        refused(&["soak", "analyze", &csv, &given("--window")], "a soak's opening window");
        refused(&["soak", "analyze", &csv, &given("--tail")], "a soak's tail window");
        refused(&["soak", "analyze", &csv, &given("--course-window")], "the course tool's opening window");
        let predict = ["predict", &csv, "--soak", "--experiment", "e", "--predict", "p", "--why", "w"];
        for (option, what) in [
            ("--duration", "a soak's duration"),
            ("--interval", "a soak's sampling interval"),
            ("--opening", "a soak's opening window"),
            ("--tail", "a soak's tail window"),
        ] {
            refused(&[&predict[..], &[given(option).as_str()]].concat(), what);
        }
    }
}
