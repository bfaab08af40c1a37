//! The checks on the notebook's rows (A1–A6, A10, A12): what the log
//! itself must hold, and the raw files its rows point at.

use std::path::Path;

use super::{Check, Finding, Place};
use crate::digest::sha256_hex;
use crate::display::inert;
use crate::harness::raw;
use crate::notebook::{
    Discard, NOT_RECORDED, Notebook, Optimisation, RawFile, RowRef, Tag, WarmupPolicy, is_date, plausible,
};

pub(super) fn check(dir: &Path, nb: &Notebook) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut find = |check, place, message: String| out.push(Finding { check, place, message });
    for run in nb.runs() {
        let m = &run.measurement;
        let place = || Place::Run { number: run.number };
        let kept = run.discarded.is_none();
        let s = &m.summary;
        if kept && !(s.median.is_finite() && s.iqr.is_finite() && s.iqr >= 0.0 && s.n > 0) {
            find(Check::A1, place(), "the median or its IQR is missing or not a number".into());
        }
        if let Some(why) = plausible::absurd_summary(s, &m.unit, m.ns_per_unit) {
            find(Check::A1, place(), format!("cannot be a measurement as it stands: {why}"));
        }
        // What a row lacks is stated later, never by changing today's
        // Environment (the row keeps the one it was recorded under).
        let later =
            format!("state it with vernier set-run --run {} (in the window: State what is missing…)", run.number);
        if kept && m.warmup == WarmupPolicy::Unknown {
            find(
                Check::A1,
                place(),
                format!("n is not split into warm-up + timed: the warm-up was not recorded; {later}"),
            );
        }
        if kept {
            // The row's own record only (SPEC N9): an Environment stated
            // after it was measured says nothing about it.
            let context = run.context();
            let missing = context.unstated();
            if !missing.is_empty() {
                let why = if context.stated.is_none() { format!(" ({NOT_RECORDED})") } else { String::new() };
                find(Check::A2, place(), format!("states no {}{why}; {later}", missing.join(", no ")));
            }
        }
        // A18 (C.5): -O0 is a diagnostic; a kept row built so is no result.
        if let Some(build) = run.context().build().filter(|_| kept) {
            let level = Optimisation::of(&build);
            // A stated build never changes (N11): the way forward is a
            // discard and a run of the build that ships, its level stated.
            let what_to_do = format!(
                "discard it with that reason (vernier discard {} --run {} --why …) and measure the build you ship, \
                 its level stated (--build \"g++ -O2 …\")",
                crate::display::quote_argv(&[dir.display().to_string()]),
                run.number
            );
            if let Some(why) = level.diagnostic_reason() {
                let build = crate::display::inert_line(build.clone());
                let shown = match build.char_indices().nth(120) {
                    Some((i, _)) => format!("{}…", &build[..i]),
                    None => build,
                };
                find(Check::A18, place(), format!("{why}: “{shown}” — a diagnostic, never a result; {what_to_do}"));
            }
        }
        let row =
            Row { subject: RowRef::Run(run.number), raw: m.raw_file.as_ref(), synthetic: m.synthetic, tag: m.tag };
        row.check(dir, nb, run.discarded.as_ref(), &mut |c, message| find(c, place(), message));
    }
    for soak in nb.soaks() {
        let place = || Place::Soak { number: soak.number };
        let n = &soak.numbers;
        let finite = |v: f64| v.is_finite();
        let times_ok = [n.t_onset, n.t_stable].iter().all(|t| t.is_none_or(finite));
        if soak.discarded.is_none() && !([n.peak, n.sustained, n.ratio, n.tail_iqr].into_iter().all(finite) && times_ok)
        {
            find(Check::A5, place(), "one of P, t_onset, t_stable, S, S/P, tail IQR is not a number".into());
        }
        let row = Row {
            subject: RowRef::Soak(soak.number),
            raw: soak.raw_file.as_ref(),
            synthetic: soak.synthetic,
            tag: soak.tag,
        };
        row.check(dir, nb, soak.discarded.as_ref(), &mut |c, message| find(c, place(), message));
    }
    for (path, message) in unreferenced_raw_files(dir, nb) {
        find(Check::A3, Place::Notebook, format!("{path}: {message}"));
    }
    for f in nb.integrity() {
        find(Check::A4, Place::Prediction { number: f.prediction }, f.message.clone());
    }
    for (i, c) in nb.writing().citations.iter().enumerate() {
        let mut missing = Vec::new();
        if !(c.url.starts_with("https://") || c.url.starts_with("http://")) {
            missing.push("a URL");
        }
        if !is_date(&c.retrieved) {
            missing.push("a retrieval date (YYYY-MM-DD)");
        }
        if !missing.is_empty() {
            find(
                Check::A12,
                Place::Citation { number: i + 1 },
                format!("'{}' needs {}", c.figure, missing.join(" and ")),
            );
        }
    }
    out
}

