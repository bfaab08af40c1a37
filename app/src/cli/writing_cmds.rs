//! `vernier write` and `vernier cite` (SPEC D2): what only the student can
//! write in the documents, kept in the notebook so every export has it.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use clap::Args;
use vernier_engine::bounded;
use vernier_engine::display;
use vernier_engine::documents::{self, PromptState, WritingState};
use vernier_engine::notebook::{Citation, Document, Tag, WHOLE_DOCUMENT, store};

use super::notebook_cmds::{change, open};
use super::{CommandResult, Failure, table};

/// `vernier write`.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// The notebook folder.
    dir: PathBuf,
    /// The document, e.g. report.docx; without it, every prompt is listed.
    document: Option<String>,
    /// The prompt's number in that document's list.
    prompt: Option<usize>,
    /// The answer (`-` reads it from standard input; empty clears it).
    #[arg(allow_hyphen_values = true)]
    text: Option<String>,
    /// Mark the prompt (or, with no prompt number, the whole document) as
    /// not part of this submission, with the reason the document will print
    /// (A16); an empty reason makes it part of the submission again.
    #[arg(long, value_name = "REASON", conflicts_with = "text", requires = "document", allow_hyphen_values = true)]
    na: Option<String>,
}

/// `vernier cite`.
#[derive(Debug, Args)]
pub struct CiteArgs {
    /// The notebook folder.
    dir: PathBuf,
    /// What the figure is.
    #[arg(long, requires = "value", allow_hyphen_values = true)]
    figure: Option<String>,
    /// The value with its unit.
    #[arg(long, requires = "figure", allow_hyphen_values = true)]
    value: Option<String>,
    /// Where it was read (http or https).
    #[arg(long, default_value = "")]
    url: String,
    /// When it was read, YYYY-MM-DD.
    #[arg(long, default_value = "")]
    retrieved: String,
    /// The figure comes from a model, not a source (tag MODELED).
    #[arg(long)]
    modeled: bool,
    /// Remove citation N instead.
    #[arg(long, conflicts_with = "figure")]
    remove: Option<usize>,
    /// State that the report cites no figure (the citations table says so).
    #[arg(long, conflicts_with_all = ["figure", "remove", "cites"])]
    none: bool,
    /// Take back --none.
    #[arg(long, conflicts_with_all = ["figure", "remove"])]
    cites: bool,
}

pub fn write(args: &WriteArgs) -> CommandResult {
    let Some(document) = &args.document else {
        return list(&args.dir);
    };
    let document = Document::from_stem(document).filter(|d| documents::template(*d).is_some()).ok_or_else(|| {
        Failure::input(anyhow!("'{document}' has nothing to write; the documents with prompts are: {}", with_prompts()))
    })?;
    let stem = document.stem();
    let prompts = documents::prompts(document);
    let Some(number) = args.prompt else {
        if let Some(reason) = &args.na {
            return change(&args.dir, |nb| {
                let was = nb.writing().not_part(stem, WHOLE_DOCUMENT).is_some();
                nb.set_not_part(stem, WHOLE_DOCUMENT, reason)?;
                Ok(not_part_said(stem, reason, was))
            });
        }
        return list_one(&args.dir, document);
    };
    let prompt = number
        .checked_sub(1)
        .and_then(|i| prompts.get(i))
        .ok_or_else(|| Failure::input(anyhow!("{stem} has prompts 1 to {}, not {number}", prompts.len())))?;
    if let Some(reason) = &args.na {
        return change(&args.dir, |nb| {
            let was = nb.writing().not_part(stem, prompt).is_some();
            nb.set_not_part(stem, prompt, reason)?;
            Ok(not_part_said(&format!("{stem}: “{prompt}”"), reason, was))
        });
    }
    let text = match args.text.as_deref() {
        // An answer that alone passes the notebook's load limit could never
        // be saved, so no more than that is read.
        Some("-") => {
            let bytes = bounded::read_stream(
                std::io::stdin(),
                Path::new("standard input"),
                store::MAX_NOTEBOOK_BYTES,
                "an answer",
            )
            .map_err(Failure::input)?;
            String::from_utf8(bytes).map_err(|e| Failure::input(anyhow!("standard input is not UTF-8 text: {e}")))?
        }
        Some(text) => text.to_owned(),
        None => return Err(Failure::input(anyhow!("give the answer after the prompt number (or - to read it)"))),
    };
    change(&args.dir, |nb| {
        nb.set_answer(stem, prompt, &text);
        Ok(if text.trim().is_empty() {
            format!("{stem}: cleared “{prompt}”")
        } else {
            format!("{stem}: answered “{prompt}”")
        })
    })
}

