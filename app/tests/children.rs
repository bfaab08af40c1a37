//! No process outlives its trial (SPEC E15), as a user sees it: `vernier
//! bench` stopped by a signal, and a benchmarked script that leaves a
//! daemon behind. Linux only: the daemon is found through the child
//! subreaper, which macOS and Windows do not have (Windows holds it in the
//! Job Object instead).
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a process may take to appear, end or be reaped before a test
/// gives up (generous: CI machines are loaded).
const PATIENCE: Duration = Duration::from_secs(20);

fn vernier() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vernier"))
}

/// Kills, when the test ends however it ends, `vernier` and every pid the
/// benchmarked script wrote down, so a failing test leaves nothing running.
#[derive(Default)]
struct Cleanup {
    vernier: Option<Child>,
    pids: Vec<u32>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Some(child) = &mut self.vernier {
            let _ = child.kill();
            let _ = child.wait();
        }
        for pid in &self.pids {
            send("KILL", *pid);
        }
    }
}

fn send(signal: &str, pid: u32) {
    let _ = Command::new("kill").args([format!("-{signal}"), pid.to_string()]).stderr(Stdio::null()).status();
}

/// Whether `pid` is a process that has not ended (a zombie has ended: it
/// only waits for its parent, or init, to collect it).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit_once(')').map(|(_, rest)| rest.trim_start().to_owned()))
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

/// Polls `done` until it holds or `PATIENCE` runs out.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// The pids in `file`, once the script has moved it into place whole.
fn pids_in(file: &Path) -> Vec<u32> {
    assert!(eventually(|| file.exists()), "the script never wrote {}", file.display());
    let text = std::fs::read_to_string(file).expect("pid file");
    text.split_whitespace().map(|w| w.parse().expect("a pid")).collect()
}

