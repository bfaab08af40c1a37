//! What is sampled beside the score (SPEC T3): clock, SoC temperature,
//! power and skin temperature, each from a real source or declared a
//! placeholder. Paths are read under a root so tests can lay out fake
//! `/sys` and `/proc` trees like real machines'.
//!
//! These are Linux's sources. macOS and Windows expose no clock,
//! temperature or power reading to a program without root (macOS keeps them
//! behind the SMC and `powermetrics`, Windows behind WMI as administrator),
//! so there all four columns are named placeholders; the power source is
//! still read, with the conditions (`crate::platform::conditions`).

use std::path::{Path, PathBuf};
use std::time::Instant;

/// Thermal-zone types taken as the SoC / package temperature, best first.
const SOC_ZONES: [&str; 7] =
    ["x86_pkg_temp", "soc_thermal", "cpu-thermal", "cpu_thermal", "cpu0-thermal", "tcpu", "acpitz"];
/// What a column with no source says in the file's comments.
const NO_SOURCE: &str = if cfg!(target_os = "linux") {
    "placeholder (no source)"
} else {
    "placeholder (not available on this platform without root)"
};
/// hwmon chips that report the CPU package temperature.
const SOC_HWMON: [&str; 4] = ["coretemp", "k10temp", "zenpower", "cpu_thermal"];

/// Where the clock comes from: `scaling_cur_freq` of every CPU (kHz),
/// averaged. `/proc/cpuinfo`'s `cpu MHz` is no clock reading: on a virtual
/// machine it is a constant nominal figure, so without cpufreq the column
/// is a placeholder and that line is only quoted, for orientation (T3, T12).
#[derive(Debug, Clone, PartialEq)]
struct Clock(Vec<PathBuf>);

/// A RAPL energy counter: microjoules, wrapping at `max`.
#[derive(Debug, Clone, PartialEq)]
struct Rapl {
    energy: PathBuf,
    max: u64,
}

/// The sources found on a machine.
#[derive(Debug)]
pub struct Sensors {
    clock: Option<Clock>,
    /// `/proc/cpuinfo`'s `cpu MHz` when there is no cpufreq: quoted in the
    /// file's comments, never written as a clock.
    nominal_mhz: Option<f64>,
    soc: Option<PathBuf>,
    skin: Option<PathBuf>,
    rapl: Option<Rapl>,
    last_energy: Option<(u64, Instant)>,
}

impl Sensors {
    /// Looks for every source under `root` (`/` on a real machine).
    pub fn discover(root: &Path) -> Self {
        let zones = thermal_zones(root);
        let zone =
            |names: &[&str]| names.iter().find_map(|n| zones.iter().find(|(t, _)| t == n).map(|(_, p)| p.clone()));
        let soc = zone(&SOC_ZONES).or_else(|| hwmon_temp(root));
        let skin = zones.iter().find(|(t, _)| t.to_ascii_lowercase().contains("skin")).map(|(_, p)| p.clone());
        let clock = clock(root);
        let nominal_mhz = if clock.is_none() { cpuinfo_mhz(&root.join("proc/cpuinfo")) } else { None };
        Self { clock, nominal_mhz, soc, skin, rapl: rapl(root), last_energy: None }
    }

    /// Where each column comes from, for the file's comments.
    pub fn sources(&self) -> Vec<(&'static str, String)> {
        let show = |p: &Option<PathBuf>| p.as_ref().map_or_else(|| NO_SOURCE.to_owned(), |p| p.display().to_string());
        vec![
            (
                "clock_mhz",
                match (&self.clock, self.nominal_mhz) {
                    (Some(Clock(p)), _) => format!("cpufreq scaling_cur_freq of {} CPUs", p.len()),
                    (None, Some(mhz)) => format!(
                        "{NO_SOURCE}; /proc/cpuinfo says cpu MHz {} — a nominal figure, for orientation, not used",
                        vernier_model::stats::format_plain(mhz)
                    ),
                    (None, None) => NO_SOURCE.into(),
                },
            ),
            (
                "power_w",
                self.rapl.as_ref().map_or_else(|| NO_SOURCE.into(), |r| format!("RAPL {}", r.energy.display())),
            ),
            ("soc_temp_c", show(&self.soc)),
            ("skin_temp_c", show(&self.skin)),
        ]
    }

