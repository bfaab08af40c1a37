//! Rebuilding their program from the log alone (SPEC R5, N15): the sources
//! their notebook keeps in `raw/` (or, for one hashed but not kept, a file
//! of `--sources DIR` with that SHA-256), written into a scratch folder of
//! mine — never their folder — where their recipe runs behind the same
//! [`Gate`](crate::consent::Gate) as the rerun (N13). Their names are
//! checked before anything is written: no `..`, no absolute path, no link.

use std::path::{Path, PathBuf};

use crate::bounded::read_bounded;
use crate::digest::sha256_hex;
use crate::display::inert;
use crate::harness::build::{BuildStep, MAX_SOURCE_BYTES, known_compiler_version};
use crate::harness::{BenchSpec, Subject};
use crate::notebook::{MAX_KEPT_SOURCE_BYTES, MAX_SOURCES, Recipe, RecipeSource, is_confined};

/// Why their row cannot be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum RebuildError {
    /// Their row has no recipe: its build is only stated.
    #[error("run {0} has no build recipe (its build is stated in words only), so it cannot be rebuilt")]
    NoRecipe(u32),
    /// A workbook carries the recipe, not the sources.
    #[error(
        "the sources are not in a workbook: they are in their notebook folder's raw/; reproduce from the folder to \
         rebuild"
    )]
    Workbook,
    /// A source cannot be had, or is not what their row hashed.
    #[error("source {path}: {why}; nothing was built or run")]
    Source {
        /// Its name in their recipe.
        path: String,
        /// Why.
        why: String,
    },
    /// The scratch folder could not be made or written.
    #[error("the scratch folder: {0}")]
    Scratch(String),
}

/// A rebuild ready for consent: their recipe, the sources' bytes, and the
/// scratch folder it will run in.
#[derive(Debug)]
pub struct Rebuild {
    /// Their recipe.
    pub recipe: Recipe,
    /// Each source: its name in the recipe and its bytes, checked against
    /// their SHA-256.
    sources: Vec<(String, Vec<u8>)>,
    /// Where it runs: made new, mine, removed unless the rebuild runs.
    scratch: tempfile::TempDir,
    /// This machine's compiler version, when it was asked before the
    /// consent (a bare known compiler name found on PATH); else `None`.
    pub compiler_here: Option<String>,
}

impl Rebuild {
    /// Gathers what rebuilding `recipe` (run `row` of their notebook in
    /// `their_folder`) needs, and makes the scratch folder; writes nothing
    /// there yet and runs nothing but, for a known compiler, `--version`.
    pub fn prepare(
        row: u32,
        recipe: Option<&Recipe>,
        their_folder: Option<&Path>,
        sources_dir: Option<&Path>,
    ) -> Result<Self, RebuildError> {
        let recipe = recipe.ok_or(RebuildError::NoRecipe(row))?;
        let their_folder = their_folder.ok_or(RebuildError::Workbook)?;
        if recipe.sources.len() > MAX_SOURCES {
            return Err(RebuildError::Source {
                path: format!("{} files", recipe.sources.len()),
                why: format!("a recipe keeps at most {MAX_SOURCES} sources"),
            });
        }
        let mut sources = Vec::with_capacity(recipe.sources.len());
        for source in &recipe.sources {
            let refuse = |why: String| RebuildError::Source { path: inert(&source.path).into_owned(), why };
            if !is_confined(&source.path) {
                return Err(refuse("its name leaves the folder (an absolute path, `..` or a drive)".into()));
            }
            sources.push((source.path.clone(), source_bytes(source, their_folder, sources_dir).map_err(refuse)?));
        }
        if !is_confined(&recipe.program) {
            return Err(RebuildError::Source {
                path: inert(&recipe.program).into_owned(),
                why: "the program's name leaves the folder".into(),
            });
        }
        let scratch = tempfile::Builder::new()
            .prefix("vernier-rebuild-")
            .tempdir()
            .map_err(|e| RebuildError::Scratch(e.to_string()))?;
        let compiler_here = known_compiler_version(&BuildStep::rebuild(String::new(), recipe));
        Ok(Self { recipe: recipe.clone(), sources, scratch, compiler_here })
    }

    /// The scratch folder.
    pub fn folder(&self) -> &Path {
        self.scratch.path()
    }

