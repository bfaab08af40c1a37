//! SPEC N1 (issue 50): a large notebook.ron is parsed once and kept, keyed
//! by its bytes, in the user's cache folder; what every command shows is
//! still exactly what the file holds. The audit's findings of each raw file
//! are kept there too (A3, N16), and a file changed since is read again.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vernier_engine::notebook::{NotebookPath, store};

use crate::common::{ok, stdout, vernier};

/// `vernier` with its parsed-notebook cache in `cache` (`None`: turned off).
fn with_cache(cache: Option<&Path>, args: &[&str]) -> Output {
    let dir = cache.map_or_else(Default::default, |c| c.as_os_str().to_owned());
    Command::new(env!("CARGO_BIN_EXE_vernier")).args(args).env("VERNIER_CACHE_DIR", dir).output().expect("run vernier")
}

/// A notebook of `n` rows copied from one `vernier bench` recorded, each
/// named for its number: over a megabyte at 700.
fn large_notebook(dir: &Path, n: u32) {
    let dir_s = dir.to_str().expect("utf-8 temp path");
    ok(vernier(&["new", dir_s, "--title", "large"]));
    ok(vernier(&["bench", "-n", "5", "--warmup", "1", "--notebook", dir_s, "--", "true"]));
    let template = store::load(dir).expect("load").runs()[0].measurement.clone();
    store::change(dir, |nb| {
        for i in 2..=n {
            let mut m = (*template).clone();
            m.what = format!("true, take {i}");
            if let Some(file) = &mut m.raw_file {
                file.path = NotebookPath::new("raw/run-1.csv").expect("path");
            }
            nb.record_run(m, chrono::Utc::now());
        }
        Ok::<_, vernier_engine::notebook::NotebookError>(())
    })
    .expect("grow");
    // The journal folded in: the rows are in notebook.ron itself.
    let folded = Command::new(env!("CARGO_BIN_EXE_vernier"))
        .args(["note", dir_s, "grown"])
        .env("VERNIER_COMPACT_AT", "1")
        .env("VERNIER_CACHE_DIR", "")
        .output()
        .expect("run vernier");
    ok(folded);
}

fn entries(cache: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(cache).map_or_else(|_| Vec::new(), |d| d.flatten().map(|e| e.path()).collect())
}

// SPEC N1: the first read keeps one entry; later reads, from the entry or
// from a broken one, show what the file holds; an edit by hand is seen.
#[test]
fn a_large_notebook_shows_what_its_file_holds_whether_parsed_or_kept() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, cache) = (tmp.path().join("nb"), tmp.path().join("cache"));
    large_notebook(&dir, 700);
    assert!(std::fs::metadata(dir.join(store::NOTEBOOK_FILE)).expect("file").len() > 1024 * 1024);
    let dir_s = dir.to_str().expect("utf-8");

    let parsed = stdout(&with_cache(None, &["show", dir_s]));
    assert!(parsed.contains("true, take 700"), "{parsed}");
    assert!(entries(&cache).is_empty());
    let first = stdout(&with_cache(Some(&cache), &["show", dir_s]));
    assert_eq!(first, parsed);
    let kept = entries(&cache);
    assert_eq!(kept.len(), 1, "one entry for one file: {kept:?}");
    let second = stdout(&with_cache(Some(&cache), &["show", dir_s]));
    assert_eq!(second, parsed, "read from the entry");

    // An entry that does not read back whole is passed over: cut in the
    // middle of a part, or cut where a part ends (its first two lines, the
    // counts of parts and rows, then each part after its length).
    let entry = std::fs::read(&kept[0]).expect("entry");
    let lines: Vec<usize> = entry.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i).take(2).collect();
    let mut part_ends = Vec::new();
    let mut at = lines[1] + 1 + 16;
    while at < entry.len() {
        let len = u64::from_le_bytes(entry[at..at + 8].try_into().expect("8 bytes"));
        at += 8 + usize::try_from(len).expect("length");
        part_ends.push(at);
    }
    assert_eq!(part_ends.last(), Some(&entry.len()), "the parts fill the entry");
    assert!(part_ends.len() > 2, "the rows are kept in parts: {}", part_ends.len());
    for cut in [entry.len() / 2, part_ends[part_ends.len() - 2], part_ends[0]] {
        std::fs::write(&kept[0], &entry[..cut]).expect("truncate");
        assert_eq!(stdout(&with_cache(Some(&cache), &["show", dir_s])), parsed, "an entry cut at byte {cut}");
    }

    // notebook.ron edited by hand: other bytes, another key, the edit shown.
    let file = dir.join(store::NOTEBOOK_FILE);
    let text = std::fs::read_to_string(&file).expect("ron");
    std::fs::write(&file, text.replacen("\"true, take 250\"", "\"true, take 250 (edited)\"", 1)).expect("edit");
    let edited = stdout(&with_cache(Some(&cache), &["show", dir_s]));
    assert!(edited.contains("take 250 (edited)"), "{edited}");
    assert_eq!(edited, stdout(&with_cache(None, &["show", dir_s])));
    assert_eq!(entries(&cache).len(), 2, "the edited file has its own entry");
}

