//! Native tests of the log past one process (issue 18): preview then ingest (a database as the
//! log), two writers racing on one run, followers of a run over its transport events, and the
//! keyed chain (HMAC-SHA-256). Compiled only under #[cfg(test)].

use super::*;
use crate::error::ErrorCode;
use crate::log::{check_log, verify_log, BreakReason, Chain, Event, LogCheck, GENESIS_HASH};
use serde_json::{json, Value};

const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

fn at(version: u64, mut c: Command) -> Command {
    c.expected_version = Some(version);
    c
}

fn store(key: Option<&[u8]>) -> Store {
    Store::new(StoreOptions { run_id: Some("r".into()), chain_key: key.map(<[u8]>::to_vec), ..Default::default() })
        .unwrap()
}

fn user(text: &str) -> Value {
    json!({"messages": [{"role": "user", "content": text}]})
}

fn state(s: &mut Store) -> Value {
    json!({"version": s.version(), "system": s.system_view(), "last_hash": s.last_hash()})
}

fn salted(mut s: Store) -> Store {
    s.set_entropy(Some(test_salts()));
    s
}

/// A store with a private channel of owner `memory` holding `secret`, and some public history.
fn with_private(secret: &str) -> Store {
    let mut s = salted(store(None));
    let mut spec = ChannelSpec::new("memory_contents", Reducer::Merge);
    spec.visibility = Visibility::Private;
    spec.owner = Some("memory".into());
    s.register_channel(spec, None, || "k".into()).unwrap();
    s.apply(&cmd("user", user("hello")), 1).unwrap();
    s.apply(
        &cmd(
            "memory",
            json!({"memory_contents": {"AGENTS.md": secret}, "todos": [{"content": "t", "status": "pending"}]}),
        ),
        2,
    )
    .unwrap();
    s.apply(&cmd("model", json!({"messages": [{"role": "assistant", "content": "hi"}]})), 3).unwrap();
    s
}

fn all(s: &mut Store) -> Vec<Event> {
    s.transport_events(&EventFilter::default()).unwrap()
}

fn export(s: &mut Store) -> Vec<u8> {
    s.export_for_transport().unwrap()
}

#[test]
fn preview_gives_the_events_apply_would_log_and_changes_nothing() {
    let mut s = store(None);
    s.apply(&cmd("user", user("one")), 10).unwrap();
    let before = state(&mut s);
    let events = s
        .preview(&[cmd("model", json!({"messages": [{"role": "assistant", "content": "two"}], "todos": []}))], 20)
        .unwrap();
    assert_eq!(state(&mut s), before, "a preview leaves the store as it was");
    assert_eq!(events.len(), 1);
    assert_eq!((events[0].sequence, events[0].created_at), (2, 20));
    assert_eq!(events[0].prev_hash, s.last_hash());
    // Ingesting the preview is applying it: the same state as apply at the same time.
    let mut twin = s.clone();
    twin.apply(&cmd("model", json!({"messages": [{"role": "assistant", "content": "two"}], "todos": []})), 20).unwrap();
    let done = s.ingest(&events).unwrap();
    assert_eq!(done, Ingested { version: 2, applied: 1, hash_checked: 1 });
    assert_eq!(state(&mut s), state(&mut twin));
    assert_eq!(s.events(), twin.events());
    // A refused preview is the error apply gives.
    let e = s.preview(&[at(7, cmd("user", user("x")))], 30).unwrap_err();
    assert_eq!(e.code, ErrorCode::VersionConflict);
    let batch = s.preview(&[cmd("a", user("x")), cmd("b", user("y"))], 30).unwrap();
    assert_eq!(batch.iter().map(|e| e.sequence).collect::<Vec<_>>(), [3, 4]);
    assert_eq!(s.version(), 2);
}

