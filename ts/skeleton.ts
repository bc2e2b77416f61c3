/**
 * The skeleton of a message history, built in one pass over the caller's objects: per message
 * only what validation and repair read (format, role, tool call ids and names, the id a result
 * answers, emptiness). The core plans from it without decoding a message, and repair hands back
 * the caller's own objects by index (BOUNDARY.md). The layout is `src/repair/skeleton.rs`'s.
 *
 * It reads only what is certain — LangChain dicts (`type: "human" | "ai" | "tool" | "system"`) and
 * OpenAI Chat messages (`role`) with string, null or absent content, and no key another format
 * claims — and gives `undefined` for anything else, so that input takes the full path (the core's
 * one detection and decoding, through `JSON.stringify`), which gives every answer and every error.
 * So it may never accept what the full path refuses: every value it does not read is checked to
 * be one `JSON.stringify` writes as it is (plain objects and arrays, strings, finite numbers,
 * booleans, null, nesting well under the core's 128 levels), the whole is kept under the size
 * limit (a bound from the lengths, else the JSON's own length), and whatever throws (a getter, a
 * Proxy trap, a revoked Proxy) ends the attempt.
 */

/**
 * The builder's answer: the words of the layout, and the strings it names as one UTF-8 text.
 * Both are views of buffers the next build reuses: pass them on (into the core, which copies
 * them) before building another.
 */
export interface Skeleton {
  meta: Uint32Array;
  text: Uint8Array;
}

/** Deeper values take the full path (serde_json reads 128 levels; counted from the array). */
const MAX_DEPTH = 100;
/**
 * What the builder must agree on with the core, read from it (`skeletonLayout()`,
 * src/js/skeleton.rs): the limit on an input's JSON text in UTF-16 code units, the longest id or
 * tool name (longer ones take the full path), and the mark of a new message in `repairSkeleton`'s
 * order.
 */
export interface Layout {
  maxChars: number;
  maxId: number;
  newMark: number;
  /** The flag of a length word that names a recent string instead of writing it again. */
  refMark: number;
  /** How many recent call ids and tool names the references reach. */
  idRing: number;
  nameRing: number;
}

/** The layout from the core's `skeletonLayout()` words. */
export function layoutOf(words: ArrayLike<number>): Layout {
  return { maxChars: words[0], maxId: words[1], newMark: words[2], refMark: words[3], idRing: words[4], nameRing: words[5] };
}

/** The core's limits and marks for the build under way (set by {@link skeleton}). */
let MAX_CHARS = 0;
let MAX_ID = 0;
let REF = 0;
let ID_RING = 0;
let NAME_RING = 0;

const CALL_VALID = 0;
const CALL_INVALID = 1;
const CALL_ARGS_TEXT = 2;

/** A LangChain dict's role number (system 0, user 1, assistant 2, tool 3) by its `type`. */
const lcRole = (t: string): number | undefined => (t === "human" ? 1 : t === "ai" ? 2 : t === "tool" ? 3 : t === "system" ? 0 : undefined);
/** An OpenAI message's role number by its `role`. */
const openaiRole = (r: string): number | undefined =>
  r === "user" ? 1 : r === "assistant" ? 2 : r === "tool" ? 3 : r === "system" || r === "developer" ? 0 : undefined;

const objectProto = Object.prototype;
const arrayProto = Array.prototype;
const encoder = new TextEncoder();

/** Upper bound left on the input's JSON length (6 characters per code unit covers `\uXXXX`). */
let room = 0;
/** The words, `used` of them written; reused from build to build. */
let meta = new Uint32Array(1024);
let used = 0;
/** The text as UTF-8, `at` bytes written; reused likewise. */
let bytes = new Uint8Array(4096);
let at = 0;
/** A build is under way (the buffers are in use). */
let building = false;

/** Room for `n` more words. */
function reserve(n: number): void {
  if (used + n > meta.length) {
    const bigger = new Uint32Array(Math.max(meta.length * 2, used + n));
    bigger.set(meta);
    meta = bigger;
  }
}

/**
 * Appends `s` to the text as UTF-8 (a lone surrogate as U+FFFD, as `TextEncoder` and the full
 * path read it) and returns its length in bytes. ASCII is copied a character at a time (ids and
 * names are short: cheaper than a call into the encoder); anything else, or a long text, is
 * written by `TextEncoder.encodeInto`.
 */
