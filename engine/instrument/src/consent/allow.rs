//! Which command taken from a file runs on the first consent alone (SPEC
//! N13, R2). This is an allowlist: a command is *plain* only when it is
//! shown to be one of
//!
//! - a built-in kernel of Vernier's;
//! - their program as rebuilt here from their recipe — the harness runs it
//!   only once its SHA-256 is the one the build wrote;
//! - a program file under the folder it runs in whose SHA-256 is the one
//!   their row keeps;
//! - a recognised interpreter (by its name, this machine's) running, with
//!   no option at all, a script file under that folder whose SHA-256 their
//!   row keeps;
//! - a build recipe of a known compiler whose every word is a source under
//!   the scratch folder or an option known to take no code and write
//!   nowhere else.
//!
//! **Everything else** — any other program of this machine with their
//! arguments, any wrapper (`env`, `make`, `git`, `tar`, `sed`, `tmux`, a
//! shell, Vernier itself), a program no table knows — "can run code they
//! wrote" and needs the second consent. The table of known code-taking
//! options ([`super::inline_code`]) only says *why*, where it knows; it never
//! decides that a command is safe.

use std::path::Path;

use crate::harness::Subject;
use crate::harness::build_step::BuildStep;
use crate::harness::provenance::{recorded_sha256, sha256_of};
use vernier_model::display::{inert, inert_line};
use vernier_model::notebook::{Condition, ConditionName, is_confined};

use super::inline_code;

/// What their row keeps of the files its command ran (SPEC N11): the
/// program's SHA-256 and each argument file's, by the word that named it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeptFiles {
    program: Option<String>,
    files: Vec<(String, String)>,
}

impl KeptFiles {
    /// Read from a row's conditions (`program`, `argument files`), by name
    /// whatever its case; a row that keeps none vouches for nothing.
    pub fn of(conditions: &[Condition]) -> Self {
        let value = |name: ConditionName| {
            conditions.iter().find(|c| c.field.trim().eq_ignore_ascii_case(name.as_str())).map(|c| c.value.as_str())
        };
        let program = value(ConditionName::Program).and_then(recorded_sha256).map(str::to_ascii_lowercase);
        let files = value(ConditionName::ArgumentFiles)
            .unwrap_or_default()
            .split("; ")
            .filter_map(|entry| {
                let sha256 = recorded_sha256(entry)?.to_ascii_lowercase();
                let (name, _) = entry.rsplit_once(" (SHA-256 ")?;
                Some((name.to_owned(), sha256))
            })
            .collect();
        Self { program, files }
    }
}

/// The sentence every command that is not shown to be plain gets.
const CAN_RUN_CODE: &str = "such a program can run code they wrote";

/// What runs on the first consent alone, for the sentence's end.
const ONLY_THEIRS: &str = "only their own program or script, matched by the SHA-256 their row keeps, runs on the \
                           first consent";

/// Why `subject`, run in `folder` (built there by `recipe` when it is
/// rebuilt), needs the second consent; `None` when it is plain.
pub(super) fn arm(subject: &Subject, recipe: Option<&BuildStep>, folder: &Path, kept: &KeptFiles) -> Option<String> {
    let argv = match subject {
        Subject::Kernel(_) => return None,
        Subject::Command { shell: true, argv } => {
            return Some(format!("runs their text with the shell ({}): {CAN_RUN_CODE}", inert_line(argv.join(" "))));
        }
        Subject::Command { argv, shell: false } => argv,
    };
    let Some(program) = argv.first() else {
        return Some("runs no program it can name".to_owned());
    };
    let rebuilt = recipe
        .and_then(|step| step.theirs.as_ref())
        .is_some_and(|(_, theirs)| Path::new(program) == folder.join(&theirs.program) && is_confined(&theirs.program));
    if rebuilt || vouched(program, folder, kept.program.as_deref()) || script(argv, folder, kept) {
        return None;
    }
    Some(foreign(argv, ONLY_THEIRS))
}

