//! The six numbers of a soak (SPEC T5), the course tool's view (T6), the
//! honesty line (T7), the negative result (T8) and comparing two soaks (T9).

use serde::Serialize;

use super::file::SoakData;
use vernier_model::notebook::{
    Condition, ConditionName, Conditions as _, MAX_OPENING_SHARE, MAX_TAIL_SHARE, SoakNumbers, SoakProtocol,
};
use vernier_model::stats::{Summary, format_plain, format_significant, percentile_sorted};

/// Opening window of the course's own analysis tool (T6).
pub const COURSE_WINDOW_S: f64 = 60.0;

/// The thresholds an analysis used (T1 defaults unless changed).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Thresholds {
    /// Opening window for P, seconds.
    pub opening_s: f64,
    /// Tail window for S, seconds.
    pub tail_s: f64,
    /// Onset threshold as a fraction of P.
    pub threshold: f64,
    /// Consecutive samples for onset and stability.
    pub hold: u32,
    /// Stability band around S.
    pub band: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self::from(&SoakProtocol::default())
    }
}

/// The `#` fact a soak file written by Vernier keeps its analysis in
/// (T5): the windows and thresholds its row's six numbers come from, so
/// `soak analyze FILE` gives the row's numbers.
pub const ANALYSIS_FACT: &str = "analysis";

impl Thresholds {
    /// The fact's value: `opening 30 s, tail 300 s, threshold 0.95, hold 3, band 0.03`.
    pub fn fact(&self) -> String {
        let Self { opening_s, tail_s, threshold, hold, band } = self;
        format!("opening {opening_s} s, tail {tail_s} s, threshold {threshold}, hold {hold}, band {band}")
    }

    /// The thresholds `data` states in its [`ANALYSIS_FACT`] line: `None`
    /// for a file without one (not Vernier's, or older), and why not for a
    /// line that does not read (the file may be someone else's).
    pub fn stated_in(data: &SoakData) -> Result<Option<Self>, AnalysisLineError> {
        let Some((_, value)) = data.facts().find(|(k, _)| k.trim() == ANALYSIS_FACT) else { return Ok(None) };
        let mut th = Self::default();
        let mut seen = [false; 5];
        // The file's words go into the error inert: every face shows it (N10).
        let shown = |text: &str| vernier_model::display::inert_line(text.to_owned());
        for part in value.split(',') {
            let part = part.trim();
            let words: Vec<&str> = part.split_whitespace().collect();
            let (name, number, unit) = match words.as_slice() {
                [name, number] => (*name, *number, None),
                [name, number, unit] => (*name, *number, Some(*unit)),
                _ => return Err(AnalysisLineError::NotAsWritten(shown(part))),
            };
            let (k, seconds) = match name {
                "opening" => (0, true),
                "tail" => (1, true),
                "threshold" => (2, false),
                "hold" => (3, false),
                "band" => (4, false),
                other => return Err(AnalysisLineError::UnknownName(shown(other))),
            };
            if seconds != (unit == Some("s")) || seen[k] {
                return Err(AnalysisLineError::NotAsWritten(shown(part)));
            }
            seen[k] = true;
            let bad = || AnalysisLineError::NotPositive { name: shown(name), value: shown(number) };
            let float = || number.parse::<f64>().ok().filter(|v| v.is_finite() && *v > 0.0).ok_or_else(bad);
            match k {
                0 => th.opening_s = float()?,
                1 => th.tail_s = float()?,
                2 => th.threshold = float()?,
                3 => th.hold = number.parse().ok().filter(|h| *h > 0).ok_or_else(bad)?,
                _ => th.band = float()?,
            }
        }
        if seen.contains(&false) {
            return Err(AnalysisLineError::Incomplete);
        }
        Ok(Some(th))
    }
}

/// Why a soak file's `# analysis:` line does not read (the file may be
/// someone else's); each says what was found, shown inert by the faces.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisLineError {
    /// A part that is not `name number` or `name number s` as Vernier writes it, or a name given twice.
    #[error("“{0}” is not as Vernier writes it")]
    NotAsWritten(String),
    /// A name that is not one of the five.
    #[error("“{0}” is not one of opening, tail, threshold, hold, band")]
    UnknownName(String),
    /// A value that is not a positive number.
    #[error("“{value}” is not a positive number for {name}")]
    NotPositive {
        /// The name.
        name: String,
        /// What was written.
        value: String,
    },
    /// Not all five named.
    #[error("it does not name all of opening, tail, threshold, hold and band")]
    Incomplete,
}

