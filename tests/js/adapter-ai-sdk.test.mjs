// stategate/ai-sdk against the real AI SDK 6 (`ai`, its MockLanguageModelV3), offline: the
// prompts the model receives at each step, what the store records from the cumulative
// `step.response.messages`, usage, repair of dangling calls before a step, `streamText`, and
// useChat state both ways (the client's UIMessages assembled by the AI SDK's own
// `readUIMessageStream` from the server's UI message stream).
//
// Run: node --test tests/js/adapter-ai-sdk.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { generateText, streamText, stepCountIs, tool, jsonSchema, modelMessageSchema, validateUIMessages, readUIMessageStream, simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { StateStore, StategateError } from "../../pkg/index.js";
import { stategateAgent, stepPrompt, toUIMessages, fromUIMessages } from "../../pkg/ai-sdk.js";

// --- the scripted model and the tool ------------------------------------------------------------
const usage = (input, output, cacheRead = 0) => ({
  inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
const callTurn = (id, city, u) => ({ content: [{ type: "tool-call", toolCallId: id, toolName: "weather", input: JSON.stringify({ city }) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: u, warnings: [] });
const textTurn = (text, u) => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage: u, warnings: [] });
const TEMPS = { Paris: "18°C", Rome: "24°C", Oslo: "9°C" };
const tools = {
  weather: tool({
    description: "The weather in a city",
    inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
    execute: async ({ city }) => ({ city, temp: TEMPS[city] }),
  }),
};
const SYSTEM = "You are a weather assistant.";
/** Each stored message as [role, its text] (OpenAI encoding: text parts joined, null without text). */
const texts = (store) => store.messages("openai").map((m) => [m.role, Array.isArray(m.content) ? m.content.map((p) => p.text).join("") : m.content]);
const ask = (store, content) => store.apply({ author: "user", update: { messages: [{ role: "user", content }] } });

/** The agent, with every prepareStep result checked against the AI SDK's own ModelMessage schema. */
function checkedAgent(store, opts) {
  const agent = stategateAgent(store, opts);
  const sent = [];
  const prepareStep = async (options) => {
    const r = await agent.prepareStep(options);
    for (const m of [...r.system, ...r.messages]) {
      const parsed = modelMessageSchema.safeParse(m);
      assert.ok(parsed.success, `not a ModelMessage: ${JSON.stringify(m)}: ${parsed.error}`);
    }
    sent.push(r);
    return r;
  };
  return { agent, sent, hooks: { get messages() { return agent.messages; }, prepareStep, onStepFinish: agent.onStepFinish } };
}

/** The prompts a mock model received, as JSON (the AI SDK writes `providerOptions: undefined` members). */
const prompts = (calls) => JSON.parse(JSON.stringify(calls.map((c) => c.prompt)));

// The prompts the model receives (LanguageModelV3 prompt: text parts, tool-call input as objects).
const P = {
  system: { role: "system", content: SYSTEM },
  user: (text) => ({ role: "user", content: [{ type: "text", text }] }),
  call: (id, city) => ({ role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: "weather", input: { city } }] }),
  result: (id, city) => ({ role: "tool", content: [{ type: "tool-result", toolCallId: id, toolName: "weather", output: { type: "json", value: { city, temp: TEMPS[city] } } }] }),
  text: (text) => ({ role: "assistant", content: [{ type: "text", text }] }),
};