function put(s: string): number {
  const n = s.length;
  if (at + 3 * n > bytes.length) {
    const bigger = new Uint8Array(Math.max(bytes.length * 2, at + 3 * n));
    bigger.set(bytes.subarray(0, at));
    bytes = bigger;
  }
  if (n <= 64) {
    const b = bytes;
    let p = at;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      b[p++] = c;
    }
    if (i === n) {
      at = p;
      return n;
    }
  }
  const written = encoder.encodeInto(s, bytes.subarray(at)).written;
  at += written;
  return written;
}

/** Appends a string to the text and its length in bytes to the words. */
function str(s: string): void {
  meta[used++] = put(s);
}

/**
 * The last call ids and tool names written, in rings both sides keep alike (`src/repair/skeleton.rs`):
 * a result's call id and a repeated tool name are written as `REF | slot` instead of again
 * (a result usually answers one of the last calls; a history calls a few tools).
 */
let ids: (string | undefined)[] = [];
let idAt = 0;
let names: (string | undefined)[] = [];
let nameAt = 0;

/** Writes a call id, remembered in the ring of ids. */
function callId(s: string): void {
  meta[used++] = put(s);
  ids[idAt] = s;
  idAt = idAt + 1 === ID_RING ? 0 : idAt + 1;
}

/** Writes a tool name, or a reference to the same name in the ring of names. */
function callName(s: string): void {
  for (let k = 0; k < NAME_RING; k++) {
    if (names[k] === s) {
      meta[used++] = REF | k;
      return;
    }
  }
  meta[used++] = put(s);
  names[nameAt] = s;
  nameAt = nameAt + 1 === NAME_RING ? 0 : nameAt + 1;
}

/** The word of a result's call id: `REF | slot` of a recent call id it equals, else its length + 1. */
function resultId(s: string): number {
  // The most recent first: a result follows its call.
  for (let n = 1; n <= ID_RING; n++) {
    const k = (idAt - n + ID_RING) % ID_RING;
    if (ids[k] === s) return REF | k;
  }
  return put(s) + 1;
}

/** A value JSON drops when it is an object's field (and refuses in an array). */
const dropped = (v: unknown) => v === undefined || typeof v === "function" || typeof v === "symbol";

