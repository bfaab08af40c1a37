//! Many writers on one notebook (SPEC N10): processes that change the same
//! folder at once each apply their change to the file as it is then, under
//! the folder's lock, and a message of success means the change is on disk.
//! Files planted in the folder by someone else are never followed on write.

use std::path::Path;

use crate::common;
use common::vernier;

fn new_notebook(tmp: &Path) -> String {
    let dir = tmp.join("nb").display().to_string();
    let o = vernier(&["new", &dir]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    dir
}

fn notes(dir: &str) -> Vec<String> {
    let o = vernier(&["show", dir, "--json"]);
    assert_eq!(o.status.code(), Some(0), "the notebook loads: {}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    v["notes"].as_array().expect("notes").iter().filter_map(|n| n["text"].as_str().map(str::to_owned)).collect()
}

// SPEC N10: 4 processes × 50 notes at once — every note that reported
// success is in the notebook, none that reported failure, and it loads.
#[test]
fn four_writers_lose_no_note() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let dir = dir.clone();
            std::thread::Builder::new()
                .name(format!("writer-{w}"))
                .spawn(move || {
                    (0..50)
                        .map(|i| {
                            let text = format!("writer {w} note {i}");
                            let o = vernier(&["note", &dir, &text]);
                            (
                                text,
                                o.status.code() == Some(0) && String::from_utf8_lossy(&o.stdout).contains("note added"),
                            )
                        })
                        .collect::<Vec<_>>()
                })
                .expect("spawn")
        })
        .collect();
    let outcomes: Vec<(String, bool)> = writers.into_iter().flat_map(|w| w.join().expect("writer")).collect();
    let on_disk = notes(&dir);
    for (text, reported) in &outcomes {
        assert_eq!(on_disk.contains(text), *reported, "'{text}': reported {reported}, on disk {}", !*reported);
    }
    assert_eq!(outcomes.iter().filter(|(_, ok)| *ok).count(), 200, "every writer waited its turn");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

