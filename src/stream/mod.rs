//! Stream readers: streamed chunks in, canonical [`Message`]s out (DESIGN §2: real runs as input).
//!
//! Two stream formats, one file each:
//!
//! | format | chunks | assembled as |
//! |---|---|---|
//! | [`StreamFormat::UiStream`] | AI SDK 6 `UIMessageChunk` objects (`{type: "text-delta", id, delta}`, …) | the `UIMessage`s the AI SDK's own `readUIMessageStream` builds, then decoded as the `"ui"` format |
//! | [`StreamFormat::LanggraphMessages`] | LangGraph `streamMode: "messages"` items: `[namespace, [chunk, metadata]]` or `[chunk, metadata]` | LangChain messages, chunks of one message id concatenated as `AIMessageChunk.concat` does, then decoded as the `"langchain"` format |
//!
//! [`StreamReader`] is incremental (`push` one chunk, `messages` so far, `end` for the final
//! messages and a [`StreamReport`]); [`read_stream`] reads a whole recording. The result never
//! depends on where a stream was cut into chunks (text and argument deltas are concatenated
//! before anything is parsed).
//!
//! Refuse, never guess: an unknown chunk type, a delta for a part never started, a chunk of the
//! other stream format, a chunk of the wrong shape are `INVALID_MESSAGE` with the chunk's
//! position in `details.index`. A refused chunk stops the reader: later `push` and `end` calls
//! repeat that error, while `messages` still answers what was assembled before it. A stream
//! whose chunks add up to more than [`MAX_STREAM_CHARS`] characters of JSON, or with an id over
//! [`MAX_ID_CHARS`], is `TOO_LARGE`.

mod langgraph;
#[cfg(test)]
mod tests;
mod ui_stream;

use crate::error::{Error, ErrorCode, Result};
use crate::message::formats::MAX_ID_CHARS;
use crate::message::{Message, Role};
use crate::repair::Reason;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// The most JSON text a stream may add up to, in characters (bytes of UTF-8): the same 32 Mi the
/// JS boundary accepts for one input (`MAX_INPUT_CHARS`), so a stream fed chunk by chunk is held
/// to the limit the whole recording would be.
pub const MAX_STREAM_CHARS: usize = 32 * 1024 * 1024;

/// A stream format. In JS: `"ui-stream" | "langgraph-messages"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum StreamFormat {
    /// AI SDK 6 `UIMessageChunk`s (`toUIMessageStream()`, `createUIMessageStream`): `start`,
    /// `start-step` / `finish-step`, `text-*`, `reasoning-*`, `tool-*`, sources, `file`,
    /// `data-*`, `message-metadata`, `error`, `abort`, `finish`. Assembled as `readUIMessageStream`
    /// (ai 6.0) does.
    UiStream,
    /// LangGraph `streamMode: "messages"` items, `[namespace: string[], [chunk, metadata]]` or
    /// `[chunk, metadata]`, each chunk an lc-serialized (`{lc: 1, type: "constructor", id, kwargs}`)
    /// or plain LangChain message or message chunk.
    LanggraphMessages,
}

impl StreamFormat {
    /// The format's name as in options (`"ui-stream"`).
    pub fn as_str(self) -> &'static str {
        match self {
            StreamFormat::UiStream => "ui-stream",
            StreamFormat::LanggraphMessages => "langgraph-messages",
        }
    }

    /// Parses a stream format name; `INVALID_OPTION` for anything else.
    pub fn parse(name: &str) -> Result<StreamFormat> {
        [StreamFormat::UiStream, StreamFormat::LanggraphMessages].into_iter().find(|f| f.as_str() == name).ok_or_else(
            || {
                Error::new(
                    ErrorCode::InvalidOption,
                    format!("unknown stream format {name:?}; use \"ui-stream\" or \"langgraph-messages\""),
                )
            },
        )
    }
}

/// How a stream ended. In JS: `"finish" | "abort" | "error" | "cut" | "unmarked"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum StreamEnd {
    /// The last chunk is a `finish` chunk (ui-stream).
    Finish,
    /// The last chunk is an `abort` chunk (ui-stream): the run was stopped.
    Abort,
    /// The last chunk is an `error` chunk (ui-stream); `errorText` holds its text.
    Error,
    /// The stream stopped without a closing chunk (ui-stream): cut off, possibly mid-message.
    Cut,
    /// The format has no closing chunk (langgraph-messages): whether the run finished is not
    /// recorded in the stream.
    Unmarked,
}

