//! Messages that look like two formats at once: keys or parts that one format reads and the
//! format the message is read as would silently ignore.
//!
//! Detection picks one format per message from its keys ([`super::detect`]), and each reader
//! keeps the keys it does not model in `extra`, written back only to its own format. So a key
//! that another format reads — OpenAI's `tool_calls` beside Anthropic `tool_use` blocks, Gemini's
//! or a UIMessage's `parts` beside `content`, a LangChain `type` beside a `role` naming another
//! role — would be read by one format and dropped by the other: a silent wrong answer. Each such
//! pair is refused here with `INVALID_MESSAGE`, naming the keys or part types seen and the two
//! formats (never a value), with `details.field`; the decoder adds the message's index.
//!
//! What real frameworks write stays accepted, because nothing in it is lost:
//! - call blocks that repeat the message's own calls (same id, and the same name when both
//!   have one): a Claude-backed LangChain `AIMessage` carries its `tool_use` blocks in `content`
//!   and the same calls in `tool_calls` (@langchain/core 1.4);
//! - an AI SDK 4 UIMessage's `content` beside its `parts` when it only repeats the text of its
//!   last text parts (`useChat` kept all the text there, `appendResponseMessages` the text of the
//!   last response message);
//! - a LangChain `type` beside a `role` naming the same role (LangChain's own
//!   `coerceMessageLikeToMessage` reads `role` first).
//!
//! The checks run once a reader has taken a message (an error of the reader's own comes
//! first), whether its format was detected or given (`format` / `from`), so a forced format
//! refuses such a message too.

use super::util::field;
use super::Format;
use crate::error::{Error, ErrorCode, Result};
use serde_json::{Map, Value};

/// Checks a message a reader took as `format` (a LangChain message after its envelope is
/// unwrapped). Errors: `INVALID_MESSAGE` naming the pair, with `details.field`.
pub(super) fn check(obj: &Map<String, Value>, format: Format) -> Result<()> {
    let k = Keys::of(obj);
    canonical_marks(&k, format)?;
    type_beside_role(&k)?;
    parts_beside_content(&k, format)?;
    match format {
        Format::Langchain => call_blocks(&k, Format::Langchain),
        // (LangChain's `invalid_tool_calls` in a role-keyed message is not refused: the
        // repair fast path, ts/skeleton.ts, reads such messages as the OpenAI reader does.)
        Format::Openai => openai_keys_beside_other_parts(&k),
        _ => reserved_keys(&k, format),
    }
}

/// The keys these checks read, found in one pass over the message (every message decoded
/// goes through here, so a lookup per key would cost each append a scan per key).
#[derive(Default)]
struct Keys<'a> {
    ty: Option<&'a Value>,
    role: Option<&'a Value>,
    content: Option<&'a Value>,
    parts: Option<&'a Value>,
    tool_calls: Option<&'a Value>,
    tool_call_id: Option<&'a Value>,
    invalid_tool_calls: Option<&'a Value>,
    origin: Option<&'a Value>,
    extra: Option<&'a Value>,
}

impl<'a> Keys<'a> {
    fn of(obj: &'a Map<String, Value>) -> Keys<'a> {
        let mut k = Keys::default();
        for (key, v) in obj {
            let slot = match key.as_str() {
                "type" => &mut k.ty,
                "role" => &mut k.role,
                "content" => &mut k.content,
                "parts" => &mut k.parts,
                "tool_calls" => &mut k.tool_calls,
                "tool_call_id" => &mut k.tool_call_id,
                "invalid_tool_calls" => &mut k.invalid_tool_calls,
                "origin" => &mut k.origin,
                "extra" => &mut k.extra,
                _ => continue,
            };
            *slot = Some(v);
        }
        k
    }
}

fn invalid(message: String, field: &str) -> Error {
    Error::new(ErrorCode::InvalidMessage, message).field(field)
}

/// Whether a key holds something a reader could lose: present, not `null`, not an empty list.
fn holds(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Array(a)) => !a.is_empty(),
        Some(_) => true,
    }
}

/// The role a LangChain message `type` stands for (its dict and chunk names).
fn langchain_role(t: &str) -> Option<&'static str> {
    Some(match t {
        "human" | "user" | "HumanMessageChunk" => "user",
        "ai" | "assistant" | "AIMessageChunk" => "assistant",
        "system" | "developer" | "SystemMessageChunk" => "system",
        "tool" | "ToolMessageChunk" => "tool",
        _ => return None,
    })
}

