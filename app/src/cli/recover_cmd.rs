//! `vernier recover DIR [--apply]`: the changes a window could not save
//! before it closed, kept in `notebook.unsaved-<time>.ron` beside the
//! notebook (SPEC N10) — shown in words with what the log's rules would now
//! refuse, and applied under the lock with `--apply`.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use clap::Args;
use vernier_engine::display::inert;
use vernier_engine::notebook::pending::{self, ApplyError};
use vernier_engine::notebook::store;

use super::{Failure, Outcome};

/// `vernier recover DIR [--apply]`.
#[derive(Debug, Args)]
pub struct RecoverArgs {
    /// The notebook folder.
    pub dir: PathBuf,
    /// Apply the pending changes (those the log's rules allow) to notebook.ron.
    #[arg(long)]
    pub apply: bool,
}

/// Lists each pending recovery file's changes; with `--apply`, applies
/// them. Exit 0 when there is nothing pending or everything listed is (or
/// would be) applied, 1 when a change is refused, 2 when a recovery file
/// cannot be read.
pub fn recover(args: &RecoverArgs) -> Outcome {
    let dir = &args.dir;
    let notebook = store::load(dir).map_err(Failure::input)?;
    let files = pending::pending(dir);
    if files.is_empty() {
        out!("no recovery file is pending in {}", inert(&dir.display().to_string()));
        return Ok(0);
    }
    let mut refused = false;
    for path in &files {
        if args.apply {
            refused |= apply(dir, path)?;
        } else {
            let unsaved = pending::read(path).map_err(Failure::input)?;
            out!(
                "{} (written {}; {}):",
                name(path),
                unsaved.written_at.format("%Y-%m-%d %H:%M:%S UTC"),
                inert(&unsaved.why)
            );
            for (what, verdict) in pending::weigh(&notebook, &unsaved) {
                match verdict {
                    Ok(()) => out!("  would apply: {what}"),
                    Err(why) => {
                        refused = true;
                        out!("  refused now: {what} — {why}");
                    }
                }
            }
        }
    }
    if !args.apply {
        out!(
            "nothing was changed; `vernier recover {} --apply` applies what the log's rules allow",
            vernier_engine::display::quote_argv(&[dir.display().to_string()])
        );
    }
    Ok(u8::from(refused))
}

/// Applies one file; true when a change of it was refused.
fn apply(dir: &Path, path: &Path) -> Result<bool, Failure> {
    let recovered = pending::apply_file(dir, path).map_err(|e| match e {
        ApplyError::Read(e) => Failure::input(e),
        e => Failure::failed(e),
    })?;
    out!("{}:", name(path));
    for (what, result) in &recovered.changes {
        match result {
            Ok(said) => out!("  applied: {what} — {said}"),
            Err(why) => out!("  refused: {what} — {why}"),
        }
    }
    let refused = recovered.changes.len() - recovered.applied();
    if recovered.applied() == 0 {
        return Err(Failure::failed(anyhow!(
            "nothing was applied from {}: the log's rules refuse every change in it (listed above); it stays pending",
            name(path)
        )));
    }
    out!(
        "applied {} change(s) to notebook.ron{}; {} is kept as {} (no longer pending)",
        recovered.applied(),
        if refused > 0 { format!(", {refused} refused") } else { String::new() },
        name(path),
        name(&recovered.kept_as)
    );
    Ok(refused > 0)
}

/// A file's name, inert.
fn name(path: &Path) -> String {
    inert(&path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()).into_owned()
}

/// The line `show` and `audit` print while a recovery file is pending, or
/// `None`.
pub fn pending_line(dir: &Path) -> Option<String> {
    let files = pending::pending(dir);
    let first = files.first()?;
    Some(format!(
        "pending: {} recovery file(s) with changes a window could not save ({}{}); `vernier recover {}` shows them",
        files.len(),
        name(first),
        if files.len() > 1 { ", …" } else { "" },
        vernier_engine::display::quote_argv(&[dir.display().to_string()])
    ))
}
