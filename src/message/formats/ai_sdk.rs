//! Vercel AI SDK `ModelMessage` (v5; v4's `args` / `result` are read too).
//!
//! `{role: "system", content: string}`, `{role: "user"|"assistant", content: string | parts}` with
//! parts `text`, `image` (`image`, `mediaType`), `file`, `reasoning`, `tool-call` (`toolCallId`,
//! `toolName`, `input`), and `{role: "tool", content: [tool-result (toolCallId, toolName, output)]}`.
//! A call keeps its place among the parts (`extra.$part`, `util::PART_POSITION`) and goes back
//! there, to the AI SDK and in Responses items.
//! A tool message with several results decodes to one tool message each; consecutive results are
//! encoded into one tool message. Outputs: `text` / `error-text` keep their text, `json` /
//! `error-json` decode to their JSON text, `content` to parts (media items `image-data`,
//! `image-url`, `file-data`, `file-url`, `media` as images and files), `execution-denied` (AI SDK
//! 6) to an error result with its reason; results are written back as `text` or `error-text`, and
//! a `json`, `content` or `execution-denied` output to the AI SDK as it came while the result
//! still reads the same.

use super::approval_parts::{decision_part, decode_decision, put_request, put_requests};
use super::util::field;
use super::util::{among_calls, part_position, place_calls, PART_POSITION};
use super::util::{as_obj, content_as_string, extra_of, kind, opt_id, opt_str};
use super::{put_extra, Format};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{arr, obj, val, Put};
use crate::message::{Content, ContentPart, Message, Role, ToolCall, ToolStatus};
use serde_json::{Map, Value};

/// The key of a tool result's `extra` holding an AI SDK `json` output's value.
pub(super) const JSON_OUTPUT: &str = "$json";
/// The key of a tool result's `extra` that keeps a `content` or `execution-denied` output as it
/// came, written back to the AI SDK while the result still reads the same.
const KEPT_OUTPUT: &str = "$output";
/// A denial's result text when it gives no reason (the AI SDK's own, as its providers send an
/// `execution-denied` output without one: `@ai-sdk/openai`, `convertToModelMessages`).
pub const DENIED: &str = "Tool call execution denied.";

