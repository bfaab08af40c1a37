//! SPEC A21: the forms the course's documents keep (C.10–C.12). Each check
//! reads only what a person wrote; a part still holding its prompt is
//! A16's finding and is passed over here, so one fault gets one finding.

use super::{Line, PROMPT_MARK, finding, numbers};
use crate::audit::{Check, Finding, Place};
use crate::notebook::Document;

/// Runs every A21 check that applies to `document`. `out` already holds the
/// document's A7/A8 findings: a line one of them names is not named again
/// for a bare number.
pub(super) fn check(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let mut found = Vec::new();
    match document {
        Document::Report => {
            flattering_choice(document, lines, &mut found);
            confidence(document, lines, &mut found);
            conclusion(document, lines, &mut found);
            bare_numbers(document, lines, out, &mut found);
        }
        Document::SocReview | Document::PlacementDecision => {
            confirmed(document, lines, &mut found);
            bandwidth(document, lines, &mut found);
            bare_numbers(document, lines, out, &mut found);
        }
        Document::ThreatModel => threat_model(document, lines, &mut found),
        Document::Measurements | Document::AiUsage => {}
    }
    out.extend(found);
}

fn at(document: Document, l: &Line) -> Place {
    Place::Document { document, line: l.number, section: l.section.clone() }
}

/// What a person wrote in a line, or `None` when a prompt is still in it
/// (A16 names that).
fn written(l: &Line) -> Option<String> {
    (!l.text.contains(PROMPT_MARK)).then(|| l.persons_text())
}

/// The lines under the heading that contains `name`, down to the next
/// heading of its level or above.
fn section<'a>(lines: &'a [Line], name: &str) -> Option<(&'a Line, Vec<&'a Line>)> {
    let start = lines.iter().position(|l| l.heading.is_some() && l.text.to_lowercase().contains(name))?;
    let level = lines[start].heading.unwrap_or(1);
    let body = lines[start + 1..].iter().take_while(|l| l.heading.is_none_or(|h| h > level)).collect();
    Some((&lines[start], body))
}

/// The value of a `Field:` line, with the line, when written.
fn field<'a>(lines: &'a [Line], label: &str) -> Option<(&'a Line, String)> {
    let l = lines.iter().find(|l| l.cells.is_none() && l.text.starts_with(label))?;
    let value = written(l)?;
    Some((l, value.strip_prefix(label).unwrap_or(&value).trim().to_owned()))
}

/// C.10: "reversed, my headline becomes ⟨Z⟩, and my conclusion ⟨does /
/// does not⟩ survive" — the sentence is there with both blanks filled.
fn flattering_choice(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let Some((heading, body)) = section(lines, "flattering choice") else { return };
    // Unwritten or empty: A16 and A13 say so.
    if body.iter().any(|l| l.text.contains(PROMPT_MARK)) {
        return;
    }
    let text: String = body.iter().filter_map(|l| written(l)).collect::<Vec<_>>().join(" ");
    if text.trim().is_empty() {
        return;
    }
    let lower = text.to_lowercase();
    let place = at(document, body.first().copied().unwrap_or(heading));
    let becomes = lower.find("headline becomes").map(|i| lower[i + "headline becomes".len()..].trim_start());
    let unfilled =
        |s: &str| s.is_empty() || s.starts_with(['⟨', '<', '[', '…']) || s.starts_with("z,") || s.starts_with("...");
    let problem = match becomes {
        None => Some("it does not say what the headline becomes when the choice is reversed"),
        Some(rest) if unfilled(rest) => Some("“my headline becomes …” is left unfilled"),
        Some(_) if !lower.contains("surviv") => Some("it does not say whether the conclusion survives the reversal"),
        Some(_) if lower.contains("does / does not") || lower.contains("does/does not") => {
            Some("“does / does not survive” is left as the form's two choices")
        }
        Some(_) => None,
    };
    if let Some(problem) = problem {
        out.push(finding(
            Check::A21,
            place,
            format!(
                "the flattering choice is named but its sentence is not filled: {problem}; write “reversed, my \
                 headline becomes …, and my conclusion does (or does not) survive”"
            ),
        ));
    }
}

/// C.10: "Confidence: high / medium / low" — exactly one of the three.
fn confidence(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let Some((l, value)) = field(lines, "Confidence:") else { return };
    if value.is_empty() {
        return;
    }
    let lower = value.to_lowercase();
    let first = lower.split(|c: char| !c.is_alphabetic()).find(|w| !w.is_empty()).unwrap_or("");
    let levels = ["high", "medium", "low"];
    let named = levels.iter().filter(|w| lower.split(|c: char| !c.is_alphabetic()).any(|x| x == **w)).count();
    let hedged =
        named > 1 && lower.split(|c: char| !c.is_alphabetic()).take(4).filter(|w| levels.contains(w)).count() > 1;
    if !levels.contains(&first) || hedged {
        out.push(finding(
            Check::A21,
            at(document, l),
            format!(
                "Confidence must open with exactly one of high, medium or low, then one line on why: “{}”",
                super::clip(&l.text)
            ),
        ));
    }
}

