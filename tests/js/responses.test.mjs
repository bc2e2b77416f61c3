// The Responses API and OpenAI Agents SDK item formats ("responses", "openai-agents") through the
// package, on items made by the real @openai/agents 0.20: an agent runs offline against a scripted
// OpenAI client (responses.create answers with fixed Responses API output items), so
// `result.history` is exactly what the SDK keeps, and the `input` it sends is exactly what it
// makes of those items for the Responses API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, run, tool, setTracingDisabled, OpenAIResponsesModel } from "@openai/agents";
import { validateMessages, repairMessages, convertMessages, projectMessages, decodeMessages, StateStore } from "../../pkg/index.js";

setTracingDisabled(true);

/** A scripted OpenAI client: each responses.create answers with the next output list and records its input. */
function scriptedClient(outputs) {
  const inputs = [];
  const client = {
    responses: {
      create(req) {
        inputs.push(structuredClone(req.input));
        const output = outputs[inputs.length - 1] ?? [{ type: "message", id: `msg_end${inputs.length}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: "done", annotations: [] }] }];
        return Promise.resolve({ id: `resp_${inputs.length}`, object: "response", output, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } });
      },
    },
  };
  return { client, inputs };
}

// The items as JSON (what a Session or RunState stores): the SDK's objects hold some keys set to
// `undefined` (`output` of a hosted call), which JSON, and so stategate, has no way to hold.
const json = (v) => JSON.parse(JSON.stringify(v));

const params = (props) => ({ type: "object", properties: props, required: Object.keys(props), additionalProperties: false });

function agentWith(client) {
  const weather = tool({ name: "weather", description: "weather in a city", parameters: params({ city: { type: "string" } }), strict: true, execute: async ({ city }) => `sunny in ${city}` });
  const time = tool({ name: "time", description: "the time", parameters: params({}), strict: true, execute: async () => "noon" });
  return new Agent({ name: "a", instructions: "be brief", model: new OpenAIResponsesModel(client, "gpt-test"), tools: [weather, time] });
}

// Turn 1: reasoning with encrypted content and two parallel calls; turn 2: a hosted web search and the answer.
const OUTPUTS = [
  [
    { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Need weather and time." }], encrypted_content: "gAAAAenc1" },
    { type: "function_call", id: "fc_1", call_id: "call_w", name: "weather", arguments: '{"city":"Paris"}', status: "completed" },
    { type: "function_call", id: "fc_2", call_id: "call_t", name: "time", arguments: "{}", status: "completed" },
  ],
  [
    { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "Paris events" } },
    { type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Sunny, 12:00.", annotations: [] }] },
  ],
];

async function realRun() {
  const { client, inputs } = scriptedClient(OUTPUTS);
  const result = await run(agentWith(client), "Weather and time in Paris?");
  return { history: result.history, inputs };
}

test("the SDK's own result.history validates, repairs to itself and round-trips", async () => {
  const { history } = await realRun();
  assert.deepEqual(history.map((i) => i.type), ["message", "reasoning", "function_call", "function_call", "function_call_result", "function_call_result", "hosted_tool_call", "message"]);
  assert.deepEqual(validateMessages(history, { provider: "openai" }), []);
  const { messages, report } = repairMessages(history, { provider: "openai" });
  assert.deepEqual(report, []);
  messages.forEach((m, i) => assert.equal(m, history[i], `item ${i} is the caller's own object`));
  assert.deepEqual(convertMessages(history, { to: "openai-agents" }), json(history), "exact round trip");
  const canonical = decodeMessages(history);
  assert.deepEqual(canonical.map((m) => m.origin), Array(8).fill("openai-agents"));
  assert.equal(canonical[2].tool_calls[0].id, "call_w");
  assert.deepEqual(canonical[2].tool_calls[0].args, { city: "Paris" });
  assert.equal(canonical[4].tool_call_id, "call_w");
});

test('convertMessages(history, {to: "responses"}) gives the input the SDK itself sends', async () => {
  const { history, inputs } = await realRun();
  const api = convertMessages(history, { to: "responses" });
  // The second request carried the first six items, converted by the SDK.
  assert.deepEqual(api.slice(0, 6), json(inputs[1]));
  assert.deepEqual(api[6], { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "Paris events" } });
  assert.equal(api[7].content[0].text, "Sunny, 12:00.");
  // The API's items read back as the same conversation, and go to the SDK's schema again.
  assert.deepEqual(validateMessages(api, { provider: "openai" }), []);
  const sdkAgain = convertMessages(api, { to: "openai-agents" });
  assert.equal(sdkAgain[4].type, "function_call_result");
  assert.equal(sdkAgain[4].callId, "call_w");
  // Into Chat: the [reasoning, call, call] turn is one assistant message with both calls.
  const chat = convertMessages(history, { to: "openai" });
  assert.deepEqual(chat.map((m) => m.role), ["user", "assistant", "tool", "tool", "assistant"]);
  assert.deepEqual(chat[1].tool_calls.map((c) => [c.id, c.function.name, c.function.arguments]), [["call_w", "weather", '{"city":"Paris"}'], ["call_t", "time", "{}"]]);
  assert.equal(chat[2].content, "sunny in Paris");
  assert.deepEqual(validateMessages(chat, { provider: "openai" }), []);
  // And from Chat (or any format) into items the Responses API takes.
  assert.deepEqual(convertMessages(chat, { to: "responses" }).slice(1, 5), [
    { type: "function_call", call_id: "call_w", name: "weather", arguments: '{"city":"Paris"}' },
    { type: "function_call", call_id: "call_t", name: "time", arguments: "{}" },
    { type: "function_call_output", call_id: "call_w", output: "sunny in Paris" },
    { type: "function_call_output", call_id: "call_t", output: "noon" },
  ]);
});

test("a dangling function_call is reported, answered in the SDK's schema, and the SDK runs on it", async () => {
  const { history } = await realRun();
  // Interrupted after the calls: no results.
  const cut = history.slice(0, 4);
  const violations = validateMessages(cut, { provider: "openai" });
  assert.deepEqual(violations.map((v) => [v.rule, v.index, v.toolCallId]), [["MISSING_TOOL_RESULT", 2, "call_w"], ["MISSING_TOOL_RESULT", 3, "call_t"]]);
  const { messages, report } = repairMessages(cut, { provider: "openai" });
  assert.deepEqual(report.map((f) => [f.kind, f.action, f.index, f.toolCallId]), [["missing_result", "inserted", 2, "call_w"], ["missing_result", "inserted", 3, "call_t"]]);
  assert.equal(messages.length, 6);
  assert.deepEqual(messages[4], { type: "function_call_result", callId: "call_w", name: "weather", status: "completed", output: messages[4].output });
  assert.match(messages[4].output, /Tool call weather with id call_w did not complete/);
  assert.deepEqual(validateMessages(messages, { provider: "openai" }), []);
  // The SDK takes the repaired history as input and sends the placeholders as outputs.
  const { client, inputs } = scriptedClient([]);
  const again = await run(agentWith(client), [...messages, { role: "user", content: "go on" }]);
  assert.equal(again.finalOutput, "done");
  assert.deepEqual(inputs[0].filter((i) => i.type === "function_call_output").map((i) => i.call_id), ["call_w", "call_t"]);
  // The same in the API's schema: a function_call_output placeholder.
  const api = convertMessages(cut, { to: "responses" });
  const fixed = repairMessages(api, { provider: "openai" }).messages;
  assert.deepEqual(fixed.slice(4).map((i) => [i.type, i.call_id]), [["function_call_output", "call_w"], ["function_call_output", "call_t"]]);
  // An output whose call is gone is an orphan.
  const orphan = validateMessages([history[0], history[4]], { provider: "openai" });
  assert.deepEqual(orphan.map((v) => [v.rule, v.index]), [["ORPHAN_TOOL_RESULT", 1]]);
});

test('projectMessages(…, {format: "responses"}) and a StateStore give items, with the report naming them', async () => {
  const { history } = await realRun();
  const { messages, report } = projectMessages(history, { budget: 8_000, format: "responses" });
  assert.deepEqual(messages.map((m) => m.type ?? "message"), ["message", "reasoning", "function_call", "function_call", "function_call_output", "function_call_output", "web_search_call", "message"]);
  assert.deepEqual(report.messages.map((m) => m.output), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(validateMessages(messages, { provider: "openai" }), []);
  const chat = projectMessages(history, { budget: 8_000, format: "openai" });
  assert.deepEqual(chat.report.messages.map((m) => m.output), [0, 1, 1, 1, 2, 3, 4, 4], "a turn's items share its one message");
  // A tight budget keeps whole units: the two calls stay with their results (or nothing of the
  // conversation fits, which is refused).
  assert.throws(() => projectMessages(history, { budget: 60, format: "openai-agents" }), (e) => e.code === "BUDGET_TOO_SMALL");
  const small = projectMessages(history, { budget: 200, format: "openai-agents" }).messages;
  const calls = small.filter((i) => i.type === "function_call").map((i) => i.callId);
  const results = small.filter((i) => i.type === "function_call_result").map((i) => i.callId);
  assert.deepEqual(calls, results);
  assert.ok(calls.length > 0, `the units kept at 200 tokens hold calls: ${JSON.stringify(small.map((i) => i.type ?? i.role))}`);

  const store = new StateStore({ runId: "run-resp" });
  store.apply({ author: "agent", update: { messages: history } });
  assert.deepEqual(store.messages("openai-agents"), json(history), "the store gives the items back as they came");
  const api = store.messages("responses");
  assert.equal(api.length, 8);
  assert.ok(api.every((i) => !String(i.id ?? "").startsWith("run-resp")), "ids the store assigned never reach the API");
  assert.deepEqual(api.slice(0, 6), convertMessages(history.slice(0, 6), { to: "responses" }));
  const view = store.modelView({ budget: 8_000, format: "responses" });
  assert.deepEqual(validateMessages(view.messages, { provider: "openai" }), []);
  store.free();
});

test("a near-miss item type is refused as a Responses item, not a LangChain role", () => {
  assert.throws(
    () => validateMessages([{ type: "function_cal", call_id: "c", name: "f", arguments: "{}" }], { provider: "openai" }),
    (e) => e.code === "INVALID_MESSAGE" && /"function_cal"/.test(e.message) && /Responses item/.test(e.message) && e.details.index === 0,
  );
  // What used to throw UNKNOWN_ROLE (a function_call read as a LangChain message) now reads.
  assert.deepEqual(validateMessages([{ type: "function_call", call_id: "c", name: "f", arguments: "{}" }, { type: "function_call_output", call_id: "c", output: "ok" }], { provider: "openai" }), []);
});

// --- against the AI SDK's own OpenAI Responses provider (@ai-sdk/openai 3, the `ai` 6 one) -----
// `generateText` with `openai.responses(...)` and a fetch that records the request: its `input`
// is exactly what the provider makes of AI SDK ModelMessages (`store: false`, so reasoning goes
// as items with their encrypted content, not as references).
async function aiSdkInput(messages) {
  const { generateText } = await import("ai");
  const { createOpenAI } = await import("@ai-sdk/openai");
  let body;
  const fetch = async (_url, init) => {
    body = JSON.parse(init.body);
    const output = [{ type: "message", id: "msg_out", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok", annotations: [] }] }];
    const usage = { input_tokens: 10, output_tokens: 1, total_tokens: 11, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };
    return new Response(JSON.stringify({ id: "resp_1", object: "response", created_at: 1_700_000_000, status: "completed", model: "gpt-5", output, usage }), { status: 200, headers: { "content-type": "application/json" } });
  };
  await generateText({ model: createOpenAI({ apiKey: "test", fetch }).responses("gpt-5"), messages, providerOptions: { openai: { store: false } } });
  return body.input;
}

/** An input item as what it says: a message's role and text (string or parts), else the item. */
function said(item) {
  if (item.role) {
    const text = typeof item.content === "string" ? item.content : item.content.map((p) => p.text).join("");
    return { role: item.role, text };
  }
  const { type, call_id, name, arguments: args, output, id, encrypted_content, summary } = item;
  return json({ type, call_id, name, arguments: args, output, id, encrypted_content, summary });
}

test("an AI SDK message's reasoning and calls go to Responses in the order the AI SDK's OpenAI provider sends them", async () => {
  // Reasoning, a call, text, reasoning, a call: each reasoning item led to the call after it.
  // Both reasoning items had been dropped (which call each led to was not kept).
  const oa = (itemId, more = {}) => ({ openai: { itemId, ...more } });
  const messages = [
    { role: "user", content: "go" },
    { role: "assistant", content: [
      { type: "reasoning", text: "a", providerOptions: oa("rs_a", { reasoningEncryptedContent: "EA" }) },
      { type: "tool-call", toolCallId: "c1", toolName: "f", input: {}, providerOptions: oa("fc_1") },
      { type: "text", text: "between", providerOptions: oa("msg_1") },
      { type: "reasoning", text: "b", providerOptions: oa("rs_b", { reasoningEncryptedContent: "EB" }) },
      { type: "tool-call", toolCallId: "c2", toolName: "g", input: { x: 1 }, providerOptions: oa("fc_2") },
    ] },
    { role: "tool", content: [
      { type: "tool-result", toolCallId: "c1", toolName: "f", output: { type: "text", value: "r1" } },
      { type: "tool-result", toolCallId: "c2", toolName: "g", output: { type: "text", value: "r2" } },
    ] },
  ];
  const theirs = await aiSdkInput(messages);
  const ours = convertMessages(messages, { to: "responses" });
  assert.deepEqual(ours.map(said), theirs.map(said));
  assert.deepEqual(ours.map((i) => i.type ?? i.role), ["user", "reasoning", "function_call", "assistant", "reasoning", "function_call", "function_call_output", "function_call_output"]);
  // Through a store and back to the AI SDK, the calls are still in their places.
  const store = new StateStore();
  store.apply({ author: "agent", update: { messages } });
  assert.deepEqual(store.messages("ai-sdk")[1], messages[1]);
  assert.deepEqual(store.messages("responses").map(said), theirs.map(said));
});

test("an AI SDK file id, JSON text input and inline PDF go to Responses as the AI SDK's OpenAI provider sends them", async () => {
  const messages = [
    { role: "user", content: [
      { type: "file", data: "file-abc123", mediaType: "application/pdf" },
      { type: "file", data: "JVBERi0xLjQK", mediaType: "application/pdf" },
    ] },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: '{"city":"Paris"}' }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "weather", output: { type: "text", value: "18C" } }] },
  ];
  const theirs = await aiSdkInput(messages);
  const ours = convertMessages(messages, { to: "responses" });
  // The file id as a file id (it had gone as base64 data), the inline PDF with a filename
  // (both APIs require one; the provider names it part-{index}.pdf), the input as its text.
  assert.deepEqual(ours[0].content[0], theirs[0].content[0]);
  assert.equal(ours[0].content[1].file_data, theirs[0].content[1].file_data);
  assert.ok(theirs[0].content[1].filename && ours[0].content[1].filename, JSON.stringify(ours[0]));
  assert.deepEqual(ours.slice(1).map(said), theirs.slice(1).map(said));
});

test("a tool result's image goes to the AI SDK as a content output its OpenAI provider sends on", async () => {
  const { modelMessageSchema } = await import("ai");
  // An Anthropic tool result with an image: it reached the AI SDK as text with "[image omitted]".
  const anthropic = [
    { role: "user", content: "chart?" },
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "chart", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [
      { type: "text", text: "the chart" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
    ] }] },
  ];
  const ai = convertMessages(anthropic, { to: "ai-sdk" });
  for (const m of ai) assert.ok(modelMessageSchema.safeParse(m).success, JSON.stringify(m));
  const theirs = await aiSdkInput(ai);
  const output = theirs.find((i) => i.type === "function_call_output").output;
  assert.ok(JSON.stringify(output).includes("iVBORw0KGgo="), JSON.stringify(output));
  // What the AI SDK's provider sends is what stategate writes for Responses from the same result.
  const ours = convertMessages(anthropic, { to: "responses" }).find((i) => i.type === "function_call_output").output;
  assert.deepEqual(ours.map((p) => p.type), output.map((p) => p.type));
  assert.equal(ours[1].image_url, output[1].image_url);
});
