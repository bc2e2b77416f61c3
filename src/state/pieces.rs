//! A JSON Lines log replayed as it is read, a piece at a time: the whole text is never held
//! (in wasm, a 57 MiB log was copied whole into the module's memory before its first line was
//! read: 67 MB of pages written once, and its peak memory; issue 17).

use super::command::StoreOptions;
use super::schema::channel;
use super::store::{Slot, Store};
use crate::error::{Error, ErrorCode, Result};
use crate::log::JsonlLine;

impl Store {
    /// [`Store::replay_jsonl`] of a log read a piece at a time: `next` appends the next bytes of
    /// the log's UTF-8 text to the buffer it is given and returns `true`, or returns `false` at
    /// the end. A piece may end anywhere, inside a line or a character: the lines it completes
    /// are applied, the rest waits for the next piece. `size`: the log's length in bytes if known
    /// (else 0), to make room for its messages at once. The same store, or the same error, as
    /// `replay_jsonl` of the whole text; also `INVALID_JSON` for text that is not UTF-8, and any
    /// error `next` returns.
    pub fn replay_jsonl_pieces(
        opts: StoreOptions,
        size: usize,
        mut next: impl FnMut(&mut Vec<u8>) -> Result<bool>,
    ) -> Result<Store> {
        let mut r = Replaying { opts: Some(opts), store: None, index: 0, number: 0, read: 0, size, text: false };
        let mut buf = Vec::new();
        while next(&mut buf)? {
            // The lines completed so far: up to the last line feed.
            let Some(end) = buf.iter().rposition(|&b| b == b'\n') else { continue };
            r.lines(utf8(buf.get(..=end).unwrap_or_default())?)?;
            buf.drain(..=end);
        }
        r.lines(utf8(&buf)?)?;
        match (r.store, r.opts) {
            (Some(s), _) => Ok(s),
            (None, Some(opts)) => Store::for_replay(opts, None),
            (None, None) => Err(Error::new(ErrorCode::InvalidOption, "internal: the options were used")),
        }
    }
}

fn utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes)
        .map_err(|e| Error::new(ErrorCode::InvalidJson, format!("the log's text is not UTF-8: {e}")))
}

/// A replay part way through its log.
struct Replaying {
    /// Until the store is made (at the first event).
    opts: Option<StoreOptions>,
    store: Option<Store>,
    /// Events (non-blank lines) and lines applied so far.
    index: usize,
    number: usize,
    /// Bytes read so far, of `size`.
    read: usize,
    size: usize,
    /// Whether text other than white space came yet (a log starting with `[` is refused).
    text: bool,
}

impl Replaying {
    /// Applies the lines of `text`: whole lines (each ending with a line feed), or the log's last.
    fn lines(&mut self, text: &str) -> Result<()> {
        if !self.text && !text.trim_start().is_empty() {
            crate::log::not_an_array(text)?;
            self.text = true;
        }
        self.read += text.len();
        let mut lines = 0;
        for (n, line) in text.lines().enumerate() {
            lines = n + 1;
            if line.trim().is_empty() {
                continue;
            }
            let line = JsonlLine { index: self.index, number: self.number + n + 1, text: line };
            self.index += 1;
            if let Some(opts) = self.opts.take() {
                self.store = Some(first_store(opts, &line, text, self.read, self.size)?);
            }
            let Some(store) = &mut self.store else {
                return Err(Error::new(ErrorCode::InvalidOption, "internal: the options were used"));
            };
            store.apply_line(&line)?;
        }
        self.number += lines;
        Ok(())
    }
}

