//! The conditions of a run, read from the system (SPEC E9).
//!
//! Every field is read from `/proc`, `/sys` or the OS, or reported as
//! "not available" — never guessed.

use std::path::Path;

use serde::{Serialize, Serializer};

use crate::notebook::Condition;

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

/// "no placement control available on this platform" — the course's words
/// for a machine that cannot pin (SPEC E8).
pub const NO_PLACEMENT: &str = "no placement control available on this platform";

impl Machine {
    /// Reads everything now.
    pub fn read() -> Self {
        let cpuinfo = read("/proc/cpuinfo");
        let flags: Option<Vec<String>> = cpuinfo
            .as_deref()
            .and_then(|c| field(c, "flags"))
            .map(|f| f.split_whitespace().map(str::to_owned).collect());
        let has_flag = |name: &str| Reading(flags.as_ref().map(|f| f.iter().any(|x| x == name)));
        let cpufreq = Path::new("/sys/devices/system/cpu/cpu0/cpufreq");
        let khz = |name: &str| read(cpufreq.join(name)).and_then(|v| v.trim().parse::<u64>().ok());
        Self {
            cpu_model: Reading(cpuinfo.as_deref().and_then(|c| field(c, "model name").or_else(|| field(c, "Model")))),
            logical_cpus: Reading(std::thread::available_parallelism().ok().map(std::num::NonZero::get)),
            ram_bytes: Reading(
                read("/proc/meminfo")
                    .as_deref()
                    .and_then(|m| field(m, "MemTotal"))
                    .and_then(|v| v.trim_end_matches("kB").trim().parse::<u64>().ok())
                    .map(|kb| kb * 1024),
            ),
            os: Reading(read("/etc/os-release").as_deref().and_then(os_name)),
            kernel: Reading(read("/proc/sys/kernel/osrelease").map(|s| s.trim().to_owned())),
            caches: Reading(caches()),
            constant_tsc: has_flag("constant_tsc"),
            nonstop_tsc: has_flag("nonstop_tsc"),
            hypervisor: Reading(hypervisor(flags.as_deref())),
            governor: Reading(read(cpufreq.join("scaling_governor")).map(|s| s.trim().to_owned())),
            freq_range_mhz: Reading(
                khz("cpuinfo_min_freq").zip(khz("cpuinfo_max_freq")).map(|(lo, hi)| [lo / 1000, hi / 1000]),
            ),
            perf_event_paranoid: Reading(
                read("/proc/sys/kernel/perf_event_paranoid").and_then(|s| s.trim().parse().ok()),
            ),
            counters: counters(),
            placement: placement(),
            power_source: Reading(power_source()),
            load_average: Reading(read("/proc/loadavg").and_then(|s| {
                let mut it = s.split_whitespace().map(str::parse::<f64>);
                Some([it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?])
            })),
            busy_processes: Reading(busy_processes()),
            compiler: compiler(),
        }
    }

    /// The current clock of CPU 0 in MHz, from cpufreq or `/proc/cpuinfo`
    /// (used by the operations-per-cycle check).
    pub fn current_mhz() -> Option<f64> {
        read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq")
            .and_then(|s| s.trim().parse::<f64>().ok())
            .map(|khz| khz / 1000.0)
            .or_else(|| read("/proc/cpuinfo").as_deref().and_then(|c| field(c, "cpu MHz")).and_then(|v| v.parse().ok()))
    }

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
        let rows: [(&str, String); 18] = [
            ("CPU model", self.cpu_model.to_string()),
            ("logical CPUs", self.logical_cpus.to_string()),
            ("RAM bytes", self.ram_bytes.to_string()),
            ("OS", self.os.to_string()),
            ("kernel", self.kernel.to_string()),
            ("caches", caches.to_string()),
            ("constant_tsc", self.constant_tsc.to_string()),
            ("nonstop_tsc", self.nonstop_tsc.to_string()),
            ("hypervisor", self.hypervisor.to_string()),
            ("governor", self.governor.to_string()),
            ("frequency range", range.to_string()),
            ("perf_event_paranoid", self.perf_event_paranoid.to_string()),
            ("counters", self.counters.clone()),
            ("placement", self.placement.clone()),
            ("power source", self.power_source.to_string()),
            ("load average", load.to_string()),
            ("busy processes", busy.to_string()),
            ("compiler", self.compiler.clone()),
        ];
        rows.into_iter().map(|(f, v)| Condition { field: f.into(), value: v }).collect()
    }
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The value of the first `key : value` line of a `/proc` file.
fn field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_owned())
    })
}

