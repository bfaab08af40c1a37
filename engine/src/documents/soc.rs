//! The SoC comparison dataset (SPEC D2, for the architecture review): four
//! fictional parts whose peak memory bandwidth is derived, never stored, so
//! the multiplication is always shown next to the figure.

/// The shipped synthetic dataset, built into the binary.
pub const SHIPPED: &str = include_str!("../../../datasets/soc-compare.csv");

/// One part's memory interface.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// Part name.
    pub name: String,
    /// Memory generation, e.g. LPDDR5X.
    pub memory: String,
    /// Bus width in bits.
    pub bus_bits: u32,
    /// Data rate in MT/s.
    pub data_rate_mts: u32,
}

impl Part {
    /// Theoretical peak in bytes per second: MT/s × bus bytes.
    pub fn peak_bytes_per_s(&self) -> f64 {
        f64::from(self.data_rate_mts) * 1e6 * f64::from(self.bus_bits / 8)
    }

    /// The derivation as the review shows it: `8533e6 × 8 = 68.3e9 bytes/s`.
    pub fn derivation(&self) -> String {
        format!("{}e6 × {} = {:.1}e9 bytes/s", self.data_rate_mts, self.bus_bits / 8, self.peak_bytes_per_s() / 1e9)
    }
}

/// Why a parts table does not read; each names the column or the line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SocError {
    /// A column the table must have.
    #[error("no '{0}' column")]
    NoColumn(&'static str),
    /// A row shorter than the header.
    #[error("line {0}: too few cells")]
    TooFewCells(usize),
    /// A width or rate that is not a positive whole number.
    #[error("line {line}: '{cell}' is not a positive whole number")]
    NotPositive {
        /// The line, from 1.
        line: usize,
        /// The cell as written.
        cell: String,
    },
    /// A bus width that is not whole bytes.
    #[error("line {line}: a {bits}-bit bus is not a whole number of bytes")]
    PartByte {
        /// The line, from 1.
        line: usize,
        /// The width given.
        bits: u32,
    },
}

/// Reads `part,memory,bus_bits,data_rate_mts,…` (extra columns ignored);
/// the message names the line of anything that does not parse.
pub fn parse(text: &str) -> Result<Vec<Part>, SocError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let header: Vec<&str> = lines.next().map(|(_, l)| l.split(',').map(str::trim).collect()).unwrap_or_default();
    let col = |name: &'static str| header.iter().position(|h| *h == name).ok_or(SocError::NoColumn(name));
    let (name, memory, bus, rate) = (col("part")?, col("memory")?, col("bus_bits")?, col("data_rate_mts")?);
    lines
        .map(|(i, line)| {
            let cells: Vec<&str> = line.split(',').map(str::trim).collect();
            let cell = |c: usize| cells.get(c).copied().ok_or(SocError::TooFewCells(i + 1));
            let number = |c: usize| {
                let text = cell(c)?;
                text.parse::<u32>()
                    .ok()
                    .filter(|&v| v > 0)
                    .ok_or_else(|| SocError::NotPositive { line: i + 1, cell: text.to_owned() })
            };
            let bus_bits = number(bus)?;
            if bus_bits % 8 != 0 {
                return Err(SocError::PartByte { line: i + 1, bits: bus_bits });
            }
            Ok(Part {
                name: cell(name)?.to_owned(),
                memory: cell(memory)?.to_owned(),
                bus_bits,
                data_rate_mts: number(rate)?,
            })
        })
        .collect()
}

/// The memory-configuration table of the review: one row per part, the
/// inputs MODELED, the peak DERIVED with its multiplication.
pub fn memory_table(parts: &[Part]) -> Vec<Vec<String>> {
    let mut rows = vec![
        ["Part", "Memory", "Interface width", "Data rate", "Theoretical peak bandwidth", "Tag", "Derivation"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for p in parts {
        rows.push(vec![
            p.name.clone(),
            p.memory.clone(),
            format!("{} bits = {} bytes", p.bus_bits, p.bus_bits / 8),
            format!("{} MT/s", p.data_rate_mts),
            format!("{:.1} GB/s", p.peak_bytes_per_s() / 1e9),
            "DERIVED (inputs MODELED, SYNTHETIC)".to_owned(),
            p.derivation(),
        ]);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC D2: the course's worked figures — SoC-A 68.3 GB/s, SoC-C 120 GB/s.
    #[test]
    fn peak_bandwidth_is_rate_times_width() {
        let parts = parse(SHIPPED).expect("shipped dataset parses");
        assert_eq!(parts.len(), 4);
        let table = memory_table(&parts);
        let row = |name: &str| table.iter().find(|r| r[0] == name).expect("row").clone();
        assert_eq!(row("SoC-A")[4], "68.3 GB/s");
        assert_eq!(row("SoC-A")[6], "8533e6 × 8 = 68.3e9 bytes/s");
        assert_eq!(row("SoC-C")[2], "128 bits = 16 bytes");
        assert_eq!(row("SoC-C")[4], "120.0 GB/s");
        assert_eq!(row("SoC-C")[6], "7500e6 × 16 = 120.0e9 bytes/s");
    }

    #[test]
    fn malformed_rows_name_the_line() {
        let head = "part,memory,bus_bits,data_rate_mts\n";
        assert!(parse(&format!("{head}X,LP,12,100\n")).expect_err("odd width").to_string().contains("line 2"));
        assert!(parse(&format!("{head}X,LP,64,-1\n")).expect_err("negative").to_string().contains("line 2"));
        assert!(parse("a,b\n").is_err());
    }
}
