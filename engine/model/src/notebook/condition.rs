//! The conditions a row keeps (SPEC E9, N2): one vocabulary of the names
//! Vernier records, what kind of fact each is, and how each is shown, so a
//! face asks for a condition by name instead of matching or parsing text.
//!
//! A row stores each condition as a name and a text value, the way it was
//! written when the row was measured; a row from someone else's notebook or
//! workbook may carry names this vocabulary does not know, and those are
//! kept and shown in full. Adding a condition is one new [`ConditionName`]
//! variant: its name, kind and place in the brief column are all here.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::stats::{CanaryVerdict, NoiseFloor};

/// "no placement control available on this platform" — the course's words
/// for a machine that cannot pin (SPEC E8).
pub const NO_PLACEMENT: &str = "no placement control available on this platform";

/// One measured condition, such as `power source` = `mains`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// What was read (a [`ConditionName`]'s text for Vernier's own).
    pub field: String,
    /// Its value, or "not available".
    pub value: String,
}

impl Condition {
    /// A condition under one of Vernier's names.
    pub fn new(name: ConditionName, value: impl Into<String>) -> Self {
        Self { field: name.as_str().to_owned(), value: value.into() }
    }

    /// Its name in the vocabulary, when it is one of Vernier's.
    pub fn name(&self) -> Option<ConditionName> {
        ConditionName::parse(&self.field)
    }

    /// True when the value states something (not empty, not "not available").
    pub fn is_stated(&self) -> bool {
        !self.value.trim().is_empty() && !self.value.starts_with("not available")
    }

    /// The name as a person reads it beside [`Condition::shown_value`]:
    /// `RAM bytes` is shown as `RAM`, since its value is shown in GiB.
    pub fn shown_field(&self) -> &str {
        match self.name() {
            Some(ConditionName::RamBytes) => "RAM",
            _ => &self.field,
        }
    }

    /// The value as a person reads it: sizes (the RAM, the caches) in
    /// KiB, MiB, GiB (SPEC S12), every other value as stored. The stored
    /// value keeps its bytes.
    pub fn shown_value(&self) -> Cow<'_, str> {
        match self.name() {
            Some(ConditionName::RamBytes) => Cow::Owned(crate::stats::units::size_text(&self.value)),
            Some(ConditionName::Caches) => Cow::Owned(
                self.value
                    .split(", ")
                    .map(|cache| match cache.rsplit_once(' ') {
                        Some((name, size)) => format!("{name} {}", crate::stats::units::size_text(size)),
                        None => cache.to_owned(),
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            _ => Cow::Borrowed(&self.value),
        }
    }

    /// The value as a brief column shows it: the canary's ratio without its
    /// timings, every other value whole.
    pub fn brief_value(&self) -> &str {
        match self.name() {
            Some(ConditionName::Canary) => canary_ratio_text(&self.value),
            _ => &self.value,
        }
    }

    /// `field: value` with the brief value.
    fn brief_text(&self) -> String {
        format!("{}: {}", self.field, self.brief_value())
    }
}

/// What kind of fact a condition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConditionKind {
    /// Read from the machine (E9).
    Machine,
    /// How the harness measured the run (E3–E10).
    Method,
    /// How the soak's load ran (T2–T4).
    Soak,
    /// Where an imported row's numbers came from.
    Provenance,
    /// What the student stated about a row after it was recorded
    /// (`vernier set-run`): only what the row did not state, each kept
    /// under its own name so it is never read as measured.
    Statement,
}

/// How much of a row's conditions a place has room for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Brevity {
    /// Beside a plot or in a report sentence: power, thermal state, placement.
    Caption,
    /// The Conditions column: what a reader needs beside a number (machine,
    /// build, power, thermal state, placement, host, placeholders).
    Column,
}

