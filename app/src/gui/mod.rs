//! The desktop window (SPEC U): the live notebook, the engine behind it,
//! and plots.
//!
//! Views draw and push [`AppCommand`]s; the app applies
//! them after the frame. Measurements run on the engine thread and files are
//! read and written on the I/O thread, so no frame waits on either.

mod io;
mod new_run;
mod plots;
mod settings;
mod soak_dialog;
mod soak_runner;
#[cfg(test)]
mod tests;
mod views;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use egui::{Key, KeyboardShortcut, Modifiers, RichText};
use vernier_engine::harness::{self, BenchSpec, Engine, EngineEvent};
use vernier_engine::notebook::{
    EnvField, IntegrityFinding, Notebook, NotebookPath, PredictionText, RawFile, Subject, Tag, store,
};

use crate::cli::{Failure, Outcome};
pub use views::Section;

/// Per frame, events are drained for at most this long so a burst of trials
/// never delays drawing.
const EVENT_BUDGET: Duration = Duration::from_millis(8);

const SHORTCUT_NEW: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::N);
const SHORTCUT_OPEN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
const SHORTCUT_SAVE_AS: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::S);
const SHORTCUT_RUN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::R);
const SHORTCUT_CANCEL: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::Escape);
const SHORTCUT_EXPORT: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::E);
const SHORTCUT_THEME: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::T);

/// Opens the window on `path`, or on the scratch notebook when none is given.
pub fn run(path: Option<PathBuf>) -> Outcome {
    let dir = match path {
        Some(p) => p,
        None => crate::scratch::ensure_scratch().map_err(Failure::failed)?,
    };
    // Read before the window exists, so the first frame already shows it.
    let notebook = store::load(&dir).map_err(Failure::input)?;
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Vernier")
            .with_app_id("vernier")
            .with_inner_size([1280.0, 800.0])
            .with_min_inner_size([720.0, 480.0]),
        ..Default::default()
    };
    eframe::run_native("Vernier", options, Box::new(|cc| Ok(Box::new(VernierApp::new(cc, dir, notebook)))))
        .map_err(|e| Failure::failed(anyhow::anyhow!("the window could not open (is there a display?): {e}")))?;
    Ok(0)
}

/// Everything the window can be asked to do.
pub enum AppCommand {
    /// Show a section.
    Show(Section),
    /// Ask for a folder with a native dialog.
    Pick(io::Pick),
    /// Open this notebook folder.
    OpenDir(PathBuf),
    /// Open the New run dialog.
    NewRun,
    /// Start a benchmark.
    StartRun(BenchSpec),
    /// Cancel the benchmark in flight.
    CancelRun,
    /// Record a prediction.
    AddPrediction(PredictionText),
    /// Rewrite an open prediction.
    EditPrediction(u32, PredictionText),
    /// Amend a prediction.
    AmendPrediction {
        /// Which.
        number: u32,
        /// The new `What I predict`.
        predict: String,
        /// The new `Why`.
        why: String,
    },
    /// Lock every open prediction.
    LockPredictions,
    /// Set an Environment field.
    SetEnvironment(EnvField, String),
    /// Add a note.
    AddNote(String),
    /// Discard a run with a reason.
    Discard(u32, String),
    /// Select a run and show its trials.
    SelectRun(u32),
    /// Switch between the dark and light themes.
    ToggleTheme,
    /// Read, analyse and chart a soak file (`None`: the shipped synthetic one).
    OpenSoak(Option<PathBuf>),
    /// Write the six documents into exports/.
    Export,
    /// Open the soak dialog.
    SoakDialog,
    /// Record a soak prediction with its protocol (T1).
    FixSoak(PredictionText, vernier_engine::notebook::SoakProtocol),
    /// Start the fixed soak protocol with this many workers.
    StartSoak(usize),
    /// Stop the running soak, keeping its rows.
    CancelSoak,
}

/// The soak in flight.
struct LiveSoak {
    handle: soak_runner::SoakHandle,
    total: usize,
    points: Vec<egui_plot::PlotPoint>,
    started: Instant,
}

