//! The log as a store holds it (issue 17): one compact entry per event, sharing what it can.
//!
//! An [`Event`] carries its payload as a JSON tree and its ids and hashes as strings; a store
//! holding one per command held every message three times (its channel, the event's writes, the
//! sealed payload), 7× the message's JSON. A [`Held`] event keeps instead: the writes as the
//! command made them (a message behind the `Rc` its channel shares, so a later replace in the
//! channel swaps the channel's pointer while the event keeps the message it wrote), the hash as
//! 32 bytes, the author shared with the events before it, and nothing derivable: `event_id` is
//! `{run_id}:{sequence}`, `run_id` the store's, `sequence` its position after the store's base,
//! `prev_hash` the previous event's hash (or the base's). Its JSON ([`Shape`]) and the bytes its
//! hash covers ([`Hashed`]) are written from these on demand, without a tree.

use super::event::{commitment_value, EventType, Hashed, Shape, SideMap};
use super::{canonical, Chain, Event};
use crate::message::Message;
use crate::state::{ChannelSpec, Write};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::Serialize;
use serde_json::{Map, Value};
use std::rc::Rc;

/// One event as a store holds it. See the module documentation for what is derived.
#[derive(Debug, Clone)]
pub(crate) struct Held {
    /// The event's hash; meaningful once the store has sealed it.
    pub(crate) hash: [u8; 32],
    /// Milliseconds since the Unix epoch.
    pub(crate) created_at: u64,
    /// The command's author, shared with earlier events of the same author ([`HeldLog::author`]).
    pub(crate) author: Rc<str>,
    /// The writes.
    pub(crate) body: Body,
    /// What most events do not have.
    pub(crate) more: Option<Box<More>>,
    /// What it records.
    pub(crate) kind: EventType,
    /// A command the store issued itself.
    pub(crate) system: bool,
}

/// An event's writes, by channel index in the store's schema (channels are only ever added, so
/// an index keeps naming its channel).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Body {
    /// One message put on one messages channel (an append, or a replace by id): most events.
    Put {
        /// The channel.
        channel: u32,
        /// The message, shared with the channel while it holds it.
        message: Rc<Message>,
    },
    /// Any other writes, in the command's order.
    Writes(Box<[(u32, Write)]>),
}

/// The fields of an event that are absent from most.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct More {
    pub(crate) correlation_id: Option<String>,
    pub(crate) causation_id: Option<String>,
    pub(crate) salted: SideMap,
    pub(crate) redacted: SideMap,
}

/// An empty side map, for events without [`More`].
static NO_SIDE: SideMap = SideMap::EMPTY;

impl Body {
    /// The body of a command's writes (channel index, write), in order.
    pub(crate) fn of(writes: Vec<(usize, Write)>) -> Body {
        if let [(channel, Write::Messages(ops))] = writes.as_slice() {
            if let ([crate::state::MessageOp::Put(message)], Ok(channel)) = (ops.as_slice(), u32::try_from(*channel)) {
                return Body::Put { channel, message: message.clone() };
            }
        }
        Body::Writes(writes.into_iter().map(|(c, w)| (u32::try_from(c).unwrap_or(u32::MAX), w)).collect())
    }
}

impl Held {
    /// True when `other` has every field of this one but the hash.
    pub(crate) fn same_as(&self, other: &Held) -> bool {
        self.created_at == other.created_at
            && self.author == other.author
            && self.kind == other.kind
            && self.system == other.system
            && self.more == other.more
            && self.body == other.body
    }

    /// `correlation_id`, if any.
    pub(crate) fn correlation_id(&self) -> Option<&str> {
        self.more.as_ref().and_then(|m| m.correlation_id.as_deref())
    }

    /// `causation_id`, if any.
    pub(crate) fn causation_id(&self) -> Option<&str> {
        self.more.as_ref().and_then(|m| m.causation_id.as_deref())
    }

    /// The salts of its private writes.
    pub(crate) fn salted(&self) -> &SideMap {
        self.more.as_ref().map_or(&NO_SIDE, |m| &m.salted)
    }

    /// The private writes removed for transport (a follower's events).
    pub(crate) fn redacted(&self) -> &SideMap {
        self.more.as_ref().map_or(&NO_SIDE, |m| &m.redacted)
    }

