//! The engine's layers, kept by the compiler and checked here: the crates'
//! dependencies point only down (read from `cargo metadata`, not grepped),
//! the model and the instrument pull in no document or GUI crate, and inside
//! each engine crate the top-level modules form no cycle (a child may use
//! its parent; that is not an edge between top-level modules).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Vernier's own crates, bottom first: each may depend only on those before it.
const LAYERS: [&str; 4] = ["vernier-model", "vernier-instrument", "vernier-engine", "vernier"];

/// Crates that read or write documents and other people's files: only the
/// top engine crate (and the faces above it) may pull them in.
const DOCUMENT_CRATES: [&str; 9] =
    ["calamine", "rust_xlsxwriter", "zip", "plotters", "pulldown-cmark", "roxmltree", "quick-xml", "png", "flate2"];

/// GUI crates: only the app may pull them in.
const GUI_CRATES: [&str; 9] =
    ["egui", "eframe", "egui_plot", "egui_extras", "egui_kittest", "rfd", "winit", "wgpu", "glow"];

/// The repository's root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The targets whose dependencies are checked: the students' laptops and
/// this machine.
const TARGETS: [&str; 3] = ["x86_64-unknown-linux-gnu", "aarch64-apple-darwin", "x86_64-pc-windows-gnu"];

/// The workspace's `cargo metadata` with the dependencies built for
/// `target` (one target per call: cargo takes one `--filter-platform`).
fn metadata(target: &str) -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--filter-platform", target])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

/// Package id → name, and id → the ids of its normal (non-dev, non-build)
/// dependencies, from the resolve graph.
fn graph(meta: &Value) -> (BTreeMap<String, String>, BTreeMap<String, Vec<String>>) {
    let names = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| (p["id"].as_str().expect("id").to_owned(), p["name"].as_str().expect("name").to_owned()))
        .collect();
    let deps = meta["resolve"]["nodes"]
        .as_array()
        .expect("resolve nodes")
        .iter()
        .map(|node| {
            let normal = node["deps"]
                .as_array()
                .expect("deps")
                .iter()
                .filter(|d| d["dep_kinds"].as_array().expect("dep_kinds").iter().any(|k| k["kind"].is_null()))
                .map(|d| d["pkg"].as_str().expect("pkg").to_owned())
                .collect();
            (node["id"].as_str().expect("id").to_owned(), normal)
        })
        .collect();
    (names, deps)
}

/// Every crate `name` pulls in through normal dependencies, itself excluded.
fn reachable(name: &str, names: &BTreeMap<String, String>, deps: &BTreeMap<String, Vec<String>>) -> BTreeSet<String> {
    let start = names.iter().find(|(_, n)| *n == name).map(|(id, _)| id.clone()).expect("a workspace crate");
    let mut seen = BTreeSet::new();
    let mut todo = vec![start.clone()];
    while let Some(id) = todo.pop() {
        for dep in deps.get(&id).into_iter().flatten() {
            if seen.insert(dep.clone()) {
                todo.push(dep.clone());
            }
        }
    }
    seen.remove(&start);
    seen.iter().map(|id| names[id].clone()).collect()
}

/// What is wrong with the crate graph: upward edges between Vernier's crates,
/// and document or GUI crates below where they belong.
fn crate_graph_findings(meta: &Value) -> Vec<String> {
    let (names, deps) = graph(meta);
    let mut findings = Vec::new();
    for (id, name) in &names {
        let Some(layer) = LAYERS.iter().position(|l| l == name) else { continue };
        for dep in deps.get(id).into_iter().flatten() {
            let dep_name = &names[dep];
            if let Some(dep_layer) = LAYERS.iter().position(|l| l == dep_name)
                && dep_layer >= layer
            {
                findings.push(format!("{name} depends on {dep_name}, which is not below it"));
            }
        }
    }
    for (name, banned, what) in [
        ("vernier-model", &DOCUMENT_CRATES[..], "document"),
        ("vernier-instrument", &DOCUMENT_CRATES[..], "document"),
        ("vernier-model", &GUI_CRATES[..], "GUI"),
        ("vernier-instrument", &GUI_CRATES[..], "GUI"),
        ("vernier-engine", &GUI_CRATES[..], "GUI"),
    ] {
        for pulled in reachable(name, &names, &deps) {
            if banned.contains(&pulled.as_str()) {
                findings.push(format!("{name} pulls in the {what} crate {pulled}"));
            }
        }
    }
    findings
}

