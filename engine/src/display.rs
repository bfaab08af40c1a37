//! How a row's values are written for a person to read: one place for each
//! display rule that several faces share.
//!
//! Every text Vernier shows may come from someone else's file (a notebook,
//! a workbook, a CSV or JSON import). A control character in it could move
//! the terminal's cursor, erase the line a confirmation is printed on, or
//! reverse the order in which a command reads (SPEC N10 hostile input, R2).
//! [`inert`] and [`inert_multiline`] show such characters as visible escapes
//! instead; the stored text is never changed, only what is shown.

use std::borrow::Cow;

/// Characters that act instead of being read: the C0 controls, DEL, the C1
/// controls, the Unicode marks that reorder or break a line without a glyph
/// (ALM, LRM, RLM, LRE..RLO, LRI..PDI, the line and paragraph separators),
/// and the invisible ones that hide a difference between two look-alike
/// words (zero width space, word joiner and invisible operators, the
/// deprecated format controls, the byte order mark). TAB and, in multi-line
/// text, LF are read as they are; ZWNJ and ZWJ are left alone, as scripts
/// and emoji need them.
fn acts(c: char, keep_lf: bool) -> bool {
    match c {
        '\t' => false,
        '\n' => !keep_lf,
        '\0'..='\x1f' | '\x7f'..='\u{9f}' => true,
        '\u{061c}' | '\u{200b}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' => true,
        _ => false,
    }
}

/// True when `text` shows nothing a reader could see: only whitespace and
/// characters that act without a glyph (a zero width space, say). Such a
/// text answers nothing, so it never counts as written (A16).
pub fn is_blank(text: &str) -> bool {
    text.chars().all(|c| c.is_whitespace() || acts(c, false) || matches!(c, '\u{200c}' | '\u{200d}'))
}

/// How an acting character is shown: a C0 control as `\x1b`, any other as
/// `\u202e`. A POSIX shell's `$'…'` quoting reads both back as the
/// character, and the `\u` form is also JSON's own escape, so JSON output
/// made inert is still valid JSON holding the same text (serde_json already
/// escapes the C0 controls itself).
fn visible(c: char, out: &mut String) {
    use std::fmt::Write as _;
    // Writing into a String cannot fail.
    let _ = if c < ' ' { write!(out, "\\x{:02x}", c as u32) } else { write!(out, "\\u{:04x}", c as u32) };
}

fn made_inert(text: &str, keep_lf: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| acts(c, keep_lf)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if acts(c, keep_lf) { visible(c, &mut out) } else { out.push(c) }
    }
    Cow::Owned(out)
}

/// One line of text from a file as it may be shown: every control or
/// direction character (a line feed too) written as a visible escape.
pub fn inert(text: &str) -> Cow<'_, str> {
    made_inert(text, false)
}

/// [`inert`] for a line already built as a `String` (a table's cell): the
/// same string back when nothing in it acts, so a clean cell costs a scan.
pub fn inert_line(text: String) -> String {
    if text.chars().any(|c| acts(c, false)) { made_inert(&text, false).into_owned() } else { text }
}

/// Multi-line text from a file (a note, an answer) as it may be shown: as
/// [`inert`], but line feeds are kept as line breaks.
pub fn inert_multiline(text: &str) -> Cow<'_, str> {
    made_inert(text, true)
}

/// An argument vector as one would type it in a POSIX shell, each word
/// quoted where a shell would need it, so it reads exactly as it will run.
/// A word holding a control or direction character is written in `$'…'`
/// quoting with that character escaped, which shows it and still means the
/// same word. For display only: Vernier runs an argument vector as it is and
/// never hands this string to a shell.
pub fn quote_argv(argv: &[String]) -> String {
    argv.iter().map(|a| quote_word(a)).collect::<Vec<_>>().join(" ")
}

fn quote_word(word: &str) -> Cow<'_, str> {
    if !word.chars().any(|c| acts(c, false)) {
        // No control characters left, so no NUL: shlex can always quote it.
        return shlex::try_quote(word).unwrap_or(Cow::Borrowed(word));
    }
    let mut out = String::from("$'");
    for c in word.chars() {
        match c {
            '\\' | '\'' => {
                out.push('\\');
                out.push(c);
            }
            c if acts(c, false) => visible(c, &mut out),
            c => out.push(c),
        }
    }
    out.push('\'');
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|w| (*w).to_owned()).collect()
    }

    // SPEC N2: the Command column reads as one would type it.
    #[test]
    fn words_are_quoted_only_where_a_shell_needs_it() {
        let argv = s(&["./matmul", "512", "a b", "it's", ""]);
        assert_eq!(quote_argv(&argv), r#"./matmul 512 'a b' "it's" ''"#);
    }

    // SPEC N10, R2: a word with a control character is shown escaped, in the
    // quoting a shell reads back as the same word.
    #[test]
    fn words_with_control_characters_are_shown_in_ansi_c_quotes() {
        let argv = s(&["touch", "\x1b[2K\rcommand: true", "it's\\\x07", "x\0y", "\u{202e}fdp.exe"]);
        assert_eq!(quote_argv(&argv), r"touch $'\x1b[2K\x0dcommand: true' $'it\'s\\\x07' $'x\x00y' $'\u202efdp.exe'");
    }

    // SPEC N10: each class of acting character is made visible.
    #[test]
    fn control_and_direction_characters_are_made_visible() {
        for (raw, shown) in [
            ("a\x1b[31mb", r"a\x1b[31mb"),
            ("bell\x07", r"bell\x07"),
            ("nul\0", r"nul\x00"),
            ("del\x7f", r"del\u007f"),
            ("csi\u{9b}2J", r"csi\u009b2J"),
            ("rlo\u{202e}cba", r"rlo\u202ecba"),
            ("lri\u{2066}x\u{2069}", r"lri\u2066x\u2069"),
            ("zero\u{200b}width\u{feff}", r"zero\u200bwidth\ufeff"),
            ("word\u{2060}joiner", r"word\u2060joiner"),
            ("rlm\u{200f}", r"rlm\u200f"),
            ("cr\rline", r"cr\x0dline"),
        ] {
            assert_eq!(inert(raw), shown, "{raw:?}");
            assert_eq!(inert_multiline(raw), shown, "{raw:?}");
        }
    }

    // SPEC N10: TAB stays, LF only in multi-line text, plain Unicode untouched.
    #[test]
    fn tabs_line_feeds_and_plain_unicode() {
        assert_eq!(inert("a\tb"), "a\tb");
        assert_eq!(inert("one\ntwo"), r"one\x0atwo");
        assert_eq!(inert_multiline("one\ntwo"), "one\ntwo");
        for plain in ["12.5 µs", "seq — chase", "41 °C", "naïve 日本"] {
            assert!(matches!(inert(plain), Cow::Borrowed(p) if p == plain), "{plain}");
        }
    }
}
