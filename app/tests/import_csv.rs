//! `vernier import csv` as a student runs it on their own driver's output
//! (SPEC E14, C; issue 16 items 1 and 6).

use crate::common;

use std::path::Path;

use common::{json, notebook, ok, stderr, stdout, text, vernier};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/matmul-driver.csv");

/// The matmul driver's import, as the README shows it.
fn import_matmul(file: &str, dir: &str) -> std::process::Output {
    vernier(&[
        "import",
        "csv",
        file,
        "--notebook",
        dir,
        "--a",
        "naive_ms",
        "--b",
        "blocked_ms",
        "--pair",
        "pair",
        "--first",
        "first",
        "--warmup-stated",
        "1",
        "--label-a",
        "naive",
        "--label-b",
        "blocked",
        "--instrument",
        "benchmark.cpp, steady_clock, multiply only",
    ])
}

fn close(value: &serde_json::Value, expected: f64) -> bool {
    value.as_f64().is_some_and(|v| (v - expected).abs() < 1e-9)
}

// SPEC S16 (issue 33): the driver's timing boundary, stated at import, is
// a typed part of its rows — in the long form and `show --json` — and a
// bench row's is the process's wall time.
#[test]
fn an_imported_row_keeps_the_boundary_it_was_given() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    ok(vernier(&[
        "import",
        "csv",
        FIXTURE,
        "--notebook",
        &dir,
        "--a",
        "naive_ms",
        "--b",
        "blocked_ms",
        "--pair",
        "pair",
        "--first",
        "first",
        "--instrument",
        "benchmark.cpp",
        "--boundary",
        "multiply only, in-process, steady_clock",
    ]));
    ok(vernier(&["bench", "-n", "3", "--warmup", "0", "--notebook", &dir, "--", "true"]));
    let long = stdout(&ok(vernier(&["show", &dir, "--run", "1", "--form", "long"])));
    assert!(long.contains("timing boundary: multiply only, in-process, steady_clock (benchmark.cpp)"), "{long}");
    let v = json(&ok(vernier(&["show", &dir, "--json"])));
    assert_eq!(v["runs"][0]["boundary"]["Instrument"]["stated"], "multiply only, in-process, steady_clock");
    assert_eq!(v["runs"][2]["boundary"], "ProcessWall");
    let long = stdout(&ok(vernier(&["show", &dir, "--run", "3", "--form", "long"])));
    assert!(long.contains("timing boundary: each run's wall time as a whole process"), "{long}");
    // The Runs table's Conditions column ends with it, in short.
    let table = stdout(&ok(vernier(&["show", &dir])));
    assert!(table.contains("timed: multiply only, in-process, steady_clock (benchmark.cpp)"), "{table}");
    assert!(table.contains("timed: whole process"), "{table}");
}

// SPEC E14: the matmul driver's seven alternating pairs, its warm-up pair
// not printed, become two MEASURED rows and the comparison C1, with the
// medians, IQRs, paired ratio and order check computed by hand (linear
// interpolation, numpy's default) and the file kept unchanged.
#[test]
fn the_matmul_driver_becomes_a_named_comparison() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = ok(import_matmul(FIXTURE, &dir));
    let printed = stdout(&o);
    assert!(printed.contains("recorded comparison C1 (runs 1 and 2)"), "{printed}");
    assert!(printed.contains("checksums identical"), "{printed}");
    let v = json(&ok(vernier(&["show", &dir, "--json"])));
    let [a, b] = [&v["runs"][0], &v["runs"][1]];
    assert!(close(&a["stats"]["median"], 5.705) && close(&a["stats"]["iqr"], 0.025), "{a}");
    assert!(close(&b["stats"]["median"], 2.604) && close(&b["stats"]["iqr"], 0.015), "{b}");
    for row in [a, b] {
        assert_eq!(row["columns"]["n (warm-up + timed)"], "1 (not in the file) + 7");
        assert_eq!(row["columns"]["Tag"], "MEASURED");
        assert_eq!(row["unit"], "ms");
        let conditions = row["columns"]["Conditions"].as_str().expect("conditions");
        assert!(conditions.contains("source: matmul-driver.csv (imported CSV)"), "{conditions}");
        assert!(conditions.contains("instrument: benchmark.cpp, steady_clock, multiply only"), "{conditions}");
        // What this machine says is kept, labelled, and never taken for the
        // machine that measured (A2 still asks for that to be stated).
        assert!(conditions.contains("read at import: "), "{conditions}");
    }
    let audit = json(&vernier(&["audit", &dir, "--json"])).to_string();
    assert!(audit.contains("states no machine"), "{audit}");
    let c = &v["comparisons"][0];
    assert_eq!(c["label"], "C1");
    assert_eq!(c["runs"], serde_json::json!([1, 2]));
    assert_eq!((c["label_a"].as_str(), c["label_b"].as_str()), (Some("naive"), Some("blocked")));
    assert!(close(&c["paired_ratio"]["median"], 0.457_331_940_090_560_8), "{c}");
    assert_eq!(c["paired_ratio"]["n"], 7);
    assert!(close(&c["order"]["difference_ab"], 2.5995 - 5.7085), "{c}");
    assert!(close(&c["order"]["difference_ba"], 2.611 - 5.694), "{c}");
    assert_eq!(c["order"]["confound"], false);
    assert_eq!(c["comparison"]["claimed"], true);
    // The raw file is the driver's output, byte for byte.
    let raw = a["columns"]["Raw file"].as_str().expect("raw file");
    let copied = std::fs::read(Path::new(&dir).join(raw)).expect("raw copy");
    assert_eq!(copied, std::fs::read(FIXTURE).expect("fixture"));
}

