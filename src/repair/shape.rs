//! The structure of a message that validation and repair need, and nothing else.
//!
//! Validation and repair read only roles, call ids, result ids and a few content flags, so they
//! run on [`Shape`]s, built from decoded canonical messages ([`Shape::of`], [`shapes_of`]). There
//! is one reading of every format (`message::formats`); the one other source of shapes is a
//! history's skeleton ([`super::skeleton`]), which covers only messages whose reading is certain
//! and gives exactly these shapes (tests/js/skeleton.test.mjs checks it against this path).

use crate::message::approvals::{standings, CallApproval};
use crate::message::formats::{util::content_as_string, Format};
use crate::message::{Content, ContentPart, Message, Role, ToolStatus};

/// One tool call as validation sees it, borrowed from the message (or skeleton) it was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallShape<'a> {
    /// The call id.
    pub id: &'a str,
    /// The tool's name.
    pub name: &'a str,
    /// The arguments did not parse (an invalid tool call).
    pub invalid: bool,
    /// Its human approval, when it needs one: pending, approved or denied by a later decision
    /// ([`crate::message::approvals`]).
    pub approval: Option<CallApproval<'a>>,
}

/// What a tool result's content is made of (for providers that accept only text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolContent {
    /// A string (or no content).
    Text,
    /// A non-empty list of text parts only.
    TextParts,
    /// An empty list, `[]`.
    EmptyParts,
    /// Parts that are not text but can be written as JSON text (an object, unknown blocks).
    Json,
    /// Media (image, audio, file) that a text-only provider cannot take.
    Media,
}

/// The structure of one canonical message. Its calls are in the [`Shapes`] it belongs to
/// ([`Shapes::calls`]): one list for the whole history, indexed by position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape<'a> {
    /// Index of the caller's input message this came from.
    pub source: usize,
    /// Position among the canonical messages decoded from that input message.
    pub part: usize,
    /// The format of the input message.
    pub format: Format,
    /// The role.
    pub role: Role,
    /// Where its calls (valid, then invalid) start in [`Shapes`]' list of calls.
    pub calls_at: usize,
    /// How many calls it makes (an assistant message).
    pub n_calls: usize,
    /// For a tool result, the call it answers.
    pub tool_call_id: Option<&'a str>,
    /// Some text part is empty (`{type: "text", text: ""}`).
    pub empty_text_part: bool,
    /// The content carries nothing (absent, null, `""`, or only empty text parts).
    pub empty: bool,
    /// Its content, empty text aside, is only blocks stategate does not model (kept raw), which
    /// are written back only to the format they came from: in another provider's request the
    /// message carries nothing ([`Shape::empty_for`]).
    pub foreign_only: bool,
    /// Its content is only what an Anthropic request leaves out: empty text, another format's raw
    /// blocks, reasoning without an Anthropic signature.
    pub nothing_for_anthropic: bool,
    /// For a tool result: what its content is made of.
    pub tool_content: ToolContent,
    /// For a tool result: it reports an error.
    pub error: bool,
    /// For a tool result: it is a placeholder written by a repair (ours or deepagents'), recognised
    /// by its text `Tool call <name> with id <id> …`.
    pub synthetic: bool,
    /// Not a result at all: an AI SDK approval response ([`Message::is_aside`]). Validation skips
    /// it; repair keeps it where it is.
    pub aside: bool,
}

/// The shapes of a history, in order, with all their calls in one list (no allocation per
/// message; ids and names borrowed from where they were read). Derefs to the shapes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shapes<'a> {
    list: Vec<Shape<'a>>,
    calls: Vec<CallShape<'a>>,
}

impl<'a> Shapes<'a> {
    /// Room for `messages` shapes and `calls` calls.
    pub fn with_capacity(messages: usize, calls: usize) -> Self {
        Shapes { list: Vec::with_capacity(messages), calls: Vec::with_capacity(calls) }
    }

