//! The canonical message model (DESIGN §2).
//!
//! One [`Message`] is one turn in the shape every provider format can be mapped onto:
//! a role, content (text or parts), the tool calls an assistant made, and for a tool result the id
//! of the call it answers. Fields a format has that we do not model are kept verbatim in
//! [`Message::extra`], so decoding a message and encoding it back to the same format loses nothing.
//!
//! Provider formats (LangChain, OpenAI Chat, Anthropic, AI SDK ModelMessage and UIMessage, Gemini, OpenAI Responses items,
//! OpenAI Agents SDK items) live in [`formats`].

pub mod approvals;
mod content_de;
pub mod formats;
pub mod units;
pub mod usage;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// Who speaks in a turn. LangChain's `human` / `ai`, Gemini's `model` and OpenAI's `developer`
/// map onto these four.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions to the model.
    System,
    /// The human (or an injected notification).
    User,
    /// The model; may carry tool calls.
    Assistant,
    /// The result of one tool call (`tool_call_id` says which).
    Tool,
}

/// Outcome of a tool call, as LangChain's `ToolMessage.status` / Anthropic's `is_error` /
/// AI SDK's `error-text` output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    /// The tool ran and returned this content.
    Success,
    /// The tool failed, was rejected, interrupted, or never ran; the content says why.
    Error,
}

/// A message's content.
///
/// `Absent` and `Null` both mean "no content"; they are kept apart only so that a message with
/// `content: null` (OpenAI assistant turns with tool calls) and one without a `content` key
/// round-trip exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(untagged)]
// Deserialize: by hand, in `content_de.rs` (no intermediate copy).
pub enum Content {
    /// Plain text.
    Text(String),
    /// A list of parts (text, images, reasoning, …), in order.
    Parts(Vec<ContentPart>),
    /// `content: null`.
    Null,
    /// No `content` field at all.
    #[default]
    #[serde(skip)]
    Absent,
}

impl Content {
    /// True when the content carries nothing: absent, null, `""`, or no parts.
    pub fn is_empty(&self) -> bool {
        match self {
            Content::Text(t) => t.is_empty(),
            Content::Parts(p) => p.is_empty(),
            Content::Null | Content::Absent => true,
        }
    }

