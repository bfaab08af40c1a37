//! A row's build recipe (SPEC N15, R5): the build command Vernier ran just
//! before it measured, the compiler's own version line, every source the
//! build read with its SHA-256 (and its copy in `raw/`, when kept), and the
//! SHA-256 of the program it produced — which is the program that ran.
//! Enough for a stranger with the notebook folder alone to rebuild it.

use serde::{Deserialize, Serialize};

use super::path::NotebookPath;
use crate::digest::is_sha256;
use crate::display::{inert, quote_argv};

/// A source larger than this is hashed, not kept in `raw/`.
pub const MAX_KEPT_SOURCE_BYTES: u64 = 1 << 20;
/// The sources of one build kept in `raw/`, in all, at most.
pub const MAX_KEPT_BYTES: u64 = 8 << 20;
/// A recipe names at most this many sources; a longer list is refused.
pub const MAX_SOURCES: usize = 4096;

/// How the build command ran and what it produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// The build command as it ran, an argument vector; with `shell`, the
    /// shell and its text.
    pub argv: Vec<String>,
    /// The recipe needed a shell (`--build-shell`): code written as text,
    /// flagged as inline code when it is run from a file (SPEC N13).
    #[serde(default)]
    pub shell: bool,
    /// The compiler's own version line (`FIRST-WORD --version`), or why
    /// there is none.
    pub compiler: String,
    /// How the sources were found: the compiler's dependency listing, or
    /// the files the command names and `--source`.
    pub listed_by: String,
    /// Every source the build read inside the project's folder.
    pub sources: Vec<RecipeSource>,
    /// The program the build produced, relative to the project's folder.
    pub program: String,
    /// Its SHA-256; the program measured had the same.
    pub program_sha256: String,
    /// For a rebuild (SPEC R5): the row it rebuilt and their compiler's
    /// version line, so the row keeps both compilers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebuilt_from: Option<Rebuilt>,
}

/// One source file of a recipe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecipeSource {
    /// Its path relative to the project's folder, `/`-separated.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its SHA-256.
    pub sha256: String,
    /// Its copy in the notebook's `raw/`, content-addressed; `None` when it
    /// was too large to keep (see [`MAX_KEPT_SOURCE_BYTES`], [`MAX_KEPT_BYTES`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<NotebookPath>,
}

/// What a rebuild rebuilt (SPEC R5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rebuilt {
    /// Their log and row, as named.
    pub row: String,
    /// Their compiler's version line.
    pub compiler: String,
    /// Their program's SHA-256.
    pub program_sha256: String,
}

/// A recipe from a file recording a SHA-256 that is not one (SPEC N8, R5).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("its build recipe gives {what} the SHA-256 '{sha256}', which is not 64 hex digits")]
pub struct RecipeHashError {
    /// What the hash is of (`source m.cpp`, `the program built` …).
    pub what: String,
    /// The hash as recorded, inert.
    pub sha256: String,
}

impl Recipe {
    /// The build command quoted as one would type it, inert.
    pub fn command(&self) -> String {
        inert(&quote_argv(&self.argv)).into_owned()
    }

    /// The row's build (SPEC N11) when a recipe built it: the command as
    /// it ran — whose flags A18 reads — and the compiler's version, which
    /// the Runs sheet and the report's Method then show with it.
    pub fn build_text(&self) -> String {
        format!("{} (built by Vernier just before the run; {})", quote_argv(&self.argv), self.compiler)
    }

