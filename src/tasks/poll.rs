//! Keeping tasks up to date: [`refresh`] (one task: a due retry, or an observation of its run
//! with the retry and timeout policy, used by the tools too) and [`poll`] (every unfinished
//! task, queueing notifications; deepagents' `_apull`).

use super::ledger::{tasks, Task};
use super::outcome::{launched, run_body, user, Context, Outcome};
use super::protocol::{observe, Client, Observation, Transport};
use super::spec::SubagentSpec;
use crate::error::{Error, ErrorCode, Result};
use crate::json::{arr, obj, val};
use crate::lifecycle::TaskStatus;
use crate::message::ToolCall;
use serde_json::{Map, Value};
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

/// The largest integer JavaScript reads exactly: stored times never pass it.
const MAX_SAFE_MS: u64 = (1 << 53) - 1;

/// `now + ms`, kept within what JavaScript reads exactly.
fn later(now: u64, ms: u64) -> u64 {
    now.saturating_add(ms).min(MAX_SAFE_MS)
}

/// Brings a task up to date: observes its run and applies the policy (a run past its deadline
/// is cancelled → `timeout`; an error with attempts left → `pending` with a re-run scheduled
/// after the backoff). A due re-run is started only when `rerun` (the poll; the tools report the
/// schedule, so concurrent tool calls never start it twice). A scheduled re-run not yet due, or
/// not ours to start, needs no server call. A run or thread the server no longer has ends the
/// task with an error.
pub async fn refresh<T: Transport>(
    ctx: &Context,
    client: &Client<'_, T>,
    agent: &SubagentSpec,
    task: &mut Task,
    rerun: bool,
) -> Result<Observation> {
    let now = ctx.now();
    if let Some(due) = task.retry_at_ms.filter(|_| task.status == TaskStatus::Pending) {
        if due > ctx.now_ms || !rerun {
            task.last_checked_at = now;
            return Ok(Observation {
                status: Some(task.status),
                run_id: task.run_id.clone(),
                error: task.error.clone(),
                ..Observation::default()
            });
        }
        // A re-run an earlier poll started but could not record is adopted, not started twice.
        let adopted = client
            .newest_run(agent, &task.thread_id)
            .await?
            .filter(|r| r.run_id != task.run_id && matches!(r.status.as_str(), "pending" | "running"));
        let run = match adopted {
            Some(run) => run,
            None => {
                client
                    .create_run(
                        agent,
                        &task.thread_id,
                        ctx.outgoing(run_body(agent, vec![user(&task.instruction)], None, ctx))?,
                    )
                    .await?
            }
        };
        task.attempts += 1;
        task.retry_at_ms = None;
        task.deadline_ms = agent.timeout_ms.map(|t| later(ctx.now_ms, t));
        task.observe(launched(&run), &run.run_id, &now);
        return Ok(Observation { status: Some(task.status), run_id: run.run_id, ..Observation::default() });
    }
    let mut seen =
        match observe(client, agent, &task.thread_id, &task.run_id, task.status == TaskStatus::Cancelled).await {
            Err(e)
                if e.code == ErrorCode::ServerError
                    && e.message.contains("HTTP 404")
                    && e.field.as_deref() == Some("get_run") =>
            {
                Observation {
                    status: Some(TaskStatus::Error),
                    run_id: task.run_id.clone(),
                    error: Some("The subagent's run is no longer on its server (deleted or expired).".into()),
                    ..Observation::default()
                }
            }
            other => other?,
        };
    seen.redact(&ctx.private);
    let mut status = seen.status.unwrap_or(task.status);
    let overdue = task.deadline_ms.is_some_and(|d| d <= ctx.now_ms);
    if matches!(status, TaskStatus::Pending | TaskStatus::Running) && overdue {
        if client.cancel_run(agent, &task.thread_id, &seen.run_id).await? {
            status = TaskStatus::Timeout;
        } else {
            // It ended between the two calls: report how, not a timeout.
            seen = observe(client, agent, &task.thread_id, &seen.run_id, false).await?;
            seen.redact(&ctx.private);
            status = seen.status.unwrap_or(task.status);
        }
    } else if status == TaskStatus::Cancelled && overdue && task.status != TaskStatus::Cancelled {
        // Cancelled by an earlier time-out whose record was lost, not by someone else.
        status = TaskStatus::Timeout;
    }
    if status == TaskStatus::Timeout {
        task.error = Some(format!(
            "The run passed the subagent's timeout ({} ms) and was cancelled.",
            agent.timeout_ms.unwrap_or_default()
        ));
    }
    if status == TaskStatus::Error && !task.status.is_terminal() {
        task.error = seen.error.clone();
        if task.attempts < agent.retry.max_attempts {
            task.retry_at_ms = Some(later(ctx.now_ms, agent.retry.delay_ms(task.attempts + 1)));
            status = TaskStatus::Pending;
        }
    }
    task.observe(status, &seen.run_id, &now);
    seen.status = Some(task.status);
    Ok(seen)
}

