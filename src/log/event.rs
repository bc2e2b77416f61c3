//! The event: what one applied command logs (DESIGN §4), its JSON shape and what its hash covers.

use super::{canonical, Chain};
use crate::message::Role;
use crate::state::channel;
use crate::state::{MessageOp, Write};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// A map of channel names to JSON values beside an event's payload (its salts, its redacted
/// writes' commitments): in JSON an object, absent when empty. Almost always empty, and then one
/// word: a serde_json `Map` (an `IndexMap`) is twelve, and 10,000 held events carried two of them
/// each (issue 17: 216 B per held message, with the log's spare capacity).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SideMap(Option<Box<Map<String, Value>>>);

impl SideMap {
    /// No entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The entries, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().flat_map(|m| m.iter())
    }

    /// The channel names, in insertion order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.iter().map(|(k, _)| k)
    }

    /// Whether `channel` has an entry.
    pub fn contains_key(&self, channel: &str) -> bool {
        self.0.as_ref().is_some_and(|m| m.contains_key(channel))
    }

    /// The entry of `channel`.
    pub fn get(&self, channel: &str) -> Option<&Value> {
        self.0.as_ref().and_then(|m| m.get(channel))
    }

    /// Sets the entry of `channel`, returning the one it replaces.
    pub fn insert(&mut self, channel: String, value: Value) -> Option<Value> {
        self.0.get_or_insert_with(Default::default).insert(channel, value)
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.0 = None;
    }

    /// No entries (a `const`, for statics).
    pub(crate) const EMPTY: SideMap = SideMap(None);

    /// [`SideMap::is_empty`] for a field holding a reference.
    fn is_empty_ref(m: &&SideMap) -> bool {
        m.is_empty()
    }
}

impl std::ops::Index<&str> for SideMap {
    type Output = Value;
    /// The entry of `channel`; `Value::Null` when there is none (as a serde_json `Map` indexes).
    fn index(&self, channel: &str) -> &Value {
        const NULL: Value = Value::Null;
        self.get(channel).unwrap_or(&NULL)
    }
}

