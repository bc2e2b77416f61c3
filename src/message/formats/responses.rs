//! Flat item lists: OpenAI Responses API input items (`"responses"`) and OpenAI Agents SDK items
//! (`"openai-agents"`, the `AgentInputItem`s of `result.history`, `RunState` and Sessions).
//!
//! Both lists carry one item per message, per tool call and per tool result, so an assistant
//! turn is a run of items: `reasoning`, then a `message`, then one `function_call` each. Each item
//! decodes to one canonical message (so a round trip gives back the same items, and every item has
//! its own input index); consecutive assistant items are one turn: validation and repair treat
//! the run as one assistant message, and encoding into a format with one message per turn
//! (OpenAI Chat, Anthropic, …) merges the run into one message ([`super::groups`]).
//!
//! The two schemas (sources: `openai` 7.55 `ResponseInputItem`, `@openai/agents-core` 0.20
//! `protocol.ts` `ModelItem`) differ in their keys, so they are two formats sharing this codec:
//!
//! | item | Responses API | Agents SDK |
//! | --- | --- | --- |
//! | message | `{type?: "message", role, content, id?, status?, phase?}` | the same, plus `providerData`; `input_image.image`, `input_file.file` |
//! | call | `{type: "function_call", call_id, name, arguments, id?, status?}` | `callId` |
//! | result | `{type: "function_call_output", call_id, output}` | `{type: "function_call_result", callId, name, status, output}` |
//! | reasoning | `{type: "reasoning", id, summary: [{type: "summary_text", text}], encrypted_content?}` | `content: [{type: "input_text", text}]`, `providerData` |
//!
//! Decoding:
//! - A message item → a message of its role (`developer` → system; `role: "developer"` is kept in
//!   `extra` and written back). Parts `input_text` / `output_text` → text (`annotations`,
//!   `logprobs` kept in the part's `extra`); `refusal` → a text part whose `extra` says
//!   `type: "refusal"` (written back as a refusal, and as plain text in other formats, never
//!   dropped); `input_image` with a URL → an image; `input_file`, `input_audio`, `audio` and any
//!   other part → kept verbatim.
//! - `function_call` → an assistant message with one tool call; `arguments` is JSON text, kept in
//!   `raw_args`; text that does not parse → an invalid tool call, never `{}`.
//! - `function_call_output` / `function_call_result` → a tool message answering the call id;
//!   `output` is a string or parts.
//! - `reasoning` → an assistant message with one reasoning part per summary entry (an empty
//!   summary gives one empty reasoning part, so the item is not an empty message); `id`,
//!   `encrypted_content` and the rest are kept, so the item comes back exactly.
//! - Every other item type the schemas define (hosted and built-in tool calls and their outputs:
//!   `web_search_call`, `file_search_call`, `computer_call` / `computer_call_output`,
//!   `code_interpreter_call`, `image_generation_call`, `local_shell_call` / output, `shell_call` /
//!   output, `apply_patch_call` / output, `mcp_call`, `mcp_list_tools`, `mcp_approval_request` /
//!   `mcp_approval_response`, `custom_tool_call` / output, `item_reference`, `compaction`, the
//!   SDK's `hosted_tool_call`, `computer_call_result`, `unknown`, …) → an assistant message
//!   (system for `additional_tools` / `configuration_update`) whose content is the item as one
//!   raw part. These are not paired as tool calls and results: the API pairs them itself, and
//!   another format has no such tools; they are written back only to their own format.
//! - An item `type` neither schema defines is `INVALID_MESSAGE` naming it, never guessed.
//! - An item's `id` is the message's id, and is also kept in `extra`: only that one is written
//!   back, so an id the store gave an item that had none (`{run}:{k}`) never reaches the API.
//!
//! Encoding: a message of this format comes back as the item it was. Any other message is
//! written as the Responses API (or the SDK) takes it as input: a system / user message as a
//! message item (content text, `input_text` / `input_image` parts), an assistant message as its
//! message item (when it carries something) followed by one `function_call` per call, a tool
//! result as one output item (text, or `input_text` / `input_image` parts when it has images; the
//! SDK's `name` and `status`, which it requires). Ids, reasoning and raw parts of other formats
//! are not written (the API checks item ids and reasoning items against its own records), but
//! for the reasoning an AI SDK message carries for OpenAI (an item id in the part's
//! `providerOptions.openai` / `providerMetadata.openai`), written back as its reasoning item as
//! the AI SDK's OpenAI provider writes it; its items go in the message's order, calls at the
//! places it kept for them (`util::PART_POSITION`). An assistant message left with nothing gives
//! no item.
//! Between the two item formats (the same API's items), item ids, `status`, reasoning with its
//! encrypted content and raw text (the API's `content`, the SDK's `rawContent`) and refusals go
//! across, and hosted items too: the SDK's `hosted_tool_call` / `unknown` carry the API item in
//! `providerData`, and an API item goes to the SDK as an `unknown` item carrying it, as the SDK
//! itself sends them (`sdk_items_convert_to_the_api_items_the_sdk_itself_sends`).

use super::util::{among_calls, field, has, is_url, part_position};
use super::util::{
    args_text, as_obj, call_from_json_text, content_as_string, extra_of, kind, opt_id, opt_str, put_opt,
};
use super::{put_extra, Detected, Format};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{arr, obj, val, Put};
use crate::message::{Content, ContentPart, Message, Role, ToolCall};
use serde_json::{Map, Value};

