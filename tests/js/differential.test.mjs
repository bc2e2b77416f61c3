// Differential test: stategate's repairMessages vs deepagents' PatchToolCalls middleware (JS).
//
// 1,000 random histories from a seeded PRNG (deterministic). Each history is built twice: as
// LangChain message class instances for deepagents' `beforeAgent` hook, and as the equivalent
// plain LangChain dicts for stategate. Outputs are compared as sequences of
// (role, message id | tool_call_id, synthetic?).
//
//   * "agree" class — the only defect is dangling calls (no orphans, duplicates, late or early
//     answers): both repairs must produce exactly the same sequence.
//   * every other class — our own invariants are asserted (each call answered exactly once right
//     after its AI message, validateMessages(out, openai) is empty, repair is idempotent, no real
//     result dropped, orphans dropped) and each kind of difference from deepagents is counted.
//
// The counts are written to test-results/differential-summary.json.
//
// Run: node --test tests/js/differential.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HumanMessage, AIMessage, ToolMessage } from "@langchain/core/messages";
import { createPatchToolCallsMiddleware } from "deepagents";
import { repairMessages, validateMessages } from "../../pkg/index.js";
import { mulberry32 } from "../support/prng.mjs";
import { generateHistory, toDict } from "../support/histories.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SEED = 0x5eed2026;
const N_HISTORIES = 1000;

// ---------------------------------------------------------------------------------------------
// Histories come from tests/support/histories.mjs (generateHistory, toDict).
function classOf(features) {
  const kinds = ["late", "orphan", "duplicate", "early"].filter((k) => features[k] > 0);
  return kinds.length === 0 ? "agree" : kinds.join("+");
}

// ---------------------------------------------------------------------------------------------
// Builders
function toInstance(s) {
  if (s.kind === "human") return new HumanMessage({ content: s.content, id: s.id });
  if (s.kind === "ai") {
    return new AIMessage({
      content: s.content,
      id: s.id,
      tool_calls: s.calls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: "tool_call" })),
    });
  }
  return new ToolMessage({ content: s.content, id: s.id, tool_call_id: s.callId, name: s.name });
}

const mw = createPatchToolCallsMiddleware();
const beforeAgent = typeof mw.beforeAgent === "function" ? mw.beforeAgent : mw.beforeAgent.hook;

async function runDeepagents(instances) {
  const res = await beforeAgent({ messages: instances });
  if (res === undefined) return instances;
  const [sentinel, ...rest] = res.messages;
  assert.equal(sentinel.type, "remove");
  assert.equal(sentinel.id, "__remove_all__");
  return rest;
}

// (role, message id or tool_call_id, synthetic) — synthetic = not one of the input objects.
function signature(out, inputs) {
  const known = new Set(inputs);
  return out.map((m) => {
    const synthetic = !known.has(m);
    const role = m.type;
    if (role === "tool") return { role, id: m.tool_call_id, synthetic };
    return { role, id: synthetic ? null : m.id, synthetic };
  });
}
const sigText = (sig) => sig.map((e) => `${e.role}:${e.id}${e.synthetic ? "*" : ""}`).join(" ");

// ---------------------------------------------------------------------------------------------
// Our invariants
function checkOurInvariants(specs, dicts, out, report) {
  const calls = new Map(); // call id -> spec
  for (const s of specs) if (s.kind === "ai") for (const c of s.calls) calls.set(c.id, c);
  const inputSet = new Set(dicts);

  // 1. Every call answered exactly once, in the block right after its AI message; no tool
  //    message outside such a block.
  const answered = new Map();
  for (let i = 0; i < out.length; i++) {
    const m = out[i];
    if (m.type === "tool") {
      assert.fail(`tool message ${m.tool_call_id} at ${i} is not in a result block`);
    }
    if (m.type === "ai" && m.tool_calls?.length) {
      const want = new Set(m.tool_calls.map((c) => c.id));
      let j = i + 1;
      const got = [];
      while (j < out.length && out[j].type === "tool") got.push(out[j++]);
      assert.equal(got.length, want.size, `AI ${m.id}: ${got.length} results for ${want.size} calls`);
      for (const r of got) {
        assert.ok(want.has(r.tool_call_id), `result ${r.tool_call_id} after AI ${m.id} answers another message`);
        assert.ok(!answered.has(r.tool_call_id), `call ${r.tool_call_id} answered twice`);
        answered.set(r.tool_call_id, r);
      }
      i = j - 1;
    }
  }
  for (const id of calls.keys()) assert.ok(answered.has(id), `call ${id} unanswered`);

  // 2. Valid for OpenAI.
  assert.deepEqual(validateMessages(out, { provider: "openai" }), []);

  // 3. Idempotent: repairing the output changes nothing (same objects, empty report).
  const again = repairMessages(out, { provider: "openai" });
  assert.deepEqual(again.report, []);
  assert.equal(again.messages.length, out.length);
  for (let i = 0; i < out.length; i++) assert.ok(again.messages[i] === out[i], `second repair changed message ${i}`);

  // 4. No real result dropped: each call with a real result keeps a real one (the first);
  //    synthetic results only for calls with no real result; orphans dropped.
  const firstReal = new Map();
  for (const d of dicts) if (d.type === "tool" && calls.has(d.tool_call_id) && !firstReal.has(d.tool_call_id)) firstReal.set(d.tool_call_id, d);
  for (const [id, r] of answered) {
    if (firstReal.has(id)) assert.ok(r === firstReal.get(id), `call ${id}: the first real result was not kept`);
    else {
      assert.ok(!inputSet.has(r), `call ${id}: unexpected input message as result`);
      assert.equal(r.status, "error");
      assert.equal(r.content, `Tool call ${calls.get(id).name} with id ${id} did not complete - no result was recorded.`);
    }
  }

  // 5. Human and AI messages all kept, same objects, same order.
  const nonTool = (arr) => arr.filter((m) => m.type !== "tool");
  const a = nonTool(dicts);
  const b = nonTool(out);
  assert.equal(b.length, a.length);
  for (let i = 0; i < a.length; i++) assert.ok(a[i] === b[i], `non-tool message ${i} changed`);

  // 6. Every reported fix has a known kind.
  for (const f of report) assert.ok(f.kind && f.action, JSON.stringify(f));
}

