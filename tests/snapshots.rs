//! SPEC N9, N11: a row keeps the conditions, the stated Environment and the
//! build of its moment, in every face; the file stores each snapshot once.

use calamine::Data;
use vernier_engine::audit::{self, Check, Place};
use vernier_engine::documents::blocks::Block;
use vernier_engine::documents::{self, Attachments, measurements};
use vernier_engine::notebook::Document;
use vernier_engine::notebook::{
    Condition, ConditionName, Conditions as _, EnvField, NOT_RECORDED, Notebook, RowRef, RunColumn, store,
};

use crate::util::{at, measurement, saved_notebook};

/// A run measured here: the machine could not say its power source, and it
/// timed a command (not a kernel).
fn command_run(what: &str) -> vernier_engine::notebook::Measurement {
    let mut m = measurement(what, &[10.1, 10.0, 10.2, 10.1, 10.3]);
    m.command = vec!["./mm".into(), "512".into()];
    m.conditions = vec![
        Condition::new(ConditionName::CpuModel, "Test CPU"),
        Condition::new(ConditionName::LogicalCpus, "8"),
        Condition::new(ConditionName::PowerSource, "not available"),
        Condition::new(ConditionName::LoadAverage, "0.1 0.2 0.3"),
        Condition::new(ConditionName::PlacementUsed, "pinned to CPU 2"),
        Condition::new(ConditionName::Build, "g++ -O2 (from the Environment)"),
    ];
    m
}

fn results_table(nb: &Notebook) -> Vec<Vec<String>> {
    documents::fill(nb, Document::Report, &Attachments::default())
        .into_iter()
        .find_map(|b| match b {
            Block::Table(rows) if rows[0][0] == "Experiment" => Some(rows),
            _ => None,
        })
        .expect("the results table")
}

fn workbook_runs(nb: &Notebook) -> Vec<Vec<String>> {
    let bytes = measurements::write(nb).expect("workbook");
    crate::util::runs_sheet(&bytes).iter().map(|r| r.iter().map(Data::to_string).collect()).collect()
}

