//! The pre-submission audit (SPEC A1–A21): every check with its ID, a plain
//! sentence, and the row or document line it points at. It reads the
//! notebook, its raw files and the exported documents; it never writes.

mod documents;
mod numbers;
mod predictions;
mod rows;

use std::path::Path;

use serde::Serialize;

use crate::notebook::{Document, Notebook};

vernier_model::closed_enum! {
    /// One of the checks.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
    pub enum Check {
        /// Median, dispersion, n split into warm-up + timed.
        A1,
        /// Machine, build flags, power source, thermal condition.
        A2,
        /// Raw file named, present, hash matching.
        A3,
        /// Predictions before results, never changed.
        A4,
        /// The six soak numbers.
        A5,
        /// Discarded runs named under Notes with a reason.
        A6,
        /// Every number in the report tagged.
        A7,
        /// Medians rounded per S6.
        A8,
        /// Claimed differences pass S7.
        A9,
        /// Synthetic data labelled.
        A10,
        /// Exactly the six file names.
        A11,
        /// Citations with URL and retrieval date.
        A12,
        /// The flattering choice named.
        A13,
        /// AI usage stated.
        A14,
        /// The Four Questions answered.
        A15,
        /// No prompt left unwritten, unless marked not part with a reason.
        A16,
        /// Export never overwrites a document edited since it was written.
        A17,
        /// -O0 is a diagnostic, never a result.
        A18,
        /// Every locked prediction answered or left open with a reason.
        A19,
        /// The documents keep the course's forms.
        A21,
    }
}

impl Check {
    /// What the check asks, in one sentence.
    pub fn rule(self) -> &'static str {
        match self {
            Check::A1 => "Every run row has a median, a dispersion, and n split into warm-up + timed.",
            Check::A2 => "Every run row states machine, build flags, power source and thermal condition.",
            Check::A3 => "Every run row names its raw file, the file exists, and its hash matches.",
            Check::A4 => "Every prediction was recorded before its results and never changed afterwards.",
            Check::A5 => "Every soak reports all six numbers (P, t_onset, t_stable, S, S/P, tail IQR).",
            Check::A6 => "Every discarded run is named under Notes and anomalies with a reason.",
            Check::A7 => "Every number in the report is tagged MEASURED, DERIVED, CITED or MODELED.",
            Check::A8 => "Every median is rounded to the place its dispersion supports.",
            Check::A9 => "Every claimed difference passes the IQR test, or says it cannot be resolved.",
            Check::A10 => "Synthetic data is labelled synthetic wherever it is used.",
            Check::A11 => "The export folder holds exactly the six required documents.",
            Check::A12 => "Every citation has a URL and a retrieval date.",
            Check::A13 => "The report names the flattering choice.",
            Check::A14 => "ai-usage.txt names the models, the uses and an override, or says none were used.",
            Check::A15 => "The report answers Performance, Energy, Thermals and Placement under their own headings.",
            Check::A16 => {
                "No prompt is left unwritten in a document, unless it is marked not part of the submission with a reason."
            }
            Check::A17 => "Export never overwrites a document edited after Vernier wrote it.",
            Check::A19 => {
                "Every locked prediction is answered by rows or left open with a reason, and a soak prediction \
                 commits its two numbers."
            }
            Check::A21 => {
                "The documents keep their forms: the flattering-choice sentence filled, Confidence one of high, \
                 medium or low, the conclusion's metric before its finding, no bare result number in prose, \
                 Confirmed? confirmed or inferred, bandwidth shown from MT/s, and the threat model's counts."
            }
            Check::A18 => {
                "No kept row is built at -O0 or without a stated optimisation level: -O0 is a diagnostic, never a result."
            }
        }
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

/// Where a finding points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Place {
    /// The notebook as a whole.
    Notebook,
    /// A prediction.
    Prediction {
        /// Its number.
        number: u32,
    },
    /// A run.
    Run {
        /// Its number.
        number: u32,
    },
    /// A soak.
    Soak {
        /// Its number.
        number: u32,
    },
    /// A citation of the notebook's table.
    Citation {
        /// 1-based.
        number: usize,
    },
    /// A line of an exported document: a paragraph or a table row.
    Document {
        /// The document, saved as its file name.
        #[serde(rename = "file", serialize_with = "file_name")]
        document: Document,
        /// 1-based paragraph or table-row number, in reading order.
        line: usize,
        /// The section heading it sits under.
        section: String,
    },
    /// The export folder.
    Exports,
}

/// A document as `vernier audit --json` has always named it: its file name.
fn file_name<S: serde::Serializer>(document: &Document, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(document.stem())
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Notebook => f.write_str("notebook"),
            Place::Prediction { number } => write!(f, "prediction P{number}"),
            Place::Run { number } => write!(f, "run {number}"),
            Place::Soak { number } => write!(f, "soak S{number}"),
            Place::Citation { number } => write!(f, "citation {number}"),
            Place::Document { document, line, section } if section.is_empty() => write!(f, "{document} line {line}"),
            Place::Document { document, line, section } => write!(f, "{document} line {line} ({section})"),
            Place::Exports => f.write_str("exports/"),
        }
    }
}

/// One thing the audit found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The check.
    pub check: Check,
    /// Where.
    pub place: Place,
    /// What is wrong, in a sentence.
    pub message: String,
}

/// The audit's result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Every finding, ordered by check.
    pub findings: Vec<Finding>,
    /// True when the documents checked were the files in `exports/`; false
    /// when there were none and the audit checked what an export would write.
    pub documents_exported: bool,
}

impl Report {
    /// No findings.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Audits the notebook in `dir` (already loaded as `nb`) and its exports in
/// `dir/exports`.
pub fn audit(dir: &Path, nb: &Notebook) -> Report {
    audit_exports(dir, nb, &dir.join(crate::notebook::store::EXPORTS_DIR))
}

/// [`audit`] with the documents exported somewhere else (`vernier export --out`).
pub fn audit_exports(dir: &Path, nb: &Notebook, exports: &Path) -> Report {
    audit_read(dir, nb, None, Some(exports))
}

/// [`audit`] of a notebook just read with
/// [`load_digested`](crate::notebook::store::load_digested), `read` being
/// that digest: an export that recorded the same digest exported this very
/// notebook, which is then not serialised again to tell (A11). The same
/// findings as [`audit_exports`]; `exports` is `dir/exports` when `None`.
pub fn audit_read(dir: &Path, nb: &Notebook, read: Option<&str>, exports: Option<&Path>) -> Report {
    let exports = exports.map_or_else(|| dir.join(crate::notebook::store::EXPORTS_DIR), Path::to_path_buf);
    // The rows' checks read every raw file; the documents are read on
    // this thread meanwhile. The findings keep their order: rows,
    // predictions, documents, then by check.
    let (mut findings, others, documents_exported) = std::thread::scope(|scope| {
        let rows =
            std::thread::Builder::new().name("vernier-audit".into()).spawn_scoped(scope, || rows::check(dir, nb));
        let mut others = Vec::new();
        predictions::check(nb, &mut others);
        let documents_exported = documents::check(dir, nb, read, &exports, &mut others);
        let findings = match rows {
            Ok(rows) => crate::shared_work::joined(rows),
            // No thread to be had: the rows are checked here, after.
            Err(_) => rows::check(dir, nb),
        };
        (findings, others, documents_exported)
    });
    findings.extend(others);
    findings.sort_by_key(|f| f.check);
    Report { findings, documents_exported }
}
