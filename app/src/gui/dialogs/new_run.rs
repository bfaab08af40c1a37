//! The "New run" dialog (SPEC U3): a command (or two, interleaved) or a
//! kernel, with n, warm-up, pinning, cool-down and timeout; parameters to
//! scan (E16), `{SIZE}` in the command or in a kernel's size; for a command,
//! the program's own figure (E17), which "Try once" checks on one process
//! before anything is recorded.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use egui::{Key, KeyboardShortcut, Modifiers, RichText, Ui};

use super::layout::{self, Scrolling};
use super::{Cx, Dialog, MenuEntry, Happened, Keep, Menu, OpenCx, Opens};
use crate::gui::AppCommand;
use vernier_engine::display::{inert, quote_argv};
use vernier_engine::duration;
use vernier_engine::harness::metric::TryOnce;
use vernier_engine::harness::{BenchSpec, DEFAULT_RUNS, Scan, Subject, TrialStatus, schedule::SETTLE_MAX};
use vernier_engine::notebook::{Notebook, Param, Prediction};
use vernier_engine::notebook::WarmupPolicy;
use vernier_engine::notebook::{DEFAULT_MATMUL_N, DEFAULT_WORKING_SET, KernelKind, KernelSpec};
use vernier_engine::notebook::{MetricSpec, Source};

/// How wide the dialog is when the window has room: the command fields'
/// 360 pixels with their labels and hints.
const WIDTH: f32 = 600.0;

/// What is being filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRunForm {
    /// Kernel (true) or command (false).
    pub kernel_mode: bool,
    /// Command A as typed (split into words, no shell).
    pub command: String,
    /// Optional command B, interleaved with A.
    pub versus: String,
    /// The kernel.
    pub kernel: KernelKind,
    /// Optional kernel B.
    pub versus_kernel: Option<KernelKind>,
    /// Working set (bytes) or matrix dimension; empty for the default.
    pub size: String,
    /// Tile for matmul-blocked; empty for the default.
    pub tile: String,
    /// Timed trials (odd).
    pub runs: u32,
    /// Warm-up count, unless `settle`.
    pub warmup: u32,
    /// Warm up until two trials agree within 5 %.
    pub settle: bool,
    /// Pin to CPU `pin_cpu`.
    pub pin: bool,
    /// The CPU to pin to.
    pub pin_cpu: usize,
    /// Cool-down in seconds, 0 for none.
    pub cooldown_s: f64,
    /// Per-trial timeout in seconds, 0 for none.
    pub timeout_s: f64,
    /// The budget each trial should meet, in milliseconds (SPEC S19); 0:
    /// the notebook's trial budget, if one is set.
    pub budget_ms: f64,
    /// How the commands' program was built (SPEC N11); with `build_b`,
    /// program A's.
    pub build: String,
    /// Program B's own build in a comparison; empty: B's is `build` too.
    pub build_b: String,
    /// The builds are recipes Vernier runs just before measuring (SPEC
    /// N15), in the folder Vernier was started from.
    pub build_runs: bool,
    /// What the run or comparison is about; empty: named by its command.
    pub what: String,
    /// The labels of arms A and B of a comparison (SPEC S11).
    pub labels: [String; 2],
    /// The run is the control condition, repeated in each session (SPEC S14).
    pub control: bool,
    /// Parameters to scan, one `NAME=V1,V2,…` or `NAME=START..END*FACTOR`
    /// a line (SPEC E16); empty: one command.
    pub params: String,
    /// Where the program's own figure is read from (SPEC E17).
    pub figure: FigureSource,
    /// The regular expression (one capture group) or the JSON key.
    pub figure_pattern: String,
    /// The figure's unit as the program states it.
    pub figure_unit: String,
    /// Every figure a process prints is a trial.
    pub figure_each: bool,
    /// The pattern that reads each trial's result from its output (SPEC
    /// S18, `--check`); empty: none.
    pub check: String,
    /// The program's fixed inputs as stated (SPEC E19, `--inputs`).
    pub inputs: String,
    /// The last "Try once": running, or what it found.
    pub tried: Option<Tried>,
    /// After a kernel run, the sanity check: twice the input against twice
    /// the time, and the clock estimate (SPEC E12).
    pub sanity: bool,
    /// The prediction the run answers once recorded (SPEC N14): its number.
    pub answers: Option<u32>,
    /// The predictions it may answer, `(number, "P1 — figure")`: those
    /// recorded before now, set by the window each frame; no row is shown
    /// when there are none.
    pub answerable: Vec<(u32, String)>,
}

/// How the program's own figure is found in its output (SPEC E17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FigureSource {
    /// Not read: the process's wall time is the trial.
    #[default]
    None,
    /// A regular expression with one capture group.
    Regex,
    /// A JSON key (`a.b` reaches into objects).
    JsonKey,
}

