// Issue 14: a seeded random bad-input sweep over the whole public API of the package (pkg/).
//
// Every exported function, and every method, getter and static function of the exported classes
// (StateStore, AsyncTasks, FileLog), is called with inputs drawn from a generator of hostile
// values — throwing getters, revoked Proxies and Proxies whose traps throw, cycles, nesting
// 5,000–20,000 deep, Symbols, BigInts, NaN / ±Infinity / -0, strings of a few MB, lone
// surrogates, `__proto__` keys, functions, undefined / null, Maps, Sets, Dates, typed arrays,
// frozen objects, class instances, wasm objects (freed, disposed, of the wrong class), a wrong
// type for each argument — and with valid inputs (messages in every format, real transcripts,
// commands, events, checkpoints) mutated at one random place, at a random depth. Callbacks (the
// store's clock / onEvents / audit, a tokenizer, the AsyncTasks transport and the server answers
// it gives) are replaced by ones that throw, return garbage or call back into the store.
//
// For every call:
//   - it returns, or throws a StategateError: `isStategateError(e)`, `code` one of the package's
//     ErrorCode strings (read from pkg/stategate_wasm.d.ts), `details` an object. A raw
//     TypeError / RangeError / Error, a thrown non-Error, or a wasm trap is a failure — also a
//     trap or an engine RangeError that the façade's fallback relabels
//     `INVALID_OPTION: <what>: unreachable` (api.ts `guarded` / `guardClass`);
//   - an async method (AsyncTasks.handle / poll / untracked) returns a Promise — it never throws
//     synchronously — that settles within ASYNC_TIMEOUT_MS and rejects only as above;
//   - every store involved (the receiver, a store passed in, the child given to subagentResult)
//     is exactly as it was when the call failed (version, lastHash, systemView, eventsJsonl, its
//     private channels), and still answers afterwards; after free() / [Symbol.dispose]() — also
//     one made from inside a callback — a call on it throws FREED (api.ts: "a call on an object
//     after its free() is FREED");
//   - no rejection is left unhandled and no exception escapes to the event loop (the generator's
//     own rejected Promises are handled);
//   - a witness store made before the sweep is unchanged and usable; at the end it takes one
//     more command.
//
// Environment:
//   SWEEP_ITERATIONS  cases to run (default DEFAULT_ITERATIONS, ~20 s; `make fuzz` runs more)
//   SWEEP_SEED        the seed (default DEFAULT_SEED). Each case has its own generator seeded from
//                     (seed, case number), so a case reproduces on its own (on the same build
//                     of the package: the valid inputs come partly from its own output):
//   SWEEP_CASE        run only this case number (same SWEEP_SEED and SWEEP_TARGET as the report)
//   SWEEP_TARGET      a RegExp: only targets whose name matches, e.g. "^StateStore\\.apply$"
//   SWEEP_VERBOSE=1   print each case before running it (to find a case that hangs)
//
// The sweep goes on past failures and reports each distinct one once, with the case to rerun,
// except when the witness breaks: the module is then poisoned, so the sweep stops there.
//
// Not swept: the exports in NOT_SWEPT, each with its reason (IndexedDbLog: browsers only;
// PostgresLog, PostgresRun: a PostgreSQL server). A first test checks that every other export
// and class member is a target, so new API cannot go unswept.
//
// Run: node --test tests/js/sweep.test.mjs

import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as main from "../../pkg/index.js";
import * as fileLog from "../../pkg/file-log.js";
import * as postgresLog from "../../pkg/postgres-log.js";
import * as sse from "../../pkg/sse.js";
import * as glue from "../../pkg/stategate_wasm.js";
import { mulberry32 } from "../support/prng.mjs";

/** The package's public surface: the bare import and the `stategate/file-log`, `stategate/postgres-log` and `stategate/sse` subpaths. */
const pkg = { ...main, ...fileLog, ...postgresLog, ...sse };
const { StateStore, AsyncTasks, FileLog, StreamReader, SseHub, isStategateError } = pkg;

// ---------------------------------------------------------------------------------------------
// Configuration

const DEFAULT_ITERATIONS = 12000; // ~15–20 s on an idle 2-core machine
const DEFAULT_SEED = 0x5eed14;
const ASYNC_TIMEOUT_MS = 5_000; // every fake server call answers at once; requestTimeoutMs is 500