macro_rules! vocabulary {
    ($($variant:ident = $text:literal, $kind:ident, $brief:expr;)+) => {
        /// A condition Vernier records, by name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ConditionName {
            $(
                #[doc = concat!("`", $text, "`")]
                $variant,
            )+
        }

        impl ConditionName {
            /// Every name, in the order a row lists them.
            pub const ALL: &[ConditionName] = &[$(ConditionName::$variant),+];

            /// The name as stored in the notebook and shown.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ConditionName::$variant => $text,)+
                }
            }

            /// The vocabulary's name for `text`, if it is one: asked of
            /// every condition of every row a table shows or the audit
            /// reads, so one `match` the compiler lays out, not a
            /// comparison with each name in turn (issue 50).
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $($text => Some(ConditionName::$variant),)+
                    _ => None,
                }
            }

            /// What kind of fact it is.
            pub const fn kind(self) -> ConditionKind {
                match self {
                    $(ConditionName::$variant => ConditionKind::$kind,)+
                }
            }

            /// The smallest place that still shows it, if any.
            pub const fn shown_in(self) -> Option<Brevity> {
                match self {
                    $(ConditionName::$variant => $brief,)+
                }
            }
        }
    };
}

vocabulary! {
    CpuModel = "CPU model", Machine, Some(Brevity::Column);
    LogicalCpus = "logical CPUs", Machine, Some(Brevity::Column);
    RamBytes = "RAM bytes", Machine, None;
    Os = "OS", Machine, None;
    Kernel = "kernel", Machine, None;
    Caches = "caches", Machine, None;
    ConstantTsc = "constant_tsc", Machine, None;
    NonstopTsc = "nonstop_tsc", Machine, None;
    Hypervisor = "hypervisor", Machine, Some(Brevity::Column);
    Governor = "governor", Machine, None;
    FrequencyRange = "frequency range", Machine, None;
    PerfEventParanoid = "perf_event_paranoid", Machine, None;
    Counters = "counters", Machine, None;
    Placement = "placement", Machine, None;
    PowerSource = "power source", Machine, Some(Brevity::Caption);
    // Read afresh for every row: the long form keeps it, a brief place
    // would repeat a different number on every row (SPEC D8).
    LoadAverage = "load average", Machine, None;
    BusyProcesses = "busy processes", Machine, None;
    Compiler = "compiler", Machine, Some(Brevity::Column);
    Build = "build", Method, Some(Brevity::Column);
    BuildRecipe = "build recipe", Method, None;
    Program = "program", Method, None;
    ArgumentFiles = "argument files", Method, None;
    Interpreter = "interpreter", Method, None;
    WarmupPolicy = "warm-up policy", Method, None;
    PlacementUsed = "placement used", Method, Some(Brevity::Caption);
    // SPEC E19: where the OS told which CPU each timed trial ran on.
    TrialCpus = "CPU per trial", Method, None;
    Instrument = "instrument", Method, None;
    Canary = "canary end/start", Method, Some(Brevity::Caption);
    ShellCost = "shell cost", Method, None;
    CoolDown = "cool-down", Method, None;
    OrderCheck = "order check", Method, None;
    ResultCheck = "result check", Method, None;
    // SPEC E19: the fixed inputs (seed, input size, files) as known or stated.
    Inputs = "inputs", Method, None;
    FirstTrialCheck = "first-trial check", Method, None;
    ProcessCleanup = "process cleanup", Method, None;
    // A foreign command's writes (SPEC N13, R5): confined, or why not.
    Confinement = "confinement", Method, None;
    Control = "control", Method, Some(Brevity::Column);
    Extends = "extends", Method, None;
    WindowCpu = "window CPU during the run", Method, None;
    WorkCheck = "work check", Method, None;
    SanityCheck = "sanity check", Method, None;
    Placeholders = "placeholders", Soak, Some(Brevity::Column);
    Workers = "workers", Soak, None;
    CalibratedChunkTime = "calibrated chunk time", Soak, None;
    Source = "source", Provenance, None;
    ReadAtImport = "read at import", Provenance, None;
    FileMachine = "machine (from the file)", Provenance, Some(Brevity::Column);
    NotRecorded = "conditions", Provenance, None;
    CopiedFrom = "copied from", Provenance, None;
    TypedConditions = "stated with the row", Statement, Some(Brevity::Column);
    StatedMachine = "machine (stated later)", Statement, Some(Brevity::Column);
    StatedBuild = "build (stated later)", Statement, Some(Brevity::Column);
    StatedPower = "power source (stated later)", Statement, Some(Brevity::Caption);
    // Shown through the row's thermal state, which every brief place adds.
    StatedThermal = "thermal state (stated later)", Statement, None;
    Amended = "stated later", Statement, None;
}

