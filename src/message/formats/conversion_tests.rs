//! What a conversion carries between formats and what it must not lose or send: files, media
//! outside user messages, blocks only one format reads, refusals, and the inputs refused at
//! decoding (a part type no format has, empty call ids).

use super::*;
use crate::message::{Content, ContentPart};
use serde_json::json;

/// A PDF as each format holds it: it decodes to one file part, round-trips exactly, and moves to
/// every other format as that format's file (or, where the format cannot carry this file, a text
/// note naming it — never dropped silently).
#[test]
fn files_move_between_formats_and_are_never_dropped_silently() {
    const PDF: &str = "JVBERi0xLjQK";
    let held = [
        (
            Format::Openai,
            json!({"role": "user", "content": [{"type": "file", "file": {"file_data": format!("data:application/pdf;base64,{PDF}"), "filename": "report.pdf"}}]}),
        ),
        (
            Format::Anthropic,
            json!({"role": "user", "content": [{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}, "title": "Q3"}]}),
        ),
        (
            Format::AiSdk,
            json!({"role": "user", "content": [{"type": "file", "data": PDF, "mediaType": "application/pdf", "filename": "report.pdf"}]}),
        ),
        (
            Format::Gemini,
            json!({"role": "user", "parts": [{"inlineData": {"mimeType": "application/pdf", "data": PDF, "displayName": "report.pdf"}}]}),
        ),
        (
            Format::Ui,
            json!({"id": "u1", "role": "user", "parts": [{"type": "file", "mediaType": "application/pdf", "filename": "report.pdf", "url": format!("data:application/pdf;base64,{PDF}")}]}),
        ),
        (
            Format::Responses,
            json!({"role": "user", "content": [{"type": "input_file", "file_data": format!("data:application/pdf;base64,{PDF}"), "filename": "report.pdf"}]}),
        ),
        (
            Format::OpenaiAgents,
            json!({"role": "user", "content": [{"type": "input_file", "file": format!("data:application/pdf;base64,{PDF}"), "filename": "report.pdf"}]}),
        ),
        (
            Format::Langchain,
            json!({"type": "human", "content": [{"type": "file", "base64": PDF, "mime_type": "application/pdf", "filename": "report.pdf"}]}),
        ),
    ];
    for (format, v) in &held {
        let d = decode_messages_as(std::slice::from_ref(v), *format).unwrap().messages;
        let Content::Parts(parts) = &d[0].content else { panic!("{format:?}: {:?}", d[0].content) };
        let Some(ContentPart::File { media_type, .. }) = parts.first() else { panic!("{format:?}: {parts:?}") };
        assert_eq!(
            super::util::file_media_type(None, media_type.as_deref()).or(Some("application/pdf")),
            Some("application/pdf"),
            "{format:?}"
        );
        assert_eq!(encode_messages(&d, *format), vec![v.clone()], "{format:?}: round trip");
        for (to, _) in &held {
            let out = serde_json::to_string(&encode_messages(&d, *to)).unwrap();
            assert!(out.contains(PDF), "{format:?} → {to:?} lost the file: {out}");
        }
    }
    // A file the target cannot carry becomes a note naming it: an http(s) PDF for OpenAI Chat,
    // audio for Anthropic, a provider file id for Gemini and the AI SDK.
    let at_url = json!({"role": "user", "content": [{"type": "file", "data": "https://example.com/r.pdf", "mediaType": "application/pdf", "filename": "r.pdf"}]});
    let d = decode_messages_as(std::slice::from_ref(&at_url), Format::AiSdk).unwrap().messages;
    assert_eq!(
        encode_messages(&d, Format::Openai)[0]["content"][0],
        json!({"type": "text", "text": "[file r.pdf (application/pdf) not sent: OpenAI Chat takes a file inline or by file_id, not by URL]"})
    );
    assert_eq!(
        encode_messages(&d, Format::Anthropic)[0]["content"][0]["source"],
        json!({"type": "url", "url": "https://example.com/r.pdf"})
    );
    let audio = json!({"role": "user", "parts": [{"inlineData": {"mimeType": "audio/wav", "data": "UklGRg=="}}]});
    let d = decode_messages_as(std::slice::from_ref(&audio), Format::Gemini).unwrap().messages;
    assert_eq!(encode_messages(&d, Format::Anthropic)[0]["content"][0]["type"], "text");
    assert!(encode_messages(&d, Format::Anthropic)[0]["content"][0]["text"].as_str().unwrap().contains("audio/wav"));
    let by_id =
        json!({"role": "user", "content": [{"type": "file", "file": {"file_id": "file-abc", "filename": "r.pdf"}}]});
    let d = decode_messages_as(std::slice::from_ref(&by_id), Format::Openai).unwrap().messages;
    assert_eq!(
        encode_messages(&d, Format::Responses)[0]["content"][0],
        json!({"type": "input_file", "file_id": "file-abc", "filename": "r.pdf"})
    );
    for to in [Format::Gemini, Format::AiSdk, Format::Ui] {
        let text = encode_messages(&d, to).to_vec();
        assert!(
            serde_json::to_string(&text).unwrap().contains("[file r.pdf (application/octet-stream) not sent"),
            "{to:?}: {text:?}"
        );
    }
    // An AI SDK file part of an image type is an image to the providers.
    let png = json!({"role": "user", "content": [{"type": "file", "data": "iVBORw0KGgo=", "mediaType": "image/png"}]});
    let d = decode_messages_as(std::slice::from_ref(&png), Format::AiSdk).unwrap().messages;
    assert_eq!(encode_messages(&d, Format::Openai)[0]["content"][0]["type"], "image_url");
    assert_eq!(encode_messages(&d, Format::Anthropic)[0]["content"][0]["type"], "image");
    assert_eq!(encode_messages(&d, Format::AiSdk), vec![png]);
}

