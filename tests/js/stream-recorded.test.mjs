// Streams recorded from the real packages (issue 15, "Stream readers"): an AI SDK 6
// UIMessageChunk stream made by the real `streamText(...).toUIMessageStream()` over
// `MockLanguageModelV3`, and a LangGraph `streamMode: "messages"` stream made by a real
// `StateGraph` over `@langchain/core`'s `FakeStreamingChatModel` — text, reasoning, parallel
// tool calls, a tool error, an approval request, a model error. What stategate's reader
// assembles is checked against what each package assembles itself (the AI SDK's own
// `readUIMessageStream`; LangChain's own `AIMessageChunk.concat`), whole and pushed chunk by
// chunk, and for text deltas re-cut at random places.
//
// Run: node --test tests/js/stream-recorded.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { streamText, tool, stepCountIs, readUIMessageStream, jsonSchema } from "ai";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import { AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { StateGraph, MessagesAnnotation, START, END } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { tool as lcTool } from "@langchain/core/tools";
import { readStream, StreamReader, validateMessages, decodeMessages } from "../../pkg/index.js";
import { mulberry32 } from "../support/prng.mjs";

const usage = { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 7, text: 7, reasoning: 0 } };

/** A mock model that streams `steps[i]` (LanguageModelV3 stream parts) on its i-th call. */
function mockModel(steps) {
  let call = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      const parts = steps[Math.min(call++, steps.length - 1)];
      return { stream: simulateReadableStream({ chunks: [{ type: "stream-start", warnings: [] }, ...parts], initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
}

const finish = (reason) => ({ type: "finish", finishReason: { unified: reason, raw: reason }, usage });
const text = (id, ...deltas) => [{ type: "text-start", id }, ...deltas.map((delta) => ({ type: "text-delta", id, delta })), { type: "text-end", id }];
const reasoning = (id, ...deltas) => [{ type: "reasoning-start", id }, ...deltas.map((delta) => ({ type: "reasoning-delta", id, delta })), { type: "reasoning-end", id }];
const call = (toolCallId, toolName, input) => [
  { type: "tool-input-start", id: toolCallId, toolName },
  ...[input.slice(0, 5), input.slice(5)].map((delta) => ({ type: "tool-input-delta", id: toolCallId, delta })),
  { type: "tool-input-end", id: toolCallId },
  { type: "tool-call", toolCallId, toolName, input },
];

const weather = tool({ description: "Weather of a city", inputSchema: jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }), execute: async ({ city }) => ({ city, celsius: city === "Paris" ? 18 : 24 }) });
const broken = tool({ description: "Always fails", inputSchema: jsonSchema({ type: "object", properties: {} }), execute: async () => { throw new Error("disk full"); } });
const remove = tool({ description: "Delete a file", inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } } }), needsApproval: true, execute: async () => "deleted" });

/** The UIMessageChunks of a real streamText run, and the AI SDK's own final UIMessage of them. */
async function record(steps, tools, maxSteps = 3) {
  const result = streamText({ model: mockModel(steps), prompt: "Go.", tools, stopWhen: stepCountIs(maxSteps), onError: () => {} });
  const chunks = [];
  for await (const chunk of result.toUIMessageStream({ sendReasoning: true, onError: (e) => String(e?.message ?? e) })) chunks.push(chunk);
  let last;
  const stream = new ReadableStream({ start(c) { for (const k of chunks) c.enqueue(k); c.close(); } });
  for await (const message of readUIMessageStream({ stream, onError: () => {} })) last = message;
  return { chunks, sdk: last };
}