    /// Columns with no source: written as 0 and named in `# placeholders:`.
    pub fn placeholders(&self) -> Vec<&'static str> {
        let mut p = Vec::new();
        if self.clock.is_none() {
            p.push("clock_mhz");
        }
        if self.rapl.is_none() {
            p.push("power_w");
        }
        if self.soc.is_none() {
            p.push("soc_temp_c");
        }
        if self.skin.is_none() {
            p.push("skin_temp_c");
        }
        p
    }

    /// Reads clock (MHz), power (W since the last call), SoC and skin
    /// temperature (°C); 0 for a placeholder or a failed read.
    pub fn sample(&mut self) -> [f64; 4] {
        [self.clock_mhz(), self.power_w(), read_milli(self.soc.as_deref()), read_milli(self.skin.as_deref())]
    }

    fn clock_mhz(&self) -> f64 {
        let values: Vec<f64> = match &self.clock {
            Some(Clock(paths)) => paths.iter().filter_map(|p| read_number(p)).map(|khz| khz / 1000.0).collect(),
            None => Vec::new(),
        };
        if values.is_empty() { 0.0 } else { values.iter().sum::<f64>() / values.len() as f64 }
    }

    /// Power over the interval since the previous call, from the energy
    /// counter's difference (wrapping at its range).
    fn power_w(&mut self) -> f64 {
        let Some(rapl) = &self.rapl else { return 0.0 };
        let Some(energy) = read_number(&rapl.energy).map(|e| e as u64) else { return 0.0 };
        let now = Instant::now();
        let watts = match self.last_energy {
            Some((prev, at)) => {
                let delta = if energy >= prev { energy - prev } else { rapl.max.saturating_sub(prev) + energy };
                let secs = now.duration_since(at).as_secs_f64();
                if secs > 0.0 { delta as f64 / 1e6 / secs } else { 0.0 }
            }
            None => 0.0,
        };
        self.last_energy = Some((energy, now));
        watts
    }
}

fn read_number(path: &Path) -> Option<f64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

fn read_milli(path: Option<&Path>) -> f64 {
    path.and_then(read_number).map_or(0.0, |m| m / 1000.0)
}

