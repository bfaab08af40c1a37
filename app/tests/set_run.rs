//! `vernier set-run`: stating what an imported row did not record, so the
//! audit's A1/A2 findings on it can be answered without discarding it
//! (SPEC A1, A2, E14; issue 16 item 5).

use crate::common;

use common::{json, notebook, ok, stderr, stdout, vernier};

const HYPERFINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/hyperfine-true.json");

/// The audit's A1 and A2 findings on run `number`, as `audit --json` lists them.
fn findings_on(dir: &str, number: u64) -> Vec<String> {
    let report = json(&vernier(&["audit", dir, "--json"]));
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["place"]["kind"] == "run" && f["place"]["number"] == number)
        .filter_map(|f| f["check"].as_str().filter(|c| ["A1", "A2"].contains(c)).map(str::to_owned))
        .collect()
}

// SPEC A1, A2: an imported hyperfine row lacks its warm-up, build, machine,
// power and thermal state; stating them clears exactly those findings and
// the row's numbers stay as imported.
#[test]
fn set_run_clears_the_findings_it_answers_and_never_a_number() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    ok(vernier(&["import", "hyperfine", HYPERFINE, "--notebook", &dir]));
    let before = json(&ok(vernier(&["show", &dir, "--json"])))["runs"][0]["stats"].clone();
    let found = findings_on(&dir, 1);
    assert!(found.contains(&"A1".to_owned()) && found.contains(&"A2".to_owned()), "{found:?}");

    let o = ok(vernier(&["set-run", &dir, "--run", "1", "--warmup", "3", "--build", "coreutils 9.1 (Debian)"]));
    assert!(stdout(&o).contains("still A2: states no machine, no power source, no thermal"), "{}", stdout(&o));
    assert_eq!(findings_on(&dir, 1), vec!["A2".to_owned()]);

    let o = ok(vernier(&[
        "set-run",
        &dir,
        "--run",
        "1",
        "--machine",
        "ThinkPad T14",
        "--power",
        "mains",
        "--thermal",
        "idle 5 min before the run",
    ]));
    assert!(stdout(&o).contains("A1 and A2 find nothing more on run 1"), "{}", stdout(&o));
    assert!(findings_on(&dir, 1).is_empty());

    let shown = json(&ok(vernier(&["show", &dir, "--json"])));
    let run = &shown["runs"][0];
    assert_eq!(run["stats"], before, "the numbers never change");
    assert_eq!(run["columns"]["n (warm-up + timed)"], "3 (not in the file) + 5");
    let conditions = run["conditions"].to_string();
    assert!(conditions.contains("build (stated later)") && conditions.contains("stated later"), "{conditions}");
}

// SPEC N9: what a row states is never replaced; the refusal names it, exits
// 2 and changes nothing.
#[test]
fn set_run_refuses_what_the_row_already_states() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    ok(vernier(&["import", "hyperfine", HYPERFINE, "--notebook", &dir, "--warmup-stated", "2"]));
    let shown = json(&ok(vernier(&["show", &dir, "--json"])));
    assert_eq!(shown["runs"][0]["columns"]["n (warm-up + timed)"], "2 (not in the file) + 5");
    let file = std::fs::read(std::path::Path::new(&dir).join("notebook.ron")).expect("notebook");
    let o = vernier(&["set-run", &dir, "--run", "1", "--warmup", "5", "--power", "mains"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("run 1 already states its warm-up: 2 warm-up trials"), "{}", stderr(&o));
    assert_eq!(std::fs::read(std::path::Path::new(&dir).join("notebook.ron")).expect("notebook"), file);
    let o = vernier(&["set-run", &dir, "--run", "7", "--warmup", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("there is no run 7"), "{}", stderr(&o));
    let o = vernier(&["set-run", &dir, "--run", "1"]);
    assert_eq!(o.status.code(), Some(2), "nothing to state is a usage error");
}
