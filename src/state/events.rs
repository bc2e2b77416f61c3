//! The store's log as events (DESIGN §4): sealing (hashing) the events it holds, and the
//! [`Event`]s, JSON and JSON Lines made from them when they are read, persisted or sent. The log
//! holds each event compactly ([`crate::log::held`]); nothing here keeps what it makes.

use super::history::EventFilter;
use super::store::Store;
use crate::error::{Error, ErrorCode, Result};
use crate::log::held::{HashText, Held, Place};
use crate::log::Event;
use serde::ser::SerializeSeq;
use serde::Serialize;

impl Store {
    /// Where the event at log index `i` stands: its sequence, the schema, the hash before it.
    pub(super) fn place(&self, i: usize) -> Place<'_> {
        Place {
            run_id: &self.run_id,
            sequence: self.base.sequence + i as u64 + 1,
            specs: &self.specs,
            prev: self.hash_before(i),
        }
    }

    /// The hash of the event before log index `i`: the previous event's, or the base's.
    pub(super) fn hash_before(&self, i: usize) -> HashText<'_> {
        match i.checked_sub(1).and_then(|j| self.log.get(j)) {
            Some(prev) => HashText::Bytes(&prev.hash),
            None => HashText::Text(&self.base.hash),
        }
    }

    /// Computes the hash of every event not sealed yet, in order. Hashing is deferred until
    /// events leave the store (read, persisted, checkpointed): the chain is deterministic, so
    /// sealing later gives the very same hashes, and appends stay cheap.
    pub(super) fn seal(&mut self) {
        if self.sealed >= self.log.len() {
            return;
        }
        for i in self.sealed..self.log.len() {
            let digest = self.log.get(i).and_then(|h| h.digest(self.place(i), &self.chain));
            if let Some(h) = self.log.get_mut(i) {
                h.hash = digest.unwrap_or_default();
            }
        }
        self.sealed = self.log.len();
    }

    /// The hash of the last event (the checkpoint's, or [`crate::log::GENESIS_HASH`], before
    /// any): 64 lowercase hex digits.
    pub fn last_hash(&mut self) -> String {
        self.seal();
        self.hash_before(self.log.len()).to_text()
    }

    /// The sealed event at log index `i`, made from what the store holds.
    pub(super) fn event_at(&self, i: usize) -> Option<Event> {
        let held = self.log.get(i)?;
        Some(held.to_event(self.place(i), HashText::Bytes(&held.hash)))
    }

    /// Every applied command's event in memory, in order, sealed (hashed).
    pub fn events(&mut self) -> Vec<Event> {
        self.events_matching(&EventFilter::default())
    }

    /// The events in memory that match `filter`, in order.
    pub fn events_matching(&mut self, filter: &EventFilter) -> Vec<Event> {
        self.seal();
        self.sealed_matching(filter).into_iter().filter_map(|i| self.event_at(i)).collect()
    }

    /// The log indexes of the events that match `filter`, once the log is sealed.
    pub(super) fn sealed_matching(&self, filter: &EventFilter) -> Vec<usize> {
        let base = self.base.sequence;
        self.log
            .iter_from(0)
            .enumerate()
            .filter(|(i, h)| {
                let sequence = base + *i as u64 + 1;
                filter.since.is_none_or(|s| sequence > s)
                    && filter.until.is_none_or(|u| sequence <= u)
                    && filter.kind.is_none_or(|k| h.kind == k)
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The events that match `filter` as JSON, written from what the store holds: one array
    /// (`lines` false), or JSON Lines (each event on its own line, ending in `\n`).
    pub fn events_json(&mut self, filter: &EventFilter, lines: bool) -> Result<String> {
        self.seal();
        let indexes = self.sealed_matching(filter);
        if lines {
            let mut out = Vec::new();
            for i in indexes {
                if let Some(held) = self.log.get(i) {
                    serde_json::to_writer(&mut out, &held.shape(self.place(i), HashText::Bytes(&held.hash)))
                        .map_err(not_json)?;
                    out.push(b'\n');
                }
            }
            return String::from_utf8(out).map_err(|e| not_json(e.to_string()));
        }
        serde_json::to_string(&Shapes { store: self, indexes: &indexes }).map_err(not_json)
    }

    /// The events from log index `from` on, for the write-ahead sink (sealed first).
    pub(super) fn events_from(&mut self, from: usize) -> Events<'_> {
        self.seal();
        Events { store: self, from }
    }
}

fn not_json(e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::InvalidOption, format!("internal: the events could not be written as JSON: {e}"))
}

/// Sealed events of a store, written as a JSON array.
struct Shapes<'a> {
    store: &'a Store,
    indexes: &'a [usize],
}

impl Serialize for Shapes<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.indexes.len()))?;
        for &i in self.indexes {
            let held: Option<&Held> = self.store.log.get(i);
            if let Some(held) = held {
                seq.serialize_element(&held.shape(self.store.place(i), HashText::Bytes(&held.hash)))?;
            }
        }
        seq.end()
    }
}

/// The events of one change, as the write-ahead sink ([`super::EventSink`]) receives them:
/// sealed, in order, made on demand from what the store holds.
pub struct Events<'a> {
    store: &'a Store,
    from: usize,
}

impl Events<'_> {
    /// How many.
    pub fn len(&self) -> usize {
        self.store.log.len().saturating_sub(self.from)
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The events.
    pub fn to_vec(&self) -> Vec<Event> {
        (self.from..self.store.log.len()).filter_map(|i| self.store.event_at(i)).collect()
    }

    /// The events as one JSON array (`StoreEvent[]`), written without a JSON tree.
    pub fn to_json(&self) -> Result<String> {
        let indexes: Vec<usize> = (self.from..self.store.log.len()).collect();
        serde_json::to_string(&Shapes { store: self.store, indexes: &indexes }).map_err(not_json)
    }
}