impl FigureSource {
    fn name(self) -> &'static str {
        match self {
            FigureSource::None => "none (wall time)",
            FigureSource::Regex => "regular expression",
            FigureSource::JsonKey => "JSON key",
        }
    }
}

/// One process run by "Try once", before anything is measured.
#[derive(Debug, Clone, PartialEq)]
pub enum Tried {
    /// Running this command.
    Running(Vec<String>),
    /// This command ran: what it printed and how long it took, or why it
    /// could not run.
    Done(Vec<String>, Result<TryOnce, String>),
}

/// What the dialog asks of the window.
#[derive(Debug, Clone, PartialEq)]
pub enum NewRunAction {
    /// Start this run.
    Start(Box<BenchSpec>),
    /// Run this command once, off the UI thread, and read its figure;
    /// nothing is recorded.
    TryOnce {
        /// The command (a scan's first point).
        argv: Vec<String>,
        /// How its figure is read.
        metric: MetricSpec,
        /// The dialog's per-trial timeout.
        timeout: Option<Duration>,
    },
    /// Stop the process Try once started.
    StopTry,
    /// Close the dialog.
    Close,
}

impl Default for NewRunForm {
    fn default() -> Self {
        Self {
            kernel_mode: true,
            command: String::new(),
            versus: String::new(),
            kernel: KernelKind::Seq,
            versus_kernel: None,
            // Seq over 1 MiB, not the engine's 64 MiB: a first run that is
            // over in a second. Another kernel takes its own default.
            size: "1048576".into(),
            tile: String::new(),
            runs: DEFAULT_RUNS,
            warmup: 3,
            settle: false,
            pin: false,
            pin_cpu: 0,
            cooldown_s: 0.0,
            timeout_s: 0.0,
            budget_ms: 0.0,
            build: String::new(),
            build_b: String::new(),
            build_runs: false,
            what: String::new(),
            labels: [String::new(), String::new()],
            control: false,
            params: String::new(),
            figure: FigureSource::None,
            figure_pattern: String::new(),
            figure_unit: String::new(),
            figure_each: false,
            check: String::new(),
            inputs: String::new(),
            tried: None,
            sanity: false,
            answers: None,
            answerable: Vec::new(),
        }
    }
}

impl NewRunForm {
    /// A fresh form whose build starts as the Environment's Compiler +
    /// flags as stated when the dialog opens (SPEC N11).
    pub fn with_build(build: String) -> Self {
        Self { build, ..Self::default() }
    }