#[test]
fn two_writers_race_one_wins_and_the_loser_catches_up() {
    // The table: what a database keyed by (run_id, sequence) keeps — first writer of a sequence wins.
    let mut table: Vec<Event> = Vec::new();
    let insert = |table: &mut Vec<Event>, events: &[Event]| -> bool {
        if events.first().is_some_and(|e| e.sequence as usize != table.len() + 1) {
            return false;
        }
        table.extend_from_slice(events);
        true
    };
    let (mut a, mut b) = (store(None), store(None));
    for round in 0..20u64 {
        let ea = a.preview(&[at(a.version(), cmd("a", user(&format!("a{round}"))))], 100 + round).unwrap();
        let eb = b.preview(&[at(b.version(), cmd("b", user(&format!("b{round}"))))], 100 + round).unwrap();
        let (first, second) = if round % 2 == 0 { ((&mut a, ea), (&mut b, eb)) } else { ((&mut b, eb), (&mut a, ea)) };
        assert!(insert(&mut table, &first.1));
        first.0.ingest(&first.1).unwrap();
        assert!(!insert(&mut table, &second.1), "the second writer of a sequence is refused");
        // The loser syncs from the table (a whole log is fine: its own events are skipped).
        second.0.ingest(&table).unwrap();
    }
    assert_eq!(table.len(), 20);
    assert_eq!(verify_log(&table, (0, GENESIS_HASH), &Chain::Plain, false), Ok(20));
    let mut replayed = Store::replay(StoreOptions::default(), &table).unwrap();
    assert_eq!(state(&mut a), state(&mut b));
    assert_eq!(state(&mut replayed), state(&mut a));
}

#[test]
fn ingest_is_all_or_nothing_and_names_what_is_wrong() {
    let mut w = store(None);
    for i in 0..5 {
        w.apply(&cmd("user", user(&format!("m{i}"))), i).unwrap();
    }
    let log = w.events().to_vec();
    let mut r = store(None);
    // A gap: the store is at 0, the events start at 3.
    let e = r.ingest(&log[2..]).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::LogGap, Some(0)));
    assert!(e.message.contains("after 0"), "{}", e.message);
    // A bad event in the middle: nothing of the batch is kept.
    let mut bad = log.clone();
    bad[3].payload.insert("todos".into(), json!([]));
    let e = r.ingest(&bad).unwrap_err();
    assert_eq!((e.code, e.index, e.field.as_deref()), (ErrorCode::TamperedLog, Some(3), Some("hash")));
    assert_eq!(r.version(), 0);
    // Events the store has are skipped; a different event at a known sequence is a fork.
    assert_eq!(r.ingest(&log[..2]).unwrap().applied, 2);
    assert_eq!(r.ingest(&log).unwrap(), Ingested { version: 5, applied: 3, hash_checked: 3 });
    assert_eq!(r.ingest(&log).unwrap().applied, 0);
    // Another event at a known sequence: made from the same state, a competing write
    // (VERSION_CONFLICT: a stale preview, another writer); from another state, a fork.
    let mut other = store(None);
    other.apply(&cmd("user", user("another history")), 0).unwrap();
    other.apply(&cmd("user", user("and more")), 0).unwrap();
    let e = r.ingest(&other.events()[..1]).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::VersionConflict, Some(0)), "{}", e.message);
    let e = r.ingest(&other.events()[1..]).unwrap_err();
    assert!(e.code == ErrorCode::TamperedLog && e.message.contains("forked"), "{}", e.message);
    let stale = r.preview(&[cmd("user", user("stale"))], 9).unwrap();
    r.apply(&cmd("user", user("first")), 9).unwrap();
    assert_eq!(r.ingest(&stale).unwrap_err().code, ErrorCode::VersionConflict);
    // Events sent twice in one batch are taken once; a different repeat is refused.
    let mut twice = store(None);
    let doubled = [log[0].clone(), log[0].clone(), log[1].clone(), log[1].clone(), log[2].clone()];
    assert_eq!(twice.ingest(&doubled).unwrap(), Ingested { version: 3, applied: 3, hash_checked: 3 });
    let mut twisted = doubled.clone();
    twisted[3].payload.insert("todos".into(), json!([]));
    assert_eq!(store(None).ingest(&twisted).unwrap_err().code, ErrorCode::TamperedLog);
    // A past view takes nothing.
    assert_eq!(r.at(2).unwrap().ingest(&log[2..]).unwrap_err().code, ErrorCode::ReadOnly);
    // A store restored from a checkpoint cannot compare the events before it, but they must
    // still be a sound chain leading into it.
    let mut prefix = Store::replay(StoreOptions::default(), &log[..3]).unwrap();
    let mut restored = Store::restore(&prefix.checkpoint(), &[], Vec::new(), None).unwrap();
    let mut corrupt = log.clone();
    corrupt[1].payload.insert("todos".into(), json!([]));
    let e = restored.ingest(&corrupt).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::TamperedLog, Some(1)), "{}", e.message);
    assert_eq!(restored.ingest(&log).unwrap(), Ingested { version: 5, applied: 2, hash_checked: 2 });
}

