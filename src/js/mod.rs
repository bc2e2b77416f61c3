//! wasm-bindgen bindings: convert JS values, call the core, convert the result. No domain logic.
//!
//! Every export returns `Result<_, JsValue>`; errors are real JS `Error`s with a stable `code`
//! and `details` ([`interop::to_js_error`]). Inputs cross as JSON text (`JSON.stringify`, written
//! into wasm memory by `TextEncoder.encodeInto`: [`interop::utf8_of`]) read by serde_json;
//! outputs as serde_json text read by `JSON.parse` ([`interop::to_js`]): plain objects, never
//! `Map`s (BOUNDARY.md trap 1).

// The message gate (decode, convert, validate, repair: this file and `skeleton.rs`) is in every
// build; the store and what works on it or reads other sources (model views, the log, tasks,
// subagents, streams, transcripts) are behind the `store` feature, on by default. Off, the build
// is the wasm of the `stategate/messages` entry (Cargo.toml; docs/package.md).
mod interop;
mod skeleton;

#[cfg(feature = "store")]
mod gate;
#[cfg(feature = "store")]
mod heap;
#[cfg(feature = "store")]
mod indexeddb;
#[cfg(feature = "store")]
mod log;
#[cfg(feature = "store")]
mod plain;
#[cfg(feature = "store")]
mod sha256;
#[cfg(feature = "store")]
mod store;
#[cfg(feature = "store")]
mod stream;
#[cfg(feature = "store")]
mod subagent;
#[cfg(feature = "store")]
mod tasks;
#[cfg(feature = "store")]
mod view;

pub use skeleton::{repair_skeleton, validate_skeleton};
#[cfg(feature = "store")]
pub use {
    indexeddb::event_records,
    log::verify_log_js,
    sha256::use_host_sha256,
    store::JsStateStore,
    stream::{read_stream, JsStreamReader},
    subagent::{subagent_input_js, subagent_result_js},
    tasks::{JsTaskSteps, JsTasksCore},
};

use crate::message::formats::{decode_messages, Format};
use crate::repair::{self, Output, Provider, RepairOptions};
use interop::{from_js, input_values, opt_string_arg, string_arg, to_js, to_js_error};
use js_sys::Array;
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

/// Converts messages (an array, or its JSON text) from any supported format(s) to `to`
/// (`"langchain" | "openai" | "anthropic" | "ai-sdk" | "gemini" | "responses" | "openai-agents"`).
///
/// Throws `INVALID_MESSAGE`, `UNKNOWN_ROLE`, `MISSING_TOOL_CALL_ID`, `INVALID_TOOL_CALL` (with
/// `details.index`), `INVALID_JSON`, `INVALID_OPTION`; converting to `"ui"`, `UNKNOWN_TOOL_CALL`
/// and `ALREADY_ANSWERED` (with `details.index`) for a result a UIMessage cannot carry (its call
/// in another message or none; a second result of one call).
#[wasm_bindgen(js_name = convertMessages, unchecked_return_type = "unknown[]")]
pub fn convert_messages(
    messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] to: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Format")] from: Option<JsValue>,
) -> JsResult<JsValue> {
    let format = Format::parse(&string_arg(&to, "to")?).map_err(to_js_error)?;
    let decoded = read_messages(&messages, from)?;
    to_js(&crate::message::formats::convert_decoded(&decoded, format).map_err(to_js_error)?)
}

/// Messages (array or JSON text) read by detection, or all as `format` when given.
fn read_messages(messages: &JsValue, format: Option<JsValue>) -> JsResult<crate::message::formats::Decoded> {
    let values = input_values(messages)?;
    match opt_string_arg(format, "format")? {
        Some(f) => {
            let f = Format::parse(&f).map_err(to_js_error)?;
            crate::message::formats::decode_messages_as(&values, f)
        }
        None => decode_messages(&values, None),
    }
    .map_err(to_js_error)
}

/// Decodes messages (array or JSON text) into canonical `Message`s, each detected by its keys,
/// or all read as `format` when given.
#[wasm_bindgen(js_name = decodeMessages, unchecked_return_type = "Message[]")]
pub fn decode(
    messages: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Format")] format: Option<JsValue>,
) -> JsResult<JsValue> {
    to_js(&read_messages(&messages, format)?.messages)
}

/// Validates messages (an array, or its JSON text) against `provider`'s rules: `Violation[]`.
#[wasm_bindgen(js_name = validateJson, unchecked_return_type = "Violation[]")]
pub fn validate_json(
    messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] provider: JsValue,
) -> JsResult<JsValue> {
    let provider = Provider::parse(&string_arg(&provider, "provider")?).map_err(to_js_error)?;
    let values = input_values(&messages)?;
    to_js(&repair::validate_values(&values, provider).map_err(to_js_error)?)
}

