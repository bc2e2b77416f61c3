//! The five task tools (start / check / update / cancel / list) as state transitions over a
//! ledger snapshot (DESIGN §7): each tool call yields an [`Outcome`].
//!
//! Semantics follow deepagents Python 0.7.32 `async_subagents.py` (research/peer-semantics.md §4),
//! with its texts for the tool results; the differences are listed in docs/tasks.md.

use super::ledger::{tasks, Task};
use super::outcome::{launched, run_body, user, Context, Outcome};
use super::poll::refresh;
use super::protocol::{Client, Transport};
use super::spec::{Mode, SubagentSpec, UpdateStrategy};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{arr, obj, val};
use crate::lifecycle::TaskStatus;
use crate::message::ToolCall;
use serde_json::Value;

/// The tool names, in deepagents' order.
pub const TOOL_NAMES: [&str; 5] =
    ["start_async_task", "check_async_task", "update_async_task", "cancel_async_task", "list_async_tasks"];

fn bad_args(tool: &str, what: &str) -> (String, Error) {
    let e = Error::new(ErrorCode::InvalidOption, format!("{tool}: {what}")).field("args");
    (format!("Invalid arguments for `{tool}`: {what}."), e)
}

fn str_arg<'a>(call: &'a ToolCall, key: &str) -> Option<&'a str> {
    call.args.get(key).and_then(Value::as_str)
}

/// `INVALID_OPTION` for a tool name that is not one of [`TOOL_NAMES`].
pub fn not_a_task_tool(name: &str) -> Error {
    Error::new(
        ErrorCode::InvalidOption,
        format!("'{name}' is not an async task tool; expected one of: {}", TOOL_NAMES.join(", ")),
    )
    .field("name")
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
        other => return Err(not_a_task_tool(other)),
    };
    out.effects = client.effects.into_inner();
    Ok(out)
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
        let e = Error::new(ErrorCode::InvalidOption, format!("unknown async subagent type '{kind}'"))
            .field("subagent_type");
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
        let thread_id = client
            .create_thread(agent, obj! { "parent_thread_id": ctx.parent_thread_id, "subagent_name": agent.name })
            .await?;
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
fn tracked(
    ctx: &Context,
    call: &ToolCall,
    out: Outcome,
) -> std::result::Result<(Task, SubagentSpec, Outcome), Outcome> {
    let Some(id) = str_arg(call, "task_id").map(str::trim) else {
        let (text, e) = bad_args(&call.name, "give `task_id` as a string");
        return Err(out.fail(text, e));
    };
    let Some(task) = ctx.task(id) else {
        let e = Error::new(ErrorCode::UnknownTask, format!("no tracked task '{id}'")).field("task_id");
        return Err(out.fail(format!("No tracked task found for task_id: '{id}'"), e));
    };
    let Some(agent) = ctx.config.agent(&task.agent_name).cloned() else {
        let e = Error::new(
            ErrorCode::InvalidOption,
            format!("task '{id}' ran on subagent '{}', which is no longer configured", task.agent_name),
        )
        .field("agents");
        return Err(out.fail(
            format!("Task {id} belongs to async subagent '{}', which is no longer configured.", task.agent_name),
            e,
        ));
    };
    Ok((task, agent, out))
}

