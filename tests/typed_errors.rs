//! Issue 46 item 5: typed errors in the engine. No function an engine
//! crate lets others call (`pub`, `pub(crate)`, `pub(super)` …) returns
//! `Result<_, String>`: a caller then matches what failed instead of
//! reading a sentence, and an error that wraps another keeps it as its
//! source. Read from the sources, as `layers.rs` reads the modules.

use std::path::Path;

use crate::layers::{root, rust_files};

/// The engine crates' sources (the fuzz crate is cargo-fuzz's, not the engine's).
const ENGINE_SOURCES: [&str; 3] = ["engine/src", "engine/model/src", "engine/instrument/src"];

/// `text` with its comments and string and character literals blanked to
/// spaces, one for one and newlines kept, so that a signature quoted in a
/// doc comment or a message is not taken for one and lines still count.
pub(crate) fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let at = |i: usize| chars.get(i).copied();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && at(i + 1) == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == Some('*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == Some('/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && raw_string_start(&chars, i).is_some() {
            let (hashes, quote) = raw_string_start(&chars, i).unwrap_or_default();
            out.extend(std::iter::repeat_n(' ', quote + 1 - i));
            i = quote + 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| at(i + k) == Some('#')) {
                    out.extend(std::iter::repeat_n(' ', hashes + 1));
                    i += hashes + 1;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() {
                match chars[i] {
                    '\\' => {
                        out.push(' ');
                        if let Some(next) = at(i + 1) {
                            out.push(blank(next));
                        }
                        i += 2;
                    }
                    '"' => {
                        out.push(' ');
                        i += 1;
                        break;
                    }
                    other => {
                        out.push(blank(other));
                        i += 1;
                    }
                }
            }
        } else if c == '\'' && at(i + 1) == Some('\\') {
            // An escaped character literal: '\n', '\u{1b}'.
            let end = (i + 2..chars.len()).find(|&j| chars[j] == '\'').unwrap_or(chars.len() - 1);
            out.extend(std::iter::repeat_n(' ', end + 1 - i));
            i = end + 1;
        } else if c == '\'' && at(i + 2) == Some('\'') {
            out.push_str("   ");
            i += 3;
        } else {
            // A lifetime's quote, or code.
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Where a raw string starting at `i` (`r"`, `r#"`, `br"` …) has its
/// opening quote, and how many `#` close it; `None` for anything else
/// (an identifier ending in r, a raw identifier `r#type`).
fn raw_string_start(chars: &[char], i: usize) -> Option<(usize, usize)> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let before = i.checked_sub(1).map(|j| chars[j]);
    let prefix_ok = match before {
        Some('b' | 'c') => i < 2 || !ident(chars[i - 2]),
        Some(c) => !ident(c),
        None => true,
    };
    if !prefix_ok {
        return None;
    }
    let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
    let quote = i + 1 + hashes;
    (chars.get(quote) == Some(&'"')).then_some((hashes, quote))
}

/// `code` with the bodies of its `#[cfg(test)]` modules blanked: a test's
/// helper may return what it likes.
pub(crate) fn without_test_modules(code: &str) -> String {
    let mut out: Vec<char> = code.chars().collect();
    let text: String = out.iter().collect();
    for marker in ["#[cfg(test)]", "#[cfg(all(test"] {
        for (at, _) in text.match_indices(marker) {
            let start = text[..at].chars().count();
            let rest: String = out[start..].iter().collect();
            let Some(module) = rest.find("mod ") else { continue };
            let Some(open) = rest.find('{') else { continue };
            // Only a module the attribute is on: `mod x {` before any `;`.
            if rest[..open].contains(';') || module > open {
                continue;
            }
            let open = start + rest[..open].chars().count();
            let mut depth = 0usize;
            for k in open..out.len() {
                match out[k] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            for c in &mut out[open..=k] {
                                if *c != '\n' {
                                    *c = ' ';
                                }
                            }
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out.into_iter().collect()
}

/// Whether a return type, spaces removed, is `Result<…, String>`.
fn is_string_error(ret: &str) -> bool {
    let ret =
        ["::std::result::", "std::result::", "core::result::"].iter().find_map(|p| ret.strip_prefix(p)).unwrap_or(ret);
    let Some(inner) = ret.strip_prefix("Result<").and_then(|r| r.strip_suffix('>')) else { return false };
    let inner = inner.strip_suffix(',').unwrap_or(inner);
    let mut depth = 0i32;
    let mut last_comma = None;
    let bytes = inner.as_bytes();
    for (k, &b) in bytes.iter().enumerate() {
        match b {
            b'<' | b'(' | b'[' => depth += 1,
            // The `>` of an arrow (`Fn() -> T`) closes nothing.
            b'>' if k > 0 && bytes[k - 1] == b'-' => {}
            b'>' | b')' | b']' => depth -= 1,
            b',' if depth == 0 => last_comma = Some(k),
            _ => {}
        }
    }
    last_comma.is_some_and(|k| matches!(&inner[k + 1..], "String" | "std::string::String" | "alloc::string::String"))
}

/// Each non-private `fn` in `source` returning `Result<…, String>`: its
/// line (from 1) and its signature on one line. Test modules, comments
/// and literals are skipped; the return type may span lines, up to the
/// body's `{`, a `;` or `where`.
fn string_errors(source: &str) -> Vec<(usize, String)> {
    let code = without_test_modules(&code_only(source));
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut found = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        if code[..at].chars().next_back().is_some_and(ident) {
            continue;
        }
        let after = &code[at + 3..];
        // A function has a name; `fn(…)` is a pointer type.
        if !after.trim_start().starts_with(|c: char| c.is_alphabetic() || c == '_') {
            continue;
        }
        let item_start = code[..at].rfind([';', '{', '}']).map_or(0, |k| k + 1);
        let public = code[item_start..at].split(|c: char| !ident(c)).any(|w| w == "pub");
        if !public {
            continue;
        }
        let mut depth = 0i32;
        let mut end = after.len();
        for (k, c) in after.char_indices() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                '{' | ';' if depth == 0 => {
                    end = k;
                    break;
                }
                'w' if depth == 0
                    && after[k..].starts_with("where")
                    && !after[..k].ends_with(ident)
                    && !after[k + 5..].starts_with(ident) =>
                {
                    end = k;
                    break;
                }
                _ => {}
            }
        }
        let signature = &after[..end];
        let mut depth = 0i32;
        let mut arrow = None;
        for (k, c) in signature.char_indices() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                '-' if depth == 0 && signature[k..].starts_with("->") => {
                    arrow = Some(k);
                    break;
                }
                _ => {}
            }
        }
        let Some(arrow) = arrow else { continue };
        let ret: String = signature[arrow + 2..].chars().filter(|c| !c.is_whitespace()).collect();
        if is_string_error(&ret) {
            let line = code[..at].matches('\n').count() + 1;
            let one_line = signature.split_whitespace().collect::<Vec<_>>().join(" ");
            found.push((line, format!("fn {one_line}")));
        }
    }
    found
}

