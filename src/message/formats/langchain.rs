//! LangChain messages (Python `model_dump()` and JS `toDict().data` shapes).
//!
//! Read from three envelopes: the plain dict `{type: "human"|"ai"|"tool"|"system", content, id,
//! name, tool_calls: [{id, name, args, type: "tool_call"}], invalid_tool_calls, tool_call_id,
//! status, …}`, the serialized form `{lc: 1, type: "constructor", id: [.., "AIMessage"], kwargs}`,
//! and `message_to_dict`'s `{type, data}`. Always written as the plain dict. Content blocks follow
//! LangChain: `text`, OpenAI-style `image_url`, Anthropic-style `image` (`source`), standard
//! `image` / `file` blocks in each of LangChain's dialects (see `Dialect`: written back in the
//! one they came in, and as v0's `source_type` blocks from other formats), `reasoning` and
//! Anthropic-style `thinking`; other blocks pass through untouched. A tool call
//! in OpenAI's shape (`{id, type: "function", function: {name, arguments}}`) is read as
//! LangChain's own `coerceMessageLikeToMessage` converts it: its name is `function.name`, its
//! args the parsed `arguments` (text that is no JSON object: an invalid tool call, as in an
//! OpenAI message). (Shapes: research/peer-semantics.md §8.)

use super::util::field;
use super::util::{as_obj, extra_of, kind, opt_array, opt_id, opt_str, put_opt};
use super::{put_extra, Format};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{obj, val, Put};
use crate::message::{Content, ContentPart, InvalidToolCall, Message, Role, ToolCall, ToolStatus};
use serde_json::{Map, Value};

const KNOWN: &[&str] = &["type", "content", "id", "name", "tool_calls", "invalid_tool_calls", "tool_call_id", "status"];

