//! State: the schema of channels, their reducers, commands and the apply pipeline (DESIGN §3).
//!
//! A [`Store`] holds one value per channel of its schema. Every change is a [`Command`] that goes
//! through one gate: decode → authorise → version lock → validate and reduce → version + 1 → one
//! [`crate::log::Event`]. A failure anywhere leaves the state, the version and the log exactly as
//! they were. [`Store::apply_batch`] applies the commands of one superstep together.

mod approval_feed;
#[cfg(test)]
mod budget_tests;
mod command;
mod compaction;
mod domain;
mod events;
mod history;
#[cfg(test)]
mod history_tests;
mod id_index;
#[cfg(test)]
mod ingest_tests;
mod journal;
mod message_ops;
mod messages;
mod pieces;
mod pipeline;
mod plain;
// proptest is a native dev-dependency only (the wasm32 test build has no proptest).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod plain_tests;
pub mod privacy;
mod reducer;
mod repair;
mod replay;
mod rules;
mod schema;
mod sink;
mod store;
#[cfg(test)]
mod tests;
mod transport;

pub use approval_feed::{ApprovalRecord, Decide};
#[cfg(test)]
pub(crate) use command::cmd;
pub use command::{Applied, BatchApplied, Command, Repaired, StoreOptions, StoreRepairOptions, MAX_RUN_ID_CHARS};
pub use compaction::Compaction;
pub use events::Events;
pub use history::{DanglingCall, EventFilter};
pub use message_ops::{decode_ops, MessageOp, REMOVE_ALL};
pub(crate) use messages::numbered;
pub use messages::{Effects, MessagesChannel};
pub use plain::PlainAppend;
pub use repair::RepairPreview;
pub use schema::{channel, default_schema, ChannelSpec, Kind, OnConflict, Reducer, SectionKind, ValueType, Visibility};
#[cfg(test)]
pub(crate) use sink::test_salts;
pub use store::{Entropy, EventSink, Store, Write};
pub use transport::Ingested;
