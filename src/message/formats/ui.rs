//! Vercel AI SDK `UIMessage` (v5 / v6): what `useChat` holds in every AI SDK frontend.
//!
//! `{id, role: "system" | "user" | "assistant", metadata?, parts}` with parts `text`,
//! `reasoning`, `file`, `source-url`, `source-document`, `data-*`, `step-start`, and tool parts
//! `tool-<name>` / `dynamic-tool` `{toolCallId, state, input, output, errorText, approval?}`.
//!
//! Decoding follows the AI SDK's own `convertToModelMessages` where they overlap: an assistant
//! message splits into steps at `step-start`; each step is one assistant message (text,
//! reasoning, files, its tool calls) followed by one tool result per tool part whose state is
//! `output-available` (the output), `output-error` (the error text, status error) or
//! `output-denied` (the denial reason, or "Tool call execution denied.", status error). A tool
//! part in `input-available`, `approval-requested` or `approval-responded` is a call without a
//! result, so validation reports it and repair answers it. Parts the model never sees
//! (`step-start`, sources, `data-*`, a tool part still `input-streaming`) are kept as they are and
//! written back only to this format.
//!
//! So one UIMessage round-trips exactly: step k > 0 of message `X` gets the id `X#k` (that is how
//! the encoder knows it continues `X`), a tool call remembers its place among its step's parts
//! and every field of its part, and a result remembers a non-string output. An unknown part type
//! is refused (`INVALID_MESSAGE` naming it), never guessed.

use super::approval_parts::decode_approval;
use super::util::field;
use super::util::{as_obj, content_as_string, extra_of, kind, opt_id};
use super::util::{part_position, place_calls, PART_POSITION as POSITION};
use super::{put_extra, Format};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{obj, val, Put};
use crate::message::{ApprovalDecision, Content, ContentPart, InvalidToolCall, Message, Role, ToolCall, ToolStatus};
use serde_json::{Map, Value};

// The text of a denied call's result when the approval gives no reason (the AI SDK's own).
use super::ai_sdk::DENIED;

/// The tool states in which the part carries a result.
const ANSWERED: [&str; 3] = ["output-available", "output-error", "output-denied"];

/// Every tool state of AI SDK v6.
const STATES: [&str; 7] = [
    "input-streaming",
    "input-available",
    "approval-requested",
    "approval-responded",
    "output-available",
    "output-error",
    "output-denied",
];

/// Whether `kind` is a part type of a UIMessage.
pub(super) fn is_part_type(kind: &str) -> bool {
    matches!(kind, "text" | "reasoning" | "file" | "source-url" | "source-document" | "step-start" | "dynamic-tool")
        || kind.starts_with("tool-")
        || kind.starts_with("data-")
}

/// The name of a tool part's tool: `tool-<name>`, or a `dynamic-tool`'s `toolName`.
fn tool_name(kind: &str, part: &Map<String, Value>) -> Option<String> {
    match kind.strip_prefix("tool-") {
        Some(name) => Some(name.to_string()),
        None => part.get("toolName").and_then(Value::as_str).map(str::to_string),
    }
}

fn invalid(message: String) -> Error {
    Error::new(ErrorCode::InvalidMessage, message).field("parts")
}

/// One content part (anything but a tool part).
fn decode_part(part: &Map<String, Value>, raw: &Value, ty: &str) -> Result<ContentPart> {
    let text = |key: &str| match part.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        other => Err(invalid(format!(
            "a UIMessage `{ty}` part needs a string `{key}`, got {}",
            other.map_or("nothing", kind)
        ))),
    };
    Ok(match ty {
        "text" => ContentPart::Text { text: text("text")?, extra: extra_of(part, &["type", "text"]) },
        "reasoning" => ContentPart::Reasoning { text: text("text")?, extra: extra_of(part, &["type", "text"]) },
        "file" if part.get("mediaType").and_then(Value::as_str).is_some_and(|t| t.starts_with("image/")) => {
            ContentPart::Image {
                url: Some(text("url")?),
                data: None,
                media_type: part.get("mediaType").and_then(Value::as_str).map(str::to_string),
                extra: extra_of(part, &["type", "url", "mediaType"]),
            }
        }
        // Any other file: `{type: "file", mediaType, url (http(s) or data URL), filename?}`.
        "file" if part.get("url").is_some_and(Value::is_string) => ContentPart::File {
            url: Some(text("url")?),
            data: None,
            file_id: None,
            media_type: part.get("mediaType").and_then(Value::as_str).map(str::to_string),
            filename: part.get("filename").and_then(Value::as_str).map(str::to_string),
            extra: extra_of(part, &["type", "url", "mediaType", "filename"]),
        },
        _ => ContentPart::Other { raw: raw.clone() },
    })
}

