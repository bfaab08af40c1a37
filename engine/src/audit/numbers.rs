//! The numbers of a document, read the way a teaching assistant reads them
//! (A7, A8). The rule, also in the README:
//!
//! - A number is a *result* when it is a measurement, a ratio or difference
//!   derived from measurements, or a figure from a source. A result needs a
//!   tag — MEASURED, DERIVED, CITED or MODELED — in its own clause (the
//!   stretch of a sentence up to a `;` or the sentence's end). A tag
//!   elsewhere on the line covers nothing else.
//! - A ratio or a difference in prose is a result: `1.67×`, `3.4x faster`,
//!   `1.67 times`, `3-fold`, `22%`, and so is any number with a unit of a
//!   quantity (`ms`, `W`, `GHz`, `GB/s` …), even after an identifier (`in
//!   run 1, 2.66 ms`).
//! - These are not results and need no tag:
//!   - an identifier: a chapter, section, table, run, row, CPU, core,
//!     prediction, soak, week or exercise (`Chapter 3`, `section 4.2`,
//!     `C.8.4`, `run 3`, `runs 1–2`, `CPU 1`, `P2`, `S1`); a version or a
//!     product's number (`Linux 6.8`, `Python 3.12`, `v2`, `Pixel 8`); part
//!     of a name or flag (`x86_64`, `-O2`, `g++-12`, `5850U`); an ordinal
//!     (`3rd`); a year in brackets (`(2019)`); a list's own numbering;
//!   - a date or a time of day (`2026-11-30`, `30 November`, `06:05`, `9 am`);
//!   - a count of repetitions, CPUs, threads or items (`n=31`, `warm-up 3`,
//!     `31 repetitions`, `5 internal trials`, `8 logical CPUs`, `4 threads`,
//!     `8192 loops`);
//!   - what was run: a parameter (`N=512`, `SIZE over 16 KiB … 64 MiB`,
//!     `128×128`, `tile 24`); the size of an input (`a 16 KiB working set`,
//!     `the chase at 64 MiB`, `working sets of 16 and 64 KiB`); a protocol's
//!     setting (`idle 10 min`, `a 600 s soak`, `every 10 s`, `a 16.7 ms frame
//!     budget`); a description joined by a hyphen (`2-vCPU`, `64-bit`,
//!     `10-minute`);
//!   - a prediction (`predicted 180 s`);
//!   - anything inside backticks (a command) or a URL.
//! - A size is the size of an input unless it is a fact about the machine:
//!   `L2 is 512 KiB`, `L1 at 32K`, `16 MB of system cache` are results (cited
//!   or measured), and so is a size the sentence ties to no input (`the
//!   process used 120 MiB`).
//! - A list continues what it starts: in `runs 1, 2 and 3` all three are
//!   identifiers, in `working sets of 16, 64 and 256 KiB` all three inputs.

/// The tags of A7.
pub(super) const TAGS: [&str; 4] = ["MEASURED", "DERIVED", "CITED", "MODELED"];

/// What a number is, read as a teaching assistant reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A measurement, a ratio or difference, a figure from a source: it
    /// needs its tag.
    Result,
    /// Names something: a chapter, a run, a CPU, a version, a date, a part
    /// of a name.
    Identifier,
    /// Counts repetitions, CPUs, threads or items.
    Count,
    /// Says what was run: a parameter, an input's size, a protocol's setting.
    Setting,
    /// A figure committed before the run.
    Prediction,
}

/// Words after which a number names something rather than measuring it:
/// references, the things a course numbers, versions and products.
const IDENTIFIERS: [&str; 108] = [
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
    "week",
    "phase",
    "rep",
    "exercise",
    "lecture",
    "cpu",
    "core",
    "cores",
    "p-core",
    "e-core",
    "node",
    "socket",
    "thread",
    "worker",
    "device",
    "trial",
    "pair",
    "sample",
    "arm",
    "session",
    "day",
    "attempt",
    "round",
    "iteration",
    "case",
    "test",
    "experiment",
    "scenario",
    "option",
    "config",
    "configuration",
    "version",
    "release",
    "gen",
    "generation",
    "pixel",
    "iphone",
    "galaxy",
    "snapdragon",
    "ryzen",
    "epyc",
    "xeon",
    "graviton",
    "pi",
    "dimensity",
    "exynos",
    "linux",
    "macos",
    "windows",
    "ubuntu",
    "debian",
    "fedora",
    "ios",
    "android",
    "python",
    "gcc",
    "g++",
    "clang",
    "clang++",
    "rustc",
    "llvm",
    "java",
    "jdk",
    "cuda",
    "xcode",
    "claude",
    "numpy",
    "perf",
    "hyperfine",
    "pyperf",
];

/// Words before a number that count repetitions (`n=31`, `warm-up 3`).
const COUNTS_BEFORE: [&str; 8] = ["n", "warm-up", "warmup", "reps", "repetitions", "trials", "threads", "workers"];

