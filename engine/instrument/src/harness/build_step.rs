//! A build recipe run just before measuring (SPEC N15, R5): the command
//! split into words (a shell only when asked), run in the project's folder
//! with a timeout, Ctrl-C and bounded output; then the compiler's own
//! version line, the sources it read (the compiler's dependency listing
//! where gcc and clang give one, else the files the command names and
//! `--source`) hashed — and kept, when small enough — and the program it
//! produced, which must be the program the run measures.
//!
//! Every path is confined to the project's folder: a source that leaves it,
//! a symbolic link, a FIFO, a file too large or too many files are refused
//! by name before anything is measured or written.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::process::{Capture, CommandRunner};
use super::provenance::{ask, sha256_of};
use super::{TrialStatus, metric};
use crate::platform::program;
use vernier_model::bounded::read_bounded;
use vernier_model::digest::sha256_hex;
use vernier_model::display::{inert_line, quote_argv};
use vernier_model::notebook::{
    MAX_KEPT_BYTES, MAX_KEPT_SOURCE_BYTES, MAX_SOURCES, NotebookPath, Recipe, RecipeSource, kept_name, rebuild_sentence,
};

/// How long a build may take before it is stopped.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(600);
/// How long the compiler may take to list the sources it reads.
const LISTING_TIMEOUT: Duration = Duration::from_secs(60);
/// A source larger than this is refused: hashing it would hold the run
/// up, and no program's source is that large.
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;
/// The compilers that list the sources they read (`-MM`).
const LISTS_DEPENDENCIES: [&str; 6] = ["gcc", "g++", "clang", "clang++", "cc", "c++"];

/// A build command to run before measuring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildStep {
    /// The command as it will run: its words, or with `shell` the shell
    /// and its text.
    pub argv: Vec<String>,
    /// Runs through the platform's shell (`--build-shell`).
    pub shell: bool,
    /// Files or folders named as sources (`--source`), besides those the
    /// compiler lists or the command names.
    pub sources: Vec<PathBuf>,
    /// A rebuild's original recipe (SPEC R5): the program built is compared
    /// with theirs, and the row keeps both compilers.
    pub theirs: Option<(String, Recipe)>,
}

/// Why a build could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The recipe did not run to a successful end.
    #[error("the build `{command}` {ended}; nothing was measured")]
    Failed {
        /// The command, quoted.
        command: String,
        /// How it ended.
        ended: String,
        /// What it printed last, indented lines each made inert (the
        /// compiler's message), shown before the error.
        output: String,
    },
    /// A source cannot be one.
    #[error("source {path}: {why}; nothing was measured")]
    Source {
        /// The path as given or listed.
        path: String,
        /// Why it is refused.
        why: String,
    },
    /// The program built is not the one the run measures.
    #[error("{0}; nothing was measured")]
    Program(String),
    /// The recipe cannot be run at all.
    #[error("the build recipe: {0}")]
    Invalid(String),
}

/// A build command typed with a quote left open: it has no words to run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot split the build command '{0}' into words")]
pub struct UnsplitCommand(pub String);

/// A source kept in `raw/`: its name there and its bytes.
pub type KeptSource = (String, Vec<u8>);

/// What a build produced: its record, the sources' bytes to keep in
/// `raw/` (by their name there), and what to say before the warm-up.
#[derive(Debug, Clone, PartialEq)]
pub struct Built {
    /// The row's record of it.
    pub recipe: Recipe,
    /// `(name in raw/, bytes)` of every source kept.
    pub kept: Vec<KeptSource>,
    /// The lines shown once it ran: the command, compiler, sources,
    /// program, its output if any, and for a rebuild the same-or-different
    /// sentence.
    pub report: String,
}

impl BuildStep {
    /// A recipe typed by the student: split into words like a command, or
    /// with `shell` handed to the shell as one text.
    pub fn new(text: &str, shell: bool, sources: Vec<PathBuf>) -> Result<Self, UnsplitCommand> {
        let argv = if shell {
            program::shell_argv(text)
        } else {
            program::split_command(text)
                .filter(|words| !words.is_empty())
                .ok_or_else(|| UnsplitCommand(text.to_owned()))?
        };
        Ok(Self { argv, shell, sources, theirs: None })
    }

