// Issue 14: trust at the boundary. Each reproduction of the issue is a test here: no input traps
// the module, no change escapes the write-ahead log, one input gets one answer, every error has a
// code. Run against the release package (pkg/).
import test from "node:test";
import assert from "node:assert/strict";
import {
  StateStore,
  validateMessages,
  repairMessages,
  convertMessages,
  decodeMessages,
  projectMessages,
  subagentInput,
  subagentResult,
  verifyLog,
  isStategateError,
  AsyncTasks as AsyncTasksClass,
} from "../../pkg/index.js";

const coded = (code) => (e) => {
  assert.ok(isStategateError(e), `a StategateError, got ${e?.name}: ${e?.message}`);
  if (code) assert.equal(e.code, code, e.message);
  return true;
};

const nested = (depth, leaf = "x") => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

/** A store in use before the bad inputs, and a check that it is still usable and unchanged. */
function witness() {
  const s = new StateStore({ runId: "w" });
  s.apply({ author: "u", update: { messages: [{ role: "user", content: "still here" }] } });
  const before = JSON.stringify(s.systemView());
  return () => {
    assert.equal(JSON.stringify(s.systemView()), before);
    s.apply({ author: "u", update: { messages: [{ role: "user", content: "and usable" }] } });
    assert.equal(s.version, 2);
    assert.deepEqual(validateMessages([{ role: "user", content: "hi" }], { provider: "openai" }), []);
  };
}

test("1. cycles and depth never trap the module: typed errors, later calls and existing stores unaffected", () => {
  const alive = witness();
  const m = { role: "user", content: "hi" };
  m.meta = m;
  const self = [{ role: "user", content: "a" }];
  self.push(self);
  const deep = { role: "user", content: "hi", meta: nested(5000) };
  const deepArgs = { type: "ai", content: "", tool_calls: [{ id: "c1", name: "t", args: { v: nested(10000) } }] };
  const calls = [
    () => convertMessages([m], { to: "gemini" }),
    () => decodeMessages([m]),
    () => projectMessages([m], { budget: 1000 }),
    () => validateMessages(self, { provider: "openai" }),
    () => repairMessages(self),
    () => convertMessages([deep], { to: "openai" }),
    () => validateMessages([deep], { provider: "anthropic" }),
    () => repairMessages([deep]),
    () => projectMessages([deep], { budget: 1000 }),
    () => convertMessages([deepArgs], { to: "openai" }),
    () => projectMessages([deepArgs], { budget: 1000 }),
  ];
  for (const call of calls) assert.throws(call, coded("INVALID_MESSAGE"));
  // The failing message is named.
  assert.throws(() => convertMessages([{ role: "user", content: "ok" }, m], { to: "openai" }), (e) => e.details.index === 1);
  alive();
});

test("2. compact() goes through onEvents; replaying what onEvents saw equals the store; a throwing onEvents rolls it back", () => {
  const seen = [];
  const s = new StateStore({ runId: "c", onEvents: (events) => seen.push(...events) });
  for (let k = 0; k < 9; k++) s.apply({ author: "u", update: { messages: [{ role: k % 2 ? "assistant" : "user", content: `m${k}` }] } });
  s.compact({ summary: "so far", cut: s.compactionPlan({ keep: 3 }) });
  assert.equal(s.version, 10);
  assert.equal(seen.length, 10);
  const again = StateStore.replay(seen);
  assert.deepEqual(again.systemView(), s.systemView());
  s.apply({ author: "u", update: { messages: [{ role: "user", content: "more" }] } });
  assert.deepEqual(StateStore.replay(seen).systemView(), s.systemView());

  let fail = false;
  const t = new StateStore({ onEvents: () => { if (fail) throw new Error("disk full"); } });
  for (let k = 0; k < 4; k++) t.apply({ author: "u", update: { messages: [{ role: k % 2 ? "assistant" : "user", content: `m${k}` }] } });
  const before = JSON.stringify(t.systemView());
  fail = true;
  assert.throws(() => t.compact({ summary: "s", cut: t.compactionPlan({ keep: 1 }) }), coded("STORAGE_ERROR"));
  assert.equal(JSON.stringify(t.systemView()), before);
  assert.equal(t.version, 4);
});

