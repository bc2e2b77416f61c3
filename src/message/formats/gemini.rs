//! Google Gemini `Content`.
//!
//! `{role: "user"|"model", parts: [{text}, {text, thought: true}, {functionCall: {name, args, id?}},
//! {functionResponse: {name, response, id?}}, {inlineData: {mimeType, data}}, {fileData}]}`.
//! A user turn's `functionResponse` parts decode to one tool message each. Calls and responses
//! without ids (older Gemini models send none) are paired by name and order within the turn,
//! Gemini's own rule (a response named after no call of the turn answers none), and given ids
//! `gemini-<message index>-<call index>`. Encoding writes ids, except those ids it made itself:
//! a call with such an id goes without one, and a turn of responses that all answer such calls
//! goes without ids and in the calls' order — so an id-less history stays id-less and paired by
//! order (a repaired turn never mixes id-less calls with answered ids).
//! A response `{result: "text"}` decodes to that text; any other response object to its JSON text;
//! encoding writes a JSON-object text back as the object and any other text as `{result: text}`.
//! A `system` role is accepted and written back as `{role: "system"}` (Gemini takes it as
//! `systemInstruction`). A `functionCall` or `functionResponse` with a field beyond those above
//! (a multimodal result's `parts`, `willContinue`, `scheduling`, `partialArgs`) is refused
//! (`INVALID_MESSAGE`), not read without it; so is a part holding two kinds of data (`{text,
//! functionCall}`, `{text, inlineData}`: `Part.data` is a oneof).

use super::util::{as_obj, content_as_string, extra_of, invalid_call_note, opt_id, opt_str};
use super::util::{field, has, key_list, says_nothing};
use super::{put_extra, Format};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{obj, val, Put};
use crate::message::{Content, ContentPart, Message, Role, ToolCall, ToolStatus};
use serde_json::{Map, Value};

pub(super) fn decode(obj: &Map<String, Value>) -> Result<Vec<Message>> {
    let role = match field(obj, "role").and_then(Value::as_str).unwrap_or("user") {
        "user" | "function" | "tool" => Role::User,
        "model" | "assistant" => Role::Assistant,
        "system" => Role::System,
        other => {
            return Err(Error::new(
                ErrorCode::UnknownRole,
                format!("unknown Gemini role {other:?}; expected user or model"),
            )
            .field("role"))
        }
    };
    // Gemini `Content` holds its text in `parts`: without them (a role-based `content` read as
    // Gemini by a forced format) the message would silently lose what it says.
    if !has(obj, "parts") {
        let seen = if has(obj, "content") { ": it has `content`, as role-based formats do" } else { "" };
        return Err(Error::new(
            ErrorCode::InvalidMessage,
            format!("a Gemini content is {{role, parts: [...]}}; this message has no `parts`{seen}"),
        )
        .field("parts"));
    }
    let parts = super::util::opt_array(obj, "parts")?;
    let mut out: Vec<Message> = Vec::new();
    let mut pending: Vec<ContentPart> = Vec::new();
    let mut main = Message::new(role, "");
    for (k, p) in parts.iter().enumerate() {
        let part = as_obj(p, "a part")?;
        one_kind_of_data(part, k)?;
        if let Some(call) = part.get("functionCall") {
            let call = as_obj(call, "`functionCall`")?;
            only_keys(call, "functionCall", k, &["id", "name", "args"])?;
            main.tool_calls.push(ToolCall {
                id: opt_id(call, "id")?.unwrap_or_default(),
                name: opt_str(call, "name")?.unwrap_or_default(),
                args: call.get("args").cloned().unwrap_or_else(|| obj! {}),
                raw_args: None,
                extra: extra_of(part, &["functionCall"]),
                approval: None,
            });
        } else if let Some(resp) = part.get("functionResponse") {
            let resp = as_obj(resp, "`functionResponse`")?;
            only_keys(resp, "functionResponse", k, &["id", "name", "response"])?;
            if !pending.is_empty() {
                let mut u = Message::new(role, "");
                u.content = Content::Parts(std::mem::take(&mut pending));
                out.push(u);
            }
            let mut t = Message::new(Role::Tool, "");
            t.tool_call_id = Some(opt_id(resp, "id")?.unwrap_or_default());
            t.name = opt_str(resp, "name")?;
            t.content = match resp.get("response") {
                Some(Value::Object(r)) if r.len() == 1 && r.get("result").is_some_and(Value::is_string) => {
                    Content::Text(r.get("result").and_then(Value::as_str).unwrap_or_default().to_string())
                }
                Some(Value::Object(r)) if r.len() == 1 && r.contains_key("error") => {
                    t.status = Some(ToolStatus::Error);
                    Content::Text(match r.get("error") {
                        Some(Value::String(s)) => s.clone(),
                        Some(v) => v.to_string(),
                        None => String::new(),
                    })
                }
                Some(v) => Content::Text(v.to_string()),
                None => Content::Absent,
            };
            t.extra = extra_of(part, &["functionResponse"]);
            out.push(t);
        } else {
            pending.push(decode_part(p)?);
        }
    }
    if role == Role::Assistant || !pending.is_empty() || out.is_empty() {
        main.content = Content::Parts(pending);
        out.insert(if role == Role::Assistant { 0 } else { out.len() }, main);
    }
    if let Some(first) = out.first_mut() {
        first.extra.extend(extra_of(obj, &["role", "parts"]));
        first.id = opt_id(obj, "id")?;
    }
    Ok(out)
}

