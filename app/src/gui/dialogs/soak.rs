//! The soak dialog (SPEC T1, U): the protocol is fixed with a prediction
//! first; only then can the soak start.

use egui::{RichText, Ui};

use super::layout::{self, Scrolling};
use super::{Cx, Dialog, MenuEntry, Happened, Keep, OpenCx, Opens};
use crate::gui::AppCommand;
use vernier_engine::notebook::pending::Edit;
use vernier_engine::notebook::{Committed, NewProtocol, Notebook, PredictionText, SoakProtocol};

/// What is being filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct SoakForm {
    /// `Experiment`
    pub experiment: String,
    /// `What I predict` (will it fall, when, to what fraction).
    pub predict: String,
    /// `Why`
    pub why: String,
    /// The two numbers committed (T1, N14): `onset 180 s ± 20 %, S/P 0.8 ± 0.05`.
    pub figure: String,
    /// The protocol being fixed.
    pub protocol: SoakProtocol,
    /// Why its windows or thresholds differ from the defaults (T13).
    pub protocol_why: String,
    /// Worker threads.
    pub workers: usize,
    /// The most this machine takes (`soak::load::max_workers`), read once.
    max_workers: usize,
}

impl Default for SoakForm {
    fn default() -> Self {
        Self {
            experiment: "sustained load, all CPUs".into(),
            predict: String::new(),
            why: String::new(),
            figure: String::new(),
            protocol: SoakProtocol::default(),
            protocol_why: String::new(),
            workers: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            max_workers: vernier_engine::soak::load::max_workers(),
        }
    }
}

/// What the dialog asks for.
pub enum SoakAction {
    /// Record the prediction with its protocol.
    Fix(Box<(PredictionText, NewProtocol)>),
    /// Start the fixed protocol with this many workers.
    Start(usize),
    /// Close the dialog.
    Close,
}

/// How wide the dialog is when the window has room.
const WIDTH: f32 = 560.0;

/// Opened from the Soak runs section's button; no menu entry.
impl Opens for SoakForm {
    const ENTRY: Option<MenuEntry> = None;

    fn make(_: &OpenCx<'_>) -> Self {
        Self::default()
    }

    /// Not while a soak runs.
    fn enabled(cx: &OpenCx<'_>) -> bool {
        !cx.soaking
    }
}

impl Dialog for SoakForm {
    fn show(&mut self, ctx: &egui::Context, cx: &mut Cx<'_>) -> Keep {
        let mut action = None;
        egui::Modal::new(egui::Id::unique("soak-dialog")).show(ctx, |ui| action = self.ui(ui, cx.notebook));
        match action {
            Some(SoakAction::Fix(fixed)) => {
                let (text, NewProtocol { protocol, why }) = *fixed;
                cx.commands.push(AppCommand::Edit(Edit::AddSoakPrediction {
                    text,
                    protocol,
                    protocol_why: why,
                    at: chrono::Utc::now(),
                }))
            }
            Some(SoakAction::Start(workers)) => cx.commands.push(AppCommand::StartSoak(workers)),
            Some(SoakAction::Close) => return Keep::Close,
            None => {}
        }
        Keep::Open
    }

    fn on(&mut self, _: Happened) -> Keep {
        // The form reads the open notebook's soak prediction as it draws.
        Keep::Open
    }
}

