//! `IndexedDbLog`: the browser persistence adapter (DESIGN §4). Events are kept as their JSON text
//! under their sequence in object store `events`; the latest checkpoint's bytes under `latest`
//! in object store `checkpoints`. Every write resolves when its transaction has committed.
//! Only I/O lives here: checking what is loaded is `StateStore.restore`'s job.

use super::interop::{to_js, to_js_error};
use crate::error::{Error, ErrorCode};
use crate::log::{parse_jsonl, Event};
use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::{IdbDatabase, IdbFactory, IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbTransactionMode};

type JsResult<T> = Result<T, JsValue>;

const EVENTS: &str = "events";
const CHECKPOINTS: &str = "checkpoints";

fn storage_error(what: &str, cause: &JsValue) -> JsValue {
    let detail = js_sys::Reflect::get(cause, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| "unknown error".into());
    to_js_error(Error::new(ErrorCode::StorageError, format!("IndexedDB {what} failed: {detail}")))
}

/// Waits for a request's `success` (its result) or `error`.
async fn request(req: &IdbRequest, what: &str) -> JsResult<JsValue> {
    let promise = Promise::new(&mut |resolve, reject| {
        let ok_req = req.clone();
        let ok = Closure::once_into_js(move |_: JsValue| {
            let _ = resolve.call1(&JsValue::UNDEFINED, &ok_req.result().unwrap_or(JsValue::UNDEFINED));
        });
        let err_req = req.clone();
        let err = Closure::once_into_js(move |_: JsValue| {
            let e = err_req.error().ok().flatten().map(JsValue::from).unwrap_or(JsValue::UNDEFINED);
            let _ = reject.call1(&JsValue::UNDEFINED, &e);
        });
        req.set_onsuccess(Some(ok.unchecked_ref()));
        req.set_onerror(Some(err.unchecked_ref()));
    });
    JsFuture::from(promise).await.map_err(|e| storage_error(what, &e))
}

