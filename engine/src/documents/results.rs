//! The report's Results as the course's worked report lays them out (SPEC
//! D8, A18, E16): one table of the kept results whose conditions are said
//! once — what every row shares in the header, each row's cell only what
//! differs — and each sweep as one table of its own, with its parameter as
//! a column and its chart after it, its points never repeated in the
//! results table.

use std::cell::OnceCell;

use super::blocks::{Block, TextRun as Text};
use super::chart;
use crate::notebook::{
    Brevity, Facet, Notebook, RowParts, RowRef, Run, RunColumn, SharedConditions, Soak, SoakColumn, row_list,
};
use crate::sweep_view::SweepView;

/// A results row's Conditions cell when it states nothing beyond the
/// header's Conditions line.
const AS_HEADER: &str = "as the header";
/// The results table's column for a row's tail against its budget (S19).
const TAIL_HEADER: &str = "Tail against the budget";

/// Why a run's build makes it a diagnostic rather than a result, if it does
/// (A18, C.5).
pub(super) fn diagnostic(run: &Run) -> Option<&'static str> {
    crate::notebook::Optimisation::of(&run.context().build()?).diagnostic_reason()
}

/// Every sweep the report shows, each with the sentence that introduces
/// it: the recorded ones, then the built-in seq/chase kernels' runs.
fn shown_sweeps(nb: &Notebook) -> Vec<(String, SweepView)> {
    let recorded = nb.sweeps().iter().filter_map(|s| {
        let view = SweepView::of_sweep(s, nb)?;
        let text = format!(
            "Sweep {}: {} of `{}`; {}; each round took one trial of every value, the order rotated by one each round.",
            s.label(),
            s.runs_text(),
            crate::display::quote_argv(&s.template),
            s.params_text()
        );
        Some((text, view))
    });
    let kernels = SweepView::of_kernels(nb)
        .map(|view| ("The built-in seq and chase kernels' runs by working set.".to_owned(), view));
    recorded.chain(kernels).collect()
}

/// The kept results the results table lists: runs that are not a
/// diagnostic (A18) nor a point of a sweep shown in its own table, then
/// the kept soaks; the sweeps' points as `(sweep, runs)`.
struct Rows<'a> {
    runs: Vec<&'a Run>,
    /// Where each of `runs` is in the notebook's runs.
    positions: Vec<usize>,
    soaks: Vec<&'a Soak>,
    in_sweeps: Vec<(String, Vec<RowRef>)>,
}

impl<'a> Rows<'a> {
    fn of(nb: &'a Notebook) -> Self {
        let in_sweeps: Vec<(String, Vec<RowRef>)> = shown_sweeps(nb)
            .into_iter()
            .map(|(_, view)| (view.title.clone(), view.points().map(|p| RowRef::Run(p.run)).collect()))
            .collect();
        let in_a_sweep = |n: u32| in_sweeps.iter().any(|(_, rows)| rows.contains(&RowRef::Run(n)));
        let (positions, runs) = nb
            .runs()
            .iter()
            .enumerate()
            .filter(|(_, r)| r.discarded.is_none() && diagnostic(r).is_none() && !in_a_sweep(r.number))
            .unzip();
        let soaks = nb.soaks().iter().filter(|s| s.discarded.is_none()).collect();
        Self { runs, positions, soaks, in_sweeps }
    }

    /// The rows' conditions said once: the header names the machine and
    /// the build on lines of their own and the Method paragraph each row's
    /// instrument and what it timed, so the rows' parts here are the rest —
    /// what was stated and how each run went.
    fn conditions(&self, parts: &[RowParts]) -> SharedConditions {
        let conditions_only = |row: &RowParts| RowParts {
            label: row.label.clone(),
            parts: row.parts.iter().filter(|p| p.facet == Facet::Conditions).cloned().collect(),
        };
        let rows: Vec<RowParts> = self
            .positions
            .iter()
            .map(|&i| conditions_only(&parts[i]))
            .chain(self.soaks.iter().map(|s| {
                conditions_only(&RowParts {
                    label: format!("soak {}", s.label()),
                    parts: s.context().brief_parts(Brevity::Column),
                })
            }))
            .collect();
        let mut split = SharedConditions::of(&rows, AS_HEADER);
        for cell in &mut split.cells {
            *cell = crate::display::inert_line(std::mem::take(cell));
        }
        split
    }
}

