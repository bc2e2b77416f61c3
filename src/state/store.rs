//! The store: its schema, channel values and log, and the reads (the apply pipeline is
//! [`super::pipeline`]).

use super::command::{StoreOptions, MAX_RUN_ID_CHARS};
use super::message_ops::MessageOp;
use super::messages::MessagesChannel;
use super::schema::{default_schema, ChannelSpec, Kind, Reducer, Visibility};
pub(super) use super::sink::Mode;
pub use super::sink::{Entropy, EventSink};
use super::sink::{EntropySlot, SinkSlot};
use crate::error::{Error, ErrorCode, Result};
use crate::log::held::{Held, HeldLog};
use crate::log::{Chain, Event, GENESIS_HASH};
use rustc_hash::FxHashMap;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

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

impl serde::Serialize for Write {
    /// As an event's payload holds it: a messages write as its list of ops (canonical messages
    /// and op objects), any other write as its value.
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Write::Messages(ops) => ops.serialize(s),
            Write::Json(v) => v.serialize(s),
        }
    }
}

/// A channel's value. A messages channel is boxed: it is several times the size of a JSON
/// value, and most slots hold JSON (an idle store's memory is mostly its slots).
#[derive(Debug, Clone)]
pub(super) enum Slot {
    Json(Value),
    Messages(Box<MessagesChannel>),
}

/// A command after decoding: channel indices and typed writes.
pub(super) struct Decoded<'e> {
    pub(super) author: std::borrow::Cow<'e, str>,
    pub(super) expected_version: Option<u64>,
    pub(super) writes: Vec<(usize, Write)>,
    pub(super) correlation_id: Option<String>,
    pub(super) causation_id: Option<String>,
    /// A repair by the store itself: exempt from the run-ended, deadline, approval and turn rules
    /// (it only answers dangling calls with error results and tidies the list).
    pub(super) system: bool,
    /// When applying logged events again: the event this command must reproduce.
    pub(super) expect: Expect<'e>,
    /// The command's own time (a logged event's `created_at`) instead of the batch's.
    pub(super) at: Option<u64>,
}

/// The event a command applied again must reproduce.
#[derive(Clone, Copy)]
pub(super) enum Expect<'e> {
    /// None: a new command.
    New,
    /// A logged event read from elsewhere: the new event must hash to its `hash` (or, when the
    /// hash cannot be computed here, equal it field by field), and its hash is taken.
    Logged(Logged<'e>),
    /// An event of this store's own log (a past view rebuilt): the new event must equal it,
    /// and takes its hash.
    Held(&'e Held),
}

/// What a command applied again takes from the logged event it must reproduce.
#[derive(Clone, Copy)]
pub(super) struct Logged<'e> {
    pub(super) hash: &'e str,
    pub(super) kind: crate::log::EventType,
    pub(super) salted: &'e crate::log::SideMap,
    pub(super) redacted: &'e crate::log::SideMap,
    /// The whole event, to compare field by field when its hash cannot be computed here
    /// (absent for a line read without a tree: such an event is then refused here and read
    /// again as an [`Event`]).
    pub(super) event: Option<&'e Event>,
}

impl<'e> From<&'e Event> for Logged<'e> {
    fn from(e: &'e Event) -> Logged<'e> {
        Logged { hash: &e.hash, kind: e.kind, salted: &e.salted, redacted: &e.redacted, event: Some(e) }
    }
}

/// What a store may do besides being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    /// Everything.
    Live,
    /// A past view (`at`): nothing changes it.
    Past,
    /// A follower (`StateStore.follow`): only logged events change it ([`Store::ingest`]).
    Follower,
}

/// What a store's in-memory log follows: the genesis, or the checkpoint it was restored from.
#[derive(Debug, Clone)]
pub(super) struct Base {
    /// The sequence of the last event before the log in memory (0 at the genesis).
    pub(super) sequence: u64,
    /// That event's hash ([`GENESIS_HASH`] at the genesis).
    pub(super) hash: Cow<'static, str>,
    /// The checkpoint restored from, if any (time travel before the log starts there).
    pub(super) checkpoint: Option<Box<crate::log::Checkpoint>>,
}

/// The default schema's specs, index and initial values, built once per thread.
type Template = (Rc<Vec<ChannelSpec>>, Rc<FxHashMap<String, usize>>, Rc<Vec<Slot>>);

thread_local! {
    static DEFAULT: Result<Template> = {
        let mut s = Store::bare(String::new(), Chain::Plain);
        default_schema().into_iter().try_for_each(|spec| s.add(spec, true)).map(|()| (s.specs, s.by_name, s.slots))
    };
}