/// The files in `raw/` that no row names and no note mentions, each with
/// what it is: a reservation or temporary a writer left (whose, and whether
/// it still runs), or a file nothing refers to (N6, A3).
fn unreferenced_raw_files(dir: &Path, nb: &Notebook) -> Vec<(String, String)> {
    let named: std::collections::HashSet<String> = nb
        .runs()
        .iter()
        .filter_map(|r| r.measurement.raw_file.as_ref())
        .chain(nb.soaks().iter().filter_map(|s| s.raw_file.as_ref()))
        .map(|raw| raw.path.to_string())
        .collect();
    let mentioned = |path: &str| named.contains(path) || nb.notes().iter().any(|n| n.text.contains(path));
    let leftovers = crate::notebook::store::leftovers(dir);
    let mut out: Vec<(String, String)> = leftovers
        .iter()
        .filter(|l| l.path.starts_with(crate::notebook::store::RAW_DIR))
        .map(|l| {
            let what = if l.reservation { "a raw file's name reserved" } else { "a temporary file left" };
            let whose = match &l.writer {
                crate::notebook::store::Writer::Dead => {
                    "by a Vernier that is no longer running; the next change to the notebook removes it".to_owned()
                }
                crate::notebook::store::Writer::Running { pid } => format!("by a Vernier still running (pid {pid})"),
                crate::notebook::store::Writer::Elsewhere { host, pid } => {
                    format!(
                        "by Vernier on another host ({}, pid {pid}); remove it once that one has stopped",
                        inert(host)
                    )
                }
            };
            (l.path.clone(), format!("{what} {whose}"))
        })
        .collect();
    let Ok(entries) = std::fs::read_dir(dir.join(crate::notebook::store::RAW_DIR)) else { return out };
    let mut orphans: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| format!("{}/{}", crate::notebook::store::RAW_DIR, e.file_name().to_string_lossy()))
        .filter(|path| !mentioned(path) && !leftovers.iter().any(|l| &l.path == path))
        .collect();
    orphans.sort();
    out.extend(orphans.into_iter().map(|path| {
        let message = "no row names this raw file and no note mentions it: trials measured but never recorded, or a \
                       file put there by hand"
            .to_owned();
        (inert(&path).into_owned(), message)
    }));
    out
}

/// What runs and soaks are both checked for.
struct Row<'a> {
    subject: RowRef,
    raw: Option<&'a RawFile>,
    synthetic: bool,
    tag: Tag,
}

impl Row<'_> {
    /// A3 (its raw file), A10 (synthetic data tagged MODELED), A6 (a
    /// discard with a reason, named in a note).
    fn check(&self, dir: &Path, nb: &Notebook, discarded: Option<&Discard>, find: &mut impl FnMut(Check, String)) {
        if let Some(problem) = raw_problem(dir, self.raw) {
            find(Check::A3, problem);
        }
        if self.synthetic && self.tag != Tag::Modeled {
            find(Check::A10, format!("holds SYNTHETIC data but is tagged {}, not MODELED", self.tag));
        }
        if let Some(d) = discarded {
            check_discard_note(nb, self.subject, &d.reason, find);
        }
    }
}

/// Why a row's raw file fails A3, if it does: not named, outside the
/// notebook, missing, or changed since it was recorded.
fn raw_problem(dir: &Path, raw: Option<&RawFile>) -> Option<String> {
    let Some(raw) = raw else {
        return Some("names no raw file".into());
    };
    let path = match raw.path.resolve(dir) {
        Ok(p) => p,
        Err(e) => return Some(format!("raw file refused: {e}")),
    };
    match raw::read(&path) {
        Err(e) if e.is_not_found() => Some(format!("raw file {} does not exist", raw.path)),
        Err(e) => Some(format!("raw file {} not hashed: {e}", raw.path)),
        Ok(bytes) if sha256_hex(&bytes) != raw.sha256 => Some(format!(
            "raw file {} changed after it was recorded (SHA-256 {}…, recorded {}…)",
            raw.path,
            &sha256_hex(&bytes)[..12],
            raw.sha256.get(..12).unwrap_or(&raw.sha256)
        )),
        Ok(_) => None,
    }
}

/// A6: a note names the discarded row, and the discard has a reason.
fn check_discard_note(nb: &Notebook, subject: RowRef, reason: &str, find: &mut impl FnMut(Check, String)) {
    if reason.trim().is_empty() {
        find(Check::A6, format!("{subject} is discarded without a reason"));
    }
    let name = subject.to_string();
    // "run 1" must not be found inside "run 12".
    let names = |text: &str| {
        text.match_indices(&name).any(|(i, _)| !text[i + name.len()..].starts_with(|c: char| c.is_ascii_digit()))
    };
    let named = nb.notes().iter().any(|n| n.about == Some(subject) || names(&n.text));
    if !named {
        find(Check::A6, format!("{subject} is discarded but no note under Notes and anomalies names it"));
    }
}
