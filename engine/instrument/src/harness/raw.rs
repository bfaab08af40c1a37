//! Raw trial files (SPEC N6): one row per trial, the conditions as `#`
//! comments on top. Written once into `raw/`, never modified; the notebook
//! keeps their SHA-256.

use std::fmt::Write as _;
use std::path::Path;

use vernier_model::digest::sha256_hex;

use super::{TrialRecord, TrialWork};
use vernier_model::bounded::{BoundedFile, ReadError, read_bounded};
use vernier_model::notebook::store::{self, OutputFile, RAW_DIR};
use vernier_model::notebook::{FolderError, NotebookPath, PathError, RawFile, Run, SaveError, create_folder};
use vernier_model::os::fs::FileIdentity;

/// A raw file larger than this is neither hashed nor read: a million
/// trials take about 40 MB.
pub const MAX_RAW_BYTES: u64 = 512 * 1024 * 1024;

/// The CSV header.
pub const HEADER: &str = "index,arm,position,warmup,ns,exit_status";

/// A raw file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum RawError {
    /// Writing the file failed.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// `raw/` could not be created.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The generated name was refused (cannot happen with Vernier's names).
    #[error(transparent)]
    Path(#[from] PathError),
    /// `raw/` is a symbolic link or not a folder, or no name could be
    /// reserved in it.
    #[error("cannot write a raw file in {}: {source}", path.display())]
    Refused {
        /// The folder.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The header of a run that read the program's own figure (SPEC E17): each
/// process's figures follow its wall time, separated by `;`.
pub const HEADER_FIGURES: &str = "index,arm,position,warmup,ns,exit_status,figures";

/// The header of a run that recorded what each trial's processes did
/// (SPEC E13): CPU time in nanoseconds, cycles and instructions, each
/// empty where it was not measured; `,figures` follows when the run read
/// the program's own.
pub const HEADER_WORK: &str = "index,arm,position,warmup,ns,exit_status,cpu_ns,cycles,instructions";

/// What a header line says the rows hold: (work columns, figures column).
fn header_columns(line: &str) -> Option<(bool, bool)> {
    let (work, rest) = match line.strip_prefix(HEADER_WORK) {
        Some(rest) => (true, rest),
        None => (false, line.strip_prefix(HEADER)?),
    };
    match rest {
        "" => Some((work, false)),
        ",figures" => Some((work, true)),
        _ => None,
    }
}

/// The label of arm `arm` in a raw file: `A`, `B` … `Z`, `AA` … as a
/// spreadsheet names its columns (a sweep has one arm per point).
pub fn arm_label(arm: usize) -> String {
    let mut n = arm + 1;
    let mut label = Vec::new();
    while n > 0 {
        let digit = (n - 1) % 26;
        label.push(b'A' + digit as u8);
        n = (n - 1) / 26;
    }
    label.reverse();
    String::from_utf8_lossy(&label).into_owned()
}

/// The arm an [`arm_label`] names, if it is one.
pub fn arm_index(label: &str) -> Option<usize> {
    if label.is_empty() || label.len() > 3 || !label.bytes().all(|b| b.is_ascii_uppercase()) {
        return None;
    }
    Some(label.bytes().fold(0usize, |n, b| n * 26 + usize::from(b - b'A') + 1) - 1)
}

/// The file's text: `comments` as `#` lines, then one row per trial.
pub fn render(comments: &[String], trials: &[TrialRecord]) -> String {
    render_with(comments, trials, None)
}

/// [`render`], with each trial's figures (SPEC E17) after its wall time
/// when the run read them: `figures[i]` are trial `i`'s.
pub fn render_with(comments: &[String], trials: &[TrialRecord], figures: Option<&[Vec<f64>]>) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "# Vernier raw trials — written once; the notebook keeps this file's SHA-256");
    for comment in comments {
        // A comment must stay on its line: a newline would start a data row.
        let _ = writeln!(out, "# {}", comment.replace(['\n', '\r'], " "));
    }
    let work = trials.iter().any(|t| t.work != TrialWork::default());
    out.push_str(if work { HEADER_WORK } else { HEADER });
    if figures.is_some() {
        out.push_str(",figures");
    }
    out.push('\n');
    let cell = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
    for (i, t) in trials.iter().enumerate() {
        let arm = arm_label(t.arm);
        let _ = write!(out, "{},{arm},{},{},{},{}", t.index, t.position, u8::from(t.warmup), t.ns, t.status);
        if work {
            let w = &t.work;
            let _ = write!(out, ",{},{},{}", cell(w.cpu_ns), cell(w.cycles), cell(w.instructions));
        }
        if let Some(figures) = figures {
            let these = figures.get(i).map(Vec::as_slice).unwrap_or_default();
            let texts: Vec<String> = these.iter().map(f64::to_string).collect();
            let _ = write!(out, ",{}", texts.join(";"));
        }
        out.push('\n');
    }
    out
}

