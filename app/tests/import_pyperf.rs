//! `vernier import pyperf` on a file pyperf wrote (SPEC E14, C; issue 16
//! item 3). The fixture and the script that made it are in
//! `tests/fixtures/pyperf/`.

use crate::common;

use std::path::Path;

use common::{json, notebook, ok, stderr, stdout, text, vernier};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/pyperf/");

fn fixture(name: &str) -> String {
    format!("{FIXTURES}{name}")
}

fn close(value: &serde_json::Value, expected: f64) -> bool {
    value.as_f64().is_some_and(|v| (v - expected).abs() <= 1e-12 * expected.abs())
}

/// numpy's median and IQR of each benchmark's values, warm-ups left out
/// (see the engine's test for the numpy command).
const NUMPY: [(&str, f64, f64); 2] = [
    ("loop_sum", 3.458_986_926_269_461e-5, 1.531_278_869_628_533e-5),
    ("builtin_sum", 8.241_238_464_355_01e-6, 2.948_672_363_281_383_5e-6),
];

// SPEC E14: a pyperf suite of two benchmarks becomes two MEASURED rows
// with numpy's medians and IQRs of the values, pyperf's warm-ups counted
// apart ("3 + 9"), its metadata in the conditions as from the file, the
// file kept unchanged; the .json.gz pyperf can write gives the same rows.
#[test]
fn a_pyperf_suite_becomes_rows_with_numpys_medians() {
    for name in ["sums.json", "sums.json.gz"] {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = notebook(tmp.path());
        let o = ok(vernier(&["import", "pyperf", &fixture(name), "--notebook", &dir, "--command", "make_fixture.py"]));
        assert!(stdout(&o).contains("recorded run 1: loop_sum — median 35 µs"), "{}", text(&o));
        let v = json(&ok(vernier(&["show", &dir, "--json"])));
        for (k, (what, median, iqr)) in NUMPY.into_iter().enumerate() {
            let row = &v["runs"][k];
            assert_eq!(row["columns"]["What"], what);
            assert_eq!(row["unit"], "s");
            assert!(close(&row["stats"]["median"], median) && close(&row["stats"]["iqr"], iqr), "{name}: {row}");
            assert_eq!(row["columns"]["n (warm-up + timed)"], "3 + 9");
            assert_eq!((row["warmup"].as_u64(), row["timed"].as_u64()), (Some(3), Some(9)));
            assert_eq!(row["command"], serde_json::json!(["make_fixture.py"]));
            let conditions = row["conditions"].to_string();
            assert!(conditions.contains("\"python_version (from the file)\""), "{conditions}");
            assert!(conditions.contains(&format!("{name} (pyperf JSON")), "{conditions}");
        }
        let raw = v["runs"][0]["columns"]["Raw file"].as_str().expect("raw file");
        let copied = std::fs::read(Path::new(&dir).join(raw)).expect("raw copy");
        assert_eq!(copied, std::fs::read(fixture("sums.json")).expect("fixture"), "{name}: the JSON, unpacked");
    }
}

// SPEC E14 (issue 16 item 6), C: bad input exits 2 naming the file and the
// place, and records nothing.
#[test]
fn bad_input_exits_2_naming_the_file_and_records_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let real = std::fs::read_to_string(fixture("sums.json")).expect("fixture");
    let value = "3.458986926269461e-05";
    let cases = [
        (
            real.replace(value, "-3.4e-05"),
            "bad.json: benchmark loop_sum, run 2, value 2: the value is -0.000034, a negative time",
        ),
        (real.replace(value, "Infinity"), "bad.json:1:"),
        (
            real.replace("\"unit\":\"second\"", "\"unit\":\"byte\""),
            "bad.json: benchmark loop_sum: its unit is 'byte', not a time",
        ),
        ("{\"version\": \"1.0\"}".to_owned(), "bad.json:1:18: not a pyperf JSON file: missing field `benchmarks`"),
    ];
    for (contents, expected) in cases {
        let file = tmp.path().join("bad.json");
        std::fs::write(&file, contents).expect("write");
        let o = vernier(&["import", "pyperf", &file.display().to_string(), "--notebook", &dir]);
        assert_eq!(o.status.code(), Some(2), "{expected}: {}", text(&o));
        assert!(stderr(&o).contains(expected), "{expected}: {}", text(&o));
    }
    let v = json(&ok(vernier(&["show", &dir, "--json"])));
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(0));
    assert_eq!(std::fs::read_dir(Path::new(&dir).join("raw")).map(Iterator::count).unwrap_or(0), 0);
}
