// Benchmarks for stategate (wasm) — run: node benches/repair.bench.mjs [--write]
//
//   (a) repairMessages on a 10,000-message LangChain-dict history with 100 dangling calls, vs
//       deepagents' PatchToolCalls `beforeAgent` on the same history as LangChain instances,
//       interleaved run by run (A B A B) in one process; validateMessages on the same dicts
//   (a') cold: a fresh Node process per measurement (spawned, A B A B), timing the import and the
//       first call, for stategate (the bare import, and stategate/messages with its smaller
//       module) and for deepagents; median of COLD_PROCESSES each
//   (b) repairMessages on the same history as OpenAI-format objects
//   (c) validateMessages over all 200 tau-bench runs (objects, and JSON text)
//   (d) release wasm size, raw and gzip -9
//   (e) 200,000 plain messages: validate vs repair (interleaved), JSON text, gemini, convert, check
//
// Inputs are built outside the timed regions; each case is warmed up, then the median of RUNS
// runs is reported. With --write, the "repair" section of BENCHMARKS.md (between
// <!-- bench:repair:begin --> and <!-- bench:repair:end -->) is replaced; the rest of the file
// (e.g. the section of benches/store.bench.mjs) is kept. Benchmarks never assert timings.
//
// Results (benches/results/repair.json, with --write; read by benches/standing.mjs): issue 17's
// row 1 as two rows — warm: stategate's (a) time, and deepagents / stategate per interleaved
// round (median, min–max of the rounds), goal ≥ 8×; cold: import + first call in fresh processes,
// deepagents / stategate per pair of processes, goal ≥ 3× — and issue 14's 200k validation
// (≤ 500 ms; validate / repair ≤ 2×). BENCH_SMOKE=1 (tests/js/bench-smoke.test.mjs): 1,000
// messages, 3 runs, one cold process each, 2,000 messages for (e); its figures mean nothing.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { performance } from "node:perf_hooks";
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { pick, resultRow, stat as statOf, ratioStat, writeResults, writeSection } from "./lib.mjs";
import { HumanMessage, AIMessage, ToolMessage } from "@langchain/core/messages";
import { createPatchToolCallsMiddleware } from "deepagents";
import { repairMessages, validateMessages, convertMessages, readTranscript, StateStore } from "../pkg/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WRITE = process.argv.includes("--write");
const WARMUP = pick(5, 1);
const RUNS = pick(21, 3);
const GOAL_RATIO = 8; // issue 17: ≥ 8× deepagents warm
const COLD_GOAL_RATIO = 3; // issue 17: ≥ 3× on the first call in a fresh process
const COLD_PROCESSES = pick(9, 1);

// ---------------------------------------------------------------------------------------------
// Timing helpers
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
async function bench(fn, warmup = WARMUP, runs = RUNS) {
  for (let i = 0; i < warmup; i++) await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return stat(times);
}
const stat = (xs) => ({ ...statOf(xs), times: xs }); // the times kept for per-round ratios
/** Runs the cases in turn, round after round (A B A B …), so all see the same machine state. */
async function interleaved(cases, warmup = WARMUP, runs = RUNS) {
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < warmup + runs; i++) {
    for (const [k, fn] of Object.entries(cases)) {
      const t0 = performance.now();
      await fn();
      const t = performance.now() - t0;
      if (i >= warmup) times[k].push(t);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, stat(xs)]));
}
let sink = 0; // keeps results alive so nothing is optimised away

// ---------------------------------------------------------------------------------------------
// (a)/(b) input: 2,000 blocks of 5 messages = 10,000 messages, 4,000 parallel calls.
// Block: human, ai(2 calls), tool, tool, ai(text). Every 20th block loses its second result
// (replaced by a user message), giving exactly 100 dangling calls.
const BLOCKS = pick(2000, 200);
const N_MESSAGES = BLOCKS * 5;
const N_DANGLING = BLOCKS / 20;
const DANGLING_EVERY = 20;
function buildSpecs() {
  const specs = [];
  for (let b = 0; b < BLOCKS; b++) {
    const c1 = `call_${b}_a`;
    const c2 = `call_${b}_b`;
    specs.push({ kind: "human", id: `m${b}_0`, content: `Please look up item ${b}.` });
    specs.push({
      kind: "ai",
      id: `m${b}_1`,
      content: "",
      calls: [
        { id: c1, name: "read_file", args: { path: `/data/${b}.txt` } },
        { id: c2, name: "grep", args: { pattern: `item-${b}`, path: "/data" } },
      ],
    });
    specs.push({ kind: "tool", id: `m${b}_2`, callId: c1, name: "read_file", content: `contents of ${b}.txt: lorem ipsum dolor sit amet` });
    if (b % DANGLING_EVERY === DANGLING_EVERY - 1) {
      specs.push({ kind: "human", id: `m${b}_3`, content: "Never mind, stop that." });
    } else {
      specs.push({ kind: "tool", id: `m${b}_3`, callId: c2, name: "grep", content: `/data/${b}.txt:1: item-${b}` });
    }
    specs.push({ kind: "ai", id: `m${b}_4`, content: `Item ${b} is lorem ipsum.`, calls: [] });
  }
  return specs;
}
const toDict = (s) =>
  s.kind === "human"
    ? { type: "human", content: s.content, id: s.id }
    : s.kind === "ai"
      ? { type: "ai", content: s.content, id: s.id, tool_calls: s.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })) }
      : { type: "tool", content: s.content, id: s.id, tool_call_id: s.callId, name: s.name };