/// Starts a three-trial bench of a shell that writes its own pid and its
/// child's, then waits; sends `signal` to vernier once both are running;
/// vernier must exit promptly with the run cancelled, and neither process
/// may survive it.
fn signal_cancels_and_kills_the_trial(signal: &str) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("trial.pid");
    let script = format!("sleep 30 & echo $$ $! > '{0}.tmp' && mv '{0}.tmp' '{0}'; wait", file.display());
    let mut cleanup = Cleanup::default();
    let started = vernier()
        .args(["bench", "-n", "3", "--warmup", "0", "--", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start vernier");
    let vernier_pid = started.id();
    let vernier = cleanup.vernier.insert(started);
    let pids = pids_in(&file);
    cleanup.pids.clone_from(&pids);

    send(signal, vernier_pid);
    let sent = Instant::now();
    let mut status = None;
    assert!(
        eventually(|| {
            status = vernier.try_wait().ok().flatten();
            status.is_some()
        }),
        "vernier still running {PATIENCE:?} after SIG{signal}"
    );
    let took = sent.elapsed();
    let output = cleanup.vernier.take().expect("vernier").wait_with_output().expect("its output");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(status.and_then(|s| s.code()), Some(1), "SIG{signal}: {stderr}");
    assert!(stderr.contains("cancelled"), "SIG{signal}: {stderr}");
    assert!(took < Duration::from_secs(5), "SIG{signal}: vernier took {took:?} to exit");
    for pid in pids {
        assert!(eventually(|| !running(pid)), "SIG{signal}: process {pid} of the trial outlived vernier");
    }
}

// SPEC E15, E1, E10: SIGTERM cancels the run like Ctrl-C — the trial's
// group is killed, vernier exits at once with the run failed "cancelled".
#[test]
fn sigterm_cancels_the_run_and_kills_the_trial() {
    signal_cancels_and_kills_the_trial("TERM");
}

// SPEC E15, E1, E10: so does SIGHUP (the terminal closed).
#[test]
fn sighup_cancels_the_run_and_kills_the_trial() {
    signal_cancels_and_kills_the_trial("HUP");
}

// SPEC E15, E1, E10: and SIGINT sent by another process, not a terminal.
#[test]
fn sigint_cancels_the_run_and_kills_the_trial() {
    signal_cancels_and_kills_the_trial("INT");
}

// SPEC E15, E9, N6: a benchmarked script starts a daemon in a session of
// its own (setsid), which starts a child of its own, and exits at once.
// When `vernier bench` returns, neither is running, and the run's
// conditions (row and raw file) say that two processes that left the
// trial's group were killed after trial 0.
#[test]
fn setsid_daemon_does_not_outlive_the_bench() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("daemon.pid");
    let script = tmp.path().join("start-daemon.sh");
    let f = file.display();
    // The script waits (a bounded time) until the daemon has written its
    // pids, so the daemon has left the group before the trial ends.
    std::fs::write(
        &script,
        format!(
            "setsid sh -c 'sleep 61 & echo $$ $! > \"{f}.tmp\" && mv \"{f}.tmp\" \"{f}\"; wait' &\n\
             i=0; while [ ! -s '{f}' ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done\n"
        ),
    )
    .expect("write the script");
    let dir = tmp.path().join("nb");
    let dir_text = dir.display().to_string();
    assert_eq!(vernier().args(["new", &dir_text]).output().expect("new").status.code(), Some(0));

    let mut cleanup = Cleanup::default();
    let script_text = script.display().to_string();
    let output = vernier()
        .args(["bench", "-n", "1", "--warmup", "0", "--timeout", "30", "--notebook", &dir_text, "--"])
        .args(["sh", &script_text])
        // The row folded into notebook.ron, read below.
        .env("VERNIER_COMPACT_AT", "1")
        .output()
        .expect("run vernier");
    let pids = pids_in(&file);
    cleanup.pids.clone_from(&pids);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));

    // Vernier reaped them itself before returning: no grace period needed,
    // but a loaded machine is allowed one.
    for pid in &pids {
        assert!(eventually(|| !running(*pid)), "the daemon's process {pid} outlived the bench");
    }
    let said = "2 processes that left the trial's group were killed after trial 0";
    let raw = std::fs::read_to_string(dir.join("raw/run-1.csv")).expect("raw file");
    let cleanup_line = raw.lines().find(|l| l.starts_with("# process cleanup:")).unwrap_or_default();
    assert!(cleanup_line.contains("re-parented to Vernier"), "{cleanup_line}");
    assert!(cleanup_line.contains(said), "{cleanup_line}");
    // RON writes the apostrophe escaped.
    let notebook = std::fs::read_to_string(dir.join("notebook.ron")).expect("notebook").replace("\\'", "'");
    assert!(notebook.contains(said), "the row's conditions do not say it");
}

/// The pids of running processes whose whole command line is `argv`.
fn processes_running(argv: &[&str]) -> Vec<u32> {
    let wanted: Vec<u8> = argv.iter().flat_map(|a| a.bytes().chain([0])).collect();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == wanted) && running(*pid))
        .collect()
}

// SPEC E15 (issue 31, finding 8): a SIGKILLed `vernier bench` (as the OOM
// killer or a crash would end it) leaves no trial running: the trial's
// process group is killed by the guardian the run started.
#[test]
fn sigkill_of_vernier_leaves_no_trial_running() {
    // A duration no other test uses, so the process is found by its argv.
    let seconds = format!("177.{}", std::process::id() % 100_000);
    no_trial_outlives(&["/bin/sleep", seconds.as_str()], |pid| send("KILL", pid));
}

/// How many running processes `ps` lists whose command line is `argv`
/// (joined by spaces): the count a user would see.
fn counted_by_ps(argv: &[&str]) -> usize {
    let out = Command::new("ps").args(["-eo", "stat=,args="]).output().expect("ps runs");
    let wanted = argv.join(" ");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim_start().split_once(' '))
        // A zombie (Z) has ended: it only waits to be collected.
        .filter(|(stat, args)| !stat.starts_with('Z') && args.trim() == wanted)
        .count()
}

