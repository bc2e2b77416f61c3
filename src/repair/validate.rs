//! Provider validation: every rule a message history breaks, with a stable rule id (DESIGN §5).
//!
//! The rules follow what the providers refuse:
//! - OpenAI Chat: an assistant message with `tool_calls` must be followed directly by one `tool`
//!   message per call ("An assistant message with 'tool_calls' must be followed by tool messages
//!   responding to each 'tool_call_id'"); a tool message must answer a preceding call; tool content
//!   is a string or a list of text parts.
//! - Anthropic: every `tool_use` needs a `tool_result` in the very next message, results before
//!   any other block ("tool_use ids were found without tool_result blocks immediately after");
//!   text blocks must be non-empty; only the final assistant message may be empty.
//! - Gemini: the turn after a function-call turn carries as many function responses as there
//!   were calls; parts must not be empty text; responses are objects (text only here).
//! - OpenAI Responses / Agents SDK items are checked by OpenAI's rules, where a run of assistant
//!   items is one assistant message (its reasoning, text and each `function_call` are items of
//!   their own; [`same_turn`]): every `function_call` needs a `function_call_output` after the
//!   run, and an output needs its call. Results there may carry images (`input_image` parts).

use super::shape::{Shapes, ToolContent};
use super::turns::turn_spans;
use crate::error::{Error, ErrorCode, Result};
use crate::message::formats::{same_turn, Format};
use crate::message::Role;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// A provider whose request rules validation checks. In JS: `"openai" | "anthropic" | "gemini"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// OpenAI Chat Completions.
    Openai,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini.
    Gemini,
}

impl Provider {
    /// Parses `"openai" | "anthropic" | "gemini"`; `INVALID_OPTION` otherwise.
    pub fn parse(name: &str) -> Result<Provider> {
        match name {
            "openai" => Ok(Provider::Openai),
            "anthropic" => Ok(Provider::Anthropic),
            "gemini" => Ok(Provider::Gemini),
            other => Err(Error::new(
                ErrorCode::InvalidOption,
                format!("unknown provider {other:?}; use openai, anthropic or gemini"),
            )),
        }
    }

    /// The message format this provider takes.
    pub fn format(self) -> Format {
        match self {
            Provider::Openai => Format::Openai,
            Provider::Anthropic => Format::Anthropic,
            Provider::Gemini => Format::Gemini,
        }
    }

    /// Whether tool results must be text (OpenAI: string or text parts; Gemini: a JSON object
    /// we build from text).
    pub fn text_only_tool_results(self) -> bool {
        matches!(self, Provider::Openai | Provider::Gemini)
    }

    /// Whether tool results of messages in `format` must be text for this provider: as
    /// [`Provider::text_only_tool_results`], except OpenAI's Responses items (Responses, OpenAI
    /// Agents), whose results take `input_image` / `input_file` parts.
    pub fn text_only_results_of(self, format: Format) -> bool {
        self.text_only_tool_results() && !(self == Provider::Openai && format.is_items())
    }

    /// Whether this provider's requests are written in `format`: OpenAI's in OpenAI Chat and in
    /// the Responses items (Responses, OpenAI Agents); the others' in their own format.
    pub fn takes(self, format: Format) -> bool {
        format == self.format() || (self == Provider::Openai && format.is_items())
    }
}

/// A stable rule id. In JS, the SCREAMING_SNAKE_CASE string (`"MISSING_TOOL_RESULT"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Rule {
    /// A tool call has no result anywhere.
    MissingToolResult,
    /// A tool call at the end of the history waits for its human approval, or was approved and
    /// has not run yet: no provider can be sent it until it has a result, and a repair leaves it
    /// alone (it is not dangling: the run is paused on it).
    ApprovalPending,
    /// A result exists but not where the provider wants it (right after its call's message,
    /// before any other message).
    MisplacedToolResult,
    /// A result whose id matches no call.
    OrphanToolResult,
    /// More than one result for one call.
    DuplicateToolResult,
    /// Anthropic: a result after a text block in the same message.
    ResultAfterText,
    /// Anthropic / Gemini: the results of one turn are split over several messages.
    ResultsSplit,
    /// Gemini: the number of function responses differs from the number of calls of the turn.
    CallResponseCountMismatch,
    /// Anthropic / Gemini: an empty text block.
    EmptyTextBlock,
    /// Anthropic / Gemini: a message with no content, other than a final assistant message.
    EmptyMessage,
    /// OpenAI / Gemini: tool-result content that is neither a string nor text parts.
    ToolContentNotText,
    /// OpenAI / Gemini: media in a tool result, which the provider cannot take there.
    NonTextToolResult,
}

