//! The apply pipeline (DESIGN §3): every change of a store goes through one gate — decode →
//! authorise → version lock → validate and reduce (domain rules, budget) → version + 1 → one
//! event per command, handed to the write-ahead sink before it is kept. A batch is all or
//! nothing; a failure anywhere rolls the journal back, so the store is exactly as it was.

use super::command::{Applied, BatchApplied, Command};
use super::domain::{run_status, set_used, used_counters, COUNTERS};
use super::journal::Journal;
use super::message_ops::decode_ops;
use super::messages::Effects;
use super::reducer::reduce;
use super::schema::{Kind, Reducer, Visibility};
use super::sink::{Entropy, EntropySlot, EventSink, Mode, SinkSlot};
use super::store::{depth, Access, Decoded, Expect, Slot, Store, Write, MAX_DEPTH};
use crate::error::{Error, ErrorCode, Result};
use crate::lifecycle::RunStatus;
use crate::log::held::{hash_bytes, hex_is, Body, HashText, Held, More};
use crate::log::{same_event, Event, EventType};
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;

impl Store {
    /// A fresh salt for each write to a private channel, when the store has an entropy source.
    fn salts_for(&self, writes: &[(usize, Write)]) -> Result<crate::log::SideMap> {
        let mut salted = crate::log::SideMap::default();
        let EntropySlot(Some(entropy)) = &self.entropy else { return Ok(salted) };
        for (i, _) in writes {
            if let Some(spec) = self.specs.get(*i).filter(|s| s.visibility == Visibility::Private) {
                salted.insert(spec.name.clone(), Value::String(entropy.salt()?));
            }
        }
        Ok(salted)
    }
}

/// What a change produced: the ids of the messages each command wrote, for a preview the events
/// it would have logged, and for logged events applied again how many had their hash recomputed.
pub(super) struct Ran {
    pub(super) ids: Vec<Vec<String>>,
    pub(super) events: Vec<Event>,
    pub(super) hashed: usize,
}

impl Store {
    /// Applies one command at time `now_ms` (ms since the epoch, for the budget deadline and the
    /// event). Errors: every code of the pipeline; the store is unchanged on error.
    /// The new event goes to the store's sink ([`Store::set_sink`]) before the change is kept
    /// (write-ahead: if the sink fails, e.g. the log cannot be written, the command is rolled back).
    pub fn apply(&mut self, cmd: &Command, now_ms: u64) -> Result<Applied> {
        let decoded = self.decode(cmd);
        self.apply_decoded(decoded, now_ms)
    }

    /// [`Store::apply`] of a command once decoded (or the error decoding it gave).
    pub(super) fn apply_decoded(&mut self, decoded: Result<Decoded<'_>>, now_ms: u64) -> Result<Applied> {
        let result = decoded.and_then(|d| self.run_batch([d], now_ms, Mode::Commit));
        let mut out = result.map_err(|e| self.scrub(Error { command: None, ..e }))?;
        Ok(Applied { version: self.version, ids: out.ids.pop().unwrap_or_default() })
    }

    /// Sets (or, with `None`, removes) the write-ahead sink every later change goes through.
    pub fn set_sink(&mut self, sink: Option<std::rc::Rc<dyn EventSink>>) {
        self.sink = SinkSlot(sink);
    }

    /// Sets (or removes) the source of the salts of later private writes. Without one (the Rust
    /// API's default) private writes are not salted: their events hash the values themselves, so
    /// a follower cannot check them and their hashes could confirm a guessed value.
    pub fn set_entropy(&mut self, entropy: Option<std::rc::Rc<dyn Entropy>>) {
        self.entropy = EntropySlot(entropy);
    }

    /// Whether `cmd` would be applied now, without applying it: the whole pipeline runs and is
    /// rolled back (so the store, its version and its log are unchanged either way). Lets a
    /// caller refuse before it performs effects outside the store (e.g. server calls of a task
    /// tool whose result the store would refuse). Errors: those `apply` would return.
    pub fn check(&mut self, cmd: &Command, now_ms: u64) -> Result<()> {
        let result = self.decode(cmd).and_then(|d| self.run_batch([d], now_ms, Mode::DryRun));
        result.map(|_| ()).map_err(|e| self.scrub(Error { command: None, ..e }))
    }

