//! The Predictions section (SPEC N4, U2): record before running; a locked
//! prediction shows its lock, refuses edits and offers an amendment.

use egui::{RichText, Ui};
use egui_extras::{Column, TableBuilder};
use vernier_engine::notebook::{
    AnsweredBy, Committed, Notebook, PREDICTION_COLUMNS, Prediction, PredictionColumn, PredictionText, Run, Word,
    short_row,
};

use super::{Context, hint};
use crate::gui::AppCommand;
use crate::gui::dialogs::new_run::offered;
use vernier_engine::notebook::pending::Edit;

/// What the Predictions section keeps between frames.
#[derive(Default)]
pub struct State {
    /// The "new prediction" form.
    pub new_prediction: PredictionForm,
    /// A prediction being rewritten, with its draft.
    pub editing: Option<(u32, PredictionForm)>,
    /// A prediction being amended, with the draft.
    pub amending: Option<(u32, PredictionForm)>,
    /// The prediction an audit finding opened.
    pub opened: super::Opened<u32>,
}

/// Why a locked prediction offers only an amendment.
const AMEND_HINT: &str = "locked: it cannot be changed; an amendment quotes it and is recorded with its own time";

/// The three texts of a prediction being typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PredictionForm {
    /// `Experiment`
    pub experiment: String,
    /// `What I predict`
    pub predict: String,
    /// `Why`
    pub why: String,
    /// The committed figure as typed (N14); empty for none.
    pub figure: String,
}

impl PredictionForm {
    fn of(p: &Prediction) -> Self {
        Self {
            experiment: p.experiment.clone(),
            predict: p.predict.clone(),
            why: p.why.clone(),
            figure: p.figure.as_ref().map(ToString::to_string).unwrap_or_default(),
        }
    }

    /// The figure typed, read as `predict --figure` reads it; `Ok(None)`
    /// when none is typed.
    fn figure(&self) -> Result<Option<Committed>, String> {
        match self.figure.trim() {
            "" => Ok(None),
            typed => Committed::parse(typed).map(Some).map_err(|e| e.to_string()),
        }
    }

    fn text(&self) -> PredictionText {
        PredictionText {
            experiment: self.experiment.clone(),
            predict: self.predict.clone(),
            why: self.why.clone(),
            figure: self.figure().ok().flatten(),
        }
    }

    fn complete(&self) -> bool {
        [&self.experiment, &self.predict, &self.why].iter().all(|t| !t.trim().is_empty()) && self.figure().is_ok()
    }
}

/// The mark a word is shown with at a glance.
fn mark(word: Word) -> &'static str {
    match word {
        Word::Held => "✔",
        Word::Missed => "⚠",
        Word::Unresolvable => "?",
        Word::Unscored => "·",
        Word::Open => "–",
    }
}

/// A prediction's outcomes at a glance (N14, S17): the figure it commits,
/// then per answer its mark and exactly the sentence `vernier show` prints
/// for it — no word or figure of the window's own — cut to the column's
/// width, in full on hover.
fn outcome_cell(ui: &mut Ui, nb: &Notebook, p: &Prediction) {
    if let Some(figure) = &p.figure {
        let predicted = vernier_engine::display::inert_line(format!("predicted {figure}"));
        ui.add(egui::Label::new(RichText::new(predicted).weak()).wrap());
    }
    let scored = nb.scored_against(p.number);
    if scored.is_empty() {
        let text = nb.outcome_text(p.number);
        ui.add(egui::Label::new(RichText::new(text).weak()).wrap());
        return;
    }
    for s in scored {
        let word = if matches!(s.answer.by, AnsweredBy::Open(_)) { Word::Open } else { s.outcome.word };
        let sentence = s.line(p.number);
        ui.horizontal(|ui| {
            ui.label(mark(word));
            ui.add(egui::Label::new(sentence.as_str()).truncate()).on_hover_text(sentence.as_str());
        });
    }
}

/// SPEC N14, U2: from a run's context, one action links it — or the
/// comparison it is an arm of — to a prediction written before it.
pub fn answer_menu(ui: &mut Ui, nb: &Notebook, run: &Run, commands: &mut Vec<AppCommand>) {
    if run.discarded.is_some() {
        return;
    }
    let by = match nb.pair_of(run.number) {
        Some((pair, _)) => AnsweredBy::Comparison(pair.number),
        None => AnsweredBy::Run(run.number),
    };
    let before: Vec<&Prediction> = nb
        .predictions()
        .iter()
        .filter(|p| p.amends.is_none() && p.recorded_at <= run.recorded_at)
        .filter(|p| !nb.answers_to(p.number).iter().any(|a| a.by == by))
        .collect();
    if before.is_empty() {
        return;
    }
    ui.menu_button(format!("Answers a prediction ({})…", short_row(&by)), |ui| {
        for p in before {
            if ui.button(offered(p)).clicked() {
                commands.push(AppCommand::Edit(Edit::AnswerPrediction {
                    number: p.number,
                    by: by.clone(),
                    at: chrono::Utc::now(),
                }));
                ui.close();
            }
        }
    });
}