impl Thresholds {
    /// `base` analysed with these windows and thresholds instead of its own.
    pub fn on(self, base: SoakProtocol) -> SoakProtocol {
        let Self { opening_s, tail_s, threshold, hold, band } = self;
        SoakProtocol { opening_window_s: opening_s, tail_window_s: tail_s, threshold, hold, band, ..base }
    }
}

impl From<&SoakProtocol> for Thresholds {
    fn from(p: &SoakProtocol) -> Self {
        Self {
            opening_s: p.opening_window_s,
            tail_s: p.tail_window_s,
            threshold: p.threshold,
            hold: p.hold,
            band: p.band,
        }
    }
}

/// Why a soak cannot be analysed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnalysisError {
    /// No sample falls in the opening window.
    #[error("no sample falls in the first {0} s (the opening window); the run is too short or starts late")]
    NoOpening(f64),
    /// The score never moved off zero in the opening window.
    #[error("the score over the opening window is zero; there is nothing to compare the rest with")]
    ZeroPeak,
    /// Thresholds out of range.
    #[error("{0}")]
    Invalid(String),
}

/// The six numbers, always together (T5), with how they were obtained.
/// It reads as its [`SoakNumbers`] (`analysis.peak`): t_onset is the first
/// of `hold` consecutive samples below threshold × P, t_stable the first
/// sample at or after onset that starts `hold` samples within ±band of S.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// The six numbers, in [`SCORE_UNIT`](super::SCORE_UNIT), as a Soak
    /// runs row stores them.
    #[serde(flatten)]
    pub numbers: SoakNumbers,
    /// Tail IQR / S.
    pub tail_iqr_fraction: f64,
    /// The thresholds used.
    pub thresholds: Thresholds,
    /// Samples in the opening window.
    pub opening_samples: usize,
    /// Samples in the tail window.
    pub tail_samples: usize,
    /// Length of the run, seconds (last sample's time).
    pub duration_s: f64,
    /// Set when the file is too short for its windows (SPEC T11): P and S
    /// then overlap and S takes in the burst, which every face says.
    pub windows_warning: Option<String>,
    /// Set when the opening window holds the start-up ramp (T5, S17): its
    /// first sample lies below P by more than the window's IQR, so P is
    /// understated and S/P overstated. Every face says it.
    pub ramp_warning: Option<String>,
}

impl std::ops::Deref for Analysis {
    type Target = SoakNumbers;

    fn deref(&self) -> &SoakNumbers {
        &self.numbers
    }
}

/// Analyses the score column (T5).
pub fn analyze(data: &SoakData, th: &Thresholds) -> Result<Analysis, AnalysisError> {
    if !(th.opening_s > 0.0
        && th.tail_s > 0.0
        && th.threshold > 0.0
        && th.threshold <= 1.0
        && th.hold >= 1
        && th.band >= 0.0)
    {
        return Err(AnalysisError::Invalid(format!(
            "thresholds out of range: windows must be positive, threshold in (0, 1], hold at least 1, band not negative ({th:?})"
        )));
    }
    // A sample is the score over the span since the one before it (since 0
    // for the first), and belongs to the opening window when that span's
    // middle does: a sample taken a moment after the window's end (a loaded
    // machine wakes late) still measured the window.
    let opening: Vec<f64> = (0..data.len())
        .filter(|&i| {
            let from = if i == 0 { 0.0 } else { data.t[i - 1] };
            (from + data.t[i]) / 2.0 <= th.opening_s
        })
        .map(|i| data.score[i])
        .collect();
    let peak = median(&opening).ok_or(AnalysisError::NoOpening(th.opening_s))?;
    if peak == 0.0 {
        return Err(AnalysisError::ZeroPeak);
    }
    let end = data.t.last().copied().unwrap_or(0.0);
    let tail: Vec<f64> =
        data.t.iter().zip(&data.score).filter(|(t, _)| **t > end - th.tail_s).map(|(_, s)| *s).collect();
    let tail_summary =
        Summary::of(&tail).map_err(|_| AnalysisError::Invalid("the tail window holds no samples".into()))?;
    let sustained = tail_summary.median;
    let hold = th.hold as usize;
    let below = |i: usize| data.score[i] < th.threshold * peak;
    let onset_index = first_run(data.len(), hold, below);
    let within = |i: usize| (data.score[i] - sustained).abs() <= th.band * sustained.abs();
    let stable_index =
        onset_index.and_then(|o| first_run(data.len(), hold, |i| i >= o && within(i)).filter(|&s| s >= o));
    let numbers = SoakNumbers {
        peak,
        t_onset: onset_index.map(|i| data.t[i]),
        t_stable: stable_index.map(|i| data.t[i]),
        sustained,
        ratio: sustained / peak,
        tail_iqr: tail_summary.iqr,
        unit: super::SCORE_UNIT.to_owned(),
    };
    let windows_warning = too_short_for(th, end).then(|| {
        format!(
            "the file covers {end} s, too short for its windows (opening {} s, tail {} s; the opening may take at most \
             a tenth and the tail at most half): P and S overlap, so S takes in the burst and the knee",
            th.opening_s, th.tail_s
        )
    });
    let ramp_warning = ramp(&opening, &data.t, peak);
    Ok(Analysis {
        ramp_warning,
        windows_warning,
        numbers,
        tail_iqr_fraction: if sustained == 0.0 { f64::NAN } else { tail_summary.iqr / sustained },
        thresholds: *th,
        opening_samples: opening.len(),
        tail_samples: tail.len(),
        duration_s: end,
    })
}