mod reasoning;
pub(super) use reasoning::reasoning_for_ai_sdk;
use reasoning::{
    carry_encrypted_content, carry_raw_reasoning, decode_reasoning, encode_reasoning, reasoning_from_ai_sdk,
};

/// Which of the two item schemas a format is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// OpenAI Responses API `ResponseInputItem` (snake_case keys).
    Api,
    /// OpenAI Agents SDK `AgentInputItem` (camelCase keys, `providerData`).
    Agents,
}

impl Dialect {
    fn of(format: Format) -> Dialect {
        if format == Format::OpenaiAgents {
            Dialect::Agents
        } else {
            Dialect::Api
        }
    }

    fn format(self) -> Format {
        match self {
            Dialect::Api => Format::Responses,
            Dialect::Agents => Format::OpenaiAgents,
        }
    }

    /// The key of a call id in calls and results.
    fn call_id(self) -> &'static str {
        match self {
            Dialect::Api => "call_id",
            Dialect::Agents => "callId",
        }
    }

    /// The `type` of a function result item.
    fn result_type(self) -> &'static str {
        match self {
            Dialect::Api => "function_call_output",
            Dialect::Agents => "function_call_result",
        }
    }

    /// The key of a reasoning item's summary entries.
    fn summary_key(self) -> &'static str {
        match self {
            Dialect::Api => "summary",
            Dialect::Agents => "content",
        }
    }

    /// The `type` of one summary entry.
    fn summary_type(self) -> &'static str {
        match self {
            Dialect::Api => "summary_text",
            Dialect::Agents => "input_text",
        }
    }
}

/// Item types only the Responses API defines, kept verbatim.
const API_KEPT: &[&str] = &[
    "file_search_call",
    "computer_call_output",
    "web_search_call",
    "additional_tools",
    "configuration_update",
    "compaction_trigger",
    "image_generation_call",
    "code_interpreter_call",
    "local_shell_call",
    "local_shell_call_output",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "mcp_call",
    "custom_tool_call",
    "custom_tool_call_output",
    "item_reference",
];

/// Item types only the Agents SDK defines, kept verbatim.
const AGENTS_KEPT: &[&str] = &["hosted_tool_call", "computer_call_result", "unknown"];

/// Item types both define (told apart by `callId` / `call_id` / `providerData`), kept verbatim.
const SHARED_KEPT: &[&str] = &[
    "computer_call",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "program",
    "program_output",
    "tool_search_call",
    "tool_search_output",
    "compaction",
];

/// Whether `t` is an item type kept verbatim.
fn is_kept(t: &str) -> bool {
    API_KEPT.contains(&t) || AGENTS_KEPT.contains(&t) || SHARED_KEPT.contains(&t)
}

/// The item types, for error messages.
fn known_types() -> String {
    let mut all = vec!["message", "function_call", "function_call_output", "reasoning"];
    all.extend_from_slice(API_KEPT);
    all.extend_from_slice(SHARED_KEPT);
    format!("{}; OpenAI Agents SDK items also: function_call_result, {}", all.join(", "), AGENTS_KEPT.join(", "))
}

/// `INVALID_MESSAGE` for an item `type` neither schema defines.
pub(super) fn unknown_type(t: &str) -> Error {
    Error::new(
        ErrorCode::InvalidMessage,
        format!(
            "unknown Responses item type {t:?} (an object with `type` and no `content` is read as an OpenAI Responses / Agents SDK item, not a LangChain message); known item types: {}",
            known_types()
        ),
    )
    .field("type")
}

/// How an object's own keys mark its schema: `providerData` / `callId` → Agents, `call_id` → API.
fn key_dialect(obj: &Map<String, Value>) -> Option<Dialect> {
    if has(obj, "providerData") || has(obj, "callId") {
        Some(Dialect::Agents)
    } else if has(obj, "call_id") {
        Some(Dialect::Api)
    } else {
        None
    }
}

fn sure(d: Dialect) -> Detected {
    Detected::Sure(d.format())
}

/// Detects a non-message item by its `type`: `None` when `t` is no item type (or `message`).
pub(super) fn detect_item(obj: &Map<String, Value>, t: &str) -> Option<Detected> {
    Some(match t {
        "function_call" => sure(key_dialect(obj).unwrap_or(Dialect::Api)),
        "function_call_output" => sure(Dialect::Api),
        "function_call_result" => sure(Dialect::Agents),
        "reasoning" => {
            let agents =
                !has(obj, "summary") && (has(obj, "content") || has(obj, "rawContent") || has(obj, "providerData"));
            sure(if agents { Dialect::Agents } else { Dialect::Api })
        }
        t if API_KEPT.contains(&t) => sure(Dialect::Api),
        t if AGENTS_KEPT.contains(&t) => sure(Dialect::Agents),
        t if SHARED_KEPT.contains(&t) => key_dialect(obj).map_or(Detected::Item, sure),
        _ => return None,
    })
}

