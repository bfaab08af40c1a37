//! The Soak runs section (SPEC N2, T1, T5, T10): recorded soaks with their
//! six numbers and the protocol each ran with; click one — or open any
//! soak file — to see its numbers and chart.
//!
//! A recorded soak is shown under its own protocol everywhere — its row,
//! the numbers above its chart, the chart's windows — and with the numbers
//! its row keeps: the file is not read again under the T1 defaults, which
//! would give another tail window and so another tail IQR. Only a file
//! opened on its own, which records no protocol, is read under the
//! defaults, and says so.

use egui::{RichText, Ui};
use vernier_engine::notebook::{Notebook, Soak, SoakColumn};

use super::{Context, hint};
use crate::gui::dialogs::soak::SoakForm;
use crate::gui::plots::{SoakReading, SoakView};
use crate::gui::{AppCommand, plots};

/// What the Soak runs section keeps between frames.
#[derive(Default)]
pub struct State {
    /// A soak file path being typed.
    pub soak_path: String,
    /// The recorded soak shown, read under its own protocol once.
    pub soak_reading: ReadingCache,
    /// The soak file read and shown, when one is.
    pub soak: Option<SoakView>,
}

impl State {
    /// A soak file read: shown, or why not said.
    pub fn soak_read(&mut self, result: Result<Box<SoakView>, String>, asks: &mut Vec<AppCommand>) {
        match result {
            Ok(view) => self.soak = Some(*view),
            Err(text) => asks.push(AppCommand::Say { text, error: true }),
        }
    }

    /// Asks for recorded soak `number`'s raw file to be read and shown.
    pub fn open_recorded(&mut self, number: u32, nb: &Notebook, dir: &std::path::Path, asks: &mut Vec<AppCommand>) {
        let raw = nb.soaks().iter().find(|s| s.number == number).and_then(|s| s.raw_file.as_ref());
        if let Some(raw) = raw {
            asks.push(AppCommand::OpenSoak(Some(dir.join(raw.path.as_str()))));
        }
    }
}

/// The protocol columns after the six numbers, named as the workbook
/// names them (SPEC N2: the Soak runs section carries the protocol fixed
/// before the run).
const PROTOCOL_COLUMNS: [&str; 5] =
    ["Opening window (s)", "Tail window (s)", "Threshold (of P)", "Hold (samples)", "Band"];

fn protocol_cells(soak: &Soak) -> [String; 5] {
    let p = &soak.protocol;
    [
        p.opening_window_s.to_string(),
        p.tail_window_s.to_string(),
        p.threshold.to_string(),
        p.hold.to_string(),
        p.band.to_string(),
    ]
}

impl super::SectionView for State {
    /// The log's own name (N2: identical in the window and the workbook);
    /// one past the end of `SECTIONS` does not compile.
    const TITLE: &'static str = vernier_engine::notebook::SECTIONS[3];

    fn count(nb: &Notebook) -> Option<usize> {
        Some(nb.soaks().len())
    }

    fn ui(&mut self, ui: &mut Ui, cx: &mut Context<'_>) {
        soaks_ui(ui, self, cx);
    }
}