function wholeFromEnv(name, fallback) {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a whole number ≥ 0, got ${JSON.stringify(text)}`);
  return n;
}
const SEED = wholeFromEnv("SWEEP_SEED", DEFAULT_SEED) % 2 ** 32;
const ITERATIONS = wholeFromEnv("SWEEP_ITERATIONS", DEFAULT_ITERATIONS);
const ONLY_CASE = process.env.SWEEP_CASE ? wholeFromEnv("SWEEP_CASE", 0) : null;
const TARGET_FILTER = process.env.SWEEP_TARGET ? new RegExp(process.env.SWEEP_TARGET) : null;
const VERBOSE = process.env.SWEEP_VERBOSE === "1";

/** The package's error codes: the `ErrorCode` union generated from Rust. */
const ERROR_CODES = (() => {
  const dts = fs.readFileSync(new URL("../../pkg/stategate_wasm.d.ts", import.meta.url), "utf8");
  const union = /export type ErrorCode = ([^;]+);/.exec(dts);
  assert.ok(union, "ErrorCode not found in pkg/stategate_wasm.d.ts");
  return new Set([...union[1].matchAll(/"([A-Z_]+)"/g)].map((m) => m[1]));
})();

// ---------------------------------------------------------------------------------------------
// Seeded randomness: one generator per case, from (seed, case number)

class Rng {
  constructor(seed) {
    this.next = mulberry32(seed);
  }
  int(n) {
    return Math.floor(this.next() * n);
  }
  range(lo, hi) {
    return lo + this.int(hi - lo + 1);
  }
  chance(p) {
    return this.next() < p;
  }
  pick(xs) {
    return xs[this.int(xs.length)];
  }
  /** One of `[weight, value]` pairs. */
  weighted(pairs) {
    let x = this.next() * pairs.reduce((n, [w]) => n + w, 0);
    for (const [w, v] of pairs) if ((x -= w) < 0) return v;
    return pairs.at(-1)[1];
  }
}

function caseSeed(seed, i) {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(i + 1, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  return (h ^ (h >>> 15)) >>> 0;
}

// ---------------------------------------------------------------------------------------------
// Valid inputs: messages in every format, fixtures, commands, options

const FORMATS = ["langchain", "openai", "anthropic", "ai-sdk", "gemini", "ui", "responses", "openai-agents"];
const PROVIDERS = ["openai", "anthropic", "gemini"];
const REASONS = ["missing", "interrupted", "rejected", "invalid_args"];
const REDUCERS = ["messages", "merge", "append", "union", "counter", "replace"];
const VALUE_TYPES = ["any", "string", "number", "integer", "boolean", "object", "array"];
const EVENT_TYPES = ["user_input", "model_decision", "tool_call", "tool_result", "state_patch", "task_event", "error"];
const TASK_TOOLS = ["start_async_task", "check_async_task", "update_async_task", "cancel_async_task", "list_async_tasks"];

const call = (id, name, args = {}) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });
const fixture = (name) => fs.readFileSync(new URL(`../fixtures/transcripts/${name}`, import.meta.url), "utf8");

/** A conversation with a system prompt, two parallel calls (one result as parts) and an answer. */
const BASE = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Weather in Paris, and news?" },
  { role: "assistant", content: null, tool_calls: [call("c1", "get_weather", { city: "Paris" }), call("c2", "search", { q: "news" })] },
  { role: "tool", tool_call_id: "c1", content: "sunny" },
  { role: "tool", tool_call_id: "c2", content: [{ type: "text", text: "nothing new" }] },
  { role: "assistant", content: "Sunny; no news." },
];

/** Built once, at the start of the test (they use the package). */
let POOL;
function buildPool() {
  const lists = [];
  for (const to of FORMATS) {
    const messages = pkg.convertMessages(BASE, { to });
    lists.push(messages, messages.slice(0, 3)); // whole, and cut after the calls (dangling)
  }
  lists.push(
    [{ type: "human", content: "q", id: "h1" }, { type: "ai", content: "", id: "a1", tool_calls: [{ id: "c1", name: "search", args: {} }] }, { type: "ai", content: "You interrupted me.", id: "a2" }],
    [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "" }, { type: "tool_use", id: "t1", name: "f", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "one" }] },
    ],
  );
  const tau = JSON.parse(fixture("taubench-gpt4o-airline-historical.json"));
  const transcripts = [
    fixture("claudecode-coverage-test-fix.jsonl"),
    fixture("openhands-basic-gui-mode.json"),
    fixture("sweagent-marshmallow-1867-fc.traj"),
    JSON.stringify(tau.slice(0, 2)),
    JSON.stringify(BASE),
  ];
  // Windows of real histories, each in another format.
  let k = 0;
  for (const text of transcripts.slice(0, 4)) {
    const run = pkg.readTranscript(text).runs[0];
    for (let start = 0; start + 8 <= run.length && start < 40; start += 13) {
      lists.push(pkg.convertMessages(run.slice(start, start + 8), { to: FORMATS[k++ % FORMATS.length] }));
    }
  }
  // Recorded streams (issue 15): an AI SDK UIMessageChunk stream and a LangGraph messages stream.
  const streams = {
    "ui-stream": JSON.parse(fixture("aisdk-uistream-langgraph-hitl-interrupt.json")),
    "langgraph-messages": JSON.parse(fixture("langgraph-lc-stream-supervisor.json")),
  };
  POOL = { lists, transcripts, streams };
}

const clone = (v) => structuredClone(v);
const pickMessages = (r) => clone(r.pick(POOL.lists));
const messagesInput = (r) => (r.chance(0.2) ? JSON.stringify(pickMessages(r)) : pickMessages(r));

/** Channels of every subject store beyond the default schema (replay needs them). */
const CUSTOM_CHANNELS = () => [
  { name: "log", reducer: "append" },
  { name: "tags", reducer: "union", type: "string" },
  { name: "steps", reducer: "counter", type: "integer" },
  { name: "kv", reducer: "merge", type: "number" },
  { name: "phase", reducer: "replace", type: "string", writers: ["app", "a"] },
];
const PRIVATE_SPEC = () => ({ name: "scratch", reducer: "replace", visibility: "private", owner: "planner" });
const CHANNEL_NAMES = ["messages", "async_tasks", "notifications", "todos", "files", "run", "plan", "facts", "unresolved_questions", "approvals", "budget", "artifacts", "last_error", "compaction", "log", "tags", "steps", "kv", "phase", "scratch"];

/** Commands a subject store may take (or refuse with a code: a result for an answered call…). */
const COMMANDS = [
  () => ({ author: "user", update: { messages: [{ role: "user", content: "next question" }] } }),
  () => ({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "c2", content: "found it" }] } }),
  (s) => ({ author: "model", expectedVersion: s.version, update: { messages: [{ type: "ai", content: "", tool_calls: [{ id: "c9", name: "search", args: { q: "more" } }] }] } }),
  () => ({ author: "app", update: { facts: { city: "Paris", n: 1 }, files: { "/notes.md": "# notes" }, todos: [{ content: "ship", status: "pending" }] } }),
  () => ({ author: "app", update: { run: { status: "paused" } }, correlationId: "turn-2", causationId: "sweep:1" }),
  () => ({ author: "guard", update: { approvals: { a1: { tool_call_id: "c2", status: "pending" } } } }),
  () => ({ author: "app", update: { budget: { limits: { max_tokens: 100000 }, used: { tokens: 10 } } } }),
  () => ({ author: "user", update: { messages: [{ replace: { role: "user", content: "edited", id: "u1" } }] } }),
  () => ({ author: "user", update: { messages: [{ remove: "u1" }, { type: "remove", id: "a1" }] } }),
  () => ({ author: "a", update: { log: ["x", { k: 1 }], tags: ["red"], steps: 2, kv: { a: 1.5, b: null }, phase: "act" } }),
  () => ({ author: "planner", update: { scratch: "another private thought" } }),
  () => ({ author: "model", update: { messages: [{ role: "assistant", content: [{ type: "text", text: "parts" }, { type: "tool_use", id: "c10", name: "f", input: { x: [1, 2] } }] }] } }),
  () => ({ author: "app", update: { messages: { role: "user", content: "a single message" } } }),
  () => ({ author: "app", update: { messages: [{ removeAll: true }, { role: "user", content: "fresh start" }] } }),
  () => ({ author: "app", update: { last_error: "boom" } }),
  (s, r) => ({ author: "import", update: { messages: pickMessages(r) } }),
];
const validCommand = (r, s) => r.pick(COMMANDS)(s, r);

const projectOptions = (r) => {
  const o = { budget: r.pick([300, 1000, 8000, 100000]) };
  if (r.chance(0.6)) o.format = r.pick(FORMATS);
  if (r.chance(0.3)) o.system = "You are a careful agent.";
  if (r.chance(0.3)) o.maxToolResultTokens = r.pick([1, 20, 500]);
  if (r.chance(0.3)) o.startOnUser = r.chance(0.5);
  if (r.chance(0.2)) o.redact = ["city"];
  if (r.chance(0.2)) o.sections = r.chance(0.5);
  if (r.chance(0.2)) o.agent = "researcher";
  if (r.chance(0.1)) o.contextPrefix = "Context:";
  if (r.chance(0.3)) o.tokenizer = (text) => Math.ceil(text.length / 4);
  return o;
};
const repairOptions = (r) => {
  const o = {};
  if (r.chance(0.5)) o.provider = r.pick(PROVIDERS);
  if (r.chance(0.3)) o.reasons = { c1: r.pick(REASONS), t1: r.pick(REASONS) };
  if (r.chance(0.3)) o.keepOrphans = r.chance(0.5);
  if (r.chance(0.3)) o.text = "No result for {name} ({id}): {reason}";
  return o;
};
const channelSpec = (r) => {
  const reducer = r.pick(REDUCERS.slice(1));
  const spec = { name: `extra_${r.int(1000)}`, reducer };
  if (r.chance(0.3)) spec.type = r.pick(VALUE_TYPES);
  if (r.chance(0.3)) spec.visibility = r.pick(["model", "system"]);
  if (r.chance(0.2)) spec.writers = ["app"];
  if (r.chance(0.2) && reducer === "merge") spec.onConflict = r.pick(["error", "callOrder"]);
  if (r.chance(0.1)) spec.secret = true;
  if (r.chance(0.2)) Object.assign(spec, { visibility: "private", owner: r.pick(["planner", "critic"]) });
  return spec;
};
const eventQuery = (r) => {
  const q = {};
  if (r.chance(0.4)) q.since = r.range(0, 4);
  if (r.chance(0.4)) q.until = r.range(0, 8);
  if (r.chance(0.3)) q.type = r.pick(EVENT_TYPES);
  return q;
};

// ---------------------------------------------------------------------------------------------
// Bad values

const revoked = (target) => {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
};
const msg = () => ({ role: "user", content: "hi" });
/** A rejected Promise with a handler attached, so that only the package's own rejections are unhandled. */
const rejected = (t) => {
  const p = Promise.reject(t);
  p.catch(() => {});
  return p;
};

/** What a throwing getter, trap or callback throws. */
const THROWN = [
  ["an Error", () => new Error("boom from the caller")],
  ["a TypeError", () => new TypeError("boom")],
  ["an Error named StategateError with a bad code", () => Object.assign(new Error("fake"), { name: "StategateError", code: "NOT_A_CODE" })],
  ["a Symbol", () => Symbol("thrown")],
  ["undefined", () => undefined],
  ["null", () => null],
  ["a number", () => 42],
  ["a revoked Proxy", () => revoked({})],
  [
    "an Error whose message getter throws",
    () => {
      const e = new Error("x");
      Object.defineProperty(e, "message", { get() { throw new Error("message getter"); } });
      return e;
    },
  ],
  ["an object whose toString throws", () => ({ toString() { throw new Error("toString"); } })],
  ["a null-prototype object", () => Object.create(null)],
];
const thrown = (r) => {
  const [label, make] = r.pick(THROWN);
  return [make(), label];
};

const KEYS = ["role", "content", "type", "id", "tool_calls", "author", "update", "name", "args", "function", "messages", "length", "toJSON", "then", "format", "budget", "agents", "events", "sequence"];
const TRAPS = ["get", "ownKeys", "getOwnPropertyDescriptor", "has", "getPrototypeOf"];

const nest = (depth, kind) => {
  let v = "leaf";
  for (let i = 0; i < depth; i++) v = kind === "array" ? [v] : kind === "object" ? { a: v } : i % 2 ? [v] : { content: v };
  return v;
};

let hugeStrings;
const huge = () =>
  (hugeStrings ??= {
    ascii: "x".repeat(3 << 20),
    surrogates: "a\ud800".repeat(1 << 20),
    json: JSON.stringify(Array.from({ length: 40000 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `${"m".repeat(60)}${i}` }))),
  });

class Message {
  role = "user";
  content = "from a class";
  #secret = "private field";
  get secret() {
    return this.#secret;
  }
}
class ThrowingPrototype {
  role = "user";
  get content() {
    throw new Error("prototype getter");
  }
}
class MessageArray extends Array {}

/** Each entry: `[weight, (r, ctx, level) => [value, label]]`. */
const BAD = [
  [6, (r) => {
    const key = r.pick(KEYS);
    const [t, tl] = thrown(r);
    const o = msg();
    Object.defineProperty(o, key, { get() { throw t; }, enumerable: true, configurable: true });
    return [o, `an object whose getter "${key}" throws ${tl}`];
  }],
  [3, (r) => {
    const [t, tl] = thrown(r);
    return [{ ...msg(), toJSON() { throw t; } }, `an object whose toJSON throws ${tl}`];
  }],
  [2, (r, ctx, level) => {
    const [v, l] = badValue(r, ctx, level + 1);
    return [{ toJSON: () => v }, `an object whose toJSON returns ${l}`];
  }],
  [3, (r) => (r.chance(0.5) ? [revoked(msg()), "a revoked Proxy of an object"] : [revoked([msg()]), "a revoked Proxy of an array"])],
  [4, (r) => {
    const trap = r.pick(TRAPS);
    const [t, tl] = thrown(r);
    const array = r.chance(0.5);
    return [new Proxy(array ? [msg()] : msg(), { [trap]() { throw t; } }), `a Proxy of ${array ? "an array" : "an object"} whose ${trap} trap throws ${tl}`];
  }],
  [1, () => [new Proxy({}, { ownKeys: () => ["a", "a"] }), "a Proxy whose ownKeys trap breaks an invariant (duplicate keys)"]],
  [3, () => {
    const o = msg();
    o.self = o;
    return [o, "an object containing itself"];
  }],
  [3, () => {
    const a = [msg()];
    a.push(a);
    return [a, "an array containing itself"];
  }],
  [1, () => {
    const a = { x: {} };
    a.x.back = [a];
    return [a, "a cycle through an object and an array"];
  }],
  [4, (r) => {
    const depth = r.range(5000, 20000);
    const kind = r.pick(["array", "object", "mixed"]);
    return [nest(depth, kind), `a value nested ${depth} deep (${kind})`];
  }],
  [2, (r) => {
    const depth = r.range(5000, 20000);
    const text = r.chance(0.5) ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
    return [text, `JSON text nested ${depth} deep`];
  }],
  [2, () => [Symbol("sweep"), "a Symbol"]],
  [2, (r) => r.pick([[1n, "1n"], [-(2n ** 70n), "-(2n ** 70n)"]])],
  [4, (r) => r.pick([[NaN, "NaN"], [Infinity, "Infinity"], [-Infinity, "-Infinity"], [-0, "-0"]])],
  [2, (r) => r.pick([[1e308, "1e308"], [2 ** 53 + 2, "2 ** 53 + 2"], [-1, "-1"], [0.5, "0.5"], [2 ** 32, "2 ** 32"], [Number.MIN_VALUE, "5e-324"], [-(2 ** 31) - 1, "-(2 ** 31) - 1"]])],
  [2, (r) => {
    const h = huge();
    return r.pick([[h.ascii, "a 3 MB string"], [h.surrogates, "a 4 MB string of lone surrogates"], [h.json, "3 MB of JSON text (40,000 messages)"]]);
  }],
  [3, (r) => r.pick([["\ud800", '"\\ud800"'], ["a\udfffb", '"a\\udfffb"'], ["😀".slice(0, 1), "half an emoji"], ["\udc00\ud800", "a reversed surrogate pair"]])],
  [3, (r) => {
    const s = r.pick(["", " ", "\u0000", "\u202e\u0007\u001b[31m", "__proto__", "constructor", "null", "[]", "{}", "[{", '{"role":', "5", "-1", "NaN", "1e999", "\ufeff[]", "x".repeat(100_000)]);
    return [s, s.length > 40 ? `a ${s.length}-character string` : JSON.stringify(s)];
  }],
  [3, (r) =>
    r.pick([
      () => [JSON.parse('{"__proto__": {"role": "user", "content": "inherited?"}, "role": "user", "content": "hi"}'), 'an object with an own "__proto__" key'],
      () => [JSON.parse('{"__proto__": null}'), '{"__proto__": null} (an own key)'],
      () => [Object.assign(Object.create(null), msg()), "a null-prototype object"],
      () => [Object.create(msg()), "an object whose fields are inherited"],
      () => [{ constructor: "x", prototype: 1, hasOwnProperty: 5, toString: "nope", valueOf: null }, "an object shadowing Object.prototype methods"],
    ])()],
  [3, (r) =>
    r.pick([
      [() => {}, "an arrow function"],
      [async () => {}, "an async function"],
      [function* () {}, "a generator function"],
      [class {}, "a class"],
      [Math.max, "a native function"],
      [Object.assign(() => 1, msg()), "a function with message fields"],
    ])],
  [3, () => [undefined, "undefined"]],
  [3, () => [null, "null"]],
  [1, (r) => (r.chance(0.5) ? [true, "true"] : [false, "false"])],
  [2, (r) =>
    r.pick([
      () => [new Map([["role", "user"], ["content", "hi"]]), "a Map"],
      () => [new Set([msg()]), "a Set"],
      () => [new WeakMap(), "a WeakMap"],
      () => [new WeakSet(), "a WeakSet"],
    ])()],
  [2, (r) =>
    r.pick([
      () => [new Date(0), "a Date"],
      () => [new Date(NaN), "an invalid Date"],
      () => [/re/g, "a RegExp"],
      () => [new Error("an error value"), "an Error object"],
      () => [Promise.resolve(msg()), "a Promise"],
      () => [new URL("http://example.com/x"), "a URL"],
      () => [new String("boxed"), "a String object"],
      () => [new Number(5), "a Number object"],
    ])()],
  [3, (r) =>
    r.pick([
      () => [new Uint8Array([1, 2, 3]), "a Uint8Array"],
      () => [new Uint8Array(0), "an empty Uint8Array"],
      () => [new Float64Array([NaN, -0, Infinity]), "a Float64Array of NaN, -0, Infinity"],
      () => [new BigInt64Array([1n]), "a BigInt64Array"],
      () => [new Uint16Array([0xd800]), "a Uint16Array"],
      () => [new ArrayBuffer(8), "an ArrayBuffer"],
      () => [new DataView(new ArrayBuffer(4)), "a DataView"],
      () => [Buffer.from("hi"), "a Buffer"],
      () => [new SharedArrayBuffer(4), "a SharedArrayBuffer"],
    ])()],
  [2, (r) =>
    r.pick([
      () => [Object.freeze(msg()), "a frozen message"],
      () => [Object.freeze([Object.freeze(msg())]), "a frozen array of frozen messages"],
      () => [Object.seal(msg()), "a sealed message"],
      () => [Object.preventExtensions([msg()]), "a non-extensible array"],
    ])()],
  [3, (r, ctx) =>
    r.pick([
      () => [new Message(), "a class instance (fields and a private field)"],
      () => [new ThrowingPrototype(), "a class instance whose prototype getter throws"],
      () => [MessageArray.from([msg()]), "an Array subclass instance"],
      () => [ctx.track(new StateStore()), "a fresh StateStore"],
      () => {
        const s = new StateStore();
        s.free();
        return [s, "a freed StateStore"];
      },
      () => {
        const s = new StateStore();
        s[Symbol.dispose]();
        return [s, "a StateStore disposed with [Symbol.dispose]()"];
      },
      () => [Object.create(StateStore.prototype), "Object.create(StateStore.prototype)"],
    ])()],
  [2, (r) =>
    r.pick([
      () => [{ length: 1, 0: msg() }, "an array-like object"],
      () => [{ length: -1 }, "an array-like of length -1"],
      () => [{ length: 2 ** 32 }, "an array-like of length 2 ** 32"],
      () => [[, , msg()], "a sparse array"], // eslint-disable-line no-sparse-arrays
      () => [Object.assign([msg()], { extra: Symbol("x") }), "an array with an extra property"],
      () => [new Array(100_000), "an empty array of length 100,000"],
    ])()],
  [1, () => {
    const o = {};
    for (let i = 0; i < 20000; i++) o[`k${i}`] = i;
    return [o, "an object with 20,000 keys"];
  }],
  [2, (r, ctx, level) => {
    if (level >= 2) return [{}, "{}"];
    const parts = [];
    for (let n = r.range(1, 3); n > 0; n--) parts.push(badValue(r, ctx, level + 1));
    if (r.chance(0.5)) return [parts.map(([v]) => v), `[${parts.map(([, l]) => l).join(", ")}]`];
    return [Object.fromEntries(parts.map(([v], i) => [KEYS[i], v])), `{${parts.map(([, l], i) => `${KEYS[i]}: ${l}`).join(", ")}}`];
  }],
];

/** `[value, label]`: one hostile value. */
function badValue(r, ctx, level = 0) {
  return r.weighted(BAD)(r, ctx, level);
}

/**
 * Frees the subject from inside one of its callbacks. Afterwards the store is FREED, or — when the
 * free was refused (it threw) — it answers as usual (and is unchanged if the call failed).
 */
function freeFromInside(ctx) {
  ctx.freeTried = true;
  ctx.subject.free();
  ctx.freedByHook = true;
}

/** `[function, label]`: a callback that misbehaves. */
function badFunction(r, ctx) {
  return r.weighted([
    [4, () => {
      const [t, tl] = thrown(r);
      return [() => { throw t; }, `a function that throws ${tl}`];
    }],
    [4, () => {
      const [v, l] = badValue(r, ctx, 1);
      return [() => v, `a function returning ${l}`];
    }],
    [2, () => {
      const [t, tl] = thrown(r);
      return [() => rejected(t), `a function returning a Promise rejected with ${tl}`];
    }],
    [1, () => {
      const [t, tl] = thrown(r);
      return [() => ({ then() { throw t; } }), `a function returning a thenable whose then throws ${tl}`];
    }],
    [2, () => [() => (ctx.subject.systemView(), 1), "a function that reads the store from inside"]],
    [2, () => {
      const command = validCommand(r, ctx.subject);
      return [() => {
        ctx.subject.apply(command);
        ctx.hookWrote = true;
        return 1;
      }, "a function that writes to the store from inside"];
    }],
    [1, () => [() => {
      freeFromInside(ctx);
      return 1;
    }, "a function that frees the store from inside"]],
    [1, (v = badValue(r, ctx, 1)) => [v[0], `not a function: ${v[1]}`]],
  ])();
}

/** `[value, label]`: a value of another type than `type` (the argument's documented type). */
function wrongType(r, ctx, type) {
  const store = () => ctx.subject;
  const TABLE = {
    string: [[5, "5"], [5n, "5n"], [true, "true"], [{}, "{}"], [["x"], '["x"]'], [new String("x"), 'new String("x")'], [Symbol("s"), "a Symbol"], [null, "null"], [{ toString: () => "x" }, "an object with toString"]],
    object: [["{}", '"{}"'], ["x", '"x"'], [5, "5"], [true, "true"], [[], "[]"], [[{}], "[{}]"], [Symbol(), "a Symbol"], [5n, "5n"], [() => ({}), "a function"], [new Uint8Array(2), "a Uint8Array"]],
    messages: [[{}, "{}"], [msg(), "one message, not an array"], [5, "5"], [true, "true"], [Symbol(), "a Symbol"], [5n, "5n"], [new Set([msg()]), "a Set of messages"], [{ length: 1, 0: msg() }, "an array-like"], [new Uint8Array([91, 93]), "the bytes of []"], [() => [], "a function"]],
    number: [["5", '"5"'], ["1", '"1"'], [true, "true"], [[], "[]"], [{}, "{}"], [5n, "5n"], [new Number(5), "new Number(5)"], [null, "null"], [Symbol(), "a Symbol"], [{ valueOf: () => 1 }, "an object with valueOf"]],
    bytes: [[[123, 34], "an array of byte values"], [new ArrayBuffer(8), "an ArrayBuffer"], ['{"format":"stategate-checkpoint"}', "the checkpoint's text"], [new Uint16Array([1]), "a Uint16Array"], [new DataView(new ArrayBuffer(2)), "a DataView"], [{ length: 2, 0: 123, 1: 34 }, "an array-like"], [5, "5"]],
    store: [
      [{}, "{}"],
      [Object.create(StateStore.prototype), "Object.create(StateStore.prototype)"],
      ["store", '"store"'],
      [5, "5"],
      [null, "null"],
      [JSON.parse(JSON.stringify(store())), "the store's JSON"],
      [{ __wbg_ptr: 0 }, "{__wbg_ptr: 0}"],
    ],
    events: [[{}, "{}"], [5, "5"], [true, "true"], [Symbol(), "a Symbol"], [new Set(), "a Set"], ["not json lines", '"not json lines"'], [[5], "[5]"], [["x"], '["x"]'], [[[]], "[[]]"]],
    array: [[{}, "{}"], ["[]", '"[]"'], [5, "5"], [new Set([1]), "a Set"], [{ length: 1, 0: {} }, "an array-like"]],
    any: [[undefined, "undefined"]],
    function: [[{}, "{}"], ["source", '"source"'], [5, "5"], [null, "null"], [Symbol(), "a Symbol"], [[{ snapshot: {} }], "an array of messages, not a function"]],
  };
  const [v, l] = r.pick(TABLE[type] ?? TABLE.object);
  return [v, `wrong type (${type} expected): ${l}`];
}

// ---------------------------------------------------------------------------------------------
// Mutations of valid inputs: one place replaced, at a random depth

const isWasmObject = (v) => {
  try {
    return v instanceof StateStore || v instanceof AsyncTasks || v instanceof FileLog || v instanceof StreamReader;
  } catch {
    return false; // a revoked Proxy
  }
};

/** `[proxy, label]` around `target`: revoked, a throwing trap, or a `get` that lies for one key. */
function wrapProxy(r, ctx, target) {
  const kind = r.pick(["revoked", "trap", "lying get"]);
  if (kind === "revoked") return [revoked(target), "a revoked Proxy"];
  if (kind === "trap") {
    const trap = r.pick(TRAPS);
    const [t, tl] = thrown(r);
    return [new Proxy(target, { [trap]() { throw t; } }), `a Proxy whose ${trap} trap throws ${tl}`];
  }
  const keys = Object.keys(target);
  const key = keys.length ? r.pick(keys) : "role";
  const [v, l] = badValue(r, ctx, 1);
  return [new Proxy(target, { get: (t, k, recv) => (k === key ? v : Reflect.get(t, k, recv)) }), `a Proxy whose get of "${key}" answers ${l}`];
}

/** `[value, label]`: `value` (fresh, owned by the case) with one place made bad. */
function mutate(r, ctx, value) {
  if (typeof value === "string") return mutateText(r, ctx, value);
  if (value instanceof Uint8Array) return mutateBytes(r, ctx, value);
  if (value === null || typeof value !== "object" || isWasmObject(value)) return badValue(r, ctx);
  // Every container (object or array) with its path, breadth first.
  const nodes = [[value, "", null, null]];
  for (let i = 0; i < nodes.length && nodes.length < 4000; i++) {
    const [node, at] = nodes[i];
    for (const k of Object.keys(node)) {
      const v = node[k];
      if (v && typeof v === "object" && !ArrayBuffer.isView(v) && !isWasmObject(v)) nodes.push([v, `${at}${Array.isArray(node) ? `[${k}]` : `.${k}`}`, node, k]);
    }
  }
  const [node, at, parent, parentKey] = r.pick(nodes);
  const keys = Object.keys(node);
  const key = keys.length && r.chance(0.85) ? r.pick(keys) : Array.isArray(node) ? String(node.length) : r.pick(KEYS);
  const where = `${at}${Array.isArray(node) ? `[${key}]` : `.${key}`}`;
  const op = r.weighted([[50, "replace"], [8, "wrong type"], [12, "getter"], [7, "delete"], [8, "proxy"], [6, "cycle"], [5, "proto"], [2, "freeze"], [2, "symbol key"]]);
  if (!Object.isExtensible(node)) return badValue(r, ctx); // nothing valid is frozen; just in case
  switch (op) {
    case "replace": {
      const [bad, l] = typeof node[key] === "function" ? badFunction(r, ctx) : badValue(r, ctx);
      node[key] = bad;
      return [value, `${where} := ${l}`];
    }
    case "wrong type": {
      const old = node[key];
      const type = typeof old === "string" ? "string" : typeof old === "number" ? "number" : Array.isArray(old) ? "array" : "object";
      const [bad, l] = wrongType(r, ctx, type);
      node[key] = bad;
      return [value, `${where} := ${l}`];
    }
    case "getter": {
      const [t, tl] = thrown(r);
      Object.defineProperty(node, key, { get() { throw t; }, enumerable: true, configurable: true });
      return [value, `${where} is a getter that throws ${tl}`];
    }
    case "delete":
      delete node[key];
      return [value, `${where} deleted`];
    case "proxy": {
      const [proxy, l] = wrapProxy(r, ctx, node);
      if (!parent) return [proxy, `the input wrapped in ${l}`];
      parent[parentKey] = proxy;
      return [value, `${at} wrapped in ${l}`];
    }
    case "cycle":
      node[key] = r.chance(0.5) ? value : node;
      return [value, `${where} := a container above it (a cycle)`];
    case "proto": {
      const [bad, l] = r.chance(0.5) ? [msg(), "a message"] : badValue(r, ctx, 1);
      Object.defineProperty(node, "__proto__", { value: bad, enumerable: true, configurable: true, writable: true });
      return [value, `${at || "the input"} gets an own "__proto__" key := ${l}`];
    }
    case "freeze":
      Object.freeze(node);
      return [value, `${at || "the input"} frozen`];
    default:
      node[Symbol("key")] = node[key];
      return [value, `${at || "the input"} gets a Symbol key`];
  }
}

const SNIPPETS = [
  ['"', "a quote"], ["{", "{"], ["]", "]"], ["\\", "a backslash"], ["\\ud800", "an escaped lone surrogate"], ["\ud800", "a raw lone surrogate"],
  ["\u0000", "NUL"], ["\\u0000", "an escaped NUL"], [",", "a comma"], ["1e999", "1e999"], ["-0", "-0"], ['"__proto__":{"x":1},', 'a "__proto__" member'],
  ["[".repeat(10000), "10,000 ["], ["\n", "a newline"], ['"a":1,"a":2,', "duplicate keys"], ["99999999999999999999999", "a 23-digit number"],
];

/** `[text, label]`: JSON (Lines) text made bad. */
function mutateText(r, ctx, text) {
  const lines = text.split("\n");
  const ops = [
    () => {
      const at = r.int(text.length + 1);
      return [text.slice(0, at), `text cut at ${at} of ${text.length}`];
    },
    () => {
      const at = r.int(text.length + 1);
      const [s, l] = r.pick(SNIPPETS);
      return [text.slice(0, at) + s + text.slice(at), `${l} inserted at ${at}`];
    },
    () => {
      const at = r.int(Math.max(1, text.length));
      const [s, l] = r.pick(SNIPPETS);
      return [text.slice(0, at) + s + text.slice(at + 1), `character ${at} replaced by ${l}`];
    },
    () => ["\ufeff" + text, "a BOM in front"],
    () => [text + text, "the text twice"],
    () => {
      const depth = r.range(5000, 20000);
      return ["[".repeat(depth) + text + "]".repeat(depth), `the text inside ${depth} brackets`];
    },
    () => {
      // JSON Lines: a line dropped, repeated or swapped.
      if (lines.length < 3) return [text + "\n{}\n", "a {} line appended"];
      const i = r.int(lines.length - 1);
      const copy = [...lines];
      const how = r.pick(["dropped", "repeated", "swapped with the next"]);
      if (how === "dropped") copy.splice(i, 1);
      else if (how === "repeated") copy.splice(i, 0, lines[i]);
      else [copy[i], copy[i + 1]] = [copy[i + 1], copy[i]];
      return [copy.join("\n"), `line ${i} ${how}`];
    },
    () => {
      // Parsed, one place changed, encoded again (when it still encodes).
      let whole = true;
      let doc;
      try {
        doc = JSON.parse(text);
      } catch {
        whole = false;
      }
      const i = whole ? -1 : r.int(lines.length);
      for (let attempt = 0; attempt < 4; attempt++) {
        try {
          const [v, l] = mutate(r, ctx, whole ? structuredClone(doc) : JSON.parse(lines[i]));
          const encoded = JSON.stringify(v);
          if (typeof encoded !== "string") continue;
          if (whole) return [encoded, `JSON re-encoded after: ${l}`];
          const copy = [...lines];
          copy[i] = encoded;
          return [copy.join("\n"), `line ${i} re-encoded after: ${l}`];
        } catch {
          // not encodable (a cycle, a BigInt, a throwing getter…): try another place
        }
      }
      return [text + "\n", "a newline appended"];
    },
  ];
  return r.pick(ops)();
}

/** `[bytes, label]`: checkpoint bytes made bad (or valid bytes in another container). */
function mutateBytes(r, ctx, bytes) {
  const ops = [
    () => {
      const b = bytes.slice();
      const i = r.int(b.length);
      b[i] ^= 1 << r.int(8);
      return [b, `bit flipped in byte ${i} of ${b.length}`];
    },
    () => {
      const n = r.int(bytes.length);
      return [bytes.slice(0, n), `cut to ${n} of ${bytes.length} bytes`];
    },
    () => [new Uint8Array([...bytes, 0xff, 0xfe, 0x00]), "invalid UTF-8 appended"],
    () => {
      const [t, l] = mutateText(r, ctx, new TextDecoder().decode(bytes));
      return [new TextEncoder().encode(t), `as text: ${l}`];
    },
    () => {
      const big = new Uint8Array(bytes.length + 16);
      big.set(bytes, 7);
      return [big.subarray(7, 7 + bytes.length), "the same bytes at offset 7 of a larger buffer"];
    },
    () => [Buffer.from(bytes), "the same bytes as a Buffer"],
    () => [new Uint8Array(0), "no bytes"],
  ];
  return r.pick(ops)();
}

// ---------------------------------------------------------------------------------------------
// The case's world: a witness, a subject store, a child, an AsyncTasks with a fake server, a log

/** A plain Agent Protocol server in memory (the shapes of src/tasks/tests/mod.rs), with faults. */
function fakeServer(ctx) {
  const threads = new Map();
  const runs = [];
  let n = 0;
  const ok = (body) => ({ status: 200, body });
  const parts = (url) => url.replace(/^https?:\/\/[^/]+/, "").split(/[/?]/).filter(Boolean);
  const answer = (req) => {
    const p = parts(req.url);
    switch (req.call) {
      case "create_thread": {
        const id = `th-${++n}`;
        threads.set(id, { thread_id: id, status: "idle", metadata: req.body?.metadata ?? {}, values: { messages: [] } });
        return ok(threads.get(id));
      }
      case "search_threads":
        return ok([...threads.values()]);
      case "create_run": {
        if (!threads.has(p[1])) return { status: 404, body: { detail: "not found" } };
        const run = { run_id: `run-${++n}`, thread_id: p[1], status: "running" };
        runs.push(run);
        return ok(run);
      }
      case "get_run": {
        const run = runs.find((x) => x.run_id === p[3]);
        if (!run) return { status: 404, body: { detail: "not found" } };
        if (run.status === "running") {
          run.status = "success";
          threads.get(run.thread_id)?.values.messages.push({ type: "ai", content: "done" });
        }
        return ok(run);
      }
      case "list_runs":
        return ok(runs.filter((x) => x.thread_id === p[1]).slice(-1));
      case "get_thread":
        return threads.has(p[1]) ? ok(threads.get(p[1])) : { status: 404, body: { detail: "not found" } };
      case "get_thread_state":
        return threads.has(p[1]) ? ok({ values: threads.get(p[1]).values }) : { status: 404, body: { detail: "not found" } };
      case "cancel_run":
        return ok({});
      default:
        return { status: 422, body: { detail: `no route ${req.method} ${req.url}` } };
    }
  };
  /** The transport: the server's answer, unless the case armed a fault for this call. */
  const send = (req) => {
    const fault = ctx.armed ? ctx.fault : null;
    if (fault && (fault.call === "*" || fault.call === req.call)) return fault.answer(req, answer);
    return Promise.resolve(answer(req));
  };
  return { send };
}

const CALLS = ["create_thread", "create_run", "get_run", "list_runs", "get_thread", "get_thread_state", "cancel_run", "search_threads"];

/** A fault of the transport for one kind of call: it throws, rejects, or answers garbage. */
function transportFault(r, ctx) {
  const call = r.pick([...CALLS, "*"]);
  const kind = r.weighted([
    [3, () => {
      const [body, l] = badValue(r, ctx, 1);
      return [(req, answer) => Promise.resolve({ status: 200, body }), `answers 200 with the body ${l}`];
    }],
    [3, () => {
      const [bad, l] = mutate(r, ctx, { status: 200, body: { thread_id: "th-x", run_id: "run-x", status: "success", values: { messages: [{ type: "ai", content: "done" }] } } });
      return [() => Promise.resolve(bad), `answers ${l}`];
    }],
    [2, () => {
      const [status, l] = badValue(r, ctx, 1);
      return [() => Promise.resolve({ status, body: {} }), `answers the status ${l}`];
    }],
    [2, () => {
      const [v, l] = badValue(r, ctx, 1);
      return [() => Promise.resolve(v), `resolves with ${l}`];
    }],
    [2, () => {
      const [t, tl] = thrown(r);
      return [() => rejected(t), `rejects with ${tl}`];
    }],
    [2, () => {
      const [t, tl] = thrown(r);
      return [() => { throw t; }, `throws ${tl}`];
    }],
    [1, () => {
      const [v, l] = badValue(r, ctx, 1);
      return [() => v, `returns ${l} (not a Promise)`];
    }],
    [1, () => {
      const [t, tl] = thrown(r);
      return [() => ({ then() { throw t; } }), `returns a thenable whose then throws ${tl}`];
    }],
    [1, () => [(req, answer) => { ctx.subject.apply({ author: "user", update: { messages: [{ role: "user", content: "meanwhile" }] } }); ctx.hookWrote = true; return Promise.resolve(answer(req)); }, "writes to the store, then answers"]],
    [1, () => [(req, answer) => { freeFromInside(ctx); return Promise.resolve(answer(req)); }, "frees the store, then answers"]],
  ])();
  return { call, answer: kind[0], label: `the transport, for ${call === "*" ? "every call" : call}, ${kind[1]}` };
}

const AGENTS = () => [
  { name: "researcher", description: "Researches a topic", graph_id: "research" },
  { name: "forker", description: "Works from the parent's view", graph_id: "fork", mode: "fork", retry: { max_attempts: 2, backoff_ms: 0 }, timeout_ms: 60_000 },
];

/** The subject store: custom and private channels, a conversation with an unanswered call. */
function makeSubject(r, ctx) {
  let t = 1_700_000_000_000;
  const init = { runId: "sweep", channels: CUSTOM_CHANNELS() };
  if (r.chance(0.7)) {
    // Callbacks that misbehave only while the call under test runs (ctx.armed).
    const hook = (name, fallback) => (...a) => (ctx.armed && ctx.hooks[name] ? ctx.hooks[name](...a) : fallback(...a));
    init.clock = hook("clock", () => t++);
    init.onEvents = hook("onEvents", () => {});
    init.audit = hook("audit", () => {});
    ctx.hookable = true;
  } else {
    init.clock = () => t++;
  }
  const s = ctx.track(new StateStore(init));
  ctx.key = s.registerChannel(PRIVATE_SPEC());
  s.apply({ author: "app", update: { run: { status: "running" } } });
  const odd = r.pick(["plain", "emoji 😀", "lone \ud800 surrogate", "NUL \u0000", "x".repeat(20_000)]);
  s.apply({ author: "user", update: { messages: [{ role: "user", content: `Weather in Paris? ${odd}`, id: "u1" }], facts: JSON.parse('{"city": "Paris", "__proto__": {"own": true}}') } });
  s.apply({ author: "model", update: { messages: [{ type: "ai", content: "", id: "a1", tool_calls: [{ id: "c1", name: "get_weather", args: { city: "Paris" } }, { id: "c2", name: "search", args: { q: nest(30, "mixed") } }] }] } });
  if (r.chance(0.5)) s.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "c1", content: "sunny" }] } });
  s.apply({ author: "planner", update: { scratch: "private plan" } });
  if (r.chance(0.3)) s.apply({ author: "a", update: { log: ["l1"], tags: ["t1"], steps: 1, kv: { k: 1 }, phase: "plan" } });
  if (r.chance(0.1)) {
    s.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "c2", content: "news" }] } });
    s.compact({ summary: "earlier: weather", cut: s.compactionPlan({ keep: 2 }) });
  }
  return s;
}

/** An AsyncTasks on the subject with one task started, and a turn of unanswered task calls. */
async function makeTasks(r, ctx) {
  ctx.server = fakeServer(ctx);
  const tasks = ctx.track(new AsyncTasks(ctx.subject, { url: "http://agent.test", agents: AGENTS(), requestTimeoutMs: 500, transport: ctx.server.send }));
  ctx.subject.apply({ author: "model", update: { messages: [{ type: "ai", content: "", tool_calls: [{ id: "ts1", name: "start_async_task", args: { description: "look into A", subagent_type: "researcher" } }] }] } });
  const started = await tasks.handle({ id: "ts1", name: "start_async_task", args: { description: "look into A", subagent_type: "researcher" } });
  const id = /task_id: (\S+)/.exec(started.content)?.[1] ?? "unknown-task";
  if (r.chance(0.6)) await tasks.poll(); // the fake server's run succeeds: a notification is queued
  ctx.taskCalls = [
    { id: "ts2", name: "start_async_task", args: { description: "fork on B", subagent_type: r.pick(["researcher", "forker"]) } },
    { id: "tk", name: "check_async_task", args: { task_id: id } },
    { id: "tu", name: "update_async_task", args: { task_id: id, message: "also B" } },
    { id: "tx", name: "cancel_async_task", args: { task_id: id } },
    { id: "tl", name: "list_async_tasks", args: {} },
  ];
  ctx.subject.apply({ author: "model", update: { messages: [{ type: "ai", content: "", tool_calls: [...ctx.taskCalls, { id: "c7", name: "search", args: {} }] }] } });
  return tasks;
}

const TOOL_CALL_SHAPES = [
  (c) => ({ id: c.id, name: c.name, args: c.args }),
  (c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } }),
  (c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args }),
  (c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.args }),
  (c) => ({ functionCall: { id: c.id, name: c.name, args: c.args } }),
];

/** A FileLog in the case's own directory, holding the subject's events (and a checkpoint). */
function makeLog(r, ctx) {
  const dir = fs.mkdtempSync(path.join(ctx.root, "log-"));
  const log = FileLog.open(dir);
  ctx.logs.push(log);
  if (r.chance(0.7)) log.append(ctx.subject.events());
  if (r.chance(0.1)) fs.appendFileSync(path.join(dir, "events.jsonl"), '{"event_id":"torn');
  if (r.chance(0.05)) fs.mkdirSync(path.join(dir, "checkpoint.bin")); // a directory where the checkpoint goes
  else if (r.chance(0.5)) log.saveCheckpoint(ctx.subject.checkpoint());
  return log;
}

/** FileLog.open creates what it is given: keep every path inside the case's directory. */
function confine(ctx, dir) {
  const safe = (text) => (text.includes("/") || text.includes("\\") || text.includes("..") ? text.replace(/[/\\.]/g, "_") : text);
  if (typeof dir === "string") return safe(dir) === dir ? path.join(ctx.root, dir || "empty") : path.join(ctx.root, safe(dir));
  try {
    if (dir instanceof URL) return new URL(`file://${path.join(ctx.root, "url")}`);
    if (ArrayBuffer.isView(dir)) return Buffer.from(path.join(ctx.root, "bytes"));
  } catch {
    // a revoked Proxy: fs cannot read a path from it either
  }
  return dir;
}