/// The value of [`ConditionName::Control`]: the run is the control
/// condition, repeated in each session so a comparison across sessions can
/// weigh its difference against the machine's own drift (SPEC S14).
pub const CONTROL: &str = "control condition, repeated in each session (SPEC S14)";

/// The brief column's names, in the order it shows them (SPEC D8): what
/// the student stated and how the run went first — a control says so
/// before all, it is what the row is for — then the build, then the
/// machine facts, which a place that states what its rows share says once
/// above them. The row's thermal state goes after the power source (see
/// [`ConditionName::leads_thermal`]).
const BRIEF_ORDER: [ConditionName; 15] = [
    ConditionName::Control,
    ConditionName::TypedConditions,
    ConditionName::PowerSource,
    ConditionName::StatedPower,
    ConditionName::PlacementUsed,
    ConditionName::Canary,
    ConditionName::Placeholders,
    ConditionName::Build,
    ConditionName::StatedBuild,
    ConditionName::Compiler,
    ConditionName::CpuModel,
    ConditionName::LogicalCpus,
    ConditionName::Hypervisor,
    ConditionName::StatedMachine,
    ConditionName::FileMachine,
];

/// What a part of a row's brief conditions is about: a place that states
/// what its rows share once (the report's header, SPEC D8) says the
/// machine and the build on lines of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Facet {
    /// The machine the row ran on.
    Machine,
    /// How the measured program was built.
    Build,
    /// How it was measured: the instrument of an imported row and what a
    /// time is the time of (S16), which the report's Method names with
    /// its rows.
    Method,
    /// Everything else: what was stated, how the run went.
    Conditions,
}

/// One part of a row's brief conditions, `power source: mains`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BriefPart {
    /// What it is about.
    pub facet: Facet,
    /// As shown, inert once in a cell.
    pub text: String,
}

impl BriefPart {
    /// A part about the row's conditions.
    pub fn conditions(text: impl Into<String>) -> Self {
        Self { facet: Facet::Conditions, text: text.into() }
    }

    /// A part about how the row was measured.
    pub fn method(text: impl Into<String>) -> Self {
        Self { facet: Facet::Method, text: text.into() }
    }
}

impl ConditionName {
    /// True when a place of `room` shows this condition.
    pub fn shown_at(self, room: Brevity) -> bool {
        match (self.shown_in(), room) {
            (None, _) => false,
            (Some(_), Brevity::Column) => true,
            (Some(smallest), Brevity::Caption) => smallest == Brevity::Caption,
        }
    }

    /// True for a fact that stays the same from run to run: it belongs to
    /// the row's snapshot, which the notebook file stores once for every
    /// row that shares it (SPEC N9). The load and the busy processes are
    /// read afresh for every row and stay with it. What this machine's
    /// Vernier does with a command's processes is one fixed paragraph per
    /// platform, the longest condition a command row has: kept once, it is
    /// a tenth of the row's bytes saved (issue 50).
    pub fn is_shared(self) -> bool {
        match self.kind() {
            ConditionKind::Machine => !matches!(self, ConditionName::LoadAverage | ConditionName::BusyProcesses),
            _ => self == ConditionName::ProcessCleanup,
        }
    }

    /// What a brief place counts it as (SPEC D8).
    pub fn facet(self) -> Facet {
        match self {
            ConditionName::Build | ConditionName::StatedBuild | ConditionName::Compiler => Facet::Build,
            ConditionName::CpuModel
            | ConditionName::LogicalCpus
            | ConditionName::Hypervisor
            | ConditionName::StatedMachine
            | ConditionName::FileMachine => Facet::Machine,
            _ => Facet::Conditions,
        }
    }

    /// True for the names a row's thermal state is shown after: what was
    /// stated with it and its power source come first (SPEC D8).
    pub fn leads_thermal(self) -> bool {
        matches!(
            self,
            ConditionName::Control
                | ConditionName::TypedConditions
                | ConditionName::PowerSource
                | ConditionName::StatedPower
        )
    }

