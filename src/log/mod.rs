//! The event log (DESIGN §4): one event per applied command, chained by SHA-256.
//!
//! Every applied command appends exactly one [`Event`] whose payload is the update as it was
//! reduced (message ids already assigned), so a replay yields the same state and the same ids.
//! `hash` is the SHA-256 — or, for a store given a `chainKey`, the HMAC-SHA-256 ([`Chain`]) — of
//! the canonical encoding ([`canonical`]) of every other field, `prev_hash` included, so changing, dropping, inserting or reordering an event breaks the chain
//! at that event ([`verify_log`]). Rejected commands leave no event.

pub mod canonical;
mod chain;
mod checkpoint;
mod event;
pub(crate) mod held;
pub(crate) mod line;
pub(crate) mod scan;
pub mod sha256;

pub use chain::{Chain, MIN_CHAIN_KEY_BYTES};
pub use checkpoint::{Checkpoint, Snapshot, CHECKPOINT_FORMAT, CHECKPOINT_FORMAT_VERSION, EXPORT_FORMAT};
pub(crate) use event::same_event;
pub use event::{commitment, Event, EventType, SideMap};

use crate::error::{Error, ErrorCode, Result};
use serde::Serialize;

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// `prev_hash` of the first event of a run: 64 zeros.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What is wrong at a broken link of a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(rename_all = "snake_case")]
pub enum BreakReason {
    /// The event's content does not match its hash (it was changed).
    Hash,
    /// It does not link to the event before it (the chain is cut).
    PrevHash,
    /// An event is missing, repeated or out of order before it.
    Sequence,
    /// Another run than the log's first event.
    RunId,
    /// An `event_id` that is not `{run_id}:{sequence}`.
    EventId,
    /// A salt for a channel the event does not write: a salt is covered by the hash only through
    /// the write it seals, so one beside no write would go unchecked.
    Salted,
    /// The entry is not an event at all.
    Unreadable,
    /// The event was prepared for transport (private writes removed): only a follower reads it.
    Redacted,
}

impl BreakReason {
    /// The name used in JS and in `details.field` (`"prev_hash"`).
    pub fn as_str(self) -> &'static str {
        match self {
            BreakReason::Hash => "hash",
            BreakReason::PrevHash => "prev_hash",
            BreakReason::Sequence => "sequence",
            BreakReason::RunId => "run_id",
            BreakReason::EventId => "event_id",
            BreakReason::Salted => "salted",
            BreakReason::Unreadable => "unreadable",
            BreakReason::Redacted => "redacted",
        }
    }
}

/// A break in a log found by [`verify_log`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct BrokenLink {
    /// Position of the first bad entry in the list given.
    pub index: usize,
    /// Its `sequence` as written (`null` for an entry that is not an event).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    pub sequence: Option<u64>,
    /// What is wrong.
    pub reason: BreakReason,
}

/// What `verifyLog` answers: `{ok: true}`, or `{ok: false, index, sequence, reason}` for the
/// first broken link.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
#[serde(untagged)]
pub enum LogCheck {
    /// Every link holds.
    Intact {
        /// Always `true`.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "true"))]
        ok: bool,
    },
    /// The first broken link.
    Broken {
        /// Always `false`.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "false"))]
        ok: bool,
        /// Where and why.
        #[serde(flatten)]
        link: BrokenLink,
    },
}

/// Checks a log as it was read (see [`parse_jsonl`]): an entry that is not an event is a broken
/// link (`unreadable`), any other failure to read stays an error; then [`verify_log`] under
/// `chain` (a writer's log: a redacted event is a broken link).
pub fn check_log(read: Result<Vec<Event>>, anchor: (u64, &str), chain: &Chain) -> Result<LogCheck> {
    let broken = |link| LogCheck::Broken { ok: false, link };
    match read {
        Err(e) if e.code == ErrorCode::TamperedLog && e.index.is_some() => Ok(broken(BrokenLink {
            index: e.index.unwrap_or_default(),
            sequence: None,
            reason: BreakReason::Unreadable,
        })),
        Err(e) => Err(e),
        Ok(events) => Ok(match verify_log(&events, anchor, chain, false) {
            Ok(_) => LogCheck::Intact { ok: true },
            Err(link) => broken(link),
        }),
    }
}

