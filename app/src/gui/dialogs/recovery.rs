//! The window never drops a change (SPEC N10): what it has not saved is
//! kept in a recovery file beside the notebook from the moment it is made
//! (`notebook.unsaved-<time>.ron`, see `keeper`), and what it cannot save
//! before it closes stays there, said why; closing by hand
//! with changes not on disk asks first; and opening a notebook with a
//! recovery file pending offers to apply it, as `vernier recover` does.

use std::path::{Path, PathBuf};
use std::sync::mpsc::TryRecvError;
use std::time::{Duration, Instant};

use egui::RichText;
use vernier_engine::display::inert;
use vernier_engine::notebook::pending::{self, Edit, Fate, Provenance};
use vernier_engine::notebook::store;

use super::{Cx, Dialog, Happened, Keep};
use crate::gui::Done;
use crate::gui::io::{self, Follow, Job};
use crate::gui::keeper;
use crate::gui::{AppCommand, VernierApp};

/// A recovery file found beside the open notebook, its changes in words
/// with why the log's rules would refuse each now — or why it cannot be read.
#[derive(Debug, Clone)]
pub struct Found {
    /// The file.
    pub path: PathBuf,
    /// Each change, and `Err(why)` when it would be refused now.
    pub changes: Result<pending::Weighed, String>,
    /// Where it was written, when it could be read: one not written here
    /// for this notebook is said so, and applied only when asked by name.
    pub provenance: Option<Provenance>,
}

/// The recovery files on offer above the section.
#[derive(Debug, Clone)]
pub struct RecoveryOffer {
    pub(in crate::gui) found: Vec<Found>,
    /// Their changes are listed.
    shown: bool,
    /// Being applied by the file thread.
    busy: bool,
}

/// The pending recovery files in `dir`, weighed against the notebook on
/// disk (on the file thread: it reads files). A file a running window
/// keeps — this one's own, or another's — is not offered: that window
/// saves its changes itself.
pub fn look(dir: &Path) -> Vec<Found> {
    let files = pending::pending(dir);
    if files.is_empty() {
        return Vec::new();
    }
    let notebook = store::load(dir);
    files
        .into_iter()
        .filter_map(|path| {
            let (changes, provenance) = match (&notebook, pending::read(&path)) {
                (Ok(nb), Ok(unsaved)) => {
                    let provenance = Provenance::of(&unsaved, nb);
                    if matches!(provenance, Provenance::Running(_)) {
                        return None;
                    }
                    (Ok(pending::weigh(nb, &unsaved)), Some(provenance))
                }
                (Err(e), _) => (Err(format!("the notebook cannot be read to weigh it: {e}")), None),
                (_, Err(e)) => (Err(e.to_string()), None),
            };
            Some(Found { path, changes, provenance })
        })
        .collect()
}

/// Looks for recovery files a window left beside the notebook in `dir`
/// (N10) and weighs their changes against the notebook on disk.
pub struct LookForRecovery {
    /// The notebook's folder.
    pub dir: PathBuf,
}

impl Job for LookForRecovery {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        let found = look(&self.dir);
        Done::RecoveryFound { dir: self.dir, found }
    }

    /// Taken on its own, whenever a notebook opens.
    fn counted(&self) -> bool {
        false
    }
}

/// Applies the recovery file at `path` to the notebook in `dir` (the engine
/// locks, loads, applies, saves and renames it), then reads the notebook
/// back for the window.
pub struct ApplyRecovery {
    /// The notebook's folder.
    pub dir: PathBuf,
    /// The recovery file.
    pub path: PathBuf,
}

/// What applying a recovery file did, and the notebook it left on disk.
pub struct RecoveryApplied {
    /// Each change with its message or why it was refused; where the file is now.
    recovered: pending::Recovered,
    /// The notebook as saved, with its unwritten parts, when it changed.
    notebook: Option<(vernier_engine::notebook::Notebook, io::Unwritten)>,
}

impl Job for ApplyRecovery {
    fn run(self: Box<Self>, follow: &mut Follow) -> Done {
        let ApplyRecovery { dir, path } = *self;
        let result = pending::apply_file(&dir, &path).map_err(|e| e.to_string()).map(|recovered| {
            let notebook = follow.reload(&dir).map(|nb| {
                let unwritten = vernier_engine::documents::unwritten(&nb);
                (nb, unwritten)
            });
            RecoveryApplied { recovered, notebook }
        });
        Done::Recovered { dir, result }
    }
}

