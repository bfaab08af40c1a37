//! `vernier bench`, `machine`, `instrument` and `import` as a user runs them
//! (SPEC C, E1–E12, N6).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common;
use common::{json, notebook, ok, stderr, stdout, text, vernier};

/// Processes whose command line is exactly `words`.
fn processes_running(words: &[&str]) -> usize {
    let wanted: Vec<u8> = words.iter().flat_map(|w| w.bytes().chain([0])).collect();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(Result::ok)
        .filter(|e| std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == wanted))
        .count()
}

// SPEC E3, E4, N6, C: sleep 0.01 timed 11 times after 3 warm-ups, in seconds,
// recorded with a raw file whose hash the notebook keeps.
#[test]
fn bench_a_command_and_record_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = vernier(&["bench", "-n", "11", "--json", "--notebook", &dir, "--", "sleep", "0.01"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let run = &v["runs"][0];
    let median = run["median"].as_f64().expect("median");
    assert!((0.009..0.05).contains(&median), "median {median} s");
    assert_eq!(run["unit"], "s");
    assert_eq!(run["timed"], 11);
    assert_eq!(run["warmup"], 3);
    assert_eq!(run["failed"], false);
    for key in ["n", "p25", "p75", "iqr", "iqr_fraction", "min", "max", "drift", "rounded", "command"] {
        assert!(run.get(key).is_some(), "missing {key}");
    }
    let raw = run["raw_file"].as_str().expect("raw file");
    let raw_path = Path::new(&dir).join(raw);
    let text = std::fs::read_to_string(&raw_path).expect("raw file exists");
    assert!(text.contains("index,arm,position,warmup,ns,exit_status"));
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 1 + 3 + 11);
    assert!(text.lines().any(|l| l.starts_with("# power source:")), "conditions are in the comments");

    let shown = json(&vernier(&["show", &dir, "--json"]));
    let row = &shown["runs"][0];
    assert_eq!(row["columns"]["Tag"], "MEASURED");
    assert_eq!(row["columns"]["n (warm-up + timed)"], "3 + 11");
    assert_eq!(row["columns"]["Raw file"], raw);
}

// SPEC S18: "raise the warm-up until repetition one is indistinguishable
// from repetition ten" — a program whose first timed run (after one
// warm-up) is still slow is told so, on screen and in the row.
#[cfg(unix)]
#[test]
fn a_warm_up_too_short_is_said_after_any_warm_up() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let count = tmp.path().join("count");
    // Run 0 is the warm-up, run 1 the first timed trial: slow; the rest fast.
    let script = format!(
        "n=$(cat '{c}' 2>/dev/null || echo 0); echo $((n+1)) > '{c}'; if [ \"$n\" -eq 1 ]; then sleep 0.4; else sleep 0.05; fi",
        c = count.display()
    );
    let o = vernier(&["bench", "-n", "5", "--warmup", "1", "--notebook", &dir, "--", "sh", "-c", &script]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains("warm-up 1: first value ") && out.contains("stands out: consider a longer warm-up"), "{out}");
    let shown = json(&vernier(&["show", &dir, "--json"]));
    let stored =
        shown["runs"][0]["conditions"].as_array().expect("conditions").iter().any(|c| {
            c["field"] == "first-trial check" && c["value"].as_str().is_some_and(|v| v.contains("stands out"))
        });
    assert!(stored, "{}", shown["runs"][0]["conditions"]);
}

// SPEC E19: the row says which CPU its trials ran on, where the OS tells
// (Linux): pinned to CPU 0, a command's processes and a kernel's thread all
// ran there; the bimodality hint then never blames a move between CPUs.
#[cfg(target_os = "linux")]
#[test]
fn the_cpu_each_trial_ran_on_is_kept_with_the_row() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    for args in [&["--", "true"][..], &["--kernel", "seq", "--size", "65536"][..]] {
        let o = vernier(&[&["bench", "-n", "5", "--pin", "0", "--notebook", &dir][..], args].concat());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let shown = json(&vernier(&["show", &dir, "--json"]));
    for run in 0..2 {
        let cpus = shown["runs"][run]["conditions"]
            .as_array()
            .expect("conditions")
            .iter()
            .find(|c| c["field"] == "CPU per trial")
            .and_then(|c| c["value"].as_str().map(str::to_owned));
        assert_eq!(cpus.as_deref(), Some("CPU 0 for all 5 timed trials"), "run {}", run + 1);
    }
}