const toInstance = (s) =>
  s.kind === "human"
    ? new HumanMessage({ content: s.content, id: s.id })
    : s.kind === "ai"
      ? new AIMessage({ content: s.content, id: s.id, tool_calls: s.calls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: "tool_call" })) })
      : new ToolMessage({ content: s.content, id: s.id, tool_call_id: s.callId, name: s.name });

const specs = buildSpecs();
const dicts = specs.map(toDict);
const instances = specs.map(toInstance);
const openai = convertMessages(dicts, { to: "openai" });

const mw = createPatchToolCallsMiddleware();
const beforeAgent = typeof mw.beforeAgent === "function" ? mw.beforeAgent : mw.beforeAgent.hook;

// Sanity (untimed): both repairs add exactly 100 synthetic results.
{
  const ours = repairMessages(dicts, { provider: "openai" });
  const oursOpenai = repairMessages(openai, { provider: "openai" });
  const theirs = await beforeAgent({ messages: instances });
  const missing = (r) => r.report.filter((f) => f.kind === "missing_result").length;
  const theirSynthetic = theirs.messages.length - 1 - instances.length;
  if (dicts.length !== N_MESSAGES || missing(ours) !== N_DANGLING || missing(oursOpenai) !== N_DANGLING || theirSynthetic !== N_DANGLING) {
    throw new Error(`bench input sanity check failed: ${dicts.length} msgs, ours ${missing(ours)}/${missing(oursOpenai)}, deepagents ${theirSynthetic}`);
  }
}

// (c) input: tau-bench runs.
const tau = readTranscript(fs.readFileSync(path.join(ROOT, "tests/fixtures/transcripts/taubench-gpt4o-airline-historical.json"), "utf8"));
const tauRuns = tau.runs;
const tauJson = tauRuns.map((r) => JSON.stringify(r));
const tauMessages = tauRuns.reduce((a, r) => a + r.length, 0);

// ---------------------------------------------------------------------------------------------
// Measurements
const results = {};
Object.assign(
  results,
  await interleaved({
    oursLc: () => {
      sink += repairMessages(dicts, { provider: "openai" }).messages.length;
    },
    deepagents: async () => {
      const r = await beforeAgent({ messages: instances });
      sink += r.messages.length;
    },
    validateLc: () => {
      sink += validateMessages(dicts, { provider: "openai" }).length;
    },
  }),
);
results.oursOpenai = await bench(() => {
  sink += repairMessages(openai, { provider: "openai" }).messages.length;
});
results.tauObjects = await bench(() => {
  for (const run of tauRuns) sink += validateMessages(run, { provider: "openai" }).length;
});
results.tauJson = await bench(() => {
  for (const text of tauJson) sink += validateMessages(text, { provider: "openai" }).length;
});