/// The shipped synthetic soak, built into the binary so it opens anywhere.
pub const SHIPPED_SOAK: &str = include_str!("../../../datasets/thermal-soak.csv");

/// The benchmark in flight.
struct LiveRun {
    done: u64,
    total: u64,
    remaining: Duration,
    points: [Vec<egui_plot::PlotPoint>; 2],
    started: Instant,
    title: String,
}

/// The open notebook and whether it is on disk.
struct Doc {
    dir: PathBuf,
    notebook: Notebook,
    findings: Vec<IntegrityFinding>,
    /// Bumped on every change; a save reports the generation it wrote.
    generation: u64,
    saved: u64,
    save_error: Option<String>,
}

/// The app.
pub struct VernierApp {
    doc: Doc,
    settings: settings::Settings,
    io: Option<io::Io>,
    engine: Option<Engine>,
    live: Option<LiveRun>,
    views: views::ViewState,
    new_run: Option<new_run::NewRunForm>,
    trials: HashMap<u32, plots::RunTrials>,
    status: Option<(String, bool)>,
    commands: Vec<AppCommand>,
    /// A save that found the I/O queue full, retried next frame.
    save_pending: bool,
    /// A folder path being typed, for systems without a native dialog.
    path_prompt: Option<(io::Pick, String)>,
    /// The soak shown in the Soak runs section.
    soak: Option<plots::SoakView>,
    /// The soak dialog, when open.
    soak_form: Option<soak_dialog::SoakForm>,
    /// The soak running, if any.
    live_soak: Option<LiveSoak>,
    /// For waking the window from other threads.
    egui_ctx: egui::Context,
    /// The last export: each document with its unwritten parts.
    exported: Option<Vec<(&'static str, usize)>>,
}

impl VernierApp {
    /// The app on an already loaded notebook. Works without storage (tests).
    pub fn new(cc: &eframe::CreationContext<'_>, dir: PathBuf, notebook: Notebook) -> Self {
        let mut settings: settings::Settings =
            cc.storage.and_then(|s| eframe::get_value(s, settings::KEY)).unwrap_or_default();
        settings.remember(&dir);
        cc.egui_ctx.set_theme(if settings.dark { egui::Theme::Dark } else { egui::Theme::Light });
        let ctx = cc.egui_ctx.clone();
        let io = io::Io::spawn(move || ctx.request_repaint()).ok();
        let ctx = cc.egui_ctx.clone();
        let engine = Engine::spawn(move || ctx.request_repaint_after(Duration::from_millis(10))).ok();
        let findings = notebook.integrity();
        Self {
            doc: Doc { dir, notebook, findings, generation: 0, saved: 0, save_error: None },
            settings,
            io,
            engine,
            live: None,
            views: views::ViewState::default(),
            new_run: None,
            trials: HashMap::new(),
            status: None,
            commands: Vec::new(),
            save_pending: false,
            path_prompt: None,
            soak: None,
            soak_form: None,
            live_soak: None,
            egui_ctx: cc.egui_ctx.clone(),
            exported: None,
        }
    }

    /// Queues a command as if a view had pushed it (tests and benchmarks).
    pub fn apply(&mut self, command: AppCommand) {
        self.run_command(command);
    }

    /// The notebook shown (read-only; changes go through commands).
    pub fn notebook(&self) -> &Notebook {
        &self.doc.notebook
    }

    /// True while a benchmark runs.
    pub fn running(&self) -> bool {
        self.live.is_some()
    }

    /// True when every change has been saved.
    pub fn saved(&self) -> bool {
        self.doc.saved == self.doc.generation && !self.save_pending
    }

    fn say(&mut self, text: impl Into<String>, error: bool) {
        self.status = Some((text.into(), error));
    }

    /// After every change: re-check the chain and save in the background.
    fn changed(&mut self) {
        self.doc.generation += 1;
        self.doc.findings = self.doc.notebook.integrity();
        self.request_save();
    }

