//! Reasoning items of the two item formats (`{type: "reasoning", id, summary | content,
//! encrypted_content | providerData, content | rawContent}`): read as an assistant message of
//! reasoning parts, written back for their own format, carried across between the API's and the
//! Agents SDK's items, and to and from the AI SDK's formats, where its OpenAI provider keeps an
//! item's id and encrypted content on each reasoning part (`providerOptions.openai`).

use super::{Dialect, Placed};
use crate::error::Result;
use crate::json::{obj, val, Put};
use crate::message::formats::util::{as_obj, extra_of, opt_array, opt_id, opt_str};
use crate::message::formats::Format;
use crate::message::{Content, ContentPart, Message, Role};
use serde_json::{Map, Value};

pub(super) fn decode_reasoning(obj: &Map<String, Value>, d: Dialect) -> Result<Message> {
    let key = d.summary_key();
    let mut parts = Vec::new();
    for entry in opt_array(obj, key)? {
        let e = as_obj(entry, "a reasoning summary entry")?;
        let text = opt_str(e, "text")?.unwrap_or_default();
        let mut extra = extra_of(e, &["type", "text"]);
        // An empty entry keeps its type, so it is told from the part standing for an empty summary.
        match e.get("type") {
            Some(t) if text.is_empty() || t.as_str() != Some(d.summary_type()) => {
                extra.put("type", t.clone());
            }
            _ => {}
        }
        parts.push(ContentPart::Reasoning { text, extra });
    }
    if parts.is_empty() {
        parts.push(ContentPart::Reasoning { text: String::new(), extra: Map::new() });
    }
    let mut m = Message::new(Role::Assistant, "");
    m.id = opt_id(obj, "id")?;
    m.content = Content::Parts(parts);
    m.extra = extra_of(obj, &["type", key]);
    Ok(m)
}

/// A reasoning item's message (`responses`, `openai-agents`) as the AI SDK's formats take it: each
/// reasoning part carries, as its only unmodelled field, `providerOptions: {openai: {itemId?,
/// reasoningEncryptedContent?}}` — the item's own id (never `Message.id`, which the store may
/// have given) and its encrypted content, where the AI SDK's OpenAI Responses provider keeps them
/// on a reasoning part and reads them back to send the item again
/// (`openaiResponsesReasoningProviderOptionsSchema`, `convert-to-openai-responses-input.ts`):
/// `ai-sdk` writes it as the part's `providerOptions`, `ui` as its `providerMetadata`
/// ([`crate::message::formats::util::provider_metadata`]). The summary entries' own
/// fields go back to the item formats only. `None` for any other message.
pub(crate) fn reasoning_for_ai_sdk(m: &Message) -> Option<Message> {
    let Content::Parts(parts) = &m.content else { return None };
    if !m.origin.is_some_and(Format::is_items) || !parts.iter().any(|p| matches!(p, ContentPart::Reasoning { .. })) {
        return None;
    }
    let mut openai = Map::new();
    if let Some(id) = m.extra.get("id").filter(|id| id.is_string() && id.as_str() != Some("FAKE_ID")) {
        openai.put("itemId", id.clone());
    }
    if let Some(enc) = encrypted_content(m) {
        openai.put("reasoningEncryptedContent", enc.clone());
    }
    let mut lifted = m.clone();
    if let Content::Parts(parts) = &mut lifted.content {
        for p in parts {
            if let ContentPart::Reasoning { extra, .. } = p {
                extra.clear();
                if !openai.is_empty() {
                    extra.put("providerOptions", obj! {"openai": Value::Object(openai.clone())});
                }
            }
        }
    }
    Some(lifted)
}

/// The encrypted content of a reasoning item, as text: the API's `encrypted_content`, the SDK's
/// `providerData.encrypted_content` (or `encryptedContent`).
fn encrypted_content(m: &Message) -> Option<&Value> {
    let from_sdk =
        m.extra.get("providerData").and_then(|p| p.get("encrypted_content").or_else(|| p.get("encryptedContent")));
    m.extra.get("encrypted_content").or(from_sdk).filter(|e| e.is_string())
}

/// The encrypted content of a reasoning item of the other item format, onto `item`.
pub(super) fn carry_encrypted_content(m: &Message, item: Option<&mut Value>, d: Dialect) {
    let Some(enc) = encrypted_content(m).cloned() else { return };
    let Some(Value::Object(o)) = item else { return };
    put_encrypted_content(o, enc, d);
}

