//! Stream readers on the real recordings and on generated streams.

use super::*;
use serde_json::json;

fn fixture(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/fixtures/transcripts/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn lg_fixture() -> Vec<Value> {
    fixture("langgraph-lc-stream-supervisor.json")
}

fn ui_fixture() -> Vec<Value> {
    fixture("aisdk-uistream-langgraph-hitl-interrupt.json")
}

#[test]
fn the_ui_stream_recording_assembles_one_message_awaiting_approval() {
    let chunks = ui_fixture();
    assert_eq!(chunks.len(), 100);
    let read = read_stream(&chunks, StreamFormat::UiStream).unwrap();
    assert_eq!(read.messages.len(), 1);
    let m = &read.messages[0];
    assert_eq!(m.role, Role::Assistant);
    let crate::message::Content::Parts(parts) = &m.content else { panic!("{:?}", m.content) };
    let reasoning = parts.iter().find_map(|p| match p {
        crate::message::ContentPart::Reasoning { text, .. } => Some(text.as_str()),
        _ => None,
    });
    assert!(
        reasoning.is_some_and(|t| t.starts_with("**Deleting a file**\n\nI need to use the delete_file tool")),
        "{reasoning:?}"
    );
    assert!(reasoning.is_some_and(|t| t.ends_with("to get this done.")));
    assert_eq!(m.tool_calls.len(), 1);
    let call = &m.tool_calls[0];
    assert_eq!((call.id.as_str(), call.name.as_str()), ("call_LOd3dMxgYxmNLWZVWXra9xWQ", "delete_file"));
    assert_eq!(call.args, json!({"filename": "report.pdf"}));
    let r = &read.report;
    assert_eq!((r.format, r.chunks, r.end), (StreamFormat::UiStream, 100, StreamEnd::Finish));
    assert_eq!(
        r.dangling,
        vec![UnansweredCall {
            id: "call_LOd3dMxgYxmNLWZVWXra9xWQ".into(),
            name: "delete_file".into(),
            message_id: None
        }]
    );
    assert_eq!(
        r.pending_approvals,
        vec![PendingApproval {
            approval_id: "call_LOd3dMxgYxmNLWZVWXra9xWQ".into(),
            tool_call_id: "call_LOd3dMxgYxmNLWZVWXra9xWQ".into(),
            name: "delete_file".into(),
            message_id: None,
        }]
    );
    assert!(r.open_parts.is_empty(), "{:?}", r.open_parts);
    assert_eq!(r.reasons.get("call_LOd3dMxgYxmNLWZVWXra9xWQ"), None, "waiting for its approval, not interrupted");

    // The call waits for its approval at the end of the history: not dangling, so a repair leaves
    // it alone, whatever the report's reasons say, and validation names it.
    let opts = crate::repair::RepairOptions { reasons: r.reasons.clone().into_iter().collect(), ..Default::default() };
    let (repaired, fixes) = crate::repair::repair(&read.messages, &opts);
    assert!(fixes.is_empty(), "{fixes:?}");
    let rules: Vec<_> =
        crate::repair::validate(&repaired, crate::repair::Provider::Openai).into_iter().map(|v| v.rule).collect();
    assert_eq!(rules, vec![crate::repair::Rule::ApprovalPending]);
}

#[test]
fn the_langgraph_recording_assembles_three_named_messages_with_two_handoffs() {
    let items = lg_fixture();
    assert_eq!(items.len(), 34);
    let read = read_stream(&items, StreamFormat::LanggraphMessages).unwrap();
    type Summary<'a> = (Option<&'a str>, Option<&'a str>, Vec<(&'a str, &'a str)>);
    let summary: Vec<Summary> = read
        .messages
        .iter()
        .map(|m| {
            (
                m.id.as_deref(),
                m.name.as_deref(),
                m.tool_calls.iter().map(|c| (c.id.as_str(), c.name.as_str())).collect(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                Some("chatcmpl-B5uXBAdgVKS28MfKQPk9VUbYzKRjI"),
                Some("supervisor"),
                vec![("call_DzZwU6tJXC4pR2g69WibohSY", "transfer_to_research_team")]
            ),
            (
                Some("chatcmpl-B5uXC2QROPmtJB1Ltk0dnj46BRT17"),
                Some("supervisor"),
                vec![("call_N7yHvMxHGBOeIrruJt0KGTJW", "transfer_to_math_expert")]
            ),
            (Some("chatcmpl-B5uXDZBYb2fsr2Dr9ImjSHkjv6Egq"), Some("supervisor"), vec![]),
        ]
    );
    assert!(read.messages.iter().all(|m| m.invalid_tool_calls.is_empty()));
    assert_eq!(read.messages[0].tool_calls[0].args, json!({}));
    assert_eq!(
        read.messages[2].content.text(),
        "The research team has been engaged to provide the answer to your question. Please hold on for a moment while they gather the information."
    );
    assert_eq!(read.messages[1].extra["langgraph_namespace"].as_array().map(Vec::len), Some(3));
    assert_eq!(read.messages[1].extra["langgraph_node"], json!("agent"));
    let r = &read.report;
    assert_eq!((r.chunks, r.end), (34, StreamEnd::Unmarked));
    let dangling: Vec<(&str, &str, Option<&str>)> =
        r.dangling.iter().map(|d| (d.id.as_str(), d.name.as_str(), d.message_id.as_deref())).collect();
    assert_eq!(
        dangling,
        vec![
            (
                "call_DzZwU6tJXC4pR2g69WibohSY",
                "transfer_to_research_team",
                Some("chatcmpl-B5uXBAdgVKS28MfKQPk9VUbYzKRjI")
            ),
            (
                "call_N7yHvMxHGBOeIrruJt0KGTJW",
                "transfer_to_math_expert",
                Some("chatcmpl-B5uXC2QROPmtJB1Ltk0dnj46BRT17")
            ),
        ]
    );
    assert_eq!(r.reasons.len(), 2);
}

#[test]
fn the_incremental_reader_shows_messages_so_far() {
    let mut r = StreamReader::new(StreamFormat::UiStream);
    for c in ui_fixture().iter().take(40) {
        r.push(c).unwrap();
    }
    let so_far = r.messages().unwrap();
    assert_eq!(so_far.len(), 1);
    assert!(so_far[0].tool_calls.is_empty());
    let end = r.end().unwrap();
    assert_eq!(end.report.end, StreamEnd::Cut);
    assert_eq!(end.report.open_parts, vec!["run-019b259a-5def-7000-8000-0a449f226de9".to_string()]);
}

fn err(format: StreamFormat, chunks: &[Value]) -> Error {
    read_stream(chunks, format).unwrap_err()
}

#[test]
fn refusals_are_typed_and_name_the_chunk() {
    let ui = StreamFormat::UiStream;
    let e = err(ui, &[json!({"type": "start"}), json!({"type": "text-dleta", "id": "t", "delta": "x"})]);
    assert_eq!((e.code, e.index), (ErrorCode::InvalidMessage, Some(1)));
    assert!(e.message.contains("\"text-dleta\""), "{}", e.message);
    let e = err(ui, &[json!({"type": "start"}), json!({"type": "text-delta", "id": "t", "delta": "x"})]);
    assert_eq!((e.code, e.index), (ErrorCode::InvalidMessage, Some(1)));
    assert!(e.message.contains("\"t\""), "{}", e.message);
    let e = err(ui, &[json!({"type": "tool-output-available", "toolCallId": "c", "output": 1})]);
    assert_eq!((e.code, e.index), (ErrorCode::InvalidMessage, Some(0)));
    let e = err(ui, &lg_fixture());
    assert_eq!((e.code, e.index), (ErrorCode::InvalidMessage, Some(0)));
    assert!(e.message.contains("langgraph-messages"), "{}", e.message);
    let e = err(StreamFormat::LanggraphMessages, &ui_fixture());
    assert_eq!((e.code, e.index), (ErrorCode::InvalidMessage, Some(0)));
    assert!(e.message.contains("ui-stream"), "{}", e.message);
    let long = "x".repeat(MAX_ID_CHARS + 1);
    let e = err(ui, &[json!({"type": "text-start", "id": long})]);
    assert_eq!((e.code, e.index), (ErrorCode::TooLarge, Some(0)));
    // A refused chunk stops the reader; what came before is still there.
    let mut r = StreamReader::new(ui);
    r.push(&json!({"type": "text-start", "id": "a"})).unwrap();
    r.push(&json!({"type": "text-delta", "id": "a", "delta": "hi"})).unwrap();
    assert!(r.push(&json!({"type": "nope"})).is_err());
    assert_eq!(r.push(&json!({"type": "text-end", "id": "a"})).unwrap_err().index, Some(2));
    assert_eq!(r.messages().unwrap()[0].content.text(), "hi");
    assert!(r.end().is_err());
    // Other shapes: no panic, a typed error.
    for v in [json!(null), json!(1), json!("x"), json!([]), json!([[], []]), json!({"type": 3}), json!([["a"], [1, 2]])]
    {
        for f in [ui, StreamFormat::LanggraphMessages] {
            assert_eq!(err(f, std::slice::from_ref(&v)).code, ErrorCode::InvalidMessage, "{v}");
        }
    }
}

#[test]
fn a_stream_over_the_limit_is_too_large() {
    let mut r = StreamReader::new(StreamFormat::UiStream);
    r.push(&json!({"type": "text-start", "id": "a"})).unwrap();
    let big = json!({"type": "text-delta", "id": "a", "delta": "x".repeat(MAX_STREAM_CHARS / 4)});
    let mut last = Ok(());
    for _ in 0..5 {
        last = r.push(&big);
        if last.is_err() {
            break;
        }
    }
    assert_eq!(last.unwrap_err().code, ErrorCode::TooLarge);
}

fn lc_chunk(id: &str, content: &str, tcc: Value) -> Value {
    json!([["agent:1"], [{"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessageChunk"],
        "kwargs": {"content": content, "id": id, "tool_call_chunks": tcc}}, {"langgraph_node": "agent"}]])
}

#[test]
fn tool_call_chunks_merge_by_index_then_id_and_bad_args_stay_invalid() {
    let items = vec![
        lc_chunk("m", "Hel", json!([{"name": "a", "args": "{\"x\":", "id": "c1", "index": 0}])),
        lc_chunk("m", "lo", json!([{"name": "b", "args": "", "id": "c2", "index": 1}])),
        lc_chunk("m", "", json!([{"name": "", "args": "1}", "index": 0}, {"args": "{\"y\"", "index": 1}])),
        lc_chunk("m", "", json!([{"name": "c", "args": "{}", "id": "c3"}])),
        lc_chunk("m", "!", json!([{"args": "", "id": "c3"}])),
    ];
    let read = read_stream(&items, StreamFormat::LanggraphMessages).unwrap();
    assert_eq!(read.messages.len(), 1);
    let m = &read.messages[0];
    assert_eq!(m.content.text(), "Hello!");
    assert_eq!(m.name.as_deref(), Some("agent"));
    let calls: Vec<(&str, &str, &Value)> =
        m.tool_calls.iter().map(|c| (c.id.as_str(), c.name.as_str(), &c.args)).collect();
    assert_eq!(calls, vec![("c1", "a", &json!({"x": 1})), ("c3", "c", &json!({}))]);
    assert_eq!(m.invalid_tool_calls.len(), 1);
    assert_eq!((m.invalid_tool_calls[0].id.as_str(), m.invalid_tool_calls[0].args.as_str()), ("c2", "{\"y\""));
    assert_eq!(read.report.dangling.len(), 3, "invalid calls dangle too");

    let e = err(
        StreamFormat::LanggraphMessages,
        &[
            lc_chunk("m", "", json!([{"name": "a", "args": "", "id": "c1", "index": 0}])),
            lc_chunk("m", "", json!([{"name": "b", "args": "", "index": 0}])),
        ],
    );
    assert_eq!((e.code, e.index), (ErrorCode::InvalidMessage, Some(1)));
}

/// Cuts `text` at the given fractions into pieces (at char boundaries), empty pieces allowed.
#[cfg(not(target_arch = "wasm32"))]
fn cut(text: &str, cuts: &[usize]) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (chars.len() + 1)).collect();
    at.sort_unstable();
    let mut out = Vec::new();
    let mut prev = 0;
    for a in at.into_iter().chain([chars.len()]) {
        out.push(chars[prev..a].iter().collect());
        prev = a;
    }
    out
}