    /// The writes, as (channel index, write).
    pub(crate) fn writes(&self) -> impl Iterator<Item = (u32, WriteRef<'_>)> {
        let (put, many) = match &self.body {
            Body::Put { channel, message } => (Some((*channel, WriteRef::Put(message))), &[][..]),
            Body::Writes(w) => (None, &w[..]),
        };
        put.into_iter().chain(many.iter().map(|(c, w)| (*c, WriteRef::Write(w))))
    }
}

/// One write of a held event.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WriteRef<'a> {
    /// [`Body::Put`]'s message: written as the one-op list `[message]`.
    Put(&'a Rc<Message>),
    /// Any other write.
    Write(&'a Write),
}

impl WriteRef<'_> {
    /// The write as an owned [`Write`] (the messages still shared).
    pub(crate) fn to_write(self) -> Write {
        match self {
            WriteRef::Put(m) => Write::Messages(vec![crate::state::MessageOp::Put(m.clone())]),
            WriteRef::Write(w) => w.clone(),
        }
    }
}

impl Serialize for WriteRef<'_> {
    /// As the event's payload holds the write: a messages write as its list of ops.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            WriteRef::Put(m) => {
                let mut seq = s.serialize_seq(Some(1))?;
                seq.serialize_element(&***m)?;
                seq.end()
            }
            WriteRef::Write(w) => w.serialize(s),
        }
    }
}

/// The event's place: what a held event does not keep.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place<'a> {
    /// The store's run id.
    pub(crate) run_id: &'a str,
    /// The event's sequence.
    pub(crate) sequence: u64,
    /// The store's schema: channel names by index.
    pub(crate) specs: &'a [ChannelSpec],
    /// The previous event's hash (`prev_hash`).
    pub(crate) prev: HashText<'a>,
}

/// A hash as its 64 lowercase hex digits: bytes the store holds, or text it was given (a
/// checkpoint's `last_hash`, the genesis).
#[derive(Debug, Clone, Copy)]
pub(crate) enum HashText<'a> {
    Bytes(&'a [u8; 32]),
    Text(&'a str),
}

impl HashText<'_> {
    /// The hex text.
    pub(crate) fn to_text(self) -> String {
        match self {
            HashText::Bytes(b) => canonical::to_hex(b),
            HashText::Text(t) => t.to_string(),
        }
    }

    /// Whether `text` is this hash.
    pub(crate) fn is(self, text: &str) -> bool {
        match self {
            HashText::Bytes(b) => hex_is(b, text),
            HashText::Text(t) => t == text,
        }
    }
}

impl Serialize for HashText<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            HashText::Bytes(b) => {
                let mut hex = [0u8; 64];
                write_hex(b, &mut hex);
                s.serialize_str(std::str::from_utf8(&hex).unwrap_or_default())
            }
            HashText::Text(t) => s.serialize_str(t),
        }
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn write_hex(bytes: &[u8; 32], out: &mut [u8; 64]) {
    for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
        if let [hi, lo] = pair {
            *hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
            *lo = HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0');
        }
    }
}

/// Whether `text` is the lowercase hex of `bytes`.
pub(crate) fn hex_is(bytes: &[u8; 32], text: &str) -> bool {
    let mut hex = [0u8; 64];
    write_hex(bytes, &mut hex);
    hex == text.as_bytes()
}

/// The 32 bytes of a hash written as 64 lowercase hex digits; `None` for anything else.
pub(crate) fn hash_bytes(text: &str) -> Option<[u8; 32]> {
    let digits = text.as_bytes();
    if digits.len() != 64 {
        return None;
    }
    let value = |d: u8| match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        let [hi, lo] = pair else { return None };
        *o = value(*hi)? << 4 | value(*lo)?;
    }
    Some(out)
}

/// `{run_id}:{sequence}`, made by [`crate::state::numbered`] (`format!`'s machinery was 2% of a replay).
struct EventId<'a>(&'a str, u64);

impl Serialize for EventId<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::state::numbered(self.0, self.1))
    }
}

/// A held event's payload: `{channel: write}` in the command's order. `hashed`: each salted
/// write, and each redacted one, as its commitment (`{"$commitment": hex}`), as the hash covers
/// it.
struct Payload<'a> {
    held: &'a Held,
    specs: &'a [ChannelSpec],
    hashed: bool,
}

