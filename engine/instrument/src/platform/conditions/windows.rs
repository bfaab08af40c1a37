//! Windows: the system APIs, through `sysinfo` (CPU name, memory, OS
//! version, clock) and `GetSystemPowerStatus` (power source).
//!
//! Windows has no load average and no TSC flags, cache sizes, governor or
//! `perf_event_paranoid` that a user program can read the same way, and
//! `sysinfo` reports every process as running there, so those fields are
//! "not available".

// Compiled everywhere so the interpretation is tested on every OS; only
// used for real on Windows.
#![cfg_attr(not(windows), allow(dead_code))]

use crate::platform::machine::{Machine, Reading};

/// What `GetSystemPowerStatus` returns that Vernier uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PowerStatus {
    /// `ACLineStatus`: 0 offline, 1 online, 255 unknown.
    pub ac_line: u8,
    /// `BatteryFlag`: 128 means the machine has no system battery.
    pub battery_flag: u8,
}

/// The Windows system calls Vernier reads; a fake in tests.
pub trait WindowsApi {
    /// The CPU's brand string.
    fn cpu_brand(&self) -> Option<String>;
    /// Installed memory, bytes.
    fn total_memory(&self) -> Option<u64>;
    /// The OS's long name, e.g. "Windows 11 Pro".
    fn os_name(&self) -> Option<String>;
    /// The OS's version, e.g. "11 (22631)".
    fn os_version(&self) -> Option<String>;
    /// The kernel's version (build number).
    fn kernel_version(&self) -> Option<String>;
    /// The power status, or `None` when the call failed.
    fn power_status(&self) -> Option<PowerStatus>;
}

/// Fills `base` from the Windows APIs.
pub fn read(api: &impl WindowsApi, base: Machine) -> Machine {
    let nonempty = |s: Option<String>| s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    let os = match (nonempty(api.os_name()), nonempty(api.os_version())) {
        (Some(name), Some(version)) => Some(format!("{name} (version {version})")),
        (name, None) => name,
        (None, Some(version)) => Some(format!("Windows (version {version})")),
    };
    Machine {
        cpu_model: Reading(nonempty(api.cpu_brand())),
        ram_bytes: Reading(api.total_memory().filter(|b| *b > 0)),
        os: Reading(os),
        kernel: Reading(nonempty(api.kernel_version()).map(|k| format!("Windows NT build {k}"))),
        power_source: Reading(api.power_status().map(power_source)),
        ..base
    }
}

/// `mains`, `battery` or `unknown` from the power status: a machine with no
/// system battery runs on mains whatever the AC flag says.
pub fn power_source(status: PowerStatus) -> String {
    const NO_SYSTEM_BATTERY: u8 = 128;
    match status.ac_line {
        _ if status.battery_flag == NO_SYSTEM_BATTERY => "mains",
        1 => "mains",
        0 => "battery",
        _ => "unknown",
    }
    .into()
}

/// The real APIs.
#[cfg(windows)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RealApi;

#[cfg(windows)]
impl RealApi {
    fn system(refresh: sysinfo::RefreshKind) -> Option<sysinfo::System> {
        sysinfo::System::new_with_specifics(refresh).ok()
    }
    fn cpus() -> Option<sysinfo::System> {
        Self::system(sysinfo::RefreshKind::nothing().with_cpu(sysinfo::CpuRefreshKind::nothing().with_frequency()))
    }
}

#[cfg(windows)]
impl WindowsApi for RealApi {
    fn cpu_brand(&self) -> Option<String> {
        Self::cpus()?.cpus().first().map(|c| c.brand().to_owned())
    }
    fn total_memory(&self) -> Option<u64> {
        let refresh = sysinfo::RefreshKind::nothing().with_memory(sysinfo::MemoryRefreshKind::nothing().with_ram());
        Some(Self::system(refresh)?.total_memory())
    }
    fn os_name(&self) -> Option<String> {
        sysinfo::System::long_os_version().ok()
    }
    fn os_version(&self) -> Option<String> {
        sysinfo::System::os_version().ok()
    }
    fn kernel_version(&self) -> Option<String> {
        sysinfo::System::kernel_version().ok()
    }
    fn power_status(&self) -> Option<PowerStatus> {
        ffi::power_status()
    }
}

