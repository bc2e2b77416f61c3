//! Provider formats: detection, decoding into canonical [`Message`]s and encoding back.
//!
//! Eight formats (DESIGN §2): LangChain (dict, serialized `lc: 1`, and `{type, data}`), OpenAI Chat,
//! Anthropic Messages, AI SDK `ModelMessage`, Gemini `Content`, AI SDK `UIMessage` (`useChat`
//! state; one UIMessage holds an assistant turn's steps and results), and two flat item lists: OpenAI
//! Responses API input items and OpenAI Agents SDK items. Each input message is detected on its
//! own by its keys, so one list may mix formats; messages that look the same in several formats
//! (`{role: "user", content: "hi"}`) take the list's dominant format.
//!
//! One source message may decode to several canonical messages (an Anthropic user message with
//! three `tool_result` blocks gives three tool messages), and the encoder groups canonical messages
//! back the way each provider wants them ([`groups`]): consecutive tool results become one
//! Anthropic user message, one Gemini user turn, one AI SDK tool message. The item formats go the
//! other way: one item per message, call and result, so an assistant turn is a run of assistant
//! items ([`same_turn`]), merged into one message in the other formats, and an assistant message
//! with calls is written as several items.

mod ai_sdk;
mod anthropic;
mod approval_parts;
mod conflicts;
#[cfg(test)]
mod conflicts_tests;
mod detect;
mod encode;
mod gemini;
mod langchain;
mod openai;
mod responses;
mod ui;
#[cfg(test)]
mod ui_tests;
pub(crate) mod util;

use super::{Content, ContentPart, Message, Role};
use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::ops::Range;

pub use ai_sdk::DENIED;
pub use detect::{detect, Detected};
pub(crate) use encode::put_extra;
pub use encode::{
    convert, convert_decoded, encode_group, encode_indexed, encode_messages, group_roles, group_with, groups,
    keep_request_fields, prepare,
};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// A message format. In JS: `"langchain" | "openai" | "anthropic" | "ai-sdk" | "gemini" | "ui" |
/// "responses" | "openai-agents"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// LangChain messages: `{type: "human"|"ai"|"tool"|"system", …}`; also read from
    /// `{lc: 1, kwargs}` and `{type, data}`. Encoded as the plain dict (`model_dump` shape).
    Langchain,
    /// OpenAI Chat Completions messages (`role`, `tool_calls[].function.arguments` as JSON text).
    Openai,
    /// Anthropic Messages API (`content` blocks `text`, `tool_use`, `tool_result`, `thinking`).
    Anthropic,
    /// Vercel AI SDK `ModelMessage` (parts `tool-call` / `tool-result`, v5 `input` / `output`).
    AiSdk,
    /// Google Gemini `Content` (`role: "user"|"model"`, `parts` with `functionCall` /
    /// `functionResponse`).
    Gemini,
    /// Vercel AI SDK `UIMessage` (`useChat` state: `{id, role, parts}` with `text`, `reasoning`,
    /// tool parts `tool-<name>` / `dynamic-tool` carrying their state and result, `file`,
    /// sources, `data-*`, `step-start`).
    Ui,
    /// OpenAI Responses API input items (`ResponseInputItem`): `message`, `function_call`
    /// (`call_id`, `arguments` as JSON text), `function_call_output`, `reasoning`, and hosted tool
    /// items kept verbatim. One item per message, call and result.
    Responses,
    /// OpenAI Agents SDK items (`AgentInputItem`: `result.history`, `RunState`, Sessions): the
    /// Responses items in the SDK's own schema (`callId`, `function_call_result`, `providerData`,
    /// `hosted_tool_call`).
    OpenaiAgents,
}

impl Format {
    /// All formats, in a fixed order.
    pub const ALL: [Format; 8] = [
        Format::Langchain,
        Format::Openai,
        Format::Anthropic,
        Format::AiSdk,
        Format::Gemini,
        Format::Ui,
        Format::Responses,
        Format::OpenaiAgents,
    ];

