//! `vernier compare --notebook DIR --run A --run B` and `bench --control`,
//! run as a user would (SPEC S7, S13, S14): notebooks built with the engine,
//! then the real binary.

use std::path::Path;

use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::Value;
use vernier_engine::notebook::{
    Boundary, CONTROL, Condition, ConditionName, Measurement, Notebook, Tag, WarmupPolicy, store,
};
use vernier_engine::stats::Summary;

use crate::common;
use common::{json, ok, text, vernier};

/// 2026-11-30 09:00 UTC plus `hours`.
fn at(hours: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0).single().expect("a valid date") + Duration::hours(hours)
}

/// A row of `command` with five trials around `median` ms (IQR 0.1 ms);
/// the machine could not read its power source, as on a desktop.
fn row(command: &str, median: f64, control: bool) -> Measurement {
    let trials: Vec<f64> = [-0.1, -0.05, 0.0, 0.05, 0.1].iter().map(|d| median + d).collect();
    let mut conditions = vec![Condition::new(ConditionName::PowerSource, "not available")];
    if control {
        conditions.push(Condition::new(ConditionName::Control, CONTROL));
    }
    Measurement {
        what: command.into(),
        command: vec![command.into()],
        warmup: WarmupPolicy::Count(3),
        warmup_trials: 3,
        summary: Summary::of(&trials).expect("trials"),
        unit: "ms".into(),
        ns_per_unit: 1e6,
        conditions,
        raw_file: None,
        tag: Tag::Measured,
        synthetic: false,
        extends: None,
        figure: None,
        work: None,
        // A process's wall time, as `bench` keeps it (S16).
        boundary: Some(vernier_engine::notebook::Boundary::ProcessWall),
        recipe: None,
        tail: None,
        noise_floor: None,
    }
}

/// A notebook in `tmp` stated on mains, with the rows `fill` records.
fn notebook(tmp: &Path, fill: impl FnOnce(&mut Notebook)) -> String {
    let dir = tmp.join("nb");
    let mut nb = store::create(&dir, "compare", at(0)).expect("create");
    nb.set_environment("Power source", "mains").expect("field");
    fill(&mut nb);
    store::replace(&dir, &nb).expect("save");
    dir.display().to_string()
}

fn compare(dir: &str, a: &str, b: &str) -> (String, Value) {
    let shown = ok(vernier(&["compare", "--notebook", dir, "--run", a, "--run", b]));
    let v = json(&ok(vernier(&["compare", "--notebook", dir, "--run", a, "--run", b, "--json"])));
    (String::from_utf8_lossy(&shown.stdout).into_owned(), v)
}

// SPEC S7, C: two rows of one session on one power source: S7's own
// verdict, with SPEC C's `compare` keys.
#[test]
fn rows_on_one_power_source_get_the_s7_verdict() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path(), |nb| {
        nb.record_run(row("./naive", 10.0, false), at(0));
        nb.record_run(row("./blocked", 12.2, false), at(1));
    });
    let (shown, v) = compare(&dir, "1", "2");
    assert!(shown.starts_with("median wall time: run 2 is 1.22× run 1 (22% above run 1)\n"), "{shown}");
    assert!(
        shown.contains("S7: difference 2.20 ms is more than the IQRs' sum 0.20 ms (the course's convention"),
        "{shown}"
    );
    for key in ["median_a", "median_b", "iqr_a", "iqr_b", "difference", "claimed", "ratio", "verdict"] {
        assert!(v.get(key).is_some(), "missing key {key}: {v}");
    }
    assert_eq!(v["claimed"], true);
    assert_eq!(v["power"], "same");
    assert_eq!(v["checks"], serde_json::json!([]));
    assert!((v["ratio"].as_f64().expect("ratio") - 1.22).abs() < 1e-9);
}

// SPEC S13: a run on mains against a run on battery is flagged and makes
// no claim, though S7 alone would claim the difference.
#[test]
fn mains_against_battery_makes_no_claim() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path(), |nb| {
        nb.record_run(row("./naive", 10.0, false), at(0));
        nb.set_environment("Power source", "battery").expect("field");
        nb.record_run(row("./blocked", 12.2, false), at(1));
    });
    let (shown, v) = compare(&dir, "1", "2");
    let expected = "never compare a mains run against a battery run: run 1 ran on mains, run 2 on battery";
    assert!(shown.starts_with(&format!("median wall time: no claim — {expected}\n")), "{shown}");
    assert!(!shown.contains('×'), "no ratio is claimed: {shown}");
    assert_eq!(v["claimed"], false);
    assert_eq!(v["s7_claimed"], true);
    assert_eq!((&v["power"], &v["power_a"], &v["power_b"]), (&"differs".into(), &"mains".into(), &"battery".into()));
    assert_eq!(v["checks"][0]["rule"], "S13");
    assert_eq!(v["checks"][0]["kind"], "no_claim");
    // Setting the Environment back to mains today changes neither row.
    ok(vernier(&["set", &dir, "Power source", "mains"]));
    assert_eq!(compare(&dir, "1", "2").1["claimed"], false);
}

