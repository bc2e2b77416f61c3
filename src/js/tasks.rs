//! The `AsyncTasks` JS class (DESIGN §7): converts arguments, snapshots the store, runs the
//! core's task operations with the transport of [`super::transport`], and records the outcome
//! through the store's gate ([`tasks::finish_call`], [`tasks::record_poll`]). Also `store.notifications()` and `store.deliverNotifications()`.

use super::gate::{lock, Shared};
use super::interop::{describe, from_js, from_js_json, options, to_js, to_js_error};
use super::store::JsStateStore;
use super::transport::JsTransport;
use crate::error::{Error, ErrorCode};
use crate::state::channel;
use crate::tasks::{self, TasksConfig, AUTHOR};
use serde::Deserialize;
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

type JsResult<T> = Result<T, JsValue>;

#[wasm_bindgen(typescript_custom_section)]
const TASKS_TS: &'static str = r#"
/** Options of `new AsyncTasks(store, init)`: {@link TasksConfig} (the subagents, the default server, time-outs) plus a transport. */
export type AsyncTasksInit = TasksConfig & {
  /**
   * Performs one Agent Protocol call instead of the global `fetch` (a function, or an object
   * with a `send` method): resolve with the HTTP status and the parsed JSON body; reject (or
   * throw) when the server cannot be reached.
   */
  transport?: ((request: ProtocolRequest) => Promise<{ status: number; body: unknown }>) | { send(request: ProtocolRequest): Promise<{ status: number; body: unknown }> };
};
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

/// `{apply?: boolean}` of `handle`.
#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct HandleOptions {
    apply: Option<bool>,
}

/// A promise for `work`, or one rejected with `early`'s error: every failure of an async method
/// is a rejection, never a synchronous throw.
fn promise(early: JsResult<impl std::future::Future<Output = JsResult<JsValue>> + 'static>) -> js_sys::Promise {
    match early {
        Ok(work) => future_to_promise(work),
        Err(e) => js_sys::Promise::reject(&e),
    }
}

/// Applies `command` through the store's gate (write-ahead `onEvents`, clock, `audit`).
fn apply(s: &mut Shared, command: &crate::state::Command) -> crate::error::Result<crate::state::Applied> {
    let channels = command.update.keys().cloned().collect();
    s.try_change(AUTHOR, channels, |st, now| st.apply(command, now))
}

/// The ledger and the notification queue as they are now (what an outcome's command is made
/// against).
fn ledger_and_queue(s: &Shared) -> JsResult<(Value, Value)> {
    let get = |name| s.inner.get(name).map_err(to_js_error);
    Ok((get(channel::ASYNC_TASKS)?, get(channel::NOTIFICATIONS)?))
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
                let (ledger, queue) = ledger_and_queue(&s)?;
                let mut gate = |command: &crate::state::Command| apply(&mut s, command);
                let gate = (opts.apply != Some(false)).then_some(&mut gate as &mut tasks::Gate);
                to_js(&tasks::finish_call(out, &ledger, &queue, gate).map_err(to_js_error)?)
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
        let opts: HandleOptions = options(opts)?;
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
                let (out, failed) = tasks::poll(&ctx, &transport).await;
                let mut s = lock(&store)?;
                let (ledger, queue) = ledger_and_queue(&s)?;
                let version = s.inner.version();
                let result =
                    tasks::record_poll(&out, failed, &ledger, &queue, version, &mut |command| apply(&mut s, command));
                to_js(&result)
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
        to_js(&lock(&self.store)?.inner.get(channel::ASYNC_TASKS).map_err(to_js_error)?)
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
        let out = self.lock()?.change(
            AUTHOR,
            vec![channel::MESSAGES.into(), channel::NOTIFICATIONS.into()],
            tasks::deliver,
        )?;
        to_js(&out)
    }
}
