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

/// How sure detection is of a message's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    /// Keys only this format uses.
    Sure(Format),
    /// A plain `{role, content: string}` message that every role-based format shares.
    Plain,
    /// A canonical [`Message`] as stategate itself writes it (`store.get("messages")`,
    /// `decodeMessages`): only canonical keys, with its `origin` format or its `extra` fields.
    /// Read back as it is, so feeding stategate's own output in gives the same messages.
    Canonical,
    /// A message item (or another item) the Responses API and the OpenAI Agents SDK write alike:
    /// it takes the list's item format (OpenAI Agents when the hint says so or some item is
    /// the SDK's only, else Responses).
    Item,
    /// `{role: "developer", …}` with no other mark, which OpenAI Chat and the Responses API both
    /// take: Responses when the list's dominant format is an item format, else OpenAI.
    Developer,
}

/// The format the content parts' types name (parts only one format has), if any. Parts of two
/// formats in one message are refused, never guessed (the message would read differently in
/// each): `INVALID_MESSAGE` naming both.
fn parts_format(obj: &Map<String, Value>) -> Result<Option<Format>> {
    let Some(Value::Array(parts)) = obj.get("content") else { return Ok(None) };
    let mut kinds = parts.iter().filter_map(|p| {
        let t = p.get("type").and_then(Value::as_str)?;
        // OpenAI Chat's file part nests its data in `file`; the AI SDK's has `data` / `mediaType`.
        if t == "file" && p.get("file").is_some_and(Value::is_object) {
            return Some((t, Format::Openai));
        }
        part_format(t).map(|f| (t, f))
    });
    let Some((first_kind, first)) = kinds.next() else { return Ok(None) };
    // `refusal` and `input_audio` parts are OpenAI Chat's and the Responses API's alike.
    let shared = |kind: &str| matches!(kind, "refusal" | "input_audio");
    let all: Vec<(&str, Format)> = std::iter::once((first_kind, first)).chain(kinds).collect();
    if let Some((kind, f)) = all.iter().copied().find(|(_, f)| *f == Format::Responses) {
        return match all.iter().copied().find(|(k, g)| *g != Format::Responses && !shared(k)) {
            Some((other_kind, other)) => Err(two_formats(kind, f, other_kind, other)),
            None => Ok(Some(Format::Responses)),
        };
    }
    if let Some((kind, other)) = all.iter().copied().find(|(_, f)| *f != first) {
        return Err(two_formats(first_kind, first, kind, other));
    }
    Ok(Some(first))
}

fn two_formats(a: &str, fa: Format, b: &str, fb: Format) -> Error {
    Error::new(
        ErrorCode::InvalidMessage,
        format!(
            "content parts of two formats in one message: `{a}` ({}) and `{b}` ({}); use one format per message",
            fa.as_str(),
            fb.as_str()
        ),
    )
    .field("content")
}

/// The keys of a canonical [`Message`] (its serde field names).
const CANONICAL_KEYS: [&str; 11] = [
    "id",
    "role",
    "content",
    "name",
    "tool_calls",
    "invalid_tool_calls",
    "tool_call_id",
    "status",
    "usage",
    "origin",
    "extra",
];

/// Whether `obj` is a canonical message: canonical keys only, and the `origin` or `extra` that no
/// provider format has at the top level.
fn is_canonical(obj: &Map<String, Value>) -> bool {
    let marked = obj.get("origin").and_then(Value::as_str).is_some_and(|o| Format::parse(o).is_ok())
        || obj.get("extra").is_some_and(Value::is_object);
    marked && obj.keys().all(|k| CANONICAL_KEYS.contains(&k.as_str()))
}

/// LangChain's message `type`s (its dict and chunk names).
const LANGCHAIN_TYPES: &[&str] = &[
    "human",
    "user",
    "ai",
    "assistant",
    "system",
    "developer",
    "tool",
    "remove",
    "chat",
    "function",
    "HumanMessageChunk",
    "AIMessageChunk",
    "ToolMessageChunk",
    "SystemMessageChunk",
];

