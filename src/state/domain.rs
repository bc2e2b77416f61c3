//! Domain rules of the default channels: the run's status machine, the plan's steps, approvals,
//! the budget and deepagents' todo list (DESIGN §3). Each `reduce_*` validates the update against
//! the current value and applies it; the store checks the rules that span channels (approvals
//! before tool results, budget limits) after every channel of a command is reduced.

use super::reducer::{invalid, merge, merge_record, object_mut, Written};
use super::schema::channel;
use super::schema::ChannelSpec;
use crate::error::{Error, ErrorCode, Result};
use crate::json::{obj, val};
use crate::lifecycle::{check_transition, ApprovalStatus, RunStatus, StepStatus, TaskStatus};
use crate::message::formats::util::field;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// The `status` of a record, parsed with `parse`, if present.
fn status_of<S>(record: &Map<String, Value>, channel: &str, parse: fn(&str) -> Result<S>) -> Result<Option<S>> {
    match record.get("status") {
        None => Ok(None),
        Some(Value::String(s)) => parse(s).map(Some).map_err(|e| e.channel(channel)),
        Some(_) => Err(invalid(channel, "status is a string").field("status")),
    }
}

fn patch_of<'a>(channel: &str, v: &'a Value, what: &str) -> Result<&'a Map<String, Value>> {
    v.as_object().ok_or_else(|| invalid(channel, format!("{what} is an object of fields")))
}

/// `run`: `{status, …}` merged field by field; status changes follow the run table.
pub(crate) fn reduce_run(spec: &ChannelSpec, value: &mut Value, update: &Value) -> Result<Written> {
    let name = spec.name.as_str();
    let patch = patch_of(name, update, "a run update")?;
    let current = object_mut(value, name)?;
    let from = status_of(current, name, RunStatus::parse)?.unwrap_or(RunStatus::Created);
    if let Some(to) = status_of(patch, name, RunStatus::parse)? {
        check_transition("the run", from, to, RunStatus::can_become, RunStatus::as_str).map_err(|e| e.channel(name))?;
    } else if patch.get("status").is_some() {
        return Err(invalid(name, "the run's status cannot be removed").field("status"));
    }
    *current = merge_record(Some(&Value::Object(std::mem::take(current))), patch);
    Ok(Written { conflicting: patch.keys().cloned().collect() })
}

/// The run's current status (`created` when unset).
pub(crate) fn run_status(value: &Value) -> RunStatus {
    value.get("status").and_then(Value::as_str).and_then(|s| RunStatus::parse(s).ok()).unwrap_or(RunStatus::Created)
}

/// Records by id merged field by field (`null` deletes a record or a field); `check(id, old, new)`
/// validates each resulting record.
pub(crate) fn reduce_records(
    spec: &ChannelSpec,
    value: &mut Value,
    update: &Value,
    mut check: impl FnMut(&str, Option<&Map<String, Value>>, &Map<String, Value>) -> Result<()>,
) -> Result<Written> {
    let name = spec.name.as_str();
    merge(spec, value, update, |id, old, new| {
        let patch = patch_of(name, new, "a record")?;
        spec.value_type.check(new, name)?;
        let record = merge_record(old, patch);
        check(id, old.and_then(Value::as_object), &record)?;
        Ok(Value::Object(record))
    })
}

/// `async_tasks`: the ledger (DESIGN §7). Records by task id merged field by field; a record has
/// string `task_id`, `agent_name`, `thread_id` and `run_id` and a `status` (default `pending`) whose changes follow the task table,
/// so a terminal status never changes; records are never deleted (deepagents' reducer cannot
/// delete either), so the ledger survives compaction of the messages.
pub(crate) fn reduce_tasks(spec: &ChannelSpec, value: &mut Value, update: &Value) -> Result<Written> {
    let name = spec.name.as_str();
    if let Some((id, _)) = update.as_object().and_then(|p| p.iter().find(|(_, v)| v.is_null())) {
        return Err(invalid(name, format!("task '{id}' cannot be deleted: the ledger keeps every task")).field(id));
    }
    reduce_records(spec, value, update, |id, old, task| {
        if task.get("task_id").and_then(Value::as_str).is_some_and(|t| t != id) {
            return Err(invalid(name, "a task record's task_id is its key").field("task_id"));
        }
        if let Some(k) = ["task_id", "agent_name", "thread_id", "run_id"]
            .into_iter()
            .find(|k| !task.get(*k).is_some_and(Value::is_string))
        {
            return Err(invalid(name, "a task record has string task_id, agent_name, thread_id and run_id").field(k));
        }
        let to = status_of(task, name, TaskStatus::parse)?.unwrap_or(TaskStatus::Pending);
        let from = old.map(|o| status_of(o, name, TaskStatus::parse)).transpose()?.flatten().unwrap_or(to);
        check_transition("the task", from, to, TaskStatus::can_become, TaskStatus::as_str).map_err(|e| e.channel(name))
    })
}

