//! SPEC A1–A18: a notebook kept by the method passes the audit; each way of
//! breaking a rule produces its own finding, pointing at the row or line.

use std::io::{Read as _, Write as _};
use std::path::Path;

use vernier_engine::audit::{self, Check, Place};
use vernier_engine::documents;
use vernier_engine::harness::raw;
use vernier_engine::notebook::Document;
use vernier_engine::notebook::{
    AnsweredBy, Citation, Committed, Condition, Notebook, PredictionText, RowRef, Soak, SoakNumbers, SoakProtocol, Tag,
    WHOLE_DOCUMENT, WarmupPolicy, store,
};
use vernier_engine::stats::Summary;

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
        ("Workbench", "L not shared"),
    ] {
        nb.set_environment(field, value).expect("set");
    }
    let budget = vernier_engine::notebook::Budget {
        workload: "image_classification".into(),
        deadline_ms: 50.0,
        rate_per_s: Some(10.0),
    };
    nb.set_deadlines(vec![budget]).expect("budget");
    nb.add_prediction(text("matmul ikj, N=512", "about 12 ms", "unit stride"), at(10)).expect("P1");
    record(&dir, &mut nb, measurement("matmul ikj, N=512", &[12.4, 12.5, 12.4, 12.6, 24.9]), 20);
    // A19: the locked prediction is answered by the run that followed it.
    nb.answer_prediction(1, AnsweredBy::Run(1), at(21)).expect("run 1 answers P1");
    for document in Document::ALL {
        for prompt in documents::prompts(document) {
            nb.set_answer(document.stem(), prompt, method_answer(prompt));
        }
    }
    nb.add_citation(citation("https://example.org/soc-a", "2026-11-02")).expect("citation");
    export(&dir, &nb);
    (tmp, dir, nb)
}

/// What a student who follows the method writes for `prompt`: a form the
/// course gives a shape (A21) in that shape, anything else in a sentence.
fn method_answer(prompt: &str) -> &'static str {
    const FORMS: [(&str, &str); 6] = [
        ("name and version", "none"),
        ("confidence", "medium — one machine, but every IQR is small against the differences."),
        (
            "the choice that most helps",
            "The choice that most helps my conclusion is the -O2 build; reversed, my headline becomes a smaller \
             gap, and my conclusion survives.",
        ),
        ("metric before finding", "Median wall time is the metric; ikj is the order to keep."),
        ("three or more adversaries", "a thief with the phone in hand, a malicious app, a network eavesdropper"),
        ("five or more assets", "photos, messages, the phone's identity, the banking app's ability to pay, contacts"),
    ];
    FORMS.iter().find(|(start, _)| prompt.starts_with(start)).map_or("Written by the student.", |(_, answer)| answer)
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
    store::replace(dir, nb).expect("save");
    // The audit compares modification times; keep the export strictly newer.
    std::thread::sleep(std::time::Duration::from_millis(20));
    documents::export_to(dir, nb, None, documents::Overwrite::Never).expect("export");
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
    let prompt = documents::prompts(Document::Report).into_iter().find(|p| p.starts_with(prefix)).expect("prompt");
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
// SPEC A21: the average, MEASURED with no dispersion beside it, also stands bare.
#[test]
fn a1_average_and_unsplit_n() {
    assert_eq!(
        with_answer("the mechanism", "The average of three runs was 16.6 ms (MEASURED)."),
        [Check::A1, Check::A21]
    );
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
    assert!(!checks(&dir).contains(&Check::A6), "the automatic note names it");
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
    documents::export_to(&dir, &nb, None, documents::Overwrite::Never).expect("export");
    std::thread::sleep(std::time::Duration::from_millis(20));
    nb.add_note("after the export", at(90)).expect("note");
    store::replace(&dir, &nb).expect("save");
    let report = audit::audit(&dir, &nb);
    assert!(report.findings.iter().any(|f| f.message.contains("export again")), "{report:#?}");
}

// SPEC A11 (issue 50): an audit told the digest of the bytes it read, after
// an export that recorded the digest of the same bytes, finds what the plain
// audit finds without serialising the notebook: nothing stale while it is
// unchanged, "export again" once it changed. The export records the digest
// of the notebook's compact form, which the workbook carries; a record of
// its text's SHA-256 (before the compact form) is still read by that hash.
#[test]
fn a11_the_read_digest_finds_what_the_text_hash_finds() {
    let (_tmp, dir, _) = method_notebook();
    let (nb, read) = store::load_digested(&dir).expect("load");
    assert_eq!(store::load_digested(&dir).expect("again").1, read, "the same bytes, the same digest");
    documents::export_read(&dir, &nb, Some(&read), None, documents::Overwrite::Never).expect("export");
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(documents::export_record::RECORD_FILE)).expect("record"))
            .expect("json");
    let folder = &record["folders"]["exports"];
    assert_eq!(folder["notebook_read_blake3"], read.as_str());
    assert_eq!(folder["notebook_blake3"], documents::export_record::notebook_blake3(&nb).as_str());
    assert!(folder.get("notebook_sha256").is_none(), "{folder}");
    let stale = |r: &audit::Report| r.findings.iter().any(|f| f.message.contains("export again"));
    let plain = audit::audit(&dir, &nb);
    assert_eq!(audit::audit_read(&dir, &nb, Some(&read), None), plain);
    assert!(!stale(&plain), "{plain:#?}");
    // A record from before the digest was BLAKE3 keeps a SHA-256 under
    // another key: read without it, the audit hashes the text instead.
    let record_file = dir.join(documents::export_record::RECORD_FILE);
    let old =
        std::fs::read_to_string(&record_file).expect("record").replace("notebook_read_blake3", "notebook_read_sha256");
    std::fs::write(&record_file, old).expect("old record");
    assert_eq!(audit::audit_read(&dir, &nb, Some(&read), None), plain, "an older record");
    // A record from before the compact form: its text's SHA-256 decides.
    let mut older: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record_file).expect("record")).expect("json");
    let entry = &mut older["folders"]["exports"];
    let text = store::to_text(&nb).expect("text");
    entry["notebook_sha256"] = vernier_engine::digest::sha256_hex(text.as_bytes()).into();
    for key in ["notebook_blake3", "notebook_read_sha256"] {
        entry.as_object_mut().expect("an entry").remove(key);
    }
    std::fs::write(&record_file, older.to_string()).expect("older record");
    assert_eq!(audit::audit_read(&dir, &nb, None, None), plain, "a record of the text's hash");
    let mut wrong = older.clone();
    wrong["folders"]["exports"]["notebook_sha256"] = vernier_engine::digest::sha256_hex(b"another log").into();
    std::fs::write(&record_file, wrong.to_string()).expect("a record of another log");
    assert!(stale(&audit::audit_read(&dir, &nb, None, None)), "the text's hash of another log is stale");
    documents::export_read(&dir, &nb, Some(&read), None, documents::Overwrite::Never).expect("export again");

    store::change(&dir, |nb| nb.add_note("after the export", at(90))).expect("note");
    let (nb, changed) = store::load_digested(&dir).expect("load");
    assert_ne!(changed, read);
    let plain = audit::audit(&dir, &nb);
    assert_eq!(audit::audit_read(&dir, &nb, Some(&changed), None), plain);
    assert!(stale(&plain), "{plain:#?}");
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
    // A16 names the same unwritten prompt.
    assert_eq!(with_answer("the choice that most helps", ""), [Check::A13, Check::A16]);
    assert_eq!(with_answer("energy", ""), [Check::A15, Check::A16]);
    let (_tmp, dir, mut nb) = method_notebook();
    let models = documents::prompts(Document::AiUsage)[0];
    nb.set_answer("ai-usage.txt", models, "");
    export(&dir, &nb);
    assert_eq!(checks(&dir), [Check::A14, Check::A16]);
}