/// Detects the format of one message from its keys.
///
/// A `type` that names a Responses / Agents SDK item (`function_call`, `reasoning`,
/// `web_search_call`, …) is an item of that format, whatever other keys it has; `type: "message"`
/// is a Responses message item, or an Anthropic Messages API response (`{id, type: "message",
/// role, model, content: blocks}`) when its parts or keys are Anthropic's. Any other `type` without
/// `role` is a LangChain message when it has `content` (or the `{type, data}` envelope) or names a
/// LangChain type; else it is refused as an unknown Responses item.
///
/// Errors: `INVALID_MESSAGE` when `value` is not an object, has neither `role`, `type`, `lc` nor
/// `parts`, or has a `type` that is neither LangChain's nor a Responses item type.
pub fn detect(value: &Value) -> Result<Detected> {
    let obj = value.as_object().ok_or_else(|| {
        Error::new(ErrorCode::InvalidMessage, format!("a message must be an object, got {}", util::kind(value)))
    })?;
    if is_canonical(obj) {
        return Ok(Detected::Canonical);
    }
    if obj.contains_key("lc") && obj.contains_key("kwargs") {
        return Ok(Detected::Sure(Format::Langchain));
    }
    if let Some(Value::String(t)) = obj.get("type") {
        if let Some(d) = responses::detect_item(obj, t) {
            return Ok(d);
        }
        if t == "message" {
            return message_item(obj);
        }
        if !obj.contains_key("role") {
            let langchain =
                obj.contains_key("content") || obj.contains_key("data") || LANGCHAIN_TYPES.contains(&t.as_str());
            return if langchain { Ok(Detected::Sure(Format::Langchain)) } else { Err(responses::unknown_type(t)) };
        }
    }
    if let Some(Value::Array(parts)) = obj.get("parts") {
        return parts_list_format(obj, parts).map(Detected::Sure);
    }
    let Some(role) = obj.get("role").and_then(Value::as_str) else {
        return Err(Error::new(
            ErrorCode::InvalidMessage,
            "a message needs a `role` (OpenAI, Anthropic, AI SDK), a `type` (LangChain), `lc` + `kwargs` (LangChain serialized) or `parts` (Gemini, AI SDK UIMessage)",
        ));
    };
    if role == "model" {
        return Ok(Detected::Sure(Format::Gemini));
    }
    if obj.contains_key("tool_calls") || obj.contains_key("tool_call_id") {
        return Ok(Detected::Sure(Format::Openai));
    }
    // Parts only the Responses items use, the SDK's `providerData` or an item's `status` / `phase`.
    let responses_parts = matches!(parts_format(obj)?, Some(Format::Responses));
    if responses_parts || obj.contains_key("providerData") || obj.contains_key("status") || obj.contains_key("phase") {
        return Ok(responses::detect_message(obj));
    }
    if role == "developer" {
        return Ok(Detected::Developer);
    }
    if obj.contains_key("providerOptions") {
        return Ok(Detected::Sure(Format::AiSdk));
    }
    // Content that is one part object (not a string, a list or null) is read only by the OpenAI
    // reader: say so, so the message reads the same whatever its neighbours are.
    if obj.get("content").is_some_and(Value::is_object) {
        return Ok(Detected::Sure(Format::Openai));
    }
    if let Some(Value::Array(parts)) = obj.get("content") {
        if let Some(f) = parts_format(obj)? {
            return Ok(Detected::Sure(f));
        }
        for part in parts {
            if part.get("cache_control").is_some() || part.get("citations").is_some() {
                return Ok(Detected::Sure(Format::Anthropic));
            }
            if part.get("providerOptions").is_some() {
                return Ok(Detected::Sure(Format::AiSdk));
            }
        }
    }
    Ok(Detected::Plain)
}

