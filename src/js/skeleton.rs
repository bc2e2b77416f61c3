//! The fast path of `repairMessages` / `validateMessages` over an array: the façade sends the
//! history's skeleton (`ts/skeleton.ts`; the layout is `repair::skeleton`'s) and gets back the
//! output as source indexes plus only the new messages, or `null` when the skeleton cannot decide
//! (the façade then takes the full path, `repairJson` / `validateJson`, which gives every error).

use super::interop::{self, string_arg, to_js, to_js_error};
use super::JsResult;
use crate::repair::{self, skeleton, Output, Provider, RepairOptions};
use wasm_bindgen::prelude::*;

/// Marks an entry of the order that is a new message (its index in `news`), not a source index.
const NEW: u32 = 1 << 31;

/// What the skeleton builder (`ts/skeleton.ts`) and the façade must agree on with the core,
/// written once here: `[MAX_INPUT_CHARS, MAX_ID_CHARS, NEW, REF, ID_RING, NAME_RING]` (the input
/// limit in UTF-16 code units, the longest id or tool name, the mark of a new message in
/// `repairSkeleton`'s order, and the skeleton's references to recent strings: `repair::skeleton`).
#[wasm_bindgen(js_name = skeletonLayout)]
pub fn skeleton_layout() -> Vec<u32> {
    let max_id = u32::try_from(crate::message::formats::MAX_ID_CHARS).unwrap_or(u32::MAX);
    let ring = |n: usize| u32::try_from(n).unwrap_or(0);
    vec![interop::MAX_INPUT_CHARS, max_id, NEW, skeleton::REF, ring(skeleton::ID_RING), ring(skeleton::NAME_RING)]
}

/// Repairs a history given as its skeleton: `null`, or `[order, json]` where `order[i]` is the
/// input index of output message `i`, or `NEW | k` for the `k`-th of `json`'s `news`, and `json`
/// is `{"news": [...], "report": [...]}`. Options are read (and refused) as `repairJson` reads them.
#[wasm_bindgen(js_name = repairSkeleton, unchecked_return_type = "[Uint32Array, string] | null")]
pub fn repair_skeleton(meta: &[u32], text: &[u8], opts: JsValue) -> JsResult<JsValue> {
    let opts: RepairOptions = interop::options(Some(opts))?;
    let Some((out, report)) = repair::repair_skeleton(meta, text, &opts) else { return Ok(JsValue::NULL) };
    let mut order = Vec::with_capacity(out.len());
    let mut news = Vec::new();
    for o in out {
        match o {
            Output::Original(s) => match u32::try_from(s).ok().filter(|s| *s < NEW) {
                Some(s) => order.push(s),
                None => return Ok(JsValue::NULL),
            },
            Output::New(v) => {
                order.push(NEW | u32::try_from(news.len()).unwrap_or(NEW - 1));
                news.push(v);
            }
        }
    }
    #[derive(serde::Serialize)]
    struct Answer<'a> {
        news: &'a [serde_json::Value],
        report: &'a [repair::Fix],
    }
    let json = serde_json::to_string(&Answer { news: &news, report: &report }).map_err(|e| {
        to_js_error(crate::error::Error::new(
            crate::error::ErrorCode::InvalidOption,
            format!("could not write the result as JSON: {e}"),
        ))
    })?;
    let pair = js_sys::Array::new();
    pair.push(&js_sys::Uint32Array::from(&order[..]));
    pair.push(&JsValue::from_str(&json));
    Ok(pair.into())
}

/// Validates a history given as its skeleton: `null`, or the `Violation[]` `validateJson` gives.
#[wasm_bindgen(js_name = validateSkeleton, unchecked_return_type = "Violation[] | null")]
pub fn validate_skeleton(
    meta: &[u32],
    text: &[u8],
    #[wasm_bindgen(unchecked_param_type = "string")] provider: JsValue,
) -> JsResult<JsValue> {
    let provider = Provider::parse(&string_arg(&provider, "provider")?).map_err(to_js_error)?;
    match repair::validate_skeleton(meta, text, provider) {
        Some(v) => to_js(&v),
        None => Ok(JsValue::NULL),
    }
}
