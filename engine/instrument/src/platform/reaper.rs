//! Finding a trial's descendants that left its process group (SPEC E15).
//!
//! Killing the trial's group ([`super::process_group`]) misses a
//! descendant that moved to a group of its own: a daemon that `setsid`s
//! away, a background job of a shell with job control on.
//!
//! - Linux: while a run is in progress Vernier is the child subreaper
//!   (`PR_SET_CHILD_SUBREAPER`), so a descendant whose parent dies is
//!   re-parented to Vernier instead of to init. After each trial — which
//!   includes a timeout and a cancel, since both end the trial — the sweep
//!   finds Vernier's children in `/proc/*/stat` (field 4, the parent; the
//!   `/proc/self/task/*/children` files are not compiled into every
//!   kernel), kills them and reaps them, until a look finds none. It
//!   leaves alone every child in Vernier's own process group (whatever
//!   the rest of Vernier starts with `std::process::Command` stays there,
//!   such as the file dialog's helper), the groups of trials still in
//!   flight (another run's, in another thread) and the children spawned
//!   through [`spawn_kept`] (each run's guardian, in a session of its own). The subreaper is switched
//!   off again when the last run ends, so nothing orphaned while no run is
//!   in progress is adopted.
//! - macOS has no subreaper and no way to list a process's former
//!   descendants: they are not found, and the row says so.
//! - Windows: the Job Object holds every descendant, whatever group or
//!   console it moves to, so there is nothing left to find.

use std::io;
use std::process::{Child, Command};

use super::process_group::Group;

/// Holds the subreaper on for as long as it lives (on Linux); every
/// command trial is spawned and swept through it.
pub struct Subreaper(imp::Subreaper);

impl Subreaper {
    /// Makes Vernier the child subreaper where the OS has one; when it
    /// cannot (an old kernel, a sandbox refusing `prctl`), runs go on and
    /// [`Subreaper::reach`] says that descendants leaving the group are
    /// not reached.
    pub fn start() -> Self {
        Self(imp::Subreaper::start())
    }

    /// What the harness can promise here about a trial's descendants, as
    /// the "process cleanup" condition beside every command row.
    pub fn reach(&self) -> &'static str {
        self.0.reach()
    }

    /// Spawns `command` as a trial leading its own group. A sweep running
    /// meanwhile in another thread never takes it for a stray: the spawn
    /// and the sweeps take turns.
    /// `start` starts it (`Command::spawn`, or a confined thread's).
    pub fn spawn(
        &self,
        command: &mut Command,
        start: impl FnOnce(&mut Command) -> io::Result<Child>,
    ) -> io::Result<(Child, Group)> {
        Group::prepare(command);
        self.0.spawn(|| {
            let mut child = start(command)?;
            let group = Group::attach(&mut child)?;
            Ok((child, group))
        })
    }

    /// After the trial `trial` (its `Child::id`) has been reaped and its
    /// group killed: kills and reaps every process that left the group
    /// and was re-parented to Vernier. Returns how many of them were still
    /// running (0 where the platform cannot find them).
    pub fn sweep(&self, trial: u32) -> usize {
        self.0.sweep(trial)
    }
}

/// Spawns `command`, a child of Vernier's own that leaves its process
/// group (a run's guardian, in a session of its own): no sweep takes it for
/// a stray until [`release`]d.
pub fn spawn_kept(command: &mut Command) -> io::Result<Child> {
    imp::spawn_kept(command)
}

/// The child [`spawn_kept`] started, `id`, has been reaped.
pub fn release(id: u32) {
    imp::release(id);
}

#[cfg(target_os = "linux")]
mod imp {
    use std::io;
    use std::process::Child;
    use std::sync::{Mutex, MutexGuard, PoisonError};
    use std::time::{Duration, Instant};

    use rustix::process::{Pid, Signal, WaitOptions, getpgrp, getpid, kill_process, set_child_subreaper, waitpid};

    use super::Group;

