// Runs the README's state-store example as written (STYLE: README examples are tests), against
// the built package, in a temporary directory; then checks what it claims.
//
// Run: node --test tests/js/readme.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

test("the README's state-store example runs and does what its comments say", async () => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf("### The state store");
  const block = readme.slice(readme.indexOf("```js\n", start) + 6, readme.indexOf("```", readme.indexOf("```js\n", start) + 6));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stategate-readme-"));
  const code =
    block
      .replace('from "stategate"', `from ${JSON.stringify(pathToFileURL(path.join(ROOT, "pkg/index.js")).href)}`)
      .replace('"./agent-state"', JSON.stringify(path.join(dir, "agent-state"))) +
    "\nexport { store, again, past, read, key, log };\n";
  const file = path.join(dir, "example.mjs");
  fs.writeFileSync(file, code);
  const m = await import(pathToFileURL(file).href);
  assert.equal(m.read, 4);
  assert.equal(m.store.version, 6);
  assert.deepEqual(m.store.get("facts"), { paris: "18°C", rome: "24°C" });
  assert.throws(() => m.store.apply({ author: "other", expectedVersion: m.read, update: { todos: [] } }), (e) => e.code === "VERSION_CONFLICT");
  assert.equal(m.past.version, 2);
  assert.equal(JSON.stringify(m.again.systemView()), JSON.stringify(m.store.systemView()));
  assert.deepEqual(m.again.danglingToolCalls(), []);
  assert.ok(!JSON.stringify(m.store.systemView()).includes("be brief"));
  assert.equal(m.store.private(m.key).memory_contents["AGENTS.md"], "be brief");
});