/// An image in a system or assistant message goes where the target's request takes it (found by
/// the type checks of issue 16): OpenAI and Anthropic get a text note naming it, an AI SDK
/// assistant a `file` part, the Responses API a note; a message in the target's own format is
/// written back as it came.
#[test]
fn images_outside_user_messages_are_made_what_the_request_takes() {
    let lc = vec![
        json!({"type": "system", "content": [{"type": "text", "text": "rules"}, {"type": "image", "url": "https://x/y.png"}]}),
        json!({"type": "human", "content": "hi"}),
        json!({"type": "ai", "content": [{"type": "text", "text": "see"}, {"type": "image", "url": "https://x/z.png"}]}),
    ];
    let d = decode_messages(&lc, None).unwrap().messages;
    let note = |v: &Value| v.to_string().contains("[image not sent:");
    for f in [Format::Openai, Format::Anthropic, Format::Responses, Format::OpenaiAgents] {
        let out = encode_messages(&d, f);
        let text = serde_json::to_string(&out).unwrap();
        assert!(
            !text.contains("image_url") && !text.contains("\"image\"") && !text.contains("input_image"),
            "{f:?}: {text}"
        );
        assert!(note(&out[0]) && note(out.last().unwrap()), "{f:?}: {text}");
    }
    let ai = encode_messages(&d, Format::AiSdk);
    assert_eq!(ai[2]["content"][1], json!({"type": "file", "data": "https://x/z.png", "mediaType": "image/png"}));
    assert!(note(&ai[0]), "{}", ai[0]);
    // Gemini and LangChain take images in any role.
    assert!(encode_messages(&d, Format::Gemini)[2].to_string().contains("fileData"));
    assert_eq!(encode_messages(&d, Format::Langchain), lc);
    // The caller's own OpenAI assistant image is written back as it came.
    let own =
        vec![json!({"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": "https://x/z.png"}}]})];
    assert_eq!(encode_messages(&decode_messages(&own, None).unwrap().messages, Format::Openai), own);
}

/// A content part type no format has is refused, naming it, instead of being read as an unknown
/// block and dropped on the way to another format (found by the fresh-eyes pass of issue 16);
/// Anthropic's newer blocks are Anthropic's.
#[test]
fn a_part_type_no_format_has_is_refused() {
    let typo = json!({"role": "user", "content": [{"type": "txt", "text": "typo part"}]});
    let e = decode_messages(std::slice::from_ref(&typo), None).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMessage);
    assert!(e.message.contains("\"txt\""), "{}", e.message);
    assert_eq!(e.index, Some(0));
    let search = json!({"role": "user", "content": [{"type": "search_result", "source": "u", "title": "t", "content": [{"type": "text", "text": "found"}]}]});
    assert_eq!(detect(&search).unwrap(), Detected::Sure(Format::Anthropic));
    assert_eq!(
        encode_messages(&decode_messages(std::slice::from_ref(&search), None).unwrap().messages, Format::Anthropic),
        vec![search]
    );
}

/// A block only its own format reads is named in a text note elsewhere, never dropped silently;
/// app-only parts and blocks that repeat the message's tool calls carry nothing there.
#[test]
fn blocks_only_their_format_reads_become_notes_elsewhere() {
    let audio = json!({"role": "user", "content": [{"type": "text", "text": "listen"}, {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]});
    let d = decode_messages(std::slice::from_ref(&audio), None).unwrap().messages;
    assert_eq!(encode_messages(&d, Format::Openai), vec![audio.clone()], "its own format: as it came");
    for to in [Format::Anthropic, Format::Gemini, Format::AiSdk, Format::Langchain, Format::Ui, Format::Responses] {
        let out = serde_json::to_string(&encode_messages(&d, to)).unwrap();
        assert!(out.contains("[input_audio part not sent: only the format it came from reads it]"), "{to:?}: {out}");
    }
    // A Claude-backed LangChain AIMessage repeats its calls as tool_use blocks: no note for them.
    let lc = json!({"type": "ai", "content": [{"type": "text", "text": "Checking."}, {"type": "tool_use", "id": "t1", "name": "w", "input": {}}],
                    "tool_calls": [{"id": "t1", "name": "w", "args": {}, "type": "tool_call"}]});
    let d = decode_messages(std::slice::from_ref(&lc), None).unwrap().messages;
    let out = encode_messages(&d, Format::Openai);
    assert_eq!(out[0]["content"], json!([{"type": "text", "text": "Checking."}]));
    assert_eq!(out[0]["tool_calls"][0]["id"], "t1");
}

/// An OpenAI assistant `refusal` is the model's answer: other formats get it as text, never an
/// empty message (found by the fresh-eyes pass of issue 16); OpenAI itself keeps the field.
#[test]
fn an_openai_refusal_is_text_elsewhere() {
    let refused = vec![
        json!({"role": "user", "content": "x"}),
        json!({"role": "assistant", "content": null, "refusal": "I can't help with that"}),
    ];
    let d = decode_messages(&refused, None).unwrap().messages;
    assert_eq!(encode_messages(&d, Format::Openai), refused);
    assert_eq!(
        encode_messages(&d, Format::Anthropic)[1]["content"],
        json!([{"type": "text", "text": "I can't help with that"}])
    );
    assert!(serde_json::to_string(&encode_messages(&d, Format::Gemini)).unwrap().contains("I can't help with that"));
}

/// An empty id pairs nothing: a call with id "" is an invalid call, a result for "" has no id
/// (docs/errors.md; found by the fresh-eyes pass of issue 16).
#[test]
fn empty_call_ids_are_refused() {
    let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "", "type": "function", "function": {"name": "f", "arguments": "{}"}}]});
    assert_eq!(decode_messages(&[call], None).unwrap_err().code, ErrorCode::InvalidToolCall);
    let result = json!({"role": "tool", "tool_call_id": "", "content": "x"});
    assert_eq!(decode_messages(&[result], None).unwrap_err().code, ErrorCode::MissingToolCallId);
}