/// A `role` as the role it names (`developer` is a system message everywhere, Gemini's `model`
/// the assistant).
fn role_of(role: &str) -> Option<&'static str> {
    Some(match role {
        "user" => "user",
        "assistant" | "model" => "assistant",
        "system" | "developer" => "system",
        "tool" => "tool",
        _ => return None,
    })
}

/// The marks of a canonical message ([`super::detect::canonical_mark`]) in a provider message. A
/// reader keeps such a key among the message's unknown keys and writes it back; once the encoder
/// has left out the keys it does not send, the message would read as canonical, its parts as the
/// canonical ones (a `tool_use` block refused, say).
fn canonical_marks(k: &Keys, format: Format) -> Result<()> {
    let Some(key) = super::detect::canonical_mark(k.origin, k.extra) else { return Ok(()) };
    Err(invalid(
        format!(
            "`{key}` in a message read as {}: that key marks a canonical message (stategate's own), so the message would be read back as canonical; drop or rename it",
            format.as_str()
        ),
        key,
    ))
}

/// A LangChain message `type` beside a `role` naming another role: LangChain reads `type`, the
/// role-based formats `role`, so the message would be another role's in one of them.
/// (`{type: "chat", role}` is a LangChain ChatMessage: its reader refuses it naming its role.)
fn type_beside_role(k: &Keys) -> Result<()> {
    let (Some(Value::String(t)), Some(role)) = (k.ty, k.role) else { return Ok(()) };
    let Some(from_type) = langchain_role(t) else { return Ok(()) };
    let seen = match (role.as_str(), role.as_str().and_then(role_of)) {
        (_, Some(named)) if named == from_type => return Ok(()),
        (Some(r), Some(_)) => format!("`role: {r:?}`"),
        (Some(_), None) => "a `role` no format has".to_string(),
        (None, _) => format!("a `role` that is {}", super::util::kind(role)),
    };
    Err(invalid(
        format!(
            "a LangChain `type: {t:?}` (a {from_type} message) beside {seen}: LangChain reads `type` and the role-based formats (OpenAI, Anthropic, AI SDK) read `role`, so the message would be another role's in one of them; keep the one that is right"
        ),
        "role",
    ))
}

/// `parts` (Gemini `Content`, AI SDK UIMessage) beside `content` (every other format): the
/// readers of `parts` ignore `content`, the others ignore `parts`.
fn parts_beside_content(k: &Keys, format: Format) -> Result<()> {
    if matches!(format, Format::Gemini | Format::Ui) {
        let Some(content) = k.content else { return Ok(()) };
        let parts = k.parts.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let seen = match content {
            Value::Null => return Ok(()),
            Value::String(s) if repeats_last_texts(s, parts, format) => return Ok(()),
            Value::String(_) => "a `content` text that is not the text of its last text parts".to_string(),
            other => format!("a `content` that is {}", super::util::kind(other)),
        };
        let whose = if format == Format::Ui {
            "an AI SDK UIMessage (typed `parts`)"
        } else {
            "a Gemini content (untyped `parts`)"
        };
        return Err(invalid(
            format!(
                "{whose} with {seen}: its reader reads `parts` and the role-based formats read `content`, so one of them would be lost; keep one (an AI SDK 4 UIMessage may keep a `content` that repeats the text of its last text parts)"
            ),
            "content",
        ));
    }
    if !holds(k.parts) {
        return Ok(());
    }
    Err(invalid(
        format!(
            "`parts` (Gemini, AI SDK UIMessage) in a message read as {}, which reads `content` and would lose `parts`; use one format per message",
            format.as_str()
        ),
        "parts",
    ))
}

/// Whether `content` is the text of the last text parts, joined as the AI SDK 4 joined them
/// (nothing between): all of them (`useChat`), or those of the last response message
/// (`appendResponseMessages`); `""` repeats none.
fn repeats_last_texts(content: &str, parts: &[Value], format: Format) -> bool {
    let mut rest = content;
    for t in parts.iter().rev().filter_map(|p| text_of(p, format)) {
        if rest.is_empty() {
            break;
        }
        match rest.strip_suffix(t) {
            Some(before) => rest = before,
            None => return false,
        }
    }
    rest.is_empty()
}

