//! Rebuilding their program from the log alone (SPEC R5, N15): the sources
//! their notebook keeps in `raw/` (or, for one hashed but not kept, a file
//! of `--sources DIR` with that SHA-256), written into a scratch folder of
//! mine — never their folder — where their recipe runs behind the same
//! [`Gate`](crate::consent::Gate) as the rerun (N13). Their names are
//! checked before anything is written: no `..`, no absolute path, no link.

use std::path::Path;

use super::Original;
use crate::bounded::read_bounded;
use crate::digest::sha256_hex;
use crate::display::{inert, inert_line};
use crate::harness::build_step::{BuildStep, MAX_SOURCE_BYTES};
use crate::harness::{BenchSpec, Subject};
use crate::notebook::{MAX_KEPT_SOURCE_BYTES, MAX_SOURCES, Recipe, RecipeSource, is_confined, short_sha256};

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
    /// Their recipe writes its program outside the scratch folder.
    #[error(
        "their build recipe writes {0}, outside the scratch folder it runs in (an absolute path or `..`); nothing was \
         built or run"
    )]
    Output(String),
}

/// A rebuild ready for consent: each arm's recipe, the sources' bytes, and
/// the scratch folder it will run in.
///
/// A comparison whose arms were built by two recipes is rebuilt in one
/// scratch folder, as both ran in one project folder: their sources are
/// written there once, and a name the two recipes give two different
/// files is refused.
#[derive(Debug)]
pub struct Rebuild {
    /// Each arm's recipe, A then B (one for a row alone); arms built by one
    /// recipe name it twice, and it runs once.
    pub recipes: Vec<Recipe>,
    /// Their row of each arm, A then B.
    rows: Vec<u32>,
    /// Each source: its name in the recipes, their SHA-256 and its bytes,
    /// checked against it; one entry per name.
    sources: Vec<(String, String, Vec<u8>)>,
    /// Where it runs: made new, mine, removed after the run (or unused).
    scratch: tempfile::TempDir,
}

/// One recipe of a rebuild and the arm it builds.
pub struct Build<'a> {
    /// `A` or `B`; empty for a row alone or a comparison built by one
    /// recipe.
    pub arm: &'static str,
    /// Their recipe.
    pub recipe: &'a Recipe,
}

/// What the plan says of the compiler here: nothing named or chosen by
/// their files runs before the consent (SPEC N13), not even `--version`.
pub const COMPILER_HERE: &str = "asked after you agree";

impl Rebuild {
    /// Gathers what rebuilding `original` (their row, with its partner when
    /// it was half of a comparison) from their notebook in `their_folder`
    /// needs, each arm from its own recipe, and makes the scratch folder;
    /// writes nothing there yet and runs nothing (SPEC N13). A recipe that
    /// would write its program outside the scratch folder is refused.
    pub fn prepare(
        original: &Original,
        their_folder: Option<&Path>,
        sources_dir: Option<&Path>,
    ) -> Result<Self, RebuildError> {
        let arms = original.arms();
        let recipes = arms
            .iter()
            .map(|o| o.recipe.clone().ok_or(RebuildError::NoRecipe(o.row)))
            .collect::<Result<Vec<_>, _>>()?;
        let their_folder = their_folder.ok_or(RebuildError::Workbook)?;
        let mut sources: Vec<(String, String, Vec<u8>)> = Vec::new();
        for (i, recipe) in recipes.iter().enumerate() {
            if recipes[..i].contains(recipe) {
                continue;
            }
            if recipe.sources.len() > MAX_SOURCES {
                return Err(RebuildError::Source {
                    path: format!("{} files", recipe.sources.len()),
                    why: format!("a recipe keeps at most {MAX_SOURCES} sources"),
                });
            }
            for source in &recipe.sources {
                let refuse = |why: String| RebuildError::Source { path: inert(&source.path).into_owned(), why };
                if !is_confined(&source.path) {
                    return Err(refuse("its name leaves the folder (an absolute path, `..` or a drive)".into()));
                }
                if let Some((_, sha256, _)) = sources.iter().find(|(path, ..)| *path == source.path) {
                    if sha256.eq_ignore_ascii_case(&source.sha256) {
                        continue;
                    }
                    return Err(refuse(format!(
                        "their two recipes name two different files by it (SHA-256 {} and {}), which one scratch \
                         folder cannot hold",
                        short_sha256(sha256),
                        short_sha256(&source.sha256)
                    )));
                }
                let bytes = source_bytes(source, their_folder, sources_dir).map_err(refuse)?;
                sources.push((source.path.clone(), source.sha256.clone(), bytes));
            }
            if !is_confined(&recipe.program) {
                return Err(RebuildError::Source {
                    path: inert(&recipe.program).into_owned(),
                    why: "the program's name leaves the folder".into(),
                });
            }
            // SPEC R5: checked before the consent, not found afterwards.
            if let Some(output) = BuildStep::rebuild(String::new(), recipe).output()
                && !is_confined(&output)
            {
                return Err(RebuildError::Output(inert(&output).into_owned()));
            }
        }
        let scratch = tempfile::Builder::new()
            .prefix("vernier-rebuild-")
            .tempdir()
            .map_err(|e| RebuildError::Scratch(e.to_string()))?;
        Ok(Self { rows: arms.iter().map(|o| o.row).collect(), recipes, sources, scratch })
    }

