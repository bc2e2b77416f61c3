// Provider-valid output, checked by the providers' own definitions (issue 15): every history a
// model view or a conversion emits — every fixture transcript, in every format, at several
// budgets, plus a store's view with state sections — is written into a `.ts` file typed with the
// request types of the official packages and type-checked with `tsc --strict`, so a field the
// request does not define (excess property) or a missing required one fails:
//   OpenAI Chat     `ChatCompletionMessageParam[]`   (openai 7.55.0)
//   Anthropic       `MessageParam[]`                 (@anthropic-ai/sdk 1.10.0)
//   Gemini          `Content[]`                      (@google/genai 3.1.0)
//   AI SDK          `ModelMessage[]`                 (ai 6.0.325; also its runtime `modelMessageSchema`)
//   AI SDK UI       `UIMessage[]`                    (ai 6.0.325; also its runtime `validateUIMessages`)
//   OpenAI Responses `ResponseInputItem[]`           (openai 7.55.0)
//   OpenAI Agents   `AgentInputItem[]`               (@openai/agents 0.20.0)
//
// The same histories are also typed as stategate's own declared type `MessageOf<F>[]` (pkg/formats.d.ts,
// LangChain's dicts too), and each `MessageOf<F>` is checked assignable to the provider's type: what
// the package emits fits what it declares, and what it declares fits what the provider accepts.
//
// Run: node --test tests/js/provider-types.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { modelMessageSchema, validateUIMessages } from "ai";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { StateStore, convertMessages, projectMessages, readTranscript } from "../../pkg/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = path.join(ROOT, "tests/fixtures/transcripts");
const OUT = path.join(ROOT, "test-results/provider-types");
const BUDGETS = [2_000, 8_000, 32_000];

/** Each checked format: the module and type its histories are typed with. */
const TYPES = {
  openai: { from: "openai/resources/chat/completions", type: "ChatCompletionMessageParam" },
  anthropic: { from: "@anthropic-ai/sdk/resources/messages", type: "MessageParam" },
  gemini: { from: "@google/genai", type: "Content" },
  "ai-sdk": { from: "ai", type: "ModelMessage" },
  ui: { from: "ai", type: "UIMessage" },
  responses: { from: "openai/resources/responses/responses", type: "ResponseInputItem" },
  "openai-agents": { from: "@openai/agents", type: "AgentInputItem" },
};

/** Every format whose output is typed as stategate's own `MessageOf<F>` (LangChain has no provider type here). */
const OURS = ["langchain", ...Object.keys(TYPES)];

