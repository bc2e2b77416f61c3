//! Messages that look like two formats at once (`conflicts.rs`): each rule's refused case, with
//! its code, field, index and words, and the accepted neighbours real frameworks write.

use super::*;
use crate::message::Content;
use serde_json::json;

/// The error decoding `bad` gives at index 1 of a list (after a plain message), which must be
/// `INVALID_MESSAGE` on `field` and name every one of `words` — and never the marker text the
/// messages carry as their content.
fn refused(bad: Value, field: &str, words: &[&str]) -> Error {
    let list = vec![json!({"role": "user", "content": "hi"}), bad.clone()];
    let e = decode_messages(&list, None).unwrap_err();
    assert_eq!(
        (e.code, e.index, e.field.as_deref()),
        (ErrorCode::InvalidMessage, Some(1), Some(field)),
        "{bad}: {e:?}"
    );
    for w in words {
        assert!(e.message.contains(w), "{bad}: {:?} lacks {w:?}", e.message);
    }
    assert!(!e.message.contains("MARKER"), "a value was echoed: {}", e.message);
    e
}

fn read(v: Value) -> Vec<Message> {
    decode_messages(std::slice::from_ref(&v), None).unwrap_or_else(|e| panic!("{v}: {e:?}")).messages
}

fn tool_use(id: &str, name: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": {"q": "MARKER"}})
}

fn openai_call(id: &str, name: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": "{\"q\":\"MARKER\"}"}})
}

