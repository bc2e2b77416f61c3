//! The `AsyncTasks` JS class (DESIGN §7): converts arguments, snapshots the store, runs the
//! core's task operations with a transport over `fetch` (or the caller's), and applies the
//! resulting Command to the store. Also `store.notifications()` and `store.deliverNotifications()`.

use super::interop::{describe, from_js, from_js_json, to_js, to_js_error};
use super::store::{lock, JsStateStore, Shared};
use crate::error::{Error, ErrorCode};
use crate::tasks::{self, ProtocolRequest, ProtocolResponse, TasksConfig, Transport, AUTHOR};
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
  /** Longest wait for one server call, in ms (then `NETWORK_ERROR`). Default 10,000. */
  requestTimeoutMs?: number;
  /** Token budget of the parent view a `fork` subagent receives. Default 32,000. */
  forkBudget?: number;
  /**
   * Performs one Agent Protocol call instead of the global `fetch` (a function, or an object
   * with a `send` method): resolve with the HTTP status and the parsed JSON body; reject (or
   * throw) when the server cannot be reached.
   */
  transport?: ((request: ProtocolRequest) => Promise<{ status: number; body: unknown }>) | { send(request: ProtocolRequest): Promise<{ status: number; body: unknown }> };
}
/**
 * A tool call the model made: `{id, name, args}` (LangChain), or a provider's shape (OpenAI
 * `{id, function: {name, arguments}}`, Anthropic `tool_use`, AI SDK `tool-call`, Gemini
 * `functionCall`).
 */
export type TaskToolCall =
  | { id: string; name: string; args: Record<string, unknown> }
  | { id: string; type?: "function"; function: { name: string; arguments: string } }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: Record<string, unknown> }
  | { functionCall: { id: string; name: string; args: Record<string, unknown> } };
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
  /** The subagent's pending questions (waiting; parts nested deeper than 16 levels as JSON text). */
  interrupts?: unknown[];
  /** True when `result` was clipped at 80,000 characters. */
  truncated?: boolean;
  /** ISO time it was delivered (in the channel's records; `notifications()` lists undelivered ones). */
  delivered_at?: string;
  /** Why it was not delivered: `"seen through <tool>"` or `"stale: the task moved on"`. */
  dropped?: string;
}
"#;

/// A transport over the caller's function, or the global `fetch` of Node 20 and browsers; each
/// call is bounded by `timeout_ms`.
#[derive(Clone)]
struct JsTransport {
    /// The caller's function and its `this`.
    custom: Option<(js_sys::Function, JsValue)>,
    timeout_ms: u64,
}

/// A promise resolved by `setTimeout` after `ms`; the timer is cleared when dropped, so a call
/// that finished in time leaves no timer keeping Node alive.
struct Timer {
    id: JsValue,
    done: JsFuture,
}

impl Timer {
    fn new(ms: u64) -> Result<Timer, String> {
        let global = js_sys::global();
        let set =
            field(&global, "setTimeout")?.dyn_into::<js_sys::Function>().map_err(|_| "no setTimeout".to_string())?;
        let mut id = JsValue::UNDEFINED;
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            id = set.call2(&global, &resolve, &JsValue::from_f64(ms as f64)).unwrap_or(JsValue::UNDEFINED);
        });
        Ok(Timer { id, done: JsFuture::from(promise) })
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        let global = js_sys::global();
        if let Ok(clear) =
            field(&global, "clearTimeout").and_then(|f| f.dyn_into::<js_sys::Function>().map_err(|_| String::new()))
        {
            let _ = clear.call1(&global, &self.id);
        }
    }
}

/// The first of `work` and `timer` to finish.
struct Race<'a, F> {
    work: std::pin::Pin<Box<F>>,
    timer: &'a mut Timer,
}

impl<F: std::future::Future> std::future::Future for Race<'_, F> {
    type Output = Option<F::Output>;
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        if let std::task::Poll::Ready(v) = self.work.as_mut().poll(cx) {
            return std::task::Poll::Ready(Some(v));
        }
        match std::pin::Pin::new(&mut self.timer.done).poll(cx) {
            std::task::Poll::Ready(_) => std::task::Poll::Ready(None),
            std::task::Poll::Pending => std::task::Poll::Pending,
        }
    }
}

