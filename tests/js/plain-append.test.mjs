// Issue 17, row 2: `store.apply` reads a plain append from the object itself (src/js/plain.rs),
// without `JSON.stringify`; every other command is read from its JSON text. The same command
// must give the same answer either way: the same result or error (code, message, details),
// the same state and the same log with the same hashes. Each case is applied to two stores: as
// given, and with a first key the object reading declines at once and JSON.stringify leaves out
// (`decoy`) — the JSON path.
// PROPS_CASES sets the number of random cases (default 300).
import test from "node:test";
import assert from "node:assert/strict";
import { mulberry32 } from "../support/prng.mjs";
import { StateStore } from "../../pkg/index.js";

const CASES = Number(process.env.PROPS_CASES ?? 300);
const CLOCK = () => 1_700_000_000_000;

/**
 * `v` with a first key the object reading declines at once (`"0"`, an index key, which every
 * object lists first) and `JSON.stringify` leaves out (its value is undefined): the same JSON
 * text, read by the JSON path. Added in place, so a getter that refers to the command sees it.
 */
function decoy(v) {
  v["0"] = undefined;
  return v;
}
/** A copy of `v` (its own enumerable keys) with the decoy. */
function viaJson(v) {
  return decoy(Object.assign({}, v));
}

/** What applying `cmd` gives: the result or the error, then the store's state and log. */
function outcome(store, cmd) {
  let answer;
  try {
    answer = { ok: store.apply(cmd) };
  } catch (e) {
    answer = { code: e.code, message: e.message, details: e.details };
  }
  return answer;
}

function same(commands, label) {
  const fast = new StateStore({ runId: "plain", clock: CLOCK });
  const slow = new StateStore({ runId: "plain", clock: CLOCK });
  for (const [i, cmd] of commands.entries()) {
    const a = outcome(fast, cmd);
    const b = outcome(slow, typeof cmd === "object" && cmd !== null ? viaJson(cmd) : cmd);
    assert.deepEqual(a, b, `${label}: command ${i} ${safe(cmd)}`);
  }
  assert.deepEqual(fast.toJSON(), slow.toJSON(), `${label}: state`);
  assert.equal(fast.eventsJsonl(), slow.eventsJsonl(), `${label}: log`);
  if (fast.version > 0) {
    const replayed = StateStore.replay(fast.eventsJsonl());
    assert.deepEqual(replayed.toJSON(), fast.toJSON(), `${label}: replay`);
    replayed.free();
  }
  for (const s of [fast, slow]) s.free();
}

function safe(v) {
  try {
    return JSON.stringify(v)?.slice(0, 300);
  } catch {
    return String(v);
  }
}

