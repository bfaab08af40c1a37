//! The hidden sheet's long texts, packed: deflated, then written as
//! base64, the letters a workbook cell holds. A semester's notebook is
//! 20 MB of text, and unpacked it was most of measurements.xlsx's shared
//! strings: every export compressed it inside the zip and every reader of
//! any sheet (the audit reads only the visible ones) parsed it. Packed, it
//! is a tenth of that, and only a reader of the notebook unpacks it
//! (issue 50).

use std::io::{Read, Write};

use base64::Engine as _;

/// The hidden sheet's statement of how its texts are packed; a workbook
/// without one holds them as they are (every workbook of layout 5 and
/// before).
pub(super) const DEFLATE_BASE64: &str = "deflate+base64";
/// The same packing, the notebook carried in its compact form
/// ([`to_compact`](crate::notebook::store::to_compact)) rather than as
/// text: written in a quarter of the time (issue 50).
pub(super) const COMPACT_DEFLATE_BASE64: &str = "deflate+base64, notebook compact";

/// `bytes`, deflated at the fastest level and written as base64.
pub(super) fn pack(bytes: &[u8]) -> std::io::Result<String> {
    let mut deflate = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    deflate.write_all(bytes)?;
    Ok(base64::engine::general_purpose::STANDARD.encode(deflate.finish()?))
}

/// Why a packed text cannot be unpacked.
#[derive(Debug, thiserror::Error)]
pub(super) enum UnpackError {
    #[error("the packed notebook is not base64 ({0})")]
    NotBase64(#[from] base64::DecodeError),
    #[error("the packed notebook does not inflate ({0})")]
    NotDeflate(#[from] std::io::Error),
    #[error("the packed notebook unpacks to more than {0} bytes")]
    TooLarge(u64),
    #[error("the packed notebook is not UTF-8 text")]
    NotText,
}

/// The bytes [`pack`] packed, refused when they are not base64 of deflated
/// data, or would unpack to more than `limit` bytes (a workbook is someone
/// else's file: a small cell must not unpack to gigabytes).
pub(super) fn unpack_bytes(packed: &str, limit: u64) -> Result<Vec<u8>, UnpackError> {
    let deflated = base64::engine::general_purpose::STANDARD.decode(packed.trim_end())?;
    let mut bytes = Vec::new();
    flate2::read::DeflateDecoder::new(deflated.as_slice()).take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(UnpackError::TooLarge(limit));
    }
    Ok(bytes)
}

/// [`unpack_bytes`] of a packed text, refused when it is not UTF-8.
pub(super) fn unpack(packed: &str, limit: u64) -> Result<String, UnpackError> {
    String::from_utf8(unpack_bytes(packed, limit)?).map_err(|_| UnpackError::NotText)
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC D4: what is packed unpacks to exactly the same text.
    #[test]
    fn packed_text_unpacks_to_itself() {
        let text = "Notebook(schema: 9, title: \"µs — ünïcode\")\n".repeat(1000);
        let packed = pack(text.as_bytes()).expect("packed");
        assert!(packed.len() < text.len() / 10, "{} bytes packed from {}", packed.len(), text.len());
        assert!(packed.chars().all(|c| c.is_ascii_alphanumeric() || "+/=".contains(c)));
        assert_eq!(unpack(&packed, 1 << 20).expect("unpacked"), text);
    }

    // SPEC D4: a hostile hidden sheet is refused, never unpacked past the
    // limit or taken as text.
    #[test]
    fn a_packed_text_past_the_limit_or_not_packed_is_refused() {
        let bomb = pack("0".repeat(10_000_000).as_bytes()).expect("packed");
        let err = unpack(&bomb, 1_000_000).expect_err("past the limit").to_string();
        assert!(err.contains("more than 1000000 bytes"), "{err}");
        assert!(unpack("Notebook(schema: 9)", 1 << 20).is_err());
        let not_deflate = base64::engine::general_purpose::STANDARD.encode(b"plain bytes, not deflate");
        assert!(unpack(&not_deflate, 1 << 20).is_err());
        let not_text = pack(&[0xff, 0xfe, 0x00]).expect("packed");
        assert!(matches!(unpack(&not_text, 1 << 20), Err(UnpackError::NotText)));
        assert_eq!(unpack_bytes(&not_text, 1 << 20).expect("bytes"), [0xff, 0xfe, 0x00]);
    }
}
