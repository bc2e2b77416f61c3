//! Dangling tool-call repair (DESIGN §5), computed as a plan over [`Shape`]s.
//!
//! Semantics:
//! - The WHOLE history is scanned, not only the last assistant message.
//! - A call without a result gets a synthetic tool result with status `error`, placed right after
//!   its assistant message and before the real results there (deepagents `PatchToolCalls` places
//!   it the same way). Its text says why: missing, interrupted, rejected, or invalid arguments.
//!   A run of assistant items (Responses, OpenAI Agents: one item per call) is one assistant
//!   message here: its results go after the whole run, in their order.
//! - A result that exists but sits elsewhere is moved next to its call, never duplicated.
//! - Several results for one call: the real one is kept over a placeholder, then the first.
//! - Orphan results (no call) are dropped, or kept in place with `keep_orphans`.
//! - Empty text parts are dropped; an assistant message left with nothing is dropped.
//! - For text-only providers, tool content becomes a string (`[]` → `"[]"`, text parts joined,
//!   JSON as its text, media replaced by a note).
//! - Idempotent; a real result is never dropped unless it duplicates another real result.

use super::approval::{approval_answer, OnPendingApproval};
use super::shape::{Shape, Shapes, ToolContent};
use super::turns::{turn_spans, TurnSpan};
use super::validate::Provider;
use crate::message::Role;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// Why a call got a synthetic result. In JS: `"missing" | "interrupted" | "rejected" | "invalid_args"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// No result was recorded (the default).
    Missing,
    /// The run was interrupted before the tool finished.
    Interrupted,
    /// A reviewer rejected the call, so it never ran.
    Rejected,
    /// The arguments did not parse, so it could not run.
    InvalidArgs,
}

impl Reason {
    /// The reason's name as in options and templates (`"invalid_args"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Missing => "missing",
            Reason::Interrupted => "interrupted",
            Reason::Rejected => "rejected",
            Reason::InvalidArgs => "invalid_args",
        }
    }

    /// The placeholder text for a call. Follows deepagents' template (`Tool call {name} with id
    /// {id} …`) so placeholders written by either are recognised; never claims the user cancelled.
    pub fn text(self, name: &str, id: &str) -> String {
        fill_template(self.template(), or_unknown(name), id, self)
    }

    /// The template of [`Reason::text`].
    fn template(self) -> &'static str {
        match self {
            Reason::Missing => "Tool call {name} with id {id} did not complete - no result was recorded.",
            Reason::Interrupted => {
                "Tool call {name} with id {id} was interrupted before it completed - no result was recorded."
            }
            Reason::Rejected => "Tool call {name} with id {id} was rejected by a reviewer and did not run.",
            Reason::InvalidArgs => {
                "Tool call {name} with id {id} could not be executed - arguments were malformed or truncated."
            }
        }
    }
}

/// The name a default placeholder gives a call without one.
pub(super) fn or_unknown(name: &str) -> &str {
    if name.is_empty() {
        "unknown"
    } else {
        name
    }
}

/// `template` with each `{name}`, `{id}` and `{reason}` replaced by `name`, `id` and the reason's
/// name, in one pass over the template: a name or id that holds one of them is written as it is,
/// never substituted again (replacing field after field let a tool named `{id}` print its id, and
/// a name of many `{id}`s multiply the id into the text).
pub fn fill_template(template: &str, name: &str, id: &str, reason: Reason) -> String {
    let mut out = String::with_capacity(filled_len(template, name, id, reason));
    fill(template, name, id, reason, |piece| out.push_str(piece));
    out
}

/// The length in bytes of [`fill_template`]'s text, without making it.
pub fn filled_len(template: &str, name: &str, id: &str, reason: Reason) -> usize {
    let mut n = 0usize;
    fill(template, name, id, reason, |piece| n = n.saturating_add(piece.len()));
    n
}

/// Hands [`fill_template`]'s text to `put` a piece at a time.
fn fill(template: &str, name: &str, id: &str, reason: Reason, mut put: impl FnMut(&str)) {
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        let (before, from) = rest.split_at(at);
        put(before);
        let (value, taken) = [("{name}", name), ("{id}", id), ("{reason}", reason.as_str())]
            .into_iter()
            .find(|(field, _)| from.starts_with(field))
            .map_or(("{", 1), |(field, value)| (value, field.len()));
        put(value);
        rest = from.get(taken..).unwrap_or_default();
    }
    put(rest);
}

