//! Writing a finished soak into a notebook (SPEC T1, T5, N3, N6): the soak's
//! counterpart of [`crate::harness::record`], used by the command line and
//! the window alike.
//!
//! Two steps, so the window can read the file on the soak's own thread and
//! change the notebook on its UI thread: [`finish`] reads the CSV back,
//! hashes and analyses it; [`add_row`] records it.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::file::{self, SoakFileError};
use super::load::SoakOutcome;
use super::{Analysis, AnalysisError, Thresholds, analyze};
use vernier_model::digest::sha256_hex;
use vernier_model::notebook::{AnsweredBy, Condition, Notebook, NotebookPath, RawFile, Soak, SoakProtocol, Tag, store};

/// Where the next soak of `notebook` (kept in `dir`) writes its CSV:
/// `raw/soak-N.csv`, N being the row it will become.
pub fn raw_path(dir: &Path, notebook: &Notebook) -> PathBuf {
    dir.join(store::RAW_DIR).join(format!("soak-{}.csv", notebook.soaks().len() + 1))
}

/// A soak that ran, read back from the file it wrote.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The CSV.
    pub path: PathBuf,
    /// Its SHA-256 as read back, for the row's raw-file hash.
    pub sha256: String,
    /// The protocol it ran.
    pub protocol: SoakProtocol,
    /// The six numbers under the protocol's thresholds, or why there are none.
    pub analysis: Result<Analysis, AnalysisError>,
    /// The row's conditions: the machine's, the placeholders, the load.
    pub conditions: Vec<Condition>,
    /// Stopped before its duration.
    pub cancelled: bool,
}

/// Reads the CSV the soak wrote at `path` back, hashes it and analyses it
/// with the protocol's thresholds.
pub fn finish(path: &Path, protocol: SoakProtocol, outcome: &SoakOutcome) -> Result<Finished, SoakFileError> {
    let bytes = vernier_model::bounded::read_bounded(path, file::MAX_SOAK_BYTES, "a soak file")?;
    let data = file::parse(&bytes[..], path)?;
    Ok(Finished {
        path: path.to_path_buf(),
        sha256: sha256_hex(&bytes),
        protocol,
        analysis: analyze(&data, &Thresholds::from(&protocol)),
        conditions: outcome.row_conditions(),
        cancelled: outcome.cancelled,
    })
}

/// What [`add_row`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Added {
    /// A MEASURED Soak runs row, `S{n}`.
    Soak(u32),
    /// The soak could not be analysed (too short, stopped early): a note
    /// says why and where its rows are kept.
    Note(String),
}

/// Records `finished` in `notebook` (kept in `dir`): a Soak runs row when it
/// has its six numbers, otherwise a note. The raw file is linked when the
/// CSV lies inside the notebook folder.
pub fn add_row(notebook: &mut Notebook, dir: &Path, finished: &Finished, at: DateTime<Utc>) -> Added {
    match &finished.analysis {
        Ok(analysis) => {
            // The prediction that fixed this protocol is the one the soak answers (T1, N14).
            // A prediction fixed since the soak started is not the one it ran.
            let fixed =
                |n: u32| notebook.predictions().iter().any(|p| p.number == n && p.protocol == Some(finished.protocol));
            let predicted = notebook
                .soaks_started()
                .iter()
                .map(|s| s.prediction)
                .find(|&n| fixed(n))
                .or_else(|| notebook.next_soak_protocol().filter(|(_, p)| *p == finished.protocol).map(|(n, _)| n));
            let number = notebook.record_soak(
                Soak {
                    number: 0,
                    recorded_at: at,
                    discarded: None,
                    protocol: finished.protocol,
                    numbers: analysis.numbers.clone(),
                    conditions: finished.conditions.clone(),
                    raw_file: inside(dir, &finished.path).map(|path| RawFile {
                        path,
                        sha256: finished.sha256.clone(),
                        arm: "A".into(),
                        imported: None,
                    }),
                    tag: Tag::Measured,
                    synthetic: false,
                    stated: None,
                },
                at,
            );
            // SPEC T11: a soak stopped short of its windows is still a row,
            // and the log says its P and S overlap.
            for warning in [&analysis.windows_warning, &analysis.ramp_warning].into_iter().flatten() {
                let _ = notebook.add_vernier_note(&format!("Soak S{number}: {warning}."), at);
            }
            if let Some(p) = predicted
                && let Err(e) = notebook.answer_prediction(p, AnsweredBy::Soak(number), at)
            {
                let _ = notebook.add_vernier_note(&format!("Soak S{number} does not answer P{p}: {e}."), at);
            }
            Added::Soak(number)
        }
        Err(e) => {
            let why = e.to_string();
            let note = format!(
                "A soak stopped before it could be analysed ({why}); its rows are kept in {}.",
                finished.path.display()
            );
            // A note can only be refused when empty; this one never is.
            let _ = notebook.add_vernier_note(&note, at);
            Added::Note(why)
        }
    }
}

