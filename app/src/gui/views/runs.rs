//! The Runs section (SPEC N2, N5, U1, U4): a virtualised table — only the
//! visible rows are built, so ten thousand runs scroll smoothly — and the
//! selected run's trials, or the seq/chase sweep.

use egui::{RichText, Ui};
use egui_extras::{Column, TableBuilder};
use vernier_engine::display::inert;
use vernier_engine::extend::Extension;
use vernier_engine::notebook::RunColumn;

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
            .column(Column::initial(110.0))
            .column(Column::initial(150.0))
            .column(Column::initial(220.0).clip(true).resizable(true))
            .column(Column::initial(110.0).clip(true))
            .column(Column::remainder().at_least(90.0));
        if let Some(selected) = state.selected_run {
            table = table.scroll_to_row(selected.saturating_sub(1) as usize, None);
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
                body.rows(ROW_HEIGHT, nb.runs().len(), |mut row| {
                    let run = &nb.runs()[row.index()];
                    row.set_selected(state.selected_run == Some(run.number));
                    let discarded = run.discarded.is_some();
                    for column in RunColumn::ALL {
                        row.col(|ui| {
                            let text = RichText::new(run.cell(column));
                            // N5: a discarded run stays, struck through.
                            let label = egui::Label::new(if discarded { text.strikethrough().weak() } else { text });
                            ui.add(label.truncate().selectable(false));
                        });
                    }
                    if row.response().clicked() {
                        cx.commands.push(AppCommand::SelectRun(run.number));
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
            ui.ctx().copy_text(run.long_form(nb.environment()));
        }
        if ui.button("Copy short form").on_hover_text("one report sentence with its conditions").clicked() {
            ui.ctx().copy_text(run.short_form(nb.environment()));
        }
        if let Some(earlier) = run.measurement.extends {
            ui.label(RichText::new(format!("extends run {earlier}")).weak());
        }
    });
    extend_ui(ui, state, cx, run.number);
    match cx.trials {
        Some(trials) if trials.run == run.number => plots::run_plot(ui, run, trials),
        _ => hint(ui, "Reading the trials…"),
    }
    discard_dialog(ui, state, cx);
}

/// S10: rerun the selected run's spec to 51 trials as a new row linked to
/// it, judged against the claim typed; a run that cannot be extended says why.
fn extend_ui(ui: &mut Ui, state: &mut ViewState, cx: &mut Context<'_>, run: u32) {
    let plan = Extension::plan(cx.notebook, run);
    ui.horizontal(|ui| {
        let label = ui.label("Claim");
        ui.add(
            egui::TextEdit::singleline(&mut state.extend_claim).hint_text("optional: 0.5ms or 5%").desired_width(180.0),
        )
        .labelled_by(label.id)
        .on_hover_text("the difference you mean to claim; for a comparison it defaults to its difference");
        let button = ui.add_enabled(plan.is_ok(), egui::Button::new("Extend to 51 trials"));
        let button = match &plan {
            Ok(_) => button.on_hover_text(
                "rerun this run's spec (command or kernel, warm-up, pin) to 51 timed trials as a new row, \
                 and see whether the median moved by more than the difference you mean to claim",
            ),
            Err(why) => button.on_disabled_hover_text(inert(&why.to_string())),
        };
        if button.clicked() {
            cx.commands.push(AppCommand::ExtendRun(run, state.extend_claim.clone()));
        }
    });
    if let Some((runs, verdict)) = &state.extension
        && runs.contains(&run)
    {
        ui.label(RichText::new(format!("S10: {}", inert(verdict))).strong());
    }
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
