// Benchmarks of the event log — run: node benches/history.bench.mjs [--write]
//
//   (a) StateStore.replay of a 100,000-event log (JSON Lines text, and event objects): every
//       link and hash checked, every event re-applied. Baseline in plain JS on the same text:
//       JSON.parse of each line plus node:crypto SHA-256 of each line — only reading and hashing,
//       no state — which is the floor any hash-chained replay in JS would pay.
//       Warm: replay(jsonl) and the floor alternate run by run in this process (A B A B), RUNS
//       rounds after a warm-up round; median and min–max of each, and of their per-round ratio.
//   (a') cold: a fresh Node process per measurement, stategate and the floor in turn, COLD each:
//       the child reads the same JSON Lines from its stdin (untimed), then times the import of
//       pkg/index.js (which compiles the wasm) plus the first `StateStore.replay(jsonl)` — or, for
//       the floor, the import of node:crypto plus the same loop as the warm floor.
//   (b) checkpoint size vs the JSON of the same state (JSON.stringify of toJSON()), raw and gzip.
//
// The log is built outside the timed region. Benchmarks never assert timings.
//
// Results (benches/results/history.json, with --write; read by benches/standing.mjs): issue 17's
// row 4 as two rows — replay / floor warm (goal ≤ 1.5×; min–max over the rounds) and cold (goal
// ≤ 2×; min–max over the pairs of processes) — and issue 4's events per second (≥ 500,000).
// BENCH_SMOKE=1: 2,000 events, 2 rounds, one cold process each.

import crypto from "node:crypto";
import { execFileSync } from "node:child_process";
import zlib from "node:zlib";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { StateStore } from "../pkg/index.js";
import { machineRows, median, pick, ratioStat, resultRow, ROOT, stat, writeResults, writeSection } from "./lib.mjs";

const WRITE = process.argv.includes("--write");
const N = pick(100_000, 2_000);
const RUNS = pick(5, 2);
// 9, not 5: a cold replay's time is bimodal on this machine (~715 ms or ~850–975 ms, the two runs of
// f1e5a4c), so the median of 5 flipped from run to run (2.54× in one, 3.03× in the next).
const COLD = pick(9, 1);
const GOAL = 500_000; // events per second (issue 4)
const GOAL_WARM = 1.5; // × the JS floor, warm (issue 17)
const GOAL_COLD = 2; // × the JS floor, cold: a fresh process each (issue 17)

const text = (i) => `message ${i} ` + "lorem ipsum dolor sit amet ".repeat(7);
function buildLog() {
  const s = new StateStore({ runId: "bench", clock: () => 1_700_000_000_000 });
  for (let i = 0; i < N; i++) {
    const k = i % 3;
    if (k === 0) s.apply({ author: "user", update: { messages: [{ role: "user", content: text(i) }] } });
    else if (k === 1) s.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "search", arguments: `{"q":"${i}"}` } }] }] } });
    else s.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: `c${i - 1}`, content: text(i) }] } });
  }
  return s;
}

function time(fn) {
  fn();
  const times = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return stat(times);
}
/** Runs the cases in turn, round after round (A B A B …), after one warm-up round; their times. */
function interleaved(cases) {
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let r = 0; r <= RUNS; r++) {
    for (const [k, fn] of Object.entries(cases)) {
      const t0 = performance.now();
      fn();
      if (r > 0) times[k].push(performance.now() - t0);
    }
  }
  return times;
}
/** The floor: read and hash every line, no state. */
function floor(jsonl) {
  let n = 0;
  for (const line of jsonl.split("\n")) {
    if (!line) continue;
    JSON.parse(line);
    crypto.createHash("sha256").update(line).digest("hex");
    n++;
  }
  if (n !== N) throw new Error("baseline read " + n);
}

