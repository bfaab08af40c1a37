//! Conditions stated once (SPEC D8, N2): a table of rows measured under
//! mostly the same conditions says what every row shares once, above it,
//! and in each row only what differs — or "as run 3" where another row
//! differs in just the same way, as the course's log writes "as S1". The
//! rows keep every condition; this is only how a table shows them.

use std::borrow::Borrow;
use std::collections::{HashMap, VecDeque};

use super::condition::BriefPart;

/// How many of the latest distinct ways rows differ a row may be said
/// through ("as run 3 but …").
const ANCHORS: usize = 16;

/// One row's brief conditions, and how another row's cell names it.
#[derive(Debug, Clone)]
pub struct RowParts {
    /// How a cell refers to the row: `run 3`.
    pub label: String,
    /// Its brief conditions, part by part.
    pub parts: Vec<BriefPart>,
}

impl RowParts {
    /// Every part, `part; part`: the row's conditions in full.
    pub fn text(&self) -> String {
        join(self.parts.iter())
    }
}

/// A table's conditions split into what every row shares and each row's own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SharedConditions {
    /// What every row states, in the first row's order; empty for fewer
    /// than two rows, where there is nothing to say once.
    pub shared: Vec<BriefPart>,
    /// Each row's cell, in the rows' order: what it states beyond the
    /// shared part, `as run 3`, or the caller's words for nothing more.
    pub cells: Vec<String>,
}

/// `part; part`.
fn join<'a>(parts: impl Iterator<Item = &'a BriefPart>) -> String {
    parts.map(|p| p.text.as_str()).collect::<Vec<_>>().join("; ")
}

/// The name a part states a value under, `canary end/start` of
/// `canary end/start: 0.98`; a part without one is its own name, so it is
/// never taken for another value of something.
fn field(part: &BriefPart) -> &str {
    part.text.split_once(": ").map_or(part.text.as_str(), |(field, _)| field)
}

/// `parts` said through an earlier row's own `theirs`: `as run 3`, or `as
/// run 3 but canary end/start: 0.98` when some of its values differ. `None`
/// when that row states something this one does not restate (it would be
/// claimed of this row too) or shares nothing with it.
fn reference(label: &str, theirs: &[&BriefPart], parts: &[&BriefPart]) -> Option<String> {
    let extra: Vec<&BriefPart> = parts.iter().copied().filter(|p| !theirs.contains(p)).collect();
    let missing = theirs.iter().filter(|p| !parts.contains(p));
    let replaced = missing.clone().all(|m| extra.iter().any(|e| e.facet == m.facet && field(e) == field(m)));
    let common = parts.len() - extra.len();
    if !replaced || common == 0 {
        return None;
    }
    Some(if extra.is_empty() { format!("as {label}") } else { format!("as {label} but {}", join(extra.into_iter())) })
}

