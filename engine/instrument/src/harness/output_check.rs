//! A command's result, read from what it prints (SPEC S18; the course's
//! C.5 and C.8.5: "checksums identical", "correctness comparison happens
//! after each timed call"). `bench --check REGEX` reads every trial's
//! output after the clock stopped; an arm whose trials all printed the same
//! result keeps it with its row, so a comparison can say whether both arms
//! computed the same thing. A trial that printed another result, or none,
//! is kept as the arm's disagreement: the comparison then claims nothing.

use vernier_model::display::inert;
use vernier_model::stats::RESULTS_DIFFER;

/// Characters of a printed result kept: a checksum, not a page of output.
const MAX_RESULT_CHARS: usize = 120;

/// Why a `--check` pattern cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("--check is not a regular expression: {0}")]
pub struct CheckError(#[source] regex::Error);

/// The pattern `--check` gives, compiled.
pub struct OutputCheck {
    regex: regex::Regex,
    pattern: String,
}

impl OutputCheck {
    /// Compiles `pattern`.
    pub fn compile(pattern: &str) -> Result<Self, CheckError> {
        Ok(Self { regex: regex::Regex::new(pattern).map_err(CheckError)?, pattern: pattern.to_owned() })
    }

    /// The result one trial's output shows: the first match, or its first
    /// capture group when the pattern has one; `None` without a match.
    pub fn read(&self, output: &str) -> Option<String> {
        let found = self.regex.captures(output)?;
        let text = found.get(1).or_else(|| found.get(0))?.as_str().trim();
        Some(inert(&text.chars().take(MAX_RESULT_CHARS).collect::<String>()).into_owned())
    }
}

/// What one arm's trials printed, as [`OutputCheck::read`] found it.
#[derive(Debug, Default, Clone)]
pub struct Printed {
    /// The first trial's index and its result.
    first: Option<(u32, String)>,
    /// The first trial that did not print the same, said in words.
    differs: Option<String>,
}

impl Printed {
    /// Takes trial `index`'s result (`None`: its output had no match, or
    /// could not be read, as `missing` says).
    pub fn see(&mut self, index: u32, result: Result<String, String>) {
        if self.differs.is_some() {
            return;
        }
        match (&self.first, result) {
            (_, Err(missing)) => self.differs = Some(format!("trial {index}'s output {missing}")),
            (None, Ok(result)) => self.first = Some((index, result)),
            (Some((first, seen)), Ok(result)) if *seen != result => {
                self.differs = Some(format!("trial {first} printed '{seen}', trial {index} '{result}'"));
            }
            (Some(_), Ok(_)) => {}
        }
    }

    /// The row's `result check` value: the one result every trial printed,
    /// with the pattern that read it, or the disagreement; `None` before
    /// any trial.
    pub fn kept(&self, pattern: &OutputCheck) -> Option<String> {
        if let Some(differs) = &self.differs {
            return Some(format!("{RESULTS_DIFFER} between trials: {differs}"));
        }
        let (_, result) = self.first.as_ref()?;
        Some(format!("the same in every trial's output, read by --check '{}'; {result}", inert(&pattern.pattern)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC S18: the result is the match (or its group); every trial
    // printing it is kept with the pattern, and the first that differs, or
    // prints none, is kept as the arm's disagreement.
    #[test]
    fn every_trial_must_print_the_same_result() {
        let check = OutputCheck::compile(r"checksum[:=] *(\S+)").expect("a pattern");
        assert_eq!(check.read("time 3 ms\nchecksum: 0x1f\n").as_deref(), Some("0x1f"));
        assert_eq!(check.read("nothing here"), None);
        let whole = OutputCheck::compile(r"sum \d+").expect("a pattern");
        assert_eq!(whole.read("the sum 42 was found").as_deref(), Some("sum 42"));

        let mut steady = Printed::default();
        for i in 0..5 {
            steady.see(i, Ok("0x1f".to_owned()));
        }
        assert_eq!(
            steady.kept(&check).as_deref(),
            Some(r"the same in every trial's output, read by --check 'checksum[:=] *(\S+)'; 0x1f")
        );
        let mut differs = steady.clone();
        differs.see(5, Ok("0x20".to_owned()));
        differs.see(6, Err("has no match".to_owned()));
        assert_eq!(
            differs.kept(&check).as_deref(),
            Some("checksums differ between trials: trial 0 printed '0x1f', trial 5 '0x20'")
        );
        let mut none = Printed::default();
        none.see(3, Err("has no match for --check".to_owned()));
        assert_eq!(
            none.kept(&check).as_deref(),
            Some("checksums differ between trials: trial 3's output has no match for --check")
        );
        assert!(OutputCheck::compile("(").is_err());
    }
}