/// Why a build recipe from their file needs the second consent; `None`
/// when it is a known compiler whose every word is plain.
pub(super) fn recipe(step: &BuildStep) -> Option<String> {
    if step.shell {
        return Some(format!("runs a build recipe written for a shell in their file: {CAN_RUN_CODE}"));
    }
    let (compiler, args) = step.argv.split_first()?;
    let rules = match compiler_family(compiler) {
        Some(Family::C) => c_word,
        Some(Family::Rust) => rust_word,
        None => return Some(foreign(&step.argv, "only a known compiler, by its bare name, runs on the first consent")),
    };
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let plain = match rules(word) {
            Word::Plain => true,
            Word::Value(check) => words.next().is_some_and(|value| check(value)),
            Word::Foreign => false,
        };
        if !plain {
            return Some(foreign(
                &step.argv,
                &format!("{} is not a source in the scratch folder or an option known to run no code", inert(word)),
            ));
        }
    }
    None
}

/// The sentence for a command not shown to be plain: what the table of
/// code-taking options knows of it, else that its program can run code
/// they wrote, and any environment it sets from their file.
fn foreign(argv: &[String], why_not: &str) -> String {
    let program = argv.first().map_or_else(String::new, |p| shown(p));
    let said = match inline_code(argv) {
        Some(finding) => finding,
        None => format!("runs {program} with their arguments: {CAN_RUN_CODE} ({why_not})"),
    };
    let set: Vec<String> = assignments(argv).map(|name| inert(name).into_owned()).collect();
    if set.is_empty() { said } else { format!("{said}; it sets {} from their file", set.join(", ")) }
}

/// The names `env` (or a wrapper like it) is given to set: `NAME=value`
/// words before the program it runs.
fn assignments(argv: &[String]) -> impl Iterator<Item = &str> {
    argv.iter().skip(1).take_while(|w| w.starts_with('-') || w.contains('=')).filter_map(|w| {
        let (name, _) = w.split_once('=')?;
        (!name.is_empty() && !name.starts_with('-')).then_some(name)
    })
}

/// A program's base name, inert.
fn shown(word: &str) -> String {
    inert(word.rsplit(['/', '\\']).next().unwrap_or(word)).into_owned()
}

/// `word` as a file under `folder` — a relative path with a separator, no
/// `..`, not a link — whose SHA-256 is `sha256`.
fn vouched(word: &str, folder: &Path, sha256: Option<&str>) -> bool {
    let Some(sha256) = sha256 else { return false };
    let relative = word.strip_prefix("./").unwrap_or(word);
    if !(word.contains('/') && is_confined(relative)) {
        return false;
    }
    let path = folder.join(relative);
    let inside = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
        && std::fs::canonicalize(&path)
            .ok()
            .zip(std::fs::canonicalize(folder).ok())
            .is_some_and(|(file, folder)| file.starts_with(folder));
    inside && sha256_of(&path).is_ok_and(|here| here.eq_ignore_ascii_case(sha256))
}

/// A recognised interpreter, named bare or by an absolute path (this
/// machine's), given no option, running a script under `folder` whose
/// SHA-256 their row keeps under the same word.
fn script(argv: &[String], folder: &Path, kept: &KeptFiles) -> bool {
    let [interpreter, script, ..] = argv else { return false };
    let name = interpreter.rsplit('/').next().unwrap_or(interpreter);
    let family = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let ours = !interpreter.contains('/') || interpreter.starts_with('/');
    if !(ours && INTERPRETERS.contains(&family)) || script.starts_with('-') || script.starts_with('+') {
        return false;
    }
    let relative = if script.contains('/') { script.clone() } else { format!("./{script}") };
    let sha256 = kept.files.iter().find(|(name, _)| name == script).map(|(_, sha256)| sha256.as_str());
    vouched(&relative, folder, sha256)
}

/// Interpreters that run a script file given as their first word.
const INTERPRETERS: [&str; 14] =
    ["python", "pypy", "perl", "ruby", "node", "nodejs", "sh", "bash", "dash", "zsh", "ksh", "php", "lua", "julia"];

/// The compilers a recipe may start on the first consent.
enum Family {
    /// gcc, clang and their C++ drivers.
    C,
    /// rustc.
    Rust,
}

