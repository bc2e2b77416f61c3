//! Human-in-the-loop approvals in a history: which call each decision decides, and where each
//! call's approval stands.
//!
//! A call that needs approval carries its request ([`ToolCall::approval`]); a decision is a tool
//! message of its own ([`Message::approval`]) after the call's turn. This is the AI SDK 6 model
//! (`tool-approval-request` after the call, `tool-approval-response` in a later tool message,
//! read by its `generateText` as `collectToolApprovals` does), which a UIMessage's tool part
//! states (`approval-requested`, `approval-responded`, `output-denied`) map onto one to one.
//!
//! [`ToolCall::approval`]: crate::message::ToolCall::approval

use crate::error::{Error, ErrorCode, Result};
use crate::message::{ApprovalDecision, Message, Role, ToolStatus};
use rustc_hash::FxHashMap;
use std::borrow::Borrow;

/// Where a call's approval stands in a history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Asked, not decided: the call waits for a human.
    Pending,
    /// Approved: the call may run (it has not, while it has no result).
    Approved,
    /// Denied: the call never runs; its result is the denial.
    Denied,
}

/// One call's approval: its id, where it stands and, once decided, the reason given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallApproval<'a> {
    /// The approval's id.
    pub id: &'a str,
    /// Where it stands.
    pub standing: Standing,
    /// The reason the decision gave, if any.
    pub reason: Option<&'a str>,
}

/// Sets the call of every decision that does not name one, from the request with its approval
/// id in an earlier message (the nearest): an AI SDK `tool-approval-response` names only the
/// approval. A decision whose request the list does not hold keeps `None`.
pub fn link(messages: &mut [Message]) {
    if !messages.iter().any(|m| m.approval.as_ref().is_some_and(|d| d.tool_call_id.is_none())) {
        return;
    }
    // Read first, then written: (message index, call id) of each decision to link.
    let mut found: Vec<(usize, String)> = Vec::new();
    let mut latest: FxHashMap<&str, usize> = FxHashMap::default(); // approval id → its call's message
    for (i, m) in messages.iter().enumerate() {
        for c in &m.tool_calls {
            if let Some(r) = &c.approval {
                latest.insert(r.id.as_str(), i);
            }
        }
        let Some(d) = m.approval.as_ref().filter(|d| d.tool_call_id.is_none()) else { continue };
        let call = latest
            .get(d.id.as_str())
            .and_then(|&at| messages.get(at))
            .and_then(|a| a.tool_calls.iter().find(|c| c.approval.as_ref().is_some_and(|r| r.id == d.id)));
        if let Some(c) = call {
            found.push((i, c.id.clone()));
        }
    }
    for (i, call) in found {
        if let Some(d) = messages.get_mut(i).and_then(|m| m.approval.as_mut()) {
            d.tool_call_id = Some(call);
        }
    }
}

/// Where an approval was asked, and its decision once one came.
struct Asked<'a> {
    /// The approval id.
    id: &'a str,
    /// (message index, index among its valid calls) of the call.
    at: (usize, usize),
    /// The call's id.
    call: &'a str,
    /// The first decision, if any.
    decision: Option<&'a ApprovalDecision>,
}

/// The approvals of a history, walked in order: each request as its call comes, each decision as
/// it comes. One reading for [`standings`] (which passes over what does not fit) and [`check`]
/// (which refuses it).
#[derive(Default)]
struct Walk<'a> {
    asked: Vec<Asked<'a>>,
    /// Where in `asked` each approval id is, and each call id's approval.
    by_id: FxHashMap<&'a str, usize>,
    by_call: FxHashMap<&'a str, usize>,
}

impl<'a> Walk<'a> {
    /// Takes the requests of message `i`.
    fn ask(&mut self, i: usize, m: &'a Message) {
        for (k, c) in m.tool_calls.iter().enumerate() {
            if let Some(r) = &c.approval {
                let n = self.asked.len();
                self.asked.push(Asked { id: r.id.as_str(), at: (i, k), call: c.id.as_str(), decision: None });
                self.by_id.insert(r.id.as_str(), n);
                self.by_call.insert(c.id.as_str(), n);
            }
        }
    }

