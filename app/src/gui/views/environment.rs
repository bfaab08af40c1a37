//! The Environment section: ten fields, editable at any time and saved as
//! they are typed (SPEC N2, N7); the three Vernier can read itself are
//! filled from this machine on request.

use egui::{RichText, Ui};
use vernier_engine::duration;
use vernier_engine::notebook::{EnvField, Environment, Notebook, TRIAL_BUDGET, Workbench};
use vernier_engine::platform::machine::{Machine, NOT_AVAILABLE};
use vernier_engine::stats::units;

use super::Context;
use crate::gui::AppCommand;
use vernier_engine::display::inert;
use vernier_engine::notebook::pending::Edit;

/// What the Environment section keeps between frames.
#[derive(Default)]
pub struct State {
    /// Environment values being typed, by field index.
    pub env_drafts: std::collections::HashMap<usize, String>,
    /// The Environment's hints, kept while the notebook's rows stay the same.
    pub env_hints: HintCache,
    /// The trial budget being typed, in milliseconds (S19).
    pub budget_draft: Option<String>,
}

/// The hints of the last notebook they were worked out for: with 10 000
/// runs they take milliseconds, so they are not redone every frame.
#[derive(Debug, Default)]
pub struct HintCache {
    /// The notebook, its rows (which are only ever added) and the
    /// Environment they describe.
    key: Option<(usize, usize, usize, Environment)>,
    hints: Vec<Option<String>>,
}

impl HintCache {
    /// Each field's hint for `nb`, worked out again only when its rows or
    /// its Environment changed.
    fn hints(&mut self, nb: &Notebook) -> &[Option<String>] {
        let key = (std::ptr::from_ref(nb) as usize, nb.runs().len(), nb.soaks().len(), nb.environment().clone());
        if self.key.as_ref() != Some(&key) {
            self.hints = EnvField::ALL.iter().map(|&f| nb.stated_hint(f)).collect();
            self.key = Some(key);
        }
        &self.hints
    }
}

/// The Environment's values for the fields Vernier can read itself (SPEC
/// N2, E9): Machine / OS in the field's own order (CPU, logical CPUs, RAM,
/// OS), Counter access and Placement control as the probes found them.
/// What could not be read is named as such, never guessed.
pub fn machine_fill(m: &Machine) -> [(EnvField, String); 3] {
    let or_missing = |value: Option<String>, what: &str| value.unwrap_or_else(|| format!("{what} {NOT_AVAILABLE}"));
    let mut os = or_missing(m.os.0.clone(), "OS");
    if let Some(kernel) = &m.kernel.0 {
        os.push_str(&format!(", kernel {kernel}"));
    }
    if let Some(hypervisor) = m.hypervisor.0.as_deref().filter(|h| !h.eq_ignore_ascii_case("none")) {
        // A virtual machine shares its host: that belongs beside the CPU.
        // The reading says so itself ("yes (QEMU) — a shared host").
        os.push_str(&format!(", hypervisor: {hypervisor}"));
    }
    let machine = [
        or_missing(m.cpu_model.0.clone(), "CPU model"),
        or_missing(m.logical_cpus.0.map(|n| format!("{n} logical CPUs")), "logical CPUs"),
        or_missing(m.ram_bytes.0.map(|b| format!("{} RAM", units::size(b as f64))), "RAM"),
        os,
    ];
    [
        (EnvField::MachineOs, machine.join(", ")),
        (EnvField::CounterAccess, m.counters.clone()),
        (EnvField::PlacementControl, m.placement.clone()),
    ]
}

impl State {
    /// This machine read: its three Environment fields filled, in one
    /// change (one save, one message).
    pub fn machine_read(&mut self, machine: &Machine, asks: &mut Vec<AppCommand>) {
        let fields = machine_fill(machine).to_vec();
        let said = "Machine / OS, Counter access and Placement control filled from this machine".to_owned();
        asks.push(AppCommand::Edit(Edit::SetEnvironment { fields, said }));
    }
}

impl super::SectionView for State {
    /// The log's own name (N2: identical in the window and the workbook);
    /// one past the end of `SECTIONS` does not compile.
    const TITLE: &'static str = vernier_engine::notebook::SECTIONS[0];

    fn ui(&mut self, ui: &mut Ui, cx: &mut Context<'_>) {
        environment_ui(ui, self, cx);
    }
}

