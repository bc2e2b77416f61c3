// The main job: reads a real transcript, validates it for each provider, repairs it, and prints
// what changed; then replays it through a StateStore — the event log, the model view under a
// budget, compaction, an async subagent task and a sync subagent — and shows each of the three
// views. Usage: node scripts/demo.mjs [transcript path] [--format openai|anthropic|gemini|langchain|ai-sdk]
import { readFileSync } from "node:fs";
import { readTranscript, validateMessages, repairMessages, convertMessages, StateStore, AsyncTasks, verifyLog, subagentInput, subagentResult } from "../pkg/index.js";
import { createAgentServer } from "../www/agent-sim.js";

const args = process.argv.slice(2);
const fi = args.indexOf("--format");
const format = fi >= 0 ? args[fi + 1] : "openai";
const path = args.find((a, i) => !a.startsWith("--") && i !== fi + 1) ?? new URL("../tests/fixtures/transcripts/claudecode-coverage-test-fix.jsonl", import.meta.url).pathname;

const transcript = readTranscript(readFileSync(path, "utf8"));
const run = transcript.runs[0];
const messages = transcript.runs.flat();
const calls = messages.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
console.log(`transcript: ${path}`);
console.log(`kind: ${transcript.kind}; runs: ${transcript.runs.length}; messages: ${messages.length}; tool calls: ${calls}`);

// Interrupt the first run in the middle of its last tool batch, as a crash or a user would.
const lastBatch = run.findLastIndex((m) => m.tool_calls?.length);
const interrupted = lastBatch >= 0 ? run.slice(0, lastBatch + 1) : run;
console.log(`\nfirst run cut after message ${lastBatch} (an assistant turn whose tool results never arrived): ${interrupted.length} messages`);

for (const provider of ["openai", "anthropic", "gemini"]) {
  const input = convertMessages(interrupted, { to: provider });
  const before = validateMessages(input, { provider });
  const { messages: repaired, report } = repairMessages(input, { provider });
  const after = validateMessages(repaired, { provider });
  const rules = [...new Set(before.map((v) => v.rule))].join(", ") || "none";
  console.log(`${provider.padEnd(9)} violations before repair: ${before.length} (${rules}); fixes: ${report.length}; after repair: ${after.length}`);
}

const { messages: repaired, report } = repairMessages(interrupted, { reasons: {} });
console.log(`\nrepair report:`);
for (const f of report) console.log(`  ${f.kind} ${f.action} at message ${f.index}${f.toolCallId ? ` (call ${f.toolCallId})` : ""}`);
const out = convertMessages(repaired, { to: format });
console.log(`\nstart and end of the repaired history in ${format} format:`);
const show = (m, i) => console.log(`  [${i}] ${JSON.stringify(m).slice(0, 160)}`);
out.slice(0, 4).forEach(show);
console.log("  …");
out.slice(-3).forEach((m, i) => show(m, out.length - 3 + i));

// ---- The same run through the gate: one store, three views.
console.log(`\n== the first run through a StateStore`);
const store = new StateStore({ runId: "demo" });
const memoryKey = store.registerChannel({ name: "memory", reducer: "replace", visibility: "private", owner: "memory" });
const secret = "memory: the user's API key is sk-demo-7f3a9c21 (never show it)";
store.apply({ author: "memory", update: { memory: secret } });
store.apply({ author: "app", update: { run: { status: "running", task: "as in the transcript" } } });
const authorOf = (m) => (m.role === "user" ? "user" : m.role === "tool" ? "tool" : "model");
for (const m of convertMessages(repaired, { to: "openai" })) store.apply({ author: authorOf(m), update: { messages: [m] } });
const check = verifyLog(store.eventsJsonl());
console.log(`events: ${store.version} (hash-chained; verifyLog: ${check.ok ? "ok" : JSON.stringify(check)}); last hash ${store.lastHash.slice(0, 16)}…`);
for (const budget of [2_000, 8_000]) {
  const { messages: sent, report } = store.modelView({ budget, format: "anthropic" });
  const dropped = report.dropped.map((d) => `${d.count} ${d.reason}`).join(", ") || "nothing";
  console.log(`model view at ${budget} tokens (anthropic): ${sent.length} messages, ${report.used} tokens used, dropped: ${dropped}`);
}
const cut = store.compactionPlan({ keep: 6 });
store.compact({ summary: "The assistant worked through the task in the transcript; the last turns follow.", cut });
console.log(`compacted before message ${cut}: the view now holds ${store.modelView({ budget: 8_000 }).messages.length} messages; the log still has all ${store.messages().length}`);

// An async subagent on an Agent Protocol server (here simulated in-process, as in the page).
const server = createAgentServer({ finishAfter: 2 });
const tasks = new AsyncTasks(store, { url: "http://agents.invalid", agents: [{ name: "reviewer", description: "Reviews a change", graph_id: "review" }], transport: server.transport });
const start = { id: "demo-start", name: "start_async_task", args: { description: "Review the change for missing tests", subagent_type: "reviewer" } };
store.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: start.id, type: "function", function: { name: start.name, arguments: JSON.stringify(start.args) } }] }] } });
console.log(`async task: ${(await tasks.handle(start)).content}`);
for (let i = 0; i < 3 && store.notifications().length === 0; i++) await tasks.poll();
const [note] = store.notifications();
console.log(`notification queued: ${note ? `${note.status} for ${note.task_id}` : "none"}; delivered: ${store.deliverNotifications().delivered.length}`);

// A sync subagent: it sees only what it is given; only its answer comes back.
const call = { id: "demo-task", type: "function", function: { name: "task", arguments: JSON.stringify({ description: "Summarise the session" }) } };
store.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [call] }] } });
const child = subagentInput(store, { description: "Summarise the session in one line", agent: "summariser", toolCallId: call.id });
child.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "inner", type: "function", function: { name: "read_log", arguments: "{}" } }] }] } });
child.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "inner", content: "…forty inner lines…" }] } });
child.apply({ author: "model", update: { messages: [{ role: "assistant", content: "The agent fixed the failing test and added coverage." }] } });
store.apply(subagentResult(child, call.id));
console.log(`sync subagent: the parent got one tool result, "${store.messages().at(-1).content.slice(0, 60)}", and none of the child's ${child.messages().length - 1} inner messages`);

// The three views.
const modelText = JSON.stringify(store.modelView({ budget: 8_000, format }).messages);
const systemText = JSON.stringify(store.systemView());
console.log(`\nmodel view: ${store.modelView({ budget: 8_000, format }).messages.length} messages in ${format} format`);
console.log(`system view: channels ${Object.keys(store.systemView()).join(", ")}`);
console.log(`private view (owner key only): ${Object.keys(store.private(memoryKey)).join(", ")}`);
console.log(`the private value appears in the model view: ${modelText.includes("sk-demo")}; in the system view: ${systemText.includes("sk-demo")}`);