/// Words before a number that set the experiment up (`tile 64`, `seed 12345`).
const SETTINGS_BEFORE: [&str; 9] = ["tile", "size", "stride", "seed", "batch", "chunk", "block", "level", "offset"];

/// Words right after a number (or one word further: `5 internal trials`)
/// that say it counts.
const COUNT_NOUNS: [&str; 64] = [
    "repetitions",
    "repetition",
    "loops",
    "loop",
    "reps",
    "trials",
    "trial",
    "runs",
    "run",
    "pairs",
    "pair",
    "samples",
    "sample",
    "processes",
    "process",
    "rounds",
    "round",
    "values",
    "value",
    "points",
    "point",
    "iterations",
    "iteration",
    "discarded",
    "warm-up",
    "warmup",
    "threads",
    "thread",
    "workers",
    "worker",
    "cores",
    "core",
    "cpus",
    "cpu",
    "vcpus",
    "vcpu",
    "logical",
    "physical",
    "p-cores",
    "e-cores",
    "hyperthreads",
    "sockets",
    "gpus",
    "nodes",
    "elements",
    "element",
    "items",
    "item",
    "entries",
    "inputs",
    "input",
    "tasks",
    "task",
    "sources",
    "source",
    "chapters",
    "steps",
    "step",
    "workloads",
    "workload",
    "arms",
    "arm",
    "times",
    "time",
];

/// Words before a number that make it a protocol's setting (`idle 10 min`,
/// `idle for 10 minutes`, `every 10 s`, `ambient 22 °C`).
const SETTING_WORDS_BEFORE: [&str; 14] = [
    "idle",
    "idled",
    "cool-down",
    "cooldown",
    "interval",
    "duration",
    "window",
    "tail",
    "timeout",
    "every",
    "budget",
    "deadline",
    "sampling",
    "ambient",
];

/// Nouns a number describes when it sets up what was run: a protocol's
/// setting (`a 600 s soak`, `a 16.7 ms frame budget`) or an input (`a 16 KiB
/// working set`, `64 MiB arrays`).
const SETTING_NOUNS: [&str; 37] = [
    "idle",
    "duration",
    "tail",
    "chunk",
    "cool-down",
    "cooldown",
    "soak",
    "window",
    "interval",
    "budget",
    "deadline",
    "timeout",
    "pause",
    "warm-up",
    "set",
    "sets",
    "array",
    "arrays",
    "buffer",
    "buffers",
    "matrix",
    "matrices",
    "input",
    "inputs",
    "file",
    "files",
    "dataset",
    "stride",
    "tile",
    "tiles",
    "block",
    "blocks",
    "chunks",
    "allocation",
    "region",
    "walk",
    "chase",
];

/// The parts of a machine whose size is a fact about it (`L2 is 512 KiB`).
const HARDWARE: [&str; 21] = [
    "l1", "l1d", "l1i", "l2", "l3", "l4", "llc", "slc", "cache", "caches", "ram", "dram", "sram", "memory", "tlb",
    "vram", "hbm", "lpddr5", "lpddr5x", "ddr4", "ddr5",
];

/// Words before `at`, `from` or `to` that make the size after it a reading
/// of a curve (`the time rises at 8 MiB`), not an input's size.
const CHANGES: [&str; 18] = [
    "rises", "rose", "jumps", "jumped", "steps", "stepped", "drops", "dropped", "climbs", "climbed", "falls", "fell",
    "knee", "plateau", "plateaus", "boundary", "cliff", "edge",
];

/// Verbs whose object is a result: a size after them is what something
/// needs or uses, not an input's size.
const GIVES: [&str; 20] = [
    "need", "needs", "take", "takes", "took", "use", "uses", "used", "occupy", "occupies", "cost", "costs", "give",
    "gives", "gave", "reach", "reaches", "reached", "require", "requires",
];

/// Words that put a size on the axis of what was run (`at 64 MiB`).
const SWEEP_WORDS: [&str; 6] = ["at", "from", "to", "over", "between", "through"];

/// Words before a figure committed before the run.
const PREDICTED: [&str; 4] = ["predicted", "predict", "predicts", "predicting"];

/// Months, for a date written in words (`30 November 2026`, `Nov 30`).
const MONTHS: [&str; 23] = [
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];

/// Words after which a four-digit number is a year (`in 2019`).
const YEAR_WORDS: [&str; 4] = ["in", "since", "until", "year"];

/// Words that end the noun phrase a number describes: "2.41 chunks/s over
/// the soak" describes no soak, nor "past 8 MiB the chase time".
const STOPS: [&str; 37] = [
    "over", "on", "in", "at", "for", "per", "during", "after", "before", "while", "with", "than", "and", "or", "vs",
    "to", "from", "by", "into", "under", "across", "is", "was", "are", "were", "which", "that", "when", "but",
    "because", "the", "a", "an", "this", "its", "it", "so",
];

