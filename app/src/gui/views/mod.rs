//! One view per area of the window (SPEC U1), each a type in its file
//! holding the section's state, what was read for it and its methods
//! (`runs::State` in `runs.rs`, …): the window hands a section what concerns
//! it and the section answers with [`AppCommand`]s. Views never change the
//! notebook or touch a file; a read they need is a job they ask for.

pub mod conditions_once;
mod run_records;

use egui::{Key, KeyboardShortcut, Modifiers, RichText, Ui};
use vernier_engine::documents::WritingState;
use vernier_engine::notebook::{Document, Notebook};

use super::AppCommand;
pub use super::hint;
/// What the window's tests look at inside a section.
#[cfg(test)]
pub use {documents::Spot, environment::machine_fill, runs::SweepPick};

/// One section of the window: its file's `State`, registered by its line
/// in [`sections!`]. What it is called and shows beside its name is said
/// here, by the section, not in a match of the window's.
pub trait SectionView: Default {
    /// The name in the side bar and the View menu.
    const TITLE: &'static str;
    /// The heading above it.
    const HEADING: &'static str = Self::TITLE;

    /// It scrolls itself (the window puts no scroll area around it).
    const SCROLLS_ITSELF: bool = false;

    /// The row count shown beside its name, where one means something.
    fn count(_nb: &Notebook) -> Option<usize> {
        None
    }

    /// It was opened: what it asks for then.
    fn opened(_asks: &mut Vec<AppCommand>) {}

