// The skeleton fast path of repairMessages / validateMessages (ts/skeleton.ts, src/repair/skeleton.rs)
// against the full path it stands in for (the wasm exports repairJson / validateJson, called
// directly): the same messages (the caller's own objects in the same places), the same report, the
// same violations, and for bad input the same error (code and details.index).
//
//   1. every fixture run (tests/fixtures/transcripts/, the recorded streams too) in each of the
//      eight formats, whole and cut after a call, under each provider and several options;
//   2. random LangChain histories (tests/support/histories.mjs, the differential test's), as dicts
//      and as OpenAI messages;
//   3. the same histories with one message damaged or made unusual at one random place: the
//      hostile values of the sweep (throwing getters, Proxies, cycles, NaN, BigInt, Maps, deep
//      nesting, holes, toJSON), ids of the wrong type or too long, lone surrogates, keys of other
//      formats, placeholders, invalid arguments — each must give the full path's answer.
// Each part also checks that the fast path really ran (the skeleton was built) where it should.
//
// Run: node --test tests/js/skeleton.test.mjs

import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { convertMessages, readStream, readTranscript, repairMessages, validateMessages } from "../../pkg/index.js";
import * as glue from "../../pkg/stategate_wasm.js";
import { skeleton as build, layoutOf } from "../../pkg/skeleton.js";

/** The builder with the core's own layout, as the façade calls it. */
const skeleton = (messages) => build(messages, layoutOf(glue.skeletonLayout()));
import { mulberry32 } from "../support/prng.mjs";
import { generateHistory, toDict } from "../support/histories.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = path.join(ROOT, "tests/fixtures/transcripts");
const FORMATS = ["langchain", "openai", "anthropic", "ai-sdk", "gemini", "ui", "responses", "openai-agents"];
const PROVIDERS = ["openai", "anthropic", "gemini"];
const STREAMS = { "aisdk-uistream-langgraph-hitl-interrupt.json": "ui-stream", "langgraph-lc-stream-supervisor.json": "langgraph-messages" };

const outcome = (f) => {
  try {
    return { ok: f() };
  } catch (e) {
    return { code: e?.code, index: e?.details?.index, name: e?.name };
  }
};

/** Options to repair with: the provider, plus (by `k`) reasons, keepOrphans or a template. */
function optionsFor(h, provider, k) {
  const firstCall = outcome(() => h.find((m) => Array.isArray(m?.tool_calls) && m.tool_calls.length)?.tool_calls[0]?.id).ok;
  switch (k % 4) {
    case 1:
      return { provider, reasons: firstCall ? { [firstCall]: "rejected" } : {} };
    case 2:
      return { provider, keepOrphans: true };
    case 3:
      return { provider, text: "no answer for {name} ({id}): {reason}" };
    default:
      return { provider };
  }
}

/** Asserts the fast path's answers equal the full path's for `h`; returns whether it ran. */
function same(h, label, k = 0) {
  const fast = skeleton(h) !== undefined;
  const inputs = new Set(Array.isArray(h) ? h : []);
  for (const provider of PROVIDERS) {
    const opts = optionsFor(Array.isArray(h) ? h : [], provider, k);
    const a = outcome(() => repairMessages(h, opts));
    const b = outcome(() => glue.repairJson(h, opts));
    assert.deepEqual(a, b, `${label}: repair ${JSON.stringify(opts)}`);
    if (a.ok) {
      a.ok.messages.forEach((m, i) => {
        const mine = inputs.has(m);
        assert.equal(mine, inputs.has(b.ok.messages[i]), `${label}: message ${i} is the caller's own object in one path only`);
        if (mine) assert.equal(m, b.ok.messages[i], `${label}: message ${i} is another input object`);
      });
    }
    assert.deepEqual(
      outcome(() => validateMessages(h, { provider })),
      outcome(() => glue.validateJson(h, provider)),
      `${label}: validate ${provider}`,
    );
  }
  return fast;
}

function fixtureRuns() {
  const out = [];
  for (const file of fs.readdirSync(FIXTURES).filter((f) => !f.endsWith(".md")).sort()) {
    const text = fs.readFileSync(path.join(FIXTURES, file), "utf8");
    // tau-bench holds 200 runs: every 5th is plenty here.
    for (const [r, run] of readTranscript(text, { format: "langchain" }).runs.entries()) if (r % 5 === 0) out.push([`${file}#${r}`, run]);
    if (STREAMS[file]) {
      const recording = JSON.parse(text);
      const chunks = Array.isArray(recording) ? recording : (recording.chunks ?? recording.stream ?? recording.events);
      if (Array.isArray(chunks)) out.push([`${file} (stream)`, readStream(chunks, { format: STREAMS[file], to: "langchain" }).messages]);
    }
  }
  return out;
}

