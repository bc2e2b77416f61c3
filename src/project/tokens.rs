//! Token counting for the projector: a built-in estimate, or any counter the caller brings (a
//! real BPE tokenizer from JS), with per-message counts cached by message id.

use crate::error::Result;
use crate::message::{Content, ContentPart, Message};
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Counts the tokens of a text. Errors (a JS counter that throws) abort the projection.
pub trait TokenCounter {
    /// Tokens in `text`.
    fn count(&mut self, text: &str) -> Result<usize>;
}

/// The built-in estimate: ⌈characters / 4⌉, as LangChain's `count_tokens_approximately`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Estimate;

impl TokenCounter for Estimate {
    fn count(&mut self, text: &str) -> Result<usize> {
        Ok(text.chars().count().div_ceil(4))
    }
}

/// Tokens every message costs beyond its text (role and framing), as LangChain's estimate adds.
pub const PER_MESSAGE: usize = 3;
/// What an image costs in the estimate (LangChain counts 85).
pub const PER_IMAGE: usize = 85;

/// The text a message is counted by: role, name, content text, tool calls (name and arguments)
/// and the call id a result answers. Images count [`PER_IMAGE`] each; other blocks by their JSON.
pub fn text_of(m: &Message) -> (String, usize) {
    let mut text = String::new();
    let mut images = 0;
    text.push_str(role_name(m));
    if let Some(n) = &m.name {
        text.push(' ');
        text.push_str(n);
    }
    match &m.content {
        Content::Text(t) => {
            text.push('\n');
            text.push_str(t);
        }
        Content::Parts(parts) => {
            for p in parts {
                text.push('\n');
                match p {
                    ContentPart::Text { text: t, .. } | ContentPart::Reasoning { text: t, .. } => text.push_str(t),
                    // A file costs what an image does (a fixed estimate: its size in tokens
                    // depends on the provider's own reading of it — pages, audio length).
                    ContentPart::Image { .. } | ContentPart::File { .. } => images += 1,
                    ContentPart::Other { raw } => text.push_str(&raw.to_string()),
                }
            }
        }
        Content::Null | Content::Absent => {}
    }
    for c in &m.tool_calls {
        text.push('\n');
        text.push_str(&c.name);
        text.push_str(&c.args.to_string());
    }
    // Counted with the note that stands beside it where a format cannot carry its raw arguments.
    for c in &m.invalid_tool_calls {
        text.push('\n');
        text.push_str(&c.name);
        text.push_str(&crate::message::formats::util::invalid_call_note(c));
    }
    if let Some(id) = &m.tool_call_id {
        text.push('\n');
        text.push_str(id);
    }
    (text, images)
}

fn role_name(m: &Message) -> &'static str {
    match m.role {
        crate::message::Role::System => "system",
        crate::message::Role::User => "user",
        crate::message::Role::Assistant => "assistant",
        crate::message::Role::Tool => "tool",
    }
}

/// Per-message token counts, cached by message id and a fingerprint of the message's text, for
/// one counter at a time (a different `counter_id` clears the cache).
#[derive(Debug, Clone, Default)]
pub struct TokenCache {
    counter_id: String,
    counts: HashMap<String, (u64, usize)>,
}

impl TokenCache {
    /// Tokens of `m` with `counter`, from the cache when its text did not change.
    pub fn tokens(&mut self, m: &Message, counter: &mut dyn TokenCounter, counter_id: &str) -> Result<usize> {
        if self.counter_id != counter_id {
            self.counts.clear();
            self.counter_id = counter_id.to_string();
        }
        let (text, images) = text_of(m);
        let mut h = DefaultHasher::new();
        text.hash(&mut h);
        images.hash(&mut h);
        let fp = h.finish();
        if let Some(id) = &m.id {
            if let Some(&(f, n)) = self.counts.get(id) {
                if f == fp {
                    return Ok(n);
                }
            }
        }
        let n = counter.count(&text)?.saturating_add(images * PER_IMAGE + PER_MESSAGE);
        if let Some(id) = &m.id {
            self.counts.insert(id.clone(), (fp, n));
        }
        Ok(n)
    }
}
