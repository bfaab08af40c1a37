//! Choosing a folder or a file: a native dialog on a thread of its own (the
//! window keeps drawing while it is open), or, on a desktop with no
//! file-dialog service, a path typed by hand.

use std::path::PathBuf;

use egui::{Key, RichText};

use super::{Cx, Dialog, Dialogs, MenuEntry, Happened, Keep, Menu, OpenCx, Opens};
use crate::gui::Done;
use crate::gui::io::Reply;
use crate::gui::{AppCommand, VernierApp};

/// Why a folder or file is being picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// Open an existing notebook.
    Open,
    /// Create a new notebook.
    New,
    /// Save the current notebook under a new folder.
    SaveAs,
    /// A classmate's notebook folder to reproduce from.
    Reproduce,
    /// A classmate's workbook to reproduce from.
    ReproduceWorkbook,
    /// A CSV of trials to import (SPEC E14).
    ImportFile,
    /// An empty folder for a new notebook made from someone's workbook (N12).
    NewFromWorkbook,
}

impl Pick {
    /// The native dialog's title.
    fn title(self) -> &'static str {
        match self {
            Pick::Open => "Open a notebook folder",
            Pick::New => "Choose a folder for the new notebook",
            Pick::SaveAs => "Save the notebook as (a new folder)",
            Pick::Reproduce => "Open a classmate's notebook folder (read-only)",
            Pick::ReproduceWorkbook => "Open a classmate's measurements.xlsx (read-only)",
            Pick::ImportFile => "Choose the numbers your instrument wrote",
            Pick::NewFromWorkbook => "Choose an empty folder for the new notebook",
        }
    }

    /// What the window does with the path picked.
    fn command(self, path: PathBuf) -> AppCommand {
        match self {
            Pick::Open => AppCommand::OpenDir(path),
            Pick::New => AppCommand::CreateDir(path),
            Pick::SaveAs => AppCommand::SaveAs(path),
            Pick::Reproduce | Pick::ReproduceWorkbook => AppCommand::ReadTheirLog(path),
            Pick::ImportFile => AppCommand::ImportFile(path),
            Pick::NewFromWorkbook => AppCommand::NewNotebookFrom(path),
        }
    }
}

/// Opens a native dialog on a thread of its own — a folder, or for
/// [`Pick::ReproduceWorkbook`] an `.xlsx` file and for [`Pick::ImportFile`]
/// a file of measurements — starting in `start`; the answer comes back
/// through `reply`.
pub fn pick(reply: Reply, purpose: Pick, start: Option<PathBuf>) {
    let failed = reply.clone();
    let spawned = std::thread::Builder::new().name("vernier-dialog".into()).spawn(move || {
        let mut dialog = rfd::FileDialog::new().set_title(purpose.title());
        if let Some(start) = start {
            dialog = dialog.set_directory(start);
        }
        let opened = std::time::Instant::now();
        let path = match purpose {
            Pick::ReproduceWorkbook => dialog.add_filter("Workbook", &["xlsx"]).pick_file(),
            Pick::ImportFile => dialog.add_filter("Measurements", &["csv", "txt", "json", "gz"]).pick_file(),
            Pick::Open | Pick::New | Pick::SaveAs | Pick::Reproduce | Pick::NewFromWorkbook => dialog.pick_folder(),
        };
        // Closed with nothing too fast for a person to have cancelled it:
        // no dialog service ran.
        let no_service = path.is_none() && opened.elapsed() < std::time::Duration::from_millis(300);
        reply.answer(Done::Picked { purpose, path, no_service });
    });
    if spawned.is_err() {
        failed.try_answer(Done::Picked { purpose, path: None, no_service: true });
    }
}

impl VernierApp {
    /// A file dialog closed, with a path or without; `no_service` when no
    /// dialog service answered, so the path is asked for by hand.
    pub(in crate::gui) fn picked(&mut self, purpose: Pick, path: Option<PathBuf>, no_service: bool) {
        match (path, no_service) {
            (Some(path), _) => self.run_command(purpose.command(path)),
            (None, false) => {}
            // The Reproduce and import dialogs have their own path field.
            (None, true) if matches!(purpose, Pick::Reproduce | Pick::ReproduceWorkbook | Pick::ImportFile) => {
                self.say("no file-dialog service answered on this desktop; type the path instead", true);
            }
            (None, true) => {
                self.say("no file-dialog service answered on this desktop; type the folder instead", true);
                self.dialogs.open(PathPrompt::new(purpose));
            }
        }
    }
}

/// A folder path being typed, for systems without a native dialog: opened
/// if it holds a notebook, else created (decided on the I/O thread, which
/// may look at the disk).
pub struct PathPrompt {
    /// What the folder is for.
    pub purpose: Pick,
    /// The path typed so far.
    pub path: String,
}

impl PathPrompt {
    /// Asks for a folder for `purpose`, the field empty.
    pub fn new(purpose: Pick) -> Self {
        Self { purpose, path: String::new() }
    }
}

impl Opens for PathPrompt {
    const ENTRY: Option<MenuEntry> = Some(MenuEntry {
        menu: Menu::File,
        label: "Open or create by path…",
        shortcut: None,
        hover: Some("For desktops without a file-dialog service"),
    });

    /// Asking for a notebook to open (or create).
    fn make(_: &OpenCx<'_>) -> Self {
        Self::new(Pick::Open)
    }

    /// In place of one open for another purpose.
    fn open(dialogs: &mut Dialogs, cx: &OpenCx<'_>) {
        dialogs.open(Self::make(cx));
    }
}

impl Dialog for PathPrompt {
    fn show(&mut self, ctx: &egui::Context, cx: &mut Cx<'_>) -> Keep {
        let path = &mut self.path;
        let save_as = self.purpose == Pick::SaveAs;
        let new_from_workbook = self.purpose == Pick::NewFromWorkbook;
        let mut close = false;
        let mut chosen = None;
        egui::Modal::new(egui::Id::unique("path-prompt")).show(ctx, |ui| {
            ui.heading(match (save_as, new_from_workbook) {
                (true, _) => "Save the notebook as",
                (_, true) => "A new notebook from their workbook",
                _ => "Open or create a notebook",
            });
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
            cx.commands.push(match (save_as, new_from_workbook) {
                (true, _) => AppCommand::SaveAs(dir),
                (_, true) => AppCommand::NewNotebookFrom(dir),
                _ => AppCommand::OpenOrCreateDir(dir),
            });
            close = true;
        }
        if close { Keep::Close } else { Keep::Open }
    }

    fn on(&mut self, _: Happened) -> Keep {
        // A folder to open or create is asked for whatever is open now.
        Keep::Open
    }
}
