//! The dialogs open over the sections, each behind [`Dialog`]: the window
//! draws whichever are open in one loop and tells them, in one loop, what
//! happened to the window. A dialog answers with [`AppCommand`]s; its disk
//! work is its own [`Job`](super::io::Job)s, in its file.
//!
//! A new dialog is its file here plus its line in [`dialogs!`] below. The
//! line declares the module and, for a dialog that opens on its own
//! (`module => Type`), registers the type's [`Opens`]: how it is made and,
//! if it has one, its menu entry and shortcut, which the window's menu
//! draws and its keyboard answers from [`OPENED`]. Written the other way, a
//! forgotten part does not compile: a line without the type's `Opens` (or
//! `Dialog`) impl, an impl without its entry, `make` or `on`; a dialog
//! nothing opens is dead code (clippy -D warnings); a file without its line
//! is found by `every_dialog_file_has_its_line`. A dialog opened by a
//! section's button instead of the menu has no entry, and the button sends
//! [`AppCommand::open`]; one with disk work of its own adds its `Done`
//! variant and the arm that hands it over (the compiler asks for the arm).

/// Declares each dialog module, in the menu's order, and registers the
/// dialogs that open on their own (`module => Type`) in [`OPENED`].
macro_rules! dialogs {
    ($($module:ident $(=> $dialog:ty)?;)*) => {
        $(pub mod $module;)*

        /// How each dialog that opens on its own opens, in the menu's order.
        pub const OPENED: &[Opening] = &[$($(Opening::of::<$dialog>(),)?)*];

        /// Every module declared above, by name.
        #[cfg(test)]
        pub const MODULES: &[&str] = &[$(stringify!($module)),*];
    };
}

dialogs! {
    export_question;
    new_run => new_run::NewRunForm;
    import => import::ImportForm;
    reproduce => reproduce::Reproduce;
    pick => pick::PathPrompt;
    soak => soak::SoakForm;
    layout;
    recovery;
    workbook;
}

use std::any::Any;

use egui::KeyboardShortcut;
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

/// The window's menus a dialog's entry can sit in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Menu {
    File,
    Run,
}

/// A dialog's entry in the window's menu.
#[derive(Debug, Clone, Copy)]
pub struct MenuEntry {
    /// The menu it sits in, after the menu's own actions (File) or before
    /// them (Run).
    pub menu: Menu,
    /// Its label.
    pub label: &'static str,
    /// The keys that open it, shown beside the label.
    pub shortcut: Option<KeyboardShortcut>,
    /// What hovering over it says.
    pub hover: Option<&'static str>,
}

/// What a dialog sees of the window when it is opened.
pub struct OpenCx<'a> {
    /// The notebook shown.
    pub notebook: &'a Notebook,
    /// A benchmark is running.
    pub running: bool,
    /// A soak is running.
    pub soaking: bool,
}

/// A dialog that opens on its own: from its menu entry or shortcut, or
/// from a button that sends [`AppCommand::open`]. Registered by its line in
/// [`dialogs!`].
pub trait Opens: Dialog + Sized {
    /// Its menu entry, if the menu shows one.
    const ENTRY: Option<MenuEntry>;

    /// The dialog as it opens.
    fn make(cx: &OpenCx<'_>) -> Self;

    /// Whether it can open now (its menu entry is greyed when not).
    fn enabled(_cx: &OpenCx<'_>) -> bool {
        true
    }

    /// Opens it, if it can; one of its kind already open stays as it is,
    /// with what was typed into it.
    fn open(dialogs: &mut Dialogs, cx: &OpenCx<'_>) {
        if Self::enabled(cx) {
            dialogs.get_or_open(|| Self::make(cx));
        }
    }
}

/// How one registered dialog opens, with its type's functions as values,
/// so the menu and the keyboard can walk [`OPENED`].
#[derive(Clone, Copy)]
pub struct Opening {
    /// Its menu entry, if any.
    pub entry: Option<MenuEntry>,
    /// Whether it can open now.
    pub enabled: fn(&OpenCx<'_>) -> bool,
    /// Opens it.
    pub open: fn(&mut Dialogs, &OpenCx<'_>),
}

impl Opening {
    /// How a `T` opens.
    pub const fn of<T: Opens>() -> Self {
        Self { entry: T::ENTRY, enabled: T::enabled, open: T::open }
    }
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
