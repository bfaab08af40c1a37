//! The program's own figure (SPEC E17): a number read from what the measured
//! program prints — by a regular expression with one capture group, or by a
//! JSON key — instead of the wall time of its process. A program that times
//! its own inner loop reports what a lab asks for (ns per access) without
//! start-up, allocation and page faults; the process's wall time is still
//! kept beside each figure in the raw file.

use vernier_model::notebook::{MetricSpec, Source};

use vernier_model::notebook::plausible;

/// A captured process's output, kept and read at most: a program printing
/// more is stopped, its trial fails, and the file is cut back to this.
pub const MAX_OUTPUT_BYTES: u64 = 8 * 1024 * 1024;
/// Characters of a process's output quoted when its figure is missing.
const TAIL_CHARS: usize = 240;

enum Pattern {
    Regex(regex::Regex),
    Json(Vec<String>),
}

/// Why a [`MetricSpec`] cannot be compiled: each names the option to fix.
#[derive(Debug, thiserror::Error)]
pub enum MetricError {
    /// No unit, or one that is not one line.
    #[error("--metric-unit names the figure's unit, e.g. \"ns/access\" (one line of text)")]
    Unit,
    /// The pattern is not a regular expression.
    #[error("--metric is not a regular expression: {0}")]
    Regex(#[source] regex::Error),
    /// The pattern has no capture group, or several.
    #[error(
        "--metric '{pattern}' must have exactly one capture group around the number, e.g. 'ns/access: ([0-9.eE+-]+)' (it has {groups})"
    )]
    Groups {
        /// The pattern as given.
        pattern: String,
        /// How many capture groups it has.
        groups: usize,
    },
    /// The JSON key is empty or has an empty part.
    #[error("--metric-json '{0}' is not a key (write name, or outer.inner)")]
    JsonKey(String),
}

/// Why one process's output gives no figure that counts; the texts quoted
/// are its output's, made inert.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadFigureError {
    /// Nothing matched; the output's tail.
    #[error("its output holds no figure; it ended with: {0}")]
    None(String),
    /// Several figures where one was expected.
    #[error("it printed {0} figures where one was expected (with --metric-each every figure is a trial)")]
    Several(usize),
    /// A match that is not a number.
    #[error("its figure '{0}' is not a number")]
    NotANumber(String),
    /// A number no trial can have (not finite, not above 0 for a time …).
    #[error("its figure {figure} {why}")]
    Refused {
        /// The figure as printed.
        figure: String,
        /// What is wrong with it.
        why: String,
    },
    /// A JSON key's array holding something else among its numbers.
    #[error("the key '{key}' holds {held} among its numbers")]
    NotANumberAmong {
        /// The key, dotted.
        key: String,
        /// What it holds instead.
        held: String,
    },
    /// A JSON key holding something other than a number.
    #[error("the key '{key}' holds {held}, not a number")]
    NotANumberAt {
        /// The key, dotted.
        key: String,
        /// What it holds, inert.
        held: String,
    },
}

