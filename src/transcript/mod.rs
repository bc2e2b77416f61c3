//! Readers for recorded agent transcripts (DESIGN §2: real runs as test input and as user input).
//!
//! A transcript file is read into one or more runs of canonical [`Message`]s:
//!
//! | kind | file shape | runs |
//! |---|---|---|
//! | [`TranscriptKind::OpenaiChat`] | JSON array of messages (or JSONL, one message a line) in any format [`decode_messages`] accepts | 1 |
//! | [`TranscriptKind::SweAgent`] | SWE-agent `.traj`: JSON object with a `history` list | 1 |
//! | [`TranscriptKind::TauBench`] | tau-bench results: JSON array of runs, each with `traj` (OpenAI Chat messages) | one per run |
//! | [`TranscriptKind::ClaudeCode`] | Claude Code session JSONL: records with `sessionId` / `message` | 1 |
//! | [`TranscriptKind::OpenHands`] | OpenHands event stream: JSON array of events with `action` / `observation` / `source` | 1 |
//! | [`TranscriptKind::UiStream`] | AI SDK 6 UIMessageChunk stream: JSON array of chunks, the first `{type: "start"}` | 1 |
//! | [`TranscriptKind::LanggraphMessages`] | LangGraph `streamMode: "messages"` recording: JSON array of `[namespace, [chunk, metadata]]` or `[chunk, metadata]` | 1 |
//!
//! [`read_transcript`] detects the kind from the text; [`read_transcript_kind`] forces one.
//!
//! Input parsing: the text is first parsed as one JSON document. If that fails and its first
//! non-blank line is a JSON value on its own, the text is read as JSONL (one value a line, blank
//! lines skipped); a line that does not parse is `INVALID_JSON` with `index` = the 0-based line
//! number (blank lines count). A document that is neither is `INVALID_JSON` without an index (the
//! message gives serde's line and column). Empty or blank text is `UNKNOWN_TRANSCRIPT_FORMAT`.
//!
//! Errors from decoding a message carry an `index` in the file's own terms: the JSONL line for
//! Claude Code and JSONL message lists, the `history` position for SWE-agent, the event position for
//! OpenHands, the message position inside `traj` for tau-bench (the error message names the run).

mod claude_code;
mod openhands;
mod swe_agent;

use crate::error::{Error, ErrorCode, Result};
use crate::message::formats::{decode_messages, detect, Decoded, Format};
use crate::message::Message;
use crate::stream::StreamFormat;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// The kind of a transcript file. In JS (serde kebab-case): `"openai-chat" | "swe-agent" |
/// "tau-bench" | "claude-code" | "open-hands" | "ui-stream" | "langgraph-messages"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum TranscriptKind {
    /// A plain list of messages (OpenAI Chat, or any format [`decode_messages`] accepts), as a JSON
    /// array or as JSONL with one message a line. One run.
    OpenaiChat,
    /// SWE-agent trajectory (`.traj`): `{history: [...], trajectory, info, …}`. `history` is
    /// OpenAI-chat-like; tool results name their calls in a `tool_call_ids` list. One run.
    SweAgent,
    /// tau-bench results file: `[{task_id, reward, traj: [OpenAI Chat messages], …}, …]`. One run
    /// per element; the run metadata (`task_id`, `reward`, `info`) is not kept.
    TauBench,
    /// Claude Code session log (`~/.claude/projects/…/<session>.jsonl`): one record a line, the
    /// `user` / `assistant` records carrying an Anthropic `message`. One run.
    ClaudeCode,
    /// OpenHands event stream (trajectory export): `[{id, source, action | observation, args,
    /// content, cause, tool_call_metadata, …}, …]`. One run.
    OpenHands,
    /// AI SDK 6 UIMessageChunk stream (`[{type: "start"}, {type: "text-delta", …}, …]`),
    /// assembled by [`crate::stream`]. One run; the stream's report is not kept (use the stream
    /// reader for it).
    UiStream,
    /// LangGraph `streamMode: "messages"` recording, assembled by [`crate::stream`]. One run.
    LanggraphMessages,
}

impl TranscriptKind {
    /// The kind's name as serialised (`"claude-code"`).
    pub fn as_str(self) -> &'static str {
        match self {
            TranscriptKind::OpenaiChat => "openai-chat",
            TranscriptKind::SweAgent => "swe-agent",
            TranscriptKind::TauBench => "tau-bench",
            TranscriptKind::ClaudeCode => "claude-code",
            TranscriptKind::OpenHands => "open-hands",
            TranscriptKind::UiStream => "ui-stream",
            TranscriptKind::LanggraphMessages => "langgraph-messages",
        }
    }
}