// ---------------------------------------------------------------------------------------------
// The targets: every exported function, and every member of the exported classes

const proto = (cls, name) => {
  const d = Object.getOwnPropertyDescriptor(cls.prototype, name);
  return d.get ?? d.value;
};
// A target: `name`; `recv`, the class whose instance it is called on (null for functions and
// statics); `valid(r, ctx)`, fresh valid arguments; `types`, each argument's documented type (for
// a wrong one); `call(recv, args)`. Options: `async` (returns a Promise), `tasks` (needs the
// AsyncTasks world), `withTasks` (half the time the subject has a task ledger and notifications),
// `log` (needs a FileLog), `child` (needs a child made by subagentInput), `frees` (frees its
// receiver), `noMutate` (its valid argument must not be copied), `confine` (creates directories).

/** A method of `cls`, called on the case's receiver (which may be a wrong one). */
const method = (cls, name, valid, types, extra = {}) => ({ name: `${cls.name}.${name}`, recv: cls, call: (recv, args) => proto(cls, name).apply(recv, args), valid, types, ...extra });
const getter = (cls, name) => method(cls, name, () => [], []);
const fn = (name, valid, types, extra = {}) => ({ name, recv: null, call: (_, args) => pkg[name](...args), valid, types, ...extra });
const opt = (r, p, v) => (r.chance(p) ? v() : undefined);

