//! Conversions between JS values and the core's types, and errors as JS `Error`s.

use crate::error::{Error, ErrorCode};
use crate::message::formats::util::mend_lone_surrogates;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// A core error as a JS `Error` named `StategateError` whose `code` is the stable code and whose
/// `details` is [`crate::error::ErrorDetails`]. Never a thrown string. Out of line: it was
/// inlined into each of the ~90 places that throw (issue 17, row 5); errors are the cold path.
#[cold]
#[inline(never)]
pub(crate) fn to_js_error(e: Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("StategateError");
    let details = to_js(&e.details()).unwrap_or_else(|_| js_sys::Object::new().into());
    let _ = js_sys::Reflect::set(&err, &"code".into(), &JsValue::from_str(e.code.as_str()));
    let _ = js_sys::Reflect::set(&err, &"details".into(), &details);
    err.into()
}

/// What a thrown JS value says, without calling anything that could throw again: an `Error`'s
/// message, a thrown string, or a note that something else was thrown.
pub(crate) fn describe(e: &JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    if e.dyn_ref::<js_sys::Error>().is_none() {
        return "a value that is not an Error was thrown".to_string();
    }
    // `Reflect.get` catches a `message` getter that throws (`Error.message()` would let it
    // unwind through wasm).
    match js_sys::Reflect::get(e, &"message".into()) {
        Ok(m) => m.as_string().unwrap_or_else(|| "an Error without a message".to_string()),
        Err(_) => "an Error whose message cannot be read".to_string(),
    }
}

/// Rust → JS through JSON text and `JSON.parse`: plain objects (never `Map`s, BOUNDARY.md trap
/// 1), `__proto__` keys as own data properties, and integers beyond 2^53 rounded to the nearest
/// double as JavaScript itself would, instead of failing (trap 3).
pub(crate) fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(v).map_err(|e| {
        to_js_error(Error::new(ErrorCode::InvalidOption, format!("could not write the result as JSON: {e}")))
    })?;
    json_to_js(&text)
}

#[cfg(feature = "store")]
/// `apply`'s answer `{version, ids}` ([`crate::state::Applied`]) built in JS directly: one
/// object, one array, a string per id. Through JSON text it was a `JSON.parse` per append, a
/// tenth of an append (issue 17).
pub(crate) fn applied_to_js(out: &crate::state::Applied) -> JsValue {
    // Built by one JS call: the keys are literals there, not strings decoded from wasm memory
    // and set one boundary call at a time (an append's result, issue 17 row 2). One id (an
    // append) crosses as the call's string argument, without an array built call by call.
    if let [id] = out.ids.as_slice() {
        return stategate_applied_one(out.version as f64, id);
    }
    let ids: js_sys::Array = out.ids.iter().map(|id| JsValue::from_str(id)).collect();
    stategate_applied(out.version as f64, &ids)
}

/// JSON text written in Rust as JS values, through `JSON.parse` (see [`to_js`]).
pub(crate) fn json_to_js(text: &str) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(text).map_err(|e| {
        to_js_error(Error::new(ErrorCode::InvalidOption, format!("could not read the result back: {}", describe(&e))))
    })
}

/// JS → Rust for options; a shape mismatch is `INVALID_OPTION`.
pub(crate) fn from_js<T: DeserializeOwned>(v: JsValue) -> Result<T, JsValue> {
    from_js_json(&v, ErrorCode::InvalidOption, "invalid options")
}

/// The largest command, batch or option value accepted, in UTF-16 code units of its JSON text
/// (logs given as event objects have no limit but the engine's string length).
pub(crate) const MAX_INPUT_CHARS: u32 = 32 * 1024 * 1024;

