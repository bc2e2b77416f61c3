//! Agent Protocol calls as data (DESIGN §7), the transport that performs them, and how a run and
//! its thread map onto a task status (deepagents `_observe` / `_task_status`).
//!
//! The core never does I/O: it builds a [`ProtocolRequest`] per call and awaits the caller's
//! [`Transport`] (in JS, `fetch` or the caller's transport object; in native tests, a fake
//! server). Every call made is kept as an [`EffectRecord`] for the caller to inspect.

use super::spec::{SubagentSpec, TasksConfig};
use crate::error::{Error, ErrorCode, Result};
use crate::json::obj;
use crate::lifecycle::TaskStatus;
use serde::Serialize;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::future::Future;

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// One HTTP request to an Agent Protocol server.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct ProtocolRequest {
    /// The operation: `create_thread`, `create_run`, `get_run`, `list_runs`, `get_thread`,
    /// `get_thread_state`, `cancel_run` or `search_threads`.
    pub call: &'static str,
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The full URL: the server's base URL plus the path.
    pub url: String,
    /// Headers (strings); `content-type: application/json` when there is a body.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, string>"))]
    pub headers: Map<String, Value>,
    /// The JSON body, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "unknown", optional))]
    pub body: Option<Value>,
}

/// The server's answer: the HTTP status and the JSON body (`null` when empty or not JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct ProtocolResponse {
    /// HTTP status.
    pub status: u16,
    /// Parsed JSON body.
    pub body: Value,
}

/// Performs requests. `Err` means the server could not be reached (the message says why).
pub trait Transport {
    /// Sends one request and resolves with the server's answer.
    fn send(&self, request: &ProtocolRequest) -> impl Future<Output = std::result::Result<ProtocolResponse, String>>;
}

/// One call made, as kept for the caller (no bodies: they may carry conversation text).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct EffectRecord {
    /// The operation (see `ProtocolRequest.call`).
    pub call: &'static str,
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The full URL.
    pub url: String,
    /// The HTTP status, or absent when the server could not be reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
}

/// Percent-encodes a path segment (ids come from the server or the model).
fn segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A transport bound to the ledger's configuration, keeping a record of every call.
pub struct Client<'a, T: Transport> {
    config: &'a TasksConfig,
    transport: &'a T,
    /// The calls made so far.
    pub effects: RefCell<Vec<EffectRecord>>,
}

impl<'a, T: Transport> Client<'a, T> {
    /// A client over `transport`.
    pub fn new(config: &'a TasksConfig, transport: &'a T) -> Self {
        Client { config, transport, effects: RefCell::new(Vec::new()) }
    }

