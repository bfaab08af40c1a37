//! SPEC N4: locked predictions, amendments, and the hash chain.

use std::path::Path;

use vernier_engine::notebook::{LockCause, Notebook, NotebookError, store};

use crate::util::{at, measurement, saved_notebook, soak_row, soak_text, text};

fn notebook_text(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(store::NOTEBOOK_FILE)).expect("read notebook.ron")
}

fn messages(nb: &Notebook) -> Vec<String> {
    nb.integrity().into_iter().map(|f| f.message).collect()
}

// SPEC N4: a run locks the predictions before it; the API refuses edits.
#[test]
fn locked_prediction_cannot_be_edited_through_the_api() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    let before = nb.prediction(1).expect("P1").clone();
    let err = nb.edit_prediction(1, text("x", "y", "z")).expect_err("P1 is locked by run 1");
    assert!(matches!(err, NotebookError::PredictionLocked { number: 1, lock } if lock.cause == LockCause::Run(1)));
    assert_eq!(nb.prediction(1), Some(&before), "a refused edit changes nothing");

    // P2 was recorded after run 1: still open, so it may be rewritten.
    nb.edit_prediction(2, text("seq vs chase at 64 MiB", "chase 25x slower", "one load in flight")).expect("open");
    assert!(messages(&nb).is_empty(), "a permitted edit keeps the chain sound");

    // The user locks it; now it refuses too.
    assert_eq!(nb.lock_open_predictions(at(50)), 1);
    assert!(matches!(
        nb.edit_prediction(2, text("a", "b", "c")),
        Err(NotebookError::PredictionLocked { number: 2, .. })
    ));
    assert!(messages(&nb).is_empty());
}

// SPEC N4: an amendment quotes the locked original and leaves it intact.
#[test]
fn amendment_quotes_the_original() {
    let (_tmp, _dir, mut nb) = saved_notebook();
    let original = nb.prediction(1).expect("P1").clone();
    let n = nb.amend_prediction(1, "ikj about 2x faster", "the -O2 build vectorised ijk too", at(60)).expect("amend");
    assert_eq!(n, 3);
    let amendment = nb.prediction(3).expect("P3");
    let amends = amendment.amends.as_ref().expect("an amendment");
    assert_eq!((amends.of, amends.quote.as_str()), (1, "ikj about 3x faster"));
    assert_eq!(amendment.experiment, original.experiment);
    assert_eq!(amendment.recorded_at, at(60));
    assert_eq!(nb.prediction(1), Some(&original));
    assert!(messages(&nb).is_empty());
}

// SPEC N4: a hand edit of a locked prediction is reported on load, by name.
#[test]
fn hand_edit_is_reported_naming_the_prediction() {
    let (_tmp, dir, _nb) = saved_notebook();
    let edited = notebook_text(&dir).replace("ikj about 3x faster", "ikj about 4x faster");
    std::fs::write(dir.join(store::NOTEBOOK_FILE), edited).expect("write");
    let nb = store::load(&dir).expect("still loads");
    assert_eq!(messages(&nb), ["prediction P1 changed after run 1 was recorded"]);
    assert_eq!(nb.prediction(1).expect("P1").predict, "ikj about 4x faster", "shown as found, not silently fixed");
}

// SPEC N4: re-sealing the edited row by hand still breaks the next link,
// and the finding names the row that changed, not its successor.
#[test]
fn resealed_hand_edit_names_the_edited_row() {
    let (_tmp, dir, nb) = saved_notebook();
    let mut forged = nb.prediction(1).expect("P1").clone();
    forged.predict = "ikj about 4x faster".into();
    let old_hash = forged.hash.clone();
    let new_hash = forged.expected_hash();
    let file = notebook_text(&dir);
    // Replace only P1's own hash, the first occurrence (P2's `prev` follows it).
    let forged_file = file.replacen("ikj about 3x faster", "ikj about 4x faster", 1).replacen(
        &format!("hash: \"{old_hash}\""),
        &format!("hash: \"{new_hash}\""),
        1,
    );
    assert_ne!(file, forged_file);
    std::fs::write(dir.join(store::NOTEBOOK_FILE), forged_file).expect("write");
    let nb = store::load(&dir).expect("loads");
    assert_eq!(messages(&nb), ["prediction P1 changed after run 1 was recorded"]);
}

