//! The conditions of a run, read from the system (SPEC E9).
//!
//! Every field is read from the OS — `/proc` and `/sys` on Linux, `sysctl`
//! on macOS, the system APIs on Windows (see [`crate::platform::conditions`])
//! — or reported as "not available", never guessed.

use serde::{Serialize, Serializer};

use vernier_model::notebook::{Condition, ConditionName};

/// What is shown for a value that could not be read.
pub const NOT_AVAILABLE: &str = "not available";

/// A value read from the system, or nothing; serialises as the value or as
/// the string "not available".
#[derive(Debug, Clone, PartialEq)]
pub struct Reading<T>(pub Option<T>);

impl<T: Serialize> Serialize for Reading<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(v) => v.serialize(s),
            None => s.serialize_str(NOT_AVAILABLE),
        }
    }
}

impl<T: std::fmt::Display> std::fmt::Display for Reading<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(v) => v.fmt(f),
            None => f.write_str(NOT_AVAILABLE),
        }
    }
}

/// One cache level as the kernel describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cache {
    /// 1, 2, 3…
    pub level: u32,
    /// `Data`, `Instruction` or `Unified`.
    pub kind: String,
    /// Size as the kernel writes it, e.g. `32K`.
    pub size: String,
}

/// The machine's conditions, with the JSON keys of `vernier machine`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Machine {
    /// CPU model name.
    pub cpu_model: Reading<String>,
    /// Logical CPUs online.
    pub logical_cpus: Reading<usize>,
    /// Installed memory in bytes.
    pub ram_bytes: Reading<u64>,
    /// Operating system (distribution name).
    pub os: Reading<String>,
    /// Kernel release.
    pub kernel: Reading<String>,
    /// Caches of CPU 0.
    pub caches: Reading<Vec<Cache>>,
    /// The TSC ticks at a constant rate.
    pub constant_tsc: Reading<bool>,
    /// The TSC keeps ticking in deep sleep states.
    pub nonstop_tsc: Reading<bool>,
    /// Running under a hypervisor (a shared host): its name, or "none".
    pub hypervisor: Reading<String>,
    /// cpufreq governor of CPU 0.
    pub governor: Reading<String>,
    /// cpufreq range of CPU 0, `[min, max]` in MHz.
    pub freq_range_mhz: Reading<[u64; 2]>,
    /// `/proc/sys/kernel/perf_event_paranoid`.
    pub perf_event_paranoid: Reading<i64>,
    /// Whether a hardware cycle counter can be opened, and why not.
    pub counters: String,
    /// Whether threads can be pinned to a CPU here.
    pub placement: String,
    /// `mains`, `battery` or `unknown`.
    pub power_source: Reading<String>,
    /// 1, 5 and 15 minute load averages.
    pub load_average: Reading<[f64; 3]>,
    /// Other processes running (state R) when the reading was taken.
    pub busy_processes: Reading<Vec<String>>,
    /// The compiler that built Vernier's kernels, and its profile.
    pub compiler: String,
}

pub use vernier_model::notebook::NO_PLACEMENT;

impl Machine {
    /// The conditions as labelled rows for a notebook entry.
    pub fn conditions(&self) -> Vec<Condition> {
        let caches =
            Reading(self.caches.0.as_ref().map(|cs| {
                cs.iter().map(|c| format!("L{} {} {}", c.level, c.kind, c.size)).collect::<Vec<_>>().join(", ")
            }));
        let range = Reading(self.freq_range_mhz.0.map(|[lo, hi]| format!("{lo}–{hi} MHz")));
        let load = Reading(self.load_average.0.map(|[a, b, c]| format!("{a} {b} {c}")));
        let busy =
            Reading(self.busy_processes.0.as_ref().map(|p| if p.is_empty() { "none".into() } else { p.join(", ") }));
        let rows: [(ConditionName, String); 18] = [
            (ConditionName::CpuModel, self.cpu_model.to_string()),
            (ConditionName::LogicalCpus, self.logical_cpus.to_string()),
            (ConditionName::RamBytes, self.ram_bytes.to_string()),
            (ConditionName::Os, self.os.to_string()),
            (ConditionName::Kernel, self.kernel.to_string()),
            (ConditionName::Caches, caches.to_string()),
            (ConditionName::ConstantTsc, self.constant_tsc.to_string()),
            (ConditionName::NonstopTsc, self.nonstop_tsc.to_string()),
            (ConditionName::Hypervisor, self.hypervisor.to_string()),
            (ConditionName::Governor, self.governor.to_string()),
            (ConditionName::FrequencyRange, range.to_string()),
            (ConditionName::PerfEventParanoid, self.perf_event_paranoid.to_string()),
            (ConditionName::Counters, self.counters.clone()),
            (ConditionName::Placement, self.placement.clone()),
            (ConditionName::PowerSource, self.power_source.to_string()),
            (ConditionName::LoadAverage, load.to_string()),
            (ConditionName::BusyProcesses, busy.to_string()),
            (ConditionName::Compiler, self.compiler.clone()),
        ];
        rows.into_iter().map(|(name, value)| Condition::new(name, value)).collect()
    }
}

/// The compiler and profile that built the kernels.
pub(crate) fn compiler() -> String {
    let profile = if cfg!(debug_assertions) { "debug build (unoptimised)" } else { "release build (opt-level 3)" };
    format!("{} — {profile}", env!("VERNIER_RUSTC_VERSION"))
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E9: an unreadable field serialises as "not available".
    #[test]
    fn missing_readings_say_not_available() {
        let none: Reading<u64> = Reading(None);
        assert_eq!(none.to_string(), NOT_AVAILABLE);
        assert_eq!(format!("{}", Reading(Some(8))), "8");
    }
}
