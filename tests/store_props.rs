//! Property tests of the store (native): a failing command changes nothing; the version rises
//! exactly once per applied command; a store equals a twin that only saw the applied commands;
//! batches of commutative writes do not depend on order.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use serde_json::{json, Value};
use stategate::log::{parse_jsonl, Event};
use stategate::state::{ChannelSpec, Reducer, Visibility};
use stategate::{Command, Store, StoreOptions};

fn new_store() -> (Store, String) {
    let channels = vec![
        ChannelSpec::new("n", Reducer::Counter),
        ChannelSpec::new("tags", Reducer::Union),
        ChannelSpec::new("answer", Reducer::Replace),
        ChannelSpec::new("notes", Reducer::Append),
    ];
    let mut s = Store::new(StoreOptions { run_id: Some("p".into()), channels, ..Default::default() }).unwrap();
    let mut private = ChannelSpec::new("secrets", Reducer::Merge);
    private.visibility = Visibility::Private;
    private.owner = Some("vault".into());
    let key = s.register_channel(private, None, || "key".into()).unwrap().unwrap();
    (s, key)
}

fn snapshot(s: &mut Store, key: &str) -> String {
    serde_json::to_string(&json!({
        "version": s.version(),
        "system": s.system_view(),
        "private": s.private_view(key).unwrap(),
        "events": s.events(),
    }))
    .unwrap()
}

fn command(author: &str, update: Value) -> Command {
    Command {
        author: author.into(),
        expected_version: None,
        update: update.as_object().cloned().unwrap_or_default(),
        correlation_id: None,
        causation_id: None,
    }
}

