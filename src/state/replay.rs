//! Logged events applied again (DESIGN §4): a replay, a restore's tail, an ingest, a past view.
//!
//! Each event's links are checked first (run, `event_id`, sequence, `prev_hash`); then its
//! payload is applied as a command at its own time, its own superstep, and the event this makes
//! must be the very one logged. That check is one hash: the store hashes the event it made
//! ([`crate::log::held`]: from the messages it holds, without a JSON tree) and compares it with
//! the logged `hash`, which covers every logged field but `type` (compared as well) and the
//! links. Equal, the logged event is intact and reproduced at once (issue 17: each event was
//! hashed as read, re-encoded as a tree, and compared field by field as made). Only when they
//! differ is the logged event hashed as it was read, to say which it is: a broken hash, or an
//! event that does not reproduce.

use super::command::StoreOptions;
use super::history::tampered;
use super::message_ops::MessageOp;
use super::schema::{ChannelSpec, Visibility};
use super::store::Logged;
use super::store::{Decoded, Expect, Mode, Slot, Store, Write};
use crate::error::{Error, ErrorCode, Result};
use crate::log::held::Held;
use crate::log::line::{Line, WriteText};
use crate::log::JsonlLine;
use crate::log::{check_links, is_event_id, BreakReason, BrokenLink, Event};
use crate::message::Message;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::rc::Rc;

impl Store {
    /// Applies logged events that continue this store's log, all or nothing (one journal): checks
    /// every link first, then applies each payload as a command at its own time, each its own
    /// superstep, checking that each event this makes is the one logged (see the module
    /// documentation). `offset` is the position of `events[0]` in the caller's list (errors name
    /// positions in that list). Never calls the sink. Returns how many hashes were checked.
    /// Errors: `TAMPERED_LOG` naming the event; `UNKNOWN_CHANNEL` for a channel the store lacks.
    pub(super) fn apply_events(&mut self, events: &[Event], offset: usize) -> Result<usize> {
        let Some(first) = events.first() else { return Ok(0) };
        if first.run_id != self.run_id {
            return Err(tampered(
                offset,
                format!("event {offset} belongs to run '{}', not '{}'", first.run_id, self.run_id),
            )
            .field("run_id"));
        }
        let anchor = (self.version, self.last_hash());
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
        check_links(events, (anchor.0, &anchor.1), follower).map_err(|mut b| {
            b.index += offset;
            b.into_error()
        })?;
        let mut batch = Vec::with_capacity(events.len());
        for (k, e) in events.iter().enumerate() {
            batch.push(self.decode_event(e, offset + k)?);
        }
        let ran = self.run_batch(batch, 0, Mode::Ingest).map_err(|err| {
            let k = err.command.unwrap_or(0);
            let index = offset + k;
            let Some(e) = events.get(k) else { return err };
            // An event whose content no longer matches its own hash is a broken link, whatever
            // applying it did.
            if e.compute_hash(&self.chain).is_some_and(|h| h != e.hash) {
                return BrokenLink { index, sequence: Some(e.sequence), reason: BreakReason::Hash }.into_error();
            }
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
        Ok(ran.hashed)
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
            author: Cow::Borrowed(&e.author),
            expected_version: None,
            writes,
            correlation_id: e.correlation_id.clone(),
            causation_id: e.causation_id.clone(),
            system: e.system,
            expect: Expect::Logged(e.into()),
            at: Some(e.created_at),
        })
    }