/// The findings of one check, as (place, message).
fn findings_of(dir: &Path, check: Check) -> Vec<(Place, String)> {
    let nb = store::load(dir).expect("load");
    audit::audit(dir, &nb).findings.into_iter().filter(|f| f.check == check).map(|f| (f.place, f.message)).collect()
}

/// The text of an exported .docx's paragraphs and cells, read back.
fn docx_text(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("read");
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
    let mut xml = String::new();
    zip.by_name("word/document.xml").expect("document").read_to_string(&mut xml).expect("xml");
    let doc = roxmltree::Document::parse(&xml).expect("parse");
    doc.descendants().filter(|n| n.tag_name().name() == "t").filter_map(|n| n.text()).collect::<Vec<_>>().join(" ")
}

// SPEC A16: a prompt left unwritten in an exported document is a finding
// naming the document, the heading it is under and the prompt.
#[test]
fn a16_a_leftover_prompt_is_found() {
    let (_tmp, dir, mut nb) = method_notebook();
    let prompt = documents::prompts(Document::ThreatModel)[3];
    nb.set_answer("threat-model-report.docx", prompt, "");
    export(&dir, &nb);
    assert!(docx_text(&dir.join("exports/threat-model-report.docx")).contains(documents::PROMPT_MARK));
    let found = findings_of(&dir, Check::A16);
    assert_eq!(found.len(), 1, "{found:#?}");
    let (Place::Document { document, section, .. }, message) = &found[0] else { panic!("{found:#?}") };
    assert_eq!(*document, Document::ThreatModel);
    assert!(section.starts_with("Threat Model"), "{section}");
    assert!(message.contains(prompt) && message.contains("threat-model-report.docx 4"), "{message}");
}

// SPEC A16, D2: a prompt, or a whole document, marked not part of this
// submission prints its reason in one line, and the audit accepts it;
// "no citations" is a stated answer. The report itself is always part.
#[test]
fn a16_a_part_marked_not_part_is_accepted() {
    let (_tmp, dir, mut nb) = method_notebook();
    let energy = documents::prompts(Document::Report).into_iter().find(|p| p.starts_with("energy")).expect("energy");
    nb.set_answer("report.docx", energy, "");
    nb.set_not_part("report.docx", energy, "no energy counter on this lab machine").expect("n/a");
    for prompt in documents::prompts(Document::SocReview) {
        nb.set_answer("soc-architecture-review.docx", prompt, "");
    }
    nb.set_not_part("soc-architecture-review.docx", WHOLE_DOCUMENT, "this lab asks for no SoC review").expect("n/a");
    assert!(nb.set_not_part("report.docx", WHOLE_DOCUMENT, "lazy").is_err(), "the report is always part");
    nb.remove_citation(1).expect("remove");
    nb.set_no_citations(true).expect("none");
    export(&dir, &nb);
    let report = docx_text(&dir.join("exports/report.docx"));
    assert!(report.contains("Not part of this submission: no energy counter on this lab machine"), "{report}");
    assert!(report.contains(documents::NO_CITATIONS), "{report}");
    let soc = docx_text(&dir.join("exports/soc-architecture-review.docx"));
    assert!(soc.contains("Not part of this submission: this lab asks for no SoC review"), "{soc}");
    assert!(!soc.contains(documents::PROMPT_MARK), "{soc}");
    let nb = store::load(&dir).expect("load");
    let report = audit::audit(&dir, &nb);
    assert!(report.is_clean(), "{:#?}", report.findings);
    // Taking the mark back makes the prompt a finding again.
    let mut nb = nb;
    nb.set_not_part("report.docx", energy, "").expect("take back");
    export(&dir, &nb);
    assert_eq!(checks(&dir), [Check::A15, Check::A16]);
}

// SPEC A7: the finding names the untagged number; a tag covers its own
// clause only; references, dates and counts are not results.
#[test]
fn a7_names_the_number_and_reads_the_course_literally() {
    let (_tmp, dir, mut nb) = method_notebook();
    let prompt = documents::prompts(Document::Report).into_iter().find(|p| p.starts_with("performance")).expect("p");
    nb.set_answer(
        "report.docx",
        prompt,
        "As Chapter 3 and C.8.4 say, runs 1 and 2 on 2026-11-30 (n=31, warm-up 3): median 12.5 ms (MEASURED); \
         the old build took 40.2 ms.",
    );
    export(&dir, &nb);
    let found = findings_of(&dir, Check::A7);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].1.starts_with("“40.2 ms” has no tag"), "{}", found[0].1);
}

// SPEC A8, S6: a run's median written in prose with more places than its
// dispersion supports is a finding that gives the S6 form, in any section
// of any document; the S6 form, or a coarser one, is not.
#[test]
fn a8_checks_a_median_written_in_prose() {
    let (_tmp, dir, mut nb) = method_notebook();
    let shown = nb.runs()[0].median_column();
    assert_eq!(shown, "12.50 ms", "the fixture's median");
    let prompt = documents::prompts(Document::Report).into_iter().find(|p| p.starts_with("the question")).expect("p");
    let a8 = |nb: &Notebook, stem: &str, prompt: &str, answer: &str| {
        let mut nb = nb.clone();
        nb.set_answer(stem, prompt, answer);
        export(&dir, &nb);
        findings_of(&dir, Check::A8)
    };
    for (answer, found) in [
        ("Run 1 took 12.500 ms (MEASURED).", true),
        ("The ikj loop takes 12.500 ms (MEASURED).", true),
        ("Run 1 took 12.503 ms (MEASURED).", false),
        ("Run 1 took 12500 µs (MEASURED).", false),
        ("Run 1 took 12500.0 µs (MEASURED).", true),
        ("Run 1 took 12.50 ms (MEASURED).", false),
        ("Run 1 took 12.5 ms (MEASURED).", false),
        ("The ikj loop takes 12.50 ms (MEASURED); another kernel took 12.812 ms (MEASURED).", false),
        ("Run 1's minimum was 12.403 ms (MEASURED).", false),
    ] {
        let a8 = a8(&nb, "report.docx", prompt, answer);
        assert_eq!(a8.len(), usize::from(found), "{answer}: {a8:#?}");
        if found {
            assert!(a8[0].1.contains("run 1's median") && a8[0].1.contains("12.50 ms"), "{}", a8[0].1);
        }
    }
    // Another document's prose is read too.
    let threat = documents::prompts(Document::ThreatModel)[0];
    assert_eq!(a8(&nb, "threat-model-report.docx", threat, "Run 1 took 12.500 ms (MEASURED).").len(), 1);
    // Issue 34: a median written as S6 rounds it is never a finding, though
    // another run's shown median is near it at that run's coarser place.
    let tight = measurement("tight", &[2.7, 2.8, 2.94, 3.1, 3.2]);
    let loose = measurement("loose", &[1.0, 2.0, 3.02, 5.0, 6.0]);
    let tight = record(&dir, &mut nb, tight, 30);
    let loose = record(&dir, &mut nb, loose, 31);
    let shown: Vec<String> = nb.runs()[1..].iter().map(|r| r.median_column()).collect();
    assert_eq!(shown, ["2.9 ms", "3 ms"], "the fixture's medians");
    for answer in [
        format!("Run {tight} took 2.9 ms (MEASURED)."),
        "The tight kernel took 2.9 ms (MEASURED).".to_owned(),
        format!("Run {loose} took 3 ms (MEASURED)."),
    ] {
        assert!(a8(&nb, "report.docx", prompt, &answer).is_empty(), "{answer}");
    }
    let over = a8(&nb, "report.docx", prompt, &format!("Run {loose} took 3.0 ms (MEASURED)."));
    assert!(over.len() == 1 && over[0].1.contains("lets be written 3 ms"), "{over:#?}");
}

