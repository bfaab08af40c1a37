//! Whether two arms computed the same result (SPEC S18; the course's C.5
//! and C.8.5: "checksums identical", "a faster wrong answer is no
//! speed-up"). Each arm keeps what its program computed as a row's
//! `result check` condition: a kernel's checksum verified after every
//! trial, the text a command printed that `--check REGEX` read from every
//! trial's output, or a driver's checksum column read on import. One
//! finding, one sentence, for every face that compares two arms: the
//! interleaved verdict, `compare --notebook` and the window.

use serde::Serialize;

use crate::display::inert;

/// What decides a comparison whose arms' results differ.
const FIX: &str = "make both compute the same result, then measure again";

/// The prefix of a kept result that already says its own trials (or rows)
/// did not agree.
pub const RESULTS_DIFFER: &str = "checksums differ";

/// S18's finding on two arms' kept results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "agreement", rename_all = "snake_case")]
pub enum Agreement {
    /// Both arms computed the same result: said beside the verdict.
    Identical {
        /// The result, inert.
        result: String,
    },
    /// The arms' results differ: the comparison claims nothing.
    Differ {
        /// The arms, A then B (`run 1`, or an arm's label).
        names: [String; 2],
        /// Their results, inert, A then B.
        results: [String; 2],
    },
    /// One arm's own trials (or rows) did not agree: the comparison claims
    /// nothing.
    Unsteady {
        /// What that arm kept, inert (`checksums differ: …`).
        within: String,
    },
}

impl Agreement {
    /// S18 on the `result check` values `kept` of the arms `names` (A, B);
    /// `None` when either kept none, or when the results are of different
    /// kinds (a walk's sum against a chase's closed laps), which differ by
    /// design and say nothing of correctness.
    pub fn of(names: [&str; 2], kept: [&str; 2]) -> Option<Self> {
        let kept = kept.map(str::trim);
        if let Some(within) = kept.iter().find(|v| v.starts_with(RESULTS_DIFFER)) {
            return Some(Self::Unsteady { within: inert(within).into_owned() });
        }
        // The result itself: "verified after every trial; checksum 12.5" is
        // compared by "checksum 12.5".
        let results = kept.map(|v| inert(v.rsplit_once("; ").map_or(v, |(_, r)| r).trim()).into_owned());
        if kind(&results[0]) != kind(&results[1]) {
            return None;
        }
        Some(if results[0] == results[1] {
            Self::Identical { result: results[0].clone() }
        } else {
            Self::Differ { names: names.map(str::to_owned), results }
        })
    }

    /// [`Agreement::of`] for two arms that ran `commands`: kernels at
    /// different sizes (`--size`) compute different results by design, so
    /// only an arm's own disagreement is said of them.
    pub fn of_commands(names: [&str; 2], kept: [&str; 2], commands: [&[String]; 2]) -> Option<Self> {
        fn size(command: &[String]) -> Option<&String> {
            command.iter().position(|w| w == "--size").and_then(|k| command.get(k + 1))
        }
        let agreement = Self::of(names, kept)?;
        (size(commands[0]) == size(commands[1]) || matches!(agreement, Self::Unsteady { .. })).then_some(agreement)
    }

    /// True when the finding takes the comparison's claim away.
    pub fn claims_nothing(&self) -> bool {
        !matches!(self, Self::Identical { .. })
    }

    /// The finding in one sentence.
    pub fn sentence(&self) -> String {
        match self {
            Self::Identical { result } => format!("the arms' results agree ({result})"),
            Self::Differ { names: [a, b], results: [ra, rb] } => {
                format!("the arms' results differ: {a} {ra}, {b} {rb}; a faster wrong answer is no speed-up: {FIX}")
            }
            Self::Unsteady { within } => format!("the arms' results do not agree ({within}); {FIX}"),
        }
    }
}

impl std::fmt::Display for Agreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.sentence())
    }
}

/// A result's kind: its words before the first number (`checksum`, `sum`,
/// `laps closed` reads as its own kind).
fn kind(result: &str) -> &str {
    result.split(|c: char| c.is_ascii_digit() || c == '-').next().unwrap_or_default().trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC S18: identical results are said, different ones take the claim
    // away and name both, an arm whose own trials disagreed takes it away,
    // and results of different kinds are not compared.
    #[test]
    fn results_are_compared_only_when_of_one_kind() {
        let kernel = |sum: &str| format!("verified after every trial; checksum {sum}");
        let same = Agreement::of(["A", "B"], [&kernel("12.5"), &kernel("12.5")]).expect("compared");
        assert_eq!(same.sentence(), "the arms' results agree (checksum 12.5)");
        assert!(!same.claims_nothing());
        let differ = Agreement::of(["-O2", "-O3"], [&kernel("12.5"), &kernel("13")]).expect("compared");
        assert!(differ.claims_nothing());
        assert!(differ.sentence().starts_with("the arms' results differ: -O2 checksum 12.5, -O3 checksum 13;"));
        let unsteady = Agreement::of(["A", "B"], [&kernel("1"), "checksums differ: trial 3 printed 'x'"]);
        assert!(unsteady.as_ref().is_some_and(Agreement::claims_nothing), "{unsteady:?}");
        assert_eq!(Agreement::of(["A", "B"], ["verified; sum 10", "verified; 4 laps closed"]), None);
        // SPEC N10: what a program printed is shown inert.
        let shown = Agreement::of(["A", "B"], ["x; r\u{202e}1", "x; r\u{202e}2"]).expect("compared").sentence();
        assert!(!shown.contains('\u{202e}'), "{shown}");
        // Kernels at different sizes compute different sums by design.
        let at = |size: &str| ["vernier", "--kernel", "seq", "--size", size].map(str::to_owned).to_vec();
        let (small, large) = (at("1M"), at("4M"));
        let sums = [kernel("1"), kernel("4")];
        assert_eq!(Agreement::of_commands(["A", "B"], [&sums[0], &sums[1]], [&small, &large]), None);
        assert!(Agreement::of_commands(["A", "B"], [&sums[0], &sums[1]], [&small, &small]).is_some());
    }
}
