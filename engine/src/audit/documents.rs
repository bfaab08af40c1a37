//! The checks on the exported documents (A7–A18, and A1/A10/A12 where the
//! report shows them). Reads the exported files; when there are none,
//! checks what an export would write now, so the student sees the same
//! findings before exporting.

mod forms;

use std::io::Read as _;
use std::path::Path;

use super::numbers::{self, TAGS};
use super::{Check, Finding, Place};
use crate::documents::{self, Attachments, MAX_DOCUMENT_BYTES, NO_CITATIONS, PROMPT_MARK, VernierText};
use crate::notebook::{Document, Notebook, is_date};
use crate::stats::decimals_for_dispersion;

/// One paragraph or table row of a document, in reading order.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    /// 1-based position.
    number: usize,
    /// Heading level, for headings.
    heading: Option<u8>,
    /// The nearest heading above.
    section: String,
    /// Table cells, for a table row (the text joins them with " | ").
    cells: Option<Vec<String>>,
    /// The text.
    text: String,
    /// True for a line whose numbers are no results to tag there (A7): one
    /// that states what was run, never what it gave (see [`SETUP`]), or a
    /// workbook row the log derives from its own tagged rows (see
    /// [`WORKBOOK_SHEETS`]).
    no_results: bool,
    /// The cells, or the text, with what Vernier wrote taken out (A20):
    /// what A1, A7, A8 and A9 read. The whole line until
    /// [`take_out_vernier`] runs.
    person: Person,
}

/// What a person wrote in a line (SPEC A20).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Person {
    /// A paragraph's text.
    Text(String),
    /// A table row's cells, each blank where Vernier wrote it.
    Cells(Vec<String>),
}

impl Line {
    fn new(number: usize, heading: Option<u8>, section: String, cells: Option<Vec<String>>, text: String) -> Self {
        let no_results = cells.is_none() && SETUP.iter().any(|field| text.starts_with(field));
        let person = match &cells {
            Some(cells) => Person::Cells(cells.clone()),
            None => Person::Text(text.clone()),
        };
        Self { number, heading, section, cells, text, no_results, person }
    }

    /// The person's text, cells joined by ` | `, without the prompts still
    /// in it: a prompt's words are the template's, not the student's (A16
    /// finds them).
    fn persons_text(&self) -> String {
        match &self.person {
            Person::Cells(cells) => cells.iter().map(|c| without_prompts(c)).collect::<Vec<_>>().join(" | "),
            Person::Text(text) => without_prompts(text),
        }
    }
}

/// `text` up to the first prompt still in it: a prompt's words are the
/// template's, not the student's (A16 finds them).
fn without_prompts(text: &str) -> String {
    text.split(PROMPT_MARK).next().unwrap_or(text).to_owned()
}

/// Takes what Vernier wrote out of every line (SPEC A20): a table cell it
/// wrote as it stands, a passage of a paragraph it wrote. A line whose
/// words are all Vernier's is left with nothing to read.
fn take_out_vernier(lines: &mut [Line], vernier: &VernierText) {
    for line in lines {
        line.person = match &line.person {
            Person::Cells(cells) => Person::Cells(
                cells.iter().map(|c| if vernier.wrote_cell(c) { String::new() } else { c.clone() }).collect(),
            ),
            Person::Text(text) => Person::Text(vernier.persons_part(text)),
        };
    }
}

/// The fields whose values state the set-up, not a result: the machine, the
/// build and the conditions every result was measured under, the
/// requirement a placement is chosen against, the models and sources used.
/// A student writes "8 logical CPUs, 16 GB" or "idle 10 min, ~22 °C" there,
/// as the course's worked report does, with no tag.
const SETUP: [&str; 11] = [
    "Tier targeted:",
    "Workbench:",
    "Machine:",
    "Build:",
    "Conditions:",
    "Primary sources used:",
    "Figures I could not source:",
    "The requirement, stated before any choosing:",
    "Energy ceiling, if any:",
    "Models used:",
    "Signed:",
];

/// The workbook's sheets whose numbers are no results to tag in their rows:
/// the set-up and the predictions made before any run, and the rows Vernier
/// derives from the runs, each of which carries its tag in the Runs sheet —
/// comparisons, sweeps — and the soaks, laid out as the course's log lays
/// them out, with no Tag column (the report tags each soak number). A cell
/// typed over in a spreadsheet is an edit the log does not hold, named by
/// A17. The Runs sheet is read by its Tag column, the Notes sheet as prose.
const WORKBOOK_SHEETS: [&str; 5] = ["Environment", "Predictions", "Comparisons", "Sweeps", "Soak runs"];

/// Takes the Notes sheet's notes Vernier wrote out of what is read (A20):
/// a note it added when it recorded a comparison, extended a row or took
/// in a workbook says what the log derives from tagged rows, in Vernier's
/// words; and a note's source (the workbook and its hash) is Vernier's
/// provenance, whoever wrote the note. A note a person wrote is read as
/// prose, whatever it says.
fn vernier_notes(nb: &Notebook, lines: &mut [Line]) {
    let vernier_wrote =
        |cell: &str| nb.notes().iter().any(|n| (n.text == cell && nb.wrote(n)) || n.source.as_deref() == Some(cell));
    for line in lines.iter_mut().filter(|l| l.section == "Notes and anomalies") {
        if let Person::Cells(cells) = &mut line.person {
            for cell in cells.iter_mut().filter(|c| vernier_wrote(c)) {
                cell.clear();
            }
        }
    }
}

