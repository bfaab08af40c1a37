//! The Documents section (SPEC D1, D2): the six fixed submission documents,
//! the parts of each only the student can write (edited here and kept in
//! the notebook), the citations table, and the export.

use egui::{RichText, Ui};
use vernier_engine::documents::{self, WritingState, placement_decision};
use vernier_engine::notebook::{Budget, Citation, Document, Tag, WHOLE_DOCUMENT};

use super::{Context, hint};
use crate::gui::AppCommand;
use vernier_engine::display::inert;
use vernier_engine::notebook::pending::Edit;

/// What the Documents section keeps between frames.
#[derive(Default)]
pub struct State {
    /// The document open in the Documents section.
    pub document: Document,
    /// Answers being typed, by (document, prompt).
    pub answer_drafts: std::collections::HashMap<(&'static str, &'static str), String>,
    /// The reasons being typed for parts marked not part of the submission
    /// (A16), by document and prompt (or the whole-document key).
    pub not_part_drafts: std::collections::HashMap<(&'static str, &'static str), String>,
    /// The citation being typed.
    pub citation: CitationForm,
    /// Placement deadlines being typed, by workload.
    pub budgets: std::collections::BTreeMap<String, BudgetDraft>,
    /// The prompt or citation an audit finding opened (SPEC A, U1).
    pub opened: super::Opened<Spot>,
    /// What that finding said, shown above the document until another
    /// document is chosen.
    pub finding: Option<String>,
    /// The last export of this session: each document with its unwritten parts.
    pub exported: Option<crate::gui::io::Unwritten>,
}

impl State {
    /// The six documents written: what each still leaves to write is
    /// shown, and said.
    pub fn exported(&mut self, unwritten: crate::gui::io::Unwritten, asks: &mut Vec<AppCommand>) {
        let left: usize = unwritten.iter().map(|(_, w)| w.to_write()).sum();
        let text = format!("exported the six documents to exports/; {left} part(s) still to write");
        asks.push(AppCommand::Say { text, error: false });
        self.exported = Some(unwritten);
    }

    /// Opens the document an audit finding points at, with the prompt or
    /// citation it names marked, and says the finding above it.
    pub fn jump(&mut self, finding: &vernier_engine::audit::Finding, nb: &vernier_engine::notebook::Notebook) {
        use vernier_engine::audit::Place;
        match &finding.place {
            Place::Citation { number } => {
                self.document = Document::Report;
                self.opened.open(Spot::Citation(*number));
            }
            // The prompt under the line's heading; a line all of Vernier's
            // (Method, Results) is named above the document, with what the
            // finding says of it.
            Place::Document { document, section, .. } => {
                self.document = *document;
                // The prompt the finding quotes, else the section's only
                // one; never a guess among several.
                let prompts = documents::prompts_under(*document, section, &nb.title);
                let only = if prompts.len() == 1 { prompts.first() } else { None };
                match prompts.iter().find(|p| finding.message.contains(*p)).or(only) {
                    Some(prompt) => self.opened.open(Spot::Prompt(prompt)),
                    None => self.opened.target = None,
                }
            }
            _ => {}
        }
        self.finding = Some(format!("{}: {}", finding.place, finding.message));
    }
}

/// A place in the Documents section an audit finding can open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spot {
    /// A prompt of the document shown.
    Prompt(&'static str),
    /// A row of the report's citations table, 1-based.
    Citation(usize),
}

/// The citation being typed.
#[derive(Debug, Clone, Default)]
pub struct CitationForm {
    figure: String,
    value: String,
    url: String,
    retrieved: String,
    modeled: bool,
    refused: Option<String>,
}

impl super::SectionView for State {
    const TITLE: &'static str = "Documents";

    fn ui(&mut self, ui: &mut Ui, cx: &mut Context<'_>) {
        documents_ui(ui, self, cx);
    }
}

