//! Small helpers shared by the format codecs.

use super::Format;
use crate::error::{Error, ErrorCode, Result};
use crate::json::{obj, Put};
use crate::message::{Content, ContentPart, InvalidToolCall, ToolCall};
use serde_json::{Map, Value};

/// A short name for the JSON type of `v`, for error messages (never the value itself).
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The fields of `obj` the caller does not model, verbatim: every key not in `known`, plus known
/// keys whose value is `null` (so `name: null` comes back as written; encoders never overwrite a
/// field they set themselves).
pub(crate) fn extra_of(obj: &Map<String, Value>, known: &[&str]) -> Map<String, Value> {
    obj.iter()
        .filter(|(k, v)| v.is_null() || !known.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `obj.get(key)`, by comparing the keys one by one when the object is small. A message or part
/// object has a handful of keys, and serde_json's map hashes every key looked up (SipHash):
/// detection and the readers look up a dozen or more per message, which took ~15% of an append
/// (issue 17). Same answer as `get`: keys are unique.
#[inline(never)]
pub(crate) fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if obj.len() <= SMALL_OBJECT {
        obj.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        obj.get(key)
    }
}

/// `obj.contains_key(key)` as [`field`] reads it.
pub(crate) fn has(obj: &Map<String, Value>, key: &str) -> bool {
    field(obj, key).is_some()
}

/// Objects with at most this many keys are searched key by key ([`field`]).
const SMALL_OBJECT: usize = 12;

/// Whether a field's value says nothing (`null`, `false`, `""`, `[]`, `{}`): dropping it loses
/// nothing.
pub(crate) fn says_nothing(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(false) => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// Keys named in an error message: each in backticks (cut at 40 characters), joined by `sep`.
pub(crate) fn key_list(keys: &mut dyn Iterator<Item = &str>, sep: &str) -> String {
    let mut out = String::new();
    for key in keys {
        if !out.is_empty() {
            out.push_str(sep);
        }
        out.push('`');
        match key.char_indices().nth(40) {
            Some((at, _)) => {
                out.push_str(key.get(..at).unwrap_or_default());
                out.push('…');
            }
            None => out.push_str(key),
        }
        out.push('`');
    }
    out
}

/// An optional string field; `null` counts as absent. Other types are `INVALID_MESSAGE`.
pub(crate) fn opt_str(obj: &Map<String, Value>, key: &str) -> Result<Option<String>> {
    match field(obj, key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => {
            Err(Error::new(ErrorCode::InvalidMessage, format!("`{key}` must be a string, got {}", kind(v))).field(key))
        }
    }
}

/// A string id that may also come as a number (some recorders write numeric ids).
pub(crate) fn opt_id(obj: &Map<String, Value>, key: &str) -> Result<Option<String>> {
    match field(obj, key) {
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        _ => opt_str(obj, key),
    }
}

/// An optional array field; `null` counts as empty.
pub(crate) fn opt_array<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<&'a [Value]> {
    match field(obj, key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a.as_slice()),
        Some(v) => {
            Err(Error::new(ErrorCode::InvalidMessage, format!("`{key}` must be an array, got {}", kind(v))).field(key))
        }
    }
}

/// An element that must be an object.
pub(crate) fn as_obj<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| Error::new(ErrorCode::InvalidMessage, format!("{what} must be an object, got {}", kind(v))))
}

/// Parses tool-call arguments sent as JSON text (OpenAI `function.arguments`).
/// An empty string means no arguments (`{}`), as OpenAI sends for argument-less tools.
/// Text that does not parse yields an [`InvalidToolCall`] instead of an error.
/// Numbers are read as JavaScript reads them ([`js_numbers`]), so the arguments the store keeps
/// survive a trip through JS (`events()`, `onEvents`) unchanged and their events still verify.
pub(crate) fn call_from_json_text(
    id: String,
    name: String,
    text: String,
    extra: Map<String, Value>,
) -> std::result::Result<ToolCall, InvalidToolCall> {
    match args_from_json_text(&text) {
        Ok(args) => Ok(ToolCall { id, name, args: js_numbers(args), raw_args: Some(text), extra, approval: None }),
        Err(error) => Err(InvalidToolCall { id, name, args: text, error: Some(error), extra }),
    }
}