fn environment_ui(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    let hints = state.env_hints.hints(cx.notebook).to_vec();
    ui.horizontal(|ui| {
        ui.label(RichText::new("Write the boring fields: they are why anyone believes the interesting ones.").weak());
        // Read on the file thread: /proc, /sys and the probes take a moment.
        if ui
            .button("Fill from this machine")
            .on_hover_text(
                "Machine / OS, Counter access and Placement control as Vernier reads them here; edit them after",
            )
            .clicked()
        {
            cx.commands.push(AppCommand::FillEnvironment);
        }
    });
    ui.add_space(6.0);
    egui::Grid::new("environment").num_columns(2).striped(true).spacing([16.0, 6.0]).show(ui, |ui| {
        ui.label(RichText::new("Field").strong());
        ui.label(RichText::new("Value").strong());
        ui.end_row();
        for (i, field) in EnvField::ALL.into_iter().enumerate() {
            let label = ui.label(field.label());
            let saved = cx.notebook.environment().get(field);
            let draft = state.env_drafts.entry(i).or_insert_with(|| saved.clone());
            // Rows keep the value stated when they were recorded (SPEC N9):
            // say which ones a change here does not reach.
            let hint = hints.get(i).cloned().flatten();
            let response = ui
                .vertical(|ui| {
                    let edit = egui::TextEdit::singleline(draft).hint_text(field.hint()).desired_width(520.0);
                    let response = ui.add(edit).labelled_by(label.id);
                    // The Workbench is read from what is typed (N2): say
                    // what was read, or why nothing could be, as it is typed.
                    if field == EnvField::Workbench && draft.trim() != saved && !draft.trim().is_empty() {
                        match Workbench::parse(draft) {
                            Ok(read) => ui.label(RichText::new(format!("read as: {read}")).small().weak()),
                            Err(why) => {
                                ui.label(RichText::new(why.to_string()).small().color(ui.visuals().warn_fg_color))
                            }
                        };
                    }
                    if let Some(hint) = hint {
                        ui.label(RichText::new(inert(&hint)).small().color(ui.visuals().warn_fg_color));
                    }
                    response
                })
                .inner;
            // The notebook stores a value trimmed: a trailing space typed is
            // not a change still to save.
            let unsaved = draft.trim() != saved;
            // Saved as it is typed (SPEC N7: the GUI saves after every
            // change), so nothing typed waits on leaving the field: switching
            // sections or closing the window loses nothing, and the status
            // bar's "saved" covers what the field shows. Changes queued while
            // a save is in flight share the next one (one lock, one write).
            // A Workbench still being typed ("L, sh") is not a value yet: it
            // is taken when it reads as one, or when the field is left, where
            // a refusal is said.
            let complete = field != EnvField::Workbench || Workbench::parse(draft).is_ok();
            if unsaved && ((response.changed() && complete) || response.lost_focus()) {
                cx.commands.push(AppCommand::Edit(Edit::SetEnvironment {
                    fields: vec![(field, draft.clone())],
                    said: format!("{} set", field.label()),
                }));
            } else if unsaved && !response.has_focus() && !response.lost_focus() {
                // The notebook changed under the draft: filled from the
                // machine, changed elsewhere, or another notebook opened.
                *draft = saved;
            }
            ui.end_row();
        }
    });
    ui.add_space(10.0);
    budget_ui(ui, state, cx);
}

/// The trial budget new runs are held to (SPEC S19), in milliseconds:
/// beside the ten fields, not one of them (N2). Saved as it is typed, when
/// what is typed reads as a budget; empty clears it.
fn budget_ui(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    let saved = cx.notebook.trial_budget();
    let shown = |seconds: Option<f64>| seconds.map(|s| vernier_engine::stats::format_plain(s * 1000.0)).unwrap_or_default();
    let draft = state.budget_draft.get_or_insert_with(|| shown(saved));
    let response = ui
        .horizontal(|ui| {
            let label = ui.label(RichText::new(TRIAL_BUDGET).strong());
            let edit = egui::TextEdit::singleline(draft).hint_text("e.g. 16.7 for a 60 Hz frame").desired_width(120.0);
            let response = ui.add(edit).labelled_by(label.id);
            ui.label("ms per trial");
            response
        })
        .inner;
    // Read after the field took this frame's typing.
    let read = match draft.trim() {
        "" => Ok(None),
        typed => duration::BUDGET.parse_millis(typed).map(|s| Some(s.get())).map_err(|why| inert(&why.to_string()).into_owned()),
    };
    match &read {
        Ok(_) => ui.label(
            RichText::new(
                "New runs that state no budget of their own are held to it: each row gives the trials that missed it \
                 and its 95th percentile beside the median. A row keeps the budget it was measured against.",
            )
            .weak(),
        ),
        Err(why) => ui.label(RichText::new(why).small().color(ui.visuals().warn_fg_color)),
    };
    // As the other fields compare their text: a value read back from the
    // notebook is never a change of its own.
    let unsaved = draft.trim() != shown(saved);
    match read {
        Ok(seconds) if unsaved && (response.changed() || response.lost_focus()) => {
            cx.commands.push(AppCommand::Edit(Edit::SetTrialBudget(seconds)));
        }
        // The notebook changed under the draft (elsewhere, or another
        // notebook opened): show what it holds. A budget refused stays
        // typed beside its reason until it is changed.
        Ok(_) if unsaved && !response.has_focus() && !response.lost_focus() => *draft = shown(saved),
        _ => {}
    }
}
