//! The window's frame around the sections: menus, keyboard shortcuts, the
//! status bar, the running-measurement panels and the folder prompt.

use super::*;

impl VernierApp {
    pub(super) fn shortcuts(&mut self, ctx: &egui::Context) {
        let pressed = |s: &KeyboardShortcut| ctx.input_mut(|i| i.consume_shortcut(s));
        if pressed(&SHORTCUT_NEW) {
            self.commands.push(AppCommand::Pick(pick::Pick::New));
        }
        if pressed(&SHORTCUT_OPEN) {
            self.commands.push(AppCommand::Pick(pick::Pick::Open));
        }
        if pressed(&SHORTCUT_SAVE_AS) {
            self.commands.push(AppCommand::Pick(pick::Pick::SaveAs));
        }
        if pressed(&SHORTCUT_EXPORT) {
            self.commands.push(AppCommand::Export);
        }
        // The registered dialogs' keys, those with Shift first: Ctrl+R
        // would also match Ctrl+Shift+R.
        let (shifted, plain): (Vec<_>, Vec<_>) = dialogs::OPENED
            .iter()
            .filter_map(|o| Some((o.entry?.shortcut?, o.open)))
            .partition(|(s, _)| s.modifiers.shift);
        for (shortcut, open) in shifted.into_iter().chain(plain) {
            if pressed(&shortcut) {
                self.commands.push(AppCommand::Open(open));
            }
        }
        if pressed(&SHORTCUT_THEME) {
            self.commands.push(AppCommand::ToggleTheme);
        }
        if self.measure.live.is_some() && pressed(&SHORTCUT_CANCEL) {
            self.commands.push(AppCommand::CancelRun);
        }
        if self.measure.live_soak.is_some() && pressed(&SHORTCUT_CANCEL) {
            self.commands.push(AppCommand::CancelSoak);
        }
        for section in Section::ALL {
            if pressed(&section.shortcut()) {
                self.commands.push(AppCommand::Show(section));
            }
        }
    }

