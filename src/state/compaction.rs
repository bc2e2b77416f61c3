//! Compaction as a command (DESIGN §6): a safe cut between tool-call units, and the record the
//! model view starts after. The messages and the log keep the whole history.

use super::schema::channel;
use super::store::Store;
use crate::error::{Error, ErrorCode, Result};
use crate::json::obj;
use crate::message::units::unit_boundary;
use crate::message::Role;
use crate::state::{Applied, Command};

/// The record of a compaction in the `compaction` channel: `{summary, first_kept_id, cut}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction {
    /// The caller's summary of the messages before the cut.
    pub summary: String,
    /// The id of the first message after the cut.
    pub first_kept_id: String,
    /// The cut's index when it was made (used if that message was removed since).
    pub cut: usize,
}

impl Store {
    /// The compaction in effect, if one was recorded.
    pub fn compaction(&self) -> Option<Compaction> {
        let c = self.get(channel::COMPACTION).ok()?;
        Some(Compaction {
            summary: c.get("summary")?.as_str()?.to_string(),
            first_kept_id: c.get("first_kept_id")?.as_str()?.to_string(),
            cut: c.get("cut").and_then(serde_json::Value::as_u64).unwrap_or(0) as usize,
        })
    }

    /// A safe cut for compaction keeping about the last `keep` messages: the index of the first
    /// message to keep, moved back to the start of its unit so a call and its results stay
    /// together (as deepagents' `find_safe_cutoff_point` moves back to the AI message).
    ///
    /// At least one message is kept, and the cut also moves back before any call still waiting
    /// for its result (so the late result still finds its call in the view).
    pub fn compaction_plan(&self, keep: usize) -> Result<usize> {
        let channel = self.messages(channel::MESSAGES)?;
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
        let cmd = self.compaction_command(summary, cut, author)?;
        self.apply(&cmd, now_ms)
    }

    /// The command [`Store::compact`] applies (checked as it checks it), for a caller that
    /// applies it another way — [`Store::preview`], a database log, then [`Store::ingest`].
    pub fn compaction_command(&self, summary: &str, cut: usize, author: &str) -> Result<Command> {
        let list = self.messages(channel::MESSAGES)?.messages();
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
        let channel = self.messages(channel::MESSAGES)?;
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
        let mut update = serde_json::Map::new();
        update.insert(channel::COMPACTION.into(), obj! {"summary": summary, "first_kept_id": first, "cut": cut});
        Ok(Command {
            author: author.to_string(),
            expected_version: None,
            update,
            correlation_id: None,
            causation_id: None,
        })
    }
}
