//! Writing the six documents into the notebook's `exports/` (SPEC D1, A17).

use std::path::PathBuf;
use std::sync::Arc;

use vernier_engine::documents;
use vernier_engine::notebook::Notebook;

use super::super::io::{Done, Follow, Job};
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
        Box::new(move |app: &mut VernierApp| match written {
            Ok(unwritten) => {
                let left: usize = unwritten.iter().map(|(_, w)| w.to_write()).sum();
                app.say(format!("exported the six documents to exports/; {left} part(s) still to write"), false);
                app.shown.exported = Some(unwritten);
                if app.views.section == Section::Audit {
                    app.commands.push(AppCommand::Audit);
                }
            }
            // Nothing was written: the user says whether to replace them.
            Err(documents::ExportError::Edited(edited)) => {
                let edited: Vec<String> = edited.iter().map(ToString::to_string).collect();
                app.say(format!("nothing exported: {}", edited.join(", ")), true);
                app.dialogs.open(crate::gui::ExportQuestion { edited });
            }
            Err(e) => app.say(format!("export failed: {e}"), true),
        })
    }
}