#[wasm_bindgen(inline_js = "
const replacer = function (key, value) {
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value)) throw new RangeError('NaN and Infinity cannot be stored: JSON would turn them into null');
      return value;
    case 'string':
      return typeof value.isWellFormed !== 'function' || value.isWellFormed() ? value : value.toWellFormed();
    case 'object': {
      if (value instanceof Map || value instanceof Set) throw new TypeError('a Map or Set cannot be stored: convert it to an object or an array');
      // `this[key]` is the value before its toJSON: a Node Buffer's is {type: 'Buffer', data}.
      const given = this[key];
      if (value instanceof ArrayBuffer || ArrayBuffer.isView(value) || given instanceof ArrayBuffer || ArrayBuffer.isView(given)) throw new TypeError('binary data (an ArrayBuffer, a typed array or a Buffer) cannot be stored: JSON would turn it into an object of numbered keys, {} or a Buffer\\'s {type, data}; give it as base64 text or a URL');
      return value;
    }
    case 'undefined':
    case 'function':
    case 'symbol':
      if (Array.isArray(this)) throw new TypeError('an array holds ' + (typeof value) + ' at index ' + key + ': JSON would turn it into null');
      return value;
    default:
      return value;
  }
};
export function stategate_replacer() { return replacer; }
export function stategate_plain_json(value, check) {
  const text = JSON.stringify(value);
  if (typeof text !== 'string') return undefined;
  return check && stategate_lossy(text) ? null : text;
}
export function stategate_lossy(text) {
  return text.includes('null') || text.includes('{}') || text.includes('{\"0\":') || text.includes('Buffer\",\"data\":[');
}
export function stategate_applied(version, ids) { return { version, ids }; }
export function stategate_applied_one(version, id) { return { version, ids: [id] }; }
const encoder = new TextEncoder();
export function stategate_encode_into(text, memory, ptr, cap) {
  const r = encoder.encodeInto(text, new Uint8Array(memory.buffer, ptr, cap));
  return r.read === text.length ? r.written : -1;
}
// As much of the text from unit `start` as fits in `cap` bytes (whole characters: encodeInto
// never splits a surrogate pair), as read * 2^32 + written.
export function stategate_encode_from(text, start, memory, ptr, cap) {
  const r = encoder.encodeInto(start === 0 ? text : text.substring(start), new Uint8Array(memory.buffer, ptr, cap));
  return r.read * 4294967296 + r.written;
}
")]
extern "C" {
    fn stategate_replacer() -> js_sys::Function;
    #[wasm_bindgen(catch)]
    fn stategate_plain_json(value: &JsValue, check: bool) -> Result<JsValue, JsValue>;
    fn stategate_lossy(text: &js_sys::JsString) -> bool;
    fn stategate_applied(version: f64, ids: &js_sys::Array) -> JsValue;
    fn stategate_applied_one(version: f64, id: &str) -> JsValue;
    fn stategate_encode_into(text: &js_sys::JsString, memory: &JsValue, ptr: u32, cap: u32) -> i32;
    fn stategate_encode_from(text: &js_sys::JsString, start: u32, memory: &JsValue, ptr: u32, cap: u32) -> f64;
}

thread_local! {
    /// This instance's memory, as the JS snippets take it (several instances of the module may
    /// share a snippet: each call is handed the caller's).
    static MEMORY: JsValue = wasm_bindgen::memory();
}

/// Calls `f` with this instance's `WebAssembly.Memory`, for a JS snippet to read or write it.
pub(crate) fn with_memory<R>(f: impl FnOnce(&JsValue) -> R) -> R {
    MEMORY.with(f)
}

