//! AI SDK 6 `UIMessageChunk` streams, assembled into `UIMessage`s as the AI SDK's own
//! `processUIMessageStream` (behind `readUIMessageStream`, ai 6.0.325
//! `src/ui/process-ui-message-stream.ts`) builds them, then decoded by the `"ui"` format.
//!
//! Followed exactly: a `start` with a new `messageId` begins a new message (the
//! `resetStateOnMessageIdChange` of `readUIMessageStream`); `start-step` adds a `step-start` part;
//! `finish-step` closes the open text and reasoning parts; text and reasoning parts carry
//! `state: "streaming" | "done"`; a tool part goes `input-streaming` (with `rawInput`) →
//! `input-available` → `output-available` / `output-error`, or → `approval-requested` →
//! `output-denied`; results and approvals find their part in the current step first, then
//! anywhere in the message; metadata merges deeply; `data-*` parts with an `id` are replaced in
//! place, transient ones are not kept; `error` and `abort` change no part.
//!
//! Differs, on purpose: a chunk type the AI SDK does not know is refused (it ignores it); a
//! streaming tool input shows as `input` only once its text parses as JSON (the AI SDK repairs
//! partial JSON with `parsePartialJson`; a guess at half an argument list is not kept); a stream
//! without a `messageId` gives a message without an id (the AI SDK's is `""`).

use super::{check_id, invalid};
use crate::error::Result;
use crate::json::{obj, val, Put};
use crate::message::formats::util::kind;
use crate::message::formats::{decode_messages, Format};
use crate::message::Message;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Every chunk type of AI SDK 6 (`uiMessageChunkSchema`), `data-*` aside.
const CHUNK_TYPES: [&str; 24] = [
    "start",
    "start-step",
    "finish-step",
    "text-start",
    "text-delta",
    "text-end",
    "reasoning-start",
    "reasoning-delta",
    "reasoning-end",
    "tool-input-start",
    "tool-input-delta",
    "tool-input-available",
    "tool-input-error",
    "tool-output-available",
    "tool-output-error",
    "tool-approval-request",
    "tool-output-denied",
    "source-url",
    "source-document",
    "file",
    "message-metadata",
    "error",
    "abort",
    "finish",
];

/// Whether `t` is a UIMessageChunk type (including `data-*`).
pub(super) fn is_chunk_type(t: &str) -> bool {
    CHUNK_TYPES.contains(&t) || is_data(t)
}

fn is_data(t: &str) -> bool {
    t.strip_prefix("data-").is_some_and(|n| !n.is_empty())
}

/// A tool input being streamed (`state.partialToolCalls`).
#[derive(Debug, Clone)]
struct Partial {
    text: String,
    input_encoding: Option<Value>,
    tool_name: Value,
    dynamic: bool,
    title: Option<Value>,
    tool_metadata: Option<Value>,
}

/// One UIMessage being assembled.
#[derive(Debug, Clone, Default)]
struct UiMessage {
    id: Option<String>,
    metadata: Option<Value>,
    parts: Vec<Value>,
    /// Whether the AI SDK would have emitted a snapshot of it (`write()` was called).
    written: bool,
}

impl UiMessage {
    fn to_value(&self) -> Value {
        let mut obj = Map::new();
        if let Some(id) = &self.id {
            obj.put("id", val(&id));
        }
        obj.put("role", Value::from("assistant"));
        if let Some(m) = &self.metadata {
            obj.put("metadata", m.clone());
        }
        obj.put("parts", Value::Array(self.parts.clone()));
        Value::Object(obj)
    }
}

/// The assembly state of a ui-stream.
#[derive(Debug, Clone, Default)]
pub(crate) struct UiStream {
    done: Vec<UiMessage>,
    current: UiMessage,
    active_text: HashMap<String, usize>,
    active_reasoning: HashMap<String, usize>,
    partial: HashMap<String, Partial>,
    /// The type of the last chunk among `finish`, `abort`, `error`, and whether a chunk of
    /// another type followed it.
    last_end: Option<(&'static str, bool)>,
    finish_reason: Option<String>,
    error_text: Option<String>,
}

/// A field of a chunk, `None` when absent or `null` (the AI SDK's `!= null`).
fn opt(chunk: &Map<String, Value>, key: &str) -> Option<Value> {
    chunk.get(key).filter(|v| !v.is_null()).cloned()
}

/// A required string field of a chunk (an id or a delta).
fn string<'a>(chunk: &'a Map<String, Value>, key: &str, ty: &str) -> Result<&'a str> {
    match chunk.get(key) {
        Some(Value::String(s)) => Ok(s),
        other => {
            Err(invalid(format!("a `{ty}` chunk needs a string `{key}`, got {}", other.map_or("nothing", kind)))
                .field(key))
        }
    }
}

