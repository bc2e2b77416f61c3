// The AI SDK UIMessage format ("ui") against the real `ai` package (6.0.325): the fixture and
// every UIMessage stategate writes pass the package's own `validateUIMessages`; stategate's
// UIMessage → ModelMessage conversion equals the package's `convertToModelMessages` up to the
// decisions listed in docs/formats.md (UIMessages), on the fixture and on random histories; every
// ModelMessage it writes passes the package's `modelMessageSchema`; validation, repair, the store
// and the model view take UIMessages as they take the other formats.
//
// Run: node --test tests/js/ui.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { convertToModelMessages, modelMessageSchema, validateUIMessages } from "ai";
import { StateStore, convertMessages, decodeMessages, projectMessages, repairMessages, validateMessages } from "../../pkg/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const HISTORY = JSON.parse(fs.readFileSync(path.join(ROOT, "tests/fixtures/ui/usechat-history.json"), "utf8"));

/** Every ModelMessage passes the `ai` package's own schema. */
function assertModelMessages(messages, what) {
  for (const [i, m] of messages.entries()) {
    const r = modelMessageSchema.safeParse(m);
    assert.ok(r.success, `${what}: message ${i} is not a ModelMessage: ${JSON.stringify(m)}\n${r.error?.message}`);
  }
}

/**
 * A ModelMessage list with the differences stategate decides on taken out (docs/formats.md, UIMessages
 * decisions): an image file part is an image part; a tool result's own providerOptions are not
 * copied from the call; an assistant message with no parts is left out (where a data part stands
 * before a step's first part stategate writes one the AI SDK does not). Approval request and
 * response parts are compared as they are.
 */
function normalise(messages) {
  const part = (p) => {
    if (p.type === "file" && p.mediaType?.startsWith("image/")) return { type: "image", image: p.data, mediaType: p.mediaType };
    if (p.type === "tool-result") {
      const { providerOptions, ...rest } = p;
      return rest;
    }
    return p;
  };
  // As JSON (the AI SDK writes `providerExecuted: undefined`, which no JSON carries).
  return JSON.parse(JSON.stringify(messages))
    .map((m) => (typeof m.content === "string" ? m : { ...m, content: m.content.map(part) }))
    .filter((m) => typeof m.content === "string" || m.content.length > 0);
}

test("the fixture is what the ai package calls a UIMessage list, and reads back exactly", async () => {
  await validateUIMessages({ messages: HISTORY });
  const decoded = decodeMessages(HISTORY);
  assert.ok(decoded.every((m) => m.origin === "ui"), "detected as UIMessages, not Gemini");
  assert.deepEqual(convertMessages(HISTORY, { to: "ui" }), HISTORY);
  assert.deepEqual(convertMessages(JSON.stringify(HISTORY), { to: "ui" }), HISTORY, "JSON text reads the same");
  const { messages } = repairMessages(HISTORY.slice(0, 3), { provider: "openai" });
  assert.equal(messages[1], HISTORY[1], "an untouched UIMessage is the caller's own object");
});

test("UIMessage → ModelMessage equals convertToModelMessages up to the listed decisions", async () => {
  const theirs = await convertToModelMessages(HISTORY);
  const ours = convertMessages(HISTORY, { to: "ai-sdk" });
  assertModelMessages(ours, "fixture");
  assert.deepEqual(normalise(ours), normalise(theirs));
});

test("near misses are refused with what was seen, never read as another format", () => {
  assert.throws(() => decodeMessages([{ id: "x", role: "user", parts: [{ type: "txt", text: "a" }] }]), (e) => e.code === "INVALID_MESSAGE" && /"txt"/.test(e.message) && e.details.index === 0);
  assert.throws(() => decodeMessages([{ role: "user", parts: [{ type: "text", text: "a" }, { text: "b" }] }]), (e) => e.code === "INVALID_MESSAGE" && /UIMessage/.test(e.message) && /Gemini/.test(e.message));
  assert.throws(() => decodeMessages([{ id: "x", role: "assistant", parts: [{ type: "tool-a", toolCallId: "c", state: "finished", input: {} }] }]), (e) => e.code === "INVALID_MESSAGE" && /"finished"/.test(e.message));
  assert.throws(() => decodeMessages([{ id: "x", role: "user", parts: [{ type: "tool-a", toolCallId: "c", state: "input-available", input: {} }] }]), (e) => e.code === "INVALID_TOOL_CALL");
  // Gemini contents stay Gemini.
  assert.equal(decodeMessages([{ role: "user", parts: [{ text: "hi" }] }])[0].origin, "gemini");
});

