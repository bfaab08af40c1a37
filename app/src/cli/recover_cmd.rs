//! `vernier recover DIR [--apply] [--name FILE]`: the changes a window
//! could not save, kept in `notebook.unsaved-<time>.ron` beside the
//! notebook (SPEC N10) — shown in words with what the log's rules would now
//! refuse and where each file was written (host, process, notebook), and
//! applied under the lock with `--apply`. A file from another host or
//! notebook, or of unknown origin, is named as such and applied only when
//! named (`--name`); one a running window keeps, never (issue 45 item 8).

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use clap::Args;
use vernier_engine::display::{inert, quote_argv};
use vernier_engine::notebook::pending::{self, ApplyError, Fate, Provenance};
use vernier_engine::notebook::store;

use super::{CommandResult, Failure};

/// `vernier recover DIR [--apply] [--name FILE]`.
#[derive(Debug, Args)]
pub struct RecoverArgs {
    /// The notebook folder.
    pub dir: PathBuf,
    /// Apply the pending changes (those the log's rules allow) to
    /// notebook.ron: every file written on this host for this notebook, or
    /// the one `--name` names.
    #[arg(long)]
    pub apply: bool,
    /// Only this recovery file (its name in the folder). A file from another
    /// host or notebook, or of unknown origin, is applied only when named.
    #[arg(long, value_name = "FILE")]
    pub name: Option<String>,
}

/// Lists each pending recovery file's changes with where it was written;
/// with `--apply`, applies those written here for this notebook (or the one
/// named). Exit 0 when there is nothing pending or everything listed is (or
/// would be) applied, 1 when a change is refused or a file is left for
/// being someone else's, 2 when a recovery file cannot be read or the named
/// one is not pending.
pub fn recover(args: &RecoverArgs) -> CommandResult {
    let dir = &args.dir;
    let notebook = store::load(dir).map_err(Failure::input)?;
    let mut files = pending::pending(dir);
    if let Some(wanted) = &args.name {
        files.retain(|p| p.file_name().is_some_and(|n| n.to_string_lossy() == wanted.as_str()));
        if files.is_empty() {
            return Err(Failure::input(anyhow!(
                "no pending recovery file named “{}” in {}",
                inert(wanted),
                inert(&dir.display().to_string())
            )));
        }
    } else if files.is_empty() {
        out!("no recovery file is pending in {}", inert(&dir.display().to_string()));
        return Ok(0);
    }
    let mut refused = false;
    for path in &files {
        let unsaved = pending::read(path).map_err(Failure::input)?;
        let provenance = Provenance::of(&unsaved, &notebook);
        let named = args.name.is_some() && !matches!(provenance, Provenance::Running(_));
        if args.apply && (provenance.applies_unasked() || named) {
            if !provenance.applies_unasked() {
                out!("{} is {}; applied because it was named", name(path), provenance.describe());
            }
            refused |= apply(dir, path)?;
            continue;
        }
        out!("{}:", name(path));
        out!("  written {}; {}", unsaved.written_at.format("%Y-%m-%d %H:%M:%S UTC"), inert(&unsaved.why));
        out!("  {}", origin_line(&unsaved, &provenance));
        if !provenance.applies_unasked() {
            refused = true;
            if !matches!(provenance, Provenance::Running(_)) {
                out!(
                    "  not applied unasked: `vernier recover {} --apply --name {}` applies it",
                    quote_argv(&[dir.display().to_string()]),
                    quote_argv(&[name(path)])
                );
            }
        }
        for (what, fate) in pending::weigh(&notebook, &unsaved) {
            match fate {
                Fate::Applied(_) => out!("  would apply: {what}"),
                Fate::AlreadyThere => out!("  already there: {what} — {fate}"),
                Fate::Refused(why) => {
                    refused = true;
                    out!("  refused now: {what} — {why}");
                }
            }
        }
    }
    if !args.apply {
        out!(
            "nothing was changed; `vernier recover {} --apply` applies what the log's rules allow",
            quote_argv(&[dir.display().to_string()])
        );
    }
    Ok(u8::from(refused))
}

/// Where a recovery file says it was written, and what that makes it.
fn origin_line(unsaved: &pending::Unsaved, provenance: &Provenance) -> String {
    match &unsaved.origin {
        Some(o) => format!(
            "{}: host “{}”, process {}, notebook “{}” (created {}) in {}",
            provenance.describe(),
            inert(&o.host),
            o.pid,
            inert(&o.title),
            o.created_at.format("%Y-%m-%d %H:%M:%S UTC"),
            inert(&o.folder)
        ),
        None => provenance.describe(),
    }
}

/// Applies one file; true when a change of it was refused.
fn apply(dir: &Path, path: &Path) -> Result<bool, Failure> {
    let recovered = pending::apply_file(dir, path).map_err(|e| match e {
        ApplyError::Read(e) => Failure::input(e),
        e => Failure::failed(e),
    })?;
    out!("{}:", name(path));
    for (what, fate) in &recovered.changes {
        match fate {
            Fate::Applied(said) => out!("  applied: {what} — {said}"),
            Fate::AlreadyThere => out!("  already there: {what} — {fate}"),
            Fate::Refused(why) => out!("  refused: {what} — {why}"),
        }
    }
    let (applied, already, refused) = (recovered.applied(), recovered.already_there(), recovered.refused());
    if applied == 0 && refused > 0 {
        let rest =
            if already > 0 { format!(" and the notebook holds the other {already} already") } else { String::new() };
        return Err(Failure::failed(anyhow!(
            "nothing was applied from {}: the log's rules refuse {refused} change(s) in it{rest} (listed above); it \
             stays pending",
            name(path)
        )));
    }
    let also = [(already, "already there"), (refused, "refused")]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!(", {n} {what}"))
        .collect::<String>();
    out!(
        "applied {applied} change(s) to notebook.ron{also}; {} is kept as {} (no longer pending)",
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
        quote_argv(&[dir.display().to_string()])
    ))
}
