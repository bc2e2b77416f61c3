//! The context projector (DESIGN §6): the model view of a history under a token budget.
//!
//! Output order: the caller's system rules; a leading system message of the history (always
//! kept); the state sections ([`sections`]); the compaction summary, if any; then the most recent
//! message units that fit. A unit is an assistant message with its tool calls plus all their
//! results, or any other single message: units are kept or dropped whole, so the output never
//! starts with a tool result. The selected messages are repaired (the `repair` module) so the
//! output passes the provider's validator; tool results over `maxToolResultTokens` become a
//! head/tail preview pointing to an artifact instead of being dropped. A final scan refuses any
//! private string value in the encoded output (`PRIVATE_LEAK`). Same input and options, same
//! bytes out. A store's views may be written through a [`ViewCache`] ([`project_into`]), which
//! encodes only what changed since its last view and gives the same bytes.

pub mod agents;
pub mod sections;
mod store_view;
#[cfg(test)]
mod tests;
pub mod tokens;
pub mod view_cache;

use crate::error::{Error, ErrorCode, Result};
use crate::message::formats::{encode_messages, Format};
use crate::message::units::unit_start;
use crate::message::{Content, Message, Role};
use crate::repair::{self, Fix, Provider, RepairOptions};
use crate::state::privacy::check_leaks;
use sections::Section;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Borrow;
use std::rc::Rc;
pub use store_view::{fork_view, record_artifacts, Projector};
use tokens::{TokenCache, TokenCounter};
use view_cache::{Delta, ViewCache};

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// Options of a projection. In JS: `{budget, format?, system?, maxToolResultTokens?,
/// startOnUser?, redact?, sections?, agent?, contextPrefix?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ProjectOptions {
    /// Tokens the whole output may use (system, sections and messages). Default 8,000.
    pub budget: usize,
    /// Output format. Default `"openai"`.
    pub format: Format,
    /// System rules placed first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Tool results above this many tokens become a head/tail preview plus an artifact ref.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tool_result_tokens: Option<usize>,
    /// Drop leading units until the first message is a user message (LangChain `startOn:
    /// "human"`; Anthropic and Gemini require it). Default `true`.
    pub start_on_user: bool,
    /// Field names whose values are replaced by `[redacted]` in the sections.
    pub redact: Vec<String>,
    /// Render the state sections. Default `true`.
    pub sections: bool,
    /// The agent this view is for: assistant turns named after other agents (and their tool
    /// results) are shown as context in user messages, not as this agent's own turns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The first line of those context messages. Default `"For context:"`.
    pub context_prefix: String,
}

impl Default for ProjectOptions {
    fn default() -> Self {
        ProjectOptions {
            budget: 8_000,
            format: Format::Openai,
            system: None,
            max_tool_result_tokens: None,
            start_on_user: true,
            redact: Vec::new(),
            sections: true,
            agent: None,
            context_prefix: agents::CONTEXT_PREFIX.to_string(),
        }
    }
}

/// What the store adds to a projection beyond the messages.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// Rendered state sections, in order.
    pub sections: Vec<Section>,
    /// The compaction in effect, if any.
    pub compaction: Option<crate::state::Compaction>,
    /// Private string values (channel, value) that must not appear in the output.
    pub private: Vec<(String, String)>,
    /// Paths redacted while rendering the sections.
    pub redacted: Vec<String>,
}

/// A section's share of the budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct SectionReport {
    /// Section name.
    pub name: String,
    /// Its tokens.
    pub tokens: usize,
    /// False when it did not fit and was left out.
    pub included: bool,
}