// SPEC N9: a run on mains, the Environment then set to battery, a second
// run: run 1 still says mains in every face, run 2 battery; the
// Environment section names the rows that kept another value.
#[test]
fn a_row_keeps_the_environment_it_was_measured_in() {
    let (_tmp, dir, mut nb) = saved_notebook();
    nb.set_environment("Power source", "mains").expect("field");
    nb.set_environment("Pre-run idle", "5 min").expect("field");
    nb.set_environment("Compiler + flags", "g++ -O2").expect("field");
    let first = nb.record_run(command_run("naive"), at(100));
    nb.set_environment("Power source", "battery").expect("field");
    let second = nb.record_run(command_run("naive again"), at(200));
    store::replace(&dir, &nb).expect("save");
    let mut nb = store::load(&dir).expect("load");

    let run1 = nb.run(first).expect("run");
    let run2 = nb.run(second).expect("run");
    assert!(run1.long_form().contains("mains power"), "{}", run1.long_form());
    assert!(!run1.long_form().contains("battery"), "{}", run1.long_form());
    assert!(run1.short_form().contains("on mains power, idle 5 min before"), "{}", run1.short_form());
    assert!(run1.cell(RunColumn::Conditions).contains("power source: mains (stated)"));
    assert!(run2.long_form().contains("battery power"), "{}", run2.long_form());
    assert!(run2.short_form().contains("on battery power"), "{}", run2.short_form());

    // The report's results table and the workbook's Runs sheet.
    let table = results_table(&nb);
    let row = |what: &str| table.iter().find(|r| r[0] == what).expect("row").join(" | ");
    assert!(row("naive").contains("mains (stated)"), "{}", row("naive"));
    assert!(row("naive again").contains("battery (stated)"), "{}", row("naive again"));
    let sheet = workbook_runs(&nb);
    let line = |what: &str| sheet.iter().find(|r| r.iter().any(|c| c == what)).expect("row").join(" | ");
    assert!(line("naive").contains("mains (stated)") && !line("naive").contains("battery"), "{}", line("naive"));
    assert!(line("naive again").contains("battery (stated)"), "{}", line("naive again"));

    // The report's header states what the rows were measured under, not
    // today's fields: the build with the rows it holds for, the conditions
    // every row shares; the power sources differ, so each row says its own
    // and the header does not (SPEC D8).
    let report = documents::blocks::to_text(&documents::fill(&nb, Document::Report, &Attachments::default()));
    let conditions = report.lines().find(|l| l.starts_with("Conditions:")).expect("a Conditions line");
    assert!(!conditions.contains("mains") && !conditions.contains("battery"), "{conditions}");
    assert!(report.contains("Build: not stated (run 1); g++ -O2 (from the Environment) (runs 2–3)"), "{report}");
    assert!(!table.iter().any(|r| r.join(" | ").contains("build:")), "the build is the header's: {table:?}");

    // The audit reads the row's snapshot: run 1 states power, idle and
    // build (from the Environment as it was) and is not named under A2.
    let report = audit::audit(&dir, &nb);
    let a2 = |n: u32| report.findings.iter().find(|f| f.check == Check::A2 && f.place == Place::Run { number: n });
    assert!(a2(first).is_none(), "{:?}", a2(first));

    // Run 1 of the fixture was recorded before anything was stated.
    assert_eq!(
        nb.stated_hint(EnvField::PowerSource).as_deref(),
        Some("run 1 was measured with nothing stated; run 2 was measured with \"mains\"")
    );
    assert_eq!(
        nb.stated_differently(EnvField::PowerSource),
        vec![("".to_owned(), vec![RowRef::Run(1)]), ("mains".to_owned(), vec![RowRef::Run(first)])]
    );
    nb.set_environment("Power source", "mains").expect("field");
    assert_eq!(
        nb.stated_hint(EnvField::PowerSource).as_deref(),
        Some("run 1 was measured with nothing stated; run 3 was measured with \"battery\"")
    );
}

// SPEC N8, N9: a schema-2 notebook opens, its rows keep their conditions as
// recorded and say the stated environment was not recorded with them —
// never filled in from today's values; saved, it becomes the current schema.
#[test]
fn rows_of_a_schema_2_notebook_say_their_environment_was_not_recorded() {
    let v1 = include_str!("fixtures/notebook-with-runs.ron");
    let v2 = v1.replacen("schema: 1,", "schema: 2,", 1);
    let mut nb = store::from_bytes(v2.as_bytes(), std::path::Path::new("v2/notebook.ron")).expect("a v2 file loads");
    assert_eq!(nb.schema, store::SCHEMA_VERSION);
    nb.set_environment("Power source", "battery").expect("field");
    for run in nb.runs() {
        assert_eq!(run.stated, None);
        assert!(run.long_form().contains(NOT_RECORDED), "{}", run.long_form());
        assert!(!run.long_form().contains("battery"), "today's value is not theirs");
        assert!(run.cell(RunColumn::Conditions).contains(NOT_RECORDED));
    }
    let saved = store::to_text(&nb).expect("text");
    assert!(saved.contains(&format!("schema: {},", store::SCHEMA_VERSION)));
    let again = store::from_bytes(saved.as_bytes(), std::path::Path::new("v3/notebook.ron")).expect("reload");
    assert_eq!(again, nb, "a pre-snapshot row is written back as it was read");
}

