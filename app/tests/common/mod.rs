//! What the binary-level tests share: running the built `vernier` and
//! reading what it printed. Each test binary uses a part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// Runs the built binary with `args` and waits for it.
pub fn vernier(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vernier")).args(args).output().expect("run vernier")
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