    fn request_save(&mut self) {
        let Some(io) = &self.io else {
            self.doc.save_error = Some("the file thread is not running; changes cannot be saved".into());
            return;
        };
        let request = io::Request::Save {
            dir: self.doc.dir.clone(),
            notebook: Box::new(self.doc.notebook.clone()),
            generation: self.doc.generation,
        };
        self.save_pending = !io.send(request);
    }

    fn open(&mut self, dir: PathBuf, notebook: Notebook) {
        self.settings.remember(&dir);
        let findings = notebook.integrity();
        self.doc = Doc { dir, notebook, findings, generation: 0, saved: 0, save_error: None };
        self.views = views::ViewState { section: self.views.section, ..Default::default() };
        // What was shown belonged to the previous notebook.
        self.trials.clear();
        self.soak = None;
        self.exported = None;
    }

    /// Applies one command.
    fn run_command(&mut self, command: AppCommand) {
        let now = chrono::Utc::now();
        let nb = &mut self.doc.notebook;
        let edit = match command {
            AppCommand::Show(section) => {
                self.views.section = section;
                return;
            }
            AppCommand::Pick(purpose) => {
                if let Some(io) = &self.io {
                    io.pick_folder(purpose, self.doc.dir.parent().map(PathBuf::from));
                }
                return;
            }
            AppCommand::OpenDir(dir) => {
                if let Some(io) = &self.io {
                    io.send(io::Request::Load { dir });
                }
                return;
            }
            AppCommand::NewRun => {
                if self.live.is_none() {
                    self.new_run.get_or_insert_with(Default::default);
                }
                return;
            }
            AppCommand::StartRun(spec) => {
                self.start_run(spec);
                return;
            }
            AppCommand::CancelRun => {
                if let Some(engine) = &self.engine {
                    engine.cancel();
                }
                return;
            }
            AppCommand::ToggleTheme => {
                self.settings.dark = !self.settings.dark;
                return;
            }
            AppCommand::OpenSoak(path) => {
                if let Some(io) = &self.io {
                    io.send(io::Request::ReadSoak { path });
                }
                return;
            }
            AppCommand::Export => {
                if let Some(io) = &self.io {
                    io.send(io::Request::Export {
                        dir: self.doc.dir.clone(),
                        notebook: Box::new(self.doc.notebook.clone()),
                    });
                }
                return;
            }
            AppCommand::SoakDialog => {
                if self.live_soak.is_none() {
                    self.soak_form.get_or_insert_with(Default::default);
                }
                return;
            }
            AppCommand::StartSoak(workers) => {
                self.start_soak(workers);
                return;
            }
            AppCommand::CancelSoak => {
                if let Some(live) = &self.live_soak {
                    live.handle.cancel();
                }
                return;
            }
            AppCommand::FixSoak(text, protocol) => {
                nb.add_soak_prediction(text, protocol, now).map(|n| format!("recorded P{n} with its soak protocol"))
            }
            AppCommand::SelectRun(number) => {
                self.select_run(number);
                return;
            }
            AppCommand::AddPrediction(text) => nb.add_prediction(text, now).map(|n| format!("recorded P{n}")),
            AppCommand::EditPrediction(n, text) => nb.edit_prediction(n, text).map(|()| format!("rewrote P{n}")),
            AppCommand::AmendPrediction { number, predict, why } => {
                nb.amend_prediction(number, &predict, &why, now).map(|n| format!("recorded P{n}, amending P{number}"))
            }
            AppCommand::LockPredictions => Ok(format!("locked {} prediction(s)", nb.lock_open_predictions(now))),
            AppCommand::SetEnvironment(field, value) => {
                nb.environment.set(field, &value).map(|()| format!("{} set", field.label()))
            }
            AppCommand::AddNote(text) => nb.add_note(&text, now).map(|()| "note added".to_owned()),
            AppCommand::Discard(n, reason) => nb
                .discard(Subject::Run(n), &reason, now)
                .map(|()| format!("discarded run {n}; it is listed under Notes and anomalies")),
        };
        match edit {
            Ok(message) => {
                self.say(message, false);
                self.changed();
            }
            // The notebook's rules refused it (a locked prediction, an empty
            // reason …): say why, change nothing.
            Err(e) => self.say(e.to_string(), true),
        }
    }