test("3. the store refuses what its own log could not read back (tool arguments nested in JSON text)", () => {
  const s = new StateStore();
  const args = JSON.stringify({ v: nested(122) });
  assert.throws(
    () => s.apply({ author: "m", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: args } }] }] } }),
    coded("INVALID_TOOL_CALL"),
  );
  assert.equal(s.version, 0);
  // Just under the limit: taken, and every reader gets it back.
  const ok = JSON.stringify({ v: nested(60) });
  s.apply({ author: "m", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: ok } }] }] } });
  const view = s.systemView();
  assert.deepEqual(StateStore.replay(s.eventsJsonl()).systemView(), view);
  assert.deepEqual(StateStore.replay(s.events()).systemView(), view);
  assert.deepEqual(StateStore.restore(s.checkpoint()).systemView(), view);
  assert.deepEqual(verifyLog(s.eventsJsonl()), { ok: true });
});

test("5. one input, one answer: LangChain message-like dicts, canonical messages read back, JSON text with lone-surrogate escapes", () => {
  const history = [
    { role: "user", content: "weather?" },
    { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "weather", args: { city: "Paris" } }] },
  ];
  const asArray = validateMessages(history, { provider: "openai" });
  assert.deepEqual(asArray.map((v) => [v.rule, v.index, v.toolCallId]), [["MISSING_TOOL_RESULT", 1, "c1"]]);
  assert.deepEqual(validateMessages(JSON.stringify(history), { provider: "openai" }), asArray);
  assert.deepEqual(repairMessages(history).report, repairMessages(JSON.stringify(history)).report);
  const openai = convertMessages(history, { to: "openai" });
  assert.deepEqual(openai[1].tool_calls, [{ id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }]);
  assert.equal(decodeMessages(history)[1].tool_calls[0].name, "weather");
  // The model view repairs the dangling call: the call and its synthetic result.
  assert.deepEqual(projectMessages(history, { budget: 1000, format: "openai" }).messages.map((m) => m.role), ["user", "assistant", "tool"]);

  const s = new StateStore();
  s.apply({ author: "m", update: { messages: history } });
  s.apply({ author: "t", update: { messages: [{ role: "tool", tool_call_id: "c1", content: "sunny" }] } });
  // Canonical messages fed back decode to themselves: no extra growth, calls accepted.
  let stored = s.get("messages");
  for (let round = 0; round < 3; round++) {
    const t = new StateStore();
    t.apply({ author: "copy", update: { messages: stored } });
    assert.deepEqual(t.get("messages"), stored, `round ${round}`);
    stored = t.get("messages");
  }
  assert.deepEqual(decodeMessages(s.get("messages")), s.get("messages"));

  // JSON.stringify writes a lone surrogate as "\ud800": the text form reads it as the array form does.
  const lone = [{ role: "user", content: "a\ud800b" }];
  const text = JSON.stringify(lone);
  assert.match(text, /\\ud800/);
  assert.deepEqual(decodeMessages(text), decodeMessages(lone));
  assert.equal(decodeMessages(text)[0].content, "a\ufffdb");
  // A valid pair stays a pair.
  assert.equal(decodeMessages(JSON.stringify([{ role: "user", content: "😀" }]))[0].content, "😀");
});

