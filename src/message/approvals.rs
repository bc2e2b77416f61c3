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

use crate::message::{Message, Role};
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
    let mut requests: FxHashMap<String, String> = FxHashMap::default();
    for m in messages.iter_mut() {
        for c in &m.tool_calls {
            if let Some(r) = &c.approval {
                requests.insert(r.id.clone(), c.id.clone());
            }
        }
        if let Some(d) = m.approval.as_mut().filter(|d| d.tool_call_id.is_none()) {
            d.tool_call_id = requests.get(&d.id).cloned();
        }
    }
}

/// The approval of every call that has one, by (message index, call index among its valid
/// calls): pending until a later decision names its approval; the first such decision decides
/// it (a second is refused where it is written: the store; in a history it changes nothing).
pub fn standings<'a, M: Borrow<Message>>(messages: &'a [M]) -> FxHashMap<(usize, usize), CallApproval<'a>> {
    let mut out = FxHashMap::default();
    if !messages.iter().any(|m| m.borrow().tool_calls.iter().any(|c| c.approval.is_some())) {
        return out;
    }
    // Open requests by approval id: where the call is.
    let mut open: FxHashMap<&str, (usize, usize)> = FxHashMap::default();
    for (i, m) in messages.iter().enumerate() {
        let m = m.borrow();
        for (k, c) in m.tool_calls.iter().enumerate() {
            if let Some(r) = &c.approval {
                open.insert(r.id.as_str(), (i, k));
                out.insert((i, k), CallApproval { id: r.id.as_str(), standing: Standing::Pending, reason: None });
            }
        }
        if let (Role::Tool, Some(d)) = (m.role, &m.approval) {
            let Some(at) = open.get(d.id.as_str()).copied() else { continue };
            let call_matches = messages
                .get(at.0)
                .and_then(|a| a.borrow().tool_calls.get(at.1))
                .is_some_and(|c| d.tool_call_id.as_deref().is_none_or(|id| id == c.id));
            if call_matches {
                open.remove(d.id.as_str());
                if let Some(a) = out.get_mut(&at) {
                    a.standing = if d.approved { Standing::Approved } else { Standing::Denied };
                    a.reason = d.reason.as_deref();
                }
            }
        }
    }
    out
}
