//! Keeping tasks up to date: [`refresh`] (one task: a due retry, or an observation of its run
//! with the retry and timeout policy, used by the tools too) and [`poll`] (every unfinished
//! task, queueing notifications; deepagents' `_apull`).

use super::ledger::{tasks, Task};
use super::outcome::{launched, run_body, user, Context, Outcome};
use super::protocol::{observe, Client, Observation, Transport};
use super::spec::SubagentSpec;
use crate::error::{Error, Result};
use crate::lifecycle::TaskStatus;
use crate::message::ToolCall;
use serde_json::{json, Map, Value};

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
