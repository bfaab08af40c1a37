//! Starting the command a student typed: which shell runs a `--shell`
//! command, and what counts as an executable on `PATH`, differ by OS.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The shell and its "run this string" flag.
pub const SHELL: [&str; 2] = if cfg!(windows) { ["cmd", "/C"] } else { ["/bin/sh", "-c"] };

/// A command line the student typed (`--vs`, the window's command field)
/// split into words by this OS's rules: POSIX shell quoting on Linux and
/// macOS; on Windows the C runtime's (`CommandLineToArgvW`), where a
/// backslash is a path separator, not an escape (`.\\work.exe`,
/// `C:\\tools\\x.exe`). `None` when the quoting does not close.
pub fn split_command(line: &str) -> Option<Vec<String>> {
    #[cfg(windows)]
    {
        Some(winsplit::split(line))
    }
    #[cfg(not(windows))]
    {
        shlex::split(line)
    }
}

/// `script` as an argument vector for [`SHELL`].
pub fn shell_argv(script: &str) -> Vec<String> {
    vec![SHELL[0].to_owned(), SHELL[1].to_owned(), script.to_owned()]
}

/// Whether `program` names an executable file, directly (when it holds a
/// separator) or in one of the folders of `path` (the `PATH` variable).
/// On Windows a name is also tried with each extension of `%PATHEXT%`
/// appended, as `cmd` does.
pub fn is_on_path(program: &str, path: Option<&OsStr>) -> bool {
    find_on_path(program, path).is_some()
}

/// The executable file `program` names, found as [`is_on_path`] finds it:
/// the file that runs when the command starts.
pub fn find_on_path(program: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    find_with(program, path, &extensions())
}

/// [`find_on_path`] with the extensions to try given.
fn find_with(program: &str, path: Option<&OsStr>, extensions: &[String]) -> Option<PathBuf> {
    let found = |p: &Path| {
        std::iter::once(p.to_path_buf())
            .chain(extensions.iter().map(|ext| {
                let mut with_ext = p.as_os_str().to_owned();
                with_ext.push(ext);
                PathBuf::from(with_ext)
            }))
            .find(|candidate| is_executable(candidate))
    };
    if program.contains('/') || (cfg!(windows) && program.contains('\\')) {
        found(Path::new(program))
    } else {
        std::env::split_paths(path?).find_map(|dir| found(&dir.join(program)))
    }
}

/// Extensions `cmd` adds to a bare program name (none outside Windows).
fn extensions() -> Vec<String> {
    if !cfg!(windows) {
        return Vec::new();
    }
    let listed = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
    listed.split(';').filter(|e| !e.is_empty()).map(str::to_owned).collect()
}

/// `RUSTUP_TOOLCHAIN` set to the user's default toolchain, for a command
/// or a probe from someone else's files (SPEC N13, R5): rustup then reads
/// no `rust-toolchain.toml` of the folder it runs in, which could name a
/// toolchain of theirs. `None` when the variable is set already (the
/// user's own choice, inherited) or no default is known (no rustup, whose
/// proxies are then not what runs).
pub fn pinned_toolchain() -> Option<(String, std::ffi::OsString)> {
    if std::env::var_os("RUSTUP_TOOLCHAIN").is_some() {
        return None;
    }
    let home = std::env::var_os("RUSTUP_HOME").map(PathBuf::from).or_else(|| {
        let home = std::env::var_os(if cfg!(windows) { "USERPROFILE" } else { "HOME" })?;
        Some(PathBuf::from(home).join(".rustup"))
    })?;
    let settings =
        vernier_model::bounded::read_bounded(&home.join("settings.toml"), 1 << 16, "rustup's settings").ok()?;
    let text = String::from_utf8_lossy(&settings);
    let default = text.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "default_toolchain").then(|| value.trim().trim_matches('"').to_owned())
    })?;
    (!default.is_empty()).then(|| ("RUSTUP_TOOLCHAIN".to_owned(), default.into()))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Windows has no execute bit: any file is started by its extension.
#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    // SPEC E2: a typed command is split by this OS's rules; on Windows a
    // backslash stays in a path (the C runtime's rules).
    #[test]
    fn a_typed_command_splits_by_this_os_rules() {
        #[cfg(windows)]
        {
            assert_eq!(super::split_command(r".\work.exe 4000000"), Some(vec![r".\work.exe".into(), "4000000".into()]));
            assert_eq!(
                super::split_command(r#""C:\Program Files\x.exe" -n 1"#),
                Some(vec![r"C:\Program Files\x.exe".into(), "-n".into(), "1".into()])
            );
        }
        #[cfg(not(windows))]
        {
            assert_eq!(super::split_command("./work 'a b'"), Some(vec!["./work".into(), "a b".into()]));
            assert_eq!(super::split_command("./work 'open"), None);
        }
    }

    use super::*;

    // SPEC E2: a typo is found before any warm-up, on PATH or by path.
    #[test]
    fn finds_programs_on_a_path() {
        let dir = tempfile::tempdir().expect("tmp");
        let tool = dir.path().join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let path = std::env::join_paths([dir.path()]).expect("join");
        assert!(is_on_path("tool", Some(&path)));
        assert!(!is_on_path("no-such-tool", Some(&path)));
        assert!(!is_on_path("tool", None));
        assert!(is_on_path(&tool.to_string_lossy(), None));
        assert_eq!(shell_argv("echo hi").len(), 3);
        // As on Windows: `python3.11` is found as `python3.11.EXE`.
        std::fs::rename(&tool, dir.path().join("python3.11.EXE")).expect("rename");
        assert!(find_with("python3.11", Some(&path), &[".COM".into(), ".EXE".into()]).is_some());
        assert!(find_with("python3.11", Some(&path), &[]).is_none());
    }
}
