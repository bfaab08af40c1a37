//! The numbers of a report's prose, read the way the course reads them
//! (A7, A8). The rule, also in the README:
//!
//! - A number is a *result* and needs a tag — MEASURED, DERIVED, CITED or
//!   MODELED — in its own clause (the stretch of a sentence up to a `;` or
//!   the sentence's end). A tag elsewhere on the line covers nothing else. A
//!   table row is covered by a tag anywhere in the row.
//! - These are not results and need no tag: a reference (`Chapter 3`,
//!   `section 4.2`, `C.8.4`, `run 3`, `runs 1–2`, `soak S1`, `P2`); a date
//!   or a time of day (`2026-11-30`, `06:05`); a count of repetitions
//!   (`n=31`, `warm-up 3`, `31 repetitions`, `5 pairs`, `after 3 discarded`);
//!   a setting (`N=512`, `SIZE over 16 KiB … 64 MiB`); part of a name or
//!   flag (`x86_64`, `-O2`, `g++-12`); an ordinal (`3rd`); anything inside
//!   backticks (a command) or a URL; a list's own numbering (`1.` at the
//!   start). A list continues what it starts: in `runs 1, 2 and 3` all three
//!   are references.

/// The tags of A7.
pub(super) const TAGS: [&str; 4] = ["MEASURED", "DERIVED", "CITED", "MODELED"];

/// Words after which a number names something rather than measuring it.
const REFERENCES: [&str; 38] = [
    "chapter",
    "chapters",
    "ch",
    "section",
    "sections",
    "sec",
    "appendix",
    "table",
    "tables",
    "figure",
    "figures",
    "fig",
    "question",
    "questions",
    "part",
    "step",
    "steps",
    "page",
    "pages",
    "p",
    "pp",
    "tier",
    "equation",
    "eq",
    "item",
    "rule",
    "issue",
    "run",
    "runs",
    "row",
    "rows",
    "line",
    "soak",
    "prediction",
    "sweep",
    "comparison",
    "project",
    "lab",
];

/// Words before a number that count repetitions.
const COUNTS_BEFORE: [&str; 3] = ["n", "warm-up", "warmup"];

/// Words after a number that say it counts repetitions.
const COUNTS_AFTER: [&str; 16] = [
    "repetitions",
    "repetition",
    "trials",
    "trial",
    "runs",
    "pairs",
    "samples",
    "processes",
    "rounds",
    "values",
    "points",
    "iterations",
    "discarded",
    "warm-up",
    "times",
    "cores",
];

/// Words that carry a list on: `runs 1, 2 and 3`.
const LIST_WORDS: [&str; 4] = ["and", "or", "to", "vs"];

/// One number written in a line.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Number {
    /// As written, e.g. `12.50`.
    pub text: String,
    /// Its value.
    pub value: f64,
    /// Digits after the decimal point.
    pub decimals: usize,
    /// The unit written right after it (`ms`, `chunks/s`, `%`), if any.
    pub unit: Option<String>,
    /// False for a reference, date, count, setting or name (see the module).
    pub needs_tag: bool,
    /// Whether a tag stands in its own clause.
    pub tagged: bool,
}

