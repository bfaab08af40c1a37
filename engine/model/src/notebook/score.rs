//! Predicted against observed (SPEC N14): a committed figure scored against
//! the row that answers it, in one word — held, missed (by how much, as a
//! ratio), or unresolvable — with both figures beside it, in the units and
//! rounding of S6 and S12. Pure functions: every face (show, the window,
//! the workbook, the report, the audit) takes its words from here.

use super::committed::{Committed, Tolerance, b_over_a};
use super::{Answer, AnsweredBy, Notebook, Pair, Prediction, Run, SoakNumbers};
use crate::stats::units::{DisplayUnit, Figures, time_factor};
use crate::stats::{Comparison, Summary, format_significant, times};

/// The one word of an outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    /// The observation lies within the tolerance.
    Held,
    /// It lies outside.
    Missed,
    /// The row makes no claim that could decide it.
    Unresolvable,
    /// The prediction committed no figure, so there is nothing to score.
    Unscored,
    /// The student left the prediction open, with a reason.
    Open,
}

impl Word {
    /// `held`, `missed`, `unresolvable`, `no figure`, `left open`.
    pub fn as_str(self) -> &'static str {
        match self {
            Word::Held => "held",
            Word::Missed => "missed",
            Word::Unresolvable => "unresolvable",
            Word::Unscored => "no figure",
            Word::Open => "left open",
        }
    }
}

/// One answer scored.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// The word.
    pub word: Word,
    /// The figure predicted, as committed (empty without one).
    pub predicted: String,
    /// The figure observed, as the row shows it.
    pub observed: String,
    /// The outcome in one phrase: `missed (observed 16×, 5.3× the
    /// prediction)`, `held (observed 2.8×)`.
    pub text: String,
}

/// An answer with its outcome and the prediction whose figure it was
/// scored against (an amendment in force when the row was measured).
#[derive(Debug, Clone)]
pub struct Scored<'a> {
    /// The link.
    pub answer: &'a Answer,
    /// The prediction in force when the row was measured (for a prediction
    /// left open, the one named).
    pub in_force: Option<&'a Prediction>,
    /// The outcome.
    pub outcome: Score,
}

impl Scored<'_> {
    /// `C2: missed (observed 16×, 5.3× the prediction)`, naming the
    /// amendment whose figure was used when it is not `shown_on`.
    pub fn line(&self, shown_on: u32) -> String {
        let against = match self.in_force {
            Some(p) if p.number != shown_on && self.outcome.word != Word::Open => format!(" [against {}]", p.label()),
            _ => String::new(),
        };
        match &self.answer.by {
            AnsweredBy::Open(_) => self.outcome.text.clone(),
            row => format!("{}: {}{against}", short_row(row), self.outcome.text),
        }
    }
}

/// `run 3`, `C2`, `S1`.
pub fn short_row(by: &AnsweredBy) -> String {
    match by {
        AnsweredBy::Comparison(n) => format!("C{n}"),
        AnsweredBy::Soak(n) => format!("S{n}"),
        other => other.to_string(),
    }
}

/// `missed (observed 16×, 5.3× the prediction)` or `held (observed 2.8×)`.
fn phrase(word: Word, observed: &str, by: f64) -> String {
    match word {
        Word::Missed => format!("missed (observed {observed}, {}× the prediction)", times(by)),
        _ => format!("{} (observed {observed})", word.as_str()),
    }
}

