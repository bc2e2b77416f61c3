// Issue 14, property tests over the built package (seeded, deterministic):
//  - whatever `apply` accepts, `replay(eventsJsonl())`, `replay(events())` and
//    `restore(checkpoint())` read back identically (random values near the depth limit, tool
//    arguments nested in JSON text, awkward strings and numbers);
//  - one input, one answer: hand-shaped messages of every format (not our encoder's output), and
//    near-misses, give the same validation, repair, conversion and errors as an array and as its
//    JSON text.
// PROPS_CASES sets the number of cases of each property (default 300).
import test from "node:test";
import assert from "node:assert/strict";
import { mulberry32 } from "../support/prng.mjs";
import { StateStore, validateMessages, repairMessages, convertMessages, decodeMessages, verifyLog } from "../../pkg/index.js";

const CASES = Number(process.env.PROPS_CASES ?? 300);

function gen(seed) {
  const r = mulberry32(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (xs) => xs[int(xs.length)];
  const STRINGS = ["", "x", "héllo 東京 😀", "a\u2028b", 'quote " back\\slash', "\u0000nul", "\ufeffbom", "CANARY-public-value", "{\"json\":[1,2]}", "__proto__"];
  const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 2 ** 53 - 1, -(2 ** 31), 123456.789];
  const value = (depth) => {
    if (depth <= 0) return pick([() => pick(STRINGS), () => pick(NUMBERS), () => r() < 0.5, () => null])();
    switch (int(4)) {
      case 0: return Array.from({ length: int(3) + 1 }, () => value(depth - 1));
      case 1: return Object.fromEntries(Array.from({ length: int(3) + 1 }, (_, i) => [pick(["k", "a b", "ü", "__proto__x", `f${i}`]) + i, value(depth - 1)]));
      default: return value(0);
    }
  };
  const deep = (n) => {
    let v = pick(STRINGS);
    for (let i = 0; i < n; i++) v = r() < 0.5 ? [v] : { n: v };
    return v;
  };
  return { r, int, pick, value, deep, STRINGS };
}

test("whatever apply accepts reads back identically from eventsJsonl, events and checkpoint", () => {
  let accepted = 0;
  let refused = 0;
  for (let seed = 1; seed <= CASES; seed++) {
    const g = gen(seed);
    const s = new StateStore({ runId: `p${seed}` });
    s.registerChannel({ name: "blob", reducer: "replace" });
    s.registerChannel({ name: "bag", reducer: "append" });
    const calls = [];
    for (let k = 0; k < 6; k++) {
      const kind = g.int(5);
      let update;
      if (kind === 0) update = { blob: g.r() < 0.3 ? g.deep(55 + g.int(20)) : g.value(4) };
      else if (kind === 1) update = { bag: [g.value(3), g.value(2)] };
      else if (kind === 2) update = { facts: { [g.pick(["a", "b", "c"])]: g.value(3) } };
      else if (kind === 3) {
        const id = `c${seed}_${k}`;
        calls.push(id);
        const args = g.r() < 0.4 ? g.deep(50 + g.int(30)) : g.value(4);
        update = { messages: [{ role: "assistant", content: g.pick([null, "", "thinking"]), tool_calls: [{ id, type: "function", function: { name: "t", arguments: JSON.stringify({ v: args }) } }] }] };
      } else {
        const id = calls.pop();
        update = { messages: [id ? { role: "tool", tool_call_id: id, content: g.pick(g.STRINGS) } : { role: "user", content: g.pick(g.STRINGS) }] };
      }
      try {
        s.apply({ author: "p", update });
        accepted++;
      } catch (e) {
        assert.ok(typeof e.code === "string" && e.code.length > 0, `seed ${seed}: a coded error, got ${e}`);
        refused++;
      }
    }
    const view = s.systemView();
    assert.deepEqual(verifyLog(s.eventsJsonl()), { ok: true }, `seed ${seed}`);
    assert.deepEqual(StateStore.replay(s.eventsJsonl(), { channels: s.channels().filter((c) => c.name === "blob" || c.name === "bag") }).systemView(), view, `seed ${seed}: jsonl`);
    assert.deepEqual(StateStore.replay(s.events(), { channels: s.channels().filter((c) => c.name === "blob" || c.name === "bag") }).systemView(), view, `seed ${seed}: events`);
    assert.deepEqual(StateStore.restore(s.checkpoint()).systemView(), view, `seed ${seed}: checkpoint`);
    s.free();
  }
  assert.ok(accepted > CASES && refused > 0, `both sides exercised (${accepted} accepted, ${refused} refused)`);
});

