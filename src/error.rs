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
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The input is not a message in any supported shape (not an object, no role or type, …),
    /// or looks like two formats at once (keys or parts of two formats).
    InvalidMessage,
    /// A role or LangChain type we do not know (`"function"`, `"critic"`, …).
    UnknownRole,
    /// A tool result without the id of the call it answers.
    MissingToolCallId,
    /// A tool call without an id or a name.
    InvalidToolCall,
    /// The input text is not valid JSON (or JSONL), or is a JSON array where a log's JSON Lines
    /// are expected.
    InvalidJson,
    /// A transcript file in a shape no reader recognises.
    UnknownTranscriptFormat,
    /// An unknown option value, such as a provider or format name.
    InvalidOption,
    /// Input larger than the documented limits.
    TooLarge,
    /// A command's `expectedVersion` is not the store's version: someone else wrote first.
    /// Re-read the state and retry.
    VersionConflict,
    /// Two commands of one batch (superstep) wrote the same `replace` channel, or the same key of
    /// a `merge` channel that declares `onConflict: "error"`.
    ConcurrentWrite,
    /// An update names a channel the schema does not have.
    UnknownChannel,
    /// A channel with that name is already registered.
    ChannelExists,
    /// The author is not among the channel's declared writers.
    NotAuthorized,
    /// The channel (or private key) belongs to another owner.
    NotOwner,
    /// The channel is private: it is read only with its owner's key, never by name.
    PrivateChannel,
    /// An update value does not have the channel's type or shape.
    InvalidUpdate,
    /// A replace or remove names a message id the channel does not hold.
    UnknownMessageId,
    /// A tool result answers a call id that no assistant message in the channel made.
    UnknownToolCall,
    /// A second result for a call that already has one (replace the first by its id instead).
    AlreadyAnswered,
    /// The run is completed, failed or cancelled: no new assistant or tool messages.
    RunEnded,
    /// A status change the transition table does not allow (run, plan step, approval, task).
    InvalidTransition,
    /// A plan whose steps depend on missing steps or on each other in a cycle.
    InvalidPlan,
    /// A tool result for a call whose approval is still pending.
    ApprovalPending,
    /// A successful tool result for a call whose approval was rejected or expired.
    ApprovalRejected,
    /// The command would take a budget counter over its limit, or comes after the deadline.
    BudgetExceeded,
    /// An event log whose hash chain, sequence or content does not hold (`details.index` names
    /// the first broken event).
    TamperedLog,
    /// Events given to `ingest` that do not continue the store's log: the first new one is not
    /// sequence `version + 1` (`details.index` names it); ask for the events after `version`.
    LogGap,
    /// A checkpoint that does not parse or whose digest does not match its content.
    CorruptCheckpoint,
    /// A checkpoint written in a format version this build cannot read.
    UnsupportedFormatVersion,
    /// A past view (`at(sequence)`) or a follower (`follow`) takes no commands.
    ReadOnly,
    /// A persistence adapter failed (IndexedDB, the file system).
    StorageError,
    /// The system rules and the leading system message alone exceed the projection's budget.
    BudgetTooSmall,
    /// A private channel's value would appear in the model view (the error names the channel).
    PrivateLeak,
    /// The Agent Protocol server could not be reached: the transport (fetch or the caller's)
    /// threw or rejected. The ledger is unchanged; try again later.
    NetworkError,
    /// The Agent Protocol server answered a call with a non-2xx status (`details.field` names
    /// the call, the message gives the status and the server's detail).
    ServerError,
    /// A task id the ledger does not hold.
    UnknownTask,
    /// The store is in the middle of a call (one of its callbacks called it back), or the same
    /// tool call is already being handled: try again once it returns.
    Busy,
    /// A method called on an object whose `free()` was called: create a new one (or replay or
    /// restore the store from its log).
    Freed,
    /// The package's wasm module is not loaded yet (raised by the TypeScript package, never by
    /// the core): a call through `stategate/web` before `await load()`, or a `load()` that failed
    /// (the message says what was fetched and why it failed).
    NotLoaded,
}

