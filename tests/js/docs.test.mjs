// Keeps the docs true (README.md and docs/*.md), against the built package:
//   - every ```js block runs as written (each a module on its own, `import … from "stategate"`
//     resolved to pkg/ through its exports, other packages from the repository's node_modules),
//     and for the pages below, the values its comments claim hold. A block that imports
//     "stategate/postgres-log" runs against the PostgreSQL of scripts/postgres.sh
//     (STATEGATE_PG_URL, given to the block as DATABASE_URL); without one it is skipped with the
//     reason printed, and under CI=true that is a failure;
//   - every relative link points to a file that exists (and a #fragment to a heading in it);
//   - the table in docs/errors.md lists exactly the error codes the package reports.
// The README's quick start and the store example are checked value by value in readme.test.mjs.
//
// Run: node --test tests/js/docs.test.mjs

import "./support/stategate-resolve.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as full from "../../pkg/index.js";
import * as gate from "../../pkg/messages.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DOCS = fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
const PAGES = ["README.md", ...DOCS];
const read = (page) => fs.readFileSync(path.join(ROOT, page), "utf8");

/** The ```js blocks of a page, in order. */
function blocks(page) {
  return [...read(page).matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/**
 * Runs a block as a module. The file is written inside the repository (test-results/, ignored)
 * so bare imports of other packages resolve as from examples/; it runs in a fresh temporary
 * working directory (a FileLog example writes there). `exports` names top-level bindings to
 * hand back for assertions.
 */
let n = 0;
async function run(code, exports = []) {
  const dir = path.join(ROOT, "test-results/docs-blocks");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `block-${process.pid}-${n++}.mjs`);
  fs.writeFileSync(file, code + (exports.length ? `\nexport { ${exports.join(", ")} };\n` : "\n"));
  const cwd = process.cwd();
  process.chdir(fs.mkdtempSync(path.join(os.tmpdir(), "stategate-docs-")));
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    process.chdir(cwd);
  }
}

