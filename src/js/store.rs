//! The `StateStore` JS class: converts arguments, calls [`crate::state::Store`], converts results.
//! One message crosses the boundary per append; the state stays inside wasm (BOUNDARY.md).

use super::interop::{describe, from_js, from_js_json, opt_string_arg, string_arg, to_js, to_js_error};
use crate::error::{Error, ErrorCode, Rejection};
use crate::log::{check_log, parse_jsonl, Event, GENESIS_HASH};
use crate::message::formats::{encode_messages, Format};
use crate::project::Projector;
use crate::state::{channel, ChannelSpec, Command, EventFilter, Store, StoreOptions, StoreRepairOptions};
use serde_json::json;
use std::cell::{RefCell, RefMut};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

#[wasm_bindgen(typescript_custom_section)]
const STORE_INIT: &'static str = r#"
/** Options of `new StateStore(init)`. */
export interface StoreInit {
  /** Prefix of generated message ids (`{runId}:{sequence}:{k}`). Default `"run"`. */
  runId?: string;
  /** Channels added to the default schema (register private ones with `registerChannel`). */
  channels?: ChannelSpec[];
  /** The store's clock in ms since the epoch (event times, budget deadline). Default `Date.now`. */
  clock?: () => number;
  /**
   * Write-ahead sink: called once per change (a command, a batch, a repair) with all its events,
   * before the change is kept; if it throws, the change is rolled back (`STORAGE_ERROR`). Append
   * them to a log here (`FileLog`, `IndexedDbLog`). The store is busy during the call: do not
   * call the store from inside it.
   */
  onEvents?: (events: StoreEvent[]) => void;
  /** Called with each rejected command's author, error code, message and details (no values). */
  audit?: (rejection: Rejection) => void;
}
/** Options of `StateStore.replay` and `StateStore.restore`. */
export interface RestoreInit {
  /** Channels the log writes beyond the default schema (replay only; private ones included). */
  channels?: ChannelSpec[];
  clock?: () => number;
  onEvents?: (events: StoreEvent[]) => void;
  audit?: (rejection: Rejection) => void;
}
/** Which events `events(filter)` lists: `sequence > since`, `sequence <= until`, of `type`. */
export interface EventQuery {
  since?: number;
  until?: number;
  type?: EventType;
}
/** Options of `store.modelView(opts)` and `projectMessages(messages, opts)`. */
export interface ModelViewOptions extends ProjectOptions {
  /** Counts the tokens of a text (e.g. a real BPE tokenizer). Default: ⌈characters / 4⌉. */
  tokenizer?: (text: string) => number;
}
/** What `store.modelView` and `projectMessages` return. */
export interface ModelView {
  /** The messages to send, in the requested format. */
  messages: unknown[];
  /** Tokens per section and message; what was dropped, truncated, redacted, repaired. */
  report: Report;
}
"#;

/// The agent's state behind one gate (DESIGN §3): channels with reducers and visibility,
/// commands with an optimistic version lock, supersteps, the run / plan / approval machines, the
/// budget, private channels and an event per applied command.
///
/// Every method throws a `StategateError` (a JS `Error` with `code` and `details`) on bad input
/// and leaves the store exactly as it was.
///
/// @example
/// const store = new StateStore({ runId: "r1" });
/// const { version, ids } = store.apply({ author: "user", update: { messages: [{ role: "user", content: "hi" }] } });
/// store.apply({ author: "model", expectedVersion: version, update: { messages: [{ role: "assistant", content: "hello" }] } });
#[wasm_bindgen(js_name = StateStore)]
pub struct JsStateStore {
    /// Shared with the `AsyncTasks` bound to this store, which writes between its awaits.
    pub(super) shared: Rc<RefCell<Shared>>,
}

/// The store and its JS callbacks.
pub(super) struct Shared {
    pub(super) inner: Store,
    hooks: Hooks,
    /// The model view's projector, with its token cache.
    pub(super) projector: Projector,
    /// The last tokenizer function seen by `modelView`, and its cache generation.
    pub(super) tokenizer: Option<(js_sys::Function, u32)>,
}

