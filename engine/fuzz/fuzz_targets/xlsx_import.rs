//! A measurements.xlsx from anyone: open it (Vernier's own or foreign), read
//! every row it offers, and turn each into a reproduce plan — never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vernier_engine::documents::measurements::{self, Opened};
use vernier_engine::reproduce::Original;

fuzz_target!(|data: &[u8]| {
    match measurements::open(data, "fuzz.xlsx") {
        Ok(Opened::Foreign(f)) => {
            for run in &f.runs {
                if let Ok(o) = Original::from_sheet(&f.runs, run.number) {
                    let _ = o.spec();
                }
            }
        }
        Ok(Opened::Vernier(nb)) => {
            for run in nb.runs() {
                if let Ok(o) = Original::from_notebook(&nb, run.number) {
                    let _ = o.spec();
                }
            }
        }
        Err(_) => {}
    }
});
