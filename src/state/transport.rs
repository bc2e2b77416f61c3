//! The log past one process (issue 18): events logged elsewhere taken in ([`Store::ingest`]: a
//! database the store's own previews went to, another writer, a server), the snapshot and events
//! that may leave the machine ([`Store::export_for_transport`], [`Store::transport_events`]:
//! private writes as salted commitments, never their values), and the follower that reads them
//! ([`Store::follow`]).

use super::history::{tampered, EventFilter};
use super::schema::Visibility;
use super::store::{Access, Store};
use crate::error::{Error, ErrorCode, Result};
use crate::log::held::{HashText, Held};
use crate::log::{commitment, verify_log, Chain, Checkpoint, Event, EXPORT_FORMAT};
use serde::Serialize;
use serde_json::Value;

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// What [`Store::ingest`] did: `{version, applied, hashChecked}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Ingested {
    /// The store's version after it.
    pub version: u64,
    /// How many events were applied (events the store already had are not counted).
    pub applied: u64,
    /// How many of those had their hash recomputed and matched; the others (redacted for
    /// transport, or a keyed chain followed without its key) were checked by their links only.
    pub hash_checked: u64,
}

/// The private channel `e` wrote without a salt, if any.
fn unsalted_private(e: &Event, private: &[String]) -> Option<String> {
    private.iter().find(|c| e.payload.contains_key(*c) && !e.salted.contains_key(c)).cloned()
}

/// [`unsalted_private`] for an event a store holds (`specs` names its channels).
fn unsalted_private_held(h: &Held, specs: &[super::schema::ChannelSpec]) -> Option<String> {
    h.writes()
        .filter_map(|(c, _)| usize::try_from(c).ok().and_then(|c| specs.get(c)))
        .find(|s| s.visibility == Visibility::Private && !h.salted().contains_key(&s.name))
        .map(|s| s.name.clone())
}

/// `PRIVATE_LEAK` for an unsalted private write whose hash would leave the machine.
fn unsalted_error(sequence: u64, channel: &str) -> Error {
    Error::new(
        ErrorCode::PrivateLeak,
        format!("event {sequence} wrote private channel '{channel}' without a salt (logged before salts, or by a store without an entropy source), so its hash could confirm a guess of the value and cannot be sent to a follower; follow from a snapshot taken after a later event"),
    )
    .channel(channel)
}

/// `PRIVATE_LEAK` when a private value (8+ characters) appears in what would leave the machine.
fn check_sent(sent: &[Value], secrets: &[(String, String)]) -> Result<()> {
    match super::privacy::leaking_channels(sent, secrets).first() {
        None => Ok(()),
        Some(channel) => Err(Error::new(
            ErrorCode::PrivateLeak,
            format!("a value of private channel '{channel}' was copied into a public channel, so it cannot be sent to a follower; remove it from the public state"),
        )
        .channel(channel)),
    }
}