pub fn documents_ui(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    ui.horizontal(|ui| {
        if ui.button("Export the six documents").on_hover_text("Ctrl+E").clicked() {
            cx.commands.push(AppCommand::Export);
        }
        let exports = cx.dir.join(vernier_engine::notebook::store::EXPORTS_DIR);
        ui.label(RichText::new(format!("into {}", vernier_engine::display::path(&exports))).weak());
    });
    ui.add_space(6.0);
    ui.horizontal_wrapped(|ui| {
        for (document, writing) in cx.unwritten {
            let document = *document;
            // The same count as `vernier write`'s list; the workbook has
            // nothing to write, it is filled from the log.
            let text = match (writing, writing.to_write()) {
                (WritingState::NotPart(_), _) => format!("{document} · not part of this submission"),
                (_, 0) => format!("✔ {document}"),
                (_, left) => format!("{document} · {left} to write"),
            };
            if ui.selectable_label(state.document == document, text).clicked() {
                state.document = document;
                state.finding = None;
            }
        }
    });
    if let Some(when) = &state.exported {
        let total: usize = when.iter().map(|(_, w)| w.to_write()).sum();
        ui.label(RichText::new(format!("Exported in this session; {total} part(s) were still to write then.")).weak());
    }
    ui.separator();
    if let Some(finding) = &state.finding {
        ui.colored_label(ui.visuals().warn_fg_color, format!("⚠ audit: {}", inert(finding)));
    }
    let document = state.document;
    egui::ScrollArea::vertical().auto_shrink([false; 2]).show(ui, |ui| {
        if document == Document::Measurements {
            hint(
                ui,
                "The workbook is the log itself: one sheet per section, filled from the notebook. Nothing to write.",
            );
        } else {
            prompts_ui(ui, state, cx, document);
        }
        if document == Document::Report {
            ui.add_space(10.0);
            citations_ui(ui, state, cx);
        }
        if document == Document::PlacementDecision {
            ui.add_space(10.0);
            placement_ui(ui, state, cx);
        }
    });
}

/// One text box per prompt, committed when the box is left.
fn prompts_ui(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>, document: Document) {
    let stem = document.stem();
    hint(
        ui,
        "Machine, build, conditions, results, provenance, soak and charts come from the notebook. \
         For a table, write one row per line with cells separated by |.",
    );
    ui.add_space(4.0);
    if !document.always_part() {
        let whole = format!("The whole of {stem} is not part of this submission");
        if not_part_ui(ui, state, cx, stem, WHOLE_DOCUMENT, &whole) {
            return;
        }
        ui.add_space(6.0);
    }
    for prompt in documents::prompts(document) {
        let saved = cx.notebook.writing().answer(stem, prompt).unwrap_or("").to_owned();
        let left_out = cx.notebook.writing().not_part(stem, prompt).is_some();
        let mark = if !saved.is_empty() || left_out { "✔" } else { "○" };
        let spot = Spot::Prompt(prompt);
        let label = ui.label(state.opened.mark(&spot, RichText::new(format!("{mark} {prompt}")).strong(), ui));
        if state.opened.take_scroll(&spot) {
            label.scroll_to_me(Some(egui::Align::Center));
        }
        if saved.is_empty() && not_part_ui(ui, state, cx, stem, prompt, "Not part of this submission") {
            ui.add_space(4.0);
            continue;
        }
        let draft = state.answer_drafts.entry((stem, prompt)).or_insert_with(|| saved.clone());
        let response = ui
            .add(
                egui::TextEdit::multiline(draft)
                    .id_salt(("answer", stem, prompt))
                    .desired_rows(2)
                    .desired_width(f32::INFINITY)
                    .hint_text("not written yet"),
            )
            .labelled_by(label.id);
        if response.lost_focus() && *draft != saved {
            cx.commands.push(AppCommand::Edit(Edit::Answer {
                document: stem.to_owned(),
                prompt: prompt.to_owned(),
                text: draft.clone(),
            }));
        } else if !response.has_focus() && !response.lost_focus() && *draft != saved {
            // Another notebook was opened under the draft.
            *draft = saved;
        }
        ui.add_space(4.0);
    }
}

