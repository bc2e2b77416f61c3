//! Native tests of the store's history: hash chain, replay, past views, checkpoints, restore.
//! Compiled only under #[cfg(test)] (see the module declaration).

use super::*;
use crate::error::ErrorCode;
use crate::log::{parse_jsonl, verify_log, BreakReason, Chain, Event, GENESIS_HASH};
use serde_json::{json, Value};

fn calls(id: &str, ids: &[&str]) -> Value {
    let tc: Vec<Value> = ids
        .iter()
        .map(|c| json!({"id": c, "type": "function", "function": {"name": "fetch", "arguments": "{\"url\": \"x\"}"}}))
        .collect();
    json!({"id": id, "role": "assistant", "content": null, "tool_calls": tc})
}

fn result(call: &str) -> Value {
    json!({"role": "tool", "tool_call_id": call, "content": format!("result of {call}")})
}

/// What replay/restore must reproduce: version, every channel, the private ones.
fn state(s: &mut Store) -> Value {
    json!({"version": s.version(), "system": s.system_view(), "last_hash": s.last_hash()})
}

fn session() -> Store {
    let mut s = Store::new(StoreOptions { run_id: Some("run-a".into()), ..Default::default() }).unwrap();
    s.apply(
        &cmd(
            "user",
            json!({"messages": [{"role": "user", "content": "fetch three pages"}], "run": {"status": "running"}}),
        ),
        1_000,
    )
    .unwrap();
    s.apply(
        &cmd("model", json!({"messages": [calls("a1", &["c1", "c2", "c3"])], "plan": {"s1": {"title": "fetch"}}})),
        1_001,
    )
    .unwrap();
    s.apply(&cmd("tool", json!({"messages": [result("c1")], "files": {"/p1": "page one"}})), 1_002).unwrap();
    s
}

#[test]
fn events_chain_and_carry_the_seed_envelope() {
    let mut s = session();
    let ev = s.events();
    assert_eq!(ev.len(), 3);
    assert_eq!(ev[0].prev_hash, GENESIS_HASH);
    assert_eq!(ev[1].prev_hash, ev[0].hash);
    assert_eq!((ev[2].event_id.as_str(), ev[2].run_id.as_str(), ev[2].sequence), ("run-a:3", "run-a", 3));
    // A tool result's event: correlation = call id, causation = the tool call's event.
    assert_eq!(ev[1].kind, crate::log::EventType::ToolCall);
    assert_eq!(ev[2].kind, crate::log::EventType::ToolResult);
    assert_eq!((ev[2].correlation_id.as_deref(), ev[2].causation_id.as_deref()), (Some("c1"), Some("run-a:2")));
    assert_eq!(verify_log(&ev, (0, GENESIS_HASH), &Chain::Plain, false), Ok(ev.len()));
    assert_eq!(ev[0].created_at, 1_000);
}

#[test]
fn verify_names_the_first_broken_link() {
    let mut s = session();
    let mut ev: Vec<Event> = s.events().to_vec();
    ev[1].author = "mallory".into();
    let b = verify_log(&ev, (0, GENESIS_HASH), &Chain::Plain, false).unwrap_err();
    assert_eq!((b.index, b.reason), (1, BreakReason::Hash));
    let mut ev: Vec<Event> = s.events().to_vec();
    ev.remove(1);
    let b = verify_log(&ev, (0, GENESIS_HASH), &Chain::Plain, false).unwrap_err();
    assert_eq!((b.index, b.reason), (1, BreakReason::Sequence));
    // Rehashing a changed event does not help: the next one no longer links to it.
    let mut ev: Vec<Event> = s.events().to_vec();
    ev[0].payload.insert("facts".into(), json!({"forged": true}));
    ev[0].hash = ev[0].compute_hash(&Chain::Plain).unwrap();
    let b = verify_log(&ev, (0, GENESIS_HASH), &Chain::Plain, false).unwrap_err();
    assert_eq!((b.index, b.reason), (1, BreakReason::PrevHash));
}

