//! What the notebook's commands cost as it grows (issue 50: a change costs
//! the same at 10 000 runs as at 10). Run with
//! `cargo bench -p vernier --bench notebook_scale` (sizes may be narrowed:
//! `-- 100 1000`).
//!
//! For notebooks of 100, 1 000 and 10 000 runs it reports the median (and
//! the range) of 11 runs of the release `vernier`'s `note`, `show`,
//! `show --run N`, `export` and `audit`, of the window's re-read after a
//! change made elsewhere (the library call its follow thread makes), and
//! the notebook's bytes a run. `audit` is timed twice: as a student runs
//! it again, what it found of each unchanged raw file kept from the run
//! before, and with nothing kept, every raw file read. The commands' cache
//! is the bench's own folder, never the user's. Every row is a copy of one recorded by a
//! real `vernier bench` (conditions, CPU-time summary, boundary), so the
//! rows weigh what a student's do. `NOTEBOOK_SCALE_KEEP=DIR` keeps the
//! notebooks in DIR (to profile a command on them).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use vernier_engine::notebook::{Measurement, NotebookPath, store};
use vernier_engine::stats::Summary;

const ROUNDS: usize = 11;

fn main() {
    let sizes: Vec<u32> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![100, 1_000, 10_000] } else { sizes };
    // NOTEBOOK_SCALE_KEEP=DIR keeps the notebooks there, to profile a command on them.
    let kept = std::env::var_os("NOTEBOOK_SCALE_KEEP").map(std::path::PathBuf::from);
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = kept.as_deref().unwrap_or(tmp.path());
    CACHE.get_or_init(|| cache(root));
    let template = recorded_row(&root.join("template"));

    println!(
        "| runs | note | show | show --run N | export | audit | audit, every raw file read | window re-read | bytes a run |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for n in sizes {
        let dir = root.join(format!("n{n}"));
        build(&dir, n, &template);
        let bytes = folder_bytes(&dir, &[store::NOTEBOOK_FILE, store::JOURNAL_FILE]);
        let mut k = 0;
        let note = timed(|| {
            k += 1;
            vernier(&["note", path(&dir), &format!("bench note {k}")]);
        });
        let show = timed(|| vernier(&["show", path(&dir)]));
        let middle = (n / 2).max(1).to_string();
        let show_run = timed(|| vernier(&["show", path(&dir), "--run", &middle]));
        let export = timed(|| vernier(&["export", path(&dir), "--force"]));
        let audit = timed(|| vernier(&["audit", path(&dir)]));
        let audit_read = timed_after(|| forget_found(root), || vernier(&["audit", path(&dir)]));
        let reread = reread(&dir);
        println!(
            "| {n} | {} | {} | {} | {} | {} | {} | {} | {:.0} B |",
            cell(note),
            cell(show),
            cell(show_run),
            cell(export),
            cell(audit),
            cell(audit_read),
            cell(reread),
            bytes as f64 / f64::from(n)
        );
    }
}

/// One row recorded by `vernier bench` into a fresh notebook, with its
/// raw file's bytes: what every row of the big notebooks copies.
fn recorded_row(dir: &Path) -> (Measurement, Vec<u8>) {
    vernier(&["new", path(dir), "--title", "template"]);
    vernier(&["bench", "-n", "11", "--warmup", "1", "--notebook", path(dir), "--", "true"]);
    let nb = store::load(dir).expect("template notebook");
    let run = nb.runs().first().expect("the bench recorded a row");
    let raw = run.measurement.raw_file.as_ref().expect("a raw file");
    let bytes = std::fs::read(dir.join(raw.path.as_str())).expect("raw file");
    ((*run.measurement).clone(), bytes)
}

