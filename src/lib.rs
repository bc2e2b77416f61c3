//! # stategate
//!
//! The state-governance core of an LLM agent: the message model shared by every provider format,
//! provider validation and dangling tool-call repair, and readers for recorded transcripts.
//!
//! The core (everything outside `js`) is plain Rust with no wasm-bindgen types and is tested
//! natively; `src/js/` converts JS values and delegates. See `DESIGN.md` §1 in the steering repo.
//!
//! Data flows one way: input → [`message::formats::decode_messages`] → [`repair::validate`] /
//! [`repair::repair`] → [`message::formats::encode_messages`] → output.

// `Error` carries its details inline (code, message, index, field, channel, command, authors);
// errors are the cold path, so a large `Err` variant is the simpler trade.
#![allow(clippy::result_large_err)]

pub mod error;
pub mod lifecycle;
pub mod log;
pub mod message;
pub mod project;
pub mod repair;
pub mod state;
pub mod subagent;
pub mod tasks;
pub mod transcript;

#[cfg(target_arch = "wasm32")]
pub mod js;

pub use error::{Error, ErrorCode};
pub use message::formats::{decode_messages, encode_messages, Format};
pub use message::{Content, ContentPart, InvalidToolCall, Message, Role, ToolCall, ToolStatus};
pub use repair::{repair, validate, Provider, RepairOptions, RepairReport, Violation};
pub use state::{ChannelSpec, Command, Store, StoreOptions};
