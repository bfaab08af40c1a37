//! The one way Vernier reads a file that may be someone else's (SPEC N10,
//! D4, E15): only a regular file, and never more than a stated number of
//! bytes, counted as they arrive.
//!
//! The file type is checked before opening because opening a FIFO for
//! reading blocks until a writer appears, and a device such as `/dev/zero`
//! reports a length of 0 while giving bytes for ever: neither the length in
//! the metadata nor the name can be trusted, only the type and the bytes
//! actually read.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// A file was refused or could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A FIFO, device, socket or folder: reading it could block or never end.
    #[error("{} is {kind}, not a regular file; only regular files are read", path.display())]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is instead, in words.
        kind: &'static str,
    },
    /// More bytes arrived than the limit for this kind of file.
    #[error("{} is larger than the {limit}-byte limit for {what}; it was not read", path.display())]
    TooLarge {
        /// The path given.
        path: PathBuf,
        /// The limit.
        limit: u64,
        /// What the file was read as ("a notebook", "a workbook", …).
        what: &'static str,
    },
    /// What the OS said.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The path given.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
}

impl ReadError {
    /// True when the file is not there at all (a missing file is often an
    /// answer, not an error).
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }
}

/// A regular file opened for reading, which fails with
/// [`ReadError::TooLarge`] once more than its limit has been read.
pub struct BoundedFile {
    inner: io::Take<File>,
    path: PathBuf,
    limit: u64,
    what: &'static str,
    /// Its size when opened: room for the whole file at once.
    size: u64,
    /// What the file opened was when it was opened.
    opened: std::fs::Metadata,
}

impl BoundedFile {
    /// Opens `path` (following symlinks: their target is what is read) if
    /// it is a regular file; `what` names the kind of file in messages.
    pub fn open(path: &Path, limit: u64, what: &'static str) -> Result<Self, ReadError> {
        let io_error = |source| ReadError::Io { path: path.to_path_buf(), source };
        check_type(path, &std::fs::metadata(path).map_err(io_error)?.file_type())?;
        let file = open_without_blocking(path).map_err(io_error)?;
        // The path may have been swapped between the check and the open.
        let meta = file.metadata().map_err(io_error)?;
        check_type(path, &meta.file_type())?;
        Ok(Self {
            inner: file.take(limit.saturating_add(1)),
            path: path.to_path_buf(),
            limit,
            what,
            size: meta.len(),
            opened: meta,
        })
    }

    /// What the file opened was when it was opened (its metadata through
    /// the open handle): the file whose bytes [`BoundedFile::read_all`]
    /// reads, whatever its path names by then.
    pub fn opened(&self) -> &std::fs::Metadata {
        &self.opened
    }

    /// Reads everything, or refuses as soon as the limit is passed.
    pub fn read_all(self) -> Result<Vec<u8>, ReadError> {
        let file = self.inner.into_inner();
        // Room for the whole file at once: growing the buffer as a 20 MB
        // notebook arrives costs more than reading it (issue 50).
        let size = self.size.min(self.limit);
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
        fill(file, &mut bytes, &self.path, self.limit, self.what)?;
        Ok(bytes)
    }

    fn check(&self, read: usize) -> Result<(), ReadError> {
        if read as u64 > self.limit {
            return Err(ReadError::TooLarge { path: self.path.clone(), limit: self.limit, what: self.what });
        }
        Ok(())
    }
}

/// Streams the file; a read past the limit fails with an error of kind
/// `FileTooLarge` whose message is the [`ReadError::TooLarge`] sentence.
impl Read for BoundedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let total = self.limit.saturating_add(1) - self.inner.limit();
        self.check(usize::try_from(total).unwrap_or(usize::MAX))
            .map_err(|e| io::Error::new(io::ErrorKind::FileTooLarge, e.to_string()))?;
        Ok(n)
    }
}

/// Reads the whole of `path`, a regular file of at most `limit` bytes;
/// `what` names the kind of file in messages ("a notebook").
pub fn read_bounded(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>, ReadError> {
    BoundedFile::open(path, limit, what)?.read_all()
}

/// Reads all of `reader` (standard input, say), refusing it once more than
/// `limit` bytes arrive; `name` stands for its path in messages.
pub fn read_stream(reader: impl Read, name: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    fill(reader, &mut bytes, name, limit, what)?;
    Ok(bytes)
}

/// Appends all of `reader` to `bytes`, refusing once more than `limit` arrive.
fn fill(reader: impl Read, bytes: &mut Vec<u8>, name: &Path, limit: u64, what: &'static str) -> Result<(), ReadError> {
    reader
        .take(limit.saturating_add(1))
        .read_to_end(bytes)
        .map_err(|source| ReadError::Io { path: name.to_path_buf(), source })?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { path: name.to_path_buf(), limit, what });
    }
    Ok(())
}

/// The UTF-8 byte-order mark, which Notepad and Excel put at the start of a
/// text file they save.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A text file's bytes without a leading byte-order mark: it says only that
/// the file is UTF-8, so every text Vernier reads (a notebook, a soak CSV,
/// numbers, an import) accepts one; Vernier never writes one.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// [`read_bounded`] as UTF-8 text, without a byte-order mark.
pub fn read_text_bounded(path: &Path, limit: u64, what: &'static str) -> Result<String, ReadError> {
    let mut bytes = read_bounded(path, limit, what)?;
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    String::from_utf8(bytes).map_err(|e| ReadError::Io {
        path: path.to_path_buf(),
        source: io::Error::new(io::ErrorKind::InvalidData, format!("not UTF-8 text: {}", e.utf8_error())),
    })
}

fn check_type(path: &Path, file_type: &std::fs::FileType) -> Result<(), ReadError> {
    if file_type.is_file() {
        return Ok(());
    }
    Err(ReadError::NotAFile { path: path.to_path_buf(), kind: kind_of(file_type) })
}

/// What a file that is not a regular file is, in words.
fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "a device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() { "a folder" } else { "not a regular file" }
}

/// Opens for reading without waiting for a writer if the path has become a
/// FIFO since it was checked (the check after opening then refuses it).
#[cfg(unix)]
fn open_without_blocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new().read(true).custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32).open(path)
}

/// Elsewhere a named pipe cannot sit at a path that was just checked to be
/// a regular file.
#[cfg(not(unix))]
fn open_without_blocking(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N10: the limit counts the bytes read, not what the metadata claims.
    #[test]
    fn a_file_is_read_up_to_its_limit_and_refused_past_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f");
        std::fs::write(&path, b"12345").expect("write");
        assert_eq!(read_bounded(&path, 5, "a test file").expect("fits"), b"12345");
        let refused = read_bounded(&path, 4, "a test file").expect_err("too large");
        assert!(matches!(refused, ReadError::TooLarge { limit: 4, .. }), "{refused}");
        let mut streamed = Vec::new();
        let e = BoundedFile::open(&path, 4, "a test file").expect("opens").read_to_end(&mut streamed);
        assert_eq!(e.expect_err("refused").kind(), io::ErrorKind::FileTooLarge);
        assert!(read_bounded(dir.path(), 10, "a test file").is_err_and(|e| matches!(e, ReadError::NotAFile { .. })));
        assert!(read_bounded(&dir.path().join("missing"), 10, "a test file").is_err_and(|e| e.is_not_found()));
    }

    // SPEC N10: a device reports length 0 and never ends; it is refused by type.
    #[cfg(unix)]
    #[test]
    fn a_device_is_refused_by_type() {
        let refused = read_bounded(Path::new("/dev/zero"), 10, "a test file").expect_err("refused");
        assert!(refused.to_string().contains("a device"), "{refused}");
    }
}
