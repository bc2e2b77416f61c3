//! AI SDK messages (ModelMessages and UIMessages) against what the AI SDK's own providers send
//! (`@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/google` 3, recorded by fresh-eyes rounds;
//! `tests/js/responses.test.mjs` compares with `@ai-sdk/openai` itself): provider-executed
//! tools, file ids, JSON-text inputs, thought signatures, `detail`, `phase`, document titles,
//! media in tool results, and calls in their places among a message's parts.

use super::*;
use crate::message::Role;
use serde_json::json;

#[test]
fn ai_sdk_file_ids_and_json_text_inputs_read_as_the_ai_sdk_providers_send_them() {
    // Each as the AI SDK's own providers send it (fresh-eyes findings, against @ai-sdk/openai and
    // @ai-sdk/anthropic 3): an OpenAI file id in a `file` part is a file id, not base64 data;
    // a tool call's input given as JSON text is its arguments' text, not a JSON string; an inline
    // PDF gets the filename OpenAI requires.
    let msgs = json!([
        {"role": "user", "content": [
            {"type": "file", "data": "file-abc123", "mediaType": "application/pdf"},
            {"type": "file", "data": "JVBERi0x", "mediaType": "application/pdf"}
        ]},
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": "{\"city\":\"Paris\"}"}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "weather", "output": {"type": "text", "value": "18C"}}]}
    ]);
    let d = decode_messages(msgs.as_array().unwrap(), None).unwrap();
    let responses = encode_messages(&d.messages, Format::Responses);
    assert_eq!(responses[0]["content"][0], json!({"type": "input_file", "file_id": "file-abc123"}));
    assert_eq!(responses[0]["content"][1]["filename"], "document.pdf");
    assert_eq!(responses[1]["arguments"], "{\"city\":\"Paris\"}");
    let openai = encode_messages(&d.messages, Format::Openai);
    assert_eq!(openai[0]["content"][0], json!({"type": "file", "file": {"file_id": "file-abc123"}}));
    assert_eq!(openai[1]["tool_calls"][0]["function"]["arguments"], "{\"city\":\"Paris\"}");
    let anthropic = encode_messages(&d.messages, Format::Anthropic);
    assert_eq!(anthropic[1]["content"][0]["input"], json!({"city": "Paris"}));
    // Back to the AI SDK as they came: the file id as its data, the input as its text.
    assert_eq!(Value::Array(encode_messages(&d.messages, Format::AiSdk)), msgs);
}

#[test]
fn a_provider_executed_ai_sdk_call_is_not_a_call_the_caller_must_answer() {
    // `generateText` with a provider-executed tool (Anthropic's web search) writes the call and
    // its result in the assistant message. The call was read as the caller's, moved after the
    // answer, with no result: repair then "answered" a search that had completed (fresh-eyes
    // finding). Both are kept in place; another format gets a note for the result.
    let msgs = json!([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Let me search."},
            {"type": "tool-call", "toolCallId": "srvtoolu_1", "toolName": "web_search", "input": {"query": "paris"}, "providerExecuted": true},
            {"type": "tool-result", "toolCallId": "srvtoolu_1", "toolName": "web_search", "output": {"type": "json", "value": [{"url": "https://w.example", "title": "W"}]}},
            {"type": "text", "text": "It is 18C."}
        ]}
    ]);
    let d = decode_messages(msgs.as_array().unwrap(), None).unwrap();
    assert!(d.messages[1].tool_calls.is_empty());
    let (repaired, _) = crate::repair::repair(&d.messages, &crate::repair::RepairOptions::default());
    assert_eq!(repaired, d.messages, "nothing to repair");
    assert_eq!(Value::Array(encode_messages(&d.messages, Format::AiSdk)), msgs);
    let anthropic = encode_messages(&d.messages, Format::Anthropic);
    let texts: Vec<&str> =
        anthropic[1]["content"].as_array().unwrap().iter().filter_map(|p| p["text"].as_str()).collect();
    assert_eq!(texts[0], "Let me search.");
    assert!(texts[1].contains("provider-executed tool web_search"), "{texts:?}");
    assert_eq!(texts[2], "It is 18C.");
    assert!(anthropic[1]["content"].as_array().unwrap().iter().all(|p| p["type"] == "text"));
    // The Responses API gets each text as its own item, the note in its place between them.
    let items = encode_messages(&d.messages, Format::Responses);
    let said: Vec<String> = items[1..].iter().map(|i| serde_json::to_string(&i["content"]).unwrap()).collect();
    assert_eq!(said.len(), 3, "{items:?}");
    assert!(
        said[0].contains("Let me search.") && said[1].contains("provider-executed") && said[2].contains("18C"),
        "{said:?}"
    );
}

