//! The five task tools as the model sees them: names, descriptions and JSON Schema parameters
//! (deepagents' tool set; the rules live in the descriptions, as in deepagents since it dropped
//! its system prompt).

use super::ops::STATUS_FILTERS;
use super::spec::{Mode, TasksConfig};
use crate::json::{arr, obj};
use serde::Serialize;
use serde_json::Value;

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// One tool definition, ready for a provider's tool list (`parameters` is JSON Schema).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: &'static str,
    /// What it does and the rules for using it.
    pub description: String,
    /// JSON Schema of the arguments.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>"))]
    pub parameters: Value,
}

const STALE: &str = "Statuses shown earlier in the conversation are always stale: call this tool to get the current status instead of repeating an earlier result.";
const FULL_ID: &str = "Always show the user the full task_id, never a shortened one.";

fn task_id() -> Value {
    obj! { "type": "string", "description": "The full task_id returned by start_async_task." }
}

/// The definitions of start, check, update, cancel and list, in that order.
pub fn definitions(config: &TasksConfig) -> Vec<ToolDefinition> {
    let agents: Vec<String> = config
        .agents
        .iter()
        .map(|a| {
            let fork = if a.mode == Mode::Fork {
                " (inherits your conversation at launch; uses its own system prompt and tools)"
            } else {
                ""
            };
            format!("- {}: {}{fork}", a.name, a.description)
        })
        .collect();
    let names: Vec<&str> = config.agents.iter().map(|a| a.name.as_str()).collect();
    vec![
        ToolDefinition {
            name: "start_async_task",
            description: format!(
                "Start a background task on an async subagent. Returns a task_id at once; the task keeps running while you work. Do not check on it right away: you will usually be told when it finishes. {FULL_ID}\n\nAvailable async subagent types:\n{}",
                agents.join("\n")
            ),
            parameters: obj!{
                "type": "object",
                "properties": obj!{
                    "description": obj!{ "type": "string", "description": "Everything the subagent needs to do the task; it sees nothing else of this conversation unless it inherits it." },
                    "subagent_type": obj!{ "type": "string", "enum": names, "description": "Which async subagent runs the task." },
                },
                "required": arr!["description", "subagent_type"],
            },
        },
        ToolDefinition {
            name: "check_async_task",
            description: format!("Get the current status of an async task, with its result, error or pending question. {STALE} Do not call it in a loop. {FULL_ID}"),
            parameters: obj!{ "type": "object", "properties": obj!{ "task_id": task_id() }, "required": arr!["task_id"] },
        },
        ToolDefinition {
            name: "update_async_task",
            description: format!("Send new instructions to a running async task; it keeps its task_id. {FULL_ID}"),
            parameters: obj!{
                "type": "object",
                "properties": obj!{ "task_id": task_id(), "message": obj!{ "type": "string", "description": "The new instructions." } },
                "required": arr!["task_id", "message"],
            },
        },
        ToolDefinition {
            name: "cancel_async_task",
            description: format!("Stop an async task. A task that already finished keeps its real status. {FULL_ID}"),
            parameters: obj!{ "type": "object", "properties": obj!{ "task_id": task_id() }, "required": arr!["task_id"] },
        },
        ToolDefinition {
            name: "list_async_tasks",
            description: format!("List the async tasks with their current statuses. {STALE} {FULL_ID}"),
            parameters: obj!{
                "type": "object",
                "properties": obj!{ "status_filter": obj!{ "type": "string", "enum": STATUS_FILTERS, "description": "Only tasks last seen with this status; default all." } },
            },
        },
    ]
}
