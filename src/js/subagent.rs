//! `subagentInput` and `subagentResult` (DESIGN §8): convert, delegate to
//! [`crate::subagent`], convert back.

use super::gate::Hooks;
use super::interop::{from_js, options, string_arg, to_js, to_js_error};
use super::store::JsStateStore;
use crate::subagent::{self, SubagentInputOptions, SubagentResultOptions};
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

/// The child's starting state as a new `StateStore` (DESIGN §8): the parent's shared channels —
/// never private ones, the task ledger, notifications, todos, the structured response or the
/// parent's own run bookkeeping; only `allow` when given, minus `exclude` — and one user message
/// with the description (`mode: "fork"`: after the parent's model view without the launching
/// turn). Run the child, then pass it to `subagentResult`. Throws `INVALID_OPTION`.
#[wasm_bindgen(js_name = subagentInput)]
pub fn subagent_input_js(
    parent: &JsStateStore,
    #[wasm_bindgen(unchecked_param_type = "SubagentInputOptions")] opts: JsValue,
) -> JsResult<JsStateStore> {
    let opts: SubagentInputOptions = from_js(opts)?;
    let mut s = parent.lock()?;
    let now = s.now()?;
    let child = subagent::subagent_input(&mut s.inner, &opts, now).map_err(to_js_error)?;
    Ok(JsStateStore::wrap(child, Hooks::default()))
}

/// The Command that writes a child's outcome back to its parent (author: the subagent's name):
/// one tool result answering `toolCallId` with the child's structured response as JSON, or its
/// last non-empty assistant text (trimmed), or "Task completed"; plus the change of each
/// inherited channel the child changed (only `allow` when given). Apply it with
/// `parent.apply` — several with `parent.applyBatch` for parallel subagents. Throws
/// `INVALID_OPTION` for a store not made by `subagentInput`.
#[wasm_bindgen(js_name = subagentResult, unchecked_return_type = "Command")]
pub fn subagent_result_js(
    child: &JsStateStore,
    #[wasm_bindgen(unchecked_param_type = "string")] tool_call_id: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "SubagentResultOptions")] opts: Option<JsValue>,
) -> JsResult<JsValue> {
    let tool_call_id = string_arg(&tool_call_id, "toolCallId")?;
    let opts: SubagentResultOptions = options(opts)?;
    let mut s = child.lock()?;
    to_js(&subagent::subagent_result(&mut s.inner, &tool_call_id, &opts).map_err(to_js_error)?)
}
