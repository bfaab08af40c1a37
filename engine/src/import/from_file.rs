//! What the Google Benchmark and pyperf readers share: the values a file
//! states about the machine that measured it, kept as the row's conditions
//! under their own names and marked "from the file" (SPEC E14), so no face
//! can take them for what Vernier read on this machine.
//!
//! Both files are someone else's: every key and value is shown inert, a
//! long value is cut, and a file with very many entries keeps only the
//! first ones as conditions (all of them stay in the raw copy).

use std::path::Path;

use serde_json::Value;

use crate::display::inert_line;
use crate::notebook::Condition;

/// At most this many of a file's own entries become conditions of a row.
pub const MAX_ENTRIES: usize = 40;

/// A key or value longer than this many characters is cut, with `…`.
const MAX_CHARS: usize = 300;

/// The marker every condition taken from the file carries in its name.
pub const FROM_THE_FILE: &str = "(from the file)";

/// `text`, inert and at most [`MAX_CHARS`] characters long.
pub fn shown(text: &str) -> String {
    let mut cut: String = text.chars().take(MAX_CHARS).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    inert_line(cut)
}

/// The file's name as rows and messages show it: its last component, inert.
pub fn file_name(file: &Path) -> String {
    let name = file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
    shown(&name)
}

/// A value of the file as text: a string as it is, a number or a boolean
/// as JSON writes it, a list of scalars joined by commas, anything else
/// as compact JSON.
pub fn json_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) if items.iter().all(|v| !v.is_array() && !v.is_object()) => {
            items.iter().map(json_text).collect::<Vec<_>>().join(", ")
        }
        other => other.to_string(),
    }
}

/// What serde_json found wrong, without the place it appends ("at line 3
/// column 7"): the error message names the place once, as `FILE:3:7`.
pub fn json_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&place).map_or_else(|| full.clone(), str::to_owned)
}

/// The condition `KEY (from the file)` = `value`, both inert and cut.
pub fn condition(key: &str, value: &str) -> Condition {
    Condition { field: format!("{} {FROM_THE_FILE}", shown(key)), value: shown(value) }
}

/// The file's own entries as conditions, at most [`MAX_ENTRIES`] of them,
/// each value written by `text`; one more condition says how many were
/// left out.
pub fn conditions<'a>(
    entries: impl Iterator<Item = (&'a String, &'a Value)>,
    text: impl Fn(&str, &Value) -> String,
) -> Vec<Condition> {
    let entries: Vec<(&String, &Value)> = entries.collect();
    let mut out: Vec<Condition> =
        entries.iter().take(MAX_ENTRIES).map(|(key, value)| condition(key, &text(key, value))).collect();
    if entries.len() > MAX_ENTRIES {
        out.push(condition("more entries", &format!("{} more, kept in the raw file", entries.len() - MAX_ENTRIES)));
    }
    out
}

/// The machine a tool's file says it measured on, from the first of each
/// group of `keys` the file holds (`host_name`, then `num_cpus` …), as one
/// condition the audit's A2 accepts: the tool wrote it when it measured.
/// `None` when the file names no machine.
pub fn machine(entries: &serde_json::Map<String, Value>, keys: &[(&str, &str)]) -> Option<Condition> {
    let parts: Vec<String> = keys
        .iter()
        .filter_map(|(key, label)| {
            let value = json_text(entries.get(*key)?);
            (!value.trim().is_empty()).then(|| if label.is_empty() { value } else { format!("{value} {label}") })
        })
        .collect();
    (!parts.is_empty()).then(|| Condition::new(crate::notebook::ConditionName::FileMachine, shown(&parts.join(", "))))
}

/// The bytes of a tool's JSON file as text, or where they stop being UTF-8
/// (line and column, as a JSON error names them).
pub fn utf8<'a>(file: &Path, bytes: &'a [u8], tool: &'static str) -> Result<&'a str, super::ImportError> {
    let bytes = crate::bounded::without_bom(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let before = &bytes[..e.valid_up_to()];
        super::ImportError::Format {
            path: file.to_path_buf(),
            tool,
            line: before.iter().filter(|&&b| b == b'\n').count() + 1,
            column: before.iter().rev().take_while(|&&b| b != b'\n').count() + 1,
            message: "not UTF-8 text".into(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC E14, N10: a value from the file is shown inert and cut, and
    // its name says where it came from.
    #[test]
    fn values_from_the_file_are_inert_cut_and_marked() {
        let c = condition("host\u{1b}[2J", &"x".repeat(400));
        assert!(c.field.ends_with("(from the file)") && !c.field.contains('\u{1b}'), "{}", c.field);
        assert_eq!(c.value.chars().count(), MAX_CHARS + 1);
        assert_eq!(json_text(&serde_json::json!([0.5, 1, "a"])), "0.5, 1, a");
        assert_eq!(json_text(&serde_json::json!({"a": 1})), "{\"a\":1}");
        let many: serde_json::Map<String, Value> = (0..50).map(|k| (format!("k{k}"), Value::from(k))).collect();
        let all = conditions(many.iter(), |_, v| json_text(v));
        assert_eq!(all.len(), MAX_ENTRIES + 1);
        assert_eq!(all[MAX_ENTRIES].value, "10 more, kept in the raw file");
    }
}