    /// Applies, one at a time, the logged events of a store being rebuilt (replay, restore),
    /// which is dropped on any error: each event is read, checked, applied and dropped before the
    /// next, so a log is never held whole as events (`events` may parse them as it goes: a JSON
    /// Lines text). `offset` is the position of the first in the caller's list. Returns how many
    /// hashes were checked.
    pub(super) fn rebuild_from<'e>(
        &mut self,
        events: impl IntoIterator<Item = Result<Cow<'e, Event>>>,
        offset: usize,
    ) -> Result<usize> {
        let mut hashed = 0;
        for (k, e) in events.into_iter().enumerate() {
            hashed += self.apply_events(std::slice::from_ref(&*e?), offset + k)?;
        }
        Ok(hashed)
    }

    /// Applies an event of another store's own log again (a past view being built from the live
    /// store's log): its writes (`specs` names their channels) as a command at its own time, and
    /// the event this makes must be the same (it takes its hash). Nothing is hashed: the live
    /// store's events are its own. `index` names it in errors.
    pub(super) fn apply_held(&mut self, held: &Held, specs: &[ChannelSpec], index: usize) -> Result<()> {
        let mut writes = Vec::new();
        for (c, write) in held.writes() {
            let name = usize::try_from(c).ok().and_then(|c| specs.get(c)).map_or("", |s| s.name.as_str());
            writes.push((self.index(name)?, write.to_write()));
        }
        let decoded = Decoded {
            author: Cow::Borrowed(&held.author),
            expected_version: None,
            writes,
            correlation_id: held.correlation_id().map(str::to_string),
            causation_id: held.causation_id().map(str::to_string),
            system: held.system,
            expect: Expect::Held(held),
            at: Some(held.created_at),
        };
        self.run_batch([decoded], 0, Mode::Ingest).map(|_| ()).map_err(|err| {
            tampered(index, format!("event {index} does not apply again: {}: {}", err.code.as_str(), err.message))
        })
    }

    /// Rebuilds a store from a whole log (first event sequence 1). `opts.channels` must declare
    /// the channels the log writes beyond the default schema (private ones included; their owners
    /// then claim keys with [`Store::claim_owner_key`]). Errors: `TAMPERED_LOG` naming the first
    /// bad event; `INVALID_OPTION`.
    pub fn replay(opts: StoreOptions, events: &[Event]) -> Result<Store> {
        let mut s = Store::for_replay(opts, events.first().map(|e| e.run_id.as_str()))?;
        s.rebuild_from(events.iter().map(|e| Ok(Cow::Borrowed(e))), 0)?;
        Ok(s)
    }

    /// [`Store::replay`] of a log given as JSON Lines (one event per line; blank lines ignored),
    /// read one line at a time: each line is parsed, checked and applied before the next is
    /// read ([`Store::apply_lines`]). Errors: those of `replay`, and `TAMPERED_LOG` naming the
    /// first line that is not an event.
    pub fn replay_jsonl(opts: StoreOptions, text: &str) -> Result<Store> {
        let mut whole = Some(text.as_bytes());
        Store::replay_jsonl_pieces(opts, text.len(), |buf| Ok(whole.take().map(|t| buf.extend_from_slice(t)).is_some()))
    }

    /// Applies the lines of a JSON Lines log ([`crate::log::jsonl_lines`]) to a store being
    /// rebuilt, one at a time, as [`Store::rebuild_from`] applies events. Returns how many
    /// hashes were checked.
    pub(super) fn apply_lines<'t>(&mut self, lines: impl Iterator<Item = JsonlLine<'t>>) -> Result<usize> {
        let mut hashed = 0;
        for line in lines {
            hashed += self.apply_line(&line)?;
        }
        Ok(hashed)
    }

    /// Applies one line of a JSON Lines log as [`Store::apply_events`] applies an event: read
    /// without a JSON tree when it can be ([`Line`]: its messages decoded straight from the
    /// text, and the event hashed once, as made). A line the quick reading does not take, for
    /// whatever reason, is read and applied again as an [`Event`] on the store as it was (a
    /// failed change leaves it so), which gives the error, if any.
    pub(super) fn apply_line(&mut self, line: &JsonlLine<'_>) -> Result<usize> {
        if let Some(hashed) = Line::read(line.text).and_then(|quick| self.apply_line_quickly(&quick).ok()) {
            return Ok(hashed);
        }
        let e = crate::log::event_of_line(line)?;
        self.apply_events(std::slice::from_ref(&e), line.index)
    }

    /// [`Store::apply_line`]'s quick reading: the links checked as [`check_links`] checks them,
    /// the payload decoded as [`Store::decode_event`] decodes it, then applied. Any error means
    /// only "read it as an event" (the store is as it was).
    pub(super) fn apply_line_quickly(&mut self, line: &Line<'_>) -> Result<usize> {
        let quick = || Error::new(ErrorCode::TamperedLog, "read as an event");
        self.seal();
        let links = line.run_id == self.run_id
            && is_event_id(&line.event_id, &line.run_id, line.sequence)
            && line.sequence == self.version + 1
            && self.hash_before(self.log.len()).is(&line.prev_hash)
            && line.redacted.is_empty()
            && !self.follows
            && line.salted.keys().all(|c| line.payload.0.iter().any(|(name, _)| name == c));
        if !links {
            return Err(quick());
        }
        let mut writes = Vec::with_capacity(line.payload.0.len());
        for (name, raw) in &line.payload.0 {
            let i = self.index(name)?;
            let spec = self.specs.get(i).ok_or_else(quick)?;
            if line.salted.contains_key(name) && spec.visibility != Visibility::Private {
                return Err(quick());
            }
            let write = match (self.slots.get(i), raw) {
                (Some(Slot::Messages(_)), WriteText::Items(items)) => {
                    Write::Messages(ops_from_items(items).ok_or_else(quick)?)
                }
                (Some(Slot::Messages(_)), WriteText::Whole(raw)) => {
                    let items: Vec<&RawValue> = serde_json::from_str(raw.get()).map_err(|_| quick())?;
                    Write::Messages(ops_from_items(&items).ok_or_else(quick)?)
                }
                (_, WriteText::Whole(raw)) => Write::Json(serde_json::from_str(raw.get()).map_err(|_| quick())?),
                // The `messages` key names the messages channel: never another.
                (_, WriteText::Items(_)) => return Err(quick()),
            };
            writes.push((i, write));
        }
        let logged =
            Logged { hash: &line.hash, kind: line.kind, salted: &line.salted, redacted: &line.redacted, event: None };
        let decoded = Decoded {
            author: Cow::Borrowed(&line.author),
            expected_version: None,
            writes,
            correlation_id: line.correlation_id.as_deref().map(str::to_string),
            causation_id: line.causation_id.as_deref().map(str::to_string),
            system: line.system,
            expect: Expect::Logged(logged),
            at: Some(line.created_at),
        };
        Ok(self.run_batch([decoded], 0, Mode::Ingest)?.hashed)
    }

    /// An empty store to replay a log into: `opts`, its run id the log's when not given.
    pub(super) fn for_replay(opts: StoreOptions, log_run: Option<&str>) -> Result<Store> {
        let run_id = opts.run_id.clone().or_else(|| log_run.map(str::to_string));
        let mut s = Store::of(StoreOptions { run_id, channels: Vec::new(), chain_key: opts.chain_key })?;
        for spec in opts.channels {
            s.add(spec, false)?;
        }
        Ok(s)
    }
}

/// A logged messages write read from the text of its items: each message written as the store
/// writes a put (an object starting with its `id`) straight into a [`Message`]; any other op
/// through a JSON tree, as [`MessageOp::list_from_canonical`] reads it. `None` for what does not
/// read.
fn ops_from_items(items: &[&RawValue]) -> Option<Vec<MessageOp>> {
    items
        .iter()
        .map(|raw| {
            let t = raw.get();
            if t.starts_with("{\"id\":") {
                serde_json::from_str::<Message>(t).ok().map(|m| MessageOp::Put(Rc::new(m)))
            } else {
                MessageOp::from_canonical(&serde_json::from_str::<Value>(t).ok()?).ok()
            }
        })
        .collect()
}