pub(super) fn decode(obj: &Map<String, Value>) -> Result<Vec<Message>> {
    let role = match field(obj, "role").and_then(Value::as_str).unwrap_or_default() {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        other => {
            return Err(Error::new(
                ErrorCode::UnknownRole,
                format!("unknown AI SDK role {other:?}; expected system, user, assistant or tool"),
            )
            .field("role"))
        }
    };
    let extra = extra_of(obj, &["role", "content"]);
    let id = opt_id(obj, "id")?;
    let parts = match field(obj, "content") {
        Some(Value::String(s)) if role != Role::Tool => {
            let mut m = Message::new(role, s.clone());
            m.id = id;
            m.extra = extra;
            return Ok(vec![m]);
        }
        Some(Value::Array(parts)) => parts,
        Some(v) => {
            return Err(Error::new(
                ErrorCode::InvalidMessage,
                format!("`content` must be a string or a list of parts, got {}", kind(v)),
            )
            .field("content"))
        }
        None => return Err(Error::new(ErrorCode::InvalidMessage, "an AI SDK message needs `content`").field("content")),
    };
    let mut out = Vec::new();
    if role == Role::Tool {
        for p in parts {
            let part = as_obj(p, "a tool message part")?;
            if part.get("type").and_then(Value::as_str) == Some("tool-approval-response") {
                out.push(Message::approval_decision(decode_decision(part)?));
                continue;
            }
            if part.get("type").and_then(Value::as_str) != Some("tool-result") {
                // Future part kinds: kept on their own message.
                let mut m = Message::new(Role::Tool, "");
                m.content = Content::Parts(vec![ContentPart::Other { raw: p.clone() }]);
                m.tool_call_id = opt_str(part, "toolCallId")?;
                out.push(m);
                continue;
            }
            let mut t = Message::new(Role::Tool, "");
            t.tool_call_id = opt_str(part, "toolCallId")?;
            t.name = opt_str(part, "toolName")?;
            let (content, status) = decode_output(part)?;
            t.content = content;
            t.status = status;
            t.extra = extra_of(part, &["type", "toolCallId", "toolName", "output", "result", "isError"]);
            // A `json` output reads as its JSON text; its value is kept so it goes back as `json`.
            if let Some(v) = part.get("output").filter(|o| o.get("type").and_then(Value::as_str) == Some("json")) {
                t.extra.insert(JSON_OUTPUT.into(), v.get("value").cloned().unwrap_or(Value::Null));
            }
            if let Some(o) = part
                .get("output")
                .filter(|o| matches!(o.get("type").and_then(Value::as_str), Some("content" | "execution-denied")))
            {
                t.extra.insert(KEPT_OUTPUT.into(), o.clone());
            }
            out.push(t);
        }
        if let Some(first) = out.first_mut() {
            first.id = id;
        }
        return Ok(out);
    }
    let mut m = Message::new(role, "");
    let mut content = Vec::new();
    // Approval requests go on their calls, once all are read; a call's place among the parts
    // counts the parts that stay parts.
    let mut requests: Vec<&Map<String, Value>> = Vec::new();
    let mut position = 0;
    for p in parts {
        let part = as_obj(p, "a content part")?;
        if part.get("type").and_then(Value::as_str) == Some("tool-approval-request") {
            // A request for a provider-executed call (kept whole) or a call whose input did not
            // parse stays as it came, in place: neither is a call the caller runs.
            let call = opt_str(part, "toolCallId")?;
            let kept_call = content.iter().any(|c| matches!(c, ContentPart::Other { raw } if raw.get("toolCallId").and_then(Value::as_str) == call.as_deref()))
                || m.invalid_tool_calls.iter().any(|c| Some(&c.id) == call.as_ref());
            if kept_call {
                content.push(ContentPart::Other { raw: p.clone() });
                position += 1;
            } else {
                requests.push(part);
            }
            continue;
        }
        let at = position;
        position += 1;
        // A provider-executed call (a server-side web search) is answered in the same message by
        // an assistant `tool-result` part, never by the caller: both are kept as they came, in
        // place, not read as a call the caller must answer (which repair would then "answer"
        // with a placeholder saying it never completed).
        let provider_executed = part.get("providerExecuted") == Some(&Value::Bool(true));
        if part.get("type").and_then(Value::as_str) == Some("tool-call") && !provider_executed {
            let id = opt_str(part, "toolCallId")?.ok_or_else(|| {
                Error::new(ErrorCode::InvalidToolCall, "a tool-call part needs a `toolCallId`").field("content")
            })?;
            let mut extra = extra_of(part, &["type", "toolCallId", "toolName", "input", "args"]);
            // Where the call was among the parts: it goes back there (between two reasoning
            // items, say, each of which led to the call after it).
            extra.insert(PART_POSITION.into(), val(&at));
            let name = opt_str(part, "toolName")?.unwrap_or_default();
            match part.get("input").or_else(|| part.get("args")) {
                // Input as JSON text (`convertToModelMessages` writes a UI part's `rawInput` so):
                // the AI SDK's providers send it as the arguments' text (OpenAI) or parsed
                // (Anthropic), never as a JSON string; read as OpenAI's `arguments` are.
                Some(Value::String(text)) => match super::util::call_from_json_text(id, name, text.clone(), extra) {
                    Ok(call) => m.tool_calls.push(call),
                    Err(invalid) => m.invalid_tool_calls.push(invalid),
                },
                input => m.tool_calls.push(ToolCall {
                    id,
                    name,
                    args: input.cloned().unwrap_or_else(|| obj! {}),
                    raw_args: None,
                    extra,
                    approval: None,
                }),
            }
        } else {
            content.push(decode_part(p)?);
        }
    }
    for part in requests {
        put_request(&mut m, part)?;
    }
    m.content = Content::Parts(content);
    m.id = id;
    m.extra = extra;
    out.push(m);
    Ok(out)
}