    /// The concatenated text of all text parts (LangChain's `.text`), without reasoning.
    pub fn text(&self) -> String {
        match self {
            Content::Text(t) => t.clone(),
            Content::Parts(parts) => parts
                .iter()
                .filter_map(|p| match p {
                    ContentPart::Text { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect(),
            Content::Null | Content::Absent => String::new(),
        }
    }
}

/// True when `text` is a repair placeholder for call `id` — ours ("Tool call NAME with id ID
/// did not complete …", "… was interrupted …") or deepagents' PatchToolCalls ("Tool call NAME
/// with id ID was cancelled …"): the result of a call that never completed.
pub fn is_placeholder(text: &str, id: &str) -> bool {
    text.starts_with("Tool call ") && text.contains(&format!(" with id {id} "))
}

/// One part of a message's content.
///
/// Known part kinds are modelled so they can move between formats; anything else is kept as the
/// raw JSON block it came in (`Other`) and is only emitted back to the format it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(tag = "type", rename_all = "lowercase")]
// Deserialize: by hand, in `content_de.rs` (no intermediate copy).
pub enum ContentPart {
    /// Text. `extra` keeps fields such as Anthropic `cache_control` or `citations`.
    Text {
        /// The text; may be empty (providers that refuse empty text blocks flag it in validation).
        text: String,
        /// Unmodelled fields of the block, verbatim.
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>", optional))]
        extra: Map<String, Value>,
    },
    /// An image by URL (`http(s):` or `data:`) or inline base64 data with a media type.
    Image {
        /// URL of the image, when given by reference.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
        /// Base64 data, when inline.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<String>,
        /// MIME type, e.g. `image/png`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        media_type: Option<String>,
        /// Unmodelled fields of the block, verbatim.
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>", optional))]
        extra: Map<String, Value>,
    },
    /// A file that is not read as an image — a PDF, a text file, audio, … (OpenAI `file`,
    /// Anthropic `document`, AI SDK and UIMessage `file`, Gemini `inlineData` / `fileData` of a
    /// non-image type, Responses and Agents `input_file`, LangChain `file`): by URL (`http(s):`
    /// or `data:`), inline base64 data, or a provider's file id. A format that cannot carry a
    /// file (or this file's source or type) gets a text part naming it instead: never dropped
    /// silently (docs/formats.md, "Files").
    File {
        /// URL of the file (`http(s):` or a `data:` URL).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        url: Option<String>,
        /// Base64 data, when inline.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<String>,
        /// A provider's id of an uploaded file (OpenAI `file_id`, Anthropic `file_id`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file_id: Option<String>,
        /// MIME type, e.g. `application/pdf`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        media_type: Option<String>,
        /// The file's name, e.g. `report.pdf`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filename: Option<String>,
        /// Unmodelled fields of the block, verbatim.
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>", optional))]
        extra: Map<String, Value>,
    },
    /// Model reasoning (Anthropic `thinking`, AI SDK `reasoning`, Gemini `thought: true`).
    Reasoning {
        /// The reasoning text.
        text: String,
        /// Unmodelled fields (e.g. Anthropic's `signature`), verbatim.
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>", optional))]
        extra: Map<String, Value>,
    },
    /// Any other block, kept exactly as received (audio, provider tools, …), written back only to
    /// the format it came from.
    Other {
        /// The raw block in the format it came from.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "unknown"))]
        raw: Value,
    },
}

impl ContentPart {
    /// A text part with no extra fields.
    pub fn text(text: impl Into<String>) -> Self {
        ContentPart::Text { text: text.into(), extra: Map::new() }
    }
}

/// A tool call made by the model, with parsed arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct ToolCall {
    /// The call id (OpenAI `call_…`, Anthropic `toolu_…`, …). Results point back to it.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as JSON (an object for every provider we know).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "unknown"))]
    pub args: Value,
    /// The arguments exactly as the provider sent them, when they came as a JSON string
    /// (OpenAI `function.arguments`); re-emitted verbatim while `args` is unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_args: Option<String>,
    /// Unmodelled fields of the call, verbatim.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>", optional))]
    pub extra: Map<String, Value>,
    /// The human approval this call waits for before it runs, when one was asked (an AI SDK
    /// `tool-approval-request` part, a UIMessage tool part's `approval`). The decision, when
    /// there is one, is a later message ([`Message::approval`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub approval: Option<ApprovalRequest>,
}

/// An approval asked for a tool call (human-in-the-loop): the call does not run until a decision
/// ([`ApprovalDecision`]) allows it. AI SDK 6: the `tool-approval-request` part `{approvalId,
/// toolCallId}` after the call; a UIMessage tool part's `approval: {id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct ApprovalRequest {
    /// The approval's id (AI SDK `approvalId`), which its decision names.
    pub id: String,
    /// Unmodelled fields of the request, verbatim (written back only to its own format).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>", optional))]
    pub extra: Map<String, Value>,
}

/// A decision on an approval: approved (the call may run) or denied (it never runs; its result is
/// the denial). Held by a tool message that is no result ([`Message::approval`]). AI SDK 6: the
/// `tool-approval-response` part `{approvalId, approved, reason?}` of a tool message; a UIMessage
/// tool part's `approval: {id, approved, reason?}` in state `approval-responded` or
/// `output-denied`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct ApprovalDecision {
    /// The id of the approval decided ([`ApprovalRequest::id`]).
    pub id: String,
    /// The call whose approval it decides, once known: a UIMessage part names it; an AI SDK
    /// response names only the approval, and the call is found from its request when the
    /// history holds it ([`approvals::link`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub tool_call_id: Option<String>,
    /// Whether the call may run.
    pub approved: bool,
    /// Why, as the person deciding gave it (a denial's reason is what the model is told).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub reason: Option<String>,
    /// Unmodelled fields of the decision, verbatim (an AI SDK `providerExecuted`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>", optional))]
    pub extra: Map<String, Value>,
}

