//! The six submission documents (SPEC D1) as one type: a seventh document
//! is in [`Document::ALL`] by construction, and a `match` that forgets it
//! is a compile error rather than a string that matches nothing. The notebook keys the student's writing by each
//! document's file name ([`Document::stem`]), as notebook.ron always has.

crate::closed_enum! {
    /// One of the six documents a submission holds, in the course's order.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
    pub enum Document {
        /// report.docx: the lab report.
        #[default]
        Report,
        /// measurements.xlsx: the log itself, one sheet per section.
        Measurements,
        /// soc-architecture-review.docx.
        SocReview,
        /// placement-decision.docx (D6).
        PlacementDecision,
        /// threat-model-report.docx.
        ThreatModel,
        /// ai-usage.txt (A14).
        AiUsage,
    }
}

impl Document {
    /// Its file name in the export folder, and its key in the notebook's
    /// writing.
    pub fn stem(self) -> &'static str {
        match self {
            Document::Report => "report.docx",
            Document::Measurements => "measurements.xlsx",
            Document::SocReview => "soc-architecture-review.docx",
            Document::PlacementDecision => "placement-decision.docx",
            Document::ThreatModel => "threat-model-report.docx",
            Document::AiUsage => "ai-usage.txt",
        }
    }

    /// The document whose file name is `stem`.
    pub fn from_stem(stem: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.stem() == stem)
    }

    /// Never left out whole: the report is the submission's core, and
    /// ai-usage.txt has its own way to say "none" (A14).
    pub fn always_part(self) -> bool {
        matches!(self, Document::Report | Document::AiUsage)
    }
}

impl std::fmt::Display for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.stem())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC D1: six documents, each found again by its file name.
    #[test]
    fn every_document_is_found_by_its_stem() {
        for document in Document::ALL {
            assert_eq!(Document::from_stem(document.stem()), Some(document));
        }
        assert_eq!(Document::from_stem("report.doc"), None);
        let always: Vec<_> = Document::ALL.into_iter().filter(|d| d.always_part()).collect();
        assert_eq!(always, [Document::Report, Document::AiUsage]);
    }
}
