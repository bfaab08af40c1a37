//! A pyperf JSON file (or gzip stream) from anyone: prepare it, never
//! panic, and never prepare a row whose figures are not numbers (SPEC E14,
//! N10).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vernier_engine::import::pyperf::{self, PyperfSpec};

fuzz_target!(|data: &[u8]| {
    if let Ok(prepared) = pyperf::prepare_bytes(std::path::Path::new("fuzz.json"), data, &PyperfSpec::default()) {
        for row in &prepared.rows {
            let s = &row.measurement.summary;
            assert!(s.median.is_finite() && s.iqr >= 0.0 && s.n >= 1);
        }
    }
});
