//! One view per area of the window (SPEC U1). Views draw and push
//! [`AppCommand`]s; they never change the notebook or touch a file.

mod audit;
mod documents;
mod environment;
mod notes;
mod predictions;
mod runs;
mod soaks;

use egui::{Key, KeyboardShortcut, Modifiers, RichText, Ui};
use vernier_engine::notebook::{Document, Notebook, PREDICTIONS_HEADING, SECTIONS};

use super::AppCommand;
pub use environment::machine_fill;
pub use predictions::PredictionForm;
pub use runs::{ExtendAsk, SweepPick};

/// The areas of the window, in the side bar's order.
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

impl Section {
    /// Every section, in order.
    pub const ALL: [Section; 7] = [
        Section::Environment,
        Section::Predictions,
        Section::Runs,
        Section::Soaks,
        Section::Notes,
        Section::Documents,
        Section::Audit,
    ];

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

/// Transient state of the views: forms being typed, the selection.
#[derive(Default)]
pub struct ViewState {
    /// The open section.
    pub section: Section,
    /// The "new prediction" form.
    pub new_prediction: PredictionForm,
    /// A prediction being rewritten, with its draft.
    pub editing: Option<(u32, PredictionForm)>,
    /// A prediction being amended, with the draft.
    pub amending: Option<(u32, PredictionForm)>,
    /// A run being discarded, with the reason typed so far.
    pub discarding: Option<(u32, String)>,
    /// What is being stated about a run after it was recorded (A1, A2).
    pub stating: Option<runs::Stating>,
    /// The difference to claim when the selected run is extended (S10).
    pub extend_claim: String,
    /// The last extension's new runs and its verdict, shown with them.
    pub extension: Option<(Vec<u32>, String)>,
    /// An extension planned and waiting for the student to confirm its
    /// exact command (N13).
    pub extend_asking: Option<runs::ExtendAsk>,
    /// The note being typed.
    pub new_note: String,
    /// Environment values being typed, by field index.
    pub env_drafts: std::collections::HashMap<usize, String>,
    /// The Environment's hints, kept while the notebook's rows stay the same.
    pub env_hints: environment::HintCache,
    /// Whether the selected run can be extended, kept while it stays so.
    pub extend_plan: runs::ExtendPlanCache,
    /// The run whose trials are shown.
    pub selected_run: Option<u32>,
    /// Show a sweep instead of one run's trials.
    pub show_sweep: bool,
    /// The sweep picked to show.
    pub sweep: Option<runs::SweepPick>,
    /// Every sweep ready to draw, rebuilt when the notebook changes.
    pub sweeps: runs::SweepCache,
    /// The Runs table's groups, rebuilt when the notebook changes, and
    /// the selection it last scrolled to.
    pub table: runs::RunsTable,
    /// Two runs being compared from the Runs section.
    pub comparing: Option<runs::Comparing>,
    /// A soak file path being typed.
    pub soak_path: String,
    /// The recorded soak shown, read under its own protocol once.
    pub soak_reading: soaks::ReadingCache,
    /// The document open in the Documents section.
    pub document: Document,
    /// Answers being typed, by (document, prompt).
    pub answer_drafts: std::collections::HashMap<(&'static str, &'static str), String>,
    /// The reasons being typed for parts marked not part of the submission
    /// (A16), by document and prompt (or the whole-document key).
    pub not_part_drafts: std::collections::HashMap<(&'static str, &'static str), String>,
    /// The citation being typed.
    pub citation: documents::CitationForm,
    /// Placement deadlines being typed, by workload.
    pub budgets: std::collections::BTreeMap<String, documents::BudgetDraft>,
}

/// What a view gets to draw with.
pub struct Context<'a> {
    /// The notebook, read-only.
    pub notebook: &'a Notebook,
    /// Where views queue their effects.
    pub commands: &'a mut Vec<AppCommand>,
    /// Trials of the selected run, when loaded.
    pub trials: Option<&'a Result<super::plots::RunTrials, super::io::NoTrials>>,
    /// The last export's documents with their unwritten parts.
    pub exported: Option<&'a [(Document, usize)]>,
    /// Parts of each document still to write.
    pub unwritten: &'a [(Document, usize)],
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
        Section::Environment => environment::environment_ui(ui, state, cx),
        Section::Predictions => predictions::predictions_ui(ui, state, cx),
        Section::Runs => runs::runs_ui(ui, state, cx),
        Section::Soaks => soaks::soaks_ui(ui, state, cx),
        Section::Notes => notes::notes_ui(ui, state, cx),
        Section::Documents => documents::documents_ui(ui, state, cx),
        Section::Audit => audit::audit_ui(ui, cx),
    }
}

/// A greyed, italic line for an empty view.
pub fn hint(ui: &mut Ui, text: &str) {
    ui.label(RichText::new(text).italics().weak());
}
