//! The gate every change of a JS store goes through: the shared store with its JS callbacks
//! (`clock`, `onEvents` as the write-ahead sink, `audit`), the busy check that keeps a callback
//! from re-entering the store, and [`Shared::change`].

use super::interop::{describe, to_js, to_js_error};
use crate::error::{Error, ErrorCode, Rejection};
use crate::project::Projector;
use crate::state::Store;
use std::cell::{RefCell, RefMut};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

/// The store and its JS callbacks.
pub(super) struct Shared {
    pub(super) inner: Store,
    pub(super) hooks: Hooks,
    /// The model view's projector, with its token cache.
    pub(super) projector: Projector,
    /// The last tokenizer function seen by `modelView`, and its cache generation.
    pub(super) tokenizer: Option<(js_sys::Function, u32)>,
}

/// Borrows a shared store; a store busy in a callback (`onEvents`, `clock`, `audit`, a
/// tokenizer or a transport) refuses instead of trapping.
pub(super) fn lock(shared: &Rc<RefCell<Shared>>) -> JsResult<RefMut<'_, Shared>> {
    shared.try_borrow_mut().map_err(|_| {
        to_js_error(Error::new(
            ErrorCode::Busy,
            "the store is busy: do not call it from inside its own callbacks (onEvents, clock, audit, tokenizer)",
        ))
    })
}

/// `onEvents` as the store's write-ahead sink: the events cross as one array per change; if the
/// function throws, the change is rolled back with `STORAGE_ERROR`.
pub(super) struct JsSink(pub(super) js_sys::Function);

impl crate::state::EventSink for JsSink {
    fn write(&self, events: &crate::state::Events<'_>) -> crate::error::Result<()> {
        let unconverted = || Error::new(ErrorCode::StorageError, "the events could not be converted for onEvents");
        let value =
            events.to_json().ok().and_then(|text| super::interop::json_to_js(&text).ok()).ok_or_else(unconverted)?;
        self.0.call1(&JsValue::UNDEFINED, &value).map_err(|err| {
            Error::new(
                ErrorCode::StorageError,
                format!("onEvents threw, so the change was rolled back: {}", describe(&err)),
            )
        })?;
        Ok(())
    }
}

/// The JS callbacks of a store: clock, event sink, audit. Everything else in the options is
/// data, read by serde into the options type (which refuses a misspelt key); a function under
/// any other key would vanish in JSON, so it is refused here, by these names.
#[derive(Default, Clone)]
pub(crate) struct Hooks {
    clock: Option<js_sys::Function>,
    pub(super) on_event: Option<js_sys::Function>,
    audit: Option<js_sys::Function>,
}

impl Hooks {
    /// The callback options, as written in JS.
    const NAMES: [&'static str; 3] = ["clock", "onEvents", "audit"];

    /// Reads `clock`, `onEvents` and `audit` from an init object (absent: none). Throws
    /// `INVALID_OPTION` for options that are not an object, a callback that is not a function,
    /// or a function under another name (`onEvent`).
    pub(super) fn read(init: Option<&JsValue>) -> JsResult<Hooks> {
        let Some(init) = init.filter(|v| !v.is_undefined() && !v.is_null()) else { return Ok(Hooks::default()) };
        let bad = |m: String| to_js_error(Error::new(ErrorCode::InvalidOption, m));
        if !init.is_object() {
            return Err(bad("the options must be an object".into()));
        }
        let get = |name: &str| {
            js_sys::Reflect::get(init, &name.into())
                .map_err(|e| bad(format!("reading option {name} threw: {}", describe(&e))))
        };
        for key in js_sys::Object::keys(init.unchecked_ref::<js_sys::Object>()).iter().filter_map(|k| k.as_string()) {
            if !Self::NAMES.contains(&key.as_str()) && get(&key)?.is_function() {
                return Err(to_js_error(
                    Error::new(
                        ErrorCode::InvalidOption,
                        format!("unknown option '{key}' (a function); the callbacks are {}", Self::NAMES.join(", ")),
                    )
                    .field(key),
                ));
            }
        }
        let f = |name: &str| -> JsResult<Option<js_sys::Function>> {
            let v = get(name)?;
            if v.is_undefined() {
                return Ok(None);
            }
            v.dyn_into::<js_sys::Function>().map(Some).map_err(|_| bad(format!("{name} must be a function")))
        };
        Ok(Hooks { clock: f("clock")?, on_event: f("onEvents")?, audit: f("audit")? })
    }
}

/// Takes `chainKey` (a `Uint8Array`: bytes do not cross as JSON) out of an init object: the key,
/// and a copy of the object without it for the data options. Throws `INVALID_OPTION` for a
/// `chainKey` that is not a `Uint8Array`.
pub(super) fn take_chain_key(init: Option<JsValue>) -> JsResult<(Option<Vec<u8>>, Option<JsValue>)> {
    let Some(init) = init else { return Ok((None, None)) };
    if !init.is_object() {
        return Ok((None, Some(init)));
    }
    let key = js_sys::Reflect::get(&init, &"chainKey".into()).unwrap_or(JsValue::UNDEFINED);
    if key.is_undefined() {
        return Ok((None, Some(init)));
    }
    let bytes = key.dyn_into::<js_sys::Uint8Array>().map_err(|_| {
        to_js_error(
            Error::new(
                ErrorCode::InvalidOption,
                "chainKey must be a Uint8Array (e.g. crypto.getRandomValues(new Uint8Array(32)))",
            )
            .field("chainKey"),
        )
    })?;
    let rest = js_sys::Object::assign(&js_sys::Object::new(), init.unchecked_ref());
    let _ = js_sys::Reflect::delete_property(&rest, &"chainKey".into());
    Ok((Some(bytes.to_vec()), Some(rest.into())))
}

impl Shared {
    pub(super) fn now(&self) -> JsResult<u64> {
        self.clock().map_err(to_js_error)
    }

