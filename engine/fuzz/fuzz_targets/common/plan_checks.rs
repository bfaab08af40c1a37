//! The invariants of `merge::plan` (SPEC N12, N4, N9), shared by the fuzz
//! targets that reach it: every edit gets exactly one verdict, and nothing
//! taken in changes a measured number or a locked prediction.

use vernier_engine::documents::edits::{Change, Edit};
use vernier_engine::documents::measurements::{OwnWorkbook, PREDICTION_TEXT};
use vernier_engine::merge::{self, Action, Plan};
use vernier_engine::notebook::{Notebook, RowRef};

/// Plans `own` against `mine` and checks the plan; returns it.
pub fn check(own: &OwnWorkbook, mine: &Notebook) -> Plan {
    let plan = merge::plan(own, mine, "fuzz.xlsx");
    check_partition(own, &plan);
    for (edits, action) in &plan.take {
        assert!(!edits.is_empty(), "an action without an edit: {action:?}");
        check_action(edits, action, mine);
        let _ = action.describe();
    }
    let after = check_applied(&plan, mine);
    // The same workbook merged again (N12): what was taken in is already
    // there — neither taken again nor refused.
    let again = merge::plan(own, &after, "fuzz.xlsx");
    for (edits, action) in plan.take.iter().filter(|(_, a)| !matches!(a, Action::TypedRun(_))) {
        for edit in edits {
            assert!(
                again.already.contains(edit),
                "merged twice, {edit:?} ({}) is not already in: taken {:?}, refused {:?}",
                action.describe(),
                again.take.iter().find(|(e, _)| e.contains(edit)).map(|(_, a)| a.describe()),
                again.refused.iter().find(|(e, _)| e == edit).map(|(_, why)| why),
            );
        }
    }
    plan
}

/// Every edit lands in exactly one of take / already / refused.
fn check_partition(own: &OwnWorkbook, plan: &Plan) {
    let mut left: Vec<&Edit> = own.edits.iter().collect();
    let verdicts = plan
        .take
        .iter()
        .flat_map(|(edits, _)| edits.iter())
        .chain(plan.already.iter())
        .chain(plan.refused.iter().map(|(e, _)| e));
    for edit in verdicts {
        match left.iter().position(|e| *e == edit) {
            Some(i) => {
                left.swap_remove(i);
            }
            None => panic!("an edit with a verdict that is not one of the workbook's, or a second verdict: {edit:?}"),
        }
    }
    assert!(left.is_empty(), "edits without a verdict: {left:?}");
}

/// An action is one the log's rules allow, from edits that may make it.
fn check_action(edits: &[Edit], action: &Action, mine: &Notebook) {
    for edit in edits {
        if let Change::Cell { column, old, .. } = &edit.change {
            match edit.sheet.as_str() {
                "Runs" | "Soak runs" => assert!(
                    column == "Discarded" && old.trim().is_empty(),
                    "a run's sealed cell taken in: {edit:?} as {action:?}"
                ),
                "Predictions" => assert!(PREDICTION_TEXT.contains(&column.as_str()), "{edit:?} as {action:?}"),
                "Environment" => assert_eq!(column, "Value", "{edit:?} as {action:?}"),
                other => panic!("a cell of {other} taken in: {edit:?} as {action:?}"),
            }
        }
    }
    let sheets = |name: &str| edits.iter().all(|e| e.sheet == name);
    let added = || edits.iter().all(|e| matches!(e.change, Change::Added(_)));
    let cells = || edits.iter().all(|e| matches!(e.change, Change::Cell { .. }));
    match action {
        Action::SetEnvironment { .. } => assert!(sheets("Environment") && cells(), "{edits:?}"),
        Action::AddNote { text, .. } => {
            assert!(sheets("Notes and anomalies") && added() && !text.trim().is_empty(), "{edits:?}")
        }
        Action::AddPrediction(_) => assert!(sheets("Predictions") && added(), "{edits:?}"),
        Action::EditPrediction { number, text } => {
            assert!(sheets("Predictions") && cells(), "{edits:?}");
            let p = mine.prediction(*number).expect("an edited prediction is in the notebook");
            assert!(mine.lock_of(p).is_none(), "a locked prediction P{number} edited: {edits:?}");
            assert!(!text.experiment.is_empty() && !text.predict.is_empty() && !text.why.is_empty());
        }
        Action::Discard { subject, reason } => {
            assert!(cells() && !reason.trim().is_empty(), "{edits:?}");
            let kept = match subject {
                RowRef::Run(n) => mine.run(*n).map(|r| r.discarded.is_none()),
                RowRef::Soak(n) => mine.soaks().iter().find(|s| s.number == *n).map(|s| s.discarded.is_none()),
            };
            assert_eq!(kept, Some(true), "a discard of a row not kept in the notebook: {subject:?}");
        }
        Action::TypedRun(p) => {
            assert!(sheets("Runs") && added(), "{edits:?}");
            assert_eq!(p.rows.len(), 1);
            let m = &p.rows[0].measurement;
            let s = &m.summary;
            assert!(s.min <= s.median && s.median <= s.max, "a typed run out of order: {s:?}");
        }
    }
}

/// Applying what does not touch the disk changes no measured number, no
/// locked prediction, and leaves the prediction chain whole. Returns the
/// notebook with them taken in.
fn check_applied(plan: &Plan, mine: &Notebook) -> Notebook {
    let in_memory = Plan {
        take: plan.take.iter().filter(|(_, a)| !matches!(a, Action::TypedRun(_))).cloned().collect(),
        source: plan.source.clone(),
        ..Plan::default()
    };
    let mut after = mine.clone();
    let at = mine.created_at + chrono::Duration::days(400);
    let dir = std::path::Path::new("/nonexistent/vernier-fuzz");
    let taken = in_memory.apply(dir, &mut after, at);
    assert!(taken.failed.is_empty(), "a planned action failed on the notebook it was planned on: {:?}", taken.failed);
    assert_eq!(after.runs().len(), mine.runs().len());
    for (a, b) in after.runs().iter().zip(mine.runs()) {
        assert_eq!((a.number, &a.measurement, a.recorded_at), (b.number, &b.measurement, b.recorded_at));
        if b.discarded.is_some() {
            assert_eq!(a.discarded, b.discarded, "a discard was rewritten");
        }
    }
    assert_eq!(after.soaks().len(), mine.soaks().len());
    for (a, b) in after.soaks().iter().zip(mine.soaks()) {
        assert_eq!(
            (a.number, &a.numbers, &a.protocol, &a.conditions),
            (b.number, &b.numbers, &b.protocol, &b.conditions)
        );
    }
    for p in mine.predictions().iter().filter(|p| mine.lock_of(p).is_some()) {
        assert_eq!(after.prediction(p.number), Some(p), "locked P{} changed", p.number);
    }
    let before = mine.integrity().len();
    assert!(after.integrity().len() <= before, "taking in broke the log: {:?}", after.integrity());
    after
}
