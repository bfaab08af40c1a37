//! Parameter scans and the program's own figure as a user runs them
//! (SPEC E16, E17), against the `figure-walk` test program.

use std::path::Path;

use crate::common;
use common::{json, notebook, ok, stdout, text, vernier};

const WALK: &str = env!("CARGO_BIN_EXE_figure-walk");
const FIGURE: &str = "ns/access: ([0-9.eE+-]+)";

/// `vernier bench ARGS… -- figure-walk WALK_ARGS…` with `--json`.
fn bench(dir: &str, args: &[&str], walk: &[&str]) -> std::process::Output {
    let mut all = vec!["bench", "--json", "--notebook", dir];
    all.extend_from_slice(args);
    all.push("--");
    all.push(WALK);
    all.extend_from_slice(walk);
    vernier(&all)
}

fn show(dir: &str) -> serde_json::Value {
    json(&ok(vernier(&["show", dir, "--json"])))
}

// SPEC E16, E17: one row per value, recorded as one sweep; every round takes
// one trial of each value with the order rotated by one; each value is
// warmed up first; the medians are the figures the program printed.
#[test]
fn a_scan_records_one_sweep_with_rotated_rounds() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let log = tmp.path().join("order.log");
    let log_arg = log.display().to_string();
    let o = bench(
        &dir,
        &["-n", "3", "--warmup", "1", "--param", "V=10,20,30", "--metric", FIGURE, "--metric-unit", "ns/access"],
        &["--value", "{V}", "--tag", "{V}", "--log", &log_arg],
    );
    let v = json(&ok(o));
    let order: Vec<String> = std::fs::read_to_string(&log).expect("log").lines().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        order,
        ["10", "20", "30", "10", "20", "30", "20", "30", "10", "30", "10", "20"],
        "warm-up, then rotated"
    );
    let medians: Vec<f64> =
        v["runs"].as_array().expect("runs").iter().map(|r| r["median"].as_f64().expect("m")).collect();
    assert_eq!(medians, [10.0, 20.0, 30.0]);
    assert_eq!(v["runs"][1]["point"], serde_json::json!(["20"]));
    assert_eq!(v["runs"][1]["unit"], "ns/access");
    let nb = show(&dir);
    let sweep = &nb["sweeps"][0];
    assert_eq!((sweep["label"].as_str(), sweep["runs"].clone()), (Some("W1"), serde_json::json!([1, 2, 3])));
    assert_eq!(sweep["points"], serde_json::json!([["10"], ["20"], ["30"]]));
    assert_eq!(nb["runs"][2]["sweep"], "W1");
    assert!(nb["runs"][0]["columns"]["What"].as_str().expect("what").ends_with(": V=10"));
    let instrument = nb["runs"][0]["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .find(|c| c["field"] == "instrument")
        .map(|c| c["value"].as_str().unwrap_or_default().to_owned())
        .expect("instrument");
    assert!(instrument.starts_with("the program's own timer"), "{instrument}");
    let notes = ok(vernier(&["show", &dir]));
    assert!(stdout(&notes).contains("Sweep W1: runs 1–3"), "{}", stdout(&notes));
}

// SPEC E16: a geometric range expands to integers (K is 1024), the rows are
// named in KiB; several parameters give every combination.
#[test]
fn a_geometric_range_and_a_second_parameter() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = bench(
        &dir,
        &["-n", "1", "--warmup", "0", "--param", "SIZE=1K..4K*2", "--param", "MODE=1,2", "--what", "walk"],
        &["--bytes", "{SIZE}", "--value", "{MODE}"],
    );
    let v = json(&ok(o));
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 6);
    let commands: Vec<String> = runs.iter().map(|r| r["command"][2].as_str().expect("bytes").to_owned()).collect();
    assert_eq!(commands, ["1024", "2048", "4096", "1024", "2048", "4096"]);
    assert_eq!(runs[4]["what"], "walk: SIZE=2 KiB, MODE=2");
    let nb = show(&dir);
    assert_eq!(nb["sweeps"][0]["params"][0]["sizes"], true);
    assert_eq!(nb["sweeps"][0]["params"][0]["values"], serde_json::json!(["1024", "2048", "4096"]));
}