/// An invalid call (arguments that are not JSON) goes to Anthropic and Gemini with an empty input,
/// as their object-typed inputs require, and a text note beside it keeps what the model sent.
#[test]
fn an_invalid_call_keeps_its_raw_arguments_in_a_note_where_input_must_be_an_object() {
    let openai = [
        json!({"role": "user", "content": "weather?"}),
        json!({"role": "assistant", "content": "Checking.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": Par"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "Error: the arguments are not valid JSON"}),
    ];
    let m = decode_messages(&openai, None).unwrap().messages;
    let note =
        "[tool call c1 (weather) was sent with empty input: its arguments are not a JSON object: {\"city\": Par]";
    let anthropic = encode_messages(&m, Format::Anthropic);
    assert_eq!(
        anthropic[1]["content"],
        json!([{"type": "text", "text": "Checking."}, {"type": "text", "text": note}, {"type": "tool_use", "id": "c1", "name": "weather", "input": {}}])
    );
    let gemini = encode_messages(&m, Format::Gemini);
    assert_eq!(gemini[1]["parts"][1], json!({"text": note}));
    assert_eq!(gemini[1]["parts"][2]["functionCall"]["args"], json!({}));
    // Where a format carries the raw text, no note: OpenAI round-trips it, the AI SDK keeps it.
    assert_eq!(encode_messages(&m, Format::Openai)[1], openai[1]);
    assert!(!encode_messages(&m, Format::AiSdk)[1].to_string().contains("was sent with empty input"));
}

/// A part without `type` in a format whose parts are typed is refused naming what was seen (a
/// Gemini part in an OpenAI-shaped message, a typo) — never carried as an unknown part whose text
/// no other format would send. A tool result may hold any JSON.
#[test]
fn an_untyped_part_is_refused_outside_gemini_and_tool_results() {
    for (format, msg) in [
        (None, json!({"role": "user", "content": [{"text": "hi"}]})),
        (Some(Format::Openai), json!({"role": "user", "content": {"text": "hi"}})),
        (
            Some(Format::Anthropic),
            json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"txt": "typo"}]}),
        ),
        (Some(Format::Langchain), json!({"type": "human", "content": [{"text": "hi"}]})),
    ] {
        let read = match format {
            Some(f) => decode_messages_as(std::slice::from_ref(&msg), f),
            None => decode_messages(std::slice::from_ref(&msg), None),
        };
        let e = read.unwrap_err();
        assert_eq!(
            (e.code, e.index, e.field.as_deref()),
            (ErrorCode::InvalidMessage, Some(0), Some("content")),
            "{msg}"
        );
        assert!(e.message.contains("without a `type`"), "{}", e.message);
    }
    let e = decode_messages(&[json!({"role": "user", "content": [{"text": "hi"}]})], None).unwrap_err();
    assert!(e.message.contains("Gemini part"), "{}", e.message);
    // A tool result's JSON object, a Gemini part and a typed unknown block still read.
    let ok = [
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": {"temperature": 18}}),
    ];
    assert_eq!(decode_messages(&ok, None).unwrap().messages.len(), 2);
    assert!(decode_messages_as(
        &[json!({"role": "user", "parts": [{"text": "hi"}, {"executableCode": {"code": "1"}}]})],
        Format::Gemini
    )
    .is_ok());
    assert!(decode_messages_as(
        &[json!({"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]})],
        Format::Openai
    )
    .is_ok());
}

/// A LangChain ChatMessage dict (`{type: "chat", role, content}`) is LangChain's, and refused as
/// a ChatMessage naming its role — not read as an OpenAI message carrying a stray `type` key.
#[test]
fn a_chat_message_dict_is_refused_as_langchain() {
    for ty in ["chat", "generic"] {
        let e = decode_messages(&[json!({"type": ty, "role": "user", "content": "hi"})], None).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownRole, "{ty}");
        assert!(e.message.contains("ChatMessage") && e.message.contains("\"user\""), "{}", e.message);
    }
    let m = decode_messages(&[json!({"type": "human", "role": "user", "content": "hi"})], None).unwrap();
    assert_eq!((m.formats[0], m.messages[0].role), (Format::Langchain, crate::message::Role::User));
}

#[test]
fn a_thinking_signature_survives_the_trip_through_the_ai_sdk_and_ui_messages() {
    // The tester's case: Anthropic → ui → Anthropic lost the thinking block (its signature was
    // not written where the AI SDK keeps it), which Anthropic needs back with tool use.
    let anthropic = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "SIG123"},
            {"type": "text", "text": "calling"},
            {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}
        ]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}
    ]);
    let d = decode_messages(anthropic.as_array().unwrap(), None).unwrap();
    let ai = encode_messages(&d.messages, Format::AiSdk);
    assert_eq!(
        ai[1]["content"][0],
        json!({"type": "reasoning", "text": "hmm", "providerOptions": {"anthropic": {"signature": "SIG123"}}})
    );
    let ui = encode_messages(&d.messages, Format::Ui);
    let reasoning = ui[1]["parts"].as_array().unwrap().iter().find(|p| p["type"] == "reasoning").unwrap().clone();
    assert_eq!(reasoning["providerMetadata"], json!({"anthropic": {"signature": "SIG123"}}));
    // Back to Anthropic from either: the signed thinking block again.
    for (via, f) in [(ai, Format::AiSdk), (ui.clone(), Format::Ui)] {
        let back = encode_messages(&decode_messages(&via, Some(f)).unwrap().messages, Format::Anthropic);
        assert_eq!(
            back[1]["content"][0],
            json!({"type": "thinking", "thinking": "hmm", "signature": "SIG123"}),
            "via {f:?}"
        );
    }
    // An AI SDK reasoning part's providerOptions become the UIMessage part's providerMetadata.
    let ai_in = json!([{"role": "assistant", "content": [
        {"type": "reasoning", "text": "r", "providerOptions": {"openai": {"itemId": "rs_1"}}},
        {"type": "text", "text": "t"}
    ]}]);
    let d = decode_messages(ai_in.as_array().unwrap(), None).unwrap();
    let ui = encode_messages(&d.messages, Format::Ui);
    assert_eq!(ui[0]["parts"][0]["providerMetadata"], json!({"openai": {"itemId": "rs_1"}}));
    // Reasoning from a format without such metadata gets none.
    let plain = decode_messages(
        &[json!({"type": "ai", "content": [{"type": "reasoning", "reasoning": "x"}, {"type": "text", "text": "y"}]})],
        None,
    )
    .unwrap();
    let ui = encode_messages(&plain.messages, Format::Ui);
    assert!(ui[0]["parts"].as_array().unwrap().iter().all(|p| p.get("providerMetadata").is_none()));
}