/// Every number in `text`, with whether it needs a tag and has one.
pub(super) fn numbers(text: &str) -> Vec<Number> {
    let chars: Vec<char> = text.chars().collect();
    let masked = masked(&chars);
    let clauses = clauses(&chars);
    let mut out: Vec<Number> = Vec::new();
    let mut i = 0;
    let mut previous_end: Option<(usize, bool)> = None;
    while i < chars.len() {
        if masked[i] || !chars[i].is_ascii_digit() || (i > 0 && (chars[i - 1].is_ascii_digit() || chars[i - 1] == '.'))
        {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || (chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
                || (chars[i] == ','
                    && chars.get(i + 1..i + 4).is_some_and(|d| d.iter().all(char::is_ascii_digit))
                    && !chars.get(i + 4).is_some_and(char::is_ascii_digit)))
        {
            i += 1;
        }
        let written: String = chars[start..i].iter().collect();
        let plain = written.replace(',', "");
        let Ok(value) = plain.parse::<f64>() else { continue };
        let decimals = plain.split_once('.').map_or(0, |(_, d)| d.len());
        let before = word_before(&chars, start);
        let after = word_after(&chars, i);
        // A list carries on what it started: "runs 1, 2 and 3".
        let continues = previous_end.is_some_and(|(end, exempt)| {
            exempt && {
                let gap: String = chars[end..start].iter().collect();
                let gap = gap.trim();
                gap.is_empty()
                    || gap.chars().all(|c| matches!(c, ',' | '+' | '–' | '-' | '…' | '/' | '×' | ' '))
                    || LIST_WORDS.contains(&gap.trim_matches(|c: char| !c.is_alphanumeric()))
            }
        });
        let exempt = continues
            || attached_to_name(&chars, start)
            || ordinal(&chars, i)
            || REFERENCES.contains(&before.as_str())
            || COUNTS_BEFORE.contains(&before.as_str())
            || COUNTS_AFTER.contains(&after.as_str())
            || setting(&chars, start)
            || list_marker(&chars, start, i);
        let clause = clauses.iter().find(|(s, e)| (*s..*e).contains(&start));
        let tagged = clause.is_some_and(|(s, e)| {
            let clause: String = chars[*s..*e].iter().collect();
            TAGS.iter().any(|t| clause.contains(t))
        });
        out.push(Number { text: written, value, decimals, unit: unit_after(&chars, i), needs_tag: !exempt, tagged });
        previous_end = Some((i, exempt));
    }
    out
}

/// What must not be read for numbers: code in backticks, URLs, dates and
/// times of day.
fn masked(chars: &[char]) -> Vec<bool> {
    let mut mask = vec![false; chars.len()];
    let mut in_code = false;
    for (i, c) in chars.iter().enumerate() {
        if *c == '`' {
            in_code = !in_code;
        }
        mask[i] = in_code || *c == '`';
    }
    let text: String = chars.iter().collect();
    // Byte offsets → char offsets for the patterns below.
    let index: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    let char_at = |byte: usize| index.partition_point(|&b| b < byte);
    let mut cover = |from: usize, to: usize| {
        for m in mask.iter_mut().take(to).skip(from) {
            *m = true;
        }
    };
    for scheme in ["http://", "https://"] {
        for (b, _) in text.match_indices(scheme) {
            let end = text[b..].find(char::is_whitespace).map_or(text.len(), |e| b + e);
            cover(char_at(b), char_at(end));
        }
    }
    let digit = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
    for i in 0..chars.len() {
        // YYYY-MM-DD
        if (i..i + 4).all(digit)
            && chars.get(i + 4) == Some(&'-')
            && (i + 5..i + 7).all(digit)
            && chars.get(i + 7) == Some(&'-')
            && (i + 8..i + 10).all(digit)
        {
            cover(i, i + 10);
        }
        // hh:mm, hh:mm:ss
        if digit(i) && (i == 0 || !digit(i - 1)) {
            let h = if digit(i + 1) { i + 2 } else { i + 1 };
            if chars.get(h) == Some(&':') && digit(h + 1) && digit(h + 2) {
                let end = if chars.get(h + 3) == Some(&':') && digit(h + 4) && digit(h + 5) { h + 6 } else { h + 3 };
                cover(i, end);
            }
        }
    }
    mask
}

/// The clauses of a line as `[start, end)` char ranges: split at `;` and at
/// a sentence's end (`.`, `!`, `?` before a space or the end).
fn clauses(chars: &[char]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in chars.iter().enumerate() {
        let end_of_sentence = matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if *c == ';' || end_of_sentence {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    out.push((start, chars.len()));
    out
}

/// The word just before `start` (skipping spaces, `(`, `:` and `=`),
/// lower-cased.
fn word_before(chars: &[char], start: usize) -> String {
    let mut end = start;
    while end > 0 && matches!(chars[end - 1], ' ' | '(' | ':' | '\u{a0}') {
        end -= 1;
    }
    let mut begin = end;
    while begin > 0 && (chars[begin - 1].is_alphabetic() || chars[begin - 1] == '-') {
        begin -= 1;
    }
    chars[begin..end].iter().collect::<String>().to_lowercase()
}

/// The word just after `end` (skipping spaces), lower-cased.
fn word_after(chars: &[char], end: usize) -> String {
    let mut begin = end;
    while begin < chars.len() && matches!(chars[begin], ' ' | '\u{a0}') {
        begin += 1;
    }
    let mut stop = begin;
    while stop < chars.len() && (chars[stop].is_alphabetic() || chars[stop] == '-') {
        stop += 1;
    }
    chars[begin..stop].iter().collect::<String>().to_lowercase()
}

/// The unit written right after a number (`12.5 ms`, `12.5ms`, `40%`).
fn unit_after(chars: &[char], end: usize) -> Option<String> {
    let begin = if chars.get(end) == Some(&' ') { end + 1 } else { end };
    let mut stop = begin;
    while stop < chars.len() && (chars[stop].is_alphanumeric() || matches!(chars[stop], 'µ' | '/' | '%' | '°')) {
        stop += 1;
    }
    let unit: String = chars[begin..stop].iter().collect::<String>().trim_end_matches('/').to_owned();
    (!unit.is_empty() && !unit.starts_with(|c: char| c.is_ascii_digit())).then_some(unit)
}

/// A digit that continues a name or flag: `S1`, `x86`, `C.8`, `-O2`,
/// `utf-8`, `#3`, `§4`.
fn attached_to_name(chars: &[char], start: usize) -> bool {
    let Some(&p) = start.checked_sub(1).and_then(|i| chars.get(i)) else { return false };
    let before = start.checked_sub(2).and_then(|i| chars.get(i)).copied();
    p.is_alphabetic()
        || matches!(p, '_' | '#' | '§')
        || (matches!(p, '.' | '-') && before.is_some_and(|b| b.is_alphabetic() || b == '+'))
}

/// `1st`, `2nd`, `3rd`, `4th`.
fn ordinal(chars: &[char], end: usize) -> bool {
    let suffix: String = chars.iter().skip(end).take(2).collect::<String>().to_lowercase();
    ["st", "nd", "rd", "th"].contains(&suffix.as_str()) && !chars.get(end + 2).is_some_and(|c| c.is_alphabetic())
}

/// A value set rather than measured: `N=512`, `n = 31`, `SIZE over 16 KiB`.
fn setting(chars: &[char], start: usize) -> bool {
    let mut i = start;
    while i > 0 && chars[i - 1] == ' ' {
        i -= 1;
    }
    if i > 0 && chars[i - 1] == '=' {
        let mut j = i - 1;
        while j > 0 && chars[j - 1] == ' ' {
            j -= 1;
        }
        return j > 0 && (chars[j - 1].is_alphanumeric() || chars[j - 1] == '_');
    }
    // "NAME over V": a sweep's parameter and its values.
    let before: String = chars[..i].iter().collect();
    before.strip_suffix("over").is_some_and(|rest| {
        let name = rest.trim_end().rsplit(' ').next().unwrap_or("");
        !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    })
}

/// `1.` or `2)` opening a line: its list numbering.
fn list_marker(chars: &[char], start: usize, end: usize) -> bool {
    chars[..start].iter().all(|c| c.is_whitespace())
        && matches!(chars.get(end), Some('.' | ')'))
        && chars.get(end + 1).is_none_or(|c| c.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn untagged(text: &str) -> Vec<String> {
        numbers(text).into_iter().filter(|n| n.needs_tag && !n.tagged).map(|n| n.text).collect()
    }

    // SPEC A7: a tag covers its own clause only, and names the number it misses.
    #[test]
    fn a_tag_covers_its_own_clause() {
        assert_eq!(untagged("Median 12.5 ms (MEASURED); the old build took 40.2 ms."), ["40.2"]);
        assert_eq!(untagged("Median 12.5 ms (MEASURED). Then 7 ms."), ["7"]);
        assert!(untagged("Median 12.5 ms, IQR 0.3 ms, min 12.1 ms (MEASURED).").is_empty());
        assert_eq!(untagged("The blocked kernel is 4.3× faster"), ["4.3"]);
    }

    // SPEC A7: references, dates, counts, settings and names are not results.
    #[test]
    fn references_dates_counts_and_settings_need_no_tag() {
        for text in [
            "As Chapter 3 explains, and section 4.2 and C.8.4 say,",
            "runs 1, 2 and 3 on 2026-11-30 at 06:05",
            "n=31 (warm-up 3), 31 repetitions after 3 discarded, 5 pairs",
            "matmul ikj, N=512, SIZE over 16, 64, 256",
            "built with g++-12 -O2 on x86_64, soak S1, P2, the 3rd try",
            "ran `./mm 512 64` from https://example.org/v2/3",
            "1. The question",
        ] {
            assert!(untagged(text).is_empty(), "{text}: {:?}", untagged(text));
        }
    }

    // SPEC A8: the unit after a number is read with it.
    #[test]
    fn units_are_read_with_their_number() {
        let n = numbers("it took 10.873 ms, then 40% and 3 chunks/s.");
        let units: Vec<_> = n.iter().map(|n| (n.text.as_str(), n.unit.as_deref(), n.decimals)).collect();
        assert_eq!(units, [("10.873", Some("ms"), 3), ("40", Some("%"), 0), ("3", Some("chunks/s"), 0)]);
    }
}