    fn start_run(&mut self, spec: BenchSpec) {
        if self.live_soak.is_some() {
            self.say("a soak is running: it needs the machine to itself; stop it or wait", true);
            return;
        }
        let Some(engine) = &self.engine else {
            self.say("the engine is not running; restart Vernier", true);
            return;
        };
        let title = spec.arms.iter().map(|a| a.argv().join(" ")).collect::<Vec<_>>().join("  vs  ");
        engine.start(spec);
        self.new_run = None;
        self.live = Some(LiveRun {
            done: 0,
            total: 0,
            remaining: Duration::ZERO,
            points: [Vec::new(), Vec::new()],
            started: Instant::now(),
            title,
        });
        self.views.section = Section::Runs;
    }

    /// Starts the protocol fixed with the newest open soak prediction.
    fn start_soak(&mut self, workers: usize) {
        let Some((_, protocol)) = self.doc.notebook.open_soak_protocol() else {
            self.say("fix the soak protocol with a prediction first", true);
            return;
        };
        if self.live.is_some() || self.live_soak.is_some() {
            self.say("wait for the measurement in progress to finish: a soak needs the machine to itself", true);
            return;
        }
        let n = self.doc.notebook.soaks().len() + 1;
        let out = self.doc.dir.join(store::RAW_DIR).join(format!("soak-{n}.csv"));
        let context = vernier_engine::soak::run::stated_context(&self.doc.notebook.environment);
        let ctx = self.egui_ctx.clone();
        match soak_runner::SoakHandle::start(protocol, workers, out, context, move || ctx.request_repaint()) {
            Ok(handle) => {
                let total = (protocol.duration_s / protocol.interval_s).floor() as usize;
                self.live_soak = Some(LiveSoak { handle, total, points: Vec::new(), started: Instant::now() });
                self.soak_form = None;
                self.views.section = Section::Soaks;
            }
            Err(e) => self.say(format!("the soak could not start: {e}"), true),
        }
    }

    fn on_soak_event(&mut self, event: soak_runner::SoakEvent) {
        match event {
            soak_runner::SoakEvent::Sample(row) => {
                if let Some(live) = &mut self.live_soak {
                    live.points.push(egui_plot::PlotPoint::new(row[0], row[5]));
                }
            }
            soak_runner::SoakEvent::Finished(result) => {
                self.live_soak = None;
                let done = match result {
                    Ok(done) => done,
                    Err(e) => return self.say(format!("the soak failed: {e}"), true),
                };
                let path = done
                    .path
                    .strip_prefix(&self.doc.dir)
                    .ok()
                    .and_then(|p| NotebookPath::new(p.to_string_lossy()).ok());
                let raw_file = path.map(|path| RawFile { path, sha256: done.sha256.clone(), arm: "A".into() });
                match done.analysis {
                    Ok(a) => {
                        let n = self.doc.notebook.record_soak(
                            done.protocol,
                            a.numbers(vernier_engine::soak::SCORE_UNIT),
                            done.conditions,
                            raw_file,
                            Tag::Measured,
                            false,
                            chrono::Utc::now(),
                        );
                        let stopped = if done.cancelled { " (stopped early; every row written is kept)" } else { "" };
                        self.say(format!("recorded soak S{n}{stopped}"), false);
                        self.changed();
                    }
                    Err(e) => {
                        let _ = self.doc.notebook.add_note(
                            &format!(
                                "A soak stopped before it could be analysed ({e}); its rows are kept in {}.",
                                done.path.display()
                            ),
                            chrono::Utc::now(),
                        );
                        self.say(format!("the soak could not be analysed: {e}"), true);
                        self.changed();
                    }
                }
                self.run_command(AppCommand::OpenSoak(Some(done.path)));
            }
        }
    }

