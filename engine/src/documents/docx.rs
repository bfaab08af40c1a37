//! A small WordprocessingML writer: real `Heading1`–`Heading3` styles, bold
//! runs, bullets and tables with a repeated header row — what Word and
//! LibreOffice open as a proper document.

use std::fmt::Write as _;
use std::io::Write as _;

use super::blocks::{Block, TextRun};
use super::chart::Picture;

/// Writes `blocks` as the bytes of a `.docx` file.
pub fn write(title: &str, blocks: &[Block]) -> Result<Vec<u8>, zip::result::ZipError> {
    // The document is written straight into its one buffer: a semester's
    // results table makes it 12 MB (issue 50).
    let mut document = String::from(DOCUMENT_HEAD);
    let mut media: Vec<(String, &[u8])> = Vec::new();
    let mut rels = String::from(DOCUMENT_RELS_HEAD);
    for block in blocks {
        match block {
            Block::Heading(level, runs) => paragraph(&mut document, Some(&format!("Heading{level}")), false, runs),
            Block::Paragraph(runs) => paragraph(&mut document, None, false, runs),
            Block::Bullet(runs) => paragraph(&mut document, Some("ListBullet"), true, runs),
            Block::Table(rows) => table(&mut document, rows),
            Block::Picture(p) => {
                let n = media.len() + 1;
                let _ = write!(
                    rels,
                    r#"<Relationship Id="rIdImg{n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/chart{n}.png"/>"#
                );
                media.push((format!("word/media/chart{n}.png"), &p.png));
                picture(&mut document, n, p);
            }
        }
    }
    rels.push_str("</Relationships>");
    document.push_str(DOCUMENT_TAIL);
    let core = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{}</dc:title><dc:creator>Vernier</dc:creator></cp:coreProperties>"#,
        escaped(title)
    );
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    // Deflate's fastest level: a semester's results table makes the report's
    // XML 12 MB, which level 6 packed in twice the instructions (409 M
    // against 197 M for the whole document, callgrind) to 212 KB instead of
    // 323 KB (issue 50).
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1));
    for (name, content) in [
        ("[Content_Types].xml", CONTENT_TYPES),
        ("_rels/.rels", ROOT_RELS),
        ("word/_rels/document.xml.rels", rels.as_str()),
        ("word/styles.xml", STYLES),
        ("word/numbering.xml", NUMBERING),
        ("docProps/core.xml", core.as_str()),
        ("word/document.xml", document.as_str()),
    ] {
        zip.start_file(name, options)?;
        zip.write_all(content.as_bytes())?;
    }
    // PNG is already compressed.
    let stored = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, png) in media {
        zip.start_file(name, stored)?;
        zip.write_all(png)?;
    }
    Ok(zip.finish()?.into_inner())
}

fn paragraph(out: &mut String, style: Option<&str>, bullet: bool, runs: &[TextRun]) {
    paragraph_open(out, style, bullet);
    for run in runs {
        text_run(out, run.bold, &run.text);
    }
    out.push_str("</w:p>");
}

