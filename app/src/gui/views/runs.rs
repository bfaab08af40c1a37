//! The Runs section (SPEC N2, N5, U1, U4): a virtualised table — only the
//! visible rows are built, so ten thousand runs scroll smoothly — and the
//! selected run's trials, or any sweep (E16); and two rows compared
//! (SPEC S7, S13, S14): "Compare with…" on the selected run, then a click
//! on the other, answered by the engine's `compare_runs`.

use egui::{Color32, RichText, Ui};
use egui_extras::{Column, TableBuilder};
use vernier_engine::compare::{CaveatKind, CompareError, RowComparison, compare_runs};
use vernier_engine::consent::{Consent, InlineCode};
use vernier_engine::harness::BenchSpec;
use vernier_engine::display::inert;
use vernier_engine::extend::{Claim, EXTENDED_TRIALS, Extension};
use vernier_engine::notebook::{Notebook, Run, RunColumn, RunStatement, RunsLine, Sweep, WarmupPolicy};
use vernier_engine::sweep_view::SweepView;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::conditions_once::ConditionsOnce;
use super::run_records::RunRecords;
use super::{Context, hint};
use crate::gui::dialogs::{import::ImportForm, new_run::NewRunForm};
use crate::gui::io::Reply;
use crate::gui::jobs::ReadTrials;
use crate::gui::{AppCommand, Done, plots};
use vernier_engine::notebook::pending::Edit;

/// What the Runs section keeps between frames.
#[derive(Default)]
pub struct State {
    /// A run being discarded, with the reason typed so far.
    pub discarding: Option<(u32, String)>,
    /// What is being stated about a run after it was recorded (A1, A2).
    pub stating: Option<Stating>,
    /// The difference to claim when the selected run is extended (S10).
    pub extend_claim: String,
    /// The last extension's new runs and its verdict, shown with them.
    pub extension: Option<(Vec<u32>, String)>,
    /// An extension planned and waiting for the student to confirm its
    /// exact command (N13).
    pub extend_asking: Option<ExtendAsk>,
    /// Whether the selected run can be extended, kept while it stays so.
    pub extend_plan: ExtendPlanCache,
    /// The run whose trials are shown.
    pub selected_run: Option<u32>,
    /// Show a sweep instead of one run's trials.
    pub show_sweep: bool,
    /// The sweep picked to show.
    pub sweep: Option<SweepPick>,
    /// Every sweep ready to draw, rebuilt when the notebook changes.
    pub sweeps: SweepCache,
    /// The Runs table's groups, rebuilt when the notebook changes, and
    /// the selection it last scrolled to.
    pub table: RunsTable,
    /// Two runs being compared from the Runs section.
    pub comparing: Option<Comparing>,
    /// Each run's trials as read from its raw file, or why there are none.
    pub trials: HashMap<u32, Result<plots::RunTrials, plots::NoTrials>>,
}

impl State {
    /// Selects run `number` and shows its trials, asking for them to be
    /// read unless they were.
    pub fn select(&mut self, number: u32, nb: &Notebook, dir: &Path, asks: &mut Vec<AppCommand>) {
        self.selected_run = Some(number);
        self.show_sweep = false;
        if self.trials.contains_key(&number) {
            return;
        }
        match nb.run(number).filter(|r| r.measurement.raw_file.is_some()) {
            // Resolving the path looks at the disk (symbolic links), so the
            // file thread does it.
            Some(row) => {
                let job = ReadTrials { row: Box::new(row.clone()), dir: dir.to_path_buf() };
                asks.push(AppCommand::Job(Box::new(job)));
            }
            None => {
                let why = plots::NoTrials::Absent("no trial plot: the row keeps no raw file".into());
                self.trials.insert(number, Err(why));
            }
        }
    }

    /// Run `run`'s trials read: kept for its plot, a failure said.
    pub fn trials_read(
        &mut self,
        run: u32,
        result: Result<plots::RunTrials, plots::NoTrials>,
        asks: &mut Vec<AppCommand>,
    ) {
        if let Err(plots::NoTrials::Failed(e)) = &result {
            asks.push(AppCommand::Say { text: format!("run {run}: {e}"), error: true });
        }
        self.trials.insert(run, result);
    }

    /// Works out the table's conditions said once (SPEC D8) on a thread of
    /// its own, from the notebook as it is at `revision`, answered through
    /// `reply` as a [`Done`]; a thread started from the UI thread keeps its
    /// CPUs, so it stays off a pinned run's (E15).
    pub fn say_conditions_once(
        &self,
        nb: Arc<Notebook>,
        revision: u64,
        reply: Option<Reply>,
        asks: &mut Vec<AppCommand>,
    ) {
        let parts = self.table.conditions.parts();
        let Some(reply) = reply else { return };
        let spawned = std::thread::Builder::new().name("vernier-conditions".into()).spawn(move || {
            let split = super::conditions_once::split(&nb, &parts);
            drop(nb);
            reply.answer(Done::ConditionsSplit { revision, split });
        });
        if let Err(e) = spawned {
            let text = format!("the Runs table shows each run's conditions whole: no thread to say them once ({e})");
            asks.push(AppCommand::Say { text, error: true });
        }
    }

    /// The conditions said once, as worked out for the notebook at `revision`.
    pub fn conditions_split(&mut self, revision: u64, split: super::conditions_once::Split) {
        self.table.conditions.answered(revision, split);
    }

