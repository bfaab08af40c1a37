//! Which program a command row measured (SPEC N11): the SHA-256 of the
//! executable that ran, found through `PATH` as the command was started,
//! and of every argument that names a regular file (a script given to an
//! interpreter, an input), so a rerun can tell whether it runs the same
//! program on the same input.

use std::io;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::platform::program;
use vernier_model::bounded::BoundedFile;
use vernier_model::notebook::{Condition, ConditionName};

/// A file larger than this is named but not hashed: reading gigabytes
/// before every run would delay the measurement for little.
const MAX_HASHED_BYTES: u64 = 1 << 30;

/// The program and the argument files of one command, identified.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Provenance {
    /// `PATH (SHA-256 HEX)`, or why it could not be hashed.
    pub program: String,
    /// One `ARG (SHA-256 HEX)` per argument naming a regular file.
    pub argument_files: Vec<String>,
}

impl Provenance {
    /// Identifies `argv` as it is about to run from the current folder.
    pub fn of(argv: &[String]) -> Self {
        Self::of_cached(argv, &mut Hashes::default())
    }

    /// [`Provenance::of`] for many commands that share files (a sweep's
    /// points): each file is read and hashed once.
    pub fn of_cached(argv: &[String], hashes: &mut Hashes) -> Self {
        let program = match argv.first() {
            None => "no program".to_owned(),
            Some(name) => match program::find_on_path(name, std::env::var_os("PATH").as_deref()) {
                Some(path) => hashes.identified(&path.to_string_lossy(), &path),
                None => format!("{name} (not found on PATH, not hashed)"),
            },
        };
        let argument_files = argv
            .iter()
            .skip(1)
            .filter(|arg| std::fs::metadata(arg).is_ok_and(|m| m.is_file()))
            .map(|arg| hashes.identified(arg, Path::new(arg)))
            .collect();
        Self { program, argument_files }
    }

    /// The row's conditions: `program`, then `argument files` if any.
    pub fn conditions(&self) -> Vec<Condition> {
        let mut rows = vec![Condition::new(ConditionName::Program, self.program.clone())];
        if !self.argument_files.is_empty() {
            rows.push(Condition::new(ConditionName::ArgumentFiles, self.argument_files.join("; ")));
        }
        rows
    }
}

/// Files hashed so far, by path, with the hash or why there is none.
#[derive(Debug, Default)]
pub struct Hashes(std::collections::HashMap<std::path::PathBuf, Result<String, String>>);

impl Hashes {
    /// `NAME (SHA-256 HEX)`, or `NAME (not hashed: WHY)`.
    fn identified(&mut self, name: &str, path: &Path) -> String {
        let hash = self.0.entry(path.to_path_buf()).or_insert_with(|| sha256_of(path).map_err(|e| e.to_string()));
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
    rest.strip_suffix(')').filter(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
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
        let p = Provenance::of(&argv);
        assert!(p.program.contains("/sh (SHA-256 "), "{}", p.program);
        assert!(recorded_sha256(&p.program).is_some());
        assert_eq!(p.argument_files.len(), 1, "{:?}", p.argument_files);
        // SHA-256 of "print(1)\n".
        let expected = vernier_model::digest::sha256_hex(b"print(1)\n");
        assert_eq!(recorded_sha256(&p.argument_files[0]), Some(expected.as_str()));
        let missing = Provenance::of(&["no-such-program-here".to_owned()]);
        assert!(missing.program.contains("not found on PATH"), "{}", missing.program);
        assert_eq!(recorded_sha256(&missing.program), None);
    }
}
