//! Anthropic Messages API.
//!
//! `{role: "user"|"assistant", content: string | blocks}` with blocks `text`, `image`
//! (`source: {type: "base64"|"url", …}`), `thinking` (`thinking`, `signature`), `tool_use`
//! (`id`, `name`, `input`) and `tool_result` (`tool_use_id`, `content`, `is_error`).
//!
//! One user message may carry several `tool_result` blocks and then text: it decodes to one tool
//! message per result, then one user message with the remaining blocks. Encoding puts a run of
//! consecutive tool results back into one user message, results only (Anthropic: all results of a
//! turn in the very next message, before any text). A `system` role is accepted and written back
//! as `{role: "system"}`; the caller lifts it into the request's top-level `system`.

use super::util::field;
use super::util::{as_obj, extra_of, invalid_call_note, kind, opt_id, opt_str};
use super::{put_extra, Format};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{obj, val, Put};
use crate::message::{Content, ContentPart, Message, Role, ToolCall, ToolStatus};
use serde_json::{Map, Value};

pub(super) fn decode(obj: &Map<String, Value>) -> Result<Vec<Message>> {
    let role = match field(obj, "role").and_then(Value::as_str).unwrap_or_default() {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => Role::System,
        other => {
            return Err(Error::new(
                ErrorCode::UnknownRole,
                format!("unknown Anthropic role {other:?}; expected user or assistant"),
            )
            .field("role"))
        }
    };
    let extra = extra_of(obj, &["role", "content"]);
    let id = opt_id(obj, "id")?;
    let blocks = match field(obj, "content") {
        Some(Value::String(s)) => {
            let mut m = Message::new(role, s.clone());
            m.id = id;
            m.extra = extra;
            return Ok(vec![m]);
        }
        Some(Value::Array(blocks)) => blocks,
        None | Some(Value::Null) => {
            return Err(Error::new(ErrorCode::InvalidMessage, "an Anthropic message needs `content`").field("content"))
        }
        Some(v) => {
            return Err(Error::new(
                ErrorCode::InvalidMessage,
                format!("`content` must be a string or a list of blocks, got {}", kind(v)),
            )
            .field("content"))
        }
    };
    let mut out: Vec<Message> = Vec::new();
    if role == Role::Assistant {
        let mut m = Message::new(Role::Assistant, "");
        let mut parts = Vec::new();
        for b in blocks {
            let block = as_obj(b, "a content block")?;
            if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                let id = opt_str(block, "id")?.ok_or_else(|| {
                    Error::new(ErrorCode::InvalidToolCall, "a tool_use block needs an `id`").field("content")
                })?;
                m.tool_calls.push(ToolCall {
                    id,
                    name: opt_str(block, "name")?.unwrap_or_default(),
                    args: block.get("input").cloned().unwrap_or_else(|| obj! {}),
                    raw_args: None,
                    extra: extra_of(block, &["type", "id", "name", "input"]),
                    approval: None,
                });
            } else {
                parts.push(decode_block(b)?);
            }
        }
        m.content = Content::Parts(parts);
        out.push(m);
    } else {
        let mut pending: Vec<ContentPart> = Vec::new();
        for b in blocks {
            let block = as_obj(b, "a content block")?;
            if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                pending.push(decode_block(b)?);
                continue;
            }
            if !pending.is_empty() {
                out.push(user_with(role, std::mem::take(&mut pending)));
            }
            let call_id = opt_str(block, "tool_use_id")?.unwrap_or_default();
            let content = match block.get("content") {
                None => Content::Absent,
                Some(Value::Null) => Content::Null,
                Some(Value::String(s)) => Content::Text(s.clone()),
                Some(Value::Array(inner)) => Content::Parts(inner.iter().map(decode_block).collect::<Result<_>>()?),
                Some(v) => {
                    return Err(Error::new(
                        ErrorCode::InvalidMessage,
                        format!("tool_result `content` must be a string or blocks, got {}", kind(v)),
                    )
                    .field("content"))
                }
            };
            let is_error = block.get("is_error").and_then(Value::as_bool);
            let mut t = Message::new(Role::Tool, "");
            t.content = content;
            t.tool_call_id = Some(call_id);
            t.status = match is_error {
                Some(true) => Some(ToolStatus::Error),
                Some(false) => Some(ToolStatus::Success),
                None => None,
            };
            t.extra = extra_of(block, &["type", "tool_use_id", "content", "is_error"]);
            t.origin = Some(Format::Anthropic);
            out.push(t);
        }
        if !pending.is_empty() || out.is_empty() {
            out.push(user_with(role, pending));
        }
    }
    if let Some(first) = out.first_mut() {
        first.id = id;
        if first.role != Role::Tool {
            first.extra = extra;
        }
    }
    Ok(out)
}

