//! A CSV of trials from the student's own instrument (SPEC E14, C:
//! `vernier import csv`).
//!
//! The course asks students to write their own harness; the matmul lab's
//! driver times only the multiply and prints `pair,first,naive_ms,
//! blocked_ms,checksum`. Timing the whole process measures something else,
//! so its numbers must enter the log as they are: one MEASURED row per arm,
//! the instrument named, the warm-up stated, the file kept unchanged as the
//! rows' raw file, and two arms recorded as the same first-class pair as
//! `bench --vs` (paired ratios from the file's rows, the order check from
//! its `first` column).
//!
//! The file is the student's, and may be anything: it is read bounded,
//! every cell of a time column is checked, and a bad cell is named by its
//! file, line and column before anything is written.

use std::fmt;
use std::path::{Path, PathBuf};

use super::{FileCheck, Format, ImportError, Importer, MAX_IMPORT_BYTES, Prepared, PreparedRow, ReadBackError};
use crate::bounded::{ReadError, read_bounded};
use crate::display::inert_line;
use crate::harness::raw::ArmValues;
use crate::notebook::{Condition, ConditionName, Conditions as _, NewPair, RawFile, Run, WarmupPolicy, plausible};
use crate::stats::{self, OrderCheck, Spread, Summary};

/// Checksums of two arms agree when they differ by at most this fraction
/// of the larger: the two loops may sum in another order.
pub const CHECKSUM_TOLERANCE: f64 = 1e-9;

/// The units a time column may be in, with nanoseconds per unit.
/// The time units a file of trials may be in, with their nanoseconds.
pub const UNITS: [(&str, f64); 4] = [("ms", 1e6), ("us", 1e3), ("ns", 1.0), ("s", 1e9)];

/// The time unit a column's name ends in (`naive_ms` → `ms`), if any:
/// what the importer and the window's column guess both go by.
pub fn unit_suffix(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    UNITS.iter().map(|(u, _)| *u).find(|u| lower.len() > u.len() + 1 && lower.ends_with(&format!("_{u}")))
}

/// Which columns hold the times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arms {
    /// One arm: `--column NAME`.
    One(String),
    /// A paired comparison: `--a NAME --b NAME`, one row per pair.
    Two([String; 2]),
}

/// What to import and how to describe it; every text is the user's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvSpec {
    /// The time columns.
    pub arms: Arms,
    /// The column naming each pair (kept; used to name rows in messages).
    pub pair: Option<String>,
    /// The column naming which arm ran first in each row, by its label or
    /// its column's stem (`naive` for `naive_ms`).
    pub first: Option<String>,
    /// `ms`, `us`, `ns` or `s`; else read from the columns' suffix.
    pub unit: Option<String>,
    /// The first K trials of each arm in the file are warm-up.
    pub warmup: Option<u32>,
    /// N warm-up trials ran but are not in the file.
    pub warmup_stated: Option<u32>,
    /// The rows' (and the pair's) `What`.
    pub what: Option<String>,
    /// The arms' labels (default: each column's stem).
    pub labels: [Option<String>; 2],
    /// How the file was produced, stored as the rows' command.
    pub command: Option<String>,
    /// How the measured program was built (default: the Environment's).
    pub build: Option<String>,
    /// The instrument that took the times.
    pub instrument: Option<String>,
}

impl CsvSpec {
    /// One column of times, `name`, with nothing else stated: the unit from
    /// the column's suffix, no warm-up, the file's own name as instrument.
    pub fn column(name: impl Into<String>) -> Self {
        Self {
            arms: Arms::One(name.into()),
            pair: None,
            first: None,
            unit: None,
            warmup: None,
            warmup_stated: None,
            what: None,
            labels: [None, None],
            command: None,
            build: None,
            instrument: None,
        }
    }
}

/// Why a CSV import failed. Nothing has been recorded.
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    /// The file could not be read, or was refused unread.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A cell, a header or a line of the file cannot be taken.
    #[error("{}, line {line}{}: {message}", path.display(), column.as_ref().map(|c| format!(", {c}")).unwrap_or_default())]
    At {
        /// The file.
        path: PathBuf,
        /// 1-based line in the file.
        line: usize,
        /// The column, when one cell or header is at fault.
        column: Option<Column>,
        /// What is wrong.
        message: String,
    },
    /// The options do not fit the file (no line to name).
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// A column of the file: its 1-based position and its header name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// 1-based position in the row.
    pub number: usize,
    /// Its header name, inert.
    pub name: String,
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {} ({})", self.number, self.name)
    }
}

/// One data row of the file.
struct Row {
    line: usize,
    cells: Vec<String>,
}

impl Row {
    fn cell(&self, column: usize) -> &str {
        self.cells.get(column).map_or("", String::as_str)
    }
}

/// The file, split: its header and its data rows (comments and blank
/// lines left out).
struct Table {
    path: PathBuf,
    header_line: usize,
    names: Vec<String>,
    rows: Vec<Row>,
}