#[cfg(not(target_arch = "wasm32"))]
fn ui_stream(text: &str, reasoning: &str, args: &str, cuts: &[usize]) -> Vec<Value> {
    let mut s = vec![json!({"type": "start", "messageId": "m1"}), json!({"type": "start-step"})];
    s.push(json!({"type": "reasoning-start", "id": "r"}));
    s.extend(cut(reasoning, cuts).into_iter().map(|d| json!({"type": "reasoning-delta", "id": "r", "delta": d})));
    s.push(json!({"type": "reasoning-end", "id": "r"}));
    s.push(json!({"type": "tool-input-start", "toolCallId": "c1", "toolName": "search"}));
    s.push(json!({"type": "tool-input-start", "toolCallId": "c2", "toolName": "fetch", "dynamic": true}));
    for d in cut(args, cuts) {
        s.push(json!({"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": d}));
        s.push(json!({"type": "tool-input-delta", "toolCallId": "c2", "inputTextDelta": d}));
    }
    let input: Value = serde_json::from_str(args).unwrap();
    s.push(json!({"type": "tool-input-available", "toolCallId": "c1", "toolName": "search", "input": input}));
    s.push(json!({"type": "tool-input-available", "toolCallId": "c2", "toolName": "fetch", "input": input, "dynamic": true}));
    s.push(json!({"type": "tool-output-available", "toolCallId": "c1", "output": {"hits": 2}}));
    s.push(json!({"type": "tool-output-error", "toolCallId": "c2", "errorText": "timeout"}));
    s.push(json!({"type": "finish-step"}));
    s.push(json!({"type": "start-step"}));
    s.push(json!({"type": "text-start", "id": "t"}));
    s.extend(cut(text, cuts).into_iter().map(|d| json!({"type": "text-delta", "id": "t", "delta": d})));
    s.push(json!({"type": "text-end", "id": "t"}));
    s.push(json!({"type": "finish-step"}));
    s.push(json!({"type": "finish", "finishReason": "stop"}));
    s
}