pub(super) fn decode(obj: &Map<String, Value>) -> Result<Message> {
    // Unwrap the two envelopes.
    if let (Some(kwargs), Some(Value::Array(path))) = (field(obj, "kwargs"), field(obj, "id")) {
        let class = path.last().and_then(Value::as_str).unwrap_or_default();
        let mut data = as_obj(kwargs, "`kwargs`")?.clone();
        data.entry("type").or_insert_with(|| val(&class_type(class)));
        return decode(&data);
    }
    if let (Some(ty @ Value::String(_)), Some(Value::Object(data))) = (field(obj, "type"), field(obj, "data")) {
        let mut data = data.clone();
        data.put("type", ty.clone());
        return decode(&data);
    }
    let ty = field(obj, "type").and_then(Value::as_str).unwrap_or_default();
    let role = match ty {
        "human" | "user" | "HumanMessageChunk" => Role::User,
        "ai" | "assistant" | "AIMessageChunk" => Role::Assistant,
        "system" | "developer" => Role::System,
        "tool" | "ToolMessageChunk" => Role::Tool,
        "remove" => {
            return Err(Error::new(
                ErrorCode::UnknownRole,
                "a RemoveMessage is a reducer instruction, not a message; pass it to the store as an update",
            )
            .field("type"))
        }
        // A ChatMessage names its role itself: refused naming it (its role is free text).
        "generic" | "chat" => {
            let r = field(obj, "role").and_then(Value::as_str).unwrap_or_default();
            return Err(Error::new(
                ErrorCode::UnknownRole,
                format!("a LangChain ChatMessage (type {ty:?}) with role {r:?}: write it as a HumanMessage, AIMessage, SystemMessage or ToolMessage"),
            )
            .field("type"));
        }
        // No `type` at all (a role-keyed message read as LangChain, `from: "langchain"`): say so
        // rather than name an empty type.
        "" if !matches!(field(obj, "type"), Some(Value::String(_))) => {
            let has_role = if field(obj, "role").is_some() {
                " (it has a `role`: a role-keyed message such as OpenAI's is read by its own format, without `from: \"langchain\"`)"
            } else {
                ""
            };
            return Err(Error::new(
                ErrorCode::UnknownRole,
                format!("a LangChain message needs a `type` (human, ai, system or tool); this one has none{has_role}"),
            )
            .field("type"));
        }
        other => {
            return Err(Error::new(
                ErrorCode::UnknownRole,
                format!("unknown LangChain message type {other:?}; expected human, ai, system or tool"),
            )
            .field("type"))
        }
    };
    let mut m = Message::new(role, "");
    m.content = match field(obj, "content") {
        None => Content::Absent,
        Some(Value::Null) => Content::Null,
        Some(Value::String(s)) => Content::Text(s.clone()),
        Some(Value::Array(blocks)) => Content::Parts(blocks.iter().map(decode_block).collect::<Result<_>>()?),
        // LangChain JS lets a ToolMessage carry any JSON; it is kept whole.
        Some(v @ Value::Object(_)) => Content::Parts(vec![ContentPart::Other { raw: v.clone() }]),
        Some(v) => {
            return Err(Error::new(
                ErrorCode::InvalidMessage,
                format!("`content` must be a string or a list of blocks, got {}", kind(v)),
            )
            .field("content"))
        }
    };
    m.id = opt_id(obj, "id")?;
    m.name = opt_str(obj, "name")?;
    m.tool_call_id = opt_id(obj, "tool_call_id")?;
    m.status = match opt_str(obj, "status")?.as_deref() {
        None => None,
        Some("success") => Some(ToolStatus::Success),
        Some("error") => Some(ToolStatus::Error),
        Some(other) => {
            return Err(Error::new(
                ErrorCode::InvalidMessage,
                format!("tool status {other:?} is neither success nor error"),
            )
            .field("status"))
        }
    };
    for call in opt_array(obj, "tool_calls")? {
        let call = as_obj(call, "a tool call")?;
        // An OpenAI-shaped call `{id, type: "function", function: {name, arguments}}` without a
        // `name` of its own: LangChain's `coerceMessageLikeToMessage` converts it to
        // `{id, name: function.name, args: JSON.parse(arguments), type: "tool_call"}`
        // (@langchain/core 1.4 `_coerceToolCall`), so it is read as the OpenAI reader reads it.
        if !call.get("name").is_some_and(Value::is_string) && call.get("function").is_some_and(Value::is_object) {
            push_openai_call(&mut m, call)?;
            continue;
        }
        let id = opt_id(call, "id")?
            .ok_or_else(|| Error::new(ErrorCode::InvalidToolCall, "a tool call needs an `id`").field("tool_calls"))?;
        let name = opt_str(call, "name")?.unwrap_or_default();
        let args = call.get("args").cloned().unwrap_or_else(|| obj! {});
        m.tool_calls.push(ToolCall {
            id,
            name,
            args,
            raw_args: None,
            extra: extra_of(call, &["id", "name", "args"]),
            approval: None,
        });
    }
    for call in opt_array(obj, "invalid_tool_calls")? {
        let call = as_obj(call, "an invalid tool call")?;
        let id = opt_id(call, "id")?.ok_or_else(|| {
            Error::new(ErrorCode::InvalidToolCall, "an invalid tool call needs an `id`").field("invalid_tool_calls")
        })?;
        let args = match call.get("args") {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(v) => v.to_string(),
        };
        m.invalid_tool_calls.push(InvalidToolCall {
            id,
            name: opt_str(call, "name")?.unwrap_or_default(),
            args,
            error: opt_str(call, "error")?,
            extra: extra_of(call, &["id", "name", "args", "error"]),
        });
    }
    if role == Role::Assistant {
        legacy_calls(obj, &mut m)?;
    }
    m.extra = extra_of(obj, KNOWN);
    // What this reader ignores another format may read: refused then (conflicts.rs).
    super::conflicts::check(obj, Format::Langchain)?;
    Ok(m)
}