/// Whose `parts` list this is: Gemini's parts have no `type` (`{text}`, `{functionCall}`, …), an
/// AI SDK UIMessage's all have one. Gemini's `role: "model"` decides; a list mixing typed and
/// untyped parts is refused, naming both candidates; an empty list is a UIMessage when the
/// message has the `id` or `metadata` a UIMessage has.
fn parts_list_format(obj: &Map<String, Value>, parts: &[Value]) -> Result<Format> {
    let typed = parts.iter().filter(|p| p.get("type").is_some_and(Value::is_string)).count();
    if obj.get("role").and_then(Value::as_str) == Some("model") {
        // Gemini's own role, and Gemini parts have no `type`.
        return match typed {
            0 => Ok(Format::Gemini),
            _ => Err(Error::new(
                ErrorCode::InvalidMessage,
                "a Gemini `role: \"model\"` content with typed parts (Gemini parts have no `type`; an AI SDK UIMessage's role is \"assistant\")",
            )
            .field("parts")),
        };
    }
    match (typed, parts.len()) {
        (0, 0) if obj.contains_key("id") || obj.contains_key("metadata") => Ok(Format::Ui),
        (0, _) => Ok(Format::Gemini),
        (t, n) if t == n => Ok(Format::Ui),
        _ => Err(Error::new(
            ErrorCode::InvalidMessage,
            "a `parts` list mixing typed parts (an AI SDK UIMessage) and untyped ones (Gemini): use one format per message",
        )
        .field("parts")),
    }
}

/// A `type: "message"` object: an Anthropic Messages API response kept whole (`{id, type:
/// "message", role, model, content: blocks}`: Anthropic parts, or `model` / `stop_reason` /
/// `usage`), else a Responses message item. Parts of another format are refused.
fn message_item(obj: &Map<String, Value>) -> Result<Detected> {
    let anthropic_keys = ["model", "stop_reason", "stop_sequence", "usage"].iter().any(|k| obj.contains_key(*k));
    match parts_format(obj)? {
        Some(Format::Anthropic) => Ok(Detected::Sure(Format::Anthropic)),
        Some(Format::Responses) => Ok(responses::detect_message(obj)),
        None if anthropic_keys => Ok(Detected::Sure(Format::Anthropic)),
        None => Ok(responses::detect_message(obj)),
        // `refusal` / `input_audio` parts are the Responses API's too; `image_url` is Chat's only.
        Some(Format::Openai) if !anthropic_keys && !has_part(obj, "image_url") => Ok(responses::detect_message(obj)),
        Some(f) => Err(message_with(f)),
    }
}

/// Whether some content part of `obj` has this `type`.
fn has_part(obj: &Map<String, Value>, kind: &str) -> bool {
    obj.get("content")
        .and_then(Value::as_array)
        .is_some_and(|parts| parts.iter().any(|p| p.get("type").and_then(Value::as_str) == Some(kind)))
}

fn message_with(f: Format) -> Error {
    Error::new(
        ErrorCode::InvalidMessage,
        format!(
            "a `type: \"message\"` object (an Anthropic response or a Responses message item) with content parts of {}; use one format per message",
            f.as_str()
        ),
    )
    .field("content")
}

