//! The checks on the notebook's rows (A1–A6, A10, A12, N16): what the log
//! itself must hold, and the raw files its rows point at — each read once,
//! bounded, for its hash and the summary its trials give.

use std::path::Path;

use super::{Check, Finding, Place};
use crate::digest::sha256_hex;
use crate::display::inert;
use crate::harness::raw;
use crate::notebook::store::Verified;
use crate::notebook::{
    Discard, NOT_RECORDED, Notebook, NotebookRoot, Optimisation, RawFile, RowRef, Run, Tag, WarmupPolicy, is_date,
    plausible,
};
use crate::os::fs::FileIdentity;
use crate::stats::Summary;

pub(super) fn check(dir: &Path, nb: &Notebook) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut find = |check, place, message: String| out.push(Finding { check, place, message });
    // Every row's raw file is resolved in the folder, resolved once; a
    // file read before and unchanged since is not read again.
    let root = NotebookRoot::of(dir);
    let mut verified = Verified::of(dir);
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
        // SPEC N16: numbers no set of trials could have, with or without a raw file.
        if let Some(why) = s.contradiction(&m.unit) {
            find(Check::A1, place(), format!("its summary contradicts itself (N16): {why}"));
        }
        // What a row lacks is stated later, never by changing today's
        // Environment (the row keeps the one it was recorded under).
        let later =
            || format!("state it with vernier set-run --run {} (in the window: State what is missing…)", run.number);
        if kept && m.warmup == WarmupPolicy::Unknown {
            find(
                Check::A1,
                place(),
                format!("n is not split into warm-up + timed: the warm-up was not recorded; {}", later()),
            );
        }
        if kept {
            // The row's own record only (SPEC N9): an Environment stated
            // after it was measured says nothing about it.
            let context = run.context();
            let missing = context.unstated();
            if !missing.is_empty() {
                let why = if context.stated.is_none() { format!(" ({NOT_RECORDED})") } else { String::new() };
                find(Check::A2, place(), format!("states no {}{why}; {}", missing.join(", no "), later()));
            }
        }
        // A18 (C.5): -O0 is a diagnostic; a kept row built so is no result.
        if let Some(build) = run.context().build().filter(|_| kept)
            && let Some(why) = Optimisation::of(&build).diagnostic_reason()
        {
            // A stated build never changes (N11): the way forward is a
            // discard and a run of the build that ships, its level stated.
            let what_to_do = format!(
                "discard it with that reason (vernier discard {} --run {} --why …) and measure the build you ship, \
                 its level stated (--build \"g++ -O2 …\")",
                crate::display::quote_argv(&[dir.display().to_string()]),
                run.number
            );
            let build = crate::display::inert_line(build);
            let shown = match build.char_indices().nth(120) {
                Some((i, _)) => format!("{}…", &build[..i]),
                None => build,
            };
            find(Check::A18, place(), format!("{why}: “{shown}” — a diagnostic, never a result; {what_to_do}"));
        }
        let row = Row {
            subject: RowRef::Run(run.number),
            raw: m.raw_file.as_ref(),
            synthetic: m.synthetic,
            tag: m.tag,
            run: Some(run),
        };
        row.check(&root, &mut verified, nb, run.discarded.as_ref(), &mut |c, message| find(c, place(), message));
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
            run: None,
        };
        row.check(&root, &mut verified, nb, soak.discarded.as_ref(), &mut |c, message| find(c, place(), message));
    }
    verified.keep();
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
/// it still runs), or a file nothing refers to (N6, A3). A row names its
/// raw file and the sources its build recipe kept (N15, A20: files Vernier
/// keeps are known as its own).
fn unreferenced_raw_files(dir: &Path, nb: &Notebook) -> Vec<(String, String)> {
    let kept_sources = nb
        .runs()
        .iter()
        .filter_map(|r| r.measurement.recipe.as_ref())
        .flat_map(|recipe| recipe.sources.iter().filter_map(|s| s.kept.as_ref()));
    let named: std::collections::HashSet<String> = nb
        .runs()
        .iter()
        .filter_map(|r| r.measurement.raw_file.as_ref())
        .chain(nb.soaks().iter().filter_map(|s| s.raw_file.as_ref()))
        .map(|raw| raw.path.to_string())
        .chain(kept_sources.map(ToString::to_string))
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
    /// A Runs row, whose summary its raw file's trials must give (N16).
    run: Option<&'a Run>,
}