/// The `#` comment that states an arm's unit, so the file can be read back
/// in the unit its row uses: `arm A unit: s (ns / 1000000000)`. The
/// divisor is written without its float artefact (the harness computes 1e9
/// as 999999999.9999999), like every number a person reads (S12).
pub fn unit_comment(label: &str, unit: &str, ns_per_unit: f64) -> String {
    format!("arm {label} unit: {unit} (ns / {})", vernier_model::stats::format_plain(ns_per_unit))
}

/// An arm's unit as a raw file's comment states it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmUnit {
    /// `A` or `B`.
    pub label: String,
    /// The row's unit (`s`, `ns/access` …).
    pub unit: String,
    /// Nanoseconds per one `unit`; finite and positive. For an arm of
    /// figures, 1 (its values are not derived from nanoseconds).
    pub ns_per_unit: f64,
    /// The arm's values are the program's own figures, read from its
    /// output (SPEC E17), not its wall times.
    pub figures: bool,
}

/// The `#` comment that states an arm's figures' unit (SPEC E17).
pub fn figures_comment(label: &str, unit: &str) -> String {
    format!("arm {label} figures: {unit}{FIGURES_TEXT}")
}

/// What follows the unit in [`figures_comment`].
const FIGURES_TEXT: &str = " read from the program's output; ns is each process's wall time";

/// The arms' units stated by [`unit_comment`] lines before the header. An
/// arm stated twice, or with a divisor that is not a finite positive number,
/// is left out: the file may be someone else's, and a wrong unit would
/// print a wrong number, where nanoseconds are always right.
pub fn units(text: &str) -> Vec<ArmUnit> {
    let stated: Vec<ArmUnit> = text
        .lines()
        .map(str::trim)
        .take_while(|line| line.is_empty() || line.starts_with('#'))
        .filter_map(|line| {
            let arm = line.strip_prefix("# arm ")?;
            if let Some((label, rest)) = arm.split_once(" figures: ") {
                let unit = rest.strip_suffix(FIGURES_TEXT)?;
                let valid = arm_index(label).is_some() && !unit.is_empty();
                return valid.then(|| ArmUnit {
                    label: label.to_owned(),
                    unit: unit.to_owned(),
                    ns_per_unit: 1.0,
                    figures: true,
                });
            }
            let (label, rest) = arm.split_once(" unit: ")?;
            let (unit, divisor) = rest.rsplit_once(" (ns / ")?;
            // Files written before the divisor was rounded say 1 / (1 / 1e9)
            // as 999999999.9999999; 15 significant digits give back the 1e9
            // it means, so the values read back carry no float artefact and
            // match the row's.
            let written: f64 = divisor.strip_suffix(')')?.parse().ok()?;
            let ns_per_unit: f64 = format!("{written:.14e}").parse().ok()?;
            let valid = arm_index(label).is_some() && !unit.is_empty() && ns_per_unit.is_finite() && ns_per_unit > 0.0;
            valid.then(|| ArmUnit { label: label.to_owned(), unit: unit.to_owned(), ns_per_unit, figures: false })
        })
        .collect();
    stated.iter().filter(|u| stated.iter().filter(|v| v.label == u.label).count() == 1).cloned().collect()
}

/// True when `text` is a raw trial file: its first line that is not a
/// comment is [`HEADER`] or [`HEADER_WORK`], each with or without
/// `,figures`.
pub fn is_raw(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#'))
        .is_some_and(|line| header_columns(line).is_some())
}

