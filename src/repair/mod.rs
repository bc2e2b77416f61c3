//! Tool-call integrity: provider validation and dangling tool-call repair (DESIGN §5).
//!
//! Both run on [`Shape`]s, the structure of each decoded message; [`repair_outputs`] names
//! untouched input messages by index, so the JS binding hands back the caller's own objects. [`validate`] and [`repair`] here are
//! the canonical-message entry points.

mod approval;
mod plan;
// proptest is a native dev-dependency only (the wasm32 test build has no proptest).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod props;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod reference;
mod shape;
pub mod skeleton;
mod turns;
mod validate;

pub use approval::{check_pending_approvals, paused, OnPendingApproval};
pub use plan::{plan, Action, ContentFix, Fix, FixKind, Item, Reason, RepairOptions, Synthetic};
pub use shape::{is_placeholder, shapes_of, CallShape, Shape, Shapes, ToolContent};
pub use validate::{validate as validate_shapes, Provider, Rule, Violation};

use crate::error::{Error, ErrorCode, Result};
use crate::message::formats::{decode_messages, encode_group, group_with, Format};
use crate::message::{Content, ContentPart, Message, Role, ToolStatus};
use serde_json::Value;
use std::borrow::Borrow;

/// The report of a repair: every fix, in input order.
pub type RepairReport = Vec<Fix>;

/// Shapes of canonical messages that are their own input (message `i` came from input `i`).
pub fn shapes_of_messages<M: Borrow<Message>>(messages: &[M]) -> Shapes<'_> {
    let n_calls = messages.iter().map(|m| m.borrow().tool_calls.len() + m.borrow().invalid_tool_calls.len()).sum();
    let mut out = Shapes::with_capacity(messages.len(), n_calls);
    for (i, m) in messages.iter().enumerate() {
        let m = m.borrow();
        out.push_message(m, i, 0, m.origin.unwrap_or(Format::Openai));
    }
    out.set_approvals(messages);
    out
}

/// Every violation of `provider`'s rules in `messages`, in order. Indices are positions in `messages`.
///
/// `RESULTS_SPLIT` never applies here: the encoders put consecutive canonical tool results into
/// one message wherever the provider wants them together, so a split cannot reach the provider.
pub fn validate(messages: &[Message], provider: Provider) -> Vec<Violation> {
    let mut out = validate_shapes(&shapes_of_messages(messages), provider);
    out.retain(|v| v.rule != Rule::ResultsSplit);
    out
}

/// Repairs `messages` (see [`plan`] for the semantics) and reports each fix. The output passes
/// [`validate`] for `opts.provider` (OpenAI when unset) — except orphan results kept on purpose
/// with `keep_orphans`, and `APPROVAL_PENDING` for a call at the end that waits for its approval
/// (left alone: the run is paused on it) — and repairing it again changes nothing.
pub fn repair<M: Borrow<Message>>(messages: &[M], opts: &RepairOptions) -> (Vec<Message>, RepairReport) {
    let (items, report) = plan(&shapes_of_messages(messages), opts);
    let out = items.iter().filter_map(|item| materialize(item, messages, opts)).collect();
    (out, report)
}

/// The most text the placeholder results of one repair may hold, in bytes of UTF-8: 128 MiB,
/// more than a million placeholders of the default text (an input holds at most 32 Mi characters).
/// A history of 500,000 dangling calls repaired with a 1,024-character `text` asked for 2 GB and ran
/// the wasm module out of memory: a trap, after which the instance was dead.
pub const MAX_PLACEHOLDER_BYTES: usize = 128 << 20;

/// Refuses (`TOO_LARGE`), before any is made, a plan whose placeholder results would hold more
/// than [`MAX_PLACEHOLDER_BYTES`] of text ([`RepairOptions::placeholder_len`]).
pub fn check_placeholders(items: &[Item], opts: &RepairOptions) -> Result<()> {
    let (mut count, mut bytes) = (0usize, 0usize);
    for item in items {
        if let Item::Synthetic(s) = item {
            count += 1;
            bytes = bytes.saturating_add(opts.placeholder_len(s));
        }
    }
    if bytes <= MAX_PLACEHOLDER_BYTES {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::TooLarge,
        format!(
            "the repair would insert {count} placeholder results holding {bytes} bytes of text; the limit is {MAX_PLACEHOLDER_BYTES} bytes: shorten `text`, or repair the history in parts"
        ),
    )
    .field("text"))
}

