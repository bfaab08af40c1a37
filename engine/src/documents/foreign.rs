//! A `measurements.xlsx` that Vernier did not write (SPEC D4): read
//! read-only by the course's header names, every number checked, with a
//! list of what could not be read. Nothing in it is trusted: commands stay
//! argument vectors, paths stay text, numbers must parse and be finite.

use std::io::Cursor;

use calamine::{Data, Reader, Xlsx};

use super::sheet::SheetCells;

use crate::notebook::{Condition, ConditionName, RUN_COLUMNS, RunColumn, plausible};

/// A workbook larger than this is refused as its bytes arrive.
pub const MAX_WORKBOOK_BYTES: u64 = 64 * 1024 * 1024;
/// What the parts of a workbook may add up to once decompressed: a small
/// file that inflates past this is a zip bomb, refused before reading.
pub const MAX_UNPACKED_BYTES: u64 = 512 * 1024 * 1024;
/// Timed trials a row may claim (a reproduce reruns that many).
pub const MAX_TRIALS: u32 = 100_001;

/// One Runs row as a classmate wrote it, after checking.
#[derive(Debug, Clone, PartialEq)]
pub struct SheetRun {
    /// The `#` column.
    pub number: u32,
    /// The row as a spreadsheet shows it (1 is the header).
    pub line: u32,
    /// `What`.
    pub what: String,
    /// `Command`, split into words as a shell would quote them — never run
    /// through a shell.
    pub command: Vec<String>,
    /// Warm-up trials, when stated.
    pub warmup_trials: Option<u32>,
    /// Timed trials.
    pub timed: u32,
    /// Median, in `unit`.
    pub median: f64,
    /// IQR, in `unit`.
    pub iqr: f64,
    /// Min and max, when stated.
    pub min_max: Option<(f64, f64)>,
    /// The unit written after the median.
    pub unit: String,
    /// `Conditions`, split at `;` into `field: value`.
    pub conditions: Vec<Condition>,
    /// `Raw file`, as text only.
    pub raw_file: String,
    /// `Tag`.
    pub tag: String,
}

/// What a foreign workbook holds, read-only.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Foreign {
    /// Environment `(Field, Value)` pairs.
    pub environment: Vec<(String, String)>,
    /// Predictions as `(#, Experiment, What I predict, Why)`.
    pub predictions: Vec<[String; 4]>,
    /// The Runs rows that could be read.
    pub runs: Vec<SheetRun>,
    /// Notes, as text.
    pub notes: Vec<String>,
    /// Everything that could not be read, one sentence each, naming the
    /// sheet and the row.
    pub problems: Vec<String>,
}

/// Why a workbook is refused before any reader inflates it.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// More bytes than [`MAX_WORKBOOK_BYTES`].
    #[error("the workbook is {0} bytes, more than the {MAX_WORKBOOK_BYTES}-byte limit")]
    TooLarge(usize),
    /// Not a zip archive, as every workbook is.
    #[error("not a workbook: {0}")]
    NotZip(#[from] zip::result::ZipError),
    /// Parts that claim to unpack to more than the limit.
    #[error("the workbook unpacks to {total} bytes, more than the {max}-byte limit")]
    Unpacks {
        /// What the parts claim, summed.
        total: u64,
        /// The limit.
        max: u64,
    },
}

