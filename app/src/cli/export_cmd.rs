//! `vernier export` (SPEC D1, D3): the six documents, written atomically.

use std::path::{Path, PathBuf};

use vernier_engine::documents::{self, Overwrite};
use vernier_engine::notebook::Document;
use vernier_engine::notebook::store::EXPORTS_DIR;

use super::notebook_cmds::{left_at_exit, open_digested};
use super::{CommandResult, Failure};

pub fn export(dir: &Path, out: Option<&PathBuf>, force: bool) -> CommandResult {
    let (notebook, read) = open_digested(dir)?;
    // A17: without --force, a document edited since it was written stops
    // the export before anything is written.
    let overwrite = if force { Overwrite::Edited } else { Overwrite::Never };
    let written = documents::export_read(dir, &notebook, Some(&read), out.map(PathBuf::as_path), overwrite).map_err(
        |e| match e {
            documents::ExportError::IntoNotebook(_) => Failure::input(e),
            e => Failure::failed(e),
        },
    )?;
    left_at_exit(notebook);
    for path in written {
        out!("wrote {}", vernier_engine::display::path(&path));
    }
    let out = out.cloned().unwrap_or_else(|| dir.join(EXPORTS_DIR));
    // D1: the submission is exactly these six; anything else there is named.
    let others: Vec<String> = std::fs::read_dir(&out)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| Document::from_stem(n).is_none() && !n.starts_with('.'))
                .map(vernier_engine::display::inert_line)
                .collect()
        })
        .unwrap_or_default();
    if !others.is_empty() {
        eprintln!(
            "warning: {} also holds {} — the submission is exactly the six documents",
            vernier_engine::display::path(&out),
            others.join(", ")
        );
    }
    Ok(0)
}