/// The message an [`Item`] stands for: a kept message (with its content fix) or a placeholder.
pub fn materialize<M: Borrow<Message>>(item: &Item, messages: &[M], opts: &RepairOptions) -> Option<Message> {
    match item {
        Item::Keep(i, fix) => messages.get(*i).map(|m| apply_fix(m.borrow().clone(), *fix)),
        Item::Synthetic(synthetic) => {
            let Synthetic { id, name, .. } = &**synthetic;
            let mut m = Message::tool_result(id.clone(), opts.placeholder(synthetic), ToolStatus::Error);
            m.name = Some(if name.is_empty() { "unknown".to_string() } else { name.clone() });
            Some(m)
        }
    }
}

/// Applies a [`ContentFix`] to one message.
pub fn apply_fix(mut m: Message, fix: ContentFix) -> Message {
    if fix.drop_empty_text {
        if let Content::Parts(parts) = &mut m.content {
            parts.retain(|p| !matches!(p, ContentPart::Text { text, .. } if text.is_empty()));
        }
    }
    if fix.tool_content_to_text {
        m.content = Content::Text(crate::message::formats::util::content_as_string(&m.content));
    }
    m
}

/// One message of a repaired input list: an input message kept as it was (by index), or a new
/// or rewritten message already encoded in its format.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// The input message at this index, untouched (in JS: the very same object).
    Original(usize),
    /// A message that changed or was added, encoded in the format of its neighbours.
    New(Value),
}