/// Why someone's workbook could not be read at all (a missing sheet or a
/// bad cell is one of its [`Foreign::problems`] instead).
#[derive(Debug, thiserror::Error)]
pub enum ForeignError {
    /// Refused before reading.
    #[error(transparent)]
    Package(#[from] PackageError),
    /// The reader refused it.
    #[error(transparent)]
    Xlsx(#[from] calamine::XlsxError),
    /// The reader panicked on it.
    #[error("the workbook reader gave up on this file")]
    GaveUp,
}

/// Why a Runs row cannot be read: each names the column and quotes the cell.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunRowError {
    /// The `#` cell is not a row number.
    #[error("'#' is '{0}', not a row number")]
    Number(String),
    /// The command cannot be split into words.
    #[error("Command '{0}' cannot be split into words")]
    Command(String),
    /// The n cell is not `warm-up + timed`.
    #[error("n '{0}' is not 'warm-up + timed'")]
    N(String),
    /// A timed count outside what is read.
    #[error("n claims {0} timed trials; between 1 and {MAX_TRIALS} are read")]
    TimedCount(u32),
    /// A warm-up count above what is read.
    #[error("n claims more than {MAX_TRIALS} warm-up trials")]
    WarmupCount,
    /// A value cell that does not start with a number.
    #[error("{column} '{text}' does not start with a number")]
    NotANumber {
        /// The column's header.
        column: String,
        /// The cell.
        text: String,
    },
    /// A value that is negative or not finite.
    #[error("{column} '{text}' is not a finite, non-negative number")]
    Negative {
        /// The column's header.
        column: String,
        /// The cell.
        text: String,
    },
    /// A value no measurement can have.
    #[error("{column} '{text}' is more than 10^15, which cannot be a measurement")]
    TooLarge {
        /// The column's header.
        column: String,
        /// The cell.
        text: String,
    },
    /// A value in a unit that cannot be put beside the median's.
    #[error("{column} '{text}' is in '{its_unit}' and the median in '{unit}', which are not one scale")]
    Scale {
        /// The column's header.
        column: String,
        /// The cell, trimmed.
        text: String,
        /// The cell's unit.
        its_unit: String,
        /// The median's unit.
        unit: String,
    },
}

/// Reads the sheets by name and the columns by header; never fails on a
/// missing sheet or a bad cell — those go to [`Foreign::problems`]. The
/// reader runs behind `catch_unwind`: a hostile file can make it panic.
pub fn read(bytes: &[u8]) -> Result<Foreign, ForeignError> {
    check_package(bytes)?;
    let sheets = std::panic::catch_unwind(|| -> Result<Vec<(String, SheetCells)>, calamine::XlsxError> {
        let mut book: Xlsx<_> = calamine::open_workbook_from_rs(Cursor::new(bytes))?;
        let mut sheets = Vec::new();
        for name in book.sheet_names() {
            let wanted = ["Environment", "Predictions", "Runs", "Notes and anomalies"];
            if wanted.iter().any(|w| w.eq_ignore_ascii_case(name.trim())) {
                sheets.push((name.trim().to_owned(), SheetCells::read(&mut book, &name)?));
            }
        }
        Ok(sheets)
    })
    .map_err(|_| ForeignError::GaveUp)??;
    let mut out = Foreign::default();
    let sheet = |name: &str| sheets.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, r)| r);
    for name in ["Environment", "Predictions", "Runs", "Notes and anomalies"] {
        let Some(sheet) = sheet(name) else {
            out.problems.push(format!("no '{name}' sheet"));
            continue;
        };
        out.problems.extend(sheet.left_out.clone());
        let table = Table::new(name, sheet, &mut out.problems);
        match name {
            "Environment" => {
                for row in table.rows() {
                    let field = row.text("Field");
                    if !field.is_empty() {
                        out.environment.push((field, row.text("Value")));
                    }
                }
            }
            "Predictions" => {
                for row in table.rows() {
                    out.predictions.push(["#", "Experiment", "What I predict", "Why"].map(|c| row.text(c)));
                }
            }
            "Runs" => {
                for row in table.rows() {
                    match run(&row) {
                        Ok(r) => out.runs.push(r),
                        Err(why) => out.problems.push(format!("Runs row {}: {why}", row.line)),
                    }
                }
            }
            _ => {
                for row in table.rows() {
                    let note = row.text("Note");
                    if !note.is_empty() {
                        out.notes.push(note);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Refuses a workbook too large, or whose parts claim to unpack to more
/// than [`MAX_UNPACKED_BYTES`], before any reader inflates it.
pub fn check_package(bytes: &[u8]) -> Result<(), PackageError> {
    check_sizes(bytes, MAX_UNPACKED_BYTES)
}

fn check_sizes(bytes: &[u8], max_unpacked: u64) -> Result<(), PackageError> {
    if bytes.len() as u64 > MAX_WORKBOOK_BYTES {
        return Err(PackageError::TooLarge(bytes.len()));
    }
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))?;
    let mut total: u64 = 0;
    for i in 0..zip.len() {
        let size = zip.by_index_raw(i)?.size();
        total = total.saturating_add(size);
    }
    if total > max_unpacked {
        return Err(PackageError::Unpacks { total, max: max_unpacked });
    }
    Ok(())
}

/// A sheet with its header row (its first row, or the second under the
/// Runs sheet's line of shared conditions, D8) mapped to column positions.
struct Table<'a> {
    sheet: &'a SheetCells,
    header: Vec<String>,
    /// Rows before the header.
    above: usize,
    /// What every run shares, from the line above the Runs table.
    shared: Option<String>,
    /// Each run's own Conditions cell by its `#`, to read "as run 3".
    own: Vec<(String, String)>,
}

/// One data row of a [`Table`].
struct Row<'a> {
    table: &'a Table<'a>,
    cells: Vec<Data>,
    /// 1-based row number as a spreadsheet shows it.
    line: usize,
}

impl<'a> Table<'a> {
    fn new(name: &str, sheet: &'a SheetCells, problems: &mut Vec<String>) -> Self {
        let texts = |r: Vec<Data>| r.iter().map(|c| c.to_string().trim().to_owned()).collect::<Vec<String>>();
        let mut rows = sheet.rows().map(|(_, r)| texts(r));
        let first = rows.next().unwrap_or_default();
        let shared = first
            .first()
            .and_then(|c| c.strip_prefix(super::SHARED_LINE.trim_end()))
            .filter(|_| name == "Runs")
            .map(|rest| rest.trim().to_owned());
        let (header, above) = match shared {
            Some(_) => (rows.next().unwrap_or_default(), 1),
            None => (first, 0),
        };
        let expected: &[&str] = match name {
            "Environment" => &["Field", "Value"],
            "Predictions" => &["#", "Experiment", "What I predict", "Why"],
            "Runs" => &RUN_COLUMNS,
            _ => &["Note"],
        };
        for column in expected {
            if !header.iter().any(|h| h.eq_ignore_ascii_case(column)) {
                problems.push(format!("{name}: no '{column}' column"));
            }
        }
        let mut table = Self { sheet, header, above, shared, own: Vec::new() };
        if table.shared.is_some() {
            table.own = table.rows().map(|row| (row.cell("#"), row.cell(RunColumn::Conditions.header()))).collect();
        }
        table
    }

    /// A run's conditions whole: what every run shares, then the row's own
    /// (`as shared above` adds nothing; `as run 3` is run 3's own).
    fn conditions(&self, own: String) -> String {
        let Some(shared) = &self.shared else { return own };
        let own = if own == crate::notebook::AS_SHARED {
            String::new()
        } else if let Some(other) = own.strip_prefix("as run ") {
            self.own.iter().find(|(n, _)| n == other).map_or(own.clone(), |(_, theirs)| theirs.clone())
        } else {
            own
        };
        [shared.as_str(), own.as_str()].into_iter().filter(|p| !p.is_empty()).collect::<Vec<_>>().join("; ")
    }

    /// The data rows, laid out one at a time as they are read.
    fn rows(&'a self) -> impl Iterator<Item = Row<'a>> + 'a {
        self.sheet
            .rows()
            .skip(1 + self.above)
            .map(move |(i, cells)| Row { table: self, cells, line: i as usize + 1 })
            .filter(|row| row.cells.iter().any(|c| !c.to_string().trim().is_empty()))
    }
}

impl Row<'_> {
    /// The cell under `column`, as text ("" when the column is missing);
    /// the Conditions whole, with what the table said once (D8).
    fn text(&self, column: &str) -> String {
        let cell = self.cell(column);
        if column == RunColumn::Conditions.header() { self.table.conditions(cell) } else { cell }
    }

    /// The cell under `column` as written.
    fn cell(&self, column: &str) -> String {
        self.table
            .header
            .iter()
            .position(|h| h.eq_ignore_ascii_case(column))
            .and_then(|k| self.cells.get(k))
            .map(|c| c.to_string().trim().to_owned())
            .unwrap_or_default()
    }
}