/// Words after `N times` that make it a ratio, not a count of repetitions.
const COMPARATIVES: [&str; 14] = [
    "faster", "slower", "as", "the", "more", "less", "higher", "lower", "longer", "shorter", "larger", "smaller",
    "that", "its",
];

/// Units that make a number a quantity (with any unit holding `/`, `%` or
/// `×`, and the sizes of [`SIZES`]): such a number needs its tag even after
/// a reference word or in a list (`in run 1, 2.66 ms`).
const QUANTITY_UNITS: [&str; 46] = [
    "s",
    "ms",
    "µs",
    "μs",
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
    "x",
    "fold",
    "percent",
    "°c",
    "c",
    "cycles",
    "instructions",
    "tops",
    "flops",
    "gflops",
    "tflops",
    "fps",
    "mt",
    "ipc",
    "mpki",
    "nm",
    "mm",
];

/// Units of a size in bytes, lower-cased.
const SIZES: [&str; 14] =
    ["b", "byte", "bytes", "kb", "kib", "mb", "mib", "gb", "gib", "tb", "tib", "kbyte", "mbyte", "gbyte"];

/// Abbreviations whose full stop does not end a sentence.
const ABBREVIATIONS: [&str; 14] =
    ["vs", "e.g", "i.e", "eg", "ie", "fig", "figs", "sec", "ch", "eq", "cf", "approx", "no", "pp"];

/// Words that carry a list on: `runs 1, 2 and 3`.
const LIST_WORDS: [&str; 4] = ["and", "or", "to", "vs"];

/// Words in a declaration that a tag covers every figure below it ("every
/// figure below is MODELED"), after `every` or `all`.
const FIGURE_WORDS: [&str; 12] = [
    "figure",
    "figures",
    "number",
    "numbers",
    "value",
    "values",
    "result",
    "results",
    "latency",
    "energy",
    "measurement",
    "measurements",
];

/// How far around a number its words are read, in characters: enough for
/// "The L2 on a phone is usually about 4MB", and constant, so a line is read
/// in time linear in its length.
const WINDOW: usize = 80;

/// One number written in a line.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Number {
    /// As written, e.g. `12.50`.
    pub text: String,
    /// Its value.
    pub value: f64,
    /// Digits after the decimal point.
    pub decimals: usize,
    /// The word written right after it (`ms`, `chunks/s`, `%`, `×`), if any.
    pub unit: Option<String>,
    /// What it is (see the module).
    pub kind: Kind,
    /// Whether a tag stands in its own clause.
    pub tagged: bool,
    /// Whether its clause says it comes from elsewhere (CITED, MODELED):
    /// then it is no run's median, whatever its value (A8).
    pub elsewhere: bool,
    /// Which clause of the line it is in (0-based).
    pub clause: usize,
    /// The run it names, when it is a run's number (`run 3`, `runs 1 and 2`).
    pub run: Option<u32>,
    /// The word just before it, lower-cased (`median`, `iqr`, `run`).
    pub label: String,
}

impl Number {
    /// A result, which needs its tag (A7).
    pub fn needs_tag(&self) -> bool {
        self.kind == Kind::Result
    }

    /// The power of ten of its last written digit, negated: 2 for `2.94`,
    /// 0 for `3`, −2 for `2900` (trailing zeros of a whole number say
    /// nothing about its precision, so they are not counted).
    pub fn place(&self) -> i32 {
        if self.decimals > 0 {
            return i32::try_from(self.decimals).unwrap_or(i32::MAX);
        }
        let digits = self.text.replace(',', "");
        let zeros = digits.len() - digits.trim_end_matches('0').len();
        if zeros == digits.len() { 0 } else { -i32::try_from(zeros).unwrap_or(0) }
    }
}

/// What the reader knows about the number before the current one.
#[derive(Clone, Copy)]
struct Previous {
    /// Where it ended, with its unit.
    end: usize,
    kind: Kind,
    /// Whether a list it starts carries on through quantities.
    carries: Carries,
    /// Whether it names a run, so a list of them does too.
    names_runs: bool,
}

/// What a list of settings carries on through, besides bare numbers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Carries {
    /// Nothing with a unit: `runs 1, 2 and 3`, `tile 24, 32`.
    Bare,
    /// Sizes: `working sets of 16 KiB and 64 KiB`.
    Sizes,
    /// Any value: a parameter's (`SIZE over 16 KiB … 64 MiB`).
    Values,
}

