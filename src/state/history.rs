//! The store's history (DESIGN §4): events by filter, replay, past views, checkpoints, restore,
//! and the calls a crash left without results. What comes in from, and goes out to, other
//! processes (ingest, transport, followers) is [`super::transport`].

use super::command::StoreOptions;
use super::message_ops::MessageOp;
use super::messages::MessagesChannel;
use super::schema::channel;
use super::schema::{default_schema, ChannelSpec, Visibility};
use super::store::{Access, Base, Decoded, Mode, Slot, Store, Write};
use crate::error::{Error, ErrorCode, Result};
use crate::log::{verify_log, Chain, Checkpoint, Event, EventType, CHECKPOINT_FORMAT, CHECKPOINT_FORMAT_VERSION};
use crate::message::Message;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// A tool call that has no result (after a crash or an interrupt), for repair to mark.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct DanglingCall {
    /// The call id.
    pub tool_call_id: String,
    /// The tool's name.
    pub name: String,
    /// The id of the assistant message that made the call.
    pub message_id: String,
}

/// Which events to list: `sequence > since`, `sequence <= until`, of type `type`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(default, deny_unknown_fields)]
pub struct EventFilter {
    /// Only events after this sequence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
    /// Only events up to and including this sequence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<u64>,
    /// Only events of this type.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<EventType>,
}

pub(super) fn tampered(index: usize, what: String) -> Error {
    Error::new(ErrorCode::TamperedLog, what).at(index)
}

impl Store {
    /// The events in memory that match `filter`, in order.
    pub fn events_matching(&mut self, filter: &EventFilter) -> Vec<&Event> {
        self.seal();
        self.sealed_matching(filter)
    }

    /// [`Store::events_matching`] once the log is sealed.
    pub(super) fn sealed_matching(&self, filter: &EventFilter) -> Vec<&Event> {
        self.log
            .iter()
            .filter(|e| filter.since.is_none_or(|s| e.sequence > s))
            .filter(|e| filter.until.is_none_or(|u| e.sequence <= u))
            .filter(|e| filter.kind.is_none_or(|k| e.kind == k))
            .collect()
    }

    /// The calls that have no result, in message order (DESIGN §4: after a restore in the middle
    /// of a tool batch, these are what repair marks `interrupted`; nothing is re-run).
    pub fn dangling_tool_calls(&self) -> Vec<DanglingCall> {
        let Ok(channel) = self.messages(channel::MESSAGES) else { return Vec::new() };
        channel
            .unanswered()
            .into_iter()
            .map(|(id, name, message)| DanglingCall {
                tool_call_id: id.into(),
                name: name.into(),
                message_id: message.into(),
            })
            .collect()
    }

    /// An empty store with this store's run id and schema (private channels unclaimed).
    fn empty_like(&self) -> Result<Store> {
        let mut s = Store::new(StoreOptions { run_id: Some(self.run_id.clone()), ..Default::default() })?;
        for spec in self.user_channels() {
            s.add(spec.clone(), false)?;
        }
        Ok(s)
    }

    /// Channels beyond the default schema, in registration order.
    fn user_channels(&self) -> impl Iterator<Item = &ChannelSpec> {
        self.specs.iter().skip(default_schema().len())
    }

    /// Applies logged events that continue this store's log, all or nothing: checks every link
    /// and hash first ([`verify_log`] under the store's chain), then applies each payload as a
    /// command at its own time, each its own superstep, and checks that each event this produces
    /// is the very same. `offset` is the position of `events[0]` in the caller's list (errors
    /// name positions in that list). Never calls the sink. Returns how many hashes were checked.
    /// Errors: `TAMPERED_LOG` naming the event; `UNKNOWN_CHANNEL` for a channel the store lacks.
    pub(super) fn apply_events(&mut self, events: &[Event], offset: usize) -> Result<usize> {
        self.apply_chunk(events, offset)
    }

