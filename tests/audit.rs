//! SPEC A1–A15: a notebook kept by the method passes the audit; each way of
//! breaking a rule produces its own finding, pointing at the row or line.

use std::io::{Read as _, Write as _};
use std::path::Path;

use vernier_engine::audit::{self, Check, Place};
use vernier_engine::documents::{self, STEMS};
use vernier_engine::harness::raw;
use vernier_engine::notebook::{
    Citation, Condition, Notebook, RowRef, Soak, SoakNumbers, SoakProtocol, Tag, WarmupPolicy, store,
};

use crate::util::{at, measurement, text};

/// A notebook that follows the method: stated environment, a prediction
/// before its run, the run with its conditions and raw file, every prompt
/// written, a complete citation, exported after the last change.
fn method_notebook() -> (tempfile::TempDir, std::path::PathBuf, Notebook) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("nb");
    let mut nb = store::create(&dir, "Project 3 — The Memory Wall Lab", at(0)).expect("create");
    for (field, value) in [
        ("Machine / OS", "ThinkPad X1, Linux 6.8"),
        ("Compiler + flags", "rustc -O"),
        ("Power source", "mains"),
        ("Pre-run idle", "5 min"),
    ] {
        nb.set_environment(field, value).expect("set");
    }
    nb.add_prediction(text("matmul ikj, N=512", "about 12 ms", "unit stride"), at(10)).expect("P1");
    record(&dir, &mut nb, measurement("matmul ikj, N=512", &[12.4, 12.5, 12.4, 12.6, 24.9]), 20);
    for stem in STEMS {
        for prompt in documents::prompts(stem) {
            let answer = if prompt.starts_with("name and version") { "none" } else { "Written by the student." };
            nb.set_answer(stem, prompt, answer);
        }
    }
    nb.add_citation(citation("https://example.org/soc-a", "2026-11-02")).expect("citation");
    export(&dir, &nb);
    (tmp, dir, nb)
}

fn citation(url: &str, retrieved: &str) -> Citation {
    Citation {
        figure: "SoC-A peak bandwidth".into(),
        value: "68.3 GB/s".into(),
        url: url.into(),
        retrieved: retrieved.into(),
        tag: Tag::Cited,
    }
}

/// Records `m` with a canary condition, the build from the Environment and
/// a raw file, as the harness does.
fn record(dir: &Path, nb: &mut Notebook, mut m: vernier_engine::notebook::Measurement, seconds: i64) -> u32 {
    let raw_file = raw::write_once(dir, &format!("run-{seconds}"), "arm,trial,seconds\nA,0,0.0125\n").expect("raw");
    m.raw_file = Some(raw_file);
    m.conditions.push(Condition { field: "canary end/start".into(), value: "1.002 (2.1 ms, then 2.1 ms)".into() });
    m.conditions.push(Condition { field: "build".into(), value: "rustc -O (from the Environment)".into() });
    nb.record_run(m, at(seconds))
}

fn export(dir: &Path, nb: &Notebook) {
    store::save(dir, nb).expect("save");
    // The audit compares modification times; keep the export strictly newer.
    std::thread::sleep(std::time::Duration::from_millis(20));
    documents::export_to(dir, nb, None).expect("export");
}

fn checks(dir: &Path) -> Vec<Check> {
    let nb = store::load(dir).expect("load");
    let mut found: Vec<Check> = audit::audit(dir, &nb).findings.iter().map(|f| f.check).collect();
    found.dedup();
    found
}

/// Applies `edit` to the answer of the first prompt of `stem` starting with
/// `prefix`, re-exports, and returns the checks found.
fn with_answer(prefix: &str, answer: &str) -> Vec<Check> {
    let (_tmp, dir, mut nb) = method_notebook();
    let prompt = documents::prompts("report.docx").into_iter().find(|p| p.starts_with(prefix)).expect("prompt");
    nb.set_answer("report.docx", prompt, answer);
    export(&dir, &nb);
    checks(&dir)
}

// SPEC A1–A15: following the method passes.
#[test]
fn a_notebook_that_follows_the_method_passes() {
    let (_tmp, dir, nb) = method_notebook();
    let report = audit::audit(&dir, &nb);
    assert!(report.is_clean(), "{:#?}", report.findings);
    assert!(report.documents_exported);
}