// SPEC A1 (C.8.2): a mean named as a mean with its reason is a disclosure,
// not a finding; an average without one still is. SPEC A21: each of these
// MEASURED numbers has no dispersion beside it, and stands bare.
#[test]
fn a1_accepts_a_disclosed_mean() {
    assert_eq!(
        with_answer(
            "the thermal state",
            "The tool's score summary is a mean, 40.1 chunks/s, because throttle_analysis.py reports a mean (MEASURED)."
        ),
        [Check::A21]
    );
    assert_eq!(with_answer("the thermal state", "The mean was 40.1 chunks/s (MEASURED)."), [Check::A1, Check::A21]);
    // C.8.2's own example, and a reason that is not a disclosure.
    assert_eq!(
        with_answer("the thermal state", "Median 12.5 ms (MEASURED); mean 15.0 ms (MEASURED)."),
        [Check::A1, Check::A21]
    );
    assert_eq!(
        with_answer("the thermal state", "Because the build changed, the mean time was 12.3 ms (MEASURED)."),
        [Check::A1, Check::A21]
    );
    // Not means; and a total's average (C.8.2's exception).
    assert_eq!(
        with_answer("the thermal state", "In the meantime a meaningful drop of 3 ms (MEASURED) showed."),
        [Check::A21]
    );
    assert_eq!(
        with_answer("the thermal state", "The total energy was 12 J (MEASURED), the average power 3.1 W (DERIVED)."),
        [Check::A21]
    );
}

// SPEC A17: export never overwrites a document edited since Vernier wrote
// it; --force (Overwrite::Edited) does; the audit says when the notebook
// moved on under an edited document.
#[test]
fn a17_export_refuses_to_overwrite_an_edited_document() {
    let (_tmp, dir, mut nb) = method_notebook();
    let report = dir.join("exports/report.docx");
    let mut edited = std::fs::read(&report).expect("read");
    edited.extend_from_slice(b"edited in Word");
    std::fs::write(&report, &edited).expect("edit");
    nb.add_note("after the export", at(90)).expect("note");
    store::replace(&dir, &nb).expect("save");
    let a17 = findings_of(&dir, Check::A17);
    assert!(a17.len() == 1 && a17[0].1.contains("report.docx (changed since Vernier wrote it)"), "{a17:#?}");
    let refused = documents::export_to(&dir, &nb, None, documents::Overwrite::Never).expect_err("refused");
    assert!(refused.to_string().contains("report.docx (changed since Vernier wrote it)"), "{refused}");
    assert!(refused.to_string().contains("--force"), "{refused}");
    assert_eq!(std::fs::read(&report).expect("read"), edited, "nothing was written");
    // A document no record vouches for is not replaced either.
    std::fs::remove_file(dir.join(documents::export_record::RECORD_FILE)).expect("rm record");
    let refused = documents::export_to(&dir, &nb, None, documents::Overwrite::Never).expect_err("unrecorded");
    assert!(refused.to_string().contains("not written by a recorded export"), "{refused}");
    documents::export_to(&dir, &nb, None, documents::Overwrite::Edited).expect("forced");
    assert_ne!(std::fs::read(&report).expect("read"), edited);
    documents::export_to(&dir, &nb, None, documents::Overwrite::Never).expect("unedited files are replaced freely");
    assert!(checks(&dir).is_empty(), "{:?}", checks(&dir));
}