    /// The format's name as used in options (`"ai-sdk"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Langchain => "langchain",
            Format::Openai => "openai",
            Format::Anthropic => "anthropic",
            Format::AiSdk => "ai-sdk",
            Format::Gemini => "gemini",
            Format::Ui => "ui",
            Format::Responses => "responses",
            Format::OpenaiAgents => "openai-agents",
        }
    }

    /// Parses a format name; `INVALID_OPTION` for anything else.
    pub fn parse(name: &str) -> Result<Format> {
        Format::ALL.into_iter().find(|f| f.as_str() == name).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidOption,
                format!("unknown format {name:?}; use one of {}", Format::ALL.map(Format::as_str).join(", ")),
            )
        })
    }

    /// Whether `key` is a field a provider's response has but its request refuses ("Extra
    /// inputs are not permitted"): kept in the canonical message (the store, the log and the
    /// budget read it) and never written back into this format. Anthropic's `Message` response
    /// fields (`id`, `type`, `model`, `stop_reason`, `stop_sequence`, `usage`, `container`,
    /// `stop_details`, `context_management`; `MessageParam` has `role` and `content` only) and an
    /// OpenAI message's `id` (`ChatCompletionMessageParam` has none).
    pub fn response_only(self, key: &str) -> bool {
        match self {
            Format::Anthropic => matches!(
                key,
                "id" | "type"
                    | "model"
                    | "stop_reason"
                    | "stop_sequence"
                    | "usage"
                    | "container"
                    | "stop_details"
                    | "context_management"
            ),
            Format::Openai => key == "id",
            // An app's own record of a step's usage on a ModelMessage: no request field.
            Format::AiSdk => key == "usage",
            _ => false,
        }
    }

    /// Whether consecutive tool results are carried by one message in this format.
    fn merges_tool_results(self) -> bool {
        matches!(self, Format::Anthropic | Format::AiSdk | Format::Gemini)
    }

    /// Whether this is a flat item list (Responses, OpenAI Agents): one item per message, per tool
    /// call and per tool result, so an assistant turn is a run of items ([`same_turn`]).
    pub fn is_items(self) -> bool {
        matches!(self, Format::Responses | Format::OpenaiAgents)
    }
}

/// Whether a message (role, format) continues the assistant turn of the message before it: both
/// are assistant items of an item format (Responses, OpenAI Agents), where a turn's reasoning,
/// text and each call are items of their own. Validation and repair treat such a run as one
/// assistant message; encoding into another format merges it into one.
pub fn same_turn(prev: (Role, Option<Format>), next: (Role, Option<Format>)) -> bool {
    let items = |f: Option<Format>| f.is_some_and(Format::is_items);
    prev.0 == Role::Assistant && next.0 == Role::Assistant && items(prev.1) && items(next.1)
}

/// Canonical messages decoded from a list, with the source index of each.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The canonical messages, in order.
    pub messages: Vec<Message>,
    /// For each canonical message, the index of the input message it came from.
    pub source: Vec<usize>,
    /// The format of each input message (after resolving plain messages to the dominant format).
    pub formats: Vec<Format>,
}

/// A message array from its JSON text, as `JSON.parse` would read it: serde_json's bounded
/// reader (128 levels of nesting at most, so nothing recurses without limit), and `\ud800`-style
/// escapes of lone surrogates — exactly what `JSON.stringify` writes for a string holding one —
/// read as U+FFFD, as strings with lone surrogates read everywhere else.
///
/// Errors: `INVALID_JSON` for text that is not JSON (or nests too deep); `INVALID_MESSAGE` for
/// JSON that is not an array.
pub fn values_from_json_text(text: &str) -> Result<Vec<Value>> {
    match util::value_from_json_text(text) {
        Ok(Value::Array(a)) => Ok(a),
        Ok(_) => Err(Error::new(ErrorCode::InvalidMessage, "messages must be an array")),
        Err(e) => Err(Error::new(ErrorCode::InvalidJson, format!("messages are not valid JSON: {e}"))),
    }
}