    /// Takes a decision: it must decide an approval asked before it, for the call it names (if
    /// it names one), not yet decided. `UNKNOWN_TOOL_CALL` or `INVALID_TRANSITION` otherwise.
    fn decide(&mut self, d: &'a ApprovalDecision) -> Result<()> {
        let aid = d.id.as_str();
        let refuse = |code, message: String| Err(Error::new(code, message).field("approval"));
        let Some(asked) = self.by_id.get(aid).copied().and_then(|n| self.asked.get_mut(n)) else {
            return refuse(
                ErrorCode::UnknownToolCall,
                format!("approval decision '{aid}' decides no approval an earlier tool call asked for"),
            );
        };
        if let Some(named) = d.tool_call_id.as_deref().filter(|c| *c != asked.call) {
            let call = asked.call;
            return refuse(
                ErrorCode::UnknownToolCall,
                format!(
                    "approval decision '{aid}' names call '{named}', but approval '{aid}' was asked for call '{call}'"
                ),
            );
        }
        if asked.decision.is_some() {
            let call = asked.call;
            return refuse(
                ErrorCode::InvalidTransition,
                format!("approval '{aid}' (call '{call}') is already decided; a decision is final"),
            );
        }
        asked.decision = Some(d);
        Ok(())
    }

    /// The decision so far on the approval of call `call`: `None` when it has no approval,
    /// `Some(None)` while pending.
    fn decided(&self, call: &str) -> Option<Option<bool>> {
        let asked = self.by_call.get(call).and_then(|&n| self.asked.get(n))?;
        Some(asked.decision.map(|d| d.approved))
    }
}

fn has_requests<M: Borrow<Message>>(messages: &[M]) -> bool {
    messages.iter().any(|m| m.borrow().tool_calls.iter().any(|c| c.approval.is_some()))
}

/// The approval of every call that has one, by (message index, call index among its valid
/// calls): pending until a later decision names its approval; the first such decision decides
/// it (one that does not fit, [`check`] refuses; here it changes nothing).
pub fn standings<'a, M: Borrow<Message>>(messages: &'a [M]) -> Vec<((usize, usize), CallApproval<'a>)> {
    if !has_requests(messages) {
        return Vec::new();
    }
    let mut walk = Walk::default();
    for (i, m) in messages.iter().enumerate() {
        let m = m.borrow();
        walk.ask(i, m);
        if let (Role::Tool, Some(d)) = (m.role, &m.approval) {
            let _ = walk.decide(d);
        }
    }
    walk.asked
        .into_iter()
        .map(|a| {
            let standing = match a.decision {
                None => Standing::Pending,
                Some(d) if d.approved => Standing::Approved,
                Some(_) => Standing::Denied,
            };
            (a.at, CallApproval { id: a.id, standing, reason: a.decision.and_then(|d| d.reason.as_deref()) })
        })
        .collect()
}

/// The approvals a history holds, in order, as a store takes them: a decision decides an
/// approval an earlier call asked for (`UNKNOWN_TOOL_CALL` otherwise, or when it names another
/// call), once (`INVALID_TRANSITION` for a second decision); a successful result needs its
/// call's approval approved (`APPROVAL_PENDING` before a decision, `APPROVAL_REJECTED` after a
/// denial). An error result is always taken: a denial, or a notice that the approval was never
/// given. O(n).
pub fn check<M: Borrow<Message>>(messages: &[M]) -> Result<()> {
    let mut walk = Walk::default();
    for (i, m) in messages.iter().enumerate() {
        let m = m.borrow();
        walk.ask(i, m);
        if m.role != Role::Tool {
            continue;
        }
        if let Some(d) = &m.approval {
            walk.decide(d)?;
            continue;
        }
        let Some(call) = m.tool_call_id.as_deref() else { continue };
        if m.status == Some(ToolStatus::Error) {
            continue;
        }
        let refuse = |code, message: String| Err(Error::new(code, message).field("tool_call_id"));
        match walk.decided(call) {
            Some(None) => {
                return refuse(
                    ErrorCode::ApprovalPending,
                    format!("call '{call}' waits for its approval; record the decision before its result"),
                )
            }
            Some(Some(false)) => {
                return refuse(
                    ErrorCode::ApprovalRejected,
                    format!("call '{call}' was denied; only an error result (the denial) may answer it"),
                )
            }
            _ => {}
        }
    }
    Ok(())
}
