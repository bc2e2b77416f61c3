//! `readStream` and the `StreamReader` class: streamed chunks in, messages out (conversion only;
//! the assembly is `crate::stream`).

use super::interop::{from_js, from_js_json, present, to_js, to_js_error};
use crate::error::{Error, ErrorCode};
use crate::message::formats::{encode_messages, Format};
use crate::message::Message;
use crate::stream::{StreamFormat, StreamReport};
use serde_json::Value;
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

/// Options of `readStream` and `new StreamReader`.
#[derive(serde::Deserialize, tsify::Tsify)]
#[serde(deny_unknown_fields)]
#[tsify(rename = "StreamOptions")]
struct StreamOptions {
    /// The stream's format.
    format: StreamFormat,
    /// The format the messages are encoded in; default `"ui"` for `"ui-stream"`, `"langchain"`
    /// for `"langgraph-messages"`.
    #[serde(default)]
    #[tsify(optional)]
    to: Option<Format>,
}

/// What `readStream` and `StreamReader.end` return.
#[derive(serde::Serialize, tsify::Tsify)]
#[tsify(rename = "StreamResult")]
struct StreamResult<'a> {
    /// The assembled messages, encoded in the requested format.
    #[tsify(type = "unknown[]")]
    messages: &'a [Value],
    /// Calls left without a result, approvals pending, parts still open, how the stream ended.
    report: &'a StreamReport,
}

fn default_to(format: StreamFormat) -> Format {
    match format {
        StreamFormat::UiStream => Format::Ui,
        StreamFormat::LanggraphMessages => Format::Langchain,
    }
}

fn encode(messages: &[Message], to: Format) -> Vec<Value> {
    encode_messages(messages, to)
}

/// Reads a whole recorded stream (an array of chunks): `{messages, report}`, the messages in
/// `opts.to`. Throws `INVALID_MESSAGE` (with `details.index` = the chunk), `TOO_LARGE`,
/// `INVALID_OPTION`, and the message decoding errors.
#[wasm_bindgen(js_name = readStream, unchecked_return_type = "StreamResult")]
pub fn read_stream(
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] chunks: JsValue,
    #[wasm_bindgen(unchecked_param_type = "StreamOptions")] opts: JsValue,
) -> JsResult<JsValue> {
    let opts: StreamOptions = from_js(opts)?;
    let chunks: Vec<Value> = from_js_json(&chunks, ErrorCode::InvalidMessage, "chunks")?;
    let read = crate::stream::read_stream(&chunks, opts.format).map_err(to_js_error)?;
    let messages = encode(&read.messages, opts.to.unwrap_or(default_to(opts.format)));
    to_js(&StreamResult { messages: &messages, report: &read.report })
}

/// An incremental stream reader (JS `StreamReader`).
#[wasm_bindgen(js_name = StreamReader)]
pub struct JsStreamReader {
    reader: Option<crate::stream::StreamReader>,
    to: Format,
}

impl JsStreamReader {
    fn reader(&self) -> JsResult<&crate::stream::StreamReader> {
        self.reader.as_ref().ok_or_else(ended)
    }
}

fn ended() -> JsValue {
    to_js_error(Error::new(ErrorCode::InvalidOption, "the stream reader has ended; make a new one"))
}

#[wasm_bindgen(js_class = StreamReader)]
impl JsStreamReader {
    /// `new StreamReader({format, to?})`. Throws `INVALID_OPTION`.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "StreamOptions")] opts: JsValue) -> JsResult<JsStreamReader> {
        let opts: StreamOptions = from_js(opts)?;
        Ok(JsStreamReader {
            reader: Some(crate::stream::StreamReader::new(opts.format)),
            to: opts.to.unwrap_or(default_to(opts.format)),
        })
    }

    /// Reads one chunk; returns nothing (read `messages()` when you need them: assembling them
    /// on every chunk would cost a decode per token). Throws as `readStream`; after a refused
    /// chunk, every `push` and `end` throws that error again.
    pub fn push(&mut self, #[wasm_bindgen(unchecked_param_type = "unknown")] chunk: JsValue) -> JsResult<()> {
        let chunk: Value = from_js_json(&chunk, ErrorCode::InvalidMessage, "chunk")?;
        self.reader.as_mut().ok_or_else(ended)?.push(&chunk).map_err(to_js_error)
    }

    /// The messages so far, encoded in `to` (default: the reader's).
    #[wasm_bindgen(unchecked_return_type = "unknown[]")]
    pub fn messages(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "Format")] to: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let to = match present(to) {
            Some(t) => from_js(t)?,
            None => self.to,
        };
        let messages = self.reader()?.messages().map_err(to_js_error)?;
        to_js(&encode(&messages, to))
    }

    /// Ends the stream: `{messages, report}`. The reader cannot be used after.
    #[wasm_bindgen(unchecked_return_type = "StreamResult")]
    pub fn end(&mut self) -> JsResult<JsValue> {
        let read = self.reader.take().ok_or_else(ended)?.end().map_err(to_js_error)?;
        let messages = encode(&read.messages, self.to);
        to_js(&StreamResult { messages: &messages, report: &read.report })
    }
}