impl Table {
    fn parse(path: &Path, text: &str) -> Result<Self, CsvError> {
        let mut header: Option<(usize, Vec<String>)> = None;
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = if i == 0 { line.trim_start_matches('\u{feff}') } else { line };
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let cells: Vec<String> = trimmed.split(',').map(|c| c.trim().trim_matches('"').trim().to_owned()).collect();
            match &header {
                None => header = Some((i + 1, cells)),
                // A comma inside a number (`5,731`) would shift every
                // later cell into the wrong column.
                Some((_, names)) if cells.len() > names.len() => {
                    return Err(CsvError::At {
                        path: path.to_path_buf(),
                        line: i + 1,
                        column: None,
                        message: format!("{} fields where the header names {}", cells.len(), names.len()),
                    });
                }
                Some(_) => rows.push(Row { line: i + 1, cells }),
            }
        }
        let Some((header_line, names)) = header else {
            return Err(CsvError::Invalid {
                path: path.to_path_buf(),
                message: "no header row: the file holds only comments or blank lines".into(),
            });
        };
        Ok(Self { path: path.to_path_buf(), header_line, names, rows })
    }

    fn at(&self, line: usize, column: Option<usize>, message: impl Into<String>) -> CsvError {
        CsvError::At {
            path: self.path.clone(),
            line,
            column: column.map(|k| Column { number: k + 1, name: inert_line(self.names[k].clone()) }),
            message: message.into(),
        }
    }

    /// The position of the column named `name`; exactly one must exist.
    fn find(&self, name: &str, option: &str) -> Result<usize, CsvError> {
        let found: Vec<usize> = (0..self.names.len()).filter(|&k| self.names[k] == name.trim()).collect();
        match found.as_slice() {
            [k] => Ok(*k),
            [] => Err(self.at(
                self.header_line,
                None,
                format!(
                    "no column '{}' ({option}) in the header; its columns are {}",
                    inert_line(name.to_owned()),
                    inert_line(self.names.join(", "))
                ),
            )),
            [_, second, ..] => Err(self.at(
                self.header_line,
                Some(*second),
                format!("the header names '{}' more than once", inert_line(name.to_owned())),
            )),
        }
    }

    /// A column's position by name, ignoring case, when present.
    fn find_optional(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n.eq_ignore_ascii_case(name))
    }

    /// `line 5 (pair 3)`: a row as a message names it.
    fn row_name(&self, row: &Row, pair: Option<usize>) -> String {
        match pair.filter(|&k| !row.cell(k).is_empty()) {
            Some(k) => {
                format!(
                    "line {} ({} {})",
                    row.line,
                    inert_line(self.names[k].clone()),
                    inert_line(row.cell(k).to_owned())
                )
            }
            None => format!("line {}", row.line),
        }
    }
}

/// An arm's column: where it is, its stem (`naive` for `naive_ms`) and the
/// unit its suffix states.
struct ArmColumn {
    index: usize,
    stem: String,
    suffix: Option<&'static str>,
}

impl ArmColumn {
    fn of(table: &Table, name: &str, option: &str) -> Result<Self, CsvError> {
        let index = table.find(name, option)?;
        let name = &table.names[index];
        let suffix = unit_suffix(name);
        let stem = match suffix {
            Some(u) => name[..name.len() - u.len() - 1].to_owned(),
            None => name.clone(),
        };
        Ok(Self { index, stem, suffix })
    }
}

/// Reads a CSV of trials and prepares one MEASURED Runs row per arm — and,
/// for two arms, their comparison as a pair — with the file as the rows'
/// raw file. Every cell is checked here, so a bad file records nothing;
/// the caller records the result under the notebook's lock
/// ([`Prepared::record`], through `store::change`).
pub fn prepare(file: &Path, spec: &CsvSpec) -> Result<Prepared, CsvError> {
    let bytes = read_bounded(file, MAX_IMPORT_BYTES, "a CSV of trials")?;
    prepare_bytes(file, &bytes, spec)
}