fn decode_output(part: &Map<String, Value>) -> Result<(Content, Option<ToolStatus>)> {
    let legacy_error =
        part.get("isError").and_then(Value::as_bool).map(|e| if e { ToolStatus::Error } else { ToolStatus::Success });
    let Some(output) = part.get("output") else {
        // v4: `result` is any JSON value.
        return Ok(match part.get("result") {
            Some(Value::String(s)) => (Content::Text(s.clone()), legacy_error),
            Some(v) => (Content::Text(v.to_string()), legacy_error),
            None => (Content::Absent, legacy_error),
        });
    };
    let o = as_obj(output, "a tool-result `output`")?;
    let value = o.get("value");
    let text_of = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    };
    Ok(match o.get("type").and_then(Value::as_str) {
        Some("text") => (Content::Text(text_of(value)), Some(ToolStatus::Success)),
        Some("error-text") => (Content::Text(text_of(value)), Some(ToolStatus::Error)),
        Some("json") => (Content::Text(value.map(Value::to_string).unwrap_or_default()), Some(ToolStatus::Success)),
        Some("error-json") => (Content::Text(value.map(Value::to_string).unwrap_or_default()), Some(ToolStatus::Error)),
        Some("content") => {
            let parts = value
                .and_then(Value::as_array)
                .map(|a| a.iter().map(decode_output_part).collect::<Result<Vec<_>>>())
                .transpose()?
                .unwrap_or_default();
            (Content::Parts(parts), Some(ToolStatus::Success))
        }
        // A denied approval (AI SDK 6 writes it): the call never ran; its providers send the
        // reason, or their default text.
        Some("execution-denied") => {
            let reason = o.get("reason").and_then(Value::as_str).unwrap_or(DENIED);
            (Content::Text(reason.to_string()), Some(ToolStatus::Error))
        }
        _ => (Content::Parts(vec![ContentPart::Other { raw: output.clone() }]), None),
    })
}

/// A successful tool result holding images or files (an Anthropic `tool_result`, a Responses
/// output with `input_image` / `input_file`) as a `content` output, which carries them as the AI
/// SDK's providers send them on (`image-data` / `image-url`, `file-data` / `file-url`), instead of
/// text with notes; `None` for a result of text only, an error, or media it cannot carry (a file
/// by id), which keep the text form.
fn media_output(t: &Message) -> Option<Value> {
    let Content::Parts(parts) = &t.content else { return None };
    if t.status == Some(ToolStatus::Error)
        || !parts.iter().any(|p| matches!(p, ContentPart::Image { .. } | ContentPart::File { .. }))
    {
        return None;
    }
    let item = |p: &ContentPart| -> Option<Value> {
        Some(match p {
            ContentPart::Text { text, .. } => obj! {"type": "text", "text": text},
            ContentPart::Image { url: Some(u), data: None, .. } if super::util::data_url(u).is_none() => {
                obj! {"type": "image-url", "url": u}
            }
            ContentPart::Image { url, data, media_type, .. } => {
                let mt = super::util::file_media_type(url.as_deref(), media_type.as_deref()).unwrap_or("image/png");
                let (mt, d) = super::util::file_inline(url.as_deref(), data.as_deref(), Some(mt))?;
                obj! {"type": "image-data", "data": d, "mediaType": mt}
            }
            ContentPart::File { url: Some(u), data: None, file_id: None, .. } if super::util::data_url(u).is_none() => {
                obj! {"type": "file-url", "url": u}
            }
            ContentPart::File { url, data, media_type, filename, .. } => {
                let mt = super::util::file_media_type(url.as_deref(), media_type.as_deref());
                let (mt, d) = super::util::file_inline(url.as_deref(), data.as_deref(), mt)?;
                let mut o = Map::new();
                o.put("type", Value::from("file-data"));
                o.put("data", val(&d));
                o.put("mediaType", val(&mt));
                super::util::put_opt(&mut o, "filename", filename.as_deref());
                Value::Object(o)
            }
            _ => return None,
        })
    };
    let value: Option<Vec<Value>> = parts.iter().map(item).collect();
    Some(obj! {"type": "content", "value": Value::Array(value?)})
}

