//! The Reproduce dialog (SPEC R1–R4): open a classmate's notebook folder or
//! `measurements.xlsx` read-only, pick a row, read exactly what would run —
//! where, and whether the program here is theirs — confirm, and see both
//! rows side by side with the outcome, a comparison's paired ratio and the
//! conditions that differ. Their files are read (and their programs hashed)
//! on the I/O thread and never written; the rerun goes into the open
//! notebook. Every text from their file is shown inert (SPEC N10), and a row
//! that runs code written in their file needs its own tick before it can
//! run (R2). The dialog fits the window: it scrolls inside, and Close and
//! Esc always close it.

use std::path::{Path, PathBuf};

use egui::{Key, KeyboardShortcut, Modifiers, RichText, Ui};
use vernier_engine::consent::{Consent, InlineCode};
use vernier_engine::display::inert;
use vernier_engine::harness::BenchSpec;
use vernier_engine::harness::provenance::Hashes;
use vernier_engine::notebook::{Recipe, short_sha256};
use vernier_engine::reproduce::{
    COMPILER_HERE, Log, Original, Rebuild, Rerun, Scratch, SideBySide, Verdict, same_folder,
};

use super::layout::{self, Scrolling, close_button};
use super::pick::Pick;
use super::{Cx, Dialog, MenuEntry, Happened, Keep, Menu, OpenCx, Opens};
use crate::gui::Done;
use crate::gui::io::{Follow, Job};
use crate::gui::{AppCommand, VernierApp};

/// A classmate's log, read for reproducing.
pub struct TheirLog {
    /// Where it was read from.
    pub source: PathBuf,
    /// Every run row, with the rerun that would repeat it or why none can.
    pub rows: Vec<(Original, Result<Rerun, String>)>,
    /// What could not be read (a foreign workbook's list).
    pub problems: Vec<String>,
    /// A workbook Vernier wrote: a new notebook can be made from it (N12).
    pub own_workbook: bool,
    /// What was changed in it in a spreadsheet, one line each: shown as
    /// warnings, since what runs is what its hidden copy says (N12, R2).
    pub edits: Vec<String>,
    /// Beside each row of `rows`: for a row with a build recipe, the
    /// rebuild from their sources and its rerun (SPEC R5), or why there
    /// can be none; taken when it runs.
    pub rebuilds: Vec<Option<Result<(Rebuild, Rerun), String>>>,
}

/// Row `o`'s rebuild from the sources their notebook (in `folder`; `None`
/// for a workbook) keeps — a comparison's arms each from its own recipe —
/// and its rerun, when an arm has a recipe: the sources read and checked,
/// a scratch folder made, nothing run — not even a compiler's `--version`
/// (SPEC N13, R5).
fn rebuild_of(o: &Original, folder: Option<&Path>, source: &str) -> Option<Result<(Rebuild, Rerun), String>> {
    if o.arms().iter().all(|arm| arm.recipe.is_none()) {
        return None;
    }
    let rebuild = match Rebuild::prepare(o, folder, None) {
        Ok(rebuild) => rebuild,
        Err(e) => return Some(Err(e.to_string())),
    };
    Some(o.rebuilt_rerun(&rebuild, source).map(|rerun| (rebuild, rerun)).map_err(|e| e.to_string()))
}

/// Reads a notebook folder or any `measurements.xlsx`, read-only, unless it
/// is the open notebook `mine`: a rerun must never be recorded into the log
/// it reproduces. Runs on the I/O thread, since every step reads the disk
/// (the programs are hashed to tell whether they are theirs).
pub fn read_log(path: &Path, mine: &Path) -> Result<TheirLog, String> {
    if same_folder(path, mine) {
        return Err("that is the open notebook; open your own notebook and reproduce from theirs".into());
    }
    let log = Log::open(path).map_err(|e| e.to_string())?;
    // Their rows mostly share a program: each file is hashed once.
    let mut hashes = Hashes::default();
    let rows = log
        .originals()
        .into_iter()
        .map(|o| {
            let rerun = o.rerun(&mut hashes).map_err(|e| e.to_string());
            (o, rerun)
        })
        .collect::<Vec<(Original, Result<Rerun, String>)>>();
    let folder = matches!(log, Log::Notebook(_)).then_some(path);
    let source = path.display().to_string();
    let rebuilds = rows.iter().map(|(o, _)| rebuild_of(o, folder, &source)).collect();
    Ok(TheirLog {
        source: path.to_path_buf(),
        rows,
        rebuilds,
        problems: log.problems().to_vec(),
        own_workbook: matches!(log, Log::Workbook(_)),
        edits: log.spreadsheet_edits().iter().map(|e| super::workbook::shown(&e.to_string())).collect(),
    })
}

