//! The command line's confirmation of a run stored in a file (SPEC N13,
//! R2): the plan is printed and nothing runs without `--yes`, and a command
//! that runs code written in the file not without `--allow-inline-code` as
//! well. `reproduce` (a row or a sweep) and `bench --extend` all ask here,
//! and only here is the engine's gate opened.

use anyhow::anyhow;
use serde_json::{Value, json};
use vernier_engine::consent::{Gate, GateError};
use vernier_engine::harness::BenchSpec;

use super::{CommandResult, Failure};

/// What the user said on the command line.
#[derive(Debug, Clone, Copy)]
pub struct ConsentFlags {
    /// `--yes`: run what the plan shows.
    pub yes: bool,
    /// `--allow-inline-code`: also when it runs code written in the file.
    pub allow_inline_code: bool,
    /// `--json`: the plan as one JSON object.
    pub json: bool,
}

/// The run `gate` holds, once the user has consented; else the outcome to
/// return. Without `--yes` the plan is printed (`--json`: as
/// `{"ran": false, "plan": …}`) and the exit is 1; with `--yes` but inline
/// code not allowed, the refusal names the finding and the commands (exit
/// 2). `what` names the run in that refusal: `run 3`, `sweep W1`.
pub fn ask(
    answer: ConsentFlags,
    gate: &Gate,
    what: &str,
    plan: impl FnOnce() -> String,
    plan_json: impl FnOnce() -> Value,
) -> Result<BenchSpec, CommandResult> {
    if !answer.yes {
        if answer.json {
            out!("{}", json!({"ran": false, "plan": plan_json()}));
        } else {
            out!("{}", plan());
            let flags = if gate.inline_code().is_some() { "--yes --allow-inline-code" } else { "--yes" };
            out!("\nNothing was run. Check what will run above, then add {flags} to run it.");
        }
        return Err(Ok(1));
    }
    let consent = gate.confirm(answer.allow_inline_code.into()).map_err(|e| match e {
        GateError::InlineCode { why, commands } => Err(Failure::input(anyhow!(
            "{what} {why}: {commands}; nothing was run. Read it, then add --allow-inline-code to --yes to run it anyway"
        ))),
        e => Err(Failure::failed(e)),
    })?;
    gate.release(consent).map_err(|e| Err(Failure::failed(e)))
}