impl super::SectionView for State {
    /// The log's own name (N2: identical in the window and the workbook);
    /// one past the end of `SECTIONS` does not compile.
    const TITLE: &'static str = vernier_engine::notebook::SECTIONS[1];
    const HEADING: &'static str = vernier_engine::notebook::PREDICTIONS_HEADING;

    fn count(nb: &Notebook) -> Option<usize> {
        Some(nb.predictions().len())
    }

    fn ui(&mut self, ui: &mut Ui, cx: &mut Context<'_>) {
        predictions_ui(ui, self, cx);
    }
}

fn predictions_ui(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    let nb = cx.notebook;
    ui.horizontal(|ui| {
        ui.label(RichText::new("A prediction locks the moment a run or soak is recorded after it.").weak());
        let open = nb.predictions().iter().any(|p| nb.lock_of(p).is_none());
        if ui
            .add_enabled(open, egui::Button::new("🔒 Lock all open"))
            .on_hover_text("Lock every open prediction now")
            .clicked()
        {
            cx.commands.push(AppCommand::Edit(Edit::LockPredictions { at: chrono::Utc::now() }));
        }
    });
    ui.add_space(6.0);
    if nb.predictions().is_empty() {
        hint(ui, "No predictions yet. Write them down before the first run.");
    }
    let widths = [60.0, 130.0, 160.0, 160.0, 120.0, 110.0, 170.0];
    let line_height = 18.0;
    // Rows are as tall as their longest wrapped text (about 7 px a character).
    let lines = |text: &str, width: f32| ((text.chars().count() as f32 * 7.0) / width).ceil().max(1.0);
    let mut table = TableBuilder::new(ui);
    if let Some(row) = state.opened.target.and_then(|n| nb.predictions().iter().position(|p| p.number == n))
        && state.opened.take_scroll(&nb.predictions()[row].number)
    {
        table = table.scroll_to_row(row, Some(egui::Align::Center));
    }
    table
        .id_salt("predictions")
        .striped(true)
        .column(Column::exact(widths[0]))
        .column(Column::initial(widths[1]).resizable(true))
        .column(Column::initial(widths[2]).resizable(true))
        .column(Column::initial(widths[3]).resizable(true))
        .column(Column::exact(widths[4]))
        .column(Column::exact(widths[5]))
        .column(Column::initial(widths[6]).resizable(true))
        .column(Column::remainder().at_least(120.0))
        .header(22.0, |mut header| {
            for h in PREDICTION_COLUMNS.iter().chain(&["Lock", "Outcome", ""]) {
                header.col(|ui| {
                    ui.strong(*h);
                });
            }
        })
        .body(|mut body| {
            for p in nb.predictions() {
                let lock = nb.lock_of(p);
                // The three texts that wrap, under the table's columns 1 to 3.
                let texts =
                    [PredictionColumn::Experiment, PredictionColumn::Predict, PredictionColumn::Why].map(|c| p.cell(c));
                let answers = nb.scored_against(p.number).len() as f32;
                let height = texts.iter().zip(&widths[1..4]).map(|(t, &w)| lines(t, w)).fold(answers, f32::max)
                    * line_height
                    + 6.0;
                body.row(height, |mut row| {
                    let label = p.cell(PredictionColumn::Number);
                    let label = if lock.is_some() { format!("🔒 {label}") } else { label };
                    row.col(|ui| {
                        ui.label(state.opened.mark(&p.number, RichText::new(label).strong(), ui));
                    });
                    for cell in &texts {
                        row.col(|ui| {
                            ui.add(egui::Label::new(cell.as_str()).wrap());
                        });
                    }
                    row.col(|ui| {
                        ui.label(p.recorded_at.format("%Y-%m-%d %H:%M").to_string());
                    });
                    row.col(|ui| {
                        let text = lock.map_or_else(|| "open".to_owned(), |l| format!("locked {}", l.short()));
                        ui.add(egui::Label::new(RichText::new(text).weak()).wrap());
                    });
                    row.col(|ui| outcome_cell(ui, nb, p));
                    row.col(|ui| {
                        // SPEC U2, N4: an open prediction can still be
                        // rewritten; a locked one only amended — offering
                        // Edit there would invite an edit the notebook must
                        // refuse, so the amendment is the only button.
                        if lock.is_some() {
                            if ui.small_button("Amend…").on_hover_text(AMEND_HINT).clicked() {
                                let experiment = p.experiment.clone();
                                state.amending = Some((p.number, PredictionForm { experiment, ..Default::default() }));
                            }
                        } else if ui
                            .small_button("Edit")
                            .on_hover_text("open until a run or soak is recorded")
                            .clicked()
                        {
                            state.editing = Some((p.number, PredictionForm::of(p)));
                        }
                    });
                });
            }
        });
    ui.add_space(10.0);
    ui.separator();
    ui.label(RichText::new("New prediction").strong());
    if form_ui(ui, "new", &mut state.new_prediction, true) && state.new_prediction.complete() {
        cx.commands
            .push(AppCommand::Edit(Edit::AddPrediction { text: state.new_prediction.text(), at: chrono::Utc::now() }));
        state.new_prediction = PredictionForm::default();
    }
    edit_dialogs(ui, state, cx);
}

