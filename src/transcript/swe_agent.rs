//! SWE-agent trajectories (`.traj`).
//!
//! `{trajectory, history, info, replay_config, environment}`. `history` is the conversation the
//! model saw, OpenAI-chat-like: `{role: "system"|"user"|"assistant"|"tool", content, agent,
//! message_type, thought?, action?, tool_calls?: [{id, type, function: {name, arguments: "<JSON
//! text>"}}], tool_call_ids?: [id, …]}`.
//!
//! A tool message names the calls it answers in the list `tool_call_ids` instead of OpenAI's
//! `tool_call_id`. Each record is rewritten into an OpenAI message with `tool_call_id` in place of
//! the list (same key position) and decoded as OpenAI, so `agent`, `message_type`, `thought` and
//! `action` are kept in [`Message::extra`](crate::message::Message::extra). A tool record whose list
//! holds several ids becomes one tool message per id, each with the same content and fields
//! (SWE-agent sends one observation for all the calls of a turn). An empty or `null` list is
//! dropped, so a tool record without any id fails with `MISSING_TOOL_CALL_ID`.
//!
//! Errors: `UNKNOWN_TRANSCRIPT_FORMAT` without a `history` list; decoding errors carry the
//! record's position in `history`.

use super::decode_mapped;
use crate::error::{Error, ErrorCode, Result};
use crate::json::Put;
use crate::message::formats::Format;
use crate::message::Message;
use serde_json::{Map, Value};

/// Reads a `.traj` document into one run.
pub(super) fn read(doc: &Value) -> Result<Vec<Message>> {
    let history = doc.get("history").and_then(Value::as_array).ok_or_else(|| {
        Error::new(ErrorCode::UnknownTranscriptFormat, "a SWE-agent trajectory is a JSON object with a `history` list")
            .field("history")
    })?;
    let mut values: Vec<Value> = Vec::with_capacity(history.len());
    let mut positions: Vec<usize> = Vec::with_capacity(history.len());
    for (i, rec) in history.iter().enumerate() {
        let ids = match rec.get("tool_call_ids") {
            Some(Value::Array(ids)) => ids.as_slice(),
            Some(Value::Null) => &[],
            _ => {
                values.push(rec.clone());
                positions.push(i);
                continue;
            }
        };
        let Some(obj) = rec.as_object() else { continue };
        if ids.is_empty() {
            values.push(Value::Object(with_id(obj, None)));
            positions.push(i);
        }
        for id in ids {
            values.push(Value::Object(with_id(obj, Some(id))));
            positions.push(i);
        }
    }
    decode_mapped(&values, Format::Openai, &positions).map(|d| d.messages)
}

/// `obj` with `tool_call_ids` replaced, in place, by `tool_call_id: id` (or removed when `None`).
/// An existing `tool_call_id` is overwritten by the one from the list.
fn with_id(obj: &Map<String, Value>, id: Option<&Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in obj {
        match k.as_str() {
            "tool_call_ids" => {
                if let Some(id) = id {
                    out.put("tool_call_id", id.clone());
                }
            }
            "tool_call_id" if id.is_some() => {}
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out
}
