//! The command line as a user runs it (SPEC C): the real `vernier` binary,
//! its output, its exit codes and what it leaves on disk.

use std::io::Write as _;
use std::path::Path;
use std::process::Output;

use crate::common;
use common::{compacting, json, notebook, ok, stderr, stdout, vernier_fed};

fn vernier(args: &[&str]) -> Output {
    vernier_with_stdin(args, "")
}

fn vernier_with_stdin(args: &[&str], stdin: &str) -> Output {
    let stdin = stdin.to_owned();
    vernier_fed(args, move |input| input.write_all(stdin.as_bytes()).expect("write stdin"))
}

fn new_notebook(tmp: &Path) -> String {
    let dir = tmp.join("nb").display().to_string();
    let o = vernier(&["new", &dir, "--title", "Project 3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    dir
}

const FIVE: &str = "12.4\n12.5\n12.4\n12.6\n24.9\n";

// SPEC C, S1–S4: the course's five timings from standard input, as JSON.
#[test]
fn stats_json_of_the_course_example() {
    let o = vernier_with_stdin(&["stats", "-", "--json"], FIVE);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(v["median"], 12.5);
    assert_eq!(v["min"], 12.4);
    assert_eq!(v["max"], 24.9);
    assert_eq!(v["n"], 5);
    for key in ["p25", "p75", "iqr", "iqr_fraction", "drift", "rounded"] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
}

// SPEC S6, S5, S12, S17: the text form shows the rounded median with its IQR
// and drift; halves of fewer than 3 trials are not flagged.
#[test]
fn stats_text_rounds_per_s6() {
    let o = vernier_with_stdin(&["stats", "--unit", "ms"], FIVE);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(
        text.starts_with("12.50 ms (IQR 0.20 ms, 1.6 % of the median · drift +51 %), min 12.40, max 24.90 ms, n=5"),
        "{text}"
    );
    // SPEC S17: halves of two trials each are too few to say the machine
    // changed; the drift is shown, never flagged.
    assert!(!text.contains("the machine changed during the run"), "{text}");
}

// SPEC S12: a time in seconds is shown in the largest unit its median
// allows, its IQR and extremes in the same unit; JSON keeps the base unit
// and adds `display_unit`.
#[test]
fn stats_shows_times_in_their_display_unit() {
    let o = vernier_with_stdin(
        &["stats", "--unit", "s"],
        "0.000700\n0.000712\n0.000715\n0.000730\n0.000731\n0.000729\n0.000721\n",
    );
    let text = stdout(&o);
    assert!(
        text.starts_with("721 µs (IQR 16 µs, 2.2 % of the median · drift +2.4 %), min 700, max 731 µs, n=7"),
        "{text}"
    );
    let v = json(&vernier_with_stdin(&["stats", "--unit", "s", "--json"], "0.000700\n0.000712\n0.000715\n"));
    assert_eq!((v["unit"].as_str(), v["display_unit"].as_str()), (Some("s"), Some("µs")));
    assert_eq!(v["median"], 0.000712);
    let v = json(&vernier_with_stdin(&["stats", "--unit", "chunks/s", "--json"], "0.5\n0.6\n0.7\n"));
    assert_eq!(v["display_unit"], "chunks/s", "a unit that is not a time is never rescaled");
}

// SPEC C: bad input is exit 2 with the line and the offending text.
#[test]
fn bad_number_names_the_line() {
    let o = vernier_with_stdin(&["stats", "-"], "12.4\nbanana\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 2: 'banana' is not a number"), "{}", stderr(&o));
    let o = vernier_with_stdin(&["stats"], "# only a comment\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no numbers in stdin"));
}

