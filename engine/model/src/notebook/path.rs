//! Paths stored in a notebook (SPEC N1): relative, and never leaving the
//! notebook's folder — a notebook may come from someone else, written on
//! another OS. The check works on the text, not on `std::path`, so it
//! judges a path the same way on Linux, macOS and Windows: `C:x` is a
//! drive on Windows and a plain name on Linux, and both refuse it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Why a stored path is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// An empty string names nothing.
    #[error("empty path")]
    Empty,
    /// Absolute paths would point anywhere on the reader's machine.
    #[error("'{0}' is absolute; notebook paths are relative to the notebook folder")]
    Absolute(String),
    /// `..` could climb out of the folder.
    #[error("'{0}' leaves the notebook folder")]
    Escapes(String),
    /// A name Windows cannot hold (a `:` names a drive or a hidden stream
    /// there), so the notebook would not open on every OS.
    #[error("'{0}' contains ':', which Windows does not allow in a file name")]
    NotPortable(String),
    /// A control character or NUL has no business in a file name.
    #[error("'{0}' contains a control character")]
    ControlCharacter(String),
}

/// A path inside a notebook folder, such as `raw/run-3.csv`.
///
/// Checked when it is made and when it is read from `notebook.ron`, so a
/// value of this type is always relative, uses `/`, and has no `..`. A `\`
/// (a notebook written by hand on Windows) is read as `/` and stored as `/`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct NotebookPath(String);

impl NotebookPath {
    /// Checks `text` and wraps it.
    pub fn new(text: impl Into<String>) -> Result<Self, PathError> {
        let text = text.into();
        if text.is_empty() {
            return Err(PathError::Empty);
        }
        if text.chars().any(char::is_control) {
            return Err(PathError::ControlCharacter(text.escape_debug().to_string()));
        }
        let normal = text.replace('\\', "/");
        let drive = normal.as_bytes().get(..2).is_some_and(|p| p[0].is_ascii_alphabetic() && p[1] == b':');
        // `/x`, `//server/share` (from `\\server\share`) and `C:` are absolute somewhere.
        if normal.starts_with('/') || drive {
            return Err(PathError::Absolute(text));
        }
        for part in normal.split('/') {
            if part == ".." {
                return Err(PathError::Escapes(text));
            }
            if part.contains(':') {
                return Err(PathError::NotPortable(text));
            }
        }
        Ok(Self(normal))
    }

    /// The path as stored, with `/` separators.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The file this names inside `root`, refusing a symbolic link (or a
    /// linked parent folder) that resolves outside `root`.
    pub fn resolve(&self, root: &Path) -> Result<PathBuf, PathError> {
        self.resolve_in(&NotebookRoot::of(root))
    }

    /// [`NotebookPath::resolve`] inside a [`NotebookRoot`] whose real path was
    /// found once: a reader of every row's file (the audit's 10 000 raw
    /// files) resolves the folder once, not once a file.
    pub fn resolve_in(&self, root: &NotebookRoot) -> Result<PathBuf, PathError> {
        let joined = root.path.join(&self.0);
        let Some(real_root) = &root.real else {
            return Ok(joined);
        };
        // A file that is not a link is where its folder is: the folder,
        // resolved once for all the files in it, decides (one `lstat` a
        // file instead of one a component; issue 50).
        let not_a_link = std::fs::symlink_metadata(&joined).is_ok_and(|m| !m.file_type().is_symlink());
        if not_a_link && joined.parent().is_some_and(|folder| root.holds(folder)) {
            return Ok(joined);
        }
        // Canonicalise the deepest part that exists; what does not exist yet
        // cannot be a link.
        let mut existing = joined.as_path();
        while !existing.exists() {
            match existing.parent() {
                Some(parent) => existing = parent,
                None => return Ok(joined),
            }
        }
        match existing.canonicalize() {
            Ok(real) if real.starts_with(real_root) => Ok(joined),
            _ => Err(PathError::Escapes(self.0.clone())),
        }
    }
}

/// A notebook folder with its real path (links resolved), for resolving
/// many [`NotebookPath`]s in it.
#[derive(Debug)]
pub struct NotebookRoot {
    path: PathBuf,
    /// `None` when the folder cannot be resolved: paths are then joined to it
    /// unchecked, as [`NotebookPath::resolve`] has always done.
    real: Option<PathBuf>,
    /// Folders under `path` already found to resolve inside `real`. Kept for
    /// one pass over the rows (an audit), as `real` is.
    inside: std::sync::Mutex<std::collections::HashSet<PathBuf>>,
}

impl NotebookRoot {
    /// The folder `path`, resolved now.
    pub fn of(path: &Path) -> Self {
        Self { path: path.to_path_buf(), real: path.canonicalize().ok(), inside: Default::default() }
    }

