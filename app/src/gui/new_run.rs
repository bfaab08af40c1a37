//! The "New run" dialog (SPEC U3): a command (or two, interleaved) or a
//! kernel, with n, warm-up, pinning, cool-down and timeout.

use std::time::Duration;

use egui::{RichText, Ui};
use vernier_engine::harness::{BenchSpec, DEFAULT_RUNS, Subject, schedule::SETTLE_MAX};
use vernier_engine::kernels::{KernelKind, KernelSpec};
use vernier_engine::notebook::WarmupPolicy;

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
    /// How the commands' program was built (SPEC N11).
    pub build: String,
    /// What the run or comparison is about; empty: named by its command.
    pub what: String,
    /// The labels of arms A and B of a comparison (SPEC S11).
    pub labels: [String; 2],
    /// The run is the control condition, repeated in each session (SPEC S14).
    pub control: bool,
}

impl Default for NewRunForm {
    fn default() -> Self {
        Self {
            kernel_mode: true,
            command: String::new(),
            versus: String::new(),
            kernel: KernelKind::Seq,
            versus_kernel: None,
            size: "1048576".into(),
            tile: String::new(),
            runs: DEFAULT_RUNS,
            warmup: 3,
            settle: false,
            pin: false,
            pin_cpu: 0,
            cooldown_s: 0.0,
            timeout_s: 0.0,
            build: String::new(),
            what: String::new(),
            labels: [String::new(), String::new()],
            control: false,
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
        let arms = if self.kernel_mode {
            let size = number(&self.size, "the size")?;
            let tile = number(&self.tile, "the tile")?;
            let spec =
                |kind: KernelKind| KernelSpec { kind, size, tile: tile.filter(|_| kind == KernelKind::MatmulBlocked) };
            let mut arms = vec![Subject::Kernel(spec(self.kernel))];
            if let Some(b) = self.versus_kernel {
                arms.push(Subject::Kernel(spec(b)));
            }
            arms
        } else {
            let split = |text: &str| shlex::split(text).filter(|w| !w.is_empty());
            let a = split(&self.command).ok_or("type the command to time")?;
            let mut arms = vec![Subject::Command { argv: a, shell: false }];
            if !self.versus.trim().is_empty() {
                let b = split(&self.versus).ok_or("the second command cannot be split into words")?;
                arms.push(Subject::Command { argv: b, shell: false });
            }
            arms
        };
        vernier_engine::harness::check_odd_trials(self.runs)?;
        let arms_count = arms.len();
        vernier_engine::harness::check_control(self.control, arms_count)?;
        let seconds = |s: f64| (s > 0.0).then(|| Duration::from_secs_f64(s));
        let spec = BenchSpec {
            runs: self.runs,
            warmup: if self.settle {
                WarmupPolicy::Settle { max: SETTLE_MAX }
            } else {
                WarmupPolicy::Count(self.warmup)
            },
            pin: self.pin.then_some(self.pin_cpu),
            cooldown: seconds(self.cooldown_s),
            timeout: seconds(self.timeout_s),
            // A kernel's build is Vernier's own.
            build: Some(self.build.trim()).filter(|b| !self.kernel_mode && !b.is_empty()).map(str::to_owned),
            what: given(&self.what),
            labels: if arms_count > 1 { [given(&self.labels[0]), given(&self.labels[1])] } else { [None, None] },
            control: self.control,
            // The window states the Environment when it starts the run.
            ..BenchSpec::new(arms)
        };
        vernier_engine::harness::check_names(spec.what.as_ref(), &spec.labels)?;
        Ok(spec)
    }

    /// Draws the form; returns the request when Start is pressed, or
    /// `Err(())` when the dialog is dismissed.
    pub fn ui(&mut self, ui: &mut Ui) -> Option<Result<BenchSpec, ()>> {
        let mut outcome = None;
        ui.heading("New run");
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.kernel_mode, true, "Built-in kernel");
            ui.selectable_value(&mut self.kernel_mode, false, "Command");
        });
        egui::Grid::new("new-run").num_columns(2).spacing([12.0, 8.0]).show(ui, |ui| {
            if self.kernel_mode {
                let label = ui.label("Kernel");
                kernel_combo(ui, "kernel-a", &mut self.kernel).labelled_by(label.id);
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
                ui.add(
                    egui::TextEdit::singleline(&mut self.size)
                        .hint_text("bytes (seq, chase) or N (matmul)")
                        .desired_width(200.0),
                )
                .labelled_by(label.id);
                ui.end_row();
                let label = ui.label("Tile");
                ui.add(
                    egui::TextEdit::singleline(&mut self.tile)
                        .hint_text("matmul-blocked only; default 64")
                        .desired_width(200.0),
                )
                .labelled_by(label.id);
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
                egui::DragValue::new(&mut self.cooldown_s).range(0.0..=3600.0).suffix(" s before the reversed block"),
            )
            .labelled_by(label.id);
            ui.end_row();
            let label = ui.label("Timeout");
            ui.add(egui::DragValue::new(&mut self.timeout_s).range(0.0..=86_400.0).suffix(" s per trial (0: none)"))
                .labelled_by(label.id);
            ui.end_row();
            ui.label("Session");
            ui.checkbox(&mut self.control, "Control (repeated each session)").on_hover_text(
                "the condition you repeat in every session, so a comparison across days can be weighed against \
                 how far the machine itself moved (S14); one subject only",
            );
            ui.end_row();
        });
        let spec = self.spec();
        if let Err(problem) = &spec {
            ui.colored_label(ui.visuals().warn_fg_color, problem);
        }
        ui.horizontal(|ui| {
            if ui.add_enabled(spec.is_ok(), egui::Button::new(RichText::new("▶ Start").strong())).clicked()
                && let Ok(spec) = spec
            {
                outcome = Some(Ok(spec));
            }
            if ui.button("Close").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                outcome = Some(Err(()));
            }
        });
        outcome
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
