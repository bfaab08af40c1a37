//! macOS: `sysctl`, `sw_vers`, `pmset` and `ps`, the system's own
//! commands, which need no root and no private framework.
//!
//! Not readable without root or a private framework, so "not available":
//! the frequency governor and the current clock on Apple silicon, the
//! TSC flags on Apple silicon (there is no TSC), `perf_event_paranoid`
//! (a Linux setting).

// Compiled everywhere so the parsing is tested on every OS; only used for
// real on macOS.
#![cfg_attr(not(target_os = "macos"), allow(dead_code))]

use super::{field, three_loads};
use crate::platform::machine::{Cache, Machine, Reading};

/// Runs a system command; a fake in tests.
pub trait Commands {
    /// The standard output of `program args…`, or `None` when it could not
    /// be started. Output is returned even on a non-zero exit: `sysctl`
    /// exits 1 when one of several names is unknown, yet prints the others.
    fn output(&self, program: &str, args: &[&str]) -> Option<String>;
}

/// The real commands.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealCommands;

impl Commands for RealCommands {
    fn output(&self, program: &str, args: &[&str]) -> Option<String> {
        let out = std::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        String::from_utf8(out.stdout).ok()
    }
}

/// The `sysctl` names read, in one call (`name: value` lines come back).
const SYSCTLS: [&str; 12] = [
    "machdep.cpu.brand_string",
    "hw.memsize",
    "kern.osrelease",
    "hw.l1dcachesize",
    "hw.l1icachesize",
    "hw.l2cachesize",
    "hw.l3cachesize",
    "machdep.cpu.extfeatures",
    "kern.hv_vmm_present",
    "hw.cpufrequency_min",
    "hw.cpufrequency_max",
    "vm.loadavg",
];

/// Fills `base` from the system's commands.
pub fn read(commands: &impl Commands, base: Machine) -> Machine {
    let sysctl = commands.output("/usr/sbin/sysctl", &SYSCTLS).unwrap_or_default();
    let get = |name: &str| field(&sysctl, name).filter(|v| !v.is_empty());
    let number = |name: &str| get(name).and_then(|v| v.parse::<u64>().ok());
    // Intel Macs list "TSCI" (invariant TSC: constant and non-stop); Apple
    // silicon has no TSC and no such sysctl.
    let invariant_tsc = get("machdep.cpu.extfeatures").map(|f| f.split_whitespace().any(|x| x == "TSCI"));
    Machine {
        cpu_model: Reading(get("machdep.cpu.brand_string")),
        ram_bytes: Reading(number("hw.memsize")),
        os: Reading(commands.output("/usr/bin/sw_vers", &[]).as_deref().and_then(os_name)),
        kernel: Reading(get("kern.osrelease").map(|r| format!("Darwin {r}"))),
        caches: Reading(caches(&number)),
        constant_tsc: Reading(invariant_tsc),
        nonstop_tsc: Reading(invariant_tsc),
        hypervisor: Reading(get("kern.hv_vmm_present").and_then(|v| match v.as_str() {
            "0" => Some("none".to_owned()),
            "1" => Some("yes (macOS reports a virtual machine) — a shared host".to_owned()),
            _ => None,
        })),
        freq_range_mhz: Reading(
            number("hw.cpufrequency_min")
                .zip(number("hw.cpufrequency_max"))
                .map(|(lo, hi)| [lo / 1_000_000, hi / 1_000_000]),
        ),
        power_source: Reading(commands.output("/usr/bin/pmset", &["-g", "batt"]).as_deref().and_then(power_source)),
        load_average: Reading(get("vm.loadavg").as_deref().and_then(three_loads)),
        busy_processes: Reading(
            commands
                .output("/bin/ps", &["-A", "-o", "state=,pid=,comm="])
                .as_deref()
                .map(|ps| busy_processes(ps, std::process::id())),
        ),
        ..base
    }
}

/// "macOS 14.5 (23F79)" from `sw_vers`.
fn os_name(sw_vers: &str) -> Option<String> {
    let name = field(sw_vers, "ProductName")?;
    let version = field(sw_vers, "ProductVersion")?;
    Some(match field(sw_vers, "BuildVersion") {
        Some(build) => format!("{name} {version} ({build})"),
        None => format!("{name} {version}"),
    })
}

/// The cache sizes `sysctl` gives in bytes, written as Linux writes them.
fn caches(number: &dyn Fn(&str) -> Option<u64>) -> Option<Vec<Cache>> {
    let levels = [
        (1, "Data", "hw.l1dcachesize"),
        (1, "Instruction", "hw.l1icachesize"),
        (2, "Unified", "hw.l2cachesize"),
        (3, "Unified", "hw.l3cachesize"),
    ];
    let caches: Vec<Cache> = levels
        .iter()
        .filter_map(|&(level, kind, name)| {
            let bytes = number(name).filter(|b| *b > 0)?;
            Some(Cache { level, kind: kind.into(), size: format!("{}K", bytes / 1024) })
        })
        .collect();
    (!caches.is_empty()).then_some(caches)
}