#[test]
fn a_follower_sees_the_public_state_and_never_a_private_value() {
    let secret = "CANARY-9d2c41-private";
    let mut server = with_private(secret);
    let mut f = Store::follow(&export(&mut server), None).unwrap();
    assert_eq!(f.system_view(), server.system_view());
    // More history, sent as transport events.
    server.apply(&cmd("memory", json!({"memory_contents": {"notes": secret}})), 4).unwrap();
    server.apply(&cmd("user", user("and then")), 5).unwrap();
    let sent = server.transport_events(&EventFilter { since: Some(f.version()), ..Default::default() }).unwrap();
    let wire = serde_json::to_string(&sent).unwrap();
    assert!(!wire.contains(secret) && !wire.contains("CANARY") && !wire.contains("salted"), "{wire}");
    // The private write is sent as its commitment: the follower checks every hash.
    let salt = server.events()[3].salted["memory_contents"].as_str().unwrap().to_string();
    let value = server.events()[3].payload["memory_contents"].clone();
    assert_eq!(sent[0].redacted["memory_contents"], json!(crate::log::commitment(&salt, &value)));
    assert!(sent[1].redacted.is_empty());
    let done = f.ingest(&sent).unwrap();
    assert_eq!(done, Ingested { version: 5, applied: 2, hash_checked: 2 });
    assert_eq!((f.version(), f.last_hash().to_string()), (server.version(), server.last_hash().to_string()));
    assert_eq!(f.system_view(), server.system_view());
    // Whole transport history from the start: also follows (from an export at version 0).
    let mut fresh = with_private(secret);
    let mut from0 = Store::follow(&export(&mut store(None)), None).unwrap();
    assert_eq!(from0.ingest(&all(&mut fresh)).unwrap(), Ingested { version: 3, applied: 3, hash_checked: 3 });
    assert_eq!(from0.system_view(), fresh.system_view());
    // A follower takes no command; a writer's store takes no redacted event.
    assert_eq!(f.apply(&cmd("user", user("x")), 6).unwrap_err().code, ErrorCode::ReadOnly);
    let e = Store::replay(StoreOptions::default(), &all(&mut fresh)).unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::TamperedLog, Some("redacted")));
    let mut public = sent.clone();
    public[1].payload.insert("todos".into(), json!([]));
    assert_eq!(f.clone().ingest(&sent).unwrap().applied, 0, "events it has are skipped");
    let e = f.clone().ingest(&public).unwrap_err();
    assert_eq!(
        (e.code, e.index),
        (ErrorCode::TamperedLog, Some(1)),
        "a known event is never taken as clean when altered"
    );
    // Its past views work, from the export on, and a past view's own past view too.
    assert_eq!(f.at(4).unwrap().version(), 4);
    assert_eq!(f.at(5).unwrap().at(4).unwrap().version(), 4);
    // The full log still replays (salts and all) to the same hash.
    let mut r = Store::replay(
        StoreOptions { channels: server.channels()[server.channels().len() - 1..].to_vec(), ..Default::default() },
        &server.events(),
    )
    .unwrap();
    assert_eq!(r.last_hash(), server.last_hash());
}