// (a') cold: each measurement in a fresh process. The child builds the input first (deepagents'
// LangChain instances need @langchain/core, loaded before the clock starts), then times the
// library's import and its first call.
const COLD_CHILD = `
const [which, root] = process.argv.slice(1);
const { performance } = await import("node:perf_hooks");
const B = ${BLOCKS}, E = ${DANGLING_EVERY};
const buildSpecs = ${buildSpecs.toString().replace(/BLOCKS/g, "B").replace(/DANGLING_EVERY/g, "E")};
const specs = buildSpecs();
let input, t0, t1, n;
if (which === "stategate" || which === "messages" || which === "validate") {
  const toDict = ${toDict.toString()};
  input = specs.map(toDict);
  t0 = performance.now();
  const { repairMessages, validateMessages } = await import(new URL(which === "messages" ? "pkg/messages.js" : "pkg/index.js", root).href);
  t1 = performance.now();
  n = which === "validate" ? validateMessages(input, { provider: "openai" }).length : repairMessages(input, { provider: "openai" }).messages.length;
} else {
  const { HumanMessage, AIMessage, ToolMessage } = await import("@langchain/core/messages");
  const toInstance = ${toInstance.toString()};
  input = specs.map(toInstance);
  t0 = performance.now();
  const { createPatchToolCallsMiddleware } = await import("deepagents");
  t1 = performance.now();
  const mw = createPatchToolCallsMiddleware();
  const beforeAgent = typeof mw.beforeAgent === "function" ? mw.beforeAgent : mw.beforeAgent.hook;
  n = (await beforeAgent({ messages: input })).messages.length;
}
const t2 = performance.now();
// deepagents answers with a RemoveMessage (replace all) first.
if (n !== (which === "stategate" || which === "messages" ? ${N_MESSAGES + N_DANGLING} : which === "validate" ? ${N_DANGLING} : ${N_MESSAGES + N_DANGLING + 1})) throw new Error("cold child: unexpected message count " + n);
console.log(JSON.stringify({ total: t2 - t0, first: t2 - t1 }));
`;
{
  const cold = { stategate: [], deepagents: [], validate: [], messages: [] };
  for (let i = 0; i < COLD_PROCESSES; i++) {
    for (const which of ["stategate", "deepagents", "validate", "messages"]) {
      // --eval resolves packages from the working directory (the repository's node_modules).
      const out = execFileSync(process.execPath, ["--input-type=module", "--eval", COLD_CHILD, which, pathToFileURL(ROOT + "/").href], { cwd: ROOT, encoding: "utf8" });
      cold[which].push(JSON.parse(out.trim().split("\n").at(-1)));
    }
  }
  results.coldOurs = stat(cold.stategate.map((c) => c.total));
  results.coldOursFirst = stat(cold.stategate.map((c) => c.first));
  results.coldDeep = stat(cold.deepagents.map((c) => c.total));
  results.coldDeepFirst = stat(cold.deepagents.map((c) => c.first));
  results.coldValidate = stat(cold.validate.map((c) => c.total));
  results.coldValidateFirst = stat(cold.validate.map((c) => c.first));
  results.coldGate = stat(cold.messages.map((c) => c.total));
  results.coldGateFirst = stat(cold.messages.map((c) => c.first));
}

// (e) input, built only now so the big heap does not slow the cases above: 200,000 plain user/assistant messages (issue 14: validation was quadratic).
const BIG = pick(200_000, 2_000);
const BIG_RUNS = pick(5, 2);
const big = Array.from({ length: BIG }, (_, i) => (i % 2 ? { role: "assistant", content: `answer ${i}: ${"x".repeat(40)}` } : { role: "user", content: `question ${i}: ${"y".repeat(40)}` }));
const bigJson = JSON.stringify(big);
const bigStore = new StateStore();
bigStore.apply({ author: "u", update: { messages: big } });

// (e), interleaved: validate and repair alternate run by run, so both see the same machine state.
{
  const v = [], r = [];
  for (let i = 0; i < BIG_RUNS + 1; i++) {
    const t0 = performance.now();
    sink += validateMessages(big, { provider: "openai" }).length;
    const t1 = performance.now();
    sink += repairMessages(big).messages.length;
    const t2 = performance.now();
    if (i > 0) v.push(t1 - t0), r.push(t2 - t1); // the first round is the warm-up
  }
  results.bigValidate = stat(v);
  results.bigRepair = stat(r);
}
results.bigValidateJson = await bench(() => {
  sink += validateMessages(bigJson, { provider: "openai" }).length;
}, 1, BIG_RUNS);
results.bigValidateGemini = await bench(() => {
  sink += validateMessages(big, { provider: "gemini" }).length;
}, 1, BIG_RUNS);
results.bigConvertGemini = await bench(() => {
  sink += convertMessages(big, { to: "gemini" }).length;
}, 1, BIG_RUNS);
results.bigCheck = await bench(() => {
  bigStore.check({ author: "u", update: { messages: [{ role: "user", content: "one more" }] } });
  sink += 1;
}, 1, BIG_RUNS);

const wasmPath = path.join(ROOT, "pkg/stategate_wasm_bg.wasm");
const wasmBytes = fs.readFileSync(wasmPath);
const wasmRaw = wasmBytes.length;
const wasmGzip = zlib.gzipSync(wasmBytes, { level: 9 }).length;