impl Store {
    /// Applies logged events that continue this store's log (DESIGN §4): from a database the
    /// store's own writes went to ([`Store::preview`] first), another writer's events on the
    /// same run, or a server's transport events on a follower. Events at or before the store's
    /// version are skipped when they are the store's own (the same hash at that sequence, or
    /// before the checkpoint it was restored from), so a whole log, or events sent twice, may be
    /// passed. All or nothing; never calls the sink. Errors: `TAMPERED_LOG` naming the event (a
    /// broken link, a hash that does not match, an event that does not reproduce, or one at a
    /// known sequence that is not the store's: the logs forked); `LOG_GAP` when the first new
    /// event is not the next one (ask for the events after [`Store::version`]); `READ_ONLY` on a
    /// past view.
    pub fn ingest(&mut self, events: &[Event]) -> Result<Ingested> {
        if self.access == Access::Past {
            self.writable()?;
        }
        self.seal();
        // The events the store has: each must be its own (a different one made from the same
        // state is a competing write; from another state, a fork).
        let mut start = 0;
        for (i, e) in events.iter().enumerate() {
            if e.sequence > self.version {
                break;
            }
            if e.run_id != self.run_id {
                return Err(tampered(i, format!("event {i} belongs to run '{}', not '{}'", e.run_id, self.run_id))
                    .field("run_id"));
            }
            // Not applied, but never taken as clean when its content does not match its hash.
            if e.compute_hash(&self.chain).is_some_and(|h| h != e.hash) {
                return Err(tampered(
                    i,
                    format!("event {i} (sequence {}) breaks the log: its content does not match its hash", e.sequence),
                )
                .field("hash"));
            }
            if let Some((hash, prev)) = self.own_event(e.sequence) {
                if !hash.is(&e.hash) && prev.is_some_and(|p| p.is(&e.prev_hash)) {
                    return Err(Error::new(
                        ErrorCode::VersionConflict,
                        format!(
                            "event {i} (sequence {}) is another event than this store's at that sequence, made from the same state: another writer (or a stale preview) got there first; this store is at version {}",
                            e.sequence, self.version
                        ),
                    )
                    .at(i));
                }
                if !hash.is(&e.hash) {
                    return Err(tampered(
                        i,
                        format!(
                            "event {i} (sequence {}) is not this store's event at that sequence: the logs have forked",
                            e.sequence
                        ),
                    )
                    .field("hash"));
                }
            }
            start = i + 1;
        }
        self.check_before_base(events.get(..start).unwrap_or_default())?;
        // Events sent twice among the new ones are taken once (each repeat must be identical).
        let new = events.get(start..).unwrap_or_default();
        let mut kept: Vec<usize> = Vec::with_capacity(new.len());
        for (k, e) in new.iter().enumerate() {
            let repeat = kept.last().and_then(|&j| new.get(j)).is_some_and(|last| e.sequence <= last.sequence)
                && kept.iter().filter_map(|&j| new.get(j)).any(|x| x == e);
            if !repeat {
                kept.push(k);
            }
        }
        // Positions in the caller's list of what is applied (`kept` maps each to its input index).
        let deduped: Vec<Event>;
        let list: &[Event] = if kept.len() == new.len() {
            new
        } else {
            deduped = kept.iter().filter_map(|&k| new.get(k).cloned()).collect();
            &deduped
        };
        let at = |k: usize| start + kept.get(k).copied().unwrap_or(k);
        if let Some(first) = list.first() {
            if first.sequence != self.version + 1 {
                return Err(Error::new(
                    ErrorCode::LogGap,
                    format!(
                        "the store is at version {} but the next event given is sequence {}: ask for the events after {}",
                        self.version, first.sequence, self.version
                    ),
                )
                .at(at(0)));
            }
        }
        let hashed = self.apply_events(list, 0).map_err(|mut e| {
            if let Some(k) = e.index {
                // The words name the event as the details do: by its place in the caller's list.
                if let Some(rest) = e.message.strip_prefix(&format!("event {k} ")) {
                    e.message = format!("event {} {rest}", at(k));
                }
                e.index = Some(at(k));
            }
            e
        })?;
        Ok(Ingested { version: self.version, applied: list.len() as u64, hash_checked: hashed as u64 })
    }

    /// The hash (and, when in memory, the `prev_hash`) of this store's event at `sequence`;
    /// `None` before the checkpoint it was restored from. The log is sealed.
    fn own_event(&self, sequence: u64) -> Option<(HashText<'_>, Option<HashText<'_>>)> {
        if sequence > self.base.sequence {
            let at = usize::try_from(sequence - self.base.sequence - 1).ok()?;
            self.log.get(at).map(|e| (HashText::Bytes(&e.hash), Some(self.hash_before(at))))
        } else if sequence == self.base.sequence && sequence > 0 {
            Some((HashText::Text(self.base.hash.as_ref()), None))
        } else {
            None
        }
    }

    /// Known events before the checkpoint this store was restored from cannot be compared with
    /// its own: they must at least be a sound chain (links and the hashes this store can check)
    /// that leads into the checkpoint's event when that is given too.
    fn check_before_base(&self, known: &[Event]) -> Result<()> {
        let base = self.base.sequence;
        let before: Vec<&Event> = known.iter().filter(|e| e.sequence < base).collect();
        let (Some(first), Some(last)) = (before.first(), before.last()) else { return Ok(()) };
        let owned: Vec<Event> = before.iter().map(|e| (*e).clone()).collect();
        let anchor = (first.sequence.saturating_sub(1), first.prev_hash.clone());
        verify_log(&owned, (anchor.0, &anchor.1), &self.chain, self.follows).map_err(|b| b.into_error())?;
        let next = known.iter().position(|e| e.sequence == last.sequence + 1);
        if let Some(i) = next.filter(|&i| known.get(i).is_some_and(|n| n.prev_hash != last.hash)) {
            return Err(tampered(i, format!("event {i} does not link to the event before it")).field("prev_hash"));
        }
        Ok(())
    }

    /// A snapshot meant to leave the machine (format `stategate-export`, sealed by plain SHA-256
    /// whatever the chain, plus the key's `mac` on a keyed chain): like a checkpoint, but without private channels, their specs or any
    /// key. A follower starts from it ([`Store::follow`]). Errors: `PRIVATE_LEAK` naming the
    /// channel when a private value was copied into a public channel.
    pub fn export_for_transport(&mut self) -> Result<Vec<u8>> {
        self.seal();
        if let Some(channel) = self.log.last().and_then(|e| unsalted_private_held(e, &self.specs)) {
            return Err(unsalted_error(self.version, &channel));
        }
        let export = self.snapshot(EXPORT_FORMAT, false);
        check_sent(&[Value::Object(export.values.clone())], &self.private_values())?;
        Ok(export.encode(&self.chain))
    }

