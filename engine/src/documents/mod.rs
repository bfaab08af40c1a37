//! The six submission documents (SPEC D): filled from the notebook, written
//! as real files. Exporters are pure functions from the notebook to bytes;
//! writing them is the caller's job.

pub mod blocks;
pub mod chart;
pub mod docx;
pub mod edits;
pub mod export_record;
pub mod foreign;
pub mod measurements;
mod packed;
pub mod placement_decision;
mod predictions;
mod results;
pub mod sheet;
pub mod soc;

use std::collections::BTreeMap;
use std::path::Path;

use blocks::{Block, TextRun, parse_template};

use crate::notebook::{
    ConditionName, Conditions, Document, EnvField, Notebook, RowContext, RowRef, SoakNumbers, Tag, WHOLE_DOCUMENT,
    group_rows, noise_floors, row_list,
};
use crate::soak::file::{self as soak_file, SoakData};

/// Exported documents larger than this are not read back.
pub const MAX_DOCUMENT_BYTES: u64 = 64 * 1024 * 1024;

/// Marks what only the student can write; the audit looks for it.
pub const PROMPT_MARK: &str = "✎ WRITE:";

/// Opens the one line that stands for a part the student marked not part
/// of this submission (A16), followed by their reason.
pub const NOT_PART_MARK: &str = "Not part of this submission:";

/// How the line above the workbook's Runs table begins (D8, layout 4): the
/// workbook writes it and the reader of anyone's workbook passes over it.
pub const SHARED_LINE: &str = "Conditions every run shares (each row's Conditions gives only what differs): ";

/// The citations table's one row when the student stated that the report
/// cites nothing.
pub const NO_CITATIONS: &str = "No figure in this report is cited from a source (stated by the author).";

const REPORT: &str = include_str!("../../../templates/report.md");
const SOC_REVIEW: &str = include_str!("../../../templates/soc-architecture-review.md");
const PLACEMENT: &str = include_str!("../../../templates/placement-decision.md");
const THREAT_MODEL: &str = include_str!("../../../templates/threat-model-report.md");
const AI_USAGE: &str = include_str!("../../../templates/ai-usage.md");

/// An export could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The Word writer failed.
    #[error("writing a .docx failed: {0}")]
    Docx(#[from] zip::result::ZipError),
    /// The workbook writer failed.
    #[error("writing measurements.xlsx failed: {0}")]
    Xlsx(#[from] rust_xlsxwriter::XlsxError),
    /// The notebook could not be serialised into the workbook.
    #[error("embedding the notebook failed: {0}")]
    Embed(#[from] rmp_serde::encode::Error),
    /// The export folder could not be made.
    #[error(transparent)]
    Folder(#[from] crate::notebook::FolderError),
    /// A document could not be saved.
    #[error(transparent)]
    Save(#[from] crate::notebook::SaveError),
    /// SPEC A17: documents changed since Vernier wrote them would be lost;
    /// nothing was written.
    #[error(
        "nothing was exported: {} would be overwritten and its changes lost. Take them into Vernier first \
         (vernier merge for measurements.xlsx; vernier write or the Documents section for a document) or move the \
         file away; to replace it anyway, export with --force",
        .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    Edited(Vec<export_record::Edited>),
    /// `--out` named the notebook's own folder or its raw files.
    #[error("{} is the notebook's own folder or its raw files; export into exports/ or a folder of its own", .0.display())]
    IntoNotebook(std::path::PathBuf),
    /// The documents were written but their record was not, so the next
    /// export cannot vouch for them and will ask before replacing them.
    #[error(
        "the six documents were written, but the export record could not be saved ({0}); until it can be, the next \
         export will refuse to replace them without --force"
    )]
    RecordNotSaved(crate::notebook::SaveError),
}

/// What an export does with a document changed since Vernier wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overwrite {
    /// Refuse the whole export (A17), naming the documents.
    Never,
    /// Replace them: the user was told and said so (`--force`, or the
    /// window's question answered).
    Edited,
}

/// A document's Markdown template: its text, the prompts only the student
/// can answer and the values Vernier fills from the notebook. None for the
/// workbook, which is laid out by [`measurements`].
pub fn template(document: Document) -> Option<&'static str> {
    match document {
        Document::Report => Some(REPORT),
        Document::Measurements => None,
        Document::SocReview => Some(SOC_REVIEW),
        Document::PlacementDecision => Some(PLACEMENT),
        Document::ThreatModel => Some(THREAT_MODEL),
        Document::AiUsage => Some(AI_USAGE),
    }
}

/// The prompts only the student can answer in a document, in the order
/// they appear (the keys of [`crate::notebook::Writing::answers`]).
pub fn prompts(document: Document) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut rest = template(document).unwrap_or("");
    while let Some(start) = rest.find("{{") {
        let Some(end) = rest[start..].find("}}") else { break };
        if let Some(prompt) = rest[start + 2..start + end].strip_prefix("write:") {
            out.push(prompt.trim());
        }
        rest = &rest[start + end + 2..];
    }
    out
}

/// The prompts written under the heading named `section` in `document`'s
/// template: the place an audit finding names (`2. Method`, `Performance`,
/// as the exported document's heading reads). The top heading is the
/// project's `title`. Empty where the section is all Vernier's (Method,
/// Results): nothing there is the student's to write.
pub fn prompts_under(document: Document, section: &str, title: &str) -> Vec<&'static str> {
    let mut heading = String::new();
    let mut out = Vec::new();
    for line in template(document).unwrap_or("").lines() {
        if let Some(name) = line.strip_prefix('#') {
            heading = name.trim_start_matches('#').trim().replace("{{title}}", title);
        }
        if heading.trim() != section.trim() {
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find("{{write:") {
            let Some(end) = rest[start..].find("}}") else { break };
            out.push(rest[start + "{{write:".len()..start + end].trim());
            rest = &rest[start + end + 2..];
        }
    }
    out
}