test("a two-step generateText tool loop: the prompt of each step, the conversation recorded once, usage in the budget", async () => {
  const store = new StateStore({ runId: "r" });
  ask(store, "Weather in Paris?");
  const model = new MockLanguageModelV3({ doGenerate: [callTurn("c1", "Paris", usage(50, 12, 10)), textTurn("It is 18°C in Paris.", usage(80, 9, 40))] });
  const { agent, sent, hooks } = checkedAgent(store, { budget: 2_000, system: SYSTEM });
  const result = await generateText({ model, tools, stopWhen: stepCountIs(5), ...hooks });
  agent.assertRecorded();
  assert.equal(result.text, "It is 18°C in Paris.");
  assert.equal(result.steps.length, 2);

  // Exactly what the model received at each step: the system prompt, then the history.
  assert.deepEqual(prompts(model.doGenerateCalls), [
    [P.system, P.user("Weather in Paris?")],
    [P.system, P.user("Weather in Paris?"), P.call("c1", "Paris"), P.result("c1", "Paris")],
  ]);
  // prepareStep returned the system as SystemModelMessages and the rest as ModelMessages.
  assert.deepEqual(sent.map((s) => s.system), [[{ role: "system", content: SYSTEM }], [{ role: "system", content: SYSTEM }]]);
  assert.deepEqual(sent[1].messages.map((m) => m.role), ["user", "assistant", "tool"]);

  // The store holds the conversation once (step 1's response.messages repeat step 0's).
  assert.equal(result.steps[1].response.messages.length, 3, "AI SDK 6 response.messages are cumulative");
  assert.deepEqual(store.messages("ai-sdk").map(({ usage: _u, ...m }) => m), [
    { role: "user", content: "Weather in Paris?" },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Paris" } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "weather", output: { type: "json", value: { city: "Paris", temp: "18°C" } } }] },
    { role: "assistant", content: [{ type: "text", text: "It is 18°C in Paris." }] },
  ]);
  // Authors, one superstep per AI SDK step, the call id as the tool result's correlation id.
  assert.deepEqual(store.events().map((e) => [e.sequence, e.type, e.author]), [
    [1, "user_input", "user"], [2, "tool_call", "model"], [3, "tool_result", "tool:weather"], [4, "model_decision", "model"],
  ]);
  assert.equal(store.events()[2].correlation_id, "c1");
  // Usage: on each step's assistant message (canonical usage) and added into the budget.
  const canonical = store.get("messages");
  assert.deepEqual(canonical.map((m) => m.usage ?? null), [null, { input_tokens: 50, output_tokens: 12, cache_read_tokens: 10 }, null, { input_tokens: 80, output_tokens: 9, cache_read_tokens: 40 }]);
  assert.deepEqual(store.get("budget").used, { turns: 2, tokens: 50 + 12 + 80 + 9, tool_calls: 1 });
  // The second step's assistant message continues the first's turn (one UIMessage, as useChat shows it).
  assert.deepEqual(canonical.map((m) => m.id), ["r:1:0", "r:2:0", "r:3:0", "r:2:0#1"]);
  // `usage` is the store's; a ModelMessage has no such field, so it is never sent.
  assert.ok(sent.every((s) => s.messages.every((m) => !("usage" in m))));
});

test("a second call: new messages after the agent's are recorded; messages that are not the store's are refused", async () => {
  const store = new StateStore({ runId: "r" });
  ask(store, "Weather in Paris?");
  const first = new MockLanguageModelV3({ doGenerate: [callTurn("c1", "Paris", usage(50, 12)), textTurn("18°C.", usage(80, 9))] });
  const agent = stategateAgent(store, { system: SYSTEM });
  await generateText({ model: first, tools, stopWhen: stepCountIs(5), ...agent });
  agent.assertRecorded();

  const second = new MockLanguageModelV3({ doGenerate: [textTurn("Rome is warmer.", usage(95, 5))] });
  await generateText({ model: second, tools, stopWhen: stepCountIs(5), ...agent, messages: [...agent.messages, { role: "user", content: "And Rome?" }] });
  agent.assertRecorded();
  assert.deepEqual(prompts(second.doGenerateCalls)[0], [P.system, P.user("Weather in Paris?"), P.call("c1", "Paris"), P.result("c1", "Paris"), P.text("18°C."), P.user("And Rome?")]);
  assert.deepEqual(texts(store), [
    ["user", "Weather in Paris?"], ["assistant", null], ["tool", '{"city":"Paris","temp":"18°C"}'], ["assistant", "18°C."], ["user", "And Rome?"], ["assistant", "Rome is warmer."],
  ]);
  assert.equal(store.events().at(-2).author, "user");

  // A history that is not the store's (here: only a new message) would be silently replaced: refused.
  const version = store.version;
  const third = new MockLanguageModelV3({ doGenerate: [textTurn("never", usage(1, 1))] });
  await assert.rejects(
    generateText({ model: third, tools, ...agent, messages: [{ role: "user", content: "And Oslo?" }] }),
    (e) => e instanceof StategateError && e.code === "INVALID_OPTION" && /generateText was given 1 messages but the store's history holds 6/.test(e.message),
  );
  const edited = agent.messages.map((m, i) => (i === 0 ? { role: "user", content: "Weather in Lyon?" } : m));
  await assert.rejects(generateText({ model: third, tools, ...agent, messages: edited }), (e) => e.code === "INVALID_OPTION" && e.details.index === 0);
  assert.equal(store.version, version, "a refused call records nothing");
  assert.equal(third.doGenerateCalls.length, 0, "nor calls the model");
});