/// A ratio figure against a comparison (S7, S11, S17): scored from the same
/// evidence as the verdict. When S7 claims a difference the ratio of the
/// medians, arms oriented as the figure names them, holds or misses — but
/// never holds while the paired ratio lies outside the tolerance. When S7
/// cannot resolve one and the pairs agree (their middle half on one side of
/// 1), the paired ratio is what was observed, and it holds or misses. When
/// the pairs fall on both sides of 1, a tolerance that includes 1 (and the
/// paired ratio) held, one whose tolerance the paired ratio's IQR lies
/// wholly outside missed, and any other is unresolvable. A comparison that
/// claims nothing for another reason than noise (S13, S14, S16: S7's
/// difference stands but a guard took the claim away) is unresolvable.
pub fn score_ratio(
    value: f64,
    tolerance: Tolerance,
    b_over_a: bool,
    verdict: &Comparison,
    paired: Option<&Summary>,
) -> Score {
    let orient = |r: f64| if b_over_a { r } else { 1.0 / r };
    let predicted = format!("{} {}", crate::stats::format_plain(value), tolerance.text(""));
    let Some(ratio) = verdict.ratio.map(orient).filter(|r| r.is_finite() && *r > 0.0) else {
        let text = "unresolvable (an arm's median is zero, so there is no ratio)".to_owned();
        return Score { word: Word::Unresolvable, predicted, observed: "no ratio".to_owned(), text };
    };
    let observed = format!("{}×", times(ratio));
    let (low, high) = tolerance.range(value);
    // The paired ratio, oriented: its median and its middle half.
    let pairs = paired.map(|p| {
        let (a, b) = (orient(p.p25), orient(p.p75));
        (orient(p.median), a.min(b), a.max(b))
    });
    let paired_within = pairs.is_none_or(|(median, _, _)| tolerance.holds(value, median));
    if verdict.claimed {
        let word = match (tolerance.holds(value, ratio), paired_within) {
            (true, true) => Word::Held,
            (true, false) => Word::Unresolvable,
            (false, _) => Word::Missed,
        };
        let text = match (word, pairs) {
            (Word::Unresolvable, Some((median, _, _))) => format!(
                "unresolvable (the medians' ratio {observed} lies within {predicted}, but the paired ratio {}× does \
                 not)",
                times(median)
            ),
            _ => phrase(word, &observed, ratio / value),
        };
        return Score { word, predicted, observed, text };
    }
    let noise_only = verdict.difference <= verdict.iqr_a + verdict.iqr_b;
    if !noise_only {
        let text =
            format!("unresolvable (observed {observed}, but the comparison claims nothing: {})", verdict.verdict);
        return Score { word: Word::Unresolvable, predicted, observed, text };
    }
    // S15: the IQR-sum rule cannot resolve the medians, but pair by pair
    // every middle-half ratio points one way: that is the observation.
    if let Some((median, p25, p75)) = pairs.filter(|(_, p25, p75)| *p75 < 1.0 || *p25 > 1.0) {
        let word = if tolerance.holds(value, median) { Word::Held } else { Word::Missed };
        let observed = format!("paired {}× (middle half {}–{})", times(median), times(p25), times(p75));
        let by = match word {
            Word::Missed => format!(", {}× the prediction", times(median / value)),
            _ => String::new(),
        };
        let text =
            format!("{} (observed {observed}{by}; the medians alone are no difference S7 can resolve)", word.as_str());
        return Score { word, predicted, observed, text };
    }
    let observed = format!("{observed}, no difference S7 can resolve");
    if (low..=high).contains(&1.0) && paired_within {
        let text = format!("held (observed no resolvable difference, and 1 lies within {predicted})");
        return Score { word: Word::Held, predicted, observed, text };
    }
    match pairs {
        Some((_, p25, p75)) if p75 < low || p25 > high => {
            let text = format!(
                "missed (observed no resolvable difference, and the paired ratio's IQR {}–{} lies outside {predicted}, \
                 {}× the prediction)",
                times(p25),
                times(p75),
                times(ratio / value)
            );
            Score { word: Word::Missed, predicted, observed, text }
        }
        Some((_, p25, p75)) => {
            let text = format!(
                "unresolvable (observed no resolvable difference, and the paired ratio's IQR {}–{} overlaps {predicted})",
                times(p25),
                times(p75)
            );
            Score { word: Word::Unresolvable, predicted, observed, text }
        }
        None => {
            let text = "unresolvable (observed no resolvable difference, and no paired ratio to place it)".to_owned();
            Score { word: Word::Unresolvable, predicted, observed, text }
        }
    }
}

/// A median figure against a run's summary in `run_unit`: held when the
/// run's median, put in the figure's unit, lies within the tolerance. The
/// observed figure is shown with its dispersion (S6, S12).
pub fn score_median(value: f64, unit: &str, tolerance: Tolerance, summary: &Summary, run_unit: &str) -> Score {
    let predicted = format!("{} {}", DisplayUnit::for_median(unit, value).quantity(value), tolerance.text(unit));
    let figures = Figures::of(summary, run_unit);
    let observed = format!("{} ({})", figures.median(), figures.dispersion());
    let factor = if unit == run_unit { Some(1.0) } else { time_factor(run_unit, unit) };
    let Some(factor) = factor else {
        let text = format!("unresolvable (the run is in '{run_unit}', which cannot be put in '{unit}')");
        return Score { word: Word::Unresolvable, predicted, observed, text };
    };
    let median = summary.median * factor;
    let word = if tolerance.holds(value, median) { Word::Held } else { Word::Missed };
    let text = phrase(word, &figures.median(), median / value);
    Score { word, predicted, observed, text }
}