const TARGETS = [
  // Functions
  fn("validateMessages", (r) => [messagesInput(r), { provider: r.pick(PROVIDERS) }], ["messages", "object"]),
  fn("repairMessages", (r) => [messagesInput(r), opt(r, 0.7, () => repairOptions(r))], ["messages", "object"]),
  fn("convertMessages", (r) => [messagesInput(r), { to: r.pick(FORMATS) }], ["messages", "object"]),
  fn("decodeMessages", (r) => [messagesInput(r)], ["messages"]),
  fn("projectMessages", (r) => [messagesInput(r), projectOptions(r)], ["messages", "object"]),
  fn("providerOf", (r) => [r.pick(FORMATS)], ["string"]),
  fn("readTranscript", (r) => [r.pick(POOL.transcripts), opt(r, 0.5, () => ({ format: r.pick(FORMATS) }))], ["string", "object"]),
  fn("verifyLog", (r, ctx) => {
    const events = ctx.subject.events();
    if (r.chance(0.3)) {
      const k = r.range(1, events.length - 1);
      return [events.slice(k), { after: { sequence: events[k - 1].sequence, hash: events[k - 1].hash } }];
    }
    return [r.chance(0.5) ? events : ctx.subject.eventsJsonl(), undefined];
  }, ["events", "object"]),
  fn("subagentInput", (r, ctx) => [ctx.subject, { description: "research A", ...(r.chance(0.3) && { mode: r.pick(["isolated", "fork"]) }), ...(r.chance(0.2) && { allow: ["files", "facts"] }), ...(r.chance(0.2) && { exclude: ["todos"] }), ...(r.chance(0.4) && { agent: "researcher" }), ...(r.chance(0.3) && { toolCallId: "c2" }), ...(r.chance(0.1) && { runId: "child-run" }), ...(r.chance(0.2) && { budget: 4000 }) }], ["store", "object"], { withTasks: true }),
  fn("subagentResult", (r, ctx) => [ctx.child, "c2", opt(r, 0.3, () => ({ allow: ["files"] }))], ["store", "string", "object"], { child: true }),
  fn("isStategateError", (r) => [r.pick([() => pkg.stategateError("INVALID_OPTION", "x"), () => new Error("plain"), () => new TypeError("t")])()], ["any"]),
  fn("stategateError", (r) => [r.pick([...ERROR_CODES]), "a message", opt(r, 0.5, () => ({ field: "x", index: 1 }))], ["string", "string", "object"]),
  { name: "new StategateError", recv: null, call: (_, args) => new pkg.StategateError(...args), valid: (r) => [r.pick([...ERROR_CODES]), "a message", opt(r, 0.5, () => ({ channel: "todos" }))], types: ["string", "string", "object"] },
  // Loading again once loaded (the Node entry loads at import) returns the API at once, whatever the source.
  fn("load", (r) => [opt(r, 0.5, () => r.pick(["file:///nowhere/stategate_wasm_bg.wasm", "http://127.0.0.1:9/x.wasm", new Uint8Array([0, 97, 115, 109])]))], ["any"], { async: true }),
  fn("loadSync", () => [new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])], ["any"]),
  fn("readStream", (r) => {
    const format = r.pick(Object.keys(POOL.streams));
    const chunks = POOL.streams[format];
    return [clone(chunks.slice(0, r.range(1, chunks.length))), { format, ...(r.chance(0.4) && { to: r.pick(FORMATS) }) }];
  }, ["array", "object"]),
  // The module itself, never a copy: makeApi guards the classes of any other module object again.
  fn("makeApi", () => [glue], ["object"], { noMutate: true }),

  // StateStore
  { name: "new StateStore", recv: null, call: (_, args) => new StateStore(...args), types: ["object"], valid: (r) => {
    let t = 0;
    const init = {};
    if (r.chance(0.5)) init.runId = "fresh";
    if (r.chance(0.5)) init.channels = CUSTOM_CHANNELS();
    if (r.chance(0.3)) init.clock = () => ++t;
    if (r.chance(0.3)) init.onEvents = () => {};
    if (r.chance(0.3)) init.audit = () => {};
    return [r.chance(0.2) ? undefined : init];
  } },
  { name: "StateStore.replay", recv: null, withTasks: true, call: (_, args) => StateStore.replay(...args), types: ["events", "object"], valid: (r, ctx) => [r.chance(0.5) ? ctx.subject.events() : ctx.subject.eventsJsonl(), { channels: [...CUSTOM_CHANNELS(), PRIVATE_SPEC()], ...(r.chance(0.3) && { clock: () => 1 }), ...(r.chance(0.3) && { onEvents: () => {} }) }] },
  { name: "StateStore.restore", recv: null, withTasks: true, call: (_, args) => StateStore.restore(...args), types: ["bytes", "events", "object"], valid: (r, ctx) => [ctx.subject.checkpoint(), opt(r, 0.5, () => (r.chance(0.5) ? ctx.subject.events() : ctx.subject.eventsJsonl())), opt(r, 0.3, () => ({ clock: () => 1, audit: () => {} }))] },
  { name: "StateStore.follow", recv: null, withTasks: true, call: (_, args) => StateStore.follow(...args), types: ["object", "object"], valid: (r, ctx) => [r.chance(0.5) ? ctx.subject.exportForTransport() : JSON.stringify(ctx.subject.exportForTransport()), opt(r, 0.3, () => ({ clock: () => 1 }))] },
  method(StateStore, "apply", (r, ctx) => [validCommand(r, ctx.subject)], ["object"]),
  method(StateStore, "preview", (r, ctx) => [validCommand(r, ctx.subject)], ["object"]),
  method(StateStore, "previewBatch", (r, ctx) => [Array.from({ length: r.range(1, 3) }, () => validCommand(r, ctx.subject))], ["array"]),
  method(StateStore, "ingest", (r, ctx) => [r.chance(0.5) ? ctx.subject.events() : ctx.subject.eventsJsonl()], ["events"]),
  method(StateStore, "transportEvents", (r) => [opt(r, 0.6, () => eventQuery(r))], ["object"]),
  method(StateStore, "previewRepair", (r) => [opt(r, 0.7, () => ({ ...repairOptions(r), ...(r.chance(0.3) && { author: "fixer" }) }))], ["object"]),
  method(StateStore, "compactionCommand", (r, ctx) => [{ summary: "so far", cut: ctx.subject.compactionPlan({ keep: r.range(0, 3) }) }], ["object"]),
  method(StateStore, "check", (r, ctx) => [validCommand(r, ctx.subject)], ["object"]),
  method(StateStore, "applyBatch", (r, ctx) => [Array.from({ length: r.range(1, 3) }, () => validCommand(r, ctx.subject))], ["array"]),
  method(StateStore, "at", (r, ctx) => [r.range(0, ctx.subject.version)], ["number"]),
  method(StateStore, "channels", () => [], []),
  method(StateStore, "checkpoint", () => [], [], { withTasks: true }),
  method(StateStore, "claimOwnerKey", (r) => [r.pick(["planner", "critic"])], ["string"]),
  method(StateStore, "compact", (r, ctx) => [{ summary: "so far: weather", cut: ctx.subject.compactionPlan({ keep: r.range(0, 3) }), ...(r.chance(0.3) && { author: "summariser" }) }], ["object"], { withTasks: true }),
  method(StateStore, "privateLeaks", (r) => [Array.from({ length: r.range(0, 3) }, () => r.pick(["plain text", "CANARY-priv-31337x", { text: "x" }]))], ["array"]),
  method(StateStore, "compactionPlan", (r) => [{ keep: r.range(0, 6) }], ["object"]),
  method(StateStore, "danglingToolCalls", () => [], []),
  method(StateStore, "approvals", () => [], []),
  // The subject's history asks no approval: a valid-looking decision is refused (UNKNOWN_TOOL_CALL), the store unchanged.
  method(StateStore, "decide", (r) => [{ approvalId: r.pick(["ap1", "approval-x"]), approved: r.chance(0.5), author: r.pick(["alice", "ui"]), ...(r.chance(0.3) && { reason: "not now" }) }], ["object"]),
  method(StateStore, "deliverNotifications", () => [], [], { withTasks: true }),
  method(StateStore, "eventsJsonl", (r) => [opt(r, 0.6, () => eventQuery(r))], ["object"]),
  method(StateStore, "events", (r) => [opt(r, 0.6, () => eventQuery(r))], ["object"]),
  method(StateStore, "exportForTransport", () => [], [], { withTasks: true }),
  method(StateStore, "get", (r) => [r.pick(CHANNEL_NAMES)], ["string"]),
  method(StateStore, "messages", (r) => [opt(r, 0.7, () => r.pick(FORMATS))], ["string"]),
  method(StateStore, "modelView", (r) => [projectOptions(r)], ["object"], { withTasks: true }),
  method(StateStore, "notifications", () => [], [], { withTasks: true }),
  method(StateStore, "private", (r, ctx) => [ctx.key], ["string"]),
  method(StateStore, "registerChannel", (r, ctx) => {
    const spec = channelSpec(r);
    return [spec, spec.owner === "planner" ? ctx.key : undefined];
  }, ["object", "string"]),
  method(StateStore, "repair", (r) => [opt(r, 0.7, () => ({ ...repairOptions(r), ...(r.chance(0.3) && { author: "fixer" }) }))], ["object"]),
  method(StateStore, "systemView", () => [], []),
  method(StateStore, "toJSON", () => [], []),
  method(StateStore, "free", () => [], [], { frees: true }),
  { ...method(StateStore, "free", () => [], [], { frees: true }), name: "StateStore[Symbol.dispose]", call: (recv, args) => StateStore.prototype[Symbol.dispose].apply(recv, args) },
  getter(StateStore, "lastHash"),
  getter(StateStore, "runId"),
  getter(StateStore, "version"),

  // AsyncTasks
  { name: "new AsyncTasks", recv: null, call: (_, args) => new AsyncTasks(...args), types: ["store", "object"], valid: (r, ctx) => {
    ctx.server ??= fakeServer(ctx);
    const init = { agents: AGENTS(), url: "http://agent.test", transport: r.chance(0.5) ? ctx.server.send : { send: ctx.server.send } };
    if (r.chance(0.3)) init.headers = { "x-api-key": "k" };
    if (r.chance(0.2)) init.parentThreadId = "parent-thread";
    if (r.chance(0.3)) init.requestTimeoutMs = 1000;
    if (r.chance(0.2)) init.forkBudget = 4000;
    return [ctx.subject, init];
  } },
  method(AsyncTasks, "handle", (r, ctx) => [r.pick(TOOL_CALL_SHAPES)(r.pick(ctx.taskCalls)), opt(r, 0.4, () => ({ apply: r.chance(0.5) }))], ["object", "object"], { async: true, tasks: true }),
  method(AsyncTasks, "poll", () => [], [], { async: true, tasks: true }),
  method(AsyncTasks, "untracked", () => [], [], { async: true, tasks: true }),
  method(AsyncTasks, "isTaskTool", (r) => [r.pick([...TASK_TOOLS, "search"])], ["string"], { tasks: true }),
  method(AsyncTasks, "ledger", () => [], [], { tasks: true }),
  method(AsyncTasks, "tools", () => [], [], { tasks: true }),
  method(AsyncTasks, "free", () => [], [], { tasks: true, frees: true }),
  { ...method(AsyncTasks, "free", () => [], [], { tasks: true, frees: true }), name: "AsyncTasks[Symbol.dispose]", call: (recv, args) => AsyncTasks.prototype[Symbol.dispose].apply(recv, args) },

  // StreamReader (the case's own has read the first chunks of its stream)
  { name: "new StreamReader", recv: null, call: (_, args) => new StreamReader(...args), types: ["object"], valid: (r) => [{ format: r.pick(Object.keys(POOL.streams)) }] },
  method(StreamReader, "push", (r, ctx) => [clone(ctx.streamChunks[ctx.streamAt] ?? ctx.streamChunks[0])], ["any"], { stream: true }),
  method(StreamReader, "messages", (r) => [opt(r, 0.6, () => r.pick(FORMATS))], ["string"], { stream: true }),
  method(StreamReader, "end", () => [], [], { stream: true }),
  method(StreamReader, "free", () => [], [], { stream: true, frees: true }),
  { ...method(StreamReader, "free", () => [], [], { stream: true, frees: true }), name: "StreamReader[Symbol.dispose]", call: (recv, args) => StreamReader.prototype[Symbol.dispose].apply(recv, args) },

  // Live followers (issue 18): followRun over a bad source function, and over messages of the
  // subject (mutated: the sweep reaches into the snapshot and the events); followEventSource with
  // a fake EventSource. Each answers with the follower's `done`, closed after FOLLOW_MS.
  { name: "followRun", recv: null, async: true, call: (_, args) => followed(() => pkg.followRun(...args)), types: ["function", "object"], valid: (r, ctx) => [() => followMessages(r, ctx), opt(r, 0.6, () => followOptions(r))] },
  { name: "followRun", recv: null, async: true, call: (_, [messages, opts]) => followed(() => pkg.followRun(() => messages, opts)), types: ["array", "object"], valid: (r, ctx) => [followMessages(r, ctx), opt(r, 0.6, () => followOptions(r))] },
  { name: "followEventSource", recv: null, async: true, call: (_, args) => followed(() => pkg.followEventSource(...args)), types: ["string", "object"], valid: (r, ctx) => [r.pick(["/events", "http://127.0.0.1:9/events?since=1#x", new URL("http://127.0.0.1:9/e")]), { ...followOptions(r), EventSource: fakeEventSource(followMessages(r, ctx)) }] },

  // SseHub (stategate/sse): the case's hub on the subject; requests and responses are fakes.
  { name: "new SseHub", recv: null, call: (_, args) => trackHub(new SseHub(...args)), types: ["store", "object"], valid: (r, ctx) => [ctx.subject, { heartbeatMs: r.pick([0, 0, 50]), ...(r.chance(0.3) && { retryMs: 10 }), ...(r.chance(0.3) && { maxBufferedBytes: 100 }), ...(r.chance(0.2) && { headers: { "access-control-allow-origin": "*" } }), ...(r.chance(0.2) && { onConnect: () => {} }) }] },
  method(SseHub, "handle", (r) => [fakeRequest(r), fakeResponse()], ["object", "object"], { hub: true }),
  method(SseHub, "notify", () => [], [], { hub: true }),
  method(SseHub, "drop", () => [], [], { hub: true }),
  method(SseHub, "close", () => [], [], { hub: true }),
  getter(SseHub, "clients"),
  getter(SseHub, "dropped"),

  // FileLog
  { name: "FileLog.open", recv: null, call: (_, args) => FileLog.open(...args), types: ["string"], valid: (r, ctx) => [fs.mkdtempSync(path.join(ctx.root, "open-"))], confine: true },
  method(FileLog, "append", (r, ctx) => [r.chance(0.5) ? ctx.subject.events() : ctx.subject.eventsJsonl()], ["events"], { log: true }),
  method(FileLog, "saveCheckpoint", (r, ctx) => [ctx.subject.checkpoint()], ["bytes"], { log: true }),
  method(FileLog, "load", () => [], [], { log: true }),
  method(FileLog, "close", () => [], [], { log: true }),
];

