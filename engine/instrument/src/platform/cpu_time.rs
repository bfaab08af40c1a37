//! The CPU time a trial used (SPEC E13): user plus system time of the
//! trial's process — with the descendants it waited for, on Unix — or of
//! the measuring thread for a built-in kernel.
//!
//! A trial whose wall time is far above its CPU time was waiting, not
//! working: for a CPU, for the disk, for a neighbour. Every OS has this
//! number, so every row of a command or a kernel records it:
//!
//! - Linux and macOS: the trial is reaped with `wait4`, which hands back
//!   the child's resource usage; a kernel reads the thread's CPU clock.
//! - Windows: `GetProcessTimes` of the trial's process (its descendants are
//!   not included) and `GetThreadTimes` for a kernel.
//!
//! Each OS counts CPU time at its own resolution ([`resolution_ns`]); a
//! difference below it says nothing.

use std::io;
use std::process::{Child, ExitStatus};

/// Waits for `child`, which has exited, and reaps it: its exit status and
/// the CPU time it used, in nanoseconds, when the OS says.
pub fn reap(child: &mut Child) -> io::Result<(ExitStatus, Option<u64>)> {
    imp::reap(child)
}

/// The CPU time the calling thread has used so far, in nanoseconds.
pub fn this_thread_ns() -> Option<u64> {
    imp::this_thread_ns()
}

/// The smallest CPU-time difference this OS can show: one scheduler tick as
/// user space sees it (`1 / sysconf(_SC_CLK_TCK)`, 10 ms on Linux and
/// macOS); 15.625 ms, the default timer interval, on Windows.
pub fn resolution_ns() -> u64 {
    imp::resolution_ns()
}

/// A `timeval`-style (seconds, microseconds) pair as nanoseconds.
#[cfg(unix)]
fn micros_to_ns(seconds: impl TryInto<u64>, micros: impl TryInto<u64>) -> u64 {
    seconds.try_into().unwrap_or(0).saturating_mul(1_000_000_000) + micros.try_into().unwrap_or(0).saturating_mul(1000)
}

#[cfg(unix)]
mod imp {
    use std::io;
    use std::os::unix::process::ExitStatusExt as _;
    use std::process::{Child, ExitStatus};

    #[allow(unsafe_code)]
    pub fn reap(child: &mut Child) -> io::Result<(ExitStatus, Option<u64>)> {
        let pid = libc::pid_t::try_from(child.id()).map_err(io::Error::other)?;
        let mut status: libc::c_int = 0;
        // SAFETY: an all-zero `rusage` is a valid value of this plain C
        // struct of integers.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        loop {
            // SAFETY: `status` and `usage` are valid, writable and owned by
            // this frame for the call; `pid` is our own unreaped child, so
            // the call reaps exactly it.
            let reaped = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
            if reaped == pid {
                break;
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
        let cpu = super::micros_to_ns(usage.ru_utime.tv_sec, usage.ru_utime.tv_usec)
            + super::micros_to_ns(usage.ru_stime.tv_sec, usage.ru_stime.tv_usec);
        Ok((ExitStatus::from_raw(status), Some(cpu)))
    }

    pub fn this_thread_ns() -> Option<u64> {
        let now = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        let seconds = u64::try_from(now.tv_sec).ok()?;
        let nanos = u64::try_from(now.tv_nsec).ok()?;
        Some(seconds.saturating_mul(1_000_000_000) + nanos)
    }

    pub fn resolution_ns() -> u64 {
        1_000_000_000 / rustix::param::clock_ticks_per_second().max(1)
    }
}

#[cfg(windows)]
mod imp {
    use std::io;
    use std::os::windows::io::AsRawHandle as _;
    use std::process::{Child, ExitStatus};

    use windows_sys::Win32::Foundation::{FILETIME, HANDLE};
    use windows_sys::Win32::System::Threading::{GetCurrentThread, GetProcessTimes, GetThreadTimes};

    /// The four times `GetProcessTimes` and `GetThreadTimes` fill in.
    type Times = [FILETIME; 4];

    fn busy_ns(times: &Times) -> u64 {
        // Kernel and user time, in 100 ns units.
        let ticks = |t: &FILETIME| (u64::from(t.dwHighDateTime) << 32) | u64::from(t.dwLowDateTime);
        (ticks(&times[2]) + ticks(&times[3])).saturating_mul(100)
    }

    const ZERO: FILETIME = FILETIME { dwLowDateTime: 0, dwHighDateTime: 0 };

    #[allow(unsafe_code)]
    pub fn reap(child: &mut Child) -> io::Result<(ExitStatus, Option<u64>)> {
        let status = child.wait()?;
        let mut t: Times = [ZERO; 4];
        let handle = child.as_raw_handle() as HANDLE;
        // SAFETY: `handle` is the child's process handle, open while `child`
        // lives; the four pointers are valid, writable FILETIMEs of this frame.
        let ok = unsafe { GetProcessTimes(handle, &raw mut t[0], &raw mut t[1], &raw mut t[2], &raw mut t[3]) };
        Ok((status, (ok != 0).then(|| busy_ns(&t))))
    }

    #[allow(unsafe_code)]
    pub fn this_thread_ns() -> Option<u64> {
        let mut t: Times = [ZERO; 4];
        // SAFETY: the pseudo-handle of the calling thread needs no closing;
        // the four pointers are valid, writable FILETIMEs of this frame.
        let ok =
            unsafe { GetThreadTimes(GetCurrentThread(), &raw mut t[0], &raw mut t[1], &raw mut t[2], &raw mut t[3]) };
        (ok != 0).then(|| busy_ns(&t))
    }

    pub fn resolution_ns() -> u64 {
        15_625_000
    }
}

#[cfg(not(any(unix, windows)))]
mod imp {
    use std::io;
    use std::process::{Child, ExitStatus};

    pub fn reap(child: &mut Child) -> io::Result<(ExitStatus, Option<u64>)> {
        Ok((child.wait()?, None))
    }

    pub fn this_thread_ns() -> Option<u64> {
        None
    }

    pub fn resolution_ns() -> u64 {
        1
    }
}

// The commands below are Unix ones.
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    // SPEC E13: a child that spins is charged CPU time, one that sleeps is
    // not; both are reaped with their exit status.
    #[test]
    fn a_child_is_reaped_with_its_cpu_time() {
        let mut spin = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; exit 3"])
            .spawn()
            .expect("sh");
        let (status, cpu) = reap(&mut spin).expect("reaped");
        assert_eq!(status.code(), Some(3));
        let cpu = cpu.expect("a CPU time");
        assert!(cpu >= 10_000_000, "a 200 000-step shell loop used {cpu} ns");
        let mut nap = std::process::Command::new("sleep").arg("0.3").spawn().expect("sleep");
        let (status, cpu) = reap(&mut nap).expect("reaped");
        assert!(status.success());
        assert!(cpu.expect("a CPU time") < 100_000_000, "sleep was charged {cpu:?} ns");
    }

    // SPEC E13: the thread's CPU clock moves with work on this thread.
    #[test]
    fn the_thread_clock_counts_this_threads_work() {
        let before = this_thread_ns().expect("a thread CPU clock");
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        let after = this_thread_ns().expect("a thread CPU clock");
        assert!(after > before, "no CPU time counted ({x})");
        assert!(resolution_ns() >= 1_000_000 && resolution_ns() <= 20_000_000, "{}", resolution_ns());
    }
}