/// Reads a classmate's log for the dialog: [`read_log`] on the file thread.
pub struct ReadLog {
    /// Their notebook folder or workbook.
    pub path: PathBuf,
    /// The open notebook, which is refused.
    pub mine: PathBuf,
}

impl Job for ReadLog {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        Done::TheirLog(read_log(&self.path, &self.mine))
    }
}

impl VernierApp {
    /// Their log read: shown in the dialog, if open, nothing selected.
    pub(in crate::gui) fn their_log_read(&mut self, log: Result<TheirLog, String>) {
        if let Some(dialog) = self.dialogs.get_mut::<Reproduce>() {
            dialog.log = Some(log);
            dialog.selected = None;
        }
    }

    /// Opens the dialog on their folder or workbook and reads it.
    pub(in crate::gui) fn read_their_log(&mut self, path: PathBuf) {
        let dialog = self.dialogs.get_or_open(Reproduce::default);
        dialog.path = path.display().to_string();
        self.send_job(ReadLog { path, mine: self.doc.dir.clone() });
    }

    /// Reruns their row `i`, with the consent its confirmation made (N13);
    /// a rebuild first writes their sources into its scratch folder, on the
    /// file thread (SPEC R5).
    pub(in crate::gui) fn reproduce_row(&mut self, i: usize, consent: Consent) {
        let Some(released) = self.dialogs.get_mut::<Reproduce>().map(|d| d.release(i, consent)) else { return };
        match released {
            Ok((spec, None)) => self.start_rerun(i, spec),
            Ok((spec, Some(rebuild))) => self.send_job(WriteSources { rebuild, spec, row: i }),
            Err(e) => self.say(format!("nothing was run: {e}"), true),
        }
    }

    /// Starts the rerun of their row `i`.
    fn start_rerun(&mut self, i: usize, spec: BenchSpec) {
        if self.start_run(spec)
            && let Some(dialog) = self.dialogs.get_mut::<Reproduce>()
        {
            dialog.pending = Some(i);
            dialog.outcome = None;
        }
    }

    /// Makes a new notebook in the empty folder `target` from the Vernier
    /// workbook read in the dialog, and opens it (N12).
    pub(in crate::gui) fn new_notebook_from(&mut self, target: PathBuf) {
        let source = self.dialogs.get::<Reproduce>().and_then(|d| match &d.log {
            Some(Ok(log)) if log.own_workbook => Some(log.source.clone()),
            _ => None,
        });
        match source {
            Some(workbook) => self.send_job(NewNotebook { workbook, target }),
            None => self.say("read a workbook Vernier wrote in the Reproduce dialog first", true),
        }
    }
}

/// Writes a rebuild's sources into its scratch folder (SPEC R5), then
/// starts the rerun, whose recipe runs there first.
pub struct WriteSources {
    rebuild: Rebuild,
    spec: BenchSpec,
    row: usize,
}

impl Job for WriteSources {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        let WriteSources { rebuild, spec, row } = *self;
        let written = rebuild.write_sources().map_err(|e| e.to_string());
        Done::SourcesWritten { row, spec: Box::new(spec), written }
    }
}