/// One kept message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MessageReport {
    /// Its id (or its position as `#i` when it has none).
    pub id: String,
    /// Its role.
    pub role: Role,
    /// Its tokens as sent.
    pub tokens: usize,
    /// The index in the encoded output of the message that carries it (formats that put a
    /// turn's tool results in one message give several entries the same index; so do the items
    /// of one Responses turn written as one message in another format). In an item format
    /// (Responses, OpenAI Agents) an assistant message with calls is several items: this is the
    /// first of them.
    pub output: usize,
    /// For a tool result, the call it answers (a result the repair inserted has no `id`: this
    /// names it, as the fix in `repairs` does).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub tool_call_id: Option<String>,
}

/// A message left out, with why: `"budget"`, `"compacted"`, `"start_on_user"`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct Dropped {
    /// How many messages.
    pub count: usize,
    /// Why.
    pub reason: String,
}

/// A tool result shortened to a preview.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Truncated {
    /// The tool message's id.
    pub id: String,
    /// The call it answers.
    pub tool_call_id: String,
    /// Tokens of the full result.
    pub tokens: usize,
    /// Tokens of the preview.
    pub preview_tokens: usize,
    /// Where the full text is: `artifact:{message id}`.
    pub artifact: String,
}

/// The projection report: tokens per section and message, what was dropped, truncated,
/// redacted or repaired, and the budget used.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The budget asked for.
    pub budget: usize,
    /// Tokens of the output.
    pub used: usize,
    /// Tokens of the system rules and the leading system message.
    pub system_tokens: usize,
    /// The state sections (each counted alone; `included` ones are sent together).
    pub sections: Vec<SectionReport>,
    /// Tokens of the one "# Current state" message that carries the included sections.
    pub state_tokens: usize,
    /// Tokens of the compaction summary (0 when none).
    pub summary_tokens: usize,
    /// The messages sent, in order (after the prefix).
    pub messages: Vec<MessageReport>,
    /// What was left out and why.
    pub dropped: Vec<Dropped>,
    /// Tool results shortened to previews.
    pub truncated: Vec<Truncated>,
    /// Section values replaced by `[redacted]` (channel or `channel.key`).
    pub redacted: Vec<String>,
    /// Repairs applied to the selected messages (indices into the selection).
    pub repairs: Vec<Fix>,
}

/// A projection: the canonical messages, the same encoded in the requested format, the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// Canonical messages, in order (empty when written through a [`ViewCache`]: the view is
    /// its slots).
    pub messages: Vec<Message>,
    /// The messages in `opts.format` (empty when written through a [`ViewCache`]: they are
    /// there, as `delta` says).
    pub encoded: Vec<Value>,
    /// The messages as slots of the [`ViewCache`] they were written through, if any.
    pub delta: Option<Delta>,
    /// The report.
    pub report: Report,
}

/// The provider whose rules a format's output must pass.
pub fn provider_of(format: Format) -> Provider {
    match format {
        Format::Anthropic => Provider::Anthropic,
        Format::Gemini => Provider::Gemini,
        // OpenAI Chat, LangChain, AI SDK, and the Responses / OpenAI Agents items (OpenAI's API).
        _ => Provider::Openai,
    }
}

/// The text of the state message carrying `sections`.
fn state_text(sections: &[&Section]) -> String {
    format!("# Current state\n\n{}", sections.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join("\n\n"))
}

/// Tokens the preview marker adds, as counted when selecting units.
const PREVIEW_MARKER_TOKENS: usize = 30;

/// A tool result's text cut to a head and a tail of about `keep` tokens together, with a marker
/// naming the artifact that holds the whole text.
fn preview(text: &str, keep_tokens: usize, omitted_tokens: usize, artifact: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let side = keep_tokens * 4 / 2;
    if side == 0 || chars.len() <= 2 * side {
        return None; // head and tail would overlap: nothing to omit
    }
    let head: String = chars.iter().take(side).collect();
    let tail: String = chars.iter().skip(chars.len() - side).collect();
    Some(format!("{head}\n[… {omitted_tokens} tokens omitted; the full result is {artifact} …]\n{tail}"))
}

