//! SPEC N1, N8, N10 (issue 50): the journal beside notebook.ron — a change
//! is one line appended, readers apply the lines to the snapshot, the chain
//! of hashes shows a line edited by hand, and older files are migrated.

use vernier_engine::notebook::{Author, LoadError, Note, store};

use crate::util::{at, measurement, saved_notebook};

fn journal_lines(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(dir.join(store::JOURNAL_FILE)).unwrap_or_default().lines().map(str::to_owned).collect()
}

// SPEC N1, N10: a note is one line appended to the journal; notebook.ron
// is not rewritten, and a load shows the note where a rewrite would have.
#[test]
fn a_change_is_one_journal_line_and_loads_back() {
    let (_tmp, dir, mut nb) = saved_notebook();
    let snapshot = std::fs::read(dir.join(store::NOTEBOOK_FILE)).expect("read");
    let lines = journal_lines(&dir).len();
    let note = Note::new("the fan spun up", None, None, Author::Person, at(500)).expect("note");
    store::add_note(&dir, note).expect("added");
    nb.add_note("the fan spun up", at(500)).expect("note");
    let (_, saved) = store::change(&dir, |n| {
        n.record_run(measurement("one more", &[1.0, 1.1, 1.2]), at(501));
        Ok::<_, vernier_engine::notebook::NotebookError>(())
    })
    .expect("recorded");
    nb.record_run(measurement("one more", &[1.0, 1.1, 1.2]), at(501));
    assert_eq!(saved, nb);
    assert_eq!(std::fs::read(dir.join(store::NOTEBOOK_FILE)).expect("read"), snapshot, "notebook.ron untouched");
    assert_eq!(journal_lines(&dir).len(), lines + 2, "one line a change");
    assert_eq!(store::load(&dir).expect("loads"), nb);
    assert!(store::load(&dir).expect("loads").integrity().is_empty(), "N4's seals hold over the journal");
}

// SPEC N1, N4: a journal line edited, removed or moved by hand breaks the
// chain, and the load names the journal and the line.
#[test]
fn a_journal_line_edited_by_hand_is_refused_naming_it() {
    let (_tmp, dir, _) = saved_notebook();
    for i in 0..3 {
        store::change(&dir, |nb| nb.add_note(&format!("note {i}"), at(600 + i))).expect("note");
    }
    let path = dir.join(store::JOURNAL_FILE);
    let good = std::fs::read_to_string(&path).expect("journal");
    let lines: Vec<&str> = good.lines().collect();
    let n = lines.len();
    assert!(n >= 3);
    let edited = good.replacen("note 1", "note X", 1);
    let mut removed = lines.clone();
    removed.remove(n - 2);
    let mut moved = lines.clone();
    moved.swap(n - 2, n - 1);
    for (what, text) in [("edited", edited), ("removed", removed.join("\n") + "\n"), ("moved", moved.join("\n") + "\n")]
    {
        std::fs::write(&path, text).expect("write");
        match store::load(&dir) {
            Err(LoadError::Syntax { path: named, line, .. }) => {
                assert_eq!(named, path, "{what}");
                assert!(line >= n - 2, "{what}: line {line}");
            }
            other => panic!("a line {what} by hand was not refused: {other:?}"),
        }
    }
    std::fs::write(&path, good).expect("restore");
    assert_eq!(store::load(&dir).expect("loads").notes().last().map(|n| n.text.as_str()), Some("note 2"));
}