    /// The store's clock: `clock()` or `Date.now()`, in ms since the epoch.
    fn clock(&self) -> crate::error::Result<u64> {
        let ms = match &self.hooks.clock {
            Some(f) => f
                .call0(&JsValue::UNDEFINED)
                .map_err(|e| Error::new(ErrorCode::InvalidOption, format!("the clock threw: {}", describe(&e))))?
                .as_f64()
                .unwrap_or(f64::NAN),
            None => js_sys::Date::now(),
        };
        if !(ms.is_finite() && (0.0..=9_007_199_254_740_991.0).contains(&ms)) {
            return Err(Error::new(
                ErrorCode::InvalidOption,
                "the clock must return ms since the epoch: a number from 0 to 2^53 - 1",
            ));
        }
        Ok(ms as u64)
    }

    /// Runs a change. Its events go to `onEvents` in one call before the change is kept
    /// (write-ahead: if `onEvents` throws, the whole change — a whole batch — is rolled back and
    /// `STORAGE_ERROR` thrown); a refused change goes to `audit` (whose own exceptions are
    /// ignored: auditing never changes the outcome).
    pub(super) fn change<T>(
        &mut self,
        author: &str,
        channels: Vec<String>,
        f: impl FnOnce(&mut Store, u64) -> crate::error::Result<T>,
    ) -> JsResult<T> {
        self.try_change(author, channels, f).map_err(to_js_error)
    }

    /// [`Shared::change`] with the core's error.
    pub(super) fn try_change<T>(
        &mut self,
        author: &str,
        channels: Vec<String>,
        f: impl FnOnce(&mut Store, u64) -> crate::error::Result<T>,
    ) -> crate::error::Result<T> {
        let now = self.clock()?;
        f(&mut self.inner, now).inspect_err(|e| {
            if let Some(audit) = &self.hooks.audit {
                if let Ok(v) = to_js(&Rejection::new(author, channels, e, now)) {
                    let _ = audit.call1(&JsValue::UNDEFINED, &v);
                }
            }
        })
    }
}

/// An unguessable owner key from the platform's CSPRNG (`crypto.randomUUID`, Node 20 and browsers).
/// The platform's cryptographic generator as the store's entropy source: 16 bytes of
/// `crypto.getRandomValues` (available in every context, secure or not, and in workers).
pub(super) struct JsEntropy;

impl crate::state::Entropy for JsEntropy {
    fn salt(&self) -> crate::error::Result<String> {
        let unavailable = || {
            Error::new(
                ErrorCode::InvalidOption,
                "globalThis.crypto.getRandomValues is not available: private writes need it for their salts",
            )
        };
        let crypto = js_sys::Reflect::get(&js_sys::global(), &"crypto".into()).map_err(|_| unavailable())?;
        let f = js_sys::Reflect::get(&crypto, &"getRandomValues".into())
            .map_err(|_| unavailable())?
            .dyn_into::<js_sys::Function>()
            .map_err(|_| unavailable())?;
        let bytes = js_sys::Uint8Array::new_with_length(16);
        f.call1(&crypto, &bytes).map_err(|_| unavailable())?;
        Ok(crate::log::canonical::to_hex(&bytes.to_vec()))
    }
}

pub(super) fn random_key() -> JsResult<String> {
    let unavailable =
        || to_js_error(Error::new(ErrorCode::InvalidOption, "globalThis.crypto.randomUUID is not available"));
    let crypto = js_sys::Reflect::get(&js_sys::global(), &"crypto".into()).map_err(|_| unavailable())?;
    let f = js_sys::Reflect::get(&crypto, &"randomUUID".into())
        .map_err(|_| unavailable())?
        .dyn_into::<js_sys::Function>()
        .map_err(|_| unavailable())?;
    let uuid = f.call0(&crypto).map_err(|_| unavailable())?.as_string().ok_or_else(unavailable)?;
    Ok(format!("sgk_{uuid}"))
}
