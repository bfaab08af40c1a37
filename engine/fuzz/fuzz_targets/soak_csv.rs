//! A soak CSV from anyone: parse and analyse, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vernier_engine::soak::{self, file};

fuzz_target!(|data: &[u8]| {
    if let Ok(parsed) = file::parse(data, std::path::Path::new("fuzz.csv")) {
        if let Ok(a) = soak::analyze(&parsed, &soak::Thresholds::default()) {
            let _ = soak::analysis::honesty_line(&a, "chunks/s");
        }
        let _ = soak::course_view(&parsed, 60.0, 300.0, None, soak::analysis::Sight::of_file(&parsed));
    }
});
