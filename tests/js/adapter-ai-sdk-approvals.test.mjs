// AI SDK 6 tool approvals (`tool({ ..., needsApproval: true })`) through stategate/ai-sdk,
// differential against the real `ai` package (6.0.325) and its MockLanguageModelV3, offline.
//
// Each scenario runs twice:
//   alone     — the AI SDK by itself: the app keeps its own `messages` array
//               (`[...messages, ...result.response.messages]`) and appends the approval response
//               `{role: "tool", content: [{type: "tool-approval-response", approvalId, approved, reason?}]}`;
//   stategate — a StateStore, `stategateAgent(store, OPTS)` spread into the call, and the approval
//               response passed as `messages: [...agent.messages, approvalResponse]`.
// The mock model records (as JSON) every prompt it receives. The prompts of the two runs must be
// deep-equal (the exact model request) unless the scenario says stategate does better (f).
//
// The AI SDK flow these tests rely on (ai/dist/index.mjs, `collectToolApprovals` and the start of
// `generateText` / `streamText`):
// - a needsApproval call does not run: the step's response holds an assistant message with the
//   `tool-call` part and a `tool-approval-request` part `{approvalId, toolCallId}`, and the loop
//   stops there (an auto-run tool called in the same step does run, its result in a tool message);
// - the next call, when its LAST message is a tool message holding `tool-approval-response`
//   parts, looks each approvalId up among the assistant messages' `tool-approval-request` parts
//   (`InvalidToolApprovalError` if it is not there: the history must keep the request), runs the
//   approved tools and writes `{type: "execution-denied", reason?}` results for denied ones — all
//   before step 0's `prepareStep`, in one tool message that is ALSO in step 0's `prepareStep`
//   `messages` AND in step 0's (cumulative) `response.messages`;
// - the model never sees approval parts: `convertToLanguageModelPrompt` drops
//   `tool-approval-request` parts, drops `tool-approval-response` parts (not provider-executed),
//   merges consecutive tool messages and then drops the empty ones;
// - a call left without a result before a user message makes `convertToLanguageModelPrompt`
//   throw `MissingToolResultsError`: the AI SDK alone does not send such a prompt at all (f).
//
// Run: node --test tests/js/adapter-ai-sdk-approvals.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, streamText, stepCountIs, tool, jsonSchema, simulateReadableStream, convertToModelMessages, validateUIMessages } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { StateStore, validateMessages } from "../../pkg/index.js";
import { stategateAgent, toUIMessages, fromUIMessages } from "../../pkg/ai-sdk.js";

// A budget the model view never drops anything under; no `system` on either side.
const OPTS = { budget: 100_000 };
const ASK = "Pay Bob 5 EUR.";

/** The value as JSON carries it (the AI SDK writes `providerOptions: undefined` members). */
const asJson = (v) => JSON.parse(JSON.stringify(v));

// --- the tools --------------------------------------------------------------------------------------

/** Fresh tools per test: `pay` needs approval, `weather` runs by itself; `ran` lists each execution. */
function makeTools() {
  const ran = [];
  const tools = {
    pay: tool({
      description: "Pay someone (needs the user's approval)",
      inputSchema: jsonSchema({ type: "object", properties: { to: { type: "string" }, amount: { type: "number" } }, required: ["to", "amount"] }),
      needsApproval: true,
      execute: async ({ to, amount }) => {
        ran.push(`pay ${to} ${amount}`);
        return `Paid ${amount} EUR to ${to}.`;
      },
    }),
    weather: tool({
      description: "The weather in a city",
      inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
      execute: async ({ city }) => {
        ran.push(`weather ${city}`);
        return { city, temp: "18°C" };
      },
    }),
  };
  return { tools, ran };
}

// --- the scripted model -----------------------------------------------------------------------------