impl VernierApp {
    /// A rebuild's sources written: the rerun of their row `row` starts,
    /// its recipe run in the scratch folder first.
    pub(in crate::gui) fn sources_written(&mut self, row: usize, spec: BenchSpec, written: Result<Scratch, String>) {
        match written {
            Ok(scratch) => {
                if let Some(dialog) = self.dialogs.get_mut::<Reproduce>() {
                    dialog.scratch = Some(scratch);
                }
                self.start_rerun(row, spec);
            }
            Err(e) => self.say(format!("nothing was run: {e}"), true),
        }
    }

    /// The rerun of their row has ended, however: its scratch folder, if
    /// it had one, goes.
    pub(in crate::gui) fn remove_scratch(&mut self) {
        if let Some(scratch) = self.dialogs.get_mut::<Reproduce>().and_then(|d| d.scratch.take()) {
            // SPEC R5: removed on the file thread.
            self.send_job(crate::gui::jobs::Release(scratch));
        }
    }
}

/// How many spreadsheet edits are listed before "and N more".
const EDITS_SHOWN: usize = 10;

/// Makes a new notebook in `target` from the workbook at `workbook`,
/// someone else's, which is only read (N12, R1); the file thread follows
/// the new notebook from then on.
pub struct NewNotebook {
    /// Their workbook.
    pub workbook: PathBuf,
    /// An empty folder.
    pub target: PathBuf,
}

impl Job for NewNotebook {
    fn run(self: Box<Self>, follow: &mut Follow) -> Done {
        let NewNotebook { workbook, target } = *self;
        let made = (|| {
            let bytes = vernier_engine::bounded::read_bounded(
                &workbook,
                vernier_engine::documents::foreign::MAX_WORKBOOK_BYTES,
                "a workbook",
            )
            .map_err(|e| e.to_string())?;
            let merged = vernier_engine::merge::new_notebook(&bytes, &workbook, &target, chrono::Utc::now())
                .map_err(|e| e.to_string())?;
            let (notebook, stamp) =
                vernier_engine::notebook::store::load_stamped(&target).map_err(|e| e.to_string())?;
            follow.start(target.clone(), stamp);
            let unwritten = vernier_engine::documents::unwritten(&notebook);
            Ok::<_, String>(Box::new(FromWorkbook { merged, notebook, unwritten }))
        })();
        Done::NotebookFromWorkbook { target, made }
    }
}

/// A new notebook made from a Vernier workbook, as saved.
pub struct FromWorkbook {
    /// What was taken from the workbook, with its warnings.
    merged: vernier_engine::merge::Merged,
    /// The notebook as saved.
    notebook: vernier_engine::notebook::Notebook,
    /// Its parts still to write.
    unwritten: crate::gui::io::Unwritten,
}

impl VernierApp {
    /// A notebook made from their workbook: opened in place of this one,
    /// with what was taken (and any warning) said.
    pub(in crate::gui) fn notebook_from_workbook(&mut self, target: PathBuf, made: Result<Box<FromWorkbook>, String>) {
        match made {
            Ok(made) => {
                let FromWorkbook { merged, notebook, unwritten } = *made;
                let (taken, failed) = super::workbook::taken_message(&merged);
                self.open(target.clone(), notebook, unwritten);
                self.dialogs.close::<Reproduce>();
                // R2, N13: a hidden copy that is not what their sheets
                // show is said with the result, as a warning.
                let warned: String = merged
                    .warnings
                    .iter()
                    .map(|w| format!(" WARNING: {}", vernier_engine::display::inert(w)))
                    .collect();
                self.say(
                    format!(
                        "made a new notebook in {} from their workbook: {taken}{warned}",
                        vernier_engine::display::path(&target)
                    ),
                    failed || !warned.is_empty(),
                );
            }
            Err(e) => self.say(format!("no notebook was made: {e}"), true),
        }
    }
}

impl Opens for Reproduce {
    const ENTRY: Option<MenuEntry> = Some(MenuEntry {
        menu: Menu::Run,
        label: "Reproduce a classmate's row…",
        shortcut: Some(KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::R)),
        hover: None,
    });

    fn make(_: &OpenCx<'_>) -> Self {
        Self::default()
    }
}

