//! One view per notebook section, each a read-only table with the log's
//! column names (SPEC N2).

use egui::{RichText, Ui};
use vernier_engine::notebook::{
    Notebook, PREDICTION_COLUMNS, PREDICTIONS_HEADING, RUN_COLUMNS, SECTIONS, SOAK_COLUMNS,
};

/// The five sections of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// Environment.
    Environment,
    /// Predictions.
    Predictions,
    /// Runs.
    Runs,
    /// Soak runs.
    Soaks,
    /// Notes and anomalies.
    Notes,
}

impl Section {
    /// In the log's order.
    pub const ALL: [Section; 5] =
        [Section::Environment, Section::Predictions, Section::Runs, Section::Soaks, Section::Notes];

    /// The name in the side bar.
    pub fn title(self) -> &'static str {
        SECTIONS[self as usize]
    }

    /// The heading above the table.
    pub fn heading(self) -> &'static str {
        match self {
            Section::Predictions => PREDICTIONS_HEADING,
            other => other.title(),
        }
    }

    /// How many rows the section has (none for Environment's fixed fields).
    pub fn count(self, nb: &Notebook) -> Option<usize> {
        match self {
            Section::Environment => None,
            Section::Predictions => Some(nb.predictions().len()),
            Section::Runs => Some(nb.runs().len()),
            Section::Soaks => Some(nb.soaks().len()),
            Section::Notes => Some(nb.notes().len()),
        }
    }

    /// Draws the section's table.
    pub fn ui(self, ui: &mut Ui, nb: &Notebook) {
        match self {
            Section::Environment => {
                let rows = nb.environment.rows().map(|(f, v)| {
                    // An empty field shows what belongs there, greyed out.
                    let shown = if v.is_empty() { RichText::new(f.hint()).italics().weak() } else { RichText::new(v) };
                    vec![RichText::new(f.label()), shown]
                });
                grid(ui, "environment", &["Field", "Value"], rows);
            }
            Section::Predictions => {
                let rows = nb.predictions().iter().map(|p| {
                    let mut cells = p.columns().map(RichText::new).to_vec();
                    if nb.lock_of(p).is_some() {
                        cells[0] = RichText::new(format!("🔒 {}", p.label()));
                    }
                    cells
                });
                grid(ui, "predictions", &PREDICTION_COLUMNS, rows);
                empty_hint(
                    ui,
                    nb.predictions().is_empty(),
                    "No predictions yet. Write them down before the first run.",
                );
            }
            Section::Runs => {
                grid(ui, "runs", &RUN_COLUMNS, nb.runs().iter().map(|r| r.columns().map(RichText::new).to_vec()));
                empty_hint(ui, nb.runs().is_empty(), "No runs yet. Record predictions first: a run locks them.");
            }
            Section::Soaks => {
                grid(ui, "soaks", &SOAK_COLUMNS, nb.soaks().iter().map(|s| s.columns().map(RichText::new).to_vec()));
                empty_hint(ui, nb.soaks().is_empty(), "No soak runs yet.");
            }
            Section::Notes => {
                if nb.notes().is_empty() {
                    ui.label(
                        RichText::new("No notes yet. Every discarded run will be listed here with its reason.").weak(),
                    );
                }
                for note in nb.notes() {
                    ui.label(format!("{}  {}", note.at.format("%Y-%m-%d %H:%M"), note.text));
                }
            }
        }
    }
}

fn empty_hint(ui: &mut Ui, empty: bool, text: &str) {
    if empty {
        ui.add_space(8.0);
        ui.label(RichText::new(text).italics().weak());
    }
}

fn grid(ui: &mut Ui, id: &str, headers: &[&str], rows: impl Iterator<Item = Vec<RichText>>) {
    egui::Grid::new(id).striped(true).spacing([16.0, 6.0]).show(ui, |ui| {
        for h in headers {
            ui.label(RichText::new(*h).strong());
        }
        ui.end_row();
        for row in rows {
            for cell in row {
                ui.label(cell);
            }
            ui.end_row();
        }
    });
}
