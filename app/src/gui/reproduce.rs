//! The Reproduce dialog (SPEC R1–R3): open a classmate's notebook folder or
//! `measurements.xlsx` read-only, pick a row, read exactly what would run,
//! confirm, and see both rows side by side with the S7 verdict and the
//! conditions that differ. Their files are read on the I/O thread and never
//! written; the rerun goes into the open notebook. Every text from their file
//! is shown inert (SPEC N10), and a row that runs code written in their file
//! needs its own tick before it can run (R2).

use std::path::{Path, PathBuf};

use egui::{RichText, Ui};
use vernier_engine::display::inert;
use vernier_engine::harness::BenchSpec;
use vernier_engine::reproduce::{Log, Original, SideBySide, same_folder, spec_inline_code};

use super::{AppCommand, io::Pick};

/// A classmate's log, read for reproducing.
pub struct TheirLog {
    /// Where it was read from.
    pub source: PathBuf,
    /// Every run row, with the run that would repeat it or why none can.
    pub rows: Vec<(Original, Result<BenchSpec, String>)>,
    /// What could not be read (a foreign workbook's list).
    pub problems: Vec<String>,
}

/// Reads a notebook folder or any `measurements.xlsx`, read-only, unless it
/// is the open notebook `mine`: a rerun must never be recorded into the log
/// it reproduces. Runs on the I/O thread, since both steps read the disk.
pub fn read_log(path: &Path, mine: &Path) -> Result<TheirLog, String> {
    if same_folder(path, mine) {
        return Err("that is the open notebook; open your own notebook and reproduce from theirs".into());
    }
    let log = Log::open(path).map_err(|e| e.to_string())?;
    let rows = log
        .originals()
        .into_iter()
        .map(|o| {
            let spec = o.spec().map_err(|e| e.to_string());
            (o, spec)
        })
        .collect();
    Ok(TheirLog { source: path.to_path_buf(), rows, problems: log.problems().to_vec() })
}

/// The dialog's state.
#[derive(Default)]
pub struct Dialog {
    /// The path being typed.
    pub path: String,
    /// The log read, or why it could not be.
    pub log: Option<Result<TheirLog, String>>,
    /// The row picked (index into `rows`).
    pub selected: Option<usize>,
    /// The row whose inline code the user allowed to run (its own tick,
    /// given again for any other row).
    pub inline_allowed: Option<usize>,
    /// The row being rerun, until its result is recorded.
    pub pending: Option<usize>,
    /// The last rerun, side by side with its original.
    pub outcome: Option<(Original, SideBySide)>,
    /// The path field has had its first focus.
    focused: bool,
}

impl Dialog {
    /// The run that would repeat row `i` of their log, if it can be rerun.
    pub fn spec(&self, i: usize) -> Option<BenchSpec> {
        let (_, spec) = self.log.as_ref()?.as_ref().ok()?.rows.get(i)?;
        spec.clone().ok()
    }

