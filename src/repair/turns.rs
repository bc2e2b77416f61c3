//! The turn structure of a history, as validation and repair read it: each assistant turn (one
//! assistant message, or a run of assistant items of one turn: [`same_turn`]) and its result
//! block, the tool results right after it. Both are ranges of positions, found in one pass.

use super::shape::Shape;
use crate::message::formats::same_turn;
use crate::message::Role;
use std::ops::Range;

/// One assistant turn and its result block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TurnSpan {
    /// The turn's messages (all assistant messages; the first is the turn's leader).
    pub turn: Range<usize>,
    /// The tool results right after the turn, up to the next message of another role.
    pub block: Range<usize>,
}

/// The assistant turns of a history, in order, each with its result block.
pub(crate) fn turn_spans(shapes: &[Shape]) -> Vec<TurnSpan> {
    let role_at = |i: usize| shapes.get(i).map(|s| s.role);
    let mut out = Vec::with_capacity(shapes.iter().filter(|s| s.role == Role::Assistant).count());
    let mut i = 0;
    while i < shapes.len() {
        if role_at(i) != Some(Role::Assistant) {
            i += 1;
            continue;
        }
        let mut end = i + 1;
        while let (Some(p), Some(s)) = (shapes.get(end - 1), shapes.get(end)) {
            if !same_turn((p.role, Some(p.format)), (s.role, Some(s.format))) {
                break;
            }
            end += 1;
        }
        let mut block_end = end;
        while role_at(block_end) == Some(Role::Tool) {
            block_end += 1;
        }
        out.push(TurnSpan { turn: i..end, block: end..block_end });
        i = block_end;
    }
    out
}
