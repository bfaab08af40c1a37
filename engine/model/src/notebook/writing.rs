//! What only the student can write (SPEC D2): answers to the documents'
//! prompts and the citations table. Kept in the notebook so the window, the
//! CLI and every export see the same text, and a re-export never loses it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Document, NotebookError, Tag};

/// One cited figure (A12: it needs a URL and a retrieval date).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Citation {
    /// What the figure is, e.g. "LPDDR5X peak bandwidth, SoC-A".
    pub figure: String,
    /// The value with its unit, e.g. "68.3 GB/s".
    pub value: String,
    /// Where it was read.
    pub url: String,
    /// When it was read, `YYYY-MM-DD`.
    pub retrieved: String,
    /// CITED, or MODELED for a figure from a model.
    pub tag: Tag,
}

/// A deadline for one workload of the placement table (D6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Workload name as the placement dataset spells it.
    pub workload: String,
    /// The deadline, ms.
    pub deadline_ms: f64,
    /// Runs per second, for the duty-cycle energy line.
    pub rate_per_s: Option<f64>,
}

/// The student's own text for the documents.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Writing {
    /// Answers by document name, then by the prompt they answer.
    pub answers: BTreeMap<String, BTreeMap<String, String>>,
    /// The citations table, in the order written.
    pub citations: Vec<Citation>,
    /// Deadlines for the placement table, by workload.
    /// Saved under its first name, so notebooks read the same both ways.
    #[serde(rename = "placement")]
    pub deadlines: Vec<Budget>,
    /// Parts the student marked not part of this submission (SPEC A16), by
    /// document, then by prompt ([`WHOLE_DOCUMENT`] for the whole
    /// document); each keeps its reason, which the document prints.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub not_part: BTreeMap<String, BTreeMap<String, String>>,
    /// The student stated that the report cites no figure: the citations
    /// table says so instead of asking for one.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub no_citations: bool,
}

/// The key of [`Writing::not_part`] that marks a whole document.
pub const WHOLE_DOCUMENT: &str = "*";

/// True for a document that is never left out whole
/// ([`Document::always_part`]).
fn always_part(document: &str) -> bool {
    Document::from_stem(document).is_some_and(Document::always_part)
}

impl Writing {
    /// The answer to `prompt` in `document`, if one is written.
    pub fn answer(&self, document: &str, prompt: &str) -> Option<&str> {
        self.answers.get(document)?.get(prompt).map(String::as_str).filter(|t| !crate::display::is_blank(t))
    }

    /// Sets (or, with empty text, clears) the answer to a prompt.
    pub fn set_answer(&mut self, document: &str, prompt: &str, text: &str) {
        let text = text.trim();
        if crate::display::is_blank(text) {
            if let Some(doc) = self.answers.get_mut(document) {
                doc.remove(prompt);
                if doc.is_empty() {
                    self.answers.remove(document);
                }
            }
        } else {
            self.answers.entry(document.to_owned()).or_default().insert(prompt.to_owned(), text.to_owned());
        }
    }

    /// Why `prompt` of `document` (or, with [`WHOLE_DOCUMENT`], the whole
    /// document) is not part of this submission, if the student said so.
    /// A whole-document mark on the report or ai-usage.txt (possible only by
    /// editing the file by hand) counts for nothing, and neither does a
    /// reason that shows nothing.
    pub fn not_part(&self, document: &str, prompt: &str) -> Option<&str> {
        if prompt == WHOLE_DOCUMENT && always_part(document) {
            return None;
        }
        self.not_part.get(document)?.get(prompt).map(String::as_str).filter(|r| !crate::display::is_blank(r))
    }

    /// Marks `prompt` (or [`WHOLE_DOCUMENT`]) of `document` as not part of
    /// this submission with `reason`, or, with an empty reason, part of it
    /// again. A part left out needs a reason a reader can weigh (A16).
    pub fn set_not_part(&mut self, document: &str, prompt: &str, reason: &str) -> Result<(), NotebookError> {
        let reason = reason.trim();
        let blank = crate::display::is_blank(reason);
        if prompt == WHOLE_DOCUMENT && always_part(document) && !blank {
            return Err(NotebookError::AlwaysPart(document.to_owned()));
        }
        // A part is either written or left out, never both at once.
        if !blank && self.answer(document, prompt).is_some() {
            return Err(NotebookError::AnsweredPrompt(prompt.to_owned()));
        }
        if blank {
            if let Some(doc) = self.not_part.get_mut(document) {
                doc.remove(prompt);
                if doc.is_empty() {
                    self.not_part.remove(document);
                }
            }
        } else {
            self.not_part.entry(document.to_owned()).or_default().insert(prompt.to_owned(), reason.to_owned());
        }
        Ok(())
    }

    /// States that the report cites nothing (true), or takes it back. A
    /// notebook with citations cannot also say it has none.
    pub fn set_no_citations(&mut self, none: bool) -> Result<(), NotebookError> {
        if none && !self.citations.is_empty() {
            return Err(NotebookError::HasCitations(self.citations.len()));
        }
        self.no_citations = none;
        Ok(())
    }

