//! Commands (the one way to change state) and what applying them returns.

use super::schema::ChannelSpec;
use crate::repair::Fix;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// One atomic change (DESIGN §3): `{author, expectedVersion?, update, correlationId?, causationId?}`.
///
/// `update` maps channel names to values for their reducers; for `messages`, a message or a list
/// of messages and ops (see the messages channel's ops: put, replace, remove, removeAll, insertAfter). `expectedVersion`, when given, must equal the
/// store's version or the command fails with `VERSION_CONFLICT` (optimistic lock).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Command {
    /// Who writes: a node, tool, middleware or agent name. Checked against each channel's
    /// `owner` / `writers`. Authors are labels, not credentials.
    pub author: String,
    /// The version the author read; absent = no lock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_version: Option<u64>,
    /// `{channel: value}`.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, unknown>"))]
    pub update: Map<String, Value>,
    /// Ties the events of one request together (e.g. a tool call id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    /// The event or request that caused this command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub causation_id: Option<String>,
}

/// A command by `author` writing `update` (a JSON object; anything else writes nothing), for the
/// crate's tests.
#[cfg(test)]
pub(crate) fn cmd(author: &str, update: Value) -> Command {
    Command {
        author: author.into(),
        expected_version: None,
        update: update.as_object().cloned().unwrap_or_default(),
        correlation_id: None,
        causation_id: None,
    }
}

/// What `apply` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct Applied {
    /// The store's version after the command (= the sequence of its event).
    pub version: u64,
    /// Ids of the messages the command wrote, in order (assigned at intake when absent).
    pub ids: Vec<String>,
}

/// What `applyBatch` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct BatchApplied {
    /// The store's version after the batch (one more per command).
    pub version: u64,
    /// For each command, the ids of the messages it wrote.
    pub ids: Vec<Vec<String>>,
}

/// What `repair` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct Repaired {
    /// The version after the repair (unchanged when there was nothing to repair).
    pub version: u64,
    /// Every fix, with `index` = position in the stored messages before the repair.
    pub report: Vec<Fix>,
    /// Ids of the synthetic results the repair added.
    pub ids: Vec<String>,
}

/// The longest run id, in characters: a generated message id (`{runId}:{sequence}:{k}`) then
/// stays within the id limit (`MAX_ID_CHARS`, 1,024).
pub const MAX_RUN_ID_CHARS: usize = 256;

/// Options of a new store.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct StoreOptions {
    /// The run id; prefixes generated message ids (`{runId}:{sequence}:{k}`). Default `"run"`.
    /// 1 to [`MAX_RUN_ID_CHARS`] characters (so a generated id stays within the id limit),
    /// else `INVALID_OPTION`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Channels added to the default schema (not private ones: register those with
    /// `registerChannel` to receive their owner key).
    pub channels: Vec<ChannelSpec>,
    /// The key of a keyed chain (`chainKey`, at least
    /// [`MIN_CHAIN_KEY_BYTES`](crate::log::MIN_CHAIN_KEY_BYTES) bytes): events are hashed and
    /// checkpoints sealed with HMAC-SHA-256 under it. In JS a `Uint8Array`, read by the binding
    /// (bytes do not cross as JSON); never serialised.
    #[serde(skip)]
    pub chain_key: Option<Vec<u8>>,
}

/// Options of the store's own repair (`store.repair(opts)`): the repair options plus the
/// command's author. In JS: `{provider?, reasons?, keepOrphans?, text?, author?}`; a misspelt
/// option is `INVALID_OPTION`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct StoreRepairOptions {
    /// The repair options.
    #[serde(flatten)]
    pub repair: crate::repair::RepairOptions,
    /// The repair command's author. Default `"repair"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
}

// By hand: `author` is taken out, then the rest must be exactly `RepairOptions` (a derived
// `flatten` would accept any misspelt key silently).
impl<'de> Deserialize<'de> for StoreRepairOptions {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut map = Map::<String, Value>::deserialize(d)?;
        let author = match map.remove("author") {
            None | Some(Value::Null) => None,
            Some(Value::String(a)) => Some(a),
            Some(_) => return Err(D::Error::custom("author must be a string")),
        };
        let repair = crate::repair::RepairOptions::deserialize(Value::Object(map)).map_err(D::Error::custom)?;
        Ok(StoreRepairOptions { repair, author })
    }
}