/// Detects the schema of a message item (`type: "message"`, or `role` with Responses parts):
/// the Agents SDK's `providerData`, `input_image.image`, `input_file.file` and `audio` / `image`
/// parts; the API's `annotations`, `logprobs`, `image_url`, `file_id`, `file_data`, `file_url`,
/// `input_audio` and `role: "developer"`. Neither (or both): [`Detected::Item`].
pub(super) fn detect_message(obj: &Map<String, Value>) -> Detected {
    let mut agents = has(obj, "providerData");
    let mut api = field(obj, "role").and_then(Value::as_str) == Some("developer");
    if let Some(Value::Array(parts)) = field(obj, "content") {
        for p in parts.iter().filter_map(Value::as_object) {
            let t = p.get("type").and_then(Value::as_str).unwrap_or_default();
            agents |= p.contains_key("providerData")
                || matches!(t, "audio" | "image")
                || (t == "input_image" && p.contains_key("image"))
                || (t == "input_file" && p.contains_key("file"));
            api |= t == "input_audio"
                || ["annotations", "logprobs", "image_url", "file_id", "file_data", "file_url"]
                    .iter()
                    .any(|k| p.contains_key(*k));
        }
    }
    match (agents, api) {
        (true, false) => sure(Dialect::Agents),
        (false, true) => sure(Dialect::Api),
        _ => Detected::Item,
    }
}

/// Decodes one item of `format` (Responses or OpenAI Agents) into one canonical message.
pub(super) fn decode(obj: &Map<String, Value>, format: Format) -> Result<Message> {
    let d = Dialect::of(format);
    let t = match field(obj, "type") {
        None | Some(Value::Null) => "message",
        Some(Value::String(t)) => t.as_str(),
        Some(v) => {
            return Err(Error::new(
                ErrorCode::InvalidMessage,
                format!("an item's `type` must be a string, got {}", kind(v)),
            )
            .field("type"))
        }
    };
    match t {
        "message" => decode_message(obj, d),
        "function_call" => decode_call(obj, d),
        "function_call_output" | "function_call_result" if t == d.result_type() => decode_result(obj, d),
        "function_call_output" | "function_call_result" => Err(Error::new(
            ErrorCode::InvalidMessage,
            format!(
                "a `{t}` item belongs to the {} items; the {} write `{}`",
                if t == "function_call_output" { "Responses API" } else { "OpenAI Agents SDK" },
                if d == Dialect::Api { "Responses API" } else { "OpenAI Agents SDK" },
                d.result_type()
            ),
        )
        .field("type")),
        "reasoning" => decode_reasoning(obj, d),
        t if is_kept(t) => {
            let role =
                if matches!(t, "additional_tools" | "configuration_update") { Role::System } else { Role::Assistant };
            let mut m = Message::new(role, "");
            m.id = opt_id(obj, "id")?;
            m.content = Content::Parts(vec![ContentPart::Other { raw: Value::Object(obj.clone()) }]);
            Ok(m)
        }
        other => Err(unknown_type(other)),
    }
}

/// The text part type a role's messages use.
fn text_type(role: Role) -> &'static str {
    if role == Role::Assistant {
        "output_text"
    } else {
        "input_text"
    }
}

fn decode_message(obj: &Map<String, Value>, d: Dialect) -> Result<Message> {
    let role_name = field(obj, "role").and_then(Value::as_str).unwrap_or_default();
    let role = match role_name {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" | "developer" => Role::System,
        other => {
            return Err(Error::new(
                ErrorCode::UnknownRole,
                format!("unknown Responses message role {other:?}; expected user, assistant, system or developer"),
            )
            .field("role"))
        }
    };
    let mut m = Message::new(role, "");
    m.id = opt_id(obj, "id")?;
    m.content = match field(obj, "content") {
        None => Content::Absent,
        Some(Value::Null) => Content::Null,
        Some(Value::String(s)) => Content::Text(s.clone()),
        Some(Value::Array(parts)) => {
            Content::Parts(parts.iter().map(|p| decode_part(p, role, d)).collect::<Result<_>>()?)
        }
        Some(v) => {
            return Err(Error::new(
                ErrorCode::InvalidMessage,
                format!("a message item's `content` must be a string or a list of parts, got {}", kind(v)),
            )
            .field("content"))
        }
    };
    m.extra = extra_of(obj, &["role", "content"]);
    if role_name == "developer" {
        m.extra.put("role", Value::from("developer"));
    }
    Ok(m)
}

