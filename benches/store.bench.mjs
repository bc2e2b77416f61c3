// Benchmarks of the stategate `StateStore` messages channel (wasm) vs LangGraph's
// `messagesStateReducer` — run: node benches/store.bench.mjs [--write]
//
//   (a) 10,000 sequential appends of one ~200-character message each, alternating user and
//       assistant: `store.apply({author, update: {messages: [msg]}})` (each append crosses from
//       JS into wasm) vs `state = messagesStateReducer(state, [new HumanMessage(...)])` with the
//       state growing. Total time of the 10,000 appends; median of RUNS_A runs.
//   (b) cost of one append when the list already holds 1k, 10k, 100k messages: each append of a
//       window is timed on its own; the median (and the mean) is reported. The pre-fill is done
//       outside the timed region (the store: one command with all N messages; LangGraph: one
//       reducer call). LangGraph at 100k uses a window of 50 appends (each one copies the list).
//
// Message contents are built before the timed regions; the message objects themselves (a plain
// object for the store, a HumanMessage / AIMessage for LangGraph) are created inside, as each
// API requires. Benchmarks never assert timings. With --write, the "store" section of
// BENCHMARKS.md (between <!-- bench:store:begin --> and <!-- bench:store:end -->) is replaced;
// the rest of the file is kept.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { writeSection } from "./lib.mjs";
import { HumanMessage, AIMessage } from "@langchain/core/messages";
import { messagesStateReducer } from "@langchain/langgraph";
import { StateStore } from "../pkg/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WRITE = process.argv.includes("--write");
const N_APPENDS = 10_000;
const RUNS_A = 5; // stategate
const RUNS_A_LANGGRAPH = 3; // ~15 s per run of 10,000 appends (each append copies the list)
const GOAL_RATIO = 100;
const FILLS = [1_000, 10_000, 100_000];
const WINDOW = 1_000;
const WARMUP_APPENDS = 100;
const LANGGRAPH_WINDOW = { 1_000: 1_000, 10_000: 1_000, 100_000: 50 };

// ---------------------------------------------------------------------------------------------
// Helpers
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
let sink = 0; // keeps results alive so nothing is optimised away

const LOREM =
  "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. " +
  "Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. ";
/** ~200 characters, different for every i. */
const text = (i) => `#${i} ${LOREM}`.slice(0, 200);
const CONTENTS = Array.from({ length: Math.max(N_APPENDS, ...FILLS) + WINDOW + WARMUP_APPENDS }, (_, i) => text(i));
const role = (i) => (i % 2 === 0 ? "user" : "assistant");
const lcMessage = (i) => (i % 2 === 0 ? new HumanMessage(CONTENTS[i]) : new AIMessage(CONTENTS[i]));

// ---------------------------------------------------------------------------------------------
// (a) 10,000 sequential appends
function ourAppends(n) {
  const store = new StateStore({ runId: "bench-a" });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = store.apply({ author: "bench", update: { messages: [{ role: role(i), content: CONTENTS[i] }] } });
    sink += r.version;
  }
  const ms = performance.now() - t0;
  const check = store.get("messages");
  if (check.length !== n || check[n - 1].content !== CONTENTS[n - 1]) throw new Error(`store sanity check failed: ${check.length} messages`);
  store.free();
  return ms;
}
function theirAppends(n) {
  let state = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) state = messagesStateReducer(state, [lcMessage(i)]);
  const ms = performance.now() - t0;
  if (state.length !== n || state[n - 1].content !== CONTENTS[n - 1]) throw new Error(`LangGraph sanity check failed: ${state.length} messages`);
  sink += state.length;
  return ms;
}

// Warm-up (JIT, wasm tiering) on a shorter run of each.
ourAppends(1_000);
theirAppends(1_000);

const a = { ours: [], theirs: [] };
for (let r = 0; r < Math.max(RUNS_A, RUNS_A_LANGGRAPH); r++) {
  if (r < RUNS_A) a.ours.push(ourAppends(N_APPENDS));
  if (r < RUNS_A_LANGGRAPH) a.theirs.push(theirAppends(N_APPENDS));
}
const aOurs = median(a.ours);
const aTheirs = median(a.theirs);
const ratio = aTheirs / aOurs;

// ---------------------------------------------------------------------------------------------
// (b) per-append cost at a given size
function timeEach(window, appendOne) {
  const times = new Array(window);
  for (let i = 0; i < window; i++) {
    const t0 = performance.now();
    appendOne(i);
    times[i] = performance.now() - t0;
  }
  return { medianUs: median(times) * 1000, meanUs: mean(times) * 1000, window };
}
function ourPerAppend(fill) {
  const store = new StateStore({ runId: `bench-b-${fill}` });
  const prefill = [];
  for (let i = 0; i < fill; i++) prefill.push({ role: role(i), content: CONTENTS[i] });
  store.apply({ author: "prefill", update: { messages: prefill } });
  let next = fill;
  const one = () => {
    const r = store.apply({ author: "bench", update: { messages: [{ role: role(next), content: CONTENTS[next] }] } });
    next++;
    sink += r.version;
  };
  for (let i = 0; i < WARMUP_APPENDS; i++) one();
  const res = timeEach(WINDOW, one);
  if (store.get("messages").length !== fill + WARMUP_APPENDS + WINDOW) throw new Error("store per-append sanity check failed");
  store.free();
  return res;
}
function theirPerAppend(fill) {
  const window = LANGGRAPH_WINDOW[fill];
  const warm = Math.min(WARMUP_APPENDS, window);
  const prefill = [];
  for (let i = 0; i < fill; i++) prefill.push(lcMessage(i));
  let state = messagesStateReducer([], prefill);
  let next = fill;
  const one = () => {
    state = messagesStateReducer(state, [lcMessage(next)]);
    next++;
  };
  for (let i = 0; i < warm; i++) one();
  const res = timeEach(window, one);
  if (state.length !== fill + warm + window) throw new Error("LangGraph per-append sanity check failed");
  sink += state.length;
  return res;
}

