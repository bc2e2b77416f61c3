//! The store's own repair command (DESIGN §5 applied to stored messages): the repair plan of
//! [`crate::repair`] turned into message ops — placeholders inserted after their calls with their
//! own ids, misplaced results moved, duplicates and orphans removed — applied as one command.

use super::command::Repaired;
use super::message_ops::MessageOp;
use super::schema::channel;
use super::store::{Decoded, Expect, Mode, Slot, Store, Write};
use crate::error::{Error, ErrorCode, Result};
use crate::log::Event;
use crate::repair::{
    check_pending_approvals, check_placeholders, materialize, plan, shapes_of_messages, Item, RepairOptions,
};
use std::collections::HashSet;
use std::rc::Rc;

/// What `previewRepair` returns: `{version, report, ids, events}` — [`Repaired`] as the repair
/// would answer, and the event it would log (none when there is nothing to repair).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct RepairPreview {
    /// The repair's answer, its `version` the one the repair would reach.
    #[serde(flatten)]
    pub repaired: Repaired,
    /// The event to persist, then `ingest`.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "StoreEvent[]"))]
    pub events: Vec<Event>,
}

impl Store {
    /// Repairs the stored `messages` (DESIGN §5) as one command by `author`: synthetic results
    /// are inserted right after their calls with their own ids, misplaced results are moved,
    /// duplicates and (unless `keep_orphans`) orphans removed, content fixed in place. Nothing to
    /// repair → no command. The report's indices are positions before the repair.
    pub fn repair(&mut self, opts: &RepairOptions, author: &str, now_ms: u64) -> Result<Repaired> {
        self.repair_in(opts, author, now_ms, Mode::Commit).map(|(r, _)| r)
    }

    /// What [`Store::repair`] would do now — its report, the ids it would give its synthetic
    /// results, and the event it would log (none when nothing needs repair) — leaving the store
    /// exactly as it was: for a log written asynchronously, which persists the event and then
    /// [`Store::ingest`]s it (see [`Store::preview`]). `version` is the version the repair would
    /// reach. Errors: those of `repair`.
    pub fn preview_repair(&mut self, opts: &RepairOptions, author: &str, now_ms: u64) -> Result<RepairPreview> {
        let (mut repaired, events) = self.repair_in(opts, author, now_ms, Mode::Preview)?;
        repaired.version += events.len() as u64;
        Ok(RepairPreview { repaired, events })
    }

    fn repair_in(
        &mut self,
        opts: &RepairOptions,
        author: &str,
        now_ms: u64,
        mode: Mode,
    ) -> Result<(Repaired, Vec<Event>)> {
        self.writable()?;
        // Its author as a command's: never empty (`apply` refuses one; the repair logged it).
        super::pipeline::check_author(author)?;
        let i = self.index(channel::MESSAGES)?;
        self.authorise(author, i)?;
        let Some(Slot::Messages(channel)) = self.slots.get(i) else {
            return Err(Error::new(ErrorCode::InvalidOption, "channel 'messages' is not a messages channel"));
        };
        let list = channel.messages();
        let shapes = shapes_of_messages(list);
        check_pending_approvals(&shapes, opts)?;
        let (items, report) = plan(&shapes, opts);
        check_placeholders(&items, opts)?;
        if report.is_empty() {
            return Ok((Repaired { version: self.version, report, ids: Vec::new() }, Vec::new()));
        }
        // Target order; originals on the longest increasing run stay where they are, others move.
        let kept: Vec<usize> =
            items.iter().filter_map(|it| if let Item::Keep(k, _) = it { Some(*k) } else { None }).collect();
        let stay: HashSet<usize> = longest_increasing(&kept).into_iter().collect();
        let id_at = |k: usize| list.get(k).and_then(|m| m.id.clone()).unwrap_or_default();
        let mut ops: Vec<MessageOp> =
            (0..list.len()).filter(|k| !stay.contains(k)).map(|k| MessageOp::Remove { remove: id_at(k) }).collect();
        let mut synthetic: Vec<MessageOp> = items
            .iter()
            .filter(|it| matches!(it, Item::Synthetic { .. }))
            .filter_map(|it| materialize(it, list, opts))
            .map(|m| MessageOp::Put(Rc::new(m)))
            .collect();
        channel.assign_ids(&mut synthetic, &self.run_id, self.version + 1);
        let mut synthetic =
            synthetic.into_iter().filter_map(|op| if let MessageOp::Put(m) = op { Some(m) } else { None });
        let mut anchor: Option<String> = None;
        let mut new_ids = Vec::new();
        for item in &items {
            let (message, in_place) = match item {
                Item::Keep(k, fix) => {
                    let Some(m) = list.get(*k) else { continue };
                    let fixed =
                        if fix.is_none() { None } else { Some(Rc::new(crate::repair::apply_fix((**m).clone(), *fix))) };
                    if stay.contains(k) {
                        if let Some(f) = fixed {
                            ops.push(MessageOp::Replace { replace: f });
                        }
                        anchor = m.id.clone();
                        continue;
                    }
                    (fixed.unwrap_or_else(|| m.clone()), true)
                }
                Item::Synthetic { .. } => match synthetic.next() {
                    Some(m) => (m, false),
                    None => continue,
                },
            };
            let id = message.id.clone();
            if !in_place {
                new_ids.extend(id.clone());
            }
            let Some(after) = anchor.clone() else {
                return Err(Error::new(
                    ErrorCode::InvalidUpdate,
                    "internal: a repaired history cannot start with a moved message",
                ));
            };
            ops.push(MessageOp::InsertAfter { insert_after: after, message });
            anchor = id;
        }
        // Removed messages that are not re-inserted stay removed; a moved message's insert
        // cancels its removal.
        let cmd = Decoded {
            author: std::borrow::Cow::Borrowed(author),
            expected_version: None,
            writes: vec![(i, Write::Messages(ops))],
            correlation_id: None,
            causation_id: None,
            system: true,
            expect: Expect::New,
            at: None,
        };
        let ran = self.run_batch([cmd], now_ms, mode).map_err(|e| Error { command: None, ..e })?;
        Ok((Repaired { version: self.version, report, ids: new_ids }, ran.events))
    }
}

/// Positions of one longest strictly increasing subsequence of `xs` (patience sorting), returned
/// as the values themselves.
///
/// Indexing cannot fail: `tails` and `prev` only ever hold positions of `xs` (loop indices), and
/// `len ≤ tails.len()`.
fn longest_increasing(xs: &[usize]) -> Vec<usize> {
    let mut tails: Vec<usize> = Vec::new(); // index into xs of the smallest tail of each length
    let mut prev: Vec<Option<usize>> = vec![None; xs.len()];
    for (i, &x) in xs.iter().enumerate() {
        let len = tails.partition_point(|&t| xs[t] < x);
        prev[i] = if len > 0 { Some(tails[len - 1]) } else { None };
        if len == tails.len() {
            tails.push(i);
        } else {
            tails[len] = i;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut cur = tails.last().copied();
    while let Some(i) = cur {
        out.push(xs[i]);
        cur = prev[i];
    }
    out.reverse();
    out
}
