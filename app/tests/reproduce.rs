//! Reproducing a classmate's row (SPEC R1–R3) and reading a foreign
//! workbook (D4), run as a user would: the real binary, with hostile input.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use sha2::{Digest, Sha256};

fn vernier(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vernier")).args(args).output().expect("run vernier")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn ok(o: Output) -> Output {
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    o
}

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

/// Their notebook with one measured run of `true` (n = 3), and my empty one.
fn theirs_and_mine() -> (tempfile::TempDir, String, String) {
    let tmp = tempfile::tempdir().expect("tmp");
    let theirs = tmp.path().join("theirs").display().to_string();
    let mine = tmp.path().join("mine").display().to_string();
    ok(vernier(&["new", &theirs]));
    ok(vernier(&["new", &mine]));
    ok(vernier(&["bench", "-n", "3", "--notebook", &theirs, "--", "true"]));
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

    let o = ok(vernier(&["reproduce", &theirs, "--row", "1", "--notebook", &mine, "--yes", "--json"]));
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

fn foreign_workbook(path: &Path, rows: &[[&str; 10]]) {
    let mut book = rust_xlsxwriter::Workbook::new();
    let env = book.add_worksheet();
    env.set_name("Environment").expect("name");
    for (r, (k, v)) in
        [("Field", "Value"), ("Machine / OS", "ThinkPad X1, Linux 6.8"), ("Power source", "battery")].iter().enumerate()
    {
        env.write_string(r as u32, 0, *k).expect("cell");
        env.write_string(r as u32, 1, *v).expect("cell");
    }
    let runs = book.add_worksheet();
    runs.set_name("Runs").expect("name");
    for (k, h) in vernier_engine::notebook::RUN_COLUMNS.iter().enumerate() {
        runs.write_string(0, k as u16, *h).expect("cell");
    }
    for (r, row) in rows.iter().enumerate() {
        for (k, cell) in row.iter().enumerate() {
            runs.write_string(r as u32 + 1, k as u16, *cell).expect("cell");
        }
    }
    book.save(path).expect("save");
}

// SPEC D4, R1, untrusted input: a foreign workbook is read by header names;
// what cannot be read is listed; metacharacters in a command are arguments,
// a shell string is refused, and a raw-file path is only text.
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
    assert!(text(&o).contains("never a shell string"), "{}", text(&o));

    let o = ok(vernier(&["reproduce", &book, "--row", "1", "--notebook", &mine, "--yes"]));
    let shown = text(&o);
    assert!(shown.contains("verdict (S7)"), "{shown}");
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
