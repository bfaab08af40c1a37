//! What a row says about where and how it was measured (SPEC N9, N11): its
//! own conditions and the Environment as the student had stated it when the
//! row was recorded. Every face that shows a row's machine, build, power
//! source or thermal state asks a [`RowContext`], so none of them can read
//! today's Environment in place of the row's.

use super::condition::{Brevity, BriefPart, Condition, ConditionName, Conditions, brief_conditions_powered, replaced};
use super::environment::{EnvField, Environment};
use crate::notebook::NO_PLACEMENT;

/// How a build taken from the Environment by default ends (SPEC N11).
pub const FROM_ENVIRONMENT: &str = "(from the Environment)";

/// Said of a row recorded before rows kept their stated Environment.
pub const NOT_RECORDED: &str = "stated environment not recorded with this row";

/// Words by which typed conditions speak of an Environment field: what
/// they speak of, the Environment of the day does not fill in.
fn typed_covers(typed: &str, field: EnvField) -> bool {
    let words: &[&str] = match field {
        EnvField::PowerSource => &["mains", "battery", "plugged", "charger", "adapter", "ac power", "on ac", "power"],
        EnvField::PreRunIdle => &["idle", "cool-down", "cooldown"],
        EnvField::Ambient => &["ambient", "°c", "room", "degrees"],
        EnvField::PhysicalSetup => &["desk", "lap", "stand", "cooling pad", "table", "fan"],
        EnvField::OtherLoad => &["load", "other users", "background", "busy"],
        _ => &[],
    };
    let typed = typed.to_lowercase();
    words.iter().any(|w| typed.contains(w))
}

/// A row's conditions with its stated Environment snapshot.
#[derive(Debug, Clone, Copy)]
pub struct RowContext<'a> {
    /// The conditions the row keeps (machine-read and method).
    pub conditions: &'a [Condition],
    /// The Environment as stated when the row was recorded; `None` for a
    /// row from a notebook written before snapshots were kept.
    pub stated: Option<&'a Environment>,
    /// What of Vernier's own code the row timed — a built-in kernel, the
    /// soak's load — whose build is then Vernier's: its compiler, said with
    /// this name. `None` for the student's program.
    pub own_code: Option<&'static str>,
}

