//! The Responses API and OpenAI Agents SDK item formats (validation and repair of them:
//! `src/repair/responses_tests.rs`). The fixtures under `tests/fixtures/responses/`:
//! `agents-history.json` and `api-input.json` were produced by `@openai/agents` 0.20 itself (a
//! scripted fake OpenAI client, as `tests/js/responses.test.mjs` does live): `result.history`, and
//! the `input` the SDK sent to `responses.create` plus the scripted output items of the last
//! response; `api-history.json` is written by hand from `openai` 7.55's `ResponseInputItem`: a
//! tool loop with parallel calls, reasoning with encrypted content and an empty summary, a hosted
//! web search, an MCP approval pair and a refusal.

use super::*;
use crate::message::{Content, ContentPart};
use serde_json::json;

const AGENTS_HISTORY: &str = include_str!("../../../tests/fixtures/responses/agents-history.json");
const API_INPUT: &str = include_str!("../../../tests/fixtures/responses/api-input.json");
const API_HISTORY: &str = include_str!("../../../tests/fixtures/responses/api-history.json");

fn list(text: &str) -> Vec<Value> {
    values_from_json_text(text).unwrap()
}

/// Decodes `items` (no hint) and encodes them back into `f`: exactly the input.
fn round_trip(items: &[Value], f: Format) -> Decoded {
    let d = decode_messages(items, None).unwrap();
    assert!(d.formats.iter().all(|g| *g == f), "every item is {f:?}: {:?}", d.formats);
    let back = encode_messages(&d.messages, f);
    assert_eq!(back, items, "round trip through {f:?}");
    d
}