fn user_with(role: Role, parts: Vec<ContentPart>) -> Message {
    let mut m = Message::new(role, "");
    m.content = Content::Parts(parts);
    m
}

pub(super) fn decode_block(v: &Value) -> Result<ContentPart> {
    let b = as_obj(v, "a content block")?;
    Ok(match b.get("type").and_then(Value::as_str) {
        Some("text") => {
            ContentPart::Text { text: opt_str(b, "text")?.unwrap_or_default(), extra: extra_of(b, &["type", "text"]) }
        }
        Some("thinking") => ContentPart::Reasoning {
            text: opt_str(b, "thinking")?.unwrap_or_default(),
            extra: extra_of(b, &["type", "thinking"]),
        },
        Some("image") => match b.get("source").and_then(Value::as_object) {
            Some(src) if src.get("type").and_then(Value::as_str) == Some("base64") => ContentPart::Image {
                url: None,
                data: opt_str(src, "data")?,
                media_type: opt_str(src, "media_type")?,
                extra: extra_of(b, &["type", "source"]),
            },
            Some(src) if src.get("type").and_then(Value::as_str) == Some("url") => ContentPart::Image {
                url: opt_str(src, "url")?,
                data: None,
                media_type: None,
                extra: extra_of(b, &["type", "source"]),
            },
            _ => ContentPart::Other { raw: v.clone() },
        },
        // A document by base64 data, URL or file id (a `text` or `content` source stays as it is).
        Some("document") => {
            let src = b.get("source").and_then(Value::as_object);
            let kind = src.and_then(|s| s.get("type")).and_then(Value::as_str);
            match (src, kind) {
                (Some(src), Some(k @ ("base64" | "url" | "file"))) => ContentPart::File {
                    url: if k == "url" { opt_str(src, "url")? } else { None },
                    data: if k == "base64" { opt_str(src, "data")? } else { None },
                    file_id: if k == "file" { opt_str(src, "file_id")? } else { None },
                    // A URL document is a PDF (`URLPDFSource`, which has no media type): said so,
                    // as the AI SDK's providers need a file's media type to send it.
                    media_type: match opt_str(src, "media_type")? {
                        None if k == "url" => Some("application/pdf".to_string()),
                        mt => mt,
                    },
                    // The document's `title` is its file name, as the AI SDK's Anthropic
                    // provider writes a file part's `filename`.
                    filename: opt_str(b, "title")?,
                    extra: extra_of(b, &["type", "source", "title"]),
                },
                _ => ContentPart::Other { raw: v.clone() },
            }
        }
        _ => ContentPart::Other { raw: v.clone() },
    })
}

/// The `source` of a document block for a file Anthropic can take (a PDF inline, at an
/// `http(s):` URL or by file id), else `None`.
fn document_source(part: &ContentPart) -> Option<Value> {
    let ContentPart::File { url, data, file_id, media_type, .. } = part else { return None };
    if let Some(id) = file_id {
        return Some(obj! {"type": "file", "file_id": id});
    }
    let mt = super::util::file_media_type(url.as_deref(), media_type.as_deref());
    if mt != Some("application/pdf") {
        return None;
    }
    match super::util::file_inline(url.as_deref(), data.as_deref(), mt) {
        Some((mt, d)) => Some(obj! {"type": "base64", "media_type": mt, "data": d}),
        None => url.as_ref().map(|u| obj! {"type": "url", "url": u}),
    }
}