/// One content part of a message item or a function result (`role` says which text type is the
/// default; another one is kept in the part's `extra`).
fn decode_part(v: &Value, role: Role, d: Dialect) -> Result<ContentPart> {
    let p = as_obj(v, "a content part")?;
    let t = p.get("type").and_then(Value::as_str).unwrap_or_default();
    Ok(match t {
        "input_text" | "output_text" => {
            let mut extra = extra_of(p, &["type", "text"]);
            if t != text_type(role) {
                extra.put("type", val(&t));
            }
            ContentPart::Text { text: opt_str(p, "text")?.unwrap_or_default(), extra }
        }
        "refusal" => {
            ContentPart::Text { text: opt_str(p, "refusal")?.unwrap_or_default(), extra: extra_of(p, &["refusal"]) }
        }
        "input_image" => {
            let key = if d == Dialect::Api { "image_url" } else { "image" };
            match p.get(key) {
                Some(Value::String(s)) if is_url(s) => ContentPart::Image {
                    url: Some(s.clone()),
                    data: None,
                    media_type: None,
                    extra: extra_of(p, &["type", key]),
                },
                Some(Value::String(s)) if d == Dialect::Agents => ContentPart::Image {
                    url: None,
                    data: Some(s.clone()),
                    media_type: None,
                    extra: extra_of(p, &["type", key]),
                },
                _ => ContentPart::Other { raw: v.clone() },
            }
        }
        // Responses: `file_data` (a data URL) | `file_url` | `file_id`, and `filename`;
        // Agents: `file` (the data as a string) | `{id}` | `{url}`, and `filename`.
        "input_file" => {
            let (source, id) = match d {
                Dialect::Api => match (p.get("file_data"), p.get("file_url")) {
                    (Some(a), Some(b)) if !a.is_null() && !b.is_null() => {
                        return Ok(ContentPart::Other { raw: v.clone() })
                    }
                    (Some(Value::String(s)), _) | (_, Some(Value::String(s))) => {
                        (Some(s.clone()), opt_str(p, "file_id")?)
                    }
                    _ => (None, opt_str(p, "file_id")?),
                },
                Dialect::Agents => match p.get("file") {
                    Some(Value::String(s)) => (Some(s.clone()), None),
                    Some(Value::Object(f)) if f.len() == 1 && f.contains_key("url") => (opt_str(f, "url")?, None),
                    Some(Value::Object(f)) if f.len() == 1 && f.contains_key("id") => (None, opt_str(f, "id")?),
                    None => (None, None),
                    Some(_) => return Ok(ContentPart::Other { raw: v.clone() }),
                },
            };
            let keys: &[&str] = match d {
                Dialect::Api => &["type", "file_data", "file_url", "file_id", "filename"],
                Dialect::Agents => &["type", "file", "filename"],
            };
            let is_url = source.as_deref().is_some_and(is_url);
            ContentPart::File {
                url: source.clone().filter(|_| is_url),
                data: source.filter(|_| !is_url),
                file_id: id,
                media_type: None,
                filename: opt_str(p, "filename")?,
                extra: extra_of(p, keys),
            }
        }
        _ => ContentPart::Other { raw: v.clone() },
    })
}

fn decode_call(obj: &Map<String, Value>, d: Dialect) -> Result<Message> {
    let key = d.call_id();
    let id = opt_id(obj, key)?.filter(|id| !id.is_empty()).ok_or_else(|| {
        Error::new(ErrorCode::InvalidToolCall, format!("a function_call item needs `{key}`, the id its result answers"))
            .field(key)
    })?;
    let name = opt_str(obj, "name")?.unwrap_or_default();
    let args = match field(obj, "arguments") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(v) => {
            return Err(Error::new(
                ErrorCode::InvalidToolCall,
                format!("a function_call's `arguments` is JSON text (a string), got {}", kind(v)),
            )
            .field("arguments"))
        }
    };
    let mut m = Message::new(Role::Assistant, "");
    m.content = Content::Absent;
    m.id = opt_id(obj, "id")?;
    match call_from_json_text(id, name, args, Map::new()) {
        Ok(c) => m.tool_calls.push(c),
        Err(invalid) => m.invalid_tool_calls.push(invalid),
    }
    m.extra = extra_of(obj, &["type", key, "name", "arguments"]);
    Ok(m)
}

fn decode_result(obj: &Map<String, Value>, d: Dialect) -> Result<Message> {
    let key = d.call_id();
    let mut m = Message::new(Role::Tool, "");
    m.tool_call_id = opt_id(obj, key)?;
    m.id = opt_id(obj, "id")?;
    m.name = opt_str(obj, "name")?;
    m.content = match field(obj, "output") {
        None => Content::Absent,
        Some(Value::Null) => Content::Null,
        Some(Value::String(s)) => Content::Text(s.clone()),
        Some(Value::Array(parts)) => {
            Content::Parts(parts.iter().map(|p| decode_part(p, Role::Tool, d)).collect::<Result<_>>()?)
        }
        // The SDK's single output object: `{type: "text", text}` is text (its `type` kept, so it
        // is written back as the object), `image` / `file` are kept whole.
        Some(v @ Value::Object(o)) => match o.get("type").and_then(Value::as_str) {
            Some("text") => Content::Parts(vec![ContentPart::Text {
                text: opt_str(o, "text")?.unwrap_or_default(),
                extra: extra_of(o, &["text"]),
            }]),
            _ => Content::Parts(vec![ContentPart::Other { raw: v.clone() }]),
        },
        Some(v) => {
            return Err(Error::new(
                ErrorCode::InvalidMessage,
                format!("a function result's `output` must be a string or a list of parts, got {}", kind(v)),
            )
            .field("output"))
        }
    };
    m.extra = extra_of(obj, &["type", key, "output", "name"]);
    Ok(m)
}

/// A content part with its place among its message's parts.
type Placed<'a> = (usize, &'a ContentPart);

/// The item a message of this format kept whole, if it is one.
fn verbatim(m: &Message) -> Option<&Value> {
    match &m.content {
        Content::Parts(parts) => match parts.as_slice() {
            [ContentPart::Other { raw }]
                if m.tool_calls.is_empty()
                    && m.invalid_tool_calls.is_empty()
                    && m.role != Role::Tool
                    && raw.get("type").and_then(Value::as_str).is_some_and(is_kept) =>
            {
                Some(raw)
            }
            _ => None,
        },
        _ => None,
    }
}

