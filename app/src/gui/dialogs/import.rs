//! The "Add run from numbers…" dialog (SPEC E14): numbers the student's own
//! instrument took — a CSV of trials, Google Benchmark's or pyperf's JSON,
//! or numbers typed or pasted — shown
//! as the rows they would become (medians, IQRs, n, and for two arms the
//! verdict) *before* anything is recorded; Record then writes exactly what
//! was shown. The file is read on the file thread, never here.

use std::path::PathBuf;
use std::sync::Arc;

use egui::{Key, KeyboardShortcut, Modifiers, RichText, Ui};
use vernier_engine::bounded::read_bounded;
use vernier_engine::import::csv::{self, Arms, CsvSpec, PASTED_COLUMN};
use vernier_engine::import::{self, Format, ImportRecorded, MAX_IMPORT_BYTES, Prepared};
use vernier_engine::stats::units::Figures;

use super::layout::{self, Scrolling};
use super::{Cx, Dialog, MenuEntry, Happened, Keep, Menu, OpenCx, Opens};
use crate::gui::Done;
use crate::gui::io::{Follow, Job, Unwritten};
use crate::gui::{AppCommand, Section, VernierApp};

/// Where the numbers come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportSource {
    /// A CSV of trials on disk.
    File(PathBuf),
    /// Numbers (or a CSV with its header) typed or pasted into the dialog.
    Pasted(String),
}

/// What the file thread is asked to read and summarise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRequest {
    /// The numbers.
    pub source: ImportSource,
    /// The columns and descriptions; an empty arm column is guessed from
    /// the header (the time columns, `pair`, `first`).
    pub spec: CsvSpec,
    /// What the instrument timed, as stated (SPEC S16); `None`: "as it
    /// states".
    pub boundary: Option<String>,
}

/// What the file thread found: the header's names, the spec it used (with
/// the guessed columns filled in), and the rows it would record.
#[derive(Debug, Clone)]
pub struct ImportPreview {
    /// The request as the form sent it.
    pub asked: ImportRequest,
    /// What the file was read as.
    pub format: Format,
    /// The columns of a CSV, for the column choices.
    pub columns: Vec<String>,
    /// The spec used, the guessed columns filled in.
    pub used: CsvSpec,
    /// The rows, or why the numbers cannot be recorded.
    pub result: Result<Arc<Prepared>, String>,
}

/// Reads and summarises the numbers (on the file thread): nothing is
/// written, so a preview can be asked for as often as the form changes. A
/// file is read as the tool that wrote it, by the importer its first bytes
/// match (a CSV of trials, Google Benchmark's JSON, pyperf's, hyperfine's).
pub fn preview(request: ImportRequest) -> ImportPreview {
    let (path, bytes) = match &request.source {
        ImportSource::File(path) => match read_bounded(path, MAX_IMPORT_BYTES, "a file of measurements") {
            Ok(bytes) => (path.clone(), bytes),
            Err(e) => return failed(request, e.to_string()),
        },
        ImportSource::Pasted(text) => {
            let csv = csv::pasted(text).unwrap_or_else(|| text.clone());
            (PathBuf::from("numbers typed into the window"), csv.into_bytes())
        }
    };
    let format = Format::detect(&bytes);
    // A CSV's columns are the student's to name: guessed from its header.
    let (columns, used) = if format.takes_columns() {
        match csv::header(&path, &bytes) {
            Ok(columns) => {
                let used = guessed(&request.spec, &columns);
                (columns, used)
            }
            Err(e) => return failed(request, e.to_string()),
        }
    } else {
        (Vec::new(), request.spec.clone())
    };
    let result = format
        .prepare(&path, &bytes, &used)
        .map(|p| Arc::new(p.with_boundary(request.boundary.clone())))
        .map_err(|e| e.to_string());
    ImportPreview { asked: request, format, columns, used, result }
}

fn failed(asked: ImportRequest, message: String) -> ImportPreview {
    let used = asked.spec.clone();
    ImportPreview { asked, format: Format::default(), columns: Vec::new(), used, result: Err(message) }
}