test("6. every error has a code: throwing getters, revoked Proxies, freed objects, wrong arguments; NaN and lost array entries refused", () => {
  const alive = witness();
  const getter = { role: "user", get content() { throw new Error("boom"); } };
  const { proxy, revoke } = Proxy.revocable({ role: "user", content: "x" }, {});
  revoke();
  const cyc = { role: "user", content: "hi" };
  cyc.self = cyc;
  for (const bad of [getter, proxy, cyc]) {
    assert.throws(() => validateMessages([bad], { provider: "openai" }), coded("INVALID_MESSAGE"));
    assert.throws(() => repairMessages([bad]), coded("INVALID_MESSAGE"));
    assert.throws(() => projectMessages([bad], { budget: 100 }), coded("INVALID_MESSAGE"));
    assert.throws(() => convertMessages([bad], { to: "openai" }), coded("INVALID_MESSAGE"));
  }
  const dead = Proxy.revocable([], {});
  dead.revoke();
  assert.throws(() => validateMessages(dead.proxy, { provider: "openai" }), coded("INVALID_MESSAGE"));
  assert.throws(() => subagentInput({}, { description: "x" }), coded("INVALID_OPTION"));
  assert.throws(() => subagentResult({}, "c1"), coded("INVALID_OPTION"));
  assert.throws(() => new AsyncTasksClass({}, { agents: [] }), coded("INVALID_OPTION"));
  const s = new StateStore();
  s.free();
  assert.throws(() => s.apply({ author: "u", update: { todos: [] } }), coded("FREED"));
  assert.throws(() => s.version, coded("FREED"));
  assert.throws(() => s.systemView(), coded("FREED"));
  s.free(); // a second free is harmless

  const t = new StateStore();
  assert.throws(() => t.apply({ author: "u", update: { messages: [{ role: "user", content: NaN }] } }), coded("INVALID_UPDATE"));
  // A plain append (read without a JSON tree, issue 17) refuses what JSON writes as null too.
  const plain = { author: "u", update: { messages: [{ role: "user", content: "hi" }] } };
  for (const lost of [{ expectedVersion: NaN }, { expectedVersion: Infinity }, { correlationId: NaN }, { causationId: -Infinity }]) {
    assert.throws(() => t.apply({ ...plain, ...lost }), coded("INVALID_UPDATE"), JSON.stringify(Object.keys(lost)));
  }
  assert.throws(() => t.apply({ ...plain, author: new Map() }), coded("INVALID_UPDATE"));
  assert.equal(t.version, 0);
  assert.throws(() => validateMessages([{ role: "user", content: NaN }], { provider: "openai" }), coded("INVALID_MESSAGE"));
  t.registerChannel({ name: "log", reducer: "append" });
  assert.throws(() => t.apply({ author: "u", update: { log: [Symbol(), undefined, () => {}] } }), coded("INVALID_UPDATE"));
  assert.deepEqual(t.get("log"), []);
  assert.equal(t.version, 0);
  alive();
});

// One write path (issue 14): every method of StateStore and AsyncTasks is classified here as
// changing the store or not; each changing one is called with onEvents collecting, and replaying
// what onEvents saw must equal the live store. A method added later without being classified
// fails the first assertion, so no future method can bypass the write-ahead sink unnoticed.
import { AsyncTasks } from "../../pkg/index.js";
import { createAgentServer } from "../../www/agent-sim.js";

const READS = new Set([
  "version", "runId", "lastHash", "get", "messages", "systemView", "private", "toJSON", "channels", "events", "eventsJsonl",
  "checkpoint", "exportForTransport", "danglingToolCalls", "at", "compactionPlan", "check", "notifications", "privateLeaks", "approvals",
  // Schema and keys, not state: they write no event (replay takes the channels in its options).
  "registerChannel", "claimOwnerKey",
  // The events a change would log, and the events made safe to send: the store is unchanged.
  "preview", "previewBatch", "previewRepair", "compactionCommand", "transportEvents",
]);
// Applies events that are logged already (a database, another writer, a server): never onEvents.
const INGESTS = new Set(["ingest"]);
const CHANGES = new Set(["apply", "applyBatch", "repair", "compact", "modelView", "deliverNotifications", "decide"]);
const TASK_READS = new Set(["tools", "isTaskTool", "ledger", "untracked"]);
const TASK_CHANGES = new Set(["handle", "poll"]);

