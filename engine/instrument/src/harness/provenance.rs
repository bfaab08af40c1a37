//! Which program a command row measured (SPEC N11): the SHA-256 of the
//! executable that ran, found through `PATH` as the command was started,
//! and of every argument that names a regular file (a script given to an
//! interpreter, an input), so a rerun can tell whether it runs the same
//! program on the same input.
//!
//! What really ran can hide behind the program (issue 33): a shell's `-c`
//! text names its script only inside that text, so its words are looked at
//! too; an interpreter's own version is recorded, since its path alone
//! does not say which one it is; and a shim — a script such as pyenv's
//! `shims/python3` that picks an interpreter — is named as one, with the
//! interpreter it ran where that can be found.

use std::io;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::platform::program;
use vernier_model::bounded::BoundedFile;
use vernier_model::notebook::{Condition, ConditionName};

/// A file larger than this is named but not hashed: reading gigabytes
/// before every run would delay the measurement for little.
const MAX_HASHED_BYTES: u64 = 1 << 30;

/// How long an interpreter may take to say its version.
const VERSION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// How much of its answer is read.
const VERSION_BYTES: u64 = 4096;

/// Shells whose `-c` text is a command line of its own.
const SHELLS: [&str; 6] = ["sh", "bash", "dash", "zsh", "ksh", "ash"];

/// Interpreters Vernier asks for their version: the name as typed, less
/// a version suffix (`python3.11` is `python`).
const INTERPRETERS: [&str; 10] = ["python", "pypy", "node", "nodejs", "ruby", "perl", "php", "Rscript", "julia", "lua"];

/// The program and the argument files of one command, identified.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CommandIdentity {
    /// `PATH (SHA-256 HEX)`, or why it could not be hashed; a shim says so.
    pub program: String,
    /// One `ARG (SHA-256 HEX)` per argument naming a regular file — for a
    /// shell's `-c`, per word of its text naming one.
    pub argument_files: Vec<String>,
    /// An interpreter's own version line, and for a shim the interpreter it
    /// ran; `None` for a program that is not a known interpreter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interpreter: Option<String>,
}

impl CommandIdentity {
    /// Identifies `argv` as it is about to run from the current folder,
    /// asking an interpreter for its version: call it only for a command
    /// that is about to run, so after the consent a command from a file
    /// needs (SPEC N13).
    pub fn of(argv: &[String]) -> Self {
        Self::of_running(argv, &mut Hashes::default())
    }

    /// [`CommandIdentity::of`] for many commands that share files and programs
    /// (a sweep's points): each is read, hashed and asked once.
    pub fn of_running(argv: &[String], hashes: &mut Hashes) -> Self {
        let mut provenance = Self::of_cached(argv, hashes);
        // Looked up on PATH only for a name Vernier knows as an interpreter.
        if let Some(name) = argv.first()
            && let Some(family) = interpreter_family(name)
            && let Some(path) = program::find_on_path(name, std::env::var_os("PATH").as_deref())
        {
            provenance.interpreter = Some(hashes.interpreter(&path, family));
        }
        provenance
    }

    /// Identifies `argv` by its files only — nothing is run, so a plan can
    /// show it before the user's yes: each file is read and hashed once.
    pub fn of_cached(argv: &[String], hashes: &mut Hashes) -> Self {
        let found = argv.first().map(|name| (name, program::find_on_path(name, std::env::var_os("PATH").as_deref())));
        let program = match &found {
            None => "no program".to_owned(),
            Some((name, None)) => format!("{name} (not found on PATH, not hashed)"),
            Some((name, Some(path))) => {
                let program = hashes.identified(&path.to_string_lossy(), path);
                if interpreter_family(name).is_some() && is_shim(path) {
                    format!("{program} — a shim: a script that picks the interpreter to run")
                } else {
                    program
                }
            }
        };
        let mut argument_files: Vec<String> = argv
            .iter()
            .skip(1)
            .filter(|arg| is_regular_file(arg))
            .map(|arg| hashes.identified(arg, Path::new(arg)))
            .collect();
        // A shell's -c text: the words of it that name files (its script).
        if let Some(text) = shell_text(argv) {
            let words = shlex::split(text).unwrap_or_default();
            argument_files.extend(
                words
                    .iter()
                    .filter(|w| is_regular_file(w))
                    .map(|w| hashes.identified(&format!("{w} (in -c)"), Path::new(w))),
            );
        }
        Self { program, argument_files, interpreter: None }
    }