impl Serialize for Payload<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let name = |c: u32| {
            usize::try_from(c)
                .ok()
                .and_then(|c| self.specs.get(c))
                .map(|spec| spec.name.as_str())
                .ok_or_else(|| S::Error::custom("internal: an event writes a channel the schema does not have"))
        };
        let mut map = s.serialize_map(None)?;
        for (c, write) in self.held.writes() {
            let name = name(c)?;
            match self.held.salted().get(name).and_then(Value::as_str).filter(|_| self.hashed) {
                Some(salt) => {
                    let mut bytes = Vec::with_capacity(salt.len() + 256);
                    bytes.extend_from_slice(salt.as_bytes());
                    bytes.push(b'\n');
                    canonical::to_writer(&write, &mut bytes).map_err(S::Error::custom)?;
                    map.serialize_entry(name, &commitment_value(canonical::sha256_hex(&bytes)))?;
                }
                None => map.serialize_entry(name, &write)?,
            }
        }
        if self.hashed {
            for (name, c) in self.held.redacted().iter() {
                let c = c.as_str().ok_or_else(|| S::Error::custom("a redacted write without a commitment"))?;
                map.serialize_entry(name, &commitment_value(c.to_string()))?;
            }
        }
        map.end()
    }
}

impl Held {
    /// Its hash under `chain` at `place`: the digest of what [`Hashed`] covers. `None` for
    /// [`Chain::Opaque`], or a redacted write without a commitment.
    pub(crate) fn digest(&self, place: Place<'_>, chain: &Chain) -> Option<[u8; 32]> {
        thread_local! {
            /// The bytes hashed, kept between events (no allocation once warm).
            static BYTES: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        BYTES.with(|cell| match cell.try_borrow_mut() {
            Ok(mut buf) => self.digest_into(place, chain, &mut buf),
            Err(_) => self.digest_into(place, chain, &mut Vec::new()),
        })
    }

    fn digest_into(&self, place: Place<'_>, chain: &Chain, buf: &mut Vec<u8>) -> Option<[u8; 32]> {
        if matches!(chain, Chain::Opaque) || self.redacted().iter().any(|(_, c)| !c.is_string()) {
            return None;
        }
        buf.clear();
        let fields = Hashed {
            author: &self.author,
            causation_id: self.causation_id(),
            correlation_id: self.correlation_id(),
            created_at: self.created_at,
            event_id: EventId(place.run_id, place.sequence),
            prev_hash: place.prev,
            run_id: place.run_id,
            sequence: place.sequence,
            system: self.system,
            kind: self.kind,
        };
        let payload = Payload { held: self, specs: place.specs, hashed: true };
        fields.write(buf, |out| canonical::to_writer(&payload, out)).ok()?;
        chain.digest_bytes(buf)
    }

    /// The event as JSON at `place` (its `hash` given), exactly as [`Event`] writes it.
    pub(crate) fn shape<'a>(&'a self, place: Place<'a>, hash: HashText<'a>) -> impl Serialize + 'a {
        Shape {
            event_id: EventId(place.run_id, place.sequence),
            run_id: place.run_id,
            sequence: place.sequence,
            kind: self.kind,
            author: &self.author,
            payload: Payload { held: self, specs: place.specs, hashed: false },
            created_at: self.created_at,
            correlation_id: self.correlation_id(),
            causation_id: self.causation_id(),
            prev_hash: place.prev,
            hash,
            system: self.system,
            salted: self.salted(),
            redacted: self.redacted(),
        }
    }

    /// The event as an [`Event`] at `place` (its `hash` given): its payload as a JSON tree.
    pub(crate) fn to_event(&self, place: Place<'_>, hash: HashText<'_>) -> Event {
        let mut payload = Map::new();
        for (c, write) in self.writes() {
            let name = usize::try_from(c).ok().and_then(|c| place.specs.get(c)).map_or("", |spec| spec.name.as_str());
            payload.insert(name.to_string(), serde_json::to_value(write).unwrap_or(Value::Null));
        }
        Event {
            event_id: format!("{}:{}", place.run_id, place.sequence),
            run_id: place.run_id.to_string(),
            sequence: place.sequence,
            kind: self.kind,
            author: self.author.to_string(),
            payload,
            created_at: self.created_at,
            correlation_id: self.correlation_id().map(str::to_string),
            causation_id: self.causation_id().map(str::to_string),
            prev_hash: place.prev.to_text(),
            hash: hash.to_text(),
            system: self.system,
            salted: self.salted().clone(),
            redacted: self.redacted().clone(),
        }
    }
}

