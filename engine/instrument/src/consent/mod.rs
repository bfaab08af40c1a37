//! The one gate between a command stored in a file and its execution (SPEC
//! N13, R2). A notebook, a workbook or an import is a file anyone can edit
//! — the student's own notebook included — so every way Vernier runs what
//! such a file stores (reproduce, extend, a sweep's rerun, any later one)
//! hands its run over only as a [`Gate`]: the exact argument vectors,
//! quoted as they will run, each with why it needs a second consent when
//! it does (R2). That is decided by an allowlist ([`KeptFiles`], `allow`): only
//! their own program or script, matched by the SHA-256 their row keeps, a
//! program rebuilt from their recipe, a recipe of plain compiler words,
//! or a Vernier kernel runs on the first consent; any other program with
//! their arguments can run code they wrote.
//!
//! The [`BenchSpec`] inside comes out only through [`Gate::release`], in
//! exchange for a [`Consent`]; and a `Consent` is made only by
//! [`Gate::confirm`], the step each face's confirmation takes (the command
//! line's `--yes`, the window's confirm button), which refuses a command
//! that can run code written in the file unless that was allowed too. This is a property
//! of the types, not a convention:
//!
//! - the gate's spec is a private field with no accessor, and only the
//!   engine's planners make a gate (`Gate::new` is crate-private);
//! - `Consent` has private fields and no public constructor, `Default` or
//!   `Clone`, so it cannot be written down or kept for another run:
//!
//! ```compile_fail,E0451
//! // SPEC N13: a consent cannot be made outside the gate.
//! let spec = vernier_instrument::harness::BenchSpec::new(Vec::new());
//! let consent = vernier_instrument::consent::Consent { spec };
//! ```
//!
//! ```compile_fail,E0616
//! // SPEC N13: nor can the spec be read out of a gate around it.
//! fn spec(gate: &vernier_instrument::consent::Gate) -> vernier_instrument::harness::BenchSpec {
//!     gate.spec.clone()
//! }
//! ```
//!
//! - a consent releases only the plan it was given to: `release` compares
//!   the spec it was confirmed for with its own.
//!
//! What the types cannot check is that a face showed the plan before it
//! asked; each face's tests check that.

use std::time::Duration;

use crate::harness::{BenchError, BenchSpec};
use vernier_model::display::quote_argv;
use vernier_model::notebook::WarmupPolicy;
mod allow;
mod inline;

pub use allow::KeptFiles;
pub use inline::inline_code;

/// One command the gate would run, as it will run.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The argument vector handed to the OS (for a kernel, the command
    /// line that names it; it starts no process).
    pub argv: Vec<String>,
    /// `argv` quoted as it will run, made inert (`display::quote_argv`).
    pub quoted: String,
    /// Why it needs the second consent (R2): it is not shown to be their
    /// own program, so it can run code written in the file; `None` when
    /// it is plain.
    pub inline_code: Option<String>,
}

/// Whether the user also allowed commands that run code written in the
/// file (the command line's `--allow-inline-code`, the window's tick).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InlineCode {
    /// Not allowed: a plan that runs inline code is refused.
    Refused,
    /// Allowed, after reading the finding.
    Allowed,
}

impl From<bool> for InlineCode {
    fn from(allowed: bool) -> Self {
        if allowed { InlineCode::Allowed } else { InlineCode::Refused }
    }
}

/// Why a gate did not open.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GateError {
    /// A command runs code written in the file, and that was not allowed.
    #[error("{why}: {commands}; nothing was run")]
    InlineCode {
        /// The finding, e.g. `runs code written in their file (sh -c)`.
        why: String,
        /// Every command, quoted as it would run.
        commands: String,
    },
    /// The consent was given to another plan.
    #[error("that confirmation was given to another run; nothing was run")]
    NotThisPlan,
}

/// The user's consent to run one plan, made only by [`Gate::confirm`].
#[derive(Debug)]
pub struct Consent {
    /// The spec that was confirmed, exactly.
    spec: BenchSpec,
}

/// A run of commands taken from a file, held until the user consents.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    spec: BenchSpec,
    commands: Vec<Command>,
    /// The build recipes that run first (SPEC N15, R5), as they will run.
    builds: Vec<Command>,
    /// Beside each of `builds`: the arm it builds (`A`, `B`) when the arms
    /// have their own, else empty.
    build_arms: Vec<&'static str>,
}

