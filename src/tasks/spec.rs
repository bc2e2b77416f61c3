//! Async subagent specs and the ledger's configuration (deepagents `AsyncSubAgent`, with the
//! retry and timeout policy deepagents lacks).

use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// What the subagent receives when a task starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Only the task description, as one user message (deepagents' default).
    #[default]
    Isolated,
    /// The parent's current model view (without the launching assistant turn), then the
    /// description (deepagents `mode="fork"`).
    Fork,
}

/// How `update_async_task` treats a run that is still going (Agent Protocol `multitask_strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "lowercase")]
pub enum UpdateStrategy {
    /// The running run is interrupted and replaced; the task keeps its id (deepagents' default).
    #[default]
    Interrupt,
    /// The follow-up is queued behind the running run; one queued follow-up per task per turn.
    Enqueue,
}

impl UpdateStrategy {
    /// The Agent Protocol `multitask_strategy` value.
    pub fn as_str(self) -> &'static str {
        match self {
            UpdateStrategy::Interrupt => "interrupt",
            UpdateStrategy::Enqueue => "enqueue",
        }
    }
}

/// Re-runs of a failed task: up to `max_attempts` runs in all, waiting `backoff_ms` before the
/// first re-run and twice as long before each further one. Default: 1 attempt (no retry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(default, deny_unknown_fields)]
pub struct Retry {
    /// Runs in all, the first included (≥ 1).
    pub max_attempts: u32,
    /// ms before the first re-run; doubled for each further one.
    pub backoff_ms: u64,
}

impl Default for Retry {
    fn default() -> Self {
        Retry { max_attempts: 1, backoff_ms: 1_000 }
    }
}

impl Retry {
    /// The wait before re-run number `attempt` (2 = the first re-run), in ms.
    pub fn delay_ms(&self, attempt: u32) -> u64 {
        self.backoff_ms.saturating_mul(1u64 << attempt.saturating_sub(2).min(30))
    }
}

/// One async subagent the model may start tasks on (deepagents `AsyncSubAgent`; field names as
/// in deepagents Python).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(deny_unknown_fields)]
pub struct SubagentSpec {
    /// The name the model passes as `subagent_type`; unique.
    pub name: String,
    /// What it is good for; shown to the model in the `start_async_task` tool description.
    pub description: String,
    /// The graph (assistant) to run on the server.
    pub graph_id: String,
    /// The Agent Protocol server's base URL. Absent: the ledger's default `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Extra HTTP headers for this subagent's server (e.g. an API key), strings only.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, string>", optional))]
    pub headers: Map<String, Value>,
    /// `isolated` (default) or `fork`.
    #[serde(default)]
    pub mode: Mode,
    /// `interrupt` (default) or `enqueue`.
    #[serde(default)]
    pub update_strategy: UpdateStrategy,
    /// Queue a notification for the parent when a task reaches success, error, timeout,
    /// cancelled or waiting outside the model's own tool calls. Default `true`.
    #[serde(default = "yes")]
    pub notify_parent: bool,
    /// A URL the server calls when a run ends (Agent Protocol `webhook`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<String>,
    /// Re-runs of a failed task.
    #[serde(default)]
    pub retry: Retry,
    /// A run still pending or running this many ms after it started is cancelled and the task
    /// marked `timeout`. Absent: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

fn yes() -> bool {
    true
}

/// The ledger's configuration: the subagents and the default server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TasksConfig {
    /// The subagents, at least one, with unique names.
    pub agents: Vec<SubagentSpec>,
    /// The default Agent Protocol server's base URL (e.g. `http://127.0.0.1:2024`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Headers sent to every server, strings only; a subagent's own headers win.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, string>", optional))]
    pub headers: Map<String, Value>,
    /// The parent's thread id, sent as thread metadata `parent_thread_id`. Default: the store's
    /// run id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_thread_id: Option<String>,
    /// Longest wait for one server call, in ms; a call that takes longer fails with
    /// `NETWORK_ERROR` (deepagents bounds each task's poll at 5 s). Default 10,000.
    #[serde(default = "default_request_timeout")]
    pub request_timeout_ms: u64,
    /// Token budget of the parent's model view sent to a `fork` subagent. Default 32,000.
    #[serde(default = "default_fork_budget")]
    pub fork_budget: usize,
}

/// The longest `setTimeout` delay JavaScript honours (2^31 − 1 ms).
const MAX_TIMER_MS: u64 = 2_147_483_647;

/// The longest timeout or backoff, in ms (about 31 years): stored times stay exact in JS.
const MAX_POLICY_MS: u64 = 1 << 40;

/// The author of every ledger command; the only writer of `notifications`.
pub const AUTHOR: &str = "async_tasks";

fn default_request_timeout() -> u64 {
    10_000
}

