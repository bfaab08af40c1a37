//! SPEC N7: saving is atomic — under every injected I/O failure and under
//! SIGKILL at random moments, the notebook on disk is always a whole one.

use std::cell::Cell;
use std::io::{self, BufRead as _, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use vernier_engine::notebook::{Notebook, SaveStep, store};

use crate::util::{at, saved_notebook};

/// A file system that fails its `fail_at`-th operation (create, each write
/// call, sync, rename, folder sync — counted from 1) and passes the rest to
/// the real one. Writes are cut into 4 KiB pieces so a failure can land in
/// the middle of the data.
struct FaultyStorage {
    fail_at: usize,
    count: Cell<usize>,
}

impl FaultyStorage {
    fn tick(&self) -> io::Result<()> {
        self.count.set(self.count.get() + 1);
        if self.count.get() == self.fail_at {
            Err(io::Error::other(format!("injected fault at operation {}", self.fail_at)))
        } else {
            Ok(())
        }
    }
}

struct FaultyFile<'a> {
    file: std::fs::File,
    storage: &'a FaultyStorage,
}

impl Write for FaultyFile<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.storage.tick()?;
        self.file.write(&buf[..buf.len().min(4096)])
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl<'a> store::Storage for &'a FaultyStorage {
    type File = FaultyFile<'a>;
    fn create(&self, path: &Path) -> io::Result<FaultyFile<'a>> {
        self.tick()?;
        Ok(FaultyFile { file: std::fs::File::options().write(true).create_new(true).open(path)?, storage: self })
    }
    fn sync(&self, file: &mut FaultyFile<'a>) -> io::Result<()> {
        self.tick()?;
        file.file.sync_all()
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.tick()?;
        std::fs::rename(from, to)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.tick()?;
        std::fs::File::open(dir)?.sync_all()
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }
}

// SPEC N7: each write, fsync and rename of a save fails in turn; the
// previous notebook survives every one and the error names the step.
#[test]
fn every_injected_fault_keeps_the_previous_notebook() {
    let (_tmp, dir, old) = saved_notebook();
    let mut new = old.clone();
    // Large enough that the write takes several 4 KiB calls.
    new.add_note(&"a long note ".repeat(2_000), at(99)).expect("note");
    let mut steps = Vec::new();
    for fail_at in 1.. {
        let storage = FaultyStorage { fail_at, count: Cell::new(0) };
        let mut locked = store::lock(&dir).expect("lock");
        *locked.notebook_mut() = new.clone();
        match locked.save_with(&&storage) {
            Ok(_) => {
                assert_eq!(store::load(&dir).expect("loads"), new);
                break;
            }
            Err(e) => {
                steps.push(e.step);
                let on_disk = store::load(&dir).expect("the notebook always loads");
                if e.step == SaveStep::SyncFolder {
                    // The rename happened; only its durability is in doubt.
                    assert_eq!(on_disk, new);
                    store::replace(&dir, &old).expect("restore");
                } else {
                    assert_eq!(on_disk, old, "a failed save at {:?} changed the notebook", e.step);
                }
                let kept =
                    if e.step == SaveStep::SyncFolder { "new version is in place" } else { "previous version is kept" };
                assert!(e.to_string().contains(kept), "{e}");
                assert_eq!(temporary_files(&dir), Vec::<String>::new(), "a failed save leaves no temporary file");
            }
        }
    }
    for step in [SaveStep::CreateTemp, SaveStep::Write, SaveStep::SyncTemp, SaveStep::Rename, SaveStep::SyncFolder] {
        assert!(steps.contains(&step), "no fault was injected at {step:?}");
    }
    assert!(steps.iter().filter(|s| **s == SaveStep::Write).count() >= 5, "several write calls were failed");
}

/// The names of the temporary files left in `dir`.
fn temporary_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("the folder reads")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

const CHILD_ENV: &str = "VERNIER_TEST_SAVE_LOOP_DIR";

