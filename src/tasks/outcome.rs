//! What a task operation reads ([`Context`], a snapshot of the store) and what it yields
//! ([`Outcome`]: the tool result and the task records before and after), turned into one Command
//! against the ledger as it is when the Command is applied ([`Outcome::command`]), so a slow
//! operation never overwrites a newer state. Also the request bodies the operations share.

use super::ledger::{iso_time, Task};
use super::protocol::EffectRecord;
use super::spec::{SubagentSpec, TasksConfig, UpdateStrategy, AUTHOR};
use crate::error::{Error, Result};
use crate::json::{arr, obj, val};
use crate::lifecycle::TaskStatus;
use crate::message::{ToolCall, ToolStatus};
use crate::state::channel;
use crate::state::Command;
use serde_json::{Map, Value};

/// What a task operation reads: the configuration, snapshots of the ledger and the notification
/// queue, the store's clock, and for a tool call the other calls of its assistant turn and (for
/// a `fork` start) the parent's model view.
#[derive(Debug, Clone)]
pub struct Context {
    /// The validated configuration.
    pub config: TasksConfig,
    /// `async_tasks` as it was when the operation began.
    pub ledger: Value,
    /// `notifications` as it was when the operation began.
    pub notifications: Value,
    /// The store's clock, ms since the epoch.
    pub now_ms: u64,
    /// Sent as thread metadata `parent_thread_id`.
    pub parent_thread_id: String,
    /// The tool calls of the assistant message that made this call, in order (empty if unknown).
    pub turn: Vec<ToolCall>,
    /// The parent's model view (LangChain dicts) without the launching turn, for `fork` starts.
    pub fork: Vec<Value>,
    /// The store's private string values `(channel, value)`: never sent to a server.
    pub private: Vec<(String, String)>,
    /// Why the fork view could not be made (e.g. `PRIVATE_LEAK`): a fork start then fails.
    pub fork_error: Option<Error>,
}

impl Context {
    pub(super) fn now(&self) -> String {
        iso_time(self.now_ms)
    }

    /// A request body, refused with `PRIVATE_LEAK` (naming the channel) when it carries a
    /// private value: what leaves for a server is checked like the model view.
    pub(super) fn outgoing(&self, body: Value) -> Result<Value> {
        crate::state::privacy::check_leaks(std::slice::from_ref(&body), &self.private).map_err(|e| {
            let channel = e.channel.clone().unwrap_or_default();
            Error { message: format!("the request to the subagent's server would carry a value of private channel '{channel}'; leave it out of the task"), ..e }
        })?;
        Ok(body)
    }

    pub(super) fn task(&self, id: &str) -> Option<Task> {
        self.ledger.get(id).and_then(Task::read)
    }
}

/// What one task tool call did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The tool call answered.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The tool result's text.
    pub content: String,
    /// `error` when the call failed (bad arguments, unknown task, server failure).
    pub status: ToolStatus,
    /// Task records (before, after) the call changed.
    pub tasks: Vec<(Option<Task>, Task)>,
    /// Notifications to queue (poll only).
    pub notifications: Map<String, Value>,
    /// What the tool result showed the model: `(task id, status, run id)`. Queued notifications
    /// of exactly that are dropped (the model already knows); newer ones stay.
    pub seen: Vec<(String, TaskStatus, String)>,
    /// The server calls made.
    pub effects: Vec<EffectRecord>,
    /// The typed failure behind an `error` result, if any.
    pub error: Option<Error>,
}

impl Outcome {
    pub(super) fn new(call: &ToolCall) -> Outcome {
        Outcome {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            content: String::new(),
            status: ToolStatus::Success,
            tasks: Vec::new(),
            notifications: Map::new(),
            seen: Vec::new(),
            effects: Vec::new(),
            error: None,
        }
    }

    pub(super) fn fail(mut self, text: String, error: Error) -> Outcome {
        self.content = text;
        self.status = ToolStatus::Error;
        self.error = Some(error);
        self
    }

    /// Records a task the call changed and whose status and run its result shows the model.
    pub(super) fn show(&mut self, before: Task, task: Task) {
        self.seen.push((task.task_id.clone(), task.status, task.run_id.clone()));
        self.tasks.push((Some(before), task));
    }

    pub(super) fn text(mut self, text: impl Into<String>) -> Outcome {
        self.content = text.into();
        self
    }

    /// Whether a task's observation is stale: its record changed status or run since the
    /// snapshot the operation read (another call or poll got there first).
    fn stale(before: Option<&Task>, ledger: &Value) -> bool {
        let Some(before) = before else { return false };
        ledger
            .get(&before.task_id)
            .and_then(Task::read)
            .is_some_and(|now| now.status != before.status || now.run_id != before.run_id)
    }

    /// The ledger patch against `ledger` as it is now: each task's changed fields. An
    /// observation made stale by a change since the snapshot (a follow-up started a new run, a
    /// cancel, another poll) writes nothing, so a slow call never reopens a finished task or
    /// pins a new run's task to an old run's status.
    pub fn ledger_patch(&self, ledger: &Value) -> Map<String, Value> {
        let mut out = Map::new();
        for (before, after) in &self.tasks {
            let mut patch = after.patch(before.as_ref());
            if Self::stale(before.as_ref(), ledger) {
                patch.clear();
            }
            if !patch.is_empty() {
                out.insert(after.task_id.clone(), Value::Object(patch));
            }
        }
        out
    }

