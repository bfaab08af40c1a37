//! The thermal soak (SPEC T): its file, its samplers, its runner and the
//! analysis of its six numbers.

pub mod analysis;
pub mod file;
pub mod run;
pub mod sensors;

pub use analysis::{Analysis, AnalysisError, CourseView, SoakComparison, Thresholds, analyze, course_view};
pub use file::{SoakData, SoakFileError};