impl ErrorCode {
    /// Every code, in declaration order (JS: `errorCodes()`, so the façade can tell a real
    /// stategate error from a look-alike). The test `every_code_is_listed_once` keeps it whole.
    pub const ALL: [ErrorCode; 39] = [
        ErrorCode::InvalidMessage,
        ErrorCode::UnknownRole,
        ErrorCode::MissingToolCallId,
        ErrorCode::InvalidToolCall,
        ErrorCode::InvalidJson,
        ErrorCode::UnknownTranscriptFormat,
        ErrorCode::InvalidOption,
        ErrorCode::TooLarge,
        ErrorCode::VersionConflict,
        ErrorCode::ConcurrentWrite,
        ErrorCode::UnknownChannel,
        ErrorCode::ChannelExists,
        ErrorCode::NotAuthorized,
        ErrorCode::NotOwner,
        ErrorCode::PrivateChannel,
        ErrorCode::InvalidUpdate,
        ErrorCode::UnknownMessageId,
        ErrorCode::UnknownToolCall,
        ErrorCode::AlreadyAnswered,
        ErrorCode::RunEnded,
        ErrorCode::InvalidTransition,
        ErrorCode::InvalidPlan,
        ErrorCode::ApprovalPending,
        ErrorCode::ApprovalRejected,
        ErrorCode::BudgetExceeded,
        ErrorCode::TamperedLog,
        ErrorCode::LogGap,
        ErrorCode::CorruptCheckpoint,
        ErrorCode::UnsupportedFormatVersion,
        ErrorCode::ReadOnly,
        ErrorCode::StorageError,
        ErrorCode::BudgetTooSmall,
        ErrorCode::PrivateLeak,
        ErrorCode::NetworkError,
        ErrorCode::ServerError,
        ErrorCode::UnknownTask,
        ErrorCode::Busy,
        ErrorCode::Freed,
        ErrorCode::NotLoaded,
    ];

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
            ErrorCode::VersionConflict => "VERSION_CONFLICT",
            ErrorCode::ConcurrentWrite => "CONCURRENT_WRITE",
            ErrorCode::UnknownChannel => "UNKNOWN_CHANNEL",
            ErrorCode::ChannelExists => "CHANNEL_EXISTS",
            ErrorCode::NotAuthorized => "NOT_AUTHORIZED",
            ErrorCode::NotOwner => "NOT_OWNER",
            ErrorCode::PrivateChannel => "PRIVATE_CHANNEL",
            ErrorCode::InvalidUpdate => "INVALID_UPDATE",
            ErrorCode::UnknownMessageId => "UNKNOWN_MESSAGE_ID",
            ErrorCode::UnknownToolCall => "UNKNOWN_TOOL_CALL",
            ErrorCode::AlreadyAnswered => "ALREADY_ANSWERED",
            ErrorCode::RunEnded => "RUN_ENDED",
            ErrorCode::InvalidTransition => "INVALID_TRANSITION",
            ErrorCode::InvalidPlan => "INVALID_PLAN",
            ErrorCode::ApprovalPending => "APPROVAL_PENDING",
            ErrorCode::ApprovalRejected => "APPROVAL_REJECTED",
            ErrorCode::BudgetExceeded => "BUDGET_EXCEEDED",
            ErrorCode::TamperedLog => "TAMPERED_LOG",
            ErrorCode::LogGap => "LOG_GAP",
            ErrorCode::CorruptCheckpoint => "CORRUPT_CHECKPOINT",
            ErrorCode::UnsupportedFormatVersion => "UNSUPPORTED_FORMAT_VERSION",
            ErrorCode::ReadOnly => "READ_ONLY",
            ErrorCode::StorageError => "STORAGE_ERROR",
            ErrorCode::BudgetTooSmall => "BUDGET_TOO_SMALL",
            ErrorCode::PrivateLeak => "PRIVATE_LEAK",
            ErrorCode::NetworkError => "NETWORK_ERROR",
            ErrorCode::ServerError => "SERVER_ERROR",
            ErrorCode::UnknownTask => "UNKNOWN_TASK",
            ErrorCode::Busy => "BUSY",
            ErrorCode::Freed => "FREED",
            ErrorCode::NotLoaded => "NOT_LOADED",
        }
    }
}

