//! The schema: named channels, each with a reducer, a visibility, an owner / writers and a value
//! type (DESIGN §3), and the default schema every store starts with.

use crate::error::{Error, ErrorCode, Result};
use crate::json::{arr, obj, val};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// How a channel combines an update with its value (LangGraph's reducer, per channel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub enum Reducer {
    /// A message list: append; a message whose id exists replaces it in place; `{remove: id}`;
    /// `{removeAll: true}`; `{replace: message}` (LangGraph `add_messages` semantics, with ids
    /// assigned deterministically at intake).
    Messages,
    /// An object merged by key; a `null` value deletes the key.
    Merge,
    /// A list; the update (a list) is appended.
    Append,
    /// A list without duplicates (by JSON value); new items are appended in order.
    Union,
    /// A number; the update is added.
    Counter,
    /// The last value written.
    Replace,
}

impl Reducer {
    /// The name used in specs (`"messages"`, `"merge"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Reducer::Messages => "messages",
            Reducer::Merge => "merge",
            Reducer::Append => "append",
            Reducer::Union => "union",
            Reducer::Counter => "counter",
            Reducer::Replace => "replace",
        }
    }
}

/// Who may see a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub enum Visibility {
    /// Part of what the model sees (the messages).
    Model,
    /// Shown to the app in `systemView()`; never sent to the model as messages.
    #[default]
    System,
    /// Only the owner, with its key (`private(ownerKey)`); never in views, errors or exports.
    Private,
}

/// The JSON type of a channel's values: the whole value (`replace`, `counter`), each value of a
/// `merge` channel, or each item of an `append` / `union` channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub enum ValueType {
    /// Any JSON value.
    #[default]
    Any,
    /// A string.
    String,
    /// A number.
    Number,
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// A JSON object.
    Object,
    /// A JSON array.
    Array,
}

impl ValueType {
    /// True when `v` has this type.
    pub fn admits(self, v: &Value) -> bool {
        match self {
            ValueType::Any => true,
            ValueType::String => v.is_string(),
            ValueType::Number => v.is_number(),
            ValueType::Integer => v.is_i64() || v.is_u64(),
            ValueType::Boolean => v.is_boolean(),
            ValueType::Object => v.is_object(),
            ValueType::Array => v.is_array(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            ValueType::Any => "any value",
            ValueType::String => "a string",
            ValueType::Number => "a number",
            ValueType::Integer => "an integer",
            ValueType::Boolean => "a boolean",
            ValueType::Object => "an object",
            ValueType::Array => "an array",
        }
    }

    /// `INVALID_UPDATE` unless `v` has this type. The message names the type, never the value.
    pub fn check(self, v: &Value, channel: &str) -> Result<()> {
        if self.admits(v) {
            return Ok(());
        }
        Err(Error::new(ErrorCode::InvalidUpdate, format!("channel '{channel}' expects {}", self.name()))
            .channel(channel))
    }
}

/// What happens when two commands of one batch write the same key of a `merge` channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub enum OnConflict {
    /// The batch fails with `CONCURRENT_WRITE` naming both authors.
    #[default]
    Error,
    /// The later command (by call index) wins, as LangGraph reducers do.
    CallOrder,
}

/// Domain rules of the default channels beyond their reducer. User channels are `Generic`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Only the reducer and the value type apply.
    #[default]
    Generic,
    /// `{status, …}` merged field by field; status changes follow [`crate::lifecycle::RunStatus`].
    Run,
    /// Steps by id `{title, status, depends_on}`; dependencies must exist, no cycles.
    Plan,
    /// Approvals by id `{tool_call_id, status, …}`; transitions checked.
    Approvals,
    /// `{limits: {max_turns, max_tokens, max_tool_calls, deadline_ms}, used: {turns, tokens, tool_calls}}`.
    Budget,
    /// deepagents' todo list `[{content, status: pending|in_progress|completed}]`.
    Todos,
    /// Records by id, merged field by field (the notification queue).
    Records,
    /// The async task ledger: records by task id, merged field by field, each with an `agent_name`
    /// and a `status` whose changes follow [`crate::lifecycle::TaskStatus`]; never deleted.
    Tasks,
}

