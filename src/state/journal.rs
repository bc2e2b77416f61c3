//! The journal of a batch: what to restore if any command of it fails, so a failed batch
//! leaves the store exactly as it was.

use super::domain::{set_used, COUNTERS};
use super::store::Slot;
use serde_json::Value;

/// The channels touched by a batch, with the values to restore on failure. The budget's
/// counters are restored first, then whole JSON values (which win when both were recorded).
pub(super) struct Journal {
    pub(super) version: u64,
    pub(super) log_len: usize,
    pub(super) json: Vec<(usize, Value)>,
    pub(super) messages: Vec<usize>,
    pub(super) counters: Option<(usize, [u64; 3])>,
    /// `call_events` entries replaced, with their old values.
    pub(super) call_events: Vec<(std::rc::Rc<str>, Option<u64>)>,
    /// How many logged events applied again had their hash recomputed.
    pub(super) hashed: usize,
}

impl Journal {
    /// Records channel `i`'s value before its first change in this batch.
    pub(super) fn touch(&mut self, i: usize, slots: &mut [Slot]) {
        match slots.get_mut(i) {
            Some(Slot::Json(v)) if !self.json.iter().any(|(j, _)| *j == i) => {
                let mut before = v.clone();
                // The budget's counters may have moved already in this batch (an earlier
                // command's messages were counted): the snapshot, which wins on rollback, takes
                // their values from before the batch.
                if let (Some((bi, counters)), Value::Object(budget)) = (self.counters, &mut before) {
                    if bi == i {
                        for ((name, _), n) in COUNTERS.iter().zip(counters) {
                            set_used(budget, name, n);
                        }
                    }
                }
                self.json.push((i, before));
            }
            Some(Slot::Messages(m)) if !self.messages.contains(&i) => {
                m.begin();
                self.messages.push(i);
            }
            _ => {}
        }
    }
}