// SPEC A1: an average of runs in the report; a run without its warm-up split.
#[test]
fn a1_average_and_unsplit_n() {
    assert_eq!(with_answer("the mechanism", "The average of three runs was 16.6 ms (MEASURED)."), [Check::A1]);
    let (_tmp, dir, mut nb) = method_notebook();
    let mut m = measurement("imported", &[1.0, 1.1, 1.2]);
    m.warmup = WarmupPolicy::Unknown;
    record(&dir, &mut nb, m, 60);
    export(&dir, &nb);
    assert_eq!(checks(&dir), [Check::A1]);
}

// SPEC A2, N9, N11: a bare number with no conditions, no build and no
// thermal state beyond the canary.
#[test]
fn a2_run_without_power_source_or_thermal_condition() {
    let (_tmp, dir, mut nb) = method_notebook();
    nb.set_environment("Power source", "").expect("clear");
    nb.set_environment("Pre-run idle", "").expect("clear");
    let n = nb.record_run(measurement("bare", &[1.0, 1.1, 1.2]), at(60));
    let report = audit::audit(&dir, &nb);
    let a2: Vec<_> = report.findings.iter().filter(|f| f.check == Check::A2).collect();
    assert!(
        a2.iter().any(|f| f.place == Place::Run { number: n }
            && f.message.contains("build flags")
            && f.message.contains("power source")
            && f.message.contains("thermal condition")),
        "{a2:#?}"
    );
    // SPEC N9: run 1 keeps the power source and idle stated when it ran.
    assert!(!a2.iter().any(|f| f.place == Place::Run { number: 1 }), "{a2:#?}");
}

// SPEC A3: a raw file edited after it was recorded, or missing.
#[test]
fn a3_raw_file_edited_or_missing() {
    let (_tmp, dir, nb) = method_notebook();
    let raw = nb.runs()[0].measurement.raw_file.clone().expect("raw");
    let path = raw.path.resolve(&dir).expect("inside");
    std::fs::OpenOptions::new().append(true).open(&path).expect("open").write_all(b"A,1,0.001\n").expect("edit");
    let report = audit::audit(&dir, &nb);
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    assert_eq!(report.findings[0].check, Check::A3);
    assert!(report.findings[0].message.contains("changed after it was recorded"));
    std::fs::remove_file(&path).expect("remove");
    assert!(audit::audit(&dir, &nb).findings[0].message.contains("does not exist"));
}

// SPEC A4: a locked prediction edited by hand in notebook.ron.
#[test]
fn a4_prediction_edited_by_hand() {
    let (_tmp, dir, _nb) = method_notebook();
    let file = dir.join("notebook.ron");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, text.replace("about 12 ms", "about 13 ms")).expect("write");
    let nb = store::load(&dir).expect("still loads");
    let report = audit::audit(&dir, &nb);
    let a4: Vec<_> = report.findings.iter().filter(|f| f.check == Check::A4).collect();
    assert_eq!(a4.len(), 1, "{:#?}", report.findings);
    assert_eq!(a4[0].place, Place::Prediction { number: 1 });
}

// SPEC A5: a soak missing one of its six numbers.
#[test]
fn a5_soak_without_all_six_numbers() {
    let (_tmp, dir, mut nb) = method_notebook();
    let protocol = SoakProtocol::default();
    let numbers = SoakNumbers {
        peak: 100.0,
        t_onset: Some(80.0),
        t_stable: Some(f64::NAN),
        sustained: 60.0,
        ratio: 0.6,
        tail_iqr: 1.0,
        unit: "chunks/s".into(),
    };
    let raw_file = raw::write_once(&dir, "soak-1", "t_seconds,score\n0,1\n").expect("raw");
    nb.record_soak(
        Soak {
            number: 0,
            recorded_at: at(60),
            discarded: None,
            protocol,
            numbers,
            conditions: Vec::new(),
            raw_file: Some(raw_file),
            tag: Tag::Measured,
            synthetic: false,
            stated: None,
        },
        at(60),
    );
    export(&dir, &nb);
    assert!(checks(&dir).contains(&Check::A5));
}

// SPEC A6: a discarded run that no note names.
#[test]
fn a6_discarded_run_not_mentioned() {
    let (_tmp, dir, mut nb) = method_notebook();
    nb.discard(RowRef::Run(1), "a compile job ran on the other core", at(60)).expect("discard");
    export(&dir, &nb);
    assert!(checks(&dir).is_empty(), "the automatic note names it");
    let file = dir.join("notebook.ron");
    let text = std::fs::read_to_string(&file).expect("read");
    let edited =
        text.replace("Discarded run 1: a compile job", "A compile job").replace("about: Some(Run(1))", "about: None");
    std::fs::write(&file, edited).expect("write");
    let nb = store::load(&dir).expect("load");
    let report = audit::audit(&dir, &nb);
    assert!(report.findings.iter().any(|f| f.check == Check::A6 && f.place == Place::Run { number: 1 }), "{report:#?}");
}