/// `plan`: steps by id `{title, status, depends_on}`. A new step needs a title; it starts
/// `pending` (or moves from pending as the step table allows). Status changes follow the table,
/// a running or succeeded step has every dependency succeeded or skipped, every dependency
/// exists and there is no cycle (`INVALID_PLAN`).
pub(crate) fn reduce_plan(spec: &ChannelSpec, value: &mut Value, update: &Value) -> Result<Written> {
    let name = spec.name.as_str();
    let written = reduce_records(spec, value, update, |_, old, step| {
        if !step.get("title").is_some_and(Value::is_string) {
            return Err(invalid(name, "a plan step needs a string title").field("title"));
        }
        match step.get("depends_on") {
            None => {}
            Some(Value::Array(d)) if d.iter().all(Value::is_string) => {}
            Some(_) => return Err(invalid(name, "depends_on is a list of step ids").field("depends_on")),
        }
        let to = status_of(step, name, StepStatus::parse)?.unwrap_or(StepStatus::Pending);
        let from =
            old.map(|o| status_of(o, name, StepStatus::parse)).transpose()?.flatten().unwrap_or(StepStatus::Pending);
        check_transition("a plan step", from, to, StepStatus::can_become, StepStatus::as_str)
            .map_err(|e| e.channel(name))
    })?;
    let plan = object_mut(value, name)?;
    for step in plan.values_mut().filter_map(Value::as_object_mut) {
        step.entry("status").or_insert_with(|| Value::from("pending"));
    }
    check_plan(plan).map_err(|e| e.channel(name))?;
    Ok(written)
}

fn deps(step: &Value) -> impl Iterator<Item = &str> {
    step.get("depends_on").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
}

/// Every dependency exists, the graph has no cycle, and each running or succeeded step has all
/// its dependencies done.
fn check_plan(plan: &Map<String, Value>) -> Result<()> {
    for (id, step) in plan {
        if let Some(missing) = deps(step).find(|d| !plan.contains_key(*d)) {
            return Err(Error::new(
                ErrorCode::InvalidPlan,
                format!("step '{id}' depends on '{missing}', which is not in the plan"),
            )
            .field(id.clone()));
        }
    }
    // Kahn's algorithm: whatever is left after peeling steps without pending dependencies is a cycle.
    let mut indegree: HashMap<&str, usize> = plan.iter().map(|(id, s)| (id.as_str(), deps(s).count())).collect();
    let mut dependents: HashMap<&str, Vec<&str>> = HashMap::new();
    for (id, s) in plan {
        for d in deps(s) {
            dependents.entry(d).or_default().push(id);
        }
    }
    let mut ready: Vec<&str> = indegree.iter().filter(|(_, n)| **n == 0).map(|(id, _)| *id).collect();
    let mut done: HashSet<&str> = HashSet::new();
    while let Some(id) = ready.pop() {
        done.insert(id);
        for next in dependents.get(id).into_iter().flatten() {
            if let Some(n) = indegree.get_mut(next) {
                *n -= 1;
                if *n == 0 {
                    ready.push(next);
                }
            }
        }
    }
    if let Some(id) = plan.keys().find(|id| !done.contains(id.as_str())) {
        return Err(
            Error::new(ErrorCode::InvalidPlan, format!("step '{id}' is part of a dependency cycle")).field(id.clone())
        );
    }
    let status = |s: &Value| {
        s.get("status").and_then(Value::as_str).and_then(|t| StepStatus::parse(t).ok()).unwrap_or(StepStatus::Pending)
    };
    for (id, step) in plan.iter().filter(|(_, s)| matches!(status(s), StepStatus::Running | StepStatus::Succeeded)) {
        let blocked = deps(step).find(|d| {
            let status = plan.get(*d).and_then(|s| s.get("status")).and_then(Value::as_str).unwrap_or("pending");
            !StepStatus::parse(status).map(StepStatus::unblocks).unwrap_or(false)
        });
        if let Some(d) = blocked {
            return Err(Error::new(
                ErrorCode::InvalidTransition,
                format!("step '{id}' cannot run or succeed before step '{d}' succeeded or was skipped"),
            )
            .field(id.clone()));
        }
    }
    Ok(())
}

