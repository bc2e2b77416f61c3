// The stream readers against the real packages: an AI SDK UIMessageChunk stream assembles into
// the UIMessages `readUIMessageStream` of `ai` 6.0.325 builds from the same chunks (the recorded
// human-in-the-loop stream and generated ones: text, reasoning, parallel tool calls, a tool
// error, an approval), cut anywhere; a LangGraph `streamMode: "messages"` recording assembles
// into the text and tool calls `AIMessageChunk.concat` of @langchain/core 1.4.0 gives; both
// reports name the calls the stream left unanswered, and repair answers them.
//
// Run: node --test tests/js/stream.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readUIMessageStream } from "ai";
import { AIMessageChunk } from "@langchain/core/messages";
import { StreamReader, readStream, readTranscript, repairMessages, validateMessages } from "../../pkg/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const fixture = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, "tests/fixtures/transcripts", name), "utf8"));
const UI = fixture("aisdk-uistream-langgraph-hitl-interrupt.json");
const LG = fixture("langgraph-lc-stream-supervisor.json");

/** The last UIMessage `readUIMessageStream` of the `ai` package assembles from `chunks`, as JSON. */
async function theirs(chunks) {
  const stream = new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  let last;
  for await (const m of readUIMessageStream({ stream })) last = m;
  const out = JSON.parse(JSON.stringify(last));
  if (out.id === "") delete out.id; // the AI SDK's placeholder when `start` names no message
  return out;
}

/** Generated UIMessageChunk streams of the kinds the issue lists. */
function generated() {
  const text = (id, ...parts) => [{ type: "text-start", id }, ...parts.map((delta) => ({ type: "text-delta", id, delta })), { type: "text-end", id }];
  const reasoning = (id, ...parts) => [{ type: "reasoning-start", id }, ...parts.map((delta) => ({ type: "reasoning-delta", id, delta })), { type: "reasoning-end", id }];
  const call = (toolCallId, toolName, json) => [
    { type: "tool-input-start", toolCallId, toolName },
    ...[json.slice(0, 5), json.slice(5)].map((inputTextDelta) => ({ type: "tool-input-delta", toolCallId, inputTextDelta })),
    { type: "tool-input-available", toolCallId, toolName, input: JSON.parse(json) },
  ];
  return {
    text: [{ type: "start", messageId: "m1" }, { type: "start-step" }, ...text("t1", "Hel", "lo, ", "world."), { type: "finish-step" }, { type: "finish", finishReason: "stop" }],
    reasoning: [{ type: "start", messageId: "m2" }, { type: "start-step" }, ...reasoning("r1", "Think", "ing."), ...text("t1", "Done."), { type: "finish-step" }, { type: "finish" }],
    parallel: [
      { type: "start", messageId: "m3" },
      { type: "start-step" },
      ...call("c1", "weather", '{"city":"Paris"}'),
      ...call("c2", "time", '{"tz":"CET"}'),
      { type: "tool-output-available", toolCallId: "c1", output: { tempC: 21 } },
      { type: "tool-output-available", toolCallId: "c2", output: "12:00" },
      { type: "finish-step" },
      { type: "start-step" },
      ...text("t2", "21°C at noon."),
      { type: "finish-step" },
      { type: "finish" },
    ],
    error: [{ type: "start", messageId: "m4" }, { type: "start-step" }, ...call("c3", "search", '{"q":"news"}'), { type: "tool-output-error", toolCallId: "c3", errorText: "feed down" }, { type: "finish-step" }, { type: "finish" }],
    approval: [{ type: "start", messageId: "m5" }, { type: "start-step" }, ...call("c4", "delete", '{"path":"a.txt"}'), { type: "tool-approval-request", approvalId: "ap1", toolCallId: "c4" }, { type: "finish-step" }, { type: "finish" }],
  };
}

/** The same stream with every text, reasoning and input delta cut again at `seed`-chosen points. */
function rechunk(chunks, seed) {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  return chunks.flatMap((c) => {
    const key = c.type === "tool-input-delta" ? "inputTextDelta" : c.type?.endsWith("-delta") ? "delta" : null;
    const text = key && c[key];
    if (!text || text.length < 2) return [c];
    const at = 1 + Math.floor(rand() * (text.length - 1));
    return [{ ...c, [key]: text.slice(0, at) }, { ...c, [key]: text.slice(at) }];
  });
}