impl Serialize for SideMap {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match &self.0 {
            Some(m) => m.serialize(s),
            None => Map::new().serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for SideMap {
    /// An object; `{}` reads as empty, so an event reads back equal to itself written.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let m = Map::<String, Value>::deserialize(d)?;
        Ok(SideMap((!m.is_empty()).then(|| Box::new(m))))
    }
}

/// What an event records (seed 001 types), derived from the command's update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "snake_case")]
pub enum EventType {
    /// A user (or system) message.
    UserInput,
    /// An assistant message without tool calls.
    ModelDecision,
    /// An assistant message that calls tools.
    ToolCall,
    /// A tool result.
    ToolResult,
    /// Control passed to another agent.
    Handoff,
    /// A new approval (pending).
    ApprovalRequest,
    /// An approval decided.
    ApprovalResult,
    /// Any other change of state.
    StatePatch,
    /// A change of the async task ledger.
    TaskEvent,
    /// The run completed.
    FinalOutput,
    /// The run failed, or an error was recorded in `last_error`.
    Error,
}

/// One applied command (the seed-001 envelope plus the hash chain), as it is read and written
/// (its JSON is written by [`Shape`]). In TS: `StoreEvent`. A store holds its events more
/// compactly ([`super::held`]) and makes these when they are asked for.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify), tsify(rename = "StoreEvent"))]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// `{run_id}:{sequence}`.
    pub event_id: String,
    /// The store's run id.
    pub run_id: String,
    /// 1-based position in the run's log; equals the store's version after the command.
    pub sequence: u64,
    /// What it records.
    #[serde(rename = "type")]
    pub kind: EventType,
    /// The command's author.
    pub author: String,
    /// The update as reduced: `{channel: value}`, messages as canonical ops with their ids.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>"))]
    pub payload: Map<String, Value>,
    /// Milliseconds since the Unix epoch, from the store's clock.
    pub created_at: u64,
    /// Ties the events of one request together; a tool result's defaults to its tool call id
    /// (not for a private messages channel's results). `null` when none.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string | null"))]
    pub correlation_id: Option<String>,
    /// The event that caused this one; a tool result's defaults to the event of its tool call.
    /// `null` when none.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "string | null"))]
    pub causation_id: Option<String>,
    /// The previous event's `hash` ([`GENESIS_HASH`] for the first).
    pub prev_hash: String,
    /// SHA-256 (lowercase hex) of the canonical encoding of every other field but `redacted`
    /// (HMAC-SHA-256 under the store's `chainKey` when it has one).
    pub hash: String,
    /// True for a command the store issued itself (`repair`), which is exempt from the
    /// run-ended, deadline and approval rules. Absent (false) otherwise; hashed only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub system: bool,
    /// The salt of each private channel's write, `{channel: 32 hex digits}` (random, from the
    /// platform's `crypto.getRandomValues`): the hash covers such a write only through its
    /// commitment, SHA-256 of the salt and the value's canonical encoding, so an event can leave
    /// the machine without its private values ([`Event::redacted`]) and still be checked, while
    /// its hash reveals nothing a guess could confirm. Never leaves the store's own log. Absent
    /// (empty) for an event with no private write, or written before salts (or without an
    /// entropy source: the Rust API without [`crate::state::Store::set_entropy`]).
    ///
    /// This and [`Event::redacted`] are almost always empty: they are [`SideMap`]s, which take a
    /// quarter of the room of a JSON object in every event held.
    #[serde(default, skip_serializing_if = "SideMap::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, string>", optional))]
    pub salted: SideMap,
    /// Only on an event prepared for transport (`store.transportEvents()`): each private channel
    /// whose write was removed from `payload`, with the write's commitment (or `null` for a write
    /// made without a salt, whose hash a follower cannot check). A follower recomputes the hash
    /// from the commitments; a store rebuilt from a log refuses such an event. Absent otherwise.
    #[serde(default, skip_serializing_if = "SideMap::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, string | null>", optional))]
    pub redacted: SideMap,
}

impl Event {
    /// The payload as hashed: each salted write (and each redacted one) as its commitment
    /// `{"$commitment": hex}`. `None` when a redacted write has no commitment.
    fn hashed_payload(&self) -> Option<std::borrow::Cow<'_, Map<String, Value>>> {
        if self.salted.is_empty() && self.redacted.is_empty() {
            return Some(std::borrow::Cow::Borrowed(&self.payload));
        }
        let mut p = self.payload.clone();
        for (channel, salt) in self.salted.iter() {
            if let (Some(v), Some(salt)) = (p.get_mut(channel), salt.as_str()) {
                *v = commitment_value(commitment(salt, v));
            }
        }
        for (channel, c) in self.redacted.iter() {
            p.insert(channel.clone(), commitment_value(c.as_str()?.to_string()));
        }
        Some(std::borrow::Cow::Owned(p))
    }

    /// The hash this event should carry under `chain`: its digest of the canonical encoding of
    /// all its fields but `hash`, `salted` and `redacted`, each private write as its commitment
    /// ([`Event::salted`]). `None` for [`Chain::Opaque`], or a redacted write without one.
    pub fn compute_hash(&self, chain: &Chain) -> Option<String> {
        let payload = self.hashed_payload()?;
        let mut out = Vec::with_capacity(256);
        let fields = Hashed {
            author: &self.author,
            causation_id: self.causation_id.as_deref(),
            correlation_id: self.correlation_id.as_deref(),
            created_at: self.created_at,
            event_id: &self.event_id,
            prev_hash: &self.prev_hash,
            run_id: &self.run_id,
            sequence: self.sequence,
            system: self.system,
            kind: self.kind,
        };
        fields.write(&mut out, |out| {
            canonical::write_map(&payload, out);
            Ok::<(), std::convert::Infallible>(())
        });
        chain.digest(&out)
    }
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        Shape {
            event_id: &self.event_id,
            run_id: &self.run_id,
            sequence: self.sequence,
            kind: self.kind,
            author: &self.author,
            payload: &self.payload,
            created_at: self.created_at,
            correlation_id: self.correlation_id.as_deref(),
            causation_id: self.causation_id.as_deref(),
            prev_hash: &self.prev_hash,
            hash: &self.hash,
            system: self.system,
            salted: &self.salted,
            redacted: &self.redacted,
        }
        .serialize(s)
    }
}