/// What `write --na` says it did; `was` is whether it was marked before.
fn not_part_said(what: &str, reason: &str, was: bool) -> String {
    match (display::is_blank(reason), was) {
        (true, true) => format!("{what} is part of this submission again"),
        (true, false) => format!("{what} is part of this submission (it was not marked otherwise)"),
        (false, _) => {
            format!("{what} marked not part of this submission: {}", display::inert_line(reason.trim().to_owned()))
        }
    }
}

pub fn cite(args: &CiteArgs) -> CommandResult {
    if args.none || args.cites {
        return change(&args.dir, |nb| {
            nb.set_no_citations(args.none)?;
            Ok(if args.none {
                "stated: the report cites no figure from a source".to_owned()
            } else {
                "the citations table asks for citations again".to_owned()
            })
        });
    }
    if let Some(n) = args.remove {
        return change(&args.dir, |nb| nb.remove_citation(n).map(|c| format!("removed citation {n} ({})", c.figure)));
    }
    let (Some(figure), Some(value)) = (&args.figure, &args.value) else {
        let nb = open(&args.dir)?;
        let rows: Vec<Vec<String>> = nb
            .writing()
            .citations
            .iter()
            .enumerate()
            .map(|(i, c)| {
                vec![
                    (i + 1).to_string(),
                    c.figure.clone(),
                    c.value.clone(),
                    c.url.clone(),
                    c.retrieved.clone(),
                    c.tag.to_string(),
                ]
            })
            .collect();
        out!("{}", table::render(&["#", "Figure", "Value", "Source (URL)", "Retrieved", "Tag"], &rows));
        return Ok(0);
    };
    let citation = Citation {
        figure: figure.clone(),
        value: value.clone(),
        url: args.url.clone(),
        retrieved: args.retrieved.clone(),
        tag: if args.modeled { Tag::Modeled } else { Tag::Cited },
    };
    change(&args.dir, |nb| {
        let n = nb.add_citation(citation.clone())?;
        let c = &nb.writing().citations[n - 1];
        let missing: Vec<&str> = [(c.url.is_empty(), "a URL"), (c.retrieved.is_empty(), "a retrieval date")]
            .into_iter()
            .filter_map(|(m, w)| m.then_some(w))
            .collect();
        Ok(if missing.is_empty() {
            format!("added citation {n}")
        } else {
            format!("added citation {n}; it still needs {} (the audit will say so)", missing.join(" and "))
        })
    })
}

/// Every document's prompts, numbered, with whether each is written.
fn list(dir: &Path) -> CommandResult {
    for document in Document::ALL.into_iter().filter(|d| documents::template(*d).is_some()) {
        list_one(dir, document)?;
    }
    Ok(0)
}

fn list_one(dir: &Path, document: Document) -> CommandResult {
    let stem = document.stem();
    let nb = open(dir)?;
    // Where it stands as the window counts it (one place for both).
    let prompts = match documents::writing(&nb, document) {
        WritingState::NotPart(reason) => {
            out!("{stem} — not part of this submission: {}", display::inert_line(reason));
            return Ok(0);
        }
        WritingState::Prompts(prompts) => prompts,
    };
    out!("{stem}");
    for (i, (prompt, state)) in prompts.into_iter().enumerate() {
        let state = match state {
            PromptState::Written => "written".to_owned(),
            PromptState::NotPart(reason) => format!("not part: {}", display::inert_line(reason)),
            PromptState::ToWrite => "to write".to_owned(),
        };
        out!("  {:>2}. [{state}] {prompt}", i + 1);
    }
    Ok(0)
}

fn with_prompts() -> String {
    let with: Vec<&str> =
        Document::ALL.into_iter().filter(|d| documents::template(*d).is_some()).map(Document::stem).collect();
    with.join(", ")
}