/// A paragraph's start, with its style and bullet if any.
fn paragraph_open(out: &mut String, style: Option<&str>, bullet: bool) {
    out.push_str("<w:p>");
    if style.is_some() || bullet {
        out.push_str("<w:pPr>");
        if let Some(style) = style {
            let _ = write!(out, r#"<w:pStyle w:val="{style}"/>"#);
        }
        if bullet {
            out.push_str(r#"<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>"#);
        }
        out.push_str("</w:pPr>");
    }
}

/// A run of `text`, bold or not.
fn text_run(out: &mut String, bold: bool, text: &str) {
    out.push_str("<w:r>");
    if bold {
        out.push_str("<w:rPr><w:b/></w:rPr>");
    }
    // A line break inside a written answer stays a line break.
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push_str("<w:br/>");
        }
        out.push_str(r#"<w:t xml:space="preserve">"#);
        escape(out, line);
        out.push_str("</w:t>");
    }
    out.push_str("</w:r>");
}

/// An inline picture the width of the text column, keeping its aspect,
/// kept on the page of what follows it (its caption, its table).
fn picture(out: &mut String, n: usize, p: &Picture) {
    // The A4 text column: the page's 11906 twips less both 1134-twip
    // margins, at 635 EMU a twip (17.0 cm); a wider picture ran into the
    // right margin.
    const WIDTH_EMU: u64 = (11_906 - 2 * 1_134) * 635;
    let height = WIDTH_EMU * u64::from(p.height) / u64::from(p.width.max(1));
    let alt = escaped(&p.alt);
    let _ = write!(
        out,
        r#"<w:p><w:pPr><w:keepNext/><w:jc w:val="center"/></w:pPr><w:r><w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="{WIDTH_EMU}" cy="{height}"/><wp:docPr id="{n}" name="Chart {n}" descr="{alt}"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="{n}" name="chart{n}.png" descr="{alt}"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rIdImg{n}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="{WIDTH_EMU}" cy="{height}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>"#
    );
}

fn table(out: &mut String, rows: &[Vec<String>]) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0).max(1);
    out.push_str(r#"<w:tbl><w:tblPr><w:tblStyle w:val="Grid"/><w:tblW w:w="5000" w:type="pct"/><w:tblBorders>"#);
    for side in ["top", "left", "bottom", "right", "insideH", "insideV"] {
        let _ = write!(out, r#"<w:{side} w:val="single" w:sz="4" w:space="0" w:color="999999"/>"#);
    }
    out.push_str("</w:tblBorders></w:tblPr><w:tblGrid>");
    for _ in 0..columns {
        out.push_str(r#"<w:gridCol/>"#);
    }
    out.push_str("</w:tblGrid>");
    for (i, row) in rows.iter().enumerate() {
        out.push_str("<w:tr>");
        if i == 0 {
            // The header repeats on every page the table spans.
            out.push_str("<w:trPr><w:tblHeader/></w:trPr>");
        }
        for k in 0..columns {
            let text = row.get(k).map_or("", String::as_str);
            out.push_str("<w:tc><w:tcPr><w:tcW w:w=\"0\" w:type=\"auto\"/></w:tcPr>");
            paragraph_open(out, Some("TableText"), false);
            text_run(out, i == 0, text);
            out.push_str("</w:p></w:tc>");
        }
        out.push_str("</w:tr>");
    }
    out.push_str("</w:tbl><w:p/>");
}

/// Every text the document shows, made inert (a control or direction
/// character shown as an escape: it may come from someone else's file, and
/// a single U+0001 would make the document unloadable) and XML-escaped,
/// onto the end of `out`. It is read as prose, so the joiners a Persian
/// answer or an emoji needs stay. A multi-line run is split into lines
/// before it gets here.
fn escape(out: &mut String, text: &str) {
    let text = crate::display::inert_prose(text);
    let mut plain = 0;
    for (at, c) in text.match_indices(['&', '<', '>', '"', '\t', '\u{FFFE}', '\u{FFFF}']) {
        out.push_str(&text[plain..at]);
        out.push_str(match c {
            "&" => "&amp;",
            "<" => "&lt;",
            ">" => "&gt;",
            "\"" => "&quot;",
            "\t" => " ",
            _ => "",
        });
        plain = at + c.len();
    }
    out.push_str(&text[plain..]);
}

/// [`escape`] of `text` alone.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape(&mut out, text);
    out
}

/// The document's XML up to its body's first block.
const DOCUMENT_HEAD: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>"#;

/// The document's XML after its body's last block: the A4 page.
const DOCUMENT_TAIL: &str = r#"<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1134" w:right="1134" w:bottom="1134" w:left="1134" w:header="709" w:footer="709" w:gutter="0"/></w:sectPr></w:body></w:document>"#;

const CONTENT_TYPES: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>"#;

const ROOT_RELS: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>"#;

/// The document's relationships up to the pictures, which are appended.
const DOCUMENT_RELS_HEAD: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>"#;

const STYLES: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Liberation Sans" w:hAnsi="Liberation Sans" w:cs="Liberation Sans"/><w:sz w:val="21"/></w:rPr></w:rPrDefault><w:pPrDefault><w:pPr><w:spacing w:after="120"/></w:pPr></w:pPrDefault></w:docDefaults><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:pPr><w:keepNext/><w:spacing w:before="360" w:after="120"/><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="36"/></w:rPr></w:style><w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:pPr><w:keepNext/><w:spacing w:before="280" w:after="100"/><w:outlineLvl w:val="1"/></w:pPr><w:rPr><w:b/><w:sz w:val="28"/></w:rPr></w:style><w:style w:type="paragraph" w:styleId="Heading3"><w:name w:val="heading 3"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:pPr><w:keepNext/><w:spacing w:before="200" w:after="80"/><w:outlineLvl w:val="2"/></w:pPr><w:rPr><w:b/><w:sz w:val="24"/></w:rPr></w:style><w:style w:type="paragraph" w:styleId="ListBullet"><w:name w:val="List Bullet"/><w:basedOn w:val="Normal"/><w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:style><w:style w:type="paragraph" w:styleId="TableText"><w:name w:val="Table Text"/><w:basedOn w:val="Normal"/><w:pPr><w:spacing w:after="0"/></w:pPr><w:rPr><w:sz w:val="18"/></w:rPr></w:style><w:style w:type="table" w:styleId="Grid"><w:name w:val="Table Grid"/></w:style></w:styles>"#;

const NUMBERING: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>"#;