/// The fields of a Gemini `Part` that hold its data: `Part.data` is a oneof, and a part "can only
/// contain one of the accepted types in Part.data" (the Gemini API's `Part` reference;
/// `@google/genai`'s `Part` type has them all optional, so a part with two can be built).
const DATA_FIELDS: [&str; 7] =
    ["text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"];

/// Refuses part `k` when two of its [`DATA_FIELDS`] say something (named in the part's order):
/// the reader takes one kind of data a part (a `{text, functionCall}` part became the call, and
/// its text went only where a Gemini request is written back, so converting it to any other
/// format dropped the text).
/// `INVALID_MESSAGE`, field `parts`, naming the fields.
fn one_kind_of_data(part: &Map<String, Value>, k: usize) -> Result<()> {
    let mut held = part.iter().filter(|(f, v)| DATA_FIELDS.contains(&f.as_str()) && !says_nothing(v));
    if held.clone().nth(1).is_none() {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::InvalidMessage,
        format!(
            "part {k}: a Gemini part holds one kind of data (`Part.data` is a oneof), and this one has {}; put each in a part of its own",
            key_list(&mut held.by_ref().map(|(f, _)| f.as_str()), " and "),
        ),
    )
    .field("parts"))
}

/// Refuses the keys of a `functionCall` / `functionResponse` (`what`, in part `part`) other than
/// `known` whose value says something: the API's other fields (`@google/genai`'s
/// `FunctionCall.partialArgs` and `willContinue`, a streamed call's; `FunctionResponse.parts`, a
/// multimodal result, `willContinue` and `scheduling`) and anything else would otherwise be lost
/// without a word. A value that says nothing (`null`, `false`, `""`, `[]`, `{}`) loses nothing
/// and is let through. `INVALID_MESSAGE`, field `parts`, naming every such key.
fn only_keys(obj: &Map<String, Value>, what: &str, part: usize, known: &[&str]) -> Result<()> {
    let mut unread = obj.iter().filter(|(k, v)| !known.contains(&k.as_str()) && !says_nothing(v));
    if unread.clone().next().is_none() {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::InvalidMessage,
        format!(
            "part {part}: a Gemini `{what}` with {} is not read: stategate reads only its {}, and dropping the rest would change what the history says",
            key_list(&mut unread.by_ref().map(|(k, _)| k.as_str()), ", "),
            key_list(&mut known.iter().copied(), ", "),
        ),
    )
    .field("parts"))
}

/// The call position `k` of an id this module gave an id-less call (`gemini-<message>-<k>`).
fn made_id(id: &str) -> Option<usize> {
    let rest = id.strip_prefix("gemini-")?;
    let (m, k) = rest.split_once('-')?;
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    (digits(m) && digits(k)).then(|| k.parse().ok()).flatten()
}

/// `{"id": id}` unless this module made the id (see the module docs).
fn id_field(id: &str) -> Map<String, Value> {
    let mut o = Map::new();
    if made_id(id).is_none() {
        o.put("id", val(&id));
    }
    o
}