/// What the documents draw from the notebook's folder rather than the log
/// itself: the samples of the soak the report charts, and the trials of
/// each comparison it charts.
#[derive(Debug, Clone, Default)]
pub struct Attachments {
    /// The first kept soak's samples, or why they could not be read.
    pub soak: Option<Result<(u32, SoakData), String>>,
    /// By comparison number: its two arms' timed trials, each in its row's
    /// unit, or why they could not be read.
    pub comparisons: BTreeMap<u32, Result<[Vec<f64>; 2], String>>,
}

impl Attachments {
    /// Reads what the documents need from the notebook folder `dir`. Paths
    /// come from the notebook and are confined to it (N7); a file that
    /// cannot be read becomes a sentence in the document, not an error.
    pub fn load(dir: &Path, nb: &Notebook) -> Self {
        let soak = nb.soaks().iter().find(|s| s.discarded.is_none()).map(|s| {
            let raw = s.raw_file.as_ref().ok_or_else(|| format!("soak {} names no raw file", s.label()))?;
            let path = raw.path.resolve(dir).map_err(|e| e.to_string())?;
            soak_file::read(&path).map(|data| (s.number, data)).map_err(|e| e.to_string())
        });
        Self { soak, comparisons: comparison_trials(dir, nb) }
    }
}

/// A document filled from the notebook, as blocks. A document the student
/// left out whole is its title and one line saying why (A16).
pub fn fill(nb: &Notebook, document: Document, attachments: &Attachments) -> Vec<blocks::Block> {
    fill_with(nb, document, attachments, &results::RunsParts::of(nb))
}

/// [`fill`], the runs' conditions taken from `parts`, of `nb` (an
/// export's threads share them).
fn fill_with(
    nb: &Notebook,
    document: Document,
    attachments: &Attachments,
    parts: &results::RunsParts<'_>,
) -> Vec<Block> {
    let stem = document.stem();
    if let Some(reason) = nb.writing().not_part(stem, WHOLE_DOCUMENT) {
        let plain = |text: String| vec![TextRun { text, bold: false }];
        return vec![
            Block::Heading(1, plain(format!("{} — {}", document_name(document), nb.title))),
            Block::Paragraph(plain(format!("{NOT_PART_MARK} {}", crate::display::inert_line(reason.to_owned())))),
        ];
    }
    let results = results::Results::of(parts);
    let value = |name: &str| value(nb, attachments, &results, stem, name);
    let insert = |name: &str| insert(nb, attachments, &results, name);
    parse_template(template(document).unwrap_or(""), &value, &insert)
}

/// What Vernier itself writes in a document (SPEC A20): known from how the
/// document is made — the template's words, every value Vernier fills from
/// the notebook (the Method, the conditions, the thermals) and every table
/// and sentence it inserts — never by reading the text back. What a person
/// wrote (an answer to a prompt, a citation they typed) is not in it. The
/// audit reads a line with this text taken out: A7, A8, A1 and A9 read only
/// what a person wrote.
#[derive(Debug, Clone, Default)]
pub struct VernierText {
    /// Paragraph text Vernier wrote, each a piece between what a person
    /// wrote, longest first.
    passages: Vec<String>,
    /// Table cells Vernier wrote, matched whole.
    cells: std::collections::HashSet<String>,
}

impl VernierText {
    /// Vernier's text in `document` as an export would write it now.
    pub fn of(nb: &Notebook, document: Document, attachments: &Attachments) -> Self {
        /// Stands where a person's words go; never in a document.
        const PERSON: char = '\u{1f}';
        let stem = document.stem();
        let mut out = Self::default();
        let Some(markdown) = template(document) else { return out };
        if nb.writing().not_part(stem, WHOLE_DOCUMENT).is_some() {
            return out;
        }
        let parts = results::RunsParts::of(nb);
        let results = results::Results::of(&parts);
        let fill = |name: &str| {
            if name.starts_with("write:") { PERSON.to_string() } else { value(nb, attachments, &results, stem, name) }
        };
        // The citations are typed by a person, cell by cell.
        let insert = |name: &str| {
            if name == "table:citations" { Some(Vec::new()) } else { insert(nb, attachments, &results, name) }
        };
        for block in parse_template(markdown, &fill, &insert) {
            match block {
                Block::Heading(_, runs) | Block::Paragraph(runs) | Block::Bullet(runs) => {
                    let text: String = runs.iter().map(|r| r.text.as_str()).collect();
                    out.passages.extend(text.split(PERSON).map(str::trim).filter(|p| !p.is_empty()).map(str::to_owned));
                }
                Block::Table(rows) => out.cells.extend(rows.into_iter().flatten().filter(|c| !c.trim().is_empty())),
                Block::Picture(_) => {}
            }
        }
        out.passages.sort_by_key(|p| std::cmp::Reverse(p.len()));
        out.passages.dedup();
        out
    }

    /// True when Vernier wrote this table cell as it stands.
    pub fn wrote_cell(&self, cell: &str) -> bool {
        self.cells.contains(cell.trim())
    }

    /// `text` with Vernier's passages taken out: what a person wrote in it.
    pub fn persons_part(&self, text: &str) -> String {
        self.passages.iter().fold(text.to_owned(), |rest, passage| rest.replace(passage.as_str(), " "))
    }
}

/// The six documents, in [`Document::ALL`] order, as `(file name, bytes)`.
pub fn export(nb: &Notebook, attachments: &Attachments) -> Result<Vec<(&'static str, Vec<u8>)>, ExportError> {
    export_with_compact(nb, attachments).map(|(_, files)| files)
}