/// One broken rule. In JS: `{rule, index, toolCallId?, message}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// Which rule.
    pub rule: Rule,
    /// Index of the offending message in the caller's input.
    pub index: usize,
    /// The tool call concerned, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// What is wrong, for a person.
    pub message: String,
}

fn v(rule: Rule, index: usize, id: Option<&str>, message: String) -> Violation {
    Violation { rule, index, tool_call_id: id.map(str::to_string), message }
}

/// Lists every violation of `provider`'s rules in message order, by input index.
///
/// Indexed by position: each distinct id is numbered once (one hash per call and per result),
/// and what is known per id, per call or per message is a vector; a turn and its result block
/// are ranges (`turns::turn_spans`).
pub fn validate(shapes: &Shapes, provider: Provider) -> Vec<Violation> {
    // An AI SDK approval response is not part of what a provider is sent: it answers nothing and
    // breaks nothing (each shape keeps its input index).
    let kept: Shapes;
    let shapes = if shapes.iter().any(|s| s.aside) {
        kept = shapes.filtered(|s| !s.aside);
        &kept
    } else {
        shapes
    };
    let n = shapes.len();
    // Ids numbered in order of appearance; a result without an id looks up "" (as a call could
    // have that id) but is no result of "".
    let mut number: FxHashMap<&str, usize> = FxHashMap::default();
    number.reserve(shapes.all_calls().len());
    let mut call_key: Vec<usize> = vec![usize::MAX; shapes.all_calls().len()];
    let mut key: Vec<Option<usize>> = vec![None; n];
    for (i, s) in shapes.iter().enumerate() {
        for (k, c) in shapes.calls(s).iter().enumerate() {
            let next = number.len();
            let id = *number.entry(c.id).or_insert(next);
            if let Some(slot) = call_key.get_mut(s.calls_at + k) {
                *slot = id;
            }
        }
        if let (Role::Tool, Some(id)) = (s.role, s.tool_call_id) {
            let next = number.len();
            if let Some(slot) = key.get_mut(i) {
                *slot = Some(*number.entry(id).or_insert(next));
            }
        }
    }
    let n_ids = number.len();
    let key_of_result = |i: usize| key.get(i).copied().flatten();
    let calls_of = |i: usize| {
        let s = shapes.get(i);
        let at = s.map_or(0, |s| s.calls_at);
        (at..at + s.map_or(0, |s| s.n_calls)).map(|ci| call_key.get(ci).copied().unwrap_or(usize::MAX))
    };
    // The id a tool message is looked up by: its own, or "" when it has none.
    let empty_key = number.get("").copied();
    let lookup_key = |i: usize| match shapes.get(i).and_then(|s| s.tool_call_id) {
        Some(_) => key_of_result(i),
        None => empty_key,
    };
    let mut call_count = vec![0usize; n_ids];
    let mut result_count = vec![0usize; n_ids];
    for i in 0..n {
        for k in calls_of(i) {
            if let Some(c) = call_count.get_mut(k) {
                *c += 1;
            }
        }
        if let Some(c) = key_of_result(i).and_then(|k| result_count.get_mut(k)) {
            *c += 1;
        }
    }
    // Per turn (by its first message): its distinct calls, its block's size, which of its calls
    // are answered in its block. Per result: whether it is in place (in the block of a turn that
    // made its call) and whether an earlier result of its id sits in the same block.
    let spans = turn_spans(shapes);
    let mut owner: Vec<Option<usize>> = vec![None; n];
    let mut turn_size = vec![0usize; n];
    let mut block_size = vec![0usize; n];
    let mut answered_here = vec![false; shapes.all_calls().len()];
    let mut in_place = vec![false; n];
    let mut dup_in_block = vec![false; n];
    let mut in_place_count = vec![0usize; n_ids];
    let mut turn_mark = vec![usize::MAX; n_ids];
    let mut block_mark = vec![usize::MAX; n_ids];
    for span in &spans {
        let l = span.turn.start;
        let mut distinct = 0;
        for a in span.turn.clone() {
            for k in calls_of(a) {
                if let Some(m) = turn_mark.get_mut(k).filter(|m| **m != l) {
                    *m = l;
                    distinct += 1;
                }
            }
        }
        if let Some(t) = turn_size.get_mut(l) {
            *t = distinct;
        }
        if let Some(b) = block_size.get_mut(l) {
            *b = span.block.len();
        }
        for t in span.block.clone() {
            if let Some(o) = owner.get_mut(t) {
                *o = Some(l);
            }
            let placed = lookup_key(t).is_some_and(|k| turn_mark.get(k) == Some(&l));
            if let Some(p) = in_place.get_mut(t) {
                *p = placed;
            }
            if let Some(k) = key_of_result(t) {
                if placed {
                    if let Some(c) = in_place_count.get_mut(k) {
                        *c += 1;
                    }
                }
                match block_mark.get_mut(k) {
                    Some(m) if *m == l => {
                        if let Some(d) = dup_in_block.get_mut(t) {
                            *d = true;
                        }
                    }
                    Some(m) => *m = l,
                    None => {}
                }
            }
        }
        for a in span.turn.clone() {
            let at = shapes.get(a).map_or(0, |s| s.calls_at);
            for (j, k) in calls_of(a).enumerate() {
                if let Some(h) = answered_here.get_mut(at + j) {
                    *h = block_mark.get(k) == Some(&l);
                }
            }
        }
    }
    let mut first_stray = vec![usize::MAX; n_ids];
    for (t, placed) in in_place.iter().enumerate() {
        if let (false, Some(k)) = (*placed, key_of_result(t)) {
            if let Some(f) = first_stray.get_mut(k).filter(|f| **f == usize::MAX) {
                *f = t;
            }
        }
    }
    let count = |v: &[usize], k: usize| v.get(k).copied().unwrap_or(0);
    let in_place_of = |i: usize| in_place.get(i).copied().unwrap_or(false);

    let last_turn = shapes.last_turn();
    let mut out = Vec::new();
    let last = n.saturating_sub(1);
    let mut leader = 0;
    for (i, s) in shapes.iter().enumerate() {
        match s.role {
            Role::Assistant => {
                let prev = i.checked_sub(1).and_then(|p| shapes.get(p));
                if !prev.is_some_and(|p| same_turn((p.role, Some(p.format)), (s.role, Some(s.format)))) {
                    leader = i;
                }
                // Calls of this message that wait for their approval: no response is owed yet.
                let mut paused = 0;
                for (j, c) in shapes.calls(s).iter().enumerate() {
                    let k = call_key.get(s.calls_at + j).copied().unwrap_or(usize::MAX);
                    let here = answered_here.get(s.calls_at + j).copied().unwrap_or(false);
                    // Unanswered here, and no stray result that could be moved here.
                    if !here && count(&result_count, k) == count(&in_place_count, k) {
                        let waiting = last_turn.as_ref().is_some_and(|t| t.contains(&i));
                        let (rule, message) = super::approval::unanswered(c, waiting);
                        paused += usize::from(rule == Rule::ApprovalPending);
                        out.push(v(rule, s.source, Some(c.id), message));
                    }
                }
                // Counted once per turn, at its first message (a Gemini turn is one message).
                let results_in_block = count(&block_size, i);
                let calls = if leader == i { count(&turn_size, i).saturating_sub(paused) } else { 0 };
                if provider == Provider::Gemini && calls > 0 && results_in_block != calls {
                    out.push(v(
                        Rule::CallResponseCountMismatch,
                        s.source,
                        None,
                        format!("{calls} function calls but {results_in_block} function responses in the next turn"),
                    ));
                }
            }
            Role::Tool => {
                let id = s.tool_call_id.unwrap_or_default();
                let Some(k) = lookup_key(i).filter(|&k| count(&call_count, k) > 0) else {
                    out.push(v(
                        Rule::OrphanToolResult,
                        s.source,
                        Some(id),
                        format!("tool result for {id} answers no tool call"),
                    ));
                    continue;
                };
                if in_place_of(i) {
                    // An earlier result of this id in the same block (one without an id has no
                    // earlier result of "" there unless one carries "").
                    let earlier = match s.tool_call_id {
                        Some(_) => dup_in_block.get(i).copied().unwrap_or(false),
                        None => span_has_earlier(shapes, &owner, i, k, &key),
                    };
                    if earlier {
                        out.push(v(
                            Rule::DuplicateToolResult,
                            s.source,
                            Some(id),
                            format!("tool call {id} already has a result"),
                        ));
                        continue;
                    }
                    let prev = i.checked_sub(1).and_then(|p| shapes.get(p));
                    if let (Provider::Anthropic, Some(p)) = (provider, prev) {
                        if p.role == Role::Tool
                            && p.source != s.source
                            && s.format == Format::Anthropic
                            && p.format == Format::Anthropic
                        {
                            out.push(v(
                                Rule::ResultsSplit,
                                s.source,
                                Some(id),
                                format!("the result for {id} is in another message than the other results of its turn"),
                            ));
                        }
                    }
                } else if count(&in_place_count, k) >= count(&call_count, k)
                    || first_stray.get(k).is_some_and(|&f| f < i)
                {
                    out.push(v(
                        Rule::DuplicateToolResult,
                        s.source,
                        Some(id),
                        format!("tool call {id} already has a result"),
                    ));
                    continue;
                } else {
                    let prev = i.checked_sub(1).and_then(|p| shapes.get(p));
                    let after_text = prev.is_some_and(|p| p.role == Role::User && p.source == s.source);
                    if provider == Provider::Anthropic && after_text {
                        out.push(v(
                            Rule::ResultAfterText,
                            s.source,
                            Some(id),
                            format!("the result for {id} comes after text in the same message; results go first"),
                        ));
                    } else {
                        out.push(v(
                            Rule::MisplacedToolResult,
                            s.source,
                            Some(id),
                            format!("the result for {id} is not directly after the message that made the call"),
                        ));
                    }
                }
                if provider.text_only_results_of(s.format) {
                    match s.tool_content {
                        ToolContent::EmptyParts | ToolContent::Json => out.push(v(
                            Rule::ToolContentNotText,
                            s.source,
                            Some(id),
                            format!("the result for {id} is not text"),
                        )),
                        ToolContent::Media => out.push(v(
                            Rule::NonTextToolResult,
                            s.source,
                            Some(id),
                            format!("the result for {id} carries media, which this provider takes only as text"),
                        )),
                        ToolContent::Text | ToolContent::TextParts => {}
                    }
                }
            }
            Role::User | Role::System => {}
        }
        if matches!(provider, Provider::Anthropic | Provider::Gemini) && s.role != Role::Tool {
            let empty_message = s.empty_for(provider) && s.n_calls == 0;
            if s.empty_text_part && !empty_message {
                out.push(v(Rule::EmptyTextBlock, s.source, None, "an empty text block".to_string()));
            }
            let final_assistant = i == last && s.role == Role::Assistant;
            if empty_message && !final_assistant && s.role != Role::System {
                out.push(v(Rule::EmptyMessage, s.source, None, "a message with no content".to_string()));
            }
        }
    }
    out
}

/// Whether a result with key `k` sits before `i` in `i`'s block (for a result without an id,
/// looked up by "": rare, so scanned).
fn span_has_earlier(shapes: &Shapes, owner: &[Option<usize>], i: usize, k: usize, key: &[Option<usize>]) -> bool {
    let mine = owner.get(i).copied().flatten();
    (0..i)
        .rev()
        .take_while(|&t| shapes.get(t).is_some_and(|s| s.role == Role::Tool))
        .any(|t| owner.get(t).copied().flatten() == mine && key.get(t).copied().flatten() == Some(k))
}