/// Every number in `text`, with what it is and whether it has a tag. Linear
/// in the text's length: a report line may be a megabyte long.
pub(super) fn numbers(text: &str) -> Vec<Number> {
    // Every number starts with a digit (".7" too): a line without one has
    // none, and is not read further.
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let chars: Vec<char> = text.chars().collect();
    let masked = masked(&chars);
    let clauses = clauses(&chars);
    let mut clause = 0;
    let mut out: Vec<Number> = Vec::new();
    let mut i = 0;
    let mut previous: Option<Previous> = None;
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
        // A version such as 6.8.0 is no number.
        let Ok(value) = plain.parse::<f64>() else { continue };
        let decimals = plain.split_once('.').map_or(0, |(_, d)| d.len());
        while clauses.get(clause).is_some_and(|c| c.end <= start) {
            clause += 1;
        }
        let clause_start = clause.checked_sub(1).and_then(|k| clauses.get(k)).map_or(0, |c| c.end);
        let clause_end = clauses.get(clause).map_or(chars.len(), |c| c.end);
        let unit = unit_after(&chars, i);
        let unit_end = match &unit {
            Some(u) => (i + usize::from(matches!(chars.get(i), Some(' ' | '-'))) + u.chars().count()).min(chars.len()),
            None => i,
        };
        let size = unit.as_deref().is_some_and(is_size);
        // The words after it reach the end of its phrase: a comma ends it,
        // but in a list of sizes ("16 KiB, 64 KiB and 256 KiB arrays").
        let phrase_end = (i..clause_end.min(i + WINDOW))
            .find(|&k| matches!(chars[k], ';' | ':' | '(' | ')' | '—' | '"' | '“') || (chars[k] == ',' && !size))
            .unwrap_or(clause_end.min(i + WINDOW))
            .max(i);
        let before = words_before(&chars, clause_start.max(start.saturating_sub(WINDOW)), start);
        let after = words(&chars[i..phrase_end]);
        let next = words(&chars[unit_end.min(phrase_end)..phrase_end]);
        let ratio = unit.as_deref().is_some_and(|u| is_ratio(u, decimals, next.first().map(String::as_str)));
        let quantity = ratio || unit.as_deref().is_some_and(|u| u != "times" && is_quantity(u));
        let described = described(if quantity { &next } else { &after }, size);
        let at =
            Context { chars: &chars, start, end: i, value, decimals, unit: unit.as_deref(), before, after, described };
        // A list carries on what it started: "runs 1, 2 and 3". A number
        // inside the word read as the last one's unit ("8xYz1") is no list.
        let continued = previous.filter(|p| {
            let carried = match p.carries {
                Carries::Bare => !quantity,
                Carries::Sizes => !quantity || size,
                Carries::Values => true,
            };
            p.kind != Kind::Result && carried && gap_is_list(&chars, p.end, start)
        });
        let kind = match continued {
            Some(p) => p.kind,
            None => kind(&at, quantity, ratio),
        };
        let names_runs = match continued {
            Some(p) => p.names_runs,
            None => kind == Kind::Identifier && matches!(at.before.first().map(String::as_str), Some("run" | "runs")),
        };
        let tagged = clauses.get(clause).is_some_and(|c| c.tagged);
        let elsewhere = clauses.get(clause).is_some_and(|c| c.elsewhere);
        let run = (names_runs && decimals == 0).then(|| plain.parse::<u32>().ok()).flatten();
        let carries = match continued {
            Some(p) => p.carries,
            None if kind == Kind::Setting && setting(&chars, start) => Carries::Values,
            None if kind == Kind::Setting && size => Carries::Sizes,
            None => Carries::Bare,
        };
        let label = at.before.first().cloned().unwrap_or_default();
        out.push(Number { text: written, value, decimals, unit, kind, tagged, elsewhere, clause, run, label });
        previous = Some(Previous { end: unit_end, kind, carries, names_runs });
    }
    out
}

/// A number and the words around it, within its clause.
struct Context<'a> {
    chars: &'a [char],
    start: usize,
    end: usize,
    value: f64,
    decimals: usize,
    unit: Option<&'a str>,
    /// The words before it, nearest first.
    before: Vec<String>,
    /// The words after it, its unit (if any) first.
    after: Vec<String>,
    /// The noun phrase it describes (see [`described`]).
    described: Vec<String>,
}

impl Context<'_> {
    /// True when the word right before it — nothing but spaces, `(`, `:`,
    /// `=`, `#` or an abbreviation's full stop between — is one of `list`
    /// ("CPU 1", "Fig. 2", "n=31"; not "3 runs — 12.4").
    fn before_is(&self, list: &[&str]) -> bool {
        let mut end = self.start;
        while end > 0 && matches!(self.chars[end - 1], ' ' | '(' | ':' | '.' | '=' | '#' | '\u{a0}') {
            end -= 1;
        }
        let adjacent = end > 0 && (self.chars[end - 1].is_alphanumeric() || matches!(self.chars[end - 1], '+' | '-'));
        adjacent && self.before.first().is_some_and(|w| list.contains(&w.as_str()))
    }

    fn next_is(&self, list: &[&str]) -> bool {
        self.after.first().is_some_and(|w| list.contains(&w.as_str()))
    }
}

