//! The `messages` reducer (DESIGN §3): a message list with LangGraph `add_messages` semantics and
//! the tool-call invariants checked at write time.
//!
//! One update is a list of [`MessageOp`]s applied in order, as `add_messages` applies a list
//! (peer-semantics §5a): a message whose id exists replaces it in place (and cancels a removal of
//! that id earlier in the same update); a new id is appended; `{remove: id}` marks the id for
//! removal at the end of the update (an unknown id is `UNKNOWN_MESSAGE_ID`, as LangGraph raises);
//! `{removeAll: true}` drops everything before it. Unlike LangGraph, ids stay unique after a
//! remove-all (a later duplicate replaces in place), ids are assigned deterministically at intake
//! instead of `uuid4`, and `{replace: message}` / `{insertAfter: id, message}` never append.
//!
//! Invariants: a tool result must answer a call an assistant message in the channel made
//! (`UNKNOWN_TOOL_CALL`), and a call has at most one result (`ALREADY_ANSWERED`; replacing the
//! result by its id is allowed). Appends cost O(1); removals and insertions rebuild the indexes.
//! Changes are journaled so a failed command is rolled back exactly.

use crate::error::{Error, ErrorCode, Result};
use crate::message::{Message, Role, ToolStatus};

use rustc_hash::FxHashMap;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::id_index::{hash_id, IdIndex};
use super::message_ops::MessageOp;
/// What one update did, for the checks that span channels (run status, approvals, budget).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Effects {
    /// Ids of the messages the update wrote, in order (when asked for: a replay does not).
    pub ids: Vec<String>,
    /// Assistant messages appended (new ids): turns of the budget.
    pub turns: u64,
    /// Tool calls that were not in the channel before: tool calls of the budget.
    pub tool_calls: u64,
    /// Their ids (shared with the channel's call index).
    pub new_calls: Vec<Rc<str>>,
    /// `usage_metadata.total_tokens` of the appended assistant messages (LangChain).
    pub tokens: u64,
    /// Results written: (tool call id, status).
    pub results: Vec<(String, ToolStatus)>,
    /// True when an assistant or tool message was written.
    pub model_or_tool: bool,
    /// Approvals the update wrote into the messages, in order (the `approvals` channel is fed
    /// from them: `state::approval_feed`).
    pub approvals: Vec<ApprovalFx>,
}

/// An approval written into the messages: a call's request, or a decision.
#[derive(Debug, Clone, PartialEq)]
pub enum ApprovalFx {
    /// A call asked approval `id`.
    Asked {
        /// The approval id.
        id: String,
        /// The call's id.
        call: String,
    },
    /// Approval `id` was decided.
    Decided {
        /// The approval id.
        id: String,
        /// Whether the call may run.
        approved: bool,
        /// The reason given, if any.
        reason: Option<String>,
    },
}

#[derive(Debug, Clone)]
struct Call {
    /// Id of the assistant message that made the call (shared by its calls).
    assistant: Rc<str>,
    /// Id of the tool message that answers it.
    result: Option<Rc<str>>,
}

/// The most entries a spare journal's lists keep room for.
const SPARE_MAX: usize = 64;

#[derive(Debug, Clone, Default)]
struct Journal {
    len: usize,
    replaced: Vec<(usize, Rc<Message>)>,
    whole: Option<Vec<Rc<Message>>>,
    /// Index entries made since `begin` (the id's hash, the position), in order: undone in
    /// reverse, so rolling back an append costs what the append cost, not a rebuild of the whole
    /// index (a refused command or a `check` on a 200k-message store stays cheap).
    pos_undo: Vec<(u64, usize)>,
    calls_undo: Vec<(Rc<str>, Option<Call>)>,
    /// The index was rebuilt or cleared: rolling back rebuilds it too.
    reindexed: bool,
}