/** Followers and hubs a case made: closed when it ends. */
const FOLLOWERS = [];
const HUBS = [];
const trackHub = (hub) => (HUBS.push(hub), hub);
/** How long a follower of a case runs before it is closed (a source that keeps failing retries until then). */
const FOLLOW_MS = 50;

/** Starts a follower; its `done` (a refusal at the start as a rejection), the follower closed after FOLLOW_MS. */
function followed(start) {
  let follower;
  try {
    follower = start();
  } catch (e) {
    return rejected(e);
  }
  FOLLOWERS.push(follower);
  const timer = setTimeout(() => follower.close(), FOLLOW_MS);
  return follower.done.finally(() => clearTimeout(timer));
}

/** A run's transport messages: a snapshot of the subject at some version, then its events after it (objects or text). */
function followMessages(r, ctx) {
  const s = ctx.subject;
  const k = r.range(0, s.version);
  const past = ctx.track(s.at(k));
  const snapshot = past.exportForTransport();
  const events = s.transportEvents({ since: r.chance(0.8) ? k : Math.max(0, k - 1) });
  return [{ snapshot: r.chance(0.7) ? snapshot : JSON.stringify(snapshot) }, { events: r.chance(0.6) ? events : events.map((e) => JSON.stringify(e)).join("\n") }];
}
const followOptions = (r) => ({ retries: r.pick([0, 1, 3]), retryDelayMs: r.pick([0, 1]), ...(r.chance(0.3) && { onChange: () => {} }), ...(r.chance(0.2) && { onRetry: () => {} }), ...(r.chance(0.2) && { storeOptions: { clock: () => 1 } }), ...(r.chance(0.2) && { allowRewind: r.chance(0.5) }) });