const ratio = results.deepagents.median / results.oursLc.median;
const goalMet = ratio >= GOAL_RATIO;
const coldRatio = results.coldDeep.median / results.coldOurs.median;
const coldFirstRatio = results.coldDeepFirst.median / results.coldOursFirst.median;
const coldMet = coldRatio >= COLD_GOAL_RATIO;
// Per-round (warm, interleaved) and per-pair-of-processes (cold) ratios: their min–max.
const warmRatios = ratioStat(results.deepagents.times, results.oursLc.times, "deepagents / stategate (ratio of the medians; min–max over the interleaved rounds)");
const coldRatios = ratioStat(results.coldDeep.times, results.coldOurs.times, "deepagents / stategate, import + first call (ratio of the medians; min–max over the pairs of processes)");

// ---------------------------------------------------------------------------------------------
// Report
const ms = (x) => x.toFixed(2);
const us = (total) => ((total * 1000) / tauMessages).toFixed(2);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const rows = [
  ["Case", "Input", "Median", "Min–max", "Notes"],
  ["(a) `repairMessages`", `${N_MESSAGES.toLocaleString("en")} LangChain dicts, ${N_DANGLING} dangling calls`, `${ms(results.oursLc.median)} ms`, `${ms(results.oursLc.min)}–${ms(results.oursLc.max)} ms`, "stategate"],
  ["(a) deepagents `beforeAgent` (PatchToolCalls)", "same history, LangChain message instances", `${ms(results.deepagents.median)} ms`, `${ms(results.deepagents.min)}–${ms(results.deepagents.max)} ms`, `interleaved with the row above; deepagents/ours = **${ratio.toFixed(2)}×** (per round ${warmRatios.min.toFixed(2)}–${warmRatios.max.toFixed(2)}×)`],
  ["(a) `validateMessages`", `same ${N_MESSAGES.toLocaleString("en")} LangChain dicts, openai`, `${ms(results.validateLc.median)} ms`, `${ms(results.validateLc.min)}–${ms(results.validateLc.max)} ms`, "interleaved with the rows above"],
  ["(a') cold `repairMessages`", `fresh process: import + first call (${COLD_PROCESSES} processes)`, `${ms(results.coldOurs.median)} ms`, `${ms(results.coldOurs.min)}–${ms(results.coldOurs.max)} ms`, `first call alone ${ms(results.coldOursFirst.median)} ms (${ms(results.coldOursFirst.min)}–${ms(results.coldOursFirst.max)})`],
  ["(a') cold deepagents `beforeAgent`", `fresh process: import + first call (${COLD_PROCESSES} processes, interleaved with the row above)`, `${ms(results.coldDeep.median)} ms`, `${ms(results.coldDeep.min)}–${ms(results.coldDeep.max)} ms`, `first call alone ${ms(results.coldDeepFirst.median)} ms (${ms(results.coldDeepFirst.min)}–${ms(results.coldDeepFirst.max)}); deepagents/ours = **${coldRatio.toFixed(2)}×** (per pair of processes ${coldRatios.min.toFixed(2)}–${coldRatios.max.toFixed(2)}×; first call alone ${coldFirstRatio.toFixed(2)}×)`],
  ["(a') cold `repairMessages` from `stategate/messages`", `fresh process: import of the message gate's own module + first call (${COLD_PROCESSES} processes, interleaved with the rows above)`, `${ms(results.coldGate.median)} ms`, `${ms(results.coldGate.min)}–${ms(results.coldGate.max)} ms`, `first call alone ${ms(results.coldGateFirst.median)} ms (${ms(results.coldGateFirst.min)}–${ms(results.coldGateFirst.max)}); deepagents/ours = **${(results.coldDeep.median / results.coldGate.median).toFixed(2)}×**; ${(results.coldGate.median / results.coldOurs.median).toFixed(2)}× the bare import's`],
  ["(a') cold `validateMessages`", `fresh process: import + first call (${COLD_PROCESSES} processes, interleaved with the rows above)`, `${ms(results.coldValidate.median)} ms`, `${ms(results.coldValidate.min)}–${ms(results.coldValidate.max)} ms`, `first call alone ${ms(results.coldValidateFirst.median)} ms (${ms(results.coldValidateFirst.min)}–${ms(results.coldValidateFirst.max)}), ${(results.coldValidateFirst.median / results.validateLc.median).toFixed(1)}× the warm call`],
  ["(b) `repairMessages`", "same history, OpenAI-format objects", `${ms(results.oursOpenai.median)} ms`, `${ms(results.oursOpenai.min)}–${ms(results.oursOpenai.max)} ms`, ""],
  ["(c) `validateMessages`", `${tauRuns.length} tau-bench runs (${tauMessages} msgs), objects`, `${ms(results.tauObjects.median)} ms`, `${ms(results.tauObjects.min)}–${ms(results.tauObjects.max)} ms`, `${us(results.tauObjects.median)} µs/message`],
  ["(c) `validateMessages`", `${tauRuns.length} tau-bench runs (${tauMessages} msgs), JSON text`, `${ms(results.tauJson.median)} ms`, `${ms(results.tauJson.min)}–${ms(results.tauJson.max)} ms`, `${us(results.tauJson.median)} µs/message`],
  ["(e) `validateMessages`", `${BIG.toLocaleString("en")} plain user/assistant messages, objects, openai`, `${ms(results.bigValidate.median)} ms`, `${ms(results.bigValidate.min)}–${ms(results.bigValidate.max)} ms`, `interleaved with the row below; validate/repair = **${(results.bigValidate.median / results.bigRepair.median).toFixed(2)}×**`],
  ["(e) `repairMessages`", `same ${BIG.toLocaleString("en")} messages, objects`, `${ms(results.bigRepair.median)} ms`, `${ms(results.bigRepair.min)}–${ms(results.bigRepair.max)} ms`, ""],
  ["(e) `validateMessages`", "same, JSON text", `${ms(results.bigValidateJson.median)} ms`, `${ms(results.bigValidateJson.min)}–${ms(results.bigValidateJson.max)} ms`, ""],
  ["(e) `validateMessages`", "same, objects, gemini", `${ms(results.bigValidateGemini.median)} ms`, `${ms(results.bigValidateGemini.min)}–${ms(results.bigValidateGemini.max)} ms`, ""],
  ["(e) `convertMessages`", "same, objects, to gemini", `${ms(results.bigConvertGemini.median)} ms`, `${ms(results.bigConvertGemini.min)}–${ms(results.bigConvertGemini.max)} ms`, ""],
  ["(e) `store.check`", `one message, on a store holding the same ${BIG.toLocaleString("en")}`, `${ms(results.bigCheck.median)} ms`, `${ms(results.bigCheck.min)}–${ms(results.bigCheck.max)} ms`, ""],
  ["(d) wasm size", "`pkg/stategate_wasm_bg.wasm`", `${wasmRaw} B (${kib(wasmRaw)})`, "", `gzip -9: ${wasmGzip} B (${kib(wasmGzip)})`],
];
const table = [
  `| ${rows[0].join(" | ")} |`,
  `|${rows[0].map(() => "---").join("|")}|`,
  ...rows.slice(1).map((r) => `| ${r.join(" | ")} |`),
].join("\n");
const bigRatio = results.bigValidate.median / results.bigRepair.median;
const bigMet = results.bigValidate.median < 500 && bigRatio <= 2;
const goalLine = `Goal (issue 17): repair ≥ ${GOAL_RATIO}× faster than deepagents warm — ${goalMet ? "**met**" : "**not met**"} (${ratio.toFixed(2)}×); ≥ ${COLD_GOAL_RATIO}× on the first call in a fresh process — ${coldMet ? "**met**" : "**not met**"} (${coldRatio.toFixed(2)}× import + first call, ${coldFirstRatio.toFixed(2)}× first call alone). Goal (issue 14): validate 200k messages in under 0.5 s and within 2× of repair — ${bigMet ? "**met**" : "**not met**"} (${ms(results.bigValidate.median)} ms, ${bigRatio.toFixed(2)}×).`;