#[test]
fn gemini_thought_signatures_travel_with_their_parts_through_the_ai_sdk() {
    // Gemini 3 refuses a replayed function call without its thought signature (HTTP 400); the AI
    // SDK's Google provider keeps it as `providerOptions.google.thoughtSignature` on each part.
    // Both directions dropped it (fresh-eyes finding, against @ai-sdk/google 3).
    let gemini = json!([
        {"role": "user", "parts": [{"text": "weather?"}]},
        {"role": "model", "parts": [
            {"text": "think", "thought": true, "thoughtSignature": "TS0"},
            {"text": "Checking.", "thoughtSignature": "TS2"},
            {"functionCall": {"id": "fc1", "name": "weather", "args": {"city": "Paris"}}, "thoughtSignature": "TS1"}
        ]}
    ]);
    let d = decode_messages(gemini.as_array().unwrap(), None).unwrap();
    let ai = encode_messages(&d.messages, Format::AiSdk);
    let sig = |p: &Value| p["providerOptions"]["google"]["thoughtSignature"].clone();
    let parts = ai[1]["content"].as_array().unwrap();
    assert_eq!(parts.iter().map(sig).collect::<Vec<_>>(), [json!("TS0"), json!("TS2"), json!("TS1")]);
    // And from the AI SDK's message back to Gemini, each signature on its part.
    let back = encode_messages(&decode_messages(&ai, Some(Format::AiSdk)).unwrap().messages, Format::Gemini);
    assert_eq!(Value::Array(back), gemini);
    // Through a UIMessage too (`providerMetadata`, a tool part's `callProviderMetadata`, which
    // `convertToModelMessages` reads back): gemini → ui → gemini lost the call's signature.
    let ui = encode_messages(&d.messages, Format::Ui);
    let parts = ui[1]["parts"].as_array().unwrap();
    assert_eq!(parts[2]["callProviderMetadata"]["google"]["thoughtSignature"], "TS1");
    assert_eq!(parts[1]["providerMetadata"]["google"]["thoughtSignature"], "TS2");
    let back = encode_messages(&decode_messages(&ui, Some(Format::Ui)).unwrap().messages, Format::Gemini);
    assert_eq!(back[1], gemini[1]);
}

#[test]
fn an_assistant_items_phase_travels_between_responses_and_the_ai_sdk() {
    // The API asks for `phase` back on every assistant message (commentary vs final answer); the
    // AI SDK's OpenAI provider keeps it on the text parts (`providerOptions.openai.phase`) and
    // sends it back. Both directions dropped it (fresh-eyes finding, against @ai-sdk/openai 3).
    let items = json!([
        {"role": "user", "content": "go"},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "phase": "commentary",
         "content": [{"type": "output_text", "text": "Searching.", "annotations": []}]}
    ]);
    let d = decode_messages(items.as_array().unwrap(), Some(Format::Responses)).unwrap();
    let ai = encode_messages(&d.messages, Format::AiSdk);
    assert_eq!(ai[1]["content"][0]["providerOptions"]["openai"]["phase"], "commentary");
    assert_eq!(ai[1]["content"][0]["text"], "Searching.");
    let back = encode_messages(&decode_messages(&ai, Some(Format::AiSdk)).unwrap().messages, Format::Responses);
    assert_eq!(back[1]["phase"], "commentary");
    assert_eq!(back[1]["content"], "Searching.");
}

