//! SPEC N1, N2, N3, N5, N8: the folder, round trips, schema and errors.

use vernier_engine::notebook::{LoadError, RowRef, RunColumn, Tag, store};

use crate::util::{at, saved_notebook};

// SPEC N1: the folder holds notebook.ron, raw/ and exports/.
#[test]
fn new_notebook_has_the_folder_layout() {
    let (_tmp, dir, _nb) = saved_notebook();
    assert!(dir.join("notebook.ron").is_file());
    assert!(dir.join("raw").is_dir());
    assert!(dir.join("exports").is_dir());
    assert!(matches!(store::create(&dir, "again", at(0)), Err(vernier_engine::notebook::CreateError::Exists { .. })));
}

// SPEC N1–N5: what is saved loads back identical.
#[test]
fn round_trip_keeps_everything() {
    let (_tmp, dir, mut nb) = saved_notebook();
    nb.set_environment("Power source", "mains").expect("field");
    nb.set_environment("Workbench", "L, shared").expect("field");
    nb.discard(RowRef::Run(1), "lid closed at t=120 s", at(70)).expect("discard");
    store::replace(&dir, &nb).expect("save");
    let back = store::load(&dir).expect("load");
    assert_eq!(back, nb);
    assert_eq!(back.run(1).expect("run 1").measurement.tag, Tag::Measured);
}

// SPEC N5: a discarded run stays, struck, and is listed under notes.
#[test]
fn discard_keeps_the_run_and_notes_the_reason() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    nb.discard(RowRef::Run(1), "closed the lid out of habit", at(70)).expect("discard");
    assert_eq!(nb.runs().len(), 1);
    assert_eq!(nb.run(1).expect("run").discarded.as_ref().expect("discarded").reason, "closed the lid out of habit");
    assert!(nb.run(1).expect("run").cell(RunColumn::Number).contains("discarded"));
    let note = nb.notes().last().expect("a note");
    assert_eq!(note.about, Some(RowRef::Run(1)));
    assert!(note.text.contains("closed the lid out of habit"));
    assert!(nb.discard(RowRef::Run(1), "again", at(80)).is_err(), "the first reason is kept");
    assert!(nb.discard(RowRef::Run(9), "no such run", at(80)).is_err());
    assert!(nb.discard(RowRef::Run(1), "  ", at(80)).is_err());
}

// SPEC N8: a malformed file names the file, line and column.
#[test]
fn malformed_file_names_line_and_column() {
    let (_tmp, dir, _nb) = saved_notebook();
    let path = dir.join("notebook.ron");
    let text = std::fs::read_to_string(&path).expect("read");
    let broken = text.replacen("title:", "title =", 1);
    let line = broken.lines().position(|l| l.contains("title =")).expect("line") + 1;
    std::fs::write(&path, broken).expect("write");
    match store::load(&dir) {
        Err(LoadError::Syntax { path: p, line: l, column, .. }) => {
            assert_eq!(p, path);
            assert_eq!(l, line);
            assert!(column > 1);
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }
    let message = store::load(&dir).expect_err("still broken").to_string();
    assert!(message.starts_with(&format!("{}:{line}:", path.display())), "{message}");
}

// SPEC N8: a newer schema is refused, naming the versions.
#[test]
fn newer_schema_is_refused() {
    let (_tmp, dir, _nb) = saved_notebook();
    let path = dir.join("notebook.ron");
    let current = format!("schema: {},", store::SCHEMA_VERSION);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains(&current));
    let newer = store::SCHEMA_VERSION + 1;
    std::fs::write(&path, text.replacen(&current, &format!("schema: {newer},"), 1)).expect("write");
    let err = store::load(&dir).expect_err("refused");
    assert!(
        matches!(err, LoadError::NewerSchema { found, supported, .. } if found == newer && supported == store::SCHEMA_VERSION),
        "{err:?}"
    );
    assert!(err.to_string().contains("update Vernier"));
}