/// The JSON shape of an event, written once: [`Event`] serialises through it, and so does an
/// event a store holds ([`super::held`], its payload and hashes written from what it keeps).
/// Keys in this order; `system` only when true, `salted` and `redacted` only when not empty.
#[derive(Serialize)]
pub(crate) struct Shape<'a, I, P, H> {
    pub(crate) event_id: I,
    pub(crate) run_id: &'a str,
    pub(crate) sequence: u64,
    #[serde(rename = "type")]
    pub(crate) kind: EventType,
    pub(crate) author: &'a str,
    pub(crate) payload: P,
    pub(crate) created_at: u64,
    pub(crate) correlation_id: Option<&'a str>,
    pub(crate) causation_id: Option<&'a str>,
    pub(crate) prev_hash: H,
    pub(crate) hash: H,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) system: bool,
    #[serde(skip_serializing_if = "SideMap::is_empty_ref")]
    pub(crate) salted: &'a SideMap,
    #[serde(skip_serializing_if = "SideMap::is_empty_ref")]
    pub(crate) redacted: &'a SideMap,
}

/// What an event's hash covers, written once: every field but `hash`, `salted` and `redacted`,
/// the payload written by the caller ([`Hashed::write`]). `event_id` and `prev_hash` are
/// anything that serialises as a string.
pub(crate) struct Hashed<'a, I, H> {
    pub(crate) author: &'a str,
    pub(crate) causation_id: Option<&'a str>,
    pub(crate) correlation_id: Option<&'a str>,
    pub(crate) created_at: u64,
    pub(crate) event_id: I,
    pub(crate) prev_hash: H,
    pub(crate) run_id: &'a str,
    pub(crate) sequence: u64,
    pub(crate) system: bool,
    pub(crate) kind: EventType,
}

impl<I: Serialize, H: Serialize> Hashed<'_, I, H> {
    /// Appends the canonical encoding of the event — keys in sorted order, as
    /// [`canonical::write`] orders them — with its payload written by `payload` (canonically);
    /// fails only when `payload` does.
    pub(crate) fn write<E>(
        &self,
        out: &mut Vec<u8>,
        payload: impl FnOnce(&mut Vec<u8>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        // Strings, numbers and null always encode: their results are ignored.
        out.extend_from_slice(b"{\"author\":");
        canonical::write_str(self.author, out);
        out.extend_from_slice(b",\"causation_id\":");
        let _ = canonical::to_writer(&self.causation_id, out);
        out.extend_from_slice(b",\"correlation_id\":");
        let _ = canonical::to_writer(&self.correlation_id, out);
        out.extend_from_slice(b",\"created_at\":");
        let _ = canonical::to_writer(&self.created_at, out);
        out.extend_from_slice(b",\"event_id\":");
        let _ = canonical::to_writer(&self.event_id, out);
        out.extend_from_slice(b",\"payload\":");
        payload(out)?;
        out.extend_from_slice(b",\"prev_hash\":");
        let _ = canonical::to_writer(&self.prev_hash, out);
        out.extend_from_slice(b",\"run_id\":");
        canonical::write_str(self.run_id, out);
        out.extend_from_slice(b",\"sequence\":");
        let _ = canonical::to_writer(&self.sequence, out);
        if self.system {
            out.extend_from_slice(b",\"system\":true");
        }
        out.extend_from_slice(b",\"type\":");
        canonical::write_str(self.kind.as_str(), out);
        out.push(b'}');
        Ok(())
    }
}

/// The commitment to a private write: lowercase hex SHA-256 of the salt, a newline, and the
/// value's canonical encoding.
pub fn commitment(salt: &str, value: &Value) -> String {
    let mut bytes = Vec::with_capacity(salt.len() + 64);
    bytes.extend_from_slice(salt.as_bytes());
    bytes.push(b'\n');
    canonical::write(value, &mut bytes);
    canonical::sha256_hex(&bytes)
}

