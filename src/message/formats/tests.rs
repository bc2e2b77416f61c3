use super::*;
use crate::message::{Content, ContentPart, ToolStatus};
use serde_json::json;

fn dec(v: Value) -> Vec<Message> {
    decode_messages(std::slice::from_ref(&v), None).unwrap().messages
}

fn roundtrip(v: Value, f: Format) {
    let d = decode_messages(std::slice::from_ref(&v), Some(f)).unwrap();
    let back = encode_messages(&d.messages, f);
    assert_eq!(back, vec![v.clone()], "round trip through {f:?}:\n got {}\nwant {}", back[0], v);
}

#[test]
fn detects_each_format() {
    let cases = [
        (json!({"type": "human", "content": "hi"}), Format::Langchain),
        (
            json!({"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessage"], "kwargs": {"content": "x"}}),
            Format::Langchain,
        ),
        (json!({"role": "assistant", "content": null, "tool_calls": []}), Format::Openai),
        (json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}), Format::Anthropic),
        (
            json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "t", "toolName": "x", "output": {"type": "text", "value": "v"}}]}),
            Format::AiSdk,
        ),
        (json!({"role": "model", "parts": [{"text": "hi"}]}), Format::Gemini),
    ];
    for (v, f) in cases {
        assert_eq!(detect(&v).unwrap(), Detected::Sure(f), "{v}");
    }
    assert_eq!(detect(&json!({"role": "user", "content": "hi"})).unwrap(), Detected::Plain);
    assert_eq!(detect(&json!(3)).unwrap_err().code, ErrorCode::InvalidMessage);
    assert_eq!(detect(&json!({"content": "x"})).unwrap_err().code, ErrorCode::InvalidMessage);
}

#[test]
fn plain_messages_beside_langchain_or_gemini_decode_as_openai() {
    let values = vec![
        json!({"type": "human", "content": "a"}),
        json!({"role": "assistant", "content": "b"}),
        json!({"role": "model", "parts": [{"text": "c"}]}),
        json!({"role": "user", "content": "d"}),
    ];
    let d = decode_messages(&values, None).unwrap();
    assert_eq!(d.formats, vec![Format::Langchain, Format::Openai, Format::Gemini, Format::Openai]);
    assert_eq!(d.messages.iter().map(|m| m.content.text()).collect::<Vec<_>>(), vec!["a", "b", "c", "d"]);
    // Beside an Anthropic message, plain ones still take the Anthropic format.
    let values = vec![
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}),
        json!({"role": "user", "content": "hi"}),
    ];
    assert_eq!(decode_messages(&values, None).unwrap().formats, vec![Format::Anthropic, Format::Anthropic]);
}

#[test]
fn langchain_envelopes_decode_alike() {
    let dict = json!({"type": "ai", "content": "ok", "id": "a1", "tool_calls": [{"name": "t", "args": {"x": 1}, "id": "c1", "type": "tool_call"}]});
    let wrapped = json!({"type": "ai", "data": {"content": "ok", "id": "a1", "tool_calls": [{"name": "t", "args": {"x": 1}, "id": "c1", "type": "tool_call"}]}});
    let lc = json!({"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessage"], "kwargs": {"content": "ok", "id": "a1", "tool_calls": [{"name": "t", "args": {"x": 1}, "id": "c1", "type": "tool_call"}]}});
    let a = dec(dict);
    assert_eq!(a, dec(wrapped));
    let c = dec(lc);
    assert_eq!(a[0].tool_calls, c[0].tool_calls);
    assert_eq!(a[0].role, Role::Assistant);
    assert_eq!(a[0].tool_calls[0].args, json!({"x": 1}));
}