/// The spec with an unnamed arm column guessed from the header: the
/// columns whose name ends in a time unit (`naive_ms`, `blocked_ms`) are
/// the arms, the first two of them a comparison; `pair` and `first` name
/// the pairs and the order when the file has them. A lone column is the
/// arm when there is nothing else to pick.
fn guessed(spec: &CsvSpec, columns: &[String]) -> CsvSpec {
    let named = match &spec.arms {
        Arms::One(a) => !a.trim().is_empty(),
        Arms::Two([a, b]) => !a.trim().is_empty() && !b.trim().is_empty(),
    };
    if named {
        return spec.clone();
    }
    let timed: Vec<&String> = columns.iter().filter(|c| csv::unit_suffix(c).is_some()).collect();
    let find = |name: &str| columns.iter().find(|c| c.eq_ignore_ascii_case(name)).cloned();
    match (timed.as_slice(), columns) {
        ([a, b, ..], _) => CsvSpec {
            arms: Arms::Two([(*a).clone(), (*b).clone()]),
            pair: spec.pair.clone().or_else(|| find("pair")),
            first: spec.first.clone().or_else(|| find("first")),
            ..spec.clone()
        },
        ([a], _) => CsvSpec { arms: Arms::One((*a).clone()), first: None, ..spec.clone() },
        ([], [a]) => CsvSpec { arms: Arms::One(a.clone()), first: None, ..spec.clone() },
        _ => spec.clone(),
    }
}

/// What the dialog asks the window to do.
#[derive(Debug, Clone)]
pub enum ImportAction {
    /// Read and summarise the numbers as the form now says.
    Preview(Box<ImportRequest>),
    /// Record the rows previewed.
    Record(Arc<Prepared>),
    /// Choose a file with the desktop's dialog.
    Browse,
    /// Close without recording.
    Close,
}

impl Opens for ImportForm {
    const ENTRY: Option<MenuEntry> = Some(MenuEntry {
        menu: Menu::Run,
        label: "Add run from numbers…",
        shortcut: Some(KeyboardShortcut::new(Modifiers::COMMAND, Key::I)),
        hover: None,
    });

    /// With the Environment's build flags filled in.
    fn make(cx: &OpenCx<'_>) -> Self {
        Self::with_build(cx.notebook.environment().get(vernier_engine::notebook::EnvField::CompilerFlags))
    }
}

impl Dialog for ImportForm {
    fn show(&mut self, ctx: &egui::Context, cx: &mut Cx<'_>) -> Keep {
        let mut action = None;
        egui::Modal::new(egui::Id::unique("import-dialog")).show(ctx, |ui| {
            ui.set_max_height(ui.ctx().content_rect().height() - 80.0);
            action = self.ui(ui);
        });
        match action {
            Some(ImportAction::Preview(request)) => cx.commands.push(AppCommand::PreviewImport(request)),
            Some(ImportAction::Record(prepared)) => cx.commands.push(AppCommand::RecordImport(prepared)),
            Some(ImportAction::Browse) => cx.commands.push(AppCommand::Pick(super::pick::Pick::ImportFile)),
            Some(ImportAction::Close) => return Keep::Close,
            None => {}
        }
        Keep::Open
    }

    fn on(&mut self, _: Happened) -> Keep {
        // What was typed and previewed stays; recording it goes to the
        // notebook open then.
        Keep::Open
    }
}

impl Job for ImportRequest {
    /// Reads and summarises the numbers for the form, writing nothing.
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        Done::ImportPreview(preview(*self))
    }
}

/// Records a previewed import on the file thread, through the engine's one
/// way of recording an import ([`import::record`]), which the command line
/// calls too: the raw copy and the rows, in one change under the lock.
pub struct RecordImport {
    /// The notebook's folder.
    pub dir: std::path::PathBuf,
    /// The rows as previewed.
    pub prepared: Arc<Prepared>,
}

impl Job for RecordImport {
    fn run(self: Box<Self>, follow: &mut Follow) -> Done {
        let RecordImport { dir, prepared } = *self;
        let prepared = Prepared::clone(&prepared).read_here(&vernier_engine::platform::machine::Machine::read());
        let recorded = import::record(&dir, &prepared)
            .map(|done| {
                follow.saved(&dir, done.stamp.clone(), &done.notebook);
                let unwritten = vernier_engine::documents::unwritten(&done.notebook);
                Box::new((done, unwritten))
            })
            .map_err(|e| match e {
                vernier_engine::notebook::store::ChangeError::Refused(e) => {
                    format!("nothing was recorded: the raw copy could not be written: {e}")
                }
                e => e.to_string(),
            });
        Done::ImportRecorded { prepared: Box::new(prepared), recorded }
    }
}

