// Differential: projectMessages vs LangChain's trimMessages (npm @langchain/core) on the real
// transcripts, with the same token counts per message (ours, looked up by message id, so only
// the selection logic differs): strategy "last", startOn "human", includeSystem.
//
// Classes, counted into test-results/project-differential-summary.json:
//   agree            — the same messages are kept.
//   trim_split_unit  — trimMessages' output splits a tool-call unit (a result without its call,
//                      or a call with some of its results missing); ours keeps units whole, so
//                      it keeps less (or more) there. Expected; docs/model-view.md documents it.
//   trim_empty_start — trimMessages returns nothing or only the system message where ours keeps
//                      a trailing unit (JS trimMessages counts the system inside startOn);
//   ours_refuses_empty — nothing of the conversation fits: ours refuses (BUDGET_TOO_SMALL) where
//                      trimMessages returns nothing or the system message alone.
// Any other difference fails the test.
//
// Run: node --test tests/js/project-differential.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { trimMessages, HumanMessage, AIMessage, ToolMessage, SystemMessage } from "@langchain/core/messages";
import { projectMessages, readTranscript, convertMessages, validateMessages } from "../../pkg/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = path.join(ROOT, "tests/fixtures/transcripts");

function lcMessages(dicts) {
  return dicts.map((d) => {
    const id = d.id;
    switch (d.type) {
      case "human":
        return new HumanMessage({ content: d.content, id });
      case "system":
        return new SystemMessage({ content: d.content, id });
      case "tool":
        return new ToolMessage({ content: d.content, tool_call_id: d.tool_call_id, id });
      default:
        return new AIMessage({ content: d.content ?? "", tool_calls: d.tool_calls ?? [], id });
    }
  });
}

function splitsUnit(kept) {
  const calls = new Map(); // call id -> answered?
  for (const m of kept) {
    if (m._getType() === "ai") for (const c of m.tool_calls ?? []) calls.set(c.id, false);
    if (m._getType() === "tool") {
      if (!calls.has(m.tool_call_id)) return true;
      calls.set(m.tool_call_id, true);
    }
  }
  return [...calls.values()].some((answered) => !answered);
}

test("projectMessages vs trimMessages on the real transcripts at 2k, 8k and 32k tokens", async () => {
  const counts = { agree: 0, trim_split_unit: 0, trim_empty_start: 0, ours_refuses_empty: 0 };
  for (const file of fs.readdirSync(FIXTURES).filter((f) => !f.endsWith(".md"))) {
    const t = readTranscript(fs.readFileSync(path.join(FIXTURES, file), "utf8"), { format: "openai" });
    for (const run of t.runs.slice(0, 10)) {
      // Give every message an id so both sides can be compared and counted alike.
      const withIds = convertMessages(run, { to: "langchain" }).map((m, i) => ({ ...m, id: m.id ?? `m${i}` }));
      const all = projectMessages(withIds, { budget: 10_000_000, startOnUser: false, sections: false });
      const tokens = new Map(all.report.messages.map((m) => [m.id, m.tokens]));
      if (withIds[0]?.type === "system") tokens.set(withIds[0].id, all.report.systemTokens);
      const counter = (msgs) => msgs.reduce((a, m) => a + (tokens.get(m.id) ?? 0), 0);
      for (const budget of [2_000, 8_000, 32_000]) {
        const theirs = await trimMessages(lcMessages(withIds), { maxTokens: budget, strategy: "last", startOn: "human", includeSystem: true, tokenCounter: counter });
        const kept = theirs.filter(Boolean);
        let ours;
        try {
          ours = projectMessages(withIds, { budget, sections: false, format: "langchain" });
        } catch (e) {
          // Ours refuses a view of the system messages alone (BUDGET_TOO_SMALL): trimMessages
          // then keeps no conversation either (nothing, or only the system message).
          assert.ok(e.code === "BUDGET_TOO_SMALL" && /keeps none/.test(e.message), e.message);
          assert.ok(kept.filter((m) => m._getType() !== "system").length === 0 || splitsUnit(kept), `${file} budget ${budget}: ours refused, trimMessages kept ${kept.length}`);
          counts.ours_refuses_empty++;
          continue;
        }
        assert.deepEqual(validateMessages(ours.messages, { provider: "openai" }), []);
        const a = ours.messages.map((m) => m.id);
        const b = kept.map((m) => m.id);
        if (JSON.stringify(a) === JSON.stringify(b)) counts.agree++;
        else if (splitsUnit(kept)) counts.trim_split_unit++;
        else if (kept.length <= 1) counts.trim_empty_start++;
        else assert.fail(`${file} budget ${budget}: ours ${JSON.stringify(a)} vs trimMessages ${JSON.stringify(b)}`);
      }
    }
  }
  fs.mkdirSync(path.join(ROOT, "test-results"), { recursive: true });
  fs.writeFileSync(path.join(ROOT, "test-results/project-differential-summary.json"), JSON.stringify(counts, null, 2));
  assert.ok(counts.agree > 0, JSON.stringify(counts));
});