/// A JS string as a Rust `String`, written straight into wasm memory by `TextEncoder.encodeInto`
/// (lone surrogates become U+FFFD, as with `String::from`). wasm-bindgen's own conversion copies
/// an ASCII string one character at a time in a JS loop: twice the floor of an append (issue 17),
/// and a tenth of a replay of a 57 MiB log.
///
/// The buffer is 3 bytes per UTF-16 unit, which always suffices; a string over a million units
/// (a log) first tries 9/8 bytes per unit, enough for JSON that is mostly ASCII, so its copy is
/// not three times its size. Errors: `TOO_LARGE` when the wasm memory cannot hold the text (where
/// wasm-bindgen's conversion would abort the module).
pub(crate) fn utf8_of(text: &js_sys::JsString) -> Result<String, Error> {
    let units = text.length() as usize;
    let mut sizes = [units.saturating_mul(3), units.saturating_mul(3)];
    if units > 1 << 20 {
        sizes[0] = units + units / 8 + 16;
    }
    let too_large = || {
        Error::new(
            ErrorCode::TooLarge,
            format!("a text of {units} UTF-16 code units does not fit in the module's memory"),
        )
    };
    for cap in sizes {
        let cap32 = u32::try_from(cap).map_err(|_| too_large())?;
        let mut buf: Vec<u8> = Vec::new();
        buf.try_reserve_exact(cap).map_err(|_| too_large())?;
        buf.resize(cap, 0);
        // The pointer and length of a live, initialised buffer, written by JS before it is read.
        let written = with_memory(|memory| stategate_encode_into(text, memory, buf.as_mut_ptr() as u32, cap32));
        if let Ok(n) = usize::try_from(written) {
            buf.truncate(n);
            return Ok(String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()));
        }
    }
    // Unreachable (3 bytes per unit always suffice); the engine's own conversion decides.
    Ok(String::from(text))
}

#[cfg(feature = "store")]
/// The bytes of a piece of text [`utf8_pieces`] reads at a time (at most; whole characters).
const PIECE_BYTES: usize = 1 << 20;

#[cfg(feature = "store")]
/// A JS string read as UTF-8 a piece at a time, for [`crate::state::Store::replay_jsonl_pieces`]:
/// each call appends the next piece (at most [`PIECE_BYTES`], whole characters, lone surrogates
/// as U+FFFD, as [`utf8_of`] reads them) to the buffer and returns `true`, or `false` at the
/// end. The whole text is never copied into wasm memory at once.
pub(crate) fn utf8_pieces(text: &js_sys::JsString) -> impl FnMut(&mut Vec<u8>) -> Result<bool, Error> + '_ {
    let units = text.length();
    let mut start = 0u32;
    let mut piece: Vec<u8> = Vec::new();
    move |buf| {
        if start >= units {
            return Ok(false);
        }
        if piece.is_empty() {
            piece.try_reserve_exact(PIECE_BYTES).map_err(|_| {
                Error::new(ErrorCode::TooLarge, "no room in the module's memory to read the log's text")
            })?;
            piece.resize(PIECE_BYTES, 0);
        }
        // A live, initialised buffer, written by JS before it is read.
        let both = with_memory(|memory| {
            stategate_encode_from(text, start, memory, piece.as_mut_ptr() as u32, PIECE_BYTES as u32)
        });
        let (read, written) = ((both / 4294967296.0) as u32, (both % 4294967296.0) as usize);
        if read == 0 {
            return Err(Error::new(ErrorCode::InvalidJson, "the log's text could not be read as UTF-8"));
        }
        buf.extend_from_slice(piece.get(..written).unwrap_or_default());
        start = start.saturating_add(read);
        Ok(true)
    }
}

thread_local! {
    static REPLACER: js_sys::Function = stategate_replacer();
}

/// The JSON text of a JS value, through `JSON.stringify` with the replacer — the careful way JS
/// input enters the core ([`input_text`] tries plain `JSON.stringify` first).
///
/// Never reads the object from Rust and never recurses in wasm, so nothing the caller passes can
/// trap the module: a cycle, a throwing getter or `toJSON`, a revoked Proxy, a `BigInt` or a
/// value nested deeper than the engine's stack make `JSON.stringify` throw, and that becomes a
/// `code` error; depth is then bounded by serde_json's reader (128 levels). `undefined` fields are
/// dropped as JSON drops them, `__proto__` stays a plain key, and text crosses in one copy. What
/// JSON would lose silently is refused: `NaN`, `Infinity`, `Map`, `Set`, binary data (an
/// `ArrayBuffer`, a typed array, a `DataView`, a Node `Buffer`), and `undefined`, a function or a symbol inside an
/// array (JSON writes `null`); a lone surrogate becomes U+FFFD.
/// Text over `max` UTF-16 code units is `TOO_LARGE`.
fn json_text(v: &JsValue, code: ErrorCode, what: &str, max: u32) -> Result<String, Error> {
    let text =
        REPLACER.with(|r| js_sys::JSON::stringify_with_replacer(v, r)).map_err(|e| cannot_store(code, what, &e))?;
    checked_text(&text.into(), code, what, max)
}

