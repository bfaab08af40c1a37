//! Reproducing a whole sweep (SPEC E16, R1–R3): every point of their scan
//! rerun here as one sweep — the same commands, interleaved round by round
//! with the order rotated — and compared point by point, each with S7.
//! One point alone is an ordinary row ([`Original`]).

use super::{ArmSide, EnvDifference, Original, ReproduceError, Rerun, Verdict, env_diff, subject};
use crate::display::{inert, inert_line};
use crate::harness::provenance::Hashes;
use crate::harness::{BenchResult, BenchSpec, Scan, ScanSpec};
use crate::notebook::Notebook;

/// Their sweep, as their log recorded it.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepOriginal {
    /// `W1`.
    pub label: String,
    /// What it was about.
    pub what: String,
    /// The command with `{NAME}` where each value went.
    pub template: Vec<String>,
    /// The parameters and their values.
    pub scan: Scan,
    /// Each point's row, in the scan's order.
    pub points: Vec<Original>,
}

impl SweepOriginal {
    /// Sweep `W{number}` of their notebook (opened read-only). Refused when
    /// its rows are not exactly its parameters filled into its command: a
    /// file edited by hand is rerun point by point (`--row`), never guessed.
    pub fn from_notebook(nb: &Notebook, number: u32) -> Result<Self, ReproduceError> {
        let sweep = nb.sweeps().iter().find(|s| s.number == number).ok_or(ReproduceError::NoSuchSweep(number))?;
        let label = sweep.label();
        let bad = |why: String| ReproduceError::BadSweep { label: label.clone(), why };
        let scan = Scan::new(sweep.params.clone(), &sweep.template).map_err(|e| bad(e.to_string()))?;
        if scan.points() != sweep.points {
            return Err(bad("its points are not every combination of its parameters, in order".to_owned()));
        }
        let points = sweep
            .runs
            .iter()
            .zip(&sweep.points)
            .map(|(&row, point)| {
                let original = Original::from_notebook(nb, row)?;
                if original.command != scan.fill(&sweep.template, point) {
                    return Err(bad(format!("run {row}'s command is not its point filled into the sweep's command")));
                }
                Ok(original)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let first = points.first().ok_or_else(|| bad("it has no run".to_owned()))?;
        let same = |o: &Original| {
            o.runs() == first.runs()
                && o.policy == first.policy
                && o.figure.as_ref().map(|f| &f.spec) == first.figure.as_ref().map(|f| &f.spec)
        };
        if !points.iter().all(same) {
            return Err(bad("its points were not all measured with the same n, warm-up and figure".to_owned()));
        }
        Ok(Self { label, what: sweep.what.clone(), template: sweep.template.clone(), scan, points })
    }

    /// The rerun, ready for confirmation: every point's command as a scan
    /// of the same parameters with their n, warm-up and figure, pinned where
    /// theirs was, and every point's program and argument files matched
    /// against theirs (each file hashed once, however many points share it).
    pub fn rerun(&self) -> Result<Rerun, ReproduceError> {
        let first = self
            .points
            .first()
            .ok_or(ReproduceError::BadSweep { label: self.label.clone(), why: "it has no run".to_owned() })?;
        let arms = self.points.iter().map(|o| subject(o.row, &o.command)).collect::<Result<Vec<_>, _>>()?;
        let spec = BenchSpec {
            arms,
            scan: Some(ScanSpec { template: self.template.clone(), scan: self.scan.clone() }),
            ..first.unpinned_spec()?
        };
        Rerun::new(&self.points.iter().collect::<Vec<_>>(), spec, &mut Hashes::default())
    }

    /// What will run, for the confirmation: every command quoted with their
    /// result beside it, inert; where it runs, and whether the program here
    /// is theirs.
    pub fn plan(&self, source: &str, rerun: &Rerun) -> String {
        let gate = &rerun.gate;
        let first = self.points.first();
        let commands: Vec<String> = gate
            .commands()
            .iter()
            .zip(&self.points)
            .map(|(c, o)| {
                let theirs = o.figures();
                format!("    {}   (theirs: median {}, IQR {})", c.quoted, inert(&theirs.median()), inert(&theirs.iqr()))
            })
            .collect();
        let programs = rerun.program_lines();
        let warmup = first.map_or_else(String::new, |o| format!("{}, per point", o.warmup_text()));
        let figure = first
            .and_then(|o| o.figure.as_ref())
            .map_or_else(String::new, |own| format!("\n  measured: {}", inert(&own.spec.describe())));
        let inline = gate.warnings();
        format!(
            "Reproduce sweep {} of {} ({})\n  {} commands, one per point:\n{}\n  timed trials per point: {}\n  \
             warm-up: {warmup}\n  order: one trial of every point per round, rotated by one each round\n  placement: \
             {}\n  confinement: {}{figure}{programs}{inline}\n  outcome per point: {}\n\
             Each command runs as an argument vector, exactly as quoted above, with your privileges.",
            self.label,
            inert(source),
            inert(&self.what),
            commands.len(),
            commands.join("\n"),
            first.map_or_else(|| gate.runs().to_string(), Original::trials_text),
            rerun.placement.text,
            rerun.confinement,
            super::RULE,
        )
    }
}

/// Their sweep and the rerun, point by point.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PointByPoint {
    /// Each point's values in words, with the side-by-side of its row.
    pub points: Vec<(String, ArmSide)>,
    /// The conditions that differ between their first point and mine.
    pub diff: Vec<EnvDifference>,
}

impl PointByPoint {
    /// Compares every point of `result` (the rerun of `sweep`) with their
    /// row; `recorded` are the rerun's rows in `mine`, in point order.
    pub fn new(sweep: &SweepOriginal, result: &BenchResult, mine: &Notebook, recorded: &[u32]) -> Self {
        let points = sweep
            .points
            .iter()
            .zip(&result.arms)
            .enumerate()
            .filter_map(|(i, (original, arm))| {
                let row = recorded.get(i).and_then(|&n| mine.run(n));
                let side = ArmSide::new(original, (i, ""), result, row)?;
                Some((arm.point.as_deref().map(|p| sweep.scan.label(p)).unwrap_or_default(), side))
            })
            .collect();
        let first = recorded.first().and_then(|&n| mine.run(n)).map(|r| r.context().effective_conditions());
        let diff = sweep.points.first().zip(first).map(|(o, mine)| env_diff(&o.conditions, &mine)).unwrap_or_default();
        Self { points, diff }
    }