    /// Looks at `/proc` at most this often per sweep: each look after the
    /// first finds what the strays killed by the previous one had started.
    const MAX_LOOKS: usize = 64;
    /// How long one sweep waits, in all, for the processes it killed to be
    /// reapable. A SIGKILLed process ends at once unless stuck in the
    /// kernel (uninterruptible sleep); then it is left for the next sweep,
    /// and the run goes on.
    const REAP_WAIT: Duration = Duration::from_secs(1);

    /// Process-wide: the subreaper attribute belongs to the process, and
    /// so do the trials of every run in progress.
    struct State {
        /// Live [`Subreaper`]s (runs in progress).
        holders: usize,
        /// Whether `PR_SET_CHILD_SUBREAPER` is set.
        on: bool,
        /// Groups of trials spawned and not yet swept: never strays.
        in_flight: Vec<i32>,
        /// Vernier's own children outside its group (guardians): never strays.
        kept: Vec<i32>,
    }

    static STATE: Mutex<State> = Mutex::new(State { holders: 0, on: false, in_flight: Vec::new(), kept: Vec::new() });

    pub fn spawn_kept(command: &mut std::process::Command) -> io::Result<Child> {
        // Under the state's lock: no sweep runs between the spawn and the keeping.
        let mut state = state();
        let child = command.spawn()?;
        state.kept.push(pid_of(child.id()));
        Ok(child)
    }

    pub fn release(id: u32) {
        state().kept.retain(|&pid| pid != pid_of(id));
    }

    fn state() -> MutexGuard<'static, State> {
        // Every field is written whole; a panic elsewhere leaves it usable.
        STATE.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub struct Subreaper {
        active: bool,
    }

    impl Subreaper {
        pub fn start() -> Self {
            let mut state = state();
            state.holders += 1;
            if !state.on {
                state.on = set_child_subreaper(Some(getpid())).is_ok();
            }
            Self { active: state.on }
        }

        pub fn reach(&self) -> &'static str {
            if self.active {
                "process group killed at the end of each trial, on timeout and on cancel; \
                 descendants that leave the group (setsid) are re-parented to Vernier \
                 (child subreaper), then killed"
            } else {
                "process group killed at the end of each trial, on timeout and on cancel; \
                 a descendant that leaves the group (setsid) is not reached \
                 (the child subreaper could not be set)"
            }
        }

        pub fn spawn(&self, spawn: impl FnOnce() -> io::Result<(Child, Group)>) -> io::Result<(Child, Group)> {
            let mut state = state();
            let (child, group) = spawn()?;
            // The trial leads its group: its pid is the group id.
            state.in_flight.push(pid_of(child.id()));
            Ok((child, group))
        }