// SPEC N9: a thousand runs under one Environment store its snapshot once,
// with the harness's fixed paragraph on what it does with a command's
// processes; the file reads back to the same notebook.
#[test]
fn each_distinct_snapshot_is_stored_once() {
    const CLEANUP: &str = "process group killed at the end of each trial (a distinctive paragraph)";
    let cleaned = |what: &str| {
        let mut m = command_run(what);
        m.conditions.push(Condition::new(ConditionName::ProcessCleanup, CLEANUP));
        m
    };
    let (_tmp, dir, mut nb) = saved_notebook();
    nb.set_environment("Machine / OS", "a laptop of a distinctive name").expect("field");
    for i in 0..1000 {
        nb.record_run(cleaned(&format!("row {i}")), at(100 + i));
    }
    nb.set_environment("Power source", "battery").expect("field");
    nb.record_run(cleaned("after"), at(5000));
    let text = store::to_text(&nb).expect("text");
    // Two snapshots (before and after the change), each written once.
    assert_eq!(text.matches("a laptop of a distinctive name").count(), 3, "two snapshots + the Environment");
    assert_eq!(text.matches("Test CPU").count(), 2);
    assert_eq!(text.matches(CLEANUP).count(), 2, "the cleanup paragraph once a snapshot");
    let row = nb.runs().last().expect("a run");
    assert_eq!(row.measurement.conditions.value_of(ConditionName::ProcessCleanup), Some(CLEANUP));
    // The load average is read afresh for each row and stays with it.
    assert_eq!(text.matches("0.1 0.2 0.3").count(), 1001);
    store::replace(&dir, &nb).expect("save");
    assert_eq!(store::load(&dir).expect("load"), nb);
}

// SPEC N1, N8, N9: a row's fields that hold nothing (it stands, it is not
// synthetic, no trial waited) are not written, and the counters sentence
// its machine gives every row is kept once, in the rows' snapshot (schema
// 10, issue 50); a file of schema 9 that wrote them out in every row reads
// as the same notebook, and a row that does hold them writes them.
#[test]
fn a_rows_empty_fields_are_left_out_and_read_back() {
    let (_tmp, dir, mut nb) = saved_notebook();
    let mut m = command_run("plain");
    m.work = Some(vernier_engine::notebook::Work {
        cpu_s: None,
        cycles: None,
        instructions: None,
        counters: "not counted".into(),
        waited: 0,
        resolution_ns: 1,
    });
    let plain = nb.record_run(m.clone(), at(100));
    let again = nb.record_run(m.clone(), at(150));
    let text = store::to_text(&nb).expect("text");
    for empty in ["discarded:", "synthetic:", "waited:"] {
        assert!(!text.contains(empty), "{empty} written for a row that holds none: {text}");
    }
    // The counters sentence of the machine, once in the rows' snapshot.
    assert_eq!(text.matches("not counted").count(), 1, "{text}");
    assert_eq!(
        nb.run(again).and_then(|r| r.measurement.work.as_ref()).map(|w| w.counters.as_str()),
        Some("not counted")
    );
    // As schema 9 wrote the same rows.
    let old = text
        .replacen(&format!("schema: {},", store::SCHEMA_VERSION), "schema: 9,", 1)
        .replace(", counters: Some(\"not counted\")", "")
        .replace("snapshot: Some(0)", "discarded: None, snapshot: Some(0)")
        .replace("tag: MEASURED,", "tag: MEASURED, synthetic: false,")
        .replace("work: Some(Work(", "work: Some(Work(counters: \"not counted\", waited: 0, ");
    assert_eq!(old.matches("synthetic: false").count(), 2, "{old}");
    assert_eq!(old.matches("waited: 0").count(), 2, "{old}");
    assert_eq!(old.matches("not counted").count(), 2, "{old}");
    let read = store::from_bytes(old.as_bytes(), &dir.join("notebook.ron")).expect("a schema 9 file reads");
    assert_eq!(read, nb);
    // A row that holds them keeps them.
    m.synthetic = true;
    if let Some(work) = m.work.as_mut() {
        work.waited = 3;
    }
    let held = nb.record_run(m, at(200));
    nb.discard(RowRef::Run(plain), "fan noise", at(300)).expect("discard");
    store::replace(&dir, &nb).expect("save");
    let reread = store::load(&dir).expect("load");
    assert_eq!(reread, nb);
    let run = reread.run(held).expect("run");
    assert!(run.measurement.synthetic);
    assert_eq!(run.measurement.work.as_ref().map(|w| w.waited), Some(3));
    assert!(reread.run(plain).expect("run").discarded.is_some());
}

