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

use super::shape::{Shape, ToolContent};
use super::validate::{block_owner, turn_leaders, Provider};
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
        let name = if name.is_empty() { "unknown" } else { name };
        match self {
            Reason::Missing => format!("Tool call {name} with id {id} did not complete - no result was recorded."),
            Reason::Interrupted => {
                format!("Tool call {name} with id {id} was interrupted before it completed - no result was recorded.")
            }
            Reason::Rejected => format!("Tool call {name} with id {id} was rejected by a reviewer and did not run."),
            Reason::InvalidArgs => {
                format!("Tool call {name} with id {id} could not be executed - arguments were malformed or truncated.")
            }
        }
    }
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
    /// A synthetic error result for call `id` of tool `name`, made by the message at `after`.
    Synthetic {
        /// The call id.
        id: String,
        /// The tool's name.
        name: String,
        /// Why it has no result.
        reason: Reason,
        /// The canonical message (assistant) that made the call.
        after: usize,
    },
}

/// Computes the repaired order of messages and the report.
pub fn plan(shapes: &[Shape], opts: &RepairOptions) -> (Vec<Item>, Vec<Fix>) {
    let provider = opts.provider.unwrap_or(Provider::Openai);
    let mut report = Vec::new();
    let fix = |kind, action, index, id: Option<&str>| Fix { kind, action, index, tool_call_id: id.map(str::to_string) };

    // Which result answers which call occurrence: real results first, then placeholders, each in
    // input order, and each result at most once. Calls are numbered by position (`base[a] + k`
    // for call `k` of message `a`), so what is known per call or per message is a vector.
    let n_calls: usize = shapes.iter().map(|s| s.calls.len()).sum();
    let mut results: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    results.reserve(n_calls);
    for (i, s) in shapes.iter().enumerate().filter(|(_, s)| !s.aside) {
        if let (Role::Tool, Some(id)) = (s.role, s.tool_call_id.as_deref()) {
            results.entry(id).or_default().push(i);
        }
    }
    for list in results.values_mut().filter(|l| l.len() > 1) {
        list.sort_by_key(|&i| (shapes.get(i).is_some_and(|s| s.synthetic), i));
    }
    let mut called: FxHashSet<&str> = FxHashSet::default();
    called.reserve(n_calls);
    called.extend(shapes.iter().flat_map(|s| s.calls.iter().map(|c| c.id.as_str())));
    let mut base = Vec::with_capacity(shapes.len());
    let mut next = 0;
    for s in shapes {
        base.push(next);
        next += s.calls.len();
    }
    let call_index = |a: usize, k: usize| base.get(a).map_or(usize::MAX, |b| b + k);
    let owner = block_owner(shapes);
    let leaders = turn_leaders(shapes);
    let leader = |a: usize| leaders.get(a).copied().unwrap_or(a);
    // The last message of each turn, by the turn's first: its results go after it.
    let mut turn_end: Vec<usize> = (0..shapes.len()).collect();
    for (i, &l) in leaders.iter().enumerate() {
        if let Some(end) = turn_end.get_mut(l) {
            *end = i;
        }
    }
    let mut used = vec![false; shapes.len()];
    let is_used = |used: &[bool], r: usize| used.get(r).copied().unwrap_or(true);
    // Pass 0: each call takes a real result already in its own result block (ids can repeat
    // across turns, as in tau-bench); pass 1: any unused real result; pass 2: a placeholder.
    let assistants: Vec<usize> =
        shapes.iter().enumerate().filter(|(_, s)| s.role == Role::Assistant).map(|(a, _)| a).collect();
    // A call id repeated within one turn (a `function_call` item given twice) is one call: the
    // repeats take no result of their own. (Within one message the decoder refuses repeats.)
    let mut first_in_turn: FxHashSet<(usize, &str)> = FxHashSet::default();
    first_in_turn.reserve(n_calls);
    let mut repeated = vec![false; n_calls];
    for &a in &assistants {
        for (k, c) in shapes.get(a).map(|s| s.calls.as_slice()).unwrap_or_default().iter().enumerate() {
            if !first_in_turn.insert((leader(a), c.id.as_str())) {
                if let Some(r) = repeated.get_mut(call_index(a, k)) {
                    *r = true;
                }
            }
        }
    }
    let is_repeated = |a: usize, k: usize| repeated.get(call_index(a, k)).copied().unwrap_or(false);
    let mut picked: Vec<Option<usize>> = vec![None; n_calls];
    let picked_of = |picked: &[Option<usize>], a: usize, k: usize| picked.get(call_index(a, k)).copied().flatten();
    for pass in 0..3 {
        for &a in &assistants {
            let Some(s) = shapes.get(a) else { continue };
            for (k, c) in s.calls.iter().enumerate() {
                if picked_of(&picked, a, k).is_some() || is_repeated(a, k) {
                    continue;
                }
                let candidates = results.get(c.id.as_str()).map(Vec::as_slice).unwrap_or_default();
                let real = |r: usize| shapes.get(r).is_some_and(|t| !t.synthetic);
                let pick = candidates.iter().copied().find(|&r| {
                    !is_used(&used, r)
                        && match pass {
                            0 => real(r) && owner.get(r) == Some(&Some(leader(a))),
                            1 => real(r),
                            _ => true,
                        }
                });
                if let Some(r) = pick {
                    if let Some(u) = used.get_mut(r) {
                        *u = true;
                    }
                    if let Some(p) = picked.get_mut(call_index(a, k)) {
                        *p = Some(r);
                    }
                }
            }
        }
    }
    // Per turn (by its first message): the placeholders, in call order, then the real results.
    let mut synthetic_of: Vec<Vec<Item>> = vec![Vec::new(); shapes.len()];
    let mut real_of: Vec<Vec<usize>> = vec![Vec::new(); shapes.len()];
    for &a in &assistants {
        let Some(s) = shapes.get(a) else { continue };
        let (Some(synthetic), Some(real)) = (synthetic_of.get_mut(leader(a)), real_of.get_mut(leader(a))) else {
            continue;
        };
        for (k, c) in s.calls.iter().enumerate() {
            if is_repeated(a, k) {
                continue;
            }
            match picked_of(&picked, a, k) {
                Some(r) => {
                    real.push(r);
                    if owner.get(r) != Some(&Some(leader(a))) {
                        report.push(fix(
                            FixKind::MisplacedResult,
                            Action::Moved,
                            shapes.get(r).map_or(0, |t| t.source),
                            Some(&c.id),
                        ));
                    }
                }
                None => {
                    let reason = opts.reasons.get(&c.id).copied().unwrap_or(if c.invalid {
                        Reason::InvalidArgs
                    } else {
                        Reason::Missing
                    });
                    let kind = match reason {
                        Reason::Missing => FixKind::MissingResult,
                        Reason::InvalidArgs => FixKind::InvalidArgs,
                        Reason::Interrupted => FixKind::Interrupted,
                        Reason::Rejected => FixKind::Rejected,
                    };
                    report.push(fix(kind, Action::Inserted, s.source, Some(&c.id)));
                    synthetic.push(Item::Synthetic { id: c.id.clone(), name: c.name.clone(), reason, after: a });
                }
            }
        }
    }
    let mut answers: Vec<Vec<Item>> = vec![Vec::new(); shapes.len()];
    for (l, (synthetic, mut real)) in synthetic_of.into_iter().zip(real_of).enumerate() {
        real.sort_unstable();
        if let Some(slot) = turn_end.get(l).and_then(|&end| answers.get_mut(end)) {
            slot.extend(synthetic);
            slot.extend(real.into_iter().map(|r| Item::Keep(r, tool_fix(shapes.get(r), provider))));
        }
    }

    let mut items = Vec::with_capacity(shapes.len());
    for (i, s) in shapes.iter().enumerate() {
        match s.role {
            Role::Tool if is_used(&used, i) => {} // placed after its call
            // An approval response stays where it is (it answers no call), after the turn it
            // answers; before any assistant turn it answers nothing and goes, as an orphan does.
            Role::Tool if s.aside => {
                if shapes.get(..i).unwrap_or_default().iter().any(|p| p.role == Role::Assistant) {
                    items.push(Item::Keep(i, ContentFix { drop_empty_text: false, tool_content_to_text: false }))
                } else {
                    report.push(fix(FixKind::OrphanResult, Action::Dropped, s.source, s.tool_call_id.as_deref()));
                }
            }
            Role::Tool => {
                let id = s.tool_call_id.as_deref();
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
                let content_fix = ContentFix { drop_empty_text: s.empty_text_part, tool_content_to_text: false };
                // An empty assistant message goes for every provider; an empty user message
                // where the provider refuses one (Anthropic, Gemini: EMPTY_MESSAGE), so the
                // output always validates.
                let refused_empty = s.role == Role::Assistant
                    || (s.role == Role::User && matches!(provider, Provider::Anthropic | Provider::Gemini));
                if refused_empty && s.empty_for(provider) && s.calls.is_empty() {
                    report.push(fix(FixKind::EmptyMessage, Action::Dropped, s.source, None));
                } else {
                    if s.empty_text_part {
                        report.push(fix(FixKind::EmptyText, Action::Dropped, s.source, None));
                    }
                    items.push(Item::Keep(i, content_fix));
                }
                // The turn's results, even when its last message was dropped.
                if let Some(slot) = answers.get_mut(i) {
                    items.append(slot);
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
                    s.and_then(|s| s.tool_call_id.as_deref()),
                ));
            }
        }
    }
    report.sort_by_key(|f| f.index);
    (items, report)
}

fn tool_fix(s: Option<&Shape>, provider: Provider) -> ContentFix {
    let needs = s.is_some_and(|s| provider.text_only_results_of(s.format) && s.tool_content != ToolContent::Text);
    ContentFix { drop_empty_text: false, tool_content_to_text: needs }
}