impl RowContext<'_> {
    /// True when the row's numbers come from another tool's file: what was
    /// read or stated here is then about the importing moment, not the
    /// measuring machine, and is labelled so.
    pub fn imported(&self) -> bool {
        self.conditions.states(ConditionName::Source)
    }

    /// True when the harness pinned the run to a CPU (E8).
    pub fn pinned(&self) -> bool {
        self.conditions.value_of(ConditionName::PlacementUsed).is_some_and(|v| v.starts_with(PINNED_TO))
    }

    /// A stated field of the snapshot, when it says something: a
    /// placeholder such as `?` or `n/a` states nothing (SPEC A2).
    pub fn stated(&self, field: EnvField) -> Option<String> {
        // What was typed with the row is its own statement: the Environment
        // fills only what it does not speak of (SPEC N9).
        if self.typed().is_some_and(|typed| typed_covers(typed, field)) {
            return None;
        }
        let value = self.stated?.get(field);
        let placeholder = ["", "?", "-", "—", "n/a", "na", "tbd", "unknown", "not stated"];
        (!placeholder.contains(&value.trim().to_lowercase().as_str())).then_some(value)
    }

    /// How a stated value is labelled: plain for a measured row, "stated at
    /// import" for an imported one, and for a row typed with conditions of
    /// its own, where the Environment only fills what was not typed.
    fn stated_label(&self) -> &'static str {
        match (self.typed(), self.imported()) {
            (Some(_), _) => "from the Environment when it was taken in",
            (None, true) => "stated at import",
            (None, false) => "stated",
        }
    }

    /// The conditions typed with the row (a run typed into the workbook):
    /// its own words, shown as "stated with the row".
    pub fn typed(&self) -> Option<&str> {
        self.conditions.value_of(ConditionName::TypedConditions).filter(|t| !t.trim().is_empty())
    }

    /// The power source the row ran on: as the machine reported it, or as
    /// stated when the machine could not say — Windows reports `unknown`
    /// when its power status does not tell (SPEC S13 compares these).
    pub fn power_source(&self) -> Option<String> {
        match self.conditions.condition(ConditionName::PowerSource) {
            Some(c) if c.is_stated() && !c.value.eq_ignore_ascii_case("unknown") => Some(c.value.clone()),
            _ => self.stated(EnvField::PowerSource).or_else(|| self.later(ConditionName::StatedPower)),
        }
    }

    /// The machine as the row states it: the stated Machine / OS (marked
    /// when stated at import), else the CPU read when it ran.
    pub fn machine(&self) -> Option<String> {
        let get = |name: ConditionName| self.conditions.value_of(name);
        self.stated(EnvField::MachineOs)
            .map(|m| if self.imported() { format!("{m} ({})", self.stated_label()) } else { m })
            .or_else(|| {
                Some(format!("{}, {} logical CPUs", get(ConditionName::CpuModel)?, get(ConditionName::LogicalCpus)?))
            })
            .or_else(|| self.later(ConditionName::FileMachine).map(|m| format!("{m} (from the file)")))
            .or_else(|| self.later(ConditionName::StatedMachine).map(|m| format!("{m} (stated later)")))
    }

    /// What the row states under `name` beside what Vernier read or the
    /// Environment held: a statement made later, or the tool's own file.
    fn later(&self, name: ConditionName) -> Option<String> {
        self.conditions.condition(name).filter(|c| c.is_stated()).map(|c| c.value.clone())
    }

    /// The build of the program measured (SPEC N11): what the student
    /// stated for the row, or Vernier's own toolchain for a built-in
    /// kernel. Never the Environment of today, nor Vernier's toolchain for
    /// someone's program.
    pub fn build(&self) -> Option<String> {
        let later = self.later(ConditionName::StatedBuild).map(|b| format!("{b} (stated later)"));
        if let Some(build) = self.conditions.condition(ConditionName::Build).filter(|c| c.is_stated()) {
            // The Environment's build, taken when nothing was given, is a
            // default the student may correct later; a given one is not.
            return match later {
                Some(later) if build.value.ends_with(FROM_ENVIRONMENT) => Some(later),
                _ => Some(build.value.clone()),
            };
        }
        let compiler = self.conditions.condition(ConditionName::Compiler).filter(|c| c.is_stated());
        compiler.zip(self.own_code).map(|(c, code)| format!("{} ({code})", c.value)).or(later)
    }

    /// True when the row's build is the Environment's, taken by default
    /// when it was recorded: a statement made later may correct it.
    pub fn build_is_default(&self) -> bool {
        self.conditions.value_of(ConditionName::Build).is_some_and(|b| b.ends_with(FROM_ENVIRONMENT))
            && !self.conditions.states(ConditionName::StatedBuild)
    }

    /// The thermal state as the row states it: a pre-run idle, the ambient
    /// or a soak state, in the row's own words when it is someone else's.
    /// The canary alone is not a thermal condition (SPEC A2).
    pub fn thermal(&self) -> Option<String> {
        let stated = [
            self.stated(EnvField::PreRunIdle).map(|i| idle_phrase(&i)),
            self.stated(EnvField::Ambient).map(|a| format!("ambient {a}")),
            self.later(ConditionName::StatedThermal).map(|t| format!("{t} (stated later)")),
        ];
        let theirs = self
            .conditions
            .iter()
            .filter(|c| c.name().is_none() && c.is_stated())
            .filter(|c| ["thermal", "soak", "idle", "ambient"].iter().any(|w| c.field.to_lowercase().contains(w)))
            .map(|c| format!("{}: {}", c.field, c.value));
        let all: Vec<String> = stated.into_iter().flatten().chain(theirs).collect();
        (!all.is_empty()).then(|| all.join(", "))
    }

    /// The row's conditions with its power source filled from the snapshot
    /// when the machine could not report it, marked as stated: what a plan
    /// or a diff shows of the row (SPEC N9).
    pub fn effective_conditions(&self) -> Vec<Condition> {
        self.with_power(self.filled_power())
    }

    /// The power source the snapshot fills in, `value (label)`, when the
    /// machine could not report one; `None` when it did or the snapshot
    /// states none, and the row's conditions are then shown as they are.
    fn filled_power(&self) -> Option<String> {
        let read = self
            .conditions
            .condition(ConditionName::PowerSource)
            .is_some_and(|c| c.is_stated() && !c.value.eq_ignore_ascii_case("unknown"));
        if read {
            return None;
        }
        self.stated(EnvField::PowerSource).map(|power| format!("{power} ({})", self.stated_label()))
    }

    /// The row's conditions with `power` (see [`RowContext::filled_power`])
    /// in place of the power source the machine could not report.
    fn with_power(&self, power: Option<String>) -> Vec<Condition> {
        match power {
            Some(value) => replaced(self.conditions, self.power_condition(value)),
            None => self.conditions.to_vec(),
        }
    }

    /// The row's power source condition with `value` (see
    /// [`RowContext::filled_power`]).
    fn power_condition(&self, value: String) -> Condition {
        match self.conditions.condition(ConditionName::PowerSource) {
            Some(c) => Condition { value, ..c.clone() },
            None => Condition::new(ConditionName::PowerSource, value),
        }
    }

    /// The row's conditions for a place of `room`, `part; part; …` (see
    /// [`RowContext::brief_parts`]).
    pub fn brief(&self, room: Brevity) -> String {
        self.brief_parts(room).into_iter().map(|p| p.text).collect::<Vec<_>>().join("; ")
    }

    /// The row's conditions for a place of `room`, part by part, in the
    /// course's order (SPEC D8): what was stated with the row, its power
    /// source (filled from the snapshot when the machine could not report
    /// it), its thermal state, and in the Conditions column the setup and
    /// the other load as stated; then how the run went, the build, and the
    /// machine facts. A row without a snapshot says so in the column.
    pub fn brief_parts(&self, room: Brevity) -> Vec<BriefPart> {
        // The snapshot's power source stands in for the row's without a
        // copy of the row's conditions: every row shown would otherwise
        // copy all of them, once per table it is in (issue 50).
        let power = self.filled_power().map(|value| self.power_condition(value));
        let picked = brief_conditions_powered(self.conditions, power.as_ref(), room);
        let split = picked.iter().take_while(|(name, _)| name.is_some_and(ConditionName::leads_thermal)).count();
        let mut parts: Vec<BriefPart> = picked.iter().take(split).map(|(_, p)| p.clone()).collect();
        if let Some(mut thermal) = self.stated.and_then(|_| self.thermal()) {
            // Beside what was typed with the row, the Environment's part is named.
            if self.typed().is_some() {
                thermal.push_str(&format!(" ({})", self.stated_label()));
            }
            parts.push(BriefPart::conditions(thermal));
        }
        if room == Brevity::Column {
            parts.extend(self.stated(EnvField::PhysicalSetup).map(BriefPart::conditions));
            parts.extend(self.stated(EnvField::OtherLoad).map(|o| BriefPart::conditions(format!("other load: {o}"))));
            // An imported row names the instrument that measured it wherever
            // its conditions are listed (SPEC E14): it is not Vernier's harness.
            // (Someone else's names shown in full already hold it.)
            let in_full = picked.iter().any(|(name, _)| name.is_none());
            let instrument =
                self.conditions.value_of(ConditionName::Instrument).filter(|_| self.imported() && !in_full);
            parts.extend(instrument.map(|i| BriefPart::method(format!("{}: {i}", ConditionName::Instrument.as_str()))));
        }
        parts.extend(picked.into_iter().skip(split).map(|(_, p)| p));
        if self.stated.is_none() && room == Brevity::Column {
            parts.push(BriefPart::conditions(NOT_RECORDED));
        }
        parts
    }

    /// The power source in words, `mains power`, marked when the student
    /// stated it after the row was recorded (`vernier set-run`).
    fn power_words(&self) -> Option<String> {
        let read = self
            .conditions
            .condition(ConditionName::PowerSource)
            .is_some_and(|c| c.is_stated() && !c.value.eq_ignore_ascii_case("unknown"));
        let later = !read && self.stated(EnvField::PowerSource).is_none();
        self.power_source().map(|p| if later { format!("{p} power (stated later)") } else { format!("{p} power") })
    }

    /// The long form's lines about the row (D7): machine, build,
    /// conditions, placement; each says when it was not stated.
    pub fn long_lines(&self) -> [String; 4] {
        let machine = self.machine().unwrap_or_else(|| "machine not stated".into());
        let build = self.build().map_or_else(|| "build not stated".to_owned(), |b| format!("build: {b}"));
        let conditions: Vec<String> = [
            self.typed().map(|t| format!("{t} ({})", ConditionName::TypedConditions.as_str())),
            self.power_words(),
            self.thermal(),
            self.stated(EnvField::PhysicalSetup),
            self.stated(EnvField::OtherLoad).map(|o| format!("other load: {o}")),
            self.conditions.condition(ConditionName::Canary).map(|c| format!("{} {}", c.field, c.brief_value())),
        ]
        .into_iter()
        .flatten()
        .collect();
        let mut conditions = if conditions.is_empty() { "conditions not stated".into() } else { conditions.join(", ") };
        if self.stated.is_none() {
            conditions = format!("{conditions}; {NOT_RECORDED}");
        } else if self.imported() && self.states_from_snapshot() {
            // Said once, of everything before it on the line.
            conditions = format!("{conditions} ({}, not read from the measuring machine)", self.stated_label());
        }
        [machine, build, conditions, self.placement()]
    }

    /// Where the run ran, as one phrase (D7, E8): what the harness did for
    /// this run — pinned, not pinned and why, or no placement control on
    /// this platform — and, when the run was not pinned though it could
    /// have been, that the control was there and not used. A row that
    /// recorded nothing of its own (an import) gives the stated control,
    /// labelled, and says its run's placement is not recorded: a bare
    /// "available" would read as if this run had used it.
    pub fn placement(&self) -> String {
        let used = self.conditions.condition(ConditionName::PlacementUsed).filter(|c| c.is_stated());
        // What this machine could do, read with the run (E9), else stated.
        let read = self.conditions.value_of(ConditionName::Placement).and_then(availability);
        let stated = self.stated(EnvField::PlacementControl);
        match used.map(|c| c.value.as_str()) {
            Some(NOT_PINNED) => match read.or_else(|| stated.as_deref().and_then(availability)) {
                Some(true) => {
                    let whose = if read.is_some() { "" } else { " (stated)" };
                    format!(
                        "not pinned: placement control was available{whose} but not used for this run (no --pin given)"
                    )
                }
                _ => NOT_PINNED.to_owned(),
            },
            Some(used) => used.to_owned(),
            None => {
                let label = self.stated_label();
                match stated.as_deref().map(|s| (s, availability(s))) {
                    Some((_, Some(false))) => format!("{NO_PLACEMENT} ({label})"),
                    Some((_, Some(true))) => {
                        format!("placement control available ({label}); whether this run was pinned is not recorded")
                    }
                    Some((text, None)) => {
                        format!("placement control: {text} ({label}); whether this run was pinned is not recorded")
                    }
                    None => "placement not stated".to_owned(),
                }
            }
        }
    }

    /// The short form's conditions (D7), from the row's own record (N9,
    /// N11): `[power source and pre-run idle, build]`, each saying when it
    /// was not stated, the first marked when it was stated at import. A
    /// comparison says each part once when its two arms agree on it.
    pub fn sentence_parts(&self) -> [String; 2] {
        let idle = self
            .stated(EnvField::PreRunIdle)
            .map(|i| idle_phrase(&i))
            .or_else(|| self.later(ConditionName::StatedThermal).map(|t| format!("{t} (stated later)")));
        let missing = if self.stated.is_none() { "not recorded with this row" } else { "not stated" };
        let conditions = match (self.power_words(), idle) {
            (None, None) if self.stated.is_none() => NOT_RECORDED.to_owned(),
            (power, idle) => format!(
                "{}, {}",
                power.map_or_else(|| format!("power source {missing}"), |p| format!("on {p}")),
                idle.unwrap_or_else(|| format!("pre-run idle {missing}"))
            ),
        };
        let conditions = if self.imported() && self.states_from_snapshot() {
            format!("{conditions} ({})", self.stated_label())
        } else {
            conditions
        };
        let build = self.build().map_or_else(|| "build not stated".to_owned(), |b| format!("built with {b}"));
        [conditions, build]
    }

    /// True when the conditions line holds something of the snapshot (what
    /// was stated in the Environment when the row was recorded).
    fn states_from_snapshot(&self) -> bool {
        [EnvField::PowerSource, EnvField::PreRunIdle, EnvField::Ambient, EnvField::PhysicalSetup, EnvField::OtherLoad]
            .into_iter()
            .any(|field| self.stated(field).is_some())
    }

    /// Which of machine, build, power source and thermal condition the row
    /// does not state (SPEC A2), from its own record only.
    pub fn unstated(&self) -> Vec<&'static str> {
        let machine = self.conditions.states(ConditionName::CpuModel)
            || self.stated(EnvField::MachineOs).is_some()
            || self.later(ConditionName::FileMachine).is_some()
            || self.later(ConditionName::StatedMachine).is_some();
        [
            (machine, "machine"),
            (self.build().is_some(), "build flags"),
            (self.power_source().is_some(), "power source"),
            (self.thermal().is_some(), "thermal condition (a pre-run idle, the ambient or a soak state)"),
        ]
        .into_iter()
        .filter_map(|(stated, name)| (!stated).then_some(name))
        .collect()
    }
}