/// Why the opening window's samples `opening` (the first of `t`) hold the
/// start-up ramp, if they do: the first lies below their median `peak` by
/// more than their IQR.
fn ramp(opening: &[f64], t: &[f64], peak: f64) -> Option<String> {
    let summary = Summary::of(opening).ok()?;
    let (&first, &at) = opening.first().zip(t.first())?;
    (opening.len() >= 3 && peak - first > summary.iqr).then(|| {
        format!(
            "the opening window catches the start-up ramp: its first sample ({} {unit} at t = {} s) lies below P ({} \
             {unit}) by more than the window's IQR ({} {unit}), so P is understated and S/P overstated; a later or \
             longer opening window leaves the ramp out",
            format_significant(first, 3),
            format_plain(at),
            format_significant(peak, 3),
            format_significant(summary.iqr, 2),
            unit = super::SCORE_UNIT,
        )
    })
}

/// Index of the first sample that starts `hold` consecutive samples for
/// which `ok` holds.
fn first_run(len: usize, hold: usize, ok: impl Fn(usize) -> bool) -> Option<usize> {
    let mut run = 0;
    for i in 0..len {
        if ok(i) {
            run += 1;
            if run == hold {
                return Some(i + 1 - hold);
            }
        } else {
            run = 0;
        }
    }
    None
}

fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    (!sorted.is_empty()).then(|| percentile_sorted(&sorted, 0.5))
}

/// The course analysis tool's view of the same file (T6): its own opening
/// window, onset from the clock column, score summarised with a mean.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CourseView {
    /// Its opening window, seconds (60 unless changed).
    pub window_s: f64,
    /// First row whose clock is below the run's peak clock, read literally
    /// as the course tool does: from the first row, not after the peak (a
    /// clock ramping up to its peak has its onset at the start); `None`
    /// when the clock never left its peak (a constant column: no clock data).
    pub clock_onset: Option<f64>,
    /// Mean score over its opening window.
    pub burst_mean_score: f64,
    /// Mean score over the tail window.
    pub tail_mean_score: f64,
    /// Set when its opening window already holds throttled samples.
    pub warning: Option<String>,
}

/// Computes the course tool's view. Its warning says no more than the
/// sensors saw (T12): samples after a fall in score are "throttled" only
/// where a real clock or temperature was read on a host of its own.
pub fn course_view(data: &SoakData, window_s: f64, tail_s: f64, score_onset: Option<f64>, sight: Sight) -> CourseView {
    let peak_clock = data.clock.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let clock_onset = (0..data.len()).find(|&i| data.clock[i] < peak_clock).map(|i| data.t[i]);
    let mean = |keep: &dyn Fn(f64) -> bool| {
        let picked: Vec<f64> = data.t.iter().zip(&data.score).filter(|(t, _)| keep(**t)).map(|(_, s)| *s).collect();
        if picked.is_empty() { f64::NAN } else { picked.iter().sum::<f64>() / picked.len() as f64 }
    };
    let end = data.t.last().copied().unwrap_or(0.0);
    let throttled_inside = [clock_onset, score_onset].into_iter().flatten().filter(|&t| t <= window_s).reduce(f64::min);
    CourseView {
        window_s,
        clock_onset,
        burst_mean_score: mean(&|t| t <= window_s),
        tail_mean_score: mean(&|t| t > end - tail_s),
        warning: throttled_inside.map(|t| {
            let held = match unseen_cause(sight) {
                None => format!("throttled samples (from t = {t} s)"),
                Some(why) => {
                    format!("samples after the score fell (from t = {t} s; its cause was not observed: {why})")
                }
            };
            format!(
                "its {window_s} s opening window already holds {held}, so its peak is understated; use a shorter window"
            )
        }),
    }
}