#[test]
fn a_reasoning_items_id_and_encrypted_content_go_where_the_ai_sdk_keeps_them() {
    // Responses (and the Agents SDK's items): the reasoning item's id and encrypted content
    // reach the AI SDK's formats as its OpenAI provider writes them on a reasoning part (they
    // were dropped, so the AI SDK could not send the reasoning back with the call it preceded).
    let item = |enc: Value| {
        json!([
            {"role": "user", "content": "hi"},
            {"type": "reasoning", "id": "rs_1", "summary": [
                {"type": "summary_text", "text": "first"}, {"type": "summary_text", "text": "second"}
            ], "encrypted_content": enc},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "r"}
        ])
    };
    let d = decode_messages(item(json!("ENC")).as_array().unwrap(), Some(Format::Responses)).unwrap();
    let meta = json!({"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "ENC"}});
    let ai = encode_messages(&d.messages, Format::AiSdk);
    assert_eq!(
        ai[1]["content"],
        json!([
            {"type": "reasoning", "text": "first", "providerOptions": meta},
            {"type": "reasoning", "text": "second", "providerOptions": meta},
            {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}
        ])
    );
    let ui = encode_messages(&d.messages, Format::Ui);
    let reasoning: Vec<&Value> =
        ui[1]["parts"].as_array().unwrap().iter().filter(|p| p["type"] == "reasoning").collect();
    assert_eq!(reasoning.len(), 2);
    assert!(reasoning.iter().all(|p| p["providerMetadata"] == meta), "{reasoning:?}");
    // The UIMessage goes on to the AI SDK with the same options (providerMetadata → providerOptions).
    let ui_back = decode_messages(&ui, Some(Format::Ui)).unwrap();
    assert_eq!(encode_messages(&ui_back.messages, Format::AiSdk)[1]["content"][0]["providerOptions"], meta);
    // Without encrypted content: the item id alone; the Agents SDK's item the same way.
    let d = decode_messages(item(Value::Null).as_array().unwrap(), Some(Format::Responses)).unwrap();
    assert_eq!(
        encode_messages(&d.messages, Format::AiSdk)[1]["content"][0]["providerOptions"],
        json!({"openai": {"itemId": "rs_1"}})
    );
    let agents = json!([
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_2", "content": [{"type": "input_text", "text": "why"}],
         "providerData": {"encrypted_content": "ENC2"}},
        {"role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "done"}]}
    ]);
    let d = decode_messages(agents.as_array().unwrap(), Some(Format::OpenaiAgents)).unwrap();
    assert_eq!(
        encode_messages(&d.messages, Format::AiSdk)[1]["content"][0],
        json!({"type": "reasoning", "text": "why",
               "providerOptions": {"openai": {"itemId": "rs_2", "reasoningEncryptedContent": "ENC2"}}})
    );
    // The encrypted content goes to no format that cannot send it back, and the item formats get
    // their items back unchanged.
    let d = decode_messages(item(json!("ENC")).as_array().unwrap(), Some(Format::Responses)).unwrap();
    for f in [Format::Anthropic, Format::Gemini, Format::Openai, Format::Langchain] {
        let text = serde_json::to_string(&encode_messages(&d.messages, f)).unwrap();
        assert!(!text.contains("ENC"), "{f:?}: {text}");
    }
    assert_eq!(encode_messages(&d.messages, Format::Responses)[1], item(json!("ENC"))[1]);
}

#[test]
fn the_ai_sdks_openai_reasoning_goes_back_to_responses_as_its_reasoning_item() {
    // Responses → ai-sdk / ui → Responses: the reasoning item again (id, summary, encrypted
    // content), before its call, as the AI SDK's OpenAI provider sends it.
    let items = json!([
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "summary": [
            {"type": "summary_text", "text": "first"}, {"type": "summary_text", "text": "second"}
        ], "encrypted_content": "ENC"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "r"}
    ]);
    let d = decode_messages(items.as_array().unwrap(), Some(Format::Responses)).unwrap();
    for via in [Format::AiSdk, Format::Ui] {
        let there = encode_messages(&d.messages, via);
        let back = encode_messages(&decode_messages(&there, Some(via)).unwrap().messages, Format::Responses);
        assert_eq!(back[1], items[1], "via {via:?}");
        assert_eq!(back[2]["type"], "function_call", "via {via:?}");
        // The Agents SDK's reasoning item, from the same parts.
        let agents = encode_messages(&decode_messages(&there, Some(via)).unwrap().messages, Format::OpenaiAgents);
        assert_eq!(
            agents[1],
            json!({"type": "reasoning", "id": "rs_1", "content": [
                {"type": "input_text", "text": "first"}, {"type": "input_text", "text": "second"}
            ], "providerData": {"encrypted_content": "ENC"}}),
            "via {via:?}"
        );
    }
    // Parts of one item id make one item (empty text adds no entry, the last encrypted content
    // given stands); a part without an item id, or reasoning for another provider, is not sent.
    let ai = json!([{"role": "assistant", "content": [
        {"type": "reasoning", "text": "", "providerOptions": {"openai": {"itemId": "rs_9"}}},
        {"type": "reasoning", "text": "why", "providerOptions": {"openai": {"itemId": "rs_9", "reasoningEncryptedContent": "E9"}}},
        {"type": "reasoning", "text": "no id", "providerOptions": {"openai": {"reasoningEncryptedContent": "E0"}}},
        {"type": "reasoning", "text": "signed", "providerOptions": {"anthropic": {"signature": "S"}}},
        {"type": "text", "text": "answer"}
    ]}]);
    let d = decode_messages(ai.as_array().unwrap(), Some(Format::AiSdk)).unwrap();
    assert_eq!(
        encode_messages(&d.messages, Format::Responses),
        vec![
            json!({"type": "reasoning", "id": "rs_9", "summary": [{"type": "summary_text", "text": "why"}], "encrypted_content": "E9"}),
            json!({"role": "assistant", "content": "answer"})
        ]
    );
}