const SCENARIOS = {
  "text and reasoning": [[...reasoning("r1", "Let me ", "think."), ...text("t1", "Hello", ", ", "world."), finish("stop")]],
  "parallel tool calls, then text": [
    [...call("c1", "weather", '{"city":"Paris"}'), ...call("c2", "weather", '{"city":"Rome"}'), finish("tool-calls")],
    [...text("t2", "Paris 18°C, ", "Rome 24°C."), finish("stop")],
  ],
  "a tool error": [[...call("c3", "broken", "{}"), finish("tool-calls")], [...text("t3", "It failed."), finish("stop")]],
  "an approval request left pending": [[...text("t4", "Deleting."), ...call("c4", "remove", '{"path":"a.txt"}'), finish("tool-calls")]],
  "a model error mid-stream": [[...text("t5", "Half"), { type: "error", error: new Error("overloaded") }]],
};
const TOOLS = { weather, broken, remove };

/**
 * A UIMessage's parts as JSON (the SDK's in-memory parts hold keys set to `undefined`), without
 * what only the SDK's object has (provider metadata).
 */
const comparable = (parts) => JSON.parse(JSON.stringify(parts.map(({ providerMetadata, callProviderMetadata, ...p }) => p)));

for (const [name, steps] of Object.entries(SCENARIOS)) {
  test(`ui-stream recorded from streamText (${name}): the same message the AI SDK assembles`, async () => {
    const { chunks, sdk } = await record(steps, TOOLS);
    const whole = readStream(chunks, { format: "ui-stream" });
    assert.equal(whole.messages.length, 1, JSON.stringify(whole.messages).slice(0, 500));
    const [ours] = whole.messages;
    assert.equal(ours.role, "assistant");
    assert.deepEqual(comparable(ours.parts), comparable(sdk.parts), `${name}: parts`);
    // The stream names no messageId: the AI SDK's message id is "", a UIMessage needs one.
    assert.equal(sdk.id, "");
    assert.equal(ours.id, "msg-0");
    // Pushed one chunk at a time (reading the messages so far between pushes): the same.
    const reader = new StreamReader({ format: "ui-stream" });
    for (const chunk of chunks) {
      reader.push(chunk);
      reader.messages();
    }
    assert.deepEqual(reader.end(), whole);
    reader.free();
    // The report names what the stream left open.
    if (name.startsWith("an approval")) {
      assert.deepEqual(whole.report.pendingApprovals.map((a) => [a.toolCallId, a.name]), [["c4", "remove"]]);
      assert.deepEqual(whole.report.dangling, [{ id: "c4", name: "remove" }]);
      assert.deepEqual(whole.report.reasons, {}, "a call waiting for its approval was not interrupted");
    }
    if (name.startsWith("a model error")) assert.deepEqual([whole.report.end, whole.report.finishReason, whole.report.errorText], ["finish", "error", "overloaded"]);
    if (name.startsWith("parallel")) assert.deepEqual(validateMessages(readStream(chunks, { format: "ui-stream", to: "openai" }).messages, { provider: "openai" }), []);
  });
}

test("ui-stream: text deltas re-cut at random places assemble to the same message", async () => {
  const { chunks } = await record(SCENARIOS["parallel tool calls, then text"], TOOLS);
  const expected = readStream(chunks, { format: "ui-stream" });
  const rand = mulberry32(16);
  for (let round = 0; round < 50; round++) {
    const recut = [];
    for (const chunk of chunks) {
      if (chunk.type !== "text-delta" && chunk.type !== "tool-input-delta") {
        recut.push(chunk);
        continue;
      }
      const s = chunk.delta ?? chunk.inputTextDelta;
      const key = chunk.type === "text-delta" ? "delta" : "inputTextDelta";
      let at = 0;
      while (at < s.length) {
        const n = 1 + Math.floor(rand() * Math.max(1, s.length - at));
        recut.push({ ...chunk, [key]: s.slice(at, at + n) });
        at += n;
      }
    }
    const got = readStream(recut, { format: "ui-stream" });
    assert.deepEqual(got.messages, expected.messages, `round ${round}`);
    assert.deepEqual({ ...got.report, chunks: 0 }, { ...expected.report, chunks: 0 }, `round ${round}: report`);
  }
});

// ---------------------------------------------------------------------------------------------
// LangGraph streamMode "messages"