    /// The request, or what is wrong with the form.
    pub fn spec(&self) -> Result<BenchSpec, String> {
        let number = |text: &str, what: &str| -> Result<Option<u64>, String> {
            let text = text.trim();
            if text.is_empty() {
                return Ok(None);
            }
            text.parse::<u64>().map(Some).map_err(|_| format!("{what} must be a whole number, not '{text}'"))
        };
        let mut metric = None;
        let base = if self.kernel_mode && !self.params()?.is_empty() {
            // SPEC E16: a kernel swept, {SIZE} in its size (or tile).
            if self.versus_kernel.is_some() {
                return Err("a scan is not combined with a comparison: set Compare with to nothing (its rows can \
                            be compared once the sweep is recorded)"
                    .to_owned());
            }
            let tile = Some(self.tile.as_str()).filter(|_| self.kernel == KernelKind::MatmulBlocked);
            BenchSpec::scanning_kernel(self.kernel, Some(&self.size), tile, self.params()?)
                .map_err(|e| e.to_string())?
        } else if self.kernel_mode {
            let size = number(&self.size, "the size")?;
            let tile = number(&self.tile, "the tile")?;
            let spec =
                |kind: KernelKind| KernelSpec { kind, size, tile: tile.filter(|_| kind == KernelKind::MatmulBlocked) };
            let mut arms = vec![Subject::Kernel(spec(self.kernel))];
            if let Some(b) = self.versus_kernel {
                arms.push(Subject::Kernel(spec(b)));
            }
            BenchSpec::new(arms)
        } else {
            let split = |text: &str| vernier_engine::platform::program::split_command(text).filter(|w| !w.is_empty());
            let a = split(&self.command).ok_or("type the command to time")?;
            let params = self.params()?;
            metric = self.metric()?;
            if params.is_empty() {
                let mut arms = vec![Subject::Command { argv: a, shell: false }];
                if !self.versus.trim().is_empty() {
                    let b = split(&self.versus).ok_or("the second command cannot be split into words")?;
                    arms.push(Subject::Command { argv: b, shell: false });
                }
                BenchSpec::new(arms)
            } else if !self.versus.trim().is_empty() {
                return Err("a scan is not combined with a comparison: clear Command B (its rows can be compared \
                            once the sweep is recorded)"
                    .to_owned());
            } else {
                let scan = Scan::new(params, &a).map_err(|e| e.to_string())?;
                BenchSpec::scanning(a, false, scan)
            }
        };
        let arms = base.arms.clone();
        vernier_engine::harness::check_odd_trials(self.runs).map_err(|e| e.to_string())?;
        let arms_count = arms.len();
        vernier_engine::harness::check_control(self.control, arms_count).map_err(|e| e.to_string())?;
        // 0 is "none"; anything else by the one rule for durations (SPEC C).
        let seconds = |s: f64, bound: duration::Bound| {
            (s != 0.0).then(|| bound.check(s).map(duration::Seconds::duration)).transpose().map_err(|e| e.to_string())
        };
        let per_arm = !self.kernel_mode && arms_count == 2 && !self.build_b.trim().is_empty();
        // SPEC N15: a build Vernier runs is a recipe, and then the row's build.
        let recipe = |text: &str| {
            given(text)
                .map(|t| vernier_engine::harness::BuildStep::new(&t, false, Vec::new()))
                .transpose()
                .map_err(|e| e.to_string())
        };
        let runs_build = self.build_runs && !self.kernel_mode;
        let (recipe, arm_recipes) = match (runs_build, per_arm) {
            (false, _) => (None, [None, None]),
            (true, false) => (recipe(&self.build)?, [None, None]),
            (true, true) => (None, [recipe(&self.build)?, recipe(&self.build_b)?]),
        };
        let spec = BenchSpec {
            recipe,
            arm_recipes,
            runs: self.runs,
            warmup: if self.settle {
                WarmupPolicy::Settle { max: SETTLE_MAX }
            } else {
                WarmupPolicy::Count(self.warmup)
            },
            pin: self.pin.then_some(self.pin_cpu),
            cooldown: seconds(self.cooldown_s, duration::COOLDOWN)?,
            timeout: seconds(self.timeout_s, duration::TIMEOUT)?,
            budget: (self.budget_ms != 0.0)
                .then(|| duration::BUDGET.parse_millis(&self.budget_ms.to_string()).map(duration::Seconds::get))
                .transpose()
                .map_err(|e| e.to_string())?,
            // A kernel's build is Vernier's own; with a Build B, Build is A's.
            build: given(&self.build).filter(|_| !self.kernel_mode && !per_arm && !runs_build),
            arm_builds: if per_arm && !runs_build { [given(&self.build), given(&self.build_b)] } else { [None, None] },
            what: given(&self.what),
            labels: if arms_count > 1 && base.scan.is_none() {
                [given(&self.labels[0]), given(&self.labels[1])]
            } else {
                [None, None]
            },
            control: self.control,
            metric,
            check: self.check()?,
            inputs: given(&self.inputs).filter(|_| !self.kernel_mode),
            sanity: self.kernel_mode && self.sanity,
            // The window states the Environment when it starts the run.
            ..base
        };
        vernier_engine::harness::check_names(spec.what.as_ref(), &spec.labels).map_err(|e| e.to_string())?;
        Ok(spec)
    }

    /// The kernel changed from `before`: the size takes the new kernel's
    /// default (SPEC U3), unless both read it the same way (bytes for seq
    /// and chase, N for the matmuls), so a size typed for one walk carries
    /// over to the other but a matmul never inherits 1 MiB as its N.
    fn switched_kernel(&mut self, before: KernelKind) {
        if size_meaning(before) != size_meaning(self.kernel) {
            self.size = default_size(self.kernel);
        }
    }

    /// The parameters typed, one a line (SPEC E16).
    fn params(&self) -> Result<Vec<Param>, String> {
        let params = self.params.lines().map(str::trim).filter(|l| !l.is_empty()).map(Param::parse);
        params.collect::<Result<_, _>>().map_err(|e| e.to_string())
    }

    /// The result check's pattern, compiled once to say a bad one in the
    /// form (SPEC S18); a kernel verifies its own result.
    fn check(&self) -> Result<Option<String>, String> {
        let Some(pattern) = given(&self.check).filter(|_| !self.kernel_mode) else { return Ok(None) };
        vernier_engine::harness::OutputCheck::compile(&pattern).map_err(|e| e.to_string())?;
        Ok(Some(pattern))
    }

    /// How the figure is read, checked, when one is asked for (SPEC E17).
    fn metric(&self) -> Result<Option<MetricSpec>, String> {
        let pattern = self.figure_pattern.trim().to_owned();
        // The engine's own checks speak of the command line's flags; what
        // is missing from the form is said in the form's words first.
        let source = match self.figure {
            FigureSource::None => return Ok(None),
            FigureSource::Regex if pattern.is_empty() => {
                return Err("Pattern: type a regular expression with one capture group around the number, \
                            e.g. ns/access: ([0-9.eE+-]+)"
                    .to_owned());
            }
            FigureSource::JsonKey if pattern.is_empty() => {
                return Err("JSON key: type the key the program prints its figure under".to_owned());
            }
            FigureSource::Regex => Source::Regex(pattern),
            FigureSource::JsonKey => Source::JsonKey(pattern),
        };
        if self.figure_unit.trim().is_empty() {
            return Err("Unit: name the figure's unit, e.g. ns/access".to_owned());
        }
        let metric = MetricSpec { source, unit: self.figure_unit.trim().to_owned(), each: self.figure_each };
        vernier_engine::harness::Metric::compile(&metric).map_err(|e| e.to_string())?;
        Ok(Some(metric))
    }