/// Writes `text` to `raw/STEM.csv` in the notebook `dir` — or `STEM-2.csv`,
/// `STEM-3.csv` … since a raw file is never overwritten — and returns its
/// path and SHA-256.
///
/// The name is reserved by creating it new, so two writers (two benchmarks
/// in two terminals) can never take the same one (N10); `raw/` must be a
/// real folder inside the notebook, not a link out of it.
pub fn write_once(dir: &Path, stem: &str, text: &str) -> Result<RawFile, RawError> {
    Reserved::take(dir, stem)?.write(text)
}

/// [`write_once`] for a file kept in another tool's format (an imported
/// JSON export): `raw/STEM.EXTENSION`, never overwritten either.
pub fn write_once_as(dir: &Path, stem: &str, extension: &str, text: &str) -> Result<RawFile, RawError> {
    Reserved::take_as(dir, stem, extension)?.write(text)
}

/// A raw-file name taken in the notebook's `raw/` — created empty and new —
/// before the trials it will hold exist: a run reserves its name when it
/// starts, so two runs never get the same one, and a `raw/` that is refused
/// (a symbolic link out of the folder) stops the run before it measures.
/// Dropped unwritten, the empty file is removed.
#[derive(Debug)]
pub struct Reserved {
    path: NotebookPath,
    file: Option<OutputFile>,
}

impl Reserved {
    /// Takes the first free `raw/STEM.csv`, `STEM-2.csv` … in `dir`.
    pub fn take(dir: &Path, stem: &str) -> Result<Self, RawError> {
        Self::take_as(dir, stem, "csv")
    }

    /// [`Self::take`] with another extension than `csv`.
    fn take_as(dir: &Path, stem: &str, extension: &str) -> Result<Self, RawError> {
        let raw_dir = dir.join(RAW_DIR);
        let refused = |source| RawError::Refused { path: raw_dir.clone(), source };
        store::refuse_unless_real_folder(&raw_dir).map_err(refused)?;
        create_folder(&raw_dir)?;
        let name = reserve(&raw_dir, stem, extension).map_err(refused)?;
        let file = OutputFile::new(&raw_dir, &name)?;
        match NotebookPath::new(format!("{RAW_DIR}/{name}")) {
            Ok(path) => Ok(Self { path, file: Some(file) }),
            Err(e) => {
                let _ = std::fs::remove_file(file.path());
                Err(e.into())
            }
        }
    }

    /// Writes `text` into the reserved file, once, atomically.
    pub fn write(mut self, text: &str) -> Result<RawFile, RawError> {
        let file = self.file.take().ok_or_else(|| RawError::Refused {
            path: self.path.to_string().into(),
            source: std::io::Error::other("this raw file was already written"),
        })?;
        match file.write(text.as_bytes()) {
            Ok(()) => Ok(RawFile {
                path: self.path.clone(),
                sha256: sha256_hex(text.as_bytes()),
                arm: "A".into(),
                imported: None,
            }),
            Err(e) => {
                let _ = std::fs::remove_file(file.path());
                Err(e.into())
            }
        }
    }
}

impl Drop for Reserved {
    fn drop(&mut self) {
        // Never written: the empty reservation is ours and nothing refers to it.
        if let Some(file) = self.file.take() {
            let _ = std::fs::remove_file(file.path());
        }
    }
}