// ---------------------------------------------------------------------------------------------
// Differences against deepagents, counted per kind.
function countDifferences(specs, ours, theirs, dicts, instances, diff) {
  const callIds = new Set();
  for (const s of specs) if (s.kind === "ai") for (const c of s.calls) callIds.add(c.id);
  const theirInputs = new Set(instances);

  // Results per call id in their output.
  const perId = new Map();
  for (const m of theirs) if (m.type === "tool") perId.set(m.tool_call_id, (perId.get(m.tool_call_id) ?? 0) + 1);
  for (const [id, n] of perId) {
    if (n > 1) diff.theirs_multiple_results_for_one_id++;
  }
  for (const id of callIds) if (!perId.has(id)) diff.theirs_unanswered_call++;

  // Where each call's result stands in their output.
  const theirSynthIds = new Set(theirs.filter((m) => m.type === "tool" && !theirInputs.has(m)).map((m) => m.tool_call_id));
  for (const m of theirs) {
    if (m.type === "tool" && !callIds.has(m.tool_call_id)) diff.theirs_kept_orphan++;
  }
  // Results they keep that are not adjacent to their call (late answers left in place).
  for (let i = 0; i < theirs.length; i++) {
    const m = theirs[i];
    if (m.type !== "ai" || !m.tool_calls?.length) continue;
    const block = new Set();
    let j = i + 1;
    while (j < theirs.length && theirs[j].type === "tool") block.add(theirs[j++].tool_call_id);
    for (const c of m.tool_calls) if (!block.has(c.id)) diff.theirs_result_not_after_call++;
  }
  const theirViolations = validateMessages(theirs.map((m) => instanceToDict(m)), { provider: "openai" });
  if (theirViolations.length) diff.theirs_invalid_for_openai++;
  for (const v of theirViolations) diff.theirs_violation_rules[v.rule] = (diff.theirs_violation_rules[v.rule] ?? 0) + 1;

  // Synthetic text/status differences.
  for (const m of theirs) {
    if (m.type === "tool" && !theirInputs.has(m)) {
      diff.theirs_synthetic++;
      if (/cancelled/.test(String(m.content))) diff.theirs_synthetic_text_cancelled++;
      if (m.status !== "error") diff.theirs_synthetic_status_not_error++;
    }
  }
  const ourInputs = new Set(dicts);
  const ourSynthIds = new Set(ours.filter((m) => m.type === "tool" && !ourInputs.has(m)).map((m) => m.tool_call_id));
  for (const id of theirSynthIds) if (!ourSynthIds.has(id)) diff.theirs_synthetic_where_we_kept_real++;
  for (const id of ourSynthIds) if (!theirSynthIds.has(id)) diff.ours_synthetic_where_they_did_not++;

  // Real results: they keep duplicates we drop; we move results they leave in place.
  const realTheirs = theirs.filter((m) => m.type === "tool" && theirInputs.has(m)).length;
  const realOurs = ours.filter((m) => m.type === "tool" && ourInputs.has(m)).length;
  if (realTheirs > realOurs) diff.theirs_kept_real_results_we_dropped += realTheirs - realOurs;
  if (realOurs > realTheirs) diff.ours_kept_real_results_they_dropped += realOurs - realTheirs;
}

