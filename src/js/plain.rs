//! A plain append read from the JS object itself (issue 17, row 2): the command
//! `{author, update: {messages: [{role, content}, …]}, expectedVersion?, correlationId?,
//! causationId?}` that [`PlainAppend`] reads from JSON text is read here without `JSON.stringify`
//! (a third of an append): a snippet reads the object with the reads `JSON.stringify` makes, in
//! its order (`toJSON` first, then each own enumerable key, depth first), checks it is exactly
//! that shape — objects and an array without `toJSON`, no other key, roles system / user /
//! assistant, strings without lone surrogates, a whole-number version — and writes its strings
//! with `TextEncoder.encodeInto` into a buffer of this module, with their lengths before them.
//! Anything else is left to the JSON path, which reads the same object as before: the answer is
//! the same either way (tested against it in `tests/js/plain-append.test.mjs`), only the cost
//! differs. What a read throws is thrown as the JSON path throws it. One difference is left: a
//! command this declines after reading part of it is read again by `JSON.stringify`, so a getter
//! or Proxy trap in it runs twice (docs/store.md).
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
// A command read whose buffer was too small, for the call that follows with a larger one.
let pending = null;
const encoder = new TextEncoder();
const wellFormed = typeof String.prototype.isWellFormed === 'function';
// What JSON.stringify reads of an object before its keys: its toJSON, then whether it is an array.
const object = (v) => typeof v === 'object' && v !== null && typeof v.toJSON !== 'function' && !Array.isArray(v);
const list = (v) => typeof v === 'object' && v !== null && typeof v.toJSON !== 'function' && Array.isArray(v);
const text = (v) => typeof v === 'string' && v.isWellFormed();
const roles = (r) => (r === 'user' ? 1 : r === 'assistant' ? 2 : r === 'system' ? 0 : -1);
// The command's parts, read with the reads JSON.stringify makes, in its order (each own
// enumerable key in turn, depth first); null when it is not a plain append. What throws here
// would throw in JSON.stringify at the same read.
function read(cmd, max) {
  if (!object(cmd)) return null;
  const r = { author: undefined, corr: undefined, caus: undefined, version: undefined, parts: null, units: 0 };
  for (const k of Object.keys(cmd)) {
    const v = cmd[k];
    if (k === 'author') {
      if (!text(v)) return null;
      r.author = v;
    } else if (k === 'update') {
      if (!update(v, r, max)) return null;
    } else if (k === 'expectedVersion') {
      if (v !== undefined && !(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) return null;
      r.version = v;
    } else if (k === 'correlationId' || k === 'causationId') {
      if (v !== undefined && !text(v)) return null;
      if (k === 'correlationId') r.corr = v;
      else r.caus = v;
    } else return null;
  }
  return r.author === undefined || r.parts === null ? null : r;
}
function update(u, r, max) {
  if (!object(u)) return false;
  const keys = Object.keys(u);
  if (keys.length !== 1 || keys[0] !== 'messages') return false;
  const messages = u.messages;
  if (!list(messages)) return false;
  const n = messages.length;
  if (!Number.isSafeInteger(n) || n < 0 || n > max / 32) return false;
  const parts = new Array(2 * n);
  for (let i = 0; i < n; i++) {
    const m = messages[i];
    if (!object(m)) return false;
    const mk = Object.keys(m);
    if (mk.length !== 2) return false;
    // Each value checked as it is read: JSON.stringify writes it whole before it reads the next.
    let role = -1, content;
    for (const k of mk) {
      const v = m[k];
      if (k === 'role') {
        role = roles(v);
        if (role < 0) return false;
      } else if (k === 'content') {
        if (!text(v)) return false;
        content = v;
      } else return false;
    }
    if (role < 0 || content === undefined) return false;
    parts[2 * i] = role;
    parts[2 * i + 1] = content;
    r.units += content.length;
  }
  r.parts = parts;
  return true;
}
export function stategate_plain_append(cmd, m, ptr, cap, max, retry) {
  const r = retry && pending !== null && pending.cmd === cmd ? pending.r : wellFormed ? read(cmd, max) : null;
  pending = null;
  if (r === null) return -1;
  const n = r.parts.length / 2;
  const { author, corr, caus, version } = r;
  const units = r.units + author.length + (corr === undefined ? 0 : corr.length) + (caus === undefined ? 0 : caus.length);
  // The JSON text is at most 6 characters a unit (an escape) plus the keys around them: the JSON
  // path decides at the limit.
  if (6 * units + 64 * (n + 2) > max) return -1;
  const head = 4 * (7 + 2 * n);
  const need = head + 3 * units;
  if (need > cap) {
    pending = { cmd, r };
    return -2 - need;
  }
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
    words.setUint32(ptr + 28 + 8 * i, r.parts[2 * i], true);
    words.setUint32(ptr + 32 + 8 * i, put(r.parts[2 * i + 1]), true);
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
        retry: bool,
    ) -> Result<f64, JsValue>;
}

thread_local! {
    /// The buffer the snippet writes into (grown when a command needs more; never shrunk).
    static BUFFER: RefCell<Vec<u8>> = RefCell::new(vec![0; 4096]);
}

/// `command` as a plain append when it is exactly one (see the module's doc); `None` for
/// anything else, which the caller reads as JSON (and refuses, where it must). Errors: what
/// reading the command threw (a getter, a Proxy trap), which `JSON.stringify` would have thrown
/// at the same read: the caller reports it as the JSON path does.
pub(super) fn plain_append(command: &JsValue) -> Result<Option<PlainAppend>, JsValue> {
    BUFFER.with(|b| {
        // A getter of the command may call the store again: that call takes the JSON path.
        let Ok(mut buf) = b.try_borrow_mut() else { return Ok(None) };
        // The second call, with the room the first asked for, takes what the first read.
        for retry in [false, true] {
            let Ok(cap) = u32::try_from(buf.len()) else { return Ok(None) };
            // A live buffer of `cap` bytes: the snippet writes within it before returning.
            let got = super::interop::with_memory(|memory| {
                stategate_plain_append(command, memory, buf.as_mut_ptr() as u32, cap, MAX_INPUT_CHARS, retry)
            })?;
            if got >= 0.0 {
                return Ok(buf.get(..got as usize).and_then(read));
            }
            let Some(need) = (got <= -2.0).then(|| (-got - 2.0) as usize) else { return Ok(None) };
            let more = need.saturating_sub(buf.len());
            if buf.try_reserve_exact(more).is_err() {
                return Ok(None);
            }
            buf.resize(need, 0);
        }
        Ok(None)
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