/** An EventSource that delivers `messages` (as the hub sends them) once constructed, then stays open. */
function fakeEventSource(messages) {
  return class FakeEventSource {
    readyState = 0;
    #listeners = new Map();
    constructor() {
      queueMicrotask(() => {
        this.readyState = 1;
        for (const m of messages) {
          const [type, data] = "snapshot" in m ? ["snapshot", typeof m.snapshot === "string" ? m.snapshot : JSON.stringify(m.snapshot)] : ["events", typeof m.events === "string" ? m.events : m.events.map((e) => JSON.stringify(e)).join("\n")];
          for (const f of this.#listeners.get(type) ?? []) f({ data, lastEventId: "" });
        }
      });
    }
    addEventListener(type, f) {
      this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), f]);
    }
    close() {
      this.readyState = 2;
    }
  };
}

/** A request as node:http gives the hub one (only what it reads). */
const fakeRequest = (r) => ({ method: r.chance(0.9) ? "GET" : "POST", url: r.pick(["/events", "/events?since=2", "/events?since=99", "/events?since=x"]), headers: r.chance(0.4) ? { "last-event-id": String(r.range(0, 9)) } : {} });
/** A response as node:http gives the hub one: records what is written. */
function fakeResponse() {
  return {
    out: "",
    writableLength: 0,
    writeHead() {
      return this;
    },
    write(text) {
      this.out += text;
      return true;
    },
    end() {},
    on() {},
    destroy() {},
  };
}

