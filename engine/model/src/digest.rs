//! SHA-256 as Vernier writes it everywhere — the prediction chain, raw
//! files, programs, documents: lower-case hex.

use sha2::{Digest, Sha256};

/// Lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        // Writing to a String cannot fail.
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// SHA-256 of several byte strings in turn, each preceded by its length so
/// that no two different lists give the same bytes, in lower-case hex.
pub fn sha256_hex_parts(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hex(&hasher.finalize())
}

/// BLAKE3 of several byte strings in turn, each preceded by its length,
/// in lower-case hex: a digest of a large notebook's bytes that costs a
/// tenth of [`sha256_hex_parts`] (issue 50), for a record only this
/// user's Vernier compares.
pub fn blake3_hex_parts(parts: &[&[u8]]) -> String {
    let mut hasher = Blake3Parts::default();
    for part in parts {
        hasher.part(part);
    }
    hasher.hex()
}

/// [`blake3_hex_parts`] part by part, its digest so far to be had at any
/// part: a notebook's bytes are hashed once for both the parsed cache's
/// key (the bytes alone) and the load's digest (the bytes, then the
/// journal's; issue 50).
#[derive(Default, Clone)]
pub struct Blake3Parts(blake3::Hasher);

impl Blake3Parts {
    /// Adds `part`, preceded by its length.
    pub fn part(&mut self, part: &[u8]) {
        self.0.update(&(part.len() as u64).to_le_bytes());
        self.0.update(part);
    }

    /// The digest of the parts so far, in lower-case hex.
    pub fn hex(&self) -> String {
        self.0.finalize().to_hex().to_string()
    }
}

/// Whether `text` is a SHA-256 as a record holds it: 64 hex digits. A
/// hash read from someone's file is checked with it before it is shown or
/// compared, so it cannot carry a line break or a path.
pub fn is_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}
