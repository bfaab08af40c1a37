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

/// Words before a number that count repetitions or set the experiment up
/// (`tile 64`, `size 128`).
const COUNTS_BEFORE: [&str; 9] = ["n", "warm-up", "warmup", "tile", "size", "stride", "threads", "workers", "level"];

/// Words after a number that say it counts repetitions.
const COUNTS_AFTER: [&str; 17] = [
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
    "threads",
    "workers",
    "cores",
];

/// Units that make a number a quantity (with any unit holding `/`, `%` or
/// `×`): such a number needs its tag even after a reference word or in a
/// list (`in run 1, 2.66 ms`).
const QUANTITY_UNITS: [&str; 42] = [
    "s",
    "ms",
    "µs",
    "us",
    "ns",
    "ps",
    "sec",
    "secs",
    "second",
    "seconds",
    "min",
    "minutes",
    "h",
    "hours",
    "hz",
    "khz",
    "mhz",
    "ghz",
    "w",
    "mw",
    "µw",
    "kw",
    "j",
    "mj",
    "kj",
    "µj",
    "v",
    "mv",
    "b",
    "kb",
    "mb",
    "gb",
    "tb",
    "kib",
    "mib",
    "gib",
    "tib",
    "x",
    "°c",
    "c",
    "cycles",
    "instructions",
];

/// Abbreviations whose full stop does not end a sentence.
const ABBREVIATIONS: [&str; 14] =
    ["vs", "e.g", "i.e", "eg", "ie", "fig", "figs", "sec", "ch", "eq", "cf", "approx", "no", "pp"];

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
    /// The word written right after it (`ms`, `chunks/s`, `%`), if any.
    pub unit: Option<String>,
    /// True when that word is a unit of a quantity (see [`QUANTITY_UNITS`]).
    pub quantity: bool,
    /// False for a reference, date, count, setting or name (see the module).
    pub needs_tag: bool,
    /// Whether a tag stands in its own clause.
    pub tagged: bool,
    /// Whether its clause says it comes from elsewhere (CITED, MODELED):
    /// then it is no run's median, whatever its value (A8).
    pub elsewhere: bool,
}

/// Every number in `text`, with whether it needs a tag and has one. Linear
/// in the text's length: a report line may be a megabyte long.
pub(super) fn numbers(text: &str) -> Vec<Number> {
    let chars: Vec<char> = text.chars().collect();
    let masked = masked(&chars);
    let clauses = clauses(&chars);
    let mut clause = 0;
    let mut out: Vec<Number> = Vec::new();
    let mut i = 0;
    // Where the last number ended, whether it was exempt, and whether it
    // was a setting (whose list carries on even through quantities).
    let mut previous_end: Option<(usize, bool, bool)> = None;
    while i < chars.len() {
        // ".7 ms": a leading full stop after a space is the number's own.
        let leading_dot = chars[i] == '.'
            && chars.get(i + 1).is_some_and(char::is_ascii_digit)
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '.'));
        let starts = leading_dot
            || (chars[i].is_ascii_digit() && (i == 0 || !(chars[i - 1].is_ascii_digit() || chars[i - 1] == '.')));
        if masked[i] || !starts {
            i += 1;
            continue;
        }
        let start = i;
        i += usize::from(leading_dot);
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
        let unit = unit_after(&chars, i);
        let quantity = unit.as_deref().is_some_and(is_quantity);
        // A list carries on what it started: "runs 1, 2 and 3". A number
        // inside the word read as the last one's unit ("8xYz1") is no list.
        let gap_is_list = |end: usize| {
            let Some(gap) = chars.get(end..start) else { return false };
            let gap: String = gap.iter().collect();
            let gap = gap.trim();
            gap.is_empty()
                || gap.chars().all(|c| matches!(c, ',' | '+' | '–' | '-' | '…' | '/' | '×' | ' '))
                || LIST_WORDS.contains(&gap.trim_matches(|c: char| !c.is_alphanumeric()))
        };
        let continues = previous_end.is_some_and(|(end, exempt, _)| exempt && gap_is_list(end));
        // A quantity is a result however it is introduced, unless it is a
        // setting or counts repetitions.
        let reference = !quantity
            && (continues || REFERENCES.contains(&before.as_str()) || COUNTS_BEFORE.contains(&before.as_str()));
        let set =
            setting(&chars, start) || previous_end.is_some_and(|(end, _, was_setting)| was_setting && gap_is_list(end));
        let exempt = reference
            || set
            || attached_to_name(&chars, start)
            || named_by_suffix(&chars, i)
            || dimension(&chars, i)
            || year_in_brackets(&chars, start, i)
            || COUNTS_AFTER.contains(&after.as_str())
            || list_marker(&chars, start, i);
        while clauses.get(clause).is_some_and(|c| c.end <= start) {
            clause += 1;
        }
        let tagged = clauses.get(clause).is_some_and(|c| c.tagged);
        let elsewhere = clauses.get(clause).is_some_and(|c| c.elsewhere);
        // A list's gap is read after the number's unit: "16 KiB … 64 MiB".
        let unit_end = match &unit {
            Some(u) => (i + usize::from(chars.get(i) == Some(&' ')) + u.chars().count()).min(chars.len()),
            None => i,
        };
        out.push(Number { text: written, value, decimals, unit, quantity, needs_tag: !exempt, tagged, elsewhere });
        previous_end = Some((unit_end, exempt, set));
    }
    out
}

