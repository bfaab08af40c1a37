//! The one rule for every length of time a student types (SPEC C, E1, E6,
//! T1): a trial's timeout, the cool-down, a soak's duration, interval and
//! windows — on the command line, in the window's dialogs and in a soak
//! protocol read back from a notebook.
//!
//! A duration is a decimal number of seconds within a range named per
//! option ([`Bound`]). Anything else — empty, garbage, negative, zero, NaN,
//! infinite, `1e300` — is bad input with the allowed range in the message,
//! never a panic: `std::time::Duration::from_secs_f64` panics on a value it
//! cannot hold, so no face converts seconds itself; [`Seconds`] is only
//! made here, already checked, and holds both forms.

use std::time::Duration;

/// The shortest duration any option takes: one millisecond (a shorter
/// timeout, interval or pause is below what the harness can honour).
pub const MIN_SECONDS: f64 = 0.001;

/// One duration option: what it is called in a message and the longest
/// value it takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// What the value is, for the message ("a trial's timeout").
    pub what: &'static str,
    /// The longest value, seconds.
    pub max_s: f64,
    /// The longest value in words ("1 day").
    pub max_words: &'static str,
}

/// `--timeout` and the New run dialog's timeout: at most a day per trial.
pub const TIMEOUT: Bound = Bound { what: "a trial's timeout", max_s: 86_400.0, max_words: "1 day" };
/// `--cooldown` and the New run dialog's cool-down: at most an hour.
pub const COOLDOWN: Bound = Bound { what: "the cool-down", max_s: 3_600.0, max_words: "1 hour" };
/// `bench --budget`: the time each trial should meet (SPEC S19), at most a day.
pub const BUDGET: Bound = Bound { what: "a trial's budget", max_s: 86_400.0, max_words: "1 day" };
/// A soak's duration (`soak run --duration`, `predict --soak --duration`).
pub const SOAK_DURATION: Bound = Bound { what: "a soak's duration", max_s: 86_400.0, max_words: "1 day" };
/// A soak's sampling interval.
pub const SOAK_INTERVAL: Bound = Bound { what: "a soak's sampling interval", max_s: 3_600.0, max_words: "1 hour" };
/// A soak's opening window, for P (`--window`, `predict --soak --opening`).
pub const SOAK_OPENING_WINDOW: Bound = Bound { what: "a soak's opening window", max_s: 86_400.0, max_words: "1 day" };
/// A soak's tail window, for S (`--tail`).
pub const SOAK_TAIL_WINDOW: Bound = Bound { what: "a soak's tail window", max_s: 86_400.0, max_words: "1 day" };
/// The course tool's opening window (`soak analyze --course-window`).
pub const COURSE_WINDOW: Bound =
    Bound { what: "the course tool's opening window", max_s: 86_400.0, max_words: "1 day" };

/// A checked duration: finite, within its [`Bound`], as the seconds typed
/// and as a [`Duration`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seconds {
    seconds: f64,
    duration: Duration,
}

impl Seconds {
    /// The seconds, exactly as given (a protocol compares them as typed).
    pub fn get(self) -> f64 {
        self.seconds
    }

    /// The same as a [`Duration`].
    pub fn duration(self) -> Duration {
        self.duration
    }
}

/// A duration outside its option's range, or not a number at all.
#[derive(Debug, Clone, PartialEq)]
pub struct DurationError {
    /// The option's range.
    pub bound: Bound,
    /// What was given, cut to a readable length.
    pub given: String,
    /// It was given in milliseconds (a window's field), and the message
    /// names them.
    pub millis: bool,
}

impl std::fmt::Display for DurationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Bound { what, max_s, max_words } = self.bound;
        let given = &self.given;
        if self.millis {
            let (least, most) =
                (crate::stats::format_plain(MIN_SECONDS * 1e3), crate::stats::format_plain(max_s * 1e3));
            write!(f, "{what} is a number of milliseconds from {least} to {most} ({max_words}); '{given}' is not")
        } else {
            write!(f, "{what} is a number of seconds from {MIN_SECONDS} to {max_s} ({max_words}); '{given}' is not")
        }
    }
}

impl std::error::Error for DurationError {}

/// How much of a rejected value the message quotes.
const QUOTED_CHARS: usize = 40;

impl Bound {
    /// Reads `text` (surrounding spaces ignored) as a number of seconds
    /// within this range.
    pub fn parse(&self, text: &str) -> Result<Seconds, DurationError> {
        let given = text.trim();
        match given.parse::<f64>() {
            Ok(seconds) => self.check(seconds).map_err(|_| self.error(given)),
            Err(_) => Err(self.error(given)),
        }
    }

    /// Checks a number of seconds already read (a dialog's field, a
    /// protocol from a file).
    pub fn check(&self, seconds: f64) -> Result<Seconds, DurationError> {
        let within = (MIN_SECONDS..=self.max_s).contains(&seconds);
        match Duration::try_from_secs_f64(seconds) {
            Ok(duration) if within => Ok(Seconds { seconds, duration }),
            _ => Err(self.error(&seconds.to_string())),
        }
    }