/// The call a tool part records: a valid call, or (a `tool-input-error` part, `rawInput` and no
/// `input`) a call whose input did not parse, kept as the text the model wrote.
enum Call {
    Valid(ToolCall),
    Invalid(InvalidToolCall),
}

/// A tool part as the call it records (`None` while its input is still streaming: the model
/// never saw that call) and the result it carries, if any.
fn decode_tool(part: &Map<String, Value>, kind: &str, position: usize) -> Result<Option<(Call, Vec<Message>)>> {
    let state = part.get("state").and_then(Value::as_str).unwrap_or_default();
    if !STATES.contains(&state) {
        return Err(invalid(format!(
            "a UIMessage tool part with state {state:?}; the states are {}",
            STATES.join(", ")
        )));
    }
    if state == "input-streaming" {
        return Ok(None);
    }
    let id = part.get("toolCallId").and_then(Value::as_str).filter(|s| !s.is_empty()).ok_or_else(|| {
        Error::new(ErrorCode::InvalidToolCall, format!("a UIMessage `{kind}` part needs a `toolCallId`")).field("parts")
    })?;
    let name = tool_name(kind, part).unwrap_or_default();
    let mut extra = extra_of(part, &["type", "toolCallId", "toolName", "input", "output", "errorText", "approval"]);
    if kind == "dynamic-tool" {
        extra.put("type", Value::from("dynamic-tool"));
    }
    extra.insert(POSITION.into(), val(&position));
    let (request, decision) = decode_approval(part, state, id)?;
    let call = match (part.get("input"), part.get("rawInput")) {
        (None, Some(raw)) => Call::Invalid(InvalidToolCall {
            id: id.to_string(),
            name: name.clone(),
            args: json_text(raw),
            error: part.get("errorText").and_then(Value::as_str).map(str::to_string),
            extra,
        }),
        (input, _) => Call::Valid(ToolCall {
            id: id.to_string(),
            name: name.clone(),
            args: input.cloned().unwrap_or_else(|| obj! {}),
            raw_args: None,
            extra,
            approval: request,
        }),
    };
    let result = match state {
        "output-available" => {
            let output = part.get("output").cloned().unwrap_or(Value::Null);
            let mut m = Message::tool_result(id, json_text(&output), ToolStatus::Success);
            if !output.is_string() {
                m.extra.put("output", output);
            }
            Some(m)
        }
        "output-error" => {
            let text = part.get("errorText").and_then(Value::as_str).unwrap_or_default();
            Some(Message::tool_result(id, text, ToolStatus::Error))
        }
        "output-denied" => {
            let reason = part.get("approval").and_then(|a| a.get("reason")).and_then(Value::as_str);
            Some(Message::tool_result(id, reason.unwrap_or(DENIED), ToolStatus::Error))
        }
        _ => None,
    };
    // As `convertToModelMessages` writes a part: its decision, then its result.
    let answers = decision
        .map(Message::approval_decision)
        .into_iter()
        .chain(result.map(|mut m| {
            m.name = Some(name);
            m
        }))
        .collect();
    Ok(Some((call, answers)))
}