/// A16: the box that marks a prompt (or the whole document) as not part of
/// this submission, and once ticked the reason the document will print
/// instead of the prompt, saved when the box is left. True while it is
/// marked (or being marked), so the caller shows no answer box.
fn not_part_ui(
    ui: &mut Ui,
    state: &mut State,
    cx: &mut Context<'_>,
    stem: &'static str,
    prompt: &'static str,
    label: &str,
) -> bool {
    let saved = cx.notebook.writing().not_part(stem, prompt).map(str::to_owned);
    let key = (stem, prompt);
    let mut ticked = saved.is_some() || state.not_part_drafts.contains_key(&key);
    if ui.checkbox(&mut ticked, label).changed() {
        if ticked {
            state.not_part_drafts.insert(key, saved.clone().unwrap_or_default());
        } else {
            state.not_part_drafts.remove(&key);
            if saved.is_some() {
                cx.commands.push(AppCommand::Edit(Edit::NotPart {
                    document: stem.to_owned(),
                    prompt: prompt.to_owned(),
                    reason: String::new(),
                }));
            }
        }
    }
    if !ticked {
        return false;
    }
    let draft = state.not_part_drafts.entry(key).or_insert_with(|| saved.clone().unwrap_or_default());
    let response = ui
        .horizontal(|ui| {
            let label = ui.label("Reason:");
            ui.add(
                egui::TextEdit::singleline(draft)
                    .id_salt(("not part", stem, prompt))
                    .desired_width(f32::INFINITY)
                    .hint_text("why it is not part of this submission (the document prints this)"),
            )
            .labelled_by(label.id)
        })
        .inner;
    if response.lost_focus() && !draft.trim().is_empty() && Some(draft.trim()) != saved.as_deref() {
        cx.commands.push(AppCommand::Edit(Edit::NotPart {
            document: stem.to_owned(),
            prompt: prompt.to_owned(),
            reason: draft.clone(),
        }));
    }
    if saved.is_none() && !response.has_focus() {
        hint(ui, "Write the reason and leave the box to save it.");
    }
    true
}

/// The report's citations table (A12: every row needs a URL and a date).
fn citations_ui(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    ui.label(RichText::new("Citations — every cited figure with its URL and retrieval date").strong());
    let citations = &cx.notebook.writing().citations;
    if citations.is_empty() {
        let mut none = cx.notebook.writing().no_citations;
        if ui.checkbox(&mut none, "This report cites no figure from a source").changed() {
            cx.commands.push(AppCommand::Edit(Edit::NoCitations(none)));
        }
        if !none {
            hint(ui, "No citations yet.");
        }
    }
    egui::Grid::new("citations").striped(true).spacing([12.0, 4.0]).show(ui, |ui| {
        for title in ["#", "Figure", "Value", "Source (URL)", "Retrieved", "Tag", ""] {
            ui.label(RichText::new(title).strong());
        }
        ui.end_row();
        for (i, c) in citations.iter().enumerate() {
            let spot = Spot::Citation(i + 1);
            let number = ui.label(state.opened.mark(&spot, RichText::new((i + 1).to_string()), ui));
            if state.opened.take_scroll(&spot) {
                number.scroll_to_me(Some(egui::Align::Center));
            }
            ui.label(&c.figure);
            ui.label(&c.value);
            missing_or(ui, &c.url);
            missing_or(ui, &c.retrieved);
            ui.label(c.tag.as_str());
            if ui.small_button("Remove").clicked() {
                cx.commands.push(AppCommand::Edit(Edit::RemoveCitation(i + 1)));
            }
            ui.end_row();
        }
    });
    ui.add_space(4.0);
    let form = &mut state.citation;
    ui.horizontal_wrapped(|ui| {
        for (name, text, width) in [
            ("Figure", &mut form.figure, 180.0),
            ("Value", &mut form.value, 90.0),
            ("URL", &mut form.url, 220.0),
            ("Retrieved", &mut form.retrieved, 90.0),
        ] {
            let label = ui.label(name);
            let hint = if name == "Retrieved" { "YYYY-MM-DD" } else { "" };
            // A stable id: prompts above may show or hide a box, and an
            // automatic id would move and take the keyboard focus with it.
            let edit =
                egui::TextEdit::singleline(text).id_salt(("citation", name)).desired_width(width).hint_text(hint);
            ui.add(edit).labelled_by(label.id);
        }
        ui.checkbox(&mut form.modeled, "MODELED");
        if ui.button("Add citation").clicked() {
            let citation = Citation {
                figure: form.figure.clone(),
                value: form.value.clone(),
                url: form.url.clone(),
                retrieved: form.retrieved.clone(),
                tag: if form.modeled { Tag::Modeled } else { Tag::Cited },
            };
            // Checked here too, so a refused row keeps what was typed.
            match citation.checked() {
                Ok(citation) => {
                    cx.commands.push(AppCommand::Edit(Edit::AddCitation(citation)));
                    *form = CitationForm::default();
                }
                Err(e) => form.refused = Some(e.to_string()),
            }
        }
        // Beside the button, where the eye is when it is pressed.
        if let Some(why) = &form.refused {
            ui.colored_label(ui.visuals().error_fg_color, why);
        }
    });
}