/**
 * A chat model that streams the AIMessageChunks it is given, as they are (`@langchain/core`'s
 * `FakeStreamingChatModel` rebuilds each chunk from its parsed `tool_calls`, which loses the
 * partial `tool_call_chunks` a real provider streams).
 */
class ScriptedStreamingModel extends BaseChatModel {
  constructor(turns) {
    super({});
    this.turns = turns;
    this.turn = 0;
  }
  _llmType() {
    return "scripted-streaming";
  }
  async *_streamResponseChunks(_messages, _options, runManager) {
    for (const message of this.turns[Math.min(this.turn++, this.turns.length - 1)]) {
      const chunk = new ChatGenerationChunk({ message: new AIMessageChunk({ ...message }), text: typeof message.content === "string" ? message.content : "" });
      yield chunk;
      await runManager?.handleLLMNewToken(chunk.text, undefined, undefined, undefined, undefined, { chunk });
    }
  }
  async _generate(messages, options, runManager) {
    let all;
    for await (const c of this._streamResponseChunks(messages, options, runManager)) all = all ? all.concat(c) : c;
    return { generations: [{ message: all.message, text: all.text }] };
  }
}

/** AIMessageChunks of a tool-calling turn: parallel calls, their args cut into pieces. */
function toolTurn(id) {
  const pieces = [
    ['{"ci', 'ty":"Paris"}'],
    ['{"city', '":"Rome"}'],
  ];
  const out = [];
  pieces.forEach((args, index) => {
    args.forEach((a, k) => out.push(new AIMessageChunk({ id, content: "", tool_call_chunks: [{ index, id: k === 0 ? `call_${index}` : undefined, name: k === 0 ? "weather" : undefined, args: a, type: "tool_call_chunk" }] })));
  });
  return out;
}

test("langgraph-messages recorded from a real StateGraph: the same messages LangChain assembles", async () => {
  const weatherTool = lcTool(async ({ city }) => (city === "Paris" ? "18°C" : "24°C"), { name: "weather", description: "Weather of a city", schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } });
  const turns = [toolTurn("run-1"), ["Paris 18°C, ", "Rome ", "24°C."].map((content) => new AIMessageChunk({ id: "run-2", content }))];
  const model = new ScriptedStreamingModel(turns.map((t) => t.map((c) => ({ id: c.id, content: c.content, tool_call_chunks: c.tool_call_chunks }))));
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", new ToolNode([weatherTool]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s) => (s.messages.at(-1).tool_calls?.length ? "tools" : END))
    .addEdge("tools", "agent")
    .compile();
  const chunks = [];
  let final;
  for await (const [mode, data] of await graph.stream({ messages: [new HumanMessage("Weather in Paris and Rome?")] }, { streamMode: ["messages", "values"] })) {
    if (mode === "messages") chunks.push(JSON.parse(JSON.stringify(data)));
    else final = data;
  }
  assert.ok(chunks.length >= 6, `only ${chunks.length} chunks`);
  const ours = readStream(chunks, { format: "langgraph-messages", to: "openai" });
  // LangChain's own final state: the graph's messages after the run (less the human input).
  const theirs = final.messages.slice(1).map((m) => ({ type: m._getType(), content: m.content, toolCalls: (m.tool_calls ?? []).map((c) => [c.id, c.name, c.args]), toolCallId: m.tool_call_id }));
  const mine = decodeMessages(ours.messages, { format: "openai" }).map((m) => ({ role: m.role, text: typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? "").join(""), toolCalls: (m.tool_calls ?? []).map((c) => [c.id, c.name, c.args]), toolCallId: m.tool_call_id }));
  assert.deepEqual(
    mine,
    theirs.map((m) => ({ role: { ai: "assistant", tool: "tool" }[m.type], text: typeof m.content === "string" ? m.content : "", toolCalls: m.toolCalls, toolCallId: m.toolCallId })),
  );
  assert.deepEqual(validateMessages(ours.messages, { provider: "openai" }), []);
  assert.deepEqual(ours.report.dangling, []);
});