/// The honesty line (T7): what a short benchmark would have claimed
/// against what the whole run delivered.
pub fn honesty_line(a: &Analysis, unit: &str) -> String {
    let p = format_significant(a.peak, 3);
    let s = format_significant(a.sustained, 3);
    // The true ratio's percentage, whole percents from 10 % (S17): 1.012
    // is 101 %, never "100 %"; 1.071 is 107 %, never "110 %".
    let percent = 100.0 * a.ratio;
    let pct = vernier_model::stats::format_at(percent, if percent.abs() >= 10.0 { 0 } else { 1 });
    let line = format!(
        "A {}-second benchmark would have claimed {p} {unit}; over the whole {} s the machine delivered {s} {unit}, {pct}% of that.",
        a.thresholds.opening_s, a.duration_s
    );
    match &a.windows_warning {
        Some(warning) => format!("{line} But {warning}."),
        None => line,
    }
}

/// What a soak's sensors could see (SPEC T12): whether the host is shared,
/// and whether a real clock or temperature was read, so a fall in score
/// could be traced to its cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sight {
    /// The host is shared (T8): a neighbour's load cannot be seen.
    pub shared: bool,
    /// A clock or a temperature column holds observations.
    pub cause_observed: bool,
}

impl Sight {
    /// From the file's or the row's facts and the columns that hold no
    /// observation (placeholders, a nominal clock).
    pub fn of<'a>(facts: impl IntoIterator<Item = (&'a str, &'a str)>, unobserved: &[String]) -> Self {
        let seen = |column: &str| !unobserved.iter().any(|u| u.trim() == column);
        Sight {
            shared: shared_host(facts),
            cause_observed: seen("clock_mhz") || seen("soc_temp_c") || seen("skin_temp_c"),
        }
    }

    /// A file's sight.
    pub fn of_file(data: &SoakData) -> Self {
        Self::of(data.facts(), &data.unobserved())
    }

    /// A recorded soak's sight, from its conditions: the machine's facts
    /// and the `placeholders` it named.
    pub fn of_conditions(conditions: &[Condition]) -> Self {
        let unobserved: Vec<String> = conditions
            .value_of(ConditionName::Placeholders)
            .map(|p| p.split(',').map(|c| c.trim().to_owned()).collect())
            .unwrap_or_default();
        Self::of(conditions.iter().map(|c| (c.field.as_str(), c.value.as_str())), &unobserved)
    }
}

/// The finding sentence a soak's numbers support (T8, T12), or `None`: no
/// onset is a negative result; an onset the sensors cannot explain is a
/// fall whose cause was not observed, never throttling; an onset on a
/// machine whose clock or temperature was read, on a host of its own, is
/// said by the six numbers alone. A file too short for its windows gives
/// no finding (its warning says why).
pub fn finding(a: &Analysis, sight: Sight) -> Option<String> {
    recorded_finding(&a.numbers, &a.thresholds, a.duration_s, sight)
}

/// [`finding`] of a recorded soak, from what its row keeps — its six
/// numbers and its protocol's thresholds — and how long it ran: the report
/// says of the row what `soak analyze` says of its file (S17).
pub fn recorded_finding(numbers: &SoakNumbers, th: &Thresholds, duration_s: f64, sight: Sight) -> Option<String> {
    if too_short_for(th, duration_s) {
        return None;
    }
    match numbers.t_onset {
        None => Some(no_onset(th, duration_s, sight.shared)),
        Some(t) => fall_not_explained(t, sight),
    }
}

/// SPEC T11: a run of `end` seconds is too short for `th`'s windows.
fn too_short_for(th: &Thresholds, end: f64) -> bool {
    th.opening_s > end * MAX_OPENING_SHARE || th.tail_s > end * MAX_TAIL_SHARE
}

