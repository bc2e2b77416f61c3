//! Typed errors with stable codes.
//!
//! Every failure that can reach a caller is an [`Error`]: a stable machine-readable [`ErrorCode`]
//! (serialised in SCREAMING_SNAKE_CASE, e.g. `INVALID_MESSAGE`), a message a user can act on, and
//! optional details (the message index, the offending field). Errors never carry message content,
//! so nothing private can leak through them.

use serde::Serialize;

/// A stable error code. The JS binding exposes it as `error.code` (e.g. `"UNKNOWN_ROLE"`);
/// codes are never renamed once released.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The input is not a message in any supported shape (not an object, no role or type, …).
    InvalidMessage,
    /// A role or LangChain type we do not know (`"function"`, `"critic"`, …).
    UnknownRole,
    /// A tool result without the id of the call it answers.
    MissingToolCallId,
    /// A tool call without an id or a name.
    InvalidToolCall,
    /// The input text is not valid JSON (or JSONL).
    InvalidJson,
    /// A transcript file in a shape no reader recognises.
    UnknownTranscriptFormat,
    /// An unknown option value, such as a provider or format name.
    InvalidOption,
    /// Input larger than the documented limits.
    TooLarge,
}

impl ErrorCode {
    /// The code as it appears in JS (`"INVALID_MESSAGE"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidMessage => "INVALID_MESSAGE",
            ErrorCode::UnknownRole => "UNKNOWN_ROLE",
            ErrorCode::MissingToolCallId => "MISSING_TOOL_CALL_ID",
            ErrorCode::InvalidToolCall => "INVALID_TOOL_CALL",
            ErrorCode::InvalidJson => "INVALID_JSON",
            ErrorCode::UnknownTranscriptFormat => "UNKNOWN_TRANSCRIPT_FORMAT",
            ErrorCode::InvalidOption => "INVALID_OPTION",
            ErrorCode::TooLarge => "TOO_LARGE",
        }
    }
}

/// An error with a stable [`ErrorCode`], a human-readable message and structured details.
///
/// `index` is the position of the offending message in the caller's input (0-based), when the
/// error concerns one message; `field` names the offending field when known.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{}: {message}", code.as_str())]
pub struct Error {
    /// Stable machine-readable code.
    pub code: ErrorCode,
    /// What went wrong and how to fix it. Never contains message content.
    pub message: String,
    /// Index of the offending message in the input, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Name of the offending field, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl Error {
    /// A new error with no index and no field.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error { code, message: message.into(), index: None, field: None }
    }

    /// Attaches the index of the offending message (kept if already set by an inner call).
    pub fn at(mut self, index: usize) -> Self {
        if self.index.is_none() {
            self.index = Some(index);
        }
        self
    }

    /// Attaches the name of the offending field.
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}

/// Result alias used across the crate.
pub type Result<T> = std::result::Result<T, Error>;
