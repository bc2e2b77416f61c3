//! The `approvals` channel fed from the messages: each approval a call asks for in the run's
//! messages is a record there, pending until a decision message decides it — one fact, written
//! once (in the messages), read in both places. A running run waits for the approvals its
//! messages ask for (`waiting_approval`) and runs again once the last is decided.
//!
//! Derived in the command that writes the messages, so a replay of its event derives the same.

use super::command::{Applied, Command};
use super::domain::{any_pending, run_status};
use super::journal::Journal;
use super::messages::ApprovalFx;
use super::reducer::reduce;
use super::schema::channel;
use super::store::{Slot, Store};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{obj, val, Put};
use crate::lifecycle::{ApprovalStatus, RunStatus};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// A decision to record: `store.decide({approvalId, approved, reason?, author, expectedVersion?})`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Decide {
    /// The approval decided (an AI SDK `approvalId`, a UIMessage part's `approval.id`).
    pub approval_id: String,
    /// Whether the call may run.
    pub approved: bool,
    /// Why; a denial's reason is what the model is told.
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub reason: Option<String>,
    /// Who decided: the command's author.
    pub author: String,
    /// The version the caller read (`VERSION_CONFLICT` if it moved).
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub expected_version: Option<u64>,
}

/// One record of the `approvals` channel, by approval id (`store.approvals()`): the call that
/// waits, where the approval stands (`pending` → `approved` | `rejected` | `expired`) and, once
/// decided, why, by whom and when (ms since the epoch, the store's clock). Fed from the
/// messages; a record written by a command of your own may carry more fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct ApprovalRecord {
    /// The call whose approval it is (absent in a decision's patch).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub tool_call_id: Option<String>,
    /// `pending`, `approved`, `rejected` or `expired`.
    pub status: String,
    /// The reason the decision gave.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub reason: Option<String>,
    /// The author of the command that decided it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub decided_by: Option<String>,
    /// When it was decided, ms since the epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub decided_at: Option<u64>,
}

impl ApprovalRecord {
    fn json(&self) -> Result<Value> {
        serde_json::to_value(self).map_err(|e| Error::new(ErrorCode::InvalidUpdate, format!("internal: {e}")))
    }
}

impl Store {
    /// Records a decision as a command by `d.author`: a decision message (the AI SDK's
    /// `tool-approval-response`) appended to `messages`, which feeds the `approvals` channel.
    /// Errors: those of a command writing it — `UNKNOWN_TOOL_CALL` (no call asked for that
    /// approval), `INVALID_TRANSITION` (already decided), `VERSION_CONFLICT`, `NOT_AUTHORIZED`.
    pub fn decide(&mut self, d: &Decide, now_ms: u64) -> Result<Applied> {
        let mut part = Map::new();
        part.put("type", Value::from("tool-approval-response"));
        part.put("approvalId", val(&d.approval_id));
        part.put("approved", Value::Bool(d.approved));
        crate::message::formats::util::put_opt(&mut part, "reason", d.reason.as_deref());
        let message = obj! {"role": "tool", "content": Value::Array(vec![Value::Object(part)])};
        let cmd = Command {
            author: d.author.clone(),
            expected_version: d.expected_version,
            update: Map::from_iter([(channel::MESSAGES.to_string(), Value::Array(vec![message]))]),
            correlation_id: None,
            causation_id: None,
        };
        self.apply(&cmd, now_ms)
    }

    /// Writes the approvals the command's messages asked for and decided into the `approvals`
    /// channel (a request: `{tool_call_id, status: "pending"}`; a decision: `status` approved or
    /// rejected, `reason`, `decided_by` the author, `decided_at` the command's time), then moves a
    /// running run to `waiting_approval` while one is pending, and back to `running` once the
    /// command decided the last. Errors: the approval table's (`INVALID_TRANSITION`).
    pub(super) fn feed_approvals(
        &mut self,
        fx: &[ApprovalFx],
        author: &str,
        now_ms: u64,
        (approvals_i, run_i): (Option<usize>, Option<usize>),
        journal: &mut Journal,
    ) -> Result<()> {
        let Some(ai) = approvals_i else { return Ok(()) };
        let Some(spec) = self.specs.get(ai).cloned() else { return Ok(()) };
        let known = |s: &Store, id: &str| s.json(Some(ai)).is_some_and(|v| v.get(id).is_some());
        let mut asks = Map::new();
        let mut decisions = Map::new();
        for a in fx {
            match a {
                ApprovalFx::Asked { id, call } if !known(self, id) => {
                    let record = ApprovalRecord {
                        tool_call_id: Some(call.clone()),
                        status: ApprovalStatus::Pending.as_str().into(),
                        reason: None,
                        decided_by: None,
                        decided_at: None,
                    };
                    asks.put(id.as_str(), record.json()?);
                }
                ApprovalFx::Asked { .. } => {}
                ApprovalFx::Decided { id, approved, reason } => {
                    let status = if *approved { ApprovalStatus::Approved } else { ApprovalStatus::Rejected };
                    let record = ApprovalRecord {
                        tool_call_id: None,
                        status: status.as_str().into(),
                        reason: reason.clone(),
                        decided_by: Some(author.to_string()),
                        decided_at: Some(now_ms),
                    };
                    decisions.put(id.as_str(), record.json()?);
                }
            }
        }
        journal.touch(ai, self.slots_mut());
        // A new approval starts pending: its decision is a second write, even in one command.
        for update in [asks, decisions].into_iter().filter(|u| !u.is_empty()) {
            if let Some(Slot::Json(value)) = self.slots_mut().get_mut(ai) {
                reduce(&spec, value, &Value::Object(update)).map_err(|e| e.channel(&spec.name))?;
            }
        }
        let pending = self.json(Some(ai)).is_some_and(any_pending);
        let decided = fx.iter().any(|a| matches!(a, ApprovalFx::Decided { .. }));
        let to = match self.json(run_i).map(run_status) {
            Some(RunStatus::Running) if pending => RunStatus::WaitingApproval,
            Some(RunStatus::WaitingApproval) if !pending && decided => RunStatus::Running,
            _ => return Ok(()),
        };
        let Some(ri) = run_i else { return Ok(()) };
        journal.touch(ri, self.slots_mut());
        match self.slots_mut().get_mut(ri) {
            Some(Slot::Json(Value::Object(run))) => {
                run.put("status", Value::from(to.as_str()));
                Ok(())
            }
            _ => Err(Error::new(ErrorCode::InvalidUpdate, "internal: the run channel is not an object")),
        }
    }
}
