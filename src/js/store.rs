//! The `StateStore` JS class: converts arguments, calls [`crate::state::Store`], converts results.
//! One message crosses the boundary per append; the state stays inside wasm (BOUNDARY.md).

use super::interop::{from_js, from_js_json, to_js, to_js_error};
use crate::error::{Error, ErrorCode};
use crate::message::formats::{encode_messages, Format};
use crate::repair::RepairOptions;
use crate::state::{ChannelSpec, Command, Store, StoreOptions};
use serde::Deserialize;
use serde_json::json;
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
}
/** One applied command in the store's log. */
export interface StoreEvent {
  /** 1-based; equals the version after the command. */
  sequence: number;
  type: EventType;
  author: string;
  /** The update as reduced: `{channel: value}`, messages as canonical ops with their ids. */
  payload: Record<string, unknown>;
  /** ms since the epoch, from the store's clock. */
  created_at: number;
  correlation_id?: string;
  causation_id?: string;
}
/** Options of `store.repair(opts)`: the repair options plus the command's author (default `"repair"`). */
export interface StoreRepairOptions extends RepairOptions {
  author?: string;
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
    inner: Store,
    clock: Option<js_sys::Function>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct RepairArgs {
    #[serde(flatten)]
    opts: RepairOptions,
    author: Option<String>,
}

#[wasm_bindgen(js_class = StateStore)]
impl JsStateStore {
    /// A store with the default schema (messages, async_tasks, todos, files, run, plan, facts,
    /// unresolved_questions, approvals, budget, artifacts, last_error) plus `init.channels`.
    /// Throws `INVALID_OPTION`, `CHANNEL_EXISTS`.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "StoreInit | undefined")] init: JsValue) -> JsResult<JsStateStore> {
        let mut clock = None;
        let mut opts = StoreOptions::default();
        if !init.is_undefined() && !init.is_null() {
            let c = js_sys::Reflect::get(&init, &"clock".into())?;
            if !c.is_undefined() {
                clock = Some(c.dyn_into::<js_sys::Function>().map_err(|_| to_js_error(Error::new(ErrorCode::InvalidOption, "clock must be a function returning ms since the epoch")))?);
            }
            let run_id = js_sys::Reflect::get(&init, &"runId".into())?;
            if !run_id.is_undefined() {
                opts.run_id = Some(run_id.as_string().ok_or_else(|| to_js_error(Error::new(ErrorCode::InvalidOption, "runId must be a string")))?);
            }
            let channels = js_sys::Reflect::get(&init, &"channels".into())?;
            if !channels.is_undefined() {
                opts.channels = from_js(channels)?;
            }
        }
        Ok(JsStateStore { inner: Store::new(opts).map_err(to_js_error)?, clock })
    }

    fn now(&self) -> JsResult<u64> {
        let ms = match &self.clock {
            Some(f) => f.call0(&JsValue::UNDEFINED)?.as_f64().unwrap_or(f64::NAN),
            None => js_sys::Date::now(),
        };
        if !ms.is_finite() || ms < 0.0 {
            return Err(to_js_error(Error::new(ErrorCode::InvalidOption, "the clock must return a finite number of ms ≥ 0")));
        }
        Ok(ms as u64)
    }