/// The format a content-part `type` belongs to, when only one format uses it.
fn part_format(kind: &str) -> Option<Format> {
    match kind {
        "tool_use"
        | "tool_result"
        | "thinking"
        | "redacted_thinking"
        | "document"
        | "server_tool_use"
        | "web_search_tool_result" => Some(Format::Anthropic),
        "tool-call" | "tool-result" | "reasoning" | "file" | "tool-approval-request" | "tool-approval-response" => {
            Some(Format::AiSdk)
        }
        "image_url" | "input_audio" | "refusal" => Some(Format::Openai),
        "input_text" | "output_text" | "input_image" | "input_file" => Some(Format::Responses),
        _ => None,
    }
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
    let parsed = serde_json::from_str::<Value>(text).or_else(|e| match util::mend_lone_surrogates(text) {
        Some(mended) => serde_json::from_str::<Value>(&mended),
        None => Err(e),
    });
    match parsed {
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
                let m: Message = serde_json::from_value(value.borrow().clone()).map_err(|e| {
                    Error::new(
                        ErrorCode::InvalidMessage,
                        format!("a canonical message (it has `origin` or `extra`) that does not read as one: {e}"),
                    )
                    .at(i)
                })?;
                (m.origin.unwrap_or(Format::Openai), vec![m])
            }
        };
        for mut m in decoded {
            if format == Format::Gemini {
                gemini::pair_ids(&mut m, &mut gemini_pending, i);
            }
            check_calls(&m).map_err(|e| e.at(i))?;
            if m.role == Role::Tool && m.tool_call_id.as_deref().is_none_or(str::is_empty) {
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

fn check_calls(m: &Message) -> Result<()> {
    let long = |s: &str| s.len() > MAX_ID_CHARS && s.chars().count() > MAX_ID_CHARS;
    let names =
        m.tool_calls.iter().map(|c| c.name.as_str()).chain(m.invalid_tool_calls.iter().map(|c| c.name.as_str()));
    if m.id.as_deref().into_iter().chain(m.tool_call_id.as_deref()).chain(m.call_ids()).chain(names).any(long) {
        return Err(Error::new(
            ErrorCode::InvalidMessage,
            format!("an id or tool name is longer than {MAX_ID_CHARS} characters"),
        )
        .field("id"));
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

/// Decodes one message known to be in `format`.
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
    for m in &mut messages {
        m.origin = Some(format);
        if m.role == Role::Assistant {
            m.usage = super::usage::usage_of(m);
        }
    }
    Ok(messages)
}

/// How the encoder groups canonical messages into output messages of `format`: each range is
/// encoded together ([`encode_group`]). Consecutive tool results share one message where the
/// format says so; a run of assistant items of an item format ([`same_turn`]) is one turn, so
/// it is one group in every format that writes a turn as one message. In an item format every
/// message is its own group (and may give several items: its text, then one per call). A
/// UIMessage holds an assistant turn's steps and results (a step continues the message it was
/// decoded from, see `ui::continues`).
pub fn groups(messages: &[Message], format: Format) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|p| messages.get(p));
        let joins = prev.is_some_and(|p| {
            let turn = !format.is_items() && same_turn((p.role, p.origin), (m.role, m.origin));
            match format {
                // Results fold into the assistant message before them.
                Format::Ui => {
                    m.role == Role::Tool || (m.role == Role::Assistant && (turn || ui::continues(messages, i)))
                }
                _ => (format.merges_tool_results() && m.role == Role::Tool && p.role == Role::Tool) || turn,
            }
        });
        match out.last_mut() {
            Some(last) if joins => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// [`groups`] from the roles alone, for messages of one format that are not item-format turns
/// (repair encodes a run of items back into its own item format, where no turn is merged; no
/// step continues an earlier UIMessage).
pub fn group_roles(roles: &[Role], format: Format) -> Vec<Range<usize>> {
    group_with(roles, |_| false, format)
}

/// [`groups`] from the roles and, for UIMessages, whether the assistant message at `i`
/// continues the one before it.
pub fn group_with(roles: &[Role], continues: impl Fn(usize) -> bool, format: Format) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(roles.len());
    for (i, role) in roles.iter().enumerate() {
        let joins = match format {
            // Results fold into the assistant message before them.
            Format::Ui => i > 0 && (*role == Role::Tool || (*role == Role::Assistant && continues(i))),
            _ => format.merges_tool_results() && *role == Role::Tool && i > 0 && roles.get(i - 1) == Some(&Role::Tool),
        };
        match out.last_mut() {
            Some(last) if joins => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// One assistant message for a turn of several (see [`same_turn`]): the content of each in
/// order (text as text parts), then all calls, valid then invalid (a call id seen before in the
/// turn is left out); the first one's id and name.
/// `extra` is left out: it belongs to the items, and only the item format writes it.
fn merge_turn(group: &[Message]) -> Message {
    let mut parts = Vec::new();
    let mut m = group.first().cloned().unwrap_or_else(|| Message::new(Role::Assistant, ""));
    m.tool_calls.clear();
    m.invalid_tool_calls.clear();
    m.extra.clear();
    for g in group {
        match &g.content {
            Content::Text(t) if !t.is_empty() => parts.push(ContentPart::text(t.clone())),
            Content::Parts(p) => parts.extend(p.iter().cloned()),
            _ => {}
        }
        m.tool_calls.extend(g.tool_calls.iter().cloned());
        m.invalid_tool_calls.extend(g.invalid_tool_calls.iter().cloned());
    }
    // One message cannot carry a call id twice (check_calls): a repeated item gives it once.
    let mut seen = std::collections::HashSet::new();
    m.tool_calls.retain(|c| seen.insert(c.id.clone()));
    m.invalid_tool_calls.retain(|c| seen.insert(c.id.clone()));
    m.content = Content::Parts(parts);
    m
}

/// Encodes one group (see [`groups`]): one output message, or in an item format the items of
/// each message (one or more, none for an assistant message of another format with nothing an
/// item can carry).
pub fn encode_group(group: &[Message], format: Format) -> Vec<Value> {
    // An AI SDK approval response goes back only to the AI SDK (no other request has one).
    if format != Format::AiSdk && group.iter().any(Message::is_aside) {
        let kept: Vec<Message> = group.iter().filter(|m| !m.is_aside()).cloned().collect();
        return if kept.is_empty() { Vec::new() } else { encode_group(&kept, format) };
    }
    if format.is_items() {
        return group.iter().flat_map(|m| responses::encode(m, format)).collect();
    }
    if format == Format::Ui {
        return vec![ui::encode(group)];
    }
    let merged;
    let group = if group.len() > 1 && group.first().is_some_and(|m| m.role == Role::Assistant) {
        merged = [merge_turn(group)];
        &merged[..]
    } else {
        group
    };
    vec![match format {
        Format::Langchain => group.first().map_or(Value::Null, langchain::encode),
        Format::Openai => group.first().map_or(Value::Null, openai::encode),
        Format::Anthropic => anthropic::encode(group),
        Format::AiSdk => ai_sdk::encode(group),
        Format::Gemini => gemini::encode(group),
        Format::Ui => ui::encode(group),
        Format::Responses | Format::OpenaiAgents => Value::Null,
    }]
}

/// Encodes canonical messages into `format`.
///
/// Fields a message kept in `extra` are emitted only when `format` is the message's origin; when
/// converting, only what the target format defines is written.
pub fn encode_messages(messages: &[Message], format: Format) -> Vec<Value> {
    encode_indexed(messages, format).0
}

/// [`encode_messages`], with, for each canonical message, the index of the first output message
/// its group was written to (for a group written as nothing, an item-format assistant message
/// with nothing to carry, the index the next output message has).
pub fn encode_indexed(messages: &[Message], format: Format) -> (Vec<Value>, Vec<usize>) {
    // Gemini, the AI SDK and the Agents SDK name a result by its function (`functionResponse.name`,
    // `tool-result.toolName`, `function_call_result.name` are required): give nameless results the
    // name of the call they answer.
    let named: Option<Vec<Message>> = (matches!(format, Format::Gemini | Format::AiSdk | Format::OpenaiAgents)
        && messages.iter().any(|m| m.role == Role::Tool && m.name.as_deref().unwrap_or("").is_empty()))
    .then(|| {
        let mut names: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
        messages
            .iter()
            .map(|m| {
                for c in &m.tool_calls {
                    names.insert(c.id.as_str(), c.name.as_str());
                }
                // A call whose arguments did not parse is answered by name too.
                for c in m.invalid_tool_calls.iter().filter(|c| !c.name.is_empty()) {
                    names.insert(c.id.as_str(), c.name.as_str());
                }
                let mut m = m.clone();
                if m.role == Role::Tool && m.name.as_deref().unwrap_or("").is_empty() {
                    m.name = m.tool_call_id.as_deref().and_then(|id| names.get(id)).map(|n| n.to_string());
                }
                m
            })
            .collect()
    });
    let messages = named.as_deref().unwrap_or(messages);
    let placed = place_media(messages, format);
    let messages = placed.as_deref().unwrap_or(messages);
    let mut out = Vec::with_capacity(messages.len());
    let mut index = vec![0; messages.len()];
    for range in groups(messages, format) {
        if let Some(slot) = index.get_mut(range.clone()) {
            slot.fill(out.len());
        }
        out.extend(messages.get(range).map(|g| encode_group(g, format)).unwrap_or_default());
    }
    if format == Format::Ui {
        // A UIMessage needs an id: one the source had none for gets its position (`msg-3`).
        for (k, v) in out.iter_mut().enumerate() {
            if let Some(o) = v.as_object_mut().filter(|o| !o.contains_key("id")) {
                o.insert("id".into(), Value::String(format!("msg-{k}")));
            }
        }
    }
    (out, index)
}

/// Images and files in messages whose role `format`'s request takes none in, made what it takes:
/// OpenAI Chat and Anthropic take them only from the user (a system or assistant image becomes a
/// text note naming it); an AI SDK assistant message takes an image as a `file` part and an AI
/// SDK system message only text; a Responses or Agents system or assistant message takes none. Tool results follow the providers' own
/// result rules (validation and repair). `None` when nothing moves.
fn place_media(messages: &[Message], format: Format) -> Option<Vec<Message>> {
    // What the caller wrote in this very format is written back as it came (round trips stay exact).
    let moves = |m: &Message| match (format, m.role) {
        _ if m.origin == Some(format) => false,
        (_, Role::User | Role::Tool) => false,
        (Format::Openai | Format::Anthropic | Format::Responses | Format::OpenaiAgents | Format::AiSdk, _) => true,
        _ => false,
    };
    let is_media = |p: &ContentPart| matches!(p, ContentPart::Image { .. } | ContentPart::File { .. });
    let touched = |m: &Message| moves(m) && matches!(&m.content, Content::Parts(p) if p.iter().any(is_media));
    if !messages.iter().any(touched) {
        return None;
    }
    let why = match format {
        Format::Openai => "OpenAI Chat takes images and files only in user messages",
        Format::Anthropic => "Anthropic takes images and documents only in user messages",
        Format::AiSdk => "an AI SDK system message is text",
        _ => "a system or assistant message item takes no images or files",
    };
    Some(
        messages
            .iter()
            .map(|m| {
                let mut m = m.clone();
                if touched(&m) {
                    if let Content::Parts(parts) = &mut m.content {
                        for p in parts.iter_mut() {
                            *p = match (&*p, format) {
                                (ContentPart::Image { url, data, media_type, .. }, Format::AiSdk)
                                    if m.role == Role::Assistant =>
                                {
                                    ContentPart::File {
                                        url: url.clone(),
                                        data: data.clone(),
                                        file_id: None,
                                        media_type: media_type.clone().or(Some("image/png".into())),
                                        filename: None,
                                        extra: Map::new(),
                                    }
                                }
                                (ContentPart::File { .. }, Format::AiSdk) if m.role == Role::Assistant => p.clone(),
                                (ContentPart::Image { .. }, _) => ContentPart::text(format!("[image not sent: {why}]")),
                                (ContentPart::File { .. }, _) => util::file_note(p, why),
                                _ => p.clone(),
                            };
                        }
                    }
                }
                m
            })
            .collect(),
    )
}

/// Writes `extra` fields into `obj` when the message came from `format`, without overwriting the
/// fields the encoder set.
pub(crate) fn put_extra(obj: &mut Map<String, Value>, m: &Message, format: Format) {
    if m.origin == Some(format) {
        for (k, v) in &m.extra {
            if !obj.contains_key(k) && !format.response_only(k) {
                obj.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod responses_tests;
#[cfg(test)]
mod tests;