fn encode_block(part: &ContentPart, own: bool) -> Option<Value> {
    let mut o = Map::new();
    let extra = match part {
        ContentPart::Text { text, extra } => {
            o.put("type", Value::from("text"));
            o.put("text", val(&text));
            extra
        }
        ContentPart::Reasoning { text, extra } => {
            // Anthropic refuses thinking blocks without their signature; reasoning from other
            // providers cannot be sent back as thinking, so it is left out. The signature is an
            // Anthropic block's own, or the one the AI SDK keeps for Anthropic
            // (`providerOptions.anthropic.signature` in a ModelMessage,
            // `providerMetadata.anthropic.signature` in a UIMessage).
            // A `redacted_thinking` block the AI SDK kept goes back as that block.
            let Some(signature) = super::util::anthropic_signature(extra) else {
                let data = super::util::anthropic_redacted_data(extra)?;
                return Some(obj! {"type": "redacted_thinking", "data": data});
            };
            o.put("type", Value::from("thinking"));
            o.put("thinking", val(&text));
            o.put("signature", signature.clone());
            if own {
                o.extend(extra.clone());
            }
            return Some(Value::Object(o));
        }
        ContentPart::Image { url, data, media_type, extra } => {
            o.put("type", Value::from("image"));
            let source = match (url, data) {
                (_, Some(d)) => {
                    obj! {"type": "base64", "media_type": media_type.as_deref().unwrap_or("image/png"), "data": d}
                }
                // A data URL is inline data: Anthropic's `url` source takes only http(s).
                (Some(u), None) => match super::util::data_url(u) {
                    Some((mt, d)) => obj! {"type": "base64", "media_type": mt, "data": d},
                    None => obj! {"type": "url", "url": u},
                },
                (None, None) => return None,
            };
            o.put("source", source);
            extra
        }
        file @ ContentPart::File { extra, .. } => {
            if let Some(image) = super::util::file_as_image(file) {
                return encode_block(&image, false);
            }
            let Some(source) = document_source(file) else {
                let note = super::util::file_note(file, "Anthropic takes PDF documents, inline, by URL or by file id");
                return encode_block(&note, false);
            };
            o.put("type", Value::from("document"));
            o.put("source", source);
            if let ContentPart::File { filename: Some(name), .. } = file {
                o.put("title", val(&name));
            }
            extra
        }
        ContentPart::Other { raw } if own => return Some(raw.clone()),
        ContentPart::Other { raw } => return super::util::other_note(raw).and_then(|n| encode_block(&n, false)),
    };
    if own {
        o.extend(extra.clone());
    }
    Some(Value::Object(o))
}

fn encode_content(content: &Content, own: bool) -> Option<Value> {
    match content {
        Content::Text(t) => Some(val(&t)),
        Content::Parts(parts) => Some(Value::Array(parts.iter().filter_map(|p| encode_block(p, own)).collect())),
        Content::Null | Content::Absent => None,
    }
}

pub(super) fn encode(group: &[Message]) -> Value {
    let Some(first) = group.first() else { return Value::Null };
    let own = first.origin == Some(Format::Anthropic);
    let mut o = Map::new();
    match first.role {
        Role::Tool => {
            o.put("role", Value::from("user"));
            let blocks = group
                .iter()
                .map(|t| {
                    let own = t.origin == Some(Format::Anthropic);
                    let mut b = Map::new();
                    b.put("type", Value::from("tool_result"));
                    b.put("tool_use_id", val(&t.tool_call_id.as_deref().unwrap_or_default()));
                    if let Some(c) = encode_content(&t.content, own) {
                        b.put("content", c);
                    }
                    match t.status {
                        Some(ToolStatus::Error) => {
                            b.put("is_error", Value::Bool(true));
                        }
                        Some(ToolStatus::Success) if own => {
                            b.put("is_error", Value::Bool(false));
                        }
                        _ => {}
                    }
                    if own {
                        b.extend(t.extra.clone());
                    }
                    Value::Object(b)
                })
                .collect();
            o.put("content", Value::Array(blocks));
            return Value::Object(o);
        }
        Role::Assistant => {
            o.put("role", Value::from("assistant"));
            let mut blocks = match &first.content {
                Content::Text(t) if first.tool_calls.is_empty() && first.invalid_tool_calls.is_empty() => {
                    o.put("content", val(&t));
                    put_extra(&mut o, first, Format::Anthropic);
                    return Value::Object(o);
                }
                Content::Text(t) if t.is_empty() => Vec::new(),
                Content::Text(t) => vec![obj! {"type": "text", "text": t}],
                Content::Parts(parts) => parts.iter().filter_map(|p| encode_block(p, own)).collect(),
                Content::Null | Content::Absent => Vec::new(),
            };
            for c in &first.tool_calls {
                let mut b = Map::new();
                b.put("type", Value::from("tool_use"));
                b.put("id", val(&c.id));
                b.put("name", val(&c.name));
                b.put("input", c.args.clone());
                if own {
                    b.extend(c.extra.clone());
                }
                blocks.push(Value::Object(b));
            }
            // Anthropic has no way to carry unparsable input: an empty input keeps the call (and
            // its error result) in the history, and a text block before the calls says what it was.
            let notes = first.invalid_tool_calls.iter().map(|c| obj! {"type": "text", "text": invalid_call_note(c)});
            let at = blocks
                .iter()
                .position(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                .unwrap_or(blocks.len());
            blocks.splice(at..at, notes.collect::<Vec<_>>());
            for c in &first.invalid_tool_calls {
                blocks.push(obj! {"type": "tool_use", "id": c.id, "name": c.name, "input": obj!{}});
            }
            o.put("content", Value::Array(blocks));
        }
        Role::User | Role::System => {
            o.put("role", val(&(if first.role == Role::User { "user" } else { "system" })));
            o.put("content", encode_content(&first.content, own).unwrap_or_else(|| Value::from("")));
        }
    }
    put_extra(&mut o, first, Format::Anthropic);
    Value::Object(o)
}
