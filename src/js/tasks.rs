//! The wasm side of `AsyncTasks` (DESIGN §7). The class itself is TypeScript (`ts/tasks.ts`): it
//! performs the server calls with `fetch` or the caller's transport, on its own event loop.
//! Here, mechanically: `AsyncTasksCore` reads the configuration and snapshots the store for an
//! operation; `TaskSteps` runs that operation one synchronous step at a time ([`tasks::Steps`]):
//! its requests go out as data (`advance`), the answers come back in (`received`, `resolved`,
//! `failed`), and `finish` records the outcome through the store's gate ([`tasks::finish_call`],
//! [`tasks::record_poll`]). Also `store.notifications()` and `store.deliverNotifications()`.

use super::gate::{lock, Shared};
use super::interop::{describe, from_js, from_js_json, options, to_js, to_js_error};
use super::store::JsStateStore;
use crate::error::{Error, ErrorCode};
use crate::state::channel;
use crate::tasks::{self, Answer, Outcome, PollError, ProtocolRequest, ProtocolResponse, Steps, TasksConfig, AUTHOR};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

#[wasm_bindgen(typescript_custom_section)]
const TASKS_TS: &'static str = r#"
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
/** One request a {@link TaskSteps} waits for: its id, the request, and its body as JSON text (for `fetch`). */
export interface OutgoingRequest {
  id: number;
  request: ProtocolRequest;
  body?: string;
}
"#;

/// `{apply?: boolean}` of `handle`.
#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct HandleOptions {
    apply: Option<bool>,
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

/// The wasm half of one store's async task ledger (the public class is the TypeScript
/// `AsyncTasks`, which owns one): the validated configuration, the store, and the tool calls
/// being handled. Internal: not part of the package's API.
#[wasm_bindgen(js_name = AsyncTasksCore)]
pub struct JsTasksCore {
    store: Rc<RefCell<Shared>>,
    config: TasksConfig,
    /// Tool call ids being handled: the same call handled twice at once would launch twice.
    in_flight: Rc<RefCell<Vec<String>>>,
}

#[wasm_bindgen(js_class = AsyncTasksCore)]
impl JsTasksCore {
    /// Binds a ledger to `store` with `config` (a {@link TasksConfig}; the transport stays in
    /// TypeScript). Throws `INVALID_OPTION` naming the problem (no agents, duplicate names, a URL
    /// with credentials, a query or no host, a header with control characters…).
    #[wasm_bindgen(constructor)]
    pub fn new(
        store: &JsStateStore,
        #[wasm_bindgen(unchecked_param_type = "TasksConfig")] config: JsValue,
    ) -> JsResult<JsTasksCore> {
        let config: TasksConfig = from_js(config)?;
        config.validate().map_err(to_js_error)?;
        Ok(JsTasksCore { store: store.shared.clone(), config, in_flight: Rc::default() })
    }