/// A file's name, inert.
fn name(path: &Path) -> String {
    inert(&path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()).into_owned()
}

impl VernierApp {
    /// Keeps the changes not on disk: lets the file thread try to save
    /// them for up to `wait` (those whose save failed are sent once more),
    /// then stops it committing any, and writes what is still unsaved to a
    /// recovery file beside the notebook, named on stderr. `None` when
    /// nothing was left to keep; afterwards the window saves nothing more,
    /// so it is called only when closing.
    pub fn keep_unsaved(&mut self, wait: Duration) -> Option<Result<PathBuf, String>> {
        if self.doc.unsaved.is_empty() {
            return None;
        }
        self.retry_unsaved();
        let deadline = Instant::now() + wait;
        while self.doc.unsaved.iter().any(|u| !u.failed) && Instant::now() < deadline {
            self.flush_io();
            let Some(io) = &self.files.io else { break };
            match io.try_event() {
                Ok(event) => self.on_file_event(event),
                Err(TryRecvError::Empty) => std::thread::sleep(Duration::from_millis(20)),
                Err(TryRecvError::Disconnected) => self.io_stopped(),
            }
        }
        // From here no save commits: each change is on disk or kept here, never both.
        // A save still waiting for the folder's lock stops waiting.
        self.files.lock_wait.close();
        if let Some(io) = &self.files.io {
            let committed = io.abandon();
            self.doc.unsaved.retain(|u| !committed.contains(&u.generation));
        }
        if self.doc.unsaved.is_empty() {
            return None;
        }
        let why = match (&self.doc.save_error, &self.files.io) {
            (Some(e), _) => format!("the save failed: {e}"),
            (None, None) => "the file thread had stopped".to_owned(),
            (None, Some(_)) => format!("not saved within {} s (the folder's lock held elsewhere?)", wait.as_secs()),
        };
        let edits: Vec<Edit> = self.doc.unsaved.iter().map(|u| Edit::clone(&u.change)).collect();
        let (n, dir) = (edits.len(), inert(&self.doc.dir.display().to_string()).into_owned());
        let kept = self.keep_last(edits, &why);
        match &kept {
            Ok(path) => {
                eprintln!(
                    "vernier: {n} change(s) could not reach notebook.ron ({}); they are kept in {} — `vernier recover {dir}` shows them, `--apply` applies them",
                    inert(&why),
                    inert(&path.display().to_string())
                );
                self.doc.unsaved.clear();
            }
            Err(e) => eprintln!("vernier: {n} change(s) are NOT on disk and could not be kept: {}", inert(e)),
        }
        Some(kept)
    }

    /// The notebook open, as the keeper names it.
    fn kept_for(&self) -> keeper::For {
        keeper::For {
            dir: self.doc.dir.clone(),
            title: self.doc.notebook.title.clone(),
            created_at: self.doc.notebook.created_at,
        }
    }

    /// Hands the changes not on disk to the keeper, which keeps them in a
    /// recovery file until they are (issue 45 item 4): called as a change
    /// is made and every frame (a save or a discard removes some).
    pub(in crate::gui) fn keep_pending(&mut self) {
        let of = self.kept_for();
        let Some(keeper) = &mut self.files.keeper else { return };
        let changes: Vec<(u64, &Edit)> = self.doc.unsaved.iter().map(|u| (u.generation, &*u.change)).collect();
        keeper.keep(&of, &changes);
    }

    /// Writes `edits` as the window's last word on the open notebook, said
    /// `why`: into the file the keeper kept (so no change is in two files),
    /// or, without a keeper, a new one.
    fn keep_last(&mut self, edits: Vec<Edit>, why: &str) -> Result<PathBuf, String> {
        let of = self.kept_for();
        match &mut self.files.keeper {
            Some(keeper) => keeper.last(&of, edits, why),
            None => {
                let origin = pending::Origin::here(&of.dir, &of.title, of.created_at, false);
                let unsaved = pending::Unsaved::new(edits, why, chrono::Utc::now(), origin);
                pending::keep(&of.dir, &unsaved).map_err(|e| e.to_string())
            }
        }
    }