test("every mutating method reaches onEvents; replaying what onEvents saw equals the store", async () => {
  const own = (proto) => Object.getOwnPropertyNames(proto).filter((k) => k !== "constructor" && k !== "free" && !k.startsWith("__"));
  for (const k of own(StateStore.prototype)) assert.ok(READS.has(k) || CHANGES.has(k) || INGESTS.has(k), `StateStore.${k} is not classified as reading or changing`);
  for (const k of own(AsyncTasks.prototype)) assert.ok(TASK_READS.has(k) || TASK_CHANGES.has(k), `AsyncTasks.${k} is not classified`);

  const seen = [];
  const s = new StateStore({ runId: "all", onEvents: (events) => seen.push(...events) });
  const called = new Set();
  const step = (name, f) => {
    const before = s.version;
    const out = f();
    called.add(name);
    return Promise.resolve(out).then((r) => {
      assert.ok(s.version > before, `${name} changed the store`);
      assert.equal(seen.length, s.version, `onEvents saw every event after ${name}`);
      return r;
    });
  };
  await step("apply", () => s.apply({ author: "u", update: { messages: [{ role: "user", content: "start" }] } }));
  await step("applyBatch", () => s.applyBatch([{ author: "a", update: { todos: [{ content: "x", status: "pending" }] } }, { author: "b", update: { facts: { k: 1 } } }]));
  s.apply({ author: "m", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "d1", type: "function", function: { name: "t", arguments: "{}" } }] }] } });
  await step("repair", () => s.repair());
  s.apply({ author: "m", update: { messages: [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "ok1", toolName: "t", input: {} }, { type: "tool-approval-request", approvalId: "ap1", toolCallId: "ok1" }] }] } });
  await step("decide", () => s.decide({ approvalId: "ap1", approved: false, author: "human" }));
  s.apply({ author: "t", update: { messages: [{ type: "tool", tool_call_id: "ok1", content: "denied", status: "error" }] } });
  s.apply({ author: "m", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "big", type: "function", function: { name: "read", arguments: "{}" } }] }] } });
  s.apply({ author: "t", update: { messages: [{ role: "tool", tool_call_id: "big", content: "lorem ipsum ".repeat(400) }] } });
  await step("modelView", () => s.modelView({ budget: 4000, maxToolResultTokens: 50 }));
  for (let k = 0; k < 6; k++) s.apply({ author: "u", update: { messages: [{ role: k % 2 ? "assistant" : "user", content: `m${k}` }] } });
  await step("compact", () => s.compact({ summary: "so far", cut: s.compactionPlan({ keep: 2 }) }));

  const server = createAgentServer({ finishAfter: 1 });
  const tasks = new AsyncTasks(s, { url: "http://agents.invalid", agents: [{ name: "r", description: "reviews", graph_id: "review" }], transport: server.transport });
  const call = { id: "t1", name: "start_async_task", args: { description: "review it", subagent_type: "r" } };
  s.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } }] }] } });
  await step("handle", () => tasks.handle(call));
  await step("poll", async () => {
    for (let i = 0; i < 5 && s.notifications().length === 0; i++) await tasks.poll();
  });
  await step("deliverNotifications", () => s.deliverNotifications());
  assert.deepEqual([...called].sort(), [...CHANGES, ...TASK_CHANGES].sort(), "every changing method was exercised");

  const again = StateStore.replay(seen);
  assert.deepEqual(again.systemView(), s.systemView());
  assert.equal(again.lastHash, s.lastHash);
  tasks.free();

  // ingest: what another writer logged reaches the store, and never this store's onEvents.
  const mine = [];
  const reader = new StateStore({ runId: "all", onEvents: (events) => mine.push(...events) });
  assert.deepEqual(reader.ingest(seen), { version: s.version, applied: seen.length, hashChecked: seen.length });
  assert.equal(mine.length, 0, "ingest logs nothing again");
  assert.equal(reader.lastHash, s.lastHash);
  const [next] = s.preview({ author: "u", update: { todos: [] } });
  assert.equal(s.version, seen.length, "preview changes nothing");
  assert.deepEqual(reader.ingest([next]).version, s.version + 1);
  assert.equal(mine.length, 0);
});

test("7. a private value split over two text parts is caught in every format", () => {
  const s = new StateStore();
  const key = s.registerChannel({ name: "vault", reducer: "replace", visibility: "private", owner: "mem" });
  s.apply({ author: "mem", update: { vault: "CANARY-priv-31337x" } });
  s.apply({ author: "u", update: { messages: [{ role: "user", content: [{ type: "text", text: "CANARY-priv" }, { type: "text", text: "-31337x" }] }] } });
  for (const format of ["langchain", "openai", "anthropic", "ai-sdk", "gemini", "responses", "openai-agents"]) {
    assert.throws(() => s.modelView({ budget: 1000, format }), (e) => coded("PRIVATE_LEAK")(e) && e.details.channel === "vault", format);
  }
  assert.ok(key.startsWith("sgk_"));
});

