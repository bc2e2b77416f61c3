//! The AI SDK UIMessage format: detection, exact round trips of real `useChat` state, the
//! decoding `convertToModelMessages` does, validation and repair of unanswered tool parts.

use super::*;
use crate::message::{Content, ContentPart, ToolStatus};
use crate::repair::Rule;
use crate::repair::{repair_values, validate_values, Provider, RepairOptions};
use serde_json::json;

/// A `useChat` history as AI SDK 6 holds it (`tests/fixtures/ui/usechat-history.json`): a
/// two-step assistant turn (reasoning, a tool call with an object output, then the answer), a
/// dynamic tool that failed, a call waiting for approval, a denied call, a call still streaming
/// its input, data, source and file parts.
fn history() -> Vec<Value> {
    serde_json::from_str(include_str!("../../../tests/fixtures/ui/usechat-history.json")).unwrap()
}

#[test]
fn ui_messages_are_detected_as_ui_and_gemini_stays_gemini() {
    for v in history() {
        assert_eq!(detect(&v).unwrap(), Detected::Sure(Format::Ui), "{v}");
    }
    assert_eq!(detect(&json!({"role": "user", "parts": [{"text": "hi"}]})).unwrap(), Detected::Sure(Format::Gemini));
    assert_eq!(detect(&json!({"role": "model", "parts": [{"text": "hi"}]})).unwrap(), Detected::Sure(Format::Gemini));
    assert_eq!(detect(&json!({"id": "x", "role": "user", "parts": []})).unwrap(), Detected::Sure(Format::Ui));
    // Near misses are refused, naming what was seen.
    let mixed = detect(&json!({"role": "user", "parts": [{"type": "text", "text": "a"}, {"text": "b"}]})).unwrap_err();
    assert_eq!(mixed.code, ErrorCode::InvalidMessage);
    assert!(mixed.message.contains("UIMessage") && mixed.message.contains("Gemini"), "{}", mixed.message);
    let unknown = decode_messages(&[json!({"id": "x", "role": "user", "parts": [{"type": "txt", "text": "a"}]})], None)
        .unwrap_err();
    assert_eq!((unknown.code, unknown.index), (ErrorCode::InvalidMessage, Some(0)));
    assert!(unknown.message.contains("\"txt\""), "{}", unknown.message);
    let state = decode_messages(&[json!({"id": "x", "role": "assistant", "parts": [{"type": "tool-a", "toolCallId": "c", "state": "done", "input": {}}]})], None)
        .unwrap_err();
    assert!(state.message.contains("\"done\""), "{}", state.message);
}

#[test]
fn a_ui_history_round_trips_exactly() {
    let h = history();
    let d = decode_messages(&h, None).unwrap();
    assert_eq!(encode_messages(&d.messages, Format::Ui), h);
    // One message at a time too, and through the canonical form as JSON.
    for v in &h {
        roundtrip(v.clone());
    }
    let canonical: Vec<Value> = d.messages.iter().map(|m| serde_json::to_value(m).unwrap()).collect();
    let again = decode_messages(&canonical, None).unwrap().messages;
    assert_eq!(encode_messages(&again, Format::Ui), h);
}

fn roundtrip(v: Value) {
    let d = decode_messages(std::slice::from_ref(&v), None).unwrap();
    assert_eq!(encode_messages(&d.messages, Format::Ui), vec![v]);
}

