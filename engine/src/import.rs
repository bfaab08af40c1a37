//! Importing measurements taken by other tools (SPEC C: `vernier import`).
//!
//! The file is someone else's: its size is bounded, every number is checked,
//! and a command string in it is only stored, never run.
//!
//! Each format is one [`Importer`] in its own file, listed once in
//! `IMPORTERS`: the window's detection, the read-back of a row's trials and
//! [`record`] (the one way both faces record an import) go through it.

pub mod csv;
pub(crate) mod from_file;
pub mod gbench;
pub mod hyperfine;
pub mod pyperf;

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::bounded::ReadError;
use crate::harness::raw::{self, RawError};
use crate::notebook::{
    Boundary, Condition, ConditionName, Conditions as _, ImportFormat, Measurement, NewPair, Notebook, NotebookPath,
    RawFile, Run, Tag, WarmupPolicy,
};
use crate::stats::Summary;

/// An import checked and summarised, not yet recorded: the window shows it
/// before the student records it, the command line records it at once.
/// Reading and checking the file is separate from recording so that the
/// record step, under the notebook's lock, only writes — a bad file has
/// recorded nothing — and so that what is recorded is exactly what was
/// shown, even if the file changes on disk in between.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// The file's name as the rows show it, inert.
    pub name: String,
    /// The file unchanged: it becomes the rows' raw file.
    pub text: String,
    /// The raw copy's name in `raw/`: `import-csv`, `import-gbench` …
    pub raw_stem: &'static str,
    /// The raw copy's extension: the file keeps its own format.
    pub raw_extension: &'static str,
    /// The importer that read the file, which the rows keep so their
    /// trials are read back as it wrote them; `None` for numbers typed or
    /// taken from a workbook, whose raw copy holds no trials.
    pub format: Option<Format>,
    /// How the measured program was built, as given (SPEC N11); `None`
    /// takes the Environment's Compiler + flags when recorded.
    pub build: Option<String>,
    /// What the instrument times, as the student states it (`--boundary
    /// "multiply only, steady_clock"`, SPEC S16); `None`: "as it states".
    pub boundary: Option<String>,
    /// The rows to record, in order.
    pub rows: Vec<PreparedRow>,
    /// Two arms of one file: their comparison, as `bench --vs` records it.
    pub pair: Option<NewPair>,
    /// What the import checked of the file's own results (checksums, the
    /// tool's own median); a failed one is also added as a note.
    pub checks: Vec<FileCheck>,
    /// Parts of the file recorded as no row (a hyperfine command whose
    /// trial failed): each becomes a note naming the raw copy that keeps
    /// their trials.
    pub left_out: Vec<LeftOut>,
}

/// A part of an imported file that becomes no row, as a `bench` run that
/// ended early becomes none (E10), only a note.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// Why, as the note starts: `result 2 ('false') of … was not recorded:
    /// trial 1 failed (exit 1)`.
    pub why: String,
    /// How many of its trials the raw copy keeps.
    pub trials: usize,
}

/// One row an import will record.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedRow {
    /// The row, without its raw file and build (set when recorded).
    pub measurement: Measurement,
    /// Which part of the raw file holds its trials: `A`/`B` for a CSV's
    /// arms, a benchmark's name for a tool's export.
    pub arm: String,
}

impl PreparedRow {
    /// A MEASURED row of another instrument's numbers: its raw file and
    /// build are set when it is recorded; it is never synthetic and extends
    /// no row.
    fn measured(
        arm: String,
        what: String,
        command: Option<&String>,
        (warmup, warmup_trials): (WarmupPolicy, u32),
        summary: Summary,
        (unit, ns_per_unit): (&str, f64),
        conditions: Vec<Condition>,
    ) -> Self {
        let measurement = Measurement {
            what,
            command: command.into_iter().cloned().collect(),
            warmup,
            warmup_trials,
            summary,
            unit: unit.to_owned(),
            ns_per_unit,
            conditions,
            raw_file: None,
            tag: Tag::Measured,
            synthetic: false,
            extends: None,
            figure: None,
            work: None,
            boundary: None,
            recipe: None,
            tail: None,
            noise_floor: None,
        };
        Self { measurement, arm }
    }
}

/// The `conditions` condition of an imported row: what its file does not
/// record (`what`), and where the student states it.
fn not_recorded(what: &str) -> Condition {
    Condition::new(
        ConditionName::NotRecorded,
        format!("{what}; state them with vernier set-run (in the window: State what is missing…)"),
    )
}

