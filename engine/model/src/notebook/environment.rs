//! The Environment section (SPEC N2): ten named fields, in the course's order.

use serde::{Deserialize, Serialize};

/// One of the Environment fields, named exactly as the log names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EnvField {
    /// `Machine / OS`
    MachineOs,
    /// `Compiler + flags`
    CompilerFlags,
    /// `Workbench` — L / B / D and whether the host is shared.
    Workbench,
    /// `Placement control`
    PlacementControl,
    /// `Counter access`
    CounterAccess,
    /// `Power source`
    PowerSource,
    /// `Ambient`
    Ambient,
    /// `Physical setup`
    PhysicalSetup,
    /// `Pre-run idle`
    PreRunIdle,
    /// `Other load`
    OtherLoad,
}

impl EnvField {
    /// The fields in the order the log shows them.
    pub const ALL: [EnvField; 10] = [
        EnvField::MachineOs,
        EnvField::CompilerFlags,
        EnvField::Workbench,
        EnvField::PlacementControl,
        EnvField::CounterAccess,
        EnvField::PowerSource,
        EnvField::Ambient,
        EnvField::PhysicalSetup,
        EnvField::PreRunIdle,
        EnvField::OtherLoad,
    ];

    /// The field's name as it appears in the GUI and in `measurements.xlsx`.
    pub fn label(self) -> &'static str {
        match self {
            EnvField::MachineOs => "Machine / OS",
            EnvField::CompilerFlags => "Compiler + flags",
            EnvField::Workbench => "Workbench",
            EnvField::PlacementControl => "Placement control",
            EnvField::CounterAccess => "Counter access",
            EnvField::PowerSource => "Power source",
            EnvField::Ambient => "Ambient",
            EnvField::PhysicalSetup => "Physical setup",
            EnvField::PreRunIdle => "Pre-run idle",
            EnvField::OtherLoad => "Other load",
        }
    }

    /// What a good value looks like, shown as a hint where the field is edited.
    pub fn hint(self) -> &'static str {
        match self {
            EnvField::MachineOs => "CPU, logical CPUs, RAM, OS",
            EnvField::CompilerFlags => "compiler and its exact flags",
            EnvField::Workbench => "L, B or D (or laptop, device), shared or not: \"laptop, shared\"",
            EnvField::PlacementControl => "available / not available on this platform",
            EnvField::CounterAccess => "available / not available",
            EnvField::PowerSource => "mains / battery",
            EnvField::Ambient => "°C, and how you know",
            EnvField::PhysicalSetup => "surface, lid, case, position",
            EnvField::PreRunIdle => "minutes",
            EnvField::OtherLoad => "what else was running",
        }
    }

    /// Finds a field by its label, ignoring case and surrounding space.
    pub fn from_label(name: &str) -> Option<Self> {
        let name = name.trim();
        Self::ALL.into_iter().find(|f| f.label().eq_ignore_ascii_case(name))
    }

    /// The field named `name` (as [`EnvField::from_label`]), or why none is.
    pub fn named(name: &str) -> Result<Self, UnknownField> {
        Self::from_label(name).ok_or_else(|| UnknownField {
            given: name.trim().to_owned(),
            fields: Self::ALL.map(|f| f.label()).join(", "),
        })
    }
}

/// An Environment field name that does not exist, with the fields that do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown Environment field '{given}'; the fields are: {fields}")]
pub struct UnknownField {
    /// The name given.
    pub given: String,
    /// Every field's label, comma-separated.
    pub fields: String,
}

/// The three workbenches the course defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bench {
    /// Workbench L.
    L,
    /// Workbench B.
    B,
    /// Workbench D.
    D,
}

/// The `Workbench` field: which bench, and whether the host is shared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workbench {
    /// L, B or D; `None` until the student says.
    pub bench: Option<Bench>,
    /// Whether someone else's load can run on the same host.
    pub shared_host: Option<bool>,
}

/// A Workbench value from which no one bench can be read. Its own error,
/// not the notebook's: the notebook's error wraps it, so this module needs
/// nothing of the notebook's others (no module cycle).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot read '{text}' as a workbench: {why}; write its letter or word and whether the host is shared, \
     e.g. \"L, shared\", \"laptop, not shared\" or \"B\""
)]
pub struct BadWorkbench {
    /// What was written.
    pub text: String,
    /// Why no one bench could be read from it.
    pub why: &'static str,
}

impl Workbench {
    /// Reads what a person writes (SPEC N2): the bench by its letter or its
    /// word (`L`, `laptop`; `B`; `D`, `device`), anywhere in the text, and
    /// "shared" anywhere — "not shared", "unshared" or "dedicated" for a
    /// host of one's own. `laptop, shared`, `L (shared host)` and `bench B`
    /// all read; empty clears the field. Refused only when no bench, or more
    /// than one, can be read, with an example of what reads.
    pub fn parse(text: &str) -> Result<Self, BadWorkbench> {
        let lower = text.trim().to_lowercase();
        if lower.is_empty() {
            return Ok(Self::default());
        }
        let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        let bad = |why: &'static str| BadWorkbench { text: text.trim().to_owned(), why };
        let mut benches: Vec<Bench> = Vec::new();
        for word in &words {
            let bench = match *word {
                "l" | "laptop" => Bench::L,
                "b" => Bench::B,
                "d" | "device" | "phone" => Bench::D,
                _ => continue,
            };
            if !benches.contains(&bench) {
                benches.push(bench);
            }
        }
        let bench = match benches.as_slice() {
            [one] => *one,
            [] => return Err(bad("it names no workbench")),
            _ => return Err(bad("it names more than one workbench")),
        };
        // "not shared", "isn't shared", "non-shared": a negation just before.
        let negated = |at: usize| {
            words[at.saturating_sub(2)..at].iter().any(|w| matches!(*w, "not" | "no" | "non" | "isn" | "never"))
        };
        let shared = words.iter().position(|w| matches!(*w, "shared" | "share" | "sharing"));
        let shared_host = match shared {
            Some(at) => Some(!negated(at)),
            None if words.iter().any(|w| matches!(*w, "unshared" | "dedicated" | "exclusive")) => Some(false),
            None => None,
        };
        Ok(Self { bench: Some(bench), shared_host })
    }
}