    /// Applies the commands of one superstep, all or nothing, in call order; each gets its own
    /// event and version. Two commands writing one `replace` channel, or one key of a `merge`
    /// channel declaring `onConflict: "error"`, fail with `CONCURRENT_WRITE` naming both authors.
    /// `expectedVersion`s are checked against the version before the batch. Errors carry
    /// `command` = the index of the failing command.
    /// The batch's events go to the sink in one call (a batch is atomic on disk).
    pub fn apply_batch(&mut self, cmds: &[Command], now_ms: u64) -> Result<BatchApplied> {
        let ran =
            self.decode_batch(cmds).and_then(|d| self.run_batch(d, now_ms, Mode::Commit)).map_err(|e| self.scrub(e))?;
        Ok(BatchApplied { version: self.version, ids: ran.ids })
    }

    /// The events `apply_batch(cmds, now_ms)` would log now (one per command, sealed: `prev_hash`
    /// and `hash` set), leaving the store, its version and its log exactly as they were. For a
    /// log the store cannot write synchronously (a database): preview, persist the events, then
    /// [`Store::ingest`] them. Errors: those `apply_batch` would return.
    pub fn preview(&mut self, cmds: &[Command], now_ms: u64) -> Result<Vec<Event>> {
        let ran = self
            .decode_batch(cmds)
            .and_then(|d| self.run_batch(d, now_ms, Mode::Preview))
            .map_err(|e| self.scrub(e))?;
        Ok(ran.events)
    }