    /// Plans run `run`'s rerun to 51 trials, judged against `claim` (empty:
    /// none), and asks to confirm it (S10); nothing starts before the
    /// student confirms (N13).
    pub fn extend(&mut self, run: u32, claim: &str, nb: &Notebook, running: bool, asks: &mut Vec<AppCommand>) {
        if running {
            let text = "wait for the run in progress to finish, then extend".to_owned();
            return asks.push(AppCommand::Say { text, error: true });
        }
        let claim = Some(claim.trim()).filter(|c| !c.is_empty());
        let planned = Extension::plan(nb, run).and_then(|plan| plan.claim(claim).map(|claim| (plan, claim)));
        match planned {
            Ok((plan, claim)) => {
                self.extend_asking = Some(ExtendAsk { plan, claim, inline_allowed: false, refused: None })
            }
            Err(e) => asks.push(AppCommand::Say { text: e.to_string(), error: true }),
        }
    }

    /// The extension being confirmed, released by the consent its
    /// confirmation made (N13): what to run, with the plan and the claim its
    /// rows are recorded against; `None`, said why, when nothing starts.
    pub fn confirmed(
        &mut self,
        consent: Consent,
        running: bool,
        asks: &mut Vec<AppCommand>,
    ) -> Option<(BenchSpec, Extension, Option<Claim>)> {
        let ExtendAsk { plan, claim, .. } = self.extend_asking.take()?;
        if running {
            let text = "wait for the run in progress to finish, then extend".to_owned();
            asks.push(AppCommand::Say { text, error: true });
            return None;
        }
        match plan.gate.release(consent) {
            Ok(spec) => Some((spec, plan, claim)),
            Err(e) => {
                asks.push(AppCommand::Say { text: e.to_string(), error: true });
                None
            }
        }
    }

    /// Rows just recorded: the last selected, a scan's sweep shown (the
    /// picture it was run for), an extension's verdict kept beside its rows
    /// (the status bar cuts a long sentence; the run view shows it whole).
    pub fn show_recorded(
        &mut self,
        runs: &[u32],
        scan: bool,
        extension: Option<String>,
        nb: &Notebook,
        dir: &Path,
        asks: &mut Vec<AppCommand>,
    ) {
        if let Some(&last) = runs.last() {
            self.select(last, nb, dir, asks);
            if let Some(sweep) = nb.sweep_of(last).filter(|_| scan) {
                self.sweep = Some(SweepPick::Recorded(sweep.number));
                self.show_sweep = true;
            }
        }
        if let Some(verdict) = extension {
            self.extension = Some((runs.to_vec(), verdict));
        }
    }
}

const ROW_HEIGHT: f32 = 22.0;

impl super::SectionView for State {
    /// The log's own name (N2: identical in the window and the workbook);
    /// one past the end of `SECTIONS` does not compile.
    const TITLE: &'static str = vernier_engine::notebook::SECTIONS[2];
    /// The runs table scrolls itself; an outer scroll area would fight it.
    const SCROLLS_ITSELF: bool = true;

    fn count(nb: &Notebook) -> Option<usize> {
        Some(nb.runs().len())
    }

    fn ui(&mut self, ui: &mut Ui, cx: &mut Context<'_>) {
        runs_ui(ui, self, cx);
    }
}