    /// Draws it.
    fn ui(&mut self, ui: &mut Ui, cx: &mut Context<'_>);
}

/// Declares each section's module, in the side bar's order, with its
/// [`Section`] variant and its `State` held in [`Views`] under the
/// module's name: a new section is its file (a `State` implementing
/// [`SectionView`]) plus its line here; a `State` missing or not a
/// `SectionView` does not compile.
macro_rules! sections {
    ($($(#[$meta:meta])* $variant:ident => $module:ident,)+) => {
        $(mod $module;)+

        vernier_engine::closed_enum! {
            /// The areas of the window, in the side bar's order (`ALL`, written
            /// from these lines, so a new section is in the side bar by construction).
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
            pub enum Section {
                $($(#[$meta])* $variant,)+
            }
        }

        /// The sections, each its own type holding its state (forms being
        /// typed, the selection) and what was read to show in it; all of it
        /// belongs to the open notebook and goes when another opens.
        #[derive(Default)]
        pub struct Views {
            /// The open section.
            pub section: Section,
            $(pub $module: $module::State,)+
        }

        impl Section {
            /// The name in the side bar.
            pub fn title(self) -> &'static str {
                match self {
                    $(Section::$variant => <$module::State as SectionView>::TITLE,)+
                }
            }

            /// The heading above the view.
            pub fn heading(self) -> &'static str {
                match self {
                    $(Section::$variant => <$module::State as SectionView>::HEADING,)+
                }
            }

            /// Row count shown beside the name, where it means something.
            pub fn count(self, nb: &Notebook) -> Option<usize> {
                match self {
                    $(Section::$variant => <$module::State as SectionView>::count(nb),)+
                }
            }

            /// It scrolls itself.
            pub fn scrolls_itself(self) -> bool {
                match self {
                    $(Section::$variant => <$module::State as SectionView>::SCROLLS_ITSELF,)+
                }
            }

            /// What it asks for when opened.
            fn opened(self, asks: &mut Vec<AppCommand>) {
                match self {
                    $(Section::$variant => <$module::State as SectionView>::opened(asks),)+
                }
            }
        }

        impl Views {
            /// Draws the open section.
            pub fn ui(&mut self, ui: &mut Ui, cx: &mut Context<'_>) {
                match self.section {
                    $(Section::$variant => self.$module.ui(ui, cx),)+
                }
            }
        }
    };
}

sections! {
    /// Environment.
    #[default]
    Environment => environment,
    /// Predictions.
    Predictions => predictions,
    /// Runs.
    Runs => runs,
    /// Soak runs.
    Soaks => soaks,
    /// Notes and anomalies.
    Notes => notes,
    /// The six submission documents.
    Documents => documents,
    /// The pre-submission audit.
    Audit => audit,
}

/// Ctrl/Cmd + a section's place in the side bar opens it.
const SECTION_KEYS: [Key; 9] =
    [Key::Num1, Key::Num2, Key::Num3, Key::Num4, Key::Num5, Key::Num6, Key::Num7, Key::Num8, Key::Num9];
const _: () = assert!(Section::ALL.len() <= SECTION_KEYS.len(), "a tenth section has no key of its own");

impl Section {
    /// The key that opens it (Ctrl/Cmd + its place in the side bar).
    pub fn shortcut(self) -> KeyboardShortcut {
        KeyboardShortcut::new(Modifiers::COMMAND, SECTION_KEYS[self as usize])
    }
}

/// What a view gets to draw with.
pub struct Context<'a> {
    /// The notebook, read-only.
    pub notebook: &'a Notebook,
    /// Where views queue their effects.
    pub commands: &'a mut Vec<AppCommand>,
    /// Parts of each document still to write.
    pub unwritten: &'a [(Document, WritingState)],
    /// Folder of the notebook.
    pub dir: &'a std::path::Path,
    /// Changes when the notebook shown changes: what views derive from it
    /// is rebuilt then, not every frame.
    pub revision: u64,
}

impl Views {
    /// Opens `section`, with what it asks for then.
    pub fn show(&mut self, section: Section, asks: &mut Vec<AppCommand>) {
        self.section = section;
        section.opened(asks);
    }

    /// Opens the section an audit finding points at, with its place marked
    /// (SPEC A, U1): each section opens its own kind of place.
    pub fn jump(
        &mut self,
        finding: vernier_engine::audit::Finding,
        nb: &Notebook,
        dir: &std::path::Path,
        asks: &mut Vec<AppCommand>,
    ) {
        use vernier_engine::audit::Place;
        self.section = match &finding.place {
            Place::Run { number } => {
                self.runs.select(*number, nb, dir, asks);
                Section::Runs
            }
            Place::Soak { number } => {
                self.soaks.open_recorded(*number, nb, dir, asks);
                Section::Soaks
            }
            Place::Prediction { number } => {
                self.predictions.opened.open(*number);
                Section::Predictions
            }
            // A gap the Environment leaves in a document is filled there.
            Place::Document { .. } if vernier_engine::documents::empty_field_in(&finding.message).is_some() => {
                Section::Environment
            }
            Place::Citation { .. } | Place::Exports | Place::Document { .. } => {
                self.documents.jump(&finding, nb);
                Section::Documents
            }
            // Raw files no row names: the notes say which runs failed.
            Place::Notebook => Section::Notes,
        };
    }
}

/// The place an audit finding opened in a section (SPEC A, U1): marked
/// until another is opened, and scrolled into view once, when first drawn.
#[derive(Debug)]
pub struct Opened<T> {
    /// What was opened: a prediction's number, a prompt, a citation's.
    pub target: Option<T>,
    /// Not yet scrolled to.
    scroll: bool,
}

impl<T> Default for Opened<T> {
    fn default() -> Self {
        Self { target: None, scroll: false }
    }
}

impl<T: PartialEq> Opened<T> {
    /// Opens `target`: marked from now on, scrolled to when next drawn.
    pub fn open(&mut self, target: T) {
        self.target = Some(target);
        self.scroll = true;
    }

    /// Whether `item` is the opened place.
    pub fn is(&self, item: &T) -> bool {
        self.target.as_ref() == Some(item)
    }

    /// True once, the first time the opened place is drawn: scroll to it
    /// (and give it the keyboard's focus) now.
    pub fn take_scroll(&mut self, item: &T) -> bool {
        let now = self.scroll && self.is(item);
        if now {
            self.scroll = false;
        }
        now
    }

    /// `text` marked as the opened place when `item` is it.
    pub fn mark(&self, item: &T, text: RichText, ui: &Ui) -> RichText {
        if self.is(item) { text.background_color(ui.visuals().selection.bg_fill).strong() } else { text }
    }
}