fn default_fork_budget() -> usize {
    32_000
}

/// An Agent Protocol base URL: `http(s)://host[:port][/path]`, with no credentials, query or
/// fragment (they would end up in error texts the model reads, or break the paths).
fn check_url(u: &str) -> Result<()> {
    let rest = u.strip_prefix("http://").or_else(|| u.strip_prefix("https://"));
    let host = rest.map(|r| r.split('/').next().unwrap_or_default()).unwrap_or_default();
    // `name:port` or `[ipv6]:port`; the port, when given, is 1..65535.
    let port = match host.strip_prefix('[') {
        Some(v6) => v6.split_once(']').and_then(|(_, p)| p.strip_prefix(':')),
        None => host.rsplit_once(':').map(|(_, p)| p),
    };
    let port_ok = port.is_none_or(|p| p.parse::<u16>().is_ok_and(|p| p > 0));
    let ok = rest.is_some()
        && !host.is_empty()
        && port_ok
        && !host.contains('@')
        && !u.contains(['?', '#'])
        && !u.chars().any(|c| c.is_control() || c.is_whitespace());
    if ok {
        Ok(())
    } else {
        Err(bad("a server url is http(s)://host[:port][/path], without credentials, query or fragment (pass secrets in headers)".into()).field("url"))
    }
}

fn bad(message: String) -> Error {
    Error::new(ErrorCode::InvalidOption, message)
}

impl TasksConfig {
    /// Checks what deepagents' constructor checks (at least one agent, unique names) and what a
    /// server call needs (a graph id, a URL, string headers, at least one attempt).
    pub fn validate(&self) -> Result<()> {
        if self.agents.is_empty() {
            return Err(bad("give at least one async subagent in `agents`".into()).field("agents"));
        }
        let mut dups: Vec<&str> = Vec::new();
        for (i, a) in self.agents.iter().enumerate() {
            if a.name.trim().is_empty() || a.graph_id.trim().is_empty() {
                return Err(bad(format!("agent {i} needs a non-empty name and graph_id")).field("agents"));
            }
            if self.agents[..i].iter().any(|b| b.name == a.name) && !dups.contains(&a.name.as_str()) {
                dups.push(&a.name);
            }
            match a.url.as_deref().or(self.url.as_deref()) {
                None => {
                    return Err(
                        bad(format!("agent '{}' has no url and the ledger has no default url", a.name)).field("url")
                    )
                }
                Some(u) => check_url(u)?,
            }
            if a.retry.max_attempts == 0 {
                return Err(bad(format!(
                    "agent '{}': retry.max_attempts counts the first run, so it is at least 1",
                    a.name
                ))
                .field("retry"));
            }
            let header_ok = |k: &String, v: &Value| {
                !k.is_empty()
                    && k.bytes().all(|b| b.is_ascii_graphic() && b != b':')
                    && v.as_str().is_some_and(|v| v.bytes().all(|b| b == b' ' || b.is_ascii_graphic()))
            };
            if let Some(k) = a.headers.iter().chain(self.headers.iter()).find(|(k, v)| !header_ok(k, v)).map(|(k, _)| k)
            {
                let shown: String = k.chars().filter(|c| !c.is_control()).take(40).collect();
                return Err(bad(format!(
                    "header '{shown}' needs a token name and a printable ASCII string value (no control characters)"
                ))
                .field("headers"));
            }
        }
        if self.fork_budget == 0 || !(1..=MAX_TIMER_MS).contains(&self.request_timeout_ms) {
            return Err(bad(format!(
                "forkBudget is at least 1 and requestTimeoutMs from 1 to {MAX_TIMER_MS} (what a JS timer takes)"
            )));
        }
        if let Some(a) = self
            .agents
            .iter()
            .find(|a| a.timeout_ms.is_some_and(|t| t == 0 || t > MAX_POLICY_MS) || a.retry.backoff_ms > MAX_POLICY_MS)
        {
            return Err(bad(format!(
                "agent '{}': timeout_ms is from 1 to {MAX_POLICY_MS} and backoff_ms at most that",
                a.name
            ))
            .field("agents"));
        }
        if !dups.is_empty() {
            return Err(
                bad(format!("async subagent names must be unique; duplicated: {}", dups.join(", "))).field("agents")
            );
        }
        Ok(())
    }

    /// The subagent named `name`.
    pub fn agent(&self, name: &str) -> Option<&SubagentSpec> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// The server's base URL (no trailing slash) and headers for `agent`.
    pub fn endpoint(&self, agent: &SubagentSpec) -> (String, Map<String, Value>) {
        let url = agent.url.as_deref().or(self.url.as_deref()).unwrap_or_default().trim_end_matches('/').to_string();
        let mut headers = self.headers.clone();
        headers.extend(agent.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
        (url, headers)
    }
}