impl JsStateStore {
    /// A JS store around `inner`, whose write-ahead sink becomes `hooks.onEvents` (the store owns
    /// it: every change of every method reaches it).
    pub(super) fn wrap(mut inner: Store, hooks: Hooks) -> JsStateStore {
        inner.set_sink(hooks.on_event.clone().map(|f| Rc::new(JsSink(f)) as Rc<dyn crate::state::EventSink>));
        JsStateStore {
            shared: Rc::new(RefCell::new(Shared { inner, hooks, projector: Projector::default(), tokenizer: None })),
        }
    }

    /// The store, or an error when it is busy (called from inside one of its own callbacks).
    pub(super) fn lock(&self) -> JsResult<RefMut<'_, Shared>> {
        lock(&self.shared)
    }
}

/// Borrows a shared store; a store busy in a callback (`onEvents`, `clock`, `audit`, a
/// tokenizer or a transport) refuses instead of trapping.
pub(super) fn lock(shared: &Rc<RefCell<Shared>>) -> JsResult<RefMut<'_, Shared>> {
    shared.try_borrow_mut().map_err(|_| {
        to_js_error(Error::new(
            ErrorCode::Busy,
            "the store is busy: do not call it from inside its own callbacks (onEvents, clock, audit, tokenizer)",
        ))
    })
}

/// `onEvents` as the store's write-ahead sink: the events cross as one array per change; if the
/// function throws, the change is rolled back with `STORAGE_ERROR`.
struct JsSink(js_sys::Function);

impl crate::state::EventSink for JsSink {
    fn write(&self, events: &[crate::log::Event]) -> crate::error::Result<()> {
        let value = to_js(events)
            .map_err(|_| Error::new(ErrorCode::StorageError, "the events could not be converted for onEvents"))?;
        self.0.call1(&JsValue::UNDEFINED, &value).map_err(|err| {
            Error::new(
                ErrorCode::StorageError,
                format!("onEvents threw, so the change was rolled back: {}", describe(&err)),
            )
        })?;
        Ok(())
    }
}

/// The JS callbacks of a store: clock, event sink, audit.
#[derive(Default, Clone)]
pub(crate) struct Hooks {
    clock: Option<js_sys::Function>,
    on_event: Option<js_sys::Function>,
    audit: Option<js_sys::Function>,
}

impl Hooks {
    /// Reads `clock`, `onEvents` and `audit` from an init object.
    fn read(init: &JsValue) -> JsResult<Hooks> {
        if !init.is_undefined() && !init.is_null() && !init.is_object() {
            return Err(to_js_error(Error::new(ErrorCode::InvalidOption, "the options must be an object")));
        }
        // A misspelt callback (`onEvent`) would vanish in JSON: name it instead.
        if init.is_object() {
            const KNOWN: [&str; 5] = ["runId", "channels", "clock", "onEvents", "audit"];
            let keys = js_sys::Object::keys(init.unchecked_ref::<js_sys::Object>());
            if let Some(k) = keys.iter().filter_map(|k| k.as_string()).find(|k| !KNOWN.contains(&k.as_str())) {
                return Err(to_js_error(
                    Error::new(
                        ErrorCode::InvalidOption,
                        format!("unknown option '{k}'; the options are {}", KNOWN.join(", ")),
                    )
                    .field(k),
                ));
            }
        }
        let f = |name: &str| -> JsResult<Option<js_sys::Function>> {
            if init.is_undefined() || init.is_null() {
                return Ok(None);
            }
            let v = js_sys::Reflect::get(init, &name.into()).map_err(|e| {
                to_js_error(Error::new(
                    ErrorCode::InvalidOption,
                    format!("reading option {name} threw: {}", describe(&e)),
                ))
            })?;
            if v.is_undefined() {
                return Ok(None);
            }
            v.dyn_into::<js_sys::Function>()
                .map(Some)
                .map_err(|_| to_js_error(Error::new(ErrorCode::InvalidOption, format!("{name} must be a function"))))
        };
        Ok(Hooks { clock: f("clock")?, on_event: f("onEvents")?, audit: f("audit")? })
    }
}

