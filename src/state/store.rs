//! The store: channel values, the apply pipeline with its journal, views and repair.

use super::command::{Applied, BatchApplied, Command, StoreOptions};
use super::domain::{run_status, set_used, used_counters, COUNTERS};
use super::journal::Journal;
use super::messages::{decode_ops, Effects, MessageOp, MessagesChannel};
use super::reducer::reduce;
use super::schema::{default_schema, ChannelSpec, Kind, Reducer, Visibility};
pub use super::sink::EventSink;
pub(super) use super::sink::Mode;
use super::sink::SinkSlot;
use crate::error::{Error, ErrorCode, Result};
use crate::lifecycle::RunStatus;
use crate::log::{payload_of, same_event, Event, EventType, GENESIS_HASH};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// How deep a value may nest: anything deeper could not be read back from the log or a
/// checkpoint (serde_json stops at 128 levels, and events add a few).
pub const MAX_DEPTH: usize = 64;

/// Nesting depth of a JSON value (a scalar is 0).
pub(crate) fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// One channel's write in a decoded command (and in an event's payload).
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// Ops on a messages channel.
    Messages(Vec<MessageOp>),
    /// A value for a JSON channel's reducer.
    Json(Value),
}

#[derive(Debug, Clone)]
pub(super) enum Slot {
    Json(Value),
    Messages(MessagesChannel),
}

/// A command after decoding: channel indices and typed writes.
pub(super) struct Decoded<'e> {
    pub(super) author: String,
    pub(super) expected_version: Option<u64>,
    pub(super) writes: Vec<(usize, Write)>,
    pub(super) correlation_id: Option<String>,
    pub(super) causation_id: Option<String>,
    /// A repair by the store itself: exempt from the run-ended, deadline, approval and turn rules
    /// (it only answers dangling calls with error results and tidies the list).
    pub(super) system: bool,
    /// When replaying: the logged event this command must reproduce (its hash was verified, so
    /// the new event is compared field by field instead of hashed again).
    pub(super) expect: Option<&'e Event>,
}

/// What a store's in-memory log follows: the genesis, or the checkpoint it was restored from.
#[derive(Debug, Clone)]
pub(super) struct Base {
    /// The sequence of the last event before the log in memory (0 at the genesis).
    pub(super) sequence: u64,
    /// That event's hash ([`GENESIS_HASH`] at the genesis).
    pub(super) hash: String,
    /// The checkpoint restored from, if any (time travel before the log starts there).
    pub(super) checkpoint: Option<Box<crate::log::Checkpoint>>,
}

/// An agent's state: one value per channel, the version, and the log of applied commands.
///
/// Invariants: `version == events().len()`; every message has a unique id; every stored tool
/// result answers a call made before it in its channel (unless a removal orphaned it later).
#[derive(Debug, Clone)]
pub struct Store {
    pub(super) run_id: String,
    pub(super) specs: Vec<ChannelSpec>,
    by_name: HashMap<String, usize>,
    pub(super) slots: Vec<Slot>,
    pub(super) version: u64,
    /// Events since `base` (all of them unless the store was restored from a checkpoint).
    pub(super) log: Vec<Event>,
    /// How many events of `log` carry their `prev_hash` and `hash`. Hashing is deferred until
    /// events leave the store (read, persisted, checkpointed): the chain is deterministic, so
    /// sealing later gives the very same hashes, and appends stay cheap.
    pub(super) sealed: usize,
    /// What the in-memory log follows.
    pub(super) base: Base,
    /// Owner name → key, for private channels (absent until claimed after a restore).
    pub(super) keys: HashMap<String, String>,
    /// Tool call id → the event that recorded the call (causation of its result's event).
    call_events: HashMap<String, String>,
    /// A past view (`at`): every change is refused with `READ_ONLY`.
    pub(super) read_only: bool,
    /// Where every change's events go before it is kept.
    pub(super) sink: SinkSlot,
}

