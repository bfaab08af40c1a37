//! `vernier audit` (SPEC A): every finding with its check, its sentence and
//! the row or document line it points at. Exit 0 clean, 1 findings, 2
//! unreadable.

use std::fmt::Write as _;
use std::path::Path;

use vernier_engine::audit::{self, Check};
use vernier_engine::display::inert;

use super::CommandResult;
use super::notebook_cmds::{left_at_exit, open_digested};

pub fn audit(dir: &Path, exports: Option<&Path>, json: bool) -> CommandResult {
    let (notebook, read) = open_digested(dir)?;
    let report = audit::audit_read(dir, &notebook, Some(&read), exports);
    left_at_exit(notebook);
    if json {
        out!(
            "{}",
            serde_json::json!({ "clean": report.is_clean(), "documents_exported": report.documents_exported, "findings": report.findings, "pending_recovery": super::show::pending_names(dir) })
        );
    } else {
        // Written at once: a semester's audit may find 20 000 things, and
        // a line at a time is a write at a time (issue 50).
        let mut found_text = String::new();
        for check in Check::ALL {
            let found: Vec<_> = report.findings.iter().filter(|f| f.check == check).collect();
            if found.is_empty() {
                continue;
            }
            let _ = writeln!(found_text, "{check} — {}", check.rule());
            for f in found {
                // A finding may quote a document's line: one line, inert (SPEC N10).
                let _ = writeln!(found_text, "  {}: {}", inert(&f.place.to_string()), inert(&f.message));
            }
        }
        if let Some(text) = found_text.strip_suffix('\n') {
            out!("{text}");
        }
        // N10: changes a window kept beside the notebook are not in it (nor audited) yet.
        if let Some(line) = super::recover_cmd::pending_line(dir) {
            out!("{line}");
        }
        let source = if report.documents_exported { "the exported files" } else { "what an export would write now" };
        if report.is_clean() {
            out!("✔ all {} checks pass (documents checked: {source})", Check::ALL.len());
        } else {
            let checks = Check::ALL.iter().filter(|c| report.findings.iter().any(|f| f.check == **c)).count();
            out!("\n{} finding(s) in {checks} check(s); documents checked: {source}", report.findings.len());
        }
    }
    Ok(u8::from(!report.is_clean()))
}
