//! Hostile files against the real binary (SPEC N10, E15, D4, D5, A1): every
//! read is bounded by type and size, every number checked, every chart
//! drawn in bounded time. Each command runs under a deadline, so a hang
//! fails the test instead of stalling it.

use std::io::Write as _;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use crate::common;
use common::{compacting, ok, stderr, stdout, vernier_fed, vernier_fed_within};

/// Every command here runs under the deadline: a hang fails the test.
fn vernier(args: &[&str]) -> Output {
    vernier_fed(args, |_| {})
}

fn new_notebook(tmp: &Path, name: &str) -> String {
    let dir = tmp.join(name).display().to_string();
    ok(vernier(&["new", &dir]));
    dir
}

fn hyperfine_file(tmp: &Path, name: &str, json: &str) -> String {
    let path = tmp.join(name);
    std::fs::write(&path, json).expect("write export");
    path.display().to_string()
}

// SPEC N10, D5, A1: f64::MAX in a hyperfine export is refused at import; a
// notebook edited by hand to hold it still loads, and `export` and `audit`
// return (the chart's axis no longer runs for ever), the audit naming the row.
#[test]
fn f64_max_is_refused_at_import_and_bounded_when_edited_in() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path(), "nb");
    let huge =
        hyperfine_file(tmp.path(), "huge.json", r#"{"results":[{"command":"x","times":[1.7976931348623157e308]}]}"#);
    let o = vernier(&["import", "hyperfine", &huge, "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("10^15"), "{}", stderr(&o));

    let fine = hyperfine_file(tmp.path(), "fine.json", r#"{"results":[{"command":"x","times":[1.0,1.0,1.0]}]}"#);
    // Folded into notebook.ron, where the hand edit below finds it.
    ok(compacting(&["import", "hyperfine", &fine, "--notebook", &dir]));
    let file = Path::new(&dir).join("notebook.ron");
    let text = std::fs::read_to_string(&file).expect("read");
    let edited = ["median", "p75", "max"]
        .iter()
        .fold(text, |t, k| t.replace(&format!("{k}: 1.0,"), &format!("{k}: 1.7976931348623157e308,")));
    assert!(edited.contains("max: 1.7976931348623157e308"), "{edited}");
    std::fs::write(&file, edited).expect("edit");

    ok(vernier(&["export", &dir]));
    let o = vernier(&["audit", &dir]);
    assert!(o.status.code().is_some(), "{}", stderr(&o));
    assert!(stdout(&o).contains("10^15"), "{}", stdout(&o));
}

// SPEC N10: NaN in a row's summary cannot be a measurement: the load is
// refused, naming the row.
#[test]
fn a_nan_summary_is_refused_at_load_naming_the_row() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path(), "nb");
    let fine = hyperfine_file(tmp.path(), "fine.json", r#"{"results":[{"command":"x","times":[1.0,1.0,1.0]}]}"#);
    // Folded into notebook.ron, where the hand edit below finds it.
    ok(compacting(&["import", "hyperfine", &fine, "--notebook", &dir]));
    let file = Path::new(&dir).join("notebook.ron");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, text.replace("min: 1.0,", "min: NaN,")).expect("edit");
    let o = vernier(&["show", &dir]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("run 1 cannot be a measurement"), "{}", stderr(&o));
}

// SPEC E15, E10: a hyperfine export whose every trial exited 1 is a failed
// run, as in `bench`: no MEASURED row, a note and the kept trials instead.
#[test]
fn a_hyperfine_export_of_failed_trials_records_no_row() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path(), "nb");
    let failed = hyperfine_file(
        tmp.path(),
        "failed.json",
        r#"{"results":[{"command":"false","times":[0.001,0.001,0.001],"exit_codes":[1,1,1]}]}"#,
    );
    let o = vernier(&["import", "hyperfine", &failed, "--notebook", &dir]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("was not recorded: trial 1 failed (exit 1)"), "{}", stderr(&o));
    let shown = stdout(&ok(vernier(&["show", &dir, "--json"])));
    let v: serde_json::Value = serde_json::from_str(&shown).expect("json");
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(0), "{shown}");
    assert!(!shown.contains("MEASURED"), "{shown}");
}