/// Every run's conditions, part by part ([`Run::conditions_parts`]),
/// worked out once for an export however many of its threads ask: the
/// report's results and the workbook's Runs sheet both say them once, from
/// the same 10 000 rows of a semester's notebook (issue 50). The first to
/// ask works them out (on every CPU); another asking meanwhile waits.
pub(super) struct RunsParts<'a> {
    nb: &'a Notebook,
    parts: std::sync::OnceLock<Vec<RowParts>>,
}

impl<'a> RunsParts<'a> {
    /// `nb`'s runs' parts, worked out when first asked for.
    pub(super) fn of(nb: &'a Notebook) -> Self {
        Self { nb, parts: std::sync::OnceLock::new() }
    }

    /// The parts of each of the notebook's runs, in its order.
    pub(super) fn get(&self) -> &[RowParts] {
        use vernier_model::shared_work;
        self.parts
            .get_or_init(|| shared_work::map(self.nb.runs(), shared_work::ROWS_WORTH_SHARING, Run::conditions_parts))
    }
}

/// A document's results, worked out once however many places show them:
/// the header's Conditions line and the results table split the same rows'
/// conditions (10 000 rows in a semester's notebook, issue 50).
pub(super) struct Results<'a> {
    nb: &'a Notebook,
    parts: &'a RunsParts<'a>,
    split: OnceCell<(Rows<'a>, SharedConditions)>,
}

impl<'a> Results<'a> {
    /// The results of the notebook `parts` are of.
    pub(super) fn of(parts: &'a RunsParts<'a>) -> Self {
        Self { nb: parts.nb, parts, split: OnceCell::new() }
    }

    /// The kept rows and their conditions said once.
    fn split(&self) -> &(Rows<'a>, SharedConditions) {
        self.split.get_or_init(|| {
            let rows = Rows::of(self.nb);
            let conditions = rows.conditions(self.parts.get());
            (rows, conditions)
        })
    }

    /// The header's Conditions line (D8): what every results row shares, in
    /// the course's ` · ` list, or that the rows share none; `None` before
    /// there are two rows to compare.
    pub(super) fn shared_conditions(&self) -> Option<String> {
        let (rows, split) = self.split();
        if rows.runs.len() + rows.soaks.len() < 2 {
            return None;
        }
        Some(if split.shared.is_empty() {
            "none shared by every row: each row's are in the results table".to_owned()
        } else {
            split.shared.iter().map(|p| crate::display::inert_line(p.text.clone())).collect::<Vec<_>>().join(" · ")
        })
    }

    /// The results table, a line naming the sweeps whose points have their
    /// own table, and a line naming the kept runs it leaves out because
    /// their build makes them a diagnostic (A18, C.5). The Conditions column
    /// is left out when no row states more than the header.
    pub(super) fn table(&self) -> Vec<Block> {
        let (rows, conditions) = self.split();
        table(self.nb, rows, conditions)
    }
}

