//! SPEC A21: the forms the course's documents keep (C.10–C.12). Each check
//! reads only what a person wrote (A20): a line still holding its prompt is
//! A16's finding and a line Vernier wrote whole is its own, and both are
//! passed over here, so one fault gets one finding and an export nobody has
//! written in yet has none.

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
        }
        Document::SocReview | Document::PlacementDecision => {
            confirmed(document, lines, &mut found);
            bandwidth(document, lines, &mut found);
        }
        Document::ThreatModel => threat_model(document, lines, &mut found),
        Document::Measurements | Document::AiUsage => return,
    }
    bare_numbers(document, lines, out, &mut found);
    out.extend(found);
}

fn at(document: Document, l: &Line) -> Place {
    Place::Document { document, line: l.number, section: l.section.clone() }
}

/// A line as a person wrote it, labels and all, or `None` when a prompt is
/// still in it (A16 names that) or when every word of it is Vernier's
/// (A20): the forms are the student's to keep.
fn stated(l: &Line) -> Option<&str> {
    // A table row's cells are joined by bars: a row with every cell
    // Vernier's leaves only those.
    let persons = l.persons_text().replace('|', " ");
    let theirs = !l.text.contains(PROMPT_MARK) && !crate::display::is_blank(&persons);
    theirs.then_some(l.text.as_str())
}

/// The lines under the heading that contains `name`, down to the next
/// heading of its level or above.
fn section<'a>(lines: &'a [Line], name: &str) -> Option<(&'a Line, Vec<&'a Line>)> {
    let start = lines.iter().position(|l| l.heading.is_some() && l.text.to_lowercase().contains(name))?;
    let level = lines[start].heading.unwrap_or(1);
    let body = lines[start + 1..].iter().take_while(|l| l.heading.is_none_or(|h| h > level)).collect();
    Some((&lines[start], body))
}

/// The value of a `Field:` paragraph a person wrote, with its line.
fn field<'a>(lines: &'a [Line], label: &str) -> Option<(&'a Line, String)> {
    let l = lines.iter().find(|l| l.cells.is_none() && l.heading.is_none() && l.text.starts_with(label))?;
    let value = stated(l)?;
    Some((l, value.strip_prefix(label).unwrap_or(value).trim().to_owned()))
}

/// The lower-cased words of `text`, split at anything not a letter or digit.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty())
}

/// Where `phrase` first stands in `text` as whole words.
fn phrase_at(text: &str, phrase: &str) -> Option<usize> {
    text.match_indices(phrase).map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        let after = text[i + phrase.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        before && after
    })
}

/// Blanks of a form copied and not filled: the course's ⟨…⟩, a "does /
/// does not" left with both choices, a "to be done".
const BLANKS: [&str; 14] = [
    "⟨",
    "〈",
    "does / does not",
    "does/does not",
    "[z]",
    "<z>",
    "tbd",
    "todo",
    "fill in",
    "___",
    "becomes ...",
    "becomes …",
    "becomes x,",
    "becomes z,",
];

/// Words that restate the headline under the reversed choice.
const REVERSED: [&str; 15] = [
    "revers",
    "instead",
    "had i",
    "if i",
    "were i",
    "switch",
    "swap",
    "other way",
    "becomes",
    "falls to",
    "rises to",
    "drops to",
    "shrinks",
    "grows",
    "undo",
];

/// Words that say whether the conclusion survives the reversal.
const SURVIVES: [&str; 20] = [
    "surviv",
    "conclusion holds",
    "it holds",
    "hold up",
    "keeps its",
    "stands",
    "collapses",
    "falls apart",
    "flips",
    "unchanged",
    "still stand",
    "still hold",
    "still true",
    "not stand",
    "no longer",
    "overturn",
    "breaks",
    "intact",
    "disappears",
    "vanishes",
];

/// C.10: "reversed, my headline becomes ⟨Z⟩, and my conclusion ⟨does /
/// does not⟩ survive" — once the section is written, the sentence is there
/// with its blanks filled: the headline restated under the reversed choice,
/// and whether the conclusion survives it.
fn flattering_choice(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let Some((_, body)) = section(lines, "flattering choice") else { return };
    // Unwritten or empty: A16 and A13 say so.
    if body.iter().any(|l| l.text.contains(PROMPT_MARK)) {
        return;
    }
    let written: Vec<&Line> = body.iter().copied().filter(|l| stated(l).is_some()).collect();
    let Some(first) = written.first() else { return };
    let text = written.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join(" ");
    let lower = text.to_lowercase();
    // The form's own letter left where the headline goes ("becomes Z,"),
    // not any X or Z a sentence names (a Z-order curve, an X Elite).
    let problem = if BLANKS.iter().any(|b| lower.contains(b)) || lower.trim_end_matches('.').ends_with("becomes z") {
        "a blank of the form is left in it"
    } else if !REVERSED.iter().any(|w| lower.contains(w)) {
        "it does not say what the headline becomes when the choice is reversed"
    } else if !SURVIVES.iter().any(|w| lower.contains(w)) {
        "it does not say whether the conclusion survives the reversal"
    } else {
        return;
    };
    out.push(finding(
        Check::A21,
        at(document, first),
        format!(
            "the flattering choice's sentence is not filled: {problem}; write “reversed, my headline becomes …, \
             and my conclusion does (or does not) survive”"
        ),
    ));
}

