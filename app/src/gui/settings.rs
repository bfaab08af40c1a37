//! What the window remembers between sessions (eframe storage): never the
//! notebook itself, which lives in its folder. eframe keeps it in each OS's
//! usual place: `~/.local/share/vernier` on Linux, `~/Library/Application
//! Support/vernier` on macOS, `%APPDATA%\vernier\data` on Windows.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Persisted UI settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Most recent first, at most [`RECENT_LIMIT`].
    pub recent: Vec<PathBuf>,
    /// Dark theme (the default) or light.
    pub dark: bool,
}

/// How many recent notebooks the File menu lists.
pub const RECENT_LIMIT: usize = 8;

/// The key under which eframe stores the settings.
pub const KEY: &str = "vernier-settings";

impl Default for Settings {
    fn default() -> Self {
        Self { recent: Vec::new(), dark: true }
    }
}

impl Settings {
    /// Puts `dir` at the top of the recent list.
    pub fn remember(&mut self, dir: &std::path::Path) {
        self.recent.retain(|p| p != dir);
        self.recent.insert(0, dir.to_path_buf());
        self.recent.truncate(RECENT_LIMIT);
    }
}
