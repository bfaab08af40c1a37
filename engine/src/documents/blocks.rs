//! The document model every exporter writes: headings, paragraphs with
//! bold runs, bullet lists and tables. Templates are Markdown parsed into
//! these blocks; values are substituted into the text *after* parsing, so a
//! value can never change a document's structure.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::display::{inert_multiline, inert_prose};

/// A run of text, bold or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRun {
    /// The text.
    pub text: String,
    /// Bold.
    pub bold: bool,
}

/// One block of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A heading of level 1–3.
    Heading(u8, Vec<TextRun>),
    /// A paragraph.
    Paragraph(Vec<TextRun>),
    /// One bullet item.
    Bullet(Vec<TextRun>),
    /// A table; the first row is the header.
    Table(Vec<Vec<String>>),
    /// A chart (SPEC D5).
    Picture(super::chart::Picture),
}

/// Parses a Markdown template into blocks, replacing every `{{name}}` in the
/// text with `fill(name)`. A paragraph that is exactly `[[kind:name]]`
/// (`[[table:results]]`, `[[chart:soak]]`) becomes the blocks
/// `insert("kind:name")` gives (one sweep is a sentence, a chart and a
/// table), or stays as text when it gives none.
pub fn parse_template(
    markdown: &str,
    fill: &dyn Fn(&str) -> String,
    insert: &dyn Fn(&str) -> Option<Vec<Block>>,
) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut runs: Vec<TextRun> = Vec::new();
    let mut bold = false;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut cell = String::new();
    let mut in_table = false;
    let push_text = |runs: &mut Vec<TextRun>, text: &str, bold: bool| {
        let text = substitute(text, fill);
        match runs.last_mut() {
            Some(last) if last.bold == bold => last.text.push_str(&text),
            _ => runs.push(TextRun { text, bold }),
        }
    };
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Strong) => bold = true,
            Event::End(TagEnd::Strong) => bold = false,
            Event::Start(Tag::Table(_)) => {
                in_table = true;
                rows.clear();
            }
            Event::End(TagEnd::Table) => {
                in_table = false;
                blocks.push(Block::Table(expand_rows(std::mem::take(&mut rows))));
            }
            Event::Start(Tag::TableHead | Tag::TableRow) => rows.push(Vec::new()),
            Event::End(TagEnd::TableCell) => {
                if let Some(row) = rows.last_mut() {
                    row.push(substitute(cell.trim(), fill));
                }
                cell.clear();
            }
            Event::Text(t) | Event::Code(t) if in_table => cell.push_str(&t),
            Event::Text(t) | Event::Code(t) => push_text(&mut runs, &t, bold),
            Event::SoftBreak | Event::HardBreak if !in_table => push_text(&mut runs, " ", bold),
            Event::End(TagEnd::Heading(level)) => {
                let level = match level {
                    pulldown_cmark::HeadingLevel::H1 => 1,
                    pulldown_cmark::HeadingLevel::H2 => 2,
                    _ => 3,
                };
                blocks.push(Block::Heading(level, std::mem::take(&mut runs)));
            }
            Event::End(TagEnd::Paragraph) => {
                let whole: String = runs.iter().map(|r| r.text.as_str()).collect();
                let name = whole.trim().strip_prefix("[[").and_then(|r| r.strip_suffix("]]"));
                match name.and_then(insert) {
                    Some(inserted) => {
                        runs.clear();
                        blocks.extend(inserted);
                    }
                    None => blocks.push(Block::Paragraph(std::mem::take(&mut runs))),
                }
            }
            Event::End(TagEnd::Item) => blocks.push(Block::Bullet(std::mem::take(&mut runs))),
            _ => {}
        }
    }
    blocks
}

/// A table row whose only filled cell holds several lines, or cells split
/// by `|`, becomes one row per line: that is how an answer written in the
/// app fills a whole table (one row per line, cells separated by `|`).
fn expand_rows(rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let width = rows.first().map_or(0, Vec::len);
    let mut out = Vec::with_capacity(rows.len());
    for (i, row) in rows.into_iter().enumerate() {
        let single = row.iter().skip(1).all(String::is_empty);
        if i == 0 || !single || !(row[0].contains('|') || row[0].contains('\n')) {
            out.push(row);
            continue;
        }
        for line in row[0].lines().map(str::trim).filter(|l| !l.is_empty()) {
            // A row written as markdown writes it, `| a | b |`: its edge
            // bars close the row, they open no empty cell.
            let line = match line.strip_prefix('|').and_then(|l| l.strip_suffix('|')) {
                Some(inner) if line.len() > 1 => inner,
                _ => line,
            };
            let mut cells: Vec<String> = line.split('|').map(|c| c.trim().to_owned()).collect();
            if cells.len() > width && width > 0 {
                let tail = cells.split_off(width - 1).join(" | ");
                cells.push(tail);
            }
            cells.resize(width.max(1), String::new());
            out.push(cells);
        }
    }
    out
}

