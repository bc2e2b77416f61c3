//! The `StateStore` JS class: converts arguments, calls [`crate::state::Store`], converts results.
//! One message crosses the boundary per append; the state stays inside wasm (BOUNDARY.md).

use super::gate::{lock, random_key, take_chain_key, Hooks, JsEntropy, JsSink, Shared};
use super::interop::{
    cannot_store, from_js_json, from_js_tree, opt_string_arg, options, options_tree, parse_js_or, string_arg, to_js,
    to_js_error,
};
use crate::error::ErrorCode;
use crate::json::obj;
use crate::message::formats::Format;
use crate::project::Projector;
use crate::state::{channel, ChannelSpec, Command, Decide, PlainAppend, Store, StoreOptions, StoreRepairOptions};
use std::cell::{RefCell, RefMut};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

/// What a command is, for the error when one cannot be read.
const COMMAND_SHAPE: &str = "a command is {author, update, expectedVersion?, correlationId?, causationId?}";
const DECIDE_SHAPE: &str = "a decision is {approvalId, approved, reason?, author, expectedVersion?}";

#[wasm_bindgen(typescript_custom_section)]
const STORE_INIT: &'static str = r#"
/** The callbacks of a store (the only hand-written part of its options: functions do not cross as data). */
export interface StoreCallbacks {
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
/** The key of a keyed chain (issue 18), shared by every writer and reader of one log. */
export interface ChainKeyOption {
  /**
   * HMAC-SHA-256 key, at least 16 bytes (use 32 random bytes). With it the store hashes its
   * events and seals its checkpoints with HMAC-SHA-256 instead of SHA-256, so someone without
   * the key can neither forge an event nor recompute the chain after changing one. The key is
   * never written anywhere: pass it again to `replay`, `restore`, `verifyLog` (and to `follow`
   * on a follower that should check hashes). A log written without a key verifies without one.
   */
  chainKey?: Uint8Array;
}
/** Options of `new StateStore(init)`: {@link StoreOptions}, the chain key and the callbacks. */
export type StoreInit = StoreOptions & ChainKeyOption & StoreCallbacks;
/**
 * Options of `StateStore.replay` and `StateStore.restore`: the channels the log writes beyond
 * the default schema (replay: private ones included), the chain key, and the callbacks.
 */
export type RestoreInit = Pick<StoreOptions, "channels"> & ChainKeyOption & StoreCallbacks;
/** Options of `StateStore.follow(snapshot, opts)`. */
export interface FollowOptions extends ChainKeyOption {
  /** The follower's clock (ms since the epoch), for its model views. Default `Date.now`. */
  clock?: () => number;
}
/** Which events `events(filter)` lists (an alias of {@link EventFilter}). */
export type EventQuery = EventFilter;
/** Options of `store.modelView(opts)` and `projectMessages(messages, opts)`. */
export interface ModelViewOptions extends ProjectOptions {
  /** Counts the tokens of a text (e.g. a real BPE tokenizer). Default: ⌈characters / 4⌉. */
  tokenizer?: (text: string) => number;
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

impl JsStateStore {
    /// A JS store around `inner`, whose write-ahead sink becomes `hooks.onEvents` (the store owns
    /// it: every change of every method reaches it).
    pub(super) fn wrap(mut inner: Store, hooks: Hooks) -> JsStateStore {
        inner.set_sink(hooks.on_event.clone().map(|f| Rc::new(JsSink(f)) as Rc<dyn crate::state::EventSink>));
        inner.set_entropy(Some(Rc::new(JsEntropy)));
        JsStateStore {
            shared: Rc::new(RefCell::new(Shared { inner, hooks, projector: Projector::default(), tokenizer: None })),
        }
    }

    /// The store, or an error when it is busy (called from inside one of its own callbacks).
    pub(super) fn lock(&self) -> JsResult<RefMut<'_, Shared>> {
        lock(&self.shared)
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
        let hooks = Hooks::read(init.as_ref())?;
        let (chain_key, init) = take_chain_key(init)?;
        let opts = StoreOptions { chain_key, ..options_tree(init)? };
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
        // An append of plain chat messages is read from the object itself when it can be, else
        // from its JSON text, without a JSON tree (the same result either way).
        let plain = super::plain::plain_append(&command)
            .map_err(|e| to_js_error(cannot_store(ErrorCode::InvalidUpdate, COMMAND_SHAPE, &e)))?;
        let read = match plain {
            Some(plain) => Ok(Ok(plain)),
            None => parse_js_or::<_, Command>(&command, ErrorCode::InvalidUpdate, COMMAND_SHAPE, PlainAppend::read),
        };
        let out = match read.map_err(to_js_error)? {
            Ok(plain) => {
                let author = plain.author().to_string();
                self.lock()?.change(&author, vec![channel::MESSAGES.to_string()], |s, now| s.apply_plain(plain, now))?
            }
            Err(cmd) => {
                let channels = cmd.update.keys().cloned().collect();
                self.lock()?.change(&cmd.author.clone(), channels, |s, now| s.apply(&cmd, now))?
            }
        };
        Ok(super::interop::applied_to_js(&out))
    }

