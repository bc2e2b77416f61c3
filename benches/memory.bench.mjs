// Memory benchmarks — run: node benches/memory.bench.mjs [--write]
//
//   (a) 10,000 idle empty stores in one Node process: the growth of the wasm linear memory and of
//       the JS heap (after a full GC) per `new StateStore()`. No peer holds an equivalent object
//       (LangGraph's state is a plain array until a graph runs), so the figure stands against its
//       goal (issue 17: ≤ 2 KB each).
//   (b) memory per held message: 10,000 messages of ~200 characters appended one command each,
//       the events sealed as persistence seals them (`onEvents`), against the message's JSON and
//       against LangGraph's `messagesStateReducer` holding the same messages as HumanMessage /
//       AIMessage (its JS heap growth per message).
//
// Every measurement runs in a fresh Node process (`--expose-gc`, so the heap is measured after a
// full collection; wasm memory only grows, so its growth is what the store took), interleaved
// A B A B over ROUNDS rounds; median and min–max. The wasm memory is read through the glue's
// `initSync` (the public package does not expose it). Benchmarks never assert anything.
//
// Results (benches/results/memory.json, with --write; read by benches/standing.mjs): issue 17's
// rows 6 (bytes per held message / its JSON, goal ≤ 2×) and 7 (bytes per idle store, goal
// ≤ 2 KB = 2,048 B); median and min–max over the rounds. BENCH_SMOKE=1: one round, 2,000 idle
// stores, 500 held messages.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { machineRows, median, pick, resultRow, ROOT, stat, writeResults, writeSection } from "./lib.mjs";

const WRITE = process.argv.includes("--write");
const ROUNDS = pick(5, 1);
const N_IDLE = pick(10_000, 2_000);
const N_HELD = pick(10_000, 500);
const GOAL_IDLE = 2048; // bytes per idle store (issue 17)
const GOAL_HELD = 2; // × the message's JSON (issue 17)

const LOREM =
  "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. " +
  "Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. ";
const text = (i) => `#${i} ${LOREM}`.slice(0, 200);

/** One measurement in this (fresh) process; prints a JSON line. */
async function child(kind) {
  const gc = () => {
    globalThis.gc();
    globalThis.gc();
  };
  const heap = () => process.memoryUsage().heapUsed;
  if (kind === "held-langgraph") {
    const { HumanMessage, AIMessage } = await import("@langchain/core/messages");
    const { messagesStateReducer } = await import("@langchain/langgraph");
    const contents = Array.from({ length: N_HELD }, (_, i) => text(i));
    let state = messagesStateReducer([], [new HumanMessage("warm-up")]);
    state = [];
    gc();
    const before = heap();
    for (let i = 0; i < N_HELD; i++) state = messagesStateReducer(state, [i % 2 ? new AIMessage(contents[i]) : new HumanMessage(contents[i])]);
    gc();
    const perMessage = (heap() - before) / N_HELD;
    if (state.length !== N_HELD) throw new Error("LangGraph sanity check failed");
    console.log(JSON.stringify({ perMessage }));
    return;
  }
  const { initSync, StateStore } = await import(path.join(ROOT, "pkg/stategate_wasm.js"));
  const wasm = initSync({ module: fs.readFileSync(path.join(ROOT, "pkg/stategate_wasm_bg.wasm")) });
  const mem = () => wasm.memory.buffer.byteLength;
  if (kind === "idle") {
    new StateStore().free();
    gc();
    const [h0, m0] = [heap(), mem()];
    const keep = [];
    for (let i = 0; i < N_IDLE; i++) keep.push(new StateStore());
    gc();
    console.log(JSON.stringify({ wasm: (mem() - m0) / N_IDLE, heap: (heap() - h0) / N_IDLE, kept: keep.length }));
    return;
  }
  // held-ours
  const msgs = Array.from({ length: N_HELD }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: text(i) }));
  const warm = new StateStore({ onEvents: () => {} });
  warm.apply({ author: "bench", update: { messages: [msgs[0]] } });
  warm.free();
  gc();
  const m0 = mem();
  const s = new StateStore({ onEvents: () => {} }); // sealing, as any persistence does
  for (const m of msgs) s.apply({ author: "bench", update: { messages: [m] } });
  const held = (mem() - m0) / N_HELD;
  const json = s.get("messages").reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0) / N_HELD;
  console.log(JSON.stringify({ perMessage: held, json }));
}

function run(kind) {
  const out = execFileSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--child", kind], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").at(-1));
}