/// Creates the first free name of `STEM.EXT`, `STEM-2.EXT` … in `raw_dir`
/// (created new, holding only its writer's reservation line) and returns it.
fn reserve(raw_dir: &Path, stem: &str, extension: &str) -> std::io::Result<String> {
    for k in 1..=10_000u32 {
        let name = if k == 1 { format!("{stem}.{extension}") } else { format!("{stem}-{k}.{extension}") };
        match std::fs::File::options().write(true).create_new(true).open(raw_dir.join(&name)) {
            // It says whose it is until the trials replace it, so a
            // reservation left by a writer that died is known and tidied.
            Ok(mut file) => {
                std::io::Write::write_all(&mut file, store::reservation_text().as_bytes())?;
                return Ok(name);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(format!("10 000 files named {stem}-N.{extension} already exist")))
}

/// Keeps a build's sources in `raw/` of the notebook `dir` (SPEC N15),
/// each under its content-addressed name: written once, whole (a temporary
/// renamed in place), and left as it is when a file of that name already
/// holds the same bytes. A file of that name holding other bytes is
/// refused, not replaced.
pub fn keep_sources(dir: &Path, sources: &[super::KeptSource]) -> Result<(), RawError> {
    if sources.is_empty() {
        return Ok(());
    }
    let raw_dir = dir.join(RAW_DIR);
    let refused = |source| RawError::Refused { path: raw_dir.clone(), source };
    store::refuse_unless_real_folder(&raw_dir).map_err(refused)?;
    create_folder(&raw_dir)?;
    for (name, bytes) in sources {
        let path = NotebookPath::new(format!("{RAW_DIR}/{name}"))?;
        let file = raw_dir.join(name);
        match read_bounded(&file, bytes.len() as u64, "a kept source") {
            Ok(there) if there == *bytes => continue,
            Ok(_) | Err(ReadError::TooLarge { .. }) => {
                return Err(refused(std::io::Error::other(format!("{path} exists and holds other bytes"))));
            }
            Err(e) if e.is_not_found() => {}
            Err(e) => return Err(refused(std::io::Error::other(e.to_string()))),
        }
        OutputFile::new(&raw_dir, name)?.write(bytes)?;
    }
    Ok(())
}

/// The bytes of the raw file at `path`, which may be someone else's.
pub fn read(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_bounded(path, MAX_RAW_BYTES, "a raw trial file")
}

/// [`read`], with the identity of the file read, taken through the open
/// handle (`None` where there is none to take): what was read is that
/// file's, whatever the path names by then.
pub fn read_identified(path: &Path) -> Result<(Vec<u8>, Option<FileIdentity>), ReadError> {
    let file = BoundedFile::open(path, MAX_RAW_BYTES, "a raw trial file")?;
    let identity = FileIdentity::of(file.opened());
    Ok((file.read_all()?, identity))
}

/// A raw file's trials read back from the notebook folder, for a view of
/// them (a chart, the window's trial plot): read bounded, through the
/// notebook's path so it stays inside the folder (SPEC N1), and only in
/// Vernier's own format (N6).
#[derive(Debug, Clone, PartialEq)]
pub struct RawTrials {
    /// Every trial of every arm, in order.
    pub trials: Vec<TrialRecord>,
    /// Each trial's figures, when the run read the program's own (E17).
    pub figures: Option<TrialFigures>,
}

/// A row's trials could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum TrialsError {
    /// The row keeps no raw file (typed numbers, an old row).
    #[error("run {0} keeps no raw file")]
    NoFile(u32),
    /// The stored path leaves the notebook folder.
    #[error("the raw file is refused: {0}")]
    Refused(#[from] PathError),
    /// The file is missing, too large or not a regular file.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// An import keeps the instrument's file unchanged, in its own format.
    #[error("{0} is the imported file unchanged, in its instrument's own format")]
    Foreign(NotebookPath),
    /// The file is in Vernier's format but a line does not read.
    #[error("{path}: {why}")]
    Malformed {
        /// The raw file.
        path: NotebookPath,
        /// What did not read, with its line.
        #[source]
        why: RawLineError,
    },
}

/// A line of a raw file that does not read; the file may be someone
/// else's, so the message names the line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RawLineError {
    /// The first line that is not a comment is not a header Vernier writes.
    #[error("line {0}: expected the header '{HEADER}'")]
    Header(usize),
    /// A field, or the count of fields, is wrong.
    #[error("line {line}: {what}")]
    Field {
        /// The line, from 1.
        line: usize,
        /// What is wrong there.
        what: &'static str,
    },
}

impl RawTrials {
    /// The bytes of the raw file `path` of the notebook in folder `dir`:
    /// confined to the folder, and read bounded.
    pub fn read_bytes(dir: &Path, path: &NotebookPath) -> Result<Vec<u8>, TrialsError> {
        Ok(read(&path.resolve(dir)?)?)
    }

    /// The trials of `bytes`, the raw file `path`; a file not in Vernier's
    /// raw format (an import's, kept unchanged) is [`TrialsError::Foreign`].
    pub fn parse(path: &NotebookPath, bytes: &[u8]) -> Result<Self, TrialsError> {
        let text = String::from_utf8_lossy(bytes);
        if !is_raw(&text) {
            return Err(TrialsError::Foreign(path.clone()));
        }
        let (trials, figures) =
            parse_with_figures(&text).map_err(|why| TrialsError::Malformed { path: path.clone(), why })?;
        Ok(Self { trials, figures })
    }

    /// `run`'s own trials in this file (see [`arm_values`]).
    pub fn arm(&self, run: &Run) -> ArmValues {
        arm_values(run, &self.trials, self.figures.as_deref())
    }
}

/// One row's trials in its own unit, warm-up and timed apart, each in the
/// order they ran.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArmValues {
    /// The warm-up trials.
    pub warmup: Vec<f64>,
    /// The timed trials: the ones its summary was made of.
    pub timed: Vec<f64>,
}

