//! Reproducing a classmate's row (SPEC R1–R3) and reading a foreign
//! workbook (D4), run as a user would: the real binary, with hostile input.

use std::collections::BTreeMap;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::common;
use common::{compacting, foreign_workbook, ok, text, vernier};

/// Every file under `dir` with its SHA-256: proof that nothing was written.
fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("read");
                out.insert(path.display().to_string(), format!("{:x}", Sha256::digest(&bytes)));
            }
        }
    }
    out
}

/// Two new notebooks in a temporary folder: theirs and mine, as paths.
fn two_notebooks() -> (tempfile::TempDir, String, String) {
    let tmp = tempfile::tempdir().expect("tmp");
    let [theirs, mine] = ["theirs", "mine"].map(|name| tmp.path().join(name).display().to_string());
    ok(vernier(&["new", &theirs]));
    ok(vernier(&["new", &mine]));
    (tmp, theirs, mine)
}

/// Their notebook with one measured run of `true` (n = 3), and my empty one.
fn theirs_and_mine() -> (tempfile::TempDir, String, String) {
    let (tmp, theirs, mine) = two_notebooks();
    // Folded into notebook.ron, which some tests edit by hand.
    ok(compacting(&["bench", "-n", "3", "--notebook", &theirs, "--", "true"]));
    (tmp, theirs, mine)
}