    /// Their recipe, to rebuild (SPEC R5); `row` names their row.
    pub fn rebuild(row: String, theirs: &Recipe) -> Self {
        Self {
            argv: theirs.argv.clone(),
            shell: theirs.shell,
            sources: Vec::new(),
            theirs: Some((row, theirs.clone())),
        }
    }

    /// The command's own words: its argv, or a shell's text split as the
    /// shell would split plain words.
    fn words(&self) -> Vec<String> {
        match (self.shell, self.argv.last()) {
            (true, Some(text)) => shlex::split(text).unwrap_or_default(),
            _ => self.argv.clone(),
        }
    }

    /// The compiler: the command's first word.
    pub fn compiler(&self) -> Option<String> {
        self.words().into_iter().next()
    }

    /// The file `-o` names, if the command names one.
    pub fn output(&self) -> Option<String> {
        let words = self.words();
        let mut iter = words.iter();
        while let Some(word) = iter.next() {
            if word == "-o" {
                return iter.next().cloned();
            }
            if let Some(rest) = word.strip_prefix("-o").filter(|r| !r.is_empty() && !word.starts_with("--")) {
                return Some(rest.to_owned());
            }
        }
        None
    }

    /// The command quoted as it will run.
    pub fn quoted(&self) -> String {
        quote_argv(&self.argv)
    }
}

/// `COMPILER --version`'s first line, bounded in bytes and time; asked in
/// `foreign`'s folder, with the user's own toolchain, for a recipe from
/// someone else's file (SPEC N13, R5), so nothing of theirs picks it.
fn compiler_version(path: &Path, foreign: Option<&Path>) -> String {
    ask(path, &["--version"], foreign)
        .unwrap_or_else(|why| format!("version not known: `{} --version` gave none ({why})", path.display()))
}

/// The base name of a compiler as typed, less a version suffix (`g++-12`).
fn family(name: &str) -> &str {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    base.split_once('-').filter(|(_, v)| v.chars().all(|c| c.is_ascii_digit() || c == '.')).map_or(base, |(b, _)| b)
}

/// Runs `step` in `folder` and identifies what it built; `measured` is the
/// program each arm built by it runs (argv[0], as it will start).
pub(crate) fn run(
    step: &BuildStep,
    folder: &Path,
    measured: &[&str],
    runner: &CommandRunner,
) -> Result<Built, BuildError> {
    let folder = std::fs::canonicalize(folder)
        .map_err(|e| BuildError::Invalid(format!("the project folder {} cannot be read ({e})", folder.display())))?;
    // Refused before the build runs: a source given that is not one.
    let mut given = Vec::new();
    for path in &step.sources {
        given.extend(confined_sources(&folder, path)?);
    }
    let started = SystemTime::now();
    let clock = Instant::now();
    let mut capture = Capture::new().map_err(|e| BuildError::Invalid(e.to_string()))?;
    let trial = runner
        .run_capturing(&step.argv, Some(BUILD_TIMEOUT), &mut capture)
        .map_err(|e| BuildError::Invalid(format!("cannot run `{}`: {e}", step.quoted())))?;
    let output = capture.text().unwrap_or_else(|why| why.to_string());
    if trial.status != TrialStatus::Ok {
        let ended = match trial.status {
            TrialStatus::Exit(code) => format!("exited with code {code}"),
            TrialStatus::Timeout => format!("ran past {} s and was stopped", BUILD_TIMEOUT.as_secs()),
            TrialStatus::Cancelled => "was cancelled".to_owned(),
            TrialStatus::TooMuchOutput => {
                format!("printed more than {} bytes and was stopped", metric::MAX_OUTPUT_BYTES)
            }
            other => format!("ended: {other}"),
        };
        return Err(BuildError::Failed { command: step.quoted(), ended, output: last_lines(&output) });
    }
    let took = clock.elapsed();
    let compiler_name = step.compiler().unwrap_or_default();
    let compiler = match program::find_on_path(&compiler_name, std::env::var_os("PATH").as_deref()) {
        Some(path) => compiler_version(&path, step.theirs.is_some().then_some(folder.as_path())),
        None => format!("version not known: {compiler_name} is not found on PATH"),
    };
    let (listed, listed_by) = match dependency_listing(step, runner) {
        Some(listed) => (listed, format!("listed by {} -MM", family(&compiler_name))),
        None => (named_files(step, &folder), "the files the command names".to_owned()),
    };
    let mut outside = Vec::new();
    let mut sources: Vec<(PathBuf, String)> = Vec::new();
    for path in listed {
        match confined(&folder, Path::new(&path)) {
            Ok(found) => sources.push(found),
            Err(Confined::Outside) => outside.push(path),
            Err(Confined::Refused(why)) => return Err(BuildError::Source { path, why }),
        }
    }
    sources.extend(given);
    sources.sort_by(|a, b| a.1.cmp(&b.1));
    sources.dedup_by(|a, b| a.1 == b.1);
    if sources.len() > MAX_SOURCES {
        return Err(BuildError::Source {
            path: format!("{} files", sources.len()),
            why: format!("a recipe keeps at most {MAX_SOURCES} sources"),
        });
    }
    let listed_by = match outside.len() {
        0 => listed_by,
        n => format!("{listed_by}; {n} file(s) outside the project folder not hashed: {}", outside.join(", ")),
    };
    let (sources, kept) = hash_sources(&sources)?;
    let (program, program_sha256) = produced(step, &folder, measured, started)?;
    let mut recipe = Recipe {
        argv: step.argv.clone(),
        shell: step.shell,
        compiler,
        listed_by,
        sources,
        program,
        program_sha256,
        rebuilt_from: None,
    };
    let mut report = vec![format!(
        "build: `{}` ran in {:.1} s, in {}, just before the warm-up",
        step.quoted(),
        took.as_secs_f64(),
        folder.display()
    )];
    report.extend(recipe.lines().into_iter().skip(1).map(|l| format!("  {l}")));
    let tail = last_lines(&output);
    if !tail.is_empty() {
        report.push(format!("  its output:\n{tail}"));
    }
    if let Some((row, theirs)) = &step.theirs {
        report.push(rebuild_sentence(theirs, &recipe.program_sha256, &recipe.compiler));
        recipe.rebuilt_from = Some(vernier_model::notebook::Rebuilt {
            row: row.clone(),
            compiler: theirs.compiler.clone(),
            program_sha256: theirs.program_sha256.clone(),
        });
    }
    Ok(Built { recipe, kept, report: report.join("\n") })
}