    /// The longest wait for one server call, in ms (`requestTimeoutMs`, validated).
    #[wasm_bindgen(getter, js_name = requestTimeoutMs)]
    pub fn request_timeout_ms(&self) -> f64 {
        self.config.request_timeout_ms as f64
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

    /// The ledger: `{task_id: record}` (the store's `async_tasks` channel).
    #[wasm_bindgen(unchecked_return_type = "Record<string, unknown>")]
    pub fn ledger(&self) -> JsResult<JsValue> {
        to_js(&lock(&self.store)?.inner.get(channel::ASYNC_TASKS).map_err(to_js_error)?)
    }

    /// The steps of one task tool call (`AsyncTasks.handle`): reads the call and the options,
    /// checks that the store would take its result and that the call is not being handled
    /// already, snapshots what the operation reads. Throws `INVALID_TOOL_CALL`, `INVALID_OPTION`
    /// (not a task tool), the store's refusal, `BUSY`.
    pub fn call(
        &self,
        #[wasm_bindgen(unchecked_param_type = "TaskToolCall")] tool_call: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ apply?: boolean }")] opts: Option<JsValue>,
    ) -> JsResult<JsTaskSteps> {
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
        let id = call.id.clone();
        let steps = Steps::new(move |t| async move { tasks::call(&ctx, &t, &call).await });
        Ok(self.steps(Work::Call { steps, apply: opts.apply != Some(false), id }))
    }

    /// The steps of a poll (`AsyncTasks.poll`). Throws when the store cannot take ledger writes
    /// (`READ_ONLY`, `BUSY`…).
    pub fn poll(&self) -> JsResult<JsTaskSteps> {
        let mut s = lock(&self.store)?;
        let now = s.now()?;
        tasks::preflight(&mut s.inner, None, now).map_err(to_js_error)?;
        let ctx = tasks::context(&mut s.inner, &self.config, None, now).map_err(to_js_error)?;
        Ok(self.steps(Work::Poll(Steps::new(move |t| async move { tasks::poll(&ctx, &t).await }))))
    }

    /// The steps of a search for untracked threads (`AsyncTasks.untracked`).
    pub fn untracked(&self) -> JsResult<JsTaskSteps> {
        let mut s = lock(&self.store)?;
        let now = s.now()?;
        let ctx = tasks::context(&mut s.inner, &self.config, None, now).map_err(to_js_error)?;
        Ok(self.steps(Work::Untracked(Steps::new(move |t| async move { tasks::untracked(&ctx, &t).await }))))
    }

    fn steps(&self, work: Work) -> JsTaskSteps {
        JsTaskSteps {
            store: self.store.clone(),
            in_flight: self.in_flight.clone(),
            timeout_ms: self.config.request_timeout_ms,
            work,
        }
    }
}

/// The operation a [`JsTaskSteps`] runs.
enum Work {
    Call { steps: Steps<crate::error::Result<Outcome>>, apply: bool, id: String },
    Poll(Steps<(Outcome, Vec<PollError>)>),
    Untracked(Steps<crate::error::Result<Vec<String>>>),
}

/// One request of [`JsTaskSteps::advance`].
#[derive(Serialize)]
struct Outgoing<'a> {
    id: u32,
    request: &'a ProtocolRequest,
    /// The body as JSON text, exactly as the core wrote it (for `fetch`).
    #[serde(skip_serializing_if = "Option::is_none")]
    body: Option<String>,
}

/// A task operation under way, one synchronous step at a time (see the module doc). Internal:
/// `AsyncTasks` drives it and frees it.
#[wasm_bindgen(js_name = TaskSteps)]
pub struct JsTaskSteps {
    store: Rc<RefCell<Shared>>,
    in_flight: Rc<RefCell<Vec<String>>>,
    timeout_ms: u64,
    work: Work,
}

impl Drop for JsTaskSteps {
    fn drop(&mut self) {
        self.release();
    }
}

impl JsTaskSteps {
    /// The tool call is no longer being handled.
    fn release(&mut self) {
        if let Work::Call { id, .. } = &self.work {
            self.in_flight.borrow_mut().retain(|x| x != id);
        }
    }

    fn answer(&mut self, id: u32, answer: Answer) -> JsResult<()> {
        match &mut self.work {
            Work::Call { steps, .. } => steps.answer(id, answer),
            Work::Poll(steps) => steps.answer(id, answer),
            Work::Untracked(steps) => steps.answer(id, answer),
        }
        .map_err(to_js_error)
    }
}

fn field(v: &JsValue, key: &str) -> Result<JsValue, String> {
    js_sys::Reflect::get(v, &key.into()).map_err(|e| describe(&e))
}

#[wasm_bindgen(js_class = TaskSteps)]
impl JsTaskSteps {
    /// Runs the operation until it waits for answers: the requests made since the last call
    /// (empty while earlier ones are unanswered), or `null` once it has finished (`finish`).
    #[wasm_bindgen(unchecked_return_type = "OutgoingRequest[] | null")]
    pub fn advance(&mut self) -> JsResult<JsValue> {
        let made = match &mut self.work {
            Work::Call { steps, .. } => steps.advance(),
            Work::Poll(steps) => steps.advance(),
            Work::Untracked(steps) => steps.advance(),
        };
        match made {
            None => Ok(JsValue::NULL),
            Some(made) => {
                let out: Vec<Outgoing> = made
                    .iter()
                    .map(|(id, request)| Outgoing {
                        id: *id,
                        request,
                        body: request.body.as_ref().map(Value::to_string),
                    })
                    .collect();
                to_js(&out)
            }
        }
    }