fn table(nb: &Notebook, rows: &Rows<'_>, conditions: &SharedConditions) -> Vec<Block> {
    let with_conditions = conditions.cells.iter().any(|c| c != AS_HEADER);
    // The run's number, which a cell's "as run 3" names, and the extremes
    // beside the median (S3, D8).
    let columns =
        [RunColumn::What, RunColumn::Number, RunColumn::Median, RunColumn::Dispersion, RunColumn::MinMax, RunColumn::N];
    let mut header: Vec<&str> = columns.map(|c| if c == RunColumn::What { "Experiment" } else { c.header() }).to_vec();
    // SPEC S19: the tail beside the median, where a budget was stated; a
    // row without one leaves its cell empty.
    let with_tail = rows.runs.iter().any(|r| r.measurement.tail.is_some());
    if with_tail {
        header.push(TAIL_HEADER);
    }
    if with_conditions {
        header.push("Conditions");
    }
    header.push(RunColumn::Tag.header());
    let mut table = vec![header.into_iter().map(str::to_owned).collect::<Vec<_>>()];
    let mut cells = conditions.cells.iter().cloned();
    let mut push = |mut row: Vec<String>, tail: Option<String>, tag: String, conditions: Option<String>| {
        if with_tail {
            row.push(tail.unwrap_or_default());
        }
        if with_conditions {
            row.push(conditions.unwrap_or_default());
        }
        row.push(tag);
        table.push(row);
    };
    // How many rows share each name, counted once (not per row: 10 000 rows).
    let mut named: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for r in &rows.runs {
        *named.entry(r.measurement.what.as_str()).or_default() += 1;
    }
    for r in &rows.runs {
        let mut row = r.cells(columns);
        // A row's name is unique (S11): two rows of one name say their run.
        if named.get(r.measurement.what.as_str()).is_some_and(|&n| n > 1) {
            row[0] = format!("{} (run {})", row[0], r.number);
        }
        push(row.to_vec(), r.tail_line(), r.cell(RunColumn::Tag), cells.next());
    }
    for s in &rows.soaks {
        let row = vec![
            format!("soak {}", s.cell(SoakColumn::Number)),
            s.cell(SoakColumn::Number),
            format!("S {}", s.cell(SoakColumn::Sustained)),
            format!("tail IQR {}", s.cell(SoakColumn::TailIqr)),
            // A soak's extremes are no result of its own (T5 gives six numbers).
            String::new(),
            format!("{} at {}", s.cell(SoakColumn::Duration), s.cell(SoakColumn::Interval)),
        ];
        push(row, None, s.tag.to_string(), cells.next());
    }
    let paragraph = |text: String| Block::Paragraph(vec![Text { text, bold: false }]);
    let mut blocks = Vec::new();
    if table.len() > 1 {
        blocks.push(Block::Table(table));
    }
    // N14: each prediction against what answered it, under the results.
    blocks.extend(super::predictions::table(nb));
    for (title, points) in &rows.in_sweeps {
        blocks.push(paragraph(format!(
            "{} {} the points of {title}, in its own table with its chart below.",
            capitalised(&row_list(points)),
            if points.len() == 1 { "is" } else { "are" },
        )));
    }
    let left_out = crate::notebook::group_rows(
        nb.runs()
            .iter()
            .filter(|r| r.discarded.is_none())
            .filter_map(|r| Some((RowRef::Run(r.number), diagnostic(r)?.to_owned()))),
    );
    for (why, rows) in left_out {
        blocks.push(paragraph(format!(
            "Left out of these results: {} — {why}; -O0 is a diagnostic, never a result (C.5).",
            row_list(&rows)
        )));
    }
    blocks
}

/// SPEC E16, D5, D8: every sweep as a sentence naming it, its table (one
/// row per value, the parameter first) and then its chart, whose caption is
/// drawn inside the picture so the two never part. No sweep: nothing.
pub(super) fn sweeps(nb: &Notebook) -> Vec<Block> {
    let mut blocks = Vec::new();
    for (text, view) in shown_sweeps(nb) {
        blocks.push(Block::Paragraph(vec![Text { text, bold: false }]));
        blocks.push(Block::Table(sweep_table(&view, nb)));
        blocks.push(match chart::sweep(&view, nb) {
            Ok(picture) => Block::Picture(picture),
            Err(e) => Block::Paragraph(vec![Text { text: format!("({e})"), bold: false }]),
        });
    }
    blocks
}

/// A sweep's table: one row per value, in the run's own unit and rounding.
fn sweep_table(view: &SweepView, nb: &Notebook) -> Vec<Vec<String>> {
    let series = view.series.len() > 1;
    let columns = [RunColumn::Median, RunColumn::Dispersion, RunColumn::N, RunColumn::Number, RunColumn::Tag];
    let mut header = vec![capitalised(&view.x_name)];
    if series {
        header.push("Series".to_owned());
    }
    header.extend(columns.map(|c| c.header().to_owned()));
    let mut rows = vec![header];
    for s in &view.series {
        for p in &s.points {
            let Some(run) = nb.run(p.run) else { continue };
            let mut row = vec![p.x_text.clone()];
            if series {
                row.push(s.name.clone());
            }
            row.extend(columns.map(|c| run.cell(c)));
            rows.push(row);
        }
    }
    rows
}

/// `text` with its first letter upper case: `runs 1–13` → `Runs 1–13`.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
