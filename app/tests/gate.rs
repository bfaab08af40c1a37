//! SPEC N13 as a user meets it (issue 31, finding 1): a classmate's
//! workbook whose hidden `vernier` sheet runs something else than its
//! visible cells say. Making a notebook from it warns, the rows remember
//! the workbook, the long form shows the real command, and `bench --extend`
//! of such a row shows its argv and runs nothing without `--yes`, nor
//! inline code without `--allow-inline-code`.

use std::path::Path;

use vernier_engine::documents::edits::{Value, Written};
use vernier_engine::documents::measurements::{self, EMBED_SHEET, LAYOUT_VERSION};
use vernier_engine::notebook::store;

use crate::common;
use common::{json, ok, stdout, text, vernier};

/// A workbook at `path` whose visible sheets (and the cells it says were
/// written) are those of the notebook in `honest`, while its hidden sheet
/// carries that notebook with `command` swapped for `hidden`: what an
/// attacker makes by editing the hidden sheet of a workbook Vernier wrote.
fn tampered_workbook(path: &Path, honest: &Path, command: [&str; 2], hidden: [&str; 3]) {
    let nb = store::load(honest).expect("the honest notebook loads");
    let written = measurements::written(&nb);
    // The copy a workbook carries: the notebook as one file (SPEC D4).
    let text = store::to_text(&nb).expect("notebook.ron");
    let swap = |text: &str, from: &str, to: &str| {
        assert_eq!(text.matches(from).count(), 1, "{from} once in {text}");
        text.replace(from, to)
    };
    // A row is one line: `command: ["PROGRAM", "ARGUMENT"]`.
    let [program, argument] = command;
    let text = swap(&text, &format!("[\"{program}\", "), &format!("[\"{}\", \"{}\", ", hidden[0], hidden[1]));
    let text = swap(&text, &format!(", \"{argument}\"]"), &format!(", \"{}\"]", hidden[2]));
    let mut book = rust_xlsxwriter::Workbook::new();
    for w in &written {
        let ws = book.add_worksheet();
        ws.set_name(&w.name).expect("name");
        for (k, h) in w.headers.iter().enumerate() {
            ws.write_string(0, k as u16, h).expect("header");
        }
        for (i, row) in w.rows.iter().enumerate() {
            for (k, cell) in row.iter().enumerate() {
                match cell {
                    Value::Number(v) => ws.write_number(i as u32 + 1, k as u16, *v),
                    Value::Text(t) if t.is_empty() => continue,
                    Value::Text(t) => ws.write_string(i as u32 + 1, k as u16, t),
                }
                .expect("cell");
            }
        }
    }
    let ws = book.add_worksheet();
    ws.set_name(EMBED_SHEET).expect("name");
    // The notebook's text in cells of at most 30 000 characters, one a row.
    let chars: Vec<char> = text.chars().collect();
    for (i, chunk) in chars.chunks(30_000).enumerate() {
        ws.write_string(i as u32, 0, chunk.iter().collect::<String>()).expect("text");
    }
    ws.write_number(0, 1, f64::from(LAYOUT_VERSION)).expect("layout");
    let cells: &[Written] = &written;
    ws.write_string(0, 2, serde_json::to_string(cells).expect("json")).expect("cells");
    ws.set_hidden(true);
    book.save(path).expect("save");
}

/// Runs recorded in the notebook at `dir`.
fn run_count(dir: &str) -> usize {
    json(&ok(vernier(&["show", dir, "--json"])))["runs"].as_array().map_or(0, Vec::len)
}