    /// Appends `shape` with `calls` (its `calls_at` and `n_calls` are set here); the invalid
    /// calls are put after the valid ones, each group in its order.
    pub fn push(&mut self, mut shape: Shape<'a>, calls: impl IntoIterator<Item = CallShape<'a>>) {
        shape.calls_at = self.calls.len();
        self.calls.extend(calls);
        let mine = self.calls.get_mut(shape.calls_at..).unwrap_or_default();
        shape.n_calls = mine.len();
        if mine.iter().any(|c| c.invalid) {
            crate::order::sort_stable_by_key(mine, |c| u64::from(c.invalid)); // valid ones first, in order
        }
        self.list.push(shape);
    }

    /// The calls `shape` makes (valid, then invalid).
    pub fn calls(&self, shape: &Shape) -> &[CallShape<'a>] {
        self.calls.get(shape.calls_at..shape.calls_at + shape.n_calls).unwrap_or_default()
    }

    /// All calls of the history, in order: call `k` of a shape is at `calls_at + k`.
    pub fn all_calls(&self) -> &[CallShape<'a>] {
        &self.calls
    }

    /// Sets each call's approval from the history it was read from (message `i` is shape `i`).
    pub fn set_approvals<M: std::borrow::Borrow<Message>>(&mut self, messages: &'a [M]) {
        for ((i, k), a) in standings(messages) {
            let at = self.list.get(i).map(|s| s.calls_at + k);
            if let Some(c) = at.and_then(|at| self.calls.get_mut(at)) {
                c.approval = Some(a);
            }
        }
    }

    /// The shapes of the history's last assistant turn (its messages, not its results), when the
    /// history ends with one and its results: where a call may wait for its approval. A run of
    /// assistant items of an item format is one turn ([`crate::message::formats::same_turn`]).
    pub fn last_turn(&self) -> Option<std::ops::Range<usize>> {
        let end = self.list.iter().rposition(|s| s.role != Role::Tool)?;
        let last = self.list.get(end).filter(|s| s.role == Role::Assistant)?;
        let mut start = end;
        let mut cur = last;
        while let Some(prev) = start.checked_sub(1).and_then(|p| self.list.get(p)) {
            if !crate::message::formats::same_turn((prev.role, Some(prev.format)), (cur.role, Some(cur.format))) {
                break;
            }
            start -= 1;
            cur = prev;
        }
        Some(start..end + 1)
    }

    /// The same history without the shapes `keep` refuses (their calls stay in the list,
    /// unreferenced).
    pub fn filtered(&self, keep: impl Fn(&Shape) -> bool) -> Shapes<'a> {
        Shapes { list: self.list.iter().filter(|s| keep(s)).cloned().collect(), calls: self.calls.clone() }
    }
}