    /// The Command to apply (author [`AUTHOR`]): for a tool call, the tool result (a LangChain
    /// `ToolMessage` dict) plus the ledger patch, and the queued notifications of the tasks it
    /// showed the model marked dropped; for a poll, the ledger patch and the new notifications
    /// of tasks whose observation is not stale. `None` when nothing changed. The store fills the
    /// tool result's correlation and causation (its call).
    pub fn command(&self, ledger: &Value, queue: &Value) -> Option<Command> {
        let mut update = Map::new();
        if !self.call_id.is_empty() {
            // A follow-up sent while the task finished: its run cannot be tracked on a finished
            // task, so the model is told instead of "Updated".
            let lost = self
                .tasks
                .iter()
                .find(|(b, a)| Self::stale(b.as_ref(), ledger) && b.as_ref().is_some_and(|b| b.run_id != a.run_id));
            let (content, status) = match lost.and_then(|(_, a)| ledger.get(&a.task_id).and_then(Task::read).map(|now| (a, now))) {
                Some((a, now)) => (
                    format!(
                        "Not tracked: task {} finished with status {} while this follow-up was being sent, so its new run {} is not followed. Check the task's result; start a new task if more work is needed.",
                        a.task_id, now.status.as_str(), a.run_id
                    ),
                    ToolStatus::Error,
                ),
                None => (self.content.clone(), self.status),
            };
            update.insert(
                channel::MESSAGES.into(),
                arr![obj! {
                    "type": "tool", "content": content, "tool_call_id": self.call_id, "name": self.tool,
                    "status": if status == ToolStatus::Error { "error" } else { "success" },
                }],
            );
        }
        let patch = self.ledger_patch(ledger);
        if !patch.is_empty() {
            update.insert(channel::ASYNC_TASKS.into(), Value::Object(patch));
        }
        let stale: Vec<&str> = self
            .tasks
            .iter()
            .filter(|(b, _)| Self::stale(b.as_ref(), ledger))
            .map(|(_, a)| a.task_id.as_str())
            .collect();
        let mut notes: Map<String, Value> = self
            .notifications
            .iter()
            .filter(|(_, n)| !stale.contains(&n["task_id"].as_str().unwrap_or_default()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let shown = |n: &Value| {
            self.seen.iter().any(|(task, status, run)| {
                !stale.contains(&task.as_str())
                    && n["task_id"].as_str() == Some(task)
                    && n["status"].as_str() == Some(status.as_str())
                    && n["run_id"].as_str() == Some(run)
            })
        };
        for (key, _) in super::notify::queued(queue).into_iter().filter(|(_, n)| shown(n)) {
            notes.insert(key, obj! { "dropped": format!("seen through {}", self.tool) });
        }
        if !notes.is_empty() {
            update.insert(channel::NOTIFICATIONS.into(), Value::Object(notes));
        }
        if update.is_empty() {
            return None;
        }
        Some(Command {
            author: AUTHOR.to_string(),
            expected_version: None,
            update,
            correlation_id: None,
            causation_id: None,
        })
    }

    /// One outcome per task (with its notifications), so a poll whose combined Command the
    /// store refuses can still record every task the store accepts.
    pub fn per_task(&self) -> Vec<Outcome> {
        self.tasks
            .iter()
            .map(|(before, after)| {
                let mut one = Outcome::new(&ToolCall {
                    id: String::new(),
                    name: self.tool.clone(),
                    args: Value::Null,
                    raw_args: None,
                    extra: Map::new(),
                    approval: None,
                });
                one.tasks.push((before.clone(), after.clone()));
                one.notifications = self
                    .notifications
                    .iter()
                    .filter(|(_, n)| n["task_id"].as_str() == Some(after.task_id.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                one
            })
            .collect()
    }
}

/// The body of a run on `agent`'s graph with `messages` as input.
pub(super) fn run_body(
    agent: &SubagentSpec,
    messages: Vec<Value>,
    strategy: Option<UpdateStrategy>,
    ctx: &Context,
) -> Value {
    let mut body = obj! {
        "assistant_id": agent.graph_id,
        "input": obj!{ "messages": messages },
        "metadata": obj!{ "parent_thread_id": ctx.parent_thread_id, "subagent_name": agent.name },
    };
    if let Some(s) = strategy {
        body["multitask_strategy"] = val(&s.as_str());
    }
    if let Some(w) = &agent.webhook {
        body["webhook"] = val(&w);
    }
    body
}

/// A new run's task status: the server's own (`pending` until a worker picks it up).
pub(super) fn launched(run: &super::protocol::Run) -> TaskStatus {
    if run.status == "pending" {
        TaskStatus::Pending
    } else {
        TaskStatus::Running
    }
}

pub(super) fn user(text: &str) -> Value {
    obj! { "role": "user", "content": text }
}