/// The raw reasoning text of a reasoning item of the other item format, onto `item`: the API's
/// `content` (`ResponseReasoningItem.content`, `reasoning_text` entries) is the SDK's
/// `rawContent` (`ReasoningItem.rawContent`), each entry `{type: "reasoning_text", text}`.
pub(super) fn carry_raw_reasoning(m: &Message, item: Option<&mut Value>, d: Dialect) {
    let (from, to) = match d {
        Dialect::Api => ("rawContent", "content"),
        Dialect::Agents => ("content", "rawContent"),
    };
    let Some(Value::Array(entries)) = m.extra.get(from) else { return };
    let Some(Value::Object(o)) = item else { return };
    let raw: Vec<Value> = entries
        .iter()
        .filter_map(|e| e.get("text").filter(|t| t.is_string()))
        .map(|text| obj! {"type": "reasoning_text", "text": text})
        .collect();
    if !raw.is_empty() {
        o.put(to, Value::Array(raw));
    }
}

/// A reasoning item's encrypted content where `d` keeps it.
fn put_encrypted_content(item: &mut Map<String, Value>, enc: Value, d: Dialect) {
    match d {
        Dialect::Api => item.put("encrypted_content", enc),
        Dialect::Agents => item.put("providerData", obj! {"encrypted_content": enc}),
    }
}

/// The reasoning items an AI SDK assistant message (`ai-sdk`, `ui`) carries for OpenAI, as the
/// AI SDK's OpenAI Responses provider sends them (`convert-to-openai-responses-input.ts`): the
/// reasoning parts naming one `itemId` in `providerOptions.openai` (a UIMessage's
/// `providerMetadata.openai`) are one item with that id, a summary entry per part with text, and
/// the last `reasoningEncryptedContent` given. A part without an `itemId` is not sent (the
/// `openai` package's `ResponseReasoningItem` requires an id), nor an item without encrypted
/// content (a reference to a stored item, which `store: false` refuses), nor reasoning of other
/// formats; nor are several items beside calls whose places are not known (`has_calls`): which
/// call each led to is not kept, and the API refuses a reasoning item that is not followed by its
/// own next item.
pub(super) fn reasoning_from_ai_sdk(
    parts: &[Placed],
    origin: Option<Format>,
    d: Dialect,
    has_calls: bool,
) -> Vec<(usize, Value)> {
    // Per item: the place of its first part, its id, its summary entries, its encrypted content.
    let mut items: Vec<(usize, String, Vec<ContentPart>, Option<Value>)> = Vec::new();
    for &(place, p) in parts {
        let ContentPart::Reasoning { text, extra } = p else { continue };
        let meta = crate::message::formats::util::provider_metadata(extra, origin);
        let Some(openai) = meta.as_ref().and_then(|m| m.get("openai")) else { continue };
        let Some(id) = openai.get("itemId").and_then(Value::as_str) else { continue };
        let enc = openai.get("reasoningEncryptedContent").filter(|e| e.is_string()).cloned();
        let at = match items.iter().position(|(_, i, _, _)| i == id) {
            Some(at) => at,
            None => {
                items.push((place, id.to_string(), Vec::new(), None));
                items.len() - 1
            }
        };
        let Some((_, _, summary, last_enc)) = items.get_mut(at) else { continue };
        if !text.is_empty() {
            summary.push(ContentPart::Reasoning { text: text.clone(), extra: Map::new() });
        }
        if enc.is_some() {
            *last_enc = enc;
        }
    }
    // Without its encrypted content a reasoning item is only a reference to one the API stored:
    // with `store: false` (how a caller that keeps its own history runs) the API answers 404, and
    // the AI SDK's provider leaves it out ("Reasoning parts without encrypted content are not
    // supported when store is false"); so does stategate.
    items.retain(|(_, _, _, enc)| enc.is_some());
    if has_calls && items.len() > 1 {
        return Vec::new();
    }
    items
        .into_iter()
        .map(|(place, id, summary, enc)| {
            let refs: Vec<&ContentPart> = summary.iter().collect();
            let mut item = encode_reasoning(&refs, d, false);
            if let Value::Object(o) = &mut item {
                o.put("id", Value::from(id));
                if let Some(enc) = enc {
                    put_encrypted_content(o, enc, d);
                }
            }
            (place, item)
        })
        .collect()
}

pub(super) fn encode_reasoning(parts: &[&ContentPart], d: Dialect, own: bool) -> Value {
    let summary: Vec<Value> = parts
        .iter()
        .filter_map(|p| match p {
            // The part standing for an empty summary.
            ContentPart::Reasoning { text, extra } if text.is_empty() && extra.is_empty() => None,
            ContentPart::Reasoning { text, extra } => {
                let mut e = Map::new();
                e.put("type", val(&d.summary_type()));
                e.put("text", val(&text));
                if own {
                    e.extend(extra.clone());
                }
                Some(Value::Object(e))
            }
            _ => None,
        })
        .collect();
    let mut o = Map::new();
    o.put("type", Value::from("reasoning"));
    o.insert(d.summary_key().into(), Value::Array(summary));
    Value::Object(o)
}