impl Dialog for Reproduce {
    /// It fits the window whatever its size (R4, U): at most the window
    /// less the menu and status bars, scrolling inside.
    fn show(&mut self, ctx: &egui::Context, cx: &mut Cx<'_>) -> Keep {
        let mut close = false;
        let screen = ctx.content_rect();
        let max = layout::max_size(ctx);
        let max_height = max.y;
        egui::Window::new("Reproduce a classmate's row")
            .default_width((screen.width() - 60.0).clamp(320.0, 860.0))
            .max_width(max.x)
            .max_height(max_height)
            .pivot(egui::Align2::CENTER_TOP)
            .default_pos(screen.center_top() + egui::vec2(0.0, 40.0))
            .constrain(true)
            .collapsible(false)
            .show(ctx, |ui| close = self.ui(ui, max_height, cx.measuring, cx.commands));
        if close { Keep::Close } else { Keep::Open }
    }

    /// A rerun that will not be recorded is no longer pending.
    fn on(&mut self, happened: Happened) -> Keep {
        match happened {
            Happened::EngineStopped | Happened::RunNotStarted => self.pending = None,
            Happened::NotebookOpened => {}
        }
        Keep::Open
    }
}

/// The dialog's state.
#[derive(Default)]
pub struct Reproduce {
    /// The path being typed.
    pub path: String,
    /// The log read, or why it could not be.
    pub log: Option<Result<TheirLog, String>>,
    /// The row picked (index into `rows`).
    pub selected: Option<usize>,
    /// The row whose inline code the user allowed to run (its own tick,
    /// given again for any other row).
    pub inline_allowed: Option<usize>,
    /// Why the last confirmation was refused, if it was.
    refused: Option<String>,
    /// Rebuild the picked row from their sources first (SPEC R5).
    pub rebuild: bool,
    /// The row being rerun, until its result is recorded.
    pub pending: Option<usize>,
    /// The scratch folder of the rebuild in flight, removed when it ends.
    pub scratch: Option<Scratch>,
    /// The last rerun, side by side with its original.
    pub outcome: Option<(Original, SideBySide)>,
    /// The path field has had its first focus.
    focused: bool,
    /// Whether the last frame showed a result, so that the body starts at
    /// its top when the page changes (the result's verdict first, R4).
    showed_outcome: bool,
}

impl Reproduce {
    /// The run that repeats row `i` of their log, in exchange for the
    /// consent its confirmation made (N13).
    /// With the rebuild ticked, the rebuild is taken out, to write their
    /// sources before the run (SPEC R5).
    pub fn release(&mut self, i: usize, consent: Consent) -> Result<(BenchSpec, Option<Rebuild>), String> {
        let Some(Ok(log)) = self.log.as_mut() else { return Err("their log is no longer read; read it again".into()) };
        if self.rebuild {
            return match log.rebuilds.get_mut(i).and_then(Option::take) {
                Some(Ok((rebuild, rerun))) => {
                    rerun.gate.release(consent).map(|spec| (spec, Some(rebuild))).map_err(|e| e.to_string())
                }
                Some(Err(why)) => Err(why),
                None => Err("this row's rebuild was used; read their log again to rebuild it again".into()),
            };
        }
        match log.rows.get(i) {
            Some((_, Ok(rerun))) => rerun.gate.release(consent).map(|spec| (spec, None)).map_err(|e| e.to_string()),
            Some((_, Err(why))) => Err(why.clone()),
            None => Err("their log is no longer read; read it again".into()),
        }
    }

