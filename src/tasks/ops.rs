//! The five task tools (start / check / update / cancel / list) and the background poll, as
//! state transitions over a ledger snapshot (DESIGN §7). Each tool call yields an [`Outcome`]:
//! the tool result text and the task records before and after, turned into a Command against
//! the ledger as it is when the Command is applied ([`Outcome::command`]).
//!
//! Semantics follow deepagents Python 0.7.32 `async_subagents.py` (research/peer-semantics.md §4),
//! with its texts for the tool results; the differences are listed in the README.

use super::ledger::{iso_time, tasks, Task};
use super::protocol::{observe, Client, EffectRecord, Observation, Transport};
use super::spec::{Mode, SubagentSpec, TasksConfig, UpdateStrategy, AUTHOR};
use crate::error::{Error, ErrorCode, Result};
use crate::lifecycle::TaskStatus;
use crate::message::{ToolCall, ToolStatus};
use crate::state::Command;
use serde_json::{json, Map, Value};

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
    fn now(&self) -> String {
        iso_time(self.now_ms)
    }

    /// A request body, refused with `PRIVATE_LEAK` (naming the channel) when it carries a
    /// private value: what leaves for a server is checked like the model view.
    fn outgoing(&self, body: Value) -> Result<Value> {
        crate::project::check_leaks(std::slice::from_ref(&body), &self.private)?;
        Ok(body)
    }

    fn task(&self, id: &str) -> Option<Task> {
        self.ledger.get(id).and_then(Task::read)
    }
}

/// The tool names, in deepagents' order.
pub const TOOL_NAMES: [&str; 5] = ["start_async_task", "check_async_task", "update_async_task", "cancel_async_task", "list_async_tasks"];

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
    /// Tasks whose current status the tool result showed the model: their queued notifications
    /// are dropped (the model already knows).
    pub seen: Vec<String>,
    /// The server calls made.
    pub effects: Vec<EffectRecord>,
    /// The typed failure behind an `error` result, if any.
    pub error: Option<Error>,
}

impl Outcome {
    fn new(call: &ToolCall) -> Outcome {
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

    fn fail(mut self, text: String, error: Error) -> Outcome {
        self.content = text;
        self.status = ToolStatus::Error;
        self.error = Some(error);
        self
    }

    fn text(mut self, text: impl Into<String>) -> Outcome {
        self.content = text.into();
        self
    }

    /// Whether a task's observation is stale: its record changed status or run since the
    /// snapshot the operation read (another call or poll got there first).
    fn stale(before: Option<&Task>, ledger: &Value) -> bool {
        let Some(before) = before else { return false };
        ledger.get(&before.task_id).and_then(Task::read).is_some_and(|now| now.status != before.status || now.run_id != before.run_id)
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
            update.insert(
                "messages".into(),
                json!([{
                    "type": "tool", "content": self.content, "tool_call_id": self.call_id, "name": self.tool,
                    "status": if self.status == ToolStatus::Error { "error" } else { "success" },
                }]),
            );
        }
        let patch = self.ledger_patch(ledger);
        if !patch.is_empty() {
            update.insert("async_tasks".into(), Value::Object(patch));
        }
        let stale: Vec<&str> = self.tasks.iter().filter(|(b, _)| Self::stale(b.as_ref(), ledger)).map(|(_, a)| a.task_id.as_str()).collect();
        let mut notes: Map<String, Value> =
            self.notifications.iter().filter(|(_, n)| !stale.contains(&n["task_id"].as_str().unwrap_or_default())).map(|(k, v)| (k.clone(), v.clone())).collect();
        for n in super::notify::queued(queue).into_iter().filter(|n| self.seen.iter().any(|t| n["task_id"].as_str() == Some(t))) {
            if let Some(id) = n["id"].as_str() {
                notes.insert(id.to_string(), json!({ "dropped": format!("seen through {}", self.tool) }));
            }
        }
        if !notes.is_empty() {
            update.insert("notifications".into(), Value::Object(notes));
        }
        if update.is_empty() {
            return None;
        }
        Some(Command { author: AUTHOR.to_string(), expected_version: None, update, correlation_id: None, causation_id: None })
    }

