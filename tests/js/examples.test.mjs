// Runs every program in examples/ (each `examples/*.mjs`) as a user would run it, against the
// built package: `import … from "stategate"` resolves to pkg/ through its `exports`
// (support/stategate-resolve.mjs), other packages from the repository's node_modules.
//
// Each example checks its own results with node:assert and so exits non-zero when the package
// stops doing what the example says; this test also requires it to print something and, where
// listed in EXPECTED, the lines its comments and the docs quote. A new example needs no change
// here to be run; add its quoted lines to EXPECTED.
//
// Run: node --test tests/js/examples.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const EXAMPLES = path.join(ROOT, "examples");
const RESOLVE = path.join(ROOT, "tests/js/support/stategate-resolve.mjs");

/** Lines (regular expressions) an example's output must contain, by file name. */
const EXPECTED = {
  "ai-sdk-approvals.mjs": [
    /^asked: c1 pending, c2 pending; run waiting_approval$/m,
    /^ui: c1 approval-requested, c2 approval-requested$/m,
    /^decided: c1 approved by ui, c2 rejected by admin; run running$/m,
    /^ran: \/tmp\/cache; the model was told c1: deleted \/tmp\/cache \/ c2: system files stay$/m,
    /^ui: c1 output-available, c2 output-denied$/m,
  ],
  "node-agent-loop.mjs": [
    /^turn 1: 2 tool calls answered, version 4$/m,
    /^after the restart: dangling call_4 \(weather\)$/m,
    /^repair: interrupted inserted for call_4$/m,
    /^budget used: 3 turns, 4 tool calls, 715 tokens$/m,
    /^model view \(anthropic, 150 tokens\): 5 messages, \d+ tokens; dropped 4 \(budget\)$/m,
    /^log: 10 events, hash chain ok, a replay equals the store$/m,
  ],
  "openai-agents.mjs": [
    /^run 1: Paris: 18°C, cloudy\.$/m,
    /^run 2 saw 5 items: message, function_call, function_call_result, message, message$/m,
    /^store: 6 items, 6 events by user, model, tool:call_1$/m,
    /^after the restart: 10 items; Rome is warmer: 24°C, sunny\.$/m,
    /^filter: answered call_3 \(missing_result\); sent 8 of 13 items, 110 of 120 tokens$/m,
    /^log: 10 events, hash chain ok$/m,
  ],
  "langgraph.mjs": [
    /^graph: interrupted at book_flight \(Book a flight to Rome\?\)$/m,
    /^graph: the repair node wrote \[remove:u2\] then \[tool:stategate-repair:ai-1:call_1 human:u2\]$/m,
    /^graph: the model got system, human, ai, tool\(call_1\), human$/m,
    /^graph: state u1, ai-1, stategate-repair:ai-1:call_1, u2, ai-2$/m,
    /^agent: model view \d+\/120 tokens, dropped 5 \(budget\), 1 \(start_on_user\)$/m,
    /^agent: the model got system, human, ai, tool\(call_1\), human$/m,
    /^agent: state keeps all 11 messages, the answer at index 8$/m,
  ],
  "ai-sdk.mjs": [
    /^turn 1: 2 steps, 4 messages recorded once, authors user, model, tool:weather$/m,
    /^budget used: 2 turns, 1 tool call, 310 tokens$/m,
    /^turn 2: call_2 answered before the model saw it: "Tool call weather with id call_2 did not complete - no result was recorded\."$/m,
    /^useChat: 5 UIMessages; re-applied: 8 unchanged, 0 added, version 8$/m,
  ],
};

const examples = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith(".mjs")).sort();

test("examples/ holds the Node agent loop", () => {
  assert.ok(examples.includes("node-agent-loop.mjs"), `examples/: ${examples.join(", ")}`);
});

for (const file of examples) {
  test(`examples/${file} runs and checks its own results`, () => {
    const source = fs.readFileSync(path.join(EXAMPLES, file), "utf8");
    assert.match(source, /from "stategate(\/[a-z-]+)?"/, "an example imports the package by its published name");
    const r = spawnSync(process.execPath, ["--import", RESOLVE, path.join(EXAMPLES, file)], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(r.status, 0, `exit ${r.status} ${r.signal ?? ""}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
    assert.ok(r.stdout.trim().length > 0, "an example prints what it did");
    for (const line of EXPECTED[file] ?? []) assert.match(r.stdout, line);
  });
}
