//! The exit-code policy of the `vernier` binary (SPEC C): 0 success, 1
//! findings or a failed operation, 2 bad usage or bad input. Both faces
//! report what happened in their own terms; only this module turns that into
//! a process exit code and the one error line on stderr.

use std::process::ExitCode;

/// A command that did not succeed, with the exit code it earns.
#[derive(Debug)]
pub struct Failure {
    code: u8,
    error: anyhow::Error,
}

impl Failure {
    /// Bad usage or bad input: exit 2.
    pub fn input(error: impl Into<anyhow::Error>) -> Self {
        Self { code: 2, error: error.into() }
    }

    /// The operation failed (a save, a measurement): exit 1.
    pub fn failed(error: impl Into<anyhow::Error>) -> Self {
        Self { code: 1, error: error.into() }
    }

    /// The same failure, with what it leaves behind said first.
    #[must_use]
    pub fn context(self, context: String) -> Self {
        Self { code: self.code, error: self.error.context(context) }
    }
}

/// What a command returns: the exit code to use when it ran to the end
/// (0, or 1 when it reported findings).
pub type CommandResult = Result<u8, Failure>;

/// The exit code of `outcome`, printing a failure's message first.
pub fn code(outcome: CommandResult) -> ExitCode {
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(Failure { code, error }) => {
            // A message may quote someone else's file: shown inert (SPEC N10).
            eprintln!("error: {}", vernier_engine::display::inert(&describe(&error)));
            ExitCode::from(code)
        }
    }
}

/// The error and its causes on one line, leaving out a cause whose text the
/// message already quotes (the engine's errors name their OS error).
pub fn describe(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}