console.log(table);
console.log();
console.log(goalLine);
console.log(`(warm-up ${WARMUP}, median of ${RUNS} runs each; sink ${sink > 0 ? "ok" : "0"})`);

// Results for benches/standing.mjs: met is computed from the medians above.
const bigRatios = ratioStat(results.bigValidate.times, results.bigRepair.times, "validate / repair (ratio of the medians; min–max over the interleaved rounds)");
writeResults("repair", [
  resultRow({
    id: "repair-warm",
    label: `\`repairMessages\`, ${N_MESSAGES.toLocaleString("en")} LangChain dicts, ${N_DANGLING} dangling, vs deepagents PatchToolCalls (warm)`,
    unit: "ms",
    figure: results.oursLc,
    ratio: warmRatios,
    goal: { value: GOAL_RATIO, direction: "≥", issue: 17 },
    note: `deepagents ${ms(results.deepagents.median)} ms (${ms(results.deepagents.min)}–${ms(results.deepagents.max)})`,
  }),
  resultRow({
    id: "repair-cold",
    label: `same, first call in a fresh process (import + first call), vs deepagents`,
    unit: "ms",
    figure: results.coldOurs,
    ratio: coldRatios,
    goal: { value: COLD_GOAL_RATIO, direction: "≥", issue: 17 },
    note: `${COLD_PROCESSES} processes each; deepagents ${ms(results.coldDeep.median)} ms; the first call alone (import excluded): ${ms(results.coldOursFirst.median)} ms vs ${ms(results.coldDeepFirst.median)} ms = ${coldFirstRatio.toFixed(2)}×`,
  }),
  resultRow({
    id: "validate-200k",
    label: `\`validateMessages\`, ${BIG.toLocaleString("en")} plain messages, objects`,
    unit: "ms",
    figure: results.bigValidate,
    goal: { value: 500, direction: "≤", issue: 14 },
  }),
  resultRow({
    id: "validate-vs-repair-200k",
    label: `\`validateMessages\` / \`repairMessages\`, same ${BIG.toLocaleString("en")} messages`,
    unit: "ms",
    figure: results.bigValidate,
    ratio: bigRatios,
    goal: { value: 2, direction: "≤", issue: 14 },
  }),
]);