    /// Draws the form; returns what the window should do: start the run,
    /// try the command once, stop that try, or close. It fits the window
    /// (SPEC U3): the fields scroll, and the problem line, "Try once"'s
    /// result and the buttons stay in view below them.
    pub fn ui(&mut self, ui: &mut Ui) -> Option<NewRunAction> {
        layout::fit_width(ui, WIDTH);
        ui.heading("New run");
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.kernel_mode, true, "Built-in kernel");
            ui.selectable_value(&mut self.kernel_mode, false, "Command");
        });
        let max_height = layout::max_size(ui.ctx()).y;
        let fields = egui::ScrollArea::vertical();
        let (footer, ()) = Scrolling::body(ui, max_height, fields, |ui| self.fields_ui(ui));
        footer.footer(ui, |ui| self.footer_ui(ui))
    }

    /// Below the fields: what the form would run or what is wrong with it,
    /// the last "Try once", and Start, Try once and Close.
    fn footer_ui(&mut self, ui: &mut Ui) -> Option<NewRunAction> {
        let mut outcome = None;
        let spec = self.spec();
        if let Ok(spec) = &spec
            && let Some(text) = commands_text(spec)
        {
            ui.label(RichText::new(text).weak());
        }
        if let Err(problem) = &spec {
            ui.colored_label(ui.visuals().warn_fg_color, problem);
        }
        self.tried_ui(ui);
        ui.horizontal(|ui| {
            if ui.add_enabled(spec.is_ok(), egui::Button::new(RichText::new("▶ Start").strong())).clicked()
                && let Ok(spec) = &spec
            {
                outcome = Some(NewRunAction::Start(Box::new(spec.clone())));
            }
            if !self.kernel_mode {
                let running = matches!(self.tried, Some(Tried::Running(_)));
                let attempt = spec.as_ref().map_err(String::clone).and_then(try_request);
                if running {
                    if ui.button("Stop").on_hover_text("stop the process Try once started").clicked() {
                        outcome = Some(NewRunAction::StopTry);
                    }
                } else {
                    let button = ui.add_enabled(attempt.is_ok(), egui::Button::new("Try once"));
                    let button = match &attempt {
                        Ok(_) => button.on_hover_text(
                            "run the command (a scan's first point) once and show the figure read from its \
                             output; nothing is recorded",
                        ),
                        Err(why) => button.on_disabled_hover_text(why.as_str()),
                    };
                    if button.clicked()
                        && let Ok(action) = attempt
                    {
                        outcome = Some(action);
                    }
                }
            }
            // The window's own Esc (cancel a run) never meets this dialog:
            // it closes when a run starts. At the right edge, so Try once
            // (a command's alone) and Stop never move it.
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if layout::close_button(ui, None, true) {
                    outcome = Some(NewRunAction::Close);
                }
            });
        });
        outcome
    }

    /// What the last "Try once" found: the figures, or why there are none
    /// with the output's end, and the process's wall time.
    fn tried_ui(&self, ui: &mut Ui) {
        match &self.tried {
            None => {}
            Some(Tried::Running(argv)) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(format!("Trying once: {}", quote_argv(argv)));
                });
            }
            Some(Tried::Done(argv, Err(why))) => {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!("Try once: {} did not run: {}", quote_argv(argv), inert(why)),
                );
            }
            Some(Tried::Done(argv, Ok(t))) => {
                let unit = inert(self.figure_unit.trim()).into_owned();
                let ended = match t.status {
                    TrialStatus::Ok => String::new(),
                    status => format!(", ended: {status}"),
                };
                let wall =
                    vernier_engine::stats::units::DisplayUnit::for_median("ns", t.ns as f64).quantity(t.ns as f64);
                ui.label(format!("Try once: {} — wall time {wall}{ended}", quote_argv(argv)));
                match &t.figures {
                    Ok(figures) => {
                        let shown: Vec<String> = figures.iter().take(8).map(|v| figure_text(*v)).collect();
                        let more =
                            if figures.len() > 8 { format!(" … ({} in all)", figures.len()) } else { String::new() };
                        let noun = if figures.len() == 1 { "figure" } else { "figures" };
                        ui.label(RichText::new(format!("{noun}: {} {unit}{more}", shown.join(", "))).strong());
                    }
                    Err(why) => {
                        ui.colored_label(ui.visuals().warn_fg_color, format!("no figure: {}", inert(why)));
                        ui.label(RichText::new(format!("its output ended with: {}", t.tail)).weak());
                    }
                }
            }
        }
    }

    fn fields_ui(&mut self, ui: &mut Ui) {
        egui::Grid::new("new-run").num_columns(2).spacing([12.0, 8.0]).show(ui, |ui| {
            if self.kernel_mode {
                let label = ui.label("Kernel");
                let before = self.kernel;
                kernel_combo(ui, "kernel-a", &mut self.kernel).labelled_by(label.id);
                if self.kernel != before {
                    self.switched_kernel(before);
                }
                ui.end_row();
                let label = ui.label("Compare with");
                egui::ComboBox::from_id_salt("kernel-b")
                    .selected_text(self.versus_kernel.map_or("nothing", KernelKind::name))
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut self.versus_kernel, None, "nothing");
                        for (name, kind) in KernelKind::ALL {
                            ui.selectable_value(&mut self.versus_kernel, Some(kind), name);
                        }
                    })
                    .response
                    .labelled_by(label.id);
                ui.end_row();
                let label = ui.label("Size");
                ui.add_enabled(
                    self.kernel != KernelKind::Canary,
                    egui::TextEdit::singleline(&mut self.size)
                        .hint_text("bytes (seq, chase) or N (matmul); {SIZE} to sweep")
                        .desired_width(200.0),
                )
                .labelled_by(label.id)
                .on_disabled_hover_text("the canary has a fixed size");
                ui.end_row();
                let label = ui.label("Tile");
                ui.add(
                    egui::TextEdit::singleline(&mut self.tile)
                        .hint_text("matmul-blocked only; default 64")
                        .desired_width(200.0),
                )
                .labelled_by(label.id);
                ui.end_row();
                self.params_ui(ui, "{SIZE} in Size");
                let label = ui.label("Sanity check");
                ui.checkbox(&mut self.sanity, "after the run: twice the input, about twice the time? (E12)")
                    .labelled_by(label.id)
                    .on_hover_text(
                        "Times kernel A on twice its input, and for chase the loads per cycle against Vernier's own \
                         clock estimate; the verdict and the estimate are kept with the row.",
                    );
                ui.end_row();
            } else {
                let label = ui.label("Command A");
                ui.add(
                    egui::TextEdit::singleline(&mut self.command)
                        .hint_text("./matmul 512  (no shell: words, not a script)")
                        .desired_width(360.0),
                )
                .labelled_by(label.id);
                ui.end_row();
                let label = ui.label("Command B");
                ui.add(
                    egui::TextEdit::singleline(&mut self.versus)
                        .hint_text("optional: interleaved A B …, then B A …")
                        .desired_width(360.0),
                )
                .labelled_by(label.id);
                ui.end_row();
                let label = ui.label("Build");
                ui.add(
                    egui::TextEdit::singleline(&mut self.build)
                        .hint_text("how the program was built: g++ -O2 -std=c++17")
                        .desired_width(360.0),
                )
                .labelled_by(label.id);
                ui.end_row();
                ui.label("");
                ui.checkbox(&mut self.build_runs, "Vernier runs it first (a recipe: g++ -O2 mm.cpp -o mm)").on_hover_text(
                    "the build command runs in the folder Vernier was started from, just before the warm-up; the row \
                     keeps it with the compiler's version, the sources' SHA-256 and copies, and the program's SHA-256",
                );
                ui.end_row();
                super::layout::build_warning_row(ui, &self.build, 360.0);
                if !self.versus.trim().is_empty() {
                    let label = ui.label("Build B");
                    ui.add(
                        egui::TextEdit::singleline(&mut self.build_b)
                            .hint_text("optional: B's own build, e.g. g++ -O3 (Build is then A's)")
                            .desired_width(360.0),
                    )
                    .labelled_by(label.id);
                    ui.end_row();
                    super::layout::build_warning_row(ui, &self.build_b, 360.0);
                }
                self.params_ui(ui, "{SIZE} in the command");
                self.figure_ui(ui);
                self.result_and_inputs_ui(ui);
            }
            let label = ui.label("What");
            ui.add(
                egui::TextEdit::singleline(&mut self.what)
                    .hint_text("optional: what this run is about")
                    .desired_width(360.0),
            )
            .labelled_by(label.id);
            ui.end_row();
            let comparing =
                if self.kernel_mode { self.versus_kernel.is_some() } else { !self.versus.trim().is_empty() };
            if comparing {
                let label = ui.label("Labels A / B");
                ui.horizontal(|ui| {
                    for (text, hint) in self.labels.iter_mut().zip(["A, e.g. naive", "B, e.g. blocked"]) {
                        ui.add(egui::TextEdit::singleline(text).hint_text(hint).desired_width(170.0))
                            .labelled_by(label.id);
                    }
                });
                ui.end_row();
            }
            let label = ui.label("n (timed, odd)");
            ui.add(egui::DragValue::new(&mut self.runs).range(1..=10_001)).labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Warm-up");
            ui.horizontal(|ui| {
                ui.add_enabled(!self.settle, egui::DragValue::new(&mut self.warmup).range(0..=1000).suffix(" trials"))
                    .labelled_by(label.id);
                ui.checkbox(&mut self.settle, "settle (until two agree within 5 %)");
            });
            ui.end_row();
            let label = ui.label("Pinning");
            ui.horizontal(|ui| {
                ui.checkbox(&mut self.pin, "pin to CPU");
                ui.add_enabled(self.pin, egui::DragValue::new(&mut self.pin_cpu).range(0..=4095)).labelled_by(label.id);
            });
            ui.end_row();
            let label = ui.label("Cool-down");
            ui.add(
                egui::DragValue::new(&mut self.cooldown_s)
                    .range(0.0..=duration::COOLDOWN.max_s)
                    .suffix(" s before the reversed block"),
            )
            .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Timeout");
            ui.add(
                egui::DragValue::new(&mut self.timeout_s)
                    .range(0.0..=duration::TIMEOUT.max_s)
                    .suffix(" s per trial (0: none)"),
            )
            .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Budget");
            ui.add(
                egui::DragValue::new(&mut self.budget_ms)
                    .range(0.0..=duration::BUDGET.max_s * 1000.0)
                    .speed(0.1)
                    .suffix(" ms per trial (0: the notebook's trial budget, if set)"),
            )
            .on_hover_text(
                "a time each trial should meet: each row then gives how many timed trials missed it and its 95th \
                 percentile beside the median (S19); seq and chase, whose trials are in ns/access, take none",
            )
            .labelled_by(label.id);
            ui.end_row();
            ui.label("Session");
            ui.checkbox(&mut self.control, "Control (repeated each session)").on_hover_text(
                "the condition you repeat in every session, so a comparison across days can be weighed against \
                 how far the machine itself moved (S14); one subject only",
            );
            ui.end_row();
            if !self.answerable.is_empty() {
                self.answers_ui(ui);
            }
        });
    }

    /// Which prediction the run answers (SPEC N14): linked once it is
    /// recorded — the comparison when there are two commands, else the run.
    fn answers_ui(&mut self, ui: &mut Ui) {
        let label = ui.label("Answers");
        let shown = |n: Option<u32>| {
            n.and_then(|n| self.answerable.iter().find(|(k, _)| *k == n)).map_or("no prediction", |(_, t)| t.as_str())
        };
        let selected = shown(self.answers).to_owned();
        let mut answers = self.answers;
        egui::ComboBox::from_id_salt("new-run-answers")
            .selected_text(selected)
            .width(360.0)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut answers, None, "no prediction");
                for (n, text) in &self.answerable {
                    ui.selectable_value(&mut answers, Some(*n), text.as_str());
                }
            })
            .response
            .labelled_by(label.id);
        self.answers = answers;
        ui.end_row();
    }

    /// The scan's parameters (SPEC E16), `placed` saying where `{NAME}` goes.
    fn params_ui(&mut self, ui: &mut Ui, placed: &str) {
        let label = ui.label("Parameters");
        ui.add(
            egui::TextEdit::multiline(&mut self.params)
                .hint_text(format!("optional, one a line: SIZE=16K..64M*4 or MODE=seq,rand;\nwrite {placed}"))
                .desired_rows(2)
                .desired_width(360.0),
        )
        .labelled_by(label.id)
        .on_hover_text("a scan: one row per value (every combination), recorded as one sweep (E16)");
        ui.end_row();
    }

    /// What the program computed and from what (SPEC S18, E19).
    fn result_and_inputs_ui(&mut self, ui: &mut Ui) {
        let label = ui.label("Result check");
        ui.add(
            egui::TextEdit::singleline(&mut self.check)
                .hint_text("optional: checksum: (\\S+) — read from every trial's output")
                .desired_width(360.0),
        )
        .labelled_by(label.id)
        .on_hover_text(
            "each trial's result, read after its clock stopped; a comparison whose arms printed different results \
             claims nothing (S18)",
        );
        ui.end_row();
        let label = ui.label("Inputs");
        ui.add(
            egui::TextEdit::singleline(&mut self.inputs)
                .hint_text("optional: seed 42, N=4096, data/graph.bin")
                .desired_width(360.0),
        )
        .labelled_by(label.id)
        .on_hover_text("the fixed inputs, kept with the row; a --seed or --size in the command is read anyway (E19)");
        ui.end_row();
    }

    /// The program's own figure's fields (SPEC E17).
    fn figure_ui(&mut self, ui: &mut Ui) {
        let label = ui.label("Figure");
        egui::ComboBox::from_id_salt("figure-source")
            .selected_text(self.figure.name())
            .show_ui(ui, |ui| {
                for source in [FigureSource::None, FigureSource::Regex, FigureSource::JsonKey] {
                    ui.selectable_value(&mut self.figure, source, source.name());
                }
            })
            .response
            .labelled_by(label.id)
            .on_hover_text("read the program's own figure from its output instead of timing its process (E17)");
        ui.end_row();
        if self.figure == FigureSource::None {
            return;
        }
        let (name, hint) = match self.figure {
            FigureSource::JsonKey => ("JSON key", "e.g. ns_per_access or result.ns"),
            _ => ("Pattern", "one capture group, e.g. ns/access: ([0-9.eE+-]+)"),
        };
        let label = ui.label(name);
        ui.add(egui::TextEdit::singleline(&mut self.figure_pattern).hint_text(hint).desired_width(360.0))
            .labelled_by(label.id);
        ui.end_row();
        let label = ui.label("Unit");
        ui.horizontal(|ui| {
            ui.add(egui::TextEdit::singleline(&mut self.figure_unit).hint_text("e.g. ns/access").desired_width(140.0))
                .labelled_by(label.id);
            ui.checkbox(&mut self.figure_each, "every figure is a trial").on_hover_text(
                "the program times several internal trials and prints one figure each; otherwise it prints one",
            );
        });
        ui.end_row();
    }
}