/// Picks `run`'s arm out of its raw file's trials — a comparison's or a
/// scan's rows share one file, lettered A, B … — keeping the trials that
/// ran to completion, in the row's unit: the process's time divided by the
/// row's nanoseconds per unit, or with `figures` (one list per trial) and a
/// row measured by them, its figures as printed (SPEC E17).
pub fn arm_values(run: &Run, trials: &[TrialRecord], figures: Option<&[Vec<f64>]>) -> ArmValues {
    let arm = run.measurement.raw_file.as_ref().and_then(|r| arm_index(&r.arm)).unwrap_or(0);
    let figures = figures.filter(|_| run.measurement.figure.is_some());
    let scale = run.measurement.ns_per_unit;
    let pick = |warm: bool| -> Vec<f64> {
        // The file's figures go line for line with its trials.
        let chosen = trials
            .iter()
            .enumerate()
            .filter(|(_, t)| t.arm == arm && t.warmup == warm && t.status == super::TrialStatus::Ok);
        match figures {
            Some(figures) => chosen.flat_map(|(i, _)| figures.get(i).into_iter().flatten().copied()).collect(),
            None => chosen.map(|(_, t)| t.ns as f64 / scale).collect(),
        }
    };
    ArmValues { warmup: pick(true), timed: pick(false) }
}

/// Reads the trial rows of a raw file back (the `#` lines are skipped).
/// The file may be someone else's, so every field is checked; the message
/// names the line.
pub fn parse(text: &str) -> Result<Vec<TrialRecord>, RawLineError> {
    parse_with_figures(text).map(|(trials, _)| trials)
}

/// Each trial's figures, in trial order (SPEC E17).
pub type TrialFigures = Vec<Vec<f64>>;

