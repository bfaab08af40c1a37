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

/// What tells one version of a file from another without reading it: its
/// device and inode, size, and modification and change times. The change
/// time is the kernel's (no user call sets it), so an edit that puts the
/// size and modification time back still shows — on a file system whose
/// change times only the running kernel writes ([`kernel_keeps_change_times`]).
/// `None` where the OS offers no change time (Windows: its times are all
/// settable), so there every file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileIdentity {
    device: u64,
    inode: u64,
    len: u64,
    modified_ns: i128,
    changed_ns: i128,
}

impl FileIdentity {
    /// The identity of the regular file `meta` describes (`None` for
    /// anything else: from `symlink_metadata`, a link is no file here).
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> Option<FileIdentity> {
        use std::os::unix::fs::MetadataExt as _;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        meta.file_type().is_file().then(|| FileIdentity {
            device: meta.dev(),
            inode: meta.ino(),
            len: meta.len(),
            modified_ns: ns(meta.mtime(), meta.mtime_nsec()),
            changed_ns: ns(meta.ctime(), meta.ctime_nsec()),
        })
    }

    /// Not available: this OS has no change time a user cannot set.
    #[cfg(not(unix))]
    pub fn of(_meta: &std::fs::Metadata) -> Option<FileIdentity> {
        None
    }

    /// True when the file last changed at least `margin` before `now`: a
    /// change within the same tick of the file system's clock could leave
    /// the identity as it was, so a file changed just now is not yet told
    /// apart by it.
    pub fn settled(&self, now: std::time::SystemTime, margin: std::time::Duration) -> bool {
        let now = now.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i128);
        self.changed_ns + margin.as_nanos() as i128 <= now
    }
}

/// True when the files under `path` are on a file system whose change
/// times only the running kernel writes: a local disk formatted by Linux
/// (ext2–4, XFS, Btrfs, F2FS, ZFS, bcachefs, tmpfs, overlay) or macOS (APFS,
/// HFS+). Elsewhere — a FAT or exFAT stick, NTFS, a network share — a
/// change time comes from the disk or the server and can be set by whoever
/// writes it, so it tells no version from another.
#[cfg(target_os = "linux")]
pub fn kernel_keeps_change_times(path: &Path) -> bool {
    /// The file systems' magic numbers (`statfs(2)`).
    const LOCAL: [i128; 8] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // XFS
        0x9123_683E, // Btrfs
        0xF2F5_2010, // F2FS
        0x2FC1_2FC1, // ZFS
        0xCA45_1A4E, // bcachefs
        0x0102_1994, // tmpfs
        0x794C_7630, // overlay
    ];
    rustix::fs::statfs(path).is_ok_and(|s| LOCAL.contains(&i128::from(s.f_type)))
}

/// True when the files under `path` are on APFS or HFS+ (see the Linux
/// counterpart).
#[cfg(target_os = "macos")]
pub fn kernel_keeps_change_times(path: &Path) -> bool {
    rustix::fs::statfs(path).is_ok_and(|s| {
        let name: Vec<u8> = s.f_fstypename.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
        name == b"apfs" || name == b"hfs"
    })
}

/// Not available: no change time here is the kernel's alone.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub fn kernel_keeps_change_times(_path: &Path) -> bool {
    false
}
