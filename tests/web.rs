//! wasm-bindgen tests of the JS bindings, run in Node (`wasm-pack test --node`) and in headless
//! Chrome and Firefox (`WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless --chrome --firefox`).
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, JsString, Object, Reflect};
use stategate::js::{convert_messages, read_transcript, repair_json, repair_skeleton, validate_json, validate_skeleton};
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
    let v = validate_json(JsValue::from_str(DANGLING), "anthropic").unwrap();
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
    let out = repair_skeleton(&messages, &sk, JsValue::UNDEFINED).unwrap();
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
        JsString::from(js_sys::JSON::stringify(&get(&via_json, "messages")).unwrap()),
        JsString::from(js_sys::JSON::stringify(&repaired).unwrap())
    );
    let after = validate_skeleton(&sk, "openai").unwrap();
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
    let out = Array::from(&convert_messages(JsValue::from_str(input), "anthropic").unwrap());
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
        let err = validate_json(JsValue::from_str(input), "openai").unwrap_err();
        assert!(err.is_instance_of::<js_sys::Error>(), "{input}");
        assert_eq!(get(&err, "code").as_string().unwrap(), code, "{input}");
        assert_eq!(get(&get(&err, "details"), "index").as_f64(), index, "{input}");
    }
    let err = validate_json(JsValue::from_str("[]"), "mistral").unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "INVALID_OPTION");
}

#[wasm_bindgen_test]
fn reads_the_claude_code_transcript() {
    let text = include_str!("fixtures/transcripts/claudecode-coverage-test-fix.jsonl");
    let t = read_transcript(text, Some("openai".into())).unwrap();
    assert_eq!(get(&t, "kind").as_string().unwrap(), "claude-code");
    let runs = Array::from(&get(&t, "runs"));
    let run = runs.get(0);
    let violations = validate_json(run, "openai").unwrap();
    assert_eq!(Array::from(&violations).length(), 0);
}