/// Which state section of the model view a default channel feeds (DESIGN §6), in the order
/// the sections are rendered. Declared in the schema ([`ChannelSpec::section`]) so the
/// projector never lists channels by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SectionKind {
    /// `## Task`: the `task` field of the run record.
    Task,
    /// `## Plan`: steps by id with status and dependencies.
    Plan,
    /// `## Known facts`: key → value.
    Facts,
    /// `## Unresolved questions`: one line per open question.
    UnresolvedQuestions,
    /// `## Active async tasks`: ledger records whose status is not terminal.
    AsyncTasks,
}

/// One channel of the schema.
///
/// In JS: `{name, reducer, visibility?, owner?, writers?, type?, onConflict?}`; `visibility`
/// defaults to `"system"`, `type` to `"any"`, `onConflict` to `"error"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChannelSpec {
    /// The channel's name, the key in updates and views.
    pub name: String,
    /// How updates combine with the value.
    pub reducer: Reducer,
    /// Who may see it. Private channels need an `owner`.
    #[serde(default)]
    pub visibility: Visibility,
    /// The only author allowed to write it (private and agent-local channels), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Authors allowed to write it; absent = anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writers: Option<Vec<String>>,
    /// The type of its values (see `ValueType`).
    #[serde(default, rename = "type")]
    pub value_type: ValueType,
    /// For `merge` channels: two writes to one key in one batch conflict, or the later wins.
    #[serde(default)]
    pub on_conflict: OnConflict,
    /// The model view shows `[redacted]` instead of this channel's value.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
    /// Domain rules (default channels only; not settable from JS).
    #[serde(skip)]
    pub kind: Kind,
    /// The model-view section this channel feeds, if any (default channels only).
    #[serde(skip)]
    pub section: Option<SectionKind>,
}

impl ChannelSpec {
    /// A system channel with this reducer, any value type, writable by anyone.
    pub fn new(name: &str, reducer: Reducer) -> Self {
        ChannelSpec {
            name: name.to_string(),
            reducer,
            visibility: Visibility::System,
            owner: None,
            writers: None,
            value_type: ValueType::Any,
            on_conflict: OnConflict::Error,
            secret: false,
            kind: Kind::Generic,
            section: None,
        }
    }

    /// The spec changed by `f` (builder style).
    pub fn with(mut self, f: impl FnOnce(&mut Self)) -> Self {
        f(&mut self);
        self
    }

    /// The value a channel holds before any write.
    pub fn initial(&self) -> Value {
        match (self.kind, self.reducer) {
            (Kind::Run, _) => obj! {"status": "created"},
            (Kind::Budget, _) => obj! {"limits": obj!{}, "used": obj!{"turns": 0, "tokens": 0, "tool_calls": 0}},
            (_, Reducer::Merge) => obj! {},
            (_, Reducer::Append | Reducer::Union | Reducer::Messages) => arr![],
            (_, Reducer::Counter) => val(&0),
            (Kind::Todos, _) => arr![],
            (_, Reducer::Replace) => Value::Null,
        }
    }

    /// Checks the spec itself: a name, an owner for private channels, a value type that fits the
    /// reducer. `INVALID_OPTION` otherwise.
    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(Error::new(ErrorCode::InvalidOption, m).channel(&self.name));
        if self.name.is_empty() {
            return bad("a channel needs a non-empty name".into());
        }
        if self.visibility == Visibility::Private && self.owner.as_deref().unwrap_or("").is_empty() {
            return bad(format!("private channel '{}' needs an owner", self.name));
        }
        if self.reducer == Reducer::Counter
            && !matches!(self.value_type, ValueType::Any | ValueType::Number | ValueType::Integer)
        {
            return bad(format!("counter channel '{}' holds numbers; use type \"number\" or \"integer\"", self.name));
        }
        Ok(())
    }
}

/// The names of the default schema's channels ([`default_schema`]), written once.
pub mod channel {
    /// `messages`.
    pub const MESSAGES: &str = "messages";
    /// `async_tasks`.
    pub const ASYNC_TASKS: &str = "async_tasks";
    /// `notifications`.
    pub const NOTIFICATIONS: &str = "notifications";
    /// `todos`.
    pub const TODOS: &str = "todos";
    /// `files`.
    pub const FILES: &str = "files";
    /// `run`.
    pub const RUN: &str = "run";
    /// `plan`.
    pub const PLAN: &str = "plan";
    /// `facts`.
    pub const FACTS: &str = "facts";
    /// `unresolved_questions`.
    pub const UNRESOLVED_QUESTIONS: &str = "unresolved_questions";
    /// `approvals`.
    pub const APPROVALS: &str = "approvals";
    /// `budget`.
    pub const BUDGET: &str = "budget";
    /// `artifacts`.
    pub const ARTIFACTS: &str = "artifacts";
    /// `last_error`.
    pub const LAST_ERROR: &str = "last_error";
    /// `compaction`.
    pub const COMPACTION: &str = "compaction";
    /// `structured_response`.
    pub const STRUCTURED_RESPONSE: &str = "structured_response";
    /// `active_agent`.
    pub const ACTIVE_AGENT: &str = "active_agent";
}