test("numbers in JSON-text tool arguments survive the trip through JS: onEvents and events() replay and verify", () => {
  // Fresh-eyes pass (issue 14): `{"amount":10.0}` was hashed as Rust read it, then came back from
  // JS as 10, so what onEvents saw no longer verified or replayed.
  const seen = [];
  const s = new StateStore({ runId: "n", onEvents: (events) => seen.push(...events) });
  const args = ['{"amount":10.0}', '{"a":1e2,"b":-0,"c":-0.0,"d":1e-400,"e":9007199254740993,"f":12345678901234567890,"g":0.1}'];
  args.forEach((a, k) => s.apply({ author: "m", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: `c${k}`, type: "function", function: { name: "pay", arguments: a } }] }] } }));
  s.apply({ author: "x", update: { facts: { big: 1e21, small: 5e-324 } } });
  assert.deepEqual(verifyLog(seen), { ok: true });
  assert.equal(StateStore.replay(seen).lastHash, s.lastHash);
  assert.equal(StateStore.replay(s.events()).lastHash, s.lastHash);
  assert.deepEqual(s.get("messages")[0].tool_calls[0].args, { amount: 10 });
  // The model's own text still goes back out as it was.
  assert.equal(s.messages("openai")[0].tool_calls[0].function.arguments, '{"amount":10.0}');
});

test("bounded ids and placeholder templates: no input makes the module run out of memory (fresh-eyes pass)", async () => {
  const { FileLog } = await import("../../pkg/file-log.js");
  const long = "x".repeat(2000);
  const s = new StateStore();
  assert.throws(() => s.apply({ author: "m", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: long, type: "function", function: { name: "f", arguments: "{}" } }] }] } }), coded("INVALID_MESSAGE"));
  assert.throws(() => repairMessages([{ role: "user", content: "a", id: long }]), coded("INVALID_MESSAGE"));
  s.apply({ author: "m", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }] } });
  assert.throws(() => s.repair({ text: "{id}".repeat(100) }), coded("INVALID_OPTION"));
  assert.throws(() => repairMessages(s.messages("openai"), { text: "y".repeat(5000) }), coded("INVALID_OPTION"));
  assert.equal(s.version, 1);
  assert.equal(s.repair({ text: "{name} {id}: {reason}" }).report.length, 1);
  // Calling a class without new, freeing from inside a callback, junk into FileLog: typed.
  assert.throws(() => StateStore(), coded("INVALID_OPTION"));
  // Options that are an array (whose named properties JSON drops) or a run id that is empty or
  // would make generated ids pass the id limit: refused (fresh-eyes pass); a run id at the limit
  // and the default are taken.
  for (const bad of [[], Object.assign([], { runId: "r" }), { runId: "" }, { runId: "r".repeat(257) }]) {
    assert.throws(() => new StateStore(bad), coded("INVALID_OPTION"), JSON.stringify(bad));
  }
  assert.throws(() => new StateStore({ runId: "" }), (e) => e.details?.field === "runId" && /1 to 256 characters/.test(e.message));
  assert.throws(() => new StateStore().registerChannel([]), coded("INVALID_OPTION"));
  const atLimit = new StateStore({ runId: "r".repeat(256) });
  assert.equal(atLimit.apply({ author: "u", update: { messages: [{ role: "user", content: "hi" }] } }).ids[0], "r".repeat(256) + ":1:0");
  assert.equal(new StateStore().runId, "run");
  let inner;
  const t = new StateStore({ clock: () => { try { t.free(); } catch (e) { inner = e; } return 1; } });
  t.apply({ author: "u", update: { todos: [] } });
  assert.equal(inner?.code, "BUSY");
  assert.throws(() => t.version, coded("FREED"));
  const dir = (await import("node:fs")).mkdtempSync((await import("node:path")).join((await import("node:os")).tmpdir(), "sg-junk-"));
  const log = FileLog.open(dir);
  assert.throws(() => log.append([{ not: "an event" }]), coded("STORAGE_ERROR"));
  assert.throws(() => log.append("not jsonl"), coded("STORAGE_ERROR"));
  assert.equal(log.load().events, "");
  log.close();
});