    fn select_run(&mut self, number: u32) {
        self.views.selected_run = Some(number);
        self.views.show_sweep = false;
        if self.trials.contains_key(&number) {
            return;
        }
        let raw = self.doc.notebook.run(number).and_then(|r| r.measurement.raw_file.as_ref()).map(|r| r.path.clone());
        match (raw, &self.io) {
            // Resolving the path looks at the disk (symbolic links), so the
            // I/O thread does it.
            (Some(path), Some(io)) => {
                io.send(io::Request::ReadTrials { run: number, dir: self.doc.dir.clone(), path });
            }
            (Some(_), None) => self.say("the file thread is not running", true),
            (None, _) => self.say(format!("run {number} has no raw file to plot"), false),
        }
    }

    /// Drains engine and I/O events within the frame's budget.
    fn drain_events(&mut self) {
        let start = Instant::now();
        while start.elapsed() < EVENT_BUDGET {
            let event = self.engine.as_ref().and_then(|e| e.events().try_recv().ok());
            let Some(event) = event else { break };
            self.on_engine_event(event);
        }
        while start.elapsed() < EVENT_BUDGET {
            let Some(event) = self.io.as_ref().and_then(io::Io::try_event) else { break };
            self.on_io_event(event);
        }
        while start.elapsed() < EVENT_BUDGET {
            let Some(event) = self.live_soak.as_ref().and_then(|l| l.handle.try_event()) else { break };
            self.on_soak_event(event);
        }
        if self.save_pending {
            self.request_save();
        }
    }

    fn on_engine_event(&mut self, event: EngineEvent) {
        match event {
            EngineEvent::Started { total } => {
                if let Some(live) = &mut self.live {
                    live.total = total;
                }
            }
            EngineEvent::Trial(trial, progress) => {
                if let Some(live) = &mut self.live {
                    live.done = progress.done;
                    live.total = progress.total;
                    live.remaining = progress.remaining;
                    let arm = trial.arm.min(1);
                    live.points[arm].push(egui_plot::PlotPoint::new(trial.index as f64, trial.ns as f64 / 1e6));
                }
            }
            EngineEvent::Finished(result) => {
                self.live = None;
                let next_run = self.doc.notebook.runs().len() + 1;
                match &self.io {
                    Some(io) => {
                        io.send(io::Request::WriteRaw { dir: self.doc.dir.clone(), result, next_run });
                    }
                    None => self.say("the run finished but the file thread is not running; it was not recorded", true),
                }
            }
            EngineEvent::Failed(e) => {
                self.live = None;
                self.say(format!("the run could not start: {e}"), true);
            }
        }
    }