    /// `spec` rebuilt here: their recipe runs first in the scratch folder,
    /// and each command runs the program it builds there — the program
    /// their row measured was the one their recipe built (N15), however
    /// their command named it; the trials run there too.
    pub fn spec(&self, row_name: String, spec: BenchSpec) -> BenchSpec {
        let folder = self.folder().to_path_buf();
        let built = folder.join(&self.recipe.program).to_string_lossy().into_owned();
        let arms = spec
            .arms
            .into_iter()
            .map(|arm| match arm {
                Subject::Command { mut argv, shell: false } => {
                    if let Some(program) = argv.first_mut() {
                        program.clone_from(&built);
                    }
                    Subject::Command { argv, shell: false }
                }
                other => other,
            })
            .collect();
        BenchSpec {
            arms,
            recipe: Some(BuildStep::rebuild(row_name, &self.recipe)),
            arm_recipes: [None, None],
            folder: Some(folder),
            ..spec
        }
    }

    /// The plan's lines (each starting a line break): their recipe and
    /// compiler, the compiler here or why it was not asked, the sources
    /// that will be written, and where.
    pub fn plan_lines(&self) -> String {
        let mut lines = vec![
            format!(
                "rebuild: their recipe runs first, in a scratch folder of yours: {}",
                crate::display::path(self.folder())
            ),
            format!("their compiler: {}", inert(&self.recipe.compiler)),
            match &self.compiler_here {
                Some(version) => format!("compiler here: {}", inert(version)),
                None => "compiler here: not run before consent (not a bare known compiler name on PATH)".to_owned(),
            },
            format!("sources written there ({}):", self.sources.len()),
        ];
        lines.extend(
            self.recipe
                .sources
                .iter()
                .map(|s| format!("  {}, {} bytes, SHA-256 {}", inert(&s.path), s.bytes, s.sha256)),
        );
        lines.push(format!(
            "their program: {} (SHA-256 {}); the rebuilt one is compared with it before the rerun",
            inert(&self.recipe.program),
            self.recipe.program_sha256
        ));
        lines.iter().map(|l| format!("\n  {l}")).collect()
    }

    /// Writes their sources into the scratch folder (after the consent),
    /// each a new file under a checked name, and keeps the folder: the
    /// rebuilt program runs from it, and it stays to be looked at.
    pub fn write_sources(self) -> Result<PathBuf, RebuildError> {
        let folder = self.scratch.keep();
        for (name, bytes) in &self.sources {
            let path = folder.join(name);
            let write = || -> std::io::Result<()> {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                let mut file = std::fs::File::options().write(true).create_new(true).open(&path)?;
                std::io::Write::write_all(&mut file, bytes)
            };
            write().map_err(|e| RebuildError::Scratch(format!("{}: {e}", crate::display::path(&path))))?;
        }
        Ok(folder)
    }
}

/// A source's bytes: their kept copy, or a file of `sources_dir` — at its
/// name, or its base name — with the SHA-256 their row recorded.
fn source_bytes(source: &RecipeSource, their_folder: &Path, sources_dir: Option<&Path>) -> Result<Vec<u8>, String> {
    if let Some(kept) = &source.kept {
        let path = kept.resolve(their_folder).map_err(|e| e.to_string())?;
        let bytes = read_bounded(&path, MAX_KEPT_SOURCE_BYTES, "a kept source").map_err(|e| e.to_string())?;
        let sha256 = sha256_hex(&bytes);
        if sha256 != source.sha256 {
            return Err(format!("their copy {kept} is not the file their row hashed (SHA-256 {sha256})"));
        }
        return Ok(bytes);
    }
    let not_kept = format!(
        "their notebook hashed it (SHA-256 {}, {} bytes) but did not keep it (too large)",
        source.sha256, source.bytes
    );
    let Some(dir) = sources_dir else {
        return Err(format!("{not_kept}; give a folder holding it with --sources DIR"));
    };
    let base = source.path.rsplit('/').next().unwrap_or(&source.path);
    for candidate in [dir.join(&source.path), dir.join(base)] {
        if std::fs::symlink_metadata(&candidate).is_ok_and(|m| m.is_file())
            && let Ok(bytes) = read_bounded(&candidate, MAX_SOURCE_BYTES, "a source")
            && sha256_hex(&bytes) == source.sha256
        {
            return Ok(bytes);
        }
    }
    Err(format!("{not_kept}, and {} holds no file of that SHA-256 at that name", crate::display::path(dir)))
}