    /// The row's conditions: `program`, then `argument files` and
    /// `interpreter` if any.
    pub fn conditions(&self) -> Vec<Condition> {
        let mut rows = vec![Condition::new(ConditionName::Program, self.program.clone())];
        if !self.argument_files.is_empty() {
            rows.push(Condition::new(ConditionName::ArgumentFiles, self.argument_files.join("; ")));
        }
        if let Some(interpreter) = &self.interpreter {
            rows.push(Condition::new(ConditionName::Interpreter, interpreter.clone()));
        }
        rows
    }
}

fn is_regular_file(word: &str) -> bool {
    std::fs::metadata(word).is_ok_and(|m| m.is_file())
}

/// The base name of a program as typed: `/usr/bin/python3.11` is `python3.11`.
fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name).trim_end_matches(".exe")
}

/// The `-c` text of a shell command (`sh -c TEXT`, `bash -e -c TEXT` …).
fn shell_text(argv: &[String]) -> Option<&str> {
    let shell = argv.first().map(|p| base_name(p))?;
    if !SHELLS.contains(&shell) {
        return None;
    }
    let at = argv.iter().skip(1).take_while(|w| w.starts_with('-')).position(|w| w == "-c")?;
    argv.get(at + 2).map(String::as_str)
}

/// The interpreter a program name is, if Vernier knows it as one.
fn interpreter_family(name: &str) -> Option<&'static str> {
    let base = base_name(name);
    let stem = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS.iter().copied().find(|known| *known == stem)
}

/// A shim: a text script (`#!`) standing where an interpreter's name is
/// found, or a file in a folder named `shims` (pyenv, rbenv, asdf).
fn is_shim(path: &Path) -> bool {
    let in_shims = path.parent().and_then(Path::file_name).is_some_and(|d| d == "shims");
    let script = BoundedFile::open(path, MAX_HASHED_BYTES, "a program").is_ok_and(|mut file| {
        let mut start = [0u8; 2];
        io::Read::read_exact(&mut file, &mut start).is_ok() && &start == b"#!"
    });
    in_shims || script
}

/// Why a program gave no version line: the text in a row's "version not
/// known (…)".
#[derive(Debug, thiserror::Error)]
pub(crate) enum AskError {
    /// Its output file could not be made or read back.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// It could not be started.
    #[error("it could not be started ({0})")]
    Start(#[source] io::Error),
    /// It did not end within [`VERSION_TIMEOUT`].
    #[error("no answer within {} s", VERSION_TIMEOUT.as_secs())]
    Timeout,
    /// It ended having printed no line.
    #[error("it printed nothing")]
    Silent,
}

/// Runs `program ARGS` with no input, for at most [`VERSION_TIMEOUT`],
/// and returns the first line it printed (stdout or stderr); the error
/// says why there is none. With `foreign` (a probe after the consent to
/// someone's files, SPEC N13): in that folder, with rustup's toolchain
/// pinned to the user's default, so no toolchain file of theirs is read.
pub(crate) fn ask(program: &Path, args: &[&str], foreign: Option<&Path>) -> Result<String, AskError> {
    use std::io::{Read, Seek};
    let out = tempfile::tempfile()?;
    let err = out.try_clone()?;
    let mut command = std::process::Command::new(program);
    if let Some(folder) = foreign {
        command.current_dir(folder).envs(program::pinned_toolchain());
    }
    let mut child = command
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(err)
        .spawn()
        .map_err(AskError::Start)?;
    let deadline = std::time::Instant::now() + VERSION_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10))
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(AskError::Timeout);
            }
            Err(e) => return Err(e.into()),
        }
    }
    let mut text = Vec::new();
    let mut out = out;
    out.rewind().and_then(|()| out.take(VERSION_BYTES).read_to_end(&mut text))?;
    let text = String::from_utf8_lossy(&text);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|line| vernier_model::display::inert_line(line.to_owned()))
        .ok_or(AskError::Silent)
}

