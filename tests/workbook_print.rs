//! SPEC D3, S6, S11, N5: `measurements.xlsx` read on paper. The workbook's
//! own XML is read back (it is a zip: `xl/workbook.xml`, its relationships,
//! `xl/worksheets/sheetN.xml`, `xl/styles.xml`) and the print it asks for is
//! computed: how far each sheet is scaled down to fit one landscape page's
//! width, and the font size that leaves.

use std::collections::HashMap;
use std::io::Read as _;

use calamine::Data;
use vernier_engine::documents::measurements;
use vernier_engine::notebook::Param;
use vernier_engine::notebook::{
    Condition, EnvField, NewPair, NewSweep, Notebook, RowRef, RunColumn, Soak, SoakNumbers, SoakProtocol, Tag,
};
use vernier_engine::stats::{Spread, Summary, compare, paired_ratios};

use crate::util::{at, measurement, saved_notebook};

/// Calibri 11, the workbook's font: a column's `width` in the sheet's XML
/// counts characters of 7 pixels (its padding included), at 96 pixels per
/// inch.
const PX_PER_CHAR: f64 = 7.0;
const PX_PER_INCH: f64 = 96.0;
/// The font size the cells are written in, points.
const FONT_PT: f64 = 11.0;
/// The smallest print a person reads without effort, points.
const SMALLEST_PT: f64 = 8.0;
/// Landscape page widths, inches: US Letter and A4.
const PAPERS: [(&str, f64); 2] = [("Letter", 11.0), ("A4", 297.0 / 25.4)];

fn part(bytes: &[u8], name: &str) -> String {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip package");
    let mut text = String::new();
    zip.by_name(name).unwrap_or_else(|e| panic!("{name}: {e}")).read_to_string(&mut text).expect("utf-8");
    text
}

fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.descendants().find(|n| n.tag_name().name() == name)
}

fn number(node: Option<roxmltree::Node<'_, '_>>, attribute: &str) -> Option<f64> {
    node?.attribute(attribute)?.parse().ok()
}

/// `A` → 1, `S` → 19, `AA` → 27.
fn column_number(letters: &str) -> u32 {
    letters.chars().take_while(char::is_ascii_uppercase).fold(0, |n, c| n * 26 + (c as u32 - 'A' as u32 + 1))
}

/// 0 → `A`, 26 → `AA`.
fn column_letters(index: usize) -> String {
    let (mut n, mut letters) = (index + 1, String::new());
    while n > 0 {
        letters.insert(0, char::from(b'A' + ((n - 1) % 26) as u8));
        n = (n - 1) / 26;
    }
    letters
}

/// The visible sheets, by name, each with its part's path, in order.
fn visible_sheets(bytes: &[u8]) -> Vec<(String, String)> {
    let rels = part(bytes, "xl/_rels/workbook.xml.rels");
    let rels = roxmltree::Document::parse(&rels).expect("rels");
    let target: HashMap<&str, &str> = rels
        .descendants()
        .filter(|n| n.tag_name().name() == "Relationship")
        .filter_map(|n| Some((n.attribute("Id")?, n.attribute("Target")?)))
        .collect();
    let workbook = part(bytes, "xl/workbook.xml");
    let workbook = roxmltree::Document::parse(&workbook).expect("workbook.xml");
    workbook
        .descendants()
        .filter(|n| n.tag_name().name() == "sheet" && n.attribute("state") != Some("hidden"))
        .map(|n| {
            let id = n.attributes().find(|a| a.name() == "id").expect("r:id").value();
            (n.attribute("name").expect("name").to_owned(), format!("xl/{}", target[id]))
        })
        .collect()
}

/// What one sheet asks of the printer, and the print that gives.
#[derive(Debug)]
struct Print {
    /// Each column's width, characters with the padding.
    widths: Vec<f64>,
    /// Every printed column's width together, in pixels.
    width_px: f64,
    /// The font size on the narrower of Letter and A4, points.
    font_pt: f64,
    /// The scale on that paper, percent (Excel's fit rounds down).
    scale: u32,
    paper: &'static str,
}