/// [`prepare`] for bytes already read (pasted into the window, or a
/// fuzzer's); `file` names them in messages.
pub fn prepare_bytes(file: &Path, bytes: &[u8], spec: &CsvSpec) -> Result<Prepared, CsvError> {
    let bytes = crate::bounded::without_bom(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| CsvError::At {
        path: file.to_path_buf(),
        line: bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1,
        column: None,
        message: "not UTF-8 text".into(),
    })?;
    let table = Table::parse(file, text)?;
    let invalid = |message: String| CsvError::Invalid { path: file.to_path_buf(), message };
    crate::harness::check_names(spec.what.as_ref(), &spec.labels).map_err(|e| invalid(e.to_string()))?;

    let columns: Vec<ArmColumn> = match &spec.arms {
        Arms::One(name) => vec![ArmColumn::of(&table, name, "--column")?],
        Arms::Two([a, b]) if a.trim() == b.trim() => {
            return Err(invalid(format!(
                "--a and --b name the same column ('{}'): a comparison needs two",
                inert_line(a.clone())
            )));
        }
        Arms::Two([a, b]) => vec![ArmColumn::of(&table, a, "--a")?, ArmColumn::of(&table, b, "--b")?],
    };
    let pair_column = spec.pair.as_deref().map(|p| table.find(p, "--pair")).transpose()?;
    let first_column = spec.first.as_deref().map(|f| table.find(f, "--first")).transpose()?;
    let (unit, ns_per_unit) = unit_of(&table, &columns, spec.unit.as_deref())?;

    let values = read_times(&table, &columns, unit)?;
    let warmup = spec.warmup.unwrap_or(0) as usize;
    let rows = table.rows.len();
    if let Err(why) = super::check_trials(rows.saturating_sub(warmup)) {
        let place = if warmup > 0 { format!("after --warmup {warmup}, ") } else { String::new() };
        return Err(invalid(format!("{place}each arm has {why}; the file has {rows} row(s) of trials")));
    }
    let mut summaries = Vec::new();
    for (arm, column) in values.iter().zip(&columns) {
        let summary =
            Summary::of(&arm[warmup..]).map_err(|e| table.at(table.header_line, Some(column.index), format!("{e}")))?;
        summaries.push(summary);
    }

    let labels: Vec<String> = columns
        .iter()
        .zip(&spec.labels)
        .map(|(c, given)| inert_line(given.clone().unwrap_or_else(|| c.stem.clone())))
        .collect();
    if let [a, b] = labels.as_slice()
        && a == b
    {
        // Two columns of one file are two different things measured; an
        // A/A run of one command (which `bench` allows) is not this.
        return Err(invalid(format!("both arms are named '{a}': give --label-a and --label-b that differ")));
    }
    let firsts = first_column.map(|k| first_arms(&table, k, &columns, &labels)).transpose()?;
    let checksums = checksum_check(&table, &columns, pair_column);
    // E5: the order check needs both orders; a file where one arm always
    // ran first cannot tell the order from the difference, and says so.
    let one_order = firsts.as_ref().and_then(|f| {
        let timed = &f[warmup.min(f.len())..];
        let first = *timed.first()?;
        timed.iter().all(|&k| k == first).then(|| FileCheck {
            text: format!(
                "order check not possible: {} ran first in every pair, so an order effect cannot be told from the difference",
                labels[first]
            ),
            failed: true,
        })
    });

    let name = file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
    let name = inert_line(name);
    let sha256 = crate::digest::sha256_hex(bytes);
    let (policy, warmup_trials) = match (spec.warmup, spec.warmup_stated) {
        (_, Some(n)) => (WarmupPolicy::Stated(n), n),
        (Some(k), None) => (WarmupPolicy::Count(k), k),
        (None, None) => (WarmupPolicy::Unknown, 0),
    };
    let instrument =
        spec.instrument.clone().unwrap_or_else(|| format!("the student's own instrument, named in the file {name}"));

    let pair = match (summaries.as_slice(), values.as_slice()) {
        ([sa, sb], [va, vb]) => {
            let metric = "median time";
            let verdict = stats::compare(Spread::from(sa), Spread::from(sb), (&labels[0], &labels[1]), metric, unit);
            let paired = stats::paired_ratios(&va[warmup..], &vb[warmup..]);
            let order = firsts.as_ref().and_then(|f| order_check(&f[warmup..], &va[warmup..], &vb[warmup..], sa, sb));
            Some(NewPair {
                what: spec.what.clone().unwrap_or_else(|| format!("{} vs {}", labels[0], labels[1])),
                labels: [labels[0].clone(), labels[1].clone()],
                verdict,
                paired,
                order,
            })
        }
        _ => None,
    };

    let mut prepared_rows = Vec::new();
    for (k, ((column, summary), label)) in columns.iter().zip(summaries).zip(&labels).enumerate() {
        let mut conditions = vec![
            Condition::new(
                ConditionName::Source,
                format!(
                    "{name} (imported CSV), column {}, SHA-256 {}",
                    inert_line(table.names[column.index].clone()),
                    &sha256[..12]
                ),
            ),
            Condition::new(ConditionName::Instrument, instrument.clone()),
            Condition::new(ConditionName::WarmupPolicy, warmup_text(policy)),
        ];
        if let Some(order) = pair.as_ref().and_then(|p| p.order.as_ref()) {
            conditions.push(Condition::new(ConditionName::OrderCheck, order.describe()));
        }
        if let Some(check) = &checksums {
            conditions.push(Condition::new(ConditionName::ResultCheck, check.text.clone()));
        }
        conditions.push(super::not_recorded("not available: a CSV of trials does not record them"));
        let what = match (&spec.what, columns.len()) {
            (Some(what), 1) => what.clone(),
            (Some(what), _) => format!("{what}: {label}"),
            (None, _) => label.clone(),
        };
        let arm = if k == 0 { "A" } else { "B" };
        let warmup = (policy, warmup_trials);
        let row = PreparedRow::measured(
            arm.into(),
            what,
            spec.command.as_ref(),
            warmup,
            summary,
            (unit, ns_per_unit),
            conditions,
        );
        prepared_rows.push(row);
    }
    Ok(Prepared {
        name,
        text: text.to_owned(),
        raw_stem: Csv.raw_name().0,
        raw_extension: Csv.raw_name().1,
        format: Some(Format(&Csv)),
        build: spec.build.clone(),
        boundary: None,
        rows: prepared_rows,
        pair,
        checks: checksums.into_iter().chain(one_order).collect(),
        left_out: Vec::new(),
    })
}