// SPEC A7, A9: a number with no tag; a claimed difference with no test.
#[test]
fn a7_untagged_number_and_a9_untested_claim() {
    assert_eq!(with_answer("performance", "The ikj loop takes 12.5 ms."), [Check::A7]);
    assert_eq!(with_answer("the metric first", "12.5 ms per 512×512 multiply"), [Check::A7], "the headline too");
    assert_eq!(with_answer("performance", "ikj is 8x faster than naive (MEASURED)."), [Check::A9]);
    assert!(with_answer("performance", "ikj is 8x faster than naive, beyond the IQRs' sum (MEASURED).").is_empty());
}

// SPEC A8: a median with more decimals than its IQR supports (a hand-edited report).
#[test]
fn a8_median_rounded_past_its_dispersion() {
    let (_tmp, dir, nb) = method_notebook();
    let shown = nb.runs()[0].median_column();
    let path = dir.join("exports/report.docx");
    rewrite_docx(&path, |xml| {
        assert!(xml.contains(&format!(">{shown}<")), "the report shows {shown}");
        xml.replacen(&format!(">{shown}<"), ">12.4567 ms<", 1)
    });
    assert_eq!(checks(&dir), [Check::A8]);
}

// SPEC A10: synthetic data tagged as if it were measured.
#[test]
fn a10_synthetic_data_not_labelled() {
    let (_tmp, dir, mut nb) = method_notebook();
    let mut m = measurement("modeled", &[1.0, 1.1, 1.2]);
    m.synthetic = true;
    record(&dir, &mut nb, m, 60);
    export(&dir, &nb);
    let found = checks(&dir);
    assert!(found.contains(&Check::A10), "{found:?}");
}

// SPEC A11: a seventh file, a missing one, a stale export.
#[test]
fn a11_exactly_six_files() {
    let (_tmp, dir, mut nb) = method_notebook();
    std::fs::write(dir.join("exports/notes.txt"), "draft").expect("extra");
    assert_eq!(checks(&dir), [Check::A11]);
    std::fs::remove_file(dir.join("exports/notes.txt")).expect("rm");
    std::fs::remove_file(dir.join("exports/ai-usage.txt")).expect("rm");
    assert_eq!(checks(&dir), [Check::A11]);
    documents::export_to(&dir, &nb, None).expect("export");
    std::thread::sleep(std::time::Duration::from_millis(20));
    nb.add_note("after the export", at(90)).expect("note");
    store::save(&dir, &nb).expect("save");
    let report = audit::audit(&dir, &nb);
    assert!(report.findings.iter().any(|f| f.message.contains("export again")), "{report:#?}");
}

// SPEC A12: a citation without its URL or date.
#[test]
fn a12_citation_without_url_or_date() {
    let (_tmp, dir, mut nb) = method_notebook();
    nb.add_citation(citation("", "2026-11-02")).expect("citation");
    export(&dir, &nb);
    assert_eq!(checks(&dir), [Check::A12]);
}

// SPEC A13, A14, A15: the flattering choice, AI usage, the Four Questions.
#[test]
fn a13_a14_a15_unwritten_sections() {
    assert_eq!(with_answer("the choice that most helps", ""), [Check::A13]);
    assert_eq!(with_answer("energy", ""), [Check::A15]);
    let (_tmp, dir, mut nb) = method_notebook();
    let models = documents::prompts("ai-usage.txt")[0];
    nb.set_answer("ai-usage.txt", models, "");
    export(&dir, &nb);
    assert_eq!(checks(&dir), [Check::A14]);
}

fn rewrite_docx(path: &Path, edit: impl Fn(&str) -> String) {
    let bytes = std::fs::read(path).expect("read");
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..zip.len() {
        let mut file = zip.by_index(i).expect("entry");
        let name = file.name().expect("entry name").into_owned();
        let mut content = Vec::new();
        file.read_to_end(&mut content).expect("read entry");
        if name == "word/document.xml" {
            content = edit(&String::from_utf8(content).expect("utf-8")).into_bytes();
        }
        out.start_file(name, zip::write::SimpleFileOptions::default()).expect("start");
        out.write_all(&content).expect("write");
    }
    std::fs::write(path, out.finish().expect("finish").into_inner()).expect("save");
}