/// Reads sheet `path`'s page setup, checks it asks for one landscape page
/// wide with the header row repeated and the grid printed, and computes the
/// print: the sheet's columns (as many as its `<dimension>` spans, each its
/// `<col width>` or the default) scaled to fit the page's width inside its
/// margins.
fn print_of(bytes: &[u8], name: &str, path: &str, index: usize) -> Print {
    let xml = part(bytes, path);
    let doc = roxmltree::Document::parse(&xml).expect("sheet xml");
    let root = doc.root();
    // A line across the table above its header (the Runs sheet's shared
    // conditions, D8) is repeated with it.
    let top = usize::from(xml.contains("<mergeCell ref=\"A1:"));
    let setup = child(root, "pageSetup").unwrap_or_else(|| panic!("{name}: no pageSetup"));
    assert_eq!(setup.attribute("orientation"), Some("landscape"), "{name}: landscape");
    let fit = child(root, "pageSetUpPr").and_then(|n| n.attribute("fitToPage"));
    assert_eq!(fit, Some("1"), "{name}: fitted to the page");
    // OOXML's defaults: fitToWidth and fitToHeight are 1 when absent.
    assert_eq!(number(Some(setup), "fitToWidth").unwrap_or(1.0), 1.0, "{name}: one page wide");
    assert_eq!(number(Some(setup), "fitToHeight").unwrap_or(1.0), 0.0, "{name}: as many pages tall as it needs");
    assert_eq!(child(root, "printOptions").and_then(|n| n.attribute("gridLines")), Some("1"), "{name}: gridlines");
    let workbook = part(bytes, "xl/workbook.xml");
    let titles = roxmltree::Document::parse(&workbook).expect("workbook.xml");
    let repeated = titles.descendants().any(|n| {
        n.attribute("name") == Some("_xlnm.Print_Titles")
            && n.attribute("localSheetId") == Some(&index.to_string())
            && n.text().is_some_and(|t| t.ends_with(&format!("!$1:${}", 1 + top)))
    });
    assert!(repeated, "{name}: the header row (and the line above it) is repeated on every printed page");

    // The columns printed: the print area's, else every column used.
    let area = titles.descendants().find(|n| {
        n.attribute("name") == Some("_xlnm.Print_Area") && n.attribute("localSheetId") == Some(&index.to_string())
    });
    let used = child(root, "dimension").and_then(|n| n.attribute("ref")).expect("a dimension");
    let range = area.and_then(|n| n.text()).map_or(used, |t| t.rsplit('!').next().unwrap_or(t));
    let printed = column_number(range.rsplit(':').next().expect("a range").trim_start_matches('$')) as usize;
    let last = column_number(used.rsplit(':').next().expect("a range"));
    let default = number(child(root, "sheetFormatPr"), "defaultColWidth").unwrap_or(8.43 + 5.0 / 7.0);
    let mut widths = vec![default; last as usize];
    for col in root.descendants().filter(|n| n.tag_name().name() == "col") {
        let (min, max) = (number(Some(col), "min").expect("min") as u32, number(Some(col), "max").expect("max") as u32);
        for k in min..=max.min(last) {
            widths[k as usize - 1] = number(Some(col), "width").expect("width");
        }
    }
    let width_px = widths[..printed.min(widths.len())].iter().sum::<f64>() * PX_PER_CHAR;
    let margins = child(root, "pageMargins");
    let sides = number(margins, "left").expect("left margin") + number(margins, "right").expect("right margin");
    let (paper, page_in) = PAPERS.into_iter().min_by(|a, b| a.1.total_cmp(&b.1)).expect("papers");
    let page_px = (page_in - sides) * PX_PER_INCH;
    let scale = ((100.0 * page_px / width_px).floor() as u32).min(100);
    Print { widths, width_px, font_pt: FONT_PT * f64::from(scale) / 100.0, scale, paper }
}