/** A hand-shaped message of some format, sometimes a near-miss (a field of the wrong type, an unknown role). */
function handShaped(g, i, calls) {
  const id = `c${i}`;
  const text = g.pick(["hi", "", " ", "answer 😀"]);
  const callArgs = g.pick(['{"q":1}', "", "not json", "{}", '{"a":[1,{"b":null}]}']);
  const shapes = [
    () => ({ role: "user", content: text }),
    () => ({ type: "human", content: g.r() < 0.5 ? text : [text, { type: "text", text }] }),
    () => { calls.push(id); return { type: "ai", content: text, tool_calls: [{ id, name: "t", args: { q: i } }] }; },
    () => { calls.push(id); return { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "t", arguments: callArgs } }] }; },
    () => { calls.push(id); return { role: "assistant", content: "", tool_calls: [{ id, name: "t", args: { q: i } }] }; },
    () => { calls.push(id); return { role: "assistant", content: [{ type: "text", text }, { type: "tool_use", id, name: "t", input: {} }] }; },
    () => { calls.push(id); return { role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: "t", input: {} }] }; },
    () => { calls.push(id); return { role: "model", parts: [{ functionCall: { id, name: "t", args: {} } }] }; },
    () => { const c = calls.shift() ?? "nope"; return { role: "tool", tool_call_id: c, content: text }; },
    () => { const c = calls.shift() ?? "nope"; return { type: "tool", tool_call_id: c, content: [{ type: "text", text }] }; },
    () => { const c = calls.shift() ?? "nope"; return { role: "user", content: [{ type: "tool_result", tool_use_id: c, content: text }] }; },
    () => { const c = calls.shift() ?? "nope"; return { role: "tool", content: [{ type: "tool-result", toolCallId: c, toolName: "t", output: { type: "text", value: text } }] }; },
    () => { const c = calls.shift() ?? "nope"; return { role: "user", parts: [{ functionResponse: { id: c, name: "t", response: { result: text } } }] }; },
    // near-misses
    () => ({ role: g.pick(["wizard", "function", 7]), content: "x" }),
    () => ({ role: "user", content: g.pick([5, true, { nope: 1 }]) }),
    () => ({ role: "assistant", tool_calls: [{ id, name: "t" }] }),
    () => ({ type: "ai", content: "", tool_calls: [{ name: "t", args: {} }] }),
    () => ({ role: "user", content: "x", origin: g.pick(["openai", "klingon"]), extra: g.pick([{}, 3]) }),
    () => g.pick(["a string", 42, null, []]),
  ];
  const near = g.r() < 0.08;
  return g.pick(near ? shapes.slice(13) : shapes.slice(0, 13))();
}

const outcome = (f) => {
  try {
    return { ok: f() };
  } catch (e) {
    return { code: e.code, index: e.details?.index };
  }
};

test("one input, one answer: hand-shaped messages of every format give the same result as an array and as JSON text", () => {
  let refusedCases = 0;
  for (let seed = 1; seed <= CASES; seed++) {
    const g = gen(1000 + seed);
    const calls = [];
    const messages = Array.from({ length: 1 + g.int(8) }, (_, i) => handShaped(g, i, calls));
    const text = JSON.stringify(messages);
    for (const provider of ["openai", "anthropic", "gemini"]) {
      const a = outcome(() => validateMessages(messages, { provider }));
      assert.deepEqual(a, outcome(() => validateMessages(text, { provider })), `seed ${seed} validate ${provider}: ${text}`);
      if (a.code) refusedCases++;
      const ra = outcome(() => JSON.parse(JSON.stringify(repairMessages(messages, { provider }))));
      assert.deepEqual(ra, outcome(() => repairMessages(text, { provider })), `seed ${seed} repair ${provider}: ${text}`);
      if (ra.ok) assert.deepEqual(outcome(() => validateMessages(ra.ok.messages, { provider })), { ok: [] }, `seed ${seed}: repaired output validates for ${provider}: ${text}`);
    }
    for (const to of ["langchain", "openai", "anthropic", "ai-sdk", "gemini", "responses", "openai-agents"]) {
      assert.deepEqual(outcome(() => convertMessages(messages, { to })), outcome(() => convertMessages(text, { to })), `seed ${seed} convert ${to}: ${text}`);
    }
    assert.deepEqual(outcome(() => decodeMessages(messages)), outcome(() => decodeMessages(text)), `seed ${seed} decode`);
  }
  assert.ok(refusedCases > 0, "near-misses were refused somewhere");
});
