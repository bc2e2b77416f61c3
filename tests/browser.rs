//! Browser-only wasm-bindgen tests: the IndexedDB persistence adapter, in headless Chrome and
//! Firefox (`WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless --chrome --firefox`). Node has
//! no IndexedDB, so `scripts/test.sh` runs only `tests/web.rs` there.
#![cfg(target_arch = "wasm32")]

use js_sys::{Reflect, Uint8Array};
use stategate::js::{JsIndexedDbLog, JsStateStore};
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

fn parse(text: &str) -> JsValue {
    js_sys::JSON::parse(text).expect("test JSON")
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).expect("property")
}

fn text(v: &JsValue) -> String {
    js_sys::JSON::stringify(v).unwrap().as_string().unwrap()
}

async fn open(name: &str) -> JsIndexedDbLog {
    JsFuture::from(JsIndexedDbLog::destroy(name.into())).await.unwrap();
    let db = JsFuture::from(JsIndexedDbLog::open(name.into())).await.unwrap();
    // wasm-bindgen hands the class back as a JS object; take it back by pointer-free conversion.
    JsIndexedDbLog::try_from_js_value(db).expect("an IndexedDbLog")
}

const CALLS: &str = r#"{"author": "model", "update": {"messages": [{"role": "user", "content": "fetch"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "fetch", "arguments": "{}"}},
    {"id": "c2", "type": "function", "function": {"name": "fetch", "arguments": "{}"}},
    {"id": "c3", "type": "function", "function": {"name": "fetch", "arguments": "{}"}}]}]}}"#;

#[wasm_bindgen_test]
async fn indexeddb_saves_appends_and_loads_a_store() {
    let log = open("stategate-test-1").await;
    let store = JsStateStore::new(Some(parse(r#"{"runId": "idb"}"#))).unwrap();
    store.apply(parse(CALLS)).unwrap();
    JsFuture::from(log.append(store.events(None).unwrap())).await.unwrap();
    JsFuture::from(log.save_checkpoint(Uint8Array::from(store.checkpoint().unwrap().as_slice()).into())).await.unwrap();
    // Crash after the first of three tool results of one batch: only its event was appended.
    store.apply(parse(r#"{"author": "tool", "update": {"messages": [{"role": "tool", "tool_call_id": "c1", "content": "page 1"}]}}"#)).unwrap();
    JsFuture::from(log.append(store.events(Some(parse(r#"{"since": 1}"#))).unwrap())).await.unwrap();
    log.close();

    let log = JsIndexedDbLog::try_from_js_value(
        JsFuture::from(JsIndexedDbLog::open("stategate-test-1".into())).await.unwrap(),
    )
    .unwrap();
    let loaded = JsFuture::from(log.load()).await.unwrap();
    let checkpoint = get(&loaded, "checkpoint");
    assert!(checkpoint.is_instance_of::<Uint8Array>());
    let events = get(&loaded, "events");
    assert_eq!(events.as_string().unwrap().lines().count(), 2);
    let restored = JsStateStore::restore(checkpoint, Some(events), None).unwrap();
    assert_eq!(restored.version().unwrap(), 2.0);
    assert_eq!(text(&restored.system_view().unwrap()), text(&store.system_view().unwrap()));
    let dangling = text(&restored.dangling_tool_calls().unwrap());
    assert_eq!(
        dangling,
        r#"[{"toolCallId":"c2","name":"fetch","messageId":"idb:1:1"},{"toolCallId":"c3","name":"fetch","messageId":"idb:1:1"}]"#
    );
    log.close();
    JsFuture::from(JsIndexedDbLog::destroy("stategate-test-1".into())).await.unwrap();
}

#[wasm_bindgen_test]
async fn indexeddb_tampered_events_are_refused_on_restore() {
    let log = open("stategate-test-2").await;
    let store = JsStateStore::new(Some(parse(r#"{"runId": "idb2"}"#))).unwrap();
    store.apply(parse(r#"{"author": "u", "update": {"facts": {"city": "Paris"}}}"#)).unwrap();
    store.apply(parse(r#"{"author": "u", "update": {"facts": {"day": "Monday"}}}"#)).unwrap();
    let jsonl = store.events_jsonl(None).unwrap().replace("Paris", "Rome!");
    JsFuture::from(log.append(jsonl.into())).await.unwrap();
    let loaded = JsFuture::from(log.load()).await.unwrap();
    assert!(get(&loaded, "checkpoint").is_null());
    let err = JsStateStore::replay(get(&loaded, "events"), None).err().expect("tampered log refused");
    assert_eq!(get(&err, "code").as_string().unwrap(), "TAMPERED_LOG");
    assert_eq!(get(&get(&err, "details"), "index").as_f64(), Some(0.0));
    log.close();
}
