//! Writing the six documents into the notebook's `exports/` (SPEC D1, A17).

use std::path::PathBuf;
use std::sync::Arc;

use vernier_engine::documents;
use vernier_engine::notebook::Notebook;

use super::super::Done;
use super::super::io::{Follow, Job, Unwritten};
use super::super::{AppCommand, Section, VernierApp};

/// Writes the documents atomically; documents edited since they were
/// written only as `overwrite` says (A17).
pub struct Export {
    /// The notebook's folder.
    pub dir: PathBuf,
    /// The notebook as the window shows it.
    pub notebook: Arc<Notebook>,
    /// Whether edited documents may be replaced.
    pub overwrite: documents::Overwrite,
}

impl Job for Export {
    fn run(self: Box<Self>, follow: &mut Follow) -> Done {
        let Export { dir, notebook, overwrite } = *self;
        // The workbook is rewritten: what was weighed of it, is weighed again.
        follow.look_again(&dir);
        let written = documents::export_to(&dir, &notebook, None, overwrite).map(|_| documents::unwritten(&notebook));
        Done::Exported(written)
    }
}

impl VernierApp {
    /// The documents written (the audit shown again if it is on screen),
    /// or, when some were edited since, the question whether to replace them.
    pub(in crate::gui) fn exported(&mut self, written: Result<Unwritten, documents::ExportError>) {
        match written {
            Ok(unwritten) => {
                self.asked(|v, asks| v.documents.exported(unwritten, asks));
                if self.views.section == Section::Audit {
                    self.commands.push(AppCommand::Audit);
                }
            }
            // Nothing was written: the user says whether to replace them.
            Err(documents::ExportError::Edited(edited)) => {
                let edited: Vec<String> = edited.iter().map(ToString::to_string).collect();
                self.say(format!("nothing exported: {}", edited.join(", ")), true);
                self.dialogs.open(crate::gui::ExportQuestion { edited });
            }
            Err(e) => self.say(format!("export failed: {e}"), true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gui::Done;
    use vernier_engine::notebook::{Document, store};

    /// Runs the export job as the file thread would, with no window.
    fn export(dir: &std::path::Path, notebook: &Arc<Notebook>, overwrite: documents::Overwrite) -> Done {
        let job = Box::new(Export { dir: dir.to_path_buf(), notebook: Arc::clone(notebook), overwrite });
        job.run(&mut Follow::default())
    }

    // SPEC A17 (issue 46: a job answers with a value, looked at here without
    // a window): a document edited since it was written stops the whole
    // export, the answer names it, and the edit is still on disk.
    #[test]
    fn an_edited_document_is_answered_by_name_and_kept() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        store::create(dir, "Answers", chrono::Utc::now()).expect("create");
        let notebook = Arc::new(store::load(dir).expect("load"));
        let Done::Exported(Ok(unwritten)) = export(dir, &notebook, documents::Overwrite::Never) else {
            panic!("a first export writes every document");
        };
        assert_eq!(unwritten.len(), 6, "each of the six documents has its parts counted");
        let edited = dir.join(store::EXPORTS_DIR).join(Document::AiUsage.stem());
        let mut text = std::fs::read_to_string(&edited).expect("ai-usage.txt written");
        text.push_str("\nMy own words.\n");
        std::fs::write(&edited, &text).expect("edit");

        let Done::Exported(Err(documents::ExportError::Edited(names))) =
            export(dir, &notebook, documents::Overwrite::Never)
        else {
            panic!("an edited document refuses the export");
        };
        let names: Vec<String> = names.iter().map(ToString::to_string).collect();
        assert!(names.iter().any(|n| n.contains("ai-usage.txt")), "the answer names the edited file: {names:?}");
        assert_eq!(std::fs::read_to_string(&edited).expect("still there"), text, "the edit is kept");
    }
}