test("1. every fixture run in every format: the fast path answers as the full path", (t) => {
  const ran = Object.fromEntries(FORMATS.map((f) => [f, 0]));
  let k = 0;
  for (const [label, run] of fixtureRuns()) {
    for (const to of FORMATS) {
      const h = convertMessages(run, { to });
      if (same(h, `${label} as ${to}`, k++)) ran[to]++;
      // Cut right after the first message that makes calls: its calls dangle.
      const cut = h.findIndex((m) => JSON.stringify(m).match(/tool_calls|tool_use|tool-call|functionCall|function_call"/));
      if (cut >= 0 && cut + 1 < h.length && same(h.slice(0, cut + 1), `${label} as ${to}, cut at ${cut + 1}`, k++)) ran[to]++;
    }
  }
  // The skeleton reads LangChain dicts and OpenAI messages with text content; the fixtures have some.
  t.diagnostic(`fast path taken per format: ${JSON.stringify(ran)}`);
  assert.ok(ran.langchain > 0 && ran.openai > 0, `the fast path ran on fixtures: ${JSON.stringify(ran)}`);
});

test("2. random LangChain histories, as dicts and as OpenAI messages", () => {
  const rand = mulberry32(0x5ce1e7);
  let ran = 0;
  for (let n = 0; n < 300; n++) {
    const dicts = generateHistory(rand, n).specs.map(toDict);
    if (same(dicts, `history ${n}`, n)) ran++;
    if (same(convertMessages(dicts, { to: "openai" }), `history ${n} as openai`, n + 1)) ran++;
  }
  assert.equal(ran, 600, "every generated history takes the fast path");
});

// ---------------------------------------------------------------------------------------------
// 3. Damaged and unusual messages

const nested = (n) => {
  let v = "leaf";
  for (let i = 0; i < n; i++) v = i % 2 ? [v] : { n: v };
  return v;
};
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({ a: 1 }, {});
  revoke();
  return proxy;
};
const cyclic = () => {
  const o = { a: 1 };
  o.self = o;
  return o;
};
const throwing = () => ({
  get boom() {
    throw new Error("getter");
  },
});
class Thing {
  constructor() {
    this.a = 1;
  }
}
const sparse = () => {
  const a = [1, 2, 3];
  delete a[1];
  return a;
};

/** Values put where a message carries data the skeleton does not read (arguments, extra fields). */
const HOSTILE = [
  () => cyclic(),
  () => throwing(),
  () => revoked(),
  () => new Proxy({ a: 1 }, {}),
  () => new Proxy({ a: 1 }, { ownKeys: () => { throw new Error("trap"); } }),
  () => NaN,
  () => Infinity,
  () => 10n,
  () => new Map([["a", 1]]),
  () => new Set([1]),
  () => new Date(0),
  () => new Thing(),
  () => Object.create(null),
  () => [1, undefined, 3],
  () => [() => 1],
  () => sparse(),
  () => nested(90),
  () => nested(140),
  () => nested(5000),
  () => ({ toJSON: () => "x" }),
  () => ({ toJSON: () => { throw new Error("toJSON"); } }),
  () => new Uint8Array(2),
  () => "a\ud800b",
  () => -0,
  () => ({ __proto__x: 1, "a b": [null, true, 1e21] }),
  () => undefined,
  () => () => 1,
  () => Symbol("s"),
];

/** Ways to damage or change message `m` (a LangChain dict or an OpenAI message) of `h`. */
const MUTATIONS = [
  // Hostile values where the skeleton only checks them.
  (m, r) => { m.extra_field = r.hostile(); },
  (m, r) => { m.additional_kwargs = { nested: r.hostile() }; },
  (m, r) => { const c = m.tool_calls?.[0]; if (c) { if (c.function) c.function.extra = r.hostile(); else c.args = { v: r.hostile() }; } else m.response_metadata = r.hostile(); },
  (m, r) => { const c = m.tool_calls?.[0]; if (c) c[r.pick(["type", "index", "meta"])] = r.hostile(); else m.usage_metadata = r.hostile(); },
  // Fields the skeleton reads, of the wrong type or unusual.
  (m, r) => { m.id = r.pick([7, 1.5, null, "", "x".repeat(1024), "x".repeat(1025), "id\ud800", "😀".repeat(600), {}, []]); },
  (m, r) => { m.name = r.pick([7, null, "", "n", {}, "x".repeat(3000)]); },
  (m, r) => { m.content = r.pick([7, true, {}, [], [{ type: "text", text: "" }], [{ type: "text", text: "t" }], null, "", undefined, "😀 text", "a\udc00"]); },
  (m, r) => { if (m.tool_call_id !== undefined) m.tool_call_id = r.pick([undefined, null, "", 7, "nope", "x".repeat(1025), m.tool_call_id + "\ud800"]); else m.tool_call_id = r.pick(["stray", 3]); },
  (m, r) => { m.status = r.pick(["success", "error", "weird", null, 1]); },
  (m, r) => { const c = m.tool_calls?.[0]; if (c) c.id = r.pick([7, null, "", undefined, "x".repeat(1025), "dup"]); if (m.tool_calls?.[1] && c?.id === "dup") m.tool_calls[1].id = "dup"; },
  (m, r) => { const c = m.tool_calls?.[0]; if (c) { const v = r.pick(["", null, 7, "x".repeat(1025), "ok"]); if (c.function) c.function.name = v; else c.name = v; } },
  (m, r) => { const c = m.tool_calls?.[0]; if (c) m.tool_calls.push({ ...c, function: c.function && { ...c.function } }); },
  (m, r) => { const c = m.tool_calls?.[0]; if (c?.function) c.function.arguments = r.pick(["", "  ", "not json", "{", "[1,2]", "1e400", JSON.stringify(nested(200)), "\ufeff", "\u0085", 7, null, undefined, { a: 1 }]); else if (c) c.args = r.pick([undefined, null, "text", [1], 7]); },
  (m, r) => { const c = m.tool_calls?.[0]; if (c?.function) { delete c.function; c.name = r.pick(["t", ""]); c.args = r.pick([{ a: 1 }, "x", undefined]); } else if (c) c.function = r.pick([{ name: "f", arguments: "{}" }, null, "f"]); },
  (m, r) => { m.tool_calls = r.pick([[], null, {}, "x", [7], [null], undefined]); },
  (m, r) => { m.invalid_tool_calls = r.pick([[{ id: "bad1", name: "t", args: "{", error: "e" }], [{ id: "bad2" }], [{ id: 7 }], [{ id: "b", error: 1 }], [{ id: "b", name: 3 }], [], null, "x"]); },
  // Keys that make it another format's, or other envelopes.
  (m, r) => { m[r.pick(["lc", "origin", "extra", "parts", "data", "providerData", "providerOptions", "phase", "toJSON"])] = r.pick(["openai", {}, [], 1, () => 1, undefined]); },
  (m, r) => { if (m.type !== undefined) m.role = r.pick(["user", "assistant", undefined, 7]); else m.type = r.pick(["human", "message", "function_call", "reasoning", 7, undefined, null]); },
  (m, r) => { if (m.type !== undefined) m.type = r.pick(["user", "assistant", "developer", "remove", "chat", "AIMessageChunk", "wizard", "", 7]); else m.role = r.pick(["developer", "model", "function", "wizard", "", 7, undefined]); },
  // A placeholder written by an earlier repair (ours or deepagents'), real or near-miss.
  (m, r) => { if (m.tool_call_id) { m.content = r.pick([`Tool call t with id ${m.tool_call_id} did not complete - no result was recorded.`, `Tool call t with id ${m.tool_call_id}x done`, "Tool call ", `Tool call 😀 with id ${m.tool_call_id} `]); m.status = r.pick([undefined, "error", "success"]); } },
  // The message itself replaced.
  (m, r, h, i) => { h[i] = r.pick([null, undefined, 7, "text", [], revoked(), cyclic(), throwing(), new Thing(), Object.assign(Object.create(null), m), new Proxy(m, {})]); },
  (m, r, h, i) => { delete h[i]; },
  (m, r, h, i) => { Object.defineProperty(h[i], "content", { get() { throw new Error("content"); }, enumerable: true }); },
  (m, r, h, i) => { Object.defineProperty(h[i], "hidden", { value: NaN, enumerable: false }); },
];

test("3. damaged and unusual messages give the full path's answer or its error", (t) => {
  const rand = mulberry32(0xbadd00d);
  const r = {
    int: (n) => Math.floor(rand() * n),
    pick: (xs) => xs[Math.floor(rand() * xs.length)],
    hostile: () => HOSTILE[Math.floor(rand() * HOSTILE.length)](),
  };
  let fast = 0;
  let slow = 0;
  let errors = 0;
  for (let n = 0; n < 1500; n++) {
    let h = generateHistory(rand, n).specs.map(toDict);
    if (n % 2) h = convertMessages(h, { to: "openai" });
    for (let k = 0, times = 1 + r.int(2); k < times; k++) {
      const i = r.int(h.length);
      const mutation = r.int(MUTATIONS.length);
      if (h[i] && typeof h[i] === "object" && Object.getPrototypeOf(h[i]) === Object.prototype) MUTATIONS[mutation](h[i], r, h, i);
    }
    const label = `case ${n}`;
    let text;
    try {
      text = JSON.stringify(h)?.slice(0, 2000);
    } catch {
      text = "(not JSON)";
    }
    if (same(h, `${label}: ${text}`, n)) fast++;
    else slow++;
    if (outcome(() => glue.repairJson(h, {})).code) errors++;
  }
  t.diagnostic(`${fast} fast, ${slow} full, ${errors} refused`);
  assert.ok(fast > 300 && slow > 300 && errors > 100, `both paths and refusals exercised: ${fast} fast, ${slow} full, ${errors} refused`);
});

test("4. polluted prototypes and odd arrays take the full path", () => {
  const h = [{ type: "human", content: "q" }, { type: "ai", content: "", tool_calls: [{ id: "c1", name: "t", args: {} }] }];
  for (const setup of [
    () => { Object.prototype.toJSON = function () { return "x"; }; return () => delete Object.prototype.toJSON; },
    () => { Array.prototype.toJSON = function () { return "x"; }; return () => delete Array.prototype.toJSON; },
    () => { Object.prototype.injected = 1; return () => delete Object.prototype.injected; },
  ]) {
    const undo = setup();
    try {
      assert.equal(skeleton(h), undefined);
      same(h, `polluted: ${setup}`);
    } finally {
      undo();
    }
  }
  assert.ok(skeleton(h), "back to the fast path");
  const own = [...h];
  own.toJSON = () => [];
  assert.equal(skeleton(own), undefined);
  same(own, "an array with its own toJSON");
  class Sub extends Array {}
  assert.equal(skeleton(Sub.from(h)), undefined);
  same(new Proxy(h, {}), "a Proxy of the array");
});

test("5. the size limit: a history near or over it takes the full path, which refuses what is over", () => {
  const big = (n) => [{ type: "human", content: "x".repeat(n) }, { type: "ai", content: "", tool_calls: [{ id: "c1", name: "t", args: {} }] }];
  assert.ok(skeleton(big(1000)));
  // Under the limit, but not provably so from the lengths alone: measured, and taken.
  const near = big(6 * 1024 * 1024);
  assert.ok(skeleton(near));
  same(near, "6 Mi characters");
  const justOver = big(32 * 1024 * 1024 - 40);
  assert.equal(skeleton(justOver), undefined);
  assert.equal(outcome(() => repairMessages(justOver)).code, "TOO_LARGE");
  const over = big(33 * 1024 * 1024);
  assert.equal(skeleton(over), undefined);
  assert.equal(outcome(() => repairMessages(over)).code, "TOO_LARGE");
  assert.equal(outcome(() => validateMessages(over, { provider: "openai" })).code, "TOO_LARGE");
  // The same histories as JSON text: the same limit, on the text as given (text was read at any length).
  for (const h of [justOver, over]) {
    const text = JSON.stringify(h);
    for (const run of [() => repairMessages(text), () => validateMessages(text, { provider: "openai" }), () => convertMessages(text, { to: "openai" })]) {
      assert.throws(run, (e) => e.code === "TOO_LARGE" && e.message.includes(`messages: ${text.length} characters of JSON; the limit is 33554432`));
    }
  }
  const under = JSON.stringify(big(32 * 1024 * 1024 - 200));
  assert.ok(under.length <= 32 * 1024 * 1024);
  assert.equal(validateMessages(under, { provider: "openai" }).length, 1);
});

test("6. ids, names and arguments of every kind of character and length read as the full path reads them", () => {
  // The builder writes ASCII a character at a time and anything else (or a long text) through
  // TextEncoder, with lengths in bytes: random ids mixing one-, two-, three- and four-byte
  // characters and lone surrogates, from 1 to 1,024 code units, must match their results and give
  // the full path's answer (dangling calls, placeholders quoting the id, OpenAI arguments text).
  const rand = mulberry32(0x1d5);
  const int = (n) => Math.floor(rand() * n);
  const PIECES = ["a", "Z", "_", "-", "0", "é", "ß", "Ж", "中", "€", "😀", "🧪", "\ud800", "\udfff", " ", "\u0000", "\"", "\\"];
  const text = (n) => {
    let s = "";
    while (s.length < n) s += PIECES[int(PIECES.length)];
    return s.slice(0, n);
  };
  let fast = 0;
  for (let n = 0; n < 400; n++) {
    const long = () => text(1 + (int(4) === 0 ? int(1024) : int(40)));
    const h = [{ type: "human", content: "go" }];
    for (let t = 0, turns = 1 + int(4); t < turns; t++) {
      const calls = Array.from({ length: 1 + int(3) }, () => ({ id: long(), name: long(), args: { q: text(int(80)) } }));
      h.push({ type: "ai", content: "", tool_calls: calls });
      for (const c of calls) {
        if (int(3) === 0) continue; // dangling
        const placeholder = int(4) === 0;
        h.push({ type: "tool", tool_call_id: c.id, name: c.name, content: placeholder ? `Tool call ${c.name} with id ${c.id} did not complete - no result was recorded.` : text(int(100)) });
      }
      h.push({ type: "human", content: text(int(20)) || "next" });
    }
    const history = n % 2 ? convertMessages(h, { to: "openai" }) : h;
    if (same(history, `ids ${n}: ${JSON.stringify(history).slice(0, 400)}`, n)) fast++;
  }
  assert.ok(fast > 300, `the fast path ran on ${fast} of 400`);
});

test("7. a getter that repairs while the builder reads it leaves the build under way intact", () => {
  const inner = [{ type: "human", content: "q" }, { type: "ai", content: "", tool_calls: [{ id: "i1", name: "t", args: {} }] }];
  let calls = 0;
  const h = [
    { type: "human", content: "go" },
    { type: "ai", content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "x" } }, { id: "c2", name: "read", args: {} }] },
    {
      type: "tool",
      tool_call_id: "c1",
      get content() {
        calls++;
        return `inner repair made ${repairMessages(inner).messages.length} messages`;
      },
    },
  ];
  same(h, "a getter that repairs");
  assert.ok(calls > 0, "the getter ran");
  assert.deepEqual(repairMessages(inner).report.map((f) => f.toolCallId), ["i1"]);
});