/// The CSV importer: a file that is neither JSON nor gzip.
pub(super) struct Csv;

impl Importer for Csv {
    fn id(&self) -> &'static str {
        "csv"
    }

    fn name(&self) -> &'static str {
        "a CSV of trials"
    }

    fn raw_name(&self) -> (&'static str, &'static str) {
        ("import-csv", "csv")
    }

    fn detect(&self, bytes: &[u8]) -> bool {
        !super::json_object(bytes) && !super::gzip(bytes)
    }

    fn takes_columns(&self) -> bool {
        true
    }

    fn prepare(&self, file: &Path, bytes: &[u8], spec: &CsvSpec) -> Result<Prepared, ImportError> {
        Ok(prepare_bytes(file, bytes, spec)?)
    }

    /// The column the row's source names, in the row's unit: the file
    /// unchanged, so the row's own column is read again.
    fn read_back(&self, text: &str, run: &Run, file: &RawFile) -> Result<ArmValues, ReadBackError> {
        let m = &run.measurement;
        let source = m.conditions.value_of(ConditionName::Source).unwrap_or_default();
        let column = source
            .split_once(" (imported CSV), column ")
            .and_then(|(_, rest)| rest.rsplit_once(", SHA-256 "))
            .map(|(column, _)| column)
            .ok_or(ReadBackError::NoColumn(run.number))?;
        let name = file.path.as_str().rsplit('/').next().unwrap_or_default();
        let table = Table::parse(Path::new(name), text)?;
        let column = ArmColumn::of(&table, column, "its column")?;
        let mut values = read_times(&table, &[column], &m.unit)?;
        super::as_recorded(values.pop().unwrap_or_default(), run, file)
    }
}

/// The column names of a CSV of trials, for a face that lets the student
/// pick the time columns before anything is imported.
pub fn header(file: &Path, bytes: &[u8]) -> Result<Vec<String>, CsvError> {
    let text = std::str::from_utf8(crate::bounded::without_bom(bytes))
        .map_err(|_| CsvError::Invalid { path: file.to_path_buf(), message: "not UTF-8 text".into() })?;
    Ok(Table::parse(file, text)?.names.into_iter().map(inert_line).collect())
}

/// The header of numbers typed or pasted with none: one column, `time`.
pub const PASTED_COLUMN: &str = "time";

/// Numbers typed or pasted into the window — separated by spaces, commas,
/// semicolons or new lines — as a CSV of one column, [`PASTED_COLUMN`],
/// which is then imported like any other and kept as the rows' raw file.
/// `None` when the text is not only numbers (a CSV pasted with its header
/// is imported as it is). Each number is checked by the import itself.
pub fn pasted(text: &str) -> Option<String> {
    let numbers: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.split(|c: char| c.is_whitespace() || c == ',' || c == ';'))
        .filter(|t| !t.is_empty())
        .collect();
    let all_numbers = !numbers.is_empty() && numbers.iter().all(|t| t.parse::<f64>().is_ok());
    all_numbers.then(|| {
        let mut csv = format!("# typed or pasted into Vernier's window\n{PASTED_COLUMN}\n");
        for number in numbers {
            csv.push_str(number);
            csv.push('\n');
        }
        csv
    })
}

/// The row's `warm-up policy` condition.
fn warmup_text(policy: WarmupPolicy) -> String {
    match policy {
        WarmupPolicy::Count(k) => format!("the first {k} trials of each arm in the file (kept in the raw file)"),
        other => other.to_string(),
    }
}

/// The unit given, else the one the columns' suffix states; both arms
/// must agree.
fn unit_of(table: &Table, columns: &[ArmColumn], given: Option<&str>) -> Result<(&'static str, f64), CsvError> {
    let known = || UNITS.iter().map(|(u, _)| *u).collect::<Vec<_>>().join(", ");
    let lookup = |u: &str| UNITS.iter().find(|(name, _)| *name == u).copied();
    let first = &columns[0];
    if let Some(given) = given {
        let lower = given.trim().to_lowercase();
        let given = if lower == "µs" || lower == "μs" { "us" } else { lower.as_str() };
        let Some((unit, ns)) = lookup(given) else {
            return Err(table.at(
                table.header_line,
                Some(first.index),
                format!("unknown unit '{}' (--unit): the units are {}", inert_line(given.to_owned()), known()),
            ));
        };
        if let Some(c) = columns.iter().find(|c| c.suffix.is_some_and(|s| s != unit)) {
            return Err(table.at(
                table.header_line,
                Some(c.index),
                format!("--unit {unit} but the column's name says {}", c.suffix.unwrap_or_default()),
            ));
        }
        return Ok((unit, ns));
    }
    let Some(unit) = first.suffix else {
        return Err(table.at(
            table.header_line,
            Some(first.index),
            format!("unknown unit: give --unit ({}) or end the column's name with _ms, _us, _ns or _s", known()),
        ));
    };
    if let Some(c) = columns.iter().find(|c| c.suffix != Some(unit)) {
        return Err(table.at(
            table.header_line,
            Some(c.index),
            format!(
                "the arms' units differ ({unit} and {}); give --unit if they are the same",
                c.suffix.unwrap_or("none")
            ),
        ));
    }
    lookup(unit).ok_or_else(|| table.at(table.header_line, Some(first.index), "unknown unit"))
}

