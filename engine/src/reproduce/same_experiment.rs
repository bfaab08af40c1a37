//! Is the rerun the same experiment on the same program (SPEC R4)? Their
//! placement is reapplied where this machine allows it, the program found
//! here is matched against the SHA-256 their row recorded (SPEC N11), and a
//! kernel's own result check is compared with theirs. Each answer is a
//! sentence, shown before confirmation and again beside the verdict.

use serde::Serialize;

use crate::display::inert;
use crate::harness::provenance::recorded_sha256;
use crate::notebook::{Condition, ConditionName};
use crate::platform::pinning::{self, cpus_here};

/// How many hex digits of a SHA-256 a sentence shows: enough to tell two
/// builds apart at a glance; the full hash stays in the row's conditions.
const SHORT_HASH: usize = 12;

/// A condition of someone else's row by the vocabulary's name, whatever its
/// case (a workbook typed by hand writes `Placement used`).
fn value(conditions: &[Condition], name: ConditionName) -> Option<&str> {
    conditions.iter().find(|c| c.field.trim().eq_ignore_ascii_case(name.as_str())).map(|c| c.value.as_str())
}

/// Where the rerun runs: their CPU when they pinned and this machine has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// The CPU to pin to.
    pub cpu: Option<usize>,
    /// The plan's sentence: what is reapplied, or why it is not.
    pub text: String,
}

/// Their placement, reapplied where possible (SPEC R4, E8).
pub fn placement(theirs: &[Condition]) -> Placement {
    let not = |text: String| Placement { cpu: None, text };
    let Some(recorded) = value(theirs, ConditionName::PlacementUsed) else {
        return not("their row records no placement; the rerun is not pinned".to_owned());
    };
    let cpu = match their_pin(recorded) {
        TheirPin::Cpu(cpu) => cpu,
        TheirPin::Unreadable => {
            return not(format!(
                "their row says “{}”, which does not name one CPU the rerun can be pinned to; it is not pinned",
                inert(recorded)
            ));
        }
        TheirPin::None => {
            return not(format!("their run was not pinned (“{}”); neither is the rerun", inert(recorded)));
        }
    };
    match cpus_here() {
        Ok(cpus) if cpus.contains(&cpu) => {
            Placement { cpu: Some(cpu), text: format!("pinned to CPU {cpu}, as theirs was") }
        }
        Ok(cpus) => {
            let ids: Vec<String> = cpus.iter().map(ToString::to_string).collect();
            not(format!(
                "their run was pinned to CPU {cpu}, but this machine has no CPU {cpu} (CPUs here: {}); the rerun is \
                 not pinned",
                ids.join(", ")
            ))
        }
        Err(why) => not(format!("their run was pinned to CPU {cpu}; the rerun cannot be pinned here: {why}")),
    }
}

/// What a recorded placement says about a pin.
enum TheirPin {
    /// Pinned to this CPU.
    Cpu(usize),
    /// It says pinned, but names no one CPU that can be read.
    Unreadable,
    /// Not pinned, refused, or nothing about a pin.
    None,
}

/// Reads Vernier's own "pinned to CPU 3", or a hand-written "pinned to
/// core 3" / "taskset -c 3". A refusal or a "not pinned" names no pin; a
/// list or range of CPUs ("taskset -c 0-1") names no one CPU to pin to.
fn their_pin(text: &str) -> TheirPin {
    if let Some(cpu) = pinning::pinned_cpu(text) {
        return TheirPin::Cpu(cpu);
    }
    let lower = text.to_lowercase();
    let negated = ["not pinned", "unpinned", "no pin", "without pin", "refused"].iter().any(|n| lower.contains(n));
    if negated || !(lower.contains("pinned") || lower.contains("taskset")) {
        return TheirPin::None;
    }
    for key in ["cpu", "core", "-c"] {
        for (at, _) in lower.match_indices(key) {
            let rest = lower[at + key.len()..].trim_start_matches([' ', '=', ':', '#']);
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits == 0 {
                continue;
            }
            if rest[digits..].starts_with(['-', ',']) {
                return TheirPin::Unreadable;
            }
            return rest[..digits].parse().map_or(TheirPin::Unreadable, TheirPin::Cpu);
        }
    }
    TheirPin::Unreadable
}

