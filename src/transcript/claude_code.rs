//! Claude Code session logs (`~/.claude/projects/<project>/<session-id>.jsonl`).
//!
//! One JSON record a line: `{type, uuid, parentUuid, sessionId, timestamp, isMeta?, isSidechain?,
//! message?, …}`. Records of type `user` / `assistant` carry `message` in the Anthropic Messages
//! shape (`{role, content: string | blocks}`; assistant messages also `id`, `model`, `stop_reason`,
//! `usage`). Claude Code writes one record per content block it streams, so one model response
//! (one `message.id`) can span several records.
//!
//! Reading rules:
//! - records without a `message` object (`queue-operation`, `summary`, `file-history-snapshot`, …),
//!   records whose `type` is set and is neither `user` nor `assistant`, and sub-agent records
//!   (`isSidechain: true`, a separate conversation) are skipped;
//! - consecutive assistant records (skipped records in between do not count) that share
//!   `message.id` are one assistant message: their content blocks are concatenated in order (a
//!   string content counts as one text block); the other fields come from the first record;
//! - hook-injected user records (`isMeta: true`) stay ordinary user messages; record-level fields
//!   (`uuid`, `timestamp`, `isMeta`, `toolUseResult`, …) are not kept;
//! - the merged messages are decoded as Anthropic, so a `tool_result` block becomes a tool message
//!   (status `Error` when `is_error: true`, `Success` when `false`, unset when absent).
//!
//! A record that is not a JSON object is `INVALID_MESSAGE` at its line; decoding errors carry the
//! line of the (first) record of the offending message.

use super::decode_mapped;
use crate::error::{Error, ErrorCode, Result};
use crate::json::{obj, Put};
use crate::message::formats::Format;
use crate::message::Message;
use serde_json::{Map, Value};

/// Whether `v` looks like a Claude Code session record (has `sessionId` or a `message` object).
pub(super) fn is_record(v: &Value) -> bool {
    v.get("sessionId").is_some() || v.get("message").is_some_and(Value::is_object)
}

/// Reads the records (with their line numbers) into one run.
pub(super) fn read(records: &[(usize, Value)]) -> Result<Vec<Message>> {
    let mut values: Vec<Value> = Vec::new();
    let mut positions: Vec<usize> = Vec::new();
    // `message.id` of the last kept message when it is an assistant message.
    let mut open_assistant: Option<String> = None;
    for (line, rec) in records {
        let obj = rec.as_object().ok_or_else(|| {
            Error::new(ErrorCode::InvalidMessage, "a Claude Code record must be a JSON object").at(*line)
        })?;
        let Some(Value::Object(msg)) = obj.get("message") else { continue };
        if obj.get("type").and_then(Value::as_str).is_some_and(|t| t != "user" && t != "assistant") {
            continue;
        }
        if obj.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let is_assistant = msg.get("role").and_then(Value::as_str) == Some("assistant");
        let id = msg.get("id").and_then(Value::as_str);
        if is_assistant && id.is_some() && id == open_assistant.as_deref() {
            if let Some(Value::Object(prev)) = values.last_mut() {
                append_content(prev, msg.get("content"));
                continue;
            }
        }
        open_assistant = if is_assistant { id.map(str::to_string) } else { None };
        values.push(Value::Object(msg.clone()));
        positions.push(*line);
    }
    decode_mapped(&values, Format::Anthropic, &positions).map(|d| d.messages)
}

/// Appends the blocks of `more` to the content of `prev`, turning both into block lists.
fn append_content(prev: &mut Map<String, Value>, more: Option<&Value>) {
    let mut blocks = blocks_of(prev.get("content"));
    blocks.extend(blocks_of(more));
    prev.put("content", Value::Array(blocks));
}

fn blocks_of(content: Option<&Value>) -> Vec<Value> {
    match content {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(Value::String(s)) if !s.is_empty() => vec![obj! {"type": "text", "text": s}],
        Some(Value::Null) | Some(Value::String(_)) | None => Vec::new(),
        Some(other) => vec![other.clone()],
    }
}
