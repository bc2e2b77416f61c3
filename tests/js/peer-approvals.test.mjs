// The tool-approval cases of the AI SDK's own `convertToModelMessages` tests (vercel/ai,
// packages/ai/src/ui/convert-to-model-messages.test.ts), ported as data to
// tests/peer-suites/ai-sdk/convert-to-model-messages.approvals.json (source commit and license in
// its `source`). Each case runs twice:
//   (a) the real `ai` package (6.0.325): `convertToModelMessages(input, options)` equals the
//       case's `expected`, so the data stays true to the oracle;
//   (b) stategate: `convertMessages(input, { from: "ui", to: "ai-sdk" })` equals the same
//       `expected`, strictly — no normalisation beyond a JSON round trip (the AI SDK writes
//       `providerExecuted: undefined` and the like, which no JSON carries).
// A case's `options` (`ignoreIncompleteToolCalls`) go to (a) only: `convertMessages` has no such
// option (stategate answers an incomplete call by repair, never by dropping it), so for such a
// case (b) compares stategate with the real function called without the options — the AI SDK's
// output for the same input, not the test's expectation. No ported case needs `tools`.
//
// Run: node --test tests/js/peer-approvals.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { convertToModelMessages } from "ai";
import { convertMessages } from "../../pkg/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SUITE = JSON.parse(
  fs.readFileSync(path.join(ROOT, "tests/peer-suites/ai-sdk/convert-to-model-messages.approvals.json"), "utf8"),
);

/**
 * Cases where stategate differs on purpose, by case name: what it does instead and why. Each is
 * asserted, not skipped.
 */
const DIFFERENCES = {
  "convertToModelMessages > when ignoring incomplete tool calls > should ignore tool calls that are awaiting approval or have no state": {
    // A tool part without `state` is no UIMessage: the AI SDK's own validateUIMessages refuses it
    // (AI_TypeValidationError); stategate refuses it rather than guess what it holds.
    code: "INVALID_MESSAGE",
    says: /state/,
  },
};

/** The value as JSON carries it: `undefined` members vanish. */
const asJson = (value) => JSON.parse(JSON.stringify(value));

test("the approval suite is present and names its source", () => {
  assert.equal(SUITE.source.repository, "vercel/ai");
  assert.match(SUITE.source.commit, /^[0-9a-f]{40}$/);
  assert.ok(SUITE.cases.length > 0, "at least one case");
  const names = SUITE.cases.map((c) => c.name);
  assert.equal(new Set(names).size, names.length, "case names are unique");
});

for (const c of SUITE.cases) {
  assert.ok(!c.needsTools, `${c.name}: a case that needs tools has no runner`);
  test(`${c.name} [ai convertToModelMessages]`, async () => {
    const theirs = await convertToModelMessages(structuredClone(c.input), c.options ? structuredClone(c.options) : undefined);
    assert.deepStrictEqual(asJson(theirs), c.expected);
  });

  const differs = DIFFERENCES[c.name];
  if (differs) {
    test(`${c.name} [stategate convertMessages: expected difference, ${differs.code}]`, () => {
      assert.throws(() => convertMessages(structuredClone(c.input), { from: "ui", to: "ai-sdk" }), (e) => e.code === differs.code && differs.says.test(e.message));
    });
    continue;
  }
  const label = c.options ? " (the AI SDK without options: stategate has none)" : "";
  test(`${c.name} [stategate convertMessages]${label}`, async () => {
    const ours = convertMessages(structuredClone(c.input), { from: "ui", to: "ai-sdk" });
    const expected = c.options ? asJson(await convertToModelMessages(structuredClone(c.input))) : c.expected;
    assert.deepStrictEqual(asJson(ours), expected);
  });
}
