// `store.modelView` rebuilds each view from the messages of the store's last one (ts/api.ts over
// the core's `modelViewDelta`, src/project/view_cache.rs). This checks it against the core's own
// whole view, taken from a second, untouched instance of the wasm module (its `StateStore`'s
// `modelView` is the core's: every message encoded, written as JSON and parsed): random histories
// grown, rewritten and cut step by step (appends, calls and results, replacements and removals
// by id, compaction, sections, a private channel), each view under random options (budget,
// format, system rules, previews, sections, agent, tokenizers that change), callers that change
// the views they were given, and calls into the core that put the façade's slots out of step.
// Every view must be byte for byte the whole view (and every error the same code).
//
// Run: node --test tests/js/model-view-cache.test.mjs

import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { StateStore } from "../../pkg/index.js";
import * as glue from "../../pkg/stategate_wasm.js";
import { mulberry32 } from "../support/prng.mjs";

const wasmUrl = new URL("../../pkg/stategate_wasm_bg.wasm", import.meta.url);
const oracle = await import(new URL("../../pkg/stategate_wasm.js?oracle", import.meta.url).href);
oracle.initSync({ module: fs.readFileSync(wasmUrl) });

const FORMATS = ["langchain", "openai", "anthropic", "ai-sdk", "gemini", "ui", "responses", "openai-agents"];
const TOOLS = ["search", "read_file", "get_weather"];

const outcome = (f) => {
  try {
    return { ok: f() };
  } catch (e) {
    return { code: e?.code ?? String(e) };
  }
};

/** One random scenario: the same changes applied to a store of the package and one of the oracle. */
function scenario(seed, steps) {
  const rand = mulberry32(seed);
  const int = (n) => Math.floor(rand() * n);
  const pick = (xs) => xs[int(xs.length)];
  const chance = (p) => rand() < p;
  const mine = new StateStore({ runId: `r${seed}` });
  const theirs = new oracle.StateStore({ runId: `r${seed}` });
  const both = (f) => {
    const a = outcome(() => f(mine));
    const b = outcome(() => f(theirs));
    assert.deepEqual(a.code, b.code, `seed ${seed}: the stores disagree on a change`);
    return a;
  };
  const ids = [];
  let pending = [];
  let next = 0;
  let vault = false;
  // Two tokenizers, so a view may count with another one than the last.
  const words = (t) => t.split(/\s+/).filter(Boolean).length;
  const chars = (t) => Math.ceil(t.length / 3);
  let views = 0;
  for (let step = 0; step < steps; step++) {
    const id = () => `m${seed}-${next++}`;
    const what = int(12);
    if (what <= 2) {
      const m = { type: "human", id: id(), content: `question ${next} ${"lorem ipsum ".repeat(int(30))}` };
      if (both((s) => s.apply({ author: "u", update: { messages: [m] } })).ok) ids.push(m.id);
    } else if (what <= 4) {
      const calls = Array.from({ length: int(3) }, () => ({ id: `c${seed}-${next++}`, name: pick(TOOLS), args: { q: next } }));
      const m = { type: "ai", id: id(), content: chance(0.5) ? "" : `answer ${next}`, tool_calls: calls };
      if (both((s) => s.apply({ author: "model", update: { messages: [m] } })).ok) {
        ids.push(m.id);
        pending.push(...calls);
      }
    } else if (what <= 6 && pending.length) {
      const c = pending.splice(int(pending.length), 1)[0];
      const m = { type: "tool", id: id(), tool_call_id: c.id, name: c.name, content: `result of ${c.id}: ${"data ".repeat(int(400))}` };
      if (both((s) => s.apply({ author: "tool", update: { messages: [m] } })).ok) ids.push(m.id);
    } else if (what === 7 && ids.length) {
      // The same id again: replaced in place (a different text, or the same one).
      const target = pick(ids);
      const current = mine.get("messages").find((m) => m.id === target);
      if (current && current.role === "user") {
        const content = chance(0.5) ? `rewritten ${next++}` : current.content;
        both((s) => s.apply({ author: "u", update: { messages: [{ type: "human", id: target, content }] } }));
      }
    } else if (what === 8 && ids.length > 3) {
      const target = pick(ids);
      both((s) => s.apply({ author: "u", update: { messages: [{ remove: target }] } }));
    } else if (what === 9 && ids.length > 6) {
      const cut = outcome(() => mine.compactionPlan({ keep: 2 + int(6) })).ok;
      const summary = `summary ${next++}`;
      if (typeof cut === "number") both((s) => s.compact({ summary, cut }));
    } else if (what === 10) {
      const update = { run: { status: "running", task: `task ${int(3)}` }, facts: { [`f${int(4)}`]: `v${next++}` } };
      both((s) => s.apply({ author: "u", update }));
    } else if (what === 11 && !vault && chance(0.3)) {
      // A private value; now and then a message quotes it, and views are refused until it goes.
      for (const s of [mine, theirs]) {
        const { key } = s.registerChannel({ name: "vault", reducer: "replace", visibility: "private", owner: "vault" });
        s.apply({ author: "vault", update: { vault: "CANARY-secret-value" } }, key);
      }
      vault = true;
    } else if (what === 11 && vault) {
      const m = { type: "human", id: id(), content: `leaked: CANARY-secret-value ${next}` };
      if (both((s) => s.apply({ author: "u", update: { messages: [m] } })).ok) ids.push(m.id);
    }
    if (!chance(0.7)) continue;
    const opts = {
      budget: pick([25, 60, 200, 800, 4000]),
      format: pick(FORMATS),
      sections: chance(0.7),
      startOnUser: chance(0.8),
    };
    if (chance(0.3)) opts.system = "You are terse.";
    if (chance(0.3)) opts.maxToolResultTokens = pick([10, 50, 200]);
    if (chance(0.3)) opts.tokenizer = pick([words, chars]);
    if (chance(0.1)) opts.agent = "helper";
    const a = outcome(() => mine.modelView(opts));
    const b = outcome(() => theirs.modelView(opts));
    assert.equal(JSON.stringify(a), JSON.stringify(b), `seed ${seed}, step ${step}: ${JSON.stringify({ ...opts, tokenizer: opts.tokenizer?.name })}`);
    views++;
    if (a.ok && chance(0.3)) {
      // The caller changes what it was given: the next view must not see it.
      const m = a.ok.messages[int(a.ok.messages.length)];
      if (m && typeof m === "object") {
        for (const k of Object.keys(m)) delete m[k];
        m.role = "hacked";
      }
      a.ok.messages.push({ role: "user", content: "injected" });
      a.ok.report.messages.pop();
    }
    if (chance(0.05)) {
      // Someone else calls the core: the façade's slots are out of step, and it must notice.
      outcome(() => glue.modelViewDelta(mine, opts, 7));
    }
  }
  assert.deepEqual(mine.version, theirs.version, `seed ${seed}: the same changes`);
  return views;
}

