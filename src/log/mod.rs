//! The event log (DESIGN §4): one event per applied command, chained by SHA-256.
//!
//! Every applied command appends exactly one [`Event`] whose payload is the update as it was
//! reduced (message ids already assigned), so a replay yields the same state and the same ids.
//! `hash` is the SHA-256 — or, for a store given a `chainKey`, the HMAC-SHA-256 ([`Chain`]) — of
//! the canonical encoding ([`canonical`]) of every other field, `prev_hash` included, so changing, dropping, inserting or reordering an event breaks the chain
//! at that event ([`verify_log`]). Rejected commands leave no event.

pub mod canonical;
mod chain;
mod checkpoint;

pub use chain::{Chain, MIN_CHAIN_KEY_BYTES};
pub use checkpoint::{Checkpoint, Snapshot, CHECKPOINT_FORMAT, CHECKPOINT_FORMAT_VERSION, EXPORT_FORMAT};

use crate::error::{Error, ErrorCode, Result};
use crate::message::Role;
use crate::state::channel;
use crate::state::{MessageOp, Write};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// `prev_hash` of the first event of a run: 64 zeros.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

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

/// One applied command (the seed-001 envelope plus the hash chain). In TS: `StoreEvent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The writes of an event not sealed yet; the store turns them into `payload` when it seals
    /// (never serialised: every event that leaves the store is sealed).
    #[serde(skip)]
    pub(crate) pending: Option<Vec<(String, Write)>>,
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
        let opt = |o: &Option<String>| o.as_ref().map(|s| Value::String(s.clone())).unwrap_or(Value::Null);
        // Keys in sorted order, as canonical::write would order them.
        out.extend_from_slice(b"{\"author\":");
        canonical::write_str(&self.author, &mut out);
        out.extend_from_slice(b",\"causation_id\":");
        canonical::write(&opt(&self.causation_id), &mut out);
        out.extend_from_slice(b",\"correlation_id\":");
        canonical::write(&opt(&self.correlation_id), &mut out);
        out.extend_from_slice(b",\"created_at\":");
        out.extend_from_slice(self.created_at.to_string().as_bytes());
        out.extend_from_slice(b",\"event_id\":");
        canonical::write_str(&self.event_id, &mut out);
        out.extend_from_slice(b",\"payload\":");
        canonical::write_map(&payload, &mut out);
        out.extend_from_slice(b",\"prev_hash\":");
        canonical::write_str(&self.prev_hash, &mut out);
        out.extend_from_slice(b",\"run_id\":");
        canonical::write_str(&self.run_id, &mut out);
        out.extend_from_slice(b",\"sequence\":");
        out.extend_from_slice(self.sequence.to_string().as_bytes());
        if self.system {
            out.extend_from_slice(b",\"system\":true");
        }
        out.extend_from_slice(b",\"type\":");
        canonical::write_str(self.kind.as_str(), &mut out);
        out.push(b'}');
        chain.digest(&out)
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