/// True for a unit of a quantity: a known one, or one with `/`, `%`, `×`.
fn is_quantity(unit: &str) -> bool {
    let lower = unit.to_lowercase();
    QUANTITY_UNITS.contains(&lower.as_str()) || lower.contains(['/', '%', '×'])
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

/// One clause of a line: where it ends, and whether a tag stands in it.
struct Clause {
    end: usize,
    tagged: bool,
    elsewhere: bool,
}

/// The clauses of a line: split at `;`, a line break, and a sentence's end
/// (`.`, `!`, `?` followed by a space and a capital, a digit or nothing —
/// not after an abbreviation such as "vs." or "Fig.").
fn clauses(chars: &[char]) -> Vec<Clause> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in chars.iter().enumerate() {
        let end = match c {
            ';' | '\n' => true,
            '.' | '!' | '?' => {
                let next = chars[i + 1..].iter().position(|n| !n.is_whitespace()).map(|k| chars[i + 1 + k]);
                let spaced = chars.get(i + 1).is_none_or(|n| n.is_whitespace());
                let abbreviation = *c == '.' && ABBREVIATIONS.contains(&word_ending(chars, i).as_str());
                spaced && !abbreviation && next.is_none_or(|n| !n.is_lowercase())
            }
            _ => false,
        };
        if end {
            out.push(Clause::of(&chars[start..=i], i + 1));
            start = i + 1;
        }
    }
    out.push(Clause::of(&chars[start..], chars.len()));
    out
}

impl Clause {
    fn of(text: &[char], end: usize) -> Self {
        Clause { end, tagged: has_tag(text, &TAGS), elsewhere: has_tag(text, &["CITED", "MODELED"]) }
    }
}

/// One of `tags` as a word of its own, not denied ("NOT MEASURED").
fn has_tag(clause: &[char], tags: &[&str]) -> bool {
    let text: String = clause.iter().collect();
    tags.iter().any(|tag| {
        text.match_indices(tag).any(|(at, _)| {
            let before = text[..at].trim_end();
            let own_word = !text[..at].ends_with(char::is_alphanumeric)
                && !text[at + tag.len()..].starts_with(char::is_alphanumeric);
            own_word && !before.to_lowercase().ends_with("not")
        })
    })
}

/// The word that ends at `end` (exclusive), lower-cased, dots inside kept
/// ("e.g").
fn word_ending(chars: &[char], end: usize) -> String {
    let mut begin = end;
    while begin > 0 && (chars[begin - 1].is_alphabetic() || (chars[begin - 1] == '.' && begin > 1)) {
        begin -= 1;
    }
    chars[begin..end].iter().collect::<String>().trim_start_matches('.').to_lowercase()
}