/// Lines of a build's output shown, at most: the compiler's message ends it.
const OUTPUT_LINES: usize = 20;

/// The last [`OUTPUT_LINES`] lines of a build's output, indented, each
/// made inert and cut at 300 characters; empty when it printed nothing.
fn last_lines(output: &str) -> String {
    let lines: Vec<&str> = output.trim_end().lines().collect();
    let from = lines.len().saturating_sub(OUTPUT_LINES);
    let shown: Vec<String> =
        lines[from..].iter().map(|l| format!("    {}", inert_line(l.chars().take(300).collect()))).collect();
    shown.join("\n").trim_end().to_owned()
}

/// The sources the compiler says it reads (`-MM`, run in the folder with
/// the recipe's own flags, its `-o` left out), for gcc and clang; `None`
/// for another compiler, a shell's recipe, or a listing that failed.
fn dependency_listing(step: &BuildStep, runner: &CommandRunner) -> Option<Vec<String>> {
    if step.shell || !LISTS_DEPENDENCIES.contains(&family(step.argv.first()?)) {
        return None;
    }
    let mut argv = Vec::with_capacity(step.argv.len() + 1);
    let mut words = step.argv.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-o" => {
                words.next();
            }
            w if w.starts_with("-o") && !w.starts_with("--") => {}
            _ => argv.push(word.clone()),
        }
    }
    argv.push("-MM".to_owned());
    let mut capture = Capture::new().ok()?;
    let trial = runner.run_capturing(&argv, Some(LISTING_TIMEOUT), &mut capture).ok()?;
    let text = capture.text().ok()?;
    let mut files = (trial.status == TrialStatus::Ok).then(|| make_dependencies(&text))?;
    files.truncate(MAX_SOURCES + 1);
    Some(files)
}