impl Store {
    /// A store with the default schema plus `opts.channels`.
    ///
    /// Errors: `INVALID_OPTION` for a bad spec or a private channel (register those with
    /// [`Store::register_channel`]); `CHANNEL_EXISTS` for a duplicate name.
    pub fn new(opts: StoreOptions) -> Result<Store> {
        let mut store = Store {
            run_id: opts.run_id.unwrap_or_else(|| "run".to_string()),
            specs: Vec::new(),
            by_name: HashMap::new(),
            slots: Vec::new(),
            version: 0,
            log: Vec::new(),
            sealed: 0,
            base: Base { sequence: 0, hash: GENESIS_HASH.to_string(), checkpoint: None },
            keys: HashMap::new(),
            call_events: HashMap::new(),
            read_only: false,
            sink: SinkSlot::default(),
        };
        for spec in default_schema() {
            store.add(spec, true)?;
        }
        for spec in opts.channels {
            if spec.visibility == Visibility::Private {
                return Err(Error::new(
                    ErrorCode::InvalidOption,
                    format!("register private channel '{}' with registerChannel to receive its owner key", spec.name),
                )
                .channel(&spec.name));
            }
            store.add(spec, false)?;
        }
        Ok(store)
    }

    /// Adds a channel; domain rules ([`Kind`]) are kept only for `builtin` (default) channels.
    pub(super) fn add(&mut self, mut spec: ChannelSpec, builtin: bool) -> Result<()> {
        spec.check()?;
        if self.by_name.contains_key(&spec.name) {
            return Err(Error::new(
                ErrorCode::ChannelExists,
                format!("a channel named '{}' already exists", spec.name),
            )
            .channel(&spec.name));
        }
        if !builtin {
            spec.kind = Kind::Generic;
            spec.section = None;
        }
        let slot = if spec.reducer == Reducer::Messages {
            Slot::Messages(MessagesChannel::default())
        } else {
            Slot::Json(spec.initial())
        };
        self.by_name.insert(spec.name.clone(), self.specs.len());
        self.specs.push(spec);
        self.slots.push(slot);
        Ok(())
    }

    /// Adds a channel. For a private channel, returns its owner's key: the first private channel
    /// of an owner creates the key with `new_key()`; later ones must present it as `owner_key`
    /// (`NOT_OWNER` otherwise). Errors: `INVALID_OPTION`, `CHANNEL_EXISTS`, `NOT_OWNER`.
    pub fn register_channel(
        &mut self,
        spec: ChannelSpec,
        owner_key: Option<&str>,
        new_key: impl FnOnce() -> String,
    ) -> Result<Option<String>> {
        self.writable()?;
        spec.check()?;
        if self.by_name.contains_key(&spec.name) {
            return Err(Error::new(
                ErrorCode::ChannelExists,
                format!("a channel named '{}' already exists", spec.name),
            )
            .channel(&spec.name));
        }
        if spec.visibility != Visibility::Private {
            self.add(spec, false)?;
            return Ok(None);
        }
        let owner = spec.owner.clone().unwrap_or_default();
        let key = match self.keys.get(&owner) {
            Some(k) if owner_key == Some(k.as_str()) => k.clone(),
            Some(_) => {
                return Err(Error::new(
                    ErrorCode::NotOwner,
                    format!("owner '{owner}' already has private channels; pass its key to register more"),
                )
                .channel(&spec.name))
            }
            None => new_key(),
        };
        self.add(spec, false)?;
        self.keys.insert(owner, key.clone());
        Ok(Some(key))
    }

    /// Keys of every owner of private channels (tests only).
    #[cfg(test)]
    pub(crate) fn keys_for_tests(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.keys.values().cloned().collect();
        keys.sort();
        keys
    }

    /// True for a past view (`at`).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// `READ_ONLY` for a past view.
    pub(super) fn writable(&self) -> Result<()> {
        if self.read_only {
            return Err(Error::new(
                ErrorCode::ReadOnly,
                "this is a past view of the store (at(sequence)); apply commands to the live store",
            ));
        }
        Ok(())
    }

    /// The run id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The version: the number of commands applied.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The schema, in order.
    pub fn channels(&self) -> &[ChannelSpec] {
        &self.specs
    }

    /// Every applied command's event in memory, in order, sealed (hashed).
    pub fn events(&mut self) -> &[Event] {
        self.seal();
        &self.log
    }