#[test]
fn unmodelled_fields_round_trip_in_every_format() {
    roundtrip(
        json!({"content": "res", "additional_kwargs": {"k": [1, 2]}, "response_metadata": {}, "type": "tool", "name": "t", "id": "t1", "tool_call_id": "c1", "artifact": {"a": 1}, "status": "error"}),
        Format::Langchain,
    );
    roundtrip(
        json!({"content": "ok", "additional_kwargs": {}, "response_metadata": {"model_provider": "openai"}, "type": "ai", "name": null, "id": "a1",
        "tool_calls": [{"name": "t", "args": {"x": 1}, "id": "c1", "type": "tool_call"}],
        "invalid_tool_calls": [{"type": "invalid_tool_call", "id": "c2", "name": "u", "args": "{bad", "error": "parse"}],
        "usage_metadata": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}}),
        Format::Langchain,
    );
    roundtrip(
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}, "index": 0}], "agent": "main", "thought": "t"}),
        Format::Openai,
    );
    roundtrip(
        json!({"role": "tool", "tool_call_id": "c1", "name": "f", "content": "r", "message_type": "observation"}),
        Format::Openai,
    );
    roundtrip(
        json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "sig"}, {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}, {"type": "tool_use", "id": "t1", "name": "f", "input": {"q": 1}}]}),
        Format::Anthropic,
    );
    roundtrip(
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a", "is_error": true}, {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text", "text": "b"}]}]}),
        Format::Anthropic,
    );
    roundtrip(
        json!({"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {"a": 1}, "providerOptions": {"p": {"k": 1}}}]}),
        Format::AiSdk,
    );
    roundtrip(
        json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "f", "output": {"type": "text", "value": "r"}}, {"type": "tool-result", "toolCallId": "c2", "toolName": "f", "output": {"type": "error-text", "value": "bad"}}]}),
        Format::AiSdk,
    );
    roundtrip(
        json!({"role": "model", "parts": [{"text": "x"}, {"functionCall": {"id": "g1", "name": "f", "args": {"a": 1}}, "thoughtSignature": "s"}]}),
        Format::Gemini,
    );
    roundtrip(
        json!({"role": "user", "parts": [{"functionResponse": {"id": "g1", "name": "f", "response": {"result": "r"}}}, {"functionResponse": {"id": "g2", "name": "f", "response": {"rows": [1]}}}]}),
        Format::Gemini,
    );
}

#[test]
fn anthropic_user_message_with_several_results_and_text_splits() {
    let ms = dec(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": "1"},
        {"type": "tool_result", "tool_use_id": "b", "content": "2", "is_error": true},
        {"type": "text", "text": "and also"}]}));
    assert_eq!(ms.len(), 3);
    assert_eq!((ms[0].role, ms[0].tool_call_id.as_deref()), (Role::Tool, Some("a")));
    assert_eq!((ms[1].status, ms[1].tool_call_id.as_deref()), (Some(ToolStatus::Error), Some("b")));
    assert_eq!(ms[2].role, Role::User);
    assert_eq!(ms[2].content.text(), "and also");
}

#[test]
fn converts_a_tool_exchange_between_all_formats() {
    let openai = vec![
        json!({"role": "user", "content": "weather?"}),
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}}, {"id": "c2", "type": "function", "function": {"name": "time", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "sunny"}),
        json!({"role": "tool", "tool_call_id": "c2", "content": "noon"}),
        json!({"role": "assistant", "content": "Sunny at noon."}),
    ];
    let canon = decode_messages(&openai, None).unwrap().messages;
    for f in Format::ALL {
        let encoded = encode_messages(&canon, f);
        // One UIMessage holds the assistant turn and its results; item formats write each
        // call as an item (responses_tests.rs checks them further).
        let expected_len = match f {
            Format::Ui => 3,
            f if f.merges_tool_results() => 4,
            f if f.is_items() => 6,
            _ => 5,
        };
        assert_eq!(encoded.len(), expected_len, "{f:?}: {encoded:?}");
        if f.is_items() {
            continue;
        }
        let again = decode_messages(&encoded, Some(f)).unwrap().messages;
        assert_eq!(again.len(), 5, "{f:?}");
        for (a, b) in canon.iter().zip(&again) {
            assert_eq!(a.role, b.role, "{f:?}");
            assert_eq!(a.content.text(), b.content.text(), "{f:?}");
            assert_eq!(a.tool_call_id, b.tool_call_id, "{f:?}");
            let ids = |m: &Message| {
                m.tool_calls.iter().map(|c| (c.id.clone(), c.name.clone(), c.args.clone())).collect::<Vec<_>>()
            };
            assert_eq!(ids(a), ids(b), "{f:?}");
        }
    }
    let anthropic = encode_messages(&canon, Format::Anthropic);
    assert_eq!(
        anthropic[2],
        json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "c1", "content": "sunny"},
        {"type": "tool_result", "tool_use_id": "c2", "content": "noon"}]})
    );
    let gemini = encode_messages(&canon, Format::Gemini);
    assert_eq!(
        gemini[1]["parts"][0],
        json!({"functionCall": {"id": "c1", "name": "weather", "args": {"city": "Paris"}}})
    );
}