    /// One outcome per task (with its notifications), so a poll whose combined Command the
    /// store refuses can still record every task the store accepts.
    pub fn per_task(&self) -> Vec<Outcome> {
        self.tasks
            .iter()
            .map(|(before, after)| {
                let mut one = Outcome::new(&ToolCall { id: String::new(), name: self.tool.clone(), args: Value::Null, raw_args: None, extra: Map::new() });
                one.tasks.push((before.clone(), after.clone()));
                one.notifications = self.notifications.iter().filter(|(_, n)| n["task_id"].as_str() == Some(after.task_id.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
                one
            })
            .collect()
    }
}

fn bad_args(tool: &str, what: &str) -> (String, Error) {
    let e = Error::new(ErrorCode::InvalidOption, format!("{tool}: {what}")).field("args");
    (format!("Invalid arguments for `{tool}`: {what}."), e)
}

fn str_arg<'a>(call: &'a ToolCall, key: &str) -> Option<&'a str> {
    call.args.get(key).and_then(Value::as_str)
}

/// Runs one task tool call. `Err` only when `call.name` is not one of [`TOOL_NAMES`]; every
/// other failure is an `error` tool result the model can read, with the ledger unchanged.
pub async fn call<T: Transport>(ctx: &Context, transport: &T, call: &ToolCall) -> Result<Outcome> {
    let client = Client::new(&ctx.config, transport);
    let out = Outcome::new(call);
    let mut out = match call.name.as_str() {
        "start_async_task" => start(ctx, &client, call, out).await,
        "check_async_task" => check(ctx, &client, call, out).await,
        "update_async_task" => update(ctx, &client, call, out).await,
        "cancel_async_task" => cancel(ctx, &client, call, out).await,
        "list_async_tasks" => list(ctx, &client, call, out).await,
        other => {
            return Err(Error::new(ErrorCode::InvalidOption, format!("'{other}' is not an async task tool; expected one of: {}", TOOL_NAMES.join(", "))).field("name"));
        }
    };
    out.effects = client.effects.into_inner();
    Ok(out)
}

/// The body of a run on `agent`'s graph with `messages` as input.
fn run_body(agent: &SubagentSpec, messages: Vec<Value>, strategy: Option<UpdateStrategy>, ctx: &Context) -> Value {
    let mut body = json!({
        "assistant_id": agent.graph_id,
        "input": { "messages": messages },
        "metadata": { "parent_thread_id": ctx.parent_thread_id, "subagent_name": agent.name },
    });
    if let Some(s) = strategy {
        body["multitask_strategy"] = json!(s.as_str());
    }
    if let Some(w) = &agent.webhook {
        body["webhook"] = json!(w);
    }
    body
}

/// A new run's task status: the server's own (`pending` until a worker picks it up).
fn launched(run: &super::protocol::Run) -> TaskStatus {
    if run.status == "pending" {
        TaskStatus::Pending
    } else {
        TaskStatus::Running
    }
}

fn user(text: &str) -> Value {
    json!({ "role": "user", "content": text })
}

/// The first line of a forked subagent's task message.
pub const FORK_PREAMBLE: &str = "You now work as a background subagent. The conversation above is the parent agent's, shown for context. Do this task and end with your answer:\n\n";