/// [`parse`], with each trial's figures when the file has them (SPEC E17).
pub fn parse_with_figures(text: &str) -> Result<(Vec<TrialRecord>, Option<TrialFigures>), RawLineError> {
    let mut trials = Vec::new();
    let mut figures: Option<TrialFigures> = None;
    let mut work_columns: Option<bool> = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(work_columns) = work_columns else {
            let (work, with_figures) = header_columns(line).ok_or(RawLineError::Header(i + 1))?;
            work_columns = Some(work);
            if with_figures {
                figures = Some(Vec::new());
            }
            continue;
        };
        let bad = |what: &'static str| RawLineError::Field { line: i + 1, what };
        let mut fields: Vec<&str> = line.split(',').collect();
        let base = if work_columns { 9 } else { 6 };
        if let Some(figures) = figures.as_mut() {
            let last = if fields.len() == base + 1 { fields.pop().unwrap_or_default() } else { "" };
            let these = last
                .split(';')
                .filter(|t| !t.is_empty())
                .map(|t| t.parse::<f64>().ok().filter(|v| v.is_finite()))
                .collect::<Option<Vec<f64>>>()
                .ok_or_else(|| bad("a figure is not a finite number"))?;
            figures.push(these);
        }
        let (fields, work) = if work_columns {
            let [index, arm, position, warmup, ns, status, cpu_ns, cycles, instructions] = fields.as_slice() else {
                return Err(bad("expected 9 fields (10 with figures)"));
            };
            let count = |text: &str, what: &'static str| -> Result<Option<u64>, RawLineError> {
                if text.is_empty() { Ok(None) } else { text.parse().map(Some).map_err(|_| bad(what)) }
            };
            let work = TrialWork {
                cpu_ns: count(cpu_ns, "the CPU time is not a whole number of nanoseconds")?,
                cycles: count(cycles, "the cycle count is not a whole number")?,
                instructions: count(instructions, "the instruction count is not a whole number")?,
                // The raw file keeps no CPU: the row says where the trials ran.
                cpu: None,
            };
            ([*index, *arm, *position, *warmup, *ns, *status], work)
        } else {
            let [index, arm, position, warmup, ns, status] = fields.as_slice() else {
                return Err(bad("expected 6 fields (7 with figures)"));
            };
            ([*index, *arm, *position, *warmup, *ns, *status], TrialWork::default())
        };
        let [index, arm, position, warmup, ns, status] = fields;
        trials.push(TrialRecord {
            index: index.parse().map_err(|_| bad("the index is not a number"))?,
            arm: arm_index(arm).ok_or_else(|| bad("the arm is not a letter label (A, B …)"))?,
            position: position.parse().map_err(|_| bad("the position is not a number"))?,
            warmup: match warmup {
                "0" => false,
                "1" => true,
                _ => return Err(bad("the warm-up flag is neither 0 nor 1")),
            },
            ns: ns.parse().map_err(|_| bad("the time is not a whole number of nanoseconds"))?,
            status: parse_status(status).ok_or_else(|| bad("unknown exit status"))?,
            work,
        });
    }
    Ok((trials, figures))
}