    /// The scratch folder.
    pub fn folder(&self) -> &Path {
        self.scratch.path()
    }

    /// Whether every arm is built by one recipe.
    fn one_recipe(&self) -> bool {
        self.builds().len() == 1
    }

    /// Each distinct recipe, with the arm it builds: one for a row alone
    /// or a comparison built by one recipe, else arm A's then arm B's.
    pub fn builds(&self) -> Vec<Build<'_>> {
        let recipes: Vec<Option<&Recipe>> = self.recipes.iter().map(Some).collect();
        distinct_recipes(&recipes).into_iter().map(|(arm, i)| Build { arm, recipe: &self.recipes[i] }).collect()
    }

    /// `spec` rebuilt here: each arm's recipe runs first in the scratch
    /// folder (one build when the arms share it), and each command runs
    /// the program its recipe builds there — the program their row
    /// measured was the one their recipe built (N15), however their
    /// command named it; the trials run there too. An arm not named
    /// otherwise keeps the name their command gives it, as a rerun of it
    /// would (its `What`); the command it ran, from the scratch folder, is
    /// its `Command`. `source` names their log.
    pub fn spec(&self, source: &str, spec: BenchSpec) -> BenchSpec {
        let folder = self.folder().to_path_buf();
        let mut labels = spec.labels;
        let arms = spec
            .arms
            .into_iter()
            .enumerate()
            .map(|(i, arm)| match arm {
                Subject::Command { mut argv, shell: false } => {
                    if let Some(label @ None) = labels.get_mut(i) {
                        *label = Some(inert_line(argv.join(" ")));
                    }
                    if let (Some(program), Some(recipe)) = (argv.first_mut(), self.recipes.get(i)) {
                        *program = folder.join(&recipe.program).to_string_lossy().into_owned();
                    }
                    Subject::Command { argv, shell: false }
                }
                other => other,
            })
            .collect();
        let their = |rows: &[u32]| {
            let numbers: Vec<String> = rows.iter().map(u32::to_string).collect();
            let noun = if rows.len() == 1 { "run" } else { "runs" };
            format!("{noun} {} of {}", numbers.join(" and "), inert(source))
        };
        let (recipe, arm_recipes) = match self.recipes.first() {
            Some(first) if self.one_recipe() => (Some(BuildStep::rebuild(their(&self.rows), first)), [None, None]),
            _ => (
                None,
                [0, 1].map(|i| {
                    let recipe = self.recipes.get(i)?;
                    Some(BuildStep::rebuild(their(std::slice::from_ref(self.rows.get(i)?)), recipe))
                }),
            ),
        };
        BenchSpec { arms, labels, recipe, arm_recipes, folder: Some(folder), confined: true, ..spec }
    }

    /// The plan's lines (each starting a line break): where the recipes
    /// run and what confines them; for each, their recipe and compiler,
    /// and their program; then the sources that will be written there.
    pub fn plan_lines(&self) -> String {
        let mut lines = vec![format!(
            "rebuild: their recipe{} first, in a scratch folder of yours made for this run: {} (removed after \
                 it; --keep-scratch keeps it)",
            if self.one_recipe() { " runs" } else { "s run" },
            crate::display::path(self.folder())
        )];
        for build in self.builds() {
            let arm = if build.arm.is_empty() { String::new() } else { format!(" (arm {})", build.arm) };
            lines.push(format!("their build recipe{arm}: {}", build.recipe.command()));
            lines.push(format!("their compiler{arm}: {}", inert(&build.recipe.compiler)));
            lines.push(format!("compiler here{arm}: {COMPILER_HERE}"));
            lines.push(format!(
                "their program{arm}: {} (SHA-256 {}); the rebuilt one is compared with it before the rerun",
                inert(&build.recipe.program),
                build.recipe.program_sha256
            ));
        }
        lines.push(format!("sources written there ({}):", self.sources.len()));
        for (name, sha256, bytes) in &self.sources {
            lines.push(format!("  {}, {} bytes, SHA-256 {sha256}", inert(name), bytes.len()));
        }
        lines.iter().map(|l| format!("\n  {l}")).collect()
    }

    /// Writes their sources into the scratch folder (after the consent),
    /// each a new file under a checked name. The folder is removed when
    /// what is returned is dropped — after the run — unless it is kept.
    pub fn write_sources(self) -> Result<Scratch, RebuildError> {
        let folder = self.scratch.path().to_path_buf();
        for (name, _, bytes) in &self.sources {
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
        Ok(Scratch(self.scratch))
    }
}

