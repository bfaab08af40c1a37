//! Confining a foreign command's writes to one folder (SPEC N13, R5): a
//! command taken from someone else's file — their rebuild recipe, their
//! rerun — may read what the user can read, but write only inside the
//! scratch folder made for its run.
//!
//! - Linux: Landlock. A ruleset that handles every file-system access
//!   right this kernel knows, allowing reading and executing everywhere and
//!   everything inside the folder (and writing to `/dev/null`), is enforced
//!   on one thread of Vernier's own, `vernier-confined`, which starts every
//!   command of the run: a process inherits its parent thread's domain, so
//!   each command is confined from its first instruction, while the
//!   spawn stays the cheap `posix_spawn` and Vernier's other threads stay
//!   free. A kernel without Landlock is said so, never taken for confined.
//! - macOS and Windows: not confined, and the plan and the row say so.
//!
//! The network is not confined: only writes to files.

use std::path::Path;
use std::process::{Child, Command};

/// The thread that starts a confined run's commands (it follows the run's
/// placement: created by the pinned run's thread, it has its CPU).
pub const CONFINED_THREAD: &str = "vernier-confined";

/// What the plan and the row say when this OS has no confinement.
pub const NOT_ON_THIS_OS: &str = "not confined on this OS: a foreign command may write wherever you can";

/// Why writes cannot be confined here: the sentence the row and the plan
/// show in place of what confines them.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    /// Landlock refused a rule or the ruleset.
    #[error("not confined: Landlock refused the rules ({0})")]
    Refused(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The kernel has no Landlock, so nothing would be enforced.
    #[error("not confined: this kernel has no Landlock")]
    NoLandlock,
    /// The thread that starts confined commands could not be made.
    #[error("not confined: its thread could not start ({0})")]
    NoThread(#[source] std::io::Error),
    /// That thread ended before it said whether it was confined.
    #[error("not confined: its thread ended")]
    ThreadEnded,
    /// This OS has no confinement Vernier can use.
    #[error("{NOT_ON_THIS_OS}")]
    NotOnThisOs,
}

/// A folder that commands may write in, and nowhere else.
pub struct Confinement(imp::Confinement);

impl std::fmt::Debug for Confinement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Confinement")
    }
}

impl Confinement {
    /// Writes confined to `folder`, or why they cannot be here (an OS
    /// without Landlock, a kernel that refuses it): the sentence the row
    /// and the plan show.
    pub fn to(folder: &Path) -> Result<Self, ConfineError> {
        imp::Confinement::to(folder).map(Self)
    }

    /// The row's sentence: what is confined, and by what.
    pub fn describe(&self) -> String {
        self.0.describe()
    }

    /// Starts `command` confined, from the confined thread.
    pub fn spawn(&self, command: &mut Command) -> std::io::Result<Child> {
        self.0.spawn(command)
    }
}

/// What a foreign run will be here, for a plan shown before anything runs:
/// `Ok` with the sentence when writes can be confined, else why not.
pub fn available() -> Result<String, ConfineError> {
    // Only opened, to make the ruleset: nothing is written there.
    Confinement::to(&std::env::temp_dir())
        .map(|_| "writes confined to the scratch folder (Landlock); reading and the network are not".to_owned())
}

#[cfg(target_os = "linux")]
mod imp {
    use std::io;
    use std::path::Path;
    use std::process::{Child, Command};
    use std::sync::mpsc::{SyncSender, sync_channel};

    use landlock::{
        ABI, Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus,
    };

    /// The newest Landlock ABI this code asks for; an older kernel gives
    /// what it has (a write right it does not know cannot be used to
    /// write anyway), a kernel without Landlock none.
    const ABI_ASKED: ABI = ABI::V3;

    use super::{CONFINED_THREAD, ConfineError};

    /// A command to start, and where its child (and the command) go back.
    type Job = (Command, SyncSender<(Command, io::Result<Child>)>);

    pub struct Confinement {
        /// To the confined thread; dropped first, which ends it.
        jobs: Option<SyncSender<Job>>,
        thread: Option<std::thread::JoinHandle<()>>,
        folder: String,
    }

