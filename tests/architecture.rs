//! ARCHITECTURE.md is a map, and these tests keep the parts of it that code
//! can check true: each crate's module list is its `lib.rs`'s, and the
//! thread list is the threads the code names. (The crate graph is held by
//! `layers.rs`.)

use std::collections::BTreeSet;
use std::fs;

use crate::layers::{root, rust_files, top_modules};

fn architecture() -> String {
    fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

/// The text of the section whose heading line starts with `heading`, up to
/// the next heading of the same or a higher level.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text.find(&format!("\n{heading}")).unwrap_or_else(|| panic!("no section {heading}")) + 1;
    let level = heading.chars().take_while(|c| *c == '#').count();
    let body = &text[start..];
    let end = body[1..]
        .match_indices('\n')
        .map(|(i, _)| i + 2)
        .find(|&i| {
            let hashes = body[i..].chars().take_while(|c| *c == '#').count();
            (1..=level).contains(&hashes) && body[i..].chars().nth(hashes) == Some(' ')
        })
        .unwrap_or(body.len());
    &body[..end]
}

/// The names a section's bullets start with: "- `name` — …" gives `name`.
fn bullet_names(section: &str) -> BTreeSet<String> {
    section
        .lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split('`').next())
        .map(|name| name.trim_end_matches(".rs").to_owned())
        .collect()
}

// Each crate's section lists exactly the modules its lib.rs declares (the
// app's also its main.rs).
#[test]
fn each_crate_section_lists_its_modules() {
    let text = architecture();
    for (crate_name, src) in [
        ("vernier-model", "engine/model/src"),
        ("vernier-instrument", "engine/instrument/src"),
        ("vernier-engine", "engine/src"),
        ("vernier", "app/src"),
    ] {
        let listed = bullet_names(section(&text, &format!("### `{crate_name}` — `{src}/`")));
        let mut declared = top_modules(&root().join(src));
        if crate_name == "vernier" {
            declared.insert("main".to_owned());
        }
        assert_eq!(listed, declared, "ARCHITECTURE.md's {crate_name} section against {src}/lib.rs");
    }
}

/// The threads the engine and the app name: `.name("vernier-…")`, a
/// `…_THREAD` constant, and `format!("vernier-soak-{k}")` as `vernier-soak-N`.
/// A file's `mod tests` (to its end, where such modules sit) is left out.
fn named_threads() -> BTreeSet<String> {
    let files = ["engine/model/src", "engine/instrument/src", "engine/src", "app/src"]
        .into_iter()
        .flat_map(|dir| rust_files(&root().join(dir)))
        .filter(|p| p.file_name().is_some_and(|n| n != "tests.rs"));
    let mut names = BTreeSet::new();
    for file in files {
        let text = fs::read_to_string(&file).expect("read");
        let code = text.split("\nmod tests {").next().unwrap_or_default();
        for line in code.lines() {
            let named = line.contains(".name(") || line.contains("_THREAD: &str");
            let Some(at) = line.find("\"vernier-").filter(|_| named) else { continue };
            let rest = &line[at + 1..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '-').collect();
            let formatted = rest[name.len()..].starts_with('{');
            names.insert(if formatted { format!("{name}N") } else { name });
        }
    }
    names
}

// The Threads section lists exactly the threads the code names.
#[test]
fn the_thread_list_is_the_threads_the_code_names() {
    let text = architecture();
    let threads = section(&text, "## Threads");
    let listed: BTreeSet<String> =
        threads.split('`').skip(1).step_by(2).filter(|w| w.starts_with("vernier-")).map(str::to_owned).collect();
    let named = named_threads();
    assert!(named.contains("vernier-runner") && named.contains("vernier-soak-N"), "names read: {named:?}");
    assert_eq!(listed, named, "ARCHITECTURE.md's threads against the code");
}

// The section reader stops at the next heading of its level.
#[test]
fn a_section_ends_at_the_next_heading() {
    let text = "\n## A\none\n### B\ntwo\n## C\nthree\n";
    assert_eq!(section(text, "## A"), "## A\none\n### B\ntwo\n");
    assert_eq!(section(text, "### B"), "### B\ntwo\n");
    assert_eq!(bullet_names("- `main.rs` — x\n- `gui` — y\n  - `no`\n"), ["gui", "main"].map(String::from).into());
}