// SPEC A18 (C.5): a kept run built at -O0, or by a compiler with no stated
// level, is a finding, and the report's results leave it out with a line.
#[test]
fn a18_an_unoptimised_build_is_a_diagnostic() {
    let (_tmp, dir, mut nb) = method_notebook();
    let raw_file = raw::write_once(&dir, "run-o0", "arm,trial,seconds\nA,0,0.05\n").expect("raw");
    let mut m = measurement("matmul ikj, N=512, at -O0", &[50.1, 50.2, 50.3]);
    m.raw_file = Some(raw_file);
    m.conditions.push(Condition { field: "build".into(), value: "g++ -O0 -g".into() });
    let n = nb.record_run(m, at(60));
    let mut m = measurement("no level stated", &[50.1, 50.2, 50.3]);
    m.conditions.push(Condition { field: "build".into(), value: "clang++ mm.cpp".into() });
    let unstated = nb.record_run(m, at(61));
    export(&dir, &nb);
    let a18 = findings_of(&dir, Check::A18);
    assert_eq!(
        a18.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>(),
        [Place::Run { number: n }, Place::Run { number: unstated }]
    );
    let report = docx_text(&dir.join("exports/report.docx"));
    assert!(!report.contains("at -O0 |") && !report.contains("matmul ikj, N=512, at -O0 "), "{report}");
    assert!(
        report.contains(&format!("Left out of these results: run {n} — built without optimisation (-O0)")),
        "{report}"
    );
    nb.discard(RowRef::Run(n), "-O0: a diagnostic", at(70)).expect("discard");
    nb.discard(RowRef::Run(unstated), "no level stated", at(71)).expect("discard");
    export(&dir, &nb);
    assert!(findings_of(&dir, Check::A18).is_empty());
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

// SPEC A7, S7, E14 (C.8.4): the report's Method says the verdict convention
// was used and counts the runs under the instrument that measured each.
#[test]
fn the_method_states_the_convention_and_counts_runs_by_instrument() {
    use vernier_engine::import::csv::{CsvSpec, prepare_bytes};
    let (_tmp, dir, mut nb) = method_notebook();
    let spec = CsvSpec { instrument: Some("driver.cpp, steady_clock".into()), ..CsvSpec::column("t_ms") };
    let prepared = prepare_bytes(Path::new("t.csv"), b"t_ms\n1\n2\n3\n", &spec).expect("prepares");
    prepared.record(&dir, &mut nb, at(90)).expect("records");
    export(&dir, &nb);
    let report = docx_text(&dir.join("exports/report.docx"));
    assert!(report.contains("run 1 measured with Vernier's harness (wall time per trial"), "{report}");
    assert!(report.contains("run 2 imported, measured by driver.cpp, steady_clock"), "{report}");
    // SPEC S16 (issue 33): what each row's time is the time of.
    assert!(report.contains("What each time is the time of — "), "{report}");
    // SPEC D8: the instrument is named once, in the line before.
    assert!(report.contains("run 2: what its instrument, named above, states it times"), "{report}");
    assert!(report.contains("Differences are judged by the course's C.8.4 convention (not a statistical test)"));
    assert!(report.contains("claimed only when |mA − mB| > iA + iB"), "{report}");
}

// SPEC A3, N6 (issue 31, finding 11): a raw file no row names and no note
// mentions is named, and so is a reservation left by a writer on another
// host; a failed run's raw file, named in its note, is not.
#[test]
fn a3_raw_files_no_row_refers_to_are_named() {
    let (_tmp, dir, nb) = method_notebook();
    assert!(audit::audit(&dir, &nb).is_clean());
    std::fs::write(dir.join("raw/run-7.csv"), "index,ns\n0,5\n").expect("orphan");
    std::fs::write(dir.join("raw/run-8.csv"), "# vernier: raw file reserved by far-away~42~boot+1\n").expect("theirs");
    std::fs::write(dir.join("raw/failed-1.csv"), "index,ns\n0,5\n").expect("failed run's file");
    store::change(&dir, |nb| nb.add_note("the run failed; raw trials kept in raw/failed-1.csv", at(500)))
        .expect("note");
    let nb = store::load(&dir).expect("load");
    let report = audit::audit(&dir, &nb);
    let named: Vec<&str> =
        report.findings.iter().filter(|f| f.check == Check::A3).map(|f| f.message.as_str()).collect();
    assert_eq!(named.len(), 2, "{named:?}");
    assert!(named.iter().any(|m| m.starts_with("raw/run-7.csv: no row names")), "{named:?}");
    assert!(named.iter().any(|m| m.starts_with("raw/run-8.csv") && m.contains("another host (far-away, pid 42)")));
    assert!(!named.iter().any(|m| m.contains("failed-1")), "{named:?}");
}

/// A notebook holding one of everything Vernier writes into the documents —
/// the header from the Environment, a prediction, runs in three units, a
/// comparison, a sweep, a soak with its curve, an imported run, a run built
/// at -O0, a discarded run, placement budgets and a citation — with no
/// prompt written, exported.
fn everything_vernier_fills() -> (tempfile::TempDir, std::path::PathBuf, Notebook) {
    use vernier_engine::import::csv::{self, Arms, CsvSpec, prepare_bytes};
    use vernier_engine::import::pyperf;
    use vernier_engine::notebook::{Boundary, MetricSpec, OwnFigure, Source};
    use vernier_engine::notebook::{NewSweep, Param};
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("nb");
    let mut nb = store::create(&dir, "Project 3 — The Memory Wall Lab", at(0)).expect("create");
    for (field, value) in [
        ("Machine / OS", "a 2-vCPU VM, 8 GB, Linux 6.8"),
        ("Compiler + flags", "g++-12 -O2 -march=native"),
        ("Workbench", "L not shared"),
        ("Placement control", "pinned to CPU 1"),
        ("Counter access", "not available"),
        ("Power source", "mains"),
        ("Ambient", "~22 °C, room thermometer"),
        ("Physical setup", "hard desk, lid open"),
        ("Pre-run idle", "10 min"),
        ("Other load", "none"),
    ] {
        nb.set_environment(field, value).expect("set");
    }
    let budgets = [("image_classification", 50.0, Some(10.0)), ("wake_word", 2000.0, Some(1.0))];
    nb.set_deadlines(
        budgets
            .map(|(workload, deadline_ms, rate_per_s)| vernier_engine::notebook::Budget {
                workload: workload.into(),
                deadline_ms,
                rate_per_s,
            })
            .to_vec(),
    )
    .expect("budgets");
    nb.add_prediction(text("matmul ikj, N=512", "about 12 ms, 3x faster than ijk", "unit stride"), at(10)).expect("P1");
    record(&dir, &mut nb, measurement("matmul ikj, N=512", &[12.41, 12.52, 12.47, 12.63, 24.9]), 20);
    nb.answer_prediction(1, AnsweredBy::Run(1), at(20)).expect("run 1 answers P1");
    let mut chase = measurement("pointer chase at 64 MiB", &[96.2, 95.1, 97.4, 96.0, 104.8]);
    chase.unit = "ns/access".into();
    chase.ns_per_unit = 1.0;
    record(&dir, &mut nb, chase, 21);
    let naive = [2.54, 2.49, 2.61, 2.52, 3.23];
    let blocked = [0.60, 0.58, 0.62, 0.59, 0.75];
    let file = raw::write_once(&dir, "run-pair", &crate::util::raw_text(&naive, &blocked)).expect("raw");
    crate::util::record_comparison(
        &mut nb,
        &file,
        "matmul N=128",
        ["naive ijk", "blocked 64"],
        [&naive, &blocked],
        None,
    );
    let size = Param::parse("SIZE=16K..1M*4").expect("param");
    let mut runs = Vec::new();
    for (i, value) in size.values.iter().enumerate() {
        let median = 2.0 * 3f64.powi(i as i32);
        let mut m = measurement(&format!("walk: SIZE={}", size.show(value)), &[median * 0.98, median, median * 1.03]);
        m.unit = "ns/access".into();
        m.ns_per_unit = 1.0;
        m.command = vec!["./walk".into(), value.clone()];
        runs.push(record(&dir, &mut nb, m, 30 + i as i64));
    }
    let points = size.values.iter().map(|v| vec![v.clone()]).collect();
    let sweep = NewSweep {
        what: "pointer chase".into(),
        template: vec!["./walk".into(), "{SIZE}".into()],
        params: vec![size],
        points,
    };
    nb.record_sweep(sweep, runs, at(40)).expect("sweep");
    let curve =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shared-host-soak.csv"))
            .expect("soak fixture");
    let raw_file = raw::write_once(&dir, "soak-1", &curve).expect("raw");
    let numbers = SoakNumbers {
        peak: 10.0,
        t_onset: None,
        t_stable: None,
        sustained: 9.98,
        ratio: 0.998,
        tail_iqr: 0.03,
        unit: "chunks/s".into(),
    };
    let mut soak = crate::util::soak_row(SoakProtocol::default(), numbers, 50);
    soak.raw_file = Some(raw_file);
    nb.record_soak(soak, at(50));
    let spec = CsvSpec { instrument: Some("driver.cpp, steady_clock".into()), ..CsvSpec::column("t_ms") };
    let prepared = prepare_bytes(Path::new("t.csv"), b"t_ms\n1.21\n1.25\n1.22\n", &spec).expect("prepares");
    prepared.record(&dir, &mut nb, at(60)).expect("records");
    // A driver's paired CSV (whose comparison Vernier notes), a pyperf
    // file, and a row of the program's own figure read by a regular
    // expression: the instruments' own words are Vernier's to write too.
    let fixture = |name: &str| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let pair = CsvSpec {
        arms: Arms::Two(["naive_ms".into(), "blocked_ms".into()]),
        pair: Some("pair".into()),
        first: Some("first".into()),
        instrument: Some("driver.cpp, steady_clock".into()),
        ..CsvSpec::column("")
    };
    csv::prepare(&fixture("matmul-driver.csv"), &pair).expect("csv").record(&dir, &mut nb, at(61)).expect("pair");
    let pyperf = pyperf::PyperfSpec::default();
    pyperf::prepare(&fixture("pyperf/sums.json.gz"), &pyperf)
        .expect("pyperf")
        .record(&dir, &mut nb, at(62))
        .expect("pyperf");
    let mut own = measurement("pointer chase at 1 MiB, its own figure", &[3.1, 3.2, 3.15]);
    let spec =
        MetricSpec { source: Source::Regex("ns/access: ([0-9.eE+-]+)".into()), unit: "ns/access".into(), each: false };
    own.unit = "ns/access".into();
    own.ns_per_unit = 1.0;
    own.boundary = Some(Boundary::OwnFigure { metric: spec.describe() });
    own.figure = Some(OwnFigure { spec, processes: 3, internal: None });
    record(&dir, &mut nb, own, 63);
    let mut o0 = measurement("matmul ikj, N=512, at -O0", &[50.1, 50.2, 50.3]);
    o0.conditions.push(Condition { field: "build".into(), value: "g++ -O0 -g".into() });
    nb.record_run(o0, at(70));
    let gone = record(&dir, &mut nb, measurement("matmul ijk, N=512", &[41.6, 41.7, 41.9]), 80);
    nb.discard(RowRef::Run(gone), "a compile job ran on the other core", at(90)).expect("discard");
    nb.add_citation(citation("https://example.org/soc-a", "2026-11-02")).expect("citation");
    export(&dir, &nb);
    (tmp, dir, nb)
}

// SPEC A7 (issue 34): what Vernier itself writes into the six documents —
// the header, Method, results, comparisons and their charts' sentences, a
// sweep, the thermals, the placement table, the SoC arithmetic, and every
// sheet of the workbook — states no result without its tag, and an export
// of only that is no A7 finding in any document.
#[test]
fn a7_an_export_of_what_vernier_fills_has_no_untagged_result() {
    let (_tmp, dir, _nb) = everything_vernier_fills();
    let found = findings_of(&dir, Check::A7);
    assert!(found.is_empty(), "{found:#?}");
    // Every document was read: each one's unwritten prompts are named.
    let files: std::collections::BTreeSet<String> = findings_of(&dir, Check::A16)
        .into_iter()
        .filter_map(|(place, _)| match place {
            Place::Document { document, .. } => Some(document.stem().to_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(files.len(), 5, "{files:?}");
}

/// One sentence of tests/fixtures/audit-corpus.txt and the findings it
/// should get.
struct Case {
    file: String,
    /// The text of the paragraph it is written under (the title when empty).
    under: String,
    sentence: String,
    /// (check, number as written), sorted.
    expected: Vec<(Check, String)>,
    /// Marked `?`: a known miss the file explains.
    miss: bool,
}

fn corpus() -> Vec<Case> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit-corpus.txt"))
        .expect("the corpus");
    let (mut file, mut under) = (String::new(), String::new());
    let mut cases = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let (name, anchor) = header.split_once(" | ").unwrap_or((header, ""));
            (file, under) = (name.to_owned(), anchor.to_owned());
            continue;
        }
        let (miss, line) = match line.strip_prefix('?') {
            Some(rest) => (true, rest.trim_start()),
            None => (false, line),
        };
        let (expected, sentence) = line.split_once(" => ").unwrap_or_else(|| panic!("no ' => ' in {line}"));
        let mut findings = Vec::new();
        for group in expected.split(';').map(str::trim).filter(|g| *g != "none") {
            let mut words = group.split_whitespace();
            let check = match words.next() {
                Some("A7") => Check::A7,
                Some("A8") => Check::A8,
                other => panic!("unknown check {other:?} in {line}"),
            };
            findings.extend(words.map(|n| (check, n.to_owned())));
        }
        findings.sort();
        cases.push(Case {
            file: file.clone(),
            under: under.clone(),
            sentence: sentence.to_owned(),
            expected: findings,
            miss,
        });
    }
    cases
}

/// The numbers an A7 or A8 finding names, as written: “16 KiB” has no
/// tag…, “a”, “b” have no tag…, “2.94 ms” is run 2's median….
fn named_numbers(check: Check, message: &str) -> Vec<String> {
    let quoted = match check {
        Check::A7 => message.split([' ']).take_while(|w| !matches!(*w, "has" | "have")).collect::<Vec<_>>().join(" "),
        _ => message.split('”').next().unwrap_or_default().to_owned(),
    };
    quoted.split(", ").filter_map(|q| q.trim_matches(['“', '”']).split_whitespace().next().map(str::to_owned)).collect()
}

/// `xml` (a document.xml) with `paragraphs` inserted after the first body
/// paragraph whose text holds `under` (the first paragraph when empty), and
/// the line the first of them is, as the audit numbers lines: a paragraph
/// or a table row each.
fn insert_under(xml: &str, under: &str, paragraphs: &str) -> (String, usize) {
    let doc = roxmltree::Document::parse(xml).expect("document.xml");
    let body = doc.descendants().find(|n| n.tag_name().name() == "body").expect("a body");
    let mut line = 0;
    for node in body.children().filter(roxmltree::Node::is_element) {
        match node.tag_name().name() {
            "p" => {
                line += 1;
                let text: String =
                    node.descendants().filter(|n| n.tag_name().name() == "t").filter_map(|n| n.text()).collect();
                if text.contains(under) {
                    let at = node.range().end;
                    return (format!("{}{paragraphs}{}", &xml[..at], &xml[at..]), line + 1);
                }
            }
            "tbl" => line += node.children().filter(|n| n.tag_name().name() == "tr").count(),
            _ => {}
        }
    }
    panic!("no paragraph holds {under:?}");
}

/// The size of the multiset intersection of two sorted lists.
fn common<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => (i, j, n) = (i + 1, j + 1, n + 1),
        }
    }
    n
}

