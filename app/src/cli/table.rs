//! Plain-text tables for the terminal.

use vernier_engine::display::inert;
use vernier_engine::shared_work;

/// Renders `rows` under `headers` with columns padded to their widest cell.
/// Each cell is made inert (SPEC N10): a line feed or an escape sequence in
/// a value from someone's file can neither break the table nor move the
/// cursor. A semester's rows are shared among the CPUs (issue 50).
pub fn render(headers: &[&str], rows: &[Vec<String>]) -> String {
    let rows: Vec<Cells<'_>> =
        shared_work::map(rows, shared_work::ROWS_WORTH_SHARING, |r| shown(r.iter().map(String::as_str)));
    let headers = shown(headers.iter().copied());
    let widths: Vec<usize> = (0..headers.len())
        .map(|i| rows.iter().filter_map(|r| r.get(i)).chain([&headers[i]]).map(|(_, chars)| *chars).max().unwrap_or(0))
        .collect();
    let line = |cells: &Cells<'_>| {
        let mut line = String::new();
        for (i, ((cell, chars), width)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            line.extend(std::iter::repeat_n(' ', width.saturating_sub(*chars)));
        }
        line.truncate(line.trim_end().len());
        line
    };
    let rule: Cells<'_> = widths.iter().map(|&w| ("-".repeat(w).into(), w)).collect();
    let mut lines = vec![line(&headers), line(&rule)];
    lines.extend(shared_work::map(&rows, shared_work::ROWS_WORTH_SHARING, line));
    lines.join("\n")
}

/// A row's cells made inert, each with its width in characters.
type Cells<'a> = Vec<(std::borrow::Cow<'a, str>, usize)>;

fn shown<'a>(cells: impl Iterator<Item = &'a str>) -> Cells<'a> {
    cells
        .map(|c| {
            let c = inert(c);
            let chars = c.chars().count();
            (c, chars)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn pads_columns_to_the_widest_cell() {
        let text = super::render(&["#", "What"], &[vec!["R10".into(), "seq".into()]]);
        assert_eq!(text, "#    What\n---  ----\nR10  seq");
    }

    // An empty cell keeps its column: the columns after it stay in line.
    #[test]
    fn an_empty_cell_keeps_its_column() {
        let text =
            super::render(&["#", "What"], &[vec![String::new(), "seq".into()], vec!["R2".into(), String::new()]]);
        assert_eq!(text, "#   What\n--  ----\n    seq\nR2");
    }

    // SPEC N10: a cell cannot add a line or reach the terminal as an escape.
    #[test]
    fn cells_are_inert() {
        let text = super::render(&["What"], &[vec!["a\nb\x1b[2K".into()]]);
        assert_eq!(text, "What\n-------------\na\\x0ab\\x1b[2K");
    }
}
