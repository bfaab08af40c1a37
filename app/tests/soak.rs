//! `vernier soak` as a user runs it (SPEC T, C).

use std::path::Path;

use serde_json::Value;

use crate::common;
use common::{stderr, vernier};

/// Records a soak prediction in `dir` fixing the shortest protocol these
/// tests run: 5 s sampled every 0.5 s, opening 0.5 s, tail 2.5 s (T1, T11).
fn fix_short_protocol(dir: &str, predict: &str, why: &str) -> std::process::Output {
    vernier(&[
        "predict",
        dir,
        "--experiment",
        "soak",
        "--predict",
        predict,
        "--why",
        why,
        "--soak",
        "--figure",
        "onset none, S/P 1 ± 0.5",
        "--duration",
        "5",
        "--interval",
        "0.5",
        "--opening",
        "0.5",
        "--tail",
        "2.5",
        "--protocol-why",
        "a five-second check of the tool, far too short for the default windows",
    ])
}

fn dataset() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../datasets/thermal-soak.csv").to_owned()
}

// SPEC T5, T6, T10: the shipped synthetic soak: six numbers, onset at 80 s
// in the course tool's view, labelled synthetic.
#[test]
fn analyze_the_shipped_dataset() {
    let o = vernier(&["soak", "analyze", &dataset(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("json");
    for key in [
        "peak",
        "t_onset",
        "t_stable",
        "sustained",
        "ratio",
        "tail_iqr",
        "tail_iqr_fraction",
        "placeholders",
        "thresholds",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["course_view"]["clock_onset"], 80.0);
    assert_eq!(v["t_onset"], 80.0);
    assert!(v["ratio"].as_f64().expect("ratio") < 0.7, "sustained far below peak");
    assert_eq!(v["synthetic"], true);
    let text = String::from_utf8_lossy(&vernier(&["soak", "analyze", &dataset()]).stdout).into_owned();
    assert!(text.starts_with("SYNTHETIC"), "{text}");
    assert!(text.contains("throttle onset from the clock: t = 80 s"));
}

// SPEC T4, C: malformed soak files are exit 2 naming the line; nothing panics.
#[test]
fn malformed_files_are_exit_2() {
    let tmp = tempfile::tempdir().expect("tmp");
    let header = "t_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n";
    let cases = [
        ("empty", String::new(), "no header line"),
        ("comments", "# only\n".to_owned(), "no header line"),
        ("order", "score,t_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c\n".to_owned(), "line 1"),
        ("cell", format!("{header}10,1,1,1,1,fast\n"), "line 2: column 'score': 'fast' is not a number"),
        ("backwards", format!("{header}10,1,1,1,1,1\n9,1,1,1,1,1\n"), "line 3"),
        ("short", format!("{header}10,1,1\n"), "line 2: 3 fields"),
        ("nan", format!("{header}10,nan,1,1,1,1\n"), "line 2: column 'clock_mhz'"),
    ];
    for (name, text, expected) in cases {
        let path = tmp.path().join(format!("{name}.csv"));
        std::fs::write(&path, text).expect("write");
        let o = vernier(&["soak", "analyze", &path.display().to_string()]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{name}: {}", stderr(&o));
    }
    let random = tmp.path().join("random.csv");
    std::fs::write(&random, (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect::<Vec<u8>>())
        .expect("write");
    assert_eq!(vernier(&["soak", "analyze", &random.display().to_string()]).status.code(), Some(2));
}

// SPEC T2, T3, T4: a short real soak writes the six columns as it goes, with
// its conditions and placeholders, and analyses cleanly; recorded in a
// notebook it locks the predictions before it.
#[test]
fn short_soak_runs_and_records() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb").display().to_string();
    assert_eq!(vernier(&["new", &dir]).status.code(), Some(0));
    // T1: no soak without its protocol fixed first.
    let o = vernier(&["soak", "run", "--workers", "1", "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("fix the soak protocol with your prediction first"), "{}", stderr(&o));
    let o = fix_short_protocol(&dir, "no throttling on a VM", "no thermal limit");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = vernier(&["soak", "run", "--duration", "8", "--notebook", &dir]);
    assert!(stderr(&o).contains("differs from the protocol fixed with P1"), "{}", stderr(&o));
    let o = vernier(&["soak", "run", "--workers", "1", "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = std::fs::read_to_string(Path::new(&dir).join("raw/soak-1.csv")).expect("the soak file");
    assert!(csv.contains("\nt_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n"));
    for comment in [
        "# machine:",
        "# logical CPUs:",
        "# workers: 1",
        "# chunk size:",
        "# calibrated chunk time:",
        "# placeholders:",
        // T13: its start, so a later soak's cool-down can be checked.
        "# started: 20",
    ] {
        assert!(csv.contains(comment), "missing {comment}");
    }
    let rows = csv.lines().filter(|l| !l.starts_with('#') && !l.starts_with("t_seconds")).count();
    assert!((9..=11).contains(&rows), "{rows} samples");
    let shown: Value = serde_json::from_slice(&vernier(&["show", &dir, "--json"]).stdout).expect("json");
    assert_eq!(shown["soaks"][0]["columns"]["#"], "S1");
    assert_eq!(shown["predictions"][0]["locked"], true);
    // SPEC N14: the soak answers the prediction that fixed its protocol.
    let answers = &shown["predictions"][0]["answers"];
    assert_eq!(answers[0]["by"], "soak S1", "{answers}");
    let outcome = answers[0]["outcome"].as_str().unwrap_or_default();
    assert!(outcome.contains("on onset: predicted none") && outcome.contains("on S/P: predicted 1 ± 0.5"), "{outcome}");
    let o = vernier(&["soak", "analyze", &Path::new(&dir).join("raw/soak-1.csv").display().to_string(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // SPEC T5 (issue 47 item 7): the file keeps the windows its row was
    // analysed with (not the defaults), so analysing it gives the row's numbers.
    assert!(csv.contains("# analysis: opening 0.5 s, tail 2.5 s, threshold 0.95, hold 3, band 0.03\n"), "{csv}");
    let analysed: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(analysed["thresholds"]["opening_s"], 0.5, "{analysed}");
    for key in ["peak", "t_onset", "t_stable", "sustained", "ratio", "tail_iqr"] {
        assert_eq!(analysed[key], shown["soaks"][0]["numbers"][key], "{key}: {analysed}");
    }
}

/// `vernier predict DIR --soak` of one soak prediction, with `extra`.
fn predict_soak(dir: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["predict", dir, "--experiment", "soak", "--predict", "falls", "--why", "fan", "--soak"];
    args.extend_from_slice(&["--figure", "onset 180 s ± 20 %, S/P 0.8 ± 0.05"]);
    args.extend_from_slice(extra);
    vernier(&args)
}

// SPEC T13: a window or threshold changed from the defaults is refused
// without the reason, naming each change; given, the reason is sealed with
// the protocol and said back. An amendment that leaves the windows as they
// were keeps their reason; one that changes them needs its own.
#[test]
fn a_changed_window_keeps_its_reason() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb").display().to_string();
    assert_eq!(vernier(&["new", &dir]).status.code(), Some(0));
    let predict = |extra: &[&str]| predict_soak(&dir, extra);
    let changed = ["--opening", "20", "--threshold", "0.9"];
    let bare = predict(&changed);
    assert_eq!(bare.status.code(), Some(2), "{}", stderr(&bare));
    for said in
        ["the opening window is 20 s, not 30 s", "the onset threshold is 0.9 of P, not 0.95 of P", "--protocol-why"]
    {
        assert!(stderr(&bare).contains(said), "{said}: {}", stderr(&bare));
    }
    let blank = predict(&[&changed[..], &["--protocol-why", "  "]].concat());
    assert_eq!(blank.status.code(), Some(2), "a blank reason is none: {}", stderr(&blank));
    let shown: Value = serde_json::from_slice(&vernier(&["show", &dir, "--json"]).stdout).expect("json");
    assert_eq!(shown["predictions"].as_array().map(Vec::len), Some(0), "nothing recorded");

    let given = predict(&[&changed[..], &["--protocol-why", "the fan spins up at 20 s"]].concat());
    assert_eq!(given.status.code(), Some(0), "{}", stderr(&given));
    let out = String::from_utf8_lossy(&given.stdout).into_owned();
    assert!(
        out.contains("opening window 20 s") && out.contains("(changed because: the fan spins up at 20 s)"),
        "{out}"
    );

    let amend = |extra: &[&str]| {
        let mut args = vec!["predict", &dir, "--amend", "P1", "--soak", "--predict", "falls later", "--why", "longer"];
        args.extend_from_slice(extra);
        vernier(&args)
    };
    let longer = amend(&["--duration", "900"]);
    assert_eq!(longer.status.code(), Some(0), "{}", stderr(&longer));
    assert!(String::from_utf8_lossy(&longer.stdout).contains("(changed because: the fan spins up at 20 s)"));
    let tail = amend(&["--tail", "200"]);
    assert_eq!(tail.status.code(), Some(2), "{}", stderr(&tail));
    assert!(stderr(&tail).contains("the tail window is 200 s, not 300 s"), "{}", stderr(&tail));
}

// SPEC T1, T11: a protocol whose windows do not fit its duration is refused
// before anything is recorded, with the numbers and what would fit.
#[test]
fn a_protocol_whose_windows_do_not_fit_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb").display().to_string();
    assert_eq!(vernier(&["new", &dir]).status.code(), Some(0));
    let predict = |extra: &[&str]| predict_soak(&dir, extra);
    let short = predict(&["--duration", "4", "--interval", "1"]);
    assert_eq!(short.status.code(), Some(2), "{}", stderr(&short));
    assert!(
        stderr(&short).contains("the opening window (30 s) is more than a tenth of the duration (4 s)"),
        "{}",
        stderr(&short)
    );
    let tail = predict(&["--duration", "300"]);
    assert!(
        stderr(&tail).contains("the tail window (300 s) is more than half the duration (300 s)"),
        "{}",
        stderr(&tail)
    );
    assert!(stderr(&tail).contains("or the duration at least 600 s"), "{}", stderr(&tail));
    let shown: Value = serde_json::from_slice(&vernier(&["show", &dir, "--json"]).stdout).expect("json");
    assert_eq!(shown["predictions"].as_array().map(Vec::len), Some(0));
    // SPEC T1, N14: a soak prediction commits its two numbers; without them nothing is recorded.
    let words = vernier(&["predict", &dir, "--experiment", "soak", "--predict", "falls", "--why", "fan", "--soak"]);
    assert_eq!(words.status.code(), Some(2), "{}", stderr(&words));
    assert!(
        stderr(&words).contains("commits its two numbers, the onset second and the fraction S/P"),
        "{}",
        stderr(&words)
    );
    assert_eq!(predict(&[]).status.code(), Some(0), "the course's defaults fit");
}

// SPEC T11, N4: a bench run recorded between a soak prediction and its soak
// locks the prediction but does not block the soak; a mismatch names the
// command that changes the protocol, and that command works.
#[test]
fn a_bench_run_does_not_block_the_soak() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb").display().to_string();
    assert_eq!(vernier(&["new", &dir]).status.code(), Some(0));
    assert_eq!(fix_short_protocol(&dir, "no onset", "a VM").status.code(), Some(0));
    let bench = vernier(&["bench", "-n", "3", "--warmup", "0", "--notebook", &dir, "--", "true"]);
    assert_eq!(bench.status.code(), Some(0), "{}", stderr(&bench));
    let shown: Value = serde_json::from_slice(&vernier(&["show", &dir, "--json"]).stdout).expect("json");
    assert_eq!(shown["predictions"][0]["locked"], true, "N4: the run locked it");
    let mismatch = vernier(&["soak", "run", "--duration", "6", "--notebook", &dir]);
    assert_eq!(mismatch.status.code(), Some(2));
    let command = format!("vernier predict {dir} --amend P1 --soak --duration 6");
    assert!(stderr(&mismatch).contains(&command), "{}", stderr(&mismatch));
    let amend = vernier(&[
        "predict",
        &dir,
        "--amend",
        "P1",
        "--soak",
        "--duration",
        "6",
        "--predict",
        "still no onset",
        "--why",
        "longer",
    ]);
    assert_eq!(amend.status.code(), Some(0), "{}", stderr(&amend));
    assert!(
        String::from_utf8_lossy(&amend.stdout).contains("6 s sampled every 0.5 s; opening window 0.5 s, tail 2.5 s")
    );
    let run = vernier(&["soak", "run", "--duration", "6", "--workers", "1", "--notebook", &dir]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let shown: Value = serde_json::from_slice(&vernier(&["show", &dir, "--json"]).stdout).expect("json");
    assert_eq!(shown["soaks"][0]["protocol"]["duration_s"], 6.0, "the soak ran the amended protocol");
}

// SPEC T8: no onset on a shared host: the negative result carries the
// sentence the course calls not optional, in text and JSON.
#[test]
fn a_shared_host_says_so_in_the_negative_result() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/shared-host-soak.csv");
    let text = vernier(&["soak", "analyze", path]);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    let out = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(out.contains("No onset observed") && out.contains("This ran on a shared host"), "{out}");
    let json: Value = serde_json::from_slice(&vernier(&["soak", "analyze", path, "--json"]).stdout).expect("json");
    assert!(json["finding"].as_str().expect("the finding").contains("neighbour"));
    assert_eq!(json["knee"], Value::Null);
    assert_eq!(json["knee_reason"], "no onset observed");
}

// SPEC T9, T11: two soaks number by number — peak, knee and sustained
// apart, then S/P — and the knee in `soak analyze --json`.
#[test]
fn compare_two_soaks() {
    let o = vernier(&["soak", "compare", &dataset(), &dataset(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["disagree"], false);
    let lines: Vec<&str> = v["lines"].as_array().expect("lines").iter().filter_map(Value::as_str).collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    for (line, start) in lines.iter().zip(["P (peak)", "knee (t_stable − t_onset)", "S (sustained)", "S/P"]) {
        assert!(line.starts_with(start), "{lines:?}");
    }
    assert_eq!(v["a"]["knee"].as_f64(), Some(110.0));
    let analyzed = vernier(&["soak", "analyze", &dataset(), "--json"]);
    let v: Value = serde_json::from_slice(&analyzed.stdout).expect("json");
    assert_eq!((v["knee"].as_f64(), v["knee_reason"].clone()), (Some(110.0), Value::Null));
}

// SPEC T13: two soaks whose files do not state the same ambient, position
// and power, each after a cool-down, keep their numbers but make no
// comparison claim, say why and what would decide it; stated alike, the
// claim is made.
#[test]
fn soaks_under_unlike_conditions_make_no_comparison_claim() {
    let tmp = tempfile::tempdir().expect("tmp");
    let stated = "# ambient: 22 C\n# physical setup: desk, lid open\n# power source: mains\n# pre-run idle: 10 min\n";
    let write = |name: &str, comments: &str| {
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(&dir).expect("mkdir");
        soak_file(&dir, comments, 600, |t| if t < 200 { 10.0 } else { 8.0 })
    };
    let a = write("a", stated);
    let warmer = write("b", &stated.replace("22 C", "31 C"));
    let o = vernier(&["soak", "compare", &a, &warmer]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains("S (sustained): A 8.00 chunks/s, B 8.00 chunks/s"), "the numbers stand: {out}");
    assert!(
        out.contains("no comparison claim (T13): the two soaks were not run under like stated conditions: ambient differs (A: 22 C; B: 31 C). To decide: state the ambient"),
        "{out}"
    );
    assert!(!out.contains("agrees within the tail IQR") && !out.contains("the day drifted"), "{out}");
    let v: Value = serde_json::from_slice(&vernier(&["soak", "compare", &a, &warmer, "--json"]).stdout).expect("json");
    assert_eq!(v["disagree"], Value::Null, "{v}");
    assert_eq!(v["unlike"][0], "ambient differs (A: 22 C; B: 31 C)", "{v}");
    // Nothing stated about the room: nothing assumed alike either.
    let bare = write("c", "");
    let v: Value = serde_json::from_slice(&vernier(&["soak", "compare", &a, &bare, "--json"]).stdout).expect("json");
    let unlike: Vec<&str> = v["unlike"].as_array().expect("reasons").iter().filter_map(Value::as_str).collect();
    assert_eq!(unlike.len(), 4, "{unlike:?}");
    assert!(unlike.contains(&"ambient not stated in B"), "{unlike:?}");
    // Stated alike: compared.
    let same = write("d", stated);
    let o = vernier(&["soak", "compare", &a, &same]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains("S agrees within the tail IQR") && !out.contains("no comparison claim"), "{out}");
}

/// A soak file: `comments` as `#` lines, then one row a second for `end`
/// seconds whose score is `score(t)`; clock and sensors written as 0.
fn soak_file(dir: &std::path::Path, comments: &str, end: u32, score: impl Fn(u32) -> f64) -> String {
    let path = dir.join("soak.csv");
    let mut text = format!("{comments}t_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n");
    for t in 1..=end {
        text.push_str(&format!("{t},0,0,0,0,{}\n", score(t)));
    }
    std::fs::write(&path, text).expect("write the soak");
    path.display().to_string()
}

// SPEC T12: a fall in score on a machine with no clock or temperature read,
// on a shared host, is a fall whose cause was not observed — never
// throttling — with the shared-host sentence; the six numbers stay.
#[test]
fn a_fall_the_sensors_cannot_explain_is_not_called_throttling() {
    let tmp = tempfile::tempdir().expect("tmp");
    let comments =
        "# hypervisor: yes (KVM) — a shared host\n# placeholders: clock_mhz, power_w, soc_temp_c, skin_temp_c\n";
    let path = soak_file(tmp.path(), comments, 600, |t| if t < 200 { 10.0 } else { 7.0 });
    let o = vernier(&["soak", "analyze", &path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains("The score fell at t = 200 s (t_onset) and its cause was not observed: no real clock or temperature was read, and the host is shared"), "{out}");
    assert!(out.contains("This ran on a shared host"), "{out}");
    // "throttl" only where it is denied or is the course tool's own line.
    let denied = ["not as throttling", "throttling of its own cannot be told apart", "throttle onset from the clock"];
    let said = out.lines().filter(|l| l.contains("throttl") && !denied.iter().any(|d| l.contains(d)));
    assert_eq!(said.count(), 0, "{out}");
    let json: Value = serde_json::from_slice(&vernier(&["soak", "analyze", &path, "--json"]).stdout).expect("json");
    assert_eq!(json["t_onset"], 200.0);
    assert!(json["finding"].as_str().expect("a finding").contains("not as throttling"), "{json}");
}

// SPEC T11, T12: a file too short for its windows gives no finding
// sentence, only the warning that says why.
#[test]
fn a_file_too_short_for_its_windows_gives_no_finding() {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = soak_file(tmp.path(), "# hypervisor: yes (KVM) — a shared host\n", 20, |_| 10.0);
    let out = String::from_utf8_lossy(&vernier(&["soak", "analyze", &path]).stdout).into_owned();
    assert!(!out.contains("No onset observed"), "{out}");
    let json: Value = serde_json::from_slice(&vernier(&["soak", "analyze", &path, "--json"]).stdout).expect("json");
    assert!(json["windows_warning"].is_string(), "{json}");
    assert_eq!(json["finding"], Value::Null, "{json}");
}

// SPEC T11, T12: `soak run` without a notebook checks its windows as a
// soak prediction does, before the machine is loaded, and takes the
// protocol's options.
#[test]
fn soak_run_without_a_notebook_checks_its_windows() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("s.csv").display().to_string();
    let refused = vernier(&["soak", "run", "--duration", "20", "--interval", "1", "--workers", "1", "--out", &out]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("the opening window (30 s) is more than a tenth of the duration (20 s)"),
        "{}",
        stderr(&refused)
    );
    assert!(!std::path::Path::new(&out).exists(), "nothing was written");
    let fits = vernier(&[
        "soak",
        "run",
        "--duration",
        "5",
        "--interval",
        "0.5",
        "--opening",
        "0.5",
        "--tail",
        "2.5",
        "--workers",
        "1",
        "--out",
        &out,
        "--json",
    ]);
    assert_eq!(fits.status.code(), Some(0), "{}", stderr(&fits));
    let v: Value = serde_json::from_slice(&fits.stdout).expect("json");
    assert_eq!(v["thresholds"]["tail_s"], 2.5, "{v}");
}

// SPEC T2, C (issue 45 item 6): `--workers` past 4 per logical CPU (never
// more than 1024) is bad input, exit 2, naming the limit — at once, before
// a thread starts or a file is written.
#[test]
fn too_many_workers_is_bad_input() {
    let tmp = tempfile::tempdir().expect("tmp");
    let out = tmp.path().join("soak.csv").display().to_string();
    let short = ["--duration", "5", "--interval", "0.5", "--opening", "0.5", "--tail", "2.5"];
    let args = [&["soak", "run", "--workers", "4294967296", "--out", &out][..], &short[..]].concat();
    // Within a short deadline: before the fix it started threads without end.
    let o = common::vernier_fed_within(&args, std::time::Duration::from_secs(20), |_| {});
    let said = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(said.contains("at most") && said.contains("4 per logical CPU"), "{said}");
    assert!(!Path::new(&out).exists(), "nothing written");
}

// SPEC T1 (issue 47 item 8): from the moment `soak run --notebook` starts,
// its prediction and protocol are fixed: an edit or an amendment made from
// another terminal while it runs is refused with the reason, and taken
// again once the soak is recorded.
#[test]
fn a_soak_s_prediction_cannot_change_while_it_runs() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb").display().to_string();
    assert_eq!(vernier(&["new", &dir]).status.code(), Some(0));
    let o = fix_short_protocol(&dir, "no throttling on a VM", "no thermal limit");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let soak = std::process::Command::new(env!("CARGO_BIN_EXE_vernier"))
        .args(["soak", "run", "--workers", "1", "--notebook", &dir])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the soak");
    // The soak writes its file once the start is on disk.
    let file = Path::new(&dir).join("raw/soak-1.csv");
    let deadline = std::time::Instant::now() + common::DEADLINE;
    while !file.exists() {
        assert!(std::time::Instant::now() < deadline, "the soak never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let amend = ["predict", &dir, "--amend", "P1", "--predict", "it throttles", "--why", "changed my mind"];
    let refused = vernier(&amend);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("soak started at"), "{}", stderr(&refused));
    let edit = vernier(&["predict", &dir, "--edit", "P1", "--predict", "it throttles", "--why", "changed my mind"]);
    assert_eq!(edit.status.code(), Some(2), "{}", stderr(&edit));
    assert!(stderr(&edit).contains("a soak started at"), "{}", stderr(&edit));
    let done = soak.wait_with_output().expect("the soak ends");
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let shown: Value = serde_json::from_slice(&vernier(&["show", &dir, "--json"]).stdout).expect("json");
    assert_eq!(shown["predictions"][0]["answers"][0]["by"], "soak S1", "the soak answers the prediction it ran");
    let after = vernier(&amend);
    assert_eq!(after.status.code(), Some(0), "recorded, its prediction may be amended: {}", stderr(&after));
}