// SPEC N8: a version 1 notebook (before the documents' writing was kept)
// opens with nothing lost and is saved as the current version.
#[test]
fn version_1_notebooks_are_migrated() {
    let v1 = include_str!("fixtures/notebook-with-runs.ron");
    assert!(v1.contains("schema: 1,") && !v1.contains("writing"));
    let nb = store::from_bytes(v1.as_bytes(), std::path::Path::new("v1/notebook.ron")).expect("a v1 file loads");
    assert_eq!(nb.schema, store::SCHEMA_VERSION);
    assert_eq!(nb.runs().len(), 2);
    assert!(nb.integrity().is_empty(), "the chain survives the migration");
    let saved = store::to_text(&nb).expect("text");
    assert!(saved.contains(&format!("schema: {},", store::SCHEMA_VERSION)));
    assert_eq!(store::from_bytes(saved.as_bytes(), std::path::Path::new("v2/notebook.ron")).expect("reload"), nb);
}

// SPEC N1: a stored raw-file path that leaves the folder is refused on load.
#[test]
fn escaping_raw_path_is_refused_on_load() {
    let (_tmp, dir, mut nb) = saved_notebook();
    let run = (*nb.run(1).expect("run").measurement).clone();
    let mut with_raw = run;
    with_raw.raw_file = Some(vernier_engine::notebook::RawFile {
        path: vernier_engine::notebook::NotebookPath::new("raw/run-2.csv").expect("fine"),
        sha256: "0".repeat(64),
        arm: "A".into(),
        imported: None,
    });
    nb.record_run(with_raw, at(90));
    store::replace(&dir, &nb).expect("save");
    let path = dir.join("notebook.ron");
    let text = std::fs::read_to_string(&path).expect("read").replace("raw/run-2.csv", "../../../etc/hostname");
    std::fs::write(&path, text).expect("write");
    let err = store::load(&dir).expect_err("refused").to_string();
    assert!(err.contains("leaves the notebook folder"), "{err}");
}

// SPEC N2: the five sections and their exact column names.
#[test]
fn column_names_are_exact() {
    use vernier_engine::notebook::{PREDICTION_COLUMNS, RUN_COLUMNS, SECTIONS, SOAK_COLUMNS};
    assert_eq!(SECTIONS, ["Environment", "Predictions", "Runs", "Soak runs", "Notes and anomalies"]);
    assert_eq!(PREDICTION_COLUMNS[..4], ["#", "Experiment", "What I predict", "Why"]);
    assert_eq!(
        RUN_COLUMNS,
        [
            "#",
            "What",
            "Command",
            "n (warm-up + timed)",
            "Median",
            "Dispersion",
            "Min / Max",
            "Conditions",
            "Raw file",
            "Tag"
        ]
    );
    assert_eq!(
        SOAK_COLUMNS,
        [
            "#",
            "Duration",
            "Interval",
            "P",
            "t_onset",
            "t_stable",
            "Knee",
            "S",
            "S/P",
            "Tail IQR",
            "Conditions",
            "Raw file"
        ]
    );
}

// SPEC N2, S6, S5, S12: a run's displayed columns follow the rounding rule,
// the drift beside the IQR.
#[test]
fn run_columns_are_rounded() {
    let (_tmp, _dir, nb) = saved_notebook();
    let run = nb.run(1).expect("run");
    assert_eq!(run.cell(RunColumn::N), "3 + 5");
    assert_eq!(run.cell(RunColumn::Median), "12.50 ms");
    assert_eq!(run.cell(RunColumn::Dispersion), "IQR 0.20 ms · drift +51 %");
    assert_eq!(run.cell(RunColumn::MinMax), "12.40 / 24.90 ms");
    assert_eq!(run.cell(RunColumn::Tag), "MEASURED");
}

// SPEC D7, S12: any run in the course's long and short forms, drift beside
// the IQR.
#[test]
fn long_and_short_forms() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    nb.set_environment("Power source", "mains").expect("field");
    let mut m = (*nb.run(1).expect("run").measurement).clone();
    m.conditions.push(vernier_engine::notebook::Condition::new(
        vernier_engine::notebook::ConditionName::Build,
        "rustc 1.95 -C opt-level=3",
    ));
    let number = nb.record_run(m, at(50));
    let run = nb.run(number).expect("run");
    let long = run.long_form();
    let lines: Vec<&str> = long.lines().collect();
    assert_eq!(lines[0], "matmul ikj, N=512");
    assert_eq!(
        lines[1],
        "  12.50 ms (IQR 0.20 ms, 1.6 % of the median · drift +51 %), min 12.40, max 24.90 ms, n=5 (warm-up 3)"
    );
    assert!(lines.iter().any(|l| l.trim() == "build: rustc 1.95 -C opt-level=3"));
    assert!(lines.iter().any(|l| l.contains("mains power")));
    assert_eq!(lines.last().copied(), Some("  provenance: MEASURED"));
    let short = run.short_form();
    assert!(
        short.starts_with(
            "matmul ikj, N=512: median 12.50 ms of 5 repetitions after 3 discarded, IQR 0.20 ms · drift +51 %, on \
             mains power"
        ),
        "{short}"
    );
}