/// The longest placeholder template `RepairOptions.text` may be, in characters.
pub const MAX_TEXT_CHARS: usize = 1024;
/// The most `{name}` / `{id}` / `{reason}` substitutions one template may ask for.
pub const MAX_TEXT_FIELDS: usize = 4;

fn bounded_text<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    let text = Option::<String>::deserialize(d)?;
    if let Some(t) = &text {
        let fields = ["{name}", "{id}", "{reason}"].iter().map(|f| t.matches(f).count()).sum::<usize>();
        if t.chars().count() > MAX_TEXT_CHARS || fields > MAX_TEXT_FIELDS {
            return Err(serde::de::Error::custom(format!(
                "`text` takes at most {MAX_TEXT_CHARS} characters and {MAX_TEXT_FIELDS} substitutions"
            )));
        }
    }
    Ok(text)
}

/// Options of a repair. In JS: `{provider?, reasons?, keepOrphans?, text?}`; a misspelt option
/// is `INVALID_OPTION`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RepairOptions {
    /// The provider the history is meant for; its text-only rules apply to tool results.
    /// Default `"openai"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// Why particular calls have no result, by call id (e.g. `{c1: "rejected"}` after a human
    /// review). Default `"missing"`.
    #[serde(skip_serializing_if = "HashMap::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "Record<string, Reason>", optional))]
    pub reasons: HashMap<String, Reason>,
    /// Keep results that answer no call (default: drop them). They are always reported.
    pub keep_orphans: bool,
    /// Placeholder text template; `{name}`, `{id}` and `{reason}` are substituted. At most
    /// [`MAX_TEXT_CHARS`] characters and [`MAX_TEXT_FIELDS`] substitutions (`INVALID_OPTION`), so
    /// placeholders stay within a few times the ids and names they quote.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "bounded_text")]
    pub text: Option<String>,
    /// What answers a call whose approval was still pending when the conversation moved on (a
    /// new user message after it): `"interrupt"` (default: an error result saying the approval
    /// was not given), `"deny"` (its denial, "Tool call execution denied."), or `"error"` (the
    /// repair is refused, `APPROVAL_PENDING`). A pending call at the end of the history is left
    /// alone whatever this says.
    #[serde(skip_serializing_if = "OnPendingApproval::is_default")]
    pub on_pending_approval: OnPendingApproval,
}

impl RepairOptions {
    /// The text of the placeholder result for `s`: [`RepairOptions::text`] filled in, or the
    /// reason's own text ([`Reason::text`]).
    pub fn placeholder(&self, s: &Synthetic) -> String {
        if let Some(t) = &s.text {
            return t.clone();
        }
        match &self.text {
            Some(t) => fill_template(t, &s.name, &s.id, s.reason),
            None => s.reason.text(&s.name, &s.id),
        }
    }

    /// The length in bytes of [`RepairOptions::placeholder`]'s text, without making it.
    pub fn placeholder_len(&self, s: &Synthetic) -> usize {
        if let Some(t) = &s.text {
            return t.len();
        }
        match &self.text {
            Some(t) => filled_len(t, &s.name, &s.id, s.reason),
            None => filled_len(s.reason.template(), or_unknown(&s.name), &s.id, s.reason),
        }
    }
}

/// What a fix was about. In JS the snake_case string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "snake_case")]
pub enum FixKind {
    /// A call had no result.
    MissingResult,
    /// A call with unparsable arguments had no result.
    InvalidArgs,
    /// A call was interrupted (by option).
    Interrupted,
    /// A call was rejected (by option).
    Rejected,
    /// A result was not next to its call.
    MisplacedResult,
    /// A second result for one call.
    DuplicateResult,
    /// A result that answers no call.
    OrphanResult,
    /// An empty text part.
    EmptyText,
    /// A message left with no content.
    EmptyMessage,
    /// Tool content rewritten as text for a text-only provider.
    ToolContent,
}

/// What was done. In JS the snake_case string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// A synthetic result was inserted.
    Inserted,
    /// A message was moved.
    Moved,
    /// A message or part was dropped.
    Dropped,
    /// A message was kept although it breaks a rule (by option).
    Kept,
    /// A message's content was rewritten.
    Rewritten,
}

/// One fix made by a repair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Fix {
    /// What it was about.
    pub kind: FixKind,
    /// What was done.
    pub action: Action,
    /// Index in the caller's input of the message concerned (for an insert: the assistant message
    /// that made the call).
    pub index: usize,
    /// The tool call concerned, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The approval concerned, when the call has one (its result is its denial, or says the
    /// approval was never given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
}

