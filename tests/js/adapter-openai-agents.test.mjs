// stategate/openai-agents against the real @openai/agents 0.20 (offline): a scripted Model (the
// SDK's `Model` interface, recording every request's input), a real `tool(...)`, real `run(...)`
// calls on a StateStoreSession, and the SDK's own MemorySession as the reference for what a
// Session must return. Runs on Node 20 (the SDK's engines field asks for Node ≥ 22; nothing this
// adapter uses needs it).
//
// Run: node --test tests/js/adapter-openai-agents.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { Agent, MemorySession, Usage, run, setTracingDisabled, tool } from "@openai/agents";
import { z } from "zod";
import { StateStore, StategateError, validateMessages, verifyLog } from "../../pkg/index.js";
import { StateStoreSession, createCallModelInputFilter, defaultAuthor } from "../../pkg/openai-agents.js";

setTracingDisabled(true);

/** The SDK's Model interface, scripted: each call returns the next response and records its input. */
class ScriptedModel {
  constructor(responses) {
    this.responses = responses;
    this.inputs = [];
    this.instructions = [];
  }
  async getResponse(request) {
    this.inputs.push(structuredClone(request.input));
    this.instructions.push(request.systemInstructions);
    const next = this.responses.shift();
    if (!next) throw new Error(`unexpected model call ${this.inputs.length}`);
    return { usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }), output: next };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse() {
    throw new Error("this test runs without streaming");
  }
}