    /// The events in memory that match `filter`, safe to send where [`Store::export_for_transport`]
    /// goes: each write to a private channel removed from the payload and its salt dropped, the
    /// event listing the channel in `redacted` with the write's commitment (see
    /// [`Event::salted`]), so a follower recomputes the writer's hash without the value.
    /// Errors: `PRIVATE_LEAK` naming the channel when a private value (a string of 8+
    /// characters) was copied into a public write that would be sent.
    pub fn transport_events(&mut self, filter: &EventFilter) -> Result<Vec<Event>> {
        let private: Vec<String> =
            self.specs.iter().filter(|s| s.visibility == Visibility::Private).map(|s| s.name.clone()).collect();
        let mut secrets = self.private_values();
        self.seal();
        let selected: Vec<Event> = self.sealed_matching(filter).into_iter().filter_map(|i| self.event_at(i)).collect();
        // An unsalted private write (logged before salts, or without an entropy source) has a
        // hash that could confirm a guess of its value; the next event repeats it as `prev_hash`.
        let before = selected.first().and_then(|e| e.sequence.checked_sub(self.base.sequence + 2));
        let exposed = before.and_then(|i| usize::try_from(i).ok()).and_then(|i| self.log.get(i).map(|h| (i, h)));
        if let Some((e, channel)) = selected.iter().find_map(|e| unsalted_private(e, &private).map(|c| (e, c))) {
            return Err(unsalted_error(e.sequence, &channel));
        }
        if let Some((i, channel)) = exposed.and_then(|(i, h)| unsalted_private_held(h, &self.specs).map(|c| (i, c))) {
            return Err(unsalted_error(self.base.sequence + i as u64 + 1, &channel));
        }
        let events = selected
            .into_iter()
            .map(|mut e| {
                let salted = std::mem::take(&mut e.salted);
                let mut removed = Vec::new();
                for name in &private {
                    if let Some(value) = e.payload.shift_remove(name) {
                        let c = salted.get(name).and_then(Value::as_str).map(|salt| commitment(salt, &value));
                        e.redacted.insert(name.clone(), c.map_or(Value::Null, Value::String));
                        removed.push((name.clone(), value));
                    }
                }
                (e, removed)
            })
            .collect::<Vec<_>>();
        // The private values the sent events wrote count too, not only the current ones (a value
        // since replaced may have been copied into public state meanwhile). A messages channel's
        // ops are left to the current scan: their structure is what every public message shares.
        let json_channels: Vec<&str> = self
            .specs
            .iter()
            .filter(|s| s.reducer != super::schema::Reducer::Messages)
            .map(|s| s.name.as_str())
            .collect();
        for (name, value) in events.iter().flat_map(|(_, removed)| removed) {
            if json_channels.contains(&name.as_str()) {
                super::privacy::private_strings(name, value, &mut secrets);
            }
        }
        let events: Vec<Event> = events.into_iter().map(|(e, _)| e).collect();
        let public: Vec<Value> = events.iter().map(|e| Value::Object(e.payload.clone())).collect();
        check_sent(&public, &secrets)?;
        Ok(events)
    }

    /// A follower: a read-only store starting from a server's export (the bytes of
    /// [`Store::export_for_transport`]), which changes only by [`Store::ingest`] of the server's
    /// [`Store::transport_events`]. It checks every event's links; it recomputes an event's hash
    /// when it can: not redacted, and the chain unkeyed or `chain_key` given (a keyed chain
    /// without its key is [`Chain::Opaque`]). Errors: `CORRUPT_CHECKPOINT`,
    /// `UNSUPPORTED_FORMAT_VERSION`; `INVALID_OPTION` for a `chain_key` given for an unkeyed
    /// chain (or too short).
    pub fn follow(export: &[u8], chain_key: Option<&[u8]>) -> Result<Store> {
        let given = Chain::from_key(chain_key)?;
        let cp = Checkpoint::decode(export, EXPORT_FORMAT, &given)?;
        let chain = match (cp.keyed, given) {
            (true, Chain::Plain) => Chain::Opaque,
            (_, chain) => chain,
        };
        let mut s = Store::from_checkpoint(cp)?;
        (s.chain, s.access, s.follows) = (chain, Access::Follower, true);
        Ok(s)
    }
}