/// A messages channel: the list, an id index, the tool-call index and an undo journal.
///
/// Each message is held behind an [`Rc`], shared with the ops of the event that wrote it (the
/// log keeps the ops, not a copy: issue 17); replacing or removing a message swaps or drops the
/// channel's pointer while the event keeps its own.
#[derive(Debug, Clone, Default)]
pub struct MessagesChannel {
    list: Vec<Rc<Message>>,
    pos: IdIndex,
    /// Tool call id → its call; the ids are shared with the journal and the effects, so a call
    /// recorded costs one copy of its id, not five.
    calls: FxHashMap<Rc<str>, Call>,
    journal: Option<Journal>,
    /// The last journal committed, emptied: the next [`Self::begin`] takes its lists rather than
    /// allocating them again (an append a command, as a replay goes, would allocate two).
    spare: Journal,
}

impl MessagesChannel {
    /// A channel holding `list` (a restored snapshot). Messages without an id are refused
    /// (`INVALID_MESSAGE`): a snapshot is written with every id.
    pub fn from_messages(list: Vec<Message>) -> Result<MessagesChannel> {
        let list: Vec<Rc<Message>> = list.into_iter().map(Rc::new).collect();
        if let Some(i) = list.iter().position(|m| m.id.is_none()) {
            return Err(Error::new(ErrorCode::InvalidMessage, "a stored message has no id").at(i));
        }
        let mut c = MessagesChannel { list, ..MessagesChannel::default() };
        if !c.reindex() {
            return Err(Error::new(ErrorCode::InvalidMessage, "two stored messages share an id"));
        }
        Ok(c)
    }

    /// Makes room for `n` more messages (a log being replayed): the list and its index grow
    /// once, not by doubling (each doubling of the index hashed every id again).
    pub(super) fn reserve(&mut self, n: usize) {
        self.list.reserve(n);
        self.pos.reserve(&self.list, n);
    }

    /// The messages, in order; each has an id.
    pub fn messages(&self) -> &[Rc<Message>] {
        &self.list
    }

    /// The message with this id.
    pub fn get(&self, id: &str) -> Option<&Message> {
        self.pos.get(&self.list, id).and_then(|i| self.list.get(i)).map(|m| &**m)
    }

    /// True when a message with this id exists.
    pub fn contains(&self, id: &str) -> bool {
        self.pos.get(&self.list, id).is_some()
    }

    /// Calls that have no result, in message order: `(call id, tool name, assistant message id)`.
    pub fn unanswered(&self) -> Vec<(&str, &str, &str)> {
        let mut out: Vec<(usize, usize, &str, &str, &str)> = Vec::new();
        for (call_id, call) in &self.calls {
            if call.result.is_some() {
                continue;
            }
            let Some(at) = self.pos.get(&self.list, &call.assistant) else { continue };
            let Some(m) = self.list.get(at) else { continue };
            let (k, name) = m
                .tool_calls
                .iter()
                .map(|c| (c.id.as_str(), c.name.as_str()))
                .chain(m.invalid_tool_calls.iter().map(|c| (c.id.as_str(), c.name.as_str())))
                .enumerate()
                .find(|(_, (id, _))| *id == &**call_id)
                .map(|(k, (_, name))| (k, name))
                .unwrap_or((0, ""));
            out.push((at, k, &**call_id, name, &*call.assistant));
        }
        out.sort();
        out.into_iter().map(|(_, _, id, name, assistant)| (id, name, assistant)).collect()
    }

    /// Gives every message without an id one: `{run_id}:{sequence}:{k}` for the k-th message of
    /// the update (`sequence`: the event's), skipping ids already taken (deterministic, so a
    /// replay of the same log yields the same ids).
    pub fn assign_ids(&self, ops: &mut [MessageOp], run_id: &str, sequence: u64) {
        // Most updates come with every id, or (appends) without any: the ids given are
        // collected only when some message lacks one.
        if ops.iter().filter_map(MessageOp::message).all(|m| m.id.is_some()) {
            return;
        }
        let taken: HashSet<String> = ops.iter().filter_map(|o| o.message().and_then(|m| m.id.clone())).collect();
        let prefix = numbered(run_id, sequence);
        let mut k = 0usize;
        for op in ops.iter_mut() {
            let Some(m) = op.message_mut() else { continue };
            if m.id.is_some() {
                continue;
            }
            let id = loop {
                let candidate = numbered(&prefix, k as u64);
                k += 1;
                if self.pos.get(&self.list, &candidate).is_none() && !taken.contains(&candidate) {
                    break candidate;
                }
            };
            // A candidate is never made twice (k only grows): only the ids given are `taken`.
            m.id = Some(id);
        }
    }