const USAGE = { inputTokens: { total: 20, noCache: 20, cacheRead: 0, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
/** A model content part: a tool call (input as JSON text, as providers send it). */
const call = (id, toolName, input) => ({ type: "tool-call", toolCallId: id, toolName, input: JSON.stringify(input) });
const pay = (id, to, amount) => call(id, "pay", { to, amount });
const text = (t) => ({ type: "text", text: t });

/**
 * A MockLanguageModelV3 answering its k-th call (doGenerate or doStream) with `turns[k]` (a list
 * of content parts); `model.prompts` holds every prompt it received, as JSON.
 */
function scripted(turns) {
  const prompts = [];
  const next = (options) => {
    prompts.push(asJson(options.prompt));
    const content = turns[prompts.length - 1];
    assert.ok(content, `the model was called ${prompts.length} times; the script has ${turns.length} turns`);
    const calls = content.some((p) => p.type === "tool-call");
    return { content, finishReason: calls ? { unified: "tool-calls", raw: "tool_calls" } : { unified: "stop", raw: "stop" } };
  };
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => ({ ...next(options), usage: USAGE, warnings: [] }),
    doStream: async (options) => {
      const { content, finishReason } = next(options);
      const chunks = [{ type: "stream-start", warnings: [] }];
      content.forEach((p, i) => {
        if (p.type === "text") chunks.push({ type: "text-start", id: `t${i}` }, { type: "text-delta", id: `t${i}`, delta: p.text }, { type: "text-end", id: `t${i}` });
        else chunks.push(p);
      });
      chunks.push({ type: "finish", finishReason, usage: USAGE });
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
  model.prompts = prompts;
  return model;
}

/** One call, generateText or streamText (the stream consumed fully); its response messages. */
async function run(mode, args) {
  if (mode === "generateText") return (await generateText(args)).response.messages;
  const errors = [];
  const result = streamText({ ...args, onError: ({ error }) => errors.push(error) });
  await result.consumeStream();
  if (errors.length > 0) throw errors[0]; // streamText reports a thrown prepareStep here, not by rejecting
  return (await result.response).messages;
}

/** The `tool-approval-request` parts of response messages, in order. */
const approvalRequests = (messages) => messages.flatMap((m) => (m.role === "assistant" && Array.isArray(m.content) ? m.content.filter((p) => p.type === "tool-approval-request") : []));

/** The app's approval response: one `tool-approval-response` part per request, decided by call id. */
function approvalResponse(requests, decisions) {
  return {
    role: "tool",
    content: requests.map(({ approvalId, toolCallId }) => {
      const d = decisions[toolCallId];
      assert.ok(d, `no decision scripted for call ${toolCallId}`);
      return { type: "tool-approval-response", approvalId, approved: d.approved, ...(d.reason !== undefined ? { reason: d.reason } : {}) };
    }),
  };
}

// --- what the model receives (LanguageModelV3 prompt, as JSON) --------------------------------------
const P = {
  user: (t) => ({ role: "user", content: [{ type: "text", text: t }] }),
  calls: (...parts) => ({ role: "assistant", content: parts.map((p) => ({ type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: JSON.parse(p.input) })) }),
  text: (t) => ({ role: "assistant", content: [{ type: "text", text: t }] }),
  tool: (...results) => ({ role: "tool", content: results }),
  result: (id, toolName, output) => ({ type: "tool-result", toolCallId: id, toolName, output }),
};

// --- the store ---------------------------------------------------------------------------------------

const textOf = (c) => (typeof c === "string" ? c : Array.isArray(c) ? c.filter((p) => p.type === "text").map((p) => p.text).join("") : "");
/** Stored tool results (tool messages with a status) answering `id`. */
const resultsFor = (store, id) => store.get("messages").filter((m) => m.role === "tool" && m.tool_call_id === id && m.status !== undefined);
/** Stored approval decisions (tool messages holding `approval`). */
const decisionsIn = (store) => store.get("messages").filter((m) => m.role === "tool" && m.approval != null);
/** The stored tool call `id`. */
const storedCall = (store, id) => store.get("messages").flatMap((m) => m.tool_calls ?? []).find((c) => c.id === id);

/** Every call answered: the store's history passes OpenAI's and Anthropic's rules. */
function assertValid(store) {
  assert.deepEqual(validateMessages(store.messages("openai"), { provider: "openai" }), [], "store.messages('openai') passes OpenAI's rules");
  assert.deepEqual(validateMessages(store.messages("anthropic"), { provider: "anthropic" }), [], "store.messages('anthropic') passes Anthropic's rules");
}

/**
 * The store after an approval round: each call answered by exactly one result (status, text);
 * each approval's request kept on its call and its decision recorded once, as a decision (no
 * status: not a tool result); the history, decisions aside, in the given roles; the model's last
 * reply recorded.
 */
function assertStored(store, { results, requests, decisions, roles, reply }) {
  for (const [id, [status, content]] of Object.entries(results)) {
    const found = resultsFor(store, id);
    assert.equal(found.length, 1, `exactly one stored result for call ${id}, got ${found.length}: ${JSON.stringify(found)}`);
    assert.equal(found[0].status, status, `status of the result of ${id}`);
    if (content instanceof RegExp) assert.match(textOf(found[0].content), content);
    else assert.equal(textOf(found[0].content), content, `text of the result of ${id}`);
  }
  const stored = decisionsIn(store);
  for (const { approvalId, toolCallId } of requests) {
    assert.equal(storedCall(store, toolCallId)?.approval?.id, approvalId, `the approval request is kept on call ${toolCallId}`);
    const ds = stored.filter((m) => m.approval.id === approvalId);
    if (!decisions || !(toolCallId in decisions)) {
      assert.equal(ds.length, 0, `no decision recorded for ${toolCallId}`);
      continue;
    }
    assert.equal(ds.length, 1, `approval ${approvalId} (call ${toolCallId}) decided once in the store, got ${ds.length}: ${JSON.stringify(stored)}`);
    const [d] = ds;
    assert.equal(d.status, undefined, "an approval decision is not a tool result (no status)");
    assert.equal(d.approval.approved, decisions[toolCallId].approved);
    assert.equal(d.approval.reason, decisions[toolCallId].reason);
    if (d.approval.tool_call_id !== undefined) assert.equal(d.approval.tool_call_id, toolCallId);
  }
  const history = store.get("messages").filter((m) => m.approval == null);
  assert.deepEqual(history.map((m) => m.role), roles, `the stored history (decisions aside): ${JSON.stringify(history.map((m) => [m.role, m.tool_call_id ?? textOf(m.content)]))}`);
  const last = history.at(-1);
  assert.equal(last.role, "assistant");
  assert.equal(textOf(last.content), reply, "the model's reply is recorded");
}

// --- the two runs of a scenario ---------------------------------------------------------------------

/** The AI SDK alone: call 1 (the approval request), the app appends its decision, call 2. */
async function alone(mode, { turns, decisions }) {
  const { tools, ran } = makeTools();
  const model = scripted(turns);
  let messages = [{ role: "user", content: ASK }];
  const first = await run(mode, { model, tools, stopWhen: stepCountIs(5), messages });
  messages = [...messages, ...first];
  const requests = approvalRequests(first);
  messages = [...messages, approvalResponse(requests, decisions)];
  const second = await run(mode, { model, tools, stopWhen: stepCountIs(5), messages });
  // Step 0's response messages start with the tool message the AI SDK wrote before calling the model.
  assert.equal(second[0].role, "tool", "the approved / denied results come first in response.messages");
  messages = [...messages, ...second];
  return { model, ran, requests, messages };
}

/** The same with stategate: the agent spread into each call, the decision after agent.messages. */
async function withStategate(mode, { turns, decisions }, runId) {
  const { tools, ran } = makeTools();
  const model = scripted(turns);
  const store = new StateStore({ runId });
  const a1 = stategateAgent(store, OPTS);
  const first = await run(mode, { model, tools, stopWhen: stepCountIs(5), ...a1, messages: [...a1.messages, { role: "user", content: ASK }] });
  assert.doesNotThrow(() => a1.assertRecorded(), "call 1 recorded");
  const requests = approvalRequests(first);
  // Before the decision: the request is kept on its call; the call has no result yet.
  for (const { approvalId, toolCallId } of requests) {
    assert.equal(storedCall(store, toolCallId)?.approval?.id, approvalId, `after call 1 the store keeps approval ${approvalId} on call ${toolCallId}`);
    assert.equal(resultsFor(store, toolCallId).length, 0, `after call 1, call ${toolCallId} (awaiting approval) has no result`);
  }
  const a2 = stategateAgent(store, OPTS);
  await run(mode, { model, tools, stopWhen: stepCountIs(5), ...a2, messages: [...a2.messages, approvalResponse(requests, decisions)] });
  assert.doesNotThrow(() => a2.assertRecorded(), "call 2 recorded");
  return { model, ran, requests, store };
}

/**
 * A scenario: both runs; the same prompts at every model call (the last one also written out, so
 * a change of the AI SDK's own flow shows), the same tool executions, the store as described,
 * valid for OpenAI and Anthropic. (The store's history is not compared message by message with
 * the app's array: how approval responses and results are grouped into tool messages is free, as
 * the AI SDK merges consecutive tool messages before the model sees them.)
 */
async function scenario(mode, sc, runId) {
  const a = await alone(mode, sc);
  assert.equal(a.requests.length, Object.keys(sc.decisions).length, "the AI SDK asked one approval per pay call");
  assert.deepEqual(a.model.prompts.at(-1), sc.lastPrompt, "the AI SDK alone: the prompt after the decision");
  const s = await withStategate(mode, sc, runId);
  assert.equal(s.model.prompts.length, a.model.prompts.length, "as many model calls with stategate as without");
  s.model.prompts.forEach((p, k) => assert.deepEqual(p, a.model.prompts[k], `model call ${k + 1}: the prompt with stategate is the AI SDK's own`));
  assert.deepEqual(s.ran, a.ran, "the same tools ran, once each");
  assertStored(s.store, { results: sc.results, requests: s.requests, decisions: sc.decisions, roles: sc.roles, reply: sc.reply });
  assertValid(s.store);
}

// --- scenarios a–e (generateText), g (the same with streamText) -------------------------------------

const PAY_BOB = pay("p1", "Bob", 5);
const SCENARIOS = {
  "(a) one call approved: the tool runs before the model is called, the model sees its result": {
    turns: [[PAY_BOB], [text("Done: Bob has his 5 EUR.")]],
    decisions: { p1: { approved: true } },
    lastPrompt: [P.user(ASK), P.calls(PAY_BOB), P.tool(P.result("p1", "pay", { type: "text", value: "Paid 5 EUR to Bob." }))],
    results: { p1: ["success", "Paid 5 EUR to Bob."] },
    roles: ["user", "assistant", "tool", "assistant"],
    reply: "Done: Bob has his 5 EUR.",
  },
  "(b) one call denied with a reason: the model sees the denial and its reason": {
    turns: [[PAY_BOB], [text("Understood, I did not pay Bob.")]],
    decisions: { p1: { approved: false, reason: "Bob was paid yesterday." } },
    lastPrompt: [P.user(ASK), P.calls(PAY_BOB), P.tool(P.result("p1", "pay", { type: "execution-denied", reason: "Bob was paid yesterday." }))],
    results: { p1: ["error", "Bob was paid yesterday."] },
    roles: ["user", "assistant", "tool", "assistant"],
    reply: "Understood, I did not pay Bob.",
  },
  "(c) one call denied without a reason": {
    turns: [[PAY_BOB], [text("Understood, no payment.")]],
    decisions: { p1: { approved: false } },
    lastPrompt: [P.user(ASK), P.calls(PAY_BOB), P.tool(P.result("p1", "pay", { type: "execution-denied" }))],
    results: { p1: ["error", "Tool call execution denied."] },
    roles: ["user", "assistant", "tool", "assistant"],
    reply: "Understood, no payment.",
  },
  "(d) two parallel calls of the approval tool, one approved, one denied": {
    turns: [[PAY_BOB, pay("p2", "Eve", 500)], [text("Paid Bob; Eve was not paid.")]],
    decisions: { p1: { approved: true }, p2: { approved: false, reason: "Not Eve." } },
    lastPrompt: [
      P.user(ASK),
      P.calls(PAY_BOB, pay("p2", "Eve", 500)),
      P.tool(P.result("p1", "pay", { type: "text", value: "Paid 5 EUR to Bob." }), P.result("p2", "pay", { type: "execution-denied", reason: "Not Eve." })),
    ],
    results: { p1: ["success", "Paid 5 EUR to Bob."], p2: ["error", "Not Eve."] },
    roles: ["user", "assistant", "tool", "tool", "assistant"],
    reply: "Paid Bob; Eve was not paid.",
  },
  "(e) an auto-run tool and an approval tool in the same step: the first runs at once, the second after approval": {
    turns: [[call("w1", "weather", { city: "Paris" }), PAY_BOB], [text("18°C in Paris, and Bob is paid.")]],
    decisions: { p1: { approved: true } },
    lastPrompt: [
      P.user(ASK),
      P.calls(call("w1", "weather", { city: "Paris" }), PAY_BOB),
      // The weather result (call 1's response) and the payment (run before call 2's step 0), merged by the AI SDK.
      P.tool(P.result("w1", "weather", { type: "json", value: { city: "Paris", temp: "18°C" } }), P.result("p1", "pay", { type: "text", value: "Paid 5 EUR to Bob." })),
    ],
    results: { w1: ["success", '{"city":"Paris","temp":"18°C"}'], p1: ["success", "Paid 5 EUR to Bob."] },
    roles: ["user", "assistant", "tool", "tool", "assistant"],
    reply: "18°C in Paris, and Bob is paid.",
  },
};

for (const [name, sc] of Object.entries(SCENARIOS)) {
  test(`${name} [generateText]`, () => scenario("generateText", sc, name[1]));
}
for (const [name, sc] of Object.entries(SCENARIOS)) {
  test(`(g) ${name} [streamText]`, () => scenario("streamText", sc, `g${name[1]}`));
}

// --- f: the approval ignored ------------------------------------------------------------------------

test("(f) the pending approval ignored, a new user message sent: the AI SDK alone refuses to call the model; stategate answers the call first (stategate does better)", async () => {
  const NEXT = "Never mind. What is the weather in Paris?";
  const turns = [[PAY_BOB], [text("It is 18°C in Paris.")]];

  // The AI SDK alone: the call awaiting approval has no result before the new user message, and
  // convertToLanguageModelPrompt throws MissingToolResultsError: the model is never called.
  const { tools, ran } = makeTools();
  const model = scripted(turns);
  let messages = [{ role: "user", content: ASK }];
  messages = [...messages, ...(await generateText({ model, tools, stopWhen: stepCountIs(5), messages })).response.messages];
  assert.equal(approvalRequests(messages).length, 1);
  await assert.rejects(
    generateText({ model, tools, stopWhen: stepCountIs(5), messages: [...messages, { role: "user", content: NEXT }] }),
    (e) => e.name === "AI_MissingToolResultsError" && /p1/.test(e.message),
  );
  assert.equal(model.prompts.length, 1, "the AI SDK alone sends no prompt after the ignored approval");
  assert.deepEqual(ran, []);

  // stategate: the pending call is answered (an error result naming it: the approval was not
  // given) before the new user message, in the store and in what the model receives.
  const s = makeTools();
  const sModel = scripted(turns);
  const store = new StateStore({ runId: "f" });
  const a1 = stategateAgent(store, OPTS);
  const first = await generateText({ model: sModel, tools: s.tools, stopWhen: stepCountIs(5), ...a1, messages: [...a1.messages, { role: "user", content: ASK }] });
  assert.doesNotThrow(() => a1.assertRecorded());
  const [request] = approvalRequests(first.response.messages);
  assert.equal(storedCall(store, "p1")?.approval?.id, request.approvalId);
  const a2 = stategateAgent(store, OPTS);
  const second = await generateText({ model: sModel, tools: s.tools, stopWhen: stepCountIs(5), ...a2, messages: [...a2.messages, { role: "user", content: NEXT }] });
  assert.doesNotThrow(() => a2.assertRecorded());
  assert.equal(second.text, "It is 18°C in Paris.");
  assert.deepEqual(s.ran, [], "the tool never ran");

  assert.equal(sModel.prompts.length, 2);
  assert.deepEqual(sModel.prompts[0], model.prompts[0], "call 1: the prompt with stategate is the AI SDK's own");
  const prompt = sModel.prompts[1];
  assert.deepEqual(prompt.map((m) => m.role), ["user", "assistant", "tool", "user"], JSON.stringify(prompt));
  assert.deepEqual(prompt[0], P.user(ASK));
  assert.deepEqual(prompt[1], P.calls(PAY_BOB));
  assert.deepEqual(prompt[3], P.user(NEXT));
  assert.equal(prompt[2].content.length, 1);
  const [answer] = prompt[2].content;
  assert.deepEqual([answer.type, answer.toolCallId, answer.toolName], ["tool-result", "p1", "pay"]);
  assert.ok(["error-text", "execution-denied"].includes(answer.output.type), `an error (or denial) output, got ${JSON.stringify(answer.output)}`);
  const said = answer.output.value ?? answer.output.reason ?? "";
  assert.match(said, /p1/, "the answer names the call id");
  assert.match(said, /approv/i, "the answer says the approval was not given");
  assert.match(said, /\bnot\b|\bnever\b|\bno\b/i, "the answer says the approval was not given");

  // The store: one error result for p1, after its call and before the new user message; no decision.
  const stored = store.get("messages");
  const [result] = resultsFor(store, "p1");
  assert.equal(resultsFor(store, "p1").length, 1);
  assert.equal(result.status, "error");
  assert.match(textOf(result.content), /p1/);
  assert.match(textOf(result.content), /approv/i);
  const resultAt = stored.findIndex((m) => m.role === "tool" && m.tool_call_id === "p1"); // store.get gives new objects each time
  const callAt = stored.findIndex((m) => (m.tool_calls ?? []).some((c) => c.id === "p1"));
  const nextAt = stored.findIndex((m) => m.role === "user" && textOf(m.content) === NEXT);
  assert.ok(callAt < resultAt && resultAt < nextAt, `the result goes between the call (${callAt}) and the new user message (${nextAt}), got ${resultAt}`);
  assert.equal(decisionsIn(store).length, 0, "no decision was made");
  assert.deepEqual(stored.filter((m) => m.approval == null).map((m) => m.role), ["user", "assistant", "tool", "user", "assistant"]);
  assert.equal(textOf(stored.at(-1).content), "It is 18°C in Paris.");
  assertValid(store);
});

// --- h, i: useChat state serialised mid-approval, resumed in a new store --------------------------

/**
 * A useChat round trip: round 1 on a store (the approval request), its UIMessages serialised,
 * recorded into a NEW store, the approval decided there (`approval-responded`), the server call;
 * and the AI SDK alone given `convertToModelMessages` of the same UIMessages.
 */
async function useChatRoundTrip(approval, reply, runId) {
  const { tools, ran } = makeTools();
  const model = scripted([[PAY_BOB], [text(reply)]]);
  const store = new StateStore({ runId });
  fromUIMessages(store, [{ id: "u1", role: "user", parts: [{ type: "text", text: ASK }] }]);
  const a1 = stategateAgent(store, OPTS);
  const first = await run("streamText", { model, tools, stopWhen: stepCountIs(5), ...a1 });
  assert.doesNotThrow(() => a1.assertRecorded());
  const [request] = approvalRequests(first);
  assert.ok(request, "the AI SDK asked for an approval");

  // The store as useChat state, through JSON (what the browser holds).
  const ui = JSON.parse(JSON.stringify(toUIMessages(store)));
  const last = ui.at(-1);
  assert.equal(last.role, "assistant");
  const part = last.parts.find((p) => p.toolCallId === "p1");
  assert.ok(part, `the last assistant UIMessage has the tool part: ${JSON.stringify(last)}`);
  assert.equal(part.type, "tool-pay");
  assert.equal(part.state, "approval-requested");
  assert.deepEqual(part.approval, { id: request.approvalId });

  // A new store (another server process): the state, then the user's decision (addToolApprovalResponse).
  const store2 = new StateStore({ runId: `${runId}2` });
  fromUIMessages(store2, ui);
  part.state = "approval-responded";
  part.approval = { id: request.approvalId, ...approval };
  const applied = fromUIMessages(store2, ui);
  assert.equal(applied.added.length, 1, `fromUIMessages adds one message, the decision: ${JSON.stringify(applied)}`);
  assert.equal(decisionsIn(store2).length, 1);
  assert.equal(resultsFor(store2, "p1").length, 0, "the decision is not a result");

  // The server call, with stategate.
  const a2 = stategateAgent(store2, OPTS);
  await run("streamText", { model, tools, stopWhen: stepCountIs(5), ...a2 });
  assert.doesNotThrow(() => a2.assertRecorded());

  // The AI SDK alone, given the same UIMessages.
  const alone = makeTools();
  const aloneModel = scripted([[text(reply)]]);
  await run("streamText", { model: aloneModel, tools: alone.tools, stopWhen: stepCountIs(5), messages: await convertToModelMessages(ui) });
  assert.equal(model.prompts.length, 2);
  assert.deepEqual(model.prompts[1], aloneModel.prompts[0], "the server call's prompt with stategate is the AI SDK's own (from convertToModelMessages)");
  assert.deepEqual(ran, alone.ran, "the same tools ran");

  const after = toUIMessages(store2);
  await validateUIMessages({ messages: after });
  const parts = after.flatMap((m) => m.parts).filter((p) => p.toolCallId === "p1");
  assert.equal(parts.length, 1, `one tool part for p1 in the resumed store's UIMessages: ${JSON.stringify(after)}`);
  return { store2, request, prompt: model.prompts[1], part: parts[0], ran };
}

test("(h) useChat: serialised mid-approval, approved in a new store: the tool runs, the model sees its result, the part is output-available", async () => {
  const { store2, request, prompt, part, ran } = await useChatRoundTrip({ approved: true }, "Paid.", "h");
  assert.deepEqual(ran, ["pay Bob 5"]);
  assert.deepEqual(prompt, [P.user(ASK), P.calls(PAY_BOB), P.tool(P.result("p1", "pay", { type: "text", value: "Paid 5 EUR to Bob." }))]);
  assert.equal(part.state, "output-available");
  assert.deepEqual(part.approval, { id: request.approvalId, approved: true });
  assert.equal(part.output, "Paid 5 EUR to Bob.");
  assertStored(store2, {
    results: { p1: ["success", "Paid 5 EUR to Bob."] },
    requests: [request],
    decisions: { p1: { approved: true } },
    roles: ["user", "assistant", "tool", "assistant"],
    reply: "Paid.",
  });
  assertValid(store2);
});

test("(i) useChat: serialised mid-approval, denied in a new store: the model sees the denial, the part is output-denied", async () => {
  const { store2, request, prompt, part, ran } = await useChatRoundTrip({ approved: false, reason: "Not today." }, "OK, not paid.", "i");
  assert.deepEqual(ran, []);
  assert.deepEqual(prompt, [P.user(ASK), P.calls(PAY_BOB), P.tool(P.result("p1", "pay", { type: "execution-denied", reason: "Not today." }))]);
  assert.equal(part.state, "output-denied");
  assert.deepEqual(part.approval, { id: request.approvalId, approved: false, reason: "Not today." });
  assertStored(store2, {
    results: { p1: ["error", "Not today."] },
    requests: [request],
    decisions: { p1: { approved: false, reason: "Not today." } },
    roles: ["user", "assistant", "tool", "assistant"],
    reply: "OK, not paid.",
  });
  assertValid(store2);
});

// --- j: the decision through the store's own API -------------------------------------------------------

test("(j) store.decide records the decision (the approvals channel follows), and generateText with the agent alone runs the tool", async () => {
  const turns = [[pay("p1", "Bob", 5)], [text("Done: Bob is paid.")]];
  // The AI SDK alone, for the prompts.
  const { tools, ran } = makeTools();
  const model = scripted(turns);
  let messages = [{ role: "user", content: ASK }];
  messages = [...messages, ...(await generateText({ model, tools, stopWhen: stepCountIs(5), messages })).response.messages];
  const [request] = messages.at(-1).content.filter((p) => p.type === "tool-approval-request");
  messages.push({ role: "tool", content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: true }] });
  await generateText({ model, tools, stopWhen: stepCountIs(5), messages });
  assert.deepEqual(ran, ["pay Bob 5"]);

  const s = makeTools();
  const sModel = scripted(turns);
  const store = new StateStore({ runId: "j" });
  store.apply({ author: "app", update: { run: { status: "running" }, messages: [{ role: "user", content: ASK }] } });
  const first = await generateText({ model: sModel, tools: s.tools, stopWhen: stepCountIs(5), ...stategateAgent(store, OPTS) });
  const [asked] = first.response.messages.at(-1).content.filter((p) => p.type === "tool-approval-request");
  assert.deepEqual(store.approvals(), { [asked.approvalId]: { tool_call_id: "p1", status: "pending" } });
  assert.equal(store.get("run").status, "waiting_approval");
  assert.throws(() => store.decide({ approvalId: "nope", approved: true, author: "alice" }), (e) => e.code === "UNKNOWN_TOOL_CALL");
  assert.throws(() => store.decide({ approvalId: asked.approvalId, approve: true, author: "alice" }), (e) => e.code === "INVALID_OPTION");
  store.decide({ approvalId: asked.approvalId, approved: true, author: "alice" });
  const record = store.approvals()[asked.approvalId];
  assert.deepEqual([record.status, record.decided_by, typeof record.decided_at], ["approved", "alice", "number"]);
  assert.equal(store.get("run").status, "running");
  assert.throws(() => store.decide({ approvalId: asked.approvalId, approved: false, author: "bob" }), (e) => e.code === "INVALID_TRANSITION");

  const agent = stategateAgent(store, OPTS);
  const second = await generateText({ model: sModel, tools: s.tools, stopWhen: stepCountIs(5), ...agent });
  agent.assertRecorded();
  assert.equal(second.text, "Done: Bob is paid.");
  assert.deepEqual(s.ran, ["pay Bob 5"]);
  assert.deepEqual(sModel.prompts, model.prompts, "the model requests are the AI SDK's own");
  for (const provider of ["openai", "anthropic"]) assert.deepEqual(validateMessages(store.messages(provider), { provider }), []);
});

// --- f2: the policy for an approval the user typed past ------------------------------------------------

test("(f2) onPendingApproval: \"deny\" answers the pending call with its denial, \"error\" refuses to call the model", async () => {
  const NEXT = "Never mind. What is the weather in Paris?";
  const setup = async (runId) => {
    const s = makeTools();
    const model = scripted([[pay("p1", "Bob", 5)], [text("It is 18°C in Paris.")]]);
    const store = new StateStore({ runId });
    const a1 = stategateAgent(store, OPTS);
    await generateText({ model, tools: s.tools, stopWhen: stepCountIs(5), ...a1, messages: [...a1.messages, { role: "user", content: ASK }] });
    return { s, model, store };
  };
  const denied = await setup("f2-deny");
  const a2 = stategateAgent(denied.store, { ...OPTS, onPendingApproval: "deny" });
  await generateText({ model: denied.model, tools: denied.s.tools, stopWhen: stepCountIs(5), ...a2, messages: [...a2.messages, { role: "user", content: NEXT }] });
  a2.assertRecorded();
  const [answer] = denied.model.prompts[1][2].content;
  assert.deepEqual([answer.toolCallId, answer.output], ["p1", { type: "error-text", value: "Tool call execution denied." }]);
  assert.deepEqual(denied.s.ran, []);

  const refused = await setup("f2-error");
  const a3 = stategateAgent(refused.store, { ...OPTS, onPendingApproval: "error" });
  const before = refused.store.version;
  await assert.rejects(
    generateText({ model: refused.model, tools: refused.s.tools, stopWhen: stepCountIs(5), ...a3, messages: [...a3.messages, { role: "user", content: NEXT }] }),
    (e) => e.code === "APPROVAL_PENDING" && /p1/.test(e.message),
  );
  assert.equal(refused.model.prompts.length, 1, "the model is not called");
  assert.ok(refused.store.version > before, "the new user message is recorded; nothing answers the pending call");
  assert.equal(resultsFor(refused.store, "p1").length, 0);
  assert.throws(() => stategateAgent(refused.store, { onPendingApproval: "ask" }), (e) => e.code === "INVALID_OPTION" && e.details.field === "onPendingApproval");
});