fn commitment_value(c: String) -> Value {
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
    pub fn of_writes(writes: &[(String, Write)]) -> EventType {
        let mut kind = EventType::StatePatch;
        for (channel, write) in writes {
            let k = match (channel.as_str(), write) {
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

/// What is wrong at a broken link of a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "snake_case")]
pub enum BreakReason {
    /// The event's content does not match its hash (it was changed).
    Hash,
    /// It does not link to the event before it (the chain is cut).
    PrevHash,
    /// An event is missing, repeated or out of order before it.
    Sequence,
    /// Another run than the log's first event.
    RunId,
    /// An `event_id` that is not `{run_id}:{sequence}`.
    EventId,
    /// A salt for a channel the event does not write: a salt is covered by the hash only through
    /// the write it seals, so one beside no write would go unchecked.
    Salted,
    /// The entry is not an event at all.
    Unreadable,
    /// The event was prepared for transport (private writes removed): only a follower reads it.
    Redacted,
}

impl BreakReason {
    /// The name used in JS and in `details.field` (`"prev_hash"`).
    pub fn as_str(self) -> &'static str {
        match self {
            BreakReason::Hash => "hash",
            BreakReason::PrevHash => "prev_hash",
            BreakReason::Sequence => "sequence",
            BreakReason::RunId => "run_id",
            BreakReason::EventId => "event_id",
            BreakReason::Salted => "salted",
            BreakReason::Unreadable => "unreadable",
            BreakReason::Redacted => "redacted",
        }
    }
}

/// A break in a log found by [`verify_log`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct BrokenLink {
    /// Position of the first bad entry in the list given.
    pub index: usize,
    /// Its `sequence` as written (`null` for an entry that is not an event).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub sequence: Option<u64>,
    /// What is wrong.
    pub reason: BreakReason,
}

/// What `verifyLog` answers: `{ok: true}`, or `{ok: false, index, sequence, reason}` for the
/// first broken link.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(untagged)]
pub enum LogCheck {
    /// Every link holds.
    Intact {
        /// Always `true`.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "true"))]
        ok: bool,
    },
    /// The first broken link.
    Broken {
        /// Always `false`.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "false"))]
        ok: bool,
        /// Where and why.
        #[serde(flatten)]
        link: BrokenLink,
    },
}

/// Checks a log as it was read (see [`parse_jsonl`]): an entry that is not an event is a broken
/// link (`unreadable`), any other failure to read stays an error; then [`verify_log`] under
/// `chain` (a writer's log: a redacted event is a broken link).
pub fn check_log(read: Result<Vec<Event>>, anchor: (u64, &str), chain: &Chain) -> Result<LogCheck> {
    let broken = |link| LogCheck::Broken { ok: false, link };
    match read {
        Err(e) if e.code == ErrorCode::TamperedLog && e.index.is_some() => Ok(broken(BrokenLink {
            index: e.index.unwrap_or_default(),
            sequence: None,
            reason: BreakReason::Unreadable,
        })),
        Err(e) => Err(e),
        Ok(events) => Ok(match verify_log(&events, anchor, chain, false) {
            Ok(_) => LogCheck::Intact { ok: true },
            Err(link) => broken(link),
        }),
    }
}

/// Checks a log's chain: each event links to the previous one and follows it in sequence, the
/// first following `anchor` (`(sequence, hash)` of the event before it, `(0, GENESIS_HASH)` for a
/// whole log), and its hash matches its content under `chain`. A `follower` accepts events
/// redacted for transport, hashing each private write through its commitment (one without a
/// commitment, like everything on a [`Chain::Opaque`] chain, is checked by its links only);
/// anyone else refuses them (`redacted`). Returns how many hashes were recomputed, or the first
/// broken link.
pub fn verify_log(
    events: &[Event],
    anchor: (u64, &str),
    chain: &Chain,
    follower: bool,
) -> std::result::Result<usize, BrokenLink> {
    let (mut seq, mut prev) = (anchor.0, anchor.1.to_string());
    let mut hashed = 0;
    let run_id = events.first().map(|e| e.run_id.clone()).unwrap_or_default();
    for (index, e) in events.iter().enumerate() {
        let broken = |reason| BrokenLink { index, sequence: Some(e.sequence), reason };
        if e.run_id != run_id {
            return Err(broken(BreakReason::RunId));
        }
        if e.event_id != format!("{}:{}", e.run_id, e.sequence) {
            return Err(broken(BreakReason::EventId));
        }
        if e.salted.keys().any(|c| !e.payload.contains_key(c)) {
            return Err(broken(BreakReason::Salted));
        }
        if e.sequence != seq + 1 {
            return Err(broken(BreakReason::Sequence));
        }
        if e.prev_hash != prev {
            return Err(broken(BreakReason::PrevHash));
        }
        if !e.redacted.is_empty() && !follower {
            return Err(broken(BreakReason::Redacted));
        }
        // A redacted write is hashed through its commitment; one without a commitment (written
        // before salts) cannot be, and neither can anything on an opaque chain: links only.
        match e.compute_hash(chain) {
            Some(h) if h == e.hash => hashed += 1,
            Some(_) => return Err(broken(BreakReason::Hash)),
            None => {}
        }
        seq = e.sequence;
        prev = e.hash.clone();
    }
    Ok(hashed)
}

impl BrokenLink {
    /// As a `TAMPERED_LOG` error naming the event.
    pub fn into_error(self) -> Error {
        let what = match self.reason {
            BreakReason::Hash => {
                "its content does not match its hash (a log written with a chainKey verifies only with that key, and one written without only without)"
            }
            BreakReason::PrevHash => "it does not link to the event before it",
            BreakReason::Sequence => "an event is missing, repeated or out of order before it",
            BreakReason::RunId => "it belongs to another run",
            BreakReason::EventId => "its event_id is not {run_id}:{sequence}",
            BreakReason::Salted => {
                "it carries a salt for a channel it does not write (a salt is covered by the hash only through the write it seals)"
            }
            BreakReason::Unreadable => "it is not an event",
            BreakReason::Redacted => {
                "it was prepared for transport (private writes removed): only a follower (StateStore.follow) reads it; rebuild a store from its full log"
            }
        };
        let sequence = self.sequence.map_or_else(|| "unknown".to_string(), |s| s.to_string());
        Error::new(ErrorCode::TamperedLog, format!("event {} (sequence {sequence}) breaks the log: {what}", self.index))
            .at(self.index)
            .field(self.reason.as_str())
    }
}

/// Parses a log given as JSON Lines (one event per line; blank lines ignored).
/// Errors: `INVALID_JSON` for a JSON array (text starting with `[`: a format mistake, no line of
/// a log is an array); `TAMPERED_LOG` naming the first line that is not an event.
pub fn parse_jsonl(text: &str) -> Result<Vec<Event>> {
    if text.trim_start().starts_with('[') {
        return Err(Error::new(
            ErrorCode::InvalidJson,
            "the log's text starts with `[`, as a JSON array does; a log given as text is JSON Lines, one event object per line (as `eventsJsonl()` writes it): pass the array itself, or its events one per line",
        ));
    }
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str::<Event>(line).map_err(|e| {
                Error::new(ErrorCode::TamperedLog, format!("line {} of the log is not an event: {e}", i + 1)).at(i)
            })
        })
        .collect()
}

/// An event payload: each write by channel name, messages as canonical ops.
pub(crate) fn payload_of(writes: Vec<(String, Write)>) -> Map<String, Value> {
    writes
        .into_iter()
        .map(|(name, w)| {
            let v = match w {
                Write::Messages(ops) => serde_json::to_value(ops).unwrap_or(Value::Null),
                Write::Json(v) => v,
            };
            (name, v)
        })
        .collect()
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
