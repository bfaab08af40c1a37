//! The pre-submission audit (SPEC A): it reads raw files and exports.

use std::path::PathBuf;
use std::sync::Arc;

use vernier_engine::notebook::Notebook;

use super::super::Done;
use super::super::io::{Follow, Job};

/// Audits the notebook as the window shows it.
pub struct Audit {
    /// The notebook's folder.
    pub dir: PathBuf,
    /// The notebook as the window shows it.
    pub notebook: Arc<Notebook>,
}

impl Job for Audit {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        Done::Audited(Box::new(vernier_engine::audit::audit(&self.dir, &self.notebook)))
    }
}
