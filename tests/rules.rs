//! The rule list: code and tests cite the product rules as `SPEC S7`, and the
//! spec itself lives outside the repository (`../shared/SPEC.md`), so
//! `RULES.md` at the root is where a reader looks an ID up. These tests keep
//! that list honest: every citation must resolve in it, and it must hold
//! exactly the spec's IDs whenever the spec sits beside the checkout.

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

/// Directories whose files may cite rules, relative to the repository root.
/// The root's own `*.md` files are scanned as well.
const SCANNED_DIRS: [&str; 6] = ["app", "engine", "tests", "templates", "datasets", ".ci"];

/// Extensions of the files that carry citations (code, docs, scripts).
/// Extension-less files under `.ci/` are shell scripts and are scanned too.
const SCANNED_EXTENSIONS: [&str; 4] = ["rs", "md", "sh", "py"];

/// Build output and fuzzing data: generated, untracked, possibly huge.
/// A directory named `target` is skipped wherever it appears.
const SKIPPED_DIRS: [&str; 2] = ["engine/fuzz/corpus", "engine/fuzz/artifacts"];

/// A rule ID such as `S7`: a section letter and a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Id {
    section: char,
    number: u32,
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.section, self.number)
    }
}

/// One item of a citation's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cited {
    /// A single rule: `S7`.
    Rule(Id),
    /// Every rule from the first to the last: `A1–A15` or `A1-A15`.
    Range(Id, Id),
    /// A whole section by its letter: `SPEC C`, `SPEC T, U`.
    Section(char),
}

impl fmt::Display for Cited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cited::Rule(id) => write!(f, "{id}"),
            Cited::Range(first, last) => write!(f, "{first}–{last}"),
            Cited::Section(letter) => write!(f, "section {letter}"),
        }
    }
}

/// One `SPEC …` citation found in a file, with where it was found.
#[derive(Debug)]
struct Citation {
    /// Path relative to the repository root.
    file: PathBuf,
    /// 1-based line of the word `SPEC`.
    line: usize,
    items: Vec<Cited>,
}

/// The rules a list defines: IDs in the order written, and section letters.
#[derive(Debug, Default)]
struct RuleList {
    ids: Vec<Id>,
    sections: Vec<char>,
}

impl RuleList {
    /// Why `item` does not resolve in this list, or `None` when it does.
    fn unresolved(&self, item: Cited) -> Option<String> {
        match item {
            Cited::Rule(id) => (!self.ids.contains(&id)).then(|| format!("{id} is not a rule")),
            Cited::Section(letter) => {
                (!self.sections.contains(&letter)).then(|| format!("there is no section {letter}"))
            }
            Cited::Range(first, last) => {
                if first.section != last.section || first.number >= last.number {
                    return Some(format!("{item} is not a range within one section"));
                }
                let missing: Vec<String> = (first.number..=last.number)
                    .map(|number| Id { section: first.section, number })
                    .filter(|id| !self.ids.contains(id))
                    .map(|id| id.to_string())
                    .collect();
                (!missing.is_empty()).then(|| format!("{item} includes {}, not rules", missing.join(", ")))
            }
        }
    }
}

/// The repository root: the root package is the workspace itself.
fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Reads a file the tests cannot do without.
fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A section heading of RULES.md or SPEC.md, `## S — Statistics`, gives `S`.
fn section_heading(line: &str) -> Option<char> {
    let mut chars = line.strip_prefix("## ")?.chars();
    let letter = chars.next().filter(char::is_ascii_uppercase)?;
    chars.as_str().starts_with(" —").then_some(letter)
}

/// Reads the number at the start of `s`, returning it and what follows it.
fn number_prefix(s: &str) -> Option<(u32, &str)> {
    let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    Some((s[..digits].parse().ok()?, &s[digits..]))
}

/// Reads `X9` at the start of `s`, returning the ID and what follows it.
fn id_prefix(s: &str) -> Option<(Id, &str)> {
    let section = s.chars().next().filter(char::is_ascii_uppercase)?;
    let (number, rest) = number_prefix(&s[1..])?;
    Some((Id { section, number }, rest))
}