/// Every arm's times, checked cell by cell.
fn read_times(table: &Table, columns: &[ArmColumn], unit: &str) -> Result<Vec<Vec<f64>>, CsvError> {
    if table.rows.is_empty() {
        return Err(table.at(
            table.header_line,
            Some(columns[0].index),
            "empty arm: the file has a header but no trials",
        ));
    }
    let counts: Vec<usize> =
        columns.iter().map(|c| table.rows.iter().filter(|r| !r.cell(c.index).is_empty()).count()).collect();
    let mut values = vec![Vec::with_capacity(table.rows.len()); columns.len()];
    for row in &table.rows {
        for (arm, column) in columns.iter().enumerate() {
            let cell = row.cell(column.index);
            let at = |message: String| table.at(row.line, Some(column.index), message);
            if cell.is_empty() {
                let name = |k: usize| inert_line(table.names[columns[k].index].clone());
                return Err(at(match counts.as_slice() {
                    [0, ..] | [_, 0] => "empty arm: no trials in this column".to_owned(),
                    [a, b] if a != b => {
                        format!(
                            "unequal arm lengths: {} has {a} trials, {} has {b}; this cell is empty",
                            name(0),
                            name(1)
                        )
                    }
                    _ => "empty cell: every row must hold a time".to_owned(),
                }));
            }
            let t: f64 = cell.parse().map_err(|_| at(format!("'{}' is not a number", inert_line(cell.to_owned()))))?;
            let ns = UNITS.iter().find(|(u, _)| *u == unit).map(|(_, ns)| *ns);
            if let Some(why) = plausible::refused_trial(t, unit, ns) {
                return Err(at(format!("the time {why}; it cannot be a measurement")));
            }
            values[arm].push(t);
        }
    }
    Ok(values)
}

/// Which arm ran first in each row: 0 (A) or 1 (B), named by its label,
/// its column's stem or its column's name.
fn first_arms(table: &Table, column: usize, columns: &[ArmColumn], labels: &[String]) -> Result<Vec<usize>, CsvError> {
    table
        .rows
        .iter()
        .map(|row| {
            let cell = row.cell(column);
            let names =
                |k: usize| [labels[k].as_str(), columns[k].stem.as_str(), table.names[columns[k].index].as_str()];
            let named: Vec<usize> = (0..columns.len()).filter(|&k| names(k).contains(&cell)).collect();
            let arms = || (0..columns.len()).map(|k| format!("'{}'", labels[k])).collect::<Vec<_>>().join(" or ");
            match named.as_slice() {
                [k] => Ok(*k),
                [] => Err(table.at(
                    row.line,
                    Some(column),
                    format!("'{}' names no arm; expected {}", inert_line(cell.to_owned()), arms()),
                )),
                _ => Err(table.at(
                    row.line,
                    Some(column),
                    format!(
                        "'{}' names both arms (one's label, the other's column); give labels that differ from the columns' stems",
                        inert_line(cell.to_owned())
                    ),
                )),
            }
        })
        .collect()
}

/// SPEC E5 on the file's rows: median(B) − median(A) over the rows where A
/// ran first, against the same over the rows where B did. `None` unless
/// both orders occur.
fn order_check(firsts: &[usize], a: &[f64], b: &[f64], sa: &Summary, sb: &Summary) -> Option<OrderCheck> {
    let difference = |first: usize| {
        let pick =
            |v: &[f64]| -> Vec<f64> { v.iter().zip(firsts).filter(|(_, f)| **f == first).map(|(x, _)| *x).collect() };
        Some(Summary::of(&pick(b)).ok()?.median - Summary::of(&pick(a)).ok()?.median)
    };
    Some(OrderCheck::new(difference(0)?, difference(1)?, sa.iqr + sb.iqr, sa.median))
}

/// Two checksums agree: equal finite numbers within [`CHECKSUM_TOLERANCE`]
/// of the larger, or the same non-empty text (a hash).
fn agree(x: &str, y: &str) -> bool {
    match (x.parse::<f64>(), y.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.is_finite() && y.is_finite() && (x - y).abs() <= CHECKSUM_TOLERANCE * x.abs().max(y.abs()),
        // An empty cell checks nothing, and a number that is not finite
        // is a broken result, not a match.
        (Err(_), Err(_)) => !x.is_empty() && x == y,
        _ => false,
    }
}