// SPEC A7, A8, S6 (issue 34): the audit reads the corpus of student
// sentences as a teaching assistant would. Each sentence is its own
// paragraph, written into an exported document the way a student edits it
// in Word, under the title — a part of the document the audit once did not
// read. Prints precision and recall over the findings; every expected
// finding is found and no other, but for the known misses the file marks.
#[test]
fn a7_a8_the_corpus_is_read_as_a_teaching_assistant_reads_it() {
    let cases = corpus();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let (_tmp, dir, mut nb) = method_notebook();
    record(&dir, &mut nb, measurement("tight", &[2.7, 2.8, 2.94, 3.1, 3.2]), 30);
    record(&dir, &mut nb, measurement("loose", &[1.0, 2.0, 3.02, 5.0, 6.0]), 31);
    let mut chase = measurement("pointer chase", &[95.1, 96.0, 96.237, 97.4, 104.8]);
    chase.unit = "ns/access".into();
    chase.ns_per_unit = 1.0;
    record(&dir, &mut nb, chase, 32);
    let shown: Vec<String> = nb.runs().iter().map(|r| r.median_column()).collect();
    assert_eq!(shown, ["12.50 ms", "2.9 ms", "3 ms", "96.2 ns/access"], "the runs the corpus names");
    export(&dir, &nb);
    // Each document's cases, in order, and the line the first is written on.
    let mut first_line = std::collections::BTreeMap::new();
    for case in &cases {
        if first_line.contains_key(case.file.as_str()) {
            continue;
        }
        let paragraphs: String = cases
            .iter()
            .filter(|c| c.file == case.file)
            .map(|c| {
                let text = c.sentence.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
                format!("<w:p><w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>")
            })
            .collect();
        let line = std::cell::Cell::new(0);
        rewrite_docx(&dir.join("exports").join(&case.file), |xml| {
            let (edited, first) = insert_under(xml, &case.under, &paragraphs);
            line.set(first);
            edited
        });
        first_line.insert(case.file.as_str(), line.get());
    }
    let nb = store::load(&dir).expect("load");
    let mut found: Vec<Vec<(Check, String)>> = vec![Vec::new(); cases.len()];
    for f in audit::audit(&dir, &nb).findings.into_iter().filter(|f| matches!(f.check, Check::A7 | Check::A8)) {
        let Place::Document { document, line, .. } = &f.place else { continue };
        let file = &document.stem().to_owned();
        let (Some(first), Some(&first_line)) =
            (cases.iter().position(|c| &c.file == file), first_line.get(file.as_str()))
        else {
            continue;
        };
        let in_file = cases.iter().filter(|c| &c.file == file).count();
        if (first_line..first_line + in_file).contains(line) {
            let case = first + line - first_line;
            found[case].extend(named_numbers(f.check, &f.message).into_iter().map(|n| (f.check, n)));
        }
    }
    let (mut expected_total, mut found_total, mut right) = (0, 0, 0);
    let mut wrong = Vec::new();
    for (case, found) in cases.iter().zip(&mut found) {
        found.sort();
        expected_total += case.expected.len();
        found_total += found.len();
        right += common(&case.expected, found);
        if (&case.expected != found) != case.miss {
            wrong.push(format!("{}: {:?} expected {:?}, found {found:?}", case.sentence, case.miss, case.expected));
        }
    }
    let precision = right as f64 / found_total.max(1) as f64;
    let recall = right as f64 / expected_total.max(1) as f64;
    eprintln!(
        "audit corpus: {} sentences, {expected_total} expected findings, {found_total} found, {right} right: \
         precision {precision:.3}, recall {recall:.3}, {} known misses",
        cases.len(),
        cases.iter().filter(|c| c.miss).count()
    );
    assert!(wrong.is_empty(), "cases read otherwise than the corpus says:\n{}", wrong.join("\n"));
}

