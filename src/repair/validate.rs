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

use super::shape::{Shape, ToolContent};
use crate::error::{Error, ErrorCode, Result};
use crate::message::formats::{same_turn, Format};
use crate::message::Role;
use rustc_hash::{FxHashMap, FxHashSet};
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

/// For each message, the first assistant message of its turn: itself, or for an assistant item
/// that continues a run of assistant items ([`same_turn`]), the first of the run. Other messages
/// are their own.
pub(crate) fn turn_leaders(shapes: &[Shape]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(shapes.len());
    for (i, s) in shapes.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|p| shapes.get(p));
        let leader = match prev {
            Some(p) if same_turn((p.role, Some(p.format)), (s.role, Some(s.format))) => {
                out.last().copied().unwrap_or(i)
            }
            _ => i,
        };
        out.push(leader);
    }
    out
}

/// For each tool result, the turn whose result block it sits in, named by the turn's first
/// assistant message ([`turn_leaders`]): the nearest preceding assistant turn with only tool
/// results between them.
pub(crate) fn block_owner(shapes: &[Shape]) -> Vec<Option<usize>> {
    let leaders = turn_leaders(shapes);
    let mut owner = None;
    shapes
        .iter()
        .enumerate()
        .map(|(i, s)| match s.role {
            Role::Tool => owner,
            Role::Assistant => {
                owner = Some(leaders.get(i).copied().unwrap_or(i));
                None
            }
            _ => {
                owner = None;
                None
            }
        })
        .collect()
}

/// Lists every violation of `provider`'s rules in message order, by input index.
pub fn validate(shapes: &[Shape], provider: Provider) -> Vec<Violation> {
    // An AI SDK approval response is not part of what a provider is sent: it answers nothing and
    // breaks nothing (each shape keeps its input index).
    let kept: Vec<Shape>;
    let shapes = if shapes.iter().any(|s| s.aside) {
        kept = shapes.iter().filter(|s| !s.aside).cloned().collect();
        &kept[..]
    } else {
        shapes
    };
    let mut out = Vec::new();
    let n_calls: usize = shapes.iter().map(|s| s.calls.len()).sum();
    let mut calls_by_id: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    calls_by_id.reserve(n_calls);
    let mut results_by_id: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    results_by_id.reserve(n_calls);
    for (i, s) in shapes.iter().enumerate() {
        for c in &s.calls {
            calls_by_id.entry(c.id.as_str()).or_default().push(i);
        }
        if let (Role::Tool, Some(id)) = (s.role, s.tool_call_id.as_deref()) {
            results_by_id.entry(id).or_default().push(i);
        }
    }
    let owner = block_owner(shapes);
    let leaders = turn_leaders(shapes);
    // The calls of each turn, by the turn's first message.
    let mut turn_calls: FxHashSet<(usize, &str)> = FxHashSet::default();
    turn_calls.reserve(n_calls);
    let mut turn_size = vec![0usize; shapes.len()];
    for (i, s) in shapes.iter().enumerate() {
        let leader = leaders.get(i).copied().unwrap_or(i);
        // A call id repeated within a turn is one call.
        let new = s.calls.iter().filter(|c| turn_calls.insert((leader, c.id.as_str()))).count();
        if let Some(n) = turn_size.get_mut(leader) {
            *n += new;
        }
    }
    // How many results sit in each assistant message's result block (counted once: linear).
    let mut block_size = vec![0usize; shapes.len()];
    for o in owner.iter().flatten() {
        if let Some(n) = block_size.get_mut(*o) {
            *n += 1;
        }
    }
    // A result is in place when it sits in the result block of an assistant turn that made its call.
    let in_place = |t: usize, id: &str| owner.get(t).copied().flatten().is_some_and(|o| turn_calls.contains(&(o, id)));
    let in_place_count = |id: &str| results_by_id.get(id).map_or(0, |r| r.iter().filter(|&&t| in_place(t, id)).count());
    let last = shapes.len().saturating_sub(1);
    for (i, s) in shapes.iter().enumerate() {
        match s.role {
            Role::Assistant => {
                let leader = leaders.get(i).copied().unwrap_or(i);
                for c in &s.calls {
                    let results = results_by_id.get(c.id.as_str()).map(Vec::as_slice).unwrap_or_default();
                    let answered_here = results.iter().any(|&t| owner.get(t) == Some(&Some(leader)));
                    // Unanswered here, and no stray result that could be moved here.
                    if !answered_here && results.len() == in_place_count(&c.id) {
                        out.push(v(
                            Rule::MissingToolResult,
                            s.source,
                            Some(&c.id),
                            format!("tool call {} ({}) has no result", c.id, c.name),
                        ));
                    }
                }
                // Counted once per turn, at its first message.
                let results_in_block = block_size.get(i).copied().unwrap_or(0);
                let calls = if leader == i { turn_size.get(i).copied().unwrap_or(0) } else { 0 };
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
                let id = s.tool_call_id.as_deref().unwrap_or_default();
                let Some(call_sites) = calls_by_id.get(id) else {
                    out.push(v(
                        Rule::OrphanToolResult,
                        s.source,
                        Some(id),
                        format!("tool result for {id} answers no tool call"),
                    ));
                    continue;
                };
                let results = results_by_id.get(id).map(Vec::as_slice).unwrap_or_default();
                let my_owner = owner.get(i).copied().flatten();
                if in_place(i, id) {
                    if results.iter().any(|&t| t < i && owner.get(t).copied().flatten() == my_owner) {
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
                } else if in_place_count(id) >= call_sites.len() || results.iter().any(|&t| t < i && !in_place(t, id)) {
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
            let empty_message = s.empty_for(provider) && s.calls.is_empty();
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