/// A call's arguments text as the object it holds (empty text: `{}`), or why it holds none.
/// Every provider's tool input is an object (Anthropic `tool_use.input`, Gemini
/// `functionCall.args`, a JSON Schema `type: "object"` for OpenAI): other JSON is a call the
/// model got wrong. The one rule for the decoder and the repair skeleton.
pub(crate) fn args_from_json_text(text: &str) -> std::result::Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    match value_from_json_text(text) {
        Ok(args) if args.is_object() => Ok(args),
        Ok(args) => Err(format!("arguments are not a JSON object but {}", kind(&args))),
        Err(e) => Err(format!("arguments are not valid JSON: {e}")),
    }
}

/// The JSON text of a call's arguments: the original text while it still matches `args`.
pub(crate) fn args_text(call: &ToolCall) -> String {
    if let Some(raw) = &call.raw_args {
        let same = if raw.trim().is_empty() {
            call.args.as_object().is_some_and(Map::is_empty)
        } else {
            // Read as the call's args were read (a lone surrogate's escape as U+FFFD), so the text
            // that gave them goes out as sent.
            value_from_json_text(raw).is_ok_and(|v| js_numbers(v) == call.args)
        };
        if same {
            return raw.clone();
        }
    }
    call.args.to_string()
}

/// Content as one string, for formats and places that take only text (a tool result for OpenAI
/// Chat or Gemini, an AI SDK text output, a UIMessage tool part's output, a preview): text
/// parts one per line (as a provider renders consecutive text blocks; never run together), a
/// whole JSON object given as content as its JSON text, media replaced by a note saying it was
/// left out (never its base64 as text), other blocks as their own JSON text (never stategate's
/// canonical part shape). Never returns `""` for content that was present: an empty list
/// becomes `"[]"`. Repair and the encoders both write results this way.
pub(crate) fn content_as_string(content: &Content) -> String {
    let parts = match content {
        Content::Text(t) => return t.clone(),
        Content::Null | Content::Absent => return String::new(),
        Content::Parts(parts) if parts.is_empty() => return "[]".to_string(),
        Content::Parts(parts) => parts,
    };
    parts
        .iter()
        .map(|p| match p {
            ContentPart::Text { text, .. } | ContentPart::Reasoning { text, .. } => text.clone(),
            ContentPart::Image { .. } => "[image omitted: this provider takes only text in tool results]".to_string(),
            file @ ContentPart::File { .. } => match file_note(file, "this provider takes only text in tool results") {
                ContentPart::Text { text, .. } => text,
                _ => String::new(),
            },
            ContentPart::Other { raw } => match raw.get("type").and_then(|t| t.as_str()) {
                Some(t) if ["image", "audio", "file", "document", "media"].iter().any(|k| t.contains(k)) => {
                    format!("[{t} omitted: this provider takes only text in tool results]")
                }
                _ => raw.to_string(),
            },
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The Anthropic signature a reasoning part carries: an Anthropic `thinking` block's own, or the
/// one the AI SDK keeps for Anthropic (`providerOptions.anthropic.signature` in a ModelMessage,
/// `providerMetadata.anthropic.signature` in a UIMessage). Anthropic refuses thinking without it.
pub(crate) fn anthropic_signature(extra: &Map<String, Value>) -> Option<&Value> {
    extra.get("signature").filter(|s| s.is_string()).or_else(|| ai_sdk_anthropic(extra, "signature"))
}

/// The data of an Anthropic `redacted_thinking` block as the AI SDK keeps it on a reasoning part
/// (`providerOptions.anthropic.redactedData` in a ModelMessage, `providerMetadata.anthropic.
/// redactedData` in a UIMessage), which its Anthropic provider sends back as that block.
pub(crate) fn anthropic_redacted_data(extra: &Map<String, Value>) -> Option<&Value> {
    ai_sdk_anthropic(extra, "redactedData")
}

/// A text the AI SDK keeps for Anthropic on a part, under `key`.
fn ai_sdk_anthropic<'a>(extra: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    ["providerOptions", "providerMetadata"]
        .iter()
        .find_map(|k| extra.get(*k).and_then(|p| p.get("anthropic")).and_then(|a| a.get(key)))
        .filter(|s| s.is_string())
}

/// An Anthropic `redacted_thinking` block as the AI SDK's reasoning part carries it: `{type:
/// "reasoning", text: "", <key>: {anthropic: {redactedData}}}` (`key`: `providerOptions` in a
/// ModelMessage, `providerMetadata` in a UIMessage), as the AI SDK's Anthropic provider reads the
/// block. `None` for any other part.
pub(crate) fn redacted_thinking_as_reasoning(raw: &Value, origin: Option<Format>, key: &str) -> Option<Value> {
    let data = raw.get("data").filter(|d| d.is_string())?;
    if origin != Some(Format::Anthropic) || raw.get("type").and_then(Value::as_str) != Some("redacted_thinking") {
        return None;
    }
    let mut o = Map::new();
    o.put("type", Value::from("reasoning"));
    o.put("text", Value::from(""));
    o.put(key, obj! {"anthropic": obj! {"redactedData": data}});
    Some(Value::Object(o))
}

/// The provider metadata a part or call of another format carries into the AI SDK's
/// (`providerOptions` of a ModelMessage part, `providerMetadata` of a UIMessage part), keyed by
/// provider as the AI SDK keys it: an Anthropic `thinking` block's `signature` as
/// `{anthropic: {signature}}` (which the AI SDK's Anthropic provider sends back as the block's
/// signature: Anthropic refuses thinking blocks without it), an AI SDK part's `providerOptions`,
/// a UIMessage part's `providerMetadata`, a Gemini thought signature as
/// `{google: {thoughtSignature}}`, a reasoning item's id and encrypted content as
/// [`super::responses::reasoning_for_ai_sdk`] put them. `None` when it has none.
pub(crate) fn provider_metadata(extra: &Map<String, Value>, origin: Option<Format>) -> Option<Value> {
    match origin? {
        Format::Anthropic => {
            extra.get("signature").filter(|s| s.is_string()).map(|s| obj! {"anthropic": obj! {"signature": s}})
        }
        Format::AiSdk | Format::Responses | Format::OpenaiAgents => {
            extra.get("providerOptions").filter(|m| m.is_object()).cloned()
        }
        Format::Ui => extra.get("providerMetadata").filter(|m| m.is_object()).cloned(),
        Format::Gemini => gemini_signature(extra, origin).map(|s| obj! {"google": obj! {"thoughtSignature": s}}),
        _ => None,
    }
}

/// The OpenAI image `detail` (`low` / `high` / `auto`) an image part carries: an OpenAI Chat
/// `image_url.detail` or a Responses `input_image.detail`, or where the AI SDK keeps it
/// (`providerOptions.openai.imageDetail`), which its OpenAI providers send as `detail`. It sets
/// the image's resolution and cost, so it travels with the image between these formats.
pub(crate) fn image_detail(extra: &Map<String, Value>, origin: Option<Format>) -> Option<&Value> {
    match origin? {
        Format::Openai | Format::Responses => extra.get("detail"),
        Format::AiSdk => extra.get("providerOptions")?.get("openai")?.get("imageDetail"),
        _ => None,
    }
    .filter(|d| d.is_string())
}

/// A Gemini thought signature a part or call carries: a Gemini part's `thoughtSignature`, or
/// where the AI SDK keeps it (`providerOptions.google.thoughtSignature` of a ModelMessage part or
/// tool call, `providerMetadata` / `callProviderMetadata` of a UIMessage's). Gemini 3 refuses a
/// replayed function call without its signature (HTTP 400; the AI SDK's Google provider warns and
/// injects a sentinel), so it travels with the part between these formats.
pub(crate) fn gemini_signature(extra: &Map<String, Value>, origin: Option<Format>) -> Option<&Value> {
    let meta = match origin? {
        Format::Gemini => return extra.get("thoughtSignature").filter(|s| s.is_string()),
        Format::AiSdk => extra.get("providerOptions"),
        Format::Ui => extra.get("providerMetadata").or_else(|| extra.get("callProviderMetadata")),
        _ => None,
    }?;
    meta.get("google")?.get("thoughtSignature").filter(|s| s.is_string())
}

/// The key of a tool call's `extra` holding its part's position among its message's parts (an AI
/// SDK ModelMessage's `content`, a UIMessage step's `parts`): the canonical message keeps calls
/// apart from its content, and this is where each was, so it goes back between the same parts.
pub(crate) const PART_POSITION: &str = "$part";

/// The position [`PART_POSITION`] keeps in a call's `extra`, if any.
pub(crate) fn part_position(extra: &Map<String, Value>) -> Option<usize> {
    extra.get(PART_POSITION).and_then(Value::as_u64).and_then(|p| usize::try_from(p).ok())
}

/// The place among all of a message's parts of its `k`-th part that is not a call, given the
/// calls' places (sorted).
pub(crate) fn among_calls(k: usize, calls: &[usize]) -> usize {
    let mut at = k;
    for &c in calls {
        if c <= at {
            at = at.saturating_add(1);
        } else {
            break;
        }
    }
    at
}

/// `calls` (each with its position, if kept) put back among `parts`, which hold the message's
/// other parts in order: lowest position first, so each lands where it was; one without a
/// position, or past the end, after the rest, in call order.
pub(crate) fn place_calls<T>(parts: &mut Vec<T>, mut calls: Vec<(Option<usize>, T)>) {
    crate::order::sort_stable_by_key(&mut calls, |(at, _)| at.map_or(u64::MAX, |at| at as u64));
    for (at, call) in calls {
        match at {
            Some(at) if at <= parts.len() => parts.insert(at, call),
            _ => parts.push(call),
        }
    }
}

/// Whether a part's string is a URL rather than base64 data, as the AI SDK decides for a file's
/// `data` or an image's `image` (`new URL(s)` succeeds: a scheme — a letter, then letters,
/// digits, `+`, `-` or `.` — and a `:`). Base64 has no `:`, so data is never taken for a URL,
/// and a `gs://` or `file:` URL is not taken for data (it was written to Gemini as `inlineData`).
pub(crate) fn is_url(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else { return false };
    let mut b = scheme.bytes();
    b.next().is_some_and(|c| c.is_ascii_alphabetic())
        && b.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
}

/// The media type and base64 data of a `data:<media type>;base64,<data>` URL (what OpenAI
/// `image_url` and AI SDK / UIMessage `file` parts carry inline), or `None` for any other URL.
pub(crate) fn data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (meta, data) = rest.split_once(',')?;
    let media_type = meta.strip_suffix(";base64")?;
    Some((media_type, data))
}

/// A file part's inline form: its media type (its own, the data URL's, or
/// `application/octet-stream`) and base64 data — from `data`, or a `data:` URL — or `None` when
/// the file is only at an `http(s):` URL or a provider's file id.
pub(crate) fn file_inline<'a>(
    url: Option<&'a str>,
    data: Option<&'a str>,
    media_type: Option<&'a str>,
) -> Option<(&'a str, &'a str)> {
    match (data, url.and_then(data_url)) {
        (Some(d), _) => Some((media_type.unwrap_or(OCTET_STREAM), d)),
        (None, Some((mt, d))) => Some((media_type.unwrap_or(mt), d)),
        (None, None) => None,
    }
}

