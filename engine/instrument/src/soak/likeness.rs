//! Whether two soaks may be compared at all (SPEC T13): a sustained rate
//! depends on the room, where the machine stood, what powered it and how
//! warm it started, so two soaks say something about each other only when
//! their files state those alike — "the same ambient, the same physical
//! position, the same power source, a full cool-down between them". What
//! the files do not state cannot be assumed alike.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::file::SoakData;

/// The comment a soak file states its start in (UTC, RFC 3339), written by
/// the runner so the gap between two soaks can be known.
pub const STARTED_FACT: &str = "started";

/// One reason two soaks are not compared like with like.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Unlike {
    /// Both state a condition, differently.
    Differs {
        /// What differs: ambient, physical setup, power source.
        condition: &'static str,
        /// A's words.
        a: String,
        /// B's words.
        b: String,
    },
    /// A condition one or both files do not state.
    NotStated {
        /// The condition.
        condition: &'static str,
        /// Which file: "A", "B" or "A or B".
        files: &'static str,
    },
    /// The second soak started before the first had ended.
    Overlap {
        /// Seconds of overlap.
        seconds: i64,
    },
    /// The second soak states a pre-run idle longer than the gap its start
    /// and the first soak's end leave: both cannot be true.
    IdleLongerThanGap {
        /// Which file started second.
        second: &'static str,
        /// Its stated idle.
        idle: String,
        /// Minutes between the first soak's end and its start.
        gap_min: i64,
    },
}

impl std::fmt::Display for Unlike {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unlike::Differs { condition, a, b } => write!(f, "{condition} differs (A: {a}; B: {b})"),
            Unlike::NotStated { condition, files } => write!(f, "{condition} not stated in {files}"),
            Unlike::Overlap { seconds } => write!(f, "the second soak started {seconds} s before the first ended"),
            Unlike::IdleLongerThanGap { second, idle, gap_min } => write!(
                f,
                "{second} states a pre-run idle of {idle}, but it started {gap_min} min after the other soak ended"
            ),
        }
    }
}

/// What decides a comparison the files leave open, said once after the reasons.
pub const WHAT_WOULD_DECIDE: &str = "state the ambient, the physical setup and the power source alike in both \
     notebooks' Environment, and a pre-run idle (a cool-down) before each soak, then run them again";

/// Every reason `a` and `b` are not compared like with like; empty when
/// they are (T13).
pub fn unlike(a: &SoakData, b: &SoakData) -> Vec<Unlike> {
    let mut reasons = Vec::new();
    for (condition, keys) in [
        ("ambient", &["ambient"][..]),
        ("physical setup", &["physical setup"][..]),
        // What the student stated wins over the sensor's reading, as on the chart.
        ("power source", &["power source (as stated in the notebook)", "power source"][..]),
    ] {
        match (stated(a, keys), stated(b, keys)) {
            (Some(x), Some(y)) if same(&x, &y) => {}
            (Some(x), Some(y)) => reasons.push(Unlike::Differs { condition, a: x, b: y }),
            (None, Some(_)) => reasons.push(Unlike::NotStated { condition, files: "A" }),
            (Some(_), None) => reasons.push(Unlike::NotStated { condition, files: "B" }),
            (None, None) => reasons.push(Unlike::NotStated { condition, files: "A or B" }),
        }
    }
    let idle = |d: &SoakData| stated(d, &["pre-run idle"]).filter(|i| !no_idle(i));
    match (started(a), started(b)) {
        (Some(start_a), Some(start_b)) => {
            // The later start is the second soak; its idle is the cool-down.
            let (first, first_start, second, second_start, name) =
                if start_a <= start_b { (a, start_a, b, start_b, "B") } else { (b, start_b, a, start_a, "A") };
            let first_end = first_start + chrono::Duration::milliseconds((last_t(first) * 1000.0) as i64);
            let gap = second_start - first_end;
            if gap.num_seconds() < 0 {
                reasons.push(Unlike::Overlap { seconds: -gap.num_seconds() });
            } else {
                match idle(second) {
                    None => reasons.push(Unlike::NotStated { condition: "a cool-down (pre-run idle)", files: name }),
                    Some(stated) if idle_minutes(&stated).is_some_and(|m| m > gap.num_minutes() as f64 + 0.5) => {
                        reasons.push(Unlike::IdleLongerThanGap {
                            second: name,
                            idle: stated,
                            gap_min: gap.num_minutes(),
                        });
                    }
                    Some(_) => {}
                }
            }
        }
        // Which ran second is not known: each needs its cool-down.
        _ => match (idle(a), idle(b)) {
            (Some(_), Some(_)) => {}
            (None, Some(_)) => reasons.push(Unlike::NotStated { condition: "a cool-down (pre-run idle)", files: "A" }),
            (Some(_), None) => reasons.push(Unlike::NotStated { condition: "a cool-down (pre-run idle)", files: "B" }),
            (None, None) => {
                reasons.push(Unlike::NotStated { condition: "a cool-down (pre-run idle)", files: "A or B" });
            }
        },
    }
    reasons
}

