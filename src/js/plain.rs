//! A plain append read from the JS object itself (issue 17, row 2): the command
//! `{author, update: {messages: [{role, content}, …]}, expectedVersion?, correlationId?,
//! causationId?}` that [`PlainAppend`] reads from JSON text is read here without `JSON.stringify`
//! (a third of an append): a snippet checks the object is exactly that shape — plain objects and
//! an array, no `toJSON`, no other key, roles system / user / assistant, strings without lone
//! surrogates, a whole-number version — and writes its strings with `TextEncoder.encodeInto`
//! into a buffer of this module, with their lengths before them. Anything else (or anything it
//! cannot tell) is left to the JSON path, which reads the same object as before: the answer is
//! the same either way (tested against it in `tests/js/plain-append.test.mjs`), only the cost
//! differs.
//!
//! The buffer: at `ptr`, little-endian u32 words `[n, author bytes, correlationId bytes,
//! causationId bytes, version low, version high, flags]` (flags: 1 correlationId, 2 causationId,
//! 4 expectedVersion), then `n` pairs `[role, content bytes]` (role 0 system, 1 user, 2
//! assistant), then the strings' UTF-8 in that order: author, correlationId, causationId, each
//! content.

use super::interop::MAX_INPUT_CHARS;
use crate::message::Role;
use crate::state::PlainAppend;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = "
let memory = null, buffer = null, bytes = null, words = null;
const encoder = new TextEncoder();
const wellFormed = typeof String.prototype.isWellFormed === 'function';
const plain = (v) => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype && !('toJSON' in v);
const text = (v) => typeof v === 'string' && v.isWellFormed();
const roles = (r) => (r === 'user' ? 1 : r === 'assistant' ? 2 : r === 'system' ? 0 : -1);
export function stategate_plain_append(cmd, m, ptr, cap, max) {
  if (!wellFormed || !plain(cmd)) return -1;
  let author, update, corr, caus, version;
  for (const k in cmd) {
    const v = cmd[k];
    if (k === 'author') author = v;
    else if (k === 'update') update = v;
    else if (k === 'expectedVersion') version = v;
    else if (k === 'correlationId') corr = v;
    else if (k === 'causationId') caus = v;
    else return -1;
  }
  if (!text(author) || !plain(update)) return -1;
  if (corr !== undefined && !text(corr)) return -1;
  if (caus !== undefined && !text(caus)) return -1;
  if (version !== undefined && !(typeof version === 'number' && Number.isSafeInteger(version) && version >= 0)) return -1;
  let messages;
  for (const k in update) {
    if (k !== 'messages') return -1;
    messages = update[k];
  }
  if (!Array.isArray(messages) || Object.getPrototypeOf(messages) !== Array.prototype || 'toJSON' in messages) return -1;
  const n = messages.length;
  const parts = new Array(2 * n);
  let units = author.length + (corr === undefined ? 0 : corr.length) + (caus === undefined ? 0 : caus.length);
  for (let i = 0; i < n; i++) {
    const m = messages[i];
    if (!plain(m)) return -1;
    let role = -1, content, keys = 0;
    for (const k in m) {
      const v = m[k];
      keys++;
      if (k === 'role') role = typeof v === 'string' ? roles(v) : -1;
      else if (k === 'content') content = v;
      else return -1;
    }
    if (keys !== 2 || role < 0 || !text(content)) return -1;
    parts[2 * i] = role;
    parts[2 * i + 1] = content;
    units += content.length;
  }
  // The JSON text is at most 6 characters a unit (an escape) plus the keys around them: the JSON
  // path decides at the limit.
  if (6 * units + 64 * (n + 2) > max) return -1;
  const head = 4 * (7 + 2 * n);
  const need = head + 3 * units;
  if (need > cap) return -2 - need;
  // `m` is the calling instance's memory (two instances of the module share this snippet).
  if (m !== memory || buffer !== m.buffer) { memory = m; buffer = m.buffer; bytes = new Uint8Array(buffer); words = new DataView(buffer); }
  let at = ptr + head;
  const put = (s) => { const w = encoder.encodeInto(s, bytes.subarray(at, ptr + cap)).written; at += w; return w; };
  words.setUint32(ptr, n, true);
  words.setUint32(ptr + 4, put(author), true);
  words.setUint32(ptr + 8, corr === undefined ? 0 : put(corr), true);
  words.setUint32(ptr + 12, caus === undefined ? 0 : put(caus), true);
  words.setUint32(ptr + 16, version === undefined ? 0 : version % 4294967296, true);
  words.setUint32(ptr + 20, version === undefined ? 0 : Math.floor(version / 4294967296), true);
  words.setUint32(ptr + 24, (corr === undefined ? 0 : 1) | (caus === undefined ? 0 : 2) | (version === undefined ? 0 : 4), true);
  for (let i = 0; i < n; i++) {
    words.setUint32(ptr + 28 + 8 * i, parts[2 * i], true);
    words.setUint32(ptr + 32 + 8 * i, put(parts[2 * i + 1]), true);
  }
  return at - ptr;
}
")]
extern "C" {
    #[wasm_bindgen(catch)]
    fn stategate_plain_append(
        command: &JsValue,
        memory: &JsValue,
        ptr: u32,
        cap: u32,
        max: u32,
    ) -> Result<f64, JsValue>;
}

