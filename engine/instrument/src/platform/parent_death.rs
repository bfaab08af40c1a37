//! A trial dies with Vernier, however Vernier ends (SPEC E15).
//!
//! The process group and the subreaper ([`super::process_group`],
//! [`super::reaper`]) clean up on every ending Vernier sees: the trial's
//! end, a timeout, a cancel, Ctrl-C, SIGTERM, SIGHUP. An ending it cannot
//! see — SIGKILL, the OOM killer, a crash — would leave the trial running
//! under init.
//!
//! - Linux and macOS: each run of commands starts a **guardian** before its
//!   first trial — `/bin/sh` reading a pipe whose other end only Vernier
//!   holds, and a small file naming the trial in flight. However Vernier
//!   ends, the OS closes its end of the pipe; the guardian then kills the
//!   process group the file names, if any, and exits. Vernier writes the
//!   trial's group into the file right after spawning it (one write of a
//!   few bytes) and clears it once the trial is reaped, so a run that ends
//!   normally leaves it nothing to kill. The guardian starts a session of
//!   its own (`setsid`), so a kill of Vernier's process group — a shell's
//!   `kill -9 %1`, `kill -KILL -- -PGID` — does not reach it (issue 45 item
//!   5: it used to die with Vernier and leave the trial running); the
//!   subreaper's sweep knows it is no stray ([`super::reaper::spawn_kept`]). It
//!   ignores SIGINT and SIGHUP, which Vernier handles.
//!
//!   Why not a parent-death signal set in each trial between fork and exec
//!   (`PR_SET_PDEATHSIG`)? Any code run there makes std fork all of Vernier
//!   instead of using `posix_spawn`, and that fork would sit inside every
//!   timed trial: measured here at about 1.5 ms more per spawn of
//!   `/bin/true` from a 30 MB process (2.1–2.4 ms against 0.62–0.66 ms,
//!   medians of 200, three alternating runs; measured again for issue 45,
//!   `vernier bench -n 201 -- /bin/true`, debug build, busy machine: the
//!   minimum moved from 712–768 µs to 1108–1290 µs, three alternating runs
//!   each). The guardian costs one spawn per run, outside the timing, and
//!   reaches the trial's whole group, not only its first process. A
//!   SIGKILL landing between a trial's spawn and the write that names it
//!   (microseconds; longer when the machine is too busy to run Vernier at
//!   once) is not covered.
//! - Windows: nothing to do here. The trial's Job Object kills every
//!   process in it when its last handle closes, and the OS closes
//!   Vernier's handles however Vernier ends.

/// The guardian of one run's trials (see the module's words); ended, with
/// nothing to kill, when dropped.
pub struct Guardian(imp::Guardian);

impl Guardian {
    /// Starts the guardian. Where it cannot start (no `/bin/sh`, no
    /// temporary folder), runs go on unguarded against a SIGKILL.
    pub fn start() -> Self {
        Self(imp::Guardian::start())
    }

    /// Names the trial whose group dies with Vernier: its leader's pid,
    /// which is its process group id.
    pub fn watch(&self, leader: u32) {
        self.0.set(leader);
    }

    /// The trial in flight ended and was reaped: nothing to kill.
    pub fn clear(&self) {
        self.0.set(0);
    }
}

#[cfg(unix)]
mod imp {
    use std::io::Write as _;
    use std::os::unix::fs::FileExt as _;
    use std::os::unix::process::CommandExt as _;
    use std::process::{Child, ChildStdin, Command, Stdio};

    /// Waits for the end of its input, then kills the group named in the
    /// file `$1` (space-padded digits; 0 is nobody) and removes the file.
    const SCRIPT: &str = r#"trap '' INT HUP
read -r _
read -r group < "$1"
rm -f -- "$1"
[ "$group" -gt 0 ] 2>/dev/null || exit 0
kill -s KILL -- "-$group" 2>/dev/null
kill -s KILL -- "$group" 2>/dev/null
exit 0"#;