/// Runs the document checks; returns whether the files on disk were read.
/// `read` is the digest of the bytes `nb` was read from, if known.
pub(super) fn check(dir: &Path, nb: &Notebook, read: Option<&str>, exports: &Path, out: &mut Vec<Finding>) -> bool {
    let stems = Document::ALL.map(Document::stem);
    let exported = stems.iter().any(|s| exports.join(s).is_file());
    // A11: exactly the six names.
    if exported {
        let present: Vec<String> = std::fs::read_dir(exports)
            .map(|it| it.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        for stem in stems.iter().filter(|s| !present.iter().any(|p| p == *s)) {
            out.push(finding(Check::A11, Place::Exports, format!("{stem} is missing")));
        }
        for extra in present.iter().filter(|p| !stems.contains(&p.as_str()) && !p.starts_with('.')) {
            out.push(finding(
                Check::A11,
                Place::Exports,
                format!("{extra} is not one of the six documents; remove it"),
            ));
        }
        if stale(dir, nb, read, exports) {
            // A17: exporting again would lose what was edited since.
            let edited = documents::export_record::edited(dir, exports, &stems);
            if edited.is_empty() {
                out.push(finding(
                    Check::A11,
                    Place::Exports,
                    "the notebook changed after the last export; export again".into(),
                ));
            } else {
                let names: Vec<String> = edited.iter().map(ToString::to_string).collect();
                out.push(finding(
                    Check::A17,
                    Place::Exports,
                    format!(
                        "the notebook changed after the last export, and {} — exporting again would lose those \
                         edits: take them into Vernier first (vernier merge for measurements.xlsx; vernier write or \
                         the Documents section for a document), then export with --force",
                        names.join(", ")
                    ),
                ));
            }
        }
        spreadsheet_edits(dir, nb, exports, out);
    } else {
        out.push(finding(Check::A11, Place::Exports, "nothing is exported yet (Export writes the six)".into()));
    }
    let attachments = Attachments::load(dir, nb);
    let rendered = if exported { None } else { documents::export(nb, &attachments).ok() };
    // A document that is there but cannot be read is a finding: an audit
    // that skipped it would pass what it never read.
    let bytes = |stem: &str| -> Result<Option<Vec<u8>>, String> {
        match &rendered {
            Some(files) => Ok(files.iter().find(|(n, _)| *n == stem).map(|(_, b)| b.clone())),
            None => {
                let path = exports.join(stem);
                if std::fs::symlink_metadata(&path).is_err() {
                    return Ok(None);
                }
                crate::bounded::read_bounded(&path, MAX_DOCUMENT_BYTES, "an exported document")
                    .map(Some)
                    .map_err(|e| e.to_string())
            }
        }
    };
    let medians = Medians::of(nb);
    let (attachments, bytes) = (&attachments, &bytes);
    std::thread::scope(|scope| {
        // Vernier's own text in the documents (A20) is the documents made
        // again — the report's is its whole results table — and the
        // workbook is read apart from them: a second thread makes the text,
        // sends it, then checks the workbook, while this one reads the
        // other documents (issue 50).
        // Bounded: the one text, sent once.
        let (send, receive) = std::sync::mpsc::sync_channel(1);
        let other = std::thread::Builder::new().name("vernier-audit-text".into()).spawn_scoped(scope, move || {
            // A send fails only when this side is gone.
            let _ = send.send(vernier_texts(nb, attachments));
            let mut found = Vec::new();
            check_workbook(dir, nb, bytes, &mut found);
            found
        });
        // No thread to be had, or it failed before sending: the text is
        // made here (the join below says why it failed).
        let texts = || receive.recv().unwrap_or_else(|_| vernier_texts(nb, attachments));
        let workbook = || match other {
            Ok(thread) => crate::shared_work::joined(thread),
            Err(_) => {
                let mut found = Vec::new();
                check_workbook(dir, nb, bytes, &mut found);
                found
            }
        };
        check_each(dir, nb, bytes, &medians, texts, workbook, out);
    });
    exported
}

/// Vernier's text in each document but the workbook, whose own cells are
/// known another way ([`vernier_notes`]).
fn vernier_texts(nb: &Notebook, attachments: &Attachments) -> Vec<(Document, VernierText)> {
    Document::ALL
        .into_iter()
        .filter(|d| *d != Document::Measurements)
        .map(|d| (d, VernierText::of(nb, d, attachments)))
        .collect()
}

/// An exported document's bytes by its file name: `None` when it is not
/// there, the reason when it cannot be read.
type DocumentBytes<'a> = dyn Fn(&str) -> Result<Option<Vec<u8>>, String> + 'a;

/// The checks of each exported document, their findings in
/// [`Document::ALL`] order. Every document but the workbook is read before
/// any of Vernier's text is asked for (`texts`): it is made on another
/// thread meanwhile, which then checks the workbook (`workbook`, asked
/// last; issue 50). The workbook on a thread of its own as well was
/// measured no faster on two CPUs: four threads then share them.
fn check_each(
    dir: &Path,
    nb: &Notebook,
    bytes: &DocumentBytes<'_>,
    medians: &Medians,
    texts: impl FnOnce() -> Vec<(Document, VernierText)>,
    workbook: impl FnOnce() -> Vec<Finding>,
    out: &mut Vec<Finding>,
) {
    let mut found: Vec<Vec<Finding>> = Document::ALL.iter().map(|_| Vec::new()).collect();
    let mut waiting = Vec::new();
    for (document, out) in Document::ALL.into_iter().zip(found.iter_mut()) {
        if document == Document::Measurements {
            continue;
        }
        if let Some((content, lines)) = document_lines(dir, document, bytes, out) {
            waiting.push((document, content, lines, out));
        }
    }
    let mut texts = texts();
    for (document, content, mut lines, out) in waiting {
        let text = texts.iter().position(|(d, _)| *d == document).map(|i| texts.swap_remove(i).1);
        take_out_vernier(&mut lines, &text.unwrap_or_default());
        read_lines(nb, document, &content, &lines, Some(medians), out);
    }
    if let Some(at) = Document::ALL.iter().position(|d| *d == Document::Measurements) {
        found[at] = workbook();
    }
    out.extend(found.into_iter().flatten());
}

/// The workbook's checks: its lines read as a spreadsheet holds them,
/// Vernier's own notes known as such.
fn check_workbook(dir: &Path, nb: &Notebook, bytes: &DocumentBytes<'_>, out: &mut Vec<Finding>) {
    if let Some((content, mut lines)) = document_lines(dir, Document::Measurements, bytes, out) {
        vernier_notes(nb, &mut lines);
        read_lines(nb, Document::Measurements, &content, &lines, None, out);
    }
}

/// An exported document's bytes and lines, its unfinished prompts found
/// (A16); `None` when it is not there or cannot be read, which `out` then
/// says.
fn document_lines(
    dir: &Path,
    document: Document,
    bytes: &DocumentBytes<'_>,
    out: &mut Vec<Finding>,
) -> Option<(Vec<u8>, Vec<Line>)> {
    let stem = document.stem();
    let content = match bytes(stem) {
        Ok(content) => content?,
        Err(e) => {
            out.push(finding(Check::A11, Place::Exports, format!("{stem} cannot be read, so it was not audited: {e}")));
            return None;
        }
    };
    let lines = match document {
        Document::Measurements => workbook_lines(&content, stem),
        Document::Report | Document::SocReview | Document::PlacementDecision | Document::ThreatModel => {
            docx_lines(&content)
        }
        Document::AiUsage => Ok(text_lines(&String::from_utf8_lossy(&content))),
    };
    let lines = match lines {
        Ok(lines) => lines,
        Err(e) => {
            out.push(finding(Check::A11, Place::Exports, format!("{stem} cannot be read: {e}")));
            return None;
        }
    };
    if documents::template(document).is_some() {
        unfinished(dir, document, &lines, out);
    }
    Some((content, lines))
}

/// The checks of a document's lines once Vernier's own text is out of
/// them. `medians` is `None` for the workbook: its numbers are numbers,
/// shown by the format Vernier gives them by S6, so only its text is read
/// for rounding.
fn read_lines(
    nb: &Notebook,
    document: Document,
    content: &[u8],
    lines: &[Line],
    medians: Option<&Medians>,
    out: &mut Vec<Finding>,
) {
    tags_and_rounding(document, lines, medians, out);
    forms::check(document, lines, out);
    match document {
        Document::Report => report_checks(nb, lines, out),
        Document::AiUsage => ai_usage(&String::from_utf8_lossy(content), out),
        Document::Measurements | Document::SocReview | Document::PlacementDecision | Document::ThreatModel => {}
    }
}

/// A7 and A8 on every line of one document: each result is tagged in its
/// clause, in its table row or under a line that declares the tag of every
/// figure below it; each median written is rounded as S6 rounds the row it
/// names. The findings name the numbers. `medians` is `None` where numbers
/// are not written by hand (the workbook's).
fn tags_and_rounding(document: Document, lines: &[Line], medians: Option<&Medians>, out: &mut Vec<Finding>) {
    let at = |l: &Line| Place::Document { document, line: l.number, section: l.section.clone() };
    let mut header: Option<&Vec<String>> = None;
    let mut declared = false;
    for l in lines {
        match &l.cells {
            // A table's first row names its columns.
            Some(cells) if header.is_none() => {
                header = Some(cells);
                continue;
            }
            Some(_) => {}
            None => header = None,
        }
        // A row's tag cell tags it, whoever wrote the tag.
        let row_tagged = l.cells.is_some() && TAGS.iter().any(|t| l.text.contains(t));
        let covered = declared || row_tagged || l.no_results;
        // A table row under its header is held to A8 by its cells; its
        // numbers are read only for A7, so a covered one is not read at
        // all (a Runs table of 10 000 rows, each tagged: issue 50).
        let in_table = header.is_some() && l.cells.is_some();
        let read = !covered || (medians.is_some() && !in_table);
        let found = if read { numbers::numbers(&l.persons_text()) } else { Vec::new() };
        let untagged: Vec<&numbers::Number> = found.iter().filter(|n| n.needs_tag() && !n.tagged && !covered).collect();
        if let Some(first) = untagged.first() {
            let which = if untagged.len() == 1 {
                format!("“{}{}”", first.text, first.unit.as_deref().map(|u| format!(" {u}")).unwrap_or_default())
            } else {
                untagged.iter().map(|n| format!("“{}”", n.text)).collect::<Vec<_>>().join(", ")
            };
            let (has, its) = if untagged.len() == 1 { ("has", "its") } else { ("have", "their") };
            out.push(finding(
                Check::A7,
                at(l),
                format!(
                    "{which} {has} no tag (MEASURED, DERIVED, CITED or MODELED) in {its} clause: “{}”",
                    clip(&l.text)
                ),
            ));
        }
        // A line that declares the tags below declares them, whoever wrote it.
        declared |= numbers::declares_tags(&without_prompts(&l.text));
        let Some(medians) = medians else { continue };
        match (header, &l.person, &l.cells) {
            // A median cell as Vernier wrote it is rounded by S6; one a
            // person wrote is read against its row's dispersion.
            (Some(h), Person::Cells(person), Some(cells)) => {
                let by_person =
                    h.iter().position(|c| c == "Median").is_some_and(|i| person.get(i).is_some_and(|c| !c.is_empty()));
                if let Some(problem) = rounding_problem(h, cells).filter(|_| by_person) {
                    out.push(finding(Check::A8, at(l), problem));
                }
            }
            // A8 in prose: a run's median written with more places than S6
            // gives that run.
            _ => {
                for n in &found {
                    if let Some(problem) = medians.problem(n, &found) {
                        out.push(finding(Check::A8, at(l), problem));
                    }
                }
            }
        }
    }
}

/// A17, N12: a measurements.xlsx edited in a spreadsheet whose edits were
/// not weighed by a merge holds what the log does not; the next export
/// would lose it. Named edit by edit, the first few, with the command that
/// takes them in.
fn spreadsheet_edits(dir: &Path, nb: &Notebook, exports: &Path, out: &mut Vec<Finding>) {
    const WORKBOOK: &str = "measurements.xlsx";
    const LISTED: usize = 5;
    // A workbook the export record vouches for was written, or merged, as it is.
    if documents::export_record::edited(dir, exports, &[WORKBOOK]).is_empty() {
        return;
    }
    let path = exports.join(WORKBOOK);
    let Ok(bytes) = crate::bounded::read_bounded(&path, MAX_DOCUMENT_BYTES, "an exported document") else {
        return;
    };
    let Ok(own) = documents::measurements::read_own(&bytes, &path.display().to_string()) else {
        return;
    };
    // What a merge already took in is in the log; the rest is not.
    let plan = crate::merge::plan(&own, nb, WORKBOOK);
    let pending: Vec<&documents::edits::SheetEdit> =
        plan.take.iter().flat_map(|(edits, _)| edits).chain(plan.refused.iter().map(|(edit, _)| edit)).collect();
    if pending.is_empty() {
        return;
    }
    let mut listed: Vec<String> = pending.iter().take(LISTED).map(ToString::to_string).collect();
    if pending.len() > LISTED {
        listed.push(format!("and {} more", pending.len() - LISTED));
    }
    let quote = |p: &Path| crate::display::quote_argv(&[p.display().to_string()]);
    out.push(finding(
        Check::A17,
        Place::Exports,
        format!(
            "{WORKBOOK} has {} edits made in a spreadsheet that are not in the log ({}); take them in with vernier \
             merge {} --notebook {} before exporting again",
            pending.len(),
            listed.join("; "),
            quote(&path),
            quote(dir)
        ),
    ));
}

/// A16: every prompt still marked in a document is a finding that names the
/// document, the heading it sits under and the prompt, with the two ways
/// forward: write it, or mark it not part of this submission.
fn unfinished(dir: &Path, document: Document, lines: &[Line], out: &mut Vec<Finding>) {
    let stem = document.stem();
    let prompts = documents::prompts(document);
    let dir = crate::display::quote_argv(&[dir.display().to_string()]);
    for l in lines {
        for (at, _) in l.text.match_indices(PROMPT_MARK) {
            let rest = l.text[at + PROMPT_MARK.len()..].trim_start();
            // The mark's own text ends at the next mark, cell or sentence.
            let rest = [PROMPT_MARK, " | ", ". "].iter().fold(rest, |r, end| r.split(end).next().unwrap_or(r));
            let rest = rest.trim_end_matches([' ', '|', '.']);
            let place = Place::Document { document, line: l.number, section: l.section.clone() };
            let message = match prompts.iter().position(|p| rest.starts_with(p)) {
                Some(i) => format!(
                    "“{}” is not written (vernier write {dir} {stem} {} TEXT; or --na REASON when it is not part of \
                     this submission)",
                    prompts[i],
                    i + 1
                ),
                None => format!("unfinished: “{}”", crate::display::inert_line(rest.chars().take(200).collect())),
            };
            out.push(finding(Check::A16, place, message));
        }
    }
}

/// True when the exported documents no longer show the notebook: by the
/// export record's hash of the log when there is one, else by the files'
/// times (an export made before records were kept).
fn stale(dir: &Path, nb: &Notebook, read: Option<&str>, exports: &Path) -> bool {
    if let Some(record) = documents::export_record::ExportRecord::read(dir, exports) {
        return record.is_stale(nb, read);
    }
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let oldest = Document::ALL.iter().filter_map(|d| modified(&exports.join(d.stem()))).min();
    matches!((oldest, crate::notebook::store::modified(dir)), (Some(export), Some(log)) if log > export)
}

fn report_checks(nb: &Notebook, lines: &[Line], out: &mut Vec<Finding>) {
    let at = |l: &Line| Place::Document { document: Document::Report, line: l.number, section: l.section.clone() };
    // A1, A9: from the results onwards, an average is a median or
    // disclosed, and claims carry their test.
    let results = lines.iter().position(|l| l.heading.is_some() && l.text.contains("Results")).unwrap_or(lines.len());
    // Before the results only the headline states a result; the lines
    // around it state the conditions.
    let headline = lines[..results].iter().filter(|l| l.text.starts_with("Headline result:"));
    for l in headline.chain(&lines[results..]) {
        if l.heading.is_some() || l.text.starts_with(PROMPT_MARK) || l.section.contains("Citations") {
            continue;
        }
        // What a person wrote (A20): Vernier's own sentences state their
        // test where they claim, and are never a finding.
        let read = l.persons_text();
        let lower = read.to_lowercase();
        // Prose only: a conditions cell may quote the machine's load average.
        // C.8.2: a mean named as a mean, with its reason, is a disclosure.
        // Its numbers are read last, and only for such a sentence.
        let prose = l.cells.is_none() && !lower.contains("load average");
        if prose
            && mentions_mean(&lower)
            && !disclosed_mean(&lower)
            && numbers::numbers(&read).iter().any(numbers::Number::needs_tag)
        {
            out.push(finding(
                Check::A1,
                at(l),
                format!(
                    "an average is reported; report the median with its IQR, or call it a mean and say why (as \
                     C.8.2 asks when a tool reports one): “{}”",
                    clip(&l.text)
                ),
            ));
        }
        let claims =
            ["faster", "slower", "speedup", "× ", "x faster", "% above", "% below", "better than", "worse than"];
        let tested = ["iqr", "s7", "resolve", "unresolvable", "within"].iter().any(|w| lower.contains(w));
        if l.cells.is_none() && claims.iter().any(|c| lower.contains(c)) && !tested {
            out.push(finding(
                Check::A9,
                at(l),
                format!("a difference is claimed without its IQR test: “{}”", clip(&l.text)),
            ));
        }
    }
    // A10: synthetic rows must be labelled in the report.
    let synthetic = nb.runs().iter().any(|r| r.discarded.is_none() && r.measurement.synthetic)
        || nb.soaks().iter().any(|s| s.discarded.is_none() && s.synthetic);
    if synthetic && !lines.iter().any(|l| l.text.contains("SYNTHETIC")) {
        out.push(finding(
            Check::A10,
            Place::Document { document: Document::Report, line: 1, section: String::new() },
            "the notebook holds SYNTHETIC data but the report never says so".into(),
        ));
    }
    // A12: the citations table.
    let mut in_citations = false;
    for l in lines {
        if l.heading.is_some() {
            in_citations = l.text.contains("Citations");
            continue;
        }
        let stated = l.text.contains(PROMPT_MARK) || l.text.contains(NO_CITATIONS);
        let Some(cells) = l.cells.as_ref().filter(|_| in_citations && !stated) else {
            continue;
        };
        // The header, and rows of the notebook's own table (reported as citations there).
        if cells.first().is_some_and(|c| c == "Figure" || nb.writing().citations.iter().any(|n| &n.figure == c)) {
            continue;
        }
        let url = cells.iter().any(|c| c.starts_with("http://") || c.starts_with("https://"));
        let date = cells.iter().any(|c| is_date(c.trim()));
        if !(url && date) {
            out.push(finding(
                Check::A12,
                at(l),
                format!(
                    "a citation without {}: “{}”",
                    if url {
                        "a retrieval date"
                    } else if date {
                        "a URL"
                    } else {
                        "a URL or a retrieval date"
                    },
                    clip(&l.text)
                ),
            ));
        }
    }
    // A13 and A15: the sections exist and are written.
    section_filled(lines, "flattering choice", Check::A13, out);
    for question in ["Performance", "Energy", "Thermals", "Placement"] {
        section_filled(lines, question, Check::A15, out);
    }
}

/// The section whose heading contains `name` exists and holds text with no
/// prompt left in it.
fn section_filled(lines: &[Line], name: &str, check: Check, out: &mut Vec<Finding>) {
    let place = |l: &Line| Place::Document { document: Document::Report, line: l.number, section: l.section.clone() };
    let Some(start) = lines.iter().position(|l| l.heading.is_some() && l.text.contains(name)) else {
        let at = Place::Document { document: Document::Report, line: 1, section: String::new() };
        out.push(finding(check, at, format!("there is no section headed “{name}”")));
        return;
    };
    let level = lines[start].heading.unwrap_or(1);
    let body: Vec<&Line> = lines[start + 1..].iter().take_while(|l| l.heading.is_none_or(|h| h > level)).collect();
    match body.iter().find(|l| l.text.contains(PROMPT_MARK)) {
        Some(l) => out.push(finding(check, place(l), format!("“{}” is not written yet", lines[start].text))),
        None if body.iter().all(|l| crate::display::is_blank(&l.text)) => {
            out.push(finding(check, place(&lines[start]), format!("“{}” is empty", lines[start].text)));
        }
        None => {}
    }
}

/// A14 on the plain-text form of ai-usage.txt.
fn ai_usage(text: &str, out: &mut Vec<Finding>) {
    let field = |label: &str| {
        text.lines()
            .enumerate()
            .find(|(_, l)| l.starts_with(label))
            .map(|(i, l)| (i + 1, l[label.len()..].trim().to_owned()))
    };
    let at = |line| Place::Document { document: Document::AiUsage, line, section: String::new() };
    let Some((line, models)) = field("Models used:") else {
        out.push(finding(Check::A14, at(1), "there is no “Models used:” line".into()));
        return;
    };
    let none = models.to_lowercase().starts_with("none");
    if models.is_empty() || models.contains(PROMPT_MARK) {
        out.push(finding(Check::A14, at(line), "the models used are not named (write “none” if none were)".into()));
    }
    if none {
        return;
    }
    for label in ["What I used them for:", "Where I overrode it, or caught it being wrong:"] {
        match field(label) {
            Some((line, v)) if v.is_empty() || v.contains(PROMPT_MARK) => {
                out.push(finding(
                    Check::A14,
                    at(line),
                    format!("“{}” is not written yet", label.trim_end_matches(':')),
                ));
            }
            Some(_) => {}
            None => out.push(finding(Check::A14, at(1), format!("there is no “{label}” line"))),
        }
    }
}

/// Words that report an average, as whole words ("meaningful" and "in the
/// meantime" are not; "means" is most often a verb).
fn mentions_mean(lower: &str) -> bool {
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "mean" | "average" | "averages" | "averaged" | "averaging" | "avg"))
}

