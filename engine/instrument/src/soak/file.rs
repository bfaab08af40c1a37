//! The soak CSV (SPEC T4): exactly six numeric columns, conditions in `#`
//! lines on top. Read strictly — the file may be someone else's — and
//! streamed, so a million rows need no more memory than their numbers.

use std::io::BufRead;
use std::path::Path;

use vernier_model::notebook::plausible::MAX_VALUE;

/// The header, exactly.
pub const HEADER: &str = "t_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score";
/// The six column names, in order.
pub const COLUMNS: [&str; 6] = ["t_seconds", "clock_mhz", "power_w", "soc_temp_c", "skin_temp_c", "score"];

/// Why a soak file cannot be read; every variant names the place.
#[derive(Debug, thiserror::Error)]
pub enum SoakFileError {
    /// The file was refused unread (not a regular file) or could not be opened.
    #[error(transparent)]
    Open(#[from] vernier_model::bounded::ReadError),
    /// Reading failed part-way, or passed [`MAX_SOAK_BYTES`].
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// A problem at a line.
    #[error("{}: line {line}: {message}", path.display())]
    Line {
        /// The file.
        path: std::path::PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong there.
        message: String,
    },
    /// No header, or no rows.
    #[error("{}: {message}", path.display())]
    Empty {
        /// The file.
        path: std::path::PathBuf,
        /// What is missing.
        message: String,
    },
}

/// One row of a soak CSV: what was sampled at the end of an interval, in
/// the file's column order.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SoakRow {
    /// `t_seconds` since the load started.
    pub t_seconds: f64,
    /// `clock_mhz` (0 when a placeholder).
    pub clock_mhz: f64,
    /// `power_w` (0 when a placeholder).
    pub power_w: f64,
    /// `soc_temp_c` (0 when a placeholder).
    pub soc_temp_c: f64,
    /// `skin_temp_c` (0 when a placeholder).
    pub skin_temp_c: f64,
    /// `score`: chunks of work completed per second in the interval.
    pub score: f64,
}

impl SoakRow {
    /// The row as written to the file, in [`HEADER`]'s order.
    pub fn csv_line(&self) -> String {
        let Self { t_seconds, clock_mhz, power_w, soc_temp_c, skin_temp_c, score } = self;
        format!("{t_seconds},{clock_mhz},{power_w},{soc_temp_c},{skin_temp_c},{score}")
    }
}

/// A soak file in columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SoakData {
    /// `t_seconds`, strictly increasing.
    pub t: Vec<f64>,
    /// `clock_mhz`
    pub clock: Vec<f64>,
    /// `power_w`
    pub power: Vec<f64>,
    /// `soc_temp_c`
    pub soc_temp: Vec<f64>,
    /// `skin_temp_c`
    pub skin_temp: Vec<f64>,
    /// `score` (work per second)
    pub score: Vec<f64>,
    /// The `#` lines before the header, without the `#`.
    pub comments: Vec<String>,
}

impl SoakData {
    /// Columns named in `# placeholders:` — filled in, never observed.
    pub fn placeholders(&self) -> Vec<String> {
        self.comments
            .iter()
            .filter_map(|c| c.trim().strip_prefix("placeholders:"))
            .flat_map(|list| list.split(',').map(|s| s.trim().to_owned()))
            .filter(|s| !s.is_empty() && s != "none")
            .collect()
    }

    /// Columns that hold no observation: the placeholders, and the clock
    /// of a file written before Vernier stopped taking `/proc/cpuinfo`'s
    /// `cpu MHz` for one (its source comment names that line, a nominal
    /// figure on a virtual machine: SPEC T3, T12).
    pub fn unobserved(&self) -> Vec<String> {
        let mut columns = self.placeholders();
        let nominal_clock = self.comments.iter().any(|c| {
            c.trim().strip_prefix("source clock_mhz:").is_some_and(|src| src.trim_start().starts_with("/proc/cpuinfo"))
        });
        if nominal_clock && !columns.iter().any(|c| c == "clock_mhz") {
            columns.push("clock_mhz".to_owned());
        }
        columns
    }

    /// The comments that read `field: value`, as pairs.
    pub fn facts(&self) -> impl Iterator<Item = (&str, &str)> {
        self.comments.iter().filter_map(|c| c.split_once(':'))
    }

    /// True when the comments label the data synthetic.
    pub fn synthetic(&self) -> bool {
        self.comments.iter().any(|c| c.to_ascii_uppercase().contains("SYNTHETIC"))
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.t.len()
    }

    /// True when there are no samples.
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// Appends one row (used by the runner and by tests).
    pub fn push(&mut self, row: SoakRow) {
        self.t.push(row.t_seconds);
        self.clock.push(row.clock_mhz);
        self.power.push(row.power_w);
        self.soc_temp.push(row.soc_temp_c);
        self.skin_temp.push(row.skin_temp_c);
        self.score.push(row.score);
    }
}

/// A soak file larger than this is refused as its bytes arrive: a day
/// sampled every 0.1 s takes about 60 MB.
pub const MAX_SOAK_BYTES: u64 = 256 * 1024 * 1024;

/// Reads a soak file, streamed, at most [`MAX_SOAK_BYTES`].
pub fn read(path: &Path) -> Result<SoakData, SoakFileError> {
    let file = vernier_model::bounded::BoundedFile::open(path, MAX_SOAK_BYTES, "a soak file")?;
    parse(std::io::BufReader::with_capacity(1 << 16, file), path)
}