// SPEC S9, S18, E3, N2: with warm-up 0, bench prints the first timed trial
// against the rest and stores it with the row; after a warm-up only when it
// still stands out.
#[test]
fn warmup_zero_prints_and_stores_the_first_trial_check() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = vernier(&["bench", "-n", "5", "--warmup", "0", "--json", "--notebook", &dir, "--", "true"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let check = &json(&o)["runs"][0]["warmup_check"];
    assert!(check["stands_out"].is_boolean(), "{check}");
    assert!(check["first"].as_f64().is_some_and(|f| f > 0.0), "{check}");
    let text = vernier(&["bench", "-n", "5", "--warmup", "0", "--", "true"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("warm-up 0: first value "), "{}", stderr(&text));

    let o = vernier(&["bench", "-n", "5", "--warmup", "2", "--json", "--notebook", &dir, "--", "true"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let after_warmup = &json(&o)["runs"][0]["warmup_check"];
    assert!(after_warmup.is_null() || after_warmup["stands_out"] == true, "{after_warmup}");

    let shown = json(&vernier(&["show", &dir, "--json"]));
    let check_of = |run: usize| {
        shown["runs"][run]["conditions"]
            .as_array()
            .expect("conditions")
            .iter()
            .find(|c| c["field"] == "first-trial check")
            .and_then(|c| c["value"].as_str().map(str::to_owned))
    };
    let stored = check_of(0).expect("run 1 keeps the check");
    // S12: both figures in the display unit of the rest's median (µs or ms for `true`).
    assert!(stored.starts_with("first value ") && stored.contains("s against the median of the rest "), "{stored}");
    // After a warm-up of 2 it is kept only as a first trial that still stands out.
    assert!(check_of(1).is_none_or(|c| c.contains("stands out")), "{:?}", check_of(1));
}

// SPEC E5, S7: an interleaved comparison claims sleep 0.1 against 0.05.
// (Sleeps long enough that a loaded machine's few milliseconds of process
// start-up stay under a tenth of each median: a noisier row is never
// claimed, S4.)
#[test]
fn interleaved_comparison_claims_the_difference() {
    let o = vernier(&["bench", "-n", "11", "--json", "--vs", "sleep 0.1", "--", "sleep", "0.05"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let c = &v["comparison"];
    // SPEC E18: on a machine so loaded that the floor its own session
    // measured is above the difference, no claim is the right verdict, and
    // it says why; otherwise S7 claims it.
    let verdict = c["verdict"].as_str().unwrap_or_default();
    let floor = v["noise_floor"]["spread"].as_f64().expect("the session's floor");
    let effect = (c["ratio"].as_f64().expect("ratio") - 1.0).abs();
    if effect < floor {
        assert!(verdict.contains("below the instrument's noise floor"), "{c} (floor {floor})");
    } else {
        assert_eq!(c["claimed"], true, "{c} (floor {floor})");
    }
    let ratio = c["ratio"].as_f64().expect("ratio");
    // Each trial also pays for starting a process (a few ms, more on a busy
    // machine), which pulls the 2× of the sleeps towards 1×.
    assert!((1.2..2.5).contains(&ratio), "ratio {ratio}");
    assert!(v["order"]["confound"].is_boolean());
    assert_eq!(v["runs"].as_array().expect("two arms").len(), 2);
}

// SPEC E10: a failing command ends the run failed (exit 1), and with a
// notebook its trials are kept and noted.
#[test]
fn failing_command_is_exit_1_and_kept() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = vernier(&["bench", "-n", "5", "--notebook", &dir, "--", "false"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("failed (exit 1)"), "{}", stderr(&o));
    let shown = json(&vernier(&["show", &dir, "--json"]));
    assert_eq!(shown["runs"].as_array().expect("runs").len(), 0, "a failed run is not a row");
    let note = shown["notes"][0]["text"].as_str().expect("a note");
    assert!(note.contains("ended early") && note.contains("raw/failed-"), "{note}");
    let raw = std::fs::read_dir(Path::new(&dir).join("raw")).expect("raw").count();
    assert_eq!(raw, 1);
}

// SPEC C: a missing program is bad input, named.
#[test]
fn missing_program_is_exit_2() {
    let o = vernier(&["bench", "--", "no-such-program-vernier", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot run 'no-such-program-vernier'"), "{}", stderr(&o));
}

// SPEC E1, E10: a timeout kills the trial and its group within about a
// second, exit 1, and leaves no child behind.
#[test]
fn timeout_kills_and_leaves_nothing() {
    let start = Instant::now();
    let o = vernier(&["bench", "--timeout", "1", "--", "sh", "-c", "sleep 10.731 & sleep 10.732"]);
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("timeout"), "{}", stderr(&o));
    assert!(took < Duration::from_secs(5), "took {took:?}");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(processes_running(&["sleep", "10.731"]) + processes_running(&["sleep", "10.732"]), 0);
}

// SPEC E2, E4: invalid kernel parameters and an even count are refused.
#[test]
fn bad_parameters_are_exit_2() {
    let o = vernier(&["bench", "--kernel", "matmul-blocked", "--tile", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("tile must be at least 1"));
    let o = vernier(&["bench", "-n", "10", "--", "true"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("must be odd"));
    let o = vernier(&["bench", "--kernel", "quicksort"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("the kernels are seq, chase"));
}

fn kernel_median(kernel: &str, size: &str) -> f64 {
    let o = vernier(&["bench", "-n", "3", "--warmup", "1", "--json", "--kernel", kernel, "--size", size]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["runs"][0]["unit"], "ns/access");
    v["runs"][0]["median"].as_f64().expect("median")
}

// SPEC E2: a full-lap chase over 64 MiB is far slower per access than seq
// over the same array, and than chase over 16 KiB.
#[test]
fn chase_is_slower_than_seq_at_64_mib() {
    let chase_big = kernel_median("chase", "67108864");
    let seq_big = kernel_median("seq", "67108864");
    let chase_small = kernel_median("chase", "16384");
    assert!(chase_big > 3.0 * seq_big, "chase {chase_big} vs seq {seq_big} ns/access");
    assert!(chase_big > 3.0 * chase_small, "chase at 64 MiB {chase_big} vs 16 KiB {chase_small}");
}

// SPEC E9: every key, and what /proc/cpuinfo says.
#[test]
fn machine_reads_proc_cpuinfo() {
    let v = json(&vernier(&["machine", "--json"]));
    for key in [
        "cpu_model",
        "logical_cpus",
        "ram_bytes",
        "os",
        "kernel",
        "caches",
        "constant_tsc",
        "nonstop_tsc",
        "hypervisor",
        "governor",
        "freq_range_mhz",
        "perf_event_paranoid",
        "counters",
        "placement",
        "power_source",
        "load_average",
        "busy_processes",
        "compiler",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").expect("cpuinfo");
    if let Some(model) =
        cpuinfo.lines().find_map(|l| l.strip_prefix("model name").map(|r| r.trim_start_matches([' ', '\t', ':'])))
    {
        assert_eq!(v["cpu_model"], model.trim());
    }
    let processors = cpuinfo.lines().filter(|l| l.starts_with("processor")).count();
    assert_eq!(v["logical_cpus"].as_u64().expect("number") as usize, processors);
    let flags = cpuinfo.lines().find(|l| l.starts_with("flags")).unwrap_or_default();
    assert_eq!(v["constant_tsc"], flags.split_whitespace().any(|f| f == "constant_tsc"));
}

// SPEC E11: the instrument check reports each figure and never fails for
// want of counters.
#[test]
fn instrument_check_reports() {
    let o = vernier(&["instrument", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert!(v["timer_overhead_ns"].as_f64().expect("overhead") > 0.0);
    assert_eq!(v["noise_floor"]["runs"], 16);
    assert!(v["noise_floor"]["spread"].as_f64().expect("spread") >= 0.0);
    assert!(
        v["counters"].as_str().expect("text").starts_with("available")
            || v["counters"].as_str().expect("text").starts_with("not available")
    );
}

// SPEC C: a hyperfine export becomes a Runs row with Vernier's statistics.
#[test]
fn import_hyperfine_export() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/hyperfine-true.json");
    let o = vernier(&["import", "hyperfine", fixture, "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&vernier(&["show", &dir, "--json"]));
    let row = &v["runs"][0];
    assert_eq!(row["columns"]["Tag"], "MEASURED");
    assert_eq!(row["stats"]["n"], 5);
    assert_eq!(row["stats"]["median"], 0.00055);
    assert!(row["columns"]["n (warm-up + timed)"].as_str().expect("n").contains("not recorded"));
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, r#"{"results":[{"command":"x","times":[1.0,-2.0]}]}"#).expect("write");
    let o = vernier(&["import", "hyperfine", &bad.display().to_string(), "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be a measurement"), "{}", stderr(&o));
}

// SPEC N11, A2: a timed program's row states the build the student gave and
// the SHA-256 of the executable and of a script argument, never Vernier's
// toolchain; without a build and with an empty Environment field, the
// audit names the row under A2.
#[test]
fn a_command_row_states_the_build_given_and_the_program_that_ran() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let script = tmp.path().join("work.sh");
    std::fs::write(&script, "exit 0\n").expect("script");
    let script = script.display().to_string();
    let o = vernier(
        &["bench", "-n", "3", "--warmup", "0", "--build", "gcc -O2 -march=native", "--notebook", &dir]
            .into_iter()
            .chain(["--", "sh", script.as_str()])
            .collect::<Vec<_>>(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = vernier(&["bench", "-n", "3", "--warmup", "0", "--notebook", &dir, "--", "true"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let shown = json(&vernier(&["show", &dir, "--json"]));
    let conditions = |run: usize| -> Vec<(String, String)> {
        shown["runs"][run]["conditions"]
            .as_array()
            .expect("conditions")
            .iter()
            .map(|c| (c["field"].as_str().unwrap_or("").to_owned(), c["value"].as_str().unwrap_or("").to_owned()))
            .collect()
    };
    let value = |run: usize, field: &str| conditions(run).into_iter().find(|(f, _)| f == field).map(|(_, v)| v);
    assert_eq!(value(0, "build").as_deref(), Some("gcc -O2 -march=native"));
    assert_eq!(value(0, "compiler"), None, "Vernier's toolchain is not the program's build");
    let program = value(0, "program").expect("the program is identified");
    assert!(program.contains("/sh (SHA-256 ") && program.ends_with(')'), "{program}");
    let files = value(0, "argument files").expect("the script is identified");
    assert!(files.starts_with(&format!("{script} (SHA-256 ")), "{files}");
    assert_eq!(value(1, "build"), None, "no build given, none stated under Environment");

    let long = String::from_utf8_lossy(&vernier(&["show", &dir, "--run", "1", "--form", "long"]).stdout).into_owned();
    assert!(long.contains("build: gcc -O2 -march=native") && !long.contains("rustc"), "{long}");
    let audit = String::from_utf8_lossy(&vernier(&["audit", &dir]).stdout).into_owned();
    // The A2 heading, then its findings indented under it.
    let a2: Vec<&str> =
        audit.lines().skip_while(|l| !l.starts_with("A2")).skip(1).take_while(|l| l.starts_with(' ')).collect();
    assert!(a2.iter().any(|l| l.contains("run 2") && l.contains("build flags")), "{audit}");
    assert!(!a2.iter().any(|l| l.contains("run 1") && l.contains("build flags")), "{audit}");
}

/// The value of `field` among run `run`'s conditions in `show --json`.
#[cfg(unix)]
fn condition(shown: &serde_json::Value, run: usize, field: &str) -> Option<String> {
    shown["runs"][run]["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .find(|c| c["field"] == field)
        .and_then(|c| c["value"].as_str().map(str::to_owned))
}

// SPEC N11, E12, E13 (issue 33): each arm of `--vs` keeps its own build
// (-O2 against -O3), shown by `show`; `--build-a` without `--vs` is bad
// input; a `--shell` row names its script's SHA-256; every row records its
// CPU time in `--json`'s `work`; `--sanity` is kept with its kernel row.
#[cfg(unix)]
#[test]
fn each_arm_keeps_its_build_a_shell_script_is_hashed_and_the_sanity_check_is_kept() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = vernier(&[
        "bench",
        "-n",
        "3",
        "--warmup",
        "0",
        "--build-a",
        "g++ -O2",
        "--build-b",
        "g++ -O3",
        "--vs",
        "true b",
        "--notebook",
        &dir,
        "--",
        "true",
        "a",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("  build: g++ -O2") && text.contains("  build: g++ -O3"), "{text}");
    let shown = json(&vernier(&["show", &dir, "--json"]));
    let value = |run: usize, field: &str| condition(&shown, run, field);
    assert_eq!((value(0, "build").as_deref(), value(1, "build").as_deref()), (Some("g++ -O2"), Some("g++ -O3")));
    assert!(shown["runs"][0]["work"]["cpu_s"]["median"].is_number(), "{}", shown["runs"][0]["work"]);
    // Given even where the file leaves them out (none waited; the
    // snapshot's counters sentence).
    assert!(shown["runs"][0]["work"]["waited"].is_number(), "{}", shown["runs"][0]["work"]);
    assert!(
        shown["runs"][0]["work"]["counters"].as_str().is_some_and(|c| !c.is_empty()),
        "{}",
        shown["runs"][0]["work"]
    );

    let o = vernier(&["bench", "-n", "3", "--build-a", "g++ -O2", "--", "true"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    let script = tmp.path().join("s.sh");
    std::fs::write(&script, "exit 0\n").expect("script");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let o = vernier(&[
        "bench",
        "-n",
        "3",
        "--warmup",
        "0",
        "--shell",
        "--notebook",
        &dir,
        "--",
        &script.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let shown = json(&vernier(&["show", &dir, "--json"]));
    let files = condition(&shown, 2, "argument files").unwrap_or_default();
    let sha = vernier_engine::digest::sha256_hex(b"exit 0\n");
    assert!(files.contains(&format!("s.sh (in -c) (SHA-256 {sha})")), "{files}");

    let o = vernier(&["bench", "--kernel", "seq", "--size", "65536", "-n", "3", "--sanity", "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let long = String::from_utf8_lossy(&vernier(&["show", &dir, "--run", "4", "--form", "long"]).stdout).into_owned();
    assert!(long.contains("sanity check: the input grown from"), "{long}");
    assert!(long.contains("work: CPU time"), "{long}");
}

// SPEC S11, E5, C: `bench --vs` names its arms, prints and stores the
// paired ratios B/A and the order effect beside the verdict; `show` lists
// the pair under its two rows; labels without a second arm are refused.
#[test]
fn a_comparison_has_labels_paired_ratios_and_an_order_effect() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let args = ["bench", "-n", "5", "--warmup", "1", "--what", "sleep", "--label-a", "long", "--label-b", "short"];
    let o = vernier(
        &args
            .into_iter()
            .chain(["--vs", "sleep 0.002", "--json", "--notebook", &dir, "--", "sleep", "0.02"])
            .collect::<Vec<_>>(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&o);
    let c = &v["comparison"];
    assert_eq!((c["label_a"].as_str(), c["label_b"].as_str()), (Some("long"), Some("short")));
    assert_eq!(c["paired_ratio"]["n"], 5);
    let ratio = c["paired_ratio"]["median"].as_f64().expect("paired median");
    assert!(ratio > 0.0 && ratio < 1.0, "{ratio}");
    assert!(c["paired_ratio"]["iqr"].as_f64().is_some());
    assert!(c["order_effect"].as_f64().is_some());
    // Claimed, or not on a loaded machine: the labels name the arms either way.
    let verdict = c["verdict"].as_str().unwrap_or_default();
    assert!(verdict.contains("short is") || verdict.contains("between long and short"), "{c}");

    let shown = String::from_utf8_lossy(&vernier(&["show", &dir]).stdout).into_owned();
    assert!(shown.contains("C1 (1 vs 2)"), "{shown}");
    assert!(shown.contains("C1: long (run 1) vs short (run 2)"), "{shown}");
    let j = json(&vernier(&["show", &dir, "--json"]));
    assert_eq!(j["comparisons"][0]["runs"], serde_json::json!([1, 2]));
    assert_eq!(j["runs"][0]["columns"]["What"], "sleep: long");
    let short = String::from_utf8_lossy(&vernier(&["show", &dir, "--run", "2", "--form", "short"]).stdout).into_owned();
    assert!(short.lines().nth(1).is_some_and(|l| l.starts_with("sleep: median ")), "{short}");

    let o = vernier(&["bench", "-n", "3", "--label-a", "x", "--", "true"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--label-a and --label-b name the arms of a comparison"), "{}", stderr(&o));
}

// SPEC S5, S12: `bench` prints each arm's figures in the unit its median is
// shown in, with the drift beside the IQR; its JSON keeps the base unit and
// adds `display_unit`; the recorded row shows the same in `show`.
#[test]
fn bench_shows_drift_and_display_units() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = vernier(&["bench", "-n", "5", "--warmup", "1", "--notebook", &dir, "--", "true"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let figures = text.lines().nth(1).expect("the figures line");
    // `true` takes microseconds to a few milliseconds: never shown in seconds.
    assert!(figures.contains(" µs (IQR ") || figures.contains(" ms (IQR "), "{text}");
    assert!(figures.contains(" · drift "), "{text}");
    assert!(figures.ends_with(", n=5 (+1 warm-up)"), "{text}");
    assert!(!text.contains("99999") && !text.contains("0.000"), "no float artefact, no leading zeros: {text}");

    let v = json(&vernier(&["bench", "-n", "3", "--warmup", "0", "--json", "--", "true"]));
    let run = &v["runs"][0];
    assert_eq!(run["unit"], "s");
    assert!(matches!(run["display_unit"].as_str(), Some("µs" | "ms")), "{run}");
    assert!(run["median"].as_f64().is_some_and(|m| m < 1.0), "the value stays in seconds: {run}");

    let shown = json(&vernier(&["show", &dir, "--json"]));
    let row = &shown["runs"][0];
    assert!(matches!(row["display_unit"].as_str(), Some("µs" | "ms")), "{row}");
    let dispersion = row["columns"]["Dispersion"].as_str().expect("Dispersion");
    assert!(dispersion.starts_with("IQR ") && dispersion.contains(" · drift "), "{dispersion}");
    assert!(row["stats"]["halves"]["first"].is_f64(), "the halves are kept with the row: {row}");
}

// SPEC A18 (amended): a run given an unoptimised build is warned about when
// it is measured — before the trials and beside its row — and an import
// given one is warned about when it is recorded; a build with a level is
// not.
#[test]
fn an_unoptimised_build_is_warned_about_at_once() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o =
        vernier(&["bench", "-n", "3", "--warmup", "0", "--notebook", &dir, "--build", "g++ -O0 mm.cpp", "--", "true"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let warning = "A18: built without optimisation (-O0) — a diagnostic, never a result";
    assert!(stderr(&o).contains(warning), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("warning: {warning}")));
    let o =
        vernier(&["bench", "-n", "3", "--warmup", "0", "--notebook", &dir, "--build", "g++ -O2 mm.cpp", "--", "true"]);
    assert!(!stderr(&o).contains("A18"), "{}", stderr(&o));
    let csv = tmp.path().join("t.csv");
    std::fs::write(&csv, "t_ms\n1\n2\n3\n").expect("csv");
    let csv = csv.display().to_string();
    let o = vernier(&["import", "csv", &csv, "--notebook", &dir, "--column", "t_ms", "--build", "clang mm.c"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("A18: built with no stated optimisation level"), "{}", stderr(&o));
}

// SPEC S11 (issue 49, item 4): a row's name says what differs. Kernel arms
// under --what without labels are named by their kernel, not "A" and "B";
// two arms of the same command by their arm, so no two rows share a name.
#[test]
fn rows_are_named_by_what_differs() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let quick = ["bench", "--json", "--notebook", &dir, "-n", "1", "--warmup", "0"];
    let kernels = ["--kernel", "seq", "--vs-kernel", "chase", "--size", "4096", "--what", "walks"];
    let o = vernier(&[&quick[..], &kernels[..]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let same = ["--vs", "true", "--", "true"];
    let o = vernier(&[&quick[..], &same[..]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let shown = json(&vernier(&["show", &dir, "--json"]));
    let names: Vec<String> = shown["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| r["columns"]["What"].as_str().expect("what").to_owned())
        .collect();
    assert!(names[0].starts_with("walks: seq") && names[1].starts_with("walks: chase"), "{names:?}");
    assert_eq!(names[2..], ["true (arm A)", "true (arm B)"]);
    assert!(!names.iter().any(|n| n.ends_with(": A") || n.ends_with(": B")), "{names:?}");
}

// SPEC S19 (issue 48 item 2): with --budget each row keeps how many timed
// trials missed it and its 95th percentile beside the median (the max, and
// why, below 20 trials); `show` says it in text and JSON, the long form
// has it; a row with no budget says nothing of one. E18: the session's
// noise floor is kept with the row and shown.
#[test]
fn a_budget_gives_each_row_its_tail() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let bench = |extra: &[&str]| {
        let mut args = vec!["bench", "--notebook", &dir, "--warmup", "1"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", "sleep", "0.01"]);
        let o = vernier(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        common::text(&o)
    };
    let printed = bench(&["-n", "21", "--budget", "0.001"]);
    bench(&["-n", "5", "--budget", "10"]);
    bench(&["-n", "5"]);

    let shown = json(&vernier(&["show", &dir, "--json"]));
    let tail = &shown["runs"][0]["tail"];
    assert_eq!((tail["missed"].as_u64(), tail["n"].as_u64()), (Some(21), Some(21)), "{tail}");
    assert_eq!(tail["budget"], 0.001);
    assert_eq!(tail["p95_shown"], true);
    assert!(tail["p95"].as_f64().expect("p95") >= shown["runs"][0]["stats"]["median"].as_f64().expect("median"));
    let sentence = tail["sentence"].as_str().expect("sentence");
    assert!(sentence.starts_with("budget 1 ms: 21 of 21 timed trials missed it (took longer); p95 "), "{sentence}");
    assert!(sentence.ends_with("(interpolated between closest ranks)"), "{sentence}");
    let few = shown["runs"][1]["tail"]["sentence"].as_str().expect("sentence");
    assert!(few.starts_with("budget 10000 ms: 0 of 5 timed trials missed it (took longer); max "), "{few}");
    assert!(few.contains("5 trials are too few for a 95th percentile"), "{few}");
    assert!(shown["runs"][2]["tail"].is_null(), "no budget, no tail");
    let floor = &shown["runs"][0]["noise_floor"];
    assert_eq!(floor["runs"], 16, "{floor}");
    assert!(floor["spread"].as_f64().expect("spread") >= 0.0);

    let text = common::text(&vernier(&["show", &dir]));
    assert!(text.contains(&format!("run 1: {sentence}")), "{text}");
    assert!(text.contains(&format!("run 2: {few}")), "{text}");
    assert!(!text.contains("run 3: budget"), "{text}");
    assert_eq!(text.matches("noise floor of run").count(), 3, "one session each: {text}");
    let long = common::text(&vernier(&["show", &dir, "--run", "1"]));
    assert!(long.contains(&format!("tail: {sentence}")), "{long}");
    assert!(long.contains("noise floor: "), "{long}");
    assert!(!common::text(&vernier(&["show", &dir, "--run", "3"])).contains("tail:"));
    // What bench printed as it recorded the run says the same.
    assert!(printed.contains(&format!("\n  tail: {sentence}\n")), "{printed}");
    assert!(printed.contains(" · noise floor "), "{printed}");
}

// SPEC S19 (issue 48 item 2): the notebook's trial budget, set as a field
// (`set DIR "Trial budget" SECONDS`), holds every new run that states no
// budget of its own; `--budget` still wins; a kernel's ns/access run is
// recorded without a tail, not refused; each row keeps the budget it was
// measured against when the notebook's changes or is cleared; what is not
// a budget is refused and changes nothing.
#[test]
fn the_notebooks_trial_budget_holds_new_runs() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let set = |value: &str| vernier(&["set", &dir, "Trial budget", value]);
    let said = stdout(&ok(set("0.0167")));
    assert!(said.contains("trial budget set: 16.7 ms; new runs that state no budget of their own are held to it"));
    for refused in ["-1", "0", "fast", "1e9"] {
        let o = set(refused);
        assert_eq!(o.status.code(), Some(2), "{refused}: {}", stderr(&o));
        assert!(stderr(&o).contains("a trial's budget is a number of seconds from 0.001"), "{}", stderr(&o));
    }
    let bench = |extra: &[&str]| {
        let mut args = vec!["bench", "--notebook", &dir, "-n", "3", "--warmup", "0"];
        args.extend_from_slice(extra);
        ok(vernier(&args))
    };
    bench(&["--", "true"]);
    bench(&["--budget", "0.5", "--", "true"]);
    bench(&["--kernel", "seq", "--size", "4096"]);
    let shown = json(&vernier(&["show", &dir, "--json"]));
    assert_eq!(shown["trial_budget"], 0.0167);
    let budget = |shown: &serde_json::Value, run: usize| shown["runs"][run]["tail"]["budget"].as_f64();
    assert_eq!((budget(&shown, 0), budget(&shown, 1)), (Some(0.0167), Some(0.5)));
    assert!(shown["runs"][2]["tail"].is_null(), "ns/access cannot miss a time: {}", shown["runs"][2]);
    assert!(
        text(&vernier(&["show", &dir]))
            .contains("Trial budget: 16.7 ms (new runs that state no budget are held to it)")
    );

    ok(set("0.002"));
    bench(&["--", "true"]);
    assert!(stdout(&ok(set(""))).contains("trial budget cleared"));
    bench(&["--", "true"]);
    let shown = json(&vernier(&["show", &dir, "--json"]));
    assert!(shown["trial_budget"].is_null());
    assert_eq!(budget(&shown, 0), Some(0.0167), "a recorded row keeps its budget");
    assert_eq!(budget(&shown, 3), Some(0.002));
    assert!(shown["runs"][4]["tail"].is_null(), "no budget stated anywhere, none held");
    assert!(!text(&vernier(&["show", &dir])).contains("Trial budget:"));

    // A reproduction is held to the budget their row was (run 2's own
    // 0.5 s), not to this notebook's; a row of theirs without one takes
    // this notebook's.
    let mine = tmp.path().join("mine");
    ok(vernier(&["new", mine.to_str().expect("utf-8")]));
    let mine = mine.to_str().expect("utf-8");
    ok(vernier(&["set", mine, "Trial budget", "0.003"]));
    for row in ["2", "5"] {
        ok(vernier(&["reproduce", "--notebook", mine, &dir, "--row", row, "--yes", "--allow-inline-code"]));
    }
    let shown = json(&vernier(&["show", mine, "--json"]));
    assert_eq!((budget(&shown, 0), budget(&shown, 1)), (Some(0.5), Some(0.003)));
}

// SPEC S19: a budget is a time per trial; a kernel's ns/access is not one,
// so the run is refused before it starts, saying why.
#[test]
fn a_budget_needs_trials_in_a_time() {
    let o = vernier(&["bench", "--kernel", "seq", "--size", "4096", "-n", "3", "--budget", "0.01"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("'ns/access', which is not a time per trial"), "{}", stderr(&o));
}

// SPEC S18 (issue 48): `--check REGEX` reads each trial's result from what
// it prints. Arms that printed the same result say so beside the verdict
// and keep it with their rows; arms that printed different results, or an
// arm whose own trials disagreed, make no claim and say why; a kernel,
// which verifies its own result, is refused the option.
#[test]
fn check_compares_what_the_arms_printed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let check = r"checksum=(\S+)";
    let same = ok(vernier(&[
        "bench",
        "-n",
        "3",
        "--warmup",
        "1",
        "--check",
        check,
        "--notebook",
        &dir,
        "--vs",
        "echo checksum=42",
        "--",
        "echo",
        "checksum=42",
    ]));
    assert!(stdout(&same).contains("results: the arms' results agree (42)"), "{}", stdout(&same));
    let shown = json(&vernier(&["show", &dir, "--json"]));
    let kept = shown["runs"][0]["conditions"].to_string();
    assert!(kept.contains(r"the same in every trial's output, read by --check 'checksum=(\\S+)'; 42"), "{kept}");
    let compared = ok(vernier(&["compare", "--notebook", &dir, "--run", "1", "--run", "2"]));
    assert!(text(&compared).contains("the arms' results agree (42)"), "{}", text(&compared));

    let differ = vernier(&[
        "bench",
        "-n",
        "3",
        "--warmup",
        "1",
        "--json",
        "--check",
        check,
        "--vs",
        "echo checksum=43",
        "--",
        "echo",
        "checksum=42",
    ]);
    assert_eq!(differ.status.code(), Some(0), "{}", stderr(&differ));
    let c = &json(&differ)["comparison"];
    assert_eq!(c["claimed"], false, "{c}");
    let verdict = c["verdict"].as_str().unwrap_or_default();
    assert!(verdict.contains("no claim") && verdict.contains("the arms' results differ:"), "{verdict}");
    assert!(verdict.contains("42") && verdict.contains("43"), "both results are named: {verdict}");

    // Each trial prints its own process id: the arm disagrees with itself.
    let unsteady = vernier(&[
        "bench",
        "-n",
        "3",
        "--warmup",
        "1",
        "--json",
        "--check",
        check,
        "--vs",
        "echo checksum=42",
        "--",
        "sh",
        "-c",
        "echo checksum=$$",
    ]);
    let verdict = json(&unsteady)["comparison"]["verdict"].as_str().unwrap_or_default().to_owned();
    assert!(verdict.contains("no claim") && verdict.contains("checksums differ between trials"), "{verdict}");

    let kernel = vernier(&["bench", "--kernel", "seq", "--check", check]);
    assert_eq!(kernel.status.code(), Some(2), "{}", text(&kernel));
    assert!(stderr(&kernel).contains("a built-in kernel verifies its own"), "{}", stderr(&kernel));
    let bad = vernier(&["bench", "--check", "(", "--", "true"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("--check is not a regular expression"), "{}", stderr(&bad));
}

// SPEC E19: a row keeps its fixed inputs — a kernel's own seed and size, a
// command's --seed and --size read from its arguments, and what the student
// states with --inputs — and a command that shows none keeps nothing.
#[test]
fn a_row_keeps_its_fixed_inputs() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    ok(vernier(&["bench", "-n", "3", "--warmup", "0", "--notebook", &dir, "--kernel", "chase", "--size", "65536"]));
    ok(vernier(&[
        "bench",
        "-n",
        "3",
        "--warmup",
        "0",
        "--notebook",
        &dir,
        "--inputs",
        "data/graph.bin",
        "--",
        "true",
        "--seed",
        "7",
        "--size=100",
    ]));
    ok(vernier(&["bench", "-n", "3", "--warmup", "0", "--notebook", &dir, "--", "true"]));
    let shown = json(&vernier(&["show", &dir, "--json"]));
    let inputs = |i: usize| {
        shown["runs"][i]["conditions"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["field"] == "inputs"))
            .and_then(|c| c["value"].as_str())
            .map(str::to_owned)
    };
    assert_eq!(
        inputs(0).as_deref(),
        Some("seed 12345 (the random cycle through the array), working set 64 KiB (Vernier's kernel)")
    );
    assert_eq!(
        inputs(1).as_deref(),
        Some("seed 7, input size 100 (read from its arguments); data/graph.bin (as stated)")
    );
    assert_eq!(inputs(2), None, "{}", shown["runs"][2]["conditions"]);

    // SPEC E7, E18 (course 003): the canary judged against the session's
    // floor, the same sentence in the long form and in --json.
    let verdict = shown["runs"][0]["canary_verdict"]["sentence"].as_str().expect("a judged canary").to_owned();
    assert!(
        ["within its noise floor", "longer at the end", "less time at the end"].iter().any(|v| verdict.contains(v)),
        "{verdict}"
    );
    let long = stdout(&ok(vernier(&["show", &dir, "--run", "1"])));
    assert!(long.contains(&format!("canary: {verdict}")), "{long}");
}
