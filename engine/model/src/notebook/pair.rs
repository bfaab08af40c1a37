//! An interleaved A/B comparison kept as one record (SPEC S7, S11, E5): the
//! two Runs rows it produced, the arms' labels, the verdict with its
//! reasoning, the paired ratios and the order effect, all as computed when
//! the comparison was measured — a face shows them, never recomputes them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Notebook, Run, RunColumn, Tag};
use crate::display::{full_stop, inert_line};
use crate::stats::{Comparison, Evidence, Facts, OrderCheck, Summary};

/// A comparison row, shown as `C{number}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pair {
    /// `#`, shown as `C{number}`.
    pub number: u32,
    /// What the comparison is about (`--what`), or the two labels.
    pub what: String,
    /// The Runs rows of arm A and arm B.
    pub runs: [u32; 2],
    /// The arms' labels, A then B (`--label-a`, `--label-b`; the command
    /// when none was given).
    pub labels: [String; 2],
    /// S7 between A and B, with its sentence and the arms' unit.
    pub verdict: Comparison,
    /// S11: B/A of adjacent trials, summarised; `None` when not computable.
    pub paired: Option<Summary>,
    /// E5: the two orders compared.
    pub order: Option<OrderCheck>,
    /// When it was recorded (the runs' time).
    #[serde(with = "super::time")]
    pub recorded_at: DateTime<Utc>,
}

/// What a comparison is made of, before the notebook numbers it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewPair {
    /// See [`Pair::what`].
    pub what: String,
    /// See [`Pair::labels`].
    pub labels: [String; 2],
    /// See [`Pair::verdict`].
    pub verdict: Comparison,
    /// See [`Pair::paired`].
    pub paired: Option<Summary>,
    /// See [`Pair::order`].
    pub order: Option<OrderCheck>,
}

impl NewPair {
    /// The verdict with its evidence, as [`Pair::evidence`] will say it
    /// once its rows, of which `facts` tells, are recorded.
    pub fn evidence(&self, facts: Facts) -> Evidence<'_> {
        Evidence::new(&self.verdict, [&self.labels[0], &self.labels[1]], self.paired.as_ref(), self.order.as_ref())
            .with_facts(facts)
    }
}

impl Pair {
    /// `C{number}`.
    pub fn label(&self) -> String {
        format!("C{}", self.number)
    }