    /// Starts journaling (idempotent within one transaction).
    pub fn begin(&mut self) {
        if self.journal.is_none() {
            self.journal = Some(Journal { len: self.list.len(), ..std::mem::take(&mut self.spare) });
        }
    }

    /// Forgets the journal: the changes since [`Self::begin`] stay.
    pub fn commit(&mut self) {
        let Some(mut j) = self.journal.take() else { return };
        // Kept only while small: one large batch does not hold its undo lists' memory.
        if j.pos_undo.capacity() <= SPARE_MAX
            && j.calls_undo.capacity() <= SPARE_MAX
            && j.replaced.capacity() <= SPARE_MAX
        {
            j.replaced.clear();
            j.whole = None;
            j.pos_undo.clear();
            j.calls_undo.clear();
            j.reindexed = false;
            self.spare = j;
        }
    }

    /// Restores the channel exactly as it was at [`Self::begin`].
    pub fn rollback(&mut self) {
        let Some(j) = self.journal.take() else { return };
        let rebuild = j.whole.is_some() || j.reindexed;
        if let Some(whole) = j.whole {
            self.list = whole;
        } else {
            self.list.truncate(j.len);
            for (i, m) in j.replaced.into_iter().rev() {
                if let Some(slot) = self.list.get_mut(i) {
                    *slot = m;
                }
            }
        }
        if rebuild {
            self.reindex();
            return;
        }
        for (hash, at) in j.pos_undo.into_iter().rev() {
            self.pos.forget(hash, at);
        }
        for (id, old) in j.calls_undo.into_iter().rev() {
            match old {
                Some(c) => self.calls.insert(id, c),
                None => self.calls.remove(&*id),
            };
        }
    }

    /// Records the old value of `calls[id]` before it changes (while a journal is open); returns
    /// the id as the index's key (the one held, or a new one).
    fn note_call(&mut self, id: &str) -> Rc<str> {
        let (key, old) = match self.calls.get_key_value(id) {
            Some((key, call)) => (key.clone(), Some(call)),
            None => (Rc::from(id), None),
        };
        if let Some(j) = self.journal.as_mut().filter(|j| !j.reindexed) {
            j.calls_undo.push((key.clone(), old.cloned()));
        }
        key
    }

    /// Saves the whole list as it was at `begin` before a change that moves positions.
    fn save_whole(&mut self) {
        let Some(j) = &mut self.journal else { return };
        if j.whole.is_some() {
            return;
        }
        let mut original = self.list.clone();
        original.truncate(j.len);
        for (i, m) in j.replaced.iter().rev() {
            if let Some(slot) = original.get_mut(*i) {
                *slot = m.clone();
            }
        }
        j.whole = Some(original);
    }

    /// Rebuilds the id and call indexes from the list; false when two messages share an id.
    fn reindex(&mut self) -> bool {
        if let Some(j) = &mut self.journal {
            j.reindexed = true;
        }
        let unique = self.pos.rebuild(&self.list);
        self.calls.clear();
        for m in &self.list {
            let Some(id) = m.id.as_deref() else { continue };
            if m.role == Role::Assistant {
                let assistant: Rc<str> = Rc::from(id);
                for c in m.call_ids() {
                    self.calls.insert(Rc::from(c), Call { assistant: assistant.clone(), result: None });
                }
            }
            if let (Role::Tool, Some(c), false) = (m.role, m.tool_call_id.as_deref(), m.is_aside()) {
                if let Some(call) = self.calls.get_mut(c) {
                    call.result.get_or_insert_with(|| Rc::from(id));
                }
            }
        }
        unique
    }