function instanceToDict(m) {
  if (m.type === "human") return { type: "human", content: m.content, id: m.id };
  if (m.type === "ai") return { type: "ai", content: m.content, id: m.id, tool_calls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args })) };
  return { type: "tool", content: m.content, id: m.id, tool_call_id: m.tool_call_id, name: m.name, ...(m.status ? { status: m.status } : {}) };
}

// ---------------------------------------------------------------------------------------------
test("differential: repairMessages vs deepagents PatchToolCalls on 1,000 seeded histories", async () => {
  const rand = mulberry32(SEED);
  const summary = {
    seed: `0x${SEED.toString(16)}`,
    histories: N_HISTORIES,
    deepagents: JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules/deepagents/package.json"), "utf8")).version,
    classes: {},
    agree: { cases: 0, with_dangling: 0, dangling_calls: 0, clean_no_patch: 0, disagreements: 0, first_disagreement: null },
    orphan_only: { cases: 0, identical_to_deepagents: 0 },
    features: { dangling: 0, late: 0, orphan: 0, duplicate: 0, early: 0, parallel: 0 },
    differences: {
      theirs_multiple_results_for_one_id: 0,
      theirs_unanswered_call: 0,
      theirs_kept_orphan: 0,
      theirs_result_not_after_call: 0,
      theirs_invalid_for_openai: 0,
      theirs_violation_rules: {},
      theirs_synthetic: 0,
      theirs_synthetic_text_cancelled: 0,
      theirs_synthetic_status_not_error: 0,
      theirs_synthetic_where_we_kept_real: 0,
      ours_synthetic_where_they_did_not: 0,
      theirs_kept_real_results_we_dropped: 0,
      ours_kept_real_results_they_dropped: 0,
    },
    ours_fix_kinds: {},
    invariant_failures: 0,
  };
  const invariantErrors = [];

  for (let n = 0; n < N_HISTORIES; n++) {
    const { specs, features } = generateHistory(rand, n);
    for (const k of Object.keys(features)) summary.features[k] += features[k];
    const cls = classOf(features);
    summary.classes[cls] = (summary.classes[cls] ?? 0) + 1;

    const dicts = specs.map(toDict);
    const instances = specs.map(toInstance);
    const { messages: ours, report } = repairMessages(dicts, { provider: "openai" });
    const theirs = await runDeepagents(instances);
    for (const f of report) summary.ours_fix_kinds[f.kind] = (summary.ours_fix_kinds[f.kind] ?? 0) + 1;

    try {
      checkOurInvariants(specs, dicts, ours, report);
    } catch (e) {
      summary.invariant_failures++;
      if (invariantErrors.length < 5) invariantErrors.push({ n, cls, error: e.message, history: dicts });
    }

    const ourSig = sigText(signature(ours, dicts));
    const theirSig = sigText(signature(theirs, instances));

    if (cls === "agree") {
      summary.agree.cases++;
      if (features.dangling > 0) summary.agree.with_dangling++;
      else summary.agree.clean_no_patch++;
      summary.agree.dangling_calls += features.dangling;
      if (ourSig !== theirSig) {
        summary.agree.disagreements++;
        if (!summary.agree.first_disagreement) {
          summary.agree.first_disagreement = { n, history: dicts, ours: ourSig, deepagents: theirSig };
        }
      }
      // Synthetic messages sit right after their AI message in both outputs (checked by the
      // signature) and carry the call's name in both.
      const synthNames = (out, inputs) => out.filter((m) => m.type === "tool" && !new Set(inputs).has(m)).map((m) => `${m.tool_call_id}:${m.name}`).join(",");
      assert.equal(synthNames(ours, dicts), synthNames(theirs, instances), `history ${n}: synthetic names differ`);
    } else {
      if (cls === "orphan") {
        summary.orphan_only.cases++;
        if (ourSig === theirSig) summary.orphan_only.identical_to_deepagents++;
      }
      countDifferences(specs, ours, theirs, dicts, instances, summary.differences);
    }
  }

  fs.mkdirSync(path.join(ROOT, "test-results"), { recursive: true });
  fs.writeFileSync(
    path.join(ROOT, "test-results/differential-summary.json"),
    JSON.stringify({ ...summary, invariant_errors: invariantErrors }, null, 2) + "\n",
  );

  assert.deepEqual(invariantErrors, [], "our invariants failed");
  assert.ok(summary.agree.cases >= 100, `only ${summary.agree.cases} cases in the agree class`);
  assert.ok(summary.agree.with_dangling >= 100, `only ${summary.agree.with_dangling} agree cases with dangling calls`);
  assert.equal(summary.agree.disagreements, 0, `first disagreement: ${JSON.stringify(summary.agree.first_disagreement, null, 2)}`);
});