#[test]
fn call_blocks_beside_openai_tool_calls_must_repeat_them() {
    // The tester's case: a tool_use block the OpenAI reader would drop beside another call.
    refused(
        json!({"role": "assistant", "content": [tool_use("t1", "a")], "tool_calls": [openai_call("c1", "b")]}),
        "content",
        &["content part 0", "`tool_use`", "Anthropic", "`tool_calls`", "openai", "repeats none"],
    );
    // The same id under another name is another call; an empty `tool_calls` repeats nothing.
    refused(
        json!({"role": "assistant", "content": [tool_use("c1", "a")], "tool_calls": [openai_call("c1", "b")]}),
        "content",
        &["`tool_use`"],
    );
    refused(
        json!({"role": "assistant", "content": [tool_use("c1", "a")], "tool_calls": []}),
        "content",
        &["`tool_use`"],
    );
    // AI SDK tool-call parts and LangChain standard tool_call blocks alike.
    refused(
        json!({"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "x", "toolName": "a", "input": {}}], "tool_calls": [openai_call("c1", "a")]}),
        "content",
        &["`tool-call`", "AI SDK"],
    );
    refused(
        json!({"role": "assistant", "content": [{"type": "tool_call", "id": "x", "name": "a", "args": {}}], "tool_calls": [openai_call("c1", "a")]}),
        "content",
        &["`tool_call`", "LangChain"],
    );
    // Blocks that repeat the calls (same ids and names), in a role-keyed LangChain-style dict or
    // beside OpenAI calls: read once, as the message's calls.
    for calls in [json!([{"id": "c1", "name": "a", "args": {"q": 1}}]), json!([openai_call("c1", "a")])] {
        let m = read(
            json!({"role": "assistant", "content": [{"type": "text", "text": "t"}, tool_use("c1", "a")], "tool_calls": calls}),
        );
        assert_eq!(m[0].tool_calls.len(), 1);
        assert_eq!(m[0].tool_calls[0].id, "c1");
    }
    let m = read(
        json!({"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "input": {}}], "tool_calls": [openai_call("c1", "a")]}),
    );
    assert_eq!(m[0].tool_calls.len(), 1);
    // Ids read as their text, as the readers read a numeric id.
    let m = read(
        json!({"type": "ai", "content": [tool_use("7", "a")], "tool_calls": [{"id": 7, "name": "a", "args": {}}]}),
    );
    assert_eq!(m[0].tool_calls[0].id, "7");
    refused(
        json!({"type": "ai", "content": [tool_use("8", "a")], "tool_calls": [{"id": 7, "name": "a", "args": {}}]}),
        "content",
        &["`tool_use`"],
    );
}

#[test]
fn a_claude_backed_langchain_message_keeps_working_and_an_unrepeated_block_is_refused() {
    // What @langchain/core holds for a ChatAnthropic answer: the tool_use blocks and the same
    // calls (a streamed one may be invalid: it still repeats an id).
    let claude = json!({"type": "ai", "id": "run-1", "content": [
        {"type": "thinking", "thinking": "hm", "signature": "s"},
        {"type": "text", "text": "Let me look."},
        tool_use("toolu_1", "weather"),
        tool_use("toolu_2", "search"),
    ], "tool_calls": [{"id": "toolu_1", "name": "weather", "args": {"q": "x"}, "type": "tool_call"}],
       "invalid_tool_calls": [{"id": "toolu_2", "name": "search", "args": "{", "error": "bad", "type": "invalid_tool_call"}]});
    let m = read(claude.clone());
    assert_eq!((m[0].tool_calls.len(), m[0].invalid_tool_calls.len()), (1, 1));
    assert_eq!(encode_messages(&m, Format::Langchain), vec![claude.clone()], "a round trip stays exact");
    // Its {type, data} and serialized envelopes are checked once unwrapped.
    let mut lone = claude.clone();
    lone["content"][3]["id"] = json!("toolu_9");
    refused(lone.clone(), "content", &["content part 3", "`tool_use`", "langchain", "`invalid_tool_calls`"]);
    let data = json!({"type": "ai", "data": lone.as_object().unwrap().iter().filter(|(k, _)| *k != "type").map(|(k, v)| (k.clone(), v.clone())).collect::<Map<String, Value>>()});
    refused(data, "content", &["`tool_use`"]);
}

#[test]
fn result_blocks_beside_tool_call_id_are_refused_and_any_other_json_result_is_not() {
    refused(
        json!({"role": "tool", "tool_call_id": "c1", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "MARKER"}]}),
        "content",
        &["`tool_result`", "Anthropic", "`tool_call_id`"],
    );
    refused(
        json!({"role": "tool", "tool_call_id": "c1", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "f", "output": {"type": "text", "value": "MARKER"}}]}),
        "content",
        &["`tool-result`", "AI SDK", "`tool_call_id`"],
    );
    refused(
        json!({"role": "user", "tool_call_id": "c1", "content": [{"type": "tool_result", "tool_use_id": "c1"}]}),
        "content",
        &["`tool_result`"],
    );
    // A tool result may hold any JSON, typed or not: sent as its JSON text.
    let m =
        read(json!({"role": "tool", "tool_call_id": "c1", "content": [{"type": "row", "v": 1}, {"type": "thinking"}]}));
    assert_eq!(m[0].tool_call_id.as_deref(), Some("c1"));
    // Without `tool_call_id` an Anthropic user message with results is Anthropic's, as before.
    let m = read(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "ok"}]}));
    assert_eq!((m[0].role, m[0].origin), (Role::Tool, Some(Format::Anthropic)));
}