    /// Draws the dialog into `ui` (a window of at most `max_height`):
    /// the body scrolls; "Run it here" and Close stay in view below it, in
    /// the same place whichever row is picked and however long its plan.
    /// `busy` while any run is in flight; queues what it asks for on
    /// `commands`; true when the user closes it (Close, or Esc while no
    /// rerun of its own is going).
    pub fn ui(&mut self, ui: &mut Ui, max_height: f32, busy: bool, commands: &mut Vec<AppCommand>) -> bool {
        let mut body = egui::ScrollArea::vertical();
        if self.outcome.is_some() != self.showed_outcome {
            // A new page (the result, or back to their rows) opens at its
            // top, not where the long plan was scrolled to.
            self.showed_outcome = self.outcome.is_some();
            body = body.vertical_scroll_offset(0.0);
        }
        let waiting = self.pending.is_some();
        let held = waiting.then_some("the rerun is still going: wait for its result, or cancel it with Esc");
        // While a run is in flight Esc cancels it (the window's shortcut).
        let (footer, ()) = Scrolling::body(ui, max_height, body, |ui| self.body(ui, commands));
        footer.footer(ui, |ui| {
            ui.horizontal(|ui| {
                self.run_button(ui, busy, commands);
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| close_button(ui, held, !busy))
                    .inner
            })
            .inner
        })
    }

    /// "Run it here", under the plan the body shows: greyed out, saying
    /// why, until a row that can be rerun is picked (and its inline code
    /// allowed). The only place the consent to run their row is made (N13).
    fn run_button(&mut self, ui: &mut Ui, busy: bool, commands: &mut Vec<AppCommand>) {
        let running = self.pending.is_some();
        let shown = match (&self.log, self.selected) {
            _ if self.outcome.is_some() => Err("go back to their rows to pick another"),
            (Some(Ok(log)), Some(selected)) => match shown_rerun(log, selected, self.rebuild) {
                Some(Ok(rerun)) => Ok((selected, rerun)),
                Some(Err(_)) => Err("this row cannot be rerun: see why above"),
                None => Err("pick a row of their log first"),
            },
            (Some(Ok(_)), None) => Err("pick a row of their log first"),
            _ => Err("read their log first"),
        };
        let ticked = shown.as_ref().is_ok_and(|(selected, _)| self.inline_allowed == Some(*selected));
        let why_not = match &shown {
            _ if running => Some("the rerun is going"),
            _ if busy => Some("a run is in flight: wait for it to end"),
            Ok((_, rerun)) if rerun.gate.inline_code().is_some() && !ticked => {
                Some("tick \"I have read it\" above: their file's code runs only once you allow it")
            }
            Ok(_) => None,
            Err(why) => Some(*why),
        };
        let label = if running { "Running…" } else { "Run it here" };
        let button = ui.add_enabled(why_not.is_none(), egui::Button::new(label));
        let button = match why_not {
            Some(why) => button.on_disabled_hover_text(why),
            None => button.on_hover_text("reruns the command shown above on this machine, with your privileges"),
        };
        if let (true, Ok((selected, rerun))) = (button.clicked(), shown) {
            match rerun.gate.confirm(InlineCode::from(ticked)) {
                Ok(consent) => {
                    self.refused = None;
                    commands.push(AppCommand::ReproduceRow(selected, consent));
                }
                Err(e) => self.refused = Some(e.to_string()),
            }
        }
    }

    fn body(&mut self, ui: &mut Ui, commands: &mut Vec<AppCommand>) {
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
        // The result first, in place of the list: its verdict, ratio and
        // differing conditions must be in view without scrolling (R4).
        if let Some((original, outcome)) = &self.outcome {
            side_by_side(ui, original, outcome);
            ui.add_space(4.0);
            if ui.button("Back to their rows").on_hover_text("pick another row of their log").clicked() {
                self.outcome = None;
            }
            return;
        }
        match &self.log {
            None => {}
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            Some(Ok(_)) => self.log_ui(ui, commands),
        }
    }

    fn log_ui(&mut self, ui: &mut Ui, commands: &mut Vec<AppCommand>) {
        let Some(Ok(log)) = &self.log else { return };
        ui.label(
            RichText::new(format!("{} — {} run(s)", vernier_engine::display::path(&log.source), log.rows.len()))
                .strong(),
        );
        if !log.edits.is_empty() || (log.own_workbook && !log.problems.is_empty()) {
            // R2, N12: said before a row is picked, and in full above its plan.
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "Their sheets do not show what runs: {} edit(s) made in a spreadsheet{}. What runs is what the \
                     notebook inside the workbook says; a picked row lists them above its plan.",
                    log.edits.len(),
                    if log.own_workbook && !log.problems.is_empty() {
                        ", and a warning about its hidden copy"
                    } else {
                        ""
                    }
                ),
            );
        }
        if log.own_workbook {
            let button = ui.button("Make a new notebook from this workbook…").on_hover_text(
                "asks for an empty folder; their runs and the edits their log allows are copied there, and their \
                 file is only read",
            );
            if button.clicked() {
                commands.push(AppCommand::Pick(Pick::NewFromWorkbook));
            }
        }
        // A workbook Vernier wrote: what it says is a warning above the plan.
        if !log.problems.is_empty() && !log.own_workbook {
            egui::CollapsingHeader::new(format!("{} thing(s) could not be read", log.problems.len())).show(ui, |ui| {
                for p in &log.problems {
                    ui.label(inert(p));
                }
            });
        }
        egui::ScrollArea::vertical().id_salt("their-rows").max_height(180.0).show(ui, |ui| {
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
        let Some(((original, _), selected)) = self.selected.and_then(|i| Some((log.rows.get(i)?, i))) else {
            ui.label(RichText::new("Pick a row to see exactly what would run.").weak());
            return;
        };
        ui.separator();
        // SPEC R5: their recipe and the compilers side by side, and the
        // rebuild offered; ticked, its plan and gate are the ones shown.
        let rebuild = log.rebuilds.get(selected).and_then(Option::as_ref);
        if rebuild.is_some() {
            recipe_ui(ui, original, rebuild);
        }
        if matches!(rebuild, Some(Ok(_))) {
            ui.checkbox(&mut self.rebuild, "Rebuild it from their sources first (in a scratch folder of yours)");
        } else {
            self.rebuild = false;
        }
        match shown_rerun(log, selected, self.rebuild).unwrap_or(Err("their log is no longer read")) {
            Ok(rerun) => {
                for check in rerun.different_files() {
                    // Before confirmation, where it cannot be missed (R4).
                    ui.colored_label(ui.visuals().warn_fg_color, format!("Warning: {}", check.text));
                }
                edits_ui(ui, &log.edits, if log.own_workbook { &log.problems } else { &[] });
                ui.label(RichText::new(original.plan(&log.source.display().to_string(), rerun)).monospace());
                if let Some(why) = rerun.gate.inline_code() {
                    let mut tick = self.inline_allowed == Some(selected);
                    let text = format!("I have read it: let it run code written in their file ({why})");
                    if ui.checkbox(&mut tick, text).changed() {
                        self.inline_allowed = tick.then_some(selected);
                    }
                }
                if let Some(why) = &self.refused {
                    ui.colored_label(ui.visuals().error_fg_color, why.as_str());
                }
                ui.label(RichText::new("Run it here, below, reruns exactly this.").weak());
            }
            Err(why) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("cannot be rerun: {}", inert(why)));
            }
        }
    }
}