/// Token counts within one projection: each message is counted once, remembered by id and a
/// cheap shape that changes whenever repair or a preview rewrites it, in the caller's cache
/// ([`TokenCache::in_projection`]: no allocation for a message seen before).
struct Tokens<'a> {
    counter: &'a mut dyn TokenCounter,
    counter_id: &'a str,
    cache: &'a mut TokenCache,
    /// An id's other shapes in this projection (a result and its preview): rare.
    others: Vec<(String, tokens::Shape, usize)>,
}

impl Tokens<'_> {
    /// The tokens of one message as sent.
    fn of(&mut self, m: &Message) -> Result<usize> {
        let Some(id) = &m.id else { return self.cache.tokens(m, self.counter, self.counter_id) };
        let shape = tokens::shape_of(m);
        if let Some(n) = self.cache.in_projection(m, shape, self.counter)? {
            return Ok(n);
        }
        if let Some(&(_, _, n)) = self.others.iter().find(|(i, s, _)| i == id && *s == shape) {
            return Ok(n);
        }
        let n = tokens::count(m, self.counter)?;
        self.others.push((id.clone(), shape, n));
        Ok(n)
    }

    /// The tokens of several messages.
    fn sum<M: Borrow<Message>>(&mut self, messages: &[M]) -> Result<usize> {
        messages.iter().map(|m| self.of(m.borrow())).sum()
    }
}

/// `BUDGET_TOO_SMALL` for a fixed prefix (`what`) of `tokens` over `budget`.
fn too_small(what: &str, tokens: usize, budget: usize) -> Error {
    Error::new(ErrorCode::BudgetTooSmall, format!("{what} take {tokens} tokens; the budget is {budget}"))
        .field("budget")
}

/// The included sections, most important first, in one "# Current state" message within
/// `room`: those that do not fit (counted as sent, in that one message) are reported and left out.
fn state_message(sections: &[Section], room: usize, tok: &mut Tokens, report: &mut Report) -> Result<Option<Message>> {
    let mut included: Vec<&Section> = Vec::new();
    for s in sections {
        let n = tok.of(&Message::new(Role::System, s.text.clone()))?;
        report.sections.push(SectionReport { name: s.name.to_string(), tokens: n, included: false });
        included.push(s);
        let total = tok.of(&Message::new(Role::System, state_text(&included)))?;
        if total <= room {
            report.state_tokens = total;
            if let Some(r) = report.sections.last_mut() {
                r.included = true;
            }
        } else {
            included.pop();
        }
    }
    Ok((!included.is_empty()).then(|| Message::new(Role::System, state_text(&included))))
}

/// The start of the most recent units of `body` that fit `room`, a result that will become a
/// preview counted as its preview (about max + the marker).
fn select_start<M: Borrow<Message>>(
    body: &[M],
    room: usize,
    max_result: Option<usize>,
    tok: &mut Tokens,
) -> Result<usize> {
    let mut start = body.len();
    let mut used = 0usize;
    while start > 0 {
        let s = unit_start(body, start - 1);
        let mut n = 0;
        for m in body.get(s..start).unwrap_or_default() {
            let m: &Message = m.borrow();
            let t = tok.of(m)?;
            n += match (m.role, max_result) {
                (Role::Tool, Some(max)) => t.min(max + PREVIEW_MARKER_TOKENS),
                _ => t,
            };
        }
        if used + n > room {
            break;
        }
        used += n;
        start = s;
    }
    Ok(start)
}