/** The index among a page's ```js blocks of the `n`th block under the heading `heading` (blocks of other sections may come before it). */
function blockUnder(page, heading, n) {
  const text = read(page);
  const at = text.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `${page} has the heading ${heading}`);
  return [...text.slice(0, at).matchAll(/^```js\n/gm)].length + n;
}
const LANGCHAIN = "## `stategate/langchain`";
const lcRows = (messages) => messages.map((x) => [x.getType(), x.id]);

/** What some blocks claim, checked: page → block index → [names to export, check]. */
const CLAIMS = {
  "docs/adapters.md": {
    [blockUnder("docs/adapters.md", LANGCHAIN, 0)]: [["messages"], (m) => {
      assert.deepEqual(m.messages.map((x) => x.getType()), ["human", "ai", "tool", "human", "ai"]);
      assert.match(m.messages[2].id, /^[0-9a-f-]{36}$/, "the reducer's random uuid");
    }],
    [blockUnder("docs/adapters.md", LANGCHAIN, 1)]: [["messages"], (m) => {
      assert.deepEqual(lcRows(m.messages), [["human", "h1"], ["ai", "a1"], ["tool", "stategate-repair:a1:c1"], ["human", "h2"], ["ai", "ai-2"]]);
      assert.match(m.messages[2].content, /^Tool call weather with id c1 was interrupted/);
    }],
    [blockUnder("docs/adapters.md", LANGCHAIN, 2)]: [["messages", "model"], (m) => {
      assert.deepEqual(lcRows(m.model.calls[0].messages).map(([t, id]) => [t, id ?? null]), [["system", null], ["human", "h1"], ["ai", "a1"], ["tool", "stategate-repair:a1:c1"], ["human", "h2"]]);
      assert.deepEqual(lcRows(m.messages), [["human", "h1"], ["ai", "a1"], ["tool", "stategate-repair:a1:c1"], ["human", "h2"], ["ai", "ai-2"]]);
    }],
  },
  "docs/follow.md": {
    0: [["store", "server", "follower"], (m) => {
      assert.equal(m.store.version, 3);
      assert.equal(m.store.version, m.server.version);
      assert.equal(m.store.lastHash, m.server.lastHash);
      assert.equal(m.follower.state, "ended");
      assert.equal(m.store.messages("openai").at(-1).content, "AZ 611 on Friday, €180.");
      assert.ok(!JSON.stringify(m.store.systemView()).includes("flexible"));
      assert.throws(() => m.store.apply({ author: "user", update: { messages: [{ role: "user", content: "hi" }] } }), (e) => e.code === "READ_ONLY");
    }],
    1: [["first"], (m) => assert.match(m.first, /^retry: 1000\n\nevent: events\nid: 1\ndata: \{"event_id":"trip-42:1",/)],
  },
  "docs/errors.md": {
    0: [["store"], (m) => assert.equal(m.store.version, 0)],
  },
  "docs/formats.md": {
    0: [["openai", "canonical"], (m) => {
      assert.deepEqual(m.openai, [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }] },
        { role: "tool", tool_call_id: "toolu_1", content: "18°C" },
      ]);
      assert.equal(m.canonical.length, 3);
    }],
  },
  "docs/validation-and-repair.md": {
    0: [["history", "problems", "messages", "report"], (m) => {
      assert.deepEqual(m.problems.map((p) => [p.rule, p.index, p.toolCallId]), [["MISSING_TOOL_RESULT", 1, "c1"]]);
      assert.deepEqual(m.report, [{ kind: "rejected", action: "inserted", index: 1, toolCallId: "c1" }]);
      assert.equal(m.messages[2].tool_call_id, "c1");
      assert.equal(m.messages[3], m.history[2]);
      for (const i of [0, 1]) assert.equal(m.messages[i], m.history[i]);
      assert.equal(m.messages.at(-1), m.history.at(-1));
    }],
  },
  "docs/log.md": {
    0: [["log", "store"], (m) => assert.equal(m.store.version, 3)],
    [blockUnder("docs/log.md", "## A keyed chain", 0)]: [["log", "store", "chainKey"], async (m) => {
      const { StateStore, verifyLog } = await import("../../pkg/index.js");
      assert.deepEqual(verifyLog(m.log, { chainKey: m.chainKey }), { ok: true });
      assert.deepEqual(verifyLog(m.log), { ok: false, index: 0, sequence: 1, reason: "hash" });
      assert.equal(StateStore.replay(m.log, { chainKey: m.chainKey }).lastHash, m.store.lastHash);
      assert.throws(() => StateStore.restore(m.store.checkpoint(), m.log), { code: "INVALID_OPTION" });
    }],
  },
  "docs/postgres-log.md": {
    0: [["version", "code", "run", "other"], async (m) => {
      assert.equal(m.version, 3);
      assert.equal(m.code, "VERSION_CONFLICT");
      assert.deepEqual(m.run.store.get("facts"), { topic: "shipping", urgent: true, assignee: "ana" });
      assert.equal(m.run.store.lastHash, m.other.store.lastHash);
    }],
  },
  "docs/streams.md": {
    0: [["messages", "report", "repaired"], (m) => {
      assert.equal(m.messages.length, 1);
      assert.equal(m.report.end, "abort");
      assert.deepEqual(m.report.dangling.map((d) => [d.id, d.name, d.messageId]), [["c1", "weather", "m1"]]);
      assert.deepEqual(m.report.reasons, { c1: "interrupted" });
      const last = m.repaired.messages.at(-1);
      assert.equal(last.role, "tool");
      assert.match(last.content, /interrupted/);
    }],
  },
  "docs/model-view.md": {
    0: [["messages", "report", "after"], (m) => {
      assert.equal(m.messages[0].content, "You are a careful SRE assistant.");
      assert.match(m.messages[1].content, /^# Current state/);
      assert.match(m.messages[1].content, /api_key: \[redacted\]/);
      assert.deepEqual(m.report.dropped, [{ count: 9, reason: "budget" }]);
      assert.deepEqual(m.report.truncated.map((t) => t.toolCallId), ["c5", "c6"]);
      assert.deepEqual(m.report.redacted, ["facts.api_key"]);
      assert.match(m.after.messages[1].content, /^Here is a summary of the conversation to date:\n\nThe user reported/);
      assert.deepEqual(m.after.report.dropped, [{ count: 10, reason: "compacted" }, { count: 4, reason: "budget" }]);
    }],
  },
  "docs/tasks.md": {
    0: [["content", "status", "store"], (m) => {
      assert.equal(m.content, "Launched async subagent. task_id: th-1");
      assert.equal(m.status, "success");
      assert.equal(m.store.get("async_tasks")["th-1"].status, "success");
      const last = m.store.messages("openai").at(-1);
      assert.equal(last.role, "user");
      assert.match(last.content, /<task-notification>[\s\S]*<result>\nThree papers: A, B, C\.\n<\/result>/);
    }],
  },
  "docs/package.md": {
    0: [["messages", "history", "repairMessages", "validateMessages"], (m) => {
      assert.deepEqual(m.messages.map((x) => x.role), ["user", "assistant", "tool"]);
      assert.equal(m.messages[0], m.history[0], "untouched messages are the caller's own");
      assert.match(m.messages[2].content, /weather/);
      assert.deepEqual(m.validateMessages(m.messages, { provider: "anthropic" }), []);
      // Imported from stategate/messages: the message gate's own binding, not the bare import's.
      assert.equal(m.repairMessages, gate.repairMessages);
      assert.notEqual(m.repairMessages, full.repairMessages);
    }],
  },
  "docs/subagents.md": {
    0: [["store"], (m) => {
      assert.deepEqual(m.store.get("facts"), { service: "api", cause: "disk full" });
      const result = m.store.messages("openai").at(-1);
      assert.deepEqual([result.role, result.tool_call_id, result.content], ["tool", "call_7", "The deploy failed: disk full on node 3."]);
    }],
  },
  "docs/migration.md": {
    0: [["pruned"], (m) => assert.deepEqual(m.pruned.map((x) => x.role), ["user", "assistant", "user"])],
    1: [["sent", "report"], (m) => {
      assert.deepEqual(m.sent.map((x) => x.role), ["system", "user", "assistant", "tool", "assistant", "user"]);
      assert.deepEqual(m.report.dropped, []);
    }],
    2: [["trimmed"], (m) => assert.deepEqual(m.trimmed.map((x) => [x.getType(), x.content]), [["system", "Be brief."], ["human", "And Rome?"]])],
    3: [["messages", "report"], (m) => {
      assert.equal(m.messages[0].type, "system");
      assert.equal(m.messages.at(-1).content, "And Rome?");
      assert.ok(m.report.dropped.length > 0, "20 tokens hold less than the whole history");
    }],
    4: [["messages"], (m) => assert.deepEqual(m.messages.filter((x) => x.getType() === "tool").map((x) => x.content), ["18°C", "19°C"])],
    5: [["store"], (m) => assert.deepEqual(m.store.messages("langchain").map((x) => [x.id, x.content]), [["h1", "Weather in Paris?"], ["a1", ""], ["t1", "19°C"], ["h2", "Thanks"]])],
    6: [["update"], (m) => {
      assert.equal(m.update.messages.length, 5);
      assert.match(m.update.messages[3].content, /was cancelled/);
    }],
    7: [["history", "messages", "report"], (m) => {
      assert.deepEqual(m.report, [{ kind: "interrupted", action: "inserted", index: 1, toolCallId: "c1" }]);
      assert.deepEqual(m.messages.map((x) => x.tool_call_id ?? null), [null, null, "c1", "c2"]);
      assert.equal(m.messages[3], m.history[2]);
    }],
  },
};

/** Why a block cannot run here (it needs a PostgreSQL and there is none), or undefined. */
function unrunnable(code) {
  if (!code.includes('"stategate/postgres-log"') || process.env.STATEGATE_PG_URL) return undefined;
  return "needs PostgreSQL: STATEGATE_PG_URL is not set (run under `bash scripts/postgres.sh run -- …`, as make test does)";
}
if (process.env.STATEGATE_PG_URL) process.env.DATABASE_URL = process.env.STATEGATE_PG_URL;

for (const page of PAGES) {
  blocks(page).forEach((code, i) => {
    // The README's blocks have their own test (readme.test.mjs).
    if (page === "README.md") return;
    const title = `${page}: code block ${i} runs${CLAIMS[page]?.[i] ? " and its comments hold" : ""}`;
    const why = unrunnable(code);
    if (why && process.env.CI !== "true") {
      console.log(`docs: ${page} block ${i} skipped: ${why}`);
      test(title, { skip: why }, () => {});
      return;
    }
    test(title, async () => {
      assert.equal(why, undefined, `${why}; under CI=true it must run`);
      const [names, check] = CLAIMS[page]?.[i] ?? [[], () => {}];
      const m = await run(code, names);
      await check(m);
    });
  });
}

test("every page with a code block that makes a claim has it checked", () => {
  for (const [page, claims] of Object.entries(CLAIMS)) {
    const count = blocks(page).length;
    for (const i of Object.keys(claims)) assert.ok(Number(i) < count, `${page} has no block ${i}`);
  }
});

/** The anchors GitHub gives a page's headings. */
function anchors(page) {
  const seen = new Map();
  const out = new Set();
  for (const [, title] of read(page).replace(/^```[\s\S]*?^```$/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const base = title.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
    const k = seen.get(base) ?? 0;
    seen.set(base, k + 1);
    out.add(k === 0 ? base : `${base}-${k}`);
  }
  return out;
}

test("every relative link in README.md and docs/*.md points to an existing file (and heading)", () => {
  const broken = [];
  let checked = 0;
  for (const page of PAGES) {
    const text = read(page).replace(/^```[\s\S]*?^```$/gm, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [file, fragment] = target.split("#");
      const resolved = file === "" ? page : path.join(path.dirname(page), decodeURI(file));
      checked++;
      if (!fs.existsSync(path.join(ROOT, resolved))) {
        broken.push(`${page}: ${target} (no ${resolved})`);
        continue;
      }
      if (fragment && resolved.endsWith(".md") && !anchors(resolved).has(fragment)) broken.push(`${page}: ${target} (no heading #${fragment} in ${resolved})`);
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked > 20, `only ${checked} relative links found: is the link pattern still right?`);
});

