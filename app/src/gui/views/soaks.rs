//! The Soak runs section (SPEC N2, T5, T10): recorded soaks with their six
//! numbers; click one — or open any soak file — to see its chart.

use egui::{RichText, Ui};
use vernier_engine::notebook::SoakColumn;

use super::{Context, ViewState, hint};
use crate::gui::{AppCommand, plots};

pub fn soaks_ui(ui: &mut Ui, state: &mut ViewState, cx: &mut Context<'_>) {
    let nb = cx.notebook;
    ui.horizontal(|ui| {
        if ui.button("▶ Soak…").on_hover_text("Fix the protocol with a prediction, then run it").clicked() {
            cx.commands.push(AppCommand::SoakDialog);
        }
        let label = ui.label("Soak file");
        ui.add(egui::TextEdit::singleline(&mut state.soak_path).hint_text("path to a soak CSV").desired_width(420.0))
            .labelled_by(label.id);
        if ui.add_enabled(!state.soak_path.trim().is_empty(), egui::Button::new("Analyse")).clicked() {
            cx.commands.push(AppCommand::OpenSoak(Some(state.soak_path.trim().into())));
        }
        if ui.button("Shipped synthetic soak").on_hover_text("datasets/thermal-soak.csv, labelled SYNTHETIC").clicked()
        {
            cx.commands.push(AppCommand::OpenSoak(None));
        }
    });
    ui.add_space(6.0);
    if nb.soaks().is_empty() {
        hint(
            ui,
            "No soak runs recorded yet (vernier soak run --notebook DIR). A soak file can still be analysed above.",
        );
    } else {
        // Sideways scrolling keeps a wide row from widening the chart below.
        egui::ScrollArea::horizontal().id_salt("soaks-x").show(ui, |ui| {
            egui::Grid::new("soaks").striped(true).spacing([14.0, 6.0]).show(ui, |ui| {
                for column in SoakColumn::ALL {
                    ui.label(RichText::new(column.header()).strong());
                }
                ui.end_row();
                for soak in nb.soaks() {
                    let discarded = soak.discarded.is_some();
                    for column in SoakColumn::ALL {
                        let text = RichText::new(soak.cell(column));
                        let text = if discarded { text.strikethrough().weak() } else { text };
                        if column == SoakColumn::Number
                            && let Some(raw) = &soak.raw_file
                        {
                            if ui.link(text).clicked() {
                                cx.commands.push(AppCommand::OpenSoak(Some(cx.dir.join(raw.path.as_str()))));
                            }
                        } else {
                            ui.label(text);
                        }
                    }
                    ui.end_row();
                }
            })
        });
    }
    ui.separator();
    match cx.soak {
        Some(view) => {
            match &view.analysis {
                Ok(a) => {
                    // The six numbers and the knee, as every face shows them (T5, T11, S6).
                    ui.label(a.shown_line());
                    ui.label(
                        RichText::new(vernier_engine::soak::analysis::honesty_line(
                            a,
                            vernier_engine::soak::SCORE_UNIT,
                        ))
                        .weak(),
                    );
                    if let Some(negative) = &view.negative {
                        ui.label(RichText::new(negative).weak());
                    }
                }
                Err(e) => {
                    ui.colored_label(ui.visuals().warn_fg_color, e);
                }
            }
            if !view.placeholders.is_empty() {
                ui.label(
                    RichText::new(format!("placeholders, not observations: {}", view.placeholders.join(", "))).weak(),
                );
            }
            plots::soak_chart(ui, view);
        }
        None => hint(ui, "Choose a soak to see its curve."),
    }
}