// SPEC N8: a row naming a snapshot the file does not have is refused, by row.
#[test]
fn a_row_naming_a_missing_snapshot_is_refused() {
    let (_tmp, dir, mut nb) = saved_notebook();
    nb.record_run(command_run("x"), at(100));
    let text = store::to_text(&nb).expect("text").replace("snapshot: Some(0)", "snapshot: Some(9)");
    let err = store::from_bytes(text.as_bytes(), &dir.join("notebook.ron")).expect_err("refused");
    assert!(err.to_string().contains("names snapshot 9"), "{err}");
}

// SPEC N11, A2: a timed program's row states the build given, never
// Vernier's toolchain; with none given and an empty Environment field the
// audit names the row; a kernel's build is Vernier's own.
#[test]
fn a_command_row_states_its_own_build() {
    let (_tmp, dir, mut nb) = saved_notebook();
    let mut m = command_run("no build");
    m.conditions.retain(|c| c.name() != Some(ConditionName::Build));
    m.conditions.push(Condition::new(ConditionName::Compiler, "rustc 1.95 — release build (opt-level 3)"));
    let bare = nb.record_run(m.clone(), at(100));
    m.conditions.push(Condition::new(ConditionName::Build, "g++ -O2 -std=c++17"));
    let built = nb.record_run(m, at(200));
    let run = |n| nb.run(n).expect("run");
    assert!(run(bare).long_form().contains("build not stated"), "{}", run(bare).long_form());
    assert!(!run(bare).long_form().contains("rustc"), "Vernier's toolchain is not the program's");
    assert!(run(built).long_form().contains("build: g++ -O2 -std=c++17"));
    let report = audit::audit(&dir, &nb);
    let a2: Vec<_> = report.findings.iter().filter(|f| f.check == Check::A2).collect();
    let named = |n: u32| a2.iter().find(|f| f.place == Place::Run { number: n }).map(|f| f.message.clone());
    assert!(named(bare).is_some_and(|m| m.contains("build flags")), "{a2:?}");
    assert!(named(built).is_none_or(|m| !m.contains("build flags")), "{a2:?}");
    // The canary alone is not a thermal condition.
    assert!(named(built).is_some_and(|m| m.contains("thermal condition")), "{a2:?}");

    let mut kernel = measurement("seq 64 MiB", &[1.0, 1.1, 1.0]);
    kernel.command = vec!["vernier".into(), "bench".into(), "--kernel".into(), "seq".into()];
    kernel.conditions = vec![Condition::new(ConditionName::Compiler, "rustc 1.95 — release build (opt-level 3)")];
    let k = nb.record_run(kernel, at(300));
    assert!(
        nb.run(k)
            .expect("run")
            .long_form()
            .contains("rustc 1.95 — release build (opt-level 3) (Vernier's built-in kernel)")
    );
}

// SPEC A2, N9: a placeholder such as `n/a` or `?` states nothing.
#[test]
fn a_placeholder_is_not_a_stated_condition() {
    let (_tmp, dir, mut nb) = saved_notebook();
    nb.set_environment("Power source", "n/a").expect("field");
    nb.set_environment("Pre-run idle", "?").expect("field");
    let n = nb.record_run(command_run("placeholders"), at(100));
    let report = audit::audit(&dir, &nb);
    let finding = report.findings.iter().find(|f| f.check == Check::A2 && f.place == Place::Run { number: n });
    let message = finding.map(|f| f.message.clone()).unwrap_or_default();
    assert!(message.contains("power source") && message.contains("thermal condition"), "{message}");
}