#[test]
fn a_salt_beside_no_write_and_a_changed_event_id_are_named() {
    let mut s = session();
    // A salt is hashed only through the write it seals: one for a channel the event does not
    // write would ride along unchecked (found by the fresh-eyes review), so it breaks the log.
    let mut ev: Vec<Event> = s.events().to_vec();
    ev[1].salted.insert("zzz".into(), json!("anything at all"));
    let b = verify_log(&ev, (0, GENESIS_HASH), &Chain::Plain, false).unwrap_err();
    assert_eq!((b.index, b.reason), (1, BreakReason::Salted));
    let e = Store::replay(StoreOptions::default(), &ev).unwrap_err();
    assert_eq!((e.code, e.index, e.field.as_deref()), (ErrorCode::TamperedLog, Some(1), Some("salted")));
    // An event_id that is not {run_id}:{sequence} is named as such, not as another run.
    let mut ev: Vec<Event> = s.events().to_vec();
    ev[2].event_id = "run-a:33".into();
    let b = verify_log(&ev, (0, GENESIS_HASH), &Chain::Plain, false).unwrap_err();
    assert_eq!((b.index, b.reason), (2, BreakReason::EventId));
}

#[test]
fn a_message_without_id_replayed_twice_gets_the_same_ids() {
    let mut s = session();
    let mut a = Store::replay(StoreOptions::default(), &s.events()).unwrap();
    let mut b = Store::replay(StoreOptions::default(), &s.events()).unwrap();
    assert_eq!(state(&mut a), state(&mut s));
    assert_eq!(state(&mut a), state(&mut b));
    assert_eq!(a.get("messages").unwrap()[0]["id"], "run-a:1:0");
    assert_eq!(a.events(), s.events());
}

#[test]
fn replay_refuses_a_tampered_log() {
    let mut s = session();
    let mut ev: Vec<Event> = s.events().to_vec();
    ev[2].payload.insert("files".into(), json!({"/p1": "forged"}));
    let e = Store::replay(StoreOptions::default(), &ev).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::TamperedLog, Some(2)));
    // Even with every hash recomputed, a payload that does not apply is refused.
    let mut ev: Vec<Event> = s.events().to_vec();
    ev[2].payload.insert(
        "messages".into(),
        json!([{"id": "x", "role": "tool", "tool_call_id": "zz", "content": "forged", "status": "success"}]),
    );
    let mut prev = GENESIS_HASH.to_string();
    for e in &mut ev {
        e.prev_hash = prev.clone();
        e.hash = e.compute_hash(&Chain::Plain).unwrap();
        prev = e.hash.clone();
    }
    let e = Store::replay(StoreOptions::default(), &ev).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::TamperedLog, Some(2)));
    assert!(e.message.contains("UNKNOWN_TOOL_CALL"), "{}", e.message);
}

#[test]
fn at_is_a_read_only_past_view() {
    let mut s = session();
    let past = s.at(1).unwrap();
    assert_eq!(past.version(), 1);
    // A past view has the same read API, its own past views included.
    let mut two = s.at(2).unwrap();
    assert_eq!(two.at(1).unwrap().get("messages").unwrap(), past.get("messages").unwrap());
    assert_eq!(past.get("messages").unwrap().as_array().unwrap().len(), 1);
    assert_eq!(past.get("run").unwrap()["status"], "running");
    let mut past = past;
    assert_eq!(past.apply(&cmd("x", json!({"facts": {"a": 1}})), 0).unwrap_err().code, ErrorCode::ReadOnly);
    assert_eq!(s.at(4).unwrap_err().code, ErrorCode::InvalidOption);
    let mut at3 = s.at(3).unwrap();
    assert_eq!(state(&mut at3), state(&mut s));
    s.apply(&cmd("x", json!({"facts": {"a": 1}})), 0).unwrap();
    assert_eq!(s.at(0).unwrap().get("messages").unwrap(), json!([]));
}