fn runs_ui(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    let nb = cx.notebook;
    ui.horizontal(|ui| {
        if ui.button("▶ New run…").on_hover_text("Ctrl+R").clicked() {
            cx.commands.push(AppCommand::open::<NewRunForm>());
        }
        if ui
            .button("+ Add run from numbers…")
            .on_hover_text("Numbers your own instrument took: a CSV of trials, or typed or pasted (Ctrl+I)")
            .clicked()
        {
            cx.commands.push(AppCommand::open::<ImportForm>());
        }
        sweep_picker(ui, state, cx);
    });
    if nb.runs().is_empty() {
        hint(ui, "No runs yet. Record your predictions first: the first run locks them.");
        return;
    }
    // With nothing chosen to show below, the table takes the whole room.
    if !state.show_sweep && state.selected_run.and_then(|n| nb.run(n)).is_none() {
        hint(ui, "Click a run to see its trials.");
        runs_table(ui, state, cx);
        compare_window(ui, state, nb);
        return;
    }
    // SPEC U1, U4: the table above, the selected run's trials or a sweep
    // below, split by a bar the student drags; egui keeps the panel's size
    // in its memory, so the split stays where it was put for the session.
    let room = ui.available_height();
    egui::Panel::top("runs-table-split")
        .resizable(true)
        .frame(egui::Frame::NONE.inner_margin(egui::Margin { bottom: 6, ..egui::Margin::ZERO }))
        .default_size((room * 0.5).max(160.0))
        .size_range(100.0..=(room - 160.0).max(100.0))
        .show(ui, |ui| runs_table(ui, state, cx));
    compare_window(ui, state, nb);
    if state.show_sweep {
        sweep_ui(ui, state, cx);
        return;
    }
    let Some(run) = state.selected_run.and_then(|n| nb.run(n)) else {
        return;
    };
    // Wrapped: a long "what" and the buttons must not widen the section
    // past the window (the plot below would be cut at its right edge).
    ui.horizontal_wrapped(|ui| {
        ui.strong(format!("Run {} — {}", run.number, inert(&run.measurement.what)));
        // SPEC E16: a point of a sweep leads to the whole sweep.
        if let Some(pick) = state.sweeps.containing(nb, cx.revision, run.number)
            && ui
                .button(format!("Show sweep {}", pick.label()))
                .on_hover_text("every point of it, by its parameter")
                .clicked()
        {
            state.sweep = Some(pick);
            state.show_sweep = true;
        }
        if run.discarded.is_none() && ui.button("Discard…").clicked() {
            state.discarding = Some((run.number, String::new()));
        }
        super::predictions::answer_menu(ui, nb, run, cx.commands);
        if let Some(d) = &run.discarded {
            ui.label(RichText::new(format!("discarded: {}", inert(&d.reason))).weak());
        }
        let missing = Stating::missing(run);
        if run.discarded.is_none()
            && !missing.is_empty()
            && ui
                .button("State what is missing…")
                .on_hover_text("the warm-up, build, machine, power or thermal state the row did not record (A1, A2)")
                .clicked()
        {
            state.stating = Some(Stating { run: run.number, fields: missing });
        }
        // D7: the course's two written forms, ready to paste.
        if ui.button("Copy long form").on_hover_text("the measurement-log entry").clicked() {
            ui.ctx().copy_text(run.long_form());
        }
        if ui.button("Copy short form").on_hover_text("one report sentence with its conditions").clicked() {
            ui.ctx().copy_text(run.short_form());
        }
        if ui
            .button("Compare with…")
            .on_hover_text("then click the other run: S7, with the power-source and session checks")
            .clicked()
        {
            state.comparing = Some(Comparing { a: run.number, outcome: None });
        }
        if let Some(earlier) = run.measurement.extends {
            ui.label(RichText::new(format!("extends run {earlier}")).weak());
        }
    });
    if let Some((pair, _)) = nb.pair_of(run.number) {
        // Wrapped, like the line above: the verdict is a long sentence, and
        // an unwrapped one would widen the plot below past the window.
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(pair.line(nb)).italics());
            if ui.button("Copy comparison sentence").on_hover_text("the comparison in one report sentence").clicked() {
                ui.ctx().copy_text(pair.short_form(nb));
            }
        });
    }
    // SPEC S19: the tail against the budget stated for the run, beside its
    // median; E18: the noise floor of its session; E7: the canary judged
    // against it. Said only where kept.
    let tail = run.tail_line().map(|t| format!("tail: {t}"));
    let floor = run.measurement.noise_floor.as_ref().map(|f| format!("noise floor: {}", f.describe()));
    let canary = run.canary_verdict().map(|v| format!("canary: {v}"));
    // The course's 003: the figures with the IQR as a share of the median.
    let figures = format!("{}, n={}", run.figures().line(), run.measurement.summary.n);
    for line in std::iter::once(figures).chain(tail).chain(floor).chain(canary) {
        ui.label(RichText::new(line).weak());
    }
    // SPEC N15: the recipe that built the program, its compiler first.
    if let Some(recipe) = &run.measurement.recipe {
        let title = format!("Build recipe: {} · {}", recipe.command(), inert(&recipe.compiler));
        egui::CollapsingHeader::new(title).id_salt(("recipe", run.number)).show(ui, |ui| {
            for line in recipe.lines().iter().skip(1) {
                ui.label(RichText::new(line).monospace());
            }
        });
    }
    extend_ui(ui, state, cx, run.number);
    match state.trials.get(&run.number) {
        Some(Ok(trials)) if trials.run == run.number => plots::run_plot(ui, run, trials),
        Some(Err(why)) => hint(ui, why.text()),
        _ => hint(ui, "Reading the trials…"),
    }
    discard_dialog(ui, state, cx);
    stating_dialog(ui, state, cx);
    extend_dialog(ui, state, cx);
}

/// Colour of a comparison's group in the Runs table: its two rows and its
/// verdict line (SPEC S11: the two arms stay together in every view).
const PAIR_GROUP: Color32 = Color32::from_rgb(235, 145, 50);
/// Colour of a sweep's group: its rows and its line (SPEC E16).
const SWEEP_GROUP: Color32 = Color32::from_rgb(70, 175, 110);

/// Where a line of the Runs table sits in a group: a comparison's rows and
/// its verdict line, or a sweep's rows and its line. The notebook already
/// puts each group's own line right after the last of its rows
/// (`runs_lines`); this makes the group visible — a bracket down the left
/// edge from the first row to the group's line, a faint band behind it,
/// and each row's place in it beside its number.
#[derive(Debug, Clone, PartialEq)]
struct Grouping {
    colour: Color32,
    /// Beside a row's number: `C1 A`, `W1`.
    mark: Option<String>,
    /// The bracket opens on this line.
    first: bool,
    /// The group's own line (its verdict, or the sweep): the bracket
    /// closes on it and its text sits indented under the rows.
    closing: bool,
}