/// Repairs messages (an array, or its JSON text). Returns `{messages, report}`; given an array,
/// untouched messages are the caller's very same objects (only changed and new messages are
/// encoded, in the format of their neighbours).
#[wasm_bindgen(js_name = repairJson, unchecked_return_type = "{ messages: unknown[]; report: Fix[] }")]
pub fn repair_json(messages: JsValue, opts: JsValue) -> JsResult<JsValue> {
    let opts: RepairOptions = interop::options(Some(opts))?;
    let values = input_values(&messages)?;
    let (out, report) = repair::repair_outputs(&values, &opts).map_err(to_js_error)?;
    let originals = messages.dyn_ref::<Array>();
    let result = Array::new();
    for o in out {
        match (o, originals) {
            (Output::Original(s), Some(array)) => result.push(&array.get(s as u32)),
            (Output::Original(s), None) => result.push(&to_js(&values.get(s))?),
            (Output::New(v), _) => result.push(&to_js(&v)?),
        };
    }
    let obj = js_sys::Object::new();
    js_sys::Reflect::set(&obj, &"messages".into(), &result)?;
    js_sys::Reflect::set(&obj, &"report".into(), &to_js(&report)?)?;
    Ok(obj.into())
}

#[cfg(feature = "store")]
/// The model view of a plain message array (any supported formats, or their JSON text): the
/// same projection as `store.modelView` without state sections or compaction. Messages without
/// an id are named `#i` (their position) in the report. Throws as `modelView`.
#[wasm_bindgen(js_name = projectMessages, unchecked_return_type = "ModelView")]
pub fn project_messages(
    messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ModelViewOptions")] opts: JsValue,
) -> JsResult<JsValue> {
    let (opts, tokenizer) = view::view_options(&opts)?;
    // Convert only the messages that can be sent, plus a leading system message (BOUNDARY.md:
    // untouched messages are never converted).
    let most = crate::project::max_sent(opts.budget);
    let (messages, skipped, lead) = match messages.dyn_ref::<Array>() {
        Some(all) if all.length() as usize > most + 1 => {
            let n = all.length();
            // Whether the first message is a system message, in whatever format: decode it alone.
            let head = all.get(0);
            let lead = input_values(&Array::of1(&head).into())
                .ok()
                .and_then(|v| decode_messages(&v, None).ok())
                .is_some_and(|d| d.messages.first().is_some_and(|m| m.role == crate::Role::System));
            let tail = all.slice(n - most as u32, n);
            if lead {
                tail.unshift(&head);
            }
            (JsValue::from(tail), n as usize - most - usize::from(lead), lead)
        }
        _ => (messages, 0, false),
    };
    let history = decode_messages(&input_values(&messages)?, None).map_err(to_js_error)?.messages;
    let (encoded, report) = match &tokenizer {
        Some(f) => crate::project::project_tail(history, lead, skipped, &opts, &mut view::JsCounter(f), "js"),
        None => crate::project::project_tail(
            history,
            lead,
            skipped,
            &opts,
            &mut crate::project::tokens::Estimate,
            "estimate",
        ),
    }
    .map_err(to_js_error)?;
    to_js(&view::ModelView { messages: &encoded, report: &report })
}

/// The provider whose rules `format`'s output must pass (`"anthropic"` and `"gemini"` have
/// their own; every other format is held to OpenAI's). Throws `INVALID_OPTION` for an unknown
/// format.
#[wasm_bindgen(js_name = providerOf, unchecked_return_type = "Provider")]
pub fn provider_of(#[wasm_bindgen(unchecked_param_type = "Format")] format: JsValue) -> JsResult<JsValue> {
    let format: Format = from_js(format)?;
    to_js(&crate::project::provider_of(format))
}

/// Every error code a stategate error can carry (`ErrorCode`), in declaration order.
#[wasm_bindgen(js_name = errorCodes, unchecked_return_type = "ErrorCode[]")]
pub fn error_codes() -> Vec<String> {
    crate::error::ErrorCode::ALL.iter().map(|c| c.as_str().to_string()).collect()
}

#[cfg(feature = "store")]
/// Reads a recorded transcript (tau-bench, SWE-agent, Claude Code JSONL, OpenHands, or a plain
/// message array) from its text. Returns `{kind, runs}`, each run encoded in `format`
/// (default `"openai"`). Throws what reading the transcript throws and, converting to `"ui"`,
/// `UNKNOWN_TOOL_CALL` / `ALREADY_ANSWERED` (with `details.index`, the message's position in its
/// run) for a result a UIMessage cannot carry.
#[wasm_bindgen(js_name = readTranscript, unchecked_return_type = "EncodedTranscript")]
pub fn read_transcript(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Format")] format: Option<JsValue>,
) -> JsResult<JsValue> {
    let format =
        Format::parse(opt_string_arg(format, "format")?.as_deref().unwrap_or("openai")).map_err(to_js_error)?;
    let t = crate::transcript::read_transcript(&string_arg(&text, "text")?).map_err(to_js_error)?;
    let runs = t.runs.iter().map(|r| crate::message::formats::convert(r, format)).collect::<Result<Vec<_>, _>>();
    let runs = runs.map_err(to_js_error)?;
    to_js(&EncodedTranscript { kind: t.kind, runs })
}

#[cfg(feature = "store")]
/// What `readTranscript` returns: a transcript's runs encoded in the requested format.
#[derive(serde::Serialize, tsify::Tsify)]
#[tsify(rename = "EncodedTranscript")]
struct EncodedTranscript {
    /// The detected kind.
    kind: crate::transcript::TranscriptKind,
    /// The runs (a tau-bench file holds many; other kinds one), each encoded in the requested format.
    #[tsify(type = "unknown[][]")]
    runs: Vec<Vec<serde_json::Value>>,
}
