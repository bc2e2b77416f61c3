// A small scripted agent loop on stategate, written as a user of the package would write it.
//
// The "model" is a script of assistant turns (OpenAI Chat Completions shape) and the tools are
// local functions, so this runs offline: `node examples/node-agent-loop.mjs` (with the package
// installed: `npm i stategate`). It shows, in order:
//   1. a StateStore whose every change goes to a write-ahead event log (here an array);
//   2. model turns and tool results applied as commands, parallel results as one superstep;
//   3. a crash in the middle of a tool batch: the store rebuilt from its log, the dangling call
//      found and answered by repair, nothing re-run;
//   4. the model view under a token budget, in another provider's format;
//   5. the log checked end to end.
// Each claim is asserted, so the program exits non-zero if the package stops doing what it says.

import assert from "node:assert/strict";
import { StateStore, verifyLog, validateMessages } from "stategate";

// --- the tools and the scripted model ------------------------------------------------------
const tools = {
  weather: ({ city }) => ({ Paris: "18°C, cloudy", Rome: "24°C, sunny", Oslo: "9°C, rain" })[city] ?? "unknown city",
};
const call = (id, name, args) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });
const script = [
  // turn 1: two calls in parallel
  { role: "assistant", content: null, tool_calls: [call("call_1", "weather", { city: "Paris" }), call("call_2", "weather", { city: "Rome" })],
    usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 } },
  // turn 2, after the user's follow-up: two more calls; the process dies after the first result (step 3)
  { role: "assistant", content: "Checking Oslo, and Paris again.", tool_calls: [call("call_3", "weather", { city: "Oslo" }), call("call_4", "weather", { city: "Paris" })],
    usage: { prompt_tokens: 200, completion_tokens: 40, total_tokens: 240 } },
  // turn 3: the answer
  { role: "assistant", content: "Rome is the warmest (24°C, sunny), then Paris (18°C) and Oslo (9°C, rain). The second Paris check was interrupted.",
    usage: { prompt_tokens: 300, completion_tokens: 25, total_tokens: 325 } },
];
const model = (view) => {
  // A real model would get `view.messages`; the script checks that what it is sent is valid.
  assert.deepEqual(validateMessages(view.messages, { provider: "openai" }), []);
  return script.shift();
};

// --- 1. the store and its log ---------------------------------------------------------------
const log = []; // stands for FileLog / IndexedDbLog: onEvents is write-ahead
let store = new StateStore({ runId: "trip", onEvents: (events) => log.push(...events) });
const ask = (content) => store.apply({ author: "user", update: { messages: [{ role: "user", content }] } });
store.apply({ author: "user", update: { messages: [{ role: "user", content: "Which is warmer today, Paris or Rome?" }], run: { status: "running" } } });

// --- 2. the loop -----------------------------------------------------------------------------
const SYSTEM = "You are a travel assistant. Use the weather tool.";
function modelTurn() {
  const view = store.modelView({ budget: 4_000, format: "openai", system: SYSTEM });
  const turn = model(view);
  store.apply({ author: "model", update: { messages: [turn] } });
  return turn;
}
const results = (turn) =>
  turn.tool_calls.map((c) => ({
    author: `tool:${c.id}`,
    update: { messages: [{ role: "tool", tool_call_id: c.id, content: tools[c.function.name](JSON.parse(c.function.arguments)) }] },
  }));

let turn = modelTurn();
store.applyBatch(results(turn)); // one superstep: both results, in call order, all or nothing
console.log(`turn 1: ${turn.tool_calls.length} tool calls answered, version ${store.version}`);
assert.equal(store.version, 4); // user message, model turn, two tool results

// --- 3. a crash in the middle of a tool batch ------------------------------------------------
ask("And Oslo? Check Paris again too, it changes fast.");
turn = modelTurn();
const [first] = results(turn);
store.apply(first); // call_3 answered ... and the process dies before call_4's result
store.free();

store = StateStore.replay(log, { onEvents: (events) => log.push(...events) }); // after the restart
const dangling = store.danglingToolCalls();
console.log(`after the restart: dangling ${dangling.map((d) => `${d.toolCallId} (${d.name})`).join(", ")}`);
assert.deepEqual(dangling.map((d) => d.toolCallId), ["call_4"]);
const repaired = store.repair({ reasons: Object.fromEntries(dangling.map((d) => [d.toolCallId, "interrupted"])) });
console.log(`repair: ${repaired.report.map((f) => `${f.kind} ${f.action} for ${f.toolCallId}`).join(", ")}`);
assert.deepEqual(repaired.report.map((f) => [f.kind, f.action, f.toolCallId]), [["interrupted", "inserted", "call_4"]]);
assert.deepEqual(store.danglingToolCalls(), []);
const placeholder = store.messages("openai").find((m) => m.role === "tool" && m.tool_call_id === "call_4");
assert.match(placeholder.content, /interrupted/);

turn = modelTurn();
store.apply({ author: "model", update: { run: { status: "completed" } } });
console.log(`answer: ${turn.content}`);

// Usage reported with each assistant message counts into the budget channel.
const { used } = store.get("budget");
console.log(`budget used: ${used.turns} turns, ${used.tool_calls} tool calls, ${used.tokens} tokens`);
assert.deepEqual(used, { turns: 3, tool_calls: 4, tokens: 150 + 240 + 325 });

// --- 4. the model view under a budget, for Anthropic ----------------------------------------
const { messages, report } = store.modelView({ budget: 150, format: "anthropic", system: SYSTEM });
console.log(`model view (anthropic, 150 tokens): ${messages.length} messages, ${report.used} tokens; dropped ${report.dropped.map((d) => `${d.count} (${d.reason})`).join(", ")}`);
assert.ok(report.used <= 150);
assert.equal(messages[0].role, "system"); // lift it into the request's `system` for Anthropic
assert.deepEqual(validateMessages(messages.slice(1), { provider: "anthropic" }), []);
// The oldest unit (the first question, its calls and results) did not fit; what is kept starts
// on the follow-up question, and the repaired result is sent as an error tool_result.
assert.deepEqual(report.dropped, [{ count: 4, reason: "budget" }]);
assert.deepEqual(messages.map((m) => m.role), ["system", "user", "assistant", "user", "assistant"]);
const sent = messages[3].content.find((b) => b.tool_use_id === "call_4");
assert.equal(sent.is_error, true);
console.log(`sent for call_4: ${JSON.stringify(sent.content)}`);

// --- 5. the log ----------------------------------------------------------------------------
assert.deepEqual(verifyLog(log), { ok: true });
assert.equal(log.length, store.version);
assert.equal(JSON.stringify(StateStore.replay(log).systemView()), JSON.stringify(store.systemView()));
console.log(`log: ${log.length} events, hash chain ok, a replay equals the store`);
