//! The Environment section: ten fields, editable at any time (SPEC N2).

use egui::{RichText, Ui};
use vernier_engine::notebook::{EnvField, Environment, Notebook};

use super::{Context, ViewState};
use crate::gui::AppCommand;
use vernier_engine::display::inert;

/// The hints of the last notebook they were worked out for: with 10 000
/// runs they take milliseconds, so they are not redone every frame.
#[derive(Debug, Default)]
pub struct HintCache {
    /// The notebook, its rows (which are only ever added) and the
    /// Environment they describe.
    key: Option<(usize, usize, usize, Environment)>,
    hints: Vec<Option<String>>,
}

impl HintCache {
    /// Each field's hint for `nb`, worked out again only when its rows or
    /// its Environment changed.
    fn hints(&mut self, nb: &Notebook) -> &[Option<String>] {
        let key = (std::ptr::from_ref(nb) as usize, nb.runs().len(), nb.soaks().len(), nb.environment().clone());
        if self.key.as_ref() != Some(&key) {
            self.hints = EnvField::ALL.iter().map(|&f| nb.stated_hint(f)).collect();
            self.key = Some(key);
        }
        &self.hints
    }
}

pub fn environment_ui(ui: &mut Ui, state: &mut ViewState, cx: &mut Context<'_>) {
    let hints = state.env_hints.hints(cx.notebook).to_vec();
    ui.label(RichText::new("Write the boring fields: they are why anyone believes the interesting ones.").weak());
    ui.add_space(6.0);
    egui::Grid::new("environment").num_columns(2).striped(true).spacing([16.0, 6.0]).show(ui, |ui| {
        ui.label(RichText::new("Field").strong());
        ui.label(RichText::new("Value").strong());
        ui.end_row();
        for (i, field) in EnvField::ALL.into_iter().enumerate() {
            let label = ui.label(field.label());
            let saved = cx.notebook.environment().get(field);
            let draft = state.env_drafts.entry(i).or_insert_with(|| saved.clone());
            let edit = egui::TextEdit::singleline(draft).hint_text(field.hint()).desired_width(520.0);
            // Rows keep the value stated when they were recorded (SPEC N9):
            // say which ones a change here does not reach.
            let hint = hints.get(i).cloned().flatten();
            let response = ui
                .vertical(|ui| {
                    let response = ui.add(edit).labelled_by(label.id);
                    if let Some(hint) = hint {
                        ui.label(RichText::new(inert(&hint)).small().color(ui.visuals().warn_fg_color));
                    }
                    response
                })
                .inner;
            // Commit when the field is left or Enter is pressed, not per keystroke.
            if response.lost_focus() && *draft != saved {
                cx.commands.push(AppCommand::SetEnvironment(field, draft.clone()));
            }
            if !response.has_focus() && *draft != saved && !response.lost_focus() {
                // The notebook changed under the draft (another notebook opened).
                *draft = saved;
            }
            ui.end_row();
        }
    });
}