    /// Sends `method path body` to `agent`'s server. A non-2xx answer is `SERVER_ERROR`
    /// (with `field` = the call), an unreachable server `NETWORK_ERROR`.
    async fn send(
        &self,
        agent: &SubagentSpec,
        call: &'static str,
        method: &'static str,
        path: String,
        body: Option<Value>,
    ) -> Result<ProtocolResponse> {
        let (base, mut headers) = self.config.endpoint(agent);
        if body.is_some() {
            headers.insert("content-type".into(), Value::from("application/json"));
        }
        let request = ProtocolRequest { call, method, url: format!("{base}{path}"), headers, body };
        let answer = self.transport.send(&request).await;
        self.effects.borrow_mut().push(EffectRecord {
            call,
            method,
            url: request.url.clone(),
            status: answer.as_ref().ok().map(|r| r.status),
        });
        let response = answer.map_err(|e| {
            Error::new(ErrorCode::NetworkError, format!("{call} {method} {}: {e}", request.url)).field(call)
        })?;
        if !(200..300).contains(&response.status) {
            let detail = response.body.get("detail").or_else(|| response.body.get("message")).map(|d| match d {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
            let detail = detail.map(|d| format!(": {}", d.chars().take(300).collect::<String>())).unwrap_or_default();
            return Err(Error::new(
                ErrorCode::ServerError,
                format!("{call} answered HTTP {}{detail}", response.status),
            )
            .field(call));
        }
        Ok(response)
    }

    /// `POST /threads {metadata}` → the new thread id.
    pub async fn create_thread(&self, agent: &SubagentSpec, metadata: Value) -> Result<String> {
        let r =
            self.send(agent, "create_thread", "POST", "/threads".into(), Some(obj! { "metadata": metadata })).await?;
        id_field(&r.body, "thread_id", "create_thread")
    }

    /// `POST /threads/{tid}/runs` → the run (`run_id`, `status`).
    pub async fn create_run(&self, agent: &SubagentSpec, thread_id: &str, body: Value) -> Result<Run> {
        let r =
            self.send(agent, "create_run", "POST", format!("/threads/{}/runs", segment(thread_id)), Some(body)).await?;
        Run::parse(&r.body, "create_run")
    }

    /// `GET /threads/{tid}/runs/{rid}`.
    pub async fn get_run(&self, agent: &SubagentSpec, thread_id: &str, run_id: &str) -> Result<Run> {
        let r = self
            .send(agent, "get_run", "GET", format!("/threads/{}/runs/{}", segment(thread_id), segment(run_id)), None)
            .await?;
        Run::parse(&r.body, "get_run")
    }

    /// `GET /threads/{tid}/runs?limit=1`: the newest run, if any.
    pub async fn newest_run(&self, agent: &SubagentSpec, thread_id: &str) -> Result<Option<Run>> {
        let r =
            self.send(agent, "list_runs", "GET", format!("/threads/{}/runs?limit=1", segment(thread_id)), None).await?;
        match r.body.as_array().and_then(|a| a.first()) {
            Some(run) => Run::parse(run, "list_runs").map(Some),
            None => Ok(None),
        }
    }

    /// `GET /threads/{tid}`.
    pub async fn get_thread(&self, agent: &SubagentSpec, thread_id: &str) -> Result<Value> {
        Ok(self.send(agent, "get_thread", "GET", format!("/threads/{}", segment(thread_id)), None).await?.body)
    }

    /// `GET /threads/{tid}/state`.
    pub async fn thread_state(&self, agent: &SubagentSpec, thread_id: &str) -> Result<Value> {
        Ok(self
            .send(agent, "get_thread_state", "GET", format!("/threads/{}/state", segment(thread_id)), None)
            .await?
            .body)
    }

    /// `POST /threads/{tid}/runs/{rid}/cancel`. `Ok(false)` when the server says the run is not
    /// there to cancel (404: it already finished).
    pub async fn cancel_run(&self, agent: &SubagentSpec, thread_id: &str, run_id: &str) -> Result<bool> {
        let path = format!("/threads/{}/runs/{}/cancel", segment(thread_id), segment(run_id));
        match self.send(agent, "cancel_run", "POST", path, Some(obj! {})).await {
            Ok(_) => Ok(true),
            Err(e) if e.code == ErrorCode::ServerError && e.message.contains("HTTP 404") => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// `POST /threads/search {metadata}`: ids of every thread whose metadata matches exactly,
    /// a page of 100 at a time.
    pub async fn search_threads(&self, agent: &SubagentSpec, metadata: Value) -> Result<Vec<String>> {
        const PAGE: usize = 100;
        let mut out = Vec::new();
        loop {
            let body = obj! { "metadata": metadata, "limit": PAGE, "offset": out.len() };
            let r = self.send(agent, "search_threads", "POST", "/threads/search".into(), Some(body)).await?;
            let page: Vec<String> = r
                .body
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.get("thread_id").and_then(Value::as_str).map(str::to_string))
                .collect();
            let last = page.len() < PAGE;
            out.extend(page);
            if last {
                return Ok(out);
            }
        }
    }
}

fn id_field(body: &Value, key: &str, call: &'static str) -> Result<String> {
    body.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .ok_or_else(|| Error::new(ErrorCode::ServerError, format!("{call} answered without a {key}")).field(call))
}

/// A run as the server reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Its id.
    pub run_id: String,
    /// pending, running, success, error, interrupted or timeout.
    pub status: String,
}

impl Run {
    fn parse(body: &Value, call: &'static str) -> Result<Run> {
        Ok(Run { run_id: id_field(body, "run_id", call)?, status: id_field(body, "status", call)? })
    }
}

/// What a refresh learnt about a task.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Observation {
    /// The live status.
    pub status: Option<TaskStatus>,
    /// The newest run (changes when the thread was resumed or followed up outside the tools).
    pub run_id: String,
    /// The final answer (success).
    pub result: Option<String>,
    /// Why it failed (error).
    pub error: Option<String>,
    /// The pending questions `[{id, value}]` (waiting).
    pub interrupts: Option<Value>,
}

impl Observation {
    /// Replaces every private value of the store (`(channel, value)`, as
    /// [`crate::state::Store::private_values`] lists them) in what the server answered — the
    /// answer, the error, the questions — with `[redacted]`, so a subagent that echoes a secret
    /// can never get it into the ledger, the notifications or the model view: redacted on the way
    /// in, rather than refused, so the task's outcome is still recorded.
    pub fn redact(&mut self, private: &[(String, String)]) {
        let scrub = |s: &mut String| {
            for (_, value) in private {
                if s.contains(value.as_str()) {
                    *s = s.replace(value.as_str(), crate::state::privacy::REDACTED);
                }
            }
        };
        fn walk(v: &mut Value, scrub: &dyn Fn(&mut String)) {
            match v {
                Value::String(s) => scrub(s),
                Value::Array(a) => a.iter_mut().for_each(|x| walk(x, scrub)),
                Value::Object(o) => o.values_mut().for_each(|x| walk(x, scrub)),
                _ => {}
            }
        }
        if private.is_empty() {
            return;
        }
        self.result.iter_mut().chain(self.error.iter_mut()).for_each(scrub);
        if let Some(q) = &mut self.interrupts {
            walk(q, &scrub);
        }
    }
}

/// The fallback text of a failed run without details (deepagents).
pub const GENERIC_ERROR: &str = "The async subagent encountered an error.";

/// Observes a task's run and thread (deepagents `_observe` + `_task_status`): the run's own
/// status unless it succeeded; a successful run's thread says whether the subagent waits for a
/// human (non-empty `interrupts`), was cancelled (`interrupted` with no interrupts, deepagents'
/// `UserInterrupt`), failed, is busy with a newer run (followed), or is done (the final answer is
/// the last non-empty assistant text of the thread state). An interrupted run of a task that was
/// not cancelled follows the thread's newest run (an `interrupt` follow-up replaced it).
pub async fn observe<T: Transport>(
    client: &Client<'_, T>,
    agent: &SubagentSpec,
    thread_id: &str,
    run_id: &str,
    cancelled: bool,
) -> Result<Observation> {
    let mut run = client.get_run(agent, thread_id, run_id).await?;
    if run.status == "interrupted" && !cancelled {
        if let Some(newest) = client.newest_run(agent, thread_id).await? {
            run = newest;
        }
    }
    let mut seen = Observation { run_id: run.run_id.clone(), ..Observation::default() };
    if run.status == "success" {
        let thread = client.get_thread(agent, thread_id).await?;
        let interrupts = interrupts_of(&thread);
        match thread.get("status").and_then(Value::as_str).unwrap_or("idle") {
            "busy" | "error" => {
                if let Some(newest) = client.newest_run(agent, thread_id).await? {
                    if newest.run_id != run.run_id {
                        seen.run_id = newest.run_id.clone();
                        run = newest;
                    }
                }
                if run.status == "success" {
                    // The thread failed or is busy after this run succeeded, with no newer run.
                    let errored = thread.get("status").and_then(Value::as_str) == Some("error");
                    seen.status = Some(if errored { TaskStatus::Error } else { TaskStatus::Running });
                    if errored {
                        seen.error = Some(error_text(&thread));
                    }
                    return Ok(seen);
                }
            }
            "interrupted" if !interrupts.is_empty() => {
                // The question may come from a newer run (the human answered, the subagent asked again).
                if let Some(newest) = client.newest_run(agent, thread_id).await? {
                    seen.run_id = newest.run_id;
                }
                seen.status = Some(TaskStatus::Waiting);
                seen.interrupts = Some(Value::Array(interrupts));
                return Ok(seen);
            }
            "interrupted" => {
                seen.status = Some(TaskStatus::Cancelled);
                return Ok(seen);
            }
            _ => {
                let state = client.thread_state(agent, thread_id).await?;
                seen.status = Some(TaskStatus::Success);
                seen.result = Some(final_answer(&state));
                return Ok(seen);
            }
        }
    }
    seen.status = Some(match run.status.as_str() {
        "pending" => TaskStatus::Pending,
        "running" => TaskStatus::Running,
        "interrupted" => TaskStatus::Cancelled,
        "timeout" => TaskStatus::Timeout,
        _ => {
            // error, or a status this client does not know: reported as an error with the
            // thread's details when it has them.
            let thread = client.get_thread(agent, thread_id).await.unwrap_or(Value::Null);
            seen.error = Some(error_text(&thread));
            TaskStatus::Error
        }
    });
    Ok(seen)
}

/// The thread's pending interrupts as `[{id, value}]` (the server keys them by task).
fn interrupts_of(thread: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match thread.get("interrupts") {
        Some(Value::Object(by_task)) => {
            for list in by_task.values() {
                for i in list.as_array().into_iter().flatten() {
                    out.push(obj!{ "id": i.get("id").cloned().unwrap_or(Value::Null), "value": i.get("value").cloned().unwrap_or(Value::Null) });
                }
            }
        }
        Some(Value::Array(list)) => out.extend(list.iter().cloned()),
        _ => {}
    }
    out
}

/// The thread's error as text: `"{error}: {message}"` when the server gives them.
fn error_text(thread: &Value) -> String {
    match thread.get("error") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Object(e)) => {
            let kind = e.get("error").and_then(Value::as_str).unwrap_or("");
            let message = e.get("message").and_then(Value::as_str).unwrap_or("");
            match (kind.is_empty(), message.is_empty()) {
                (true, true) => GENERIC_ERROR.to_string(),
                (false, true) => kind.to_string(),
                (true, false) => message.to_string(),
                (false, false) => format!("{kind}: {message}"),
            }
        }
        _ => GENERIC_ERROR.to_string(),
    }
}

/// The last non-empty assistant text of a thread state's `values.messages` (LangChain dicts, or
/// `{role, content}`), or a note when there is none (deepagents JS: "Completed with no output
/// messages.").
pub fn final_answer(state: &Value) -> String {
    let messages = state.pointer("/values/messages").and_then(Value::as_array);
    for m in messages.into_iter().flatten().rev() {
        let is_ai = matches!(
            m.get("type").or_else(|| m.get("role")).and_then(Value::as_str),
            Some("ai" | "assistant" | "AIMessage" | "AIMessageChunk")
        );
        if !is_ai {
            continue;
        }
        let text = match m.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| {
                    p.as_str().map(str::to_string).or_else(|| {
                        (p.get("type").and_then(Value::as_str) == Some("text"))
                            .then(|| p.get("text").and_then(Value::as_str).unwrap_or("").to_string())
                    })
                })
                .collect(),
            _ => String::new(),
        };
        if !text.trim().is_empty() {
            return text;
        }
    }
    "Completed with no output messages.".to_string()
}