impl Grouping {
    fn of(nb: &Notebook, line: RunsLine<'_>) -> Option<Self> {
        let (colour, mark, first, closing) = match line {
            RunsLine::Run(run) => match nb.pair_of(run.number) {
                Some((pair, arm)) => {
                    let arm = if arm == 0 { "A" } else { "B" };
                    let first = run.number == pair.runs[0].min(pair.runs[1]);
                    (PAIR_GROUP, Some(format!("{} {arm}", pair.label())), first, false)
                }
                None => {
                    let sweep = nb.sweep_of(run.number)?;
                    (SWEEP_GROUP, Some(sweep.label()), sweep.runs.iter().min() == Some(&run.number), false)
                }
            },
            RunsLine::Pair(_) => (PAIR_GROUP, None, false, true),
            RunsLine::Sweep(_) => (SWEEP_GROUP, None, false, true),
        };
        Some(Self { colour, mark, first, closing })
    }

    /// The faint band behind every cell of a grouped line.
    fn band(&self, ui: &Ui) {
        let rect = ui.max_rect().expand2(egui::vec2(ui.spacing().item_spacing.x / 2.0, 0.0));
        ui.painter().rect_filled(rect, 0.0, self.colour.gamma_multiply(0.08));
    }

    /// The bracket, in the `#` cell: down the left edge, with a foot where
    /// the group opens and where it closes.
    fn bracket(&self, ui: &Ui) {
        let rect = ui.max_rect();
        let half_gap = ui.spacing().item_spacing.y / 2.0;
        let x = rect.left() + 2.0;
        let top = if self.first { rect.top() + 4.0 } else { rect.top() - half_gap };
        let bottom = if self.closing { rect.bottom() - 4.0 } else { rect.bottom() + half_gap };
        let stroke = egui::Stroke::new(2.5, self.colour);
        let painter = ui.painter();
        painter.line_segment([egui::pos2(x, top), egui::pos2(x, bottom)], stroke);
        if self.first {
            painter.line_segment([egui::pos2(x, top), egui::pos2(x + 6.0, top)], stroke);
        }
        if self.closing {
            painter.line_segment([egui::pos2(x, bottom), egui::pos2(x + 6.0, bottom)], stroke);
        }
    }
}

/// What the Runs table keeps between frames: each line's group, worked
/// out when the notebook changes rather than every frame (finding a row's
/// sweep looks through every sweep's rows), and the run last scrolled to.
#[derive(Default)]
pub struct RunsTable {
    revision: Option<u64>,
    groups: Vec<Option<Grouping>>,
    /// The Conditions said once (SPEC D8); until a split of the notebook
    /// shown comes, each row shows its conditions whole.
    pub conditions: ConditionsOnce,
    /// The selection is scrolled into view once, when it changes, so the
    /// student can scroll away from it.
    scrolled_to: Option<u32>,
}