/** Exports deliberately not swept, with why (the coverage test below names anything else). */
const NOT_SWEPT = {
  FileLog: "its constructor is private: FileLog.open makes one",
  // IndexedDB exists only in browsers (indexeddb.test.mjs runs it in headless Chromium and Firefox):
  // in Node `open` rejects, so no instance can be swept here.
  // Every call of PostgresLog and PostgresRun talks to a PostgreSQL server (the sweep has none, and
  // a hostile connection string would send it elsewhere); tests/js/postgres-log.test.mjs checks
  // their typed errors (options, refused commands, a closed log, conflicts) against a real one.
  ...Object.fromEntries(["PostgresLog", "PostgresLog.connect", "PostgresLog.migrate", "PostgresLog.load", "PostgresLog.open", "PostgresLog.close", "PostgresRun", "PostgresRun.apply", "PostgresRun.applyBatch", "PostgresRun.repair", "PostgresRun.compact", "PostgresRun.sync", "PostgresRun.checkpoint", "PostgresRun.claimOwnerKey"].map((k) => [k, "needs a PostgreSQL server: its typed errors are tested in postgres-log.test.mjs"])),
  ...Object.fromEntries(["IndexedDbLog", "IndexedDbLog.free", "IndexedDbLog.append", "IndexedDbLog.close", "IndexedDbLog.load", "IndexedDbLog.saveCheckpoint", "IndexedDbLog[Symbol.dispose]", "IndexedDbLog.destroy", "IndexedDbLog.open"].map((k) => [k, "IndexedDB is browser-only (tests/js/indexeddb.test.mjs checks its typed errors in headless Chromium and Firefox)"])),
};

/** Every export, and every method, getter and static of the exported classes, by target name. */
function publicSurface() {
  const names = [];
  for (const [key, value] of Object.entries(pkg)) {
    if (typeof value !== "function" || !/^[A-Z]/.test(key) || !value.prototype) {
      names.push(key);
      continue;
    }
    names.push(`new ${key}`);
    for (const m of Object.getOwnPropertyNames(value.prototype)) if (m !== "constructor" && !m.startsWith("__")) names.push(`${key}.${m}`);
    if (Symbol.dispose && Symbol.dispose in value.prototype) names.push(`${key}[Symbol.dispose]`);
    for (const m of Object.getOwnPropertyNames(value)) if (!["length", "name", "prototype"].includes(m) && !m.startsWith("__")) names.push(`${key}.${m}`);
  }
  return names;
}

// ---------------------------------------------------------------------------------------------
// Checks

/** V8's messages of a wasm trap (WebAssembly.RuntimeError), wherever they appear in a message. */
const TRAP = /\b(RuntimeError|unreachable|memory access out of bounds|divide by zero|remainder by zero|integer overflow|float unrepresentable in integer range|table index is out of bounds|null function or function signature mismatch|illegal cast)\b/;
/** The façade's fallback (api.ts `guarded`, `guardClass`): `INVALID_OPTION: <what>: <raw message>`. */
const FALLBACK = /^INVALID_OPTION: ((?:new )?[A-Za-z]+(?:\.[A-Za-z]+)?): (.*)$/s;
/**
 * Raw messages of the engine's own RangeErrors (a stack overflow, an allocation that failed): when
 * the fallback relabels one from a wasm-backed call, the core did not handle it (a stack overflow
 * inside wasm unwinds Rust frames without running their drops).
 */
const ENGINE = /^(Maximum call stack size exceeded|Invalid (array|string|typed array) length.*|Array buffer allocation failed|Out of memory.*|WebAssembly\.Memory.*)$/s;

function describeError(e) {
  try {
    if (e instanceof Error) return `${e.constructor?.name ?? "Error"}${e.code !== undefined ? ` [${String(e.code)}]` : ""}: ${String(e.message).slice(0, 300)}`;
    return `${typeof e}: ${String(e).slice(0, 200)}`;
  } catch {
    return "a value that cannot be described";
  }
}

/** Null when `e` is a proper StategateError, else what is wrong with it. */
function badError(e) {
  let isError;
  try {
    isError = e instanceof Error;
  } catch {
    return "threw a value that cannot be inspected";
  }
  if (!isError) return `threw a non-Error (${typeof e})`;
  if (!isStategateError(e)) return `threw a raw ${e.constructor?.name ?? "Error"} (no StategateError)`;
  if (typeof e.code !== "string" || e.code === "" || !ERROR_CODES.has(e.code)) return `threw an unknown code ${JSON.stringify(e.code)}`;
  if (typeof e.details !== "object" || e.details === null) return "threw a StategateError without details";
  const message = String(e.message);
  if (TRAP.test(message)) return `a wasm trap passed off as ${e.code}`;
  // FileLog is plain JS: a RangeError there is the engine's, not a sign of a broken wasm instance.
  const fallback = FALLBACK.exec(message);
  if (fallback && !fallback[1].startsWith("FileLog") && ENGINE.test(fallback[2])) return `an engine RangeError relabelled INVALID_OPTION by ${fallback[1]}`;
  return null;
}

/** What a store shows: everything but its callbacks, as one string. */
function snapshot(store, key) {
  return [store.version, store.lastHash, JSON.stringify(store.systemView()), store.eventsJsonl(), key ? JSON.stringify(store.private(key)) : ""].join("\n");
}

const settle = (promise) =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ timeout: true }), ASYNC_TIMEOUT_MS);
    promise.then(
      (value) => (clearTimeout(timer), resolve({ value })),
      (error) => (clearTimeout(timer), resolve({ rejected: true, error })),
    );
  });

// ---------------------------------------------------------------------------------------------
// One case

/** `[receiver, label]` for a method of `cls`: the case's object, or (rarely) a wrong one. */
function receiver(r, ctx, cls, own) {
  if (r.chance(0.93)) {
    if (cls === StateStore && r.chance(0.12)) {
      const pick = r.pick(["view", "replayed", "restored"]);
      const s = ctx.subject;
      const other =
        pick === "view" ? s.at(r.range(0, s.version)) : pick === "replayed" ? StateStore.replay(s.eventsJsonl(), { channels: [...CUSTOM_CHANNELS(), PRIVATE_SPEC()] }) : StateStore.restore(s.checkpoint());
      ctx.track(other);
      ctx.involved.push({ store: other, key: pick === "view" ? ctx.key : null, label: `the ${pick} store` });
      return [other, `a ${pick} copy of the subject`];
    }
    return [own, "the case's own"];
  }
  return r.pick([
    () => [{}, "{}"],
    () => [null, "null"],
    () => [undefined, "undefined"],
    () => [Object.create(cls.prototype), `Object.create(${cls.name}.prototype)`],
    () => {
      if (cls === StateStore) {
        const s = new StateStore();
        s.free();
        return [s, "a freed StateStore"];
      }
      if (cls === FileLog) {
        const log = FileLog.open(fs.mkdtempSync(path.join(ctx.root, "closed-")));
        log.close();
        return [log, "a closed FileLog"];
      }
      if (cls === SseHub) {
        const hub = trackHub(new SseHub(ctx.subject, { heartbeatMs: 0 }));
        hub.close();
        return [hub, "a closed SseHub"];
      }
      return [own && (own.free(), own), `a freed ${cls.name}`];
    },
    () => {
      if (cls === FileLog || cls === SseHub) return [new Message(), "a class instance"];
      const other = cls === StateStore ? ctx.track(new StateStore()) : own;
      other[Symbol.dispose]();
      return [other, `a ${cls.name} disposed with [Symbol.dispose]()`];
    },
    () => {
      // A wasm object of the other class: methods are shared JS functions, the pointer is not.
      if (cls === StateStore) return [ctx.tasksForConfusion(), "an AsyncTasks (the wrong wasm class)"];
      if (cls === AsyncTasks) return [ctx.subject, "a StateStore (the wrong wasm class)"];
      return [ctx.subject, "a StateStore"];
    },
  ])();
}

/** The argument at `i`: valid, mutated, bad, a wrong type, or left out. */
function argument(r, ctx, value, type, noMutate) {
  const structured = !noMutate && value !== null && (typeof value === "object" || typeof value === "string") && !isWasmObject(value);
  const how = r.weighted([[35, "valid"], [structured ? 30 : 0, "mutated"], [20, "bad"], [type ? 15 : 0, "wrong type"], [5, "left out"]]);
  if (how === "valid") return [value, "valid", false];
  if (how === "mutated") {
    const [v, l] = mutate(r, ctx, value);
    return [v, `valid, mutated: ${l}`, true];
  }
  if (how === "bad") {
    const [v, l] = typeof value === "function" ? badFunction(r, ctx) : badValue(r, ctx);
    return [v, l, true];
  }
  if (how === "wrong type") {
    const [v, l] = wrongType(r, ctx, type);
    return [v, l, true];
  }
  return [undefined, "left out", true];
}

/**
 * Builds and runs case `i`: the world, the call, the checks. Returns `{ target, description,
 * failures: [{ kind, thrown }], poisoned }`.
 */