fn soaks_ui(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    let nb = cx.notebook;
    ui.horizontal(|ui| {
        if ui.button("▶ Soak…").on_hover_text("Fix the protocol with a prediction, then run it").clicked() {
            cx.commands.push(AppCommand::open::<SoakForm>());
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
    let shown = state.soak.as_ref().and_then(|view| recorded_soak(nb, cx.dir, view));
    if nb.soaks().is_empty() {
        hint(
            ui,
            "No soak runs recorded yet (vernier soak run --notebook DIR). A soak file can still be analysed above.",
        );
    } else {
        ui.scope(|ui| soaks_table(ui, cx, shown.map(|s| s.number)));
    }
    ui.separator();
    let Some(view) = &state.soak else {
        hint(ui, "Choose a soak to see its curve.");
        return;
    };
    let reading = match shown {
        Some(soak) => state.soak_reading.get(view, soak, cx.revision),
        None => &view.defaults,
    };
    reading_ui(ui, view, reading);
    plots::soak_chart(ui, view, reading);
}

/// The recorded soak whose raw file `view` shows, if any.
pub fn recorded_soak<'a>(nb: &'a Notebook, dir: &std::path::Path, view: &SoakView) -> Option<&'a Soak> {
    let shown = std::path::Path::new(&view.title);
    nb.soaks().iter().find(|s| s.raw_file.as_ref().is_some_and(|raw| dir.join(raw.path.as_str()) == shown))
}

/// Every recorded soak: its cells as the log shows them, then its
/// protocol. The soak shown below is marked.
fn soaks_table(ui: &mut Ui, cx: &mut Context<'_>, shown: Option<u32>) {
    // Sideways scrolling keeps a wide row from widening the chart below; a
    // solid bar takes its own room (a floating one lay over the last row
    // and took the click meant for its link).
    let nb = cx.notebook;
    ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
    egui::ScrollArea::horizontal().id_salt("soaks-x").show(ui, |ui| {
        egui::Grid::new("soaks").striped(true).spacing([14.0, 6.0]).show(ui, |ui| {
            for header in SoakColumn::ALL.iter().map(|c| c.header()).chain(PROTOCOL_COLUMNS) {
                ui.label(RichText::new(header).strong());
            }
            ui.end_row();
            for soak in nb.soaks() {
                let discarded = soak.discarded.is_some();
                let style = |text: String| {
                    let text = RichText::new(text);
                    let text = if shown == Some(soak.number) { text.strong() } else { text };
                    if discarded { text.strikethrough().weak() } else { text }
                };
                for column in SoakColumn::ALL {
                    let text = style(soak.cell(column));
                    if column == SoakColumn::Number
                        && let Some(raw) = &soak.raw_file
                    {
                        let link = ui.link(text).on_hover_text("show its numbers and chart under its protocol");
                        if link.clicked() {
                            cx.commands.push(AppCommand::OpenSoak(Some(cx.dir.join(raw.path.as_str()))));
                        }
                    } else {
                        ui.label(text);
                    }
                }
                for cell in protocol_cells(soak) {
                    ui.label(style(cell));
                }
                ui.end_row();
            }
        })
    });
}

/// Whose protocol, the six numbers and the knee, what they mean (T5, T7,
/// T8, T11), and the columns that are placeholders.
fn reading_ui(ui: &mut Ui, view: &SoakView, reading: &SoakReading) {
    ui.label(RichText::new(reading.protocol_line()).strong());
    if let Some(numbers) = reading.numbers() {
        // The six numbers and the knee, as every face shows them (T5, T11, S6).
        ui.label(numbers.shown_line());
    }
    match &reading.analysis {
        Ok(a) => {
            if let Some(warning) = &a.windows_warning {
                ui.colored_label(ui.visuals().warn_fg_color, format!("The windows do not fit: {warning}."));
            }
            if let Some(warning) = &a.ramp_warning {
                ui.colored_label(ui.visuals().warn_fg_color, format!("⚠ {warning}."));
            }
            ui.label(
                RichText::new(vernier_engine::soak::analysis::honesty_line(a, vernier_engine::soak::SCORE_UNIT)).weak(),
            );
            if let Some(finding) = &reading.finding {
                ui.label(RichText::new(finding).weak());
            }
        }
        Err(e) if reading.soak.is_some() => {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("The numbers above are the row's; its file no longer reads under its protocol: {e}"),
            );
        }
        Err(e) => {
            ui.colored_label(ui.visuals().warn_fg_color, e);
        }
    }
    if !view.placeholders.is_empty() {
        ui.label(RichText::new(format!("placeholders, not observations: {}", view.placeholders.join(", "))).weak());
    }
}

/// A recorded soak's reading, made once per file, soak and notebook state
/// rather than every frame (a long soak's analysis sorts every sample).
#[derive(Default)]
pub struct ReadingCache {
    key: Option<(u64, u32, u64)>,
    reading: Option<SoakReading>,
}

impl ReadingCache {
    fn get(&mut self, view: &SoakView, soak: &Soak, revision: u64) -> &SoakReading {
        let key = (view.id, soak.number, revision);
        if self.key != Some(key) {
            self.key = Some(key);
            self.reading = None;
        }
        self.reading.get_or_insert_with(|| view.reading(Some(soak)))
    }
}
