//! Issue 46: one meaning per name. No public type (`pub struct`, `enum`,
//! `trait`, `type`, `union`) is defined under the same name in two places of
//! the engine crates and the app, so a name read anywhere means one thing.
//! Two definitions in one file are one type written per platform (its
//! `#[cfg(target_os …)]` twins); a family of one meaning in one folder is
//! listed in [`FAMILIES`] with its reason.

use std::collections::BTreeMap;
use std::fs;

use crate::layers::{root, rust_files};
use crate::typed_errors::{code_only, without_test_modules};

/// Every crate's sources the names are read from.
const SOURCES: [&str; 4] = ["engine/src", "engine/model/src", "engine/instrument/src", "app/src"];

/// Names one folder defines once per part, with the same meaning in each:
/// (name, folder, why).
const FAMILIES: [(&str, &str, &str); 1] =
    [("State", "app/src/gui/views", "each section's own view state, held by `Views` under the section's name")];

/// The public type names `code` defines, with their lines.
fn public_types(code: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for (i, line) in code.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("pub ") else { continue };
        for keyword in ["struct ", "enum ", "trait ", "type ", "union "] {
            if let Some(after) = rest.strip_prefix(keyword) {
                let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    found.push((name, i + 1));
                }
            }
        }
    }
    found
}

/// Each name defined in more than one file (families allowed), with where.
fn defined_twice(files: &[(String, String)]) -> BTreeMap<String, Vec<String>> {
    let mut by_name: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for (path, text) in files {
        for (name, line) in public_types(&without_test_modules(&code_only(text))) {
            by_name.entry(name).or_default().entry(path.clone()).or_insert(line);
        }
    }
    by_name
        .into_iter()
        .filter(|(name, places)| {
            let family = FAMILIES.iter().find(|(n, _, _)| n == name);
            let in_family =
                |path: &String| family.is_some_and(|(_, folder, _)| path.starts_with(&format!("{folder}/")));
            places.len() > 1 && !places.keys().all(in_family)
        })
        .map(|(name, places)| (name, places.into_iter().map(|(p, l)| format!("{p}:{l}")).collect()))
        .collect()
}

fn sources() -> Vec<(String, String)> {
    let root = root();
    let mut files = Vec::new();
    for dir in SOURCES {
        for path in rust_files(&root.join(dir)) {
            let text = fs::read_to_string(&path).expect("read source");
            let shown = path.strip_prefix(&root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            files.push((shown, text));
        }
    }
    files
}

#[test]
fn no_public_type_name_has_two_definitions() {
    let twice = defined_twice(&sources());
    let list: Vec<String> = twice.iter().map(|(name, places)| format!("{name}: {}", places.join(", "))).collect();
    assert!(twice.is_empty(), "public type names defined in more than one file:\n{}", list.join("\n"));
}

#[test]
fn every_family_is_still_one() {
    let files = sources();
    for (name, folder, why) in FAMILIES {
        let members = files
            .iter()
            .filter(|(path, text)| {
                path.starts_with(&format!("{folder}/")) && public_types(&code_only(text)).iter().any(|(n, _)| n == name)
            })
            .count();
        assert!(members > 1, "{name} is no longer a family in {folder} ({why}): take it off FAMILIES");
    }
}

#[test]
fn the_check_sees_a_second_meaning_and_leaves_a_platform_twin_alone() {
    let file = |path: &str, text: &str| (path.to_owned(), text.to_owned());
    let files = [
        file(
            "engine/src/a.rs",
            "pub struct Plan { x: u8 }\n#[cfg(unix)]\npub struct Twin;\n#[cfg(windows)]\npub struct Twin;\n",
        ),
        file("app/src/b.rs", "/// pub struct Quoted;\npub(crate) struct Local;\n    pub enum Plan { A }\n"),
        file("app/src/c.rs", "const S: &str = \"pub struct Twin;\";\nstruct Local;\n"),
        file("app/src/gui/views/x.rs", "pub struct State;\n"),
        file("app/src/gui/views/y.rs", "pub struct State;\n"),
    ];
    let twice = defined_twice(&files);
    assert_eq!(twice.keys().collect::<Vec<_>>(), ["Plan"], "{twice:?}");
    assert_eq!(twice["Plan"], ["app/src/b.rs:3", "engine/src/a.rs:1"]);
}

#[test]
fn a_family_member_outside_its_folder_is_a_second_meaning() {
    let files = [
        ("app/src/gui/views/x.rs".to_owned(), "pub struct State;\n".to_owned()),
        ("engine/src/machine.rs".to_owned(), "pub enum State { On }\n".to_owned()),
    ];
    assert!(defined_twice(&files).contains_key("State"));
}
