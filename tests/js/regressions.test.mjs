// Inputs that once broke the StateStore (found by a fresh-eyes review of the package), kept as
// tests: each must give a coded Error (never a trap, a thrown string or a poisoned store) and
// leave the store exactly as it was, or be handled as the docs (README.md, docs/) say.
//
// Run: node --test tests/js/regressions.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, AIMessageChunk, coerceMessageLikeToMessage } from "@langchain/core/messages";
import { StateStore, decodeMessages } from "../../pkg/index.js";

const snapshot = (s) => JSON.stringify([s.version, s.toJSON(), s.events()]);

function refused(s, fn, code) {
  const before = snapshot(s);
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, `not an Error: ${e}`);
    assert.equal(typeof e.code, "string");
    assert.equal(typeof e.details, "object");
    if (code) assert.equal(e.code, code, e.message);
    return true;
  });
  assert.equal(snapshot(s), before);
  // Still usable afterwards.
  s.apply({ author: "probe", update: { facts: { probe: s.version } } });
}

test("a throwing toJSON or getter is a coded error and never poisons the store", () => {
  const s = new StateStore();
  refused(s, () => s.apply({ author: "u", update: { facts: { a: { toJSON() { throw "x"; } } } } }), "INVALID_UPDATE");
  refused(s, () => s.applyBatch([{ author: "u", get update() { throw undefined; } }]), "INVALID_UPDATE");
  refused(s, () => s.registerChannel({ get name() { throw "n"; }, reducer: "merge" }), "INVALID_OPTION");
  refused(s, () => s.apply({ author: "u", update: { facts: { big: 10n } } }), "INVALID_UPDATE");
  const cyclic = {};
  cyclic.self = cyclic;
  refused(s, () => s.apply({ author: "u", update: { facts: cyclic } }), "INVALID_UPDATE");
});

test("wrong argument types are INVALID_OPTION, not wasm traps", () => {
  const s = new StateStore();
  for (const bad of [5, true, undefined, ["x"], {}]) {
    refused(s, () => s.get(bad), "INVALID_OPTION");
    refused(s, () => s.private(bad), "INVALID_OPTION");
  }
  refused(s, () => s.messages(5), "INVALID_OPTION");
  refused(s, () => s.messages({}), "INVALID_OPTION");
  assert.throws(() => new StateStore(5), (e) => e.code === "INVALID_OPTION");
  assert.throws(() => new StateStore({ runid: "typo" }), (e) => e.code === "INVALID_OPTION");
  const throwing = new StateStore({ clock: () => { throw "clock broke"; } });
  assert.throws(() => throwing.apply({ author: "u", update: { facts: { a: 1 } } }), (e) => e.code === "INVALID_OPTION" && /clock broke/.test(e.message));
});

test("NaN and Infinity are refused instead of becoming null (which deletes in a merge)", () => {
  const s = new StateStore();
  s.apply({ author: "u", update: { files: { "/x": "content" }, facts: { b: 1 } } });
  refused(s, () => s.apply({ author: "u", update: { files: { "/x": NaN } } }), "INVALID_UPDATE");
  refused(s, () => s.apply({ author: "u", update: { facts: { b: Infinity } } }), "INVALID_UPDATE");
  refused(s, () => s.apply({ author: "u", expectedVersion: NaN, update: { facts: { b: 2 } } }), "INVALID_UPDATE");
  refused(s, () => s.apply({ author: "u", update: { facts: { m: new Map([["a", 1]]) } } }), "INVALID_UPDATE");
  assert.equal(s.get("files")["/x"], "content");
});

test("integers beyond 2^53 stay readable; __proto__ is a plain key; lone surrogates become U+FFFD", () => {
  const late = new StateStore({ clock: () => 2 ** 60 });
  assert.throws(() => late.apply({ author: "m", update: { facts: { a: 1 } } }), (e) => e.code === "INVALID_OPTION");
  const s = new StateStore({ clock: () => 2 ** 53 - 1 });
  s.apply({ author: "m", update: { facts: { t_ns: 1.7e18, big: 2 ** 53 + 2 } } });
  assert.equal(s.get("facts").t_ns, 1.7e18);
  assert.equal(s.events()[0].created_at, 2 ** 53 - 1);
  s.apply({ author: "u", update: { facts: JSON.parse('{"__proto__": {"isAdmin": true}, "x": 1}') } });
  const facts = s.get("facts");
  assert.equal(facts.isAdmin, undefined);
  assert.deepEqual(Object.keys(facts), ["t_ns", "big", "__proto__", "x"]);
  s.apply({ author: "u", update: { messages: [{ role: "user", content: "hi 😀".slice(0, 4) }] } });
  assert.equal(s.get("messages")[0].content, "hi \uFFFD");
});