/// What the harness records when no `--pin` was given (E8).
/// How a row records the CPU it was pinned to: `pinned to CPU 1`.
pub const PINNED_TO: &str = "pinned to CPU ";

const NOT_PINNED: &str = "not pinned (no --pin given)";

/// Whether a placement text says the control is there: the machine's
/// reading (`available (2 CPUs can be pinned)`, the course's "no placement
/// control available on this platform") or a student's word for it;
/// `None` when it says neither.
fn availability(text: &str) -> Option<bool> {
    let t = text.trim().to_lowercase();
    let no = ["no ", "not ", "unavailable", "none"];
    if t == "no" || no.iter().any(|w| t.starts_with(w)) {
        Some(false)
    } else if t.starts_with("available") || t.starts_with("yes") {
        Some(true)
    } else {
        None
    }
}

/// A stated pre-run idle as the course writes it, `idle 10 min before`,
/// however the student put it: `5 min`, `5 min idle`, `idle 5 min` and
/// `idle for 5 min` all read `idle 5 min before`; a value that says when
/// itself (`10 min before each sweep`) keeps its own words, and `none` or
/// `0` reads `no idle before`.
fn idle_phrase(stated: &str) -> String {
    let is = |word: &str, what: &str| word.trim_end_matches([':', ',']).eq_ignore_ascii_case(what);
    let mut words: Vec<&str> = stated.split_whitespace().collect();
    if words.first().is_some_and(|w| is(w, "idle")) {
        words.remove(0);
        if words.first().is_some_and(|w| is(w, "for")) {
            words.remove(0);
        }
    }
    if words.last().is_some_and(|w| is(w, "idle")) {
        words.pop();
    }
    let rest = words.join(" ");
    let none = ["", "none", "no", "0", "0 min", "0 s", "nothing"];
    if none.iter().any(|n| rest.eq_ignore_ascii_case(n)) {
        return if rest.is_empty() { "idle before".to_owned() } else { "no idle before".to_owned() };
    }
    if words.iter().any(|w| is(w, "before") || is(w, "after")) {
        format!("idle {rest}")
    } else {
        format!("idle {rest} before")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N9 (issue 33): a run typed with its conditions keeps them,
    // "stated with the row"; the Environment of the day it was taken in
    // fills only what they do not speak of, labelled so.
    #[test]
    fn typed_conditions_are_the_rows_own() {
        use super::super::condition::Condition;
        let mut env = Environment::default();
        for (field, value) in
            [(EnvField::PowerSource, "battery"), (EnvField::PreRunIdle, "2 min"), (EnvField::Ambient, "22 °C")]
        {
            env.set(field, value).expect("a free-text field");
        }
        let conditions = [
            Condition::new(ConditionName::Source, "their workbook"),
            Condition::new(ConditionName::TypedConditions, "mains, idle 10 min"),
        ];
        let row = RowContext { conditions: &conditions, stated: Some(&env), own_code: None };
        let column = row.brief(Brevity::Column);
        assert!(column.contains("stated with the row: mains, idle 10 min"), "{column}");
        assert!(!column.contains("battery") && !column.contains("2 min"), "{column}");
        assert!(column.contains("ambient 22 °C (from the Environment when it was taken in)"), "{column}");
        let [_, _, long, _] = row.long_lines();
        assert!(long.starts_with("mains, idle 10 min (stated with the row)"), "{long}");
        assert!(!long.contains("battery"), "{long}");
        // A row without typed conditions still takes the Environment's.
        let plain = [Condition::new(ConditionName::Source, "their workbook")];
        let row = RowContext { conditions: &plain, stated: Some(&env), own_code: None };
        assert!(row.brief(Brevity::Column).contains("battery"), "{}", row.brief(Brevity::Column));
    }

    // SPEC N9 (issue 50): the brief reads a row's conditions in place
    // unless the snapshot fills its power source in; either way it reads
    // the row's effective conditions.
    #[test]
    fn the_brief_reads_the_effective_conditions() {
        use super::super::condition::Condition;
        let mut mains = Environment::default();
        mains.set(EnvField::PowerSource, "mains").expect("a free-text field");
        let typed = Condition::new(ConditionName::TypedConditions, "idle 5 min");
        for env in [None, Some(Environment::default()), Some(mains.clone())] {
            for power in [None, Some("battery"), Some("unknown"), Some("not available")] {
                for typed in [None, Some(typed.clone())] {
                    let mut conditions = vec![Condition::new(ConditionName::CpuModel, "X")];
                    conditions.extend(power.map(|p| Condition::new(ConditionName::PowerSource, p)));
                    conditions.extend(typed);
                    let row = RowContext { conditions: &conditions, stated: env.as_ref(), own_code: None };
                    let read = row.filled_power().map_or_else(|| conditions.clone(), |p| row.with_power(Some(p)));
                    assert_eq!(read, row.effective_conditions(), "{env:?} {power:?}");
                }
            }
        }
        // A snapshot's power source fills in what the machine could not say.
        let conditions = [Condition::new(ConditionName::PowerSource, "unknown")];
        let row = RowContext { conditions: &conditions, stated: Some(&mains), own_code: None };
        assert_eq!(row.brief(Brevity::Caption), "power source: mains (stated)");
    }

    // SPEC D7: the pre-run idle reads as the course writes it, whichever
    // way it was stated.
    #[test]
    fn the_idle_reads_naturally() {
        for stated in ["5 min", "5 min idle", "idle 5 min", "Idle: 5 min", "idle for 5 min", " 5 min  idle "] {
            assert_eq!(idle_phrase(stated), "idle 5 min before", "{stated:?}");
        }
        assert_eq!(idle_phrase("10 min before each sweep"), "idle 10 min before each sweep");
        assert_eq!(idle_phrase("none"), "no idle before");
        assert_eq!(idle_phrase("0"), "no idle before");
    }

    // SPEC D7, E8: placement as a phrase about this run, never a bare word.
    #[test]
    fn placement_says_what_this_run_did() {
        use super::super::condition::Condition;
        let env = |value: &str| {
            let mut e = Environment::default();
            e.set(EnvField::PlacementControl, value).expect("a free-text field");
            e
        };
        let stated = env("available");
        let context = |conditions: &[Condition], stated: Option<&Environment>| {
            RowContext { conditions, stated, own_code: None }.placement()
        };
        let not_pinned = [Condition::new(ConditionName::PlacementUsed, NOT_PINNED)];
        assert_eq!(
            context(&not_pinned, Some(&stated)),
            "not pinned: placement control was available (stated) but not used for this run (no --pin given)"
        );
        let read = [
            Condition::new(ConditionName::Placement, "available (2 CPUs can be pinned)"),
            Condition::new(ConditionName::PlacementUsed, NOT_PINNED),
        ];
        assert_eq!(
            context(&read, None),
            "not pinned: placement control was available but not used for this run (no --pin given)"
        );
        let none_here = [
            Condition::new(ConditionName::Placement, NO_PLACEMENT),
            Condition::new(ConditionName::PlacementUsed, NOT_PINNED),
        ];
        assert_eq!(context(&none_here, Some(&stated)), NOT_PINNED, "the machine's reading outranks the statement");
        let pinned = [Condition::new(ConditionName::PlacementUsed, "pinned to CPU 1")];
        assert_eq!(context(&pinned, Some(&stated)), "pinned to CPU 1");
        let imported = [Condition::new(ConditionName::Source, "t.csv (imported CSV)")];
        assert_eq!(
            context(&imported, Some(&stated)),
            "placement control available (stated at import); whether this run was pinned is not recorded"
        );
        assert_eq!(
            context(&imported, Some(&env("not available on this platform"))),
            format!("{NO_PLACEMENT} (stated at import)")
        );
        assert_eq!(context(&[], None), "placement not stated");
    }
}
