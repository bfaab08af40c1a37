//! A parameter scan kept as one record (SPEC E16): the Runs rows it
//! produced, one per point, with each point's values, the parameters and the
//! command they filled in — a first-class group, as a comparison is.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{MAX_POINTS, MAX_VALUES, Param, point_label};
use super::{RunColumn, Tag};
use crate::display::inert_line;

/// A sweep, shown as `W{number}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// `#`, shown as `W{number}`.
    pub number: u32,
    /// What the sweep is about (`--what`), or its command.
    pub what: String,
    /// The command with `{NAME}` where each value went.
    pub template: Vec<String>,
    /// The parameters: the first is the x axis, the others the series.
    pub params: Vec<Param>,
    /// The Runs rows, one per point.
    pub runs: Vec<u32>,
    /// Each row's point: its value of every parameter, in `params` order.
    pub points: Vec<Vec<String>>,
    /// When it was recorded (the runs' time).
    #[serde(with = "super::time")]
    pub recorded_at: DateTime<Utc>,
}

/// What a sweep is made of, before the notebook numbers it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewSweep {
    /// See [`Sweep::what`].
    pub what: String,
    /// See [`Sweep::template`].
    pub template: Vec<String>,
    /// See [`Sweep::params`].
    pub params: Vec<Param>,
    /// See [`Sweep::points`].
    pub points: Vec<Vec<String>>,
}

/// One point of a sweep as a chart or a table reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPoint<'a> {
    /// The run.
    pub run: &'a super::Run,
    /// Its x value as a number (the first parameter), when it is one.
    pub x: Option<f64>,
    /// Its x value as shown (`16 KiB`).
    pub x_text: String,
    /// Its series: the other parameters' values as shown, or empty.
    pub series: String,
}

/// A sweep the harness could not have recorded (SPEC E16): a file edited
/// by hand, refused on load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("sweep {sweep} {why}")]
pub struct SweepError {
    /// The sweep's label (`W3`).
    pub sweep: String,
    /// What it breaks.
    pub why: String,
}

impl Sweep {
    /// `W3`.
    pub fn label(&self) -> String {
        format!("W{}", self.number)
    }

    /// What the harness could have recorded (SPEC E16): at least one
    /// parameter and one run, each run once with one value of every
    /// parameter, within the scan's limits. A file that breaks this was
    /// edited by hand and is refused on load, naming the sweep.
    pub fn check(&self) -> Result<(), SweepError> {
        let bad = |why: &str| Err(SweepError { sweep: self.label(), why: why.to_owned() });
        if self.params.is_empty() || self.runs.is_empty() {
            return bad("has no parameter or no run");
        }
        if self.params.iter().any(|p| p.values.is_empty() || p.values.len() > MAX_VALUES) {
            return bad(&format!("has a parameter with no value or more than {MAX_VALUES}"));
        }
        if self.runs.len() > MAX_POINTS {
            return bad(&format!("has more than {MAX_POINTS} points"));
        }
        if self.points.len() != self.runs.len() || self.points.iter().any(|p| p.len() != self.params.len()) {
            return bad("does not give every run one value of each parameter");
        }
        if self.runs.iter().enumerate().any(|(i, r)| self.runs[..i].contains(r)) {
            return bad("names a run twice");
        }
        Ok(())
    }

    /// The x axis: the first parameter.
    pub fn x_param(&self) -> Option<&Param> {
        self.params.first()
    }

    /// `runs 3–9` or `runs 3, 5, 8`.
    pub fn runs_text(&self) -> String {
        let rows: Vec<super::RowRef> = self.runs.iter().map(|&n| super::RowRef::Run(n)).collect();
        super::row_list(&rows)
    }

    /// The parameters in words: `SIZE over 16 KiB … 64 MiB (7 values), MODE over seq, rand`.
    pub fn params_text(&self) -> String {
        self.params
            .iter()
            .map(|p| match (p.values.first(), p.values.last()) {
                (Some(a), Some(b)) if p.values.len() > 3 => {
                    format!("{} over {} … {} ({} values)", p.name, p.show(a), p.show(b), p.values.len())
                }
                _ => format!("{} over {}", p.name, p.values.iter().map(|v| p.show(v)).collect::<Vec<_>>().join(", ")),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The sweep's line in the Runs table, under its last row, cell by
    /// column: what it is about, its command, its points and parameters.
    /// Inert.
    pub fn cell(&self, column: RunColumn) -> String {
        inert_line(match column {
            RunColumn::Number => format!("{} ({})", self.label(), self.runs_text()),
            RunColumn::What => format!("sweep: {}", self.what),
            RunColumn::Command => crate::display::quote_argv(&self.template),
            RunColumn::N => format!("{} points", self.runs.len()),
            RunColumn::Conditions => {
                format!("{}; one trial of each point per round, order rotated", self.params_text())
            }
            RunColumn::Tag => Tag::Measured.to_string(),
            RunColumn::Median | RunColumn::Dispersion | RunColumn::MinMax | RunColumn::RawFile => String::new(),
        })
    }

    /// Run `number`'s point in words: `SIZE=16 KiB, MODE=seq`.
    pub fn point_text(&self, number: u32) -> Option<String> {
        let point = self.runs.iter().position(|&r| r == number).and_then(|i| self.points.get(i))?;
        Some(point_label(&self.params, point))
    }

    /// The sweep as one line beside its rows: label, runs, parameters.
    pub fn line(&self) -> String {
        inert_line(format!("{}: {} · {} · {}", self.label(), self.what, self.runs_text(), self.params_text()))
    }

    /// The sweep's rows that `notebook` still has, with their x and series.
    pub fn points<'a>(&self, notebook: &'a super::Notebook) -> Vec<SweepPoint<'a>> {
        self.runs
            .iter()
            .zip(&self.points)
            .filter_map(|(&number, point)| {
                let run = notebook.run(number)?;
                let x_param = self.x_param()?;
                let x_value = point.first()?;
                let series = point_label(self.params.get(1..)?, point.get(1..)?);
                Some(SweepPoint {
                    run,
                    x: x_value.parse::<f64>().ok().filter(|x| x.is_finite()),
                    x_text: x_param.show(x_value),
                    series,
                })
            })
            .collect()
    }
}
