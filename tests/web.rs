//! wasm-bindgen tests of the JS bindings, run in Node (`wasm-pack test --node`) and in headless
//! Chrome and Firefox (`WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless --chrome --firefox`).
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::closure::Closure;
use stategate::js::{convert_messages, read_transcript, repair_json, repair_skeleton, validate_json, validate_skeleton, verify_log_js, JsStateStore};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

fn parse(text: &str) -> JsValue {
    js_sys::JSON::parse(text).expect("test JSON")
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).expect("property")
}

const DANGLING: &str = r#"[
  {"role": "user", "content": "q"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}]},
  {"role": "assistant", "content": "You interrupted me - what next?"},
  {"role": "user", "content": "go on"}
]"#;

#[wasm_bindgen_test]
fn validate_reports_rule_index_and_call_id() {
    let v = validate_json(JsValue::from_str(DANGLING), "anthropic".into()).unwrap();
    let list = Array::from(&v);
    assert_eq!(list.length(), 1);
    let first = list.get(0);
    assert_eq!(get(&first, "rule").as_string().unwrap(), "MISSING_TOOL_RESULT");
    assert_eq!(get(&first, "index").as_f64().unwrap(), 1.0);
    assert_eq!(get(&first, "toolCallId").as_string().unwrap(), "c1");
}

#[wasm_bindgen_test]
fn repair_places_the_result_and_keeps_untouched_objects() {
    let messages = Array::from(&parse(DANGLING));
    // skeleton as the façade writes it: source, format, role, flags, tool_call_id, calls
    let sk = ["0\u{1f}o\u{1f}u\u{1f}S\u{1f}", "1\u{1f}o\u{1f}a\u{1f}nS\u{1f}\u{1f}c1\u{1f}search\u{1f}v", "2\u{1f}o\u{1f}a\u{1f}S\u{1f}", "3\u{1f}o\u{1f}u\u{1f}S\u{1f}"].join("\u{1e}");
    let out = repair_skeleton(&messages, sk.clone().into(), JsValue::UNDEFINED).unwrap();
    let repaired = Array::from(&get(&out, "messages"));
    assert_eq!(repaired.length(), 5);
    assert!(Object::is(&repaired.get(0), &messages.get(0)), "untouched message is the same object");
    assert!(Object::is(&repaired.get(3), &messages.get(2)));
    let synthetic = repaired.get(2);
    assert_eq!(get(&synthetic, "role").as_string().unwrap(), "tool");
    assert_eq!(get(&synthetic, "tool_call_id").as_string().unwrap(), "c1");
    let report = Array::from(&get(&out, "report"));
    assert_eq!(get(&report.get(0), "kind").as_string().unwrap(), "missing_result");
    // the JSON-text path gives the same messages
    let via_json = repair_json(JsValue::from_str(DANGLING), JsValue::UNDEFINED).unwrap();
    assert_eq!(
        js_sys::JSON::stringify(&get(&via_json, "messages")).unwrap(),
        js_sys::JSON::stringify(&repaired).unwrap()
    );
    let after = validate_skeleton(sk.clone().into(), "openai".into()).unwrap();
    assert_eq!(Array::from(&after).length(), 1, "the input itself still has its violation");
}


#[wasm_bindgen_test]
fn convert_to_anthropic_merges_parallel_results() {
    let input = r#"[
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}},
        {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "a", "content": "1"},
      {"role": "tool", "tool_call_id": "b", "content": "2"}
    ]"#;
    let out = Array::from(&convert_messages(JsValue::from_str(input), "anthropic".into()).unwrap());
    assert_eq!(out.length(), 2);
    let results = Array::from(&get(&out.get(1), "content"));
    assert_eq!(results.length(), 2);
    assert_eq!(get(&results.get(1), "tool_use_id").as_string().unwrap(), "b");
    let input_obj = get(&get(&Array::from(&get(&out.get(0), "content")).get(0), "input"), "x");
    assert_eq!(input_obj.as_f64().unwrap(), 1.0, "plain objects, not Maps");
}

