#![no_main]
//! See `stategate_fuzz::decode` for what this target feeds the core and which invariants it checks.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| stategate_fuzz::decode(data));
