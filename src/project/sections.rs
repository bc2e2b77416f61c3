//! State sections of the model view (DESIGN §6): the task, the plan, known facts, unresolved
//! questions and active async tasks, rendered from system state — never from private channels,
//! and task statuses from the ledger, never from message text.

use serde_json::{Map, Value};

/// One rendered section.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// `task`, `plan`, `facts`, `unresolved_questions` or `async_tasks`.
    pub name: &'static str,
    /// Its markdown text.
    pub text: String,
}

/// What the renderer may read and must hide.
pub struct SectionInput<'a> {
    /// Channel values by name (private channels are never passed in).
    pub channels: &'a Map<String, Value>,
    /// Channels whose values are secret: their section shows a placeholder.
    pub secret_channels: &'a [String],
    /// Field names whose values are replaced by a placeholder wherever they appear.
    pub redact_keys: &'a [String],
}

/// The placeholder for a redacted value.
pub const REDACTED: &str = "[redacted]";

/// Async task statuses that are over (the ledger's terminal statuses).
const TERMINAL_TASK: [&str; 4] = ["success", "error", "cancelled", "timeout"];

impl SectionInput<'_> {
    fn secret(&self, channel: &str) -> bool {
        self.secret_channels.iter().any(|c| c == channel)
    }

    /// A value as one line of text, with redacted keys hidden.
    fn show(&self, key: &str, v: &Value, redacted: &mut Vec<String>, path: &str) -> String {
        if self.redact_keys.iter().any(|k| k.eq_ignore_ascii_case(key)) {
            redacted.push(path.to_string());
            return REDACTED.to_string();
        }
        match v {
            Value::String(s) => s.clone(),
            Value::Object(o) => {
                let inner: Vec<String> = o
                    .iter()
                    .map(|(k, v)| format!("{k}: {}", self.show(k, v, redacted, &format!("{path}.{k}"))))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
            Value::Array(items) => {
                let inner: Vec<String> = items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| self.show("", v, redacted, &format!("{path}[{i}]")))
                    .collect();
                format!("[{}]", inner.join(", "))
            }
            other => other.to_string(),
        }
    }
}

/// Renders the sections present in state, in the fixed order task, plan, facts, unresolved
/// questions, active async tasks. Returns the sections and the paths it redacted.
pub fn render(input: &SectionInput) -> (Vec<Section>, Vec<String>) {
    let mut out = Vec::new();
    let mut redacted = Vec::new();
    let get = |name: &str| input.channels.get(name);
    let mut push = |name: &'static str, channel: &str, body: Option<String>, redacted: &mut Vec<String>| {
        let Some(body) = body.filter(|b| !b.is_empty()) else { return };
        let title = match name {
            "task" => "Task",
            "plan" => "Plan",
            "facts" => "Known facts",
            "unresolved_questions" => "Unresolved questions",
            _ => "Active async tasks",
        };
        let body = if input.secret(channel) {
            redacted.push(channel.to_string());
            REDACTED.to_string()
        } else {
            body
        };
        out.push(Section { name, text: format!("## {title}\n{body}") });
    };
    let task = get("run").and_then(|r| r.get("task")).map(|t| input.show("task", t, &mut redacted, "run.task"));
    push("task", "run", task, &mut redacted);
    let plan = get("plan").and_then(Value::as_object).map(|steps| {
        steps
            .iter()
            .map(|(id, s)| {
                let title = s.get("title").and_then(Value::as_str).unwrap_or("");
                let status = s.get("status").and_then(Value::as_str).unwrap_or("pending");
                let deps: Vec<&str> = s
                    .get("depends_on")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                let after = if deps.is_empty() { String::new() } else { format!(" (after {})", deps.join(", ")) };
                format!("- [{status}] {id}: {title}{after}")
            })
            .collect::<Vec<_>>()
            .join("\n")
    });
    push("plan", "plan", plan, &mut redacted);
    let facts = get("facts").and_then(Value::as_object).map(|f| {
        f.iter()
            .map(|(k, v)| format!("- {k}: {}", input.show(k, v, &mut redacted, &format!("facts.{k}"))))
            .collect::<Vec<_>>()
            .join("\n")
    });
    push("facts", "facts", facts, &mut redacted);
    let questions = get("unresolved_questions").and_then(Value::as_object).map(|q| {
        q.iter()
            .map(|(k, v)| format!("- {}", input.show(k, v, &mut redacted, &format!("unresolved_questions.{k}"))))
            .collect::<Vec<_>>()
            .join("\n")
    });
    push("unresolved_questions", "unresolved_questions", questions, &mut redacted);
    let tasks = get("async_tasks").and_then(Value::as_object).map(|t| {
        t.iter()
            .filter(|(_, r)| !TERMINAL_TASK.contains(&r.get("status").and_then(Value::as_str).unwrap_or("pending")))
            .map(|(id, r)| {
                let id = r.get("task_id").and_then(Value::as_str).unwrap_or(id);
                let agent = r.get("agent_name").or_else(|| r.get("agent")).and_then(Value::as_str).unwrap_or("?");
                let status = r.get("status").and_then(Value::as_str).unwrap_or("pending");
                format!("- task {id} ({agent}): {status}")
            })
            .collect::<Vec<_>>()
            .join("\n")
    });
    push("async_tasks", "async_tasks", tasks, &mut redacted);
    (out, redacted)
}
