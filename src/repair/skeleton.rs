//! The skeleton of a message history: per message only what validation and repair read (role,
//! format, call ids and names, the id a result answers, emptiness), built by the JS façade in one
//! pass over the caller's objects and read here without decoding a message (BOUNDARY.md: untouched
//! messages are never converted).
//!
//! It covers only messages whose reading is certain: LangChain dicts (`type: "human" | "ai" |
//! "tool" | "system"`) and OpenAI Chat messages (`role`), with string, `null` or absent content and
//! nothing another format could claim. The builder leaves out anything else, so every other input
//! takes the full path (decode, then [`super::shapes_of`]); [`shapes`] gives the very shapes the
//! full path would, or `None` when it cannot be sure. It never errs: every refusal is the full
//! path's.
//!
//! Layout: `meta` holds, per message, a header word `format | role << 1 | status << 3 | content << 5 |
//! placeholder << 7 | calls << 8`, then the length + 1 of the id the result answers (0: none),
//! then (placeholder) the length of the content, then per call its kind ([`CALL_VALID`],
//! [`CALL_INVALID`], [`CALL_ARGS_TEXT`]), the lengths of its id and name and, for
//! [`CALL_ARGS_TEXT`], of its arguments. `text` is those strings, in that order, as UTF-8 (lone
//! surrogates as U+FFFD, as the full path reads them); lengths are in bytes of `text`, so each
//! string is a slice of it, borrowed, never copied. A result's call id and a call's tool name
//! may instead be a reference, [`REF`] `| slot`, to a string written before: both sides keep the
//! last [`ID_RING`] call ids and the last [`NAME_RING`] distinct tool names written in rings (a
//! call id goes to slot `i % ID_RING` for the `i`-th call; a name not found in its ring goes to
//! the next slot of that ring), so a result is not written twice and a tool's name once per run
//! of calls.

use super::shape::{is_placeholder, CallShape, Shape, Shapes, ToolContent};
use crate::message::formats::Format;
use crate::message::Role;

/// A call read as valid (LangChain `tool_calls`, or an OpenAI message's `{id, name, args}`).
pub const CALL_VALID: u32 = 0;
/// A LangChain `invalid_tool_calls` entry.
pub const CALL_INVALID: u32 = 1;
/// An OpenAI call whose `function.arguments` text decides whether it is valid (it parses as JSON).
pub const CALL_ARGS_TEXT: u32 = 2;
/// The flag of a string word that refers to a ring slot instead of giving a length.
pub const REF: u32 = 1 << 31;
/// How many recent call ids a result's reference reaches.
pub const ID_RING: usize = 8;
/// How many recent tool names a name's reference reaches.
pub const NAME_RING: usize = 4;