fn field(v: &JsValue, key: &str) -> Result<JsValue, String> {
    js_sys::Reflect::get(v, &key.into()).map_err(|e| describe(&e))
}

impl JsTransport {
    async fn fetch(request: &ProtocolRequest, timeout_ms: u64) -> Result<ProtocolResponse, String> {
        let global = js_sys::global();
        let fetch = field(&global, "fetch")?
            .dyn_into::<js_sys::Function>()
            .map_err(|_| "no global fetch: pass a transport".to_string())?;
        let init = js_sys::Object::new();
        let headers = js_sys::Object::new();
        for (k, v) in &request.headers {
            let _ = js_sys::Reflect::set(&headers, &k.into(), &v.as_str().unwrap_or_default().into());
        }
        let _ = js_sys::Reflect::set(&init, &"method".into(), &request.method.into());
        let _ = js_sys::Reflect::set(&init, &"headers".into(), &headers);
        // Abort the request itself on time-out (AbortSignal.timeout: Node 18+, browsers).
        if let Ok(abort) = field(&global, "AbortSignal") {
            if let Ok(timeout) =
                field(&abort, "timeout").and_then(|f| f.dyn_into::<js_sys::Function>().map_err(|_| String::new()))
            {
                if let Ok(signal) = timeout.call1(&abort, &JsValue::from_f64(timeout_ms as f64)) {
                    let _ = js_sys::Reflect::set(&init, &"signal".into(), &signal);
                }
            }
        }
        if let Some(body) = &request.body {
            let _ = js_sys::Reflect::set(&init, &"body".into(), &body.to_string().into());
        }
        let promise = fetch.call2(&global, &request.url.as_str().into(), &init).map_err(|e| describe(&e))?;
        let response = JsFuture::from(js_sys::Promise::from(promise)).await.map_err(|e| describe(&e))?;
        let status = field(&response, "status")?.as_f64().unwrap_or(0.0) as u16;
        let text = field(&response, "text")?
            .dyn_into::<js_sys::Function>()
            .map_err(|_| "the response has no text()".to_string())?;
        let text = JsFuture::from(js_sys::Promise::from(text.call0(&response).map_err(|e| describe(&e))?))
            .await
            .map_err(|e| describe(&e))?;
        let text = text.as_string().unwrap_or_default();
        let body = if text.trim().is_empty() {
            Value::Null
        } else {
            match serde_json::from_str(&text) {
                Ok(v) => v,
                // An error page is still an error (its status says so); a 2xx must be JSON.
                Err(_) if !(200..300).contains(&status) => Value::Null,
                Err(e) => return Err(format!("the server answered HTTP {status} with a body that is not JSON ({e})")),
            }
        };
        Ok(ProtocolResponse { status, body })
    }

    async fn custom(
        f: &js_sys::Function,
        this: &JsValue,
        request: &ProtocolRequest,
    ) -> Result<ProtocolResponse, String> {
        let arg = to_js(request).map_err(|e| describe(&e))?;
        let answer = f.call1(this, &arg).map_err(|e| format!("the transport threw: {}", describe(&e)))?;
        let answer = JsFuture::from(js_sys::Promise::resolve(&answer))
            .await
            .map_err(|e| format!("the transport rejected: {}", describe(&e)))?;
        let status = field(&answer, "status")?
            .as_f64()
            .filter(|s| s.fract() == 0.0 && (100.0..600.0).contains(s))
            .ok_or("the transport must resolve with {status: an integer 100..599, body}")?;
        let body = field(&answer, "body")?;
        let body: Value = if body.is_undefined() || body.is_null() {
            Value::Null
        } else {
            from_js_json(&body, ErrorCode::InvalidOption, "the transport's body").map_err(|e| describe(&e))?
        };
        Ok(ProtocolResponse { status: status as u16, body })
    }
}

