//! The transport of `AsyncTasks`: one Agent Protocol call performed through the caller's
//! function or the global `fetch` (Node 20, browsers, workers), bounded by a timer that is
//! cleared when the call finishes (so a finished call keeps no Node process alive).

use super::interop::{describe, from_js_json, to_js};
use crate::error::ErrorCode;
use crate::tasks::{ProtocolRequest, ProtocolResponse, Transport};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// A transport over the caller's function, or the global `fetch` of Node 20 and browsers; each
/// call is bounded by `timeout_ms`.
#[derive(Clone)]
pub(super) struct JsTransport {
    /// The caller's function and its `this`.
    pub(super) custom: Option<(js_sys::Function, JsValue)>,
    pub(super) timeout_ms: u64,
}

/// A promise resolved by `setTimeout` after `ms`; the timer is cleared when dropped, so a call
/// that finished in time leaves no timer keeping Node alive.
struct Timer {
    id: JsValue,
    done: JsFuture,
}

impl Timer {
    fn new(ms: u64) -> Result<Timer, String> {
        let global = js_sys::global();
        let set =
            field(&global, "setTimeout")?.dyn_into::<js_sys::Function>().map_err(|_| "no setTimeout".to_string())?;
        let mut id = JsValue::UNDEFINED;
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            id = set.call2(&global, &resolve, &JsValue::from_f64(ms as f64)).unwrap_or(JsValue::UNDEFINED);
        });
        Ok(Timer { id, done: JsFuture::from(promise) })
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        let global = js_sys::global();
        if let Ok(clear) =
            field(&global, "clearTimeout").and_then(|f| f.dyn_into::<js_sys::Function>().map_err(|_| String::new()))
        {
            let _ = clear.call1(&global, &self.id);
        }
    }
}

/// The first of `work` and `timer` to finish.
struct Race<'a, F> {
    work: std::pin::Pin<Box<F>>,
    timer: &'a mut Timer,
}

impl<F: std::future::Future> std::future::Future for Race<'_, F> {
    type Output = Option<F::Output>;
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        if let std::task::Poll::Ready(v) = self.work.as_mut().poll(cx) {
            return std::task::Poll::Ready(Some(v));
        }
        match std::pin::Pin::new(&mut self.timer.done).poll(cx) {
            std::task::Poll::Ready(_) => std::task::Poll::Ready(None),
            std::task::Poll::Pending => std::task::Poll::Pending,
        }
    }
}

fn field(v: &JsValue, key: &str) -> Result<JsValue, String> {
    js_sys::Reflect::get(v, &key.into()).map_err(|e| describe(&e))
}

impl JsTransport {
    async fn fetch(request: &ProtocolRequest, timeout_ms: u64) -> Result<ProtocolResponse, String> {
        let global = js_sys::global();
        let fetch = field(&global, "fetch")?
            .dyn_into::<js_sys::Function>()
            .map_err(|_| "no global fetch: pass a transport".to_string())?;
        let init = js_sys::Object::new();
        let headers = js_sys::Object::new();
        for (k, v) in &request.headers {
            let _ = js_sys::Reflect::set(&headers, &k.into(), &v.as_str().unwrap_or_default().into());
        }
        let _ = js_sys::Reflect::set(&init, &"method".into(), &request.method.into());
        let _ = js_sys::Reflect::set(&init, &"headers".into(), &headers);
        // Abort the request itself on time-out (AbortSignal.timeout: Node 18+, browsers).
        if let Ok(abort) = field(&global, "AbortSignal") {
            if let Ok(timeout) =
                field(&abort, "timeout").and_then(|f| f.dyn_into::<js_sys::Function>().map_err(|_| String::new()))
            {
                if let Ok(signal) = timeout.call1(&abort, &JsValue::from_f64(timeout_ms as f64)) {
                    let _ = js_sys::Reflect::set(&init, &"signal".into(), &signal);
                }
            }
        }
        if let Some(body) = &request.body {
            let _ = js_sys::Reflect::set(&init, &"body".into(), &body.to_string().into());
        }
        let promise = fetch.call2(&global, &request.url.as_str().into(), &init).map_err(|e| describe(&e))?;
        let response = JsFuture::from(js_sys::Promise::from(promise)).await.map_err(|e| describe(&e))?;
        let status = field(&response, "status")?.as_f64().unwrap_or(0.0) as u16;
        let text = field(&response, "text")?
            .dyn_into::<js_sys::Function>()
            .map_err(|_| "the response has no text()".to_string())?;
        let text = JsFuture::from(js_sys::Promise::from(text.call0(&response).map_err(|e| describe(&e))?))
            .await
            .map_err(|e| describe(&e))?;
        let text = text.as_string().unwrap_or_default();
        let body = if text.trim().is_empty() {
            Value::Null
        } else {
            match serde_json::from_str(&text) {
                Ok(v) => v,
                // An error page is still an error (its status says so); a 2xx must be JSON.
                Err(_) if !(200..300).contains(&status) => Value::Null,
                Err(e) => return Err(format!("the server answered HTTP {status} with a body that is not JSON ({e})")),
            }
        };
        Ok(ProtocolResponse { status, body })
    }

    async fn custom(
        f: &js_sys::Function,
        this: &JsValue,
        request: &ProtocolRequest,
    ) -> Result<ProtocolResponse, String> {
        let arg = to_js(request).map_err(|e| describe(&e))?;
        let answer = f.call1(this, &arg).map_err(|e| format!("the transport threw: {}", describe(&e)))?;
        let answer = JsFuture::from(js_sys::Promise::resolve(&answer))
            .await
            .map_err(|e| format!("the transport rejected: {}", describe(&e)))?;
        let status = field(&answer, "status")?
            .as_f64()
            .filter(|s| s.fract() == 0.0 && (100.0..600.0).contains(s))
            .ok_or("the transport must resolve with {status: an integer 100..599, body}")?;
        let body = field(&answer, "body")?;
        let body: Value = if body.is_undefined() || body.is_null() {
            Value::Null
        } else {
            from_js_json(&body, ErrorCode::InvalidOption, "the transport's body").map_err(|e| describe(&e))?
        };
        Ok(ProtocolResponse { status: status as u16, body })
    }
}

impl Transport for JsTransport {
    async fn send(&self, request: &ProtocolRequest) -> Result<ProtocolResponse, String> {
        let mut timer = Timer::new(self.timeout_ms)?;
        let work: std::pin::Pin<Box<dyn std::future::Future<Output = Result<ProtocolResponse, String>> + '_>> =
            match &self.custom {
                Some((f, this)) => Box::pin(JsTransport::custom(f, this, request)),
                None => Box::pin(JsTransport::fetch(request, self.timeout_ms)),
            };
        match (Race { work: Box::pin(work), timer: &mut timer }).await {
            Some(answer) => answer,
            None => Err(format!("no answer within {} ms (requestTimeoutMs)", self.timeout_ms)),
        }
    }
}