/// Starts `vernier bench` of `argv` leading a process group of its own (as a
/// shell's job does), waits for the trial, then ends Vernier with `kill`
/// (given the process group leader's pid); no trial may be left running.
fn no_trial_outlives(argv: &[&str], kill: impl FnOnce(u32)) {
    use std::os::unix::process::CommandExt as _;
    let mut cleanup = Cleanup::default();
    let started = vernier()
        .args(["bench", "-n", "3", "--warmup", "0", "--"])
        .args(argv)
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start vernier");
    let vernier_pid = started.id();
    cleanup.vernier = Some(started);
    let mut trial = Vec::new();
    assert!(
        eventually(|| {
            trial = processes_running(argv);
            !trial.is_empty()
        }),
        "the trial never started"
    );
    cleanup.pids.clone_from(&trial);
    // Once the guardian's file names the trial: a kill in the microseconds
    // between the spawn and that write is not covered (see
    // `platform::parent_death`), and a loaded machine can stretch them.
    assert!(eventually(|| guardian_names(vernier_pid) == trial), "the guardian was never told the trial {trial:?}");
    kill(vernier_pid);
    let _ = cleanup.vernier.as_mut().map(Child::wait);
    assert!(eventually(|| counted_by_ps(argv) == 0), "ps still lists the trial {argv:?} ({trial:?})");
}

/// The trial named in the file of `vernier`'s guardian (its last argument),
/// after checking that the guardian leads a session of its own.
fn guardian_names(vernier: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let guardian = entries.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()).find_map(|pid| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let (ppid, session) = (fields.get(1)?.parse::<u32>().ok()?, fields.get(3)?.parse::<u32>().ok()?);
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let words: Vec<String> = cmdline.split(|&b| b == 0).map(|w| String::from_utf8_lossy(w).into_owned()).collect();
        (ppid == vernier && words.iter().any(|w| w == "vernier-guardian")).then_some((pid, session, words))
    });
    let Some((pid, session, words)) = guardian else { return Vec::new() };
    assert_eq!(session, pid, "the guardian leads a session of its own");
    let file = words.iter().rev().find(|w| !w.is_empty()).cloned().unwrap_or_default();
    std::fs::read_to_string(file)
        .map(|t| t.split_whitespace().filter_map(|w| w.parse().ok()).collect())
        .unwrap_or_default()
}

// SPEC E15 (issue 45 item 5): a SIGKILL of Vernier's whole process group —
// a shell's `kill -9 %1`, `kill -KILL -- -PGID` — used to kill the guardian
// with Vernier and leave the trial running under init. The guardian has a
// session of its own now: 20 times over, `ps` lists no trial afterwards.
#[test]
fn a_group_sigkill_leaves_no_trial_running() {
    for round in 0..20 {
        let seconds = format!("779.{}{round:02}", std::process::id() % 10_000);
        no_trial_outlives(&["/bin/sleep", seconds.as_str()], |leader| {
            let group = format!("-{leader}");
            let killed = Command::new("kill").args(["-KILL", "--", &group]).status().expect("kill runs");
            assert!(killed.success(), "kill -KILL -- {group}");
        });
    }
}

// SPEC E15 (issue 45 item 5): the OOM killer picks the process with the
// highest `oom_score_adj` and SIGKILLs it alone; Vernier so marked and so
// killed leaves no trial running either (counted with `ps`).
#[test]
fn an_oom_style_kill_leaves_no_trial_running() {
    let seconds = format!("778.{}", std::process::id() % 100_000);
    no_trial_outlives(&["/bin/sleep", seconds.as_str()], |pid| {
        // Raising a process's own score needs no privilege.
        std::fs::write(format!("/proc/{pid}/oom_score_adj"), "1000").expect("oom_score_adj");
        send("KILL", pid);
    });
}