/// The checksum columns' verdict: one per arm (`naive_checksum`,
/// `blocked_checksum`) must agree row by row; a single `checksum` column
/// must read the same on every row. `None` when the file has neither.
fn checksum_check(table: &Table, columns: &[ArmColumn], pair: Option<usize>) -> Option<FileCheck> {
    const SHOWN: usize = 3;
    let per_arm: Option<Vec<usize>> =
        columns.iter().map(|c| table.find_optional(&format!("{}_checksum", c.stem))).collect();
    let rows = table.rows.len();
    let show = |cell: &str| inert_line(cell.to_owned());
    if let Some([ka, kb]) = per_arm.as_deref().filter(|_| columns.len() == 2) {
        let (ka, kb) = (*ka, *kb);
        let (na, nb) = (show(&table.names[ka]), show(&table.names[kb]));
        let differing: Vec<String> = table
            .rows
            .iter()
            .filter(|r| !agree(r.cell(ka), r.cell(kb)))
            .map(|r| format!("{}: {} against {}", table.row_name(r, pair), show(r.cell(ka)), show(r.cell(kb))))
            .collect();
        return Some(if differing.is_empty() {
            FileCheck {
                text: format!("checksums identical: {na} and {nb} agree on all {rows} rows (within a relative 1e-9)"),
                failed: false,
            }
        } else {
            FileCheck { text: differ_text(&format!("{na} and {nb} differ"), &differing, SHOWN), failed: true }
        });
    }
    let k = table.find_optional("checksum")?;
    let reference = table.rows.first()?;
    let differing: Vec<String> = table
        .rows
        .iter()
        .filter(|r| !agree(r.cell(k), reference.cell(k)))
        .map(|r| format!("{} reads {}", table.row_name(r, pair), show(r.cell(k))))
        .collect();
    let name = show(&table.names[k]);
    Some(if differing.is_empty() {
        FileCheck { text: format!("checksums identical: {name} is the same on all {rows} rows"), failed: false }
    } else {
        let head = format!(
            "checksums differ: {name} is not the same on every row ({} reads {})",
            table.row_name(reference, pair),
            show(reference.cell(k))
        );
        FileCheck { text: differ_text(&head, &differing, SHOWN), failed: true }
    })
}