fn numbered_dirs(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

fn clock(root: &Path) -> Option<Clock> {
    let cpus = numbered_dirs(&root.join("sys/devices/system/cpu"), "cpu");
    let freqs: Vec<PathBuf> =
        cpus.iter().map(|c| c.join("cpufreq/scaling_cur_freq")).filter(|p| read_number(p).is_some()).collect();
    (!freqs.is_empty()).then_some(Clock(freqs))
}

/// The average of `/proc/cpuinfo`'s `cpu MHz` lines, if it has any.
fn cpuinfo_mhz(path: &Path) -> Option<f64> {
    let text = vernier_model::bounded::read_bounded(path, 1024 * 1024, "/proc/cpuinfo").ok()?;
    let values: Vec<f64> = String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| {
            l.split_once(':').filter(|(k, _)| k.trim() == "cpu MHz").and_then(|(_, v)| v.trim().parse().ok())
        })
        .filter(|v: &f64| v.is_finite())
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn thermal_zones(root: &Path) -> Vec<(String, PathBuf)> {
    numbered_dirs(&root.join("sys/class/thermal"), "thermal_zone")
        .into_iter()
        .filter_map(|z| {
            let kind = std::fs::read_to_string(z.join("type")).ok()?.trim().to_owned();
            let temp = z.join("temp");
            read_number(&temp).map(|_| (kind, temp))
        })
        .collect()
}

fn hwmon_temp(root: &Path) -> Option<PathBuf> {
    numbered_dirs(&root.join("sys/class/hwmon"), "hwmon").into_iter().find_map(|h| {
        let name = std::fs::read_to_string(h.join("name")).ok()?;
        let temp = h.join("temp1_input");
        (SOC_HWMON.contains(&name.trim()) && read_number(&temp).is_some()).then_some(temp)
    })
}

fn rapl(root: &Path) -> Option<Rapl> {
    let base = root.join("sys/class/powercap");
    ["intel-rapl:0", "intel-rapl/intel-rapl:0"].iter().map(|p| base.join(p)).find_map(|dir| {
        let energy = dir.join("energy_uj");
        read_number(&energy)?;
        let max = read_number(&dir.join("max_energy_range_uj")).map_or(u64::MAX, |m| m as u64);
        Some(Rapl { energy, max })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    // SPEC T3: a laptop-like tree: cpufreq, a package zone, a skin zone, RAPL.
    #[test]
    fn laptop_tree_has_every_source() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        write(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "2400000\n");
        write(root, "sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "1600000\n");
        write(root, "sys/class/thermal/thermal_zone0/type", "acpitz\n");
        write(root, "sys/class/thermal/thermal_zone0/temp", "40000\n");
        write(root, "sys/class/thermal/thermal_zone1/type", "x86_pkg_temp\n");
        write(root, "sys/class/thermal/thermal_zone1/temp", "71500\n");
        write(root, "sys/class/thermal/thermal_zone2/type", "skin-therm\n");
        write(root, "sys/class/thermal/thermal_zone2/temp", "38250\n");
        write(root, "sys/class/powercap/intel-rapl:0/energy_uj", "1000000\n");
        write(root, "sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
        let mut s = Sensors::discover(root);
        assert!(s.placeholders().is_empty(), "{:?}", s.placeholders());
        let [clock, power, soc, skin] = s.sample();
        assert_eq!((clock, power, soc, skin), (2000.0, 0.0, 71.5, 38.25));
        std::thread::sleep(std::time::Duration::from_millis(50));
        write(root, "sys/class/powercap/intel-rapl:0/energy_uj", "2000000\n");
        let power = s.sample()[1];
        assert!(power > 1.0 && power < 25.0, "1 J over about 50 ms: {power} W");
    }

    // SPEC T3: a desktop with hwmon and a counter that wraps.
    #[test]
    fn hwmon_and_wrapping_rapl() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        write(root, "proc/cpuinfo", "processor : 0\ncpu MHz : 3600.000\nprocessor : 1\ncpu MHz : 3400.000\n");
        write(root, "sys/class/hwmon/hwmon0/name", "nvme\n");
        write(root, "sys/class/hwmon/hwmon0/temp1_input", "30000\n");
        write(root, "sys/class/hwmon/hwmon1/name", "k10temp\n");
        write(root, "sys/class/hwmon/hwmon1/temp1_input", "55000\n");
        write(root, "sys/class/powercap/intel-rapl/intel-rapl:0/energy_uj", "999000\n");
        write(root, "sys/class/powercap/intel-rapl/intel-rapl:0/max_energy_range_uj", "1000000\n");
        let mut s = Sensors::discover(root);
        // SPEC T3, T12: `cpu MHz` is no clock; quoted, never sampled.
        assert_eq!(s.placeholders(), ["clock_mhz", "skin_temp_c"]);
        assert_eq!(s.sample()[0], 0.0);
        let clock = s.sources().into_iter().find(|(c, _)| *c == "clock_mhz").expect("clock source").1;
        assert!(clock.contains("cpu MHz 3500 — a nominal figure, for orientation, not used"), "{clock}");
        assert_eq!(s.sample()[2], 55.0);
        write(root, "sys/class/powercap/intel-rapl/intel-rapl:0/energy_uj", "1000\n");
        assert!(s.sample()[1] > 0.0, "a wrapped counter still gives a positive power");
    }

    // SPEC T3: a machine with nothing: every column but the score is a placeholder.
    #[test]
    fn bare_machine_declares_placeholders() {
        let tmp = tempfile::tempdir().expect("tmp");
        let s = Sensors::discover(tmp.path());
        assert_eq!(s.placeholders(), ["clock_mhz", "power_w", "soc_temp_c", "skin_temp_c"]);
    }
}