#[test]
fn decoding_follows_convert_to_model_messages() {
    let d = decode_messages(&history(), None).unwrap().messages;
    let summary: Vec<(Role, Option<&str>, usize, Option<&str>)> =
        d.iter().map(|m| (m.role, m.id.as_deref(), m.tool_calls.len(), m.tool_call_id.as_deref())).collect();
    assert_eq!(
        summary,
        vec![
            (Role::User, Some("u1"), 0, None),
            (Role::Assistant, Some("a1"), 1, None),
            (Role::Tool, None, 0, Some("call_1")),
            (Role::Assistant, Some("a1#1"), 0, None),
            (Role::User, Some("u2"), 0, None),
            // The streaming call is not a call yet: three calls, two results.
            (Role::Assistant, Some("a2"), 3, None),
            (Role::Tool, None, 0, Some("call_2")),
            // A denied part: its decision, then its result (the denial), as
            // `convertToModelMessages` writes a tool-approval-response and a tool-result.
            (Role::Tool, None, 0, None),
            (Role::Tool, None, 0, Some("call_4")),
        ]
    );
    let decision = d[7].approval.as_ref().unwrap();
    assert_eq!(
        (decision.id.as_str(), decision.tool_call_id.as_deref(), decision.approved, decision.reason.as_deref()),
        ("ap_2", Some("call_4"), false, Some("never"))
    );
    assert_eq!(d[5].tool_calls[1].approval.as_ref().map(|r| r.id.as_str()), Some("ap_1"));
    assert_eq!(
        d[2].content.text(),
        r#"{"tempC":21,"sky":"clear"}"#,
        "keys in their order, as JSON.stringify writes them"
    );
    assert_eq!((d[6].status, d[6].content.text().as_str()), (Some(ToolStatus::Error), "feed unavailable"));
    assert_eq!((d[8].status, d[8].content.text().as_str()), (Some(ToolStatus::Error), "never"));
    assert_eq!(d[5].tool_calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["news", "bookTable", "deleteAll"]);
    assert!(matches!(&d[0].content, Content::Parts(p) if matches!(p[1], ContentPart::Image { .. })));

    // To OpenAI Chat: the calls and their results, nothing the model never sees.
    let openai = encode_messages(&d, Format::Openai);
    assert_eq!(
        openai[1]["tool_calls"][0]["function"],
        json!({"name": "getWeather", "arguments": r#"{"city":"Paris"}"#})
    );
    assert_eq!(
        (openai[2]["tool_call_id"].as_str(), openai[2]["content"].as_str()),
        (Some("call_1"), Some(r#"{"tempC":21,"sky":"clear"}"#))
    );
    assert_eq!(openai[3]["content"][0]["text"], json!("It is 21°C and clear."));
    assert!(!serde_json::to_string(&openai).unwrap().contains("step-start"));
    assert!(!serde_json::to_string(&openai).unwrap().contains("call_5"), "a streaming input is not a call");
}

#[test]
fn a_call_waiting_for_approval_is_approval_pending_and_repair_leaves_it() {
    let h = history();
    let v = validate_values(&h, Provider::Openai).unwrap();
    let flagged: Vec<(Rule, Option<&str>)> = v.iter().map(|x| (x.rule, x.tool_call_id.as_deref())).collect();
    assert_eq!(flagged, vec![(Rule::ApprovalPending, Some("call_3"))], "{v:?}");
    assert!(v[0].message.contains("ap_1"), "the violation names the approval: {}", v[0].message);

    // Whatever reason is given, a call at the end of the history that waits for its approval is
    // not dangling: the run is paused on it.
    let mut reasons = std::collections::HashMap::new();
    reasons.insert("call_3".to_string(), crate::repair::Reason::Interrupted);
    let (out, report) = repair_values(&h, &RepairOptions { reasons, ..RepairOptions::default() }).unwrap();
    assert!(report.is_empty(), "{report:?}");
    assert_eq!(out, h);

    // Once the conversation moves on, the call is answered: by default, saying the approval was
    // not given, as a denial in the UIMessage (the only answered state the AI SDK allows it).
    let mut moved = h.clone();
    moved.push(json!({"id": "u9", "role": "user", "parts": [{"type": "text", "text": "never mind"}]}));
    let v = validate_values(&moved, Provider::Openai).unwrap();
    assert_eq!(v.iter().map(|x| x.rule).collect::<Vec<_>>(), vec![Rule::MissingToolResult], "{v:?}");
    let (out, report) = repair_values(&moved, &RepairOptions::default()).unwrap();
    assert_eq!(report.len(), 1, "{report:?}");
    assert_eq!(report[0].approval_id.as_deref(), Some("ap_1"), "the report names the approval");
    let part = &out[3]["parts"][2];
    assert_eq!((part["toolCallId"].as_str(), part["state"].as_str()), (Some("call_3"), Some("output-denied")));
    assert_eq!(part["approval"]["approved"], json!(false));
    let reason = part["approval"]["reason"].as_str();
    assert!(reason.is_some_and(|t| t.contains("approval (ap_1) was not given")), "{part}");
    assert!(validate_values(&out, Provider::Openai).unwrap().is_empty());
}

#[test]
fn other_formats_convert_into_ui_messages() {
    let openai = vec![
        json!({"role": "user", "content": "weather?"}),
        json!({"role": "assistant", "content": "Checking.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "sunny"}),
        json!({"role": "assistant", "content": "Sunny."}),
    ];
    let canon = decode_messages(&openai, None).unwrap().messages;
    let ui = encode_messages(&canon, Format::Ui);
    assert_eq!(
        ui,
        vec![
            // A UIMessage needs an id: messages without one get their position.
            json!({"id": "msg-0", "role": "user", "parts": [{"type": "text", "text": "weather?"}]}),
            json!({"id": "msg-1", "role": "assistant", "parts": [
                {"type": "text", "text": "Checking."},
                {"type": "tool-weather", "toolCallId": "c1", "state": "output-available", "input": {"city": "Paris"}, "output": "sunny"}
            ]}),
            json!({"id": "msg-2", "role": "assistant", "parts": [{"type": "text", "text": "Sunny."}]}),
        ]
    );
    let back = decode_messages(&ui, None).unwrap().messages;
    let shape = |ms: &[Message]| -> Vec<(Role, String, Vec<String>, Option<String>)> {
        ms.iter()
            .map(|m| {
                (m.role, m.content.text(), m.tool_calls.iter().map(|c| c.id.clone()).collect(), m.tool_call_id.clone())
            })
            .collect()
    };
    assert_eq!(shape(&back), shape(&canon), "the same conversation back");
}

#[test]
fn fresh_eyes_findings_stay_fixed() {
    // An OpenAI Chat file part is OpenAI's (its data nests in `file`), and round-trips exactly.
    let file = json!({"role": "user", "content": [{"type": "text", "text": "read"}, {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}}]});
    assert_eq!(detect(&file).unwrap(), Detected::Sure(Format::Openai));
    assert_eq!(
        encode_messages(&decode_messages(std::slice::from_ref(&file), None).unwrap().messages, Format::Openai),
        vec![file]
    );
    // A Gemini `model` content cannot hold typed parts.
    let e = detect(&json!({"role": "model", "parts": [{"text": "hi"}, {"type": "text", "text": "x"}]})).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMessage);
    // Steps from another format become steps: a model call after tool results starts with step-start.
    let lc = vec![
        json!({"type": "human", "content": "q", "id": "h"}),
        json!({"type": "ai", "content": "checking", "id": "a1", "tool_calls": [{"id": "c1", "name": "w", "args": {}}]}),
        json!({"type": "tool", "content": "18", "tool_call_id": "c1"}),
        json!({"type": "ai", "content": "It is 18", "id": "a1#1"}),
    ];
    let ui = encode_messages(&decode_messages(&lc, None).unwrap().messages, Format::Ui);
    assert_eq!(ui.len(), 2, "{ui:?}");
    let kinds: Vec<&str> = ui[1]["parts"].as_array().unwrap().iter().filter_map(|p| p["type"].as_str()).collect();
    assert_eq!(kinds, ["text", "tool-w", "step-start", "text"]);
    let again = decode_messages(&ui, None).unwrap().messages;
    let roles: Vec<Role> = again.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant],
        "the answer stays after its tool result"
    );
    // A UIMessage turn with only tool parts is `content: null` in OpenAI Chat, not `[]`.
    let calls_only = json!({"id": "a", "role": "assistant", "parts": [{"type": "step-start"}, {"type": "tool-f", "toolCallId": "c", "state": "input-available", "input": {}}]});
    let openai = encode_messages(&decode_messages(&[calls_only], None).unwrap().messages, Format::Openai);
    assert_eq!(openai[0]["content"], Value::Null);
    // The AI SDK keeps an Anthropic signature in providerOptions (a UIMessage in providerMetadata):
    // the thinking block goes to Anthropic with it, and nothing else of the AI SDK's.
    let aisdk = json!({"role": "assistant", "content": [{"type": "reasoning", "text": "hm", "providerOptions": {"anthropic": {"signature": "sig"}}}, {"type": "text", "text": "ok"}]});
    let anthropic = encode_messages(&decode_messages(&[aisdk], None).unwrap().messages, Format::Anthropic);
    assert_eq!(anthropic[0]["content"][0], json!({"type": "thinking", "thinking": "hm", "signature": "sig"}));
    let reasoning = &history()[1];
    let anthropic =
        encode_messages(&decode_messages(std::slice::from_ref(reasoning), None).unwrap().messages, Format::Anthropic);
    assert_eq!(
        anthropic[0]["content"][0],
        json!({"type": "thinking", "thinking": "Need the weather tool.", "signature": "sig"})
    );
    // A UI system message is an AI SDK system message: its content a string.
    let system = json!({"id": "s", "role": "system", "parts": [{"type": "text", "text": "sys"}]});
    assert_eq!(
        encode_messages(&decode_messages(&[system], None).unwrap().messages, Format::AiSdk)[0]["content"],
        json!("sys")
    );
}

#[test]
fn a_tool_input_error_part_is_an_invalid_call_that_keeps_its_raw_text() {
    let part = json!({"id": "a", "role": "assistant", "parts": [
        {"type": "step-start"},
        {"type": "tool-f", "toolCallId": "c1", "state": "output-error", "rawInput": "{bad", "errorText": "parse error"},
        {"type": "text", "text": "after"}
    ]});
    let d = decode_messages(std::slice::from_ref(&part), None).unwrap().messages;
    assert!(d[0].tool_calls.is_empty());
    assert_eq!((d[0].invalid_tool_calls[0].id.as_str(), d[0].invalid_tool_calls[0].args.as_str()), ("c1", "{bad"));
    assert_eq!(encode_messages(&d, Format::Ui), vec![part], "round trip exact, no `input` made up");
    // The AI SDK sends the raw text as the call's input (convertToModelMessages: `rawInput`).
    let model = encode_messages(&d, Format::AiSdk);
    let call = model[0]["content"].as_array().unwrap().iter().find(|p| p["type"] == "tool-call").cloned();
    assert_eq!(call, Some(json!({"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": "{bad"})));
}

/// An AI SDK stream without a `messageId` assembles one id-less UIMessage of several steps (as
/// `readUIMessageStream` does): it goes back as one UIMessage, never one per step.
#[test]
fn an_id_less_ui_message_of_several_steps_stays_one_message() {
    let ui = json!({"role": "assistant", "parts": [
        {"type": "step-start"},
        {"type": "tool-weather", "toolCallId": "c1", "state": "output-available", "input": {"city": "Paris"}, "output": "18°C"},
        {"type": "step-start"},
        {"type": "text", "text": "18°C in Paris."}
    ]});
    let decoded = decode_messages(std::slice::from_ref(&ui), None).unwrap().messages;
    let roles: Vec<_> = decoded.iter().map(|m| (m.role, m.id.clone())).collect();
    assert_eq!(roles, vec![(Role::Assistant, None), (Role::Tool, None), (Role::Assistant, Some("#1".into()))]);
    let back = encode_messages(&decoded, Format::Ui);
    assert_eq!(back.len(), 1, "{back:?}");
    assert_eq!(back[0]["parts"], ui["parts"]);
    // Elsewhere the steps are the provider's turns: call, result, answer.
    assert_eq!(encode_messages(&decoded, Format::Openai).len(), 3);
}

/// An AI SDK `json` tool output goes into a UIMessage as the value it is, not its JSON text
/// (found by the AI SDK adapter's author).
#[test]
fn an_ai_sdk_json_output_is_a_ui_output_value() {
    let model = vec![
        json!({"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "w", "input": {}}]}),
        json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "w", "output": {"type": "json", "value": {"a": 1}}}]}),
    ];
    let d = decode_messages(&model, None).unwrap().messages;
    let ui = encode_messages(&d, Format::Ui);
    assert_eq!(ui[0]["parts"][0]["output"], json!({"a": 1}), "{ui:?}");
}