/// Checks a log's chain: each event links to the previous one and follows it in sequence, the
/// first following `anchor` (`(sequence, hash)` of the event before it, `(0, GENESIS_HASH)` for a
/// whole log), and its hash matches its content under `chain`. A `follower` accepts events
/// redacted for transport, hashing each private write through its commitment (one without a
/// commitment, like everything on a [`Chain::Opaque`] chain, is checked by its links only);
/// anyone else refuses them (`redacted`). Returns how many hashes were recomputed, or the first
/// broken link.
pub fn verify_log(
    events: &[Event],
    anchor: (u64, &str),
    chain: &Chain,
    follower: bool,
) -> std::result::Result<usize, BrokenLink> {
    let mut links = Links::new(anchor, events);
    let mut hashed = 0;
    for (index, e) in events.iter().enumerate() {
        links.check(index, e, follower)?;
        // A redacted write is hashed through its commitment; one without a commitment (written
        // before salts) cannot be, and neither can anything on an opaque chain: links only.
        match e.compute_hash(chain) {
            Some(h) if h == e.hash => hashed += 1,
            Some(_) => return Err(BrokenLink { index, sequence: Some(e.sequence), reason: BreakReason::Hash }),
            None => {}
        }
    }
    Ok(hashed)
}

/// [`verify_log`] without the hashes: every link of `events` (run, `event_id`, salts, sequence,
/// `prev_hash`, and `redacted` only for a `follower`), or the first broken one. For events a
/// store applies again, which hashes each one as it makes it.
pub(crate) fn check_links(
    events: &[Event],
    anchor: (u64, &str),
    follower: bool,
) -> std::result::Result<(), BrokenLink> {
    let mut links = Links::new(anchor, events);
    events.iter().enumerate().try_for_each(|(index, e)| links.check(index, e, follower))
}

/// The links of a log as they are walked: where the last event stood.
struct Links<'a> {
    sequence: u64,
    prev: &'a str,
    run_id: &'a str,
}

impl<'a> Links<'a> {
    fn new(anchor: (u64, &'a str), events: &'a [Event]) -> Links<'a> {
        Links { sequence: anchor.0, prev: anchor.1, run_id: events.first().map_or("", |e| e.run_id.as_str()) }
    }

    /// Checks that `e`, at `index`, follows the event before it; then it is the last.
    fn check(&mut self, index: usize, e: &'a Event, follower: bool) -> std::result::Result<(), BrokenLink> {
        let broken = |reason| BrokenLink { index, sequence: Some(e.sequence), reason };
        if e.run_id != self.run_id {
            return Err(broken(BreakReason::RunId));
        }
        if !is_event_id(&e.event_id, &e.run_id, e.sequence) {
            return Err(broken(BreakReason::EventId));
        }
        if e.salted.keys().any(|c| !e.payload.contains_key(c)) {
            return Err(broken(BreakReason::Salted));
        }
        if e.sequence != self.sequence + 1 {
            return Err(broken(BreakReason::Sequence));
        }
        if e.prev_hash != self.prev {
            return Err(broken(BreakReason::PrevHash));
        }
        if !e.redacted.is_empty() && !follower {
            return Err(broken(BreakReason::Redacted));
        }
        self.sequence = e.sequence;
        self.prev = &e.hash;
        Ok(())
    }
}

/// Whether `id` is `{run_id}:{sequence}`.
pub(crate) fn is_event_id(id: &str, run_id: &str, sequence: u64) -> bool {
    id.strip_prefix(run_id).and_then(|rest| rest.strip_prefix(':')).is_some_and(|n| {
        n.parse::<u64>().ok() == Some(sequence) && !n.starts_with('+') && (n == "0" || !n.starts_with('0'))
    })
}