/// A tool output as the text a tool result holds: a string as it is, anything else as JSON.
fn json_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(super) fn decode(obj: &Map<String, Value>) -> Result<Vec<Message>> {
    let role = match field(obj, "role").and_then(Value::as_str).unwrap_or_default() {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        other => {
            return Err(Error::new(
                ErrorCode::UnknownRole,
                format!("unknown UIMessage role {other:?}; expected system, user or assistant"),
            )
            .field("role"))
        }
    };
    let id = opt_id(obj, "id")?;
    let Some(Value::Array(parts)) = field(obj, "parts") else {
        return Err(invalid("a UIMessage needs `parts`, a list".into()));
    };
    let extra = extra_of(obj, &["id", "role", "parts"]);
    // Steps of an assistant message: its parts split at `step-start` (which stays, as the first
    // part of the step it starts).
    let mut steps: Vec<Vec<&Value>> = vec![Vec::new()];
    for p in parts {
        let part = as_obj(p, "a UIMessage part")?;
        let kind = part.get("type").and_then(Value::as_str).unwrap_or_default();
        // AI SDK 4's tool part (`{type: "tool-invocation", toolInvocation}`) is no v5 tool part
        // `tool-<name>`: say so rather than read it as a tool named "invocation".
        if kind == "tool-invocation" && part.contains_key("toolInvocation") {
            return Err(invalid(
                "an AI SDK 4 `tool-invocation` part: stategate reads UIMessages of AI SDK 5 and 6, whose tool parts are `tool-<name>` with a `state`; convert AI SDK 4 messages to v5 first".into(),
            ));
        }
        if !is_part_type(kind) {
            return Err(invalid(format!(
                "unknown UIMessage part type {kind:?}; the part types are text, reasoning, file, source-url, source-document, step-start, data-*, tool-*, dynamic-tool"
            )));
        }
        let is_tool = kind.starts_with("tool-") || kind == "dynamic-tool";
        if is_tool && role != Role::Assistant {
            return Err(
                Error::new(ErrorCode::InvalidToolCall, "only an assistant UIMessage has tool parts").field("parts")
            );
        }
        if kind == "step-start" && role == Role::Assistant && steps.last().is_some_and(|s| !s.is_empty()) {
            steps.push(Vec::new());
        }
        if let Some(step) = steps.last_mut() {
            step.push(p);
        }
    }
    let mut out = Vec::new();
    for (k, step) in steps.iter().enumerate() {
        let mut m = Message::new(role, "");
        m.id = match (&id, k) {
            (Some(id), 0) => Some(id.clone()),
            (Some(id), k) => Some(format!("{id}#{k}")),
            // An id-less message's later steps still say whose steps they are: `#k`, of the base
            // "" (an AI SDK stream without a `messageId` gives such messages).
            (None, 0) => None,
            (None, k) => Some(format!("#{k}")),
        };
        if k == 0 {
            m.extra = extra.clone();
        }
        let mut content = Vec::new();
        let mut results = Vec::new();
        for (position, p) in step.iter().enumerate() {
            let part = as_obj(p, "a UIMessage part")?;
            let kind = part.get("type").and_then(Value::as_str).unwrap_or_default();
            // A provider-executed tool part (a server-side web search) was never the caller's to
            // answer: kept as it came, in place (read as a call, the caller "owed" its result).
            let provider_executed = part.get("providerExecuted") == Some(&Value::Bool(true));
            if (kind.starts_with("tool-") || kind == "dynamic-tool") && !provider_executed {
                match decode_tool(part, kind, position)? {
                    Some((call, result)) => {
                        match call {
                            Call::Valid(c) => m.tool_calls.push(c),
                            Call::Invalid(c) => m.invalid_tool_calls.push(c),
                        }
                        results.extend(result);
                    }
                    None => content.push(ContentPart::Other { raw: (*p).clone() }),
                }
            } else {
                content.push(decode_part(part, p, kind)?);
            }
        }
        m.content = Content::Parts(content);
        out.push(m);
        out.extend(results);
    }
    Ok(out)
}

/// Whether the assistant message at `i` continues the UIMessage of an earlier message of the
/// list: its id is `X#k` and the nearest assistant message before it (past its results) is `X`
/// or `X#j` (for the base `""`, an id-less message too).
pub(super) fn continues(messages: &[Message], i: usize) -> bool {
    let Some(m) = messages.get(i).filter(|m| m.role == Role::Assistant) else { return false };
    let Some((base, _)) = m.id.as_deref().and_then(|id| id.rsplit_once('#')) else { return false };
    let before = messages.get(..i).unwrap_or_default().iter().rev().find(|p| p.role != Role::Tool);
    before.is_some_and(|p| {
        p.role == Role::Assistant
            && match p.id.as_deref() {
                Some(pid) => pid == base || pid.rsplit_once('#').is_some_and(|(b, _)| b == base),
                None => base.is_empty(),
            }
    })
}

