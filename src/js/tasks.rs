//! The `AsyncTasks` JS class (DESIGN §7): converts arguments, snapshots the store, runs the
//! core's task operations with a transport over `fetch` (or the caller's), and applies the
//! resulting Command to the store. Also `store.notifications()` and `store.deliverNotifications()`.

use super::interop::{describe, from_js, from_js_json, to_js, to_js_error};
use super::store::{lock, JsStateStore, Shared};
use crate::error::{Error, ErrorCode};
use crate::message::ToolCall;
use crate::tasks::{self, ProtocolRequest, ProtocolResponse, TasksConfig, Transport};
use serde::Deserialize;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

type JsResult<T> = Result<T, JsValue>;

#[wasm_bindgen(typescript_custom_section)]
const TASKS_TS: &'static str = r#"
/** Options of `new AsyncTasks(store, init)`: the subagents, the default server and a transport. */
export interface AsyncTasksInit {
  /** The async subagents, at least one, unique names. */
  agents: SubagentSpec[];
  /** The default Agent Protocol server, e.g. `"http://127.0.0.1:2024"`. */
  url?: string;
  /** Headers for every server call (strings); a subagent's own headers win. */
  headers?: Record<string, string>;
  /** Thread metadata `parent_thread_id` of new subagent threads. Default: the store's run id. */
  parentThreadId?: string;
  /** Author of the ledger's commands. Default `"async_tasks"`. */
  author?: string;
  /** Token budget of the parent view a `fork` subagent receives. Default 32,000. */
  forkBudget?: number;
  /**
   * Performs one Agent Protocol call instead of the global `fetch`: resolve with the HTTP
   * status and the parsed JSON body; reject (or throw) when the server cannot be reached.
   */
  transport?: (request: ProtocolRequest) => Promise<{ status: number; body: unknown }>;
}
/** A tool call the model made: `{id, name, args}` (LangChain `ToolCall`). */
export interface TaskToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}
/** What `tasks.handle(toolCall)` did. */
export interface TaskResult {
  /** The tool result's text (what the model reads). */
  content: string;
  /** `"error"` for bad arguments, an unknown task or a server failure. */
  status: "success" | "error";
  /** The Command: the tool result message plus the ledger patch. */
  command: Command;
  /** The store's version after applying it (absent with `apply: false`). */
  version?: number;
  /** Ids of the messages written (the tool result). */
  ids?: string[];
  /** The server calls made, in order. */
  effects: EffectRecord[];
  /** The typed failure behind an `"error"` result: `{code, message, field?}`. */
  error?: { code: string; message: string; field?: string };
}
/** What `tasks.poll()` did. */
export interface PollResult {
  /** The store's version after the poll (unchanged when nothing changed). */
  version: number;
  /** Tasks whose status, run or retry schedule changed. */
  changed: string[];
  /** Notifications queued (ids; see `store.notifications()`). */
  notifications: string[];
  /** Tasks the server could not tell about; their records are unchanged. */
  errors: { task_id: string; code: string; message: string }[];
  /** The server calls made, in order. */
  effects: EffectRecord[];
}
/** A queued task notification (`store.notifications()`). */
export interface TaskNotification {
  /** `{task_id}:{run_id}:{status}`. */
  id: string;
  task_id: string;
  agent_name: string;
  status: "success" | "error" | "timeout" | "cancelled" | "waiting";
  run_id: string;
  /** ISO time it was queued. */
  created_at: string;
  /** The final answer (success). */
  result?: string;
  /** Why it failed (error, timeout). */
  error?: string;
  /** The subagent's pending questions (waiting). */
  interrupts?: unknown[];
}
"#;

/// A transport over the caller's function, or the global `fetch` of Node 20 and browsers.
#[derive(Clone)]
struct JsTransport {
    custom: Option<js_sys::Function>,
}

fn field(v: &JsValue, key: &str) -> Result<JsValue, String> {
    js_sys::Reflect::get(v, &key.into()).map_err(|e| describe(&e))
}