    /// Before another notebook replaces the open one: the changes whose save
    /// failed are kept in a recovery file beside it, named on stderr, not
    /// dropped with it (those still on their way to the file thread are
    /// saved there as asked).
    pub(in crate::gui) fn keep_failed(&mut self) {
        let failed: Vec<Edit> = self.doc.unsaved.iter().filter(|u| u.failed).map(|u| Edit::clone(&u.change)).collect();
        if failed.is_empty() {
            return;
        }
        let why = self.doc.save_error.clone().unwrap_or_default();
        let (n, old) = (failed.len(), inert(&self.doc.dir.display().to_string()).into_owned());
        match self.keep_last(failed, &why) {
            Ok(path) => eprintln!(
                "vernier: {n} change(s) to {old} that failed to save are kept in {}",
                inert(&path.display().to_string())
            ),
            Err(e) => eprintln!(
                "vernier: {n} change(s) to {old} are NOT on disk and could not be kept: {}",
                inert(&e.to_string())
            ),
        }
    }

    /// What the user answered to the close question (N10).
    pub(in crate::gui) fn closing(&mut self, answer: CloseAnswer) {
        match answer {
            CloseAnswer::Wait => {
                self.dialogs.close::<CloseQuestion>();
                self.close_when_saved = true;
                self.retry_unsaved();
            }
            CloseAnswer::Keep => match self.keep_unsaved(Duration::ZERO) {
                // The last save landed meanwhile: nothing is left to keep.
                None => self.egui_ctx.send_viewport_cmd(egui::ViewportCommand::Close),
                Some(kept) => {
                    self.dialogs.open(CloseQuestion::Kept(kept));
                }
            },
            CloseAnswer::Discard => {
                self.doc.unsaved.clear();
                self.egui_ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
    }

    /// The bar above the section offering the recovery files found.
    pub(in crate::gui) fn recovery_bar_ui(&mut self, ui: &mut egui::Ui) {
        let Some(offer) = &mut self.shown.recovery else { return };
        let mut apply = None;
        let fill = ui.visuals().extreme_bg_color;
        egui::Frame::new().fill(fill).inner_margin(6.0).corner_radius(4.0).show(ui, |ui| {
            for found in &offer.found {
                let theirs = found.provenance.as_ref().filter(|p| !p.applies_unasked());
                ui.horizontal_wrapped(|ui| {
                    ui.colored_label(
                        ui.visuals().warn_fg_color,
                        match theirs {
                            None => format!("⚠ {} holds changes an earlier window could not save", name(&found.path)),
                            Some(p) => format!("⚠ {} holds changes {}", name(&found.path), p.describe()),
                        },
                    );
                    match &found.changes {
                        Ok(changes) => {
                            let refused = changes.iter().filter(|(_, f)| matches!(f, Fate::Refused(_))).count();
                            ui.label(format!(
                                "({} change(s){})",
                                changes.len(),
                                if refused > 0 {
                                    format!(", {refused} the log's rules refuse now")
                                } else {
                                    String::new()
                                }
                            ));
                            let label = if theirs.is_some() { "Apply them anyway" } else { "Apply them" };
                            if !offer.busy && ui.button(label).clicked() {
                                apply = Some(found.path.clone());
                            }
                        }
                        Err(e) => {
                            ui.colored_label(ui.visuals().error_fg_color, format!("cannot be read: {e}"));
                        }
                    }
                });
            }
            if ui.small_button(if offer.shown { "Hide the changes" } else { "Show the changes" }).clicked() {
                offer.shown = !offer.shown;
            }
            if offer.shown {
                for found in &offer.found {
                    let Ok(changes) = &found.changes else { continue };
                    ui.label(RichText::new(name(&found.path)).strong());
                    for (what, verdict) in changes {
                        match verdict {
                            Fate::Applied(_) => ui.label(format!("• {what}")),
                            Fate::AlreadyThere => ui.weak(format!("• {what} — {verdict}")),
                            Fate::Refused(why) => {
                                ui.colored_label(ui.visuals().error_fg_color, format!("• {what} — refused now: {why}"))
                            }
                        };
                    }
                }
            }
        });
        ui.add_space(4.0);
        if let Some(path) = apply {
            offer.busy = true;
            let dir = self.doc.dir.clone();
            self.send_job(ApplyRecovery { dir, path });
        }
    }

    /// What the file thread found beside the notebook.
    pub(in crate::gui) fn on_recovery_found(&mut self, dir: &Path, found: Vec<Found>) {
        if dir != self.doc.dir {
            return;
        }
        self.shown.recovery = (!found.is_empty()).then_some(RecoveryOffer { found, shown: false, busy: false });
    }

    /// What applying a recovery file did: said (a success only once on
    /// disk), the notebook shown as saved unless changes of the window's
    /// own are still in flight, and the offer looked at again.
    pub(in crate::gui) fn on_recovered(&mut self, dir: &Path, result: Result<RecoveryApplied, String>) {
        if dir != self.doc.dir {
            return;
        }
        match result {
            Ok(RecoveryApplied { recovered, notebook }) => {
                let (applied, refused) = (recovered.applied(), recovered.refused());
                if applied == 0 && refused > 0 {
                    self.say(
                        format!("nothing applied: the log's rules refuse {refused} change(s) in it; it stays pending"),
                        true,
                    );
                } else if applied == 0 {
                    self.say(
                        format!(
                            "nothing to apply: the notebook holds every change in it already; it is kept as {}",
                            name(&recovered.kept_as)
                        ),
                        false,
                    );
                } else {
                    self.say(
                        format!(
                            "applied {applied} change(s) from the recovery file{}; it is kept as {}",
                            if refused > 0 {
                                format!(", {refused} refused (listed under Show the changes)")
                            } else {
                                String::new()
                            },
                            name(&recovered.kept_as)
                        ),
                        refused > 0,
                    );
                }
                if let Some((notebook, unwritten)) = notebook
                    && self.saved()
                {
                    self.doc.adopt(notebook, unwritten);
                }
            }
            Err(e) => self.say(format!("the recovery file was not applied: {e}"), true),
        }
        self.send_job(LookForRecovery { dir: dir.to_path_buf() });
    }
}

/// The dialog shown when the window is closed by hand with changes not on disk.
pub enum CloseQuestion {
    /// Asking: wait, keep them in a recovery file, or discard them.
    Asking,
    /// They were kept in this recovery file (or could not be: why).
    Kept(Result<PathBuf, String>),
}

/// What the user answered to the close question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseAnswer {
    /// Close once the changes are on disk.
    Wait,
    /// Keep them in a recovery file and close.
    Keep,
    /// Close without them.
    Discard,
}

impl Dialog for CloseQuestion {
    /// Asks, when the window is closed by hand with changes not on disk:
    /// wait for the save, keep them in a recovery file and close, or
    /// discard them and close.
    fn show(&mut self, ctx: &egui::Context, cx: &mut Cx<'_>) -> Keep {
        let mut close = false;
        let mut back = false;
        let mut answer = None;
        let n = cx.unsaved;
        egui::Modal::new(egui::Id::unique("close-question")).show(ctx, |ui| {
            ui.set_max_width(520.0);
            match self {
                CloseQuestion::Asking => {
                    ui.heading("Changes not on disk");
                    let state = match cx.save_error {
                        Some(e) => format!("the last save failed: {e}"),
                        None => "the file thread is still saving them".to_owned(),
                    };
                    ui.label(format!("{n} change(s) shown here are not in notebook.ron yet ({state})."));
                    ui.add_space(6.0);
                    ui.horizontal_wrapped(|ui| {
                        if ui.button("Wait for the save").on_hover_text("closes once they are on disk").clicked() {
                            answer = Some(CloseAnswer::Wait);
                        }
                        if ui
                            .button("Keep them in a recovery file and close")
                            .on_hover_text("beside the notebook; opening it again offers to apply them")
                            .clicked()
                        {
                            answer = Some(CloseAnswer::Keep);
                        }
                        if ui.button("Discard them and close").clicked() {
                            answer = Some(CloseAnswer::Discard);
                        }
                        back = ui.button("Back to the window").clicked();
                    });
                }
                CloseQuestion::Kept(Ok(path)) => {
                    ui.heading("Kept in a recovery file");
                    ui.label(format!(
                        "The changes are kept in {}. Opening this notebook again offers to apply them; \
                         `vernier recover` does it from a terminal.",
                        inert(&path.display().to_string())
                    ));
                    close = ui.button("Close").clicked();
                }
                CloseQuestion::Kept(Err(e)) => {
                    ui.heading("The changes could not be kept");
                    ui.colored_label(ui.visuals().error_fg_color, e.as_str());
                    ui.horizontal(|ui| {
                        if ui.button("Try again").clicked() {
                            answer = Some(CloseAnswer::Keep);
                        }
                        if ui.button("Close, losing them").clicked() {
                            answer = Some(CloseAnswer::Discard);
                        }
                    });
                }
            }
        });
        if let Some(answer) = answer {
            cx.commands.push(AppCommand::Closing(answer));
        } else if back {
            return Keep::Close;
        }
        if close {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        Keep::Open
    }

    fn on(&mut self, _: Happened) -> Keep {
        // The window is closing: the question stands until it is answered.
        Keep::Open
    }
}
