//! The report's predictions against what was measured (SPEC N14, D2): a
//! short table under Results, and the soak's prediction in Thermals. Each
//! clause carries the tag of the row that answered it (A7); a predicted
//! figure is a prediction, not a result.

use super::blocks::Block;
use crate::notebook::{AnsweredBy, Notebook, Scored, SoakNumbers, Tag, Word};

/// The tag of what `by` observed: a run's own tag, a comparison's ratio
/// derived from its two rows, a soak's onset and S/P (derived from its samples).
fn tag_of(nb: &Notebook, by: &AnsweredBy) -> Option<Tag> {
    match by {
        AnsweredBy::Run(n) => nb.run(*n).map(|r| r.measurement.tag),
        AnsweredBy::Comparison(_) => Some(Tag::Derived),
        // A soak prediction is scored on its onset and S/P: computed figures.
        AnsweredBy::Soak(n) => nb.soaks().iter().find(|s| s.number == *n).map(|s| SoakNumbers::tags(s.tag)[1]),
        AnsweredBy::Open(_) => None,
    }
}

/// `scored`'s outcome with its tag after each clause.
fn tagged(nb: &Notebook, scored: &Scored<'_>) -> String {
    match tag_of(nb, &scored.answer.by) {
        Some(tag) if scored.outcome.word != Word::Open => {
            scored.outcome.text.split("; ").map(|clause| format!("{clause} ({tag})")).collect::<Vec<_>>().join("; ")
        }
        _ => scored.outcome.text.clone(),
    }
}

/// One row per prediction answered, left open, or locked and not answered
/// yet: what it committed, what answered it, the outcome. Nothing when no
/// prediction is locked.
pub(super) fn table(nb: &Notebook) -> Option<Block> {
    let mut rows = vec![vec!["Prediction".to_owned(), "Predicted".into(), "Answered by".into(), "Outcome".into()]];
    for p in nb.predictions() {
        let scored = nb.scored_against(p.number);
        let predicted = p.figure.as_ref().map_or_else(|| "no figure".to_owned(), |f| format!("predicted {f}"));
        if scored.is_empty() {
            let outcome = nb.outcome_text(p.number);
            if !outcome.is_empty() {
                rows.push(vec![p.label(), predicted, String::new(), outcome]);
            }
            continue;
        }
        for s in &scored {
            let by = match &s.answer.by {
                AnsweredBy::Open(_) => String::new(),
                by => by.to_string(),
            };
            rows.push(vec![p.label(), predicted.clone(), by, tagged(nb, s)]);
        }
    }
    (rows.len() > 1).then_some(Block::Table(rows))
}

/// The soak's prediction in Thermals: `Prediction P2: missed on onset: …`,
/// for each prediction soak `S{number}` answers.
pub(super) fn soak_sentence(nb: &Notebook, number: u32) -> Option<String> {
    let lines: Vec<String> = nb
        .answers()
        .iter()
        .filter(|a| a.by == AnsweredBy::Soak(number))
        .map(|a| {
            let scored = nb.score(a);
            let named = scored.in_force.map_or_else(|| format!("P{}", a.prediction), |p| p.label());
            format!("Prediction {named}: {}.", tagged(nb, &scored))
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join(" "))
}