/// The calls an `AIMessage` keeps in `additional_kwargs` (older langchain-openai and LangChain.js
/// serialisations): when the message has no calls of its own (`tool_calls`, `invalid_tool_calls`
/// and `tool_call_chunks` absent or empty), its OpenAI-shaped `additional_kwargs.tool_calls` are
/// its calls, as LangChain's `AIMessage` reads them (Python `_backwards_compat_tool_calls`,
/// LangChain.js's constructor through `defaultToolCallParser`); `additional_kwargs` stays among
/// the unknown keys and is written back to LangChain. Errors: `INVALID_MESSAGE` (field
/// `additional_kwargs`) for OpenAI's legacy `function_call` there, which langchain-openai sends
/// as such and stategate does not read; a call's own errors (`INVALID_TOOL_CALL`).
fn legacy_calls(obj: &Map<String, Value>, m: &mut Message) -> Result<()> {
    let Some(kwargs) = field(obj, "additional_kwargs").and_then(Value::as_object) else { return Ok(()) };
    super::openai::refuse_function_call(kwargs, "additional_kwargs")?;
    let own = !m.tool_calls.is_empty()
        || !m.invalid_tool_calls.is_empty()
        || field(obj, "tool_call_chunks").and_then(Value::as_array).is_some_and(|c| !c.is_empty());
    if own {
        return Ok(());
    }
    for call in opt_array(kwargs, "tool_calls").map_err(|e| e.field("additional_kwargs"))? {
        let call = as_obj(call, "a tool call in `additional_kwargs.tool_calls`")?;
        push_openai_call(m, call).map_err(|e| e.field("additional_kwargs"))?;
    }
    Ok(())
}

/// An OpenAI-shaped call read as LangChain converts it (`type: "tool_call"`), into the message's
/// calls or, with arguments that are no JSON object, its invalid calls.
fn push_openai_call(m: &mut Message, call: &Map<String, Value>) -> Result<()> {
    match super::openai::decode_call(call)? {
        Ok(mut c) => {
            c.extra.put("type", Value::from("tool_call"));
            m.tool_calls.push(c);
        }
        Err(invalid) => m.invalid_tool_calls.push(invalid),
    }
    Ok(())
}

/// The dict `type` of a serialized class name (`AIMessage` → `ai`).
fn class_type(class: &str) -> &'static str {
    match class.trim_end_matches("Chunk") {
        "AIMessage" => "ai",
        "HumanMessage" => "human",
        "SystemMessage" => "system",
        "ToolMessage" => "tool",
        "RemoveMessage" => "remove",
        "ChatMessage" => "generic",
        "FunctionMessage" => "function",
        _ => "unknown",
    }
}

fn decode_block(v: &Value) -> Result<ContentPart> {
    let Some(b) = v.as_object() else {
        // LangChain allows bare strings inside content lists.
        return Ok(match v {
            Value::String(s) => ContentPart::text(s.clone()),
            _ => ContentPart::Other { raw: v.clone() },
        });
    };
    Ok(match b.get("type").and_then(Value::as_str) {
        Some("text") => {
            ContentPart::Text { text: opt_str(b, "text")?.unwrap_or_default(), extra: extra_of(b, &["type", "text"]) }
        }
        Some("reasoning") if b.get("reasoning").is_some_and(Value::is_string) => ContentPart::Reasoning {
            text: opt_str(b, "reasoning")?.unwrap_or_default(),
            extra: extra_of(b, &["type", "reasoning"]),
        },
        Some("image_url") => super::openai::decode_part(v)?,
        // An Anthropic image block, as ChatAnthropic takes it inside a LangChain message (its
        // `source` kept in `extra`, so it goes back to LangChain as it came).
        Some("image") if b.get("source").is_some_and(Value::is_object) => {
            let mut part = super::anthropic::decode_block(v)?;
            if let (ContentPart::Image { extra, .. }, Some(source)) = (&mut part, b.get("source")) {
                extra.insert("source".into(), source.clone());
            }
            part
        }
        // The standard blocks in each of their dialects (see `Dialect`): the keys of the one it
        // came in stay in `extra` (`source_type`, `mimeType`, `fileId`), so it goes back alike.
        Some("image") if b.contains_key("url") || b.contains_key("base64") || b.contains_key("data") => {
            ContentPart::Image {
                url: opt_str(b, "url")?,
                data: opt_str(b, "base64")?.or(opt_str(b, "data")?),
                media_type: opt_str(b, "mime_type")?.or(opt_str(b, "mimeType")?),
                extra: extra_of(b, &["type", "url", "base64", "data", "mime_type"]),
            }
        }
        // A standard file block: `url`, `base64` / `data`, `file_id` (v0: `id`; JS: `fileId`),
        // `mime_type` / `mimeType`, and the `filename` provider integrations read.
        Some("file") if ["url", "base64", "data", "file_id", "id", "fileId"].iter().any(|k| b.contains_key(*k)) => {
            let v0_id = b.get("source_type").and_then(Value::as_str) == Some("id");
            ContentPart::File {
                url: opt_str(b, "url")?,
                data: opt_str(b, "base64")?.or(opt_str(b, "data")?),
                file_id: opt_str(b, "file_id")?
                    .or(if v0_id { opt_str(b, "id")? } else { None })
                    .or(opt_str(b, "fileId")?),
                media_type: opt_str(b, "mime_type")?.or(opt_str(b, "mimeType")?),
                filename: opt_str(b, "filename")?,
                extra: extra_of(
                    b,
                    if v0_id {
                        &["type", "url", "base64", "data", "file_id", "id", "mime_type", "filename"]
                    } else {
                        &["type", "url", "base64", "data", "file_id", "mime_type", "filename"]
                    },
                ),
            }
        }
        _ => ContentPart::Other { raw: v.clone() },
    })
}

