//! Asked before an export would replace documents edited since Vernier
//! wrote them (A17).

use egui::Key;

use super::{Cx, Dialog, Happened, Keep};
use crate::gui::AppCommand;

/// The documents an export would overwrite though they were edited since
/// Vernier wrote them, while the window asks what to do.
pub struct ExportQuestion {
    pub edited: Vec<String>,
}

impl Dialog for ExportQuestion {
    fn show(&mut self, ctx: &egui::Context, cx: &mut Cx<'_>) -> Keep {
        let mut answer = None;
        egui::Modal::new(egui::Id::unique("export-question")).show(ctx, |ui| {
            ui.heading("Replace edited documents?");
            ui.label("These documents changed after Vernier wrote them — edited in Word or a spreadsheet, perhaps:");
            for name in &self.edited {
                ui.label(format!("• {name}"));
            }
            ui.label(
                "Exporting replaces them and what was written in them is lost. Copy what you wrote into the \
                 Documents section first, or move the files away. Nothing has been written yet.",
            );
            ui.horizontal(|ui| {
                if ui.button("Keep them (cancel)").clicked() || ui.input(|i| i.key_pressed(Key::Escape)) {
                    answer = Some(false);
                }
                if ui.button("Replace them").clicked() {
                    answer = Some(true);
                }
            });
        });
        match answer {
            // The export closes the question when it starts.
            Some(true) => cx.commands.push(AppCommand::ExportReplacing),
            Some(false) => {
                cx.commands.push(AppCommand::Say {
                    text: "export cancelled; the edited documents are kept as they are".to_owned(),
                    error: false,
                });
                return Keep::Close;
            }
            None => {}
        }
        Keep::Open
    }

    fn on(&mut self, _: Happened) -> Keep {
        // The question is answered either way; nothing the window does changes it.
        Keep::Open
    }
}
