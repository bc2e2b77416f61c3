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
//   (a') the conversion floor of one append, interleaved with (a) run by run: what an append from
//       JS into the wasm store pays before the store does anything when it crosses as JSON text —
//       building the command, `JSON.stringify` of it (how JS input enters the core,
//       src/js/interop.rs; a plain append of chat messages is read from the object itself since
//       ced5fe5, src/js/plain.rs, its strings written by `encodeInto`, so it pays less) and
//       copying that string into wasm memory, as the glue does for every string it passes
//       (wasm-bindgen's passStringToWasm0: `__wbindgen_malloc`, a byte loop for ASCII, `encodeInto`
//       past it), then `__wbindgen_free` (Rust drops the string once parsed). No exported
//       function does only that, so the floor calls the module's own allocator exports (the
//       glue's `initSync()` hands back the exports of the instance the package loaded). Also
//       timed as a proxy: `JSON.stringify` + `TextEncoder.encodeInto` into a preallocated
//       64 KiB Uint8Array (no wasm at all). Goal (issue 17): an append ≤ 2× its floor.
//
// Message contents are built before the timed regions; the message objects themselves (a plain
// object for the store, a HumanMessage / AIMessage for LangGraph) are created inside, as each
// API requires. Benchmarks never assert timings. With --write, the "store" section of
// BENCHMARKS.md (between <!-- bench:store:begin --> and <!-- bench:store:end -->) is replaced;
// the rest of the file is kept.
//
// Results (benches/results/store.json, with --write; read by benches/standing.mjs): issue 17's
// row 2 as two rows — LangGraph / stategate for 10,000 appends (goal ≥ 200×; min–max over the
// rounds where both ran) and stategate's append / its floor (goal ≤ 2×; min–max over the rounds).
// BENCH_SMOKE=1: 500 appends, 2 / 1 runs, fills of 100 and 1,000 with windows of 100.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { pick, ratioStat, resultRow, stat, writeResults, writeSection } from "./lib.mjs";
import { HumanMessage, AIMessage } from "@langchain/core/messages";
import { messagesStateReducer } from "@langchain/langgraph";
import { StateStore } from "../pkg/index.js";
import { initSync } from "../pkg/stategate_wasm.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WRITE = process.argv.includes("--write");
const N_APPENDS = pick(10_000, 500);
const RUNS_A = pick(11, 2); // stategate and its floor (55 ms a run: 11 runs, for a median steadier against this machine's ±20% run-to-run noise)
const RUNS_A_LANGGRAPH = pick(3, 1); // ~7 s per run of 10,000 appends (each append copies the list)
const GOAL_RATIO = 200; // issue 17: ≥ 200× messagesStateReducer
const GOAL_FLOOR = 2; // issue 17: an append ≤ 2× its conversion floor
const FILLS = pick([1_000, 10_000, 100_000], [100, 1_000]);
const WINDOW = pick(1_000, 100);
const WARMUP_APPENDS = pick(100, 10);
const LANGGRAPH_WINDOW = Object.fromEntries(FILLS.map((f) => [f, f >= 100_000 ? 50 : WINDOW]));

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

// (a') The floor: the same commands built, stringified and copied into the module's memory.
const wasm = initSync(); // already loaded by pkg/index.js: returns that instance's exports
if (!(wasm?.memory instanceof WebAssembly.Memory) || typeof wasm.__wbindgen_malloc !== "function") throw new Error("the glue's initSync() did not return the loaded exports");
let wasmBytes = new Uint8Array(wasm.memory.buffer);
const wasmMemory = () => (wasmBytes.byteLength === 0 ? (wasmBytes = new Uint8Array(wasm.memory.buffer)) : wasmBytes); // as the glue: renewed once memory grows
const encoder = new TextEncoder();
/** wasm-bindgen's passStringToWasm0 (the realloc form the glue uses for strings), then the free. */
function passString(arg) {
  let len = arg.length;
  let ptr = wasm.__wbindgen_malloc(len, 1) >>> 0;
  const mem = wasmMemory();
  let offset = 0;
  for (; offset < len; offset++) {
    const code = arg.charCodeAt(offset);
    if (code > 0x7f) break;
    mem[ptr + offset] = code;
  }
  if (offset !== len) {
    if (offset !== 0) arg = arg.slice(offset);
    ptr = wasm.__wbindgen_realloc(ptr, len, (len = offset + arg.length * 3), 1) >>> 0;
    offset += encoder.encodeInto(arg, wasmMemory().subarray(ptr + offset, ptr + len)).written;
    ptr = wasm.__wbindgen_realloc(ptr, len, offset, 1) >>> 0;
  }
  wasm.__wbindgen_free(ptr, offset, 1);
  return offset;
}
function floorAppends(n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) sink += passString(JSON.stringify({ author: "bench", update: { messages: [{ role: role(i), content: CONTENTS[i] }] } }));
  return performance.now() - t0;
}
const proxyBuffer = new Uint8Array(64 * 1024);
function proxyAppends(n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) sink += encoder.encodeInto(JSON.stringify({ author: "bench", update: { messages: [{ role: role(i), content: CONTENTS[i] }] } }), proxyBuffer).written;
  return performance.now() - t0;
}

