//! One view per area of the window (SPEC U1), each a type in its file
//! holding the section's state, what was read for it and its methods
//! (`runs::State` in `runs.rs`, …): the window hands a section what concerns
//! it and the section answers with [`AppCommand`]s. Views never change the
//! notebook or touch a file; a read they need is a job they ask for.

mod audit;
pub mod conditions_once;
mod documents;
mod environment;
mod notes;
mod predictions;
mod run_records;
mod runs;
mod soaks;

use egui::{Key, KeyboardShortcut, Modifiers, RichText, Ui};
use vernier_engine::documents::WritingState;
use vernier_engine::notebook::{Document, Notebook, PREDICTIONS_HEADING, SECTIONS};

use super::AppCommand;
pub use super::hint;
pub use runs::ExtendAsk;
/// What the window's tests look at inside a section.
#[cfg(test)]
pub use {documents::Spot, environment::machine_fill, runs::SweepPick};

vernier_engine::closed_enum! {
    /// The areas of the window, in the side bar's order (`ALL`, written
    /// from these lines, so a new section is in the side bar by construction).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
    pub enum Section {
        /// Environment.
        #[default]
        Environment,
        /// Predictions.
        Predictions,
        /// Runs.
        Runs,
        /// Soak runs.
        Soaks,
        /// Notes and anomalies.
        Notes,
        /// The six submission documents.
        Documents,
        /// The pre-submission audit.
        Audit,
    }
}

impl Section {
    /// The name in the side bar: the log's own names for the first five
    /// (N2: identical in the window and the workbook). Each index is a
    /// constant, so one past the end of `SECTIONS` fails to compile.
    pub fn title(self) -> &'static str {
        match self {
            Section::Environment => SECTIONS[0],
            Section::Predictions => SECTIONS[1],
            Section::Runs => SECTIONS[2],
            Section::Soaks => SECTIONS[3],
            Section::Notes => SECTIONS[4],
            Section::Documents => "Documents",
            Section::Audit => "Audit",
        }
    }

    /// The key that opens it (Ctrl/Cmd + its place in the side bar). A
    /// match, so a new section cannot compile without one.
    pub fn shortcut(self) -> KeyboardShortcut {
        let key = match self {
            Section::Environment => Key::Num1,
            Section::Predictions => Key::Num2,
            Section::Runs => Key::Num3,
            Section::Soaks => Key::Num4,
            Section::Notes => Key::Num5,
            Section::Documents => Key::Num6,
            Section::Audit => Key::Num7,
        };
        KeyboardShortcut::new(Modifiers::COMMAND, key)
    }

    /// The heading above the view.
    pub fn heading(self) -> &'static str {
        match self {
            Section::Predictions => PREDICTIONS_HEADING,
            other => other.title(),
        }
    }

    /// Row count shown beside the name, where it means something.
    pub fn count(self, nb: &Notebook) -> Option<usize> {
        match self {
            Section::Predictions => Some(nb.predictions().len()),
            Section::Runs => Some(nb.runs().len()),
            Section::Soaks => Some(nb.soaks().len()),
            Section::Notes => Some(nb.notes().len()),
            Section::Environment | Section::Documents | Section::Audit => None,
        }
    }
}

/// The sections, each its own type holding its state (forms being typed,
/// the selection) and what was read to show in it; all of it belongs to
/// the open notebook and goes when another opens.
#[derive(Default)]
pub struct Views {
    /// The open section.
    pub section: Section,
    pub environment: environment::State,
    pub predictions: predictions::State,
    pub runs: runs::State,
    pub soaks: soaks::State,
    pub notes: notes::State,
    pub documents: documents::State,
    pub audit: audit::State,
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
    /// Draws the open section.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut Context<'_>) {
        match self.section {
            Section::Environment => self.environment.ui(ui, cx),
            Section::Predictions => self.predictions.ui(ui, cx),
            Section::Runs => self.runs.ui(ui, cx),
            Section::Soaks => self.soaks.ui(ui, cx),
            Section::Notes => self.notes.ui(ui, cx),
            Section::Documents => self.documents.ui(ui, cx),
            Section::Audit => self.audit.ui(ui, cx),
        }
    }

    /// Opens `section`; the Audit section asks for the audit afresh.
    pub fn show(&mut self, section: Section, asks: &mut Vec<AppCommand>) {
        self.section = section;
        if section == Section::Audit {
            asks.push(AppCommand::Audit);
        }
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