/// A private write's hash reveals nothing a guess could confirm: it covers the value only
/// through a salted commitment, and the salt never leaves the store (issue 18, found by the
/// fresh-eyes review: a 4-digit PIN was recovered from an unsalted event's hash).
#[test]
fn a_private_write_cannot_be_guessed_from_its_hash() {
    let pin = |s: &mut Store| {
        let mut spec = ChannelSpec::new("pin", Reducer::Replace);
        spec.visibility = Visibility::Private;
        spec.owner = Some("bank".into());
        s.register_channel(spec, None, || "k".into()).unwrap();
        s.apply(&cmd("bank", json!({"pin": "4831"})), 1).unwrap();
        all(s).pop().unwrap()
    };
    let (a, b) = (pin(&mut salted(store(None))), pin(&mut salted(store(Some(KEY)))));
    let mut c = salted(store(None));
    pin(&mut c);
    let c = {
        c.apply(&cmd("bank", json!({"pin": "0000"})), 2).unwrap();
        c.apply(&cmd("bank", json!({"pin": "4831"})), 3).unwrap();
        all(&mut c).pop().unwrap()
    };
    assert!(a.payload.is_empty() && a.salted.is_empty() && a.redacted.contains_key("pin"));
    assert_ne!(a.hash, c.hash, "the same value under another salt hashes differently");
    assert_ne!(a.redacted["pin"], c.redacted["pin"]);
    // A guesser holding the event (and even the chain key) finds no guess that reproduces it.
    for guess in (0..10_000).map(|n| format!("{n:04}")) {
        let mut g = a.clone();
        g.redacted.clear();
        g.payload.insert("pin".into(), json!(guess));
        assert_ne!(g.compute_hash(&Chain::Plain), Some(a.hash.clone()));
        let mut g = b.clone();
        g.redacted.clear();
        g.payload.insert("pin".into(), json!(guess));
        assert_ne!(g.compute_hash(&Chain::keyed(KEY).unwrap()), Some(b.hash.clone()));
    }
}

