//! Raw trial files (SPEC N6): one row per trial, the conditions as `#`
//! comments on top. Written once into `raw/`, never modified; the notebook
//! keeps their SHA-256.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use super::{BenchResult, TrialRecord};
use crate::notebook::Condition;

/// The CSV header.
pub const HEADER: &str = "index,arm,position,warmup,ns,exit_status";

/// The file's text: `#` lines (title, commands, conditions), then the rows.
pub fn render(result: &BenchResult, conditions: &[Condition]) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "# Vernier raw trials — written once; the notebook keeps this file's SHA-256");
    let _ = writeln!(out, "# started: {}", result.started_at.to_rfc3339());
    for arm in &result.arms {
        let _ = writeln!(
            out,
            "# arm {}: {} — command: {}",
            arm.label,
            one_line(&arm.what),
            one_line(&arm.command.join(" "))
        );
    }
    for c in conditions {
        let _ = writeln!(out, "# {}: {}", one_line(&c.field), one_line(&c.value));
    }
    if let Some(failure) = &result.failure {
        let _ = writeln!(out, "# ended early: {}", one_line(failure));
    }
    out.push_str(HEADER);
    out.push('\n');
    for t in &result.trials {
        let _ = writeln!(out, "{}", row(t));
    }
    out
}

fn row(t: &TrialRecord) -> String {
    let arm = if t.arm == 0 { "A" } else { "B" };
    format!("{},{arm},{},{},{},{}", t.index, t.position, u8::from(t.warmup), t.ns, t.status)
}

/// A comment must stay on its line: a newline in a value would start a
/// data row.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::notebook::hex(&Sha256::digest(bytes))
}