impl SheetRun {
    /// The row's median and IQR as Vernier shows any row (S6, S12), in its
    /// unit rescaled when it is a time.
    pub fn figures(&self) -> crate::stats::units::Figures {
        let (min, max) = self.min_max.unwrap_or((self.median, self.median));
        crate::stats::units::Figures::new([self.median, self.iqr, min, max], None, &self.unit)
    }
}

fn run(row: &Row<'_>) -> Result<SheetRun, RunRowError> {
    let number_text = row.text("#");
    let number = number_text
        .trim_start_matches(['R', 'r'])
        .split_whitespace()
        .next()
        .and_then(|n| n.trim_end_matches(".0").parse::<u32>().ok())
        .filter(|&n| n > 0)
        .ok_or_else(|| RunRowError::Number(number_text.clone()))?;
    sheet_run(&|column| row.text(column), number, row.line as u32)
}

/// A Runs row read by its columns' headers (`text` gives a cell's text by
/// header, `""` when there is none): the checks every Runs row of a
/// workbook passes, a classmate's or one typed by hand (N12).
pub fn sheet_run(text: &dyn Fn(&str) -> String, number: u32, line: u32) -> Result<SheetRun, RunRowError> {
    let row = Cells(text);
    let command_text = row.text("Command");
    let command = shlex::split(&command_text)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| RunRowError::Command(command_text.clone()))?;
    let (warmup_trials, timed) = n_column(&row.text("n (warm-up + timed)"))?;
    let (median, unit) = value_with_unit(&row.text("Median"), "Median")?;
    let dispersion = row.text("Dispersion");
    // Vernier's own column adds the drift after the IQR: `IQR 5 ms · drift -2.2 %`.
    let iqr = dispersion.split(" · ").next().unwrap_or_default();
    let iqr = in_median_unit(iqr.trim_start_matches("IQR").trim(), "Dispersion", (median, &unit))?;
    let min_max = {
        let text = row.text("Min / Max");
        // `1.63 / 2.00 ns/access`: the slash between the two is spaced, a
        // unit's (`ns/access`) is not; a bare `1.6/2.0` is split too.
        let split = text.split_once(" / ").or_else(|| text.split_once('/'));
        match split {
            Some((a, b)) => {
                Some((in_median_unit(a, "Min", (median, &unit))?, in_median_unit(b, "Max", (median, &unit))?))
            }
            _ => None,
        }
    };
    // `field: value` parts are kept by their field; what is typed without
    // one ("mains, idle 10 min") is kept whole as what the row states
    // (SPEC N9), never dropped.
    let mut conditions = Vec::new();
    let mut typed = Vec::new();
    let cell = row.text("Conditions");
    for part in cell.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once(':') {
            Some((field, value)) => {
                conditions.push(Condition { field: field.trim().to_owned(), value: value.trim().to_owned() });
            }
            None => typed.push(part),
        }
    }
    if !typed.is_empty() {
        conditions.push(Condition::new(ConditionName::TypedConditions, typed.join("; ")));
    }
    Ok(SheetRun {
        number,
        line,
        what: row.text("What"),
        command,
        warmup_trials,
        timed,
        median,
        iqr,
        min_max,
        unit,
        conditions,
        raw_file: row.text("Raw file"),
        tag: row.text("Tag"),
    })
}