#[wasm_bindgen_test]
fn errors_are_js_errors_with_stable_codes() {
    let cases = [
        (r#"[{"role": "user", "content": "ok"}, 42]"#, "INVALID_MESSAGE", Some(1.0)),
        (r#"[{"role": "critic", "content": "x"}]"#, "UNKNOWN_ROLE", Some(0.0)),
        (r#"[{"role": "tool", "content": "x"}]"#, "MISSING_TOOL_CALL_ID", Some(0.0)),
        ("[{", "INVALID_JSON", None),
    ];
    for (input, code, index) in cases {
        let err = validate_json(JsValue::from_str(input), "openai".into()).unwrap_err();
        assert!(err.is_instance_of::<js_sys::Error>(), "{input}");
        assert_eq!(get(&err, "code").as_string().unwrap(), code, "{input}");
        assert_eq!(get(&get(&err, "details"), "index").as_f64(), index, "{input}");
    }
    let err = validate_json(JsValue::from_str("[]"), "mistral".into()).unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "INVALID_OPTION");
}

#[wasm_bindgen_test]
fn reads_the_claude_code_transcript() {
    let text = include_str!("fixtures/transcripts/claudecode-coverage-test-fix.jsonl");
    let t = read_transcript(text.into(), Some("openai".into())).unwrap();
    assert_eq!(get(&t, "kind").as_string().unwrap(), "claude-code");
    let runs = Array::from(&get(&t, "runs"));
    let run = runs.get(0);
    let violations = validate_json(run, "openai".into()).unwrap();
    assert_eq!(Array::from(&violations).length(), 0);
}

fn store() -> JsStateStore {
    JsStateStore::new(Some(parse(r#"{"runId": "w", "channels": [{"name": "flags", "reducer": "merge"}, {"name": "answer", "reducer": "replace"}]}"#))).unwrap()
}

const CALLS: &str = r#"{"author": "model", "update": {"messages": [{"role": "user", "content": "go"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}},
    {"id": "c2", "type": "function", "function": {"name": "t", "arguments": "{}"}},
    {"id": "c3", "type": "function", "function": {"name": "t", "arguments": "{}"}}]}]}}"#;

fn observed(s: &mut JsStateStore) -> String {
    let all = Array::of3(&s.to_json().unwrap(), &s.events(None).unwrap(), &JsValue::from(s.version()));
    js_sys::JSON::stringify(&all).unwrap().as_string().unwrap()
}

#[wasm_bindgen_test]
fn store_superstep_merges_parallel_results() {
    let mut s = store();
    let out = s.apply(parse(CALLS)).unwrap();
    assert_eq!(Array::from(&get(&out, "ids")).get(0).as_string().unwrap(), "w:1:0");
    let batch = parse(
        r#"[{"author": "t1", "update": {"flags": {"a": true}, "messages": [{"role": "tool", "tool_call_id": "c1", "content": "1"}]}},
            {"author": "t2", "update": {"flags": {"b": true}, "messages": [{"role": "tool", "tool_call_id": "c2", "content": "2"}]}},
            {"author": "t3", "update": {"flags": {"c": true}, "messages": [{"role": "tool", "tool_call_id": "c3", "content": "3"}]}}]"#,
    );
    let out = s.apply_batch(batch).unwrap();
    assert_eq!(get(&out, "version").as_f64().unwrap(), 4.0);
    let flags = js_sys::JSON::stringify(&s.get("flags".into()).unwrap()).unwrap();
    assert_eq!(flags, r#"{"a":true,"b":true,"c":true}"#);
    assert_eq!(Array::from(&s.get("messages".into()).unwrap()).length(), 5);
}