/// Events per chunk of a [`HeldLog`].
const CHUNK: usize = 256;

/// How many recent authors [`HeldLog::author`] remembers.
const AUTHORS: usize = 8;

/// A store's events in memory, in order: in chunks of [`CHUNK`] allocated whole, so a long log
/// never holds a doubled vector's spare room (at 10,000 events a `Vec` held room for 16,384) and
/// never moves its events to grow.
#[derive(Debug, Clone, Default)]
pub(crate) struct HeldLog {
    chunks: Vec<Vec<Held>>,
    len: usize,
    /// The authors of recent events, shared by the events that name them.
    authors: Vec<Rc<str>>,
}

impl HeldLog {
    /// How many events.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The event at `i`.
    pub(crate) fn get(&self, i: usize) -> Option<&Held> {
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }

    /// The event at `i`, to change.
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut Held> {
        self.chunks.get_mut(i / CHUNK)?.get_mut(i % CHUNK)
    }

    /// The last event.
    pub(crate) fn last(&self) -> Option<&Held> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    /// Appends an event.
    pub(crate) fn push(&mut self, held: Held) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(held),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(held);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    /// Keeps the first `n` events.
    pub(crate) fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        self.chunks.truncate(n.div_ceil(CHUNK));
        if let Some(chunk) = self.chunks.last_mut() {
            chunk.truncate(n - (n - 1) / CHUNK * CHUNK);
        }
        self.len = n;
    }

    /// The events from `from` on, in order.
    pub(crate) fn iter_from(&self, from: usize) -> impl Iterator<Item = &Held> {
        self.chunks.iter().flatten().skip(from)
    }

    /// `name` as an author shared with recent events of the same author.
    pub(crate) fn author(&mut self, name: &str) -> Rc<str> {
        if let Some(known) = self.authors.iter().find(|a| ***a == *name) {
            return known.clone();
        }
        let author: Rc<str> = Rc::from(name);
        if self.authors.len() == AUTHORS {
            self.authors.remove(0);
        }
        self.authors.push(author.clone());
        author
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(n: u64) -> Held {
        Held {
            hash: [0; 32],
            created_at: n,
            author: Rc::from("a"),
            body: Body::Writes(Box::new([])),
            more: None,
            kind: EventType::StatePatch,
            system: false,
        }
    }

    #[test]
    fn the_chunked_log_keeps_order_across_chunks_and_truncates_anywhere() {
        let mut log = HeldLog::default();
        for n in 0..(2 * CHUNK as u64 + 3) {
            log.push(held(n));
        }
        assert_eq!(log.len(), 2 * CHUNK + 3);
        assert!(log.iter_from(0).map(|h| h.created_at).eq(0..(2 * CHUNK as u64 + 3)));
        assert_eq!(log.get(CHUNK).map(|h| h.created_at), Some(CHUNK as u64));
        assert_eq!(log.last().map(|h| h.created_at), Some(2 * CHUNK as u64 + 2));
        for n in [2 * CHUNK + 1, 2 * CHUNK, CHUNK + 1, CHUNK, 1, 0] {
            let mut l = log.clone();
            l.truncate(n);
            assert_eq!(l.len(), n);
            assert!(l.iter_from(0).map(|h| h.created_at).eq(0..n as u64), "{n}");
            l.push(held(99));
            assert_eq!(l.get(n).map(|h| h.created_at), Some(99));
            assert_eq!(l.len(), n + 1);
        }
        assert_eq!(log.iter_from(2 * CHUNK + 1).count(), 2);
    }

    #[test]
    fn hashes_read_and_write_as_lowercase_hex() {
        let text = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let bytes = hash_bytes(text).unwrap();
        assert!(hex_is(&bytes, text));
        assert_eq!(HashText::Bytes(&bytes).to_text(), text);
        assert_eq!(serde_json::to_string(&HashText::Bytes(&bytes)).unwrap(), format!("\"{text}\""));
        assert_eq!(hash_bytes(&text.to_uppercase()), None);
        assert_eq!(hash_bytes(&text[1..]), None);
        assert_eq!(hash_bytes(&format!("{}g", &text[1..])), None);
    }
}
