//! The ops of a `messages` update (DESIGN §3): a message in any format, `{remove: id}`,
//! `{removeAll: true}`, `{replace: message}`, `{insertAfter: id, message}`, and LangChain's
//! `RemoveMessage`, decoded once into [`MessageOp`]s that [`super::messages`] applies.

use super::schema::channel;
use crate::error::{Error, ErrorCode, Result};
use crate::message::formats::decode_messages;
use crate::message::Message;
use serde::{Deserialize, Serialize};

use serde_json::Value;
use std::rc::Rc;

/// LangGraph's `REMOVE_ALL_MESSAGES` sentinel id (`__remove_all__`).
pub const REMOVE_ALL: &str = "__remove_all__";

/// One operation of a messages update. In JS: a message in any format, `{remove: id}`,
/// `{removeAll: true}`, `{replace: message}` or `{insertAfter: id, message}`; LangChain's
/// `RemoveMessage` dict (`{type: "remove", id}`, id `__remove_all__` = remove all) is accepted too.
///
/// A written message is held behind an [`Rc`]: the messages channel and the event that logged
/// the op share it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MessageOp {
    /// Remove the message with this id at the end of the update.
    Remove {
        /// The id to remove.
        remove: String,
    },
    /// Drop every message before this op.
    RemoveAll {
        /// Always `true`.
        #[serde(rename = "removeAll")]
        remove_all: bool,
    },
    /// Replace the message with this id in place; never appends.
    Replace {
        /// The new message; its id names the one to replace.
        replace: Rc<Message>,
    },
    /// Insert a message right after the message `insert_after` (repair places results this way).
    InsertAfter {
        /// The id of the message to insert after.
        #[serde(rename = "insertAfter")]
        insert_after: String,
        /// The message to insert (a new id).
        message: Rc<Message>,
    },
    /// Append, or replace in place when the id exists.
    Put(Rc<Message>),
}

impl MessageOp {
    /// The message this op writes, if any.
    pub fn message(&self) -> Option<&Message> {
        match self {
            MessageOp::Put(m) | MessageOp::Replace { replace: m } | MessageOp::InsertAfter { message: m, .. } => {
                Some(m)
            }
            _ => None,
        }
    }

    /// Reads ops as an event payload stores them (canonical messages, op objects). Faster and
    /// clearer in its errors than serde's untagged matching.
    pub fn list_from_canonical(v: &Value) -> Result<Vec<MessageOp>> {
        let items =
            v.as_array().ok_or_else(|| Error::new(ErrorCode::InvalidMessage, "a logged messages write is a list"))?;
        items.iter().enumerate().map(|(i, item)| MessageOp::from_canonical(item).map_err(|e| e.at(i))).collect()
    }

    /// One op as an event payload stores it (see [`MessageOp::list_from_canonical`]).
    pub(super) fn from_canonical(v: &Value) -> Result<MessageOp> {
        let message = |v: &Value| {
            Message::deserialize(v)
                .map(Rc::new)
                .map_err(|e| Error::new(ErrorCode::InvalidMessage, format!("not a canonical message: {e}")))
        };
        let id = |v: &Value| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| Error::new(ErrorCode::InvalidMessage, "an op names a message id"))
        };
        let obj = v.as_object().ok_or_else(|| Error::new(ErrorCode::InvalidMessage, "an op is an object"))?;
        Ok(if let Some(r) = obj.get("remove") {
            MessageOp::Remove { remove: id(r)? }
        } else if obj.contains_key("removeAll") {
            MessageOp::RemoveAll { remove_all: true }
        } else if let Some(m) = obj.get("replace") {
            MessageOp::Replace { replace: message(m)? }
        } else if let Some(a) = obj.get("insertAfter") {
            MessageOp::InsertAfter {
                insert_after: id(a)?,
                message: message(obj.get("message").unwrap_or(&Value::Null))?,
            }
        } else {
            MessageOp::Put(message(v)?)
        })
    }

    /// The message this op writes, to change (copied first if it is shared already).
    pub(super) fn message_mut(&mut self) -> Option<&mut Message> {
        match self {
            MessageOp::Put(m) | MessageOp::Replace { replace: m } | MessageOp::InsertAfter { message: m, .. } => {
                Some(Rc::make_mut(m))
            }
            _ => None,
        }
    }
}