/// An onset at `t` seconds said as a fall in score whose cause was not
/// observed, when the sensors could not see one (T12); `None` otherwise.
pub fn fall_not_explained(t: f64, sight: Sight) -> Option<String> {
    let why = unseen_cause(sight)?;
    let mut text = format!(
        "The score fell at t = {} s (t_onset) and its cause was not observed: {why}. It is reported as a fall in \
         score, not as throttling; a machine with a readable clock or temperature, alone on its host, would show \
         the cause.",
        format_plain(t)
    );
    if sight.shared {
        text.push(' ');
        text.push_str(SHARED_HOST);
    }
    Some(text)
}

/// Why a fall in score could not be traced to its cause (T12), or `None`
/// when a real clock or temperature was read on a host of its own.
fn unseen_cause(sight: Sight) -> Option<&'static str> {
    match (sight.cause_observed, sight.shared) {
        (true, false) => None,
        (false, false) => Some("no real clock or temperature was read"),
        (true, true) => Some("the host is shared"),
        (false, true) => Some("no real clock or temperature was read, and the host is shared"),
    }
}

/// The negative-result wording (T8), when no onset was observed; on a
/// shared host it carries the sentence the course calls not optional.
pub fn negative_result(a: &Analysis, shared: bool) -> Option<String> {
    a.t_onset.is_none().then(|| no_onset(&a.thresholds, a.duration_s, shared))
}

/// The negative result of a soak of `duration_s` seconds analysed with `th`.
fn no_onset(th: &Thresholds, duration_s: f64, shared: bool) -> String {
    let mut text = format!(
        "No onset observed under the stated threshold ({} of P, held {} samples) within the stated window ({duration_s} s). \
         Either the machine has cooling headroom at this load, or the load is too light to reach its limit: \
         raise the workers or the chunk, or run longer, to tell which.",
        th.threshold, th.hold
    );
    if shared {
        text.push(' ');
        text.push_str(SHARED_HOST);
    }
    text
}

/// C.9.7's sentence for a shared host, in Vernier's words.
pub const SHARED_HOST: &str = "This ran on a shared host: throttling of its own cannot be told apart from a \
     neighbour's load, because the neighbour cannot be seen.";

/// SPEC T8: the facts (`field`, `value`) say the host is shared — a
/// hypervisor, a `shared host: yes`, or a Workbench stated as shared.
pub fn shared_host<'a>(facts: impl IntoIterator<Item = (&'a str, &'a str)>) -> bool {
    facts.into_iter().any(|(field, value)| {
        let (field, value) = (field.trim().to_ascii_lowercase(), value.trim().to_ascii_lowercase());
        match field.as_str() {
            "hypervisor" | "shared host" => value.starts_with("yes"),
            "workbench" => value.contains("shared") && !value.contains("not shared"),
            _ => false,
        }
    })
}

/// Two soaks compared number by number (T9, T11).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SoakComparison {
    /// One line per number: P, the knee, S, then S/P.
    pub lines: Vec<String>,
    /// True when the sustained rates differ by more than the larger tail
    /// IQR: for two runs of one configuration, the day drifted.
    pub disagree: bool,
}

