//! Encoding: canonical messages grouped the way each format carries them and written out, with
//! what a format's request cannot carry made what it takes (media outside user messages, names
//! of results).

use super::*;
use crate::json::Put;

/// How the encoder groups canonical messages into output messages of `format`: each range is
/// encoded together ([`encode_group`]). Consecutive tool results share one message where the
/// format says so; a run of assistant items of an item format ([`same_turn`]) is one turn, so
/// it is one group in every format that writes a turn as one message. In an item format every
/// message is its own group (and may give several items: its text, then one per call). A
/// UIMessage holds an assistant turn's steps and results (a step continues the message it was
/// decoded from, see `ui::continues`).
pub fn groups(messages: &[Message], format: Format) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|p| messages.get(p));
        let joins = prev.is_some_and(|p| {
            let turn = !format.is_items() && same_turn((p.role, p.origin), (m.role, m.origin));
            match format {
                // Results fold into the assistant message before them.
                Format::Ui => {
                    m.role == Role::Tool || (m.role == Role::Assistant && (turn || ui::continues(messages, i)))
                }
                _ => (format.merges_tool_results() && m.role == Role::Tool && p.role == Role::Tool) || turn,
            }
        });
        match out.last_mut() {
            Some(last) if joins => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// [`groups`] from the roles alone, for messages of one format that are not item-format turns
/// (repair encodes a run of items back into its own item format, where no turn is merged; no
/// step continues an earlier UIMessage).
pub fn group_roles(roles: &[Role], format: Format) -> Vec<Range<usize>> {
    group_with(roles, |_| false, format)
}

/// [`groups`] from the roles and, for UIMessages, whether the assistant message at `i`
/// continues the one before it.
pub fn group_with(roles: &[Role], continues: impl Fn(usize) -> bool, format: Format) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(roles.len());
    for (i, role) in roles.iter().enumerate() {
        let joins = match format {
            // Results fold into the assistant message before them.
            Format::Ui => i > 0 && (*role == Role::Tool || (*role == Role::Assistant && continues(i))),
            _ => format.merges_tool_results() && *role == Role::Tool && i > 0 && roles.get(i - 1) == Some(&Role::Tool),
        };
        match out.last_mut() {
            Some(last) if joins => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// One assistant message for a turn of several (see [`same_turn`]): the content of each in
/// order (text as text parts), then all calls, valid then invalid (a call id seen before in the
/// turn is left out); the first one's id and name.
/// `extra` is left out: it belongs to the items, and only the item format writes it.
fn merge_turn(group: &[Message]) -> Message {
    let mut parts = Vec::new();
    let mut m = group.first().cloned().unwrap_or_else(|| Message::new(Role::Assistant, ""));
    m.tool_calls.clear();
    m.invalid_tool_calls.clear();
    m.extra.clear();
    for g in group {
        match &g.content {
            Content::Text(t) if !t.is_empty() => parts.push(ContentPart::text(t.clone())),
            Content::Parts(p) => parts.extend(p.iter().cloned()),
            _ => {}
        }
        m.tool_calls.extend(g.tool_calls.iter().cloned());
        m.invalid_tool_calls.extend(g.invalid_tool_calls.iter().cloned());
    }
    // One message cannot carry a call id twice (check_calls): a repeated item gives it once.
    let mut seen = std::collections::HashSet::new();
    m.tool_calls.retain(|c| seen.insert(c.id.clone()));
    m.invalid_tool_calls.retain(|c| seen.insert(c.id.clone()));
    m.content = Content::Parts(parts);
    m
}

/// Encodes one group (see [`groups`]): one output message, or in an item format the items of
/// each message (one or more, none for an assistant message of another format with nothing an
/// item can carry).
pub fn encode_group(group: &[Message], format: Format) -> Vec<Value> {
    // An approval decision goes only to the AI SDK's formats (no provider request has one).
    if !matches!(format, Format::AiSdk | Format::Ui) && group.iter().any(Message::is_aside) {
        let kept: Vec<Message> = group.iter().filter(|m| !m.is_aside()).cloned().collect();
        return if kept.is_empty() { Vec::new() } else { encode_group(&kept, format) };
    }
    if format.is_items() {
        return group.iter().flat_map(|m| responses::encode(m, format)).collect();
    }
    // A reasoning item's id and encrypted content go where the AI SDK keeps them.
    let lifted: Vec<Message>;
    let group = if matches!(format, Format::AiSdk | Format::Ui)
        && group.iter().any(|m| m.origin.is_some_and(Format::is_items) && m.role == Role::Assistant)
    {
        lifted = group.iter().map(|m| responses::reasoning_for_ai_sdk(m).unwrap_or_else(|| m.clone())).collect();
        &lifted[..]
    } else {
        group
    };
    if format == Format::Ui {
        return vec![ui::encode(group)];
    }
    let turn = group.len() > 1 && group.first().is_some_and(|m| m.role == Role::Assistant);
    if turn && format == Format::AiSdk {
        return vec![ai_sdk::encode_turn(group)];
    }
    let merged;
    let group = if turn {
        merged = [merge_turn(group)];
        &merged[..]
    } else {
        group
    };
    vec![match format {
        Format::Langchain => group.first().map_or(Value::Null, langchain::encode),
        Format::Openai => group.first().map_or(Value::Null, openai::encode),
        Format::Anthropic => anthropic::encode(group),
        Format::AiSdk => ai_sdk::encode(group),
        Format::Gemini => gemini::encode(group),
        Format::Ui => ui::encode(group),
        Format::Responses | Format::OpenaiAgents => Value::Null,
    }]
}

/// Encodes canonical messages into `format`.
///
/// Fields a message kept in `extra` are emitted only when `format` is the message's origin; when
/// converting, only what the target format defines is written.
pub fn encode_messages(messages: &[Message], format: Format) -> Vec<Value> {
    encode_indexed(messages, format).0
}

/// The messages as [`encode_indexed`] groups and encodes them for `format`: nameless results
/// named after their call where the format requires a name, media moved out of messages that
/// cannot carry it, OpenAI refusals carried as text (each step only when it changes something).
pub fn prepare(input: &[Message], format: Format) -> std::borrow::Cow<'_, [Message]> {
    // Gemini, the AI SDK and the Agents SDK name a result by its function (`functionResponse.name`,
    // `tool-result.toolName`, `function_call_result.name` are required): give nameless results the
    // name of the call they answer.
    let named: Option<Vec<Message>> = (matches!(format, Format::Gemini | Format::AiSdk | Format::OpenaiAgents)
        && input.iter().any(|m| m.role == Role::Tool && m.name.as_deref().unwrap_or("").is_empty()))
    .then(|| {
        let mut names: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
        input
            .iter()
            .map(|m| {
                for c in &m.tool_calls {
                    names.insert(c.id.as_str(), c.name.as_str());
                }
                // A call whose arguments did not parse is answered by name too.
                for c in m.invalid_tool_calls.iter().filter(|c| !c.name.is_empty()) {
                    names.insert(c.id.as_str(), c.name.as_str());
                }
                let mut m = m.clone();
                if m.role == Role::Tool && m.name.as_deref().unwrap_or("").is_empty() {
                    m.name = m.tool_call_id.as_deref().and_then(|id| names.get(id)).map(|n| n.to_string());
                }
                m
            })
            .collect()
    });
    let messages = named.as_deref().unwrap_or(input);
    let placed = place_media(messages, format);
    let messages = placed.as_deref().unwrap_or(messages);
    let refusals = carry_refusals(messages, format);
    match refusals.or(placed).or(named) {
        Some(m) => std::borrow::Cow::Owned(m),
        None => std::borrow::Cow::Borrowed(input),
    }
}

/// [`encode_messages`] for messages a caller gave (`store.messages(format)`, `readTranscript`),
/// after refusing what `format` cannot carry as it is: for UIMessages, a result whose call is not
/// in its UIMessage (`UNKNOWN_TOOL_CALL`) or a second result of one call (`ALREADY_ANSWERED`)
/// (`ui::check`; `index` = the result's position in `messages`).
pub fn convert(messages: &[Message], format: Format) -> Result<Vec<Value>> {
    if format == Format::Ui {
        ui::check(messages)?;
    }
    Ok(encode_messages(messages, format))
}

/// [`convert`] of decoded input (`convertMessages`): an error's `index` is the input message the
/// refused one was decoded from.
pub fn convert_decoded(decoded: &Decoded, format: Format) -> Result<Vec<Value>> {
    convert(&decoded.messages, format).map_err(|mut e| {
        e.index = e.index.map(|i| decoded.source.get(i).copied().unwrap_or(i));
        e
    })
}

/// [`encode_messages`], with, for each canonical message, the index of the first output message
/// its group was written to (for a group written as nothing, an item-format assistant message
/// with nothing to carry, the index the next output message has).
pub fn encode_indexed(messages: &[Message], format: Format) -> (Vec<Value>, Vec<usize>) {
    let messages = prepare(messages, format);
    let messages = &messages[..];
    let mut out = Vec::with_capacity(messages.len());
    let mut index = vec![0; messages.len()];
    for range in groups(messages, format) {
        if let Some(slot) = index.get_mut(range.clone()) {
            slot.fill(out.len());
        }
        out.extend(messages.get(range).map(|g| encode_group(g, format)).unwrap_or_default());
    }
    if format == Format::Ui {
        // A UIMessage needs an id: one the source had none for gets its position (`msg-3`).
        for (k, v) in out.iter_mut().enumerate() {
            if let Some(o) = v.as_object_mut().filter(|o| !o.contains_key("id")) {
                o.put("id", Value::String(format!("msg-{k}")));
            }
        }
    }
    (out, index)
}

/// An OpenAI assistant message's `refusal` (a field of its own there, beside `content`) is the
/// text the model answered with: another format gets it as a text part, not an empty message.
/// `None` when no message has one.
fn carry_refusals(messages: &[Message], format: Format) -> Option<Vec<Message>> {
    fn refusal(m: &Message, format: Format) -> Option<&str> {
        let carried = m.role == Role::Assistant && m.origin == Some(Format::Openai) && format != Format::Openai;
        carried.then(|| m.extra.get("refusal").and_then(Value::as_str).filter(|r| !r.is_empty())).flatten()
    }
    if !messages.iter().any(|m| refusal(m, format).is_some()) {
        return None;
    }
    Some(
        messages
            .iter()
            .map(|m| {
                let mut m = m.clone();
                if let Some(text) = refusal(&m, format).map(str::to_string) {
                    let part = ContentPart::text(text);
                    m.content = match std::mem::replace(&mut m.content, Content::Absent) {
                        Content::Parts(mut parts) => {
                            parts.push(part);
                            Content::Parts(parts)
                        }
                        Content::Text(t) if !t.is_empty() => Content::Parts(vec![ContentPart::text(t), part]),
                        _ => Content::Parts(vec![part]),
                    };
                }
                m
            })
            .collect(),
    )
}

/// Images and files in messages whose role `format`'s request takes none in, made what it takes:
/// OpenAI Chat and Anthropic take them only from the user (a system or assistant image becomes a
/// text note naming it); an AI SDK assistant message takes an image as a `file` part and an AI
/// SDK system message only text; a Responses or Agents system or assistant message takes none. Tool results follow the providers' own
/// result rules (validation and repair). `None` when nothing moves.
fn place_media(messages: &[Message], format: Format) -> Option<Vec<Message>> {
    // What the caller wrote in this very format is written back as it came (round trips stay exact).
    let moves = |m: &Message| match (format, m.role) {
        _ if m.origin == Some(format) => false,
        (_, Role::User | Role::Tool) => false,
        (Format::Openai | Format::Anthropic | Format::Responses | Format::OpenaiAgents | Format::AiSdk, _) => true,
        _ => false,
    };
    let is_media = |p: &ContentPart| matches!(p, ContentPart::Image { .. } | ContentPart::File { .. });
    let touched = |m: &Message| moves(m) && matches!(&m.content, Content::Parts(p) if p.iter().any(is_media));
    if !messages.iter().any(touched) {
        return None;
    }
    let why = match format {
        Format::Openai => "OpenAI Chat takes images and files only in user messages",
        Format::Anthropic => "Anthropic takes images and documents only in user messages",
        Format::AiSdk => "an AI SDK system message is text",
        _ => "a system or assistant message item takes no images or files",
    };
    Some(
        messages
            .iter()
            .map(|m| {
                let mut m = m.clone();
                if touched(&m) {
                    if let Content::Parts(parts) = &mut m.content {
                        for p in parts.iter_mut() {
                            *p = match (&*p, format) {
                                (ContentPart::Image { url, data, media_type, .. }, Format::AiSdk)
                                    if m.role == Role::Assistant =>
                                {
                                    ContentPart::File {
                                        url: url.clone(),
                                        data: data.clone(),
                                        file_id: None,
                                        media_type: media_type.clone().or(Some("image/png".into())),
                                        filename: None,
                                        extra: Map::new(),
                                    }
                                }
                                (ContentPart::File { .. }, Format::AiSdk) if m.role == Role::Assistant => p.clone(),
                                (ContentPart::Image { .. }, _) => ContentPart::text(format!("[image not sent: {why}]")),
                                (ContentPart::File { .. }, _) => util::file_note(p, why),
                                _ => p.clone(),
                            };
                        }
                    }
                }
                m
            })
            .collect(),
    )
}

/// Writes `extra` fields into `obj` when the message came from `format`, without overwriting the
/// fields the encoder set.
pub(crate) fn put_extra(obj: &mut Map<String, Value>, m: &Message, format: Format) {
    if m.origin == Some(format) {
        for (k, v) in &m.extra {
            if !obj.contains_key(k) && !format.response_only(k) {
                obj.insert(k.clone(), v.clone());
            }
        }
    }
}

/// A model view is a request: fields a message carried over from its source that the format's
/// request does not define are left out of it. OpenAI Chat: a message keeps `role`, `content`,
/// `name`, `tool_calls`, `tool_call_id`, `refusal`, `audio`, `function_call`
/// (`ChatCompletionMessageParam`), a tool call `id`, `type`, `function` — so the `thought` /
/// `action` / `agent` of a SWE-agent trajectory, or a recorded call's `index`, are not sent (a
/// conversion keeps them: its round trip is exact). The other formats' encoders write only
/// their request's fields already.
pub fn keep_request_fields(messages: &mut [Value], format: Format) {
    if format != Format::Openai {
        return;
    }
    const MESSAGE: [&str; 8] =
        ["role", "content", "name", "tool_calls", "tool_call_id", "refusal", "audio", "function_call"];
    for m in messages.iter_mut().filter_map(Value::as_object_mut) {
        m.retain(|k, _| MESSAGE.contains(&k.as_str()));
        if let Some(Value::Array(calls)) = m.get_mut("tool_calls") {
            for c in calls.iter_mut().filter_map(Value::as_object_mut) {
                c.retain(|k, _| matches!(k.as_str(), "id" | "type" | "function"));
            }
        }
    }
}