// SPEC A19, N14, T1: a locked prediction nothing answers, a soak prediction
// that commits neither of its two numbers, and prose that says "held" of a
// prediction the rows missed are findings; an answer or a reason clears
// the first.
#[test]
fn a19_every_locked_prediction_is_answered_or_left_open() {
    let (_tmp, dir, mut nb) = method_notebook();
    let figure = Committed::parse("ratio ijk/ikj = 3 ± 50 %").ok();
    let p2 = nb
        .add_prediction(PredictionText { figure, ..text("matmul ijk vs ikj", "ikj 3x faster", "unit stride") }, at(30))
        .expect("P2");
    let ijk = [41.6, 41.7, 41.9];
    let ikj = [2.6, 2.61, 2.59];
    let file = raw::write_once(&dir, "run-pair", &crate::util::raw_text(&ikj, &ijk)).expect("raw");
    let c = crate::util::record_comparison(&mut nb, &file, "matmul", ["ikj", "ijk"], [&ikj, &ijk], None);
    store::replace(&dir, &nb).expect("save");
    let report = audit::audit(&dir, &nb);
    let a19: Vec<_> = report.findings.iter().filter(|f| f.check == Check::A19).collect();
    assert_eq!(a19.len(), 1, "{a19:?}");
    assert_eq!(a19[0].place, Place::Prediction { number: p2 });
    assert!(a19[0].message.contains("P2 is locked and nothing answers it"), "{}", a19[0].message);

    nb.answer_prediction(p2, AnsweredBy::Comparison(c), at(200)).expect("answered");
    assert_eq!(nb.outcome_text(p2), "C1: missed (observed 16×, 5.3× the prediction)");
    nb.set_answer("report", "Discussion", "Prediction P2 held: ikj was about 3x faster.");
    store::replace(&dir, &nb).expect("save");
    let report = audit::audit(&dir, &nb);
    let a19: Vec<_> = report.findings.iter().filter(|f| f.check == Check::A19).collect();
    assert_eq!(a19.len(), 1, "{a19:?}");
    assert!(a19[0].message.contains("says P2 held") && a19[0].message.contains("missed"), "{}", a19[0].message);

    // A soak prediction written before figures existed: sealed without one.
    let p3 = nb
        .add_soak_prediction(
            PredictionText {
                figure: Committed::parse("onset none, S/P 1 ± 0.1").ok(), ..text("soak", "flat", "desk")
            },
            SoakProtocol::default(),
            at(300),
        )
        .expect("P3");
    let mut before_figures = nb.prediction(p3).expect("P3").clone();
    let sealed = before_figures.hash.clone();
    before_figures.figure = None;
    let file = store::to_text(&nb).expect("text");
    let start = file.find("figure: Some(Soak(").expect("the figure in the file");
    let mut depth = 0;
    let mut end = start;
    for (i, c) in file[start..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 1 => {
                end = start + i + 1;
                break;
            }
            ')' => depth -= 1,
            _ => {}
        }
    }
    let older = format!("{}{}", &file[..start], file[end..].trim_start_matches(','))
        .replace(&sealed, &before_figures.expected_hash());
    let older = store::from_bytes(older.as_bytes(), Path::new("older/notebook.ron")).expect("an older notebook opens");
    assert!(older.integrity().is_empty(), "its seal holds without a figure");
    assert!(older.prediction(p3).expect("P3").figure.is_none());
    let report = audit::audit(&dir, &older);
    assert!(
        report.findings.iter().any(|f| f.check == Check::A19
            && f.place == Place::Prediction { number: p3 }
            && f.message.contains("commits none of its two numbers")),
        "{:?}",
        report.findings
    );
}

