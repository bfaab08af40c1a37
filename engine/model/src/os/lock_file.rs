//! What the notebook folder's lock file (SPEC N10) needs from each OS:
//! opening it without following a link, telling whether the handle held is
//! still the file at the lock's path, and asking the OS who holds a lock.
//!
//! - Linux and macOS open with `O_NOFOLLOW`, so a symbolic link swapped in
//!   between a check and the open is refused by the open itself, and
//!   compare device and inode to notice a lock file deleted or replaced
//!   while it was held.
//! - Windows opens the link itself, never its target
//!   (`FILE_FLAG_OPEN_REPARSE_POINT`), and shares the file for reading and
//!   writing only: while any writer has it open, the OS refuses to delete or
//!   rename it, so the handle held is always the file at the path.
//! - Only Linux says which process holds a lock (`/proc/locks`); elsewhere
//!   the holder is known only from what it wrote into the file.

use std::fs::File;
use std::io;
use std::path::Path;

/// Opens (creating it if missing) the lock file at `path` for reading and
/// writing, never through a symbolic link, and refuses anything that is not
/// a regular file once opened.
pub fn open(path: &Path) -> io::Result<File> {
    let mut options = File::options();
    options.read(true).write(true).create(true).truncate(false);
    no_follow(&mut options);
    let file = options.open(path).map_err(|e| explain_link(path, e))?;
    let meta = file.metadata()?;
    if meta.file_type().is_symlink() {
        return Err(io::Error::other(format!(
            "{} is a symbolic link; Vernier never opens its lock through a link",
            path.display()
        )));
    }
    if !meta.is_file() {
        return Err(io::Error::other(format!("{} is not a regular file", path.display())));
    }
    Ok(file)
}

#[cfg(unix)]
fn no_follow(options: &mut std::fs::OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    // The bit pattern is the OS's own; the cast only changes its Rust type.
    #[allow(clippy::cast_possible_wrap)]
    options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
}

#[cfg(windows)]
fn no_follow(options: &mut std::fs::OpenOptions) {
    use std::os::windows::fs::OpenOptionsExt;
    use windows_sys::Win32::Storage::FileSystem::{FILE_FLAG_OPEN_REPARSE_POINT, FILE_SHARE_READ, FILE_SHARE_WRITE};
    // No FILE_SHARE_DELETE: nobody can delete or replace the lock file
    // while a writer has it open (see `is_at_path`).
    options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE);
}

#[cfg(not(any(unix, windows)))]
fn no_follow(_options: &mut std::fs::OpenOptions) {}

/// `O_NOFOLLOW` on a link fails with `ELOOP` ("too many levels of symbolic
/// links"), which would puzzle a student: say what it means.
fn explain_link(path: &Path, e: io::Error) -> io::Error {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link {
        io::Error::other(format!("{} is a symbolic link; Vernier never opens its lock through a link", path.display()))
    } else {
        e
    }
}

/// True when `file` is still the file at `path`: not deleted, renamed away
/// or replaced since it was opened.
#[cfg(unix)]
pub fn is_at_path(file: &File, path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let held = file.metadata()?;
    match std::fs::symlink_metadata(path) {
        Ok(now) => Ok(now.dev() == held.dev() && now.ino() == held.ino()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// True when `file` is still the file at `path`. Windows refuses to delete
/// or rename a file opened without `FILE_SHARE_DELETE`, as every lock
/// handle is, so the one held is always the one at the path.
#[cfg(not(unix))]
pub fn is_at_path(_file: &File, _path: &Path) -> io::Result<bool> {
    Ok(true)
}

/// The process the OS says holds a lock on `file`, where the OS says it.
#[cfg(target_os = "linux")]
pub fn os_holder(file: &File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata().ok()?;
    let text =
        crate::bounded::read_bounded(Path::new("/proc/locks"), 4 * 1024 * 1024, "the kernel's lock list").ok()?;
    let device = (rustix::fs::major(meta.dev()), rustix::fs::minor(meta.dev()));
    holder_in_proc_locks(&String::from_utf8_lossy(&text), device, meta.ino())
}

/// The process the OS says holds a lock on `file`: not said on this OS.
#[cfg(not(target_os = "linux"))]
pub fn os_holder(_file: &File) -> Option<u32> {
    None
}

/// The pid holding a lock on inode `ino` of the device `major:minor` in the
/// text of `/proc/locks` (`1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF`;
/// a waiter's line has `->` after its number and is skipped).
#[cfg(target_os = "linux")]
fn holder_in_proc_locks(text: &str, (major, minor): (u32, u32), ino: u64) -> Option<u32> {
    text.lines().find_map(|line| {
        let mut words = line.split_whitespace().skip(1);
        if words.next()? == "->" {
            return None;
        }
        let pid = words.nth(2)?.parse().ok()?;
        let mut id = words.next()?.split(':');
        let (maj, min, inode) = (id.next()?, id.next()?, id.next()?);
        let same = u32::from_str_radix(maj, 16).ok()? == major
            && u32::from_str_radix(min, 16).ok()? == minor
            && inode.parse::<u64>().ok()? == ino;
        same.then_some(pid)
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    // SPEC N10: the holder is read from the kernel's list by device and inode.
    #[cfg(target_os = "linux")]
    #[test]
    fn proc_locks_names_the_holder_of_one_inode() {
        let text = "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF\n\
                    1: -> FLOCK  ADVISORY  WRITE 5555 fd:01:1234 0 EOF\n\
                    2: POSIX  ADVISORY  WRITE 77 08:02:99 0 EOF\n";
        assert_eq!(holder_in_proc_locks(text, (0xfd, 1), 1234), Some(4242));
        assert_eq!(holder_in_proc_locks(text, (0x08, 2), 99), Some(77));
        assert_eq!(holder_in_proc_locks(text, (0xfd, 1), 4321), None);
        assert_eq!(holder_in_proc_locks("garbage\n\n1:\n", (1, 1), 1), None);
    }

    // SPEC N10: a lock file is never opened through a link.
    #[cfg(unix)]
    #[test]
    fn a_link_at_the_lock_path_is_refused_and_its_target_not_created() {
        let tmp = tempfile::tempdir().expect("tmp");
        let outside = tmp.path().join("outside");
        let lock = tmp.path().join(".vernier.lock");
        std::os::unix::fs::symlink(&outside, &lock).expect("link");
        let e = open(&lock).expect_err("a link is refused");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(!outside.exists(), "nothing is created through the link");
    }

    // SPEC N10: a lock file deleted or replaced while held is noticed.
    #[cfg(unix)]
    #[test]
    fn a_deleted_or_replaced_lock_file_is_no_longer_at_its_path() {
        let tmp = tempfile::tempdir().expect("tmp");
        let path = tmp.path().join(".vernier.lock");
        let held = open(&path).expect("open");
        assert!(is_at_path(&held, &path).expect("check"));
        std::fs::remove_file(&path).expect("rm");
        assert!(!is_at_path(&held, &path).expect("check"), "deleted");
        let _other = open(&path).expect("a new lock file");
        assert!(!is_at_path(&held, &path).expect("check"), "replaced");
    }
}
