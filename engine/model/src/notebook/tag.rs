//! Provenance tags (SPEC N3).

use serde::{Deserialize, Serialize};

/// Where a figure comes from; every figure carries exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Tag {
    /// Produced by Vernier's engine (or imported from a measuring tool).
    Measured,
    /// Computed from other figures.
    Derived,
    /// Taken from a source, with its URL and retrieval date.
    Cited,
    /// From a model or a shipped synthetic dataset.
    Modeled,
}

impl Tag {
    /// Every tag, in the order documents count them.
    pub const ALL: [Tag; 4] = [Tag::Measured, Tag::Derived, Tag::Cited, Tag::Modeled];

    /// The tag as written in the log: `MEASURED`, `DERIVED`, `CITED`, `MODELED`.
    pub fn as_str(self) -> &'static str {
        match self {
            Tag::Measured => "MEASURED",
            Tag::Derived => "DERIVED",
            Tag::Cited => "CITED",
            Tag::Modeled => "MODELED",
        }
    }
}

impl std::fmt::Display for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