async function runCase(i, targets, root, witness) {
  const r = new Rng(caseSeed(SEED, i));
  const target = r.pick(targets);
  const failures = [];
  const fail = (kind, thrown) => failures.push({ kind, thrown });
  const created = [];
  const ctx = {
    root,
    armed: false,
    hooks: {},
    hookable: false,
    involved: [],
    logs: [],
    track: (x) => (created.push(x), x),
    tasksForConfusion: () => {
      ctx.server ??= fakeServer(ctx);
      return ctx.track(new AsyncTasks(ctx.subject, { url: "http://agent.test", agents: AGENTS(), transport: ctx.server.send }));
    },
  };
  const parts = [];
  let poisoned = false;
  try {
    // The world (valid calls only; an untyped failure here is a failure too).
    try {
      ctx.subject = makeSubject(r, ctx);
      ctx.involved.push({ store: ctx.subject, key: ctx.key, label: "the subject store" });
      if (target.child) {
        ctx.child = ctx.track(pkg.subagentInput(ctx.subject, { description: "research A", agent: "researcher", toolCallId: "c2" }));
        ctx.child.apply({ author: "model", update: { messages: [{ type: "ai", content: " Done with A. " }], files: { "a.md": "notes" } } });
        ctx.involved.push({ store: ctx.child, key: null, label: "the child store" });
      }
      if (target.tasks || (target.withTasks && r.chance(0.5))) ctx.tasks = await makeTasks(r, ctx);
      if (target.log) ctx.log = makeLog(r, ctx);
      if (target.hub) {
        ctx.hub = trackHub(new SseHub(ctx.subject, { heartbeatMs: 0, ...(r.chance(0.3) && { maxBufferedBytes: 10 }) }));
        if (r.chance(0.5)) ctx.hub.handle(fakeRequest(r), fakeResponse());
      }
      if (target.stream) {
        const format = r.pick(Object.keys(POOL.streams));
        ctx.streamChunks = POOL.streams[format];
        ctx.streamAt = r.range(0, 6);
        ctx.stream = ctx.track(new StreamReader({ format }));
        for (const c of ctx.streamChunks.slice(0, ctx.streamAt)) ctx.stream.push(c);
      }
    } catch (e) {
      const bad = badError(e);
      if (bad) fail(`setup: ${bad}`, describeError(e));
      return { target: target.name, description: "(setup)", failures, poisoned };
    }

    // The inputs.
    let recv;
    if (target.recv) {
      const own = target.recv === AsyncTasks ? ctx.tasks : target.recv === FileLog ? ctx.log : target.recv === StreamReader ? ctx.stream : target.recv === SseHub ? ctx.hub : ctx.subject;
      const [v, l] = receiver(r, ctx, target.recv, own);
      recv = v;
      parts.push(`receiver: ${l}`);
    }
    const valid = target.valid(r, ctx);
    const args = [];
    let perturbed = recv !== undefined && parts[0] !== "receiver: the case's own";
    for (let k = 0; k < valid.length; k++) {
      const [v, l, bad] = argument(r, ctx, valid[k], target.types[k], target.noMutate);
      args.push(target.confine && k === 0 ? confine(ctx, v) : v);
      parts.push(`arg ${k}: ${l}`);
      perturbed ||= bad;
    }
    if (ctx.hookable && r.chance(perturbed ? 0.1 : 0.6)) {
      const name = r.pick(["clock", "onEvents", "audit"]);
      const [f, l] = badFunction(r, ctx);
      ctx.hooks[name] = f;
      parts.push(`the store's ${name}: ${l}`);
      perturbed = true;
    }
    if (target.tasks && r.chance(perturbed ? 0.2 : 0.8)) {
      ctx.fault = transportFault(r, ctx);
      parts.push(ctx.fault.label);
      perturbed = true;
    }
    if (!perturbed || r.chance(0.05)) {
      const [v, l] = badValue(r, ctx, 1);
      args.push(v);
      parts.push(`an extra argument: ${l}`);
    }
    const description = `${target.name}(${parts.join("; ")})`;
    if (VERBOSE) console.error(`case ${i}: ${description}`);

    // The call.
    const before = new Map();
    for (const x of ctx.involved) before.set(x, snapshot(x.store, x.key));
    let outcome;
    ctx.armed = true;
    try {
      const ret = target.call(recv, args);
      if (target.async) {
        let thenable = false;
        try {
          thenable = typeof ret?.then === "function";
        } catch {}
        if (!thenable) {
          fail("an async method returned something that is not a Promise", typeof ret);
          outcome = { value: ret };
        } else {
          outcome = await settle(Promise.resolve(ret));
          if (outcome.timeout) fail(`an async method did not settle within ${ASYNC_TIMEOUT_MS} ms`, "");
        }
      } else {
        outcome = { value: ret };
      }
    } catch (e) {
      outcome = { threw: true, error: e };
      if (target.async) fail("an async method threw synchronously", describeError(e));
    } finally {
      ctx.armed = false;
    }
    if (outcome.rejected || outcome.threw) {
      const bad = badError(outcome.error);
      if (bad) fail(outcome.rejected ? `rejected: ${bad.replace(/^threw/, "with")}` : bad, describeError(outcome.error));
    } else if (isWasmObject(outcome.value)) {
      created.push(outcome.value);
    }

    // The stores involved: unchanged after a failure, usable after anything; FREED after free.
    const failed = outcome.rejected || outcome.threw;
    for (const x of ctx.involved) {
      const freedByCall = target.frees && recv === x.store;
      const freedInside = x.store === ctx.subject && ctx.freeTried;
      let after;
      try {
        after = snapshot(x.store, x.key);
      } catch (e) {
        if ((freedByCall || freedInside) && isStategateError(e) && e.code === "FREED") continue;
        fail(freedByCall ? `after free, ${x.label} throws something else than FREED` : `${x.label} is unusable after the call`, describeError(e));
        continue;
      }
      if ((freedByCall && !failed) || (freedInside && ctx.freedByHook)) fail(`${x.label} still answers after it was freed`, "");
      else if (failed && !ctx.hookWrote && after !== before.get(x)) fail(`${x.label} changed although the call failed`, describeError(outcome.error));
    }
    return { target: target.name, description, failures, poisoned, returned: !failed };
  } finally {
    // Clean up, then look at the witness: a broken witness means the module is poisoned.
    ctx.armed = false;
    for (const x of created.reverse()) {
      try {
        if (x instanceof FileLog) x.close();
        else x.free();
      } catch {}
    }
    // Followers and hubs stop before anything else runs (no retry of theirs outlives the case).
    for (const x of [...FOLLOWERS.splice(0), ...HUBS.splice(0)]) {
      try {
        x.close();
      } catch {}
    }
    for (const log of ctx.logs) {
      try {
        log.close();
      } catch {}
    }
    // A rejection nobody handles is the package's: the generator's own rejected Promises are handled.
    await new Promise((resolve) => setImmediate(resolve));
    for (const e of STRAY.splice(0)) failures.push({ kind: "an unhandled rejection or exception after the call", thrown: describeError(e) });
    const broken = witness.check();
    if (broken) {
      failures.push({ kind: `the witness store ${broken.kind}`, thrown: broken.thrown });
      poisoned = true;
    }
    if (failures.length && !parts.length) parts.push("(setup)");
  }
}

/** Unhandled rejections and uncaught exceptions, collected for the case that caused them. */
const STRAY = [];

function makeWitness() {
  const w = new StateStore({ runId: "witness" });
  w.apply({ author: "user", update: { messages: [{ role: "user", content: "still here", id: "w1" }], facts: { k: "v" } } });
  w.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [call("wc", "f", { x: 1 })] }] } });
  w.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "wc", content: "done" }] } });
  const view = JSON.stringify(w.systemView());
  const version = w.version;
  return {
    check() {
      try {
        if (w.version !== version) return { kind: "changed version", thrown: `${version} → ${w.version}` };
        if (JSON.stringify(w.systemView()) !== view) return { kind: "changed its systemView", thrown: "" };
        return null;
      } catch (e) {
        return { kind: "is unusable", thrown: describeError(e) };
      }
    },
    finish() {
      w.apply({ author: "user", update: { messages: [{ role: "user", content: "and usable" }] } });
      assert.equal(w.version, version + 1);
      assert.deepEqual(pkg.validateMessages([{ role: "user", content: "hi" }], { provider: "openai" }), []);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The sweep

test("the sweep calls every export and every member of the exported classes", () => {
  const targets = new Set(TARGETS.map((x) => x.name));
  const missing = publicSurface().filter((name) => !targets.has(name) && !(name.replace(/^new /, "") in NOT_SWEPT));
  assert.deepEqual(missing, [], "add a target for each (or list it in NOT_SWEPT with the reason)");
});

test(`bad-input sweep over the whole API (seed ${SEED}, ${ONLY_CASE ?? ITERATIONS} ${ONLY_CASE === null ? "cases" : "only"})`, { timeout: 3_600_000 }, async (t) => {
  buildPool();
  const targets = TARGETS.filter((x) => !TARGET_FILTER || TARGET_FILTER.test(x.name));
  assert.ok(targets.length > 0, `no target matches SWEEP_TARGET=${process.env.SWEEP_TARGET}`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "stategate-sweep-"));
  const witness = makeWitness();
  const distinct = new Map(); // signature → { count, first }
  const cases = ONLY_CASE === null ? Array.from({ length: ITERATIONS }, (_, i) => i) : [ONLY_CASE];
  const stray = (e) => STRAY.push(e);
  process.on("unhandledRejection", stray);
  process.on("uncaughtException", stray);
  const started = performance.now();
  let ran = 0;
  const calls = new Map(); // target → { calls, returned }: how well the sweep covers the API
  let failing = 0;
  let stoppedAt = null;
  try {
    for (const i of cases) {
      const result = await runCase(i, targets, root, witness);
      ran++;
      const seen = calls.get(result.target) ?? { calls: 0, returned: 0 };
      seen.calls++;
      if (result.returned) seen.returned++;
      calls.set(result.target, seen);
      if (result.failures.length) failing++;
      for (const f of result.failures) {
        const signature = `${result.target} | ${f.kind} | ${f.thrown.replace(/\d+/g, "N").replace(/"[^"]*"|'[^']*'|`[^`]*`/g, "…").slice(0, 140)}`;
        const seen = distinct.get(signature);
        if (seen) seen.count++;
        else distinct.set(signature, { count: 1, first: { i, ...result, ...f } });
      }
      if (result.poisoned) {
        stoppedAt = i;
        break;
      }
    }
    // Stragglers of calls that never settled.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const e of STRAY.splice(0)) {
      const signature = `(after the sweep) | ${describeError(e)}`;
      if (!distinct.has(signature)) distinct.set(signature, { count: 1, first: { i: "-", target: "(after the sweep)", kind: "an unhandled rejection or exception", thrown: describeError(e), description: "-" } });
    }
  } finally {
    process.off("unhandledRejection", stray);
    process.off("uncaughtException", stray);
    fs.rmSync(root, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  const filter = process.env.SWEEP_TARGET ? ` SWEEP_TARGET='${process.env.SWEEP_TARGET}'` : "";
  const lines = [...distinct.values()].map(({ count, first }, n) =>
    [
      `#${n + 1} ${first.target}: ${first.kind} (${count}×)`,
      `    thrown: ${first.thrown || "-"}`,
      `    case:   ${first.description}`,
      `    rerun:  SWEEP_SEED=${SEED} SWEEP_CASE=${first.i}${filter} node --test tests/js/sweep.test.mjs`,
    ].join("\n"),
  );
  const summary = `sweep: seed ${SEED}, ${ran} cases in ${seconds.toFixed(1)} s, ${failing} failing, ${distinct.size} distinct failures${stoppedAt === null ? "" : `; stopped at case ${stoppedAt}: the module is poisoned`}`;
  const counts = [...calls.values()];
  const returned = counts.reduce((n, c) => n + c.returned, 0);
  const never = targets.filter((x) => !calls.has(x.name)).map((x) => x.name);
  const coverage = `coverage: ${calls.size} of ${targets.length} targets called, each ${Math.min(...counts.map((c) => c.calls))}–${Math.max(...counts.map((c) => c.calls))} times; ${returned} calls returned, ${ran - returned} failed with a code or otherwise${never.length ? `; never called: ${never.join(", ")}` : ""}`;
  t.diagnostic(summary);
  t.diagnostic(coverage);
  console.log([summary, coverage, ...lines].join("\n"));
  if (stoppedAt === null) witness.finish();
  assert.equal(distinct.size, 0, `${summary}\n${lines.join("\n")}`);
});
