//! The store's write-ahead sink: where every change's events go before the change is kept, and
//! whether a change is kept at all (a dry run is checked, then rolled back); and its entropy
//! source, which salts private writes.

use super::events::Events;
use crate::error::Result;

/// The write-ahead sink of a store: receives the events of every change (a command, a batch, a
/// repair, a compaction, artifacts, delivered notifications — everything that gets an event)
/// before the change is kept; an error rolls the whole change back. The store owns it
/// ([`Store::set_sink`](super::Store::set_sink)), so no mutation can skip it: every change goes through one pipeline
/// (`run_batch`) that hands its events here.
pub trait EventSink {
    /// Persists `events` (sealed, in order) or fails; failing refuses the change.
    fn write(&self, events: &Events<'_>) -> Result<()>;
}

/// The store's sink, shared by clones (a past view never writes, so sharing is harmless).
#[derive(Clone, Default)]
pub(super) struct SinkSlot(pub(super) Option<std::rc::Rc<dyn EventSink>>);

impl std::fmt::Debug for SinkSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "SinkSlot(set)" } else { "SinkSlot(none)" })
    }
}

/// Where a store takes the random salts of its private writes ([`crate::log::Event::salted`]):
/// the platform's cryptographic generator (in JS, `crypto.getRandomValues`).
pub trait Entropy {
    /// 16 random bytes as 32 lowercase hex digits, or an error (the write is then refused).
    fn salt(&self) -> Result<String>;
}

/// Salts from a counter, for the crate's tests (distinct, not random).
#[cfg(test)]
pub(crate) fn test_salts() -> std::rc::Rc<dyn Entropy> {
    struct Counter(std::cell::Cell<u64>);
    impl Entropy for Counter {
        fn salt(&self) -> Result<String> {
            self.0.set(self.0.get() + 1);
            Ok(format!("{:032x}", self.0.get().wrapping_mul(0x9e37_79b9_7f4a_7c15)))
        }
    }
    std::rc::Rc::new(Counter(std::cell::Cell::new(0)))
}

/// The store's entropy source, shared by clones.
#[derive(Clone, Default)]
pub(super) struct EntropySlot(pub(super) Option<std::rc::Rc<dyn Entropy>>);

impl std::fmt::Debug for EntropySlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "EntropySlot(set)" } else { "EntropySlot(none)" })
    }
}

/// Whether a change is kept or only checked.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Kept: the events go to the sink, then the change stays (or is rolled back if it fails).
    Commit,
    /// Checked: the whole pipeline runs, then everything is rolled back ([`Store::check`](super::Store::check)).
    DryRun,
    /// Like `DryRun`, but the events are sealed and handed back first ([`Store::preview`](super::Store::preview)).
    Preview,
    /// Logged events applied again, each its own superstep at its own time: kept without the
    /// sink (they are logged already) and allowed on a follower ([`Store::ingest`](super::Store::ingest)).
    Ingest,
}
