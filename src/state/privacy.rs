//! Privacy (DESIGN §3): what no output may carry. The private values of a store, and the leak
//! scan every output runs through — the model view, a subagent's input and result, the requests
//! and answers of subagent servers. One scan, one minimum length, one placeholder.

use super::schema::Visibility;
use super::store::{Slot, Store};
use crate::error::{Error, ErrorCode, Result};
use serde_json::Value;

/// The placeholder for a redacted value (sections, observations of subagent servers).
pub const REDACTED: &str = "[redacted]";

impl Store {
    /// Every private string value as `(channel, value)`: what no output may carry (the model
    /// view's leak scan; requests to subagent servers).
    pub fn private_values(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (k, spec) in self.specs.iter().enumerate().filter(|(_, s)| s.visibility == Visibility::Private) {
            match self.slots.get(k) {
                // A private messages channel (an agent's own history): what its messages say —
                // text, reasoning, tool arguments and results — not their structure (roles, part
                // types, field names and generated ids every public message shares).
                Some(Slot::Messages(m)) => {
                    for message in m.messages() {
                        message_strings(&spec.name, message, &mut out);
                    }
                }
                _ => private_strings(&spec.name, &self.value_of(k), &mut out),
            }
        }
        out
    }
}

/// The secrets a private message holds: its text parts, reasoning, tool arguments (their string
/// values) and the raw text of invalid calls.
fn message_strings(channel: &str, m: &crate::message::Message, out: &mut Vec<(String, String)>) {
    use crate::message::{Content, ContentPart};
    let mut text = |t: &str| {
        if t.chars().count() >= MIN_PRIVATE_LEN {
            out.push((channel.to_string(), t.to_string()));
        }
    };
    match &m.content {
        Content::Text(t) => text(t),
        Content::Parts(parts) => {
            for p in parts {
                if let ContentPart::Text { text: t, .. } | ContentPart::Reasoning { text: t, .. } = p {
                    text(t);
                }
            }
        }
        Content::Null | Content::Absent => {}
    }
    for c in &m.invalid_tool_calls {
        text(&c.args);
    }
    for c in &m.tool_calls {
        string_values(channel, &c.args, out);
    }
}

/// The string values (not keys) of at least [`MIN_PRIVATE_LEN`] characters in `v`.
fn string_values(channel: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::String(s) if s.chars().count() >= MIN_PRIVATE_LEN => out.push((channel.to_string(), s.clone())),
        Value::Array(items) => items.iter().for_each(|i| string_values(channel, i, out)),
        Value::Object(o) => o.values().for_each(|v| string_values(channel, v, out)),
        _ => {}
    }
}

/// The shortest private value the leak scan looks for (shorter strings match by chance).
pub const MIN_PRIVATE_LEN: usize = 8;

/// `PRIVATE_LEAK` naming the channel (never the value) if any private string of at least
/// [`MIN_PRIVATE_LEN`] characters appears in the encoded output: in any string, key or JSON held
/// in a string, and in each message's text parts (`text` fields, the name every format gives
/// them) joined in order with no separator — what the model reads when a provider renders text
/// parts one after another ("CANARY-priv" + "-31337x").
pub fn check_leaks(encoded: &[Value], private: &[(String, String)]) -> Result<()> {
    match leaking_channels(encoded, private).first() {
        None => Ok(()),
        Some(channel) => Err(Error::new(
            ErrorCode::PrivateLeak,
            format!("the model view would contain a value of private channel '{channel}'; redact it from the messages before projecting"),
        )
        .channel(channel)),
    }
}

/// The private channels (in the order of `private`, each once) one of whose values of at least
/// [`MIN_PRIVATE_LEN`] characters appears in `encoded`, by the rules of [`check_leaks`].
pub fn leaking_channels(encoded: &[Value], private: &[(String, String)]) -> Vec<String> {
    let mut found_in: Vec<String> = Vec::new();
    if private.is_empty() {
        return found_in;
    }
    let mut leaves: Vec<String> = Vec::new();
    for v in encoded {
        let mut joined = String::new();
        string_leaves(v, &mut leaves, &mut joined, 0);
        leaves.push(joined);
    }
    for (channel, value) in private {
        // Also as it reads inside JSON text (quotes, backslashes, newlines escaped).
        let quoted = serde_json::to_string(value).unwrap_or_default();
        let escaped = quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or_default();
        let found = |l: &String| l.contains(value.as_str()) || (escaped != value && l.contains(escaped));
        if value.chars().count() >= MIN_PRIVATE_LEN && !found_in.contains(channel) && leaves.iter().any(found) {
            found_in.push(channel.clone());
        }
    }
    found_in
}

/// Every string (object keys too) in `v`, with JSON held inside strings (OpenAI tool arguments)
/// decoded and searched as well, so escapes cannot hide a value; `joined` collects the `text`
/// fields in order.
fn string_leaves(v: &Value, out: &mut Vec<String>, joined: &mut String, depth: usize) {
    match v {
        Value::String(s) => {
            let t = s.trim_start();
            if depth < 4 && (t.starts_with('{') || t.starts_with('[') || t.starts_with('"')) {
                if let Ok(inner) = serde_json::from_str::<Value>(t) {
                    string_leaves(&inner, out, &mut String::new(), depth + 1);
                }
            }
            out.push(s.clone());
        }
        Value::Array(items) => {
            for i in items {
                // A bare string in a content list is a text part (LangChain).
                if let Value::String(text) = i {
                    joined.push_str(text);
                }
                string_leaves(i, out, joined, depth);
            }
        }
        Value::Object(o) => {
            for (k, v) in o {
                out.push(k.clone());
                if let (Value::String(text), "text") = (v, k.as_str()) {
                    joined.push_str(text);
                }
                string_leaves(v, out, joined, depth);
            }
        }
        _ => {}
    }
}

/// Every string of at least [`MIN_PRIVATE_LEN`] characters in a private channel's value
/// (object keys too), with the channel's name.
pub fn private_strings(channel: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::String(s) if s.chars().count() >= MIN_PRIVATE_LEN => out.push((channel.to_string(), s.clone())),
        Value::Array(items) => items.iter().for_each(|i| private_strings(channel, i, out)),
        Value::Object(o) => {
            for (k, v) in o {
                if k.chars().count() >= MIN_PRIVATE_LEN {
                    out.push((channel.to_string(), k.clone()));
                }
                private_strings(channel, v, out);
            }
        }
        _ => {}
    }
}