/// The media type of a file without one.
pub(crate) const OCTET_STREAM: &str = "application/octet-stream";

/// A file part's media type: its own, or its data URL's, or `None`.
pub(crate) fn file_media_type<'a>(url: Option<&'a str>, media_type: Option<&'a str>) -> Option<&'a str> {
    media_type.or_else(|| url.and_then(data_url).map(|(mt, _)| mt))
}

/// The `filename` of a file OpenAI gets inline (`file_data`): its own, else `document.pdf` for a
/// PDF. Chat Completions and the Responses API refuse inline file data without a filename ("Missing
/// required parameter"); the AI SDK's OpenAI providers name such a part `part-{index}.pdf`.
pub(crate) fn inline_file_name<'a>(filename: Option<&'a str>, media_type: Option<&str>) -> Option<&'a str> {
    filename.or((media_type == Some("application/pdf")).then_some("document.pdf"))
}

/// The text part a format gets for a file it cannot carry (`why`: what it takes instead), so a
/// conversion never drops a file silently: `[file report.pdf (application/pdf) not sent: why]`.
/// Each encoder writes it as its own text part.
pub(crate) fn file_note(part: &ContentPart, why: &str) -> ContentPart {
    let ContentPart::File { url, file_id, media_type, filename, .. } = part else { return part.clone() };
    let name = filename.as_deref().or(file_id.as_deref()).or(url.as_deref().filter(|u| !u.starts_with("data:")));
    let mt = file_media_type(url.as_deref(), media_type.as_deref()).unwrap_or(OCTET_STREAM);
    ContentPart::text(match name {
        Some(n) => format!("[file {n} ({mt}) not sent: {why}]"),
        None => format!("[file ({mt}) not sent: {why}]"),
    })
}

