//! OpenAI Chat Completions messages.
//!
//! `{role: "system"|"developer"|"user"|"assistant"|"tool", content: string|null|parts, name?,
//! tool_calls?: [{id, type: "function", function: {name, arguments: "<JSON text>"}}], tool_call_id?}`.
//! `developer` decodes to system and encodes as `system`. Arguments that are not JSON become an
//! invalid tool call (LangChain does the same). Tool results are encoded with string content
//! (text parts joined), except that a list of text parts from an OpenAI source is kept as is.
//! A call `{id, name, args}` (no `function`) is a LangChain tool call in a role-keyed
//! message-like dict and is read as LangChain reads it.

use super::util::{
    args_text, as_obj, call_from_json_text, content_as_string, extra_of, opt_array, opt_id, opt_str, put_opt,
};
use super::util::{field, key_list, says_nothing};
use super::{put_extra, Format};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{obj, val, Put};
use crate::message::{Content, ContentPart, InvalidToolCall, Message, Role, ToolCall, ToolStatus};
use serde_json::{Map, Value};

const KNOWN: &[&str] = &["role", "content", "name", "tool_calls", "tool_call_id"];

pub(super) fn decode(obj: &Map<String, Value>) -> Result<Message> {
    let role = match field(obj, "role").and_then(Value::as_str).unwrap_or_default() {
        "system" | "developer" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        other => {
            return Err(Error::new(
                ErrorCode::UnknownRole,
                format!("unknown OpenAI role {other:?}; expected system, developer, user, assistant or tool"),
            )
            .field("role"))
        }
    };
    let mut m = Message::new(role, "");
    m.content = decode_content(field(obj, "content"))?;
    m.name = opt_str(obj, "name")?;
    m.id = opt_id(obj, "id")?;
    m.tool_call_id = opt_id(obj, "tool_call_id")?;
    // An OpenAI tool message has no status: a repair placeholder (the result of a call that
    // never completed) is an error result, as it is where it was written (`store.repair`), so
    // Anthropic gets `is_error` and the AI SDK `error-text` for it.
    if role == Role::Tool {
        if let (Content::Text(t), Some(id)) = (&m.content, m.tool_call_id.as_deref()) {
            if crate::message::is_placeholder(t, id) {
                m.status = Some(ToolStatus::Error);
            }
        }
    }
    refuse_function_call(obj, "function_call")?;
    for call in opt_array(obj, "tool_calls")? {
        let call = as_obj(call, "a tool call")?;
        let function = call.get("function").and_then(Value::as_object);
        // `{id, name, args}` without `function` is a LangChain tool call in a role-keyed
        // message-like dict, which LangChain's `convert_to_messages` / `coerceMessageLikeToMessage`
        // take as it is: read it as they do (also how canonical calls read back).
        if let (None, Some(name), Some(args)) = (
            function,
            call.get("name").and_then(Value::as_str).filter(|n| !n.is_empty()),
            call.get("args").filter(|a| a.is_object()),
        ) {
            let id = opt_id(call, "id")?.ok_or_else(|| {
                Error::new(ErrorCode::InvalidToolCall, "a tool call needs an `id`").field("tool_calls")
            })?;
            m.tool_calls.push(ToolCall {
                id,
                name: name.to_string(),
                args: args.clone(),
                raw_args: None,
                extra: extra_of(call, &["id", "name", "args", "type"]),
                approval: None,
            });
            continue;
        }
        match decode_call(call)? {
            Ok(c) => m.tool_calls.push(c),
            Err(invalid) => m.invalid_tool_calls.push(invalid),
        }
    }
    m.extra = extra_of(obj, KNOWN);
    Ok(m)
}

/// OpenAI's legacy function calling (`function_call`, answered by a `role: "function"` message,
/// which is refused as an unknown role) in `obj` (a message, or a LangChain message's
/// `additional_kwargs`): not read, so refused rather than dropped (`INVALID_MESSAGE` on
/// `field`). `null` says there is none.
pub(super) fn refuse_function_call(obj: &Map<String, Value>, field_name: &str) -> Result<()> {
    if field(obj, "function_call").is_none_or(Value::is_null) {
        return Ok(());
    }
    let at = if field_name == "function_call" { String::new() } else { format!("{field_name}.") };
    Err(Error::new(
        ErrorCode::InvalidMessage,
        format!("`{at}function_call` (OpenAI's legacy function calling) is not read: write the call as a tool call (`tool_calls`)"),
    )
    .field(field_name))
}

