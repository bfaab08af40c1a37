//! What a row's time is the time of — where its clock started and stopped
//! (SPEC S16): the whole process, one call of a built-in kernel, a figure
//! the program printed, or what another instrument states it timed. Two
//! rows compare as like with like only when their boundaries are the same:
//! a driver's in-process multiply is not a process's wall time.

use serde::{Deserialize, Serialize};

/// The Conditions column's name for the boundary, and its words.
pub const BRIEF_FIELD: &str = "timed";
const PROCESS_WALL: &str = "whole process";
const KERNEL_CALL: &str = "one kernel call";
const OWN_FIGURE: &str = "the program's figure";
const NOT_STATED: &str = "not stated";
/// What an instrument that was not told what it timed is said to time, in
/// the brief: as it states (the instrument follows in brackets).
const AS_IT_STATES: &str = "as it states";

/// What a row's time is the time of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Boundary {
    /// Vernier's `bench` of a command: each process's wall time, from before
    /// its spawn until it had exited.
    ProcessWall,
    /// One call of one of Vernier's built-in kernels, inside Vernier's own
    /// process, wall time.
    KernelCall,
    /// A figure the program printed (SPEC E17), read as `metric` says, in
    /// the row's unit.
    OwnFigure {
        /// How the figure was read.
        metric: String,
    },
    /// Another instrument's numbers, and what it times as stated.
    Instrument {
        /// The instrument, as the row names it.
        instrument: String,
        /// What it times: as given (`--boundary`), else "as it states".
        stated: String,
    },
    /// Numbers typed by hand: nothing says what they time.
    NotStated,
}

impl Boundary {
    /// The boundary in words, for the long form and the report's Method.
    pub fn describe(&self) -> String {
        match self {
            Boundary::ProcessWall => {
                "each run's wall time as a whole process, from its start to its exit (Vernier's harness)".to_owned()
            }
            Boundary::KernelCall => "one call of the built-in kernel inside Vernier, wall time".to_owned(),
            Boundary::OwnFigure { metric } => format!("a figure the program printed ({metric})"),
            Boundary::Instrument { instrument, stated } => format!("{stated} ({instrument})"),
            Boundary::NotStated => "not stated (numbers typed by hand)".to_owned(),
        }
    }

    /// The boundary in a few words, for the Conditions column beside the
    /// other conditions: `timed: whole process`.
    pub fn brief(&self) -> String {
        let what = match self {
            Boundary::ProcessWall => PROCESS_WALL.to_owned(),
            Boundary::KernelCall => KERNEL_CALL.to_owned(),
            Boundary::OwnFigure { metric } => format!("{OWN_FIGURE} ({metric})"),
            // Named once: "as it states (driver.cpp …)", not the name twice.
            Boundary::Instrument { instrument, stated } if *stated == as_states(instrument) => {
                format!("{AS_IT_STATES} ({instrument})")
            }
            Boundary::Instrument { instrument, stated } => format!("{stated} ({instrument})"),
            Boundary::NotStated => NOT_STATED.to_owned(),
        };
        format!("{BRIEF_FIELD}: {what}")
    }

    /// The boundary a Conditions cell states as its `timed` condition's
    /// value (what [`Boundary::brief`] wrote), for a row read from a
    /// workbook; `None` for a value it cannot have written.
    pub fn from_brief(value: &str) -> Option<Boundary> {
        let value = value.trim();
        Some(match value {
            PROCESS_WALL => Boundary::ProcessWall,
            KERNEL_CALL => Boundary::KernelCall,
            NOT_STATED => Boundary::NotStated,
            _ => {
                let (head, tail) = value.strip_suffix(')')?.rsplit_once(" (")?;
                if head == OWN_FIGURE {
                    Boundary::OwnFigure { metric: tail.to_owned() }
                } else if head == AS_IT_STATES {
                    Boundary::Instrument { instrument: tail.to_owned(), stated: as_states(tail) }
                } else {
                    Boundary::Instrument { instrument: tail.to_owned(), stated: head.to_owned() }
                }
            }
        })
    }

    /// True when two rows' times, in `units`, time the same thing: the same
    /// kind and, for a figure or an instrument, the same metric or
    /// instrument, what it is stated to time (in the same words, case and
    /// spacing aside: other words may be another boundary) and the same
    /// unit. Numbers that state nothing about what they time are like
    /// nothing, not even each other.
    pub fn same_as(&self, other: &Boundary, units: [&str; 2]) -> bool {
        let words = |s: &str| s.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>();
        match (self, other) {
            (Boundary::OwnFigure { metric: a }, Boundary::OwnFigure { metric: b }) => a == b && units[0] == units[1],
            (
                Boundary::Instrument { instrument: a, stated: stated_a },
                Boundary::Instrument { instrument: b, stated: stated_b },
            ) => a == b && words(stated_a) == words(stated_b) && units[0] == units[1],
            (Boundary::NotStated, _) | (_, Boundary::NotStated) => false,
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        }
    }
}