/// Tool results of `window` over `max` tokens replaced by head/tail previews (a preview that
/// saves nothing is not made).
fn previews(window: &mut [Message], max: usize, tok: &mut Tokens) -> Result<Vec<Truncated>> {
    let mut truncated = Vec::new();
    // An AI SDK approval response is no result: it stays as it is (and goes only to the AI SDK).
    for m in window.iter_mut().filter(|m| m.role == Role::Tool && !m.is_aside()) {
        let n = tok.of(m)?;
        if n <= max {
            continue;
        }
        let id = m.id.clone().unwrap_or_default();
        let artifact = format!("artifact:{id}");
        let text = crate::message::formats::util::content_as_string(&m.content);
        let Some(short) = preview(&text, max, n.saturating_sub(max), &artifact) else { continue };
        let original = std::mem::replace(&mut m.content, Content::Text(short));
        let after = tok.of(m)?;
        if after >= n {
            m.content = original;
            continue;
        }
        let tool_call_id = m.tool_call_id.clone().unwrap_or_default();
        truncated.push(Truncated { id, tool_call_id, tokens: n, preview_tokens: after, artifact });
    }
    Ok(truncated)
}

/// A fitted window: the messages, their repairs, their previews, and where in the body it starts.
struct Window {
    messages: Vec<Message>,
    fixes: Vec<Fix>,
    truncated: Vec<Truncated>,
    start: usize,
}

/// The window from `start` on, repaired for the provider and previewed, re-checking the fit:
/// while repair placeholders make it too big, the oldest unit is given up — at least one
/// message, then every message whose unit began before the new start (results answering calls
/// made earlier), so each round drops something and no unit is cut.
fn fit_window<M: Borrow<Message>>(
    body: &[M],
    mut start: usize,
    room: usize,
    opts: &ProjectOptions,
    tok: &mut Tokens,
) -> Result<Window> {
    let repair_opts = RepairOptions { provider: Some(provider_of(opts.format)), ..RepairOptions::default() };
    loop {
        let (mut window, fixes) = repair::repair(body.get(start..).unwrap_or_default(), &repair_opts);
        repair::paused(&window, provider_of(opts.format))?;
        let truncated = match opts.max_tool_result_tokens {
            Some(max) => previews(&mut window, max, tok)?,
            None => Vec::new(),
        };
        if tok.sum(&window)? <= room || start >= body.len() {
            return Ok(Window { messages: window, fixes, truncated, start });
        }
        let mut end = start + 1;
        while end < body.len() && unit_start(body, end) < end {
            end += 1;
        }
        start = end;
    }
}

/// Projects `history` (canonical messages with ids) into the model view. `cache` keeps token
/// counts by message id across calls (`counter_id` names the counter).
///
/// Errors: `BUDGET_TOO_SMALL` when the system rules and the leading system message alone exceed
/// the budget, or when the budget keeps none of a non-empty history after them (a view of the
/// system messages alone is no conversation); `PRIVATE_LEAK` naming the channel whose value appears in the output; a counter's
/// own error. `history` holds the messages or shares them (a store's channel: `Rc<Message>`).
pub fn project<M: Borrow<Message> + Clone + From<Message>>(
    history: &[M],
    opts: &ProjectOptions,
    ctx: &Context,
    counter: &mut dyn TokenCounter,
    counter_id: &str,
    cache: &mut TokenCache,
) -> Result<Projection> {
    project_into(history, opts, ctx, counter, counter_id, cache, None)
}

