//! The checkpoint codec: a snapshot of every channel plus where the log stood (last sequence and
//! hash), as UTF-8 JSON bytes sealed by a digest of their canonical encoding: SHA-256, or
//! HMAC-SHA-256 under the store's `chainKey` ([`Chain`]). An export (a snapshot meant to leave the
//! machine, for a follower who holds no key) is always sealed by plain SHA-256.
//!
//! Decoding refuses anything that is not exactly what was encoded: bytes that do not parse, a
//! digest that does not match (`CORRUPT_CHECKPOINT`), or a format version this build does not
//! read (`UNSUPPORTED_FORMAT_VERSION`). Nothing is half-loaded: decoding builds a value, the
//! store is built from it only once it is whole.

use super::{canonical, Chain};
use crate::error::{Error, ErrorCode, Result};
use crate::json::Put;
use crate::state::ChannelSpec;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `format` field of a checkpoint.
pub const CHECKPOINT_FORMAT: &str = "stategate-checkpoint";
/// The format version this build writes and reads.
pub const CHECKPOINT_FORMAT_VERSION: u64 = 1;
/// The `format` field of a snapshot for transport (`exportForTransport`).
pub const EXPORT_FORMAT: &str = "stategate-export";

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
    /// True when the store's chain is keyed (`chainKey`): the log's hashes (and a checkpoint's
    /// digest) are HMACs a reader needs the key to check. Absent (false) otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keyed: bool,
    /// Only on an export of a keyed chain: HMAC-SHA-256 under the `chainKey` of the canonical
    /// encoding of every field but `digest` and `mac`, so a follower given the key knows the
    /// snapshot is the writer's (the `digest` alone, plain SHA-256 for keyless readers, can be
    /// recomputed by anyone).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub mac: String,
    /// SHA-256 of the canonical encoding of all other fields.
    #[serde(default)]
    pub digest: String,
}

fn corrupt(what: impl Into<String>) -> Error {
    Error::new(ErrorCode::CorruptCheckpoint, format!("the checkpoint is corrupt: {}; nothing was loaded", what.into()))
}

/// The digest of a checkpoint as JSON under `chain`: the canonical encoding of every field but
/// `digest`. Computed over the bytes as parsed, never over a re-serialised struct, so a field
/// renamed or added in transit changes it.
fn digest_of(value: &Value, chain: &Chain) -> Option<String> {
    seal_of(value, chain, &["digest"])
}

/// An export's `mac`: the key's HMAC of every field but `digest` and `mac`.
fn mac_of(value: &Value, chain: &Chain) -> Option<String> {
    seal_of(value, chain, &["digest", "mac"])
}

fn seal_of(value: &Value, chain: &Chain, without: &[&str]) -> Option<String> {
    let mut v = value.clone();
    if let Some(o) = v.as_object_mut() {
        for k in without {
            o.shift_remove(*k);
        }
    }
    let mut out = Vec::new();
    canonical::write(&v, &mut out);
    chain.digest(&out)
}

/// The chain a snapshot's digest is made with: an export's is always plain (its readers hold no
/// key); a checkpoint's is the store's.
fn sealing<'c>(format: Option<&str>, chain: &'c Chain) -> &'c Chain {
    if format == Some(EXPORT_FORMAT) {
        &Chain::Plain
    } else {
        chain
    }
}

impl Checkpoint {
    /// Seals and encodes: UTF-8 JSON bytes, the digest made under `chain` (plain for an export,
    /// which also gets the key's `mac` when `chain` is keyed).
    pub fn encode(self, chain: &Chain) -> Vec<u8> {
        let mut v = serde_json::to_value(&self).unwrap_or(Value::Null);
        if let (EXPORT_FORMAT, Chain::Keyed(_), Some(mac)) = (self.format.as_str(), chain, mac_of(&v, chain)) {
            if let Some(o) = v.as_object_mut() {
                o.put("mac", Value::String(mac));
            }
        }
        let digest = digest_of(&v, sealing(Some(&self.format), chain)).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.put("digest", Value::String(digest));
        }
        serde_json::to_vec(&v).unwrap_or_default()
    }

    /// Decodes and checks bytes written by [`Checkpoint::encode`] in format `format`
    /// ([`CHECKPOINT_FORMAT`] or [`EXPORT_FORMAT`]); a checkpoint's digest is checked under
    /// `chain`, and so is an export's `mac` when `chain` holds a key. Errors: `CORRUPT_CHECKPOINT`,
    /// `UNSUPPORTED_FORMAT_VERSION`; `INVALID_OPTION` for a checkpoint of a keyed chain read
    /// without its key, or an export read with a key it was not sealed with.
    pub fn decode(bytes: &[u8], format: &str, chain: &Chain) -> Result<Checkpoint> {
        // Read as text (`from_str`, not `from_slice`): the crate's one JSON reader of a `Value`.
        let text = std::str::from_utf8(bytes).map_err(|_| corrupt("not UTF-8 text"))?;
        let value: Value = serde_json::from_str(text).map_err(|e| corrupt(format!("not JSON ({e})")))?;
        if value.get("format").and_then(Value::as_str) != Some(format) {
            return Err(corrupt(if format == EXPORT_FORMAT {
                "it is not a stategate export (store.exportForTransport())"
            } else {
                "it is not a stategate checkpoint"
            }));
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
        let keyed = value.get("keyed").and_then(Value::as_bool).unwrap_or(false);
        let sealed = sealing(Some(format), chain);
        if format == CHECKPOINT_FORMAT && keyed && !chain.is_keyed() {
            return Err(Error::new(
                ErrorCode::InvalidOption,
                "this checkpoint was written by a store with a chainKey: pass the same chainKey to read it; nothing was loaded",
            )
            .field("chainKey"));
        }
        if format == CHECKPOINT_FORMAT && !keyed && chain.is_keyed() {
            return Err(corrupt(
                "it was sealed without a chainKey, but one was given: the log's writer seals with its key, so this was written by someone without it",
            ));
        }
        if value.get("digest").and_then(Value::as_str) != digest_of(&value, sealed).as_deref() {
            return Err(corrupt("its digest does not match its content"));
        }
        if format == EXPORT_FORMAT && matches!(chain, Chain::Keyed(_)) {
            if !keyed {
                return Err(Error::new(
                    ErrorCode::InvalidOption,
                    "a chainKey was given, but the run's chain is not keyed: follow it without one",
                )
                .field("chainKey"));
            }
            if value.get("mac").and_then(Value::as_str) != mac_of(&value, chain).as_deref() {
                return Err(Error::new(
                    ErrorCode::CorruptCheckpoint,
                    "the export is not sealed with this chainKey: it was changed, or the key is not the run's; nothing was loaded",
                )
                .field("mac"));
            }
        }
        serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))
    }
}