    /// Adds a citation after [`Citation::checked`]. An empty URL or date is
    /// allowed here (the figure may be written before its source is found)
    /// and reported by the audit (A12).
    pub fn add_citation(&mut self, citation: Citation) -> Result<usize, NotebookError> {
        let citation = citation.checked()?;
        self.citations.push(citation);
        // A citation answers "no citations" too.
        self.no_citations = false;
        Ok(self.citations.len())
    }

    /// Sets the D6 deadlines; each must be a positive, finite number.
    pub fn set_deadlines(&mut self, budgets: Vec<Budget>) -> Result<(), NotebookError> {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        if let Some(b) = budgets.iter().find(|b| !positive(b.deadline_ms) || !b.rate_per_s.is_none_or(positive)) {
            return Err(NotebookError::BadBudget(b.workload.clone()));
        }
        self.deadlines = budgets;
        Ok(())
    }

    /// Removes citation `number` (1-based).
    pub fn remove_citation(&mut self, number: usize) -> Result<Citation, NotebookError> {
        if number == 0 || number > self.citations.len() {
            return Err(NotebookError::NoSuchCitation(number));
        }
        Ok(self.citations.remove(number - 1))
    }
}

impl Citation {
    /// The citation trimmed, or why it is refused: figure and value are
    /// required; a URL must be http(s) and a date a real `YYYY-MM-DD`.
    pub fn checked(self) -> Result<Citation, NotebookError> {
        checked(self)
    }
}

fn checked(c: Citation) -> Result<Citation, NotebookError> {
    let trim = |s: String| s.trim().to_owned();
    let c =
        Citation { figure: trim(c.figure), value: trim(c.value), url: trim(c.url), retrieved: trim(c.retrieved), ..c };
    if c.figure.is_empty() {
        return Err(NotebookError::Empty("Figure"));
    }
    if c.value.is_empty() {
        return Err(NotebookError::Empty("Value"));
    }
    if !(c.url.is_empty() || c.url.starts_with("https://") || c.url.starts_with("http://")) {
        return Err(NotebookError::BadCitation(format!("'{}' is not an http(s) URL", c.url)));
    }
    if !c.retrieved.is_empty() && !is_date(&c.retrieved) {
        return Err(NotebookError::BadCitation(format!("'{}' is not a date written YYYY-MM-DD", c.retrieved)));
    }
    Ok(c)
}

/// A calendar date written `YYYY-MM-DD`.
pub fn is_date(text: &str) -> bool {
    text.len() == 10 && chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cite(url: &str, retrieved: &str) -> Citation {
        Citation {
            figure: "peak bandwidth".into(),
            value: "68.3 GB/s".into(),
            url: url.into(),
            retrieved: retrieved.into(),
            tag: Tag::Cited,
        }
    }

    // SPEC D2, A12
    #[test]
    fn citations_are_checked_when_written() {
        let mut w = Writing::default();
        assert_eq!(w.add_citation(cite("https://example.org/a", "2026-11-02")), Ok(1));
        assert_eq!(w.add_citation(cite("", "")), Ok(2));
        assert!(matches!(w.add_citation(cite("file:///etc/passwd", "")), Err(NotebookError::BadCitation(_))));
        assert!(matches!(w.add_citation(cite("https://x", "2026-13-01")), Err(NotebookError::BadCitation(_))));
        assert!(matches!(w.add_citation(cite("https://x", "2026-1-01")), Err(NotebookError::BadCitation(_))));
        assert_eq!(w.remove_citation(2).map(|c| c.url), Ok(String::new()));
        assert_eq!(w.remove_citation(2), Err(NotebookError::NoSuchCitation(2)));
    }

    // SPEC D2
    #[test]
    fn an_empty_answer_clears_the_prompt() {
        let mut w = Writing::default();
        w.set_answer("report.docx", "the question", "  Does the memory wall show at 8 MiB?  ");
        assert_eq!(w.answer("report.docx", "the question"), Some("Does the memory wall show at 8 MiB?"));
        w.set_answer("report.docx", "the question", "  ");
        assert_eq!(w.answer("report.docx", "the question"), None);
        assert!(w.answers.is_empty());
    }

    // SPEC A16: an answer or a reason that shows nothing (a zero width
    // space) is no answer; the report is never left out whole, even by a
    // hand-edited file.
    #[test]
    fn invisible_text_answers_nothing() {
        let mut w = Writing::default();
        w.set_answer("report.docx", "the question", "\u{200b}\u{2060} ");
        assert_eq!(w.answer("report.docx", "the question"), None);
        assert_eq!(w.set_not_part("report.docx", "the question", "\u{200b}"), Ok(()));
        assert_eq!(w.not_part("report.docx", "the question"), None);
        w.not_part.entry("report.docx".into()).or_default().insert(WHOLE_DOCUMENT.into(), "edited in".into());
        assert_eq!(w.not_part("report.docx", WHOLE_DOCUMENT), None);
    }
}