/// A notebook of `n` runs copied from `template`, each with its own
/// figures, name and raw file, with a few predictions and notes beside them.
fn build(dir: &Path, n: u32, (template, raw): &(Measurement, Vec<u8>)) {
    store::create(dir, &format!("{n} runs"), chrono::Utc::now()).expect("create");
    for i in 1..=n {
        std::fs::write(dir.join(format!("raw/run-{i}.csv")), raw).expect("raw file");
    }
    store::change(dir, |nb| {
        for p in 1..=3 {
            let text = vernier_engine::notebook::PredictionText {
                experiment: format!("experiment {p}"),
                predict: "ikj is at least twice as fast as ijk".into(),
                why: "unit stride in the inner loop".into(),
                figure: None,
            };
            nb.add_prediction(text, chrono::Utc::now())?;
        }
        for i in 1..=n {
            let mut m = template.clone();
            let base = 1.0 + f64::from(i % 97) / 100.0;
            m.what = format!("true, take {i}");
            m.summary = Summary::of(&[base, base * 1.01, base * 0.99, base * 1.02, base * 1.03]).expect("trials");
            if let Some(file) = &mut m.raw_file {
                file.path = NotebookPath::new(format!("raw/run-{i}.csv")).expect("path");
            }
            nb.record_run(m, chrono::Utc::now());
            if i % 100 == 0 {
                nb.add_note(&format!("after run {i}: the fan spun up"), chrono::Utc::now())?;
            }
        }
        Ok::<_, vernier_engine::notebook::NotebookError>(())
    })
    .expect("build");
}

/// The window's re-read after another program's one-line note: the call
/// its follow thread makes when the notebook's file moved.
fn reread(dir: &Path) -> Vec<Duration> {
    let (mut seen, mut stamp) = store::load_stamped(dir).expect("load");
    (0..ROUNDS)
        .map(|k| {
            vernier(&["note", path(dir), &format!("from elsewhere {k}")]);
            let start = Instant::now();
            let changed = store::reload_if_changed(dir, &mut stamp, Some(&seen)).expect("re-read");
            let took = start.elapsed();
            seen = changed.expect("the note made elsewhere was seen");
            took
        })
        .collect()
}

fn timed(f: impl FnMut()) -> Vec<Duration> {
    timed_after(|| {}, f)
}

/// [`timed`], `before` run ahead of each round, untimed.
fn timed_after(mut before: impl FnMut(), mut f: impl FnMut()) -> Vec<Duration> {
    (0..ROUNDS)
        .map(|_| {
            before();
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect()
}

/// The commands' cache folder (`VERNIER_CACHE_DIR`), set once in `main`.
static CACHE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// The commands' cache folder: the bench's own.
fn cache(root: &Path) -> std::path::PathBuf {
    root.join("cache")
}

/// Removes what the audits found of the raw files, so the next reads them all.
fn forget_found(root: &Path) {
    for entry in std::fs::read_dir(cache(root)).into_iter().flatten().flatten() {
        if entry.path().extension().is_some_and(|x| x == "verified") {
            std::fs::remove_file(entry.path()).expect("forget what the audit found");
        }
    }
}

/// "median (min–max)" in milliseconds.
fn cell(mut times: Vec<Duration>) -> String {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (lo, mid, hi) = (times[0], times[times.len() / 2], times[times.len() - 1]);
    if ms(hi) < 10.0 {
        format!("{:.2} ms ({:.2}–{:.2})", ms(mid), ms(lo), ms(hi))
    } else {
        format!("{:.0} ms ({:.0}–{:.0})", ms(mid), ms(lo), ms(hi))
    }
}

fn folder_bytes(dir: &Path, names: &[&str]) -> u64 {
    names.iter().filter_map(|name| std::fs::metadata(dir.join(name)).ok()).map(|m| m.len()).sum()
}

fn path(dir: &Path) -> &str {
    dir.to_str().expect("a UTF-8 temp path")
}

/// Runs the release `vernier`; its output is not what is measured.
fn vernier(args: &[&str]) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vernier"));
    if let Some(cache) = CACHE.get() {
        command.env("VERNIER_CACHE_DIR", cache);
    }
    let status = command.args(args).stdout(Stdio::null()).stderr(Stdio::null()).status().expect("vernier runs");
    // `show` and `audit` exit 1 on a finding; anything else is a failure.
    assert!(status.code().is_some_and(|c| c <= 1), "vernier {args:?} failed: {status}");
}
