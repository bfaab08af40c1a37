//! A measurements.xlsx from anyone: open it (Vernier's own or foreign), read
//! every row it offers, and turn each into a reproduce plan — never panic.
//! Vernier's own is also weighed for merging (N12) against the notebook it
//! carries: every edit gets one verdict, nothing sealed is taken in.
#![no_main]

#[path = "common/plan_checks.rs"]
mod plan_checks;

use libfuzzer_sys::fuzz_target;
use vernier_engine::documents::measurements::{self, OpenedWorkbook};
use vernier_engine::reproduce::Original;

fuzz_target!(|data: &[u8]| {
    match measurements::open(data, "fuzz.xlsx") {
        Ok(OpenedWorkbook::Foreign(f)) => {
            for run in &f.runs {
                if let Ok(o) = Original::from_sheet(&f.runs, run.number) {
                    let _ = (o.runs(), o.trials_text(), o.arms().len(), o.figures());
                }
            }
        }
        Ok(OpenedWorkbook::Vernier(own)) => {
            let nb = &own.notebook;
            for run in nb.runs() {
                if let Ok(o) = Original::from_notebook(nb, run.number) {
                    let _ = (o.runs(), o.trials_text(), o.arms().len(), o.figures());
                }
            }
            for edit in &own.edits {
                let _ = edit.to_string();
            }
            plan_checks::check(&own, nb);
        }
        Err(_) => {}
    }
});