test("errors about private channels carry no private value or key", () => {
  const s = new StateStore();
  const key = s.registerChannel({ name: "pmsg", reducer: "messages", visibility: "private", owner: "mem" });
  s.registerChannel({ name: "pfacts", reducer: "merge", visibility: "private", owner: "mem" }, key);
  const CANARY = "CANARY-3b9e1d";
  const attempts = [
    { pmsg: [{ role: CANARY, content: "x" }] },
    { pmsg: [{ type: CANARY, content: "x" }] },
    { pmsg: [{ remove: CANARY }] },
    { pmsg: [{ replace: { id: CANARY, role: "user", content: "x" } }] },
    { pmsg: [{ role: "tool", tool_call_id: CANARY, content: "x" }] },
  ];
  for (const update of attempts) {
    try {
      s.apply({ author: "mem", update });
      assert.fail("accepted");
    } catch (e) {
      const text = JSON.stringify({ message: e.message, details: e.details });
      assert.ok(!text.includes(CANARY), text);
      assert.equal(e.details.channel, "pmsg");
    }
  }
  try {
    s.applyBatch([{ author: "mem", update: { pfacts: { [CANARY]: 1 } } }, { author: "mem", update: { pfacts: { [CANARY]: 2 } } }]);
    assert.fail("accepted");
  } catch (e) {
    assert.equal(e.code, "CONCURRENT_WRITE");
    assert.ok(!JSON.stringify({ m: e.message, d: e.details }).includes(CANARY));
  }
});

test("repair works when it is needed: on a cancelled run, past the deadline, with an approval pending", () => {
  const s = new StateStore({ clock: () => 50 });
  s.apply({ author: "app", update: { run: { status: "running" }, budget: { limits: { deadline_ms: 100 } } } });
  s.apply({ author: "m", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "k", type: "function", function: { name: "t", arguments: "{}" } }] }] } });
  s.apply({ author: "hitl", update: { approvals: { a: { tool_call_id: "k", status: "pending" } } } });
  s.apply({ author: "app", update: { run: { status: "cancelled" } } });
  const late = StateStore.replay(s.events(), { clock: () => 1e6 });
  const { report } = late.repair({ reasons: { k: "interrupted" } });
  assert.deepEqual(report.map((f) => [f.kind, f.toolCallId]), [["interrupted", "k"]]);
  assert.equal(late.danglingToolCalls().length, 0);
  // The model itself still cannot write to the cancelled run.
  refused(s, () => s.apply({ author: "m", update: { messages: [{ role: "assistant", content: "one more thing" }] } }), "RUN_ENDED");
});

test("ordering ops cannot put a result before its call or orphan it", () => {
  const s = new StateStore();
  s.apply({ author: "m", update: { messages: [{ id: "u", role: "user", content: "q" }, { id: "a", role: "assistant", content: null, tool_calls: [{ id: "k", type: "function", function: { name: "t", arguments: "{}" } }] }] } });
  refused(s, () => s.apply({ author: "t", update: { messages: [{ insertAfter: "u", message: { id: "r", role: "tool", tool_call_id: "k", content: "x" } }] } }), "UNKNOWN_TOOL_CALL");
  s.apply({ author: "t", update: { messages: [{ id: "r", role: "tool", tool_call_id: "k", content: "x" }] } });
  refused(s, () => s.apply({ author: "m", update: { messages: [{ remove: "a" }] } }), "UNKNOWN_TOOL_CALL");
  refused(s, () => s.apply({ author: "m", update: { messages: [{ id: "a2", role: "assistant", content: null, tool_calls: [{ id: "d", type: "function", function: { name: "t", arguments: "{}" } }, { id: "d", type: "function", function: { name: "t", arguments: "{}" } }] }] } }), "INVALID_TOOL_CALL");
});

