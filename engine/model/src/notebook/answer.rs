//! The link from a prediction to the rows that answer it (SPEC N14, A19).
//!
//! A link is its own record with its own time, kept beside the Predictions
//! section rather than in it: answering never touches a prediction's seal
//! (N4), so the chain a student locked stays exactly as it was.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// What answers a prediction: a row, or the student's reason for leaving it
/// open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AnsweredBy {
    /// A Runs row (a run or one point of a sweep).
    Run(u32),
    /// An interleaved comparison `C{n}`.
    Comparison(u32),
    /// A soak `S{n}`.
    Soak(u32),
    /// Left open, with the reason ("ran out of time").
    Open(String),
}

impl std::fmt::Display for AnsweredBy {
    /// `run 3`, `comparison C2`, `soak S1`, `left open: ran out of time`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnsweredBy::Run(n) => write!(f, "run {n}"),
            AnsweredBy::Comparison(n) => write!(f, "comparison C{n}"),
            AnsweredBy::Soak(n) => write!(f, "soak S{n}"),
            AnsweredBy::Open(reason) => write!(f, "left open: {}", crate::display::inert_line(reason.clone())),
        }
    }
}

/// One link, time-stamped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// The prediction answered (`P{prediction}`), as the student named it;
    /// the figure scored is the one in force when the row was measured.
    pub prediction: u32,
    /// The row, or the reason it stays open.
    pub by: AnsweredBy,
    /// When the link was made.
    #[serde(with = "super::time")]
    pub at: DateTime<Utc>,
}

/// Why a row cannot answer a prediction; nothing is recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("P{prediction} cannot be answered by {by}: {reason}")]
pub struct AnswerRefused {
    /// The prediction.
    pub prediction: u32,
    /// What was offered as its answer.
    pub by: String,
    /// Why not, and what would do.
    pub reason: String,
}