/// The rerun row `selected` of `log` shows: its rebuild's, when `rebuild`
/// is ticked and the row can be rebuilt, else its plain rerun, or why it
/// cannot be rerun; `None` when their log has no such row.
fn shown_rerun(log: &TheirLog, selected: usize, rebuild: bool) -> Option<Result<&Rerun, &str>> {
    if rebuild && let Some(Some(Ok((_, rebuilt)))) = log.rebuilds.get(selected) {
        return Some(Ok(rebuilt));
    }
    log.rows.get(selected).map(|(_, rerun)| rerun.as_ref().map_err(String::as_str))
}

/// Their build recipe beside this machine's (SPEC R5), one table per
/// recipe (a comparison's arms may each have their own): the compilers
/// side by side, the command, the program, and whether it can be rebuilt
/// from what their log keeps.
fn recipe_ui(ui: &mut Ui, original: &Original, rebuild: Option<&Result<(Rebuild, Rerun), String>>) {
    let builds: Vec<(&str, &Recipe, &str)> = match rebuild {
        Some(Ok((rebuild, _))) => rebuild.builds().into_iter().map(|b| (b.arm, b.recipe, COMPILER_HERE)).collect(),
        // Not rebuildable: each recipe their arms have, the compiler here not asked.
        _ => original.recipes().into_iter().map(|(arm, recipe)| (arm, recipe, "not asked")).collect(),
    };
    let folder = match rebuild {
        Some(Ok((rebuild, _))) => {
            format!("the same, run in {} when rebuilt", vernier_engine::display::path(rebuild.folder()))
        }
        _ => "—".into(),
    };
    for (arm, recipe, here) in builds {
        let title =
            if arm.is_empty() { "Their build recipe".to_owned() } else { format!("Their build recipe (arm {arm})") };
        ui.label(RichText::new(title).strong());
        let rows = [
            ["", "Theirs", "Here"].map(String::from).to_vec(),
            vec!["Compiler".into(), recipe.compiler.clone(), here.to_owned()],
            vec!["Command".into(), recipe.command(), folder.clone()],
            vec![
                "Program".into(),
                format!("{} (SHA-256 {}…)", recipe.program, short_sha256(&recipe.program_sha256)),
                "compared once rebuilt".into(),
            ],
            vec![
                "Sources".into(),
                recipe.sources.iter().map(|s| format!("{} ({} bytes)", s.path, s.bytes)).collect::<Vec<_>>().join(", "),
                format!("{} kept in their raw/", recipe.sources.iter().filter(|s| s.kept.is_some()).count()),
            ],
        ];
        grid(ui, &format!("recipe{arm}"), rows);
        ui.add_space(4.0);
    }
    if let Some(Err(why)) = rebuild {
        ui.colored_label(ui.visuals().warn_fg_color, format!("cannot be rebuilt: {}", inert(why)));
    }
}