#[test]
fn a_follower_checks_every_link_and_hash_and_refuses_what_redaction_could_hide() {
    let mut server = with_private("s3cret-value");
    let mut f = Store::follow(&export(&mut store(None)), None).unwrap();
    let sent = all(&mut server);
    // A changed public event is caught by its hash.
    let mut changed = sent.clone();
    changed[2].payload.insert("todos".into(), json!([]));
    let e = f.ingest(&changed).unwrap_err();
    assert_eq!((e.code, e.index, e.field.as_deref()), (ErrorCode::TamperedLog, Some(2), Some("hash")));
    // A redacted event whose public part or commitment changed is caught by its hash too.
    let mut changed = sent.clone();
    changed[1].payload.insert("todos".into(), json!([]));
    assert_eq!(f.ingest(&changed).unwrap_err().field.as_deref(), Some("hash"));
    let mut changed = sent.clone();
    changed[1].redacted.insert("memory_contents".into(), json!("0".repeat(64)));
    assert_eq!(f.ingest(&changed).unwrap_err().field.as_deref(), Some("hash"));
    // Marking a public write redacted, or redacting a channel the event still writes, is refused.
    let mut hidden = sent.clone();
    hidden[2].payload.shift_remove("messages");
    hidden[2].redacted.insert("messages".into(), Value::Null);
    let e = f.ingest(&hidden).unwrap_err();
    assert_eq!((e.code, e.index, e.field.as_deref()), (ErrorCode::TamperedLog, Some(2), Some("redacted")));
    let mut both = sent.clone();
    both[1].redacted.insert("todos".into(), Value::Null);
    assert_eq!(f.ingest(&both).unwrap_err().field.as_deref(), Some("redacted"));
    // A redacted event cut from the chain is caught by its link.
    let mut cut = sent.clone();
    cut[1].prev_hash = GENESIS_HASH.into();
    let e = f.ingest(&cut).unwrap_err();
    assert_eq!((e.index, e.field.as_deref()), (Some(1), Some("prev_hash")));
    assert_eq!(f.version(), 0);
    // A redacted write without a commitment could be anything: refused, never a links-only pass
    // (found by the second fresh-eyes review: `redacted: {ghost: null}` switched the check off).
    let mut ghost = sent.clone();
    ghost[2].payload.insert("messages".into(), json!([{"put": {"role": "assistant", "content": "FORGED"}}]));
    ghost[2].redacted.insert("ghost".into(), Value::Null);
    let e = f.ingest(&ghost).unwrap_err();
    assert_eq!((e.code, e.index, e.field.as_deref()), (ErrorCode::TamperedLog, Some(2), Some("redacted")));
    // Without an entropy source (the Rust API's default) a private write is unsalted: its hash
    // could confirm a guess, so it is never sent, nor the event after it (whose prev_hash it is),
    // nor an export right after it.
    let mut bare = store(None);
    let mut spec = ChannelSpec::new("m", Reducer::Replace);
    spec.visibility = Visibility::Private;
    spec.owner = Some("o".into());
    bare.register_channel(spec, None, || "k".into()).unwrap();
    bare.apply(&cmd("o", json!({"m": "4831"})), 1).unwrap();
    assert_eq!(bare.export_for_transport().unwrap_err().code, ErrorCode::PrivateLeak);
    bare.apply(&cmd("user", user("later")), 2).unwrap();
    let e = bare.transport_events(&EventFilter::default()).unwrap_err();
    assert_eq!((e.code, e.channel.as_deref()), (ErrorCode::PrivateLeak, Some("m")));
    assert!(!e.message.contains("4831"));
    assert_eq!(
        bare.transport_events(&EventFilter { since: Some(1), ..Default::default() }).unwrap_err().code,
        ErrorCode::PrivateLeak
    );
    assert!(bare.export_for_transport().is_ok(), "a snapshot after a later event reveals nothing");
}

/// A private value copied into a public channel is refused at the edge of the machine: the
/// export and the transport events say which channel leaked (never the value).
#[test]
fn a_private_value_copied_into_public_state_is_never_sent() {
    let mut server = with_private("SECRETVALUE123");
    server.apply(&cmd("user", user("my key is SECRETVALUE123")), 4).unwrap();
    let e = server.export_for_transport().unwrap_err();
    assert_eq!((e.code, e.channel.as_deref()), (ErrorCode::PrivateLeak, Some("memory_contents")));
    assert!(!e.message.contains("SECRETVALUE123"));
    let e = server.transport_events(&EventFilter { since: Some(3), ..Default::default() }).unwrap_err();
    assert_eq!(e.code, ErrorCode::PrivateLeak);
    assert!(server.transport_events(&EventFilter { until: Some(3), ..Default::default() }).is_ok());
}

