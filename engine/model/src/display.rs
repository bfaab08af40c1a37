//! How a row's values are written for a person to read: one place for each
//! display rule that several faces share.
//!
//! Every text Vernier shows may come from someone else's file (a notebook,
//! a workbook, a CSV or JSON import). A control character in it could move
//! the terminal's cursor, erase the line a confirmation is printed on, or
//! reverse the order in which a command reads (SPEC N10 hostile input, R2).
//! An invisible one could make two arguments that differ look the same.
//! [`inert`], [`inert_prose`] and [`inert_multiline`] show such characters
//! as visible escapes instead, and [`path`] shows every path Vernier prints;
//! the stored text is never changed, only what is shown.

use std::borrow::Cow;
use std::path::Path;

use icu_properties::props::{BidiControl, DefaultIgnorableCodePoint, GeneralCategory, JoinControl, VariationSelector};
use icu_properties::{CodePointMapData, CodePointMapDataBorrowed, CodePointSetData, CodePointSetDataBorrowed};

// Unicode's own tables (ICU4X's compiled data), so a character the next
// Unicode version adds to a property is covered by updating the crate.
const DEFAULT_IGNORABLE: CodePointSetDataBorrowed<'static> = CodePointSetData::new::<DefaultIgnorableCodePoint>();
const BIDI_CONTROL: CodePointSetDataBorrowed<'static> = CodePointSetData::new::<BidiControl>();
const JOIN_CONTROL: CodePointSetDataBorrowed<'static> = CodePointSetData::new::<JoinControl>();
const VARIATION_SELECTOR: CodePointSetDataBorrowed<'static> = CodePointSetData::new::<VariationSelector>();
const CATEGORY: CodePointMapDataBorrowed<'static, GeneralCategory> = CodePointMapData::<GeneralCategory>::new();

/// Characters that act instead of being read, by Unicode property: the
/// controls (C0, DEL, C1), the line and paragraph separators, every
/// `Bidi_Control` (they reorder what follows) and every
/// `Default_Ignorable_Code_Point` — characters a renderer draws as nothing
/// (soft hyphen, the Hangul fillers, the combining grapheme joiner, zero
/// width characters, variation selectors, tag characters, …), so two words
/// that look alike could differ unseen. So does every blank but U+0020
/// (issue 45 item 8): each other `White_Space` character (no-break, thin,
/// ideographic, …) and the look-alike blank [`BRAILLE_BLANK`] draw as a
/// space, so `t\u{a0}ms` would read as the header `t ms`. TAB is read as it
/// is; whether LF and the joiners of prose are is [`How`]'s to say.
fn acts(c: char) -> bool {
    match c {
        ' '..='~' | '\t' => false,
        _ => {
            c.is_control()
                || c.is_whitespace()
                || c == BRAILLE_BLANK
                || DEFAULT_IGNORABLE.contains(c)
                || BIDI_CONTROL.contains(c)
                || matches!(CATEGORY.get(c), GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator)
        }
    }
}

/// U+2800, the braille pattern with no dots: a symbol (not `White_Space`,
/// not ignorable) that every font draws as an empty cell — a blank.
const BRAILLE_BLANK: char = '\u{2800}';

/// A character a reader sees: neither white space nor one that acts.
fn seen(c: char) -> bool {
    !c.is_whitespace() && !acts(c)
}

/// How a text is read. A *word* (an argument, a path, a file name, a label,
/// a cell) shows every acting character. *Prose* (a note, an answer) keeps
/// what its scripts need to be written at all: ZWNJ and ZWJ between two
/// seen characters (Persian, the Indic scripts, emoji sequences; a
/// variation selector just before the joiner counts with the character it
/// selects), and one variation selector directly after a seen character
/// (text or emoji presentation of that character). A second selector, a
/// joiner at an end or beside a space, and every other acting character are
/// shown, so no run of invisible characters hides inside a note either.
#[derive(Clone, Copy)]
struct How {
    prose: bool,
    /// Line feeds are line breaks (multi-line text).
    keep_lf: bool,
}

const WORD: How = How { prose: false, keep_lf: false };

/// True when `text` shows nothing a reader could see: only whitespace and
/// characters that act without a glyph (a zero width space, say). Such a
/// text answers nothing, so it never counts as written (A16).
pub fn is_blank(text: &str) -> bool {
    text.chars().all(|c| c.is_whitespace() || acts(c))
}