/// The text part another format gets for a block only its own format reads (an Anthropic
/// `search_result` or server-tool block, an OpenAI `input_audio`, a Gemini `executableCode`), so
/// a conversion names what it could not carry instead of dropping it silently. `None` for what
/// carries nothing for a model there: an AI SDK UIMessage's app parts (`data-*`, sources, step
/// markers) and control parts (`tool-*` — as `convertToModelMessages` drops them), hidden reasoning, and the blocks that repeat a message's
/// own tool calls (a LangChain `tool_use` / `tool_call` block beside `tool_calls`).
/// The text that stands beside an invalid tool call in a format whose calls take an object
/// input (Anthropic `tool_use.input`, Gemini `functionCall.args`): the call goes with an empty
/// input (so it and its result stay paired) and this note keeps what the model really sent,
/// which a conversion never drops silently. The model view counts it with the call.
pub(crate) fn invalid_call_note(c: &InvalidToolCall) -> String {
    let name = if c.name.is_empty() { "a tool with no name".to_string() } else { c.name.clone() };
    format!("[tool call {} ({name}) was sent with empty input: its arguments are not a JSON object: {}]", c.id, c.args)
}

pub(crate) fn other_note(raw: &Value) -> Option<ContentPart> {
    let kind = match raw {
        Value::Object(o) => match o.get("type").and_then(Value::as_str) {
            Some(t) => t.to_string(),
            None => o.keys().next().cloned().unwrap_or_else(|| "empty".into()),
        },
        other => kind(other).to_string(),
    };
    // AI SDK control parts (`tool-approval-*`; a UIMessage tool part whose input was still
    // streaming, which the model never saw) are left out as `convertToModelMessages` leaves them.
    let silent = kind.starts_with("data-")
        || kind.starts_with("tool-")
        || kind == "dynamic-tool"
        || matches!(
            kind.as_str(),
            "source-url"
                | "source-document"
                | "step-start"
                | "redacted_thinking"
                | "thinking"
                | "reasoning"
                | "tool_use"
                | "tool_call"
                | "tool_call_chunk"
                | "invalid_tool_call"
                | "function_call"
                | "server_tool_call_chunk"
        );
    // An AI SDK assistant `tool-result` is a provider-executed tool's result (a web search's), as
    // is a UIMessage tool part marked `providerExecuted`: what it found is not sent, and the note
    // says so.
    // An OpenAI Chat `refusal` part (`ChatCompletionContentPartRefusal`) is what the model
    // answered with: its text goes across, as the message's own `refusal` field and a Responses
    // refusal do (it was replaced by a note).
    if let (true, Some(Value::String(text))) = (kind == "refusal", raw.get("refusal")) {
        return Some(ContentPart::text(text.clone()));
    }
    let ui_provider_executed = kind.starts_with("tool-") && raw.get("providerExecuted") == Some(&Value::Bool(true));
    if kind == "tool-result" || (ui_provider_executed && kind != "tool-call") {
        let tool = raw.get("toolName").and_then(Value::as_str).or(kind.strip_prefix("tool-")).unwrap_or("tool");
        return Some(ContentPart::text(format!(
            "[result of the provider-executed tool {tool} not sent: only the format it came from reads it]"
        )));
    }
    (!silent).then(|| ContentPart::text(format!("[{kind} part not sent: only the format it came from reads it]")))
}