        pub fn sweep(&self, trial: u32) -> usize {
            let trial = pid_of(trial);
            let mut state = state();
            state.in_flight.retain(|&group| group != trial);
            if !self.active {
                return 0;
            }
            let (me, own_group) = (getpid().as_raw_nonzero().get(), getpgrp().as_raw_nonzero().get());
            let mut counted: Vec<i32> = Vec::new();
            let deadline = Instant::now() + REAP_WAIT;
            for _ in 0..MAX_LOOKS {
                let found: Vec<Stat> = children_of(me)
                    .into_iter()
                    .filter(|c| {
                        c.pgrp != own_group && !state.in_flight.contains(&c.pgrp) && !state.kept.contains(&c.pid)
                    })
                    .collect();
                if found.is_empty() {
                    break;
                }
                for child in &found {
                    // What stayed in the group was killed with it and is
                    // only reaped here; a zombie had ended by itself.
                    if child.pgrp != trial && child.state != 'Z' && !counted.contains(&child.pid) {
                        counted.push(child.pid);
                    }
                    if let Some(pid) = Pid::from_raw(child.pid) {
                        // Our unreaped child: the pid cannot have been reused.
                        let _ = kill_process(pid, Signal::KILL);
                    }
                }
                if !reap(&found, deadline) {
                    break;
                }
            }
            counted.len()
        }
    }

    impl Drop for Subreaper {
        fn drop(&mut self) {
            let mut state = state();
            state.holders = state.holders.saturating_sub(1);
            if state.holders == 0 && state.on {
                // Off between runs: nothing orphaned then is adopted.
                state.on = set_child_subreaper(None).is_err();
            }
        }
    }

    /// `Child::id` as the kernel's signed pid (always in range on Linux).
    fn pid_of(id: u32) -> i32 {
        i32::try_from(id).unwrap_or(i32::MAX)
    }

    /// Waits, until `deadline` at the latest, for every process in `killed`
    /// to be reaped; says whether they all were.
    fn reap(killed: &[Stat], deadline: Instant) -> bool {
        let mut pending: Vec<Pid> = killed.iter().filter_map(|c| Pid::from_raw(c.pid)).collect();
        while !pending.is_empty() && Instant::now() < deadline {
            // Ok(None): not ended yet; an error (ECHILD): nothing to reap.
            pending.retain(|&pid| matches!(waitpid(Some(pid), WaitOptions::NOHANG), Ok(None)));
            if !pending.is_empty() {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        pending.is_empty()
    }

    /// Every process whose parent is `parent`, from `/proc/*/stat`.
    fn children_of(parent: i32) -> Vec<Stat> {
        let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())))
            // A process may end between the listing and the read.
            .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
            .filter_map(|text| parse_stat(&text))
            .filter(|s| s.ppid == parent)
            .collect()
    }

    /// The fields of `/proc/PID/stat` a sweep needs.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) struct Stat {
        pub pid: i32,
        pub state: char,
        pub ppid: i32,
        pub pgrp: i32,
    }

    /// Parses `pid (comm) state ppid pgrp …`. The command name may hold
    /// spaces and parentheses, so the fields are counted from its last `)`.
    pub(super) fn parse_stat(text: &str) -> Option<Stat> {
        let (head, rest) = text.rsplit_once(')')?;
        let pid = head.split_once('(')?.0.trim().parse().ok()?;
        let mut fields = rest.split_ascii_whitespace();
        let state = fields.next()?.chars().next()?;
        let ppid = fields.next()?.parse().ok()?;
        let pgrp = fields.next()?.parse().ok()?;
        Some(Stat { pid, state, ppid, pgrp })
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::io;
    use std::process::Child;

    use super::Group;

    pub fn spawn_kept(command: &mut std::process::Command) -> io::Result<Child> {
        command.spawn()
    }

    pub fn release(_id: u32) {}

    pub struct Subreaper;

    impl Subreaper {
        pub fn start() -> Self {
            Self
        }

        pub fn reach(&self) -> &'static str {
            if cfg!(target_os = "macos") {
                "process group killed at the end of each trial, on timeout and on cancel; \
                 descendants that leave the group (setsid) cannot be found on macOS and are not killed"
            } else if cfg!(windows) {
                "Job Object: the trial and every descendant in it killed at the end of each trial, \
                 on timeout and on cancel"
            } else {
                "not available on this platform: descendants of a trial are not tracked"
            }
        }

        pub fn spawn(&self, spawn: impl FnOnce() -> io::Result<(Child, Group)>) -> io::Result<(Child, Group)> {
            spawn()
        }

        pub fn sweep(&self, _trial: u32) -> usize {
            0
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::imp::{Stat, parse_stat};

    // SPEC E15: the parent and group are read past a command name that
    // holds spaces and parentheses.
    #[test]
    fn reads_parent_and_group_from_stat() {
        let line = "4242 (sh) S 17 4242 4242 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 287583 2990080 419";
        assert_eq!(parse_stat(line), Some(Stat { pid: 4242, state: 'S', ppid: 17, pgrp: 4242 }));
        let odd = "77 (a) b (c)) Z 1 70 70 0 -1";
        assert_eq!(parse_stat(odd), Some(Stat { pid: 77, state: 'Z', ppid: 1, pgrp: 70 }));
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("12 (x) S"), None);
    }
}