test("a call waiting for approval is not dangling; once the conversation moves on, repair answers it inside its UIMessage", async () => {
  const violations = validateMessages(HISTORY, { provider: "openai" });
  assert.deepEqual(violations.map((v) => [v.rule, v.index, v.toolCallId]), [["APPROVAL_PENDING", 3, "call_3"]]);
  const left = repairMessages(HISTORY, { provider: "openai", reasons: { call_3: "rejected" } });
  assert.deepEqual(left.report, [], "the run is paused on the call, not broken");
  const moved = [...HISTORY, { id: "u9", role: "user", parts: [{ type: "text", text: "never mind" }] }];
  assert.deepEqual(validateMessages(moved, { provider: "openai" }).map((v) => [v.rule, v.toolCallId]), [["MISSING_TOOL_RESULT", "call_3"]]);
  const { messages, report } = repairMessages(moved, { provider: "openai" });
  assert.deepEqual(report.map((f) => [f.kind, f.action, f.toolCallId, f.approvalId]), [["interrupted", "inserted", "call_3", "ap_1"]]);
  assert.equal(messages.length, moved.length);
  const part = messages[3].parts.find((p) => p.toolCallId === "call_3");
  assert.equal(part.state, "output-denied", "a call whose approval was never granted did not run");
  assert.equal(part.approval.id, "ap_1");
  assert.equal(part.approval.approved, false);
  assert.match(part.approval.reason, /bookTable.*approval \(ap_1\) was not given/);
  await validateUIMessages({ messages });
  assert.deepEqual(validateMessages(messages, { provider: "openai" }), []);
});

test("the store keeps UIMessages and gives them back; its model view in ui passes validateUIMessages", async () => {
  const store = new StateStore({ runId: "chat" });
  for (const m of HISTORY.slice(0, 3)) store.apply({ author: m.role, update: { messages: [m] } });
  assert.deepEqual(store.messages("ui"), HISTORY.slice(0, 3));
  const view = store.modelView({ budget: 4_000, format: "ui" });
  await validateUIMessages({ messages: view.messages.filter((m) => m.role !== "system") });
  assert.equal(view.messages.at(-1).role, "user");
  assert.deepEqual(view.report.messages.map((m) => m.output).slice(-1), [view.messages.length - 1]);
  const sent = store.modelView({ budget: 4_000, format: "ai-sdk" }).messages;
  assertModelMessages(sent, "model view");
  // projectMessages over the whole fixture: the run is paused on an approval, and no model may
  // be called (the AI SDK throws MissingToolResultsError there); once the user moves on, the view
  // answers the call for the provider.
  assert.throws(() => projectMessages(HISTORY, { budget: 4_000, format: "ui" }), (e) => e.code === "APPROVAL_PENDING" && /ap_1/.test(e.message));
  const moved = [...HISTORY, { id: "u9", role: "user", parts: [{ type: "text", text: "never mind" }] }];
  const p = projectMessages(moved, { budget: 4_000, format: "ui" });
  assert.deepEqual(validateMessages(p.messages, { provider: "openai" }), []);
});

/** A small seeded RNG (mulberry32), so a failure names its case. */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n), pick: (xs) => xs[Math.floor(next() * xs.length)], chance: (p) => next() < p };
}

