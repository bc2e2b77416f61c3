//! OpenHands event streams (trajectory exports, `tests/runtime/trajs/*.json`).
//!
//! A JSON array of events `{id, timestamp, source: "user"|"agent"|"environment", message,
//! action? | observation?, args?, content?, cause?, tool_call_metadata?, extras?, success?}`.
//! Actions and observations are linked by `cause` (the action's `id`). An agent action the model
//! produced by function calling carries `tool_call_metadata: {function_name, tool_call_id,
//! model_response: {id, choices: [{message: <OpenAI assistant message>}]}, total_calls_in_response}`,
//! and its observation carries the same metadata.
//!
//! Reading rules (events in order; every produced message is decoded as OpenAI):
//! - an action with `tool_call_metadata` → the assistant message
//!   `model_response.choices[0].message`, emitted only the first time its `model_response.id` is
//!   seen (parallel calls give several events sharing one response); without a `model_response`
//!   the event is skipped;
//! - an observation with `tool_call_metadata` and a non-null `cause` → a tool message with
//!   `tool_call_id` and `name` (`function_name`) from the metadata, content = the observation's
//!   `content`, or its `message` when `content` is empty; status `Error` when `success: false` or
//!   the observation is `"error"`, `Success` when `success: true`, else unset;
//! - `action: "message"` without metadata → a user message (source `user`) or an assistant
//!   message (source `agent`) with `args.content`, or `message` when that is empty;
//! - `action: "system"` → a system message with `args.content`;
//! - anything else (state changes, `null` observations, recalls, …) is skipped.
//!
//! Errors: `UNKNOWN_TRANSCRIPT_FORMAT` when the document is not an array of objects (index = the
//! event); decoding errors carry the position of the event.

use super::decode_mapped;
use crate::error::{Error, ErrorCode, Result};
use crate::json::{obj, val, Put};
use crate::message::formats::Format;
use crate::message::{Message, ToolStatus};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Whether `v` looks like an OpenHands event: an object with `source` and `action` or
/// `observation`, and no `role`.
pub(super) fn is_event(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.contains_key("source")
            && (o.contains_key("action") || o.contains_key("observation"))
            && !o.contains_key("role")
    })
}

/// Reads an event array into one run.
pub(super) fn read(doc: &Value) -> Result<Vec<Message>> {
    let events = doc.as_array().ok_or_else(|| {
        Error::new(ErrorCode::UnknownTranscriptFormat, "an OpenHands trajectory is a JSON array of events")
    })?;
    let mut values: Vec<Value> = Vec::new();
    let mut positions: Vec<usize> = Vec::new();
    let mut statuses: Vec<Option<ToolStatus>> = Vec::new();
    let mut seen_responses: HashSet<String> = HashSet::new();
    for (i, ev) in events.iter().enumerate() {
        let e = ev.as_object().ok_or_else(|| {
            Error::new(ErrorCode::UnknownTranscriptFormat, "an OpenHands event must be a JSON object").at(i)
        })?;
        let meta = e.get("tool_call_metadata").and_then(Value::as_object);
        let produced = if let Some(action) = e.get("action").and_then(Value::as_str) {
            match meta {
                Some(meta) => model_message(meta, &mut seen_responses).map(|m| (m, None)),
                None => plain_action(e, action).map(|m| (m, None)),
            }
        } else if e.contains_key("observation") {
            match (meta, e.get("cause")) {
                (Some(meta), Some(cause)) if !cause.is_null() => Some(tool_message(e, meta)),
                _ => None,
            }
        } else {
            None
        };
        if let Some((value, status)) = produced {
            values.push(value);
            positions.push(i);
            statuses.push(status);
        }
    }
    let decoded = decode_mapped(&values, Format::Openai, &positions)?;
    let mut messages = decoded.messages;
    for (m, src) in messages.iter_mut().zip(&decoded.source) {
        if let Some(status) = statuses.get(*src).copied().flatten() {
            m.status = Some(status);
        }
    }
    Ok(messages)
}

/// The assistant message of the model response behind an action, the first time it is seen.
fn model_message(meta: &Map<String, Value>, seen: &mut HashSet<String>) -> Option<Value> {
    let response = meta.get("model_response")?;
    let message = response.get("choices")?.as_array()?.first()?.get("message")?;
    let key = match response.get("id").and_then(Value::as_str) {
        Some(id) => id.to_string(),
        None => message.to_string(),
    };
    seen.insert(key).then(|| message.clone())
}

/// A user / agent `message` action or a `system` action as an OpenAI message.
fn plain_action(e: &Map<String, Value>, action: &str) -> Option<Value> {
    let role = match (action, e.get("source").and_then(Value::as_str)) {
        ("message", Some("user")) => "user",
        ("message", Some("agent")) => "assistant",
        ("system", _) => "system",
        _ => return None,
    };
    let args_content = e.get("args").and_then(|a| a.get("content")).and_then(Value::as_str);
    Some(obj! {"role": role, "content": text_or(args_content, e.get("message"))})
}

/// An observation answering a tool call, with its status.
fn tool_message(e: &Map<String, Value>, meta: &Map<String, Value>) -> (Value, Option<ToolStatus>) {
    let mut m = Map::new();
    m.put("role", Value::from("tool"));
    m.put("tool_call_id", meta.get("tool_call_id").cloned().unwrap_or(Value::Null));
    if let Some(name) = meta.get("function_name").filter(|v| v.is_string()) {
        m.put("name", name.clone());
    }
    m.put("content", val(&(text_or(e.get("content").and_then(Value::as_str), e.get("message")))));
    let status = match (e.get("success").and_then(Value::as_bool), e.get("observation").and_then(Value::as_str)) {
        (Some(false), _) | (_, Some("error")) => Some(ToolStatus::Error),
        (Some(true), _) => Some(ToolStatus::Success),
        _ => None,
    };
    (Value::Object(m), status)
}

/// `primary` when non-empty, else `fallback` when it is a string, else `""`.
fn text_or<'a>(primary: Option<&'a str>, fallback: Option<&'a Value>) -> &'a str {
    match primary {
        Some(s) if !s.is_empty() => s,
        _ => fallback.and_then(Value::as_str).unwrap_or_default(),
    }
}