/// Which reader an escape is written for.
#[derive(Clone, Copy)]
enum Escape {
    /// `\x1b`, `\u202e`, and past U+FFFF the UTF-16 pair `\udb40\udc41`:
    /// JSON's own escape, so JSON output made inert is still valid JSON
    /// holding the same text (serde_json already escapes the C0 controls).
    Text,
    /// `\x1b`, `\u202e`, `\U000e0041`: what a POSIX shell's `$'…'` reads
    /// back as the character.
    Shell,
}

/// How an acting character is shown.
fn visible(c: char, escape: Escape, out: &mut String) {
    use std::fmt::Write as _;
    let code = u32::from(c);
    // Writing into a String cannot fail.
    let _ = match (code, escape) {
        (0..0x20, _) => write!(out, "\\x{code:02x}"),
        (0x20..=0xffff, _) => write!(out, "\\u{code:04x}"),
        (_, Escape::Shell) => write!(out, "\\U{code:08x}"),
        (_, Escape::Text) => {
            let mut units = [0u16; 2];
            c.encode_utf16(&mut units).iter().try_for_each(|u| write!(out, "\\u{u:04x}"))
        }
    };
}

/// Whether each character of `text` is shown as an escape, read as `how`
/// says; `None` when none is.
fn escaped(text: &str, how: How) -> Option<Vec<bool>> {
    // Printable ASCII never acts (see `acts`): most of a table's cells are
    // that, and a byte at a time is the cheap way to see it (issue 50).
    if text.bytes().all(|b| matches!(b, b' '..=b'~' | b'\t')) {
        return None;
    }
    if !text.chars().any(|c| acts(c) && !(how.keep_lf && c == '\n')) {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut shown = Vec::with_capacity(chars.len());
    // What the previous character was: seen, or a selector kept after one.
    let (mut after_seen, mut after_selector) = (false, false);
    for (k, &c) in chars.iter().enumerate() {
        let kept = if !acts(c) || (how.keep_lf && c == '\n') {
            true
        } else if how.prose && VARIATION_SELECTOR.contains(c) {
            after_seen
        } else if how.prose && JOIN_CONTROL.contains(c) {
            (after_seen || after_selector) && chars.get(k + 1).is_some_and(|&next| seen(next))
        } else {
            false
        };
        shown.push(!kept);
        after_selector = kept && VARIATION_SELECTOR.contains(c);
        after_seen = seen(c);
    }
    shown.contains(&true).then_some(shown)
}

fn made_inert(text: &str, how: How) -> Cow<'_, str> {
    let Some(shown) = escaped(text, how) else { return Cow::Borrowed(text) };
    let mut out = String::with_capacity(text.len() + 8);
    for (c, escape) in text.chars().zip(shown) {
        if escape { visible(c, Escape::Text, &mut out) } else { out.push(c) }
    }
    Cow::Owned(out)
}

/// `text` ending with one full stop, for a sentence built from parts that
/// may already end with one.
pub fn full_stop(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with('.') { text.to_owned() } else { format!("{text}.") }
}

/// One word or line of text from a file (an argument, a path, a name, a
/// cell) as it may be shown: every acting character (a line feed too)
/// written as a visible escape.
pub fn inert(text: &str) -> Cow<'_, str> {
    made_inert(text, WORD)
}

/// [`inert`] for a line already built as a `String` (a table's cell): the
/// same string back when nothing in it acts, so a clean cell costs a scan.
pub fn inert_line(text: String) -> String {
    if escaped(&text, WORD).is_some() { made_inert(&text, WORD).into_owned() } else { text }
}

/// One line of prose (a line of a note or an answer in a document): as
/// [`inert`], but the joiners and selectors its script needs stay (see
/// `How`).
pub fn inert_prose(text: &str) -> Cow<'_, str> {
    made_inert(text, How { prose: true, keep_lf: false })
}

/// Multi-line prose from a file (a note, an answer) as it may be shown: as
/// [`inert_prose`], and line feeds are kept as line breaks.
pub fn inert_multiline(text: &str) -> Cow<'_, str> {
    made_inert(text, How { prose: true, keep_lf: true })
}