    /// Draws the dialog, `busy` while any run is in flight, queueing what it
    /// asks for on `commands`; true when the user closes it.
    pub fn ui(&mut self, ui: &mut Ui, busy: bool, commands: &mut Vec<AppCommand>) -> bool {
        ui.horizontal(|ui| {
            let label = ui.label("Their notebook folder or measurements.xlsx");
            let edit = ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(360.0)).labelled_by(label.id);
            if !self.focused {
                // Typing starts in the path field as soon as the dialog opens.
                edit.request_focus();
                self.focused = true;
            }
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if (ui.button("Read").clicked() || enter) && !self.path.trim().is_empty() {
                commands.push(AppCommand::ReadTheirLog(PathBuf::from(self.path.trim())));
            }
            if ui.button("Folder…").clicked() {
                commands.push(AppCommand::Pick(Pick::Reproduce));
            }
            if ui.button("Workbook…").clicked() {
                commands.push(AppCommand::Pick(Pick::ReproduceWorkbook));
            }
        });
        ui.label(
            RichText::new("Read-only: nothing in their files is changed, and nothing runs until you confirm.").weak(),
        );
        ui.separator();
        match &self.log {
            None => {}
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            Some(Ok(_)) => self.log_ui(ui, busy, commands),
        }
        if let Some((original, outcome)) = &self.outcome {
            ui.separator();
            side_by_side(ui, original, outcome);
        }
        ui.add_space(6.0);
        ui.button("Close").clicked()
    }

    fn log_ui(&mut self, ui: &mut Ui, busy: bool, commands: &mut Vec<AppCommand>) {
        let Some(Ok(log)) = &self.log else { return };
        ui.label(RichText::new(format!("{} — {} run(s)", log.source.display(), log.rows.len())).strong());
        if !log.problems.is_empty() {
            egui::CollapsingHeader::new(format!("{} thing(s) could not be read", log.problems.len())).show(ui, |ui| {
                for p in &log.problems {
                    ui.label(inert(p));
                }
            });
        }
        egui::ScrollArea::vertical().max_height(180.0).show(ui, |ui| {
            egui::Grid::new("their-rows").striped(true).spacing([12.0, 4.0]).show(ui, |ui| {
                for title in ["#", "What", "n", "Median", "IQR"] {
                    ui.label(RichText::new(title).strong());
                }
                ui.end_row();
                for (i, (o, _)) in log.rows.iter().enumerate() {
                    if ui.selectable_label(self.selected == Some(i), o.row.to_string()).clicked() {
                        self.selected = Some(i);
                    }
                    ui.label(inert(&o.what));
                    ui.label(format!(
                        "{} + {}",
                        o.warmup_trials.map_or_else(|| "?".into(), |w| w.to_string()),
                        o.timed
                    ));
                    let figures = o.figures();
                    ui.label(inert(&figures.median()));
                    ui.label(inert(&figures.iqr()));
                    ui.end_row();
                }
            });
        });
        let Some(((original, spec), selected)) = self.selected.and_then(|i| Some((log.rows.get(i)?, i))) else {
            ui.label(RichText::new("Pick a row to see exactly what would run.").weak());
            return;
        };
        ui.separator();
        match spec {
            Ok(spec) => {
                ui.label(RichText::new(original.plan(&log.source.display().to_string(), spec)).monospace());
                let consented = match spec_inline_code(spec) {
                    None => true,
                    Some(why) => {
                        let mut ticked = self.inline_allowed == Some(selected);
                        let text = format!("I have read it: let it run code written in their file ({why})");
                        if ui.checkbox(&mut ticked, text).changed() {
                            self.inline_allowed = ticked.then_some(selected);
                        }
                        ticked
                    }
                };
                let running = self.pending.is_some();
                let label = if running { "Running…" } else { "Run it here" };
                let run = ui.add_enabled(!busy && !running && consented, egui::Button::new(label));
                if run.on_hover_text("reruns the command shown above on this machine, with your privileges").clicked() {
                    commands.push(AppCommand::ReproduceRow(selected));
                }
            }
            Err(why) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("cannot be rerun: {}", inert(why)));
            }
        }
    }
}

fn side_by_side(ui: &mut Ui, o: &Original, s: &SideBySide) {
    ui.label(RichText::new(format!("Run {} reproduced", o.row)).strong());
    let [theirs, mine] = s.figures(o).map(|f| [inert(&f.median()).into_owned(), inert(&f.iqr()).into_owned()]);
    egui::Grid::new("side-by-side").striped(true).spacing([16.0, 4.0]).show(ui, |ui| {
        for (a, b, c) in [
            ("".to_owned(), "Theirs".to_owned(), "Mine".to_owned()),
            ("Median".into(), theirs[0].clone(), mine[0].clone()),
            ("IQR".into(), theirs[1].clone(), mine[1].clone()),
            (
                "n (warm-up + timed)".into(),
                format!("{} + {}", o.warmup_trials.map_or_else(|| "?".into(), |w| w.to_string()), o.timed),
                format!("{} + {}", s.warmup, s.timed),
            ),
            (
                "Row".into(),
                format!("run {}", o.row),
                s.recorded_run.map_or_else(|| "not recorded".into(), |n| format!("run {n} (this notebook)")),
            ),
        ] {
            ui.label(RichText::new(a).strong());
            ui.label(b);
            ui.label(c);
            ui.end_row();
        }
    });
    ui.label(RichText::new(format!("S7: {}", inert(&s.verdict_text))).strong());
    if s.diff.is_empty() {
        ui.label("No recorded condition differs.");
    } else {
        ui.label(format!("{} condition(s) differ:", s.diff.len()));
        egui::Grid::new("env-diff").striped(true).spacing([16.0, 4.0]).show(ui, |ui| {
            for (a, b, c) in std::iter::once(("Condition", "Theirs", "Mine"))
                .chain(s.diff.iter().map(|d| (d.field.as_str(), d.theirs.as_str(), d.ours.as_str())))
            {
                ui.label(RichText::new(inert(a)).strong());
                ui.label(inert(b));
                ui.label(inert(c));
                ui.end_row();
            }
        });
    }
}
