//! The event log (DESIGN §4): one event per applied command, in order.
//!
//! Every applied command appends exactly one [`Event`] whose payload is the update as it was
//! reduced (message ids already assigned), so a replay yields the same state and the same ids.
//! Rejected commands leave no event.

use crate::message::Role;
use crate::state::{MessageOp, Write};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// What an event records (seed 001 types), derived from the command's update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "snake_case")]
pub enum EventType {
    /// A user message.
    UserInput,
    /// An assistant message (text or tool calls).
    ModelDecision,
    /// A tool call recorded without a model turn (not derived from updates yet; reserved).
    ToolCall,
    /// A tool result.
    ToolResult,
    /// Control passed to another agent.
    Handoff,
    /// A new approval (pending).
    ApprovalRequest,
    /// An approval decided.
    ApprovalResult,
    /// Any other change of state.
    StatePatch,
    /// A change of the async task ledger.
    TaskEvent,
    /// The run completed with its final answer.
    FinalOutput,
    /// The run failed, or an error was recorded.
    Error,
}

/// One applied command.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    /// 1-based position in the log; equals the store's version after the command.
    pub sequence: u64,
    /// What it records.
    #[serde(rename = "type")]
    pub kind: EventType,
    /// The command's author.
    pub author: String,
    /// The update as reduced: `{channel: value}`, messages as canonical ops with their ids.
    pub payload: Payload,
    /// Milliseconds since the Unix epoch, from the store's clock.
    pub created_at: u64,
    /// The command's correlation id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    /// The command's causation id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub causation_id: Option<String>,
}

/// The writes of one command, by channel name, in the order they were applied.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Payload(pub Vec<(String, Write)>);

impl Serialize for Payload {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (channel, write) in &self.0 {
            match write {
                Write::Messages(ops) => map.serialize_entry(channel, ops)?,
                Write::Json(v) => map.serialize_entry(channel, v)?,
            }
        }
        map.end()
    }
}

impl Payload {
    /// The event type of these writes: the most specific of the message, approval, task and run
    /// changes, else `state_patch`.
    pub fn kind(&self) -> EventType {
        let mut kind = EventType::StatePatch;
        for (channel, write) in &self.0 {
            let k = match (channel.as_str(), write) {
                (_, Write::Messages(ops)) => ops.iter().filter_map(MessageOp::message).fold(EventType::StatePatch, |k, m| match m.role {
                    Role::Tool => EventType::ToolResult,
                    Role::Assistant if k != EventType::ToolResult => EventType::ModelDecision,
                    Role::User | Role::System if k == EventType::StatePatch => EventType::UserInput,
                    _ => k,
                }),
                ("approvals", Write::Json(Value::Object(o))) => {
                    if o.values().any(|a| a.get("status").and_then(Value::as_str).is_some_and(|s| s != "pending")) {
                        EventType::ApprovalResult
                    } else {
                        EventType::ApprovalRequest
                    }
                }
                ("async_tasks", _) => EventType::TaskEvent,
                ("run", Write::Json(v)) => match v.get("status").and_then(Value::as_str) {
                    Some("completed") => EventType::FinalOutput,
                    Some("failed") => EventType::Error,
                    _ => EventType::StatePatch,
                },
                ("last_error", Write::Json(v)) if !v.is_null() => EventType::Error,
                _ => EventType::StatePatch,
            };
            if kind == EventType::StatePatch {
                kind = k;
            }
        }
        kind
    }
}