/// The error for a value `JSON.stringify` threw on.
#[cold]
pub(crate) fn cannot_store(code: ErrorCode, what: &str, e: &JsValue) -> Error {
    Error::new(code, format!("{what}: it cannot be stored as JSON ({})", describe(e)))
}

/// `JSON.stringify`'s result as UTF-8 within `max` UTF-16 code units. It returns undefined (not a
/// string) for undefined, functions and symbols: checked before the result is touched, so nothing
/// here can throw past a `Result`.
fn checked_text(text: &JsValue, code: ErrorCode, what: &str, max: u32) -> Result<String, Error> {
    let Some(text) = text.dyn_ref::<js_sys::JsString>() else {
        return Err(Error::new(code, format!("{what}: got undefined, a function or a symbol")));
    };
    if text.length() > max {
        return Err(Error::new(
            ErrorCode::TooLarge,
            format!("{what}: {} characters of JSON; the limit is {max}", text.length()),
        ));
    }
    utf8_of(text)
}

/// [`json_text`] parsed by serde_json. Fast path: plain `JSON.stringify` (a replacer turns V8's
/// fast serializer off); what it could have lost silently only ever shows as `null` (NaN,
/// Infinity, undefined in an array), `{}` (Map, Set, ArrayBuffer) or an object of numbered keys
/// (a typed array), and lone surrogates make serde_json fail: in those cases, stringify again
/// through the replacer. Everything but the one serde_json call per type is in [`input_text`]
/// and [`read_error`], written once for every type read.
pub(crate) fn parse_js<T: DeserializeOwned>(v: &JsValue, code: ErrorCode, what: &str, max: u32) -> Result<T, Error> {
    let (s, careful) = input_text(v, code, what, max, false)?;
    parse_text(v, code, what, max, &s, careful)
}

#[cfg(feature = "store")]
/// [`parse_js`] with a quicker reading tried first on the plain JSON text (`fast`, e.g. a plain
/// append): its answer when it gives one (`Ok`), else `T` as `parse_js` reads it (`Err`). The
/// lost-value check of [`input_text`] is made only when `fast` gives nothing: `fast` must refuse
/// every text holding what that check looks for (a `null`, a `{}`, a key `"0"`, a Buffer).
pub(crate) fn parse_js_or<F, T: DeserializeOwned>(
    v: &JsValue,
    code: ErrorCode,
    what: &str,
    fast: impl FnOnce(&str) -> Option<F>,
) -> Result<Result<F, T>, Error> {
    let max = MAX_INPUT_CHARS;
    let plain = stategate_plain_json(v, false).map_err(|e| cannot_store(code, what, &e))?;
    let text = plain.dyn_ref::<js_sys::JsString>();
    if let Some(text) = text {
        let s = checked_text(&plain, code, what, max)?;
        if let Some(f) = fast(&s) {
            return Ok(Ok(f));
        }
        if !stategate_lossy(text) {
            return parse_text(v, code, what, max, &s, false).map(Err);
        }
    }
    let (s, careful) = input_text(v, code, what, max, text.is_some())?;
    parse_text(v, code, what, max, &s, careful).map(Err)
}