/// Encodes one canonical message as the items of `format` (Responses or OpenAI Agents): one item
/// for a message of this format (the one it came from), else a message item and / or one
/// `function_call` per call, or one result item; none for an assistant message of another format
/// with nothing an item can carry.
pub(super) fn encode(m: &Message, format: Format) -> Vec<Value> {
    let d = Dialect::of(format);
    let own = m.origin == Some(format);
    // From the other item format: the same API's items in the other schema.
    let sibling = !own && m.origin.is_some_and(Format::is_items);
    if let Some(raw) = verbatim(m).filter(|_| own || sibling) {
        return if own { vec![raw.clone()] } else { sibling_verbatim(raw, d).into_iter().collect() };
    }
    let mut items = Vec::new();
    match m.role {
        Role::Tool => items.push(encode_result(m, d, own)),
        Role::System | Role::User => items.push(encode_message(m, &m.content, d, own)),
        Role::Assistant => {
            let parts: &[ContentPart] = match &m.content {
                Content::Parts(parts) => parts,
                _ => &[],
            };
            // Parts by their place in the message, reasoning apart.
            let (reasoning, rest): (Vec<Placed>, Vec<Placed>) =
                parts.iter().enumerate().partition(|(_, p)| matches!(p, ContentPart::Reasoning { .. }));
            let has_calls = !m.tool_calls.is_empty() || !m.invalid_tool_calls.is_empty();
            // Where an AI SDK message's calls were among its parts (see `util::PART_POSITION`):
            // then every item goes in the message's order, calls included, as the AI SDK's OpenAI
            // provider sends a message's content; else the calls go after the other items.
            let call_places = calls_in_place(m);
            // The items, each with the place of its first part: reasoning and text go in the order
            // the message has them (the AI SDK's provider sends its content in order).
            let mut placed: Vec<(usize, Value)> = Vec::new();
            if (own || sibling) && !reasoning.is_empty() {
                let refs: Vec<&ContentPart> = reasoning.iter().map(|(_, p)| *p).collect();
                let mut item = encode_reasoning(&refs, d, own);
                if sibling {
                    carry_encrypted_content(m, Some(&mut item), d);
                    carry_raw_reasoning(m, Some(&mut item), d);
                }
                placed.push((0, item));
            } else if !reasoning.is_empty() {
                placed.extend(reasoning_from_ai_sdk(&reasoning, m.origin, d, has_calls && call_places.is_none()));
            }
            let content = match &m.content {
                Content::Parts(_) => Content::Parts(rest.iter().map(|(_, p)| (*p).clone()).collect()),
                c => c.clone(),
            };
            // What the message item would carry: nothing (an assistant message of another format
            // with only reasoning or raw blocks) gives no item at all, rather than an empty one.
            let carries = match &content {
                Content::Parts(parts) => parts.iter().any(|p| encode_part(p, m.role, d, own, sibling).is_some()),
                c => !c.is_empty(),
            };
            // An assistant message of a non-item format goes to the API as `EasyInputMessage`s
            // whose content is a string (below, `encode_message`): two text parts are two such
            // messages, never one glued text (the AI SDK's Responses provider also writes each
            // assistant text part as its own item).
            let texts: Vec<Placed> = match &content {
                Content::Parts(_) if d == Dialect::Api && !own && !sibling => {
                    rest.iter().copied().filter(|(_, p)| matches!(p, ContentPart::Text { .. })).collect()
                }
                _ => Vec::new(),
            };
            if texts.len() > 1 {
                // Each text as its own message in its place, and so the note for a part the API
                // cannot take (a provider-executed tool's result, say), which is text too.
                let carried = rest.iter().filter_map(|&(at, p)| match p {
                    ContentPart::Text { .. } => Some((at, p.clone())),
                    ContentPart::Other { raw } => super::util::other_note(raw).map(|note| (at, note)),
                    _ => None,
                });
                for (at, p) in carried {
                    placed.push((at, encode_message(m, &Content::Parts(vec![p]), d, own)));
                }
            } else if carries || (own && placed.is_empty() && !has_calls) {
                // Placed by the first part it carries (a UIMessage step's `step-start`, which
                // the API does not get, put the text before the step's reasoning).
                let carried = rest.iter().find(|(_, p)| encode_part(p, m.role, d, own, sibling).is_some());
                let at = carried.or(rest.first()).map_or(usize::MAX, |(at, _)| *at);
                placed.push((at, encode_message(m, &content, d, own)));
            }
            let calls = m.tool_calls.iter().map(|c| encode_call(&c.id, &c.name, args_text(c), d, own.then_some(c)));
            match &call_places {
                Some(places) => {
                    // Content places are counted without the calls: each becomes its place among
                    // all the parts, so calls and items sort together.
                    for (at, _) in placed.iter_mut() {
                        *at = among_calls(*at, places);
                    }
                    placed.extend(places.iter().copied().zip(calls));
                    crate::order::sort_stable_by_key(&mut placed, |(at, _)| *at as u64); // a tie keeps the reasoning first
                    items.extend(placed.into_iter().map(|(_, item)| item));
                }
                None => {
                    crate::order::sort_stable_by_key(&mut placed, |(at, _)| *at as u64);
                    items.extend(placed.into_iter().map(|(_, item)| item));
                    items.extend(calls);
                }
            }
            for c in &m.invalid_tool_calls {
                items.push(encode_call(&c.id, &c.name, c.args.clone(), d, None));
            }
        }
    }
    // A message of this format came from one item: its id and unmodelled fields go back on it.
    // One of the other item format keeps its item id (the API's own) and status. The item's id
    // is the one in `extra`, never `Message.id`, which may be one the store gave it.
    if let Some(Value::Object(first)) = items.first_mut().filter(|_| own || sibling) {
        if let Some(id) = m.extra.get("id").filter(|id| sibling && id.is_string() && id.as_str() != Some("FAKE_ID")) {
            first.entry("id").or_insert_with(|| id.clone());
        }
        if own {
            put_extra(first, m, format);
        } else if let Some(status) = m.extra.get("status").filter(|s| s.is_string()) {
            let call_or_result = matches!(
                first.get("type").and_then(Value::as_str),
                Some("function_call" | "function_call_output" | "function_call_result")
            );
            if call_or_result {
                first.put("status", status.clone());
            }
        }
    }
    items
}