/// Events given as an array of event objects, or as JSON Lines text (cheaper). Errors name the
/// first entry that is not an event (`TAMPERED_LOG`, `details.index`).
fn read_events(events: &JsValue) -> crate::error::Result<Vec<Event>> {
    if let Some(text) = events.as_string() {
        return parse_jsonl(&text);
    }
    if !js_sys::Array::is_array(events) {
        return Err(Error::new(
            ErrorCode::InvalidOption,
            "events are an array of logged events or their JSON Lines text",
        ));
    }
    let values: Vec<serde_json::Value> = super::interop::parse_js(
        events,
        ErrorCode::TamperedLog,
        "events are a list of logged events or their JSON Lines",
        u32::MAX,
    )?;
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value(v)
                .map_err(|e| Error::new(ErrorCode::TamperedLog, format!("entry {i} is not a logged event: {e}")).at(i))
        })
        .collect()
}

/// [`read_events`] with the error thrown as JS.
fn events_from_js(events: &JsValue) -> JsResult<Vec<Event>> {
    read_events(events).map_err(to_js_error)
}

/// A log check as `{ok: true}` or `{ok: false, index, sequence, reason}`.
#[wasm_bindgen(js_name = verifyLog, unchecked_return_type = "LogCheck")]
pub fn verify_log_js(
    #[wasm_bindgen(unchecked_param_type = "StoreEvent[] | string")] events: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "{ after: { sequence: number; hash: string } }")] opts: Option<
        JsValue,
    >,
) -> JsResult<JsValue> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct After {
        sequence: u64,
        hash: String,
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Opts {
        after: After,
    }
    let anchor = match opts.filter(|o| !o.is_undefined() && !o.is_null()) {
        Some(o) => {
            let o: Opts = from_js(o)?;
            (o.after.sequence, o.after.hash)
        }
        None => (0, GENESIS_HASH.to_string()),
    };
    to_js(&check_log(read_events(&events), (anchor.0, &anchor.1)).map_err(to_js_error)?)
}

impl Shared {
    pub(super) fn now(&self) -> JsResult<u64> {
        self.clock().map_err(to_js_error)
    }

    /// The store's clock: `clock()` or `Date.now()`, in ms since the epoch.
    fn clock(&self) -> crate::error::Result<u64> {
        let ms = match &self.hooks.clock {
            Some(f) => f
                .call0(&JsValue::UNDEFINED)
                .map_err(|e| Error::new(ErrorCode::InvalidOption, format!("the clock threw: {}", describe(&e))))?
                .as_f64()
                .unwrap_or(f64::NAN),
            None => js_sys::Date::now(),
        };
        if !(ms.is_finite() && (0.0..=9_007_199_254_740_991.0).contains(&ms)) {
            return Err(Error::new(
                ErrorCode::InvalidOption,
                "the clock must return ms since the epoch: a number from 0 to 2^53 - 1",
            ));
        }
        Ok(ms as u64)
    }

    /// Runs a change. Its events go to `onEvents` in one call before the change is kept
    /// (write-ahead: if `onEvents` throws, the whole change — a whole batch — is rolled back and
    /// `STORAGE_ERROR` thrown); a refused change goes to `audit` (whose own exceptions are
    /// ignored: auditing never changes the outcome).
    pub(super) fn change<T>(
        &mut self,
        author: &str,
        channels: Vec<String>,
        f: impl FnOnce(&mut Store, u64) -> crate::error::Result<T>,
    ) -> JsResult<T> {
        self.try_change(author, channels, f).map_err(to_js_error)
    }