#[test]
fn a_keyed_chain_is_hmac_and_verifies_only_with_its_key() {
    let mut s = store(Some(KEY));
    s.apply(&cmd("user", user("hello")), 1).unwrap();
    s.apply(&cmd("model", json!({"messages": [{"role": "assistant", "content": "hi"}]})), 2).unwrap();
    let log = s.events().to_vec();
    let keyed = Chain::keyed(KEY).unwrap();
    assert_eq!(verify_log(&log, (0, GENESIS_HASH), &keyed, false), Ok(2));
    // Without the key (or with another) the first event breaks: the hashes are HMACs.
    let plain = verify_log(&log, (0, GENESIS_HASH), &Chain::Plain, false).unwrap_err();
    assert_eq!((plain.index, plain.reason), (0, BreakReason::Hash));
    let other = Chain::keyed(b"another key, 16+ bytes").unwrap();
    assert!(verify_log(&log, (0, GENESIS_HASH), &other, false).is_err());
    // Every single-byte change of every event is detected.
    let text: String = log.iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
    let bytes = text.as_bytes();
    for i in (0..bytes.len()).filter(|&i| bytes[i] != b'\n') {
        let mut b = bytes.to_vec();
        b[i] ^= 0x01;
        let Ok(t) = String::from_utf8(b) else { continue };
        let read = crate::log::parse_jsonl(&t);
        if let Ok(events) = &read {
            // A flip the canonical form does not see (e.g. a key's case in no field) is not a change.
            if events.iter().zip(&log).all(|(a, b)| a == b) {
                continue;
            }
        }
        assert!(
            !matches!(check_log(read, (0, GENESIS_HASH), &keyed), Ok(LogCheck::Intact { .. })),
            "byte {i} changed and the keyed chain did not notice"
        );
    }
    // A full recompute without the key (a forger with plain SHA-256) is refused.
    let mut forged = log.clone();
    forged[1].payload.insert("todos".into(), json!([{"content": "forged", "status": "pending"}]));
    let mut prev = GENESIS_HASH.to_string();
    for e in &mut forged {
        e.prev_hash = prev.clone();
        e.hash = e.compute_hash(&Chain::Plain).unwrap();
        prev = e.hash.clone();
    }
    assert_eq!(verify_log(&forged, (0, GENESIS_HASH), &keyed, false).unwrap_err().index, 0);
    let e = Store::replay(StoreOptions { chain_key: Some(KEY.to_vec()), ..Default::default() }, &forged).unwrap_err();
    assert_eq!(e.code, ErrorCode::TamperedLog);
    // Replay and restore take the key; a replayed keyed store keeps hashing under it.
    let mut r = Store::replay(StoreOptions { chain_key: Some(KEY.to_vec()), ..Default::default() }, &log).unwrap();
    r.apply(&cmd("user", user("more")), 3).unwrap();
    s.apply(&cmd("user", user("more")), 3).unwrap();
    assert_eq!(r.last_hash(), s.last_hash());
    assert_eq!(Store::replay(StoreOptions::default(), &log).unwrap_err().code, ErrorCode::TamperedLog);
}

