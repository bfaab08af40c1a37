//! Which CPU a trial ran on, where the OS tells (SPEC E19: "if build A ran
//! mostly on performance cores … you measured the scheduler").
//!
//! - Linux: a kernel trial's thread asks `sched_getcpu` as the trial ends;
//!   a command's process, exited but not yet reaped, is read from field 39
//!   of `/proc/PID/stat` (the CPU it last ran on).
//! - macOS and Windows: not read here; the row then says nothing of it,
//!   never a guess.

/// The CPU the calling thread is on now.
pub fn this_thread() -> Option<u32> {
    imp::this_thread()
}

/// The CPU the exited, not yet reaped process `pid` last ran on.
pub fn exited_process(pid: u32) -> Option<u32> {
    imp::exited_process(pid)
}

/// Field 39 (`processor`) of a `/proc/PID/stat` line. The second field is
/// the command's name in brackets and may hold spaces or brackets itself,
/// so fields are counted from after its last `)`.
#[cfg(any(target_os = "linux", test))]
fn processor_of_stat(line: &str) -> Option<u32> {
    let (_, rest) = line.rsplit_once(')')?;
    // After the name come fields 3 (state) onwards: 39 is the 37th.
    rest.split_whitespace().nth(36)?.parse().ok()
}

#[cfg(target_os = "linux")]
mod imp {
    #[allow(unsafe_code)]
    pub fn this_thread() -> Option<u32> {
        // SAFETY: `sched_getcpu` takes no arguments and only reads the
        // calling thread's state; -1 is its error.
        let cpu = unsafe { libc::sched_getcpu() };
        u32::try_from(cpu).ok()
    }

    pub fn exited_process(pid: u32) -> Option<u32> {
        let line = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        super::processor_of_stat(&line)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn this_thread() -> Option<u32> {
        None
    }

    pub fn exited_process(_pid: u32) -> Option<u32> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E19: the processor field is read past a name with spaces and
    // brackets; a short or garbled line gives nothing.
    #[test]
    fn the_processor_is_field_39() {
        let fields: Vec<String> = (3..=52).map(|k| if k == 39 { "7".to_owned() } else { k.to_string() }).collect();
        let line = format!("4242 (a (weird) name) {}", fields.join(" "));
        assert_eq!(processor_of_stat(&line), Some(7));
        assert_eq!(processor_of_stat("4242 (short) S 1 2"), None);
        assert_eq!(processor_of_stat("no brackets at all"), None);
    }

    // SPEC E19: on Linux this thread's CPU is one of the machine's.
    #[cfg(target_os = "linux")]
    #[test]
    fn this_thread_is_on_a_cpu_of_this_machine() {
        let cpu = this_thread().expect("Linux tells");
        let sysfs = std::path::PathBuf::from(format!("/sys/devices/system/cpu/cpu{cpu}"));
        assert!(sysfs.is_dir(), "CPU {cpu} is not one of this machine's");
    }
}