/// `file`'s path inside the notebook folder `dir`, when it lies there.
fn inside(dir: &Path, file: &Path) -> Option<NotebookPath> {
    let relative = file.strip_prefix(dir).ok()?;
    let parts: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    NotebookPath::new(parts.join("/")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::soak::file::{HEADER, SoakRow};

    fn outcome() -> SoakOutcome {
        SoakOutcome {
            samples: 0,
            chunk_steps: 1,
            chunk_ms: 20.0,
            placeholders: vec!["power_w"],
            workers: 2,
            cancelled: false,
        }
    }

    fn write_soak(dir: &Path, rows: u32, score: f64) -> PathBuf {
        let path = raw_path(dir, &Notebook::new("t", Utc::now()));
        std::fs::create_dir_all(path.parent().expect("raw/")).expect("mkdir");
        let mut text = format!("# placeholders: power_w\n{HEADER}\n");
        for k in 1..=rows {
            let row = SoakRow { t_seconds: f64::from(k) * 10.0, clock_mhz: 2400.0, score, ..SoakRow::default() };
            text.push_str(&row.csv_line());
            text.push('\n');
        }
        std::fs::write(&path, text).expect("write");
        path
    }

    // SPEC T5, N6: a soak read back becomes a MEASURED row with its six
    // numbers, its raw file (hash as read) and the load's conditions.
    #[test]
    fn a_finished_soak_becomes_a_row_with_its_raw_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = write_soak(dir.path(), 60, 100.0);
        assert!(path.ends_with("raw/soak-1.csv"));
        let protocol = SoakProtocol::default();
        let finished = finish(&path, protocol, &outcome()).expect("readable");
        let mut nb = Notebook::new("t", Utc::now());
        assert_eq!(add_row(&mut nb, dir.path(), &finished, Utc::now()), Added::Soak(1));
        let soak = &nb.soaks()[0];
        assert_eq!(soak.numbers.peak, 100.0);
        let raw = soak.raw_file.as_ref().expect("linked");
        assert_eq!(raw.path.to_string(), "raw/soak-1.csv");
        assert_eq!(raw.sha256, sha256_hex(&std::fs::read(&path).expect("read")));
        let field = |name: &str| soak.conditions.iter().find(|c| c.field == name).map(|c| c.value.clone());
        assert_eq!(field("workers").as_deref(), Some("2"));
        assert_eq!(field("placeholders").as_deref(), Some("power_w"));
    }

    // SPEC T5: a soak whose six numbers cannot be had (here the score never
    // left zero) is no row; a note names the file that keeps its samples.
    #[test]
    fn a_soak_that_cannot_be_analysed_becomes_a_note() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = write_soak(dir.path(), 3, 0.0);
        let finished = finish(&path, SoakProtocol::default(), &outcome()).expect("readable");
        let mut nb = Notebook::new("t", Utc::now());
        assert!(matches!(add_row(&mut nb, dir.path(), &finished, Utc::now()), Added::Note(_)));
        assert!(nb.soaks().is_empty());
        assert!(nb.notes()[0].text.contains("soak-1.csv"));
    }

    // SPEC T1, T11: the windows must fit the duration — the opening at most
    // a tenth, the tail at most half, a sample in the opening window.
    #[test]
    fn a_protocol_must_fit_its_windows() {
        assert_eq!(SoakProtocol::default().check(), Ok(()));
        let with = |duration_s, opening_window_s, tail_window_s, interval_s| SoakProtocol {
            duration_s,
            opening_window_s,
            tail_window_s,
            interval_s,
            ..SoakProtocol::default()
        };
        let four = with(4.0, 30.0, 300.0, 1.0).check().expect_err("4 s with 30 s and 300 s windows").to_string();
        assert!(four.contains("opening window (30 s) is more than a tenth of the duration (4 s)"), "{four}");
        let tail = with(300.0, 30.0, 300.0, 10.0).check().expect_err("a 300 s tail of 300 s").to_string();
        assert!(tail.contains("make it at most 150 s, or the duration at least 600 s"), "{tail}");
        let sparse = with(600.0, 30.0, 300.0, 40.0).check().expect_err("no sample in the opening window").to_string();
        assert!(sparse.contains("no sample would measure P"), "{sparse}");
        assert!(with(f64::NAN, 30.0, 300.0, 10.0).check().is_err());
        let mut nb = vernier_model::notebook::Notebook::new("t", chrono::Utc::now());
        let text = vernier_model::notebook::PredictionText {
            experiment: "e".into(),
            predict: "p".into(),
            why: "w".into(),
            figure: vernier_model::notebook::Committed::parse("onset none, S/P 1 ± 0.1").ok(),
        };
        assert!(nb.add_soak_prediction(text, with(4.0, 30.0, 300.0, 1.0), chrono::Utc::now()).is_err());
        assert!(nb.predictions().is_empty());
    }

    // SPEC T1: the progress total is one sample per whole interval.
    #[test]
    fn a_protocol_takes_one_sample_per_whole_interval() {
        let p = |duration_s, interval_s| SoakProtocol { duration_s, interval_s, ..SoakProtocol::default() };
        assert_eq!(p(600.0, 10.0).samples(), 60);
        assert_eq!(p(25.0, 10.0).samples(), 2);
        assert_eq!(p(5.0, 10.0).samples(), 0);
        assert_eq!(p(10.0, 0.0).samples(), 0);
    }
}
