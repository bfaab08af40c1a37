//! The machine's conditions (SPEC E9) as each OS reports them.
//!
//! - `linux`: `/proc`, `/sys` and `/etc/os-release`, behind [`Files`];
//! - `macos`: `sysctl`, `sw_vers`, `pmset` and `ps`, behind [`Commands`];
//! - `windows`: the system APIs (through `sysinfo` and
//!   `GetSystemPowerStatus`), behind [`WindowsApi`].
//!
//! All three readers are compiled on every OS, so their parsing and their
//! "not available" paths are tested on Linux with fakes; only the real
//! sources are OS-specific. A field an OS cannot give stays `None`, shown
//! as "not available" — never guessed.

mod linux;
mod macos;
mod windows;

pub use linux::{Files, RealFiles};
pub use macos::{Commands, RealCommands};
pub use windows::{PowerStatus, WindowsApi};

use crate::platform::machine::{Machine, Reading};

/// Reads everything this OS offers now.
pub fn read() -> Machine {
    native::read(blank(super::counters::probe(), super::pinning::probe()))
}

// Here rather than beside `Machine`, so the machine's facts need not know
// the readers that fill them (they depend on it, not it on them).
impl Machine {
    /// Reads everything now.
    pub fn read() -> Self {
        read()
    }
}

/// The readers over this OS's real sources.
#[cfg(target_os = "linux")]
mod native {
    use super::{Machine, RealFiles, linux};
    pub fn read(base: Machine) -> Machine {
        linux::read(&RealFiles, base)
    }
}

/// The readers over this OS's real sources.
#[cfg(target_os = "macos")]
mod native {
    use super::{Machine, RealCommands, macos};
    pub fn read(base: Machine) -> Machine {
        macos::read(&RealCommands, base)
    }
}

/// The readers over this OS's real sources.
#[cfg(windows)]
mod native {
    use super::{Machine, windows};
    pub fn read(base: Machine) -> Machine {
        windows::read(&windows::RealApi, base)
    }
}

/// Another OS: nothing but what is read the same way everywhere.
#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
mod native {
    use super::Machine;
    pub fn read(base: Machine) -> Machine {
        base
    }
}

/// A machine of which nothing has been read yet but what is probed the
/// same way everywhere (logical CPUs, the compiler) and the two probes given.
pub fn blank(counters: String, placement: String) -> Machine {
    Machine {
        cpu_model: Reading(None),
        logical_cpus: Reading(std::thread::available_parallelism().ok().map(std::num::NonZero::get)),
        ram_bytes: Reading(None),
        os: Reading(None),
        kernel: Reading(None),
        caches: Reading(None),
        constant_tsc: Reading(None),
        nonstop_tsc: Reading(None),
        hypervisor: Reading(None),
        governor: Reading(None),
        freq_range_mhz: Reading(None),
        perf_event_paranoid: Reading(None),
        counters,
        placement,
        power_source: Reading(None),
        load_average: Reading(None),
        busy_processes: Reading(None),
        compiler: crate::platform::machine::compiler(),
    }
}

/// The value of the first `key: value` line (`/proc/cpuinfo`, `sysctl`,
/// `sw_vers` all write this way).
fn field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_owned())
    })
}

/// Three load averages from whitespace-separated text (braces ignored).
fn three_loads(text: &str) -> Option<[f64; 3]> {
    let mut it = text.split_whitespace().filter(|w| *w != "{" && *w != "}").map(str::parse::<f64>);
    Some([it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?])
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every field an OS reader fills says "not available" (the rest are
    /// read the same way everywhere, or given by the probes).
    pub fn assert_nothing_read(m: &Machine) {
        for row in m.conditions() {
            if !["logical CPUs", "counters", "placement", "compiler"].contains(&row.field.as_str()) {
                assert_eq!(row.value, crate::platform::machine::NOT_AVAILABLE, "{}", row.field);
            }
        }
    }

    // SPEC E9: `key: value` text and load averages parse the same on every OS.
    #[test]
    fn shared_parsers() {
        let text = "processor\t: 0\nmodel name\t: Test CPU @ 3.0GHz\nflags\t\t: fpu constant_tsc\n";
        assert_eq!(field(text, "model name").as_deref(), Some("Test CPU @ 3.0GHz"));
        assert_eq!(field(text, "absent"), None);
        assert_eq!(three_loads("0.52 0.58 0.59 1/467 12345"), Some([0.52, 0.58, 0.59]));
        assert_eq!(three_loads("{ 1.50 1.62 1.71 }"), Some([1.5, 1.62, 1.71]));
        assert_eq!(three_loads("1.5"), None);
    }
}