fn fc(call_id: &str, name: &str, args: &str) -> Value {
    json!({"type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id, "name": name, "arguments": args, "status": "completed"})
}

fn out(call_id: &str, output: &str) -> Value {
    json!({"type": "function_call_output", "call_id": call_id, "output": output})
}

fn api_history() -> Vec<Value> {
    list(API_HISTORY)
}

#[test]
fn detects_every_item_type() {
    let api = Detected::Sure(Format::Responses);
    let sdk = Detected::Sure(Format::OpenaiAgents);
    let cases = [
        (fc("c", "f", "{}"), api),
        (json!({"type": "function_call", "callId": "c", "name": "f", "arguments": "{}"}), sdk),
        (out("c", "x"), api),
        (
            json!({"type": "function_call_result", "callId": "c", "name": "f", "status": "completed", "output": "x"}),
            sdk,
        ),
        (json!({"type": "reasoning", "id": "rs", "summary": []}), api),
        (json!({"type": "reasoning", "id": "rs", "content": [], "providerData": {}}), sdk),
        (
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x", "annotations": []}]}),
            api,
        ),
        (
            json!({"type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "x", "providerData": {}}]}),
            sdk,
        ),
        (json!({"type": "message", "role": "user", "content": "x"}), Detected::Item),
        (json!({"role": "assistant", "content": [{"type": "output_text", "text": "x"}]}), Detected::Item),
        (
            json!({"role": "user", "content": [{"type": "input_text", "text": "x"}, {"type": "input_audio", "input_audio": {"data": "AA", "format": "wav"}}]}),
            api,
        ),
        (json!({"role": "developer", "content": "x"}), Detected::Developer),
        (json!({"type": "hosted_tool_call", "id": "ws", "name": "web_search_call", "providerData": {}}), sdk),
        (
            json!({"type": "computer_call_result", "callId": "c", "output": {"type": "computer_screenshot", "data": "d"}}),
            sdk,
        ),
        (json!({"type": "unknown", "providerData": {"type": "new_thing"}}), sdk),
        (
            json!({"type": "computer_call", "call_id": "c", "id": "cu", "status": "completed", "action": {"type": "screenshot"}, "pending_safety_checks": []}),
            api,
        ),
        (json!({"type": "computer_call", "callId": "c", "status": "completed", "action": {"type": "screenshot"}}), sdk),
        (json!({"type": "compaction", "encrypted_content": "e"}), Detected::Item),
        // An item with `role` and `type` (the API's `additional_tools`) is read by its type.
        (json!({"type": "additional_tools", "role": "developer", "tools": []}), api),
    ];
    for (v, want) in cases {
        assert_eq!(detect(&v).unwrap(), want, "{v}");
    }
    for t in [
        "file_search_call",
        "computer_call_output",
        "web_search_call",
        "configuration_update",
        "compaction_trigger",
        "image_generation_call",
        "code_interpreter_call",
        "local_shell_call",
        "local_shell_call_output",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "mcp_call",
        "custom_tool_call",
        "custom_tool_call_output",
        "item_reference",
    ] {
        assert_eq!(detect(&json!({"type": t, "id": "x"})).unwrap(), api, "{t}");
    }
    for t in
        ["shell_call", "shell_call_output", "apply_patch_call", "apply_patch_call_output", "program", "program_output"]
    {
        assert_eq!(detect(&json!({"type": t, "call_id": "c"})).unwrap(), api, "{t}");
        assert_eq!(detect(&json!({"type": t, "callId": "c"})).unwrap(), sdk, "{t}");
    }
    // Anthropic responses kept whole still read as Anthropic.
    let anthropic = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": "x"}], "stop_reason": "end_turn"});
    assert_eq!(detect(&anthropic).unwrap(), Detected::Sure(Format::Anthropic));
    // LangChain dicts still read as LangChain.
    assert_eq!(detect(&json!({"type": "ai", "content": "x"})).unwrap(), Detected::Sure(Format::Langchain));
    assert_eq!(detect(&json!({"type": "remove", "id": "x"})).unwrap(), Detected::Sure(Format::Langchain));
}

#[test]
fn a_near_miss_is_refused_as_a_responses_item_not_a_langchain_role() {
    let err = decode_messages(&[json!({"type": "function_cal", "call_id": "c", "name": "f", "arguments": "{}"})], None)
        .unwrap_err();
    assert_eq!((err.code, err.index), (ErrorCode::InvalidMessage, Some(0)));
    assert!(err.message.contains("\"function_cal\""), "{}", err.message);
    assert!(err.message.contains("Responses item"), "{}", err.message);
    assert!(err.message.contains("function_call_output"), "names the known types: {}", err.message);
    // Every real item type of the brief's error decodes: no UNKNOWN_ROLE for a function call.
    let d = decode_messages(&[fc("c", "f", "{}")], None).unwrap();
    assert_eq!(d.messages[0].tool_calls[0].name, "f");
    // A result item of the other schema, forced into the wrong format, says which it is.
    let err = decode_one(&out("c", "x"), Format::OpenaiAgents).unwrap_err();
    assert!(err.message.contains("function_call_result"), "{}", err.message);
}

#[test]
fn real_sdk_history_and_api_input_round_trip_exactly() {
    let sdk = list(AGENTS_HISTORY);
    let d = round_trip(&sdk, Format::OpenaiAgents);
    let roles: Vec<Role> = d.messages.iter().map(|m| m.role).collect();
    use Role::*;
    assert_eq!(roles, vec![User, Assistant, Assistant, Assistant, Tool, Tool, Assistant, Assistant]);
    assert!(
        matches!(&d.messages[1].content, Content::Parts(p) if matches!(&p[0], ContentPart::Reasoning { text, .. } if text == "Need weather and time."))
    );
    assert_eq!(d.messages[2].tool_calls[0].id, "call_w");
    assert_eq!(d.messages[2].tool_calls[0].args, json!({"city": "Paris"}));
    assert_eq!(d.messages[4].tool_call_id.as_deref(), Some("call_w"));
    assert_eq!(d.messages[4].content.text(), "sunny in Paris");
    assert_eq!(d.messages[7].content.text(), "Sunny, 12:00.");

    let api = list(API_INPUT);
    let d = round_trip(&api, Format::Responses);
    assert_eq!(d.messages[0].role, Role::User, "a plain user message takes the list's format");
    assert_eq!(d.messages[2].tool_calls[0].raw_args.as_deref(), Some("{\"city\":\"Paris\"}"));
}

#[test]
fn hand_written_api_history_round_trips_and_decodes_as_documented() {
    let items = api_history();
    let d = round_trip(&items, Format::Responses);
    let m = &d.messages;
    assert_eq!((m[0].role, m[0].content.text().as_str()), (Role::System, "Answer briefly."));
    let Content::Parts(user) = &m[1].content else { panic!("parts") };
    assert!(matches!(&user[1], ContentPart::Image { url: Some(u), .. } if u == "https://x/map.png"));
    // An empty summary with encrypted content: one empty reasoning part, not an empty message.
    assert!(
        matches!(&m[2].content, Content::Parts(p) if p.len() == 1 && matches!(&p[0], ContentPart::Reasoning { text, .. } if text.is_empty()))
    );
    assert_eq!((m[2].id.as_deref(), &m[2].extra["encrypted_content"]), (Some("rs_1"), &json!("gAAAAB-enc")));
    assert_eq!(m[3].content.text(), "Checking both.");
    assert_eq!(m[4].tool_calls[0].args, json!({"city": "Paris"}));
    assert_eq!(m[7].content.text(), "rain");
    // Hosted items are kept whole, as assistant messages of one raw part.
    assert!(
        matches!(&m[8].content, Content::Parts(p) if matches!(&p[0], ContentPart::Other { raw } if raw["type"] == "web_search_call"))
    );
    assert_eq!(m[10].role, Role::Assistant);
    // The refusal is kept: its text is the message's text.
    assert_eq!(m[13].content.text(), "I can't help with that.");
}

#[test]
fn invalid_json_arguments_are_an_invalid_call_and_come_back_as_sent() {
    let items = vec![json!({"role": "user", "content": "go"}), fc("c1", "f", "{\"a\": 1"), out("c1", "bad args")];
    let d = round_trip(&items, Format::Responses);
    let m = &d.messages[1];
    assert!(m.tool_calls.is_empty());
    assert_eq!((m.invalid_tool_calls[0].id.as_str(), m.invalid_tool_calls[0].args.as_str()), ("c1", "{\"a\": 1"));
    // Non-string arguments are refused, not stringified.
    let err = decode_messages(&[json!({"type": "function_call", "call_id": "c", "name": "f", "arguments": {}})], None)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidToolCall);
    let err = decode_messages(&[json!({"type": "function_call", "name": "f", "arguments": "{}"})], None).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidToolCall);
}

#[test]
fn sdk_reasoning_and_output_objects_round_trip() {
    let items = vec![
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "see"}, {"type": "input_image", "image": "https://x/a.png", "detail": "high"}]}),
        json!({"type": "reasoning", "id": "rs_1", "content": [], "providerData": {"encrypted_content": "enc"}}),
        json!({"type": "reasoning", "content": [{"type": "input_text", "text": ""}], "rawContent": [{"type": "reasoning_text", "text": "raw"}]}),
        json!({"type": "function_call", "callId": "c1", "name": "shot", "arguments": "", "providerData": {"id": "fc_1"}}),
        json!({"type": "function_call_result", "callId": "c1", "name": "shot", "status": "completed", "output": {"type": "image", "image": "data:image/png;base64,AA"}}),
        json!({"type": "message", "role": "assistant", "status": "completed", "content": [{"type": "refusal", "refusal": "no", "providerData": {}}]}),
    ];
    let d = round_trip(&items, Format::OpenaiAgents);
    assert_eq!(d.messages[3].tool_calls[0].args, json!({}));
    assert_eq!(d.messages[3].tool_calls[0].raw_args.as_deref(), Some(""));
}