async fn start<T: Transport>(ctx: &Context, client: &Client<'_, T>, call: &ToolCall, out: Outcome) -> Outcome {
    let (Some(description), Some(kind)) = (str_arg(call, "description"), str_arg(call, "subagent_type")) else {
        let (text, e) = bad_args(&call.name, "give `description` and `subagent_type` as strings");
        return out.fail(text, e);
    };
    let Some(agent) = ctx.config.agent(kind) else {
        let names: Vec<String> = ctx.config.agents.iter().map(|a| format!("`{}`", a.name)).collect();
        let e = Error::new(ErrorCode::InvalidOption, format!("unknown async subagent type '{kind}'")).field("subagent_type");
        return out.fail(format!("Unknown async subagent type `{kind}`. Available types: {}", names.join(", ")), e);
    };
    if let (Mode::Fork, Some(e)) = (agent.mode, &ctx.fork_error) {
        return out.fail(format!("Not sent: {}", e.message), e.clone());
    }
    let messages = match agent.mode {
        Mode::Isolated => vec![user(description)],
        Mode::Fork => ctx.fork.iter().cloned().chain([user(&format!("{FORK_PREAMBLE}{description}"))]).collect(),
    };
    let body = match ctx.outgoing(run_body(agent, messages, None, ctx)) {
        Ok(body) => body,
        Err(e) => return out.fail(format!("Not sent: {}", e.message), e),
    };
    let launch = async {
        let thread_id = client.create_thread(agent, json!({ "parent_thread_id": ctx.parent_thread_id, "subagent_name": agent.name })).await?;
        let run = client.create_run(agent, &thread_id, body).await?;
        Ok::<_, Error>((thread_id, run))
    };
    let (thread_id, run) = match launch.await {
        Ok(x) => x,
        Err(e) => return out.fail(format!("Failed to launch async subagent '{kind}': {}", e.message), e),
    };
    let now = ctx.now();
    let task = Task {
        task_id: thread_id.clone(),
        agent_name: agent.name.clone(),
        thread_id: thread_id.clone(),
        status: launched(&run),
        run_id: run.run_id,
        created_at: now.clone(),
        last_checked_at: now.clone(),
        last_updated_at: now,
        attempts: 1,
        superseded_run_ids: Vec::new(),
        instruction: description.to_string(),
        error: None,
        retry_at_ms: None,
        deadline_ms: agent.timeout_ms.map(|t| ctx.now_ms.saturating_add(t)),
    };
    let mut out = out.text(format!("Launched async subagent. task_id: {thread_id}"));
    out.tasks.push((None, task));
    out
}

/// The task named by the call's `task_id` (trimmed), or the "not tracked" result.
fn tracked(ctx: &Context, call: &ToolCall, out: Outcome) -> std::result::Result<(Task, SubagentSpec, Outcome), Outcome> {
    let Some(id) = str_arg(call, "task_id").map(str::trim) else {
        let (text, e) = bad_args(&call.name, "give `task_id` as a string");
        return Err(out.fail(text, e));
    };
    let Some(task) = ctx.task(id) else {
        let e = Error::new(ErrorCode::UnknownTask, format!("no tracked task '{id}'")).field("task_id");
        return Err(out.fail(format!("No tracked task found for task_id: '{id}'"), e));
    };
    let Some(agent) = ctx.config.agent(&task.agent_name).cloned() else {
        let e = Error::new(ErrorCode::InvalidOption, format!("task '{id}' ran on subagent '{}', which is no longer configured", task.agent_name)).field("agents");
        return Err(out.fail(format!("Task {id} belongs to async subagent '{}', which is no longer configured.", task.agent_name), e));
    };
    Ok((task, agent, out))
}

/// Brings a task up to date: runs a due retry, or observes its run and applies the policy (a
/// run past its deadline is cancelled → `timeout`; an error with attempts left → `pending` with
/// a retry scheduled after the backoff). A scheduled retry not yet due needs no server call.
pub async fn refresh<T: Transport>(ctx: &Context, client: &Client<'_, T>, agent: &SubagentSpec, task: &mut Task) -> Result<Observation> {
    let now = ctx.now();
    if let Some(due) = task.retry_at_ms.filter(|_| task.status == TaskStatus::Pending) {
        if due > ctx.now_ms {
            task.last_checked_at = now;
            return Ok(Observation { status: Some(task.status), run_id: task.run_id.clone(), error: task.error.clone(), ..Observation::default() });
        }
        // A re-run an earlier poll started but could not record is adopted, not started twice.
        let adopted = client.newest_run(agent, &task.thread_id).await?.filter(|r| r.run_id != task.run_id && matches!(r.status.as_str(), "pending" | "running"));
        let run = match adopted {
            Some(run) => run,
            None => client.create_run(agent, &task.thread_id, ctx.outgoing(run_body(agent, vec![user(&task.instruction)], None, ctx))?).await?,
        };
        task.attempts += 1;
        task.retry_at_ms = None;
        task.deadline_ms = agent.timeout_ms.map(|t| ctx.now_ms.saturating_add(t));
        task.observe(launched(&run), &run.run_id, &now);
        return Ok(Observation { status: Some(task.status), run_id: run.run_id, ..Observation::default() });
    }
    let mut seen = observe(client, agent, &task.thread_id, &task.run_id, task.status == TaskStatus::Cancelled).await?;
    let mut status = seen.status.unwrap_or(task.status);
    if matches!(status, TaskStatus::Pending | TaskStatus::Running) && task.deadline_ms.is_some_and(|d| d <= ctx.now_ms) {
        if client.cancel_run(agent, &task.thread_id, &seen.run_id).await? {
            status = TaskStatus::Timeout;
            task.error = Some(format!("The run passed the subagent's timeout ({} ms) and was cancelled.", agent.timeout_ms.unwrap_or_default()));
        } else {
            // It ended between the two calls: report how, not a timeout.
            seen = observe(client, agent, &task.thread_id, &seen.run_id, false).await?;
            status = seen.status.unwrap_or(task.status);
        }
    }
    if status == TaskStatus::Error && !task.status.is_terminal() {
        task.error = seen.error.clone();
        if task.attempts < agent.retry.max_attempts {
            task.retry_at_ms = Some(ctx.now_ms.saturating_add(agent.retry.delay_ms(task.attempts + 1)));
            status = TaskStatus::Pending;
        }
    }
    task.observe(status, &seen.run_id, &now);
    seen.status = Some(task.status);
    Ok(seen)
}

