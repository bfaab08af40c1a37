//! Writing a finished benchmark into a notebook (SPEC N3, N6, E10).

use std::path::Path;

use chrono::{DateTime, Utc};

use super::BenchResult;
use super::raw;
use crate::notebook::store::{self, OsStorage, RAW_DIR};
use crate::notebook::{Condition, Measurement, Notebook, NotebookPath, PathError, RawFile, SaveError, Tag};

/// What [`record`] added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// New Runs rows (empty when the run failed: it becomes a note).
    pub runs: Vec<u32>,
    /// The raw file written.
    pub raw_file: NotebookPath,
    /// Its SHA-256.
    pub sha256: String,
}

/// The raw file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Writing the raw file failed.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// `raw/` could not be created.
    #[error("cannot create {}: {source}", path.display())]
    Folder {
        /// The folder.
        path: std::path::PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// The generated name was refused (cannot happen with Vernier's names).
    #[error(transparent)]
    Path(#[from] PathError),
}

/// Writes the raw trials to `raw/` once and adds the session to `notebook`:
/// one MEASURED Runs row per arm, and a note with the verdict of a
/// comparison. A run that ended early adds no row — a note names what
/// happened and the raw file that keeps its trials. The caller saves the
/// notebook.
pub fn record(
    dir: &Path,
    notebook: &mut Notebook,
    result: &BenchResult,
    at: DateTime<Utc>,
) -> Result<Recorded, RecordError> {
    let conditions = result.conditions();
    let text = raw::render(result, &conditions);
    let sha256 = raw::sha256_hex(text.as_bytes());
    let first = notebook.runs().len() + 1;
    let stem = match &result.failure {
        None => format!("run-{first}"),
        Some(_) => format!("failed-{}", result.started_at.format("%Y%m%d-%H%M%S")),
    };
    let raw_dir = dir.join(RAW_DIR);
    std::fs::create_dir_all(&raw_dir).map_err(|source| RecordError::Folder { path: raw_dir.clone(), source })?;
    // Raw files are never overwritten: pick the first free name.
    let name = (1..)
        .map(|k| if k == 1 { format!("{stem}.csv") } else { format!("{stem}-{k}.csv") })
        .find(|n| !raw_dir.join(n).exists())
        .unwrap_or_else(|| format!("{stem}.csv"));
    let path = NotebookPath::new(format!("{RAW_DIR}/{name}"))?;
    store::atomic_write(&OsStorage, &raw_dir.join(&name), text.as_bytes())?;
    let raw_file = RawFile { path: path.clone(), sha256: sha256.clone() };

    let mut runs = Vec::new();
    if let Some(failure) = &result.failure {
        let commands: Vec<String> = result.arms.iter().map(|a| a.command.join(" ")).collect();
        let note = format!(
            "A run of `{}` ended early: {failure}. Its {} trials are kept in {path} (SHA-256 {}).",
            commands.join("` against `"),
            result.trials.len(),
            &sha256[..12]
        );
        let _ = notebook.add_note(&note, at);
    } else {
        for arm in &result.arms {
            let Some(summary) = arm.summary.clone() else { continue };
            let mut row_conditions = conditions.clone();
            if let Some(sum) = &arm.checksum {
                row_conditions.push(Condition {
                    field: "result check".into(),
                    value: format!("verified after every trial; {sum}"),
                });
            }
            let measurement = Measurement {
                what: arm.what.clone(),
                command: arm.command.clone(),
                warmup: result.warmup,
                warmup_trials: arm.warmup_trials,
                summary,
                unit: arm.unit.clone(),
                conditions: row_conditions,
                raw_file: Some(raw_file.clone()),
                tag: Tag::Measured,
                synthetic: false,
            };
            runs.push(notebook.record_run(measurement, at));
        }
        if let (Some(c), [a, b]) = (&result.comparison, runs.as_slice()) {
            let order = result
                .order
                .as_ref()
                .map_or("", |o| if o.confound { "; order is a confound" } else { "; both orders agree" });
            let _ = notebook.add_note(&format!("Runs {a} (A) and {b} (B), interleaved: {}{order}.", c.verdict), at);
        }
    }
    Ok(Recorded { runs, raw_file: path, sha256 })
}
