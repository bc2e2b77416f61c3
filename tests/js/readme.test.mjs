// Runs the README's quick start and the state-store example (docs/store.md) as written
// (STYLE: README examples are tests), against the built package — `import … from "stategate"`
// and `"stategate/file-log"` resolve to pkg/ through its exports (support/stategate-resolve.mjs)
// — each in a temporary directory; then checks what their comments claim.
// The README's esbuild snippet (`stategate/wasm`) needs a bundler and is not run here.
//
// Run: node --test tests/js/readme.test.mjs

import "./support/stategate-resolve.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// After the hooks are registered (a static import would be resolved before they are).
const { validateMessages } = await import("stategate");

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The first ```js block after `heading` in `page`. */
function block(page, heading) {
  const text = "\n" + fs.readFileSync(path.join(ROOT, page), "utf8");
  const at = text.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `${page} has no heading "${heading}"`);
  const open = text.indexOf("```js\n", at);
  assert.ok(open >= 0 && open < text.indexOf("\n## ", at + heading.length + 1), `no js block under ${page} "${heading}"`);
  return text.slice(open + 6, text.indexOf("\n```", open + 6) + 1);
}

/** Runs `code` as a module in a fresh temporary directory (its cwd), exporting `names`. */
async function run(code, names) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stategate-readme-"));
  const file = path.join(dir, "example.mjs");
  fs.writeFileSync(file, `${code}\nexport { ${names.join(", ")} };\n`);
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    return { m: await import(pathToFileURL(file).href), dir };
  } finally {
    process.chdir(cwd);
  }
}

test("the README's quick start runs as written and gives the values its comments say", async () => {
  const code = block("README.md", "## Quick start");
  assert.ok(code.split("\n").length <= 26, "the quick start stays short");
  const { m } = await run(code, ["history", "problems", "messages", "report", "store", "applied", "view"]);
  const id = "call_bBCSl18JfUFYImNzDOraInzM";

  // The history is the fixture's: run 4 of the tau-bench file, its first four turns after the system prompt.
  const runs = JSON.parse(fs.readFileSync(path.join(ROOT, "tests/fixtures/transcripts/taubench-gpt4o-airline-historical.json"), "utf8"));
  const real = runs[4].traj.slice(1, 5);
  assert.deepEqual(
    m.history.map((x) => [x.role, x.content, JSON.stringify(x.tool_calls?.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]) ?? null)]),
    real.map((x) => [x.role, x.content, JSON.stringify(x.tool_calls?.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]) ?? null)]),
  );

  assert.deepEqual(m.problems.map((p) => [p.rule, p.index, p.toolCallId]), [["MISSING_TOOL_RESULT", 3, id]]);
  assert.match(m.problems[0].message, /tool call .* has no result/);
  assert.deepEqual(m.report, [{ kind: "interrupted", action: "inserted", index: 3, toolCallId: id }]);
  assert.equal(m.messages.length, 5);
  for (let i = 0; i < 4; i++) assert.equal(m.messages[i], m.history[i], "untouched messages are the caller's own objects");
  assert.equal(m.messages[4].role, "tool");
  assert.equal(m.messages[4].tool_call_id, id);
  assert.match(m.messages[4].content, /^Tool call get_user_details with id call_bBCSl18JfUFYImNzDOraInzM was interrupted/);
  assert.deepEqual(validateMessages(m.messages, { provider: "anthropic" }), []);

  assert.deepEqual(m.applied, { version: 1, ids: [0, 1, 2, 3, 4].map((k) => `quickstart:1:${k}`) });
  const sent = m.view.messages;
  assert.deepEqual(sent[0], { role: "system", content: "You are an airline agent." });
  assert.ok(sent.some((x) => Array.isArray(x.content) && x.content.some((b) => b.type === "tool_use" && b.id === id)));
  assert.ok(sent.some((x) => Array.isArray(x.content) && x.content.some((b) => b.type === "tool_result" && b.tool_use_id === id)));
  assert.deepEqual(validateMessages(sent.slice(1), { provider: "anthropic" }), []);
  assert.ok(m.view.report.used <= 120);
  assert.deepEqual(m.view.report.dropped, [{ count: 2, reason: "budget" }]);
});

test("the state-store example (docs/store.md) runs and does what its comments say", async () => {
  const code = block("docs/store.md", "# The state store");
  assert.match(code, /from "stategate\/file-log"/);
  const { m, dir } = await run(code, ["store", "again", "past", "read", "key", "log"]);
  assert.ok(fs.existsSync(path.join(dir, "agent-state", "events.jsonl")), "FileLog wrote ./agent-state in the working directory");
  assert.equal(m.read, 4);
  assert.equal(m.store.version, 6);
  assert.deepEqual(m.store.get("messages").map((x) => x.id).slice(0, 1), ["r1:1:0"]);
  assert.deepEqual(m.store.get("facts"), { paris: "18°C", rome: "24°C" });
  assert.throws(() => m.store.apply({ author: "other", expectedVersion: m.read, update: { todos: [] } }), (e) => e.code === "VERSION_CONFLICT");
  assert.equal(m.store.version, 6, "a refused command changes nothing");
  assert.equal(m.past.version, 2);
  assert.equal(m.store.events({ type: "tool_result" }).length, 2);
  assert.equal(JSON.stringify(m.again.systemView()), JSON.stringify(m.store.systemView()));
  assert.deepEqual(m.again.danglingToolCalls(), []);
  assert.ok(!JSON.stringify(m.store.systemView()).includes("be brief"));
  assert.ok(!JSON.stringify(m.store.exportForTransport()).includes("be brief"));
  assert.equal(m.store.private(m.key).memory_contents["AGENTS.md"], "be brief");
});