/// A deadline being typed for one workload: (kept, deadline ms, runs per s).
pub type BudgetDraft = (bool, String, String);

/// The placement table's deadlines (D6), over the shipped synthetic dataset,
/// with the table they give shown as it will be exported.
fn placement_ui(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    ui.label(RichText::new("Placement table — a deadline per workload (shipped SYNTHETIC dataset, MODELED)").strong());
    let entries = placement_decision::parse(placement_decision::SHIPPED).unwrap_or_default();
    let mut workloads: Vec<&str> = entries.iter().map(|e| e.workload.as_str()).collect();
    workloads.dedup();
    let kept = &cx.notebook.writing().deadlines;
    if state.budgets.is_empty() {
        for w in &workloads {
            let saved = kept.iter().find(|b| b.workload == *w);
            state.budgets.insert(
                (*w).to_owned(),
                (
                    saved.is_some(),
                    saved.map(|b| b.deadline_ms.to_string()).unwrap_or_default(),
                    saved.and_then(|b| b.rate_per_s).map(|r| r.to_string()).unwrap_or_default(),
                ),
            );
        }
    }
    egui::Grid::new("budgets").striped(true).spacing([12.0, 4.0]).show(ui, |ui| {
        for title in ["Workload", "Deadline (ms)", "Runs per second (optional)"] {
            ui.label(RichText::new(title).strong());
        }
        ui.end_row();
        for w in &workloads {
            let Some((on, deadline, rate)) = state.budgets.get_mut(*w) else { continue };
            ui.checkbox(on, *w);
            let d = ui.add_enabled(*on, egui::TextEdit::singleline(deadline).desired_width(90.0).hint_text("ms"));
            d.on_hover_text(format!("deadline for {w}"));
            ui.add_enabled(*on, egui::TextEdit::singleline(rate).desired_width(90.0).hint_text("/s"));
            ui.end_row();
        }
    });
    let parsed: Result<Vec<Budget>, String> = workloads
        .iter()
        .filter_map(|w| state.budgets.get(*w).filter(|b| b.0).map(|b| (w, b)))
        .map(|(w, (_, deadline, rate))| {
            let number = |text: &str, what: &str| {
                text.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v > 0.0)
                    .ok_or(format!("{w}: {what} must be a positive number"))
            };
            Ok(Budget {
                workload: (*w).to_owned(),
                deadline_ms: number(deadline, "the deadline")?,
                rate_per_s: if rate.trim().is_empty() { None } else { Some(number(rate, "the rate")?) },
            })
        })
        .collect();
    ui.horizontal(|ui| match &parsed {
        Ok(budgets) => {
            let by_name = |list: &[Budget]| {
                let mut list = list.to_vec();
                list.sort_by(|a, b| a.workload.cmp(&b.workload));
                list
            };
            let changed = by_name(budgets) != by_name(kept);
            if ui.add_enabled(changed, egui::Button::new("Keep these deadlines")).clicked() {
                cx.commands.push(AppCommand::Edit(Edit::SetDeadlines(budgets.clone())));
            }
            if !changed {
                ui.label(RichText::new("kept in the notebook").weak());
            }
        }
        Err(why) => {
            ui.colored_label(ui.visuals().error_fg_color, why);
        }
    });
    if kept.is_empty() {
        return;
    }
    let budgets = kept.iter().map(|b| (b.workload.clone(), b.deadline_ms)).collect();
    let rates = kept.iter().filter_map(|b| b.rate_per_s.map(|r| (b.workload.clone(), r))).collect();
    egui::Grid::new("placement-table").striped(true).spacing([12.0, 4.0]).show(ui, |ui| {
        for title in ["Workload", "Processor", "Why (and what it beat)", "What it costs"] {
            ui.label(RichText::new(title).strong());
        }
        ui.end_row();
        for d in placement_decision::decide(&entries, &budgets, &rates) {
            ui.label(d.workload);
            ui.label(d.processor);
            ui.scope(|ui| {
                ui.set_width(460.0);
                ui.add(egui::Label::new(d.why).wrap());
            });
            ui.label(d.cost);
            ui.end_row();
        }
    });
}

fn missing_or(ui: &mut Ui, text: &str) {
    if text.is_empty() {
        ui.colored_label(ui.visuals().warn_fg_color, "missing");
    } else {
        ui.label(text);
    }
}