/// Gives id-less calls an id and pairs id-less responses with the pending calls of the previous
/// model turn: each with the first pending call of its name (a nameless one with the first
/// pending call); a response whose name no pending call has answers none (an orphan, below).
/// `messages` are what one Gemini content decoded to; `pending` holds `(name, id)` of the calls
/// not yet answered. A response that names its call's id answers that call whatever its place,
/// so the calls it answers are taken out of `pending` before any id-less response of the turn is
/// paired (an id-less response never takes a call another response names).
pub(super) fn pair_ids(messages: &mut [Message], pending: &mut Vec<(String, String)>, source: usize) {
    for m in messages.iter_mut() {
        if m.role == Role::Assistant {
            pending.clear();
            for (k, c) in m.tool_calls.iter_mut().enumerate() {
                if c.id.is_empty() {
                    c.id = format!("gemini-{source}-{k}");
                }
                pending.push((c.name.clone(), c.id.clone()));
            }
        }
    }
    let named = |m: &Message| m.role == Role::Tool && m.tool_call_id.as_deref().is_some_and(|id| !id.is_empty());
    for id in messages.iter().filter(|m| named(m)).filter_map(|m| m.tool_call_id.as_deref()) {
        pending.retain(|(_, p)| p != id);
    }
    // A response left with no call to answer answers none: an orphan, with an id of its own that
    // no call has (`gemini-<message>-<k>`, `k` past the message's own calls), never written back.
    let mut orphan = messages.iter().map(|m| m.tool_calls.len()).sum::<usize>();
    for m in messages.iter_mut().filter(|m| m.role == Role::Tool && m.tool_call_id.as_deref() == Some("")) {
        let name = m.name.clone().unwrap_or_default();
        // By name; a nameless response by order. A name no pending call has answers none of them
        // (it was paired with the first by order: a guess).
        let pos =
            if name.is_empty() && !pending.is_empty() { Some(0) } else { pending.iter().position(|(n, _)| *n == name) };
        m.tool_call_id = Some(match pos {
            Some(pos) => pending.remove(pos).1,
            None => {
                let k = orphan;
                orphan += 1;
                format!("gemini-{source}-{k}")
            }
        });
    }
}

fn decode_part(v: &Value) -> Result<ContentPart> {
    let p = as_obj(v, "a part")?;
    if let Some(Value::String(text)) = p.get("text") {
        if p.get("thought").and_then(Value::as_bool) == Some(true) {
            return Ok(ContentPart::Reasoning { text: text.clone(), extra: extra_of(p, &["text"]) });
        }
        return Ok(ContentPart::Text { text: text.clone(), extra: extra_of(p, &["text"]) });
    }
    // Inline data and file URIs: an image's media type is an image, any other a file (its
    // `displayName` the file name). A blob with fields beyond these stays as it is.
    for (key, source) in [("inlineData", "data"), ("fileData", "fileUri")] {
        let Some(blob) = p.get(key).and_then(Value::as_object) else { continue };
        if blob.keys().any(|k| !["mimeType", source, "displayName"].contains(&k.as_str())) {
            break;
        }
        let media_type = opt_str(blob, "mimeType")?;
        let value = opt_str(blob, source)?;
        let (url, data) = if key == "inlineData" { (None, value) } else { (value, None) };
        let filename = opt_str(blob, "displayName")?;
        let extra = extra_of(p, &[key]);
        return Ok(match media_type {
            Some(m) if m.starts_with("image/") && filename.is_none() => {
                ContentPart::Image { url, data, media_type: Some(m), extra }
            }
            media_type => ContentPart::File { url, data, file_id: None, media_type, filename, extra },
        });
    }
    Ok(ContentPart::Other { raw: v.clone() })
}

/// A Gemini `Blob` / `FileData`: `{mimeType, <key>: value, displayName?}`.
fn blob(media_type: &str, key: &str, value: &str, name: Option<&str>) -> Value {
    let mut b = Map::new();
    b.put("mimeType", val(&media_type));
    b.insert(key.into(), val(&value));
    if let Some(n) = name {
        b.put("displayName", val(&n));
    }
    Value::Object(b)
}

fn encode_part(part: &ContentPart, origin: Option<Format>) -> Option<Value> {
    let own = origin == Some(Format::Gemini);
    let mut o = Map::new();
    let extra = match part {
        ContentPart::Text { text, extra } => {
            o.put("text", val(&text));
            extra
        }
        ContentPart::Reasoning { text, extra } => {
            o.put("text", val(&text));
            o.put("thought", Value::Bool(true));
            extra
        }
        ContentPart::Image { url, data, media_type, extra } => {
            let mt = media_type.as_deref().unwrap_or("image/png");
            match (data, url) {
                (Some(d), _) => o.put("inlineData", obj! {"mimeType": mt, "data": d}),
                // A data URL is inline data (`fileData` takes a file's URI).
                (None, Some(u)) => match super::util::data_url(u) {
                    Some((mt, d)) => o.put("inlineData", obj! {"mimeType": mt, "data": d}),
                    None => o.put("fileData", obj! {"mimeType": mt, "fileUri": u}),
                },
                (None, None) => return None,
            };
            extra
        }
        file @ ContentPart::File { url, data, media_type, filename, extra, .. } => {
            let mt = super::util::file_media_type(url.as_deref(), media_type.as_deref());
            match (super::util::file_inline(url.as_deref(), data.as_deref(), mt), url) {
                (Some((mt, d)), _) => o.put("inlineData", blob(mt, "data", d, filename.as_deref())),
                (None, Some(u)) => {
                    o.put("fileData", blob(mt.unwrap_or(super::util::OCTET_STREAM), "fileUri", u, filename.as_deref()))
                }
                (None, None) => {
                    let note = super::util::file_note(
                        file,
                        "Gemini takes a file's data or URI, not another provider's file id",
                    );
                    return encode_part(&note, None);
                }
            };
            extra
        }
        ContentPart::Other { raw } if own => return Some(raw.clone()),
        ContentPart::Other { raw } => return super::util::other_note(raw).and_then(|n| encode_part(&n, None)),
    };
    if own {
        for (k, v) in extra {
            o.entry(k.clone()).or_insert_with(|| v.clone());
        }
    } else if let Some(signature) = super::util::gemini_signature(extra, origin) {
        o.put("thoughtSignature", signature.clone());
    }
    Some(Value::Object(o))
}

