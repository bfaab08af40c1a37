//! How a row read the program's own figure (SPEC E17), as notebook.ron
//! keeps it: where the number is in the output, its unit, and from how
//! many processes. Reading it from a live program is the instrument's
//! (`vernier_instrument::harness::metric`).

use serde::{Deserialize, Serialize};

/// Where the figure is in the output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// A regular expression whose one capture group is the number.
    Regex(String),
    /// A key of the JSON the program prints (`a.b` reaches into objects);
    /// its value is a number, or an array of numbers.
    JsonKey(String),
}

/// How to read the figure, as the row records it (so it can be rerun).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSpec {
    /// Where the figure is.
    pub source: Source,
    /// Its unit as the program states it (`ns/access`); a unit that is not
    /// a time is never rescaled (SPEC S12).
    pub unit: String,
    /// Every figure a process prints is a trial (one per internal trial);
    /// otherwise a process prints exactly one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub each: bool,
}

impl MetricSpec {
    /// What the row's instrument is, in words.
    pub fn describe(&self) -> String {
        let source = match &self.source {
            // In backticks, as code is written in a document: its digits
            // are no results (A7).
            Source::Regex(r) => format!("regular expression `{}`", crate::display::inert(r)),
            Source::JsonKey(k) => format!("JSON key `{}`", crate::display::inert(k)),
        };
        let each = if self.each { "every figure a process prints a trial" } else { "one figure per process" };
        format!(
            "the program's own timer (its figure in {}, read from its output by the {source}, {each}; \
             each process's wall time kept beside it in the raw file)",
            crate::display::inert(&self.unit)
        )
    }
}

/// What a row measured with the program's own figure keeps (SPEC E17):
/// how the figure was read, and from how many processes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnFigure {
    /// How it was read.
    pub spec: MetricSpec,
    /// Timed processes whose figures are the row's trials (with
    /// [`MetricSpec::each`], several figures each).
    pub processes: u32,
    /// Figures each of them printed, when every one printed as many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal: Option<u32>,
}

impl OwnFigure {
    /// The timed trials' count in words: `5 internal × 3 runs`, or
    /// `14 figures from 3 runs` when the runs printed different counts.
    pub fn internal_text(&self, n: usize) -> Option<String> {
        let runs = self.processes;
        if !self.spec.each || runs == 0 {
            return None;
        }
        Some(match self.internal {
            Some(k) => format!("{k} internal × {runs} runs"),
            None => format!("{n} figures from {runs} runs"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E17: "5 internal × 3 runs" only when every run printed 5.
    #[test]
    fn internal_trials_are_counted_as_printed() {
        let spec = MetricSpec { source: Source::Regex("(x)".into()), unit: "ns".into(), each: true };
        let even = OwnFigure { spec: spec.clone(), processes: 3, internal: Some(5) };
        assert_eq!(even.internal_text(15).as_deref(), Some("5 internal × 3 runs"));
        let uneven = OwnFigure { spec: spec.clone(), processes: 3, internal: None };
        assert_eq!(uneven.internal_text(9).as_deref(), Some("9 figures from 3 runs"));
        let one = OwnFigure { spec: MetricSpec { each: false, ..spec }, processes: 3, internal: Some(1) };
        assert_eq!(one.internal_text(3), None);
    }
}
