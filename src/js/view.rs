//! The model view methods of the `StateStore` JS class and the JS tokenizer (DESIGN §6).

use super::gate::Shared;
use super::interop::{describe, from_js, from_js_json, to_js, to_js_error};
use super::store::JsStateStore;
use crate::error::{Error, ErrorCode};
use crate::message::Role;
use crate::project::tokens::{Estimate, TokenCounter};
use crate::project::view_cache::FRESH;
use crate::project::{record_artifacts, ProjectOptions, Projection};
use crate::state::channel;
use crate::state::privacy::leaking_channels;
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

/// A tokenizer function from JS as a token counter; it must return a whole number ≥ 0.
pub(crate) struct JsCounter<'a>(pub(crate) &'a js_sys::Function);

impl TokenCounter for JsCounter<'_> {
    fn count(&mut self, text: &str) -> crate::error::Result<usize> {
        let n = self
            .0
            .call1(&JsValue::UNDEFINED, &JsValue::from_str(text))
            .map_err(|e| Error::new(ErrorCode::InvalidOption, format!("the tokenizer threw: {}", describe(&e))))?
            .as_f64()
            .unwrap_or(f64::NAN);
        if !(n.is_finite() && (0.0..=1e9).contains(&n)) {
            return Err(Error::new(
                ErrorCode::InvalidOption,
                "the tokenizer must return a number of tokens from 0 to 1e9",
            ));
        }
        Ok(n.ceil() as usize)
    }
}

/// What `store.modelView` and `projectMessages` return: `{messages, report}`, serialised from
/// borrowed parts (no copy of the output).
#[derive(serde::Serialize, tsify::Tsify)]
pub(crate) struct ModelView<'a> {
    /// The messages to send, in the requested format.
    #[tsify(type = "unknown[]")]
    pub(crate) messages: &'a [serde_json::Value],
    /// Tokens per section and message; what was dropped, truncated, redacted, repaired.
    pub(crate) report: &'a crate::project::Report,
}

/// Projection options and the optional `tokenizer` function.
pub(crate) fn view_options(opts: &JsValue) -> JsResult<(ProjectOptions, Option<js_sys::Function>)> {
    if !opts.is_object() {
        return Err(to_js_error(Error::new(ErrorCode::InvalidOption, "modelView needs options {budget, …}")));
    }
    let t = js_sys::Reflect::get(opts, &"tokenizer".into())
        .map_err(|e| to_js_error(Error::new(ErrorCode::InvalidOption, describe(&e))))?;
    let tokenizer = if t.is_undefined() {
        None
    } else {
        Some(t.dyn_into::<js_sys::Function>().map_err(|_| {
            to_js_error(Error::new(ErrorCode::InvalidOption, "tokenizer must be a function (text) => number"))
        })?)
    };
    Ok((from_js(opts.clone())?, tokenizer))
}

#[wasm_bindgen(js_class = StateStore)]
impl JsStateStore {
    /// The model view (DESIGN §6): system rules, the leading system message, the state sections
    /// (task, plan, facts, unresolved questions, active async tasks), the compaction summary,
    /// then the most recent tool-call units that fit `budget` tokens, repaired so they pass the
    /// provider's validator, in `format`. Tool results over `maxToolResultTokens` become
    /// previews whose artifact refs are recorded in `artifacts`. Token counts are cached by
    /// message id. Throws `BUDGET_TOO_SMALL`, `PRIVATE_LEAK` (naming the channel),
    /// `INVALID_OPTION`.
    #[wasm_bindgen(js_name = modelView, unchecked_return_type = "ModelView")]
    pub fn model_view(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ModelViewOptions")] opts: JsValue,
    ) -> JsResult<JsValue> {
        let (projection, ()) = self.project_view(&opts, None, |_, _| Ok(()))?;
        to_js(&ModelView { messages: &projection.encoded, report: &projection.report })
    }