// SPEC C: a CSV column by name, with a bad column named.
#[test]
fn stats_reads_a_csv_column() {
    let tmp = tempfile::tempdir().expect("tmp");
    let file = tmp.path().join("raw.csv");
    std::fs::write(&file, "# machine: test\nindex,ns\n0,100\n1,102\n2,101\n").expect("write");
    let path = file.display().to_string();
    let o = vernier(&["stats", &path, "--column", "ns", "--json"]);
    assert_eq!(json(&o)["median"], 101.0);
    let o = vernier(&["stats", &path, "--column", "ms"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no column 'ms'"), "{}", stderr(&o));
}

// SPEC S7: the seed's matmul pair is claimed, with a 3.4× ratio.
#[test]
fn compare_claims_the_matmul_difference() {
    let args = ["compare", "--median-a", "41.7", "--iqr-a", "0.9", "--median-b", "12.4", "--iqr-b", "0.3"];
    let o = vernier(&args);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("median wall time: B is 70% below A (A is 3.4× B)"), "{}", stdout(&o));
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let v = json(&vernier(&with_json));
    assert_eq!(v["claimed"], true);
    assert!((v["ratio"].as_f64().expect("ratio") - 12.4 / 41.7).abs() < 1e-12);
    for key in ["median_a", "median_b", "iqr_a", "iqr_b", "difference", "verdict"] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
}

// SPEC S7: medians closer than the IQRs' sum are not resolved (files).
#[test]
fn compare_files_without_a_resolvable_difference() {
    let tmp = tempfile::tempdir().expect("tmp");
    let a = tmp.path().join("a.txt");
    let b = tmp.path().join("b.txt");
    std::fs::write(&a, "10.0\n10.4\n9.6\n10.2\n9.8\n").expect("write");
    std::fs::write(&b, "10.3\n10.7\n9.9\n10.5\n10.1\n").expect("write");
    let o = vernier(&["compare", &a.display().to_string(), &b.display().to_string(), "--json"]);
    let v = json(&o);
    assert_eq!(v["claimed"], false);
    assert!(v["verdict"].as_str().expect("verdict").contains("no difference I can resolve"));
}

// SPEC N4, C: a locked prediction cannot be changed from the CLI; it can
// be amended.
#[test]
fn cli_refuses_to_edit_a_locked_prediction() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    let o = vernier(&["predict", &dir, "--experiment", "matmul", "--predict", "ikj 3x faster", "--why", "stride"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("recorded P1"));
    let o = vernier(&["predict", &dir, "--edit", "P1", "--predict", "ikj 2x faster", "--why", "second thoughts"]);
    assert_eq!(o.status.code(), Some(0), "an open prediction may be rewritten: {}", stderr(&o));
    assert_eq!(vernier(&["lock", &dir]).status.code(), Some(0));
    let before = std::fs::read(Path::new(&dir).join("notebook.ron")).expect("read");
    let o = vernier(&["predict", &dir, "--edit", "1", "--predict", "ikj 9x faster", "--why", "hindsight"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("prediction P1 is locked"), "{}", stderr(&o));
    assert_eq!(std::fs::read(Path::new(&dir).join("notebook.ron")).expect("read"), before, "nothing saved");
    let o = vernier(&["predict", &dir, "--amend", "P1", "--predict", "ikj 3.4x faster", "--why", "measured"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json(&vernier(&["show", &dir, "--json"]));
    let predictions = v["predictions"].as_array().expect("list");
    assert_eq!(predictions.len(), 2);
    assert_eq!(predictions[0]["predict"], "ikj 2x faster");
    assert_eq!(predictions[0]["locked"], true);
    assert_eq!(predictions[1]["amends"]["quote"], "ikj 2x faster");
}

// SPEC N4: a hand edit of notebook.ron is reported on the next load,
// naming the prediction; `show` exits 1 (a finding).
#[test]
fn hand_edit_is_reported_by_show() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    vernier(&["predict", &dir, "--experiment", "seq", "--predict", "flat to 32 KiB", "--why", "L1"]);
    // Folded into notebook.ron at once, where a hand edit would find it.
    compacting(&["lock", &dir]);
    let file = Path::new(&dir).join("notebook.ron");
    let text = std::fs::read_to_string(&file).expect("read").replace("flat to 32 KiB", "flat to 48 KiB");
    std::fs::write(&file, text).expect("write");
    let o = vernier(&["show", &dir]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("prediction P1 changed after it was locked"), "{}", stderr(&o));
    let v = json(&vernier(&["show", &dir, "--json"]));
    assert_eq!(v["integrity"][0]["prediction"], 1);
}

// SPEC N8, C: a malformed notebook.ron is exit 2 naming file and line.
#[test]
fn malformed_notebook_is_exit_2_with_place() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    let file = Path::new(&dir).join("notebook.ron");
    let text = std::fs::read_to_string(&file).expect("read").replacen("environment:", "environment =", 1);
    let line = text.lines().position(|l| l.contains("environment =")).expect("line") + 1;
    std::fs::write(&file, text).expect("write");
    let o = vernier(&["show", &dir]);
    assert_eq!(o.status.code(), Some(2));
    let expected = format!("{}:{line}:", file.display());
    assert!(stderr(&o).contains(&expected), "expected {expected} in {}", stderr(&o));
}

// SPEC N2, N5, C: set, note and discard through the CLI, read back by show.
#[test]
fn set_note_and_discard() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    assert_eq!(vernier(&["set", &dir, "Power source", "mains"]).status.code(), Some(0));
    assert_eq!(vernier(&["set", &dir, "workbench", "B shared"]).status.code(), Some(0));
    let o = vernier(&["set", &dir, "Colour", "blue"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown Environment field 'Colour'"));
    assert_eq!(vernier(&["set", &dir, "Workbench", "Q"]).status.code(), Some(2));
    assert_eq!(vernier(&["note", &dir, "fan spun up at 10:02"]).status.code(), Some(0));
    let o = vernier(&["discard", &dir, "--run", "1", "--why", "lid closed"]);
    assert_eq!(o.status.code(), Some(2), "there is no run 1 yet");
    assert!(stderr(&o).contains("there is no run 1"));
    let v = json(&vernier(&["show", &dir, "--json"]));
    let env = v["environment"].as_array().expect("env");
    assert_eq!(env[5]["field"], "Power source");
    assert_eq!(env[5]["value"], "mains");
    assert_eq!(env[2]["value"], "B — shared host");
    assert_eq!(v["notes"][0]["text"], "fan spun up at 10:02");
}

// SPEC N5, C: discard on a notebook that has runs (fixture in tests/).
#[test]
fn discard_a_recorded_run() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    std::fs::create_dir_all(dir.join("raw")).expect("mkdir");
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/notebook-with-runs.ron");
    std::fs::copy(fixture, dir.join("notebook.ron")).expect("copy fixture");
    let d = dir.display().to_string();
    let o = vernier(&["discard", &d, "--run", "2", "--why", "closed the lid at t=120 s"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = vernier(&["show", &d]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("2 (discarded)"), "{text}");
    assert!(text.contains("Discarded run 2: closed the lid at t=120 s"), "{text}");
    let o = vernier(&["discard", &d, "--run", "2", "--why", "again"]);
    assert_eq!(o.status.code(), Some(2));
}

// SPEC C: `new` refuses to overwrite an existing notebook.
#[test]
fn new_refuses_an_existing_notebook() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    let o = vernier(&["new", &dir]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("a notebook already exists"));
}

// SPEC D1, D4, C: export writes exactly the six documents; show reopens the
// workbook with the same content as the folder.
#[test]
fn export_then_show_the_workbook() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    std::fs::create_dir_all(dir.join("raw")).expect("mkdir");
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/notebook-with-runs.ron");
    std::fs::copy(fixture, dir.join("notebook.ron")).expect("copy");
    let d = dir.display().to_string();
    let o = vernier(&["export", &d]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut names: Vec<String> = std::fs::read_dir(dir.join("exports"))
        .expect("exports")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "ai-usage.txt",
            "measurements.xlsx",
            "placement-decision.docx",
            "report.docx",
            "soc-architecture-review.docx",
            "threat-model-report.docx"
        ]
    );
    let from_folder = json(&vernier(&["show", &d, "--json"]));
    let xlsx = dir.join("exports/measurements.xlsx").display().to_string();
    let from_workbook = json(&vernier(&["show", &xlsx, "--json"]));
    for key in ["title", "environment", "predictions", "runs", "soaks", "notes", "integrity"] {
        assert_eq!(from_folder[key], from_workbook[key], "{key} differs after the round trip");
    }
}

// SPEC D6: the placement table from the shipped synthetic dataset.
#[test]
fn placement_table() {
    let o = vernier(&[
        "placement",
        "--budget",
        "game_frame=16.7",
        "--rate",
        "game_frame=60",
        "--budget",
        "video_encode_4k30_1s=1000",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("SYNTHETIC"), "{text}");
    assert!(text.contains("44 mJ × 60 /s = 2640 mJ/s = 2.64 W"), "{text}");
    assert!(text.contains("none of these"), "{text}");
    let o = vernier(&["placement", "--budget", "game_frame=fast"]);
    assert_eq!(o.status.code(), Some(2));
}

// SPEC D2: prompts are listed, answered and cleared from the command line;
// citations are checked; placement deadlines are kept for the document.
#[test]
fn write_cite_and_keep_placement_deadlines() {
    let tmp = tempfile::tempdir().expect("tmp");
    let nb = new_notebook(tmp.path());
    let listed = stdout(&vernier(&["write", &nb, "report.docx"]));
    assert!(listed.contains(" 5. [to write] the question this project answers"), "{listed}");
    let o = vernier(&["write", &nb, "report.docx", "5", "Where does the memory wall start?"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&vernier(&["write", &nb, "report.docx"])).contains(" 5. [written]"));
    assert_eq!(vernier(&["write", &nb, "report.docx", "99", "x"]).status.code(), Some(2));
    assert_eq!(vernier(&["write", &nb, "measurements.xlsx", "1", "x"]).status.code(), Some(2));
    let o = vernier(&["cite", &nb, "--figure", "DRAM latency", "--value", "100 ns"]);
    assert!(stdout(&o).contains("still needs a URL and a retrieval date"), "{}", stdout(&o));
    let o = vernier(&["cite", &nb, "--figure", "x", "--value", "1", "--retrieved", "2026-02-30"]);
    assert_eq!(o.status.code(), Some(2), "an impossible date is refused");
    let o = vernier(&["placement", "--budget", "image_classification=50", "--notebook", &nb]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = vernier(&["placement", "--budget", "no_such_workload=50", "--notebook", &nb]);
    assert_eq!(o.status.code(), Some(2));
    let shown = json(&vernier(&["show", &nb, "--json"]));
    let writing = &shown["writing"];
    assert_eq!(
        writing["answers"]["report.docx"]["the question this project answers, and what is out of scope"],
        "Where does the memory wall start?"
    );
    assert_eq!(writing["citations"][0]["url"], "");
    assert_eq!(writing["placement"][0]["workload"], "image_classification");
}

// SPEC A2, A3, A4, C: `vernier audit` names the check and the row; exit 1
// with findings, 2 when the notebook cannot be read.
#[test]
fn audit_reports_conditions_raw_edits_and_hand_edited_predictions() {
    let tmp = tempfile::tempdir().expect("tmp");
    let nb = new_notebook(tmp.path());
    let o = vernier(&["predict", &nb, "--experiment", "true", "--predict", "under 1 ms", "--why", "it does nothing"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = vernier(&["bench", "-n", "3", "--notebook", &nb, "--", "true"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/hyperfine-true.json");
    let o = compacting(&["import", "hyperfine", "--notebook", &nb, fixture]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let raw = Path::new(&nb).join("raw/run-1.csv");
    std::fs::OpenOptions::new().append(true).open(&raw).expect("open").write_all(b"A,9,0.5\n").expect("edit");
    let file = Path::new(&nb).join("notebook.ron");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, text.replace("under 1 ms", "under 2 ms")).expect("hand edit");

    let o = vernier(&["audit", &nb]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let shown = stdout(&o);
    assert!(
        shown.contains("A2 — ") && shown.contains("run 2: states no") && shown.contains("thermal condition"),
        "{shown}"
    );
    assert!(
        shown.contains("A3 — ")
            && shown.contains("run 1: raw file raw/")
            && shown.contains("changed after it was recorded"),
        "{shown}"
    );
    assert!(
        shown.contains("A4 — ") && shown.contains("prediction P1: prediction P1 changed after run 1 was recorded"),
        "{shown}"
    );

    let v = json(&vernier(&["audit", &nb, "--json"]));
    assert_eq!(v["clean"], false);
    let findings = v["findings"].as_array().expect("findings");
    for (check, kind) in [("A2", "run"), ("A3", "run"), ("A4", "prediction"), ("A11", "exports")] {
        assert!(findings.iter().any(|f| f["check"] == check && f["place"]["kind"] == kind), "{check}: {v}");
    }
    assert_eq!(vernier(&["audit", tmp.path().to_str().expect("utf-8")]).status.code(), Some(2));

    // Documents exported elsewhere are audited where they are.
    let out = tmp.path().join("submission").display().to_string();
    assert_eq!(vernier(&["export", &nb, "--out", &out]).status.code(), Some(0));
    let v = json(&vernier(&["audit", &nb, "--exports", &out, "--json"]));
    assert_eq!(v["documents_exported"], true, "{v}");
}

// SPEC A7 (issue 34): `vernier audit` reads every section of the report as
// a teaching assistant does: "CPU 1", "a 16 KiB working set" and "2-vCPU"
// are an identifier, an input's size and a count of CPUs, not results; the
// ratio "O0 is 1.67× O2." in section 1 is a result without its tag.
#[test]
fn audit_reads_the_question_as_a_teaching_assistant_does() {
    let tmp = tempfile::tempdir().expect("tmp");
    let nb = notebook(tmp.path());
    let question = "I pinned the loop to CPU 1 with a 16 KiB working set on a 2-vCPU VM. O0 is 1.67× O2.";
    let written = stdout(&ok(vernier(&["write", &nb, "report.docx", "5", question])));
    assert!(written.contains("the question"), "prompt 5 is the question: {written}");
    ok(vernier(&["export", &nb]));
    let audit = json(&vernier(&["audit", &nb, "--json"]));
    let a7: Vec<&serde_json::Value> =
        audit["findings"].as_array().expect("findings").iter().filter(|f| f["check"] == "A7").collect();
    assert_eq!(a7.len(), 1, "{a7:#?}");
    assert_eq!(a7[0]["place"]["file"], "report.docx", "{}", a7[0]);
    assert_eq!(a7[0]["place"]["section"], "1. The question", "{}", a7[0]);
    let message = a7[0]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("“1.67 ×” has no tag"), "{message}");
}

// SPEC S1, E3, S9, N6: `stats` of a raw trial file summarises each arm's
// timed trials only and lists the warm-up apart; its medians are the rows'.
#[test]
fn stats_of_a_raw_file_summarises_each_arm_without_its_warmup() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    let o = vernier(&[
        "bench",
        "-n",
        "5",
        "--warmup",
        "2",
        "--vs",
        "sleep 0.02",
        "--notebook",
        &dir,
        "--",
        "sleep",
        "0.01",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let raw = Path::new(&dir).join("raw/run-1.csv").display().to_string();

    let text = vernier(&["stats", &raw, "--column", "ns"]);
    assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
    let text = stdout(&text);
    for arm in ["arm A, in s", "arm B, in s"] {
        assert!(text.contains(arm), "{text}");
    }
    assert_eq!(text.matches(", n=5").count(), 2, "{text}");
    assert_eq!(text.matches("warm-up (not in the summary): 2 trials: ").count(), 2, "{text}");

    let v = json(&vernier(&["stats", &raw, "--json"]));
    let shown = json(&vernier(&["show", &dir, "--json"]));
    let arms = v["arms"].as_array().expect("arms");
    assert_eq!(arms.len(), 2);
    for (arm, row) in arms.iter().zip(shown["runs"].as_array().expect("runs")) {
        assert_eq!(arm["n"], 5);
        assert_eq!(arm["unit"], "s");
        assert_eq!(arm["warmup"]["count"], 2);
        assert_eq!(arm["warmup"]["values"].as_array().map(Vec::len), Some(2));
        assert_eq!(arm["median"], row["stats"]["median"], "{arm} against {row}");
    }
    assert_eq!(arms[1]["arm"], "B");
}

// SPEC S1, E10: hand-written raw trials without a unit stay in ns; a failed
// trial is counted apart; another column of the file reads as before.
#[test]
fn stats_of_raw_trials_without_a_unit_keeps_nanoseconds() {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = tmp.path().join("run.csv");
    let raw = "# hand-written\nindex,arm,position,warmup,ns,exit_status\n0,A,1,1,900,0\n1,A,1,0,100,0\n\
               2,A,1,0,102,0\n3,A,1,0,5000,exit 1\n4,A,1,0,101,0\n";
    std::fs::write(&path, raw).expect("write");
    let path = path.display().to_string();
    let v = json(&vernier(&["stats", &path, "--json"]));
    let a = &v["arms"][0];
    assert_eq!((a["n"].as_u64(), a["median"].as_f64(), a["unit"].as_str()), (Some(3), Some(101.0), Some("ns")));
    assert_eq!(a["unit_from_file"], false);
    assert_eq!(a["failed"], 1);
    assert_eq!(a["warmup"]["values"], serde_json::json!([900.0]));
    assert_eq!(v["arms"].as_array().map(Vec::len), Some(1));
    let text = stdout(&vernier(&["stats", &path]));
    assert!(text.contains("arm A, in ns (the file states no unit"), "{text}");
    assert!(text.contains("failed (not in the summary): 1 trial"), "{text}");
    let index = json(&vernier(&["stats", &path, "--column", "index", "--json"]));
    assert_eq!((index["n"].as_u64(), index["median"].as_f64()), (Some(5), Some(2.0)));
}

// SPEC A16, A17, D2: `write --na` marks a prompt (or a whole document) not
// part of this submission and the document prints the reason; `cite --none`
// states that nothing is cited; a document edited after export is not
// overwritten without --force, and the message names it.
#[test]
fn not_part_no_citations_and_an_edited_document() {
    let tmp = tempfile::tempdir().expect("tmp");
    let nb = notebook(tmp.path());
    let said = ok(vernier(&["write", &nb, "report.docx", "8", "--na", "no energy counter on this machine"]));
    assert!(stdout(&said).contains("marked not part of this submission"), "{}", stdout(&said));
    ok(vernier(&["write", &nb, "threat-model-report.docx", "--na", "this lab has no threat model"]));
    let refused = vernier(&["write", &nb, "report.docx", "--na", "no report"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("always part of a submission"), "{}", stderr(&refused));
    ok(vernier(&["cite", &nb, "--none"]));
    let listed = stdout(&ok(vernier(&["write", &nb])));
    assert!(listed.contains("[not part: no energy counter on this machine] energy"), "{listed}");
    assert!(listed.contains("threat-model-report.docx — not part of this submission: this lab has no threat model"));
    ok(vernier(&["export", &nb]));
    let audit = json(&vernier(&["audit", &nb, "--json"]));
    let a16: Vec<&serde_json::Value> =
        audit["findings"].as_array().expect("findings").iter().filter(|f| f["check"] == "A16").collect();
    for f in &a16 {
        let file = f["place"]["file"].as_str().unwrap_or("");
        let message = f["message"].as_str().unwrap_or("");
        assert_ne!(file, "threat-model-report.docx", "{f}");
        assert!(!message.contains("energy, or what") && !message.contains("cited figure"), "{f}");
    }
    assert!(a16.iter().any(|f| f["message"].as_str().is_some_and(|m| m.contains("performance, with the metric"))));

    let report = std::path::Path::new(&nb).join("exports/report.docx");
    let mut edited = std::fs::read(&report).expect("read");
    edited.extend_from_slice(b"\n");
    std::fs::write(&report, &edited).expect("edit");
    let refused = vernier(&["export", &nb]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("report.docx (changed since Vernier wrote it)"), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("--force"), "{}", stderr(&refused));
    assert_eq!(std::fs::read(&report).expect("read"), edited, "nothing was written");
    ok(vernier(&["export", &nb, "--force"]));
    assert_ne!(std::fs::read(&report).expect("read"), edited);

    // A written prompt is not also left out; an export never goes into the
    // notebook's own folder.
    ok(vernier(&["write", &nb, "report.docx", "7", "Median 2.2 ms (MEASURED)."]));
    let refused = vernier(&["write", &nb, "report.docx", "7", "--na", "not asked"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("is written; clear its answer first"), "{}", stderr(&refused));
    let refused = vernier(&["export", &nb, "--out", &nb]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("the notebook's own folder"), "{}", stderr(&refused));

    // An export record that is not a regular file vouches for nothing: the
    // refusal says so, and --force writes the documents and says the record
    // could not be kept.
    #[cfg(unix)]
    {
        let record = std::path::Path::new(&nb).join(".vernier-exports.json");
        std::fs::remove_file(&record).expect("rm record");
        std::os::unix::fs::symlink("/etc/hostname", &record).expect("symlink");
        let refused = vernier(&["export", &nb]);
        assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
        assert!(stderr(&refused).contains("cannot be read"), "{}", stderr(&refused));
        let forced = vernier(&["export", &nb, "--force"]);
        assert_eq!(forced.status.code(), Some(1), "{}", stderr(&forced));
        assert!(stderr(&forced).contains("the six documents were written"), "{}", stderr(&forced));
        assert!(std::fs::symlink_metadata(&record).expect("still there").file_type().is_symlink());
    }
}

// SPEC N10 (finding 10): a line feed or an escape sequence in a notebook's
// path is printed as an escape by `new` and `export`, never raw — a path
// cannot add a line to what Vernier says or move the terminal's cursor.
#[test]
fn paths_with_a_line_feed_are_printed_inert() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("a\nb\x1b[2Jc");
    let dir = dir.to_str().expect("utf-8");
    let created = stdout(&ok(vernier(&["new", dir, "--title", "T"])));
    let shown = dir.replace('\n', r"\x0a").replace('\x1b', r"\x1b");
    assert_eq!(created, format!("created notebook 'T' in {shown}\n"));
    let exported = stdout(&ok(vernier(&["export", dir])));
    assert!(!exported.contains('\x1b'), "{exported}");
    for line in exported.lines() {
        assert!(line.starts_with(&format!("wrote {shown}/exports/")), "{line}");
    }
}

// SPEC N10: a note keeps the joiners an emoji or a Persian word needs
// (prose), while tag characters, invisible in any font, are shown.
#[test]
fn notes_keep_zwj_emoji_and_show_tag_characters() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    let family = "laptop fan \u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467} می‌خواهم";
    ok(vernier(&["note", &dir, family]));
    ok(vernier(&["note", &dir, "hidden\u{e0041}\u{e0042}"]));
    let shown = stdout(&ok(vernier(&["show", &dir])));
    assert!(shown.contains(family), "{shown}");
    assert!(shown.contains(r"hidden\udb40\udc41\udb40\udc42"), "{shown}");
}

// SPEC D2, A16 (issue 35): `vernier write`'s list counts what the window
// counts: prompts neither written nor marked not part; a document marked
// not part is one line saying so.
#[test]
fn the_write_list_counts_what_is_left() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    ok(common::vernier(&["write", &dir, "report.docx", "1", "Memory-bound: the chase is 20× the scan."]));
    ok(common::vernier(&["write", &dir, "report.docx", "2", "Medium."]));
    ok(common::vernier(&["write", &dir, "report.docx", "3", "--na", "no energy counter"]));
    ok(common::vernier(&["write", &dir, "threat-model-report.docx", "--na", "not asked this term"]));
    let listed = stdout(&ok(common::vernier(&["write", &dir])));
    let report: Vec<&str> =
        listed.lines().skip_while(|l| *l != "report.docx").skip(1).take_while(|l| l.starts_with("  ")).collect();
    let prompts = vernier_engine::documents::prompts(vernier_engine::notebook::Document::Report).len();
    assert_eq!(report.len(), prompts, "{listed}");
    assert_eq!(report.iter().filter(|l| l.contains("[to write]")).count(), prompts - 3, "{listed}");
    assert!(listed.contains("threat-model-report.docx — not part of this submission: not asked this term"), "{listed}");
}

// SPEC C, N2, S11 (issue 49, item 2): every free-text value may begin with
// a dash — a prediction, a note, a reason, a label, a build, an answer —
// and is kept as written, not taken for a flag.
#[test]
fn free_text_may_start_with_a_dash() {
    let tmp = tempfile::tempdir().expect("tmp");
    let nb = tmp.path().join("nb").display().to_string();
    let csv = tmp.path().join("t.csv");
    std::fs::write(&csv, "t_ms\n10.0\n10.2\n9.9\n").expect("write");
    let csv = csv.display().to_string();
    let bench = ["bench", "--notebook", &nb, "-n", "1", "--warmup", "0"];
    let compare = ["--what", "-O0 what", "--label-a", "-a label", "--label-b", "-b label", "--build", "-O0 build"];
    let import =
        ["import", "csv", &csv, "--notebook", &nb, "--column", "t_ms", "--unit", "ms", "--build", "-O0 imported"];
    let told = ["--command", "-O0 command", "--boundary", "-O0 boundary", "--instrument", "-O0 instrument"];
    let steps: Vec<Vec<&str>> = vec![
        vec!["new", &nb, "--title", "-O0 title"],
        vec!["predict", &nb, "--experiment", "-O0 experiment", "--predict", "-O0 about 4x slower", "--why", "-O0 why"],
        vec!["note", &nb, "-O0 note"],
        [&bench[..], &["--kernel", "seq", "--size", "4096"]].concat(),
        [&bench[..], &compare[..], &["--vs", "true", "--", "true"]].concat(),
        [&import[..], &told[..]].concat(),
        vec![
            "set-run",
            &nb,
            "--run",
            "4",
            "--machine",
            "-O0 machine",
            "--power",
            "-O0 power",
            "--thermal",
            "-O0 thermal",
        ],
        vec!["set", &nb, "Ambient", "-5 °C ambient"],
        vec!["discard", &nb, "--run", "1", "--why", "-O0 discard"],
        vec!["answer", &nb, "P1", "--open", "-O0 open"],
        vec!["write", &nb, "report.docx", "5", "-O0 answer"],
        vec!["write", &nb, "soc-architecture-review.docx", "--na", "-O0 not part"],
        vec!["cite", &nb, "--figure", "-O0 figure", "--value", "-3 dB", "--url", "https://example.com"],
    ];
    for args in &steps {
        let o = vernier(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}{}", stdout(&o), stderr(&o));
    }
    let all = stdout(&vernier(&["show", &nb, "--json"]));
    for text in [
        "-O0 title",
        "-O0 experiment",
        "-O0 about 4x slower",
        "-O0 why",
        "-O0 note",
        "-5 °C ambient",
        "-O0 what: -a label",
        "-O0 what: -b label",
        "-O0 build",
        "-O0 machine",
        "-O0 power",
        "-O0 thermal",
        "-O0 discard",
        "-O0 open",
        "-O0 answer",
        "-O0 not part",
        "-O0 figure",
        "-3 dB",
        "-O0 imported",
        "-O0 command",
        "-O0 boundary",
        "-O0 instrument",
    ] {
        assert!(all.contains(text), "{text} is not kept: {all}");
    }
}

// SPEC N2 (issue 49, item 3): the Workbench is read from what a person
// writes — the letter or the word, "shared" anywhere — and what was read is
// said; only what names no one bench is refused, with an example.
#[test]
fn the_workbench_is_read_from_what_is_written() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    for (written, read) in [
        ("laptop, shared", "Workbench set: L — shared host (read from \"laptop, shared\")"),
        ("L (shared host)", "Workbench set: L — shared host"),
        ("bench B, not shared", "Workbench set: B — not shared"),
        ("D", "Workbench set: D (read from \"D\")"),
    ] {
        let o = vernier(&["set", &dir, "Workbench", written]);
        assert_eq!(o.status.code(), Some(0), "{written}: {}", stderr(&o));
        assert!(stdout(&o).contains(read), "{written}: {}", stdout(&o));
    }
    let o = vernier(&["set", &dir, "Workbench", "desktop"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read 'desktop' as a workbench: it names no workbench"), "{}", stderr(&o));
    assert!(stderr(&o).contains("e.g. \"L, shared\""), "{}", stderr(&o));
    let v = json(&vernier(&["show", &dir, "--json"]));
    assert_eq!(v["environment"][2]["value"], "D", "the refusal kept the last value read");
}
