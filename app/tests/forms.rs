//! `vernier show DIR --run N --form short|long`: the course's two written
//! forms of a row (SPEC D7), carrying the conditions the row recorded (N9,
//! N11) — a measured comparison, an imported row, a row with no snapshot.

use crate::common;

use common::{json, notebook, ok, stdout, vernier};

const OLD_NOTEBOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/notebook-with-runs.ron");

/// The form `form` of run `run`, as printed.
fn form(dir: &str, run: &str, form: &str) -> String {
    stdout(&ok(vernier(&["show", dir, "--run", run, "--form", form])))
}

/// A notebook whose Environment states mains power, `idle` as the pre-run
/// idle and a placement control that is available.
fn stated(tmp: &std::path::Path, idle: &str) -> String {
    let dir = notebook(tmp);
    for (field, value) in [("Power source", "mains"), ("Pre-run idle", idle), ("Placement control", "available")] {
        ok(vernier(&["set", &dir, field, value]));
    }
    dir
}

// SPEC D7, N9, N11, S11: both forms of a comparison's arm carry power,
// idle and build from the row's own snapshot; the idle reads as the course
// writes it however it was stated; the comparison's short form carries the
// same conditions; placement is a phrase about this run.
#[test]
fn a_comparison_s_forms_carry_the_row_s_conditions() {
    for idle in ["5 min", "5 min idle"] {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = stated(tmp.path(), idle);
        let bench = ["bench", "--notebook", &dir, "-n", "3", "--warmup", "1", "--size", "16"];
        let arms = ["--kernel", "matmul-naive", "--vs-kernel", "matmul-blocked", "--label-a", "naive"];
        ok(vernier(&[&bench[..], &arms[..], &["--label-b", "blocked"]].concat()));
        // Whatever set later is not what the rows were measured under.
        ok(vernier(&["set", &dir, "Power source", "battery"]));

        let long = form(&dir, "1", "long");
        let lines: Vec<&str> = long.lines().map(str::trim).collect();
        assert!(lines[4].starts_with("mains power, idle 5 min before, "), "{idle:?}: {long}");
        assert!(!long.contains("idle before the run") && !long.contains("min idle"), "{long}");
        // The placement line (E8): what this run did, never a bare word.
        let read = json(&vernier(&["show", &dir, "--json"]))["runs"][0]["conditions"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["field"] == "placement"))
            .and_then(|c| c["value"].as_str())
            .unwrap_or_default()
            .to_owned();
        let expected = if read.starts_with("available") {
            "not pinned: placement control was available but not used for this run (no --pin given)"
        } else {
            "not pinned (no --pin given)"
        };
        assert_eq!(lines[5], expected, "{long}");

        let short = form(&dir, "2", "short");
        let [row, comparison] = [0, 1].map(|i| short.lines().nth(i).unwrap_or_default().to_owned());
        let conditions = "on mains power, idle 5 min before, built with rustc ";
        assert!(row.contains(conditions), "{row}");
        assert!(comparison.starts_with("naive vs blocked: median "), "{comparison}");
        assert!(comparison.contains(" for blocked against ") && comparison.contains(" for naive — medians of 3 "));
        assert!(comparison.contains("(IQR "), "both IQRs are quoted: {comparison}");
        assert!(comparison.contains(conditions), "the same conditions as the row's: {comparison}");
        // SPEC A7: every clause carries its tag.
        assert!(comparison.contains("(Vernier's built-in kernel) (MEASURED); median wall time"), "{comparison}");
        // The evidence's clauses end tagged; what it means, where it points
        // elsewhere (S15), follows as its own sentence, its figure tagged.
        let end = comparison.find("(DERIVED). ").map_or(comparison.len(), |i| i + "(DERIVED).".len());
        let (clauses, meaning) = comparison.split_at(end);
        assert!(clauses.ends_with("(DERIVED)."), "{comparison}");

        assert!(!short.contains("battery"), "{short}");
        let shown = json(&vernier(&["show", &dir, "--json"]));
        assert_eq!(shown["comparisons"][0]["sentence"].as_str(), Some(comparison.as_str()));
        // The sentence after the clauses is the comparison's meaning (S15),
        // there exactly when `show --json` gives one.
        match shown["comparisons"][0]["meaning"].as_str() {
            Some(said) => {
                let start: String = said.chars().take(20).collect();
                assert!(meaning.trim_start().starts_with(&start), "{comparison}");
            }
            None => assert!(meaning.is_empty(), "{comparison}"),
        }
    }
}

// SPEC D7, E14, N9: an imported row's forms say its conditions were stated
// at import, name its build, and do not claim a placement for its run.
#[test]
fn an_imported_row_s_forms_say_what_was_stated_at_import() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = stated(tmp.path(), "idle 5 min");
    let csv = tmp.path().join("t.csv");
    std::fs::write(&csv, "t_ms\n12.4\n12.5\n12.4\n12.6\n12.3\n").expect("write");
    let csv = csv.display().to_string();
    let args =
        ["import", "csv", &csv, "--notebook", &dir, "--column", "t_ms", "--unit", "ms", "--build", "clang++ -O2"];
    ok(vernier(&args));

    let short = form(&dir, "1", "short");
    assert!(
        short.contains(", on mains power, idle 5 min before (stated at import), built with clang++ -O2 ("),
        "{short}"
    );
    let long = form(&dir, "1", "long");
    assert!(
        long.contains("\n  mains power, idle 5 min before (stated at import, not read from the measuring machine)\n"),
        "{long}"
    );
    assert!(
        long.contains(
            "\n  placement control available (stated at import); whether this run was pinned is not recorded\n"
        ),
        "{long}"
    );
}

// SPEC D7, N8, N9: a row recorded before rows kept their stated
// Environment says so in its short form, and never borrows today's fields.
#[test]
fn a_row_without_a_snapshot_says_so() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("old");
    std::fs::create_dir(&dir).expect("folder");
    std::fs::copy(OLD_NOTEBOOK, dir.join("notebook.ron")).expect("copy");
    let dir = dir.display().to_string();
    ok(vernier(&["set", &dir, "Pre-run idle", "10 min"]));
    let short = form(&dir, "1", "short");
    // The power source is the machine's reading, kept with the row.
    assert!(short.contains(", on mains power, pre-run idle not recorded with this row, build not stated, "), "{short}");
    assert!(!short.contains("10 min"), "today's Environment is not the row's: {short}");
}
