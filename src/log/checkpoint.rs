//! The checkpoint codec: a snapshot of every channel plus where the log stood (last sequence and
//! hash), as UTF-8 JSON bytes sealed by a SHA-256 digest of their canonical encoding.
//!
//! Decoding refuses anything that is not exactly what was encoded: bytes that do not parse, a
//! digest that does not match (`CORRUPT_CHECKPOINT`), or a format version this build does not
//! read (`UNSUPPORTED_FORMAT_VERSION`). Nothing is half-loaded: decoding builds a value, the
//! store is built from it only once it is whole.

use super::canonical;
use crate::error::{Error, ErrorCode, Result};
use crate::state::ChannelSpec;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `format` field of a checkpoint.
pub const CHECKPOINT_FORMAT: &str = "stategate-checkpoint";
/// The format version this build writes and reads.
pub const CHECKPOINT_FORMAT_VERSION: u64 = 1;

/// Channel values by name (messages as canonical message lists).
pub type Snapshot = Map<String, Value>;

/// A store at one point of its log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// Always [`CHECKPOINT_FORMAT`].
    pub format: String,
    /// [`CHECKPOINT_FORMAT_VERSION`] when written by this build.
    pub format_version: u64,
    /// The store's run id.
    pub run_id: String,
    /// The store's version = the sequence of the last event applied.
    pub last_sequence: u64,
    /// The hash of that event ([`super::GENESIS_HASH`] when none).
    pub last_hash: String,
    /// Channels beyond the default schema, in registration order (private ones included).
    pub channels: Vec<ChannelSpec>,
    /// Every channel's value.
    pub values: Snapshot,
    /// SHA-256 of the canonical encoding of all other fields.
    #[serde(default)]
    pub digest: String,
}

fn corrupt(what: impl Into<String>) -> Error {
    Error::new(ErrorCode::CorruptCheckpoint, format!("the checkpoint is corrupt: {}; nothing was loaded", what.into()))
}

/// The digest of a checkpoint as JSON: SHA-256 of the canonical encoding of every field but
/// `digest`. Computed over the bytes as parsed, never over a re-serialised struct, so a field
/// renamed or added in transit changes it.
fn digest_of(value: &Value) -> String {
    let mut v = value.clone();
    if let Some(o) = v.as_object_mut() {
        o.shift_remove("digest");
    }
    let mut out = Vec::new();
    canonical::write(&v, &mut out);
    canonical::sha256_hex(&out)
}

impl Checkpoint {
    /// Seals and encodes: UTF-8 JSON bytes.
    pub fn encode(self) -> Vec<u8> {
        let mut v = serde_json::to_value(&self).unwrap_or(Value::Null);
        let digest = digest_of(&v);
        if let Some(o) = v.as_object_mut() {
            o.insert("digest".into(), Value::String(digest));
        }
        serde_json::to_vec(&v).unwrap_or_default()
    }

    /// Decodes and checks bytes written by [`Checkpoint::encode`].
    /// Errors: `CORRUPT_CHECKPOINT`, `UNSUPPORTED_FORMAT_VERSION`.
    pub fn decode(bytes: &[u8]) -> Result<Checkpoint> {
        let value: Value = serde_json::from_slice(bytes).map_err(|e| corrupt(format!("not JSON ({e})")))?;
        if value.get("format").and_then(Value::as_str) != Some(CHECKPOINT_FORMAT) {
            return Err(corrupt("it is not a stategate checkpoint"));
        }
        match value.get("format_version").and_then(Value::as_u64) {
            Some(CHECKPOINT_FORMAT_VERSION) => {}
            Some(v) => {
                return Err(Error::new(
                    ErrorCode::UnsupportedFormatVersion,
                    format!("checkpoint format version {v} is not supported by this build (it reads version {CHECKPOINT_FORMAT_VERSION}); nothing was loaded"),
                ))
            }
            None => return Err(corrupt("no format version")),
        }
        if value.get("digest").and_then(Value::as_str) != Some(digest_of(&value).as_str()) {
            return Err(corrupt("its digest does not match its content"));
        }
        serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))
    }
}