test("a dangling tool call is answered before the model sees the history (and recorded unless recordRepairs: false)", async () => {
  for (const recordRepairs of [true, false]) {
    const store = new StateStore({ runId: "d" });
    ask(store, "Weather in Paris?");
    // The process stopped after the model's call: no result.
    store.apply({ author: "model", update: { messages: [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c0", toolName: "weather", input: { city: "Paris" } }] }] } });
    ask(store, "Still there?");
    const model = new MockLanguageModelV3({ doGenerate: [textTurn("Yes, sorry: the lookup was interrupted.", usage(60, 8))] });
    const { agent, hooks } = checkedAgent(store, { system: SYSTEM, recordRepairs, reasons: { c0: "interrupted" } });
    await generateText({ model, tools, ...hooks });
    agent.assertRecorded();
    const [prompt] = prompts(model.doGenerateCalls);
    assert.deepEqual(prompt.map((m) => m.role), ["system", "user", "assistant", "tool", "user"]);
    assert.equal(prompt[3].content.length, 1);
    const [synthetic] = prompt[3].content;
    assert.equal(synthetic.type, "tool-result");
    assert.equal(synthetic.toolCallId, "c0");
    assert.equal(synthetic.output.type, "error-text");
    // `reasons` name the recorded repair's text; the model view's own repair says "did not complete".
    assert.match(synthetic.output.value, recordRepairs ? /^Tool call weather with id c0 was interrupted/ : /^Tool call weather with id c0 did not complete/);
    assert.deepEqual(store.danglingToolCalls().map((d) => d.toolCallId), recordRepairs ? [] : ["c0"]);
    assert.equal(store.events().some((e) => e.author === "repair"), recordRepairs);
  }
});

test("streamText: the same loop, each step's prompt from the store, recorded once", async () => {
  const store = new StateStore({ runId: "s" });
  ask(store, "Weather in Oslo?");
  const stream = (chunks) => ({ stream: simulateReadableStream({ chunks: [{ type: "stream-start", warnings: [] }, ...chunks] }) });
  const model = new MockLanguageModelV3({
    doStream: [
      stream([{ type: "tool-call", toolCallId: "c9", toolName: "weather", input: JSON.stringify({ city: "Oslo" }) }, { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: usage(100, 7) }]),
      stream([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Oslo: " }, { type: "text-delta", id: "t", delta: "9°C." }, { type: "text-end", id: "t" }, { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(120, 6) }]),
    ],
  });
  const { agent, hooks } = checkedAgent(store, { system: SYSTEM });
  const result = streamText({ model, tools, stopWhen: stepCountIs(5), ...hooks });
  assert.equal(await result.text, "Oslo: 9°C.");
  agent.assertRecorded();
  assert.deepEqual(prompts(model.doStreamCalls), [
    [P.system, P.user("Weather in Oslo?")],
    [P.system, P.user("Weather in Oslo?"), P.call("c9", "Oslo"), P.result("c9", "Oslo")],
  ]);
  assert.deepEqual(store.get("messages").map((m) => [m.role, m.id]), [["user", "s:1:0"], ["assistant", "s:2:0"], ["tool", "s:3:0"], ["assistant", "s:2:0#1"]]);
  assert.deepEqual(store.get("budget").used, { turns: 2, tokens: 233, tool_calls: 1 });
});

test("the budget: older turns are dropped from the prompt, the store keeps them; the view's report is handed to onView", async () => {
  const store = new StateStore({ runId: "b" });
  for (const city of ["Paris", "Rome", "Oslo"]) {
    ask(store, `Weather in ${city}? ${"Please be precise. ".repeat(10)}`);
    store.apply({ author: "model", update: { messages: [{ role: "assistant", content: [{ type: "text", text: `${city}: ${TEMPS[city]}. ${"It is a fine day. ".repeat(10)}` }] }] } });
  }
  ask(store, "Which was warmest?");
  const views = [];
  const model = new MockLanguageModelV3({ doGenerate: [textTurn("Rome.", usage(40, 2))] });
  const agent = stategateAgent(store, { budget: 150, system: SYSTEM, onView: (view, step) => views.push([step, view.report]) });
  await generateText({ model, ...agent });
  agent.assertRecorded();
  const prompt = prompts(model.doGenerateCalls)[0];
  assert.equal(prompt[0].content, SYSTEM);
  assert.deepEqual(prompt.at(-1), P.user("Which was warmest?"));
  assert.ok(prompt.length < 8, `the 7 stored messages do not fit 150 tokens: ${prompt.length - 1} sent`);
  assert.deepEqual(views.map(([step]) => step), [0]);
  assert.ok(views[0][1].used <= 150);
  assert.deepEqual(views[0][1].dropped, [{ count: 8 - prompt.length, reason: "budget" }]);
  assert.equal(store.get("messages").length, 8);
});

test("a refused recording (BUDGET_EXCEEDED) stops the loop at the next step and leaves the store as it was", async () => {
  const store = new StateStore({ runId: "x" });
  ask(store, "Weather in Paris?");
  store.apply({ author: "user", update: { budget: { limits: { max_tokens: 100 } } } });
  const before = store.version;
  const model = new MockLanguageModelV3({ doGenerate: [callTurn("c1", "Paris", usage(90, 20)), textTurn("never", usage(1, 1))] });
  const agent = stategateAgent(store, { system: SYSTEM });
  // The AI SDK drops errors thrown by onStepFinish: the agent keeps it for the next prepareStep.
  await assert.rejects(generateText({ model, tools, stopWhen: stepCountIs(5), ...agent }), (e) => e instanceof StategateError && e.code === "BUDGET_EXCEEDED");
  assert.equal(model.doGenerateCalls.length, 1, "the model is not called on a store that lacks the previous step");
  assert.equal(store.version, before, "the refused step wrote nothing");
  assert.doesNotThrow(() => agent.assertRecorded(), "thrown once");

  // A refusal of the last step: assertRecorded() throws it.
  const last = new MockLanguageModelV3({ doGenerate: [textTurn("A long answer.", usage(95, 10))] });
  await generateText({ model: last, ...agent });
  assert.throws(() => agent.assertRecorded(), (e) => e.code === "BUDGET_EXCEEDED");
  assert.equal(store.version, before);
});

test("prepareStep without onStepFinish is refused at step 1 instead of looping on a stale store", async () => {
  const store = new StateStore({ runId: "m" });
  ask(store, "Weather in Paris?");
  const model = new MockLanguageModelV3({ doGenerate: [callTurn("c1", "Paris", usage(5, 5)), textTurn("never", usage(1, 1))] });
  const agent = stategateAgent(store);
  await assert.rejects(generateText({ model, tools, stopWhen: stepCountIs(5), messages: agent.messages, prepareStep: agent.prepareStep }), (e) => e.code === "INVALID_OPTION" && /step 0 was not recorded/.test(e.message));
  assert.equal(model.doGenerateCalls.length, 1);
});

test("stepPrompt: the step's {system, messages} for a prepareStep of your own", () => {
  const store = new StateStore({ runId: "p" });
  store.apply({ author: "user", update: { messages: [{ role: "system", content: "Answer in French." }, { role: "user", content: "Weather in Paris?" }], run: { status: "running", task: "Report the weather" } } });
  const { system, messages, view } = stepPrompt(store, { system: SYSTEM });
  assert.deepEqual(system.map((m) => m.role), ["system", "system", "system"]);
  assert.deepEqual([system[0].content, system[1].content], [SYSTEM, "Answer in French."]);
  assert.match(system[2].content, /^# Current state[\s\S]*Report the weather/);
  assert.deepEqual(messages, [{ role: "user", content: "Weather in Paris?" }]);
  assert.equal(view.report.budget, 8_000);
  for (const m of [...system, ...messages]) assert.ok(modelMessageSchema.safeParse(m).success);
});

// --- useChat state ------------------------------------------------------------------------------

/** A useChat round: the server records the client's state, streams the answer, the client assembles it (readUIMessageStream). */
async function chatRound(store, agent, clientMessages, model, messageId) {
  fromUIMessages(store, clientMessages);
  const result = streamText({ model, tools, stopWhen: stepCountIs(5), ...agent });
  let assistant;
  for await (const m of readUIMessageStream({ stream: result.toUIMessageStream({ generateMessageId: () => messageId }) })) assistant = m;
  agent.assertRecorded();
  return [...clientMessages, assistant];
}

const streamTurn = (...parts) => ({ stream: simulateReadableStream({ chunks: [{ type: "stream-start", warnings: [] }, ...parts] }) });
const streamCall = (id, city) => streamTurn({ type: "tool-call", toolCallId: id, toolName: "weather", input: JSON.stringify({ city }) }, { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: usage(30, 5) });
const streamText_ = (text) => streamTurn({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: text }, { type: "text-end", id: "t" }, { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(40, 4) });

test("useChat: toUIMessages is valid useChat state; re-applying the client's whole state adds only what is new (never ALREADY_ANSWERED)", async () => {
  const store = new StateStore({ runId: "u" });
  const agent = stategateAgent(store, { system: SYSTEM });
  const model = new MockLanguageModelV3({ doStream: [streamCall("c1", "Paris"), streamText_("It is 18°C."), streamText_("Rome: 24°C.")] });

  // Round 1: the client sends its first message; the assistant's UIMessage is assembled by the AI SDK.
  let client = [{ id: "u1", role: "user", parts: [{ type: "text", text: "Weather in Paris?" }] }];
  client = await chatRound(store, agent, client, model, "a-client-1");
  assert.deepEqual(client[1].parts.map((p) => p.type), ["step-start", "tool-weather", "step-start", "text"]);
  assert.deepEqual(client[1].parts[1].output, { city: "Paris", temp: "18°C" });

  // The store as useChat state: valid for the AI SDK, one assistant message for the two steps, the tool's own output.
  const ui = toUIMessages(store);
  await validateUIMessages({ messages: ui });
  assert.deepEqual(ui.map((m) => [m.id, m.role]), [["u1", "user"], ["u:2:0", "assistant"]]);
  assert.deepEqual(ui[1].parts.filter((p) => p.type !== "step-start").map((p) => p.output ?? p.text), [{ city: "Paris", temp: "18°C" }, "It is 18°C."]);

  // Re-applying the client's state (its own assistant id, step-start parts, text state "done") changes nothing.
  const version = store.version;
  assert.deepEqual(fromUIMessages(store, client), { applied: null, added: [], replaced: [], removed: [], unchanged: 4 });
  assert.deepEqual(fromUIMessages(store, ui), { applied: null, added: [], replaced: [], removed: [], unchanged: 4 });
  assert.equal(store.version, version);

  // Round 2: the client sends its whole state plus a new message: only that message is recorded.
  client.push({ id: "u2", role: "user", parts: [{ type: "text", text: "And Rome?" }] });
  const r = fromUIMessages(store, client);
  assert.deepEqual([r.added, r.replaced, r.removed, r.unchanged, r.applied.version], [["u2"], [], [], 4, version + 1]);
  assert.deepEqual(fromUIMessages(store, client).applied, null, "idempotent");
  const result = streamText({ model, tools, ...agent });
  await result.consumeStream();
  agent.assertRecorded();
  assert.deepEqual(model.doStreamCalls[2].prompt.map((m) => m.role), ["system", "user", "assistant", "tool", "assistant", "user"]);
  assert.deepEqual(store.messages("openai").map((m) => m.role), ["user", "assistant", "tool", "assistant", "user", "assistant"]);
});

test("useChat: a client-side tool's output goes in after its call; a real output replaces a placeholder; mirror follows regenerate()", async () => {
  const store = new StateStore({ runId: "c" });
  const asked = { id: "u1", role: "user", parts: [{ type: "text", text: "Where am I?" }] };
  fromUIMessages(store, [asked]);
  // The model calls a client-side tool (no execute): the loop stops with the call unanswered.
  const model = new MockLanguageModelV3({ doGenerate: [{ content: [{ type: "tool-call", toolCallId: "g1", toolName: "getLocation", input: "{}" }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: usage(10, 3), warnings: [] }] });
  const agent = stategateAgent(store, { system: SYSTEM });
  await generateText({ model, tools: { getLocation: tool({ inputSchema: jsonSchema({ type: "object" }) }) }, ...agent });
  agent.assertRecorded();
  assert.deepEqual(store.danglingToolCalls().map((d) => d.toolCallId), ["g1"]);
  ask(store, "(typing)"); // something after the call in the store
  const [, pending] = toUIMessages(store);
  assert.equal(pending.parts.at(-1).state, "input-available");

  // The browser ran the tool (addToolOutput) and sends its state back.
  const answered = { ...pending, parts: pending.parts.map((p) => (p.toolCallId === "g1" ? { ...p, state: "output-available", output: "Paris" } : p)) };
  const r = fromUIMessages(store, [asked, answered]);
  assert.equal(r.added.length, 1);
  assert.deepEqual(store.danglingToolCalls(), []);
  assert.deepEqual(texts(store), [["user", "Where am I?"], ["assistant", null], ["tool", "Paris"], ["user", "(typing)"]]);

  // A changed output for the same call replaces the stored result in place.
  const corrected = { ...answered, parts: answered.parts.map((p) => (p.toolCallId === "g1" ? { ...p, output: "Lyon" } : p)) };
  const r2 = fromUIMessages(store, [asked, corrected]);
  assert.deepEqual([r2.added, r2.replaced.length], [[], 1]);
  assert.equal(texts(store)[2][1], "Lyon");

  // regenerate(): the client drops the last turn; with mirror the store follows it.
  const r3 = fromUIMessages(store, [asked], { mirror: true });
  assert.equal(r3.removed.length, 3);
  assert.deepEqual(texts(store), [["user", "Where am I?"]]);
  // Without mirror, a client that sends only its new message leaves the history alone.
  const r4 = fromUIMessages(store, [{ id: "u3", role: "user", parts: [{ type: "text", text: "Hello?" }] }]);
  assert.deepEqual(r4.added, ["u3"]);
  assert.deepEqual(texts(store), [["user", "Where am I?"], ["user", "Hello?"]]);
});

test("bad input is refused with a StategateError and leaves the store as it was", async () => {
  const store = new StateStore({ runId: "e" });
  ask(store, "hi");
  const version = store.version;
  const code = (f, c) => assert.throws(f, (e) => e instanceof StategateError && e.code === c, `${f} should throw ${c}`);
  code(() => stategateAgent({}, {}), "INVALID_OPTION");
  code(() => stategateAgent(store, { format: "openai" }), "INVALID_OPTION");
  code(() => stategateAgent(store, { budjet: 10 }), "INVALID_OPTION");
  code(() => stategateAgent(store, { authors: { model: "" } }), "INVALID_OPTION");
  code(() => stategateAgent(store, { authors: { tool: "t" } }), "INVALID_OPTION");
  code(() => stategateAgent(store, { recordRepairs: "yes" }), "INVALID_OPTION");
  code(() => stepPrompt(store, { budget: 3, system: SYSTEM }), "BUDGET_TOO_SMALL");
  // ... also with a dangling call: the refused view writes no repair.
  const dangling = new StateStore({ runId: "dg" });
  dangling.apply({ author: "model", update: { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: {} }] }] } });
  code(() => stepPrompt(dangling, { budget: 3, system: SYSTEM }), "BUDGET_TOO_SMALL");
  assert.deepEqual([dangling.version, dangling.danglingToolCalls().length], [1, 1]);
  code(() => toUIMessages(null), "INVALID_OPTION");
  code(() => fromUIMessages(store, "hi"), "INVALID_MESSAGE");
  code(() => fromUIMessages(store, [{ role: "user", content: "not a UIMessage" }]), "INVALID_MESSAGE");
  code(() => fromUIMessages(store, [{ id: "x", role: "user", parts: [{ type: "no-such-part" }] }]), "INVALID_MESSAGE");
  code(() => fromUIMessages(store, [], { mirorr: true }), "INVALID_OPTION");
  // The stored "hi" has id e:1:0: a different message under that id after it would silently replace it.
  code(() => fromUIMessages(store, [{ id: "x1", role: "user", parts: [{ type: "text", text: "hi" }] }, { id: "e:1:0", role: "user", parts: [{ type: "text", text: "other" }] }]), "INVALID_OPTION");
  // A result for a call the store never saw: the store refuses it, the command is not applied.
  code(() => fromUIMessages(store, [{ id: "a", role: "assistant", parts: [{ type: "tool-weather", toolCallId: "zz", state: "output-available", input: {}, output: "1" }] }], { expectedVersion: 0 }), "VERSION_CONFLICT");
  // onStepFinish never rejects (the AI SDK would drop it): the refusal comes from assertRecorded.
  const agent = stategateAgent(store);
  await agent.onStepFinish({ stepNumber: 0, response: { messages: [{ role: "robot", content: "?" }] }, usage: {} });
  assert.throws(() => agent.assertRecorded(), (e) => e.code === "INVALID_MESSAGE" && e.details.index === 0);
  await agent.onStepFinish({ stepNumber: 0, response: { messages: [{ role: "assistant", content: "x" }] }, usage: { inputTokens: -1 } });
  assert.throws(() => agent.assertRecorded(), (e) => e.code === "INVALID_OPTION" && e.details.field === "usage.inputTokens");
  await agent.onStepFinish({ stepNumber: 3, response: { messages: [] } });
  assert.throws(() => agent.assertRecorded(), (e) => e.code === "INVALID_OPTION");
  assert.equal(store.version, version);
  assert.equal(store.events().length, version);
});

test("CommonJS: require('stategate/ai-sdk') (pkg/ai-sdk.cjs) does the same", async () => {
  const require = createRequire(import.meta.url);
  const cjs = require("../../pkg/ai-sdk.cjs");
  const core = require("../../pkg/index.cjs");
  assert.deepEqual(Object.keys(cjs).sort(), ["fromUIMessages", "stategateAgent", "stepPrompt", "toUIMessages"]);
  const store = new core.StateStore({ runId: "cjs" });
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "Weather in Paris?" }] } });
  const model = new MockLanguageModelV3({ doGenerate: [callTurn("c1", "Paris", usage(5, 5)), textTurn("18°C.", usage(6, 2))] });
  const agent = cjs.stategateAgent(store, { system: SYSTEM });
  await generateText({ model, tools, stopWhen: stepCountIs(3), ...agent });
  agent.assertRecorded();
  assert.deepEqual(prompts(model.doGenerateCalls)[1], [P.system, P.user("Weather in Paris?"), P.call("c1", "Paris"), P.result("c1", "Paris")]);
  assert.deepEqual(cjs.toUIMessages(store).map((m) => m.role), ["user", "assistant"]);
  assert.throws(() => cjs.stategateAgent(store, { format: "x" }), (e) => e instanceof StategateError && e.code === "INVALID_OPTION");
});