/** Whether `v` is written by `JSON.stringify` as it is (what the full path would not refuse). */
function plain(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case "string":
      room -= 6 * v.length + 2;
      return true;
    case "number":
      room -= 25;
      return Number.isFinite(v);
    case "boolean":
      room -= 5;
      return true;
    case "object": {
      if (v === null) {
        room -= 4;
        return true;
      }
      if (depth > MAX_DEPTH) return false;
      if (Array.isArray(v)) return plainArray(v, depth);
      if (Object.getPrototypeOf(v) !== objectProto) return false;
      room -= 2;
      for (const k in v) {
        if (k === "toJSON") return false;
        const x = (v as Record<string, unknown>)[k];
        if (dropped(x)) continue;
        room -= 6 * k.length + 3;
        if (!plain(x, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

function plainArray(v: unknown[], depth: number): boolean {
  if (Object.getPrototypeOf(v) !== arrayProto) return false;
  room -= 2;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (dropped(x) || !plain(x, depth + 1)) return false; // a hole reads as undefined
    room -= 1;
  }
  return true;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === objectProto;

/** An id field: absent or null (`undefined`), a string within the limit, or `false` (full path). */
function idField(v: unknown): string | undefined | false {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" || v.length > MAX_ID) return false;
  room -= 6 * v.length + 20;
  return v;
}

/** The calls of one message, appended to the words and text; false: the full path decides. */
function calls(list: unknown, lc: boolean, invalid: boolean): number | false {
  if (list === undefined || list === null) return 0;
  if (!Array.isArray(list)) return false;
  void list.length; // (see message)
  if (Object.getPrototypeOf(list) !== arrayProto) return false;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (typeof c !== "object" || c === null || Array.isArray(c)) return false;
    void ("id" in c); // (see message)
    if (Object.getPrototypeOf(c) !== objectProto) return false;
    let id: unknown, name: unknown, fn: unknown, args: unknown, error: unknown;
    let hasFn = false;
    for (const k in c) {
      if (k === "toJSON") return false; // a method JSON would call, not drop: before `dropped`
      const v = c[k];
      if (dropped(v)) continue;
      room -= 6 * k.length + 3;
      switch (k) {
        case "id":
          id = v;
          break;
        case "name":
          name = v;
          if (!plain(v, 5)) return false;
          break;
        case "function":
          fn = v;
          hasFn = true;
          if (lc && !plain(v, 5)) return false; // a LangChain call's extra field
          break;
        case "args":
          args = v;
          if (!plain(v, 5)) return false;
          break;
        case "error":
          error = v;
          if (!plain(v, 5)) return false;
          break;
        default:
          if (!plain(v, 5)) return false;
      }
    }
    const cid = idField(id);
    // No id, or an empty one (which pairs nothing): the full path refuses the call.
    if (typeof cid !== "string" || cid === "") return false;
    reserve(4);
    if (invalid) {
      // LangChain invalid_tool_calls: any name (none is ""), an error that is a string.
      if (!(name === undefined || name === null || (typeof name === "string" && name.length <= MAX_ID))) return false;
      if (!(error === undefined || error === null || typeof error === "string")) return false;
      meta[used++] = CALL_INVALID;
      callId(cid);
      callName(typeof name === "string" ? name : "");
      continue;
    }
    if (!lc && hasFn) {
      // OpenAI: {id, type, function: {name, arguments}}; the arguments' text decides validity.
      if (typeof fn !== "object" || fn === null || Array.isArray(fn)) return false;
      void ("name" in fn); // (see message)
      if (Object.getPrototypeOf(fn) !== objectProto) return false;
      let fname: unknown, fargs: unknown;
      for (const k in fn) {
        if (k === "toJSON") return false;
        const v = (fn as Record<string, unknown>)[k];
        if (dropped(v)) continue;
        room -= 6 * k.length + 3;
        if (k === "name") fname = v;
        else if (k === "arguments") fargs = v;
        else return false; // a field the full path refuses, or passes when it says nothing
      }
      if (typeof fname !== "string" || fname.length === 0 || fname.length > MAX_ID) return false;
      if (!(fargs === undefined || fargs === null || typeof fargs === "string")) return false;
      meta[used++] = CALL_ARGS_TEXT;
      callId(cid);
      callName(fname);
      room -= 6 * fname.length + 20;
      const a = typeof fargs === "string" ? fargs : "";
      room -= 6 * a.length + 20;
      str(a);
      continue;
    }
    // LangChain `{id, name, args}` (also in a role-keyed message, without `function`, when its
    // args are an object).
    if (typeof name !== "string" || name.length === 0 || name.length > MAX_ID) return false;
    if (!lc && !isPlainObject(args)) return false;
    meta[used++] = CALL_VALID;
    callId(cid);
    callName(name);
  }
  return list.length;
}

/** One message appended to the skeleton; false when the full path must read it. */
function message(m: unknown): boolean {
  if (typeof m !== "object" || m === null || Array.isArray(m)) return false;
  // Not isPlainObject: an `in` test here (it reads no value and calls no getter), at this very
  // place, gives V8 the shapes messages come in, and the prototype check below becomes a
  // comparison instead of a call of Object.getPrototypeOf (a quarter of bench (a)'s skeleton).
  void ("content" in m);
  if (Object.getPrototypeOf(m) !== objectProto) return false;
  let type: unknown, role: unknown, content: unknown, toolCalls: unknown, invalidCalls: unknown;
  let toolCallId: unknown, status: unknown, id: unknown, name: unknown;
  let hasType = false, hasRole = false, hasStatus = false;
  // The JSON length of the keys, counted here and taken from `room` once.
  let keys = 2;
  for (const k in m) {
    // `toJSON` is a method JSON.stringify calls (the full path reads what it returns), not a
    // function value it drops: checked before the drop.
    if (k === "toJSON") return false;
    const v = (m as Record<string, unknown>)[k];
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue; // JSON drops it
    keys += 6 * k.length + 3;
    switch (k) {
      case "type":
        type = v;
        hasType = true;
        break;
      case "role":
        role = v;
        hasRole = true;
        break;
      case "content":
        content = v;
        break;
      case "tool_calls":
        toolCalls = v;
        break;
      case "invalid_tool_calls":
        invalidCalls = v;
        break;
      case "tool_call_id":
        toolCallId = v;
        break;
      case "status":
        status = v;
        hasStatus = true;
        break;
      case "id":
        id = v;
        break;
      case "name":
        name = v;
        break;
      // OpenAI's legacy function calling, refused by the full path; LangChain calls kept in
      // `additional_kwargs`, read by the full path when the message has none of its own.
      case "function_call":
        return false;
      case "additional_kwargs":
        if (typeof v === "object" && v !== null && ("tool_calls" in v || "function_call" in v)) return false;
        if (!plain(v, 3)) return false;
        break;
      // Keys that make the message another format's (or another envelope) for the detector.
      case "lc":
      case "origin":
      case "extra":
      case "parts":
      case "data":
      case "providerData":
      case "providerOptions":
      case "phase":
        return false;
      default:
        if (!plain(v, 3)) return false;
    }
  }
  room -= keys;
  let lc: boolean;
  let r: number | undefined;
  if (hasType) {
    if (hasRole || typeof type !== "string") return false;
    lc = true;
    r = lcRole(type);
  } else {
    if (hasStatus || typeof role !== "string") return false;
    lc = false;
    r = openaiRole(role);
  }
  if (r === undefined) return false;
  // Content: absent 0, null 1, "" 2, text 3; anything else (parts) takes the full path.
  let c: number;
  if (content === undefined) c = 0;
  else if (content === null) c = 1;
  else if (typeof content === "string") {
    c = content.length === 0 ? 2 : 3;
    room -= 6 * content.length + 2;
  } else return false;
  let s = 0;
  if (lc && status !== undefined && status !== null) {
    if (status === "success") s = 1;
    else if (status === "error") s = 2;
    else return false;
  }
  if (idField(id) === false) return false;
  if (!(name === undefined || name === null || typeof name === "string")) return false;
  if (typeof name === "string") room -= 6 * name.length + 2;
  const tcid = idField(toolCallId);
  if (tcid === false) return false;
  if (r === 3 && !tcid) return false; // a result without its call's id: the full path refuses it
  const placeholder = r === 3 && s !== 1 && typeof content === "string" && content.startsWith("Tool call ") ? 1 : 0;
  reserve(3);
  const head = used++;
  meta[used++] = tcid === undefined ? 0 : resultId(tcid);
  if (placeholder) str(content as string);
  // Valid calls first, then invalid ones: the order of the core's shapes.
  const n = calls(toolCalls, lc, false);
  if (n === false) return false;
  let k = n;
  if (lc) {
    const bad = calls(invalidCalls, true, true);
    if (bad === false) return false;
    k += bad;
  } else if (invalidCalls !== undefined && !plain(invalidCalls, 3)) return false;
  if (k > 0 && r !== 2) return false; // only an assistant message makes calls
  if (k >= 1 << 24) return false;
  meta[head] = (lc ? 1 : 0) | (r << 1) | (s << 3) | (c << 5) | (placeholder << 7) | (k << 8);
  return true;
}

/**
 * The skeleton of `messages`, or `undefined` when the full path must read them (some message is
 * not one the skeleton reads for certain, or reading one threw).
 */
export function skeleton(messages: readonly unknown[], layout: Layout): Skeleton | undefined {
  // A getter that repairs or validates while the builder reads it: that inner call takes the
  // full path and leaves the buffers of the build under way alone.
  if (building) return undefined;
  building = true;
  MAX_CHARS = layout.maxChars;
  MAX_ID = layout.maxId;
  REF = layout.refMark;
  ID_RING = layout.idRing;
  NAME_RING = layout.nameRing;
  ids = new Array(ID_RING).fill(undefined);
  idAt = 0;
  names = new Array(NAME_RING).fill(undefined);
  nameAt = 0;
  room = MAX_CHARS - 2;
  used = 0;
  at = 0;
  try {
    // What JSON.stringify would call instead of reading the values.
    if ((objectProto as { toJSON?: unknown }).toJSON !== undefined || (messages as { toJSON?: unknown }).toJSON !== undefined) return undefined;
    if (Object.getPrototypeOf(messages) !== arrayProto) return undefined;
    for (const _ in objectProto) return undefined; // an enumerable key added to every object
    const n = messages.length;
    for (let i = 0; i < n; i++) {
      if (!message(messages[i])) return undefined;
      room -= 1;
    }
    // The bound is loose (six characters per code unit): past it, measure the JSON exactly, as
    // the full path does before it refuses an input as too large.
    if (room < 0) {
      const json: unknown = JSON.stringify(messages);
      if (typeof json !== "string" || json.length > MAX_CHARS) return undefined;
    }
    return { meta: meta.subarray(0, used), text: bytes.subarray(0, at) };
  } catch {
    return undefined;
  } finally {
    building = false;
    // A big history's buffers are not kept for the rest of the process.
    if (meta.length > 1 << 16) meta = new Uint32Array(1024);
    if (bytes.length > 1 << 18) bytes = new Uint8Array(4096);
  }
}
