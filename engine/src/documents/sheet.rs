//! A worksheet read cell by cell (SPEC D4, N10). calamine's ranges are
//! dense grids sized by the sheet's claimed extent, so one cell at
//! `XFD1048576` in a 5 KB file asks for half a terabyte; here only the cells
//! present are kept, within [`MAX_ROWS`] × [`MAX_COLUMNS`] and
//! [`MAX_CELLS`], and a row is laid out only when it is read.

use std::collections::BTreeMap;
use std::io::{Read, Seek};

use calamine::{Data, Xlsx, XlsxError};

/// Data rows read per sheet, after the header.
pub const MAX_ROWS: u32 = 100_000;
/// Columns read per row; the course's widest sheet has ten.
pub const MAX_COLUMNS: u32 = 256;
/// Cells kept per sheet, so a sheet full to both limits stays small.
pub const MAX_CELLS: usize = 2_000_000;

/// The non-empty cells of one sheet, by row, and what was left out.
#[derive(Debug, Default)]
pub struct SheetCells {
    rows: BTreeMap<u32, Vec<(u32, Data)>>,
    /// The sentence saying which cells were not read, if any were not.
    pub left_out: Option<String>,
}

impl SheetCells {
    /// Reads sheet `name` of `book`, keeping the cells inside the limits
    /// counted from the sheet's first row; the error is calamine's.
    pub fn read<RS: Read + Seek>(book: &mut Xlsx<RS>, name: &str) -> Result<Self, XlsxError> {
        let mut cells = book.worksheet_cells_reader(name)?;
        let mut sheet = SheetCells::default();
        let (mut first_row, mut kept, mut dropped) = (None, 0usize, 0usize);
        while let Some(cell) = cells.next_cell()? {
            let value = Data::from(cell.get_value().clone());
            if value == Data::Empty {
                continue;
            }
            let (row, column) = cell.get_position();
            let first = *first_row.get_or_insert(row);
            if row < first || row - first > MAX_ROWS || column >= MAX_COLUMNS || kept >= MAX_CELLS {
                dropped += 1;
                continue;
            }
            sheet.rows.entry(row).or_default().push((column, value));
            kept += 1;
        }
        if dropped > 0 {
            sheet.left_out = Some(format!(
                "{name}: {dropped} cells beyond the first {MAX_ROWS} rows after the header, column {MAX_COLUMNS} \
                 or {MAX_CELLS} cells were not read"
            ));
        }
        Ok(sheet)
    }

    /// The rows that hold a cell, in order, each as 0-based row number and
    /// its cells laid out from column A to its last cell.
    pub fn rows(&self) -> impl Iterator<Item = (u32, Vec<Data>)> + '_ {
        self.rows.iter().map(|(&row, cells)| {
            let width = cells.iter().map(|&(c, _)| c as usize + 1).max().unwrap_or(0);
            let mut laid_out = vec![Data::Empty; width];
            for (c, value) in cells {
                laid_out[*c as usize] = value.clone();
            }
            (row, laid_out)
        })
    }
}

#[cfg(test)]
mod tests {
    // SPEC D4, N10: one cell at XFD1048576 costs one cell, not a grid of the
    // sheet's extent; what lies past the limits is named, not read.
    #[test]
    fn a_far_cell_is_left_out_without_allocating_the_extent() {
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet().set_name("Notes and anomalies").expect("name");
        sheet.write(0, 0, "Note").expect("write");
        sheet.write(1, 0, "kept").expect("write");
        sheet.write(1_048_575, 16_383, "far").expect("write");
        let bytes = book.save_to_buffer().expect("save");
        let foreign = crate::documents::foreign::read(&bytes).expect("reads");
        assert_eq!(foreign.notes, ["kept"]);
        assert!(
            foreign.problems.iter().any(|p| p.contains("Notes and anomalies: 1 cells beyond")),
            "{:?}",
            foreign.problems
        );
    }
}