/// Run 1 and the control (run 2) on day one; the control again (run 3) at
/// `control_b` ms and run 4 at 12.2 ms two days later.
fn two_sessions(tmp: &Path, control_b: f64) -> String {
    notebook(tmp, |nb| {
        nb.record_run(row("./naive", 10.0, false), at(0));
        nb.record_run(row("./control", 5.0, true), at(1));
        nb.record_run(row("./control", control_b, true), at(48));
        nb.record_run(row("./blocked", 12.2, false), at(49));
    })
}

// SPEC S14: across sessions, the control moved more than the effect: the
// difference cannot be told from the day-to-day drift, and is not claimed.
#[test]
fn a_control_that_moved_more_than_the_effect_leaves_no_claim() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = two_sessions(tmp.path(), 6.5);
    let (shown, v) = compare(&dir, "1", "4");
    assert!(
        shown.starts_with(
            "median wall time: no claim — runs 1 and 4 were recorded in different sessions and the difference (22%) \
             cannot be told from the day-to-day drift: the control (./control) moved +30% between them (run 2 to run \
             3), more than the difference\n"
        ),
        "{shown}"
    );
    assert_eq!(v["claimed"], false);
    assert_eq!((v["session_a"]["number"].as_u64(), v["session_b"]["number"].as_u64()), (Some(1), Some(2)));
    assert_eq!((v["control"]["run_a"].as_u64(), v["control"]["run_b"].as_u64()), (Some(2), Some(3)));
    assert!((v["control"]["drift"].as_f64().expect("drift") - 0.3).abs() < 1e-9);
    assert!((v["effect"].as_f64().expect("effect") - 0.22).abs() < 1e-9);
}

// SPEC S14: a steady control lets the claim stand, its drift reported.
#[test]
fn a_steady_control_lets_the_claim_stand() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = two_sessions(tmp.path(), 5.02);
    let (shown, v) = compare(&dir, "1", "4");
    assert!(shown.starts_with("median wall time: run 4 is 1.22× run 1 (22% above run 1); "), "{shown}");
    assert!(
        shown.contains(
            "the control (./control) moved +0.40% between them (run 2 to run 3), less than the difference (22%)"
        ),
        "{shown}"
    );
    assert_eq!(v["claimed"], true);
    assert_eq!(v["checks"][0]["kind"], "report");
}

// SPEC S14 (amended): no control in one of the sessions: the drift is
// unknown, so no claim, and the sentence says what would decide it.
#[test]
fn no_control_in_a_session_makes_no_claim() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path(), |nb| {
        nb.record_run(row("./naive", 10.0, false), at(0));
        nb.record_run(row("./control", 5.0, true), at(1));
        nb.record_run(row("./blocked", 12.2, false), at(49));
    });
    let (shown, v) = compare(&dir, "1", "3");
    assert!(
        shown.starts_with("median wall time: no claim — runs 1 and 3 were recorded in different sessions"),
        "{shown}"
    );
    assert!(shown.contains("no control run in the session of run 3, so the day-to-day drift is unknown"), "{shown}");
    assert!(shown.contains("rerun both in one session, or measure a control (bench --control) in each session"));
    assert_eq!((&v["claimed"], &v["s7_claimed"]), (&false.into(), &true.into()));
    assert_eq!((&v["checks"][0]["rule"], &v["checks"][0]["kind"]), (&"S14".into(), &"no_claim".into()));
    assert!(v["control"].is_null());
}