    /// Computes `prev_hash` and `hash` of the events not yet sealed, in order.
    pub(super) fn seal(&mut self) {
        for i in self.sealed..self.log.len() {
            let prev = match i.checked_sub(1).and_then(|j| self.log.get(j)) {
                Some(e) => e.hash.clone(),
                None => self.base.hash.clone(),
            };
            if let Some(e) = self.log.get_mut(i) {
                if let Some(writes) = e.pending.take() {
                    e.payload = payload_of(writes);
                }
                e.prev_hash = prev;
                e.hash = e.compute_hash();
            }
        }
        self.sealed = self.log.len();
    }

    pub(super) fn index(&self, channel: &str) -> Result<usize> {
        self.by_name.get(channel).copied().ok_or_else(|| {
            Error::new(ErrorCode::UnknownChannel, format!("no channel named '{channel}'; register it first"))
                .channel(channel)
        })
    }

    fn kind_slot(&self, kind: Kind) -> Option<usize> {
        self.specs.iter().position(|s| s.kind == kind)
    }

    pub(super) fn json(&self, i: Option<usize>) -> Option<&Value> {
        match self.slots.get(i?)? {
            Slot::Json(v) => Some(v),
            Slot::Messages(_) => None,
        }
    }

    pub(super) fn value_of(&self, i: usize) -> Value {
        match self.slots.get(i) {
            Some(Slot::Json(v)) => v.clone(),
            Some(Slot::Messages(m)) => serde_json::to_value(m.messages()).unwrap_or(Value::Null),
            None => Value::Null,
        }
    }

    /// The messages channel named `channel` (`"messages"` by default).
    pub fn messages(&self, channel: &str) -> Result<&MessagesChannel> {
        let i = self.index(channel)?;
        self.readable(i)?;
        match self.slots.get(i) {
            Some(Slot::Messages(m)) => Ok(m),
            _ => Err(Error::new(ErrorCode::InvalidOption, format!("channel '{channel}' is not a messages channel"))
                .channel(channel)),
        }
    }

    fn readable(&self, i: usize) -> Result<()> {
        match self.specs.get(i) {
            Some(s) if s.visibility == Visibility::Private => Err(Error::new(
                ErrorCode::PrivateChannel,
                format!("channel '{}' is private; read it with private(ownerKey)", s.name),
            )
            .channel(&s.name)),
            _ => Ok(()),
        }
    }

    /// The value of a non-private channel (messages as canonical messages).
    /// Errors: `UNKNOWN_CHANNEL`, `PRIVATE_CHANNEL`.
    pub fn get(&self, channel: &str) -> Result<Value> {
        let i = self.index(channel)?;
        self.readable(i)?;
        Ok(self.value_of(i))
    }

