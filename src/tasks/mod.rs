//! The async subagent task ledger (DESIGN §7): subagent specs, the ledger's records and rules,
//! the five task tools and the background poll as transitions over a ledger snapshot, Agent
//! Protocol calls as data performed by a caller-supplied [`Transport`], and notifications.
//!
//! The flow of one tool call: [`context`] snapshots what the call reads from the store →
//! [`call`] performs the server calls through the transport and returns an [`Outcome`] →
//! [`Outcome::command`] turns it into one Command against the ledger as it is then → the store
//! applies it. No I/O happens here: [`Steps`] runs an operation one synchronous step at a time,
//! handing its requests out as data and taking the answers back, and the caller (the
//! TypeScript `AsyncTasks`) performs them with `fetch` or its own transport.

mod ledger;
mod notify;
mod ops;
mod outcome;
mod poll;
mod protocol;
mod pyjson;
mod results;
mod spec;
mod steps;
#[cfg(test)]
mod tests;
mod tools;

pub use ledger::{iso_time, tasks, Task};
pub use notify::{deliver, queued, render, undelivered, Delivered, MAX_RESULT_CHARS};
pub use ops::{call, not_a_task_tool, FORK_PREAMBLE, STATUS_FILTERS, TOOL_NAMES};
pub use outcome::{Context, Outcome};
pub use poll::{poll, refresh, PollError};
pub use protocol::{
    final_answer, observe, Client, EffectRecord, Observation, ProtocolRequest, ProtocolResponse, Transport,
    GENERIC_ERROR,
};
pub use results::{finish_call, record_poll, Failure, Gate, PollFailure, PollResult, TaskResult};
pub use spec::{Mode, Retry, SubagentSpec, TasksConfig, UpdateStrategy, AUTHOR};
pub use steps::{Answer, Mailbox, Steps};
pub use tools::{definitions, ToolDefinition};

use crate::error::Result;
use crate::message::formats::{encode_messages, Format};
use crate::message::{Role, ToolCall};
use crate::state::channel;
use crate::state::Store;
use serde_json::Value;

/// Checks, without writing, that the store would take the result of task tool call `call_id`
/// (or, with `None`, a poll's ledger write): the call exists and is unanswered, its approval is
/// not pending or rejected, the run has not ended, the store is not a past view, `async_tasks`
/// may write. Run before any server call, so a refused result never leaves an untracked run.
pub fn preflight(store: &mut Store, call_id: Option<&str>, now_ms: u64) -> Result<()> {
    let mut update = serde_json::Map::new();
    if let Some(id) = call_id {
        update.insert(
            channel::MESSAGES.into(),
            serde_json::json!([{ "type": "tool", "content": "", "tool_call_id": id, "status": "success" }]),
        );
    }
    update.insert(channel::ASYNC_TASKS.into(), serde_json::json!({}));
    store.check(
        &crate::state::Command {
            author: AUTHOR.into(),
            expected_version: None,
            update,
            correlation_id: None,
            causation_id: None,
        },
        now_ms,
    )
}

/// Snapshots what an operation reads: the ledger, the notification queue, the clock, the parent
/// thread id, and for a tool call the calls of its assistant turn and, when it starts a `fork`
/// subagent, the parent's model view before that turn (LangChain dicts, without system messages:
/// the subagent has its own system prompt).
pub fn context(store: &mut Store, config: &TasksConfig, call: Option<&ToolCall>, now_ms: u64) -> Result<Context> {
    let mut turn = Vec::new();
    let mut launcher = None;
    if let Some(call) = call {
        let channel = store.messages(channel::MESSAGES)?;
        if let Some(m) = channel
            .messages()
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant && m.tool_calls.iter().any(|c| c.id == call.id))
        {
            // Calls of this turn answered with an error did nothing (e.g. a refused follow-up).
            let failed: Vec<&str> = channel
                .messages()
                .iter()
                .filter(|r| r.role == Role::Tool && r.status == Some(crate::message::ToolStatus::Error))
                .filter_map(|r| r.tool_call_id.as_deref())
                .collect();
            turn = m.tool_calls.iter().filter(|c| !failed.contains(&c.id.as_str())).cloned().collect();
            launcher = m.id.clone();
        }
    }
    let forks = call.is_some_and(|c| {
        c.name == "start_async_task"
            && c.args
                .get("subagent_type")
                .and_then(Value::as_str)
                .and_then(|t| config.agent(t))
                .is_some_and(|a| a.mode == Mode::Fork)
    });
    let (fork, fork_error) =
        match forks.then(|| crate::project::fork_view(store, config.fork_budget, launcher.as_deref())) {
            Some(Ok(view)) => (encode_messages(&view, Format::Langchain), None),
            Some(Err(e)) => (Vec::new(), Some(e)),
            None => (Vec::new(), None),
        };
    Ok(Context {
        config: config.clone(),
        ledger: store.get(channel::ASYNC_TASKS)?,
        notifications: store.get(channel::NOTIFICATIONS)?,
        now_ms,
        parent_thread_id: config.parent_thread_id.clone().unwrap_or_else(|| store.run_id().to_string()),
        turn,
        fork,
        private: store.private_values(),
        fork_error,
    })
}

