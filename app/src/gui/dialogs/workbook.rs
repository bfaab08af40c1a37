//! Edits typed into the notebook's own `measurements.xlsx` (SPEC N12): the
//! file thread weighs them against the notebook on disk, the window offers
//! them in a bar above the section, and a dialog lists what would be taken
//! in, what is already there and what is refused with why, before anything
//! is written.

use std::path::{Path, PathBuf};

use egui::{RichText, Ui};
use vernier_engine::documents::foreign::MAX_WORKBOOK_BYTES;
use vernier_engine::documents::{export_record::ExportRecord, measurements};
use vernier_engine::merge::{self, Merged, Ownership, Plan};
use vernier_engine::notebook::store;

use super::layout::{self, Scrolling, close_button};
use super::{Cx, Dialog, Happened, Keep};
use crate::gui::Done;
use crate::gui::io::{Follow, Followed, Job, Lookout};
use crate::gui::{AppCommand, VernierApp, io};

/// The workbook the window follows: the one every export writes.
pub fn default_path(dir: &Path) -> PathBuf {
    dir.join(store::EXPORTS_DIR).join("measurements.xlsx")
}

/// Edits of a workbook of the open notebook, weighed: something to take in,
/// or refused edits not yet reported.
#[derive(Clone)]
pub struct EditsOffer {
    /// The workbook.
    pub path: PathBuf,
    /// What taking it in would do, against the notebook as it is on disk.
    pub plan: Plan,
}

impl EditsOffer {
    /// The bar's button: how many edits can be taken in.
    pub fn button(&self) -> String {
        match self.plan.taken_count() {
            0 => format!("Review the {} made in a spreadsheet", edits(self.plan.refused.len())),
            n => format!("Take in the {} made in a spreadsheet", edits(n)),
        }
    }

    /// The bar's sentence: taken vs refused, and where.
    pub fn summary(&self) -> String {
        let name = merge::file_name(&self.path);
        let refused = match self.plan.refused.len() {
            0 => String::new(),
            1 => "; 1 is refused by the log's rules".to_owned(),
            n => format!("; {n} are refused by the log's rules"),
        };
        format!("{name} was edited in a spreadsheet: {} can be taken in{refused}", self.plan.taken_count())
    }
}

/// "1 edit", "3 edits".
fn edits(n: usize) -> String {
    if n == 1 { "1 edit".to_owned() } else { format!("{n} edits") }
}

/// Reads the workbook at `path` and weighs its edits against the notebook
/// in `dir` as it is on disk. `None` when there is nothing to offer: no
/// workbook, no edit, every edit already in, or only refused edits the
/// export record shows were reported when the workbook was taken in.
/// Someone else's workbook (R1) is said as an error: it is never merged.
/// Runs on the file thread.
pub fn look(dir: &Path, path: &Path) -> Result<Option<EditsOffer>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let bytes =
        vernier_engine::bounded::read_bounded(path, MAX_WORKBOOK_BYTES, "a workbook").map_err(|e| e.to_string())?;
    let own = measurements::read_own(&bytes, &path.display().to_string()).map_err(|e| e.to_string())?;
    if own.edits.is_empty() {
        return Ok(None);
    }
    let mine = store::load(dir).map_err(|e| e.to_string())?;
    if let Ownership::Theirs(why) = merge::whose(path, &own.notebook, dir, &mine) {
        return Err(why);
    }
    let file = merge::file_name(path);
    let plan = merge::plan(&own, &mine, &file);
    // Taking a workbook in records its hash (A17): refused edits left in it
    // were listed then, and are not offered again.
    let reported = path
        .parent()
        .and_then(|folder| ExportRecord::read(dir, folder))
        .is_some_and(|r| r.files.get(&file).is_some_and(|sha| *sha == vernier_engine::digest::sha256_hex(&bytes)));
    let offered = plan.taken_count() > 0 || (!plan.refused.is_empty() && !reported);
    Ok(offered.then(|| EditsOffer { path: path.to_path_buf(), plan }))
}

