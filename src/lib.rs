//! # stategate
//!
//! The state-governance core of an LLM agent: one store holds the agent's state on three
//! channels — the **model view** (the messages the LLM sees, under a token budget, always a
//! valid sequence), the **system state** (what the app shows) and the **private state**
//! (middleware-only data no output carries) — and is the gate every change and every view goes
//! through.
//!
//! The parts, lowest first (each imports only those before it; `docs/DESIGN.md` §1 draws the
//! arrows and `tests/architecture.rs` checks them):
//! - [`error`]: stable error codes, details, the audit record of a refused change.
//! - `json` (crate-private): `obj!` / `arr!` / `val`, JSON values built by one shared function.
//! - [`lifecycle`]: the transition tables of a run, a plan step, an approval, an async task.
//! - [`message`]: the canonical message model, tool-call units, and the provider formats
//!   (detection, decode, encode).
//! - [`repair`](mod@repair): tool-call integrity — provider validation and the repair of dangling,
//!   misplaced, duplicate and orphan results.
//! - [`log`]: the hash-chained event envelope, log verification, the checkpoint codec.
//! - [`state`]: the schema, reducers, commands and the one apply pipeline; replay, time travel,
//!   checkpoints, compaction, privacy.
//! - [`project`]: the context projector — the model view of a history or of a store.
//! - [`tasks`]: the async subagent ledger over Agent Protocol servers (I/O as data).
//! - [`subagent`]: sync subagents — input filtering and final-answer write-back.
//! - [`transcript`]: readers of recorded agent runs.
//! - `js` (wasm32 only): the binding, which reads JS values, calls the core and converts back.
//!
//! The core (everything outside `js`) is plain Rust with no wasm-bindgen types and is tested
//! natively. Data flows one way: input → [`message::formats::decode_messages`] →
//! [`repair::validate`] → the store's pipeline ([`state::Store::apply`]) → its events
//! ([`log::Event`]) → [`project::Projector::model_view`] → [`message::formats::encode_messages`] →
//! output; writing never depends on viewing.

// `Error` carries its details inline (code, message, index, field, channel, command, authors);
// errors are the cold path, so a large `Err` variant is the simpler trade.
#![allow(clippy::result_large_err)]

pub mod error;
mod json;
pub mod lifecycle;
pub mod log;
pub mod message;
mod order;
pub mod project;
pub mod repair;
pub mod state;
pub mod stream;
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