/// The noun phrase a number describes, from the words after its unit: up
/// to three words, ended by a preposition or verb of [`STOPS`] (`of` may
/// open it: "16 MB of system cache"); a size reads past the rest of its list
/// ("16 KiB and 64 KiB working sets").
fn described(next: &[String], size: bool) -> Vec<String> {
    let list = |w: &str| LIST_WORDS.contains(&w) || is_size(w) || w.chars().all(|c| c.is_ascii_digit());
    let mut out = Vec::new();
    for w in next.iter().skip_while(|w| size && list(w)) {
        if out.len() == 3 || (STOPS.contains(&w.as_str()) && !(out.is_empty() && w == "of")) {
            break;
        }
        if w != "of" {
            out.push(w.clone());
        }
    }
    out
}

/// True when `phrase` names one of [`SETTING_NOUNS`] (`set` only as a
/// working set).
fn names_a_setting(phrase: &[String]) -> bool {
    phrase.iter().enumerate().any(|(k, w)| match w.as_str() {
        "set" | "sets" => k > 0 && phrase[k - 1] == "working",
        other => SETTING_NOUNS.contains(&other),
    })
}

/// What the number at `c` is (see the module), when it does not continue a
/// list.
fn kind(c: &Context<'_>, quantity: bool, ratio: bool) -> Kind {
    let chars = c.chars;
    if attached_to_name(chars, c.start)
        || named_by_suffix(chars, c.end)
        || year_in_brackets(chars, c.start, c.end)
        || list_marker(chars, c.start, c.end)
    {
        return Kind::Identifier;
    }
    if dimension(chars, c.end) || described_by_hyphen(chars, c.end) || setting(chars, c.start) {
        return Kind::Setting;
    }
    if predicted(&c.before) {
        return Kind::Prediction;
    }
    if !quantity {
        let year = c.decimals == 0 && (1900.0..=2100.0).contains(&c.value) && c.end - c.start == 4;
        if c.before_is(&IDENTIFIERS)
            || c.before_is(&MONTHS)
            || c.next_is(&MONTHS)
            || c.next_is(&["am", "pm"])
            || (year && c.before_is(&YEAR_WORDS))
        {
            return Kind::Identifier;
        }
        if c.before_is(&COUNTS_BEFORE) || c.after.iter().take(2).any(|w| COUNT_NOUNS.contains(&w.as_str())) {
            return Kind::Count;
        }
        if c.before_is(&SETTINGS_BEFORE) || describes_an_input(&c.before) {
            return Kind::Setting;
        }
    }
    if ratio {
        return Kind::Result;
    }
    let idle_for = c.before_is(&["for"]) && c.before.get(1).is_some_and(|w| SETTING_WORDS_BEFORE.contains(&w.as_str()));
    if c.before_is(&SETTING_WORDS_BEFORE) || idle_for || names_a_setting(&c.described) {
        return Kind::Setting;
    }
    if c.unit.is_some_and(is_size) && size_of_an_input(c) {
        return Kind::Setting;
    }
    Kind::Result
}

/// A size is an input's unless it is a fact about the machine: the noun it
/// describes, or the nearest noun before it, is a part of the machine
/// (`512 KiB L2`, `16 MB of system cache`, `L2 is 512 KiB`, `L1 at 32K`) —
/// or nothing ties it to an input (`used 120 MiB`), when it is a result too.
fn size_of_an_input(c: &Context<'_>) -> bool {
    if let Some(w) = c.described.iter().find(|w| HARDWARE.contains(&w.as_str()) || COUNT_NOUNS.contains(&w.as_str())) {
        return !HARDWARE.contains(&w.as_str());
    }
    if c.before_is(&SWEEP_WORDS) {
        return !c.before.get(1).is_some_and(|w| HARDWARE.contains(&w.as_str()) || CHANGES.contains(&w.as_str()));
    }
    // The nearest noun before it, within its clause, unless a verb that
    // gives a result stands between ("three tiles need 13,824 bytes").
    for w in &c.before {
        if HARDWARE.contains(&w.as_str()) || GIVES.contains(&w.as_str()) {
            return false;
        }
        if SETTING_NOUNS.contains(&w.as_str()) {
            return true;
        }
    }
    false
}

/// True when the clause commits the number before the run ("P1 predicted an
/// onset near 180 s"), and no word of what was seen ("observed 210 s")
/// stands between.
fn predicted(before: &[String]) -> bool {
    const SEEN: [&str; 12] = [
        "measured", "observed", "got", "took", "came", "saw", "found", "showed", "reached", "actual", "actually", "but",
    ];
    before.iter().map(String::as_str).take_while(|w| !SEEN.contains(w)).any(|w| PREDICTED.contains(&w))
}

/// A bare number that an input's noun introduces: "working sets of 16",
/// "a matrix of 512".
fn describes_an_input(before: &[String]) -> bool {
    before.first().is_some_and(|w| w == "of")
        && before.get(1).is_some_and(|w| SETTING_NOUNS.contains(&w.as_str()) && w != "walk" && w != "chase")
}