/// Files hashed so far, by path, with the hash or why there is none; and
/// interpreters asked so far, with what they said.
#[derive(Debug, Default)]
pub struct Hashes {
    files: std::collections::HashMap<std::path::PathBuf, Result<String, String>>,
    interpreters: std::collections::HashMap<std::path::PathBuf, String>,
}

impl Hashes {
    /// The interpreter at `path`, of `family`: its version line, and for a
    /// shim the interpreter the shim runs, where it can say (all but R and
    /// Lua can).
    fn interpreter(&mut self, path: &Path, family: &str) -> String {
        if let Some(said) = self.interpreters.get(path) {
            return said.clone();
        }
        let said = self.ask_interpreter(path, family);
        self.interpreters.insert(path.to_path_buf(), said.clone());
        said
    }

    fn ask_interpreter(&mut self, path: &Path, family: &str) -> String {
        let shim = is_shim(path);
        let version = match ask(path, &["--version"], None) {
            Ok(line) => line,
            Err(why) => format!("version not known: `{} --version` gave none ({why})", path.display()),
        };
        if !shim {
            return version;
        }
        // Each interpreter's own way to print the path of the program
        // running it; the others cannot say.
        let question: &[&str] = match family {
            "python" | "pypy" => &["-c", "import sys; print(sys.executable)"],
            "ruby" => &["-e", "puts RbConfig.ruby"],
            "node" | "nodejs" => &["-p", "process.execPath"],
            "perl" => &["-e", "print $^X"],
            "php" => &["-r", "echo PHP_BINARY;"],
            "julia" => &["-e", "println(joinpath(Sys.BINDIR, Base.julia_exename()))"],
            _ => &[],
        };
        let real = (!question.is_empty()).then(|| ask(path, question, None).ok()).flatten();
        match real.map(std::path::PathBuf::from).filter(|p| p.is_absolute() && p.is_file()) {
            Some(real) => format!("{version}, run by the shim as {}", self.identified(&real.to_string_lossy(), &real)),
            None => format!("{version}, through the shim (the interpreter it ran is not known)"),
        }
    }

    /// `NAME (SHA-256 HEX)`, or `NAME (not hashed: WHY)`.
    fn identified(&mut self, name: &str, path: &Path) -> String {
        let hash = self.files.entry(path.to_path_buf()).or_insert_with(|| sha256_of(path).map_err(|e| e.to_string()));
        match hash {
            Ok(hex) => format!("{name} (SHA-256 {hex})"),
            Err(e) => format!("{name} (not hashed: {e})"),
        }
    }
}

/// The SHA-256 of a regular file, streamed (bounded, SPEC N10's rule for
/// files read from elsewhere).
pub fn sha256_of(path: &Path) -> io::Result<String> {
    let mut file = BoundedFile::open(path, MAX_HASHED_BYTES, "a program").map_err(io::Error::other)?;
    let mut hasher = Sha256::new();
    io::copy(&mut file, &mut hasher)?;
    Ok(vernier_model::digest::hex(&hasher.finalize()))
}