impl RunsTable {
    /// What the table shows of the notebook at `revision`, worked out
    /// again only when the notebook changed; the conditions said once are
    /// asked of a worker (see `AppCommand::SayConditionsOnce`).
    fn refresh(&mut self, nb: &Notebook, lines: &[RunsLine<'_>], revision: u64, commands: &mut Vec<AppCommand>) {
        if self.revision != Some(revision) || self.groups.len() != lines.len() {
            self.groups = lines.iter().map(|&line| Grouping::of(nb, line)).collect();
            self.revision = Some(revision);
        }
        if self.conditions.needs_asking(nb.runs(), revision) {
            commands.push(AppCommand::SayConditionsOnce(revision));
        }
    }
}

/// Columns that hold sentences: each starts at a readable width and may be
/// dragged wider or narrower; a cell cut short shows all of itself on
/// hover. The figures' columns always fit what they hold (SPEC U1).
fn text_column(column: RunColumn) -> bool {
    matches!(column, RunColumn::What | RunColumn::Command | RunColumn::Conditions)
}

/// A sweep point's What: its parameter value first, then what the sweep is
/// about (`SIZE=16 KiB · memory sweep`), so a column cut short never cuts
/// away what tells the points apart (the row's own What is on hover of
/// its trials, and in the long form); `None` for a run in no sweep.
fn sweep_what(nb: &Notebook, run: &Run) -> Option<String> {
    let sweep = nb.sweeps().iter().find(|s| s.runs.contains(&run.number))?;
    let point = sweep.point_text(run.number)?;
    Some(vernier_engine::display::inert_line(format!("{point} · {}", sweep.what)))
}

/// The Runs table (SPEC U1, N2, N5, S11, E16): virtualised, each
/// comparison and sweep grouped with its own line, wider than the window
/// only sideways.
fn runs_table(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    let nb = cx.notebook;
    // A panel takes the size of what it holds: fill it, so the split stays
    // where the student dragged it however few rows there are.
    ui.set_min_height(ui.available_height());
    let picking = state.comparing.as_ref().filter(|c| c.outcome.is_none()).map(|c| c.a);
    if let Some(a) = picking {
        ui.horizontal(|ui| {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("Comparing run {a}: click the run to compare it with (Esc cancels)."),
            );
            if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                state.comparing = None;
            }
        });
    }
    let lines = nb.runs_lines();
    // Taken out for the frame, so the rows can read the rest of the state.
    let mut kept = std::mem::take(&mut state.table);
    let scroll_to = state.selected_run.filter(|&n| kept.scrolled_to != Some(n)).and_then(|selected| {
        kept.scrolled_to = Some(selected);
        lines.iter().position(|l| matches!(l, RunsLine::Run(r) if r.number == selected))
    });
    kept.refresh(nb, &lines, cx.revision, cx.commands);
    if let Some(shared) = kept.conditions.shared_for(cx.revision) {
        // D8: what every run shares, once; each row's Conditions the rest.
        ui.add(
            egui::Label::new(
                RichText::new(format!("Every run: {shared} — a row's Conditions gives only what differs.")).weak(),
            )
            .wrap(),
        );
    }
    let groups = &kept.groups;
    // Solid scroll bars take their own room: a floating one would lie over
    // the last row and take its clicks.
    ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
    egui::ScrollArea::horizontal().id_salt("runs-table-x").auto_shrink([false, true]).show(ui, |ui| {
        let height = (ui.available_height() - ROW_HEIGHT - 16.0).max(ROW_HEIGHT * 3.0);
        let mut table = TableBuilder::new(ui)
            .striped(true)
            .sense(egui::Sense::click())
            .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
            .max_scroll_height(height)
            .min_scrolled_height(height)
            .column(Column::auto().at_least(36.0))
            .column(Column::initial(230.0).at_least(80.0).clip(true).resizable(true))
            .column(Column::initial(190.0).at_least(80.0).clip(true).resizable(true))
            .column(Column::auto())
            .column(Column::auto())
            .column(Column::auto())
            .column(Column::auto())
            .column(Column::initial(220.0).at_least(80.0).clip(true).resizable(true))
            .column(Column::auto())
            .column(Column::auto());
        if let Some(index) = scroll_to {
            table = table.scroll_to_row(index, None);
        }
        table
            .header(ROW_HEIGHT, |mut header| {
                for column in RunColumn::ALL {
                    header.col(|ui| {
                        ui.add(egui::Label::new(RichText::new(column.header()).strong()).extend());
                    });
                }
            })
            .body(|body| {
                body.rows(ROW_HEIGHT, lines.len(), |mut row| {
                    let line = lines[row.index()];
                    let group = groups.get(row.index()).and_then(Option::as_ref);
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
                        // A sweep's line shows the sweep (below), its
                        // number kept apart from the runs'.
                        RunsLine::Sweep(s) => (s.number, false, true, Vec::new()),
                    };
                    row.set_selected(match line {
                        RunsLine::Sweep(s) => state.show_sweep && state.sweep == Some(SweepPick::Recorded(s.number)),
                        _ => !pair && state.selected_run == Some(number),
                    });
                    for column in RunColumn::ALL {
                        row.col(|ui| {
                            if let Some(group) = group {
                                group.band(ui);
                                if column == RunColumn::Number {
                                    group.bracket(ui);
                                    ui.add_space(if group.closing { 14.0 } else { 8.0 });
                                }
                            }
                            let flagged = column == RunColumn::Dispersion && !flags.is_empty();
                            let cell = match (line, column) {
                                (RunsLine::Run(run), RunColumn::What) => {
                                    sweep_what(nb, run).unwrap_or_else(|| line.cell(column))
                                }
                                (RunsLine::Run(run), RunColumn::Conditions) => kept
                                    .conditions
                                    .cell(run.number, cx.revision)
                                    .map_or_else(|| line.cell(column), str::to_owned),
                                _ => line.cell(column),
                            };
                            let text = if flagged && !discarded {
                                RichText::new(format!("⚠ {cell}")).color(ui.visuals().warn_fg_color)
                            } else {
                                RichText::new(cell)
                            };
                            // N5: a discarded run stays, struck through.
                            let text = if discarded { text.strikethrough().weak() } else { text };
                            let text = if pair { text.italics() } else { text };
                            // A sentence cut short shows all of itself on
                            // hover (egui's own tooltip for elided text);
                            // a figure is never cut.
                            let label = egui::Label::new(text).selectable(false);
                            let label = if text_column(column) { label.truncate() } else { label.extend() };
                            let response = ui.add(label);
                            if flagged {
                                response.on_hover_text(flags.join("\n"));
                            } else if let (RunsLine::Run(run), RunColumn::Conditions) = (line, column) {
                                // The row's conditions whole, on hover (D8).
                                response.on_hover_text(run.cell(RunColumn::Conditions));
                            }
                            if column == RunColumn::Number
                                && let Some(mark) = group.and_then(|g| g.mark.as_ref().map(|m| (g.colour, m)))
                            {
                                ui.add(
                                    egui::Label::new(RichText::new(mark.1).small().color(mark.0))
                                        .selectable(false)
                                        .extend(),
                                );
                            }
                        });
                    }
                    if row.response().clicked() {
                        if let RunsLine::Sweep(s) = line {
                            state.sweep = Some(SweepPick::Recorded(s.number));
                            state.show_sweep = true;
                            return;
                        }
                        match &mut state.comparing {
                            Some(c) if c.outcome.is_none() => c.outcome = Some((number, compare_runs(nb, c.a, number))),
                            _ => cx.commands.push(AppCommand::SelectRun(number)),
                        }
                    }
                });
            });
    });
    state.table = kept;
}

/// One of the sweeps the Runs section can draw (SPEC E16, U4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepPick {
    /// A recorded scan, `W{n}`.
    Recorded(u32),
    /// The built-in seq and chase kernels' runs by working set.
    Kernels,
}

impl SweepPick {
    /// `W1`, or `seq / chase`.
    fn label(self) -> String {
        match self {
            SweepPick::Recorded(n) => format!("W{n}"),
            SweepPick::Kernels => "seq / chase".to_owned(),
        }
    }
}

