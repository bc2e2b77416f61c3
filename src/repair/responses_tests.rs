//! Validation and repair of the Responses API and OpenAI Agents SDK item formats: a run of
//! assistant items is one assistant message; results go after the whole run; placeholders are
//! written in the items' own schema. The fixtures: `src/message/formats/responses_tests.rs`.

use super::*;
use crate::message::formats::decode_messages;
use serde_json::{json, Value};

const AGENTS_HISTORY: &str = include_str!("../../tests/fixtures/responses/agents-history.json");
const API_INPUT: &str = include_str!("../../tests/fixtures/responses/api-input.json");
const API_HISTORY: &str = include_str!("../../tests/fixtures/responses/api-history.json");

fn list(text: &str) -> Vec<Value> {
    crate::message::formats::values_from_json_text(text).unwrap()
}

fn fc(call_id: &str, name: &str, args: &str) -> Value {
    json!({"type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id, "name": name, "arguments": args, "status": "completed"})
}

fn out(call_id: &str, output: &str) -> Value {
    json!({"type": "function_call_output", "call_id": call_id, "output": output})
}

const PROVIDERS: [Provider; 3] = [Provider::Openai, Provider::Anthropic, Provider::Gemini];

#[test]
fn real_and_hand_written_histories_validate_and_repair_to_themselves() {
    for (name, text) in [("sdk", AGENTS_HISTORY), ("api", API_INPUT), ("hand", API_HISTORY)] {
        let items = list(text);
        assert_eq!(validate_values(&items, Provider::Openai).unwrap(), vec![], "{name}");
        // For Anthropic and Gemini a hosted item (kept for its own format) says nothing: an empty
        // message there, and nothing else.
        for p in [Provider::Anthropic, Provider::Gemini] {
            let v = validate_values(&items, p).unwrap();
            assert!(v.iter().all(|v| v.rule == Rule::EmptyMessage), "{name} {p:?}: {v:?}");
        }
        // Repair leaves a valid history as it is: every item the caller's own.
        let (outputs, report) = repair_outputs(&items, &RepairOptions::default()).unwrap();
        assert_eq!(report, vec![], "{name}");
        assert_eq!(outputs, (0..items.len()).map(Output::Original).collect::<Vec<_>>(), "{name}");
        // And the canonical repair is clean and idempotent for every provider.
        let d = decode_messages(&items, None).unwrap();
        for p in PROVIDERS {
            let opts = RepairOptions { provider: Some(p), ..Default::default() };
            let (fixed, _) = repair(&d.messages, &opts);
            assert_eq!(validate(&fixed, p), vec![], "{name} {p:?}");
            let (again, report) = repair(&fixed, &opts);
            assert_eq!((again, report), (fixed, vec![]), "{name} {p:?}");
        }
    }
}

#[test]
fn items_converted_to_every_format_validate_for_its_provider() {
    let items = list(API_HISTORY);
    let canon = decode_messages(&items, None).unwrap().messages;
    for f in crate::message::formats::Format::ALL {
        let provider = match f {
            Format::Anthropic => Provider::Anthropic,
            Format::Gemini => Provider::Gemini,
            _ => Provider::Openai,
        };
        let encoded = crate::encode_messages(&canon, f);
        let v = validate_values(&encoded, provider).unwrap();
        assert!(v.iter().all(|v| v.rule == Rule::EmptyMessage), "{f:?}: {v:?}");
    }
    let invalid = vec![json!({"role": "user", "content": "go"}), fc("c1", "f", "{\"a\": 1"), out("c1", "bad args")];
    assert_eq!(validate_values(&invalid, Provider::Openai).unwrap(), vec![]);
}

#[test]
fn a_dangling_call_is_reported_and_answered_in_the_items_own_format() {
    let items = vec![
        json!({"role": "user", "content": "go"}),
        fc("c1", "weather", "{}"),
        fc("c2", "time", "{}"),
        out("c2", "noon"),
        out("c9", "stray"),
        json!({"role": "user", "content": "and?"}),
    ];
    let v = validate_values(&items, Provider::Openai).unwrap();
    let rules: Vec<(Rule, usize)> = v.iter().map(|v| (v.rule, v.index)).collect();
    assert_eq!(rules, vec![(Rule::MissingToolResult, 1), (Rule::OrphanToolResult, 4)]);
    let (out_items, report) =
        repair_values(&items, &RepairOptions { provider: Some(Provider::Openai), ..Default::default() }).unwrap();
    assert_eq!(report.len(), 2, "{report:?}");
    assert_eq!(out_items.len(), 6);
    assert_eq!(out_items[3]["type"], "function_call_output");
    assert_eq!(out_items[3]["call_id"], "c1");
    assert!(out_items[3]["output"].as_str().is_some_and(|t| t.contains("did not complete")));
    assert_eq!(out_items[4], items[3], "the real result stays, after the placeholder");
    assert_eq!(validate_values(&out_items, Provider::Openai).unwrap(), vec![]);
    // The same in the SDK's schema: the placeholder is a function_call_result it can read.
    let sdk = vec![
        json!({"role": "user", "content": "go"}),
        json!({"type": "function_call", "callId": "c1", "name": "weather", "arguments": "{}", "status": "completed"}),
    ];
    let (fixed, _) = repair_values(&sdk, &RepairOptions::default()).unwrap();
    assert_eq!(fixed[2]["type"], "function_call_result");
    assert_eq!(
        (&fixed[2]["callId"], &fixed[2]["name"], &fixed[2]["status"]),
        (&json!("c1"), &json!("weather"), &json!("completed"))
    );
    assert_eq!(decode_messages(&fixed, None).unwrap().formats, vec![Format::OpenaiAgents; 3]);
}

#[test]
fn parallel_results_in_any_order_after_the_turn_are_in_place() {
    let items = vec![
        json!({"role": "user", "content": "go"}),
        json!({"type": "reasoning", "id": "rs", "summary": [{"type": "summary_text", "text": "t"}]}),
        fc("a", "f", "{}"),
        json!({"type": "web_search_call", "id": "ws", "status": "completed"}),
        fc("b", "f", "{}"),
        out("b", "B"),
        out("a", "A"),
    ];
    for p in [Provider::Openai, Provider::Anthropic, Provider::Gemini] {
        let v = validate_values(&items, p).unwrap();
        assert!(v.iter().all(|v| v.rule == Rule::EmptyMessage), "{p:?}: {v:?}");
    }
    let (outputs, report) = repair_outputs(&items, &RepairOptions::default()).unwrap();
    assert_eq!(report, vec![]);
    assert_eq!(outputs, (0..items.len()).map(Output::Original).collect::<Vec<_>>());
    // A result the user's message cut off from its turn is misplaced, and moved back.
    let split = vec![fc("a", "f", "{}"), json!({"role": "user", "content": "wait"}), out("a", "A")];
    let v = validate_values(&split, Provider::Openai).unwrap();
    assert_eq!(v.iter().map(|v| v.rule).collect::<Vec<_>>(), vec![Rule::MisplacedToolResult]);
    let (fixed, _) = repair_values(&split, &RepairOptions::default()).unwrap();
    assert_eq!(fixed, vec![split[0].clone(), split[2].clone(), split[1].clone()]);
}

#[test]
fn a_function_call_item_given_twice_is_one_call() {
    // Found by running the fuzz harnesses (strict) over mutations of the fixtures: the repeat took
    // a placeholder of its own (a duplicate result), and merged into one Chat message twice.
    let items = vec![json!({"role": "user", "content": "go"}), fc("a", "f", "{}"), fc("a", "f", "{}"), out("a", "A")];
    for p in PROVIDERS {
        let opts = RepairOptions { provider: Some(p), ..Default::default() };
        let (fixed, _) = repair_values(&items, &opts).unwrap();
        assert_eq!(validate_values(&fixed, p).unwrap(), vec![], "{p:?}");
        assert_eq!(fixed.len(), 4, "{p:?}: {fixed:?}");
    }
    let canon = decode_messages(&items, None).unwrap().messages;
    let chat = crate::encode_messages(&canon, Format::Openai);
    assert_eq!(chat[1]["tool_calls"].as_array().map(Vec::len), Some(1));
    assert!(decode_messages(&chat, None).is_ok());
}