/// The prerequisites of the make rules `-MM` prints: `target: a.c b.h \`.
pub fn make_dependencies(text: &str) -> Vec<String> {
    const SPACE: char = '\u{1}';
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ").replace("\\ ", &SPACE.to_string());
    let mut files: Vec<String> = Vec::new();
    for line in joined.lines() {
        let Some((_, prerequisites)) = line.split_once(": ").or_else(|| line.strip_suffix(':').map(|t| (t, ""))) else {
            continue;
        };
        for word in prerequisites.split_whitespace() {
            let file = word.replace(SPACE, " ");
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    files
}

/// The command's words that name a regular file (its sources), the file
/// `-o` writes left out.
fn named_files(step: &BuildStep, folder: &Path) -> Vec<String> {
    let output = step.output();
    step.words()
        .into_iter()
        .skip(1)
        .filter(|w| Some(w) != output.as_ref() && !w.starts_with('-'))
        // A folder named (`-I include`'s value) is not a source; a link or
        // a FIFO is, and is refused by name.
        .filter(|w| std::fs::symlink_metadata(folder.join(w)).is_ok_and(|m| !m.is_dir()))
        .collect()
}

/// Why a path is not a source inside the project folder.
enum Confined {
    /// It lies outside: not the project's (a system header).
    Outside,
    /// It cannot be a source: a link, a FIFO, a folder …
    Refused(String),
}

/// `path` (relative to `folder`, or absolute) as a file inside `folder`:
/// its full path and its name relative to the folder, `/`-separated.
fn confined(folder: &Path, path: &Path) -> Result<(PathBuf, String), Confined> {
    let full = folder.join(path);
    let meta = std::fs::symlink_metadata(&full).map_err(|e| Confined::Refused(format!("cannot be read ({e})")))?;
    let real = std::fs::canonicalize(&full).map_err(|e| Confined::Refused(format!("cannot be read ({e})")))?;
    let relative = real.strip_prefix(folder).map_err(|_| Confined::Outside)?;
    if meta.file_type().is_symlink() {
        return Err(Confined::Refused("is a symbolic link; give the file it points to".into()));
    }
    if !meta.is_file() {
        return Err(Confined::Refused("is not a regular file (a FIFO, a device or a folder)".into()));
    }
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(Confined::Refused(format!(
            "is {} bytes, more than the {} MiB a source may be; leave it out of the recipe's sources",
            meta.len(),
            MAX_SOURCE_BYTES >> 20
        )));
    }
    let name = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
    if !vernier_model::notebook::is_confined(&name) {
        return Err(Confined::Refused("has a name a notebook cannot keep".into()));
    }
    Ok((real, name))
}

/// A `--source FILE|DIR`: the file, or every file under the folder; each
/// inside the project folder, none a link, at most [`MAX_SOURCES`].
fn confined_sources(folder: &Path, given: &Path) -> Result<Vec<(PathBuf, String)>, BuildError> {
    let refuse = |why: String| BuildError::Source { path: given.display().to_string(), why };
    let meta = std::fs::symlink_metadata(folder.join(given)).map_err(|e| refuse(format!("cannot be read ({e})")))?;
    if !meta.is_dir() {
        return match confined(folder, given) {
            Ok(found) => Ok(vec![found]),
            Err(Confined::Outside) => Err(refuse("is outside the project folder (the build's working folder)".into())),
            Err(Confined::Refused(why)) => Err(refuse(why)),
        };
    }
    let mut found = Vec::new();
    let mut folders = vec![folder.join(given)];
    while let Some(dir) = folders.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| refuse(format!("cannot be read ({e})")))?;
        for entry in entries {
            let entry = entry.map_err(|e| refuse(format!("cannot be read ({e})")))?;
            let kind = entry.file_type().map_err(|e| refuse(format!("cannot be read ({e})")))?;
            if kind.is_dir() {
                folders.push(entry.path());
                continue;
            }
            if found.len() >= MAX_SOURCES {
                return Err(refuse(format!("holds more than {MAX_SOURCES} files; a recipe keeps at most that many")));
            }
            match confined(folder, &entry.path()) {
                Ok(file) => found.push(file),
                Err(Confined::Outside) => return Err(refuse("leads outside the project folder".into())),
                Err(Confined::Refused(why)) => {
                    return Err(BuildError::Source { path: entry.path().display().to_string(), why });
                }
            }
        }
    }
    Ok(found)
}