    /// True when two rows differing in it says something about the machine
    /// or the method; a kernel's result check is about the result, being
    /// the control is the row's role in its own notebook, and the run a row
    /// extends (S10) is about its own log, and what the window cost (E15)
    /// is about the face that started it, present only on rows run from it;
    /// the workbook a row was copied from (N13) is about its log.
    pub fn compared_in_reproduce(self) -> bool {
        !matches!(
            self,
            ConditionName::ResultCheck
                | ConditionName::Control
                | ConditionName::Extends
                | ConditionName::WindowCpu
                | ConditionName::CopiedFrom
                | ConditionName::Confinement
        )
    }
}

/// Looking a condition up by name in a row's list.
pub trait Conditions {
    /// The condition named `name`, if the row has it.
    fn condition(&self, name: ConditionName) -> Option<&Condition>;

    /// Its value, if the row has it.
    fn value_of(&self, name: ConditionName) -> Option<&str> {
        self.condition(name).map(|c| c.value.as_str())
    }

    /// True when the row states it (present, not empty, not "not available").
    fn states(&self, name: ConditionName) -> bool {
        self.condition(name).is_some_and(Condition::is_stated)
    }
}

impl Conditions for [Condition] {
    fn condition(&self, name: ConditionName) -> Option<&Condition> {
        self.iter().find(|c| c.field == name.as_str())
    }
}

/// The conditions a place of `room` shows, each `field: value` with its
/// brief value, in the brief column's order, with the name each has. A row
/// that has none of them (someone else's names) is shown in full, as one
/// part, so nothing it recorded is hidden.
pub fn brief_conditions(conditions: &[Condition], room: Brevity) -> Vec<(Option<ConditionName>, BriefPart)> {
    brief_conditions_powered(conditions, None, room)
}

/// [`brief_conditions`] of `conditions` with `power` in place of their
/// power source (or added, where they have none): what a snapshot fills
/// in, without copying every condition of every row shown (issue 50).
pub fn brief_conditions_powered(
    conditions: &[Condition],
    power: Option<&Condition>,
    room: Brevity,
) -> Vec<(Option<ConditionName>, BriefPart)> {
    let find = |n: ConditionName| match power {
        Some(power) if n == ConditionName::PowerSource => Some(power),
        _ => conditions.condition(n),
    };
    let picked: Vec<(Option<ConditionName>, BriefPart)> = BRIEF_ORDER
        .iter()
        .filter(|n| n.shown_at(room))
        .filter_map(|n| find(*n).map(|c| (Some(*n), BriefPart { facet: n.facet(), text: c.brief_text() })))
        .collect();
    if let Some(power) = power.filter(|_| picked.is_empty()) {
        // Someone else's names shown in full, the power source among them.
        return brief_conditions_powered(&replaced(conditions, power.clone()), None, room);
    }
    if picked.is_empty() && room == Brevity::Column && !conditions.is_empty() {
        return vec![(None, BriefPart::conditions(conditions_text(conditions)))];
    }
    picked
}

/// `conditions` with `replacement` in place of the first under its name,
/// or added at the end where none is.
pub(crate) fn replaced(conditions: &[Condition], replacement: Condition) -> Vec<Condition> {
    let mut all = conditions.to_vec();
    match all.iter_mut().find(|c| c.field == replacement.field) {
        Some(c) => *c = replacement,
        None => all.push(replacement),
    }
    all
}

/// Every condition, `field: value; field: value`, each value as shown.
pub fn conditions_text(conditions: &[Condition]) -> String {
    conditions.iter().map(|c| format!("{}: {}", c.shown_field(), c.shown_value())).collect::<Vec<_>>().join("; ")
}

/// The canary's value as the harness writes it: the end/start ratio, then
/// both timings, e.g. `1.012 (2.10 ms, then 2.13 ms)`.
pub fn canary_value(ratio: f64, start_ms: f64, end_ms: f64) -> String {
    format!("{ratio:.3} ({start_ms:.2} ms, then {end_ms:.2} ms)")
}

/// The ratio of a canary value written by [`canary_value`], as a number.
pub fn canary_ratio(value: &str) -> Option<f64> {
    canary_ratio_text(value).parse().ok().filter(|r: &f64| r.is_finite())
}

