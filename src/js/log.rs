//! The log methods of the `StateStore` JS class (DESIGN §4): the events in memory, replay,
//! time travel, checkpoints and their restore, the export for transport, and `verifyLog`.

use super::gate::{take_chain_key, Hooks};
use super::interop::{from_js_json, json_to_js, options, options_tree, parse_js, present, to_js, to_js_error};
use super::store::JsStateStore;
use crate::error::{Error, ErrorCode};
use crate::log::{check_log, parse_jsonl, Chain, Event, GENESIS_HASH};
use crate::state::{Command, EventFilter, Store, StoreOptions};
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

/// Events given as an array of event objects, or as JSON Lines text (cheaper). Errors name the
/// first entry that is not an event (`TAMPERED_LOG`, `details.index`).
fn read_events(events: &JsValue) -> crate::error::Result<Vec<Event>> {
    if let Some(text) = events.dyn_ref::<js_sys::JsString>() {
        super::heap::reserve_for_log(text.length() as usize);
        return parse_jsonl(&super::interop::utf8_of(text)?);
    }
    if !js_sys::Array::is_array(events) {
        return Err(Error::new(
            ErrorCode::InvalidOption,
            "events are an array of logged events or their JSON Lines text",
        ));
    }
    let values: Vec<serde_json::Value> =
        parse_js(events, ErrorCode::TamperedLog, "events are a list of logged events or their JSON Lines", u32::MAX)?;
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value(v)
                .map_err(|e| Error::new(ErrorCode::TamperedLog, format!("entry {i} is not a logged event: {e}")).at(i))
        })
        .collect()
}

/// A log given as JSON Lines text, in wasm memory (room reserved for reading it); `None` for an
/// array of events.
fn jsonl_text(events: &JsValue) -> crate::error::Result<Option<String>> {
    let Some(text) = events.dyn_ref::<js_sys::JsString>() else { return Ok(None) };
    super::heap::reserve_for_log(text.length() as usize);
    super::interop::utf8_of(text).map(Some)
}

/// [`read_events`] with the error thrown as JS.
fn events_from_js(events: &JsValue) -> JsResult<Vec<Event>> {
    read_events(events).map_err(to_js_error)
}

/// A log check as `{ok: true}` or `{ok: false, index, sequence, reason}`. `opts.after` anchors a
/// log that does not start at sequence 1 (`{sequence, hash}` of the event before it);
/// `opts.chainKey` checks a keyed chain (without it, a keyed log breaks at its first event, and
/// with it an unkeyed one does). Events prepared for transport (`redacted`) are broken links.
#[wasm_bindgen(js_name = verifyLog, unchecked_return_type = "LogCheck")]
pub fn verify_log_js(
    #[wasm_bindgen(unchecked_param_type = "StoreEvent[] | string")] events: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ after?: { sequence: number; hash: string }; chainKey?: Uint8Array }"
    )]
    opts: Option<JsValue>,
) -> JsResult<JsValue> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct After {
        sequence: u64,
        hash: String,
    }
    #[derive(serde::Deserialize, Default)]
    #[serde(deny_unknown_fields)]
    struct Opts {
        after: Option<After>,
    }
    let (key, opts) = take_chain_key(opts)?;
    let chain = Chain::from_key(key.as_deref()).map_err(to_js_error)?;
    let anchor = match options::<Opts>(opts)?.after {
        Some(a) => (a.sequence, a.hash),
        None => (0, GENESIS_HASH.to_string()),
    };
    to_js(&check_log(read_events(&events), (anchor.0, &anchor.1), &chain).map_err(to_js_error)?)
}

/// Commands as `apply` (one) or `applyBatch` (a list) reads them.
fn read_commands(commands: &JsValue, batch: bool) -> JsResult<Vec<Command>> {
    if batch {
        from_js_json(commands, ErrorCode::InvalidUpdate, "a batch is a list of commands {author, update, …}")
    } else {
        from_js_json(
            commands,
            ErrorCode::InvalidUpdate,
            "a command is {author, update, expectedVersion?, correlationId?, causationId?}",
        )
        .map(|c| vec![c])
    }
}