/// A soak's two numbers against its analysis (T1, T5): each number gets
/// its own word, and the prediction holds only when both do — `missed on
/// onset: predicted 180 s ± 20 %, observed 80 s (0.44× the prediction)`.
pub fn score_soak(
    onset: Option<f64>,
    onset_tolerance: Tolerance,
    fraction: f64,
    fraction_tolerance: Tolerance,
    numbers: &SoakNumbers,
) -> Score {
    let seconds = |t: Option<f64>| t.map_or_else(|| "none".to_owned(), |t| format!("{t} s"));
    let onset_word = match (onset, numbers.t_onset) {
        (None, None) => (Word::Held, None),
        (Some(p), Some(o)) if onset_tolerance.holds(p, o) => (Word::Held, None),
        (Some(p), Some(o)) => (Word::Missed, Some(o / p)),
        _ => (Word::Missed, None),
    };
    let fraction_word = if fraction_tolerance.holds(fraction, numbers.ratio) {
        (Word::Held, None)
    } else {
        (Word::Missed, Some(numbers.ratio / fraction))
    };
    let observed_fraction = format_significant(numbers.ratio, 2);
    let part = |name: &str, (word, by): (Word, Option<f64>), predicted: String, observed: &str| {
        let by = by.map(|b| format!(" ({}× the prediction)", times(b))).unwrap_or_default();
        format!("{} on {name}: predicted {predicted}, observed {observed}{by}", word.as_str())
    };
    let predicted_onset = Committed::onset_text(onset, onset_tolerance);
    let predicted_fraction = Committed::fraction_text(fraction, fraction_tolerance);
    let word = if onset_word.0 == Word::Held && fraction_word.0 == Word::Held { Word::Held } else { Word::Missed };
    let text = format!(
        "{}; {}",
        part("onset", onset_word, predicted_onset.clone(), &seconds(numbers.t_onset)),
        part("S/P", fraction_word, predicted_fraction.clone(), &observed_fraction)
    );
    Score {
        word,
        predicted: format!("onset {predicted_onset}, S/P {predicted_fraction}"),
        observed: format!("onset {}, S/P {observed_fraction}", seconds(numbers.t_onset)),
        text,
    }
}

impl Notebook {
    /// `answer` scored against the figure in force when its row was
    /// measured.
    pub fn score<'a>(&'a self, answer: &'a Answer) -> Scored<'a> {
        let named = self.prediction(answer.prediction);
        let measured = self.measured(&answer.by).map(|(at, _)| at);
        let in_force = measured.and_then(|at| self.in_force(answer.prediction, at)).or(named);
        let outcome = match (&answer.by, in_force.and_then(|p| p.figure.as_ref())) {
            (AnsweredBy::Open(reason), _) => Score {
                word: Word::Open,
                predicted: String::new(),
                observed: String::new(),
                text: format!("left open: {}", crate::display::inert_line(reason.clone())),
            },
            (by, Some(figure)) => self.score_row(figure, by),
            (by, None) => {
                let observed = self.observed(by);
                let text = format!("{observed}; no figure was committed, so there is nothing to score");
                Score { word: Word::Unscored, predicted: String::new(), observed, text }
            }
        };
        Scored { answer, in_force, outcome }
    }

