//! Sync subagents (DESIGN §8; deepagents' `task` tool): the child's starting state filtered from
//! the parent's, and the write-back of only its final answer and the shared channels it changed.
//!
//! A child is a [`Store`] of its own. [`subagent_input`] seeds it with one command by
//! `subagent_input` and records where it came from in its `subagent` channel; the child runs
//! (any number of turns); [`subagent_result`] compares it with its seed and returns one
//! [`Command`] for the parent: a tool result carrying the child's structured response or last
//! non-empty assistant text, plus the change of each inherited channel. Nothing else of the
//! child — its messages, tool calls and arguments, private channels — reaches the parent.

use crate::error::{Error, ErrorCode, Result};
use crate::json::{arr, obj, val};
use crate::message::formats::{encode_messages, Format};
use crate::message::Role;
use crate::state::channel;
use crate::state::privacy::check_leaks;
use crate::state::{default_schema, ChannelSpec, Command, Reducer, Store, StoreOptions, ValueType, Visibility};
use crate::tasks::Mode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// Channels that never cross between parent and child: the messages (the child gets its own),
/// the async task ledger and its notifications, the todo list, the structured response
/// (deepagents' `_EXCLUDED_STATE_KEYS`), a child's own origin record, and what describes
/// one store's own run rather than shared data — run status, plan, budget, approvals,
/// compaction, artifact refs, last error, active agent.
pub const EXCLUDED: [&str; 14] = [
    channel::MESSAGES,
    channel::ASYNC_TASKS,
    channel::NOTIFICATIONS,
    channel::TODOS,
    channel::STRUCTURED_RESPONSE,
    ORIGIN,
    channel::RUN,
    channel::PLAN,
    channel::BUDGET,
    channel::APPROVALS,
    channel::COMPACTION,
    channel::ARTIFACTS,
    channel::LAST_ERROR,
    channel::ACTIVE_AGENT,
];

/// The child's record of where it came from (owned by `subagent_input`: the child's own nodes
/// cannot rewrite it).
pub const ORIGIN: &str = "subagent_origin";

/// The author of the seed command, and the only writer of [`ORIGIN`].
const SEEDER: &str = "subagent_input";

/// The preamble of a forked child's task message.
pub const FORK_PREAMBLE: &str = "You now work as a subagent. The conversation above is the parent agent's, shown for context. Do this task and end with your answer:\n\n";

/// The tool result when the child produced neither a structured response nor any assistant text
/// (deepagents JS).
pub const NO_OUTPUT: &str = "Task completed";

/// Options of `subagentInput` (`subagent_input` in Rust).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubagentInputOptions {
    /// `isolated` (default): the description as the only message. `fork`: the parent's model
    /// view without the launching turn, then the description.
    #[serde(default)]
    pub mode: Mode,
    /// The task, as the child's user message.
    pub description: String,
    /// Only these channels are inherited (still never the excluded or private ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<Vec<String>>,
    /// Channels not inherited, beyond the always excluded ones and private ones.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// The subagent's name: its commands' author in the parent. Default `"subagent"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The id of the `task` tool call launching the child: a fork leaves out the assistant turn
    /// that made it (wherever it is), and the default run id includes it, so parallel children
    /// of one agent never share message ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The child's run id. Default `{parent run id}/{agent}/{toolCallId}` (without the last part
    /// when no tool call id is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Token budget of the forked view. Default 32,000.
    #[serde(default = "default_budget")]
    pub budget: usize,
}

fn default_budget() -> usize {
    32_000
}

/// Options of `subagentResult` (`subagent_result` in Rust).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SubagentResultOptions {
    /// Only these inherited channels are written back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow: Option<Vec<String>>,
}

/// The child's record of its origin (its `subagent` channel).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Origin {
    parent_run_id: String,
    agent: String,
    mode: Mode,
    /// Channels the child shares with the parent (may be written back).
    inherited: Vec<String>,
    /// The version right after the seed: the state results are compared with.
    seed_version: u64,
}

