//! Approvals as the AI SDK writes them (docs/formats.md, "Approvals"): the ModelMessage parts
//! `tool-approval-request` `{approvalId, toolCallId}` and `tool-approval-response` `{approvalId,
//! approved, reason?}`, and a UIMessage tool part's `approval` `{id, approved?, reason?}`, read
//! into the canonical request ([`ApprovalRequest`], on its call) and decision
//! ([`ApprovalDecision`], a message of its own) and written back.

use super::util::{as_obj, extra_of, kind, opt_str};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{val, Put};
use crate::message::{ApprovalDecision, ApprovalRequest, Message, ToolCall};
use serde_json::{Map, Value};

fn invalid(message: String) -> Error {
    Error::new(ErrorCode::InvalidMessage, message).field("parts")
}

/// A `tool-approval-request` part `{approvalId, toolCallId}` put on the call it names, which must
/// be one of this message's (the AI SDK writes it right after the call, in the same message).
pub(super) fn put_request(m: &mut Message, part: &Map<String, Value>) -> Result<()> {
    let id = opt_str(part, "approvalId")?.filter(|s| !s.is_empty()).ok_or_else(|| {
        Error::new(ErrorCode::InvalidMessage, "a tool-approval-request part needs a non-empty `approvalId`")
            .field("content")
    })?;
    let call_id = opt_str(part, "toolCallId")?.unwrap_or_default();
    let Some(call) = m.tool_calls.iter_mut().find(|c| c.id == call_id) else {
        return Err(Error::new(
            ErrorCode::UnknownToolCall,
            format!("a tool-approval-request (approval {id:?}) names call {call_id:?}, which this assistant message does not make; the AI SDK writes the request right after its call"),
        )
        .field("content"));
    };
    if let Some(first) = &call.approval {
        return Err(Error::new(
            ErrorCode::InvalidMessage,
            format!("call {call_id:?} has two tool-approval-request parts (approvals {:?} and {id:?}); a call waits for one approval", first.id),
        )
        .field("content"));
    }
    call.approval = Some(ApprovalRequest { id, extra: extra_of(part, &["type", "approvalId", "toolCallId"]) });
    Ok(())
}

/// A `tool-approval-response` part `{approvalId, approved, reason?}` as a decision; the call it
/// decides is found later, from its request ([`crate::message::approvals::link`]).
pub(super) fn decode_decision(part: &Map<String, Value>) -> Result<ApprovalDecision> {
    let id = opt_str(part, "approvalId")?.filter(|s| !s.is_empty()).ok_or_else(|| {
        Error::new(ErrorCode::InvalidMessage, "a tool-approval-response part needs a non-empty `approvalId`")
            .field("content")
    })?;
    let approved = match part.get("approved") {
        Some(Value::Bool(b)) => *b,
        other => {
            return Err(Error::new(
                ErrorCode::InvalidMessage,
                format!(
                    "a tool-approval-response part needs `approved`, a boolean; got {}",
                    other.map_or("nothing", kind)
                ),
            )
            .field("content"))
        }
    };
    Ok(ApprovalDecision {
        id,
        tool_call_id: None,
        approved,
        reason: opt_str(part, "reason")?,
        extra: extra_of(part, &["type", "approvalId", "approved", "reason"]),
    })
}

/// A decision as a `tool-approval-response` part; its unmodelled fields go back with `own`.
pub(super) fn decision_part(d: &ApprovalDecision, own: bool) -> Value {
    let mut p = Map::new();
    p.put("type", Value::from("tool-approval-response"));
    p.put("approvalId", val(&d.id));
    p.put("approved", Value::Bool(d.approved));
    super::util::put_opt(&mut p, "reason", d.reason.as_deref());
    if own {
        for (k, v) in &d.extra {
            p.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Value::Object(p)
}

/// Puts each call's approval request right after the call's `tool-call` part among `parts`,
/// where the AI SDK writes it.
pub(super) fn put_requests(parts: &mut Vec<Value>, calls: &[ToolCall], own: bool) {
    for c in calls {
        let Some(r) = &c.approval else { continue };
        let at = parts.iter().position(|p| {
            p.get("type").and_then(Value::as_str) == Some("tool-call")
                && p.get("toolCallId").and_then(Value::as_str) == Some(c.id.as_str())
        });
        if let Some(at) = at {
            parts.insert(at + 1, request_part(c, r, own));
        }
    }
}

/// A call's request as a `tool-approval-request` part; its unmodelled fields go back with `own`.
fn request_part(call: &ToolCall, r: &ApprovalRequest, own: bool) -> Value {
    let mut p = Map::new();
    p.put("type", Value::from("tool-approval-request"));
    p.put("approvalId", val(&r.id));
    p.put("toolCallId", val(&call.id));
    if own {
        for (k, v) in &r.extra {
            p.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Value::Object(p)
}

/// A tool part's `approval` as the call's request and, once responded, the decision: `{id}` in
/// `approval-requested`; `{id, approved, reason?}` in `approval-responded`, `output-denied` (not
/// approved) and an answered state (approved). The states that need one refuse a part without
/// it (`INVALID_MESSAGE`), as the AI SDK's schema does.
pub(super) fn decode_approval(
    part: &Map<String, Value>,
    state: &str,
    call_id: &str,
) -> Result<(Option<ApprovalRequest>, Option<ApprovalDecision>)> {
    let approval = match part.get("approval") {
        None | Some(Value::Null) if matches!(state, "approval-requested" | "approval-responded") => {
            return Err(invalid(format!(
                "a UIMessage tool part in state {state:?} needs `approval`, an object with an `id`"
            )))
        }
        None | Some(Value::Null) => return Ok((None, None)),
        Some(a) => as_obj(a, "a tool part's `approval`")?,
    };
    let id = match approval.get("id") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        other => {
            return Err(invalid(format!(
                "a tool part's `approval` needs a non-empty string `id`, got {}",
                other.map_or("nothing", kind)
            )))
        }
    };
    let approved = match approval.get("approved") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            return Err(invalid(format!("a tool part's `approval.approved` must be a boolean, got {}", kind(other))))
        }
    };
    let reason = match approval.get("reason") {
        None | Some(Value::Null) => None,
        Some(Value::String(r)) => Some(r.clone()),
        Some(other) => {
            return Err(invalid(format!("a tool part's `approval.reason` must be a string, got {}", kind(other))))
        }
    };
    match (state, approved) {
        ("approval-responded", None) => {
            return Err(invalid("a UIMessage tool part in state \"approval-responded\" needs `approval.approved`, a boolean".into()))
        }
        ("approval-requested", Some(_)) => {
            return Err(invalid("a UIMessage tool part in state \"approval-requested\" has a decided `approval` (approved is set): its state is \"approval-responded\"".into()))
        }
        ("output-denied", Some(true)) => {
            return Err(invalid("a UIMessage tool part in state \"output-denied\" has an approved `approval`".into()))
        }
        _ => {}
    }
    let request = ApprovalRequest { id: id.clone(), extra: extra_of(approval, &["id", "approved", "reason"]) };
    let decision = approved.map(|approved| ApprovalDecision {
        id,
        tool_call_id: Some(call_id.to_string()),
        approved,
        reason,
        extra: Map::new(),
    });
    Ok((Some(request), decision))
}