#[test]
fn a_canonical_turn_becomes_items_and_items_merge_into_one_turn_elsewhere() {
    let chat = vec![
        json!({"role": "system", "content": "be brief"}),
        json!({"role": "user", "content": "weather?"}),
        json!({"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "time", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "sunny"}),
        json!({"role": "tool", "tool_call_id": "c2", "content": "noon"}),
        json!({"role": "assistant", "content": "Sunny at noon."}),
    ];
    let canon = decode_messages(&chat, None).unwrap().messages;
    let (items, index) = encode_indexed(&canon, Format::Responses);
    assert_eq!(
        items,
        vec![
            json!({"role": "system", "content": "be brief"}),
            json!({"role": "user", "content": "weather?"}),
            json!({"role": "assistant", "content": "Checking."}),
            json!({"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{\"city\":\"Paris\"}"}),
            json!({"type": "function_call", "call_id": "c2", "name": "time", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": "c1", "output": "sunny"}),
            json!({"type": "function_call_output", "call_id": "c2", "output": "noon"}),
            json!({"role": "assistant", "content": "Sunny at noon."}),
        ]
    );
    assert_eq!(index, vec![0, 1, 2, 5, 6, 7], "a message's first item");
    let sdk = encode_messages(&canon, Format::OpenaiAgents);
    assert_eq!(
        sdk[2],
        json!({"type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Checking."}]})
    );
    assert_eq!(
        sdk[3],
        json!({"type": "function_call", "callId": "c1", "name": "weather", "arguments": "{\"city\":\"Paris\"}"})
    );
    assert_eq!(
        sdk[5],
        json!({"type": "function_call_result", "callId": "c1", "name": "weather", "status": "completed", "output": "sunny"})
    );
    // The items read back as the same turn, and go back to Chat as one assistant message.
    for f in [Format::Responses, Format::OpenaiAgents] {
        let encoded = encode_messages(&canon, f);
        let again = decode_messages(&encoded, None).unwrap();
        assert!(again.formats.iter().all(|g| *g == f), "{f:?}: {:?}", again.formats);
        let back = encode_messages(&again.messages, Format::Openai);
        assert_eq!(back.len(), 6, "{f:?}: {back:?}");
        assert_eq!(back[2]["tool_calls"].as_array().map(Vec::len), Some(2), "{f:?}");
        assert_eq!(back[2]["content"], json!([{"type": "text", "text": "Checking."}]), "{f:?}");
    }
}

#[test]
fn converts_an_item_history_to_every_format_and_back() {
    let items = api_history();
    let canon = decode_messages(&items, None).unwrap().messages;
    let calls = |ms: &[Message]| -> Vec<(String, String, Value)> {
        ms.iter().flat_map(|m| m.tool_calls.iter().map(|c| (c.id.clone(), c.name.clone(), c.args.clone()))).collect()
    };
    let results = |ms: &[Message]| -> Vec<(Option<String>, String)> {
        ms.iter().filter(|m| m.role == Role::Tool).map(|m| (m.tool_call_id.clone(), m.content.text())).collect()
    };
    for f in Format::ALL {
        let encoded = encode_messages(&canon, f);
        let again = decode_messages(&encoded, Some(f)).unwrap().messages;
        assert_eq!(calls(&again), calls(&canon), "{f:?}");
        assert_eq!(results(&again), results(&canon), "{f:?}");
        let text = |ms: &[Message]| ms.iter().map(|m| m.content.text()).collect::<String>();
        assert!(text(&again).contains("Paris is sunny; Rome rains."), "{f:?}");
        assert!(text(&again).contains("I can't help with that."), "{f:?}: the refusal is never dropped");
        if !f.is_items() {
            // The turn [message, call, call] is one message with both calls.
            let turn = again.iter().find(|m| m.tool_calls.len() == 2);
            assert!(turn.is_some_and(|m| m.content.text() == "Checking both."), "{f:?}: {again:?}");
        }
    }
    // And from every format into items: the OpenAI exchange of the other tests.
    let chat = vec![
        json!({"role": "user", "content": "weather?"}),
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "sunny"}),
    ];
    let canon = decode_messages(&chat, None).unwrap().messages;
    for f in Format::ALL {
        let there = encode_messages(&canon, f);
        let from = decode_messages(&there, Some(f)).unwrap().messages;
        let items = encode_messages(&from, Format::Responses);
        // Gemini's and a UIMessage's text is a part: an `input_text` part then.
        let user = match f {
            Format::Gemini | Format::Ui => {
                json!({"role": "user", "content": [{"type": "input_text", "text": "weather?"}]})
            }
            _ => json!({"role": "user", "content": "weather?"}),
        };
        // The SDK's required result status comes along.
        let mut result = json!({"type": "function_call_output", "call_id": "c1", "output": "sunny"});
        if f == Format::OpenaiAgents {
            result["status"] = json!("completed");
        }
        assert_eq!(
            items,
            vec![user, json!({"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{}"}), result,],
            "from {f:?}"
        );
    }
}