/// True for a ratio: `×`, `x`, `fold`, `%`, `percent`, and `times` when it
/// compares (`1.67 times faster`, `2.5 times`), not when it counts (`ran it
/// 31 times`).
fn is_ratio(unit: &str, decimals: usize, next: Option<&str>) -> bool {
    match unit.to_lowercase().as_str() {
        "×" | "x" | "fold" | "%" | "percent" => true,
        "times" => decimals > 0 || next.is_some_and(|n| COMPARATIVES.contains(&n)),
        other => other.contains('×') || other.contains('%'),
    }
}

/// True for a unit of a quantity: a known one, a size, or one with `/`,
/// `%`, `×`.
fn is_quantity(unit: &str) -> bool {
    let lower = unit.to_lowercase();
    QUANTITY_UNITS.contains(&lower.as_str()) || is_size(unit) || lower.contains(['/', '%', '×'])
}

/// True for a size in bytes: `KiB`, `MB`, `bytes`, or `K`, `M`, `G` written
/// against the number (`32K`, `8M`).
fn is_size(unit: &str) -> bool {
    SIZES.contains(&unit.to_lowercase().as_str()) || matches!(unit, "K" | "k" | "M" | "G")
}

/// True when a clause of `text` declares a tag for every figure below it:
/// "every figure below is MODELED", "every latency and energy MODELED".
pub(super) fn declares_tags(text: &str) -> bool {
    // A declaration has a tag and `every` or `all` in it: a line without
    // both (most table rows) is not split into clauses and words.
    let has = |word: &str| text.as_bytes().windows(word.len()).any(|w| w.eq_ignore_ascii_case(word.as_bytes()));
    TAGS.iter().any(|tag| text.contains(tag)) && (has("every") || has("all")) && declares_tags_read(text)
}

/// [`declares_tags`] read in full, clause by clause.
fn declares_tags_read(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let clauses = clauses(&chars);
    let mut start = 0;
    clauses.iter().any(|c| {
        let words = words(&chars[start..c.end]);
        start = c.end;
        c.tagged
            && words.iter().enumerate().any(|(k, w)| {
                matches!(w.as_str(), "every" | "all")
                    && words[k + 1..].iter().take(3).any(|n| FIGURE_WORDS.contains(&n.as_str()))
            })
    })
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

/// The words of `chars`, lower-cased, in order: runs of letters, digits and
/// `-`, `_`, `+`, `/`, `'`, with a flag's leading dashes and a possessive
/// `'s` dropped ("--window" → "window", "run 3's" → "3", "S/P" → "s/p").
///
/// One string a word, lower-cased as it is collected (a line of a long
/// table has many numbers, each read with the words around it: issue 50).
fn words(chars: &[char]) -> Vec<String> {
    let joins = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '+' | '/' | '\'' | '’' | '°' | 'µ' | '$');
    chars
        .split(|c| !joins(*c))
        .filter(|w| !w.is_empty())
        .filter_map(|w| {
            let mut word = lowercase(w);
            let start = word.len() - word.trim_start_matches('-').len();
            let end = {
                let w = &word[start..];
                let w = w.strip_suffix("'s").or_else(|| w.strip_suffix("’s")).unwrap_or(w);
                start + w.trim_end_matches(['-', '\'', '’']).len()
            };
            word.truncate(end);
            word.drain(..start);
            (!word.is_empty()).then_some(word)
        })
        .collect()
}

