//! The build-recipe part of a `notebook.ron` from anyone (SPEC N15, R5):
//! whatever loads, its recipes' lines, the names their sources would be
//! kept and rebuilt under, and the rebuild's sentence must never panic, and
//! a source name accepted for a rebuild never leaves the scratch folder.
//! Each row as reproduce reads it tells its arms' recipes apart (one, or
//! arm A's and arm B's), and a rebuild of it from no folder (a workbook)
//! is refused before anything is made.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vernier_engine::notebook::{is_confined, kept_name, rebuild_sentence, store};
use vernier_engine::reproduce::{Original, Rebuild, RebuildError};

fuzz_target!(|data: &[u8]| {
    let Ok(notebook) = store::from_bytes(data, std::path::Path::new("fuzz/notebook.ron")) else { return };
    for run in notebook.runs() {
        if let Ok(original) = Original::from_notebook(&notebook, run.number) {
            let recipes = original.recipes();
            assert!(recipes.len() <= original.arms().len(), "one recipe shown per arm at most");
            assert!(recipes.iter().all(|(arm, _)| ["", "A", "B"].contains(arm)));
            let refused = Rebuild::prepare(&original, None, None).expect_err("no folder: nothing to rebuild from");
            assert!(matches!(refused, RebuildError::NoRecipe(_) | RebuildError::Workbook), "{refused}");
        }
        let Some(recipe) = &run.measurement.recipe else { continue };
        let _ = (recipe.lines(), recipe.condition_text(), recipe.build_text(), recipe.command());
        let _ = rebuild_sentence(recipe, &recipe.program_sha256, &recipe.compiler);
        for source in &recipe.sources {
            let name = kept_name(&source.sha256, &source.path);
            assert!(!name.contains('/') && !name.contains('\\') && !name.contains(".."), "{name}");
            if is_confined(&source.path) {
                let path = std::path::Path::new(&source.path);
                assert!(path.is_relative(), "{}", source.path);
                assert!(path.components().all(|c| matches!(c, std::path::Component::Normal(_))), "{}", source.path);
            }
        }
    }
});
