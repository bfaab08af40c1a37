//! `vernier import gbench` on files the real Google Benchmark library
//! wrote (SPEC E14, C; issue 16 item 2). The fixtures and the program that
//! made them are in `tests/fixtures/gbench/`.

use crate::common;

use std::path::Path;

use common::{json, notebook, ok, stderr, stdout, text, vernier};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/gbench/");

fn fixture(name: &str) -> String {
    format!("{FIXTURES}{name}")
}

fn close(value: &serde_json::Value, expected: f64) -> bool {
    value.as_f64().is_some_and(|v| (v - expected).abs() <= 1e-12 * expected.abs())
}

/// The notebook's rows and raw files, to check that nothing was recorded.
fn recorded(dir: &str) -> (usize, usize) {
    let v = json(&ok(vernier(&["show", dir, "--json"])));
    let runs = v["runs"].as_array().map_or(0, Vec::len);
    let raw = std::fs::read_dir(Path::new(dir).join("raw")).map(Iterator::count).unwrap_or(0);
    (runs, raw)
}

// SPEC E14: nine repetitions of three benchmarks become three MEASURED
// rows with numpy's medians and IQRs of the repetitions' real_time (see
// the engine's test for the numpy command), in the file's time unit, the
// stated warm-up shown as not in the file, the file kept unchanged.
#[test]
fn nine_repetitions_become_rows_with_numpys_medians() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let file = fixture("matmul-reps9.json");
    let args = ["import", "gbench", &file, "--notebook", &dir, "--warmup-stated", "1", "--build", "g++ -O2 -std=c++17"];
    let o = ok(vernier(&args));
    let printed = stdout(&o);
    assert!(printed.contains("recorded run 1: BM_Naive/128 — median 2.3 ms"), "{printed}");
    assert!(printed.contains("agrees with Vernier's median of the 9 repetitions"), "{printed}");
    assert!(printed.contains("warning: the Google Benchmark library was built as debug"), "{printed}");
    let v = json(&ok(vernier(&["show", &dir, "--json"])));
    let expected = [
        ("BM_Naive/128", "ms", 2.253_179_933_503_829_6, 0.354_508_549_872_060_6),
        ("BM_Blocked/128", "ms", 1.894_208_687_943_332, 0.376_032_505_910_248_06),
        ("BM_RowSum/128", "us", 13.115_977_954_253_447, 0.612_152_365_692_066_9),
    ];
    for (k, (name, unit, median, iqr)) in expected.into_iter().enumerate() {
        let row = &v["runs"][k];
        assert_eq!(row["columns"]["What"], name);
        assert_eq!(row["unit"], unit);
        assert!(close(&row["stats"]["median"], median) && close(&row["stats"]["iqr"], iqr), "{row}");
        assert_eq!(row["columns"]["n (warm-up + timed)"], "1 (not in the file) + 9");
        assert_eq!(row["columns"]["Tag"], "MEASURED");
        let conditions = row["conditions"].to_string();
        assert!(conditions.contains("matmul-reps9.json (Google Benchmark JSON), benchmark"), "{conditions}");
        assert!(conditions.contains("\"host_name (from the file)\""), "{conditions}");
        assert!(conditions.contains("\"value\":\"g++ -O2 -std=c++17\""), "{conditions}");
        let raw = row["columns"]["Raw file"].as_str().expect("raw file");
        assert_eq!(raw, "raw/import-gbench-1.json");
    }
    let copied = std::fs::read(Path::new(&dir).join("raw/import-gbench-1.json")).expect("raw copy");
    assert_eq!(copied, std::fs::read(&file).expect("fixture"));
}

// SPEC E14, C: --benchmark picks rows and --json states what was recorded.
#[test]
fn one_benchmark_as_json() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let file = fixture("matmul-reps9.json");
    let o = ok(vernier(&["import", "gbench", &file, "--notebook", &dir, "--benchmark", "BM_RowSum/128", "--json"]));
    let v = json(&o);
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["runs"][0]["what"], "BM_RowSum/128");
    assert_eq!(v["runs"][0]["n"], "? + 9 (warm-up not recorded)");
    assert!(close(&v["runs"][0]["median"], 13.115_977_954_253_447), "{v}");
    assert_eq!(v["raw_file"], "raw/import-gbench-1.json");
    assert_eq!(v["sha256"].as_str().map(str::len), Some(64));
    assert_eq!(v["checks"][0]["failed"], false);
}

// SPEC E14: a file of aggregates only exits 2 with the flag to rerun with,
// and records nothing.
#[test]
fn aggregates_only_exits_2_with_the_flag_to_rerun_with() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = vernier(&["import", "gbench", &fixture("matmul-aggregates-only.json"), "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = stderr(&o);
    assert!(err.contains("matmul-aggregates-only.json: benchmark BM_Naive/128 holds only aggregates"), "{err}");
    assert!(err.contains("--benchmark_report_aggregates_only=false"), "{err}");
    assert_eq!(recorded(&dir), (0, 0));
}

// SPEC E14, E10, C: a benchmark that reported an error gets no row, only a
// note and a line on stderr; the others are recorded; the exit code is 1.
#[test]
fn an_error_entry_is_a_note_and_exit_1() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = vernier(&["import", "gbench", &fixture("with-error-reps3.json"), "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(stdout(&o).contains("recorded run 1: BM_RowSum/128"), "{}", text(&o));
    assert!(stderr(&o).contains("benchmark BM_Broken was not recorded"), "{}", text(&o));
    let v = json(&ok(vernier(&["show", &dir, "--json"])));
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(1));
    let note = v["notes"][0]["text"].as_str().unwrap_or_default();
    assert!(note.starts_with("Imported with-error-reps3.json (run 1): benchmark BM_Broken was not recorded"), "{note}");
}

// SPEC E14 (issue 16 item 6), C: bad input exits 2 naming the file and the
// place — line and column where the JSON is not a number, benchmark and
// repetition where a number cannot be a time — and records nothing.
#[test]
fn bad_input_exits_2_naming_the_file_and_records_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let real = std::fs::read_to_string(fixture("matmul-reps9.json")).expect("fixture");
    let third = "\"real_time\": 2.2531799335038296e+00";
    let cases = [
        (
            real.replace(third, "\"real_time\": -2.25"),
            "bad.json: benchmark BM_Naive/128, repetition 3: real_time is -2.25, a negative time",
        ),
        (real.replace(third, "\"real_time\": NaN"), "bad.json:77:20: not a Google Benchmark JSON file"),
        (
            real.replacen("\"time_unit\": \"ms\"", "\"time_unit\": \"hours\"", 1),
            "bad.json: benchmark BM_Naive/128, repetition 1: time_unit 'hours'",
        ),
        ("{\"results\": []}".to_owned(), "bad.json:1:15: not a Google Benchmark JSON file: missing field `benchmarks`"),
    ];
    for (contents, expected) in cases {
        let file = tmp.path().join("bad.json");
        std::fs::write(&file, contents).expect("write");
        let o = vernier(&["import", "gbench", &file.display().to_string(), "--notebook", &dir]);
        assert_eq!(o.status.code(), Some(2), "{expected}: {}", text(&o));
        assert!(stderr(&o).contains(expected), "{expected}: {}", text(&o));
    }
    let missing = tmp.path().join("missing.json").display().to_string();
    let o = vernier(&["import", "gbench", &missing, "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(stderr(&o).contains("missing.json"), "{}", text(&o));
    assert_eq!(recorded(&dir), (0, 0));
}