#[wasm_bindgen(js_class = StateStore)]
impl JsStateStore {
    /// The events in memory, in order, optionally filtered `{since?, until?, type?}`
    /// (`sequence > since`, `sequence <= until`). Local to this store: payloads include private
    /// channel writes — never send them elsewhere (use `exportForTransport`).
    #[wasm_bindgen(unchecked_return_type = "StoreEvent[]")]
    pub fn events(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "EventQuery")] filter: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let filter: EventFilter = options(filter)?;
        json_to_js(&self.lock()?.inner.events_json(&filter, false).map_err(to_js_error)?)
    }

    /// The events in memory as JSON Lines (one event per line, each ending in `\n`), the form
    /// `FileLog` appends and `replay` / `restore` read fastest.
    #[wasm_bindgen(js_name = eventsJsonl)]
    pub fn events_jsonl(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "EventQuery")] filter: Option<JsValue>,
    ) -> JsResult<String> {
        let filter: EventFilter = options(filter)?;
        self.lock()?.inner.events_json(&filter, true).map_err(to_js_error)
    }

    /// The hash of the last event (64 zeros before any).
    #[wasm_bindgen(getter, js_name = lastHash)]
    pub fn last_hash(&self) -> JsResult<String> {
        Ok(self.lock()?.inner.last_hash().to_string())
    }

    /// The events `apply(command)` would log now (sealed: `prev_hash`, `hash`, `created_at` from
    /// the clock), leaving the store exactly as it was. For a log written asynchronously (a
    /// database): preview, persist the events, then `ingest` them; if another writer took the
    /// sequence first, `ingest` that writer's events and try again. Throws what `apply` would.
    #[wasm_bindgen(unchecked_return_type = "StoreEvent[]")]
    pub fn preview(&self, #[wasm_bindgen(unchecked_param_type = "Command")] command: JsValue) -> JsResult<JsValue> {
        self.preview_of(read_commands(&command, false)?)
    }

    /// `preview` for a batch: the events `applyBatch(commands)` would log now, one per command.
    #[wasm_bindgen(js_name = previewBatch, unchecked_return_type = "StoreEvent[]")]
    pub fn preview_batch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Command[]")] commands: JsValue,
    ) -> JsResult<JsValue> {
        self.preview_of(read_commands(&commands, true)?)
    }

    /// Applies logged events (an array or JSON Lines) that continue this store's log, all or
    /// nothing, checking every link, every hash it can, and that each event reproduces; events
    /// the store already has (the same hash at that sequence) are skipped, so a whole log or
    /// events sent twice may be passed. Never calls `onEvents` (the events are logged already).
    /// The way a follower (`StateStore.follow`) and a store behind a database log change.
    /// Returns `{version, applied, hashChecked}`. Throws `TAMPERED_LOG` (`details.index`; also
    /// when an event at a known sequence is not the store's: the logs forked), `LOG_GAP` (ask for
    /// the events after `store.version`), `READ_ONLY` on a past view, `UNKNOWN_CHANNEL`.
    #[wasm_bindgen(unchecked_return_type = "Ingested")]
    pub fn ingest(
        &self,
        #[wasm_bindgen(unchecked_param_type = "StoreEvent[] | string")] events: JsValue,
    ) -> JsResult<JsValue> {
        let events = events_from_js(&events)?;
        to_js(&self.lock()?.inner.ingest(&events).map_err(to_js_error)?)
    }

    /// The events in memory (filtered as `events(filter)`), safe to send where
    /// `exportForTransport()` goes: writes to private channels removed from each payload (and
    /// their salts dropped), such an event naming in `redacted` each channel removed with its
    /// write's commitment, so a follower recomputes the writer's hash. Throws `PRIVATE_LEAK`
    /// naming the channel when a private value was copied into a public write.
    #[wasm_bindgen(js_name = transportEvents, unchecked_return_type = "StoreEvent[]")]
    pub fn transport_events(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "EventQuery")] filter: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let filter: EventFilter = options(filter)?;
        to_js(&self.lock()?.inner.transport_events(&filter).map_err(to_js_error)?)
    }

    /// A follower of a run that lives elsewhere: a read-only store starting from the run's
    /// `exportForTransport()` snapshot (the object, or its JSON text), changed only by
    /// `ingest(transportEvents)`. Every read works (`get`, `messages`, `systemView`, `modelView`,
    /// `events`, `at`…); commands throw `READ_ONLY`. It checks every event's links, and its hash
    /// unless the event is redacted or the chain is keyed and `opts.chainKey` was not given.
    /// Throws `CORRUPT_CHECKPOINT` (not an export, or its digest does not match),
    /// `UNSUPPORTED_FORMAT_VERSION`, `INVALID_OPTION` (a `chainKey` for an unkeyed chain).
    pub fn follow(
        #[wasm_bindgen(unchecked_param_type = "Record<string, unknown> | string")] snapshot: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "FollowOptions")] opts: Option<JsValue>,
    ) -> JsResult<JsStateStore> {
        #[derive(serde::Deserialize, Default)]
        #[serde(deny_unknown_fields)]
        struct FollowOpts {}
        let hooks = Hooks::read(opts.as_ref())?;
        if hooks.on_event.is_some() {
            return Err(to_js_error(
                Error::new(
                    ErrorCode::InvalidOption,
                    "a follower logs nothing: it takes no onEvents (its events come from the run's own log)",
                )
                .field("onEvents"),
            ));
        }
        let (key, opts) = take_chain_key(opts)?;
        let FollowOpts {} = options(opts)?;
        let bytes = match snapshot.as_string() {
            Some(text) => text.into_bytes(),
            None => {
                let v: serde_json::Value = parse_js(
                    &snapshot,
                    ErrorCode::CorruptCheckpoint,
                    "a snapshot is the object store.exportForTransport() returns",
                    u32::MAX,
                )
                .map_err(to_js_error)?;
                serde_json::to_vec(&v)
                    .map_err(|e| to_js_error(Error::new(ErrorCode::CorruptCheckpoint, e.to_string())))?
            }
        };
        Ok(JsStateStore::wrap(Store::follow(&bytes, key.as_deref()).map_err(to_js_error)?, hooks))
    }

    /// Rebuilds a store from a whole log (an array of events or their JSON Lines), checking
    /// every link and hash and that each event reproduces. Private channels' owners claim their
    /// keys with `claimOwnerKey`; a keyed chain's readers pass `init.chainKey`. Throws
    /// `TAMPERED_LOG` with `details.index` of the first bad event.
    pub fn replay(
        #[wasm_bindgen(unchecked_param_type = "StoreEvent[] | string")] events: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RestoreInit")] init: Option<JsValue>,
    ) -> JsResult<JsStateStore> {
        let hooks = Hooks::read(init.as_ref())?;
        let (chain_key, init) = take_chain_key(init)?;
        let opts = StoreOptions { chain_key, ..options_tree(init)? };
        // JSON Lines are read a piece at a time, and each line parsed, checked, applied, dropped.
        let store = match events.dyn_ref::<js_sys::JsString>() {
            Some(text) => {
                let units = text.length() as usize;
                super::heap::reserve_for_replay(units);
                Store::replay_jsonl_pieces(opts, units, super::interop::utf8_pieces(text))
            }
            None => Store::replay(opts, &events_from_js(&events)?),
        };
        Ok(JsStateStore::wrap(store.map_err(to_js_error)?, hooks))
    }

    /// A read-only view of the store right after event `sequence` (0 = before any), with the
    /// same read API and private keys; its changes throw `READ_ONLY`. Throws `INVALID_OPTION` for
    /// a sequence outside the history in memory.
    pub fn at(&self, #[wasm_bindgen(unchecked_param_type = "number")] sequence: JsValue) -> JsResult<JsStateStore> {
        let sequence = sequence.as_f64().unwrap_or(f64::NAN);
        if !(sequence >= 0.0 && sequence.fract() == 0.0) {
            return Err(to_js_error(Error::new(ErrorCode::InvalidOption, "sequence is a whole number ≥ 0")));
        }
        let past = self.lock()?.inner.at(sequence as u64).map_err(to_js_error)?;
        Ok(JsStateStore::wrap(past, Hooks::default()))
    }

    /// The current state as checkpoint bytes (UTF-8 JSON sealed by a SHA-256 digest): every
    /// channel (private ones too: for local persistence only), last sequence and hash, format
    /// version. Never contains owner keys.
    pub fn checkpoint(&self) -> JsResult<Vec<u8>> {
        Ok(self.lock()?.inner.checkpoint())
    }

    /// Restores a store from checkpoint bytes and the events after it (an array or JSON Lines;
    /// events up to the checkpoint are skipped, so a whole log may be passed). Throws
    /// `CORRUPT_CHECKPOINT`, `UNSUPPORTED_FORMAT_VERSION`, `TAMPERED_LOG`; nothing is half-loaded.
    pub fn restore(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] checkpoint: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "StoreEvent[] | string")] tail: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "RestoreInit")] init: Option<JsValue>,
    ) -> JsResult<JsStateStore> {
        let hooks = Hooks::read(init.as_ref())?;
        let Some(checkpoint) = present(Some(checkpoint)) else {
            return Err(to_js_error(Error::new(
                ErrorCode::InvalidOption,
                "no checkpoint was given: rebuild the store from its whole log with StateStore.replay(events)",
            )));
        };
        let checkpoint = checkpoint
            .dyn_into::<js_sys::Uint8Array>()
            .map_err(|_| {
                to_js_error(Error::new(
                    ErrorCode::CorruptCheckpoint,
                    "a checkpoint is the Uint8Array store.checkpoint() returns",
                ))
            })?
            .to_vec();
        let (chain_key, init) = take_chain_key(init)?;
        let opts: StoreOptions = options_tree(init)?;
        let key = chain_key.as_deref();
        let store = match present(tail) {
            Some(tail) => match jsonl_text(&tail).map_err(to_js_error)? {
                Some(text) => Store::restore_jsonl(&checkpoint, &text, opts.channels, key),
                None => Store::restore(&checkpoint, &events_from_js(&tail)?, opts.channels, key),
            },
            None => Store::restore(&checkpoint, &[], opts.channels, key),
        }
        .map_err(to_js_error)?;
        Ok(JsStateStore::wrap(store, hooks))
    }

    /// A snapshot meant to leave the machine: like a checkpoint but without private channels,
    /// their specs or keys (throws `PRIVATE_LEAK` naming the channel when a private value was
    /// copied into a public one). `{format: "stategate-export", format_version, run_id, last_sequence,
    /// last_hash, channels, values, digest}`.
    #[wasm_bindgen(js_name = exportForTransport, unchecked_return_type = "Record<string, unknown>")]
    pub fn export_for_transport(&self) -> JsResult<JsValue> {
        let bytes = self.lock()?.inner.export_for_transport().map_err(to_js_error)?;
        // The export is JSON text already: parsed by JS as it is.
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| to_js_error(Error::new(ErrorCode::InvalidOption, e.to_string())))?;
        json_to_js(text)
    }
}

impl JsStateStore {
    /// The events `commands` would log now (the store unchanged).
    fn preview_of(&self, commands: Vec<Command>) -> JsResult<JsValue> {
        let mut s = self.lock()?;
        let now = s.now()?;
        to_js(&s.inner.preview(&commands, now).map_err(to_js_error)?)
    }
}