    pub(super) fn menu_ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        let item = |ui: &mut egui::Ui, label: &str, shortcut: &KeyboardShortcut| {
            ui.add(egui::Button::new(label).shortcut_text(ctx.format_shortcut(shortcut))).clicked()
        };
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if item(ui, "New notebook…", &SHORTCUT_NEW) {
                    self.commands.push(AppCommand::Pick(pick::Pick::New));
                }
                if item(ui, "Open notebook…", &SHORTCUT_OPEN) {
                    self.commands.push(AppCommand::Pick(pick::Pick::Open));
                }
                if item(ui, "Save as…", &SHORTCUT_SAVE_AS) {
                    self.commands.push(AppCommand::Pick(pick::Pick::SaveAs));
                }
                if item(ui, "Export the six documents", &SHORTCUT_EXPORT) {
                    self.commands.push(AppCommand::Export);
                }
                self.dialog_entries(ui, dialogs::Menu::File);
                ui.separator();
                ui.label(RichText::new("Recent").weak());
                for dir in self.settings.recent.clone() {
                    if dir != self.doc.dir && ui.button(vernier_engine::display::path(&dir)).clicked() {
                        self.commands.push(AppCommand::OpenDir(dir));
                    }
                }
            });
            ui.menu_button("Run", |ui| {
                self.dialog_entries(ui, dialogs::Menu::Run);
                if ui
                    .add_enabled(
                        self.measure.live.is_some(),
                        egui::Button::new("Cancel run").shortcut_text(ctx.format_shortcut(&SHORTCUT_CANCEL)),
                    )
                    .clicked()
                {
                    self.commands.push(AppCommand::CancelRun);
                }
            });
            ui.menu_button("View", |ui| {
                for section in Section::ALL {
                    if item(ui, section.title(), &section.shortcut()) {
                        self.commands.push(AppCommand::Show(section));
                    }
                }
                ui.separator();
                let theme = if self.settings.dark { "Light theme" } else { "Dark theme" };
                if item(ui, theme, &SHORTCUT_THEME) {
                    self.commands.push(AppCommand::ToggleTheme);
                }
            });
        });
    }

    /// The entries of the registered dialogs that sit in `menu`, in their
    /// registration's order, each greyed while its dialog cannot open.
    fn dialog_entries(&mut self, ui: &mut egui::Ui, menu: dialogs::Menu) {
        let cx = dialogs::OpenCx {
            notebook: &self.doc.notebook,
            running: self.measure.live.is_some(),
            soaking: self.measure.live_soak.is_some(),
        };
        for opening in dialogs::OPENED {
            let Some(entry) = opening.entry.filter(|e| e.menu == menu) else { continue };
            let mut button = egui::Button::new(entry.label);
            if let Some(shortcut) = &entry.shortcut {
                button = button.shortcut_text(ui.ctx().format_shortcut(shortcut));
            }
            let mut response = ui.add_enabled((opening.enabled)(&cx), button);
            if let Some(hover) = entry.hover {
                response = response.on_hover_text(hover);
            }
            if response.clicked() {
                self.commands.push(AppCommand::Open(opening.open));
            }
        }
    }

    pub(super) fn status_ui(&mut self, ui: &mut egui::Ui) {
        let (mut retry, mut discard) = (false, false);
        // Wrapped, not cut: a lock held elsewhere, a failed save or a long
        // error must be read whole at any window width, so the bar takes a
        // second line rather than losing its end.
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(vernier_engine::display::path(&self.doc.dir)).monospace());
            ui.separator();
            match (&self.files.io, &self.doc.save_error) {
                (None, _) => {
                    let since = self.doc.on_disk_at.format("%H:%M:%S");
                    ui.colored_label(
                        ui.visuals().error_fg_color,
                        format!(
                            "⚠ the file thread stopped: changes cannot be saved — restart Vernier; nothing since {since} is on disk"
                        ),
                    )
                }
                (Some(_), Some(e)) => {
                    // N10: a change that failed to save stays marked until it
                    // is saved or discarded; a later save does not hide it.
                    let failed = self.doc.unsaved.iter().filter(|u| u.failed).count();
                    let shown = ui.colored_label(
                        ui.visuals().error_fg_color,
                        format!("⚠ not saved: {e} — {failed} change(s) shown here are not on disk"),
                    );
                    if ui.small_button("Retry save").clicked() {
                        retry = true;
                    }
                    if ui.small_button("Discard unsaved changes").on_hover_text("shows the notebook as it is on disk").clicked() {
                        discard = true;
                    }
                    shown
                }
                (Some(_), None) if self.saved() => ui.label("✔ saved"),
                (Some(_), None) => match self.doc.saving_since.map(|t| t.elapsed().as_secs()) {
                    // A slow disk (or a large notebook, or a lock held
                    // elsewhere) is said, not hidden; the label is redrawn
                    // each second while it lasts. Closing now keeps the
                    // changes in a recovery file, which is what is said.
                    Some(waited) if waited >= 3 => {
                        ui.ctx().request_repaint_after(Duration::from_secs(1));
                        ui.colored_label(
                            ui.visuals().warn_fg_color,
                            format!(
                                "saving… ({waited} s; {} change(s) not on disk yet — closing keeps them in a recovery file)",
                                self.doc.unsaved.len()
                            ),
                        )
                    }
                    Some(_) => {
                        ui.ctx().request_repaint_after(Duration::from_secs(1));
                        ui.label("saving…")
                    }
                    None => ui.label("saving…"),
                },
            };
            if let Some(waiting) = self.files.lock_wait.shown() {
                ui.separator();
                ui.colored_label(ui.visuals().warn_fg_color, waiting);
            }
            if let Some(busy) = self.files.busy_since.map(|t| t.elapsed().as_secs()) {
                ui.ctx().request_repaint_after(Duration::from_secs(1));
                if busy >= 5 {
                    ui.separator();
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        format!("the file thread has been working for {busy} s; the window stays usable"),
                    );
                }
            }
            ui.separator();
            if let Some(soak) = &self.measure.live_soak {
                ui.label(format!("soak running: {}/{} samples", soak.points.len(), soak.total));
                ui.separator();
            }
            match (&self.measure.engine, &self.measure.live) {
                (None, _) => ui.colored_label(ui.visuals().error_fg_color, "⚠ engine stopped"),
                (Some(_), Some(live)) => ui.label(format!("engine: running {}/{} trials", live.done, live.total)),
                (Some(_), None) => ui.label("engine: idle"),
            };
            for f in &self.doc.findings {
                ui.separator();
                ui.colored_label(ui.visuals().error_fg_color, format!("⚠ {}", f.message));
            }
            if let Some((text, error)) = &self.status {
                ui.separator();
                if *error {
                    ui.colored_label(ui.visuals().error_fg_color, text);
                } else {
                    ui.label(text);
                }
            }
        });
        if retry {
            self.retry_unsaved();
        }
        if discard {
            self.discard_unsaved();
        }
    }

    pub(super) fn live_soak_ui(&mut self, ui: &mut egui::Ui) {
        let Some(live) = &self.measure.live_soak else { return };
        ui.horizontal(|ui| {
            ui.strong("Soak running — keep the machine as the protocol says");
            if ui.button("■ Stop").on_hover_text("Esc — the rows written so far are kept").clicked() {
                self.commands.push(AppCommand::CancelSoak);
            }
        });
        let done = live.points.len();
        let fraction = if live.total == 0 { 0.0 } else { done as f32 / live.total as f32 };
        ui.add(egui::ProgressBar::new(fraction).text(format!(
            "{done}/{} samples · {:.0} s elapsed",
            live.total,
            live.started.elapsed().as_secs_f64()
        )));
        egui_plot::Plot::new("live-soak-plot")
            .height(ui.available_height().clamp(120.0, 260.0))
            .include_y(0.0)
            .x_axis_label("time (s)")
            .y_axis_label("score (chunks/s)")
            .show(ui, |plot| plot.line(egui_plot::Line::new("score", &live.points[..])));
    }

    pub(super) fn live_ui(&mut self, ui: &mut egui::Ui) {
        let Some(live) = &self.measure.live else { return };
        ui.horizontal(|ui| {
            ui.strong(format!("Running: {}", live.title));
            if ui.button("■ Cancel").on_hover_text("Esc").clicked() {
                self.commands.push(AppCommand::CancelRun);
            }
        });
        let fraction = if live.total == 0 { 0.0 } else { live.done as f32 / live.total as f32 };
        let text = format!(
            "{}/{} trials · {:.0} s elapsed · about {:.0} s left",
            live.done,
            live.total,
            live.started.elapsed().as_secs_f64(),
            live.remaining.as_secs_f64().ceil()
        );
        ui.add(egui::ProgressBar::new(fraction).text(text));
        plots::live_plot(ui, &live.points, if live.scan { "trials (every point)" } else { "A" });
    }

    /// SPEC N12: the offer of edits typed into a workbook of this notebook,
    /// above the section; it asks nothing until clicked.
    pub(super) fn spreadsheet_bar_ui(&mut self, ui: &mut egui::Ui) {
        let Some(offer) = &self.shown.spreadsheet else { return };
        let fill = ui.visuals().extreme_bg_color;
        egui::Frame::new().fill(fill).inner_margin(6.0).corner_radius(4.0).show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                if ui.button(offer.button()).on_hover_text("lists each edit first; nothing is written yet").clicked() {
                    self.commands.push(AppCommand::TakeInDialog);
                }
                ui.label(offer.summary());
            });
        });
        ui.add_space(4.0);
    }
}