test("the recorded UI stream assembles as readUIMessageStream does and reports the unanswered approval", async () => {
  const { messages, report } = readStream(UI, { format: "ui-stream" });
  assert.equal(messages.length, 1);
  // The recording's `start` names no message: the AI SDK writes id "", a UIMessage stategate
  // writes without an id gets its position.
  assert.deepEqual(messages[0], { ...(await theirs(UI)), id: "msg-0" });
  const tool = messages[0].parts.find((p) => p.type === "dynamic-tool" || p.type?.startsWith("tool-"));
  assert.equal(tool.state, "approval-requested");
  assert.deepEqual(report.dangling.map((d) => [d.id, d.name]), [[tool.toolCallId, "delete_file"]]);
  assert.deepEqual(report.pendingApprovals.map((a) => a.toolCallId), [tool.toolCallId]);
  assert.equal(report.end, "finish");
  // The call waits for its approval at the end of the history: repair leaves it alone (the run
  // is paused, not broken), whatever the report's reasons, and validation names it.
  const repaired = repairMessages(messages, { provider: "openai", reasons: report.reasons });
  assert.deepEqual(repaired.report, []);
  assert.deepEqual(validateMessages(repaired.messages, { provider: "openai" }).map((v) => [v.rule, v.toolCallId]), [["APPROVAL_PENDING", tool.toolCallId]]);
  // readTranscript reads the recording too.
  const t = readTranscript(JSON.stringify(UI), { format: "ui" });
  assert.equal(t.kind, "ui-stream");
  assert.deepEqual(t.runs[0], messages);
});

test("generated UI streams, cut anywhere, assemble as readUIMessageStream does", async () => {
  for (const [name, chunks] of Object.entries(generated())) {
    const want = await theirs(chunks);
    for (const seed of [0, 1, 2, 3]) {
      const input = seed === 0 ? chunks : rechunk(chunks, seed);
      const reader = new StreamReader({ format: "ui-stream" });
      for (const c of input) reader.push(c);
      const { messages } = reader.end();
      reader.free();
      assert.deepEqual(messages, [want], `${name}, cut ${seed}`);
    }
  }
  const approval = readStream(generated().approval, { format: "ui-stream" });
  assert.deepEqual(approval.report.pendingApprovals.map((a) => [a.approvalId, a.toolCallId]), [["ap1", "c4"]]);
  assert.deepEqual(approval.report.dangling.map((d) => d.id), ["c4"]);
});

test("the LangGraph messages recording merges as AIMessageChunk.concat does; both handoffs dangle", () => {
  const { messages, report } = readStream(LG, { format: "langgraph-messages" });
  // The reference: concat each message's chunks with @langchain/core itself.
  const byId = new Map();
  for (const [, [chunk]] of LG) {
    const k = chunk.kwargs ?? chunk;
    const c = new AIMessageChunk({ content: k.content, id: k.id, tool_call_chunks: k.tool_call_chunks ?? [] });
    byId.set(k.id, byId.has(k.id) ? byId.get(k.id).concat(c) : c);
  }
  const ais = messages.filter((m) => m.type === "ai");
  assert.equal(ais.length, byId.size);
  for (const m of ais) {
    const ref = byId.get(m.id);
    assert.equal(m.content, ref.content, m.id);
    assert.deepEqual(m.tool_calls?.map((c) => [c.id, c.name, c.args]) ?? [], ref.tool_calls.map((c) => [c.id, c.name, c.args]), m.id);
  }
  const handoffs = report.dangling.map((d) => d.name);
  assert.deepEqual(handoffs.sort(), ["transfer_to_math_expert", "transfer_to_research_team"]);
  const repaired = repairMessages(messages, { provider: "openai", reasons: report.reasons });
  assert.deepEqual(validateMessages(repaired.messages, { provider: "openai" }), []);
});

test("streams are refused, never guessed: an unknown chunk, a delta never started, the other format", () => {
  assert.throws(() => readStream([{ type: "start" }, { type: "text-delta", id: "x", delta: "a" }], { format: "ui-stream" }), (e) => e.code === "INVALID_MESSAGE" && e.details.index === 1);
  assert.throws(() => readStream([{ type: "start" }, { type: "text-wiggle", id: "x" }], { format: "ui-stream" }), (e) => e.code === "INVALID_MESSAGE" && /text-wiggle/.test(e.message));
  assert.throws(() => readStream(LG, { format: "ui-stream" }), (e) => e.code === "INVALID_MESSAGE" && e.details.index === 0);
  assert.throws(() => readStream(UI, { format: "langgraph-messages" }), (e) => e.code === "INVALID_MESSAGE");
  assert.throws(() => readStream(UI, { format: "sse" }), (e) => e.code === "INVALID_OPTION");
});
