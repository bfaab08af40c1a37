//! Notebooks move between Linux, macOS and Windows: a file written on one
//! opens on the others (line endings, path separators).

use std::path::{Path, PathBuf};

use vernier_engine::harness::raw;
use vernier_engine::notebook::store;
use vernier_engine::soak;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// The Windows notebook fixture copied into a fresh folder.
fn windows_notebook() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("lab3");
    std::fs::create_dir_all(dir.join("raw")).expect("mkdir");
    for file in ["notebook.ron", "raw/run-1.csv"] {
        std::fs::copy(fixture("windows-notebook").join(file), dir.join(file)).expect("copy");
    }
    (tmp, dir)
}

// SPEC N1, N6, N8: a notebook from Windows (CRLF lines, `raw\run-1.csv`)
// opens here with its chain intact, its raw file found, hashed and read.
#[test]
fn notebook_written_on_windows_opens_here() {
    let (_tmp, dir) = windows_notebook();
    let text = std::fs::read_to_string(dir.join("notebook.ron")).expect("read");
    assert!(text.contains("\r\n") && text.contains(r#""raw\\run-1.csv""#), "the fixture is a Windows file");

    let nb = store::load(&dir).expect("a Windows notebook loads");
    assert!(nb.integrity().is_empty(), "{:?}", nb.integrity());
    let run = nb.run(1).expect("run 1");
    let raw_file = run.measurement.raw_file.as_ref().expect("run 1 keeps its raw file");
    assert_eq!(raw_file.path.as_str(), "raw/run-1.csv", "read with `/`");

    let bytes = std::fs::read(raw_file.path.resolve(&dir).expect("inside")).expect("the raw file is found");
    assert_eq!(vernier_engine::digest::sha256_hex(&bytes), raw_file.sha256, "the hash of the file as it sits on disk");
    let trials = raw::parse(std::str::from_utf8(&bytes).expect("utf-8")).expect("CRLF rows parse");
    assert_eq!((trials.len(), trials.iter().filter(|t| !t.warmup).count()), (10, 7));
    let report = vernier_engine::audit::audit(&dir, &nb);
    assert!(!format!("{:?}", report.findings).contains("run-1.csv"), "{:?}", report.findings);
}

// SPEC N1, N7: saved here, it is the same file any OS writes: `\n` and `/`,
// and it reads back equal.
#[test]
fn a_saved_notebook_is_the_same_on_every_os() {
    let (_tmp, dir) = windows_notebook();
    let nb = store::load(&dir).expect("load");
    store::replace(&dir, &nb).expect("save");
    let saved = std::fs::read_to_string(dir.join("notebook.ron")).expect("read");
    assert!(!saved.contains('\r'), "line ends are \\n whatever the OS");
    assert!(saved.contains(r#"path: "raw/run-1.csv""#) && !saved.contains(r"raw\\"), "paths use `/`");
    assert_eq!(store::load(&dir).expect("reload"), nb);
}

// SPEC N8: the same log with LF (Linux, macOS) or CRLF (Windows, or a
// checkout with autocrlf) line ends reads as the same notebook.
#[test]
fn line_endings_do_not_change_the_log() {
    let lf = include_str!("fixtures/notebook-with-runs.ron");
    let crlf = lf.replace('\n', "\r\n");
    let from_lf = store::from_bytes(lf.as_bytes(), Path::new("lf/notebook.ron")).expect("LF");
    let from_crlf = store::from_bytes(crlf.as_bytes(), Path::new("crlf/notebook.ron")).expect("CRLF");
    assert_eq!(from_lf, from_crlf);
    assert!(from_crlf.integrity().is_empty());
}

// SPEC T4: a soak CSV with CRLF line ends reads exactly like its LF twin.
#[test]
fn soak_file_written_on_windows_reads_here() {
    let path = fixture("windows-soak.csv");
    let crlf = std::fs::read(&path).expect("fixture");
    assert!(crlf.windows(2).any(|w| w == b"\r\n"), "the fixture has CRLF line ends");
    let lf: Vec<u8> = crlf.iter().copied().filter(|&b| b != b'\r').collect();
    let from_crlf = soak::file::read(&path).expect("CRLF soak file");
    let from_lf = soak::file::parse(lf.as_slice(), &path).expect("LF twin");
    assert_eq!(from_crlf.len(), 40);
    assert_eq!(from_crlf, from_lf);
    assert!(from_crlf.synthetic(), "its SYNTHETIC stamp survives the line ends");
}