    /// The verdict with the paired ratio and the order check as its
    /// evidence (SPEC S15): every face says the comparison through it,
    /// its advice fitted to what its two rows were (S17).
    pub fn evidence<'a>(&'a self, nb: &Notebook) -> Evidence<'a> {
        let arms: Vec<&Run> = self.runs.iter().filter_map(|&n| nb.run(n)).collect();
        self.evidence_of(&arms)
    }

    /// The three readings without the facts advice needs: enough for the
    /// paired ratio's and the order check's own lines.
    fn readings(&self) -> Evidence<'_> {
        Evidence::new(&self.verdict, [&self.labels[0], &self.labels[1]], self.paired.as_ref(), self.order.as_ref())
    }

    /// [`Pair::evidence`] when the face holds the two rows, `arms`.
    pub fn evidence_of<'a>(&'a self, arms: &[&Run]) -> Evidence<'a> {
        let summaries = || arms.iter().map(|r| &r.measurement.summary);
        self.readings().with_facts(Facts {
            pinned: !arms.is_empty() && arms.iter().all(|r| r.context().pinned()),
            trials: summaries().map(|s| s.n).min().unwrap_or(0),
            imported: arms.iter().any(|r| r.context().imported()),
            noisy: summaries().any(Summary::is_noisy),
        })
    }

    /// The note Vernier adds when it records the comparison: its rows,
    /// `how` they were measured (`interleaved`, `imported from
    /// driver.csv`), then its evidence as its own row says it.
    pub fn note(&self, nb: &Notebook, how: &str) -> String {
        format!("{}{how}: {}", self.note_opening(), full_stop(&self.evidence(nb).passage(None)))
    }

    /// True when `text` is the comparison's [`Pair::note`]: it restates the
    /// evidence, derived from the two tagged rows, word for word — no
    /// result of its own to tag (A7), unlike a note a student writes.
    pub fn restated_by(&self, nb: &Notebook, text: &str) -> bool {
        text.strip_prefix(&self.note_opening())
            .is_some_and(|rest| rest.ends_with(&format!(": {}", full_stop(&self.evidence(nb).passage(None)))))
    }

    /// How [`Pair::note`] opens: `Comparison C1: runs 15 (A) and 16 (B), `.
    fn note_opening(&self) -> String {
        format!("Comparison {}: runs {} (A) and {} (B), ", self.label(), self.runs[0], self.runs[1])
    }

    /// The pair's line in the Runs table, under its two rows, cell by
    /// column: the verdict where a run has its What, the paired ratio where
    /// a run has its median, the order check where a run has its
    /// conditions. Inert.
    pub fn cell(&self, column: RunColumn) -> String {
        let ratio = self.paired.as_ref().map(Summary::rounded);
        inert_line(match column {
            RunColumn::Number => format!("{} ({} vs {})", self.label(), self.runs[0], self.runs[1]),
            // The verdict where a reader looks first (S7, S11).
            RunColumn::What => self.verdict.verdict.clone(),
            RunColumn::Command => format!("{}: {} vs {}", self.what, self.labels[0], self.labels[1]),
            RunColumn::N => self.paired.as_ref().map_or_else(String::new, |p| format!("{} pairs", p.n)),
            RunColumn::Median => ratio.as_ref().map_or_else(String::new, |r| format!("B/A {}", r.median)),
            RunColumn::Dispersion => {
                let order = self.order.as_ref().and_then(OrderCheck::effect_text).map(|e| format!(" · order {e}"));
                ratio.as_ref().map_or_else(String::new, |r| format!("IQR {}{}", r.iqr, order.unwrap_or_default()))
            }
            RunColumn::MinMax => ratio.as_ref().map_or_else(String::new, |r| format!("{} / {}", r.min, r.max)),
            RunColumn::Conditions => self.readings().order_line().unwrap_or_default(),
            RunColumn::RawFile => String::new(),
            RunColumn::Tag => Tag::Derived.to_string(),
        })
    }

    /// The pair as one line beside its rows: label, arms, then the
    /// verdict with its evidence (SPEC S15), inert.
    pub fn line(&self, nb: &Notebook) -> String {
        inert_line(format!(
            "{}: {} (run {}) vs {} (run {}) · {}",
            self.label(),
            self.labels[0],
            self.runs[0],
            self.labels[1],
            self.runs[1],
            self.evidence(nb).passage(None)
        ))
    }

    /// The comparison in the course's short form (D7, S11): one report
    /// sentence with both medians and IQRs in one unit (S12), the
    /// repetitions, the verdict, the paired ratio and the order, then the
    /// conditions the two rows recorded (N9, N11) — power source, pre-run
    /// idle, build — each said once when both arms agree on it, per arm
    /// when they differ. Inert.
    pub fn short_form(&self, nb: &Notebook) -> String {
        let v = &self.verdict;
        let unit = v.shown_unit();
        // Each median at the place its own IQR allows (S6).
        let figures = |m: f64, iqr: f64| {
            let f = unit.figures([m, iqr, m, m], None);
            format!("{} (IQR {})", f.median(), f.iqr())
        };
        let arms = self.runs.map(|n| nb.run(n));
        let per_arm = |say: &dyn Fn(&Run) -> String| -> String {
            match arms.map(|r| r.map(say)) {
                [Some(a), Some(b)] if a == b => a,
                [a, b] => {
                    let of = |text: Option<String>, arm: usize| {
                        let text = text.unwrap_or_else(|| format!("run {} not found", self.runs[arm]));
                        format!("{text} for {}", self.labels[arm])
                    };
                    format!("{} and {}", of(a, 0), of(b, 1))
                }
            }
        };
        let repetitions = per_arm(&|r: &Run| format!("{} repetitions {}", r.measurement.summary.n, r.warmup_short()));
        let conditions = per_arm(&|r: &Run| r.context().sentence_parts()[0].clone());
        let build = per_arm(&|r: &Run| r.context().sentence_parts()[1].clone());
        // Each clause carries its own tag (A7): the medians and the
        // conditions they were measured under, then what is derived from them.
        let derived = Tag::Derived;
        let tag = format!(" ({derived})");
        let evidence = self.evidence(nb).tagged(&tag);
        let more: String = [evidence.paired_line(), evidence.order_line()]
            .into_iter()
            .flatten()
            .map(|l| format!("; {l}{tag}"))
            .collect();
        let meaning = evidence.meaning(None).map(|m| format!(" {m}")).unwrap_or_default();
        inert_line(format!(
            "{}: median {} for {} against {} for {} — medians of {repetitions}, interleaved (runs {} and {}), \
             {conditions}, {build} ({}); {} ({derived}){more}.{meaning}",
            self.what,
            figures(v.median_b, v.iqr_b),
            self.labels[1],
            figures(v.median_a, v.iqr_a),
            self.labels[0],
            self.runs[0],
            self.runs[1],
            Tag::Measured,
            v.verdict,
        ))
    }
}
