//! A measured program's output, read for its own figure (E17): whatever it
//! printed, by regex or JSON key, one figure or each — never a panic, and
//! every figure returned is finite.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vernier_engine::notebook::{MetricSpec, Source};

fuzz_target!(|data: &[u8]| {
    let output = String::from_utf8_lossy(data);
    for each in [false, true] {
        for source in [Source::Regex("ns/access: ([0-9.eE+-]+)".into()), Source::JsonKey("result.ns".into())] {
            let spec = MetricSpec { source, unit: "ns/access".into(), each };
            if let Ok(figures) = spec.compile().expect("a valid spec").read(&output) {
                assert!(figures.iter().all(|f| f.is_finite() && *f > 0.0));
            }
        }
    }
});
