//! The model view of a [`Store`] (DESIGN §6): the projector fed with the stored messages, the
//! state sections the schema declares and the private values to scan for. The projector only
//! reads the store; the one thing it writes back (the artifact refs of previews) is an ordinary
//! command applied by [`record_artifacts`].

use super::sections::{render, SectionInput, SectionSource};
use super::tokens::{Estimate, TokenCache, TokenCounter};
use super::{project, Context, ProjectOptions, Projection};
use crate::error::Result;
use crate::message::{Message, Role};
use crate::state::{channel, Applied, Command, Store, Visibility};
use serde_json::{json, Map, Value};

/// A projector for one store: the model view with its token counts cached by message id across
/// calls (one counter at a time; another `counter_id` starts a new cache). The caller owns it,
/// beside the store it projects.
#[derive(Debug, Default, Clone)]
pub struct Projector {
    cache: TokenCache,
}

impl Projector {
    /// The model view of the store's `messages` channel (see [`crate::project`]): system rules,
    /// the leading system message, the state sections, the compaction summary, then the most
    /// recent units that fit `opts.budget`.
    ///
    /// Errors: `BUDGET_TOO_SMALL`, `PRIVATE_LEAK` (naming the channel), the counter's errors.
    pub fn model_view(
        &mut self,
        store: &Store,
        opts: &ProjectOptions,
        counter: &mut dyn TokenCounter,
        counter_id: &str,
    ) -> Result<Projection> {
        self.model_view_before(store, opts, counter, counter_id, None)
    }

    /// The model view of the messages before the message `before` (all of them when `None` or
    /// not found): what a forked subagent inherits at launch, without the assistant turn that
    /// launches it (deepagents pops the trailing tool-calling message).
    pub fn model_view_before(
        &mut self,
        store: &Store,
        opts: &ProjectOptions,
        counter: &mut dyn TokenCounter,
        counter_id: &str,
        before: Option<&str>,
    ) -> Result<Projection> {
        let mut ctx = Context { private: store.private_values(), ..Context::default() };
        if opts.sections {
            let sources: Vec<SectionSource> = store
                .channels()
                .iter()
                .filter(|spec| spec.visibility != Visibility::Private)
                .filter_map(|spec| {
                    Some(SectionSource {
                        kind: spec.section?,
                        channel: &spec.name,
                        value: store.get(&spec.name).ok()?,
                        secret: spec.secret,
                    })
                })
                .collect();
            let (sections, redacted) = render(&SectionInput { sources: &sources, redact_keys: &opts.redact });
            ctx.sections = sections;
            ctx.redacted = redacted;
        }
        ctx.compaction = store.compaction();
        let all = store.messages(channel::MESSAGES)?.messages();
        let end = before.and_then(|id| all.iter().position(|m| m.id.as_deref() == Some(id))).unwrap_or(all.len());
        project(all.get(..end).unwrap_or(all), opts, &ctx, counter, counter_id, &mut self.cache)
    }
}

/// What a forked subagent inherits (deepagents `mode="fork"`): the model view of the messages
/// before `before` — by default the last message when it is an assistant turn whose calls are
/// unanswered (the turn launching the subagent) — in canonical form, without state sections or
/// system messages (the subagent has its own system prompt), under `budget` estimated tokens.
pub fn fork_view(store: &Store, budget: usize, before: Option<&str>) -> Result<Vec<Message>> {
    let trailing = {
        let channel = store.messages(channel::MESSAGES)?;
        let unanswered = channel.unanswered();
        channel
            .messages()
            .last()
            .filter(|m| m.role == Role::Assistant && unanswered.iter().any(|(_, _, a)| m.id.as_deref() == Some(*a)))
            .and_then(|m| m.id.clone())
    };
    let opts = ProjectOptions { budget, sections: false, ..ProjectOptions::default() };
    let view = Projector::default().model_view_before(
        store,
        &opts,
        &mut Estimate,
        "estimate",
        before.or(trailing.as_deref()),
    )?;
    Ok(view.messages.into_iter().filter(|m| m.role != Role::System).collect())
}

/// Records the artifact refs of a projection's previews in `artifacts` (DESIGN §6: the full
/// result stays reachable), as one command by `projector`, only for refs not recorded yet and
/// never in a past view. Returns the command's result when one was applied.
pub fn record_artifacts(store: &mut Store, projection: &Projection, now_ms: u64) -> Result<Option<Applied>> {
    if store.is_read_only() {
        return Ok(None);
    }
    let known = store.get(channel::ARTIFACTS).unwrap_or(Value::Null);
    let new: Vec<Value> = projection
        .report
        .truncated
        .iter()
        .map(|t| json!({"ref": t.artifact, "message_id": t.id, "tool_call_id": t.tool_call_id, "tokens": t.tokens}))
        .filter(|r| !known.as_array().is_some_and(|a| a.contains(r)))
        .collect();
    if new.is_empty() {
        return Ok(None);
    }
    let mut update = Map::new();
    update.insert(channel::ARTIFACTS.into(), Value::Array(new));
    let cmd = Command {
        author: "projector".into(),
        expected_version: None,
        update,
        correlation_id: None,
        causation_id: None,
    };
    store.apply(&cmd, now_ms).map(Some)
}
