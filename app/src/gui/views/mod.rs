//! One view per area of the window (SPEC U1). Views draw and push
//! [`AppCommand`]s; they never change the notebook or touch a file.

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
pub use documents::Spot;
pub use environment::machine_fill;
pub use predictions::answerable;
pub use runs::{ExtendAsk, SweepPick};

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

/// Transient state of the views — forms being typed, the selection — one
/// part per section, each defined beside the view that draws it.
#[derive(Default)]
pub struct ViewState {
    /// The open section.
    pub section: Section,
    /// The Environment section's.
    pub environment: environment::State,
    /// The Predictions section's.
    pub predictions: predictions::State,
    /// The Runs section's.
    pub runs: runs::State,
    /// The Soak runs section's.
    pub soaks: soaks::State,
    /// The Notes and anomalies section's.
    pub notes: notes::State,
    /// The Documents section's.
    pub documents: documents::State,
}

/// What a view gets to draw with.
pub struct Context<'a> {
    /// The notebook, read-only.
    pub notebook: &'a Notebook,
    /// Where views queue their effects.
    pub commands: &'a mut Vec<AppCommand>,
    /// Trials of the selected run, when loaded.
    pub trials: Option<&'a Result<super::plots::RunTrials, super::plots::NoTrials>>,
    /// The last export's documents with their unwritten parts.
    pub exported: Option<&'a [(Document, WritingState)]>,
    /// Parts of each document still to write.
    pub unwritten: &'a [(Document, WritingState)],
    /// The last audit, when one has run.
    pub audit: Option<&'a vernier_engine::audit::Report>,
    /// The soak being shown, when one is loaded.
    pub soak: Option<&'a super::plots::SoakView>,
    /// Folder of the notebook.
    pub dir: &'a std::path::Path,
    /// Changes when the notebook shown changes: what views derive from it
    /// is rebuilt then, not every frame.
    pub revision: u64,
}

/// Draws the open section.
pub fn section_ui(ui: &mut Ui, state: &mut ViewState, cx: &mut Context<'_>) {
    match state.section {
        Section::Environment => environment::environment_ui(ui, &mut state.environment, cx),
        Section::Predictions => predictions::predictions_ui(ui, &mut state.predictions, cx),
        Section::Runs => runs::runs_ui(ui, &mut state.runs, cx),
        Section::Soaks => soaks::soaks_ui(ui, &mut state.soaks, cx),
        Section::Notes => notes::notes_ui(ui, &mut state.notes, cx),
        Section::Documents => documents::documents_ui(ui, &mut state.documents, cx),
        Section::Audit => audit::audit_ui(ui, cx),
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