impl VernierApp {
    /// The dialog, opened if it is not.
    pub(in crate::gui) fn import_form(&mut self) -> &mut ImportForm {
        let build = self.doc.notebook.environment().get(vernier_engine::notebook::EnvField::CompilerFlags);
        self.dialogs.get_or_open(|| ImportForm::with_build(build))
    }

    /// Reads the file at `path` in the dialog: another file, its own
    /// columns, guessed afresh.
    pub(in crate::gui) fn import_file(&mut self, path: &std::path::Path) {
        let form = self.import_form();
        *form = ImportForm { paste: false, path: path.display().to_string(), ..form.clone() };
        form.columns.clear();
        form.column_a.clear();
        form.column_b.clear();
        form.pair.clear();
        form.first.clear();
        form.preview = None;
        if let Ok(request) = form.request() {
            form.busy = true;
            self.send_job(request);
        }
    }

    /// Records the import exactly as it was previewed, on the file thread.
    pub(in crate::gui) fn write_import(&mut self, prepared: Arc<Prepared>) {
        self.send_job(RecordImport { dir: self.doc.dir.clone(), prepared });
    }

    /// The dialog's file read and summarised: shown in the form, if open.
    pub(in crate::gui) fn import_previewed(&mut self, preview: ImportPreview) {
        if let Some(form) = self.dialogs.get_mut::<ImportForm>() {
            form.show_preview(preview);
        }
    }

    /// An import as the engine recorded it: the window shows the notebook
    /// as saved (its own changes still on their way on top), says what was
    /// recorded, closes the dialog and selects the new rows.
    pub(in crate::gui) fn import_recorded(
        &mut self,
        prepared: &Prepared,
        recorded: Result<Box<(ImportRecorded, Unwritten)>, String>,
    ) {
        let (done, unwritten) = match recorded {
            Ok(recorded) => *recorded,
            Err(e) => {
                if let Some(form) = self.dialogs.get_mut::<ImportForm>() {
                    form.busy = false;
                }
                return self.say(e, true);
            }
        };
        let rows = &done.rows;
        let runs: Vec<String> = rows.runs.iter().map(u32::to_string).collect();
        let pair = rows.pair.map(|c| format!(" as comparison C{c}")).unwrap_or_default();
        let message = format!("recorded run {} from {}{pair}", runs.join(" and "), prepared.name);
        let last = rows.runs.last().copied();
        let notebook = crate::gui::jobs::with_unsaved(done.notebook, self.doc.unsaved.iter().map(|u| &u.change));
        self.doc.adopt(notebook, unwritten);
        self.say(message, false);
        self.dialogs.close::<ImportForm>();
        if let Some(last) = last {
            self.select_run(last);
        }
        self.views.section = Section::Runs;
    }
}

/// How wide the dialog is when the window has room: a 420-pixel path or
/// text field with its label, and four columns of column choices.
const WIDTH: f32 = 720.0;

/// The form.
#[derive(Debug, Clone, Default)]
pub struct ImportForm {
    /// Numbers typed or pasted (true) or a file (false).
    pub paste: bool,
    /// The file's path as typed or chosen.
    pub path: String,
    /// The numbers typed or pasted.
    pub pasted: String,
    /// The header's names, once read.
    pub columns: Vec<String>,
    /// Arm A's column; empty: guessed.
    pub column_a: String,
    /// Arm B's column; empty: one arm.
    pub column_b: String,
    /// The pair column; empty: none.
    pub pair: String,
    /// The column naming the arm that ran first; empty: none.
    pub first: String,
    /// `ms`, `us`, `ns`, `s`; empty: from the columns' names.
    pub unit: String,
    /// The first K trials of each arm in the file are warm-up.
    pub warmup: u32,
    /// Warm-up trials that ran but are not in the file; empty: not stated.
    pub warmup_stated: String,
    /// What the rows are about.
    pub what: String,
    /// The arms' labels.
    pub labels: [String; 2],
    /// How the measured program was built.
    pub build: String,
    /// The instrument that took the numbers.
    pub instrument: String,
    /// What the instrument timed: where its clock started and stopped.
    pub boundary: String,
    /// How the numbers were produced (the driver's command).
    pub command: String,
    /// The last preview, while it is of the form as it is.
    pub preview: Option<ImportPreview>,
    /// A preview or a recording is under way.
    pub busy: bool,
    /// A preview has just come: the body scrolls to it once, since in a
    /// small window it is below the form.
    pub reveal: bool,
}