impl SoakForm {
    /// Draws the dialog. It fits the window (SPEC U1, T1): the protocol's
    /// fields scroll, and its buttons with Close stay in view below them.
    pub fn ui(&mut self, ui: &mut Ui, nb: &Notebook) -> Option<SoakAction> {
        layout::fit_width(ui, WIDTH);
        ui.heading("Thermal soak");
        let max_height = layout::max_size(ui.ctx()).y;
        let body = egui::ScrollArea::vertical();
        let fixed = nb.next_soak_protocol();
        let (footer, fits) = Scrolling::body(ui, max_height, body, |ui| match fixed {
            Some((number, p)) => {
                self.fixed_ui(ui, number, &p.describe());
                Ok(())
            }
            None => self.protocol_ui(ui),
        });
        footer.footer(ui, |ui| {
            let mut action = None;
            ui.horizontal(|ui| {
                if fixed.is_some() {
                    if ui.button(RichText::new("▶ Start soak").strong()).clicked() {
                        action = Some(SoakAction::Start(self.workers));
                    }
                } else {
                    let written = [&self.experiment, &self.predict, &self.why].iter().all(|t| !t.trim().is_empty());
                    let complete = written && fits.is_ok();
                    if ui.add_enabled(complete, egui::Button::new("Record prediction and protocol")).clicked() {
                        let text = PredictionText {
                            experiment: self.experiment.clone(),
                            predict: self.predict.clone(),
                            why: self.why.clone(),
                            figure: Committed::parse(&self.figure).ok(),
                        };
                        let why = self.reason().ok().flatten();
                        action = Some(SoakAction::Fix(Box::new((text, NewProtocol { protocol: self.protocol, why }))));
                    }
                }
                // While a soak runs this dialog is closed, so Esc is its own.
                if layout::close_button(ui, None, true) {
                    action = Some(SoakAction::Close);
                }
            });
            action
        })
    }

    /// The protocol P`number` fixed (`described`), and the workers to start it with.
    fn fixed_ui(&mut self, ui: &mut Ui, number: u32, described: &str) {
        ui.label(format!("P{number} fixed the protocol: {described}."));
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
            ui.add(egui::DragValue::new(&mut self.workers).range(1..=self.max_workers)).labelled_by(label.id);
        });
    }

    /// The reason kept with the protocol (T13): `None` under the defaults,
    /// refused when a window or threshold changed and none is written.
    fn reason(&self) -> Result<Option<String>, vernier_engine::notebook::ProtocolError> {
        self.protocol.reason_for_change(&self.protocol.defaults_for(), Some(&self.protocol_why))
    }

    /// The prediction and the protocol to fix; whether the protocol's
    /// windows fit its duration (SPEC T11), said above the button.
    fn protocol_ui(&mut self, ui: &mut Ui) -> Result<(), String> {
        ui.label("First write down what you expect and fix the protocol; both are sealed before the run.");
        egui::Grid::new("soak-form").num_columns(2).spacing([12.0, 6.0]).show(ui, |ui| {
            for (name, text, hint) in [
                ("Experiment", &mut self.experiment, "sustained load, all CPUs"),
                ("What I predict", &mut self.predict, "falls at about 180 s to 0.75 of P"),
                ("Why", &mut self.why, "fanless laptop, small heat sink"),
                ("Onset and S/P", &mut self.figure, "onset 180 s ± 20 %, S/P 0.75 ± 0.05"),
            ] {
                let label = ui.label(name);
                ui.add(egui::TextEdit::singleline(text).hint_text(hint).desired_width(380.0)).labelled_by(label.id);
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
                ui.add(egui::DragValue::new(value).range(range).suffix(suffix).speed(0.01)).labelled_by(label.id);
                ui.end_row();
            }
            let label = ui.label("Hold");
            ui.add(egui::DragValue::new(&mut p.hold).range(1..=100).suffix(" samples")).labelled_by(label.id);
            ui.end_row();
            // T13: a window or threshold changed from the defaults keeps its reason.
            if !p.changed_from(&p.defaults_for()).is_empty() {
                let label = ui.label("Why changed");
                let hint = "the fan spins up at 20 s, so the burst is over by then";
                let field = egui::TextEdit::singleline(&mut self.protocol_why).hint_text(hint).desired_width(380.0);
                ui.add(field).labelled_by(label.id);
                ui.end_row();
            }
        });
        // T1: the two numbers are committed with the protocol.
        let figure = match Committed::parse(&self.figure) {
            Ok(Committed::Soak { .. }) => Ok(()),
            Ok(other) => Err(format!("{other} is not a soak's two numbers: write onset … s ± …, S/P … ± …")),
            Err(e) if self.figure.trim().is_empty() => Err(format!("Onset and S/P: {}", e.reason)),
            Err(e) => Err(e.to_string()),
        };
        let reason = self.reason().map(|_| ()).map_err(|e| e.to_string());
        let fits = self.protocol.check().map_err(|e| e.to_string()).and(figure).and(reason);
        if let Err(why) = &fits {
            ui.colored_label(ui.visuals().warn_fg_color, why);
        }
        fits
    }
}