    /// After an update that moved, removed or re-made messages: every tool result still answers
    /// a call made before it, and no call has two results (`UNKNOWN_TOOL_CALL`,
    /// `ALREADY_ANSWERED`). O(n); appends never need it.
    fn check_pairs(&self) -> Result<()> {
        let mut made: HashMap<&str, Option<&str>> = HashMap::new();
        for m in &self.list {
            let id = m.id.as_deref().unwrap_or("");
            if m.role == Role::Assistant {
                for c in m.call_ids() {
                    made.insert(c, None);
                }
            }
            let (Role::Tool, Some(call), false) = (m.role, m.tool_call_id.as_deref(), m.is_aside()) else { continue };
            match made.get_mut(call) {
                None => {
                    return Err(Error::new(ErrorCode::UnknownToolCall, format!("after this update tool result '{id}' would answer call '{call}', which no earlier message makes"))
                        .field("tool_call_id"))
                }
                Some(Some(first)) => {
                    return Err(Error::new(ErrorCode::AlreadyAnswered, format!("after this update call '{call}' would have two results ('{first}' and '{id}')"))
                        .field("tool_call_id"))
                }
                Some(slot) => *slot = Some(id),
            }
        }
        Ok(())
    }

    /// Registers the calls of an assistant message; adds the new ones to `new`.
    fn register_calls(&mut self, m: &Message, id: &str, new: &mut Vec<Rc<str>>) {
        let mut assistant: Option<Rc<str>> = None;
        for c in m.call_ids() {
            match self.calls.get(c) {
                Some(call) if &*call.assistant == id => {}
                _ => {
                    let key = self.note_call(c);
                    let assistant = assistant.get_or_insert_with(|| Rc::from(id)).clone();
                    self.calls.insert(key.clone(), Call { assistant, result: None });
                    new.push(key);
                }
            }
        }
    }

    /// Checks a tool result against the call index and records it as the call's answer.
    fn answer(&mut self, m: &Message, id: &str, index: usize) -> Result<()> {
        let Some(call_id) = m.tool_call_id.as_deref() else { return Ok(()) };
        self.note_call(call_id);
        let Some(call) = self.calls.get_mut(call_id) else {
            return Err(Error::new(
                ErrorCode::UnknownToolCall,
                format!("tool result '{id}' answers call '{call_id}', which no assistant message made"),
            )
            .at(index)
            .field("tool_call_id"));
        };
        match &call.result {
            Some(r) if &**r != id => Err(Error::new(
                ErrorCode::AlreadyAnswered,
                format!("call '{call_id}' already has a result ('{r}'); replace that message by its id instead of adding another"),
            )
            .at(index)
            .field("tool_call_id")),
            _ => {
                call.result = Some(Rc::from(id));
                Ok(())
            }
        }
    }