#[test]
fn a_call_id_on_a_message_that_is_not_a_tool_result_is_refused() {
    // A result sent as a user message: read past, repair answered the call with a placeholder
    // while the real result sat in that message (fresh-eyes finding). OpenAI's API refuses it too.
    let call = json!({"role": "assistant", "content": null,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]});
    for m in [
        json!({"role": "user", "content": "the result", "tool_call_id": "c1"}),
        json!({"role": "assistant", "content": "x", "tool_call_id": "c1"}),
        json!({"type": "human", "content": "x", "tool_call_id": "c1"}),
        json!({"type": "system", "content": "x", "tool_call_id": "c1"}),
    ] {
        let e = decode_messages(&[call.clone(), m.clone()], None).unwrap_err();
        assert_eq!(
            (e.code, e.index, e.field.as_deref()),
            (ErrorCode::InvalidMessage, Some(1), Some("tool_call_id")),
            "{m}"
        );
    }
    // Absent or null is no id; a tool result keeps its own.
    for m in [
        json!({"role": "user", "content": "x", "tool_call_id": null}),
        json!({"type": "ai", "content": "x", "tool_call_id": null}),
        json!({"role": "tool", "content": "r", "tool_call_id": "c1"}),
    ] {
        assert!(decode_messages(&[call.clone(), m.clone()], None).is_ok(), "{m}");
    }
}

#[test]
fn a_lone_image_message_is_read_as_the_format_its_image_part_names() {
    // A first user turn with an image, alone: read as OpenAI's (which has no `image` part), the
    // image was a note in every format, Anthropic's own included (fresh-eyes finding).
    let anthropic = json!({"role": "user", "content": [
        {"type": "text", "text": "What is in this image?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    ]});
    let d = decode_messages(std::slice::from_ref(&anthropic), None).unwrap();
    assert_eq!(d.formats, vec![Format::Anthropic]);
    assert_eq!(encode_messages(&d.messages, Format::Anthropic)[0], anthropic);
    assert_eq!(
        encode_messages(&d.messages, Format::Openai)[0]["content"][1],
        json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}})
    );
    let ai = json!({"role": "user", "content": [
        {"type": "text", "text": "And this?"}, {"type": "image", "image": "https://example.com/a.png"}
    ]});
    let d = decode_messages(std::slice::from_ref(&ai), None).unwrap();
    assert_eq!(d.formats, vec![Format::AiSdk]);
    assert_eq!(encode_messages(&d.messages, Format::AiSdk)[0], ai);
    assert_eq!(
        encode_messages(&d.messages, Format::Openai)[0]["content"][1],
        json!({"type": "image_url", "image_url": {"url": "https://example.com/a.png"}})
    );
    // Both keys on one part: two formats, refused.
    let both =
        json!({"role": "user", "content": [{"type": "image", "image": "x", "source": {"type": "url", "url": "y"}}]});
    let e = decode_messages(&[both], None).unwrap_err();
    assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidMessage, Some("content")));
}