#[test]
fn a_keyed_checkpoint_is_sealed_by_the_key_and_read_only_with_it() {
    let mut s = store(Some(KEY));
    s.apply(&cmd("user", user("hello")), 1).unwrap();
    let cp = s.checkpoint();
    let v: Value = serde_json::from_slice(&cp).unwrap();
    assert_eq!(v["keyed"], true);
    let r = Store::restore(&cp, &[], Vec::new(), Some(KEY)).unwrap();
    assert_eq!(r.version(), 1);
    let e = Store::restore(&cp, &[], Vec::new(), None).unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidOption, Some("chainKey")));
    assert_eq!(
        Store::restore(&cp, &[], Vec::new(), Some(b"wrong key wrong key")).unwrap_err().code,
        ErrorCode::CorruptCheckpoint
    );
    // Downgraded to an unkeyed checkpoint resealed with plain SHA-256: refused when the key is given.
    let mut plain: Value = v.clone();
    plain.as_object_mut().unwrap().shift_remove("keyed");
    plain.as_object_mut().unwrap().shift_remove("digest");
    let resealed: crate::log::Checkpoint = serde_json::from_value(plain).unwrap();
    let e = Store::restore(&resealed.encode(&Chain::Plain), &[], Vec::new(), Some(KEY)).unwrap_err();
    assert_eq!(e.code, ErrorCode::CorruptCheckpoint);
    // Every single-byte change of the checkpoint is refused.
    for i in 0..cp.len() {
        let mut b = cp.clone();
        b[i] ^= 0x01;
        if let Ok(mut r) = Store::restore(&b, &[], Vec::new(), Some(KEY)) {
            panic!("byte {i} changed and the checkpoint still restored at {}", r.last_hash());
        }
    }
    // An export is sealed plain (a follower holds no key) and says the chain is keyed.
    let snapshot = export(&mut s);
    let mut f = Store::follow(&snapshot, None).unwrap();
    s.apply(&cmd("user", user("again")), 2).unwrap();
    let sent = s.transport_events(&EventFilter { since: Some(1), ..Default::default() }).unwrap();
    assert_eq!(f.ingest(&sent).unwrap(), Ingested { version: 2, applied: 1, hash_checked: 0 });
    let mut fk = Store::follow(&snapshot, Some(KEY)).unwrap();
    assert_eq!(fk.ingest(&sent).unwrap().hash_checked, 1);
    // A follower given the key checks the export's mac: a snapshot resealed with plain SHA-256
    // (anyone can) is refused, and so is the right snapshot under another key.
    let mut v: Value = serde_json::from_slice(&snapshot).unwrap();
    assert!(v["mac"].as_str().is_some_and(|m| m.len() == 64));
    v["values"]["facts"] = json!({"admin": true});
    v.as_object_mut().unwrap().shift_remove("digest");
    let forged: crate::log::Checkpoint = serde_json::from_value(v).unwrap();
    let forged = forged.encode(&Chain::Plain);
    assert!(Store::follow(&forged, None).is_ok(), "without the key only the plain digest can be checked");
    let e = Store::follow(&forged, Some(KEY)).unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::CorruptCheckpoint, Some("mac")));
    assert_eq!(Store::follow(&snapshot, Some(b"not the run's key!")).unwrap_err().field.as_deref(), Some("mac"));
    assert_eq!(Store::follow(&export(&mut store(None)), Some(KEY)).unwrap_err().code, ErrorCode::InvalidOption);
    assert_eq!(
        Store::new(StoreOptions { chain_key: Some(vec![1; 8]), ..Default::default() }).unwrap_err().code,
        ErrorCode::InvalidOption
    );
}