/// The places an AI SDK message (a ModelMessage, or a UIMessage step) kept for its calls among its
/// parts, sorted, when every call has one; else `None`.
fn calls_in_place(m: &Message) -> Option<Vec<usize>> {
    if !matches!(m.origin, Some(Format::AiSdk | Format::Ui)) || !m.invalid_tool_calls.is_empty() {
        return None;
    }
    let places: Vec<usize> = m.tool_calls.iter().map(|c| part_position(&c.extra)).collect::<Option<_>>()?;
    // Two calls at one place, or places out of call order: not what the reader kept.
    places.windows(2).all(|w| matches!(w, [a, b] if a < b)).then_some(places)
}

/// A hosted item kept whole by the other item format, in this one: the SDK's `hosted_tool_call`
/// / `unknown` carry the API item in `providerData`; the API's items go to the SDK as `unknown`
/// items with the API item as `providerData` (which the SDK sends back as it is). Other SDK
/// items (with camelCase keys of their own) are not written.
fn sibling_verbatim(raw: &Value, d: Dialect) -> Option<Value> {
    match d {
        Dialect::Agents => {
            let mut o = Map::new();
            o.put("type", Value::from("unknown"));
            if let Some(id) = raw.get("id").filter(|id| id.is_string()) {
                o.put("id", id.clone());
            }
            o.put("providerData", raw.clone());
            Some(Value::Object(o))
        }
        Dialect::Api => {
            let kind = raw.get("type").and_then(Value::as_str)?;
            let Some(Value::Object(data)) = raw.get("providerData") else { return None };
            let inner = data.get("type").and_then(Value::as_str)?;
            if !matches!(kind, "hosted_tool_call" | "unknown")
                || !API_KEPT.contains(&inner) && !SHARED_KEPT.contains(&inner)
            {
                return None;
            }
            let mut item = data.clone();
            for key in ["id", "status"] {
                if let Some(v) = raw.get(key).filter(|v| v.is_string()) {
                    item.entry(key).or_insert_with(|| v.clone());
                }
            }
            Some(Value::Object(item))
        }
    }
}

/// An assistant `EasyInputMessage`'s string for parts of another format: the text parts' text
/// and, in their places, the text every other format gets for a part the API cannot take (an
/// OpenAI refusal's own text; the note for a provider-executed tool's result, Gemini code, …),
/// which were dropped. Such a text stands on its own line.
fn carried_text(parts: &[ContentPart]) -> String {
    let mut out = String::new();
    let mut after_note = false;
    for p in parts {
        let carried;
        let (text, note) = match p {
            ContentPart::Text { text, .. } => (text.as_str(), false),
            ContentPart::Other { raw } => match super::util::other_note(raw) {
                Some(ContentPart::Text { text, .. }) => {
                    carried = text;
                    (carried.as_str(), true)
                }
                _ => continue,
            },
            _ => continue,
        };
        if !out.is_empty() && (note || after_note) {
            out.push('\n');
        }
        out.push_str(text);
        after_note = note;
    }
    out
}