// SPEC N7: a last line without its newline (its writer died appending it)
// is not read, and the next writer cuts it off before appending its own.
#[test]
fn a_part_written_last_line_is_ignored_then_cut() {
    let (_tmp, dir, _) = saved_notebook();
    store::change(&dir, |nb| nb.add_note("whole", at(700))).expect("note");
    let before = store::load(&dir).expect("loads");
    let path = dir.join(store::JOURNAL_FILE);
    let mut text = std::fs::read_to_string(&path).expect("journal");
    text.push_str("Change(follows:\"abc\",edits:[AddNote(Note(at:");
    std::fs::write(&path, &text).expect("tear");
    assert_eq!(store::load(&dir).expect("a torn line is not read"), before);
    store::add_note(&dir, Note::new("after the tear", None, None, Author::Person, at(701)).expect("note"))
        .expect("added");
    let after = store::load(&dir).expect("loads");
    assert_eq!(after.notes().last().map(|n| n.text.as_str()), Some("after the tear"));
    assert!(std::fs::read_to_string(&path).expect("journal").ends_with('\n'));
    assert!(!std::fs::read_to_string(&path).expect("journal").contains("follows:\"abc\""), "the torn line was cut");
}

// SPEC N8 (issue 50): a notebook.ron from before the journal (schema 5)
// opens without loss; its first change rewrites it as today's schema with a
// journal token, which an older Vernier refuses as a newer schema instead
// of reading it without its journal.
#[test]
fn a_schema_5_notebook_is_migrated_by_its_first_change() {
    let (_tmp, dir, nb) = saved_notebook();
    let path = dir.join(store::NOTEBOOK_FILE);
    // Today's file, as schema 5 wrote it: no token, nothing journalled.
    let v5 =
        store::to_text(&nb).expect("text").replacen(&format!("schema: {},", store::SCHEMA_VERSION), "schema: 5,", 1);
    assert!(v5.contains("schema: 5,") && !v5.contains("journal:"));
    std::fs::remove_file(dir.join(store::JOURNAL_FILE)).ok();
    std::fs::write(&path, &v5).expect("write v5");
    assert_eq!(store::load(&dir).expect("a v5 file loads"), nb);
    store::add_note(&dir, Note::new("first change", None, None, Author::Person, at(800)).expect("note"))
        .expect("added");
    let text = std::fs::read_to_string(&path).expect("read");
    let current = format!("schema: {},", store::SCHEMA_VERSION);
    assert!(text.contains(&current) && text.contains("journal: Some(\""), "{}", &text[..300.min(text.len())]);
    let mut expected = nb.clone();
    expected.add_note("first change", at(800)).expect("note");
    assert_eq!(store::load(&dir).expect("loads"), expected);
    // What a schema-5 build does with it: read the version, refuse it.
    let found: u32 =
        text.split("schema: ").nth(1).and_then(|t| t.split(',').next()).and_then(|v| v.parse().ok()).expect("version");
    assert!(found > 5, "an older Vernier refuses it as newer");
}

// SPEC N8, S19: a notebook.ron of an older schema with a journal (schema
// 10, before the trial budget) keeps its journal's lines, and its first
// change — one that appends without reading, and one that reads — writes
// it whole as today's schema with the journal folded in, so a build of
// schema 10 refuses it by version instead of failing on a journal line
// naming the trial budget.
#[test]
fn a_change_to_an_older_schema_writes_it_whole() {
    for reads in [false, true] {
        let (_tmp, dir, nb) = saved_notebook();
        let path = dir.join(store::NOTEBOOK_FILE);
        let current = format!("schema: {},", store::SCHEMA_VERSION);
        // A journal line, then the snapshot it follows said to be schema 10.
        store::add_note(&dir, Note::new("kept in 10's journal", None, None, Author::Person, at(700)).expect("note"))
            .expect("a journal line");
        assert_eq!(journal_lines(&dir).len(), 1, "{reads}");
        let text = std::fs::read_to_string(&path).expect("read");
        std::fs::write(&path, text.replacen(&current, "schema: 10,", 1)).expect("write v10");
        if reads {
            store::change(&dir, |nb| nb.set_trial_budget(Some(0.0167))).expect("changed");
        } else {
            store::set_trial_budget(&dir, Some(0.0167)).expect("set");
        }
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.contains(&current) && text.contains("trial_budget: Some(0.0167)"), "{reads}");
        assert!(journal_lines(&dir).is_empty(), "{reads}: folded in");
        let mut expected = nb.clone();
        expected.add_note("kept in 10's journal", at(700)).expect("note");
        expected.set_trial_budget(Some(0.0167)).expect("budget");
        assert_eq!(store::load(&dir).expect("loads"), expected, "{reads}");
        // And from then on a change is a journal line again.
        store::set_trial_budget(&dir, None).expect("cleared");
        assert_eq!(journal_lines(&dir).len(), 1, "{reads}");
    }
}