    /// The private channels one of whose values appears in `values` (any JSON values, e.g. the
    /// text a page shows), by the model view's own leak scan: private strings of at least 8
    /// characters (object keys too), found in any string or key, in JSON held in strings, and in
    /// `text` fields joined in order. Returns channel names, never the values; `[]` when clean.
    /// Throws `INVALID_OPTION` when `values` is not an array of JSON values.
    #[wasm_bindgen(js_name = privateLeaks)]
    pub fn private_leaks(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown[]")] values: JsValue,
    ) -> JsResult<Vec<String>> {
        let values: Vec<serde_json::Value> = from_js_json(&values, ErrorCode::InvalidOption, "privateLeaks(values)")?;
        Ok(leaking_channels(&values, &self.lock()?.inner.private_values()))
    }

    /// A safe cut for compaction keeping about the last `keep` messages: the index of the first
    /// message to keep, never inside a tool-call unit.
    #[wasm_bindgen(js_name = compactionPlan)]
    pub fn compaction_plan(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ keep: number }")] opts: JsValue,
    ) -> JsResult<f64> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Plan {
            keep: usize,
        }
        let plan: Plan = from_js(opts)?;
        Ok(self.lock()?.inner.compaction_plan(plan.keep).map_err(to_js_error)? as f64)
    }

    /// Records a compaction: the model view becomes [summary, messages from `cut` on]; messages,
    /// log and async task ledger stay. `summary` is the caller's text (e.g. from a summarising
    /// model). Throws `INVALID_OPTION` for a cut inside a unit. Returns `{version, ids}`.
    #[wasm_bindgen(unchecked_return_type = "Applied")]
    pub fn compact(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ summary: string; cut: number; author?: string }")] opts: JsValue,
    ) -> JsResult<JsValue> {
        let c: Compact = from_js(opts)?;
        let author = c.author.unwrap_or_else(|| "compaction".into());
        let out = self.lock()?.change(&author.clone(), vec![channel::COMPACTION.into()], |s, now| {
            s.compact(&c.summary, c.cut, &author, now)
        })?;
        to_js(&out)
    }

    /// The command `compact(opts)` applies, checked as `compact` checks it, for a caller that
    /// applies it another way (`PostgresLog`'s `run.apply`). Throws what `compact` would.
    #[wasm_bindgen(js_name = compactionCommand, unchecked_return_type = "Command")]
    pub fn compaction_command(
        &self,
        #[wasm_bindgen(unchecked_param_type = "{ summary: string; cut: number; author?: string }")] opts: JsValue,
    ) -> JsResult<JsValue> {
        let c: Compact = from_js(opts)?;
        let author = c.author.unwrap_or_else(|| "compaction".into());
        to_js(&self.lock()?.inner.compaction_command(&c.summary, c.cut, &author).map_err(to_js_error)?)
    }
}

impl JsStateStore {
    /// The model view of `opts` (its artifact refs recorded), then `then` with the store's
    /// shared state and the projection, under one lock.
    fn project_view<T>(
        &self,
        opts: &JsValue,
        epoch: Option<u32>,
        then: impl FnOnce(&mut Shared, &mut Projection) -> JsResult<T>,
    ) -> JsResult<(Projection, T)> {
        let (opts, tokenizer) = view_options(opts)?;
        let mut s = self.lock()?;
        let counter_id = s.counter_id(tokenizer.as_ref());
        let Shared { inner, projector, .. } = &mut *s;
        let mut projection = match (&tokenizer, epoch) {
            (Some(f), None) => projector.model_view(inner, &opts, &mut JsCounter(f), &counter_id),
            (None, None) => projector.model_view(inner, &opts, &mut Estimate, &counter_id),
            (Some(f), Some(e)) => projector.model_view_slots(inner, &opts, &mut JsCounter(f), &counter_id, e),
            (None, Some(e)) => projector.model_view_slots(inner, &opts, &mut Estimate, &counter_id, e),
        }
        .map_err(to_js_error)?;
        s.change("projector", vec![channel::ARTIFACTS.into()], |s, now| record_artifacts(s, &projection, now))?;
        let then = then(&mut s, &mut projection)?;
        Ok((projection, then))
    }
}

/// What the façade's `store.modelView` and the core agree on, written once here: `{fresh, roles}`
/// — the flag of a slot whose value `modelViewDelta` sends (`project::view_cache::FRESH`), and
/// the roles by the numbers `modelViewDelta`'s entries give them.
#[wasm_bindgen(js_name = modelViewLayout, unchecked_return_type = "{ fresh: number; roles: Role[] }")]
pub fn model_view_layout() -> JsResult<JsValue> {
    #[derive(serde::Serialize)]
    struct Layout {
        fresh: u32,
        roles: [Role; 4],
    }
    to_js(&Layout { fresh: FRESH, roles: ROLES })
}