if (WRITE) {
  const pkgVersion = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
  const cpus = os.cpus();
  const md = `## Repair and validation (\`repairMessages\`, \`validateMessages\`)

Generated by \`node benches/repair.bench.mjs --write\`. Timings are medians of ${RUNS} runs after
${WARMUP} warm-up runs, with min–max; peers are interleaved run by run (A B A B) in one process;
inputs are built outside the timed region. Numbers are indicative only (single machine, no
isolation, other work running) and are never asserted.

| | |
|---|---|
| Machine | ${cpus[0]?.model ?? "unknown"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} (${os.arch()}) |
| Node | ${process.version} |
| deepagents | ${pkgVersion("deepagents")} |
| @langchain/core | ${pkgVersion("@langchain/core")} |
| Date | ${new Date().toISOString().slice(0, 10)} |

${table}

${goalLine}

Inputs:

- (a)/(b): 2,000 blocks of \`human, ai(2 parallel calls), tool, tool, ai(text)\` = 10,000 messages and
  4,000 calls; in every 20th block the second result is replaced by a user message, giving 100
  dangling calls. stategate gets plain LangChain dicts (\`{type: "human" | "ai" | "tool", ...}\`),
  deepagents gets \`HumanMessage\` / \`AIMessage\` / \`ToolMessage\` instances of the same history and
  runs \`createPatchToolCallsMiddleware().beforeAgent({messages})\`. Both add 100 synthetic
  results (checked before timing). Untouched messages cost stategate no conversion: the façade
  sends a skeleton (ids, names, roles, emptiness) and hands back the caller's own objects
  (\`ts/skeleton.ts\`, DESIGN §5). (b) is the same history converted with
  \`convertMessages(..., {to: "openai"})\`.
- (a'): each measurement is a fresh \`node\` process (spawned, stategate's repair, deepagents,
  stategate's \`validateMessages\` of the same dicts and the repair from \`stategate/messages\` in
  turn, ${COLD_PROCESSES} each). The child builds its input first (for deepagents, its LangChain instances, so
  \`@langchain/core\` is loaded before the clock starts), then times the import of the library
  (\`pkg/index.js\`, or \`pkg/messages.js\` with the message gate's smaller module, each compiling
  its wasm; \`deepagents\`) plus the first call.
- (c): \`readTranscript(tests/fixtures/transcripts/taubench-gpt4o-airline-historical.json)\`, every
  run validated with \`{provider: "openai"}\`; "JSON text" passes each run as \`JSON.stringify(run)\`
  (stringified outside the timed region).
- (e): 200,000 alternating \`{role: "user" | "assistant", content}\` messages (~55 characters each),
  built outside the timed region; 1 warm-up and ${BIG_RUNS} runs each; validate and repair are
  interleaved run by run. \`store.check\` runs the whole gate for one new message on a store that
  already holds the 200,000 (and rolls it back).
- (d): the wasm as built into \`pkg/\` by \`scripts/build.sh\` (release), gzip via zlib level 9.
`;
  writeSection("repair", md);
}

