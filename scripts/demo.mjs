// The main job: reads a real transcript, validates it for each provider, repairs it, and prints
// what changed. Usage: node scripts/demo.mjs [transcript path] [--format openai|anthropic|gemini|langchain|ai-sdk]
import { readFileSync } from "node:fs";
import { readTranscript, validateMessages, repairMessages, convertMessages } from "../pkg/index.js";

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
