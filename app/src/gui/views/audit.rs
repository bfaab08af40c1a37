//! The Audit section: what the notebook can already check about itself —
//! the prediction chain (SPEC N4, A4).

use egui::{RichText, Ui};

use super::{Context, hint};

pub fn audit_ui(ui: &mut Ui, cx: &mut Context<'_>) {
    let findings = cx.findings;
    ui.label(RichText::new("A4 — every prediction recorded before its results, none changed afterwards").strong());
    if findings.is_empty() {
        ui.label(format!("✔ the chain of {} prediction(s) is intact", cx.notebook.predictions().len()));
    }
    for f in findings {
        ui.colored_label(ui.visuals().error_fg_color, format!("⚠ {}", f.message));
    }
    ui.add_space(8.0);
    hint(ui, "The other checks (A1–A15) are not built yet.");
}