    impl Confinement {
        pub fn to(folder: &Path) -> Result<Self, ConfineError> {
            fn failed(e: impl std::error::Error + Send + Sync + 'static) -> ConfineError {
                ConfineError::Refused(Box::new(e))
            }
            let rule = |path: &Path, access| PathFd::new(path).map(|fd| PathBeneath::new(fd, access)).map_err(failed);
            let (read, all) = (AccessFs::from_read(ABI_ASKED), AccessFs::from_all(ABI_ASKED));
            let ruleset = Ruleset::default()
                .set_compatibility(CompatLevel::BestEffort)
                .handle_access(all)
                .map_err(failed)?
                .create()
                .map_err(failed)?
                .add_rule(rule(Path::new("/"), read)?)
                .map_err(failed)?
                .add_rule(rule(folder, all)?)
                .map_err(failed)?
                .add_rule(rule(Path::new("/dev/null"), AccessFs::from_file(ABI_ASKED))?)
                .map_err(failed)?;
            let (jobs, inbox) = sync_channel::<Job>(1);
            let (ready, confined) = sync_channel::<Result<(), ConfineError>>(1);
            let thread = std::thread::Builder::new()
                .name(CONFINED_THREAD.into())
                .spawn(move || {
                    let status = match ruleset.restrict_self() {
                        Ok(status) if status.ruleset == RulesetStatus::NotEnforced => Err(ConfineError::NoLandlock),
                        Ok(_) => Ok(()),
                        Err(e) => Err(failed(e)),
                    };
                    let enforced = status.is_ok();
                    let _ = ready.send(status);
                    if !enforced {
                        return;
                    }
                    for (mut command, reply) in inbox {
                        let child = command.spawn();
                        let _ = reply.send((command, child));
                    }
                })
                .map_err(ConfineError::NoThread)?;
            let status = confined.recv().unwrap_or(Err(ConfineError::ThreadEnded));
            let confinement = Self { jobs: Some(jobs), thread: Some(thread), folder: folder.display().to_string() };
            status.map(|()| confinement)
        }

        pub fn describe(&self) -> String {
            format!("writes confined to {} (Landlock); reading and the network are not", self.folder)
        }

        pub fn spawn(&self, command: &mut Command) -> io::Result<Child> {
            let gone = || io::Error::other("the confined thread has ended; nothing was started");
            let (reply, answer) = sync_channel(1);
            let taken = std::mem::replace(command, Command::new(""));
            self.jobs.as_ref().ok_or_else(gone)?.send((taken, reply)).map_err(|_| gone())?;
            let (back, child) = answer.recv().map_err(|_| gone())?;
            *command = back;
            child
        }
    }

    impl Drop for Confinement {
        fn drop(&mut self) {
            self.jobs = None;
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::path::Path;
    use std::process::{Child, Command};

    pub struct Confinement;

    impl Confinement {
        pub fn to(_folder: &Path) -> Result<Self, super::ConfineError> {
            Err(super::ConfineError::NotOnThisOs)
        }

        pub fn describe(&self) -> String {
            super::NOT_ON_THIS_OS.to_owned()
        }

        pub fn spawn(&self, command: &mut Command) -> std::io::Result<Child> {
            command.spawn()
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    // SPEC N13, R5: a confined child writes inside its folder and is
    // refused outside it; where this kernel has no Landlock, that is said
    // and the refusal is not claimed.
    #[test]
    fn a_confined_child_writes_only_inside_its_folder() {
        let scratch = tempfile::tempdir().expect("scratch");
        let outside = tempfile::tempdir().expect("outside");
        let confinement = match Confinement::to(scratch.path()) {
            Ok(c) => c,
            Err(why) => {
                eprintln!("Landlock is not available here, so nothing is confined: {why}");
                assert!(why.to_string().starts_with("not confined"), "{why}");
                return;
            }
        };
        let write = |target: &Path| {
            let mut command = Command::new("/bin/sh");
            command.args(["-c", &format!("echo x > '{}'", target.display())]).stderr(std::process::Stdio::null());
            confinement.spawn(&mut command).expect("spawns").wait().expect("waits").success()
        };
        assert!(write(&scratch.path().join("inside")), "a write inside is allowed");
        assert!(scratch.path().join("inside").exists());
        assert!(!write(&outside.path().join("escaped")), "a write outside is refused");
        assert!(!outside.path().join("escaped").exists());
        assert!(confinement.describe().contains("Landlock"), "{}", confinement.describe());
    }
}