    pub struct Guardian(pub(super) Option<Running>);

    pub(super) struct Running {
        child: Child,
        /// Never written: its end, at Vernier's end, is the guardian's cue.
        pub(super) pipe: Option<ChildStdin>,
        file: tempfile::NamedTempFile,
    }

    impl Guardian {
        pub fn start() -> Self {
            Self(Running::start().ok())
        }

        pub fn set(&self, leader: u32) {
            if let Some(running) = &self.0 {
                // Fixed width, so one write replaces the whole line.
                let line = format!("{leader:>10}\n");
                let _ = running.file.as_file().write_all_at(line.as_bytes(), 0);
            }
        }
    }

    impl Running {
        #[allow(unsafe_code)]
        fn start() -> std::io::Result<Self> {
            let mut file = tempfile::Builder::new().prefix("vernier-guardian-").tempfile()?;
            file.write_all(format!("{:>10}\n", 0).as_bytes())?;
            let mut command = Command::new("/bin/sh");
            command
                .args(["-c", SCRIPT, "vernier-guardian"])
                .arg(file.path())
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            // SAFETY: the closure runs in the forked child before exec and
            // makes one async-signal-safe system call, `setsid`, touching no
            // memory shared with the parent and allocating nothing.
            unsafe {
                command.pre_exec(|| if libc::setsid() == -1 { Err(std::io::Error::last_os_error()) } else { Ok(()) });
            }
            let mut child = super::super::reaper::spawn_kept(&mut command)?;
            let pipe = child.stdin.take();
            Ok(Self { child, pipe, file })
        }
    }

    impl Drop for Running {
        fn drop(&mut self) {
            let _ = self.file.as_file().write_all_at(format!("{:>10}\n", 0).as_bytes(), 0);
            // The guardian reads the end of its input, finds nobody named
            // and exits at once.
            drop(self.pipe.take());
            let _ = self.child.wait();
            super::super::reaper::release(self.child.id());
        }
    }
}

#[cfg(not(unix))]
mod imp {
    /// Windows: the Job Object already ends the trial with Vernier.
    pub struct Guardian;

    impl Guardian {
        pub fn start() -> Self {
            Self
        }
        pub fn set(&self, _leader: u32) {}
    }
}

// The tests use Linux's `/proc` and `sleep`.
#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use super::Guardian;

    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| stat.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
            .unwrap_or(false)
    }

    // SPEC E15: a guardian whose Vernier ends without clearing it (as a
    // SIGKILL would: its end of the pipe closes, nothing else happens)
    // kills the trial's group; one that was cleared kills nothing. The
    // trials are spawned as the harness spawns them, so another test's
    // sweep never takes them for strays.
    #[test]
    fn the_guardian_kills_the_named_group_when_its_pipe_closes() {
        let reaper = crate::platform::reaper::Subreaper::start();
        let spawn = || {
            let mut command = Command::new("sleep");
            command.arg("61.3").stdin(Stdio::null());
            reaper.spawn(&mut command, Command::spawn).expect("sleep runs").0
        };
        let guardian = Guardian::start();
        let mut trial = spawn();
        guardian.watch(trial.id());
        // What a SIGKILL does: the pipe closes with the trial still named.
        let imp::Guardian(Some(mut running)) = guardian.0 else { panic!("the guardian did not start") };
        drop(running.pipe.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(trial.id()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!alive(trial.id()), "the trial outlived its guardian's cue");
        let status = trial.wait().expect("reaped");
        assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(9));
        reaper.sweep(trial.id());
        drop(running);

        let guardian = Guardian::start();
        let mut other = spawn();
        guardian.watch(other.id());
        guardian.clear();
        drop(guardian);
        std::thread::sleep(Duration::from_millis(200));
        assert!(alive(other.id()), "a cleared guardian kills nothing");
        let _ = other.kill();
        let _ = other.wait();
        reaper.sweep(other.id());
    }

    use super::imp;
}
