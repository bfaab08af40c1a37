//! The Runs section (SPEC N2, N5, U1, U4): a virtualised table — only the
//! visible rows are built, so ten thousand runs scroll smoothly — and the
//! selected run's trials, or the seq/chase sweep.

use egui::{RichText, Ui};
use egui_extras::{Column, TableBuilder};
use vernier_engine::display::inert;
use vernier_engine::notebook::{RunColumn, RunsLine};

use super::{Context, ViewState, hint};
use crate::gui::{AppCommand, plots};

const ROW_HEIGHT: f32 = 22.0;

pub fn runs_ui(ui: &mut Ui, state: &mut ViewState, cx: &mut Context<'_>) {
    let nb = cx.notebook;
    ui.horizontal(|ui| {
        if ui.button("▶ New run…").on_hover_text("Ctrl+R").clicked() {
            cx.commands.push(AppCommand::NewRun);
        }
        ui.toggle_value(&mut state.show_sweep, "seq / chase sweep");
    });
    if nb.runs().is_empty() {
        hint(ui, "No runs yet. Record your predictions first: the first run locks them.");
        return;
    }
    let plot_height = (ui.available_height() * 0.45).clamp(180.0, 360.0);
    let table_height = (ui.available_height() - plot_height - 40.0).max(120.0);
    // The table scrolls sideways inside its own area, so its width never
    // pushes the plot below out of the window.
    egui::ScrollArea::horizontal().id_salt("runs-table-x").show(ui, |ui| {
        ui.set_max_height(table_height);
        let mut table = TableBuilder::new(ui)
            .striped(true)
            .sense(egui::Sense::click())
            .max_scroll_height(table_height)
            .column(Column::exact(96.0))
            .column(Column::initial(200.0).clip(true).resizable(true))
            .column(Column::initial(200.0).clip(true).resizable(true))
            .column(Column::initial(130.0))
            .column(Column::initial(100.0))
            .column(Column::initial(240.0).clip(true).resizable(true))
            .column(Column::initial(150.0))
            .column(Column::initial(220.0).clip(true).resizable(true))
            .column(Column::initial(110.0).clip(true))
            .column(Column::remainder().at_least(90.0));
        // Runs, each comparison under its two rows with its verdict (S11).
        let lines = nb.runs_lines();
        if let Some(selected) = state.selected_run
            && let Some(index) = lines.iter().position(|l| matches!(l, RunsLine::Run(r) if r.number == selected))
        {
            table = table.scroll_to_row(index, None);
        }
        table
            .header(ROW_HEIGHT, |mut header| {
                for column in RunColumn::ALL {
                    header.col(|ui| {
                        ui.strong(column.header());
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, lines.len(), |mut row| {
                    let line = lines[row.index()];
                    let (number, discarded, pair, flags) = match line {
                        // S4, S12: a noisy or drifting row's Dispersion is
                        // flagged, its sentences on hover and above its plot.
                        RunsLine::Run(run) => {
                            let flags: Vec<String> =
                                run.measurement.summary.flags().iter().map(|f| format!("⚠ {f}")).collect();
                            (run.number, run.discarded.is_some(), false, flags)
                        }
                        // A comparison's line selects its arm B.
                        RunsLine::Pair(p) => (p.runs[1], false, true, Vec::new()),
                    };
                    row.set_selected(!pair && state.selected_run == Some(number));
                    for column in RunColumn::ALL {
                        row.col(|ui| {
                            let flagged = column == RunColumn::Dispersion && !flags.is_empty();
                            let text = if flagged && !discarded {
                                RichText::new(format!("⚠ {}", line.cell(column))).color(ui.visuals().warn_fg_color)
                            } else {
                                RichText::new(line.cell(column))
                            };
                            // N5: a discarded run stays, struck through.
                            let text = if discarded { text.strikethrough().weak() } else { text };
                            let text = if pair { text.italics() } else { text };
                            let response = ui.add(egui::Label::new(text).truncate().selectable(false));
                            if flagged {
                                response.on_hover_text(flags.join("\n"));
                            } else if pair
                                && matches!(column, RunColumn::What | RunColumn::Command | RunColumn::Conditions)
                            {
                                response.on_hover_text(line.cell(column));
                            }
                        });
                    }
                    if row.response().clicked() {
                        cx.commands.push(AppCommand::SelectRun(number));
                    }
                });
            });
    });
    // Leave the table's scroll-to alone once the selection is shown.
    ui.separator();
    if state.show_sweep {
        plots::sweep_plot(ui, nb);
        return;
    }
    let Some(run) = state.selected_run.and_then(|n| nb.run(n)) else {
        hint(ui, "Click a run to see its trials.");
        return;
    };
    ui.horizontal(|ui| {
        ui.strong(format!("Run {} — {}", run.number, inert(&run.measurement.what)));
        if run.discarded.is_none() && ui.button("Discard…").clicked() {
            state.discarding = Some((run.number, String::new()));
        }
        if let Some(d) = &run.discarded {
            ui.label(RichText::new(format!("discarded: {}", inert(&d.reason))).weak());
        }
        // D7: the course's two written forms, ready to paste.
        if ui.button("Copy long form").on_hover_text("the measurement-log entry").clicked() {
            ui.ctx().copy_text(run.long_form());
        }
        if ui.button("Copy short form").on_hover_text("one report sentence with its conditions").clicked() {
            ui.ctx().copy_text(run.short_form());
        }
    });
    if let Some((pair, _)) = nb.pair_of(run.number) {
        ui.horizontal(|ui| {
            ui.label(RichText::new(pair.line()).italics());
            if ui.button("Copy comparison sentence").on_hover_text("the comparison in one report sentence").clicked() {
                ui.ctx().copy_text(pair.sentence());
            }
        });
    }
    match cx.trials {
        Some(trials) if trials.run == run.number => plots::run_plot(ui, run, trials),
        _ => hint(ui, "Reading the trials…"),
    }
    discard_dialog(ui, state, cx);
}

fn discard_dialog(ui: &mut Ui, state: &mut ViewState, cx: &mut Context<'_>) {
    let Some((number, reason)) = &mut state.discarding else { return };
    let mut close = false;
    egui::Modal::new(egui::Id::unique("discard-run")).show(ui.ctx(), |ui| {
        ui.heading(format!("Discard run {number}"));
        ui.label("Nothing is deleted: the run stays in the log, struck through, and the reason is listed under Notes and anomalies.");
        let label = ui.label("Reason");
        ui.add(egui::TextEdit::singleline(reason).hint_text("why, e.g. closed the lid at t=120 s").desired_width(420.0)).labelled_by(label.id);
        ui.horizontal(|ui| {
            if ui.add_enabled(!reason.trim().is_empty(), egui::Button::new("Discard")).clicked() {
                cx.commands.push(AppCommand::Discard(*number, reason.clone()));
                close = true;
            }
            close |= ui.button("Cancel").clicked();
        });
    });
    if close {
        state.discarding = None;
    }
}
