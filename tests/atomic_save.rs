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
        self.tick()?;
        std::fs::remove_file(path)
    }
    fn append(&self, path: &Path) -> io::Result<FaultyFile<'a>> {
        self.tick()?;
        Ok(FaultyFile { file: std::fs::File::options().append(true).create(true).open(path)?, storage: self })
    }
}

// SPEC N7: each write, fsync and rename of a whole notebook.ron (a
// compaction of the journal into it) fails in turn; the previous notebook
// survives every one and the error names the step.
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
        match locked.compact_with(&&storage) {
            Ok(_) => {
                assert_eq!(store::load(&dir).expect("loads"), new);
                break;
            }
            Err(e) => {
                steps.push(e.step);
                let on_disk = store::load(&dir).expect("the notebook always loads");
                if matches!(e.step, SaveStep::SyncFolder | SaveStep::RemoveJournal) {
                    // The rename happened; only its durability, or the
                    // folded journal's removal, is in doubt.
                    assert_eq!(on_disk, new);
                    store::replace(&dir, &old).expect("restore");
                } else {
                    assert_eq!(on_disk, old, "a failed save at {:?} changed the notebook", e.step);
                }
                let kept = if matches!(e.step, SaveStep::SyncFolder | SaveStep::RemoveJournal) {
                    "new version is in place"
                } else {
                    "previous version is kept"
                };
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

// SPEC N1, N7: each step of appending a change to the journal fails in
// turn (opening, each 4 KiB write, the flush); a failure before the line
// is whole leaves the notebook as it was and the next change cuts the
// part-written line off; a failed flush leaves the line in place.
#[test]
fn every_injected_fault_in_an_append_keeps_the_notebook_whole() {
    let (_tmp, dir, old) = saved_notebook();
    let mut steps = Vec::new();
    for fail_at in 1.. {
        let storage = FaultyStorage { fail_at, count: Cell::new(0) };
        let mut locked = store::lock(&dir).expect("lock");
        let before = locked.notebook().clone();
        locked.notebook_mut().add_note(&format!("{fail_at} {}", "a long note ".repeat(1_000)), at(99)).expect("note");
        let new = locked.notebook().clone();
        match locked.save_with(&&storage) {
            Ok(_) => {
                assert_eq!(store::load(&dir).expect("loads"), new);
                break;
            }
            Err(e) => {
                steps.push(e.step);
                let on_disk = store::load(&dir).expect("the notebook always loads");
                let expected = if e.step == SaveStep::SyncJournal { &new } else { &before };
                assert_eq!(&on_disk, expected, "after a fault at {:?}", e.step);
            }
        }
    }
    assert!(steps.contains(&SaveStep::Append) && steps.contains(&SaveStep::SyncJournal), "{steps:?}");
    assert!(steps.iter().filter(|s| **s == SaveStep::Append).count() >= 3, "several write calls were failed");
    let on_disk = store::load(&dir).expect("loads");
    assert!(on_disk.notes().len() > old.notes().len());
}

// SPEC N1, N7: a compaction (the journal folded into a new notebook.ron,
// then removed) fails at each step in turn; whichever step it stops at,
// the notebook loads with every change the journal held, once.
#[test]
fn a_compaction_stopped_at_any_step_loses_no_change() {
    let (_tmp, dir, _) = saved_notebook();
    for i in 0..3 {
        store::change(&dir, |nb| nb.add_note(&format!("journalled {i}"), at(200 + i))).expect("note");
    }
    let journal = dir.join(store::JOURNAL_FILE);
    assert!(journal.is_file(), "the notes went to the journal");
    let expected = store::load(&dir).expect("loads");
    for fail_at in 1.. {
        let storage = FaultyStorage { fail_at, count: Cell::new(0) };
        let locked = store::lock(&dir).expect("lock");
        let outcome = locked.compact_with(&&storage);
        assert_eq!(store::load(&dir).expect("the notebook always loads"), expected, "fault at {fail_at}");
        assert_eq!(temporary_files(&dir), Vec::<String>::new(), "a failed compaction leaves no temporary file");
        if outcome.is_ok() {
            assert!(!journal.exists(), "a finished compaction removes the journal it folded in");
            break;
        }
        // A change made after a compaction stopped half-way follows it.
        store::change(&dir, |nb| nb.add_note(&format!("after fault {fail_at}"), at(300))).expect("note");
        let mut with = expected.clone();
        with.add_note(&format!("after fault {fail_at}"), at(300)).expect("note");
        assert_eq!(store::load(&dir).expect("loads"), with);
        store::replace(&dir, &expected).expect("restore");
    }
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
/// Set for a save loop that folds its journal into notebook.ron after
/// every save, so kills land in compactions too.
const COMPACT_ENV: &str = "VERNIER_TEST_SAVE_LOOP_COMPACT";

/// Loads the notebook in `dir`, then adds a note through the store (one
/// journal line, folded in at once under [`COMPACT_ENV`]), `limit` times
/// (forever when `None`), printing `saved N` — N being the notebook's note
/// count — after each save returns.
fn save_loop(dir: &Path, limit: Option<usize>) -> Notebook {
    let mut nb = store::load(dir).expect("the notebook loads at start");
    let mut out = io::stdout().lock();
    let mut i = 0;
    while limit.is_none_or(|l| i < l) {
        i += 1;
        let at = at(1_000 + i64::try_from(i).expect("small"));
        nb = store::change(dir, |nb| nb.add_note(&format!("save {i}"), at)).expect("save").1;
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
        if std::env::var_os(COMPACT_ENV).is_some() {
            store::set_compaction_threshold(Some(1));
        }
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
// moments, 200 times — every other time one that folds its journal into
// notebook.ron after each save; the notebook always loads afterwards and
// holds every save that finished.
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
            .envs((round % 2 == 1).then_some((COMPACT_ENV, "1")))
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
