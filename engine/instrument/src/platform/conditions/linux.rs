//! Linux: `/proc`, `/sys` and `/etc/os-release`.

// Compiled everywhere so the parsing is tested on every OS; only used for
// real on Linux.
#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

use super::{field, three_loads};
use crate::platform::machine::{Cache, Machine, Reading};

/// The files the Linux reader looks at; a fake in tests.
pub trait Files {
    /// The text of a file, or `None` when it cannot be read.
    fn read(&self, path: &str) -> Option<String>;
    /// The names in a folder (empty when it cannot be listed).
    fn list(&self, dir: &str) -> Vec<String>;
}

/// The real file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealFiles;

impl Files for RealFiles {
    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
    fn list(&self, dir: &str) -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect()
            })
            .unwrap_or_default()
    }
}

const CPUFREQ: &str = "/sys/devices/system/cpu/cpu0/cpufreq";

/// Fills `base` from `/proc`, `/sys` and `/etc/os-release`.
pub fn read(files: &impl Files, base: Machine) -> Machine {
    let cpuinfo = files.read("/proc/cpuinfo");
    let flags: Option<Vec<String>> =
        cpuinfo.as_deref().and_then(|c| field(c, "flags")).map(|f| f.split_whitespace().map(str::to_owned).collect());
    let has_flag = |name: &str| Reading(flags.as_ref().map(|f| f.iter().any(|x| x == name)));
    let khz = |name: &str| files.read(&format!("{CPUFREQ}/{name}")).and_then(|v| v.trim().parse::<u64>().ok());
    let trimmed = |path: &str| files.read(path).map(|s| s.trim().to_owned());
    Machine {
        cpu_model: Reading(cpuinfo.as_deref().and_then(|c| field(c, "model name").or_else(|| field(c, "Model")))),
        ram_bytes: Reading(
            files
                .read("/proc/meminfo")
                .as_deref()
                .and_then(|m| field(m, "MemTotal"))
                .and_then(|v| v.trim_end_matches("kB").trim().parse::<u64>().ok())
                .map(|kb| kb * 1024),
        ),
        os: Reading(files.read("/etc/os-release").as_deref().and_then(os_name)),
        kernel: Reading(trimmed("/proc/sys/kernel/osrelease")),
        caches: Reading(caches(files)),
        constant_tsc: has_flag("constant_tsc"),
        nonstop_tsc: has_flag("nonstop_tsc"),
        hypervisor: Reading(hypervisor(files, flags.as_deref())),
        governor: Reading(trimmed(&format!("{CPUFREQ}/scaling_governor"))),
        freq_range_mhz: Reading(
            khz("cpuinfo_min_freq").zip(khz("cpuinfo_max_freq")).map(|(lo, hi)| [lo / 1000, hi / 1000]),
        ),
        perf_event_paranoid: Reading(
            files.read("/proc/sys/kernel/perf_event_paranoid").and_then(|s| s.trim().parse().ok()),
        ),
        power_source: Reading(power_source(files)),
        load_average: Reading(files.read("/proc/loadavg").as_deref().and_then(three_loads)),
        busy_processes: Reading(busy_processes(files)),
        ..base
    }
}

fn os_name(os_release: &str) -> Option<String> {
    os_release.lines().find_map(|l| l.strip_prefix("PRETTY_NAME=")).map(|v| v.trim_matches('"').to_owned())
}

fn caches(files: &impl Files) -> Option<Vec<Cache>> {
    let dir = "/sys/devices/system/cpu/cpu0/cache";
    let mut caches: Vec<Cache> = files
        .list(dir)
        .into_iter()
        .filter(|name| name.starts_with("index"))
        .filter_map(|name| {
            let get = |f: &str| files.read(&format!("{dir}/{name}/{f}")).map(|s| s.trim().to_owned());
            Some(Cache { level: get("level")?.parse().ok()?, kind: get("type")?, size: get("size")? })
        })
        .collect();
    caches.sort_by(|a, b| (a.level, &a.kind).cmp(&(b.level, &b.kind)));
    (!caches.is_empty()).then_some(caches)
}

/// The hypervisor's name when the CPU says it runs under one; "none" when
/// the flags are readable and say it does not.
fn hypervisor(files: &impl Files, flags: Option<&[String]>) -> Option<String> {
    let flags = flags?;
    if !flags.iter().any(|f| f == "hypervisor") {
        return Some("none".into());
    }
    let name = files
        .read("/sys/hypervisor/type")
        .or_else(|| files.read("/sys/class/dmi/id/sys_vendor"))
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    Some(match name {
        Some(name) => format!("yes ({name}) — a shared host"),
        None => "yes (vendor not readable) — a shared host".into(),
    })
}