#[test]
fn an_images_openai_detail_travels_between_openai_responses_and_the_ai_sdk() {
    // `detail` sets an image's resolution and cost; the AI SDK keeps it as
    // `providerOptions.openai.imageDetail` and its OpenAI providers send it. It was dropped both
    // ways (fresh-eyes finding, against @ai-sdk/openai 3).
    let ai = json!([{"role": "user", "content": [
        {"type": "image", "image": "https://x/cat.png", "providerOptions": {"openai": {"imageDetail": "high"}}}
    ]}]);
    let d = decode_messages(ai.as_array().unwrap(), None).unwrap();
    assert_eq!(encode_messages(&d.messages, Format::Openai)[0]["content"][0]["image_url"]["detail"], "high");
    assert_eq!(encode_messages(&d.messages, Format::Responses)[0]["content"][0]["detail"], "high");
    let chat = json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/cat.png", "detail": "low"}}]}]);
    let d = decode_messages(chat.as_array().unwrap(), None).unwrap();
    let to_ai = encode_messages(&d.messages, Format::AiSdk);
    assert_eq!(to_ai[0]["content"][0]["providerOptions"]["openai"]["imageDetail"], "low");
    assert_eq!(encode_messages(&d.messages, Format::Responses)[0]["content"][0]["detail"], "low");
    let back = encode_messages(&decode_messages(&to_ai, Some(Format::AiSdk)).unwrap().messages, Format::Openai);
    assert_eq!(Value::Array(back), chat);
}

#[test]
fn an_anthropic_documents_title_and_url_pdf_travel_as_the_ai_sdk_takes_them() {
    // A URL document is a PDF (Anthropic's `URLPDFSource`), and its `title` is the file name the
    // AI SDK's Anthropic provider writes from a file part's `filename`. The URL document reached
    // the AI SDK as `application/octet-stream`, which the AI SDK refuses to send; the title was
    // lost both ways (fresh-eyes findings, against @ai-sdk/anthropic 3).
    let anthropic = json!([{"role": "user", "content": [
        {"type": "document", "source": {"type": "url", "url": "https://x/q3.pdf"}, "title": "Q3.pdf"},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"}, "title": "Q4.pdf"}
    ]}]);
    let d = decode_messages(anthropic.as_array().unwrap(), None).unwrap();
    let ai = encode_messages(&d.messages, Format::AiSdk);
    assert_eq!(
        ai[0]["content"][0],
        json!({"type": "file", "data": "https://x/q3.pdf", "mediaType": "application/pdf", "filename": "Q3.pdf"})
    );
    assert_eq!(ai[0]["content"][1]["filename"], "Q4.pdf");
    let back = encode_messages(&decode_messages(&ai, Some(Format::AiSdk)).unwrap().messages, Format::Anthropic);
    assert_eq!(Value::Array(back), anthropic);
    assert_eq!(Value::Array(encode_messages(&d.messages, Format::Anthropic)), anthropic);
}

#[test]
fn a_tool_results_images_and_files_reach_the_ai_sdk_as_a_content_output() {
    // An Anthropic tool result with an image went to the AI SDK as text with "[image omitted]",
    // so Anthropic → ai-sdk → Anthropic lost the image; the AI SDK's `content` output carries it
    // and its providers send it on (fresh-eyes finding).
    let anthropic = json!([
        {"role": "user", "content": "chart?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "chart", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [
            {"type": "text", "text": "the chart"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"}}
        ]}]}
    ]);
    let d = decode_messages(anthropic.as_array().unwrap(), None).unwrap();
    let ai = encode_messages(&d.messages, Format::AiSdk);
    assert_eq!(
        ai[2]["content"][0]["output"],
        json!({"type": "content", "value": [
            {"type": "text", "text": "the chart"},
            {"type": "image-data", "data": "iVBORw0KGgo=", "mediaType": "image/png"},
            {"type": "file-data", "data": "JVBERi0x", "mediaType": "application/pdf"}
        ]})
    );
    let back = encode_messages(&decode_messages(&ai, Some(Format::AiSdk)).unwrap().messages, Format::Anthropic);
    assert_eq!(back[2], anthropic[2]);
    // An error result keeps the text form (a content output has no error flag).
    let mut failed = anthropic.clone();
    failed[2]["content"][0]["is_error"] = json!(true);
    let d = decode_messages(failed.as_array().unwrap(), None).unwrap();
    assert_eq!(encode_messages(&d.messages, Format::AiSdk)[2]["content"][0]["output"]["type"], "error-text");
}

