//! A row's trials read back from its raw file, whoever wrote it (SPEC
//! E14, E17): Vernier's harness, in its raw format, or another tool, its
//! file kept unchanged. The one function the documents, the window's trial
//! plot and anything else that draws a row's trials call, so none of them
//! depends on the importers.

use std::path::Path;

use crate::harness::raw::{ArmValues, RawTrials, TrialsError};
use crate::import::{self, Format, ReadBackError};
use crate::notebook::Run;

/// A row's trials as its raw file holds them.
#[derive(Debug, Clone, PartialEq)]
pub enum RowTrials {
    /// Vernier's raw format: every trial of the file, with its figures.
    Recorded(RawTrials),
    /// An import's file read back by its importer: the row's own values.
    Imported(ArmValues),
}

impl RowTrials {
    /// `run`'s timed trials, in its unit.
    pub fn timed(self, run: &Run) -> Vec<f64> {
        match self {
            RowTrials::Recorded(raw) => raw.arm(run).timed,
            RowTrials::Imported(values) => values.timed,
        }
    }
}

/// Why a row's trials cannot be drawn.
#[derive(Debug, thiserror::Error)]
pub enum RowTrialsError {
    /// The file is not there, not readable, or in Vernier's format and
    /// malformed.
    #[error(transparent)]
    Raw(#[from] TrialsError),
    /// An import's file no longer reads back as its row.
    #[error(transparent)]
    Imported(#[from] ReadBackError),
}

/// Reads `run`'s raw file from the notebook folder `dir`, bounded: a file
/// the row says an importer wrote is read back by that importer, whatever
/// its name (SPEC E14); a file in Vernier's raw format is parsed; an
/// import recorded before rows kept their importer is read by the
/// importer its contents match, never by its name.
pub fn read(dir: &Path, run: &Run) -> Result<RowTrials, RowTrialsError> {
    let file = run.measurement.raw_file.as_ref().ok_or(TrialsError::NoFile(run.number))?;
    let bytes = RawTrials::read_bytes(dir, &file.path)?;
    let format = match &file.imported {
        Some(format) => Format::of(format).ok_or_else(|| ReadBackError::Format(file.path.clone()))?,
        None => match RawTrials::parse(&file.path, &bytes) {
            // SPEC E14: an older import's file, told by its contents.
            Err(TrialsError::Foreign(_)) => Format::detect(&bytes),
            read => return Ok(RowTrials::Recorded(read?)),
        },
    };
    Ok(RowTrials::Imported(import::read_back(format, &bytes, run, file)?))
}