fn encode_message(m: &Message, content: &Content, d: Dialect, own: bool) -> Value {
    let mut o = Map::new();
    let role = match m.role {
        Role::System if own && m.extra.get("role").and_then(Value::as_str) == Some("developer") => "developer",
        Role::System => "system",
        Role::Assistant => "assistant",
        _ => "user",
    };
    // The SDK's assistant item requires `status` and a list of parts.
    let sdk_assistant = d == Dialect::Agents && m.role == Role::Assistant && !own;
    if sdk_assistant {
        o.put("type", Value::from("message"));
    }
    o.put("role", val(&role));
    let sibling = !own && m.origin.is_some_and(Format::is_items);
    let parts_of = |parts: &[ContentPart]| -> Vec<Value> {
        parts
            .iter()
            .filter_map(|p| {
                let mut v = encode_part(p, m.role, d, own, sibling)?;
                // An image's `detail` from another format (the item's own came back with it),
                // also of a file that is an image (how `convertToModelMessages` writes images).
                let image_extra = match p {
                    ContentPart::Image { extra, .. } => Some(extra),
                    ContentPart::File { extra, .. } if v.get("type").and_then(Value::as_str) == Some("input_image") => {
                        Some(extra)
                    }
                    _ => None,
                };
                if let (Some(extra), false, Value::Object(o)) = (image_extra, own, &mut v) {
                    if let Some(detail) = super::util::image_detail(extra, m.origin) {
                        o.put("detail", detail.clone());
                    }
                }
                Some(v)
            })
            .collect()
    };
    let value = match content {
        Content::Absent if own => None,
        Content::Null if own => Some(Value::Null),
        Content::Parts(parts) if own => Some(Value::Array(parts_of(parts))),
        Content::Text(t) if sdk_assistant => Some(arr![obj! {"type": "output_text", "text": t}]),
        Content::Text(t) => Some(val(&t)),
        Content::Null | Content::Absent if sdk_assistant => Some(arr![]),
        Content::Null | Content::Absent => Some(Value::from("")),
        // System content is text in the SDK (and plain text is what every schema takes).
        Content::Parts(_) if m.role == Role::System => Some(val(&content.text())),
        // An assistant message of a non-item format is an `EasyInputMessage` in the API: its
        // text as a string (its input-part list takes no `output_text`, and an output message
        // item needs the `id` and `status` only the API gives). SDK items keep the parts the
        // SDK itself sends.
        Content::Parts(parts) if d == Dialect::Api && m.role == Role::Assistant && !sibling => {
            Some(val(&carried_text(parts)))
        }
        // An Agents SDK assistant item in the API: with its id, the output message item it was
        // (`type`, `id`, `status`, `output_text` with its `annotations`); without one, its text.
        Content::Parts(parts) if d == Dialect::Api && m.role == Role::Assistant => match &m.id {
            Some(id) => {
                o.put("type", Value::from("message"));
                o.put("id", val(&id));
                let status =
                    m.extra.get("status").filter(|s| s.is_string()).cloned().unwrap_or(Value::from("completed"));
                o.put("status", status);
                let mut parts = parts_of(parts);
                for p in parts.iter_mut().filter_map(Value::as_object_mut) {
                    if p.get("type").and_then(Value::as_str) == Some("output_text") && !p.contains_key("annotations") {
                        p.put("annotations", arr![]);
                    }
                }
                Some(Value::Array(parts))
            }
            None => Some(val(&content.text())),
        },
        Content::Parts(parts) => {
            let parts = parts_of(parts);
            Some(if parts.is_empty() && !sdk_assistant { Value::from("") } else { Value::Array(parts) })
        }
    };
    if let Some(v) = value {
        o.put("content", v);
    }
    if sdk_assistant {
        o.put("status", Value::from("completed"));
    }
    if let (Dialect::Api, Role::Assistant, false, Some(phase)) = (d, m.role, own, ai_sdk_phase(content, m.origin)) {
        o.put("phase", phase.clone());
    }
    Value::Object(o)
}

/// The `phase` (`commentary` / `final_answer`) an AI SDK assistant message's text parts carry for
/// OpenAI (`providerOptions.openai.phase`, a UIMessage's `providerMetadata`), when all its text
/// parts carry the same one. The API asks for it back on every assistant message ("dropping it can
/// degrade performance"); the AI SDK's provider sends it.
fn ai_sdk_phase(content: &Content, origin: Option<Format>) -> Option<&Value> {
    let key = match origin? {
        Format::AiSdk => "providerOptions",
        Format::Ui => "providerMetadata",
        _ => return None,
    };
    let Content::Parts(parts) = content else { return None };
    let mut phases = parts.iter().filter_map(|p| match p {
        ContentPart::Text { extra, .. } => {
            Some(extra.get(key).and_then(|m| m.get("openai")).and_then(|o| o.get("phase")))
        }
        _ => None,
    });
    let first = phases.next()??;
    (first.is_string() && phases.all(|p| p == Some(first))).then_some(first)
}