/// The first of `keys` the file states, as written; a value that states
/// nothing ("not stated", "unknown …", "not available") is no statement.
/// Inert, as every face shows a file's text (N10): a hostile comment's
/// control characters are shown, never acted on.
fn stated(data: &SoakData, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| {
        data.facts()
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(key))
            .map(|(_, v)| vernier_model::display::inert_line(v.trim().to_owned()))
            .filter(|v| !says_nothing(v))
    })
}

/// A value that states nothing about the condition.
fn says_nothing(value: &str) -> bool {
    let v = value.trim().to_lowercase();
    v.is_empty() || ["not stated", "unknown", "not available", "n/a", "none stated"].iter().any(|p| v.starts_with(p))
}

/// Two statements of one condition, alike: the same words, case and
/// spacing aside.
fn same(a: &str, b: &str) -> bool {
    let words = |s: &str| s.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>();
    words(a) == words(b)
}

/// A stated idle of none ("0", "0 min", "no idle", "none").
fn no_idle(stated: &str) -> bool {
    let v = stated.trim().to_lowercase();
    v.starts_with("no ") || v == "none" || idle_minutes(&v) == Some(0.0)
}

/// A stated idle in minutes, where it reads as a number with a unit of
/// seconds, minutes or hours ("10 min", "90 s", "1 h"); `None` otherwise.
fn idle_minutes(stated: &str) -> Option<f64> {
    let mut words = stated.split_whitespace().filter(|w| !w.eq_ignore_ascii_case("idle"));
    let number: f64 = words.next()?.parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
    let unit = words.next().unwrap_or("min").to_lowercase();
    match unit.trim_end_matches('.') {
        "s" | "sec" | "secs" | "second" | "seconds" => Some(number / 60.0),
        "m" | "min" | "mins" | "minute" | "minutes" => Some(number),
        "h" | "hr" | "hour" | "hours" => Some(number * 60.0),
        _ => None,
    }
}