fn os_name(os_release: &str) -> Option<String> {
    os_release.lines().find_map(|l| l.strip_prefix("PRETTY_NAME=")).map(|v| v.trim_matches('"').to_owned())
}

fn caches() -> Option<Vec<Cache>> {
    let dir = Path::new("/sys/devices/system/cpu/cpu0/cache");
    let mut caches: Vec<Cache> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("index"))
        .filter_map(|e| {
            let p = e.path();
            Some(Cache {
                level: read(p.join("level"))?.trim().parse().ok()?,
                kind: read(p.join("type"))?.trim().to_owned(),
                size: read(p.join("size"))?.trim().to_owned(),
            })
        })
        .collect();
    caches.sort_by(|a, b| (a.level, &a.kind).cmp(&(b.level, &b.kind)));
    (!caches.is_empty()).then_some(caches)
}

/// The hypervisor's name when the CPU says it runs under one; "none" when
/// the flags are readable and say it does not.
fn hypervisor(flags: Option<&[String]>) -> Option<String> {
    let flags = flags?;
    if !flags.iter().any(|f| f == "hypervisor") {
        return Some("none".into());
    }
    let name = read("/sys/hypervisor/type")
        .or_else(|| read("/sys/class/dmi/id/sys_vendor"))
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    Some(match name {
        Some(name) => format!("yes ({name}) — a shared host"),
        None => "yes (vendor not readable) — a shared host".into(),
    })
}

/// Tries to open a hardware cycle counter for this process.
fn counters() -> String {
    match perf_event::Builder::new(perf_event::events::Hardware::CPU_CYCLES).build() {
        Ok(_) => "available (hardware cycle counter opened)".into(),
        Err(e) => match e.raw_os_error() {
            // ENOENT / EOPNOTSUPP: the kernel offers no such event here (a VM without a virtual PMU, for one).
            Some(2 | 95) => format!("not available: this machine exposes no hardware cycle counter ({e})"),
            // EACCES / EPERM: a counter exists but this user may not read it.
            Some(1 | 13) => format!("not available: not permitted here ({e}); see perf_event_paranoid"),
            _ => format!("not available: {e}"),
        },
    }
}

/// Pins a short-lived thread to the first CPU to learn whether pinning works
/// here, without pinning the caller.
fn placement() -> String {
    let probe = std::thread::Builder::new().name("vernier-placement-probe".into()).spawn(|| {
        let cores = core_affinity::get_core_ids().unwrap_or_default();
        match cores.first() {
            Some(&core) if core_affinity::set_for_current(core) => {
                format!("available ({} CPUs can be pinned)", cores.len())
            }
            _ => NO_PLACEMENT.to_owned(),
        }
    });
    probe.ok().and_then(|h| h.join().ok()).unwrap_or_else(|| NO_PLACEMENT.to_owned())
}

/// `mains` when a mains supply is online, `battery` when only a battery
/// reports, `unknown` when supplies exist but say neither; nothing when the
/// machine exposes no power supply at all.
fn power_source() -> Option<String> {
    let supplies: Vec<(String, bool)> = std::fs::read_dir("/sys/class/power_supply")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let kind = read(e.path().join("type"))?.trim().to_owned();
            let online = read(e.path().join("online")).is_some_and(|s| s.trim() == "1");
            Some((kind, online))
        })
        .collect();
    if supplies.is_empty() {
        return None;
    }
    Some(if supplies.iter().any(|(k, online)| k == "Mains" && *online) {
        "mains".into()
    } else if supplies.iter().any(|(k, _)| k == "Battery") {
        "battery".into()
    } else {
        "unknown".into()
    })
}

/// Processes in state R other than this one, as `name (pid)`.
fn busy_processes() -> Option<Vec<String>> {
    let me = std::process::id().to_string();
    let entries = std::fs::read_dir("/proc").ok()?;
    let mut busy = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        // /proc/PID/stat: "pid (comm) state …"; comm may hold spaces and parentheses.
        let Some(stat) = read(entry.path().join("stat")) else { continue };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        if stat[close + 1..].trim_start().starts_with('R') {
            busy.push(format!("{} ({pid})", &stat[open + 1..close]));
        }
    }
    Some(busy)
}

/// The compiler and profile that built the kernels.
fn compiler() -> String {
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

    #[test]
    fn proc_fields_parse() {
        let text = "processor\t: 0\nmodel name\t: Test CPU @ 3.0GHz\nflags\t\t: fpu constant_tsc\n";
        assert_eq!(field(text, "model name").as_deref(), Some("Test CPU @ 3.0GHz"));
        assert_eq!(
            os_name("NAME=x\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n").as_deref(),
            Some("Debian GNU/Linux 12 (bookworm)")
        );
    }
}
