//! The store's history (DESIGN §4): events by filter, replay, past views, checkpoints, restore,
//! the export that may leave the machine, and the calls a crash left without results.

use super::command::StoreOptions;
use super::message_ops::MessageOp;
use super::messages::MessagesChannel;
use super::schema::channel;
use super::schema::{default_schema, ChannelSpec, Visibility};
use super::store::{Base, Decoded, Slot, Store, Write};
use crate::error::{Error, ErrorCode, Result};
use crate::log::{verify_log, Checkpoint, Event, EventType, CHECKPOINT_FORMAT, CHECKPOINT_FORMAT_VERSION};
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

fn tampered(index: usize, what: String) -> Error {
    Error::new(ErrorCode::TamperedLog, what).at(index)
}

impl Store {
    /// The events in memory that match `filter`, in order.
    pub fn events_matching(&mut self, filter: &EventFilter) -> Vec<&Event> {
        self.seal();
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
        let mut s = Store::new(StoreOptions { run_id: Some(self.run_id.clone()), channels: Vec::new() })?;
        for spec in self.user_channels() {
            s.add(spec.clone(), false)?;
        }
        Ok(s)
    }

    /// Channels beyond the default schema, in registration order.
    fn user_channels(&self) -> impl Iterator<Item = &ChannelSpec> {
        self.specs.iter().skip(default_schema().len())
    }

    /// Applies one logged event: checks its link and hash, applies its payload as a command at
    /// its own time, and checks that the event this produces is the very same. `index` is its
    /// position in the caller's list. Errors: `TAMPERED_LOG` naming the event.
    pub fn apply_event(&mut self, e: &Event, index: usize) -> Result<()> {
        let anchor = (self.version, self.last_hash().to_string());
        if e.run_id != self.run_id {
            return Err(tampered(index, format!("event {index} belongs to run '{}', not '{}'", e.run_id, self.run_id))
                .field("run_id"));
        }
        verify_log(std::slice::from_ref(e), (anchor.0, &anchor.1)).map_err(|mut b| {
            b.index = index;
            b.into_error()
        })?;
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
        let cmd = Decoded {
            author: e.author.clone(),
            expected_version: None,
            writes,
            correlation_id: e.correlation_id.clone(),
            causation_id: e.causation_id.clone(),
            system: e.system,
            expect: Some(e),
        };
        self.run_batch(vec![cmd], e.created_at, super::store::Mode::Commit).map_err(|err| {
            tampered(
                index,
                format!(
                    "event {index} (sequence {}) does not apply: {}: {}",
                    e.sequence,
                    err.code.as_str(),
                    err.message
                ),
            )
        })?;
        Ok(())
    }

    /// Rebuilds a store from a whole log (first event sequence 1). `opts.channels` must declare
    /// the channels the log writes beyond the default schema (private ones included; their owners
    /// then claim keys with [`Store::claim_owner_key`]). Errors: `TAMPERED_LOG` naming the first
    /// bad event; `INVALID_OPTION`.
    pub fn replay(opts: StoreOptions, events: &[Event]) -> Result<Store> {
        let run_id = opts.run_id.clone().or_else(|| events.first().map(|e| e.run_id.clone()));
        let mut s = Store::new(StoreOptions { run_id, channels: Vec::new() })?;
        for spec in opts.channels {
            s.add(spec, false)?;
        }
        for (i, e) in events.iter().enumerate() {
            s.apply_event(e, i)?;
        }
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
        for (i, e) in self.log.iter().take_while(|e| e.sequence <= sequence).enumerate() {
            past.apply_event(e, i)?;
        }
        past.keys = self.keys.clone();
        past.read_only = true;
        Ok(past)
    }

    /// The checkpoint of the current state: every channel (private ones too: it is for local
    /// persistence), the last sequence and hash. See [`Checkpoint`] for the byte format.
    pub fn checkpoint(&mut self) -> Checkpoint {
        self.snapshot(CHECKPOINT_FORMAT, true)
    }

    /// A snapshot meant to leave the machine (format `stategate-export`): like a checkpoint, but
    /// without private channels, their specs or any key.
    pub fn export_for_transport(&mut self) -> Checkpoint {
        self.snapshot("stategate-export", false)
    }

    fn snapshot(&mut self, format: &str, private: bool) -> Checkpoint {
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
            digest: String::new(),
        }
    }

    /// The store a checkpoint holds (no events in memory; `at` reaches back to it).
    fn from_checkpoint(cp: Checkpoint) -> Result<Store> {
        let corrupt = |m: String| {
            Error::new(ErrorCode::CorruptCheckpoint, format!("the checkpoint is corrupt: {m}; nothing was loaded"))
        };
        let mut s = Store::new(StoreOptions { run_id: Some(cp.run_id.clone()), channels: Vec::new() })?;
        for spec in &cp.channels {
            s.add(spec.clone(), false).map_err(|e| corrupt(e.message))?;
        }
        for (name, value) in &cp.values {
            let i = s.index(name).map_err(|_| corrupt(format!("unknown channel '{name}'")))?;
            let slot = match s.slots.get(i) {
                Some(Slot::Messages(_)) => {
                    let list =
                        Vec::<Message>::deserialize(value).map_err(|e| corrupt(format!("channel '{name}': {e}")))?;
                    Slot::Messages(
                        MessagesChannel::from_messages(list)
                            .map_err(|e| corrupt(format!("channel '{name}': {}", e.message)))?,
                    )
                }
                _ => Slot::Json(value.clone()),
            };
            if let Some(target) = s.slots.get_mut(i) {
                *target = slot;
            }
        }
        s.version = cp.last_sequence;
        s.base = Base { sequence: cp.last_sequence, hash: cp.last_hash.clone(), checkpoint: Some(Box::new(cp)) };
        Ok(s)
    }

    /// Restores a store from checkpoint bytes and the events that follow it. Events of `tail` at
    /// or before the checkpoint are skipped (the one at the checkpoint's sequence must carry its
    /// hash), so a whole log may be passed. Private channels' owners claim keys again with
    /// [`Store::claim_owner_key`]. Errors: `CORRUPT_CHECKPOINT`, `UNSUPPORTED_FORMAT_VERSION`,
    /// `TAMPERED_LOG` (naming the first bad tail event); nothing is half-loaded.
    /// `channels` declares channels registered after the checkpoint was taken (those already in it
    /// are ignored).
    pub fn restore(checkpoint: &[u8], tail: &[Event], channels: Vec<ChannelSpec>) -> Result<Store> {
        let cp = Checkpoint::decode(checkpoint)?;
        let (seq, hash) = (cp.last_sequence, cp.last_hash.clone());
        let mut s = Store::from_checkpoint(cp)?;
        for spec in channels {
            if s.index(&spec.name).is_err() {
                s.add(spec, false)?;
            }
        }
        for (i, e) in tail.iter().enumerate() {
            if e.sequence < seq {
                continue;
            }
            if e.sequence == seq {
                if e.hash != hash {
                    return Err(tampered(
                        i,
                        format!("event {i} (sequence {seq}) is not the event the checkpoint ends with"),
                    )
                    .field("hash"));
                }
                continue;
            }
            s.apply_event(e, i)?;
        }
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
