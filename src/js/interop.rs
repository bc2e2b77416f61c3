//! Conversions between JS values and the core's types, and errors as JS `Error`s.

use crate::error::{Error, ErrorCode};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// A core error as a JS `Error` whose `code` is the stable code and whose `details` holds
/// `{index?, field?, channel?, command?, authors?}`. Never a thrown string.
pub(crate) fn to_js_error(e: Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("StategateError");
    let details = js_sys::Object::new();
    if let Some(i) = e.index {
        let _ = js_sys::Reflect::set(&details, &"index".into(), &JsValue::from(i as u32));
    }
    if let Some(f) = &e.field {
        let _ = js_sys::Reflect::set(&details, &"field".into(), &JsValue::from_str(f));
    }
    if let Some(c) = &e.channel {
        let _ = js_sys::Reflect::set(&details, &"channel".into(), &JsValue::from_str(c));
    }
    if let Some(c) = e.command {
        let _ = js_sys::Reflect::set(&details, &"command".into(), &JsValue::from(c as u32));
    }
    if !e.authors.is_empty() {
        let authors: js_sys::Array = e.authors.iter().map(|a| JsValue::from_str(a)).collect();
        let _ = js_sys::Reflect::set(&details, &"authors".into(), &authors);
    }
    let _ = js_sys::Reflect::set(&err, &"code".into(), &JsValue::from_str(e.code.as_str()));
    let _ = js_sys::Reflect::set(&err, &"details".into(), &details);
    err.into()
}

/// Rust → JS with plain objects (BOUNDARY.md trap 1: never `Map`s).
pub(crate) fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, JsValue> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| to_js_error(Error::new(ErrorCode::InvalidMessage, format!("could not convert the result to JS: {e}"))))
}

/// JS → Rust; a shape mismatch is `INVALID_OPTION` (options are the only typed JS input).
pub(crate) fn from_js<T: DeserializeOwned>(v: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(v).map_err(|e| to_js_error(Error::new(ErrorCode::InvalidOption, format!("invalid options: {e}"))))
}

/// JS → Rust through `JSON.stringify` + serde_json: for commands, whose message text dominates,
/// this is ~2 µs cheaper per message than reading the object field by field, and it treats
/// `undefined` fields as JSON does (dropped), so `{k: undefined}` never deletes a key. `NaN` and
/// `Infinity` become `null`; a `BigInt` or a cycle is `code`.
pub(crate) fn from_js_json<T: DeserializeOwned>(v: &JsValue, code: ErrorCode, what: &str) -> Result<T, JsValue> {
    let text = js_sys::JSON::stringify(v)
        .map_err(|e| to_js_error(Error::new(code, format!("{what}: it cannot be written as JSON ({})", js_sys::Error::from(e).message()))))?;
    let text = text.as_string().ok_or_else(|| to_js_error(Error::new(code, format!("{what}: got undefined"))))?;
    serde_json::from_str(&text).map_err(|e| to_js_error(Error::new(code, format!("{what}: {e}"))))
}

/// Messages given as an array of objects, or as JSON text (parsed in Rust: 3–4× cheaper).
pub(crate) fn input_values(messages: JsValue) -> Result<Vec<Value>, JsValue> {
    if let Some(text) = messages.as_string() {
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| to_js_error(Error::new(ErrorCode::InvalidJson, format!("messages are not valid JSON: {e}"))))?;
        return match v {
            Value::Array(a) => Ok(a),
            _ => Err(to_js_error(Error::new(ErrorCode::InvalidMessage, "messages must be an array"))),
        };
    }
    if !js_sys::Array::is_array(&messages) {
        return Err(to_js_error(Error::new(ErrorCode::InvalidMessage, "messages must be an array or its JSON text")));
    }
    serde_wasm_bindgen::from_value(messages).map_err(|e| to_js_error(Error::new(ErrorCode::InvalidMessage, format!("messages could not be read: {e}"))))
}