/// The opening canary's time in ms of a canary value written by
/// [`canary_value`]: the session's control, which reproduce weighs
/// against the rerun's (SPEC S14).
pub fn canary_start_ms(value: &str) -> Option<f64> {
    let (_, timings) = value.split_once('(')?;
    let (start, _) = timings.split_once(" ms")?;
    start.trim().parse().ok().filter(|ms: &f64| ms.is_finite() && *ms > 0.0)
}

/// The canary's verdict on its session (SPEC E7, E18) from a canary
/// value written by [`canary_value`] and the floor the session measured.
pub fn canary_verdict(value: &str, floor: Option<&NoiseFloor>) -> Option<CanaryVerdict> {
    CanaryVerdict::judge(canary_ratio_text(value), floor)
}

/// The ratio's text: the value up to its timings.
fn canary_ratio_text(value: &str) -> &str {
    value.split_whitespace().next().unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E9: every name round-trips and no two names share a text.
    #[test]
    fn every_name_is_its_own_text() {
        for name in ConditionName::ALL {
            assert_eq!(ConditionName::parse(name.as_str()), Some(*name));
        }
        let mut texts: Vec<&str> = ConditionName::ALL.iter().map(|n| n.as_str()).collect();
        texts.sort_unstable();
        texts.dedup();
        assert_eq!(texts.len(), ConditionName::ALL.len());
        // Every name shown in the brief column has its place in it.
        for name in ConditionName::ALL.iter().filter(|n| n.shown_in().is_some()) {
            assert!(BRIEF_ORDER.contains(name), "{name:?} is shown but has no place in the column");
        }
    }

    // SPEC N2, E8: the column shows the canary's ratio, the caption only
    // power, thermal state and placement; unknown names are kept in full.
    #[test]
    fn brief_places_show_their_conditions() {
        let conditions = vec![
            Condition::new(ConditionName::Kernel, "6.1"),
            Condition::new(ConditionName::Canary, canary_value(1.0123, 2.1, 2.13)),
            Condition::new(ConditionName::CpuModel, "X"),
            Condition::new(ConditionName::PowerSource, "mains"),
        ];
        let text = |room| brief_conditions(&conditions, room).into_iter().map(|(_, p)| p.text).collect::<Vec<_>>();
        // SPEC D8: what was stated and how the run went first, the machine last.
        assert_eq!(text(Brevity::Column), ["power source: mains", "canary end/start: 1.012", "CPU model: X"]);
        assert_eq!(text(Brevity::Caption), ["power source: mains", "canary end/start: 1.012"]);
        assert_eq!(brief_conditions(&conditions, Brevity::Column)[2].1.facet, Facet::Machine);
        assert_eq!(conditions.value_of(ConditionName::Canary), Some("1.012 (2.10 ms, then 2.13 ms)"));
        assert_eq!(canary_ratio(conditions.value_of(ConditionName::Canary).unwrap_or_default()), Some(1.012));
        // SPEC S14: the opening timing is the session's control.
        assert_eq!(canary_start_ms(&canary_value(1.0123, 2.1, 2.13)), Some(2.1));
        assert_eq!(canary_start_ms("1.012"), None);
        assert_eq!(canary_start_ms("1.0 (nan ms, then 2 ms)"), None);
        let theirs = vec![Condition { field: "Thermal".into(), value: "warm".into() }];
        assert_eq!(brief_conditions(&theirs, Brevity::Column), [(None, BriefPart::conditions("Thermal: warm"))]);
        assert!(brief_conditions(&theirs, Brevity::Caption).is_empty());
    }

    // SPEC S12: sizes are shown in KiB, MiB, GiB; the stored bytes stay.
    #[test]
    fn sizes_are_shown_in_binary_multiples() {
        let ram = Condition::new(ConditionName::RamBytes, "25276502016");
        let caches = Condition::new(ConditionName::Caches, "L1 Data 48K, L3 Unified 12288K");
        assert_eq!(ram.shown_value(), "23.5 GiB");
        assert_eq!(caches.shown_value(), "L1 Data 48 KiB, L3 Unified 12 MiB");
        assert_eq!(conditions_text(std::slice::from_ref(&ram)), "RAM: 23.5 GiB");
        assert_eq!(ram.value, "25276502016");
        let unread = Condition::new(ConditionName::RamBytes, "not available");
        assert_eq!(unread.shown_value(), "not available");
    }
}