/// The text of a text part of `parts` (a UIMessage's `{type: "text"}`, a Gemini `{text}` that
/// is no thought), else `None`.
fn text_of(p: &Value, format: Format) -> Option<&str> {
    let o = p.as_object()?;
    let typed = field(o, "type").and_then(Value::as_str);
    let is_text = match format {
        Format::Ui => typed == Some("text"),
        _ => typed.is_none() && field(o, "thought").and_then(Value::as_bool) != Some(true),
    };
    field(o, "text").and_then(Value::as_str).filter(|_| is_text)
}

/// OpenAI's and LangChain's call keys in a message read as a format whose calls and results are
/// its own parts or items (which would lose them).
fn reserved_keys(k: &Keys, format: Format) -> Result<()> {
    let found = [
        // A result's call id is one value: present and not null is something to lose.
        ("tool_call_id", k.tool_call_id.is_some_and(|v| !v.is_null()), "OpenAI's and LangChain's"),
        ("tool_calls", holds(k.tool_calls), "OpenAI's and LangChain's"),
        ("invalid_tool_calls", holds(k.invalid_tool_calls), "LangChain's"),
    ];
    let Some((key, _, whose)) = found.into_iter().find(|(_, present, _)| *present) else { return Ok(()) };
    let own = match format {
        Format::Anthropic => "its calls and results are `tool_use` / `tool_result` blocks",
        Format::AiSdk => "its calls and results are `tool-call` / `tool-result` parts",
        Format::Gemini => "its calls and results are `functionCall` / `functionResponse` parts",
        Format::Ui => "its calls and results are tool parts",
        _ => "its calls and results are `function_call` / output items",
    };
    Err(invalid(
        format!(
            "`{key}` ({whose}) in a message read as {} ({own}), which would lose it; use one format per message",
            format.as_str()
        ),
        key,
    ))
}

/// Whether two ids are the same id (ids may come as numbers, read as their text).
fn same_id(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => x == y,
        (Value::String(s), Value::Number(n)) | (Value::Number(n), Value::String(s)) => *s == n.to_string(),
        _ => false,
    }
}

/// The format a call block's `type` is written in, for the blocks that carry a call.
fn call_block_format(t: &str) -> Option<&'static str> {
    match t {
        "tool_use" => Some("Anthropic"),
        "tool-call" => Some("AI SDK"),
        "tool_call" => Some("LangChain standard"),
        _ => None,
    }
}

/// Whether call block `b` repeats one of the message's own calls — `tool_calls` (OpenAI
/// `{id, function: {name}}` or LangChain `{id, name}`) or LangChain's `invalid_tool_calls` —:
/// the same id, and the same name when both name one.
fn repeats_a_call<'a>(b: &Map<String, Value>, k: &Keys<'a>) -> bool {
    let Some(id) = field(b, "id").or_else(|| field(b, "toolCallId")) else { return false };
    let name = field(b, "name").or_else(|| field(b, "toolName")).and_then(Value::as_str);
    let list = |v: Option<&'a Value>| v.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    list(k.tool_calls).iter().chain(list(k.invalid_tool_calls)).filter_map(Value::as_object).any(|c| {
        let function_name = || field(c, "function").and_then(Value::as_object).and_then(|f| field(f, "name"));
        let own = field(c, "name").or_else(function_name).and_then(Value::as_str);
        field(c, "id").is_some_and(|cid| same_id(cid, id)) && (name.is_none() || own.is_none() || name == own)
    })
}

/// Content blocks that carry a call (`tool_use`, `tool-call`, `tool_call`) beside a message's
/// own calls (`tool_calls`, `invalid_tool_calls`): each must repeat one of them, or the reader,
/// which pairs only the message's own calls, would lose it.
fn call_blocks(k: &Keys, format: Format) -> Result<()> {
    let Some(Value::Array(parts)) = k.content else { return Ok(()) };
    for (at, p) in parts.iter().enumerate() {
        let Some(b) = p.as_object() else { continue };
        let Some((t, whose)) = field(b, "type").and_then(Value::as_str).and_then(|t| Some((t, call_block_format(t)?)))
        else {
            continue;
        };
        if !repeats_a_call(b, k) {
            return Err(unrepeated_call(at, t, whose, format));
        }
    }
    Ok(())
}