impl Transport for JsTransport {
    async fn send(&self, request: &ProtocolRequest) -> Result<ProtocolResponse, String> {
        let mut timer = Timer::new(self.timeout_ms)?;
        let work: std::pin::Pin<Box<dyn std::future::Future<Output = Result<ProtocolResponse, String>> + '_>> =
            match &self.custom {
                Some((f, this)) => Box::pin(JsTransport::custom(f, this, request)),
                None => Box::pin(JsTransport::fetch(request, self.timeout_ms)),
            };
        match (Race { work: Box::pin(work), timer: &mut timer }).await {
            Some(answer) => answer,
            None => Err(format!("no answer within {} ms (requestTimeoutMs)", self.timeout_ms)),
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

/// A promise for `work`, or one rejected with `early`'s error: every failure of an async method
/// is a rejection, never a synchronous throw.
fn promise(early: JsResult<impl std::future::Future<Output = JsResult<JsValue>> + 'static>) -> js_sys::Promise {
    match early {
        Ok(work) => future_to_promise(work),
        Err(e) => js_sys::Promise::reject(&e),
    }
}

/// Applies `command` through the store's gate (write-ahead `onEvents`, `audit`).
fn apply(s: &mut Shared, command: &crate::state::Command) -> JsResult<crate::state::Applied> {
    let channels = command.update.keys().cloned().collect();
    s.change(AUTHOR, channels, |st, now| st.apply(command, now))
}

/// The async subagent task ledger of one store (DESIGN §7): the five task tools for the model
/// and a background poll, talking to Agent Protocol servers. Each tool call becomes one Command
/// (the tool result plus a ledger patch, author `async_tasks`) applied to the store; the ledger
/// lives in the store's `async_tasks` channel, so it is logged, checkpointed and survives
/// compaction.
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
    /// Tool call ids being handled: the same call handled twice at once would launch twice.
    in_flight: Rc<RefCell<Vec<String>>>,
    /// The poll under way, shared by every `poll()` made meanwhile (two at once would start a
    /// due retry twice).
    polling: Rc<RefCell<Option<js_sys::Promise>>>,
}

#[wasm_bindgen(js_class = AsyncTasks)]
impl JsAsyncTasks {
    /// Binds a ledger to `store`. Throws `INVALID_OPTION` naming the problem (no agents,
    /// duplicate names, a URL with credentials, a query or no host, a header with control
    /// characters, a transport that is not a function…).
    #[wasm_bindgen(constructor)]
    pub fn new(
        store: &JsStateStore,
        #[wasm_bindgen(unchecked_param_type = "AsyncTasksInit")] init: JsValue,
    ) -> JsResult<JsAsyncTasks> {
        if !init.is_object() {
            return Err(to_js_error(Error::new(
                ErrorCode::InvalidOption,
                "new AsyncTasks(store, {agents, url?, …}) needs options",
            )));
        }
        let t = js_sys::Reflect::get(&init, &"transport".into())
            .map_err(|e| to_js_error(Error::new(ErrorCode::InvalidOption, describe(&e))))?;
        // A function, or an object whose `send` method is one (called with the object as `this`).
        let custom = if t.is_undefined() {
            None
        } else if let Some(f) = t.dyn_ref::<js_sys::Function>() {
            Some((f.clone(), JsValue::UNDEFINED))
        } else {
            let send =
                js_sys::Reflect::get(&t, &"send".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
            Some((send.ok_or_else(|| to_js_error(Error::new(ErrorCode::InvalidOption, "transport must be a function (request) => Promise<{status, body}>, or an object with such a send method")))?, t))
        };
        let copy = js_sys::Object::assign(&js_sys::Object::new(), init.unchecked_ref());
        let _ = js_sys::Reflect::delete_property(&copy, &"transport".into());
        let config: TasksConfig = from_js(copy.into())?;
        config.validate().map_err(to_js_error)?;
        let timeout_ms = config.request_timeout_ms;
        Ok(JsAsyncTasks {
            store: store.shared.clone(),
            config,
            transport: JsTransport { custom, timeout_ms },
            in_flight: Rc::default(),
            polling: Rc::default(),
        })
    }

    /// The five tools for the model: `[{name, description, parameters}]` (JSON Schema), in the
    /// order start, check, update, cancel, list.
    #[wasm_bindgen(unchecked_return_type = "ToolDefinition[]")]
    pub fn tools(&self) -> JsResult<JsValue> {
        to_js(&tasks::definitions(&self.config))
    }

    /// True for the names of the five task tools (`false` for anything that is not one, a
    /// non-string included).
    #[wasm_bindgen(js_name = isTaskTool)]
    pub fn is_task_tool(&self, #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue) -> bool {
        name.as_string().is_some_and(|n| tasks::TOOL_NAMES.contains(&n.as_str()))
    }

    /// Runs one task tool call, given as `{id, name, args}` or in any provider's tool call
    /// shape. First checks that the store would accept its result (the call exists unanswered,
    /// its approval is not pending or rejected, the run has not ended…) — no server call is made
    /// otherwise; then the server calls; then one Command with the tool result and the ledger
    /// patch, applied to the store unless `opts.apply` is false. Failures of the model's making
    /// or the server's are an `"error"` tool result with the ledger unchanged. The promise
    /// rejects (never throws) with `INVALID_TOOL_CALL`, `INVALID_OPTION` (not a task tool), the
    /// store's refusal (`UNKNOWN_TOOL_CALL`, `ALREADY_ANSWERED`, `APPROVAL_PENDING`,
    /// `APPROVAL_REJECTED`, `RUN_ENDED`, `READ_ONLY`, `STORAGE_ERROR`…).
    #[wasm_bindgen(unchecked_return_type = "Promise<TaskResult>")]
    pub fn handle(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TaskToolCall")] tool_call: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ apply?: boolean }")] opts: Option<JsValue>,
    ) -> js_sys::Promise {
        promise(self.prepare_call(tool_call, opts).map(|(ctx, call, opts)| {
            let (store, transport, in_flight) = (self.store.clone(), self.transport.clone(), self.in_flight.clone());
            async move {
                let out = tasks::call(&ctx, &transport, &call).await;
                in_flight.borrow_mut().retain(|id| id != &call.id);
                let out = out.map_err(to_js_error)?;
                let mut s = lock(&store)?;
                let (ledger, queue) = (
                    s.inner.get("async_tasks").map_err(to_js_error)?,
                    s.inner.get("notifications").map_err(to_js_error)?,
                );
                let Some(command) = out.command(&ledger, &queue) else {
                    return Err(to_js_error(Error::new(
                        ErrorCode::InvalidOption,
                        "internal: a tool call produced no command",
                    )));
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
                    let applied = apply(&mut s, &command)?;
                    result["version"] = json!(applied.version);
                    result["ids"] = json!(applied.ids);
                }
                to_js(&result)
            }
        }))
    }

    /// The synchronous part of `handle`: read the call, check the store would take its result,
    /// snapshot what the operation reads.
    fn prepare_call(
        &self,
        tool_call: JsValue,
        opts: Option<JsValue>,
    ) -> JsResult<(tasks::Context, crate::message::ToolCall, HandleOptions)> {
        let raw: Value = from_js_json(&tool_call, ErrorCode::InvalidToolCall, "a tool call is {id, name, args}")?;
        let call = tasks::tool_call_of(&raw).map_err(to_js_error)?;
        let opts: HandleOptions = match opts.filter(|o| !o.is_undefined() && !o.is_null()) {
            Some(o) => from_js(o)?,
            None => HandleOptions::default(),
        };
        if !tasks::TOOL_NAMES.contains(&call.name.as_str()) {
            return Err(to_js_error(tasks::not_a_task_tool(&call.name)));
        }
        let mut s = lock(&self.store)?;
        let now = s.now()?;
        tasks::preflight(&mut s.inner, Some(&call.id), now).map_err(to_js_error)?;
        if self.in_flight.borrow().contains(&call.id) {
            return Err(to_js_error(
                Error::new(ErrorCode::Busy, format!("tool call '{}' is already being handled", call.id)).field("id"),
            ));
        }
        let ctx = tasks::context(&mut s.inner, &self.config, Some(&call), now).map_err(to_js_error)?;
        self.in_flight.borrow_mut().push(call.id.clone());
        Ok((ctx, call, opts))
    }

    /// Refreshes every unfinished task (deepagents' pull before each model call): due retries
    /// re-run, runs past `timeout_ms` are cancelled (`timeout`), status changes are recorded and
    /// notifications queued, in one Command (none when nothing changed; per task when the store
    /// refuses the whole). A server that cannot be reached, or a task the store refuses, is
    /// listed in `errors` and keeps its record. Rejects (never throws) when the store cannot
    /// take ledger writes at all (`READ_ONLY`, busy). A `poll()` made while one is under way
    /// shares it (two at once would start a due retry twice).
    #[wasm_bindgen(unchecked_return_type = "Promise<PollResult>")]
    pub fn poll(&self) -> js_sys::Promise {
        if let Some(under_way) = self.polling.borrow().as_ref() {
            return under_way.clone();
        }
        match self.poll_once() {
            Err(e) => js_sys::Promise::reject(&e),
            Ok(work) => {
                let polling = self.polling.clone();
                let p = future_to_promise(async move {
                    let out = work.await;
                    polling.borrow_mut().take();
                    out
                });
                self.polling.borrow_mut().replace(p.clone());
                p
            }
        }
    }

    /// The checks of a poll, then its work as a future.
    fn poll_once(&self) -> JsResult<impl std::future::Future<Output = JsResult<JsValue>> + 'static> {
        let early = lock(&self.store).and_then(|mut s| {
            let now = s.now()?;
            tasks::preflight(&mut s.inner, None, now).map_err(to_js_error)?;
            tasks::context(&mut s.inner, &self.config, None, now).map_err(to_js_error)
        });
        early.map(|ctx| {
            let (store, transport) = (self.store.clone(), self.transport.clone());
            async move {
                let (out, errors) = tasks::poll(&ctx, &transport).await;
                let mut errors: Vec<Value> = errors.iter().map(|e| json!({ "task_id": e.task_id, "code": e.error.code.as_str(), "message": e.error.message })).collect();
                let mut s = lock(&store)?;
                let (ledger, queue) = (s.inner.get("async_tasks").map_err(to_js_error)?, s.inner.get("notifications").map_err(to_js_error)?);
                let mut changed: Vec<String> = Vec::new();
                let mut queued: Vec<String> = Vec::new();
                let mut record = |s: &mut Shared, part: &tasks::Outcome| -> JsResult<()> {
                    if let Some(command) = part.command(&ledger, &queue) {
                        apply(s, &command)?;
                        changed.extend(command.update.get("async_tasks").and_then(Value::as_object).into_iter().flat_map(|m| m.keys().cloned()));
                        queued.extend(command.update.get("notifications").and_then(Value::as_object).into_iter().flat_map(|m| m.keys().cloned()));
                    }
                    Ok(())
                };
                if record(&mut s, &out).is_err() {
                    // One task's record may be refused (e.g. a subagent's answer too deep to
                    // store): record the others, list it.
                    for part in out.per_task() {
                        if let Err(e) = record(&mut s, &part) {
                            let code = js_sys::Reflect::get(&e, &"code".into()).ok().and_then(|c| c.as_string()).unwrap_or_default();
                            let task_id = part.tasks.first().map(|(_, t)| t.task_id.clone()).unwrap_or_default();
                            errors.push(json!({ "task_id": task_id, "code": code, "message": describe(&e) }));
                        }
                    }
                }
                to_js(&json!({ "version": s.inner.version(), "changed": changed, "notifications": queued, "errors": errors, "effects": out.effects }))
            }
        })
    }