/** A random UIMessage history of the kinds `useChat` holds. */
function randomHistory(r, n) {
  const out = [];
  let call = 0;
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      const parts = [{ type: "text", text: `question ${i}` }];
      if (r.chance(0.2)) parts.push({ type: "file", mediaType: "image/jpeg", url: `https://example.com/${i}.jpg` });
      out.push({ id: `u${i}`, role: "user", parts });
      continue;
    }
    const parts = [];
    const steps = 1 + r.int(3);
    for (let s = 0; s < steps; s++) {
      parts.push({ type: "step-start" });
      if (r.chance(0.4)) parts.push({ type: "reasoning", text: `thinking ${i}.${s}`, state: "done" });
      if (r.chance(0.7)) parts.push({ type: "text", text: `answer ${i}.${s}`, state: "done" });
      for (let k = r.int(3); k > 0; k--) {
        const id = `call_${++call}`;
        const name = r.pick(["search", "weather", "book"]);
        const base = r.chance(0.2) ? { type: "dynamic-tool", toolName: name } : { type: `tool-${name}` };
        const input = { q: `${name} ${call}` };
        // Only the last step may hold calls without results (a turn moves on once they are answered).
        const open = s === steps - 1;
        const state = r.pick(open ? ["output-available", "output-error", "output-denied", "input-available", "approval-requested"] : ["output-available", "output-error"]);
        const p = { ...base, toolCallId: id, state, input };
        if (state === "output-available") p.output = r.chance(0.5) ? `result ${call}` : { n: call, ok: true };
        if (state === "output-error") p.errorText = `failed ${call}`;
        if (state === "approval-requested") p.approval = { id: `ap_${call}` };
        if (state === "output-denied") p.approval = { id: `ap_${call}`, approved: false, ...(r.chance(0.5) && { reason: "no" }) };
        parts.push(p);
      }
      if (r.chance(0.2)) parts.push({ type: "data-note", data: { step: s } });
    }
    out.push({ id: `a${i}`, role: "assistant", parts });
  }
  return out;
}

test("random UIMessage histories: exact round trip, convertToModelMessages' reading, valid ModelMessages", async () => {
  const cases = Number(process.env.UI_CASES ?? 150);
  for (let seed = 1; seed <= cases; seed++) {
    const r = rng(seed);
    const history = randomHistory(r, 2 + r.int(7));
    await validateUIMessages({ messages: history });
    assert.deepEqual(convertMessages(history, { to: "ui" }), history, `seed ${seed}: round trip`);
    const ours = convertMessages(history, { to: "ai-sdk" });
    assertModelMessages(ours, `seed ${seed}`);
    assert.deepEqual(normalise(ours), normalise(await convertToModelMessages(history)), `seed ${seed}: convertToModelMessages`);
    // Repaired for any provider, the history still is a UIMessage list and passes the validator,
    // but for calls of its last turn waiting for their approval (left alone: the run is paused).
    const { messages } = repairMessages(history, { provider: "openai" });
    await validateUIMessages({ messages });
    const left = validateMessages(messages, { provider: "openai" });
    const waiting = new Set(history.at(-1).role === "assistant" ? history.at(-1).parts.filter((p) => p.state === "approval-requested").map((p) => p.toolCallId) : []);
    assert.deepEqual(left.map((v) => [v.rule, v.toolCallId]), [...waiting].map((id) => ["APPROVAL_PENDING", id]), `seed ${seed}: repaired`);
  }
});

test("found by the fresh-eyes pass: steps from another format, system messages, signatures", async () => {
  // A LangChain two-step turn as a UIMessage: the second step starts after the tool result, for
  // stategate and for the ai package alike.
  const lc = [
    { type: "human", content: "q", id: "h" },
    { type: "ai", content: "checking", id: "a1", tool_calls: [{ id: "c1", name: "w", args: {} }] },
    { type: "tool", content: "18", tool_call_id: "c1" },
    { type: "ai", content: "It is 18", id: "a1#1" },
  ];
  const ui = convertMessages(lc, { to: "ui" });
  await validateUIMessages({ messages: ui });
  const model = await convertToModelMessages(ui);
  assert.deepEqual(model.map((m) => m.role), ["user", "assistant", "tool", "assistant"]);
  // A UI system message is a SystemModelMessage (string content).
  const sys = convertMessages([{ id: "s", role: "system", parts: [{ type: "text", text: "sys" }] }], { to: "ai-sdk" });
  assertModelMessages(sys, "system");
  // The AI SDK's Anthropic signature reaches Anthropic as a thinking block.
  const out = convertMessages([{ role: "assistant", content: [{ type: "reasoning", text: "hm", providerOptions: { anthropic: { signature: "sig" } } }, { type: "text", text: "ok" }] }], { to: "anthropic" });
  assert.deepEqual(out[0].content[0], { type: "thinking", thinking: "hm", signature: "sig" });
});

