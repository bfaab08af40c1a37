//! Time stamps in `notebook.ron`, in exactly one spelling.
//!
//! RFC 3339 allows several spellings of one instant (`T` or `t`, `Z` or
//! `+00:00`, trailing zeros). A sealed row must change its hash whenever its
//! bytes change, so only the canonical spelling Vernier writes is accepted:
//! any other is an edit made by hand and is refused on load.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

/// The one spelling: `2026-11-30T09:00:10.123456789Z` (UTC, only the
/// fractional digits the instant needs).
pub fn canonical(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// `#[serde(serialize_with)]` for a time stamp.
pub fn serialize<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&canonical(at))
}

/// `#[serde(deserialize_with)]` for a time stamp: canonical spelling only.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
    let text = String::deserialize(deserializer)?;
    let at = DateTime::parse_from_rfc3339(&text)
        .map_err(|e| D::Error::custom(format!("'{text}' is not a time stamp: {e}")))?
        .with_timezone(&Utc);
    if canonical(&at) != text {
        return Err(D::Error::custom(format!(
            "time stamp '{text}' is not in the form Vernier writes ('{}'): edited by hand?",
            canonical(&at)
        )));
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Row {
        #[serde(with = "super")]
        at: DateTime<Utc>,
    }

    #[test]
    fn only_the_canonical_spelling_loads() {
        let text = r#"(at:"2026-11-30T09:00:10.500Z")"#;
        let row: Row = ron::from_str(text).expect("canonical");
        assert_eq!(ron::to_string(&row).expect("ser"), text);
        for other in ["2026-11-30t09:00:10.500Z", "2026-11-30T09:00:10.500+00:00", "2026-11-30T09:00:10.5Z"] {
            assert!(ron::from_str::<Row>(&format!(r#"(at: "{other}")"#)).is_err(), "{other} accepted");
        }
    }
}