test("an Anthropic response stored alone keeps its format (response-only fields kept in the store, never written into a request); OpenAI output of call-only turns has content null", () => {
  const s = new StateStore();
  const reply = { id: "msg_1", type: "message", role: "assistant", model: "claude", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn", usage: { input_tokens: 3, output_tokens: 1 } };
  s.apply({ author: "m", update: { messages: [reply] } });
  // Issue 15: the Messages API answers unknown keys with "Extra inputs are not permitted".
  assert.deepEqual(s.messages("anthropic")[0], { role: "assistant", content: [{ type: "text", text: "hi" }] });
  const stored = s.get("messages")[0];
  assert.deepEqual([stored.id, stored.origin, stored.extra.model, stored.extra.stop_reason], ["msg_1", "anthropic", "claude", "end_turn"]);
  assert.equal(s.messages("openai")[0].model, undefined);
  s.apply({ author: "m", update: { messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] }] } });
  assert.equal(s.messages("openai")[1].content, null);
  assert.equal(s.get("budget").used.tokens, 4);
});

// ---- found by the second review (event log and persistence) ----
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { verifyLog, projectMessages } from "../../pkg/index.js";
import { FileLog } from "../../pkg/file-log.js";

const tmpdir = () => fs.mkdtempSync(path.join(os.tmpdir(), "stategate-reg-"));

test("undefined, functions and symbols as arguments are coded errors and never brick the store", () => {
  const s = new StateStore();
  s.apply({ author: "u", update: { facts: { a: 1 } } });
  for (const bad of [undefined, () => 1, Symbol("x")]) {
    refused(s, () => s.apply(bad), "INVALID_UPDATE");
    refused(s, () => s.applyBatch(bad), "INVALID_UPDATE");
    refused(s, () => s.registerChannel(bad), "INVALID_OPTION");
  }
  assert.throws(() => StateStore.replay(() => 1), (e) => e.code === "INVALID_OPTION");
  assert.throws(() => StateStore.replay(undefined), (e) => e.code === "INVALID_OPTION");
});

test("a batch reaches onEvents as one call: a failing sink leaves no half-written batch", () => {
  const dir = tmpdir();
  const log = FileLog.open(dir);
  let fail = false;
  const s = new StateStore({ onEvents: (events) => { if (fail) throw new Error("disk full"); log.append(events); } });
  s.apply({ author: "u", update: { facts: { a: 1 } } });
  fail = true;
  assert.throws(() => s.applyBatch([{ author: "x", update: { facts: { b: 2 } } }, { author: "y", update: { files: { "/f": "1" } } }]), (e) => e.code === "STORAGE_ERROR");
  fail = false;
  s.apply({ author: "u", update: { facts: { c: 3 } } });
  const r = StateStore.replay(log.load().events);
  assert.equal(JSON.stringify(r.systemView()), JSON.stringify(s.systemView()));
});

test("values nested too deep to be read back are refused at intake", () => {
  const s = new StateStore();
  const nest = (d) => JSON.parse("[".repeat(d) + "]".repeat(d));
  refused(s, () => s.apply({ author: "u", update: { facts: { x: nest(100) } } }), "INVALID_UPDATE");
  s.apply({ author: "u", update: { facts: { x: nest(40) } } });
  assert.equal(StateStore.replay(s.eventsJsonl()).lastHash, s.lastHash);
});

test("restore takes channels registered after the checkpoint; replay names a missing channel", () => {
  const s = new StateStore();
  s.apply({ author: "u", update: { facts: { a: 1 } } });
  const cp = s.checkpoint();
  const notes = { name: "notes", reducer: "append" };
  s.registerChannel(notes);
  s.apply({ author: "u", update: { notes: ["n"] } });
  const r = StateStore.restore(cp, s.eventsJsonl(), { channels: [notes] });
  assert.deepEqual(r.get("notes"), ["n"]);
  assert.throws(() => StateStore.replay(s.eventsJsonl()), (e) => e.code === "UNKNOWN_CHANNEL" && e.details.index === 1);
});