// SPEC N13, R2, N12 (issue 31, finding 1): the visible cell says
// `/bin/sleep 0.01`, the hidden sheet `/bin/sh -c 'touch MARKER; sleep
// 0.01'`. `merge --new-notebook` warns that the hidden copy is not what the
// sheets show; `show --form long` shows the command that would run and the
// workbook the row came from; `bench --extend 1` prints the argv and runs
// nothing without --yes, nor with --yes alone (inline code); with both
// consents it runs.
#[test]
fn a_command_hidden_in_their_workbook_runs_only_after_both_consents() {
    let tmp = tempfile::tempdir().expect("tmp");
    let honest = tmp.path().join("honest").display().to_string();
    ok(vernier(&["new", &honest]));
    ok(vernier(&[
        "bench",
        "-n",
        "3",
        "--warmup",
        "0",
        "--what",
        "sleep",
        "--notebook",
        &honest,
        "--",
        "/bin/sleep",
        "0.01",
    ]));
    let marker = tmp.path().join("MARKER");
    let script = format!("touch {}; sleep 0.01", marker.display());
    let book = tmp.path().join("evil.xlsx");
    tampered_workbook(&book, Path::new(&honest), ["/bin/sleep", "0.01"], ["/bin/sh", "-c", &script]);
    let book = book.display().to_string();
    let theirs = tmp.path().join("theirs").display().to_string();

    let made = ok(vernier(&["merge", &book, "--new-notebook", &theirs]));
    let said = stdout(&made);
    assert!(
        said.contains("WARNING: the notebook this workbook carries does not match the cells it says were written"),
        "{said}"
    );
    assert!(!said.contains("the workbook shows what Vernier wrote"), "{said}");
    let quoted = format!("/bin/sh -c '{script}'");
    let long = stdout(&ok(vernier(&["show", &theirs, "--run", "1", "--form", "long"])));
    assert!(long.contains(&format!("\n  command: {quoted}\n")), "{long}");
    assert!(long.contains("provenance: MEASURED, copied from the workbook evil.xlsx (SHA-256 "), "{long}");

    let asked = vernier(&["bench", "--extend", "1", "--notebook", &theirs]);
    assert_eq!(asked.status.code(), Some(1), "{}", text(&asked));
    let plan = stdout(&asked);
    assert!(plan.contains(&format!("\n  command: {quoted}\n")), "{plan}");
    assert!(plan.contains(&format!("WARNING: {quoted} runs code written in their file (sh -c)")), "{plan}");
    assert!(plan.contains("from: run 1 was copied from the workbook evil.xlsx (SHA-256 "), "{plan}");
    assert!(plan.contains("then add --yes --allow-inline-code to run it"), "{plan}");
    assert!(!marker.exists(), "nothing runs without --yes");

    let yes = vernier(&["bench", "--extend", "1", "--notebook", &theirs, "--yes"]);
    assert_eq!(yes.status.code(), Some(2), "{}", text(&yes));
    let said = text(&yes);
    assert!(said.contains("run 1 runs code written in their file (sh -c)") && said.contains(&quoted), "{said}");
    assert!(text(&yes).contains("add --allow-inline-code to --yes"), "{}", text(&yes));
    assert!(!marker.exists(), "--yes alone does not run inline code");
    assert_eq!(run_count(&theirs), 1, "nothing was recorded");

    ok(vernier(&["bench", "--extend", "1", "--notebook", &theirs, "--yes", "--allow-inline-code"]));
    assert!(marker.exists(), "with both consents it runs");
    assert_eq!(run_count(&theirs), 2);
}

// SPEC N13, R2 (issue 45, finding 1): the full chain — a hidden-sheet
// workbook whose notebook runs `sed --expr=1e …` (a GNU long-option
// abbreviation no table of spellings caught), `merge --new-notebook`, then
// `bench --extend 1 --yes` — runs nothing on --yes alone: sed with their
// arguments is not a program their row vouches for.
#[test]
fn the_chain_through_a_merged_workbook_needs_the_second_consent() {
    let tmp = tempfile::tempdir().expect("tmp");
    let honest = tmp.path().join("honest").display().to_string();
    ok(vernier(&["new", &honest]));
    let bench = ["bench", "-n", "3", "--warmup", "0", "--what", "sleep", "--notebook", &honest, "--", "/bin/sleep"];
    ok(vernier(&[&bench[..], &["0.01"]].concat()));
    let marker = tmp.path().join("MARKER");
    let file = tmp.path().join("input");
    std::fs::write(&file, "x\n").expect("input");
    let expression = format!("--expr=1e touch {}", marker.display());
    let book = tmp.path().join("evil.xlsx");
    tampered_workbook(
        &book,
        Path::new(&honest),
        ["/bin/sleep", "0.01"],
        ["sed", &expression, &file.display().to_string()],
    );
    let (book, theirs) = (book.display().to_string(), tmp.path().join("theirs").display().to_string());
    ok(vernier(&["merge", &book, "--new-notebook", &theirs]));

    let plan = stdout(&vernier(&["bench", "--extend", "1", "--notebook", &theirs]));
    assert!(plan.contains("runs sed with their arguments: such a program can run code they wrote"), "{plan}");
    let yes = vernier(&["bench", "--extend", "1", "--notebook", &theirs, "--yes"]);
    assert_eq!(yes.status.code(), Some(2), "{}", text(&yes));
    assert!(text(&yes).contains("run 1 runs sed with their arguments"), "{}", text(&yes));
    assert!(!marker.exists(), "--yes alone ran their sed");
    assert_eq!(run_count(&theirs), 1, "nothing was recorded");
}