fn condition(field: &str, value: &str) -> Condition {
    Condition { field: field.into(), value: value.into() }
}

/// A notebook as a student's looks a week in: long Environment values,
/// runs with long commands and the conditions Vernier reads, a comparison,
/// a discarded run, a soak, a sweep and long notes.
fn lab_notebook() -> (tempfile::TempDir, Notebook) {
    let (tmp, _dir, mut nb) = saved_notebook();
    nb.set_environment_field(EnvField::MachineOs, "Debian 12 (bookworm) on a 2-core KVM guest, kernel 6.1.0-18-amd64")
        .expect("machine");
    nb.set_environment_field(EnvField::CompilerFlags, "g++ 12.2 -O2 -march=native -std=c++17 -fno-omit-frame-pointer")
        .expect("compiler");
    nb.set_environment_field(EnvField::PowerSource, "mains").expect("power");
    let conditions = vec![
        condition("CPU model", "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"),
        condition("logical CPUs", "2"),
        condition("compiler", "rustc 1.95.0 (59807616e 2026-04-14) — release build (opt-level 3)"),
        condition("power source", "mains (stated)"),
        condition("canary end/start", "0.892"),
        condition("placement used", "not pinned (no --pin given)"),
        condition("hypervisor", "yes (vendor not readable) — a shared host"),
        condition("load average", "2.88 2.52 2.15"),
    ];
    let seconds = |what: &str, command: &[&str], trials: &[f64]| {
        let mut m = measurement(what, trials);
        (m.unit, m.ns_per_unit) = ("s".into(), 1e9);
        m.command = command.iter().map(|s| s.to_string()).collect();
        m.conditions = conditions.clone();
        m
    };
    let naive = [0.000_324_0, 0.000_324_145_5, 0.000_324_3, 0.000_323_9, 0.000_324_5];
    let blocked = [0.000_071_2, 0.000_070_9, 0.000_071_5, 0.000_071_0, 0.000_072_8];
    let a = nb.record_run(
        seconds(
            "matmul ijk (naive), N=128, one thread, the inner loop striding down a column",
            &["vernier", "bench", "--kernel", "matmul-naive", "--size", "128", "--warmup", "1", "-n", "5"],
            &naive,
        ),
        at(100),
    );
    let b = nb.record_run(
        seconds(
            "matmul blocked, N=128, tile 64",
            &["vernier", "bench", "--kernel", "matmul-blocked", "--size", "128", "--tile", "64"],
            &blocked,
        ),
        at(100),
    );
    let (sa, sb) = (Summary::of(&naive).expect("A"), Summary::of(&blocked).expect("B"));
    let verdict = compare(Spread::from(&sa), Spread::from(&sb), ("naive", "blocked"), "median wall time", "s");
    let pair = NewPair {
        what: "matmul naive vs blocked, N=128".into(),
        labels: ["naive".into(), "blocked".into()],
        verdict,
        paired: paired_ratios(&naive, &blocked),
        order: None,
    };
    nb.record_pair(pair, [a, b], at(100)).expect("a comparison");
    let sleep = nb.record_run(
        seconds(
            "sleep 10 ms through the shell, to see the timer floor and the process start cost",
            &["/bin/sh", "-c", "for i in 1 2 3; do sleep 0.01; done > /dev/null 2>&1"],
            &[0.0345, 0.0351, 0.0339, 0.0362, 0.0348],
        ),
        at(200),
    );
    nb.discard(RowRef::Run(sleep), "measured while a compile ran in another terminal", at(210)).expect("discard");
    nb.record_soak(
        Soak {
            number: 0,
            recorded_at: at(300),
            discarded: None,
            protocol: SoakProtocol::default(),
            numbers: SoakNumbers {
                peak: 40.495_123,
                t_onset: Some(80.0),
                t_stable: Some(200.0),
                sustained: 36.312_77,
                ratio: 0.896_7,
                tail_iqr: 0.213,
                unit: "chunks/s".into(),
            },
            conditions: conditions.clone(),
            raw_file: None,
            tag: Tag::Measured,
            synthetic: false,
            stated: None,
        },
        at(300),
    );
    // A parameter scan, three points.
    let size = Param::parse("SIZE=1M..16M*4").expect("a parameter");
    let points: Vec<Vec<String>> = size.values.iter().map(|v| vec![v.clone()]).collect();
    let runs = size
        .values
        .iter()
        .enumerate()
        .map(|(i, value)| {
            let median = 1.5 * 4f64.powi(i as i32);
            let mut m =
                measurement(&format!("chase: SIZE={}", size.show(value)), &[median * 0.98, median, median * 1.04]);
            (m.unit, m.command) = ("ns/access".into(), vec!["./chase".into(), "--bytes".into(), value.clone()]);
            m.conditions = conditions.clone();
            nb.record_run(m, at(350))
        })
        .collect();
    let sweep = NewSweep {
        what: "pointer chase across the cache levels".into(),
        template: vec!["./chase".into(), "--bytes".into(), "{SIZE}".into()],
        params: vec![size],
        points,
    };
    nb.record_sweep(sweep, runs, at(350)).expect("a sweep");
    nb.add_note(
        "The fan spun up during run 2; the laptop was on the desk with the lid open, room about 22 °C. \
         Run 3 repeats it after a 60 s idle, with the browser closed and the charger plugged in throughout.",
        at(400),
    )
    .expect("note");
    (tmp, nb)
}

