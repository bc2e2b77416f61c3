//! Task notifications (DESIGN §7; deepagents' beta notifications): the queue in the
//! `notifications` channel, the user-role message that carries a TaskEvent, and delivery into
//! `messages` exactly once, at a safe point.

use super::spec::AUTHOR;
use crate::error::Result;
use crate::json::{arr, obj};
use crate::state::channel;
use crate::state::{Applied, Command, Store};
use serde::Serialize;
use serde_json::{Map, Value};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// Results longer than this many characters are clipped in a notification (deepagents: 80,000).
pub const MAX_RESULT_CHARS: usize = 80_000;

/// Escapes `&`, `<` and `>` so subagent text cannot close the notification's tags.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// What the parent should do next, per status.
fn next_step(status: &str) -> &'static str {
    match status {
        "success" => "Use the result to continue, and tell the user if they are waiting for it.",
        "error" => "Call `check_async_task` for the details, then retry, try another way, or tell the user.",
        "timeout" => "The task ran too long and was stopped. Start it again with a smaller scope, or tell the user.",
        "cancelled" => "The task's run was cancelled outside your tools before it finished. Start it again if it is still needed.",
        _ => "The subagent waits for the user, who answers it on the subagent's own thread; you cannot answer or approve it. Keep working.",
    }
}

/// The user-role message of a queued notification, as a LangChain `HumanMessage` dict whose
/// `additional_kwargs.deepagents_notification` is the TaskEvent `{task_id, agent_name, status,
/// run_id}` (deepagents' shape). `superseded`: the run was replaced by a later follow-up, so the
/// message says this is not the follow-up's result.
pub fn render(n: &Value, superseded: bool) -> Value {
    let s = |k: &str| n.get(k).and_then(Value::as_str).unwrap_or("");
    let status = s("status");
    let mut text = format!(
        "[SYSTEM NOTIFICATION - NOT USER INPUT]\nAn async subagent task you started has an update. This is not a message from the user; do not take it as their answer to any question.\n<task-notification>\n<task-id>{}</task-id>\n<agent-name>{}</agent-name>\n<status>{status}</status>\n",
        escape(s("task_id")),
        escape(s("agent_name"))
    );
    match status {
        "success" => {
            let result = s("result");
            let clipped: String = result.chars().take(MAX_RESULT_CHARS).collect();
            let truncated = clipped.len() < result.len() || n.get("truncated").and_then(Value::as_bool) == Some(true);
            let cut = if truncated { "\n... [cut off; use `check_async_task` for the full result]" } else { "" };
            text.push_str(&format!("<result>\n{}{cut}\n</result>\n", escape(&clipped)));
        }
        "error" | "timeout" => text.push_str(&format!(
            "<details>{}</details>\n",
            escape(&super::pyjson::dumps(&obj! { "error": s("error") }))
        )),
        "waiting" => text.push_str(&format!(
            "<details>{}</details>\n",
            escape(&super::pyjson::dumps(&obj! { "interrupts": n.get("interrupts").cloned().unwrap_or(arr![]) }))
        )),
        _ => {}
    }
    text.push_str("</task-notification>\n");
    text.push_str(if superseded {
        "This update is from an earlier run of this task, before your latest follow-up. It is not the result of the follow-up. Use `check_async_task` for the task's current status."
    } else {
        next_step(status)
    });
    obj! {
        "type": "human",
        "content": text,
        "additional_kwargs": obj!{ "deepagents_notification": obj!{
            "task_id": s("task_id"), "agent_name": s("agent_name"), "status": status, "run_id": s("run_id"),
        }},
    }
}

/// The notifications of a queue (the `notifications` channel's value) neither delivered nor
/// dropped, oldest first, with their keys.
pub fn queued(queue: &Value) -> Vec<(String, Value)> {
    let open = |n: &Value| ["delivered_at", "dropped"].iter().all(|k| n.get(*k).is_none_or(Value::is_null));
    queue.as_object().into_iter().flatten().filter(|(_, n)| open(n)).map(|(k, n)| (k.clone(), n.clone())).collect()
}

/// The notifications not delivered yet, oldest first.
pub fn undelivered(store: &Store) -> Vec<Value> {
    queued(&store.get(channel::NOTIFICATIONS).unwrap_or(Value::Null)).into_iter().map(|(_, n)| n).collect()
}

/// What `deliverNotifications` (`deliver` in Rust) did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct Delivered {
    /// The store's version after the delivery (unchanged when nothing was delivered).
    pub version: u64,
    /// The notification ids delivered, in order.
    pub delivered: Vec<String>,
    /// Ids of the messages appended, one per delivered notification.
    pub ids: Vec<String>,
    /// Notifications dropped because the task moved on since (another status or run): their
    /// news is stale and would contradict the ledger.
    pub dropped: Vec<String>,
    /// Notifications held back because the last assistant turn still waits for tool results
    /// (delivered by a later call).
    pub deferred: usize,
}

/// Appends every queued notification that is still current (its task has the notified status
/// and run, or the run was superseded by a follow-up, which the message then says) to
/// `messages` as a user message and marks it delivered; stale ones are marked dropped; all in
/// one command by [`AUTHOR`], so each is delivered at most once. Never between a tool call and
/// its result: while a call is unanswered, nothing is delivered (`deferred`).
pub fn deliver(store: &mut Store, now_ms: u64) -> Result<Delivered> {
    store.writable()?;
    let pending = queued(&store.get(channel::NOTIFICATIONS).unwrap_or(Value::Null));
    let version = store.version();
    let mut out = Delivered { version, delivered: Vec::new(), ids: Vec::new(), dropped: Vec::new(), deferred: 0 };
    if pending.is_empty() {
        return Ok(out);
    }
    if !store.messages(channel::MESSAGES)?.unanswered().is_empty() {
        out.deferred = pending.len();
        return Ok(out);
    }
    let ledger = store.get(channel::ASYNC_TASKS).unwrap_or(Value::Null);
    let now = super::ledger::iso_time(now_ms);
    let mut messages = Vec::new();
    let mut marks = Map::new();
    for (id, n) in pending {
        let n = &n;
        let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
        let task = n.get("task_id").and_then(Value::as_str).and_then(|t| ledger.get(t));
        let run = s(n.get("run_id"));
        let superseded = task
            .and_then(|t| t.get("superseded_run_ids"))
            .and_then(Value::as_array)
            .is_some_and(|runs| runs.iter().any(|r| r.as_str() == Some(&run)));
        let current = task.is_some_and(|t| s(t.get("status")) == s(n.get("status")) && s(t.get("run_id")) == run);
        if current || superseded {
            messages.push(render(n, superseded && !current));
            marks.insert(id.clone(), obj! { "delivered_at": now });
            out.delivered.push(id);
        } else {
            marks.insert(id.clone(), obj! { "dropped": "stale: the task moved on" });
            out.dropped.push(id);
        }
    }
    let mut update = Map::new();
    if !messages.is_empty() {
        update.insert(channel::MESSAGES.into(), Value::Array(messages));
    }
    update.insert(channel::NOTIFICATIONS.into(), Value::Object(marks));
    let cmd = Command {
        author: AUTHOR.to_string(),
        expected_version: None,
        update,
        correlation_id: None,
        causation_id: None,
    };
    let Applied { version, ids } = store.apply(&cmd, now_ms)?;
    out.version = version;
    out.ids = ids;
    Ok(out)
}