/// The SHA-256 hex a `program` or `argument files` value records, if it
/// records one.
pub fn recorded_sha256(value: &str) -> Option<&str> {
    let (_, rest) = value.rsplit_once("(SHA-256 ")?;
    rest.strip_suffix(')').filter(|hex| vernier_model::digest::is_sha256(hex))
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N11: the executable and a script argument are hashed; a word
    // that names no file is not.
    #[test]
    fn program_and_script_are_hashed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("bench.py");
        std::fs::write(&script, b"print(1)\n").expect("write");
        let argv = vec!["sh".to_owned(), script.to_string_lossy().into_owned(), "--fast".into()];
        let p = CommandIdentity::of(&argv);
        assert!(p.program.contains("/sh (SHA-256 "), "{}", p.program);
        assert!(recorded_sha256(&p.program).is_some());
        assert_eq!(p.argument_files.len(), 1, "{:?}", p.argument_files);
        // SHA-256 of "print(1)\n".
        let expected = vernier_model::digest::sha256_hex(b"print(1)\n");
        assert_eq!(recorded_sha256(&p.argument_files[0]), Some(expected.as_str()));
        let missing = CommandIdentity::of(&["no-such-program-here".to_owned()]);
        assert!(missing.program.contains("not found on PATH"), "{}", missing.program);
        assert_eq!(recorded_sha256(&missing.program), None);
    }

    // SPEC N11 (issue 33): a shell's -c text names its script, which is
    // hashed like an argument file; a program that is no interpreter has
    // no interpreter line.
    #[cfg(unix)]
    #[test]
    fn a_shells_script_is_hashed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("s.sh");
        std::fs::write(&script, b"exit 0\n").expect("write");
        let text = format!("{} --fast", script.display());
        let p = CommandIdentity::of(&["/bin/sh".into(), "-c".into(), text]);
        assert_eq!(p.argument_files.len(), 1, "{:?}", p.argument_files);
        let expected = vernier_model::digest::sha256_hex(b"exit 0\n");
        assert_eq!(recorded_sha256(&p.argument_files[0]), Some(expected.as_str()));
        assert!(p.argument_files[0].contains("(in -c)"), "{}", p.argument_files[0]);
        assert_eq!(p.interpreter, None);
        assert_eq!(shell_text(&["bash".into(), "-e".into(), "-c".into(), "x".into()]), Some("x"));
        assert_eq!(shell_text(&["bash".into(), "run.sh".into(), "-c".into(), "x".into()]), None, "-c of the script");
        assert_eq!(interpreter_family("/usr/bin/python3.11"), Some("python"));
        assert_eq!(interpreter_family("pythonista"), None);
    }

    // Issue 33: an interpreter's version line is recorded; a shim is named
    // as one, with the interpreter it ran; one that hangs on --version is
    // given up on, with the reason, and the run goes on.
    #[cfg(unix)]
    #[test]
    fn an_interpreter_says_its_version_and_a_shim_is_named() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let shims = dir.path().join("shims");
        std::fs::create_dir(&shims).expect("shims");
        let shim = shims.join("python3");
        std::fs::write(
            &shim,
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Python 3.99.1'; exit; fi\necho /no/such/python\n",
        )
        .expect("write");
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let p = CommandIdentity::of(&[shim.to_string_lossy().into_owned(), "bench.py".into()]);
        assert!(p.program.contains("a shim"), "{}", p.program);
        let line = p.interpreter.expect("an interpreter line");
        assert!(line.starts_with("Python 3.99.1, through the shim"), "{line}");

        let hang = dir.path().join("ruby");
        std::fs::write(&hang, "#!/bin/sh\nexec sleep 30\n").expect("write");
        std::fs::set_permissions(&hang, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let start = std::time::Instant::now();
        let p = CommandIdentity::of(&[hang.to_string_lossy().into_owned()]);
        assert!(start.elapsed() < std::time::Duration::from_secs(10), "{:?}", start.elapsed());
        let line = p.interpreter.expect("an interpreter line");
        assert!(line.contains("version not known") && line.contains("no answer within 3 s"), "{line}");
    }

    // Issue 33: a shim in front of a real interpreter (perl, which every
    // Unix here has) names the interpreter it ran, hashed.
    #[cfg(unix)]
    #[test]
    fn a_shim_names_the_interpreter_it_ran() {
        use std::os::unix::fs::PermissionsExt as _;
        let Some(perl) = program::find_on_path("perl", std::env::var_os("PATH").as_deref()) else {
            eprintln!("no perl on PATH: the shim's real interpreter is not checked here");
            return;
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let shims = dir.path().join("shims");
        std::fs::create_dir(&shims).expect("shims");
        let shim = shims.join("perl");
        std::fs::write(&shim, format!("#!/bin/sh\nexec {} \"$@\"\n", perl.display())).expect("write");
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let line =
            CommandIdentity::of(&[shim.to_string_lossy().into_owned()]).interpreter.expect("an interpreter line");
        let real = std::fs::canonicalize(&perl).expect("perl's path");
        assert!(line.contains(", run by the shim as "), "{line}");
        assert!(line.contains("(SHA-256 "), "{line}");
        let named =
            line.split(", run by the shim as ").nth(1).and_then(|r| r.split(" (SHA-256").next()).expect("a path");
        assert_eq!(std::fs::canonicalize(named).expect("the named path"), real, "{line}");
    }
}
