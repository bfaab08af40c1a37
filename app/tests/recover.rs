//! SPEC N10: `vernier recover DIR [--apply]` — the changes a window could
//! not save before it closed, kept beside the notebook in a recovery file —
//! through the binary, with hostile recovery files; and `show` and `audit`
//! naming one still pending.

use crate::common;

use std::path::{Path, PathBuf};

use common::{json, notebook, ok, stdout, text, vernier};
use vernier_engine::notebook::pending::{self, Edit};
use vernier_engine::notebook::{PredictionText, store};

/// A recovery file beside the notebook in `dir` holding `edits`, as a
/// window of this host that has closed writes it.
fn kept(dir: &str, edits: &[Edit]) -> PathBuf {
    kept_from(dir, edits, |_| {})
}

/// As [`kept`], its origin changed by `edit` first.
fn kept_from(dir: &str, edits: &[Edit], edit: impl FnOnce(&mut pending::Origin)) -> PathBuf {
    let dir = Path::new(dir);
    let nb = store::load(dir).expect("loads");
    let mut origin = pending::Origin::here(dir, &nb.title, nb.created_at, false);
    edit(&mut origin);
    let unsaved = pending::Unsaved::new(edits.to_vec(), "the save failed", chrono::Utc::now(), origin);
    pending::keep(dir, &unsaved).expect("kept")
}

fn note(text: &str) -> Edit {
    Edit::AddNote { text: text.into(), at: chrono::Utc::now() }
}

fn notes(dir: &str) -> Vec<String> {
    store::load(Path::new(dir)).expect("loads").notes().iter().map(|n| n.text.clone()).collect()
}

// SPEC N10: without --apply, recover lists the changes in words and changes
// nothing — notebook.ron is byte for byte as it was, the file still pending.
#[test]
fn recover_without_apply_changes_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let path = kept(&dir, &[note("the note the lock kept out")]);
    let before = std::fs::read(Path::new(&dir).join(store::NOTEBOOK_FILE)).expect("read");
    let out = ok(vernier(&["recover", &dir]));
    let said = stdout(&out);
    assert!(said.contains("would apply: a note “the note the lock kept out”"), "{said}");
    assert!(said.contains("nothing was changed"), "{said}");
    assert_eq!(std::fs::read(Path::new(&dir).join(store::NOTEBOOK_FILE)).expect("read"), before);
    assert!(path.exists(), "still pending");
}

// SPEC N10: --apply applies the changes under the lock, says so only once
// saved, and renames the file to ….applied.ron; show and audit no longer
// mention it.
#[test]
fn recover_apply_puts_the_change_in_the_notebook() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let path = kept(&dir, &[note("the note the lock kept out")]);
    let shown = ok(vernier(&["show", &dir]));
    assert!(stdout(&shown).contains("pending: 1 recovery file(s)"), "{}", text(&shown));
    let listed = json(&ok(vernier(&["show", &dir, "--json"])));
    assert_eq!(listed["pending_recovery"].as_array().map(Vec::len), Some(1), "{listed}");
    let audited = vernier(&["audit", &dir]);
    assert!(stdout(&audited).contains("pending: 1 recovery file(s)"), "{}", text(&audited));
    let out = ok(vernier(&["recover", &dir, "--apply"]));
    let said = stdout(&out);
    assert!(said.contains("applied 1 change(s) to notebook.ron"), "{said}");
    assert_eq!(notes(&dir), ["the note the lock kept out"]);
    assert!(!path.exists());
    let applied =
        path.with_file_name(path.file_name().expect("name").to_string_lossy().replace(".ron", ".applied.ron"));
    assert!(applied.exists(), "kept as {}", applied.display());
    let shown = ok(vernier(&["show", &dir]));
    assert!(!stdout(&shown).contains("recovery file"), "{}", text(&shown));
    // Nothing pending: applying again adds nothing.
    let again = ok(vernier(&["recover", &dir, "--apply"]));
    assert!(stdout(&again).contains("no recovery file is pending"), "{}", text(&again));
    assert_eq!(notes(&dir).len(), 1);
}

