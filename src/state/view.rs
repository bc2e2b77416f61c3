//! The store's model view and compaction (DESIGN §6): the projector fed with the stored
//! messages, the state sections and the private values to scan for; compaction as a command.

use super::schema::Visibility;
use super::store::{Slot, Store};
use crate::error::{Error, ErrorCode, Result};
use crate::message::{Message, Role};
use crate::project::sections::{render, SectionInput};
use crate::project::tokens::{Estimate, TokenCounter};
use crate::project::{private_strings, project, Context, ProjectOptions, Projection};
use crate::state::{Applied, Command};
use serde_json::{json, Map, Value};

impl Store {
    /// The model view of the `messages` channel (see [`crate::project`]): system rules, the
    /// leading system message, the state sections, the compaction summary, then the most recent
    /// units that fit `opts.budget`. Token counts are cached by message id for `counter_id`.
    ///
    /// Errors: `BUDGET_TOO_SMALL`, `PRIVATE_LEAK` (naming the channel), the counter's errors.
    pub fn model_view(
        &mut self,
        opts: &ProjectOptions,
        counter: &mut dyn TokenCounter,
        counter_id: &str,
    ) -> Result<Projection> {
        self.model_view_before(opts, counter, counter_id, None)
    }

    /// The model view of the messages before the message `before` (all of them when `None` or
    /// not found): what a forked subagent inherits at launch, without the assistant turn that
    /// launches it (deepagents pops the trailing tool-calling message).
    pub fn model_view_before(
        &mut self,
        opts: &ProjectOptions,
        counter: &mut dyn TokenCounter,
        counter_id: &str,
        before: Option<&str>,
    ) -> Result<Projection> {
        let i = self.index("messages")?;
        let mut ctx = Context::default();
        let mut public = Map::new();
        let mut secret = Vec::new();
        ctx.private = self.private_values();
        for (k, spec) in self.specs.iter().enumerate() {
            if spec.visibility == Visibility::Private {
                continue;
            }
            if spec.secret {
                secret.push(spec.name.clone());
            }
            if matches!(spec.name.as_str(), "run" | "plan" | "facts" | "unresolved_questions" | "async_tasks") {
                public.insert(spec.name.clone(), self.value_of(k));
            }
        }
        if opts.sections {
            let (sections, redacted) =
                render(&SectionInput { channels: &public, secret_channels: &secret, redact_keys: &opts.redact });
            ctx.sections = sections;
            ctx.redacted = redacted;
        }
        if let Ok(c) = self.get("compaction") {
            if let (Some(summary), Some(first)) =
                (c.get("summary").and_then(Value::as_str), c.get("first_kept_id").and_then(Value::as_str))
            {
                let cut = c.get("cut").and_then(Value::as_u64).unwrap_or(0) as usize;
                ctx.compaction = Some((summary.to_string(), first.to_string(), cut));
            }
        }
        let Some(Slot::Messages(channel)) = self.slots.get(i) else {
            return Err(Error::new(ErrorCode::InvalidOption, "channel 'messages' is not a messages channel"));
        };
        let all = channel.messages();
        let end = before.and_then(|id| all.iter().position(|m| m.id.as_deref() == Some(id))).unwrap_or(all.len());
        project(all.get(..end).unwrap_or(all), opts, &ctx, counter, counter_id, &mut self.token_cache)
    }

    /// What a forked subagent inherits (deepagents `mode="fork"`): the model view of the
    /// messages before `before` — by default the last message when it is an assistant turn whose
    /// calls are unanswered (the turn launching the subagent) — in canonical form, without state
    /// sections or system messages (the subagent has its own system prompt), under `budget`.
    pub fn fork_view(&mut self, budget: usize, before: Option<&str>) -> Result<Vec<Message>> {
        let trailing = {
            let channel = self.messages("messages")?;
            let unanswered = channel.unanswered();
            channel
                .messages()
                .last()
                .filter(|m| m.role == Role::Assistant && unanswered.iter().any(|(_, _, a)| m.id.as_deref() == Some(*a)))
                .and_then(|m| m.id.clone())
        };
        let opts = ProjectOptions { budget, sections: false, ..ProjectOptions::default() };
        let view = self.model_view_before(&opts, &mut Estimate, "estimate", before.or(trailing.as_deref()))?;
        Ok(view.messages.into_iter().filter(|m| m.role != Role::System).collect())
    }

