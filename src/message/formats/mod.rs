//! Provider formats: detection, decoding into canonical [`Message`]s and encoding back.
//!
//! Five formats (DESIGN §2): LangChain (dict, serialized `lc: 1`, and `{type, data}`), OpenAI Chat,
//! Anthropic Messages, AI SDK `ModelMessage`, Gemini `Content`. Each input message is detected on
//! its own by its keys, so one list may mix formats; messages that look the same in several
//! formats (`{role: "user", content: "hi"}`) take the list's dominant format.
//!
//! One source message may decode to several canonical messages (an Anthropic user message with
//! three `tool_result` blocks gives three tool messages), and the encoder groups canonical messages
//! back the way each provider wants them ([`groups`]): consecutive tool results become one
//! Anthropic user message, one Gemini user turn, one AI SDK tool message.

mod ai_sdk;
mod anthropic;
mod gemini;
mod langchain;
mod openai;
mod ui;
#[cfg(test)]
mod ui_tests;
pub(crate) mod util;

use super::{Message, Role};
use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::ops::Range;

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// A message format. In JS: `"langchain" | "openai" | "anthropic" | "ai-sdk" | "gemini"`.
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
}

impl Format {
    /// All formats, in a fixed order.
    pub const ALL: [Format; 6] =
        [Format::Langchain, Format::Openai, Format::Anthropic, Format::AiSdk, Format::Gemini, Format::Ui];

    /// The format's name as used in options (`"ai-sdk"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Langchain => "langchain",
            Format::Openai => "openai",
            Format::Anthropic => "anthropic",
            Format::AiSdk => "ai-sdk",
            Format::Gemini => "gemini",
            Format::Ui => "ui",
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
            _ => false,
        }
    }

    /// Whether consecutive tool results are carried by one message in this format.
    fn merges_tool_results(self) -> bool {
        matches!(self, Format::Anthropic | Format::AiSdk | Format::Gemini)
    }
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
}

/// The format the content parts' types name (parts only one format has), if any. Parts of two
/// formats in one message are refused, never guessed (the message would read differently in
/// each): `INVALID_MESSAGE` naming both.
fn parts_format(obj: &Map<String, Value>) -> Result<Option<Format>> {
    let Some(Value::Array(parts)) = obj.get("content") else { return Ok(None) };
    let mut kinds = parts
        .iter()
        .filter_map(|p| p.get("type").and_then(Value::as_str))
        .filter_map(|t| part_format(t).map(|f| (t, f)));
    let Some((first_kind, first)) = kinds.next() else { return Ok(None) };
    if let Some((kind, other)) = kinds.find(|(_, f)| *f != first) {
        return Err(Error::new(
            ErrorCode::InvalidMessage,
            format!("content parts of two formats in one message: `{first_kind}` ({}) and `{kind}` ({}); use one format per message", first.as_str(), other.as_str()),
        )
        .field("content"));
    }
    Ok(Some(first))
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

/// Detects the format of one message from its keys.
///
/// Errors: `INVALID_MESSAGE` when `value` is not an object or has neither `role`, `type`, `lc`
/// nor `parts`.
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
        if !obj.contains_key("role") {
            return Ok(Detected::Sure(Format::Langchain));
        }
        // An Anthropic Messages API response kept whole: `{id, type: "message", role, model, …}`
        // (its parts must be Anthropic's too).
        if t == "message" {
            return match parts_format(obj)? {
                Some(f) if f != Format::Anthropic => Err(Error::new(
                    ErrorCode::InvalidMessage,
                    format!("an Anthropic message (`type: \"message\"`) with content parts of {}; use one format per message", f.as_str()),
                )
                .field("content")),
                _ => Ok(Detected::Sure(Format::Anthropic)),
            };
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
    if obj.contains_key("tool_calls") || obj.contains_key("tool_call_id") || role == "developer" {
        return Ok(Detected::Sure(Format::Openai));
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
    if obj.get("role").and_then(Value::as_str) == Some("model") {
        return Ok(Format::Gemini);
    }
    let typed = parts.iter().filter(|p| p.get("type").is_some_and(Value::is_string)).count();
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
/// so it only takes a role-based format (OpenAI, Anthropic, AI SDK): next to LangChain dicts or
/// Gemini contents it decodes as OpenAI. Gemini results without ids are paired
/// with the calls of the preceding model turn by order (Gemini's own rule).
///
/// Errors carry the index of the offending input message: `INVALID_MESSAGE`, `UNKNOWN_ROLE`,
/// `MISSING_TOOL_CALL_ID`, `INVALID_TOOL_CALL`.
pub fn decode_messages<V: std::borrow::Borrow<Value>>(values: &[V], hint: Option<Format>) -> Result<Decoded> {
    let detected =
        values.iter().enumerate().map(|(i, v)| detect(v.borrow()).map_err(|e| e.at(i))).collect::<Result<Vec<_>>>()?;
    let dominant =
        match hint.or_else(|| detected.iter().find_map(|d| if let Detected::Sure(f) = d { Some(*f) } else { None })) {
            Some(f @ (Format::Anthropic | Format::AiSdk)) => f,
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
    };
    for m in &mut messages {
        m.origin = Some(format);
        if m.role == Role::Assistant {
            m.usage = super::usage::usage_of(m);
        }
    }
    Ok(messages)
}

/// How the encoder groups canonical messages into output messages of `format`: each range becomes
/// one output message. Consecutive tool results share one message where the format says so; a
/// UIMessage holds an assistant turn's steps and results (a step continues the message it was
/// decoded from, see `ui::continues`).
pub fn groups(messages: &[Message], format: Format) -> Vec<Range<usize>> {
    group_with(&messages.iter().map(|m| m.role).collect::<Vec<_>>(), |i| ui::continues(messages, i), format)
}

/// [`groups`] from the roles alone (no step continues an earlier UIMessage).
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

/// Encodes one group (see [`groups`]) as one output message.
pub fn encode_group(group: &[Message], format: Format) -> Value {
    match format {
        Format::Langchain => group.first().map_or(Value::Null, langchain::encode),
        Format::Openai => group.first().map_or(Value::Null, openai::encode),
        Format::Anthropic => anthropic::encode(group),
        Format::AiSdk => ai_sdk::encode(group),
        Format::Gemini => gemini::encode(group),
        Format::Ui => ui::encode(group),
    }
}

/// Encodes canonical messages into `format`.
///
/// Fields a message kept in `extra` are emitted only when `format` is the message's origin; when
/// converting, only what the target format defines is written.
pub fn encode_messages(messages: &[Message], format: Format) -> Vec<Value> {
    // Gemini and the AI SDK name a result by its function (`functionResponse.name`,
    // `tool-result.toolName` are required): give nameless results the name of the call they answer.
    let named: Option<Vec<Message>> = (matches!(format, Format::Gemini | Format::AiSdk)
        && messages.iter().any(|m| m.role == Role::Tool && m.name.as_deref().unwrap_or("").is_empty()))
    .then(|| {
        let mut names: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
        messages
            .iter()
            .map(|m| {
                for c in &m.tool_calls {
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
    let mut out: Vec<Value> =
        groups(messages, format).into_iter().filter_map(|r| messages.get(r)).map(|g| encode_group(g, format)).collect();
    if format == Format::Ui {
        // A UIMessage needs an id: one the source had none for gets its position (`msg-3`).
        for (k, v) in out.iter_mut().enumerate() {
            if let Some(o) = v.as_object_mut().filter(|o| !o.contains_key("id")) {
                o.insert("id".into(), Value::String(format!("msg-{k}")));
            }
        }
    }
    out
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
mod tests;
