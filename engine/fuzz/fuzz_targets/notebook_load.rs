//! `notebook.ron` from anyone: loading must refuse or accept, never panic,
//! and whatever loads must survive the integrity check and a save's text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vernier_engine::notebook::store;

fuzz_target!(|data: &[u8]| {
    if let Ok(notebook) = store::from_bytes(data, std::path::Path::new("fuzz/notebook.ron")) {
        let _ = notebook.integrity();
        for run in notebook.runs() {
            let _ = run.columns();
        }
        for soak in notebook.soaks() {
            let _ = soak.columns();
        }
        let _ = store::to_text(&notebook);
    }
});