test("every view equals the core's whole view, whatever happened since the last one", () => {
  let views = 0;
  for (let seed = 1; seed <= 60; seed++) views += scenario(seed, 80);
  assert.ok(views > 2000, `${views} views compared`);
});

test("a view's messages are fresh objects; an unchanged message is not sent again", () => {
  const s = new StateStore();
  s.apply({ author: "u", update: { messages: [{ role: "user", content: "hello" }, { role: "assistant", content: "hi" }] } });
  const first = s.modelView({ budget: 1000 });
  const second = s.modelView({ budget: 1000 });
  assert.deepEqual(first, second);
  assert.notEqual(first.messages[0], second.messages[0], "each view has its own objects");
  assert.notEqual(first.report, second.report);
  // The core sent nothing again: every slot of the second view was kept.
  const { fresh } = glue.modelViewLayout();
  const [slots, , json] = glue.modelViewDelta(s, { budget: 1000 }, 0);
  assert.ok([...slots].every((x) => x >= fresh), "a stale epoch gets the whole view");
  const [again, , json2, epoch] = glue.modelViewDelta(s, { budget: 1000 }, glue.modelViewDelta(s, { budget: 1000 }, 0)[3]);
  assert.ok([...again].every((x) => x < fresh), `nothing fresh: ${[...again]}`);
  assert.equal(JSON.parse(json2).fresh.length, 0);
  assert.ok(json.length > json2.length && epoch > 0);
});

test("a failed view leaves the next one whole and right", () => {
  const s = new StateStore();
  s.apply({ author: "u", update: { messages: [{ role: "user", content: "hello ".repeat(50) }] } });
  const good = s.modelView({ budget: 1000 });
  assert.throws(() => s.modelView({ budget: 5 }), { code: "BUDGET_TOO_SMALL" });
  assert.throws(() => s.modelView({ budget: 1000, tokenizer: () => { throw new Error("boom"); } }), { code: "INVALID_OPTION" });
  assert.deepEqual(s.modelView({ budget: 1000 }), good);
  s.free();
  assert.throws(() => s.modelView({ budget: 1000 }), { code: "FREED" });
});