// SPEC N10, E10: two benchmarks recording into one notebook at once get
// distinct run numbers, and each row's raw file is its own (hash matches).
#[test]
fn two_benchmarks_at_once_get_their_own_rows_and_raw_files() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    let benches: Vec<_> = ["0.01", "0.03"]
        .into_iter()
        .map(|seconds| {
            let dir = dir.clone();
            std::thread::Builder::new()
                .name(format!("bench-{seconds}"))
                .spawn(move || {
                    vernier(&["bench", "-n", "3", "--warmup", "0", "--notebook", &dir, "--", "sleep", seconds])
                })
                .expect("spawn")
        })
        .collect();
    for b in benches {
        let o = b.join().expect("bench");
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = vernier(&["show", &dir, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2, "both runs are recorded");
    let numbers: Vec<&str> = runs.iter().filter_map(|r| r["columns"]["#"].as_str()).collect();
    assert_eq!(numbers, ["1", "2"]);
    let raws: Vec<&str> = runs.iter().filter_map(|r| r["columns"]["Raw file"].as_str()).collect();
    assert_ne!(raws[0], raws[1], "each run has its own raw file");
    // The audit checks every raw file against the hash in its row.
    let audit = vernier(&["audit", &dir, "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&audit.stdout).expect("audit json");
    let findings = report["findings"].as_array().expect("findings");
    assert!(
        !findings.iter().any(|f| f["message"].as_str().is_some_and(|m| m.contains("hash") || m.contains("changed"))),
        "no raw file was swapped: {findings:?}"
    );
    // And the commands are the ones each row says: the slower sleep has the larger median.
    for r in runs {
        let command = r["columns"]["Command"].as_str().expect("command");
        let raw = std::fs::read_to_string(Path::new(&dir).join(r["columns"]["Raw file"].as_str().expect("raw")))
            .expect("raw file");
        assert!(raw.contains(command.trim_start_matches("sleep ")), "{command} / raw file mentions its command");
    }
}

// SPEC N10: a symbolic link planted where Vernier stages its save, or as
// notebook.ron, raw/ or exports/, is never followed or silently replaced.
#[cfg(unix)]
#[test]
fn planted_symbolic_links_are_not_followed() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    let victim = tmp.path().join("victim");
    std::fs::write(&victim, "precious").expect("victim");
    // The old fixed temporary name, and a guess at this process's next one.
    symlink(&victim, Path::new(&dir).join(".notebook.ron.tmp")).expect("link");
    let o = vernier(&["note", &dir, "hi"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "precious");
    assert!(!std::fs::symlink_metadata(Path::new(&dir).join("notebook.ron")).expect("file").file_type().is_symlink());
    // Under the lock every leftover temporary is stale: the planted link is
    // removed (the link, not its target).
    assert!(std::fs::symlink_metadata(Path::new(&dir).join(".notebook.ron.tmp")).is_err(), "stale temporary removed");

    // notebook.ron itself a link: the save is refused, the victim untouched.
    let nb = Path::new(&dir).join("notebook.ron");
    let real = tmp.path().join("elsewhere.ron");
    std::fs::rename(&nb, &real).expect("move");
    symlink(&real, &nb).expect("link");
    let o = vernier(&["note", &dir, "again"]);
    assert_eq!(o.status.code(), Some(1), "refused: {}", String::from_utf8_lossy(&o.stdout));
    assert!(String::from_utf8_lossy(&o.stderr).contains("symbolic link"), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::symlink_metadata(&nb).expect("link").file_type().is_symlink(), "the link is not replaced");
    std::fs::remove_file(&nb).expect("unlink");
    std::fs::rename(&real, &nb).expect("move back");

    // raw/ a link out of the folder: a recorded run refuses to write there.
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).expect("outside");
    std::fs::remove_dir(Path::new(&dir).join("raw")).expect("rmdir raw");
    symlink(&outside, Path::new(&dir).join("raw")).expect("link raw");
    let o = vernier(&["bench", "-n", "1", "--warmup", "0", "--notebook", &dir, "--", "true"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("symbolic link"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_dir(&outside).expect("outside").count(), 0, "nothing written outside the folder");

    // exports/ a link: the export is refused.
    std::fs::remove_dir(Path::new(&dir).join("exports")).expect("rmdir exports");
    symlink(&outside, Path::new(&dir).join("exports")).expect("link exports");
    let o = vernier(&["export", &dir]);
    assert_ne!(o.status.code(), Some(0));
    assert_eq!(std::fs::read_dir(&outside).expect("outside").count(), 0, "nothing exported outside the folder");
}

// SPEC N10 (issue 31, finding 2): with the lock held by another process, a
// writer says it is waiting and names the holder as the OS reports it (no
// holder line in the file: not a Vernier), and SIGINT, SIGTERM and SIGHUP
// each end the wait with exit 1 and nothing changed.
#[cfg(target_os = "linux")]
#[test]
fn a_held_lock_is_waited_for_out_loud_and_a_signal_cancels_the_wait() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    // Held by this test process, as `flock` would hold it.
    let held = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(Path::new(&dir).join(".vernier.lock"))
        .expect("lock file");
    held.lock().expect("hold the lock");
    for signal in ["INT", "TERM", "HUP"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vernier"))
            .args(["note", &dir, &format!("not while {signal}")])
            .stderr(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        stderr.read_line(&mut line).expect("a line on stderr");
        assert!(line.contains("waiting for the notebook's lock"), "{line}");
        assert!(line.contains(&format!("pid {}", std::process::id())), "the OS's holder is named: {line}");
        let killed = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status();
        assert!(killed.expect("kill").success());
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).expect("rest of stderr");
        let status = child.wait().expect("wait");
        assert_eq!(status.code(), Some(1), "SIG{signal} cancels the wait: {rest}");
        assert!(rest.contains("cancelled") && rest.contains("nothing was changed"), "{rest}");
    }
    drop(held);
    assert!(!notes(&dir).iter().any(|n| n.starts_with("not while")), "nothing was changed");
    let o = vernier(&["note", &dir, "free again"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

// SPEC N10: a benchmark looks at the lock before its first trial, and one
// cancelled while waiting to record keeps its trials and names their file.
#[cfg(target_os = "linux")]
#[test]
fn a_bench_cancelled_while_waiting_to_record_names_its_raw_file() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_vernier"))
        .args(["bench", "-n", "3", "--warmup", "0", "--notebook", &dir, "--", "sleep", "0.5"])
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Taken once the bench has passed its look at the lock (its raw file is
    // reserved) and is measuring.
    let raw = Path::new(&dir).join("raw/run-1.csv");
    let deadline = std::time::Instant::now() + common::DEADLINE;
    while !raw.exists() {
        assert!(std::time::Instant::now() < deadline, "the bench never reserved its raw file");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let held =
        std::fs::File::options().read(true).write(true).open(Path::new(&dir).join(".vernier.lock")).expect("lock file");
    held.lock().expect("hold the lock");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    while !line.contains("waiting for the notebook's lock") {
        line.clear();
        assert!(stderr.read_line(&mut line).expect("stderr") > 0, "the bench never said it waits");
    }
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    assert!(killed.expect("kill").success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("rest of stderr");
    assert_eq!(child.wait().expect("wait").code(), Some(1), "{rest}");
    assert!(rest.contains("raw/run-1.csv") && rest.contains("not recorded"), "{rest}");
    assert!(std::fs::read_to_string(&raw).expect("kept").contains("sleep"), "the trials are kept");
    drop(held);
    let o = vernier(&["show", &dir, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(0), "no row was recorded");
}

/// Runs `vernier args` with the journal folded into notebook.ron after
/// every change; killed (SIGKILL) after `kill_after` when given. True when
/// it reported success (exit 0 and `said` on stdout).
fn storm_writer(args: &[String], said: &str, kill_after: Option<std::time::Duration>) -> bool {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vernier"))
        .args(args)
        .env("VERNIER_COMPACT_AT", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn vernier");
    if let Some(after) = kill_after {
        std::thread::sleep(after);
        // It may have finished already; then this kills nothing.
        let _ = child.kill();
    }
    let out = child.wait_with_output().expect("wait");
    out.status.code() == Some(0) && String::from_utf8_lossy(&out.stdout).contains(said)
}

// SPEC N1, N7, N10 (issue 50): a storm on one notebook whose journal is
// folded into notebook.ron after every change, so kills land in appends
// and in compactions alike: three note writers, an Environment writer and
// a bench, a third of them SIGKILLed at a random moment, while the lock
// file is deleted again and again. Every change reported saved is in the
// notebook, which always loads with its seals whole.
#[test]
fn a_storm_of_killed_writers_and_compactions_loses_nothing_saved() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = new_notebook(tmp.path());
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let attacker = {
        let (lock, done) = (Path::new(&dir).join(".vernier.lock"), std::sync::Arc::clone(&done));
        std::thread::Builder::new()
            .name("lock-attacker".into())
            .spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    let _ = std::fs::remove_file(&lock);
                    std::thread::sleep(std::time::Duration::from_millis(37));
                }
            })
            .expect("the attacker thread")
    };
    let writers: Vec<_> = (0..5u64)
        .map(|w| {
            let dir = dir.clone();
            std::thread::Builder::new()
                .name(format!("writer-{w}"))
                .spawn(move || {
                    let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ (w + 1).wrapping_mul(0xA24B_AED4_963E_E407);
                    let mut next = move || {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        rng
                    };
                    let rounds = if w == 4 { 6 } else { 30 };
                    (0..rounds)
                        .map(|i| {
                            let text = format!("writer {w} change {i}");
                            let (args, said): (Vec<String>, &str) = match w {
                                0..=2 => (vec!["note".into(), dir.clone(), text.clone()], "note added"),
                                3 => (vec!["set".into(), dir.clone(), "Other load".into(), text.clone()], "set"),
                                _ => (
                                    ["bench", "-n", "3", "--warmup", "0", "--notebook", &dir, "--", "true"]
                                        .map(str::to_owned)
                                        .to_vec(),
                                    "",
                                ),
                            };
                            let r = next();
                            let kill = (r % 3 == 0).then(|| std::time::Duration::from_millis(r % 80));
                            (w, text, storm_writer(&args, said, kill))
                        })
                        .collect::<Vec<_>>()
                })
                .expect("a writer thread")
        })
        .collect();
    let outcomes: Vec<(u64, String, bool)> = writers.into_iter().flat_map(|w| w.join().expect("writer")).collect();
    done.store(true, Ordering::Relaxed);
    attacker.join().expect("attacker");

    let o = vernier(&["show", &dir, "--json"]);
    assert_eq!(o.status.code(), Some(0), "the notebook loads, seals whole: {}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let on_disk = notes(&dir);
    for (_, text, _) in outcomes.iter().filter(|(w, _, saved)| *w < 3 && *saved) {
        assert!(on_disk.contains(text), "'{text}' was reported saved and is lost");
    }
    let benches = outcomes.iter().filter(|(w, _, saved)| *w == 4 && *saved).count();
    let runs = v["runs"].as_array().expect("runs").len();
    assert!(runs >= benches, "{benches} benches reported a row, {runs} rows kept");
    // Sets run one after another: the value kept is the last reported
    // saved, or a later one whose writer was killed after it landed.
    let index = |text: &str| text.rsplit(' ').next().and_then(|n| n.parse::<u32>().ok());
    let last_set = outcomes.iter().filter(|(w, _, saved)| *w == 3 && *saved).filter_map(|(_, t, _)| index(t)).max();
    if let Some(last) = last_set {
        let fields = v["environment"].as_array().expect("environment");
        let other = fields.iter().find(|f| f["field"] == "Other load").and_then(|f| f["value"].as_str());
        let kept = other.and_then(index);
        assert!(kept.is_some_and(|k| k >= last), "Other load is {other:?}; set {last} was reported saved");
    }
    let saved = outcomes.iter().filter(|(_, _, s)| *s).count();
    assert!(saved > outcomes.len() / 2, "most writers were let finish: {saved} of {}", outcomes.len());
}