#[test]
fn checkpoint_restore_and_crash_in_the_middle_of_a_tool_batch() {
    let mut s = session();
    let bytes = s.checkpoint();
    let mut restored = Store::restore(&bytes, &[], Vec::new(), None).unwrap();
    assert_eq!(state(&mut restored), state(&mut s));
    // Crash after the first of three results: c1 kept, c2 and c3 dangling, nothing re-run.
    let dangling: Vec<String> = restored.dangling_tool_calls().into_iter().map(|d| d.tool_call_id).collect();
    assert_eq!(dangling, vec!["c2", "c3"]);
    assert_eq!(restored.dangling_tool_calls()[0].name, "fetch");
    let mut restored = restored;
    let mut opts = crate::repair::RepairOptions::default();
    for c in &dangling {
        opts.reasons.insert(c.clone(), crate::repair::Reason::Interrupted);
    }
    let out = restored.repair(&opts, "recovery", 2_000).unwrap();
    assert_eq!(out.report.len(), 2);
    let msgs = restored.get("messages").unwrap();
    let results: Vec<(&str, &str)> = msgs
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| (m["tool_call_id"].as_str().unwrap(), m["status"].as_str().unwrap_or("success")))
        .collect();
    // Placeholders go right after the call, before real results (as deepagents places them).
    assert_eq!(results, vec![("c2", "error"), ("c3", "error"), ("c1", "success")]);
    assert!(restored.dangling_tool_calls().is_empty());
}

#[test]
fn restore_with_a_tail_equals_the_live_store() {
    let mut s = session();
    let bytes = s.checkpoint();
    s.apply(&cmd("tool", json!({"messages": [result("c2")]})), 1_003).unwrap();
    s.apply(&cmd("tool", json!({"messages": [result("c3")]})), 1_004).unwrap();
    // The whole log as tail: events up to the checkpoint are skipped.
    let mut r = Store::restore(&bytes, &s.events(), Vec::new(), None).unwrap();
    assert_eq!(state(&mut r), state(&mut s));
    assert_eq!(r.at(3).unwrap().version(), 3);
    assert_eq!(r.at(2).unwrap_err().code, ErrorCode::InvalidOption);
    // A tail that skips an event is refused, nothing is half-loaded.
    let tail = vec![s.events()[4].clone()];
    let e = Store::restore(&bytes, &tail, Vec::new(), None).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::TamperedLog, Some(0)));
}

#[test]
fn corrupt_or_unknown_checkpoints_are_refused() {
    let mut s = session();
    let bytes = s.checkpoint();
    let mut v: Value = serde_json::from_slice(&bytes).unwrap();
    v["format_version"] = json!(2);
    let e = Store::restore(&serde_json::to_vec(&v).unwrap(), &[], Vec::new(), None).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedFormatVersion);
    let mut v: Value = serde_json::from_slice(&bytes).unwrap();
    v["values"]["files"]["/p1"] = json!("forged");
    assert_eq!(
        Store::restore(&serde_json::to_vec(&v).unwrap(), &[], Vec::new(), None).unwrap_err().code,
        ErrorCode::CorruptCheckpoint
    );
    assert_eq!(
        Store::restore(&bytes[..bytes.len() - 1], &[], Vec::new(), None).unwrap_err().code,
        ErrorCode::CorruptCheckpoint
    );
    assert_eq!(Store::restore(b"", &[], Vec::new(), None).unwrap_err().code, ErrorCode::CorruptCheckpoint);
}