/// One item of a `content` tool output: `text`, and media as the AI SDK's providers send them
/// (`image-data` / `file-data` / `media`: base64 `data` with its `mediaType`; `image-url` /
/// `file-url`: a `url`), so an image in a result reaches a provider that takes images there.
fn decode_output_part(v: &Value) -> Result<ContentPart> {
    let p = as_obj(v, "a tool output content item")?;
    let media_type = opt_str(p, "mediaType")?;
    let image = |mt: &Option<String>| mt.as_deref().is_some_and(|m| m.starts_with("image/"));
    Ok(match p.get("type").and_then(Value::as_str) {
        Some(t @ ("image-data" | "file-data" | "media" | "image-url" | "file-url")) => {
            let (url, data) =
                if t.ends_with("-url") { (opt_str(p, "url")?, None) } else { (None, opt_str(p, "data")?) };
            if url.is_none() && data.is_none() {
                return Ok(ContentPart::Other { raw: v.clone() });
            }
            let extra = extra_of(p, &["type", "url", "data", "mediaType", "filename"]);
            if t.starts_with("image") || (t == "media" && image(&media_type)) {
                ContentPart::Image { url, data, media_type, extra }
            } else {
                ContentPart::File { url, data, file_id: None, media_type, filename: opt_str(p, "filename")?, extra }
            }
        }
        _ => decode_part(v)?,
    })
}

fn decode_part(v: &Value) -> Result<ContentPart> {
    let p = as_obj(v, "a content part")?;
    Ok(match p.get("type").and_then(Value::as_str) {
        Some("text") => {
            ContentPart::Text { text: opt_str(p, "text")?.unwrap_or_default(), extra: extra_of(p, &["type", "text"]) }
        }
        Some("reasoning") => ContentPart::Reasoning {
            text: opt_str(p, "text")?.unwrap_or_default(),
            extra: extra_of(p, &["type", "text"]),
        },
        Some("image") => match p.get("image") {
            Some(Value::String(s)) if super::util::is_url(s) => ContentPart::Image {
                url: Some(s.clone()),
                data: None,
                media_type: opt_str(p, "mediaType")?,
                extra: extra_of(p, &["type", "image", "mediaType"]),
            },
            Some(Value::String(s)) => ContentPart::Image {
                url: None,
                data: Some(s.clone()),
                media_type: opt_str(p, "mediaType")?,
                extra: extra_of(p, &["type", "image", "mediaType"]),
            },
            _ => ContentPart::Other { raw: v.clone() },
        },
        // `{type: "file", data: base64 | URL | data URL, mediaType, filename?}` (data as bytes or a
        // URL object cannot come as JSON).
        Some("file") => match p.get("data") {
            // An OpenAI file id (`file-…`, never base64: `-` is not in its alphabet), which the
            // AI SDK's OpenAI providers send as `file_id` (their `fileIdPrefixes`).
            Some(Value::String(s)) if s.starts_with("file-") => ContentPart::File {
                url: None,
                data: None,
                file_id: Some(s.clone()),
                media_type: opt_str(p, "mediaType")?,
                filename: opt_str(p, "filename")?,
                extra: extra_of(p, &["type", "data", "mediaType", "filename"]),
            },
            Some(Value::String(s)) => {
                let is_url = super::util::is_url(s);
                ContentPart::File {
                    url: is_url.then(|| s.clone()),
                    data: (!is_url).then(|| s.clone()),
                    file_id: None,
                    media_type: opt_str(p, "mediaType")?,
                    filename: opt_str(p, "filename")?,
                    extra: extra_of(p, &["type", "data", "mediaType", "filename"]),
                }
            }
            _ => ContentPart::Other { raw: v.clone() },
        },
        _ => ContentPart::Other { raw: v.clone() },
    })
}

/// The `providerOptions` an AI SDK part carries for a field kept from a UIMessage (`key`: the
/// UI part's `providerMetadata`, a tool part's `callProviderMetadata`), as `convertToModelMessages`
/// moves it — so a reasoning signature or an OpenAI item id survives UI → ModelMessage.
fn provider_options_from_ui(o: &mut Map<String, Value>, extra: &Map<String, Value>, key: &str) {
    if let Some(meta) = extra.get(key).filter(|m| m.is_object()) {
        o.put("providerOptions", meta.clone());
    }
}