/// One OpenAI tool call `{id, type: "function", function: {name, arguments: "<JSON text>"}}`:
/// a call, or an invalid call when its arguments are not a JSON object (kept as the text sent).
/// Also how a LangChain `AIMessage` dict's OpenAI-shaped call is read (LangChain's
/// `coerceMessageLikeToMessage` converts it, @langchain/core 1.4 `_coerceToolCall`).
/// Errors: `INVALID_TOOL_CALL` for a call without an `id` or a `function.name`, or whose
/// `function` has a field beyond `name` and `arguments` that says something.
pub(super) fn decode_call(call: &Map<String, Value>) -> Result<std::result::Result<ToolCall, InvalidToolCall>> {
    let id = opt_id(call, "id")?
        .ok_or_else(|| Error::new(ErrorCode::InvalidToolCall, "a tool call needs an `id`").field("tool_calls"))?;
    let function = call.get("function").and_then(Value::as_object);
    let name = function.and_then(|f| f.get("name")).and_then(Value::as_str).filter(|n| !n.is_empty()).map(str::to_string).ok_or_else(|| {
        let hint = if call.get("name").is_some_and(Value::is_string) { " ({id, name, args} is a LangChain tool call: put it in a LangChain message {type: \"ai\", tool_calls})" } else { "" };
        Error::new(ErrorCode::InvalidToolCall, format!("an OpenAI tool call is {{id, type: \"function\", function: {{name, arguments}}}}; this one has no function name{hint}")).field("tool_calls")
    })?;
    // A field of `function` beyond these two was read past, and lost in every output (an OpenAI
    // one too): refused, as Gemini's unread call fields are (one whose value says nothing passes).
    let mut unread =
        function.into_iter().flatten().filter(|(k, v)| *k != "name" && *k != "arguments" && !says_nothing(v));
    if unread.clone().next().is_some() {
        return Err(Error::new(
            ErrorCode::InvalidToolCall,
            format!(
                "tool call '{id}': an OpenAI call's `function` is {{name, arguments}}; its {} is not read, and dropping it would change what the history says",
                key_list(&mut unread.by_ref().map(|(k, _)| k.as_str()), ", "),
            ),
        )
        .field("tool_calls"));
    }
    let args = match function.and_then(|f| f.get("arguments")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    };
    Ok(call_from_json_text(id, name, args, extra_of(call, &["id", "type", "function"])))
}

fn decode_content(v: Option<&Value>) -> Result<Content> {
    Ok(match v {
        None => Content::Absent,
        Some(Value::Null) => Content::Null,
        Some(Value::String(s)) => Content::Text(s.clone()),
        Some(Value::Array(parts)) => Content::Parts(parts.iter().map(decode_part).collect::<Result<_>>()?),
        Some(v @ Value::Object(_)) => Content::Parts(vec![ContentPart::Other { raw: v.clone() }]),
        Some(v) => {
            return Err(Error::new(
                ErrorCode::InvalidMessage,
                format!(
                    "`content` must be a string, null, a list of parts or one part object, got {}",
                    super::util::kind(v)
                ),
            )
            .field("content"))
        }
    })
}

pub(super) fn decode_part(v: &Value) -> Result<ContentPart> {
    let p = as_obj(v, "a content part")?;
    Ok(match p.get("type").and_then(Value::as_str) {
        Some("text") => {
            ContentPart::Text { text: opt_str(p, "text")?.unwrap_or_default(), extra: extra_of(p, &["type", "text"]) }
        }
        Some("image_url") => {
            let image = p.get("image_url");
            let url = match image {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Object(o)) => o.get("url").and_then(Value::as_str).map(str::to_string),
                _ => None,
            };
            let extra = image.and_then(Value::as_object).map(|o| extra_of(o, &["url"])).unwrap_or_default();
            ContentPart::Image { url, data: None, media_type: None, extra }
        }
        // `{type: "file", file: {file_data?: "data:…;base64,…", file_id?, filename?}}`.
        Some("file") => match p.get("file").and_then(Value::as_object) {
            Some(f) => ContentPart::File {
                url: opt_str(f, "file_data")?,
                data: None,
                file_id: opt_str(f, "file_id")?,
                media_type: None,
                filename: opt_str(f, "filename")?,
                extra: extra_of(f, &["file_data", "file_id", "filename"]),
            },
            None => ContentPart::Other { raw: v.clone() },
        },
        _ => ContentPart::Other { raw: v.clone() },
    })
}