#[test]
fn invalid_openai_arguments_become_an_invalid_tool_call() {
    let ms = dec(json!({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}},
        {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{bad"}}]}));
    assert_eq!(ms[0].tool_calls.len(), 1);
    assert_eq!(ms[0].invalid_tool_calls[0].id, "c2");
    assert_eq!(ms[0].invalid_tool_calls[0].args, "{bad");
}

#[test]
fn bad_input_gives_typed_errors_with_index() {
    let cases = [
        (json!([{"role": "user", "content": "ok"}, "nope"]), ErrorCode::InvalidMessage, 1),
        (json!([{"role": "critic", "content": "x"}]), ErrorCode::UnknownRole, 0),
        (json!([{"role": "user", "content": "ok"}, {"role": "tool", "content": "x"}]), ErrorCode::MissingToolCallId, 1),
        (json!([{"type": "tool", "content": "x"}]), ErrorCode::MissingToolCallId, 0),
        (json!([{"type": "remove", "id": "x"}]), ErrorCode::UnknownRole, 0),
        (json!([{"role": "user", "content": 5}]), ErrorCode::InvalidMessage, 0),
    ];
    for (input, code, index) in cases {
        let list = input.as_array().unwrap().clone();
        let err = decode_messages(&list, None).unwrap_err();
        assert_eq!((err.code, err.index), (code, Some(index)), "{input}");
    }
}

#[test]
fn content_part_kinds_move_between_formats() {
    let ms = dec(
        json!({"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}),
    );
    let Content::Parts(parts) = &ms[0].content else { panic!("parts expected") };
    assert!(matches!(&parts[1], ContentPart::Image { url: Some(u), .. } if u == "https://x/y.png"));
    let anth = encode_messages(&ms, Format::Anthropic);
    assert_eq!(anth[0]["content"][1], json!({"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}));
    let gem = encode_messages(&ms, Format::Gemini);
    assert_eq!(gem[0]["parts"][1], json!({"fileData": {"mimeType": "image/png", "fileUri": "https://x/y.png"}}));
}

#[test]
fn canonical_messages_decode_to_themselves() {
    // Issue 14: feeding stategate's own output back in grew `extra` by one level each round and
    // refused messages with calls.
    let values = vec![
        json!({"id": "u1", "role": "user", "content": "hi", "additional_kwargs": {"x": 1}, "type": "human"}),
        json!({"type": "ai", "id": "a1", "content": "", "tool_calls": [{"id": "c1", "name": "t", "args": {"q": 1}, "type": "tool_call"}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "ok", "name": "t"}),
    ];
    let first = decode_messages(&values, None).unwrap().messages;
    let mut canonical: Vec<Value> = first.iter().map(|m| serde_json::to_value(m).unwrap()).collect();
    for _ in 0..3 {
        let again = decode_messages(&canonical, None).unwrap().messages;
        assert_eq!(again, first);
        canonical = again.iter().map(|m| serde_json::to_value(m).unwrap()).collect();
    }
    // A message that claims to be canonical but is not is refused, not guessed.
    let err = decode_messages(&[json!({"role": "user", "content": 5, "origin": "openai"})], None).unwrap_err();
    assert_eq!((err.code, err.index), (ErrorCode::InvalidMessage, Some(0)));
}

#[test]
fn a_role_keyed_message_with_langchain_calls_reads_as_langchain_reads_it() {
    let m = dec(
        json!({"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "weather", "args": {"city": "Paris"}}]}),
    );
    assert_eq!((m[0].tool_calls[0].name.as_str(), &m[0].tool_calls[0].args), ("weather", &json!({"city": "Paris"})));
    let openai = encode_messages(&m, Format::Openai);
    assert_eq!(openai[0]["tool_calls"][0]["function"], json!({"name": "weather", "arguments": "{\"city\":\"Paris\"}"}));
    // No args and no function: still refused, with the hint.
    let err =
        decode_messages(&[json!({"role": "assistant", "tool_calls": [{"id": "c1", "name": "t"}]})], None).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidToolCall);
}

#[test]
fn json_text_with_lone_surrogate_escapes_reads_as_the_array_form() {
    let read = |t: &str| values_from_json_text(t).unwrap();
    assert_eq!(read(r#"[{"role":"user","content":"a\ud800b"}]"#)[0]["content"], "a\u{fffd}b");
    assert_eq!(read(r#"[{"role":"user","content":"\udc00\ud83d\ude00\ud83d"}]"#)[0]["content"], "\u{fffd}😀\u{fffd}");
    assert_eq!(read(r#"["\\ud800"]"#)[0], "\\ud800", "an escaped backslash is not an escape");
    assert_eq!(values_from_json_text("[1").unwrap_err().code, ErrorCode::InvalidJson);
    assert_eq!(values_from_json_text("{}").unwrap_err().code, ErrorCode::InvalidMessage);
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    assert_eq!(values_from_json_text(&deep).unwrap_err().code, ErrorCode::InvalidJson);
}

#[test]
fn numbers_in_json_text_arguments_read_as_javascript_reads_them() {
    // Found by the fresh-eyes pass (issue 14): `{"amount":10.0}` hashed as 10.0 in Rust but came
    // back from JS as 10, so events()/onEvents no longer verified.
    use super::util::js_numbers;
    let read = |t: &str| js_numbers(serde_json::from_str(t).unwrap());
    assert_eq!(
        read("[10.0, 1e2, -0, -0.0, 1e-400, 0.1, 5e-324, 1e21, 1.5]").to_string(),
        "[10,100,0,0,0,0.1,5e-324,1e+21,1.5]"
    );
    assert_eq!(
        read("[9007199254740993, 12345678901234567890, -9007199254740993, 9007199254740991]").to_string(),
        "[9007199254740992,12345678901234567000,-9007199254740992,9007199254740991]"
    );
    let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "pay", "arguments": "{\"amount\":10.0}"}}]});
    let m = dec(call.clone());
    assert_eq!(m[0].tool_calls[0].args, json!({"amount": 10}));
    // The original text is still what goes back out to OpenAI.
    assert_eq!(encode_messages(&m, Format::Openai), vec![call]);
}

#[test]
fn response_only_fields_are_kept_but_never_written_into_a_request() {
    // An Anthropic `Message` response kept whole, and an OpenAI message with an app's id.
    let response = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [{"type": "text", "text": "hello"}], "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": 100}});
    let d = dec(response);
    assert_eq!(d[0].id.as_deref(), Some("msg_1"));
    assert_eq!(d[0].extra["usage"]["cache_read_input_tokens"], json!(100), "kept for the budget and the log");
    let back = encode_messages(&d, Format::Anthropic);
    assert_eq!(back, vec![json!({"role": "assistant", "content": [{"type": "text", "text": "hello"}]})]);
    let openai = dec(json!({"id": "m7", "role": "user", "content": "hi"}));
    assert_eq!(openai[0].id.as_deref(), Some("m7"));
    assert_eq!(encode_messages(&openai, Format::Openai), vec![json!({"role": "user", "content": "hi"})]);
}

#[test]
fn usage_is_read_from_every_format_and_survives_conversion() {
    use crate::message::usage::Usage;
    let cases = [
        // Anthropic's input excludes the cache: a Claude Code turn read 1,000,000 cached tokens.
        (
            json!({"role": "assistant", "type": "message", "content": [{"type": "text", "text": "a"}],
                "usage": {"input_tokens": 3, "output_tokens": 598, "cache_read_input_tokens": 1_000_000, "cache_creation_input_tokens": 20}}),
            Usage {
                input_tokens: 1_000_023,
                output_tokens: 598,
                cache_read_tokens: 1_000_000,
                cache_creation_tokens: 20,
            },
        ),
        (
            json!({"type": "ai", "content": "b", "usage_metadata": {"input_tokens": 50, "output_tokens": 5, "total_tokens": 55, "input_token_details": {"cache_read": 40}}}),
            Usage { input_tokens: 50, output_tokens: 5, cache_read_tokens: 40, cache_creation_tokens: 0 },
        ),
        (
            json!({"role": "assistant", "content": "c", "usage": {"prompt_tokens": 70, "completion_tokens": 7, "total_tokens": 77, "prompt_tokens_details": {"cached_tokens": 64}}}),
            Usage { input_tokens: 70, output_tokens: 7, cache_read_tokens: 64, cache_creation_tokens: 0 },
        ),
        (
            json!({"role": "assistant", "content": [{"type": "text", "text": "d"}], "providerOptions": {}, "usage": {"inputTokens": 9, "outputTokens": 1, "cachedInputTokens": 4}}),
            Usage { input_tokens: 9, output_tokens: 1, cache_read_tokens: 4, cache_creation_tokens: 0 },
        ),
        (
            json!({"role": "assistant", "content": [{"type": "text", "text": "f"}], "providerOptions": {}, "usage": {"outputTokens": 40}}),
            Usage { input_tokens: 0, output_tokens: 40, cache_read_tokens: 0, cache_creation_tokens: 0 },
        ),
        (
            json!({"id": "m1", "role": "assistant", "parts": [{"type": "text", "text": "e"}], "metadata": {"usage": {"inputTokens": 12, "outputTokens": 2}}}),
            Usage { input_tokens: 12, output_tokens: 2, cache_read_tokens: 0, cache_creation_tokens: 0 },
        ),
    ];
    for (v, want) in cases {
        let d = dec(v.clone());
        assert_eq!(d[0].usage, Some(want), "{v}");
        // Read as LangChain, it keeps its usage (as `usage_metadata`), and reads back the same.
        let lc = encode_messages(&d, Format::Langchain);
        assert_eq!(lc[0]["usage_metadata"]["total_tokens"], json!(want.total()), "{v}");
        let again = decode_messages(&lc, None).unwrap().messages;
        assert_eq!(again[0].usage.map(|u| u.total()), Some(want.total()), "{v}");
    }
}

#[test]
fn a_forced_format_reads_every_message_as_it_and_refuses_the_others() {
    let plain = vec![json!({"role": "user", "content": "hi"})];
    assert_eq!(decode_messages(&plain, None).unwrap().messages[0].origin, Some(Format::Openai));
    assert_eq!(decode_messages_as(&plain, Format::Anthropic).unwrap().messages[0].origin, Some(Format::Anthropic));
    let mixed = vec![json!({"role": "user", "content": "hi"}), json!({"type": "human", "content": "x"})];
    let e = decode_messages_as(&mixed, Format::Openai).unwrap_err();
    assert_eq!(e.index, Some(1));
}

#[test]
fn a_data_url_image_is_inline_data_wherever_it_goes() {
    let openai = vec![
        json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/"}}]}),
    ];
    let canon = decode_messages(&openai, None).unwrap().messages;
    let anthropic = encode_messages(&canon, Format::Anthropic);
    assert_eq!(
        anthropic[0]["content"][0]["source"],
        json!({"type": "base64", "media_type": "image/jpeg", "data": "/9j/"})
    );
    let gemini = encode_messages(&canon, Format::Gemini);
    assert_eq!(gemini[0]["parts"][0]["inlineData"], json!({"mimeType": "image/jpeg", "data": "/9j/"}));
    let ui = encode_messages(&canon, Format::Ui);
    assert_eq!(ui[0]["parts"][0]["mediaType"], json!("image/jpeg"));
    assert_eq!(encode_messages(&canon, Format::Openai), openai, "its own format unchanged");
}

#[test]
fn ai_sdk_approval_responses_answer_no_call_and_go_back_only_to_the_ai_sdk() {
    use crate::repair::{validate_values, Provider, Rule};
    let assistant = json!({"role": "assistant", "content": [
        {"type": "tool-call", "toolCallId": "c1", "toolName": "del", "input": {}},
        {"type": "tool-approval-request", "approvalId": "ap1", "toolCallId": "c1"}
    ]});
    let approved =
        json!({"role": "tool", "content": [{"type": "tool-approval-response", "approvalId": "ap1", "approved": true}]});
    // As convertToModelMessages writes it once the tool ran: the response and the result in one message.
    let result = json!({"role": "tool", "content": [
        {"type": "tool-approval-response", "approvalId": "ap1", "approved": true},
        {"type": "tool-result", "toolCallId": "c1", "toolName": "del", "output": {"type": "text", "value": "done"}}
    ]});
    let user = json!({"role": "user", "content": "delete it"});
    // Approved, not run yet: the call waits to run (not dangling), the approval is no orphan.
    let pending = vec![user.clone(), assistant.clone(), approved.clone()];
    let v = validate_values(&pending, Provider::Openai).unwrap();
    assert_eq!(
        v.iter().map(|x| (x.rule, x.tool_call_id.clone())).collect::<Vec<_>>(),
        vec![(Rule::ApprovalPending, Some("c1".to_string()))]
    );
    // Run: nothing to report; a round trip is exact; other formats never see the approval.
    let done = vec![user, assistant, result];
    assert!(validate_values(&done, Provider::Openai).unwrap().is_empty());
    let canon = decode_messages(&done, None).unwrap().messages;
    assert_eq!(encode_messages(&canon, Format::AiSdk), done);
    let openai = encode_messages(&canon, Format::Openai);
    assert_eq!(openai.len(), 3, "{openai:?}");
    assert_eq!(openai[2]["tool_call_id"], json!("c1"));
    assert!(!serde_json::to_string(&openai).unwrap().contains("ap1"));
    // The store keeps it in order, and it answers nothing there either.
    let mut store = crate::state::Store::new(crate::state::StoreOptions::default()).unwrap();
    let cmd = crate::state::Command {
        author: "a".into(),
        expected_version: None,
        update: json!({"messages": done}).as_object().cloned().unwrap(),
        correlation_id: None,
        causation_id: None,
    };
    store.apply(&cmd, 0).unwrap();
    assert!(store.messages("messages").unwrap().unanswered().is_empty());
}

#[test]
fn a_langchain_message_with_openai_shaped_calls_reads_them_as_langchain_does() {
    // @langchain/core's coerceMessageLikeToMessage turns {id, type: "function", function} into
    // {id, name: function.name, args: JSON.parse(arguments), type: "tool_call"}.
    let m = dec(json!({"type": "ai", "content": "", "tool_calls": [
        {"id": "b", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}},
        {"id": "c", "type": "function", "function": {"name": "g", "arguments": "{oops"}},
    ]}));
    assert_eq!((m[0].tool_calls[0].name.as_str(), &m[0].tool_calls[0].args), ("f", &json!({"x": 1})));
    assert_eq!((m[0].invalid_tool_calls[0].id.as_str(), m[0].invalid_tool_calls[0].args.as_str()), ("c", "{oops"));
    let lc = encode_messages(&m, Format::Langchain);
    assert_eq!(lc[0]["tool_calls"], json!([{"id": "b", "name": "f", "args": {"x": 1}, "type": "tool_call"}]));
    let openai = encode_messages(&m, Format::Openai);
    assert_eq!(openai[0]["tool_calls"][0]["function"], json!({"name": "f", "arguments": "{\"x\":1}"}));
    // No function name: refused naming the OpenAI shape, not "has no name".
    let e = decode_messages(
        &[json!({"type": "ai", "content": "", "tool_calls": [{"id": "b", "type": "function", "function": {"arguments": "{}"}}]})],
        None,
    )
    .unwrap_err();
    assert_eq!((e.code, e.index, e.field.as_deref()), (ErrorCode::InvalidToolCall, Some(0), Some("tool_calls")));
    assert!(
        e.message.contains("function: {name, arguments}") && !e.message.contains("LangChain tool call"),
        "{}",
        e.message
    );
    // A LangChain call keeps its own name even beside a `function` field.
    let m = dec(
        json!({"type": "ai", "content": "", "tool_calls": [{"id": "b", "name": "own", "args": {}, "function": {"name": "other"}}]}),
    );
    assert_eq!(m[0].tool_calls[0].name, "own");
}

#[test]
fn a_long_id_or_name_is_named_by_its_field() {
    let long = "x".repeat(MAX_ID_CHARS + 1);
    let cases = [
        (
            json!({"role": "assistant", "content": null, "tool_calls": [json!({"id": "c1", "type": "function", "function": {"name": long, "arguments": "{}"}})]}),
            "name",
            "tool call's name",
        ),
        (
            json!({"type": "ai", "content": "", "tool_calls": [{"id": "c1", "name": long, "args": {}}]}),
            "name",
            "tool call's name",
        ),
        (
            json!({"role": "assistant", "content": null, "tool_calls": [json!({"id": long, "type": "function", "function": {"name": "f", "arguments": "{}"}})]}),
            "tool_calls",
            "tool call's id",
        ),
        (json!({"role": "tool", "tool_call_id": long, "content": "x"}), "tool_call_id", "call this result answers"),
        (json!({"role": "user", "id": long, "content": "x"}), "id", "message's id"),
    ];
    for (v, field, words) in cases {
        let e = decode_messages(std::slice::from_ref(&v), None).unwrap_err();
        assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidMessage, Some(field)), "{}", e.message);
        assert!(e.message.contains(words) && e.message.contains("1024"), "{}", e.message);
        assert!(!e.message.contains(&long));
    }
    // At the limit it is taken.
    dec(
        json!({"role": "assistant", "content": null, "tool_calls": [json!({"id": "c1", "type": "function", "function": {"name": "y".repeat(MAX_ID_CHARS), "arguments": "{}"}})]}),
    );
}

#[test]
fn a_langchain_message_with_calls_only_in_additional_kwargs_reads_them_as_langchain_does() {
    // The tester's case: the calls were ignored, the message read as empty and dropped by
    // repair with its real result. LangChain's AIMessage reads them when it has none of its own.
    let call =
        |id: &str, args: &str| json!({"id": id, "type": "function", "function": {"name": "w", "arguments": args}});
    let kwargs = json!({"tool_calls": [call("k1", "{}"), call("k2", "{bad")]});
    for own in [json!(null), json!([])] {
        let mut v = json!({"type": "ai", "content": "", "additional_kwargs": kwargs});
        if !own.is_null() {
            v["tool_calls"] = own;
        }
        let m = dec(v);
        assert_eq!(
            (m[0].tool_calls.len(), m[0].tool_calls[0].id.as_str(), &m[0].tool_calls[0].args),
            (1, "k1", &json!({}))
        );
        assert_eq!((m[0].invalid_tool_calls[0].id.as_str(), m[0].invalid_tool_calls[0].args.as_str()), ("k2", "{bad"));
        // Written back to LangChain with its calls (and its additional_kwargs), and to OpenAI.
        let lc = encode_messages(&m, Format::Langchain);
        assert_eq!(lc[0]["tool_calls"], json!([{"id": "k1", "name": "w", "args": {}, "type": "tool_call"}]));
        assert_eq!(lc[0]["additional_kwargs"], kwargs);
        assert_eq!(encode_messages(&m, Format::Openai)[0]["tool_calls"][0]["id"], json!("k1"));
    }
    // Calls of its own (or streamed chunks) come first: additional_kwargs is only kept.
    let m = dec(
        json!({"type": "ai", "content": "", "tool_calls": [{"id": "a", "name": "f", "args": {}}], "additional_kwargs": kwargs}),
    );
    assert_eq!(m[0].tool_calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["a"]);
    assert!(m[0].invalid_tool_calls.is_empty());
    let m = dec(
        json!({"type": "AIMessageChunk", "content": "", "tool_call_chunks": [{"id": "k1", "name": "w", "args": "{", "index": 0}], "additional_kwargs": kwargs}),
    );
    assert!(m[0].tool_calls.is_empty() && m[0].invalid_tool_calls.is_empty());
    // A user message's additional_kwargs are not calls (LangChain reads them on an AIMessage only).
    assert!(dec(json!({"type": "human", "content": "hi", "additional_kwargs": kwargs}))[0].tool_calls.is_empty());
    // A bad call there is named by its field.
    let e = decode_messages(&[json!({"type": "ai", "content": "", "additional_kwargs": {"tool_calls": [{"type": "function", "function": {"name": "w"}}]}})], None).unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidToolCall, Some("additional_kwargs")));
}

#[test]
fn openai_legacy_function_calls_are_refused_not_dropped() {
    // The tester's case: read as an empty assistant message, dropped by repair.
    let legacy = json!({"name": "w", "arguments": "{}"});
    let e =
        decode_messages(&[json!({"role": "assistant", "content": null, "function_call": legacy})], None).unwrap_err();
    assert_eq!((e.code, e.index, e.field.as_deref()), (ErrorCode::InvalidMessage, Some(0), Some("function_call")));
    assert!(e.message.contains("legacy") && e.message.contains("tool_calls"), "{}", e.message);
    let e =
        decode_messages(&[json!({"type": "ai", "content": "", "additional_kwargs": {"function_call": legacy}})], None)
            .unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidMessage, Some("additional_kwargs")));
    // `null` says there is none (what some clients write beside tool_calls).
    let m = dec(json!({"role": "assistant", "content": "hi", "function_call": null}));
    assert_eq!(m[0].content, Content::Text("hi".into()));
}

/// A role-keyed message read as LangChain (`from: "langchain"`) is refused saying it has no
/// `type`, and why, not naming a type `""` (fresh-eyes finding).
#[test]
fn a_message_without_type_read_as_langchain_says_so() {
    let e = super::decode_messages_as(&[json!({"role": "user", "content": "hi"})], Format::Langchain).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnknownRole);
    assert_eq!(e.field.as_deref(), Some("type"));
    assert!(e.message.contains("needs a `type`") && e.message.contains("has a `role`"), "{}", e.message);
    assert!(!e.message.contains("\"\""), "{}", e.message);
    // A type that is there but empty is still named.
    let e = super::decode_messages_as(&[json!({"type": "", "content": "hi"})], Format::Langchain).unwrap_err();
    assert!(e.message.contains("unknown LangChain message type \"\""), "{}", e.message);
}

