//! wasm-bindgen tests of the JS bindings, run in Node (`wasm-pack test --node`) and in headless
//! Chrome and Firefox (`WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless --chrome --firefox`).
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Object, Reflect};
use stategate::js::{convert_messages, read_transcript, repair_json, validate_json, verify_log_js, JsStateStore};
use wasm_bindgen::closure::Closure;
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
    let out = repair_json(messages.clone().into(), JsValue::UNDEFINED).unwrap();
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
    let after = validate_json(messages.into(), "openai".into()).unwrap();
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
    let out = Array::from(&convert_messages(JsValue::from_str(input), "anthropic".into(), None).unwrap());
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
    let all = Array::of3(&s.to_json().unwrap(), &s.events(None).unwrap(), &JsValue::from(s.version().unwrap()));
    js_sys::JSON::stringify(&all).unwrap().as_string().unwrap()
}

#[wasm_bindgen_test]
fn store_superstep_merges_parallel_results() {
    let s = store();
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
    let err = s
        .apply_batch(parse(
            r#"[{"author": "alice", "update": {"answer": 1}}, {"author": "bob", "update": {"answer": 2}}]"#,
        ))
        .unwrap_err();
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(get(&err, "code").as_string().unwrap(), "CONCURRENT_WRITE");
    let authors = Array::from(&get(&get(&err, "details"), "authors"));
    assert_eq!(
        (authors.get(0).as_string().unwrap(), authors.get(1).as_string().unwrap()),
        ("alice".into(), "bob".into())
    );
    let err = s.apply(parse(r#"{"author": "late", "expectedVersion": 0, "update": {"answer": 3}}"#)).unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "VERSION_CONFLICT");
    let err = s
        .apply(parse(
            r#"{"author": "t", "update": {"messages": [{"role": "tool", "tool_call_id": "zz", "content": "x"}]}}"#,
        ))
        .unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "UNKNOWN_TOOL_CALL");
    assert_eq!(observed(&mut s), before);
}

#[wasm_bindgen_test]
fn store_private_channel_stays_private() {
    let s = store();
    let key = s
        .register_channel(
            parse(r#"{"name": "memory_contents", "reducer": "merge", "visibility": "private", "owner": "memory"}"#),
            None,
        )
        .unwrap()
        .unwrap();
    assert!(key.starts_with("sgk_") && key.len() > 30);
    s.apply(parse(r#"{"author": "memory", "update": {"memory_contents": {"AGENTS.md": "CANARY-0c9d8e7f"}}}"#)).unwrap();
    let err = s
        .apply(parse(r#"{"author": "intruder", "update": {"memory_contents": {"x": "CANARY-0c9d8e7f"}}}"#))
        .unwrap_err();
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
    s.apply(parse(
        r#"{"author": "t1", "update": {"messages": [{"role": "tool", "tool_call_id": "c1", "content": "1"}]}}"#,
    ))
    .unwrap();
    let before = observed(&mut s);
    // The third event cannot be written: the command is rolled back.
    let err = s
        .apply(parse(
            r#"{"author": "t2", "update": {"messages": [{"role": "tool", "tool_call_id": "c2", "content": "2"}]}}"#,
        ))
        .unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "STORAGE_ERROR");
    assert_eq!(observed(&mut s), before);
    assert_eq!(sunk.length(), 2);
    assert_eq!(js_sys::JSON::stringify(&verify_log_js(sunk.clone().into(), None).unwrap()).unwrap(), r#"{"ok":true}"#);

    let restored =
        JsStateStore::restore(js_sys::Uint8Array::from(s.checkpoint().unwrap().as_slice()).into(), None, None).unwrap();
    assert_eq!(
        js_sys::JSON::stringify(&restored.system_view().unwrap()).unwrap(),
        js_sys::JSON::stringify(&s.system_view().unwrap()).unwrap()
    );
    let dangling = Array::from(&restored.dangling_tool_calls().unwrap());
    assert_eq!(dangling.length(), 2);
    let err = JsStateStore::restore(js_sys::Uint8Array::new_with_length(3).into(), None, None).err().unwrap();
    assert_eq!(get(&err, "code").as_string().unwrap(), "CORRUPT_CHECKPOINT");
    // Wrong argument types are coded errors, never traps.
    assert_eq!(get(&s.get(JsValue::from(5)).unwrap_err(), "code").as_string().unwrap(), "INVALID_OPTION");
}

/// The task steps in this runtime (`AsyncTasks` is TypeScript; it drives these): the requests a
/// task tool call makes come out as data, a JS function answers each like an Agent Protocol
/// server, and start then check land in the store. Also the `fetch` path (status + body text)
/// and a time-out.
#[wasm_bindgen_test]
fn async_task_steps_run_through_a_js_server() {
    use stategate::js::{JsTaskSteps, JsTasksCore};
    let store = JsStateStore::new(Some(parse(r#"{"runId": "p"}"#))).unwrap();
    store
        .apply(parse(r#"{"author": "model", "update": {"messages": [{"role": "user", "content": "go"},
            {"type": "ai", "content": "", "tool_calls": [{"id": "s1", "name": "start_async_task", "args": {"description": "hi", "subagent_type": "echo"}},
                                                          {"id": "k1", "name": "check_async_task", "args": {"task_id": "th-1"}},
                                                          {"id": "k2", "name": "check_async_task", "args": {"task_id": "th-1"}},
                                                          {"id": "k3", "name": "check_async_task", "args": {"task_id": "th-1"}}]}]}}"#))
        .unwrap();
    let server = js_sys::Function::new_with_args(
        "req",
        r#"const u = req.url;
           if (u.endsWith("/threads")) return { status: 200, body: { thread_id: "th-1" } };
           if (u.endsWith("/runs") && req.method === "POST") return { status: 200, body: { run_id: "r-1", status: "pending" } };
           if (u.includes("/runs/r-1")) return { status: 200, body: { run_id: "r-1", status: "success" } };
           if (u.endsWith("/state")) return { status: 200, body: { values: { messages: [{ type: "ai", content: "echo: hi" }] } } };
           if (u.endsWith("/threads/th-1")) return { status: 200, body: { status: "idle", interrupts: {} } };
           return { status: 404, body: { detail: u } };"#,
    );
    let core = JsTasksCore::new(
        &store,
        parse(r#"{"url": "http://server", "agents": [{"name": "echo", "description": "echoes", "graph_id": "echo"}]}"#),
    )
    .unwrap();
    // Runs the steps to the end, each request answered by `answer(steps, id, request)`.
    let run = |mut steps: JsTaskSteps, answer: &dyn Fn(&mut JsTaskSteps, u32, JsValue)| -> JsValue {
        loop {
            let made = steps.advance().unwrap();
            if made.is_null() {
                return steps.finish().unwrap();
            }
            let made = Array::from(&made);
            assert!(made.length() > 0, "the steps wait for no request");
            for item in made.iter() {
                answer(&mut steps, get(&item, "id").as_f64().unwrap() as u32, get(&item, "request"));
            }
        }
    };
    let by_server = |steps: &mut JsTaskSteps, id: u32, request: JsValue| {
        steps.resolved(id, server.call1(&JsValue::NULL, &request).unwrap()).unwrap();
    };
    let call = |text: &str| core.call(parse(text), None).unwrap();
    let start = run(
        call(r#"{"id": "s1", "name": "start_async_task", "args": {"description": "hi", "subagent_type": "echo"}}"#),
        &by_server,
    );
    assert_eq!(get(&start, "content").as_string().unwrap(), "Launched async subagent. task_id: th-1");
    // The same call handled again while it is under way is BUSY.
    let under_way = call(r#"{"id": "k1", "name": "check_async_task", "args": {"task_id": "th-1"}}"#);
    let busy = core.call(parse(r#"{"id": "k1", "name": "check_async_task", "args": {"task_id": "th-1"}}"#), None);
    assert_eq!(get(&busy.err().unwrap(), "code").as_string().unwrap(), "BUSY");
    let check = run(under_way, &by_server);
    assert_eq!(
        get(&check, "content").as_string().unwrap(),
        r#"{"status": "success", "thread_id": "th-1", "result": "echo: hi"}"#
    );
    assert_eq!(get(&get(&core.ledger().unwrap(), "th-1"), "status").as_string().unwrap(), "success");
    // The fetch path: a 2xx answer whose body is not JSON fails the call (an error result).
    let garbled = run(call(r#"{"id": "k2", "name": "check_async_task", "args": {"task_id": "th-1"}}"#), &|s, id, _| {
        s.received(id, JsValue::from(200), "<html>".into()).unwrap()
    });
    assert_eq!(get(&garbled, "status").as_string().unwrap(), "error");
    assert!(get(&garbled, "content").as_string().unwrap().contains("body that is not JSON"));
    // A request without an answer in time is a NETWORK_ERROR naming requestTimeoutMs.
    let silent = run(call(r#"{"id": "k3", "name": "check_async_task", "args": {"task_id": "th-1"}}"#), &|s, id, _| {
        s.failed(id, "timeout".into(), JsValue::UNDEFINED).unwrap()
    });
    assert_eq!(get(&get(&silent, "error"), "code").as_string().unwrap(), "NETWORK_ERROR");
    assert!(get(&silent, "content").as_string().unwrap().contains("no answer within 10000 ms (requestTimeoutMs)"));
    // A call the store would refuse never makes a request: it throws at once.
    let refused = core.call(parse(r#"{"id": "nope", "name": "list_async_tasks", "args": {}}"#), None).err().unwrap();
    assert_eq!(get(&refused, "code").as_string().unwrap(), "UNKNOWN_TOOL_CALL");
}

#[wasm_bindgen_test]
fn subagents_return_only_their_answer_and_changes() {
    use stategate::js::{subagent_input_js, subagent_result_js};
    let parent = JsStateStore::new(Some(parse(r#"{"runId": "p"}"#))).unwrap();
    parent
        .apply(parse(
            r#"{"author": "app", "update": {"files": {"a.md": "1"}, "messages": [{"role": "user", "content": "go"},
            {"type": "ai", "content": "", "tool_calls": [{"id": "t1", "name": "task", "args": {}}]}]}}"#,
        ))
        .unwrap();
    let child =
        subagent_input_js(&parent, parse(r#"{"description": "do it", "agent": "w", "toolCallId": "t1"}"#)).unwrap();
    child
        .apply(parse(r#"{"author": "n", "update": {"files": {"b.md": "2"}, "messages": [{"type": "ai", "content": "", "tool_calls": [{"id": "x", "name": "t", "args": {"q": "inner-canary-123"}}]}, {"type": "tool", "tool_call_id": "x", "content": "r"}, {"type": "ai", "content": " done "}]}}"#))
        .unwrap();
    let cmd = subagent_result_js(&child, "t1".into(), None).unwrap();
    let text = js_sys::JSON::stringify(&cmd).unwrap().as_string().unwrap();
    assert!(!text.contains("inner-canary-123"), "{text}");
    parent.apply(cmd).unwrap();
    assert_eq!(
        js_sys::JSON::stringify(&parent.get("files".into()).unwrap()).unwrap().as_string().unwrap(),
        r#"{"a.md":"1","b.md":"2"}"#
    );
}
