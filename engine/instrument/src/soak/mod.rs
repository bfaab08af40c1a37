//! The thermal soak (SPEC T): its file, its samplers, its runner and the
//! analysis of its six numbers.

pub mod analysis;
pub mod file;
pub mod likeness;
pub mod load;
pub mod record;
pub mod sensors;

/// Unit of the score: chunks of calibrated work completed per second.
pub const SCORE_UNIT: &str = "chunks/s";

pub use analysis::{Analysis, AnalysisError, CourseView, SoakComparison, Thresholds, analyze, course_view};
pub use file::{SoakData, SoakFileError};