const weather = tool({
  name: "weather",
  description: "The weather in a city.",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `18°C in ${city}`,
});
const user = (content) => ({ type: "message", role: "user", content });
const call = (callId, city, id) => ({ type: "function_call", ...(id ? { id } : {}), callId, name: "weather", arguments: JSON.stringify({ city }), status: "completed" });
const result = (callId, text) => ({ type: "function_call_result", name: "weather", callId, status: "completed", output: { type: "text", text } });
const say = (id, text) => ({ type: "message", id, role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
const agentWith = (model) => new Agent({ name: "weather-agent", instructions: "Be brief.", model, tools: [weather] });
/** Two runs' model outputs: a tool call then an answer, then an answer. */
const script = () => [[call("call_1", "Paris", "fc_1")], [say("msg_1", "18°C in Paris.")], [say("msg_2", "You asked about Paris.")]];
/** What a store's log must be: every event's hash chain intact. */
const assertLog = (store) => assert.deepEqual(verifyLog(store.events()), { ok: true });
/** What a call must leave when it fails: the store exactly as it was. */
const snapshot = (store) => ({ version: store.version, events: store.events().length, items: JSON.stringify(store.messages("openai-agents")) });

test("two runs on one StateStoreSession: the model sees the first run's history, exactly as with the SDK's MemorySession", async () => {
  const store = new StateStore({ runId: "weather" });
  const session = new StateStoreSession({ store });
  const model = new ScriptedModel(script());
  const agent = agentWith(model);
  const first = await run(agent, "Weather in Paris?", { session });
  assert.equal(first.finalOutput, "18°C in Paris.");
  const second = await run(agent, "What did I ask?", { session });
  assert.equal(second.finalOutput, "You asked about Paris.");

  // The exact input of each model call (the SDK strips the call's provider id `fc_1` from what it
  // persists, so the second run's history has the call without it).
  const turn1 = [user("Weather in Paris?")];
  const turn2 = [...turn1, call("call_1", "Paris", "fc_1"), result("call_1", "18°C in Paris")];
  const history = [user("Weather in Paris?"), call("call_1", "Paris"), result("call_1", "18°C in Paris"), say("msg_1", "18°C in Paris.")];
  const turn3 = [...history, user("What did I ask?")];
  assert.deepEqual(model.inputs, [turn1, turn2, turn3]);
  assert.deepEqual(model.instructions, ["Be brief.", "Be brief.", "Be brief."]);

  // The store holds every item once, as the SDK added it; getItems gives them back.
  const all = [...turn3, say("msg_2", "You asked about Paris.")];
  assert.deepEqual(store.messages("openai-agents"), all);
  assert.deepEqual(await session.getItems(), all);
  assert.equal(store.get("messages").length, all.length);
  assert.equal(await session.getSessionId(), "weather");
  // One command per author run, so the log tells who wrote what.
  assert.deepEqual(
    store.events().map((e) => `${e.author} ${e.type}`),
    ["user user_input", "model tool_call", "tool:call_1 tool_result", "model model_decision", "user user_input", "model model_decision"],
  );
  assertLog(store);
  // A restore from the log gives the same session.
  const again = new StateStoreSession({ store: StateStore.replay(store.events()) });
  assert.deepEqual(await again.getItems(), all);

  // The SDK's own MemorySession, same script: the same model inputs and the same items.
  const memoryModel = new ScriptedModel(script());
  const memory = new MemorySession();
  await run(agentWith(memoryModel), "Weather in Paris?", { session: memory });
  await run(agentWith(memoryModel), "What did I ask?", { session: memory });
  assert.deepEqual(model.inputs, memoryModel.inputs);
  assert.deepEqual(await session.getItems(), await memory.getItems());
});

test("getItems(limit), popItem and clearSession answer as MemorySession does, each a command in the log", async () => {
  const items = [user("Weather in Paris?"), call("call_1", "Paris", "fc_1"), result("call_1", "18°C"), say("msg_1", "18°C.")];
  const store = new StateStore({ runId: "ops" });
  const session = new StateStoreSession({ store });
  const memory = new MemorySession();
  await session.addItems(items);
  await memory.addItems(items);
  for (const limit of [undefined, -1, 0, 1, 3, 4, 100]) {
    assert.deepEqual(await session.getItems(limit), await memory.getItems(limit), `limit ${limit}`);
  }
  assert.deepEqual(await session.getItems(2), items.slice(2));
  const popped = await session.popItem();
  assert.deepEqual(popped, await memory.popItem());
  assert.deepEqual(popped, say("msg_1", "18°C."));
  assert.deepEqual(await session.getItems(), items.slice(0, 3));
  assert.deepEqual(store.events().at(-1).author, "session");
  await session.addItems([]); // nothing to write: no event
  const before = store.events().length;
  await session.clearSession();
  await memory.clearSession();
  assert.deepEqual(await session.getItems(), []);
  assert.equal(store.events().length, before + 1, "one removeAll command");
  assert.equal(await session.popItem(), await memory.popItem());
  assert.equal(await session.popItem(), undefined);
  await session.clearSession(); // empty: no event
  assert.equal(store.events().length, before + 1);
  assertLog(store);
  // The log keeps what was removed: the store right after the first addItems (4 commands) has every item.
  assert.deepEqual(store.at(4).messages("openai-agents"), items);
});

test("a run cut after a function_call: the SDK 0.20 drops the dangling call from session history; store.repair answers it instead", async () => {
  const cut = new StateStore({ runId: "cut" });
  await new StateStoreSession({ store: cut }).addItems([user("Weather in Oslo?"), call("call_0", "Oslo")]);
  const checkpoint = cut.checkpoint();

  // As restored, without a repair: the SDK itself removes the unanswered call (its
  // dropOrphanToolCalls over session history), so the model never learns the call was made.
  const restored = StateStore.restore(checkpoint, cut.events());
  assert.deepEqual(restored.danglingToolCalls().map((d) => d.toolCallId), ["call_0"]);
  const model = new ScriptedModel([[say("msg_1", "Which city?")]]);
  await run(agentWith(model), "And Paris?", { session: new StateStoreSession({ store: restored }), callModelInputFilter: createCallModelInputFilter() });
  assert.deepEqual(model.inputs, [[user("Weather in Oslo?"), user("And Paris?")]]);

  // With the store's repair first (one command in the log), the model sees the call and why it has no result.
  const repaired = StateStore.restore(checkpoint, cut.events());
  const { report } = repaired.repair({ reasons: { call_0: "interrupted" }, author: "recovery" });
  assert.deepEqual(report.map((f) => [f.kind, f.toolCallId]), [["interrupted", "call_0"]]);
  const model2 = new ScriptedModel([[say("msg_1", "18°C in Paris.")]]);
  await run(agentWith(model2), "And Paris?", { session: new StateStoreSession({ store: repaired }) });
  const [input] = model2.inputs;
  assert.deepEqual(input.map((i) => i.type), ["message", "function_call", "function_call_result", "message"]);
  assert.equal(input[2].callId, "call_0");
  assert.match(JSON.stringify(input[2].output), /interrupted/);
  assert.deepEqual(validateMessages(input, { provider: "openai" }), []);
  // A restored store's events() are those after its checkpoint: the whole log is both parts.
  assert.deepEqual(repaired.events()[0].sequence, cut.events().length + 1);
  assert.deepEqual(verifyLog([...cut.events(), ...repaired.events()]), { ok: true });
});

test("the filter answers a dangling function_call in the run's input before the model sees it, and the SDK persists the answer", async () => {
  const input = [user("Weather in Oslo?"), call("call_0", "Oslo"), user("And Paris?")];
  // Without the filter the model gets the dangling call (the Responses API refuses such a request).
  const bare = new ScriptedModel([[say("msg_1", "ok")]]);
  await run(agentWith(bare), input);
  assert.deepEqual(bare.inputs[0], input);
  assert.deepEqual(validateMessages(bare.inputs[0], { provider: "openai" }).map((v) => [v.rule, v.toolCallId]), [["MISSING_TOOL_RESULT", "call_0"]]);

  const store = new StateStore({ runId: "repair" });
  const reports = [];
  const model = new ScriptedModel([[call("call_1", "Paris", "fc_1")], [say("msg_1", "18°C in Paris.")]]);
  const out = await run(agentWith(model), input, {
    session: new StateStoreSession({ store }),
    callModelInputFilter: createCallModelInputFilter({ onReport: (r) => reports.push(r) }),
  });
  assert.equal(out.finalOutput, "18°C in Paris.");
  const placeholder = { type: "function_call_result", callId: "call_0", name: "weather", status: "completed", output: "Tool call weather with id call_0 did not complete - no result was recorded." };
  const repaired = [input[0], input[1], placeholder, input[2]];
  assert.deepEqual(model.inputs, [repaired, [...repaired, call("call_1", "Paris", "fc_1"), result("call_1", "18°C in Paris")]]);
  for (const i of model.inputs) assert.deepEqual(validateMessages(i, { provider: "openai" }), []);
  assert.deepEqual(reports.map((r) => r.repairs.map((f) => [f.kind, f.action, f.toolCallId])), [[["missing_result", "inserted", "call_0"]], [["missing_result", "inserted", "call_0"]]]);
  // The SDK persists the turn's input as the filter returned it: the store holds the repaired history once.
  assert.deepEqual(store.messages("openai-agents"), [...repaired, call("call_1", "Paris"), result("call_1", "18°C in Paris"), say("msg_1", "18°C in Paris.")]);
  assert.deepEqual(store.danglingToolCalls(), []);
  assert.equal(store.events().find((e) => e.author === "tool:call_0")?.type, "tool_result");
  assertLog(store);
});

test("the filter projects the input under a token budget: the newest whole turns, the instructions kept, the store untouched", async () => {
  const history = [];
  for (let i = 1; i <= 4; i++) {
    history.push(user(`Weather in city ${i}?`), call(`call_${i}`, `city ${i}`), result(`call_${i}`, `report ${i}: ${"sunny ".repeat(40)}`), say(`msg_${i}`, `City ${i} is sunny.`));
  }
  const store = new StateStore({ runId: "budget" });
  const session = new StateStoreSession({ store });
  await session.addItems(history);
  const reports = [];
  const model = new ScriptedModel([[say("msg_5", "Still sunny.")]]);
  await run(agentWith(model), "And now?", { session, callModelInputFilter: createCallModelInputFilter({ budget: 250, onReport: (r) => reports.push(r) }) });
  // Each turn is ~100 tokens (⌈characters / 4⌉): turns 3 and 4 and the new input fit in 250.
  assert.deepEqual(model.inputs, [[...history.slice(8), user("And now?")]]);
  assert.deepEqual(model.instructions, ["Be brief."]);
  const [{ view }] = reports;
  assert.equal(view.budget, 250);
  assert.ok(view.used <= 250 && view.used > 200, `used ${view.used}`);
  assert.deepEqual(view.dropped, [{ count: 7, reason: "budget" }, { count: 1, reason: "start_on_user" }]); // turn 2's answer fits, but not before its user message
  // The session still holds everything; the new turn is added once.
  assert.deepEqual(await session.getItems(), [...history, user("And now?"), say("msg_5", "Still sunny.")]);
  assertLog(store);

  // A budget that keeps no item is refused, not sent as an empty input.
  const tiny = new ScriptedModel([[say("x", "never")]]);
  await assert.rejects(run(agentWith(tiny), "And now?", { session, callModelInputFilter: createCallModelInputFilter({ budget: 10 }) }), (e) => e instanceof StategateError && e.code === "BUDGET_TOO_SMALL");
  assert.deepEqual(tiny.inputs, []);
});

test("bad input is refused with a StategateError and leaves the store as it was", async () => {
  const store = new StateStore({ runId: "bad" });
  const session = new StateStoreSession({ store });
  await session.addItems([user("Weather in Paris?"), call("call_1", "Paris")]);
  const before = snapshot(store);
  const refused = async (f, code, index) => {
    await assert.rejects(async () => f(), (e) => e instanceof StategateError && e.code === code && (index === undefined || e.details.index === index));
    assert.deepEqual(snapshot(store), before);
  };
  // An item of another format is never read as another one.
  await refused(() => session.addItems([result("call_1", "ok"), { type: "function_call_output", call_id: "call_1", output: "18°C" }]), "INVALID_MESSAGE", 1);
  await refused(() => session.addItems([{ role: "tool", tool_call_id: "call_1", content: "18°C" }]), "UNKNOWN_ROLE", 0);
  await refused(() => session.addItems([null]), "INVALID_MESSAGE", 0);
  await refused(() => session.addItems("hi"), "INVALID_MESSAGE");
  // The store's rules: a result for a call it never saw; the batch is all or nothing.
  await refused(() => session.addItems([result("call_1", "18°C"), result("call_9", "?")]), "UNKNOWN_TOOL_CALL");
  await refused(() => new StateStoreSession({ store, author: () => "" }).addItems([result("call_1", "18°C")]), "INVALID_OPTION", 0);
  await refused(() => session.getItems(1.5), "INVALID_OPTION");
  for (const opts of [undefined, {}, { store: {} }, { store, sessionId: 3 }, { store, author: 5 }, { store, controlAuthor: "" }]) {
    assert.throws(() => new StateStoreSession(opts), (e) => e instanceof StategateError && e.code === "INVALID_OPTION", JSON.stringify(opts));
  }
  for (const opts of [null, { budget: 0 }, { budget: 1.5 }, { budjet: 100 }, { tokenizer: (t) => t.length }, { budget: 100, tokenizer: 3 }, { onReport: "log" }]) {
    assert.throws(() => createCallModelInputFilter(opts), (e) => e instanceof StategateError && e.code === "INVALID_OPTION", JSON.stringify(opts));
  }
  const filter = createCallModelInputFilter();
  await assert.rejects(filter({ modelData: { input: "hi" } }), (e) => e instanceof StategateError && e.code === "INVALID_MESSAGE");
  assert.equal(filter.preserveInputIdentity, true);
  // Untouched items come back as the same objects.
  const items = [user("a"), call("c", "x"), result("c", "y")];
  const out = await filter({ modelData: { input: items, instructions: "i" } });
  assert.ok(out.input.every((item, i) => item === items[i]));
  assert.equal(out.instructions, "i");
  assert.equal(defaultAuthor(result("c", "y")), "tool:c");
  assert.equal(defaultAuthor({ role: "developer", content: "x" }), "system");
});

test("CommonJS: require('stategate/openai-agents') works and does the same", async () => {
  const require = createRequire(import.meta.url);
  const cjs = require("../../pkg/openai-agents.cjs");
  const core = require("../../pkg/index.cjs");
  const store = new core.StateStore({ runId: "cjs" });
  const session = new cjs.StateStoreSession({ store });
  const items = [user("Weather in Paris?"), call("call_1", "Paris", "fc_1"), result("call_1", "18°C")];
  await session.addItems(items);
  assert.deepEqual(await session.getItems(), items);
  const model = new ScriptedModel([[say("msg_1", "18°C.")]]);
  await run(agentWith(model), [user("Weather in Oslo?"), call("call_0", "Oslo")], { callModelInputFilter: cjs.createCallModelInputFilter() });
  assert.deepEqual(model.inputs[0].map((i) => i.type), ["message", "function_call", "function_call_result"]);
  assert.throws(() => new cjs.StateStoreSession({}), (e) => e instanceof StategateError && e.code === "INVALID_OPTION");
});