    fn on_io_event(&mut self, event: io::Event) {
        match event {
            io::Event::Saved { generation, result } => match result {
                Ok(()) => {
                    self.doc.saved = self.doc.saved.max(generation);
                    self.doc.save_error = None;
                }
                Err(e) => self.doc.save_error = Some(e),
            },
            io::Event::Loaded { dir, result } => match result {
                Ok(notebook) => {
                    self.say(format!("opened {}", dir.display()), false);
                    self.open(dir, *notebook);
                }
                Err(e) => self.say(e, true),
            },
            io::Event::Exported(result) => match result {
                Ok(unwritten) => {
                    let left: usize = unwritten.iter().map(|(_, n)| n).sum();
                    self.say(format!("exported the six documents to exports/; {left} part(s) still to write"), false);
                    self.exported = Some(unwritten);
                }
                Err(e) => self.say(format!("export failed: {e}"), true),
            },
            io::Event::SavedAs { to, result } => match result {
                Ok(()) => {
                    self.say(format!("saved as {}; this is now the open notebook", to.display()), false);
                    self.settings.remember(&to);
                    self.doc.dir = to;
                }
                Err(e) => self.say(e, true),
            },
            io::Event::RawWritten { result, raw } => match raw {
                Ok(raw_file) => {
                    let recorded = harness::add_rows(&mut self.doc.notebook, &result, &raw_file, chrono::Utc::now());
                    let message = match (&result.failure, recorded.runs.as_slice()) {
                        (Some(f), _) => format!("the run ended early ({f}); its trials are in {}", recorded.raw_file),
                        (None, runs) => {
                            let rows: Vec<String> = runs.iter().map(u32::to_string).collect();
                            format!("recorded run {}", rows.join(" and "))
                        }
                    };
                    let failed = result.failure.is_some();
                    if let Some(&last) = recorded.runs.last() {
                        self.select_run(last);
                    }
                    self.say(message, failed);
                    self.changed();
                }
                Err(e) => self.say(format!("the run finished but its raw file could not be written: {e}"), true),
            },
            io::Event::Soak(result) => match result {
                Ok(view) => self.soak = Some(*view),
                Err(e) => self.say(e, true),
            },
            io::Event::Trials { run, result } => match (result, self.doc.notebook.run(run)) {
                (Ok(trials), Some(r)) => {
                    let view = plots::RunTrials::new(r, &trials);
                    self.trials.insert(run, view);
                }
                (Err(e), _) => self.say(format!("run {run}: {e}"), true),
                (Ok(_), None) => {}
            },
            io::Event::Picked { purpose, path: Some(dir), .. } => {
                let request = match purpose {
                    io::Pick::Open => io::Request::Load { dir },
                    io::Pick::New => io::Request::Create { dir },
                    io::Pick::SaveAs => io::Request::SaveAs {
                        from: self.doc.dir.clone(),
                        to: dir,
                        notebook: Box::new(self.doc.notebook.clone()),
                    },
                };
                if let Some(io) = &self.io {
                    io.send(request);
                }
            }
            io::Event::Picked { purpose, path: None, failed: true } => {
                self.say("no file-dialog service answered on this desktop; type the folder instead", true);
                self.path_prompt = Some((purpose, String::new()));
            }
            io::Event::Picked { path: None, failed: false, .. } => {}
        }
    }

    fn shortcuts(&mut self, ctx: &egui::Context) {
        let pressed = |s: &KeyboardShortcut| ctx.input_mut(|i| i.consume_shortcut(s));
        if pressed(&SHORTCUT_NEW) {
            self.commands.push(AppCommand::Pick(io::Pick::New));
        }
        if pressed(&SHORTCUT_OPEN) {
            self.commands.push(AppCommand::Pick(io::Pick::Open));
        }
        if pressed(&SHORTCUT_SAVE_AS) {
            self.commands.push(AppCommand::Pick(io::Pick::SaveAs));
        }
        if pressed(&SHORTCUT_EXPORT) {
            self.commands.push(AppCommand::Export);
        }
        if pressed(&SHORTCUT_RUN) {
            self.commands.push(AppCommand::NewRun);
        }
        if pressed(&SHORTCUT_THEME) {
            self.commands.push(AppCommand::ToggleTheme);
        }
        if self.live.is_some() && pressed(&SHORTCUT_CANCEL) {
            self.commands.push(AppCommand::CancelRun);
        }
        if self.live_soak.is_some() && pressed(&SHORTCUT_CANCEL) {
            self.commands.push(AppCommand::CancelSoak);
        }
        for (i, section) in Section::ALL.into_iter().enumerate() {
            let key = [Key::Num1, Key::Num2, Key::Num3, Key::Num4, Key::Num5, Key::Num6, Key::Num7][i];
            if pressed(&KeyboardShortcut::new(Modifiers::COMMAND, key)) {
                self.commands.push(AppCommand::Show(section));
            }
        }
    }