/// Every sweep of the notebook ready to draw, built when the notebook
/// changes (its revision), not every frame: with ten thousand runs,
/// finding the kernels' runs alone reads every row's command.
#[derive(Default)]
pub struct SweepCache {
    revision: Option<u64>,
    /// The runs and sweeps the plots were drawn from: an edit that changes
    /// neither (a note, a prediction) keeps them.
    made_from: Option<(RunRecords, Vec<Sweep>)>,
    plots: Vec<(SweepPick, plots::SweepPlot)>,
}

impl SweepCache {
    /// The recorded sweeps in order, then the kernels' when they have runs.
    fn plots(&mut self, nb: &Notebook, revision: u64) -> &[(SweepPick, plots::SweepPlot)] {
        let unchanged = |(runs, sweeps): &(RunRecords, Vec<Sweep>)| runs.are(nb.runs()) && sweeps == nb.sweeps();
        if self.revision != Some(revision) && !self.made_from.as_ref().is_some_and(unchanged) {
            let recorded = nb.sweeps().iter().filter_map(|s| {
                SweepView::of_sweep(s, nb).map(|v| (SweepPick::Recorded(s.number), plots::SweepPlot::new(v)))
            });
            let kernels = SweepView::of_kernels(nb).map(|v| (SweepPick::Kernels, plots::SweepPlot::new(v)));
            self.plots = recorded.chain(kernels).collect();
            self.made_from = Some((RunRecords::of(nb.runs()), nb.sweeps().to_vec()));
        }
        self.revision = Some(revision);
        &self.plots
    }

    /// The sweep run `number` is a point of, if it is drawn.
    fn containing(&mut self, nb: &Notebook, revision: u64, number: u32) -> Option<SweepPick> {
        let recorded = nb.sweep_of(number).map(|s| SweepPick::Recorded(s.number));
        let plots = self.plots(nb, revision);
        recorded.filter(|pick| plots.iter().any(|(p, _)| p == pick)).or_else(|| {
            plots
                .iter()
                .find(|(p, plot)| *p == SweepPick::Kernels && plot.view.points().any(|point| point.run == number))
                .map(|(p, _)| *p)
        })
    }
}

/// The toolbar's sweep picker: every sweep by its title; choosing one
/// shows it in place of the selected run's trials.
fn sweep_picker(ui: &mut Ui, state: &mut State, cx: &Context<'_>) {
    let State { sweeps, sweep, show_sweep, .. } = state;
    let plots = sweeps.plots(cx.notebook, cx.revision);
    if plots.is_empty() {
        return;
    }
    let shown = sweep.filter(|_| *show_sweep).and_then(|pick| plots.iter().find(|(p, _)| *p == pick));
    let label = ui.label("Sweep");
    egui::ComboBox::from_id_salt("sweep-picker")
        .width(260.0)
        .selected_text(shown.map_or_else(|| "choose one to plot…".to_owned(), |(_, plot)| plot.view.title.clone()))
        .show_ui(ui, |ui| {
            for (pick, plot) in plots {
                if ui.selectable_label(shown.is_some_and(|(p, _)| p == pick), &plot.view.title).clicked() {
                    *sweep = Some(*pick);
                    *show_sweep = true;
                }
            }
        })
        .response
        .labelled_by(label.id)
        .on_hover_text("plot a sweep: each point's median and IQR against its parameter (E16)");
}

/// The sweep picked, drawn, with the way back to the selected run.
fn sweep_ui(ui: &mut Ui, state: &mut State, cx: &Context<'_>) {
    let selected = state.selected_run;
    let State { sweeps, sweep, show_sweep, .. } = state;
    let plots = sweeps.plots(cx.notebook, cx.revision);
    let Some((_, plot)) = sweep.and_then(|pick| plots.iter().find(|(p, _)| *p == pick)).or(plots.first()) else {
        hint(
            ui,
            "No sweep yet: record one with parameters in New run (or vernier bench --param), or run the seq and chase kernels at several sizes.",
        );
        return;
    };
    ui.horizontal(|ui| {
        ui.strong(inert(&plot.view.title));
        if let Some(n) = selected
            && ui.button(format!("Back to run {n}")).clicked()
        {
            *show_sweep = false;
        }
    });
    if plot.view.series.iter().all(|s| s.points.is_empty()) {
        hint(ui, "Every point of this sweep was discarded or has no number to place it by.");
        return;
    }
    plots::sweep_plot(ui, plot);
}

/// What the student is stating about a run after it was recorded: one
/// field for each thing the row does not state (SPEC A1, A2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stating {
    run: u32,
    /// Each missing thing with the text typed for it.
    fields: Vec<(Missing, String)>,
}

/// Something a row may not state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Missing {
    Warmup,
    Build,
    Machine,
    Power,
    Thermal,
}

impl Missing {
    fn label(self) -> &'static str {
        match self {
            Missing::Warmup => "Warm-up trials (not in the file)",
            Missing::Build => "Build",
            Missing::Machine => "Machine",
            Missing::Power => "Power source",
            Missing::Thermal => "Thermal condition",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Missing::Warmup => "how many ran before the timed ones, e.g. 3",
            Missing::Build => "g++ 12.2 -O2 -march=native",
            Missing::Machine => "ThinkPad T14, Ryzen 7 PRO 5850U, 16 GiB",
            Missing::Power => "mains / battery",
            Missing::Thermal => "idle 5 min before the run, lid open",
        }
    }
}