impl Gate {
    /// Holds `spec`, the run a planner made from a file's rows (the
    /// planners, `reproduce` and `extend`, sit in the crate above); `kept`
    /// is what each arm's row keeps of the files it ran, which is all that
    /// can vouch for a command (a missing arm's vouches for nothing). The
    /// programs named are hashed here, before anything runs.
    pub fn new(spec: BenchSpec, kept: &[KeptFiles]) -> Self {
        let folder = spec.folder.clone().or_else(|| std::env::current_dir().ok()).unwrap_or_default();
        let nothing = KeptFiles::default();
        let commands = spec
            .arms
            .iter()
            .enumerate()
            .map(|(i, arm)| {
                let argv = arm.argv();
                let why = allow::arm(arm, spec.recipe_of(i), &folder, kept.get(i).unwrap_or(&nothing));
                Command { quoted: quote_argv(&argv), inline_code: why, argv }
            })
            .collect();
        let mut builds: Vec<Command> = Vec::new();
        let mut build_arms = Vec::new();
        let steps = spec
            .recipe
            .iter()
            .map(|step| (step, ""))
            .chain(spec.arm_recipes.iter().zip(["A", "B"]).filter_map(|(step, arm)| Some((step.as_ref()?, arm))));
        for (step, arm) in steps {
            let argv = step.argv.clone();
            let inline_code = allow::recipe(step);
            if !builds.iter().any(|b| b.argv == argv) {
                builds.push(Command { quoted: quote_argv(&argv), inline_code, argv });
                build_arms.push(arm);
            }
        }
        Self { spec, commands, builds, build_arms }
    }

    /// The build commands that run before the first trial (SPEC R5).
    pub fn builds(&self) -> &[Command] {
        &self.builds
    }

    /// Every command it would run, in arm order (one per point of a sweep).
    pub fn commands(&self) -> &[Command] {
        &self.commands
    }

    /// The first command's reason to need the second consent, if one is
    /// not shown to be plain: such a plan needs [`InlineCode::Allowed`].
    pub fn inline_code(&self) -> Option<&str> {
        self.builds.iter().chain(&self.commands).find_map(|c| c.inline_code.as_deref())
    }

    /// The commands, quoted as they will run, joined by `separator`.
    pub fn quoted(&self, separator: &str) -> String {
        self.builds.iter().chain(&self.commands).map(|c| c.quoted.as_str()).collect::<Vec<_>>().join(separator)
    }

    /// The plan's lines about what runs: `  command: …` (a comparison's
    /// `command A`, `command B`; a sweep's points by number), then
    /// [`Gate::warnings`]; each line starts with a line break.
    pub fn command_lines(&self) -> String {
        let count = self.commands.len();
        let mut lines = String::new();
        let folder = self.spec.folder.as_ref().map_or_else(String::new, |f| format!(" in {}", f.display()));
        for (build, arm) in self.builds.iter().zip(&self.build_arms) {
            let arm = if arm.is_empty() { String::new() } else { format!(" {arm}") };
            lines.push_str(&format!("\n  build{arm} (runs first{folder}): {}", build.quoted));
        }
        for (i, c) in self.commands.iter().enumerate() {
            let label = match (count, i) {
                (1, _) => "command".to_owned(),
                (2, 0) => "command A".to_owned(),
                (2, _) => "command B".to_owned(),
                _ => format!("command {}", i + 1),
            };
            lines.push_str(&format!("\n  {label}: {}", c.quoted));
        }
        lines + &self.warnings()
    }

    /// A WARNING line naming each command that runs code written in the
    /// file, with the finding; each line starts with a line break.
    pub fn warnings(&self) -> String {
        self.builds
            .iter()
            .chain(&self.commands)
            .filter_map(|c| Some(format!("\n  WARNING: {} {}", c.quoted, c.inline_code.as_deref()?)))
            .collect()
    }

    /// Timed trials per arm.
    pub fn runs(&self) -> u32 {
        self.spec.runs
    }

    /// The warm-up policy.
    pub fn warmup(&self) -> WarmupPolicy {
        self.spec.warmup
    }

    /// The CPU it is pinned to, if any.
    pub fn pin(&self) -> Option<usize> {
        self.spec.pin
    }

