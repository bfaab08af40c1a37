//! A CSV of trials from anyone (SPEC E14, N10): prepare it one arm and two
//! paired arms at a time, never panic, and never prepare a row whose
//! figures are not numbers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vernier_engine::import::csv::{self, Arms, CsvSpec};

fuzz_target!(|data: &[u8]| {
    let _ = csv::header(std::path::Path::new("fuzz.csv"), data);
    let paired = CsvSpec {
        arms: Arms::Two(["a_ms".into(), "b_ms".into()]),
        pair: Some("pair".into()),
        first: Some("first".into()),
        unit: None,
        warmup: Some(1),
        warmup_stated: None,
        what: None,
        labels: [None, None],
        command: None,
        build: None,
        instrument: None,
    };
    let single =
        CsvSpec { arms: Arms::One("t".into()), pair: None, first: None, unit: Some("us".into()), ..paired.clone() };
    for spec in [paired, single] {
        if let Ok(prepared) = csv::prepare_bytes(std::path::Path::new("fuzz.csv"), data, &spec) {
            for row in &prepared.rows {
                let s = &row.measurement.summary;
                assert!(s.median.is_finite() && s.iqr.is_finite() && s.iqr >= 0.0 && s.n >= 1);
            }
            if let Some(pair) = &prepared.pair {
                assert!(pair.paired.as_ref().is_none_or(|p| p.median.is_finite()));
            }
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Some(csv) = csv::pasted(text) {
            let _ = csv::header(std::path::Path::new("pasted"), csv.as_bytes());
        }
    }
});