/// A transcript read into canonical messages.
///
/// `runs` holds one conversation per run, in file order: a tau-bench file gives one run per
/// element (200 for a full results file); every other kind gives exactly one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct Transcript {
    /// The detected (or forced) kind.
    pub kind: TranscriptKind,
    /// The runs, each a list of canonical messages in order.
    pub runs: Vec<Vec<Message>>,
}

/// The parsed text: one JSON document, or JSONL values with their 0-based line numbers.
enum Input {
    Json(Value),
    Lines(Vec<(usize, Value)>),
}

/// Reads a transcript file, detecting its kind from its shape.
///
/// Detection, in order: JSONL whose records carry `sessionId` or `message` → Claude Code;
/// JSON object with a `history` list → SWE-agent; non-empty JSON array whose elements all have a
/// `traj` → tau-bench; JSON array whose elements all have `source` and `action` or `observation` (no
/// `role`) → OpenHands; a JSON array of UIMessageChunks starting with `start` → ui-stream; a JSON
/// array of LangGraph `[namespace, [chunk, metadata]]` items → langgraph-messages; JSON array (or JSONL) whose elements are all messages → OpenAI chat (an
/// empty array is an empty chat). A single JSON object with `sessionId` / `message` is read as a
/// one-record Claude Code session, and a JSON array whose elements all are such records as a
/// Claude Code session (index = array position).
///
/// Errors: `UNKNOWN_TRANSCRIPT_FORMAT` for empty text or any other shape; `INVALID_JSON` for text
/// that does not parse (with `index` = line for JSONL, see the module docs); the message decoding
/// errors of [`decode_messages`] (`INVALID_MESSAGE`, `UNKNOWN_ROLE`, `MISSING_TOOL_CALL_ID`,
/// `INVALID_TOOL_CALL`), with the index of the offending record.
pub fn read_transcript(text: &str) -> Result<Transcript> {
    let input = parse(text)?;
    let kind = detect_kind(&input).ok_or_else(|| {
        Error::new(
            ErrorCode::UnknownTranscriptFormat,
            "unrecognised transcript: expected a message list, a SWE-agent .traj, a tau-bench results file, a Claude Code session JSONL or an OpenHands event list",
        )
    })?;
    read_input(input, kind)
}

/// Reads a transcript file as the given kind, without detection.
///
/// Errors: as [`read_transcript`]; `UNKNOWN_TRANSCRIPT_FORMAT` when the text does not have the
/// shape of `kind` (e.g. a SWE-agent file without `history`, a tau-bench element without `traj`,
/// with `index` = that element).
pub fn read_transcript_kind(text: &str, kind: TranscriptKind) -> Result<Transcript> {
    read_input(parse(text)?, kind)
}

fn read_input(input: Input, kind: TranscriptKind) -> Result<Transcript> {
    let runs = match kind {
        TranscriptKind::OpenaiChat => vec![read_chat(input)?],
        TranscriptKind::SweAgent => vec![swe_agent::read(&json_only(input, kind)?)?],
        TranscriptKind::TauBench => read_tau(&json_only(input, kind)?)?,
        TranscriptKind::ClaudeCode => vec![claude_code::read(&records(input))?],
        TranscriptKind::OpenHands => vec![openhands::read(&json_only(input, kind)?)?],
        TranscriptKind::UiStream => vec![read_stream(input, kind, StreamFormat::UiStream)?],
        TranscriptKind::LanggraphMessages => vec![read_stream(input, kind, StreamFormat::LanggraphMessages)?],
    };
    Ok(Transcript { kind, runs })
}

fn parse(text: &str) -> Result<Input> {
    if text.trim().is_empty() {
        return Err(Error::new(ErrorCode::UnknownTranscriptFormat, "the transcript is empty"));
    }
    let whole_err = match serde_json::from_str::<Value>(text) {
        Ok(v) => return Ok(Input::Json(v)),
        Err(e) => e,
    };
    let first_line_parses =
        text.lines().find(|l| !l.trim().is_empty()).is_some_and(|l| serde_json::from_str::<Value>(l).is_ok());
    if !first_line_parses {
        return Err(Error::new(
            ErrorCode::InvalidJson,
            format!(
                "the transcript is not valid JSON or JSONL: {} (line {}, column {})",
                category(&whole_err),
                whole_err.line(),
                whole_err.column()
            ),
        ));
    }
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v = serde_json::from_str::<Value>(line).map_err(|e| {
            Error::new(
                ErrorCode::InvalidJson,
                format!("JSONL line {} is not valid JSON: {} (column {})", i + 1, category(&e), e.column()),
            )
            .at(i)
        })?;
        lines.push((i, v));
    }
    Ok(Input::Lines(lines))
}

/// A content-free description of a JSON error (serde's own message may quote input).
fn category(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Io => "read error",
        serde_json::error::Category::Syntax => "syntax error",
        serde_json::error::Category::Data => "data error",
        serde_json::error::Category::Eof => "unexpected end of input",
    }
}