// SPEC D4, N10: a 5 KB workbook with one cell at XFD1048576 is read cell by
// cell: `show` and `reproduce` read it (or refuse it) and never abort.
#[test]
fn a_sparse_workbook_is_read_without_its_claimed_extent() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mine = new_notebook(tmp.path(), "mine");
    let path = tmp.path().join("measurements.xlsx");
    let mut book = rust_xlsxwriter::Workbook::new();
    let runs = book.add_worksheet().set_name("Runs").expect("name");
    let header = vernier_engine::notebook::RUN_COLUMNS;
    let row = ["1", "t", "true", "1 + 3", "0.001 s", "IQR 0.0001 s", "", "", "", "MEASURED"];
    for (c, (h, v)) in header.iter().zip(row).enumerate() {
        let c = u16::try_from(c).expect("column");
        runs.write(0, c, *h).expect("header");
        runs.write(1, c, v).expect("cell");
    }
    runs.write(1_048_575, 16_383, "far").expect("far cell");
    book.save(&path).expect("save");
    assert!(std::fs::metadata(&path).expect("meta").len() < 64 * 1024);
    let book = path.display().to_string();
    // `show` exits 1 for a workbook with problems to report; it never aborts.
    let shown = vernier(&["show", &book]);
    assert!(matches!(shown.status.code(), Some(0 | 1)), "{:?} {}", shown.status, stderr(&shown));
    let said = format!("{}{}", stdout(&shown), stderr(&shown));
    assert!(said.contains("were not read"), "{said}");
    // Without --yes the plan is shown and nothing run.
    let planned = vernier(&["reproduce", &book, "--row", "1", "--notebook", &mine]);
    assert!(planned.status.code().is_some(), "{:?}", planned.status);
    assert!(stdout(&planned).contains("command: true"), "{}", stdout(&planned));
}

// SPEC N10: a FIFO as their notebook.ron or as a raw file is refused by
// type, at once — opening it to read would wait for a writer for ever.
#[cfg(unix)]
#[test]
fn a_fifo_is_refused_not_waited_on() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mkfifo = |path: &Path| {
        let status = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo");
        assert!(status.success());
    };
    let theirs = tmp.path().join("theirs");
    std::fs::create_dir(&theirs).expect("dir");
    mkfifo(&theirs.join("notebook.ron"));
    let mine = new_notebook(tmp.path(), "mine");
    let theirs = theirs.display().to_string();
    for args in [
        vec!["show", theirs.as_str()],
        vec!["audit", theirs.as_str()],
        vec!["reproduce", theirs.as_str(), "--row", "1", "--notebook", mine.as_str()],
    ] {
        let o = vernier(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("FIFO"), "{args:?}: {}", stderr(&o));
    }

    let dir = new_notebook(tmp.path(), "nb");
    let fine = hyperfine_file(tmp.path(), "fine.json", r#"{"results":[{"command":"x","times":[1.0,1.0,1.0]}]}"#);
    ok(vernier(&["import", "hyperfine", &fine, "--notebook", &dir]));
    let raw = std::fs::read_dir(Path::new(&dir).join("raw")).expect("raw").next().expect("a raw file").expect("entry");
    std::fs::remove_file(raw.path()).expect("remove");
    mkfifo(&raw.path());
    let o = vernier(&["audit", &dir]);
    assert!(stdout(&o).contains("FIFO"), "{}{}", stdout(&o), stderr(&o));
}

// SPEC N10: /dev/zero says its length is 0 and never ends; as a notebook's
// file it is refused by type, not read for gigabytes.
#[cfg(unix)]
#[test]
fn dev_zero_as_a_notebook_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("nb");
    std::fs::create_dir(&dir).expect("dir");
    std::os::unix::fs::symlink("/dev/zero", dir.join("notebook.ron")).expect("symlink");
    let o = vernier(&["show", &dir.display().to_string()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
}

// SPEC N10: an answer past the notebook's load limit is refused with a
// message, and the notebook still loads.
#[test]
fn an_oversize_answer_is_refused_and_the_notebook_still_loads() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path(), "nb");
    let o = vernier_fed(&["write", &dir, "report.docx", "1", "-"], |stdin| {
        let block = vec![b'a'; 1 << 20];
        for _ in 0..270 {
            if stdin.write_all(&block).is_err() {
                // Refused before the end: the rest is not wanted.
                return;
            }
        }
    });
    assert_ne!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stderr(&o).contains("limit"), "{}", stderr(&o));
    ok(vernier(&["show", &dir]));
}

// SPEC N10: the save refuses a notebook larger than a load accepts — here an
// answer under the limit whose quotes double when written — and the file
// on disk stays as it was.
#[test]
fn a_notebook_past_the_load_limit_is_not_saved() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path(), "nb");
    let before = std::fs::read(Path::new(&dir).join("notebook.ron")).expect("read");
    // 200 MiB of quotes, escaped to 400 MiB, take a debug build about a
    // minute on a 2-core machine: this one gets three before it is a hang.
    let o = vernier_fed_within(&["write", &dir, "report.docx", "1", "-"], Duration::from_secs(180), |stdin| {
        let block = vec![b'"'; 1 << 20];
        for _ in 0..200 {
            if stdin.write_all(&block).is_err() {
                return;
            }
        }
    });
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains("bytes a load accepts"), "{}", stderr(&o));
    assert_eq!(std::fs::read(Path::new(&dir).join("notebook.ron")).expect("read"), before);
}