/// One content part as a UIMessage part (`None` for a part this format cannot carry).
fn encode_part(part: &ContentPart, own: bool, origin: Option<Format>) -> Option<Value> {
    let mut obj = Map::new();
    match part {
        ContentPart::Text { text, extra } => {
            obj.put("type", Value::from("text"));
            obj.put("text", val(&text));
            if own {
                extend(&mut obj, extra);
            } else if let Some(meta) = super::util::provider_metadata(extra, origin) {
                // What the AI SDK keeps for the provider (an OpenAI `phase`, a Gemini signature).
                obj.put("providerMetadata", meta);
            }
        }
        ContentPart::Reasoning { text, extra } => {
            obj.put("type", Value::from("reasoning"));
            obj.put("text", val(&text));
            if own {
                extend(&mut obj, extra);
            } else if let Some(meta) = super::util::provider_metadata(extra, origin) {
                obj.put("providerMetadata", meta);
            }
        }
        ContentPart::Image { url, data, media_type, extra } => {
            // The media type a data URL names, when the part has none of its own.
            let from_url = url.as_deref().and_then(super::util::data_url).map(|(mt, _)| mt.to_string());
            let media_type = media_type.clone().or(from_url).unwrap_or_else(|| "image/png".into());
            let url = match (url, data) {
                (Some(u), _) => u.clone(),
                (None, Some(d)) => format!("data:{media_type};base64,{d}"),
                (None, None) => return None,
            };
            obj.put("type", Value::from("file"));
            obj.put("mediaType", val(&media_type));
            obj.put("url", val(&url));
            if own {
                extend(&mut obj, extra);
            }
        }
        file @ ContentPart::File { url, data, media_type, filename, extra, .. } => {
            let mt = super::util::file_media_type(url.as_deref(), media_type.as_deref())
                .unwrap_or(super::util::OCTET_STREAM);
            let url = match (url, data) {
                (Some(u), _) => u.clone(),
                (None, Some(d)) => format!("data:{mt};base64,{d}"),
                (None, None) => {
                    let note = super::util::file_note(
                        file,
                        "a UIMessage takes a file's URL or data, not a provider's file id",
                    );
                    return encode_part(&note, false, None);
                }
            };
            obj.put("type", Value::from("file"));
            obj.put("mediaType", val(&mt));
            if let Some(name) = filename {
                obj.put("filename", val(&name));
            }
            obj.put("url", val(&url));
            if own {
                extend(&mut obj, extra);
            }
        }
        ContentPart::Other { raw } if own => return Some(raw.clone()),
        ContentPart::Other { raw } => {
            return super::util::redacted_thinking_as_reasoning(raw, origin, "providerMetadata")
                .or_else(|| super::util::other_note(raw).and_then(|n| encode_part(&n, false, None)))
        }
    }
    Some(Value::Object(obj))
}

fn extend(obj: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (k, v) in extra {
        obj.entry(k.clone()).or_insert_with(|| v.clone());
    }
}