fn run_count(dir: &str) -> usize {
    let o = vernier(&["show", dir, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    v["runs"].as_array().expect("runs").len()
}

// SPEC R1–R3: without --yes nothing runs; with it the row is rerun, recorded
// in my notebook with a reference to theirs, and their folder is unchanged.
#[test]
fn reproduce_a_classmates_notebook_row() {
    let (_tmp, theirs, mine) = theirs_and_mine();
    let before = snapshot(Path::new(&theirs));

    let o = vernier(&["reproduce", &theirs, "--row", "1", "--notebook", &mine]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let shown = text(&o);
    assert!(shown.contains("command: true") && shown.contains("timed trials: 3"), "{shown}");
    assert!(shown.contains("add --yes"), "{shown}");
    assert_eq!(run_count(&mine), 0, "nothing ran without --yes");
    // SPEC N13: `true` is a program of this machine with their arguments,
    // not one their row vouches for: --yes alone runs nothing.
    let o = vernier(&["reproduce", &theirs, "--row", "1", "--notebook", &mine, "--yes"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("runs true with their arguments: such a program can run code they wrote"),
        "{}",
        text(&o)
    );
    assert_eq!(run_count(&mine), 0, "nothing ran on the first consent alone");

    let o = rerun(&theirs, "1", &mine, &["--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["ran"], true);
    assert_eq!(v["recorded_run"], 1);
    assert_eq!(v["mine"]["timed"], 3);
    assert!(v["verdict"]["verdict"].as_str().is_some_and(|s| s.starts_with("median (s)")), "{v}");
    assert_eq!(run_count(&mine), 1);
    let notes = text(&vernier(&["show", &mine]));
    assert!(notes.contains(&format!("reproduces run 1 of {theirs}")), "{notes}");
    assert_eq!(snapshot(Path::new(&theirs)), before, "their files are never written");

    let o = vernier(&["reproduce", &theirs, "--row", "1", "--notebook", &theirs, "--yes"]);
    assert_eq!(o.status.code(), Some(2), "recording into their own notebook is refused");
    assert_eq!(vernier(&["reproduce", &theirs, "--row", "9", "--notebook", &mine]).status.code(), Some(2));
}

// SPEC D4, R1, untrusted input: a foreign workbook is read by header names;
// what cannot be read is listed; metacharacters in a command are arguments,
// a shell's `-c` needs its own consent, and a raw-file path is only text.
#[test]
fn foreign_workbook_is_read_by_headers_and_never_trusted() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mine = tmp.path().join("mine").display().to_string();
    ok(vernier(&["new", &mine]));
    let book = tmp.path().join("measurements.xlsx");
    let pwned = tmp.path().join("PWNED");
    let inject = format!("true ; touch {} $(touch {})", pwned.display(), pwned.display());
    foreign_workbook(
        &book,
        &[
            [
                "1",
                "true with extra words",
                &inject,
                "2 + 3",
                "0.0007 s",
                "IQR 0.0001 s",
                "0.0006 / 0.0009 s",
                "power source: battery; governor: powersave",
                "../../../etc/hostname",
                "MEASURED",
            ],
            ["2", "shell", "sh -c 'touch PWNED'", "3 + 5", "0.002 s", "IQR 0.0002 s", "", "", "", "MEASURED"],
            ["3", "bad", "true", "3 + 5", "fast", "IQR 1 s", "", "", "", "MEASURED"],
            ["4", "huge", "true", "3 + 99999999", "1 s", "IQR 1 s", "", "", "", "MEASURED"],
        ],
    );
    let book = book.display().to_string();
    let before = snapshot(tmp.path().join("measurements.xlsx").parent().expect("dir"));
    let o = vernier(&["show", &book]);
    assert_eq!(o.status.code(), Some(1), "problems are findings: {}", text(&o));
    let shown = text(&o);
    assert!(shown.contains("not written by Vernier"), "{shown}");
    assert!(shown.contains("Runs row 4: Median 'fast' does not start with a number"), "{shown}");
    assert!(shown.contains("Runs row 5: n claims 99999999 timed trials"), "{shown}");
    assert!(shown.contains("no 'Predictions' sheet"), "{shown}");
    assert!(shown.contains("ThinkPad X1"), "{shown}");

    let o = vernier(&["reproduce", &book, "--row", "2", "--notebook", &mine, "--yes"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("runs code written in their file (sh -c)"), "{}", text(&o));

    let o = rerun(&book, "1", &mine, &[]);
    let shown = text(&o);
    assert!(shown.contains("verdict (R4)"), "{shown}");
    assert!(shown.contains("power source") && shown.contains("battery"), "the diff names the power source: {shown}");
    assert!(!pwned.exists(), "a metacharacter in a foreign command was interpreted");
    let mut after = snapshot(tmp.path());
    after.retain(|k, _| !k.contains("/mine/"));
    let mut before = before;
    before.retain(|k, _| !k.contains("/mine/"));
    assert_eq!(after, before, "the workbook was not written");
}

// Untrusted input: a raw-file path that leaves a foreign notebook is refused
// when the notebook is opened, before anything reads it.
#[test]
fn raw_path_outside_a_foreign_notebook_is_refused() {
    let (_tmp, theirs, mine) = theirs_and_mine();
    let file = Path::new(&theirs).join("notebook.ron");
    let ron = std::fs::read_to_string(&file).expect("read");
    let start = ron.find("path: \"raw/").expect("a raw path");
    let end = start + ron[start..].find(".csv\"").expect("end") + 5;
    std::fs::write(&file, format!("{}path: \"../../../etc/hostname\"{}", &ron[..start], &ron[end..])).expect("write");
    for args in [vec!["show", theirs.as_str()], vec!["reproduce", &theirs, "--row", "1", "--notebook", &mine, "--yes"]]
    {
        let o = vernier(&args);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains("../../../etc/hostname"), "the refusal names the path: {}", text(&o));
    }
}

/// A foreign workbook with one row per `(what, command, conditions)`, each
/// of 2 warm-up and 3 timed trials.
fn workbook_of(path: &Path, rows: &[(&str, &str, &str)]) {
    let numbers: Vec<String> = (1..=rows.len()).map(|n| n.to_string()).collect();
    let cells: Vec<[&str; 10]> = rows
        .iter()
        .zip(&numbers)
        .map(|(&(what, command, conditions), n)| {
            [n, what, command, "2 + 3", "0.001 s", "IQR 0.0001 s", "", conditions, "", "MEASURED"]
        })
        .collect();
    foreign_workbook(path, &cells);
}

/// The bytes that would act on a terminal, a C1 CSI and the bidi marks included.
fn acting(stdout: &[u8]) -> bool {
    let text = String::from_utf8_lossy(stdout);
    stdout.contains(&0x1b) || stdout.contains(&b'\r') || text.contains(['\u{9b}', '\u{202e}', '\u{2066}', '\u{200f}'])
}

// SPEC N10, R2: escape sequences, C1 and bidi characters in a classmate's
// cells (written by the workbook as `_x001B_`, decoded by the reader) are
// shown as visible escapes by `show` and in `reproduce`'s plan: they can
// neither erase the plan's lines nor reorder them. Nothing runs without --yes.
#[test]
fn escape_sequences_in_their_cells_are_shown_inert() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mine = tmp.path().join("mine").display().to_string();
    ok(vernier(&["new", &mine]));
    let book = tmp.path().join("measurements.xlsx");
    let marker = tmp.path().join("SPOOFED");
    let touch = format!("touch {}", marker.display());
    workbook_of(
        &book,
        &[
            ("seq\u{9b}2J \u{202e}txt.exe\u{2066}", &touch, "governor: x\x1b[2K\rcommand: true\u{200f}"),
            ("spoof", "'\x1b[2K\rcommand: true'", "power source: battery"),
        ],
    );
    let book = book.display().to_string();

    let o = vernier(&["show", &book]);
    assert!(!acting(&o.stdout), "show printed an acting character: {:?}", text(&o));
    let shown = text(&o);
    assert!(shown.contains(r"\x1b[2K\x0dcommand: true"), "{shown}");
    assert!(shown.contains(r"seq\u009b2J \u202etxt.exe\u2066"), "{shown}");

    for row in ["1", "2"] {
        let o = vernier(&["reproduce", &book, "--row", row, "--notebook", &mine]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(!acting(&o.stdout), "the plan printed an acting character: {:?}", text(&o));
        let plan = text(&o);
        assert!(plan.contains(r"\x1b[2K\x0dcommand: true"), "{plan}");
        let shown: usize =
            plan.lines().filter(|l| !l.contains("WARNING")).map(|l| l.matches("command: ").count()).sum();
        assert_eq!(shown, 2, "one command line, one visible spoof: {plan}");
    }
    let plan = text(&vernier(&["reproduce", &book, "--row", "1", "--notebook", &mine]));
    assert!(plan.contains(&format!("command: touch {}", marker.display())), "the real command is shown: {plan}");
    let plan = text(&vernier(&["reproduce", &book, "--row", "2", "--notebook", &mine, "--json"]));
    let v: serde_json::Value = serde_json::from_str(plan.trim()).expect("JSON made inert is still JSON");
    assert_eq!(v["plan"]["commands"][0][0], "\x1b[2K\rcommand: true", "the data itself is unchanged");
    assert!(!marker.exists(), "nothing ran without --yes");
}

// SPEC R2: a row that runs code written in their file (here through `env`)
// is refused with --yes alone, naming why, and runs with --allow-inline-code.
#[test]
fn inline_code_needs_its_own_consent() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mine = tmp.path().join("mine").display().to_string();
    ok(vernier(&["new", &mine]));
    let book = tmp.path().join("measurements.xlsx");
    let marker = tmp.path().join("X");
    let command = format!("env sh -c 'touch {}'", marker.display());
    workbook_of(&book, &[("inline", &command, "")]);
    let book = book.display().to_string();

    let o = vernier(&["reproduce", &book, "--row", "1", "--notebook", &mine]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let warning =
        format!("WARNING: env sh -c 'touch {}' runs code written in their file (env … sh -c)", marker.display());
    assert!(text(&o).contains(&warning), "{}", text(&o));
    assert!(text(&o).contains("add --yes --allow-inline-code"), "{}", text(&o));

    let o = vernier(&["reproduce", &book, "--row", "1", "--notebook", &mine, "--yes"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("runs code written in their file (env … sh -c)"), "{}", text(&o));
    assert!(text(&o).contains("--allow-inline-code"), "{}", text(&o));
    assert!(!marker.exists(), "--yes alone ran inline code");
    assert_eq!(run_count(&mine), 0);

    // With both consents it runs — and, where Landlock confines it, its
    // write outside the scratch folder is refused (SPEC N13, R5): the
    // trial fails and the marker is not made.
    let plan = text(&vernier(&["reproduce", &book, "--row", "1", "--notebook", &mine]));
    let confined = plan.contains("confinement: writes confined to the scratch folder (Landlock)");
    assert!(confined || plan.contains("confinement: not confined"), "{plan}");
    let o = vernier(&["reproduce", &book, "--row", "1", "--notebook", &mine, "--yes", "--allow-inline-code"]);
    if confined {
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(text(&o).contains("the rerun failed"), "{}", text(&o));
        assert!(!marker.exists(), "a write outside the scratch folder was let through");
        assert_eq!(run_count(&mine), 0, "no trial ended well");
    } else {
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(marker.exists(), "with both consents it runs");
        assert_eq!(run_count(&mine), 1);
    }
}

// SPEC N11, R3: a rerun of a different program is named in the conditions
// that differ — their script's SHA-256 against the one that ran here.
#[test]
fn a_different_script_is_named_among_the_differences() {
    let (tmp, theirs, mine) = two_notebooks();
    let script = tmp.path().join("work.sh");
    std::fs::write(&script, "exit 0\n").expect("script");
    let script = script.display().to_string();
    ok(vernier(&["bench", "-n", "3", "--notebook", &theirs, "--", "sh", &script]));
    std::fs::write(&script, "true\nexit 0\n").expect("a different script");
    let o = rerun(&theirs, "1", &mine, &["--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let diff = v["env_diff"].as_array().unwrap_or_else(|| panic!("a diff: {v}"));
    let files = diff.iter().find(|d| d["field"] == "argument files").unwrap_or_else(|| panic!("{v}"));
    let [theirs, ours] = [&files["theirs"], &files["ours"]].map(|s| s.as_str().unwrap_or_default().to_owned());
    assert!(theirs.contains("(SHA-256 ") && ours.contains("(SHA-256 ") && theirs != ours, "{files}");
}

/// A script whose time depends on a mode file beside it, so one command
/// (its count of runs kept in `$TMPDIR`, the only folder a rerun may write
/// in: SPEC N13)
/// (the same script, the same SHA-256) can be precise for them and noisy,
/// or slow, for the rerun: `quiet` sleeps 50, 60 or 70 ms in turn (median
/// 60 ms, IQR 20 ms: wider than the few milliseconds a busy machine adds to
/// starting the script, so a quiet rerun on a machine busier or calmer
/// than theirs still does not differ); `noisy` sleeps 10, 50 or 150 ms in
/// turn (median 50 ms, IQR 140 ms: its fraction about eight times a quiet
/// run's); `slow` sleeps 250 ms.
#[cfg(unix)]
fn moody_script(dir: &Path) -> (String, impl Fn(&str)) {
    let script = dir.join("moody.sh");
    std::fs::write(
        &script,
        "d=$(dirname \"$0\")\n\
         c=\"${TMPDIR:-/tmp}/moody-count-$(basename \"$d\")\"\n\
         n=$(cat \"$c\" 2>/dev/null || echo 0); echo $((n + 1)) > \"$c\"\n\
         case $(cat \"$d/mode\") in\n\
         quiet) case $((n % 3)) in 0) sleep 0.05 ;; 1) sleep 0.06 ;; *) sleep 0.07 ;; esac ;;\n\
         slow) sleep 1 ;;\n\
         noisy) case $((n % 3)) in 0) sleep 0.01 ;; 1) sleep 0.05 ;; *) sleep 0.15 ;; esac ;;\n\
         esac\n",
    )
    .expect("script");
    let mode = dir.join("mode");
    (script.display().to_string(), move |m: &str| std::fs::write(&mode, m).expect("mode"))
}

fn json_of(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)))
}

/// `vernier reproduce THEIRS --row ROW --notebook MINE --yes
/// --allow-inline-code MORE…`, which must succeed: the rows here measure
/// programs of this machine (`true`, `sh script`), which their row does not
/// vouch for, so they need the second consent (SPEC N13).
fn rerun(theirs: &str, row: &str, mine: &str, more: &[&str]) -> std::process::Output {
    let args = ["reproduce", theirs, "--row", row, "--notebook", mine, "--yes", "--allow-inline-code"];
    ok(vernier(&[&args[..], more].concat()))
}

/// [`rerun`] with `--json`, read.
fn rerun_json(theirs: &str, row: &str, mine: &str) -> serde_json::Value {
    json_of(&rerun(theirs, row, mine, &["--json"]))
}

/// `vernier bench -n 5 --warmup 1 --notebook DIR ARGS…`, which must succeed.
fn bench_five(dir: &str, args: &[&str]) {
    ok(vernier(&[&["bench", "-n", "5", "--warmup", "1", "--notebook", dir][..], args].concat()));
}

/// The value of condition `field` on run 1 of the notebook at `dir`.
fn first_condition(dir: &str, field: &str) -> Option<String> {
    json_of(&vernier(&["show", dir, "--json"]))["runs"][0]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["field"] == field)
        .and_then(|c| c["value"].as_str())
        .map(str::to_owned)
}

// SPEC R4: a precise row "reproduced" by a rerun as noisy as this one, with
// the same median, is inconclusive — never reproduced — and says why and
// what to do; the CLI, its JSON and the note say it in the same words.
#[cfg(unix)]
#[test]
fn a_noisy_rerun_of_a_precise_row_is_inconclusive() {
    let (tmp, theirs, mine) = two_notebooks();
    let (script, mode) = moody_script(tmp.path());
    mode("quiet");
    ok(vernier(&["bench", "-n", "9", "--warmup", "1", "--notebook", &theirs, "--", "sh", &script]));

    mode("noisy");
    let v = rerun_json(&theirs, "1", &mine);
    assert_eq!(v["outcome"], "inconclusive", "{v}");
    let sentence = v["verdict_text"].as_str().expect("verdict text");
    assert!(sentence.starts_with("inconclusive — the rerun is "), "{sentence}");
    assert!(sentence.contains("noisier than theirs") && sentence.contains("pin the run"), "{sentence}");
    let (their_median, my_median) = (v["theirs"]["median"].as_f64(), v["mine"]["median"].as_f64());
    let (t, m) = (their_median.expect("theirs"), my_median.expect("mine"));
    assert!((m / t - 1.0).abs() < 0.5, "the medians agree ({t} s, {m} s): only the noise differs");
    assert_eq!(v["verdict"]["claimed"], false, "{v}");
    let notes = text(&vernier(&["show", &mine]));
    assert!(notes.contains(sentence), "the note keeps the same sentence: {notes}");

    // The same rerun printed for a person says it in the same words.
    mode("noisy");
    let o = rerun(&theirs, "1", &mine, &[]);
    assert!(text(&o).contains("verdict (R4): inconclusive — the rerun is "), "{}", text(&o));

    // A clearly slower rerun differs: ten times theirs, far above the
    // noise floor even of a loaded machine (which took the claim from a
    // threefold difference once, rightly: E18).
    mode("slow");
    let v = rerun_json(&theirs, "1", &mine);
    assert_eq!(v["outcome"], "differs", "{v}");
    assert!(v["verdict_text"].as_str().is_some_and(|s| s.starts_with("differs — median (s): mine is ")), "{v}");

    // And the same quiet program does not differ. (Whether it reproduces or
    // is inconclusive depends on this machine's own noise against theirs,
    // which is the rule working: a loaded CI machine can make a 50 ms sleep
    // twice as noisy as it was. The unit tests pin "reproduced" down.)
    mode("quiet");
    let v = rerun_json(&theirs, "1", &mine);
    assert_ne!(v["outcome"], "differs", "{v}");
}

// SPEC R4, S11, E8: a comparison row reruns both arms interleaved, pinned
// where theirs was, and judges each arm and the paired ratio B/A; a kernel
// row compares the kernel's own result check with theirs.
#[test]
fn a_comparison_reruns_both_arms_and_compares_the_ratio() {
    let (_tmp, theirs, mine) = two_notebooks();
    let kernels = ["--kernel", "matmul-naive", "--size", "48", "--vs-kernel", "matmul-ikj"];
    bench_five(&theirs, &[&["--pin", "0"][..], &kernels].concat());
    let their_pin = first_condition(&theirs, "placement used").expect("their placement");

    let plan = json_of(&vernier(&["reproduce", &theirs, "--row", "2", "--notebook", &mine, "--json"]))["plan"].clone();
    assert_eq!(plan["commands"].as_array().map(Vec::len), Some(2), "both arms rerun: {plan}");
    assert_eq!(plan["runs"], 5);
    assert!(plan["their_paired"]["median"].as_f64().is_some(), "their ratio is in the plan: {plan}");
    if their_pin == "pinned to CPU 0" {
        assert_eq!(plan["pin"], 0, "{plan}");
        assert_eq!(plan["placement"], "pinned to CPU 0, as theirs was");
    } else {
        assert_eq!(plan["pin"], serde_json::Value::Null, "{plan}");
    }
    assert_eq!(run_count(&mine), 0, "nothing ran without --yes");

    let v = rerun_json(&theirs, "2", &mine);
    let arms = v["arms"].as_array().expect("arms");
    assert_eq!(arms.len(), 2, "{v}");
    for (arm, (label, row)) in arms.iter().zip([("A", 1), ("B", 2)]) {
        assert_eq!((arm["label"].as_str(), arm["their_row"].as_u64()), (Some(label), Some(row)), "{arm}");
        assert!(["reproduced", "differs", "inconclusive"].contains(&arm["outcome"].as_str().unwrap_or("")), "{arm}");
        assert_eq!(arm["result_check"]["same"], true, "the kernel computed the same result: {arm}");
        assert!(arm["result_check"]["text"].as_str().is_some_and(|t| t.starts_with("result check: identical")));
    }
    let ratio = &v["ratio"];
    for side in ["theirs", "mine"] {
        assert!(ratio[side]["median"].as_f64().is_some_and(|r| r > 0.0), "{side}'s ratio: {ratio}");
        assert_eq!(ratio[side]["n"], 5, "{ratio}");
    }
    assert_eq!(v["outcome"], ratio["outcome"], "a comparison's headline is its claim, the ratio");
    assert!(v["verdict_text"].as_str().is_some_and(|t| t.contains("paired ratio B/A")), "{v}");
    assert_eq!(run_count(&mine), 2, "both arms are recorded");
    if their_pin == "pinned to CPU 0" {
        assert_eq!(v["placement"], "pinned to CPU 0", "their pin is reapplied: {v}");
    }
}

// SPEC R4, E8: their pin on a CPU this machine does not have is not
// reapplied, and the plan says why before anything runs.
#[test]
fn a_pin_that_cannot_be_reapplied_says_why() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mine = tmp.path().join("mine").display().to_string();
    ok(vernier(&["new", &mine]));
    let book = tmp.path().join("measurements.xlsx");
    foreign_workbook(
        &book,
        &[[
            "1",
            "true",
            "true",
            "1 + 5",
            "0.0007 s",
            "IQR 0.0001 s",
            "",
            "placement used: pinned to CPU 4096",
            "",
            "MEASURED",
        ]],
    );
    let o = vernier(&["reproduce", &book.display().to_string(), "--row", "1", "--notebook", &mine, "--json"]);
    let plan = json_of(&o)["plan"].clone();
    assert_eq!(plan["pin"], serde_json::Value::Null, "{plan}");
    let why = plan["placement"].as_str().unwrap_or_default();
    assert!(why.starts_with("their run was pinned to CPU 4096"), "{why}");
    assert!(why.contains("no CPU 4096") || why.contains("cannot be pinned here"), "{why}");
}

// SPEC R4, N11: a program that is not the one their row ran is shown
// before confirmation, and named in the verdict after it.
#[cfg(unix)]
#[test]
fn a_changed_binary_is_flagged_before_confirmation() {
    let (tmp, theirs, mine) = two_notebooks();
    let prog = tmp.path().join("prog");
    std::fs::copy("/bin/true", &prog).expect("copy true");
    let prog_path = prog.display().to_string();
    bench_five(&theirs, &["--", &prog_path]);
    let plan = text(&vernier(&["reproduce", &theirs, "--row", "1", "--notebook", &mine]));
    assert!(plan.contains("program: ") && plan.contains("the same binary as theirs"), "{plan}");

    // Trailing bytes leave an executable that runs, with another SHA-256.
    let mut bytes = std::fs::read(&prog).expect("read");
    bytes.extend_from_slice(b"not theirs");
    std::fs::write(&prog, bytes).expect("rewrite");
    let o = vernier(&["reproduce", &theirs, "--row", "1", "--notebook", &mine]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains(&format!("WARNING: {prog_path}: a different binary: theirs had SHA-256 ")),
        "{}",
        text(&o)
    );
    assert_eq!(
        json_of(&vernier(&["reproduce", &theirs, "--row", "1", "--notebook", &mine, "--json"]))["plan"]["different_files"],
        1
    );
    assert_eq!(run_count(&mine), 0, "nothing ran without --yes");

    let v = rerun_json(&theirs, "1", &mine);
    let sentence = v["verdict_text"].as_str().expect("verdict");
    assert!(sentence.contains("a different binary: theirs had SHA-256 "), "{sentence}");
    assert_eq!(v["arms"][0]["programs"][0]["same"], false, "{v}");
    // Times that agree on another program confirm nothing.
    assert_ne!(v["outcome"], "reproduced", "{v}");
}

// SPEC R4, E16: a sweep's every point is matched against theirs, each
// file hashed once; a changed input is a WARNING before confirmation and
// named in the verdict and the note.
#[cfg(unix)]
#[test]
fn a_sweep_names_each_point_whose_file_changed() {
    let (tmp, theirs, mine) = two_notebooks();
    let input = |n: u32| tmp.path().join(format!("d{n}.txt"));
    std::fs::write(input(1), "a\n").expect("d1");
    std::fs::write(input(2), "b\n").expect("d2");
    let template = tmp.path().join("d{N}.txt").display().to_string();
    bench_five(&theirs, &["--param", "N=1,2", "--", "cat", &template]);
    std::fs::write(input(2), "changed\n").expect("d2 changed");

    let plan = text(&vernier(&["reproduce", &theirs, "--sweep", "1", "--notebook", &mine]));
    let d2 = input(2).display().to_string();
    assert!(plan.contains(&format!("WARNING: {d2}: a different file: theirs had SHA-256 ")), "{plan}");
    assert!(plan.contains(&format!("program: {}: the same file as theirs", input(1).display())), "{plan}");
    assert_eq!(
        plan.matches("the same binary as theirs").count(),
        1,
        "one line for the binary all points share: {plan}"
    );

    let v = json_of(&ok(vernier(&[
        "reproduce",
        &theirs,
        "--sweep",
        "1",
        "--notebook",
        &mine,
        "--yes",
        "--allow-inline-code",
        "--json",
    ])));
    let summary = v["summary"].as_str().unwrap_or_default();
    assert!(summary.contains(&format!("{d2}: a different file")) && summary.ends_with("(N=2)"), "{summary}");
    assert_ne!(v["points"][1]["outcome"], "reproduced", "{v}");
    let notes = text(&vernier(&["show", &mine]));
    assert!(notes.contains(summary), "the note names it too: {notes}");
}

// SPEC R3, E6: the rerun keeps their warm-up policy, not the count their
// cool-down's settle discarded, so reproducing a reproduction adds nothing.
#[test]
fn a_comparison_with_cooldown_keeps_their_warmup_policy() {
    let (_tmp, theirs, mine) = two_notebooks();
    ok(vernier(&[
        "bench",
        "-n",
        "5",
        "--warmup",
        "1",
        "--cooldown",
        "0.05",
        "--notebook",
        &theirs,
        "--vs",
        "true",
        "--",
        "true",
    ]));
    let plan = json_of(&vernier(&["reproduce", &theirs, "--row", "1", "--notebook", &mine, "--json"]))["plan"].clone();
    assert_eq!(plan["warmup_policy"], "1 warm-up trials", "{plan}");
    assert_eq!(plan["cooldown_s"], 0.05, "{plan}");
    rerun(&theirs, "1", &mine, &[]);
    let policy = |dir: &str| first_condition(dir, "warm-up policy");
    assert_eq!(policy(&mine), policy(&theirs), "the same policy as theirs");
}

// SPEC R4: a kernel row whose result check is not the one the rerun's
// kernel computed differs, whatever the times say: it is another experiment.
#[test]
fn a_kernel_that_computes_another_result_differs() {
    let (_tmp, their_dir, mine) = two_notebooks();
    let theirs = std::path::PathBuf::from(&their_dir);
    ok(compacting(&[
        "bench",
        "-n",
        "5",
        "--warmup",
        "1",
        "--notebook",
        &their_dir,
        "--kernel",
        "matmul-naive",
        "--size",
        "32",
    ]));
    let file = theirs.join("notebook.ron");
    let ron = std::fs::read_to_string(&file).expect("their notebook");
    let (head, tail) = ron.split_once("verified after every trial; ").expect("a result check");
    let rest = &tail[tail.find('"').expect("the value's end")..];
    std::fs::write(&file, format!("{head}verified after every trial; checksum 12345.000000{rest}")).expect("edit");

    let v = rerun_json(&their_dir, "1", &mine);
    assert_eq!(v["outcome"], "differs", "{v}");
    let sentence = v["verdict_text"].as_str().unwrap_or_default();
    assert!(
        sentence.starts_with("differs — the kernel computed another result (result check differs: theirs checksum 12345.000000, mine checksum "),
        "{sentence}"
    );
    assert_eq!(v["arms"][0]["result_check"]["same"], false, "{v}");
}

// SPEC R2 (issue 31, finding 6): each spelling that ran with --yes alone is
// now flagged, and with --yes alone nothing runs (exit 2, the finding named).
#[test]
fn inline_code_spellings_of_finding_6_need_their_own_consent() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mine = tmp.path().join("mine").display().to_string();
    ok(vernier(&["new", &mine]));
    let book = tmp.path().join("measurements.xlsx");
    let marker = tmp.path().join("X");
    let touch = format!("touch {}", marker.display());
    let commands = [
        format!("/lib64/ld-linux-x86-64.so.2 /bin/sh -c '{touch}'"),
        format!("setpriv --reuid=0 sh -c '{touch}'"),
        format!("perl '-Mstrict;system(q({touch}))'"),
        format!("tar -cf /dev/null -I '{touch};cat' ."),
        format!("sed -n '1e {touch}' /dev/null"),
        format!("strace -o '|{touch}' /bin/true"),
        format!("capsh -- -c '{touch}'"),
        format!("xvfb-run -a sh -c '{touch}'"),
        format!("ssh-agent sh -c '{touch}'"),
        format!("gdb -batch -eval-command 'shell {touch}'"),
        format!("awk '--source=BEGIN {{ system(\"{touch}\") }}'"),
    ];
    let rows: Vec<(&str, &str, &str)> = commands.iter().map(|c| ("hostile", c.as_str(), "")).collect();
    workbook_of(&book, &rows);
    let book = book.display().to_string();
    for (k, command) in commands.iter().enumerate() {
        let row = (k + 1).to_string();
        let o = vernier(&["reproduce", &book, "--row", &row, "--notebook", &mine, "--yes"]);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", text(&o));
        assert!(text(&o).contains("runs code written in their file ("), "{command}: {}", text(&o));
        assert!(!marker.exists(), "--yes alone ran {command}");
    }
    assert_eq!(run_count(&mine), 0);
}

// SPEC R2, N10 (issue 31, finding 10): an argument made of tag characters
// is shown in the plan as the shell reads it back, never as an empty ''.
#[test]
fn an_argument_of_invisible_characters_is_shown_in_the_plan() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mine = tmp.path().join("mine").display().to_string();
    ok(vernier(&["new", &mine]));
    let book = tmp.path().join("measurements.xlsx");
    workbook_of(&book, &[("echo", "/bin/echo '\u{e0041}\u{e0042}' a\u{ad}b", "")]);
    let o = vernier(&["reproduce", &book.display().to_string(), "--row", "1", "--notebook", &mine]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let plan = text(&o);
    assert!(plan.contains(r"/bin/echo $'\U000e0041\U000e0042' $'a\u00adb'"), "{plan}");
    assert!(!plan.contains("/bin/echo ''"), "{plan}");
}

// SPEC R4 (amended): two rows whose IQR is about a third of the median —
// theirs and the rerun, the program printing the same nine figures in turn
// — are inconclusive, never "reproduced", and the reason names the noise.
#[cfg(unix)]
#[test]
fn two_noisy_rows_are_inconclusive_never_reproduced() {
    let (tmp, theirs, mine) = two_notebooks();
    // Kept in $TMPDIR: the rerun may write nowhere else (SPEC N13).
    let counter = format!(
        "\"${{TMPDIR:-/tmp}}/noisy-{}\"",
        tmp.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    );
    let script = tmp.path().join("noisy.sh");
    // Nine figures in turn: median 10, IQR 4 (40 % of the median).
    std::fs::write(
        &script,
        format!(
            "n=$(cat {c} 2>/dev/null || echo 0)\necho $(( (n + 1) % 9 )) > {c}\nset -- 6 14 8 12 10 7 13 9 11\nshift $n\necho \"v: $1\"\n",
            c = counter
        ),
    )
    .expect("script");
    let script = script.display().to_string();
    let metric = ["--metric", "v: ([0-9]+)", "--metric-unit", "units"];
    let bench = [&["bench", "-n", "9", "--warmup", "0", "--notebook", &theirs][..], &metric, &["--", "sh", &script]];
    ok(vernier(&bench.concat()));
    let v = rerun_json(&theirs, "1", &mine);
    assert_eq!((v["theirs"]["median"].as_f64(), v["mine"]["median"].as_f64()), (Some(10.0), Some(10.0)), "{v}");
    assert_eq!(v["outcome"], "inconclusive", "{v}");
    let sentence = v["verdict_text"].as_str().expect("verdict text");
    assert!(
        sentence.contains("too noisy to tell: their row's IQR is 40 % of its median and the rerun's IQR is 40 %"),
        "{sentence}"
    );
}

// SPEC S16, R4: an imported row that times the multiply inside its driver,
// rerun here as the driver's whole process, is not one measure: no verdict
// either way, and the reason names both boundaries.
#[test]
fn an_imported_row_rerun_as_a_process_is_not_like_with_like() {
    let (tmp, theirs, mine) = two_notebooks();
    let csv = tmp.path().join("driver.csv");
    std::fs::write(&csv, "t_ms\n1.0\n1.1\n0.9\n1.0\n1.05\n").expect("csv");
    let csv = csv.display().to_string();
    ok(vernier(&[
        "import",
        "csv",
        &csv,
        "--notebook",
        &theirs,
        "--column",
        "t_ms",
        "--command",
        "true",
        "--instrument",
        "driver.cpp",
        "--boundary",
        "the multiply only, steady_clock",
    ]));
    let o =
        vernier(&["reproduce", &theirs, "--row", "1", "--notebook", &mine, "--yes", "--allow-inline-code", "--json"]);
    let v = json_of(&o);
    assert_eq!(v["outcome"], "inconclusive", "{v}");
    let sentence = v["verdict_text"].as_str().expect("verdict text");
    assert!(
        sentence.contains("not like with like (S16): their row times the multiply only, steady_clock (driver.cpp), the rerun each run's wall time as a whole process"),
        "{sentence}"
    );
}

// SPEC E18, R4: a difference S7 would claim between their row and the
// rerun, but smaller than the noise floor their session measured, is
// inconclusive, and the reason is the floor.
#[cfg(unix)]
#[test]
fn a_difference_below_their_noise_floor_is_inconclusive() {
    let (tmp, theirs, mine) = two_notebooks();
    let value = tmp.path().join("value.txt");
    std::fs::write(&value, "v: 10\n").expect("value");
    let metric = ["--metric", "v: ([0-9]+)", "--metric-unit", "units"];
    let command = ["--", "cat", &value.display().to_string()];
    // Folded into notebook.ron, whose floor is then raised by hand.
    ok(compacting(&[&["bench", "-n", "5", "--warmup", "0", "--notebook", &theirs][..], &metric, &command].concat()));
    let ron = Path::new(&theirs).join("notebook.ron");
    let text = std::fs::read_to_string(&ron).expect("notebook.ron");
    let (before, after) = text.split_once("spread: ").expect("the row keeps its session's floor");
    let number = after.find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c))).unwrap_or(after.len());
    std::fs::write(&ron, format!("{before}spread: 5.0{}", &after[number..])).expect("raised floor");
    // The rerun prints 12 where theirs printed 10: S7 alone would claim it.
    std::fs::write(&value, "v: 12\n").expect("value");
    let v = rerun_json(&theirs, "1", &mine);
    assert_eq!((v["theirs"]["median"].as_f64(), v["mine"]["median"].as_f64()), (Some(10.0), Some(12.0)), "{v}");
    assert_eq!(v["outcome"], "inconclusive", "{v}");
    let sentence = v["verdict_text"].as_str().expect("verdict text");
    assert!(sentence.contains("is below the instrument's noise floor (500 %"), "{sentence}");
}

