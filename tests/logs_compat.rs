//! Logs written by an earlier build read, verify and write back exactly (issue 17: the store now
//! holds its events compactly and writes their JSON on demand; the JSON shapes, hashes,
//! checkpoints and logs must not change). The fixtures in tests/fixtures/logs/ were written by
//! the package of main at cb69b05 (`make.mjs` there says what they hold): a plain chain and a
//! keyed one of the same run, a checkpoint after event 10, and what that build's stores held.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use stategate::log::{parse_jsonl, verify_log, Chain, GENESIS_HASH};
use stategate::state::ChannelSpec;
use stategate::{Store, StoreOptions};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/logs/");

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}{name}")).unwrap()
}

fn meta() -> Value {
    serde_json::from_str(&read("main-cb69b05.json")).unwrap()
}

fn channels(meta: &Value) -> Vec<ChannelSpec> {
    serde_json::from_value(meta["channels"].clone()).unwrap()
}

/// The run's key (the fixture's: 32 bytes of `chain_key_byte`).
fn key(meta: &Value) -> Vec<u8> {
    vec![meta["chain_key_byte"].as_u64().unwrap() as u8; 32]
}

/// A replayed store against what the writer's store held: version, last hash, every public
/// channel, the private one (its owner's key claimed again), and its log written back as the
/// very text it was read from.
fn check(mut s: Store, expected: &Value, text: &str) {
    assert_eq!(s.version(), expected["version"].as_u64().unwrap());
    assert_eq!(s.last_hash(), expected["lastHash"].as_str().unwrap());
    assert_eq!(Value::Object(s.system_view()), expected["system"]);
    let owner = s.claim_owner_key("agent", || "k".into()).unwrap();
    assert_eq!(Value::Object(s.private_view(&owner).unwrap()), expected["private"]);
    assert_eq!(s.events_json(&Default::default(), true).unwrap(), text);
    let events = s.events();
    assert_eq!(serde_json::to_value(&events).unwrap(), serde_json::to_value(parse_jsonl(text).unwrap()).unwrap());
}

#[test]
fn a_log_written_by_main_replays_verifies_and_is_written_back_as_it_came() {
    let meta = meta();
    for (file, expected, chain_key) in
        [("main-cb69b05.jsonl", &meta["plain"], None), ("main-cb69b05-keyed.jsonl", &meta["keyed"], Some(key(&meta)))]
    {
        let text = read(file);
        let events = parse_jsonl(&text).unwrap();
        let chain = Chain::from_key(chain_key.as_deref()).unwrap();
        assert_eq!(verify_log(&events, (0, GENESIS_HASH), &chain, false), Ok(events.len()), "{file}");
        let opts = || StoreOptions { channels: channels(&meta), chain_key: chain_key.clone(), ..Default::default() };
        check(Store::replay(opts(), &events).unwrap(), expected, &text);
        check(Store::replay_jsonl(opts(), &text).unwrap(), expected, &text);
        // A past view, rebuilt from the log as held.
        let mut live = Store::replay_jsonl(opts(), &text).unwrap();
        let mut past = live.at(7).unwrap();
        assert_eq!(past.last_hash(), events[6].hash);
    }
    // A keyed log read without its key breaks at its first event.
    let keyed = read("main-cb69b05-keyed.jsonl");
    let opts = StoreOptions { channels: channels(&meta), ..Default::default() };
    let e = Store::replay_jsonl(opts, &keyed).unwrap_err();
    assert_eq!((e.code.as_str(), e.index, e.field.as_deref()), ("TAMPERED_LOG", Some(0), Some("hash")));
}

#[test]
fn a_checkpoint_written_by_main_restores_with_its_tail() {
    let meta = meta();
    let text = read("main-cb69b05.jsonl");
    let checkpoint = std::fs::read(format!("{DIR}main-cb69b05-checkpoint-10.json")).unwrap();
    let events = parse_jsonl(&text).unwrap();
    let s = Store::restore(&checkpoint, &events, channels(&meta), None).unwrap();
    let mut t = Store::restore_jsonl(&checkpoint, &text, channels(&meta), None).unwrap();
    for mut r in [s, Store::restore_jsonl(&checkpoint, &text, channels(&meta), None).unwrap()] {
        assert_eq!(r.version(), meta["plain"]["version"].as_u64().unwrap());
        assert_eq!(r.last_hash(), meta["plain"]["lastHash"].as_str().unwrap());
        assert_eq!(Value::Object(r.system_view()), meta["plain"]["system"]);
    }
    // The restored store holds the events after the checkpoint, written back as they came.
    let tail: String = text.lines().skip(10).map(|l| format!("{l}\n")).collect();
    assert_eq!(t.events_json(&Default::default(), true).unwrap(), tail);
}