// SPEC E17: --metric-each takes every figure a process prints as a trial;
// -n counts processes, and the summary says "5 internal × 3 runs". The raw
// file keeps each process's wall time beside its figures.
#[test]
fn metric_each_counts_internal_trials() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = bench(
        &dir,
        &["-n", "3", "--warmup", "1", "--metric", FIGURE, "--metric-unit", "ns/access", "--metric-each"],
        &["--value", "100", "--trials", "5"],
    );
    let v = json(&ok(o));
    let run = &v["runs"][0];
    assert_eq!((run["n"].as_u64(), run["median"].as_f64()), (Some(15), Some(102.0)));
    assert_eq!(run["own_figure"]["processes"], 3);
    let shown = ok(vernier(&["show", &dir]));
    assert!(stdout(&shown).contains("1 + 15 (5 internal × 3 runs)"), "{}", stdout(&shown));
    let raw = std::fs::read_to_string(Path::new(&dir).join(run["raw_file"].as_str().expect("raw"))).expect("raw");
    // SPEC E13: each process's CPU time and counts come before its figures.
    assert!(raw.contains("index,arm,position,warmup,ns,exit_status,cpu_ns,cycles,instructions,figures"), "{raw}");
    let rows: Vec<&str> = raw.lines().filter(|l| !l.starts_with('#')).skip(1).collect();
    assert_eq!(rows.len(), 4, "one row per process: {raw}");
    for row in rows {
        let fields: Vec<&str> = row.split(',').collect();
        assert!(fields[4].parse::<u64>().expect("wall ns") > 0);
        assert!(fields[6].parse::<u64>().is_ok(), "a CPU time: {row}");
        assert_eq!(fields[9], "100;101;102;103;104");
    }
    let stats = ok(vernier(&["stats", &Path::new(&dir).join("raw/run-1.csv").display().to_string()]));
    assert!(stdout(&stats).contains("the program's own figures"), "{}", stdout(&stats));
    assert!(stdout(&stats).contains("n=15"), "{}", stdout(&stats));
}

// SPEC E17: a program that prints JSON, read by its key.
#[test]
fn a_json_key_is_read() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let one = bench(
        &dir,
        &["-n", "3", "--warmup", "0", "--metric-json", "ns_per_access", "--metric-unit", "ns/access"],
        &["--value", "7.5", "--json"],
    );
    assert_eq!(json(&ok(one))["runs"][0]["median"].as_f64(), Some(7.5));
    let each = bench(
        &dir,
        &["-n", "1", "--warmup", "0", "--metric-json", "ns_per_access", "--metric-unit", "ns/access", "--metric-each"],
        &["--value", "1", "--json", "--trials", "3"],
    );
    let v = json(&ok(each));
    assert_eq!((v["runs"][0]["n"].as_u64(), v["runs"][0]["median"].as_f64()), (Some(3), Some(2.0)));
}

// SPEC E17, E10: a process whose output lacks the figure is a failed trial;
// the run ends, exits 1, records no row, and its note quotes the output.
#[test]
fn a_missing_figure_fails_the_trial() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = bench(&dir, &["-n", "3", "--metric", FIGURE, "--metric-unit", "ns/access"], &["--omit"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v = json(&o);
    assert!(v["failure"].as_str().expect("failure").contains("gave no figure"), "{v}");
    let nb = show(&dir);
    assert_eq!(nb["runs"].as_array().map(Vec::len), Some(0));
    let note = nb["notes"][0]["text"].as_str().expect("note");
    assert!(note.contains("walked, but this build prints no figure"), "{note}");
    // Several figures where one was expected is not a figure either.
    let two =
        bench(&dir, &["-n", "1", "--metric", FIGURE, "--metric-unit", "ns/access"], &["--value", "1", "--trials", "2"]);
    assert_eq!(two.status.code(), Some(1), "{}", text(&two));
    assert!(json(&two)["failure"].as_str().expect("failure").contains("--metric-each"));
}

// SPEC E16, E17: what cannot be measured as asked is refused before
// anything runs, with a message saying what to do.
#[test]
fn refusals_say_why() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let cases: [(&[&str], &[&str], &str); 6] = [
        (&["--param", "N=1,2", "--vs", "true"], &["--value", "{N}"], "not combined with --vs"),
        (&["--param", "N=1,2"], &["--value", "1"], "write {N} in the command"),
        (&["--param", "N=1..8"], &["--value", "{N}"], "factor is missing"),
        (&["--metric", "ns/access: [0-9]+", "--metric-unit", "ns"], &[], "exactly one capture group"),
        (&["--metric", FIGURE], &[], "--metric-unit"),
        (&["--metric-each"], &[], "go with --metric"),
    ];
    for (args, walk, expected) in cases {
        let o = bench(&dir, args, walk);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(expected), "{args:?}: {}", text(&o));
    }
    assert_eq!(show(&dir)["runs"].as_array().map(Vec::len), Some(0));
}