/// The cell `reference`'s number format, from the sheet's `s` attribute
/// through `styles.xml`'s cellXfs to its numFmt (`General` when none).
fn number_format(bytes: &[u8], sheet: &str, reference: &str) -> String {
    let xml = part(bytes, sheet);
    let doc = roxmltree::Document::parse(&xml).expect("sheet");
    let cell = doc
        .descendants()
        .find(|n| n.tag_name().name() == "c" && n.attribute("r") == Some(reference))
        .unwrap_or_else(|| panic!("no cell {reference}"));
    let style: usize = cell.attribute("s").map_or(0, |s| s.parse().expect("a style index"));
    let styles = part(bytes, "xl/styles.xml");
    let styles = roxmltree::Document::parse(&styles).expect("styles");
    let xfs = child(styles.root(), "cellXfs").expect("cellXfs");
    let xf = xfs.children().filter(|n| n.is_element()).nth(style).expect("the cell's xf");
    let id = xf.attribute("numFmtId").unwrap_or("0");
    styles
        .descendants()
        .find(|n| n.tag_name().name() == "numFmt" && n.attribute("numFmtId") == Some(id))
        .and_then(|n| n.attribute("formatCode"))
        .unwrap_or("General")
        .to_owned()
}

/// Whether cell `reference`'s font is struck through.
fn struck(bytes: &[u8], sheet: &str, reference: &str) -> bool {
    let xml = part(bytes, sheet);
    let doc = roxmltree::Document::parse(&xml).expect("sheet");
    let cell = doc.descendants().find(|n| n.tag_name().name() == "c" && n.attribute("r") == Some(reference));
    let style: usize = cell.and_then(|c| c.attribute("s")).map_or(0, |s| s.parse().expect("a style index"));
    let styles = part(bytes, "xl/styles.xml");
    let styles = roxmltree::Document::parse(&styles).expect("styles");
    let xf = child(styles.root(), "cellXfs").and_then(|x| x.children().filter(|n| n.is_element()).nth(style));
    let font: usize = xf.and_then(|x| x.attribute("fontId")).map_or(0, |f| f.parse().expect("a font index"));
    let fonts = child(styles.root(), "fonts").expect("fonts");
    let font = fonts.children().filter(|n| n.is_element()).nth(font).expect("the font");
    child(font, "strike").is_some()
}

