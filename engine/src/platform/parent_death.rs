//! A trial's own process dies with Vernier, however Vernier ends (SPEC E15).
//!
//! The process group and the subreaper ([`super::process_group`],
//! [`super::reaper`]) clean up on every ending Vernier sees: the trial's
//! end, a timeout, a cancel, Ctrl-C, SIGTERM, SIGHUP. An ending it cannot
//! see — SIGKILL, the OOM killer, a crash — would leave the trial running
//! under init.
//!
//! - Linux: between fork and exec the trial's process asks the kernel for
//!   SIGKILL when its parent dies (`PR_SET_PDEATHSIG`). The kernel sends
//!   it when the *thread* that spawned the trial ends, so a trial is
//!   spawned by the thread that then waits for it
//!   ([`crate::harness::CommandRunner`] spawns and waits on one thread,
//!   which therefore outlives the trial). It reaches that one process
//!   only: its descendants (a shell's children) are not reached after a
//!   SIGKILL of Vernier — on every other ending the group still reaches
//!   them.
//! - macOS has no such call: after a SIGKILL of Vernier the trial runs on.
//! - Windows: nothing to do here. The trial's Job Object kills every
//!   process in it when its last handle closes, and the OS closes
//!   Vernier's handles however Vernier ends.
//!
//! The `pre_exec` hook this needs is `unsafe`; this module is the only one
//! allowed it for that (see ARCHITECTURE.md).

use std::process::Command;

/// Sets up `command` so that the process it spawns is killed when the
/// spawning thread ends (Linux; nothing elsewhere, see the module's
/// words). Call before spawning, on the thread that will wait for it.
pub fn tie_to_spawner(command: &mut Command) {
    imp::tie_to_spawner(command);
}

#[cfg(target_os = "linux")]
mod imp {
    use std::os::unix::process::CommandExt as _;
    use std::process::Command;

    use rustix::process::{Signal, getpid, getppid, set_parent_process_death_signal};

    pub fn tie_to_spawner(command: &mut Command) {
        // Read before the fork: the child compares its parent with it.
        let parent = getpid();
        // SAFETY: the closure runs in the forked child before exec, where
        // only async-signal-safe work is sound. It makes two system calls
        // through rustix (`prctl(PR_SET_PDEATHSIG)` and `getppid`), which
        // take no lock and allocate nothing, and turns an errno into an
        // `io::Error` (an OS error code, no allocation). It touches no
        // state shared with the parent: `parent` is a copied integer.
        unsafe {
            command.pre_exec(move || {
                set_parent_process_death_signal(Some(Signal::KILL))?;
                // Vernier may have died between the fork and the prctl:
                // then no signal will ever come, and the child was already
                // re-parented. It must not run uncontained: no exec.
                if getppid() != Some(parent) {
                    return Err(rustix::io::Errno::SRCH.into());
                }
                Ok(())
            });
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::process::Command;

    /// macOS has no parent-death signal; on Windows the Job Object
    /// already ends the trial with Vernier.
    pub fn tie_to_spawner(_command: &mut Command) {}
}

// The tests use Linux's `/proc` and `sleep`.
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use super::tie_to_spawner;

    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| stat.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
            .unwrap_or(false)
    }

    // SPEC E15: the trial's process is killed when the thread that spawned
    // it ends without waiting for it (what a SIGKILL of Vernier does to
    // every thread at once).
    #[test]
    fn the_trial_dies_with_its_spawning_thread() {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let spawner = std::thread::Builder::new()
            .name("vernier-test-spawner".into())
            .spawn(move || {
                let mut command = Command::new("sleep");
                command.arg("61.3").stdin(Stdio::null());
                tie_to_spawner(&mut command);
                let child = command.spawn().expect("sleep runs");
                tx.send(child).expect("the test waits");
            })
            .expect("thread");
        let mut child = rx.recv().expect("spawned");
        spawner.join().expect("the spawner ends");
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(child.id()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!alive(child.id()), "sleep outlived the thread that spawned it");
        let status = child.wait().expect("reaped");
        assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(9));
    }

    // SPEC E15: a tied trial runs normally while its spawner lives.
    #[test]
    fn a_tied_trial_runs_to_its_end() {
        let mut command = Command::new("true");
        tie_to_spawner(&mut command);
        assert!(command.status().expect("runs").success());
    }
}