/// The one Windows call no safe crate wraps.
#[cfg(windows)]
#[allow(unsafe_code)]
mod ffi {
    use windows_sys::Win32::System::Power::{GetSystemPowerStatus, SYSTEM_POWER_STATUS};

    use super::PowerStatus;

    pub fn power_status() -> Option<PowerStatus> {
        let mut status = SYSTEM_POWER_STATUS {
            ACLineStatus: 0,
            BatteryFlag: 0,
            BatteryLifePercent: 0,
            SystemStatusFlag: 0,
            BatteryLifeTime: 0,
            BatteryFullLifeTime: 0,
        };
        // SAFETY: `status` is a valid, writable SYSTEM_POWER_STATUS owned by
        // this frame for the whole call; the function only writes into it
        // and keeps no pointer to it.
        let ok = unsafe { GetSystemPowerStatus(&mut status) };
        (ok != 0).then_some(PowerStatus { ac_line: status.ACLineStatus, battery_flag: status.BatteryFlag })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::conditions::blank;

    /// Canned API answers.
    #[derive(Default)]
    struct FakeApi {
        brand: Option<&'static str>,
        memory: Option<u64>,
        name: Option<&'static str>,
        version: Option<&'static str>,
        kernel: Option<&'static str>,
        power: Option<PowerStatus>,
    }

    impl WindowsApi for FakeApi {
        fn cpu_brand(&self) -> Option<String> {
            self.brand.map(str::to_owned)
        }
        fn total_memory(&self) -> Option<u64> {
            self.memory
        }
        fn os_name(&self) -> Option<String> {
            self.name.map(str::to_owned)
        }
        fn os_version(&self) -> Option<String> {
            self.version.map(str::to_owned)
        }
        fn kernel_version(&self) -> Option<String> {
            self.kernel.map(str::to_owned)
        }
        fn power_status(&self) -> Option<PowerStatus> {
            self.power
        }
    }

    // SPEC E9: a Windows laptop on battery, as the APIs answer.
    #[test]
    fn reads_a_windows_laptop() {
        let api = FakeApi {
            brand: Some("11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz  "),
            memory: Some(16_893_042_688),
            name: Some("Windows 11 Home"),
            version: Some("11 (22631)"),
            kernel: Some("22631"),
            power: Some(PowerStatus { ac_line: 0, battery_flag: 1 }),
        };
        let m = read(&api, blank("c".into(), "p".into()));
        assert_eq!(m.cpu_model.0.as_deref(), Some("11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz"));
        assert_eq!(m.ram_bytes.0, Some(16_893_042_688));
        assert_eq!(m.os.0.as_deref(), Some("Windows 11 Home (version 11 (22631))"));
        assert_eq!(m.kernel.0.as_deref(), Some("Windows NT build 22631"));
        assert_eq!(m.power_source.0.as_deref(), Some("battery"));
        assert_eq!((m.load_average.0, m.busy_processes.0, m.caches.0), (None, None, None));
    }

    // SPEC E9: the power flags as Windows documents them.
    #[test]
    fn power_flags() {
        let status = |ac_line, battery_flag| power_source(PowerStatus { ac_line, battery_flag });
        assert_eq!(status(1, 8), "mains");
        assert_eq!(status(0, 2), "battery");
        assert_eq!(status(255, 128), "mains", "a desktop without a battery");
        assert_eq!(status(255, 1), "unknown");
    }

    // SPEC E9: every API failed: every OS field says "not available".
    #[test]
    fn nothing_answers() {
        let m = read(&FakeApi::default(), blank("c".into(), "p".into()));
        crate::platform::conditions::tests::assert_nothing_read(&m);
    }
}
