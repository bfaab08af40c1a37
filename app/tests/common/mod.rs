//! What the binary-level tests share: running the built `vernier` and
//! reading what it printed.

use std::path::Path;
use std::process::{ChildStdin, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Runs the built binary with `args` and waits for it.
pub fn vernier(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vernier")).args(args).output().expect("run vernier")
}

/// Runs the built binary with the journal folded into notebook.ron after
/// its change (SPEC N1), for a test that then edits notebook.ron by hand.
pub fn compacting(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vernier")).args(args).env("VERNIER_COMPACT_AT", "1").output().expect("run vernier")
}

/// Long enough for a debug build on a busy machine; a hang never ends.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// Runs the binary with `args`, feeding its stdin from a writer thread, and
/// fails the test if it has not finished by [`DEADLINE`].
pub fn vernier_fed(args: &[&str], stdin: impl FnOnce(&mut ChildStdin) + Send + 'static) -> Output {
    vernier_fed_within(args, DEADLINE, stdin)
}

/// [`vernier_fed`] with its own deadline, for work that is slow by design
/// in a debug build (hundreds of MiB through the notebook's writer).
pub fn vernier_fed_within(
    args: &[&str],
    deadline: Duration,
    stdin: impl FnOnce(&mut ChildStdin) + Send + 'static,
) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vernier"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run vernier");
    let mut input = child.stdin.take().expect("stdin");
    let feeder =
        std::thread::Builder::new().name("test-stdin".into()).spawn(move || stdin(&mut input)).expect("feeder thread");
    let started = Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("vernier {args:?} did not finish within {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = feeder.join();
    child.wait_with_output().expect("output")
}

/// What it printed on stdout.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What it printed on stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Both, stdout first: what a failed assertion shows.
pub fn text(o: &Output) -> String {
    format!("{}{}", stdout(o), stderr(o))
}

/// `o`, after checking it exited 0.
pub fn ok(o: Output) -> Output {
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    o
}

/// Its stdout as one JSON value.
pub fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(o)))
}

/// A new, empty notebook `nb` under `tmp`; returns its path.
pub fn notebook(tmp: &Path) -> String {
    let dir = tmp.join("nb").display().to_string();
    ok(vernier(&["new", &dir]));
    dir
}

/// A measurements.xlsx that Vernier did not write: an Environment sheet and
/// a Runs sheet with the course's headers and `rows` as text (D4).
pub fn foreign_workbook(path: &Path, rows: &[[&str; 10]]) {
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

/// Copies `from` into `to`, folders and all.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