// (a') The child of a cold measurement: reads the log from stdin, then times import + first run.
const COLD_CHILD = `
const [which, root, count, lastHash] = process.argv.slice(1);
const { performance } = await import("node:perf_hooks");
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const jsonl = Buffer.concat(chunks).toString("utf8");
let t0, t1;
if (which === "stategate") {
  t0 = performance.now();
  const { StateStore } = await import(new URL("pkg/index.js", root).href);
  t1 = performance.now();
  const r = StateStore.replay(jsonl);
  if (r.lastHash !== lastHash) throw new Error("cold replay differs");
} else {
  t0 = performance.now();
  const crypto = await import("node:crypto");
  t1 = performance.now();
  const floor = ${floor.toString().replace(/\bN\b/g, "Number(count)")};
  floor(jsonl);
}
const t2 = performance.now();
console.log(JSON.stringify({ total: t2 - t0, first: t2 - t1 }));
`;
function cold(which, jsonl, lastHash) {
  const out = execFileSync(process.execPath, ["--input-type=module", "--eval", COLD_CHILD, which, pathToFileURL(ROOT + "/").href, String(N), lastHash], { cwd: ROOT, input: jsonl, encoding: "utf8", maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split("\n").at(-1));
}

console.log(`building a ${N.toLocaleString("en")}-event log…`);
const live = buildLog();
const jsonl = live.eventsJsonl();
const objects = live.events();
const lastHash = live.lastHash;

const warm = interleaved({
  replay: () => {
    const r = StateStore.replay(jsonl);
    if (r.lastHash !== lastHash) throw new Error("replay differs");
    r.free();
  },
  floor: () => floor(jsonl),
});
const replayObjectsStat = time(() => {
  const r = StateStore.replay(objects);
  if (r.lastHash !== lastHash) throw new Error("replay differs");
  r.free();
});
const replayStat = stat(warm.replay);
const floorStat = stat(warm.floor);
const warmRatio = ratioStat(warm.replay, warm.floor, "replay(jsonl) / JS floor (ratio of the medians; min–max over the interleaved rounds)");
const [replayText, replayObjects, baseline] = [replayStat.median, replayObjectsStat.median, floorStat.median];

console.log(`(a') cold: ${COLD} fresh processes each, interleaved…`);
const coldRuns = { stategate: [], floor: [] };
for (let i = 0; i < COLD; i++) for (const which of ["stategate", "floor"]) coldRuns[which].push(cold(which, jsonl, lastHash));
const coldOurs = stat(coldRuns.stategate.map((c) => c.total));
const coldOursFirst = stat(coldRuns.stategate.map((c) => c.first));
const coldFloor = stat(coldRuns.floor.map((c) => c.total));
const coldRatio = ratioStat(coldRuns.stategate.map((c) => c.total), coldRuns.floor.map((c) => c.total), "cold replay / cold floor, import + first run (ratio of the medians; min–max over the pairs of processes)");

const rate = (ms) => Math.round((N / ms) * 1000);
const msRange = (s) => `${s.min.toFixed(0)}–${s.max.toFixed(0)} ms`;
const cp = live.checkpoint();
const json = Buffer.from(JSON.stringify(live.toJSON()));
const gz = (b) => zlib.gzipSync(b, { level: 9 }).length;
const mb = (n) => `${(n / 2 ** 20).toFixed(1)} MiB`;

const tableA = `| (a) replay of ${N.toLocaleString("en")} events (${mb(Buffer.byteLength(jsonl))} of JSON Lines) | median | min–max | events/s (median) |
|---|---|---|---|
| \`StateStore.replay(jsonl)\` — verify chain + re-apply | ${replayText.toFixed(0)} ms | ${msRange(replayStat)} | ${rate(replayText).toLocaleString("en")} |
| \`StateStore.replay(events)\` (objects) | ${replayObjects.toFixed(0)} ms | ${msRange(replayObjectsStat)} | ${rate(replayObjects).toLocaleString("en")} |
| JS floor: \`JSON.parse\` + node:crypto SHA-256 per line, no state (interleaved with the first row) | ${baseline.toFixed(0)} ms | ${msRange(floorStat)} | ${rate(baseline).toLocaleString("en")} |
| ratio replay(jsonl) / JS floor, warm | **${warmRatio.median.toFixed(2)}×** | ${warmRatio.min.toFixed(2)}–${warmRatio.max.toFixed(2)}× (per round) | |
| (a') cold \`StateStore.replay(jsonl)\`: fresh process, import + first replay (${COLD} processes) | ${coldOurs.median.toFixed(0)} ms | ${msRange(coldOurs)} | the replay alone ${coldOursFirst.median.toFixed(0)} ms (${msRange(coldOursFirst)}) |
| (a') cold JS floor: fresh process, import of node:crypto + the same loop (${COLD} processes, interleaved with the row above) | ${coldFloor.median.toFixed(0)} ms | ${msRange(coldFloor)} | |
| ratio replay / JS floor, cold | **${coldRatio.median.toFixed(2)}×** | ${coldRatio.min.toFixed(2)}–${coldRatio.max.toFixed(2)}× (per pair of processes) | |`;
const met = (ok) => (ok ? "**met**" : "**not met**");
const goal = `Goal (issue 17): replay ≤ ${GOAL_WARM}× the JS floor warm — ${met(warmRatio.median <= GOAL_WARM)} (${warmRatio.median.toFixed(2)}×); ≤ ${GOAL_COLD}× cold — ${met(coldRatio.median <= GOAL_COLD)} (${coldRatio.median.toFixed(2)}×). Goal (issue 4): ≥ ${GOAL.toLocaleString("en")} events/s — ${met(rate(replayText) >= GOAL)} (${rate(replayText).toLocaleString("en")} events/s).`;
const tableB = `| (b) state after ${N.toLocaleString("en")} events | raw | gzip -9 |
|---|---|---|
| \`JSON.stringify(store.toJSON())\` | ${mb(json.length)} | ${mb(gz(json))} |
| \`store.checkpoint()\` | ${mb(cp.length)} (${(cp.length / json.length).toFixed(2)}×) | ${mb(gz(Buffer.from(cp)))} (${(gz(Buffer.from(cp)) / gz(json)).toFixed(2)}×) |`;

console.log(tableA);
console.log(goal);
console.log(tableB);

writeResults("history", [
  resultRow({
    id: "replay-warm",
    label: `\`StateStore.replay\` of ${N.toLocaleString("en")} events vs the JS floor (\`JSON.parse\` + SHA-256 per line), warm`,
    unit: "ms",
    figure: replayStat,
    ratio: warmRatio,
    goal: { value: GOAL_WARM, direction: "≤", issue: 17 },
    note: `floor ${baseline.toFixed(0)} ms (${msRange(floorStat)})`,
  }),
  resultRow({
    id: "replay-cold",
    label: `same, cold: a fresh process (import + first replay) vs a fresh process doing the floor`,
    unit: "ms",
    figure: coldOurs,
    ratio: coldRatio,
    goal: { value: GOAL_COLD, direction: "≤", issue: 17 },
    note: `${COLD} processes each; floor ${coldFloor.median.toFixed(0)} ms (${msRange(coldFloor)})`,
  }),
  resultRow({
    id: "replay-rate",
    label: `\`StateStore.replay(jsonl)\`, events per second`,
    unit: "events/s",
    figure: { median: rate(replayStat.median), min: rate(replayStat.max), max: rate(replayStat.min) },
    goal: { value: GOAL, direction: "≥", issue: 4 },
  }),
]);

if (WRITE) {
  writeSection(
    "history",
    `## Event log: replay and checkpoint size

Generated by \`node benches/history.bench.mjs --write\`. Indicative only; never asserted.

| | |
|---|---|
${machineRows()}

${tableA}

${goal}

${tableB}

Method: a log of ${N.toLocaleString("en")} commands (user message, assistant tool call, tool result,
repeating; ~200-character texts) is built outside the timed region. Replay checks each event's
link, sequence and SHA-256, re-applies it through the full pipeline, and checks the result
reproduces the event. Warm: \`replay(jsonl)\` and the floor alternate run by run, ${RUNS} rounds after a
warm-up round (median, min–max; the ratio's range is over the rounds); \`replay(events)\` is ${RUNS} runs
after a warm-up. Cold: each figure is a fresh \`node\` process (stategate and the floor in turn,
${COLD} each) that first reads the same JSON Lines from its stdin (untimed), then times the import
(\`pkg/index.js\`, which compiles the wasm; \`node:crypto\` for the floor) plus the first replay (the
floor: the same loop as warm); the ratio's range is over the pairs of processes.

Where the time goes (a V8 profile of the wasm replay of this log, names kept; not re-run by this
script): the event the store makes is hashed once per event — the SHA-256 ~20% (wasm's software
SHA-256, ~400 MB/s here) and its canonical encoding ~15% —, reading each line (its envelope, then
its messages straight from the text, no JSON tree) ~20%, re-applying it ~25%, freeing the store
at the end ~6%. The JS floor hashes each line with node:crypto's native SHA-256 and parses it
with V8's JSON.parse; what is left of the gap is mostly those two.`,
  );
}
