//! `notebook.ron` from anyone: loading must refuse or accept, never panic,
//! and whatever loads must survive the integrity check, a save's text and
//! the reproduce plan of every run.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vernier_engine::notebook::store;

fuzz_target!(|data: &[u8]| {
    if let Ok(notebook) = store::from_bytes(data, std::path::Path::new("fuzz/notebook.ron")) {
        let _ = notebook.integrity();
        for run in notebook.runs() {
            let _ = run.columns();
            // A classmate's notebook is reproduced from exactly this.
            if let Ok(original) = vernier_engine::reproduce::Original::from_notebook(&notebook, run.number) {
                let _ = (original.runs(), original.trials_text(), original.arms().len(), original.figures());
            }
        }
        for soak in notebook.soaks() {
            let _ = soak.columns();
        }
        let _ = store::to_text(&notebook);
    }
});