/// The notebook folder a workbook belongs to, when it sits in that folder's
/// `exports/` and carries that notebook: `vernier open` on it opens the
/// notebook, with the edits offered, instead of showing it read-only (N12).
/// Read before the window exists, as the notebook itself is.
pub fn own_notebook(path: &Path) -> Option<PathBuf> {
    let path = std::fs::canonicalize(path).ok()?;
    let dir = path.parent()?.parent()?;
    if !dir.join(store::NOTEBOOK_FILE).is_file() {
        return None;
    }
    let bytes = vernier_engine::bounded::read_bounded(&path, MAX_WORKBOOK_BYTES, "a workbook").ok()?;
    // Whose it is needs only the notebook it carries: its edits are weighed
    // on the file thread once the window is open.
    let theirs = measurements::read(&bytes, &path.display().to_string()).ok()?;
    let mine = store::load(dir).ok()?;
    (merge::whose(&path, &theirs, dir, &mine) == Ownership::Mine).then(|| dir.to_path_buf())
}

/// The status bar's sentence for a finished take-in: a success only once it
/// is on disk (`merge` saves before it answers).
pub fn taken_message(merged: &Merged) -> (String, bool) {
    let (taken, refused, failed) = (merged.plan.taken_count(), merged.plan.refused.len(), merged.taken.failed.len());
    let refused = match refused {
        0 => String::new(),
        n => format!("; {n} refused (listed in the dialog)"),
    };
    if failed > 0 {
        let message = format!(
            "{} of {} change(s) taken in and saved; {failed} could not be applied{refused} (listed in the dialog)",
            merged.taken.lines.len(),
            merged.plan.take.len()
        );
        return (message, true);
    }
    if taken == 0 {
        return (format!("nothing taken in{refused}"), false);
    }
    (format!("{} taken in and saved{refused}", edits(taken)), false)
}

/// The take-in dialog's state.
pub struct TakeIn {
    /// The offer it was opened on.
    pub offer: EditsOffer,
    /// Waiting for the file thread.
    pub busy: bool,
    /// What the take-in did, or why it failed.
    pub done: Option<Result<Box<Merged>, String>>,
}

/// What the dialog asks for.
pub enum TakeInAction {
    /// Take the workbook's edits in.
    TakeIn(PathBuf),
    /// Close the dialog.
    Close,
}

/// An engine sentence as the window shows it: its arrow (an `Edit`'s
/// "old → new") as "->", since the bundled fonts lack the glyph.
pub fn shown(text: &str) -> String {
    text.replace('\u{2192}', "->")
}

impl Dialog for TakeIn {
    /// The dialog listing the spreadsheet edits, and taking them in (N12).
    fn show(&mut self, ctx: &egui::Context, cx: &mut Cx<'_>) -> Keep {
        let max_height = layout::max_size(ctx).y;
        let mut action = None;
        egui::Modal::new(egui::Id::unique("take-in")).show(ctx, |ui| action = self.ui(ui, max_height));
        match action {
            Some(TakeInAction::TakeIn(path)) => cx.commands.push(AppCommand::TakeIn(path)),
            Some(TakeInAction::Close) => return Keep::Close,
            None => {}
        }
        Keep::Open
    }

    /// The edits on offer were the previous notebook's.
    fn on(&mut self, happened: Happened) -> Keep {
        match happened {
            Happened::NotebookOpened => Keep::Close,
            Happened::EngineStopped | Happened::RunNotStarted => Keep::Open,
        }
    }
}

impl TakeIn {
    /// Draws the dialog (at most `max_height` tall); what it asks for.
    pub fn ui(&self, ui: &mut Ui, max_height: f32) -> Option<TakeInAction> {
        super::layout::fit_width(ui, 860.0);
        ui.heading("Edits made in a spreadsheet");
        ui.label(RichText::new(vernier_engine::display::path(&self.offer.path)).monospace());
        ui.add_space(4.0);
        let area = egui::ScrollArea::vertical();
        let (footer, ()) = Scrolling::body(ui, max_height, area, |ui| match &self.done {
            Some(Ok(merged)) => done_ui(ui, merged),
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("Nothing was taken in: {e}"));
                plan_ui(ui, &self.offer.plan);
            }
            None => plan_ui(ui, &self.offer.plan),
        });
        footer.footer(ui, |ui| {
            ui.horizontal(|ui| {
                let n = self.offer.plan.taken_count();
                let mut action = None;
                if self.done.is_none() && n > 0 {
                    let label = if self.busy { "Taking in…".to_owned() } else { format!("Take in {}", edits(n)) };
                    let button = ui.add_enabled(!self.busy, egui::Button::new(label));
                    if button.on_hover_text("saved into the notebook, each recorded with a note").clicked() {
                        action = Some(TakeInAction::TakeIn(self.offer.path.clone()));
                    }
                }
                if close_button(ui, None, true) {
                    action = Some(TakeInAction::Close);
                }
                action
            })
            .inner
        })
    }
}

