//! A raw trials file from anyone: parse, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = vernier_engine::harness::raw::parse_with_figures(text);
        let _ = vernier_engine::harness::raw::units(text);
    }
});