    /// Reads milliseconds as a window's field shows them (a trial's
    /// budget, `16.7`), by this range: the seconds are the milliseconds'
    /// value written as a person reads it (`33.3` is 0.0333 s, not
    /// 0.033299999999999996), and the message names milliseconds and quotes
    /// what was typed.
    pub fn parse_millis(&self, typed: &str) -> Result<Seconds, DurationError> {
        let given = typed.trim();
        let refused = || DurationError { millis: true, ..self.error(given) };
        let ms = given.parse::<f64>().map_err(|_| refused())?;
        let seconds = crate::stats::format_plain(ms / 1e3).parse::<f64>().map_err(|_| refused())?;
        self.check(seconds).map_err(|_| refused())
    }

    fn error(&self, given: &str) -> DurationError {
        let mut quoted: String = given.chars().take(QUOTED_CHARS).collect();
        if given.chars().nth(QUOTED_CHARS).is_some() {
            quoted.push('…');
        }
        DurationError { bound: *self, given: quoted, millis: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    // SPEC S19: a budget typed in milliseconds is kept as the seconds a
    // person reads (33.3 ms is 0.0333 s exactly as written), and a refusal
    // quotes the milliseconds typed.
    #[test]
    fn milliseconds_are_read_as_typed() {
        assert_eq!(BUDGET.parse_millis(" 33.3 ").map(Seconds::get), Ok(0.0333));
        assert_eq!(BUDGET.parse_millis("16.7").map(Seconds::get), Ok(0.0167));
        assert_eq!(BUDGET.parse_millis("1").map(Seconds::get), Ok(0.001));
        for typed in ["0.5", "-3", "NaN", "inf", "1e300", "fast", ""] {
            let why = BUDGET.parse_millis(typed).expect_err(typed).to_string();
            assert_eq!(
                why,
                format!("a trial's budget is a number of milliseconds from 1 to 86400000 (1 day); '{typed}' is not")
            );
        }
    }

    const ALL: [Bound; 7] =
        [TIMEOUT, COOLDOWN, SOAK_DURATION, SOAK_INTERVAL, SOAK_OPENING_WINDOW, SOAK_TAIL_WINDOW, COURSE_WINDOW];

    // SPEC C: bad input is refused with the allowed range, never a panic
    // (issue 31, finding 7: 1e300 panicked in Duration::from_secs_f64).
    #[test]
    fn bad_durations_are_refused_with_the_range() {
        for bad in
            ["", "  ", "abc", "-1", "0", "-0", "NaN", "inf", "-inf", "infinity", "1e300", "86400.5", "1s", "0.0009"]
        {
            let error = TIMEOUT.parse(bad).expect_err(bad);
            let text = error.to_string();
            assert!(text.contains("from 0.001 to 86400 (1 day)"), "{text}");
            assert!(text.starts_with("a trial's timeout is a number of seconds"), "{text}");
        }
        assert!(COOLDOWN.parse("3600.01").is_err());
        assert!(SOAK_INTERVAL.check(f64::MAX).is_err());
        assert!(SOAK_DURATION.check(f64::MIN_POSITIVE).is_err());
    }

    // SPEC C: what is in range reads as typed, both as seconds and as a Duration.
    #[test]
    fn good_durations_read_as_typed() {
        let t = TIMEOUT.parse(" 1.5 ").expect("in range");
        assert_eq!(t.get(), 1.5);
        assert_eq!(t.duration(), Duration::from_millis(1500));
        assert_eq!(TIMEOUT.parse("86400").expect("the bound itself").duration(), Duration::from_secs(86_400));
        assert_eq!(SOAK_INTERVAL.parse("0.001").expect("the minimum").duration(), Duration::from_millis(1));
        assert_eq!(COOLDOWN.parse("1e1").expect("exponent").get(), 10.0);
    }

    // SPEC C: a long rejected value is quoted cut, so the message stays a line.
    #[test]
    fn a_long_value_is_quoted_cut() {
        let long = "9".repeat(500);
        let text = COURSE_WINDOW.parse(&long).expect_err("too long").to_string();
        assert!(text.contains(&format!("'{}…'", "9".repeat(40))), "{text}");
    }

    proptest! {
        // SPEC C: any text at all is either a duration within the bound or
        // an error naming the range — never a panic.
        #[test]
        fn any_text_is_a_duration_in_range_or_an_error(text in ".{0,40}", pick in 0usize..7) {
            let bound = ALL[pick];
            match bound.parse(&text) {
                Ok(s) => {
                    prop_assert!(s.get() >= MIN_SECONDS && s.get() <= bound.max_s);
                    prop_assert!(s.duration() >= Duration::from_millis(1));
                }
                Err(e) => prop_assert!(e.to_string().contains(bound.max_words)),
            }
        }

        // SPEC C: any number, including the extremes of f64, is checked without a panic.
        #[test]
        fn any_number_is_checked(seconds in proptest::num::f64::ANY, pick in 0usize..7) {
            let bound = ALL[pick];
            let checked = bound.check(seconds);
            prop_assert_eq!(checked.is_ok(), (MIN_SECONDS..=bound.max_s).contains(&seconds));
            let text = bound.parse(&seconds.to_string());
            prop_assert_eq!(text.is_ok(), checked.is_ok());
        }
    }
}