/// A change to one kept message's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentFix {
    /// Drop empty text parts.
    pub drop_empty_text: bool,
    /// Rewrite tool content as one string.
    pub tool_content_to_text: bool,
}

impl ContentFix {
    /// True when nothing changes.
    pub fn is_none(self) -> bool {
        !self.drop_empty_text && !self.tool_content_to_text
    }
}

/// One message of the repaired history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// The canonical message at this position of the input, maybe with its content fixed.
    Keep(usize, ContentFix),
    /// A synthetic error result (boxed: an item is one per message of a history, a placeholder
    /// rare, and a plan's list of items four times smaller so).
    Synthetic(Box<Synthetic>),
}

/// A synthetic error result for call `id` of tool `name`, made by the message at `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Synthetic {
    /// The call id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Why it has no result.
    pub reason: Reason,
    /// The canonical message (assistant) that made the call.
    pub after: usize,
    /// The result's text when the call's approval decides it (a denial, an approval never
    /// given), in place of the reason's placeholder.
    pub text: Option<String>,
    /// The approval the result concerns, if any.
    pub approval: Option<String>,
}

/// Computes the repaired order of messages and the report.
///
/// Indexed by position: call `k` of shape `a` is `a.calls_at + k`, and what is known per call or
/// per message is a vector. Each call first looks for its result in its own turn's result block
/// (the messages right after the turn); only calls and results left over by that local match —
/// a dangling call, a moved or duplicate result — are matched by id across the history, so a
/// history whose calls are answered in place hashes no id.
pub fn plan(shapes: &Shapes, opts: &RepairOptions) -> (Vec<Item>, Vec<Fix>) {
    let provider = opts.provider.unwrap_or(Provider::Openai);
    let mut report = Vec::new();
    let fix = |kind, action, index, id: Option<&str>| Fix {
        kind,
        action,
        index,
        tool_call_id: id.map(str::to_string),
        approval_id: None,
    };
    let last_turn = shapes.last_turn();
    let n_calls = shapes.all_calls().len();
    // Which result answers which call: results (not approval responses) are taken at most once.
    let mut used = vec![false; shapes.len()];
    let is_used = |used: &[bool], r: usize| used.get(r).copied().unwrap_or(true);
    let takes = |r: usize| shapes.get(r).is_some_and(|t| t.role == Role::Tool && !t.aside && t.tool_call_id.is_some());
    let mut picked: Vec<Option<usize>> = vec![None; n_calls];
    // A call id repeated within one turn (a `function_call` item given twice) is one call: the
    // repeats take no result of their own. (Within one message the decoder refuses repeats.)
    let mut repeated = vec![false; n_calls];
    let spans = turn_spans(shapes);
    // The calls each call still unanswered after pass 0, in order, as (call index, id).
    let mut left_calls: Vec<(usize, &str)> = Vec::new();
    let mut calls: Vec<(usize, &str)> = Vec::new();
    for span in &spans {
        turn_calls(shapes, span, &mut calls);
        mark_repeats(&calls, &mut repeated);
        // Pass 0: each call takes the first real result with its id in its own block (ids can
        // repeat across turns, as in tau-bench).
        let block = span.block.clone();
        let real = |r: &usize| takes(*r) && shapes.get(*r).is_some_and(|t| !t.synthetic);
        calls.retain(|(ci, _)| !flag(&repeated, *ci));
        if calls.len().saturating_mul(block.len()) <= 256 {
            for &(ci, id) in &calls {
                let found = block
                    .clone()
                    .filter(real)
                    .find(|&r| !is_used(&used, r) && result_id(shapes, r).is_some_and(|t| same_id(t, id)));
                take(found, ci, &mut used, &mut picked);
            }
        } else {
            let mut first: FxHashMap<&str, usize> = FxHashMap::default();
            for r in block.clone().filter(real) {
                if let Some(id) = result_id(shapes, r) {
                    first.entry(id).or_insert(r);
                }
            }
            for &(ci, id) in &calls {
                let found = first.get(id).copied().filter(|&r| !is_used(&used, r));
                take(found, ci, &mut used, &mut picked);
            }
        }
        left_calls.extend(calls.iter().filter(|&&(ci, _)| picked.get(ci).is_some_and(Option::is_none)));
    }
    // Then, over what the local match left: each call still unanswered takes the first unused
    // result with its id anywhere, real ones (moved) before placeholders, in input order. (Per id,
    // calls in order take results in that order, so one pass gives what a pass for real results
    // and then one for placeholders would.)
    if !left_calls.is_empty() && (0..shapes.len()).any(|r| takes(r) && !is_used(&used, r)) {
        let mut lists: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        for r in (0..shapes.len()).filter(|&r| takes(r) && !is_used(&used, r)) {
            if let Some(id) = result_id(shapes, r) {
                lists.entry(id).or_default().push(r);
            }
        }
        let synthetic = |r: &usize| shapes.get(*r).is_some_and(|t| t.synthetic);
        let mut left: FxHashMap<&str, std::vec::IntoIter<usize>> = lists
            .into_iter()
            .map(|(id, mut list)| {
                crate::order::sort_stable_by_key(&mut list, |r| u64::from(synthetic(r))); // real ones first, each kind in input order
                (id, list.into_iter())
            })
            .collect();
        for &(ci, id) in &left_calls {
            let found = left.get_mut(id).and_then(Iterator::next);
            take(found, ci, &mut used, &mut picked);
        }
    }
    // Per turn: the placeholders, in call order, then the real results in input order; both go
    // after the turn's last message.
    let mut answers: Vec<Item> = Vec::with_capacity(n_calls);
    let mut answer_at: Vec<(usize, std::ops::Range<usize>)> = Vec::with_capacity(spans.len());
    let mut real: Vec<usize> = Vec::new();
    for span in &spans {
        let from = answers.len();
        real.clear();
        for a in span.turn.clone() {
            let Some(s) = shapes.get(a) else { continue };
            for (k, c) in shapes.calls(s).iter().enumerate() {
                let ci = s.calls_at + k;
                if flag(&repeated, ci) {
                    continue;
                }
                match picked.get(ci).copied().flatten() {
                    Some(r) => {
                        real.push(r);
                        if !span.block.contains(&r) {
                            let index = shapes.get(r).map_or(0, |t| t.source);
                            report.push(fix(FixKind::MisplacedResult, Action::Moved, index, Some(c.id)));
                        }
                    }
                    None => {
                        let default = if c.invalid { Reason::InvalidArgs } else { Reason::Missing };
                        let reason = if opts.reasons.is_empty() {
                            default
                        } else {
                            opts.reasons.get(c.id).copied().unwrap_or(default)
                        };
                        let waiting = last_turn.as_ref().is_some_and(|t| t.contains(&a));
                        let Some((reason, text)) = approval_answer(c, waiting, reason, opts) else {
                            continue; // waits for its approval, or to run once approved: not dangling
                        };
                        let mut f = fix(fix_kind_of(reason), Action::Inserted, s.source, Some(c.id));
                        f.approval_id = c.approval.map(|ap| ap.id.to_string());
                        report.push(f);
                        answers.push(Item::Synthetic(Box::new(Synthetic {
                            id: c.id.to_string(),
                            name: c.name.to_string(),
                            reason,
                            after: a,
                            text,
                            approval: c.approval.map(|ap| ap.id.to_string()),
                        })));
                    }
                }
            }
        }
        real.sort_unstable();
        answers.extend(real.iter().map(|&r| Item::Keep(r, tool_fix(shapes.get(r), provider))));
        if answers.len() > from {
            answer_at.push((span.turn.end - 1, from..answers.len()));
        }
    }

    // Every call id, for telling a duplicate result from an orphan: built only when a result is
    // left over.
    let mut called: Option<FxHashSet<&str>> = None;
    let mut answers = answers.into_iter();
    let mut next_answers = answer_at.into_iter().peekable();
    let mut items = Vec::with_capacity(shapes.len() + n_calls);
    let mut seen_assistant = false;
    for (i, s) in shapes.iter().enumerate() {
        match s.role {
            Role::Tool if is_used(&used, i) => {} // placed after its call
            // An approval response stays where it is (it answers no call), after the turn it
            // answers; before any assistant turn it answers nothing and goes, as an orphan does.
            Role::Tool if s.aside => {
                if seen_assistant {
                    items.push(Item::Keep(i, ContentFix { drop_empty_text: false, tool_content_to_text: false }))
                } else {
                    report.push(fix(FixKind::OrphanResult, Action::Dropped, s.source, s.tool_call_id));
                }
            }
            Role::Tool => {
                let id = s.tool_call_id;
                let called =
                    called.get_or_insert_with(|| shapes.iter().flat_map(|s| shapes.calls(s)).map(|c| c.id).collect());
                if id.is_some_and(|id| called.contains(id)) {
                    report.push(fix(FixKind::DuplicateResult, Action::Dropped, s.source, id));
                } else if opts.keep_orphans {
                    report.push(fix(FixKind::OrphanResult, Action::Kept, s.source, id));
                    items.push(Item::Keep(i, tool_fix(Some(s), provider)));
                } else {
                    report.push(fix(FixKind::OrphanResult, Action::Dropped, s.source, id));
                }
            }
            _ => {
                seen_assistant |= s.role == Role::Assistant;
                let content_fix = ContentFix { drop_empty_text: s.empty_text_part, tool_content_to_text: false };
                // An empty assistant message goes for every provider; an empty user message
                // where the provider refuses one (Anthropic, Gemini: EMPTY_MESSAGE), so the
                // output always validates.
                let refused_empty = s.role == Role::Assistant
                    || (s.role == Role::User && matches!(provider, Provider::Anthropic | Provider::Gemini));
                if refused_empty && s.empty_for(provider) && s.n_calls == 0 {
                    report.push(fix(FixKind::EmptyMessage, Action::Dropped, s.source, None));
                } else {
                    if s.empty_text_part {
                        report.push(fix(FixKind::EmptyText, Action::Dropped, s.source, None));
                    }
                    items.push(Item::Keep(i, content_fix));
                }
                // The turn's results, even when its last message was dropped.
                if let Some((_, range)) = next_answers.next_if(|(end, _)| *end == i) {
                    items.extend(answers.by_ref().take(range.len()));
                }
            }
        }
    }
    for item in &items {
        if let Item::Keep(i, f) = item {
            if f.tool_content_to_text {
                let s = shapes.get(*i);
                report.push(fix(
                    FixKind::ToolContent,
                    Action::Rewritten,
                    s.map_or(0, |s| s.source),
                    s.and_then(|s| s.tool_call_id),
                ));
            }
        }
    }
    crate::order::sort_stable_by_key(&mut report, |f| f.index as u64);
    (items, report)
}