    /// The version: the number of commands applied so far.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> f64 {
        self.inner.version() as f64
    }

    /// The run id.
    #[wasm_bindgen(getter, js_name = runId)]
    pub fn run_id(&self) -> String {
        self.inner.run_id().to_string()
    }

    /// Applies one command: decode → authorise → version lock → validate → reduce → version + 1
    /// → one event. Returns `{version, ids}` (ids of the messages written). Throws with `code`
    /// (`VERSION_CONFLICT`, `UNKNOWN_CHANNEL`, `NOT_AUTHORIZED`, `NOT_OWNER`, `INVALID_UPDATE`,
    /// `INVALID_MESSAGE`, `UNKNOWN_MESSAGE_ID`, `UNKNOWN_TOOL_CALL`, `ALREADY_ANSWERED`,
    /// `RUN_ENDED`, `INVALID_TRANSITION`, `INVALID_PLAN`, `APPROVAL_PENDING`,
    /// `APPROVAL_REJECTED`, `BUDGET_EXCEEDED`) and `details` `{channel?, index?, field?}`.
    #[wasm_bindgen(unchecked_return_type = "Applied")]
    pub fn apply(&mut self, #[wasm_bindgen(unchecked_param_type = "Command")] command: JsValue) -> JsResult<JsValue> {
        let cmd: Command = from_js_json(&command, ErrorCode::InvalidUpdate, "a command is {author, update, expectedVersion?, correlationId?, causationId?}")?;
        let now = self.now()?;
        to_js(&self.inner.apply(&cmd, now).map_err(to_js_error)?)
    }

    /// Applies the commands of one superstep together, all or nothing, in call order (one event
    /// and one version each). Two writes to one `replace` channel, or to one key of a `merge`
    /// channel declaring `onConflict: "error"`, throw `CONCURRENT_WRITE` with `details.authors`.
    /// `details.command` is the index of the failing command.
    #[wasm_bindgen(js_name = applyBatch, unchecked_return_type = "BatchApplied")]
    pub fn apply_batch(&mut self, #[wasm_bindgen(unchecked_param_type = "Command[]")] commands: JsValue) -> JsResult<JsValue> {
        let cmds: Vec<Command> = from_js_json(&commands, ErrorCode::InvalidUpdate, "a batch is a list of commands {author, update, …}")?;
        let now = self.now()?;
        to_js(&self.inner.apply_batch(&cmds, now).map_err(to_js_error)?)
    }

    /// Adds a channel. For a private channel returns its owner's key (the first private channel
    /// of an owner creates it; later ones must pass it as `ownerKey`), else `undefined`.
    /// Throws `INVALID_OPTION`, `CHANNEL_EXISTS`, `NOT_OWNER`.
    #[wasm_bindgen(js_name = registerChannel)]
    pub fn register_channel(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ChannelSpec")] spec: JsValue,
        owner_key: Option<String>,
    ) -> JsResult<Option<String>> {
        let spec: ChannelSpec = from_js(spec)?;
        let key = random_key()?;
        self.inner.register_channel(spec, owner_key.as_deref(), || key).map_err(to_js_error)
    }

    /// The value of a non-private channel (`messages`: canonical `Message[]`).
    /// Throws `UNKNOWN_CHANNEL`, `PRIVATE_CHANNEL`.
    pub fn get(&self, channel: &str) -> JsResult<JsValue> {
        to_js(&self.inner.get(channel).map_err(to_js_error)?)
    }

    /// The messages, encoded in `format` (`"langchain" | "openai" | "anthropic" | "ai-sdk" |
    /// "gemini"`), or canonical when absent. Throws `INVALID_OPTION`.
    #[wasm_bindgen(unchecked_return_type = "unknown[]")]
    pub fn messages(&self, format: Option<String>) -> JsResult<JsValue> {
        let channel = self.inner.messages("messages").map_err(to_js_error)?;
        match format {
            None => to_js(channel.messages()),
            Some(f) => to_js(&encode_messages(channel.messages(), Format::parse(&f).map_err(to_js_error)?)),
        }
    }

    /// Every channel except private ones: `{channel: value}` in schema order.
    #[wasm_bindgen(js_name = systemView, unchecked_return_type = "Record<string, unknown>")]
    pub fn system_view(&self) -> JsResult<JsValue> {
        to_js(&self.inner.system_view())
    }

    /// The private channels of the owner holding `ownerKey`. Throws `NOT_OWNER` for an unknown key.
    #[wasm_bindgen(js_name = private, unchecked_return_type = "Record<string, unknown>")]
    pub fn private_view(&self, owner_key: &str) -> JsResult<JsValue> {
        to_js(&self.inner.private_view(owner_key).map_err(to_js_error)?)
    }

    /// `{runId, version, channels}` with the system view: what `JSON.stringify(store)` writes.
    /// Private channels are never included.
    #[wasm_bindgen(js_name = toJSON, unchecked_return_type = "{ runId: string; version: number; channels: Record<string, unknown> }")]
    pub fn to_json(&self) -> JsResult<JsValue> {
        to_js(&json!({"runId": self.inner.run_id(), "version": self.inner.version(), "channels": self.inner.system_view()}))
    }

    /// The schema: every channel's spec, in order.
    #[wasm_bindgen(unchecked_return_type = "ChannelSpec[]")]
    pub fn channels(&self) -> JsResult<JsValue> {
        to_js(self.inner.channels())
    }

    /// The events of every applied command, in order: `{sequence, type, author, payload,
    /// created_at, correlation_id?, causation_id?}`. Local to this store: payloads include
    /// private channel writes.
    #[wasm_bindgen(unchecked_return_type = "StoreEvent[]")]
    pub fn events(&self) -> JsResult<JsValue> {
        to_js(self.inner.events())
    }

    /// Repairs the stored messages as one command (DESIGN §5): synthetic error results right
    /// after their calls (with their own ids), misplaced results moved, duplicates and orphans
    /// removed. Returns `{version, report, ids}`; nothing to repair → no command.
    #[wasm_bindgen(unchecked_return_type = "Repaired")]
    pub fn repair(&mut self, #[wasm_bindgen(unchecked_param_type = "StoreRepairOptions | undefined")] opts: JsValue) -> JsResult<JsValue> {
        let args: RepairArgs = if opts.is_undefined() || opts.is_null() { RepairArgs::default() } else { from_js(opts)? };
        let now = self.now()?;
        let author = args.author.as_deref().unwrap_or("repair");
        to_js(&self.inner.repair(&args.opts, author, now).map_err(to_js_error)?)
    }
}

/// An unguessable owner key from the platform's CSPRNG (`crypto.randomUUID`, Node 20 and browsers).
fn random_key() -> JsResult<String> {
    let crypto = js_sys::Reflect::get(&js_sys::global(), &"crypto".into())?;
    let f = js_sys::Reflect::get(&crypto, &"randomUUID".into())?
        .dyn_into::<js_sys::Function>()
        .map_err(|_| to_js_error(Error::new(ErrorCode::InvalidOption, "globalThis.crypto.randomUUID is not available")))?;
    let uuid = f.call0(&crypto)?.as_string().unwrap_or_default();
    Ok(format!("sgk_{uuid}"))
}
