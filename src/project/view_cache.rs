//! The model view's output, kept between views of one store so that a message that did not change
//! is neither encoded, nor written as JSON, nor read back again (issue 17: re-projection after one
//! append).
//!
//! The JS façade keeps, per store, the output messages of its last view by slot number; this
//! cache keeps the same slots and, for each group of canonical messages the encoder wrote
//! ([`crate::message::formats::groups`], as [`crate::message::formats::prepare`] prepared them), a
//! copy of the group and the slots of its output messages, found by the id of the group's first
//! message. A group is written again only when it differs from the copy (compared whole, field by
//! field: a repair, a preview, another format or a neighbour that changed how a message is
//! written all make it differ); otherwise its slots are reused as they are. A view is then told
//! as one slot per output message, the fresh ones flagged and sent with their value: the view the
//! façade rebuilds is, value for value, the one encoding the whole output would give.
//!
//! One view per format is kept (an OpenAI view and an Anthropic view of one store, taken in
//! turns, each reuse their own slots); a view drops only the groups of its own format's last
//! view that it does not use.
//!
//! The two sides stay in step through an epoch: each answer carries the next one, the façade
//! sends back the last it received, and any other epoch (a façade that lost its slots, a call
//! that failed half-way, another caller) empties the cache first, so that answer is sent whole.

use crate::message::formats::{encode_group, groups, keep_request_fields, prepare, Format};
use crate::message::{Content, Message};
use rustc_hash::FxHashMap;
use serde_json::Value;

/// The flag of a fresh slot in [`Delta::slots`]: its value is the next of the fresh ones.
pub const FRESH: u32 = 1 << 31;

/// A view as slots: what the façade needs to rebuild it from the values it keeps.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    /// The epoch to send with the next view of this store.
    pub epoch: u32,
    /// One per output message, in order: its slot, `| FRESH` when its value is sent now.
    pub slots: Vec<u32>,
}

/// A group of canonical messages as last written, and the slots of its output messages.
#[derive(Debug, Clone)]
struct Group {
    format: Format,
    messages: Vec<Message>,
    slots: Vec<u32>,
}

/// The slots of a store's model views (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct ViewCache {
    epoch: u32,
    /// By slot: the output message it holds (`None`: free).
    values: Vec<Option<Value>>,
    /// The groups of the last view in each format written, by the id of their first message
    /// (`"#k"`-style keys, which no lookup relies on, for the messages the projection writes
    /// itself, which have none). One view per format is kept, so views that take turns between
    /// formats each find their own.
    views: Vec<(Format, FxHashMap<String, Group>)>,
}