// Warm-up (JIT, wasm tiering) on a shorter run of each.
ourAppends(1_000);
floorAppends(1_000);
proxyAppends(1_000);
theirAppends(1_000);

// Rounds: stategate, its floor, the proxy, then (in the first RUNS_A_LANGGRAPH rounds) LangGraph.
const a = { ours: [], floor: [], proxy: [], theirs: [] };
for (let r = 0; r < Math.max(RUNS_A, RUNS_A_LANGGRAPH); r++) {
  if (r < RUNS_A) {
    a.ours.push(ourAppends(N_APPENDS));
    a.floor.push(floorAppends(N_APPENDS));
    a.proxy.push(proxyAppends(N_APPENDS));
  }
  if (r < RUNS_A_LANGGRAPH) a.theirs.push(theirAppends(N_APPENDS));
}
const aOurs = median(a.ours);
const aTheirs = median(a.theirs);
const ratio = aTheirs / aOurs;
const aFloor = median(a.floor);
const aProxy = median(a.proxy);
const floorRatio = ratioStat(a.ours, a.floor, "stategate append / its floor (ratio of the medians; min–max over the interleaved rounds)");
const proxyRatio = ratioStat(a.ours, a.proxy, "stategate append / the encodeInto proxy");
// LangGraph / stategate over the rounds where both ran (its median: the ratio of the medians above).
const lgRatio = (() => {
  const r = ratioStat(a.theirs, a.ours.slice(0, a.theirs.length), "");
  return { median: ratio, min: Math.min(r.min, ratio), max: Math.max(r.max, ratio), runs: r.runs, of: "LangGraph / stategate (ratio of the medians; min–max over the rounds where both ran)" };
})();

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
  `| (a) ${fmt(N_APPENDS)} sequential appends | Total (median) | Min–max | Runs | Per append |`,
  "|---|---|---|---|---|",
  `| stategate \`store.apply\` (one command per message, JS → wasm each time) | ${ms(aOurs)} | ${ms(Math.min(...a.ours))}–${ms(Math.max(...a.ours))} | ${RUNS_A} | ${us((aOurs * 1000) / N_APPENDS)} |`,
  `| LangGraph \`messagesStateReducer(state, [msg])\` (state growing) | ${ms(aTheirs)} | ${ms(Math.min(...a.theirs))}–${ms(Math.max(...a.theirs))} | ${RUNS_A_LANGGRAPH} | ${us((aTheirs * 1000) / N_APPENDS)} |`,
  `| ratio LangGraph / stategate | **${ratio.toFixed(1)}×** | ${lgRatio.min.toFixed(1)}×–${lgRatio.max.toFixed(1)}× (rounds where both ran) | | |`,
].join("\n");
const perUs = (xs) => xs.map((x) => (x * 1000) / N_APPENDS);
const usRange = (xs) => `${us(Math.min(...perUs(xs)))}–${us(Math.max(...perUs(xs)))}`;
const tableFloor = [
  `| (a') the conversion floor of one append (${fmt(N_APPENDS)} in a run, interleaved with (a)) | Per append (median) | Min–max | Runs | stategate append / this |`,
  "|---|---|---|---|---|",
  `| stategate \`store.apply\` (the row of (a)) | ${us((aOurs * 1000) / N_APPENDS)} | ${usRange(a.ours)} | ${RUNS_A} | 1× |`,
  `| floor: build the command + \`JSON.stringify\` + copy the string into wasm memory (the glue's \`passStringToWasm0\` over \`__wbindgen_malloc\`) + \`__wbindgen_free\` | ${us((aFloor * 1000) / N_APPENDS)} | ${usRange(a.floor)} | ${RUNS_A} | **${floorRatio.median.toFixed(2)}×** (${floorRatio.min.toFixed(2)}–${floorRatio.max.toFixed(2)}×) |`,
  `| proxy: build the command + \`JSON.stringify\` + \`TextEncoder.encodeInto\` a preallocated 64 KiB \`Uint8Array\` (no wasm) | ${us((aProxy * 1000) / N_APPENDS)} | ${usRange(a.proxy)} | ${RUNS_A} | ${proxyRatio.median.toFixed(2)}× (${proxyRatio.min.toFixed(2)}–${proxyRatio.max.toFixed(2)}×) |`,
].join("\n");
const tableB = [
  "| (b) messages already held | stategate median (mean) per append | window | LangGraph median (mean) per append | window | ratio of medians |",
  "|---|---|---|---|---|---|",
  ...b.map(
    ({ fill, ours, theirs }) =>
      `| ${fmt(fill)} | ${us(ours.medianUs)} (${us(ours.meanUs)}) | ${fmt(ours.window)} | ${us(theirs.medianUs)} (${us(theirs.meanUs)}) | ${fmt(theirs.window)}${theirs.window < WINDOW ? " †" : ""} | ${(theirs.medianUs / ours.medianUs).toFixed(1)}× |`,
  ),
].join("\n");
const goalLine = `Goal (issue 17): ${fmt(N_APPENDS)} appends through the store ≥ ${GOAL_RATIO}× faster than with \`messagesStateReducer\` — ${ratio >= GOAL_RATIO ? "**met**" : "**not met**"} (${ratio.toFixed(1)}×).`;
const floorLine = `Goal (issue 17): an append ≤ ${GOAL_FLOOR}× its conversion floor — ${floorRatio.median <= GOAL_FLOOR ? "**met**" : "**not met**"} (${floorRatio.median.toFixed(2)}×: ${us((aOurs * 1000) / N_APPENDS)} against ${us((aFloor * 1000) / N_APPENDS)}).`;

