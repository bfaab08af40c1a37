//! A duration as a student types it (SPEC C): whatever the text, for every
//! option's range, either seconds within that range or an error naming it
//! — never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vernier_engine::duration::{
    COOLDOWN, COURSE_WINDOW, MIN_SECONDS, SOAK_DURATION, SOAK_INTERVAL, SOAK_OPENING_WINDOW, SOAK_TAIL_WINDOW, TIMEOUT,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for bound in [TIMEOUT, COOLDOWN, SOAK_DURATION, SOAK_INTERVAL, SOAK_OPENING_WINDOW, SOAK_TAIL_WINDOW, COURSE_WINDOW] {
        match bound.parse(&text) {
            Ok(s) => {
                assert!((MIN_SECONDS..=bound.max_s).contains(&s.get()));
                assert!((s.duration().as_secs_f64() - s.get()).abs() < 1e-6);
            }
            Err(e) => assert!(e.to_string().contains(bound.max_words)),
        }
    }
});
