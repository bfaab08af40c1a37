//! The notebook the app opens when it is given none (SPEC U6).

use std::path::PathBuf;

use anyhow::Context as _;
use vernier_engine::notebook::store;

/// Where the scratch notebook lives: the user's data folder, `vernier/scratch`
/// under `~/.local/share` on Linux, `~/Library/Application Support` on macOS
/// and `%APPDATA%` (`…\AppData\Roaming`) on Windows; the temp folder when
/// there is no home.
pub fn scratch_dir() -> PathBuf {
    dirs::data_dir().unwrap_or_else(std::env::temp_dir).join("vernier").join("scratch")
}

/// The scratch notebook's folder, created on first use so the app always
/// opens on a working notebook.
pub fn ensure_scratch() -> anyhow::Result<PathBuf> {
    let dir = scratch_dir();
    if !dir.join(store::NOTEBOOK_FILE).exists() {
        store::create(&dir, "Scratch notebook", chrono::Utc::now())
            .with_context(|| format!("creating the scratch notebook in {}", dir.display()))?;
    }
    Ok(dir)
}