    /// The cool-down before a comparison's reversed block, if any.
    pub fn cooldown(&self) -> Option<Duration> {
        self.spec.cooldown
    }

    /// Whether the run could start here as it is (the programs found, the
    /// counts allowed), checked before anyone is asked.
    pub fn check(&self) -> Result<(), BenchError> {
        crate::harness::validate(&self.spec)
    }

    /// The user confirmed this plan, having read it: their consent, or why
    /// it is refused (inline code that was not allowed as well).
    pub fn confirm(&self, inline: InlineCode) -> Result<Consent, GateError> {
        if let (Some(why), InlineCode::Refused) = (self.inline_code(), inline) {
            return Err(GateError::InlineCode { why: why.to_owned(), commands: self.quoted("; ") });
        }
        Ok(Consent { spec: self.spec.clone() })
    }

    /// The run, in exchange for the consent given to this plan.
    pub fn release(&self, consent: Consent) -> Result<BenchSpec, GateError> {
        if consent.spec == self.spec { Ok(self.spec.clone()) } else { Err(GateError::NotThisPlan) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Subject;

    fn gate(argv: &[&str]) -> Gate {
        let argv = argv.iter().map(|w| (*w).to_owned()).collect();
        Gate::new(BenchSpec::new(vec![Subject::Command { argv, shell: false }]), &[])
    }

    // SPEC N13, R2: the gate shows each command quoted as it will run, with
    // why it needs a second consent, and opens only with a consent made by
    // its own confirmation.
    #[test]
    fn the_spec_comes_out_only_for_a_consent_to_this_plan() {
        let kernel = vernier_model::notebook::KernelSpec::from_argv(&[
            "vernier".into(),
            "bench".into(),
            "--kernel".into(),
            "seq".into(),
        ])
        .expect("a kernel");
        let plain = Gate::new(BenchSpec::new(vec![Subject::Kernel(kernel)]), &[]);
        assert_eq!(plain.inline_code(), None, "a kernel of Vernier's is plain");
        assert_eq!(plain.command_lines(), format!("\n  command: {}", plain.commands()[0].quoted));
        let sleep = gate(&["/bin/sleep", "0.01"]);
        assert_eq!(sleep.commands()[0].quoted, "/bin/sleep 0.01");
        let why = sleep.inline_code().expect("a program of this machine with their arguments");
        assert!(why.starts_with("runs sleep with their arguments: such a program can run code they wrote"), "{why}");
        let consent = plain.confirm(InlineCode::Refused).expect("no inline code: the confirmation is enough");
        let spec = plain.release(consent).expect("its own consent opens it");
        assert_eq!(spec.arms[0].argv(), ["vernier", "bench", "--kernel", "seq"]);
        assert!(matches!(sleep.confirm(InlineCode::Refused), Err(GateError::InlineCode { .. })));

        // A consent given to one plan never opens another.
        let hostile = gate(&["/bin/sh", "-c", "touch MARKER; sleep 0.01"]);
        let consent = plain.confirm(InlineCode::Allowed).expect("consent");
        assert_eq!(hostile.release(consent), Err(GateError::NotThisPlan));
    }

    // SPEC N13, R2: a command that runs code written in the file is named in
    // the plan and needs the inline-code consent on top of the confirmation.
    #[test]
    fn inline_code_needs_its_own_consent() {
        let hostile = gate(&["/bin/sh", "-c", "touch MARKER; sleep 0.01"]);
        let finding = hostile.inline_code().expect("flagged").to_owned();
        assert!(finding.contains("sh -c"), "{finding}");
        let lines = hostile.command_lines();
        assert!(lines.contains("command: /bin/sh -c 'touch MARKER; sleep 0.01'"), "{lines}");
        assert!(lines.contains(&format!("WARNING: /bin/sh -c 'touch MARKER; sleep 0.01' {finding}")), "{lines}");
        match hostile.confirm(InlineCode::Refused) {
            Err(GateError::InlineCode { why, commands }) => {
                assert_eq!(why, finding);
                assert_eq!(commands, "/bin/sh -c 'touch MARKER; sleep 0.01'");
            }
            other => panic!("refused without the inline-code consent, not {other:?}"),
        }
        let consent = hostile.confirm(InlineCode::Allowed).expect("allowed after reading it");
        assert!(hostile.release(consent).is_ok());
    }
}