    /// The recipe's lines, as the long form, `show --run` and a plan list
    /// them: command, compiler, each source, the program.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![
            format!("build recipe: {}{}", self.command(), if self.shell { " (through a shell)" } else { "" }),
            format!("compiler: {}", inert(&self.compiler)),
            format!("sources ({}): {}", inert(&self.listed_by), self.sources.len()),
        ];
        lines.extend(self.sources.iter().map(RecipeSource::line));
        lines.push(format!("program built: {} (SHA-256 {})", inert(&self.program), self.program_sha256));
        if let Some(r) = &self.rebuilt_from {
            lines.push(format!(
                "rebuilt from {}: their compiler {}, their program SHA-256 {}",
                inert(&r.row),
                inert(&r.compiler),
                r.program_sha256
            ));
        }
        lines
    }

    /// Whether a recipe read from a file can be one (SPEC N8, R5): every
    /// SHA-256 it records — each source's, the program's, the rebuilt
    /// row's — is 64 hex digits, so none can carry a line break into a
    /// plan or a path into a kept name. Else a sentence naming the hash.
    pub fn check(&self) -> Result<(), RecipeHashError> {
        let sources = self.sources.iter().map(|s| (format!("source {}", inert(&s.path)), &s.sha256));
        let programs = std::iter::once(("the program built".to_owned(), &self.program_sha256))
            .chain(self.rebuilt_from.iter().map(|r| ("the program it rebuilt".to_owned(), &r.program_sha256)));
        match sources.chain(programs).find(|(_, sha256)| !is_sha256(sha256)) {
            Some((what, sha256)) => Err(RecipeHashError { what, sha256: inert(sha256).into_owned() }),
            None => Ok(()),
        }
    }

    /// The sources hashed but not kept (too large): a rebuild needs them
    /// from elsewhere.
    pub fn not_kept(&self) -> impl Iterator<Item = &RecipeSource> {
        self.sources.iter().filter(|s| s.kept.is_none())
    }

    /// One line for a row's `build recipe` condition and the workbook's
    /// Build cell: ran before the warm-up, the compiler, the sources.
    pub fn condition_text(&self) -> String {
        let kept = self.sources.iter().filter(|s| s.kept.is_some()).count();
        let names: Vec<&str> = self.sources.iter().take(8).map(|s| s.path.as_str()).collect();
        let more = self.sources.len().saturating_sub(names.len());
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        // A rebuild ran in a scratch folder of mine, not in their project.
        let rebuilt = self.rebuilt_from.as_ref().map_or_else(String::new, |r| {
            format!(", rebuilding their recipe ({}) from its kept sources in a scratch folder", r.row)
        });
        inert(&format!(
            "run by Vernier just before the warm-up{rebuilt}; compiler: {}; {} source(s) ({}{more}), {kept} kept in \
             raw/; produced {} (SHA-256 {})",
            self.compiler,
            self.sources.len(),
            names.join(", "),
            self.program,
            short_sha256(&self.program_sha256)
        ))
        .into_owned()
    }
}

impl RecipeSource {
    /// `  PATH, N bytes, SHA-256 HEX, kept as raw/…` (or not kept).
    pub fn line(&self) -> String {
        let kept = match &self.kept {
            Some(path) => format!("kept as {path}"),
            None => "not kept (too large), hashed only".to_owned(),
        };
        format!("  {}, {} bytes, SHA-256 {}, {kept}", inert(&self.path), self.bytes, self.sha256)
    }
}

/// The first 12 hex digits of a SHA-256, as short forms show it.
pub fn short_sha256(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}

/// The name a source's copy takes in `raw/`: its SHA-256, and the
/// extension it had (letters and digits only, so a hostile name cannot
/// reach outside `raw/` or hide anything).
pub fn kept_name(sha256: &str, path: &str) -> String {
    let extension: String = path
        .rsplit_once('.')
        .map(|(_, ext)| ext)
        .filter(|ext| !ext.contains('/') && (1..=8).contains(&ext.len()))
        .map(|ext| ext.chars().filter(char::is_ascii_alphanumeric).collect())
        .unwrap_or_default();
    if extension.is_empty() { format!("source-{sha256}") } else { format!("source-{sha256}.{extension}") }
}

/// Whether `path` is a relative path a rebuild may write: no `..`, no
/// root, no drive, no empty or `.` part, no backslash, no control
/// character. Names from someone else's notebook are checked with it
/// before anything is written (SPEC R5).
pub fn is_confined(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 1024
        && !path.starts_with('/')
        && !path.contains('\\')
        && !path.contains(':')
        && !path.chars().any(char::is_control)
        && path.split('/').all(|part| !part.is_empty() && part != "." && part != "..")
}

