//! A small measured program for the tests of parameter scans and the
//! program's own figure (SPEC E16, E17), and for trying them by hand: it
//! walks a working set (or sleeps, or states a figure) and prints its own
//! figure the way a student's `cache_walk` does.
//!
//! ```text
//! figure-walk [--bytes N] [--sleep-ms MS] [--value V] [--trials K] [--json]
//!             [--omit] [--log FILE] [--tag TEXT]
//! ```
//!
//! - `--bytes N`: chase pointers through a random cycle over N bytes and
//!   print `ns/access: X` for each of K internal trials (default 1).
//! - `--value V`: print V as the figure instead of a measured one (each
//!   internal trial adds 1 to it), so a test knows what was printed.
//! - `--sleep-ms MS`: sleep that long first (a process that takes time).
//! - `--json`: print `{"ns_per_access": X}` (one trial) or an array.
//! - `--omit`: print no figure at all (a run that fails to report).
//! - `--log FILE`: append `TAG` (or the bytes) as one line, so a test sees
//!   the order the points ran in.

use std::io::Write as _;
use std::time::{Duration, Instant};

fn main() {
    let mut bytes: u64 = 0;
    let mut value: Option<f64> = None;
    let mut trials: usize = 1;
    let mut json = false;
    let mut omit = false;
    let mut sleep_ms = 0u64;
    let mut log: Option<String> = None;
    let mut tag: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut next = || args.next().unwrap_or_else(|| fail(&format!("{arg} needs a value")));
        match arg.as_str() {
            "--bytes" => bytes = next().parse().unwrap_or_else(|_| fail("--bytes takes a whole number")),
            "--value" => value = Some(next().parse().unwrap_or_else(|_| fail("--value takes a number"))),
            "--trials" => trials = next().parse().unwrap_or_else(|_| fail("--trials takes a whole number")),
            "--sleep-ms" => sleep_ms = next().parse().unwrap_or_else(|_| fail("--sleep-ms takes a whole number")),
            "--log" => log = Some(next()),
            "--tag" => tag = Some(next()),
            "--json" => json = true,
            "--omit" => omit = true,
            other => fail(&format!("unknown argument {other}")),
        }
    }
    if let Some(path) = &log {
        let line = tag.clone().unwrap_or_else(|| bytes.to_string());
        let mut file =
            std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap_or_else(|e| fail(&e.to_string()));
        let _ = writeln!(file, "{line}");
    }
    std::thread::sleep(Duration::from_millis(sleep_ms));
    if omit {
        println!("walked, but this build prints no figure");
        return;
    }
    let figures: Vec<f64> = (0..trials.max(1))
        .map(|i| match value {
            Some(v) => v + i as f64,
            None => walk(bytes.max(64)),
        })
        .collect();
    if json {
        let list: Vec<String> = figures.iter().map(f64::to_string).collect();
        if trials > 1 {
            println!("{{\"ns_per_access\": [{}]}}", list.join(", "));
        } else {
            println!("{{\"ns_per_access\": {}}}", list[0]);
        }
    } else {
        for (i, f) in figures.iter().enumerate() {
            println!("trial {}: ns/access: {f}", i + 1);
        }
    }
}

/// Nanoseconds per dependent load over a random cycle through `bytes`.
fn walk(bytes: u64) -> f64 {
    let slots = usize::try_from(bytes / 8).unwrap_or(usize::MAX).max(8);
    // A single random cycle (Sattolo's algorithm) so every load depends on
    // the one before and the prefetcher cannot guess the next.
    let mut next: Vec<usize> = (0..slots).collect();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..slots).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let j = usize::try_from(state % i as u64).unwrap_or(0);
        next.swap(i, j);
    }
    let accesses = slots.clamp(1 << 16, 1 << 22);
    let mut at = 0usize;
    for _ in 0..slots.min(1 << 20) {
        at = next[at];
    }
    let start = Instant::now();
    for _ in 0..accesses {
        at = next[at];
    }
    let ns = start.elapsed().as_nanos() as f64;
    std::hint::black_box(at);
    ns / accesses as f64
}

fn fail(message: &str) -> ! {
    eprintln!("figure-walk: {message}");
    std::process::exit(2)
}
