//! The structure of a message that validation and repair need, and nothing else.
//!
//! Validation and repair read only roles, call ids, result ids and a few content flags, so they
//! run on [`Shape`]s, built from decoded canonical messages ([`Shape::of`], [`shapes_of`]). There
//! is one reading of every format (`message::formats`); the one other source of shapes is a
//! history's skeleton ([`super::skeleton`]), which covers only messages whose reading is certain
//! and gives exactly these shapes (tests/js/skeleton.test.mjs checks it against this path).

use crate::message::formats::{util::content_as_string, Format};
use crate::message::{Content, ContentPart, Message, Role, ToolStatus};

/// One tool call as validation sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallShape {
    /// The call id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments did not parse (an invalid tool call).
    pub invalid: bool,
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

/// The structure of one canonical message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// Index of the caller's input message this came from.
    pub source: usize,
    /// Position among the canonical messages decoded from that input message.
    pub part: usize,
    /// The format of the input message.
    pub format: Format,
    /// The role.
    pub role: Role,
    /// Calls made (valid, then invalid), for an assistant message.
    pub calls: Vec<CallShape>,
    /// For a tool result, the call it answers.
    pub tool_call_id: Option<String>,
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

impl Shape {
    /// Whether the message carries nothing once written into `provider`'s request: empty, or only
    /// blocks that are kept for their own format and this is another one.
    pub fn empty_for(&self, provider: super::Provider) -> bool {
        self.empty
            || (self.foreign_only && !provider.takes(self.format))
            || (provider == super::Provider::Anthropic && self.nothing_for_anthropic)
    }
}

pub use crate::message::is_placeholder;

impl Shape {
    /// The shape of a canonical message that came from input message `source`.
    pub fn of(m: &Message, source: usize, part: usize, format: Format) -> Shape {
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
        Shape {
            aside: m.is_aside(),
            source,
            part,
            format,
            role: m.role,
            calls: m
                .tool_calls
                .iter()
                .map(|c| CallShape { id: c.id.clone(), name: c.name.clone(), invalid: false })
                .chain(m.invalid_tool_calls.iter().map(|c| CallShape {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    invalid: true,
                }))
                .collect(),
            tool_call_id: m.tool_call_id.clone(),
            empty_text_part,
            empty,
            foreign_only,
            nothing_for_anthropic,
            tool_content,
            error: m.status == Some(ToolStatus::Error),
            synthetic,
        }
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
pub fn shapes_of(messages: &[Message], source: &[usize], formats: &[Format]) -> Vec<Shape> {
    let mut part = 0;
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let src = source.get(i).copied().unwrap_or(i);
            if i > 0 && source.get(i - 1) == Some(&src) {
                part += 1;
            } else {
                part = 0;
            }
            Shape::of(m, src, part, formats.get(src).copied().unwrap_or(Format::Openai))
        })
        .collect()
}