/// Compares B against A.
pub fn compare(a: &Analysis, b: &Analysis, unit: &str) -> SoakComparison {
    let sig = |v: f64| format_significant(v, 3);
    let rel = |x: f64, y: f64| {
        if x == 0.0 { String::new() } else { format!(" ({:+}%)", format_significant(100.0 * (y / x - 1.0), 2)) }
    };
    let lines = vec![
        format!("P (peak): A {} {unit}, B {} {unit}{}", sig(a.peak), sig(b.peak), rel(a.peak, b.peak)),
        // The knee's duration is informative too: how fast the fall came.
        format!("knee (t_stable − t_onset): A {}, B {}", a.knee_text(), b.knee_text()),
        format!(
            "S (sustained): A {} {unit}, B {} {unit}{}",
            sig(a.sustained),
            sig(b.sustained),
            rel(a.sustained, b.sustained)
        ),
        format!("S/P: A {}, B {}", format_significant(a.ratio, 2), format_significant(b.ratio, 2)),
    ];
    let disagree = (a.sustained - b.sustained).abs() > a.tail_iqr.max(b.tail_iqr);
    SoakComparison { lines, disagree }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::soak::file::SoakRow;

    /// A curve sampled every 10 s from t = 10 to `end`, score from `f(t)`,
    /// clock from `clock(t)`.
    fn curve(end: u32, f: impl Fn(f64) -> f64, clock: impl Fn(f64) -> f64) -> SoakData {
        let mut d = SoakData::default();
        for k in 1..=end / 10 {
            let t = f64::from(k * 10);
            d.push(SoakRow { t_seconds: t, clock_mhz: clock(t), score: f(t), ..SoakRow::default() });
        }
        d
    }

    // SPEC T5 (issue 47 item 7): the analysis a file's row used is kept in
    // the file and read back exactly; a line that does not read is refused
    // by what is wrong, and a file without one states nothing.
    #[test]
    fn a_file_keeps_the_analysis_its_row_used() {
        let with = |line: &str| SoakData { comments: vec![line.to_owned()], ..SoakData::default() };
        let th = Thresholds { opening_s: 0.5, tail_s: 2.5, threshold: 0.9, hold: 2, band: 0.05 };
        let written = format!(" {ANALYSIS_FACT}: {}", th.fact());
        assert_eq!(Thresholds::stated_in(&with(&written)), Ok(Some(th)));
        assert_eq!(Thresholds::stated_in(&SoakData::default()), Ok(None));
        for bad in [
            "analysis: opening 0.5 s, tail 2.5 s, threshold 0.9, hold 2",
            "analysis: opening -1 s, tail 2.5 s, threshold 0.9, hold 2, band 0.05",
            "analysis: opening 0.5, tail 2.5 s, threshold 0.9, hold 2, band 0.05",
            "analysis: opening 0.5 s, opening 0.5 s, tail 2.5 s, threshold 0.9, hold 2, band 0.05",
            "analysis: opening 0.5 s, tail 2.5 s, threshold NaN, hold 2, band 0.05",
            "analysis: opening 0.5 s, tail 2.5 s, threshold 0.9, hold 0, band 0.05",
            "analysis: opening 0.5 s, tail 2.5 s, threshold 0.9, hold 2, band 0.05, extra 1",
        ] {
            assert!(Thresholds::stated_in(&with(bad)).is_err(), "{bad}");
        }
        // SPEC N10: the file's words in the error are inert.
        let hostile = "analysis: opening 0.5 s, tail\u{1b}[2J 2.5 s, threshold 0.9, hold 2, band 0.05";
        let why = Thresholds::stated_in(&with(hostile)).expect_err("does not read").to_string();
        assert!(!why.contains('\u{1b}'), "{why:?}");
    }

    // SPEC T5, T11: a sample taken a moment late still measured the
    // opening window — the span it measures has its middle inside — so a
    // protocol whose window ends on a sample keeps that sample on a loaded
    // machine; the next one, measured after the window, stays out.
    #[test]
    fn a_late_sample_still_measured_the_opening_window() {
        let mut d = SoakData::default();
        for (t, score) in [(10.004, 10.0), (20.006, 10.0), (30.009, 4.0), (40.01, 1.0), (50.0, 1.0), (60.0, 1.0)] {
            d.push(SoakRow { t_seconds: t, clock_mhz: 0.0, score, ..SoakRow::default() });
        }
        let th = Thresholds { opening_s: 30.0, tail_s: 20.0, ..Thresholds::default() };
        let a = analyze(&d, &th).expect("analysable");
        assert_eq!(a.opening_samples, 3, "10, 20 and the 30 s sample taken 9 ms late");
        assert_eq!(a.peak, 10.0);
        let mut first = SoakData::default();
        first.push(SoakRow { t_seconds: 0.5004, score: 5.0, ..SoakRow::default() });
        first.push(SoakRow { t_seconds: 1.0, score: 5.0, ..SoakRow::default() });
        let th = Thresholds { opening_s: 0.5, tail_s: 0.5, ..Thresholds::default() };
        assert_eq!(analyze(&first, &th).expect("analysable").opening_samples, 1);
    }

    // SPEC T5: a clean step down at 200 s from 10 to 7.
    #[test]
    fn clean_step_down() {
        let d = curve(600, |t| if t < 200.0 { 10.0 } else { 7.0 }, |_| 3000.0);
        let a = analyze(&d, &Thresholds::default()).expect("analysable");
        assert_eq!(a.peak, 10.0);
        assert_eq!(a.t_onset, Some(200.0));
        assert_eq!(a.t_stable, Some(200.0));
        assert_eq!(a.sustained, 7.0);
        assert!((a.ratio - 0.7).abs() < 1e-12);
        assert_eq!(a.tail_iqr, 0.0);
    }

    // SPEC T5, T8: no throttling at all is a result, with S/P near 1.
    #[test]
    fn no_throttling() {
        let d = curve(600, |t| 10.0 + if (t as u32 / 10).is_multiple_of(2) { 0.05 } else { -0.05 }, |_| 3000.0);
        let a = analyze(&d, &Thresholds::default()).expect("analysable");
        assert_eq!(a.t_onset, None);
        assert_eq!(a.t_stable, None);
        assert!((a.ratio - 1.0).abs() < 0.02);
        let negative = negative_result(&a, false).expect("negative");
        assert!(negative.starts_with("No onset observed") && !negative.contains("shared host"));
        // SPEC T8: on a shared host the sentence C.9.7 requires is there.
        assert!(negative_result(&a, true).expect("negative").ends_with(SHARED_HOST));
        assert!(shared_host([("hypervisor", "yes (KVM) — a shared host")]));
        assert!(shared_host([("shared host", "yes")]));
        assert!(shared_host([("Workbench", "L shared")]));
        assert!(!shared_host([("Workbench", "L not shared"), ("shared host", "no (modeled)")]));
    }

    // SPEC T5: one low sample is not an onset (hold = 3).
    #[test]
    fn one_sample_dip_is_not_onset() {
        let d = curve(600, |t| if t == 340.0 { 6.0 } else { 10.0 }, |_| 3000.0);
        assert_eq!(analyze(&d, &Thresholds::default()).expect("ok").t_onset, None);
    }

    // SPEC T5, T6: throttling inside the first minute — the course view's
    // 60 s window holds throttled samples and says so.
    #[test]
    fn throttles_inside_the_first_minute() {
        let d = curve(600, |t| if t < 40.0 { 10.0 } else { 6.0 }, |t| if t < 40.0 { 3000.0 } else { 2000.0 });
        let a = analyze(&d, &Thresholds::default()).expect("ok");
        assert_eq!(a.t_onset, Some(40.0));
        assert_eq!(a.peak, 10.0);
        let c = course_view(&d, COURSE_WINDOW_S, 300.0, a.t_onset, SEEN);
        assert_eq!(c.clock_onset, Some(40.0));
        assert!(c.burst_mean_score < 10.0, "the mean over 60 s understates the peak");
        assert!(c.warning.expect("warned").contains("already holds throttled samples"));
    }

    // SPEC T6: a constant clock column gives no clock onset, even though
    // the score collapsed.
    #[test]
    fn constant_clock_has_no_clock_onset() {
        let d = curve(600, |t| if t < 100.0 { 10.0 } else { 5.0 }, |_| 2400.0);
        let a = analyze(&d, &Thresholds::default()).expect("ok");
        assert_eq!(a.t_onset, Some(100.0));
        assert_eq!(course_view(&d, COURSE_WINDOW_S, 300.0, a.t_onset, SEEN).clock_onset, None);
    }

    // SPEC T6: the course tool's clock onset is the first row below the
    // run's peak clock, read literally: a clock ramping up (2800 MHz at
    // 10 s, 3000 after) has its onset at 10 s, not after a later dip.
    #[test]
    fn the_course_clock_onset_is_read_literally() {
        let d = curve(
            300,
            |_| 10.0,
            |t| {
                if t <= 10.0 {
                    2800.0
                } else if t == 90.0 {
                    2900.0
                } else {
                    3000.0
                }
            },
        );
        assert_eq!(course_view(&d, COURSE_WINDOW_S, 300.0, None, SEEN).clock_onset, Some(10.0));
    }

    // SPEC T5, T11: the knee is t_stable − t_onset, or none with the reason.
    #[test]
    fn the_knee_is_the_fall_s_duration() {
        let ramp = curve(
            600,
            |t| {
                if t < 200.0 {
                    10.0
                } else if t < 320.0 {
                    10.0 - (t - 190.0) / 40.0
                } else {
                    7.0
                }
            },
            |_| 1.0,
        );
        let a = analyze(&ramp, &Thresholds::default()).expect("ok");
        let (onset, stable) = (a.t_onset.expect("onset"), a.t_stable.expect("stable"));
        assert!(stable > onset, "{onset} {stable}");
        assert_eq!((a.knee().ok(), a.knee().err()), (Some(stable - onset), None));
        let flat = analyze(&curve(600, |_| 10.0, |_| 1.0), &Thresholds::default()).expect("ok");
        assert_eq!((flat.knee().ok(), flat.knee().err()), (None, Some("no onset observed")));
        assert_eq!(flat.knee_text(), "none (no onset observed)");
    }

    // SPEC T11: a file shorter than its windows says so, never mixing the
    // burst into S silently.
    #[test]
    fn a_file_shorter_than_its_windows_says_so() {
        let short = analyze(&curve(40, |t| if t < 20.0 { 10.0 } else { 7.0 }, |_| 1.0), &Thresholds::default())
            .expect("analysable");
        let warning = short.windows_warning.clone().expect("warned");
        assert!(warning.contains("the file covers 40 s, too short for its windows"), "{warning}");
        assert!(honesty_line(&short, "chunks/s").ends_with(&format!("But {warning}.")));
        let full = analyze(&curve(600, |_| 10.0, |_| 1.0), &Thresholds::default()).expect("ok");
        assert_eq!(full.windows_warning, None);
    }

    // SPEC T9: two runs that disagree by more than the tail IQR.
    #[test]
    fn comparison_flags_drift() {
        let a =
            analyze(&curve(600, |t| if t < 200.0 { 10.0 } else { 7.0 }, |_| 1.0), &Thresholds::default()).expect("ok");
        let b =
            analyze(&curve(600, |t| if t < 200.0 { 10.0 } else { 6.0 }, |_| 1.0), &Thresholds::default()).expect("ok");
        let c = compare(&a, &b, "chunks/s");
        assert!(c.disagree);
        assert_eq!(c.lines.len(), 4);
        assert!(c.lines[0].starts_with("P (peak)") && c.lines[2].starts_with("S (sustained)"), "{:?}", c.lines);
        assert_eq!(c.lines[1], "knee (t_stable − t_onset): A 0 s, B 0 s");
        assert_eq!(c.lines[3], "S/P: A 0.70, B 0.60");
        assert!(!compare(&a, &a, "chunks/s").disagree);
    }

    /// A machine alone on its host whose clock was read.
    const SEEN: Sight = Sight { shared: false, cause_observed: true };

    // SPEC T12, T6 (issue 47 item 8): on a shared host with placeholder
    // clock and temperature, the course view's warning never says
    // "throttled": a fall whose cause was not observed.
    #[test]
    fn the_course_view_says_no_more_than_its_sensors() {
        let d = curve(600, |t| if t < 40.0 { 10.0 } else { 6.0 }, |_| 3000.0);
        let a = analyze(&d, &Thresholds::default()).expect("ok");
        let blind = Sight { shared: true, cause_observed: false };
        let warning = course_view(&d, COURSE_WINDOW_S, 300.0, a.t_onset, blind).warning.expect("warned");
        assert!(!warning.contains("throttl"), "{warning}");
        assert!(warning.contains("its cause was not observed"), "{warning}");
    }

    // SPEC S17, T7 (issue 47 item 4): the honesty line's percentage is the
    // true ratio's: S/P 1.012 is 101 %, not 100 %.
    #[test]
    fn the_honesty_line_gives_the_true_percentage() {
        let d = curve(600, |t| if t < 30.0 { 35.1 } else { 35.5 }, |_| 3000.0);
        let a = analyze(&d, &Thresholds::default()).expect("ok");
        assert!((a.ratio - 35.5 / 35.1).abs() < 1e-9, "{}", a.ratio);
        let line = honesty_line(&a, "chunks/s");
        assert!(line.ends_with("101% of that."), "{line}");
    }

    // SPEC T5, S17 (issue 47 item 8): a P window that catches the start-up
    // ramp (49, 57, 63 chunks/s, P below S) is warned at analysis; a flat
    // start is not.
    #[test]
    fn a_ramp_in_the_opening_window_is_warned() {
        let ramped = curve(
            600,
            |t| {
                if t <= 10.0 {
                    49.0
                } else if t <= 20.0 {
                    57.0
                } else {
                    63.0
                }
            },
            |_| 3000.0,
        );
        let a = analyze(&ramped, &Thresholds::default()).expect("ok");
        assert!(a.ramp_warning.as_deref().is_some_and(|w| w.contains("start-up ramp")), "{:?}", a.ramp_warning);
        let flat = curve(600, |_| 60.0, |_| 3000.0);
        assert_eq!(analyze(&flat, &Thresholds::default()).expect("ok").ramp_warning, None);
    }
}