/// The roles by number, in `modelViewDelta`'s entries.
const ROLES: [Role; 4] = [Role::System, Role::User, Role::Assistant, Role::Tool];

/// `store.modelView(opts)` as the façade asks for it (`ts/api.ts`): `[slots, entries, json,
/// epoch]`. `slots[j]` is the slot of output message `j` (`| FRESH`: its value is the next of
/// `json`'s `fresh`); `json` is `{"fresh": [...], "report": {...}, "ids": [...]}` with the
/// report's `messages` left empty: they are `entries`, four numbers each — the role (by
/// `modelViewLayout().roles`), tokens, output, and 1 when the entry has a `toolCallId` — with
/// their ids (then that tool call id) in `ids`, in order. `epoch` is the one to send next
/// (`project::view_cache`). Throws what `modelView` throws, and then leaves the slots as they were
/// (the next view is sent whole).
#[wasm_bindgen(js_name = modelViewDelta, unchecked_return_type = "[Uint32Array, Uint32Array, string, number]")]
pub fn model_view_delta(
    store: &JsStateStore,
    #[wasm_bindgen(unchecked_param_type = "ModelViewOptions")] opts: JsValue,
    epoch: u32,
) -> JsResult<JsValue> {
    let (_, (delta, entries, json)) = store.project_view(&opts, Some(epoch), |s, projection| {
        // Always there: the projection was written through the cache.
        let delta = projection.delta.take().ok_or_else(|| {
            to_js_error(Error::new(ErrorCode::InvalidOption, "internal: the model view came without its slots"))
        })?;
        let fresh: Vec<&serde_json::Value> =
            delta.slots.iter().filter(|&&slot| slot & FRESH != 0).filter_map(|&slot| s.projector.slot(slot)).collect();
        let messages = std::mem::take(&mut projection.report.messages);
        let mut entries = Vec::with_capacity(messages.len() * 4);
        let mut ids = Vec::with_capacity(messages.len());
        for m in &messages {
            let role = ROLES.iter().position(|r| *r == m.role).unwrap_or_default();
            let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            entries.extend([at(role), at(m.tokens), at(m.output), u32::from(m.tool_call_id.is_some())]);
            ids.push(m.id.as_str());
            ids.extend(m.tool_call_id.as_deref());
        }
        #[derive(serde::Serialize)]
        struct Answer<'a> {
            fresh: &'a [&'a serde_json::Value],
            report: &'a crate::project::Report,
            ids: &'a [&'a str],
        }
        let json =
            serde_json::to_string(&Answer { fresh: &fresh, report: &projection.report, ids: &ids }).map_err(|e| {
                to_js_error(Error::new(ErrorCode::InvalidOption, format!("could not write the result as JSON: {e}")))
            })?;
        Ok((delta, entries, json))
    })?;
    let out = js_sys::Array::new();
    out.push(&js_sys::Uint32Array::from(&delta.slots[..]));
    out.push(&js_sys::Uint32Array::from(&entries[..]));
    out.push(&JsValue::from_str(&json));
    out.push(&JsValue::from(delta.epoch));
    Ok(out.into())
}

/// The options of `compact` and `compactionCommand`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Compact {
    summary: String,
    cut: usize,
    author: Option<String>,
}

impl Shared {
    /// The token cache key for a tokenizer: the same function keeps the cache, another clears it.
    fn counter_id(&mut self, tokenizer: Option<&js_sys::Function>) -> String {
        match tokenizer {
            None => "estimate".into(),
            Some(f) => {
                let same = self.tokenizer.as_ref().is_some_and(|(g, _)| js_sys::Object::is(f, g));
                if !same {
                    let n = self.tokenizer.as_ref().map_or(0, |(_, n)| n + 1);
                    self.tokenizer = Some((f.clone(), n));
                }
                format!("js:{}", self.tokenizer.as_ref().map_or(0, |(_, n)| *n))
            }
        }
    }
}