impl ViewCache {
    /// Writes the projection's canonical `messages` in `format` as slots (see the module doc).
    /// `epoch` is the one the façade last received (0 at first): any other empties the cache
    /// first. Slots and groups of this format's last view that this view does not use are
    /// dropped (other formats' views are kept). Returns the view and, for each
    /// message, the index of the first output message of its group (as
    /// [`crate::message::formats::encode_indexed`] gives it).
    pub fn write(&mut self, epoch: u32, messages: &[Message], format: Format) -> (Delta, Vec<usize>) {
        if epoch != self.epoch || self.values.len() > (FRESH >> 1) as usize {
            self.values.clear();
            self.views.clear();
        }
        // This format's last view; the slots of the other formats' views are not to be taken.
        let mut last = match self.views.iter().position(|(f, _)| *f == format) {
            Some(i) => self.views.swap_remove(i).1,
            None => FxHashMap::default(),
        };
        let prepared = prepare(messages, format);
        let mut output_of = vec![0; messages.len()];
        let mut taken = vec![false; self.values.len()];
        for g in self.views.iter().flat_map(|(_, groups)| groups.values()) {
            for &s in &g.slots {
                if let Some(t) = taken.get_mut(s as usize) {
                    *t = true;
                }
            }
        }
        let mut slots: Vec<u32> = Vec::with_capacity(messages.len());
        // Groups written afresh: (key, group, where their outputs start in `slots`, values).
        let mut fresh: Vec<(String, Vec<Message>, usize, Vec<Value>)> = Vec::new();
        let mut kept: Vec<(String, Group)> = Vec::new();
        for (k, range) in groups(&prepared, format).into_iter().enumerate() {
            if let Some(o) = output_of.get_mut(range.clone()) {
                o.fill(slots.len());
            }
            let group = prepared.get(range).unwrap_or_default();
            let positional;
            let key = match group.first().and_then(|m| m.id.as_deref()) {
                Some(id) => id,
                None => {
                    positional = format!("#{k}");
                    &positional
                }
            };
            // A UIMessage without an id is given its output position: never reused.
            let known = last.remove_entry(key).filter(|(_, g)| {
                format != Format::Ui
                    && g.format == format
                    && g.slots.iter().all(|&s| taken.get(s as usize) == Some(&false))
                    && g.messages.len() == group.len()
                    && g.messages.iter().zip(group).all(|(a, b)| same_message(a, b))
            });
            match known {
                Some((key, g)) => {
                    for &s in &g.slots {
                        if let Some(t) = taken.get_mut(s as usize) {
                            *t = true;
                        }
                    }
                    slots.extend(&g.slots);
                    kept.push((key, g));
                }
                None => {
                    let mut values = encode_group(group, format);
                    keep_request_fields(&mut values, format);
                    fresh.push((key.to_string(), group.to_vec(), slots.len(), values));
                    // Placed once every kept slot is known: only then are the others free.
                    slots.resize(slots.len() + fresh.last().map_or(0, |f| f.3.len()), FRESH);
                }
            }
        }
        if format == Format::Ui {
            // A UIMessage needs an id: one the source had none for gets its position (`msg-3`),
            // as `encode_indexed` gives it.
            for (_, _, at, values) in &mut fresh {
                for (k, v) in values.iter_mut().enumerate() {
                    if let Some(o) = v.as_object_mut().filter(|o| !o.contains_key("id")) {
                        o.insert("id".into(), Value::String(format!("msg-{}", *at + k)));
                    }
                }
            }
        }
        // Fresh values take the slots no kept group holds, then new ones; the values of the
        // slots no view uses are dropped, and so are this format's groups this view does not use.
        drop(last);
        let mut free = taken.iter().enumerate().filter(|(_, t)| !**t).map(|(s, _)| s).collect::<Vec<_>>().into_iter();
        let mut groups = FxHashMap::default();
        for (key, messages, at, values) in fresh {
            let mut group = Group { format, messages, slots: Vec::with_capacity(values.len()) };
            for (k, value) in values.into_iter().enumerate() {
                let slot = free.next().unwrap_or_else(|| {
                    self.values.push(None);
                    self.values.len() - 1
                });
                if let Some(v) = self.values.get_mut(slot) {
                    *v = Some(value);
                }
                let slot = u32::try_from(slot).unwrap_or(FRESH - 1);
                if let Some(s) = slots.get_mut(at + k) {
                    *s = slot | FRESH;
                }
                group.slots.push(slot);
            }
            groups.insert(key, group);
        }
        for slot in free {
            if let Some(v) = self.values.get_mut(slot) {
                *v = None;
            }
        }
        groups.extend(kept);
        self.views.push((format, groups));
        self.epoch = self.epoch.wrapping_add(1).max(1);
        (Delta { epoch: self.epoch, slots }, output_of)
    }

    /// The output message a slot holds.
    pub fn value(&self, slot: u32) -> Option<&Value> {
        self.values.get((slot & !FRESH) as usize).and_then(Option::as_ref)
    }

    /// The output messages of a view, in order.
    pub fn values<'a>(&'a self, delta: &'a Delta) -> impl Iterator<Item = &'a Value> + 'a {
        delta.slots.iter().filter_map(|&s| self.value(s))
    }
}

/// `a == b`, with a text content — most of a message's bytes — compared eight bytes at a time
/// (wasm's `memcmp` goes byte by byte). Every field is named, so a field added to [`Message`]
/// cannot be left out of the comparison.
fn same_message(a: &Message, b: &Message) -> bool {
    let Message {
        id,
        role,
        content,
        name,
        tool_calls,
        invalid_tool_calls,
        tool_call_id,
        status,
        approval,
        usage,
        origin,
        extra,
    } = a;
    let same_content = match (content, &b.content) {
        (Content::Text(x), Content::Text(y)) => same_bytes(x.as_bytes(), y.as_bytes()),
        (x, y) => x == y,
    };
    same_content
        && *id == b.id
        && *role == b.role
        && *name == b.name
        && *tool_calls == b.tool_calls
        && *invalid_tool_calls == b.invalid_tool_calls
        && *tool_call_id == b.tool_call_id
        && *status == b.status
        && *approval == b.approval
        && *usage == b.usage
        && *origin == b.origin
        && *extra == b.extra
}