// SPEC E16, E17, R1–R3: a sweep is reproduced as a sweep, its figure read
// the same way, and compared point by point; one of its points alone
// reruns alone. Nothing runs before --yes.
#[test]
fn a_sweep_is_reproduced_point_by_point() {
    let tmp = tempfile::tempdir().expect("tmp");
    let theirs = notebook(tmp.path());
    let mine = tmp.path().join("mine").display().to_string();
    ok(vernier(&["new", &mine]));
    let args = ["-n", "3", "--warmup", "1", "--param", "V=10,20,30", "--metric", FIGURE, "--metric-unit", "ns/access"];
    ok(bench(&theirs, &args, &["--value", "{V}"]));

    let plan = vernier(&["reproduce", &theirs, "--sweep", "1", "--notebook", &mine]);
    assert_eq!(plan.status.code(), Some(1), "{}", text(&plan));
    assert!(stdout(&plan).contains("3 commands, one per point"), "{}", stdout(&plan));
    assert!(stdout(&plan).contains("the program's own timer"), "{}", stdout(&plan));
    assert_eq!(show(&mine)["runs"].as_array().map(Vec::len), Some(0), "nothing ran before --yes");

    let o = ok(vernier(&[
        "reproduce",
        &theirs,
        "--sweep",
        "1",
        "--notebook",
        &mine,
        "--yes",
        "--allow-inline-code",
        "--json",
    ]));
    let v = json(&o);
    let points = v["points"].as_array().expect("points");
    assert_eq!(points.len(), 3);
    for (point, value) in points.iter().zip([10.0, 20.0, 30.0]) {
        assert_eq!(point["theirs"]["median"].as_f64(), Some(value));
        assert_eq!(point["mine"]["median"].as_f64(), Some(value));
        assert_eq!(point["verdict"]["claimed"], false);
    }
    assert_eq!(v["differing"], serde_json::json!([]));
    let nb = show(&mine);
    assert_eq!(nb["sweeps"][0]["runs"], serde_json::json!([1, 2, 3]));
    let notes: Vec<&str> = nb["notes"].as_array().expect("notes").iter().filter_map(|n| n["text"].as_str()).collect();
    assert!(notes.iter().any(|n| n.contains("reproduces sweep W1") && n.contains("point by point")), "{notes:?}");

    // One point: its own command only, no partner from the shared raw file.
    let one = vernier(&["reproduce", &theirs, "--row", "2", "--notebook", &mine, "--json"]);
    let plan = json(&one)["plan"].clone();
    assert_eq!(plan["commands"].as_array().map(Vec::len), Some(1), "{plan}");
    assert_eq!(plan["commands"][0][2], "20");
}

/// One timed trial of `sh -c SCRIPT` recorded into `dir`, its figure read
/// as ns/access.
#[cfg(unix)]
fn one_trial_of(dir: &str, script: &str) -> std::process::Output {
    let args = ["bench", "--json", "--notebook", dir, "-n", "1", "--warmup", "0", "--metric", FIGURE];
    let rest = ["--metric-unit", "ns/access", "--", "sh", "-c", script];
    vernier(&[&args[..], &rest[..]].concat())
}

// SPEC E17: output past what Vernier reads could cut a figure in two: the
// trial fails and says so, rather than recording a shortened number.
#[cfg(unix)]
#[test]
fn output_past_the_limit_fails_the_trial() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let script = "head -c 8388600 /dev/zero | tr '\\0' x; printf 'ns/access: 123456\\n'";
    let o = one_trial_of(&dir, script);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let failure = json(&o)["failure"].as_str().expect("failure").to_owned();
    assert!(failure.contains("more than 8 MiB of output"), "{failure}");
    assert_eq!(show(&dir)["runs"].as_array().map(Vec::len), Some(0));
}