/// Decodes a list of messages in any supported format(s).
///
/// `hint` is the format given to plain messages that fit several formats; without it, the first
/// message whose format is certain decides, else OpenAI. A plain message is `{role, content}`,
/// so it only takes a role-based format (OpenAI, Anthropic, AI SDK, Responses, OpenAI Agents):
/// next to LangChain dicts or Gemini contents it decodes as OpenAI. A message item both item
/// formats share ([`Detected::Item`]) takes the list's item format: OpenAI Agents when the hint
/// says so or some item is the SDK's only, else Responses; a plain `developer` message is a
/// Responses item in a list whose dominant format is an item format, else OpenAI. Gemini results
/// without ids are paired with the calls of the preceding model turn by order (Gemini's own rule).
///
/// Errors carry the index of the offending input message: `INVALID_MESSAGE`, `UNKNOWN_ROLE`,
/// `MISSING_TOOL_CALL_ID`, `INVALID_TOOL_CALL`.
pub fn decode_messages<V: std::borrow::Borrow<Value>>(values: &[V], hint: Option<Format>) -> Result<Decoded> {
    decode_reading(values, hint, None)
}

/// [`decode_messages`] with every message read as `format`, no detection (the `format` /
/// `from` option: a message that is not that format's is refused by its reader, never read as
/// another). Errors as [`decode_messages`].
pub fn decode_messages_as<V: std::borrow::Borrow<Value>>(values: &[V], format: Format) -> Result<Decoded> {
    decode_reading(values, Some(format), Some(format))
}

fn decode_reading<V: std::borrow::Borrow<Value>>(
    values: &[V],
    hint: Option<Format>,
    forced: Option<Format>,
) -> Result<Decoded> {
    let detected = match forced {
        Some(f) => vec![Detected::Sure(f); values.len()],
        None => values
            .iter()
            .enumerate()
            .map(|(i, v)| detect(v.borrow()).map_err(|e| e.at(i)))
            .collect::<Result<Vec<_>>>()?,
    };
    let first_sure = detected.iter().find_map(|d| if let Detected::Sure(f) = d { Some(*f) } else { None });
    // The item format of the list: the hint's, else the SDK's when some item is the SDK's only,
    // else the Responses API's.
    let items = match hint {
        Some(f) if f.is_items() => f,
        _ if detected.contains(&Detected::Sure(Format::OpenaiAgents)) => Format::OpenaiAgents,
        _ => Format::Responses,
    };
    let has_items =
        hint.is_some_and(Format::is_items) || detected.iter().any(|d| matches!(d, Detected::Sure(f) if f.is_items()));
    let dominant = match hint.or(first_sure) {
        Some(f @ (Format::Anthropic | Format::AiSdk)) => f,
        Some(f) if f.is_items() => items,
        _ => Format::Openai,
    };
    let mut out = Decoded {
        messages: Vec::with_capacity(values.len()),
        source: Vec::with_capacity(values.len()),
        formats: Vec::with_capacity(values.len()),
    };
    let mut gemini_pending: Vec<(String, String)> = Vec::new();
    for (i, (value, det)) in values.iter().zip(&detected).enumerate() {
        let (format, decoded) = match det {
            Detected::Sure(f) => (*f, decode_one(value.borrow(), *f).map_err(|e| e.at(i))?),
            Detected::Plain => (dominant, decode_one(value.borrow(), dominant).map_err(|e| e.at(i))?),
            Detected::Item => (items, decode_one(value.borrow(), items).map_err(|e| e.at(i))?),
            Detected::Developer => {
                let f = if has_items && dominant.is_items() { Format::Responses } else { Format::Openai };
                (f, decode_one(value.borrow(), f).map_err(|e| e.at(i))?)
            }
            Detected::Canonical => {
                // Read in place (`&Value`), as the store reads a logged message: one reader of
                // `Message` for both, and no copy of the value first (issue 17, row 5).
                let m = Message::deserialize(value.borrow()).map_err(|e| {
                    Error::new(
                        ErrorCode::InvalidMessage,
                        format!("a canonical message (it has `origin` or `extra`) that does not read as one: {e}"),
                    )
                    .at(i)
                })?;
                (m.origin.unwrap_or(Format::Openai), vec![m])
            }
        };
        let canonical = matches!(det, Detected::Canonical);
        let mut decoded = decoded;
        if format == Format::Gemini {
            gemini::pair_ids(&mut decoded, &mut gemini_pending, i);
        }
        for m in decoded {
            check_calls(&m).map_err(|e| e.at(i))?;
            if !canonical {
                check_typed_parts(&m, format).map_err(|e| e.at(i))?;
            }
            if m.role == Role::Tool && m.approval.is_none() && m.tool_call_id.as_deref().is_none_or(str::is_empty) {
                return Err(Error::new(
                    ErrorCode::MissingToolCallId,
                    "a tool result needs the id of the call it answers (`tool_call_id`)",
                )
                .field("tool_call_id")
                .at(i));
            }
            out.messages.push(m);
            out.source.push(i);
        }
        out.formats.push(format);
    }
    crate::message::approvals::link(&mut out.messages);
    Ok(out)
}

