//! The dialogs open over the sections, each behind [`Dialog`]: the window
//! draws whichever are open in one loop and tells them, in one loop, what
//! happened to the window, so a new dialog is its file here plus its `mod`
//! line, and what it must say about the window's events the compiler asks
//! for. A dialog answers with [`AppCommand`]s; its disk work is its own
//! [`Job`](super::io::Job)s, in its file.

pub mod export_question;
pub mod import;
pub mod layout;
pub mod new_run;
pub mod pick;
pub mod recovery;
pub mod reproduce;
pub mod soak;
pub mod workbook;

use std::any::Any;

use vernier_engine::notebook::Notebook;

use super::AppCommand;

/// Whether a dialog stays open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    Open,
    Close,
}

/// What happened to the window that an open dialog may have to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Happened {
    /// The engine thread stopped: nothing more is measured.
    EngineStopped,
    /// Another notebook was opened (or the same one read again).
    NotebookOpened,
    /// A run the window took never reached the engine.
    RunNotStarted,
}

/// What a dialog sees of the window while it is drawn.
pub struct Cx<'a> {
    /// The notebook shown.
    pub notebook: &'a Notebook,
    /// What the dialog asks the window to do, applied after the frame.
    pub commands: &'a mut Vec<AppCommand>,
    /// A benchmark or soak is running.
    pub measuring: bool,
    /// How many changes shown are not on disk, and why the last save failed.
    pub unsaved: usize,
    pub save_error: Option<&'a str>,
}

/// One dialog. Neither method has a default: a dialog that forgot what an
/// engine stop or another notebook means for it would not compile.
pub trait Dialog: Any {
    /// Draws it over the window; what its buttons ask goes into
    /// `cx.commands`. `Keep::Close` closes it.
    fn show(&mut self, ctx: &egui::Context, cx: &mut Cx<'_>) -> Keep;

    /// Follows what happened to the window; `Keep::Close` closes it.
    fn on(&mut self, happened: Happened) -> Keep;
}

/// The open dialogs, at most one of each kind, drawn in the order they opened.
#[derive(Default)]
pub struct Dialogs {
    open: Vec<Box<dyn Dialog>>,
}

impl Dialogs {
    /// The open dialog of kind `T`.
    pub fn get<T: Dialog>(&self) -> Option<&T> {
        self.open.iter().find_map(|d| (d.as_ref() as &dyn Any).downcast_ref())
    }

    /// The open dialog of kind `T`, to change it.
    pub fn get_mut<T: Dialog>(&mut self) -> Option<&mut T> {
        self.open.iter_mut().find_map(|d| (d.as_mut() as &mut dyn Any).downcast_mut())
    }

    /// True while a dialog of kind `T` is open.
    pub fn is_open<T: Dialog>(&self) -> bool {
        self.get::<T>().is_some()
    }

    /// Opens `dialog`, in place of one of its kind already open.
    pub fn open<T: Dialog>(&mut self, dialog: T) -> &mut T {
        self.close::<T>();
        self.open.push(Box::new(dialog));
        self.get_mut().expect("just opened")
    }

    /// Opens `dialog`, in place of one of its kind already open (a
    /// dialog a view opens through [`AppCommand::OpenDialog`]).
    pub fn open_boxed(&mut self, dialog: Box<dyn Dialog>) {
        let kind = (dialog.as_ref() as &dyn Any).type_id();
        self.open.retain(|d| (d.as_ref() as &dyn Any).type_id() != kind);
        self.open.push(dialog);
    }

    /// The open dialog of kind `T`, opened with `make` if none is.
    pub fn get_or_open<T: Dialog>(&mut self, make: impl FnOnce() -> T) -> &mut T {
        if !self.is_open::<T>() {
            self.open.push(Box::new(make()));
        }
        self.get_mut().expect("open")
    }

    /// Closes the dialog of kind `T`, if open.
    pub fn close<T: Dialog>(&mut self) {
        self.open.retain(|d| !(d.as_ref() as &dyn Any).is::<T>());
    }

    /// Draws every open dialog, closing those that say so.
    pub fn show(&mut self, ctx: &egui::Context, cx: &mut Cx<'_>) {
        self.open.retain_mut(|d| d.show(ctx, cx) == Keep::Open);
    }

    /// Tells every open dialog what happened, closing those that say so.
    pub fn happened(&mut self, happened: Happened) {
        self.open.retain_mut(|d| d.on(happened) == Keep::Open);
    }
}
