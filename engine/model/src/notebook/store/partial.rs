//! One run read without parsing the rest of the notebook (issue 50): what
//! `show --run N` shows is the run, the comparison it is an arm of and that
//! comparison's other run, so only their lines are parsed.
//!
//! notebook.ron is written one row a line ([`super::snapshot_text`]), with
//! every text escaped onto its line, so a section's rows are the lines
//! between its `name: [` and its `],`. A file not laid out so (edited by
//! hand) is read whole instead; the journal's rows, which replace or add
//! to the snapshot's, are taken by number.

use std::collections::BTreeMap;
use std::path::Path;

use super::journal::{self, Edit, Record};
use super::{LoadError, Notebook, load, parse_snapshot, read_journal, read_notebook_file};
use crate::notebook::{Pair, Run};

/// A notebook holding run `number` of the notebook in `dir`, the
/// comparison it is an arm of and that comparison's other run, as the
/// snapshot and its journal hold them — and nothing else: for showing
/// that run, never for saving. When the file is not laid out as Vernier
/// writes it, or the journal does not name rows by number the way this
/// reads them, the whole notebook is loaded instead.
pub fn load_run(dir: &Path, number: u32) -> Result<Notebook, LoadError> {
    match read_run(dir, number)? {
        Some(notebook) => Ok(notebook),
        None => load(dir),
    }
}

fn read_run(dir: &Path, number: u32) -> Result<Option<Notebook>, LoadError> {
    let journal = read_journal(dir)?;
    let (bytes, _, path) = read_notebook_file(dir)?;
    let Ok(text) = std::str::from_utf8(crate::bounded::without_bom(&bytes)) else { return Ok(None) };
    let Some(runs) = section(text, "runs") else { return Ok(None) };
    let Some(comparisons) = section(text, "comparisons") else { return Ok(None) };
    let Some(journalled) = journalled(&journal) else { return Ok(None) };

    // The comparisons, the journal's replacing the snapshot's by number.
    let mut pairs: BTreeMap<u32, Pair> = BTreeMap::new();
    let (mut head, _) = parse_snapshot(sparse(text, &[], &comparisons).as_bytes(), &path)?;
    for pair in head.pairs.drain(..).chain(journalled.pairs) {
        pairs.insert(pair.number, pair);
    }
    let pair = pairs.into_values().find(|p| p.runs.contains(&number));
    let wanted: Vec<u32> = pair.as_ref().map_or_else(|| vec![number], |p| p.runs.to_vec());

    // The runs wanted, from their lines in the snapshot, then the journal's.
    let lines: Vec<&str> =
        runs.iter().copied().filter(|line| wanted.contains(&run_number(line).unwrap_or(0))).collect();
    let (mut notebook, _) = parse_snapshot(sparse(text, &lines, &[]).as_bytes(), &path)?;
    for run in journalled.runs.into_iter().filter(|r| wanted.contains(&r.number)) {
        match notebook.runs.iter_mut().find(|r| r.number == run.number) {
            Some(slot) => *slot = run,
            None => notebook.runs.push(run),
        }
    }
    notebook.pairs = pair.into_iter().collect();
    Ok(Some(notebook))
}

/// The runs and comparisons the journal holds, each as last written;
/// `None` when a line cannot be read (the whole load then says why).
struct Journalled {
    runs: Vec<Run>,
    pairs: Vec<Pair>,
}

fn journalled(bytes: &[u8]) -> Option<Journalled> {
    let mut out = Journalled { runs: Vec::new(), pairs: Vec::new() };
    for line in journal::whole_lines(bytes) {
        let record: Record = ron::from_str(std::str::from_utf8(line).ok()?).ok()?;
        for edit in record.edits {
            match edit {
                // Rows are never removed from the log (N5): a run is
                // taken by its number, wherever the record puts it.
                Edit::Runs(items) => out.runs.extend(items.into_parts().1.into_iter().map(|(_, r)| Run::from(r))),
                Edit::Comparisons(items) => out.pairs.extend(items.into_parts().1.into_iter().map(|(_, p)| p)),
                _ => {}
            }
        }
    }
    // Later lines replace earlier ones: keep the last of each number.
    out.runs.reverse();
    let mut seen = std::collections::HashSet::new();
    out.runs.retain(|r| seen.insert(r.number));
    Some(out)
}

/// The rows of section `name` as its lines (trimmed, without the comma),
/// when it is laid out one row a line.
fn section<'a>(text: &'a str, name: &str) -> Option<Vec<&'a str>> {
    let open = format!("\n    {name}: [");
    let start = text.find(&open)? + open.len();
    let rest = &text[start..];
    if rest.starts_with("],") || rest.starts_with(']') {
        return Some(Vec::new());
    }
    let rest = rest.strip_prefix('\n')?;
    let end = rest.find("\n    ],")?;
    Some(rest[..end].lines().map(|l| l.trim().trim_end_matches(',')).collect())
}

/// The number a run's line starts with.
fn run_number(line: &str) -> Option<u32> {
    let rest = line.strip_prefix("Run(number: ")?;
    rest[..rest.find(|c: char| !c.is_ascii_digit())?].parse().ok()
}

/// The head of the snapshot (everything before its predictions: schema,
/// title, Environment, snapshot table) with only `runs` and `comparisons`
/// as rows: a notebook.ron of its own.
fn sparse(text: &str, runs: &[&str], comparisons: &[&str]) -> String {
    let head = text.find("\n    predictions: [").map_or(text, |end| &text[..end]);
    let rows = |rows: &[&str]| rows.iter().map(|r| format!("{r},")).collect::<String>();
    format!(
        "{head}\n    predictions: [],\n    runs: [{}],\n    soaks: [],\n    comparisons: [{}],\n    notes: [],\n)\n",
        rows(runs),
        rows(comparisons)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_is_its_lines() {
        let text = "Notebook(\n    runs: [\n        Run(number: 1, a: 2),\n        Run(number: 12, a: 3),\n    ],\n    soaks: [],\n)";
        assert_eq!(section(text, "runs"), Some(vec!["Run(number: 1, a: 2)", "Run(number: 12, a: 3)"]));
        assert_eq!(section(text, "soaks"), Some(vec![]));
        assert_eq!(section(text, "notes"), None);
        assert_eq!(run_number("Run(number: 12, a: 3)"), Some(12));
    }
}