/// The rules every tool call follows whatever its format, as every provider's request does: only
/// an assistant message makes calls; each has a non-empty name (OpenAI `function.name`, Anthropic `tool_use.name`, AI SDK `toolName`, Gemini
/// `functionCall.name`, LangChain's required `ToolCall.name`), and an id no other call of the same
/// message uses (a second result could not say which call it answers). `INVALID_TOOL_CALL`.
/// The longest id (of a message, a tool call, the call a result answers) or tool name a message
/// may carry, in characters: provider ids are a few dozen characters, and every id is quoted in
/// placeholders, reports and the log, so an unbounded one could exhaust memory.
pub const MAX_ID_CHARS: usize = 1024;

/// A content part of a format whose parts are typed objects (every format but Gemini) must say
/// its `type`: an untyped object in a user, system or assistant message is refused
/// (`INVALID_MESSAGE`) rather than carried as an unknown part, whose text no other format would
/// send — `{text: "hi"}` there is a Gemini part in the wrong place, or a typo. A tool result may
/// be any JSON (LangChain JS lets a ToolMessage carry an object): it is sent as its JSON text.
fn check_typed_parts(m: &Message, format: Format) -> Result<()> {
    if format == Format::Gemini || m.role == Role::Tool {
        return Ok(());
    }
    let Content::Parts(parts) = &m.content else { return Ok(()) };
    for (k, part) in parts.iter().enumerate() {
        let ContentPart::Other { raw } = part else { continue };
        if raw.get("type").is_some_and(Value::is_string) {
            continue;
        }
        // What was seen is named by its keys, never its values (errors carry no content).
        let seen = match raw.as_object() {
            Some(o) => {
                let keys: Vec<&str> = o.keys().map(String::as_str).take(8).collect();
                let more = if o.len() > keys.len() { ", …" } else { "" };
                format!("keys {{{}{more}}}", keys.join(", "))
            }
            None => util::kind(raw).to_string(),
        };
        let gemini =
            if raw.get("text").is_some() || raw.get("inlineData").is_some() || raw.get("functionCall").is_some() {
                "; a part keyed by its field is a Gemini part: Gemini contents are {role, parts: [...]}"
            } else {
                ""
            };
        return Err(Error::new(
            ErrorCode::InvalidMessage,
            format!(
                "content part {k} is an object without a `type`: {seen}; {} content parts are typed objects such as {{\"type\": \"text\", \"text\": …}}{gemini}",
                format.as_str()
            ),
        )
        .field("content"));
    }
    Ok(())
}