/// An error with a stable [`ErrorCode`], a human-readable message and structured details.
///
/// `index` is the position of the offending message in the caller's input (0-based), when the
/// error concerns one message; `field` names the offending field when known; `channel` names the
/// state channel; `command` is the position of the offending command in a batch; `authors` names
/// the writers of a `CONCURRENT_WRITE`. Details never carry state values.
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
    /// The state channel concerned, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Position of the offending command in a batch, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<usize>,
    /// The authors involved (both writers of a `CONCURRENT_WRITE`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
}

impl Error {
    /// A new error with no index and no field.
    ///
    /// Built out of line (one copy per message type: `&str`, `String`), so none of the ~200
    /// places that make an error carries its own copy of the fields and of the text's
    /// conversion; errors are the cold path (issue 17, row 5).
    #[cold]
    #[inline(never)]
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            index: None,
            field: None,
            channel: None,
            command: None,
            authors: Vec::new(),
        }
    }

    /// Attaches the index of the offending message (kept if already set by an inner call; out of
    /// line, as [`Error::new`]).
    #[cold]
    #[inline(never)]
    pub fn at(mut self, index: usize) -> Self {
        if self.index.is_none() {
            self.index = Some(index);
        }
        self
    }

    /// Attaches the channel concerned (kept if already set; out of line, as [`Error::new`]).
    #[cold]
    #[inline(never)]
    pub fn channel(mut self, channel: &str) -> Self {
        if self.channel.is_none() {
            self.channel = Some(channel.to_string());
        }
        self
    }

    /// Attaches the position of the offending command in a batch (kept if already set; out of
    /// line, as [`Error::new`]).
    #[cold]
    #[inline(never)]
    pub fn command(mut self, command: usize) -> Self {
        if self.command.is_none() {
            self.command = Some(command);
        }
        self
    }

    /// Attaches the name of the offending field (out of line, as [`Error::new`]).
    #[cold]
    #[inline(never)]
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}

/// Where an error happened, as JS receives it in `error.details` (and `audit` in a
/// [`Rejection`]): only the fields that are set. Never state values.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ErrorDetails {
    /// Index of the offending message (or log entry) in the input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Name of the offending field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The state channel concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Position of the offending command in a batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<usize>,
    /// Both writers of a `CONCURRENT_WRITE`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub authors: Vec<String>,
}

impl Error {
    /// The error's details (the one place they are assembled for JS).
    pub fn details(&self) -> ErrorDetails {
        ErrorDetails {
            index: self.index,
            field: self.field.clone(),
            channel: self.channel.clone(),
            command: self.command,
            authors: self.authors.clone(),
        }
    }
}

/// A refused change, as the store's `audit` callback receives it: who tried to write which
/// channels, and why (code, message, details — never the values).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Rejection {
    /// The command's author; for a batch, its authors joined by ", " (`details.command` says
    /// which failed).
    pub author: String,
    /// The channels the command (or batch) tried to write, sorted, each once.
    pub channels: Vec<String>,
    /// The error's code.
    pub code: ErrorCode,
    /// The error's message, prefixed by its code (`"VERSION_CONFLICT: …"`).
    pub message: String,
    /// The error's details.
    pub details: ErrorDetails,
    /// When, in ms since the epoch, from the store's clock.
    pub created_at: u64,
}

impl Rejection {
    /// The rejection of a change by `author` to `channels` at `now_ms` that failed with `error`.
    pub fn new(author: &str, mut channels: Vec<String>, error: &Error, now_ms: u64) -> Rejection {
        channels.sort();
        channels.dedup();
        Rejection {
            author: author.to_string(),
            channels,
            code: error.code,
            message: error.to_string(),
            details: error.details(),
            created_at: now_ms,
        }
    }
}

/// Result alias used across the crate.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::ErrorCode;

    #[test]
    fn every_code_is_listed_once() {
        // `as_str` matches every variant (the compiler checks); each listed code serialises to
        // its `as_str`, and no two share one, so ALL and `as_str` cannot drift apart silently.
        let mut seen = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
            assert!(seen.insert(c.as_str()), "{} listed twice", c.as_str());
        }
        // A variant missing from ALL would serialise to a name no entry has.
        assert_eq!(serde_json::to_value(ErrorCode::Freed).unwrap(), "FREED");
        assert!(seen.contains("FREED") && seen.contains("INVALID_MESSAGE"));
    }
}