/// `T` read from `s`, [`input_text`]'s text of `v`: when plain JSON's text fails to read, the
/// careful text (through the replacer) is read instead.
fn parse_text<T: DeserializeOwned>(
    v: &JsValue,
    code: ErrorCode,
    what: &str,
    max: u32,
    s: &str,
    careful: bool,
) -> Result<T, Error> {
    match serde_json::from_str(s) {
        Ok(out) => Ok(out),
        Err(_) if !careful => {
            serde_json::from_str(&input_text(v, code, what, max, true)?.0).map_err(|e| read_error(code, what, &e))
        }
        Err(e) => Err(read_error(code, what, &e)),
    }
}

/// The JSON text [`parse_js`] reads, and whether it came through the replacer (`careful`: `false`
/// tries plain `JSON.stringify` first, as [`parse_js`] says: `stategate_plain_json` answers `null`
/// when its text holds a `null`, a `{}`, an object whose first key is `"0"` or a Node Buffer's
/// `{"type":"Buffer","data":[…]}`, what plain JSON writes for a value it could not carry; V8's substring search, where a byte loop here was 5% of
/// an append). A lone surrogate in a key stays escaped
/// through the replacer (it mends values only): it reads as U+FFFD, as the JSON text form of the
/// same input reads it.
#[inline(never)]
fn input_text(v: &JsValue, code: ErrorCode, what: &str, max: u32, careful: bool) -> Result<(String, bool), Error> {
    if !careful {
        // Not mended here (no scan of every input for `\u`): serde_json refuses a lone
        // surrogate's escape wherever it reads a string, and [`parse_js`] then reads the
        // careful text, which is mended. (A skipped value is never read: same answer.)
        let plain = stategate_plain_json(v, true).map_err(|e| cannot_store(code, what, &e))?;
        if !plain.is_null() {
            return Ok((checked_text(&plain, code, what, max)?, false));
        }
    }
    let s = json_text(v, code, what, max)?;
    Ok((mend_lone_surrogates(&s).unwrap_or(s), true))
}

/// `code` for a text serde_json could not read as the type asked, without the value serde quotes:
/// `invalid type: string "…", expected …` names a string, never its text (errors carry no content
/// or state values, docs/errors.md; a command passed as JSON text was echoed whole).
#[inline(never)]
fn read_error(code: ErrorCode, what: &str, e: &serde_json::Error) -> Error {
    let text = e.to_string();
    let message = match text.find(" string \"") {
        Some(at) => {
            // Skip the quoted value: up to the first quote no backslash escapes.
            let rest = &text[at + " string \"".len()..];
            let mut escaped = false;
            let end = rest.char_indices().find(|&(_, c)| {
                let close = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                close
            });
            match end {
                Some((i, _)) => format!("{} a string{}", &text[..at], &rest[i + 1..]),
                None => format!("{} a string", &text[..at]),
            }
        }
        None => text,
    };
    Error::new(code, format!("{what}: {message}"))
}

/// JS → Rust through [`json_text`]: a shape mismatch or anything JSON cannot carry is `code`.
pub(crate) fn from_js_json<T: DeserializeOwned>(v: &JsValue, code: ErrorCode, what: &str) -> Result<T, JsValue> {
    from_js_json_max(v, code, what, MAX_INPUT_CHARS)
}

/// [`from_js_json`] with another size limit.
pub(crate) fn from_js_json_max<T: DeserializeOwned>(
    v: &JsValue,
    code: ErrorCode,
    what: &str,
    max: u32,
) -> Result<T, JsValue> {
    parse_js(v, code, what, max).map_err(to_js_error)
}

/// A string argument; anything else is `INVALID_OPTION` naming the argument (wasm-bindgen does
/// not check types: a number passed as `&str` would be read as garbage).
pub(crate) fn string_arg(v: &JsValue, what: &str) -> Result<String, JsValue> {
    v.as_string().ok_or_else(|| to_js_error(Error::new(ErrorCode::InvalidOption, format!("{what} must be a string"))))
}