#[test]
fn an_openai_call_function_field_it_does_not_read_is_refused() {
    // `function` is {name, arguments}: another field was dropped from every output, an OpenAI one too.
    let call = |function: Value| {
        vec![
            json!({"role": "user", "content": "x"}),
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": function}]}),
        ]
    };
    let lc = |function: Value| {
        vec![
            json!({"type": "ai", "content": "", "additional_kwargs": {"tool_calls": [{"id": "c1", "type": "function", "function": function}]}}),
        ]
    };
    let strict = json!({"name": "f", "arguments": "{}", "strict": true, "k".repeat(50): "v"});
    for (input, index, field) in [(call(strict.clone()), 1, "tool_calls"), (lc(strict), 0, "additional_kwargs")] {
        let e = decode_messages(&input, None).unwrap_err();
        assert_eq!(
            (e.code, e.field.as_deref(), e.index),
            (ErrorCode::InvalidToolCall, Some(field), Some(index)),
            "{input:?}"
        );
        assert_eq!(
            e.message,
            format!("tool call 'c1': an OpenAI call's `function` is {{name, arguments}}; its `strict`, `{}…` is not read, and dropping it would change what the history says", "k".repeat(40)),
        );
    }
    // A field that says nothing loses nothing.
    let quiet = call(json!({"name": "f", "arguments": "{\"a\":1}", "strict": null, "meta": {}}));
    let ms = decode_messages(&quiet, None).unwrap().messages;
    assert_eq!(ms[1].tool_calls[0].args, json!({"a": 1}));
}

