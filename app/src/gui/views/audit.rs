//! The Audit section (SPEC A): the pre-submission audit's findings grouped
//! by check; a click on one opens the row or document it points at. The
//! audit itself runs on the I/O thread (it reads raw files and exports).

use egui::{RichText, Ui};
use vernier_engine::audit::Check;

use super::{Context, hint};
use crate::gui::AppCommand;

/// The Audit section's: the last audit's report, while the notebook it
/// read stays open.
#[derive(Default)]
pub struct State {
    /// The last audit, when one has run.
    pub report: Option<vernier_engine::audit::Report>,
}

impl State {
    /// The audit done: its count said, its findings shown.
    pub fn audited(&mut self, report: vernier_engine::audit::Report, asks: &mut Vec<AppCommand>) {
        let n = report.findings.len();
        let text = if n == 0 { "audit: all checks pass".to_owned() } else { format!("audit: {n} finding(s)") };
        asks.push(AppCommand::Say { text, error: false });
        self.report = Some(report);
    }
}

impl super::SectionView for State {
    const TITLE: &'static str = "Audit";

    /// The audit, run afresh.
    fn opened(asks: &mut Vec<AppCommand>) {
        asks.push(AppCommand::Audit);
    }

    fn ui(&mut self, ui: &mut Ui, cx: &mut Context<'_>) {
        audit_ui(ui, self.report.as_ref(), cx);
    }
}

fn audit_ui(ui: &mut Ui, report: Option<&vernier_engine::audit::Report>, cx: &mut Context<'_>) {
    ui.horizontal(|ui| {
        if ui.button("Run the audit").clicked() {
            cx.commands.push(AppCommand::Audit);
        }
        if ui.button("Export, then audit").on_hover_text("Ctrl+E writes the six documents first").clicked() {
            cx.commands.push(AppCommand::Export);
        }
    });
    ui.add_space(6.0);
    let Some(report) = report else {
        hint(ui, "Running the audit…");
        return;
    };
    let source = if report.documents_exported {
        "documents checked: the files in exports/"
    } else {
        "documents checked: what an export would write now (nothing is exported yet)"
    };
    if report.is_clean() {
        ui.label(RichText::new(format!("✔ all {} checks pass", Check::ALL.len())).strong());
    } else {
        ui.label(RichText::new(format!("{} finding(s) — click one to open it", report.findings.len())).strong());
    }
    ui.label(RichText::new(source).weak());
    ui.add_space(6.0);
    for check in Check::ALL {
        let found: Vec<_> = report.findings.iter().filter(|f| f.check == check).collect();
        if found.is_empty() {
            ui.label(RichText::new(format!("✔ {check}  {}", check.rule())).weak());
            continue;
        }
        let title =
            RichText::new(format!("⚠ {check}  {}  ({})", check.rule(), found.len())).color(ui.visuals().warn_fg_color);
        egui::CollapsingHeader::new(title).id_salt(check).default_open(true).show(ui, |ui| {
            for f in found {
                let text = vernier_engine::display::inert_line(format!("{}: {}", f.place, f.message));
                if ui.link(text).on_hover_text("open it").clicked() {
                    cx.commands.push(AppCommand::Jump(f.clone()));
                }
            }
        });
    }
}