/// The default schema (DESIGN §3): deepagents' channels plus the run state of a production agent.
///
/// | channel | reducer | rules |
/// |---|---|---|
/// | `messages` | messages | model-visible; tool-call invariants |
/// | `async_tasks` | merge by task id (later call wins) | records merged field by field; task status machine; never deleted |
/// | `notifications` | merge by notification id (later call wins) | task notifications, written only by `async_tasks`; `delivered_at` or `dropped` once handled |
/// | `todos` | replace | deepagents `write_todos` list |
/// | `files` | merge by path (`null` deletes; same path twice in a batch conflicts) | |
/// | `run` | fields merged (two writes of one field in a batch conflict) | status machine |
/// | `plan` | merge by step id | dependencies exist, no cycles, step transitions |
/// | `facts` | merge (later call wins) | |
/// | `unresolved_questions` | merge by question id (`null` = resolved) | |
/// | `approvals` | merge by approval id | approval transitions |
/// | `budget` | limits merged, used counters added | `BUDGET_EXCEEDED` |
/// | `artifacts` | union | |
/// | `last_error` | replace | |
/// | `compaction` | replace | `{summary, first_kept_id}`: the model view starts after the cut (`compact`) |
/// | `structured_response` | replace | the agent's structured final answer (a subagent's is its result) |
/// | `active_agent` | replace (string) | the agent in control; a write is a `handoff` event |
pub fn default_schema() -> Vec<ChannelSpec> {
    use Reducer::*;
    vec![
        ChannelSpec::new(channel::MESSAGES, Messages).with(|c| c.visibility = Visibility::Model),
        ChannelSpec::new(channel::ASYNC_TASKS, Merge).with(|c| {
            c.kind = Kind::Tasks;
            c.section = Some(SectionKind::AsyncTasks);
            c.value_type = ValueType::Object;
            c.on_conflict = OnConflict::CallOrder;
        }),
        ChannelSpec::new(channel::NOTIFICATIONS, Merge).with(|c| {
            c.writers = Some(vec!["async_tasks".into()]);
            c.kind = Kind::Records;
            c.value_type = ValueType::Object;
            c.on_conflict = OnConflict::CallOrder;
        }),
        ChannelSpec::new(channel::TODOS, Replace).with(|c| c.kind = Kind::Todos),
        ChannelSpec::new(channel::FILES, Merge),
        ChannelSpec::new(channel::RUN, Merge).with(|c| {
            c.kind = Kind::Run;
            c.section = Some(SectionKind::Task);
        }),
        ChannelSpec::new(channel::PLAN, Merge).with(|c| {
            c.kind = Kind::Plan;
            c.section = Some(SectionKind::Plan);
            c.value_type = ValueType::Object;
        }),
        ChannelSpec::new(channel::FACTS, Merge).with(|c| {
            c.on_conflict = OnConflict::CallOrder;
            c.section = Some(SectionKind::Facts);
        }),
        ChannelSpec::new(channel::UNRESOLVED_QUESTIONS, Merge).with(|c| {
            c.on_conflict = OnConflict::CallOrder;
            c.section = Some(SectionKind::UnresolvedQuestions);
        }),
        ChannelSpec::new(channel::APPROVALS, Merge).with(|c| {
            c.kind = Kind::Approvals;
            c.value_type = ValueType::Object;
        }),
        ChannelSpec::new(channel::BUDGET, Merge).with(|c| c.kind = Kind::Budget),
        ChannelSpec::new(channel::ARTIFACTS, Union),
        ChannelSpec::new(channel::LAST_ERROR, Replace),
        ChannelSpec::new(channel::COMPACTION, Replace).with(|c| c.value_type = ValueType::Object),
        ChannelSpec::new(channel::STRUCTURED_RESPONSE, Replace),
        ChannelSpec::new(channel::ACTIVE_AGENT, Replace).with(|c| c.value_type = ValueType::String),
    ]
}
