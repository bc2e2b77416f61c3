//! Detection: which format a message is in, read from its keys alone — a message that matches no
//! format exactly, or two at once, is refused with what was seen, never guessed.

use super::util::{field, has};
use super::*;

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
    let Some(Value::Array(parts)) = field(obj, "content") else { return Ok(None) };
    // A part type no format has (a typo such as `txt`) is refused: read as any format it would
    // be dropped silently on the way to another.
    if let Some(t) = parts.iter().filter_map(|p| p.get("type").and_then(Value::as_str)).find(|t| !is_part_type(t)) {
        return Err(Error::new(
            ErrorCode::InvalidMessage,
            format!("unknown content part type {t:?}: no format has it (the shared ones are text, image, file; then each format's own, e.g. image_url, tool_use, tool-call, input_text)"),
        )
        .field("content"));
    }
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
const CANONICAL_KEYS: [&str; 12] = [
    "id",
    "role",
    "content",
    "name",
    "tool_calls",
    "invalid_tool_calls",
    "tool_call_id",
    "status",
    "approval",
    "usage",
    "origin",
    "extra",
];

/// The key that marks a canonical message, given its `origin` and `extra` values: an `origin`
/// naming a format, or an `extra` object, which no provider format has at the top level.
pub(super) fn canonical_mark(origin: Option<&Value>, extra: Option<&Value>) -> Option<&'static str> {
    if origin.and_then(Value::as_str).is_some_and(|o| Format::parse(o).is_ok()) {
        Some("origin")
    } else if extra.is_some_and(Value::is_object) {
        Some("extra")
    } else {
        None
    }
}

/// Whether `obj` is a canonical message: canonical keys only, and a [`canonical_mark`].
fn is_canonical(obj: &Map<String, Value>) -> bool {
    canonical_mark(field(obj, "origin"), field(obj, "extra")).is_some()
        && obj.keys().all(|k| CANONICAL_KEYS.contains(&k.as_str()))
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
    if has(obj, "lc") && has(obj, "kwargs") {
        return Ok(Detected::Sure(Format::Langchain));
    }
    if let Some(Value::String(t)) = field(obj, "type") {
        if let Some(d) = responses::detect_item(obj, t) {
            return Ok(d);
        }
        if t == "message" {
            return message_item(obj);
        }
        if !has(obj, "role") {
            let langchain = has(obj, "content") || has(obj, "data") || LANGCHAIN_TYPES.contains(&t.as_str());
            return if langchain { Ok(Detected::Sure(Format::Langchain)) } else { Err(responses::unknown_type(t)) };
        }
        // A LangChain type beside a `role` (a ChatMessage dict `{type: "chat", role, content}`):
        // no role-based format has `type`, so it is LangChain's, whose reader decides (a
        // ChatMessage is refused naming its role), never a role-based message with a stray key.
        if LANGCHAIN_TYPES.contains(&t.as_str()) || t == "generic" {
            return Ok(Detected::Sure(Format::Langchain));
        }
    }
    if let Some(Value::Array(parts)) = field(obj, "parts") {
        return parts_list_format(obj, parts).map(Detected::Sure);
    }
    let Some(role) = field(obj, "role").and_then(Value::as_str) else {
        return Err(Error::new(
            ErrorCode::InvalidMessage,
            "a message needs a `role` (OpenAI, Anthropic, AI SDK), a `type` (LangChain), `lc` + `kwargs` (LangChain serialized) or `parts` (Gemini, AI SDK UIMessage)",
        ));
    };
    if role == "model" {
        return Ok(Detected::Sure(Format::Gemini));
    }
    if has(obj, "tool_calls") || has(obj, "tool_call_id") {
        return Ok(Detected::Sure(Format::Openai));
    }
    // Parts only the Responses items use, the SDK's `providerData` or an item's `status` / `phase`.
    let responses_parts = matches!(parts_format(obj)?, Some(Format::Responses));
    if responses_parts || has(obj, "providerData") || has(obj, "status") || has(obj, "phase") {
        return Ok(responses::detect_message(obj));
    }
    if role == "developer" {
        return Ok(Detected::Developer);
    }
    if has(obj, "providerOptions") {
        return Ok(Detected::Sure(Format::AiSdk));
    }
    // Content that is one part object (not a string, a list or null) is read only by the OpenAI
    // reader: say so, so the message reads the same whatever its neighbours are.
    if field(obj, "content").is_some_and(Value::is_object) {
        return Ok(Detected::Sure(Format::Openai));
    }
    if let Some(Value::Array(parts)) = field(obj, "content") {
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
            if let Some(f) = image_part_format(part)? {
                return Ok(Detected::Sure(f));
            }
        }
    }
    Ok(Detected::Plain)
}