/// A figure as read, to four significant digits without trailing zeros
/// (`2.5`, `2.074`): enough to see that the right number was parsed.
fn figure_text(value: f64) -> String {
    let text = vernier_engine::stats::format_significant(value, 4);
    if text.contains('.') && !text.contains(['e', 'E']) {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// A scan's commands in words: how many, the first two and the last.
fn commands_text(spec: &BenchSpec) -> Option<String> {
    spec.scan.as_ref()?;
    let commands: Vec<String> = spec.arms.iter().map(|a| quote_argv(&a.argv())).collect();
    let shown = match commands.as_slice() {
        [] => return None,
        [one] => one.clone(),
        [a, b] => format!("{a}, {b}"),
        [a, b, .., last] => format!("{a}, {b} … {last}"),
    };
    let noun = if commands.len() == 1 { "command" } else { "commands" };
    Some(format!("{} {noun}: {shown}", commands.len()))
}

/// What "Try once" runs for `spec`: its first command, with its figure.
fn try_request(spec: &BenchSpec) -> Result<NewRunAction, String> {
    let metric = spec.metric.clone().ok_or("choose how the figure is read first (Figure)")?;
    let argv = spec.arms.first().map(Subject::argv).ok_or("type the command to try")?;
    Ok(NewRunAction::TryOnce { argv, metric, timeout: spec.timeout })
}

/// What a kernel's size is: a working set in bytes (seq, chase), a matrix
/// dimension (the matmuls), or nothing (the canary's size is fixed).
#[derive(PartialEq, Eq)]
enum SizeMeaning {
    Bytes,
    Dimension,
    Fixed,
}

fn size_meaning(kind: KernelKind) -> SizeMeaning {
    match kind {
        KernelKind::Seq | KernelKind::Chase => SizeMeaning::Bytes,
        KernelKind::MatmulNaive | KernelKind::MatmulIkj | KernelKind::MatmulBlocked => SizeMeaning::Dimension,
        KernelKind::Canary => SizeMeaning::Fixed,
    }
}

/// The size field's text for `kind`: the engine's own default, which is
/// what `vernier bench --kernel NAME` runs without `--size`.
pub fn default_size(kind: KernelKind) -> String {
    match size_meaning(kind) {
        SizeMeaning::Bytes => DEFAULT_WORKING_SET.to_string(),
        SizeMeaning::Dimension => DEFAULT_MATMUL_N.to_string(),
        SizeMeaning::Fixed => String::new(),
    }
}

/// A typed text, trimmed; blank is not given.
fn given(text: &str) -> Option<String> {
    Some(text.trim()).filter(|t| !t.is_empty()).map(str::to_owned)
}

fn kernel_combo(ui: &mut Ui, id: &str, kind: &mut KernelKind) -> egui::Response {
    egui::ComboBox::from_id_salt(id)
        .selected_text(kind.name())
        .show_ui(ui, |ui| {
            for (name, k) in KernelKind::ALL {
                ui.selectable_value(kind, k, name);
            }
        })
        .response
}

/// The "Try once" runs: the one in flight, by its number (an answer to an
/// earlier one is ignored), with the flag that stops its process, and how
/// many were started, to number them. Kept by the window, not the dialog:
/// a try's answer may come after its dialog closed and another opened.
#[derive(Default)]
pub struct Tries {
    pub current: Option<(u64, Arc<AtomicBool>)>,
    pub count: u64,
}

/// A prediction as a list of them offers it: `P1 — ratio naive/blocked =
/// 3 ± 50 %`, its words when it commits no figure.
pub fn offered(p: &Prediction) -> String {
    let figure = p.figure.as_ref().map_or_else(|| p.predict.clone(), ToString::to_string);
    vernier_engine::display::inert_line(format!("{} — {figure}", p.label()))
}

/// SPEC N14: the predictions a run started now may answer, as the New run
/// dialog offers them — every one written so far (an amendment's figure is
/// in force for rows measured after it).
pub fn answerable(nb: &Notebook) -> Vec<(u32, String)> {
    nb.predictions().iter().filter(|p| p.amends.is_none()).map(|p| (p.number, offered(p))).collect()
}

impl Opens for NewRunForm {
    const ENTRY: Option<MenuEntry> = Some(MenuEntry {
        menu: Menu::Run,
        label: "New run…",
        shortcut: Some(KeyboardShortcut::new(Modifiers::COMMAND, Key::R)),
        hover: None,
    });

    /// With the Environment's build flags filled in.
    fn make(cx: &OpenCx<'_>) -> Self {
        Self::with_build(cx.notebook.environment().get(vernier_engine::notebook::EnvField::CompilerFlags))
    }

    /// Not while a run is going.
    fn enabled(cx: &OpenCx<'_>) -> bool {
        !cx.running
    }
}

impl Dialog for NewRunForm {
    fn show(&mut self, ctx: &egui::Context, cx: &mut Cx<'_>) -> Keep {
        self.answerable = answerable(cx.notebook);
        let mut action = None;
        egui::Modal::new(egui::Id::unique("new-run")).show(ctx, |ui| action = self.ui(ui));
        match action {
            Some(NewRunAction::Start(spec)) => {
                cx.commands.push(AppCommand::AnswerOnRecord(self.answers));
                cx.commands.push(AppCommand::StartRun(spec));
            }
            Some(NewRunAction::TryOnce { argv, metric, timeout }) => {
                cx.commands.push(AppCommand::TryOnce { argv, metric, timeout });
            }
            Some(NewRunAction::StopTry) => cx.commands.push(AppCommand::StopTry),
            Some(NewRunAction::Close) => {
                cx.commands.push(AppCommand::StopTry);
                return Keep::Close;
            }
            None => {}
        }
        Keep::Open
    }

    fn on(&mut self, _: Happened) -> Keep {
        // The form keeps what was typed whatever the window does; a run
        // that did not start leaves it as it was.
        Keep::Open
    }
}

impl crate::gui::VernierApp {
    /// Runs the command once and reads its figure for the dialog (SPEC
    /// E17, U3), recording nothing: on a thread of its own, so the
    /// program's run never holds up a save; a try already running stops.
    pub(in crate::gui) fn try_once(&mut self, argv: Vec<String>, metric: MetricSpec, timeout: Option<Duration>) {
        self.stop_try();
        self.measure.tries.count += 1;
        let id = self.measure.tries.count;
        let cancel = Arc::new(AtomicBool::new(false));
        self.measure.tries.current = Some((id, Arc::clone(&cancel)));
        if let Some(form) = self.dialogs.get_mut::<NewRunForm>() {
            form.tried = Some(Tried::Running(argv.clone()));
        }
        let Some(reply) = self.files.io.as_ref().map(crate::gui::io::Io::reply) else {
            self.measure.tries.current = None;
            return self.say(crate::gui::IO_REFUSED, true);
        };
        let failed = reply.clone();
        let spawned = std::thread::Builder::new().name("vernier-try-once".into()).spawn(move || {
            let result =
                vernier_engine::harness::metric::try_once(&argv, &metric, timeout, cancel).map_err(|e| e.to_string());
            reply.answer(crate::gui::Done::Tried { id, result });
        });
        if let Err(e) = spawned {
            let result = Err(format!("cannot start a thread to run it: {e}"));
            failed.try_answer(crate::gui::Done::Tried { id, result });
        }
    }

    /// What try `id` found; an answer to an earlier try is ignored.
    pub(in crate::gui) fn tried(&mut self, id: u64, result: Result<TryOnce, String>) {
        if self.measure.tries.current.as_ref().is_some_and(|(current, _)| *current == id) {
            self.measure.tries.current = None;
            if let Some(form) = self.dialogs.get_mut::<NewRunForm>()
                && let Some(Tried::Running(argv)) = form.tried.take()
            {
                form.tried = Some(Tried::Done(argv, result));
            }
        }
    }

    /// Stops the process "Try once" started, if one runs; its answer,
    /// when it comes, is ignored.
    pub(in crate::gui) fn stop_try(&mut self) {
        if let Some((_, cancel)) = self.measure.tries.current.take() {
            cancel.store(true, Ordering::Relaxed);
        }
        if let Some(form) = self.dialogs.get_mut::<NewRunForm>()
            && matches!(form.tried, Some(Tried::Running(_)))
        {
            form.tried = None;
        }
    }
}