    /// Applies one update (ids already assigned); `ids`: whether [`Effects::ids`] is filled. On
    /// error the channel may be half-updated: the caller rolls back with [`Self::rollback`].
    pub fn apply(&mut self, ops: &[MessageOp], ids: bool) -> Result<Effects> {
        let mut fx = Effects::default();
        let mut removed: HashSet<String> = HashSet::new();
        let mut moved = false;
        for (index, op) in ops.iter().enumerate() {
            match op {
                MessageOp::RemoveAll { .. } => {
                    self.save_whole();
                    if let Some(j) = &mut self.journal {
                        j.reindexed = true;
                    }
                    self.list.clear();
                    self.pos.clear();
                    self.calls.clear();
                    removed.clear();
                }
                MessageOp::Remove { remove } => {
                    let Some(i) = self.pos.get(&self.list, remove) else {
                        return Err(unknown_id(remove, index));
                    };
                    if let Some(c) = self.list.get(i).and_then(|m| m.tool_call_id.clone()) {
                        self.note_call(&c);
                        if let Some(call) = self.calls.get_mut(c.as_str()) {
                            if call.result.as_deref() == Some(remove.as_str()) {
                                call.result = None;
                            }
                        }
                    }
                    removed.insert(remove.clone());
                }
                MessageOp::Put(m) | MessageOp::Replace { replace: m } | MessageOp::InsertAfter { message: m, .. } => {
                    let id = m.id.as_deref().ok_or_else(|| {
                        Error::new(ErrorCode::InvalidMessage, "internal: message without an id").at(index)
                    })?;
                    for c in &m.tool_calls {
                        if let Some(r) = &c.approval {
                            fx.approvals.push(ApprovalFx::Asked { id: r.id.clone(), call: c.id.clone() });
                        }
                    }
                    if let (Role::Tool, Some(d)) = (m.role, &m.approval) {
                        fx.approvals.push(ApprovalFx::Decided {
                            id: d.id.clone(),
                            approved: d.approved,
                            reason: d.reason.clone(),
                        });
                    }
                    let existing = self.pos.get(&self.list, id);
                    let insert_at = match op {
                        MessageOp::Replace { .. } if existing.is_none() => return Err(unknown_id(id, index)),
                        MessageOp::InsertAfter { insert_after, .. } => {
                            if existing.is_some_and(|_| !removed.contains(id)) {
                                return Err(Error::new(
                                    ErrorCode::InvalidUpdate,
                                    format!("insertAfter: message '{id}' already exists"),
                                )
                                .at(index));
                            }
                            let anchor =
                                self.pos.get(&self.list, insert_after).filter(|_| !removed.contains(insert_after));
                            Some(anchor.ok_or_else(|| unknown_id(insert_after, index))? + 1)
                        }
                        _ => None,
                    };
                    if m.role == Role::Assistant {
                        // (A message repeating a call id was refused when it was decoded.)
                        let before = fx.new_calls.len();
                        self.register_calls(m, id, &mut fx.new_calls);
                        fx.tool_calls += (fx.new_calls.len() - before) as u64;
                    }
                    // An AI SDK approval response is kept in order but answers no call.
                    if m.role == Role::Tool && !m.is_aside() {
                        // A result put in before the assistant message the call index holds for
                        // its call id answers an earlier call of that id (ids repeat across turns,
                        // as in tau-bench): the index cannot say which, so the pairing is checked
                        // once the update is in (`check_pairs`), in list order.
                        let earlier = match (insert_at, existing, m.tool_call_id.as_deref()) {
                            (Some(at), None, Some(c)) => self
                                .calls
                                .get(c)
                                .and_then(|call| self.pos.get(&self.list, &call.assistant))
                                .is_some_and(|a| a >= at),
                            _ => false,
                        };
                        if !earlier {
                            self.answer(m, id, index)?;
                        }
                        fx.results.push((
                            m.tool_call_id.clone().unwrap_or_default(),
                            m.status.unwrap_or(ToolStatus::Success),
                        ));
                    }
                    fx.model_or_tool |= matches!(m.role, Role::Assistant | Role::Tool);
                    match (insert_at, existing) {
                        (Some(at), Some(old)) => {
                            // A move: out of its place, then in at the new one.
                            self.save_whole();
                            self.list.remove(old);
                            let at = if old < at { at - 1 } else { at };
                            self.list.insert(at.min(self.list.len()), m.clone());
                            removed.remove(id);
                            self.reindex();
                            moved = true;
                        }
                        (Some(at), None) => {
                            // A new message in the middle: only the positions after it move (a
                            // full re-index per insert made a repair of n results O(n²): 33,000
                            // dangling calls took 158 s). Calls and results are re-derived and
                            // checked at the end, as for every change that is not an append.
                            self.save_whole();
                            if let Some(j) = &mut self.journal {
                                j.reindexed = true;
                            }
                            let at = at.min(self.list.len());
                            self.list.insert(at, m.clone());
                            removed.remove(id);
                            if !self.pos.inserted(&self.list, id, at) {
                                return Err(Error::new(
                                    ErrorCode::TooLarge,
                                    "a messages channel holds at most 4,294,967,295 messages",
                                )
                                .at(index));
                            }
                            moved = true;
                        }
                        (None, Some(i)) => {
                            removed.remove(id);
                            let Some(slot) = self.list.get_mut(i) else {
                                return Err(Error::new(
                                    ErrorCode::InvalidMessage,
                                    "internal: the id index points past the list",
                                )
                                .at(index));
                            };
                            let old = std::mem::replace(slot, m.clone());
                            // A message replaced as it completes (a streamed answer put early,
                            // then again with its usage) spends what its new usage adds over the
                            // old one; the budget's counters only grow, so a smaller usage takes
                            // nothing back.
                            if m.role == Role::Assistant {
                                fx.tokens += tokens_of(m).saturating_sub(tokens_of(&old));
                            }
                            // A replacement that changes the role, the calls made or the call
                            // answered changes the pairing: rebuild the index and re-check it.
                            if old.role != m.role
                                || old.tool_call_id != m.tool_call_id
                                || old.call_ids().ne(m.call_ids())
                            {
                                moved = true;
                            }
                            if let Some(j) = &mut self.journal {
                                if j.whole.is_none() && i < j.len {
                                    j.replaced.push((i, old));
                                }
                            }
                        }
                        (None, None) => {
                            if m.role == Role::Assistant {
                                // A run of assistant items of an item format (reasoning, text,
                                // each parallel call) is one model response: one turn.
                                let continues = self.list.last().is_some_and(|p| {
                                    crate::message::formats::same_turn((p.role, p.origin), (m.role, m.origin))
                                });
                                if !continues {
                                    fx.turns += 1;
                                }
                                fx.tokens += tokens_of(m);
                            }
                            let at = self.list.len();
                            self.list.push(m.clone());
                            if !self.pos.insert(&self.list, id, at) {
                                return Err(Error::new(
                                    ErrorCode::TooLarge,
                                    "a messages channel holds at most 4,294,967,295 messages",
                                )
                                .at(index));
                            }
                            if let Some(j) = &mut self.journal {
                                if !j.reindexed {
                                    j.pos_undo.push((hash_id(id), at));
                                }
                            }
                        }
                    }
                    if ids {
                        fx.ids.push(id.to_string());
                    }
                }
            }
        }
        if !removed.is_empty() {
            self.save_whole();
            self.list.retain(|m| m.id.as_ref().is_none_or(|id| !removed.contains(id)));
            moved = true;
        }
        if moved {
            self.reindex();
            self.check_pairs()?;
        }
        if ops.iter().any(|op| self.touches_approvals(op)) {
            crate::message::approvals::check(&self.list)?;
        }
        Ok(fx)
    }

