//! The rules that span channels, checked after each command's writes (DESIGN §3): a tool result
//! waits for its approval, a run leaves `waiting_approval` only once approvals are decided, and
//! budget counters and the deadline hold.

use super::domain::{self, add_used, any_pending, approval_of, run_status, used_counters};
use super::journal::Journal;
use super::messages::Effects;
use super::store::{Slot, Store};
use crate::error::{Error, ErrorCode, Result};
use crate::lifecycle::{ApprovalStatus, RunStatus};
use crate::message::ToolStatus;
use serde_json::Value;

impl Store {
    /// The rules that span channels, on the state after the command's writes: approvals before
    /// tool results, leaving `waiting_approval`, budget counters and the deadline.
    /// `before` is the run status before the command, and its budget counters when the command
    /// wrote the budget channel (otherwise the budget is still as it was, and read here);
    /// `slots` the run, approvals and budget channels.
    pub(super) fn check_cross(
        &mut self,
        fx: &Effects,
        (run_before, budget_before): (RunStatus, Option<[u64; 3]>),
        (run_i, approvals_i, budget_i): (Option<usize>, Option<usize>, Option<usize>),
        now_ms: u64,
        journal: &mut Journal,
    ) -> Result<()> {
        if let Some(approvals) = self.json(approvals_i) {
            for (call, status) in &fx.results {
                match approval_of(approvals, call) {
                    // An error result (the call did not run: a notice that its approval was
                    // never given) is taken; a success needs the approval first.
                    Some(ApprovalStatus::Pending) if *status == ToolStatus::Success => {
                        return Err(Error::new(ErrorCode::ApprovalPending, format!("call '{call}' is waiting for approval; decide the approval first")).field("tool_call_id"))
                    }
                    Some(ApprovalStatus::Rejected | ApprovalStatus::Expired) if *status == ToolStatus::Success => {
                        return Err(Error::new(
                            ErrorCode::ApprovalRejected,
                            format!("call '{call}' was not approved; only an error result (the rejection notice) may answer it"),
                        )
                        .field("tool_call_id"))
                    }
                    _ => {}
                }
            }
            let run_now = self.json(run_i).map(run_status).unwrap_or(RunStatus::Created);
            if run_before == RunStatus::WaitingApproval && run_now == RunStatus::Running && any_pending(approvals) {
                return Err(Error::new(
                    ErrorCode::InvalidTransition,
                    "the run cannot leave waiting_approval while an approval is pending; decide it first",
                )
                .channel("run")
                .field("status"));
            }
        }
        let Some(bi) = budget_i else { return Ok(()) };
        let counts = fx.turns + fx.tokens + fx.tool_calls > 0;
        // A command that neither counts, nor sets the budget, nor writes a model or tool message
        // (which the deadline stops) cannot break the budget: no need to read it.
        if !counts && budget_before.is_none() && !fx.model_or_tool {
            return Ok(());
        }
        // Without limits nothing is checked: the counters before the command are read only to check.
        let limited = self.json(Some(bi)).is_some_and(domain::has_limits);
        let before = limited.then(|| budget_before.unwrap_or_else(|| used_counters(self.json(Some(bi)))));
        if counts {
            // Counting is the hot path (every model turn): journal the three counters, not the value.
            if journal.counters.is_none() {
                journal.counters = Some((bi, used_counters(self.json(Some(bi)))));
            }
            if let Some(Slot::Json(Value::Object(budget))) = self.slots_mut().get_mut(bi) {
                add_used(budget, "turns", fx.turns);
                add_used(budget, "tokens", fx.tokens);
                add_used(budget, "tool_calls", fx.tool_calls);
            }
        }
        match (self.json(Some(bi)), before) {
            (Some(budget), Some(before)) => domain::check_budget(budget, before, now_ms, fx.model_or_tool),
            _ => Ok(()),
        }
    }
}