async fn check<T: Transport>(ctx: &Context, client: &Client<'_, T>, call: &ToolCall, out: Outcome) -> Outcome {
    let (before, agent, mut out) = match tracked(ctx, call, out) {
        Ok(x) => x,
        Err(out) => return out,
    };
    let mut task = before.clone();
    let seen = match refresh(ctx, client, &agent, &mut task, false).await {
        Ok(seen) => seen,
        Err(e) => return out.fail(format!("Failed to get run status: {}", e.message), e),
    };
    let mut body = obj! { "status": task.status.as_str(), "thread_id": task.thread_id };
    match task.status {
        TaskStatus::Success => body["result"] = val(&seen.result.unwrap_or_default()),
        TaskStatus::Error | TaskStatus::Timeout => {
            body["error"] = val(&(task.error.clone().unwrap_or_else(|| super::protocol::GENERIC_ERROR.into())))
        }
        TaskStatus::Waiting => {
            body["interrupts"] = seen.interrupts.unwrap_or_else(|| arr![]);
            body["note"] = Value::from("The subagent is waiting for a human, who answers it on the subagent's own thread. You cannot answer or approve it; keep working.");
        }
        TaskStatus::Pending if task.retry_at_ms.is_some() => {
            body["note"] = val(&(format!(
                "The last run failed ({}); run {} of {} is scheduled.",
                task.error.clone().unwrap_or_default(),
                task.attempts + 1,
                agent.retry.max_attempts
            )));
        }
        TaskStatus::Pending => body["note"] = Value::from("The task is queued and has not started yet."),
        TaskStatus::Running | TaskStatus::Cancelled => {}
    }
    out.content = super::pyjson::dumps(&body);
    out.show(before, task);
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
        let e = Error::new(
            ErrorCode::InvalidTransition,
            format!("task '{id}' already finished ({})", before.status.as_str()),
        )
        .field("status");
        return out.fail(format!("Not sent: task {id} already finished with status {}. Start a new task with `start_async_task` to continue.", before.status.as_str()), e);
    }
    if agent.update_strategy == UpdateStrategy::Enqueue {
        let earlier = ctx.turn.iter().take_while(|c| c.id != call.id).any(|c| {
            c.name == "update_async_task"
                && c.args.get("task_id").and_then(Value::as_str).map(str::trim) == Some(id.as_str())
        });
        if earlier {
            let e = Error::new(
                ErrorCode::ConcurrentWrite,
                format!("a second queued follow-up for task '{id}' in one turn"),
            )
            .field("task_id");
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
    let queued = agent.update_strategy == UpdateStrategy::Enqueue
        && matches!(before.status, TaskStatus::Running | TaskStatus::Pending)
        && before.retry_at_ms.is_none();
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
    out.show(before, task);
    out
}

async fn cancel<T: Transport>(ctx: &Context, client: &Client<'_, T>, call: &ToolCall, out: Outcome) -> Outcome {
    let (before, agent, out) = match tracked(ctx, call, out) {
        Ok(x) => x,
        Err(out) => return out,
    };
    let id = before.task_id.clone();
    if before.status.is_terminal() {
        return out
            .text(format!("Task {id} already finished with status {}; nothing to cancel.", before.status.as_str()));
    }
    let mut task = before.clone();
    // A task waiting for a human, or waiting for a scheduled retry, has no run to stop.
    if before.status != TaskStatus::Waiting && before.retry_at_ms.is_none() {
        if let Err(e) = client.cancel_run(&agent, &task.thread_id, &task.run_id).await {
            return out.fail(format!("Failed to cancel run: {}", e.message), e);
        }
        // The answer to a cancel (2xx, or 404 for a run already gone) says nothing of how the
        // run ended: a terminal status comes from a refresh, never from that answer alone.
        match refresh(ctx, client, &agent, &mut task, false).await {
            Ok(_) if task.status.is_terminal() && task.status != TaskStatus::Cancelled => {
                let mut out = out;
                out.content = format!(
                    "Task {id} had already finished with status {}; nothing was cancelled.",
                    task.status.as_str()
                );
                out.show(before, task);
                return out;
            }
            Ok(_) => {}
            Err(e) => return out.fail(format!("Failed to cancel run: {}", e.message), e),
        }
    }
    cancel_rest(ctx, client, &agent, before, task, out).await
}

/// Cancels the queued runs a follow-up superseded (newest first; best effort) and marks the task
/// cancelled.
async fn cancel_rest<T: Transport>(
    ctx: &Context,
    client: &Client<'_, T>,
    agent: &SubagentSpec,
    before: Task,
    mut task: Task,
    out: Outcome,
) -> Outcome {
    for run in task.superseded_run_ids.iter().rev() {
        let _ = client.cancel_run(agent, &task.thread_id, run).await;
    }
    task.retry_at_ms = None;
    let run_id = task.run_id.clone();
    task.observe(TaskStatus::Cancelled, &run_id, &ctx.now());
    let mut out = out.text(format!("Cancelled async subagent task: {}", task.task_id));
    out.show(before, task);
    out
}

/// The `status_filter` values `list_async_tasks` accepts.
pub const STATUS_FILTERS: [&str; 8] =
    ["running", "pending", "waiting", "success", "error", "cancelled", "timeout", "all"];

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
                if refresh(ctx, client, agent, &mut task, false).await.is_err() {
                    task = before.clone();
                }
            }
        }
        lines.push(format!(
            "- task_id: {}  agent: {}  status: {}",
            task.task_id,
            task.agent_name,
            task.status.as_str()
        ));
        out.seen.push((task.task_id.clone(), task.status, task.run_id.clone()));
        if task != before {
            out.tasks.push((Some(before), task));
        }
    }
    out.content = format!("{} tracked task(s):\n{}", lines.len(), lines.join("\n"));
    out
}