/// A path as every message Vernier prints shows it: a word made [`inert`],
/// so a line feed, an escape sequence or an invisible character in a folder's
/// name is seen instead of acting. A name that is not Unicode shows its
/// undecodable bytes as U+FFFD, as `Path::display` does.
pub fn path(path: &Path) -> String {
    inert(&path.to_string_lossy()).into_owned()
}

/// An argument vector as one would type it in a POSIX shell, each word
/// quoted where a shell would need it, so it reads exactly as it will run.
/// A word holding an acting character (see [`inert`]) is written in `$'…'`
/// quoting with that character escaped, which shows it and still means the
/// same word. For display only: Vernier runs an argument vector as it is and
/// never hands this string to a shell.
pub fn quote_argv(argv: &[String]) -> String {
    argv.iter().map(|a| quote_word(a)).collect::<Vec<_>>().join(" ")
}

fn quote_word(word: &str) -> Cow<'_, str> {
    let Some(shown) = escaped(word, WORD) else {
        // No control characters, so no NUL: shlex can always quote it.
        return shlex::try_quote(word).unwrap_or(Cow::Borrowed(word));
    };
    let mut out = String::from("$'");
    for (c, escape) in word.chars().zip(shown) {
        match c {
            '\\' | '\'' => {
                out.push('\\');
                out.push(c);
            }
            c if escape => visible(c, Escape::Shell, &mut out),
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

    // SPEC N10, R2 (finding 10): default-ignorable characters are shown by
    // their Unicode property, not from a hand list.
    #[test]
    fn default_ignorable_characters_are_made_visible() {
        for (raw, shown) in [
            ("soft\u{ad}hyphen", r"soft\u00adhyphen"),
            ("hangul\u{115f}filler", r"hangul\u115ffiller"),
            ("half\u{3164}width", r"half\u3164width"),
            ("grapheme\u{34f}joiner", r"grapheme\u034fjoiner"),
            ("mongolian\u{180e}", r"mongolian\u180e"),
            ("halfwidth\u{ffa0}filler", r"halfwidth\uffa0filler"),
            ("vs\u{fe0f}", r"vs\ufe0f"),
            ("joiner\u{200d}x", r"joiner\u200dx"),
            ("alm\u{61c}", r"alm\u061c"),
            ("line\u{2028}separator", r"line\u2028separator"),
        ] {
            assert_eq!(inert(raw), shown, "{raw:?}");
        }
    }

    // SPEC N10, R2 (finding 10): tag characters (U+E0000–E007F) and the
    // supplementary variation selectors are shown too; past U+FFFF the
    // escape is JSON's UTF-16 pair, so inert JSON reads back as the same text.
    #[test]
    fn tag_characters_are_shown_and_json_stays_the_same_text() {
        assert_eq!(inert("\u{e0041}\u{e0042}"), r"\udb40\udc41\udb40\udc42");
        assert_eq!(inert("x\u{e0001}\u{e007f}\u{e0100}"), r"x\udb40\udc01\udb40\udc7f\udb40\udd00");
        let text = "run \u{e0041}\u{ad}\u{202e}\u{fe0f} done";
        let json = serde_json::to_string(&serde_json::json!({ "what": text })).expect("json");
        let shown = inert_multiline(&json);
        assert!(shown.is_ascii(), "{shown}");
        let back: serde_json::Value = serde_json::from_str(&shown).expect("inert JSON is JSON");
        assert_eq!(back["what"], text);
    }

    // SPEC R2 (finding 10): `/bin/echo '\U000e0041\U000e0042'` does not
    // read as `/bin/echo ''`; the shell's `$'…'` escape means the same word.
    #[test]
    fn an_argument_of_tag_characters_is_not_shown_empty() {
        assert_eq!(quote_argv(&s(&["/bin/echo", "\u{e0041}\u{e0042}"])), r"/bin/echo $'\U000e0041\U000e0042'");
        assert_eq!(quote_argv(&s(&["ls", "a\u{fe0f}", "b\u{e0100}"])), r"ls $'a\ufe0f' $'b\U000e0100'");
        assert_ne!(quote_argv(&s(&["cp", "a\u{ad}b"])), quote_argv(&s(&["cp", "ab"])));
    }

    // SPEC N10: prose keeps the joiners and selectors its scripts need
    // between seen characters; a word (argument, path, label) shows them.
    #[test]
    fn prose_keeps_joiners_between_seen_characters() {
        for text in [
            "family \u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467} emoji",
            "heart on fire \u{2764}\u{fe0f}\u{200d}\u{1f525}",
            "I \u{2764}\u{fe0f}",
            "keycap 1\u{fe0f}\u{20e3}",
            "Persian \u{645}\u{6cc}\u{200c}\u{62e}\u{648}\u{627}\u{647}\u{645}",
            "Devanagari \u{915}\u{94d}\u{200d}\u{937}",
        ] {
            assert!(matches!(inert_multiline(text), Cow::Borrowed(_)), "{text:?}");
            assert_eq!(inert_prose(text), text, "{text:?}");
            assert_ne!(inert(text), text, "a word shows them: {text:?}");
        }
    }

    // SPEC N10: in prose, a joiner at an end or beside a space, a second
    // selector (data hidden in a run of selectors) and every other acting
    // character are shown.
    #[test]
    fn prose_shows_stray_joiners_and_runs_of_selectors() {
        for (raw, shown) in [
            ("a\u{200d}", r"a\u200d"),
            ("\u{200c}a", r"\u200ca"),
            ("a \u{200d}b", r"a \u200db"),
            ("a\u{200d}\u{200d}b", r"a\u200d\u200db"),
            ("\u{1f600}\u{fe0f}\u{fe0e}", "\u{1f600}\u{fe0f}\\ufe0e"),
            ("\u{1f600}\u{e0100}\u{e0101}", "\u{1f600}\u{e0100}\\udb40\\udd01"),
            (" \u{fe0f}", r" \ufe0f"),
            ("flag\u{e0067}", r"flag\udb40\udc67"),
            ("soft\u{ad}", r"soft\u00ad"),
        ] {
            assert_eq!(inert_prose(raw), shown, "{raw:?}");
        }
    }

    // SPEC N10, R2 (issue 45 item 8): every blank but U+0020 is shown —
    // each `White_Space` character, in words and in prose, and the braille
    // blank — so a header `t\u{a0}ms` does not read as `t ms`.
    #[test]
    fn blanks_other_than_the_space_are_shown() {
        let blanks = ('\u{80}'..=char::MAX).filter(|c| c.is_whitespace()).chain(['\u{2800}', '\u{3164}', '\u{ffa0}']);
        for blank in blanks {
            let text = format!("t{blank}ms");
            let code = u32::from(blank);
            let shown = format!("t\\u{code:04x}ms");
            assert_eq!(inert(&text), shown, "{blank:?}");
            assert_eq!(inert_prose(&text), shown, "prose, {blank:?}");
            assert_eq!(inert_multiline(&text), shown, "a note, {blank:?}");
            assert!(quote_argv(std::slice::from_ref(&text)).contains(&format!("\\u{code:04x}")), "{blank:?}");
        }
        for (raw, shown) in [
            ("t\u{a0}ms", r"t\u00a0ms"),
            ("a\u{2009}b", r"a\u2009b"),
            ("\u{3000}x", r"\u3000x"),
            ("\u{2800}", r"\u2800"),
            ("\u{85}", r"\u0085"),
        ] {
            assert_eq!(inert(raw), shown, "{raw:?}");
        }
        assert!(matches!(inert("t ms\tx"), Cow::Borrowed(_)));
        assert!(is_blank("\u{a0}\u{2800}"));
    }

    // SPEC A16: a text of only invisible characters answers nothing.
    #[test]
    fn invisible_text_is_blank() {
        for blank in [" \u{3164} ", "\u{200d}", "\u{115f}\u{ad}", "\u{e0041}"] {
            assert!(is_blank(blank), "{blank:?}");
        }
        assert!(!is_blank("\u{1f468}\u{200d}\u{1f469}"));
    }

    // SPEC N10: a path is shown as a word: a line feed, an escape or an
    // invisible character in a folder's name is seen.
    #[test]
    fn paths_are_shown_inert() {
        assert_eq!(path(Path::new("/tmp/a\nb/\x1b[2Jc\u{200b}")), r"/tmp/a\x0ab/\x1b[2Jc\u200b");
        assert_eq!(path(Path::new("/home/ana/notebook")), "/home/ana/notebook");
    }
}