/// Whose `image` part this is (the type is shared, its keys are not; OpenAI Chat has none): an
/// Anthropic image block has a `source` object (`ImageBlockParam`), an AI SDK image part its
/// `image` (`ImagePart`). An image part was read as OpenAI's, which keeps it as an unknown part:
/// a lone user turn with an image lost it on the way to any format, its own included.
fn image_part_format(part: &Value) -> Result<Option<Format>> {
    if part.get("type").and_then(Value::as_str) != Some("image") {
        return Ok(None);
    }
    match (part.get("source").is_some_and(Value::is_object), part.get("image").is_some()) {
        (true, true) => Err(two_formats("image` with `source", Format::Anthropic, "image` with `image", Format::AiSdk)),
        (true, false) => Ok(Some(Format::Anthropic)),
        (false, true) => Ok(Some(Format::AiSdk)),
        (false, false) => Ok(None),
    }
}

/// Whose `parts` list this is: Gemini's parts have no `type` (`{text}`, `{functionCall}`, …), an
/// AI SDK UIMessage's all have one. Gemini's `role: "model"` decides; a list mixing typed and
/// untyped parts is refused, naming both candidates; an empty list is a UIMessage when the
/// message has the `id` or `metadata` a UIMessage has.
fn parts_list_format(obj: &Map<String, Value>, parts: &[Value]) -> Result<Format> {
    let typed = parts.iter().filter(|p| p.get("type").is_some_and(Value::is_string)).count();
    if field(obj, "role").and_then(Value::as_str) == Some("model") {
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
        (0, 0) if has(obj, "id") || has(obj, "metadata") => Ok(Format::Ui),
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
    field(obj, "content")
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

/// Whether a content part type is one some format has: the shared ones, or one format's own.
pub(super) fn is_part_type(kind: &str) -> bool {
    matches!(kind, "text" | "image" | "file") || part_format(kind).is_some()
}

/// The format a content-part `type` belongs to, when only one format uses it.
pub(super) fn part_format(kind: &str) -> Option<Format> {
    match kind {
        // Anthropic's `ContentBlockParam` (@anthropic-ai/sdk 1.10), and the MCP connector's blocks.
        "tool_use"
        | "tool_result"
        | "thinking"
        | "redacted_thinking"
        | "document"
        | "search_result"
        | "server_tool_use"
        | "web_search_tool_result"
        | "web_fetch_tool_result"
        | "code_execution_tool_result"
        | "bash_code_execution_tool_result"
        | "text_editor_code_execution_tool_result"
        | "tool_search_tool_result"
        | "container_upload"
        | "mcp_tool_use"
        | "mcp_tool_result" => Some(Format::Anthropic),
        "tool-call" | "tool-result" | "reasoning" | "file" | "tool-approval-request" | "tool-approval-response" => {
            Some(Format::AiSdk)
        }
        "image_url" | "input_audio" | "refusal" => Some(Format::Openai),
        "input_text" | "output_text" | "input_image" | "input_file" => Some(Format::Responses),
        _ => None,
    }
}