/// A file part whose media type is an image's, as the image part it is to a format that has
/// images (an AI SDK `file` part of `image/png` is an image to every provider).
pub(crate) fn file_as_image(part: &ContentPart) -> Option<ContentPart> {
    let ContentPart::File { url, data, media_type, file_id: None, extra, .. } = part else { return None };
    let mt = file_media_type(url.as_deref(), media_type.as_deref())?;
    // Its own fields go along (an AI SDK part's `providerOptions.openai.imageDetail`, say).
    mt.starts_with("image/").then(|| ContentPart::Image {
        url: url.clone(),
        data: data.clone(),
        media_type: Some(mt.to_string()),
        extra: extra.clone(),
    })
}

/// Inserts `key: value` only when `value` is `Some`.
pub(crate) fn put_opt(obj: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    if let Some(v) = value {
        obj.insert(key.to_string(), Value::String(v.to_string()));
    }
}

/// JSON text read by serde_json as `JSON.parse` reads it: an escaped lone surrogate (`"\ud800"`,
/// which `JSON.stringify` writes for a lone surrogate in a string or a key, and which serde_json
/// refuses) reads as U+FFFD, the replacement every other path makes (docs/errors.md, limits).
pub(crate) fn value_from_json_text(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str(text).or_else(|e| match mend_lone_surrogates(text) {
        Some(mended) => serde_json::from_str(&mended),
        None => Err(e),
    })
}

