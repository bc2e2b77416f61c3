//! The async task ledger's records (DESIGN §7; deepagents `AsyncTask`) and the rules for
//! changing them: terminal statuses never change, `last_updated_at` moves only when the status
//! or the run id does, and every change is written as a patch of the fields that changed, so
//! concurrent updates of different tasks (or different fields) merge.

use crate::lifecycle::TaskStatus;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One task of the ledger (`async_tasks[task_id]`). Times are ISO 8601 UTC with ms, from the
/// store's clock; `*_ms` fields are ms since the epoch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The task id: the subagent's thread id (deepagents).
    pub task_id: String,
    /// The subagent's name.
    pub agent_name: String,
    /// The subagent's thread on its server.
    pub thread_id: String,
    /// The newest run known for the task.
    pub run_id: String,
    /// pending, running, waiting, success, error, cancelled or timeout.
    pub status: TaskStatus,
    /// When the task was started.
    pub created_at: String,
    /// When the server was last asked about it.
    pub last_checked_at: String,
    /// When its status or run id last changed.
    pub last_updated_at: String,
    /// Runs started for the current instruction (1 + re-runs after errors).
    #[serde(default = "one")]
    pub attempts: u32,
    /// Runs replaced by queued follow-ups (enqueue), oldest first.
    #[serde(default)]
    pub superseded_run_ids: Vec<String>,
    /// The last instruction sent (the description, or the latest follow-up); re-sent on a retry.
    #[serde(default)]
    pub instruction: String,
    /// Why the last run failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When a scheduled re-run is due (status `pending` after an error with attempts left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_at_ms: Option<u64>,
    /// When the current run times out (`timeout_ms` after it started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
}

fn one() -> u32 {
    1
}

impl Task {
    /// Reads a ledger record; `None` if it is not a task record.
    pub fn read(v: &Value) -> Option<Task> {
        serde_json::from_value(v.clone()).ok()
    }

    /// Moves to `status` on run `run_id` at `now`: `last_updated_at` changes only when one of
    /// them changes, and a terminal status never changes (the run id is kept with it).
    pub fn observe(&mut self, status: TaskStatus, run_id: &str, now: &str) {
        self.last_checked_at = now.to_string();
        if self.status.is_terminal() {
            return;
        }
        if status != self.status || run_id != self.run_id {
            self.status = status;
            self.run_id = run_id.to_string();
            self.last_updated_at = now.to_string();
        }
    }

    /// The fields of `self` that differ from `before` (all of them for a new task), as a ledger
    /// patch: merged field by field, so it never overwrites what it did not change.
    pub fn patch(&self, before: Option<&Task>) -> Map<String, Value> {
        let now = serde_json::to_value(self).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default();
        let Some(old) = before.and_then(|b| serde_json::to_value(b).ok()).and_then(|v| v.as_object().cloned()) else {
            return now;
        };
        let mut out: Map<String, Value> =
            now.iter().filter(|(k, v)| old.get(*k) != Some(v)).map(|(k, v)| (k.clone(), v.clone())).collect();
        for k in old.keys().filter(|k| !now.contains_key(*k)) {
            out.insert(k.clone(), Value::Null);
        }
        out
    }
}

/// The ledger's tasks, in the order they were started.
pub fn tasks(ledger: &Value) -> Vec<Task> {
    ledger.as_object().into_iter().flat_map(|m| m.values()).filter_map(Task::read).collect()
}

/// ms since the epoch as ISO 8601 UTC with ms (`2026-11-30T04:02:45.123Z`, as JS
/// `Date.prototype.toISOString`).
pub fn iso_time(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem % 3600 / 60, rem % 60, ms % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn iso_time_matches_js_to_iso_string() {
        assert_eq!(iso_time(0), "1970-01-01T00:00:00.000Z");
        // new Date(1796011365123).toISOString()
        assert_eq!(iso_time(1_796_011_365_123), "2026-11-30T04:02:45.123Z");
        assert_eq!(iso_time(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso_time(4_107_542_399_999), "2100-02-28T23:59:59.999Z");
    }

    fn task() -> Task {
        Task::read(&json!({
            "task_id": "t1", "agent_name": "a", "thread_id": "t1", "run_id": "r1", "status": "running",
            "created_at": "c", "last_checked_at": "c", "last_updated_at": "c",
        }))
        .unwrap()
    }

    #[test]
    fn last_updated_at_moves_only_with_status_or_run() {
        let before = task();
        let mut t = before.clone();
        t.observe(TaskStatus::Running, "r1", "later");
        assert_eq!((t.last_checked_at.as_str(), t.last_updated_at.as_str()), ("later", "c"));
        assert_eq!(t.patch(Some(&before)), json!({"last_checked_at": "later"}).as_object().unwrap().clone());
        t.observe(TaskStatus::Running, "r2", "later2");
        assert_eq!(t.last_updated_at, "later2");
        t.observe(TaskStatus::Success, "r2", "later3");
        t.observe(TaskStatus::Running, "r3", "later4");
        assert_eq!(
            (t.status, t.run_id.as_str(), t.last_updated_at.as_str(), t.last_checked_at.as_str()),
            (TaskStatus::Success, "r2", "later3", "later4")
        );
    }

    #[test]
    fn patch_names_removed_fields_as_null() {
        let mut before = task();
        before.retry_at_ms = Some(5);
        let mut t = before.clone();
        t.retry_at_ms = None;
        assert_eq!(t.patch(Some(&before)), json!({"retry_at_ms": null}).as_object().unwrap().clone());
        assert_eq!(t.patch(None).len(), 11, "a new task is written whole");
    }
}