test("FileLog never deletes what is not a torn write, and refuses to append after one", () => {
  const dir = tmpdir();
  const log = FileLog.open(dir);
  const s = new StateStore({ onEvents: (events) => log.append(events) });
  for (let i = 0; i < 3; i++) s.apply({ author: "u", update: { facts: { [`k${i}`]: i } } });
  const file = path.join(dir, "events.jsonl");
  const good = fs.readFileSync(file, "utf8");
  fs.writeFileSync(file, good.replace('"k2":2', '"k2":9')); // a complete line, corrupted
  assert.equal(log.load().torn, false);
  assert.equal(fs.readFileSync(file, "utf8"), good.replace('"k2":2', '"k2":9'));
  assert.throws(() => StateStore.replay(log.load().events), (e) => e.code === "TAMPERED_LOG" && e.details.index === 2);
  fs.writeFileSync(file, good.slice(0, -20)); // torn
  assert.throws(() => log.append(s.events({ since: 2 })), (e) => e.code === "STORAGE_ERROR" && /load\(\)/.test(e.message));
  assert.equal(log.load().torn, true);
  log.append(s.events({ since: 2 }));
  assert.equal(StateStore.replay(log.load().events).lastHash, s.lastHash);
  const other = path.join(tmpdir(), "x");
  const junk = FileLog.open(other);
  fs.writeFileSync(path.join(other, "events.jsonl"), '[{"a": 1},\n {"b": 2}\n]');
  assert.equal(junk.load().torn, false);
  assert.equal(fs.readFileSync(path.join(other, "events.jsonl"), "utf8"), '[{"a": 1},\n {"b": 2}\n]');
  assert.throws(() => junk.saveCheckpoint(new Uint8Array([1, 2, 3])), (e) => e.code === "STORAGE_ERROR");
  assert.throws(() => junk.append({ not: "an array" }), (e) => e.code === "STORAGE_ERROR");
  junk.close();
  junk.close();
});

test("verifyLog checks from the genesis, names unreadable entries, and takes an anchor", () => {
  const s = new StateStore();
  for (let i = 0; i < 5; i++) s.apply({ author: "u", update: { facts: { [`k${i}`]: i } } });
  const events = s.events();
  assert.deepEqual(verifyLog(events.slice(2)), { ok: false, index: 0, sequence: 3, reason: "sequence" });
  assert.deepEqual(verifyLog(events.slice(2), { after: { sequence: 2, hash: events[1].hash } }), { ok: true });
  const extra = structuredClone(events);
  extra[3].extra_field = 1;
  assert.deepEqual(verifyLog(extra), { ok: false, index: 3, sequence: null, reason: "unreadable" });
  const forged = structuredClone(events);
  forged[4].event_id = "other:5";
  assert.equal(verifyLog(forged).reason, "event_id");
  forged[4].run_id = "other";
  assert.equal(verifyLog(forged).reason, "run_id");
});