/** Every history to check, per format: `[label, messages]`. */
function histories() {
  const out = Object.fromEntries(OURS.map((f) => [f, []]));
  for (const file of fs.readdirSync(FIXTURES).filter((f) => !f.endsWith(".md"))) {
    const runs = readTranscript(fs.readFileSync(path.join(FIXTURES, file), "utf8"), { format: "langchain" }).runs.slice(0, 3);
    for (const [r, run] of runs.entries()) {
      for (const format of OURS) {
        out[format].push([`${file}#${r} converted`, convertMessages(run, { to: format })]);
        for (const budget of BUDGETS) {
          let view;
          try {
            view = projectMessages(run, { budget, format, system: "You are a careful assistant.", maxToolResultTokens: 500 });
          } catch (e) {
            if (e.code === "BUDGET_TOO_SMALL") continue; // nothing of the conversation fits: no view to check
            throw e;
          }
          out[format].push([`${file}#${r} view ${budget}`, view.messages]);
        }
      }
    }
  }
  // What apps hold: an Anthropic response kept whole, OpenAI messages with the app's ids,
  // LangChain class instances, tool results of several text blocks.
  const held = [
    new HumanMessage({ content: "Find CDG flights.", id: "h1" }),
    { id: "msg_1", type: "message", role: "assistant", model: "claude-x", content: [{ type: "text", text: "Searching." }, { type: "tool_use", id: "toolu_1", name: "search", input: { q: "CDG" } }], stop_reason: "tool_use", stop_sequence: null, usage: { input_tokens: 12, output_tokens: 9, cache_read_input_tokens: 1000 } },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "AF1 08:00" }, { type: "text", text: "BA2 09:00" }, { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" } }] }] },
    new AIMessage({ content: "Two flights.", id: "ai2" }),
    { id: "app-7", role: "user", content: "Book AF1." },
    // Files: a PDF inline (OpenAI Chat), and one at a URL with an image as an AI SDK file part.
    { role: "user", content: [{ type: "text", text: "Summarise this." }, { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0xLjQK", filename: "report.pdf" } }] },
    // A Responses reasoning item (id, encrypted content) before the answer: the AI SDK's
    // formats carry both on the reasoning part (providerOptions / providerMetadata.openai).
    { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "A PDF: summarise it." }], content: [{ type: "reasoning_text", text: "The file is a PDF." }], encrypted_content: "gAAAAB-encrypted" },
    { role: "assistant", content: "It is the Q3 report." },
    // The same as the AI SDK holds it (its OpenAI provider's metadata): back to an item format, a reasoning item.
    { role: "assistant", content: [{ type: "reasoning", text: "Check the year.", providerOptions: { openai: { itemId: "rs_2", reasoningEncryptedContent: "gAAAAB-two" } } }, { type: "text", text: "It covers 2025." }] },
    { role: "user", content: [{ type: "file", data: "https://example.com/q4.pdf", mediaType: "application/pdf", filename: "q4.pdf" }, { type: "file", data: "iVBORw0KGgo=", mediaType: "image/png" }, { type: "text", text: "And these?" }] },
  ];
  for (const format of OURS) {
    out[format].push(["held, converted", convertMessages(held, { to: format })]);
    out[format].push(["held, projected", projectMessages(held, { budget: 4_000, format }).messages]);
  }
  // A store's model view: state sections, a compaction summary, a dangling call repaired.
  const store = new StateStore({ runId: "types" });
  store.apply({ author: "user", update: { run: { status: "running", task: "Plan a trip" }, plan: { s1: { title: "Find flights", status: "pending" } }, facts: { city: "Paris" } } });
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "Find me a flight." }] } });
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: "Searching.", tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: "{\"q\":\"CDG\"}" } }] }] } });
  for (const format of OURS) out[format].push([`store view`, store.modelView({ budget: 4_000, format }).messages]);
  return out;
}

test("every emitted history type-checks against the providers' own request types", async () => {
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  const all = histories();
  for (const [format, list] of Object.entries(all)) {
    assert.ok(list.length >= 24, `${format}: ${list.length} histories`);
    const provider = TYPES[format];
    const ours = `MessageOf<${JSON.stringify(format)}>`;
    const lines = [
      `// Generated by tests/js/provider-types.test.mjs: stategate's ${format} output typed as ${provider ? `${provider.type}[] and ` : ""}${ours}[].`,
      `import type { MessageOf } from "../../pkg/index.js";`,
    ];
    if (provider) {
      lines.push(
        `import type { ${provider.type} } from "${provider.from}";`,
        `// What stategate declares fits what the provider accepts (ours ⊆ provider's).`,
        `export const declared: ${provider.type} = null as unknown as ${ours};`,
      );
    }
    for (const [k, [label, messages]] of list.entries()) {
      const json = JSON.stringify(messages);
      lines.push(`// ${label}`, `export const o${k}: ${ours}[] = ${json};`);
      if (provider) lines.push(`export const h${k}: ${provider.type}[] = ${json};`);
    }
    fs.writeFileSync(path.join(OUT, `${format.replace("-", "_")}.ts`), `${lines.join("\n")}\n`);
    // The runtime schemas of the ai package as well.
    if (format === "ai-sdk") {
      for (const [label, messages] of list) for (const m of messages) assert.ok(modelMessageSchema.safeParse(m).success, `${label}: ${JSON.stringify(m).slice(0, 300)}`);
    }
    if (format === "ui") for (const [label, messages] of list) await validateUIMessages({ messages }).catch((e) => assert.fail(`${label}: ${e.message.slice(0, 500)}`));
  }
  fs.writeFileSync(
    path.join(OUT, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", skipLibCheck: true, types: [], typeRoots: [path.join(ROOT, "node_modules/@types")] }, include: ["*.ts"] }),
  );
  // Resolve the packages from the repository's node_modules.
  fs.writeFileSync(path.join(OUT, "package.json"), JSON.stringify({ type: "module" }));
  if (!fs.existsSync(path.join(OUT, "node_modules"))) fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(OUT, "node_modules"), "dir");
  let output = "";
  try {
    execFileSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", OUT], { encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    output = `${e.stdout}${e.stderr}`;
  }
  assert.equal(output, "", `tsc found output the providers would refuse:\n${output.slice(0, 6000)}`);
});