/// A tool call whose arguments could not be parsed (LangChain `invalid_tool_calls`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct InvalidToolCall {
    /// The call id.
    pub id: String,
    /// The tool's name (empty when the model sent none).
    pub name: String,
    /// The raw argument text, e.g. `{bad`.
    pub args: String,
    /// Why parsing failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Unmodelled fields of the call, verbatim.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>", optional))]
    pub extra: Map<String, Value>,
}

/// One canonical message (DESIGN §2).
///
/// Serialised (serde, and in JS) with `snake_case` keys, `role` lowercase, empty lists and `None`
/// fields omitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct Message {
    /// Stable id, when the source had one (LangChain `id`, or a top-level `id` in other formats).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Who speaks.
    pub role: Role,
    /// Text or parts.
    #[serde(default, skip_serializing_if = "is_absent")]
    pub content: Content,
    /// Optional participant or tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Tool calls of an assistant message, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Tool calls whose arguments did not parse.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalid_tool_calls: Vec<InvalidToolCall>,
    /// For a tool result: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For a tool result: success or error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ToolStatus>,
    /// For a tool message that is an approval decision, not a result: the decision. Such a
    /// message has no `tool_call_id` (it answers no call: the call it decides is named in the
    /// decision), no `status` and no content. Written only to the AI SDK's formats; every other
    /// format sees the call's result, or the denial a repair gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalDecision>,
    /// The tokens the model call behind this (assistant) message used, read from its format's
    /// own usage fields ([`usage::usage_of`]) so they survive conversion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<usage::Usage>,
    /// The format this message was decoded from; `extra` is only emitted back into that format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<formats::Format>,
    /// Every top-level field the origin format has that we do not model, verbatim.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>", optional))]
    pub extra: Map<String, Value>,
}

fn is_absent(c: &Content) -> bool {
    matches!(c, Content::Absent)
}

impl Message {
    /// A message with the given role and text content, and nothing else.
    pub fn new(role: Role, text: impl Into<String>) -> Self {
        Message {
            id: None,
            role,
            content: Content::Text(text.into()),
            name: None,
            tool_calls: Vec::new(),
            invalid_tool_calls: Vec::new(),
            tool_call_id: None,
            status: None,
            approval: None,
            usage: None,
            origin: None,
            extra: Map::new(),
        }
    }

    /// A tool result answering `tool_call_id`.
    pub fn tool_result(tool_call_id: impl Into<String>, text: impl Into<String>, status: ToolStatus) -> Self {
        Message { tool_call_id: Some(tool_call_id.into()), status: Some(status), ..Message::new(Role::Tool, text) }
    }

    /// A message holding an approval decision ([`Message::approval`]).
    pub fn approval_decision(decision: ApprovalDecision) -> Self {
        let mut m = Message::new(Role::Tool, "");
        m.content = Content::Absent;
        m.approval = Some(decision);
        m
    }

    /// Whether this is an approval decision ([`Message::approval`]), a tool message that is no
    /// result: it answers no call, validation reads it only for its call's approval, repair
    /// leaves it where it is (after an assistant turn), and it is written only to the AI SDK's
    /// formats.
    pub fn is_aside(&self) -> bool {
        self.role == Role::Tool && self.approval.is_some()
    }

    /// Ids of every call this message makes, valid then invalid, in order.
    pub fn call_ids(&self) -> impl Iterator<Item = &str> {
        self.tool_calls.iter().map(|c| c.id.as_str()).chain(self.invalid_tool_calls.iter().map(|c| c.id.as_str()))
    }
}