/// An average the sentence discloses, the rule the README states: C.8.2's
/// "say its score summary is a mean" — the word mean with a phrase that says
/// it is one and why ("is a mean", "reports a mean", "C.8.2") — or a total,
/// C.8.2's honest exception.
fn disclosed_mean(lower: &str) -> bool {
    let disclosed = ["is a mean", "are means", "as a mean", "reports a mean", "reports the mean", "c.8.2"]
        .iter()
        .any(|w| lower.contains(w));
    let total = lower.split(|c: char| !c.is_alphanumeric()).any(|w| w == "total");
    (lower.contains("mean") && disclosed) || total
}

/// The kept runs' medians as the results show them: what a median written
/// in prose is checked against (A8). Worked out when the first number in
/// prose asks (a report without one never needs them: 10 000 runs' figures
/// are a noticeable part of an audit, issue 50).
struct Medians<'a> {
    nb: &'a Notebook,
    runs: std::cell::OnceCell<Vec<Median>>,
}

/// One run's median, in the unit the results show it in.
struct Median {
    run: u32,
    /// The median in the unit shown (S12), at full precision.
    value: f64,
    /// As the results show it: the unit, the place S6 rounds to (`None`
    /// when its IQR is zero and gives none), the texts.
    figures: crate::stats::units::Figures,
}