    /// [`Store::apply_events`] for a store being rebuilt (replay, restore, a past view), which is
    /// dropped on any error: applied a few events at a time, so the whole log's decoded writes are
    /// never held at once (as one batch, a 100k-event replay took a quarter longer: 1.30 s against
    /// 1.04 s; in chunks of 4 it takes what the per-event replay before it did).
    pub(super) fn rebuild_from(&mut self, events: &[Event], offset: usize) -> Result<usize> {
        const CHUNK: usize = 4;
        let mut hashed = 0;
        for (k, chunk) in events.chunks(CHUNK).enumerate() {
            hashed += self.apply_chunk(chunk, offset + k * CHUNK)?;
        }
        Ok(hashed)
    }

    fn apply_chunk(&mut self, events: &[Event], offset: usize) -> Result<usize> {
        let Some(first) = events.first() else { return Ok(0) };
        if first.run_id != self.run_id {
            return Err(tampered(
                offset,
                format!("event {offset} belongs to run '{}', not '{}'", first.run_id, self.run_id),
            )
            .field("run_id"));
        }
        let anchor = (self.version, self.last_hash().to_string());
        let follower = self.follows;
        // What a follower takes as redacted must be a channel it does not have, absent from the
        // payload: otherwise a redacted entry could hide or override a public write.
        for (k, e) in events.iter().enumerate().filter(|_| follower) {
            if let Some((name, _)) = e.redacted.iter().find(|(_, c)| c.is_null()) {
                let index = offset + k;
                return Err(tampered(
                    index,
                    format!("event {index} (sequence {}) sends its write to channel '{name}' without a commitment, so its hash cannot be checked; a writer sends none (an unsalted private write is never sent)", e.sequence),
                )
                .field("redacted"));
            }
            if let Some(name) = e.redacted.keys().find(|c| e.payload.contains_key(*c) || self.index(c).is_ok()) {
                let index = offset + k;
                return Err(tampered(
                    index,
                    format!("event {index} (sequence {}) says channel '{name}' was redacted, but this follower reads that channel (or the event still writes it)", e.sequence),
                )
                .field("redacted"));
            }
        }
        let hashed = verify_log(events, (anchor.0, &anchor.1), &self.chain, follower).map_err(|mut b| {
            b.index += offset;
            b.into_error()
        })?;
        let mut batch = Vec::with_capacity(events.len());
        for (k, e) in events.iter().enumerate() {
            batch.push(self.decode_event(e, offset + k)?);
        }
        self.run_batch(batch, 0, Mode::Ingest).map_err(|err| {
            let index = offset + err.command.unwrap_or(0);
            let sequence = events.get(index - offset).map_or(0, |e| e.sequence);
            tampered(
                index,
                format!("event {index} (sequence {sequence}) does not apply: {}: {}", err.code.as_str(), err.message),
            )
        })?;
        Ok(hashed)
    }