test("the AI SDK's own ModelMessages with approvals: no orphan, an exact round trip, nothing of them elsewhere", async () => {
  const theirs = JSON.parse(JSON.stringify(await convertToModelMessages(HISTORY)));
  const v = validateMessages(theirs, { provider: "openai" });
  assert.deepEqual(v.map((x) => [x.rule, x.toolCallId]), [["APPROVAL_PENDING", "call_3"]], "the call awaiting approval, and no orphan");
  assert.deepEqual(convertMessages(theirs, { to: "ai-sdk" }), theirs);
  const openai = convertMessages(theirs, { to: "openai" });
  assert.ok(!JSON.stringify(openai).includes("ap_2"), "approvals are not sent to OpenAI");
  const { messages, report } = repairMessages(theirs, { provider: "openai" });
  assert.deepEqual(report, [], "the call waiting for its approval is left alone");
  assertModelMessages(messages, "repaired");
  assert.deepEqual(validateMessages(messages, { provider: "openai" }).map((x) => x.rule), ["APPROVAL_PENDING"]);
});

test("a second result of one call is refused converting to ui (a tool part holds one output), and validates once repaired", async () => {
  const history = [
    { role: "user", content: "x" },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "c1", content: "one" },
    { role: "tool", tool_call_id: "c1", content: "two" },
  ];
  for (const input of [history, JSON.stringify(history)]) {
    assert.throws(() => convertMessages(input, { to: "ui" }), (e) => {
      assert.equal(e.code, "ALREADY_ANSWERED");
      assert.equal(e.details.index, 3);
      assert.match(e.message, /result for call "c1": a second result: a UIMessage tool part holds one output/);
      return true;
    });
  }
  // The AI SDK's own ModelMessages carry both results.
  const model = convertMessages(history, { to: "ai-sdk" });
  assert.deepEqual(model[2].content.map((r) => r.output.value), ["one", "two"]);
  const repaired = repairMessages(history, { provider: "openai" }).messages;
  const ui = convertMessages(repaired, { to: "ui" });
  await validateUIMessages({ messages: ui });
  assert.deepEqual(ui[1].parts.map((p) => p.output), ["one"]);
});

test("a result whose call is not in its UIMessage is refused converting to ui, not given a made-up tool part", () => {
  // It became a `dynamic-tool` part named "unknown" with input {} (in a user UIMessage), which
  // read back as a new call answering itself: an orphan turned valid (fresh-eyes round 2).
  const call = { id: "c1", type: "function", function: { name: "get", arguments: '{"a":1}' } };
  const misplaced = [{ role: "user", content: "q" }, { role: "assistant", content: null, tool_calls: [call] }, { role: "user", content: "wait" }, { role: "tool", tool_call_id: "c1", content: "r" }];
  const orphan = [{ role: "user", content: "q" }, { role: "assistant", content: "hi" }, { role: "tool", tool_call_id: "zz", content: "r" }];
  for (const [history, index] of [[misplaced, 3], [orphan, 2]]) {
    assert.throws(() => convertMessages(history, { to: "ui" }), (e) => e.code === "UNKNOWN_TOOL_CALL" && e.details.index === index && /its call is not in the UIMessage it would join/.test(e.message));
    const repaired = repairMessages(history, { provider: "openai" }).messages;
    const ui = convertMessages(repaired, { to: "ui" });
    assert.ok(!JSON.stringify(ui).includes('"unknown"'), JSON.stringify(ui));
    assert.deepEqual(validateMessages(convertMessages(ui, { to: "openai" }), { provider: "openai" }), []);
  }
  // The store's messages in ui: the same refusal; its model view is repaired and converts.
  const store = new StateStore();
  store.apply({ author: "app", update: { messages: misplaced } });
  assert.throws(() => store.messages("ui"), (e) => e.code === "UNKNOWN_TOOL_CALL" && e.details.index === 3);
  const view = store.modelView({ format: "ui" });
  assert.ok(view.messages.some((m) => m.parts.some((p) => p.toolCallId === "c1" && p.output === "r")), JSON.stringify(view.messages));
  store.free();
});
