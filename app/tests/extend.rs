//! `vernier bench --extend N` as a user runs it (SPEC S10): a run of the
//! notebook rerun to 51 timed trials as a new row linked to it, judged
//! against a claim; and the rows it refuses.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::common;
use common::{json, notebook, stderr, stdout, vernier};

fn runs(dir: &str) -> Vec<Value> {
    json(&vernier(&["show", dir, "--json"]))["runs"].as_array().expect("runs").clone()
}

fn condition(run: &Value, field: &str) -> Option<String> {
    run["conditions"].as_array()?.iter().find(|c| c["field"] == field)?["value"].as_str().map(str::to_owned)
}

/// `vernier bench --extend run --notebook dir --yes --allow-inline-code`
/// (the runs here measure system tools such as `true`, which their row
/// does not vouch for: SPEC N13) and then `more`; must succeed.
fn extend(dir: &str, run: &str, more: &[&str]) -> Output {
    let mut args = vec!["bench", "--extend", run, "--notebook", dir, "--yes", "--allow-inline-code"];
    args.extend_from_slice(more);
    let o = vernier(&args);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    o
}

// SPEC S10, N5: run 1 (5 trials of `true`) rerun to 51 timed trials with
// its own warm-up, as run 2 linked to run 1; run 1 is unchanged. A claim
// far above any move is not exceeded, a claim of 0 is; without a claim the
// move is judged against the IQR and the output says no claim was given.
#[test]
fn extend_reruns_to_51_trials_as_a_linked_row() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = vernier(&["bench", "-n", "5", "--warmup", "1", "--notebook", &dir, "--", "true"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let original = runs(&dir)[0].clone();

    // SPEC N13: the student's own row is a file anyone can edit too: its
    // plan is shown and nothing runs without --yes.
    let asked = vernier(&["bench", "--extend", "1", "--notebook", &dir]);
    assert_eq!(asked.status.code(), Some(1), "{}{}", stdout(&asked), stderr(&asked));
    let plan = stdout(&asked);
    assert!(plan.contains("Extend run 1 to 51 timed trials") && plan.contains("\n  command: true\n"), "{plan}");
    assert!(plan.contains("timed trials: 51 (they had 5)") && plan.contains("warm-up: 1 warm-up trials"), "{plan}");
    // SPEC N13: `true` is a program of this machine with their arguments,
    // not a program their row vouches for: the second consent is asked.
    assert!(plan.contains("runs true with their arguments: such a program can run code they wrote"), "{plan}");
    assert!(
        plan.contains("Nothing was run. Check what will run above, then add --yes --allow-inline-code to run it."),
        "{plan}"
    );
    let v = json(&vernier(&["bench", "--extend", "1", "--notebook", &dir, "--json"]));
    assert_eq!((v["ran"].as_bool(), v["plan"]["commands"][0][0].as_str()), (Some(false), Some("true")), "{v}");
    assert_eq!(runs(&dir).len(), 1, "nothing ran");

    let v = json(&extend(&dir, "1", &["--claim", "1000s", "--json"]));
    assert_eq!(v["extends"], 1);
    assert_eq!(v["recorded_run"], 2);
    assert_eq!(v["median_before"], original["stats"]["median"]);
    let (before, after) = (v["median_before"].as_f64().expect("before"), v["median_after"].as_f64().expect("after"));
    // serde_json reads a float to within an ulp, so compare within a picosecond.
    let moved = v["moved"].as_f64().expect("moved");
    assert!((moved - (after - before).abs()).abs() < 1e-12, "{moved} vs {after} − {before}");
    assert_eq!(v["claim"], 1000.0);
    assert_eq!(v["moved_more_than_claim"], false);
    assert_eq!(v["timed_after"], 51);
    assert!(v["verdict"].as_str().expect("verdict").contains("the median moved by less than the 1000 s"), "{v}");

    let rows = runs(&dir);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0], original, "the run extended never changes");
    let new = &rows[1];
    assert_eq!(new["extends"], 1);
    assert_eq!(new["timed"], 51);
    assert_eq!(new["columns"]["n (warm-up + timed)"], "1 + 51", "the same warm-up policy");
    assert_eq!(new["command"], original["command"]);
    let link = condition(new, "extends").expect("the new row's conditions name the run it extends");
    assert!(link.starts_with("run 1, rerun to 51 timed trials"), "{link}");
    assert!(original["extends"].is_null() && condition(&original, "extends").is_none());
    let notes = json(&vernier(&["show", &dir, "--json"]))["notes"].clone();
    assert!(notes.to_string().contains("Run 1 extended to 51 trials as run 2"), "{notes}");

    let v = json(&extend(&dir, "1", &["--claim", "0", "--json"]));
    assert_eq!((v["extends"].as_u64(), v["recorded_run"].as_u64()), (Some(1), Some(3)));
    assert_eq!(v["claim"], 0.0);
    assert_eq!(v["moved_more_than_claim"], v["moved"].as_f64().map(|m| m > 0.0).expect("moved"));

    let text = stdout(&extend(&dir, "1", &["--claim", "5%"]));
    assert!(text.contains("Median before") && text.contains("1 → 4"), "{text}");
    assert!(
        text.contains("judged against: the difference you mean to claim") && text.contains("(given as 5%)"),
        "{text}"
    );
    assert!(text.contains("verdict (S10): Run 1 extended to 51 trials as run 4"), "{text}");

    let text = stdout(&extend(&dir, "1", &[]));
    assert!(text.contains("no claim was given (--claim VALUE or PCT)"), "{text}");
    assert!(text.contains("No claim was given"), "{text}");
    let v = json(&extend(&dir, "1", &["--json"]));
    assert!(v["claim"].is_null() && v["moved_more_than_claim"].is_null(), "{v}");
    assert!(v["moved_more_than_iqr"].is_boolean());
    assert_eq!(runs(&dir).len(), 6);
}

