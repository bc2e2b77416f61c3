//! Every input the fuzzers ever crashed on (`tests/fixtures/fuzz-crashers/<target>-<n>.*`) goes
//! through its target's harness again, on the stable toolchain, as a regression test (issue 14):
//! no panic, no endless loop (each input gets 20 s), every invariant the harness checks. Runs in
//! strict mode, so the undocumented properties found broken once stay fixed too.
//!
//! `cargo test --manifest-path fuzz/Cargo.toml --no-default-features` (part of `make test`).

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

fn harness(target: &str) -> fn(&[u8]) {
    match target {
        "decode" => stategate_fuzz::decode,
        "validate_repair" => stategate_fuzz::validate_repair,
        "project" => stategate_fuzz::project,
        "store" => stategate_fuzz::store,
        "replay" => stategate_fuzz::replay,
        "transcript" => stategate_fuzz::transcript,
        other => panic!("a crasher for an unknown target '{other}': name files <target>-<n>.<ext>"),
    }
}

#[test]
fn every_saved_crasher_passes_its_harness() {
    std::env::set_var("STATEGATE_FUZZ_STRICT", "1");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fuzz-crashers");
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).expect("tests/fixtures/fuzz-crashers").map(|e| e.expect("an entry").path()).collect();
    files.sort();
    let mut ran = 0;
    let mut failed = Vec::new();
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e != "md")) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let target = name.rsplit_once('-').map(|(t, _)| t.to_string()).unwrap_or_default();
        let run = harness(&target);
        let bytes = std::fs::read(path).expect("a crasher file");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let outcome = std::panic::catch_unwind(|| run(&bytes));
            let _ = tx.send(outcome.is_ok());
        });
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(true) => {}
            Ok(false) => failed.push(format!("{name}: panicked (see the message above)")),
            Err(_) => failed.push(format!("{name}: still running after 20 s (an endless loop?)")),
        }
        ran += 1;
    }
    assert!(ran >= 9, "only {ran} crashers found in {}", dir.display());
    assert!(failed.is_empty(), "{} of {ran} crashers fail again:\n{}", failed.len(), failed.join("\n"));
}