/// A tool call the stream left without a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct UnansweredCall {
    /// The call id (what `repairMessages`' `reasons` is keyed by).
    pub id: String,
    /// The tool's name (empty for an invalid call without one).
    pub name: String,
    /// The id of the canonical message making the call, when it has one (a UIMessage's later
    /// steps are `<id>#<step>`, as the `"ui"` format decodes them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
}

/// A tool approval the stream asked for and never saw answered (ui-stream
/// `tool-approval-request`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct PendingApproval {
    /// The approval id (`approvalId`).
    pub approval_id: String,
    /// The call awaiting approval.
    pub tool_call_id: String,
    /// The tool's name.
    pub name: String,
    /// The UIMessage holding the call, when it has an id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
}

/// What a stream left open, from [`StreamReader::end`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct StreamReport {
    /// The stream's format.
    pub format: StreamFormat,
    /// How many chunks were read.
    pub chunks: usize,
    /// How the stream ended.
    pub end: StreamEnd,
    /// The `finish` chunk's `finishReason`, when it gave one (ui-stream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The last `error` chunk's `errorText` (ui-stream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_text: Option<String>,
    /// Calls without a result, in stream order (pending approvals among them).
    pub dangling: Vec<UnansweredCall>,
    /// Approvals asked for and not answered.
    pub pending_approvals: Vec<PendingApproval>,
    /// Parts still streaming when the stream stopped: text and reasoning part ids without their
    /// `*-end`, and the call ids of tool inputs that never completed (ui-stream; those are no
    /// calls yet, as the AI SDK's `convertToModelMessages` skips them).
    pub open_parts: Vec<String>,
    /// `{call id: "interrupted"}` for every dangling call but those waiting for their approval:
    /// pass it as `repairMessages`' `reasons` option to answer them.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, Reason>"))]
    pub reasons: BTreeMap<String, Reason>,
}

/// The final messages of a stream and its report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamRead {
    /// The canonical messages, in stream order.
    pub messages: Vec<Message>,
    /// What the stream left open.
    pub report: StreamReport,
}

/// The format-specific assembly state.
#[derive(Debug, Clone)]
enum Inner {
    Ui(Box<ui_stream::UiStream>),
    Langgraph(langgraph::LanggraphStream),
}

/// An incremental stream reader: [`push`](Self::push) chunks as they arrive, read
/// [`messages`](Self::messages) at any time, [`end`](Self::end) for the final messages and the
/// report. See the module docs for the formats and the errors.
#[derive(Debug, Clone)]
pub struct StreamReader {
    format: StreamFormat,
    chunks: usize,
    chars: usize,
    refused: Option<Error>,
    inner: Inner,
}

/// The length of a value's JSON text, without building it.
fn json_len(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// `INVALID_MESSAGE` for a chunk (the reader adds its index).
pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidMessage, message)
}

/// An id checked against [`MAX_ID_CHARS`]: `TOO_LARGE` when longer.
pub(crate) fn check_id(id: &str, what: &str) -> Result<()> {
    if id.len() > MAX_ID_CHARS && id.chars().count() > MAX_ID_CHARS {
        return Err(Error::new(ErrorCode::TooLarge, format!("{what} is longer than {MAX_ID_CHARS} characters")));
    }
    Ok(())
}

impl StreamReader {
    /// A reader for `format`, with nothing read yet.
    pub fn new(format: StreamFormat) -> StreamReader {
        let inner = match format {
            StreamFormat::UiStream => Inner::Ui(Box::default()),
            StreamFormat::LanggraphMessages => Inner::Langgraph(langgraph::LanggraphStream::default()),
        };
        StreamReader { format, chunks: 0, chars: 0, refused: None, inner }
    }

    /// The reader's format.
    pub fn format(&self) -> StreamFormat {
        self.format
    }

