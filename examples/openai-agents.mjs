// An OpenAI Agents SDK agent whose conversation lives in a stategate StateStore, written as a
// user of the package would write it (`npm i stategate @openai/agents zod`).
//
// The model is scripted (the SDK's `Model` interface: each call returns the next scripted
// response), so this runs offline: `node examples/openai-agents.mjs`. It shows, in order:
//   1. a StateStoreSession as the run's `session`: every item the SDK adds is a command in the
//      store's hash-chained log, and a second run sees the first's history;
//   2. the store rebuilt from its log after a restart, and the conversation continued;
//   3. history from elsewhere with a function_call never answered: createCallModelInputFilter
//      answers it before the model sees it (the Responses API refuses a dangling call), and the
//      filter projects the input under a token budget;
//   4. the log checked end to end.
// Each claim is asserted, so the program exits non-zero if the package stops doing what it says.

import assert from "node:assert/strict";
import { Agent, Usage, run, setTracingDisabled, tool } from "@openai/agents";
import { z } from "zod";
import { StateStore, validateMessages, verifyLog } from "stategate";
import { StateStoreSession, createCallModelInputFilter } from "stategate/openai-agents";

setTracingDisabled(true); // offline: no trace export

// --- the tool and the scripted model ---------------------------------------------------------
const weather = tool({
  name: "weather",
  description: "The weather in a city.",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ Paris: "18°C, cloudy", Rome: "24°C, sunny", Oslo: "9°C, rain" })[city] ?? "unknown city",
});
const say = (text) => ({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
const callWeather = (callId, city) => ({ type: "function_call", callId, name: "weather", arguments: JSON.stringify({ city }), status: "completed" });
class ScriptedModel {
  constructor(outputs) { this.outputs = outputs; this.inputs = []; }
  async getResponse(request) {
    this.inputs.push(structuredClone(request.input));
    return { usage: new Usage({ requests: 1, inputTokens: 100, outputTokens: 20, totalTokens: 120 }), output: this.outputs.shift() };
  }
  async *getStreamedResponse() { throw new Error("not streamed in this example"); }
}
const model = new ScriptedModel([
  [callWeather("call_1", "Paris")],
  [say("Paris: 18°C, cloudy.")],
  [say("You asked about Paris; it is 18°C there.")],
  [callWeather("call_2", "Rome")],
  [say("Rome is warmer: 24°C, sunny.")],
  [say("Oslo's check was interrupted; Paris is 18°C.")],
]);
const agent = new Agent({ name: "weather-agent", instructions: "Answer in one sentence.", model, tools: [weather] });

// --- 1. two runs on one store-backed session ------------------------------------------------
const log = []; // stands for a FileLog / IndexedDbLog: every event, as it is written
const store = new StateStore({ runId: "weather-chat", onEvents: (events) => log.push(...events) });
const session = new StateStoreSession({ store });
const first = await run(agent, "Weather in Paris?", { session });
const second = await run(agent, "What did I ask?", { session });
assert.equal(second.finalOutput, "You asked about Paris; it is 18°C there.");
assert.equal(model.inputs[2].length, 5, "the second run's model call sees the first run's 4 items + the question");
console.log(`run 1: ${first.finalOutput}`);
console.log(`run 2 saw ${model.inputs[2].length} items: ${model.inputs[2].map((i) => i.type).join(", ")}`);
console.log(`store: ${store.get("messages").length} items, ${log.length} events by ${[...new Set(log.map((e) => e.author))].join(", ")}`);

// --- 2. a restart: the store rebuilt from its log, the conversation continued -----------------
const restored = StateStore.replay(log, { onEvents: (events) => log.push(...events) });
const third = await run(agent, "And Rome?", { session: new StateStoreSession({ store: restored }) });
assert.equal(third.finalOutput, "Rome is warmer: 24°C, sunny.");
console.log(`after the restart: ${(await new StateStoreSession({ store: restored }).getItems()).length} items; ${third.finalOutput}`);

// --- 3. a history with a call never answered, projected under a budget -----------------------
const imported = [
  ...(await new StateStoreSession({ store: restored }).getItems()),
  { type: "message", role: "user", content: "And Oslo?" },
  callWeather("call_3", "Oslo"), // the process that ran this call died before its result
  { type: "message", role: "user", content: "Never mind, just Paris again." },
];
assert.equal(validateMessages(imported, { provider: "openai" })[0].rule, "MISSING_TOOL_RESULT");
const reports = [];
await run(agent, imported, { callModelInputFilter: createCallModelInputFilter({ budget: 120, onReport: (r) => reports.push(r) }) });
const sent = model.inputs.at(-1);
assert.deepEqual(validateMessages(sent, { provider: "openai" }), []);
const answer = sent.find((i) => i.type === "function_call_result" && i.callId === "call_3");
assert.ok(answer, "the dangling call is answered before the model sees it");
const [{ view }] = reports;
console.log(`filter: answered call_3 (${reports[0].repairs.map((f) => f.kind).join(", ")}); sent ${sent.length} of ${imported.length} items, ${view.used} of ${view.budget} tokens`);

// --- 4. the log ------------------------------------------------------------------------------
assert.deepEqual(verifyLog(log), { ok: true });
console.log(`log: ${log.length} events, hash chain ok`);