    /// The points with this outcome (SPEC R4).
    pub fn with(&self, outcome: Verdict) -> Vec<&str> {
        self.points.iter().filter(|(_, side)| side.outcome == outcome).map(|(label, _)| label.as_str()).collect()
    }

    /// How many points had each outcome, naming the ones that did not
    /// reproduce: "5 reproduced; 1 differs (N=512)".
    pub fn summary(&self) -> String {
        [Verdict::Reproduced, Verdict::Differs, Verdict::Inconclusive]
            .into_iter()
            .filter_map(|outcome| {
                let points = self.with(outcome);
                let named =
                    if outcome == Verdict::Reproduced { String::new() } else { format!(" ({})", points.join(", ")) };
                (!points.is_empty()).then(|| format!("{} {}{named}", points.len(), outcome.word()))
            })
            // S13's flag once for the sweep, not on every point.
            .chain(self.points.iter().find_map(|(_, side)| side.power_flag.as_ref()).map(|f| format!("flagged: {f}")))
            .chain(self.different_files())
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Each file that is not theirs, once, with the points that ran it:
    /// "d2.txt: a different file: … (N=2)".
    fn different_files(&self) -> Vec<String> {
        let mut files: Vec<(&str, Vec<&str>)> = Vec::new();
        for (label, side) in &self.points {
            for check in side.programs.iter().filter(|c| c.differs()) {
                match files.iter_mut().find(|(text, _)| *text == check.text) {
                    Some((_, points)) => points.push(label),
                    None => files.push((&check.text, vec![label])),
                }
            }
        }
        files.into_iter().map(|(text, points)| format!("{text} ({})", points.join(", "))).collect()
    }

    /// The note that goes into my notebook, naming their sweep.
    pub fn note(&self, sweep: &SweepOriginal, source: &str, mine: Option<u32>) -> String {
        let verdict = self.summary();
        inert_line(format!(
            "Sweep {} reproduces sweep {} of {source} ({}), point by point: {verdict} (S7, R4).",
            mine.map_or_else(|| "?".to_owned(), |n| format!("W{n}")),
            sweep.label,
            sweep.what,
        ))
    }
}
