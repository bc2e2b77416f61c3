// The model view on the built package: real transcripts projected at 2k, 8k and 32k tokens in all
// five formats (each output passes its provider's validator), a real BPE tokenizer from npm
// (js-tiktoken, cl100k_base), the store's sections, previews recorded as artifacts, the private
// leak check, and compaction.
//
// Run: node --test tests/js/project.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getEncoding } from "js-tiktoken";
import { StateStore, projectMessages, providerOf, readTranscript, validateMessages } from "../../pkg/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = path.join(ROOT, "tests/fixtures/transcripts");
const FORMATS = ["langchain", "openai", "anthropic", "ai-sdk", "gemini", "ui", "responses", "openai-agents"];
const PROVIDER = { langchain: "openai", openai: "openai", anthropic: "anthropic", "ai-sdk": "openai", gemini: "gemini", ui: "openai", responses: "openai", "openai-agents": "openai" };

test("providerOf is the core's table", () => {
  for (const f of FORMATS) assert.equal(providerOf(f), PROVIDER[f]);
  assert.throws(() => providerOf("chat"), { code: "INVALID_OPTION" });
});

test("the report names the output message of each kept message; privateLeaks is the view's own scan", () => {
  const s = new StateStore();
  const calls = ["a", "b"].map((id) => ({ id, type: "function", function: { name: `f_${id}`, arguments: "{}" } }));
  s.apply({ author: "u", update: { messages: [{ role: "user", content: "go" }, { role: "assistant", content: "", tool_calls: calls }, { role: "tool", tool_call_id: "a", content: "r1" }, { role: "tool", tool_call_id: "b", content: "r2" }] } });
  for (const [format, outputs] of [["openai", [0, 1, 2, 3]], ["anthropic", [0, 1, 2, 2]], ["gemini", [0, 1, 2, 2]], ["ai-sdk", [0, 1, 2, 2]]]) {
    const v = s.modelView({ budget: 1000, format });
    assert.deepEqual(v.report.messages.map((m) => m.output), outputs, format);
    assert.equal(v.messages.length, outputs.at(-1) + 1);
  }
  const { key } = s.registerChannel({ name: "memory", reducer: "replace", visibility: "private", owner: "memory" });
  s.apply({ author: "memory", update: { memory: { note: "CANARY-priv-31337x" } } }, key);
  assert.deepEqual(s.privateLeaks(["nothing here", { text: "hello" }]), []);
  assert.deepEqual(s.privateLeaks(["<b>CANARY-priv-31337x</b>"]), ["memory"]);
  assert.deepEqual(s.privateLeaks([{ content: [{ text: "CANARY-priv" }, { text: "-31337x" }] }]), ["memory"], "text parts joined");
  assert.throws(() => s.privateLeaks([() => 1]), { code: "INVALID_OPTION" });
});
const enc = getEncoding("cl100k_base");
const bpe = (text) => enc.encode(text).length;

function runs() {
  const out = [];
  for (const file of fs.readdirSync(FIXTURES).filter((f) => !f.endsWith(".md"))) {
    const t = readTranscript(fs.readFileSync(path.join(FIXTURES, file), "utf8"), { format: "openai" });
    for (const run of t.runs) out.push({ file, run });
  }
  return out;
}

test("real transcripts project at 2k, 8k and 32k tokens in every format and pass the validator", () => {
  let projected = 0;
  for (const { file, run } of runs()) {
    for (const format of FORMATS) {
      for (const budget of [2_000, 8_000, 32_000]) {
        let view;
        try {
          view = projectMessages(run, { budget, format, maxToolResultTokens: 1_000, tokenizer: bpe });
        } catch (e) {
          // Nothing of the conversation fits: refused (never a view of the system alone), below 32k.
          assert.ok(e.code === "BUDGET_TOO_SMALL" && /keeps none/.test(e.message) && budget < 32_000, `${file} ${format} ${budget}: ${e.message}`);
          continue;
        }
        const { messages, report } = view;
        assert.ok(report.used <= budget, `${file} ${format} ${budget}: used ${report.used}`);
        const violations = validateMessages(messages, { provider: PROVIDER[format] });
        assert.deepEqual(violations, [], `${file} ${format} ${budget}`);
        projected++;
      }
    }
  }
  assert.ok(projected >= 4 * 5 * 2, `${projected} views`);
});