impl Stating {
    /// What `run` does not state, as the audit's A1 and A2 ask of it.
    fn missing(run: &Run) -> Vec<(Missing, String)> {
        let context = run.context();
        [
            (Missing::Warmup, run.measurement.warmup == WarmupPolicy::Unknown),
            (Missing::Build, context.build().is_none()),
            (Missing::Machine, context.machine().is_none()),
            (Missing::Power, context.power_source().is_none()),
            (Missing::Thermal, context.thermal().is_none()),
        ]
        .into_iter()
        .filter(|(_, missing)| *missing)
        .map(|(m, _)| (m, String::new()))
        .collect()
    }

    /// The statements typed so far, or what is wrong with them.
    fn statements(&self) -> Result<Vec<RunStatement>, String> {
        let mut out = Vec::new();
        for (missing, text) in &self.fields {
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            out.push(match missing {
                Missing::Warmup => RunStatement::Warmup(
                    text.parse().map_err(|_| format!("the warm-up must be a whole number of trials, not '{text}'"))?,
                ),
                Missing::Build => RunStatement::Build(text.to_owned()),
                Missing::Machine => RunStatement::Machine(text.to_owned()),
                Missing::Power => RunStatement::PowerSource(text.to_owned()),
                Missing::Thermal => RunStatement::Thermal(text.to_owned()),
            });
        }
        if out.is_empty() {
            return Err("fill in what you know".into());
        }
        Ok(out)
    }
}

fn stating_dialog(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    let Some(stating) = &mut state.stating else { return };
    let mut close = false;
    egui::Modal::new(egui::Id::unique("state-run")).show(ui.ctx(), |ui| {
        ui.heading(format!("State what run {} did not record", stating.run));
        ui.label(
            "Kept as stated later, with today's time, under names of their own; the row's numbers and what it \
             recorded never change. Leave blank what you do not know.",
        );
        egui::Grid::new("state-run-fields").num_columns(2).spacing([12.0, 6.0]).show(ui, |ui| {
            for (missing, text) in &mut stating.fields {
                let label = ui.label(missing.label());
                ui.add(egui::TextEdit::singleline(text).hint_text(missing.hint()).desired_width(380.0))
                    .labelled_by(label.id);
                ui.end_row();
            }
        });
        let statements = stating.statements();
        ui.horizontal(|ui| {
            if ui.add_enabled(statements.is_ok(), egui::Button::new("State")).clicked()
                && let Ok(statements) = statements.clone()
            {
                cx.commands.push(AppCommand::Edit(Edit::StateRun {
                    run: stating.run,
                    statements,
                    at: chrono::Utc::now(),
                }));
                close = true;
            }
            close |= ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape));
            if let Err(why) = statements {
                ui.label(RichText::new(why).weak());
            }
        });
    });
    if close {
        state.stating = None;
    }
}

/// Two runs being compared: `a`, chosen with "Compare with…", then the run
/// clicked in the table and the engine's answer.
pub struct Comparing {
    /// Run A.
    pub a: u32,
    /// Run B and the comparison, once B is clicked.
    pub outcome: Option<(u32, Result<RowComparison, CompareError>)>,
}

/// The comparison's window: the verdict first, the two rows, how S7
/// decided and each check. Esc or Close closes it.
fn compare_window(ui: &mut Ui, state: &mut State, nb: &Notebook) {
    let Some(Comparing { a, outcome: Some((b, outcome)) }) = &state.comparing else { return };
    let modal = egui::Modal::new(egui::Id::unique("compare-runs")).show(ui.ctx(), |ui| {
        ui.set_width(640.0);
        ui.heading(format!("Run {b} against run {a}"));
        let c = match outcome {
            Ok(c) => c,
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e.to_string());
                return ui.button("Close").clicked();
            }
        };
        let colour = if c.comparison.claimed { ui.visuals().text_color() } else { ui.visuals().warn_fg_color };
        ui.label(RichText::new(c.comparison.verdict.as_str()).strong().color(colour));
        ui.add_space(6.0);
        egui::Grid::new("compare-rows").num_columns(5).spacing([12.0, 4.0]).striped(true).show(ui, |ui| {
            for header in ["Run", "Median", "Dispersion", "Power source", "Session"] {
                ui.strong(header);
            }
            ui.end_row();
            for (number, power, session) in [(c.run_a, &c.power_a, &c.session_a), (c.run_b, &c.power_b, &c.session_b)] {
                let cell = |column| nb.run(number).map(|r| r.cell(column)).unwrap_or_default();
                ui.label(format!("{} — {}", cell(RunColumn::Number), cell(RunColumn::What)));
                ui.label(cell(RunColumn::Median));
                ui.label(cell(RunColumn::Dispersion));
                ui.label(power.as_deref().map_or_else(|| "not recorded".to_owned(), |p| inert(p).into_owned()));
                ui.label(session.describe());
                ui.end_row();
            }
        });
        ui.add_space(6.0);
        ui.label(format!("S7: {}", c.comparison.reasoning()));
        for check in &c.checks {
            let weight = match check.kind {
                CaveatKind::NoClaim => "no claim",
                CaveatKind::Flag => "flagged",
                CaveatKind::Report => "reported",
            };
            ui.label(format!("{} ({weight}): {}", check.rule, check.text));
        }
        ui.horizontal(|ui| {
            if ui.button("Copy verdict").clicked() {
                ui.ctx().copy_text(c.comparison.verdict.clone());
            }
            ui.button("Close").clicked()
        })
        .inner
    });
    if modal.inner || modal.should_close() {
        state.comparing = None;
    }
}