#[test]
fn redacted_thinking_travels_through_the_ai_sdk_as_its_anthropic_provider_keeps_it() {
    // Anthropic → ai-sdk / ui → Anthropic lost the redacted_thinking block, which Anthropic wants
    // back unchanged in a tool-use turn (fresh-eyes finding).
    let anthropic = json!([
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [
            {"type": "redacted_thinking", "data": "BLOB"},
            {"type": "text", "text": "calling"},
            {"type": "tool_use", "id": "t1", "name": "f", "input": {}}
        ]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]}
    ]);
    let d = decode_messages(anthropic.as_array().unwrap(), None).unwrap();
    let ai = encode_messages(&d.messages, Format::AiSdk);
    assert_eq!(
        ai[1]["content"][0],
        json!({"type": "reasoning", "text": "", "providerOptions": {"anthropic": {"redactedData": "BLOB"}}})
    );
    let ui = encode_messages(&d.messages, Format::Ui);
    assert_eq!(
        ui[1]["parts"].as_array().unwrap().iter().find(|p| p["type"] == "reasoning").unwrap()["providerMetadata"],
        json!({"anthropic": {"redactedData": "BLOB"}})
    );
    for (via, f) in [(ai, Format::AiSdk), (ui, Format::Ui)] {
        let back = encode_messages(&decode_messages(&via, Some(f)).unwrap().messages, Format::Anthropic);
        assert_eq!(back[1]["content"][0], json!({"type": "redacted_thinking", "data": "BLOB"}), "via {f:?}");
        assert_eq!(back[1]["content"].as_array().unwrap().len(), 3, "via {f:?}");
    }
    // Formats that cannot send it back get nothing of it (no note: it carries nothing to read).
    let openai = serde_json::to_string(&encode_messages(&d.messages, Format::Openai)).unwrap();
    assert!(!openai.contains("BLOB") && !openai.contains("redacted"), "{openai}");
}

#[test]
fn arguments_escaping_a_lone_surrogate_go_out_as_sent() {
    // ASCII JSON text whose string escapes a lone surrogate: read as U+FFFD (as every path reads
    // it), but the text itself went out rewritten (fresh-eyes finding: "arguments kept as sent").
    let args = r#"{"q":"a\ud800b"}"#;
    let m = json!({"role": "assistant", "content": null,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": args}}]});
    let d = decode_messages(&[m], None).unwrap();
    assert_eq!(d.messages[0].tool_calls[0].args, json!({"q": "a\u{FFFD}b"}));
    assert_eq!(encode_messages(&d.messages, Format::Openai)[0]["tool_calls"][0]["function"]["arguments"], args);
}

#[test]
fn a_multimodal_tool_result_goes_to_a_text_output_as_text_and_notes_never_as_stategates_parts() {
    // To a UIMessage tool part the result was stategate's canonical parts as JSON text (`extra`
    // and all), and an Anthropic image went on as its base64 inside it (fresh-eyes finding).
    let items = json!([
        {"role": "user", "content": "shot"},
        {"type": "function_call", "call_id": "c1", "name": "shot", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": [
            {"type": "input_text", "text": "here"},
            {"type": "input_image", "image_url": "https://x/y.png", "detail": "auto"}
        ]}
    ]);
    let d = decode_messages(items.as_array().unwrap(), Some(Format::Responses)).unwrap();
    let ui = encode_messages(&d.messages, Format::Ui);
    let output = &ui[1]["parts"][0]["output"];
    assert_eq!(output, &json!("here\n[image omitted: this provider takes only text in tool results]"));
    let anthropic = json!([
        {"role": "user", "content": "shot"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "shot", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
            {"type": "text", "text": "here"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
        ]}]}
    ]);
    let d = decode_messages(anthropic.as_array().unwrap(), None).unwrap();
    // (The AI SDK takes it as a `content` output with the image: see
    // `a_tool_results_images_and_files_reach_the_ai_sdk_as_a_content_output`.)
    for f in [Format::Ui, Format::Openai, Format::Gemini] {
        let text = serde_json::to_string(&encode_messages(&d.messages, f)).unwrap();
        assert!(!text.contains("iVBORw0KGgo") && !text.contains("\\\"extra\\\""), "{f:?}: {text}");
        assert!(text.contains("[image omitted"), "{f:?}: {text}");
    }
}