#[cfg(not(target_arch = "wasm32"))]
fn lg_stream(text: &str, args: &str, cuts: &[usize]) -> Vec<Value> {
    let mut s = Vec::new();
    let pieces = cut(args, cuts);
    for (k, d) in pieces.iter().enumerate() {
        let mut c = json!({"args": d, "index": 0});
        if k == 0 {
            c["name"] = json!("search");
            c["id"] = json!("c1");
        } else {
            c["name"] = json!("");
        }
        s.push(lc_chunk("m1", "", json!([c])));
    }
    for d in cut(text, cuts) {
        s.push(lc_chunk("m1", &d, json!([])));
    }
    s
}

// proptest is a native dev-dependency only (the wasm32 test build has no proptest).
#[cfg(not(target_arch = "wasm32"))]
proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn the_result_does_not_depend_on_where_the_stream_was_cut(
        text in "[a-zé ✓]{0,30}",
        reasoning in "[a-z \n]{0,20}",
        q in "[a-z\"\\\\ ]{0,12}",
        cuts in proptest::collection::vec(0usize..64, 0..8),
    ) {
        let args = serde_json::to_string(&json!({"q": q, "n": [1, 2]})).unwrap();
        let whole = read_stream(&ui_stream(&text, &reasoning, &args, &[]), StreamFormat::UiStream).unwrap();
        let cut_up = read_stream(&ui_stream(&text, &reasoning, &args, &cuts), StreamFormat::UiStream).unwrap();
        proptest::prop_assert_eq!(&whole.messages, &cut_up.messages);
        proptest::prop_assert_eq!(whole.report.dangling.len(), 0);
        proptest::prop_assert_eq!(whole.report.end, StreamEnd::Finish);
        let whole = read_stream(&lg_stream(&text, &args, &[]), StreamFormat::LanggraphMessages).unwrap();
        let cut_up = read_stream(&lg_stream(&text, &args, &cuts), StreamFormat::LanggraphMessages).unwrap();
        proptest::prop_assert_eq!(&whole.messages, &cut_up.messages);
        proptest::prop_assert_eq!(&whole.messages[0].tool_calls[0].args, &json!({"q": q, "n": [1, 2]}));
    }
}

#[test]
fn langgraph_usage_is_summed_as_concat_sums_it() {
    let chunk = |content: &str, usage: Value| {
        json!([["agent:1"], [{"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessageChunk"],
            "kwargs": {"id": "z", "content": content, "usage_metadata": usage}}, {"langgraph_node": "agent"}]])
    };
    let chunks = vec![
        chunk("x", json!({"input_tokens": 10, "output_tokens": 1, "total_tokens": 11})),
        chunk(
            "y",
            json!({"input_tokens": 0, "output_tokens": 5, "total_tokens": 5, "output_token_details": {"reasoning": 2}}),
        ),
    ];
    let read = read_stream(&chunks, StreamFormat::LanggraphMessages).unwrap();
    let usage = read.messages[0].usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total()), (10, 6, 16));
}