    /// Reads one chunk.
    ///
    /// Errors (with `index` = the chunk's position): `INVALID_MESSAGE` for a chunk that is not of
    /// this format (unknown type, a delta or result for a part or call never started, the other
    /// format's shape); `TOO_LARGE` past [`MAX_STREAM_CHARS`] or for an id over `MAX_ID_CHARS`;
    /// after a refused chunk, that error again.
    pub fn push(&mut self, chunk: &Value) -> Result<()> {
        if let Some(e) = &self.refused {
            return Err(e.clone());
        }
        let index = self.chunks;
        self.chunks += 1;
        let result = self.read(chunk);
        result.map_err(|e| {
            let e = e.at(index);
            self.refused = Some(e.clone());
            e
        })
    }

    fn read(&mut self, chunk: &Value) -> Result<()> {
        self.chars = self.chars.saturating_add(json_len(chunk));
        if self.chars > MAX_STREAM_CHARS {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!("the stream is over {MAX_STREAM_CHARS} characters of JSON"),
            ));
        }
        match &mut self.inner {
            Inner::Ui(s) => s.push(chunk),
            Inner::Langgraph(s) => s.push(chunk),
        }
    }

    /// The messages assembled so far (parts still streaming included as the format shows them).
    ///
    /// Errors: the message decoding errors of `decode_messages` on the assembled messages
    /// (`INVALID_MESSAGE`, `INVALID_TOOL_CALL`, …), with `index` = the chunk that began the
    /// offending message.
    pub fn messages(&self) -> Result<Vec<Message>> {
        match &self.inner {
            Inner::Ui(s) => s.messages(),
            Inner::Langgraph(s) => s.messages(),
        }
    }

    /// The final messages and the report. Errors: a refused chunk's error; as
    /// [`messages`](Self::messages).
    pub fn end(self) -> Result<StreamRead> {
        if let Some(e) = self.refused {
            return Err(e);
        }
        let messages = self.messages()?;
        let mut report = StreamReport {
            format: self.format,
            chunks: self.chunks,
            end: StreamEnd::Unmarked,
            finish_reason: None,
            error_text: None,
            dangling: dangling(&messages),
            pending_approvals: Vec::new(),
            open_parts: Vec::new(),
            reasons: BTreeMap::new(),
        };
        match &self.inner {
            Inner::Ui(s) => s.report(&mut report),
            Inner::Langgraph(_) => {}
        }
        // A call waiting for its approval was not interrupted: the run is paused on it (repair
        // leaves it alone), so it gets no reason.
        let waiting = |id: &str| report.pending_approvals.iter().any(|a| a.tool_call_id == id);
        report.reasons =
            report.dangling.iter().filter(|d| !waiting(&d.id)).map(|d| (d.id.clone(), Reason::Interrupted)).collect();
        Ok(StreamRead { messages, report })
    }
}

/// Reads a whole recorded stream: every chunk through [`StreamReader::push`], then `end`.
pub fn read_stream(chunks: &[Value], format: StreamFormat) -> Result<StreamRead> {
    let mut r = StreamReader::new(format);
    for c in chunks {
        r.push(c)?;
    }
    r.end()
}

/// Calls (valid and invalid) of assistant messages that no tool message answers, in order.
fn dangling(messages: &[Message]) -> Vec<UnansweredCall> {
    let answered: HashSet<&str> = messages.iter().filter_map(|m| m.tool_call_id.as_deref()).collect();
    messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| {
            let valid = m.tool_calls.iter().map(|c| (c.id.as_str(), c.name.as_str()));
            let invalid = m.invalid_tool_calls.iter().map(|c| (c.id.as_str(), c.name.as_str()));
            valid.chain(invalid).filter(|(id, _)| !answered.contains(id)).map(|(id, name)| UnansweredCall {
                id: id.to_string(),
                name: name.to_string(),
                message_id: m.id.clone(),
            })
        })
        .collect()
}

/// Whether `items` (a parsed JSON array) looks like a recorded stream, and which: a list of
/// objects whose `type`s are all UIMessageChunk types, starting with `start`; or a list of
/// LangGraph `[namespace, [chunk, metadata]]` / `[chunk, metadata]` items.
pub fn detect_stream(items: &[Value]) -> Option<StreamFormat> {
    let first = items.first()?;
    if first.get("type").and_then(Value::as_str) == Some("start")
        && items.iter().all(|c| c.get("type").and_then(Value::as_str).is_some_and(ui_stream::is_chunk_type))
    {
        return Some(StreamFormat::UiStream);
    }
    if items.iter().all(langgraph::is_item) {
        return Some(StreamFormat::LanggraphMessages);
    }
    None
}
