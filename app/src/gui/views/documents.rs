//! The Documents section (SPEC D1, D2): the six fixed submission documents,
//! exported into the notebook's folder, with what is still to write.

use egui::{RichText, Ui};
use vernier_engine::documents::STEMS;

use super::{Context, hint};
use crate::gui::AppCommand;

pub fn documents_ui(ui: &mut Ui, cx: &mut Context<'_>) {
    ui.horizontal(|ui| {
        if ui.button("Export the six documents").on_hover_text("Ctrl+E").clicked() {
            cx.commands.push(AppCommand::Export);
        }
        ui.label(
            RichText::new(format!("into {}", cx.dir.join(vernier_engine::notebook::store::EXPORTS_DIR).display()))
                .weak(),
        );
    });
    ui.add_space(6.0);
    egui::Grid::new("documents").striped(true).spacing([16.0, 6.0]).show(ui, |ui| {
        for stem in STEMS {
            ui.label(RichText::new(stem).monospace());
            let state = match cx.exported.and_then(|e| e.iter().find(|(n, _)| *n == stem)) {
                None => "not exported in this session".to_owned(),
                Some((_, 0)) => "exported — filled from the notebook".to_owned(),
                // The mark's pencil is not in the window's font; name it in words.
                Some((_, n)) => format!("exported — {n} part(s) marked WRITE still to write"),
            };
            ui.label(state);
            ui.end_row();
        }
    });
    ui.add_space(8.0);
    hint(
        ui,
        "The notebook fills machine, build, conditions, results, provenance and soak; the parts only you can write stay marked. \
         Editing them here is not built yet: write them in the exported files.",
    );
}