// SPEC N10, N4: a change the log's rules now refuse (rewriting a prediction
// locked since) is listed with why, as merge lists refusals; the others
// are applied, and the exit code is 1.
#[test]
fn recover_lists_what_the_rules_now_refuse() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    ok(vernier(&["predict", &dir, "--experiment", "E1", "--predict", "x", "--why", "y"]));
    ok(vernier(&["lock", &dir]));
    let text_of =
        PredictionText { experiment: "E1".into(), predict: "rewritten".into(), why: "y".into(), figure: None };
    let path = kept(&dir, &[Edit::EditPrediction { number: 1, text: text_of }, note("kept")]);
    let shown = vernier(&["recover", &dir]);
    assert_eq!(shown.status.code(), Some(1), "{}", text(&shown));
    assert!(
        stdout(&shown).contains("refused now: P1 rewritten as “rewritten” — prediction P1 is locked"),
        "{}",
        text(&shown)
    );
    let out = vernier(&["recover", &dir, "--apply"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(stdout(&out).contains("refused: P1 rewritten"), "{}", text(&out));
    assert!(stdout(&out).contains("applied 1 change(s) to notebook.ron, 1 refused"), "{}", text(&out));
    assert_eq!(notes(&dir), ["kept"]);
    assert!(!path.exists());
}

// SPEC N10: a file every change of which is refused applies nothing, saves
// nothing and stays pending.
#[test]
fn recover_with_every_change_refused_stays_pending() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let path = kept(&dir, &[Edit::Discard { run: 7, reason: "no such run".into(), at: chrono::Utc::now() }]);
    let before = std::fs::read(Path::new(&dir).join(store::NOTEBOOK_FILE)).expect("read");
    let out = vernier(&["recover", &dir, "--apply"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("nothing was applied"), "{}", text(&out));
    assert_eq!(std::fs::read(Path::new(&dir).join(store::NOTEBOOK_FILE)).expect("read"), before);
    assert!(path.exists());
}

/// A pending recovery file's name that Vernier did not write.
fn planted(dir: &str) -> PathBuf {
    Path::new(dir).join("notebook.unsaved-20260101T000000.000Z.ron")
}

// SPEC N10: a hostile recovery file — garbage, a symbolic link, a huge
// file — is refused with a message naming it (exit 2), read within a cap,
// and nothing is changed.
#[test]
fn recover_refuses_hostile_files() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let before = std::fs::read(Path::new(&dir).join(store::NOTEBOOK_FILE)).expect("read");
    let file = planted(&dir);

    std::fs::write(&file, "(schema: 1, edits: [Nonsense])").expect("garbage");
    for args in [vec!["recover", &dir], vec!["recover", &dir, "--apply"]] {
        let out = vernier(&args);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("is not a recovery file Vernier can read"), "{}", text(&out));
    }
    std::fs::remove_file(&file).expect("rm");

    #[cfg(unix)]
    {
        let secret = tmp.path().join("elsewhere.ron");
        std::fs::write(&secret, "not theirs to read").expect("target");
        std::os::unix::fs::symlink(&secret, &file).expect("link");
        let out = vernier(&["recover", &dir, "--apply"]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("is a symbolic link"), "{}", text(&out));
        std::fs::remove_file(&file).expect("rm");
    }

    let huge = std::fs::File::create(&file).expect("huge");
    huge.set_len(pending::MAX_RECOVERY_BYTES + 1).expect("sparse");
    let out = vernier(&["recover", &dir]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("notebook.unsaved-20260101T000000.000Z.ron"), "{}", text(&out));

    assert_eq!(std::fs::read(Path::new(&dir).join(store::NOTEBOOK_FILE)).expect("read"), before);
}

// SPEC N10 (issue 45 item 8): recover names where each file was written;
// one from another host, one for another notebook and one planted without
// an origin are listed as such and left by `--apply` (exit 1), one of ours
// is applied; a foreign one is applied only by its name.
#[test]
fn recover_names_foreign_files_and_applies_them_only_by_name() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let ours = kept(&dir, &[note("ours")]);
    let far = kept_from(&dir, &[note("from afar")], |o| o.host = "their-laptop".into());
    let other = kept_from(&dir, &[note("another notebook's")], |o| o.title = "Someone else's lab".into());
    // A file as an older Vernier (or a hand) writes it: no origin.
    let unsaved = pending::read(&ours).expect("reads");
    let planted = pending::Unsaved { origin: None, edits: vec![note("planted")], ..unsaved };
    let unknown = pending::keep(Path::new(&dir), &planted).expect("planted");

    let listed = vernier(&["recover", &dir]);
    let said = stdout(&listed);
    assert_eq!(listed.status.code(), Some(1), "{said}");
    assert!(said.contains("written on another host (“their-laptop”)"), "{said}");
    assert!(said.contains("written for another notebook (“Someone else's lab”"), "{said}");
    assert!(said.contains("of unknown origin"), "{said}");
    assert!(said.contains("written on this host for this notebook: host"), "{said}");

    let applied = vernier(&["recover", &dir, "--apply"]);
    assert_eq!(applied.status.code(), Some(1), "{}", text(&applied));
    assert_eq!(notes(&dir), ["ours"], "only ours, unasked");
    assert!(far.exists() && other.exists() && unknown.exists(), "the others stay pending");

    let far_name = far.file_name().expect("name").to_string_lossy().into_owned();
    let by_name = ok(vernier(&["recover", &dir, "--apply", "--name", &far_name]));
    assert!(stdout(&by_name).contains("written on another host (“their-laptop”); applied because it was named"));
    assert_eq!(notes(&dir), ["ours", "from afar"]);
    let missing = vernier(&["recover", &dir, "--name", "../notebook.ron"]);
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
}

// SPEC N10 (issue 45 item 4): a window killed between a save and its
// keeper's rewrite leaves a saved note in its recovery file as well.
// `recover` says that note is already there and adds only the other;
// run again on a file whose every change is there, it adds nothing and
// retires the file (exit 0).
#[test]
fn recover_does_not_add_a_saved_change_twice() {
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = notebook(tmp.path());
    let saved = note("saved just before the window was killed");
    store::change(Path::new(&dir), |nb| saved.apply(nb).map(drop)).expect("the window's save");
    kept(&dir, &[saved.clone(), note("never saved")]);
    let listed = stdout(&ok(vernier(&["recover", &dir])));
    assert!(listed.contains("already there: a note “saved just before the window was killed”"), "{listed}");
    assert!(listed.contains("would apply: a note “never saved”"), "{listed}");
    let said = stdout(&ok(vernier(&["recover", &dir, "--apply"])));
    assert!(said.contains("applied 1 change(s) to notebook.ron, 1 already there"), "{said}");
    assert_eq!(notes(&dir), ["saved just before the window was killed", "never saved"]);
    let path = kept(&dir, &[saved]);
    let said = stdout(&ok(vernier(&["recover", &dir, "--apply"])));
    assert!(said.contains("applied 0 change(s) to notebook.ron, 1 already there"), "{said}");
    assert!(!path.exists(), "no longer pending");
    assert_eq!(notes(&dir).len(), 2);
}