/// A check of the file's own results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCheck {
    /// The sentence the rows keep.
    pub text: String,
    /// True when the check found something wrong.
    pub failed: bool,
}

/// The rows a [`Prepared`] import added to a notebook.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedRows {
    /// The new MEASURED Runs rows, in the order prepared.
    pub runs: Vec<u32>,
    /// The comparison `C{n}` of two arms.
    pub pair: Option<u32>,
    /// The unchanged copy of the file in `raw/`.
    pub raw_file: RawFile,
    /// The notes saying what of the file was left out, as added.
    pub left_out: Vec<String>,
}

/// An import recorded by [`record`].
#[derive(Debug)]
pub struct ImportRecorded {
    /// The rows added.
    pub rows: ImportedRows,
    /// The notebook as saved: the file as it was, with the rows added.
    pub notebook: Notebook,
    /// The stamp of what was saved, for a face that follows the file.
    pub stamp: crate::notebook::store::Stamp,
}

/// Records a prepared import in the notebook in `dir`: the one way both
/// faces do it (SPEC E14, N10; issue 46). In one change under the folder's
/// lock, on the notebook as it is now, the file is written unchanged into
/// `raw/`, named for the run it becomes, and the rows, their pair and the
/// notes are added. Nothing is read or checked here: that was
/// [`Importer::prepare`], so a bad file has recorded nothing.
pub fn record(
    dir: &Path,
    prepared: &Prepared,
) -> Result<ImportRecorded, crate::notebook::store::ChangeError<RawError>> {
    let at = Utc::now();
    let changed = crate::notebook::store::change_stamped(dir, None, |nb| prepared.record(dir, nb, at))?;
    let crate::notebook::store::Changed { value: rows, notebook, stamp, .. } = changed;
    Ok(ImportRecorded { rows, notebook, stamp })
}

impl Prepared {
    /// What its comparison's rows will be, for advice that fits them
    /// (SPEC S17): imported, so only the driver can take more pairs.
    pub fn facts(&self) -> crate::stats::Facts {
        let summaries = || self.rows.iter().map(|r| &r.measurement.summary);
        crate::stats::Facts {
            pinned: false,
            trials: summaries().map(|s| s.n).min().unwrap_or(0),
            imported: true,
            noisy: summaries().any(crate::stats::Summary::is_noisy),
        }
    }

    /// Adds to every row what Vernier reads on this machine as the import
    /// is recorded, labelled "read at import": the numbers may have been
    /// measured elsewhere, so it never stands for the row's machine (A2
    /// asks for that to be stated), but when they were measured here it
    /// is the record of where.
    pub fn read_here(mut self, machine: &crate::platform::machine::Machine) -> Self {
        let value = format!(
            "{}, {} logical CPUs, {} (kernel {}); power source {}",
            machine.cpu_model, machine.logical_cpus, machine.os, machine.kernel, machine.power_source
        );
        for row in &mut self.rows {
            let conditions = &mut row.measurement.conditions;
            let after_source =
                conditions.iter().position(|c| c.name() == Some(ConditionName::Source)).map_or(0, |k| k + 1);
            conditions.insert(after_source, Condition::new(ConditionName::ReadAtImport, value.clone()));
        }
        self
    }

    /// States what the instrument times (SPEC S16), for every row.
    pub fn with_boundary(mut self, boundary: Option<String>) -> Self {
        self.boundary = boundary.map(|b| b.trim().to_owned()).filter(|b| !b.is_empty());
        self
    }

    /// SHA-256 of the file, which its raw copy will have.
    pub fn sha256(&self) -> String {
        crate::digest::sha256_hex(self.text.as_bytes())
    }

    /// Writes the raw copy and records the rows, their pair and a note for
    /// every failed check and left-out part, in the caller's change under
    /// the lock ([`record`], and a merge's): `write_raw`, then
    /// `add_rows`.
    pub fn record(&self, dir: &Path, notebook: &mut Notebook, at: DateTime<Utc>) -> Result<ImportedRows, RawError> {
        let raw_file = self.write_raw(dir, notebook.runs().len() + 1)?;
        Ok(self.add_rows(notebook, raw_file, at))
    }

    /// Writes the file unchanged into `raw/`, named for the run it will
    /// become (`next_run`), never over an existing one.
    fn write_raw(&self, dir: &Path, next_run: usize) -> Result<RawFile, RawError> {
        raw::write_once_as(dir, &format!("{}-{next_run}", self.raw_stem), self.raw_extension, &self.text)
    }