impl<'a> Medians<'a> {
    /// The kept runs' medians, leaving out the diagnostic builds the
    /// results leave out (A18), once asked for.
    fn of(nb: &'a Notebook) -> Self {
        Self { nb, runs: std::cell::OnceCell::new() }
    }

    fn runs(&self) -> &[Median] {
        self.runs.get_or_init(|| {
            self.nb
                .runs()
                .iter()
                .filter(|r| r.discarded.is_none())
                .filter(|r| !r.context().build().is_some_and(|b| crate::notebook::Optimisation::of(&b).is_diagnostic()))
                .map(|r| {
                    let figures = r.figures();
                    Median { run: r.number, value: figures.unit().scale(r.measurement.summary.median), figures }
                })
                .collect()
        })
    }

    /// A8 on a number in prose, read with the other numbers of its line:
    /// when it is a run's median written with more places than S6 gives
    /// that run, how it should read. It is a run's median when it is that
    /// median to the places written (within one unit of its last digit), in
    /// the run's unit or a time unit the run's converts to; in a clause that
    /// names runs (`run 3`) only those runs' — and it is a finding only when
    /// it is no rounding S6 allows for any run it could be. So a correct
    /// rounding is never a finding; nor is a minimum, maximum or IQR, nor a
    /// number its clause says is cited or modeled.
    fn problem(&self, n: &numbers::Number, line: &[numbers::Number]) -> Option<String> {
        const NOT_MEDIANS: [&str; 9] = ["min", "max", "minimum", "maximum", "iqr", "range", "dispersion", "p25", "p75"];
        let unit = n.unit.as_deref().filter(|_| !(n.elsewhere || NOT_MEDIANS.contains(&n.label.as_str())))?;
        let named: Vec<u32> = line.iter().filter(|m| m.clause == n.clause).filter_map(|m| m.run).collect();
        let candidates: Vec<(&Median, i32)> = self
            .runs()
            .iter()
            .filter(|m| named.is_empty() || named.contains(&m.run))
            .filter_map(|m| {
                // The written number in the run's unit, and the place of its
                // last digit there.
                let shown = m.figures.unit().name();
                let factor = if shown == unit { 1.0 } else { crate::stats::units::time_factor(unit, shown)? };
                let place = n.place() - factor.log10().round() as i32;
                let written = n.value * factor;
                ((written - m.value).abs() < 10f64.powi(-place) * (1.0 - 1e-9)).then_some((m, place))
            })
            .collect();
        if candidates.iter().any(|(m, place)| m.figures.rounded().decimals.is_none_or(|d| *place <= d)) {
            return None;
        }
        let (m, _) = candidates.first()?;
        Some(format!(
            "“{} {unit}” is run {}'s median, which its dispersion ({}) lets be written {} (S6)",
            n.text,
            m.run,
            m.figures.dispersion(),
            m.figures.median()
        ))
    }
}