/// The three fields and a button; returns true when the button was pressed.
fn form_ui(ui: &mut Ui, id: &str, form: &mut PredictionForm, with_experiment: bool) -> bool {
    let mut submit = false;
    egui::Grid::new(("prediction-form", id)).num_columns(2).spacing([12.0, 6.0]).show(ui, |ui| {
        if with_experiment {
            let label = ui.label("Experiment");
            ui.add(
                egui::TextEdit::singleline(&mut form.experiment)
                    .hint_text("matmul ijk vs ikj, N=512")
                    .desired_width(480.0),
            )
            .labelled_by(label.id);
            ui.end_row();
        }
        let label = ui.label("What I predict");
        ui.add(egui::TextEdit::singleline(&mut form.predict).hint_text("ikj about 3× faster").desired_width(480.0))
            .labelled_by(label.id);
        ui.end_row();
        let label = ui.label("Why");
        ui.add(
            egui::TextEdit::singleline(&mut form.why).hint_text("unit stride in the inner loop").desired_width(480.0),
        )
        .labelled_by(label.id);
        ui.end_row();
        // N14: optional; what the rows that answer it are scored against.
        let label = ui.label("Figure");
        ui.add(
            egui::TextEdit::singleline(&mut form.figure)
                .hint_text("optional: ratio ijk/ikj = 3 ± 50 %  ·  median 100 ns/access ± 30 %")
                .desired_width(480.0),
        )
        .labelled_by(label.id);
        ui.end_row();
        if let Err(why) = form.figure() {
            ui.label("");
            ui.colored_label(ui.visuals().warn_fg_color, why);
            ui.end_row();
        }
        ui.label("");
        submit = ui.add_enabled(form.complete(), egui::Button::new("Record")).clicked();
        ui.end_row();
    });
    submit
}

fn edit_dialogs(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    if let Some((number, form)) = &mut state.editing {
        let mut close = false;
        egui::Modal::new(egui::Id::unique("edit-prediction")).show(ui.ctx(), |ui| {
            ui.heading(format!("Rewrite P{number}"));
            if form_ui(ui, "edit", form, true) {
                cx.commands.push(AppCommand::Edit(Edit::EditPrediction { number: *number, text: form.text() }));
                close = true;
            }
            close |= ui.button("Cancel").clicked();
        });
        if close {
            state.editing = None;
        }
    }
    if let Some((number, form)) = &mut state.amending {
        let mut close = false;
        let original = cx.notebook.prediction(*number).map(|p| p.predict.clone()).unwrap_or_default();
        egui::Modal::new(egui::Id::unique("amend-prediction")).show(ui.ctx(), |ui| {
            ui.heading(format!("Amend P{number}"));
            ui.label(format!("The original stays as it is and is quoted: “{original}”"));
            if form_ui(ui, "amend", form, false) {
                cx.commands.push(AppCommand::Edit(Edit::AmendPrediction {
                    number: *number,
                    predict: form.predict.clone(),
                    why: form.why.clone(),
                    figure: form.figure().ok().flatten(),
                    at: chrono::Utc::now(),
                }));
                close = true;
            }
            close |= ui.button("Cancel").clicked();
        });
        if close {
            state.amending = None;
        }
    }
}