/// Each source hashed (refused past [`MAX_SOURCE_BYTES`]), and kept when
/// it is at most [`MAX_KEPT_SOURCE_BYTES`] and the kept ones stay within
/// [`MAX_KEPT_BYTES`] in all.
fn hash_sources(sources: &[(PathBuf, String)]) -> Result<(Vec<RecipeSource>, Vec<KeptSource>), BuildError> {
    let mut records = Vec::with_capacity(sources.len());
    let mut kept: Vec<KeptSource> = Vec::new();
    let mut kept_bytes = 0u64;
    for (full, name) in sources {
        let refuse = |why: String| BuildError::Source { path: name.clone(), why };
        // Its size was checked when it was found; a file grown since is
        // refused at the same bound.
        let bytes = read_bounded(full, MAX_SOURCE_BYTES, "a source").map_err(|e| refuse(e.to_string()))?;
        let sha256 = sha256_hex(&bytes);
        let size = bytes.len() as u64;
        let keep = size <= MAX_KEPT_SOURCE_BYTES && kept_bytes + size <= MAX_KEPT_BYTES;
        let kept_path = if keep {
            let file = kept_name(&sha256, name);
            let path = NotebookPath::new(format!("raw/{file}")).map_err(|e| refuse(e.to_string()))?;
            if !kept.iter().any(|(n, _)| *n == file) {
                kept_bytes += size;
                kept.push((file, bytes));
            }
            Some(path)
        } else {
            None
        };
        records.push(RecipeSource { path: name.clone(), bytes: size, sha256, kept: kept_path });
    }
    Ok((records, kept))
}

/// The program the build produced — `-o`'s file, else the measured
/// program — written by the build, and the one every arm measures.
fn produced(
    step: &BuildStep,
    folder: &Path,
    measured: &[&str],
    started: SystemTime,
) -> Result<(String, String), BuildError> {
    let first = measured.first().copied().unwrap_or_default();
    let named = step.output().unwrap_or_else(|| first.to_owned());
    let path = folder.join(&named);
    let meta = std::fs::metadata(&path).map_err(|_| {
        BuildError::Program(format!("the build did not write {named} in {} (no such file)", folder.display()))
    })?;
    // A file system's clock may round a modification time down by a second or two.
    let written = meta.modified().ok().is_some_and(|t| t + Duration::from_secs(2) >= started);
    if !meta.is_file() || !written {
        return Err(BuildError::Program(format!("the build did not write {named}: it is older than the build")));
    }
    let real = std::fs::canonicalize(&path).map_err(|e| BuildError::Program(format!("{named}: {e}")))?;
    for program in measured {
        let runs = if program.contains(['/', '\\']) {
            std::fs::canonicalize(folder.join(program)).ok()
        } else {
            program::find_on_path(program, std::env::var_os("PATH").as_deref())
                .and_then(|p| std::fs::canonicalize(p).ok())
        };
        if runs.as_deref() != Some(real.as_path()) {
            return Err(BuildError::Program(format!(
                "the build wrote {named}, but the run measures {program}: a recipe's program must be the one measured"
            )));
        }
    }
    let sha256 = sha256_of(&real).map_err(|e| BuildError::Program(format!("{named} cannot be hashed ({e})")))?;
    let relative = real
        .strip_prefix(folder)
        .map(|r| r.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
        .unwrap_or_else(|_| real.display().to_string());
    Ok((relative, sha256))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_rules_are_read() {
        // SPEC N15: the sources gcc -MM lists, continuation lines and escaped spaces included.
        let text = "mm.o: matmul.cpp util.h \\\n  sub/a\\ b.h\nother.o: util.h x.h\n";
        assert_eq!(make_dependencies(text), ["matmul.cpp", "util.h", "sub/a b.h", "x.h"]);
        assert!(make_dependencies("no rule here").is_empty());
    }

    #[test]
    fn recipe_words_and_output() {
        // SPEC N15: split like a command; -o found in either form.
        let step = BuildStep::new("g++ -O2 'my file.cpp' -o mm", false, Vec::new()).expect("splits");
        assert_eq!(step.argv, ["g++", "-O2", "my file.cpp", "-o", "mm"]);
        assert_eq!(step.output().as_deref(), Some("mm"));
        assert_eq!(BuildStep::new("cc -omm m.c", false, Vec::new()).expect("splits").output().as_deref(), Some("mm"));
        let shell = BuildStep::new("g++ m.cpp -o mm && strip mm", true, Vec::new()).expect("a shell text");
        assert_eq!(shell.compiler().as_deref(), Some("g++"));
        assert_eq!(family("g++-12"), "g++");
        assert_eq!(family("/usr/bin/clang++"), "clang++");
        assert!(BuildStep::new("g++ 'unclosed", false, Vec::new()).is_err());
    }
}