    fn menu_ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        let item = |ui: &mut egui::Ui, label: &str, shortcut: &KeyboardShortcut| {
            ui.add(egui::Button::new(label).shortcut_text(ctx.format_shortcut(shortcut))).clicked()
        };
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if item(ui, "New notebook…", &SHORTCUT_NEW) {
                    self.commands.push(AppCommand::Pick(io::Pick::New));
                }
                if item(ui, "Open notebook…", &SHORTCUT_OPEN) {
                    self.commands.push(AppCommand::Pick(io::Pick::Open));
                }
                if item(ui, "Save as…", &SHORTCUT_SAVE_AS) {
                    self.commands.push(AppCommand::Pick(io::Pick::SaveAs));
                }
                if item(ui, "Export the six documents", &SHORTCUT_EXPORT) {
                    self.commands.push(AppCommand::Export);
                }
                if ui
                    .button("Open or create by path…")
                    .on_hover_text("For desktops without a file-dialog service")
                    .clicked()
                {
                    self.path_prompt = Some((io::Pick::Open, String::new()));
                }
                ui.separator();
                ui.label(RichText::new("Recent").weak());
                for dir in self.settings.recent.clone() {
                    if dir != self.doc.dir && ui.button(dir.display().to_string()).clicked() {
                        self.commands.push(AppCommand::OpenDir(dir));
                    }
                }
            });
            ui.menu_button("Run", |ui| {
                if ui
                    .add_enabled(
                        self.live.is_none(),
                        egui::Button::new("New run…").shortcut_text(ctx.format_shortcut(&SHORTCUT_RUN)),
                    )
                    .clicked()
                {
                    self.commands.push(AppCommand::NewRun);
                }
                if ui
                    .add_enabled(
                        self.live.is_some(),
                        egui::Button::new("Cancel run").shortcut_text(ctx.format_shortcut(&SHORTCUT_CANCEL)),
                    )
                    .clicked()
                {
                    self.commands.push(AppCommand::CancelRun);
                }
            });
            ui.menu_button("View", |ui| {
                for (i, section) in Section::ALL.into_iter().enumerate() {
                    let shortcut = format!("{}+{}", if cfg!(target_os = "macos") { "Cmd" } else { "Ctrl" }, i + 1);
                    if ui.add(egui::Button::new(section.title()).shortcut_text(shortcut)).clicked() {
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

    fn status_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label(RichText::new(self.doc.dir.display().to_string()).monospace());
            ui.separator();
            match &self.doc.save_error {
                Some(e) => ui.colored_label(ui.visuals().error_fg_color, format!("⚠ not saved: {e}")),
                None if self.saved() => ui.label("✔ saved"),
                None => ui.label("saving…"),
            };
            ui.separator();
            if let Some(soak) = &self.live_soak {
                ui.label(format!("soak running: {}/{} samples", soak.points.len(), soak.total));
                ui.separator();
            }
            match (&self.engine, &self.live) {
                (None, _) => ui.colored_label(ui.visuals().error_fg_color, "engine stopped"),
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
    }

    /// Typing a folder path: opened if it holds a notebook, else created
    /// (decided on the I/O thread, which may look at the disk).
    fn path_prompt_ui(&mut self, ctx: &egui::Context) {
        let Some((purpose, path)) = &mut self.path_prompt else { return };
        let save_as = *purpose == io::Pick::SaveAs;
        let mut close = false;
        let mut chosen = None;
        egui::Modal::new(egui::Id::unique("path-prompt")).show(ctx, |ui| {
            ui.heading(if save_as { "Save the notebook as" } else { "Open or create a notebook" });
            let label = ui.label("Folder");
            let edit = ui.add(egui::TextEdit::singleline(path).desired_width(420.0)).labelled_by(label.id);
            ui.label(
                RichText::new("A folder with notebook.ron is opened; an empty or new one becomes a new notebook.")
                    .weak(),
            );
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
            ui.horizontal(|ui| {
                if (ui.add_enabled(!path.trim().is_empty(), egui::Button::new("Open")).clicked() || enter)
                    && !path.trim().is_empty()
                {
                    chosen = Some(PathBuf::from(path.trim()));
                }
                close |= ui.button("Cancel").clicked();
            });
        });
        if let Some(dir) = chosen {
            let request = if save_as {
                io::Request::SaveAs {
                    from: self.doc.dir.clone(),
                    to: dir,
                    notebook: Box::new(self.doc.notebook.clone()),
                }
            } else {
                io::Request::OpenOrCreate { dir }
            };
            if let Some(io) = &self.io {
                io.send(request);
            }
            close = true;
        }
        if close {
            self.path_prompt = None;
        }
    }

    fn live_soak_ui(&mut self, ui: &mut egui::Ui) {
        let Some(live) = &self.live_soak else { return };
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

    fn live_ui(&mut self, ui: &mut egui::Ui) {
        let Some(live) = &self.live else { return };
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
        plots::live_plot(ui, &live.points);
    }
}

impl eframe::App for VernierApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.drain_events();
        self.shortcuts(ctx);
        if self.live.is_some() {
            // Keep the elapsed time and the strip moving even between trials.
            ctx.request_repaint_after(Duration::from_millis(100));
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let theme = if self.settings.dark { egui::Theme::Dark } else { egui::Theme::Light };
        if ui.ctx().theme() != theme {
            ui.ctx().set_theme(theme);
        }
        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui));
        egui::Panel::left("sections").resizable(false).default_size(200.0).show(ui, |ui| {
            ui.add_space(6.0);
            ui.heading("Vernier");
            ui.label(RichText::new(&self.doc.notebook.title).weak());
            ui.separator();
            for section in Section::ALL {
                let count = section.count(&self.doc.notebook).map(|n| format!("  ({n})")).unwrap_or_default();
                if ui.selectable_label(self.views.section == section, format!("{}{count}", section.title())).clicked() {
                    self.commands.push(AppCommand::Show(section));
                }
            }
        });
        if self.live.is_some() {
            egui::Panel::bottom("live").resizable(true).default_size(260.0).show(ui, |ui| self.live_ui(ui));
        }
        if self.live_soak.is_some() {
            egui::Panel::bottom("live-soak").resizable(true).default_size(260.0).show(ui, |ui| self.live_soak_ui(ui));
        }
        egui::CentralPanel::default().show(ui, |ui| {
            ui.heading(self.views.section.heading());
            ui.add_space(4.0);
            let trials = self.views.selected_run.and_then(|n| self.trials.get(&n));
            let mut cx = views::Context {
                notebook: &self.doc.notebook,
                commands: &mut self.commands,
                trials,
                soak: self.soak.as_ref(),
                findings: &self.doc.findings,
                exported: self.exported.as_deref(),
                dir: &self.doc.dir,
            };
            if self.views.section == Section::Runs {
                // The runs table scrolls itself; an outer scroll area would fight it.
                views::section_ui(ui, &mut self.views, &mut cx);
            } else {
                egui::ScrollArea::vertical()
                    .auto_shrink(false)
                    .show(ui, |ui| views::section_ui(ui, &mut self.views, &mut cx));
            }
        });
        if let Some(form) = &mut self.new_run {
            let mut result = None;
            egui::Modal::new(egui::Id::unique("new-run")).show(ui.ctx(), |ui| result = form.ui(ui));
            match result {
                Some(Ok(spec)) => self.commands.push(AppCommand::StartRun(spec)),
                Some(Err(())) => self.new_run = None,
                None => {}
            }
        }
        self.path_prompt_ui(ui.ctx());
        if let Some(form) = &mut self.soak_form {
            let mut action = None;
            egui::Modal::new(egui::Id::unique("soak-dialog"))
                .show(ui.ctx(), |ui| action = form.ui(ui, &self.doc.notebook));
            match action {
                Some(soak_dialog::SoakAction::Fix(text, protocol)) => {
                    self.commands.push(AppCommand::FixSoak(text, protocol))
                }
                Some(soak_dialog::SoakAction::Start(workers)) => self.commands.push(AppCommand::StartSoak(workers)),
                Some(soak_dialog::SoakAction::Close) => self.soak_form = None,
                None => {}
            }
        }
        for command in std::mem::take(&mut self.commands) {
            self.run_command(command);
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, settings::KEY, &self.settings);
    }
}