/// `mains` when a mains supply is online, `battery` when only a battery
/// reports, `unknown` when supplies exist but say neither; nothing when the
/// machine exposes no power supply at all.
fn power_source(files: &impl Files) -> Option<String> {
    let dir = "/sys/class/power_supply";
    let supplies: Vec<(String, bool)> = files
        .list(dir)
        .into_iter()
        .filter_map(|name| {
            let kind = files.read(&format!("{dir}/{name}/type"))?.trim().to_owned();
            let online = files.read(&format!("{dir}/{name}/online")).is_some_and(|s| s.trim() == "1");
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

/// Processes in state R other than this one, as `name (pid)`; nothing when
/// `/proc` cannot be listed.
fn busy_processes(files: &impl Files) -> Option<Vec<String>> {
    let me = std::process::id().to_string();
    let pids = files.list("/proc");
    if pids.is_empty() {
        return None;
    }
    let mut busy = Vec::new();
    for pid in pids {
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        // /proc/PID/stat: "pid (comm) state …"; comm may hold spaces and parentheses.
        let Some(stat) = files.read(&format!("/proc/{pid}/stat")) else { continue };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        if stat[close + 1..].trim_start().starts_with('R') {
            busy.push(format!("{} ({pid})", &stat[open + 1..close]));
        }
    }
    Some(busy)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::platform::conditions::blank;

    /// Files held in memory, by absolute path.
    #[derive(Default)]
    pub struct FakeFiles(pub BTreeMap<String, String>);

    impl FakeFiles {
        pub fn with(mut self, path: &str, text: &str) -> Self {
            self.0.insert(path.into(), text.into());
            self
        }
    }

    impl Files for FakeFiles {
        fn read(&self, path: &str) -> Option<String> {
            self.0.get(path).cloned()
        }
        fn list(&self, dir: &str) -> Vec<String> {
            let prefix = format!("{dir}/");
            let mut names: Vec<String> = self
                .0
                .keys()
                .filter_map(|k| k.strip_prefix(&prefix))
                .filter_map(|rest| rest.split('/').next())
                .map(str::to_owned)
                .collect();
            names.dedup();
            names
        }
    }

    // SPEC E9: a laptop's /proc and /sys, every field read from its source.
    #[test]
    fn reads_a_laptop() {
        let files = FakeFiles::default()
            .with("/proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU @ 3.0GHz\ncpu MHz\t\t: 2900.5\nflags\t\t: fpu constant_tsc nonstop_tsc\n")
            .with("/proc/meminfo", "MemTotal:       16318480 kB\nMemFree:  1 kB\n")
            .with("/etc/os-release", "NAME=x\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n")
            .with("/proc/sys/kernel/osrelease", "6.1.0-18-amd64\n")
            .with("/sys/devices/system/cpu/cpu0/cache/index0/level", "1\n")
            .with("/sys/devices/system/cpu/cpu0/cache/index0/type", "Data\n")
            .with("/sys/devices/system/cpu/cpu0/cache/index0/size", "48K\n")
            .with("/sys/devices/system/cpu/cpu0/cache/index3/level", "3\n")
            .with("/sys/devices/system/cpu/cpu0/cache/index3/type", "Unified\n")
            .with("/sys/devices/system/cpu/cpu0/cache/index3/size", "12288K\n")
            .with("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n")
            .with("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_min_freq", "400000\n")
            .with("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "4700000\n")
            .with("/proc/sys/kernel/perf_event_paranoid", "2\n")
            .with("/sys/class/power_supply/AC/type", "Mains\n")
            .with("/sys/class/power_supply/AC/online", "0\n")
            .with("/sys/class/power_supply/BAT0/type", "Battery\n")
            .with("/proc/loadavg", "0.52 0.58 0.59 1/467 12345\n")
            .with("/proc/1/stat", "1 (systemd) S 0\n")
            .with("/proc/42/stat", "42 (cc1 (plus)) R 1\n")
            .with("/proc/self/stat", "ignored");
        let m = read(&files, blank("c".into(), "p".into()));
        assert_eq!(m.cpu_model.0.as_deref(), Some("Test CPU @ 3.0GHz"));
        assert_eq!(m.ram_bytes.0, Some(16_318_480 * 1024));
        assert_eq!(m.os.0.as_deref(), Some("Debian GNU/Linux 12 (bookworm)"));
        assert_eq!(m.kernel.0.as_deref(), Some("6.1.0-18-amd64"));
        let caches = m.caches.0.expect("caches");
        assert_eq!((caches[0].level, caches[1].size.as_str()), (1, "12288K"));
        assert_eq!((m.constant_tsc.0, m.nonstop_tsc.0), (Some(true), Some(true)));
        assert_eq!(m.hypervisor.0.as_deref(), Some("none"));
        assert_eq!(m.governor.0.as_deref(), Some("powersave"));
        assert_eq!(m.freq_range_mhz.0, Some([400, 4700]));
        assert_eq!(m.perf_event_paranoid.0, Some(2));
        assert_eq!(m.power_source.0.as_deref(), Some("battery"));
        assert_eq!(m.load_average.0, Some([0.52, 0.58, 0.59]));
        assert_eq!(m.busy_processes.0, Some(vec!["cc1 (plus) (42)".to_owned()]));
    }

    // SPEC E9: a container with almost nothing readable says "not available".
    #[test]
    fn bare_container_reads_nothing() {
        let m = read(&FakeFiles::default(), blank("c".into(), "p".into()));
        crate::platform::conditions::tests::assert_nothing_read(&m);
    }

    // SPEC E9: a guest names its hypervisor; mains online wins over a battery.
    #[test]
    fn guest_on_mains() {
        let files = FakeFiles::default()
            .with("/proc/cpuinfo", "flags : fpu hypervisor\n")
            .with("/sys/class/dmi/id/sys_vendor", "QEMU\n")
            .with("/sys/class/power_supply/AC/type", "Mains\n")
            .with("/sys/class/power_supply/AC/online", "1\n")
            .with("/sys/class/power_supply/BAT0/type", "Battery\n");
        let m = read(&files, blank("c".into(), "p".into()));
        assert_eq!(m.hypervisor.0.as_deref(), Some("yes (QEMU) — a shared host"));
        assert_eq!(m.power_source.0.as_deref(), Some("mains"));
        assert_eq!(m.constant_tsc.0, Some(false));
    }
}