/// Documents as `(file name, bytes)`.
type Files = Vec<(&'static str, Vec<u8>)>;

/// [`export`], with the notebook's compact form, which the workbook
/// carries and the export record hashes: one serialisation of the notebook
/// serves both. Three threads share a semester's work (issue 50): this one
/// fills the five other documents, a second writes the workbook's sheets,
/// and a third makes and packs the notebook's copy, which the workbook
/// takes last. Made after the documents, the copy kept the workbook
/// waiting with its whole zipping still to do.
fn export_with_compact(nb: &Notebook, attachments: &Attachments) -> Result<(Vec<u8>, Files), ExportError> {
    let parts = &results::RunsParts::of(nb);
    std::thread::scope(|scope| {
        let layout = measurements::Layout::default;
        // Bounded: one packed copy, sent once. Dropped unsent when this
        // side fails, which ends the other side's wait.
        let (send, receive) = std::sync::mpsc::sync_channel::<String>(1);
        let workbook = std::thread::Builder::new().name("vernier-export".into()).spawn_scoped(scope, move || {
            measurements::write_embedding(nb, &layout(), parts, || receive.recv().map_err(|_| not_carried()))
        });
        let copy = || -> Result<(Vec<u8>, String), ExportError> {
            let compact = crate::notebook::store::to_compact(nb)?;
            let carried = packed::pack(&compact).map_err(rust_xlsxwriter::XlsxError::IoError)?;
            Ok((compact, carried))
        };
        // The copy comes back unsent when the workbook's thread is not
        // there to take it.
        let sender = send.clone();
        let copying = std::thread::Builder::new().name("vernier-copy".into()).spawn_scoped(scope, move || {
            let (compact, carried) = copy()?;
            Ok::<_, ExportError>((compact, sender.send(carried).err().map(|unsent| unsent.0)))
        });
        let mut files = Vec::new();
        for document in Document::ALL {
            let bytes = match document {
                // Its place, filled when its thread is done.
                Document::Measurements => Vec::new(),
                Document::AiUsage => blocks::to_text(&fill_with(nb, document, attachments, parts)).into_bytes(),
                Document::Report | Document::SocReview | Document::PlacementDecision | Document::ThreatModel => {
                    docx::write(&nb.title, &fill_with(nb, document, attachments, parts))?
                }
            };
            files.push((document.stem(), bytes));
        }
        // No thread to be had for either: its work is done here, after.
        let (compact, unsent) = match copying {
            Ok(thread) => crate::shared_work::joined(thread)?,
            Err(_) => copy().map(|(compact, carried)| (compact, Some(carried)))?,
        };
        let book = match workbook {
            Ok(thread) => {
                if let Some(carried) = unsent {
                    // A send fails only when the thread is gone; its join says why.
                    let _ = send.send(carried);
                }
                crate::shared_work::joined(thread)?
            }
            Err(_) => measurements::write_embedding(nb, &layout(), parts, || unsent.ok_or_else(not_carried))?,
        };
        if let Some((_, bytes)) = files.iter_mut().find(|(stem, _)| *stem == Document::Measurements.stem()) {
            *bytes = book;
        }
        Ok((compact, files))
    })
}

/// What the workbook's thread says when the notebook's copy never came:
/// only when the other side failed first, whose error is the one reported.
fn not_carried() -> ExportError {
    ExportError::Xlsx(rust_xlsxwriter::XlsxError::IoError(std::io::Error::other("the notebook's copy was not made")))
}

/// Exports the notebook in folder `dir` into `out` (the notebook's
/// `exports/` when `None`), each file saved atomically; returns the paths.
/// The notebook's own `exports/` must be a real folder inside it (N10); a
/// folder given with `out` is the user's explicit choice. A document changed
/// since the last export wrote it is replaced only with
/// [`Overwrite::Edited`] (A17); otherwise nothing is written. The folder's
/// [`export_record`] is rewritten after the documents.
pub fn export_to(
    dir: &Path,
    nb: &Notebook,
    out: Option<&Path>,
    overwrite: Overwrite,
) -> Result<Vec<std::path::PathBuf>, ExportError> {
    export_read(dir, nb, None, out, overwrite)
}

/// [`export_to`] for a notebook just read with
/// [`load_digested`](crate::notebook::store::load_digested): `read` is
/// that digest, kept in the export record so an audit that reads the same
/// bytes knows the documents current without serialising the notebook.
pub fn export_read(
    dir: &Path,
    nb: &Notebook,
    read: Option<&str>,
    out: Option<&Path>,
    overwrite: Overwrite,
) -> Result<Vec<std::path::PathBuf>, ExportError> {
    let out = match out {
        Some(out) => out.to_path_buf(),
        None => {
            let exports = dir.join(crate::notebook::store::EXPORTS_DIR);
            crate::notebook::store::refuse_unless_real_folder(&exports)
                .map_err(|source| crate::notebook::FolderError { path: exports.clone(), source })?;
            exports
        }
    };
    crate::notebook::create_folder(&out)?;
    // The notebook's own folder and its raw files are never an export's.
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (folder, notebook) = (real(&out), real(dir));
    if folder == notebook || folder.starts_with(notebook.join(crate::notebook::store::RAW_DIR)) {
        return Err(ExportError::IntoNotebook(out));
    }
    // One export at a time per notebook, so two never interleave their
    // documents and record.
    crate::notebook::store::exporting(dir, || {
        let edited = export_record::edited(dir, &out, &Document::ALL.map(Document::stem));
        if !edited.is_empty() && overwrite == Overwrite::Never {
            return Err(ExportError::Edited(edited));
        }
        let (compact, files) = export_with_compact(nb, &Attachments::load(dir, nb))?;
        let mut written = Vec::new();
        for (name, bytes) in &files {
            let file = crate::notebook::store::OutputFile::new(&out, name)?;
            file.write(bytes)?;
            written.push(file.path().to_path_buf());
        }
        export_record::ExportRecord::of(&compact, read, &files)
            .write(dir, &out)
            .map_err(ExportError::RecordNotSaved)?;
        Ok(written)
    })
}

/// What a document is called on its title line ("Threat Model" for
/// threat-model-report.docx): its template's first heading up to the dash.
pub fn document_name(document: Document) -> &'static str {
    let heading = template(document).and_then(|t| t.lines().next()).unwrap_or(document.stem()).trim_start_matches("# ");
    heading.split_once(" — ").map_or(heading, |(name, _)| name)
}

/// Where one prompt of a document stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptState {
    /// The student wrote it.
    Written,
    /// Marked not part of this submission, with why.
    NotPart(String),
    /// Still to write.
    ToWrite,
}