impl JsTransport {
    async fn fetch(request: &ProtocolRequest) -> Result<ProtocolResponse, String> {
        let global = js_sys::global();
        let fetch = field(&global, "fetch")?.dyn_into::<js_sys::Function>().map_err(|_| "no global fetch: pass a transport".to_string())?;
        let init = js_sys::Object::new();
        let headers = js_sys::Object::new();
        for (k, v) in &request.headers {
            let _ = js_sys::Reflect::set(&headers, &k.into(), &v.as_str().unwrap_or_default().into());
        }
        let _ = js_sys::Reflect::set(&init, &"method".into(), &request.method.into());
        let _ = js_sys::Reflect::set(&init, &"headers".into(), &headers);
        if let Some(body) = &request.body {
            let _ = js_sys::Reflect::set(&init, &"body".into(), &body.to_string().into());
        }
        let promise = fetch.call2(&global, &request.url.as_str().into(), &init).map_err(|e| describe(&e))?;
        let response = JsFuture::from(js_sys::Promise::from(promise)).await.map_err(|e| describe(&e))?;
        let status = field(&response, "status")?.as_f64().unwrap_or(0.0) as u16;
        let text = field(&response, "text")?.dyn_into::<js_sys::Function>().map_err(|_| "the response has no text()".to_string())?;
        let text = JsFuture::from(js_sys::Promise::from(text.call0(&response).map_err(|e| describe(&e))?)).await.map_err(|e| describe(&e))?;
        let body = text.as_string().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(Value::Null);
        Ok(ProtocolResponse { status, body })
    }

    async fn custom(f: &js_sys::Function, request: &ProtocolRequest) -> Result<ProtocolResponse, String> {
        let arg = to_js(request).map_err(|e| describe(&e))?;
        let answer = f.call1(&JsValue::UNDEFINED, &arg).map_err(|e| format!("the transport threw: {}", describe(&e)))?;
        let answer = JsFuture::from(js_sys::Promise::resolve(&answer)).await.map_err(|e| format!("the transport rejected: {}", describe(&e)))?;
        let status = field(&answer, "status")?.as_f64().filter(|s| (100.0..600.0).contains(s)).ok_or("the transport must resolve with {status: 100..599, body}")?;
        let body: Value = from_js_json(&field(&answer, "body")?, ErrorCode::InvalidOption, "the transport's body is JSON").unwrap_or(Value::Null);
        Ok(ProtocolResponse { status: status as u16, body })
    }
}

impl Transport for JsTransport {
    async fn send(&self, request: &ProtocolRequest) -> Result<ProtocolResponse, String> {
        match &self.custom {
            Some(f) => JsTransport::custom(f, request).await,
            None => JsTransport::fetch(request).await,
        }
    }
}

/// `{apply?: boolean}` of `handle`.
#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct HandleOptions {
    apply: Option<bool>,
}

fn error_json(e: &Error) -> Value {
    let mut v = json!({ "code": e.code.as_str(), "message": e.message });
    if let Some(f) = &e.field {
        v["field"] = json!(f);
    }
    v
}

/// The async subagent task ledger of one store (DESIGN §7): the five task tools for the model
/// and a background poll, talking to Agent Protocol servers. Each tool call becomes one Command
/// (the tool result plus a ledger patch) applied to the store; the ledger lives in the store's
/// `async_tasks` channel, so it is logged, checkpointed and survives compaction.
///
/// @example
/// const tasks = new AsyncTasks(store, { url: "http://127.0.0.1:2024", agents: [{ name: "researcher", description: "Researches a topic", graph_id: "research" }] });
/// // the model called start_async_task: store its assistant message first, then
/// const { content } = await tasks.handle({ id: "call_1", name: "start_async_task", args: { description: "…", subagent_type: "researcher" } });
#[wasm_bindgen(js_name = AsyncTasks)]
pub struct JsAsyncTasks {
    store: Rc<RefCell<Shared>>,
    config: TasksConfig,
    transport: JsTransport,
}