// SPEC E14, C: a checksum that is not the same on every row is a finding,
// on stderr, in a note and in the exit code (1); the rows are recorded.
#[test]
fn a_differing_checksum_is_reported() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let fixture = std::fs::read_to_string(FIXTURE).expect("fixture");
    let changed = fixture.replacen("5.705,2.589,134217728.000000", "5.705,2.589,134217730.000000", 1);
    let file = tmp.path().join("driver.csv");
    std::fs::write(&file, changed).expect("write");
    let o = import_matmul(&file.display().to_string(), &dir);
    assert_eq!(o.status.code(), Some(1), "a finding, the rows recorded: {}", text(&o));
    assert!(stderr(&o).contains("checksums differ"), "{}", text(&o));
    assert!(stderr(&o).contains("line 6 (pair 5) reads 134217730.000000"), "{}", text(&o));
    let v = json(&ok(vernier(&["show", &dir, "--json"])));
    let notes = v["notes"].as_array().expect("notes");
    assert!(notes.iter().any(|n| n["text"].as_str().is_some_and(|t| t.contains("checksums differ"))), "{notes:?}");
}

// SPEC E14 (issue 16 item 6): each bad file exits 2 naming the file, line
// and column, and records nothing: no row, no pair, no raw file.
#[test]
fn bad_input_exits_2_naming_file_line_and_column_and_records_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let fixture = std::fs::read_to_string(FIXTURE).expect("fixture");
    let cases = [
        ("missing column", fixture.replace("blocked_ms", "tiled_ms"), "line 1: no column 'blocked_ms' (--b)"),
        ("non-numeric cell", fixture.replace("5.731", "5.7x1"), "line 4, column 3 (naive_ms): '5.7x1' is not a number"),
        ("negative time", fixture.replace("2.597", "-2.597"), "line 4, column 4 (blocked_ms): the time is -2.597"),
        ("non-finite time", fixture.replace("2.597", "NaN"), "line 4, column 4 (blocked_ms): the time is NaN"),
        ("empty arm", "pair,first,naive_ms,blocked_ms,checksum\n".to_owned(), "line 1, column 3 (naive_ms): empty arm"),
        (
            "unequal arm lengths",
            fixture.replace(",2.602,", ",,"),
            "line 8, column 4 (blocked_ms): unequal arm lengths: naive_ms has 7 trials, blocked_ms has 6",
        ),
        (
            "unknown unit",
            fixture.replace("naive_ms", "naive_min").replace("blocked_ms", "blocked_min"),
            "line 1, column 3 (naive_min): unknown unit",
        ),
    ];
    for (what, contents, expected) in cases {
        let file = tmp.path().join("bad.csv");
        std::fs::write(&file, contents).expect("write");
        let o = vernier(&[
            "import",
            "csv",
            &file.display().to_string(),
            "--notebook",
            &dir,
            "--a",
            if what == "unknown unit" { "naive_min" } else { "naive_ms" },
            "--b",
            if what == "unknown unit" { "blocked_min" } else { "blocked_ms" },
            "--first",
            "first",
        ]);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", text(&o));
        let err = stderr(&o);
        assert!(err.contains("bad.csv, ") && err.contains(expected), "{what}: {err}");
    }
    let o = vernier(&["import", "csv", FIXTURE, "--notebook", &dir, "--column", "naive_ms", "--unit", "furlongs"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("matmul-driver.csv, line 1, column 3 (naive_ms): unknown unit 'furlongs'"),
        "{}",
        text(&o)
    );
    let v = json(&ok(vernier(&["show", &dir, "--json"])));
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(0));
    assert_eq!(v["comparisons"].as_array().map(Vec::len), Some(0));
    let raw = Path::new(&dir).join("raw");
    assert_eq!(std::fs::read_dir(&raw).map(Iterator::count).unwrap_or(0), 0, "raw/ holds nothing");
}