/// Where the student's writing of one document stands: what `vernier
/// write` lists and the window counts, from this one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WritingState {
    /// The whole document is marked not part of this submission, with why.
    NotPart(String),
    /// Its prompts in order, each with where it stands (none for the
    /// workbook, which is filled from the log).
    Prompts(Vec<(&'static str, PromptState)>),
}

impl WritingState {
    /// How many prompts are still to write (none in a document not part).
    pub fn to_write(&self) -> usize {
        match self {
            WritingState::NotPart(_) => 0,
            WritingState::Prompts(prompts) => prompts.iter().filter(|(_, s)| *s == PromptState::ToWrite).count(),
        }
    }
}

/// Where `document`'s writing stands in `nb`.
pub fn writing(nb: &Notebook, document: Document) -> WritingState {
    let (w, stem) = (nb.writing(), document.stem());
    if let Some(reason) = w.not_part(stem, crate::notebook::WHOLE_DOCUMENT) {
        return WritingState::NotPart(reason.to_owned());
    }
    WritingState::Prompts(
        prompts(document)
            .into_iter()
            .map(|prompt| {
                let state = match (w.answer(stem, prompt), w.not_part(stem, prompt)) {
                    (Some(_), _) => PromptState::Written,
                    (None, Some(reason)) => PromptState::NotPart(reason.to_owned()),
                    (None, None) => PromptState::ToWrite,
                };
                (prompt, state)
            })
            .collect(),
    )
}

/// For each document, in [`Document::ALL`] order, where its writing
/// stands (see [`writing`]).
pub fn unwritten(nb: &Notebook) -> Vec<(Document, WritingState)> {
    Document::ALL.into_iter().map(|document| (document, writing(nb, document))).collect()
}

/// The blocks for `[[kind:name]]`: a table, a chart, or for the sweeps a
/// sentence, a chart and a table each.
fn insert(nb: &Notebook, attachments: &Attachments, results: &results::Results, name: &str) -> Option<Vec<Block>> {
    let sentence = |text: String| Some(vec![Block::Paragraph(vec![TextRun { text, bold: false }])]);
    if name == "table:results" {
        return Some(results.table());
    }
    if name == "table:comparisons" && nb.pairs().is_empty() {
        return sentence("No interleaved comparison is recorded in this notebook.".to_owned());
    }
    if name == "table:comparisons" {
        return Some(comparisons_table(nb));
    }
    if let Some(table_name) = name.strip_prefix("table:") {
        return table(nb, table_name).map(|t| vec![Block::Table(t)]);
    }
    if name == "chart:sweeps" {
        return Some(results::sweeps(nb));
    }
    if name == "chart:comparisons" {
        return Some(comparisons(nb, attachments));
    }
    if name == "chart:results" {
        // The runs the results table shows (A18), a picture per unit;
        // nothing to draw leaves an empty paragraph.
        let drawn = chart::results(nb, |r| results::diagnostic(r).is_none());
        let mut blocks: Vec<Block> = drawn
            .into_iter()
            .map(|picture| match picture {
                Ok(picture) => Block::Picture(picture),
                Err(e) => Block::Paragraph(vec![TextRun { text: format!("({e})"), bold: false }]),
            })
            .collect();
        if blocks.is_empty() {
            blocks.push(Block::Paragraph(Vec::new()));
        }
        return Some(blocks);
    }
    // Nothing to draw leaves an empty paragraph, never the placeholder.
    let drawn = match name {
        "chart:soak" => match &attachments.soak {
            Some(Ok((number, data))) => nb.soaks().iter().find(|s| s.number == *number).map(|s| chart::soak(s, data)),
            Some(Err(why)) => return sentence(format!("(no soak chart: {why})")),
            None => None,
        },
        _ => return None,
    };
    match drawn {
        Some(Ok(picture)) => Some(vec![Block::Picture(picture)]),
        Some(Err(e)) => sentence(format!("({e})")),
        None => Some(vec![Block::Paragraph(Vec::new())]),
    }
}

/// A comparison's first arm whose build is a diagnostic, with why (A18).
fn diagnostic_arm(nb: &Notebook, pair: &crate::notebook::Pair) -> Option<(u32, &'static str)> {
    pair.runs.iter().find_map(|&n| Some((n, results::diagnostic(nb.run(n)?)?)))
}

/// The comparisons table without the comparisons that have a diagnostic
/// arm, then a line naming those (A18: -O0 is never a result, so never one
/// side of a claim).
fn comparisons_table(nb: &Notebook) -> Vec<Block> {
    let mut blocks = Vec::new();
    if let Some(rows) = table(nb, "comparisons").filter(|rows| rows.len() > 1) {
        blocks.push(Block::Table(rows));
    }
    // What each comparison's evidence means, and what would decide it, once.
    for pair in nb.pairs().iter().filter(|p| diagnostic_arm(nb, p).is_none()) {
        if let Some(meaning) = pair.evidence(nb).meaning(None) {
            let text = crate::display::inert_line(format!("{}: {meaning}", pair.label()));
            blocks.push(Block::Paragraph(vec![TextRun { text, bold: false }]));
        }
    }
    for pair in nb.pairs() {
        if let Some((run, why)) = diagnostic_arm(nb, pair) {
            let text = format!(
                "Left out of these comparisons: {} — its run {run} is {why}; -O0 is a diagnostic, never a result (C.5).",
                pair.label()
            );
            blocks.push(Block::Paragraph(vec![TextRun { text, bold: false }]));
        }
    }
    blocks
}

/// SPEC S11, D5: every comparison whose two arms are kept, as a sentence
/// saying what its chart shows and the chart; one with a discarded arm as
/// a sentence saying why it is not charted. No comparison: nothing (the
/// comparisons table already says so).
fn comparisons(nb: &Notebook, attachments: &Attachments) -> Vec<Block> {
    let paragraph = |text: String| Block::Paragraph(vec![TextRun { text, bold: false }]);
    let mut blocks = Vec::new();
    for pair in nb.pairs() {
        let arms = pair.runs.map(|n| nb.run(n));
        let [Some(a), Some(b)] = arms else {
            blocks.push(paragraph(format!(
                "{} is not charted: one of runs {} and {} is not in the log.",
                pair.label(),
                pair.runs[0],
                pair.runs[1]
            )));
            continue;
        };
        if let Some(r) = [a, b].into_iter().find(|r| r.discarded.is_some()) {
            blocks.push(paragraph(format!("{} is not charted: its run {} is discarded.", pair.label(), r.number)));
            continue;
        }
        if let Some((run, why)) = diagnostic_arm(nb, pair) {
            blocks.push(paragraph(format!(
                "{} is not charted: its run {run} is {why}, a diagnostic, never a result (C.5).",
                pair.label()
            )));
            continue;
        }
        let trials = match attachments.comparisons.get(&pair.number) {
            Some(Ok(trials)) => Ok(trials),
            Some(Err(why)) => Err(why.as_str()),
            None => Err("the raw file was not read for this document"),
        };
        // The chart, then what it shows: a caption under its figure stays
        // with it when the figure moves to the next page.
        blocks.push(match chart::comparison(pair, [a, b], trials) {
            Ok(picture) => Block::Picture(picture),
            Err(e) => paragraph(format!("({e})")),
        });
        let shown = match trials {
            Ok(_) => "every timed trial as a dot, each arm's median as a bar and its IQR as a box".to_owned(),
            // A raw file that cannot be read is said here, not an error.
            Err(why) => format!(
                "each arm's median as a bar and its IQR as a box, the trials not drawn ({})",
                why.replace(';', ",")
            ),
        };
        // One clause, its tags at its end, so A7 reads them as covering it.
        let [ta, tb] = [a, b].map(|r| r.measurement.tag);
        let tags = if ta == tb { ta.to_string() } else { format!("{ta} and {tb}") };
        blocks.push(paragraph(crate::display::inert_line(format!(
            "{} — {}: {} (run {}) against {} (run {}), {shown}, in {} (trials {tags}, comparison {}).",
            pair.label(),
            pair.what,
            pair.labels[0],
            a.number,
            pair.labels[1],
            b.number,
            pair.verdict.display_unit(),
            Tag::Derived,
        ))));
    }
    blocks
}

/// The timed trials of every comparison whose arms are kept, read from the
/// notebook folder `dir` (see [`Attachments::load`]); each raw file is read
/// once however many arms share it.
fn comparison_trials(dir: &Path, nb: &Notebook) -> BTreeMap<u32, Result<[Vec<f64>; 2], String>> {
    use crate::harness::raw::RawTrials;
    use crate::row_trials::{self, RowTrials};
    // Vernier's own files, by path: a comparison's arms share one.
    let mut files: BTreeMap<String, RawTrials> = BTreeMap::new();
    let mut arm = |run: &crate::notebook::Run| -> Result<Vec<f64>, String> {
        let path = run.measurement.raw_file.as_ref().map(|raw| raw.path.to_string());
        if let Some(trials) = path.as_ref().and_then(|p| files.get(p)) {
            return Ok(trials.arm(run).timed);
        }
        match row_trials::read(dir, run).map_err(|e| e.to_string())? {
            RowTrials::Recorded(trials) => {
                let timed = trials.arm(run).timed;
                files.extend(path.map(|p| (p, trials)));
                Ok(timed)
            }
            // An import's file in its instrument's own format, read back.
            imported => Ok(imported.timed(run)),
        }
    };
    let mut out = BTreeMap::new();
    for pair in nb.pairs() {
        let [Some(a), Some(b)] = pair.runs.map(|n| nb.run(n).filter(|r| r.discarded.is_none())) else { continue };
        let trials = arm(a).and_then(|a| Ok([a, arm(b)?]));
        out.insert(pair.number, trials);
    }
    out
}

/// The value of `{{name}}` in document `stem`: from the notebook, the
/// student's answer, or a marked prompt.
/// What a document says where an Environment field it fills is empty: the
/// gap is the field's, so the place to fill it is the Environment.
fn empty_in_environment(field: EnvField) -> String {
    format!("{} is empty in the Environment", field.label())
}

/// The Environment field a document's text says is empty, if it says so:
/// a finding quoting that text is fixed in the Environment, not in the
/// document (issue 49 item 6).
pub fn empty_field_in(text: &str) -> Option<EnvField> {
    EnvField::ALL.into_iter().find(|&f| text.contains(&empty_in_environment(f)))
}

fn value(nb: &Notebook, attachments: &Attachments, results: &results::Results, stem: &str, name: &str) -> String {
    if let Some(prompt) = name.strip_prefix("write:") {
        let prompt = prompt.trim();
        return match (nb.writing().answer(stem, prompt), nb.writing().not_part(stem, prompt)) {
            (Some(text), _) => text.to_owned(),
            (None, Some(reason)) => format!("{NOT_PART_MARK} {reason}"),
            (None, None) => format!("{PROMPT_MARK} {prompt}"),
        };
    }
    let env = |f: EnvField| {
        let v = nb.environment().get(f);
        if v.is_empty() {
            format!("{PROMPT_MARK} {} (vernier set DIR \"{}\" …).", empty_in_environment(f), f.label())
        } else {
            v
        }
    };
    match name {
        "title" => nb.title.clone(),
        // The template goes on with "; what it limited": a prompt's full stop
        // would read ".;".
        "workbench" => env(EnvField::Workbench).trim_end_matches('.').to_owned(),
        // What the rows were measured under (N9, N11), not today's fields.
        "machine" => across_rows(nb, |c| c.machine()).unwrap_or_else(|| env(EnvField::MachineOs)),
        "build" => across_rows(nb, |c| c.build()).unwrap_or_else(|| env(EnvField::CompilerFlags)),
        // D8: what every results row shares, said once; before there are
        // two rows, the Environment's fields as the rows state them.
        "conditions" => results.shared_conditions().unwrap_or_else(|| environment_conditions(nb)),
        "method" => method(nb),
        "thermals" => thermals(nb, attachments),
        "placement_source" => {
            if nb.writing().deadlines.is_empty() {
                format!("{PROMPT_MARK} set a deadline per workload (vernier placement --notebook) to fill the table.")
            } else {
                format!(
                    "Figures from {}: SYNTHETIC teaching data, every latency and energy MODELED.",
                    placement_decision::SOURCE
                )
            }
        }
        other => format!("{PROMPT_MARK} {other}"),
    }
}

/// The header's Conditions before the report has two rows to compare: the
/// Environment's fields as the rows state them (N9), else as it stands.
fn environment_conditions(nb: &Notebook) -> String {
    [EnvField::PowerSource, EnvField::Ambient, EnvField::PhysicalSetup, EnvField::OtherLoad, EnvField::PreRunIdle]
        .iter()
        .map(|&f| {
            let from_rows = match f {
                EnvField::PowerSource => across_rows(nb, |c| c.power_source()),
                _ => across_rows(nb, |c| c.stated(f)),
            };
            let v = from_rows.unwrap_or_else(|| {
                let v = nb.environment().get(f);
                if v.is_empty() { "not stated".to_owned() } else { v }
            });
            format!("{}: {v}", f.label().to_lowercase())
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// C.8.4 asks the report to say that its convention was used (SPEC S7).
const CONVENTION: &str = "Differences are judged by the course's C.8.4 convention (not a statistical test): with \
    medians mA, mB and interquartile ranges iA, iB, a difference is claimed only when |mA − mB| > iA + iB, and \
    otherwise reported as no difference I can resolve.";

/// The Method paragraph: every kept run counted under the instrument that
/// measured it, the discards, and the verdict convention.
fn method(nb: &Notebook) -> String {
    let kept: Vec<_> = nb.runs().iter().filter(|r| r.discarded.is_none()).collect();
    if kept.is_empty() {
        let discarded = nb.runs().len();
        let state = if discarded == 0 {
            "no run is recorded yet".to_owned()
        } else {
            format!("no run is kept ({discarded} discarded)")
        };
        return format!(
            "{PROMPT_MARK} {state}; describe what you ran, warm-up + timed repetitions and the instrument."
        );
    }
    let discarded = nb.runs().len() - kept.len();
    // An imported row was measured by the instrument it names, never by
    // Vernier's harness (SPEC E14): each instrument is named with its rows.
    let (imported, harness): (Vec<&crate::notebook::Run>, Vec<_>) = kept.iter().partition(|r| r.context().imported());
    // A row of the program's own figure (E17) was timed by the program;
    // Vernier's harness ran it and read the figure.
    let (own, wall): (Vec<&crate::notebook::Run>, Vec<_>) =
        harness.into_iter().partition(|r| r.measurement.figure.is_some());
    let mut measured = Vec::new();
    if !wall.is_empty() {
        let rows: Vec<RowRef> = wall.iter().map(|r| RowRef::Run(r.number)).collect();
        measured.push(format!(
            "{} measured with Vernier's harness (wall time per trial, std::time::Instant)",
            row_list(&rows)
        ));
    }
    let own = group_rows(own.iter().filter_map(|r| {
        let spec = &r.measurement.figure.as_ref()?.spec;
        Some((RowRef::Run(r.number), crate::display::inert_line(spec.describe())))
    }));
    for (how, rows) in own {
        measured.push(format!("{} run by Vernier's harness and measured by {how}", row_list(&rows)));
    }
    for sweep in nb.sweeps() {
        measured.push(format!(
            "sweep {} ({}): {}; one trial of every value per round, the order rotated each round",
            sweep.label(),
            sweep.runs_text(),
            sweep.params_text()
        ));
    }
    let instruments = group_rows(imported.iter().map(|r| {
        let instrument =
            r.measurement.conditions.value_of(ConditionName::Instrument).unwrap_or("an instrument not named");
        (RowRef::Run(r.number), crate::display::inert_line(instrument.to_owned()))
    }));
    for (instrument, rows) in instruments {
        measured.push(format!("{} imported, measured by {instrument}", row_list(&rows)));
    }
    // SPEC S16: what each row's time is the time of, so rows of different
    // boundaries are not read as like with like.
    // An import's instrument is named just above: what it timed is said
    // without naming it again, unless the student stated it (D8).
    let boundary = |r: &crate::notebook::Run| match r.measurement.timing_boundary() {
        crate::notebook::Boundary::Instrument { instrument, stated }
            if stated == crate::notebook::as_states(&instrument) =>
        {
            "what its instrument, named above, states it times".to_owned()
        }
        other => other.describe(),
    };
    let boundaries = group_rows(kept.iter().map(|r| (RowRef::Run(r.number), crate::display::inert_line(boundary(r)))));
    let timing: Vec<String> =
        boundaries.into_iter().map(|(boundary, rows)| format!("{}: {boundary}", row_list(&rows))).collect();
    // SPEC N15: each build recipe named once, with the rows it built.
    let built: String = group_rows(kept.iter().filter_map(|r| {
        let recipe = r.measurement.recipe.as_ref()?;
        Some((RowRef::Run(r.number), format!("`{}` ({})", recipe.command(), crate::display::inert(&recipe.compiler))))
    }))
    .into_iter()
    .map(|(recipe, rows)| {
        format!(
            " The program of {} was built by Vernier just before it was measured, with {recipe}; the rows record its \
             sources' SHA-256 and the program's.",
            row_list(&rows)
        )
    })
    .collect();
    // SPEC E18: the floor each session measured before its rows, so a
    // reader knows the smallest difference they could show.
    let floors = noise_floors(kept.iter().copied());
    let floors = if floors.is_empty() {
        String::new()
    } else {
        let each: Vec<String> =
            floors.into_iter().map(|(floor, rows)| format!("{}: {floor}", row_list(&rows))).collect();
        format!(
            " The instrument's noise floor, measured before the rows were (a difference below it is not claimed) — {}.",
            each.join("; ")
        )
    };
    let discarded = match discarded {
        0 => "No run was discarded.".to_owned(),
        1 => "1 run was discarded and is listed, with its reason, in the measurement log.".to_owned(),
        n => format!("{n} runs were discarded and are listed, with reasons, in the measurement log."),
    };
    format!(
        "{}; each summarised by its median, interquartile range, min and max; warm-up and timed repetitions are given per \
         row below. What each time is the time of — {}.{built}{floors} {discarded} {CONVENTION}",
        measured.join("; "),
        timing.join("; "),
    )
}

fn thermals(nb: &Notebook, attachments: &Attachments) -> String {
    use crate::soak::analysis::{SHARED_HOST, Sight, Thresholds, recorded_finding};
    match nb.soaks().iter().find(|s| s.discarded.is_none()) {
        Some(s) => {
            // SPEC T5, T11, S6, A7: the six numbers and the knee, each with
            // its own tag (what is computed from the samples is DERIVED).
            let tags = SoakNumbers::tags(s.tag);
            let numbers: Vec<String> = s
                .numbers
                .shown()
                .iter()
                .zip(tags)
                .map(|((name, value), tag)| format!("{name} {value} ({tag})"))
                .collect();
            let mut text = format!(
                "Soak {} ({} s, sampled every {} s{}): {}.",
                s.label(),
                s.protocol.duration_s,
                s.protocol.interval_s,
                if s.synthetic { ", SYNTHETIC data" } else { "" },
                numbers.join(", ")
            );
            // SPEC T8 (C.9.7), T12: a shared host says so, always; an onset
            // the sensors could not explain is a fall, not throttling.
            let sight = Sight::of_conditions(&s.context().effective_conditions());
            let said = recorded_finding(&s.numbers, &Thresholds::from(&s.protocol), s.protocol.duration_s, sight)
                .or_else(|| sight.shared.then(|| SHARED_HOST.to_owned()));
            if let Some(said) = said {
                text.push(' ');
                text.push_str(&said);
            }
            if let Some(windows) = other_windows(s, nb.protocol_why(s), attachments) {
                text.push(' ');
                text.push_str(&windows);
            }
            if let Some(predicted) = predictions::soak_sentence(nb, s.number) {
                text.push(' ');
                text.push_str(&predicted);
            }
            text
        }
        None => "No soak is recorded in this notebook.".to_owned(),
    }
}

/// A soak analysed under windows or thresholds other than the T1 defaults
/// (SPEC T5, T13): which, the reason they were fixed with (`why`), and what
/// the defaults give on the same file, so a reader sees whether the choice
/// moved the numbers. `None` under the defaults.
fn other_windows(soak: &crate::notebook::Soak, why: Option<&str>, attachments: &Attachments) -> Option<String> {
    use crate::soak::analysis::{Thresholds, analyze};
    let t1 = soak.protocol.defaults_for();
    let changed: Vec<String> = soak
        .protocol
        .changed_from(&t1)
        .into_iter()
        .map(|(name, used, default)| format!("{name} {used} (default {default})"))
        .collect();
    if changed.is_empty() {
        return None;
    }
    let because = match why {
        Some(why) => format!(", changed because: {}", crate::display::inert_line(why.to_owned())),
        None => ", with no reason recorded".to_owned(),
    };
    let under_defaults = match &attachments.soak {
        Some(Ok((number, data))) if *number == soak.number => match analyze(data, &Thresholds::from(&t1)) {
            Ok(a) => match a.windows_warning {
                Some(warning) => format!("under the defaults the windows do not fit this file: {warning}"),
                None => format!("under the defaults the same file gives {}", a.numbers.shown_line()),
            },
            Err(e) => format!("under the defaults the same file gives no numbers: {e}"),
        },
        Some(Err(why)) => format!("what the defaults give is not shown: its raw file did not read ({why})"),
        _ => "what the defaults give is not shown: its raw file was not read".to_owned(),
    };
    Some(format!("It was analysed under {}{because}; {under_defaults}.", changed.join(", ")))
}

/// What the kept rows say of one thing (their machine, build, power …),
/// each from its own record: the one value when they agree, else each
/// value with the rows it holds for — "mains (runs 1–2); battery (run 3)".
/// `None` when the notebook has no kept row yet.
fn across_rows(nb: &Notebook, read: impl Fn(&RowContext) -> Option<String>) -> Option<String> {
    let runs = nb.runs().iter().filter(|r| r.discarded.is_none()).map(|r| (RowRef::Run(r.number), read(&r.context())));
    let soaks =
        nb.soaks().iter().filter(|s| s.discarded.is_none()).map(|s| (RowRef::Soak(s.number), read(&s.context())));
    let groups = group_rows(runs.chain(soaks).map(|(row, v)| (row, v.unwrap_or_else(|| "not stated".to_owned()))));
    match groups.as_slice() {
        [] => None,
        [(one, _)] => Some(one.clone()),
        _ => Some(groups.iter().map(|(v, rows)| format!("{v} ({})", row_list(rows))).collect::<Vec<_>>().join("; ")),
    }
}

fn table(nb: &Notebook, name: &str) -> Option<Vec<Vec<String>>> {
    let row = |cells: &[&str]| cells.iter().map(|c| (*c).to_owned()).collect::<Vec<String>>();
    Some(match name {
        // SPEC S11: each comparison with its verdict, paired ratio and order.
        "comparisons" => {
            let mut rows = vec![row(&["Comparison", "Runs", "Verdict (S7)", "Paired ratio", "Order", "Tag"])];
            // A18: a comparison with a diagnostic arm is left out, and the
            // line under the table says so (see `comparisons_table`).
            for p in nb.pairs().iter().filter(|p| diagnostic_arm(nb, p).is_none()) {
                let discarded = p.runs.iter().any(|&n| nb.run(n).is_some_and(|r| r.discarded.is_some()));
                let flag = if discarded { " (an arm is discarded)" } else { "" };
                rows.push(vec![
                    format!("{}: {}{flag}", p.label(), p.what),
                    format!("{} ({}) vs {} ({})", p.runs[0], p.labels[0], p.runs[1], p.labels[1]),
                    // One verdict (S15), short: S7's words and the two
                    // numbers they rest on; what the evidence means is
                    // said once, under the table (S17, D8).
                    p.verdict.verdict.clone(),
                    p.evidence(nb).paired_line().unwrap_or_default(),
                    p.evidence(nb).order_line().unwrap_or_default(),
                    // Computed from the two rows' MEASURED trials.
                    Tag::Derived.to_string(),
                ]);
            }
            rows
        }
        "provenance" => {
            // SPEC A7, S17: the rows the report shows, by the tag it prints
            // on them — a discarded run or a diagnostic build (A18) is left
            // out of the results and so of these counts — and every
            // comparison it derives from two of them.
            let mut rows = vec![row(&["Category", "Count", "Notes"])];
            // Each run's build is read once, not once a tag (issue 50).
            let reported: Vec<&crate::notebook::Run> =
                nb.runs().iter().filter(|r| r.discarded.is_none() && results::diagnostic(r).is_none()).collect();
            let comparisons = nb.pairs().iter().filter(|p| diagnostic_arm(nb, p).is_none()).count();
            // The onset, knee and S/P of the soak Thermals reports are
            // computed from its samples.
            let thermals_soak = nb.soaks().iter().find(|s| s.discarded.is_none());
            let soak_figures = usize::from(thermals_soak.is_some_and(|s| SoakNumbers::tags(s.tag)[1] == Tag::Derived));
            for tag in Tag::ALL {
                let derived = if tag == Tag::Derived { comparisons + soak_figures } else { 0 };
                let count = reported.iter().filter(|r| r.measurement.tag == tag).count()
                    + nb.soaks().iter().filter(|s| s.discarded.is_none() && s.tag == tag).count()
                    + derived;
                let synthetic = reported.iter().any(|r| r.measurement.synthetic && r.measurement.tag == tag)
                    || nb.soaks().iter().any(|s| s.discarded.is_none() && s.synthetic && s.tag == tag);
                let note = match (tag, synthetic) {
                    (_, true) => "includes SYNTHETIC data",
                    (Tag::Measured, _) => "rows of the measurement log the results show",
                    (Tag::Derived, _) if comparisons > 0 && soak_figures > 0 => {
                        "comparisons computed from two measured rows each; the soak's onset, knee and S/P"
                    }
                    (Tag::Derived, _) if comparisons > 0 => "comparisons computed from two measured rows each",
                    (Tag::Derived, _) if soak_figures > 0 => {
                        "the soak's onset, knee and S/P, computed from its samples"
                    }
                    _ => "",
                };
                rows.push(vec![tag.to_string(), count.to_string(), note.to_owned()]);
            }
            rows
        }
        "citations" => {
            let mut rows = vec![row(&["Figure", "Value", "Source (URL)", "Retrieved", "Tag"])];
            for c in &nb.writing().citations {
                rows.push(vec![
                    c.figure.clone(),
                    c.value.clone(),
                    c.url.clone(),
                    c.retrieved.clone(),
                    c.tag.to_string(),
                ]);
            }
            if nb.writing().citations.is_empty() && nb.writing().no_citations {
                rows.push(vec![NO_CITATIONS.to_owned(), String::new(), String::new(), String::new(), String::new()]);
            } else if nb.writing().citations.is_empty() {
                rows.push(vec![
                    format!("{PROMPT_MARK} every cited figure, with its URL and retrieval date (vernier cite; or cite --none)."),
                    String::new(),
                    String::new(),
                    String::new(),
                    "CITED".into(),
                ]);
            }
            rows
        }
        "placement" => {
            let mut rows = vec![row(&["Workload", "Processor", "Why (and what it beat)", "What it costs"])];
            if nb.writing().deadlines.is_empty() {
                rows.push(vec![
                    format!("{PROMPT_MARK} a workload with its deadline (vernier placement --notebook)."),
                    String::new(),
                    String::new(),
                    String::new(),
                ]);
                return Some(rows);
            }
            let entries = placement_decision::parse(placement_decision::SHIPPED).unwrap_or_default();
            let budgets = nb.writing().deadlines.iter().map(|b| (b.workload.clone(), b.deadline_ms)).collect();
            let rates =
                nb.writing().deadlines.iter().filter_map(|b| b.rate_per_s.map(|r| (b.workload.clone(), r))).collect();
            rows.extend(placement_decision::decide(&entries, &budgets, &rates).into_iter().map(|d| {
                let cost = if d.cost == "—" { d.cost } else { format!("{} (MODELED)", d.cost) };
                vec![d.workload, d.processor, d.why, cost]
            }));
            rows
        }
        "soc_memory" => soc::memory_table(&soc::parse(soc::SHIPPED).unwrap_or_default()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC D2: answers are keyed by their prompt, so no document may ask
    // the same thing twice.
    #[test]
    fn prompts_are_unique_within_each_document() {
        for document in Document::ALL.into_iter().filter(|d| template(*d).is_some()) {
            let prompts = prompts(document);
            assert!(!prompts.is_empty(), "{document} has prompts");
            let mut sorted = prompts.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), prompts.len(), "{document} repeats a prompt");
        }
        assert!(template(Document::Measurements).is_none());
    }

    // SPEC E14: the Method paragraph names the instrument of each imported
    // row, and counts only Vernier's own runs as its harness's.
    #[test]
    fn the_method_names_each_instrument() {
        use crate::import::csv::{CsvSpec, prepare_bytes};
        let mut nb = Notebook::new("t", chrono::Utc::now());
        let spec = CsvSpec { instrument: Some("driver.cpp, steady_clock".into()), ..CsvSpec::column("t_ms") };
        let prepared = prepare_bytes(Path::new("t.csv"), b"t_ms\n1\n2\n3\n", &spec).expect("prepares");
        let dir = tempfile::tempdir().expect("tmp");
        prepared.record(dir.path(), &mut nb, chrono::Utc::now()).expect("records");
        let text = method(&nb);
        assert!(text.starts_with("run 1 imported, measured by driver.cpp, steady_clock; each"), "{text}");
        assert!(!text.contains("harness"), "{text}");
    }
}
