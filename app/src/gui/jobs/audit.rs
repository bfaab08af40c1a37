//! The pre-submission audit (SPEC A): it reads raw files and exports.

use std::path::PathBuf;
use std::sync::Arc;

use vernier_engine::notebook::Notebook;

use super::super::VernierApp;
use super::super::io::{Done, Follow, Job};

/// Audits the notebook as the window shows it.
pub struct Audit {
    /// The notebook's folder.
    pub dir: PathBuf,
    /// The notebook as the window shows it.
    pub notebook: Arc<Notebook>,
}

impl Job for Audit {
    fn run(self: Box<Self>, _: &mut Follow) -> Done {
        let report = vernier_engine::audit::audit(&self.dir, &self.notebook);
        Box::new(move |app: &mut VernierApp| {
            let n = report.findings.len();
            app.say(if n == 0 { "audit: all checks pass".to_owned() } else { format!("audit: {n} finding(s)") }, false);
            app.shown.audit = Some(report);
        })
    }
}
