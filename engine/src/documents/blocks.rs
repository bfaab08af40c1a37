//! The document model every exporter writes: headings, paragraphs with
//! bold runs, bullet lists and tables. Templates are Markdown parsed into
//! these blocks; values are substituted into the text *after* parsing, so a
//! value can never change a document's structure.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// A run of text, bold or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The text.
    pub text: String,
    /// Bold.
    pub bold: bool,
}

/// One block of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A heading of level 1–3.
    Heading(u8, Vec<Run>),
    /// A paragraph.
    Paragraph(Vec<Run>),
    /// One bullet item.
    Bullet(Vec<Run>),
    /// A table; the first row is the header.
    Table(Vec<Vec<String>>),
}

/// Parses a Markdown template into blocks, replacing every `{{name}}` in the
/// text with `fill(name)` (tables can also be filled whole: a paragraph that
/// is exactly `{{table:name}}` becomes `table(name)`).
pub fn parse_template(
    markdown: &str,
    fill: &dyn Fn(&str) -> String,
    table: &dyn Fn(&str) -> Option<Vec<Vec<String>>>,
) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut runs: Vec<Run> = Vec::new();
    let mut bold = false;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut cell = String::new();
    let mut in_table = false;
    let push_text = |runs: &mut Vec<Run>, text: &str, bold: bool| {
        let text = substitute(text, fill);
        match runs.last_mut() {
            Some(last) if last.bold == bold => last.text.push_str(&text),
            _ => runs.push(Run { text, bold }),
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
                blocks.push(Block::Table(std::mem::take(&mut rows)));
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
                let name = whole.trim().strip_prefix("[[table:").and_then(|r| r.strip_suffix("]]"));
                match name.and_then(table) {
                    Some(t) => {
                        runs.clear();
                        blocks.push(Block::Table(t));
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

/// The blocks as plain text (for `ai-usage.txt` and previews).
pub fn to_text(blocks: &[Block]) -> String {
    let line = |runs: &[Run]| runs.iter().map(|r| r.text.as_str()).collect::<String>();
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
                    out.push_str(&format!("{}\n", row.join(" | ")));
                }
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // SPEC D2: a value goes in as text and cannot change the structure.
    #[test]
    fn values_cannot_change_structure() {
        let md = "# Title {{name}}\n\n**Machine:** {{machine}}\n\n- item {{x}}\n\n| A | B |\n|---|---|\n| {{a}} | 2 |\n\n[[table:runs]]\n";
        let fill =
            |k: &str| if k == "machine" { "# not a heading\n\n| nor | a table |".to_owned() } else { format!("<{k}>") };
        let table = |k: &str| (k == "runs").then(|| vec![vec!["#".to_owned()], vec!["1".to_owned()]]);
        let blocks = parse_template(md, &fill, &table);
        assert_eq!(blocks.len(), 5);
        assert!(matches!(&blocks[0], Block::Heading(1, r) if r[0].text == "Title <name>"));
        match &blocks[1] {
            Block::Paragraph(runs) => {
                assert_eq!(runs[0], Run { text: "Machine:".into(), bold: true });
                assert!(runs[1].text.contains("# not a heading"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&blocks[2], Block::Bullet(r) if r[0].text == "item <x>"));
        assert_eq!(blocks[3], Block::Table(vec![vec!["A".into(), "B".into()], vec!["<a>".into(), "2".into()]]));
        assert_eq!(blocks[4], Block::Table(vec![vec!["#".into()], vec!["1".into()]]));
    }
}