    /// Every channel except private ones, by name, in schema order.
    pub fn system_view(&self) -> Map<String, Value> {
        self.specs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.visibility != Visibility::Private)
            .map(|(i, s)| (s.name.clone(), self.value_of(i)))
            .collect()
    }

    /// The private channels of the owner whose key this is. `NOT_OWNER` for an unknown key.
    pub fn private_view(&self, key: &str) -> Result<Map<String, Value>> {
        let owner = self
            .keys
            .iter()
            .find(|(_, k)| k.as_str() == key)
            .map(|(o, _)| o.as_str())
            .ok_or_else(|| Error::new(ErrorCode::NotOwner, "this key owns no private channel"))?;
        Ok(self
            .specs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.visibility == Visibility::Private && s.owner.as_deref() == Some(owner))
            .map(|(i, s)| (s.name.clone(), self.value_of(i)))
            .collect())
    }

    /// Applies one command at time `now_ms` (ms since the epoch, for the budget deadline and the
    /// event). Errors: every code of the pipeline; the store is unchanged on error.
    /// The new event goes to the store's sink ([`Store::set_sink`]) before the change is kept
    /// (write-ahead: if the sink fails, e.g. the log cannot be written, the command is rolled back).
    pub fn apply(&mut self, cmd: &Command, now_ms: u64) -> Result<Applied> {
        let result = self.decode(cmd).and_then(|d| self.run_batch(vec![d], now_ms, Mode::Commit));
        let mut out = result.map_err(|e| self.scrub(Error { command: None, ..e }))?;
        Ok(Applied { version: self.version, ids: out.pop().unwrap_or_default() })
    }

    /// Sets (or, with `None`, removes) the write-ahead sink every later change goes through.
    pub fn set_sink(&mut self, sink: Option<std::rc::Rc<dyn EventSink>>) {
        self.sink = SinkSlot(sink);
    }

    /// Whether `cmd` would be applied now, without applying it: the whole pipeline runs and is
    /// rolled back (so the store, its version and its log are unchanged either way). Lets a
    /// caller refuse before it performs effects outside the store (e.g. server calls of a task
    /// tool whose result the store would refuse). Errors: those `apply` would return.
    pub fn check(&mut self, cmd: &Command, now_ms: u64) -> Result<()> {
        let result = self.decode(cmd).and_then(|d| self.run_batch(vec![d], now_ms, Mode::DryRun));
        result.map(|_| ()).map_err(|e| self.scrub(Error { command: None, ..e }))
    }

    /// Applies the commands of one superstep, all or nothing, in call order; each gets its own
    /// event and version. Two commands writing one `replace` channel, or one key of a `merge`
    /// channel declaring `onConflict: "error"`, fail with `CONCURRENT_WRITE` naming both authors.
    /// `expectedVersion`s are checked against the version before the batch. Errors carry
    /// `command` = the index of the failing command.
    /// The batch's events go to the sink in one call (a batch is atomic on disk).
    pub fn apply_batch(&mut self, cmds: &[Command], now_ms: u64) -> Result<BatchApplied> {
        let decoded = cmds
            .iter()
            .enumerate()
            .map(|(ci, c)| self.decode(c).map_err(|e| e.command(ci)))
            .collect::<Result<Vec<_>>>();
        let ids = decoded.and_then(|d| self.run_batch(d, now_ms, Mode::Commit)).map_err(|e| self.scrub(e))?;
        Ok(BatchApplied { version: self.version, ids })
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
    fn decode(&self, cmd: &Command) -> Result<Decoded<'static>> {
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
        if cmd.author.is_empty() {
            return Err(Error::new(ErrorCode::InvalidUpdate, "a command needs a non-empty author").field("author"));
        }
        Ok(Decoded {
            author: cmd.author.clone(),
            expected_version: cmd.expected_version,
            writes,
            correlation_id: cmd.correlation_id.clone(),
            causation_id: cmd.causation_id.clone(),
            system: false,
            expect: None,
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
    /// on any error — or after a dry run — restore everything.
    pub(super) fn run_batch(&mut self, batch: Vec<Decoded<'_>>, now_ms: u64, mode: Mode) -> Result<Vec<Vec<String>>> {
        self.writable()?;
        for (ci, cmd) in batch.iter().enumerate() {
            for (i, _) in &cmd.writes {
                self.authorise(&cmd.author, *i).map_err(|e| e.command(ci))?;
            }
        }
        for (ci, cmd) in batch.iter().enumerate() {
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
        };
        let result = self.reduce_batch(batch, now_ms, &mut journal);
        let sink = self.sink.0.clone();
        let result = match (mode, sink) {
            (Mode::DryRun, _) => result.map(|ids| (ids, false)),
            (Mode::Commit, Some(sink)) => result.and_then(|ids| {
                self.seal();
                sink.write(self.log.get(journal.log_len..).unwrap_or_default()).map(|()| (ids, true))
            }),
            (Mode::Commit, None) => result.map(|ids| (ids, true)),
        };
        match result {
            Ok((ids, true)) => {
                for i in journal.messages {
                    if let Some(Slot::Messages(m)) = self.slots.get_mut(i) {
                        m.commit();
                    }
                }
                Ok(ids)
            }
            result => {
                if let Some((bi, counters)) = journal.counters {
                    if let Some(Slot::Json(Value::Object(budget))) = self.slots.get_mut(bi) {
                        for ((name, _), n) in COUNTERS.iter().zip(counters) {
                            set_used(budget, name, n);
                        }
                    }
                }
                for (i, v) in journal.json.into_iter().rev() {
                    if let Some(slot) = self.slots.get_mut(i) {
                        *slot = Slot::Json(v);
                    }
                }
                for i in journal.messages {
                    if let Some(Slot::Messages(m)) = self.slots.get_mut(i) {
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
                result.map(|(ids, _)| ids)
            }
        }
    }

    fn reduce_batch(
        &mut self,
        batch: Vec<Decoded<'_>>,
        now_ms: u64,
        journal: &mut Journal,
    ) -> Result<Vec<Vec<String>>> {
        let mut written_by: HashMap<(usize, String), (usize, String)> = HashMap::new();
        let mut all_ids = Vec::with_capacity(batch.len());
        for (ci, cmd) in batch.into_iter().enumerate() {
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
        let budget_before = used_counters(self.json(budget_i));
        let mut fx = Effects::default();
        let prefix = format!("{}:{sequence}", self.run_id);
        for (i, write) in cmd.writes.iter_mut() {
            let i = *i;
            journal.touch(i, &mut self.slots);
            let spec = self
                .specs
                .get(i)
                .ok_or_else(|| Error::new(ErrorCode::UnknownChannel, "internal: channel index out of range"))?;
            match (self.slots.get_mut(i), write) {
                (Some(Slot::Messages(channel)), Write::Messages(ops)) => {
                    channel.assign_ids(ops, &prefix);
                    let e = channel.apply(ops).map_err(|e| e.channel(&spec.name))?;
                    if e.model_or_tool && run_before.is_terminal() && !cmd.system {
                        return Err(Error::new(
                            ErrorCode::RunEnded,
                            format!("the run is {}; it takes no new assistant or tool messages", run_before.as_str()),
                        )
                        .channel(&spec.name));
                    }
                    fx.ids.extend(e.ids);
                    fx.turns += e.turns;
                    fx.tool_calls += e.tool_calls;
                    fx.tokens += e.tokens;
                    fx.results.extend(e.results);
                    fx.new_calls.extend(e.new_calls);
                    fx.model_or_tool |= e.model_or_tool;
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
                                e.authors = vec![first.clone(), cmd.author.clone()];
                                return Err(e);
                            }
                            _ => {
                                written_by.insert((i, key), (ci, cmd.author.clone()));
                            }
                        }
                    }
                }
                _ => return Err(Error::new(ErrorCode::InvalidUpdate, "internal: write does not fit the channel")),
            }
        }
        if !cmd.system {
            self.check_cross(&fx, (run_before, budget_before), (run_i, approvals_i, budget_i), now_ms, journal)?;
        }
        let event_id = format!("{}:{sequence}", self.run_id);
        // A tool result's event: correlated by its call id, caused by the call's event.
        if let (None, Some((call, _))) = (&cmd.correlation_id, fx.results.first()) {
            cmd.causation_id = cmd.causation_id.or_else(|| self.call_events.get(call).cloned());
            cmd.correlation_id = Some(call.clone());
        }
        for call in fx.new_calls {
            let old = self.call_events.insert(call.clone(), event_id.clone());
            journal.call_events.push((call, old));
        }
        let writes: Vec<(String, Write)> = cmd
            .writes
            .into_iter()
            .map(|(i, w)| (self.specs.get(i).map(|s| s.name.clone()).unwrap_or_default(), w))
            .collect();
        let kind = EventType::of_writes(&writes);
        // The payload is written out when the event is sealed (or now, to compare on replay).
        let (payload, pending) =
            if cmd.expect.is_some() { (payload_of(writes), None) } else { (Map::new(), Some(writes)) };
        let mut event = Event {
            event_id,
            run_id: self.run_id.clone(),
            sequence,
            kind,
            author: cmd.author,
            payload,
            created_at: now_ms,
            correlation_id: cmd.correlation_id,
            causation_id: cmd.causation_id,
            prev_hash: String::new(),
            hash: String::new(),
            system: cmd.system,
            pending,
        };
        // Replaying a verified event: compare instead of hashing again; the event stays sealed.
        let replayed = match cmd.expect {
            Some(logged) if same_event(&event, logged) => {
                event.prev_hash = logged.prev_hash.clone();
                event.hash = logged.hash.clone();
                true
            }
            Some(logged) => {
                return Err(Error::new(
                    ErrorCode::TamperedLog,
                    format!("event {} does not reproduce: its payload was altered", logged.sequence),
                ))
            }
            None => false,
        };
        if replayed && self.sealed == self.log.len() {
            self.sealed += 1;
        }
        self.log.push(event);
        self.version = sequence;
        Ok(fx.ids)
    }

    /// The hash of the last event (the checkpoint's, or [`GENESIS_HASH`], before any).
    pub fn last_hash(&mut self) -> &str {
        self.seal();
        self.log.last().map(|e| e.hash.as_str()).unwrap_or(&self.base.hash)
    }
}