function gen(seed) {
  const r = mulberry32(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (xs) => xs[int(xs.length)];
  const weighted = (common, rare, p = 0.8) => (r() < p ? pick(common) : pick(rare));
  const role = () => weighted(["user", "assistant", "system"], ["tool", "developer", "User", "", "human", 3, null, undefined]);
  const text = () =>
    weighted(
      ["hi", "", "héllo 東京 😀", 'a "quoted" \\ line\nbreak \u0001', "x".repeat(int(3000))],
      ["lone \ud800", "\udc00 trail", null, 7, ["text"], [{ type: "text", text: "hi" }], { text: "x" }, undefined, "null", "{}"],
    );
  const extra = () => weighted([undefined], [["id", "m1"], ["name", "bob"], ["id", undefined], ["tool_call_id", "c1"], ["content", "again"], ["toJSON", () => ({ role: "user", content: "swapped" })]], 0.85);
  const message = () => {
    const m = r() < 0.5 ? { role: role(), content: text() } : { content: text(), role: role() };
    const e = extra();
    if (e) m[e[0]] = e[1];
    if (r() < 0.02) return null;
    if (r() < 0.02) return "a string";
    return m;
  };
  const cmd = {};
  const author = weighted(["user", "model", "bench"], ["", "a\"b", "lone \ud800", 3, undefined, null, "system"]);
  if (author !== undefined || r() < 0.5) cmd.author = author;
  const version = weighted([undefined], [0, 1, 2, 3, null, 1.5, -1, -0, NaN, Infinity, 2 ** 53, 2 ** 60, "1", undefined], 0.6);
  if (version !== undefined || r() < 0.1) cmd.expectedVersion = version;
  for (const key of ["correlationId", "causationId"]) {
    const id = weighted([undefined], ["req-1", "", "lone \ud800", null, 5, undefined], 0.7);
    if (id !== undefined || r() < 0.1) cmd[key] = id;
  }
  const messages = Array.from({ length: int(4) }, message);
  if (r() < 0.03) messages.length += 1; // a hole: JSON writes null
  const update = r() < 0.95 ? { messages } : pick([{ messages, todos: [] }, { messages: "hi" }, {}, { messages: null }]);
  if (r() < 0.97) cmd.update = update;
  if (r() < 0.02) cmd.extra = 1;
  return cmd;
}

test("a plain append read from the object gives what its JSON text gives (random commands near the shape)", () => {
  for (let seed = 1; seed <= CASES; seed++) {
    const r = mulberry32(seed * 7919);
    same(Array.from({ length: 1 + Math.floor(r() * 6) }, (_, i) => gen(seed * 100 + i)), `seed ${seed}`);
  }
});

test("the object reading's edges give what the JSON path gives", () => {
  class Msg {
    constructor() {
      this.role = "user";
      this.content = "from a class";
    }
  }
  const getters = { author: "user", update: { messages: [{ role: "user", get content() { return "from a getter"; } }] } };
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  same(
    [
      { author: "user", update: { messages: [new Msg()] } },
      getters,
      { author: "user", update: { messages: revoked.proxy } },
      { author: "user", update: { messages: [{ role: "user", content: "é".repeat(5_000) }] } }, // grows the buffer
      { author: "user", update: { messages: [{ role: "user", content: "x", toJSON: undefined }] } },
      { author: "user", update: { messages: [] } },
      { author: "user", expectedVersion: 6, update: { messages: [{ role: "assistant", content: "at 6" }] } },
      { author: "user", expectedVersion: 5, update: { messages: [{ role: "assistant", content: "stale" }] } },
      { author: "user", update: { messages: [{ role: "user", content: 1n }] } },
      { author: "user", update: { messages: [{ role: "user", content: new String("boxed") }] } },
      { author: "user", update: { messages: [{ role: "user", content: "sym", [Symbol("s")]: 1 }] } },
      { author: "user", update: { messages: [{ role: "user", content: "fn", f: () => 1 }] } },
    ],
    "edges",
  );
});

test("a getter that applies to the same store meanwhile: both commands land, in the JSON path's order", () => {
  const run = (wrap) => {
    const store = new StateStore({ runId: "nested", clock: CLOCK });
    const cmd = {
      author: "user",
      update: {
        messages: [
          {
            role: "user",
            get content() {
              store.apply(wrap({ author: "user", update: { messages: [{ role: "system", content: "inner" }] } }));
              return "outer";
            },
          },
        ],
      },
    };
    const applied = store.apply(wrap(cmd));
    const out = [applied, store.messages().map((m) => m.content), store.eventsJsonl()];
    store.free();
    return out;
  };
  const fast = run((c) => c);
  assert.deepEqual(fast[1], ["inner", "outer"]);
  assert.deepEqual(fast, run(viaJson));
});

test("getters, Proxy traps and toJSON are read as JSON.stringify reads them: the same order, the same errors (fresh-eyes findings)", () => {
  // Each case is made twice, once for each side (getters keep state); `d` adds the decoy for the JSON side.
  const cases = {
    // A: a getter that changes what is read later sees the same order (depth first, key order).
    order: (d) => {
      const m = { role: "user", content: "orig" };
      return d({ author: "user", update: { messages: [m] }, get correlationId() { m.content = "changed"; return "c"; } });
    },
    orderBack: (d) => {
      const c = d({ author: "user", update: { messages: [{ role: "user", get content() { c.correlationId = "late"; return "x"; } }] }, correlationId: "early" });
      return c;
    },
    // C: what throws once is thrown, as JSON.stringify throws it.
    throwsOnce: (d) => {
      let n = 0;
      return d({ author: "user", update: { messages: [{ role: "user", get content() { if (n++ === 0) throw new Error("boom"); return "x"; } }] } });
    },
    ownKeysOnce: (d) => {
      let n = 0;
      return new Proxy(d({ author: "user", update: { messages: [{ role: "user", content: "x" }] } }), { ownKeys(t) { if (n++ === 0) throw new Error("once"); return Reflect.ownKeys(t); } });
    },
    // D: a toJSON only a Proxy's get trap shows.
    toJsonMessage: (d) => d({ author: "user", update: { messages: [new Proxy({ role: "user", content: "x" }, { get: (t, k) => (k === "toJSON" ? () => ({ role: "user", content: "FROM_TOJSON" }) : t[k]) })] } }),
    toJsonCommand: (d) => new Proxy(d({ author: "user", update: { messages: [{ role: "user", content: "x" }] } }), { get: (t, k) => (k === "toJSON" ? () => ({ author: "other", update: { messages: [{ role: "assistant", content: "T" }] } }) : t[k]) }),
    // JSON.stringify never asks `has`: neither does the object reading.
    hasThrows: (d) => new Proxy(d({ author: "user", update: { messages: [{ role: "user", content: "x" }] } }), { has: () => { throw new Error("has is never asked"); } }),
    // A bad value stops the reading where JSON.stringify throws (it writes a value whole before
    // it reads the next key): a later getter never runs (fresh-eyes round 2).
    bigintFirst: (d) => d({ author: "user", update: { messages: [{ content: 1n, get role() { throw new Error("ROLE"); } }] } }),
    toJsonThrowsFirst: (d) => d({ author: "user", update: { messages: [{ content: { toJSON() { throw new Error("TJ"); } }, get role() { throw new Error("ROLE"); } }] } }),
    cycleFirst: (d) => {
      const m = { get role() { throw new Error("ROLE"); } };
      const c = d({ author: "user", update: { messages: [m] } });
      Object.defineProperty(m, "content", { value: m, enumerable: true });
      // `content` after `role` in key order: move role last.
      const role = Object.getOwnPropertyDescriptor(m, "role");
      delete m.role;
      Object.defineProperty(m, "role", { ...role, enumerable: true });
      return c;
    },
    roleBigintFirst: (d) => d({ author: "user", update: { messages: [{ role: 1n, get content() { throw new Error("CONTENT"); } }] } }),
    // A plain append larger than the reader's buffer is read once (the retry takes what was read).
    growsOnce: (d) => {
      let n = 0;
      return d({ author: "user", update: { messages: [{ role: "user", get content() { return n++ ? "short" : "z".repeat(200_000); } }] } });
    },
  };
  for (const [name, make] of Object.entries(cases)) {
    const a = new StateStore({ runId: "g", clock: CLOCK });
    const b = new StateStore({ runId: "g", clock: CLOCK });
    assert.deepEqual(outcome(a, make((v) => v)), outcome(b, make(decoy)), name);
    assert.equal(a.eventsJsonl(), b.eventsJsonl(), name);
    a.free();
    b.free();
  }
  const s = new StateStore({ runId: "g", clock: CLOCK });
  assert.throws(() => s.apply(cases.throwsOnce((v) => v)), { code: "INVALID_UPDATE", message: /cannot be stored as JSON \(boom\)/ });
  assert.equal(s.version, 0);
  s.apply(cases.order((v) => v));
  s.apply(cases.growsOnce((v) => v));
  assert.deepEqual(s.messages().map((m) => m.content.length), [4, 200_000]);
  s.free();
});

test("the JSON path keeps the size limit: a content past it is TOO_LARGE either way, one under it is applied", () => {
  const store = new StateStore({ runId: "big", clock: CLOCK });
  const over = { author: "user", update: { messages: [{ role: "user", content: "a".repeat(32 * 1024 * 1024) }] } };
  for (const cmd of [over, viaJson(over)]) assert.throws(() => store.apply(cmd), { code: "TOO_LARGE" });
  const under = { author: "user", update: { messages: [{ role: "user", content: "b".repeat(5_000_000) }] } };
  assert.deepEqual(store.apply(under), { version: 1, ids: ["big:1:0"] });
  assert.equal(store.messages()[0].content.length, 5_000_000);
  store.free();
});