/// The keys of a standard image or file block. LangChain has three: v0's data block
/// (`source_type` + `data` / `url` / `id`, `mime_type`), which both @langchain/core JS 1.x
/// (`isDataContentBlock`, `convertToProviderContentBlock`) and Python langchain-core read; JS
/// v1's (`data` / `url` / `fileId`, `mimeType`: @langchain/core `ContentBlock.Multimodal`); and
/// Python v1's (`base64` / `url` / `file_id`, `mime_type`), which LangChain JS does not read (its
/// ChatAnthropic dropped such an image silently). A block goes back in the dialect it came in;
/// one of another format goes as v0's, which every LangChain reads.
/// (An Anthropic image block inside a LangChain message goes back as that block: `Kept`.)
#[derive(Clone, Copy)]
enum Dialect {
    V0,
    Js,
    Python,
    Kept,
}

impl Dialect {
    /// `image`: the block is an image (only an image can be an Anthropic block kept whole, whose
    /// `source` object `decode_block` put in `extra`; a standard block's stray `source` is not).
    fn of(extra: &Map<String, Value>, own: bool, image: bool) -> Dialect {
        let has = |k: &str| extra.contains_key(k);
        match own {
            false => Dialect::V0,
            true if image && extra.get("source").is_some_and(Value::is_object) => Dialect::Kept,
            true if has("mimeType") || has("fileId") => Dialect::Js,
            true if has("source_type") => Dialect::V0,
            true => Dialect::Python,
        }
    }

    fn put(
        self,
        o: &mut Map<String, Value>,
        url: &Option<String>,
        data: &Option<String>,
        file_id: &Option<String>,
        media_type: &Option<String>,
    ) {
        match self {
            Dialect::V0 => {
                let source = if url.is_some() {
                    "url"
                } else if data.is_some() {
                    "base64"
                } else {
                    "id"
                };
                o.put("source_type", Value::from(source));
                put_opt(o, "url", url.as_deref());
                put_opt(o, "data", data.as_deref());
                put_opt(o, "id", file_id.as_deref());
                put_opt(o, "mime_type", media_type.as_deref());
            }
            Dialect::Kept => {}
            // `mimeType` / `fileId` come back from `extra`.
            Dialect::Js => {
                put_opt(o, "url", url.as_deref());
                put_opt(o, "data", data.as_deref());
            }
            Dialect::Python => {
                put_opt(o, "url", url.as_deref());
                put_opt(o, "base64", data.as_deref());
                put_opt(o, "file_id", file_id.as_deref());
                put_opt(o, "mime_type", media_type.as_deref());
            }
        }
    }
}