/// `chars` lower-cased as [`str::to_lowercase`] lower-cases them, into one
/// string: char by char, but for a capital sigma, whose lower case depends
/// on where in the word it stands.
fn lowercase(chars: &[char]) -> String {
    if chars.contains(&'Σ') {
        return chars.iter().collect::<String>().to_lowercase();
    }
    let mut out = String::with_capacity(chars.len());
    for c in chars {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The words of `chars[from..to]`, nearest to `to` first.
fn words_before(chars: &[char], from: usize, to: usize) -> Vec<String> {
    let mut out = words(&chars[from.min(to)..to]);
    out.reverse();
    out
}

/// The unit written right after a number (`12.5 ms`, `12.5ms`, `40%`,
/// `1.67×`, and a unit joined by a hyphen: `3-fold`, `16-KiB`).
fn unit_after(chars: &[char], end: usize) -> Option<String> {
    if chars.get(end) == Some(&'×') {
        return Some("×".to_owned());
    }
    if chars.get(end) == Some(&'-') {
        let word: String = chars[end + 1..].iter().take_while(|c| c.is_alphabetic()).collect();
        return is_quantity(&word).then_some(word);
    }
    let begin = if chars.get(end) == Some(&' ') { end + 1 } else { end };
    let mut stop = begin;
    while stop < chars.len() && (chars[stop].is_alphanumeric() || matches!(chars[stop], 'µ' | '/' | '%' | '°')) {
        stop += 1;
    }
    let unit: String = chars[begin..stop].iter().collect::<String>().trim_end_matches('/').to_owned();
    (!unit.is_empty() && !unit.starts_with(|c: char| c.is_ascii_digit())).then_some(unit)
}

/// Whether the text between two numbers only carries a list on (`, `, `–`,
/// `…`, `and`, `to`).
fn gap_is_list(chars: &[char], from: usize, to: usize) -> bool {
    let Some(gap) = chars.get(from..to) else { return false };
    let gap: String = gap.iter().collect();
    let gap = gap.trim();
    gap.is_empty()
        || gap.chars().all(|c| matches!(c, ',' | '+' | '–' | '-' | '…' | '/' | '×' | ' '))
        || LIST_WORDS.contains(&gap.trim_matches(|c: char| !c.is_alphanumeric()))
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

/// A number joined by a hyphen to the word it describes: `2-vCPU`, `64-bit`,
/// `10-minute` — not to a ratio (`3-fold`) or a unit (`16-KiB`), which are
/// read as the number's unit.
fn described_by_hyphen(chars: &[char], end: usize) -> bool {
    if chars.get(end) != Some(&'-') {
        return false;
    }
    let word: String = chars[end + 1..].iter().take_while(|c| c.is_alphabetic()).collect();
    !word.is_empty() && !is_quantity(&word)
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

/// A value set rather than measured: `N=512`, `n = 31`, `SIZE over 16 KiB`,
/// `t=340 s` (a moment of a run). The name is a parameter's: capitals (`N`,
/// `SIZE`) or one letter, never a word such as "median" — and never the
/// soak's `P` and `S` or a difference `d`, nor `t` after an onset (`onset at
/// t = 80 s`), which are results.
fn setting(chars: &[char], start: usize) -> bool {
    let mut i = start;
    while i > 0 && chars[i - 1] == ' ' {
        i -= 1;
    }
    let window = &chars[i.saturating_sub(WINDOW)..i];
    let text: String = window.iter().collect();
    let parameter = |name: &str| {
        !name.is_empty()
            && !matches!(name, "P" | "S" | "d" | "D")
            && (name.chars().count() == 1
                || name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
    };
    let last_word = |rest: &str| {
        rest.trim_end().rsplit(char::is_whitespace).next().unwrap_or("").trim_start_matches(['(', '[', ',']).to_owned()
    };
    if let Some(rest) = text.strip_suffix('=') {
        let name = last_word(rest);
        let onset = name == "t" && ["onset", "stable", "knee", "throttl"].iter().any(|w| rest.contains(w));
        return parameter(&name) && !onset;
    }
    // "NAME over V": a sweep's parameter and its values.
    text.strip_suffix("over").is_some_and(|rest| parameter(&last_word(rest)))
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
        numbers(text).into_iter().filter(|n| n.needs_tag() && !n.tagged).map(|n| n.text).collect()
    }

    // SPEC A7: a tag covers its own clause only, and names the number it misses.
    #[test]
    fn a_tag_covers_its_own_clause() {
        assert_eq!(untagged("Median 12.5 ms (MEASURED); the old build took 40.2 ms."), ["40.2"]);
        assert_eq!(untagged("Median 12.5 ms (MEASURED). Then 7 ms."), ["7"]);
        assert!(untagged("Median 12.5 ms, IQR 0.3 ms, min 12.1 ms (MEASURED).").is_empty());
        assert_eq!(untagged("The blocked kernel is 4.3× faster"), ["4.3"]);
    }

    // SPEC A7: references, dates, counts and settings are not results.
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

    // SPEC A7 (issue 34): a size is an input's when it describes what was
    // run, and a result when it is a fact about the machine.
    #[test]
    fn a_size_is_an_input_unless_the_machine_has_it() {
        for (text, want) in [
            ("a 512 KiB working set", vec![]),
            ("working sets of 16, 64 and 256 KiB", vec![]),
            ("the chase at 64 MiB", vec![]),
            ("16 KiB and 64 KiB working sets", vec![]),
            ("L2 is 512 KiB", vec!["512"]),
            ("L1 at 32K, L2 at 512K and L3 at 8MB", vec!["32", "512", "8"]),
            ("16 MB of system cache", vec!["16"]),
            ("the process used 120 MiB", vec!["120"]),
        ] {
            assert_eq!(untagged(text), want, "{text}");
        }
    }

    // SPEC A7 (issue 34): identifiers and counts of CPUs are not results; a
    // ratio in prose is.
    #[test]
    fn identifiers_and_counts_are_not_results_but_ratios_are() {
        for (text, want) in [
            ("pinned to CPU 1 on a 2-vCPU VM", vec![]),
            ("8 logical CPUs, Linux 6.8, Python 3.12", vec![]),
            ("O0 is 1.67× O2.", vec!["1.67"]),
            ("v2 is 1.67× v1.", vec!["1.67"]),
            ("I ran it 31 times, then it was 2.5 times faster", vec!["2.5"]),
            ("a 3-fold drop after a 10-minute idle", vec!["3"]),
        ] {
            assert_eq!(untagged(text), want, "{text}");
        }
    }

    // SPEC A8: the runs a clause names are read with their numbers.
    #[test]
    fn the_runs_a_clause_names() {
        let found = numbers("Runs 3 and 4 took 2.9 ms; run 5 took 3.1 ms.");
        let named: Vec<(usize, Option<u32>)> = found.iter().map(|n| (n.clause, n.run)).collect();
        assert_eq!(named, [(0, Some(3)), (0, Some(4)), (0, None), (1, Some(5)), (1, None)]);
    }

    // SPEC A7: a line can declare the tag of every figure below it.
    #[test]
    fn a_declaration_covers_every_figure() {
        assert!(declares_tags("Every figure below is MODELED, from placement-bench.csv."));
        assert!(declares_tags("Figures from x.csv: SYNTHETIC teaching data, every latency and energy MODELED."));
        assert!(!declares_tags("Median 12.5 ms (MEASURED) for every run."));
        assert!(!declares_tags("Every figure below is mine."));
    }

    // SPEC A7: a number inside the word read as another's unit (a random
    // temporary folder's name) is read without a panic.
    #[test]
    fn a_number_inside_a_unit_word_is_read() {
        let found = numbers("sh /tmp/.tmp8xYz1Q/work.sh and 3 ab5c");
        assert_eq!(found.iter().map(|n| n.text.as_str()).collect::<Vec<_>>(), ["8", "1", "3", "5"]);
    }

    // SPEC A8: the unit after a number is read with it, and the place of
    // its last digit.
    #[test]
    fn units_are_read_with_their_number() {
        let n = numbers("it took 10.873 ms, then 40% and 3 chunks/s, 2900 µs.");
        let units: Vec<_> = n.iter().map(|n| (n.text.as_str(), n.unit.as_deref(), n.place())).collect();
        assert_eq!(
            units,
            [("10.873", Some("ms"), 3), ("40", Some("%"), -1), ("3", Some("chunks/s"), 0), ("2900", Some("µs"), -2)]
        );
    }

    /// Lines the fast paths below are held to: prose, table rows, tags
    /// denied and declared, possessives, flags, capitals of every script.
    const LINES: [&str; 14] = [
        "Every figure below is MODELED, from placement-bench.csv.",
        "Figures from x.csv: SYNTHETIC teaching data, every latency and energy MODELED.",
        "ALL RESULTS BELOW ARE MEASURED.",
        "Median 12.5 ms (MEASURED) for every run.",
        "Every figure below is mine; NOT MEASURED at all.",
        "run 3 | true, take 3 | 1.02 s | IQR 0.02 s | MEASURED",
        "Run 3's median --window 10 s, the CPU's L2 is 512 KiB -- ok’s",
        "ΣΑΣ ΟΔΟΣ took 3 ms; İstanbul 4 ms, Kelvin 5 K",
        "-- - ' ’s 's",
        "Allocations: Overall 12 MB (CITED); everyone agrees",
        "",
        "no digits at all, yet every word MEASURED",
        ".7 ms then 8.5 ms",
        "every\nMODELED figure",
    ];

    /// The words as they were read before they were collected into one
    /// string each (issue 50): what [`words`] must still give.
    fn words_plain(chars: &[char]) -> Vec<String> {
        let joins = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '+' | '/' | '\'' | '’' | '°' | 'µ' | '$');
        chars
            .split(|c| !joins(*c))
            .filter(|w| !w.is_empty())
            .map(|w| {
                let w: String = w.iter().collect::<String>().to_lowercase();
                let w = w.trim_start_matches('-');
                let w = w.strip_suffix("'s").or_else(|| w.strip_suffix("’s")).unwrap_or(w);
                w.trim_end_matches(['-', '\'', '’']).to_owned()
            })
            .filter(|w| !w.is_empty())
            .collect()
    }

    // SPEC A7 (issue 50): the words read around a number are the same
    // whether lower-cased into one string or as before.
    #[test]
    fn words_are_the_plain_reading() {
        for line in LINES {
            let chars: Vec<char> = line.chars().collect();
            assert_eq!(words(&chars), words_plain(&chars), "{line}");
        }
    }

    // SPEC A7 (issue 50): a line passed over by the fast check is one the
    // full reading finds no declaration in.
    #[test]
    fn declares_tags_is_the_full_reading() {
        for line in LINES {
            assert_eq!(declares_tags(line), declares_tags_read(line), "{line}");
        }
        assert!(declares_tags("ALL RESULTS BELOW ARE MEASURED."));
    }

    // SPEC A7 (issue 50): a line without a digit holds no number.
    #[test]
    fn a_line_without_a_digit_has_no_numbers() {
        assert!(numbers("no digits at all, yet every word MEASURED").is_empty());
        assert_eq!(numbers(".7 ms").len(), 1);
    }
}