/// A tool call with its approval's decision and its result (if the group holds them) as a tool
/// part. Its state follows from what the group holds: a result (`output-available`,
/// `output-error`, or `output-denied` when its approval was denied), else a decision
/// (`approval-responded`), else a request (`approval-requested`), else `input-available`.
fn encode_tool(
    call: &ToolCall,
    input: Option<&Value>,
    decision: Option<&ApprovalDecision>,
    result: Option<&Message>,
    own: bool,
) -> Value {
    let mut obj = Map::new();
    let dynamic = own && call.extra.get("type").and_then(Value::as_str) == Some("dynamic-tool");
    if dynamic {
        obj.put("type", Value::from("dynamic-tool"));
        obj.put("toolName", val(&call.name));
    } else {
        obj.put("type", val(&(format!("tool-{}", call.name))));
    }
    obj.put("toolCallId", val(&call.id));
    let recorded = call.extra.get("state").and_then(Value::as_str).filter(|_| own);
    let mut approval = call.approval.as_ref().map(|r| {
        let mut a = Map::new();
        a.put("id", val(&r.id));
        if own {
            extend(&mut a, &r.extra);
        }
        a
    });
    if let (Some(a), Some(d)) = (approval.as_mut(), decision) {
        a.put("approved", Value::Bool(d.approved));
        super::util::put_opt(a, "reason", d.reason.as_deref());
    }
    let granted = decision.is_some_and(|d| d.approved);
    let text = result.map(|r| content_as_string(&r.content)).unwrap_or_default();
    let state = match result {
        None if decision.is_some() && approval.is_some() => "approval-responded",
        None if approval.is_some() => "approval-requested",
        None => recorded.filter(|s| !ANSWERED.contains(s) && !s.starts_with("approval-")).unwrap_or("input-available"),
        // A call whose approval was not granted (denied, or never decided) never ran: its error
        // result is a denial, the only answered state the AI SDK gives such a part, the
        // result's text its reason.
        Some(r)
            if r.status == Some(ToolStatus::Error)
                && (recorded == Some("output-denied") || (approval.is_some() && !granted)) =>
        {
            if let Some(a) = approval.as_mut() {
                a.put("approved", Value::Bool(false));
                if text != DENIED {
                    a.entry("reason").or_insert_with(|| val(&text));
                }
            }
            "output-denied"
        }
        Some(r) if r.status == Some(ToolStatus::Error) => "output-error",
        Some(_) => {
            if let Some(a) = approval.as_mut() {
                a.entry("approved").or_insert(Value::Bool(true)); // it ran, so it was allowed
            }
            "output-available"
        }
    };
    obj.put("state", val(&state));
    if let Some(input) = input {
        obj.put("input", input.clone());
    }
    if let Some(r) = result {
        match state {
            "output-available" => {
                // A non-string output comes back as it was while the result's text is unchanged:
                // a UIMessage's own, or an AI SDK `json` output's value.
                let kept = match r.origin {
                    Some(Format::Ui) => r.extra.get("output"),
                    Some(Format::AiSdk) => r.extra.get(super::ai_sdk::JSON_OUTPUT),
                    _ => None,
                };
                let output = match kept.filter(|o| json_text(o) == text) {
                    Some(o) => o.clone(),
                    None => val(&text),
                };
                obj.put("output", output);
            }
            "output-error" => {
                obj.put("errorText", val(&text));
            }
            _ => {}
        }
    }
    if let Some(a) = approval {
        obj.put("approval", Value::Object(a));
    }
    if own {
        for (k, v) in &call.extra {
            if k != POSITION && k != "type" && k != "state" && k != "approval" {
                obj.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    Value::Object(obj)
}

/// Refuses the results a UIMessage cannot carry as they are. A result lives in its call's tool
/// part (the AI SDK's `UIToolInvocation`: one `output`), so, in the UIMessage a result would join:
/// - a result whose call is not there (a result after a user message, an orphan) is
///   `UNKNOWN_TOOL_CALL`: [`encode`] gave it a `dynamic-tool` part of its own with a made-up
///   input `{}` (and tool name `unknown`), which reads back as a new call that answers itself;
/// - a second result of one call is `ALREADY_ANSWERED`: there was nowhere to put it.
///
/// Every other format carries both. `index` is the result's position in `messages` (the caller
/// maps it to its input's). `repairMessages` first gives a history these hold for.
pub(super) fn check(messages: &[Message]) -> Result<()> {
    for range in super::groups(messages, Format::Ui) {
        let group = messages.get(range.clone()).unwrap_or_default();
        let answers = |id: &str, r: &Message| r.role == Role::Tool && r.tool_call_id.as_deref() == Some(id);
        for (k, m) in group.iter().enumerate() {
            let Some(id) = m.tool_call_id.as_deref().filter(|_| m.role == Role::Tool) else { continue };
            let (code, what) = if !group.iter().any(|c| c.call_ids().any(|c| c == id)) {
                (ErrorCode::UnknownToolCall, "its call is not in the UIMessage it would join (a UIMessage holds a result in its call's tool part)")
            } else if group.get(..k).unwrap_or_default().iter().any(|r| answers(id, r)) {
                (ErrorCode::AlreadyAnswered, "a second result: a UIMessage tool part holds one output")
            } else {
                continue;
            };
            return Err(Error::new(
                code,
                format!("result for call {id:?}: {what}, so converting to \"ui\" would drop or invent data; repair the history first (repairMessages moves a result to its call, keeps a call's first result and drops orphans) or convert to a format that carries it"),
            )
            .at(range.start + k));
        }
    }
    Ok(())
}

/// A group (see [`super::groups`]) as one UIMessage: a system or user message, or an assistant
/// message with every step of the group — each step's parts with its tool parts back at their
/// places, each call's result folded into its part.
pub(super) fn encode(group: &[Message]) -> Value {
    let Some(first) = group.first() else { return Value::Null };
    let own = first.origin == Some(Format::Ui);
    let role = match first.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant | Role::Tool => "assistant",
    };
    let mut obj = Map::new();
    let id = first.id.as_deref().map(|id| match id.rsplit_once('#') {
        Some((base, _)) if first.role == Role::Assistant && first.origin == Some(Format::Ui) => base,
        _ => id,
    });
    if let Some(id) = id {
        obj.put("id", val(&id));
    }
    obj.put("role", val(&role));
    let mut parts: Vec<Value> = Vec::new();
    let calls: Vec<&str> = group.iter().flat_map(|m| m.call_ids()).collect();
    let mut after_results = false;
    for m in group {
        let mine = m.origin == Some(Format::Ui);
        match m.role {
            Role::Tool => {
                after_results = true;
                // A result whose call is not in this message: a dynamic tool part, so it is not
                // lost where nothing refused it first (a conversion does: `check`; a model view is
                // repaired, so it has none).
                if m.tool_call_id.as_deref().is_some_and(|c| !calls.contains(&c)) {
                    let call = ToolCall {
                        id: m.tool_call_id.clone().unwrap_or_default(),
                        name: m.name.clone().unwrap_or_else(|| "unknown".into()),
                        args: obj! {},
                        raw_args: None,
                        extra: Map::from_iter([("type".to_string(), Value::from("dynamic-tool"))]),
                        approval: None,
                    };
                    parts.push(encode_tool(&call, Some(&call.args), None, Some(m), true));
                }
            }
            _ => {
                let mut step: Vec<Value> = match &m.content {
                    Content::Text(t) if !t.is_empty() => vec![obj! {"type": "text", "text": t}],
                    Content::Parts(p) => p.iter().filter_map(|x| encode_part(x, mine, m.origin)).collect(),
                    _ => Vec::new(),
                };
                let result_of =
                    |id: &str| group.iter().find(|r| r.role == Role::Tool && r.tool_call_id.as_deref() == Some(id));
                let decision_of = |c: &ToolCall| {
                    let r = c.approval.as_ref()?;
                    group.iter().find_map(|m| m.approval.as_ref().filter(|d| d.id == r.id))
                };
                // A call's place among its message's parts: a UIMessage's own, or an AI SDK
                // message's when each of its parts became one here (the places count the same).
                let same_parts = matches!(&m.content, Content::Parts(p) if p.len() == step.len());
                let placed = mine || (m.origin == Some(Format::AiSdk) && same_parts);
                let position = |extra: &Map<String, Value>| part_position(extra).filter(|_| placed);
                let mut tools: Vec<(Option<usize>, Value)> = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        let mut part = encode_tool(c, Some(&c.args), decision_of(c), result_of(&c.id), mine);
                        // A call's provider metadata (a Gemini thought signature, an AI SDK call's
                        // `providerOptions`) where `convertToModelMessages` reads it back.
                        let meta = super::util::provider_metadata(&c.extra, m.origin).filter(|_| !mine);
                        if let (Value::Object(o), Some(meta)) = (&mut part, meta) {
                            o.put("callProviderMetadata", meta);
                        }
                        (position(&c.extra), part)
                    })
                    .collect();
                // A call whose input did not parse: its text as `rawInput` (an answered part), or
                // as its `input` while it waits (the AI SDK's `input-available` needs one).
                for c in &m.invalid_tool_calls {
                    let call = ToolCall {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        args: val(&c.args),
                        raw_args: None,
                        extra: c.extra.clone(),
                        approval: None,
                    };
                    let result = result_of(&c.id);
                    let mut part = encode_tool(&call, result.is_none().then_some(&call.args), None, result, mine);
                    if let (Some(_), Value::Object(o)) = (result, &mut part) {
                        o.entry("rawInput").or_insert_with(|| val(&c.args));
                    }
                    tools.push((position(&c.extra), part));
                }
                place_calls(&mut step, tools);
                // A model call after tool results is a new step: it starts with `step-start`, the
                // boundary `convertToModelMessages` splits at (a step from another format has none).
                if after_results
                    && step.first().and_then(|p| p.get("type")).and_then(Value::as_str) != Some("step-start")
                {
                    step.insert(0, obj! {"type": "step-start"});
                }
                after_results = false;
                parts.extend(step);
            }
        }
    }
    obj.put("parts", Value::Array(parts));
    if own {
        put_extra(&mut obj, first, Format::Ui);
    }
    Value::Object(obj)
}