// SPEC N4: a later legitimate change (a lock, a run) never launders a
// hand edit: the finding survives the re-seal and the next save.
#[test]
fn later_changes_do_not_hide_a_hand_edit() {
    let (_tmp, dir, _nb) = saved_notebook();
    let edited = notebook_text(&dir).replace("chase 20x slower", "chase 30x slower");
    std::fs::write(dir.join(store::NOTEBOOK_FILE), edited).expect("write");
    let mut nb = store::load(&dir).expect("loads");
    assert_eq!(messages(&nb), ["prediction P2 was edited outside Vernier (it was not locked yet)"]);
    nb.record_run(measurement("seq 64 MiB", &[4.0, 4.1, 4.05]), at(100));
    store::replace(&dir, &nb).expect("save");
    let nb = store::load(&dir).expect("loads");
    assert_eq!(messages(&nb), ["prediction P2 changed after run 2 was recorded"]);
}

/// Byte range of the first `Prediction(` record in `text`, through its hash.
fn first_prediction_span(text: &str) -> std::ops::Range<usize> {
    let start = text.find("Prediction(").expect("a prediction");
    let hash_at = start + text[start..].find("hash: \"").expect("its hash");
    let end = hash_at + "hash: \"".len() + 64 + 1;
    start..end
}

// SPEC N4: every single-byte change to a stored prediction is detected —
// refused as malformed, or loaded with a finding naming P1. The only flips
// allowed to pass are pure formatting: a separator (whitespace, or RON's
// optional trailing comma) turned into another whitespace byte, which loads
// a notebook identical to the original in every field.
#[test]
fn every_byte_flip_of_a_prediction_is_detected() {
    let (_tmp, dir, original) = saved_notebook();
    let file = notebook_text(&dir);
    let span = first_prediction_span(&file);
    assert!(file[span.clone()].contains("ikj about 3x faster"));
    let path = dir.join(store::NOTEBOOK_FILE);
    let (mut refused, mut reported, mut unchanged) = (0, 0, 0);
    for i in span.clone() {
        for mask in [0x01u8, 0x02, 0x20, 0x80] {
            let mut bytes = file.clone().into_bytes();
            bytes[i] ^= mask;
            match store::from_bytes(&bytes, &path) {
                Err(_) => refused += 1,
                Ok(nb) if nb.integrity().iter().any(|f| f.prediction == 1) => reported += 1,
                Ok(nb) => {
                    let (old, new) = (file.as_bytes()[i], bytes[i]);
                    let formatting = (old.is_ascii_whitespace() || old == b',')
                        && (new.is_ascii_whitespace() || new.is_ascii_control());
                    assert!(
                        nb == original && formatting,
                        "flipping byte {i} ({:?}) with {mask:#x} went unnoticed",
                        file.as_bytes()[i] as char
                    );
                    unchanged += 1;
                }
            }
        }
    }
    let total = span.len() * 4;
    assert_eq!(refused + reported + unchanged, total);
    eprintln!(
        "{total} flips over {} bytes: {refused} refused, {reported} reported, {unchanged} formatting only",
        span.len()
    );

    // A flipped letter of the prediction's own text still parses: it must be
    // reported by name, not merely refused.
    let text_at = file.find("ikj about 3x faster").expect("text");
    for i in text_at..text_at + "ikj about 3x faster".len() {
        let mut bytes = file.clone().into_bytes();
        bytes[i] ^= 0x01;
        let nb = store::from_bytes(&bytes, &path).expect("a changed letter still parses");
        assert_eq!(
            nb.integrity().first().map(|f| f.message.as_str()),
            Some("prediction P1 changed after run 1 was recorded")
        );
    }
}

// SPEC T1, N4: a soak protocol is sealed with its prediction: it is what the
// next soak runs, it locks when the soak is recorded, and a hand edit of it
// is reported.
#[test]
fn soak_protocol_is_sealed_with_the_prediction() {
    use vernier_engine::notebook::SoakProtocol;
    let (_tmp, dir, mut nb) = saved_notebook();
    let protocol = SoakProtocol { duration_s: 900.0, ..SoakProtocol::default() };
    let n = nb
        .add_soak_prediction(
            soak_text(
                "soak, 8 workers",
                "onset near 180 s, S/P 0.75",
                "fanless",
                "onset 180 s ± 20 %, S/P 0.75 ± 0.05",
            ),
            protocol,
            at(60),
        )
        .expect("P3");
    assert_eq!(nb.next_soak_protocol(), Some((n, protocol)));
    store::replace(&dir, &nb).expect("save");
    let edited = notebook_text(&dir).replace("duration_s: 900.0", "duration_s: 600.0");
    std::fs::write(dir.join(store::NOTEBOOK_FILE), edited).expect("write");
    let tampered = store::load(&dir).expect("loads");
    assert_eq!(messages(&tampered), [format!("prediction P{n} was edited outside Vernier (it was not locked yet)")]);

    let numbers = vernier_engine::notebook::SoakNumbers {
        peak: 2.4,
        t_onset: Some(180.0),
        t_stable: Some(300.0),
        sustained: 1.8,
        ratio: 0.75,
        tail_iqr: 0.05,
        unit: "chunks/s".into(),
    };
    nb.record_soak(soak_row(protocol, numbers, 70), at(70));
    assert!(nb.lock_of(nb.prediction(n).expect("P3")).is_some(), "the soak locked its prediction");
    assert_eq!(nb.next_soak_protocol(), None, "no open protocol is left to run");
    assert!(messages(&nb).is_empty());
}