/// Loads the notebook in `dir`, then adds a note and saves, `limit` times
/// (forever when `None`), printing `saved N` — N being the notebook's note
/// count — after each save returns.
fn save_loop(dir: &Path, limit: Option<usize>) -> Notebook {
    let mut nb = store::load(dir).expect("the notebook loads at start");
    let mut out = io::stdout().lock();
    let mut i = 0;
    while limit.is_none_or(|l| i < l) {
        i += 1;
        nb.add_note(&format!("save {i}"), at(1_000 + i64::try_from(i).expect("small"))).expect("note");
        store::replace(dir, &nb).expect("save");
        writeln!(out, "saved {}", nb.notes().len()).expect("stdout");
        out.flush().expect("stdout");
    }
    nb
}

// SPEC N7: the save loop used by the kill test. Run directly, it saves 20
// times and checks every save landed; run by the kill test (with the
// environment variable set) it saves until it is killed.
#[test]
fn save_loop_child() {
    if let Some(dir) = std::env::var_os(CHILD_ENV) {
        save_loop(Path::new(&dir), None);
        return;
    }
    let (_tmp, dir, nb) = saved_notebook();
    let notes = nb.notes().len();
    let last = save_loop(&dir, Some(20));
    assert_eq!(store::load(&dir).expect("loads"), last);
    assert_eq!(last.notes().len(), notes + 20);
}

// SPEC N7: a process saving in a loop is killed with SIGKILL at random
// moments, 200 times; the notebook always loads afterwards and holds every
// save that finished.
#[test]
fn sigkill_during_saves_never_tears_the_notebook() {
    let (_tmp, dir, mut nb) = saved_notebook();
    // A notebook of a few hundred kB, so a save takes long enough to be hit.
    nb.add_note(&"padding to make each save take a while ".repeat(2_000), at(50)).expect("note");
    store::replace(&dir, &nb).expect("save");
    let exe = std::env::current_exe().expect("test binary");
    let mut rng: u64 = 0x5DEE_CE66_D1CE_4E5B;
    let mut mid_save = 0;
    for round in 0..200 {
        let mut child = Command::new(&exe)
            .args(["--exact", "atomic_save::save_loop_child", "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, &dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the save loop");
        // The harness prints "test … ... " before the first line.
        let saved = |l: String| l.rsplit_once("saved ").and_then(|(_, n)| n.parse::<usize>().ok());
        let mut lines = io::BufReader::new(child.stdout.take().expect("piped")).lines();
        // The kill lands in the save loop, not in the process's start-up:
        // wait for its first confirmed save (each save locks, loads and
        // saves, so a loaded machine may take a while to get there), then
        // kill at a random moment of the saves that follow.
        let first = lines.by_ref().map_while(Result::ok).find_map(saved);
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        std::thread::sleep(Duration::from_micros(rng % 60_000));
        child.kill().expect("SIGKILL");
        child.wait().expect("reap");
        let temporary = |e: &std::fs::DirEntry| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(".notebook.ron.") && name.ends_with(".tmp")
        };
        if std::fs::read_dir(&dir).expect("dir").flatten().any(|e| temporary(&e)) {
            mid_save += 1;
        }
        let confirmed = first.into_iter().chain(lines.map_while(Result::ok).filter_map(saved)).last();
        let loaded = store::load(&dir).unwrap_or_else(|e| panic!("round {round}: torn notebook: {e}"));
        assert!(loaded.integrity().is_empty(), "round {round}");
        let n = confirmed.unwrap_or_else(|| panic!("round {round}: the save loop confirmed no save before it ended"));
        // Every save that returned is on disk; at most one more finished
        // between its return and the kill.
        let notes = loaded.notes().len();
        assert!(notes == n || notes == n + 1, "round {round}: {n} saves confirmed, {notes} notes on disk");
    }
    eprintln!("200 kills, each after a confirmed save: {mid_save} landed with a temporary file present");
}