    /// Every private string value as `(channel, value)`: what no output may carry (the model
    /// view's leak scan; requests to subagent servers).
    pub fn private_values(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (k, spec) in self.specs.iter().enumerate().filter(|(_, s)| s.visibility == Visibility::Private) {
            private_strings(&spec.name, &self.value_of(k), &mut out);
        }
        out
    }

    /// Records the artifact refs of a projection's previews in `artifacts` (DESIGN §6: the full
    /// result stays reachable), as one command by `projector`, only for refs not recorded yet and
    /// never in a past view. Returns the command's result when one was applied.
    pub fn record_artifacts(&mut self, projection: &Projection, now_ms: u64) -> Result<Option<Applied>> {
        if self.is_read_only() {
            return Ok(None);
        }
        let known = self.get("artifacts").unwrap_or(Value::Null);
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
        let cmd = Command {
            author: "projector".into(),
            expected_version: None,
            update: json!({"artifacts": new}).as_object().cloned().unwrap_or_default(),
            correlation_id: None,
            causation_id: None,
        };
        self.apply(&cmd, now_ms).map(Some)
    }

    /// A safe cut for compaction keeping about the last `keep` messages: the index of the first
    /// message to keep, moved back to the start of its unit so a call and its results stay
    /// together (as deepagents' `find_safe_cutoff_point` moves back to the AI message).
    ///
    /// At least one message is kept, and the cut also moves back before any call still waiting
    /// for its result (so the late result still finds its call in the view).
    pub fn compaction_plan(&self, keep: usize) -> Result<usize> {
        let channel = self.messages("messages")?;
        let list = channel.messages();
        let lead = usize::from(list.first().is_some_and(|m| m.role == Role::System));
        let cut = list.len().saturating_sub(keep.max(1)).max(lead);
        let mut cut = unit_boundary(list, cut);
        for (_, _, assistant) in channel.unanswered() {
            if let Some(at) = list.iter().position(|m| m.id.as_deref() == Some(assistant)) {
                cut = cut.min(at);
            }
        }
        Ok(cut.max(lead))
    }

    /// Records a compaction: the model view becomes [summary, messages from `cut` on]. The
    /// messages and the log are untouched (the full history stays), and so is the async task
    /// ledger. `cut` must be a unit boundary ([`Store::compaction_plan`] gives one); the summary
    /// text comes from the caller. Errors: `INVALID_OPTION` for a cut inside a unit or out of range.
    pub fn compact(&mut self, summary: &str, cut: usize, author: &str, now_ms: u64) -> Result<Applied> {
        let list = self.messages("messages")?.messages();
        let lead = usize::from(list.first().is_some_and(|m| m.role == Role::System));
        let first = list.get(cut).and_then(|m| m.id.clone()).filter(|_| cut >= lead).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidOption,
                format!("cut {cut} is not a message index after the leading system message"),
            )
            .field("cut")
        })?;
        if unit_boundary(list, cut) != cut {
            return Err(Error::new(
                ErrorCode::InvalidOption,
                format!("cut {cut} falls inside a tool-call unit; use compactionPlan() for a safe cut"),
            )
            .field("cut"));
        }
        let channel = self.messages("messages")?;
        let waiting = channel
            .unanswered()
            .into_iter()
            .filter_map(|(_, _, a)| list.iter().position(|m| m.id.as_deref() == Some(a)))
            .any(|at| at < cut);
        if waiting {
            return Err(Error::new(
                ErrorCode::InvalidOption,
                format!(
                    "cut {cut} would hide a call still waiting for its result; use compactionPlan() for a safe cut"
                ),
            )
            .field("cut"));
        }
        let update = json!({"compaction": {"summary": summary, "first_kept_id": first, "cut": cut}});
        let cmd = Command {
            author: author.to_string(),
            expected_version: None,
            update: update.as_object().cloned().unwrap_or_default(),
            correlation_id: None,
            causation_id: None,
        };
        self.apply(&cmd, now_ms)
    }
}

/// The start of the unit that contains index `at`: if `at` is a tool result, or any result at or
/// after `at` answers a call made before `at`, move back to the earliest such call's assistant.
fn unit_boundary(list: &[crate::message::Message], at: usize) -> usize {
    let mut cut = at;
    loop {
        let mut moved = false;
        for m in list.get(cut..).unwrap_or_default() {
            let Some(call) = m.tool_call_id.as_deref() else { continue };
            if let Some(owner) = list
                .get(..cut)
                .unwrap_or_default()
                .iter()
                .rposition(|a| a.role == Role::Assistant && a.call_ids().any(|c| c == call))
            {
                cut = owner;
                moved = true;
                break;
            }
        }
        if !moved {
            return cut;
        }
    }
}
