//! Tool-call units (DESIGN §6): an assistant message with its tool calls plus every result
//! answering them, or any other single message. The projector keeps or drops units whole and
//! compaction cuts only between them, so a call is never separated from its results.

use super::{Message, Role};
use std::borrow::Borrow;

/// Start index of the unit that ends at `end` (inclusive). A message that is not a tool result
/// is its own unit. A run of tool results belongs with the assistant message(s) that made their
/// calls, found by call id, so a unit is kept or dropped whole even when the results arrived
/// after other messages; results whose call is nowhere before them stand alone (repair drops them).
/// `body` holds the messages or shares them (a store's channel: `Rc<Message>`).
pub fn unit_start<M: Borrow<Message>>(body: &[M], end: usize) -> usize {
    if body.get(end).is_none_or(|m| m.borrow().role != Role::Tool) {
        return end;
    }
    let mut first = end;
    while first > 0 && body.get(first - 1).is_some_and(|m| m.borrow().role == Role::Tool) {
        first -= 1;
    }
    let mut start = first;
    for m in body.get(first..=end).unwrap_or_default() {
        let Some(call) = m.borrow().tool_call_id.as_deref() else { continue };
        if let Some(owner) = body
            .get(..first)
            .unwrap_or_default()
            .iter()
            .map(Borrow::borrow)
            .rposition(|a: &Message| a.role == Role::Assistant && a.call_ids().any(|c| c == call))
        {
            start = start.min(owner);
        }
    }
    start
}

/// The start of the unit that contains index `at`: if `at` is a tool result, or any result at or
/// after `at` answers a call made before `at`, move back to the earliest such call's assistant.
pub fn unit_boundary<M: Borrow<Message>>(list: &[M], at: usize) -> usize {
    let mut cut = at;
    loop {
        let mut moved = false;
        for m in list.get(cut..).unwrap_or_default() {
            let Some(call) = m.borrow().tool_call_id.as_deref() else { continue };
            if let Some(owner) = list
                .get(..cut)
                .unwrap_or_default()
                .iter()
                .map(Borrow::borrow)
                .rposition(|a: &Message| a.role == Role::Assistant && a.call_ids().any(|c| c == call))
            {
                cut = owner;
                moved = true;
                break;
            }
        }
        if !moved {
            return cut;
        }
    }
}