#[wasm_bindgen(js_class = AsyncTasks)]
impl JsAsyncTasks {
    /// Binds a ledger to `store`. Throws `INVALID_OPTION` naming the problem (no agents,
    /// duplicate names, no URL, a transport that is not a function…).
    #[wasm_bindgen(constructor)]
    pub fn new(store: &JsStateStore, #[wasm_bindgen(unchecked_param_type = "AsyncTasksInit")] init: JsValue) -> JsResult<JsAsyncTasks> {
        if !init.is_object() {
            return Err(to_js_error(Error::new(ErrorCode::InvalidOption, "new AsyncTasks(store, {agents, url?, …}) needs options")));
        }
        let t = js_sys::Reflect::get(&init, &"transport".into()).map_err(|e| to_js_error(Error::new(ErrorCode::InvalidOption, describe(&e))))?;
        let custom = if t.is_undefined() {
            None
        } else {
            Some(t.dyn_into::<js_sys::Function>().map_err(|_| to_js_error(Error::new(ErrorCode::InvalidOption, "transport must be a function (request) => Promise<{status, body}>")))?)
        };
        let copy = js_sys::Object::assign(&js_sys::Object::new(), init.unchecked_ref());
        let _ = js_sys::Reflect::delete_property(&copy, &"transport".into());
        let config: TasksConfig = from_js(copy.into())?;
        config.validate().map_err(to_js_error)?;
        Ok(JsAsyncTasks { store: store.shared.clone(), config, transport: JsTransport { custom } })
    }

    /// The five tools for the model: `[{name, description, parameters}]` (JSON Schema), in the
    /// order start, check, update, cancel, list.
    #[wasm_bindgen(unchecked_return_type = "ToolDefinition[]")]
    pub fn tools(&self) -> JsResult<JsValue> {
        to_js(&tasks::definitions(&self.config))
    }

    /// True for the names of the five task tools.
    #[wasm_bindgen(js_name = isTaskTool)]
    pub fn is_task_tool(&self, name: &str) -> bool {
        tasks::TOOL_NAMES.contains(&name)
    }

