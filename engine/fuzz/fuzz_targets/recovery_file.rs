//! A recovery file beside a notebook (`notebook.unsaved-*.ron`), which
//! anyone with write access to the folder can plant: parsing must refuse or
//! accept, never panic, and what parses must be described and weighed
//! against a notebook (every change applied to a copy) without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vernier_engine::notebook::{Notebook, pending};

fuzz_target!(|data: &[u8]| {
    if let Ok(unsaved) = pending::from_bytes(data, std::path::Path::new("fuzz/notebook.unsaved.ron")) {
        let notebook = Notebook::new("fuzz", chrono::DateTime::UNIX_EPOCH);
        let _ = pending::weigh(&notebook, &unsaved);
    }
});