/// A commitment as it stands in a hashed payload: `{"$commitment": hex}`.
pub(crate) fn commitment_value(c: String) -> Value {
    let mut o = Map::new();
    o.insert("$commitment".into(), Value::String(c));
    Value::Object(o)
}

impl EventType {
    /// The wire name (`"tool_result"`).
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::UserInput => "user_input",
            EventType::ModelDecision => "model_decision",
            EventType::ToolCall => "tool_call",
            EventType::ToolResult => "tool_result",
            EventType::Handoff => "handoff",
            EventType::ApprovalRequest => "approval_request",
            EventType::ApprovalResult => "approval_result",
            EventType::StatePatch => "state_patch",
            EventType::TaskEvent => "task_event",
            EventType::FinalOutput => "final_output",
            EventType::Error => "error",
        }
    }

    /// The event type of a command's writes (channel name, write): the first specific kind found
    /// — a tool result, a tool call, a model decision or user input in the messages; an approval
    /// requested or decided; a task change; the run completing or failing; an error recorded —
    /// else `state_patch`.
    pub fn of_writes<'a>(writes: impl IntoIterator<Item = (&'a str, &'a Write)>) -> EventType {
        let mut kind = EventType::StatePatch;
        for (channel, write) in writes {
            let k = match (channel, write) {
                (_, Write::Messages(ops)) => {
                    ops.iter().filter_map(MessageOp::message).fold(EventType::StatePatch, |k, m| {
                        let this = match m.role {
                            Role::Tool => EventType::ToolResult,
                            Role::Assistant if m.call_ids().next().is_some() => EventType::ToolCall,
                            Role::Assistant => EventType::ModelDecision,
                            Role::User | Role::System => EventType::UserInput,
                        };
                        if k.rank() >= this.rank() {
                            k
                        } else {
                            this
                        }
                    })
                }
                (channel::APPROVALS, Write::Json(Value::Object(o))) => {
                    if o.values().any(|a| a.get("status").and_then(Value::as_str).is_some_and(|s| s != "pending")) {
                        EventType::ApprovalResult
                    } else {
                        EventType::ApprovalRequest
                    }
                }
                (channel::ASYNC_TASKS, _) => EventType::TaskEvent,
                (channel::ACTIVE_AGENT, _) => EventType::Handoff,
                (channel::RUN, Write::Json(v)) => match v.get("status").and_then(Value::as_str) {
                    Some("completed") => EventType::FinalOutput,
                    Some("failed") => EventType::Error,
                    _ => EventType::StatePatch,
                },
                (channel::LAST_ERROR, Write::Json(v)) if !v.is_null() => EventType::Error,
                _ => EventType::StatePatch,
            };
            // The run completing or failing, or a handoff, is the event's headline; otherwise the first kind found.
            if kind == EventType::StatePatch
                || matches!(k, EventType::FinalOutput | EventType::Error | EventType::Handoff)
            {
                kind = k;
            }
        }
        kind
    }

    /// Precedence among message kinds of one update: a result outranks a call, which outranks
    /// a model answer, which outranks user input.
    fn rank(self) -> u8 {
        match self {
            EventType::ToolResult => 4,
            EventType::ToolCall => 3,
            EventType::ModelDecision => 2,
            EventType::UserInput => 1,
            _ => 0,
        }
    }
}
/// True when `a` has every field of `b` but the chain (`prev_hash`, verified before, and `hash`).
pub(crate) fn same_event(a: &Event, b: &Event) -> bool {
    a.event_id == b.event_id
        && a.run_id == b.run_id
        && a.sequence == b.sequence
        && a.kind == b.kind
        && a.author == b.author
        && a.created_at == b.created_at
        && a.correlation_id == b.correlation_id
        && a.causation_id == b.causation_id
        && a.system == b.system
        && a.salted == b.salted
        && a.payload == b.payload
}