/// The word just before `start` (skipping spaces, `(`, `:` and the full
/// stop of an abbreviation such as "Fig."), lower-cased.
fn word_before(chars: &[char], start: usize) -> String {
    let mut end = start;
    while end > 0 && matches!(chars[end - 1], ' ' | '(' | ':' | '.' | '\u{a0}') {
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
        || (matches!(p, '.' | '-' | '+') && before.is_some_and(|b| b.is_alphabetic() || b == '+'))
}

/// A number that letters follow directly, not as a unit: a model or part
/// name (`5850U`), an ordinal (`3rd`).
fn named_by_suffix(chars: &[char], end: usize) -> bool {
    let mut stop = end;
    while stop < chars.len() && chars[stop].is_alphabetic() {
        stop += 1;
    }
    let suffix: String = chars[end..stop].iter().collect();
    !suffix.is_empty() && !is_quantity(&suffix)
}

/// One side of a size such as `128×128` or `1920x1080`.
fn dimension(chars: &[char], end: usize) -> bool {
    matches!(chars.get(end), Some('×' | 'x')) && chars.get(end + 1).is_some_and(char::is_ascii_digit)
}

/// A year in brackets, as a citation writes it: `Patterson (2019)`.
fn year_in_brackets(chars: &[char], start: usize, end: usize) -> bool {
    end - start == 4
        && start > 0
        && chars[start - 1] == '('
        && chars.get(end) == Some(&')')
        && chars[start..end].iter().collect::<String>().parse::<u32>().is_ok_and(|y| (1900..=2100).contains(&y))
}

/// A value set rather than measured: `N=512`, `n = 31`, `SIZE over 16 KiB`.
/// The name is a parameter's: capitals (`N`, `SIZE`) or one letter, never a
/// word such as "median".
fn setting(chars: &[char], start: usize) -> bool {
    let mut i = start;
    while i > 0 && chars[i - 1] == ' ' {
        i -= 1;
    }
    let window = &chars[i.saturating_sub(80)..i];
    let text: String = window.iter().collect();
    let parameter = |name: &str| {
        !name.is_empty()
            && (name.chars().count() == 1
                || name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
    };
    if let Some(rest) = text.strip_suffix('=') {
        let name = rest.trim_end().rsplit(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("");
        return parameter(name);
    }
    // "NAME over V": a sweep's parameter and its values.
    text.strip_suffix("over").is_some_and(|rest| parameter(rest.trim_end().rsplit(' ').next().unwrap_or("")))
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

    // SPEC A7: what a reviewer wrote as a student would: results that need
    // their tag, and honest sentences that need none.
    #[test]
    fn sentences_a_student_writes() {
        for (text, want) in [
            ("The blocked kernel is 3.8 times faster, beyond the IQR test.", vec!["3.8"]),
            ("Blocked matmul median = 700 µs", vec!["700"]),
            ("In run 1, 2.66 ms per multiply; in C1, 74% less", vec!["2.66", "74"]),
            ("The naive run 2.66 ms", vec!["2.66"]),
            ("This was NOT MEASURED but estimated at 5 W", vec!["5"]),
            ("took .7 ms", vec![".7"]),
            ("As Fig. 2 shows (see Sec. 4.2 and Ch. 3)", vec![]),
            ("Naive took 2.66 ms vs. blocked 700 µs (both MEASURED)", vec![]),
            ("a Ryzen 5850U with -std=c++17, after Patterson (2019)", vec![]),
            ("128×128 matrices with 4 threads", vec![]),
            ("SIZE over 16 KiB … 64 MiB (7 values)", vec![]),
            ("Median 2.66 ms (MEASURED).\nThe old one took 3 ms.", vec!["3"]),
        ] {
            assert_eq!(untagged(text), want, "{text}");
        }
    }

    // SPEC A7: a number inside the word read as another's unit (a random
    // temporary folder's name) is read without a panic.
    #[test]
    fn a_number_inside_a_unit_word_is_read() {
        let found = numbers("sh /tmp/.tmp8xYz1Q/work.sh and 3 ab5c");
        assert_eq!(found.iter().map(|n| n.text.as_str()).collect::<Vec<_>>(), ["8", "1", "3", "5"]);
    }

    // SPEC A8: the unit after a number is read with it.
    #[test]
    fn units_are_read_with_their_number() {
        let n = numbers("it took 10.873 ms, then 40% and 3 chunks/s.");
        let units: Vec<_> = n.iter().map(|n| (n.text.as_str(), n.unit.as_deref(), n.decimals)).collect();
        assert_eq!(units, [("10.873", Some("ms"), 3), ("40", Some("%"), 0), ("3", Some("chunks/s"), 0)]);
    }
}