/// Whether one file the row ran is the one found here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProgramCheck {
    /// `Some(true)`: the same SHA-256; `Some(false)`: a different file;
    /// `None`: it cannot be told (a hash missing on one side).
    pub same: Option<bool>,
    /// The sentence, inert: "./mm: a different binary: …".
    pub text: String,
}

impl ProgramCheck {
    /// A different file on this machine.
    pub fn differs(&self) -> bool {
        self.same == Some(false)
    }
}

/// Their program and argument files against `mine` (the conditions the
/// rerun records, or before it runs, what [`crate::harness::CommandIdentity`]
/// finds here): by SHA-256, never by path, since their home folder is not
/// mine. Nothing when either side names no program (a kernel; a row of a
/// workbook, which records none).
pub fn program_checks(theirs: &[Condition], mine: &[Condition]) -> Vec<ProgramCheck> {
    let Some((here, recorded)) = value(mine, ConditionName::Program).zip(value(theirs, ConditionName::Program)) else {
        return Vec::new();
    };
    let mut checks = vec![file_check("binary", Some(recorded), here)];
    let mine_files = argument_files(mine);
    for (name, entry) in argument_files(theirs) {
        let check = match mine_files.iter().find(|(n, _)| *n == name) {
            Some((_, here)) => file_check("file", Some(entry), here),
            None => ProgramCheck {
                same: Some(false),
                text: format!("{}: their file is not found here, or is not the same file", inert(name)),
            },
        };
        checks.push(check);
    }
    checks
}

/// The `ARG (SHA-256 HEX)` entries of a row's `argument files`, by name.
fn argument_files(conditions: &[Condition]) -> Vec<(&str, &str)> {
    value(conditions, ConditionName::ArgumentFiles)
        .unwrap_or_default()
        .split("; ")
        .filter_map(|entry| entry.rsplit_once(" (").map(|(name, _)| (name, entry)))
        .collect()
}

/// One file's recorded identity (`PATH (SHA-256 HEX)`) against the one here.
fn file_check(noun: &str, theirs: Option<&str>, here: &str) -> ProgramCheck {
    let name = here.rsplit_once(" (").map_or(here, |(name, _)| name);
    let short = |hex: &str| format!("{}…", &hex[..SHORT_HASH]);
    let (same, what) = match (theirs.and_then(recorded_sha256), recorded_sha256(here)) {
        (Some(t), Some(h)) if t.eq_ignore_ascii_case(h) => {
            (Some(true), format!("the same {noun} as theirs (SHA-256 {})", short(h)))
        }
        (Some(t), Some(h)) => {
            (Some(false), format!("a different {noun}: theirs had SHA-256 {}, the one here has {}", short(t), short(h)))
        }
        (Some(t), None) => {
            (None, format!("theirs had SHA-256 {}; the one here could not be hashed ({})", short(t), inert(here)))
        }
        (None, _) => (None, format!("their row records no SHA-256 of its {noun}, so it cannot be matched")),
    };
    ProgramCheck { same, text: format!("{}: {what}", inert(name)) }
}

/// A kernel's own result check, theirs against the rerun's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResultCheck {
    /// `Some(true)`: the same result; `Some(false)`: a different one;
    /// `None`: their row records none.
    pub same: Option<bool>,
    /// The sentence: "result check: identical (checksum 1.5)".
    pub text: String,
}