    /// Every answer to `P{number}`'s family scored against `P{number}` itself.
    pub fn scored_against(&self, number: u32) -> Vec<Scored<'_>> {
        self.answers_to(number)
            .into_iter()
            .map(|a| self.score(a))
            .filter(|s| s.outcome.word == Word::Open || s.in_force.is_some_and(|p| p.number == number))
            .collect()
    }

    /// What the log shows beside `P{number}` (N14): each answer scored
    /// against it; for an amended figure, where its answers went; `not
    /// answered yet` for a locked prediction nothing answers; empty for an
    /// open one.
    pub fn outcome_text(&self, number: u32) -> String {
        let Some(p) = self.prediction(number) else { return String::new() };
        let scored = self.scored_against(number);
        if !scored.is_empty() {
            return scored.iter().map(|s| s.line(number)).collect::<Vec<_>>().join("; ");
        }
        let others: Vec<String> =
            self.answers_to(number).into_iter().filter_map(|a| self.score(a).in_force.map(Prediction::label)).collect();
        if let Some(first) = others.first() {
            return format!("answered against {first}'s figure");
        }
        if self.lock_of(p).is_some() { "not answered yet".to_owned() } else { String::new() }
    }

    fn score_row(&self, figure: &Committed, by: &AnsweredBy) -> Score {
        // A row the report leaves out answers nothing (S17, A18, N5).
        if let Some(why) = self.left_out(by) {
            let text = format!("unresolvable ({why}, so it answers nothing)");
            return Score {
                word: Word::Unresolvable,
                predicted: figure.to_string(),
                observed: self.observed(by),
                text,
            };
        }
        let missing = || Score {
            word: Word::Unresolvable,
            predicted: figure.to_string(),
            observed: String::new(),
            text: format!("unresolvable ({by} cannot answer a figure answered by {})", figure.answered_by()),
        };
        match (figure, by) {
            (Committed::Median { value, unit, tolerance }, AnsweredBy::Run(n)) => match self.run(*n) {
                Some(run) => score_median(*value, unit, *tolerance, &run.measurement.summary, &run.measurement.unit),
                None => missing(),
            },
            (Committed::Ratio { numerator, denominator, value, tolerance }, AnsweredBy::Comparison(c)) => {
                let pair = self.pair(*c);
                match pair.and_then(|p| Some((p, b_over_a(numerator, denominator, &p.labels)?))) {
                    Some((pair, oriented)) => {
                        score_ratio(*value, *tolerance, oriented, &pair.verdict, pair.paired.as_ref())
                    }
                    None => missing(),
                }
            }
            (Committed::Soak { onset, onset_tolerance, fraction, fraction_tolerance }, AnsweredBy::Soak(s)) => {
                match self.soaks().iter().find(|x| x.number == *s) {
                    Some(soak) => score_soak(*onset, *onset_tolerance, *fraction, *fraction_tolerance, &soak.numbers),
                    None => missing(),
                }
            }
            _ => missing(),
        }
    }

    /// Why the row answering is left out of the results, if it is: a
    /// discarded run or soak, or a run built as a diagnostic (-O0, A18).
    fn left_out(&self, by: &AnsweredBy) -> Option<String> {
        let runs: Vec<u32> = match by {
            AnsweredBy::Run(n) => vec![*n],
            AnsweredBy::Comparison(c) => self.pair(*c).map(|p| p.runs.to_vec()).unwrap_or_default(),
            AnsweredBy::Soak(s) => {
                let soak = self.soaks().iter().find(|x| x.number == *s)?;
                return soak.discarded.as_ref().map(|_| format!("soak {} is discarded", soak.label()));
            }
            AnsweredBy::Open(_) => return None,
        };
        runs.iter().filter_map(|&n| self.run(n)).find_map(|r| {
            if r.discarded.is_some() {
                return Some(format!("its run {} is discarded", r.number));
            }
            let build = r.context().build()?;
            let why = super::Optimisation::of(&build).diagnostic_reason()?;
            Some(format!("its run {} is {why}, a diagnostic", r.number))
        })
    }

    /// What a row observed, for a prediction with no figure.
    fn observed(&self, by: &AnsweredBy) -> String {
        let run = |r: &Run| Figures::of(&r.measurement.summary, &r.measurement.unit).median();
        let pair = |p: &Pair| p.verdict.verdict.clone();
        match by {
            AnsweredBy::Run(n) => self.run(*n).map(run),
            AnsweredBy::Comparison(c) => self.pair(*c).map(pair),
            AnsweredBy::Soak(s) => self.soaks().iter().find(|x| x.number == *s).map(|x| x.numbers.shown_line()),
            AnsweredBy::Open(_) => None,
        }
        .map_or_else(|| format!("{by} is not in the notebook"), |o| format!("observed {o}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Spread, compare};

    fn comparison(a: f64, b: f64, iqr: f64) -> Comparison {
        compare(Spread { median: a, iqr }, Spread { median: b, iqr }, ("blocked", "naive"), "median wall time", "ms")
    }

    // SPEC N14, S7: naive/blocked = 3 ± 50 % against a comparison of
    // blocked (A) and naive (B).
    #[test]
    fn a_ratio_holds_or_misses_by_the_observed_ratio() {
        let tol = Tolerance::Relative(0.5);
        let sixteen = score_ratio(3.0, tol, true, &comparison(10.0, 160.0, 1.0), None);
        assert_eq!(sixteen.word, Word::Missed);
        assert_eq!(sixteen.text, "missed (observed 16×, 5.3× the prediction)");
        let close = score_ratio(3.0, tol, true, &comparison(10.0, 28.0, 1.0), None);
        assert_eq!(close.word, Word::Held);
        assert_eq!(close.text, "held (observed 2.8×)");
        // The same figure typed blocked/naive = 0.33 reads the comparison the other way.
        let inverse = score_ratio(1.0 / 3.0, tol, false, &comparison(10.0, 28.0, 1.0), None);
        assert_eq!(inverse.word, Word::Held);
        assert_eq!(inverse.observed, "0.36×");
    }

    // SPEC N14, S7, S11: no difference S7 can resolve.
    #[test]
    fn an_unresolved_comparison_holds_only_a_tolerance_that_includes_one() {
        let unresolved = comparison(10.0, 10.2, 1.0);
        let wide = score_ratio(1.2, Tolerance::Relative(0.5), true, &unresolved, None);
        assert_eq!(wide.word, Word::Held, "{}", wide.text);
        let paired = |p25: f64, p75: f64| Summary { p25, p75, ..Summary::typed(31, 1.02, p75 - p25, p25, p75) };
        let near = paired(0.98, 1.05);
        let far = score_ratio(3.0, Tolerance::Relative(0.1), true, &unresolved, Some(&near));
        assert_eq!(far.word, Word::Missed, "{}", far.text);
        let wide_iqr = paired(0.5, 2.9);
        let overlap = score_ratio(3.0, Tolerance::Relative(0.1), true, &unresolved, Some(&wide_iqr));
        assert_eq!(overlap.word, Word::Unresolvable, "{}", overlap.text);
        let none = score_ratio(3.0, Tolerance::Relative(0.1), true, &unresolved, None);
        assert_eq!(none.word, Word::Unresolvable);
    }

    // SPEC N14, S13: a claim taken away by a guard decides nothing.
    #[test]
    fn a_guarded_comparison_is_unresolvable() {
        let mut guarded = comparison(10.0, 160.0, 1.0);
        guarded.claimed = false;
        guarded.verdict = "no claim: measured on mains and on battery (S13)".to_owned();
        let outcome = score_ratio(3.0, Tolerance::Relative(0.5), true, &guarded, None);
        assert_eq!(outcome.word, Word::Unresolvable);
        assert!(outcome.text.contains("S13"), "{}", outcome.text);
    }

    // SPEC N14, S12: a median in another time unit is put on the figure's scale.
    #[test]
    fn a_median_is_compared_in_the_figures_unit() {
        let summary = Summary::typed(31, 0.000_12, 0.000_01, 0.000_11, 0.000_13);
        let held = score_median(100.0, "µs", Tolerance::Relative(0.3), &summary, "s");
        assert_eq!(held.word, Word::Held, "{}", held.text);
        assert_eq!(held.text, "held (observed 120 µs)");
        let missed = score_median(50.0, "µs", Tolerance::Relative(0.3), &summary, "s");
        assert_eq!(missed.text, "missed (observed 120 µs, 2.4× the prediction)");
    }

    // SPEC S17, S15, N14 (issue 47 item 3): every one of 11 pairs reads
    // new/old = 1.30, the medians alone are unresolved — the paired ratio is
    // what was observed, so 1 ± 5 % missed, never "held".
    #[test]
    fn agreeing_pairs_under_an_unresolved_verdict_are_the_observation() {
        let unresolved = comparison(10.0, 13.0, 2.0);
        assert!(!unresolved.claimed);
        let pairs =
            Summary { p25: 1.299_998, p75: 1.300_001, ..Summary::typed(11, 1.3, 0.000_003, 1.299_99, 1.300_01) };
        let tight = score_ratio(1.0, Tolerance::Relative(0.05), true, &unresolved, Some(&pairs));
        assert_eq!(tight.word, Word::Missed, "{}", tight.text);
        assert!(tight.text.contains("paired 1.30×"), "{}", tight.text);
        let fits = score_ratio(1.3, Tolerance::Relative(0.05), true, &unresolved, Some(&pairs));
        assert_eq!(fits.word, Word::Held, "{}", fits.text);
        // A claimed difference whose medians hold but whose pairs do not is no "held".
        let claimed = comparison(10.0, 20.0, 0.5);
        let off = Summary { p25: 3.9, p75: 4.1, ..Summary::typed(11, 4.0, 0.2, 3.8, 4.2) };
        let outcome = score_ratio(2.0, Tolerance::Relative(0.1), true, &claimed, Some(&off));
        assert_ne!(outcome.word, Word::Held, "{}", outcome.text);
    }
}
