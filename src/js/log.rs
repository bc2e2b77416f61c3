//! The log methods of the `StateStore` JS class (DESIGN §4): the events in memory, replay,
//! time travel, checkpoints and their restore, the export for transport, and `verifyLog`.

use super::gate::Hooks;
use super::interop::{from_js, options, parse_js, present, to_js, to_js_error};
use super::store::JsStateStore;
use crate::error::{Error, ErrorCode};
use crate::log::{check_log, parse_jsonl, Event, GENESIS_HASH};
use crate::state::{EventFilter, Store, StoreOptions};
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

/// Events given as an array of event objects, or as JSON Lines text (cheaper). Errors name the
/// first entry that is not an event (`TAMPERED_LOG`, `details.index`).
fn read_events(events: &JsValue) -> crate::error::Result<Vec<Event>> {
    if let Some(text) = events.as_string() {
        return parse_jsonl(&text);
    }
    if !js_sys::Array::is_array(events) {
        return Err(Error::new(
            ErrorCode::InvalidOption,
            "events are an array of logged events or their JSON Lines text",
        ));
    }
    let values: Vec<serde_json::Value> =
        parse_js(events, ErrorCode::TamperedLog, "events are a list of logged events or their JSON Lines", u32::MAX)?;
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value(v)
                .map_err(|e| Error::new(ErrorCode::TamperedLog, format!("entry {i} is not a logged event: {e}")).at(i))
        })
        .collect()
}

/// [`read_events`] with the error thrown as JS.
fn events_from_js(events: &JsValue) -> JsResult<Vec<Event>> {
    read_events(events).map_err(to_js_error)
}

/// A log check as `{ok: true}` or `{ok: false, index, sequence, reason}`.
#[wasm_bindgen(js_name = verifyLog, unchecked_return_type = "LogCheck")]
pub fn verify_log_js(
    #[wasm_bindgen(unchecked_param_type = "StoreEvent[] | string")] events: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "{ after: { sequence: number; hash: string } }")] opts: Option<
        JsValue,
    >,
) -> JsResult<JsValue> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct After {
        sequence: u64,
        hash: String,
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Opts {
        after: After,
    }
    let anchor = match present(opts) {
        Some(o) => {
            let o: Opts = from_js(o)?;
            (o.after.sequence, o.after.hash)
        }
        None => (0, GENESIS_HASH.to_string()),
    };
    to_js(&check_log(read_events(&events), (anchor.0, &anchor.1)).map_err(to_js_error)?)
}

