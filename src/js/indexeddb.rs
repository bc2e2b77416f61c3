//! The wasm side of `IndexedDbLog` (DESIGN §4). The class itself is TypeScript
//! (`ts/indexeddb-log.ts`, over the browser's IndexedDB); here only reading the events an
//! `append` is given, with the log's own reader, into the records it stores.

use super::interop::{from_js_json_max, to_js_error};
use crate::error::{Error, ErrorCode};
use crate::log::{parse_jsonl, Event};
use js_sys::Array;
use wasm_bindgen::prelude::*;

/// The records `IndexedDbLog.append(events)` writes: each event — from an array of events, or
/// their JSON Lines — as `[sequence, its JSON text]`, in the order given. Throws `TAMPERED_LOG`
/// (with `details.index`) for what is not an event. Internal: not part of the package's API.
#[wasm_bindgen(js_name = eventRecords, unchecked_return_type = "[number, string][]")]
pub fn event_records(
    #[wasm_bindgen(unchecked_param_type = "StoreEvent[] | string")] events: JsValue,
) -> Result<Array, JsValue> {
    let events: Vec<Event> = match events.as_string() {
        Some(text) => parse_jsonl(&text).map_err(to_js_error)?,
        None => from_js_json_max(&events, ErrorCode::TamperedLog, "events are a list of logged events", u32::MAX)?,
    };
    let out = Array::new();
    for e in &events {
        let text = serde_json::to_string(e)
            .map_err(|err| to_js_error(Error::new(ErrorCode::StorageError, err.to_string())))?;
        out.push(&Array::of2(&JsValue::from_f64(e.sequence as f64), &JsValue::from_str(&text)));
    }
    Ok(out)
}