    /// Records the rows over their written raw copy, with their pair and a
    /// note for every failed check. The Environment's build is taken now,
    /// under the caller's lock, from the notebook as it is on disk (SPEC
    /// N9, N11). A left-out part's note names the raw copy.
    fn add_rows(&self, notebook: &mut Notebook, raw_file: RawFile, at: DateTime<Utc>) -> ImportedRows {
        let build = crate::harness::build_condition(notebook.environment(), self.build.as_deref());
        let mut runs = Vec::with_capacity(self.rows.len());
        for row in &self.rows {
            let mut measurement = row.measurement.clone();
            // The build sits with the method conditions, before what is not recorded.
            let at_end = measurement.conditions.iter().position(|c| c.name() == Some(ConditionName::NotRecorded));
            let place = at_end.unwrap_or(measurement.conditions.len());
            measurement.conditions.splice(place..place, build.iter().cloned());
            // SPEC E14: the row keeps which importer wrote its file.
            let imported = self.format.map(|f| ImportFormat::new(f.id()));
            measurement.raw_file = Some(RawFile { arm: row.arm.clone(), imported, ..raw_file.clone() });
            // SPEC S16: what the instrument times, as stated, else as it states.
            if measurement.boundary.is_none() {
                let instrument = measurement.conditions.value_of(ConditionName::Instrument).unwrap_or(&self.name);
                let stated = self.boundary.clone().unwrap_or_else(|| crate::notebook::as_states(instrument));
                measurement.boundary = Some(Boundary::Instrument { instrument: instrument.to_owned(), stated });
            }
            runs.push(notebook.record_run(measurement, at));
        }
        let mut pair = None;
        if let (Some(new), [a, b]) = (&self.pair, runs.as_slice()) {
            // Both rows were just recorded, so the pair's runs exist.
            if let Ok(number) = notebook.record_pair(new.clone(), [*a, *b], at) {
                let how = format!("imported from {}", self.name);
                if let Some(note) = notebook.pair(number).map(|p| p.note(notebook, &how)) {
                    let _ = notebook.add_vernier_note(&note, at);
                }
                pair = Some(number);
            }
        }
        let numbers: Vec<String> = runs.iter().map(u32::to_string).collect();
        for check in self.checks.iter().filter(|c| c.failed) {
            let note = format!("Imported {} (run {}): {}", self.name, numbers.join(", "), check.text);
            let _ = notebook.add_vernier_note(&note, at);
        }
        let mut left_out = Vec::with_capacity(self.left_out.len());
        for part in &self.left_out {
            let note = format!(
                "{}. Its {} trials are kept in {} (SHA-256 {}).",
                part.why,
                part.trials,
                raw_file.path,
                raw_file.sha256.get(..12).unwrap_or(&raw_file.sha256)
            );
            let _ = notebook.add_vernier_note(&note, at);
            left_out.push(note);
        }
        ImportedRows { runs, pair, raw_file, left_out }
    }
}

/// One tool's files: how they are told apart, checked, kept and read
/// back. Every face, and the read-back of every imported row, goes through
/// `IMPORTERS`, so a format is its file in `import/` plus its line there.
pub trait Importer: Sync {
    /// Its id, kept by every row it records ([`RawFile::imported`]): never
    /// changed once a notebook holds it.
    fn id(&self) -> &'static str;
    /// Its name as a person reads it: `a CSV of trials`.
    fn name(&self) -> &'static str;
    /// The raw copy's name in `raw/`, before the run's number (`import-csv`
    /// → `import-csv-3`), and its extension.
    fn raw_name(&self) -> (&'static str, &'static str);
    /// True when `bytes` look like this tool's file, from their first
    /// bytes only; [`Importer::prepare`] then checks the whole file.
    fn detect(&self, bytes: &[u8]) -> bool;
    /// True when the student names the file's columns (a CSV's) rather
    /// than the tool naming its own benchmarks.
    fn takes_columns(&self) -> bool {
        false
    }
    /// Checks the file and summarises the rows it would become, recording
    /// nothing. `spec` is what the student stated: a CSV's columns, and
    /// what every tool's file may lack (warm-up, command, build).
    fn prepare(&self, file: &Path, bytes: &[u8], spec: &csv::CsvSpec) -> Result<Prepared, ImportError>;
    /// `run`'s trials in its raw file's `text`, as this importer wrote it,
    /// in the row's unit.
    fn read_back(&self, text: &str, run: &Run, file: &RawFile) -> Result<raw::ArmValues, ReadBackError>;
}