    /// Whether `command` would be applied now, without applying it: the whole gate runs and is
    /// rolled back (version, state and log unchanged either way). Throws what `apply` would
    /// throw; returns nothing. Use it before effects outside the store (a server call, a
    /// payment) whose result the store must then take.
    pub fn check(&self, #[wasm_bindgen(unchecked_param_type = "Command")] command: JsValue) -> JsResult<()> {
        let cmd: Command = from_js_json(&command, ErrorCode::InvalidUpdate, COMMAND_SHAPE)?;
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

    /// Records a decision on an approval a call asked for in the messages, as one command by
    /// `author`: a decision message (the AI SDK's `tool-approval-response`) appended to
    /// `messages`, which feeds the `approvals` channel and, for a run waiting on its last
    /// approval, sets it running again. Returns `{version, ids}`. Throws `UNKNOWN_TOOL_CALL` (no
    /// call asked for that approval), `INVALID_TRANSITION` (already decided), `VERSION_CONFLICT`,
    /// `NOT_AUTHORIZED`, `INVALID_OPTION` (not `{approvalId, approved, reason?, author,
    /// expectedVersion?}`); a refusal changes nothing.
    #[wasm_bindgen(unchecked_return_type = "Applied")]
    pub fn decide(&self, #[wasm_bindgen(unchecked_param_type = "Decide")] decision: JsValue) -> JsResult<JsValue> {
        let d: Decide = from_js_json(&decision, ErrorCode::InvalidOption, DECIDE_SHAPE)?;
        let author = d.author.clone();
        let out = self.lock()?.change(&author, vec![channel::MESSAGES.into()], |s, now| s.decide(&d, now))?;
        Ok(super::interop::applied_to_js(&out))
    }

    /// The `approvals` channel: records by approval id, fed from the messages (a call's request
    /// is `pending`; a decision makes it `approved` or `rejected` with its reason, author and
    /// time).
    #[wasm_bindgen(unchecked_return_type = "Record<string, ApprovalRecord>")]
    pub fn approvals(&self) -> JsResult<JsValue> {
        to_js(&self.lock()?.inner.get(channel::APPROVALS).map_err(to_js_error)?)
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
        let owner_key = opt_string_arg(owner_key, "ownerKey")?;
        let spec: ChannelSpec = from_js_tree(&spec)?;
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
    /// "gemini" | "ui" | "responses" | "openai-agents"`), or canonical when absent. Throws
    /// `INVALID_OPTION`; for `"ui"`, `UNKNOWN_TOOL_CALL` / `ALREADY_ANSWERED` (`details.index`) for
    /// a result a UIMessage cannot carry (its call in another message; a second result) — the
    /// model view (`modelView({format: "ui"})`) is repaired and has none.
    #[wasm_bindgen(unchecked_return_type = "unknown[]")]
    pub fn messages(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "Format")] format: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let format = opt_string_arg(format, "format")?;
        let s = self.lock()?;
        let channel = s.inner.messages(channel::MESSAGES).map_err(to_js_error)?;
        match format {
            None => to_js(channel.messages()),
            Some(f) => {
                let format = Format::parse(&f).map_err(to_js_error)?;
                // The encoder reads a slice of messages; the channel shares them (`Rc`).
                let list: Vec<crate::message::Message> = channel.messages().iter().map(|m| (**m).clone()).collect();
                to_js(&crate::message::formats::convert(&list, format).map_err(to_js_error)?)
            }
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
        to_js(&obj! {"runId": s.inner.run_id(), "version": s.inner.version(), "channels": s.inner.system_view()})
    }

    /// The schema: every channel's spec, in order.
    #[wasm_bindgen(unchecked_return_type = "ChannelSpec[]")]
    pub fn channels(&self) -> JsResult<JsValue> {
        to_js(self.lock()?.inner.channels())
    }

    /// Repairs the stored messages as one command (DESIGN §5): synthetic error results right
    /// after their calls (with their own ids), misplaced results moved, duplicates and orphans
    /// removed. Returns `{version, report, ids}`; nothing to repair → no command.
    #[wasm_bindgen(unchecked_return_type = "Repaired")]
    pub fn repair(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "StoreRepairOptions")] opts: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let args: StoreRepairOptions = options(opts)?;
        let author = args.author.clone().unwrap_or_else(|| "repair".into());
        let out = self
            .lock()?
            .change(&author.clone(), vec![channel::MESSAGES.into()], |s, now| s.repair(&args.repair, &author, now))?;
        to_js(&out)
    }

    /// What `repair(opts)` would do now, leaving the store exactly as it was: `{version, report,
    /// ids, events}` — its answer, and the event it would log (none when there is nothing to
    /// repair). For a log written asynchronously (`PostgresLog`): persist `events`, then
    /// `ingest` them. Throws what `repair` would.
    #[wasm_bindgen(js_name = previewRepair, unchecked_return_type = "RepairPreview")]
    pub fn preview_repair(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "StoreRepairOptions")] opts: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let args: StoreRepairOptions = options(opts)?;
        let author = args.author.clone().unwrap_or_else(|| "repair".into());
        let mut s = self.lock()?;
        let now = s.now()?;
        to_js(&s.inner.preview_repair(&args.repair, &author, now).map_err(to_js_error)?)
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
