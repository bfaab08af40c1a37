//! Keeping a trial's process and its descendants together so that none
//! outlives the trial (SPEC E15): killed when it ends, on timeout and on
//! cancel.
//!
//! - Linux and macOS: the trial leads a new process group, and the group is
//!   killed. The leader is waited for with `waitid(WNOWAIT)`, which leaves
//!   it unreaped until the group has been killed, so the group id cannot be
//!   reused by an unrelated process meanwhile. A descendant that starts its
//!   own session (`setsid`) leaves the group: on Linux the subreaper finds
//!   it ([`super::reaper`]), on macOS nothing can.
//! - Windows: the trial is put in a Job Object created to kill every process
//!   in it when its last handle closes; a child is in its parent's job from
//!   birth, so the job reaches all descendants that exist once the trial is
//!   assigned (a process it starts in the instant between its spawn and the
//!   assignment would escape).
//!
//! [`super::reaper::Subreaper::reach`] says which of these holds beside
//! every command row.

use std::io;
use std::process::{Child, Command, ExitStatus};

#[cfg(unix)]
mod imp {
    use std::io;
    use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
    use std::process::{Child, Command, ExitStatus};

    use rustix::process::{Pid, Signal, WaitId, WaitIdOptions, kill_process_group, waitid};

    /// A trial's process group.
    #[derive(Debug, Clone, Copy)]
    pub struct Group(Pid);

    impl Group {
        pub fn prepare(command: &mut Command) {
            command.process_group(0);
        }

        pub fn attach(child: &Child) -> io::Result<Self> {
            Ok(Self(Pid::from_child(child)))
        }

        pub fn kill(&self) {
            // ESRCH (the group is already gone) is the expected case.
            let _ = kill_process_group(self.0, Signal::KILL);
        }

        pub fn wait_exited(&self, _child: &mut Child) -> io::Result<()> {
            loop {
                match waitid(WaitId::Pid(self.0), WaitIdOptions::EXITED | WaitIdOptions::NOWAIT) {
                    Ok(_) => return Ok(()),
                    Err(rustix::io::Errno::INTR) => {}
                    Err(e) => return Err(e.into()),
                }
            }
        }
    }

    pub fn signal(status: &ExitStatus) -> Option<i32> {
        status.signal()
    }
}

#[cfg(windows)]
mod imp {
    use std::io;
    use std::os::windows::io::AsRawHandle as _;
    use std::os::windows::process::CommandExt as _;
    use std::process::{Child, Command, ExitStatus};
    use std::sync::{Arc, Mutex, PoisonError};

    use win32job::{ExtendedLimitInfo, Job};

    /// `CREATE_NO_WINDOW`: a console program started from the window does
    /// not flash a console of its own.
    const CREATE_NO_WINDOW: u32 = 0x0800_0000;

    /// A trial's Job Object; killing it closes the only handle, and the job
    /// was made to kill its processes when that happens.
    #[derive(Clone)]
    pub struct Group(Arc<Mutex<Option<Job>>>);

    impl Group {
        pub fn prepare(command: &mut Command) {
            command.creation_flags(CREATE_NO_WINDOW);
        }

        pub fn attach(child: &mut Child) -> io::Result<Self> {
            let mut limits = ExtendedLimitInfo::new();
            limits.limit_kill_on_job_close();
            let job = Job::create_with_limit_info(&limits).map_err(io::Error::other)?;
            if let Err(e) = job.assign_process(child.as_raw_handle() as isize) {
                // A process that has already exited cannot join a job: a
                // short trial on a loaded machine can end before it is
                // assigned. Nothing of it is left to contain, so that is
                // no failure; any other refusal is.
                if !matches!(child.try_wait(), Ok(Some(_))) {
                    return Err(io::Error::other(e));
                }
            }
            Ok(Self(Arc::new(Mutex::new(Some(job)))))
        }

        pub fn kill(&self) {
            drop(self.0.lock().unwrap_or_else(PoisonError::into_inner).take());
        }

        pub fn wait_exited(&self, child: &mut Child) -> io::Result<()> {
            // No pid reuse to guard against: the job handle names the group.
            child.wait().map(drop)
        }
    }

    pub fn signal(_status: &ExitStatus) -> Option<i32> {
        None
    }
}

/// A trial's process and its descendants, as this OS can hold them.
#[derive(Clone)]
pub struct Group(imp::Group);

impl Group {
    /// Sets up `command` so its process can lead a group (call before spawn).
    pub fn prepare(command: &mut Command) {
        imp::Group::prepare(command);
    }

    /// The group of a freshly spawned trial. On failure the child is
    /// killed and reaped: it must not run uncontained.
    pub fn attach(child: &mut Child) -> io::Result<Self> {
        match imp::Group::attach(child) {
            Ok(group) => Ok(Self(group)),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(e)
            }
        }
    }

    /// Kills every process of the group still running.
    pub fn kill(&self) {
        self.0.kill();
    }

    /// Blocks until the trial's own process has exited. On Linux and macOS
    /// it stays unreaped (call [`Group::kill`], then `Child::wait`).
    pub fn wait_exited(&self, child: &mut Child) -> io::Result<()> {
        self.0.wait_exited(child)
    }
}

/// The signal that ended a process (Unix only).
pub fn signal(status: &ExitStatus) -> Option<i32> {
    imp::signal(status)
}

#[cfg(all(test, windows))]
mod tests {
    use super::*;

    // SPEC E15: a trial that ended before Vernier put it in its Job Object
    // (a short program on a loaded machine) is attached, not a failed run.
    #[test]
    fn a_trial_that_has_already_ended_is_attached() {
        let mut command = Command::new("cmd");
        command.args(["/C", "exit 0"]);
        Group::prepare(&mut command);
        let mut child = command.spawn().expect("spawn cmd");
        child.wait().expect("wait for cmd");
        let group = Group::attach(&mut child).expect("an ended trial is attached");
        group.kill();
        assert!(child.wait().expect("wait again").success());
    }
}