/// Why "Try once" could not run the command at all.
#[derive(Debug, thiserror::Error)]
pub enum TryOnceError {
    /// The metric cannot be compiled.
    #[error(transparent)]
    Metric(#[from] MetricError),
    /// The process runner could not start.
    #[error("cannot start a process: {0}")]
    Runner(#[source] std::io::Error),
    /// No file to keep the output in.
    #[error("cannot keep the output: {0}")]
    Capture(#[source] std::io::Error),
    /// The program could not be started.
    #[error(transparent)]
    Spawn(#[from] super::SpawnError),
}

/// A compiled [`MetricSpec`].
pub struct Metric {
    spec: MetricSpec,
    pattern: Pattern,
}

impl std::fmt::Debug for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metric").field("spec", &self.spec).finish()
    }
}

impl Metric {
    /// Checks the spec and compiles it.
    pub fn compile(spec: &MetricSpec) -> Result<Self, MetricError> {
        if spec.unit.trim().is_empty() || spec.unit.chars().any(char::is_control) {
            return Err(MetricError::Unit);
        }
        let pattern = match &spec.source {
            Source::Regex(text) => {
                let regex = regex::Regex::new(text).map_err(MetricError::Regex)?;
                if regex.captures_len() != 2 {
                    return Err(MetricError::Groups { pattern: text.clone(), groups: regex.captures_len() - 1 });
                }
                Pattern::Regex(regex)
            }
            Source::JsonKey(key) => {
                if key.is_empty() || key.split('.').any(str::is_empty) {
                    return Err(MetricError::JsonKey(key.clone()));
                }
                Pattern::Json(key.split('.').map(str::to_owned).collect())
            }
        };
        Ok(Metric { spec: spec.clone(), pattern })
    }

    /// The spec it was compiled from.
    pub fn spec(&self) -> &MetricSpec {
        &self.spec
    }

    /// The figures in one process's `output`, or why there is none that
    /// counts: no match, a match that is not a number, several where one was
    /// expected. The reason quotes the output's tail, made inert.
    pub fn read(&self, output: &str) -> Result<Vec<f64>, ReadFigureError> {
        let texts: Vec<String> = match &self.pattern {
            Pattern::Regex(regex) => {
                regex.captures_iter(output).filter_map(|c| c.get(1)).map(|m| m.as_str().to_owned()).collect()
            }
            Pattern::Json(path) => json_figures(output, path)?,
        };
        if texts.is_empty() {
            return Err(ReadFigureError::None(tail(output)));
        }
        if !self.spec.each && texts.len() > 1 {
            return Err(ReadFigureError::Several(texts.len()));
        }
        let time = vernier_model::stats::units::nanoseconds_per(&self.spec.unit);
        texts
            .iter()
            .map(|text| {
                let value: f64 = text.trim().parse().map_err(|_| ReadFigureError::NotANumber(tail(text)))?;
                let refused = if !value.is_finite() {
                    Some("is not a finite number".to_owned())
                } else if time.is_some() && value <= 0.0 {
                    Some("is not above 0, which a time must be".to_owned())
                } else {
                    time.and_then(|_| plausible::refused_trial(value, &self.spec.unit, time))
                };
                match refused {
                    Some(why) => Err(ReadFigureError::Refused { figure: text.clone(), why }),
                    None => Ok(value),
                }
            })
            .collect()
    }
}

/// One process of a command run once, before a measurement, to see the
/// figure it prints (the New run dialog's "Try once"): nothing is recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct TryOnce {
    /// The process's wall time.
    pub ns: u64,
    /// How it ended.
    pub status: super::TrialStatus,
    /// The figures read, or why there is none (the sentence the dialog shows).
    pub figures: Result<Vec<f64>, String>,
    /// The end of its output, inert.
    pub tail: String,
}

/// Runs `argv` once (no shell), with `timeout`, and reads `metric` from
/// its output. `cancel` stops it as it stops a benchmark.
pub fn try_once(
    argv: &[String],
    metric: &MetricSpec,
    timeout: Option<std::time::Duration>,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Result<TryOnce, TryOnceError> {
    let metric = Metric::compile(metric)?;
    let runner = super::CommandRunner::new(cancel).map_err(TryOnceError::Runner)?;
    let mut capture = super::Capture::new().map_err(TryOnceError::Capture)?;
    let program = argv.first().map_or("", String::as_str);
    let trial = runner
        .run_capturing(argv, timeout, &mut capture)
        .map_err(|source| super::SpawnError { program: program.to_owned(), source })?;
    let (figures, tail) = match capture.text() {
        Ok(output) => (metric.read(&output).map_err(|why| why.to_string()), tail(&output)),
        Err(why) => (Err(why.to_string()), String::new()),
    };
    Ok(TryOnce { ns: trial.ns, status: trial.status, figures, tail })
}

/// The last [`TAIL_CHARS`] characters of `output`, on one inert line.
pub(super) fn tail(output: &str) -> String {
    let trimmed = output.trim_end();
    let start = trimmed.char_indices().rev().nth(TAIL_CHARS - 1).map_or(0, |(i, _)| i);
    let text = vernier_model::display::inert_line(trimmed[start..].to_owned());
    if text.is_empty() {
        "(nothing)".to_owned()
    } else if start > 0 {
        format!("…{text}")
    } else {
        text
    }
}

/// The values at `path` in the output read as one JSON document, or else as
/// one JSON document per line (JSON Lines).
fn json_figures(output: &str, path: &[String]) -> Result<Vec<String>, ReadFigureError> {
    let documents: Vec<serde_json::Value> = match serde_json::from_str(output) {
        Ok(value) => vec![value],
        Err(_) => output.lines().filter_map(|line| serde_json::from_str(line.trim()).ok()).collect(),
    };
    let mut texts = Vec::new();
    for document in &documents {
        let Some(value) = path.iter().try_fold(document, |v, key| v.get(key)) else { continue };
        match value {
            serde_json::Value::Number(n) => texts.push(n.to_string()),
            serde_json::Value::Array(items) => {
                for item in items {
                    match item {
                        serde_json::Value::Number(n) => texts.push(n.to_string()),
                        other => {
                            return Err(ReadFigureError::NotANumberAmong {
                                key: path.join("."),
                                held: other.to_string(),
                            });
                        }
                    }
                }
            }
            other => {
                return Err(ReadFigureError::NotANumberAt { key: path.join("."), held: tail(&other.to_string()) });
            }
        }
    }
    Ok(texts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric(source: Source, each: bool) -> Metric {
        Metric::compile(&MetricSpec { source, unit: "ns/access".into(), each }).expect("compiles")
    }

    // SPEC E17: one capture group; the number read as printed.
    #[test]
    fn a_regex_reads_one_figure() {
        let m = metric(Source::Regex("ns/access: ([0-9.eE+-]+)".into()), false);
        assert_eq!(m.read("size 16384\nns/access: 1.25\n"), Ok(vec![1.25]));
        let missing = m.read("Segmentation fault\n").expect_err("no figure").to_string();
        assert!(missing.contains("no figure") && missing.contains("Segmentation fault"), "{missing}");
        let two = m.read("ns/access: 1\nns/access: 2\n").expect_err("two").to_string();
        assert!(two.contains("--metric-each"), "{two}");
        assert!(m.read("ns/access: -3\n").is_err(), "a time is above 0");
        assert!(m.read("ns/access: 1e400\n").is_err());
        for bad in ["ns/access: [0-9.]+", "(a)(b)", "(unclosed"] {
            assert!(
                Metric::compile(&MetricSpec { source: Source::Regex(bad.into()), unit: "ns".into(), each: false })
                    .is_err()
            );
        }
        let no_unit = MetricSpec { source: Source::Regex("(x)".into()), unit: " ".into(), each: false };
        assert!(Metric::compile(&no_unit).is_err());
    }

    // SPEC E17: with --metric-each every figure is a trial.
    #[test]
    fn each_reads_every_figure() {
        let m = metric(Source::Regex("trial [0-9]+: ([0-9.]+) ns".into()), true);
        let out = "trial 1: 1.5 ns\ntrial 2: 1.25 ns\ntrial 3: 1.0 ns\n";
        assert_eq!(m.read(out), Ok(vec![1.5, 1.25, 1.0]));
    }

    // SPEC E17: a JSON key, one document or one per line, a number or an
    // array of numbers.
    #[test]
    fn a_json_key_reads_numbers() {
        let m = metric(Source::JsonKey("result.ns_per_access".into()), true);
        assert_eq!(m.read(r#"{"result": {"ns_per_access": [1.5, 2]}}"#), Ok(vec![1.5, 2.0]));
        assert_eq!(
            m.read("{\"result\":{\"ns_per_access\":3}}\n{\"result\":{\"ns_per_access\":4}}\n"),
            Ok(vec![3.0, 4.0])
        );
        assert!(m.read(r#"{"result": {"ns_per_access": "fast"}}"#).is_err());
        assert!(m.read("not json").expect_err("none").to_string().contains("no figure"));
        let one = metric(Source::JsonKey("t".into()), false);
        assert_eq!(one.read(r#"{"t": 7.5}"#), Ok(vec![7.5]));
    }

    // SPEC E17: "Try once" runs one process and reads its figure.
    #[cfg(unix)]
    #[test]
    fn try_once_reads_the_figure() {
        let spec = MetricSpec { source: Source::Regex("took ([0-9.]+) ms".into()), unit: "ms".into(), each: false };
        let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let argv = |script: &str| vec!["sh".to_owned(), "-c".to_owned(), script.to_owned()];
        let tried = try_once(&argv("echo took 4.5 ms"), &spec, None, cancel.clone()).expect("runs");
        assert_eq!((tried.status, tried.figures), (super::super::TrialStatus::Ok, Ok(vec![4.5])));
        let tried = try_once(&argv("echo oops >&2"), &spec, None, cancel).expect("runs");
        assert!(tried.figures.expect_err("none").contains("oops"));
        assert_eq!(tried.tail, "oops");
    }

    // A long output is quoted by its tail only, on one line.
    #[test]
    fn the_tail_is_short_and_inert() {
        let long = format!("{}\u{1b}[31mend\n", "x".repeat(1000));
        let t = tail(&long);
        // The escape is shown as the text `\x1b`, three characters longer.
        assert!(t.starts_with('…') && t.ends_with("end") && t.chars().count() <= TAIL_CHARS + 4, "{t}");
        assert!(!t.contains('\u{1b}'));
    }
}
