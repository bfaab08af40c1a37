//! Parameter scans (SPEC E16): one command run over a list or a geometric
//! range of values, every value one row, all of them one sweep.
//!
//! `--param SIZE=16K..64M*4` expands to the integers 16384, 65536 … (K, M
//! and G are powers of two, as working sets are); `--param N=1,10,100`
//! keeps each value's text exactly as listed. `{SIZE}` in the command
//! receives the value. Several parameters give every combination: the
//! first is the sweep's x axis, the others its series.

use serde::{Deserialize, Serialize};
use vernier_model::notebook::{MAX_POINTS, Param, point_label};

/// Why parameters cannot scan a command (SPEC E16).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScanError {
    /// No parameter at all.
    #[error("a scan needs at least one --param")]
    NoParam,
    /// Two parameters with one name.
    #[error("--param {0} is given twice")]
    Twice(String),
    /// A parameter whose placeholder is nowhere in the command.
    #[error("--param {name} is not used: write {placeholder} in {place} where its value goes")]
    Unused {
        /// The parameter's name.
        name: String,
        /// `{NAME}`.
        placeholder: String,
        /// Where the placeholder goes, as the face calls it ("the command").
        place: &'static str,
    },
    /// More combinations than [`MAX_POINTS`].
    #[error("the parameters give more than {MAX_POINTS} combinations; scan fewer values")]
    TooMany,
    /// A kernel scan's point whose size or tile is not a whole number.
    #[error(
        "{0}: a kernel's --size and --tile are whole numbers; write the values as bytes or as a range, e.g. --param \
         SIZE=16K..64M*4 (K, M and G are powers of two)"
    )]
    NotWhole(String),
}

/// A scan's parameters, checked against the command they fill in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scan {
    /// The parameters, the x axis first.
    pub params: Vec<Param>,
}

impl Scan {
    /// Checks that every parameter is used in `argv` and that the
    /// combinations stay within [`MAX_POINTS`].
    pub fn new(params: Vec<Param>, argv: &[String]) -> Result<Self, ScanError> {
        if params.is_empty() {
            return Err(ScanError::NoParam);
        }
        for (i, p) in params.iter().enumerate() {
            if params[..i].iter().any(|q| q.name == p.name) {
                return Err(ScanError::Twice(p.name.clone()));
            }
            let placeholder = p.placeholder();
            if !argv.iter().any(|word| word.contains(&placeholder)) {
                return Err(ScanError::Unused { name: p.name.clone(), placeholder, place: "the command" });
            }
        }
        let scan = Self { params };
        let points = scan.params.iter().try_fold(1usize, |n, p| n.checked_mul(p.values.len()));
        match points {
            Some(n) if n <= MAX_POINTS => Ok(scan),
            _ => Err(ScanError::TooMany),
        }
    }

    /// Every combination of values, one per point: the first parameter
    /// varies fastest, so each series (the later parameters) is contiguous.
    pub fn points(&self) -> Vec<Vec<String>> {
        let total: usize = self.params.iter().map(|p| p.values.len()).product();
        (0..total)
            .map(|k| {
                let mut stride = 1;
                self.params
                    .iter()
                    .map(|p| {
                        let value = p.values[(k / stride) % p.values.len()].clone();
                        stride *= p.values.len();
                        value
                    })
                    .collect()
            })
            .collect()
    }

    /// `argv` with each `{NAME}` replaced by the point's value, in one
    /// pass: a value that itself contains `{OTHER}` stays as it is.
    pub fn fill(&self, argv: &[String], point: &[String]) -> Vec<String> {
        let placeholders: Vec<(String, &String)> = self.params.iter().map(Param::placeholder).zip(point).collect();
        argv.iter()
            .map(|word| {
                let mut out = String::with_capacity(word.len());
                let mut rest = word.as_str();
                while let Some(at) = rest.find('{') {
                    out.push_str(&rest[..at]);
                    rest = &rest[at..];
                    match placeholders.iter().find(|(p, _)| rest.starts_with(p.as_str())) {
                        Some((p, value)) => {
                            out.push_str(value);
                            rest = &rest[p.len()..];
                        }
                        None => {
                            out.push('{');
                            rest = &rest[1..];
                        }
                    }
                }
                out.push_str(rest);
                out
            })
            .collect()
    }