/// An optional string argument (`undefined` / `null` = absent).
pub(crate) fn opt_string_arg(v: Option<JsValue>, what: &str) -> Result<Option<String>, JsValue> {
    present(v).map(|v| string_arg(&v, what)).transpose()
}

/// Messages given as an array of objects, or as JSON text (parsed in Rust: 3–4× cheaper). Both
/// go through serde_json's bounded reader and the same size limit (`TOO_LARGE` over
/// [`MAX_INPUT_CHARS`] UTF-16 units of JSON text), so both forms give one answer: an array through
/// [`json_text`] (an element that cannot be read is named by `details.index`), text as it is
/// (JSON's `\ud800` escapes of lone surrogates read as U+FFFD, as the array form reads them).
pub(crate) fn input_values(messages: &JsValue) -> Result<Vec<Value>, JsValue> {
    if messages.is_string() {
        // The array form's limit, on the text as given (it was read at any length).
        let text =
            checked_text(messages, ErrorCode::InvalidMessage, "messages", MAX_INPUT_CHARS).map_err(to_js_error)?;
        return crate::message::formats::values_from_json_text(&text).map_err(to_js_error);
    }
    let Some(array) = messages.dyn_ref::<js_sys::Array>() else {
        return Err(to_js_error(Error::new(ErrorCode::InvalidMessage, "messages must be an array or its JSON text")));
    };
    match parse_js::<Vec<Value>>(messages, ErrorCode::InvalidMessage, "messages", MAX_INPUT_CHARS) {
        Ok(values) => Ok(values),
        Err(whole) if whole.code == ErrorCode::TooLarge => Err(to_js_error(whole)),
        // Name the first message that cannot be read on its own (only on this failure path).
        Err(whole) => {
            for (i, m) in array.iter().enumerate() {
                if let Err(e) =
                    parse_js::<Value>(&m, ErrorCode::InvalidMessage, &format!("message {i}"), MAX_INPUT_CHARS)
                {
                    return Err(to_js_error(e.at(i)));
                }
            }
            Err(to_js_error(whole))
        }
    }
}

#[cfg(feature = "store")]
/// [`options`] read through a JSON tree: `T::deserialize` of a `serde_json::Value`, the reader a
/// checkpoint's channel specs go through, instead of a second reader of the same types over text
/// (issue 17, row 5). Same answers and errors as [`options`], without serde's line and column.
pub(crate) fn options_tree<T: DeserializeOwned + Default>(v: Option<JsValue>) -> Result<T, JsValue> {
    let Some(v) = present(v) else { return Ok(T::default()) };
    from_js_tree(&v)
}

#[cfg(feature = "store")]
/// [`from_js`] read through a JSON tree, as [`options_tree`]: an options object (an array, which
/// serde would read as the fields in order and `JSON.stringify` writes without its named
/// properties, is `INVALID_OPTION`).
pub(crate) fn from_js_tree<T: DeserializeOwned>(v: &JsValue) -> Result<T, JsValue> {
    let (code, what) = (ErrorCode::InvalidOption, "invalid options");
    let tree: Value = parse_js(v, code, what, MAX_INPUT_CHARS).map_err(to_js_error)?;
    if !tree.is_object() {
        let got = crate::message::formats::util::kind(&tree);
        return Err(to_js_error(Error::new(code, format!("{what}: expected an object, got {got}"))));
    }
    T::deserialize(tree).map_err(|e| to_js_error(read_error(code, what, &e)))
}

/// An optional JS argument with absence decided once: `undefined` and `null` are absent.
pub(crate) fn present(v: Option<JsValue>) -> Option<JsValue> {
    v.filter(|v| !v.is_undefined() && !v.is_null())
}

/// An options argument: its default when absent ([`present`]), else read by [`from_js`] (a
/// misspelt option is `INVALID_OPTION` where the options type refuses unknown fields).
pub(crate) fn options<T: DeserializeOwned + Default>(v: Option<JsValue>) -> Result<T, JsValue> {
    present(v).map_or_else(|| Ok(T::default()), from_js)
}