/// C.10: "Confidence: high / medium / low" — one of the three, first, then
/// the line on why. "medium-high" or "fairly high" is not one of them.
fn confidence(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let Some((l, value)) = field(lines, "Confidence:") else { return };
    let lower = value.to_lowercase();
    let levels = ["high", "medium", "low"];
    // The first word whole, hyphens and all: "high-ish" and "medium-high"
    // are not one of the three.
    let lower = lower.trim_start();
    let end = lower.find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\'')).unwrap_or(lower.len());
    let first = &lower[..end];
    // "medium to high", "high/medium", "high or medium": a second level
    // joined to the first. A reason that mentions a level after a dash or
    // a colon ("High — low noise") is a reason.
    let rest = lower[end..].trim_start();
    let joined = ["/", "or ", "to "]
        .iter()
        .find_map(|j| rest.strip_prefix(j))
        .is_some_and(|after| words(after).next().is_some_and(|w| levels.contains(&w)));
    // "High confidence in the direction, low in the size": a second level
    // in the answer's first clause (before a dash, colon or stop), unless
    // it is denied ("Low, not high").
    let clause = rest.split(['—', '–', ':', ';', '.', '(']).next().unwrap_or("");
    let clause_words: Vec<&str> = words(clause).collect();
    let second = clause_words
        .iter()
        .enumerate()
        .any(|(i, w)| levels.contains(w) && *w != first && (i == 0 || clause_words[i - 1] != "not"));
    if !levels.contains(&first) || joined || second {
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

/// Words and units that name a metric.
const METRICS: [&str; 46] = [
    "median",
    "wall time",
    "wall-clock",
    "latency",
    "throughput",
    "per access",
    "ns/access",
    "per frame",
    "frame time",
    "per inference",
    "per token",
    "tokens/s",
    "energy",
    "joules",
    "joule",
    "power",
    "watts",
    "bandwidth",
    "gb/s",
    "time per",
    "run time",
    "runtime",
    "response time",
    "cycles",
    "fps",
    "frames per second",
    "p95",
    "95th percentile",
    "percentile",
    "sustained",
    "s/p",
    "score",
    "chunks/s",
    "ms",
    "ns",
    "mj",
    "seconds",
    "milliseconds",
    "nanoseconds",
    "iqr",
    "execution time",
    "instructions per cycle",
    "ipc",
    "miss rate",
    "time to first token",
    "ttft",
];

/// Words that state a finding: a comparison, a verdict or advice.
const FINDINGS: [&str; 28] = [
    "faster",
    "slower",
    "wins",
    "win",
    "beats",
    "beat",
    "better",
    "worse",
    "should",
    "recommend",
    "choose",
    "outperforms",
    "outperform",
    "cheaper",
    "dearer",
    "bottleneck",
    "is the answer",
    "dominates",
    "matters",
    "more efficient",
    "less efficient",
    "optimal",
    "go with",
    "prefer",
    "is the right",
    "winner",
    "explains",
    "quicker",
];

/// C.12: "The conclusion names its metric before its finding": in its first
/// sentence a metric is named, and before any finding is stated. The
/// conclusion is the section headed so, or a paragraph opening
/// "Conclusion:" where there is none.
fn conclusion(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let first = match section(lines, "conclusion") {
        Some((_, body)) => {
            if body.iter().any(|l| l.text.contains(PROMPT_MARK)) {
                return;
            }
            body.into_iter().find(|l| l.cells.is_none() && stated(l).is_some())
        }
        None => lines.iter().find(|l| l.heading.is_none() && l.text.starts_with("Conclusion:")),
    };
    let Some(l) = first else { return };
    let Some(text) = stated(l) else { return };
    let lower = text.strip_prefix("Conclusion:").unwrap_or(text).to_lowercase();
    let sentence = first_sentence(&lower);
    let metric = METRICS.iter().filter_map(|w| phrase_at(sentence, w)).min();
    let finding_at = FINDINGS.iter().filter_map(|w| phrase_at(sentence, w)).min();
    let problem = match (metric, finding_at) {
        (None, _) => "names no metric in its first sentence",
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

/// Abbreviations whose full stop ends no sentence.
const ABBREVIATIONS: [&str; 15] = [
    "e.g.", "i.e.", "fig.", "cf.", "vs.", "etc.", "approx.", "no.", "u.s.", "dr.", "mr.", "mrs.", "ms.", "prof.", "st.",
];

/// True when the full stop at byte `i` of lower-cased `text` closes one
/// of the [`ABBREVIATIONS`], not a sentence.
fn closes_abbreviation(text: &str, i: usize) -> bool {
    let upto = &text[..=i];
    ABBREVIATIONS.iter().any(|a| {
        upto.ends_with(a) && upto[..upto.len() - a.len()].chars().next_back().is_none_or(|c| !c.is_alphanumeric())
    })
}

/// The first sentence of lower-cased `text`: up to the first ". " that
/// does not close an abbreviation.
fn first_sentence(text: &str) -> &str {
    let end = text.match_indices(". ").map(|(i, _)| i).find(|&i| !closes_abbreviation(text, i));
    end.map_or(text, |i| &text[..i])
}

/// Words that give a number its dispersion beside it.
const DISPERSION: [&str; 18] = [
    "iqr",
    "quartile",
    "quartiles",
    "±",
    "+/-",
    "interquartile",
    "range",
    "spread",
    "min",
    "max",
    "minimum",
    "maximum",
    "dispersion",
    "p95",
    "95th",
    "p25",
    "p75",
    "standard deviation",
];

/// Units that are ratios or shares, which derive from two results: their
/// dispersion is their results'.
const RATIOS: [&str; 6] = ["×", "x", "%", "times", "-fold", "fold"];

/// Labels of numbers that are themselves a dispersion.
const DISPERSION_LABELS: [&str; 10] =
    ["iqr", "range", "min", "max", "minimum", "maximum", "p25", "p75", "quartiles", "quartile"];

/// C.12: "No bare single numbers anywhere, including in prose" — a number
/// tagged MEASURED in a paragraph carries its dispersion beside it: in the
/// words from the end of the previous tag's remark to the next result. A
/// number's tag is the one whose remark it stands in ("48.3 ms
/// (MEASURED), against 48.0 ms (MODELED)": the first is measured, the
/// second modeled). An untagged number is A7's finding and a misrounded one
/// A8's: a line either names is not named again. Tables carry their
/// dispersion in a column; Vernier's own sentences carry theirs (A20).
fn bare_numbers(document: Document, lines: &[Line], earlier: &[Finding], out: &mut Vec<Finding>) {
    for l in lines.iter().filter(|l| l.cells.is_none() && l.heading.is_none() && !l.no_results) {
        let place = at(document, l);
        if l.text.contains(PROMPT_MARK)
            || earlier.iter().any(|f| matches!(f.check, Check::A7 | Check::A8) && f.place == place)
        {
            continue;
        }
        let text = l.persons_text();
        if !text.contains("MEASURED") {
            continue;
        }
        let mut bare = bare_in(&text);
        // One number written bare many times is named once.
        let mut seen = std::collections::HashSet::new();
        bare.retain(|b| seen.insert(b.clone()));
        if !bare.is_empty() {
            let verb = if bare.len() == 1 { "stands" } else { "stand" };
            out.push(finding(
                Check::A21,
                place,
                format!(
                    "{} {verb} bare: give the dispersion beside it (IQR, or min–max, and n): “{}”",
                    bare.join(", "),
                    super::clip(&l.text)
                ),
            ));
        }
    }
}

/// The MEASURED numbers of `text` with no dispersion beside them, quoted.
fn bare_in(text: &str) -> Vec<String> {
    // Each tag closes a remark: from the end of the previous one to the
    // tag's closing parenthesis (or the next tag, or the end).
    let mut tags: Vec<(usize, &str)> =
        numbers::TAGS.iter().flat_map(|t| text.match_indices(t).map(|(i, _)| (i, *t))).collect();
    tags.sort_unstable();
    let mut remarks: Vec<(usize, usize, bool)> = Vec::new();
    let mut from = 0;
    for (k, (at, tag)) in tags.iter().enumerate() {
        if *at < from {
            continue;
        }
        let next = tags.get(k + 1).map_or(text.len(), |(i, _)| *i);
        let end = text[*at..next].find(')').map_or(next, |i| at + i + 1);
        remarks.push((from, end, *tag == "MEASURED"));
        from = end;
    }
    // Where each number stands: they are found in order.
    let mut placed = Vec::new();
    let mut cursor = 0;
    for n in numbers::numbers(text) {
        let Some(i) = text[cursor..].find(&n.text) else { continue };
        cursor += i + n.text.len();
        placed.push((cursor - n.text.len(), n));
    }
    let result = |n: &numbers::Number| {
        n.needs_tag()
            && n.unit.as_deref().is_some_and(|u| !RATIOS.contains(&u))
            && !DISPERSION_LABELS.contains(&n.label.as_str())
    };
    let mut bare = Vec::new();
    for (start, end, _) in remarks.into_iter().filter(|(_, _, measured)| *measured) {
        // The words beside the remark: up to the next result after it.
        let beside = placed.iter().find(|(at, n)| *at >= end && result(n)).map_or(text.len(), |(at, _)| *at);
        let lower = text[start..beside].to_lowercase();
        if DISPERSION.iter().any(|w| phrase_at(&lower, w).is_some()) {
            continue;
        }
        bare.extend(
            placed
                .iter()
                .filter(|(at, n)| (start..end).contains(at) && result(n))
                .map(|(_, n)| format!("“{} {}”", n.text, n.unit.as_deref().unwrap_or_default())),
        );
    }
    bare
}

/// C.11: a `Confirmed?` cell says `confirmed` (a primary source says so) or
/// `inferred`; a row a person wrote leaves none empty or hedged.
fn confirmed(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let mut column: Option<usize> = None;
    for l in lines {
        let Some(cells) = &l.cells else {
            column = None;
            continue;
        };
        if let Some(i) = cells.iter().position(|c| matches!(c.trim().trim_matches('*'), "Confirmed?" | "Confirmed")) {
            column = Some(i);
            continue;
        }
        let Some(i) = column else { continue };
        // A row written in its first cell alone answers the template's
        // prompt row (`vernier write` writes there): its other cells are
        // the template's, not a table the student filled.
        if stated(l).is_none() || cells.iter().skip(1).all(|c| c.trim().is_empty()) {
            continue;
        }
        let cell = cells.get(i).map(|c| c.trim()).unwrap_or("");
        let lower = cell.to_lowercase();
        // One of the two, not both left standing ("confirmed / inferred").
        let both = words(&lower).any(|w| w == "confirmed") && words(&lower).any(|w| w == "inferred");
        if both || !words(&lower).next().is_some_and(|w| w == "confirmed" || w == "inferred") {
            out.push(finding(
                Check::A21,
                at(document, l),
                format!(
                    "the Confirmed? cell of “{}” reads “{cell}”: write confirmed (a primary source says so) or inferred",
                    cells.first().map(|c| c.trim()).unwrap_or("")
                ),
            ));
        }
    }
}

/// A memory's data rate, as a person writes it.
const RATES: [&str; 2] = ["MT/s", "GT/s"];

/// Words of a line whose GB/s is not the memory's (C.11.3 asks for the
/// memory's): storage and radios have their own figures.
const NOT_MEMORY: [&str; 9] = ["storage", "ufs", "ssd", "nvme", "disk", "flash", "wi-fi", "wifi", "network"];

/// Units of a bandwidth.
const BANDWIDTH_UNITS: [&str; 6] = ["GB/s", "MB/s", "GiB/s", "MiB/s", "TB/s", "bytes/s"];

/// True when `text` shows a multiplication of two numbers (`7500e6 × 16`,
/// `8533 * 8`, `6400 x 8`).
fn shows_product(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars.iter().enumerate().any(|(i, c)| {
        let sign = matches!(c, '×' | '*' | '·') || (*c == 'x' && i > 0 && chars[i - 1] == ' ');
        let digit_before = chars[..i].iter().rev().find(|c| **c != ' ').is_some_and(|c| c.is_alphanumeric());
        let digit_after = chars[i + 1..].iter().find(|c| **c != ' ').is_some_and(char::is_ascii_digit);
        sign && digit_before && digit_after
    })
}

/// C.11: a peak bandwidth is DERIVED with `bytes/s = MT/s × bus bytes`
/// shown: where a person claims one (a figure in GB/s not measured), the
/// document they wrote gives the data rate in MT/s and the multiplication.
/// Vernier's own memory table shows its arithmetic for its parts, not for
/// the student's.
fn bandwidth(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    // Whole lines a person wrote in: a cell of theirs may read as one of
    // Vernier's table ("7500 MT/s") and still be theirs.
    let theirs: Vec<(&Line, &str)> = lines.iter().filter_map(|l| stated(l).map(|t| (l, t))).collect();
    let rate = theirs.iter().any(|(_, t)| RATES.iter().any(|r| t.contains(r)));
    // The product is the bandwidth's: its line gives a transfer rate or a
    // rate in bytes ("Eight cores × 3.2 GHz" is another product, and so is
    // "4 × 16-bit channels = 64-bit bus").
    let product = theirs.iter().any(|(_, t)| {
        let memory = ["MT/s", "GT/s", "B/s", "bytes/s", "e6", "e9"].iter().any(|w| t.contains(w));
        memory && shows_product(t)
    });
    if rate && product {
        return;
    }
    // The claim is in the person's own words: a figure of Vernier's in
    // their line is Vernier's (A20).
    let claim = theirs.iter().find(|(l, t)| {
        let lower = t.to_lowercase();
        !t.contains("MEASURED")
            && !NOT_MEMORY.iter().any(|w| phrase_at(&lower, w).is_some())
            && numbers::numbers(&l.persons_text())
                .iter()
                .any(|n| n.unit.as_deref().is_some_and(|u| BANDWIDTH_UNITS.contains(&u)))
    });
    if let Some((l, _)) = claim {
        out.push(finding(
            Check::A21,
            at(document, l),
            format!(
                "a bandwidth is claimed but “bytes/s = MT/s × bus bytes” is not shown: give the data rate in MT/s, \
                 the bus width in bytes and their product: “{}”",
                super::clip(&l.text)
            ),
        ));
    }
}

/// Words that make an asset data.
const DATA: [&str; 38] = [
    "data",
    "record",
    "records",
    "log",
    "logs",
    "file",
    "files",
    "message",
    "messages",
    "photo",
    "photos",
    "image",
    "images",
    "video",
    "videos",
    "clips",
    "footage",
    "audio",
    "history",
    "contacts",
    "location",
    "password",
    "passwords",
    "pin",
    "notes",
    "database",
    "backup",
    "backups",
    "email",
    "emails",
    "scans",
    "recordings",
    "documents",
    "calendar",
    "information",
    "numbers",
    "readings",
    "telemetry",
];

/// Words that make an asset something other than data: what the device
/// can do or be, the course's "a capability, an identity, or a credential
/// that lets the holder act as the device", and what is at stake beyond
/// the bytes.
const NOT_DATA: [&str; 20] = [
    "not data",
    "capability",
    "identity",
    "credential",
    "token",
    "ability",
    "availability",
    "integrity",
    "access to",
    "control of",
    "battery",
    "safety",
    "uptime",
    "reputation",
    "itself",
    "act as",
    "money",
    "takings",
    "funds",
    "firmware",
];

/// Things in hand, which are not data when no data word names them: "the
/// package", "the encoder station".
const THINGS: [&str; 10] =
    ["device", "phone", "unit", "package", "station", "hardware", "vehicle", "door", "lock", "key"];

/// True when an asset, as named, is not data.
fn not_data(asset: &str) -> bool {
    let lower = asset.to_lowercase();
    let data = words(&lower).any(|w| DATA.contains(&w));
    // "scans of identity documents" is data, whatever else it names.
    lower.contains("not data")
        || (!data && (NOT_DATA.iter().any(|w| lower.contains(w)) || words(&lower).any(|w| THINGS.contains(&w))))
}

/// Words that give an adversary the device in hand: possession named, or a
/// verb of taking or holding it.
const PHYSICAL: [&str; 23] = [
    "physical",
    "possession",
    "possesses",
    "thief",
    "thieves",
    "stolen",
    "steal",
    "pickpocket",
    "in hand",
    "hands on",
    "in their hand",
    "finder",
    "lost",
    "seize",
    "confiscat",
    "border",
    "customs",
    "repair",
    "evil maid",
    "borrow",
    "picks up",
    "unattended",
    "walks off",
];

/// Verbs of taking, finding or holding: possession when what is held is
/// a thing ("handles the pump", "catches a landed drone").
const HOLDING: [&str; 12] = [
    "takes", "handles", "holds", "catches", "grabs", "carries", "pockets", "keeps", "snatches", "picks", "has", "finds",
];

/// What a verb of holding may hold that is not the device in hand: "holds
/// the signing key", "takes over the account", "finds a bug", "has access".
const NOT_IN_HAND: [&str; 16] = [
    "key",
    "keys",
    "account",
    "accounts",
    "credential",
    "credentials",
    "password",
    "token",
    "bug",
    "bugs",
    "over",
    "access",
    "permission",
    "session",
    "certificate",
    "data",
];

/// True when an adversary, as named, has the device in hand: possession
/// named, or a verb of holding whose object is a thing.
fn physical(adversary: &str) -> bool {
    let lower = adversary.to_lowercase();
    let words: Vec<&str> = words(&lower).collect();
    PHYSICAL.iter().any(|w| lower.contains(w))
        || words.iter().enumerate().any(|(i, w)| {
            let object: Vec<&&str> = words[i + 1..].iter().take(4).collect();
            HOLDING.contains(w)
                && !object.is_empty()
                && !object.iter().any(|o| NOT_IN_HAND.contains(o) || DATA.contains(o))
        })
}

/// A list written in a field: its items, split at commas, semicolons and
/// numbering ("(1) a thief (2) an app", "1) … 2) …") and at "and"/"or"
/// ("hackers and thieves" is two, "photos, contacts and messages" three) —
/// but not inside a clause ("a pickpocket who steals the phone and reads
/// the SIM" is one).
fn items(value: &str) -> Vec<String> {
    let mut numbered = String::new();
    let chars: Vec<char> = value.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        // A number closed by ")" opens an item: the item breaks before it.
        let opens = c.is_ascii_digit()
            && (i == 0 || !chars[i - 1].is_ascii_digit())
            && chars[i..].iter().find(|c| !c.is_ascii_digit()) == Some(&')');
        if opens {
            numbered.push(';');
        }
        numbered.push(*c);
    }
    let numbered = numbered.replace(";(", ";").replace("(;", ";");
    // A comma inside brackets separates no items: "the device key (a
    // credential, not data)" is one.
    let mut depth = 0i32;
    let numbered: String = numbered
        .chars()
        .map(|c| {
            depth += match c {
                '(' | '[' => 1,
                ')' | ']' => -1,
                _ => 0,
            };
            if depth > 0 && c == ',' { '\u{1f}' } else { c }
        })
        .collect();
    let parts: Vec<String> = numbered
        .split([',', ';'])
        .map(|s| s.replace('\u{1f}', ","))
        .map(|s| s.trim().trim_start_matches(|c: char| c.is_ascii_digit() || c == ')').trim().to_owned())
        .flat_map(|item| {
            let clause = [" who ", " that ", " which ", " whose ", " with "].iter().any(|w| item.contains(w));
            if clause {
                vec![item]
            } else {
                item.split(" and ").flat_map(|s| s.split(" or ")).map(|s| s.trim().to_owned()).collect()
            }
        })
        .collect();
    parts
        .into_iter()
        .map(|s| {
            let s = s.strip_prefix("and ").or_else(|| s.strip_prefix("or ")).unwrap_or(&s);
            s.trim_end_matches('.').trim().to_owned()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// C.11.5, C.12: three or more adversaries, one with physical possession;
/// five or more assets, one not data; a one-sentence verdict. A list is
/// read from its header field or its section's table, whichever names
/// more; one still holding its prompt in both is A16's.
fn threat_model(document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let listed = |label: &str, table: &str| -> Option<(&Line, Vec<String>)> {
        let from_field = field(lines, label);
        let (heading, body) = section(lines, table).unzip();
        let rows: Vec<(&Line, String)> = body
            .unwrap_or_default()
            .into_iter()
            .filter(|l| l.cells.is_some())
            .skip(1)
            .filter_map(|l| stated(l).map(|t| (l, t.to_owned())))
            .collect();
        let place = from_field.as_ref().map(|(l, _)| *l).or(rows.first().map(|(l, _)| *l)).or(heading)?;
        let from_field = from_field.map(|(_, v)| items(&v)).unwrap_or_default();
        if from_field.is_empty() && rows.is_empty() {
            return None;
        }
        let from_table = rows.into_iter().map(|(_, t)| t).collect::<Vec<_>>();
        Some((place, if from_table.len() > from_field.len() { from_table } else { from_field }))
    };
    let say =
        |l: &Line, message: String, out: &mut Vec<Finding>| out.push(finding(Check::A21, at(document, l), message));
    if let Some((l, adversaries)) = listed("Adversaries modeled:", "adversaries") {
        if adversaries.len() < 3 {
            let n = adversaries.len();
            say(l, format!("{n} adversar{} named; the threat model names three or more", plural(n)), out);
        }
        if !adversaries.iter().any(|a| physical(a)) {
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
        // A table row is named by its first cell, and may say "not data" in it.
        if !assets.iter().any(|a| not_data(a.split(" | ").next().unwrap_or(a))) {
            say(
                l,
                "every asset is data: name one that is not (a capability, the device's identity, its availability, \
                 the user's safety)"
                    .into(),
                out,
            );
        }
    }
    if let Some((l, verdict)) = field(lines, "Verdict:") {
        // A sentence ends at a stop followed by a space and a capital, so
        // "3.4" and "e.g. the" end none.
        let chars: Vec<char> = verdict.trim_end().chars().collect();
        // Nor does an initial's ("U.S. Customs", "J. Smith").
        let initial = |i: usize| i >= 1 && chars[i - 1].is_uppercase() && (i == 1 || !chars[i - 2].is_alphanumeric());
        // Nor does a title's or an abbreviation's ("Dr. Okafor", "e.g. The").
        let abbreviation = |i: usize| {
            let upto: String = chars[..=i].iter().collect::<String>().to_lowercase();
            closes_abbreviation(&upto, upto.len() - 1)
        };
        let sentences = 1
            + (0..chars.len().saturating_sub(2))
                .filter(|&i| {
                    matches!(chars[i], '.' | '?' | '!')
                        && chars[i + 1] == ' '
                        && chars[i + 2].is_uppercase()
                        && !initial(i)
                        && !abbreviation(i)
                })
                .count();
        if sentences > 1 {
            say(l, format!("the verdict is {sentences} sentences; give the decision-maker one"), out);
        }
    }
}

/// "ies are" or "y is", for a count of adversaries.
fn plural(n: usize) -> &'static str {
    if n == 1 { "y is" } else { "ies are" }
}

#[cfg(test)]
mod tests {
    use super::super::forms_of_text;
    use super::*;

    /// The A21 findings of `text` as `document`, each as its line and message.
    fn a21(document: Document, text: &str) -> Vec<(usize, String)> {
        forms_of_text(document, text)
            .into_iter()
            .filter(|f| f.check == Check::A21)
            .map(|f| match f.place {
                Place::Document { line, .. } => (line, f.message),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    // SPEC A21 (C.10): the flattering choice's sentence filled — the
    // headline restated under the reversal and whether the conclusion
    // survives — not left with the form's blanks or half said.
    #[test]
    fn the_flattering_sentence_is_filled() {
        let report =
            |sentence: &str| a21(Document::Report, &format!("# 7. Limitations, and the flattering choice\n{sentence}"));
        assert!(
            report(
                "The choice that most helps me is -O2; reversed, my headline becomes 1.9×, and my conclusion survives."
            )
            .is_empty()
        );
        assert!(report("At -O3 the ratio falls to 1.9×: the direction survives, the magnitude does not.").is_empty());
        let blank = report("Reversed, my headline becomes ⟨Z⟩, and my conclusion ⟨does / does not⟩ survive.");
        assert!(blank.len() == 1 && blank[0].1.contains("a blank of the form"), "{blank:?}");
        let letters = report("The choice is X; it was defensible because Y; reversed, my headline becomes Z.");
        assert!(letters.len() == 1 && letters[0].1.contains("a blank of the form"), "{letters:?}");
        let unsaid = report("The choice that flatters me is the median; it was fair.");
        assert!(unsaid.len() == 1 && unsaid[0].1.contains("what the headline becomes"), "{unsaid:?}");
        let half = report("Reversed, every point would carry the setup cost.");
        assert!(half.len() == 1 && half[0].1.contains("whether the conclusion survives"), "{half:?}");
        assert_eq!(half[0].0, 2, "the finding points at the sentence");
    }

    // SPEC A21, A16: a flattering choice still holding its prompt is A16's
    // and A13's, not A21's.
    #[test]
    fn an_unwritten_form_is_not_a21s() {
        let text = format!("# 7. Limitations, and the flattering choice\n{PROMPT_MARK} the choice that most helps");
        assert!(a21(Document::Report, &text).is_empty());
        let text = format!("**Confidence:** {PROMPT_MARK} confidence high, medium or low");
        assert!(a21(Document::Report, &text).is_empty());
        let text = format!("**Adversaries modeled:** {PROMPT_MARK} three or more adversaries");
        assert!(a21(Document::ThreatModel, &text).is_empty());
    }

    // SPEC A21 (C.11.1): Confidence is one of high, medium or low, opening
    // its line; a hedge between two, or another word, is a finding.
    #[test]
    fn confidence_is_one_of_three() {
        let confidence = |value: &str| a21(Document::Report, &format!("**Confidence:** {value}"));
        for good in ["medium — one machine only.", "High. Two soaks agree.", "Low: a shared host."] {
            assert!(confidence(good).is_empty(), "{good}");
        }
        for bad in ["medium-high, tight IQRs", "medium to high", "fairly high", "80%", "good"] {
            assert_eq!(confidence(bad).len(), 1, "{bad}");
        }
    }

    // SPEC A21 (C.12): the conclusion names its metric, before its finding,
    // in its first sentence; without a heading, a "Conclusion:" paragraph.
    #[test]
    fn the_conclusion_names_its_metric_first() {
        let conclusion = |text: &str| a21(Document::Report, &format!("## 9. Conclusion\n{text}"));
        assert!(
            conclusion("Median wall time is the metric; ikj is faster, and an L1-sized matrix would reverse it.")
                .is_empty()
        );
        let first = conclusion("ikj is faster in median wall time.");
        assert!(first.len() == 1 && first[0].1.contains("finding before its metric"), "{first:?}");
        let none = a21(Document::Report, "Conclusion: memory is the bottleneck.");
        assert!(none.len() == 1 && none[0].1.contains("names no metric"), "{none:?}");
    }

    // SPEC A21 (C.12): a MEASURED number in prose carries its dispersion
    // there; a DERIVED ratio, a table row and an untagged number (A7's) are
    // not A21's.
    #[test]
    fn a_measured_number_in_prose_carries_its_dispersion() {
        let prose = |text: &str| a21(Document::Report, text);
        let bare = prose("The ikj order took 12.4 ms (MEASURED).");
        assert!(bare.len() == 1 && bare[0].1.contains("“12.4 ms” stands bare"), "{bare:?}");
        assert!(prose("The ikj order took 12.4 ms (MEASURED, IQR 0.3 ms, n = 31).").is_empty());
        assert!(prose("The chase costs 24× the walk (DERIVED).").is_empty());
        assert!(prose("| ikj | 12.4 ms | MEASURED |").is_empty());
        assert!(prose("The ikj order took 12.4 ms.").is_empty(), "untagged: A7's");
        let placement =
            a21(Document::PlacementDecision, "I timed it: 48.3 ms per image (MEASURED), against 48.0 ms (MODELED).");
        assert_eq!(placement.len(), 1, "{placement:?}");
    }

    // SPEC A21 (C.11.3): a Confirmed? cell is confirmed or inferred; a row
    // answered in its first cell only (as `vernier write` answers the
    // template's row) is the prompt's answer, not a row of the table.
    #[test]
    fn confirmed_is_confirmed_or_inferred() {
        let table = |cell: &str| {
            a21(
                Document::SocReview,
                &format!(
                    "| Block | For | Confirmed? | Source |\n|---|---|---|---|\n| NPU | tensors | {cell} | vendor |"
                ),
            )
        };
        assert!(table("confirmed").is_empty() && table("Inferred").is_empty());
        for bad in ["yes", "probably", "✓", "", "not confirmed"] {
            assert_eq!(table(bad).len(), 1, "{bad:?}");
        }
        let answered = "| Block | For | Confirmed? | Source |\n| CPU, GPU and NPU, all confirmed | | | |";
        assert!(a21(Document::SocReview, answered).is_empty());
    }

    // SPEC A21 (C.11.3): a bandwidth claimed shows bytes/s = MT/s × bus
    // bytes; a measured bandwidth is not a peak to derive.
    #[test]
    fn a_bandwidth_shows_its_arithmetic() {
        let soc = |text: &str| a21(Document::SocReview, text);
        let claimed = soc("The part reaches 77 GB/s (CITED, vendor page).");
        assert!(claimed.len() == 1 && claimed[0].1.contains("MT/s × bus bytes"), "{claimed:?}");
        assert!(soc("| Data rate | 7500 MT/s |\n| Peak | 120 GB/s | 7500e6 × 16 = 120e9 bytes/s |").is_empty());
        assert_eq!(soc("It runs 6400 MT/s and reaches 51.2 GB/s (CITED).").len(), 1, "no product shown");
        let other = "Eight cores × 3.2 GHz (CITED).\nIt runs 6400 MT/s and reaches 51.2 GB/s (CITED).";
        assert_eq!(soc(other).len(), 1, "a product, but not the bandwidth's");
        assert!(soc("6400 MT/s on a 64-bit bus: 6400 × 8 = 51 200 MB/s (DERIVED).").is_empty());
        assert!(soc("My copy loop moved 18.2 GB/s (MEASURED, IQR 0.4 GB/s).").is_empty());
    }

    // SPEC A21 (C.11.5): three adversaries, one with the device in hand;
    // five assets, one not data; a one-sentence verdict — from the header
    // fields or the sections' tables, whichever names more.
    #[test]
    fn the_threat_model_keeps_its_counts() {
        let model = |adversaries: &str, assets: &str, verdict: &str| {
            let text = format!("**Adversaries modeled:** {adversaries}\n**Assets:** {assets}\n**Verdict:** {verdict}");
            a21(Document::ThreatModel, &text).into_iter().map(|(_, m)| m).collect::<Vec<_>>()
        };
        let adversaries = "a thief with the unit, a malicious app, a network eavesdropper";
        let assets = "the fleet credential (a capability), scan history, staff rota, the unit's identity, sync logs";
        assert!(model(adversaries, assets, "Ship it once revocation takes minutes.").is_empty());
        assert!(model("(1) a thief (2) a rogue app (3) an attacker on Wi-Fi", assets, "Ship it.").is_empty());
        assert!(model("1) a thief 2) a rogue app 3) an attacker on Wi-Fi", assets, "Ship it.").is_empty());
        let two = model("hackers and thieves", assets, "Ship it.");
        assert!(two.len() == 1 && two[0].contains("2 adversaries are named"), "{two:?}");
        let remote = model("a remote attacker, a malicious app, a network eavesdropper", assets, "Ship it.");
        assert!(remote.len() == 1 && remote[0].contains("device in hand"), "{remote:?}");
        let four = model(adversaries, "photos, the phone's identity, contacts, messages", "Ship it.");
        assert!(four.len() == 1 && four[0].contains("4 assets are named"), "{four:?}");
        let data = model(adversaries, "photos, contacts, messages, location history, video clips", "Ship it.");
        assert!(data.len() == 1 && data[0].contains("every asset is data"), "{data:?}");
        let verdict = model(adversaries, assets, "It is fine. Spoofing worries me. Add a sensor.");
        assert!(verdict.len() == 1 && verdict[0].contains("3 sentences"), "{verdict:?}");
        assert!(model(adversaries, assets, "Fit for use at 3.4 m, e.g. in a shop.").is_empty(), "one sentence");
        let tables = "**Adversaries modeled:** see section 3\n## 3. Adversaries\n| Adversary | Capabilities |\n\
                      | A thief | physical possession |\n| A guest | rewrites a card |\n| Staff | the encoder |";
        assert!(a21(Document::ThreatModel, tables).is_empty(), "three rows, one with possession");
    }

    // SPEC A21: what a second fresh reader's cases showed — each a wording
    // a word list read wrong until it was read for what it says.
    #[test]
    fn second_readers_wordings_are_read_as_meant() {
        let forms =
            |document: Document, text: &str| a21(document, text).into_iter().map(|(_, m)| m).collect::<Vec<_>>();
        let confidence = |answer: &str| forms(Document::Report, &format!("**Confidence:** {answer}"));
        assert_eq!(confidence("High confidence in the direction, low in its size.").len(), 1, "two levels");
        assert!(confidence("Low, not high: the host is shared.").is_empty(), "a level denied is no second level");
        assert!(confidence("High — low noise floor, and two sessions agree.").is_empty(), "a reason");

        let flattering = |sentence: &str| {
            forms(Document::Report, &format!("# 7. Limitations, and the flattering choice\n{sentence}"))
        };
        let no_reversal = "The choice that helps most is pinning to the big cores; it was defensible because the \
                           scheduler would otherwise move the thread, and pinning holds placement fixed.";
        assert_eq!(flattering(no_reversal).len(), 1, "'would' and 'holds' say nothing of the reversal");
        let kept = "The choice that helps most is -O2; reversed, at -O3 my headline becomes a 1.9× gap instead of \
                    3.4×, so my conclusion keeps its direction but not its size.";
        assert!(flattering(kept).is_empty(), "{:?}", flattering(kept));

        let conclusion = |first: &str| forms(Document::Report, &format!("## 9. Conclusion\n{first}"));
        assert_eq!(conclusion("ikj is three times quicker than ijk in median wall time per multiply.").len(), 1);
        assert!(conclusion("Measured as time to first token, the NPU beats the GPU at batch 1.").is_empty());

        let soc = |lines: &str| forms(Document::SocReview, lines);
        let gt =
            "| Memory | LPDDR5 | 6.4 GT/s |\n| Peak bandwidth | 51.2 GB/s (DERIVED) | 6.4e9 × 8 = 51.2e9 bytes/s |";
        assert!(soc(gt).is_empty(), "a rate in GT/s: {:?}", soc(gt));
        let width = "| Data rate | 8533 MT/s |\n| Width | 4 × 16-bit channels = 64-bit bus (8 bytes) |\n\
                     | Peak bandwidth | 77 GB/s (CITED, keynote) |";
        assert_eq!(soc(width).len(), 1, "the bus width's product is not the bandwidth's: {:?}", soc(width));
        assert!(soc("UFS 4.0 storage reads up to 4.2 GB/s (CITED, storage brief).").is_empty(), "not memory");
        let both = "| Block | What it is for | Confirmed? | Source |\n| NPU | inference | inferred/confirmed | slide |";
        assert_eq!(soc(both).len(), 1, "both choices left: {:?}", soc(both));

        let assets = "the unit's identity, photos, contacts, messages, sync logs";
        let model = |adversaries: &str, assets: &str, verdict: &str| {
            forms(
                Document::ThreatModel,
                &format!("**Adversaries modeled:** {adversaries}\n**Assets:** {assets}\n**Verdict:** {verdict}"),
            )
        };
        let keyholder = "a rogue insider who holds the firmware signing key, a malicious app, a network attacker";
        assert_eq!(model(keyholder, assets, "Ship it.").len(), 1, "a key held is not the device in hand");
        let pump = "a visitor who handles the pump at the bedside, a compromised host, a careless technician";
        assert!(model(pump, assets, "Ship it.").is_empty(), "the pump in hand");
        let two =
            model("a thief who keeps the phone, a malicious app with camera and microphone access", assets, "Ship it.");
        assert!(two.len() == 1 && two[0].contains("2 adversaries"), "{two:?}");
        let scans = "scans of identity documents, photos, messages, contacts, browsing history";
        assert_eq!(
            model(keyholder.replace("holds the firmware signing key", "steals it").as_str(), scans, "Ship it.").len(),
            1
        );
        assert!(model(pump, assets, "Approve it on Dr. Okafor's ward once lost units can be revoked.").is_empty());
        let bracketed = "patient records, photos, messages, and the device key (a credential, not data)";
        let four = model(pump, bracketed, "Ship it.");
        assert!(four.len() == 1 && four[0].contains("4 assets"), "a comma in brackets: {four:?}");
    }
}