// SPEC E17, E10 (issue 31, finding 9): a program printing 300 MB is
// stopped once past the cap — not left to print it all and then sleep —
// and its trial fails with that reason.
#[cfg(unix)]
#[test]
fn a_flood_of_output_is_stopped_at_the_cap() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let script = "head -c 300000000 /dev/zero; sleep 30; printf 'ns/access: 5\\n'";
    let started = std::time::Instant::now();
    let o = one_trial_of(&dir, script);
    let took = started.elapsed();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let failure = json(&o)["failure"].as_str().expect("failure").to_owned();
    assert!(failure.contains("trial 0 printed more than 8 MiB of output; stopped"), "{failure}");
    assert!(took < std::time::Duration::from_secs(25), "the program was not stopped: {took:?}");
    assert_eq!(show(&dir)["runs"].as_array().map(Vec::len), Some(0));
}

// SPEC E17, E10: a run that fails names the trial (a warm-up one says so)
// and quotes the end of what the program printed, its own reason.
#[test]
fn a_failed_trial_quotes_the_program() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = bench(
        &dir,
        &["-n", "1", "--param", "B=64K", "--metric", FIGURE, "--metric-unit", "ns/access"],
        &["--bytes", "{B}"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let failure = json(&o)["failure"].as_str().expect("failure").to_owned();
    assert!(failure.starts_with("trial 0 (a warm-up trial) failed (exit 2)"), "{failure}");
    assert!(failure.contains("--bytes takes a whole number"), "{failure}");
    let note = show(&dir)["notes"][0]["text"].as_str().expect("note").to_owned();
    assert!(note.starts_with("A sweep of `") && note.contains("over 1 point"), "{note}");
}

// SPEC E16 (issue 49, item 1): the built-in chase swept by --param, its size
// the placeholder: one row per size, recorded as one sweep, each row the
// kernel at that size (its own command), all in one raw file.
#[test]
fn the_chase_kernel_is_swept_by_a_param() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = ok(vernier(&[
        "bench",
        "--json",
        "--notebook",
        &dir,
        "-n",
        "3",
        "--warmup",
        "1",
        "--kernel",
        "chase",
        "--size",
        "{SIZE}",
        "--param",
        "SIZE=16K..64K*2",
    ]));
    let v = json(&o);
    let points: Vec<serde_json::Value> =
        v["runs"].as_array().expect("runs").iter().map(|r| r["point"].clone()).collect();
    assert_eq!(points, [serde_json::json!(["16384"]), serde_json::json!(["32768"]), serde_json::json!(["65536"])]);
    assert_eq!(v["runs"][2]["unit"], "ns/access");
    assert_eq!(
        v["runs"][0]["command"],
        serde_json::json!(["vernier", "bench", "--kernel", "chase", "--size", "16384"])
    );
    let nb = show(&dir);
    let sweep = &nb["sweeps"][0];
    assert_eq!((sweep["label"].as_str(), sweep["runs"].clone()), (Some("W1"), serde_json::json!([1, 2, 3])));
    assert_eq!(sweep["template"], serde_json::json!(["vernier", "bench", "--kernel", "chase", "--size", "{SIZE}"]));
    assert!(nb["runs"][1]["columns"]["What"].as_str().expect("what").ends_with(": SIZE=32 KiB"));
    let raw = std::fs::read_dir(Path::new(&dir).join("raw")).expect("raw").count();
    assert_eq!(raw, 1, "one raw file for the sweep");
    // A value the kernel cannot take is refused before anything runs, with
    // what to write instead; a placeholder without its --param too.
    let bad = vernier(&["bench", "--kernel", "chase", "--size", "{SIZE}", "--param", "SIZE=16K,64K"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    assert!(text(&bad).contains("SIZE=16K: a kernel's --size and --tile are whole numbers"), "{}", text(&bad));
    let alone = vernier(&["bench", "--kernel", "chase", "--size", "{SIZE}"]);
    assert_eq!(alone.status.code(), Some(2), "{}", text(&alone));
    assert!(text(&alone).contains("add --param"), "{}", text(&alone));
}
