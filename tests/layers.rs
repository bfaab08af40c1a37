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
const DOCUMENT_CRATES: [&str; 8] =
    ["calamine", "rust_xlsxwriter", "zip", "plotters", "pulldown-cmark", "roxmltree", "png", "flate2"];

/// GUI crates: only the app may pull them in.
const GUI_CRATES: [&str; 9] =
    ["egui", "eframe", "egui_plot", "egui_extras", "egui_kittest", "rfd", "winit", "wgpu", "glow"];

/// The engine crates whose modules are checked for cycles, by source folder.
const ENGINE_SOURCES: [(&str, &str); 3] = [
    ("vernier-model", "engine/model/src"),
    ("vernier-instrument", "engine/instrument/src"),
    ("vernier-engine", "engine/src"),
];

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

/// Top-level module → the other top-level modules its code names as
/// `crate::other` (comments left out: a doc link is not a dependency).
fn module_edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let tops = top_modules(src);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(src) {
        let rel = file.strip_prefix(src).expect("under src");
        let first = rel.components().next().expect("a component").as_os_str().to_string_lossy();
        let from = first.trim_end_matches(".rs").to_owned();
        if !tops.contains(&from) {
            continue;
        }
        let text = fs::read_to_string(&file).expect("read");
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or_default();
            for (at, _) in code.match_indices("crate::") {
                let name: String =
                    code[at + "crate::".len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if name != from && tops.contains(&name) {
                    edges.entry(from.clone()).or_default().insert(name);
                }
            }
        }
    }
    edges
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

// No cycle between the top-level modules of any engine crate.
#[test]
fn no_engine_crate_has_a_module_cycle() {
    for (name, src) in ENGINE_SOURCES {
        let edges = module_edges(&root().join(src));
        assert!(!edges.is_empty() || name == "vernier-model", "{name}: no module edges read from {src}");
        if let Some(cycle) = find_cycle(&edges) {
            panic!("{name}: its modules form a cycle: {}", cycle.join(" → "));
        }
    }
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