#[test]
fn a_ui_steps_reasoning_goes_before_its_text_and_a_files_image_detail_travels() {
    // `useChat` starts each step with `step-start`: the text item was placed by it, before the
    // step's reasoning item (fresh-eyes finding, against convertToModelMessages + @ai-sdk/openai).
    let ui = json!([
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "go"}]},
        {"id": "a1", "role": "assistant", "parts": [
            {"type": "step-start"},
            {"type": "reasoning", "text": "p", "providerMetadata": {"openai": {"itemId": "rs_1", "reasoningEncryptedContent": "E"}}},
            {"type": "text", "text": "ans"}
        ]}
    ]);
    let d = decode_messages(ui.as_array().unwrap(), None).unwrap();
    let items = encode_messages(&d.messages, Format::Responses);
    let kinds: Vec<&str> = items.iter().map(|i| i.get("type").and_then(Value::as_str).unwrap_or("message")).collect();
    assert_eq!(kinds, ["message", "reasoning", "message"]);
    assert_eq!(items[2]["content"], "ans");
    // An image written as a `file` part (as convertToModelMessages writes images) keeps its detail.
    let ai = json!([{"role": "user", "content": [
        {"type": "file", "data": "https://x/cat.png", "mediaType": "image/png", "providerOptions": {"openai": {"imageDetail": "high"}}}
    ]}]);
    let d = decode_messages(ai.as_array().unwrap(), None).unwrap();
    assert_eq!(encode_messages(&d.messages, Format::Openai)[0]["content"][0]["image_url"]["detail"], "high");
    assert_eq!(encode_messages(&d.messages, Format::Responses)[0]["content"][0]["detail"], "high");
}

#[test]
fn a_provider_executed_ui_tool_part_is_not_a_call_the_caller_must_answer() {
    // `useChat` keeps a server-side web search as a tool part marked `providerExecuted`; it was
    // read as the caller's call and result (fresh-eyes finding). Kept in place; a note elsewhere.
    let ui = json!([
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "weather?"}]},
        {"id": "a1", "role": "assistant", "parts": [
            {"type": "tool-web_search", "toolCallId": "srvtoolu_1", "state": "output-available", "providerExecuted": true,
             "input": {"query": "q"}, "output": [{"url": "https://w.example", "title": "W"}]},
            {"type": "text", "text": "It is 18C."}
        ]}
    ]);
    let d = decode_messages(ui.as_array().unwrap(), None).unwrap();
    assert!(d.messages.iter().all(|m| m.tool_calls.is_empty() && m.role != Role::Tool));
    assert_eq!(Value::Array(encode_messages(&d.messages, Format::Ui)), ui);
    let anthropic = serde_json::to_string(&encode_messages(&d.messages, Format::Anthropic)).unwrap();
    assert!(anthropic.contains("provider-executed tool web_search") && !anthropic.contains("tool_use"), "{anthropic}");
}

#[test]
fn a_ui_steps_calls_keep_their_places_into_the_ai_sdk() {
    // [step-start, reasoning, call, reasoning, call]: the calls went after both reasoning parts,
    // which the AI SDK's OpenAI provider then sends as rs_1 rs_2 c1 c2 (fresh-eyes finding,
    // against convertToModelMessages). The `step-start` is not written, and counts anyway.
    let r = |id: &str| json!({"type": "reasoning", "text": id, "providerMetadata": {"openai": {"itemId": id, "reasoningEncryptedContent": "E"}}});
    let tool = |id: &str| json!({"type": "tool-weather", "toolCallId": id, "state": "output-available", "input": {"city": "P"}, "output": "18C"});
    let ui = json!([
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "go"}]},
        {"id": "a1", "role": "assistant", "parts": [{"type": "step-start"}, r("rs_1"), tool("c1"), r("rs_2"), tool("c2")]}
    ]);
    let d = decode_messages(ui.as_array().unwrap(), None).unwrap();
    let ai = encode_messages(&d.messages, Format::AiSdk);
    let kinds: Vec<String> = ai[1]["content"]
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
        .collect();
    assert_eq!(kinds, ["reasoning:rs_1", "tool-call:c1", "reasoning:rs_2", "tool-call:c2"]);
    let items = encode_messages(&d.messages, Format::Responses);
    let order: Vec<&str> =
        items.iter().map(|i| i.get("id").or(i.get("call_id")).and_then(Value::as_str).unwrap_or("-")).collect();
    assert_eq!(order, ["-", "rs_1", "c1", "rs_2", "c2", "c1", "c2"]);
}