/// Words that name a metric.
const METRICS: [&str; 24] = [
    "median",
    "wall time",
    "wall-clock",
    "latency",
    "throughput",
    "ns/access",
    "ms",
    "energy",
    "joule",
    "power",
    "bandwidth",
    "gb/s",
    "time per",
    "run time",
    "runtime",
    "cycles",
    "frames",
    "fps",
    "p95",
    "95th",
    "percentile",
    "mj",
    "watts",
    "time to",
];

/// Words that state a finding.
const FINDINGS: [&str; 16] = [
    "faster",
    "slower",
    "wins",
    "beats",
    "better",
    "worse",
    "should",
    "recommend",
    "choose",
    "is the right",
    "outperform",
    "cheaper",
    "dearer",
    "costs more",
    "costs less",
    "is the answer",
];

/// C.10: "The conclusion names its metric before its finding": in its
/// first sentence, a metric is named before any finding is stated.
fn conclusion(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let Some((_, body)) = section(lines, "conclusion") else { return };
    if body.iter().any(|l| l.text.contains(PROMPT_MARK)) {
        return;
    }
    let Some(l) = body.iter().find(|l| l.cells.is_none() && !crate::display::is_blank(&l.text)) else { return };
    let Some(text) = written(l) else { return };
    let lower = text.to_lowercase();
    let sentence = lower.split(". ").next().unwrap_or(&lower);
    let word_at = |w: &str| {
        sentence.match_indices(w).map(|(i, _)| i).find(|&i| {
            let before = sentence[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
            let after = sentence[i + w.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
            before && after
        })
    };
    let metric = METRICS.iter().filter_map(|w| word_at(w)).min();
    let finding_at = FINDINGS.iter().filter_map(|w| word_at(w)).min();
    let problem = match (metric, finding_at) {
        (None, _) => "names no metric",
        (Some(m), Some(f)) if f < m => "states its finding before its metric",
        _ => return,
    };
    out.push(finding(
        Check::A21,
        at(document, l),
        format!(
            "the conclusion {problem}: open with the metric (e.g. “median wall time, …”), then the finding: “{}”",
            super::clip(&l.text)
        ),
    ));
}

/// Words that give a number its dispersion.
const DISPERSION: [&str; 10] =
    ["iqr", "±", "p95", "95th", "min", "max", "range", "spread", "interquartile", "dispersion"];

/// Units that are ratios or shares, which derive from two results: their
/// dispersion is their results'.
const RATIOS: [&str; 6] = ["×", "x", "%", "times", "-fold", "fold"];

/// C.10: "no bare single numbers anywhere, including in prose" — a tagged
/// measured number in prose carries its dispersion in its line. An untagged
/// one is A7's finding and a misrounded one A8's: a line either names is
/// not named again.
fn bare_numbers(document: Document, lines: &[Line], earlier: &[Finding], out: &mut Vec<Finding>) {
    for l in lines.iter().filter(|l| l.cells.is_none() && l.heading.is_none() && !l.no_results) {
        let place = at(document, l);
        if earlier.iter().any(|f| matches!(f.check, Check::A7 | Check::A8) && f.place == place) {
            continue;
        }
        let Some(text) = written(l) else { continue };
        if !text.contains("MEASURED") {
            continue;
        }
        let lower = text.to_lowercase();
        if DISPERSION.iter().any(|w| lower.contains(w)) {
            continue;
        }
        let bare: Vec<String> = numbers::numbers(&text)
            .into_iter()
            .filter(|n| n.needs_tag() && n.tagged && !n.elsewhere)
            .filter(|n| n.unit.as_deref().is_some_and(|u| !RATIOS.contains(&u)))
            .map(|n| format!("“{} {}”", n.text, n.unit.unwrap_or_default()))
            .collect();
        if !bare.is_empty() {
            out.push(finding(
                Check::A21,
                place,
                format!(
                    "{} stands bare: give its dispersion beside it (IQR, or min–max, and n): “{}”",
                    bare.join(", "),
                    super::clip(&l.text)
                ),
            ));
        }
    }
}

/// C.11: a table's `Confirmed?` cell says `confirmed` or `inferred`.
fn confirmed(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let mut column: Option<usize> = None;
    for l in lines {
        let Some(cells) = &l.cells else {
            column = None;
            continue;
        };
        if let Some(i) = cells.iter().position(|c| c.trim() == "Confirmed?") {
            column = Some(i);
            continue;
        }
        let Some(i) = column else { continue };
        if l.text.contains(PROMPT_MARK) || cells.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let cell = cells.get(i).map(|c| c.trim().to_lowercase()).unwrap_or_default();
        if cell != "confirmed" && cell != "inferred" {
            out.push(finding(
                Check::A21,
                at(document, l),
                format!(
                    "the Confirmed? cell of “{}” reads “{}”: write confirmed (a primary source says so) or inferred",
                    cells.first().map(|c| c.trim()).unwrap_or(""),
                    cells.get(i).map(|c| c.trim()).unwrap_or("")
                ),
            ));
        }
    }
}

/// C.11: where a bandwidth is claimed, `bytes/s = MT/s × bus bytes` is
/// shown: the document names a data rate in MT/s.
fn bandwidth(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let shown = lines.iter().any(|l| l.text.contains("MT/s"));
    if shown {
        return;
    }
    let claim = lines.iter().filter(|l| !l.text.contains(PROMPT_MARK)).find(|l| {
        numbers::numbers(&l.persons_text())
            .iter()
            .any(|n| n.unit.as_deref().is_some_and(|u| matches!(u, "GB/s" | "MB/s" | "GiB/s" | "TB/s")))
    });
    if let Some(l) = claim {
        out.push(finding(
            Check::A21,
            at(document, l),
            format!(
                "a bandwidth is claimed but “bytes/s = MT/s × bus bytes” is not shown: give the data rate and \
                 the bus width it comes from: “{}”",
                super::clip(&l.text)
            ),
        ));
    }
}

/// Words that make an asset data.
const DATA: [&str; 22] = [
    "data",
    "key",
    "keys",
    "password",
    "passwords",
    "credential",
    "credentials",
    "record",
    "records",
    "log",
    "logs",
    "token",
    "tokens",
    "file",
    "files",
    "message",
    "messages",
    "photo",
    "photos",
    "secret",
    "pin",
    "history",
];

/// Words that give an adversary the device in hand.
const PHYSICAL: [&str; 10] =
    ["physical", "possession", "thief", "stolen", "steals", "in hand", "hands on", "finds the", "lost", "seizes"];

/// C.12: three or more adversaries, five or more assets, one asset that is
/// not data, one adversary with physical possession, a one-sentence verdict.
fn threat_model(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let listed = |label: &str, table: &str| -> Option<(&Line, Vec<String>)> {
        let (l, value) = field(lines, label)?;
        let from_field: Vec<String> = value
            .split([',', ';'])
            .map(|s| s.trim().trim_end_matches('.').to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        let from_table: Vec<String> = section(lines, table)
            .map(|(_, body)| {
                body.iter()
                    .filter_map(|l| l.cells.as_ref().filter(|_| !l.text.contains(PROMPT_MARK)))
                    .skip(1)
                    .map(|c| c.join(" | "))
                    .filter(|c| !c.trim().is_empty())
                    .collect()
            })
            .unwrap_or_default();
        Some((l, if from_table.len() > from_field.len() { from_table } else { from_field }))
    };
    let say =
        |l: &Line, message: String, out: &mut Vec<Finding>| out.push(finding(Check::A21, at(document, l), message));
    if let Some((l, adversaries)) = listed("Adversaries modeled:", "adversaries") {
        if adversaries.len() < 3 {
            say(l, format!("{} adversaries are named; the threat model names three or more", adversaries.len()), out);
        }
        let physical = adversaries.iter().any(|a| {
            let lower = a.to_lowercase();
            PHYSICAL.iter().any(|w| lower.contains(w))
        });
        if !physical {
            say(
                l,
                "no adversary has the device in hand: name one with physical possession (a thief, a finder)".into(),
                out,
            );
        }
    }
    if let Some((l, assets)) = listed("Assets:", "assets") {
        if assets.len() < 5 {
            say(l, format!("{} assets are named; the threat model names five or more", assets.len()), out);
        }
        let not_data = assets.iter().any(|a| {
            let lower = a.to_lowercase();
            let name = lower.split(" | ").next().unwrap_or(&lower).to_owned();
            !name.split(|c: char| !c.is_alphanumeric()).any(|w| DATA.contains(&w))
        });
        if !assets.is_empty() && !not_data {
            say(
                l,
                "every asset is data: name one that is not (the device's availability, battery, the user's safety)"
                    .into(),
                out,
            );
        }
    }
    if let Some((l, verdict)) = field(lines, "Verdict:") {
        // A sentence ends at a stop followed by a space and a capital, so
        // "3.4" and "e.g. the" end none.
        let chars: Vec<char> = verdict.trim_end().chars().collect();
        let sentences = 1 + chars
            .windows(3)
            .filter(|w| matches!(w[0], '.' | '?' | '!') && w[1] == ' ' && w[2].is_uppercase())
            .count();
        if sentences > 1 {
            say(l, format!("the verdict is {sentences} sentences; give the decision-maker one"), out);
        }
    }
}