#[test]
fn private_channels_are_checkpointed_but_never_exported() {
    let mut s = session();
    s.set_entropy(Some(test_salts()));
    let mut spec = ChannelSpec::new("memory_contents", Reducer::Merge);
    spec.visibility = Visibility::Private;
    spec.owner = Some("memory".into());
    s.register_channel(spec, None, || "k1".into()).unwrap();
    s.apply(&cmd("memory", json!({"memory_contents": {"AGENTS.md": "CANARY-5e1f0a"}})), 0).unwrap();
    let export = String::from_utf8(s.export_for_transport().unwrap()).unwrap();
    assert!(!export.contains("CANARY") && !export.contains("memory_contents"), "{export}");
    let mut r = Store::restore(&s.checkpoint(), &[], Vec::new(), None).unwrap();
    assert_eq!(r.private_view("k1").unwrap_err().code, ErrorCode::NotOwner);
    let key = r.claim_owner_key("memory", || "k2".into()).unwrap();
    assert_eq!(r.private_view(&key).unwrap()["memory_contents"]["AGENTS.md"], "CANARY-5e1f0a");
    assert_eq!(r.claim_owner_key("memory", || "k3".into()).unwrap_err().code, ErrorCode::NotOwner);
}

#[test]
fn events_filter_and_jsonl() {
    let mut s = session();
    let f = EventFilter { since: Some(1), until: Some(2), kind: None };
    assert_eq!(s.events_matching(&f).iter().map(|e| e.sequence).collect::<Vec<_>>(), vec![2]);
    let f = EventFilter { kind: Some(crate::log::EventType::ToolResult), ..Default::default() };
    assert_eq!(s.events_matching(&f).len(), 1);
    let jsonl: String = s.events().iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
    assert_eq!(parse_jsonl(&jsonl).unwrap(), s.events());
    let torn = &jsonl[..jsonl.len() - 10];
    assert_eq!(parse_jsonl(torn).unwrap_err().index, Some(2));
    // Blank lines are skipped: the error names the line as an editor numbers it (blank lines
    // counted) and `index` the event's position.
    let spaced = format!("\n{}", torn.replacen('\n', "\n\n", 1));
    let e = parse_jsonl(&spaced).unwrap_err();
    assert_eq!((e.index, e.code), (Some(2), ErrorCode::TamperedLog));
    assert!(e.message.starts_with("line 5 of the log (event 2) is not an event"), "{}", e.message);
    let e = Store::replay_jsonl(StoreOptions::default(), &spaced).err().unwrap();
    assert_eq!((e.index, e.code), (Some(2), ErrorCode::TamperedLog));
    assert!(e.message.starts_with("line 5 of the log (event 2)"), "{}", e.message);
}

/// The same log replayed from events and from its JSON Lines (read line by line, without a JSON
/// tree where it can be): the same store, or the same error.
fn replay_both(events: &[Event]) -> std::result::Result<Value, (ErrorCode, Option<usize>, Option<String>, String)> {
    let jsonl: String = events.iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
    let answer = |r: crate::error::Result<Store>| match r {
        Ok(mut s) => Ok(json!({"state": state(&mut s), "events": serde_json::to_value(s.events()).unwrap()})),
        Err(e) => Err((e.code, e.index, e.field.clone(), e.message.clone())),
    };
    let from_events = answer(Store::replay(StoreOptions::default(), events));
    let from_lines = answer(Store::replay_jsonl(StoreOptions::default(), &jsonl));
    assert_eq!(from_events, from_lines);
    from_events
}

/// Every event's `prev_hash` and `hash` made right again after an edit.
fn rehash(ev: &mut [Event]) {
    let mut prev = GENESIS_HASH.to_string();
    for e in ev {
        e.prev_hash = prev.clone();
        e.hash = e.compute_hash(&Chain::Plain).unwrap();
        prev = e.hash.clone();
    }
}

