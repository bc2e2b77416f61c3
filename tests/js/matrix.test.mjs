// The format matrix (issue 15, "Done when"): every run of every fixture transcript, plus both
// stream recordings read into histories, written in each of the eight formats, then for each
// written history H in format F:
//   round trip  — read as F and written as F again, H comes back exactly;
//   detection   — read with no `format`, it decodes to the same canonical messages as read as F
//                 (but for `origin`: a plain text message is the same in several formats);
//   repair      — repaired for F's provider it validates clean, and repairing again changes nothing;
//   model view  — projected in F at several budgets it validates clean;
//   conversion  — converted to every other format G, repaired, it validates for G's provider and
//                 keeps every tool call and tool result (by id) the F history had.
//
// Run: node --test tests/js/matrix.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { convertMessages, decodeMessages, projectMessages, providerOf, readStream, readTranscript, repairMessages, validateMessages } from "../../pkg/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = path.join(ROOT, "tests/fixtures/transcripts");
const FORMATS = ["langchain", "openai", "anthropic", "ai-sdk", "gemini", "ui", "responses", "openai-agents"];
const BUDGETS = [4_000, 32_000, 1_000_000];
const STREAMS = { "aisdk-uistream-langgraph-hitl-interrupt.json": "ui-stream", "langgraph-lc-stream-supervisor.json": "langgraph-messages" };

/** Every history to run through the matrix: `[label, canonical-ish messages]`. */
function sources() {
  const out = [];
  for (const file of fs.readdirSync(FIXTURES).filter((f) => !f.endsWith(".md")).sort()) {
    const text = fs.readFileSync(path.join(FIXTURES, file), "utf8");
    for (const [r, run] of readTranscript(text, { format: "langchain" }).runs.entries()) out.push([`${file}#${r}`, run]);
    if (STREAMS[file]) {
      const recording = JSON.parse(text);
      const chunks = Array.isArray(recording) ? recording : (recording.chunks ?? recording.stream ?? recording.events);
      if (Array.isArray(chunks)) out.push([`${file} (stream)`, readStream(chunks, { format: STREAMS[file], to: "langchain" }).messages]);
    }
  }
  return out;
}

const withoutOrigin = ({ origin, ...m }) => m;

/** The tool call ids and tool result ids of canonical messages. */
function toolIds(messages) {
  const calls = new Set();
  const results = new Set();
  for (const m of messages) {
    for (const c of m.tool_calls ?? []) calls.add(c.id);
    if (m.role === "tool" && m.tool_call_id) results.add(m.tool_call_id);
  }
  return { calls: [...calls].sort(), results: [...results].sort() };
}

const all = sources();

test("the matrix has every fixture run and both stream recordings", () => {
  assert.ok(all.length >= 8, `only ${all.length} histories`);
  assert.equal(all.filter(([label]) => label.endsWith("(stream)")).length, 2, all.map(([l]) => l).join(", "));
});

for (const format of FORMATS) {
  test(`${format}: round trip, detection, repair, model view and conversion on every fixture`, () => {
    const provider = providerOf(format);
    for (const [label, run] of all) {
      const at = `${label} as ${format}`;
      const written = convertMessages(run, { to: format });
      const canonical = decodeMessages(written, { format });
      assert.deepEqual(convertMessages(written, { to: format, from: format }), written, `${at}: round trip`);
      // A plain `{role, content: "text"}` is the same message in several formats: only its
      // `origin` (the format it was read as) may differ.
      assert.deepEqual(decodeMessages(written).map(withoutOrigin), canonical.map(withoutOrigin), `${at}: read with no format`);
      const repaired = repairMessages(written, { provider });
      assert.deepEqual(validateMessages(repaired.messages, { provider }), [], `${at}: repaired`);
      assert.deepEqual(repairMessages(repaired.messages, { provider }).report, [], `${at}: repair is idempotent`);
      for (const budget of BUDGETS) {
        let view;
        try {
          view = projectMessages(written, { budget, format, system: "You are a careful assistant." });
        } catch (e) {
          // Nothing of the conversation fits this budget: refused, never a system-only view.
          assert.ok(e.code === "BUDGET_TOO_SMALL" && /keeps none/.test(e.message) && budget < BUDGETS.at(-1), `${at}: ${e.message}`);
          continue;
        }
        assert.deepEqual(validateMessages(view.messages, { provider }), [], `${at}: model view at ${budget}`);
      }
      const ids = toolIds(decodeMessages(repaired.messages, { format }));
      if (run.some((m) => m.tool_calls?.length)) assert.ok(ids.calls.length > 0 && ids.results.length > 0, `${at}: the history's tool calls are seen`);
      for (const to of FORMATS.filter((f) => f !== format)) {
        const converted = repairMessages(convertMessages(repaired.messages, { to, from: format }), { provider: providerOf(to) });
        assert.deepEqual(validateMessages(converted.messages, { provider: providerOf(to) }), [], `${at} → ${to}`);
        assert.deepEqual(toolIds(decodeMessages(converted.messages, { format: to })), ids, `${at} → ${to}: tool calls and results kept`);
      }
    }
  });
}