impl BrokenLink {
    /// As a `TAMPERED_LOG` error naming the event.
    pub fn into_error(self) -> Error {
        let what = match self.reason {
            BreakReason::Hash => {
                "its content does not match its hash (a log written with a chainKey verifies only with that key, and one written without only without)"
            }
            BreakReason::PrevHash => "it does not link to the event before it",
            BreakReason::Sequence => "an event is missing, repeated or out of order before it",
            BreakReason::RunId => "it belongs to another run",
            BreakReason::EventId => "its event_id is not {run_id}:{sequence}",
            BreakReason::Salted => {
                "it carries a salt for a channel it does not write (a salt is covered by the hash only through the write it seals)"
            }
            BreakReason::Unreadable => "it is not an event",
            BreakReason::Redacted => {
                "it was prepared for transport (private writes removed): only a follower (StateStore.follow) reads it; rebuild a store from its full log"
            }
        };
        let sequence = self.sequence.map_or_else(|| "unknown".to_string(), |s| s.to_string());
        Error::new(ErrorCode::TamperedLog, format!("event {} (sequence {sequence}) breaks the log: {what}", self.index))
            .at(self.index)
            .field(self.reason.as_str())
    }
}

/// Parses a log given as JSON Lines (one event per line; blank lines ignored).
/// Errors: those of [`jsonl_lines`] and [`event_of_line`].
pub fn parse_jsonl(text: &str) -> Result<Vec<Event>> {
    jsonl_events(text)?.collect()
}

/// The events of a log given as JSON Lines, parsed one at a time as they are taken (blank lines
/// ignored). Errors: those of [`jsonl_lines`] at once, then of [`event_of_line`] per line.
pub fn jsonl_events(text: &str) -> Result<impl Iterator<Item = Result<Event>> + '_> {
    Ok(jsonl_lines(text)?.map(|line| event_of_line(&line)))
}

/// One non-blank line of a JSON Lines log.
#[derive(Debug, Clone, Copy)]
pub struct JsonlLine<'t> {
    /// Its position among the log's events (its non-blank lines), 0-based: `details.index`.
    pub index: usize,
    /// Its line number in the text, 1-based (blank lines counted), as an editor shows it.
    pub number: usize,
    /// The line.
    pub text: &'t str,
}

/// The non-blank lines of a log given as JSON Lines, each with its event index and line number.
/// Errors: `INVALID_JSON` for a JSON array (text starting with `[`: a format mistake, no line of
/// a log is an array).
pub fn jsonl_lines(text: &str) -> Result<impl Iterator<Item = JsonlLine<'_>> + '_> {
    not_an_array(text)?;
    Ok(text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).enumerate().map(|(index, (n, text))| JsonlLine {
        index,
        number: n + 1,
        text,
    }))
}

/// `INVALID_JSON` for a log's text that starts (after white space) with `[`: a JSON array.
pub(crate) fn not_an_array(text: &str) -> Result<()> {
    if text.trim_start().starts_with('[') {
        return Err(Error::new(
            ErrorCode::InvalidJson,
            "the log's text starts with `[`, as a JSON array does; a log given as text is JSON Lines, one event object per line (as `eventsJsonl()` writes it): pass the array itself, or its events one per line",
        ));
    }
    Ok(())
}

/// The event one line of a JSON Lines log holds. Errors: `TAMPERED_LOG` naming the line (its
/// number in the text) with `details.index` its event index, when it is not an event.
pub fn event_of_line(line: &JsonlLine<'_>) -> Result<Event> {
    serde_json::from_str::<Event>(line.text).map_err(|e| {
        Error::new(
            ErrorCode::TamperedLog,
            format!("line {} of the log (event {}) is not an event: {e}", line.number, line.index),
        )
        .at(line.index)
    })
}