impl SharedConditions {
    /// Splits `rows` (owned, or shared by a caller that keeps them between
    /// splits); a row that states nothing beyond the shared part gets
    /// `nothing_more`.
    pub fn of<R: Borrow<RowParts>>(rows: &[R], nothing_more: &str) -> Self {
        let shared: Vec<BriefPart> = match rows {
            [first, _, ..] => first
                .borrow()
                .parts
                .iter()
                .filter(|part| rows.iter().all(|row| row.borrow().parts.contains(part)))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        let own: Vec<Vec<&BriefPart>> =
            rows.iter().map(|row| row.borrow().parts.iter().filter(|part| !shared.contains(part)).collect()).collect();
        // Each distinct way of differing, by the first row that said it;
        // a row that differs in some values from one of the last
        // ANCHORS of them says so through it. Bounded, so a notebook of
        // 10 000 runs splits in one pass, not in every pair of rows.
        let mut first_of: HashMap<String, usize> = HashMap::new();
        let mut anchors: VecDeque<usize> = VecDeque::new();
        let mut cells = Vec::with_capacity(rows.len());
        for (i, parts) in own.iter().enumerate() {
            if parts.is_empty() {
                cells.push(nothing_more.to_owned());
                continue;
            }
            let whole = join(parts.iter().copied());
            let through = match first_of.get(&whole) {
                Some(&k) => Some(format!("as {}", rows[k].borrow().label)),
                None => anchors
                    .iter()
                    .filter_map(|&k| reference(&rows[k].borrow().label, &own[k], parts))
                    .min_by_key(|text| text.chars().count()),
            };
            // Naming an earlier row only when that is shorter than saying it.
            let cell = through.filter(|text| text.chars().count() < whole.chars().count()).unwrap_or(whole.clone());
            if let std::collections::hash_map::Entry::Vacant(entry) = first_of.entry(whole) {
                entry.insert(i);
                anchors.push_back(i);
                if anchors.len() > ANCHORS {
                    anchors.pop_front();
                }
            }
            cells.push(cell);
        }
        Self { shared, cells }
    }

    /// The shared part as one line, `part; part`; empty when none.
    pub fn shared_text(&self) -> String {
        self.shared.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::Facet;

    fn row(label: &str, parts: &[&str]) -> RowParts {
        RowParts { label: label.to_owned(), parts: parts.iter().map(|p| BriefPart::conditions(*p)).collect() }
    }

    // SPEC D8: the shared part once; each row only what differs; a row
    // that differs just as an earlier one did names it when that is shorter.
    #[test]
    fn what_every_row_shares_is_said_once() {
        let long = "placement used: pinned to CPU 1";
        let rows = [
            row("run 1", &["power source: mains", "idle 2 min before", long]),
            row("run 2", &["power source: mains", "idle 2 min before", long]),
            row("run 3", &["power source: mains", "idle 2 min before", "not pinned (no --pin given)"]),
            row("run 4", &["power source: mains", "idle 2 min before", "not pinned (no --pin given)"]),
        ];
        let split = SharedConditions::of(&rows, "as shared above");
        assert_eq!(split.shared_text(), "power source: mains; idle 2 min before");
        assert_eq!(split.cells, [long, "as run 1", "not pinned (no --pin given)", "as run 3"]);
        // Every row alike: nothing more to say in any cell.
        let alike = [row("run 1", &["a", "b"]), row("run 2", &["b", "a"])];
        let split = SharedConditions::of(&alike, "as shared above");
        assert_eq!(split.shared_text(), "a; b");
        assert_eq!(split.cells, ["as shared above", "as shared above"]);
        // One row: nothing is shared, its cell says everything.
        let one = SharedConditions::of(&alike[..1], "as shared above");
        assert!(one.shared.is_empty());
        assert_eq!(one.cells, ["a; b"]);
        // A short difference is said again rather than referred to.
        let short = [row("run 1", &["a", "x"]), row("run 2", &["a", "x"]), row("run 3", &["a"])];
        assert_eq!(SharedConditions::of(&short, "-").cells, ["x", "x", "-"]);
        // A row that differs from an earlier one in a value says only that;
        // never "as" a row that states something it does not.
        let pinned = "placement used: pinned to CPU 1; build: g++ -O2 -std=c++17";
        let rows = [
            row("run 1", &["canary end/start: 0.98", "placement used: pinned to CPU 1", "build: g++ -O2 -std=c++17"]),
            row("run 2", &["canary end/start: 1.22", "placement used: pinned to CPU 1", "build: g++ -O2 -std=c++17"]),
            row("run 3", &["placement used: pinned to CPU 1", "build: g++ -O2 -std=c++17"]),
            row("run 4", &["power source: mains"]),
        ];
        let split = SharedConditions::of(&rows, "-");
        assert_eq!(split.cells[1], "as run 1 but canary end/start: 1.22");
        assert_eq!(split.cells[2], pinned, "run 3 has no canary: it is not 'as run 1'");
        // The same text under another facet is another part.
        let mut machine = row("run 2", &["a"]);
        machine.parts[0].facet = Facet::Machine;
        let split = SharedConditions::of(&[row("run 1", &["a"]), machine], "-");
        assert!(split.shared.is_empty(), "{split:?}");
    }

    // SPEC D8: ten thousand rows split in one pass; a row alike an early
    // one still names it, however far back.
    #[test]
    fn many_rows_split_in_one_pass() {
        let mut rows: Vec<RowParts> = (1..=10_000)
            .map(|n| {
                let canary = format!("canary end/start: {:.3}", 0.9 + f64::from(n % 97) / 1000.0);
                row(&format!("run {n}"), &["power source: mains", "placement used: pinned to CPU 1", &canary])
            })
            .collect();
        rows.push(row(
            "run 10001",
            &["power source: mains", "placement used: pinned to CPU 1", "canary end/start: 0.900"],
        ));
        let split = SharedConditions::of(&rows, "-");
        assert_eq!(split.shared_text(), "power source: mains; placement used: pinned to CPU 1");
        assert_eq!(split.cells[10_000], "as run 97", "the first row whose canary read 0.900");
        assert_eq!(split.cells.len(), 10_001);
    }
}