#[test]
fn other_formats_parts_beside_tool_calls_are_refused_and_openai_parts_are_not() {
    refused(
        json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "MARKER", "signature": "s"}], "tool_calls": [openai_call("c1", "a")]}),
        "content",
        &["`thinking`", "anthropic", "`tool_calls`"],
    );
    refused(
        json!({"role": "assistant", "content": [{"type": "reasoning", "text": "MARKER"}], "tool_calls": [openai_call("c1", "a")]}),
        "content",
        &["`reasoning`", "ai-sdk"],
    );
    refused(
        json!({"role": "assistant", "content": [{"type": "output_text", "text": "MARKER"}], "tool_calls": [openai_call("c1", "a")]}),
        "content",
        &["`output_text`", "responses"],
    );
    // A typo is refused as it is without `tool_calls`.
    let e = refused(
        json!({"role": "assistant", "content": [{"type": "txt", "text": "MARKER"}], "tool_calls": [openai_call("c1", "a")]}),
        "content",
        &["unknown content part type"],
    );
    let plain =
        decode_messages(&[json!({"role": "assistant", "content": [{"type": "txt", "text": "x"}]})], None).unwrap_err();
    assert_eq!((plain.code, plain.field), (e.code, e.field));
    // OpenAI's own parts, and the shared ones, stay.
    let m = read(
        json!({"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "refusal", "refusal": "no"}], "tool_calls": [openai_call("c1", "a")]}),
    );
    assert_eq!(m[0].tool_calls.len(), 1);
    let m = read(
        json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}, {"type": "file", "file": {"file_id": "f"}}], "tool_call_id": null}),
    );
    assert_eq!(m[0].role, Role::User);
}

#[test]
fn content_beside_parts_must_repeat_their_text() {
    // AI SDK 4 UIMessages: a user message's content is its text; useChat kept all of an
    // assistant message's text in `content`, appendResponseMessages the last response's.
    let user = json!({"id": "u1", "role": "user", "content": "hello", "parts": [{"type": "text", "text": "hello"}]});
    let m = read(user.clone());
    assert_eq!((m[0].origin, m[0].content.text()), (Some(Format::Ui), "hello".to_string()));
    assert_eq!(encode_messages(&m, Format::Ui), vec![user], "the repeated content round-trips");
    let parts = json!([{"type": "step-start"}, {"type": "text", "text": "Let me "}, {"type": "text", "text": "check."},
        {"type": "step-start"}, {"type": "reasoning", "text": "r"}, {"type": "text", "text": "Done"}, {"type": "text", "text": "!"}]);
    for content in ["Let me check.Done!", "Done!", "!", ""] {
        read(json!({"id": "a1", "role": "assistant", "content": content, "parts": parts}));
    }
    read(json!({"id": "a1", "role": "assistant", "content": null, "parts": parts}));
    // Text the parts do not have, a part of it that is not at the end, or parts as content.
    let e = refused(
        json!({"id": "a1", "role": "assistant", "content": "MARKER", "parts": parts}),
        "content",
        &["UIMessage", "`content`", "`parts`", "last text parts", "AI SDK 4"],
    );
    assert!(!e.message.contains("Done"));
    refused(
        json!({"id": "a1", "role": "assistant", "content": "Let me check.", "parts": parts}),
        "content",
        &["UIMessage"],
    );
    refused(
        json!({"id": "a1", "role": "assistant", "content": [{"type": "text", "text": "MARKER"}], "parts": parts}),
        "content",
        &["`content` that is an array"],
    );
    // Gemini contents have no `content` either: the same rule over their `{text}` parts.
    refused(
        json!({"role": "user", "content": "MARKER", "parts": [{"text": "hi"}]}),
        "content",
        &["Gemini", "untyped `parts`"],
    );
    refused(json!({"role": "model", "content": "MARKER", "parts": [{"text": "hi"}]}), "content", &["Gemini"]);
    read(json!({"role": "user", "content": "hi", "parts": [{"text": "hi"}]}));
    // A content-reading format beside `parts` (a LangChain type decides the format).
    refused(
        json!({"type": "human", "content": "hi", "parts": [{"type": "file", "url": "MARKER"}]}),
        "parts",
        &["`parts`", "langchain", "`content`"],
    );
    read(json!({"type": "human", "content": "hi", "parts": []}));
}