const range = (xs, f = (x) => x.toFixed(0)) => `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;

async function main() {
  const at = process.argv.indexOf("--child");
  if (at !== -1) return child(process.argv[at + 1]);
  const idle = [];
  const ours = [];
  const theirs = [];
  for (let r = 0; r < ROUNDS; r++) {
    idle.push(run("idle"));
    ours.push(run("held-ours"));
    theirs.push(run("held-langgraph"));
    process.stdout.write(".");
  }
  console.log();
  const idleTotal = idle.map((x) => x.wasm + x.heap);
  const json = median(ours.map((x) => x.json));
  const ratio = ours.map((x) => x.perMessage / x.json);
  const vs = ours.map((x, i) => x.perMessage / theirs[i].perMessage);
  const met = (ok) => (ok ? "met" : "**not met**");
  const body = `## Memory: idle stores and held messages

Generated by \`node benches/memory.bench.mjs --write\`. Indicative only; never asserted.

| | |
|---|---|
${machineRows()}

| (a) ${N_IDLE.toLocaleString("en")} idle empty stores in one process | median (min–max) per store |
|---|---|
| wasm linear memory | ${range(idle.map((x) => x.wasm))} B |
| JS heap (the wrapper object) | ${range(idle.map((x) => x.heap))} B |
| total | **${range(idleTotal)} B** |

Goal ≤ ${GOAL_IDLE} B per idle store — ${met(median(idleTotal) <= GOAL_IDLE)}. (Issue 17 measured 4.9 KB: each store
cloned the ~15 default channel specs and their initial values. Now the schema, its name index and
the initial values are built once per thread and shared until a store first writes or adds a
channel; the messages channel is boxed in its slot.)

| (b) ${N_HELD.toLocaleString("en")} held messages (~200 characters, events sealed) | median (min–max) per message |
|---|---|
| the message's JSON | ${json.toFixed(0)} B |
| stategate: wasm memory | ${range(ours.map((x) => x.perMessage))} B = ${range(ratio, (x) => x.toFixed(2))}× its JSON |
| LangGraph \`messagesStateReducer\`: JS heap (HumanMessage / AIMessage) | ${range(theirs.map((x) => x.perMessage))} B |
| stategate / LangGraph | ${range(vs, (x) => x.toFixed(2))}× |

Goal ≤ ${GOAL_HELD}× the message's JSON — ${met(median(ratio) <= GOAL_HELD)}. Where it goes (wasm32 sizes, with
the allocator's rounding): the message in its channel, shared with the event that wrote it (an
\`Rc\`: the struct ~184 B, its ~200-character content ~208 B, its id ~16 B), the channel's list of
pointers and its index of positions by id (~15 B), and the event as the store holds it (~72 B:
the hash as 32 bytes, the time, the shared author, the write; \`event_id\`, \`prev_hash\` and
the JSON are made when the event is read). Main held 1,914 B (7.18×): the event kept a copy of
the message and, once sealed, its payload as a JSON tree, with its ids and hashes as strings.

Method: each figure is one fresh \`node --expose-gc\` process; the rounds interleave (a), (b)
stategate and (b) LangGraph, ${ROUNDS} rounds. The wasm figure is the growth of the module's linear
memory (which only grows: what the store took, allocator slack included); the JS figures are
\`heapUsed\` growth after two full collections.`;
  console.log(body);
  writeResults("memory", [
    resultRow({
      id: "memory-held",
      label: `memory per held message (~200-character content, ${N_HELD.toLocaleString("en")} held, events sealed)`,
      unit: "B",
      figure: stat(ours.map((x) => x.perMessage)),
      ratio: { ...stat(ratio), of: "wasm memory per message / the message's JSON (median and min–max over the rounds)" },
      goal: { value: GOAL_HELD, direction: "≤", issue: 17 },
      note: `the message's JSON ${json.toFixed(0)} B; LangGraph ${median(theirs.map((x) => x.perMessage)).toFixed(0)} B (JS heap)`,
    }),
    resultRow({
      id: "memory-idle",
      label: `${N_IDLE.toLocaleString("en")} idle empty stores, per store (wasm + JS heap)`,
      unit: "B",
      figure: stat(idleTotal),
      goal: { value: GOAL_IDLE, direction: "≤", issue: 17 },
      note: `wasm ${median(idle.map((x) => x.wasm)).toFixed(0)} B + JS heap ${median(idle.map((x) => x.heap)).toFixed(0)} B`,
    }),
  ]);
  if (WRITE) writeSection("memory", body);
}

await main();
