//! The async subagent task ledger (DESIGN §7): subagent specs, the ledger's records and rules,
//! the five task tools and the background poll as transitions over a ledger snapshot, Agent
//! Protocol calls as data performed by a caller-supplied [`Transport`], and notifications.
//!
//! The flow of one tool call: [`context`] snapshots what the call reads from the store →
//! [`call`] performs the server calls through the transport and returns an [`Outcome`] →
//! [`Outcome::command`] turns it into one Command against the ledger as it is then → the store
//! applies it. No I/O happens here; `src/js/` supplies `fetch` or the caller's transport.

mod ledger;
mod notify;
mod ops;
mod protocol;
mod spec;
mod tools;
#[cfg(test)]
mod tests;

pub use ledger::{iso_time, tasks, Task};
pub use notify::{deliver, render, undelivered, Delivered, MAX_RESULT_CHARS};
pub use ops::{call, poll, refresh, Context, Outcome, PollError, FORK_PREAMBLE, STATUS_FILTERS, TOOL_NAMES};
pub use protocol::{final_answer, observe, Client, EffectRecord, Observation, ProtocolRequest, ProtocolResponse, Transport, GENERIC_ERROR};
pub use spec::{Mode, Retry, SubagentSpec, TasksConfig, UpdateStrategy};
pub use tools::{definitions, ToolDefinition};

use crate::error::Result;
use crate::message::formats::{encode_messages, Format};
use crate::message::{Role, ToolCall};
use crate::state::Store;
use serde_json::Value;

/// Snapshots what an operation reads: the ledger, the notification queue, the clock, the parent
/// thread id, and for a tool call the calls of its assistant turn and, when it starts a `fork`
/// subagent, the parent's model view before that turn (LangChain dicts, without system messages:
/// the subagent has its own system prompt).
pub fn context(store: &mut Store, config: &TasksConfig, call: Option<&ToolCall>, now_ms: u64) -> Result<Context> {
    let mut turn = Vec::new();
    let mut launcher = None;
    if let Some(call) = call {
        if let Some(m) = store.messages("messages")?.messages().iter().rev().find(|m| m.role == Role::Assistant && m.tool_calls.iter().any(|c| c.id == call.id)) {
            turn = m.tool_calls.clone();
            launcher = m.id.clone();
        }
    }
    let forks = call.is_some_and(|c| {
        c.name == "start_async_task" && c.args.get("subagent_type").and_then(Value::as_str).and_then(|t| config.agent(t)).is_some_and(|a| a.mode == Mode::Fork)
    });
    let fork = if forks { encode_messages(&store.fork_view(config.fork_budget, launcher.as_deref())?, Format::Langchain) } else { Vec::new() };
    Ok(Context {
        config: config.clone(),
        ledger: store.get("async_tasks")?,
        notifications: store.get("notifications")?,
        now_ms,
        parent_thread_id: config.parent_thread_id.clone().unwrap_or_else(|| store.run_id().to_string()),
        turn,
        fork,
    })
}