pub(super) fn encode_part(part: &ContentPart, origin: Option<Format>) -> Option<Value> {
    let origin_is_self = origin == Some(Format::Openai);
    match part {
        ContentPart::Text { text, extra } => {
            let mut o = Map::new();
            o.put("type", Value::from("text"));
            o.put("text", val(&text));
            if origin_is_self {
                o.extend(extra.clone());
            }
            Some(Value::Object(o))
        }
        ContentPart::Image { url, data, media_type, extra } => {
            let url = match (url, data) {
                (Some(u), _) => u.clone(),
                (None, Some(d)) => format!("data:{};base64,{d}", media_type.as_deref().unwrap_or("image/png")),
                (None, None) => return None,
            };
            let mut image = Map::new();
            image.put("url", val(&url));
            if origin_is_self {
                image.extend(extra.clone());
            } else if let Some(detail) = super::util::image_detail(extra, origin) {
                image.put("detail", detail.clone());
            }
            Some(obj! {"type": "image_url", "image_url": image})
        }
        file @ ContentPart::File { url, data, file_id, media_type, filename, extra } => {
            if let Some(image) = super::util::file_as_image(file) {
                return encode_part(&image, origin);
            }
            // A file goes inline as a data URL (`file_data`) or by `file_id`; Chat Completions
            // takes no file URL.
            let inline = super::util::file_inline(url.as_deref(), data.as_deref(), media_type.as_deref());
            if inline.is_none() && file_id.is_none() {
                let note = super::util::file_note(file, "OpenAI Chat takes a file inline or by file_id, not by URL");
                return encode_part(&note, None);
            }
            let mut f = Map::new();
            match (url, inline) {
                (Some(u), _) if u.starts_with("data:") => put_opt(&mut f, "file_data", Some(u)),
                (_, Some((mt, d))) => put_opt(&mut f, "file_data", Some(&format!("data:{mt};base64,{d}"))),
                _ => {}
            }
            put_opt(&mut f, "file_id", file_id.as_deref());
            let name = match inline {
                Some((mt, _)) => super::util::inline_file_name(filename.as_deref(), Some(mt)),
                None => filename.as_deref(),
            };
            put_opt(&mut f, "filename", name);
            if origin_is_self {
                f.extend(extra.clone());
            }
            Some(obj! {"type": "file", "file": f})
        }
        ContentPart::Reasoning { .. } => None,
        ContentPart::Other { raw } if origin_is_self => Some(raw.clone()),
        ContentPart::Other { raw } => super::util::other_note(raw).and_then(|n| encode_part(&n, None)),
    }
}

pub(super) fn encode(m: &Message) -> Value {
    let own = m.origin == Some(Format::Openai);
    let mut o = Map::new();
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    o.put("role", val(&role));
    let keep_parts = own
        && !(m.role == Role::Tool
            && matches!(&m.content, Content::Parts(p) if p.iter().any(|p| !matches!(p, ContentPart::Text { .. }))));
    match &m.content {
        Content::Absent => {
            if m.role != Role::Assistant || (m.tool_calls.is_empty() && m.invalid_tool_calls.is_empty()) {
                o.put("content", Value::from(""));
            }
        }
        Content::Null => {
            o.put("content", Value::Null);
        }
        Content::Text(t) => {
            o.put("content", val(&t));
        }
        // An Anthropic or AI SDK turn that held only tool calls: OpenAI wants `content: null`.
        Content::Parts(p)
            if p.is_empty()
                && !own
                && m.role == Role::Assistant
                && !(m.tool_calls.is_empty() && m.invalid_tool_calls.is_empty()) =>
        {
            o.put("content", Value::Null);
        }
        // Several text blocks stay blocks (the request takes text parts), never run together.
        Content::Parts(p)
            if m.role == Role::Tool && p.len() > 1 && p.iter().all(|x| matches!(x, ContentPart::Text { .. })) =>
        {
            let texts: Vec<Value> = p
                .iter()
                .filter_map(|x| match x {
                    ContentPart::Text { text, .. } => Some(obj! {"type": "text", "text": text}),
                    _ => None,
                })
                .collect();
            o.put("content", Value::Array(texts));
        }
        Content::Parts(_) if m.role == Role::Tool && !keep_parts => {
            o.put("content", val(&content_as_string(&m.content)));
        }
        Content::Parts(parts) => {
            let parts: Vec<Value> = parts.iter().filter_map(|p| encode_part(p, m.origin)).collect();
            let calls = !(m.tool_calls.is_empty() && m.invalid_tool_calls.is_empty());
            // Nothing this format can carry beside the calls (a UIMessage's step-start, say):
            // `content: null`, as for a call-only turn.
            let value = if parts.is_empty() && !own && m.role == Role::Assistant && calls {
                Value::Null
            } else {
                Value::Array(parts)
            };
            o.put("content", value);
        }
    }
    // A tool message has no `name` in the Chat Completions request (`ChatCompletionToolMessageParam`):
    // written back only to an OpenAI message that had one.
    if m.role != Role::Tool || own {
        put_opt(&mut o, "name", m.name.as_deref());
    }
    if !m.tool_calls.is_empty() || !m.invalid_tool_calls.is_empty() {
        let mut calls: Vec<Value> = Vec::new();
        for c in &m.tool_calls {
            let mut call = Map::new();
            call.put("id", val(&c.id));
            call.put("type", Value::from("function"));
            call.put("function", obj! {"name": c.name, "arguments": args_text(c)});
            if own {
                call.extend(c.extra.clone());
            }
            calls.push(Value::Object(call));
        }
        for c in &m.invalid_tool_calls {
            calls.push(obj! {"id": c.id, "type": "function", "function": obj!{"name": c.name, "arguments": c.args}});
        }
        o.put("tool_calls", Value::Array(calls));
    }
    put_opt(&mut o, "tool_call_id", m.tool_call_id.as_deref());
    put_extra(&mut o, m, Format::Openai);
    Value::Object(o)
}