/// `approvals`: approvals by id `{tool_call_id, status, …}`. A new approval names its tool call
/// and starts `pending`; decisions follow the approval table; approvals are never deleted (they
/// are the audit trail of human decisions).
pub(crate) fn reduce_approvals(spec: &ChannelSpec, value: &mut Value, update: &Value) -> Result<Written> {
    let name = spec.name.as_str();
    if update.as_object().is_some_and(|o| o.values().any(Value::is_null)) {
        return Err(invalid(name, "approvals cannot be deleted; decide them instead (approved, rejected, expired)"));
    }
    reduce_records(spec, value, update, |_, old, record| {
        if !record.get("tool_call_id").is_some_and(Value::is_string) {
            return Err(invalid(name, "an approval names its tool call in tool_call_id").field("tool_call_id"));
        }
        let to = status_of(record, name, ApprovalStatus::parse)?;
        match old {
            None if to.unwrap_or(ApprovalStatus::Pending) != ApprovalStatus::Pending => Err(Error::new(
                ErrorCode::InvalidTransition,
                "a new approval starts pending; decide it in a later command",
            )
            .field("status")
            .channel(name)),
            None if to.is_none() => Err(invalid(name, "a new approval needs status \"pending\"").field("status")),
            None => Ok(()),
            Some(old) => {
                let from = status_of(old, name, ApprovalStatus::parse)?.unwrap_or(ApprovalStatus::Pending);
                if old.get("tool_call_id") != record.get("tool_call_id") {
                    return Err(invalid(name, "an approval's tool_call_id cannot change").field("tool_call_id"));
                }
                check_transition(
                    "an approval",
                    from,
                    to.unwrap_or(from),
                    ApprovalStatus::can_become,
                    ApprovalStatus::as_str,
                )
                .map_err(|e| e.channel(name))
            }
        }
    })
}

/// The approval status of each tool call that has an approval (the latest by insertion order).
pub(crate) fn approval_of(approvals: &Value, tool_call_id: &str) -> Option<ApprovalStatus> {
    approvals
        .as_object()?
        .values()
        .rev()
        .find(|a| a.get("tool_call_id").and_then(Value::as_str) == Some(tool_call_id))
        .and_then(|a| a.get("status"))
        .and_then(Value::as_str)
        .and_then(|s| ApprovalStatus::parse(s).ok())
}

/// True while some approval is pending.
pub(crate) fn any_pending(approvals: &Value) -> bool {
    approvals.as_object().is_some_and(|o| {
        o.values().any(|a| a.get("status").and_then(Value::as_str) == Some(ApprovalStatus::Pending.as_str()))
    })
}

/// Budget limits, in the channel's `limits` object (all optional).
pub(crate) const LIMITS: [&str; 4] = ["max_turns", "max_tokens", "max_tool_calls", "deadline_ms"];
/// Budget counters, in the channel's `used` object; each `max_x` limits the counter `x`.
pub(crate) const COUNTERS: [(&str, &str); 3] =
    [("turns", "max_turns"), ("tokens", "max_tokens"), ("tool_calls", "max_tool_calls")];

/// `budget`: `{limits?: {max_turns?, max_tokens?, max_tool_calls?, deadline_ms?}, used?: {turns?,
/// tokens?, tool_calls?}}`. Limits are set (`null` removes one); `used` values are added.
/// Whether the result is within the limits is checked by the store once the whole command
/// (including the counts its messages add) is reduced.
pub(crate) fn reduce_budget(spec: &ChannelSpec, value: &mut Value, update: &Value) -> Result<Written> {
    let name = spec.name.as_str();
    let patch = patch_of(name, update, "a budget update")?;
    let mut written = Written::default();
    for (key, part) in patch {
        let part = match (key.as_str(), part) {
            ("limits" | "used", Value::Object(p)) => p,
            ("limits" | "used", _) => return Err(invalid(name, format!("{key} is an object")).field(key.clone())),
            _ => return Err(invalid(name, "a budget update has only limits and used").field(key.clone())),
        };
        for (k, v) in part {
            let known =
                if key == "limits" { LIMITS.contains(&k.as_str()) } else { COUNTERS.iter().any(|(c, _)| c == k) };
            if !known {
                return Err(invalid(name, format!("unknown budget {key} field")).field(k.clone()));
            }
            if !(v.is_u64() || (v.is_null() && key == "limits")) {
                return Err(invalid(name, format!("budget {key} are whole numbers ≥ 0")).field(k.clone()));
            }
        }
        if key == "limits" {
            written.conflicting.extend(part.keys().map(|k| format!("limits.{k}")));
        }
    }
    let budget = object_mut(value, name)?;
    if let Some(Value::Object(limits)) = patch.get("limits") {
        let current = budget.entry("limits").or_insert_with(|| obj! {});
        *current = Value::Object(merge_record(Some(current), limits));
    }
    if let Some(Value::Object(used)) = patch.get("used") {
        for (k, v) in used {
            add_used(budget, k, v.as_u64().unwrap_or(0));
        }
    }
    Ok(written)
}

