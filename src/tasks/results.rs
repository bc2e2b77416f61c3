//! What the two async operations answer — `tasks.handle(call)` a [`TaskResult`], `tasks.poll()`
//! a [`PollResult`] — and how a finished operation is recorded through the caller's gate (the
//! store's apply wrapped with its write-ahead sink, clock and audit), including the poll's
//! fallback to one command per task when the store refuses the combined one.

use super::outcome::Outcome;
use super::poll::PollError;
use super::protocol::EffectRecord;
use crate::error::{Error, ErrorCode, Result};
use crate::message::ToolStatus;
use crate::state::{channel, Applied, Command};
use serde::Serialize;
use serde_json::Value;

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// The typed failure behind an `"error"` tool result: `{code, message, field?}` (the message
/// without its code prefix).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct Failure {
    /// The error's code.
    pub code: ErrorCode,
    /// What went wrong.
    pub message: String,
    /// The offending field, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl From<&Error> for Failure {
    fn from(e: &Error) -> Failure {
        Failure { code: e.code, message: e.message.clone(), field: e.field.clone() }
    }
}

/// What `tasks.handle(toolCall)` did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct TaskResult {
    /// The tool result's text (what the model reads).
    pub content: String,
    /// `"error"` for bad arguments, an unknown task or a server failure.
    pub status: ToolStatus,
    /// The Command: the tool result message plus the ledger patch.
    pub command: Command,
    /// The store's version after applying it (absent with `apply: false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Ids of the messages written (the tool result; absent with `apply: false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<String>>,
    /// The server calls made, in order.
    pub effects: Vec<EffectRecord>,
    /// The typed failure behind an `"error"` result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Failure>,
}

/// A task a poll could not refresh or record; its record is unchanged.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct PollFailure {
    /// The task.
    pub task_id: String,
    /// Why: `NETWORK_ERROR`, `SERVER_ERROR`, or the store's refusal of its record.
    pub code: ErrorCode,
    /// What went wrong.
    pub message: String,
}

/// What `tasks.poll()` did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct PollResult {
    /// The store's version after the poll (unchanged when nothing changed).
    pub version: u64,
    /// Tasks whose status, run or retry schedule changed.
    pub changed: Vec<String>,
    /// Notifications queued (ids; see `store.notifications()`).
    pub notifications: Vec<String>,
    /// Tasks the server could not tell about, or whose record the store refused.
    pub errors: Vec<PollFailure>,
    /// The server calls made, in order.
    pub effects: Vec<EffectRecord>,
}

/// The caller's gate: applies a command to the store (with its write-ahead sink, clock and
/// audit), or refuses it.
pub type Gate<'a> = dyn FnMut(&Command) -> Result<Applied> + 'a;

/// The keys a command writes in `channel` (task ids, notification ids).
fn keys_of(command: &Command, name: &str) -> Vec<String> {
    command.update.get(name).and_then(Value::as_object).into_iter().flat_map(|m| m.keys().cloned()).collect()
}

/// The result of a task tool call whose operation finished with `out`: its Command against the
/// ledger and notification queue as they are now, applied through `apply` when given.
///
/// Errors: the store's refusal (from `apply`).
pub fn finish_call(out: Outcome, ledger: &Value, queue: &Value, apply: Option<&mut Gate>) -> Result<TaskResult> {
    // A tool call always answers its call, so there is always a command.
    let command = out
        .command(ledger, queue)
        .ok_or_else(|| Error::new(ErrorCode::InvalidOption, "internal: a tool call produced no command"))?;
    let applied = match apply {
        Some(apply) => Some(apply(&command)?),
        None => None,
    };
    Ok(TaskResult {
        content: out.content,
        status: out.status,
        version: applied.as_ref().map(|a| a.version),
        ids: applied.map(|a| a.ids),
        command,
        effects: out.effects,
        error: out.error.as_ref().map(Failure::from),
    })
}

/// Records a poll's outcome: one Command for every task, through `apply`; when the store refuses
/// it (one task's record may be refused, e.g. a subagent's answer too deep to store), one Command
/// per task, each refusal listed in `errors` with the task keeping its record. `version` is the
/// store's version before; the result's is the version after the last command applied.
pub fn record_poll(
    out: &Outcome,
    failed: Vec<PollError>,
    ledger: &Value,
    queue: &Value,
    version: u64,
    apply: &mut Gate,
) -> PollResult {
    let mut result = PollResult {
        version,
        changed: Vec::new(),
        notifications: Vec::new(),
        errors: failed
            .into_iter()
            .map(|e| PollFailure { task_id: e.task_id, code: e.error.code, message: e.error.message })
            .collect(),
        effects: out.effects.clone(),
    };
    let mut record = |part: &Outcome, result: &mut PollResult| -> Result<()> {
        if let Some(command) = part.command(ledger, queue) {
            result.version = apply(&command)?.version;
            result.changed.extend(keys_of(&command, channel::ASYNC_TASKS));
            result.notifications.extend(keys_of(&command, channel::NOTIFICATIONS));
        }
        Ok(())
    };
    if record(out, &mut result).is_err() {
        for part in out.per_task() {
            if let Err(e) = record(&part, &mut result) {
                let task_id = part.tasks.first().map(|(_, t)| t.task_id.clone()).unwrap_or_default();
                result.errors.push(PollFailure { task_id, code: e.code, message: e.message });
            }
        }
    }
    result
}