// SPEC T11, N4: a bench run between a soak prediction and its soak locks the
// prediction (N4 unchanged) but never blocks the soak: the newest soak
// prediction no soak has followed is what runs. Amending it can change the
// protocol, sealed into the chain; a soak already run keeps the protocol it
// ran under.
#[test]
fn a_bench_run_never_blocks_a_soak_and_an_amendment_can_change_its_protocol() {
    use vernier_engine::notebook::SoakProtocol;
    let (_tmp, dir, mut nb) = saved_notebook();
    let first = SoakProtocol { duration_s: 900.0, ..SoakProtocol::default() };
    let p = nb
        .add_soak_prediction(soak_text("soak", "S/P 0.75", "fanless", "onset none, S/P 0.75 ± 0.05"), first, at(60))
        .expect("soak prediction");
    nb.record_run(measurement("a bench run in between", &[1.0, 1.1, 1.2]), at(65));
    assert!(nb.lock_of(nb.prediction(p).expect("P")).is_some(), "the run locked it (N4)");
    assert_eq!(nb.next_soak_protocol(), Some((p, first)), "still the protocol the next soak runs");

    let longer = SoakProtocol { duration_s: 1200.0, ..first };
    let amended =
        nb.amend_prediction_with(p, "S/P 0.7", "a longer run", None, Some(longer.into()), at(70)).expect("amended");
    assert_eq!(nb.next_soak_protocol(), Some((amended, longer)));
    let too_short = SoakProtocol { duration_s: 60.0, ..first };
    assert!(
        nb.amend_prediction_with(p, "x", "y", None, Some(too_short.into()), at(71)).is_err(),
        "T11 holds for amendments"
    );
    assert!(nb.amend_prediction_with(1, "x", "y", None, Some(longer.into()), at(72)).is_err(), "P1 fixed no protocol");
    store::replace(&dir, &nb).expect("save");
    let reloaded = store::load(&dir).expect("load");
    assert!(messages(&reloaded).is_empty(), "the amendment is sealed into the chain");

    nb.record_soak(soak_row(longer, level_soak(), 80), at(80));
    assert_eq!(nb.next_soak_protocol(), None, "the soak followed it");
    assert_eq!(nb.soaks()[0].protocol, longer, "a soak keeps the protocol it ran under");
}

// SPEC T1 (issue 47 item 8): a soak's prediction and protocol are fixed when
// the soak starts, not when it is recorded. An open prediction locks then
// ("a soak started"), and neither an edit nor an amendment of the one whose
// protocol runs is taken while it runs — also when a bench run had locked it
// before. The start is saved (it survives a reload) and ends when the soak
// is recorded; a new soak prediction stays possible.
#[test]
fn a_soak_prediction_is_fixed_from_the_soak_s_start() {
    use vernier_engine::notebook::SoakProtocol;
    let (_tmp, dir, mut nb) = saved_notebook();
    let protocol = SoakProtocol { duration_s: 900.0, ..SoakProtocol::default() };
    let text = || soak_text("soak", "S/P 0.75", "fanless", "onset none, S/P 0.75 ± 0.05");
    let p = nb.add_soak_prediction(text(), protocol, at(60)).expect("soak prediction");
    assert!(nb.start_soak(p + 1, at(61)).is_err(), "only the protocol the next soak runs");
    store::replace(&dir, &nb).expect("save");
    // Started as a writer starts it: one change, appended to the journal.
    let (started, _) = store::change(&dir, |nb| nb.start_soak(p, at(62))).expect("started");
    assert_eq!(started, protocol);
    let mut nb = store::load(&dir).expect("load");
    assert_eq!(nb.soak_started(p), Some(at(62)), "the start is kept on disk");
    let lock = nb.lock_of(nb.prediction(p).expect("P")).expect("locked at the start");
    assert_eq!(lock.cause, LockCause::SoakStarted);
    assert!(nb.edit_prediction(p, text()).is_err(), "no edit while it runs");
    assert!(messages(&nb).is_empty(), "the start is sealed into the chain: {:?}", messages(&nb));
    let refused = nb.amend_prediction(p, "S/P 0.7", "changed my mind", at(63)).expect_err("no amendment while it runs");
    assert!(refused.to_string().contains("started at") && refused.to_string().contains("new prediction"), "{refused}");

    nb.record_soak(soak_row(protocol, level_soak(), 70), at(70));
    assert_eq!(nb.soak_started(p), None, "recorded: it runs no more");
    assert!(
        nb.amend_prediction(p, "S/P 0.7", "after the soak", at(71)).is_ok(),
        "amending a soak's prediction after it"
    );
    // A prediction a bench run had locked before the soak is fixed the same way.
    let second = nb.add_soak_prediction(text(), protocol, at(80)).expect("a second soak prediction");
    nb.record_run(measurement("a bench run in between", &[1.0, 1.1, 1.2]), at(81));
    assert_eq!(nb.start_soak(second, at(82)), Ok(protocol));
    assert!(
        nb.amend_prediction(second, "S/P 0.7", "mid-soak", at(83)).is_err(),
        "locked by the run, fixed by the start"
    );
    assert!(nb.add_soak_prediction(text(), protocol, at(84)).is_ok(), "a new soak prediction is always possible");
}