#[test]
fn a_log_replays_from_its_lines_as_from_its_events() {
    let mut s = session();
    s.apply(
        &cmd("model", json!({"messages": [{"remove": "run-a:1:0"}], "todos": [{"content": "x", "status": "pending"}]})),
        1_003,
    )
    .unwrap();
    s.apply_batch(&[cmd("a", json!({"facts": {"k": 1}})), cmd("b", json!({"messages": [result("c2")]}))], 1_004)
        .unwrap();
    let ev = s.events();
    let replayed = replay_both(&ev).unwrap();
    // Each line of an intact log is taken by the quick reading (no tree), and hashed once.
    let mut quick = Store::new(StoreOptions { run_id: Some("run-a".into()), ..Default::default() }).unwrap();
    for e in &ev {
        let text = serde_json::to_string(e).unwrap();
        let line = crate::log::line::Line::read(&text).unwrap();
        assert_eq!(quick.apply_line_quickly(&line).unwrap(), 1);
    }
    assert_eq!(state(&mut quick), state(&mut s));
    assert_eq!(replayed["state"], state(&mut s));
    assert_eq!(replayed["events"], serde_json::to_value(&ev).unwrap());
    // Each way a log can be wrong answers alike.
    type Tamper = Box<dyn Fn(&mut Vec<Event>)>;
    let cases: Vec<(&str, Tamper)> = vec![
        (
            "payload",
            Box::new(|ev| {
                ev[2].payload.insert("files".into(), json!({"/p1": "forged"}));
            }),
        ),
        ("type", Box::new(|ev| ev[1].kind = crate::log::EventType::Error)),
        ("author", Box::new(|ev| ev[0].author = "mallory".into())),
        (
            "removed",
            Box::new(|ev| {
                ev.remove(1);
            }),
        ),
        (
            "salted",
            Box::new(|ev| {
                ev[1].salted.insert("zzz".into(), json!("x"));
            }),
        ),
        ("event id", Box::new(|ev| ev[2].event_id = "run-a:33".into())),
        (
            "redacted",
            Box::new(|ev| {
                ev[2].redacted.insert("memory".into(), json!("abc"));
            }),
        ),
        (
            "a message field nobody reads, rehashed",
            Box::new(|ev| {
                ev[0].payload["messages"][0]["unknown"] = json!(1);
                rehash(ev);
            }),
        ),
        (
            "a result for no call, rehashed",
            Box::new(|ev| {
                ev[2].payload.insert(
                "messages".into(),
                json!([{"id": "x", "role": "tool", "tool_call_id": "zz", "content": "forged", "status": "success"}]),
            );
                rehash(ev);
            }),
        ),
        (
            "a type that does not match its writes, rehashed",
            Box::new(|ev| {
                ev[0].kind = crate::log::EventType::Handoff;
                rehash(ev);
            }),
        ),
        (
            "a message without an id, rehashed",
            Box::new(|ev| {
                ev[0].payload["messages"][0].as_object_mut().unwrap().shift_remove("id");
                rehash(ev);
            }),
        ),
    ];
    for (what, tamper) in cases {
        let mut bad = ev.clone();
        tamper(&mut bad);
        let e = replay_both(&bad).expect_err(what);
        assert_eq!(e.0, ErrorCode::TamperedLog, "{what}: {e:?}");
    }
    // A line that is not an event is named by its position among the log's lines.
    let mut jsonl: String = ev.iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
    jsonl.push_str("\n{\"event_id\": 1}\n");
    let e = Store::replay_jsonl(StoreOptions::default(), &jsonl).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::TamperedLog, Some(ev.len())));
    // A checkpoint's tail read from lines skips what the checkpoint holds, as from events.
    let mut r = Store::replay(StoreOptions::default(), &ev[..3]).unwrap();
    let bytes = r.checkpoint();
    let mut a = Store::restore(&bytes, &ev, Vec::new(), None).unwrap();
    let mut b = Store::restore_jsonl(&bytes, &jsonl.replace("\n{\"event_id\": 1}\n", ""), Vec::new(), None).unwrap();
    assert_eq!(state(&mut a), state(&mut b));
    assert_eq!(state(&mut a), state(&mut s));
}