    /// [`Shared::change`] with the core's error.
    pub(super) fn try_change<T>(
        &mut self,
        author: &str,
        channels: Vec<String>,
        f: impl FnOnce(&mut Store, u64) -> crate::error::Result<T>,
    ) -> crate::error::Result<T> {
        let now = self.clock()?;
        f(&mut self.inner, now).inspect_err(|e| {
            if let Some(audit) = &self.hooks.audit {
                if let Ok(v) = to_js(&Rejection::new(author, channels, e, now)) {
                    let _ = audit.call1(&JsValue::UNDEFINED, &v);
                }
            }
        })
    }
}

#[wasm_bindgen(js_class = StateStore)]
impl JsStateStore {
    /// A store with the default schema (messages, async_tasks, notifications, todos, files, run, plan, facts,
    /// unresolved_questions, approvals, budget, artifacts, last_error, compaction) plus `init.channels`.
    /// Throws `INVALID_OPTION`, `CHANNEL_EXISTS`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "StoreInit")] init: Option<JsValue>,
    ) -> JsResult<JsStateStore> {
        let init = init.unwrap_or(JsValue::UNDEFINED);
        let hooks = Hooks::read(&init)?;
        let opts: StoreOptions =
            if init.is_undefined() || init.is_null() { StoreOptions::default() } else { from_js(init)? };
        Ok(JsStateStore::wrap(Store::new(opts).map_err(to_js_error)?, hooks))
    }

    /// The version: the number of commands applied so far.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> JsResult<f64> {
        Ok(self.lock()?.inner.version() as f64)
    }

    /// The run id.
    #[wasm_bindgen(getter, js_name = runId)]
    pub fn run_id(&self) -> JsResult<String> {
        Ok(self.lock()?.inner.run_id().to_string())
    }

    /// Applies one command: decode → authorise → version lock → validate → reduce → version + 1
    /// → one event. Returns `{version, ids}` (ids of the messages written). Throws with `code`
    /// (`VERSION_CONFLICT`, `UNKNOWN_CHANNEL`, `NOT_AUTHORIZED`, `NOT_OWNER`, `INVALID_UPDATE`,
    /// `INVALID_MESSAGE`, `UNKNOWN_MESSAGE_ID`, `UNKNOWN_TOOL_CALL`, `ALREADY_ANSWERED`,
    /// `RUN_ENDED`, `INVALID_TRANSITION`, `INVALID_PLAN`, `APPROVAL_PENDING`,
    /// `APPROVAL_REJECTED`, `BUDGET_EXCEEDED`) and `details` `{channel?, index?, field?}`.
    #[wasm_bindgen(unchecked_return_type = "Applied")]
    pub fn apply(&self, #[wasm_bindgen(unchecked_param_type = "Command")] command: JsValue) -> JsResult<JsValue> {
        let cmd: Command = from_js_json(
            &command,
            ErrorCode::InvalidUpdate,
            "a command is {author, update, expectedVersion?, correlationId?, causationId?}",
        )?;
        let channels = cmd.update.keys().cloned().collect();
        let out = self.lock()?.change(&cmd.author.clone(), channels, |s, now| s.apply(&cmd, now))?;
        to_js(&out)
    }

    /// Whether `command` would be applied now, without applying it: the whole gate runs and is
    /// rolled back (version, state and log unchanged either way). Throws what `apply` would
    /// throw; returns nothing. Use it before effects outside the store (a server call, a
    /// payment) whose result the store must then take.
    pub fn check(&self, #[wasm_bindgen(unchecked_param_type = "Command")] command: JsValue) -> JsResult<()> {
        let cmd: Command = from_js_json(
            &command,
            ErrorCode::InvalidUpdate,
            "a command is {author, update, expectedVersion?, correlationId?, causationId?}",
        )?;
        let mut s = self.lock()?;
        let now = s.now()?;
        s.inner.check(&cmd, now).map_err(to_js_error)
    }

    /// Applies the commands of one superstep together, all or nothing, in call order (one event
    /// and one version each). Two writes to one `replace` channel, or to one key of a `merge`
    /// channel declaring `onConflict: "error"`, throw `CONCURRENT_WRITE` with `details.authors`.
    /// `details.command` is the index of the failing command.
    #[wasm_bindgen(js_name = applyBatch, unchecked_return_type = "BatchApplied")]
    pub fn apply_batch(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Command[]")] commands: JsValue,
    ) -> JsResult<JsValue> {
        let cmds: Vec<Command> =
            from_js_json(&commands, ErrorCode::InvalidUpdate, "a batch is a list of commands {author, update, …}")?;
        // The audit names the batch's authors; the error's `details.command` says which failed.
        let authors: Vec<&str> = cmds.iter().map(|c| c.author.as_str()).collect();
        let channels = cmds.iter().flat_map(|c| c.update.keys().cloned()).collect();
        let author = authors.join(", ");
        let out = self.lock()?.change(&author, channels, |s, now| s.apply_batch(&cmds, now))?;
        to_js(&out)
    }

    /// Adds a channel. For a private channel returns its owner's key (the first private channel
    /// of an owner creates it; later ones must pass it as `ownerKey`), else `undefined`.
    /// Throws `INVALID_OPTION`, `CHANNEL_EXISTS`, `NOT_OWNER`.
    #[wasm_bindgen(js_name = registerChannel)]
    pub fn register_channel(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ChannelSpec")] spec: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "string")] owner_key: Option<JsValue>,
    ) -> JsResult<Option<String>> {
        let owner_key = owner_key.unwrap_or(JsValue::UNDEFINED);
        let owner_key = opt_string_arg(&owner_key, "ownerKey")?;
        let spec: ChannelSpec = from_js(spec)?;
        let key = random_key()?;
        self.lock()?.inner.register_channel(spec, owner_key.as_deref(), || key).map_err(to_js_error)
    }

    /// The value of a non-private channel (`messages`: canonical `Message[]`).
    /// Throws `UNKNOWN_CHANNEL`, `PRIVATE_CHANNEL`.
    pub fn get(&self, #[wasm_bindgen(unchecked_param_type = "string")] channel: JsValue) -> JsResult<JsValue> {
        let channel = string_arg(&channel, "channel")?;
        to_js(&self.lock()?.inner.get(&channel).map_err(to_js_error)?)
    }

    /// The messages, encoded in `format` (`"langchain" | "openai" | "anthropic" | "ai-sdk" |
    /// "gemini"`), or canonical when absent. Throws `INVALID_OPTION`.
    #[wasm_bindgen(unchecked_return_type = "unknown[]")]
    pub fn messages(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "Format")] format: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let format = format.unwrap_or(JsValue::UNDEFINED);
        let format = opt_string_arg(&format, "format")?;
        let s = self.lock()?;
        let channel = s.inner.messages("messages").map_err(to_js_error)?;
        match format {
            None => to_js(channel.messages()),
            Some(f) => to_js(&encode_messages(channel.messages(), Format::parse(&f).map_err(to_js_error)?)),
        }
    }

    /// Every channel except private ones: `{channel: value}` in schema order.
    #[wasm_bindgen(js_name = systemView, unchecked_return_type = "Record<string, unknown>")]
    pub fn system_view(&self) -> JsResult<JsValue> {
        to_js(&self.lock()?.inner.system_view())
    }

    /// The private channels of the owner holding `ownerKey`. Throws `NOT_OWNER` for an unknown key.
    #[wasm_bindgen(js_name = private, unchecked_return_type = "Record<string, unknown>")]
    pub fn private_view(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] owner_key: JsValue,
    ) -> JsResult<JsValue> {
        let owner_key = string_arg(&owner_key, "ownerKey")?;
        to_js(&self.lock()?.inner.private_view(&owner_key).map_err(to_js_error)?)
    }

    /// `{runId, version, channels}` with the system view: what `JSON.stringify(store)` writes.
    /// Private channels are never included.
    #[wasm_bindgen(js_name = toJSON, unchecked_return_type = "{ runId: string; version: number; channels: Record<string, unknown> }")]
    pub fn to_json(&self) -> JsResult<JsValue> {
        let s = self.lock()?;
        to_js(&json!({"runId": s.inner.run_id(), "version": s.inner.version(), "channels": s.inner.system_view()}))
    }

    /// The schema: every channel's spec, in order.
    #[wasm_bindgen(unchecked_return_type = "ChannelSpec[]")]
    pub fn channels(&self) -> JsResult<JsValue> {
        to_js(self.lock()?.inner.channels())
    }

    /// The events in memory, in order, optionally filtered `{since?, until?, type?}`
    /// (`sequence > since`, `sequence <= until`). Local to this store: payloads include private
    /// channel writes — never send them elsewhere (use `exportForTransport`).
    #[wasm_bindgen(unchecked_return_type = "StoreEvent[]")]
    pub fn events(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "EventQuery")] filter: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let filter = filter.unwrap_or(JsValue::UNDEFINED);
        let filter: EventFilter =
            if filter.is_undefined() || filter.is_null() { EventFilter::default() } else { from_js(filter)? };
        to_js(&self.lock()?.inner.events_matching(&filter))
    }

    /// The events in memory as JSON Lines (one event per line, each ending in `\n`), the form
    /// `FileLog` appends and `replay` / `restore` read fastest.
    #[wasm_bindgen(js_name = eventsJsonl)]
    pub fn events_jsonl(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "EventQuery")] filter: Option<JsValue>,
    ) -> JsResult<String> {
        let filter = filter.unwrap_or(JsValue::UNDEFINED);
        let filter: EventFilter =
            if filter.is_undefined() || filter.is_null() { EventFilter::default() } else { from_js(filter)? };
        let mut out = String::new();
        for e in self.lock()?.inner.events_matching(&filter) {
            out.push_str(
                &serde_json::to_string(e)
                    .map_err(|e| to_js_error(Error::new(ErrorCode::InvalidOption, e.to_string())))?,
            );
            out.push('\n');
        }
        Ok(out)
    }

    /// Repairs the stored messages as one command (DESIGN §5): synthetic error results right
    /// after their calls (with their own ids), misplaced results moved, duplicates and orphans
    /// removed. Returns `{version, report, ids}`; nothing to repair → no command.
    #[wasm_bindgen(unchecked_return_type = "Repaired")]
    pub fn repair(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "StoreRepairOptions")] opts: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let opts = opts.unwrap_or(JsValue::UNDEFINED);
        let args: StoreRepairOptions =
            if opts.is_undefined() || opts.is_null() { StoreRepairOptions::default() } else { from_js(opts)? };
        let author = args.author.clone().unwrap_or_else(|| "repair".into());
        let out = self
            .lock()?
            .change(&author.clone(), vec![channel::MESSAGES.into()], |s, now| s.repair(&args.repair, &author, now))?;
        to_js(&out)
    }

    /// The hash of the last event (64 zeros before any).
    #[wasm_bindgen(getter, js_name = lastHash)]
    pub fn last_hash(&self) -> JsResult<String> {
        Ok(self.lock()?.inner.last_hash().to_string())
    }

    /// Rebuilds a store from a whole log (an array of events or their JSON Lines), checking
    /// every link and hash and that each event reproduces. Private channels' owners claim their
    /// keys with `claimOwnerKey`. Throws `TAMPERED_LOG` with `details.index` of the first bad event.
    pub fn replay(
        #[wasm_bindgen(unchecked_param_type = "StoreEvent[] | string")] events: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RestoreInit")] init: Option<JsValue>,
    ) -> JsResult<JsStateStore> {
        let init = init.unwrap_or(JsValue::UNDEFINED);
        let hooks = Hooks::read(&init)?;
        let opts: StoreOptions =
            if init.is_undefined() || init.is_null() { StoreOptions::default() } else { from_js(init)? };
        let events = events_from_js(&events)?;
        Ok(JsStateStore::wrap(Store::replay(opts, &events).map_err(to_js_error)?, hooks))
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
        Ok(self.lock()?.inner.checkpoint().encode())
    }

    /// Restores a store from checkpoint bytes and the events after it (an array or JSON Lines;
    /// events up to the checkpoint are skipped, so a whole log may be passed). Throws
    /// `CORRUPT_CHECKPOINT`, `UNSUPPORTED_FORMAT_VERSION`, `TAMPERED_LOG`; nothing is half-loaded.
    pub fn restore(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] checkpoint: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "StoreEvent[] | string")] tail: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "RestoreInit")] init: Option<JsValue>,
    ) -> JsResult<JsStateStore> {
        let tail = tail.unwrap_or(JsValue::UNDEFINED);
        let init = init.unwrap_or(JsValue::UNDEFINED);
        let hooks = Hooks::read(&init)?;
        if checkpoint.is_undefined() || checkpoint.is_null() {
            return Err(to_js_error(Error::new(
                ErrorCode::InvalidOption,
                "no checkpoint was given: rebuild the store from its whole log with StateStore.replay(events)",
            )));
        }
        let checkpoint = checkpoint
            .dyn_into::<js_sys::Uint8Array>()
            .map_err(|_| {
                to_js_error(Error::new(
                    ErrorCode::CorruptCheckpoint,
                    "a checkpoint is the Uint8Array store.checkpoint() returns",
                ))
            })?
            .to_vec();
        let tail = if tail.is_undefined() || tail.is_null() { Vec::new() } else { events_from_js(&tail)? };
        let opts: StoreOptions =
            if init.is_undefined() || init.is_null() { StoreOptions::default() } else { from_js(init)? };
        Ok(JsStateStore::wrap(Store::restore(&checkpoint, &tail, opts.channels).map_err(to_js_error)?, hooks))
    }

    /// A snapshot meant to leave the machine: like a checkpoint but without private channels,
    /// their specs or keys. `{format: "stategate-export", format_version, run_id, last_sequence,
    /// last_hash, channels, values, digest}`.
    #[wasm_bindgen(js_name = exportForTransport, unchecked_return_type = "Record<string, unknown>")]
    pub fn export_for_transport(&self) -> JsResult<JsValue> {
        let bytes = self.lock()?.inner.export_for_transport().encode();
        let v: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| to_js_error(Error::new(ErrorCode::InvalidOption, e.to_string())))?;
        to_js(&v)
    }

    /// Tool calls without a result, in message order: `[{toolCallId, name, messageId}]` — after
    /// a restore in the middle of a tool batch, pass them to `repair({reasons})` as `"interrupted"`.
    #[wasm_bindgen(js_name = danglingToolCalls, unchecked_return_type = "DanglingCall[]")]
    pub fn dangling_tool_calls(&self) -> JsResult<JsValue> {
        to_js(&self.lock()?.inner.dangling_tool_calls())
    }

    /// Hands out `owner`'s private-channel key once after a replay or restore (keys are never
    /// persisted). Throws `NOT_OWNER` if the owner has no private channel or already has its key.
    #[wasm_bindgen(js_name = claimOwnerKey)]
    pub fn claim_owner_key(&self, #[wasm_bindgen(unchecked_param_type = "string")] owner: JsValue) -> JsResult<String> {
        let owner = string_arg(&owner, "owner")?;
        let key = random_key()?;
        self.lock()?.inner.claim_owner_key(&owner, || key).map_err(to_js_error)
    }
}

/// An unguessable owner key from the platform's CSPRNG (`crypto.randomUUID`, Node 20 and browsers).
fn random_key() -> JsResult<String> {
    let unavailable =
        || to_js_error(Error::new(ErrorCode::InvalidOption, "globalThis.crypto.randomUUID is not available"));
    let crypto = js_sys::Reflect::get(&js_sys::global(), &"crypto".into()).map_err(|_| unavailable())?;
    let f = js_sys::Reflect::get(&crypto, &"randomUUID".into())
        .map_err(|_| unavailable())?
        .dyn_into::<js_sys::Function>()
        .map_err(|_| unavailable())?;
    let uuid = f.call0(&crypto).map_err(|_| unavailable())?.as_string().ok_or_else(unavailable)?;
    Ok(format!("sgk_{uuid}"))
}