/// Cells by header, for [`sheet_run`].
struct Cells<'a>(&'a dyn Fn(&str) -> String);

impl Cells<'_> {
    fn text(&self, column: &str) -> String {
        (self.0)(column)
    }
}

/// `3 + 11`, `3 + 11 (settle)`, `? + 11 …` or `11` → (warm-up, timed).
fn n_column(text: &str) -> Result<(Option<u32>, u32), RunRowError> {
    let bad = || RunRowError::N(text.to_owned());
    let number = |s: &str| s.split_whitespace().next().and_then(|t| t.parse::<u32>().ok());
    let (warmup, timed) = match text.split_once('+') {
        Some((w, t)) => (number(w), number(t).ok_or_else(bad)?),
        None => (None, number(text).ok_or_else(bad)?),
    };
    if timed == 0 || timed > MAX_TRIALS {
        return Err(RunRowError::TimedCount(timed));
    }
    if warmup.is_some_and(|w| w > MAX_TRIALS) {
        return Err(RunRowError::WarmupCount);
    }
    Ok((warmup, timed))
}

/// `12.5 ms` → (12.5, "ms"). The number must be finite and not negative.
fn value_with_unit(text: &str, column: &str) -> Result<(f64, String), RunRowError> {
    let text = text.trim();
    let split = text.find(|c: char| c.is_whitespace()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let cell = || (column.to_owned(), text.to_owned());
    let value: f64 = number.parse().map_err(|_| {
        let (column, text) = cell();
        RunRowError::NotANumber { column, text }
    })?;
    if !value.is_finite() || value < 0.0 {
        let (column, text) = cell();
        return Err(RunRowError::Negative { column, text });
    }
    if value > plausible::MAX_VALUE {
        let (column, text) = cell();
        return Err(RunRowError::TooLarge { column, text });
    }
    // "(3%)" after an IQR is its fraction of the median, not a unit.
    let unit = unit.split('(').next().unwrap_or("").trim().to_owned();
    Ok((value, unit))
}

/// A value written beside the median, in the median's unit: a cell with no
/// unit is in it already, another time unit is converted (`IQR 500 us`
/// beside `21 ms` is 0.5 ms), and a percentage is of the median. Any other
/// unit cannot be put beside the median, and the row is not read.
fn in_median_unit(text: &str, column: &str, (median, unit): (f64, &str)) -> Result<f64, RunRowError> {
    let (value, its_unit) = value_with_unit(text, column)?;
    if its_unit.is_empty() || its_unit == unit {
        return Ok(value);
    }
    if its_unit == "%" {
        return Ok(value / 100.0 * median);
    }
    crate::stats::units::time_factor(&its_unit, unit).map(|f| value * f).ok_or_else(|| RunRowError::Scale {
        column: column.to_owned(),
        text: text.trim().to_owned(),
        its_unit,
        unit: unit.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC D4: the course's cell texts read back as numbers.
    #[test]
    fn cells_are_read_by_their_course_spelling() {
        assert_eq!(n_column("3 + 11"), Ok((Some(3), 11)));
        assert_eq!(n_column("? + 31 (warm-up not recorded)"), Ok((None, 31)));
        assert_eq!(n_column("5 + 11 (settle)"), Ok((Some(5), 11)));
        assert!(n_column("3 + 0").is_err());
        assert!(n_column("3 + 99999999").is_err());
        assert_eq!(value_with_unit("12.5 ms", "Median"), Ok((12.5, "ms".into())));
        assert_eq!(value_with_unit("0.2 ms (2%)", "Dispersion"), Ok((0.2, "ms".into())));
        // The IQR and extremes are read in the median's unit (R4: a
        // classmate's "IQR 500 us" beside "21 ms" is 0.5 ms, not 500 ms).
        let close = |a: Result<f64, RunRowError>, b: f64| a.is_ok_and(|a| (a - b).abs() < 1e-12);
        assert!(close(in_median_unit("500 us", "Dispersion", (21.0, "ms")), 0.5));
        assert!(close(in_median_unit("0.0002 s", "Dispersion", (21.0, "ms")), 0.2));
        assert!(close(in_median_unit("1 %", "Dispersion", (21.0, "ms")), 0.21));
        assert!(close(in_median_unit("0.3", "Dispersion", (21.0, "ms")), 0.3));
        assert!(in_median_unit("3 GB/s", "Dispersion", (21.0, "ms")).is_err());
        assert!(value_with_unit("NaN ms", "Median").is_err());
        assert!(value_with_unit("inf", "Median").is_err());
        assert!(value_with_unit("-1 s", "Median").is_err());
        assert!(value_with_unit("1e300 s", "Median").is_err());
        assert!(value_with_unit("12,5 ms", "Median").is_err());
    }

    // Untrusted input: a package whose parts claim to unpack past the limit
    // is refused before any reader inflates it.
    #[test]
    fn a_zip_bomb_is_refused_before_reading() {
        use std::io::Write as _;
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("xl/worksheets/sheet1.xml", options).expect("start");
        zip.write_all(&vec![0u8; 4 << 20]).expect("write");
        let bytes = zip.finish().expect("finish").into_inner();
        assert!(bytes.len() < 64 << 10, "{} bytes compressed", bytes.len());
        // The same rule as MAX_UNPACKED_BYTES, at a size a test can build quickly.
        let refused = check_sizes(&bytes, 1 << 20).expect_err("refused").to_string();
        assert!(refused.contains("unpacks to 4194304 bytes"), "{refused}");
        assert!(check_sizes(&bytes, 8 << 20).is_ok());
    }
}