/// The fix kind of a placeholder inserted for `reason`.
pub(crate) fn fix_kind_of(reason: Reason) -> FixKind {
    match reason {
        Reason::Missing => FixKind::MissingResult,
        Reason::InvalidArgs => FixKind::InvalidArgs,
        Reason::Interrupted => FixKind::Interrupted,
        Reason::Rejected => FixKind::Rejected,
    }
}

/// The calls of one turn, in order, as (call index, id), into `out` (cleared first).
fn turn_calls<'a>(shapes: &Shapes<'a>, span: &TurnSpan, out: &mut Vec<(usize, &'a str)>) {
    out.clear();
    for s in shapes.get(span.turn.clone()).unwrap_or_default() {
        out.extend(shapes.calls(s).iter().enumerate().map(|(k, c)| (s.calls_at + k, c.id)));
    }
}

/// Marks the calls of one turn whose id an earlier call of the turn has.
fn mark_repeats(calls: &[(usize, &str)], repeated: &mut [bool]) {
    let mut mark = |ci: usize| {
        if let Some(r) = repeated.get_mut(ci) {
            *r = true;
        }
    };
    if calls.len() <= 16 {
        for (k, &(ci, id)) in calls.iter().enumerate() {
            if calls.iter().take(k).any(|&(_, other)| other == id) {
                mark(ci);
            }
        }
    } else {
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        for &(ci, id) in calls {
            if !seen.insert(id) {
                mark(ci);
            }
        }
    }
}

fn flag(flags: &[bool], i: usize) -> bool {
    flags.get(i).copied().unwrap_or(false)
}

/// `a == b`, at once when both are the same slice (a skeleton's result refers to its call's id).
fn same_id(a: &str, b: &str) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || a == b
}

fn result_id<'a>(shapes: &Shapes<'a>, r: usize) -> Option<&'a str> {
    shapes.get(r).and_then(|t| t.tool_call_id)
}

/// Records that call `ci` takes result `found` (when there is one).
fn take(found: Option<usize>, ci: usize, used: &mut [bool], picked: &mut [Option<usize>]) {
    if let Some(r) = found {
        if let Some(u) = used.get_mut(r) {
            *u = true;
        }
        if let Some(p) = picked.get_mut(ci) {
            *p = Some(r);
        }
    }
}

pub(crate) fn tool_fix(s: Option<&Shape>, provider: Provider) -> ContentFix {
    let needs = s.is_some_and(|s| provider.text_only_results_of(s.format) && s.tool_content != ToolContent::Text);
    ContentFix { drop_empty_text: false, tool_content_to_text: needs }
}
