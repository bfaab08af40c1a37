//! The Documents section: the six fixed submission documents (SPEC D1).

use egui::{RichText, Ui};

use super::{Context, hint};

/// The six stems, exactly as the course names them.
const STEMS: [&str; 6] = [
    "report.docx",
    "measurements.xlsx",
    "soc-architecture-review.docx",
    "placement-decision.docx",
    "threat-model-report.docx",
    "ai-usage.txt",
];

pub fn documents_ui(ui: &mut Ui, cx: &mut Context<'_>) {
    ui.label(format!(
        "The submission is exactly these six files, written into {}:",
        cx.dir.join(vernier_engine::notebook::store::EXPORTS_DIR).display()
    ));
    ui.add_space(6.0);
    for stem in STEMS {
        ui.label(RichText::new(format!("• {stem}")).monospace());
    }
    ui.add_space(8.0);
    hint(ui, "Filling and exporting the documents is not built yet.");
}