impl ImportForm {
    /// A fresh form whose build starts as the Environment's Compiler +
    /// flags as stated when the dialog opens (SPEC N11).
    pub fn with_build(build: String) -> Self {
        Self { build, ..Self::default() }
    }

    /// The request the form states now, or what is wrong with it.
    pub fn request(&self) -> Result<ImportRequest, String> {
        let source = if self.paste {
            if self.pasted.trim().is_empty() {
                return Err("type or paste the numbers".into());
            }
            ImportSource::Pasted(self.pasted.clone())
        } else {
            if self.path.trim().is_empty() {
                return Err("choose the CSV file".into());
            }
            ImportSource::File(PathBuf::from(self.path.trim()))
        };
        let given = |text: &str| Some(text.trim()).filter(|t| !t.is_empty()).map(str::to_owned);
        let warmup_stated = match given(&self.warmup_stated) {
            None => None,
            Some(text) => Some(
                text.parse::<u32>()
                    .map_err(|_| format!("the warm-up not in the file must be a whole number, not '{text}'"))?,
            ),
        };
        let a = if self.paste && self.column_a.trim().is_empty() { PASTED_COLUMN } else { self.column_a.trim() };
        let arms = match given(&self.column_b) {
            Some(b) => Arms::Two([a.to_owned(), b]),
            None => Arms::One(a.to_owned()),
        };
        let two = matches!(arms, Arms::Two(_));
        Ok(ImportRequest {
            source,
            spec: CsvSpec {
                arms,
                pair: given(&self.pair),
                first: given(&self.first).filter(|_| two),
                unit: given(&self.unit),
                warmup: (self.warmup > 0).then_some(self.warmup),
                warmup_stated,
                what: given(&self.what),
                labels: [given(&self.labels[0]), given(&self.labels[1]).filter(|_| two)],
                command: given(&self.command),
                build: given(&self.build),
                // Numbers typed in say so; a file's default names the file.
                instrument: given(&self.instrument)
                    .or_else(|| self.paste.then(|| "typed into Vernier's window; instrument not named".to_owned())),
            },
            boundary: given(&self.boundary),
        })
    }

    /// Takes in a preview: the header's names, and the columns guessed.
    pub fn show_preview(&mut self, preview: ImportPreview) {
        self.busy = false;
        if !preview.columns.is_empty() {
            self.columns = preview.columns.clone();
        }
        let own = |text: &mut String, value: Option<&String>| {
            if text.trim().is_empty()
                && let Some(value) = value
            {
                *text = value.clone();
            }
        };
        match &preview.used.arms {
            Arms::One(a) => own(&mut self.column_a, Some(a)),
            Arms::Two([a, b]) => {
                own(&mut self.column_a, Some(a));
                own(&mut self.column_b, Some(b));
            }
        }
        own(&mut self.pair, preview.used.pair.as_ref());
        own(&mut self.first, preview.used.first.as_ref());
        // The form now names what was guessed: the preview is of it.
        let mut preview = preview;
        if let Ok(request) = self.request() {
            preview.asked = request;
        }
        self.preview = Some(preview);
        self.reveal = true;
    }

    /// The previewed rows, while the preview is of the form as it is now.
    fn current(&self) -> Option<&Arc<Prepared>> {
        let preview = self.preview.as_ref()?;
        let request = self.request().ok()?;
        (preview.asked == request).then_some(())?;
        preview.result.as_ref().ok()
    }

