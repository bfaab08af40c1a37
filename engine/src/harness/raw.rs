//! Raw trial files (SPEC N6): one row per trial, the conditions as `#`
//! comments on top. Written once into `raw/`, never modified; the notebook
//! keeps their SHA-256.

use std::fmt::Write as _;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::TrialRecord;
use crate::bounded::{ReadError, read_bounded};
use crate::notebook::store::{self, OsStorage, RAW_DIR};
use crate::notebook::{FolderError, NotebookPath, PathError, RawFile, SaveError, create_folder};

/// A raw file larger than this is neither hashed nor read: a million
/// trials take about 40 MB.
pub const MAX_RAW_BYTES: u64 = 512 * 1024 * 1024;

/// The CSV header.
pub const HEADER: &str = "index,arm,position,warmup,ns,exit_status";

/// A raw file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum RawError {
    /// Writing the file failed.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// `raw/` could not be created.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The generated name was refused (cannot happen with Vernier's names).
    #[error(transparent)]
    Path(#[from] PathError),
}

/// The file's text: `comments` as `#` lines, then one row per trial.
pub fn render(comments: &[String], trials: &[TrialRecord]) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "# Vernier raw trials — written once; the notebook keeps this file's SHA-256");
    for comment in comments {
        // A comment must stay on its line: a newline would start a data row.
        let _ = writeln!(out, "# {}", comment.replace(['\n', '\r'], " "));
    }
    out.push_str(HEADER);
    out.push('\n');
    for t in trials {
        let arm = if t.arm == 0 { "A" } else { "B" };
        let _ = writeln!(out, "{},{arm},{},{},{},{}", t.index, t.position, u8::from(t.warmup), t.ns, t.status);
    }
    out
}

/// Writes `text` to `raw/STEM.csv` in the notebook `dir` — or `STEM-2.csv`,
/// `STEM-3.csv` … since a raw file is never overwritten — and returns its
/// path and SHA-256.
pub fn write_once(dir: &Path, stem: &str, text: &str) -> Result<RawFile, RawError> {
    let raw_dir = dir.join(RAW_DIR);
    create_folder(&raw_dir)?;
    let name = (1..)
        .map(|k| if k == 1 { format!("{stem}.csv") } else { format!("{stem}-{k}.csv") })
        .find(|n| !raw_dir.join(n).exists())
        .unwrap_or_else(|| format!("{stem}.csv"));
    let path = NotebookPath::new(format!("{RAW_DIR}/{name}"))?;
    store::atomic_write(&OsStorage, &raw_dir.join(&name), text.as_bytes())?;
    Ok(RawFile { path, sha256: sha256_hex(text.as_bytes()), arm: "A".into() })
}

/// SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::notebook::hex(&Sha256::digest(bytes))
}

/// The bytes of the raw file at `path`, which may be someone else's.
pub fn read(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_bounded(path, MAX_RAW_BYTES, "a raw trial file")
}

/// Reads the trial rows of a raw file back (the `#` lines are skipped).
/// The file may be someone else's, so every field is checked; the message
/// names the line.
pub fn parse(text: &str) -> Result<Vec<TrialRecord>, String> {
    let mut trials = Vec::new();
    let mut header_seen = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !header_seen {
            if line != HEADER {
                return Err(format!("line {}: expected the header '{HEADER}'", i + 1));
            }
            header_seen = true;
            continue;
        }
        let bad = |what: &str| format!("line {}: {what}", i + 1);
        let fields: Vec<&str> = line.split(',').collect();
        let [index, arm, position, warmup, ns, status] = fields.as_slice() else {
            return Err(bad("expected 6 fields"));
        };
        trials.push(TrialRecord {
            index: index.parse().map_err(|_| bad("the index is not a number"))?,
            arm: match *arm {
                "A" => 0,
                "B" => 1,
                _ => return Err(bad("the arm is neither A nor B")),
            },
            position: position.parse().map_err(|_| bad("the position is not a number"))?,
            warmup: match *warmup {
                "0" => false,
                "1" => true,
                _ => return Err(bad("the warm-up flag is neither 0 nor 1")),
            },
            ns: ns.parse().map_err(|_| bad("the time is not a whole number of nanoseconds"))?,
            status: parse_status(status).ok_or_else(|| bad("unknown exit status"))?,
        });
    }
    Ok(trials)
}

fn parse_status(text: &str) -> Option<super::TrialStatus> {
    use super::TrialStatus;
    Some(match text {
        "0" => TrialStatus::Ok,
        "timeout" => TrialStatus::Timeout,
        "cancelled" => TrialStatus::Cancelled,
        "wrong result" => TrialStatus::WrongResult,
        other => {
            if let Some(code) = other.strip_prefix("exit ") {
                TrialStatus::Exit(code.parse().ok()?)
            } else {
                TrialStatus::Signal(other.strip_prefix("signal ")?.parse().ok()?)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::TrialStatus;

    // SPEC N6: what is written reads back the same.
    #[test]
    fn render_then_parse_round_trips() {
        let trials = vec![
            TrialRecord { index: 0, arm: 0, position: 1, warmup: true, ns: 10, status: TrialStatus::Ok },
            TrialRecord { index: 1, arm: 1, position: 2, warmup: false, ns: 12, status: TrialStatus::Exit(3) },
            TrialRecord { index: 2, arm: 0, position: 1, warmup: false, ns: 99, status: TrialStatus::Signal(9) },
            TrialRecord { index: 3, arm: 0, position: 1, warmup: false, ns: 7, status: TrialStatus::Timeout },
        ];
        let text = render(&["machine: x\nwith a newline".into()], &trials);
        assert_eq!(parse(&text), Ok(trials));
        assert!(parse("index,arm,position,warmup,ns,exit_status\n0,C,1,0,5,0\n").is_err());
        assert!(parse("nonsense\n").is_err());
    }
}
