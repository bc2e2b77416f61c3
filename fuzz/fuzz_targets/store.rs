#![no_main]
//! See `stategate_fuzz::store` for what this target feeds the core and which invariants it checks.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| stategate_fuzz::store(data));