/// A soak's numbers with no fall: P and S at 2.4 chunks/s.
fn level_soak() -> vernier_engine::notebook::SoakNumbers {
    vernier_engine::notebook::SoakNumbers {
        peak: 2.4,
        t_onset: None,
        t_stable: None,
        sustained: 2.4,
        ratio: 1.0,
        tail_iqr: 0.05,
        unit: "chunks/s".into(),
    }
}

// SPEC T13, N4: a window or threshold changed from the defaults needs its
// reason; the reason is sealed with the prediction (a hand edit of it is
// reported), is the one the soak that ran the protocol reports, and an
// amendment leaving the windows as they were keeps it.
#[test]
fn a_changed_windows_reason_is_sealed_and_kept() {
    use vernier_engine::notebook::{NewProtocol, SoakProtocol};
    let defaults = SoakProtocol::default();
    let changed = SoakProtocol { opening_window_s: 20.0, hold: 5, ..defaults };
    let unexplained = changed.reason_for_change(&defaults, None).expect_err("no reason").to_string();
    assert!(unexplained.contains("the opening window is 20 s, not 30 s, the hold is 5 samples, not 3 samples"));
    assert!(changed.reason_for_change(&defaults, Some(" \t")).is_err(), "a blank reason is none");
    assert_eq!(changed.reason_for_change(&defaults, Some("  fan at 20 s ")), Ok(Some("fan at 20 s".to_owned())));
    assert_eq!(defaults.reason_for_change(&defaults, Some("nothing changed")), Ok(None), "no change, no reason kept");

    let (_tmp, dir, mut nb) = saved_notebook();
    let fixed = NewProtocol { protocol: changed, why: Some("the fan spins up at 20 s".to_owned()) };
    let text = || soak_text("soak", "S/P 0.75", "fanless", "onset none, S/P 0.75 ± 0.05");
    let p = nb.add_soak_prediction(text(), fixed, at(60)).expect("soak prediction");
    store::replace(&dir, &nb).expect("save");
    let kept = store::load(&dir).expect("load");
    assert_eq!(kept.prediction(p).and_then(|p| p.protocol_why.as_deref()), Some("the fan spins up at 20 s"));
    assert!(messages(&kept).is_empty(), "{:?}", messages(&kept));
    let edited = notebook_text(&dir).replace("the fan spins up at 20 s", "the fan spins up at 25 s");
    std::fs::write(dir.join(store::NOTEBOOK_FILE), edited).expect("write");
    let tampered = store::load(&dir).expect("loads");
    assert_eq!(messages(&tampered), [format!("prediction P{p} was edited outside Vernier (it was not locked yet)")]);

    let longer = SoakProtocol { duration_s: 1200.0, ..changed };
    let amended = nb.amend_prediction_with(p, "S/P 0.7", "longer", None, Some(longer.into()), at(70)).expect("amended");
    assert_eq!(nb.prediction(amended).and_then(|p| p.protocol_why.as_deref()), Some("the fan spins up at 20 s"));
    let numbers = vernier_engine::notebook::SoakNumbers {
        peak: 2.4,
        t_onset: None,
        t_stable: Some(300.0),
        sustained: 1.8,
        ratio: 0.75,
        tail_iqr: 0.05,
        unit: "chunks/s".into(),
    };
    nb.record_soak(soak_row(longer, numbers, 80), at(80));
    assert_eq!(nb.protocol_why(&nb.soaks()[0]), Some("the fan spins up at 20 s"), "the soak's reason");
}