fn encode_part(part: &ContentPart, origin: Option<Format>) -> Option<Value> {
    let own = origin == Some(Format::AiSdk);
    let mut o = Map::new();
    let extra = match part {
        ContentPart::Text { text, extra } => {
            o.put("type", Value::from("text"));
            o.put("text", val(&text));
            extra
        }
        ContentPart::Reasoning { text, extra } => {
            o.put("type", Value::from("reasoning"));
            o.put("text", val(&text));
            extra
        }
        ContentPart::Image { url, data, media_type, extra } => {
            o.put("type", Value::from("image"));
            o.put("image", val(&(url.as_ref().or(data.as_ref())?)));
            if let Some(mt) = media_type {
                o.put("mediaType", val(&mt));
            }
            // An OpenAI image's `detail`, where the AI SDK's OpenAI providers read it.
            if let Some(detail) = super::util::image_detail(extra, origin).filter(|_| !own) {
                put_openai_option(&mut o, "imageDetail", detail.clone());
            }
            extra
        }
        file @ ContentPart::File { url, data, file_id, media_type, filename, extra } => {
            // A file id goes back as the data it came as (an AI SDK `file-…` one).
            let own_id = file_id.as_ref().filter(|_| own);
            let Some(source) = url.as_ref().or(data.as_ref()).or(own_id) else {
                let note =
                    super::util::file_note(file, "the AI SDK takes a file's data or URL, not a provider's file id");
                return encode_part(&note, None);
            };
            o.put("type", Value::from("file"));
            o.put("data", val(&source));
            let mt = super::util::file_media_type(url.as_deref(), media_type.as_deref());
            o.put("mediaType", val(&mt.unwrap_or(super::util::OCTET_STREAM)));
            if let Some(name) = filename {
                o.put("filename", val(&name));
            }
            extra
        }
        ContentPart::Other { raw } if own => return Some(raw.clone()),
        ContentPart::Other { raw } => {
            return super::util::redacted_thinking_as_reasoning(raw, origin, "providerOptions")
                .or_else(|| super::util::other_note(raw).and_then(|n| encode_part(&n, None)))
        }
    };
    if own {
        o.extend(extra.clone());
    } else if origin == Some(Format::Ui) {
        provider_options_from_ui(&mut o, extra, "providerMetadata");
    } else if let (ContentPart::Reasoning { .. }, Some(meta)) = (part, super::util::provider_metadata(extra, origin)) {
        o.put("providerOptions", meta);
    } else if let Some(signature) = super::util::gemini_signature(extra, origin) {
        // A Gemini text part's thought signature, where the AI SDK's Google provider keeps it.
        o.put("providerOptions", obj! {"google": obj! {"thoughtSignature": signature}});
    }
    Some(Value::Object(o))
}

/// An AI SDK `tool-call` part; with `own_extra` (a call the AI SDK gave), its fields go back on it
/// but its place among the parts ([`PART_POSITION`]), which is where the part goes.
fn tool_call_part(id: &str, name: &str, input: Value, own_extra: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut p = Map::new();
    p.put("type", Value::from("tool-call"));
    p.put("toolCallId", val(&id));
    p.put("toolName", val(&name));
    p.put("input", input);
    for (k, v) in own_extra.into_iter().flatten().filter(|(k, _)| k.as_str() != PART_POSITION) {
        p.insert(k.clone(), v.clone());
    }
    p
}

/// Sets `providerOptions.openai.<key>` on an AI SDK part (keeping its other options).
fn put_openai_option(part: &mut Map<String, Value>, key: &str, value: Value) {
    let options = part.entry("providerOptions").or_insert_with(|| obj! {});
    if let Some(openai) = options.as_object_mut().map(|o| o.entry("openai").or_insert_with(|| obj! {})) {
        if let Some(openai) = openai.as_object_mut() {
            openai.put(key, value);
        }
    }
}

/// An assistant turn of several messages (the items of a Responses turn: reasoning, text, each
/// call) as one ModelMessage whose content keeps their order: each message's parts, then its
/// calls, message by message, as the AI SDK's OpenAI provider lists a response's output (a
/// reasoning item goes right before the call it led to; the Responses API refuses a reasoning
/// item not followed by its own next item). A call id given twice is written once.
pub(super) fn encode_turn(group: &[Message]) -> Value {
    let mut content = Vec::new();
    let mut calls = std::collections::HashSet::new();
    for m in group {
        match encode(std::slice::from_ref(m)).get_mut("content").map(Value::take) {
            Some(Value::Array(parts)) => content.extend(parts.into_iter().filter(|p| {
                p.get("type").and_then(Value::as_str) != Some("tool-call")
                    || calls.insert(p.get("toolCallId").and_then(Value::as_str).unwrap_or_default().to_string())
            })),
            Some(Value::String(t)) if !t.is_empty() => content.push(obj! {"type": "text", "text": t}),
            _ => {}
        }
    }
    obj! {"role": "assistant", "content": Value::Array(content)}
}

