// An AI SDK 6 agent loop on stategate, written as a user of the package would write it.
//
// The model is the AI SDK's own MockLanguageModelV3 with a script of responses, so this runs
// offline: `node examples/ai-sdk.mjs` (with `npm i stategate ai`). It shows, in order:
//   1. `generateText` with a tool, two steps (a tool call, its result, the answer): every step's
//      prompt is the store's model view, every step's messages and usage recorded in the store;
//   2. a second turn, after a crash left a tool call without its result: the call is answered
//      before the model sees the history;
//   3. the store as useChat state (UIMessages) and the client's state re-applied: nothing changes.
// Each claim is asserted, so the program exits non-zero if the package stops doing what it says.

import assert from "node:assert/strict";
import { generateText, stepCountIs, tool, jsonSchema, validateUIMessages } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { StateStore } from "stategate";
import { stategateAgent, toUIMessages, fromUIMessages } from "stategate/ai-sdk";

// --- the tool and the scripted model ------------------------------------------------------------
const weather = tool({
  description: "The weather in a city",
  inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
  execute: async ({ city }) => ({ Paris: "18°C, cloudy", Rome: "24°C, sunny" })[city] ?? "unknown city",
});
const usage = (input, output) => ({ inputTokens: { total: input, noCache: input }, outputTokens: { total: output, text: output } });
const call = (id, city, u) => ({ content: [{ type: "tool-call", toolCallId: id, toolName: "weather", input: JSON.stringify({ city }) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: u, warnings: [] });
const answer = (text, u) => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage: u, warnings: [] });
const model = new MockLanguageModelV3({
  doGenerate: [
    call("call_1", "Paris", usage(120, 18)),
    answer("It is 18°C and cloudy in Paris.", usage(160, 12)),
    answer("Rome is warmer: 24°C and sunny. (The earlier Rome lookup was interrupted.)", usage(210, 20)),
  ],
});

// --- 1. the loop: the store is the history, the agent ties it to generateText ------------------
const store = new StateStore({ runId: "trip" });
const agent = stategateAgent(store, { budget: 4_000, system: "You are a travel assistant. Use the weather tool." });

store.apply({ author: "user", update: { messages: [{ role: "user", content: "What is the weather in Paris?" }], run: { status: "running" } } });
const first = await generateText({ model, tools: { weather }, stopWhen: stepCountIs(5), ...agent });
agent.assertRecorded(); // the AI SDK drops errors thrown in onStepFinish: this surfaces a refused recording
assert.equal(first.steps.length, 2);
assert.equal(first.steps[1].response.messages.length, 3); // cumulative: step 0's two messages, then the answer
assert.equal(store.get("messages").length, 4); // user, the call, its result, the answer: each once
const step2 = model.doGenerateCalls[1].prompt;
assert.deepEqual(step2.map((m) => m.role), ["system", "user", "assistant", "tool"]);
const { used } = store.get("budget");
console.log(`turn 1: ${first.steps.length} steps, ${store.get("messages").length} messages recorded once, authors ${[...new Set(store.events().map((e) => e.author))].join(", ")}`);
console.log(`budget used: ${used.turns} turns, ${used.tool_calls} tool call, ${used.tokens} tokens`);

// --- 2. a crash left a call without its result; the next turn answers it first ----------------
store.apply({ author: "model", update: { messages: [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "call_2", toolName: "weather", input: { city: "Rome" } }] }] } });
// ... the process died here; later, the user asks again (through generateText's messages this time)
const second = await generateText({
  model, tools: { weather }, stopWhen: stepCountIs(5), ...agent,
  messages: [...agent.messages, { role: "user", content: "Is Rome warmer?" }],
});
agent.assertRecorded();
const prompt = model.doGenerateCalls[2].prompt;
const synthetic = prompt.find((m) => m.role === "tool" && m.content[0].toolCallId === "call_2").content[0];
assert.equal(synthetic.output.type, "error-text");
assert.deepEqual(store.danglingToolCalls(), []);
console.log(`turn 2: call_2 answered before the model saw it: "${synthetic.output.value}"`);
console.log(`answer: ${second.text}`);

// --- 3. useChat state ----------------------------------------------------------------------------
const ui = await validateUIMessages({ messages: toUIMessages(store) }); // throws if not valid useChat state
assert.deepEqual(ui.map((m) => m.role), ["user", "assistant", "assistant", "user", "assistant"]);
const before = store.version;
const again = fromUIMessages(store, ui); // the client sends its whole state back
assert.equal(again.applied, null);
assert.equal(store.version, before);
console.log(`useChat: ${ui.length} UIMessages; re-applied: ${again.unchanged} unchanged, ${again.added.length} added, version ${store.version}`);