/// Their workbook's spreadsheet edits, as warnings above the plan: the
/// first few, then how many more; then what else its reading found (a
/// hidden notebook that does not match its cells).
fn edits_ui(ui: &mut Ui, edits: &[String], problems: &[String]) {
    let warn = ui.visuals().warn_fg_color;
    for problem in problems {
        ui.colored_label(warn, format!("Warning: {}", super::workbook::shown(&inert(problem))));
    }
    if edits.is_empty() {
        return;
    }
    ui.colored_label(
        warn,
        format!(
            "Warning: their workbook was edited in a spreadsheet ({} edit(s)); Vernier reruns what its hidden copy \
             says, not what the sheets show:",
            edits.len()
        ),
    );
    for edit in edits.iter().take(EDITS_SHOWN) {
        ui.colored_label(warn, format!("  - {edit}"));
    }
    if edits.len() > EDITS_SHOWN {
        ui.colored_label(warn, format!("  and {} more", edits.len() - EDITS_SHOWN));
    }
}

/// The outcome's colour: the theme's for an error, a warning, or green.
fn outcome_colour(ui: &Ui, outcome: Verdict) -> egui::Color32 {
    match outcome {
        Verdict::Differs => ui.visuals().error_fg_color,
        Verdict::Inconclusive => ui.visuals().warn_fg_color,
        Verdict::Reproduced => {
            if ui.visuals().dark_mode {
                egui::Color32::from_rgb(110, 200, 120)
            } else {
                egui::Color32::from_rgb(30, 120, 50)
            }
        }
    }
}