/// Every importer. A file is read by the first whose `detect` says yes, so
/// the two that take what no other does come last: pyperf any other JSON
/// object (or gzip), a CSV anything else. A new format goes before them.
static IMPORTERS: &[&dyn Importer] = &[&gbench::Gbench, &hyperfine::Hyperfine, &pyperf::Pyperf, &csv::Csv];

/// An importer as a face holds it: which tool's file some bytes are.
#[derive(Clone, Copy)]
pub struct Format(&'static dyn Importer);

impl Format {
    /// Tells the format from the first bytes (SPEC E14): the first
    /// importer whose `detect` says yes, else a CSV. The reader then
    /// checks the whole file.
    pub fn detect(bytes: &[u8]) -> Self {
        IMPORTERS.iter().copied().find(|i| i.detect(bytes)).map_or_else(Self::default, Self)
    }

    /// The importer whose id a row keeps, if this build has it.
    pub fn of(format: &ImportFormat) -> Option<Self> {
        IMPORTERS.iter().copied().find(|i| i.id() == format.as_str()).map(Self)
    }

    /// The id rows keep.
    pub fn id(self) -> &'static str {
        self.0.id()
    }

    /// The format's name as a person reads it.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// True when the student names the file's columns (a CSV's).
    pub fn takes_columns(self) -> bool {
        self.0.takes_columns()
    }

    /// Checks the file as this format and summarises its rows (see
    /// [`Importer::prepare`]).
    pub fn prepare(self, file: &Path, bytes: &[u8], spec: &csv::CsvSpec) -> Result<Prepared, ImportError> {
        self.0.prepare(file, bytes, spec)
    }
}