#[test]
fn a_url_of_any_scheme_stays_a_url() {
    // The AI SDK takes a `data` / `image` string that `new URL` reads as a URL; a `gs://` one was
    // read as base64 data and written to Gemini as `inlineData` (fresh-eyes round 2).
    let gs = "gs://bucket/v.mp4";
    let inputs = [
        json!({"role": "user", "content": [{"type": "file", "data": gs, "mediaType": "video/mp4"}]}),
        json!({"role": "user", "content": [{"type": "input_file", "file_url": gs}]}),
    ];
    for input in inputs {
        let ms = decode_messages(std::slice::from_ref(&input), None).unwrap().messages;
        let out = encode_messages(&ms, Format::Gemini);
        assert_eq!(out[0]["parts"][0]["fileData"]["fileUri"], json!(gs), "{input}");
        assert!(out[0]["parts"][0].get("inlineData").is_none(), "{input}");
    }
    let image =
        json!({"role": "user", "content": [{"type": "image", "image": "s3://b/cat.png", "mediaType": "image/png"}]});
    let ms = decode_messages(std::slice::from_ref(&image), None).unwrap().messages;
    assert!(
        matches!(&ms[0].content, Content::Parts(p) if matches!(&p[0], ContentPart::Image { url: Some(u), data: None, .. } if u == "s3://b/cat.png"))
    );
    // Base64 (no `:`) and a file id stay what they are.
    for (data, is_data) in [("iVBORw0KGgo=", true), ("file-abc123", false)] {
        let v = json!({"role": "user", "content": [{"type": "file", "data": data, "mediaType": "application/pdf"}]});
        let ms = decode_messages(std::slice::from_ref(&v), None).unwrap().messages;
        let Content::Parts(p) = &ms[0].content else { panic!() };
        assert!(matches!(&p[0], ContentPart::File { url: None, data, .. } if data.is_some() == is_data), "{v}");
    }
    for (s, url) in [
        ("gs://b/x", true),
        ("https://x", true),
        ("data:a;base64,AA", true),
        ("a+b.c-d:x", true),
        ("1a:x", false),
        ("AAAA", false),
        (":x", false),
    ] {
        assert_eq!(util::is_url(s), url, "{s}");
    }
}