/** The codes the package reports: the wasm core's `errorCodes()`. */
async function packageCodes() {
  await import("stategate"); // loads the one glue module every entry shares
  return (await import(pathToFileURL(path.join(ROOT, "pkg/stategate_wasm.js")).href)).errorCodes();
}

test("docs/errors.md lists exactly the error codes the package reports", async () => {
  const codes = await packageCodes();
  assert.ok(Array.isArray(codes) && codes.length > 30, `errorCodes(): ${codes}`);
  const page = read("docs/errors.md");
  const table = page.slice(page.indexOf("## Every code"), page.indexOf("\n## ", page.indexOf("## Every code") + 1));
  const listed = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
  const dupes = listed.filter((c, i) => listed.indexOf(c) !== i);
  assert.deepEqual(dupes, [], "a code listed twice");
  assert.deepEqual(codes.filter((c) => !listed.includes(c)), [], "codes the package reports that docs/errors.md does not list");
  assert.deepEqual(listed.filter((c) => !codes.includes(c)), [], "codes docs/errors.md lists that the package does not report");
  // Each row says what it means and what to do.
  for (const row of table.matchAll(/^\| `([A-Z_]+)` \| ([^|]+)\| ([^|]+)\|$/gm)) {
    assert.ok(row[2].trim().length > 10 && row[3].trim().length > 10, `the row of ${row[1]} has an empty column`);
  }
});