/// The result check of a rerun that has one (a kernel) against theirs: the
/// part after "verified after every trial; ", which is the result itself.
pub fn result_check(theirs: &[Condition], mine: &[Condition]) -> Option<ResultCheck> {
    let result = |v: &str| v.rsplit_once("; ").map_or(v, |(_, r)| r).trim().to_owned();
    let here = result(value(mine, ConditionName::ResultCheck)?);
    Some(match value(theirs, ConditionName::ResultCheck).map(result) {
        Some(t) if t == here => ResultCheck { same: Some(true), text: format!("result check: identical ({here})") },
        Some(t) => {
            ResultCheck { same: Some(false), text: format!("result check differs: theirs {}, mine {here}", inert(&t)) }
        }
        None => ResultCheck { same: None, text: format!("result check: their row records none; mine {here}") },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(field: &str, value: &str) -> Condition {
        Condition { field: field.into(), value: value.into() }
    }

    // SPEC R4, E8: a pin is read from Vernier's words or a person's, and
    // reapplied only where this machine has that CPU; anything else says why.
    #[test]
    fn their_pin_is_read_and_reapplied_or_explained() {
        let cpu = |text: &str| match their_pin(text) {
            TheirPin::Cpu(cpu) => Some(cpu),
            _ => None,
        };
        assert_eq!(cpu("pinned to CPU 1"), Some(1));
        assert_eq!(cpu("Pinned to core 2 with taskset"), Some(2));
        assert_eq!(cpu("taskset -c 3"), Some(3));
        // Found by review: a "not" elsewhere in the text is no negation.
        assert_eq!(cpu("pinned to core 1 with taskset; governor cannot be set"), Some(1));
        assert_eq!(cpu("pinned to CPU 1 (not isolated)"), Some(1));
        assert!(matches!(their_pin("taskset -c 0-1"), TheirPin::Unreadable));
        assert!(matches!(their_pin("pinned to CPUs 0,1"), TheirPin::Unreadable));
        for none in ["not pinned (no --pin given)", "pinning to CPU 1 was refused: x", "not pinned: there is no CPU 7"]
        {
            assert!(matches!(their_pin(none), TheirPin::None), "{none}");
        }
        let far = placement(&[c("placement used", "pinned to CPU 100000")]);
        assert_eq!(far.cpu, None);
        assert!(far.text.contains("no CPU 100000") || far.text.contains("cannot be pinned here"), "{}", far.text);
        let huge = placement(&[c("placement used", "pinned to CPU 99999999999999999999999")]);
        assert!(huge.cpu.is_none() && huge.text.contains("does not name one CPU"), "{}", huge.text);
        let none = placement(&[]);
        assert_eq!((none.cpu, none.text.as_str()), (None, "their row records no placement; the rerun is not pinned"));
        let zero = placement(&[c("Placement used", "pinned to CPU 0")]);
        match cpus_here() {
            Ok(cpus) if cpus.contains(&0) => assert_eq!(zero.cpu, Some(0), "{}", zero.text),
            _ => assert!(zero.cpu.is_none() && zero.text.contains("cannot be pinned here"), "{}", zero.text),
        }
    }

    // SPEC R4, N11: programs are matched by hash, not path; a changed file
    // is named; a row without a hash says it cannot be matched.
    #[test]
    fn programs_are_matched_by_hash() {
        let (a, b) = ("a".repeat(64), "b".repeat(64));
        let theirs =
            [c("program", &format!("/home/x/mm (SHA-256 {a})")), c("argument files", &format!("in.txt (SHA-256 {a})"))];
        let same = program_checks(
            &theirs,
            &[
                c("program", &format!("/home/y/mm (SHA-256 {a})")),
                c("argument files", &format!("in.txt (SHA-256 {a})")),
            ],
        );
        assert_eq!(same.iter().map(|c| c.same).collect::<Vec<_>>(), [Some(true), Some(true)], "{same:?}");
        let changed = program_checks(&theirs, &[c("program", &format!("/home/y/mm (SHA-256 {b})"))]);
        assert!(changed[0].differs() && changed[0].text.contains("a different binary"), "{changed:?}");
        assert!(changed[1].differs() && changed[1].text.starts_with("in.txt"), "{changed:?}");
        let unhashed = [c("program", "mm (not found on PATH, not hashed)")];
        let unknown = program_checks(&unhashed, &[c("program", &format!("/y/mm (SHA-256 {b})"))]);
        assert_eq!(unknown[0].same, None);
        assert!(program_checks(&[], &[c("program", &format!("/y/mm (SHA-256 {b})"))]).is_empty());
        assert!(program_checks(&theirs, &[]).is_empty(), "a kernel names no program");
    }

    // SPEC R4: a kernel's result check is compared with theirs.
    #[test]
    fn result_checks_are_compared() {
        let mine = [c("result check", "verified after every trial; checksum 12.5")];
        let same = result_check(&[c("result check", "verified after every trial; checksum 12.5")], &mine);
        assert_eq!(same.map(|r| r.same), Some(Some(true)));
        let other =
            result_check(&[c("result check", "verified after every trial; checksum 13")], &mine).expect("check");
        assert_eq!(other.same, Some(false));
        assert_eq!(other.text, "result check differs: theirs checksum 13, mine checksum 12.5");
        assert_eq!(result_check(&[], &mine).map(|r| r.same), Some(None));
        assert_eq!(result_check(&mine, &[]), None);
    }
}