    /// Draws the dialog; returns what the student asked for. It fits the
    /// window (SPEC U1, E14): the form and the preview scroll, and Preview,
    /// Record and Close stay in view below them.
    pub fn ui(&mut self, ui: &mut Ui) -> Option<ImportAction> {
        layout::fit_width(ui, WIDTH);
        let mut action = None;
        ui.heading("Add run from numbers");
        ui.add(
            egui::Label::new(
                RichText::new(
                    "Numbers your own instrument took. They are recorded as measured by it — never by Vernier's \
                     harness — with the file kept unchanged as the rows' raw file.",
                )
                .weak(),
            )
            .wrap(),
        );
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.paste, false, "CSV file");
            ui.selectable_value(&mut self.paste, true, "Type or paste numbers");
        });
        let max_height = layout::max_size(ui.ctx()).y;
        let body = egui::ScrollArea::vertical();
        let (footer, ()) = Scrolling::body(ui, max_height, body, |ui| {
            self.source_ui(ui, &mut action);
            let format = self.preview.as_ref().map_or_else(Format::default, |p| p.format);
            if format.takes_columns() {
                self.columns_ui(ui);
                self.description_ui(ui);
            } else {
                ui.label(format!(
                    "{}: one row per benchmark, its own warm-ups and context kept; the tool is named as the \
                     instrument.",
                    format.name()
                ));
                self.tool_ui(ui);
            }
            ui.separator();
            self.preview_ui(ui);
        });
        let footer = footer.footer(ui, |ui| self.footer_ui(ui));
        footer.or(action)
    }

    /// Preview, Record and Close, and what the form still lacks.
    fn footer_ui(&mut self, ui: &mut Ui) -> Option<ImportAction> {
        let mut action = None;
        ui.horizontal(|ui| {
            let request = self.request();
            if ui.add_enabled(request.is_ok() && !self.busy, egui::Button::new("Preview")).clicked()
                && let Ok(request) = request.clone()
            {
                self.busy = true;
                action = Some(ImportAction::Preview(Box::new(request)));
            }
            let current = self.current().cloned();
            let record = ui
                .add_enabled(current.is_some() && !self.busy, egui::Button::new("Record"))
                .on_disabled_hover_text("Preview first: what is recorded is what the preview shows");
            if record.clicked()
                && let Some(prepared) = current
            {
                self.busy = true;
                action = Some(ImportAction::Record(prepared));
            }
            // A run may be going while numbers are added: then Esc is the
            // run's (the window consumes it first to cancel), never both.
            if layout::close_button(ui, None, true) {
                action = Some(ImportAction::Close);
            }
            if let Err(why) = request {
                ui.label(RichText::new(why).weak());
            }
        });
        action
    }

    fn source_ui(&mut self, ui: &mut Ui, action: &mut Option<ImportAction>) {
        if self.paste {
            let label = ui.label("Numbers");
            ui.add(
                egui::TextEdit::multiline(&mut self.pasted)
                    .hint_text("5.712 5.688 5.731 …  (spaces, commas or one per line; or a CSV with its header)")
                    .desired_rows(4)
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(label.id);
        } else {
            ui.horizontal(|ui| {
                let label = ui.label("File");
                ui.add(
                    egui::TextEdit::singleline(&mut self.path)
                        .hint_text("trials.csv (header row of names), or a Google Benchmark / pyperf .json")
                        .desired_width(420.0),
                )
                .labelled_by(label.id);
                if ui.button("Choose…").clicked() {
                    *action = Some(ImportAction::Browse);
                }
            });
        }
    }

    fn columns_ui(&mut self, ui: &mut Ui) {
        egui::Grid::new("import-columns").num_columns(4).spacing([12.0, 6.0]).show(ui, |ui| {
            let columns = self.columns.clone();
            column_choice(ui, "Arm A column", &mut self.column_a, &columns, "guess from the header");
            column_choice(ui, "Arm B column", &mut self.column_b, &columns, "none: one arm");
            ui.end_row();
            column_choice(ui, "Pair column", &mut self.pair, &columns, "none");
            column_choice(ui, "Ran-first column", &mut self.first, &columns, "none");
            ui.end_row();
            let label = ui.label("Unit");
            egui::ComboBox::from_id_salt("import-unit")
                .selected_text(if self.unit.is_empty() { "from the column's name" } else { &self.unit })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.unit, String::new(), "from the column's name");
                    for unit in ["s", "ms", "us", "ns"] {
                        ui.selectable_value(&mut self.unit, unit.to_owned(), unit);
                    }
                })
                .response
                .labelled_by(label.id);
            let label = ui.label("Warm-up in the file");
            ui.add(egui::DragValue::new(&mut self.warmup).range(0..=1000).suffix(" trials")).labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Warm-up not in the file");
            ui.add(egui::TextEdit::singleline(&mut self.warmup_stated).hint_text("not stated").desired_width(120.0))
                .labelled_by(label.id);
            ui.end_row();
        });
    }

    /// What a tool's file does not say: warm-up runs it did not write
    /// (Google Benchmark), how the program was built, how it was run.
    fn tool_ui(&mut self, ui: &mut Ui) {
        egui::Grid::new("import-tool").num_columns(2).spacing([12.0, 6.0]).show(ui, |ui| {
            text_rows(
                ui,
                [
                    ("Warm-up not in the file", &mut self.warmup_stated, "not stated"),
                    ("Build", &mut self.build, "g++ -O2 -std=c++17"),
                    ("Command", &mut self.command, "./matmul_bench --benchmark_repetitions=9"),
                    ("Timing boundary", &mut self.boundary, "default: as the tool states"),
                ],
            );
            super::layout::build_warning_row(ui, &self.build, 420.0);
        });
    }

    fn description_ui(&mut self, ui: &mut Ui) {
        egui::Grid::new("import-description").num_columns(2).spacing([12.0, 6.0]).show(ui, |ui| {
            let [label_a, label_b] = &mut self.labels;
            text_rows(
                ui,
                [
                    ("What", &mut self.what, "matmul 512: naive vs blocked"),
                    ("Label A", label_a, "default: the column's stem"),
                    ("Label B", label_b, "default: the column's stem"),
                    ("Instrument", &mut self.instrument, "benchmark.cpp, steady_clock"),
                    ("Timing boundary", &mut self.boundary, "what it timed: the multiply only, in-process"),
                    ("Build", &mut self.build, "g++ -O2 -march=native"),
                    ("Command", &mut self.command, "./matmul_driver 512 (how the numbers were produced)"),
                ],
            );
        });
    }

    fn preview_ui(&mut self, ui: &mut Ui) {
        if std::mem::take(&mut self.reveal) {
            ui.scroll_to_cursor(Some(egui::Align::Min));
        }
        let Some(preview) = &self.preview else {
            ui.label(RichText::new("Preview shows the rows before anything is recorded.").weak());
            return;
        };
        let prepared = match &preview.result {
            Ok(prepared) => prepared,
            Err(why) => {
                ui.colored_label(ui.visuals().error_fg_color, why);
                return;
            }
        };
        if self.current().is_none() {
            ui.label(RichText::new("The form changed: preview again before recording.").weak());
        }
        ui.label(RichText::new(format!("{} would become:", prepared.name)).strong());
        for row in &prepared.rows {
            let m = &row.measurement;
            let figures = Figures::of(&m.summary, &m.unit);
            // A comparison's rows are its arms A and B; a tool's are named by their benchmark.
            let arm = if prepared.pair.is_some() { format!("{} · ", row.arm) } else { String::new() };
            ui.label(format!(
                "{arm}{}: median {}, {}, n {}",
                m.what,
                figures.median(),
                figures.dispersion(),
                m.n_text()
            ));
        }
        if let Some(pair) = &prepared.pair {
            // One verdict (S15): S7's first, the evidence beside it.
            let mut lines = pair.evidence(prepared.facts()).lines(None).into_iter();
            if let Some(verdict) = lines.next() {
                ui.label(RichText::new(verdict).strong());
            }
            for line in lines {
                ui.label(line);
            }
        }
        for check in &prepared.checks {
            if check.failed {
                ui.colored_label(ui.visuals().warn_fg_color, &check.text);
            } else {
                ui.label(&check.text);
            }
        }
    }
}

/// One labelled one-line field per row of a two-column grid.
fn text_rows<const N: usize>(ui: &mut Ui, rows: [(&str, &mut String, &str); N]) {
    for (name, text, hint) in rows {
        let label = ui.label(name);
        ui.add(egui::TextEdit::singleline(text).hint_text(hint).desired_width(420.0)).labelled_by(label.id);
        ui.end_row();
    }
}

/// A column picked from the header's names, or typed before it is read.
fn column_choice(ui: &mut Ui, name: &str, value: &mut String, columns: &[String], none: &str) {
    let label = ui.label(name);
    if columns.is_empty() {
        ui.add(egui::TextEdit::singleline(value).hint_text(none).desired_width(160.0)).labelled_by(label.id);
        return;
    }
    egui::ComboBox::from_id_salt(name)
        .selected_text(if value.is_empty() { none } else { value.as_str() })
        .show_ui(ui, |ui| {
            ui.selectable_value(value, String::new(), none);
            for column in columns {
                ui.selectable_value(value, column.clone(), column);
            }
        })
        .response
        .labelled_by(label.id);
}