fn parse_status(text: &str) -> Option<super::TrialStatus> {
    use super::TrialStatus;
    Some(match text {
        "0" => TrialStatus::Ok,
        "timeout" => TrialStatus::Timeout,
        "cancelled" => TrialStatus::Cancelled,
        "wrong result" => TrialStatus::WrongResult,
        "no figure" => TrialStatus::NoFigure,
        "too much output" => TrialStatus::TooMuchOutput,
        other => {
            if let Some(code) = other.strip_prefix("exit ") {
                TrialStatus::Exit(code.parse().ok()?)
            } else {
                TrialStatus::Signal(other.strip_prefix("signal ")?.parse().ok()?)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N10, N6: a run takes its raw-file name when it starts; a second
    // run never gets the same one, and a name never written is given back.
    #[test]
    fn reserved_names_are_distinct_and_let_go_unwritten() {
        let tmp = tempfile::tempdir().expect("tmp");
        let first = Reserved::take(tmp.path(), "run-1").expect("first");
        let second = Reserved::take(tmp.path(), "run-1").expect("second");
        assert_eq!(first.path.to_string(), "raw/run-1.csv");
        assert_eq!(second.path.to_string(), "raw/run-1-2.csv");
        let written = first.write("index\n").expect("written");
        assert_eq!(std::fs::read_to_string(tmp.path().join("raw/run-1.csv")).expect("read"), "index\n");
        assert_eq!(written.sha256, sha256_hex(b"index\n"));
        drop(second);
        assert!(!tmp.path().join("raw/run-1-2.csv").exists(), "an unwritten reservation is removed");
    }
    use crate::harness::TrialStatus;

    // SPEC N6: what is written reads back the same.
    #[test]
    fn render_then_parse_round_trips() {
        let trials = vec![
            TrialRecord {
                index: 0,
                arm: 0,
                position: 1,
                warmup: true,
                ns: 10,
                status: TrialStatus::Ok,
                work: TrialWork::default(),
            },
            TrialRecord {
                index: 1,
                arm: 1,
                position: 2,
                warmup: false,
                ns: 12,
                status: TrialStatus::Exit(3),
                work: TrialWork::default(),
            },
            TrialRecord {
                index: 2,
                arm: 0,
                position: 1,
                warmup: false,
                ns: 99,
                status: TrialStatus::Signal(9),
                work: TrialWork::default(),
            },
            TrialRecord {
                index: 3,
                arm: 0,
                position: 1,
                warmup: false,
                ns: 7,
                status: TrialStatus::Timeout,
                work: TrialWork::default(),
            },
        ];
        let text = render(&["machine: x\nwith a newline".into()], &trials);
        assert_eq!(parse(&text), Ok(trials));
        assert!(parse("index,arm,position,warmup,ns,exit_status\n0,a,1,0,5,0\n").is_err());
        assert!(parse("nonsense\n").is_err());
    }

    // SPEC E16, E17, N6: a sweep's arms are lettered like spreadsheet
    // columns; a run's figures read back beside its wall times.
    #[test]
    fn sweep_arms_and_figures_round_trip() {
        for (arm, label) in [(0, "A"), (1, "B"), (25, "Z"), (26, "AA"), (255, "IV")] {
            assert_eq!((arm_label(arm), arm_index(label)), (label.to_owned(), Some(arm)));
        }
        assert_eq!(arm_index("a"), None);
        let trials: Vec<TrialRecord> = (0..3)
            .map(|i| TrialRecord {
                index: i,
                arm: i as usize,
                position: 1,
                warmup: false,
                ns: 10,
                status: TrialStatus::Ok,
                work: TrialWork::default(),
            })
            .collect();
        let figures = vec![vec![1.5, 2.25], vec![], vec![0.1]];
        let text = render_with(&[], &trials, Some(&figures));
        assert!(is_raw(&text) && text.contains("2,C,1,0,10,0,0.1\n"), "{text}");
        assert_eq!(parse_with_figures(&text), Ok((trials.clone(), Some(figures))));
        assert_eq!(parse_with_figures(&render(&[], &trials)), Ok((trials, None)));
        assert!(parse(&format!("{HEADER_FIGURES}\n0,A,1,0,5,0,nan\n")).is_err());
    }

    // SPEC E13, N6: each trial's CPU time and counts read back beside its
    // wall time, empty where not measured, with or without figures; a file
    // written before these columns still reads.
    #[test]
    fn trial_work_round_trips() {
        let work = |cpu_ns, cycles, instructions| TrialWork { cpu_ns, cycles, instructions, cpu: None };
        let trials = vec![
            TrialRecord {
                index: 0,
                arm: 0,
                position: 1,
                warmup: true,
                ns: 10,
                status: TrialStatus::Ok,
                work: work(Some(9), None, None),
            },
            TrialRecord {
                index: 1,
                arm: 0,
                position: 1,
                warmup: false,
                ns: 12,
                status: TrialStatus::Ok,
                work: work(Some(11), Some(30), Some(45)),
            },
        ];
        let text = render(&[], &trials);
        assert!(
            is_raw(&text) && text.contains(&format!("{HEADER_WORK}\n0,A,1,1,10,0,9,,\n1,A,1,0,12,0,11,30,45\n")),
            "{text}"
        );
        assert_eq!(parse(&text), Ok(trials.clone()));
        let figures = vec![vec![1.5], vec![2.5]];
        let text = render_with(&[], &trials, Some(&figures));
        assert!(text.contains(&format!("{HEADER_WORK},figures\n")) && text.contains("11,30,45,2.5\n"), "{text}");
        assert_eq!(parse_with_figures(&text), Ok((trials, Some(figures))));
        assert!(parse(&format!("{HEADER_WORK}\n0,A,1,0,5,0,x,,\n")).is_err());
        assert!(parse(&format!("{HEADER_WORK}\n0,A,1,0,5,0\n")).is_err());
        assert!(parse(&format!("{HEADER}\n0,A,1,0,5,0\n")).is_ok());
        assert!(!is_raw(&format!("{HEADER_WORK},extra\n")));
    }

    // SPEC N1, N6, E14: a row's trials read back from inside the notebook
    // only, its own arm in its own unit; an import's file, a missing one
    // and one reached through a link out of the folder are each named.
    #[test]
    fn a_row_s_trials_read_back_confined_to_the_folder() {
        use vernier_model::notebook::{Measurement, Tag, WarmupPolicy};
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join("nb");
        std::fs::create_dir_all(dir.join("raw")).expect("raw/");
        let trial = |index: u32, arm: usize, warmup: bool, ns: u64, status: TrialStatus| TrialRecord {
            index,
            arm,
            position: 1,
            warmup,
            ns,
            status,
            work: Default::default(),
        };
        let trials = vec![
            trial(0, 0, true, 9_000_000, TrialStatus::Ok),
            trial(1, 1, true, 8_000_000, TrialStatus::Ok),
            trial(2, 0, false, 2_000_000, TrialStatus::Ok),
            trial(3, 1, false, 500_000, TrialStatus::Ok),
            trial(4, 0, false, 3_000_000, TrialStatus::Timeout),
            trial(5, 1, false, 600_000, TrialStatus::Ok),
        ];
        std::fs::write(dir.join("raw/run-1.csv"), render(&[], &trials)).expect("write");
        let path = NotebookPath::new("raw/run-1.csv").expect("path");
        let run = Run {
            number: 2,
            recorded_at: chrono::Utc::now(),
            discarded: None,
            measurement: std::sync::Arc::new(Measurement {
                what: "b".into(),
                command: vec!["b".into()],
                warmup: WarmupPolicy::Count(1),
                warmup_trials: 1,
                summary: vernier_model::stats::Summary::of(&[0.5, 0.6]).expect("summary"),
                unit: "ms".into(),
                ns_per_unit: 1e6,
                conditions: Vec::new(),
                raw_file: Some(RawFile { path: path.clone(), sha256: String::new(), arm: "B".into(), imported: None }),
                tag: Tag::Measured,
                synthetic: false,
                extends: None,
                figure: None,
                work: None,
                boundary: None,
                recipe: None,
                tail: None,
                noise_floor: None,
            }),
            stated: None,
        };
        let read_raw = |path: &NotebookPath| RawTrials::parse(path, &RawTrials::read_bytes(&dir, path)?);
        let read = read_raw(&path).expect("reads");
        assert_eq!(read.arm(&run), ArmValues { warmup: vec![8.0], timed: vec![0.5, 0.6] });

        std::fs::write(dir.join("raw/import.csv"), "t_ms\n1\n").expect("write");
        let foreign = read_raw(&NotebookPath::new("raw/import.csv").expect("path"));
        assert!(matches!(foreign, Err(TrialsError::Foreign(_))), "{foreign:?}");
        let missing = read_raw(&NotebookPath::new("raw/gone.csv").expect("path"));
        assert!(matches!(&missing, Err(TrialsError::Read(e)) if e.is_not_found()), "{missing:?}");
        #[cfg(unix)]
        {
            std::fs::write(tmp.path().join("outside.csv"), render(&[], &trials)).expect("write");
            std::os::unix::fs::symlink(tmp.path().join("outside.csv"), dir.join("raw/link.csv")).expect("link");
            let out = read_raw(&NotebookPath::new("raw/link.csv").expect("path"));
            assert!(matches!(out, Err(TrialsError::Refused(_))), "{out:?}");
        }
    }

    // SPEC N6: the unit comments read back; a doubtful one is left out.
    #[test]
    fn units_read_back_and_doubt_leaves_nanoseconds() {
        let comments = [unit_comment("A", "s", 1.0 / (1.0 / 1e9)), unit_comment("B", "ns/access", 2.5)];
        // SPEC S12: the header a person reads carries no float artefact.
        assert_eq!(comments[0], "arm A unit: s (ns / 1000000000)");
        assert!(units(&render(&["arm A unit: s (ns / 999999999.9999999)".into()], &[]))[0].ns_per_unit == 1e9);
        let text = render(&comments, &[]);
        assert!(is_raw(&text));
        let read = units(&text);
        assert_eq!(read.len(), 2);
        assert_eq!((read[0].label.as_str(), read[0].unit.as_str(), read[0].ns_per_unit), ("A", "s", 1e9));
        assert_eq!((read[1].unit.as_str(), read[1].ns_per_unit), ("ns/access", 2.5));
        let twice = render(&[unit_comment("A", "s", 1e9), unit_comment("A", "ms", 1e6)], &[]);
        assert_eq!(units(&twice), []);
        assert_eq!(units(&render(&[unit_comment("A", "s", 0.0)], &[])), []);
        assert!(!is_raw("index,ns\n1,2\n"));
    }
}