/// An agent's own history in a private messages channel: followers match the server (budget
/// included), receive none of its call ids, and the leak scan reads what its messages say, not
/// the structure every public message shares (found by the second fresh-eyes review).
#[test]
fn a_private_messages_channel_stays_private_and_followable() {
    let mut s = salted(store(None));
    let mut spec = ChannelSpec::new("scratch", Reducer::Messages);
    spec.visibility = Visibility::Private;
    spec.owner = Some("researcher".into());
    s.register_channel(spec, None, || "k".into()).unwrap();
    s.apply(&cmd("user", user("find the account")), 1).unwrap();
    let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "lookup_acct_99887766", "type": "function", "function": {"name": "lookup", "arguments": "{\"q\": \"ACCT-SECRET-1234\"}"}}], "usage": {"input_tokens": 900, "output_tokens": 339}});
    let result = json!({"role": "tool", "tool_call_id": "lookup_acct_99887766", "content": "balance: 1,204.55 EUR"});
    s.apply(&cmd("researcher", json!({"scratch": [call]})), 2).unwrap();
    s.apply(&cmd("researcher", json!({"scratch": [result]})), 3).unwrap();
    s.apply(&cmd("model", json!({"messages": [{"role": "assistant", "content": "Found it."}]})), 4).unwrap();
    // The run's budget counts the run's own messages only.
    assert_eq!(s.get("budget").unwrap()["used"], json!({"turns": 1, "tokens": 0, "tool_calls": 0}));
    let sent = all(&mut s);
    let wire = serde_json::to_string(&sent).unwrap();
    for secret in ["lookup_acct_99887766", "ACCT-SECRET-1234", "1,204.55"] {
        assert!(!wire.contains(secret), "{secret} went out: {wire}");
    }
    let mut f = Store::follow(&export(&mut store(None)), None).unwrap();
    assert_eq!(f.ingest(&sent).unwrap(), Ingested { version: 4, applied: 4, hash_checked: 4 });
    assert_eq!(f.system_view(), s.system_view());
    assert_eq!(f.last_hash(), s.last_hash());
    // No false leak: "assistant" and "tool_calls" are structure, not the channel's secrets.
    assert!(s.export_for_transport().is_ok());
    let secrets: Vec<String> = s.private_values().into_iter().map(|(_, v)| v).collect();
    assert!(
        secrets.contains(&"ACCT-SECRET-1234".to_string()) && secrets.contains(&"balance: 1,204.55 EUR".to_string()),
        "{secrets:?}"
    );
    assert!(!secrets.iter().any(|v| v == "assistant" || v == "tool_calls"), "{secrets:?}");
    // The log knows those writes were private: replayed into a store declaring the channel
    // visible, they are refused rather than shown.
    let log = s.events().to_vec();
    let public = ChannelSpec::new("scratch", Reducer::Messages);
    let e = Store::replay(StoreOptions { channels: vec![public], ..Default::default() }, &log).unwrap_err();
    assert_eq!((e.code, e.channel.as_deref()), (ErrorCode::InvalidOption, Some("scratch")), "{}", e.message);
    assert!(e.message.contains("as a private channel"), "{}", e.message);
}

#[test]
fn ingest_names_a_bad_event_by_its_place_in_the_list_given_in_words_and_details() {
    let mut w = store(None);
    for i in 0..4 {
        w.apply(&cmd("user", user(&format!("m{i}"))), i).unwrap();
    }
    let log = w.events().to_vec();
    let mut r = store(None);
    r.ingest(&log[..1]).unwrap();
    // The whole log given again: the first event is known and skipped, the third is bad.
    let mut bad = log.clone();
    bad[2].payload.insert("todos".into(), json!([]));
    let e = r.ingest(&bad).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::TamperedLog, Some(2)));
    assert!(e.message.starts_with("event 2 (sequence 3) "), "{}", e.message);
    // Events sent twice are taken once, and the words still name the caller's position.
    let doubled = [log[0].clone(), log[1].clone(), log[1].clone(), bad[2].clone()];
    let e = r.ingest(&doubled).unwrap_err();
    assert_eq!(e.index, Some(3));
    assert!(e.message.starts_with("event 3 (sequence 3) "), "{}", e.message);
    assert_eq!(r.version(), 1);
}

#[test]
fn a_log_given_as_a_json_array_text_is_a_format_mistake_not_tampering() {
    let mut w = store(None);
    w.apply(&cmd("user", user("m")), 0).unwrap();
    let array = serde_json::to_string(&w.events()).unwrap();
    for text in [array.clone(), format!("\n  {}", serde_json::to_string_pretty(&w.events()).unwrap())] {
        let e = crate::log::parse_jsonl(&text).unwrap_err();
        assert_eq!((e.code, e.index), (ErrorCode::InvalidJson, None));
        assert!(e.message.contains("JSON array") && e.message.contains("JSON Lines"), "{}", e.message);
        // verifyLog's check reports it as the mistake it is, not a broken link.
        let e = check_log(crate::log::parse_jsonl(&text), (0, GENESIS_HASH), &Chain::Plain).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
    }
    // The same events as JSON Lines read back; a line that is no event is still a broken log.
    let jsonl: String = w.events().iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
    assert_eq!(crate::log::parse_jsonl(&jsonl).unwrap(), w.events());
    let e = crate::log::parse_jsonl(&format!("{jsonl}{{\"torn\":")).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::TamperedLog, Some(1)));
}