// SPEC S7, C: rows whose units share no scale are refused, naming both;
// anything but two rows is bad usage.
#[test]
fn rows_without_a_common_scale_are_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path(), |nb| {
        nb.record_run(row("./naive", 10.0, false), at(0));
        let mut seq = row("seq", 1.5, false);
        seq.unit = "ns/access".into();
        nb.record_run(seq, at(1));
    });
    let o = vernier(&["compare", "--notebook", &dir, "--run", "1", "--run", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("run 1 is in 'ms' and run 2 in 'ns/access': these cannot be put on one scale"),
        "{}",
        text(&o)
    );
    let o = vernier(&["compare", "--notebook", &dir, "--run", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("give two rows to compare: --run A --run B"), "{}", text(&o));
    let o = vernier(&["compare", "--notebook", &dir, "--run", "1", "--run", "7"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("there is no run 7"), "{}", text(&o));
}

// SPEC S14: `bench --control` records the row as the control condition;
// a control is one subject, never one arm of a comparison.
#[test]
fn bench_control_is_recorded_on_the_row() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb").display().to_string();
    ok(vernier(&["new", &dir]));
    ok(vernier(&["bench", "-n", "3", "--warmup", "0", "--control", "--notebook", &dir, "--", "true"]));
    ok(vernier(&["bench", "-n", "3", "--warmup", "0", "--notebook", &dir, "--", "true"]));
    let v = json(&ok(vernier(&["show", &dir, "--json"])));
    let control = |run: usize| {
        v["runs"][run]["conditions"]
            .as_array()
            .expect("conditions")
            .iter()
            .find(|c| c["field"] == "control")
            .map(|c| c["value"].clone())
    };
    assert_eq!(control(0), Some(CONTROL.into()));
    assert_eq!(control(1), None);
    let column = v["runs"][0]["columns"]["Conditions"].as_str().expect("the Conditions column");
    assert!(column.starts_with(&format!("control: {CONTROL}")), "{column}");
    let o = vernier(&["bench", "-n", "3", "--control", "--vs", "true", "--", "true"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

// SPEC S13, R3: a reproduce whose rerun ran on another power source than
// their row makes no claim either.
#[test]
fn reproduce_on_another_power_source_makes_no_claim() {
    // Whatever this machine reads is what the rerun ran on; their row ran
    // on the other source.
    let machine = json(&ok(vernier(&["machine", "--json"])));
    let (mine, theirs) = match machine["power_source"].as_str() {
        Some("battery") => ("battery", "mains"),
        _ => ("mains", "battery"),
    };
    let tmp = tempfile::tempdir().expect("tmp");
    let their_dir = tmp.path().join("theirs");
    let mut nb = store::create(&their_dir, "theirs", at(0)).expect("create");
    nb.set_environment("Power source", theirs).expect("field");
    let mut m = row("true", 1.0, false);
    m.unit = "s".into();
    nb.record_run(m, at(0));
    store::replace(&their_dir, &nb).expect("save");
    let my_dir = tmp.path().join("mine").display().to_string();
    ok(vernier(&["new", &my_dir]));
    ok(vernier(&["set", &my_dir, "Power source", mine]));
    let their_dir = their_dir.display().to_string();
    let o = ok(vernier(&[
        "reproduce",
        &their_dir,
        "--row",
        "1",
        "--notebook",
        &my_dir,
        "--yes",
        "--allow-inline-code",
        "--json",
    ]));
    let v = json(&o);
    assert_eq!(v["verdict"]["claimed"], false, "{v}");
    let verdict = v["verdict"]["verdict"].as_str().expect("verdict");
    assert!(
        verdict.contains(&format!(
            "no claim — never compare a mains run against a battery run: their run 1 ran on {theirs}, the rerun on {mine}"
        )),
        "{verdict}"
    );
}

// SPEC S13 (by meaning): two rows that state the same power source in the
// same words — a cloud VM's "no battery — mains presumed" — are on one
// source: no "cannot tell" flag, and the claim stands.
#[test]
fn the_same_stated_power_source_is_one_source() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path(), |nb| {
        nb.set_environment("Power source", "not readable (cloud VM, no battery) — mains presumed").expect("field");
        nb.record_run(row("./naive", 10.0, false), at(0));
        nb.record_run(row("./blocked", 12.2, false), at(1));
    });
    let (shown, v) = compare(&dir, "1", "2");
    assert!(!shown.contains("cannot tell whether both ran on the same power source"), "{shown}");
    assert_eq!(v["power"], "same", "{v}");
    assert_eq!(v["claimed"], true, "{v}");
}

// SPEC S16: a driver's in-process time against a process's wall time is not
// one measure: no claim, both boundaries named, and the metric is not
// called wall time.
#[test]
fn unlike_timing_boundaries_make_no_claim() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path(), |nb| {
        let mut driver = row("./driver", 10.0, false);
        driver.boundary = Some(Boundary::Instrument {
            instrument: "benchmark.cpp".into(),
            stated: "multiply only, in-process, steady_clock".into(),
        });
        nb.record_run(driver, at(0));
        let mut wall = row("./mm", 12.2, false);
        wall.boundary = Some(Boundary::ProcessWall);
        nb.record_run(wall, at(1));
    });
    let (shown, v) = compare(&dir, "1", "2");
    assert!(shown.starts_with("median time: no claim — not like with like: run 1 times multiply only, in-process, steady_clock (benchmark.cpp), run 2 times each run's wall time as a whole process"), "{shown}");
    assert_eq!((&v["claimed"], &v["s7_claimed"]), (&false.into(), &true.into()));
    assert_eq!(v["checks"][0]["rule"], "S16", "{v}");
}

// SPEC E18 (issue 48 item 3): a difference S7 would claim but below the
// noise floor a row's session measured makes no claim, in E18's one
// sentence, on the command line as in its JSON `checks`.
#[test]
fn a_difference_below_the_noise_floor_makes_no_claim() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path(), |nb| {
        let floor = vernier_engine::stats::NoiseFloor::of(&[10.0, 10.5]);
        nb.record_run(Measurement { noise_floor: floor, ..row("./naive", 10.0, false) }, at(0));
        nb.record_run(row("./blocked", 10.3, false), at(1));
    });
    let (shown, v) = compare(&dir, "1", "2");
    let expected = "the difference between run 1 and run 2 (3.0 %) is below the instrument's noise floor (5.0 %, \
                    one body timed back to back): the instrument cannot tell it from its own noise";
    assert!(shown.starts_with(&format!("median wall time: no claim — {expected}\n")), "{shown}");
    assert_eq!((&v["claimed"], &v["s7_claimed"]), (&false.into(), &true.into()));
    assert_eq!(v["checks"][0]["rule"], "E18");
    assert_eq!(v["checks"][0]["kind"], "no_claim");
    assert_eq!(v["checks"][0]["text"], expected);
}