/// A compiler named bare (found on this machine's `PATH`), a version
/// suffix allowed (`gcc-12`).
fn compiler_family(word: &str) -> Option<Family> {
    let name = word
        .split_once('-')
        .filter(|(_, v)| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map_or(word, |(n, _)| n);
    match name {
        "gcc" | "g++" | "cc" | "c++" | "clang" | "clang++" => Some(Family::C),
        "rustc" => Some(Family::Rust),
        _ => None,
    }
}

/// What one word of a recipe is.
enum Word {
    /// A source, or an option that runs no code and writes nowhere else.
    Plain,
    /// An option whose value is the next word, plain when it passes.
    Value(fn(&str) -> bool),
    /// Anything else.
    Foreign,
}

impl From<bool> for Word {
    fn from(plain: bool) -> Self {
        if plain { Word::Plain } else { Word::Foreign }
    }
}

/// A file or folder in the scratch folder, as a recipe names it.
fn inside(word: &str) -> bool {
    is_confined(word.strip_prefix("./").unwrap_or(word))
}

/// Words of a value the compiler only reads as a name or a number.
fn name_like(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "_.,+-=:".contains(c))
}

/// gcc's and clang's words: sources, `-o` inside, optimisation, debug,
/// warnings, language and machine options, macros, include and library
/// folders inside, libraries by name, and `-f` flags that name no file.
fn c_word(word: &str) -> Word {
    const EXACT: [&str; 13] = [
        "-c",
        "-S",
        "-s",
        "-g",
        "-w",
        "-pthread",
        "-fopenmp",
        "-static",
        "-shared",
        "-pie",
        "-no-pie",
        "-pedantic",
        "-ansi",
    ];
    const F_VALUES: [&str; 5] = ["lto", "sanitize", "visibility", "fp-contract", "openmp-simd"];
    if !word.starts_with('-') {
        return (!word.starts_with('@') && inside(word)).into();
    }
    if EXACT.contains(&word) {
        return Word::Plain;
    }
    match word {
        "-o" | "-I" | "-L" => return Word::Value(inside),
        "-D" | "-U" => return Word::Value(name_like),
        "-mllvm" => return Word::Foreign,
        _ => {}
    }
    let (Some(flag), Some(rest)) = (word.get(..2), word.get(2..)) else { return Word::Foreign };
    match flag {
        "-o" | "-I" | "-L" => inside(rest).into(),
        "-O" => ["", "0", "1", "2", "3", "s", "fast", "g", "z"].contains(&rest).into(),
        "-g" | "-l" | "-D" | "-U" | "-m" => name_like(rest).into(),
        "-W" => (name_like(rest) && !rest.contains(',')).into(),
        "-s" => rest.strip_prefix("td=").is_some_and(name_like).into(),
        "-f" => match rest.split_once('=') {
            None => (name_like(rest) && !rest.contains("plugin")).into(),
            Some((name, value)) => (F_VALUES.contains(&name) && name_like(value)).into(),
        },
        _ => Word::Foreign,
    }
}

