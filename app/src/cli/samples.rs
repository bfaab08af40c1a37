//! Reading a sample of numbers from a file, standard input or a CSV column.

use std::io::IsTerminal as _;
use std::path::Path;

use anyhow::{Context as _, anyhow, bail};
use vernier_engine::bounded;
use vernier_engine::harness::TrialRecord;
use vernier_engine::harness::raw::{self, ArmUnit};
use vernier_engine::import::MAX_IMPORT_BYTES;

use super::Failure;

/// Numbers read from one source, in their order.
#[derive(Debug)]
pub struct Sample {
    /// The values.
    pub values: Vec<f64>,
    /// Where they came from ("stdin" or the path), for messages.
    pub source: String,
}

/// Vernier's own raw trial file, read as what it is rather than as a column
/// of numbers: its `ns` column mixes warm-up trials, failed trials and both
/// arms of a comparison, so one summary of it would be false.
#[derive(Debug)]
pub struct RawSamples {
    /// Every trial, in order.
    pub trials: Vec<TrialRecord>,
    /// The arms' units the file states reliably.
    pub units: Vec<ArmUnit>,
    /// Each trial's figures, when the run read the program's own (E17).
    pub figures: Option<Vec<Vec<f64>>>,
    /// The path, for messages.
    pub source: String,
}

/// What `vernier stats` reads.
#[derive(Debug)]
pub enum Input {
    /// Numbers, as [`read_sample`] reads them.
    Numbers(Sample),
    /// A raw trial file, read without `--column` or with `--column ns`.
    Raw(RawSamples),
}

/// Like [`read_sample`], but a raw trial file (recognised by its header,
/// whatever its name or source) is read as trials; `--column` naming any
/// other of its columns reads that column as numbers, as before.
pub fn read_input(path: &str, column: Option<&str>) -> Result<Input, Failure> {
    let (text, source) = read_source(path)?;
    if raw::is_raw(&text) && column.is_none_or(|c| c == "ns") {
        let (trials, figures) =
            raw::parse_with_figures(&text).map_err(|e| Failure::input(anyhow!("reading {source}: {e}")))?;
        if trials.is_empty() {
            return Err(Failure::input(anyhow!("no trials in {source}")));
        }
        return Ok(Input::Raw(RawSamples { trials, units: raw::units(&text), figures, source }));
    }
    parse_sample(&text, source, column).map(Input::Numbers)
}

/// Reads numbers from `path` (`-` is standard input): one per line, blank
/// lines and `#` comments skipped — or, with `column`, that column of a CSV
/// with a header row. Anything unreadable is bad input (exit 2) and the
/// message names the line.
pub fn read_sample(path: &str, column: Option<&str>) -> Result<Sample, Failure> {
    let (text, source) = read_source(path)?;
    parse_sample(&text, source, column)
}

/// The text at `path` and its name for messages.
fn read_source(path: &str) -> Result<(String, String), Failure> {
    let source = if path == "-" { "stdin".to_owned() } else { path.to_owned() };
    Ok((read_text(path).map_err(Failure::input)?, source))
}

fn parse_sample(text: &str, source: String, column: Option<&str>) -> Result<Sample, Failure> {
    let values = match column {
        None => parse_lines(text),
        Some(name) => parse_column(text, name),
    }
    .map_err(|e| Failure::input(e.context(format!("reading {source}"))))?;
    if values.is_empty() {
        return Err(Failure::input(anyhow!("no numbers in {source}")));
    }
    Ok(Sample { values, source })
}

fn read_text(path: &str) -> anyhow::Result<String> {
    let bytes = if path == "-" {
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            eprintln!("reading numbers from standard input, one per line; end with Ctrl-D");
        }
        bounded::read_stream(stdin, Path::new("standard input"), MAX_IMPORT_BYTES, "a list of numbers")?
    } else {
        bounded::read_bounded(Path::new(path), MAX_IMPORT_BYTES, "a list of numbers")?
    };
    String::from_utf8(bounded::without_bom(&bytes).to_vec()).with_context(|| format!("{path} is not UTF-8 text"))
}

fn parse_lines(text: &str) -> anyhow::Result<Vec<f64>> {
    let mut values = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let token = line.trim();
        if token.is_empty() || token.starts_with('#') {
            continue;
        }
        values.push(parse_number(token).with_context(|| format!("line {}", i + 1))?);
    }
    Ok(values)
}

fn parse_column(text: &str, name: &str) -> anyhow::Result<Vec<f64>> {
    let mut reader =
        csv::ReaderBuilder::new().comment(Some(b'#')).flexible(true).trim(csv::Trim::All).from_reader(text.as_bytes());
    let headers = reader.headers().context("reading the CSV header")?.clone();
    let Some(index) = headers.iter().position(|h| h == name) else {
        bail!("no column '{name}'; the columns are: {}", headers.iter().collect::<Vec<_>>().join(", "));
    };
    let mut values = Vec::new();
    for record in reader.records() {
        let record = record.context("malformed CSV")?;
        let line = record.position().map_or(0, csv::Position::line);
        let cell = record.get(index).with_context(|| format!("line {line}: no value in column '{name}'"))?;
        values.push(parse_number(cell).with_context(|| format!("line {line}, column '{name}'"))?);
    }
    Ok(values)
}

/// A finite number, or an error quoting the text.
fn parse_number(token: &str) -> anyhow::Result<f64> {
    match token.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => bail!("'{token}' is not a finite number"),
        Err(_) => bail!("'{token}' is not a number"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_line_of_a_bad_number() {
        let err = parse_lines("12.4\nbanana\n").expect_err("banana");
        assert_eq!(format!("{err:#}"), "line 2: 'banana' is not a number");
        assert!(parse_lines("1\ninf\n").is_err());
        assert_eq!(parse_lines("# c\n\n1\n 2 \n").expect("valid"), [1.0, 2.0]);
    }

    #[test]
    fn reads_a_csv_column_by_name() {
        let csv = "# conditions\nindex,ns\n0,10\n1,12\n";
        assert_eq!(parse_column(csv, "ns").expect("valid"), [10.0, 12.0]);
        let err = parse_column(csv, "ms").expect_err("missing");
        assert!(format!("{err:#}").contains("the columns are: index, ns"));
        let err = parse_column("a\n1\nx\n", "a").expect_err("bad cell");
        assert_eq!(format!("{err:#}"), "line 3, column 'a': 'x' is not a number");
    }
}