/// What taking in would do: taken, already there, refused with why.
fn plan_ui(ui: &mut Ui, plan: &Plan) {
    if !plan.take.is_empty() {
        ui.label(RichText::new(format!("Will be taken in ({})", edits(plan.taken_count()))).strong());
        for (edits, action) in &plan.take {
            ui.label(format!("- {}", shown(&action.describe())));
            for edit in edits {
                ui.label(RichText::new(format!("    from {}", shown(&edit.to_string()))).weak());
            }
        }
        ui.add_space(6.0);
    }
    if !plan.already.is_empty() {
        ui.label(RichText::new(format!("Already in the notebook ({})", plan.already.len())).strong());
        for edit in &plan.already {
            ui.label(format!("- {}", shown(&edit.to_string())));
        }
        ui.add_space(6.0);
    }
    if !plan.refused.is_empty() {
        ui.label(RichText::new(format!("Refused ({}): the notebook keeps what it holds", plan.refused.len())).strong());
        refused_ui(ui, plan);
    }
}

fn refused_ui(ui: &mut Ui, plan: &Plan) {
    for (edit, why) in &plan.refused {
        ui.label(format!("- {}", shown(&edit.to_string())));
        ui.colored_label(ui.visuals().warn_fg_color, format!("    {}", shown(why)));
    }
}

/// What a take-in did: each change saved, what failed, what was refused.
fn done_ui(ui: &mut Ui, merged: &Merged) {
    let (message, failed) = taken_message(merged);
    if failed {
        ui.colored_label(ui.visuals().warn_fg_color, message);
    } else {
        ui.label(RichText::new(message).strong());
    }
    for line in &merged.taken.lines {
        ui.label(format!("- {}", shown(line)));
    }
    if !merged.taken.failed.is_empty() {
        ui.add_space(6.0);
        ui.label(RichText::new("Could not be applied (the notebook changed meanwhile)").strong());
        for line in &merged.taken.failed {
            ui.colored_label(ui.visuals().warn_fg_color, format!("- {}", shown(line)));
        }
    }
    if !merged.plan.refused.is_empty() {
        ui.add_space(6.0);
        ui.label(RichText::new(format!("Refused ({})", merged.plan.refused.len())).strong());
        refused_ui(ui, &merged.plan);
    }
}

/// A file's size and modification time (`None`: not there): a `stat`, so
/// looking every second costs nothing while the file does not change.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp(Option<(u64, Option<std::time::SystemTime>)>);

impl FileStamp {
    fn of(path: &Path) -> Self {
        Self(std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok())))
    }
}

/// The file thread's watch on the open notebook's `exports/measurements.xlsx`
/// (N12): weighed again when the file moved, when another notebook is
/// followed, when a job asks (an export rewrote it, a take-in took it in),
/// and — while it offers something — when the notebook changed (the offer
/// may now be in).
#[derive(Default)]
pub struct FollowWorkbook {
    /// What the last weighing saw.
    seen: Option<Seen>,
}

/// The counts of the followed notebook and the workbook's stamp at the
/// last weighing, and whether it offered something.
struct Seen {
    id: u64,
    version: u64,
    again: u64,
    file: FileStamp,
    offered: bool,
}

impl Lookout for FollowWorkbook {
    fn look(&mut self, followed: &Followed) -> Option<Done> {
        let path = default_path(&followed.dir);
        let file = FileStamp::of(&path);
        let due = self.seen.as_ref().is_none_or(|seen| {
            seen.id != followed.id
                || seen.again != followed.again
                || seen.file != file
                || (seen.offered && seen.version != followed.version)
        });
        if !due {
            return None;
        }
        let offer = look(&followed.dir, &path).map(|o| o.map(Box::new));
        let (id, version, again) = (followed.id, followed.version, followed.again);
        self.seen = Some(Seen { id, version, again, file, offered: matches!(offer, Ok(Some(_))) });
        let dir = followed.dir.clone();
        Some(Done::WorkbookEdits { dir, path, offer })
    }
}

/// Weighs the edits of a workbook of the notebook in `dir` other than the
/// one followed (`vernier open` on it, N12).
pub struct Weigh {
    /// The notebook's folder.
    pub dir: PathBuf,
    /// The workbook.
    pub path: PathBuf,
}