test("8. a type or role named like an Object.prototype member is refused as the full path refuses it", () => {
  // The builder once looked roles up in an object literal, so `constructor` or `toString` found
  // Object.prototype's function and was read as a system message: [] where the full path says
  // UNKNOWN_ROLE.
  for (const m of [{ type: "constructor", content: "x" }, { type: "toString", content: "x" }, { role: "__proto__", content: "x" }, { role: "hasOwnProperty", content: "x" }, { role: "valueOf", content: "x" }]) {
    const h = [{ type: "human", content: "q" }, m];
    assert.equal(skeleton(h), undefined, JSON.stringify(m));
    same(h, `role ${JSON.stringify(m)}`);
    assert.equal(outcome(() => validateMessages(h, { provider: "openai" })).code, "UNKNOWN_ROLE");
  }
});

test("9. calls kept in additional_kwargs and OpenAI's legacy function_call take the full path, which reads or refuses them", () => {
  // The tester's cases: both were read as empty assistant messages, which repair dropped (with
  // the real result of the additional_kwargs call as an orphan).
  const call = { id: "k1", type: "function", function: { name: "w", arguments: "{}" } };
  const kwargs = [{ type: "human", content: "weather?" }, { type: "ai", content: "", additional_kwargs: { tool_calls: [call] } }, { type: "tool", tool_call_id: "k1", content: "18" }];
  assert.equal(skeleton(kwargs), undefined);
  same(kwargs, "additional_kwargs.tool_calls");
  assert.deepEqual(validateMessages(kwargs, { provider: "openai" }), []);
  const repaired = repairMessages(kwargs, { provider: "openai" });
  assert.deepEqual(repaired.report, []);
  assert.equal(repaired.messages[2], kwargs[2]);
  // Without the result, the call is dangling, and repair answers it.
  const dangling = kwargs.slice(0, 2);
  assert.deepEqual(validateMessages(dangling, { provider: "openai" }).map((v) => [v.rule, v.toolCallId]), [["MISSING_TOOL_RESULT", "k1"]]);
  // additional_kwargs without calls stays on the fast path.
  assert.notEqual(skeleton([{ type: "ai", content: "hi", additional_kwargs: { refusal: null } }]), undefined);
  for (const m of [{ role: "assistant", content: null, function_call: { name: "w", arguments: "{}" } }, { type: "ai", content: "", additional_kwargs: { function_call: { name: "w", arguments: "{}" } } }]) {
    const h = [{ role: "user", content: "weather?" }, m];
    assert.equal(skeleton(h), undefined, JSON.stringify(m));
    same(h, `legacy ${JSON.stringify(m)}`);
    const e = outcome(() => validateMessages(h, { provider: "openai" }));
    assert.deepEqual([e.code, e.index], ["INVALID_MESSAGE", 1]);
  }
});