#[test]
fn interleaved_reasoning_and_calls_keep_their_order_into_the_ai_sdk() {
    // Two reasoning items each before its call: the AI SDK got both reasoning parts first, then
    // both calls (fresh-eyes finding), which its OpenAI provider sends back in that order.
    let items = json!([
        {"role": "user", "content": "go"},
        {"type": "reasoning", "id": "rs_a", "summary": [{"type": "summary_text", "text": "A"}], "encrypted_content": "EA"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "reasoning", "id": "rs_b", "summary": [{"type": "summary_text", "text": "B"}], "encrypted_content": "EB"},
        {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "1"},
        {"type": "function_call_output", "call_id": "c2", "output": "2"}
    ]);
    let d = decode_messages(items.as_array().unwrap(), Some(Format::Responses)).unwrap();
    let order = |content: &Value| -> Vec<String> {
        content
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                format!(
                    "{}:{}",
                    p["type"].as_str().unwrap(),
                    p.get("toolCallId").or(p.get("text")).unwrap().as_str().unwrap()
                )
            })
            .collect()
    };
    let ai = encode_messages(&d.messages, Format::AiSdk);
    assert_eq!(order(&ai[1]["content"]), ["reasoning:A", "tool-call:c1", "reasoning:B", "tool-call:c2"]);
    let ui = encode_messages(&d.messages, Format::Ui);
    let kinds: Vec<&str> = ui[1]["parts"].as_array().unwrap().iter().map(|p| p["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["reasoning", "tool-f", "reasoning", "tool-g"]);
    // Back from the AI SDK message, which keeps each call's place among its parts: each reasoning
    // item before its own call, with its id and encrypted content, as the items came (the two
    // reasoning items had been dropped: which call each led to was not kept).
    let from_ai = decode_messages(&ai, Some(Format::AiSdk)).unwrap().messages;
    assert_eq!(Value::Array(encode_messages(&from_ai, Format::Responses)), items);
    // And back to the AI SDK in the same order (the calls had gone after both reasoning parts).
    assert_eq!(encode_messages(&from_ai, Format::AiSdk), ai);
}

#[test]
fn ai_sdk_calls_go_to_responses_in_their_places() {
    // An AI SDK assistant message as its OpenAI provider gives it: reasoning, a call, text,
    // reasoning, a call, each with OpenAI's item id. The provider sends the items in that order
    // (convert-to-openai-responses-input, store: false), reasoning with its id and encrypted
    // content; so does stategate (tests/js/responses.test.mjs compares with @ai-sdk/openai).
    let openai = |id: &str| json!({"openai": {"itemId": id}});
    let msgs = json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "reasoning", "text": "a", "providerOptions": {"openai": {"itemId": "rs_a", "reasoningEncryptedContent": "EA"}}},
            {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}, "providerOptions": openai("fc_1")},
            {"type": "text", "text": "between", "providerOptions": openai("msg_1")},
            {"type": "reasoning", "text": "b", "providerOptions": {"openai": {"itemId": "rs_b", "reasoningEncryptedContent": "EB"}}},
            {"type": "tool-call", "toolCallId": "c2", "toolName": "g", "input": {"x": 1}, "providerOptions": openai("fc_2")}
        ]}
    ]);
    let d = decode_messages(msgs.as_array().unwrap(), None).unwrap();
    let items = encode_messages(&d.messages, Format::Responses);
    let seen: Vec<String> = items
        .iter()
        .map(|i| {
            let kind = i.get("type").and_then(Value::as_str).unwrap_or("message");
            let id = i.get("id").or_else(|| i.get("call_id")).and_then(Value::as_str).unwrap_or("-");
            format!("{kind}:{id}")
        })
        .collect();
    assert_eq!(
        seen,
        ["message:-", "reasoning:rs_a", "function_call:c1", "message:-", "reasoning:rs_b", "function_call:c2"]
    );
    assert_eq!(items[5]["arguments"], "{\"x\":1}");
    assert_eq!(items[4]["encrypted_content"], "EB");
    // The AI SDK message goes back to itself unchanged, calls in their places, no position key.
    assert_eq!(Value::Array(encode_messages(&d.messages, Format::AiSdk)), msgs);
    // A UIMessage gets the parts in the same order.
    let ui = encode_messages(&d.messages, Format::Ui);
    let kinds: Vec<&str> = ui[1]["parts"].as_array().unwrap().iter().map(|p| p["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["reasoning", "tool-f", "text", "reasoning", "tool-g"]);
}

#[test]
fn raw_reasoning_text_goes_across_between_the_two_item_formats() {
    // The API's `content` (reasoning_text) is the Agents SDK's `rawContent`; it was dropped both
    // ways (fresh-eyes finding).
    let api = json!([{"role": "user", "content": "go"},
        {"type": "reasoning", "id": "rs_c", "summary": [{"type": "summary_text", "text": "sum"}],
         "content": [{"type": "reasoning_text", "text": "raw chain"}], "encrypted_content": "E"}]);
    let d = decode_messages(api.as_array().unwrap(), Some(Format::Responses)).unwrap();
    let agents = encode_messages(&d.messages, Format::OpenaiAgents);
    assert_eq!(agents[1]["rawContent"], json!([{"type": "reasoning_text", "text": "raw chain"}]));
    let back =
        encode_messages(&decode_messages(&agents, Some(Format::OpenaiAgents)).unwrap().messages, Format::Responses);
    assert_eq!(back[1], api[1]);
}

#[test]
fn langchain_standard_blocks_go_back_in_their_dialect_and_out_as_every_langchain_reads_them() {
    // Fresh-eyes findings: an image to `langchain` was written with Python v1's keys (`base64`),
    // which LangChain JS does not read (ChatAnthropic dropped it); a v0 block came back with
    // `data` renamed; JS's `mimeType` was not read; an Anthropic block in a LangChain message
    // was a note even to Anthropic.
    let png = "iVBORw0KGgo=";
    let exact = [
        json!({"type": "image", "source_type": "base64", "data": png, "mime_type": "image/png"}),
        json!({"type": "image", "source_type": "url", "url": "https://x/a.png"}),
        json!({"type": "file", "source_type": "id", "id": "file-1"}),
        json!({"type": "image", "data": png, "mimeType": "image/png"}),
        json!({"type": "file", "fileId": "file-2", "mimeType": "application/pdf"}),
        json!({"type": "image", "base64": png, "mime_type": "image/png"}),
        json!({"type": "file", "file_id": "file-3", "filename": "r.pdf"}),
        // A stray `source` beside a standard block's keys is not an Anthropic block.
        json!({"type": "image", "url": "https://x/c.png", "source": "camera"}),
        json!({"type": "file", "url": "https://x/d.pdf", "source": {"kind": "upload"}}),
    ];
    for block in exact {
        let m = json!({"type": "human", "content": [block.clone()]});
        let d = decode_messages(std::slice::from_ref(&m), None).unwrap();
        assert_eq!(encode_messages(&d.messages, Format::Langchain)[0]["content"][0], block);
    }
    // From another format: v0's keys.
    let anthropic = json!({"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}]});
    let d = decode_messages(std::slice::from_ref(&anthropic), None).unwrap();
    assert_eq!(
        encode_messages(&d.messages, Format::Langchain)[0]["content"][0],
        json!({"type": "image", "source_type": "base64", "data": png, "mime_type": "image/png"})
    );
    // JS's `mimeType` is the media type: a PDF goes to Anthropic as a document.
    let js = json!({"type": "human", "content": [{"type": "file", "data": "JVBERi0x", "mimeType": "application/pdf"}]});
    let d = decode_messages(std::slice::from_ref(&js), None).unwrap();
    assert_eq!(encode_messages(&d.messages, Format::Anthropic)[0]["content"][0]["type"], "document");
    // An Anthropic image block inside a LangChain message is an image.
    let lc =
        json!({"type": "human", "content": [{"type": "image", "source": {"type": "url", "url": "https://x/b.png"}}]});
    let d = decode_messages(std::slice::from_ref(&lc), None).unwrap();
    assert_eq!(
        encode_messages(&d.messages, Format::Anthropic)[0]["content"][0],
        json!({"type": "image", "source": {"type": "url", "url": "https://x/b.png"}})
    );
    assert_eq!(encode_messages(&d.messages, Format::Langchain)[0], lc);
}

#[test]
fn ai_sdk_content_and_denied_outputs_are_read_and_go_back_as_they_came() {
    // Fresh-eyes findings: a `content` output's image became a note even ai-sdk → ai-sdk, and an
    // `execution-denied` output (AI SDK 6) was read as its own JSON, shown as a success in `ui`.
    let png = "iVBORw0KGgo=";
    let history = json!([
        {"role": "user", "content": "shot"},
        {"role": "assistant", "content": [
            {"type": "tool-call", "toolCallId": "c1", "toolName": "shot", "input": {}},
            {"type": "tool-call", "toolCallId": "c2", "toolName": "pay", "input": {}}
        ]},
        {"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "c1", "toolName": "shot", "output": {"type": "content", "value": [
                {"type": "text", "text": "here"}, {"type": "image-data", "data": png, "mediaType": "image/png"}
            ]}},
            {"type": "tool-result", "toolCallId": "c2", "toolName": "pay",
             "output": {"type": "execution-denied", "reason": "too expensive"}}
        ]}
    ]);
    let d = decode_messages(history.as_array().unwrap(), Some(Format::AiSdk)).unwrap();
    assert_eq!(encode_messages(&d.messages, Format::AiSdk)[2], history[2]);
    let anthropic = encode_messages(&d.messages, Format::Anthropic);
    let results = anthropic[2]["content"].as_array().unwrap();
    assert_eq!(results[0]["content"][1]["source"], json!({"type": "base64", "media_type": "image/png", "data": png}));
    assert_eq!((results[1]["content"].as_str(), &results[1]["is_error"]), (Some("too expensive"), &json!(true)));
    let openai = encode_messages(&d.messages, Format::Openai);
    assert_eq!(openai[3]["content"], "too expensive");
    let ui = encode_messages(&d.messages, Format::Ui);
    let pay = ui[1]["parts"].as_array().unwrap().iter().find(|p| p["toolCallId"] == "c2").unwrap().clone();
    assert_eq!((pay["state"].as_str(), pay["errorText"].as_str()), (Some("output-error"), Some("too expensive")));
}