// SPEC E14: one column, `#` comments, the unit from --unit, the first
// trial a warm-up kept in the file; --json states what was recorded.
#[test]
fn one_column_with_warmup_in_the_file() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let file = tmp.path().join("solo.csv");
    std::fs::write(&file, "# my timer, per call\ncall,elapsed\n1,950\n2,410\n3,400\n4,420\n").expect("write");
    let file = file.display().to_string();
    let args = ["import", "csv", &file, "--notebook", &dir, "--column", "elapsed", "--unit", "us", "--warmup", "1"];
    let o = ok(vernier(&[&args[..], &["--what", "parse one line", "--command", "./parse --bench", "--json"]].concat()));
    let v = json(&o);
    assert_eq!(v["runs"][0]["run"], 1);
    assert_eq!(v["runs"][0]["n"], "1 + 3");
    assert!(close(&v["runs"][0]["median"], 410.0), "{v}");
    assert_eq!(v["comparison"], serde_json::Value::Null);
    let shown = json(&ok(vernier(&["show", &dir, "--json"])));
    assert_eq!(shown["runs"][0]["columns"]["What"], "parse one line");
    assert_eq!(shown["runs"][0]["command"], serde_json::json!(["./parse --bench"]));
}

// SPEC S15: one comparison says one thing. Pairs whose ratio is 0.7 every
// time, under medians the IQR-sum rule cannot resolve: the verdict (no
// claim) first, the paired ratio and the order check as evidence, then one
// sentence saying what that means and what would decide it — in the
// import's output, its JSON, and `show`.
#[test]
fn evidence_that_points_elsewhere_is_said_once_with_what_decides() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let file = tmp.path().join("pairs.csv");
    let bases = [6.0, 14.0, 8.0, 12.0, 10.0, 7.0, 13.0, 9.0, 11.0];
    let mut csv = "pair,first,naive_ms,blocked_ms\n".to_owned();
    for (k, base) in bases.iter().enumerate() {
        let first = if k % 2 == 0 { "naive" } else { "blocked" };
        csv.push_str(&format!("{k},{first},{base},{}\n", base * 0.7));
    }
    std::fs::write(&file, csv).expect("csv");
    let file = file.display().to_string();
    // The driver's own columns, as the README's import reads them.
    let said = stdout(&ok(import_matmul(&file, &dir)));
    let verdict = said.lines().find(|l| l.starts_with("recorded comparison C1")).expect("the verdict line");
    assert!(verdict.contains("no difference I can resolve"), "{said}");
    assert!(said.contains("paired blocked/naive 0.7"), "{said}");
    assert!(
        said.contains("Pair by pair, blocked measured lower than naive in the middle half of the 9 pairs"),
        "{said}"
    );
    // SPEC S17: imported pairs are taken again by the driver, never by
    // `bench --extend`, which cannot rerun them.
    assert!(said.contains("so no claim is made; to decide it, rerun your driver with more pairs"), "{said}");
    assert!(!said.contains("--extend"), "{said}");
    assert!(!said.contains("agree"), "never 'the orders agree': {said}");
    let v = json(&ok(vernier(&["show", &dir, "--json"])));
    let meaning = v["comparisons"][0]["meaning"].as_str().expect("a meaning");
    assert!(meaning.starts_with("Pair by pair, blocked measured lower"), "{meaning}");
    let shown = stdout(&ok(vernier(&["show", &dir])));
    assert!(shown.contains("Pair by pair, blocked measured lower"), "{shown}");
}