/// Replaces `{{name}}` with `fill(name)`; anything else is kept as written.
fn substitute(text: &str, fill: &dyn Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        match rest[start + 2..].find("}}") {
            Some(end) => {
                out.push_str(&fill(rest[start + 2..start + 2 + end].trim()));
                rest = &rest[start + 2 + end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The blocks as plain text (for `ai-usage.txt` and previews). Text from
/// the notebook is written inert (N10), read as prose: a file someone `cat`s
/// must not carry a terminal's control sequences, and an answer in Persian
/// keeps its joiners.
pub fn to_text(blocks: &[Block]) -> String {
    let line = |runs: &[TextRun]| runs.iter().map(|r| inert_multiline(&r.text)).collect::<String>();
    let mut out = String::new();
    for block in blocks {
        match block {
            Block::Heading(level, runs) => {
                let text = line(runs);
                out.push_str(&format!(
                    "{text}\n{}\n\n",
                    if *level == 1 { "=" } else { "-" }.repeat(text.chars().count())
                ));
            }
            Block::Paragraph(runs) => out.push_str(&format!("{}\n\n", line(runs))),
            Block::Bullet(runs) => out.push_str(&format!("- {}\n", line(runs))),
            Block::Table(rows) => {
                for row in rows {
                    let cells: Vec<_> = row.iter().map(|c| inert_prose(c)).collect();
                    out.push_str(&format!("{}\n", cells.join(" | ")));
                }
                out.push('\n');
            }
            Block::Picture(p) => out.push_str(&format!("[chart] {}\n\n", inert_prose(&p.alt))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC N10, D1: ai-usage.txt is plain text someone may `cat`: the
    // notebook's text reaches it inert, its line breaks kept.
    #[test]
    fn plain_text_is_inert() {
        let blocks = vec![
            Block::Heading(1, vec![TextRun { text: "T\x1b]0;pwned\x07".into(), bold: false }]),
            Block::Paragraph(vec![TextRun { text: "model\x1b[31mX\u{202e}Y\u{9b}Z\nsecond line".into(), bold: false }]),
            Block::Table(vec![vec!["a\x1b".into(), "b".into()]]),
        ];
        let text = to_text(&blocks);
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
        assert!(!text.contains('\u{202e}'));
        assert!(text.contains("model\\x1b[31mX\\u202eY\\u009bZ\nsecond line"), "{text}");
    }

    // SPEC N10, D1: prose keeps the joiners its script needs, in a
    // paragraph and in a table's cell; a stray joiner is still shown.
    #[test]
    fn plain_text_keeps_the_joiners_of_prose() {
        let persian = "\u{645}\u{6cc}\u{200c}\u{62e}\u{648}\u{627}\u{647}\u{645}";
        let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}";
        let blocks = vec![
            Block::Paragraph(vec![TextRun { text: format!("{persian} {family}"), bold: false }]),
            Block::Table(vec![vec![persian.into(), "b\u{200d}".into()]]),
        ];
        let text = to_text(&blocks);
        assert!(text.contains(&format!("{persian} {family}\n")), "{text}");
        assert!(text.contains(&format!("{persian} | b\\u200d\n")), "{text}");
    }

    // SPEC D2: a value goes in as text and cannot change the structure.
    #[test]
    fn values_cannot_change_structure() {
        let md = "# Title {{name}}\n\n**Machine:** {{machine}}\n\n- item {{x}}\n\n| A | B |\n|---|---|\n| {{a}} | 2 |\n\n[[table:runs]]\n";
        let fill =
            |k: &str| if k == "machine" { "# not a heading\n\n| nor | a table |".to_owned() } else { format!("<{k}>") };
        let table =
            |k: &str| (k == "table:runs").then(|| vec![Block::Table(vec![vec!["#".to_owned()], vec!["1".to_owned()]])]);
        let blocks = parse_template(md, &fill, &table);
        assert_eq!(blocks.len(), 5);
        assert!(matches!(&blocks[0], Block::Heading(1, r) if r[0].text == "Title <name>"));
        match &blocks[1] {
            Block::Paragraph(runs) => {
                assert_eq!(runs[0], TextRun { text: "Machine:".into(), bold: true });
                assert!(runs[1].text.contains("# not a heading"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&blocks[2], Block::Bullet(r) if r[0].text == "item <x>"));
        assert_eq!(blocks[3], Block::Table(vec![vec!["A".into(), "B".into()], vec!["<a>".into(), "2".into()]]));
        assert_eq!(blocks[4], Block::Table(vec![vec!["#".into()], vec!["1".into()]]));
    }

    // SPEC D2: an answer written for a table prompt fills the table, one row
    // per line; extra `|` stay in the last cell.
    #[test]
    fn a_table_answer_becomes_rows() {
        let md = "| A | B | C |\n|---|---|---|\n| {{write: rows}} | | |\n";
        let fill = |_: &str| "NPU | inference\n\nGPU | graphics | shares DRAM | and | more".to_owned();
        let blocks = parse_template(md, &fill, &|_| None);
        let s = |v: &[&str]| v.iter().map(|c| (*c).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            blocks,
            vec![Block::Table(vec![
                s(&["A", "B", "C"]),
                s(&["NPU", "inference", ""]),
                s(&["GPU", "graphics", "shares DRAM | and | more"]),
            ])]
        );
        // Rows written with markdown's edge bars fill the same cells.
        let edged = |_: &str| "| NPU | inference | confirmed |\n| GPU | graphics |".to_owned();
        let blocks = parse_template(md, &edged, &|_| None);
        assert_eq!(
            blocks,
            vec![Block::Table(vec![
                s(&["A", "B", "C"]),
                s(&["NPU", "inference", "confirmed"]),
                s(&["GPU", "graphics", ""]),
            ])]
        );
    }
}