/// Turns a repair plan over input messages into output messages.
///
/// Items are grouped as the target format groups messages ([`group_with`]: a UIMessage's steps,
/// the canonical messages of one input message, stay together); a group that is
/// exactly one whole input message, unchanged, is kept as [`Output::Original`]; any other group is
/// materialised (`unit(i)` gives the canonical message at position `i`, decoded on demand, so
/// untouched input messages are never converted) and encoded (one output message, or in an item
/// format one or more items). Errors: `TOO_LARGE` from [`check_placeholders`], before anything is made.
pub fn assemble(
    items: &[Item],
    shapes: &[Shape<'_>],
    opts: &RepairOptions,
    mut unit: impl FnMut(usize) -> Result<Message>,
) -> Result<Vec<Output>> {
    check_placeholders(items, opts)?;
    let format_of = |item: &Item| {
        let i = match item {
            Item::Keep(i, _) => *i,
            Item::Synthetic(s) => s.after,
        };
        shapes.get(i).map_or(Format::Openai, |s| s.format)
    };
    let role_of = |item: &Item| match item {
        Item::Keep(i, _) => shapes.get(*i).map_or(Role::User, |s| s.role),
        Item::Synthetic { .. } => Role::Tool,
    };
    let units_of_source = |s: usize, from: usize| shapes.iter().skip(from).take_while(|x| x.source == s).count();
    let mut out = Vec::with_capacity(items.len());
    let mut start = 0;
    while start < items.len() {
        let format = items.get(start).map_or(Format::Openai, format_of);
        let end = start + items.iter().skip(start).take_while(|it| format_of(it) == format).count();
        let run = items.get(start..end).unwrap_or_default();
        let roles: Vec<Role> = run.iter().map(role_of).collect();
        let source_of = |item: Option<&Item>| match item {
            Some(Item::Keep(i, _)) => shapes.get(*i).map(|s| s.source),
            _ => None,
        };
        // An assistant message continues the message before it when both came from one input
        // message (the steps of one UIMessage), whatever placeholders were inserted between.
        let continues = |k: usize| {
            let before = run.get(..k).unwrap_or_default().iter().rev().find_map(|it| source_of(Some(it)));
            source_of(run.get(k)).is_some() && source_of(run.get(k)) == before
        };
        let groups = group_with(&roles, continues, format);
        if groups.len() == run.len() {
            // Every item its own group (no format rule joins two): an unchanged input message is
            // itself, without building the group.
            for item in run {
                if let Item::Keep(i, fix) = item {
                    let s = shapes.get(*i);
                    let alone =
                        s.is_some_and(|s| s.part == 0 && shapes.get(i + 1).is_none_or(|n| n.source != s.source));
                    if fix.is_none() && alone {
                        out.push(Output::Original(s.map_or(0, |s| s.source)));
                        continue;
                    }
                }
                let message = match item {
                    Item::Keep(i, fix) => apply_fix(unit(*i)?, *fix),
                    synthetic => materialize::<Message>(synthetic, &[], opts).ok_or_else(|| {
                        Error::new(ErrorCode::InvalidOption, "the placeholder text template could not be applied")
                    })?,
                };
                out.extend(encode_group(std::slice::from_ref(&message), format).into_iter().map(Output::New));
            }
            start = end;
            continue;
        }
        for range in groups {
            let group = run.get(range).unwrap_or_default();
            if let Some(src) = whole_source(group, shapes, &units_of_source) {
                out.push(Output::Original(src));
                continue;
            }
            let mut messages = Vec::with_capacity(group.len());
            for item in group {
                let m = match item {
                    Item::Keep(i, fix) => apply_fix(unit(*i)?, *fix),
                    synthetic => materialize::<Message>(synthetic, &[], opts).ok_or_else(|| {
                        Error::new(ErrorCode::InvalidOption, "the placeholder text template could not be applied")
                    })?,
                };
                messages.push(m);
            }
            out.extend(encode_group(&messages, format).into_iter().map(Output::New));
        }
        start = end;
    }
    Ok(out)
}

/// The input index when `group` is exactly all canonical messages of one input message, in order
/// and unchanged.
fn whole_source(group: &[Item], shapes: &[Shape], units_of_source: &dyn Fn(usize, usize) -> usize) -> Option<usize> {
    let mut first = None;
    for (k, item) in group.iter().enumerate() {
        let Item::Keep(i, fix) = item else { return None };
        if !fix.is_none() {
            return None;
        }
        match first {
            None => first = Some(*i),
            Some(f) if *i == f + k => {}
            Some(_) => return None,
        }
    }
    let f = first?;
    let s = shapes.get(f)?;
    (s.part == 0 && units_of_source(s.source, f) == group.len()).then_some(s.source)
}

/// Validates a list of input messages in any format(s); indices are input positions.
///
/// Errors: the decoding errors of [`decode_messages`], with the input index.
pub fn validate_values(values: &[Value], provider: Provider) -> Result<Vec<Violation>> {
    let d = decode_messages(values, None)?;
    Ok(validate_shapes(&shapes_of(&d.messages, &d.source, &d.formats), provider))
}

/// Repairs a list of input messages in any format(s): the output as input indices
/// ([`Output::Original`], so a binding can hand back the caller's own objects) and new or changed
/// messages, in the format of their neighbours.
///
/// Errors: the decoding errors of [`decode_messages`], with the input index.
pub fn repair_outputs(values: &[Value], opts: &RepairOptions) -> Result<(Vec<Output>, RepairReport)> {
    let d = decode_messages(values, None)?;
    let shapes = shapes_of(&d.messages, &d.source, &d.formats);
    check_pending_approvals(&shapes, opts)?;
    let (items, report) = plan(&shapes, opts);
    let out = assemble(&items, &shapes, opts, |i| {
        d.messages
            .get(i)
            .cloned()
            .ok_or_else(|| Error::new(ErrorCode::InvalidMessage, "internal: message index out of range"))
    })?;
    Ok((out, report))
}

/// [`repair_outputs`] over a history's skeleton ([`skeleton`]): the same outputs and report, or
/// `None` when the skeleton cannot decide (it is not one the builder writes, a message needs the
/// decoder's refusal, or a kept message must be rewritten, which needs its content): the caller
/// then takes the full path. Errors: an unusable placeholder template, as [`repair_outputs`].
pub fn repair_skeleton(meta: &[u32], text: &[u8], opts: &RepairOptions) -> Option<(Vec<Output>, RepairReport)> {
    let shapes = skeleton::shapes(meta, text)?;
    let (items, report) = plan(&shapes, opts);
    // A kept message whose content changes needs the message itself: only the full path has it.
    let out =
        assemble(&items, &shapes, opts, |_| Err(Error::new(ErrorCode::InvalidMessage, "needs the full path"))).ok()?;
    Some((out, report))
}

/// [`validate_values`] over a history's skeleton ([`skeleton`]); `None` when it cannot decide.
pub fn validate_skeleton(meta: &[u32], text: &[u8], provider: Provider) -> Option<Vec<Violation>> {
    Some(validate_shapes(&skeleton::shapes(meta, text)?, provider))
}

/// [`repair_outputs`] with the untouched messages copied back as they were.
pub fn repair_values(values: &[Value], opts: &RepairOptions) -> Result<(Vec<Value>, RepairReport)> {
    let (out, report) = repair_outputs(values, opts)?;
    let values = out
        .into_iter()
        .map(|o| match o {
            Output::Original(s) => values.get(s).cloned().unwrap_or(Value::Null),
            Output::New(v) => v,
        })
        .collect();
    Ok((values, report))
}

#[cfg(test)]
mod responses_tests;
#[cfg(test)]
mod tests;