/// The names `file` reaches in its parent module through `super::`.
fn parent_names(file: &str) -> BTreeSet<String> {
    let text = fs::read_to_string(root().join(file)).expect("read");
    text.match_indices("super::")
        .map(|(at, _)| &text[at + "super::".len()..])
        .map(|rest| rest.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or_default().to_owned())
        .collect()
}

// SPEC E1: the window's file thread runs every dialog's disk work as a
// `Job` defined beside the dialog, so it names the window's change type and
// what a job answers (`Done`, a value), never a dialog or view.
#[test]
fn the_file_thread_names_no_dialog() {
    let names = parent_names("app/src/gui/io.rs");
    assert!(names.contains("Done"), "the reader sees io.rs's parent names: {names:?}");
    let allowed: BTreeSet<String> = ["Done", "Change", "Applied"].map(String::from).into();
    let past: Vec<_> = names.difference(&allowed).collect();
    assert!(past.is_empty(), "io.rs reaches past the app into {past:?}");
    let text = fs::read_to_string(root().join("app/src/gui/io.rs")).expect("read");
    assert!(!text.contains("crate::gui::"), "io.rs names a gui module by its full path");
}

// SPEC E1: the window's own jobs are one per file in `gui/jobs/`.
#[test]
fn the_windows_jobs_are_one_per_file() {
    let files: Vec<_> = rust_files(&root().join("app/src/gui/jobs"))
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "mod.rs"))
        .collect();
    assert!(files.len() >= 5, "the jobs are read: {files:?}");
    for file in files {
        let text = fs::read_to_string(&file).expect("read");
        assert_eq!(text.matches("impl Job for ").count(), 1, "{} holds one job", file.display());
    }
}

/// The test functions ARCHITECTURE.md names: `file.rs::name`, and a bare
/// `name` of a test (snake case, three words or more).
fn named_tests(text: &str) -> BTreeSet<(Option<String>, String)> {
    let snake = |t: &str| t.split('_').count() >= 3 && t.chars().all(|c| c.is_ascii_lowercase() || c == '_');
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|quoted| match quoted.split_once("::") {
            Some((file, name)) if file.ends_with(".rs") && snake(name) => {
                Some((Some(file.to_owned()), name.to_owned()))
            }
            None if snake(quoted) => Some((None, quoted.to_owned())),
            _ => None,
        })
        .collect()
}

// Issue 46: the map is short enough to read, and every test it says holds an
// invariant exists, in the file it names.
#[test]
fn the_map_is_short_and_its_tests_exist() {
    let text = architecture();
    let lines = text.lines().count();
    assert!(lines <= 150, "ARCHITECTURE.md has {lines} lines; keep it a map (≤ 150)");
    let named = named_tests(&text);
    assert!(named.len() >= 10, "the tests named are read: {named:?}");
    let sources: Vec<(String, String)> = ["tests", "app", "engine"]
        .iter()
        .flat_map(|dir| rust_files(&root().join(dir)))
        .filter(|p| !p.components().any(|c| c.as_os_str() == "target"))
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            (name, fs::read_to_string(&p).unwrap_or_default())
        })
        .collect();
    for (file, name) in named {
        let defines = |text: &String| text.contains(&format!("fn {name}("));
        let found = sources.iter().any(|(f, text)| file.as_ref().is_none_or(|file| f == file) && defines(text));
        assert!(
            found,
            "ARCHITECTURE.md names {}{name}, which no test defines",
            file.map(|f| f + "::").unwrap_or_default()
        );
    }
}

#[test]
fn named_tests_reads_files_and_bare_names() {
    let found = named_tests("see `a.rs::one_two_three`, `four_five_six`, `not_one`, `Gate`, `x.rs::y`.");
    let want: BTreeSet<_> =
        [(Some("a.rs".to_owned()), "one_two_three".to_owned()), (None, "four_five_six".to_owned())].into();
    assert_eq!(found, want);
}