impl Job for Weigh {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        let Weigh { dir, path } = *self;
        let offer = look(&dir, &path).map(|o| o.map(Box::new));
        Done::WorkbookEdits { dir, path, offer }
    }

    /// Asked for on its own, when the window opens.
    fn counted(&self) -> bool {
        false
    }
}

/// Takes the workbook's edits into the notebook in `dir` (`merge` locks,
/// loads, applies, saves), then reads the notebook back for the window.
pub struct TakeEditsIn {
    /// The notebook's folder.
    pub dir: PathBuf,
    /// The workbook.
    pub path: PathBuf,
}

/// What taking a workbook in did, and the notebook it left on disk.
pub struct TakenIn {
    /// The plan, what was taken and whether the export record vouches for the workbook.
    merged: Merged,
    /// The notebook as saved, with its unwritten parts, when it changed.
    notebook: Option<(vernier_engine::notebook::Notebook, io::Unwritten)>,
}

impl Job for TakeEditsIn {
    fn run(self: Box<Self>, follow: &mut Follow) -> Done {
        let TakeEditsIn { dir, path } = *self;
        let result = merge::merge(&dir, &path, chrono::Utc::now()).map_err(|e| e.to_string()).map(|merged| {
            follow.look_again(&dir);
            let notebook = follow.reload(&dir).map(|nb| {
                let unwritten = vernier_engine::documents::unwritten(&nb);
                (nb, unwritten)
            });
            TakenIn { merged, notebook }
        });
        Done::TakenIn { dir, path, result }
    }
}

impl VernierApp {
    /// Opens the dialog listing the spreadsheet edits on offer.
    pub(in crate::gui) fn open_take_in(&mut self) {
        if let Some(offer) = &self.shown.spreadsheet {
            self.dialogs.open(TakeIn { offer: offer.clone(), busy: false, done: None });
        }
    }

    /// Takes the edits of the workbook at `path`, of the open notebook, in.
    pub(in crate::gui) fn take_in(&mut self, path: PathBuf) {
        if let Some(dialog) = self.dialogs.get_mut::<TakeIn>() {
            dialog.busy = true;
        }
        self.send_job(TakeEditsIn { dir: self.doc.dir.clone(), path });
    }

    /// What the file thread found in a workbook of the open notebook (N12):
    /// an offer replaces the one shown; "nothing" clears an offer of the
    /// same workbook only, so the followed file does not hide another.
    pub(in crate::gui) fn on_workbook_edits(
        &mut self,
        dir: &Path,
        path: &Path,
        offer: Result<Option<Box<EditsOffer>>, String>,
    ) {
        if dir != self.doc.dir {
            return;
        }
        let same = self.shown.spreadsheet.as_ref().is_none_or(|o| o.path == path);
        match offer {
            Ok(Some(offer)) => {
                // An open dialog that has not taken anything in yet shows
                // the workbook as it is now.
                if let Some(dialog) = self.dialogs.get_mut::<TakeIn>()
                    && dialog.offer.path == path
                    && dialog.done.is_none()
                    && !dialog.busy
                {
                    dialog.offer = (*offer).clone();
                }
                self.shown.spreadsheet = Some(*offer);
            }
            Ok(None) if same => self.shown.spreadsheet = None,
            Ok(None) => {}
            Err(e) => {
                if same {
                    self.shown.spreadsheet = None;
                }
                self.say(format!("its spreadsheet edits could not be weighed: {e}"), true);
            }
        }
    }

    /// What taking a workbook's edits in did: said in the status bar (a
    /// success only once saved) and in the dialog; the notebook shown is
    /// the one saved, unless changes of the window's own are still in
    /// flight (their save carries it).
    pub(in crate::gui) fn on_taken_in(&mut self, dir: &Path, path: &Path, result: Result<TakenIn, String>) {
        let done = match result {
            Ok(TakenIn { merged, notebook }) => {
                let (message, failed) = taken_message(&merged);
                if dir == self.doc.dir {
                    if let Some((notebook, unwritten)) = notebook
                        && self.saved()
                    {
                        self.doc.adopt(notebook, unwritten);
                    }
                    if self.shown.spreadsheet.as_ref().is_some_and(|o| o.path == path) {
                        self.shown.spreadsheet = None;
                    }
                }
                self.say(message, failed);
                Ok(Box::new(merged))
            }
            Err(e) => {
                self.say(format!("nothing taken in: {e}"), true);
                Err(e)
            }
        };
        if let Some(dialog) = self.dialogs.get_mut::<TakeIn>() {
            dialog.busy = false;
            dialog.done = Some(done);
        }
    }
}
