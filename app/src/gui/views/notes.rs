//! Notes and anomalies (SPEC N2, N5): time-stamped lines; every discard
//! appears here with its reason.

use egui::{RichText, Ui};

use super::{Context, hint};
use crate::gui::AppCommand;
use vernier_engine::notebook::pending::Edit;

/// What the Notes and anomalies section keeps between frames.
#[derive(Default)]
pub struct State {
    /// The note being typed.
    pub new_note: String,
}

impl super::SectionView for State {
    /// The log's own name (N2: identical in the window and the workbook);
    /// one past the end of `SECTIONS` does not compile.
    const TITLE: &'static str = vernier_engine::notebook::SECTIONS[4];

    fn count(nb: &vernier_engine::notebook::Notebook) -> Option<usize> {
        Some(nb.notes().len())
    }

    fn ui(&mut self, ui: &mut Ui, cx: &mut Context<'_>) {
        notes_ui(ui, self, cx);
    }
}

fn notes_ui(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    ui.horizontal(|ui| {
        let label = ui.label("Note");
        let edit = ui
            .add(
                egui::TextEdit::singleline(&mut state.new_note)
                    .hint_text("what happened: a discarded run, a machine that woke up, a result you cannot explain")
                    .desired_width(640.0),
            )
            .labelled_by(label.id);
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let typed = !state.new_note.trim().is_empty();
        if (ui.add_enabled(typed, egui::Button::new("Add note")).clicked() || enter) && typed {
            cx.commands.push(AppCommand::Edit(Edit::AddNote {
                text: std::mem::take(&mut state.new_note),
                at: chrono::Utc::now(),
            }));
        }
    });
    ui.add_space(6.0);
    if cx.notebook.notes().is_empty() {
        hint(ui, "No notes yet. Every discarded run is listed here with its reason.");
    }
    // A grid gives its cells all the width they ask for: a note is wrapped
    // to what is left of the window beside its time, never run off its edge.
    let mono = egui::TextStyle::Monospace.resolve(ui.style());
    let time_width = 16.0 * ui.fonts_mut(|f| f.glyph_width(&mono, '0'));
    let text_width = (ui.available_width() - time_width - 14.0 - 8.0).max(200.0);
    egui::Grid::new("notes").striped(true).spacing([14.0, 6.0]).show(ui, |ui| {
        for note in cx.notebook.notes().iter().rev() {
            ui.label(RichText::new(note.at.format("%Y-%m-%d %H:%M").to_string()).monospace().weak());
            // A note may come from someone's workbook: inert, lines kept (SPEC N10).
            let text = RichText::new(vernier_engine::display::inert_multiline(&note.text));
            let text = if note.about.is_some() { text.strong() } else { text };
            match &note.source {
                // N12: a note taken in from a workbook says where it came
                // from, on a small line of its own in the same cell.
                Some(source) => {
                    let style = ui.style().clone();
                    let mut job = egui::text::LayoutJob::default();
                    let align = egui::Align::LEFT;
                    text.append_to(&mut job, &style, egui::FontSelection::Default, align);
                    let source = RichText::new(format!("\n{}", vernier_engine::display::inert(source)));
                    source.small().weak().append_to(&mut job, &style, egui::FontSelection::Default, align);
                    job.wrap.max_width = text_width;
                    ui.label(job);
                }
                None => {
                    ui.scope(|ui| {
                        ui.set_max_width(text_width);
                        ui.add(egui::Label::new(text).wrap());
                    });
                }
            }
            ui.end_row();
        }
    });
}
