//! SPEC N1 (issue 50): a large notebook.ron is parsed once and kept, keyed
//! by its bytes, in the user's cache folder; what every command shows is
//! still exactly what the file holds.

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