pub(super) fn encode(group: &[Message]) -> Value {
    let Some(first) = group.first() else { return Value::Null };
    let own = first.origin == Some(Format::AiSdk);
    let mut o = Map::new();
    let role = match first.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    o.put("role", val(&role));
    if first.role == Role::Tool {
        let parts: Vec<Value> = group
            .iter()
            .map(|t| {
                let own = t.origin == Some(Format::AiSdk);
                if let Some(d) = &t.approval {
                    return decision_part(d, own);
                }
                if let (true, Content::Parts(p)) = (own, &t.content) {
                    // A part kept whole (a future kind): it names its
                    // call itself. An unknown `output` kept raw is not a part and does not.
                    if let [ContentPart::Other { raw }] = p.as_slice() {
                        let names_call = raw.get("toolCallId").and_then(Value::as_str) == t.tool_call_id.as_deref();
                        if raw.get("type").and_then(Value::as_str) != Some("tool-result")
                            && t.status.is_none()
                            && names_call
                        {
                            return raw.clone();
                        }
                    }
                }
                let kind = if t.status == Some(ToolStatus::Error) { "error-text" } else { "text" };
                let mut p = Map::new();
                p.put("type", Value::from("tool-result"));
                p.put("toolCallId", val(&t.tool_call_id.as_deref().unwrap_or_default()));
                p.put("toolName", val(&t.name.as_deref().unwrap_or_default()));
                let text = content_as_string(&t.content);
                // A non-string output (an AI SDK `json` one, a UIMessage's) goes as `json`, as
                // `convertToModelMessages` sends it, while the result's text is unchanged.
                let kept = match t.origin {
                    Some(Format::Ui) => t.extra.get("output"),
                    Some(Format::AiSdk) => t.extra.get(JSON_OUTPUT),
                    _ => None,
                };
                // A `content` or `execution-denied` output goes back as it came while it still
                // reads as the result does.
                let same = |o: &&Value| {
                    let part = Map::from_iter([("output".to_string(), (*o).clone())]);
                    decode_output(&part).is_ok_and(|(c, s)| c == t.content && s == t.status)
                };
                let output = match (kept, t.extra.get(KEPT_OUTPUT).filter(|_| own).filter(same)) {
                    (_, Some(o)) => o.clone(),
                    (Some(v), _) if kind == "text" && serde_json::to_string(v).is_ok_and(|j| j == text) => {
                        obj! {"type": "json", "value": v}
                    }
                    _ => media_output(t).unwrap_or_else(|| obj! {"type": kind, "value": text}),
                };
                p.put("output", output);
                if own {
                    p.extend(
                        t.extra
                            .iter()
                            .filter(|(k, _)| k.as_str() != JSON_OUTPUT && k.as_str() != KEPT_OUTPUT)
                            .map(|(k, v)| (k.clone(), v.clone())),
                    );
                }
                Value::Object(p)
            })
            .collect();
        o.put("content", Value::Array(parts));
        return Value::Object(o);
    }
    let has_calls = !first.tool_calls.is_empty() || !first.invalid_tool_calls.is_empty();
    // The places among the message's content parts of those written (a UIMessage's `step-start`
    // is not), to put each call back among them.
    let mut written: Vec<usize> = Vec::new();
    let content = match &first.content {
        // `SystemModelMessage.content` is a string.
        Content::Parts(_) if first.role == Role::System => val(&first.content.text()),
        Content::Text(t) if !has_calls || first.role != Role::Assistant => val(&t),
        Content::Text(t) if t.is_empty() => arr![],
        Content::Text(t) => arr![obj! {"type": "text", "text": t}],
        Content::Parts(parts) => Value::Array(
            parts
                .iter()
                .enumerate()
                .filter_map(|(k, p)| {
                    let v = encode_part(p, first.origin)?;
                    written.push(k);
                    Some(v)
                })
                .collect(),
        ),
        Content::Null | Content::Absent if has_calls => arr![],
        Content::Null | Content::Absent => Value::from(""),
    };
    o.put("content", content);
    // A Responses message item's `phase`, where the AI SDK's OpenAI provider keeps it: on each of
    // its text parts (`providerOptions.openai.phase`), which it sends back on the item.
    let phase = first.extra.get("phase").filter(|p| p.is_string() && first.origin == Some(Format::Responses));
    if let (Some(phase), Some(content)) = (phase.filter(|_| first.role == Role::Assistant), o.get_mut("content")) {
        if let Value::String(t) = content {
            *content = if t.is_empty() { arr![] } else { arr![obj! {"type": "text", "text": t.as_str()}] };
        }
        let texts = content
            .as_array_mut()
            .into_iter()
            .flatten()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"));
        for part in texts.filter_map(Value::as_object_mut) {
            put_openai_option(part, "phase", phase.clone());
        }
    }
    if has_calls {
        if let Some(Value::Array(parts)) = o.get_mut("content") {
            let call_part = |c: &ToolCall| {
                // Input that came as JSON text goes back as that text.
                let input = match (&c.raw_args, own) {
                    (Some(text), true) => val(text),
                    _ => c.args.clone(),
                };
                let mut p = tool_call_part(&c.id, &c.name, input, own.then_some(&c.extra));
                if first.origin == Some(Format::Ui) {
                    provider_options_from_ui(&mut p, &c.extra, "callProviderMetadata");
                    if let Some(executed) = c.extra.get("providerExecuted").filter(|v| v.is_boolean()) {
                        p.put("providerExecuted", executed.clone());
                    }
                } else if let Some(signature) = super::util::gemini_signature(&c.extra, first.origin).filter(|_| !own) {
                    // A Gemini call's thought signature, which Gemini 3 requires back with it.
                    p.put("providerOptions", obj! {"google": obj! {"thoughtSignature": signature}});
                }
                Value::Object(p)
            };
            // The AI SDK keeps unparsable input as its raw text.
            let invalid_part = |c: &crate::message::InvalidToolCall| {
                Value::Object(tool_call_part(&c.id, &c.name, val(&c.args), own.then_some(&c.extra)))
            };
            let calls: Vec<(Option<usize>, Value)> = first
                .tool_calls
                .iter()
                .map(|c| (part_position(&c.extra), call_part(c)))
                .chain(first.invalid_tool_calls.iter().map(|c| (part_position(&c.extra), invalid_part(c))))
                .collect();
            let places: Option<Vec<usize>> = calls.iter().map(|(at, _)| *at).collect();
            let in_order = places.as_ref().is_some_and(|p| p.windows(2).all(|w| matches!(w, [a, b] if a < b)));
            if let (true, Some(places)) = (in_order && (own || first.origin == Some(Format::Ui)), places) {
                // Every call knows its place among the parts of the message it came in (an AI SDK
                // message, a UIMessage step): back between the parts where it was (each
                // `tool-approval-request` is among the parts, after its call, as it came). A
                // call's place counts every part; here only the parts written are.
                let calls = calls
                    .into_iter()
                    .zip(&places)
                    .enumerate()
                    .map(|(rank, ((_, call), &at))| {
                        let before = written.iter().filter(|&&k| among_calls(k, &places) < at).count();
                        (Some(before + rank), call)
                    })
                    .collect();
                place_calls(parts, calls);
            } else {
                // A `tool-approval-request` goes right after the call it asks about, where the AI
                // SDK writes it (it is kept among the content parts).
                let (requests, rest): (Vec<Value>, Vec<Value>) = std::mem::take(parts)
                    .into_iter()
                    .partition(|p| p.get("type").and_then(Value::as_str) == Some("tool-approval-request"));
                *parts = rest;
                let mut requests: Vec<Option<Value>> = requests.into_iter().map(Some).collect();
                for (_, call) in calls {
                    let id = call.get("toolCallId").and_then(Value::as_str).map(str::to_string);
                    parts.push(call);
                    for r in requests.iter_mut() {
                        if r.as_ref().and_then(|r| r.get("toolCallId")).and_then(Value::as_str) == id.as_deref() {
                            parts.extend(r.take());
                        }
                    }
                }
                parts.extend(requests.into_iter().flatten());
            }
            put_requests(parts, &first.tool_calls, own);
        }
    }
    put_extra(&mut o, first, Format::AiSdk);
    Value::Object(o)
}
