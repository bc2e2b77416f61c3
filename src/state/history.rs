//! The store's history (DESIGN §4): events by filter, replay, past views, checkpoints, restore,
//! and the calls a crash left without results. What comes in from, and goes out to, other
//! processes (ingest, transport, followers) is [`super::transport`].

use super::command::StoreOptions;
use super::messages::MessagesChannel;
use super::schema::channel;
use super::schema::{default_schema, ChannelSpec, Visibility};
use super::store::{Access, Base, Slot, Store};
use crate::error::{Error, ErrorCode, Result};
use crate::log::{Chain, Checkpoint, Event, EventType, CHECKPOINT_FORMAT, CHECKPOINT_FORMAT_VERSION};
use crate::message::Message;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;

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
    pub(super) fn empty_like(&self) -> Result<Store> {
        let mut s = Store::of(StoreOptions { run_id: Some(self.run_id.clone()), ..Default::default() })?;
        for spec in self.user_channels() {
            s.add(spec.clone(), false)?;
        }
        Ok(s)
    }

    /// Channels beyond the default schema, in registration order.
    pub(super) fn user_channels(&self) -> impl Iterator<Item = &ChannelSpec> {
        self.specs.iter().skip(default_schema().len())
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
        // Channels registered after the checkpoint it was restored from.
        for spec in self.specs.iter() {
            if past.index(&spec.name).is_err() {
                past.add(spec.clone(), false)?;
            }
        }
        let upto = usize::try_from(sequence - base).unwrap_or(usize::MAX);
        for (i, held) in self.log.iter_from(0).take(upto).enumerate() {
            past.apply_held(held, &self.specs, i)?;
        }
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
        let last_hash = self.last_hash();
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
        let mut s = Store::of(StoreOptions { run_id: Some(cp.run_id.clone()), ..Default::default() })?;
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
        Store::restore_from(checkpoint, tail.iter().map(|e| Ok(Cow::Borrowed(e))), channels, chain_key)
    }

    /// [`Store::restore`] with the tail given as JSON Lines, read one line at a time (see
    /// [`Store::replay_jsonl`]).
    pub fn restore_jsonl(
        checkpoint: &[u8],
        tail: &str,
        channels: Vec<ChannelSpec>,
        chain_key: Option<&[u8]>,
    ) -> Result<Store> {
        let (mut s, seq, hash) = Store::restored(checkpoint, channels, chain_key)?;
        let mut lines = crate::log::jsonl_lines(tail)?.peekable();
        while let Some(&line) = lines.peek() {
            let (sequence, is_last) = match crate::log::line::Line::read(line.text) {
                Some(quick) => (quick.sequence, quick.hash == hash),
                None => {
                    let e = crate::log::event_of_line(&line)?;
                    (e.sequence, e.hash == hash)
                }
            };
            if sequence > seq {
                break;
            }
            if sequence == seq && !is_last {
                return Err(not_the_checkpoints(line.index, seq));
            }
            lines.next();
        }
        s.apply_lines(lines)?;
        Ok(s)
    }

    fn restore_from<'e>(
        checkpoint: &[u8],
        tail: impl Iterator<Item = Result<Cow<'e, Event>>>,
        channels: Vec<ChannelSpec>,
        chain_key: Option<&[u8]>,
    ) -> Result<Store> {
        let (mut s, seq, hash) = Store::restored(checkpoint, channels, chain_key)?;
        // Events up to the checkpoint are skipped (the one at its sequence must be its event);
        // from the first after it, every event is applied.
        let mut tail = tail.enumerate().peekable();
        while let Some((i, e)) = tail.next_if(|(_, e)| e.as_ref().is_ok_and(|e| e.sequence <= seq)) {
            if e.is_ok_and(|e| e.sequence == seq && e.hash != hash) {
                return Err(not_the_checkpoints(i, seq));
            }
        }
        let start = tail.peek().map_or(0, |(i, _)| *i);
        s.rebuild_from(tail.map(|(_, e)| e), start)?;
        Ok(s)
    }

    /// The store a checkpoint holds (under `chain_key`), with `channels` registered after it,
    /// and the checkpoint's last sequence and hash.
    fn restored(
        checkpoint: &[u8],
        channels: Vec<ChannelSpec>,
        chain_key: Option<&[u8]>,
    ) -> Result<(Store, u64, String)> {
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
        Ok((s, seq, hash))
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

/// `TAMPERED_LOG`: the event at the checkpoint's sequence (at `index` of the tail) is another.
fn not_the_checkpoints(index: usize, sequence: u64) -> Error {
    tampered(index, format!("event {index} (sequence {sequence}) is not the event the checkpoint ends with"))
        .field("hash")
}
