//! Plain-text tables for the terminal.

use vernier_engine::display::inert;

/// Renders `rows` under `headers` with columns padded to their widest cell.
/// Each cell is made inert (SPEC N10): a line feed or an escape sequence in
/// a value from someone's file can neither break the table nor move the
/// cursor.
pub fn render(headers: &[&str], rows: &[Vec<String>]) -> String {
    let rows: Vec<Vec<std::borrow::Cow<'_, str>>> = rows.iter().map(|r| r.iter().map(|c| inert(c)).collect()).collect();
    let width = |i: usize| {
        rows.iter()
            .filter_map(|r| r.get(i))
            .map(|c| c.chars().count())
            .chain([headers[i].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..headers.len()).map(width).collect();
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let padded: Vec<String> = cells.zip(&widths).map(|(c, &w)| format!("{c:<w$}")).collect();
        padded.join("  ").trim_end().to_owned()
    };
    let mut out = line(&mut headers.iter().copied());
    out.push('\n');
    out.push_str(&line(&mut widths.iter().map(|&w| "-".repeat(w)).collect::<Vec<_>>().iter().map(String::as_str)));
    for row in rows {
        out.push('\n');
        out.push_str(&line(&mut row.iter().map(|c| c.as_ref())));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn pads_columns_to_the_widest_cell() {
        let text = super::render(&["#", "What"], &[vec!["R10".into(), "seq".into()]]);
        assert_eq!(text, "#    What\n---  ----\nR10  seq");
    }

    // SPEC N10: a cell cannot add a line or reach the terminal as an escape.
    #[test]
    fn cells_are_inert() {
        let text = super::render(&["What"], &[vec!["a\nb\x1b[2K".into()]]);
        assert_eq!(text, "What\n-------------\na\\x0ab\\x1b[2K");
    }
}