// SPEC D3: every visible sheet of a realistic notebook prints landscape, one
// page wide, its header row on every page, with gridlines — and fitting the
// width leaves text of at least 8 pt on Letter and on A4 (the scale below is
// computed from the column widths the file states, not taken from the
// writer).
#[test]
fn every_sheet_prints_one_page_wide_at_a_readable_size() {
    let (_tmp, nb) = lab_notebook();
    let bytes = measurements::write(&nb).expect("workbook");
    let sheets = visible_sheets(&bytes);
    assert_eq!(sheets.len(), 7, "{sheets:?}");
    for (index, (name, path)) in sheets.iter().enumerate() {
        let print = print_of(&bytes, name, path, index);
        println!(
            "{name}: columns {:.0} px, printed at {}% on landscape {} = {:.1} pt",
            print.width_px, print.scale, print.paper, print.font_pt
        );
        assert!(print.font_pt >= SMALLEST_PT, "{name} prints at {:.1} pt: {print:?}", print.font_pt);
        numbers_fit(&bytes, name, path, &print.widths);
    }
}

/// Checks every number cell of sheet `path` shown at a fixed place fits its
/// column: a number cannot wrap, and one wider than its column prints `###`.
fn numbers_fit(bytes: &[u8], name: &str, path: &str, widths: &[f64]) {
    let xml = part(bytes, path);
    let doc = roxmltree::Document::parse(&xml).expect("sheet");
    for cell in doc.descendants().filter(|n| n.tag_name().name() == "c" && n.attribute("t").is_none()) {
        let (Some(reference), Some(value)) = (cell.attribute("r"), child(cell, "v").and_then(|v| v.text())) else {
            continue;
        };
        let value: f64 = value.parse().expect("a number");
        let format = number_format(bytes, path, reference);
        let shown = match format.as_str() {
            "0" => format!("{value:.0}"),
            code if code.starts_with("0.") && code[2..].chars().all(|c| c == '0') => {
                format!("{value:.decimals$}", decimals = code.len() - 2)
            }
            // A row number after its letter: `"W"0` shows W1.
            code if code.starts_with('"') && code.ends_with("\"0") => {
                format!("{}{value:.0}", code.trim_matches(['"', '0']))
            }
            _ => continue,
        };
        // A digit is one character of width; a capital letter up to 1.8 (W).
        let needed: f64 = shown.chars().map(|c| if c.is_ascii_uppercase() { 1.8 } else { 1.0 }).sum();
        // The file states a width to 1/256 of a character; the column is a whole number of pixels.
        let characters = ((widths[column_number(reference) as usize - 1] * PX_PER_CHAR).round() - 5.0) / PX_PER_CHAR;
        assert!(needed <= characters, "{name}!{reference} shows {shown} in {characters:.1} characters");
    }
}

/// The Runs sheet's rows, header first, and its part's path.
use crate::util::runs_sheet as runs_of;