console.log(tableA);
console.log();
console.log(tableFloor);
console.log();
console.log(tableB);
console.log();
console.log(goalLine);
console.log(floorLine);
console.log(`(a: warm-up 1,000 appends each, median of ${RUNS_A} / ${RUNS_A_LANGGRAPH} runs; b: ${WARMUP_APPENDS} warm-up appends, then each append timed; † = smaller window; sink ${sink > 0 ? "ok" : "0"})`);

writeResults("store", [
  resultRow({
    id: "store-vs-langgraph",
    label: `${fmt(N_APPENDS)} sequential \`store.apply\` vs LangGraph \`messagesStateReducer\``,
    unit: "ms",
    figure: stat(a.ours),
    ratio: lgRatio,
    goal: { value: GOAL_RATIO, direction: "≥", issue: 17 },
    note: `LangGraph ${ms(aTheirs)} (${ms(Math.min(...a.theirs))}–${ms(Math.max(...a.theirs))}), ${RUNS_A_LANGGRAPH} runs`,
  }),
  resultRow({
    id: "store-append-floor",
    label: "one append vs its conversion floor (`JSON.stringify` + the string copied into wasm)",
    unit: "µs",
    figure: stat(perUs(a.ours)),
    ratio: floorRatio,
    goal: { value: GOAL_FLOOR, direction: "≤", issue: 17 },
    note: `floor ${us((aFloor * 1000) / N_APPENDS)} per append (${usRange(a.floor)}); the encodeInto proxy ${us((aProxy * 1000) / N_APPENDS)} (${proxyRatio.median.toFixed(2)}×)`,
  }),
]);

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

${tableFloor}

${floorLine}

${tableB}

† LangGraph at 100,000 messages: a window of ${LANGGRAPH_WINDOW[FILLS.at(-1)]} appends only (each append copies and re-indexes the whole list).

Method:

- Every message is \`{role: "user" | "assistant", content}\` with a ~200-character content
  (alternating roles); the contents are built before timing. stategate gets a plain object per
  \`store.apply({author: "bench", update: {messages: [msg]}})\`, one command (one version) per
  message; LangGraph gets a \`HumanMessage\` / \`AIMessage\` per
  \`state = messagesStateReducer(state, [msg])\`.
- (a): a warm-up of 1,000 appends on each side, then the median of ${RUNS_A} (stategate) and
  ${RUNS_A_LANGGRAPH} (LangGraph, several seconds a run) runs of ${fmt(N_APPENDS)} appends into an empty store / state,
  in rounds (stategate, its floor, the proxy, LangGraph); the ratio's min–max is over the rounds
  where both ran.
- (a'): the floor is what one append pays before the store does anything when it crosses as
  JSON text: the same command object built, \`JSON.stringify\` of it (the core takes JS input as
  its JSON text, \`src/js/interop.rs\`), and that string copied into the module's memory the way the glue copies
  every string (wasm-bindgen's \`passStringToWasm0\`: \`__wbindgen_malloc\`, a byte loop while the
  text is ASCII, \`encodeInto\` past it), then \`__wbindgen_free\`, as Rust drops it after parsing.
  No exported function does only that (the cheapest that take a string parse it), so the floor
  calls the allocator exports of the very instance the package loaded (the glue's \`initSync()\`
  returns them). The proxy row does the same without wasm: \`encodeInto\` a preallocated
  \`Uint8Array\`. Interleaved with (a) run by run; the ratio's min–max is over those rounds. The
  appends of (a) are plain (\`{role, content}\` messages only), which the store reads from the
  object itself, without \`JSON.stringify\` (\`src/js/plain.rs\`): their strings are written into
  wasm memory by \`encodeInto\`, so the store's side of the ratio pays less conversion than the
  floor does; any other command (a tool call, an id, another channel) pays the floor's
  conversion and more.
- (b): the list is pre-filled outside the timed region (stategate: one command with all the
  messages; LangGraph: one reducer call), ${WARMUP_APPENDS} untimed warm-up appends, then each append
  of the window is timed with \`performance.now()\`; median and mean per append. The list grows
  by the window during the measurement.
`;
  writeSection("store", body);
}