/// A8 on a results row: the median's decimals match what its IQR allows.
fn rounding_problem(header: &[String], cells: &[String]) -> Option<String> {
    let col = |name: &str| header.iter().position(|h| h == name);
    let median = cells.get(col("Median")?)?;
    let dispersion = cells.get(col("Dispersion")?)?;
    let number = |text: &str| -> Option<(f64, i32)> {
        let token = text.split_whitespace().find(|t| t.parse::<f64>().is_ok())?;
        let decimals = token.split_once('.').map_or(0, |(_, d)| d.len() as i32);
        Some((token.parse().ok()?, decimals))
    };
    let (_, median_places) = number(median)?;
    let (iqr, _) = number(dispersion.trim_start_matches("IQR"))?;
    let allowed = decimals_for_dispersion(iqr)?.max(0);
    (median_places > allowed).then(|| {
        format!("median “{median}” has {median_places} decimals; its dispersion “{dispersion}” supports {allowed}")
    })
}

/// A heading as a finding names it: up to a prompt still in it ("Threat
/// Model" for "Threat Model — ✎ WRITE: device in …").
fn heading_name(text: &str) -> String {
    let name = text.split(PROMPT_MARK).next().unwrap_or(text).trim_end();
    name.trim_end_matches(['—', '-', ':']).trim_end().to_owned()
}

/// A line quoted in a finding: at most 80 characters, a prompt's mark
/// spelled in plain letters (not every font draws ✎).
fn clip(text: &str) -> String {
    let text = text.replace(PROMPT_MARK, "WRITE:");
    match text.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

fn finding(check: Check, place: Place, message: String) -> Finding {
    Finding { check, place, message }
}

/// The A7 and A21 findings of one document given as text (headings opened
/// by `#`, table rows by `|`, `**` marks dropped), read as the exported file
/// is read but with nothing of Vernier's in it: what the A21 unit tests
/// write their documents in.
#[cfg(test)]
fn forms_of_text(document: Document, text: &str) -> Vec<Finding> {
    let mut lines = Vec::new();
    let mut section = String::new();
    for raw in text.lines() {
        let raw = raw.replace("**", "");
        let raw = raw.trim();
        let hashes = raw.chars().take_while(|c| *c == '#').count();
        if hashes > 0 {
            let name = raw[hashes..].trim().to_owned();
            section = heading_name(&name);
            lines.push(Line::new(lines.len() + 1, Some(hashes as u8), section.clone(), None, name));
        } else if let Some(row) = raw.strip_prefix('|') {
            if row.chars().all(|c| matches!(c, '-' | '|' | ':' | ' ')) {
                continue;
            }
            let cells: Vec<String> = row.trim_end_matches('|').split('|').map(|c| c.trim().to_owned()).collect();
            let joined = cells.join(" | ");
            lines.push(Line::new(lines.len() + 1, None, section.clone(), Some(cells), joined));
        } else if !raw.is_empty() {
            lines.push(Line::new(lines.len() + 1, None, section.clone(), None, raw.to_owned()));
        }
    }
    let mut out = Vec::new();
    tags_and_rounding(document, &lines, None, &mut out);
    forms::check(document, &lines, &mut out);
    out
}

/// The paragraphs and table rows of a `.docx`, with headings recognised by
/// their Heading styles.
fn docx_lines(bytes: &[u8]) -> Result<Vec<Line>, String> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let entry = zip.by_name("word/document.xml").map_err(|e| e.to_string())?;
    // Room for what the entry says it holds, up to the bound read, made
    // once rather than grown (a semester's report holds 12 MB).
    let mut xml = String::with_capacity(usize::try_from(entry.size().min(MAX_DOCUMENT_BYTES)).unwrap_or(0));
    entry.take(MAX_DOCUMENT_BYTES).read_to_string(&mut xml).map_err(|e| e.to_string())?;
    body_lines(&xml)
}