impl std::fmt::Display for Workbench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(bench) = self.bench else {
            return Ok(());
        };
        write!(f, "{bench:?}")?;
        match self.shared_host {
            Some(true) => f.write_str(" — shared host"),
            Some(false) => f.write_str(" — not shared"),
            None => Ok(()),
        }
    }
}

/// The Environment section: what the machine and the room were like.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// `Machine / OS`
    pub machine_os: String,
    /// `Compiler + flags`
    pub compiler_flags: String,
    /// `Workbench`
    pub workbench: Workbench,
    /// `Placement control`
    pub placement_control: String,
    /// `Counter access`
    pub counter_access: String,
    /// `Power source`
    pub power_source: String,
    /// `Ambient`
    pub ambient: String,
    /// `Physical setup`
    pub physical_setup: String,
    /// `Pre-run idle`
    pub pre_run_idle: String,
    /// `Other load`
    pub other_load: String,
}

impl Environment {
    /// The field's value as displayed.
    pub fn get(&self, field: EnvField) -> String {
        match self.text(field) {
            Some(text) => text.clone(),
            None => self.workbench.to_string(),
        }
    }

    /// Sets a field from text; the Workbench is parsed, the rest kept as typed.
    pub fn set(&mut self, field: EnvField, value: &str) -> Result<(), BadWorkbench> {
        match self.text_mut(field) {
            Some(text) => *text = value.trim().to_owned(),
            None => self.workbench = Workbench::parse(value)?,
        }
        Ok(())
    }

    /// The fields with their displayed values, in order.
    pub fn rows(&self) -> impl Iterator<Item = (EnvField, String)> + '_ {
        EnvField::ALL.into_iter().map(|f| (f, self.get(f)))
    }

    fn text(&self, field: EnvField) -> Option<&String> {
        Some(match field {
            EnvField::MachineOs => &self.machine_os,
            EnvField::CompilerFlags => &self.compiler_flags,
            EnvField::Workbench => return None,
            EnvField::PlacementControl => &self.placement_control,
            EnvField::CounterAccess => &self.counter_access,
            EnvField::PowerSource => &self.power_source,
            EnvField::Ambient => &self.ambient,
            EnvField::PhysicalSetup => &self.physical_setup,
            EnvField::PreRunIdle => &self.pre_run_idle,
            EnvField::OtherLoad => &self.other_load,
        })
    }

    fn text_mut(&mut self, field: EnvField) -> Option<&mut String> {
        Some(match field {
            EnvField::MachineOs => &mut self.machine_os,
            EnvField::CompilerFlags => &mut self.compiler_flags,
            EnvField::Workbench => return None,
            EnvField::PlacementControl => &mut self.placement_control,
            EnvField::CounterAccess => &mut self.counter_access,
            EnvField::PowerSource => &mut self.power_source,
            EnvField::Ambient => &mut self.ambient,
            EnvField::PhysicalSetup => &mut self.physical_setup,
            EnvField::PreRunIdle => &mut self.pre_run_idle,
            EnvField::OtherLoad => &mut self.other_load,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N2: the exact column names, in order.
    #[test]
    fn labels_are_the_course_names() {
        let labels: Vec<_> = EnvField::ALL.iter().map(|f| f.label()).collect();
        assert_eq!(
            labels,
            [
                "Machine / OS",
                "Compiler + flags",
                "Workbench",
                "Placement control",
                "Counter access",
                "Power source",
                "Ambient",
                "Physical setup",
                "Pre-run idle",
                "Other load"
            ]
        );
        assert_eq!(EnvField::from_label("power SOURCE "), Some(EnvField::PowerSource));
    }

    // SPEC N2: Workbench is L / B / D plus whether the host is shared.
    #[test]
    fn workbench_parses_bench_and_sharing() {
        let mut env = Environment::default();
        env.set(EnvField::Workbench, "b, shared").expect("valid");
        assert_eq!(env.get(EnvField::Workbench), "B — shared host");
        env.set(EnvField::Workbench, "L not shared").expect("valid");
        assert_eq!(env.workbench, Workbench { bench: Some(Bench::L), shared_host: Some(false) });
        assert!(env.set(EnvField::Workbench, "X").is_err());
        // What a person writes (issue 49): the letter or the word, "shared"
        // anywhere; refused only when no one bench can be read.
        let read = |text: &str| Workbench::parse(text).map(|w| w.to_string());
        assert_eq!(read("laptop, shared").expect("reads"), "L — shared host");
        assert_eq!(read("L (shared host)").expect("reads"), "L — shared host");
        assert_eq!(read("Workbench D, a phone on a desk").expect("reads"), "D");
        assert_eq!(read("bench b — host isn't shared").expect("reads"), "B — not shared");
        assert_eq!(read("laptop, dedicated").expect("reads"), "L — not shared");
        assert_eq!(read("L maybe").expect("reads"), "L");
        for unreadable in ["desktop", "B or D", "laptop or device"] {
            let refused = read(unreadable).expect_err(unreadable).to_string();
            assert!(refused.contains("e.g. \"L, shared\""), "{refused}");
        }
        env.set(EnvField::PowerSource, " mains ").expect("valid");
        assert_eq!(env.get(EnvField::PowerSource), "mains");
    }
}