impl<'s, 'a> IntoIterator for &'s Shapes<'a> {
    type Item = &'s Shape<'a>;
    type IntoIter = std::slice::Iter<'s, Shape<'a>>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl<'a> std::ops::Deref for Shapes<'a> {
    type Target = [Shape<'a>];
    fn deref(&self) -> &[Shape<'a>] {
        &self.list
    }
}

impl Shape<'_> {
    /// Whether the message carries nothing once written into `provider`'s request: empty, or only
    /// blocks that are kept for their own format and this is another one.
    pub fn empty_for(&self, provider: super::Provider) -> bool {
        self.empty
            || (self.foreign_only && !provider.takes(self.format))
            || (provider == super::Provider::Anthropic && self.nothing_for_anthropic)
    }
}

pub use crate::message::is_placeholder;

impl<'a> Shapes<'a> {
    /// Appends the shape of canonical message `m`, which came from input message `source`.
    pub fn push_message(&mut self, m: &'a Message, source: usize, part: usize, format: Format) {
        let empty_part = |p: &ContentPart| matches!(p, ContentPart::Text { text, .. } if text.is_empty());
        let (empty_text_part, empty, foreign_only) = match &m.content {
            Content::Parts(parts) => {
                let empty_text = parts.iter().any(empty_part);
                let all_empty = parts.iter().all(empty_part);
                // Blocks only the message's own format reads, which another format gets no note
                // for (`util::other_note`): nothing to send there.
                let unsent = |p: &ContentPart| matches!(p, ContentPart::Other { raw } if crate::message::formats::util::other_note(raw).is_none());
                let foreign = !all_empty && parts.iter().all(|p| empty_part(p) || unsent(p));
                (empty_text, all_empty, foreign)
            }
            c => (false, c.is_empty(), false),
        };
        let nothing_for_anthropic = match &m.content {
            Content::Parts(parts) => parts.iter().all(|p| match p {
                ContentPart::Text { text, .. } => text.is_empty(),
                ContentPart::Other { raw } => {
                    format != Format::Anthropic && crate::message::formats::util::other_note(raw).is_none()
                }
                ContentPart::Reasoning { extra, .. } => {
                    crate::message::formats::util::anthropic_signature(extra).is_none()
                }
                // Anthropic gets a document, an image or a text note naming the file.
                ContentPart::Image { .. } | ContentPart::File { .. } => false,
            }),
            c => c.is_empty(),
        };
        let tool_content = match &m.content {
            Content::Parts(p) if p.is_empty() => ToolContent::EmptyParts,
            Content::Parts(p) if p.iter().all(|p| matches!(p, ContentPart::Text { .. })) => ToolContent::TextParts,
            Content::Parts(p)
                if p.iter().any(|p| matches!(p, ContentPart::Image { .. } | ContentPart::File { .. }))
                    || p.iter().any(is_media) =>
            {
                ToolContent::Media
            }
            Content::Parts(_) => ToolContent::Json,
            _ => ToolContent::Text,
        };
        let synthetic = m.role == Role::Tool
            && m.status != Some(ToolStatus::Success)
            && m.tool_call_id.as_deref().is_some_and(|id| is_placeholder(&content_as_string(&m.content), id));
        let shape = Shape {
            aside: m.is_aside(),
            source,
            part,
            format,
            role: m.role,
            calls_at: 0,
            n_calls: 0,
            tool_call_id: m.tool_call_id.as_deref(),
            empty_text_part,
            empty,
            foreign_only,
            nothing_for_anthropic,
            tool_content,
            error: m.status == Some(ToolStatus::Error),
            synthetic,
        };
        let valid = m.tool_calls.iter().map(|c| CallShape { id: &c.id, name: &c.name, invalid: false, approval: None });
        let invalid =
            m.invalid_tool_calls.iter().map(|c| CallShape { id: &c.id, name: &c.name, invalid: true, approval: None });
        self.push(shape, valid.chain(invalid));
    }
}

/// Raw blocks that carry media: any `type` naming an image, audio, file or document.
fn is_media(p: &ContentPart) -> bool {
    match p {
        ContentPart::Other { raw } => raw.get("type").and_then(|t| t.as_str()).is_some_and(|t| {
            ["image", "audio", "file", "document", "media", "input_audio"].iter().any(|k| t.contains(k))
        }),
        _ => false,
    }
}

/// Shapes of decoded messages (see [`crate::message::formats::decode_messages`]).
pub fn shapes_of<'a>(messages: &'a [Message], source: &[usize], formats: &[Format]) -> Shapes<'a> {
    let n_calls = messages.iter().map(|m| m.tool_calls.len() + m.invalid_tool_calls.len()).sum();
    let mut out = Shapes::with_capacity(messages.len(), n_calls);
    let mut part = 0;
    for (i, m) in messages.iter().enumerate() {
        let src = source.get(i).copied().unwrap_or(i);
        if i > 0 && source.get(i - 1) == Some(&src) {
            part += 1;
        } else {
            part = 0;
        }
        out.push_message(m, src, part, formats.get(src).copied().unwrap_or(Format::Openai));
    }
    out.set_approvals(messages);
    out
}