// The crates' dependencies point only down, and the layers below the
// documents pull in no document or GUI crate.
#[test]
fn the_crate_graph_points_only_down() {
    for target in TARGETS {
        let meta = metadata(target);
        let (names, _) = graph(&meta);
        for layer in LAYERS {
            assert!(names.values().any(|n| n == layer), "the workspace has no crate {layer}");
        }
        let findings = crate_graph_findings(&meta);
        assert!(findings.is_empty(), "for {target}:\n{}", findings.join("\n"));
    }
}

// The check itself: an upward edge and a document crate in the model, written
// into a copy of the metadata, are both found.
#[test]
fn the_crate_graph_check_finds_an_upward_edge() {
    let mut meta = metadata(TARGETS[0]);
    let id_of = |meta: &Value, name: &str| {
        meta["packages"].as_array().expect("packages").iter().find(|p| p["name"] == name).expect("package")["id"]
            .clone()
    };
    let model = id_of(&meta, "vernier-model");
    let engine = id_of(&meta, "vernier-engine");
    let zip = id_of(&meta, "zip");
    for node in meta["resolve"]["nodes"].as_array_mut().expect("nodes") {
        if node["id"] == model {
            for dep in [&engine, &zip] {
                node["deps"].as_array_mut().expect("deps").push(serde_json::json!({
                    "pkg": dep, "dep_kinds": [{ "kind": null, "target": null }]
                }));
            }
        }
    }
    let findings = crate_graph_findings(&meta);
    assert!(
        findings.iter().any(|f| f == "vernier-model depends on vernier-engine, which is not below it"),
        "{findings:?}"
    );
    assert!(findings.iter().any(|f| f == "vernier-model pulls in the document crate zip"), "{findings:?}");
}

/// The top-level modules a crate declares in its `lib.rs`.
pub(crate) fn top_modules(src: &Path) -> BTreeSet<String> {
    let lib = fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ").or_else(|| l.trim().strip_prefix("mod ")))
        .map(|m| m.trim_end_matches(';').to_owned())
        .collect()
}

/// Rust files under `dir`.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The crates whose modules are checked for cycles, by source folder: the
/// three engine crates and the app's library (the window and the command
/// line).
const CRATE_SOURCES: [(&str, &str); 4] = [
    ("vernier-model", "engine/model/src"),
    ("vernier-instrument", "engine/instrument/src"),
    ("vernier-engine", "engine/src"),
    ("vernier", "app/src"),
];

/// A token of Rust source as far as module paths need: an identifier (or
/// keyword), `::`, or one punctuation character. Comments, strings and
/// character literals are dropped, so a doc link or a message naming
/// `crate::x` is not a dependency.
#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Path,
    Punct(char),
}

/// The tokens of `text`.
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (at(i + 1) == '#' || at(i + 1) == '"') && {
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            at(i + 1 + hashes) == '"'
        } {
            // A raw string: r"…", r#"…"#.
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            i += 2 + hashes;
            while i < chars.len() && !(chars[i] == '"' && chars[i + 1..].iter().take(hashes).all(|c| *c == '#')) {
                i += 1;
            }
            i += 1 + hashes;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let word: String = chars[i..].iter().take_while(|c| c.is_alphanumeric() || **c == '_').collect();
            i += word.chars().count();
            out.push(Token::Word(word));
        } else if c == ':' && at(i + 1) == ':' {
            out.push(Token::Path);
            i += 2;
        } else if c.is_whitespace() || c.is_ascii_digit() {
            i += 1;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

/// The paths a `use` tree names, its groups expanded
/// (`use super::{a, b::{c, self}}` → `super::a`, `super::b::c`, `super::b`).
/// `tokens` start after `use`; returns the paths and the tokens read.
fn use_paths(tokens: &[Token]) -> (Vec<Vec<String>>, usize) {
    fn tree(tokens: &[Token], mut i: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
        let mut path = prefix.to_vec();
        loop {
            match tokens.get(i) {
                Some(Token::Word(w)) if w == "as" => {
                    i += 2;
                    break;
                }
                Some(Token::Word(w)) => {
                    if w != "self" || path.is_empty() {
                        path.push(w.clone());
                    }
                    i += 1;
                }
                Some(Token::Path) => i += 1,
                Some(Token::Punct('{')) => {
                    i += 1;
                    while !matches!(tokens.get(i), Some(Token::Punct('}')) | None) {
                        i = tree(tokens, i, &path, out);
                        if matches!(tokens.get(i), Some(Token::Punct(','))) {
                            i += 1;
                        }
                    }
                    return i + 1;
                }
                Some(Token::Punct('*')) => {
                    i += 1;
                    break;
                }
                _ => break,
            }
        }
        out.push(path);
        i
    }
    let mut out = Vec::new();
    let read = tree(tokens, 0, &[], &mut out);
    (out, read)
}

/// A module's path from its crate's root, by its file:
/// `notebook/store.rs` and `notebook/store/mod.rs` → `notebook::store`.
fn file_module(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib") {
        parts.push(stem.to_owned());
    }
    parts
}