test("the BPE count is the tokenizer's: used equals the sum of per-message counts", () => {
  // The Claude Code session: plain text messages to check the count of (not a recorded stream).
  const { run } = runs().find((r) => r.file.startsWith("claudecode"));
  const { report } = projectMessages(run, { budget: 8_000, tokenizer: bpe });
  const sum = report.systemTokens + report.sections.filter((s) => s.included).reduce((a, s) => a + s.tokens, 0) + report.messages.reduce((a, m) => a + m.tokens, 0);
  assert.equal(report.used, sum);
  // Each plain text message costs the tokenizer's count of "role\ncontent" plus 3.
  const out = projectMessages(run, { budget: 8_000, tokenizer: bpe, format: "openai" }).messages;
  const checked = out.map((m, i) => [m, report.messages[i - (out.length - report.messages.length)]]).filter(([m, r]) => r && typeof m.content === "string" && !m.tool_calls && m.role !== "tool");
  assert.ok(checked.length > 0);
  for (const [m, r] of checked) assert.equal(r.tokens, bpe(`${m.role}\n${m.content}`) + 3);
});

test("store.modelView: sections from state, previews recorded as artifacts, byte-identical twice", () => {
  const store = new StateStore({ runId: "v" });
  store.apply({ author: "app", update: { run: { status: "running", task: "Summarise the server logs" }, plan: { s1: { title: "read the logs" }, s2: { title: "write the summary", depends_on: ["s1"] } }, facts: { host: "web-1" } } });
  store.apply({ author: "user", update: { messages: [{ role: "system", content: "You are an SRE assistant." }, { role: "user", content: "What happened last night?" }] } });
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: "{\"path\":\"/var/log/syslog\"}" } }] }] } });
  store.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "c1", content: "kernel: eth0 link down\n".repeat(2_000) }] } });
  const opts = { budget: 3_000, format: "anthropic", maxToolResultTokens: 500, tokenizer: bpe };
  const a = store.modelView(opts);
  const b = store.modelView(opts);
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  assert.equal(a.messages[0].role, "system");
  assert.match(a.messages[1].content, /## Task\nSummarise the server logs/);
  assert.match(a.messages[1].content, /- \[pending\] s2: write the summary \(after s1\)/);
  assert.equal(a.report.truncated.length, 1);
  assert.equal(a.report.truncated[0].artifact, `artifact:${store.get("messages")[3].id}`);
  assert.deepEqual(store.get("artifacts").map((r) => r.ref), [a.report.truncated[0].artifact]);
  assert.deepEqual(validateMessages(a.messages, { provider: "anthropic" }), []);
});

test("a private value in the messages is refused with PRIVATE_LEAK naming the channel", () => {
  const store = new StateStore();
  store.registerChannel({ name: "secrets", reducer: "merge", visibility: "private", owner: "vault" });
  store.apply({ author: "vault", update: { secrets: { DB_PASSWORD: "correct-horse-battery" } } });
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "connect" }] } });
  assert.ok(!JSON.stringify(store.modelView({ budget: 1_000 })).includes("correct-horse"));
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "the password is correct-horse-battery" }] } });
  assert.throws(() => store.modelView({ budget: 1_000 }), (e) => e.code === "PRIVATE_LEAK" && e.details.channel === "secrets" && !e.message.includes("correct-horse"));
});

test("compaction: a safe cut, the summary first, the ledger untouched", () => {
  const store = new StateStore();
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "start the research task" }], async_tasks: { t1: { task_id: "t1", agent_name: "researcher", thread_id: "t1", run_id: "r1", status: "running" } } } });
  for (let i = 0; i < 40; i++) store.apply({ author: "chat", update: { messages: [{ role: "user", content: `q${i}` }, { role: "assistant", content: `a${i}` }] } });
  const cut = store.compactionPlan({ keep: 6 });
  store.compact({ summary: "Research task t1 is running; we chatted.", cut });
  const { messages, report } = store.modelView({ budget: 2_000 });
  assert.match(messages[0].content, /- task t1 \(researcher\): running/);
  assert.match(messages[1].content, /^Here is a summary of the conversation to date:/);
  assert.equal(messages.length, 2 + 6);
  assert.equal(report.dropped[0].reason, "compacted");
  assert.equal(store.get("async_tasks").t1.status, "running");
  assert.equal(store.get("messages").length, 81);
  assert.throws(() => store.compact({ summary: "x", cut: 1_000 }), (e) => e.code === "INVALID_OPTION");
});
