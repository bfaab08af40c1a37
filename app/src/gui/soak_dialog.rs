//! The soak dialog (SPEC T1, U): the protocol is fixed with a prediction
//! first; only then can the soak start.

use egui::{RichText, Ui};
use vernier_engine::notebook::{Notebook, PredictionText, SoakProtocol};

/// What is being filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct SoakForm {
    /// `Experiment`
    pub experiment: String,
    /// `What I predict` (will it fall, when, to what fraction).
    pub predict: String,
    /// `Why`
    pub why: String,
    /// The protocol being fixed.
    pub protocol: SoakProtocol,
    /// Worker threads.
    pub workers: usize,
}

impl Default for SoakForm {
    fn default() -> Self {
        Self {
            experiment: "sustained load, all CPUs".into(),
            predict: String::new(),
            why: String::new(),
            protocol: SoakProtocol::default(),
            workers: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        }
    }
}

/// What the dialog asks for.
pub enum SoakAction {
    /// Record the prediction with its protocol.
    Fix(PredictionText, SoakProtocol),
    /// Start the fixed protocol with this many workers.
    Start(usize),
    /// Close the dialog.
    Close,
}

impl SoakForm {
    /// Draws the dialog.
    pub fn ui(&mut self, ui: &mut Ui, nb: &Notebook) -> Option<SoakAction> {
        let mut action = None;
        ui.heading("Thermal soak");
        match nb.next_soak_protocol() {
            Some((number, p)) => {
                ui.label(format!("P{number} fixed the protocol: {}.", p.describe()));
                ui.label(
                    RichText::new(format!(
                        "A run recorded before the soak locks the prediction, and this protocol is still the one the \
                         soak runs. To change it, amend P{number} with a new protocol: vernier predict <notebook> \
                         --amend P{number} --soak --duration … --predict … --why …"
                    ))
                    .weak(),
                );
                ui.horizontal(|ui| {
                    let label = ui.label("Workers");
                    ui.add(egui::DragValue::new(&mut self.workers).range(1..=1024)).labelled_by(label.id);
                });
                ui.horizontal(|ui| {
                    if ui.button(RichText::new("▶ Start soak").strong()).clicked() {
                        action = Some(SoakAction::Start(self.workers));
                    }
                    if ui.button("Close").clicked() {
                        action = Some(SoakAction::Close);
                    }
                });
            }
            None => {
                ui.label("First write down what you expect and fix the protocol; both are sealed before the run.");
                egui::Grid::new("soak-form").num_columns(2).spacing([12.0, 6.0]).show(ui, |ui| {
                    for (name, text, hint) in [
                        ("Experiment", &mut self.experiment, "sustained load, all CPUs"),
                        ("What I predict", &mut self.predict, "falls at about 180 s to 0.75 of P"),
                        ("Why", &mut self.why, "fanless laptop, small heat sink"),
                    ] {
                        let label = ui.label(name);
                        ui.add(egui::TextEdit::singleline(text).hint_text(hint).desired_width(380.0))
                            .labelled_by(label.id);
                        ui.end_row();
                    }
                    let p = &mut self.protocol;
                    for (name, value, range, suffix) in [
                        ("Duration", &mut p.duration_s, 10.0..=86_400.0, " s"),
                        ("Interval", &mut p.interval_s, 0.5..=600.0, " s"),
                        ("Opening window", &mut p.opening_window_s, 1.0..=3600.0, " s"),
                        ("Tail window", &mut p.tail_window_s, 1.0..=86_400.0, " s"),
                        ("Onset threshold", &mut p.threshold, 0.01..=1.0, " of P"),
                        ("Stability band", &mut p.band, 0.0..=1.0, ""),
                    ] {
                        let label = ui.label(name);
                        ui.add(egui::DragValue::new(value).range(range).suffix(suffix).speed(0.01))
                            .labelled_by(label.id);
                        ui.end_row();
                    }
                    let label = ui.label("Hold");
                    ui.add(egui::DragValue::new(&mut p.hold).range(1..=100).suffix(" samples")).labelled_by(label.id);
                    ui.end_row();
                });
                // SPEC T11: the windows must fit the duration; said before the button.
                let fits = self.protocol.check();
                if let Err(why) = &fits {
                    ui.colored_label(ui.visuals().warn_fg_color, why);
                }
                let complete =
                    [&self.experiment, &self.predict, &self.why].iter().all(|t| !t.trim().is_empty()) && fits.is_ok();
                ui.horizontal(|ui| {
                    if ui.add_enabled(complete, egui::Button::new("Record prediction and protocol")).clicked() {
                        let text = PredictionText {
                            experiment: self.experiment.clone(),
                            predict: self.predict.clone(),
                            why: self.why.clone(),
                        };
                        action = Some(SoakAction::Fix(text, self.protocol));
                    }
                    if ui.button("Close").clicked() {
                        action = Some(SoakAction::Close);
                    }
                });
            }
        }
        action
    }
}