#[test]
fn an_openai_refusal_part_goes_across_as_its_text() {
    // It was replaced by "[refusal part not sent …]"; the message's `refusal` field went across.
    let input = [
        json!({"role": "user", "content": "q"}),
        json!({"role": "assistant", "content": [{"type": "refusal", "refusal": "I cannot help with that"}]}),
    ];
    let ms = decode_messages(&input, None).unwrap().messages;
    for format in [Format::Anthropic, Format::AiSdk, Format::Gemini, Format::Langchain, Format::Ui] {
        let text = serde_json::to_string(&encode_messages(&ms, format)).unwrap();
        assert!(text.contains("I cannot help with that") && !text.contains("not sent"), "{format:?}: {text}");
    }
    // Back to OpenAI it is the part it was.
    assert_eq!(encode_messages(&ms, Format::Openai)[1]["content"], input[1]["content"]);
}

#[test]
fn responses_carry_the_notes_of_parts_they_cannot_take() {
    // An assistant message of another format is one `EasyInputMessage` string: its text only, so
    // the notes every other format gets (and a refusal's own text) were dropped.
    let cases = [
        (
            json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "refusal", "refusal": "I cannot help with that"}]}]),
            "I cannot help with that",
        ),
        (
            json!([{"role": "user", "parts": [{"text": "q"}]}, {"role": "model", "parts": [{"executableCode": {"language": "PYTHON", "code": "print(1)"}}]}]),
            "[executableCode part not sent",
        ),
        (
            json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}}, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}, {"type": "text", "text": "answer"}]}]),
            "answer",
        ),
    ];
    for (input, expect) in cases {
        let input: Vec<Value> = serde_json::from_value(input).unwrap();
        let ms = decode_messages(&input, None).unwrap().messages;
        let openai = serde_json::to_string(&encode_messages(&ms, Format::Openai)[1]).unwrap();
        let text = encode_messages(&ms, Format::Responses)[1]["content"].as_str().unwrap().to_string();
        assert!(text.contains(expect), "{text}");
        // The same notes OpenAI Chat gets.
        for note in text.split('[').skip(1) {
            assert!(openai.contains(note.split(']').next().unwrap()), "{note} / {openai}");
        }
    }
}