/// Where a path written in module `at` leads, from the crate's root; `None`
/// for a path into another crate.
fn resolve(at: &[String], path: &[String], modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let (mut base, rest) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (at.to_vec(), &path[1..]),
        Some("super") => (at.to_vec(), path),
        Some(first) => {
            // A child module named without `self::` (2018 paths).
            let mut child = at.to_vec();
            child.push(first.to_owned());
            if !modules.contains(&child) {
                return None;
            }
            (at.to_vec(), path)
        }
        None => return None,
    };
    let mut full = Vec::new();
    let mut supers = true;
    for seg in rest {
        if supers && seg == "super" {
            base.pop();
            continue;
        }
        supers = false;
        full.push(seg.clone());
    }
    base.extend(full);
    Some(base)
}

/// The modules of the crate under `src` (files, and inline `mod x { … }`),
/// test modules (`tests`) left out, and each one's code as tokens with the
/// inline modules it holds.
struct CrateCode {
    modules: BTreeSet<Vec<String>>,
    files: Vec<(Vec<String>, Vec<Token>)>,
}

fn crate_code(src: &Path) -> CrateCode {
    let mut modules = BTreeSet::new();
    let mut files = Vec::new();
    for file in rust_files(src) {
        let rel = file.strip_prefix(src).expect("under src");
        if rel == Path::new("main.rs") {
            continue; // the binary: a crate of its own over the library
        }
        let module = file_module(rel);
        if module.iter().any(|m| m == "tests") {
            continue;
        }
        let toks = tokens(&fs::read_to_string(&file).expect("read"));
        for w in toks.windows(3) {
            if let [Token::Word(m), Token::Word(name), Token::Punct('{')] = w
                && m == "mod"
            {
                let mut inline = module.clone();
                inline.push(name.clone());
                modules.insert(inline);
            }
        }
        modules.insert(module.clone());
        files.push((module, toks));
    }
    CrateCode { modules, files }
}

/// Module → the modules its code names (each path resolved to the deepest
/// module it passes through): `use` trees with their groups, and paths that
/// start with `crate::`, `self::` or `super::` anywhere in the code. Test
/// modules (`mod tests`) are left out: a test may build its fixture from a
/// sibling without the code depending on it.
fn references(code: &CrateCode) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut refs: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, toks) in &code.files {
        // The inline modules open at each point, with the brace depth that closes each.
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0usize;
        let mut i = 0;
        while i < toks.len() {
            let mut paths = Vec::new();
            match &toks[i] {
                Token::Punct('{') => depth += 1,
                Token::Punct('}') => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                Token::Word(w) if w == "mod" => {
                    if let (Some(Token::Word(name)), Some(Token::Punct('{'))) = (toks.get(i + 1), toks.get(i + 2)) {
                        depth += 1;
                        inline.push((name.clone(), depth));
                        i += 3;
                        continue;
                    }
                }
                Token::Word(w) if w == "use" => {
                    let (found, read) = use_paths(&toks[i + 1..]);
                    paths = found;
                    i += read;
                }
                Token::Word(w)
                    if matches!(w.as_str(), "crate" | "self" | "super")
                        && matches!(toks.get(i + 1), Some(Token::Path)) =>
                {
                    let mut path = vec![w.clone()];
                    let mut j = i + 1;
                    while let (Some(Token::Path), Some(Token::Word(seg))) = (toks.get(j), toks.get(j + 1)) {
                        path.push(seg.clone());
                        j += 2;
                    }
                    paths.push(path);
                    i = j - 1;
                }
                _ => {}
            }
            let mut at = module.clone();
            at.extend(inline.iter().map(|(n, _)| n.clone()));
            if !inline.iter().any(|(n, _)| n == "tests") {
                for path in paths {
                    if let Some(full) = resolve(&at, &path, &code.modules) {
                        // The deepest module the path passes through.
                        let target = (0..=full.len())
                            .rev()
                            .map(|n| full[..n].to_vec())
                            .find(|m| code.modules.contains(m))
                            .unwrap_or_default();
                        refs.entry(at.clone()).or_default().insert(target);
                    }
                }
            }
            i += 1;
        }
    }
    refs
}