/// `HEAD on 2 rows: line 5 …; line 7 …` with at most `shown` rows named.
fn differ_text(head: &str, differing: &[String], shown: usize) -> String {
    let more = differing.len().saturating_sub(shown);
    let listed = differing.iter().take(shown).cloned().collect::<Vec<_>>().join("; ");
    let tail = if more > 0 { format!("; and {more} more") } else { String::new() };
    format!("{head} on {} row(s): {listed}{tail}", differing.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::ImportedRows;
    use crate::notebook::Notebook;
    use chrono::Utc;

    const MATMUL: &str = "pair,first,naive_ms,blocked_ms,checksum
1,naive,5.712,2.618,134217728.000000
2,blocked,5.688,2.604,134217728.000000
3,naive,5.731,2.597,134217728.000000
4,blocked,5.694,2.611,134217728.000000
5,naive,5.705,2.589,134217728.000000
6,blocked,5.742,2.626,134217728.000000
7,naive,5.699,2.602,134217728.000000
";

    fn paired() -> CsvSpec {
        CsvSpec {
            arms: Arms::Two(["naive_ms".into(), "blocked_ms".into()]),
            pair: Some("pair".into()),
            first: Some("first".into()),
            unit: None,
            warmup: None,
            warmup_stated: Some(1),
            what: None,
            labels: [None, None],
            command: None,
            build: None,
            instrument: None,
        }
    }

    /// What a test sees of an import: what was prepared and recorded.
    struct Imported {
        prepared: Prepared,
        recorded: ImportedRows,
    }

    impl Imported {
        fn checksums(&self) -> Option<&FileCheck> {
            self.prepared.checks.first()
        }
    }

    /// Imports `text` as `trials.csv` into a fresh notebook folder.
    fn run(text: &str, spec: &CsvSpec) -> (Result<Imported, CsvError>, Notebook, tempfile::TempDir) {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("trials.csv");
        std::fs::write(&file, text).expect("write");
        let mut nb = Notebook::new("t", Utc::now());
        let result = prepare(&file, spec).map(|prepared| {
            let recorded = prepared.record(dir.path(), &mut nb, Utc::now()).expect("records");
            Imported { prepared, recorded }
        });
        (result, nb, dir)
    }

    fn raw_files(dir: &Path) -> usize {
        std::fs::read_dir(dir.join("raw")).map(|d| d.count()).unwrap_or(0)
    }

    // SPEC E14: the matmul driver's seven alternating pairs become two rows
    // and a pair; medians, IQRs, the paired ratio and the order check are
    // those computed by hand (linear interpolation, as numpy's default).
    #[test]
    fn the_matmul_driver_becomes_two_rows_and_a_pair() {
        let (result, nb, dir) = run(MATMUL, &paired());
        let imported = result.expect("imports");
        assert_eq!(imported.recorded.runs, vec![1, 2]);
        let [a, b] = [&nb.runs()[0], &nb.runs()[1]];
        assert!((a.measurement.summary.median - 5.705).abs() < 1e-12);
        assert!((a.measurement.summary.iqr - 0.025).abs() < 1e-9);
        assert!((b.measurement.summary.median - 2.604).abs() < 1e-12);
        assert!((b.measurement.summary.iqr - 0.015).abs() < 1e-9);
        assert_eq!(a.measurement.unit, "ms");
        assert!((a.measurement.ns_per_unit - 1e6).abs() < f64::EPSILON);
        assert_eq!(a.n_column(), "1 (not in the file) + 7");
        assert_eq!(a.measurement.raw_file.as_ref().map(|r| r.arm.as_str()), Some("A"));
        let pair = &nb.pairs()[0];
        assert_eq!(pair.labels, ["naive".to_owned(), "blocked".to_owned()]);
        let ratio = pair.paired.as_ref().expect("paired ratios");
        assert!((ratio.median - 0.457_331_940_090_560_8).abs() < 1e-12);
        let order = pair.order.as_ref().expect("order check");
        assert!((order.difference_ab - (2.5995 - 5.7085)).abs() < 1e-9);
        assert!((order.difference_ba - (2.611 - 5.694)).abs() < 1e-9);
        assert!(!order.confound);
        assert!(pair.verdict.claimed);
        let checks = imported.checksums().expect("checksum column");
        assert!(!checks.failed, "{}", checks.text);
        // The raw file is the source, byte for byte.
        let raw = std::fs::read_to_string(dir.path().join(imported.recorded.raw_file.path.to_string())).expect("raw");
        assert_eq!(raw, MATMUL);
        assert_eq!(imported.recorded.raw_file.sha256, crate::digest::sha256_hex(MATMUL.as_bytes()));
    }

    // SPEC E14: `#` comments are skipped, `--warmup K` drops the first K
    // trials of the arm, and a single arm takes its unit from --unit.
    #[test]
    fn one_column_with_comments_and_warmup_in_the_file() {
        let text = "# my driver, 2026-11-30\n\ntrial,t\n# a note between rows\n1,9.0\n2,1.0\n3,2.0\n4,3.0\n";
        let spec = CsvSpec {
            arms: Arms::One("t".into()),
            pair: None,
            first: None,
            warmup: Some(1),
            warmup_stated: None,
            unit: Some("us".into()),
            ..paired()
        };
        let (result, nb, _dir) = run(text, &spec);
        let imported = result.expect("imports");
        assert_eq!(imported.recorded.pair, None);
        let row = &nb.runs()[0];
        assert!((row.measurement.summary.median - 2.0).abs() < f64::EPSILON);
        assert_eq!(row.n_column(), "1 + 3");
        assert_eq!(row.measurement.warmup, WarmupPolicy::Count(1));
        assert!((row.measurement.ns_per_unit - 1e3).abs() < f64::EPSILON);
    }

    // SPEC E14: a single checksum column that changes is reported, in a
    // note too; per-arm checksums are compared within a relative 1e-9.
    #[test]
    fn differing_checksums_are_reported() {
        let text = MATMUL.replacen("5.705,2.589,134217728.000000", "5.705,2.589,134217729.000000", 1);
        let (result, nb, _dir) = run(&text, &paired());
        let imported = result.expect("imports");
        let checks = imported.checksums().expect("checked");
        assert!(checks.failed);
        assert!(checks.text.contains("line 6 (pair 5) reads 134217729.000000"), "{}", checks.text);
        assert!(nb.notes().iter().any(|n| n.text.contains("checksums differ")));

        let per_arm = "naive_ms,blocked_ms,naive_checksum,blocked_checksum\n1,2,10.0,10.00000000001\n1,2,10.0,10.5\n\
                       1,2,10.0,10.0\n";
        let spec = CsvSpec { pair: None, first: None, ..paired() };
        let (result, _, _dir) = run(per_arm, &spec);
        let imported = result.expect("imports");
        let checks = imported.checksums().expect("checked");
        assert!(checks.failed);
        assert!(checks.text.contains("line 3: 10.0 against 10.5"), "{}", checks.text);
        assert!(!checks.text.contains("line 2"), "within 1e-9: {}", checks.text);
    }

    // SPEC E14 (issue 16 item 6): each bad file names its line and column
    // and records nothing, not even the raw copy.
    #[test]
    fn bad_input_names_line_and_column_and_records_nothing() {
        let cases: [(String, CsvSpec, &str); 8] = [
            (MATMUL.replace("naive_ms", "slow_ms"), paired(), "line 1: no column 'naive_ms'"),
            (MATMUL.replace("5.731", "5,731"), paired(), "line 4: 6 fields where the header names 5"),
            (MATMUL.replace("5.731", "abc"), paired(), "line 4, column 3 (naive_ms): 'abc' is not a number"),
            (
                MATMUL.replace("2.597", "-2.597"),
                paired(),
                "line 4, column 4 (blocked_ms): the time is -2.597, a negative time",
            ),
            (
                MATMUL.replace("2.597", "inf"),
                paired(),
                "line 4, column 4 (blocked_ms): the time is inf, not a finite number",
            ),
            ("pair,first,naive_ms,blocked_ms\n".to_owned(), paired(), "line 1, column 3 (naive_ms): empty arm"),
            (
                MATMUL.replace(",2.602,", ",,"),
                paired(),
                "line 8, column 4 (blocked_ms): unequal arm lengths: naive_ms has 7 trials, blocked_ms has 6",
            ),
            (
                MATMUL.to_owned(),
                CsvSpec { unit: Some("parsec".into()), ..paired() },
                "line 1, column 3 (naive_ms): unknown unit 'parsec'",
            ),
        ];
        for (text, spec, expected) in cases {
            let (result, nb, dir) = run(&text, &spec);
            let message = result.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(message.contains("trials.csv, ") && message.contains(expected), "{expected}: got {message}");
            assert!(nb.runs().is_empty() && nb.pairs().is_empty());
            assert_eq!(raw_files(dir.path()), 0, "{expected}");
        }
        let no_suffix = MATMUL.replace("naive_ms", "naive").replace("blocked_ms", "blocked");
        let spec = CsvSpec { arms: Arms::Two(["naive".into(), "blocked".into()]), ..paired() };
        let message = run(&no_suffix, &spec).0.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("line 1, column 3 (naive): unknown unit: give --unit"), "{message}");
        let bad_first = MATMUL.replacen("blocked,5.688", "tiled,5.688", 1);
        let message = run(&bad_first, &paired()).0.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("line 3, column 2 (first): 'tiled' names no arm"), "{message}");
    }

    // SPEC E14: numbers pasted into the window become a one-column CSV;
    // anything else is left to be read as a CSV.
    #[test]
    fn pasted_numbers_become_one_column() {
        let csv = pasted("5.712 5.688,5.731\n5.694;  5.705\n").expect("numbers");
        assert!(csv.ends_with("time\n5.712\n5.688\n5.731\n5.694\n5.705\n"), "{csv}");
        let spec = CsvSpec { arms: Arms::One(PASTED_COLUMN.into()), unit: Some("ms".into()), ..paired() };
        let spec = CsvSpec { pair: None, first: None, warmup_stated: None, ..spec };
        let prepared = prepare_bytes(Path::new("pasted"), csv.as_bytes(), &spec).expect("imports");
        assert!((prepared.rows[0].measurement.summary.median - 5.705).abs() < 1e-12);
        assert_eq!(pasted("naive_ms\n5.7\n"), None);
        assert_eq!(pasted("  \n"), None);
        assert_eq!(header(Path::new("t.csv"), MATMUL.as_bytes()).expect("header").len(), 5);
    }

    // SPEC E14, S7, E5: what cannot carry a verdict is refused before
    // anything is recorded — too few trials, one column compared with
    // itself, two arms of one name, a ran-first cell that names both arms,
    // times below any clock — and a file whose order never alternates is
    // recorded with a failed order check that says so.
    #[test]
    fn what_cannot_carry_a_verdict_is_refused() {
        let refused = |text: &str, spec: &CsvSpec, expected: &str| {
            let (result, nb, dir) = run(text, spec);
            let message = result.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(message.contains(expected), "{expected}: got {message}");
            assert!(nb.runs().is_empty() && raw_files(dir.path()) == 0, "{expected}");
        };
        refused("pair,first,naive_ms,blocked_ms\n1,naive,5.1,2.1\n", &paired(), "each arm has 1 timed trial(s)");
        refused(
            MATMUL,
            &CsvSpec { warmup: Some(5), warmup_stated: None, ..paired() },
            "after --warmup 5, each arm has 2",
        );
        let same = CsvSpec { arms: Arms::Two(["naive_ms".into(), "naive_ms".into()]), ..paired() };
        refused(MATMUL, &same, "--a and --b name the same column ('naive_ms')");
        let labels = CsvSpec { labels: [Some("x".into()), Some("x".into())], ..paired() };
        refused(MATMUL, &labels, "both arms are named 'x'");
        let swapped = CsvSpec { labels: [Some("blocked".into()), Some("naive".into())], ..paired() };
        refused(MATMUL, &swapped, "line 2, column 2 (first): 'naive' names both arms");
        refused(
            &MATMUL.replace("2.597", "0"),
            &paired(),
            "line 4, column 4 (blocked_ms): the time is 0 ms, under a picosecond",
        );
        refused(&MATMUL.replace("2.597", "1e-20"), &paired(), "under a picosecond");

        let always = MATMUL.replace(",blocked,", ",naive,");
        let (result, nb, _dir) = run(&always, &paired());
        let imported = result.expect("recorded");
        let check = imported.prepared.checks.iter().find(|c| c.text.starts_with("order check not possible"));
        assert!(check.is_some_and(|c| c.failed && c.text.contains("naive ran first in every pair")), "{check:?}");
        assert!(nb.pairs()[0].order.is_none());
        assert!(nb.notes().iter().any(|n| n.text.contains("order check not possible")));

        let broken = "naive_ms,blocked_ms,naive_checksum,blocked_checksum\n1,2,nan,nan\n1,2,,\n1,2,inf,inf\n";
        let spec = CsvSpec { pair: None, first: None, ..paired() };
        let (result, _, _dir) = run(broken, &spec);
        let checks = result.expect("recorded").checksums().cloned().expect("checked");
        assert!(checks.failed && checks.text.contains("on 3 row(s)"), "{}", checks.text);
        let (result, _, _dir) = run(MATMUL, &CsvSpec { unit: Some("MS".into()), ..paired() });
        assert!(result.is_ok(), "a unit in capitals is the same unit");
    }

    #[test]
    fn checksums_agree_within_a_relative_tolerance() {
        assert!(agree("1e12", "1.0000000001e12"));
        assert!(!agree("1e12", "1.00001e12"));
        assert!(agree("deadbeef", "deadbeef"));
        assert!(!agree("deadbeef", "deadbeee"));
        assert!(!agree("nan", "nan") && !agree("inf", "inf") && !agree("", ""));
    }
}