/// An agent's state: one value per channel, the version, and the log of applied commands.
///
/// Invariants: `version == events().len()`; every message has a unique id; every stored tool
/// result answers a call made before it in its channel (unless a removal orphaned it later).
#[derive(Debug, Clone)]
pub struct Store {
    pub(super) run_id: String,
    /// The schema, shared with every store of the same schema until one adds a channel (the
    /// default schema is built once per thread: an idle store holds two pointers to it).
    pub(super) specs: Rc<Vec<ChannelSpec>>,
    pub(super) by_name: Rc<FxHashMap<String, usize>>,
    /// Channel values by schema index, shared (like the schema) until the first write: an idle
    /// store holds the default schema's initial values by reference.
    pub(super) slots: Rc<Vec<Slot>>,
    pub(super) version: u64,
    /// Events since `base` (all of them unless the store was restored from a checkpoint), held
    /// compactly ([`crate::log::held`]).
    pub(super) log: HeldLog,
    /// How many events of `log` carry their `prev_hash` and `hash`. Hashing is deferred until
    /// events leave the store (read, persisted, checkpointed): the chain is deterministic, so
    /// sealing later gives the very same hashes, and appends stay cheap.
    pub(super) sealed: usize,
    /// What the in-memory log follows.
    pub(super) base: Base,
    /// Owner name → key, for private channels (absent until claimed after a restore).
    pub(super) keys: HashMap<String, String>,
    /// Tool call id → the sequence of the event that recorded the call (whose id, made when a
    /// result's event asks, is its causation).
    pub(super) call_events: FxHashMap<Rc<str>, u64>,
    /// A past view or a follower: commands are refused with `READ_ONLY`.
    pub(super) access: Access,
    /// How events are hashed and checkpoints sealed (the `chainKey`; never persisted).
    pub(super) chain: Chain,
    /// True for a follower and its past views: its log holds events redacted for transport.
    pub(super) follows: bool,
    /// Where every change's events go before it is kept.
    pub(super) sink: SinkSlot,
    /// Where private writes get their salts (none: they are not salted).
    pub(super) entropy: EntropySlot,
}

impl Store {
    /// A store with the default schema plus `opts.channels`.
    ///
    /// Errors: `INVALID_OPTION` for a run id that is empty or longer than [`MAX_RUN_ID_CHARS`]
    /// characters, a bad spec or a private channel (register those with
    /// [`Store::register_channel`]); `CHANNEL_EXISTS` for a duplicate name.
    pub fn new(opts: StoreOptions) -> Result<Store> {
        if let Some(run_id) = &opts.run_id {
            let chars = run_id.chars().count();
            if chars == 0 || chars > MAX_RUN_ID_CHARS {
                return Err(Error::new(
                    ErrorCode::InvalidOption,
                    format!(
                        "runId must be 1 to {MAX_RUN_ID_CHARS} characters (it prefixes every generated id), got {chars}"
                    ),
                )
                .field("runId"));
            }
        }
        Store::of(opts)
    }

    /// [`Store::new`] without the run id's check: a store rebuilt from a log, a checkpoint or a
    /// parent keeps the run id it has (one written before the check included).
    pub(super) fn of(opts: StoreOptions) -> Result<Store> {
        let run_id = opts.run_id.unwrap_or_else(|| "run".to_string());
        let mut store = Store::bare(run_id, Chain::from_key(opts.chain_key.as_deref())?);
        (store.specs, store.by_name, store.slots) = DEFAULT.with(|d| d.clone())?;
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

    /// A store with no channel at all, at the genesis.
    fn bare(run_id: String, chain: Chain) -> Store {
        Store {
            run_id,
            specs: Rc::default(),
            by_name: Rc::default(),
            slots: Rc::default(),
            version: 0,
            log: HeldLog::default(),
            sealed: 0,
            base: Base { sequence: 0, hash: Cow::Borrowed(GENESIS_HASH), checkpoint: None },
            keys: HashMap::new(),
            call_events: FxHashMap::default(),
            access: Access::Live,
            chain,
            follows: false,
            sink: SinkSlot::default(),
            entropy: EntropySlot::default(),
        }
    }

    /// The channel values, to change: copied first if another store still shares them.
    pub(super) fn slots_mut(&mut self) -> &mut Vec<Slot> {
        Rc::make_mut(&mut self.slots)
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
        let slot =
            if spec.reducer == Reducer::Messages { Slot::Messages(Box::default()) } else { Slot::Json(spec.initial()) };
        Rc::make_mut(&mut self.by_name).insert(spec.name.clone(), self.specs.len());
        Rc::make_mut(&mut self.specs).push(spec);
        self.slots_mut().push(slot);
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

    /// True for a past view (`at`) or a follower (`follow`): commands are refused.
    pub fn is_read_only(&self) -> bool {
        self.access != Access::Live
    }

    /// `READ_ONLY` for a past view or a follower (whose changes come only from its log).
    pub fn writable(&self) -> Result<()> {
        match self.access {
            Access::Live => Ok(()),
            Access::Past => Err(Error::new(
                ErrorCode::ReadOnly,
                "this is a past view of the store (at(sequence)); apply commands to the live store",
            )),
            Access::Follower => Err(Error::new(
                ErrorCode::ReadOnly,
                "this store follows a run that lives elsewhere (StateStore.follow): it changes only by ingest(events); apply commands to the run's own store",
            )),
        }
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

    pub(super) fn index(&self, channel: &str) -> Result<usize> {
        self.by_name.get(channel).copied().ok_or_else(|| {
            Error::new(ErrorCode::UnknownChannel, format!("no channel named '{channel}'; register it first"))
                .channel(channel)
        })
    }

    pub(super) fn kind_slot(&self, kind: Kind) -> Option<usize> {
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

    pub(super) fn readable(&self, i: usize) -> Result<()> {
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
}