/// Parses soak CSV from `reader`; `path` is used in messages.
pub fn parse(mut reader: impl BufRead, path: &Path) -> Result<SoakData, SoakFileError> {
    let at = |line: usize, message: String| SoakFileError::Line { path: path.to_path_buf(), line, message };
    let mut data = SoakData::default();
    let mut buf = Vec::with_capacity(128);
    let mut line = 0usize;
    let mut header_seen = false;
    loop {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| SoakFileError::Io { path: path.to_path_buf(), source })?;
        if read == 0 {
            break;
        }
        line += 1;
        let text = trim_line(if line == 1 { vernier_model::bounded::without_bom(&buf) } else { &buf });
        if text.is_empty() {
            continue;
        }
        if text[0] == b'#' {
            if !header_seen {
                data.comments.push(String::from_utf8_lossy(&text[1..]).trim().to_owned());
            }
            continue;
        }
        if !header_seen {
            let found = String::from_utf8_lossy(text);
            if found.replace(' ', "") != HEADER {
                return Err(at(
                    line,
                    format!(
                        "the columns must be exactly {HEADER}; found '{}'",
                        found.chars().take(120).collect::<String>()
                    ),
                ));
            }
            header_seen = true;
            continue;
        }
        let mut row = [0.0f64; 6];
        let mut fields = text.split(|&b| b == b',');
        for (k, slot) in row.iter_mut().enumerate() {
            let Some(field) = fields.next() else {
                return Err(at(line, format!("{} fields, expected 6", k)));
            };
            *slot = number(field).map_err(|m| at(line, format!("column '{}': {m}", COLUMNS[k])))?;
        }
        if fields.next().is_some() {
            return Err(at(line, "more than 6 fields".into()));
        }
        if row[0] < 0.0 {
            return Err(at(line, format!("t_seconds {} is a negative time", row[0])));
        }
        if let Some(&prev) = data.t.last()
            && row[0] <= prev
        {
            return Err(at(
                line,
                format!("t_seconds {} does not come after the previous {prev}: time must increase", row[0]),
            ));
        }
        let [t_seconds, clock_mhz, power_w, soc_temp_c, skin_temp_c, score] = row;
        data.push(SoakRow { t_seconds, clock_mhz, power_w, soc_temp_c, skin_temp_c, score });
    }
    if !header_seen {
        return Err(SoakFileError::Empty { path: path.to_path_buf(), message: format!("no header line '{HEADER}'") });
    }
    if data.is_empty() {
        return Err(SoakFileError::Empty { path: path.to_path_buf(), message: "the file holds no samples".into() });
    }
    Ok(data)
}

fn trim_line(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1);
    let start = bytes[..end].iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(end);
    &bytes[start..end]
}

fn number(field: &[u8]) -> Result<f64, String> {
    let field = trim_line(field);
    let shown = || String::from_utf8_lossy(field).chars().take(40).collect::<String>();
    match fast_float2::parse::<f64, _>(field) {
        Ok(v) if v.abs() > MAX_VALUE => Err(format!("'{}' is more than 10^15", shown())),
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(format!("'{}' is not a finite number", shown())),
        Err(_) => Err(format!("'{}' is not a number", shown())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<SoakData, SoakFileError> {
        parse(text.as_bytes(), Path::new("s.csv"))
    }

    const GOOD: &str = "# machine: test\n# placeholders: power_w, skin_temp_c\nt_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n10,2400,0,50,0,2.5\n20,2400,0,51,0,2.4\n";

    // SPEC T3, T12: a file written while the clock column came from
    // /proc/cpuinfo's nominal MHz has no observed clock.
    #[test]
    fn a_nominal_clock_is_no_observation() {
        let old = "# source clock_mhz: /proc/cpuinfo 'cpu MHz' (may be a nominal figure on a virtual machine)\n\
                   # placeholders: power_w\nt_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n10,2596.142,0,50,0,2.5\n";
        let d = parse_str(old).expect("parses");
        assert_eq!(d.placeholders(), ["power_w"]);
        assert_eq!(d.unobserved(), ["power_w", "clock_mhz"]);
        assert_eq!(parse_str(GOOD).expect("parses").unobserved(), ["power_w", "skin_temp_c"]);
    }

    // SPEC T4: the exact columns, comments on top, placeholders named.
    #[test]
    fn reads_a_good_file() {
        let d = parse_str(GOOD).expect("valid");
        assert_eq!(d.len(), 2);
        assert_eq!(d.score, [2.5, 2.4]);
        assert_eq!(d.placeholders(), ["power_w", "skin_temp_c"]);
        assert!(!d.synthetic());
    }

    // SPEC T4: every malformed file is refused with its line.
    #[test]
    fn malformed_files_name_the_line() {
        let header = "t_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n";
        let cases: [(&str, String, &str); 8] = [
            ("empty", String::new(), "no header line"),
            ("only comments", "# a\n# b\n".into(), "no header line"),
            (
                "other order",
                "t_seconds,score,clock_mhz,power_w,soc_temp_c,skin_temp_c\n1,2,3,4,5,6\n".into(),
                "line 1: the columns must be exactly",
            ),
            ("non-numeric", format!("{header}10,2400,x,50,0,2\n"), "line 2: column 'power_w': 'x' is not a number"),
            ("backwards", format!("{header}10,1,1,1,1,1\n5,1,1,1,1,1\n"), "line 3: t_seconds 5 does not come after"),
            ("short row", format!("{header}10,1,1,1,1\n"), "line 2: 5 fields, expected 6"),
            ("NaN", format!("{header}10,1,NaN,1,1,1\n"), "line 2: column 'power_w': 'NaN' is not a finite number"),
            ("no rows", header.to_owned(), "holds no samples"),
        ];
        for (name, text, expected) in cases {
            let err = parse_str(&text).expect_err(name).to_string();
            assert!(err.contains(expected), "{name}: {err}");
        }
        let garbage: Vec<u8> = (0..2000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        assert!(parse(&garbage[..], Path::new("g.csv")).is_err());
    }
}