/// `pmset -g batt` starts "Now drawing from 'AC Power'" or "'Battery Power'".
fn power_source(pmset: &str) -> Option<String> {
    let line = pmset.lines().find(|l| l.contains("drawing from"))?;
    Some(if line.contains("'AC Power'") {
        "mains".into()
    } else if line.contains("'Battery Power'") {
        "battery".into()
    } else {
        "unknown".into()
    })
}

/// Processes in state R (`ps -o state=,pid=,comm=`) other than `me`.
fn busy_processes(ps: &str, me: u32) -> Vec<String> {
    ps.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let state = words.next()?;
            let pid: u32 = words.next()?.parse().ok()?;
            let comm = words.collect::<Vec<_>>().join(" ");
            (state.starts_with('R') && pid != me).then(|| format!("{comm} ({pid})"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::platform::conditions::blank;

    /// Canned outputs by program.
    #[derive(Default)]
    struct FakeCommands(BTreeMap<&'static str, &'static str>);

    impl Commands for FakeCommands {
        fn output(&self, program: &str, _args: &[&str]) -> Option<String> {
            self.0.get(program).map(|s| (*s).to_owned())
        }
    }

    // SPEC E9: an Apple-silicon MacBook on battery, as its commands print it.
    #[test]
    fn reads_an_apple_silicon_macbook() {
        let fake = FakeCommands(BTreeMap::from([
            (
                "/usr/sbin/sysctl",
                "machdep.cpu.brand_string: Apple M2\nhw.memsize: 17179869184\nkern.osrelease: 23.5.0\n\
                 hw.l1dcachesize: 65536\nhw.l1icachesize: 131072\nhw.l2cachesize: 4194304\n\
                 kern.hv_vmm_present: 0\nvm.loadavg: { 1.50 1.62 1.71 }\n",
            ),
            ("/usr/bin/sw_vers", "ProductName:\t\tmacOS\nProductVersion:\t\t14.5\nBuildVersion:\t\t23F79\n"),
            ("/usr/bin/pmset", "Now drawing from 'Battery Power'\n -InternalBattery-0 (id=1)\t87%; discharging\n"),
            ("/bin/ps", "S      1 /sbin/launchd\nR    812 /usr/bin/clang\nR+   900 ps\n"),
        ]));
        let m = read(&fake, blank("c".into(), "p".into()));
        assert_eq!(m.cpu_model.0.as_deref(), Some("Apple M2"));
        assert_eq!(m.ram_bytes.0, Some(17_179_869_184));
        assert_eq!(m.os.0.as_deref(), Some("macOS 14.5 (23F79)"));
        assert_eq!(m.kernel.0.as_deref(), Some("Darwin 23.5.0"));
        let caches: Vec<String> = m.caches.0.expect("caches").iter().map(|c| c.size.clone()).collect();
        assert_eq!(caches, ["64K", "128K", "4096K"]);
        assert_eq!(m.constant_tsc.0, None, "Apple silicon has no TSC");
        assert_eq!(m.hypervisor.0.as_deref(), Some("none"));
        assert_eq!(m.freq_range_mhz.0, None);
        assert_eq!(m.power_source.0.as_deref(), Some("battery"));
        assert_eq!(m.load_average.0, Some([1.5, 1.62, 1.71]));
        assert_eq!(m.busy_processes.0, Some(vec!["/usr/bin/clang (812)".to_owned(), "ps (900)".to_owned()]));
        assert_eq!((m.governor.0, m.perf_event_paranoid.0), (None, None));
    }

    // SPEC E9: an Intel Mac in a VM on mains: invariant TSC and frequency range.
    #[test]
    fn reads_an_intel_mac_guest() {
        let fake = FakeCommands(BTreeMap::from([
            (
                "/usr/sbin/sysctl",
                "machdep.cpu.extfeatures: SYSCALL XD EM64T LAHF RDTSCP TSCI\nkern.hv_vmm_present: 1\n\
                 hw.cpufrequency_min: 2300000000\nhw.cpufrequency_max: 2300000000\n",
            ),
            ("/usr/bin/pmset", "Now drawing from 'AC Power'\n"),
        ]));
        let m = read(&fake, blank("c".into(), "p".into()));
        assert_eq!((m.constant_tsc.0, m.nonstop_tsc.0), (Some(true), Some(true)));
        assert!(m.hypervisor.0.as_deref().is_some_and(|h| h.starts_with("yes")));
        assert_eq!(m.freq_range_mhz.0, Some([2300, 2300]));
        assert_eq!(m.power_source.0.as_deref(), Some("mains"));
        assert_eq!(m.os.0, None, "no sw_vers output: not available");
        assert_eq!(m.busy_processes.0, None);
    }

    // SPEC E9: no command could be started: every OS field says "not available".
    #[test]
    fn nothing_runs() {
        let m = read(&FakeCommands::default(), blank("c".into(), "p".into()));
        crate::platform::conditions::tests::assert_nothing_read(&m);
    }
}
