//! The desktop window (SPEC U). It opens a notebook and shows its sections
//! with the log's exact column names.
//!
//! The notebook is read before the window opens, so no frame ever waits on
//! the disk.

mod sections;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

use anyhow::Context as _;
use vernier_engine::notebook::{IntegrityFinding, Notebook, store};

use crate::cli::{Failure, Outcome};

/// Opens the window on `path`, or on the scratch notebook when none is given.
pub fn run(path: Option<PathBuf>) -> Outcome {
    let dir = match path {
        Some(p) => p,
        None => crate::scratch::ensure_scratch().map_err(Failure::failed)?,
    };
    let notebook = store::load(&dir).map_err(Failure::input)?;
    let app = VernierApp::new(dir, notebook);
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title(format!("Vernier — {}", app.dir.display()))
            .with_inner_size([1100.0, 700.0])
            .with_min_inner_size([640.0, 400.0]),
        ..Default::default()
    };
    eframe::run_native("Vernier", options, Box::new(|_cc| Ok(Box::new(app))))
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("the window could not open (is there a display?)")
        .map_err(Failure::failed)?;
    Ok(0)
}

/// The app's state: the open notebook and which section is shown.
pub struct VernierApp {
    dir: PathBuf,
    notebook: Notebook,
    findings: Vec<IntegrityFinding>,
    section: sections::Section,
}

impl VernierApp {
    /// The app on an already loaded notebook.
    pub fn new(dir: PathBuf, notebook: Notebook) -> Self {
        let findings = notebook.integrity();
        Self { dir, notebook, findings, section: sections::Section::Environment }
    }
}

impl eframe::App for VernierApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        egui::Panel::bottom("status").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.label(self.dir.display().to_string());
                ui.separator();
                ui.label("read-only view");
                for finding in &self.findings {
                    ui.separator();
                    ui.colored_label(ui.visuals().error_fg_color, format!("⚠ {}", finding.message));
                }
            });
        });
        egui::Panel::left("sections").resizable(false).default_size(190.0).show(ui, |ui| {
            ui.add_space(6.0);
            ui.heading("Vernier");
            ui.label(egui::RichText::new(&self.notebook.title).weak());
            ui.separator();
            for section in sections::Section::ALL {
                let count = section.count(&self.notebook).map(|n| format!("  ({n})")).unwrap_or_default();
                ui.selectable_value(&mut self.section, section, format!("{}{count}", section.title()));
            }
        });
        egui::CentralPanel::default().show(ui, |ui| {
            ui.heading(self.section.heading());
            ui.add_space(4.0);
            egui::ScrollArea::both().auto_shrink(false).show(ui, |ui| self.section.ui(ui, &self.notebook));
        });
    }
}