/// The rules RULES.md lists: each rule is a bullet starting `- **S7**`.
fn parse_rules_md(text: &str) -> RuleList {
    let mut list = RuleList::default();
    for line in text.lines() {
        if let Some(letter) = section_heading(line) {
            list.sections.push(letter);
        } else if let Some(rest) = line.strip_prefix("- **")
            && let Some((id, tail)) = id_prefix(rest)
            && tail.starts_with("**")
        {
            list.ids.push(id);
        }
    }
    list
}

/// The rules SPEC.md defines: each starts a line as `S7. ` at column 0.
fn parse_spec_md(text: &str) -> RuleList {
    let mut list = RuleList::default();
    for line in text.lines() {
        if let Some(letter) = section_heading(line) {
            list.sections.push(letter);
        } else if let Some((id, tail)) = id_prefix(line)
            && tail.starts_with(". ")
        {
            list.ids.push(id);
        }
    }
    list
}

/// True for characters that continue a word, so `S7x` or `Claims` is no ID.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Reads one list item at the start of `s`: `S7`, a range `A1–A15` (en dash
/// or hyphen, the second letter optional), or a bare section letter `C`.
fn item_prefix(s: &str) -> Option<(Cited, &str)> {
    let Some((first, rest)) = id_prefix(s) else {
        // A bare letter must stand alone: `SPEC C:` cites section C.
        let letter = s.chars().next().filter(char::is_ascii_uppercase)?;
        let rest = &s[1..];
        return (!rest.starts_with(is_word)).then_some((Cited::Section(letter), rest));
    };
    if rest.starts_with(is_word) {
        return None;
    }
    if let Some(after) = rest.strip_prefix('–').or_else(|| rest.strip_prefix('-')) {
        // The last rule may repeat the letter (`A1–A15`) or not (`R1–3`).
        let (section, digits) = match after.chars().next() {
            Some(letter) if letter.is_ascii_uppercase() => (letter, &after[1..]),
            _ => (first.section, after),
        };
        if let Some((number, tail)) = number_prefix(digits)
            && !tail.starts_with(is_word)
        {
            return Some((Cited::Range(first, Id { section, number }), tail));
        }
    }
    Some((Cited::Rule(first), rest))
}

/// Reads a separator between items (`, ` or ` and `), returning what follows.
fn separator(s: &str) -> Option<&str> {
    let s = s.trim_start();
    s.strip_prefix(',').or_else(|| s.strip_prefix("and ")).map(str::trim_start)
}

/// Reads the items of a citation's list from `s` into `items`. Returns true
/// when the line ends right after a separator (`SPEC D2, A12,`), so the list
/// goes on at the start of the next line.
fn read_list(mut s: &str, items: &mut Vec<Cited>) -> bool {
    loop {
        let Some((item, rest)) = item_prefix(s) else { return false };
        items.push(item);
        match separator(rest) {
            Some("") => return true,
            Some(next) => s = next,
            None => return false,
        }
    }
}

/// Every `SPEC` citation in `text`. A citation is the word `SPEC`, a space,
/// and a list of items; `SPEC.md` or `SPEC rule` cite nothing.
fn citations_in(file: &Path, text: &str) -> Vec<Citation> {
    let mut found = Vec::new();
    let mut open: Option<Citation> = None;
    for (index, line) in text.lines().enumerate() {
        if let Some(mut citation) = open.take() {
            // A wrapped list: skip the comment markers that start the next line.
            let rest = line.trim_start_matches(|c: char| c.is_whitespace() || "/!#*".contains(c));
            if read_list(rest, &mut citation.items) {
                open = Some(citation);
            } else {
                found.push(citation);
            }
        }
        for (at, _) in line.match_indices("SPEC") {
            let word_start = !line[..at].ends_with(is_word);
            let rest = &line[at + "SPEC".len()..];
            if !word_start || !rest.starts_with([' ', '\t']) {
                continue;
            }
            let mut citation = Citation { file: file.to_path_buf(), line: index + 1, items: Vec::new() };
            let continues = read_list(rest.trim_start(), &mut citation.items);
            if continues {
                open = Some(citation);
            } else if !citation.items.is_empty() {
                found.push(citation);
            }
        }
    }
    found.extend(open);
    found
}

