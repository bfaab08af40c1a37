//! A19: every locked prediction is answered by rows or left open with a
//! reason; a soak prediction commits its two numbers (T1, N14); and the
//! student's own words about a prediction agree with its computed outcome.

use super::{Check, Finding, Place};
use crate::display::inert_line;
use crate::notebook::{Committed, Notebook, Word};

pub(super) fn check(nb: &Notebook, out: &mut Vec<Finding>) {
    let mut find =
        |number, message: String| out.push(Finding { check: Check::A19, place: Place::Prediction { number }, message });
    for p in nb.predictions() {
        // One finding per family of amendments, on the prediction they amend.
        if p.amends.is_none() && nb.lock_of(p).is_some() && nb.answers_to(p.number).is_empty() {
            find(
                p.number,
                format!(
                    "{} is locked and nothing answers it: link the row that does (vernier answer DIR {} --comparison \
                     C… | --run N | --soak S…) or leave it open with a reason (--open \"…\")",
                    p.label(),
                    p.label()
                ),
            );
        }
        if p.protocol.is_some() && !matches!(p.figure, Some(Committed::Soak { .. })) {
            find(
                p.number,
                format!(
                    "{} is a soak prediction and commits none of its two numbers (the onset second and S/P), so \
                     the soak cannot show whether it held",
                    p.label()
                ),
            );
        }
    }
    for (document, prompts) in &nb.writing().answers {
        for text in prompts.values() {
            for sentence in text.split(['.', ';', '\n']) {
                if let Some((number, said)) = claim(sentence)
                    && let Some(computed) = computed(nb, number)
                    && computed.0 != said
                {
                    find(
                        number,
                        format!(
                            "{document} says P{number} {} (“{}”), but the computed outcome is {}",
                            said.as_str(),
                            inert_line(sentence.trim().to_owned()),
                            computed.1
                        ),
                    );
                }
            }
        }
    }
}

/// The one prediction a sentence names (`P3`) and the word it gives it:
/// `held` (or right, correct, confirmed) against `missed` (or wrong,
/// incorrect). A sentence naming two predictions, or both words, claims
/// nothing this check can read.
fn claim(sentence: &str) -> Option<(u32, Word)> {
    let words: Vec<String> =
        sentence.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    let mut named = words.iter().filter_map(|w| w.strip_prefix('p')?.parse::<u32>().ok());
    let number = named.next()?;
    if named.next().is_some() {
        return None;
    }
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    match (has(&["held", "right", "correct", "confirmed"]), has(&["missed", "wrong", "incorrect", "refuted"])) {
        (true, false) => Some((number, Word::Held)),
        (false, true) => Some((number, Word::Missed)),
        _ => None,
    }
}

/// The outcome of `P{number}`'s answers when they agree on held or missed,
/// with its text.
fn computed(nb: &Notebook, number: u32) -> Option<(Word, String)> {
    let scored: Vec<_> = nb.answers_to(number).into_iter().map(|a| nb.score(a)).collect();
    let words: Vec<Word> =
        scored.iter().map(|s| s.outcome.word).filter(|w| matches!(w, Word::Held | Word::Missed)).collect();
    let first = *words.first()?;
    words.iter().all(|w| *w == first).then(|| {
        let text = scored.iter().map(|s| s.line(number)).collect::<Vec<_>>().join("; ");
        (first, text)
    })
}