/// For each module with children, which of its children use which: a
/// reference from anywhere under child `a` to anywhere under its sibling `b`
/// is the edge `a → b`. A module using its ancestor or its own descendant
/// is no edge (a child may use its parent).
fn sibling_edges(
    refs: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
) -> BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> {
    let mut levels: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, targets) in refs {
        for to in targets {
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == to.len() {
                continue; // an ancestor, itself, or a descendant
            }
            levels
                .entry(from[..common].to_vec())
                .or_default()
                .entry(from[common].clone())
                .or_default()
                .insert(to[common].clone());
        }
    }
    levels
}

/// Every module cycle in the crate under `src`, one line each:
/// "under notebook: error → environment → error".
fn module_cycles(src: &Path) -> Vec<String> {
    let levels = sibling_edges(&references(&crate_code(src)));
    let mut cycles = Vec::new();
    for (parent, edges) in &levels {
        let mut edges = edges.clone();
        // Each cycle once: report it, then cut its first edge and look again.
        while let Some(cycle) = find_cycle(&edges) {
            let under = if parent.is_empty() { "the crate root".to_owned() } else { parent.join("::") };
            cycles.push(format!("under {under}: {}", cycle.join(" → ")));
            if let Some(out) = edges.get_mut(&cycle[0]) {
                out.remove(&cycle[1]);
            }
        }
    }
    cycles
}

/// A cycle among `edges`, as the path that closes it, if there is one.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|start| visit(start, edges, &mut Vec::new(), &mut done))
}

// No cycle between the modules of any crate, at any depth: siblings under
// one parent (top-level modules under the crate root, `notebook::error` and
// `notebook::environment` under `notebook`, …) use each other one way only.
// `super::`, grouped `use` trees and the app's window and command line
// are read too.
#[test]
fn no_crate_has_a_module_cycle() {
    let mut found = Vec::new();
    for (name, src) in CRATE_SOURCES {
        let code = crate_code(&root().join(src));
        assert!(code.modules.len() > 3, "{name}: no modules read from {src}");
        found.extend(module_cycles(&root().join(src)).into_iter().map(|c| format!("{name}, {c}")));
    }
    assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
}

// The reading itself: a grouped `use` under `super::`, a path through
// `crate::` in code, a test module's use of its parent and a comment or a
// string naming a module are told apart, on a crate written here.
#[test]
fn the_module_reading_finds_cycles_one_level_down() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    };
    write("lib.rs", "pub mod notebook;\npub mod stats;\n");
    write("notebook/mod.rs", "mod error;\nmod environment;\n// crate::stats is named in a comment only\n");
    write("notebook/error.rs", "use super::{environment::{self, Env}, super::stats};\n");
    write("notebook/environment.rs", "pub fn f() { crate::notebook::error::g(); let s = \"crate::stats\"; }\n");
    write("stats.rs", "#[cfg(test)]\nmod tests { use crate::notebook::error; use super::*; }\n");
    let cycles = module_cycles(dir.path());
    assert_eq!(cycles, ["under notebook: environment → error → environment"], "{cycles:?}");
    // The edge from notebook into stats is one way (its use in stats' tests is left out).
    let levels = sibling_edges(&references(&crate_code(dir.path())));
    assert_eq!(levels[&Vec::<String>::new()].get("stats"), None, "{levels:?}");
    assert!(levels[&Vec::<String>::new()]["notebook"].contains("stats"), "{levels:?}");
}

// The cycle finder finds a cycle of two and one of three, and none in a chain.
#[test]
fn the_cycle_finder_finds_cycles() {
    let edges = |pairs: &[(&str, &str)]| {
        let mut e: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            e.entry((*a).to_owned()).or_default().insert((*b).to_owned());
        }
        e
    };
    assert_eq!(find_cycle(&edges(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(find_cycle(&edges(&[("a", "b"), ("b", "a")])).map(|c| c.len()), Some(3));
    let three = find_cycle(&edges(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])).expect("a cycle");
    assert_eq!(three.first(), three.last());
    assert_eq!(three.len(), 4);
}