    /// Threads on the subagents' servers made for this parent (metadata `parent_thread_id`)
    /// that the ledger does not track — launches whose record was lost because the store
    /// refused it or the process stopped in between. Resolves with their thread ids.
    #[wasm_bindgen(unchecked_return_type = "Promise<string[]>")]
    pub fn untracked(&self) -> js_sys::Promise {
        let early = lock(&self.store).and_then(|mut s| {
            let now = s.now()?;
            tasks::context(&mut s.inner, &self.config, None, now).map_err(to_js_error)
        });
        promise(early.map(|ctx| {
            let transport = self.transport.clone();
            async move { to_js(&tasks::untracked(&ctx, &transport).await.map_err(to_js_error)?) }
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

    /// Appends every queued notification still current (its task has the notified status and
    /// run) to `messages` as a user message (LangChain `additional_kwargs.deepagents_notification`
    /// = the TaskEvent) and marks it delivered; stale ones are dropped; in one command, so each is
    /// delivered at most once. While a tool call is unanswered nothing is delivered (`deferred`
    /// counts them), so a notification never lands between a call and its result.
    #[wasm_bindgen(js_name = deliverNotifications, unchecked_return_type = "Delivered")]
    pub fn deliver_notifications(&self) -> JsResult<JsValue> {
        let out = self.lock()?.change(AUTHOR, vec!["messages".into(), "notifications".into()], tasks::deliver)?;
        to_js(&out)
    }
}