/// `a == b`, eight bytes at a time.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let word = |c: &[u8]| <[u8; 8]>::try_from(c).map(u64::from_ne_bytes).ok();
    let (x, y) = (a.chunks_exact(8), b.chunks_exact(8));
    a.len() == b.len() && x.remainder() == y.remainder() && x.zip(y).all(|(p, q)| word(p) == word(q))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::formats::encode_indexed;
    use crate::message::Role;

    fn message(id: &str, role: Role, text: &str) -> Message {
        let mut m = Message::new(role, text);
        m.id = Some(id.to_string());
        m
    }

    /// The view the façade rebuilds from `delta`, keeping values by slot as it does.
    fn rebuild(kept: &mut Vec<Option<Value>>, cache: &ViewCache, delta: &Delta) -> Vec<Value> {
        delta
            .slots
            .iter()
            .map(|&s| {
                let at = (s & !FRESH) as usize;
                if kept.len() <= at {
                    kept.resize(at + 1, None);
                }
                if s & FRESH != 0 {
                    kept[at] = cache.value(s).cloned();
                }
                kept[at].clone().expect("a slot the façade was given")
            })
            .collect()
    }

    #[test]
    fn same_bytes_is_equality() {
        for (a, b) in [("", ""), ("a", "a"), ("12345678", "12345678"), ("123456789", "123456789")] {
            assert!(same_bytes(a.as_bytes(), b.as_bytes()));
        }
        for (a, b) in [("", "a"), ("12345678", "12345679"), ("123456789", "123456780"), ("x2345678y", "z2345678y")] {
            assert!(!same_bytes(a.as_bytes(), b.as_bytes()), "{a} {b}");
        }
    }

    #[test]
    fn views_rebuilt_from_slots_equal_views_encoded_whole() {
        let mut history: Vec<Message> = (0..6)
            .map(|i| {
                message(&format!("m{i}"), if i % 2 == 0 { Role::User } else { Role::Assistant }, &format!("text {i}"))
            })
            .collect();
        let mut cache = ViewCache::default();
        let mut kept = Vec::new();
        let mut epoch = 0;
        let mut next = history.len();
        for format in [Format::Openai, Format::Openai, Format::Anthropic, Format::Ui, Format::Ui, Format::Openai] {
            let (delta, output_of) = cache.write(epoch, &history, format);
            epoch = delta.epoch;
            let (whole, index) = encode_indexed(&history, format);
            let mut whole = whole;
            keep_request_fields(&mut whole, format);
            assert_eq!(rebuild(&mut kept, &cache, &delta), whole, "{format:?}");
            assert_eq!(output_of, index);
            // One append and one change in place: only those two are sent again.
            let role = if next % 2 == 0 { Role::User } else { Role::Assistant };
            history.push(message(&format!("m{next}"), role, &format!("appended {next}")));
            next += 1;
            history[2].content = Content::Text(format!("changed {next}"));
            let (delta, _) = cache.write(epoch, &history, format);
            epoch = delta.epoch;
            let fresh = delta.slots.iter().filter(|&&s| s & FRESH != 0).count();
            let mut whole = encode_indexed(&history, format).0;
            keep_request_fields(&mut whole, format);
            assert_eq!(rebuild(&mut kept, &cache, &delta), whole, "{format:?}");
            assert_eq!(fresh, if format == Format::Ui { whole.len() } else { 2 }, "{format:?}");
            history.remove(0);
        }
    }

    #[test]
    fn another_epoch_sends_the_whole_view() {
        let history = vec![message("a", Role::User, "hi"), message("b", Role::Assistant, "hello")];
        let mut cache = ViewCache::default();
        let (first, _) = cache.write(0, &history, Format::Openai);
        let (again, _) = cache.write(first.epoch, &history, Format::Openai);
        assert_eq!(again.slots, vec![0, 1], "nothing sent again");
        let (lost, _) = cache.write(first.epoch, &history, Format::Openai);
        assert!(lost.slots.iter().all(|s| s & FRESH != 0), "a stale epoch gets every message: {:?}", lost.slots);
        assert_eq!(cache.values.iter().flatten().count(), 2, "one view is kept");
    }

    #[test]
    fn views_that_take_turns_between_formats_each_reuse_their_own() {
        let mut history = vec![message("a", Role::User, "hi"), message("b", Role::Assistant, "hello")];
        let mut cache = ViewCache::default();
        let mut kept = Vec::new();
        let mut epoch = 0;
        let formats = [Format::Openai, Format::Anthropic, Format::Gemini];
        for round in 0..3 {
            for format in formats {
                let (delta, _) = cache.write(epoch, &history, format);
                epoch = delta.epoch;
                let mut whole = encode_indexed(&history, format).0;
                keep_request_fields(&mut whole, format);
                assert_eq!(rebuild(&mut kept, &cache, &delta), whole, "round {round}, {format:?}");
                let fresh = delta.slots.iter().filter(|&&s| s & FRESH != 0).count();
                // The first round writes everything; later ones only the message appended since.
                assert_eq!(fresh, if round == 0 { whole.len() } else { 1 }, "round {round}, {format:?}");
            }
            history.push(message(&format!("n{round}"), Role::User, "more"));
        }
        // Three views are kept, one per format, and no slot is held twice.
        assert_eq!(cache.views.len(), 3);
        let mut held: Vec<u32> =
            cache.views.iter().flat_map(|(_, g)| g.values().flat_map(|g| g.slots.clone())).collect();
        let n = held.len();
        held.sort_unstable();
        held.dedup();
        assert_eq!(held.len(), n);
        assert_eq!(cache.values.iter().flatten().count(), n, "the values are exactly the held slots'");
    }
}
