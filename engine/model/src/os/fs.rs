//! What the atomic save (SPEC N7) needs from each file system.
//!
//! On Linux and macOS a rename is made durable by syncing the folder that
//! holds it. Windows cannot open a folder as a file (and NTFS journals the
//! rename itself), so there the folder sync is a no-op; `std::fs::rename`
//! replaces an existing file there too (`MoveFileExW` with
//! `MOVEFILE_REPLACE_EXISTING`), but fails while another program (a virus
//! scanner, the search indexer) briefly holds the target open, so the rename
//! is retried a few times before the save is reported as failed.

use std::io;
use std::path::Path;

/// Flushes a folder so a rename inside it survives a power cut.
#[cfg(unix)]
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// Flushes a folder so a rename inside it survives a power cut.
#[cfg(not(unix))]
pub fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// Renames `from` over an existing or missing `to`.
pub fn rename_over(from: &Path, to: &Path) -> io::Result<()> {
    /// Attempts on Windows, 20 ms apart; one everywhere else.
    const ATTEMPTS: u32 = if cfg!(windows) { 10 } else { 1 };
    let mut attempt = 1;
    loop {
        match std::fs::rename(from, to) {
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied && attempt < ATTEMPTS => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            done => return done,
        }
    }
}