// Issue 46 item 5: the scanner finds what it is for — one line or several,
// any visibility but private — and nothing else: an error type that is
// not String, a private helper, a closure's type, a comment, a test module.
#[test]
fn the_string_error_scanner_finds_only_string_errors() {
    let source = r##"
/// An example in a doc: pub fn quoted() -> Result<(), String> {}
pub fn flagged(x: u8) -> Result<(), String> {
    let text = "pub fn in_a_string() -> Result<(), String> {";
    Ok(())
}

pub(crate) fn spans_lines(
    names: &[Option<String>; 2],
    f: impl Fn(u8) -> u8,
) -> Result<
    Vec<(u8, String)>,
    String,
>
where
    u8: Copy,
{
    Ok(Vec::new())
}

pub fn typed() -> Result<String, Error> {}
pub fn takes_one(check: impl Fn() -> Result<(), String>) -> u8 { 0 }
pub fn alias() -> io::Result<String> {}
fn private() -> Result<(), String> {}
pub(super) fn full_path() -> std::result::Result<u8, std::string::String>;
impl X {
    pub fn method(&self) -> Result<Self, String> { r#"pub fn raw() -> Result<(), String> {"# }
}

#[cfg(test)]
mod tests {
    pub fn helper() -> Result<(), String> {}
}
"##;
    let found: Vec<usize> = string_errors(source).into_iter().map(|(line, _)| line).collect();
    assert_eq!(found, vec![3, 8, 25, 27], "{:?}", string_errors(source));
}

// Issue 46 item 5: no engine function others can call returns
// `Result<_, String>`; the error types say what failed.
#[test]
fn no_public_engine_fn_returns_a_string_error() {
    let mut found = Vec::new();
    for src in ENGINE_SOURCES {
        let mut files = rust_files(&root().join(src));
        files.sort();
        for file in files {
            // Test files are tests: what they return is theirs.
            if file.file_name().is_some_and(|n| n == "tests.rs") || file.components().any(|c| c.as_os_str() == "tests")
            {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let shown = file.strip_prefix(root()).unwrap_or(Path::new(&file)).display().to_string();
            for (line, signature) in string_errors(&text) {
                found.push(format!("{shown}:{line}: {signature}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "engine functions returning Result<_, String> (give them a typed error):\n{}",
        found.join("\n")
    );
}