impl Default for Format {
    /// What a file that says nothing is read as: a CSV of trials.
    fn default() -> Self {
        Self(&csv::Csv)
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

impl Eq for Format {}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// The bytes after a BOM and blanks start a JSON object.
fn json_object(bytes: &[u8]) -> bool {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace() && *b != 0xef && *b != 0xbb && *b != 0xbf);
    start.map(|k| bytes[k]) == Some(b'{')
}

/// The first 64 KiB hold `"key"`: both tools write their keys near the
/// start, so a bounded look is enough.
fn has_key(bytes: &[u8], key: &str) -> bool {
    let head = &bytes[..bytes.len().min(64 * 1024)];
    let key = format!("\"{key}\"");
    head.windows(key.len()).any(|w| w == key.as_bytes())
}

/// A gzip stream (pyperf writes one for `-o FILE.json.gz`).
fn gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// The fewest timed trials an imported row may have: a median of fewer
/// has no spread to weigh a difference against (S7), and one pair is no
/// paired ratio.
pub const MIN_TRIALS: usize = 3;

/// A row of fewer than [`MIN_TRIALS`] timed trials (the count it has).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0} timed trial(s): a median needs at least {MIN_TRIALS} to have a spread to weigh a difference against")]
pub struct TooFewTrials(pub usize);

/// Refuses a row of fewer than [`MIN_TRIALS`] timed trials, saying why.
pub fn check_trials(n: usize) -> Result<(), TooFewTrials> {
    if n < MIN_TRIALS {
        return Err(TooFewTrials(n));
    }
    Ok(())
}

/// A larger export is refused as its bytes arrive, before it is parsed.
pub const MAX_IMPORT_BYTES: u64 = 64 * 1024 * 1024;

/// Why importing a tool's export failed (hyperfine, Google Benchmark,
/// pyperf). Nothing has been recorded.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read, or was refused unread.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Not the JSON the tool writes.
    #[error("{}:{line}:{column}: not {tool}: {message}", path.display())]
    Format {
        /// The file.
        path: std::path::PathBuf,
        /// What it should have been: `a hyperfine JSON export` …
        tool: &'static str,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was wrong.
        message: String,
    },
    /// Well-formed, but a value cannot be a measurement.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: std::path::PathBuf,
        /// Which result and value.
        message: String,
    },
    /// The raw copy could not be written.
    #[error(transparent)]
    Raw(#[from] RawError),
    /// Not a CSV of trials Vernier can take.
    #[error(transparent)]
    Csv(#[from] csv::CsvError),
}

/// Why an imported row's trials cannot be read back from its file: the
/// trial plot and the charts say so instead of drawing them.
#[derive(Debug, thiserror::Error)]
pub enum ReadBackError {
    /// An imported CSV whose row does not say which column it took.
    #[error("run {0}'s source does not name its column")]
    NoColumn(u32),
    /// The CSV no longer reads as it did.
    #[error(transparent)]
    Csv(#[from] csv::CsvError),
    /// The tool's export no longer reads as it did: its message.
    #[error("{0}")]
    Export(String),
    /// The export no longer holds the row's benchmark (its name, inert).
    #[error("no benchmark '{0}' in the file")]
    NoBenchmark(String),
    /// The row names an importer this build does not have.
    #[error("{0} is in a format Vernier does not read back")]
    Format(NotebookPath),
    /// Fewer values than the row counted.
    #[error("{path} holds fewer values than run {run} counted")]
    Fewer {
        /// The raw file.
        path: NotebookPath,
        /// The row.
        run: u32,
    },
    /// A raw copy in Vernier's format (hyperfine's) does not read.
    #[error("{path}: {why}")]
    Malformed {
        /// The raw file.
        path: NotebookPath,
        /// What did not read, with its line.
        #[source]
        why: raw::RawLineError,
    },
    /// The timed values have no median.
    #[error(transparent)]
    Stats(#[from] crate::stats::StatsError),
    /// The timed values give another median than the row's.
    #[error("{path} no longer gives run {run}'s median: its trials are not drawn")]
    Median {
        /// The raw file.
        path: NotebookPath,
        /// The row.
        run: u32,
    },
}

/// An imported row's trials, read back from its raw file's `bytes` by the
/// importer that wrote it (`format`), so the window's trial plot and the
/// report's charts draw them; the caller is [`crate::row_trials`], so
/// nothing that draws trials depends on the importers.
pub fn read_back(format: Format, bytes: &[u8], run: &Run, file: &RawFile) -> Result<raw::ArmValues, ReadBackError> {
    let text = String::from_utf8_lossy(crate::bounded::without_bom(bytes));
    format.0.read_back(&text, run, file)
}

/// A file in its tool's own format read back: `values` are every value of
/// the row's benchmark or column, warm-up first. The first beyond the
/// row's timed count are its warm-up; the timed ones must give the row's
/// own median, or the file is not what the row was made of.
fn as_recorded(values: Vec<f64>, run: &Run, file: &RawFile) -> Result<raw::ArmValues, ReadBackError> {
    let m = &run.measurement;
    let n = m.summary.n;
    let warmups =
        values.len().checked_sub(n).ok_or_else(|| ReadBackError::Fewer { path: file.path.clone(), run: run.number })?;
    let (warmup, timed) = values.split_at(warmups);
    let median = Summary::of(timed)?.median;
    if (median - m.summary.median).abs() > 1e-9 * m.summary.median.abs().max(1.0) {
        return Err(ReadBackError::Median { path: file.path.clone(), run: run.number });
    }
    Ok(raw::ArmValues { warmup: warmup.to_vec(), timed: timed.to_vec() })
}

#[cfg(test)]
mod tests {
    use super::Format;

    // SPEC E14: a file chosen in the window is read as the tool wrote it.
    #[test]
    fn the_format_is_told_from_the_bytes() {
        let id = |bytes: &[u8]| Format::detect(bytes).id();
        assert_eq!(id(b"pair,first,naive_ms\n1,naive,5.7\n"), "csv");
        assert_eq!(id(b"5.7 5.8 5.6"), "csv");
        assert_eq!(id(b"\n {\"context\": {}, \"benchmarks\": []}"), "gbench");
        assert_eq!(id(b"{\"version\": \"1.0\", \"benchmarks\": []}"), "pyperf");
        assert_eq!(id(&[0x1f, 0x8b, 8, 0]), "pyperf");
        assert_eq!(id(b"{\"results\": [{\"command\": \"true\", \"times\": [1.0]}]}"), "hyperfine");
        assert_eq!(id(include_bytes!("../../tests/fixtures/gbench/matmul-reps9.json")), "gbench");
        assert_eq!(id(include_bytes!("../../tests/fixtures/pyperf/sums.json")), "pyperf");
        assert_eq!(id(include_bytes!("../../tests/fixtures/hyperfine-true.json")), "hyperfine");
        assert_eq!(Format::default().id(), "csv");
    }

    // SPEC E14: every importer's id is its own, since rows keep it.
    #[test]
    fn every_importer_has_its_own_id_and_raw_name() {
        let ids: std::collections::BTreeSet<_> = super::IMPORTERS.iter().map(|i| i.id()).collect();
        let stems: std::collections::BTreeSet<_> = super::IMPORTERS.iter().map(|i| i.raw_name().0).collect();
        assert_eq!((ids.len(), stems.len()), (super::IMPORTERS.len(), super::IMPORTERS.len()));
    }
}