/// The strings a skeleton refers back to: the last call ids, the last distinct tool names.
struct Rings<'a> {
    ids: [Option<&'a str>; ID_RING],
    id_at: usize,
    names: [Option<&'a str>; NAME_RING],
    name_at: usize,
}

impl<'a> Rings<'a> {
    /// Reads a call id (always written out) and remembers it.
    fn call_id(&mut self, text: &'a str, pos: &mut usize, word: u32) -> Option<&'a str> {
        let id = take(text, pos, word as usize)?;
        *self.ids.get_mut(self.id_at)? = Some(id);
        self.id_at = (self.id_at + 1) % ID_RING;
        Some(id)
    }

    /// Reads a tool name: a reference to a remembered one, or written out (and remembered).
    fn name(&mut self, text: &'a str, pos: &mut usize, word: u32) -> Option<&'a str> {
        if word & REF != 0 {
            return *self.names.get((word & !REF) as usize)?;
        }
        let name = take(text, pos, word as usize)?;
        *self.names.get_mut(self.name_at)? = Some(name);
        self.name_at = (self.name_at + 1) % NAME_RING;
        Some(name)
    }

    /// Reads the call id a result answers: a reference to a remembered call id, or its length + 1
    /// and the text (`None` inside when it has none: the word is 0).
    fn result_id(&self, text: &'a str, pos: &mut usize, word: u32) -> Option<Option<&'a str>> {
        match word {
            0 => Some(None),
            w if w & REF != 0 => self.ids.get((w & !REF) as usize).copied().flatten().map(Some),
            w => take(text, pos, w as usize - 1).map(Some),
        }
    }
}

/// Reads `len` bytes of `text` from byte `*pos` (`None` past the end or off a character
/// boundary), moving `*pos` past them.
fn take<'a>(text: &'a str, pos: &mut usize, len: usize) -> Option<&'a str> {
    let end = pos.checked_add(len)?;
    let s = text.get(*pos..end)?;
    *pos = end;
    Some(s)
}

/// Whether OpenAI arguments text makes a valid call, as `util::call_from_json_text` decides.
fn args_parse(text: &str) -> bool {
    crate::message::formats::util::args_from_json_text(text).is_ok()
}

/// The shapes of the messages `meta` and `text` describe, exactly as decoding the messages and
/// [`super::shapes_of`] would give them (ids and names borrowed from `text`); `None` when the
/// skeleton is not one the builder writes or a message needs the full path (a call id repeated
/// in one message, a result without the id of its call, a call from another role: the decoder's
/// errors).
pub fn shapes<'a>(meta: &[u32], text: &'a [u8]) -> Option<Shapes<'a>> {
    let text = std::str::from_utf8(text).ok()?;
    let mut words = meta.iter().copied();
    let mut pos = 0usize;
    // A message takes at least two words, a call at least three.
    let mut out = Shapes::with_capacity(meta.len() / 2, meta.len() / 3);
    let mut calls: Vec<CallShape<'a>> = Vec::new();
    let mut rings = Rings { ids: [None; ID_RING], id_at: 0, names: [None; NAME_RING], name_at: 0 };
    while let Some(head) = words.next() {
        let format = if head & 1 == 1 { Format::Langchain } else { Format::Openai };
        let role = match (head >> 1) & 3 {
            0 => Role::System,
            1 => Role::User,
            2 => Role::Assistant,
            _ => Role::Tool,
        };
        let status = (head >> 3) & 3;
        let content = (head >> 5) & 3;
        let placeholder = (head >> 7) & 1 == 1;
        let n_calls = (head >> 8) as usize;
        let tool_call_id = rings.result_id(text, &mut pos, words.next()?)?;
        let placeholder_text = if placeholder { Some(take(text, &mut pos, words.next()? as usize)?) } else { None };
        calls.clear();
        for _ in 0..n_calls {
            let kind = words.next()?;
            let id = rings.call_id(text, &mut pos, words.next()?)?;
            let name = rings.name(text, &mut pos, words.next()?)?;
            let is_valid = match kind {
                CALL_VALID => true,
                CALL_INVALID => false,
                CALL_ARGS_TEXT => args_parse(take(text, &mut pos, words.next()? as usize)?),
                _ => return None,
            };
            if is_valid && name.is_empty() {
                return None;
            }
            calls.push(CallShape { id, name, invalid: !is_valid, approval: None });
        }
        // The decoder's refusals: the full path names them.
        let repeated = if calls.len() <= 16 {
            calls.iter().enumerate().any(|(k, c)| calls.iter().take(k).any(|d| d.id == c.id))
        } else {
            let mut seen = rustc_hash::FxHashSet::default();
            !calls.iter().all(|c| seen.insert(c.id))
        };
        if repeated
            || (role != Role::Assistant && !calls.is_empty())
            || (role == Role::Tool && tool_call_id.is_none_or(str::is_empty))
            || (role != Role::Tool && tool_call_id.is_some())
            || status > 2
        {
            return None;
        }
        let empty = content != 3;
        let synthetic = role == Role::Tool
            && status != 1
            && matches!((placeholder_text, tool_call_id), (Some(t), Some(id)) if is_placeholder(t, id));
        let shape = Shape {
            source: out.len(),
            part: 0,
            format,
            role,
            calls_at: 0,
            n_calls: 0,
            tool_call_id,
            empty_text_part: false,
            empty,
            foreign_only: false,
            nothing_for_anthropic: empty,
            tool_content: ToolContent::Text,
            error: status == 2,
            synthetic,
            aside: false,
        };
        out.push(shape, calls.iter().copied());
    }
    (pos == text.len()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_reads_bytes_on_character_boundaries() {
        let t = "ab😀é-";
        let mut pos = 0;
        assert_eq!(take(t, &mut pos, 2), Some("ab"));
        assert_eq!(take(t, &mut pos, 4), Some("😀"));
        assert_eq!(take(t, &mut pos, 2), Some("é"));
        assert_eq!(take(t, &mut pos, 1), Some("-"));
        assert_eq!(take(t, &mut pos, 1), None);
        assert_eq!(pos, t.len());
        // Inside a character is not a boundary, and nothing moves.
        let mut pos = 2;
        assert_eq!(take(t, &mut pos, 1), None);
        assert_eq!(pos, 2);
        assert_eq!(take(t, &mut pos, usize::MAX), None);
    }

    #[test]
    fn references_read_the_strings_written_before() {
        // An assistant message (LangChain) calling t twice, a result for its second call by
        // reference, one written out; then a reference to an empty slot.
        let ai = 1 | 2 << 1 | 2 << 8;
        let tool = 1 | 3 << 1;
        let meta = [ai, 0, CALL_VALID, 2, 1, CALL_VALID, 2, REF, tool, REF | 1, tool, 3];
        let read = shapes(&meta, b"c1tc2zz").expect("a well-formed skeleton");
        let calls: Vec<(&str, &str)> = read.all_calls().iter().map(|c| (c.id, c.name)).collect();
        assert_eq!(calls, [("c1", "t"), ("c2", "t")]);
        assert_eq!(read.iter().map(|s| s.tool_call_id).collect::<Vec<_>>(), [None, Some("c2"), Some("zz")]);
        assert_eq!(shapes(&[tool, REF | 2], b""), None, "no call id remembered in slot 2");
        assert_eq!(shapes(&[ai, 0, CALL_VALID, 2, REF | 1], b"c1"), None, "no name in slot 1");
    }

    #[test]
    fn malformed_skeletons_are_none_never_a_panic() {
        assert_eq!(shapes(&[], b""), Some(Shapes::default()));
        assert_eq!(shapes(&[0], b""), None);
        assert_eq!(shapes(&[2 << 1 | 1 << 8, 0], b""), None);
        assert_eq!(shapes(&[2 << 1 | 1 << 8, 0, 7, 1, 1], b"ab"), None);
        assert_eq!(shapes(&[3 << 1, 0], b""), None, "a result needs its call id");
        assert!(shapes(&[3 << 1, 3], b"xy").is_some_and(|s| s.len() == 1));
        assert_eq!(shapes(&[1 << 1, 3], b"xy"), None, "only a tool result answers a call");
        assert_eq!(shapes(&[3 << 1, 3], b"xyz"), None, "text left over");
        assert_eq!(shapes(&[1 << 1, 0], &[0xff]), None, "not UTF-8");
        assert_eq!(shapes(&[1 << 1 | 3 << 3, 0], b""), None);
        assert_eq!(shapes(&[u32::MAX, u32::MAX], b""), None);
    }
}