test("a leading system message in LangChain serialized form survives projectMessages' slicing; audit details carry only what is set", () => {
  const system = { lc: 1, type: "constructor", id: ["langchain_core", "messages", "SystemMessage"], kwargs: { content: "be brief" } };
  const history = [system, ...Array.from({ length: 2_000 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` }))];
  const { messages, report } = projectMessages(history, { budget: 300 });
  assert.equal(messages[0].role, "system");
  assert.equal(messages[0].content, "be brief");
  assert.equal(report.dropped.reduce((a, d) => a + d.count, 0) + report.messages.length, 2_000);
  const seen = [];
  const s = new StateStore({ audit: (r) => seen.push(r) });
  assert.throws(() => s.apply({ author: "u", update: { nope: 1 } }), (e) => e.code === "UNKNOWN_CHANNEL");
  assert.deepEqual(seen[0].details, { channel: "nope" });
});

// Fresh-eyes pass of the README (stop 11): misspellings must not pass silently.
test("misspelt options, channel fields and command fields are refused, naming what is known", () => {
  assert.throws(() => new StateStore({ onEvent: () => {} }), (e) => e.code === "INVALID_OPTION" && /unknown option 'onEvent'.*onEvents/.test(e.message));
  assert.throws(() => new StateStore({ runID: "r" }), (e) => e.code === "INVALID_OPTION" && /runID.*runId/.test(e.message), "data options are checked by the Rust options type");
  assert.throws(() => StateStore.replay([], { channel: [] }), (e) => e.code === "INVALID_OPTION" && /channel/.test(e.message));
  const s = new StateStore();
  assert.throws(() => s.registerChannel({ name: "vault", reducer: "merge", visiblity: "private", owner: "m" }), (e) => e.code === "INVALID_OPTION" && /visiblity/.test(e.message));
  assert.equal(s.channels().some((c) => c.name === "vault"), false, "no public channel was made by the typo");
  assert.throws(() => s.apply({ author: "a", expected_version: 9, update: { todos: [] } }), (e) => e.code === "INVALID_UPDATE" && /expected_version/.test(e.message));
  assert.equal(s.version, 0);
  // A LangChain-style call inside a role-keyed message is read as LangChain reads it (issue 14:
  // one input, one answer), never emptied; without its args it is still refused.
  s.apply({ author: "m", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c1", name: "search", args: { q: "x" } }] }] } });
  assert.deepEqual(s.get("messages")[0].tool_calls.map((c) => [c.id, c.name, c.args]), [["c1", "search", { q: "x" }]]);
  assert.throws(
    () => s.apply({ author: "m", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c2", name: "search" }] }] } }),
    (e) => e.code === "INVALID_TOOL_CALL" && /LangChain message/.test(e.message),
  );
  assert.throws(() => StateStore.restore(null, []), (e) => e.code === "INVALID_OPTION" && /StateStore\.replay/.test(e.message));
});

// Issue 16's adapter and type authors found these in the core (stop 21).
import { convertMessages } from "../../pkg/index.js";
test("what the adapter and type authors found: names, data URLs, output message items, usage", () => {
  // A result of a call whose arguments did not parse is named after that call (AI SDK requires it).
  const invalid = [{ type: "ai", content: "", invalid_tool_calls: [{ id: "c", name: "f", args: "{bad" }] }, { type: "tool", tool_call_id: "c", content: "err", status: "error" }];
  assert.equal(convertMessages(invalid, { to: "ai-sdk" })[1].content[0].toolName, "f");
  // Inline base64 goes to the Agents SDK as a data URL (its `image` becomes the request's image_url).
  const image = convertMessages([{ type: "human", content: [{ type: "image", base64: "AAA", mime_type: "image/jpeg" }] }], { to: "openai-agents" });
  assert.equal(image[0].content[0].image, "data:image/jpeg;base64,AAA");
  // An Agents assistant item in the Responses API: the ResponseOutputMessage it is.
  const items = convertMessages([{ role: "user", content: "hi" }, { type: "message", role: "assistant", status: "completed", id: "msg_1", content: [{ type: "output_text", text: "Hello." }] }], { to: "responses", from: "openai-agents" });
  assert.deepEqual(items[1], { type: "message", role: "assistant", id: "msg_1", status: "completed", content: [{ type: "output_text", text: "Hello.", annotations: [] }] });
  // An app's usage on a ModelMessage is kept in the store but never written into a request.
  const store = new StateStore({});
  store.apply({ author: "m", update: { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "text", text: "yo" }, { type: "reasoning", text: "r" }], usage: { inputTokens: 3, outputTokens: 2 } }] } });
  assert.ok(!("usage" in store.messages("ai-sdk")[1]), JSON.stringify(store.messages("ai-sdk")[1]));
  assert.ok(!("usage" in store.modelView({ format: "ai-sdk", budget: 1000 }).messages[1]));
  store.free();
});

// Fresh-eyes pass of issue 16: a trajectory's own fields (SWE-agent `thought`, `action`, `agent`,
// `message_type`; a recorded call's `index`) went into the OpenAI model view, uncounted.
import { readTranscript } from "../../pkg/index.js";
test("an OpenAI model view carries only the request's fields; a conversion keeps the source's", () => {
  const text = fs.readFileSync(new URL("../fixtures/transcripts/sweagent-marshmallow-1867-fc.traj", import.meta.url), "utf8");
  const run = readTranscript(text).runs[0];
  assert.ok(run.some((m) => "thought" in m), "the trajectory has its own fields");
  const allowed = new Set(["role", "content", "name", "tool_calls", "tool_call_id", "refusal", "audio", "function_call"]);
  const view = projectMessages(run, { budget: 1_000_000, format: "openai" }).messages;
  const extra = view.flatMap((m) => Object.keys(m).filter((k) => !allowed.has(k)));
  assert.deepEqual(extra, []);
  for (const m of view) for (const c of m.tool_calls ?? []) assert.deepEqual(Object.keys(c).sort(), ["function", "id", "type"]);
  const store = new StateStore({});
  store.apply({ author: "import", update: { messages: run } });
  assert.deepEqual(store.modelView({ budget: 1_000_000, format: "openai" }).messages.flatMap((m) => Object.keys(m).filter((k) => !allowed.has(k))), []);
  store.free();
});

// Fresh-eyes pass of issue 16: errors name what was seen.
import { ChatMessage } from "@langchain/core/messages";
test("a LangChain ChatMessage is refused naming its type and role; an AI SDK json output is a UIMessage value", () => {
  assert.throws(() => projectMessages([new ChatMessage({ id: "x", content: "hi", role: "user" })], { budget: 1000 }), (e) => e.code === "UNKNOWN_ROLE" && /ChatMessage \(type "generic"\) with role "user"/.test(e.message));
  const model = [
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "w", input: {} }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "w", output: { type: "json", value: { a: 1 } } }] },
  ];
  assert.deepEqual(convertMessages(model, { to: "ui" })[0].parts[0].output, { a: 1 });
});

// Fresh-eyes pass of issue 16: the README's path (repair in OpenAI shape, then another format)
// sent the "interrupted" placeholder as a successful result.
import { repairMessages } from "../../pkg/index.js";
test("a repair placeholder in OpenAI shape stays an error result in every other format", () => {
  const history = [{ role: "user", content: "go" }, { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }];
  const { messages } = repairMessages(history, { provider: "openai", reasons: { c1: "interrupted" } });
  assert.equal(convertMessages(messages, { to: "anthropic" }).at(-1).content[0].is_error, true);
  assert.equal(convertMessages(messages, { to: "ai-sdk" }).at(-1).content[0].output.type, "error-text");
  assert.equal(convertMessages(messages, { to: "langchain" }).at(-1).status, "error");
  assert.deepEqual(convertMessages(messages, { to: "openai" }), messages, "OpenAI itself: as it was");
});

// Fresh-eyes round 4 (issue 17's stop): text crossing into the module.

test("a lone surrogate in a key reads as U+FFFD in object form as in text form", () => {
  const m = [{ role: "user", content: "x", meta: { "k\ud800": 1 } }];
  const asText = convertMessages(JSON.stringify(m), { to: "openai" });
  assert.deepEqual(convertMessages(m, { to: "openai" }), asText);
  assert.deepEqual(Object.keys(asText[0].meta), ["k\ufffd"]);
  const s = new StateStore();
  s.apply({ author: "u", update: { facts: { "a\ud800": 1 } } });
  assert.deepEqual(s.get("facts"), { "a\ufffd": 1 });
  const calls = [{ role: "user", content: "x" }, { role: "assistant", content: null, tool_calls: [{ id: "c\ud800", type: "function", function: { name: "n", arguments: "{}" } }] }];
  const r = repairMessages(calls, { reasons: { "c\ud800": "interrupted" } });
  assert.match(r.messages.at(-1).content, /interrupted/);
});

test("tool arguments whose JSON text escapes a lone surrogate are a valid call, as JSON.parse reads them", () => {
  const args = JSON.stringify({ city: "Par\ud800is" });
  const m = [{ role: "user", content: "x" }, { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "w", arguments: args } }] }];
  const [, call] = decodeMessages(m);
  assert.deepEqual(call.invalid_tool_calls ?? [], []);
  assert.deepEqual(call.tool_calls[0].args, { city: "Par\ufffdis" });
  const anthropic = convertMessages(m, { to: "anthropic" })[1];
  assert.deepEqual(anthropic.content.find((b) => b.type === "tool_use").input, { city: "Par\ufffdis" });
  assert.equal(repairMessages(m).report[0].kind, "missing_result"); // not invalid_args
});

test("errors name what was seen by its shape, never by its values", () => {
  const s = new StateStore();
  const secret = "TOPSECRET-VALUE-123";
  const check = (fn) =>
    assert.throws(fn, (e) => {
      assert.ok(!e.message.includes(secret), e.message);
      assert.ok(e.message.length < 1000, `${e.message.length} characters`);
      return true;
    });
  check(() => s.apply(JSON.stringify({ author: "mem", update: { secret } })));
  check(() => s.apply("x".repeat(100_000) + secret));
  check(() => s.apply({ author: "u", update: { messages: [{ role: "user", content: { secretish: secret } }] } }));
  assert.throws(() => s.apply({ author: "u", update: { messages: [{ role: "user", content: { secretish: secret } }] } }), /keys \{secretish\}/);
  assert.equal(s.version, 0);
});

test("a salt beside no write breaks the log, and a changed event_id is named as such", () => {
  const s = new StateStore({ runId: "p", clock: () => 1000 });
  s.apply({ author: "user", update: { messages: [{ role: "user", content: "hi" }] } });
  s.apply({ author: "user", update: { messages: [{ role: "user", content: "again" }] } });
  const salted = JSON.parse(JSON.stringify(s.events()));
  salted[0].salted = { zzz: "anything at all" };
  assert.deepEqual(verifyLog(salted), { ok: false, index: 0, sequence: 1, reason: "salted" });
  assert.throws(() => StateStore.replay(salted), (e) => e.code === "TAMPERED_LOG" && e.details.field === "salted");
  const renamed = JSON.parse(JSON.stringify(s.events()));
  renamed[1].event_id = "p:33";
  assert.deepEqual(verifyLog(renamed), { ok: false, index: 1, sequence: 2, reason: "event_id" });
});

// A fresh-eyes tester found messages read as one of two formats, silently losing the other's
// content (docs/formats.md, "Detection"): each is refused naming what was seen, at its index.
test("a message that looks like two formats at once is refused, and what real frameworks write is not", () => {
  const MARKER = "MARKER-5c1a";
  const call = (id, name) => ({ id, type: "function", function: { name, arguments: "{}" } });
  const refusedAt1 = (bad, field, words) => {
    assert.throws(() => decodeMessages([{ role: "user", content: "hi" }, bad]), (e) => {
      assert.equal(e.code, "INVALID_MESSAGE", e.message);
      assert.deepEqual([e.details.index, e.details.field], [1, field], e.message);
      for (const w of words) assert.ok(e.message.includes(w), `${e.message} lacks ${w}`);
      assert.ok(!e.message.includes(MARKER), e.message);
      return true;
    });
    // Through the store too: nothing changes.
    const s = new StateStore();
    refused(s, () => s.apply({ author: "m", update: { messages: [bad] } }), "INVALID_MESSAGE");
  };
  refusedAt1({ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "a", input: { q: MARKER } }], tool_calls: [call("c1", "b")] }, "content", ["`tool_use`", "`tool_calls`"]);
  refusedAt1({ id: "m1", role: "user", content: MARKER, parts: [{ type: "text", text: "hello" }] }, "content", ["UIMessage", "`content`", "`parts`"]);
  refusedAt1({ role: "user", content: MARKER, parts: [{ text: "hello" }] }, "content", ["Gemini"]);
  refusedAt1({ type: "human", role: "assistant", content: MARKER }, "role", ['`type: "human"`', '`role: "assistant"`']);
  refusedAt1({ role: "tool", tool_call_id: "c1", content: [{ type: "tool_result", tool_use_id: "c1", content: MARKER }] }, "content", ["`tool_result`", "`tool_call_id`"]);
  refusedAt1({ id: "m1", role: "assistant", parts: [{ type: "text", text: MARKER }], tool_calls: [call("c1", "b")] }, "tool_calls", ["`tool_calls`"]);
  refusedAt1({ type: "ai", content: [{ type: "tool_use", id: "t9", name: "a", input: {} }], tool_calls: [{ id: "t1", name: "a", args: {} }] }, "content", ["`tool_use`"]);

  // A Claude-backed LangChain AIMessage: its tool_use blocks repeat its tool_calls.
  const claude = new AIMessage({
    content: [{ type: "text", text: "Let me look." }, { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } }],
    tool_calls: [{ id: "toolu_1", name: "weather", args: { city: "Paris" }, type: "tool_call" }],
  });
  // Streamed, as ChatAnthropic's chunks concatenate: a tool_use block and its input deltas.
  const streamed = new AIMessageChunk({ content: [{ index: 0, type: "tool_use", id: "toolu_1", name: "weather", input: "" }], tool_call_chunks: [{ index: 0, id: "toolu_1", name: "weather", args: "" }] })
    .concat(new AIMessageChunk({ content: [{ index: 0, type: "input_json_delta", input: '{"city":"Paris"}' }], tool_call_chunks: [{ index: 0, args: '{"city":"Paris"}' }] }));
  for (const m of [claude, claude.toDict(), { type: "ai", ...claude.toDict().data }, streamed.toDict()]) {
    const [d] = decodeMessages([m]);
    assert.deepEqual(d.tool_calls.map((c) => [c.id, c.name, c.args]), [["toolu_1", "weather", { city: "Paris" }]]);
  }
  // An AI SDK 4 UIMessage whose content repeats its text parts, and a role agreeing with its type.
  assert.equal(decodeMessages([{ id: "m1", role: "user", content: "hello", parts: [{ type: "text", text: "hello" }] }])[0].content[0].text, "hello");
  assert.equal(decodeMessages([{ type: "ai", role: "assistant", content: "x" }])[0].role, "assistant");
});

test("errors say what was seen: an OpenAI-shaped call, a long tool name, the event ingest refuses, a log as a JSON array", () => {
  // A LangChain "ai" dict with OpenAI-shaped calls reads as LangChain itself coerces it.
  const openaiShaped = { type: "ai", content: "", tool_calls: [{ id: "b", type: "function", function: { name: "f", arguments: '{"x":1}' } }] };
  const theirs = coerceMessageLikeToMessage(structuredClone(openaiShaped)).tool_calls;
  const [ours] = convertMessages([openaiShaped], { to: "langchain" });
  assert.deepEqual(ours.tool_calls.map(({ id, name, args }) => ({ id, name, args })), theirs.map(({ id, name, args }) => ({ id, name, args })));
  assert.throws(() => decodeMessages([{ type: "ai", content: "", tool_calls: [{ id: "b", type: "function", function: { arguments: "{}" } }] }]), (e) => e.code === "INVALID_TOOL_CALL" && /function: \{name, arguments\}/.test(e.message));
  // A tool name too long is named as the name, not an id.
  const long = "n".repeat(1025);
  assert.throws(() => decodeMessages([{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: long, arguments: "{}" } }] }]), (e) => e.code === "INVALID_MESSAGE" && e.details.field === "name" && !e.message.includes(long));
  // ingest of a whole log with a bad third event: "event 2" and details.index 2.
  const w = new StateStore({ runId: "r" });
  for (const t of ["a", "b", "c"]) w.apply({ author: "u", update: { messages: [{ role: "user", content: t }] } });
  const log = w.events();
  const r = StateStore.replay(log.slice(0, 1));
  const bad = structuredClone(log);
  bad[2].payload.facts = { forged: true };
  assert.throws(() => r.ingest(bad), (e) => e.code === "TAMPERED_LOG" && e.details.index === 2 && e.message.includes("event 2 (sequence 3)"));
  assert.equal(r.version, 1);
  // A JSON array given as text is a format mistake, not tampering: the log's text is JSON Lines.
  const array = JSON.stringify(log);
  for (const f of [() => StateStore.replay(array), () => r.ingest(array), () => verifyLog(array)]) {
    assert.throws(f, (e) => e.code === "INVALID_JSON" && e.message.includes("JSON Lines"));
  }
  assert.equal(StateStore.replay(w.eventsJsonl()).version, 3);
});

// Fresh-eyes round 4 (stop 26): binary data crossing into the module.

test("binary data (ArrayBuffer, typed arrays, DataView) is refused, not stored as {} or numbered keys", () => {
  const s = new StateStore();
  s.apply({ author: "u", update: { facts: { "0": "a key named 0 is plain JSON", n: { "0": 1 } } } });
  const png = Uint8Array.from([137, 80, 78, 71]);
  // A Node Buffer too (what fs.readFileSync gives, which the AI SDK's `image` takes): JSON writes
  // its toJSON, {type: "Buffer", data: [...]}, which had been kept as an unknown part.
  for (const image of [png, png.buffer, new DataView(png.buffer), new Float32Array([1.5]), Buffer.from(png)]) {
    const msg = { role: "user", content: [{ type: "image", image }] };
    refused(s, () => s.apply({ author: "u", update: { messages: [msg] } }), "INVALID_UPDATE");
    assert.throws(() => convertMessages([msg], { to: "anthropic" }), (e) => e.code === "INVALID_MESSAGE" && /binary data/.test(e.message));
  }
  // (`refused` checked the store was left as it was, then wrote a probe.)
  const { probe: _, ...facts } = s.get("facts");
  assert.deepEqual(facts, { "0": "a key named 0 is plain JSON", n: { "0": 1 } });
});

test("images and files converted to langchain are blocks @langchain/core reads (v0 data blocks), and each LangChain dialect goes back as it came", async () => {
  const { isBase64ContentBlock, isURLContentBlock, isIDContentBlock } = await import("@langchain/core/messages");
  const png = "iVBORw0KGgo=";
  const [base64, url] = convertMessages(
    [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: png } }, { type: "image", source: { type: "url", url: "https://x/a.png" } }] }],
    { to: "langchain" },
  )[0].content;
  assert.ok(isBase64ContentBlock(base64), JSON.stringify(base64));
  assert.equal(base64.data, png);
  assert.equal(base64.mime_type, "image/png");
  assert.ok(isURLContentBlock(url), JSON.stringify(url));
  const [file] = convertMessages([{ role: "user", content: [{ type: "file", file: { file_id: "file-1" } }] }], { to: "langchain" })[0].content;
  assert.ok(isIDContentBlock(file), JSON.stringify(file));
  for (const block of [
    { type: "image", source_type: "base64", data: png, mime_type: "image/png" },
    { type: "image", data: png, mimeType: "image/png" },
    { type: "image", base64: png, mime_type: "image/png" },
    { type: "image", source: { type: "url", url: "https://x/b.png" } },
  ]) {
    const m = { type: "human", content: [block] };
    assert.deepEqual(convertMessages([m], { to: "langchain" })[0].content[0], block);
  }
});