test("types: the agent spreads into generateText / streamText and composes with a prepareStep of your own (tsc --strict)", async () => {
  const { spawnSync } = await import("node:child_process");
  const fs = await import("node:fs");
  const path = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const dir = path.join(root, "test-results/adapter-ai-sdk-types");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "check.ts"), `
import { generateText, streamText, stepCountIs, tool, jsonSchema, type UIMessage, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { StateStore } from "../../pkg/index.js";
import { stategateAgent, stepPrompt, toUIMessages, fromUIMessages } from "../../pkg/ai-sdk.js";

const store = new StateStore({ runId: "t" });
const agent = stategateAgent(store, { budget: 100, system: "x", authors: { tool: (name, id) => name + id } });
const model = new MockLanguageModelV3();
const tools = { weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: "object" }), execute: async ({ city }) => city }) };
export async function run() {
  const r = await generateText({ model, tools, stopWhen: stepCountIs(3), ...agent });
  const s = streamText({ model, tools, ...agent, prepareStep: async (o) => ({ ...(await agent.prepareStep(o)), activeTools: ["weather"] }) });
  const ui: UIMessage[] = toUIMessages(store);
  const { added }: { added: string[] } = fromUIMessages(store, ui, { mirror: true });
  const { messages }: { messages: ModelMessage[] } = stepPrompt(store);
  // @ts-expect-error: the AI SDK takes "ai-sdk" ModelMessages, format is not an option
  stategateAgent(store, { format: "openai" });
  // @ts-expect-error: authors.tool is a function
  stategateAgent(store, { authors: { tool: "t" } });
  return [r.text, s, added, messages];
}
`);
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { target: "es2022", module: "nodenext", moduleResolution: "nodenext", strict: true, noEmit: true, skipLibCheck: true, lib: ["es2022", "dom"], types: [] },
    files: ["check.ts"],
  }));
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", dir], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
