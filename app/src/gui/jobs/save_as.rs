//! "Save as": the open notebook, raw files included, copied into a new
//! folder, which becomes the open notebook.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use vernier_engine::notebook::{Notebook, store};

use super::super::Done;
use super::super::VernierApp;
use super::super::io::{Follow, Job};

/// Copies the notebook in `from` (as the window shows it) into `to`.
pub struct SaveAs {
    /// The open notebook's folder.
    pub from: PathBuf,
    /// The new folder.
    pub to: PathBuf,
    /// The notebook as the window shows it.
    pub notebook: Arc<Notebook>,
}

impl Job for SaveAs {
    fn run(self: Box<Self>, follow: &mut Follow) -> Done {
        let SaveAs { from, to, notebook } = *self;
        let result = save_as(&from, &to, &notebook);
        if result.is_ok()
            && let Ok((_, stamp)) = store::load_stamped(&to)
        {
            follow.start(to.clone(), stamp);
        }
        Done::SavedAs { to, result }
    }
}

impl VernierApp {
    /// The notebook saved into `to`: from now on the open one.
    pub(in crate::gui) fn saved_as(&mut self, to: PathBuf, result: Result<(), String>) {
        match result {
            Ok(()) => {
                self.say(
                    format!("saved as {}; this is now the open notebook", vernier_engine::display::path(&to)),
                    false,
                );
                self.settings.remember(&to);
                self.doc.dir = to;
            }
            Err(e) => self.say(e, true),
        }
    }
}

/// Creates the folder layout in `to`, copies every raw file (they are the
/// evidence the rows point at), then saves the notebook there. Refuses a
/// folder that already holds a notebook.
fn save_as(from: &Path, to: &Path, notebook: &Notebook) -> Result<(), String> {
    if to.join(store::NOTEBOOK_FILE).exists() {
        return Err(format!("a notebook already exists in {}; choose an empty folder", to.display()));
    }
    let raw_to = to.join(store::RAW_DIR);
    for dir in [&raw_to, &to.join(store::EXPORTS_DIR)] {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    if let Ok(entries) = std::fs::read_dir(from.join(store::RAW_DIR)) {
        for entry in entries.filter_map(Result::ok).filter(|e| e.path().is_file()) {
            let target = raw_to.join(entry.file_name());
            std::fs::copy(entry.path(), &target).map_err(|e| format!("cannot copy to {}: {e}", target.display()))?;
        }
    }
    store::create_from(to, notebook).map_err(|e| e.to_string())
}