    /// Whether an op writes an approval request or decision, or a result of a call that has an
    /// approval: then [`crate::message::approvals::check`] runs (appends of anything else never
    /// pay for it).
    fn touches_approvals(&self, op: &MessageOp) -> bool {
        let (MessageOp::Put(m) | MessageOp::Replace { replace: m } | MessageOp::InsertAfter { message: m, .. }) = op
        else {
            return false;
        };
        if m.approval.is_some() || m.tool_calls.iter().any(|c| c.approval.is_some()) {
            return true;
        }
        let Some(call_id) = m.tool_call_id.as_deref().filter(|_| m.role == Role::Tool) else { return false };
        let assistant = self.calls.get(call_id).and_then(|c| self.pos.get(&self.list, &c.assistant));
        assistant
            .and_then(|i| self.list.get(i))
            .is_some_and(|a| a.tool_calls.iter().any(|c| c.id == call_id && c.approval.is_some()))
    }
}

/// Tokens an assistant message reports using: its canonical usage (input, cache reads and
/// writes included, plus output; see [`crate::message::usage`]), or for a message stored
/// before usage was canonical, the same read from its format's fields.
fn tokens_of(m: &Message) -> u64 {
    m.usage.or_else(|| crate::message::usage::usage_of(m)).map_or(0, |u| u.total())
}

fn unknown_id(id: &str, index: usize) -> Error {
    Error::new(ErrorCode::UnknownMessageId, format!("no message with id '{id}'; append it as a new message instead"))
        .at(index)
        .field("id")
}

/// `{base}:{n}`: an event id (`{runId}:{sequence}`) or a generated message id
/// (`{runId}:{sequence}:{k}`). Written without `format!`, whose machinery was a tenth of an
/// append's instructions (issue 17, row 2).
pub(crate) fn numbered(base: &str, n: u64) -> String {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let mut out = String::with_capacity(base.len() + 1 + digits.len() - at);
    out.push_str(base);
    out.push(':');
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
    out
}