/// The first content part that is a call block: its index, type and whose it is.
fn first_call_block<'a>(k: &Keys<'a>) -> Option<(usize, &'a str, &'static str)> {
    let Some(Value::Array(parts)) = k.content else { return None };
    parts.iter().enumerate().find_map(|(at, p)| {
        let t = p.as_object().and_then(|b| field(b, "type")).and_then(Value::as_str)?;
        call_block_format(t).map(|whose| (at, t, whose))
    })
}

fn unrepeated_call(k: usize, t: &str, whose: &str, format: Format) -> Error {
    let keys = if format == Format::Langchain { "`tool_calls` / `invalid_tool_calls`" } else { "`tool_calls`" };
    invalid(
        format!(
            "content part {k} is a `{t}` block ({whose}) that repeats none of the message's {keys} ({}) by id and name: read as {} it would be lost; a block that repeats a call is fine (a Claude-backed LangChain AIMessage carries both); else use one format per message",
            format.as_str(),
            format.as_str()
        ),
        "content",
    )
}

/// A message read as OpenAI Chat because of `tool_calls` / `tool_call_id`, with content parts of
/// another format: call blocks must repeat its calls (as above); result blocks (`tool_result`,
/// `tool-result`) are another format's results; and beside `tool_calls`, a part type another
/// format owns (an Anthropic `thinking`, an AI SDK `reasoning`), or no format has, would be read
/// differently by its own format. A tool result's content may hold any JSON (it is sent as its
/// JSON text), so only result blocks are refused there.
fn openai_keys_beside_other_parts(k: &Keys) -> Result<()> {
    let calls_key = k.tool_calls.is_some();
    if !calls_key && k.tool_call_id.is_none() {
        return Ok(());
    }
    if !calls_key {
        // Read as OpenAI for its `tool_call_id` alone: a call block has no call to repeat, and
        // the key to name is `tool_call_id`, not a `tool_calls` the message does not have.
        if let Some((at, t, whose)) = first_call_block(k) {
            return Err(invalid(
                format!("content part {at} is a `{t}` block ({whose}) in a message read as openai for its `tool_call_id` (OpenAI's and LangChain's), which has no `tool_calls` for the block to repeat: read as openai the call would be lost; use one format per message"),
                "tool_call_id",
            ));
        }
    }
    call_blocks(k, Format::Openai)?;
    let Some(Value::Array(parts)) = k.content else { return Ok(()) };
    let key = if calls_key { "tool_calls" } else { "tool_call_id" };
    let tool = k.role.and_then(Value::as_str) == Some("tool");
    for (at, p) in parts.iter().enumerate() {
        let Some(part) = p.as_object() else { continue };
        let Some(t) = field(part, "type").and_then(Value::as_str) else { continue };
        if call_block_format(t).is_some() {
            continue; // checked above: it repeats a call
        }
        let seen = match t {
            "tool_result" => "an Anthropic `tool_result` block",
            "tool-result" => "an AI SDK `tool-result` part",
            _ if tool => continue,
            _ if !super::detect::is_part_type(t) => {
                return Err(invalid(
                    format!("unknown content part type {t:?} (content part {at}): no format has it (the shared ones are text, image, file; then each format's own, e.g. image_url, tool_use, tool-call, input_text)"),
                    "content",
                ))
            }
            _ => match super::detect::part_format(t) {
                // OpenAI Chat's file part nests its data in `file`; the AI SDK's has `data`.
                Some(Format::AiSdk) if t == "file" && field(part, "file").is_some_and(Value::is_object) => continue,
                Some(f) if f != Format::Openai && !matches!(t, "refusal" | "input_audio") => {
                    return Err(invalid(
                        format!(
                            "content part {at} is a `{t}` part ({}) beside OpenAI's `{key}`: read as OpenAI it would not be what its own format reads; use one format per message",
                            f.as_str()
                        ),
                        "content",
                    ))
                }
                _ => continue,
            },
        };
        return Err(invalid(
            format!(
                "content part {at} is {seen} beside OpenAI's `{key}`: a result of two formats at once, read as OpenAI it would not be paired; use one format per message"
            ),
            "content",
        ));
    }
    Ok(())
}
