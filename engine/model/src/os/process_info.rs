//! Who a process is, as each OS tells it: this machine's name, a process's
//! program name, and when it started — so a pid written into a file (the
//! lock's holder, a raw file's reservation; SPEC N10) is named only while it
//! still means the same process, never a later one that reused the number.
//!
//! - Linux reads `/proc/sys/kernel/hostname` and `/proc/PID/{stat,comm}`
//!   (the start time in clock ticks since boot).
//! - macOS asks `ps -o lstart=,comm=` and `hostname`.
//! - Windows asks `sysinfo` and the `COMPUTERNAME` variable.

/// This machine's name, or `"unknown host"` where the OS does not say.
pub fn host() -> String {
    host_name().map(|h| h.trim().to_owned()).filter(|h| !h.is_empty()).unwrap_or_else(|| "unknown host".into())
}

/// When process `pid` started, as an opaque token that differs between two
/// processes that had the same pid and can stand in a file name (letters,
/// digits, `+`, `-`, `_`); `None` when no such process is running (or the
/// OS does not say).
pub fn started(pid: u32) -> Option<String> {
    imp::started(pid).map(|t| file_name_safe(&t))
}

/// `text` with every character but ASCII letters, digits, `+` and `-`
/// replaced by `_`.
pub fn file_name_safe(text: &str) -> String {
    text.trim().chars().map(|c| if c.is_ascii_alphanumeric() || c == '+' || c == '-' { c } else { '_' }).collect()
}

/// The program name of process `pid`, where the OS says it.
pub fn program(pid: u32) -> Option<String> {
    imp::program(pid).map(|p| p.trim().to_owned()).filter(|p| !p.is_empty())
}

/// Whether process `pid` is running and is the one that started at
/// `started`: `Some(false)` when it is gone (or the pid was reused),
/// `None` when the OS does not say.
pub fn is_alive(pid: u32, started: &str) -> Option<bool> {
    imp::can_tell().then(|| self::started(pid).is_some_and(|now| now == started))
}

#[cfg(target_os = "linux")]
fn host_name() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname").ok()
}

#[cfg(target_os = "macos")]
fn host_name() -> Option<String> {
    imp::ask(&["hostname"])
}

#[cfg(windows)]
fn host_name() -> Option<String> {
    std::env::var("COMPUTERNAME").ok()
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
fn host_name() -> Option<String> {
    None
}

#[cfg(target_os = "linux")]
mod imp {
    pub(super) fn can_tell() -> bool {
        true
    }

    pub(super) fn started(pid: u32) -> Option<String> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        start_ticks(&stat).map(|t| format!("boot+{t}"))
    }

    pub(super) fn program(pid: u32) -> Option<String> {
        std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()
    }

    /// Field 22 of `/proc/PID/stat`, counted after the program name, which
    /// is in parentheses and may itself hold spaces and parentheses.
    pub(super) fn start_ticks(stat: &str) -> Option<u64> {
        let after_name = &stat[stat.rfind(')')? + 1..];
        after_name.split_whitespace().nth(19)?.parse().ok()
    }
}

#[cfg(target_os = "macos")]
mod imp {
    pub(super) fn can_tell() -> bool {
        true
    }

    pub(super) fn started(pid: u32) -> Option<String> {
        ask(&["ps", "-o", "lstart=", "-p", &pid.to_string()])
    }

    pub(super) fn program(pid: u32) -> Option<String> {
        ask(&["ps", "-o", "comm=", "-p", &pid.to_string()])
    }

    /// What a short system command prints, trimmed; `None` when it fails.
    pub(super) fn ask(argv: &[&str]) -> Option<String> {
        let (program, args) = argv.split_first()?;
        let out = std::process::Command::new(program).args(args).output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        (out.status.success() && !text.is_empty()).then_some(text)
    }
}

#[cfg(windows)]
mod imp {
    use sysinfo::{Pid, ProcessRefreshKind, ProcessesToUpdate, System};

    pub(super) fn can_tell() -> bool {
        true
    }

    fn with_process<T>(pid: u32, read: impl FnOnce(&sysinfo::Process) -> T) -> Option<T> {
        let mut system = System::new().ok()?;
        let pid = Pid::from_u32(pid);
        system.refresh_processes_specifics(ProcessesToUpdate::Some(&[pid]), true, ProcessRefreshKind::nothing());
        system.process(pid).map(read)
    }

    pub(super) fn started(pid: u32) -> Option<String> {
        with_process(pid, |p| format!("unix+{}", p.start_time()))
    }

    pub(super) fn program(pid: u32) -> Option<String> {
        with_process(pid, |p| p.name().to_string_lossy().into_owned())
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
mod imp {
    pub(super) fn can_tell() -> bool {
        false
    }
    pub(super) fn started(_pid: u32) -> Option<String> {
        None
    }
    pub(super) fn program(_pid: u32) -> Option<String> {
        None
    }
}

#[cfg(all(test, any(target_os = "linux", target_os = "macos")))]
mod tests {
    use super::*;

    // SPEC N10: a pid is named only with its start time, which tells this
    // process from one that later reused its number.
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    #[test]
    fn this_process_is_alive_and_a_wrong_start_time_is_not() {
        let me = std::process::id();
        let started = started(me).expect("this process's start time");
        assert_eq!(is_alive(me, &started), Some(true));
        assert_eq!(is_alive(me, "boot+1"), Some(false), "same pid, other start: another process");
        assert!(program(me).is_some());
        assert!(!host().is_empty());
    }

    // SPEC N10: the start time is found after a program name holding spaces
    // and parentheses.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_start_time_is_read_after_an_awkward_program_name() {
        let stat = "42 (a) b (c) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 10";
        assert_eq!(imp::start_ticks(stat), Some(98_765));
        assert_eq!(imp::start_ticks("42 no parenthesis"), None);
    }
}