/// A rebuild's scratch folder once their sources are in it: removed, with
/// all the rebuild left there, when dropped — after the run — unless kept
/// (`--keep-scratch`).
#[derive(Debug)]
pub struct Scratch(tempfile::TempDir);

impl Scratch {
    /// Where it is: the folder the plan named.
    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// Keeps it after the run, to be looked at; returns where it is.
    pub fn keep(self) -> std::path::PathBuf {
        self.0.keep()
    }
}

/// The arms' recipes (A then B; `None` for an arm without one) told
/// apart: the arm each one shown is named by and its index — one, named by
/// no arm, for a row alone or when every arm has the same; else each
/// arm's own.
pub(super) fn distinct_recipes(recipes: &[Option<&Recipe>]) -> Vec<(&'static str, usize)> {
    let present = (0..recipes.len()).filter(|&i| recipes[i].is_some());
    if recipes.windows(2).all(|w| w[0] == w[1]) {
        return present.take(1).map(|i| ("", i)).collect();
    }
    present.map(|i| (if i == 0 { "A" } else { "B" }, i)).collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::{NotebookPath, WarmupPolicy};
    use crate::reproduce::Partner;

    /// Their row `row`, measured `./mm`, built by `recipe`.
    fn row(row: u32, recipe: Option<Recipe>) -> Original {
        Original {
            row,
            what: "./mm".into(),
            command: vec!["./mm".into()],
            partner: None,
            warmup_trials: Some(1),
            policy: WarmupPolicy::Count(1),
            timed: 5,
            median: 1.0,
            iqr: 0.1,
            unit: "ms".into(),
            conditions: Vec::new(),
            power_source: None,
            figure: None,
            boundary: None,
            recipe,
            noise_floor: None,
            budget: None,
        }
    }

    /// A recipe building `program` from `m.c`, whose SHA-256 is `sha256`.
    fn recipe(program: &str, sha256: &str, kept: Option<NotebookPath>) -> Recipe {
        Recipe {
            argv: vec!["cc".into(), "m.c".into(), "-o".into(), program.into()],
            shell: false,
            compiler: "cc 1.0".into(),
            listed_by: "the files the command names".into(),
            sources: vec![RecipeSource { path: "m.c".into(), bytes: 4, sha256: sha256.into(), kept }],
            program: program.into(),
            program_sha256: "00".repeat(32),
            rebuilt_from: None,
        }
    }

    /// Row 1 as arm A of a comparison whose arm B is `b`.
    fn compared(a: Original, b: Original) -> Original {
        let labels = ["A".to_owned(), "B".to_owned()];
        Original { partner: Some(Partner { arm: "A".into(), other: Box::new(b), paired: None, labels }), ..a }
    }

    // SPEC R5: an arm of their comparison built without a recipe cannot be
    // rebuilt, and the refusal names its row.
    #[test]
    fn an_arm_without_a_recipe_is_named() {
        let folder = tempfile::tempdir().expect("tmp");
        let original = compared(row(1, Some(recipe("fast", &"ab".repeat(32), None))), row(2, None));
        let refused = Rebuild::prepare(&original, Some(folder.path()), None).expect_err("arm B has no recipe");
        assert!(matches!(refused, RebuildError::NoRecipe(2)), "{refused}");
    }

    // SPEC R5: the two recipes of a comparison run in one scratch folder, so
    // a name their recipes give two different files is refused by name
    // before anything is written; one file both name is written once.
    #[test]
    fn two_recipes_share_one_scratch_folder() {
        let folder = tempfile::tempdir().expect("tmp");
        let bytes = b"m();";
        let sha256 = sha256_hex(bytes);
        std::fs::create_dir(folder.path().join("raw")).expect("raw");
        std::fs::write(folder.path().join("raw").join("m.c"), bytes).expect("kept");
        let kept = NotebookPath::new("raw/m.c").ok();
        let a = row(1, Some(recipe("fast", &sha256, kept.clone())));
        let shared = compared(a.clone(), row(2, Some(recipe("slow", &sha256, kept))));
        let rebuild = Rebuild::prepare(&shared, Some(folder.path()), None).expect("one file, two recipes");
        assert_eq!(rebuild.builds().len(), 2, "each arm's recipe");
        assert!(rebuild.plan_lines().contains("sources written there (1):"), "{}", rebuild.plan_lines());
        let other = compared(a, row(2, Some(recipe("slow", &"cd".repeat(32), None))));
        let refused = Rebuild::prepare(&other, Some(folder.path()), None).expect_err("two files, one name");
        assert!(refused.to_string().contains("source m.c: their two recipes name two different files"), "{refused}");
    }
}