#[test]
fn a_file_in_a_tool_result_goes_to_the_item_formats_as_an_input_file() {
    // `ResponseFunctionCallOutputItem` takes `input_file` (the Agents SDK too); the file was a
    // note saying the provider takes only text (fresh-eyes finding).
    let anthropic = json!([
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "fetch", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
            {"type": "text", "text": "the report"},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"}}
        ]}]}
    ]);
    let d = decode_messages(anthropic.as_array().unwrap(), None).unwrap();
    let responses = encode_messages(&d.messages, Format::Responses);
    assert_eq!(
        responses[2]["output"],
        // Inline file data goes with a filename, which the API requires (fresh-eyes finding).
        json!([{"type": "input_text", "text": "the report"},
               {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0x", "filename": "document.pdf"}])
    );
    let agents = encode_messages(&d.messages, Format::OpenaiAgents);
    assert_eq!(agents[2]["output"][1]["type"], "input_file");
}

#[test]
fn ai_sdk_reasoning_and_text_go_to_responses_in_the_messages_order() {
    // Fresh-eyes finding: every reasoning item came first, so `[rs_1, "mid", rs_2, "end"]` put
    // rs_1 right before rs_2 (which the API refuses) and a text before its reasoning moved after it.
    let r = |id: &str, text: &str| json!({"type": "reasoning", "text": text, "providerOptions": {"openai": {"itemId": id, "reasoningEncryptedContent": "E"}}});
    let kinds = |m: Value| -> Vec<String> {
        let d = decode_messages(&[m], Some(Format::AiSdk)).unwrap();
        encode_messages(&d.messages, Format::Responses)
            .iter()
            .map(|i| match i.get("type").and_then(Value::as_str) {
                Some("reasoning") => i["id"].as_str().unwrap().to_string(),
                Some(t) => t.to_string(),
                None => i["content"].as_str().unwrap().to_string(),
            })
            .collect()
    };
    let m = json!({"role": "assistant", "content": [r("rs_1", "a"), {"type": "text", "text": "mid"}, r("rs_2", "b"), {"type": "text", "text": "end"}]});
    assert_eq!(kinds(m), ["rs_1", "mid", "rs_2", "end"]);
    let m = json!({"role": "assistant", "content": [
        {"type": "text", "text": "first"}, r("rs_1", "a"),
        {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}
    ]});
    assert_eq!(kinds(m), ["first", "rs_1", "function_call"]);
    // Without its encrypted content a reasoning item only refers to one the API stored, which
    // `store: false` answers with 404: it is left out, as the AI SDK's provider leaves it out
    // (fresh-eyes finding, against @ai-sdk/openai 3).
    let bare = json!({"type": "reasoning", "text": "a", "providerOptions": {"openai": {"itemId": "rs_1", "reasoningEncryptedContent": null}}});
    let m = json!({"role": "assistant", "content": [bare, {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}]});
    assert_eq!(kinds(m), ["function_call"]);
}