    /// A logged event's payload as the command that reproduces it.
    fn decode_event<'e>(&self, e: &'e Event, index: usize) -> Result<Decoded<'e>> {
        // A salted write was a private channel's: never read into a channel declared otherwise.
        if let Some(name) = e.salted.keys().find(|c| {
            self.index(c).ok().and_then(|i| self.specs.get(i)).is_some_and(|s| s.visibility != Visibility::Private)
        }) {
            return Err(Error::new(
                ErrorCode::InvalidOption,
                format!("event {index} wrote channel '{name}' as a private channel (it carries a salt), but this store declares it visible: declare it private, with its owner, in `channels`"),
            )
            .at(index)
            .channel(name));
        }
        let mut writes = Vec::with_capacity(e.payload.len());
        for (name, value) in &e.payload {
            let i = self.index(name).map_err(|_| {
                Error::new(ErrorCode::UnknownChannel, format!("event {index} writes channel '{name}', which this store does not have; pass its spec in `channels`"))
                    .at(index)
                    .channel(name)
            })?;
            let write = match self.slots.get(i) {
                Some(Slot::Messages(_)) => Write::Messages(MessageOp::list_from_canonical(value).map_err(|err| {
                    tampered(index, format!("event {index} has unreadable messages: {}", err.message))
                })?),
                _ => Write::Json(value.clone()),
            };
            writes.push((i, write));
        }
        Ok(Decoded {
            author: e.author.clone(),
            expected_version: None,
            writes,
            correlation_id: e.correlation_id.clone(),
            causation_id: e.causation_id.clone(),
            system: e.system,
            expect: Some(e),
            at: Some(e.created_at),
        })
    }

    /// Rebuilds a store from a whole log (first event sequence 1). `opts.channels` must declare
    /// the channels the log writes beyond the default schema (private ones included; their owners
    /// then claim keys with [`Store::claim_owner_key`]). Errors: `TAMPERED_LOG` naming the first
    /// bad event; `INVALID_OPTION`.
    pub fn replay(opts: StoreOptions, events: &[Event]) -> Result<Store> {
        let run_id = opts.run_id.clone().or_else(|| events.first().map(|e| e.run_id.clone()));
        let mut s = Store::new(StoreOptions { run_id, channels: Vec::new(), chain_key: opts.chain_key })?;
        for spec in opts.channels {
            s.add(spec, false)?;
        }
        s.rebuild_from(events, 0)?;
        Ok(s)
    }

    /// A read-only view of the store right after event `sequence` (0 = before any), with the
    /// same read API (and the same private keys). Errors: `INVALID_OPTION` for a sequence after
    /// the last event or before the checkpoint this store was restored from.
    pub fn at(&mut self, sequence: u64) -> Result<Store> {
        self.seal();
        let base = self.base.sequence;
        if sequence > self.version || sequence < base {
            return Err(Error::new(
                ErrorCode::InvalidOption,
                format!("sequence {sequence} is outside this store's history ({base}..={})", self.version),
            ));
        }
        let mut past = match &self.base.checkpoint {
            Some(cp) => Store::from_checkpoint((**cp).clone())?,
            None => self.empty_like()?,
        };
        // Built as the store itself was (a follower ingests redacted events), then made a past view.
        (past.chain, past.follows) = (self.chain.clone(), self.follows);
        past.access = if self.follows { Access::Follower } else { Access::Live };
        let upto = self.log.iter().take_while(|e| e.sequence <= sequence).count();
        past.rebuild_from(self.log.get(..upto).unwrap_or_default(), 0)?;
        past.keys = self.keys.clone();
        past.access = Access::Past;
        Ok(past)
    }

    /// The checkpoint of the current state, encoded and sealed under the store's chain: every
    /// channel (private ones too: it is for local persistence), the last sequence and hash. See
    /// [`Checkpoint`] for the byte format.
    pub fn checkpoint(&mut self) -> Vec<u8> {
        let chain = self.chain.clone();
        self.snapshot(CHECKPOINT_FORMAT, true).encode(&chain)
    }

    pub(super) fn snapshot(&mut self, format: &str, private: bool) -> Checkpoint {
        let last_hash = self.last_hash().to_string();
        let keep = |s: &ChannelSpec| private || s.visibility != Visibility::Private;
        let values: Map<String, Value> = self
            .specs
            .iter()
            .enumerate()
            .filter(|(_, s)| keep(s))
            .map(|(i, s)| (s.name.clone(), self.value_of(i)))
            .collect();
        Checkpoint {
            format: format.to_string(),
            format_version: CHECKPOINT_FORMAT_VERSION,
            run_id: self.run_id.clone(),
            last_sequence: self.version,
            last_hash,
            channels: self.user_channels().filter(|s| keep(s)).cloned().collect(),
            values,
            keyed: self.chain.is_keyed(),
            mac: String::new(),
            digest: String::new(),
        }
    }

    /// The store a checkpoint holds (no events in memory; `at` reaches back to it).
    pub(super) fn from_checkpoint(cp: Checkpoint) -> Result<Store> {
        let corrupt = |m: String| {
            Error::new(ErrorCode::CorruptCheckpoint, format!("the checkpoint is corrupt: {m}; nothing was loaded"))
        };
        let mut s = Store::new(StoreOptions { run_id: Some(cp.run_id.clone()), ..Default::default() })?;
        for spec in &cp.channels {
            s.add(spec.clone(), false).map_err(|e| corrupt(e.message))?;
        }
        for (name, value) in &cp.values {
            let i = s.index(name).map_err(|_| corrupt(format!("unknown channel '{name}'")))?;
            let slot = match s.slots.get(i) {
                Some(Slot::Messages(_)) => {
                    let list =
                        Vec::<Message>::deserialize(value).map_err(|e| corrupt(format!("channel '{name}': {e}")))?;
                    Slot::Messages(Box::new(
                        MessagesChannel::from_messages(list)
                            .map_err(|e| corrupt(format!("channel '{name}': {}", e.message)))?,
                    ))
                }
                _ => Slot::Json(value.clone()),
            };
            if let Some(target) = s.slots_mut().get_mut(i) {
                *target = slot;
            }
        }
        s.version = cp.last_sequence;
        s.base = Base { sequence: cp.last_sequence, hash: cp.last_hash.clone().into(), checkpoint: Some(Box::new(cp)) };
        Ok(s)
    }

    /// Restores a store from checkpoint bytes and the events that follow it. Events of `tail` at
    /// or before the checkpoint are skipped (the one at the checkpoint's sequence must carry its
    /// hash), so a whole log may be passed. Private channels' owners claim keys again with
    /// [`Store::claim_owner_key`]. Errors: `CORRUPT_CHECKPOINT`, `UNSUPPORTED_FORMAT_VERSION`,
    /// `TAMPERED_LOG` (naming the first bad tail event); nothing is half-loaded.
    /// `channels` declares channels registered after the checkpoint was taken (those already in it
    /// are ignored); `chain_key` is the writer's `chainKey` for a keyed chain (`INVALID_OPTION`
    /// when a keyed checkpoint is read without it).
    pub fn restore(
        checkpoint: &[u8],
        tail: &[Event],
        channels: Vec<ChannelSpec>,
        chain_key: Option<&[u8]>,
    ) -> Result<Store> {
        let chain = Chain::from_key(chain_key)?;
        let cp = Checkpoint::decode(checkpoint, CHECKPOINT_FORMAT, &chain)?;
        let (seq, hash) = (cp.last_sequence, cp.last_hash.clone());
        let mut s = Store::from_checkpoint(cp)?;
        s.chain = chain;
        for spec in channels {
            if s.index(&spec.name).is_err() {
                s.add(spec, false)?;
            }
        }
        let start = tail.iter().position(|e| e.sequence > seq).unwrap_or(tail.len());
        for (i, e) in tail.iter().enumerate().take(start) {
            if e.sequence == seq && e.hash != hash {
                return Err(tampered(
                    i,
                    format!("event {i} (sequence {seq}) is not the event the checkpoint ends with"),
                )
                .field("hash"));
            }
        }
        s.rebuild_from(tail.get(start..).unwrap_or_default(), start)?;
        Ok(s)
    }

    /// Hands out the key of `owner`'s private channels once, after a replay or restore (keys are
    /// never persisted). Errors: `NOT_OWNER` when the owner has no private channel or its key was
    /// already handed out.
    pub fn claim_owner_key(&mut self, owner: &str, new_key: impl FnOnce() -> String) -> Result<String> {
        let has_private =
            self.specs.iter().any(|s| s.visibility == Visibility::Private && s.owner.as_deref() == Some(owner));
        if !has_private || self.keys.contains_key(owner) {
            return Err(Error::new(ErrorCode::NotOwner, format!("owner '{owner}' has no unclaimed private channels")));
        }
        let key = new_key();
        self.keys.insert(owner.to_string(), key.clone());
        Ok(key)
    }
}
