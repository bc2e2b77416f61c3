//! Multi-agent views (DESIGN §8): in one agent's model view, the turns of other agents appear as
//! context, not as its own turns (Google ADK presents other agents' events the same way:
//! "For context:" then "[agent] said: …", "[agent] called tool …", "[agent] `tool` tool returned
//! result: …").
//!
//! An assistant message belongs to the agent named in its `name` (LangChain `AIMessage.name`,
//! as langgraph-supervisor and swarm set it); messages without a name are everyone's.

use crate::message::{Content, Message, Role};
use std::collections::HashMap;

/// The default first line of a message showing another agent's turn.
pub const CONTEXT_PREFIX: &str = "For context:";

/// `history` as `agent` should see it: each assistant message named after another agent, and
/// each tool result answering one of its calls, becomes a user message `"{prefix}\n[X] said: …"`
/// (`"[X] called tool `t` with parameters: {…}"`, `"[X] `t` tool returned result: …"`), keeping
/// its id. Other messages are unchanged. Borrowed when nothing changes.
pub fn as_context<'a>(history: &'a [Message], agent: &str, prefix: &str) -> std::borrow::Cow<'a, [Message]> {
    let other = |m: &Message| m.role == Role::Assistant && m.name.as_deref().is_some_and(|n| n != agent);
    if !history.iter().any(other) {
        return std::borrow::Cow::Borrowed(history);
    }
    // Calls of other agents: call id → (agent, tool name).
    let mut calls: HashMap<&str, (&str, &str)> = HashMap::new();
    for m in history.iter().filter(|m| other(m)) {
        let name = m.name.as_deref().unwrap_or_default();
        for c in &m.tool_calls {
            calls.insert(c.id.as_str(), (name, c.name.as_str()));
        }
        for c in &m.invalid_tool_calls {
            calls.insert(c.id.as_str(), (name, c.name.as_str()));
        }
    }
    let out = history
        .iter()
        .map(|m| {
            let mut lines = Vec::new();
            if other(m) {
                let who = m.name.as_deref().unwrap_or_default();
                let text = m.content.text();
                if !text.trim().is_empty() {
                    lines.push(format!("[{who}] said: {text}"));
                }
                for c in &m.tool_calls {
                    lines.push(format!("[{who}] called tool `{}` with parameters: {}", c.name, c.args));
                }
                for c in &m.invalid_tool_calls {
                    lines.push(format!("[{who}] called tool `{}` with parameters: {}", c.name, c.args));
                }
            } else if let Some((who, tool)) = m.tool_call_id.as_deref().filter(|_| m.role == Role::Tool).and_then(|id| calls.get(id)) {
                lines.push(format!("[{who}] `{tool}` tool returned result: {}", m.content.text()));
            } else {
                return m.clone();
            }
            let mut c = Message::new(Role::User, format!("{prefix}\n{}", lines.join("\n")));
            c.id = m.id.clone();
            if lines.is_empty() {
                c.content = Content::Text(format!("{prefix}\n[{}] said nothing.", m.name.as_deref().unwrap_or_default()));
            }
            c
        })
        .collect();
    std::borrow::Cow::Owned(out)
}