/// A run of `trials` (ms) recorded with a raw file in Vernier's own format
/// holding them after one warm-up trial, its summary then changed by
/// `forge`, as a hand editing notebook.ron would.
fn forged_run(dir: &Path, nb: &mut Notebook, trials: &[f64], forge: impl FnOnce(&mut Summary)) -> u32 {
    let mut text = format!("{}\n0,A,0,1,99000000,0\n", raw::HEADER);
    for (i, ms) in trials.iter().enumerate() {
        text.push_str(&format!("{},A,{},0,{},0\n", i + 1, i + 1, (ms * 1e6).round() as u64));
    }
    let mut m = measurement("forged", trials);
    m.raw_file = Some(raw::write_once(dir, "forged", &text).expect("raw"));
    m.conditions.push(Condition { field: "canary end/start".into(), value: "1.002 (2.1 ms, then 2.1 ms)".into() });
    m.conditions.push(Condition { field: "build".into(), value: "rustc -O (from the Environment)".into() });
    forge(&mut m.summary);
    nb.record_run(m, at(90))
}

/// The findings that cite N16, as (check, message).
fn n16_findings(dir: &Path, nb: &Notebook) -> Vec<(Check, String)> {
    audit::audit(dir, nb)
        .findings
        .into_iter()
        .filter(|f| f.message.contains("(N16)"))
        .map(|f| (f.check, f.message))
        .collect()
}

// SPEC N16, A3 (issue 45 item 7, issue 48 item 7): the audit recomputes a
// row's summary from the raw file it keeps. The honest row passes; a median
// edited below its own min is found twice — the summary contradicts itself
// (A1) and is not its raw file's (A3); a median moved within its quartiles,
// or an n changed, is found against the file.
#[test]
fn n16_a_rows_summary_is_its_raw_files() {
    let trials = [12.4, 12.5, 12.4, 12.6, 24.9];
    let (_tmp, dir, mut nb) = method_notebook();
    forged_run(&dir, &mut nb, &trials, |_| {});
    assert!(n16_findings(&dir, &nb).is_empty(), "{:#?}", n16_findings(&dir, &nb));

    let (_tmp, dir, mut nb) = method_notebook();
    forged_run(&dir, &mut nb, &trials, |s| s.median = 1.0);
    let found = n16_findings(&dir, &nb);
    assert!(
        found.iter().any(|(c, m)| *c == Check::A1 && m.contains("its P25 (12.4 ms) is above its median (1 ms)")),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|(c, m)| *c == Check::A3 && m.contains("median 1 ms (the file's trials give 12.5 ms)")),
        "{found:#?}"
    );

    let (_tmp, dir, mut nb) = method_notebook();
    forged_run(&dir, &mut nb, &trials, |s| s.median = 12.55);
    let found = n16_findings(&dir, &nb);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, Check::A3);
    assert!(found[0].1.contains("median 12.55 ms (the file's trials give 12.5 ms)"), "{found:#?}");

    let (_tmp, dir, mut nb) = method_notebook();
    forged_run(&dir, &mut nb, &trials, |s| s.n = 7);
    let found = n16_findings(&dir, &nb);
    assert!(found.iter().any(|(c, m)| *c == Check::A3 && m.contains("n 7 (the file's trials give 5)")), "{found:#?}");
}

// SPEC N16, A1 (issue 45 item 7): a summary that contradicts itself is a
// finding even when the row keeps no raw file to recompute it from.
#[test]
fn n16_a_summary_that_contradicts_itself_without_a_raw_file() {
    let (_tmp, dir, mut nb) = method_notebook();
    let mut m = measurement("typed in", &[3.0, 4.0, 5.0]);
    m.summary.median = 2.0;
    let n = nb.record_run(m, at(95));
    let found: Vec<_> = audit::audit(&dir, &nb)
        .findings
        .into_iter()
        .filter(|f| f.place == Place::Run { number: n } && f.message.contains("contradicts itself (N16)"))
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].check, Check::A1);
    assert!(found[0].message.contains("its P25 (3.5 ms) is above its median (2 ms)"), "{found:#?}");
}

/// One document of tests/fixtures/forms-corpus.txt and the A21 forms it
/// breaks.
struct FormCase {
    file: String,
    /// Its paragraphs and table rows, as written in the file.
    body: Vec<String>,
    /// The forms broken, sorted (the corpus's names: `flattering`, `bare`…).
    expected: Vec<String>,
    /// Marked `?==`: a known miss the file explains.
    miss: bool,
}

fn forms_corpus() -> Vec<FormCase> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/forms-corpus.txt"))
        .expect("the forms corpus");
    let mut cases: Vec<FormCase> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("//")) {
        let (miss, header) = match line.strip_prefix("?==").or(line.strip_prefix("==")) {
            Some(header) => (line.starts_with('?'), header),
            None => {
                cases.last_mut().unwrap_or_else(|| panic!("{line} before any case")).body.push(line.to_owned());
                continue;
            }
        };
        let (file, expected) = header.split_once(" => ").unwrap_or_else(|| panic!("no ' => ' in {line}"));
        let mut expected: Vec<String> =
            expected.split(';').map(str::trim).filter(|e| *e != "none").map(str::to_owned).collect();
        expected.sort();
        cases.push(FormCase { file: file.trim().to_owned(), body: Vec::new(), expected, miss });
    }
    cases
}

/// The body of a document.xml holding `lines` as a student's Word file
/// holds them: `#` lines as headings of their level, `|` lines as rows of
/// one table, the rest as paragraphs.
fn docx_body(lines: &[String]) -> String {
    let escape = |t: &str| t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let run = |t: &str| format!("<w:r><w:t xml:space=\"preserve\">{}</w:t></w:r>", escape(t));
    let mut xml = String::new();
    let mut in_table = false;
    for line in lines.iter().map(|l| l.replace("**", "")) {
        let row = line.strip_prefix('|').map(|r| r.trim_end_matches('|'));
        if row.is_some_and(|r| r.chars().all(|c| matches!(c, '-' | '|' | ':' | ' '))) {
            continue;
        }
        match (row, in_table) {
            (Some(_), false) => xml.push_str("<w:tbl>"),
            (None, true) => xml.push_str("</w:tbl>"),
            _ => {}
        }
        in_table = row.is_some();
        if let Some(row) = row {
            let cells: String = row.split('|').map(|c| format!("<w:tc><w:p>{}</w:p></w:tc>", run(c.trim()))).collect();
            xml.push_str(&format!("<w:tr>{cells}</w:tr>"));
            continue;
        }
        let level = line.chars().take_while(|c| *c == '#').count();
        let style =
            if level > 0 { format!("<w:pPr><w:pStyle w:val=\"Heading{level}\"/></w:pPr>") } else { String::new() };
        xml.push_str(&format!("<w:p>{style}{}</w:p>", run(line[level..].trim())));
    }
    if in_table {
        xml.push_str("</w:tbl>");
    }
    xml
}