    /// The answer `fetch` got for request `id`: the HTTP status and the body's text (empty, or
    /// JSON; an error page that is not JSON reads as `null`, a 2xx one fails the request).
    pub fn received(
        &mut self,
        id: u32,
        #[wasm_bindgen(unchecked_param_type = "number")] status: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> JsResult<()> {
        let status = status.as_f64().unwrap_or(0.0) as u16;
        let text = text.as_string().unwrap_or_default();
        let body = if text.trim().is_empty() {
            Ok(Value::Null)
        } else {
            match serde_json::from_str(&text) {
                Ok(v) => Ok(v),
                // An error page is still an error (its status says so); a 2xx must be JSON.
                Err(_) if !(200..300).contains(&status) => Ok(Value::Null),
                Err(e) => Err(format!("the server answered HTTP {status} with a body that is not JSON ({e})")),
            }
        };
        self.answer(id, body.map(|body| ProtocolResponse { status, body }))
    }

    /// What the caller's transport resolved with for request `id`: `{status, body}` (`body` the
    /// parsed JSON; absent or `null` for none).
    pub fn resolved(&mut self, id: u32, answer: JsValue) -> JsResult<()> {
        let read = || -> Result<ProtocolResponse, String> {
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
        };
        let answer = read();
        self.answer(id, answer)
    }

    /// Request `id` got no answer: `how` is `"unreachable"` (`fetch` failed; `cause` says why),
    /// `"threw"` or `"rejected"` (the caller's transport, with what it threw), or `"timeout"`
    /// (nothing within `requestTimeoutMs`).
    pub fn failed(
        &mut self,
        id: u32,
        #[wasm_bindgen(unchecked_param_type = "\"unreachable\" | \"threw\" | \"rejected\" | \"timeout\"")] how: JsValue,
        cause: JsValue,
    ) -> JsResult<()> {
        let why = match how.as_string().as_deref() {
            Some("unreachable") => describe(&cause),
            Some("threw") => format!("the transport threw: {}", describe(&cause)),
            Some("rejected") => format!("the transport rejected: {}", describe(&cause)),
            Some("timeout") => format!("no answer within {} ms (requestTimeoutMs)", self.timeout_ms),
            _ => {
                return Err(to_js_error(
                    Error::new(ErrorCode::InvalidOption, "how is unreachable, threw, rejected or timeout").field("how"),
                ))
            }
        };
        self.answer(id, Err(why))
    }

    /// Records the finished operation and returns its result: for a tool call the
    /// {@link TaskResult} (its Command applied to the store unless `apply: false`), for a poll
    /// the {@link PollResult}, for `untracked` the thread ids. Throws the store's refusal of a
    /// tool call's Command, `READ_ONLY` / `BUSY` when the store cannot be written,
    /// `NETWORK_ERROR` / `SERVER_ERROR` for `untracked`, `INVALID_OPTION` before the operation
    /// finished.
    #[wasm_bindgen(unchecked_return_type = "TaskResult | PollResult | string[]")]
    pub fn finish(&mut self) -> JsResult<JsValue> {
        let result = match &mut self.work {
            Work::Call { steps, apply: write, .. } => {
                let out = steps.finish().and_then(|out| out).map_err(to_js_error);
                let write = *write;
                self.release();
                let out = out?;
                let mut s = lock(&self.store)?;
                let (ledger, queue) = ledger_and_queue(&s)?;
                let mut gate = |command: &crate::state::Command| apply(&mut s, command);
                let gate = write.then_some(&mut gate as &mut tasks::Gate);
                to_js(&tasks::finish_call(out, &ledger, &queue, gate).map_err(to_js_error)?)
            }
            Work::Poll(steps) => {
                let (out, failed) = steps.finish().map_err(to_js_error)?;
                let mut s = lock(&self.store)?;
                let (ledger, queue) = ledger_and_queue(&s)?;
                let version = s.inner.version();
                let result =
                    tasks::record_poll(&out, failed, &ledger, &queue, version, &mut |command| apply(&mut s, command));
                to_js(&result)
            }
            Work::Untracked(steps) => to_js(&steps.finish().and_then(|ids| ids).map_err(to_js_error)?),
        };
        result
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