/// rustc's words: sources, `-o` inside, `-O`, `-g`, the edition, crate
/// names and types, `--cfg`, lint levels, and `-C` codegen options that
/// name no program or file.
fn rust_word(word: &str) -> Word {
    const CODEGEN: [&str; 11] = [
        "opt-level",
        "target-cpu",
        "codegen-units",
        "debuginfo",
        "lto",
        "panic",
        "overflow-checks",
        "debug-assertions",
        "target-feature",
        "strip",
        "embed-bitcode",
    ];
    fn codegen(value: &str) -> bool {
        let key = value.split_once('=').map_or(value, |(k, _)| k);
        CODEGEN.contains(&key) && name_like(value)
    }
    if !word.starts_with('-') {
        return (!word.starts_with('@') && inside(word)).into();
    }
    match word {
        "-O" | "-g" => Word::Plain,
        "-o" => Word::Value(inside),
        "-C" | "--codegen" => Word::Value(codegen),
        "--edition" | "--crate-type" | "--crate-name" | "--cfg" | "-A" | "-W" | "-D" | "-F" => Word::Value(name_like),
        _ => {
            if let Some(value) = word.strip_prefix("-C") {
                return codegen(value).into();
            }
            let long = ["--edition=", "--crate-type=", "--crate-name=", "--cfg="];
            long.iter().any(|l| word.strip_prefix(l).is_some_and(name_like)).into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vernier_model::notebook::Condition;

    fn argv(line: &str) -> Vec<String> {
        shlex::split(line).expect("test argv")
    }

    fn command(line: &str) -> Subject {
        Subject::Command { argv: argv(line), shell: false }
    }

    /// A folder holding `mm` (a program) and `bench.py` (a script), and the
    /// row that kept both files' SHA-256.
    fn theirs() -> (tempfile::TempDir, KeptFiles) {
        let folder = tempfile::tempdir().expect("folder");
        std::fs::write(folder.path().join("mm"), b"\x7fELF their program").expect("mm");
        std::fs::write(folder.path().join("bench.py"), b"print(1)\n").expect("script");
        let sha = |name: &str| sha256_of(&folder.path().join(name)).expect("hash");
        let kept = KeptFiles::of(&[
            Condition::new(ConditionName::Program, format!("./mm (SHA-256 {})", sha("mm"))),
            Condition::new(ConditionName::ArgumentFiles, format!("bench.py (SHA-256 {})", sha("bench.py"))),
        ]);
        (folder, kept)
    }

    // SPEC N13, R2: their own program and their own script, matched by the
    // SHA-256 their row keeps, are plain; anything else needs the second
    // consent, with a reason, whatever no table knows of it.
    #[test]
    fn only_what_their_row_vouches_for_is_plain() {
        let (folder, kept) = theirs();
        let at = folder.path();
        assert_eq!(arm(&command("./mm 512"), None, at, &kept), None);
        assert_eq!(arm(&command("python3 bench.py --fast"), None, at, &kept), None);
        assert_eq!(arm(&command("/usr/bin/python3.12 bench.py"), None, at, &kept), None);
        for line in [
            "./not-in-any-table --anything",
            "not-in-any-table --anything",
            "python3 -u bench.py",
            "python3 other.py",
            "./mm/../mm",
            "sed --expr='1e touch M' f",
            "vernier bench --shell 'touch M'",
        ] {
            let why = arm(&command(line), None, at, &kept).unwrap_or_else(|| panic!("plain: {line}"));
            assert!(why.contains("code"), "{line}: {why}");
        }
        let why = arm(&command("./not-in-any-table --anything"), None, at, &kept).expect("foreign");
        assert!(why.starts_with("runs not-in-any-table with their arguments: such a program can run code they wrote"));
        // The same program with no SHA-256 kept, or another file: foreign.
        assert!(arm(&command("./mm"), None, at, &KeptFiles::default()).is_some());
        std::fs::write(at.join("mm"), b"another program").expect("rewrite");
        assert!(arm(&command("./mm"), None, at, &kept).is_some());
        // An environment set from their file is named.
        let why = arm(&command("env GIT_CONFIG_PARAMETERS=x git y"), None, at, &kept).expect("foreign");
        assert!(why.contains("it sets GIT_CONFIG_PARAMETERS from their file"), "{why}");
    }

    // SPEC N13, R5: a recipe of a known compiler with plain words is plain;
    // a compiler option that runs code, a path outside the scratch folder
    // or an unknown program is not.
    #[test]
    fn a_recipe_is_plain_only_word_by_word() {
        let step = |line: &str| BuildStep { argv: argv(line), shell: false, sources: Vec::new(), theirs: None };
        for line in [
            "cc -O2 m.c -o mm",
            "g++-12 -O3 -march=native -std=c++17 -Wall -DN=512 -Iinclude src/m.cpp -o mm -lm -fno-tree-vectorize",
            "rustc -O --edition 2021 -C target-cpu=native m.rs -o mm",
        ] {
            assert_eq!(recipe(&step(line)), None, "{line}");
        }
        for line in [
            "gcc -wrapper sh,-c,x m.c -o mm",
            "gcc m.c -o /tmp/elsewhere",
            "gcc -B/tmp m.c",
            "gcc @opts m.c",
            "gcc -fplugin=./p.so m.c",
            "gcc -Wl,-plugin,x m.c",
            "rustc -C linker=./x m.rs",
            "make -f Makefile",
            "./build.sh",
        ] {
            assert!(recipe(&step(line)).is_some(), "{line}");
        }
        let shell = BuildStep { argv: argv("sh -c 'cc m.c'"), shell: true, sources: Vec::new(), theirs: None };
        assert!(recipe(&shell).is_some());
    }
}