// SPEC N8 (issue 31, finding 11): a notebook.ron that an editor saved with a
// UTF-8 byte-order mark (Notepad adds one) loads, and the next time it is
// written whole (a compaction of the journal) it has none; a soak CSV and a CSV of trials with one read too.
#[test]
fn a_byte_order_mark_is_accepted_and_never_written() {
    let (_tmp, dir, nb) = saved_notebook();
    let path = dir.join(store::NOTEBOOK_FILE);
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(std::fs::read(&path).expect("read"));
    std::fs::write(&path, &bytes).expect("write with a BOM");
    let loaded = store::load(&dir).expect("a BOM is accepted");
    assert_eq!(loaded.runs().len(), nb.runs().len());
    store::change(&dir, |nb| nb.add_note("after the BOM", at(99))).expect("change");
    // The change went to the journal; notebook.ron is next written whole
    // when the journal is folded into it.
    store::lock(&dir).expect("lock").compact_with(&store::OsStorage).expect("compacted");
    assert!(!std::fs::read(&path).expect("read").starts_with(b"\xEF\xBB\xBF"), "never written");
    assert_eq!(store::load(&dir).expect("loads").notes().last().map(|n| n.text.as_str()), Some("after the BOM"));

    let soak =
        "\u{FEFF}t_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n0,1000,5,40,30,100\n1,1000,5,40,30,100\n";
    let data = vernier_engine::soak::file::parse(soak.as_bytes(), std::path::Path::new("s.csv")).expect("soak");
    assert_eq!(data.t.len(), 2);

    let csv = "\u{FEFF}time_ns\n10\n11\n12\n";
    let spec = vernier_engine::import::csv::CsvSpec::column("time_ns");
    let prepared = vernier_engine::import::csv::prepare_bytes(std::path::Path::new("t.csv"), csv.as_bytes(), &spec)
        .expect("a CSV with a BOM");
    assert_eq!(prepared.rows.len(), 1);
}

// SPEC S19, N8: the trial budget is kept through the journal and a
// compaction, written into notebook.ron only when set (a notebook without
// one reads as before), and a budget typed into the file by hand outside
// what `bench --budget` takes refuses the load rather than holding runs to
// it.
#[test]
fn the_trial_budget_is_kept_and_checked() {
    let (_tmp, dir, _nb) = saved_notebook();
    let path = dir.join(store::NOTEBOOK_FILE);
    assert!(!std::fs::read_to_string(&path).expect("read").contains("trial_budget"));
    store::set_trial_budget(&dir, Some(0.0167)).expect("set");
    assert!(store::set_trial_budget(&dir, Some(-1.0)).is_err(), "refused");
    assert!(store::set_trial_budget(&dir, Some(f64::NAN)).is_err(), "refused");
    assert_eq!(store::load(&dir).expect("load").trial_budget(), Some(0.0167), "from the journal");
    store::lock(&dir).expect("lock").compact_with(&store::OsStorage).expect("compacted");
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("trial_budget: Some(0.0167)"), "{text}");
    assert_eq!(store::load(&dir).expect("load").trial_budget(), Some(0.0167), "from the snapshot");
    for hostile in ["-0.5", "0.0", "1e300", "0.0000001"] {
        std::fs::write(&path, text.replacen("Some(0.0167)", &format!("Some({hostile})"), 1)).expect("write");
        let err = store::load(&dir).expect_err(hostile).to_string();
        assert!(err.contains("the trial budget: a trial's budget is a number of seconds"), "{hostile}: {err}");
    }
}