#[wasm_bindgen_test]
fn store_conflicts_and_version_locks_change_nothing() {
    let mut s = store();
    s.apply(parse(CALLS)).unwrap();
    let before = observed(&mut s);
    let err = s.apply_batch(parse(r#"[{"author": "alice", "update": {"answer": 1}}, {"author": "bob", "update": {"answer": 2}}]"#)).unwrap_err();
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(get(&err, "code").as_string().unwrap(), "CONCURRENT_WRITE");
    let authors = Array::from(&get(&get(&err, "details"), "authors"));
    assert_eq!((authors.get(0).as_string().unwrap(), authors.get(1).as_string().unwrap()), ("alice".into(), "bob".into()));
    let err = s.apply(parse(r#"{"author": "late", "expectedVersion": 0, "update": {"answer": 3}}"#)).unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "VERSION_CONFLICT");
    let err = s.apply(parse(r#"{"author": "t", "update": {"messages": [{"role": "tool", "tool_call_id": "zz", "content": "x"}]}}"#)).unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "UNKNOWN_TOOL_CALL");
    assert_eq!(observed(&mut s), before);
}

#[wasm_bindgen_test]
fn store_private_channel_stays_private() {
    let mut s = store();
    let key = s.register_channel(parse(r#"{"name": "memory_contents", "reducer": "merge", "visibility": "private", "owner": "memory"}"#), None).unwrap().unwrap();
    assert!(key.starts_with("sgk_") && key.len() > 30);
    s.apply(parse(r#"{"author": "memory", "update": {"memory_contents": {"AGENTS.md": "CANARY-0c9d8e7f"}}}"#)).unwrap();
    let err = s.apply(parse(r#"{"author": "intruder", "update": {"memory_contents": {"x": "CANARY-0c9d8e7f"}}}"#)).unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "NOT_OWNER");
    let text = |v: &JsValue| js_sys::JSON::stringify(v).unwrap().as_string().unwrap();
    for v in [s.system_view().unwrap(), s.to_json().unwrap(), err.clone(), get(&err, "details"), get(&err, "message")] {
        assert!(!text(&v).contains("CANARY"), "leaked: {}", text(&v));
    }
    assert!(text(&s.private_view(key.clone().into()).unwrap()).contains("CANARY-0c9d8e7f"));
    assert_eq!(get(&s.get("memory_contents".into()).unwrap_err(), "code").as_string().unwrap(), "PRIVATE_CHANNEL");
}

#[wasm_bindgen_test]
fn store_history_checkpoint_restore_and_write_ahead_events() {
    let sunk = Array::new();
    let sink = sunk.clone();
    let on_event = Closure::<dyn FnMut(JsValue)>::new(move |events: JsValue| {
        let events = Array::from(&events);
        if events.iter().any(|e| Reflect::get(&e, &"sequence".into()).unwrap().as_f64() == Some(3.0)) {
            wasm_bindgen::throw_str("disk full");
        }
        for e in events.iter() {
            sink.push(&e);
        }
    });
    let init = Object::new();
    Reflect::set(&init, &"runId".into(), &"h".into()).unwrap();
    Reflect::set(&init, &"onEvents".into(), on_event.as_ref()).unwrap();
    let mut s = JsStateStore::new(Some(init.into())).unwrap();
    s.apply(parse(CALLS)).unwrap();
    s.apply(parse(r#"{"author": "t1", "update": {"messages": [{"role": "tool", "tool_call_id": "c1", "content": "1"}]}}"#)).unwrap();
    let before = observed(&mut s);
    // The third event cannot be written: the command is rolled back.
    let err = s.apply(parse(r#"{"author": "t2", "update": {"messages": [{"role": "tool", "tool_call_id": "c2", "content": "2"}]}}"#)).unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "STORAGE_ERROR");
    assert_eq!(observed(&mut s), before);
    assert_eq!(sunk.length(), 2);
    assert_eq!(js_sys::JSON::stringify(&verify_log_js(sunk.clone().into(), None).unwrap()).unwrap(), r#"{"ok":true}"#);

    let restored = JsStateStore::restore(js_sys::Uint8Array::from(s.checkpoint().as_slice()).into(), None, None).unwrap();
    assert_eq!(js_sys::JSON::stringify(&restored.system_view().unwrap()).unwrap(), js_sys::JSON::stringify(&s.system_view().unwrap()).unwrap());
    let dangling = Array::from(&restored.dangling_tool_calls().unwrap());
    assert_eq!(dangling.length(), 2);
    let err = JsStateStore::restore(js_sys::Uint8Array::new_with_length(3).into(), None, None).err().unwrap();
    assert_eq!(get(&err, "code").as_string().unwrap(), "CORRUPT_CHECKPOINT");
    // Wrong argument types are coded errors, never traps.
    assert_eq!(get(&s.get(JsValue::from(5)).unwrap_err(), "code").as_string().unwrap(), "INVALID_OPTION");
}
