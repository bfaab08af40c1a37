//! The Soak runs section (SPEC N2, T): recorded soaks with their six numbers.

use egui::{RichText, Ui};
use vernier_engine::notebook::SOAK_COLUMNS;

use super::{Context, hint};

pub fn soaks_ui(ui: &mut Ui, cx: &mut Context<'_>) {
    let nb = cx.notebook;
    if nb.soaks().is_empty() {
        hint(ui, "No soak runs yet. A soak's protocol is fixed and locked with your prediction before it starts.");
        return;
    }
    egui::Grid::new("soaks").striped(true).spacing([14.0, 6.0]).show(ui, |ui| {
        for h in SOAK_COLUMNS {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for soak in nb.soaks() {
            let discarded = soak.discarded.is_some();
            for cell in soak.columns() {
                let text = RichText::new(cell);
                ui.label(if discarded { text.strikethrough().weak() } else { text });
            }
            ui.end_row();
        }
    });
}