async fn check<T: Transport>(ctx: &Context, client: &Client<'_, T>, call: &ToolCall, out: Outcome) -> Outcome {
    let (before, agent, mut out) = match tracked(ctx, call, out) {
        Ok(x) => x,
        Err(out) => return out,
    };
    let mut task = before.clone();
    let seen = match refresh(ctx, client, &agent, &mut task).await {
        Ok(seen) => seen,
        Err(e) => return out.fail(format!("Failed to get run status: {}", e.message), e),
    };
    let mut body = json!({ "status": task.status.as_str(), "thread_id": task.thread_id });
    match task.status {
        TaskStatus::Success => body["result"] = json!(seen.result.unwrap_or_default()),
        TaskStatus::Error | TaskStatus::Timeout => body["error"] = json!(task.error.clone().unwrap_or_else(|| super::protocol::GENERIC_ERROR.into())),
        TaskStatus::Waiting => {
            body["interrupts"] = seen.interrupts.unwrap_or_else(|| json!([]));
            body["note"] = json!("The subagent is waiting for a human, who answers it on the subagent's own thread. You cannot answer or approve it; keep working.");
        }
        TaskStatus::Pending if task.retry_at_ms.is_some() => {
            body["note"] = json!(format!(
                "The last run failed ({}); run {} of {} is scheduled.",
                task.error.clone().unwrap_or_default(),
                task.attempts + 1,
                agent.retry.max_attempts
            ));
        }
        TaskStatus::Pending => body["note"] = json!("The task is queued and has not started yet."),
        TaskStatus::Running | TaskStatus::Cancelled => {}
    }
    out.content = super::pyjson::dumps(&body);
    out.seen.push(task.task_id.clone());
    out.tasks.push((Some(before), task));
    out
}