thread_local! {
    /// The buffer the snippet writes into (grown when a command needs more; never shrunk).
    static BUFFER: RefCell<Vec<u8>> = RefCell::new(vec![0; 4096]);
    /// This instance's memory, passed to the snippet with each command.
    static MEMORY: JsValue = wasm_bindgen::memory();
}

/// `command` as a plain append when it is exactly one (see the module's doc); `None` for
/// anything else, which the caller reads as JSON. Never fails: what this cannot read, the JSON
/// path reads (and refuses, where it must).
pub(super) fn plain_append(command: &JsValue) -> Option<PlainAppend> {
    // A getter of the command may call the store again: that call takes the JSON path.
    BUFFER.with(|b| {
        let mut buf = b.try_borrow_mut().ok()?;
        for _ in 0..2 {
            let cap = u32::try_from(buf.len()).ok()?;
            // A live buffer of `cap` bytes: the snippet writes within it before returning.
            // A command that throws as it is read (a revoked Proxy) is left to the JSON path, which
            // says so.
            let got = MEMORY
                .with(|memory| stategate_plain_append(command, memory, buf.as_mut_ptr() as u32, cap, MAX_INPUT_CHARS))
                .ok()?;
            if got >= 0.0 {
                return read(buf.get(..got as usize)?);
            }
            if got > -2.0 {
                return None;
            }
            let need = usize::try_from((-got - 2.0) as u64).ok()?;
            let more = need.saturating_sub(buf.len());
            buf.try_reserve_exact(more).ok()?;
            buf.resize(need, 0);
        }
        None
    })
}

/// The command the snippet wrote into `buf`; `None` when it does not read (it always does).
fn read(buf: &[u8]) -> Option<PlainAppend> {
    let word = |i: usize| -> Option<u32> { buf.get(4 * i..4 * i + 4)?.try_into().ok().map(u32::from_le_bytes) };
    let n = word(0)? as usize;
    let flags = word(6)?;
    let mut at = n.checked_mul(2)?.checked_add(7)?.checked_mul(4)?;
    if at > buf.len() {
        return None;
    }
    let mut take = |len: u32| -> Option<String> {
        let end = at.checked_add(len as usize)?;
        let s = std::str::from_utf8(buf.get(at..end)?).ok()?.to_string();
        at = end;
        Some(s)
    };
    let author = take(word(1)?)?;
    let correlation_id = if flags & 1 != 0 { Some(take(word(2)?)?) } else { None };
    let causation_id = if flags & 2 != 0 { Some(take(word(3)?)?) } else { None };
    let expected_version = if flags & 4 != 0 { Some(u64::from(word(5)?) << 32 | u64::from(word(4)?)) } else { None };
    let mut messages = Vec::with_capacity(n);
    for i in 0..n {
        let role = match word(7 + 2 * i)? {
            0 => Role::System,
            1 => Role::User,
            2 => Role::Assistant,
            _ => return None,
        };
        messages.push((role, take(word(8 + 2 * i)?)?));
    }
    Some(PlainAppend::new(author, expected_version, messages, correlation_id, causation_id))
}
