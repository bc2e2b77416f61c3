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

/// What a message's count is remembered by within one projection: the kind of its content, its
/// length, the length of its text parts, its calls and invalid calls. Repair and previews change
/// it whenever they rewrite a message.
pub type Shape = [usize; 5];

/// The [`Shape`] of a message.
pub fn shape_of(m: &Message) -> Shape {
    let (calls, invalid) = (m.tool_calls.len(), m.invalid_tool_calls.len());
    match &m.content {
        Content::Text(t) => [1, t.len(), 0, calls, invalid],
        Content::Parts(p) => [
            2,
            p.len(),
            p.iter().map(|x| if let ContentPart::Text { text, .. } = x { text.len() } else { 1 }).sum(),
            calls,
            invalid,
        ],
        Content::Null | Content::Absent => [3, 0, 0, calls, invalid],
    }
}

/// The tokens of `m` by `counter`, counted now.
pub fn count(m: &Message, counter: &mut dyn TokenCounter) -> Result<usize> {
    let (text, images) = text_of(m);
    Ok(counter.count(&text)?.saturating_add(images * PER_IMAGE + PER_MESSAGE))
}

/// A message's count, the fingerprint of the text it was counted from, and the projection that
/// last checked it against the message (with the message's shape then).
#[derive(Debug, Clone)]
struct Counted {
    fingerprint: u64,
    tokens: usize,
    checked: u32,
    shape: Shape,
}

/// Per-message token counts, cached by message id and a fingerprint of the message's text, for
/// one counter at a time (a different `counter_id` clears the cache).
#[derive(Debug, Clone, Default)]
pub struct TokenCache {
    counter_id: String,
    counts: FxHashMap<String, Counted>,
    /// The projection under way ([`TokenCache::begin`]; never 0, which no count was checked in).
    projection: u32,
}

impl TokenCache {
    /// Tokens of `m` with `counter`, from the cache when its text did not change.
    pub fn tokens(&mut self, m: &Message, counter: &mut dyn TokenCounter, counter_id: &str) -> Result<usize> {
        if self.counter_id != counter_id {
            self.counts.clear();
            self.counter_id = counter_id.to_string();
        }
        let fp = fingerprint(m);
        let Some(id) = &m.id else { return count(m, counter) };
        if let Some(c) = self.counts.get(id.as_str()).filter(|c| c.fingerprint == fp) {
            return Ok(c.tokens);
        }
        let n = count(m, counter)?;
        self.put(id, Counted { fingerprint: fp, tokens: n, checked: 0, shape: [0; 5] });
        Ok(n)
    }

    /// Starts a projection with `counter_id` (another counter than the last clears the cache):
    /// each message is checked against its cached count once in it ([`TokenCache::in_projection`]).
    pub fn begin(&mut self, counter_id: &str) {
        if self.counter_id != counter_id {
            self.counts.clear();
            self.counter_id = counter_id.to_string();
        }
        if self.projection == u32::MAX {
            // Numbers are about to be reused: no count was checked in a projection to come.
            self.counts.values_mut().for_each(|c| c.checked = 0);
            self.projection = 0;
        }
        self.projection += 1;
    }

    /// Tokens of `m` (which has an id, and shape `shape`) within the projection under way: the
    /// first time, as [`TokenCache::tokens`] (the count kept while the text did not change);
    /// then from the cache without reading the message again while its shape is the same.
    /// `None` when the id was seen in this projection with another shape (the caller counts it:
    /// a result next to its preview).
    pub fn in_projection(
        &mut self,
        m: &Message,
        shape: Shape,
        counter: &mut dyn TokenCounter,
    ) -> Result<Option<usize>> {
        let Some(id) = &m.id else { return count(m, counter).map(Some) };
        let known = self.counts.get(id.as_str());
        if let Some(c) = known.filter(|c| c.checked == self.projection) {
            return Ok((c.shape == shape).then_some(c.tokens));
        }
        let fp = fingerprint(m);
        let tokens = match known.filter(|c| c.fingerprint == fp) {
            Some(c) => c.tokens,
            None => count(m, counter)?,
        };
        self.put(id, Counted { fingerprint: fp, tokens, checked: self.projection, shape });
        Ok(Some(tokens))
    }

    /// Stores an id's count (its key allocated only for a new id).
    fn put(&mut self, id: &str, counted: Counted) {
        match self.counts.get_mut(id) {
            Some(c) => *c = counted,
            None => {
                self.counts.insert(id.to_string(), counted);
            }
        }
    }
}

/// The fingerprint of the counted text of `m`, taken without building it.
fn fingerprint(m: &Message) -> u64 {
    let mut fingerprint = Fingerprint(FxHasher::default());
    let images = pieces(m, &mut fingerprint);
    images.hash(&mut fingerprint.0);
    fingerprint.0.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Role;

    /// Counts every text as its length and every call to it.
    struct Calls(usize);
    impl TokenCounter for Calls {
        fn count(&mut self, text: &str) -> Result<usize> {
            self.0 += 1;
            Ok(text.len())
        }
    }

    fn message(id: &str, text: &str) -> Message {
        let mut m = Message::new(Role::User, text);
        m.id = Some(id.to_string());
        m
    }

    #[test]
    fn within_a_projection_a_message_is_read_once_and_a_changed_one_counted_again() {
        let mut cache = TokenCache::default();
        let mut c = Calls(0);
        let a = message("a", "hello");
        cache.begin("c");
        let n = cache.in_projection(&a, shape_of(&a), &mut c).unwrap();
        assert_eq!(n, Some(5 + "user\n".len() + PER_MESSAGE));
        assert_eq!(cache.in_projection(&a, shape_of(&a), &mut c).unwrap(), n);
        let longer = message("a", "hello, world");
        assert_eq!(cache.in_projection(&longer, shape_of(&longer), &mut c).unwrap(), None, "another shape of a");
        assert_eq!(c.0, 1);
        // Next projection: the same text is not counted again, a changed one of the same shape is.
        cache.begin("c");
        let same_shape = message("a", "HELLO");
        assert_eq!(cache.in_projection(&a, shape_of(&a), &mut c).unwrap(), n);
        assert_eq!(c.0, 1);
        cache.begin("c");
        assert!(cache.in_projection(&same_shape, shape_of(&same_shape), &mut c).unwrap().is_some());
        assert_eq!(c.0, 2, "the fingerprint, not the shape, decides across projections");
        // Another counter starts afresh.
        cache.begin("other");
        assert!(cache.in_projection(&a, shape_of(&a), &mut c).unwrap().is_some());
        assert_eq!(c.0, 3);
    }

    #[test]
    fn a_stamp_about_to_wrap_clears_every_check() {
        let mut cache = TokenCache::default();
        let mut c = Calls(0);
        let a = message("a", "hello");
        cache.begin("c");
        cache.projection = u32::MAX;
        cache.in_projection(&a, shape_of(&a), &mut c).unwrap();
        cache.begin("c");
        assert_eq!(cache.projection, 1);
        assert!(cache.counts.values().all(|c| c.checked == 0), "no count looks checked in projection 1");
        // A change of the same shape in the next projection is seen (by its fingerprint).
        let changed = message("a", "HELLO");
        cache.in_projection(&changed, shape_of(&changed), &mut c).unwrap();
        assert_eq!(c.0, 2);
    }
}