async fn update<T: Transport>(ctx: &Context, client: &Client<'_, T>, call: &ToolCall, out: Outcome) -> Outcome {
    let (before, agent, out) = match tracked(ctx, call, out) {
        Ok(x) => x,
        Err(out) => return out,
    };
    let Some(message) = str_arg(call, "message") else {
        let (text, e) = bad_args(&call.name, "give `message` as a string");
        return out.fail(text, e);
    };
    let id = before.task_id.clone();
    if before.status.is_terminal() {
        let e = Error::new(ErrorCode::InvalidTransition, format!("task '{id}' already finished ({})", before.status.as_str())).field("status");
        return out.fail(format!("Not sent: task {id} already finished with status {}. Start a new task with `start_async_task` to continue.", before.status.as_str()), e);
    }
    if agent.update_strategy == UpdateStrategy::Enqueue {
        let earlier = ctx.turn.iter().take_while(|c| c.id != call.id).any(|c| {
            c.name == "update_async_task" && c.args.get("task_id").and_then(Value::as_str).map(str::trim) == Some(id.as_str())
        });
        if earlier {
            let e = Error::new(ErrorCode::ConcurrentWrite, format!("a second queued follow-up for task '{id}' in one turn")).field("task_id");
            return out.fail(format!("Not sent: an earlier `update_async_task` call in this turn already queues a follow-up for task {id}. Send this follow-up in a later turn, or combine the two into one message."), e);
        }
    }
    let body = match ctx.outgoing(run_body(&agent, vec![user(message)], Some(agent.update_strategy), ctx)) {
        Ok(body) => body,
        Err(e) => return out.fail(format!("Not sent: {}", e.message), e),
    };
    let run = match client.create_run(&agent, &before.thread_id, body).await {
        Ok(run) => run,
        Err(e) => return out.fail(format!("Failed to update async subagent: {}", e.message), e),
    };
    let mut task = before.clone();
    let queued = agent.update_strategy == UpdateStrategy::Enqueue && matches!(before.status, TaskStatus::Running | TaskStatus::Pending) && before.retry_at_ms.is_none();
    if queued {
        task.superseded_run_ids.push(before.run_id.clone());
    }
    let status = launched(&run);
    task.attempts = 1;
    task.retry_at_ms = None;
    task.error = None;
    task.instruction = message.to_string();
    task.deadline_ms = agent.timeout_ms.map(|t| ctx.now_ms.saturating_add(t));
    task.observe(status, &run.run_id, &ctx.now());
    let text = if queued {
        format!("Queued follow-up to async subagent without interrupting its current run. task_id: {id}")
    } else if before.status == TaskStatus::Waiting {
        format!("Updated async subagent. task_id: {id}. It was waiting for a human; that request was dropped.")
    } else {
        format!("Updated async subagent. task_id: {id}")
    };
    let mut out = out.text(text);
    out.seen.push(task.task_id.clone());
    out.tasks.push((Some(before), task));
    out
}

async fn cancel<T: Transport>(ctx: &Context, client: &Client<'_, T>, call: &ToolCall, out: Outcome) -> Outcome {
    let (before, agent, out) = match tracked(ctx, call, out) {
        Ok(x) => x,
        Err(out) => return out,
    };
    let id = before.task_id.clone();
    if before.status.is_terminal() {
        return out.text(format!("Task {id} already finished with status {}; nothing to cancel.", before.status.as_str()));
    }
    let mut task = before.clone();
    // A task waiting for a human, or waiting for a scheduled retry, has no run to stop.
    if before.status != TaskStatus::Waiting && before.retry_at_ms.is_none() {
        match client.cancel_run(&agent, &task.thread_id, &task.run_id).await {
            Ok(true) => {}
            Ok(false) => {
                // The run had already ended: report what it really did.
                let mut out = out;
                match refresh(ctx, client, &agent, &mut task).await {
                    Ok(_) if task.status.is_terminal() => {
                        out.content = format!("Task {id} had already finished with status {}; nothing was cancelled.", task.status.as_str());
                        out.seen.push(task.task_id.clone());
                        out.tasks.push((Some(before), task));
                        return out;
                    }
                    Ok(_) => {}
                    Err(e) => return out.fail(format!("Failed to cancel run: {}", e.message), e),
                }
                return cancel_rest(ctx, client, &agent, before, task, out).await;
            }
            Err(e) => return out.fail(format!("Failed to cancel run: {}", e.message), e),
        }
    }
    cancel_rest(ctx, client, &agent, before, task, out).await
}

/// Cancels the queued runs a follow-up superseded (newest first; best effort) and marks the task
/// cancelled.
async fn cancel_rest<T: Transport>(ctx: &Context, client: &Client<'_, T>, agent: &SubagentSpec, before: Task, mut task: Task, out: Outcome) -> Outcome {
    for run in task.superseded_run_ids.iter().rev() {
        let _ = client.cancel_run(agent, &task.thread_id, run).await;
    }
    task.retry_at_ms = None;
    let run_id = task.run_id.clone();
    task.observe(TaskStatus::Cancelled, &run_id, &ctx.now());
    let mut out = out.text(format!("Cancelled async subagent task: {}", task.task_id));
    out.seen.push(task.task_id.clone());
    out.tasks.push((Some(before), task));
    out
}

/// The `status_filter` values `list_async_tasks` accepts.
pub const STATUS_FILTERS: [&str; 8] = ["running", "pending", "waiting", "success", "error", "cancelled", "timeout", "all"];