/// The store a log is replayed into, made at its first event (`line`, in `text`, the log's first
/// `read` of `size` bytes): its run id the event's unless `opts` gives one, with room for a
/// message a line (most events write one) — the lines of the whole log, as dense as in `text`.
fn first_store(opts: StoreOptions, line: &JsonlLine<'_>, text: &str, read: usize, size: usize) -> Result<Store> {
    let run = crate::log::event_of_line(line).ok().map(|e| e.run_id);
    let mut s = Store::for_replay(opts, run.as_deref())?;
    let lines = crate::log::scan::count_lines(text);
    // (An event's line is over 200 bytes: its two hashes alone are 128.)
    let expected = match size > read && read > 0 {
        true => (lines as u128 * size as u128 / read as u128).min((size / 200) as u128) as usize,
        false => lines,
    };
    if let Some(Slot::Messages(m)) = s.index(channel::MESSAGES).ok().and_then(|i| s.slots_mut().get_mut(i)) {
        m.reserve(expected.max(lines));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Command;
    use serde_json::{json, Value};

    /// A log of `n` events: a user message (with text of several bytes a character), a call and
    /// its result, in turn.
    fn log(n: usize) -> String {
        let mut s = Store::new(StoreOptions { run_id: Some("pieces".into()), ..Default::default() }).unwrap();
        for i in 0..n {
            let m = match i % 3 {
                0 => json!({"role": "user", "content": format!("ünïcödé 🎈 {i}")}),
                1 => {
                    json!({"role": "assistant", "content": "", "tool_calls": [{"id": format!("c{i}"), "name": "f", "args": {}}]})
                }
                _ => json!({"role": "tool", "tool_call_id": format!("c{}", i - 1), "content": "done"}),
            };
            let cmd: Command = serde_json::from_value(json!({"author": "a", "update": {"messages": [m]}})).unwrap();
            s.apply(&cmd, 1_000 + i as u64).unwrap();
        }
        s.events().iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect()
    }

    /// The store (its state and last hash), or the error (code, index, message).
    fn answer(r: Result<Store>) -> std::result::Result<(Value, String), (ErrorCode, Option<usize>, String)> {
        r.map(|mut s| (Value::Object(s.system_view()), s.last_hash())).map_err(|e| (e.code, e.index, e.message))
    }

    /// `text` replayed in pieces cut at `cuts` (byte offsets, any order, inside characters too).
    fn in_pieces(text: &str, cuts: &[usize]) -> Result<Store> {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (text.len() + 1)).collect();
        cuts.sort_unstable();
        cuts.push(text.len());
        let mut at = 0;
        let mut cuts = cuts.into_iter();
        Store::replay_jsonl_pieces(StoreOptions::default(), text.len(), |buf| {
            let Some(end) = cuts.next() else { return Ok(false) };
            buf.extend_from_slice(text.as_bytes().get(at..end).unwrap_or_default());
            at = end;
            Ok(true)
        })
    }

    #[test]
    fn pieces_give_the_whole_texts_store_and_errors() {
        let text = log(7);
        let whole = answer(Store::replay_jsonl(StoreOptions::default(), &text));
        assert!(whole.as_ref().is_ok_and(|(_, hash)| hash.len() == 64), "{whole:?}");
        assert_eq!(answer(in_pieces(&text, &[])), whole);
        // A piece a byte: every line and character split.
        let every: Vec<usize> = (0..text.len()).collect();
        assert_eq!(answer(in_pieces(&text, &every)), whole);
        // Blank lines, CRLF, a line that is not an event (named by its line number), a log
        // that is a JSON array, a log without events, text that is not UTF-8.
        let spaced = format!("\n\r\n{}", text.replacen('\n', "\r\n\n", 2));
        let torn = format!("{}{{\"event_id\": 1}}\n{}", &text[..text.find('\n').unwrap() + 1], &text);
        for bad in [spaced, torn, format!("  [{text}]"), "\n \n".to_string(), String::new()] {
            let whole = answer(Store::replay_jsonl(StoreOptions::default(), &bad));
            assert_eq!(answer(in_pieces(&bad, &(0..bad.len()).step_by(3).collect::<Vec<_>>())), whole, "{bad:?}");
        }
        let torn = format!("\n{}{{\"event_id\": 1}}\n", &text[..text.find('\n').unwrap() + 1]);
        let (code, index, message) = answer(in_pieces(&torn, &[5, 40])).unwrap_err();
        assert_eq!((code, index), (ErrorCode::TamperedLog, Some(1)));
        assert!(message.starts_with("line 3 of the log (event 1)"), "{message}");
        // A character cut in two: read whole.
        let balloon = "\u{1F388}\n";
        assert_eq!(
            answer(in_pieces(balloon, &[1, 2, 3])),
            answer(Store::replay_jsonl(StoreOptions::default(), balloon))
        );
        let mut calls = 0;
        let e = Store::replay_jsonl_pieces(StoreOptions::default(), 0, |buf| {
            calls += 1;
            buf.extend_from_slice(b"\xff\n");
            Ok(calls == 1)
        })
        .err()
        .unwrap();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        let e =
            Store::replay_jsonl_pieces(StoreOptions::default(), 0, |_| Err(Error::new(ErrorCode::TooLarge, "no room")))
                .err()
                .unwrap();
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::TooLarge, "no room"));
    }

    // proptest is a native dev-dependency only (the wasm32 test build has no proptest).
    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn any_cuts_give_the_whole_texts_answer(cuts in proptest::collection::vec(proptest::prelude::any::<usize>(), 0..12), drop in proptest::prelude::any::<usize>()) {
            let text = log(6);
            proptest::prop_assert_eq!(answer(in_pieces(&text, &cuts)), answer(Store::replay_jsonl(StoreOptions::default(), &text)));
            // A byte removed anywhere: the same error (or store) either way.
            let mut bytes = text.into_bytes();
            bytes.remove(drop % bytes.len());
            if let Ok(bad) = String::from_utf8(bytes) {
                proptest::prop_assert_eq!(answer(in_pieces(&bad, &cuts)), answer(Store::replay_jsonl(StoreOptions::default(), &bad)));
            }
        }
    }
}
