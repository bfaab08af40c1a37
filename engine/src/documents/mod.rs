//! The six submission documents (SPEC D): filled from the notebook, written
//! as real files. Exporters are pure functions from the notebook to bytes;
//! writing them is the caller's job.

pub mod blocks;
pub mod docx;
pub mod measurements;
pub mod placement;

use blocks::parse_template;

use crate::notebook::{EnvField, Notebook, Tag};

/// Exactly the six document names (D1), in the course's order.
pub const STEMS: [&str; 6] = [
    "report.docx",
    "measurements.xlsx",
    "soc-architecture-review.docx",
    "placement-decision.docx",
    "threat-model-report.docx",
    "ai-usage.txt",
];

/// Marks what only the student can write; the audit looks for it.
pub const PROMPT_MARK: &str = "✎ WRITE:";

const REPORT: &str = include_str!("../../../templates/report.md");
const SOC_REVIEW: &str = include_str!("../../../templates/soc-architecture-review.md");
const PLACEMENT: &str = include_str!("../../../templates/placement-decision.md");
const THREAT_MODEL: &str = include_str!("../../../templates/threat-model-report.md");
const AI_USAGE: &str = include_str!("../../../templates/ai-usage.md");

/// An export could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The Word writer failed.
    #[error("writing a .docx failed: {0}")]
    Docx(#[from] zip::result::ZipError),
    /// The workbook writer failed.
    #[error("writing measurements.xlsx failed: {0}")]
    Xlsx(#[from] rust_xlsxwriter::XlsxError),
    /// The notebook could not be serialised into the workbook.
    #[error("embedding the notebook failed: {0}")]
    Embed(#[from] ron::Error),
}

/// The six documents, in [`STEMS`] order, as `(name, bytes)`.
pub fn export(nb: &Notebook) -> Result<Vec<(&'static str, Vec<u8>)>, ExportError> {
    let fill = |name: &str| value(nb, name);
    let table = |name: &str| table(nb, name);
    let doc = |md: &str| parse_template(md, &fill, &table);
    let report = doc(REPORT);
    Ok(vec![
        ("report.docx", docx::write(&nb.title, &report)?),
        ("measurements.xlsx", measurements::write(nb)?),
        ("soc-architecture-review.docx", docx::write(&nb.title, &doc(SOC_REVIEW))?),
        ("placement-decision.docx", docx::write(&nb.title, &doc(PLACEMENT))?),
        ("threat-model-report.docx", docx::write(&nb.title, &doc(THREAT_MODEL))?),
        ("ai-usage.txt", blocks::to_text(&doc(AI_USAGE)).into_bytes()),
    ])
}

/// For each document, how many parts still wait for the student to write
/// them (marked prompts), in [`STEMS`] order; the workbook has none.
pub fn unwritten(nb: &Notebook) -> Vec<(&'static str, usize)> {
    let fill = |name: &str| value(nb, name);
    let table = |name: &str| table(nb, name);
    let count = |md: &str| blocks::to_text(&parse_template(md, &fill, &table)).matches(PROMPT_MARK).count();
    vec![
        ("report.docx", count(REPORT)),
        ("measurements.xlsx", 0),
        ("soc-architecture-review.docx", count(SOC_REVIEW)),
        ("placement-decision.docx", count(PLACEMENT)),
        ("threat-model-report.docx", count(THREAT_MODEL)),
        ("ai-usage.txt", count(AI_USAGE)),
    ]
}

/// The value of `{{name}}`: from the notebook, or a marked prompt.
fn value(nb: &Notebook, name: &str) -> String {
    if let Some(prompt) = name.strip_prefix("write:") {
        return format!("{PROMPT_MARK} {}", prompt.trim());
    }
    let env = |f: EnvField| {
        let v = nb.environment.get(f);
        if v.is_empty() { format!("{PROMPT_MARK} {} is empty in the Environment", f.label()) } else { v }
    };
    match name {
        "title" => nb.title.clone(),
        "workbench" => env(EnvField::Workbench),
        "machine" => env(EnvField::MachineOs),
        "build" => env(EnvField::CompilerFlags),
        "conditions" => [
            EnvField::PowerSource,
            EnvField::Ambient,
            EnvField::PhysicalSetup,
            EnvField::OtherLoad,
            EnvField::PreRunIdle,
        ]
        .iter()
        .map(|f| {
            let v = nb.environment.get(*f);
            format!("{}: {}", f.label().to_lowercase(), if v.is_empty() { "not stated" } else { v.as_str() })
        })
        .collect::<Vec<_>>()
        .join(" · "),
        "method" => method(nb),
        "thermals" => thermals(nb),
        other => format!("{PROMPT_MARK} {other}"),
    }
}

fn method(nb: &Notebook) -> String {
    let kept: Vec<_> = nb.runs().iter().filter(|r| r.discarded.is_none()).collect();
    if kept.is_empty() {
        return format!(
            "{PROMPT_MARK} no runs are recorded yet; describe what you ran, warm-up + timed repetitions and the instrument"
        );
    }
    let discarded = nb.runs().len() - kept.len();
    format!(
        "{} runs measured with Vernier's harness (wall time per trial, std::time::Instant), each summarised by its median, \
         interquartile range, min and max; warm-up and timed repetitions are given per row below. {} run(s) were discarded \
         and are listed, with reasons, in the measurement log.",
        kept.len(),
        discarded
    )
}

fn thermals(nb: &Notebook) -> String {
    match nb.soaks().iter().find(|s| s.discarded.is_none()) {
        Some(s) => {
            let n = &s.numbers;
            format!(
                "Soak {} ({} s, sampled every {} s): P {:.3} {u}, S {:.3} {u}, S/P {:.2}, tail IQR {:.3} {u}; onset {}.",
                s.label(),
                s.protocol.duration_s,
                s.protocol.interval_s,
                n.peak,
                n.sustained,
                n.ratio,
                n.tail_iqr,
                n.t_onset.map_or_else(|| "none observed".into(), |t| format!("at {t} s")),
                u = n.unit
            )
        }
        None => format!("{PROMPT_MARK} no soak is recorded; say what you know of the thermal state of every number"),
    }
}

fn table(nb: &Notebook, name: &str) -> Option<Vec<Vec<String>>> {
    let row = |cells: &[&str]| cells.iter().map(|c| (*c).to_owned()).collect::<Vec<String>>();
    Some(match name {
        "results" => {
            let mut rows =
                vec![row(&["Experiment", "Median", "Dispersion", "n (warm-up + timed)", "Conditions", "Tag"])];
            for r in nb.runs().iter().filter(|r| r.discarded.is_none()) {
                let c = r.columns();
                rows.push(vec![
                    c[1].clone(),
                    c[4].clone(),
                    c[5].clone(),
                    c[3].clone(),
                    brief(&r.measurement.conditions),
                    c[9].clone(),
                ]);
            }
            for s in nb.soaks().iter().filter(|s| s.discarded.is_none()) {
                let c = s.columns();
                rows.push(vec![
                    format!("soak {}", c[0]),
                    format!("S {}", c[6]),
                    format!("tail IQR {}", c[8]),
                    format!("{} at {}", c[1], c[2]),
                    c[9].clone(),
                    s.tag.to_string(),
                ]);
            }
            rows
        }
        "provenance" => {
            let mut rows = vec![row(&["Category", "Count", "Notes"])];
            for tag in Tag::ALL {
                let count = nb.runs().iter().filter(|r| r.discarded.is_none() && r.measurement.tag == tag).count()
                    + nb.soaks().iter().filter(|s| s.discarded.is_none() && s.tag == tag).count();
                let synthetic = nb.runs().iter().any(|r| r.measurement.synthetic && r.measurement.tag == tag)
                    || nb.soaks().iter().any(|s| s.synthetic && s.tag == tag);
                let note = match (tag, synthetic) {
                    (_, true) => "includes SYNTHETIC data",
                    (Tag::Measured, _) => "rows of the measurement log",
                    _ => "",
                };
                rows.push(vec![tag.to_string(), count.to_string(), note.to_owned()]);
            }
            rows
        }
        "citations" => vec![
            row(&["Figure", "Value", "Source (URL)", "Retrieved", "Tag"]),
            vec![
                format!("{PROMPT_MARK} every cited figure, with its URL and retrieval date"),
                String::new(),
                String::new(),
                String::new(),
                "CITED".into(),
            ],
        ],
        _ => return None,
    })
}

/// The conditions a report sentence carries: power, thermal state, placement.
fn brief(conditions: &[crate::notebook::Condition]) -> String {
    ["power source", "canary end/start", "placement used"]
        .iter()
        .filter_map(|f| conditions.iter().find(|c| c.field == *f).map(|c| format!("{}: {}", c.field, c.value)))
        .collect::<Vec<_>>()
        .join("; ")
}