/// A grid of strings, the first row as headers, that never grows wider than
/// the room it is given (R4, U): the first column keeps its width (up to a
/// third of the room), the others share the rest, and a longer cell wraps
/// inside its column instead of pushing the window past the screen.
fn grid(ui: &mut Ui, id: &str, rows: impl IntoIterator<Item = Vec<String>>) {
    const SPACING: f32 = 16.0;
    let rows: Vec<Vec<String>> = rows.into_iter().map(|r| r.iter().map(|c| inert(c).into_owned()).collect()).collect();
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    if columns == 0 {
        return;
    }
    let room = ui.available_width();
    let font = egui::TextStyle::Body.resolve(ui.style());
    let first = rows
        .iter()
        .filter_map(|r| r.first())
        .map(|c| ui.painter().layout_no_wrap(c.clone(), font.clone(), egui::Color32::PLACEHOLDER).size().x)
        .fold(0.0, f32::max)
        .min(room / 3.0);
    let others = (columns - 1).max(1) as f32;
    let width = ((room - SPACING * (columns - 1) as f32 - first) / others).max(48.0);
    egui::Grid::new(id).striped(true).spacing([SPACING, 4.0]).num_columns(columns).max_col_width(width).show(
        ui,
        |ui| {
            for (i, row) in rows.into_iter().enumerate() {
                for cell in row {
                    let text = RichText::new(cell);
                    ui.add(egui::Label::new(if i == 0 { text.strong() } else { text }).wrap());
                }
                ui.end_row();
            }
        },
    );
}

/// Their row(s) and the rerun: the outcome and its sentence, each arm and a
/// comparison's paired ratio side by side, the conditions that differ, then
/// the programs, result check and placement.
fn side_by_side(ui: &mut Ui, o: &Original, s: &SideBySide) {
    let rows: Vec<String> = s.arms.iter().map(|a| a.their_row.to_string()).collect();
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("Their run {}:", rows.join(" and "))).strong().size(16.0));
        ui.label(RichText::new(s.outcome.word()).strong().size(16.0).color(outcome_colour(ui, s.outcome)));
    });
    ui.label(inert(&s.text));
    ui.add_space(4.0);
    let trials = |w: Option<u32>, n: usize| format!("{} + {n}", w.map_or_else(|| "?".into(), |w| w.to_string()));
    let header = ["", "Theirs", "Mine", "Outcome"].map(String::from).to_vec();
    let arms = s.arms.iter().zip(o.arms()).map(|(a, theirs)| {
        let [t, m] = a.figures(theirs);
        let mine = a.recorded_run.map_or_else(|| "not recorded".into(), |n| format!("mine run {n}"));
        let arm = if a.label.is_empty() { String::new() } else { format!("{}: ", a.label) };
        vec![
            format!("{arm}their run {}, {mine}", a.their_row),
            format!("{} (IQR {}) · {}", t.median(), t.iqr(), trials(theirs.warmup_trials, theirs.timed as usize)),
            format!("{} (IQR {}) · {}", m.median(), m.iqr(), trials(Some(a.warmup), a.timed)),
            a.outcome.word().to_owned(),
        ]
    });
    let ratio = s.ratio.iter().map(|r| {
        let [t, m] = r.shown();
        vec!["paired ratio B/A".to_owned(), t, m, r.judged.outcome.word().to_owned()]
    });
    grid(ui, "side-by-side", std::iter::once(header).chain(arms).chain(ratio));
    ui.add_space(4.0);
    if s.diff.is_empty() {
        ui.label("No recorded condition differs.");
    } else {
        ui.label(RichText::new(format!("{} condition(s) differ", s.diff.len())).strong());
        let rows = s.diff.iter().map(|d| vec![d.field.clone(), d.theirs.clone(), d.ours.clone()]);
        grid(ui, "env-diff", std::iter::once(["Condition", "Theirs", "Mine"].map(String::from).to_vec()).chain(rows));
    }
    ui.add_space(4.0);
    if s.arms.len() == 2 {
        for a in &s.arms {
            ui.label(format!("Arm {}: {}", a.label, inert(&a.text)));
        }
    }
    for a in &s.arms {
        let arm = if a.label.is_empty() { String::new() } else { format!(" ({})", a.label) };
        for check in &a.programs {
            let text = format!("Program{arm}: {}", check.text);
            if check.differs() {
                ui.colored_label(ui.visuals().warn_fg_color, text);
            } else {
                ui.label(text);
            }
        }
        if let Some(check) = &a.result_check {
            ui.label(format!("Kernel{arm} {}", check.text));
        }
    }
    ui.label(format!("Placement: {}", inert(&s.placement)));
}