/// One content part as an item part; `None` for what the target cannot carry. `own`: the part
/// came from this format (its `extra` and raw parts are written back); `sibling`: from the other
/// item format (a refusal stays a refusal).
fn encode_part(part: &ContentPart, role: Role, d: Dialect, own: bool, sibling: bool) -> Option<Value> {
    let mut o = Map::new();
    let extra = match part {
        ContentPart::Text { text, extra }
            if (own || sibling) && extra.get("type").and_then(Value::as_str) == Some("refusal") =>
        {
            o.put("type", Value::from("refusal"));
            o.put("refusal", val(&text));
            extra
        }
        ContentPart::Text { text, extra } => {
            o.put("type", val(&text_type(role)));
            o.put("text", val(&text));
            extra
        }
        // An assistant message item takes no input images.
        ContentPart::Image { .. } if role == Role::Assistant => return None,
        ContentPart::Image { url, data, media_type, extra } => {
            o.put("type", Value::from("input_image"));
            match d {
                Dialect::Api => {
                    let url = match (url, data) {
                        (Some(u), _) => u.clone(),
                        (None, Some(data)) => {
                            format!("data:{};base64,{data}", media_type.as_deref().unwrap_or("image/png"))
                        }
                        (None, None) => return None,
                    };
                    o.put("image_url", val(&url));
                    // `detail` is required in a message item's `input_image` (another format's
                    // image gets its own in `encode_message`).
                    o.put("detail", Value::from("auto"));
                }
                // The SDK sends `image` as the request's `image_url`: inline data goes as a data URL
                // (an Agents item's own raw string is kept as it came).
                Dialect::Agents => {
                    let image = match (url, data) {
                        (Some(u), _) => u.clone(),
                        (None, Some(d)) if own => d.clone(),
                        (None, Some(d)) => format!("data:{};base64,{d}", media_type.as_deref().unwrap_or("image/png")),
                        (None, None) => return None,
                    };
                    o.put("image", val(&image));
                }
            }
            extra
        }
        file @ ContentPart::File { url, data, file_id, media_type, filename, extra } => {
            if let Some(image) = super::util::file_as_image(file) {
                return encode_part(&image, role, d, false, sibling);
            }
            if role == Role::Assistant {
                let note = super::util::file_note(file, "an assistant message item takes no input files");
                return encode_part(&note, role, d, false, sibling);
            }
            o.put("type", Value::from("input_file"));
            let inline = super::util::file_inline(url.as_deref(), data.as_deref(), media_type.as_deref());
            // The data as a data URL: what `file_data` (and an Agents `file` string) carries.
            let data_url = match (url, inline) {
                (Some(u), _) if u.starts_with("data:") => Some(u.clone()),
                (_, Some((mt, d))) => Some(format!("data:{mt};base64,{d}")),
                _ => None,
            };
            let web = url.as_ref().filter(|u| !u.starts_with("data:"));
            match d {
                Dialect::Api => {
                    put_opt(&mut o, "file_data", data_url.as_deref());
                    put_opt(&mut o, "file_url", web.filter(|_| data_url.is_none()).map(String::as_str));
                    put_opt(&mut o, "file_id", file_id.as_deref());
                }
                Dialect::Agents => {
                    let file = match (data_url, web, file_id) {
                        (Some(s), _, _) => val(&s),
                        (None, Some(u), _) => obj! {"url": u},
                        (None, None, Some(id)) => obj! {"id": id},
                        (None, None, None) => return None,
                    };
                    o.put("file", file);
                }
            }
            let name = match inline {
                Some((mt, _)) => super::util::inline_file_name(filename.as_deref(), Some(mt)),
                None => filename.as_deref(),
            };
            put_opt(&mut o, "filename", name);
            extra
        }
        ContentPart::Reasoning { .. } => return None,
        ContentPart::Other { raw } if own => return Some(raw.clone()),
        ContentPart::Other { raw } => {
            return super::util::other_note(raw).and_then(|n| encode_part(&n, role, d, false, sibling))
        }
    };
    if own {
        o.extend(extra.clone());
    }
    Some(Value::Object(o))
}

fn encode_call(id: &str, name: &str, arguments: String, d: Dialect, own: Option<&ToolCall>) -> Value {
    let mut o = Map::new();
    o.put("type", Value::from("function_call"));
    o.insert(d.call_id().into(), val(&id));
    o.put("name", val(&name));
    o.put("arguments", val(&arguments));
    if let Some(c) = own {
        for (k, v) in &c.extra {
            o.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Value::Object(o)
}

fn encode_result(m: &Message, d: Dialect, own: bool) -> Value {
    let mut o = Map::new();
    o.put("type", val(&d.result_type()));
    o.insert(d.call_id().into(), val(&m.tool_call_id.as_deref().unwrap_or_default()));
    // The SDK requires a result's `name` and `status`; the API takes `name` back only as it came.
    if d == Dialect::Agents && !own {
        o.put("name", val(&m.name.as_deref().unwrap_or_default()));
        o.put("status", Value::from("completed"));
    } else if own {
        put_opt(&mut o, "name", m.name.as_deref());
    }
    let output = match &m.content {
        Content::Text(t) => Some(val(&t)),
        Content::Absent if own => None,
        Content::Null if own => Some(Value::Null),
        Content::Null | Content::Absent => Some(Value::from("")),
        Content::Parts(parts) if own => Some(match parts.as_slice() {
            // The SDK's single output object, as it came.
            [ContentPart::Text { text, extra }] if extra.get("type").and_then(Value::as_str) == Some("text") => {
                let mut t = Map::new();
                t.put("type", Value::from("text"));
                t.put("text", val(&text));
                t.extend(extra.clone());
                Value::Object(t)
            }
            [ContentPart::Other { raw }]
                if raw.get("type").and_then(Value::as_str).is_some_and(|t| matches!(t, "image" | "file")) =>
            {
                raw.clone()
            }
            _ => Value::Array(parts.iter().filter_map(|p| encode_part(p, Role::Tool, d, true, false)).collect()),
        }),
        // Text, and images and files where there are some (the API and the SDK take
        // `input_image` and `input_file` parts in a result); anything else as text.
        Content::Parts(parts)
            if parts.iter().any(|p| matches!(p, ContentPart::Image { .. } | ContentPart::File { .. })) =>
        {
            Some(Value::Array(
                parts
                    .iter()
                    .filter_map(|p| match p {
                        ContentPart::Image { .. } | ContentPart::File { .. } => {
                            encode_part(p, Role::Tool, d, false, false)
                        }
                        ContentPart::Text { text, .. } => Some(obj! {"type": "input_text", "text": text}),
                        other => {
                            let text = content_as_string(&Content::Parts(vec![other.clone()]));
                            Some(obj! {"type": "input_text", "text": text})
                        }
                    })
                    .collect(),
            ))
        }
        Content::Parts(_) => Some(val(&content_as_string(&m.content))),
    };
    if let Some(v) = output {
        o.put("output", v);
    }
    Value::Object(o)
}