#[test]
fn a_langchain_type_beside_a_conflicting_role_is_refused() {
    let e = refused(
        json!({"type": "human", "role": "assistant", "content": "MARKER"}),
        "role",
        &["`type: \"human\"`", "user message", "`role: \"assistant\"`", "LangChain", "OpenAI"],
    );
    assert!(e.message.contains("role-based"));
    refused(json!({"type": "ai", "role": "tool", "content": "x"}), "role", &["`role: \"tool\"`"]);
    refused(
        json!({"type": "tool", "role": "model", "content": "x", "tool_call_id": "c"}),
        "role",
        &["`role: \"model\"`"],
    );
    refused(json!({"type": "human", "role": "critic-MARKER", "content": "x"}), "role", &["no format has"]);
    refused(json!({"type": "human", "role": 7, "content": "x"}), "role", &["a number"]);
    // The same role named twice is one message; `developer` is a system message.
    for (t, role, want) in [
        ("human", "user", Role::User),
        ("ai", "assistant", Role::Assistant),
        ("system", "developer", Role::System),
        ("developer", "system", Role::System),
        ("AIMessageChunk", "assistant", Role::Assistant),
        ("ai", "model", Role::Assistant),
    ] {
        assert_eq!(read(json!({"type": t, "role": role, "content": "x"}))[0].role, want, "{t} {role}");
    }
    // A ChatMessage names its own role: refused by its reader as before.
    let chat = decode_messages(&[json!({"type": "chat", "role": "critic", "content": "x"})], None).unwrap_err();
    assert_eq!(chat.code, ErrorCode::UnknownRole);
    // A forced format sees the conflict too.
    let e = decode_messages_as(&[json!({"type": "human", "role": "assistant", "content": "x"})], Format::Openai)
        .unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidMessage, Some("role")));
}

#[test]
fn call_keys_in_a_format_that_ignores_them_are_refused() {
    refused(
        json!({"id": "a", "role": "assistant", "parts": [{"type": "text", "text": "MARKER"}], "tool_calls": [openai_call("c1", "a")]}),
        "tool_calls",
        &["`tool_calls`", "ui", "tool parts"],
    );
    refused(
        json!({"role": "model", "parts": [{"text": "MARKER"}], "tool_call_id": "c1"}),
        "tool_call_id",
        &["`tool_call_id`", "gemini", "functionCall"],
    );
    refused(
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "MARKER"}], "tool_calls": [openai_call("c1", "a")]}),
        "tool_calls",
        &["responses"],
    );
    // With the format given, no detection: its reader would still drop them.
    for (v, f, key) in [
        (
            json!({"role": "assistant", "content": [{"type": "text", "text": "x"}], "tool_calls": [openai_call("c", "a")]}),
            Format::Anthropic,
            "tool_calls",
        ),
        (json!({"role": "tool", "content": [], "tool_call_id": "c"}), Format::AiSdk, "tool_call_id"),
        (
            json!({"role": "assistant", "content": "x", "invalid_tool_calls": [{"id": "c", "args": "{"}]}),
            Format::Anthropic,
            "invalid_tool_calls",
        ),
        (json!({"role": "user", "content": "x", "parts": [{"text": "y"}]}), Format::Openai, "parts"),
    ] {
        let e = decode_messages_as(std::slice::from_ref(&v), f).unwrap_err();
        assert_eq!((e.code, e.index, e.field.as_deref()), (ErrorCode::InvalidMessage, Some(0), Some(key)), "{v}");
    }
    // Empty or null ones lose nothing.
    read(
        json!({"id": "a", "role": "assistant", "parts": [{"type": "text", "text": "x"}], "tool_calls": [], "tool_call_id": null}),
    );
}