/// The sentence a rebuild says of its program against theirs (SPEC R5):
/// the same program, or a different one with both compilers — and when
/// the compilers are the same, where else a difference may come from.
pub fn rebuild_sentence(theirs: &Recipe, mine_sha256: &str, my_compiler: &str) -> String {
    if theirs.program_sha256.eq_ignore_ascii_case(mine_sha256) {
        return format!("the rebuild produced the same program (SHA-256 {})", short_sha256(mine_sha256));
    }
    let compilers = format!("compilers {} against {}", inert(&theirs.compiler), inert(my_compiler));
    let same_compiler = theirs.compiler.trim() == my_compiler.trim();
    let why = if same_compiler {
        "; the compilers are the same, so the difference may come from paths a -g build embeds (the scratch folder \
         is not their folder: -ffile-prefix-map=OLD=NEW makes them equal), from the time or from the system's headers \
         and libraries"
    } else {
        ""
    };
    format!(
        "the rebuild produced a different program (SHA-256 {} here, {} theirs): {compilers}{why}",
        short_sha256(mine_sha256),
        short_sha256(&theirs.program_sha256)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(compiler: &str, sha: &str) -> Recipe {
        Recipe {
            argv: vec!["g++".into(), "-O2".into(), "m.cpp".into(), "-o".into(), "m".into()],
            shell: false,
            compiler: compiler.into(),
            listed_by: "g++ -MM".into(),
            sources: Vec::new(),
            program: "m".into(),
            program_sha256: sha.into(),
            rebuilt_from: None,
        }
    }

    #[test]
    fn confined_paths_only() {
        // SPEC R5: their names are written only inside the scratch folder.
        for bad in ["", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "C:x", "a\\b", "a\nb", "a/./b"] {
            assert!(!is_confined(bad), "{bad:?} should be refused");
        }
        for good in ["matmul.cpp", "src/util.h", "a.b/c"] {
            assert!(is_confined(good), "{good:?} should be allowed");
        }
    }

    #[test]
    fn kept_names_stay_in_raw() {
        // SPEC N15: content-addressed, an extension of letters only.
        assert_eq!(kept_name("ab", "x/m.cpp"), "source-ab.cpp");
        assert_eq!(kept_name("ab", "x.d/m"), "source-ab");
        assert_eq!(kept_name("ab", "m.c/../../e"), "source-ab");
        assert_eq!(kept_name("ab", "m.$(rm)"), "source-ab.rm");
    }

    #[test]
    fn hashes_from_a_file_are_checked() {
        // SPEC N8, R5 (fuzz finding): a SHA-256 read from a hostile notebook
        // held a '/', which made a kept source's name a path; and a line
        // break in one would have started a line of the plan.
        let source = |sha256: String| RecipeSource { path: "m.cpp".into(), bytes: 3, sha256, kept: None };
        let mut theirs = recipe("g++ 12", &"ab".repeat(32));
        theirs.sources.push(source("cd".repeat(32)));
        assert_eq!(theirs.check(), Ok(()));
        theirs.sources[0] = source(format!("{}/x", "8e".repeat(20)));
        let refused = theirs.check().expect_err("a path is not a hash").to_string();
        assert!(refused.contains("source m.cpp the SHA-256 '8e8e") && refused.contains("/x'"), "{refused}");
        let mut theirs = recipe("g++ 12", &format!("{}\n  command: true", "ab".repeat(32)));
        let refused = theirs.check().expect_err("a line break is not a hash").to_string();
        assert!(refused.contains("the program built") && !refused.contains('\n'), "{refused}");
        theirs.program_sha256 = "ab".repeat(32);
        theirs.rebuilt_from =
            Some(Rebuilt { row: "run 1".into(), compiler: "g++ 12".into(), program_sha256: "x".into() });
        assert!(theirs.check().is_err_and(|e| e.to_string().contains("the program it rebuilt")));
    }

    #[test]
    fn rebuild_sentence_names_both_compilers() {
        // SPEC R5: the same program, or a different one with both compilers.
        let theirs = recipe("g++ (GCC) 12.2.0", "aa11");
        assert!(rebuild_sentence(&theirs, "AA11", "g++ (GCC) 13.1.0").contains("the same program"));
        let other = rebuild_sentence(&theirs, "bb22", "g++ (GCC) 13.1.0");
        assert!(other.contains("a different program"), "{other}");
        assert!(other.contains("compilers g++ (GCC) 12.2.0 against g++ (GCC) 13.1.0"), "{other}");
        assert!(!other.contains("-ffile-prefix-map"), "{other}");
        let same = rebuild_sentence(&theirs, "bb22", "g++ (GCC) 12.2.0");
        assert!(same.contains("-ffile-prefix-map"), "{same}");
    }
}