/// A command built from three small numbers; about half of them are invalid in some state.
fn build(kind: u8, a: u8, b: u8, version: u64) -> Command {
    let call = format!("c{}", a % 6);
    let pick = |xs: &[&str], i: u8| xs[i as usize % xs.len()].to_string();
    let run = pick(
        &["running", "waiting_tool", "waiting_approval", "paused", "completed", "failed", "cancelled", "bogus"],
        a,
    );
    let step = pick(&["pending", "running", "succeeded", "failed", "skipped"], b);
    let approval = pick(&["pending", "approved", "rejected", "expired"], b);
    let mut c = match kind % 16 {
        0 => command("user", json!({"messages": [{"role": "user", "content": format!("u{a}")}]})),
        1 => command(
            "model",
            json!({"messages": [{"role": "assistant", "content": null, "tool_calls": [{"id": call, "type": "function", "function": {"name": "t", "arguments": "{}"}}]}]}),
        ),
        2 => command(
            "tool",
            json!({"messages": [{"type": "tool", "tool_call_id": call, "content": "r", "status": if b % 2 == 0 { "success" } else { "error" }}]}),
        ),
        3 => command("user", json!({"messages": [{"remove": format!("p:{}:0", a % 8)}]})),
        4 => command(
            "user",
            json!({"messages": [{"replace": {"id": format!("p:{}:0", a % 8), "role": "user", "content": "edited"}}]}),
        ),
        5 => command("w", json!({"facts": {format!("k{}", a % 4): if b % 3 == 0 { Value::Null } else { json!(b) }}})),
        6 => command("w", json!({"n": (a as i64) - 100})),
        7 => command("w", json!({"tags": [format!("t{}", a % 5), format!("t{}", b % 5)]})),
        8 => command("w", json!({"answer": a})),
        9 => command("app", json!({"run": {"status": run}})),
        10 => command(
            "planner",
            json!({"plan": {format!("s{}", a % 4): {"title": "step", "status": step, "depends_on": if a % 4 > 0 { json!([format!("s{}", a % 4 - 1)]) } else { json!([]) }}}}),
        ),
        11 => {
            command("hitl", json!({"approvals": {format!("ap{}", a % 3): {"tool_call_id": call, "status": approval}}}))
        }
        12 => command("app", json!({"budget": {"limits": {"max_turns": a % 10, "max_tool_calls": b % 10}}})),
        13 => command(if b % 2 == 0 { "vault" } else { "thief" }, json!({"secrets": {"s": format!("secret-{a}")}})),
        14 => command("w", json!({"todos": [{"content": "x", "status": if a % 2 == 0 { "pending" } else { "done" }}]})),
        _ => command("w", json!({"notes": [a], "nope": 1})),
    };
    if b % 7 == 0 {
        c.expected_version = Some(version.saturating_sub((a % 2) as u64));
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Every rejected command leaves the store byte-identical; every applied one adds exactly one
    /// version and one event; and the store equals a twin fed only the applied commands.
    #[test]
    fn failures_change_nothing_and_versions_count_commands(ops in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..60)) {
        let (mut s, key) = new_store();
        let (mut twin, twin_key) = new_store();
        for (kind, a, b) in ops {
            let cmd = build(kind, a, b, s.version());
            let before = snapshot(&mut s, &key);
            let v = s.version();
            match s.apply(&cmd, 1_000) {
                Ok(out) => {
                    prop_assert_eq!(out.version, v + 1);
                    prop_assert_eq!(s.events().len() as u64, v + 1);
                    twin.apply(&cmd, 1_000).unwrap();
                }
                Err(e) => {
                    prop_assert_eq!(snapshot(&mut s, &key), before, "{:?} changed the store", e.code);
                    prop_assert!(!e.message.contains("secret-"), "an error leaked a private value: {}", e.message);
                }
            }
        }
        prop_assert_eq!(snapshot(&mut s, &key), snapshot(&mut twin, &twin_key));
    }

    /// A batch whose writes commute (counter adds, merges of distinct keys, union) gives the same
    /// state in any call order (union compared as a set); a failed batch changes nothing.
    #[test]
    fn commutative_batches_do_not_depend_on_order(writes in proptest::collection::vec((0u8..3, any::<u8>()), 2..8), seed in any::<u64>()) {
        let cmds: Vec<Command> = writes
            .iter()
            .enumerate()
            .map(|(i, (kind, x))| match kind {
                0 => command(&format!("a{i}"), json!({"n": *x as i64})),
                1 => command(&format!("a{i}"), json!({"files": {format!("/f{i}"): {"content": [x.to_string()]}}})),
                _ => command(&format!("a{i}"), json!({"tags": [format!("t{}", x % 4)]})),
            })
            .collect();
        let mut shuffled = cmds.clone();
        // Deterministic Fisher-Yates from the seed.
        let mut r = seed;
        for i in (1..shuffled.len()).rev() {
            r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            shuffled.swap(i, (r >> 33) as usize % (i + 1));
        }
        let (mut x, _) = new_store();
        let (mut y, _) = new_store();
        x.apply_batch(&cmds, 0).unwrap();
        y.apply_batch(&shuffled, 0).unwrap();
        prop_assert_eq!(x.version(), y.version());
        prop_assert_eq!(x.get("n").unwrap(), y.get("n").unwrap());
        let sorted = |v: Value| { let mut t: Vec<String> = v.as_array().unwrap().iter().map(|t| t.to_string()).collect(); t.sort(); t };
        prop_assert_eq!(sorted(x.get("tags").unwrap()), sorted(y.get("tags").unwrap()));
        let files = |s: &Store| { let f = s.get("files").unwrap(); let mut k: Vec<(String, Value)> = f.as_object().unwrap().clone().into_iter().collect(); k.sort_by(|a, b| a.0.cmp(&b.0)); k };
        prop_assert_eq!(files(&x), files(&y));
    }

    /// `replay(events)` equals the live store; `restore(checkpoint at k, events after k)` equals
    /// it too; flipping any single byte of the serialized log or of the checkpoint is detected.
    #[test]
    fn replay_and_restore_equal_the_live_store_and_flips_are_detected(
        ops in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..40),
        k_pick in any::<u16>(),
        flip_at in any::<u32>(),
        flip_bits in 1u8..=255,
    ) {
        let (mut s, key) = new_store();
        let mut checkpoints: Vec<(u64, Vec<u8>)> = vec![(0, s.checkpoint())];
        for (i, (kind, a, b)) in ops.into_iter().enumerate() {
            let _ = s.apply(&build(kind, a, b, s.version()), 1_000 + i as u64);
            checkpoints.push((s.version(), s.checkpoint()));
        }
        let channels: Vec<ChannelSpec> = s.channels().iter().skip(stategate::state::default_schema().len()).cloned().collect();
        let mut replayed = Store::replay(StoreOptions { run_id: None, channels, ..Default::default() }, &s.events()).unwrap();
        let claimed = replayed.claim_owner_key("vault", || "key".into()).unwrap();
        prop_assert_eq!(snapshot(&mut replayed, &claimed), snapshot(&mut s, &key));

        let (k, bytes) = &checkpoints[k_pick as usize % checkpoints.len()];
        let tail: Vec<Event> = s.events().iter().filter(|e| e.sequence > *k).cloned().collect();
        let mut restored = Store::restore(bytes, &tail, Vec::new(), None).unwrap();
        restored.claim_owner_key("vault", || "key".into()).unwrap();
        prop_assert_eq!(serde_json::to_string(&restored.system_view()).unwrap(), serde_json::to_string(&s.system_view()).unwrap());
        prop_assert_eq!(restored.private_view("key").unwrap(), s.private_view(&key).unwrap());
        prop_assert_eq!((restored.version(), restored.last_hash()), (s.version(), s.last_hash()));

        // One flipped byte in the checkpoint: refused.
        let mut bad = bytes.clone();
        let at = flip_at as usize % bad.len();
        bad[at] ^= flip_bits;
        prop_assert!(Store::restore(&bad, &[], Vec::new(), None).is_err(), "checkpoint flip at {} not detected: {:?} -> {:?}", at, String::from_utf8_lossy(&bytes[at.saturating_sub(30)..(at + 10).min(bytes.len())]), String::from_utf8_lossy(&bad[at.saturating_sub(30)..(at + 10).min(bad.len())]));

        // One flipped byte in the JSONL log: the parse or the replay refuses it.
        let jsonl: String = s.events().iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
        if !jsonl.is_empty() {
            let mut bytes = jsonl.into_bytes();
            let at = flip_at as usize % bytes.len();
            bytes[at] ^= flip_bits;
            let detected = match std::str::from_utf8(&bytes).ok().map(parse_jsonl) {
                None | Some(Err(_)) => true,
                Some(Ok(events)) => {
                    let channels: Vec<ChannelSpec> = s.channels().iter().skip(stategate::state::default_schema().len()).cloned().collect();
                    Store::replay(StoreOptions { run_id: None, channels, ..Default::default() }, &events).is_err() || events.len() != s.events().len()
                }
            };
            prop_assert!(detected, "log flip at {} not detected", at);
        }
    }
}