fn check_calls(m: &Message) -> Result<()> {
    let long = |s: &str| s.len() > MAX_ID_CHARS && s.chars().count() > MAX_ID_CHARS;
    let names =
        m.tool_calls.iter().map(|c| c.name.as_str()).chain(m.invalid_tool_calls.iter().map(|c| c.name.as_str()));
    // Each too-long string named by the field that holds it (`name`: a tool call's name).
    let too_long = [
        (m.id.as_deref().is_some_and(long), "id", "the message's id"),
        (m.tool_call_id.as_deref().is_some_and(long), "tool_call_id", "the id of the call this result answers"),
        (m.call_ids().any(long), "tool_calls", "a tool call's id"),
        (names.into_iter().any(long), "name", "a tool call's name"),
    ];
    if let Some((_, field, what)) = too_long.into_iter().find(|(over, _, _)| *over) {
        return Err(Error::new(
            ErrorCode::InvalidMessage,
            format!(
                "{what} is longer than {MAX_ID_CHARS} characters (the longest id or tool name a message may carry)"
            ),
        )
        .field(field));
    }
    if m.role != Role::Assistant && (!m.tool_calls.is_empty() || !m.invalid_tool_calls.is_empty()) {
        return Err(Error::new(
            ErrorCode::InvalidToolCall,
            "only an assistant message makes tool calls; this one is not from the assistant",
        )
        .field("tool_calls"));
    }
    if let Some(c) = m.tool_calls.iter().find(|c| c.name.is_empty()) {
        return Err(Error::new(
            ErrorCode::InvalidToolCall,
            format!("tool call '{}' has no name; every provider needs the tool's name", c.id),
        )
        .field("tool_calls"));
    }
    // An empty id pairs nothing: it is a call (or a result) without an id.
    if m.call_ids().any(str::is_empty) {
        return Err(Error::new(ErrorCode::InvalidToolCall, "a tool call has an empty id; every call needs its own id")
            .field("tool_calls"));
    }
    // Only a tool result answers a call: the id on another message (a result sent as a user
    // message, say) is refused, not read past, as OpenAI's API refuses it; repair would otherwise
    // answer the call with a placeholder while its real result sat in that message.
    if m.role != Role::Tool && m.tool_call_id.is_some() {
        let role = match m.role {
            Role::System => "a system (or developer)",
            Role::User => "a user",
            _ => "an assistant",
        };
        return Err(Error::new(
            ErrorCode::InvalidMessage,
            format!("{role} message carries `tool_call_id`; only a tool result answers a call (give it the tool role)"),
        )
        .field("tool_call_id"));
    }
    if m.role == Role::Tool && m.tool_call_id.as_deref() == Some("") {
        return Err(Error::new(
            ErrorCode::MissingToolCallId,
            "a tool result has an empty `tool_call_id`; give the id of the call it answers",
        )
        .field("tool_call_id"));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = m.call_ids().find(|c| !seen.insert(*c)) {
        return Err(Error::new(
            ErrorCode::InvalidToolCall,
            format!("call id '{dup}' appears twice in one message; every call needs its own id"),
        )
        .field("tool_calls"));
    }
    Ok(())
}

/// Decodes one message known to be in `format`. A message its reader takes while ignoring keys
/// or parts another format reads is refused (`INVALID_MESSAGE`, see `conflicts.rs`).
pub fn decode_one(value: &Value, format: Format) -> Result<Vec<Message>> {
    let obj = value.as_object().ok_or_else(|| {
        Error::new(ErrorCode::InvalidMessage, format!("a message must be an object, got {}", util::kind(value)))
    })?;
    let mut messages = match format {
        Format::Langchain => vec![langchain::decode(obj)?],
        Format::Openai => vec![openai::decode(obj)?],
        Format::Anthropic => anthropic::decode(obj)?,
        Format::AiSdk => ai_sdk::decode(obj)?,
        Format::Gemini => gemini::decode(obj)?,
        Format::Ui => ui::decode(obj)?,
        Format::Responses | Format::OpenaiAgents => vec![responses::decode(obj, format)?],
    };
    // What the reader took, it may have taken by ignoring another format's keys: refused then.
    // (A LangChain message is checked by its reader, once its envelope is unwrapped.)
    if format != Format::Langchain {
        conflicts::check(obj, format)?;
    }
    for m in &mut messages {
        read_in(m, format);
    }
    Ok(messages)
}

/// What every message read in `format` carries: its origin, and an assistant's token usage.
fn read_in(m: &mut Message, format: Format) {
    m.origin = Some(format);
    if m.role == Role::Assistant {
        m.usage = super::usage::usage_of(m);
    }
}

/// The message `{role, content: text}` — a plain chat message, the shape of most appends — as
/// [`decode_messages`] reads it when every message of a list has that shape: in OpenAI's
/// format (`role` system, user or assistant; a tool result is read by [`decode_one`]).
/// Made without a JSON tree (issue 17, row 2); the same message either way (tested).
pub fn decode_plain(role: Role, text: String) -> Message {
    let mut m = Message::new(role, text);
    read_in(&mut m, Format::Openai);
    m
}

#[cfg(test)]
mod ai_sdk_tests;
#[cfg(test)]
mod approvals_tests;
#[cfg(test)]
mod conversion_tests;
#[cfg(test)]
mod gemini_tests;
#[cfg(test)]
mod responses_tests;
#[cfg(test)]
mod tests;