/// [`project`], its messages written through `view` (a [`ViewCache`] and the epoch its caller
/// last received) when given: only the groups of messages that changed since the cache's last
/// view are encoded, and the projection carries the view as slots ([`Projection::delta`]).
pub fn project_into<M: Borrow<Message> + Clone + From<Message>>(
    history: &[M],
    opts: &ProjectOptions,
    ctx: &Context,
    counter: &mut dyn TokenCounter,
    counter_id: &str,
    cache: &mut TokenCache,
    view: Option<(&mut ViewCache, u32)>,
) -> Result<Projection> {
    let mut report = Report { budget: opts.budget, redacted: ctx.redacted.clone(), ..Report::default() };
    let history = match &opts.agent {
        Some(agent) => agents::as_context(history, agent, &opts.context_prefix),
        None => std::borrow::Cow::Borrowed(history),
    };
    let history = &history[..];
    cache.begin(counter_id);
    let tok = &mut Tokens { counter, counter_id, cache, others: Vec::new() };

    // The fixed prefix: rules, the leading system message.
    let mut prefix: Vec<Message> = Vec::new();
    if let Some(rules) = &opts.system {
        prefix.push(Message::new(Role::System, rules.clone()));
    }
    let lead = usize::from(history.first().is_some_and(|m| m.borrow().role == Role::System));
    prefix.extend(history.iter().take(lead).map(|m| m.borrow().clone()));
    report.system_tokens = tok.sum(&prefix)?;
    if report.system_tokens > opts.budget {
        return Err(too_small("the system rules and the leading system message", report.system_tokens, opts.budget));
    }
    let mut room = opts.budget - report.system_tokens;

    // The compaction summary is part of the fixed prefix: the view is [summary, after the cut].
    let mut body_start = lead;
    let mut summary: Option<Message> = None;
    if let Some(crate::state::Compaction { summary: text, first_kept_id, cut }) = &ctx.compaction {
        // The first kept message, or (if it was removed since) the recorded cut position.
        let at = history
            .iter()
            .position(|m| m.borrow().id.as_deref() == Some(first_kept_id.as_str()))
            .unwrap_or((*cut).min(history.len()));
        if at > body_start {
            report.dropped.push(Dropped { count: at - body_start, reason: "compacted".into() });
            body_start = at;
        }
        let m = Message::new(Role::User, format!("Here is a summary of the conversation to date:\n\n{text}"));
        report.summary_tokens = tok.of(&m)?;
        if report.summary_tokens > room {
            let total = report.system_tokens + report.summary_tokens;
            return Err(too_small("the system messages and the compaction summary", total, opts.budget));
        }
        room -= report.summary_tokens;
        summary = Some(m);
    }
    if let Some(state) = state_message(&ctx.sections, room, tok, &mut report)? {
        room -= report.state_tokens;
        prefix.push(state);
    }

    // Most recent units that fit; then repair and previews, re-checking the fit.
    let body = history.get(body_start..).unwrap_or_default();
    let start = select_start(body, room, opts.max_tool_result_tokens, tok)?;
    let Window { messages: mut window, fixes, truncated, start } = fit_window(body, start, room, opts, tok)?;
    report.truncated = truncated;
    if start > 0 {
        report.dropped.push(Dropped { count: start, reason: "budget".into() });
    }
    // A compaction summary is a user message: the window after it may start anywhere. A history
    // with no user message at all (a recording of a sub-agent's turns) has nothing to start on:
    // it is kept as it is.
    if opts.start_on_user && summary.is_none() && body.iter().any(|m| m.borrow().role == Role::User) {
        let first_user = window.iter().position(|m| m.role == Role::User).unwrap_or(window.len());
        if first_user > 0 {
            window.drain(..first_user);
            report.dropped.push(Dropped { count: first_user, reason: "start_on_user".into() });
        }
    }
    // A view of nothing but the system messages is no conversation (Anthropic refuses an empty
    // message list; every model would answer without the task): refuse it, naming the cost. A
    // compaction summary is the conversation so far (a user message): with it the view stands.
    if window.is_empty() && !body.is_empty() && summary.is_none() {
        let last_user = body.iter().rposition(|m| m.borrow().role == Role::User).unwrap_or(0);
        let need = tok.sum(body.get(unit_start(body, last_user)..).unwrap_or_default())?;
        return Err(Error::new(
            ErrorCode::BudgetTooSmall,
            format!(
                "the budget of {} tokens keeps none of the {} history messages after the system messages ({} tokens): the newest turn from its user message on takes {need}; raise the budget, set maxToolResultTokens, or compact the history",
                opts.budget,
                body.len(),
                opts.budget - room,
            ),
        )
        .field("budget"));
    }
    report.repairs = fixes;

    let mut out = prefix;
    out.extend(summary);
    let body_at = out.len();
    out.extend(window);
    let (encoded, delta, output_of) = match view {
        None => {
            let (mut encoded, output_of) = crate::message::formats::encode_indexed(&out, opts.format);
            crate::message::formats::keep_request_fields(&mut encoded, opts.format);
            (encoded, None, output_of)
        }
        Some((cache, epoch)) => {
            let (delta, output_of) = cache.write(epoch, &out, opts.format);
            (Vec::new(), Some((delta, &*cache)), output_of)
        }
    };
    for (i, m) in out.iter().enumerate().skip(body_at) {
        let tokens = tok.of(m)?;
        let output = output_of.get(i).copied().unwrap_or_default();
        // The ids are filled in below (moved, when the messages are not handed out).
        report.messages.push(MessageReport { id: String::new(), role: m.role, tokens, output, tool_call_id: None });
    }
    report.used = tok.sum(&out)?;
    match &delta {
        None => check_leaks(&encoded, &ctx.private)?,
        Some((delta, cache)) if !ctx.private.is_empty() => {
            check_leaks(&cache.values(delta).cloned().collect::<Vec<_>>(), &ctx.private)?;
        }
        Some(_) => {}
    }
    let delta = delta.map(|(delta, _)| delta);
    // Written through a cache, the view is its slots: the messages are not handed out, and their
    // ids move into the report instead of being copied.
    let moved = delta.is_some();
    for (r, m) in report.messages.iter_mut().zip(out.iter_mut().skip(body_at)) {
        let (id, call) =
            if moved { (m.id.take(), m.tool_call_id.take()) } else { (m.id.clone(), m.tool_call_id.clone()) };
        r.id = id.unwrap_or_default();
        r.tool_call_id = call.filter(|_| m.role == Role::Tool);
    }
    if moved {
        out = Vec::new();
    }
    Ok(Projection { messages: out, encoded, delta, report })
}

