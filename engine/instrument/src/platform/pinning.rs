//! Pinning a thread to one CPU (SPEC E8). Linux and Windows pin for real
//! (`sched_setaffinity`, `SetThreadAffinityMask`, through `core_affinity`);
//! macOS only lets a program hint the scheduler (affinity tags), which is
//! not placement, so there it is reported as not available, never "pinned".

use vernier_model::notebook::{NO_PLACEMENT, PINNED_TO};

/// What macOS offers instead of placement.
pub const MACOS_HINT_ONLY: &str = "not available (macOS offers a hint only)";

/// Whether threads can be pinned here: pins a short-lived thread to the
/// first CPU, without pinning the caller.
pub fn probe() -> String {
    if cfg!(target_os = "macos") {
        return MACOS_HINT_ONLY.to_owned();
    }
    let probe = std::thread::Builder::new().name("vernier-pin-probe".into()).spawn(|| {
        let cores = cpus();
        match cores.as_deref().and_then(<[usize]>::first) {
            Some(&cpu) if set_for_current(cpu) => {
                format!("available ({} CPUs can be pinned)", cores.map_or(0, |c| c.len()))
            }
            _ => NO_PLACEMENT.to_owned(),
        }
    });
    probe.ok().and_then(|h| h.join().ok()).unwrap_or_else(|| NO_PLACEMENT.to_owned())
}

/// Pins the calling thread to `cpu` and says honestly whether it took.
pub fn pin(cpu: Option<usize>) -> String {
    if cfg!(target_os = "macos") {
        return cpu.map_or_else(|| "not pinned (no --pin given)".to_owned(), |_| MACOS_HINT_ONLY.to_owned());
    }
    pin_with(cpu, cpus(), set_for_current)
}

/// The CPUs a run could be pinned to here, or why none can (macOS's hint,
/// or a platform that does not list them): what a rerun needs to know
/// before it promises another machine's pin (SPEC R4).
pub fn cpus_here() -> Result<Vec<usize>, &'static str> {
    if cfg!(target_os = "macos") {
        return Err(MACOS_HINT_ONLY);
    }
    cpus().ok_or(NO_PLACEMENT)
}

/// The CPU a [`pin`] text says the run was pinned to (`pinned to CPU 3`),
/// read back exactly as [`pin_with`] writes it; `None` for anything else —
/// not pinned, refused, or another platform's wording.
pub fn pinned_cpu(text: &str) -> Option<usize> {
    text.strip_prefix(PINNED_TO)?.parse().ok()
}

/// [`pin`] over a list of CPU ids (`None`: the OS would not list them) and
/// a setter that reports whether the pin took.
pub fn pin_with(cpu: Option<usize>, cpus: Option<Vec<usize>>, set: impl FnOnce(usize) -> bool) -> String {
    let Some(cpu) = cpu else {
        return "not pinned (no --pin given)".into();
    };
    let Some(cpus) = cpus else {
        return NO_PLACEMENT.to_owned();
    };
    if cpus.contains(&cpu) {
        if set(cpu) { format!("{PINNED_TO}{cpu}") } else { format!("pinning to CPU {cpu} was refused: {NO_PLACEMENT}") }
    } else {
        let ids: Vec<String> = cpus.iter().map(ToString::to_string).collect();
        format!("not pinned: there is no CPU {cpu} (CPUs here: {})", ids.join(", "))
    }
}

#[cfg(any(target_os = "linux", windows))]
fn cpus() -> Option<Vec<usize>> {
    core_affinity::get_core_ids().map(|cores| cores.into_iter().map(|c| c.id).collect())
}

#[cfg(any(target_os = "linux", windows))]
fn set_for_current(cpu: usize) -> bool {
    core_affinity::set_for_current(core_affinity::CoreId { id: cpu })
}

#[cfg(not(any(target_os = "linux", windows)))]
fn cpus() -> Option<Vec<usize>> {
    None
}

#[cfg(not(any(target_os = "linux", windows)))]
fn set_for_current(_cpu: usize) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E8: "pinned" only when the pin took; every other case says why.
    #[test]
    fn pin_says_what_happened() {
        assert_eq!(pin_with(None, Some(vec![0, 1]), |_| true), "not pinned (no --pin given)");
        assert_eq!(pin_with(Some(1), Some(vec![0, 1]), |_| true), "pinned to CPU 1");
        assert!(pin_with(Some(1), Some(vec![0, 1]), |_| false).ends_with(NO_PLACEMENT));
        assert_eq!(pin_with(Some(7), Some(vec![0, 1]), |_| true), "not pinned: there is no CPU 7 (CPUs here: 0, 1)");
        assert_eq!(pin_with(Some(0), None, |_| true), NO_PLACEMENT);
    }

    // SPEC E8, S10: a pin that took reads back as its CPU (an extension
    // pins where the original did); nothing else is taken for a pin.
    #[test]
    fn a_pin_reads_back_as_its_cpu() {
        assert_eq!(pinned_cpu(&pin_with(Some(3), Some(vec![0, 3]), |_| true)), Some(3));
        for other in [
            pin_with(None, Some(vec![0]), |_| true),
            pin_with(Some(1), Some(vec![0, 1]), |_| false),
            pin_with(Some(7), Some(vec![0]), |_| true),
            MACOS_HINT_ONLY.to_owned(),
        ] {
            assert_eq!(pinned_cpu(&other), None, "{other}");
        }
    }

    // SPEC E8, E11: the probe never claims a pin on a platform that only hints.
    #[test]
    fn probe_is_honest_here() {
        let p = probe();
        if cfg!(target_os = "macos") {
            assert_eq!(p, MACOS_HINT_ONLY);
        } else {
            assert!(p.starts_with("available (") || p == NO_PLACEMENT, "{p}");
        }
    }
}
