//! Opening a notebook folder — or creating one there — and following it.

use std::path::PathBuf;

use vernier_engine::documents;
use vernier_engine::notebook::{Notebook, store};

use super::super::Done;
use super::super::VernierApp;
use super::super::io::{Follow, Job, Unwritten};

/// What to do with the folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// Load the notebook in it.
    Load,
    /// Create a notebook there, then load it.
    Create,
    /// Load it if it holds a notebook, create one there otherwise.
    LoadOrCreate,
}

/// Loads (or creates) the notebook in `dir`, which the file thread follows
/// from then on.
pub struct Open {
    /// The folder.
    pub dir: PathBuf,
    /// Load, create, or whichever fits.
    pub how: How,
}

impl Job for Open {
    fn run(self: Box<Self>, follow: &mut Follow) -> Done {
        let Open { dir, how } = *self;
        let create = match how {
            How::Load => false,
            How::Create => true,
            How::LoadOrCreate => !dir.join(store::NOTEBOOK_FILE).exists(),
        };
        let created = if create {
            let title =
                dir.file_name().map_or_else(|| "Untitled project".to_owned(), |n| n.to_string_lossy().into_owned());
            store::create(&dir, &title, chrono::Utc::now()).map(drop).map_err(|e| e.to_string())
        } else {
            Ok(())
        };
        let result =
            created.and_then(|()| store::load_stamped(&dir).map_err(|e| e.to_string())).map(|(notebook, stamp)| {
                follow.start(dir.clone(), stamp);
                let unwritten = documents::unwritten(&notebook);
                (notebook, unwritten)
            });
        Done::Opened { dir, result: result.map(Box::new) }
    }
}

impl VernierApp {
    /// A notebook opened: shown, or why not said.
    pub(in crate::gui) fn opened(&mut self, dir: PathBuf, result: Result<Box<(Notebook, Unwritten)>, String>) {
        match result {
            Ok(opened) => {
                let (notebook, unwritten) = *opened;
                self.say(format!("opened {}", vernier_engine::display::path(&dir)), false);
                self.open(dir, notebook, unwritten);
            }
            Err(e) => self.say(e, true),
        }
    }
}