/// A tool call in any shape a model's message carries it: LangChain `{id, name, args}`, OpenAI
/// `{id, function: {name, arguments}}`, Anthropic `{type: "tool_use", id, name, input}`, AI SDK
/// `{type: "tool-call", toolCallId, toolName, input}`, Gemini `{functionCall: {id, name,
/// args}}` — decoded by the message formats. Arguments that are not a JSON object come back as
/// `null` (the tool answers with an error result). Errors: `INVALID_TOOL_CALL` (no id or name; a
/// Gemini call without its id).
pub fn tool_call_of(v: &Value) -> Result<ToolCall> {
    use crate::error::{Error, ErrorCode};
    let invalid = |what: &str| {
        Error::new(
            ErrorCode::InvalidToolCall,
            format!("a tool call needs {what}; give {{id, name, args}} or a provider's tool call"),
        )
    };
    let kind = v.get("type").and_then(Value::as_str);
    let message = if v.get("function").is_some() {
        serde_json::json!({ "role": "assistant", "content": null, "tool_calls": [v] })
    } else if matches!(kind, Some("tool_use" | "tool-call")) || v.get("toolCallId").is_some() {
        serde_json::json!({ "role": "assistant", "content": [v] })
    } else if v.get("functionCall").is_some() {
        serde_json::json!({ "role": "model", "parts": [v] })
    } else {
        serde_json::json!({ "type": "ai", "content": "", "tool_calls": [v] })
    };
    if v.get("functionCall").is_some_and(|f| f.get("id").is_none()) {
        // The store names Gemini calls without ids `gemini-<message>-<call>`: only the caller
        // knows which one this is.
        return Err(invalid(
            "its id: pass the id the stored message gives this Gemini call (`gemini-<message>-<call>`)",
        )
        .field("id"));
    }
    let decoded =
        crate::message::formats::decode_messages(&[message], None).map_err(|_| invalid("an id and a name"))?;
    let m = decoded.messages.into_iter().next().ok_or_else(|| invalid("an id and a name"))?;
    // Arguments that are not a JSON object are the model's mistake: the call is answered with an
    // error result (its `args` are null), not refused.
    let call = match (m.tool_calls.into_iter().next(), m.invalid_tool_calls.into_iter().next()) {
        (Some(c), _) => c,
        (None, Some(c)) => ToolCall {
            id: c.id,
            name: c.name,
            args: Value::Null,
            raw_args: None,
            extra: Default::default(),
            approval: None,
        },
        (None, None) => return Err(invalid("an id and a name")),
    };
    if call.id.trim().is_empty() || call.name.is_empty() {
        return Err(invalid("a non-empty id and name").field("id"));
    }
    if !call.args.is_object() {
        return Ok(ToolCall { args: Value::Null, ..call });
    }
    Ok(call)
}

/// Threads on the subagents' servers whose metadata names this parent
/// (`{parent_thread_id}`, searched per server) but which the ledger does not track: launches
/// whose record was lost (the store refused it, or the process stopped between the server call
/// and the write). Errors: `NETWORK_ERROR`, `SERVER_ERROR`.
pub async fn untracked<T: Transport>(ctx: &Context, transport: &T) -> Result<Vec<String>> {
    let client = Client::new(&ctx.config, transport);
    let mut asked = Vec::new();
    let mut out = Vec::new();
    for agent in &ctx.config.agents {
        let endpoint = ctx.config.endpoint(agent);
        if asked.contains(&endpoint) {
            continue;
        }
        asked.push(endpoint);
        for id in client.search_threads(agent, serde_json::json!({ "parent_thread_id": ctx.parent_thread_id })).await? {
            if ctx.ledger.get(&id).is_none() && !out.contains(&id) {
                out.push(id);
            }
        }
    }
    Ok(out)
}