/// Decodes a messages update from the caller: one item or a list; messages in any supported
/// format (decoded together, so Gemini results pair with their calls); op objects as above.
pub fn decode_ops<'a>(update: &'a Value) -> Result<Vec<MessageOp>> {
    let items: &[Value] = match update {
        Value::Array(a) => a,
        other => std::slice::from_ref(other),
    };
    enum Slot {
        Op(Box<MessageOp>),
        Message(usize),
        Replace(usize),
        InsertAfter(String, usize),
    }
    // Most updates are messages only (an append's hot path, issue 17 row 2): each is put, in the
    // order read, without the op bookkeeping below.
    if items.iter().all(|item| item.as_object().is_some_and(is_message)) {
        let decoded = decode_messages(items, None).map_err(|e| e.channel(channel::MESSAGES))?;
        return Ok(decoded.messages.into_iter().map(|m| MessageOp::Put(Rc::new(m))).collect());
    }
    let mut slots = Vec::with_capacity(items.len());
    let mut to_decode: Vec<&Value> = Vec::new();
    let mut origin: Vec<usize> = Vec::new();
    let mut queue = |v: &'a Value, i: usize| {
        to_decode.push(v);
        origin.push(i);
        to_decode.len() - 1
    };
    for (i, item) in items.iter().enumerate() {
        let bad = |m: &str| Error::new(ErrorCode::InvalidMessage, m.to_string()).at(i).channel(channel::MESSAGES);
        let obj = item.as_object().ok_or_else(|| bad("a messages update item is a message or an op object"))?;
        let slot = if is_message(obj) {
            Slot::Message(queue(item, i))
        } else if let Some(id) = obj.get("remove") {
            Slot::Op(Box::new(MessageOp::Remove {
                remove: id.as_str().ok_or_else(|| bad("remove takes a message id"))?.to_string(),
            }))
        } else if obj.contains_key("removeAll") {
            if obj.get("removeAll") != Some(&Value::Bool(true)) {
                return Err(bad("removeAll must be true"));
            }
            Slot::Op(Box::new(MessageOp::RemoveAll { remove_all: true }))
        } else if let Some(m) = obj.get("replace") {
            Slot::Replace(queue(m, i))
        } else if let Some(after) = obj.get("insertAfter") {
            let after = after.as_str().ok_or_else(|| bad("insertAfter takes a message id"))?.to_string();
            Slot::InsertAfter(after, queue(obj.get("message").ok_or_else(|| bad("insertAfter needs a message"))?, i))
        } else if let Some(id) = langchain_remove(obj) {
            Slot::Op(Box::new(if id == REMOVE_ALL {
                MessageOp::RemoveAll { remove_all: true }
            } else {
                MessageOp::Remove { remove: id }
            }))
        } else {
            Slot::Message(queue(item, i))
        };
        slots.push(slot);
    }
    let decoded = decode_messages(&to_decode, None).map_err(|e| {
        let at = e.index.and_then(|k| origin.get(k).copied());
        let e = Error { index: at, ..e };
        e.channel(channel::MESSAGES)
    })?;
    // Each queued value may decode into several messages (an Anthropic user turn with several
    // tool results); group them by queued value.
    let mut by_value: Vec<Vec<Message>> = vec![Vec::new(); to_decode.len()];
    for (m, src) in decoded.messages.into_iter().zip(decoded.source) {
        if let Some(group) = by_value.get_mut(src) {
            group.push(m);
        }
    }
    let mut ops = Vec::with_capacity(slots.len());
    let mut take = |k: usize| by_value.get_mut(k).map(std::mem::take).unwrap_or_default();
    for slot in slots {
        match slot {
            Slot::Op(op) => ops.push(*op),
            Slot::Message(k) => ops.extend(take(k).into_iter().map(|m| MessageOp::Put(Rc::new(m)))),
            Slot::Replace(k) => ops.extend(take(k).into_iter().map(|m| MessageOp::Replace { replace: Rc::new(m) })),
            Slot::InsertAfter(after, k) => {
                let mut anchor = after;
                for m in take(k) {
                    let next = m.id.clone();
                    ops.push(MessageOp::InsertAfter { insert_after: anchor.clone(), message: Rc::new(m) });
                    if let Some(next) = next {
                        anchor = next;
                    }
                }
            }
        }
    }
    Ok(ops)
}

/// Whether an update item is a message for certain: it has none of the keys an op (or
/// LangChain's RemoveMessage) has. One look at the keys instead of a lookup for each.
fn is_message(obj: &serde_json::Map<String, Value>) -> bool {
    !obj.keys().any(|k| matches!(k.as_str(), "remove" | "removeAll" | "replace" | "insertAfter" | "type" | "lc"))
}

/// The id of a LangChain `RemoveMessage`, as a dict (`{type: "remove", id}`) or serialized
/// (`{lc: 1, type: "constructor", id: [..., "RemoveMessage"], kwargs: {id}}`).
fn langchain_remove(obj: &serde_json::Map<String, Value>) -> Option<String> {
    if obj.get("type").and_then(Value::as_str) == Some("remove") {
        return obj.get("id").and_then(Value::as_str).map(str::to_string);
    }
    let is_lc_remove = obj.get("lc").is_some()
        && obj.get("id").and_then(Value::as_array).and_then(|p| p.last()).and_then(Value::as_str)
            == Some("RemoveMessage");
    if is_lc_remove {
        return obj.get("kwargs").and_then(|k| k.get("id")).and_then(Value::as_str).map(str::to_string);
    }
    None
}