// SPEC S10, E5: one arm of an interleaved comparison brings its partner:
// both are rerun interleaved, each new row linked to its own arm, and the
// claim defaults to the comparison's difference.
#[test]
fn extending_one_arm_reruns_the_comparison() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let o = vernier(&["bench", "-n", "3", "--notebook", &dir, "--vs", "true", "--", "true"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = runs(&dir);
    let v = json(&extend(&dir, "2", &["--json"]));
    assert_eq!((v["extends"].as_u64(), v["recorded_run"].as_u64()), (Some(2), Some(4)), "{v}");
    let arms = v["arms"].as_array().expect("arms");
    assert_eq!(arms.len(), 2);
    assert_eq!((arms[0]["extends"].as_u64(), arms[0]["arm"].as_str()), (Some(1), Some("A")));
    assert_eq!((arms[1]["extends"].as_u64(), arms[1]["arm"].as_str()), (Some(2), Some("B")));
    let difference =
        (before[1]["stats"]["median"].as_f64().expect("B") - before[0]["stats"]["median"].as_f64().expect("A")).abs();
    assert!((v["claim"].as_f64().expect("claim") - difference).abs() < 1e-12, "{v}");
    assert!(
        v["claim_from"].as_str().expect("from").contains("the difference between the medians of runs 1 and 2"),
        "{v}"
    );
    let verdict = v["verdict"].as_str().expect("verdict");
    let head = "Runs 1 and 2 extended to 51 trials, interleaved again, as runs 3 and 4: A median from ";
    assert!(verdict.starts_with(head), "{verdict}");
    let rows = runs(&dir);
    assert_eq!(&rows[..2], &before[..], "the runs extended never change");
    assert_eq!((rows[2]["extends"].as_u64(), rows[3]["extends"].as_u64()), (Some(1), Some(2)));
    assert_eq!(rows[2]["columns"]["Raw file"], rows[3]["columns"]["Raw file"], "rerun interleaved, as one session");
}

// SPEC S10, N5, C: refused with the reason, before anything runs and with
// the notebook left as it was: no such run, an imported row (no spec to
// rerun), a discarded row, a row whose program is gone, a claim that is not
// one, and options that would change the spec.
#[test]
fn extend_refuses_what_it_cannot_rerun() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let refused = |args: &[&str], why: &str| {
        let o = vernier(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}{}", stdout(&o), stderr(&o));
        assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
    };
    refused(&["bench", "--extend", "9", "--notebook", &dir], "there is no run 9 in this notebook");

    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/hyperfine-true.json");
    assert_eq!(vernier(&["import", "hyperfine", fixture, "--notebook", &dir]).status.code(), Some(0));
    refused(&["bench", "--extend", "1", "--notebook", &dir], "run 1 was imported");
    refused(&["bench", "--extend", "1", "--notebook", &dir], "there is no spec to rerun");

    // A program of our own, measured, then gone.
    let program = tmp.path().join("my-true");
    std::fs::copy(which("true"), &program).expect("copy true");
    let program = program.display().to_string();
    let o = vernier(&["bench", "-n", "3", "--notebook", &dir, "--", &program]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    refused(&["bench", "--extend", "2", "--notebook", &dir, "--claim", "fast"], "'fast' is not a claim");
    refused(&["bench", "--extend", "2", "--notebook", &dir, "-n", "5"], "cannot be used with");
    refused(&["bench", "--extend", "2", "--notebook", &dir, "--", "true"], "cannot be used with");
    std::fs::remove_file(&program).expect("remove");
    refused(&["bench", "--extend", "2", "--notebook", &dir], "run 2 cannot be rerun: cannot run");

    assert_eq!(vernier(&["discard", &dir, "--run", "2", "--why", "wrong build"]).status.code(), Some(0));
    refused(&["bench", "--extend", "2", "--notebook", &dir], "run 2 was discarded (wrong build)");
    assert_eq!(runs(&dir).len(), 2, "nothing was recorded");
    let raw: Vec<_> = std::fs::read_dir(Path::new(&dir).join("raw")).expect("raw").collect();
    assert_eq!(raw.len(), 2, "no raw file was taken by a refusal");
}

/// Where `program` is on PATH.
fn which(program: &str) -> std::path::PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .expect("on PATH")
}
