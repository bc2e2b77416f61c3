// Tool approvals in an AI SDK 6 agent loop on a StateStore (docs/adapters.md, `stategate/ai-sdk`):
// a tool that needs approval (`needsApproval`) is called; the store holds the call with its
// approval request and the run waits; the page reloads (UIMessages as JSON), the user approves
// one call in the browser state and denies the other through the store, and the next call runs
// the approved tool while the model is told the denial. Offline: the AI SDK's own mock model.
//
// Run: node examples/ai-sdk-approvals.mjs   (after `npm i stategate ai`)

import assert from "node:assert/strict";
import { generateText, stepCountIs, tool, jsonSchema } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { StateStore, validateMessages } from "stategate";
import { stategateAgent, toUIMessages, fromUIMessages } from "stategate/ai-sdk";

const ran = [];
const tools = {
  deleteFile: tool({
    description: "Delete a file (asks the user first)",
    inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }),
    needsApproval: true,
    execute: async ({ path }) => (ran.push(path), `deleted ${path}`),
  }),
};
const usage = { inputTokens: { total: 40 }, outputTokens: { total: 8 } };
const prompts = [];
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    prompts.push(prompt);
    if (prompts.length === 1) {
      const call = (id, path) => ({ type: "tool-call", toolCallId: id, toolName: "deleteFile", input: JSON.stringify({ path }) });
      return { content: [call("c1", "/tmp/cache"), call("c2", "/etc/hosts")], finishReason: { unified: "tool-calls" }, usage, warnings: [] };
    }
    return { content: [{ type: "text", text: "I deleted /tmp/cache; /etc/hosts stays." }], finishReason: { unified: "stop" }, usage, warnings: [] };
  },
});

const store = new StateStore({ runId: "cleanup" });
store.apply({ author: "user", update: { run: { status: "running" }, messages: [{ role: "user", content: "Delete /tmp/cache and /etc/hosts." }] } });

// 1. The model asks; nothing runs; the run waits for the two approvals.
await generateText({ model, tools, stopWhen: stepCountIs(5), ...stategateAgent(store, { budget: 8_000 }) });
const asked = Object.values(store.approvals()).map((a) => `${a.tool_call_id} ${a.status}`);
console.log(`asked: ${asked.join(", ")}; run ${store.get("run").status}`);

// 2. The page reloads: useChat state from the store shows both parts awaiting approval.
const ui = JSON.parse(JSON.stringify(toUIMessages(store)));
const parts = ui.flatMap((m) => m.parts).filter((p) => p.toolCallId);
console.log(`ui: ${parts.map((p) => `${p.toolCallId} ${p.state}`).join(", ")}`);

// 3. The user approves c1 in the browser (useChat's addToolApprovalResponse sets these fields) …
const c1 = parts.find((p) => p.toolCallId === "c1");
Object.assign(c1, { state: "approval-responded", approval: { ...c1.approval, approved: true } });
fromUIMessages(store, ui);
// … and an admin denies c2 through the store.
const c2 = Object.entries(store.approvals()).find(([, a]) => a.tool_call_id === "c2")[0];
store.decide({ approvalId: c2, approved: false, reason: "system files stay", author: "admin" });
console.log(`decided: ${Object.values(store.approvals()).map((a) => `${a.tool_call_id} ${a.status} by ${a.decided_by}`).join(", ")}; run ${store.get("run").status}`);

// 4. The next call runs the approved tool before the model is called; the model sees its result and the denial.
const agent = stategateAgent(store, { budget: 8_000 });
const { text } = await generateText({ model, tools, stopWhen: stepCountIs(5), ...agent });
agent.assertRecorded();
const told = prompts[1].filter((m) => m.role === "tool").flatMap((m) => m.content).map((r) => `${r.toolCallId}: ${r.output.value ?? r.output.reason}`);
console.log(`ran: ${ran.join(", ")}; the model was told ${told.join(" / ")}`);
console.log(`reply: ${text}`);
console.log(`ui: ${toUIMessages(store).flatMap((m) => m.parts).filter((p) => p.toolCallId).map((p) => `${p.toolCallId} ${p.state}`).join(", ")}`);

assert.deepEqual(ran, ["/tmp/cache"]);
for (const provider of ["openai", "anthropic"]) assert.deepEqual(validateMessages(store.messages(provider), { provider }), []);