fn detect_kind(input: &Input) -> Option<TranscriptKind> {
    match input {
        Input::Lines(lines) => {
            if lines.iter().any(|(_, v)| claude_code::is_record(v)) {
                Some(TranscriptKind::ClaudeCode)
            } else if lines.iter().all(|(_, v)| detect(v).is_ok()) {
                Some(TranscriptKind::OpenaiChat)
            } else {
                None
            }
        }
        Input::Json(v @ Value::Object(_)) => {
            if v.get("history").is_some_and(Value::is_array) {
                Some(TranscriptKind::SweAgent)
            } else if claude_code::is_record(v) {
                Some(TranscriptKind::ClaudeCode)
            } else {
                None
            }
        }
        Input::Json(Value::Array(items)) => {
            if items.is_empty() {
                Some(TranscriptKind::OpenaiChat)
            } else if items.iter().all(|v| v.get("traj").is_some_and(Value::is_array)) {
                Some(TranscriptKind::TauBench)
            } else if items.iter().all(openhands::is_event) {
                Some(TranscriptKind::OpenHands)
            } else if let Some(f) = crate::stream::detect_stream(items) {
                Some(match f {
                    StreamFormat::UiStream => TranscriptKind::UiStream,
                    StreamFormat::LanggraphMessages => TranscriptKind::LanggraphMessages,
                })
            } else if items.iter().all(claude_code::is_record) {
                Some(TranscriptKind::ClaudeCode)
            } else if items.iter().all(|v| detect(v).is_ok()) {
                Some(TranscriptKind::OpenaiChat)
            } else {
                None
            }
        }
        Input::Json(_) => None,
    }
}

/// The JSON document for kinds that are never JSONL.
fn json_only(input: Input, kind: TranscriptKind) -> Result<Value> {
    match input {
        Input::Json(v) => Ok(v),
        Input::Lines(_) => Err(Error::new(
            ErrorCode::UnknownTranscriptFormat,
            format!("a {} transcript is one JSON document, not JSONL", kind.as_str()),
        )),
    }
}

/// Records with their line (JSONL) or position (JSON array; a lone object is record 0).
fn records(input: Input) -> Vec<(usize, Value)> {
    match input {
        Input::Lines(lines) => lines,
        Input::Json(Value::Array(items)) => items.into_iter().enumerate().collect(),
        Input::Json(v) => vec![(0, v)],
    }
}

fn read_chat(input: Input) -> Result<Vec<Message>> {
    let recs = match input {
        Input::Json(Value::Array(items)) => items.into_iter().enumerate().collect(),
        Input::Lines(lines) => lines,
        Input::Json(_) => {
            return Err(Error::new(
                ErrorCode::UnknownTranscriptFormat,
                "a message-list transcript is a JSON array of messages or JSONL with one message a line",
            ))
        }
    };
    let (positions, values): (Vec<usize>, Vec<Value>) = recs.into_iter().unzip();
    decode_mapped(&values, Format::Openai, &positions).map(|d| d.messages)
}

/// A recorded stream (a JSON array of chunks) assembled into one run.
fn read_stream(input: Input, kind: TranscriptKind, format: StreamFormat) -> Result<Vec<Message>> {
    match json_only(input, kind)? {
        Value::Array(items) => crate::stream::read_stream(&items, format).map(|r| r.messages),
        _ => Err(Error::new(
            ErrorCode::UnknownTranscriptFormat,
            format!("a {} transcript is a JSON array of chunks", kind.as_str()),
        )),
    }
}

fn read_tau(doc: &Value) -> Result<Vec<Vec<Message>>> {
    let runs = doc.as_array().ok_or_else(|| {
        Error::new(ErrorCode::UnknownTranscriptFormat, "a tau-bench results file is a JSON array of runs")
    })?;
    runs.iter()
        .enumerate()
        .map(|(r, run)| {
            let traj = run.get("traj").and_then(Value::as_array).ok_or_else(|| {
                Error::new(ErrorCode::UnknownTranscriptFormat, format!("tau-bench run {r} has no `traj` list"))
                    .field("traj")
                    .at(r)
            })?;
            decode_messages(traj, Some(Format::Openai)).map(|d| d.messages).map_err(|mut e| {
                e.message = format!("tau-bench run {r}: {}", e.message);
                e
            })
        })
        .collect()
}

/// Decodes `values` with `hint`, rewriting an error's index through `positions` (the position in
/// the file of each value).
fn decode_mapped(values: &[Value], hint: Format, positions: &[usize]) -> Result<Decoded> {
    decode_messages(values, Some(hint)).map_err(|mut e| {
        e.index = e.index.map(|i| positions.get(i).copied().unwrap_or(i));
        e
    })
}

#[cfg(test)]
mod tests;