    /// A point as a person reads it: `SIZE=16 KiB, MODE=seq`.
    pub fn label(&self, point: &[String]) -> String {
        point_label(&self.params, point)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    // SPEC E16: K/M/G are powers of two; a geometric range expands to integers.
    #[test]
    fn a_geometric_range_expands_to_integers() {
        let p = Param::parse("SIZE=16K..64M*4").expect("parses");
        assert_eq!(p.values, ["16384", "65536", "262144", "1048576", "4194304", "16777216", "67108864"]);
        assert!(p.sizes);
        assert_eq!(p.show("16384"), "16 KiB");
        assert_eq!(p.show("67108864"), "64 MiB");
        let plain = Param::parse("N=1..1000*10").expect("parses");
        assert_eq!((plain.values.clone(), plain.sizes), (words("1 10 100 1000"), false));
        assert_eq!(plain.show("1000"), "1000");
        // Not reaching END exactly stops below it.
        assert_eq!(Param::parse("N=3..100*3").expect("parses").values, words("3 9 27 81"));
    }

    // SPEC E16: a list is kept exactly as written.
    #[test]
    fn a_list_keeps_each_text() {
        let p = Param::parse("MODE=seq, rand,0x10").expect("parses");
        assert_eq!(p.values, ["seq", "rand", "0x10"]);
        assert!(!p.sizes);
        for bad in ["SIZE", "=1,2", "9X=1", "N=1,,2", "N=1,1", "N=1..", "N=1..8", "N=8..1*2", "N=0..8*2", "N=1..8*1"] {
            assert!(Param::parse(bad).is_err(), "{bad}");
        }
        assert!(Param::parse("N=1..1G*2").expect("31 values").values.len() == 31);
        let many: Vec<String> = (0..65).map(|i| i.to_string()).collect();
        assert!(Param::parse(&format!("N={}", many.join(","))).is_err(), "more than 64 values");
        assert!(Param::parse("N=a\u{1b}b").is_err());
    }

    // SPEC E16: every combination; the first parameter is the x axis and
    // varies fastest within each series; {NAME} is filled in everywhere.
    #[test]
    fn combinations_fill_the_command() {
        let argv = words("./walk --size={SIZE} --mode {MODE}");
        let params = vec![Param::parse("SIZE=1K,2K,4K").expect("p"), Param::parse("MODE=seq,rand").expect("p")];
        let scan = Scan::new(params, &argv).expect("scan");
        let points = scan.points();
        assert_eq!(points.len(), 6);
        assert_eq!(points[0], ["1K", "seq"]);
        assert_eq!(points[1], ["2K", "seq"]);
        assert_eq!(points[3], ["1K", "rand"]);
        assert_eq!(scan.fill(&argv, &points[4]), words("./walk --size=2K --mode rand"));
        assert_eq!(scan.label(&points[4]), "SIZE=2K, MODE=rand");
        // One pass: a value holding another placeholder is passed as it is.
        let tricky =
            Scan::new(vec![Param::parse("A={B}").expect("p"), Param::parse("B=x").expect("p")], &words("{A}{B}{{A}"))
                .expect("scan");
        assert_eq!(tricky.fill(&words("{A}{B}{{A}"), &tricky.points()[0]), ["{B}x{{B}"]);
        let unused = Scan::new(vec![Param::parse("N=1,2").expect("p")], &words("./prog {M}"));
        assert!(unused.expect_err("unused").to_string().contains("write {N} in the command"));
    }
}