/// Waits for a transaction to commit (`complete`), or fails on `error` / `abort`.
async fn committed(tx: &IdbTransaction, what: &str) -> JsResult<()> {
    let promise = Promise::new(&mut |resolve, reject| {
        let ok = Closure::once_into_js(move |_: JsValue| {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
        let fail_tx = tx.clone();
        let reject2 = reject.clone();
        let fail = Closure::once_into_js(move |_: JsValue| {
            let e = fail_tx.error().map(JsValue::from).unwrap_or(JsValue::UNDEFINED);
            let _ = reject2.call1(&JsValue::UNDEFINED, &e);
        });
        let abort_tx = tx.clone();
        let abort = Closure::once_into_js(move |_: JsValue| {
            let e = abort_tx.error().map(JsValue::from).unwrap_or(JsValue::UNDEFINED);
            let _ = reject.call1(&JsValue::UNDEFINED, &e);
        });
        tx.set_oncomplete(Some(ok.unchecked_ref()));
        tx.set_onerror(Some(fail.unchecked_ref()));
        tx.set_onabort(Some(abort.unchecked_ref()));
    });
    JsFuture::from(promise).await.map(|_| ()).map_err(|e| storage_error(what, &e))
}

fn factory() -> JsResult<IdbFactory> {
    js_sys::Reflect::get(&js_sys::global(), &"indexedDB".into())
        .ok()
        .filter(|f| !f.is_undefined() && !f.is_null())
        .map(|f| f.unchecked_into::<IdbFactory>())
        .ok_or_else(|| {
            to_js_error(Error::new(
                ErrorCode::StorageError,
                "IndexedDB is not available here (it exists in browsers and workers; in Node use FileLog)",
            ))
        })
}

fn tx(db: &IdbDatabase, store: &str, mode: IdbTransactionMode) -> JsResult<IdbTransaction> {
    db.transaction_with_str_and_mode(store, mode).map_err(|e| storage_error("transaction", &e))
}

/// An event log and checkpoint store in one IndexedDB database (browsers and workers).
///
/// @example
/// const log = await IndexedDbLog.open("my-agent");
/// const store = new StateStore({ onEvents: (events) => log.append(events) });
/// await log.saveCheckpoint(store.checkpoint());
/// const { checkpoint, events } = await log.load();
/// const again = StateStore.restore(checkpoint, events);
#[wasm_bindgen(js_name = IndexedDbLog)]
pub struct JsIndexedDbLog {
    db: IdbDatabase,
}

#[wasm_bindgen(js_class = IndexedDbLog)]
impl JsIndexedDbLog {
    /// Opens (creating if needed) the database `name`. Rejects with `STORAGE_ERROR`.
    #[wasm_bindgen(unchecked_return_type = "Promise<IndexedDbLog>")]
    pub fn open(#[wasm_bindgen(unchecked_param_type = "string")] name: JsValue) -> Promise {
        future_to_promise(async move {
            let name = super::interop::string_arg(&name, "name")?;
            let open: IdbOpenDbRequest = factory()?.open_with_u32(&name, 1).map_err(|e| storage_error("open", &e))?;
            let upgrade_req = open.clone();
            let upgrade = Closure::once_into_js(move |_: JsValue| {
                if let Ok(db) = upgrade_req.result().and_then(|r| r.dyn_into::<IdbDatabase>()) {
                    let names = db.object_store_names();
                    for store in [EVENTS, CHECKPOINTS] {
                        if !names.contains(store) {
                            let _ = db.create_object_store(store);
                        }
                    }
                }
            });
            open.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
            let db = request(&open, "open").await?.dyn_into::<IdbDatabase>().map_err(|e| storage_error("open", &e))?;
            Ok(JsIndexedDbLog { db }.into())
        })
    }

    /// Appends events (an array of events or their JSON Lines), each under its sequence, in one
    /// transaction; resolves once committed. Rewriting a sequence replaces it.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn append(&self, #[wasm_bindgen(unchecked_param_type = "StoreEvent[] | string")] events: JsValue) -> Promise {
        let db = self.db.clone();
        future_to_promise(async move {
            let events: Vec<Event> = match events.as_string() {
                Some(text) => parse_jsonl(&text).map_err(to_js_error)?,
                None => super::interop::from_js_json_max(
                    &events,
                    ErrorCode::TamperedLog,
                    "events are a list of logged events",
                    u32::MAX,
                )?,
            };
            let t = tx(&db, EVENTS, IdbTransactionMode::Readwrite)?;
            let store = t.object_store(EVENTS).map_err(|e| storage_error("append", &e))?;
            for e in &events {
                let text = serde_json::to_string(e)
                    .map_err(|err| to_js_error(Error::new(ErrorCode::StorageError, err.to_string())))?;
                store
                    .put_with_key(&JsValue::from_str(&text), &JsValue::from_f64(e.sequence as f64))
                    .map_err(|err| storage_error("append", &err))?;
            }
            committed(&t, "append").await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Saves checkpoint bytes as the latest checkpoint; resolves once committed.
    #[wasm_bindgen(js_name = saveCheckpoint, unchecked_return_type = "Promise<void>")]
    pub fn save_checkpoint(&self, #[wasm_bindgen(unchecked_param_type = "Uint8Array")] checkpoint: JsValue) -> Promise {
        let db = self.db.clone();
        future_to_promise(async move {
            let checkpoint = checkpoint
                .dyn_into::<Uint8Array>()
                .map_err(|_| {
                    to_js_error(Error::new(
                        ErrorCode::InvalidOption,
                        "a checkpoint is the Uint8Array store.checkpoint() returns",
                    ))
                })?
                .to_vec();
            let t = tx(&db, CHECKPOINTS, IdbTransactionMode::Readwrite)?;
            let store = t.object_store(CHECKPOINTS).map_err(|e| storage_error("saveCheckpoint", &e))?;
            let bytes = Uint8Array::from(checkpoint.as_slice());
            store
                .put_with_key(&bytes, &JsValue::from_str("latest"))
                .map_err(|e| storage_error("saveCheckpoint", &e))?;
            committed(&t, "saveCheckpoint").await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Loads `{checkpoint: Uint8Array | null, events: string}` (events as JSON Lines in sequence
    /// order), ready for `StateStore.restore(checkpoint, events)` or `StateStore.replay(events)`.
    #[wasm_bindgen(unchecked_return_type = "Promise<{ checkpoint: Uint8Array | null; events: string }>")]
    pub fn load(&self) -> Promise {
        let db = self.db.clone();
        future_to_promise(async move {
            let t = db
                .transaction_with_str_sequence(&Array::of2(&EVENTS.into(), &CHECKPOINTS.into()))
                .map_err(|e| storage_error("load", &e))?;
            let cp_req = t
                .object_store(CHECKPOINTS)
                .and_then(|s| s.get(&JsValue::from_str("latest")))
                .map_err(|e| storage_error("load", &e))?;
            let ev_req = t.object_store(EVENTS).and_then(|s| s.get_all()).map_err(|e| storage_error("load", &e))?;
            let checkpoint = request(&cp_req, "load").await?;
            let events = Array::from(&request(&ev_req, "load").await?);
            let mut jsonl = String::new();
            for line in events.iter() {
                jsonl.push_str(&line.as_string().unwrap_or_default());
                jsonl.push('\n');
            }
            let out = js_sys::Object::new();
            js_sys::Reflect::set(
                &out,
                &"checkpoint".into(),
                &if checkpoint.is_undefined() { JsValue::NULL } else { checkpoint },
            )?;
            js_sys::Reflect::set(&out, &"events".into(), &to_js(&jsonl)?)?;
            Ok(out.into())
        })
    }

    /// Closes the connection.
    pub fn close(&self) {
        self.db.close();
    }

    /// Deletes the database `name` (close open logs first). Resolves once deleted.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn destroy(#[wasm_bindgen(unchecked_param_type = "string")] name: JsValue) -> Promise {
        future_to_promise(async move {
            let name = super::interop::string_arg(&name, "name")?;
            let req = factory()?.delete_database(&name).map_err(|e| storage_error("destroy", &e))?;
            request(&req, "destroy").await?;
            Ok(JsValue::UNDEFINED)
        })
    }
}