// SPEC S14, R3: their row and the rerun are measured days apart, so a
// difference S7 claims stands only beside the canary's own move between the
// two sessions (the control every session measures): reported when it moved
// less, no claim when it moved as much — said, with what would decide it.
#[cfg(unix)]
#[test]
fn a_difference_across_days_is_weighed_against_the_canarys_drift() {
    let (tmp, theirs, mine) = two_notebooks();
    let value = tmp.path().join("value.txt");
    std::fs::write(&value, "v: 10\n").expect("value");
    let metric = ["--metric", "v: ([0-9]+)", "--metric-unit", "units"];
    let command = ["--", "cat", &value.display().to_string()];
    ok(compacting(&[&["bench", "-n", "5", "--warmup", "0", "--notebook", &theirs][..], &metric, &command].concat()));
    // Ten times theirs: far beyond what the canary moves on one machine.
    std::fs::write(&value, "v: 100\n").expect("value");
    let v = rerun_json(&theirs, "1", &mine);
    assert_eq!(v["outcome"], "differs", "{v}");
    let sentence = v["verdict_text"].as_str().expect("verdict text");
    assert!(sentence.contains("the canary, the fixed kernel each session times first, took "), "{sentence}");
    assert!(sentence.contains("less than the difference (900%)"), "{sentence}");

    // Their session's canary, made a thousand times faster than any
    // session here: the difference can no longer be told from the day.
    let ron = Path::new(&theirs).join("notebook.ron");
    let text = std::fs::read_to_string(&ron).expect("notebook.ron");
    let (before, after) = text.split_once(" ms, then ").expect("the row keeps its canary's timings");
    let start = before.rfind('(').expect("the canary's opening timing") + 1;
    std::fs::write(&ron, format!("{}0.001 ms, then {after}", &before[..start])).expect("doctored canary");
    let v = rerun_json(&theirs, "1", &mine);
    assert_eq!(v["outcome"], "inconclusive", "{v}");
    let sentence = v["verdict_text"].as_str().expect("verdict text");
    assert!(sentence.contains("cannot be told from the machine's drift between them"), "{sentence}");
    assert!(sentence.contains("took 0.001 ms in theirs"), "{sentence}");
    assert!(sentence.contains("rerun where the canary matches theirs"), "{sentence}");
}
