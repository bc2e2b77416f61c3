//! What validation and repair make of a call's human approval (see
//! [`crate::message::approvals`] for where an approval stands): a call at the end of the history
//! that waits for its approval, or to run once approved, is not dangling; a denied call's result
//! is its denial; a pending approval the conversation moved past is answered by a policy.

use super::plan::or_unknown;
use super::shape::{CallShape, Shapes};
use super::validate::{Provider, Rule};
use super::{Reason, RepairOptions};
use crate::error::{Error, ErrorCode, Result};
use crate::message::approvals::Standing;
use crate::message::formats::DENIED;
use crate::message::{Message, Role};
use serde::{Deserialize, Serialize};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// What answers a call whose approval was never given before the conversation moved on
/// ([`RepairOptions::on_pending_approval`]). In JS: `"interrupt" | "deny" | "error"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "snake_case")]
pub enum OnPendingApproval {
    /// An error result saying the approval was not given (the default).
    #[default]
    Interrupt,
    /// The call's denial, as if the approval had been denied.
    Deny,
    /// The repair is refused (`APPROVAL_PENDING`), naming the call.
    Error,
}

impl OnPendingApproval {
    pub(super) fn is_default(&self) -> bool {
        *self == OnPendingApproval::Interrupt
    }
}

/// What a repair does with a call that has no result, by its approval: `None` leaves it alone
/// (at the end of the history, waiting for its approval, or approved and not yet run — the run
/// is paused on it, not broken); otherwise the reason and, when the approval decides it, the
/// result's text: a denied call's is its denial (the reason the decision gave, or the AI SDK's
/// "Tool call execution denied."), as the AI SDK's `generateText` answers it; a call whose
/// approval was never given before the conversation moved on is answered by
/// [`RepairOptions::on_pending_approval`]. A call without an approval keeps `reason`.
pub(crate) fn approval_answer(
    c: &CallShape,
    waiting: bool,
    reason: Reason,
    opts: &RepairOptions,
) -> Option<(Reason, Option<String>)> {
    let Some(ap) = c.approval else { return Some((reason, None)) };
    Some(match (ap.standing, waiting) {
        (Standing::Pending | Standing::Approved, true) => return None,
        (Standing::Denied, _) => (Reason::Rejected, Some(ap.reason.unwrap_or(DENIED).to_string())),
        (Standing::Pending, false) => match opts.on_pending_approval {
            OnPendingApproval::Deny => (Reason::Rejected, Some(DENIED.to_string())),
            OnPendingApproval::Interrupt | OnPendingApproval::Error => (
                Reason::Interrupted,
                Some(format!(
                    "Tool call {} with id {} did not run - its approval ({}) was not given before the conversation moved on.",
                    or_unknown(c.name),
                    c.id,
                    ap.id
                )),
            ),
        },
        (Standing::Approved, false) => (reason, None),
    })
}

/// The rule and the message validation gives a call with no result, by its approval (see
/// [`approval_answer`]): `APPROVAL_PENDING` for a call at the end of the history that waits for
/// its approval or to run once approved, `MISSING_TOOL_RESULT` otherwise, saying what the
/// approval was.
pub(crate) fn unanswered(c: &CallShape, waiting: bool) -> (Rule, String) {
    let (id, name) = (c.id, c.name);
    let Some(ap) = c.approval else {
        return (Rule::MissingToolResult, format!("tool call {id} ({name}) has no result"));
    };
    let aid = ap.id;
    match (ap.standing, waiting) {
        (Standing::Pending, true) => (
            Rule::ApprovalPending,
            format!("tool call {id} ({name}) waits for its approval {aid}: decide it before the next model call"),
        ),
        (Standing::Approved, true) => (
            Rule::ApprovalPending,
            format!("tool call {id} ({name}) was approved ({aid}) and has not run: run it, or record its result, before the next model call"),
        ),
        (Standing::Denied, _) => (
            Rule::MissingToolResult,
            format!("tool call {id} ({name}) has no result; its approval {aid} was denied, so its result is the denial (repair writes it)"),
        ),
        (Standing::Pending, false) => (
            Rule::MissingToolResult,
            format!("tool call {id} ({name}) has no result; its approval {aid} was never decided and the conversation moved on"),
        ),
        (Standing::Approved, false) => (
            Rule::MissingToolResult,
            format!("tool call {id} ({name}) was approved ({aid}) but has no result"),
        ),
    }
}

/// Refuses (`APPROVAL_PENDING`, naming the call and the approval) a repair with
/// `onPendingApproval: "error"` of a history where a call's approval was still pending when the
/// conversation moved on; any other option, or no such call, passes.
pub fn check_pending_approvals(shapes: &Shapes, opts: &RepairOptions) -> Result<()> {
    if opts.on_pending_approval != OnPendingApproval::Error {
        return Ok(());
    }
    let waiting = shapes.last_turn();
    for (i, s) in shapes.iter().enumerate() {
        for c in shapes.calls(s) {
            let Some(ap) = c.approval.filter(|a| a.standing == Standing::Pending) else {
                continue;
            };
            if waiting.as_ref().is_some_and(|t| t.contains(&i)) {
                continue;
            }
            // Only a call left without a result is answered by the policy.
            let answered = shapes.iter().any(|r| r.role == Role::Tool && !r.aside && r.tool_call_id == Some(c.id));
            if !answered {
                return Err(Error::new(
                    ErrorCode::ApprovalPending,
                    format!("tool call {} ({}) has no result and its approval {} was never decided before the conversation moved on: decide it, or repair with onPendingApproval \"interrupt\" or \"deny\"", c.id, c.name, ap.id),
                )
                .at(s.source));
            }
        }
    }
    Ok(())
}

/// Refuses (`APPROVAL_PENDING`, naming the call and its approval) a model view that ends with a
/// call waiting for its approval, or approved and not yet run: repair leaves such a call alone
/// (the run is paused on it), and no provider takes a call without its result — nor does the
/// AI SDK, whose `generateText` throws `MissingToolResultsError` for it. Decide the approval (and
/// run the tool) before the next model call.
pub fn paused(window: &[Message], provider: Provider) -> Result<()> {
    if !window.iter().any(|m| m.tool_calls.iter().any(|c| c.approval.is_some())) {
        return Ok(());
    }
    match super::validate(window, provider).into_iter().find(|v| v.rule == Rule::ApprovalPending) {
        Some(v) => {
            Err(Error::new(ErrorCode::ApprovalPending, format!("the model view ends with a paused run: {}", v.message)))
        }
        None => Ok(()),
    }
}