async fn list<T: Transport>(ctx: &Context, client: &Client<'_, T>, call: &ToolCall, out: Outcome) -> Outcome {
    let filter = match call.args.get("status_filter") {
        None | Some(Value::Null) => "all",
        Some(Value::String(s)) if STATUS_FILTERS.contains(&s.as_str()) => s.as_str(),
        Some(_) => {
            let (text, e) = bad_args(&call.name, &format!("`status_filter` is one of {}", STATUS_FILTERS.join(", ")));
            return out.fail(text, e);
        }
    };
    let all = tasks(&ctx.ledger);
    if all.is_empty() {
        return out.text("No async subagent tasks tracked.");
    }
    let chosen: Vec<Task> = all.into_iter().filter(|t| filter == "all" || t.status.as_str() == filter).collect();
    if chosen.is_empty() {
        return out.text(format!("No async subagent tasks with status {filter}."));
    }
    let mut out = out;
    let mut lines = Vec::new();
    for before in chosen {
        let mut task = before.clone();
        if !task.status.is_terminal() {
            if let Some(agent) = ctx.config.agent(&task.agent_name) {
                // A task the server cannot tell about keeps its cached status (deepagents).
                if refresh(ctx, client, agent, &mut task).await.is_err() {
                    task = before.clone();
                }
            }
        }
        lines.push(format!("- task_id: {}  agent: {}  status: {}", task.task_id, task.agent_name, task.status.as_str()));
        out.seen.push(task.task_id.clone());
        if task != before {
            out.tasks.push((Some(before), task));
        }
    }
    out.content = format!("{} tracked task(s):\n{}", lines.len(), lines.join("\n"));
    out
}

/// What a poll found, per task that failed to refresh.
#[derive(Debug, Clone)]
pub struct PollError {
    /// The task.
    pub task_id: String,
    /// Why (`NETWORK_ERROR`, `SERVER_ERROR`).
    pub error: Error,
}

/// Refreshes every unfinished task (deepagents `_apull`): runs due retries, cancels runs past
/// their deadline, records status changes, and queues a notification for each change into
/// success, error, timeout, cancelled or waiting of a subagent with `notify_parent`. A task the
/// server cannot tell about is skipped (listed in the errors) and keeps its record. Only tasks
/// whose status, run or retry schedule changed are written.
pub async fn poll<T: Transport>(ctx: &Context, transport: &T) -> (Outcome, Vec<PollError>) {
    let client = Client::new(&ctx.config, transport);
    let mut out = Outcome::new(&ToolCall { id: String::new(), name: String::new(), args: Value::Null, raw_args: None, extra: Map::new() });
    let mut errors = Vec::new();
    for before in tasks(&ctx.ledger).into_iter().filter(|t| !t.status.is_terminal()) {
        let Some(agent) = ctx.config.agent(&before.agent_name) else { continue };
        let mut task = before.clone();
        match refresh(ctx, &client, agent, &mut task).await {
            Ok(seen) => {
                let changed = task.status != before.status || task.run_id != before.run_id || task.retry_at_ms != before.retry_at_ms;
                if !changed {
                    continue;
                }
                if task.status != before.status && task.status.notifies() && agent.notify_parent {
                    let id = format!("{}:{}:{}", task.task_id, task.run_id, task.status.as_str());
                    if ctx.notifications.get(&id).is_none() {
                        let mut n = json!({
                            "id": id, "task_id": task.task_id, "agent_name": task.agent_name, "status": task.status.as_str(),
                            "run_id": task.run_id, "created_at": ctx.now(),
                        });
                        match task.status {
                            TaskStatus::Success => {
                                let result = seen.result.unwrap_or_default();
                                let clipped: String = result.chars().take(super::notify::MAX_RESULT_CHARS).collect();
                                if clipped.len() < result.len() {
                                    n["truncated"] = json!(true);
                                }
                                n["result"] = json!(clipped);
                            }
                            TaskStatus::Error | TaskStatus::Timeout => n["error"] = json!(task.error.clone().unwrap_or_else(|| "The subagent failed.".into())),
                            TaskStatus::Waiting => n["interrupts"] = seen.interrupts.unwrap_or_else(|| json!([])),
                            _ => {}
                        }
                        out.notifications.insert(id, n);
                    }
                }
                out.tasks.push((Some(before), task));
            }
            Err(error) => errors.push(PollError { task_id: before.task_id.clone(), error }),
        }
    }
    out.effects = client.effects.into_inner();
    (out, errors)
}
