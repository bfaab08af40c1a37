//! `vernier compare --notebook DIR --run A --run B` (SPEC S7, S13, S14):
//! two recorded rows compared by the engine, printed.

use std::path::Path;

use anyhow::anyhow;
use vernier_engine::compare::{RowComparison, compare_runs};
use vernier_engine::notebook::{Notebook, RunColumn};

use super::notebook_cmds::open_any;
use super::{CommandResult, Failure, table};

/// Compares the second of `runs` against the first; the verdict first,
/// then the two rows, how S7 decided and the control's drift.
pub fn rows(dir: &Path, runs: &[u32], json: bool) -> CommandResult {
    let &[a, b] = runs else {
        return Err(Failure::input(anyhow!("give two rows to compare: --run A --run B (got {})", runs.len())));
    };
    let nb = open_any(dir)?;
    let c = compare_runs(&nb, a, b).map_err(Failure::input)?;
    if json {
        let mut object = serde_json::to_value(&c).map_err(Failure::failed)?;
        // Values stay in `unit`; a person is shown them in this one (S12).
        object["display_unit"] = serde_json::json!(c.comparison.display_unit());
        out!("{object}");
    } else {
        print_text(&nb, &c);
    }
    Ok(0)
}

fn print_text(nb: &Notebook, c: &RowComparison) {
    out!("{}", c.comparison.verdict);
    let row = |number: u32, power: Option<&str>, session: String| {
        let cell = |column| nb.run(number).map(|r| r.cell(column)).unwrap_or_default();
        vec![
            cell(RunColumn::Number),
            cell(RunColumn::What),
            cell(RunColumn::Median),
            cell(RunColumn::Dispersion),
            power.unwrap_or("not recorded").to_owned(),
            session,
        ]
    };
    let rows = [
        row(c.run_a, c.power_a.as_deref(), c.session_a.describe()),
        row(c.run_b, c.power_b.as_deref(), c.session_b.describe()),
    ];
    out!("\n{}\n", table::render(&["Run", "What", "Median", "Dispersion", "Power source", "Session"], &rows));
    out!("S7: {}", c.comparison.reasoning());
    for check in &c.checks {
        out!("{}: {}", check.rule, check.text);
    }
}