/// The lines of a document's XML, read as it streams by (a semester's
/// report is a 12 MB document, most of it the results table; issue 50):
/// each paragraph of the body, and each row of a table in it, its cells'
/// text. A paragraph's or a cell's text is every `t` in it, a `br` a line
/// break, trimmed; a heading is a paragraph whose first style is
/// `HeadingN`.
fn body_lines(xml: &str) -> Result<Vec<Line>, String> {
    use quick_xml::events::Event;
    use quick_xml::name::{Namespace, ResolveResult};
    // What the DOM reader refused, this one refuses too: a character XML
    // forbids, a prefix never declared, a second root.
    if let Some(b) = xml.bytes().find(|b| *b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) {
        return Err(format!("the document holds the character U+{b:04X}, which XML forbids"));
    }
    if let Some(c) = ['\u{FFFE}', '\u{FFFF}'].into_iter().find(|c| xml.contains(*c)) {
        return Err(format!("the document holds the character U+{:04X}, which XML forbids", u32::from(c)));
    }
    let mut reader = quick_xml::NsReader::from_str(xml);
    let mut read = BodyRead::default();
    loop {
        let (ns, event) = reader.read_resolved_event().map_err(|e| e.to_string())?;
        if let ResolveResult::Unknown(prefix) = ns {
            return Err(format!("the prefix {prefix} is not declared"));
        }
        if matches!(event, Event::Start(_) | Event::Empty(_)) && read.depth == 0 && read.rooted {
            return Err("the document has a second root element".to_owned());
        }
        let in_w = matches!(ns, ResolveResult::Bound(Namespace(n)) if n == W);
        // Another namespace's element is read as one without a name.
        fn name<'e>(e: &'e quick_xml::events::BytesStart<'_>, in_w: bool) -> &'e str {
            if in_w { e.local_name().into_inner() } else { "" }
        }
        match event {
            Event::Start(e) => read.open(name(&e, in_w), || style_name(&reader, &e)),
            Event::Empty(e) => {
                read.open(name(&e, in_w), || style_name(&reader, &e));
                read.close();
            }
            Event::End(_) => read.close(),
            Event::Text(t) => read.text(&t.xml10_content()),
            Event::CData(t) => read.text(&t.xml10_content()),
            Event::GeneralRef(r) if read.in_text() => {
                let resolved = match r.resolve_char_ref().map_err(|e| e.to_string())? {
                    Some(c) => c.to_string(),
                    None => {
                        let name = r.xml10_content();
                        quick_xml::escape::resolve_predefined_entity(&name)
                            .ok_or_else(|| format!("the entity &{name}; is not XML's"))?
                            .to_owned()
                    }
                };
                read.text(&resolved);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if read.depth != 0 {
        return Err("the document ends inside an element".to_owned());
    }
    if read.body.is_none() {
        return Err("no document body".to_owned());
    }
    Ok(read.lines)
}

/// The `w:val` of a `pStyle`: its style's name.
fn style_name(reader: &quick_xml::NsReader<&[u8]>, e: &quick_xml::events::BytesStart<'_>) -> Option<String> {
    use quick_xml::name::{Namespace, ResolveResult};
    e.attributes().flatten().find_map(|a| {
        let (ns, local) = reader.resolver().resolve_attribute(a.key);
        let in_w = matches!(ns, ResolveResult::Bound(Namespace(n)) if n == W);
        (in_w && local.as_ref() == "val")
            .then(|| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok().map(std::borrow::Cow::into_owned))
            .flatten()
    })
}

/// Where [`body_lines`] is, and what it has read.
#[derive(Default)]
struct BodyRead {
    /// How deep the element now open is (the root is 1).
    depth: usize,
    /// The root element has opened.
    rooted: bool,
    /// The body's depth, once it opened.
    body: Option<usize>,
    /// The body has closed: nothing after it is read.
    body_closed: bool,
    /// The depth of the outermost `t` open: all text in it is read (a `t`
    /// in a `t` hides nothing).
    t: Option<usize>,
    /// The body's child being read, and its depth.
    within: Option<(usize, Within)>,
    section: String,
    lines: Vec<Line>,
}

/// A child of the body being read.
enum Within {
    /// Neither a paragraph nor a table (section properties, say).
    Other,
    /// A paragraph: its text so far, and its first style's name (`None`
    /// before a style; `Some(None)` for one without a name).
    Paragraph { text: String, style: Option<Option<String>> },
    /// A table: its rows so far, the row and the cell being read.
    Table { rows: Vec<Vec<String>>, row: Option<Vec<String>>, cell: Option<String> },
}

impl Within {
    /// True where a `t`'s text is read: in a paragraph, or a table's cell.
    fn takes_text(&self) -> bool {
        matches!(self, Within::Paragraph { .. } | Within::Table { cell: Some(_), .. })
    }

    /// Where a `t`'s text goes: the paragraph's, or the table cell's.
    fn text(&mut self) -> Option<&mut String> {
        match self {
            Within::Paragraph { text, .. } => Some(text),
            Within::Table { cell, .. } => cell.as_mut(),
            Within::Other => None,
        }
    }
}

impl BodyRead {
    /// An element `name` (empty when not WordprocessingML's) opens.
    fn open(&mut self, name: &str, style: impl FnOnce() -> Option<String>) {
        self.depth += 1;
        self.rooted = true;
        let depth = self.depth;
        let Some(body) = self.body else {
            if name == "body" {
                self.body = Some(depth);
            }
            return;
        };
        match &mut self.within {
            None if !self.body_closed && depth == body + 1 => {
                let within = match name {
                    "p" => Within::Paragraph { text: String::new(), style: None },
                    "tbl" => Within::Table { rows: Vec::new(), row: None, cell: None },
                    _ => Within::Other,
                };
                self.within = Some((depth, within));
            }
            None => {}
            Some((at, within)) => match (name, within) {
                ("t", within) if within.takes_text() && self.t.is_none() => self.t = Some(depth),
                ("br", within) => within.text().into_iter().for_each(|text| text.push('\n')),
                ("pStyle", Within::Paragraph { style: first @ None, .. }) => *first = Some(style()),
                ("tr", Within::Table { row, .. }) if depth == *at + 1 => *row = Some(Vec::new()),
                ("tc", Within::Table { row: Some(_), cell, .. }) if depth == *at + 2 => *cell = Some(String::new()),
                _ => {}
            },
        }
    }

    /// True inside a `t` whose text is read.
    fn in_text(&self) -> bool {
        self.t.is_some()
    }

    /// Text met: kept when it is a `t`'s.
    fn text(&mut self, text: &str) {
        if self.in_text()
            && let Some((_, within)) = &mut self.within
            && let Some(to) = within.text()
        {
            to.push_str(text);
        }
    }

    /// The element open closes.
    fn close(&mut self) {
        let depth = self.depth;
        self.depth = depth.saturating_sub(1);
        if self.t == Some(depth) {
            self.t = None;
        }
        if self.body == Some(depth) {
            self.body_closed = true;
        }
        match &mut self.within {
            Some((at, _)) if *at == depth => {
                if let Some((_, within)) = self.within.take() {
                    self.lines_of(within);
                }
            }
            Some((at, Within::Table { rows, row, cell })) => {
                if depth == *at + 2
                    && let (Some(row), Some(cell)) = (row.as_mut(), cell.take())
                {
                    row.push(cell.trim().to_owned());
                }
                if depth == *at + 1
                    && let Some(row) = row.take()
                {
                    rows.push(row);
                }
            }
            _ => {}
        }
    }

    /// The lines of a child of the body, read whole.
    fn lines_of(&mut self, within: Within) {
        match within {
            Within::Other => {}
            Within::Paragraph { text, style } => {
                let text = text.trim().to_owned();
                let heading = style.flatten().and_then(|v| v.strip_prefix("Heading").and_then(|v| v.parse().ok()));
                if heading.is_some() {
                    self.section = heading_name(&text);
                }
                self.lines.push(Line::new(self.lines.len() + 1, heading, self.section.clone(), None, text));
            }
            Within::Table { rows, .. } => {
                for cells in rows {
                    let text = cells.join(" | ");
                    self.lines.push(Line::new(self.lines.len() + 1, None, self.section.clone(), Some(cells), text));
                }
            }
        }
    }
}

/// The lines of a plain-text document as [`blocks::to_text`] writes it: a
/// heading is the line above a row of `=` or `-`.
///
/// [`blocks::to_text`]: crate::documents::blocks::to_text
fn text_lines(text: &str) -> Vec<Line> {
    let raw: Vec<&str> = text.lines().collect();
    let underline = |i: usize| {
        raw.get(i + 1).is_some_and(|u| !u.is_empty() && (u.chars().all(|c| c == '=') || u.chars().all(|c| c == '-')))
    };
    let mut lines = Vec::new();
    let mut section = String::new();
    for (i, text) in raw.iter().enumerate() {
        if i > 0 && underline(i - 1) {
            continue;
        }
        let heading = underline(i).then(|| if raw[i + 1].starts_with('=') { 1 } else { 2 });
        if heading.is_some() {
            section = heading_name(text);
        }
        lines.push(Line::new(i + 1, heading, section.clone(), None, (*text).to_owned()));
    }
    lines
}

/// The rows of measurements.xlsx's visible sheets, each sheet under a
/// heading of its name and its header row first, as a document's tables
/// are read. A line's number is its row in the sheet (the heading's, 0).
fn workbook_lines(bytes: &[u8], stem: &str) -> Result<Vec<Line>, String> {
    let sheets = documents::measurements::sheets(bytes, stem).map_err(|e| e.to_string())?;
    let mut lines = Vec::new();
    for sheet in sheets {
        let no_results = WORKBOOK_SHEETS.contains(&sheet.name.as_str());
        let line = |number: u32, cells: Option<Vec<String>>, text: String| Line {
            no_results,
            ..Line::new(number as usize, cells.is_none().then_some(1), sheet.name.clone(), cells, text)
        };
        lines.push(line(0, None, sheet.name.clone()));
        lines.push(line(1, Some(sheet.headers.clone()), sheet.headers.join(" | ")));
        for (row, values) in &sheet.rows {
            let cells: Vec<String> = values.iter().map(documents::edits::Value::text).collect();
            lines.push(line(*row, Some(cells.clone()), cells.join(" | ")));
        }
    }
    Ok(lines)
}

const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

#[cfg(test)]
mod tests {
    use super::*;

    /// A `.docx` holding `body` as its document, the WordprocessingML
    /// namespace under the prefix `x`.
    fn docx(body: &str) -> Vec<u8> {
        use std::io::Write as _;
        let xml = format!(r#"<?xml version="1.0"?><x:document xmlns:x="{W}">{body}</x:document>"#);
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        zip.start_file("word/document.xml", zip::write::SimpleFileOptions::default()).expect("entry");
        zip.write_all(xml.as_bytes()).expect("written");
        zip.finish().expect("zip").into_inner()
    }

    // SPEC A7, A20: the audit reads a document's paragraphs and table rows
    // as a person sees them: headings by style, line breaks kept, entities
    // resolved, a table's own rows (a table in a cell is that cell's text),
    // and nothing between the elements.
    #[test]
    fn a_docx_is_read_line_by_line() {
        let body = r#"<x:body>
          <x:p><x:pPr><x:pStyle x:val="Heading2"/></x:pPr><x:r><x:t>Results &amp; more</x:t></x:r></x:p>
          <x:p><x:r><x:t>one</x:t><x:br/><x:t xml:space="preserve">two &#x41;</x:t></x:r></x:p>
          <x:tbl><x:tblGrid><x:gridCol/></x:tblGrid>
            <x:tr><x:trPr/><x:tc><x:p><x:r><x:t> a </x:t></x:r></x:p></x:tc><x:tc><x:p/></x:tc></x:tr>
            <x:tr><x:tc><x:tbl><x:tr><x:tc><x:p><x:r><x:t>inner</x:t></x:r></x:p></x:tc></x:tr></x:tbl></x:tc></x:tr>
          </x:tbl>
          <x:p><x:pPr><x:pStyle x:val="Normal"/></x:pPr><x:r><x:t>plain</x:t></x:r></x:p>
          <x:p/>
          <x:sectPr/>
        </x:body>"#;
        let lines = docx_lines(&docx(body)).expect("a document");
        /// A line as the test sees it: number, heading, section, cells, text.
        type Seen<'a> = (usize, Option<u8>, &'a str, Option<&'a Vec<String>>, &'a str);
        let seen: Vec<Seen<'_>> = lines
            .iter()
            .map(|l| (l.number, l.heading, l.section.as_str(), l.cells.as_ref(), l.text.as_str()))
            .collect();
        let cells = |c: &[&str]| c.iter().map(|s| (*s).to_owned()).collect::<Vec<String>>();
        let (first, second) = (cells(&["a", ""]), cells(&["inner"]));
        let section = "Results & more";
        assert_eq!(
            seen,
            vec![
                (1, Some(2), section, None, section),
                (2, None, section, None, "one\ntwo A"),
                (3, None, section, Some(&first), "a | "),
                (4, None, section, Some(&second), "inner"),
                (5, None, section, None, "plain"),
                (6, None, section, None, ""),
            ]
        );
        // What cannot be read is said, never passed over.
        assert_eq!(docx_lines(&docx("<x:p/>")).err().as_deref(), Some("no document body"));
        assert!(docx_lines(&docx("<x:body><x:p><x:r><x:t>&nope;</x:t></x:r></x:p></x:body>")).is_err());
        assert!(docx_lines(&docx("<x:body><x:p></x:tbl></x:body>")).is_err());
        // What the DOM reader refused (issue 50's streamed read keeps it so).
        for refused in [
            "<x:body><zz:p/></x:body>",
            "<x:body><x:p><x:r><x:t>a\u{1}b</x:t></x:r></x:p></x:body>",
            "<x:body><x:p><x:r><x:t>a\u{FFFF}b</x:t></x:r></x:p></x:body>",
        ] {
            assert!(docx_lines(&docx(refused)).is_err(), "{refused}");
        }
        let two_roots = format!(
            r#"<?xml version="1.0"?><x:document xmlns:x="{W}"><x:body/></x:document><x:document xmlns:x="{W}"/>"#
        );
        assert!(body_lines(&two_roots).is_err());
        // A t in a t hides nothing of either.
        let nested =
            docx_lines(&docx("<x:body><x:p><x:r><x:t>a<x:t>b</x:t>c</x:t></x:r></x:p></x:body>")).expect("read");
        assert_eq!(nested.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(), ["abc"]);
    }

    /// The lines as the DOM reader the audit used before read them: what
    /// the streaming read must give (issue 50).
    fn dom_lines(bytes: &[u8]) -> Result<Vec<Line>, String> {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
        let mut xml = String::new();
        zip.by_name("word/document.xml")
            .map_err(|e| e.to_string())?
            .read_to_string(&mut xml)
            .map_err(|e| e.to_string())?;
        let doc = roxmltree::Document::parse(&xml).map_err(|e| e.to_string())?;
        let text = |node: roxmltree::Node<'_, '_>| {
            node.descendants()
                .filter_map(|n| match n.tag_name().name() {
                    "t" if n.tag_name().namespace() == Some(W) => n.text(),
                    "br" if n.tag_name().namespace() == Some(W) => Some("\n"),
                    _ => None,
                })
                .collect::<String>()
                .trim()
                .to_owned()
        };
        let body = doc.descendants().find(|n| n.has_tag_name((W, "body"))).ok_or("no document body")?;
        let (mut lines, mut section) = (Vec::new(), String::new());
        for node in body.children().filter(roxmltree::Node::is_element) {
            if node.has_tag_name((W, "p")) {
                let heading = node
                    .descendants()
                    .find(|n| n.has_tag_name((W, "pStyle")))
                    .and_then(|n| n.attribute((W, "val")))
                    .and_then(|v| v.strip_prefix("Heading"))
                    .and_then(|v| v.parse().ok());
                let t = text(node);
                if heading.is_some() {
                    section = heading_name(&t);
                }
                lines.push(Line::new(lines.len() + 1, heading, section.clone(), None, t));
            } else if node.has_tag_name((W, "tbl")) {
                for row in node.children().filter(|n| n.has_tag_name((W, "tr"))) {
                    let cells: Vec<String> = row.children().filter(|n| n.has_tag_name((W, "tc"))).map(text).collect();
                    let t = cells.join(" | ");
                    lines.push(Line::new(lines.len() + 1, None, section.clone(), Some(cells), t));
                }
            }
        }
        Ok(lines)
    }

    // SPEC A7, A20 (issue 50): the document read as it streams by gives
    // the lines the DOM reader gave, on documents laid out every way a
    // writer may lay them out.
    #[test]
    fn a_docx_streamed_reads_as_its_tree_does() {
        let bodies = [
            r#"<x:body><x:p><x:pPr><x:pStyle x:val="Heading1"/></x:pPr><x:r><x:t>Title</x:t></x:r></x:p>
               <x:p><x:r><x:t>a</x:t></x:r><x:r><x:t xml:space="preserve"> b </x:t><x:br/></x:r></x:p></x:body>"#,
            r#"<x:body><x:p><x:pPr><x:pStyle/><x:pStyle x:val="Heading2"/></x:pPr><x:r><x:t>not a heading</x:t></x:r></x:p></x:body>"#,
            r#"<x:body><x:p><x:pPr><x:pStyle x:val="Heading9x"/></x:pPr><x:r><x:t>odd</x:t></x:r></x:p></x:body>"#,
            r#"<x:body><x:p><o:x xmlns:o="urn:other"><x:r><x:t>inside another's</x:t></x:r><o:t>not ours</o:t></o:x></x:p></x:body>"#,
            r#"<x:body><x:p><x:r><x:t><![CDATA[x < y]]></x:t><x:t>&#233;&lt;&gt;&quot;&apos;</x:t></x:r></x:p></x:body>"#,
            r#"<x:body><x:tbl><x:tblPr><x:tblStyle x:val="T"/></x:tblPr><x:tr><x:tc><x:p><x:r><x:t>1</x:t></x:r></x:p><x:p><x:r><x:t>2</x:t></x:r></x:p></x:tc>
               <x:tc><x:tcPr/></x:tc><x:tc/></x:tr><x:tr/></x:tbl><x:tbl/><x:p/></x:body>"#,
            r#"<x:body><x:tbl><x:tr><x:tc><x:tbl><x:tr><x:tc><x:p><x:r><x:t>deep</x:t><x:br/></x:r></x:p></x:tc><x:tc><x:p><x:r><x:t>er</x:t></x:r></x:p></x:tc></x:tr></x:tbl></x:tc></x:tr></x:tbl></x:body>"#,
            r#"<x:body><x:p><x:r><x:t>in body</x:t></x:r></x:p></x:body><x:p><x:r><x:t>after the body</x:t></x:r></x:p>"#,
            r#"<x:wrap><x:body><x:sectPr><x:p><x:r><x:t>under properties</x:t></x:r></x:p></x:sectPr><x:p>
               <x:r><x:t>line one&#10;still one</x:t></x:r></x:p></x:body></x:wrap>"#,
            r#"<x:body><w:p xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:r><w:t>another prefix</w:t></w:r></w:p>
               <p xmlns="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><r><t>no prefix</t></r></p></x:body>"#,
        ];
        for body in bodies {
            let bytes = docx(body);
            let (streamed, tree) = (docx_lines(&bytes).expect(body), dom_lines(&bytes).expect(body));
            assert!(!tree.is_empty(), "{body}");
            assert_eq!(streamed, tree, "{body}");
        }
    }

    // SPEC A8: more decimals than the IQR supports is a finding.
    #[test]
    fn rounding_follows_the_dispersion() {
        let h: Vec<String> = ["Experiment", "Median", "Dispersion"].map(String::from).to_vec();
        let row = |m: &str, d: &str| vec!["x".to_owned(), m.to_owned(), d.to_owned()];
        assert_eq!(rounding_problem(&h, &row("12.5 ms", "IQR 0.2 ms")), None);
        assert!(rounding_problem(&h, &row("12.4567 ms", "IQR 0.2 ms")).is_some());
        assert_eq!(rounding_problem(&h, &row("12 ms", "IQR 3 ms")), None);
    }
}