fn bad(message: String) -> Error {
    Error::new(ErrorCode::InvalidOption, message)
}

/// The child's starting state, as a new store: the parent's shared channels (never private
/// ones, never [`EXCLUDED`], only `allow` when given, minus `exclude`) with their values, and the
/// messages — isolated: one user message with the description; fork: the parent's model view
/// without the trailing turn that launches the child, then the description. The parent's own
/// channels are declared in the child without their owners and writers (the child's nodes write
/// them). Errors: `INVALID_OPTION` (an empty description, an allowed channel that is excluded,
/// private or unknown).
pub fn subagent_input(parent: &mut Store, opts: &SubagentInputOptions, now_ms: u64) -> Result<Store> {
    if opts.description.trim().is_empty() {
        return Err(bad("the subagent needs a non-empty description".into()).field("description"));
    }
    let agent = opts.agent.clone().unwrap_or_else(|| "subagent".into());
    if agent.trim().is_empty() || agent == SEEDER {
        return Err(bad("the subagent's name (agent) is a non-empty author name".into()).field("agent"));
    }
    let run_id = match (&opts.run_id, &opts.tool_call_id) {
        (Some(r), _) => r.clone(),
        (None, Some(call)) => format!("{}/{agent}/{call}", parent.run_id()),
        (None, None) => format!("{}/{agent}", parent.run_id()),
    };
    if run_id.trim().is_empty() || run_id == parent.run_id() {
        return Err(bad(
            "the child's run id must be non-empty and differ from the parent's (message ids would collide)".into(),
        )
        .field("runId"));
    }
    if let Some(allow) = &opts.allow {
        for name in allow {
            match parent.channels().iter().find(|s| &s.name == name) {
                None => {
                    return Err(bad(format!("allowed channel '{name}' is not in the parent's schema")).field("allow"))
                }
                Some(s) if s.visibility == Visibility::Private => {
                    return Err(bad("an allowed channel is private: private channels never reach a subagent".into())
                        .field("allow"));
                }
                Some(_) if EXCLUDED.contains(&name.as_str()) => {
                    return Err(bad(format!("channel '{name}' never crosses to a subagent")).field("allow"));
                }
                Some(_) => {}
            }
        }
    }
    let shared = |s: &ChannelSpec| {
        inheritable(s) && !opts.exclude.contains(&s.name) && opts.allow.as_ref().is_none_or(|a| a.contains(&s.name))
    };
    let defaults: Vec<String> = default_schema().into_iter().map(|s| s.name).collect();
    // The parent's own channels the child may hold (the others it never sees).
    let mut channels: Vec<ChannelSpec> =
        parent.channels().iter().filter(|s| !defaults.contains(&s.name) && shared(s)).cloned().collect();
    channels.push(ChannelSpec::new(ORIGIN, Reducer::Replace).with(|c| {
        c.value_type = ValueType::Object;
        c.owner = Some(SEEDER.into());
    }));
    let mut child = Store::new(StoreOptions { run_id: Some(run_id), channels, ..Default::default() })?;

    let mut update = Map::new();
    let mut inherited = Vec::new();
    for spec in parent.channels().iter().filter(|s| shared(s)) {
        inherited.push(spec.name.clone());
        let v = parent.get(&spec.name)?;
        if !is_empty(&v) {
            update.insert(spec.name.clone(), v);
        }
    }
    let launcher = opts.tool_call_id.as_deref().and_then(|call| {
        let channel = parent.messages(channel::MESSAGES).ok()?;
        channel
            .messages()
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant && m.tool_calls.iter().any(|c| c.id == call))
            .and_then(|m| m.id.clone())
    });
    let mut messages = match opts.mode {
        Mode::Isolated => Vec::new(),
        Mode::Fork => {
            encode_messages(&crate::project::fork_view(parent, opts.budget, launcher.as_deref())?, Format::Langchain)
        }
    };
    let task = match opts.mode {
        Mode::Isolated => opts.description.clone(),
        Mode::Fork => format!("{FORK_PREAMBLE}{}", opts.description),
    };
    messages.push(obj! { "type": "human", "content": task });
    update.insert(channel::MESSAGES.into(), Value::Array(messages));
    // Nothing private of the parent crosses in: not in the description, not in a shared channel.
    check_leaks(&[Value::Object(update.clone())], &parent.private_values())?;
    let origin =
        Origin { parent_run_id: parent.run_id().to_string(), agent, mode: opts.mode, inherited, seed_version: 1 };
    update.insert(ORIGIN.into(), serde_json::to_value(&origin).map_err(|e| bad(e.to_string()))?);
    let seed =
        Command { author: SEEDER.into(), expected_version: None, update, correlation_id: None, causation_id: None };
    child.apply(&seed, now_ms)?;
    Ok(child)
}