/// An id field, checked against the id limit.
fn id<'a>(chunk: &'a Map<String, Value>, key: &str, ty: &str) -> Result<&'a str> {
    let s = string(chunk, key, ty)?;
    check_id(s, &format!("the `{key}` of a `{ty}` chunk"))?;
    Ok(s)
}

/// Sets `key` to `value`, or removes it for `None` (a JS assignment of `undefined`, which JSON
/// and `structuredClone` snapshots drop).
fn set(part: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    match value {
        Some(v) => {
            part.insert(key.into(), v);
        }
        None => {
            part.shift_remove(key);
        }
    }
}

/// The AI SDK's `mergeObjects`: objects merge key by key (deeply), anything else replaces.
fn merge_objects(base: &Value, overrides: &Value) -> Value {
    match (base, overrides) {
        (Value::Object(b), Value::Object(o)) => {
            let mut out = b.clone();
            for (k, v) in o {
                let merged = match out.get(k) {
                    Some(existing) if existing.is_object() && v.is_object() => merge_objects(existing, v),
                    _ => v.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::Object(out)
        }
        (_, o) => o.clone(),
    }
}

/// What a tool part update sets (`updateToolPart` / `updateDynamicToolPart` options).
struct ToolUpdate {
    tool_call_id: String,
    tool_name: Value,
    state: &'static str,
    input: Option<Value>,
    output: Option<Value>,
    error_text: Option<Value>,
    raw_input: Option<Value>,
    input_encoding: Option<Value>,
    preliminary: Option<Value>,
    provider_executed: Option<Value>,
    provider_metadata: Option<Value>,
    title: Option<Value>,
    tool_metadata: Option<Value>,
}

impl ToolUpdate {
    fn new(tool_call_id: &str, tool_name: Value, state: &'static str) -> ToolUpdate {
        ToolUpdate {
            tool_call_id: tool_call_id.to_string(),
            tool_name,
            state,
            input: None,
            output: None,
            error_text: None,
            raw_input: None,
            input_encoding: None,
            preliminary: None,
            provider_executed: None,
            provider_metadata: None,
            title: None,
            tool_metadata: None,
        }
    }

    fn result_state(&self) -> bool {
        self.state == "output-available" || self.state == "output-error"
    }
}

fn is_tool_part(p: &Value) -> bool {
    p.get("type").and_then(Value::as_str).is_some_and(|t| t.starts_with("tool-") || t == "dynamic-tool")
}

fn is_static_tool_part(p: &Value) -> bool {
    p.get("type").and_then(Value::as_str).is_some_and(|t| t.starts_with("tool-"))
}

fn call_id_of(p: &Value) -> Option<&str> {
    p.get("toolCallId").and_then(Value::as_str)
}

impl UiStream {
    /// The index of the first part of the current step (after the last `step-start`).
    fn step_start(&self) -> usize {
        self.current
            .parts
            .iter()
            .rposition(|p| p.get("type").and_then(Value::as_str) == Some("step-start"))
            .map_or(0, |i| i + 1)
    }

    /// The part of a tool call: in the current step, else the last one in the message
    /// (`getToolInvocation`). `INVALID_MESSAGE` when there is none.
    fn invocation(&self, call_id: &str, ty: &str) -> Result<usize> {
        let start = self.step_start();
        let parts = &self.current.parts;
        let in_step = (start..parts.len())
            .find(|&i| parts.get(i).is_some_and(|p| is_tool_part(p) && call_id_of(p) == Some(call_id)));
        in_step
            .or_else(|| parts.iter().rposition(|p| is_tool_part(p) && call_id_of(p) == Some(call_id)))
            .ok_or_else(|| {
                invalid(format!(
                    "a `{ty}` chunk for tool call {call_id:?}, which no `tool-input-start` or `tool-input-available` began"
                ))
                .field("toolCallId")
            })
    }

    /// `updateToolPart` (static) or `updateDynamicToolPart`: updates the call's part of the
    /// current step (or `existing`), or adds one.
    fn update_tool(&mut self, u: ToolUpdate, dynamic: bool, existing: Option<usize>) {
        let start = self.step_start();
        let found = existing.or_else(|| {
            (start..self.current.parts.len()).find(|&i| {
                self.current.parts.get(i).is_some_and(|p| {
                    (if dynamic {
                        p.get("type").and_then(Value::as_str) == Some("dynamic-tool")
                    } else {
                        is_static_tool_part(p)
                    }) && call_id_of(p) == Some(u.tool_call_id.as_str())
                })
            })
        });
        let metadata_key = if u.result_state() { "resultProviderMetadata" } else { "callProviderMetadata" };
        if let Some(Value::Object(part)) = found.and_then(|i| self.current.parts.get_mut(i)) {
            part.put("state", val(&u.state));
            if dynamic {
                part.put("toolName", u.tool_name.clone());
            } else {
                part.put("type", val(&(format!("tool-{}", u.tool_name.as_str().unwrap_or_default()))));
            }
            set(part, "input", u.input);
            set(part, "output", u.output);
            set(part, "errorText", u.error_text);
            set(part, "rawInput", u.raw_input);
            set(part, "inputEncoding", u.input_encoding);
            set(part, "preliminary", u.preliminary);
            if u.title.is_some() {
                set(part, "title", u.title);
            }
            if u.tool_metadata.is_some() {
                set(part, "toolMetadata", u.tool_metadata);
            }
            if u.provider_executed.is_some() {
                set(part, "providerExecuted", u.provider_executed);
            }
            if u.provider_metadata.is_some() {
                set(part, metadata_key, u.provider_metadata);
            }
            return;
        }
        let mut part = Map::new();
        if dynamic {
            part.put("type", Value::from("dynamic-tool"));
            part.put("toolName", u.tool_name.clone());
        } else {
            part.put("type", val(&(format!("tool-{}", u.tool_name.as_str().unwrap_or_default()))));
        }
        part.put("toolCallId", val(&u.tool_call_id));
        part.put("state", val(&u.state));
        set(&mut part, "title", u.title);
        set(&mut part, "toolMetadata", u.tool_metadata);
        set(&mut part, "input", u.input);
        set(&mut part, "inputEncoding", u.input_encoding);
        set(&mut part, "output", u.output);
        if !dynamic {
            set(&mut part, "rawInput", u.raw_input);
        }
        set(&mut part, "errorText", u.error_text);
        set(&mut part, "providerExecuted", u.provider_executed);
        set(&mut part, "preliminary", u.preliminary);
        set(&mut part, metadata_key, u.provider_metadata);
        self.current.parts.push(Value::Object(part));
    }

    fn merge_metadata(&mut self, metadata: Option<Value>) {
        if let Some(m) = metadata {
            self.current.metadata = Some(match &self.current.metadata {
                Some(base) => merge_objects(base, &m),
                None => m,
            });
            self.current.written = true;
        }
    }

    pub(crate) fn push(&mut self, chunk: &Value) -> Result<()> {
        let Some(c) = chunk.as_object() else {
            let hint = if chunk.is_array() {
                " (a LangGraph `[namespace, [chunk, metadata]]` item? use the \"langgraph-messages\" format)"
            } else {
                ""
            };
            return Err(invalid(format!("a UIMessageChunk must be an object, got {}{hint}", kind(chunk))));
        };
        let Some(ty) = c.get("type").and_then(Value::as_str) else {
            let hint = if c.contains_key("lc") || c.contains_key("kwargs") {
                " (a LangChain message chunk? use the \"langgraph-messages\" format)"
            } else {
                ""
            };
            return Err(invalid(format!("a UIMessageChunk needs a string `type`{hint}")).field("type"));
        };
        if !is_chunk_type(ty) {
            return Err(invalid(format!(
                "unknown UIMessageChunk type {ty:?}; the types are {}, data-*",
                CHUNK_TYPES.join(", ")
            ))
            .field("type"));
        }
        match ty {
            "finish" | "abort" | "error" => {
                self.last_end = Some((
                    match ty {
                        "finish" => "finish",
                        "abort" => "abort",
                        _ => "error",
                    },
                    false,
                ))
            }
            _ => {
                if let Some((_, after)) = &mut self.last_end {
                    *after = true;
                }
            }
        }
        match ty {
            "text-start" | "reasoning-start" => {
                let part_id = id(c, "id", ty)?.to_string();
                let mut part = Map::new();
                let reasoning = ty == "reasoning-start";
                part.put("type", val(&(if reasoning { "reasoning" } else { "text" })));
                if reasoning {
                    part.put("id", val(&part_id));
                }
                part.put("text", Value::from(""));
                set(&mut part, "providerMetadata", opt(c, "providerMetadata"));
                part.put("state", Value::from("streaming"));
                let at = self.current.parts.len();
                self.current.parts.push(Value::Object(part));
                let active = if reasoning { &mut self.active_reasoning } else { &mut self.active_text };
                active.insert(part_id, at);
                self.current.written = true;
            }
            "text-delta" | "reasoning-delta" | "text-end" | "reasoning-end" => {
                let part_id = id(c, "id", ty)?;
                let reasoning = ty.starts_with("reasoning");
                let delta = if ty.ends_with("-delta") { Some(string(c, "delta", ty)?) } else { None };
                let active = if reasoning { &mut self.active_reasoning } else { &mut self.active_text };
                let Some(&at) = active.get(part_id) else {
                    return Err(invalid(format!(
                        "a `{ty}` chunk for {} part {part_id:?}, which no `{}-start` began (or which has ended)",
                        if reasoning { "reasoning" } else { "text" },
                        if reasoning { "reasoning" } else { "text" },
                    ))
                    .field("id"));
                };
                if delta.is_none() {
                    active.remove(part_id);
                }
                if let Some(Value::Object(part)) = self.current.parts.get_mut(at) {
                    if let Some(d) = delta {
                        if let Some(Value::String(text)) = part.get_mut("text") {
                            text.push_str(d);
                        }
                    } else {
                        part.put("state", Value::from("done"));
                    }
                    if let Some(pm) = opt(c, "providerMetadata") {
                        part.put("providerMetadata", pm);
                    }
                }
                self.current.written = true;
            }
            "file" => {
                let mut part = Map::new();
                part.put("type", Value::from("file"));
                set(&mut part, "mediaType", c.get("mediaType").cloned());
                set(&mut part, "url", c.get("url").cloned());
                set(&mut part, "providerMetadata", opt(c, "providerMetadata"));
                self.current.parts.push(Value::Object(part));
                self.current.written = true;
            }
            "source-url" | "source-document" => {
                let mut part = Map::new();
                part.put("type", val(&ty));
                let keys: &[&str] = if ty == "source-url" {
                    &["sourceId", "url", "title", "providerMetadata"]
                } else {
                    &["sourceId", "mediaType", "title", "filename", "providerMetadata"]
                };
                for k in keys {
                    set(&mut part, k, c.get(*k).cloned());
                }
                self.current.parts.push(Value::Object(part));
                self.current.written = true;
            }
            "tool-input-start" => {
                let call_id = id(c, "toolCallId", ty)?;
                let name = id(c, "toolName", ty)?;
                let dynamic = c.get("dynamic").and_then(Value::as_bool).unwrap_or(false);
                self.partial.insert(
                    call_id.to_string(),
                    Partial {
                        text: String::new(),
                        input_encoding: opt(c, "inputEncoding"),
                        tool_name: val(&name),
                        dynamic,
                        title: c.get("title").cloned(),
                        tool_metadata: c.get("toolMetadata").cloned(),
                    },
                );
                let mut u = ToolUpdate::new(call_id, val(&name), "input-streaming");
                u.input_encoding = opt(c, "inputEncoding");
                u.provider_executed = c.get("providerExecuted").cloned();
                u.title = c.get("title").cloned();
                u.tool_metadata = c.get("toolMetadata").cloned();
                u.provider_metadata = opt(c, "providerMetadata");
                self.update_tool(u, dynamic, None);
                self.current.written = true;
            }
            "tool-input-delta" => {
                let call_id = id(c, "toolCallId", ty)?;
                let delta = string(c, "inputTextDelta", ty)?;
                let Some(p) = self.partial.get_mut(call_id) else {
                    return Err(invalid(format!(
                        "a `tool-input-delta` chunk for tool call {call_id:?}, which no `tool-input-start` began"
                    ))
                    .field("toolCallId"));
                };
                p.text.push_str(delta);
                let p = p.clone();
                let input = if p.input_encoding.as_ref().and_then(Value::as_str) == Some("text") {
                    Some(val(&p.text))
                } else {
                    serde_json::from_str::<Value>(&p.text).ok()
                };
                let mut u = ToolUpdate::new(call_id, p.tool_name, "input-streaming");
                u.input_encoding = p.input_encoding;
                u.input = input;
                u.raw_input = Some(val(&p.text));
                u.title = p.title;
                u.tool_metadata = p.tool_metadata;
                self.update_tool(u, p.dynamic, None);
                self.current.written = true;
            }
            "tool-input-available" => {
                let call_id = id(c, "toolCallId", ty)?;
                let name = id(c, "toolName", ty)?;
                let dynamic = c.get("dynamic").and_then(Value::as_bool).unwrap_or(false);
                let mut u = ToolUpdate::new(call_id, val(&name), "input-available");
                u.input = c.get("input").cloned();
                u.provider_executed = c.get("providerExecuted").cloned();
                u.provider_metadata = opt(c, "providerMetadata");
                u.title = c.get("title").cloned();
                u.tool_metadata = c.get("toolMetadata").cloned();
                self.update_tool(u, dynamic, None);
                self.current.written = true;
            }
            "tool-input-error" => {
                let call_id = id(c, "toolCallId", ty)?;
                let name = id(c, "toolName", ty)?;
                let start = self.step_start();
                let existing = self
                    .current
                    .parts
                    .get(start..)
                    .unwrap_or_default()
                    .iter()
                    .find(|p| is_tool_part(p) && call_id_of(p) == Some(call_id));
                let dynamic = match existing {
                    Some(p) => p.get("type").and_then(Value::as_str) == Some("dynamic-tool"),
                    None => c.get("dynamic").and_then(Value::as_bool).unwrap_or(false),
                };
                let mut u = ToolUpdate::new(call_id, val(&name), "output-error");
                if dynamic {
                    u.input = c.get("input").cloned();
                } else {
                    u.raw_input = c.get("input").cloned();
                }
                u.error_text = c.get("errorText").cloned();
                u.provider_executed = c.get("providerExecuted").cloned();
                u.provider_metadata = opt(c, "providerMetadata");
                u.tool_metadata = c.get("toolMetadata").cloned();
                self.update_tool(u, dynamic, None);
                self.current.written = true;
            }
            "tool-approval-request" => {
                let call_id = id(c, "toolCallId", ty)?;
                let approval_id = id(c, "approvalId", ty)?;
                let at = self.invocation(call_id, ty)?;
                if let Some(Value::Object(part)) = self.current.parts.get_mut(at) {
                    part.put("state", Value::from("approval-requested"));
                    let mut approval = Map::new();
                    approval.put("id", val(&approval_id));
                    set(&mut approval, "descriptor", opt(c, "approvalDescriptor"));
                    if let Some(v) = c.get("inputSchemaInput") {
                        approval.put("inputSchemaInput", v.clone());
                    }
                    set(&mut approval, "signature", opt(c, "signature"));
                    part.put("approval", Value::Object(approval));
                }
                self.current.written = true;
            }
            "tool-output-denied" => {
                let call_id = id(c, "toolCallId", ty)?;
                let at = self.invocation(call_id, ty)?;
                if let Some(Value::Object(part)) = self.current.parts.get_mut(at) {
                    part.put("state", Value::from("output-denied"));
                }
                self.current.written = true;
            }
            "tool-output-available" | "tool-output-error" => {
                let call_id = id(c, "toolCallId", ty)?;
                let at = self.invocation(call_id, ty)?;
                let part = self.current.parts.get(at).cloned().unwrap_or(Value::Null);
                let dynamic = part.get("type").and_then(Value::as_str) == Some("dynamic-tool");
                let name = if dynamic {
                    part.get("toolName").cloned().unwrap_or(Value::Null)
                } else {
                    val(&(part
                        .get("type")
                        .and_then(Value::as_str)
                        .and_then(|t| t.strip_prefix("tool-"))
                        .unwrap_or_default()))
                };
                let ok = ty == "tool-output-available";
                let mut u = ToolUpdate::new(call_id, name, if ok { "output-available" } else { "output-error" });
                u.input = part.get("input").cloned();
                if ok {
                    u.output = c.get("output").cloned();
                    u.preliminary = c.get("preliminary").cloned();
                } else {
                    u.error_text = c.get("errorText").cloned();
                    if !dynamic {
                        u.raw_input = part.get("rawInput").cloned();
                    }
                }
                u.provider_executed = c.get("providerExecuted").cloned();
                u.provider_metadata = opt(c, "providerMetadata");
                u.title = part.get("title").cloned();
                u.tool_metadata = opt(c, "toolMetadata").or_else(|| part.get("toolMetadata").cloned());
                self.update_tool(u, dynamic, Some(at));
                self.current.written = true;
            }
            "start-step" => self.current.parts.push(obj! {"type": "step-start"}),
            "finish-step" => {
                self.active_text.clear();
                self.active_reasoning.clear();
            }
            "start" => {
                let message_id = match c.get("messageId") {
                    None | Some(Value::Null) => None,
                    Some(_) => Some(id(c, "messageId", ty)?.to_string()),
                };
                if let Some(mid) = &message_id {
                    if self.current.id.as_deref() != Some(mid.as_str()) {
                        let old = std::mem::take(&mut self.current);
                        if old.written {
                            self.done.push(old);
                        }
                        self.active_text.clear();
                        self.active_reasoning.clear();
                        self.partial.clear();
                    }
                    self.current.id = message_id.clone();
                    self.current.written = true;
                }
                self.merge_metadata(opt(c, "messageMetadata"));
            }
            "finish" => {
                if let Some(r) = c.get("finishReason").and_then(Value::as_str) {
                    self.finish_reason = Some(r.to_string());
                }
                self.merge_metadata(opt(c, "messageMetadata"));
            }
            "message-metadata" => self.merge_metadata(opt(c, "messageMetadata")),
            "error" => self.error_text = c.get("errorText").and_then(Value::as_str).map(str::to_string),
            "abort" => {}
            _ => {
                // data-*
                if c.get("transient").and_then(Value::as_bool) == Some(true) {
                    return Ok(());
                }
                let data_id = c.get("id").filter(|v| !v.is_null());
                let existing = data_id.and_then(|did| {
                    self.current
                        .parts
                        .iter_mut()
                        .find(|p| p.get("type").and_then(Value::as_str) == Some(ty) && p.get("id") == Some(did))
                });
                match existing {
                    Some(Value::Object(p)) => {
                        set(p, "data", c.get("data").cloned());
                    }
                    _ => self.current.parts.push(chunk.clone()),
                }
                self.current.written = true;
            }
        }
        Ok(())
    }

    /// The UIMessages so far, as JSON values (the AI SDK's last snapshot of each).
    pub(crate) fn ui_messages(&self) -> Vec<Value> {
        self.done.iter().chain(std::iter::once(&self.current).filter(|m| m.written)).map(UiMessage::to_value).collect()
    }

    pub(crate) fn messages(&self) -> Result<Vec<Message>> {
        Ok(decode_messages(&self.ui_messages(), Some(Format::Ui))?.messages)
    }

    /// Fills the ui-stream parts of the report: the end, approvals pending, parts still open.
    pub(crate) fn report(&self, r: &mut super::StreamReport) {
        r.end = match self.last_end {
            Some(("finish", false)) => super::StreamEnd::Finish,
            Some(("abort", false)) => super::StreamEnd::Abort,
            Some((_, false)) => super::StreamEnd::Error,
            _ => super::StreamEnd::Cut,
        };
        r.finish_reason = self.finish_reason.clone();
        r.error_text = self.error_text.clone();
        for m in self.done.iter().chain(std::iter::once(&self.current)) {
            for p in &m.parts {
                let state = p.get("state").and_then(Value::as_str);
                let ty = p.get("type").and_then(Value::as_str).unwrap_or_default();
                if is_tool_part(p) {
                    let call = call_id_of(p).unwrap_or_default().to_string();
                    match state {
                        Some("approval-requested") => r.pending_approvals.push(super::PendingApproval {
                            approval_id: p
                                .get("approval")
                                .and_then(|a| a.get("id"))
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                            tool_call_id: call,
                            name: match ty {
                                "dynamic-tool" => p.get("toolName").and_then(Value::as_str).unwrap_or_default(),
                                t => t.strip_prefix("tool-").unwrap_or_default(),
                            }
                            .to_string(),
                            message_id: m.id.clone(),
                        }),
                        Some("input-streaming") => r.open_parts.push(call),
                        _ => {}
                    }
                } else if state == Some("streaming") {
                    let part_id = self
                        .active_text
                        .iter()
                        .chain(&self.active_reasoning)
                        .find(|(_, &at)| std::ptr::eq(m, &self.current) && self.current.parts.get(at) == Some(p))
                        .map(|(k, _)| k.clone());
                    r.open_parts.push(part_id.unwrap_or_else(|| ty.to_string()));
                }
            }
        }
    }
}