/// `text` with every `\uXXXX` escape of a lone surrogate (a high one not followed by a low one,
/// or a low one alone) replaced by `\ufffd`; `None` when there is none. Backslash escapes only
/// occur inside JSON strings, so a scan over escapes needs no JSON state. Text without a `\u`
/// escape (nearly all) is answered by one fast search, allocating nothing.
pub(crate) fn mend_lone_surrogates(text: &str) -> Option<String> {
    if !text.contains("\\u") {
        return None;
    }
    let bytes = text.as_bytes();
    let hex = |at: usize| -> Option<u16> {
        let h = bytes.get(at..at + 4)?;
        u16::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    // The unit of a `\uXXXX` escape starting at `at`, if there is one.
    let escape = |at: usize| -> Option<u16> {
        (bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u')).then(|| hex(at + 2)).flatten()
    };
    let mut out = String::with_capacity(text.len());
    let (mut from, mut i, mut mended) = (0, 0, false);
    while i < bytes.len() {
        if bytes.get(i) != Some(&b'\\') {
            i += 1;
            continue;
        }
        let Some(unit) = escape(i) else {
            i += 2; // another escape: skip the escaped character
            continue;
        };
        let lone = match unit {
            0xD800..=0xDBFF => !matches!(escape(i + 6), Some(0xDC00..=0xDFFF)),
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            out.push_str(text.get(from..i)?);
            out.push_str("\\ufffd");
            mended = true;
            from = i + 6;
        } else if (0xD800..=0xDBFF).contains(&unit) {
            i += 12; // a valid pair
            continue;
        }
        i += 6;
    }
    if !mended {
        return None;
    }
    out.push_str(text.get(from..)?);
    Some(out)
}

/// `v` with every number as JavaScript holds it, in the form serde_json reads back from that
/// number's `JSON.stringify` text: `10.0` and `1e2` become the integers 10 and 100, `-0` and
/// underflows become 0, integers beyond 2^53 become the nearest double, written as JS writes it
/// (`12345678901234567890` → `12345678901234567000`). Values that came from JS are unchanged;
/// values parsed in Rust from JSON text (tool-call arguments) then hash the same on both sides.
pub fn js_numbers(mut v: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Number(n) => *n = js_number(n),
            Value::Array(a) => a.iter_mut().for_each(walk),
            Value::Object(o) => o.values_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut v);
    v
}

/// One number as [`js_numbers`] reads it.
fn js_number(n: &serde_json::Number) -> serde_json::Number {
    const SAFE: u64 = 1 << 53;
    if n.as_u64().is_some_and(|u| u < SAFE) || n.as_i64().is_some_and(|i| i.unsigned_abs() < SAFE) {
        return n.clone();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f == 0.0 || !f.is_finite() {
        return serde_json::Number::from(0u64);
    }
    if f.fract() == 0.0 && f.abs() < 1e21 {
        // JS writes an integral number below 1e21 as its shortest round-trip digits, then zeros.
        let sci = format!("{:e}", f.abs());
        if let Some((mantissa, exp)) = sci.split_once('e') {
            let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
            if let Ok(exp) = exp.parse::<usize>() {
                let mut text = if f < 0.0 { "-".to_string() } else { String::new() };
                text.push_str(&digits);
                text.extend(std::iter::repeat_n('0', (exp + 1).saturating_sub(digits.len())));
                if let Ok(m) = text.parse::<serde_json::Number>() {
                    return m;
                }
            }
        }
    }
    serde_json::Number::from_f64(f).unwrap_or_else(|| serde_json::Number::from(0u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogate_escapes_are_mended_and_nothing_else() {
        // No escape, an escape of another character, a valid pair, an escaped backslash before
        // a `u`: nothing to mend.
        for text in [r#"["plain"]"#, r#"["\n\u00e9"]"#, r#"["\ud83d\ude00"]"#, r#"["\\ud800"]"#] {
            assert_eq!(mend_lone_surrogates(text), None, "{text}");
        }
        assert_eq!(mend_lone_surrogates(r#"{"k\ud800":"\udc00x"}"#).as_deref(), Some(r#"{"k\ufffd":"\ufffdx"}"#));
        assert_eq!(value_from_json_text(r#"{"k\ud800":1}"#).unwrap(), serde_json::json!({"k\u{fffd}": 1}));
    }
}