const b = [];
for (const fill of FILLS) {
  const ours = ourPerAppend(fill);
  const theirs = theirPerAppend(fill);
  b.push({ fill, ours, theirs });
}

// ---------------------------------------------------------------------------------------------
// Report
const ms = (x) => `${x.toFixed(1)} ms`;
const us = (x) => `${x < 10 ? x.toFixed(2) : x.toFixed(1)} µs`;
const fmt = (n) => n.toLocaleString("en-US");
const tableA = [
  "| (a) 10,000 sequential appends | Total (median) | Min–max | Runs | Per append |",
  "|---|---|---|---|---|",
  `| stategate \`store.apply\` (one command per message, JS → wasm each time) | ${ms(aOurs)} | ${ms(Math.min(...a.ours))}–${ms(Math.max(...a.ours))} | ${RUNS_A} | ${us((aOurs * 1000) / N_APPENDS)} |`,
  `| LangGraph \`messagesStateReducer(state, [msg])\` (state growing) | ${ms(aTheirs)} | ${ms(Math.min(...a.theirs))}–${ms(Math.max(...a.theirs))} | ${RUNS_A_LANGGRAPH} | ${us((aTheirs * 1000) / N_APPENDS)} |`,
  `| ratio LangGraph / stategate | **${ratio.toFixed(1)}×** | | | |`,
].join("\n");
const tableB = [
  "| (b) messages already held | stategate median (mean) per append | window | LangGraph median (mean) per append | window | ratio of medians |",
  "|---|---|---|---|---|---|",
  ...b.map(
    ({ fill, ours, theirs }) =>
      `| ${fmt(fill)} | ${us(ours.medianUs)} (${us(ours.meanUs)}) | ${fmt(ours.window)} | ${us(theirs.medianUs)} (${us(theirs.meanUs)}) | ${fmt(theirs.window)}${theirs.window < WINDOW ? " †" : ""} | ${(theirs.medianUs / ours.medianUs).toFixed(1)}× |`,
  ),
].join("\n");
const goalLine = `Goal: 10,000 appends through the store ≥ ${GOAL_RATIO}× faster than with \`messagesStateReducer\` — ${ratio >= GOAL_RATIO ? "**met**" : "**not met**"} (${ratio.toFixed(1)}×).`;

console.log(tableA);
console.log();
console.log(tableB);
console.log();
console.log(goalLine);
console.log(`(a: warm-up 1,000 appends each, median of ${RUNS_A} / ${RUNS_A_LANGGRAPH} runs; b: ${WARMUP_APPENDS} warm-up appends, then each append timed; † = smaller window; sink ${sink > 0 ? "ok" : "0"})`);

// ---------------------------------------------------------------------------------------------
// BENCHMARKS.md: replace only this script's section.

if (WRITE) {
  const pkgVersion = (dir) => JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
  const cpus = os.cpus();
  const body = `## StateStore messages channel vs LangGraph \`messagesStateReducer\`

Generated by \`node benches/store.bench.mjs --write\`. Numbers are indicative only (single
machine, no isolation) and are never asserted.

| | |
|---|---|
| Machine | ${cpus[0]?.model ?? "unknown"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} (${os.arch()}) |
| Node | ${process.version} |
| stategate (pkg/) | ${pkgVersion(path.join(ROOT, "pkg"))} |
| @langchain/langgraph | ${pkgVersion(path.join(ROOT, "node_modules/@langchain/langgraph"))} |
| @langchain/core | ${pkgVersion(path.join(ROOT, "node_modules/@langchain/core"))} |
| Date | ${new Date().toISOString().slice(0, 10)} |

${tableA}

${goalLine}

${tableB}

† LangGraph at 100,000 messages: a window of ${LANGGRAPH_WINDOW[100_000]} appends only (each append copies and re-indexes the whole list).

Method:

- Every message is \`{role: "user" | "assistant", content}\` with a ~200-character content
  (alternating roles); the contents are built before timing. stategate gets a plain object per
  \`store.apply({author: "bench", update: {messages: [msg]}})\`, one command (one version) per
  message; LangGraph gets a \`HumanMessage\` / \`AIMessage\` per
  \`state = messagesStateReducer(state, [msg])\`.
- (a): a warm-up of 1,000 appends on each side, then the median of ${RUNS_A} (stategate) and
  ${RUNS_A_LANGGRAPH} (LangGraph, ~15 s a run) runs of 10,000 appends into an empty store / state.
- (b): the list is pre-filled outside the timed region (stategate: one command with all the
  messages; LangGraph: one reducer call), ${WARMUP_APPENDS} untimed warm-up appends, then each append
  of the window is timed with \`performance.now()\`; median and mean per append. The list grows
  by the window during the measurement.
`;
  writeSection("store", body);
}