#[test]
fn results_a_uimessage_cannot_carry_are_refused_for_ui_and_carried_elsewhere() {
    // A tool part holds one output: the second result was dropped without a word.
    let input = vec![
        json!({"role": "user", "content": "x"}),
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "one"}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "two"}),
    ];
    let decoded = decode_messages(&input, None).unwrap();
    let e = convert(&decoded.messages, Format::Ui).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::AlreadyAnswered, Some(3)));
    assert!(
        e.message.starts_with("result for call \"c1\": a second result: a UIMessage tool part holds one output"),
        "{}",
        e.message
    );
    // Every other format has a place for both.
    for format in
        [Format::Openai, Format::Anthropic, Format::Gemini, Format::AiSdk, Format::Responses, Format::Langchain]
    {
        let text = serde_json::to_string(&convert(&decoded.messages, format).unwrap()).unwrap();
        assert!(text.contains("one") && text.contains("two"), "{format:?}: {text}");
    }
    // One result per call converts; a result whose call is in another UIMessage (after a user
    // message) or in none was given a made-up `dynamic-tool` part: refused.
    let one = convert(&decoded.messages[..3], Format::Ui).unwrap();
    assert_eq!(one[1]["parts"][0]["output"], json!("one"));
    let m = &decoded.messages;
    for (list, at) in
        [(vec![m[0].clone(), m[3].clone()], 1), (vec![m[0].clone(), m[1].clone(), m[0].clone(), m[2].clone()], 3)]
    {
        let e = convert(&list, Format::Ui).unwrap_err();
        assert_eq!((e.code, e.index), (ErrorCode::UnknownToolCall, Some(at)));
        assert!(e.message.contains("its call is not in the UIMessage it would join"), "{}", e.message);
        assert!(convert(&list, Format::Openai).is_ok());
    }
    // Repaired first, the history converts (the first result kept).
    let (repaired, _) = repair_values(&input, &RepairOptions::default()).unwrap();
    let out = convert(&decode_messages(&repaired, None).unwrap().messages, Format::Ui).unwrap();
    assert_eq!(out[1]["parts"][0]["output"], json!("one"));
}

#[test]
fn a_refusal_converting_to_ui_names_the_input_message() {
    // One Gemini content decodes to several messages: the error names the content (input 1),
    // not the canonical position of the second result (2).
    let input = vec![
        json!({"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "f", "args": {}}}]}),
        json!({"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "f", "response": {"result": "one"}}}, {"functionResponse": {"id": "c1", "name": "f", "response": {"result": "two"}}}]}),
    ];
    let decoded = decode_messages(&input, None).unwrap();
    assert_eq!(convert(&decoded.messages, Format::Ui).unwrap_err().index, Some(2));
    let e = convert_decoded(&decoded, Format::Ui).unwrap_err();
    assert_eq!((e.code, e.index), (ErrorCode::AlreadyAnswered, Some(1)));
}