/// True when `path` (relative to the root) is a file that may carry citations.
fn is_scanned(path: &Path) -> bool {
    match path.extension().and_then(|e| e.to_str()) {
        Some(extension) => SCANNED_EXTENSIONS.contains(&extension),
        None => path.starts_with(".ci"),
    }
}

/// Collects the scanned files under `dir` (relative to `root`), skipping
/// build output and fuzzing data.
fn walk(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let entry = entry.expect("directory entry");
        let relative = dir.join(entry.file_name());
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            let skipped = entry.file_name() == "target" || SKIPPED_DIRS.iter().any(|s| relative == Path::new(s));
            if !skipped {
                walk(root, &relative, files);
            }
        } else if kind.is_file() && is_scanned(&relative) {
            files.push(relative);
        }
    }
}

/// The files of the repository that may cite rules, sorted.
fn scanned_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in SCANNED_DIRS {
        if root.join(dir).is_dir() {
            walk(root, Path::new(dir), &mut files);
        }
    }
    for entry in fs::read_dir(root).expect("list the repository root") {
        let path = PathBuf::from(entry.expect("directory entry").file_name());
        if path.extension().is_some_and(|e| e == "md") && root.join(&path).is_file() {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Every citation whose items do not all resolve in `rules`, one line each.
fn unresolved(citations: &[Citation], rules: &RuleList) -> Vec<String> {
    citations
        .iter()
        .flat_map(|c| {
            c.items
                .iter()
                .filter_map(|&item| rules.unresolved(item))
                .map(|why| format!("  {}:{}: {why}", c.file.display(), c.line))
        })
        .collect()
}

// Rule list: every SPEC citation in the code, tests, templates, datasets, CI
// scripts and root docs resolves in RULES.md.
#[test]
fn every_spec_citation_resolves_in_rules_md() {
    let root = repo_root();
    let rules = parse_rules_md(&read(&root.join("RULES.md")));
    let files = scanned_files(root);
    let citations: Vec<Citation> = files.iter().flat_map(|file| citations_in(file, &read(&root.join(file)))).collect();
    assert!(citations.len() > 100, "only {} SPEC citations found: the scan is broken", citations.len());

    let problems = unresolved(&citations, &rules);
    assert!(
        problems.is_empty(),
        "{} SPEC citation item(s) do not resolve in RULES.md:\n{}\n\
         Cite a rule that exists, or add it to RULES.md if SPEC.md defines it.",
        problems.len(),
        problems.join("\n")
    );
    let items: usize = citations.iter().map(|c| c.items.len()).sum();
    println!("{} SPEC citations ({items} items) in {} files resolve in RULES.md", citations.len(), files.len());
}

// Rule list: RULES.md holds each rule once, in order, under its own section.
#[test]
fn rules_md_lists_each_rule_once_under_its_section() {
    let text = read(&repo_root().join("RULES.md"));
    let mut section = None;
    let mut previous: Option<Id> = None;
    for line in text.lines() {
        if let Some(letter) = section_heading(line) {
            section = Some(letter);
            previous = None;
            continue;
        }
        let Some((id, _)) = line.strip_prefix("- **").and_then(id_prefix) else { continue };
        assert_eq!(Some(id.section), section, "{id} sits outside section {}", id.section);
        let expected = previous.map_or(1, |p| p.number + 1);
        let after = previous.map_or(format!("the heading of section {}", id.section), |p| p.to_string());
        assert_eq!(id.number, expected, "{id} follows {after}: the rules of a section are numbered 1, 2, 3 …");
        previous = Some(id);
    }
    let rules = parse_rules_md(&text);
    let unique: BTreeSet<Id> = rules.ids.iter().copied().collect();
    assert_eq!(unique.len(), rules.ids.len(), "a rule is listed twice");
    assert!(!rules.ids.is_empty(), "RULES.md lists no rules");
}

// Rule list: RULES.md lists exactly the IDs and sections SPEC.md defines,
// when SPEC.md sits beside the checkout (it is not part of the repository).
#[test]
fn rules_md_lists_exactly_the_ids_of_spec_md() {
    let spec_path = repo_root().join("../shared/SPEC.md");
    if !spec_path.is_file() {
        println!("skipped comparing RULES.md with SPEC.md: {} is not beside the checkout", spec_path.display());
        return;
    }
    let spec = parse_spec_md(&read(&spec_path));
    let rules = parse_rules_md(&read(&repo_root().join("RULES.md")));
    assert!(!spec.ids.is_empty(), "no rule IDs found in {}: has its format changed?", spec_path.display());

    let show = |ids: Vec<&Id>| ids.iter().map(|id| id.to_string()).collect::<Vec<_>>().join(", ");
    let missing = show(spec.ids.iter().filter(|id| !rules.ids.contains(id)).collect());
    let extra = show(rules.ids.iter().filter(|id| !spec.ids.contains(id)).collect());
    assert!(missing.is_empty() && extra.is_empty(), "RULES.md lacks [{missing}] and adds [{extra}] against SPEC.md");
    assert_eq!(rules.ids, spec.ids, "RULES.md lists the rules in another order than SPEC.md");
    assert_eq!(rules.sections, spec.sections, "RULES.md's sections differ from SPEC.md's");
    println!("RULES.md lists the {} rule IDs of SPEC.md", spec.ids.len());
}

// Rule list: the citation forms the code uses parse as meant, and an ID that
// RULES.md does not define is reported with its file and line.
#[test]
fn citation_forms_parse_and_unknown_ids_are_reported() {
    let rule = |s: &str| Cited::Rule(id_prefix(s).expect("an ID").0);
    let range = |a: &str, b: &str| Cited::Range(id_prefix(a).expect("an ID").0, id_prefix(b).expect("an ID").0);
    let items = |text: &str| -> Vec<Vec<Cited>> {
        citations_in(Path::new("x.rs"), text).into_iter().map(|c| c.items).collect()
    };
    assert_eq!(items("// SPEC S7"), [vec![rule("S7")]]);
    assert_eq!(items("/// rounded (SPEC S4, S6)."), [vec![rule("S4"), rule("S6")]]);
    assert_eq!(items("//! SPEC E9, E11, E15 and N1: x"), [vec![rule("E9"), rule("E11"), rule("E15"), rule("N1")]]);
    assert_eq!(items("(SPEC U4, D5)"), [vec![rule("U4"), rule("D5")]]);
    assert_eq!(items("SPEC A1–A15: x"), [vec![range("A1", "A15")]]);
    assert_eq!(items("SPEC A1-A15, C"), [vec![range("A1", "A15"), Cited::Section('C')]]);
    assert_eq!(items("SPEC R1–3)"), [vec![range("R1", "R3")]]);
    assert_eq!(items("(SPEC T, U): x"), [vec![Cited::Section('T'), Cited::Section('U')]]);
    assert_eq!(items("SPEC R2, untrusted input"), [vec![rule("R2")]]);
    assert_eq!(items("// SPEC D2, A12,\n// A13: x"), [vec![rule("D2"), rule("A12"), rule("A13")]]);
    assert!(items("the SPEC rule they cover; SPEC.md; RSPEC S7; SPEC Claims").is_empty());

    // Built at run time, so this file itself never cites a rule that does not exist.
    let bogus = format!("// {} S4, S99 and Q1–Q3", "SPEC");
    let rules = RuleList { ids: vec![Id { section: 'S', number: 4 }], sections: vec!['S'] };
    let citations = citations_in(Path::new("engine/src/x.rs"), &format!("\n{bogus}"));
    assert_eq!(
        unresolved(&citations, &rules),
        ["  engine/src/x.rs:2: S99 is not a rule", "  engine/src/x.rs:2: Q1–Q3 includes Q1, Q2, Q3, not rules"]
    );
}
