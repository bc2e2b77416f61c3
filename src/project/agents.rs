//! Multi-agent views (DESIGN §8): in one agent's model view, the turns of other agents appear as
//! context, not as its own turns (Google ADK presents other agents' events the same way:
//! "For context:" then "\[agent\] said: …", "\[agent\] called tool …", "\[agent\] `tool` tool
//! returned result: …").
//!
//! An assistant message belongs to the agent named in its `name` (LangChain `AIMessage.name`,
//! as langgraph-supervisor and swarm set it); messages without a name are everyone's.

use crate::message::{Message, Role};
use std::borrow::Borrow;
use std::collections::HashMap;

/// An agent's name as shown in a context line: control characters (a newline could fake a line
/// of its own) become spaces.
fn clean(name: &str) -> String {
    name.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// The default first line of a message showing another agent's turn.
pub const CONTEXT_PREFIX: &str = "For context:";

/// `history` as `agent` should see it: each assistant message named after another agent, and
/// each tool result answering one of its calls, becomes a user message `"{prefix}\n[X] said: …"`
/// (`"[X] called tool `t` with parameters: {…}"`, `"[X] `t` tool returned result: …"`), keeping
/// its id. Other messages are unchanged. Borrowed when nothing changes. `history` holds the
/// messages or shares them (a store's channel: `Rc<Message>`).
pub fn as_context<'a, M>(history: &'a [M], agent: &str, prefix: &str) -> std::borrow::Cow<'a, [M]>
where
    M: Borrow<Message> + Clone + From<Message>,
{
    let other = |m: &Message| m.role == Role::Assistant && m.name.as_deref().is_some_and(|n| n != agent);
    if !history.iter().any(|m| other(m.borrow())) {
        return std::borrow::Cow::Borrowed(history);
    }
    // Calls of other agents still open at each point: call id → (agent, tool name). A later
    // assistant turn reusing an id (some transcripts do) takes it over, so a result is shown as
    // the nearest earlier call's.
    let mut calls: HashMap<&str, (&str, &str)> = HashMap::new();
    let name_of = |m: &Message| clean(m.name.as_deref().unwrap_or_default());
    let mut out = Vec::with_capacity(history.len());
    for held in history {
        let m: &Message = held.borrow();
        if m.role == Role::Assistant {
            let ids = m
                .tool_calls
                .iter()
                .map(|c| (c.id.as_str(), c.name.as_str()))
                .chain(m.invalid_tool_calls.iter().map(|c| (c.id.as_str(), c.name.as_str())));
            for (id, tool) in ids {
                if other(m) {
                    calls.insert(id, (m.name.as_deref().unwrap_or_default(), tool));
                } else {
                    calls.remove(id);
                }
            }
        }
        let mut lines = Vec::new();
        if other(m) {
            let who = name_of(m);
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
            if lines.is_empty() {
                lines.push(format!("[{who}] said nothing."));
            }
        } else if let Some(&(who, tool)) =
            m.tool_call_id.as_deref().filter(|_| m.role == Role::Tool).and_then(|id| calls.get(id))
        {
            lines.push(format!("[{}] `{tool}` tool returned result: {}", clean(who), m.content.text()));
        } else {
            out.push(held.clone());
            continue;
        }
        let mut c = Message::new(Role::User, format!("{prefix}\n{}", lines.join("\n")));
        c.id = m.id.clone();
        out.push(M::from(c));
    }
    std::borrow::Cow::Owned(out)
}