/// When the file says its soak started.
fn started(data: &SoakData) -> Option<DateTime<Utc>> {
    data.facts()
        .find(|(k, _)| k.trim() == STARTED_FACT)
        .and_then(|(_, v)| DateTime::parse_from_rfc3339(v.trim()).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// The file's last sample time, seconds after its start.
fn last_t(data: &SoakData) -> f64 {
    data.t.last().copied().filter(|t| t.is_finite()).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn soak(comments: &[&str], end_s: f64) -> SoakData {
        SoakData {
            t: vec![end_s / 2.0, end_s],
            comments: comments.iter().map(|c| (*c).to_owned()).collect(),
            ..SoakData::default()
        }
    }

    const ALIKE: [&str; 4] =
        ["ambient: 22 C", "physical setup: hard desk, lid open", "power source: mains", "pre-run idle: 10 min"];

    // SPEC T13: two soaks stating the same ambient, setup and power, each
    // after a cool-down, are compared; case and spacing do not differ.
    #[test]
    fn soaks_stated_alike_are_compared() {
        let b = ["ambient: 22  c", "physical setup: Hard desk, lid open", "power source: mains", "pre-run idle: 5 min"];
        assert_eq!(unlike(&soak(&ALIKE, 600.0), &soak(&b, 600.0)), []);
    }

    // SPEC T13: a different ambient, an unstated position and a sensor's
    // "not available" make no comparison; each is named.
    #[test]
    fn unlike_or_unstated_conditions_are_each_named() {
        let b = ["ambient: 30 C", "power source: not available", "pre-run idle: 10 min"];
        let reasons = unlike(&soak(&ALIKE, 600.0), &soak(&b, 600.0));
        assert_eq!(
            reasons,
            [
                Unlike::Differs { condition: "ambient", a: "22 C".into(), b: "30 C".into() },
                Unlike::NotStated { condition: "physical setup", files: "B" },
                Unlike::NotStated { condition: "power source", files: "B" },
            ]
        );
        assert_eq!(reasons[0].to_string(), "ambient differs (A: 22 C; B: 30 C)");
    }

    // SPEC T13: the power the student stated wins over the sensor's reading.
    #[test]
    fn the_stated_power_source_is_the_one_compared() {
        let with = |sensor: &str| {
            let mut c = ALIKE.to_vec();
            c.retain(|l| !l.starts_with("power source"));
            let sensor = format!("power source: {sensor}");
            let mut c: Vec<String> = c.into_iter().map(str::to_owned).collect();
            c.push(sensor);
            c.push("power source (as stated in the notebook): mains".into());
            c
        };
        let (a, b) = (with("not available"), with("battery"));
        let data = |c: &[String]| soak(&c.iter().map(String::as_str).collect::<Vec<_>>(), 600.0);
        assert_eq!(unlike(&data(&a), &data(&b)), []);
    }

    // SPEC T13: with both starts known, the second soak's idle is its
    // cool-down; an overlap, a missing idle, or an idle longer than the gap
    // makes no comparison.
    #[test]
    fn the_cool_down_is_the_second_soak_s_and_fits_the_gap() {
        let at = |start: &str, idle: &str| {
            let mut c = ALIKE[..3].to_vec();
            let started = format!("started: {start}");
            let idle = format!("pre-run idle: {idle}");
            let mut c: Vec<String> = c.drain(..).map(str::to_owned).collect();
            c.extend([started, idle]);
            soak(&c.iter().map(String::as_str).collect::<Vec<_>>(), 600.0)
        };
        // A ran 10:00–10:10; B started 10:25 after 10 min idle: fine.
        let a = at("2026-12-06T10:00:00Z", "0");
        assert_eq!(unlike(&a, &at("2026-12-06T10:25:00Z", "10 min")), []);
        // B states 30 min of idle in a 15 min gap.
        assert_eq!(
            unlike(&a, &at("2026-12-06T10:25:00Z", "30 min")),
            [Unlike::IdleLongerThanGap { second: "B", idle: "30 min".into(), gap_min: 15 }]
        );
        // B states no idle.
        assert_eq!(
            unlike(&a, &at("2026-12-06T10:25:00Z", "no idle")),
            [Unlike::NotStated { condition: "a cool-down (pre-run idle)", files: "B" }]
        );
        // B started while A still ran; the order of the arguments does not matter.
        assert_eq!(unlike(&at("2026-12-06T10:05:00Z", "10 min"), &a), [Unlike::Overlap { seconds: 300 }]);
    }

    // SPEC N10, T13: a file's words in a reason are inert.
    #[test]
    fn a_hostile_value_is_shown_inert() {
        let b = [
            "ambient: 22 C\u{1b}[2J\u{202e}",
            "physical setup: hard desk, lid open",
            "power source: mains",
            "pre-run idle: 10 min",
        ];
        let reasons = unlike(&soak(&ALIKE, 600.0), &soak(&b, 600.0));
        let text = reasons[0].to_string();
        assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}'), "{text:?}");
    }

    // SPEC T13: a stated idle reads in seconds, minutes or hours.
    #[test]
    fn an_idle_reads_in_its_unit() {
        assert_eq!(idle_minutes("90 s"), Some(1.5));
        assert_eq!(idle_minutes("idle 10 min"), Some(10.0));
        assert_eq!(idle_minutes("1 h"), Some(60.0));
        assert_eq!(idle_minutes("a while"), None);
        assert!(no_idle("0 min") && no_idle("no idle") && !no_idle("10 min"));
    }
}