    /// True when `folder` resolves inside the root: found once, then known.
    fn holds(&self, folder: &Path) -> bool {
        let Some(real) = &self.real else { return false };
        let mut inside = self.inside.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if inside.contains(folder) {
            return true;
        }
        let holds = folder.canonicalize().is_ok_and(|resolved| resolved.starts_with(real));
        if holds {
            inside.insert(folder.to_path_buf());
        }
        holds
    }
}

impl TryFrom<String> for NotebookPath {
    type Error = PathError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::new(text)
    }
}

impl From<NotebookPath> for String {
    fn from(path: NotebookPath) -> Self {
        path.0
    }
}

impl std::fmt::Display for NotebookPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N1: relative paths only, never out of the folder.
    #[test]
    fn refuses_escapes_and_absolute_paths() {
        assert!(NotebookPath::new("raw/run-1.csv").is_ok());
        assert!(NotebookPath::new("./raw/x.csv").is_ok());
        for bad in ["../../../etc/hostname", "raw/../../x", "/etc/passwd", "raw\\..\\x", "", "a\u{1}b"] {
            assert!(NotebookPath::new(bad).is_err(), "{bad:?} accepted");
        }
    }

    // SPEC N1: a path is judged the same on every OS; Windows separators
    // are read as `/`, and drives, shares and streams are refused everywhere.
    #[test]
    fn windows_paths_are_judged_the_same_everywhere() {
        assert_eq!(NotebookPath::new("raw\\run-3.csv").expect("a Windows separator").as_str(), "raw/run-3.csv");
        for absolute in ["C:\\Users\\x\\run.csv", "c:run.csv", "\\\\server\\share\\x", "\\x"] {
            assert!(matches!(NotebookPath::new(absolute), Err(PathError::Absolute(_))), "{absolute:?}");
        }
        assert!(matches!(NotebookPath::new("raw\\..\\..\\x"), Err(PathError::Escapes(_))));
        assert!(matches!(NotebookPath::new("raw/run.csv:hidden"), Err(PathError::NotPortable(_))));
    }

    // SPEC N1: a symbolic link out of the folder is refused.
    #[cfg(unix)]
    #[test]
    fn refuses_symlink_escape() {
        let outside = tempfile::tempdir().expect("tempdir");
        let root = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(root.path().join("raw")).expect("mkdir");
        std::os::unix::fs::symlink(outside.path(), root.path().join("raw/link")).expect("symlink");
        let path = NotebookPath::new("raw/link/secret.csv").expect("lexically fine");
        assert!(matches!(path.resolve(root.path()), Err(PathError::Escapes(_))));
        let inside = NotebookPath::new("raw/ok.csv").expect("fine");
        assert_eq!(inside.resolve(root.path()).expect("inside"), root.path().join("raw/ok.csv"));
    }

    // SPEC N1 (issue 50): a path resolved in a root resolved once is judged
    // as one resolved alone: inside, missing, and through a link out.
    #[cfg(unix)]
    #[test]
    fn a_root_resolved_once_judges_as_resolve() {
        let outside = tempfile::tempdir().expect("tempdir");
        let root = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(root.path().join("raw")).expect("mkdir");
        std::fs::write(root.path().join("raw/ok.csv"), "x").expect("file");
        std::os::unix::fs::symlink(outside.path(), root.path().join("raw/link")).expect("symlink");
        // Files that exist behind the links: a folder known inside must not
        // let a link in it, or a file through a linked folder, pass.
        std::fs::write(outside.path().join("secret.csv"), "x").expect("file outside");
        std::os::unix::fs::symlink(outside.path().join("secret.csv"), root.path().join("raw/file-link.csv"))
            .expect("symlink");
        let once = NotebookRoot::of(root.path());
        let gone = NotebookRoot::of(&root.path().join("no such folder"));
        for text in
            ["raw/ok.csv", "raw/missing.csv", "raw/link/secret.csv", "raw/link", "raw/file-link.csv", "raw/ok.csv"]
        {
            let path = NotebookPath::new(text).expect("lexically fine");
            assert_eq!(format!("{:?}", path.resolve_in(&once)), format!("{:?}", path.resolve(root.path())), "{text}");
            let alone = path.resolve(&root.path().join("no such folder"));
            assert_eq!(format!("{:?}", path.resolve_in(&gone)), format!("{alone:?}"), "{text}");
        }
        // `raw/` is known inside by now; what leads out of it is still refused.
        for text in ["raw/link/secret.csv", "raw/file-link.csv"] {
            let path = NotebookPath::new(text).expect("lexically fine");
            assert!(matches!(path.resolve_in(&once), Err(PathError::Escapes(_))), "{text}");
        }
    }
}