fn parts_of(content: &Content, origin: Option<Format>) -> Vec<Value> {
    match content {
        Content::Text(t) if t.is_empty() => Vec::new(),
        Content::Text(t) => vec![obj! {"text": t}],
        Content::Parts(parts) => parts.iter().filter_map(|p| encode_part(p, origin)).collect(),
        Content::Null | Content::Absent => Vec::new(),
    }
}

pub(super) fn encode(group: &[Message]) -> Value {
    let Some(first) = group.first() else { return Value::Null };
    let own = first.origin == Some(Format::Gemini);
    let mut o = Map::new();
    let role = match first.role {
        Role::System => "system",
        Role::User | Role::Tool => "user",
        Role::Assistant => "model",
    };
    o.put("role", val(&role));
    let mut parts = Vec::new();
    if first.role == Role::Tool {
        // Responses to id-less calls are paired by order: write them in their calls' order.
        let made: Option<Vec<usize>> =
            group.iter().map(|t| made_id(t.tool_call_id.as_deref().unwrap_or_default())).collect();
        let mut order: Vec<&Message> = group.iter().collect();
        if let Some(k) = &made {
            let mut keyed: Vec<(usize, &Message)> = k.iter().copied().zip(group.iter()).collect();
            crate::order::sort_stable_by_key(&mut keyed, |(k, _)| *k as u64);
            order = keyed.into_iter().map(|(_, t)| t).collect();
        }
        for t in order {
            let text = content_as_string(&t.content);
            let response = match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(obj)) if t.status != Some(ToolStatus::Error) => Value::Object(obj),
                _ if t.status == Some(ToolStatus::Error) => obj! {"error": text},
                _ => obj! {"result": text},
            };
            let mut p = Map::new();
            let mut r =
                if made.is_some() { Map::new() } else { id_field(t.tool_call_id.as_deref().unwrap_or_default()) };
            r.put("name", val(&t.name.as_deref().unwrap_or_default()));
            r.put("response", response);
            p.put("functionResponse", Value::Object(r));
            if t.origin == Some(Format::Gemini) {
                p.extend(t.extra.clone());
            }
            parts.push(Value::Object(p));
        }
    } else {
        parts = parts_of(&first.content, first.origin);
        for c in &first.tool_calls {
            let mut p = Map::new();
            let mut call = id_field(&c.id);
            call.put("name", val(&c.name));
            call.put("args", c.args.clone());
            p.put("functionCall", Value::Object(call));
            if own {
                p.extend(c.extra.clone());
            } else if let Some(signature) = super::util::gemini_signature(&c.extra, first.origin) {
                p.put("thoughtSignature", signature.clone());
            }
            parts.push(Value::Object(p));
        }
        // Gemini's args are an object: unparsable ones go empty, with a note saying what they were.
        let notes = first.invalid_tool_calls.iter().map(|c| obj! {"text": invalid_call_note(c)});
        let at = parts.iter().position(|p| p.get("functionCall").is_some()).unwrap_or(parts.len());
        parts.splice(at..at, notes.collect::<Vec<_>>());
        for c in &first.invalid_tool_calls {
            let mut call = id_field(&c.id);
            call.put("name", val(&c.name));
            call.put("args", obj! {});
            parts.push(obj! {"functionCall": call});
        }
    }
    o.put("parts", Value::Array(parts));
    if first.role != Role::Tool {
        put_extra(&mut o, first, Format::Gemini);
    }
    Value::Object(o)
}