/// S10: rerun the selected run's spec to 51 trials as a new row linked to
/// it, judged against the claim typed; a run that cannot be extended says why.
/// Whether the selected run can be extended, and why not: planned once per
/// selection and notebook state, not every frame (a plan looks through the
/// rows for the run's partner).
#[derive(Debug, Default)]
pub struct ExtendPlanCache {
    /// The notebook, its row and note counts (a discard adds a note) and the run.
    key: Option<(usize, usize, usize, u32)>,
    refused: Option<String>,
}

impl ExtendPlanCache {
    fn refused(&mut self, nb: &Notebook, run: u32) -> Option<&str> {
        let key = (std::ptr::from_ref(nb) as usize, nb.runs().len(), nb.notes().len(), run);
        if self.key != Some(key) {
            self.refused = Extension::plan(nb, run).err().map(|why| why.to_string());
            self.key = Some(key);
        }
        self.refused.as_deref()
    }
}

fn extend_ui(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>, run: u32) {
    let refused = state.extend_plan.refused(cx.notebook, run).map(str::to_owned);
    ui.horizontal(|ui| {
        let label = ui.label("Claim");
        ui.add(
            egui::TextEdit::singleline(&mut state.extend_claim).hint_text("optional: 0.5ms or 5%").desired_width(180.0),
        )
        .labelled_by(label.id)
        .on_hover_text("the difference you mean to claim; for a comparison it defaults to its difference");
        let button = ui.add_enabled(refused.is_none(), egui::Button::new("Extend to 51 trials"));
        let button = match &refused {
            None => button.on_hover_text(
                "rerun this run's spec (command or kernel, warm-up, pin) to 51 timed trials as a new row, \
                 and see whether the median moved by more than the difference you mean to claim",
            ),
            Some(why) => button.on_disabled_hover_text(inert(why)),
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

/// An extension planned from the notebook, waiting for the student's
/// confirmation (N13): the notebook is a file anyone can edit, so its
/// command is shown exactly as it will run before anything starts.
pub struct ExtendAsk {
    /// What will run.
    pub plan: Extension,
    /// The claim it will be judged against.
    pub claim: Option<Claim>,
    /// The student ticked "let it run code written in the notebook".
    pub inline_allowed: bool,
    /// Why the last confirmation was refused, if it was.
    pub refused: Option<String>,
}

/// The extension's confirmation: the plan with its exact command and any
/// inline-code finding, the tick that finding needs, and Run it, the only
/// place the consent to start it is made (N13, R2).
fn extend_dialog(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    let Some(ask) = &mut state.extend_asking else { return };
    let mut close = false;
    let modal = egui::Modal::new(egui::Id::unique("extend-run")).show(ui.ctx(), |ui| {
        ui.set_max_width(760.0);
        ui.heading(format!("Extend run {} to {EXTENDED_TRIALS} trials", ask.plan.run));
        ui.label("The command comes from the notebook, a file anyone can edit: read what will run.");
        ui.label(RichText::new(ask.plan.describe()).monospace());
        let inline = ask.plan.gate.inline_code().map(str::to_owned);
        if let Some(why) = &inline {
            let text = format!("I have read it: let it run code written in the notebook ({why})");
            ui.checkbox(&mut ask.inline_allowed, text);
        }
        if let Some(why) = &ask.refused {
            ui.colored_label(ui.visuals().error_fg_color, why.as_str());
        }
        ui.horizontal(|ui| {
            let ready = inline.is_none() || ask.inline_allowed;
            let run = ui.add_enabled(ready, egui::Button::new("Run it"));
            if run.on_hover_text("reruns the command shown above on this machine, with your privileges").clicked() {
                match ask.plan.gate.confirm(InlineCode::from(ask.inline_allowed)) {
                    Ok(consent) => {
                        cx.commands.push(AppCommand::StartExtension(consent));
                    }
                    Err(e) => ask.refused = Some(e.to_string()),
                }
            }
            close |= ui.button("Cancel").clicked();
        });
    });
    if close || modal.should_close() {
        state.extend_asking = None;
    }
}

fn discard_dialog(ui: &mut Ui, state: &mut State, cx: &mut Context<'_>) {
    let Some((number, reason)) = &mut state.discarding else { return };
    let mut close = false;
    egui::Modal::new(egui::Id::unique("discard-run")).show(ui.ctx(), |ui| {
        ui.heading(format!("Discard run {number}"));
        ui.label("Nothing is deleted: the run stays in the log, struck through, and the reason is listed under Notes and anomalies.");
        let label = ui.label("Reason");
        ui.add(egui::TextEdit::singleline(reason).hint_text("why, e.g. closed the lid at t=120 s").desired_width(420.0)).labelled_by(label.id);
        ui.horizontal(|ui| {
            if ui.add_enabled(!reason.trim().is_empty(), egui::Button::new("Discard")).clicked() {
                cx.commands.push(AppCommand::Edit(Edit::Discard { run: *number, reason: reason.clone(), at: chrono::Utc::now() }));
                close = true;
            }
            close |= ui.button("Cancel").clicked();
        });
    });
    if close {
        state.discarding = None;
    }
}