/// What the audit kept of a notebook folder's raw files (see below).
#[cfg(unix)]
fn kept_findings(cache: &Path) -> Vec<PathBuf> {
    entries(cache).into_iter().filter(|p| p.extension().is_some_and(|x| x == "verified")).collect()
}

// SPEC A3, N16: what the audit found of each raw file is kept, and a file
// changed since is read again, even when its size and modification time
// are put back as they were. (Where the OS has no change time a user
// cannot set, nothing is kept.)
#[cfg(unix)]
#[test]
fn the_audit_reads_again_a_raw_file_changed_since_it_last_read_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (dir, cache) = (tmp.path().join("nb"), tmp.path().join("cache"));
    let dir_s = dir.to_str().expect("utf-8");
    ok(vernier(&["new", dir_s, "--title", "kept findings"]));
    ok(vernier(&["bench", "-n", "5", "--warmup", "1", "--notebook", dir_s, "--", "true"]));
    // A second row on the same file whose summary the file's trials do not give.
    store::change(&dir, |nb| {
        let mut m = (*nb.runs()[0].measurement).clone();
        m.summary.median *= 3.0;
        nb.record_run(m, chrono::Utc::now());
        Ok::<_, vernier_engine::notebook::NotebookError>(())
    })
    .expect("second row");
    // Files that changed within the file system's clock tick are not kept.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let audit = |cache: Option<&Path>| with_cache(cache, &["audit", dir_s]);
    let read = audit(None);
    let first = stdout(&read);
    assert!(first.contains("run 2: its summary is not its raw file's (N16)"), "{first}");
    assert!(!first.contains("run 1: its summary"), "{first}");
    assert!(kept_findings(&cache).is_empty(), "no cache, nothing kept");
    assert_eq!(stdout(&audit(Some(&cache))), first);
    // Kept only where the raw files' change times are the kernel's alone
    // (a local disk; not a USB stick or a network share).
    if !vernier_engine::os::fs::kernel_keeps_change_times(&dir.join(store::RAW_DIR)) {
        assert!(kept_findings(&cache).is_empty(), "nothing kept on this file system");
        return;
    }
    let kept = kept_findings(&cache);
    assert_eq!(kept.len(), 1, "one file for the notebook folder: {:?}", entries(&cache));
    let written = std::fs::metadata(&kept[0]).expect("kept").modified().expect("time");
    let again = audit(Some(&cache));
    assert_eq!(stdout(&again), first, "the findings recalled are the findings read");
    assert_eq!(again.status.code(), read.status.code());
    assert_eq!(std::fs::metadata(&kept[0]).expect("kept").modified().expect("time"), written, "nothing new to keep");

    // Kept findings that do not read back are passed over.
    std::fs::write(&kept[0], b"vernier-verified not this").expect("spoil");
    assert_eq!(stdout(&audit(Some(&cache))), first);

    // The raw file edited in place, its size and modification time put back.
    let raw = dir.join("raw/run-1.csv");
    let before = std::fs::metadata(&raw).expect("raw");
    let text = std::fs::read_to_string(&raw).expect("raw text");
    let at = text.rfind(|c: char| c.is_ascii_digit() && c != '9').expect("a digit");
    let digit = text.as_bytes()[at];
    let mut edited = text.into_bytes();
    edited[at] = digit + 1;
    std::fs::write(&raw, &edited).expect("edit");
    std::fs::File::options()
        .write(true)
        .open(&raw)
        .and_then(|f| f.set_modified(before.modified().expect("mtime")))
        .expect("mtime put back");
    let after = std::fs::metadata(&raw).expect("raw");
    assert_eq!((after.len(), after.modified().ok()), (before.len(), before.modified().ok()));
    let changed = stdout(&audit(Some(&cache)));
    assert!(changed.contains("run 1: raw file raw/run-1.csv changed after it was recorded"), "{changed}");
    assert!(changed.contains("run 2: raw file raw/run-1.csv changed after it was recorded"), "{changed}");
    assert_eq!(changed, stdout(&audit(None)), "as an audit that keeps nothing finds");
}
