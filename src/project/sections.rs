//! State sections of the model view (DESIGN §6): the task, the plan, known facts, unresolved
//! questions and active async tasks, rendered from system state — never from private channels,
//! and task statuses from the ledger, never from message text.

use crate::lifecycle::TaskStatus;
use crate::state::privacy::REDACTED;
use crate::state::SectionKind;
use serde_json::{Map, Value};

/// One rendered section.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// `task`, `plan`, `facts`, `unresolved_questions` or `async_tasks`.
    pub name: &'static str,
    /// Its markdown text.
    pub text: String,
}

/// One channel the schema declares as a section ([`crate::state::ChannelSpec::section`]), with
/// its value as the store holds it.
pub struct SectionSource<'a> {
    /// Which section it feeds.
    pub kind: SectionKind,
    /// The channel's name (paths of redacted values start with it).
    pub channel: &'a str,
    /// The channel's value.
    pub value: Value,
    /// A secret channel: its section shows a placeholder.
    pub secret: bool,
}

/// What the renderer may read and must hide.
pub struct SectionInput<'a> {
    /// The declared section channels (private channels are never passed in).
    pub sources: &'a [SectionSource<'a>],
    /// Field names whose values are replaced by a placeholder wherever they appear.
    pub redact_keys: &'a [String],
}

impl SectionInput<'_> {
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

/// Renders the sections present in state, in the order of [`SectionKind`] (task, plan, facts,
/// unresolved questions, active async tasks). Returns the sections and the paths it redacted.
pub fn render(input: &SectionInput) -> (Vec<Section>, Vec<String>) {
    let mut sources: Vec<&SectionSource> = input.sources.iter().collect();
    crate::order::sort_stable_by_key(&mut sources, |s| s.kind as u64);
    let mut out = Vec::new();
    let mut redacted = Vec::new();
    for source in sources {
        let (name, title) = match source.kind {
            SectionKind::Task => ("task", "Task"),
            SectionKind::Plan => ("plan", "Plan"),
            SectionKind::Facts => ("facts", "Known facts"),
            SectionKind::UnresolvedQuestions => ("unresolved_questions", "Unresolved questions"),
            SectionKind::AsyncTasks => ("async_tasks", "Active async tasks"),
        };
        let Some(body) = body(input, source, &mut redacted).filter(|b| !b.is_empty()) else { continue };
        let body = if source.secret {
            redacted.push(source.channel.to_string());
            REDACTED.to_string()
        } else {
            body
        };
        out.push(Section { name, text: format!("## {title}\n{body}") });
    }
    (out, redacted)
}

/// The lines of one section, or `None` when its channel holds nothing to show.
fn body(input: &SectionInput, source: &SectionSource, redacted: &mut Vec<String>) -> Option<String> {
    let channel = source.channel;
    let lines = |o: &Map<String, Value>, line: &mut dyn FnMut(&String, &Value) -> Option<String>| {
        o.iter().filter_map(|(k, v)| line(k, v)).collect::<Vec<_>>().join("\n")
    };
    match source.kind {
        SectionKind::Task => {
            source.value.get("task").map(|t| input.show("task", t, redacted, &format!("{channel}.task")))
        }
        SectionKind::Plan => source.value.as_object().map(|steps| {
            lines(steps, &mut |id, s| {
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
                Some(format!("- [{status}] {id}: {title}{after}"))
            })
        }),
        SectionKind::Facts => source.value.as_object().map(|f| {
            lines(f, &mut |k, v| Some(format!("- {k}: {}", input.show(k, v, redacted, &format!("{channel}.{k}")))))
        }),
        SectionKind::UnresolvedQuestions => source.value.as_object().map(|q| {
            lines(q, &mut |k, v| Some(format!("- {}", input.show(k, v, redacted, &format!("{channel}.{k}")))))
        }),
        // Statuses come from the ledger's own table: a record whose status is unknown is shown.
        SectionKind::AsyncTasks => source.value.as_object().map(|t| {
            lines(t, &mut |id, r| {
                let status = r.get("status").and_then(Value::as_str).unwrap_or("pending");
                if TaskStatus::parse(status).is_ok_and(TaskStatus::is_terminal) {
                    return None;
                }
                let id = r.get("task_id").and_then(Value::as_str).unwrap_or(id);
                let agent = r.get("agent_name").or_else(|| r.get("agent")).and_then(Value::as_str).unwrap_or("?");
                Some(format!("- task {id} ({agent}): {status}"))
            })
        }),
    }
}