    /// Each command of a batch decoded; an error names the command (`details.command`).
    fn decode_batch<'c>(&self, cmds: &'c [Command]) -> Result<Vec<Decoded<'c>>> {
        cmds.iter().enumerate().map(|(ci, c)| self.decode(c).map_err(|e| e.command(ci))).collect()
    }

    /// An error about a private channel with everything but its code, channel, position and
    /// authors withheld: messages and fields may quote the values or keys written.
    pub(super) fn scrub(&self, e: Error) -> Error {
        let private = e
            .channel
            .as_deref()
            .and_then(|c| self.by_name.get(c))
            .and_then(|&i| self.specs.get(i))
            .is_some_and(|s| s.visibility == Visibility::Private);
        if !private {
            return e;
        }
        let channel = e.channel.clone().unwrap_or_default();
        Error {
            message: format!("the write to private channel '{channel}' was refused; details are withheld because the channel is private"),
            field: None,
            ..e
        }
    }

    /// decode: channel names → indices, messages → ops. No state is read but the schema.
    fn decode<'c>(&self, cmd: &'c Command) -> Result<Decoded<'c>> {
        let mut writes = Vec::with_capacity(cmd.update.len());
        for (name, value) in &cmd.update {
            let i = self.index(name)?;
            if depth(value) > MAX_DEPTH {
                return Err(Error::new(
                    ErrorCode::InvalidUpdate,
                    format!("the value for channel '{name}' nests deeper than {MAX_DEPTH} levels; flatten it"),
                )
                .channel(name));
            }
            let write = match self.specs.get(i).map(|s| s.reducer) {
                Some(Reducer::Messages) => {
                    let ops = decode_ops(value).map_err(|e| Error { channel: Some(name.clone()), ..e })?;
                    // Arguments given as JSON text (OpenAI `function.arguments`) nest below the
                    // value's own depth: measured after decoding, with the same limit.
                    let calls = ops.iter().enumerate().filter_map(|(k, op)| Some(k).zip(op.message()));
                    for (k, call) in calls.flat_map(|(k, m)| m.tool_calls.iter().map(move |c| (k, c))) {
                        if depth(&call.args) > MAX_DEPTH {
                            return Err(Error::new(
                                ErrorCode::InvalidToolCall,
                                format!("the arguments of tool call '{}' nest deeper than {MAX_DEPTH} levels; the log could not be read back", call.id),
                            )
                            .channel(name)
                            .at(k));
                        }
                    }
                    Write::Messages(ops)
                }
                // Numbers as JS holds them, so events read back through JS still verify.
                _ => Write::Json(crate::message::formats::util::js_numbers(value.clone())),
            };
            writes.push((i, write));
        }
        check_author(&cmd.author)?;
        Ok(Decoded {
            author: std::borrow::Cow::Borrowed(&cmd.author),
            expected_version: cmd.expected_version,
            writes,
            correlation_id: cmd.correlation_id.clone(),
            causation_id: cmd.causation_id.clone(),
            system: false,
            expect: Expect::New,
            at: None,
        })
    }

    /// authorise: the author must be the channel's owner (if any) and among its writers (if listed).
    pub(super) fn authorise(&self, author: &str, i: usize) -> Result<()> {
        let Some(spec) = self.specs.get(i) else { return Ok(()) };
        if spec.owner.as_deref().is_some_and(|o| o != author) {
            return Err(Error::new(
                ErrorCode::NotOwner,
                format!("channel '{}' is written only by its owner", spec.name),
            )
            .channel(&spec.name));
        }
        if spec.writers.as_ref().is_some_and(|w| !w.iter().any(|a| a == author)) {
            return Err(Error::new(
                ErrorCode::NotAuthorized,
                format!("author '{author}' may not write channel '{}'", spec.name),
            )
            .channel(&spec.name));
        }
        Ok(())
    }

    /// The one pipeline every change goes through: authorise and lock every command first, then
    /// reduce them in order under a journal, hand the events to the sink (`Mode::Commit`), and
    /// on any error — or after a dry run or a preview — restore everything.
    /// `batch`: a `Vec`, or an array of one (a command applied alone allocates no list).
    pub(super) fn run_batch<'d, B>(&mut self, batch: B, now_ms: u64, mode: Mode) -> Result<Ran>
    where
        B: AsRef<[Decoded<'d>]> + IntoIterator<Item = Decoded<'d>>,
    {
        match (mode, self.access) {
            (Mode::Ingest, Access::Follower) => {}
            _ => self.writable()?,
        }
        for (ci, cmd) in batch.as_ref().iter().enumerate() {
            for (i, _) in &cmd.writes {
                self.authorise(&cmd.author, *i).map_err(|e| e.command(ci))?;
            }
        }
        for (ci, cmd) in batch.as_ref().iter().enumerate() {
            if let Some(v) = cmd.expected_version.filter(|v| *v != self.version) {
                return Err(Error::new(
                    ErrorCode::VersionConflict,
                    format!(
                        "expected version {v}, but the store is at version {}; read the state again and retry",
                        self.version
                    ),
                )
                .command(ci));
            }
        }
        let mut journal = Journal {
            version: self.version,
            log_len: self.log.len(),
            json: Vec::new(),
            messages: Vec::new(),
            counters: None,
            call_events: Vec::new(),
            hashed: 0,
        };
        let result = self.reduce_batch(batch, now_ms, mode == Mode::Ingest, &mut journal);
        let sink = self.sink.0.clone();
        let mut events = Vec::new();
        let result = match (mode, sink) {
            (Mode::DryRun, _) => result.map(|ids| (ids, false)),
            (Mode::Preview, _) => result.map(|ids| {
                events = self.events_from(journal.log_len).to_vec();
                (ids, false)
            }),
            (Mode::Commit, Some(sink)) => {
                result.and_then(|ids| sink.write(&self.events_from(journal.log_len)).map(|()| (ids, true)))
            }
            (Mode::Commit, None) | (Mode::Ingest, _) => result.map(|ids| (ids, true)),
        };
        match result {
            Ok((ids, true)) => {
                for i in journal.messages {
                    if let Some(Slot::Messages(m)) = self.slots_mut().get_mut(i) {
                        m.commit();
                    }
                }
                Ok(Ran { ids, events, hashed: journal.hashed })
            }
            result => {
                if let Some((bi, counters)) = journal.counters {
                    if let Some(Slot::Json(Value::Object(budget))) = self.slots_mut().get_mut(bi) {
                        for ((name, _), n) in COUNTERS.iter().zip(counters) {
                            set_used(budget, name, n);
                        }
                    }
                }
                for (i, v) in journal.json.into_iter().rev() {
                    if let Some(slot) = self.slots_mut().get_mut(i) {
                        *slot = Slot::Json(v);
                    }
                }
                for i in journal.messages {
                    if let Some(Slot::Messages(m)) = self.slots_mut().get_mut(i) {
                        m.rollback();
                    }
                }
                for (call, old) in journal.call_events.into_iter().rev() {
                    match old {
                        Some(event) => self.call_events.insert(call, event),
                        None => self.call_events.remove(&call),
                    };
                }
                self.version = journal.version;
                self.log.truncate(journal.log_len);
                self.sealed = self.sealed.min(journal.log_len);
                result.map(|(ids, _)| Ran { ids, events, hashed: journal.hashed })
            }
        }
    }

    /// Reduces a batch in order. `sequential`: each command is its own superstep (logged events
    /// applied again), so two of them writing one channel is no concurrent write.
    fn reduce_batch<'d>(
        &mut self,
        batch: impl IntoIterator<Item = Decoded<'d>>,
        now_ms: u64,
        sequential: bool,
        journal: &mut Journal,
    ) -> Result<Vec<Vec<String>>> {
        let mut written_by: HashMap<(usize, String), (usize, String)> = HashMap::new();
        let batch = batch.into_iter();
        let mut all_ids = Vec::with_capacity(batch.size_hint().0);
        for (ci, cmd) in batch.enumerate() {
            if sequential {
                written_by.clear();
            }
            let now_ms = cmd.at.unwrap_or(now_ms);
            let ids = self.reduce_command(cmd, ci, now_ms, journal, &mut written_by).map_err(|e| e.command(ci))?;
            all_ids.push(ids);
        }
        Ok(all_ids)
    }

    /// validate → reduce → cross-channel checks → version + 1 → event, for one command.
    fn reduce_command(
        &mut self,
        mut cmd: Decoded<'_>,
        ci: usize,
        now_ms: u64,
        journal: &mut Journal,
        written_by: &mut HashMap<(usize, String), (usize, String)>,
    ) -> Result<Vec<String>> {
        let sequence = self.version + 1;
        let (run_i, approvals_i, budget_i) =
            (self.kind_slot(Kind::Run), self.kind_slot(Kind::Approvals), self.kind_slot(Kind::Budget));
        let run_before = self.json(run_i).map(run_status).unwrap_or(RunStatus::Created);
        // The counters before the command, read now only when it writes the budget itself
        // (otherwise they are still there when the budget is checked).
        let budget_before =
            budget_i.filter(|b| cmd.writes.iter().any(|(i, _)| i == b)).map(|b| used_counters(self.json(Some(b))));
        let mut fx = Effects::default();
        let mut first_result: Option<String> = None;
        // A logged event applied again returns no ids (nobody reads them): not collected.
        let new = matches!(cmd.expect, Expect::New);
        for (i, write) in cmd.writes.iter_mut() {
            let i = *i;
            journal.touch(i, self.slots_mut());
            let spec = self
                .specs
                .get(i)
                .ok_or_else(|| Error::new(ErrorCode::UnknownChannel, "internal: channel index out of range"))?;
            match (Rc::make_mut(&mut self.slots).get_mut(i), write) {
                (Some(Slot::Messages(channel)), Write::Messages(ops)) => {
                    channel.assign_ids(ops, &self.run_id, sequence);
                    let e = channel.apply(ops, new).map_err(|e| e.channel(&spec.name))?;
                    if e.model_or_tool && run_before.is_terminal() && !cmd.system {
                        return Err(Error::new(
                            ErrorCode::RunEnded,
                            format!("the run is {}; it takes no new assistant or tool messages", run_before.as_str()),
                        )
                        .channel(&spec.name));
                    }
                    fx.ids.extend(e.ids);
                    fx.model_or_tool |= e.model_or_tool;
                    // A private messages channel (an agent's own history) is not the run's: its
                    // turns and usage stay out of the public budget, and its call ids out of the
                    // public event fields (correlation, causation), which followers are sent.
                    if spec.visibility != Visibility::Private {
                        first_result = first_result.or_else(|| e.results.first().map(|(call, _)| call.clone()));
                        fx.turns += e.turns;
                        fx.tool_calls += e.tool_calls;
                        fx.tokens += e.tokens;
                        fx.new_calls.extend(e.new_calls);
                        fx.approvals.extend(e.approvals);
                    }
                    fx.results.extend(e.results);
                }
                (Some(Slot::Json(value)), Write::Json(update)) => {
                    let written = reduce(spec, value, update).map_err(|e| e.channel(&spec.name))?;
                    for key in written.conflicting {
                        match written_by.get(&(i, key.clone())) {
                            Some((other, first)) if *other != ci => {
                                let what = if key.is_empty() {
                                    format!("channel '{}'", spec.name)
                                } else {
                                    format!("key '{key}' of channel '{}'", spec.name)
                                };
                                let mut e = Error::new(
                                    ErrorCode::ConcurrentWrite,
                                    format!(
                                        "'{first}' and '{}' both wrote {what} in one batch; write it from one of them{}",
                                        cmd.author,
                                        if spec.reducer == Reducer::Merge && spec.kind == Kind::Generic { ", or declare the channel with onConflict: \"callOrder\"" } else { "" }
                                    ),
                                )
                                .channel(&spec.name);
                                if !key.is_empty() {
                                    e = e.field(key);
                                }
                                e.authors = vec![first.clone(), cmd.author.to_string()];
                                return Err(e);
                            }
                            _ => {
                                written_by.insert((i, key), (ci, cmd.author.to_string()));
                            }
                        }
                    }
                }
                _ => return Err(Error::new(ErrorCode::InvalidUpdate, "internal: write does not fit the channel")),
            }
        }
        if !fx.approvals.is_empty() {
            self.feed_approvals(&fx.approvals, &cmd.author, now_ms, (approvals_i, run_i), journal)?;
        }
        if !cmd.system {
            self.check_cross(&fx, (run_before, budget_before), (run_i, approvals_i, budget_i), now_ms, journal)?;
        }
        // A tool result's event: correlated by its call id, caused by the call's event.
        if let (None, Some(call)) = (&cmd.correlation_id, first_result) {
            if cmd.causation_id.is_none() {
                cmd.causation_id =
                    self.call_events.get(call.as_str()).map(|&at| super::messages::numbered(&self.run_id, at));
            }
            cmd.correlation_id = Some(call);
        }
        for call in fx.new_calls {
            let old = self.call_events.insert(call.clone(), sequence);
            journal.call_events.push((call, old));
        }
        // Each private write gets a salt (an event applied again keeps its own).
        let (salted, redacted) = match cmd.expect {
            Expect::Logged(e) => (e.salted.clone(), e.redacted.clone()),
            Expect::Held(h) => (h.salted().clone(), h.redacted().clone()),
            Expect::New => (self.salts_for(&cmd.writes)?, Default::default()),
        };
        let names = |i: &usize| self.specs.get(*i).map_or("", |s| s.name.as_str());
        let mut kind = EventType::of_writes(cmd.writes.iter().map(|(i, w)| (names(i), w)));
        // A redacted event's type was made from writes a follower does not see (a private
        // messages channel's tool result): the type it logged, covered by its hash, stands.
        match cmd.expect {
            Expect::Logged(e) if !e.redacted.is_empty() => kind = e.kind,
            Expect::Held(h) if !h.redacted().is_empty() => kind = h.kind,
            _ => {}
        }
        let more = (cmd.correlation_id.is_some()
            || cmd.causation_id.is_some()
            || !salted.is_empty()
            || !redacted.is_empty())
        .then(|| {
            Box::new(More { correlation_id: cmd.correlation_id, causation_id: cmd.causation_id, salted, redacted })
        });
        let mut held = Held {
            hash: [0; 32],
            created_at: now_ms,
            author: self.log.author(&cmd.author),
            body: Body::of(cmd.writes),
            more,
            kind,
            system: cmd.system,
        };
        // Applied again: the event must be the one logged, and takes its hash (sealed at once).
        let at = self.log.len();
        let replayed = match cmd.expect {
            Expect::New => false,
            Expect::Held(source) => {
                if !held.same_as(source) {
                    return Err(not_reproduced(sequence));
                }
                held.hash = source.hash;
                true
            }
            Expect::Logged(logged) => {
                // The hash of what this store made covers every field the log gave but `type`
                // (compared here) and the links (checked before): equal to the logged hash, the
                // logged event is intact and reproduced.
                match held.digest(self.place(at), &self.chain) {
                    Some(d) if held.kind == logged.kind && hex_is(&d, logged.hash) => {
                        held.hash = d;
                        journal.hashed += 1;
                    }
                    Some(_) => return Err(not_reproduced(sequence)),
                    // Not hashable here (a keyed chain followed without its key, a redacted write
                    // without a commitment): compared field by field, its hash taken as given.
                    None => {
                        let bytes = hash_bytes(logged.hash).ok_or_else(|| {
                            Error::new(
                                ErrorCode::TamperedLog,
                                format!("event {sequence} has a hash that is not 64 lowercase hex digits"),
                            )
                            .field("hash")
                        })?;
                        let made = held.to_event(self.place(at), HashText::Text(logged.hash));
                        if !logged.event.is_some_and(|logged| same_event(&made, logged)) {
                            return Err(not_reproduced(sequence));
                        }
                        held.hash = bytes;
                    }
                }
                true
            }
        };
        if replayed && self.sealed == self.log.len() {
            self.sealed += 1;
        }
        self.log.push(held);
        self.version = sequence;
        Ok(fx.ids)
    }
}

/// `TAMPERED_LOG` for an event applied again that does not give the event logged.
fn not_reproduced(sequence: u64) -> Error {
    Error::new(ErrorCode::TamperedLog, format!("event {sequence} does not reproduce: its payload was altered"))
}

/// A command's author is not empty (`INVALID_UPDATE` on `author`).
pub(super) fn check_author(author: &str) -> Result<()> {
    if author.is_empty() {
        return Err(Error::new(ErrorCode::InvalidUpdate, "a command needs a non-empty author").field("author"));
    }
    Ok(())
}