impl Row<'_> {
    /// A3 (its raw file, and for a run the summary its trials give, N16),
    /// A10 (synthetic data tagged MODELED), A6 (a discard with a reason,
    /// named in a note).
    fn check(
        &self,
        root: &NotebookRoot,
        verified: &mut Verified,
        nb: &Notebook,
        discarded: Option<&Discard>,
        find: &mut impl FnMut(Check, String),
    ) {
        if let Some(problem) = raw_problem(root, verified, self.raw, self.run) {
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

/// Why a row fails A3, if it does: its raw file not named, outside the
/// notebook, missing, or changed since it was recorded, or for a run a
/// summary its file's trials do not give (N16). A file read before and
/// unchanged since, for a row that says the same, is not read again: what
/// was found then is found ([`Verified`]).
fn raw_problem(
    root: &NotebookRoot,
    verified: &mut Verified,
    raw: Option<&RawFile>,
    run: Option<&Run>,
) -> Option<String> {
    let Some(raw) = raw else {
        return Some("names no raw file".into());
    };
    let path = match raw.path.resolve_in(root) {
        Ok(path) => path,
        Err(e) => return Some(format!("raw file refused: {e}")),
    };
    let identity = std::fs::symlink_metadata(&path).ok().as_ref().and_then(FileIdentity::of);
    let (name, said) = (raw.path.to_string(), run.map(what_the_row_says).unwrap_or_default());
    if let Some(problem) = verified.recall(&name, identity, &raw.sha256, &said) {
        return problem;
    }
    let (bytes, read) = match raw_bytes(&path, raw) {
        // Nothing to remember of a file that could not be read.
        Err(problem) => return Some(problem),
        Ok(read) => read,
    };
    let problem = run.and_then(|run| summary_problem(run, &bytes));
    verified.found(&name, read, &raw.sha256, &said, problem.as_deref());
    problem
}

/// What a run's row says that [`summary_problem`] reads: its arm, whether
/// it was measured by figures, its unit and scale, and its summary, each a
/// part of its own (an arm's or a unit's text cannot pass for another's).
fn what_the_row_says(run: &Run) -> String {
    let m = &run.measurement;
    let arm = m.raw_file.as_ref().map_or("", |r| r.arm.as_str());
    let summary = format!("{:?}", m.summary);
    crate::digest::blake3_hex_parts(&[
        arm.as_bytes(),
        &[u8::from(m.figure.is_some())],
        &m.ns_per_unit.to_bits().to_le_bytes(),
        m.unit.as_bytes(),
        summary.as_bytes(),
    ])
}

/// The raw file `path` of `raw` as recorded, with what the file read was
/// (from its open handle), or why it fails A3: missing, or changed since
/// it was recorded. One bounded read, which the summary's check reuses.
fn raw_bytes(path: &Path, raw: &RawFile) -> Result<(Vec<u8>, Option<FileIdentity>), String> {
    match raw::read_identified(path) {
        Err(e) if e.is_not_found() => Err(format!("raw file {} does not exist", raw.path)),
        Err(e) => Err(format!("raw file {} not hashed: {e}", raw.path)),
        Ok((bytes, read)) => {
            let hash = sha256_hex(&bytes);
            if hash == raw.sha256 {
                Ok((bytes, read))
            } else {
                Err(format!(
                    "raw file {} changed after it was recorded (SHA-256 {}…, recorded {}…)",
                    raw.path,
                    &hash[..12],
                    raw.sha256.get(..12).unwrap_or(&raw.sha256)
                ))
            }
        }
    }
}

/// Why `run`'s summary is not the one its raw file's timed trials give, if
/// it is not (SPEC N16): the trials of its arm that ran to completion,
/// summarised again, against its n, median, IQR, min and max. A file in
/// another instrument's own format (an import keeps it unchanged) is not
/// read here; its hash is what A3 holds it to.
fn summary_problem(run: &Run, bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    if !raw::is_raw(&text) {
        return None;
    }
    // Named only in a finding: most rows have none (issue 50).
    let path = || run.measurement.raw_file.as_ref().map(|r| r.path.to_string()).unwrap_or_default();
    let (trials, figures) = match raw::parse_with_figures(&text) {
        Ok(read) => read,
        Err(why) => {
            return Some(format!("raw file {} does not read, so its summary cannot be checked (N16): {why}", path()));
        }
    };
    let timed = raw::arm_values(run, &trials, figures.as_deref()).timed;
    let unit = &run.measurement.unit;
    let Ok(again) = Summary::of(&timed) else {
        return Some(format!(
            "raw file {} holds no completed timed trial of this row, yet its summary says n = {} (N16)",
            path(),
            run.measurement.summary.n
        ));
    };
    let differences = run.measurement.summary.differences(&again);
    (!differences.is_empty()).then(|| {
        let said: Vec<String> = differences
            .iter()
            .map(|(name, row, file)| {
                let unit = if *name == "n" { String::new() } else { format!(" {unit}") };
                format!("{name} {row}{unit} (the file's trials give {file}{unit})")
            })
            .collect();
        format!("its summary is not its raw file's (N16): {}", said.join(", "))
    })
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