// SPEC S6, D3: a number cell keeps its full value and its number format
// shows the decimals S6 allows for its row — the same digits the row's
// Median text shows, here in the stored unit (s, where the text is in µs).
// Drift's percentage shows the digits the Dispersion text gives it.
#[test]
fn number_cells_show_the_digits_s6_allows() {
    let (_tmp, nb) = lab_notebook();
    let bytes = measurements::write(&nb).expect("workbook");
    let rows = runs_of(&bytes);
    let header: Vec<String> = rows[0].iter().map(ToString::to_string).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no {name}"));
    // Run 2: median 0.0003241455 s, IQR 0.0000003 s → 7 decimals, 4 significant.
    let row = 2;
    assert_eq!(rows[row][col("Median (s)")], Data::Float(0.000_324_145_5), "the full value stays in the cell");
    assert_eq!(rows[row][col(RunColumn::Median.header())].to_string(), "324.1 µs");
    // The rows' lines in the sheet: under the line of shared conditions (D8).
    let top = usize::from(crate::util::runs_shared_line(&bytes).is_some());
    let cell = |name: &str| format!("{}{}", column_letters(col(name)), row + 1 + top);
    let sheet = "xl/worksheets/sheet3.xml";
    assert_eq!(number_format(&bytes, sheet, &cell("Median (s)")), "0.0000000");
    for name in ["IQR (s)", "Min (s)", "Max (s)"] {
        assert_eq!(number_format(&bytes, sheet, &cell(name)), "0.0000000", "{name} at the median's place");
    }
    // Each row its own place: run 1 (12.50 ms, IQR 0.20 ms) gets 2.
    assert_eq!(rows[1][col(RunColumn::Median.header())].to_string(), "12.50 ms");
    let first = format!("{}{}", column_letters(col("Median (ms)")), 2 + top);
    assert_eq!(number_format(&bytes, sheet, &first), "0.00");
    // Drift: the Dispersion text's digits, as a signed percentage.
    let dispersion = rows[row][col(RunColumn::Dispersion.header())].to_string();
    let shown = dispersion.split("drift ").nth(1).expect("a drift in the Dispersion column");
    let decimals = shown.trim_end_matches(" %").split('.').nth(1).map_or(0, str::len);
    let zeros = if decimals == 0 { "0".to_owned() } else { format!("0.{}", "0".repeat(decimals)) };
    assert_eq!(number_format(&bytes, sheet, &cell("Drift (value)")), format!("+{zeros}%;-{zeros}%;{zeros}%"));
    // The soak's P at the place its tail IQR supports (0.21 → 2 decimals),
    // as a number in its unit's own column; the course's P column reads as
    // the log shows it.
    let soaks = "xl/worksheets/sheet6.xml";
    let soak_header: Vec<String> = {
        use calamine::Reader as _;
        let mut book: calamine::Xlsx<_> =
            calamine::open_workbook_from_rs(std::io::Cursor::new(&bytes)).expect("readable");
        let range = book.worksheet_range("Soak runs").expect("Soak runs");
        range.rows().next().expect("a header").iter().map(ToString::to_string).collect()
    };
    let p = soak_header.iter().position(|h| h.starts_with("P (")).expect("a P (unit) column");
    assert_eq!(number_format(&bytes, soaks, &format!("{}2", column_letters(p))), "0.00", "P");
    assert_eq!(number_format(&bytes, soaks, "A2"), "\"S\"0", "a soak's # reads S1");
    assert_eq!(number_format(&bytes, soaks, "B2"), "General\" s\"", "its duration reads 600 s");
}

// SPEC D3, N5, S11: `#` is a number; a discarded run keeps its mark (its
// reason in Discarded, the row struck through); each arm of a comparison
// names the other.
#[test]
fn runs_are_numbered_marked_and_linked() {
    let (_tmp, nb) = lab_notebook();
    let bytes = measurements::write(&nb).expect("workbook");
    let rows = runs_of(&bytes);
    let header: Vec<String> = rows[0].iter().map(ToString::to_string).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no {name}"));
    let numbers: Vec<&Data> = rows[1..].iter().map(|r| &r[col("#")]).collect();
    let expected: Vec<Data> = (1..=7).map(|n| Data::Float(f64::from(n))).collect();
    assert_eq!(numbers, expected.iter().collect::<Vec<_>>());
    let text = |row: usize, name: &str| rows[row].get(col(name)).map(ToString::to_string).unwrap_or_default();
    assert_eq!(text(2, "Compared with"), "run 3 (C1)");
    assert_eq!(text(3, "Compared with"), "run 2 (C1)");
    assert_eq!(text(1, "Compared with"), "", "run 1 is in no comparison");
    assert_eq!(text(4, "Discarded"), "measured while a compile ran in another terminal");
    let sheet = "xl/worksheets/sheet3.xml";
    let top = usize::from(crate::util::runs_shared_line(&bytes).is_some());
    assert!(struck(&bytes, sheet, &format!("A{}", 5 + top)), "the discarded run is struck through");
    assert!(!struck(&bytes, sheet, &format!("A{}", 4 + top)), "a kept run is not");
    // D4: the workbook still reopens as the same notebook.
    assert_eq!(measurements::read(&bytes, "measurements.xlsx").expect("reopens"), nb);
}
