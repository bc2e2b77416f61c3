//! Token counting for the projector: a built-in estimate, or any counter the caller brings (a
//! real BPE tokenizer from JS), with per-message counts cached by message id.

use crate::error::Result;
use crate::message::{Content, ContentPart, Message};
use rustc_hash::FxHashMap;
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};

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
    let images = pieces(m, &mut text);
    (text, images)
}

/// Where [`pieces`] puts the counted text of a message: a `String` to count, or a hasher taking
/// its fingerprint without building the text.
trait Sink {
    /// Appends text.
    fn text(&mut self, s: &str);
    /// Appends a JSON value as its compact JSON text.
    fn json(&mut self, v: &serde_json::Value);
}

impl Sink for String {
    fn text(&mut self, s: &str) {
        self.push_str(s);
    }
    fn json(&mut self, v: &serde_json::Value) {
        self.push_str(&v.to_string());
    }
}

/// A hasher fed the same text as a [`Sink`], JSON values written straight into it. The Fx hash
/// (rustc-hash 2, which folds 16 bytes per multiply): several times cheaper per message than
/// SipHash, whose keys are fixed on wasm32-unknown-unknown anyway, so it resisted no crafted
/// collision either.
struct Fingerprint(FxHasher);

impl std::io::Write for Fingerprint {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink for Fingerprint {
    fn text(&mut self, s: &str) {
        self.0.write(s.as_bytes());
    }
    fn json(&mut self, v: &serde_json::Value) {
        // Writing a `Value` into a hasher cannot fail.
        let _ = serde_json::to_writer(&mut *self, v);
    }
}

/// Feeds the counted text of `m` to `sink` (the one definition [`text_of`] and the cache's
/// fingerprint share) and returns its number of images.
fn pieces(m: &Message, sink: &mut impl Sink) -> usize {
    let mut images = 0;
    sink.text(role_name(m));
    if let Some(n) = &m.name {
        sink.text(" ");
        sink.text(n);
    }
    match &m.content {
        Content::Text(t) => {
            sink.text("\n");
            sink.text(t);
        }
        Content::Parts(parts) => {
            for p in parts {
                sink.text("\n");
                match p {
                    ContentPart::Text { text: t, .. } | ContentPart::Reasoning { text: t, .. } => sink.text(t),
                    // A file costs what an image does (a fixed estimate: its size in tokens
                    // depends on the provider's own reading of it — pages, audio length).
                    ContentPart::Image { .. } | ContentPart::File { .. } => images += 1,
                    ContentPart::Other { raw } => sink.json(raw),
                }
            }
        }
        Content::Null | Content::Absent => {}
    }
    for c in &m.tool_calls {
        sink.text("\n");
        sink.text(&c.name);
        sink.json(&c.args);
    }
    // Counted with the note that stands beside it where a format cannot carry its raw arguments.
    for c in &m.invalid_tool_calls {
        sink.text("\n");
        sink.text(&c.name);
        sink.text(&crate::message::formats::util::invalid_call_note(c));
    }
    if let Some(id) = &m.tool_call_id {
        sink.text("\n");
        sink.text(id);
    }
    images
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
    counts: FxHashMap<String, (u64, usize)>,
}

impl TokenCache {
    /// Tokens of `m` with `counter`, from the cache when its text did not change.
    pub fn tokens(&mut self, m: &Message, counter: &mut dyn TokenCounter, counter_id: &str) -> Result<usize> {
        if self.counter_id != counter_id {
            self.counts.clear();
            self.counter_id = counter_id.to_string();
        }
        // The fingerprint of the counted text, taken without building it: a hit allocates nothing.
        let mut fingerprint = Fingerprint(FxHasher::default());
        let images = pieces(m, &mut fingerprint);
        images.hash(&mut fingerprint.0);
        let fp = fingerprint.0.finish();
        if let Some(id) = &m.id {
            if let Some(&(f, n)) = self.counts.get(id) {
                if f == fp {
                    return Ok(n);
                }
            }
        }
        let (text, images) = text_of(m);
        let n = counter.count(&text)?.saturating_add(images * PER_IMAGE + PER_MESSAGE);
        if let Some(id) = &m.id {
            self.counts.insert(id.clone(), (fp, n));
        }
        Ok(n)
    }
}