test("10. a toJSON method on a message, a call or its function takes the full path, which reads what it returns", () => {
  // The tester's case: the builder skipped `toJSON` as a function value JSON drops, so the fast
  // path read the raw call where the full path (and JSON.stringify, and any HTTP client) reads
  // the user message toJSON returns.
  const call = () => ({ id: "a", type: "function", function: { name: "w", arguments: "{}" } });
  const cases = [
    [{ role: "user", content: "u" }, { role: "assistant", content: null, tool_calls: [call()], toJSON: () => ({ role: "user", content: "changed" }) }],
    [{ role: "user", content: "u" }, { role: "assistant", content: null, tool_calls: [{ ...call(), toJSON: () => ({ id: "b", type: "function", function: { name: "w", arguments: "{}" } }) }] }, { role: "tool", tool_call_id: "a", content: "r" }],
    [{ role: "user", content: "u" }, { role: "assistant", content: null, tool_calls: [{ ...call(), function: { name: "w", arguments: "{}", toJSON: () => ({ name: "v", arguments: "{}" }) } }] }],
  ];
  for (const [i, h] of cases.entries()) {
    assert.equal(skeleton(h), undefined, `case ${i}`);
    same(h, `toJSON case ${i}`);
    assert.deepEqual(validateMessages(h, { provider: "openai" }), validateMessages(JSON.stringify(h), { provider: "openai" }), `case ${i}`);
  }
  assert.deepEqual(validateMessages(cases[0], { provider: "openai" }), []);
});