/// Adds `n` to the budget counter `counter`.
pub(crate) fn add_used(budget: &mut Map<String, Value>, counter: &str, n: u64) {
    if n > 0 {
        let current = used_of(field(budget, "used"), counter);
        set_used(budget, counter, current.saturating_add(n));
    }
}

/// Sets the budget counter `counter` to `n`. The keys are found one by one ([`field`]): a budget
/// and its `used` have a few keys, and each SipHash lookup of the map's own was a twentieth of an
/// append (every model turn is counted; issue 17, row 2).
pub(crate) fn set_used(budget: &mut Map<String, Value>, counter: &str, n: u64) {
    if field(budget, "used").is_none() {
        budget.insert("used".to_string(), obj! {});
    }
    let used = budget.iter_mut().find_map(|(k, v)| (k == "used").then_some(v)).and_then(Value::as_object_mut);
    if let Some(used) = used {
        match used.iter_mut().find_map(|(k, v)| (k == counter).then_some(v)) {
            Some(v) => *v = val(&n),
            None => {
                used.insert(counter.to_string(), val(&n));
            }
        }
    }
}

/// The counter `counter` of a budget's `used` (0 when absent).
fn used_of(used: Option<&Value>, counter: &str) -> u64 {
    used.and_then(Value::as_object).and_then(|u| field(u, counter)).and_then(Value::as_u64).unwrap_or(0)
}

/// The budget's counters `[turns, tokens, tool_calls]`.
pub(crate) fn used_counters(budget: Option<&Value>) -> [u64; 3] {
    let used = budget.and_then(Value::as_object).and_then(|b| field(b, "used"));
    COUNTERS.map(|(c, _)| used_of(used, c))
}

/// `BUDGET_EXCEEDED` when a counter the command raised (`before` → now) is over its limit, or
/// `now_ms` is past `deadline_ms` and the command wrote model or tool messages. Lowering a limit
/// below what was already used does not fail the command that lowers it.
/// Whether the budget sets any limit (counters or deadline): without one it cannot be exceeded.
pub(crate) fn has_limits(budget: &Value) -> bool {
    budget.get("limits").and_then(Value::as_object).is_some_and(|l| !l.is_empty())
}

pub(crate) fn check_budget(budget: &Value, before: [u64; 3], now_ms: u64, wrote_turn: bool) -> Result<()> {
    let limit = |k: &str| budget.get("limits").and_then(|l| l.get(k)).and_then(Value::as_u64);
    let after = used_counters(Some(budget));
    for (((counter, max), used), was) in COUNTERS.iter().zip(after).zip(before) {
        match limit(max) {
            Some(max_v) if used > was && used > max_v => {
                return Err(Error::new(
                    ErrorCode::BudgetExceeded,
                    format!("this command would use {used} {counter}; the budget allows {max_v} ({max})"),
                )
                .field(max.to_string())
                .channel(channel::BUDGET));
            }
            _ => {}
        }
    }
    if let Some(deadline) = limit("deadline_ms") {
        if wrote_turn && now_ms > deadline {
            return Err(Error::new(
                ErrorCode::BudgetExceeded,
                format!("the run's deadline ({deadline} ms) has passed"),
            )
            .field("deadline_ms")
            .channel(channel::BUDGET));
        }
    }
    Ok(())
}

/// `todos`: deepagents' list `[{content, status}]`, status `pending | in_progress | completed`,
/// replaced whole by each write (as `write_todos` does).
pub(crate) fn reduce_todos(spec: &ChannelSpec, value: &mut Value, update: &Value) -> Result<Written> {
    let name = spec.name.as_str();
    let items = update.as_array().ok_or_else(|| invalid(name, "todos are a list of {content, status}"))?;
    for (i, item) in items.iter().enumerate() {
        let ok = item.get("content").is_some_and(Value::is_string)
            && matches!(item.get("status").and_then(Value::as_str), Some("pending" | "in_progress" | "completed"));
        if !ok {
            return Err(invalid(
                name,
                "each todo is {content: string, status: \"pending\" | \"in_progress\" | \"completed\"}",
            )
            .at(i));
        }
    }
    *value = update.clone();
    Ok(Written { conflicting: vec![String::new()] })
}