fn encode_block(part: &ContentPart, own: bool) -> Option<Value> {
    let mut o = Map::new();
    match part {
        ContentPart::Text { text, extra } => {
            o.put("type", Value::from("text"));
            o.put("text", val(&text));
            if own {
                o.extend(extra.clone());
            }
        }
        ContentPart::Reasoning { text, extra } => {
            o.put("type", Value::from("reasoning"));
            o.put("reasoning", val(&text));
            if own {
                o.extend(extra.clone());
            }
        }
        ContentPart::Image { url, data, media_type, extra } => {
            o.put("type", Value::from("image"));
            Dialect::of(extra, own, true).put(&mut o, url, data, &None, media_type);
            if own {
                o.extend(extra.clone());
            }
        }
        ContentPart::File { url, data, file_id, media_type, filename, extra } => {
            o.put("type", Value::from("file"));
            Dialect::of(extra, own, false).put(&mut o, url, data, file_id, media_type);
            put_opt(&mut o, "filename", filename.as_deref());
            if own {
                o.extend(extra.clone());
            }
        }
        ContentPart::Other { raw } if own => return Some(raw.clone()),
        ContentPart::Other { raw } => return super::util::other_note(raw).and_then(|n| encode_block(&n, false)),
    }
    Some(Value::Object(o))
}

pub(super) fn encode(m: &Message) -> Value {
    let own = m.origin == Some(Format::Langchain);
    let mut o = Map::new();
    let ty = match m.role {
        Role::System => "system",
        Role::User => "human",
        Role::Assistant => "ai",
        Role::Tool => "tool",
    };
    o.put("type", val(&ty));
    let content = match &m.content {
        Content::Text(t) => val(&t),
        Content::Parts(parts) => Value::Array(parts.iter().filter_map(|p| encode_block(p, own)).collect()),
        Content::Null if own => Value::Null,
        Content::Null | Content::Absent => Value::from(""),
    };
    if !(own && matches!(m.content, Content::Absent)) {
        o.put("content", content);
    }
    put_opt(&mut o, "id", m.id.as_deref());
    put_opt(&mut o, "name", m.name.as_deref());
    if !m.tool_calls.is_empty() {
        let calls = m
            .tool_calls
            .iter()
            .map(|c| {
                let mut call = Map::new();
                call.put("id", val(&c.id));
                call.put("name", val(&c.name));
                call.put("args", c.args.clone());
                if own {
                    call.extend(c.extra.clone());
                } else {
                    call.put("type", Value::from("tool_call"));
                }
                Value::Object(call)
            })
            .collect();
        o.put("tool_calls", Value::Array(calls));
    }
    if !m.invalid_tool_calls.is_empty() {
        let calls = m
            .invalid_tool_calls
            .iter()
            .map(|c| {
                let mut call = Map::new();
                call.put("id", val(&c.id));
                call.put("name", val(&c.name));
                call.put("args", val(&c.args));
                if let Some(e) = &c.error {
                    call.put("error", val(&e));
                }
                if own {
                    call.extend(c.extra.clone());
                } else {
                    call.put("type", Value::from("invalid_tool_call"));
                }
                Value::Object(call)
            })
            .collect();
        o.put("invalid_tool_calls", Value::Array(calls));
    }
    put_opt(&mut o, "tool_call_id", m.tool_call_id.as_deref());
    if let Some(s) = m.status {
        o.put("status", val(&(if s == ToolStatus::Error { "error" } else { "success" })));
    }
    put_extra(&mut o, m, Format::Langchain);
    // Usage read from another format's fields travels as the AIMessage's `usage_metadata`.
    if let (Some(usage), false) = (&m.usage, o.contains_key("usage_metadata")) {
        if m.role == Role::Assistant {
            o.put("usage_metadata", crate::message::usage::langchain_usage_metadata(usage));
        }
    }
    Value::Object(o)
}