/// What an instrument not told what it timed is recorded to time.
pub fn as_states(instrument: &str) -> String {
    format!("as {instrument} states")
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC S16 (issue 33): like with like is the same kind, and for a
    // figure or an import the same metric or instrument and unit.
    #[test]
    fn the_same_boundary_is_the_same_kind_and_source() {
        let driver = |stated: &str| Boundary::Instrument { instrument: "course driver".into(), stated: stated.into() };
        assert!(Boundary::ProcessWall.same_as(&Boundary::ProcessWall, ["s", "ms"]));
        assert!(!Boundary::ProcessWall.same_as(&driver("multiply only"), ["s", "s"]));
        // SPEC S16 (issue 48 item 8): one instrument stated to time two
        // things is two boundaries; typed numbers that state nothing are
        // not one measure with anything.
        assert!(driver("multiply only").same_as(&driver("Multiply  only"), ["ms", "ms"]));
        assert!(!driver("multiply only").same_as(&driver("the whole program"), ["ms", "ms"]));
        assert!(!Boundary::NotStated.same_as(&Boundary::NotStated, ["ms", "ms"]));
        assert!(!driver("multiply only").same_as(&driver("multiply only"), ["ms", "s"]));
        for b in [
            Boundary::ProcessWall,
            Boundary::KernelCall,
            Boundary::NotStated,
            Boundary::OwnFigure { metric: "ns/access".into() },
            driver("a, b"),
            driver(&as_states("course driver")),
        ] {
            let brief = b.brief();
            let value = brief.strip_prefix("timed: ").expect("the field");
            assert_eq!(Boundary::from_brief(value), Some(b), "{brief}");
        }
        assert_eq!(Boundary::from_brief("a sundial"), None);
        assert_eq!(driver(&as_states("course driver")).brief(), "timed: as it states (course driver)");
        let figure = |m: &str| Boundary::OwnFigure { metric: m.into() };
        assert!(figure("ns/access").same_as(&figure("ns/access"), ["ns/access", "ns/access"]));
        assert!(!figure("ns/access").same_as(&figure("GB/s"), ["ns/access", "ns/access"]));
        assert!(!Boundary::KernelCall.same_as(&Boundary::ProcessWall, ["s", "s"]));
        assert_eq!(driver("multiply only, steady_clock").describe(), "multiply only, steady_clock (course driver)");
    }

    // SPEC S16 (issue 33): a row recorded before rows kept their boundary
    // reads as its kind always timed: a command's process, a kernel's
    // call, an import as its instrument states, typed numbers not stated;
    // a kept boundary is read as kept.
    #[test]
    fn older_rows_read_as_their_kind_always_timed() {
        use crate::notebook::{Condition, ConditionName, Measurement, NotebookPath, RawFile, Tag, WarmupPolicy};
        use crate::stats::Summary;
        let row = |command: &[&str], conditions: Vec<Condition>, raw: bool, typed: bool| Measurement {
            what: "w".into(),
            command: command.iter().map(|w| (*w).to_owned()).collect(),
            warmup: WarmupPolicy::Count(0),
            warmup_trials: 0,
            summary: if typed { Summary::typed(3, 1.0, 0.1, 0.9, 1.1) } else { Summary::of(&[1.0]).expect("one") },
            unit: "s".into(),
            ns_per_unit: 1e9,
            conditions,
            raw_file: raw.then(|| RawFile {
                path: NotebookPath::new("raw/run-1.csv").expect("path"),
                sha256: String::new(),
                arm: "A".into(),
                imported: None,
            }),
            tag: Tag::Measured,
            synthetic: false,
            extends: None,
            figure: None,
            work: None,
            boundary: None,
            recipe: None,
            tail: None,
            noise_floor: None,
        };
        assert_eq!(row(&["./mm", "512"], Vec::new(), true, false).timing_boundary(), Boundary::ProcessWall);
        let kernel = ["vernier", "bench", "--kernel", "seq"];
        assert_eq!(row(&kernel, Vec::new(), true, false).timing_boundary(), Boundary::KernelCall);
        let imported = vec![
            Condition::new(ConditionName::Source, "d.csv (imported CSV)"),
            Condition::new(ConditionName::Instrument, "the driver"),
        ];
        assert_eq!(
            row(&[], imported, true, false).timing_boundary(),
            Boundary::Instrument { instrument: "the driver".into(), stated: "as the driver states".into() }
        );
        assert_eq!(row(&["./mm"], Vec::new(), false, true).timing_boundary(), Boundary::NotStated);
        let kept = Measurement { boundary: Some(Boundary::KernelCall), ..row(&["./mm"], Vec::new(), true, false) };
        assert_eq!(kept.timing_boundary(), Boundary::KernelCall);
    }
}