/// What a poll found, per task that failed to refresh.
#[derive(Debug, Clone)]
pub struct PollError {
    /// The task.
    pub task_id: String,
    /// Why (`NETWORK_ERROR`, `SERVER_ERROR`).
    pub error: Error,
}

/// A value as stored in a notification: below `depth` levels of nesting as it is, deeper parts
/// as their JSON text (the store refuses values nested deeper than it can log and replay).
fn shallow(v: Value, depth: usize) -> Value {
    match v {
        Value::Array(a) if depth == 0 => Value::String(Value::Array(a).to_string()),
        Value::Object(o) if depth == 0 => Value::String(Value::Object(o).to_string()),
        Value::Array(a) => Value::Array(a.into_iter().map(|x| shallow(x, depth - 1)).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, x)| (k, shallow(x, depth - 1))).collect()),
        other => other,
    }
}

/// Refreshes every unfinished task, all at once (deepagents `_apull`): runs due retries, cancels
/// runs past their deadline, records status changes, and queues a notification for each change
/// into success, error, timeout, cancelled or waiting (or a new question on a new run) of a
/// subagent with `notify_parent`. A task the server cannot tell about is skipped (listed in the
/// errors) and keeps its record. Only tasks whose status, run or retry schedule changed are
/// written.
pub async fn poll<T: Transport>(ctx: &Context, transport: &T) -> (Outcome, Vec<PollError>) {
    let client = Client::new(&ctx.config, transport);
    let mut out = Outcome::new(&ToolCall {
        id: String::new(),
        name: String::new(),
        args: Value::Null,
        raw_args: None,
        extra: Map::new(),
        approval: None,
    });
    let mut errors = Vec::new();
    let open: Vec<(Task, &SubagentSpec)> = tasks(&ctx.ledger)
        .into_iter()
        .filter(|t| !t.status.is_terminal())
        .filter_map(|t| ctx.config.agent(&t.agent_name).map(|a| (t, a)))
        .collect();
    let refreshed = join_all(open.iter().map(|(before, agent)| {
        let client = &client;
        async move {
            let mut task = before.clone();
            let seen = refresh(ctx, client, agent, &mut task, true).await;
            (task, seen)
        }
    }))
    .await;
    for ((before, agent), (task, seen)) in open.into_iter().zip(refreshed) {
        let seen = match seen {
            Ok(seen) => seen,
            Err(error) => {
                errors.push(PollError { task_id: before.task_id.clone(), error });
                continue;
            }
        };
        let changed =
            task.status != before.status || task.run_id != before.run_id || task.retry_at_ms != before.retry_at_ms;
        if !changed {
            continue;
        }
        if task.status.notifies()
            && (task.status != before.status || task.run_id != before.run_id)
            && agent.notify_parent
        {
            let id = format!("{}:{}:{}", task.task_id, task.run_id, task.status.as_str());
            if ctx.notifications.get(&id).is_none() {
                let mut n = obj! {
                    "id": id, "task_id": task.task_id, "agent_name": task.agent_name, "status": task.status.as_str(),
                    "run_id": task.run_id, "created_at": ctx.now(),
                };
                match task.status {
                    TaskStatus::Success => {
                        let result = seen.result.unwrap_or_default();
                        let clipped: String = result.chars().take(super::notify::MAX_RESULT_CHARS).collect();
                        if clipped.len() < result.len() {
                            n["truncated"] = Value::Bool(true);
                        }
                        n["result"] = val(&clipped);
                    }
                    TaskStatus::Error | TaskStatus::Timeout => {
                        n["error"] = val(&(task.error.clone().unwrap_or_else(|| "The subagent failed.".into())))
                    }
                    TaskStatus::Waiting => n["interrupts"] = shallow(seen.interrupts.unwrap_or_else(|| arr![]), 16),
                    _ => {}
                }
                out.notifications.insert(id, n);
            }
        }
        out.tasks.push((Some(before), task));
    }
    out.effects = client.effects.into_inner();
    (out, errors)
}

/// Runs futures together on this thread and collects their outputs in order (the server calls
/// of different tasks overlap, so a slow or silent server costs one time-out, not one per task).
async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    /// A future and, once it finished, its output.
    type Slot<F> = (Pin<Box<F>>, Option<<F as Future>::Output>);
    let mut slots: Vec<Slot<F>> = futures.into_iter().map(|f| (Box::pin(f), None)).collect();
    std::future::poll_fn(move |cx| {
        let mut pending = false;
        for (f, out) in slots.iter_mut() {
            if out.is_none() {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *out = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(slots.iter_mut().filter_map(|(_, out)| out.take()).collect())
        }
    })
    .await
}