/// The corpus's name for the form an A21 finding says is broken.
fn form_of(message: &str) -> &'static str {
    const FORMS: [(&str, &str); 11] = [
        ("flattering choice", "flattering"),
        ("Confidence must", "confidence"),
        ("the conclusion", "conclusion"),
        (" bare:", "bare"),
        ("Confirmed? cell", "confirmed"),
        ("bandwidth is claimed", "bandwidth"),
        ("named; the threat model names three", "adversaries"),
        ("device in hand", "physical"),
        ("named; the threat model names five", "assets"),
        ("every asset is data", "not-data"),
        ("the verdict is", "verdict"),
    ];
    FORMS.iter().find(|(words, _)| message.contains(words)).map_or("unknown", |(_, form)| form)
}

// SPEC A21 (issue 48): the audit reads the corpus of filled documents as a
// teaching assistant holding C.10–C.12 reads them. Each document is written
// as the whole body of its .docx in an exported notebook and audited there;
// the A21 findings are compared form by form with the ones the corpus
// names. Prints precision and recall over those findings, and holds both at
// 0.9 or above; every case reads as the corpus says but for its known misses.
#[test]
fn a21_the_forms_corpus_is_read_as_a_teaching_assistant_reads_it() {
    let cases = forms_corpus();
    let flawed = cases.iter().filter(|c| !c.expected.is_empty()).count();
    assert!(cases.len() >= 20 && flawed * 2 >= cases.len(), "{} documents, {flawed} flawed", cases.len());
    let (_tmp, dir, _nb) = method_notebook();
    let (mut expected_total, mut found_total, mut right) = (0, 0, 0);
    let mut wrong = Vec::new();
    for case in &cases {
        let body = docx_body(&case.body);
        rewrite_docx(&dir.join("exports").join(&case.file), |xml| {
            let (Some(start), Some(end)) = (xml.find("<w:body>"), xml.find("</w:body>")) else {
                panic!("no body in {}", case.file)
            };
            format!("{}<w:body>{body}{}", &xml[..start], &xml[end..])
        });
        let nb = store::load(&dir).expect("load");
        let mut found: Vec<String> = audit::audit(&dir, &nb)
            .findings
            .into_iter()
            .filter(|f| f.check == Check::A21)
            .filter(|f| matches!(&f.place, Place::Document { document, .. } if document.stem() == case.file))
            .map(|f| form_of(&f.message).to_owned())
            .collect();
        found.sort();
        found.dedup();
        expected_total += case.expected.len();
        found_total += found.len();
        right += common(&case.expected, &found);
        if (case.expected != found) != case.miss {
            wrong.push(format!(
                "{} {:?}: expected {:?}, found {found:?}, known miss: {}",
                case.file,
                case.body.first(),
                case.expected,
                case.miss
            ));
        }
    }
    let precision = right as f64 / found_total.max(1) as f64;
    let recall = right as f64 / expected_total.max(1) as f64;
    eprintln!(
        "forms corpus: {} documents, {flawed} flawed, {expected_total} expected A21 findings, {found_total} found, \
         {right} right: precision {precision:.3}, recall {recall:.3}, {} known misses",
        cases.len(),
        cases.iter().filter(|c| c.miss).count()
    );
    assert!(wrong.is_empty(), "documents read otherwise than the corpus says:\n{}", wrong.join("\n"));
    assert!(precision >= 0.9 && recall >= 0.9, "precision {precision:.3}, recall {recall:.3}");
}

// SPEC A21, A20: an export of everything Vernier fills, its prompts not
// yet written, keeps every form: Vernier's template, values, tables (the
// SoC memory arithmetic, the placement table) and sentences are its own,
// and an unwritten form is A16's, not A21's.
#[test]
fn a21_an_export_of_what_vernier_fills_breaks_no_form() {
    let (_tmp, dir, _nb) = everything_vernier_fills();
    let found = findings_of(&dir, Check::A21);
    assert!(found.is_empty(), "{found:#?}");
    assert!(!findings_of(&dir, Check::A16).is_empty(), "the prompts are unwritten");
}

// SPEC A21: forms written through `vernier write` (set_answer) and
// exported are read in the exported documents: a hedged Confidence, a
// flattering choice with no word on the reversal, a conclusion whose
// finding comes first, and a threat model of two remote adversaries and
// four data assets, each found at its line; the method notebook's own
// answers keep every form.
#[test]
fn a21_forms_written_by_the_student_are_read_in_the_exports() {
    let (_tmp, dir, mut nb) = method_notebook();
    assert!(findings_of(&dir, Check::A21).is_empty(), "{:#?}", findings_of(&dir, Check::A21));
    let answer = |nb: &mut Notebook, document: Document, start: &str, text: &str| {
        let prompt = documents::prompts(document).into_iter().find(|p| p.starts_with(start)).expect("prompt");
        nb.set_answer(document.stem(), prompt, text);
    };
    answer(&mut nb, Document::Report, "confidence", "medium to high, the host was quiet.");
    answer(&mut nb, Document::Report, "the choice that", "Reporting the median; I think that was fair.");
    answer(&mut nb, Document::Report, "metric before", "ikj is faster, in median wall time, than ijk.");
    answer(&mut nb, Document::ThreatModel, "three or more", "a remote attacker, a malicious app");
    answer(&mut nb, Document::ThreatModel, "five or more", "photos, messages, contacts, location history");
    // Under the memory table Vernier fills with its own MT/s arithmetic:
    // that table is not the student's derivation.
    answer(
        &mut nb,
        Document::SocReview,
        "four sentences per block",
        "Memory: LPDDR5X on a 64-bit bus reaches 77 GB/s peak (CITED, vendor product page).",
    );
    export(&dir, &nb);
    let found = findings_of(&dir, Check::A21);
    let mut forms: Vec<(&str, String)> = found
        .iter()
        .map(|(place, message)| {
            let Place::Document { section, .. } = place else { panic!("{place:?}") };
            (form_of(message), section.clone())
        })
        .collect();
    forms.sort();
    let expected = [
        ("adversaries", "Threat Model"),
        ("assets", "Threat Model"),
        ("bandwidth", ""),
        ("conclusion", "9. Conclusion"),
        ("confidence", "Project 3 — The Memory Wall Lab"),
        ("flattering", "7. Limitations, and the flattering choice"),
        ("not-data", "Threat Model"),
        ("physical", "Threat Model"),
    ];
    assert_eq!(forms.iter().map(|(f, _)| *f).collect::<Vec<_>>(), expected.map(|(f, _)| f), "{found:#?}");
    for ((_, section), (_, heading)) in forms.iter().zip(expected) {
        assert!(section.starts_with(heading), "{section} under {heading}");
    }
}