#[wasm_bindgen(js_class = StateStore)]
impl JsStateStore {
    /// The events in memory, in order, optionally filtered `{since?, until?, type?}`
    /// (`sequence > since`, `sequence <= until`). Local to this store: payloads include private
    /// channel writes — never send them elsewhere (use `exportForTransport`).
    #[wasm_bindgen(unchecked_return_type = "StoreEvent[]")]
    pub fn events(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "EventQuery")] filter: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let filter: EventFilter = options(filter)?;
        to_js(&self.lock()?.inner.events_matching(&filter))
    }

    /// The events in memory as JSON Lines (one event per line, each ending in `\n`), the form
    /// `FileLog` appends and `replay` / `restore` read fastest.
    #[wasm_bindgen(js_name = eventsJsonl)]
    pub fn events_jsonl(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "EventQuery")] filter: Option<JsValue>,
    ) -> JsResult<String> {
        let filter: EventFilter = options(filter)?;
        let mut out = String::new();
        for e in self.lock()?.inner.events_matching(&filter) {
            out.push_str(
                &serde_json::to_string(e)
                    .map_err(|e| to_js_error(Error::new(ErrorCode::InvalidOption, e.to_string())))?,
            );
            out.push('\n');
        }
        Ok(out)
    }

    /// The hash of the last event (64 zeros before any).
    #[wasm_bindgen(getter, js_name = lastHash)]
    pub fn last_hash(&self) -> JsResult<String> {
        Ok(self.lock()?.inner.last_hash().to_string())
    }

    /// Rebuilds a store from a whole log (an array of events or their JSON Lines), checking
    /// every link and hash and that each event reproduces. Private channels' owners claim their
    /// keys with `claimOwnerKey`. Throws `TAMPERED_LOG` with `details.index` of the first bad event.
    pub fn replay(
        #[wasm_bindgen(unchecked_param_type = "StoreEvent[] | string")] events: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RestoreInit")] init: Option<JsValue>,
    ) -> JsResult<JsStateStore> {
        let hooks = Hooks::read(init.as_ref())?;
        let opts: StoreOptions = options(init)?;
        let events = events_from_js(&events)?;
        Ok(JsStateStore::wrap(Store::replay(opts, &events).map_err(to_js_error)?, hooks))
    }

    /// A read-only view of the store right after event `sequence` (0 = before any), with the
    /// same read API and private keys; its changes throw `READ_ONLY`. Throws `INVALID_OPTION` for
    /// a sequence outside the history in memory.
    pub fn at(&self, #[wasm_bindgen(unchecked_param_type = "number")] sequence: JsValue) -> JsResult<JsStateStore> {
        let sequence = sequence.as_f64().unwrap_or(f64::NAN);
        if !(sequence >= 0.0 && sequence.fract() == 0.0) {
            return Err(to_js_error(Error::new(ErrorCode::InvalidOption, "sequence is a whole number ≥ 0")));
        }
        let past = self.lock()?.inner.at(sequence as u64).map_err(to_js_error)?;
        Ok(JsStateStore::wrap(past, Hooks::default()))
    }

    /// The current state as checkpoint bytes (UTF-8 JSON sealed by a SHA-256 digest): every
    /// channel (private ones too: for local persistence only), last sequence and hash, format
    /// version. Never contains owner keys.
    pub fn checkpoint(&self) -> JsResult<Vec<u8>> {
        Ok(self.lock()?.inner.checkpoint().encode())
    }

    /// Restores a store from checkpoint bytes and the events after it (an array or JSON Lines;
    /// events up to the checkpoint are skipped, so a whole log may be passed). Throws
    /// `CORRUPT_CHECKPOINT`, `UNSUPPORTED_FORMAT_VERSION`, `TAMPERED_LOG`; nothing is half-loaded.
    pub fn restore(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] checkpoint: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "StoreEvent[] | string")] tail: Option<JsValue>,
        #[wasm_bindgen(unchecked_optional_param_type = "RestoreInit")] init: Option<JsValue>,
    ) -> JsResult<JsStateStore> {
        let hooks = Hooks::read(init.as_ref())?;
        let Some(checkpoint) = present(Some(checkpoint)) else {
            return Err(to_js_error(Error::new(
                ErrorCode::InvalidOption,
                "no checkpoint was given: rebuild the store from its whole log with StateStore.replay(events)",
            )));
        };
        let checkpoint = checkpoint
            .dyn_into::<js_sys::Uint8Array>()
            .map_err(|_| {
                to_js_error(Error::new(
                    ErrorCode::CorruptCheckpoint,
                    "a checkpoint is the Uint8Array store.checkpoint() returns",
                ))
            })?
            .to_vec();
        let tail = match present(tail) {
            Some(tail) => events_from_js(&tail)?,
            None => Vec::new(),
        };
        let opts: StoreOptions = options(init)?;
        Ok(JsStateStore::wrap(Store::restore(&checkpoint, &tail, opts.channels).map_err(to_js_error)?, hooks))
    }

    /// A snapshot meant to leave the machine: like a checkpoint but without private channels,
    /// their specs or keys. `{format: "stategate-export", format_version, run_id, last_sequence,
    /// last_hash, channels, values, digest}`.
    #[wasm_bindgen(js_name = exportForTransport, unchecked_return_type = "Record<string, unknown>")]
    pub fn export_for_transport(&self) -> JsResult<JsValue> {
        let bytes = self.lock()?.inner.export_for_transport().encode();
        let v: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| to_js_error(Error::new(ErrorCode::InvalidOption, e.to_string())))?;
        to_js(&v)
    }
}