    /// Runs one task tool call: the server calls it needs, then one Command with the tool result
    /// and the ledger patch, applied to the store (store the assistant message that made the
    /// call first) unless `opts.apply` is false. Failures of the model's making or the server's
    /// are an `"error"` tool result with the ledger unchanged; the promise rejects only for a
    /// name that is not a task tool, a malformed call, or a store that refuses the Command.
    #[wasm_bindgen(unchecked_return_type = "Promise<TaskResult>")]
    pub fn handle(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TaskToolCall")] tool_call: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ apply?: boolean }")] opts: Option<JsValue>,
    ) -> JsResult<js_sys::Promise> {
        let call: ToolCall = from_js_json(&tool_call, ErrorCode::InvalidToolCall, "a tool call is {id, name, args}")?;
        let opts: HandleOptions = match opts.filter(|o| !o.is_undefined() && !o.is_null()) {
            Some(o) => from_js(o)?,
            None => HandleOptions::default(),
        };
        if !tasks::TOOL_NAMES.contains(&call.name.as_str()) {
            return Err(to_js_error(Error::new(ErrorCode::InvalidOption, format!("'{}' is not an async task tool; expected one of: {}", call.name, tasks::TOOL_NAMES.join(", "))).field("name")));
        }
        let ctx = {
            let mut s = lock(&self.store)?;
            let now = s.now()?;
            tasks::context(&mut s.inner, &self.config, Some(&call), now).map_err(to_js_error)?
        };
        let (store, transport, author) = (self.store.clone(), self.transport.clone(), self.config.author.clone());
        Ok(future_to_promise(async move {
            let out = tasks::call(&ctx, &transport, &call).await.map_err(to_js_error)?;
            let mut s = lock(&store)?;
            let ledger = s.inner.get("async_tasks").map_err(to_js_error)?;
            let Some(command) = out.command(&author, &ledger) else {
                return Err(to_js_error(Error::new(ErrorCode::InvalidOption, "internal: a tool call produced no command")));
            };
            let mut result = json!({
                "content": out.content,
                "status": if out.status == crate::message::ToolStatus::Error { "error" } else { "success" },
                "command": command,
                "effects": out.effects,
            });
            if let Some(e) = &out.error {
                result["error"] = error_json(e);
            }
            if opts.apply != Some(false) {
                let channels = command.update.keys().cloned().collect();
                let applied = s.change(&author, channels, |st, now, sink| st.apply_with(&command, now, sink))?;
                result["version"] = json!(applied.version);
                result["ids"] = json!(applied.ids);
            }
            to_js(&result)
        }))
    }

    /// Refreshes every unfinished task (deepagents' pull before each model call): due retries
    /// re-run, runs past `timeout_ms` are cancelled (`timeout`), status changes are recorded and
    /// notifications queued, in one Command (none when nothing changed). A server that cannot
    /// be reached is listed in `errors` and its tasks keep their records.
    #[wasm_bindgen(unchecked_return_type = "Promise<PollResult>")]
    pub fn poll(&self) -> JsResult<js_sys::Promise> {
        let ctx = {
            let mut s = lock(&self.store)?;
            let now = s.now()?;
            tasks::context(&mut s.inner, &self.config, None, now).map_err(to_js_error)?
        };
        let (store, transport, author) = (self.store.clone(), self.transport.clone(), self.config.author.clone());
        Ok(future_to_promise(async move {
            let (out, errors) = tasks::poll(&ctx, &transport).await;
            let mut s = lock(&store)?;
            let ledger = s.inner.get("async_tasks").map_err(to_js_error)?;
            let mut version = s.inner.version();
            if let Some(command) = out.command(&author, &ledger) {
                let channels = command.update.keys().cloned().collect();
                version = s.change(&author, channels, |st, now, sink| st.apply_with(&command, now, sink))?.version;
            }
            let errors: Vec<Value> = errors.iter().map(|e| json!({ "task_id": e.task_id, "code": e.error.code.as_str(), "message": e.error.message })).collect();
            let changed: Vec<&str> = out.tasks.iter().map(|(_, t)| t.task_id.as_str()).collect();
            let queued: Vec<&String> = out.notifications.keys().collect();
            to_js(&json!({ "version": version, "changed": changed, "notifications": queued, "errors": errors, "effects": out.effects }))
        }))
    }

    /// The ledger: `{task_id: record}` (the store's `async_tasks` channel).
    #[wasm_bindgen(unchecked_return_type = "Record<string, unknown>")]
    pub fn ledger(&self) -> JsResult<JsValue> {
        to_js(&lock(&self.store)?.inner.get("async_tasks").map_err(to_js_error)?)
    }
}

#[wasm_bindgen(js_class = StateStore)]
impl JsStateStore {
    /// The task notifications not yet delivered, oldest first (queued by `AsyncTasks.poll`).
    #[wasm_bindgen(unchecked_return_type = "TaskNotification[]")]
    pub fn notifications(&self) -> JsResult<JsValue> {
        to_js(&tasks::undelivered(&self.lock()?.inner))
    }

    /// Appends every undelivered notification to `messages` as a user message (LangChain
    /// `additional_kwargs.deepagents_notification` = the TaskEvent) and marks it delivered, in
    /// one command, so each is delivered exactly once. While a tool call is unanswered nothing
    /// is delivered (`deferred` counts them), so a notification never lands between a call and
    /// its result.
    #[wasm_bindgen(js_name = deliverNotifications, unchecked_return_type = "Delivered")]
    pub fn deliver_notifications(&self, #[wasm_bindgen(unchecked_optional_param_type = "{ author?: string }")] opts: Option<JsValue>) -> JsResult<JsValue> {
        #[derive(Deserialize, Default)]
        #[serde(default, deny_unknown_fields)]
        struct Opts {
            author: Option<String>,
        }
        let opts: Opts = match opts.filter(|o| !o.is_undefined() && !o.is_null()) {
            Some(o) => from_js(o)?,
            None => Opts::default(),
        };
        let author = opts.author.unwrap_or_else(|| "async_tasks".into());
        let out = self.lock()?.change(&author.clone(), vec!["messages".into(), "notifications".into()], |st, now, sink| tasks::deliver(st, &author, now, sink))?;
        to_js(&out)
    }
}
