//! The model view of a [`Store`] (DESIGN §6): the projector fed with the stored messages, the
//! state sections the schema declares and the private values to scan for. The projector only
//! reads the store; the one thing it writes back (the artifact refs of previews) is an ordinary
//! command applied by [`record_artifacts`].

use super::sections::{render, SectionInput, SectionSource};
use super::tokens::{Estimate, TokenCache, TokenCounter};
use super::view_cache::ViewCache;
use super::{project_into, Context, ProjectOptions, Projection};
use crate::error::Result;
use crate::message::{Message, Role};
use crate::state::{channel, Applied, Command, Store, Visibility};
use serde_json::{json, Map, Value};

/// A projector for one store: the model view with its token counts cached by message id across
/// calls (one counter at a time; another `counter_id` starts a new cache), and the output of the
/// last view kept for a caller that rebuilds views from slots ([`Projector::model_view_slots`]). The caller
/// owns it, beside the store it projects.
#[derive(Debug, Default, Clone)]
pub struct Projector {
    cache: TokenCache,
    /// Boxed: most stores never give a view, and an idle store stays small.
    view: Option<Box<ViewCache>>,
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

    /// [`Projector::model_view`], written through this projector's [`ViewCache`] (`epoch`: the
    /// one the caller last received, 0 at first): only what changed since the last view is
    /// encoded, the projection's `delta` gives the view as slots, [`Projector::slot`] their
    /// values. Errors: those of [`Projector::model_view`] (the caller's next epoch is then stale:
    /// its next view is sent whole).
    pub fn model_view_slots(
        &mut self,
        store: &Store,
        opts: &ProjectOptions,
        counter: &mut dyn TokenCounter,
        counter_id: &str,
        epoch: u32,
    ) -> Result<Projection> {
        self.view_of(store, opts, counter, counter_id, None, Some(epoch))
    }

    /// The output message a slot of the last [`Projector::model_view_slots`] holds.
    pub fn slot(&self, slot: u32) -> Option<&Value> {
        self.view.as_ref().and_then(|v| v.value(slot))
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
        self.view_of(store, opts, counter, counter_id, before, None)
    }

    fn view_of(
        &mut self,
        store: &Store,
        opts: &ProjectOptions,
        counter: &mut dyn TokenCounter,
        counter_id: &str,
        before: Option<&str>,
        epoch: Option<u32>,
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
        let view = match epoch {
            Some(e) => Some((&mut **self.view.get_or_insert_with(Box::default), e)),
            None => None,
        };
        project_into(all.get(..end).unwrap_or(all), opts, &ctx, counter, counter_id, &mut self.cache, view)
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