// SPEC N1, N7: a journal past the compaction threshold is folded into a new
// notebook.ron by the writer that took it there; nothing is lost and the
// journal starts again.
#[test]
fn a_long_journal_is_compacted_without_loss() {
    let (_tmp, dir, mut nb) = saved_notebook();
    let notes = |dir: &std::path::Path| store::load(dir).expect("loads").notes().len();
    let start = notes(&dir);
    let long = "a note long enough to fill the journal quickly ".repeat(200);
    let mut compacted = false;
    for i in 0..400 {
        store::add_note(&dir, Note::new(&long, None, None, Author::Person, at(900 + i)).expect("note")).expect("added");
        nb.add_note(&long, at(900 + i)).expect("note");
        if !dir.join(store::JOURNAL_FILE).exists() {
            compacted = true;
            break;
        }
    }
    assert!(compacted, "a journal past {} bytes was folded in", store::COMPACT_AT_LEAST);
    assert_eq!(store::load(&dir).expect("loads"), nb);
    assert!(notes(&dir) > start);
    store::add_note(&dir, Note::new("after", None, None, Author::Person, at(2000)).expect("note")).expect("added");
    assert_eq!(journal_lines(&dir).len(), 1, "the journal starts again after a compaction");
}

// SPEC D7, N1 (issue 50): `show --run N` reads only run N's lines, its
// comparison's and the other arm's — from the snapshot and the journal —
// and shows what a whole load shows; a file not laid out one row a line
// is read whole.
#[test]
fn one_run_is_read_without_the_rest() {
    use vernier_engine::notebook::{NotebookPath, RawFile};
    let (_tmp, dir, mut nb) = saved_notebook();
    let file = RawFile {
        path: NotebookPath::new("raw/pair.csv").expect("path"),
        sha256: "0".repeat(64),
        arm: "A".into(),
        imported: None,
    };
    crate::util::record_comparison(
        &mut nb,
        &file,
        "ijk vs ikj",
        ["ijk", "ikj"],
        [&[3.0, 3.1, 3.2], &[1.0, 1.1, 1.2]],
        None,
    );
    store::replace(&dir, &nb).expect("in the snapshot");
    // A later run and a discard of a snapshot run, in the journal.
    store::change(&dir, |n| {
        n.record_run(measurement("journalled", &[5.0, 5.1, 5.2]), at(400));
        n.discard(vernier_engine::notebook::RowRef::Run(1), "fan noise", at(401))
    })
    .expect("journalled");
    let whole = store::load(&dir).expect("loads");
    for number in whole.runs().iter().map(|r| r.number) {
        let one = store::load_run(&dir, number).expect("one run");
        assert!(one.runs().len() <= 2, "run {number}: only what it shows is read");
        let (run, full) = (one.run(number).expect("the run"), whole.run(number).expect("the run"));
        assert_eq!(run.long_form(), full.long_form(), "run {number}");
        assert_eq!(run.short_form(), full.short_form(), "run {number}");
        let pair = |nb: &vernier_engine::notebook::Notebook| nb.pair_of(number).map(|(p, _)| p.short_form(nb));
        assert_eq!(pair(&one), pair(&whole), "run {number}'s comparison");
    }
    assert!(store::load_run(&dir, 99).expect("reads").run(99).is_none());
    // Reformatted by hand (the runs no longer one a line): read whole.
    let path = dir.join(store::NOTEBOOK_FILE);
    let text = std::fs::read_to_string(&path).expect("read").replace("\n    runs: [\n", "\n    runs: [ \n");
    std::fs::write(&path, text).expect("write");
    assert_eq!(store::load_run(&dir, 1).expect("reads").runs().len(), whole.runs().len());
}