test("11. a call with an empty id takes the full path, which refuses it, given as an array or as its text", () => {
  // The fast path read an empty call id as an id: a dangling call answered with tool_call_id "",
  // where the same history as JSON text was INVALID_TOOL_CALL.
  const histories = [
    [{ role: "user", content: "x" }, { role: "assistant", content: null, tool_calls: [{ id: "", type: "function", function: { name: "f", arguments: "{}" } }] }],
    [{ type: "human", content: "x" }, { type: "ai", content: "", tool_calls: [{ id: "", name: "f", args: {} }] }],
    [{ type: "human", content: "x" }, { type: "ai", content: "", tool_calls: [], invalid_tool_calls: [{ id: "", name: "f", args: "{", error: "bad" }] }],
  ];
  for (const h of histories) {
    assert.equal(skeleton(h), undefined, JSON.stringify(h));
    for (const input of [h, JSON.stringify(h)]) {
      for (const run of [() => repairMessages(input, { provider: "openai" }), () => validateMessages(input, { provider: "openai" })]) {
        assert.throws(run, (e) => e.code === "INVALID_TOOL_CALL" && e.details.index === 1 && e.details.field === "tool_calls", JSON.stringify(h));
      }
    }
    same(h, JSON.stringify(h));
  }
});

test("12. arguments that are JSON but not an object make an invalid call on both paths", () => {
  // The fast path read `[1,2]` as valid arguments: a dangling call was answered as a missing
  // result, where the same history as JSON text was answered as malformed arguments.
  for (const args of ["1", "null", "true", "[1,2]", '"s"', "1e400", " [] "]) {
    const h = [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "x", arguments: args } }] },
    ];
    const fromArray = repairMessages(h, { provider: "openai" });
    const fromText = repairMessages(JSON.stringify(h), { provider: "openai" });
    assert.deepEqual(fromArray.report, fromText.report, args);
    assert.equal(fromArray.report[0].kind, "invalid_args", args);
    assert.deepEqual(fromArray.messages, fromText.messages, args);
    same(h, args);
  }
});