/// Whether a parent channel is shared with children: not private, not [`EXCLUDED`], not owned
/// or restricted to some writers (the child's nodes could not write it back), not a messages
/// channel (a list of messages with ids is one agent's own).
fn inheritable(s: &ChannelSpec) -> bool {
    s.visibility != Visibility::Private
        && !EXCLUDED.contains(&s.name.as_str())
        && s.owner.is_none()
        && s.writers.is_none()
        && s.reducer != Reducer::Messages
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// The child's final answer (deepagents JS `returnCommandWithStateUpdate`): its structured
/// response as compact JSON when it has one, else the last assistant message of its own (not
/// one `inherited` from a fork, by id) with non-empty text, trimmed, else [`NO_OUTPUT`].
pub fn final_answer(child: &Store, inherited: &[String]) -> Result<String> {
    if let Ok(v) = child.get(channel::STRUCTURED_RESPONSE) {
        if !v.is_null() {
            return Ok(v.to_string());
        }
    }
    let channel = child.messages(channel::MESSAGES)?;
    let own = |m: &&std::rc::Rc<crate::message::Message>| m.id.as_ref().is_none_or(|id| !inherited.contains(id));
    let text = channel
        .messages()
        .iter()
        .rev()
        .filter(|m| m.role == Role::Assistant)
        .filter(own)
        .map(|m| m.content.text())
        .find(|t| !js_trim(t).is_empty());
    Ok(text.map(|t| js_trim(&t).to_string()).unwrap_or_else(|| NO_OUTPUT.to_string()))
}

/// `String.prototype.trim`: JavaScript's white space and line terminators, which differ from
/// Rust's `str::trim` in U+FEFF (trimmed) and U+0085 (kept), so our answers equal deepagents JS's.
fn js_trim(s: &str) -> &str {
    s.trim_matches(|c: char| (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}')
}

/// What the child changed in one channel, as an update for the parent's reducer: a merge
/// channel's changed keys (removed ones as `null`), an append channel's new items, a union
/// channel's new items, a counter's difference, a replaced value. `None` when unchanged.
fn delta(reducer: Reducer, seed: &Value, now: &Value) -> Option<Value> {
    if seed == now {
        return None;
    }
    match reducer {
        Reducer::Merge => {
            let (old, new) =
                (seed.as_object().cloned().unwrap_or_default(), now.as_object().cloned().unwrap_or_default());
            let mut out: Map<String, Value> =
                new.iter().filter(|(k, v)| old.get(*k) != Some(v)).map(|(k, v)| (k.clone(), v.clone())).collect();
            out.extend(old.keys().filter(|k| !new.contains_key(*k)).map(|k| (k.clone(), Value::Null)));
            (!out.is_empty()).then_some(Value::Object(out))
        }
        Reducer::Append => {
            let (old, new) =
                (seed.as_array().map_or(&[][..], Vec::as_slice), now.as_array().map_or(&[][..], Vec::as_slice));
            let added = new.strip_prefix(old).unwrap_or(new);
            (!added.is_empty()).then(|| Value::Array(added.to_vec()))
        }
        Reducer::Union => {
            let old = seed.as_array().cloned().unwrap_or_default();
            let added: Vec<Value> =
                now.as_array().into_iter().flatten().filter(|v| !old.contains(v)).cloned().collect();
            (!added.is_empty()).then_some(Value::Array(added))
        }
        Reducer::Counter => {
            let (a, b) = (seed.as_f64().unwrap_or(0.0), now.as_f64().unwrap_or(0.0));
            match (seed.as_i64().or(seed.is_null().then_some(0)), now.as_i64()) {
                (Some(x), Some(y)) if y.checked_sub(x).is_some() => Some(val(&(y - x))),
                _ => serde_json::Number::from_f64(b - a).map(Value::Number),
            }
        }
        Reducer::Replace | Reducer::Messages => Some(now.clone()),
    }
}

/// The Command for the parent (author: the subagent's name): one tool result (name `task`;
/// status `success`, or `error` when the child's run failed) answering `tool_call_id` with the
/// child's [`final_answer`], plus, for
/// each inherited channel the child changed since its seed (only `allow` when given), the
/// change as an update for that channel's reducer — so unchanged channels are not written and
/// parallel subagents only collide on what they both changed (`CONCURRENT_WRITE` naming both).
/// Errors: `INVALID_OPTION` when the child was not made by [`subagent_input`] or `allow` names
/// a channel that was not inherited; `PRIVATE_LEAK` when the answer or a change carries one of
/// the child's private values; a child restored from a checkpoint taken after its seed cannot
/// compare with the seed (`INVALID_OPTION`).
pub fn subagent_result(child: &mut Store, tool_call_id: &str, opts: &SubagentResultOptions) -> Result<Command> {
    let origin: Origin = child
        .get(ORIGIN)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
        .ok_or_else(|| bad("this store is not a subagent: make it with subagentInput(parent, …)".into()))?;
    if tool_call_id.is_empty() {
        return Err(bad("the tool call id is empty".into()).field("toolCallId"));
    }
    if let Some(name) = opts.allow.iter().flatten().find(|n| !origin.inherited.contains(n)) {
        return Err(bad(format!(
            "allowed channel '{name}' was not inherited from the parent, so it is never written back"
        ))
        .field("allow"));
    }
    let seed = child.at(origin.seed_version.max(1))?;
    let seeded: Vec<String> =
        seed.messages(channel::MESSAGES)?.messages().iter().filter_map(|m| m.id.clone()).collect();
    let failed = child.get(channel::RUN)?.get("status").and_then(Value::as_str)
        == Some(crate::lifecycle::RunStatus::Failed.as_str());
    let mut update = Map::new();
    update.insert(
        channel::MESSAGES.into(),
        arr![obj!{ "type": "tool", "content": final_answer(child, &seeded)?, "tool_call_id": tool_call_id, "name": "task", "status": if failed { "error" } else { "success" } }],
    );
    for name in origin.inherited.iter().filter(|n| opts.allow.as_ref().is_none_or(|a| a.contains(n))) {
        // The origin record is the seed's (only `subagent_input` writes it), but check anyway.
        let Some(spec) = child.channels().iter().find(|s| &s.name == name && inheritable(s)) else { continue };
        if let Some(d) = delta(spec.reducer, &seed.get(name)?, &child.get(name)?) {
            update.insert(name.clone(), d);
        }
    }
    // Nothing private of the child crosses back: not in its answer, not in a change.
    check_leaks(&[Value::Object(update.clone())], &child.private_values())?;
    Ok(Command {
        author: origin.agent,
        expected_version: None,
        update,
        correlation_id: Some(tool_call_id.to_string()),
        causation_id: None,
    })
}

#[cfg(test)]
#[path = "subagent_tests.rs"]
mod tests;