/// The most messages a projection under `budget` can send: every message costs at least
/// [`tokens::PER_MESSAGE`] tokens, and a unit that fits lies entirely among them. A caller
/// holding a long array needs to decode only these (plus a leading system message).
pub fn max_sent(budget: usize) -> usize {
    budget / tokens::PER_MESSAGE + 1
}

/// [`project`] over the tail of a caller's array: `history` is a leading system message (when
/// `lead`) followed by the last messages, `skipped` messages having been left out between them
/// (see [`max_sent`]). Messages without an id are named `#i` (their position in the whole array)
/// for the report only; the output keeps them id-less. The report counts the skipped messages
/// as dropped for the budget. Returns the encoded messages and the report.
pub fn project_tail(
    mut history: Vec<Message>,
    lead: bool,
    skipped: usize,
    opts: &ProjectOptions,
    counter: &mut dyn TokenCounter,
    counter_id: &str,
) -> Result<(Vec<Value>, Report)> {
    let lead = usize::from(lead);
    for (i, m) in history.iter_mut().enumerate() {
        let at = if i < lead { i } else { i + skipped };
        m.id.get_or_insert_with(|| format!("#{at}"));
    }
    // Shared like a store's messages, so one instantiation of `project` is shipped.
    let history: Vec<Rc<Message>> = history.into_iter().map(Rc::new).collect();
    let p = project(&history, opts, &Context::default(), counter, counter_id, &mut TokenCache::default())?;
    let mut report = p.report;
    if skipped > 0 {
        match report.dropped.iter_mut().find(|d| d.reason == "budget") {
            Some(d) => d.count += skipped,
            None => report.dropped.insert(0, Dropped { count: skipped, reason: "budget".into() }),
        }
    }
    let mut out = p.messages;
    for m in &mut out {
        if m.id.as_deref().is_some_and(|id| id.starts_with('#')) {
            m.id = None;
        }
    }
    let mut encoded = encode_messages(&out, opts.format);
    crate::message::formats::keep_request_fields(&mut encoded, opts.format);
    Ok((encoded, report))
}
