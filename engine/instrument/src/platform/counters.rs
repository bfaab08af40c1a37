//! Hardware counters (SPEC E11, E13): read through `perf_event_open`, which
//! only Linux has. macOS keeps its counters behind a private framework and
//! Windows behind a kernel driver, so there they are not available.

/// Whether a hardware cycle counter can be opened by this process, and why not.
#[cfg(target_os = "linux")]
pub fn probe() -> String {
    match perf_event::Builder::new(perf_event::events::Hardware::CPU_CYCLES).build() {
        Ok(_) => AVAILABLE.into(),
        Err(e) => refusal(e.raw_os_error(), &e.to_string()),
    }
}

/// Whether a hardware cycle counter can be opened by this process, and why not.
#[cfg(not(target_os = "linux"))]
pub fn probe() -> String {
    format!("{} (Vernier reads hardware counters through Linux perf_event_open)", super::NOT_ON_THIS_PLATFORM)
}

/// What the row says when the counter opened.
pub const AVAILABLE: &str = "available (hardware cycle counter opened)";

/// Why `perf_event_open` refused, from its errno.
pub fn refusal(errno: Option<i32>, message: &str) -> String {
    match errno {
        // ENOENT / EOPNOTSUPP: the kernel offers no such event here (a VM without a virtual PMU, for one).
        Some(2 | 95) => format!("not available: this machine exposes no hardware cycle counter ({message})"),
        // EACCES / EPERM: a counter exists but this user may not read it.
        Some(1 | 13) => format!("not available: not permitted here ({message}); see perf_event_paranoid"),
        _ => format!("not available: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E9, E11: a refused counter says why, never "available".
    #[test]
    fn refusals_name_their_reason() {
        assert!(refusal(Some(13), "Permission denied").contains("perf_event_paranoid"));
        assert!(refusal(Some(2), "No such file").contains("exposes no hardware cycle counter"));
        assert_eq!(refusal(None, "odd"), "not available: odd");
        assert!(probe().starts_with("available") || probe().starts_with("not available"));
    }
}