#[test]
fn an_ai_sdk_4_tool_invocation_part_is_named_as_such() {
    let e = decode_messages(
        &[json!({"id": "a", "role": "assistant", "content": "", "parts": [{"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "c", "toolName": "f", "args": {}, "result": 1}}]})],
        None,
    )
    .unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidMessage, Some("parts")));
    assert!(e.message.contains("AI SDK 4") && e.message.contains("tool-<name>"), "{}", e.message);
}

#[test]
fn what_the_readers_took_before_still_reads_the_same() {
    // The neighbours of every rule: one format's keys alone, in every format.
    let ok = [
        json!({"role": "assistant", "content": null, "tool_calls": [openai_call("c1", "a")]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "ok"}),
        json!({"role": "assistant", "content": [tool_use("c2", "a")]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c2", "content": "ok"}]}),
        json!({"type": "ai", "content": [tool_use("c3", "a")], "tool_calls": [{"id": "c3", "name": "a", "args": {}}]}),
        json!({"type": "tool", "tool_call_id": "c3", "content": "ok", "status": "error"}),
        json!({"role": "model", "parts": [{"functionCall": {"id": "g1", "name": "a", "args": {}}}]}),
        json!({"role": "user", "parts": [{"functionResponse": {"id": "g1", "name": "a", "response": {"result": "ok"}}}]}),
        json!({"id": "u", "role": "assistant", "parts": [{"type": "text", "text": "x"}]}),
    ];
    let d = decode_messages(&ok, None).unwrap();
    assert_eq!(
        d.formats,
        vec![
            Format::Openai,
            Format::Openai,
            Format::Anthropic,
            Format::Anthropic,
            Format::Langchain,
            Format::Langchain,
            Format::Gemini,
            Format::Gemini,
            Format::Ui
        ]
    );
    assert!(matches!(&d.messages[2].content, Content::Parts(p) if p.is_empty()));
}

#[test]
fn canonical_marks_in_a_provider_message_are_refused() {
    // The fuzzer's case (tests/fixtures/fuzz-crashers/project-11.json): an Anthropic response
    // whose `usage` was renamed `extra`; kept and written back, the output read as canonical.
    let anthropic = json!({"role": "assistant", "type": "message", "model": "m", "content": [tool_use("t1", "Glob")], "extra": {"input_tokens": 3}});
    refused(anthropic, "extra", &["`extra`", "anthropic", "canonical"]);
    // (With canonical keys only, it is a canonical message; `refusal` is OpenAI's.)
    refused(
        json!({"role": "assistant", "content": "MARKER", "refusal": null, "origin": "gemini"}),
        "origin",
        &["`origin`", "openai"],
    );
    refused(json!({"type": "human", "content": "MARKER", "extra": {}}), "extra", &["langchain"]);
    refused(json!({"role": "model", "parts": [{"text": "MARKER"}], "extra": {}}), "extra", &["gemini"]);
    // Forced formats refuse it too; what marks nothing (an `origin` naming no format, an `extra`
    // that is no object) stays an unknown key, written back.
    let e = decode_messages(
        &[json!({"role": "assistant", "content": "hi", "refusal": null, "extra": {}})],
        Some(Format::Openai),
    )
    .unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidMessage, Some("extra")));
    let kept = read(json!({"role": "user", "content": "hi", "origin": "elsewhere", "extra": 1}));
    let back = encode_messages(&kept, Format::Openai);
    assert_eq!(back, vec![json!({"role": "user", "content": "hi", "origin": "elsewhere", "extra": 1})]);
    // A canonical message itself is still read as one.
    let canonical = read(json!({"role": "user", "content": "hi", "origin": "anthropic", "extra": {"k": 1}}));
    assert_eq!(canonical[0].origin, Some(Format::Anthropic));
}

#[test]
fn a_call_block_beside_tool_call_id_alone_names_that_key() {
    // Read as OpenAI for its `tool_call_id` only: the error named a `tool_calls` the message does
    // not have (fresh-eyes finding); it names `tool_call_id`.
    let e = refused(
        json!({"role": "assistant", "content": [tool_use("c9", "f")], "tool_call_id": "c1"}),
        "tool_call_id",
        &["content part 0", "`tool_use`", "Anthropic", "`tool_call_id`", "no `tool_calls`"],
    );
    assert!(!e.message.contains("repeats none"), "{}", e.message);
}