#[test]
fn plain_messages_in_an_item_list_take_its_format() {
    let items = vec![
        json!({"role": "user", "content": "hi"}),
        json!({"role": "assistant", "content": "hello"}),
        json!({"role": "developer", "content": "rules"}),
        fc("c", "f", "{}"),
        out("c", "x"),
    ];
    let d = round_trip(&items, Format::Responses);
    assert_eq!(d.messages[2].role, Role::System);
    // Next to Chat messages a developer message is still OpenAI Chat's.
    let chat = vec![json!({"role": "developer", "content": "rules"}), json!({"role": "user", "content": "hi"})];
    assert_eq!(decode_messages(&chat, None).unwrap().formats, vec![Format::Openai, Format::Openai]);
    // The hint decides for lists with no sure item.
    let d = decode_messages(&items[..2], Some(Format::OpenaiAgents)).unwrap();
    assert_eq!(d.formats, vec![Format::OpenaiAgents; 2]);
}

#[test]
fn sdk_items_convert_to_the_api_items_the_sdk_itself_sends() {
    // `api-input.json` is what the SDK sent for the first six items of `result.history`, then the
    // web search item as the API wrote it.
    let sdk = list(AGENTS_HISTORY);
    let api = list(API_INPUT);
    let canon = decode_messages(&sdk, None).unwrap().messages;
    let ours = encode_messages(&canon, Format::Responses);
    assert_eq!(ours.get(..7), api.get(..7));
    // The final message: the SDK itself sends `{role, content: [output_text], id}`, which fits no
    // input item type of the `openai` package; stategate writes the `ResponseOutputMessage` it
    // is (`type`, `id`, `status`, `annotations`), which the API takes as input too.
    assert_eq!(
        ours[7],
        json!({"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
               "content": [{"type": "output_text", "text": "Sunny, 12:00.", "annotations": []}]})
    );
    // And back: the API's items in the SDK's schema read as the same conversation.
    let canon = decode_messages(&api, None).unwrap().messages;
    let sdk_again = encode_messages(&canon, Format::OpenaiAgents);
    let again = decode_messages(&sdk_again, None).unwrap();
    assert!(again.formats.iter().all(|f| *f == Format::OpenaiAgents), "{:?}", again.formats);
    assert_eq!(sdk_again[1]["providerData"], json!({"encrypted_content": "gAAAAenc1"}));
    assert_eq!(sdk_again[2]["callId"], "call_w");
    assert_eq!(
        sdk_again[4],
        json!({"type": "function_call_result", "callId": "call_w", "name": "weather", "status": "completed", "output": "sunny in Paris"})
    );
    assert_eq!(sdk_again[6], json!({"type": "unknown", "id": "ws_1", "providerData": api[6]}));
    let texts = |ms: &[Message]| ms.iter().map(|m| m.content.text()).collect::<Vec<_>>();
    assert_eq!(texts(&again.messages), texts(&canon));
    // An assistant message with nothing an item can carry gives no item, not an empty one.
    let thinking = decode_messages(
        &[json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"}]})],
        None,
    )
    .unwrap()
    .messages;
    assert_eq!(encode_indexed(&thinking, Format::Responses), (vec![], vec![0]));
}

#[test]
fn an_assistant_message_of_two_text_parts_is_two_api_messages_never_one_glued_text() {
    // The tester's case: "Line one." and "Line two." went out as "Line one.Line two.", words the
    // model never wrote (and an Anthropic text beside a refusal as "doneno").
    let from = json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [
        {"type": "text", "text": "Line one."}, {"type": "text", "text": "Line two."}
    ], "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]);
    let d = decode_messages(from.as_array().unwrap(), None).unwrap();
    let out = encode_messages(&d.messages, Format::Responses);
    assert_eq!(
        out,
        vec![
            json!({"role": "user", "content": "hi"}),
            json!({"role": "assistant", "content": "Line one."}),
            json!({"role": "assistant", "content": "Line two."}),
            json!({"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}),
        ]
    );
    // Read back: the same text, the call answered by nothing yet.
    let back = decode_messages(&out, Some(Format::Responses)).unwrap().messages;
    assert_eq!(back.iter().map(|m| m.content.text()).collect::<Vec<_>>(), ["hi", "Line one.", "Line two.", ""]);
    // One text part stays one message.
    let one =
        decode_messages(&[json!({"role": "assistant", "content": [{"type": "text", "text": "only"}]})], None).unwrap();
    assert_eq!(
        encode_messages(&one.messages, Format::Responses),
        vec![json!({"role": "assistant", "content": "only"})]
    );
}
