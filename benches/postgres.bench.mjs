// Scale figures of PostgresLog (stategate/postgres-log) next to LangGraph's PostgresSaver
// (@langchain/langgraph-checkpoint-postgres) on the same PostgreSQL — run under
// scripts/postgres.sh (make bench does):
//
//   bash scripts/postgres.sh run -- node benches/postgres.bench.mjs [--write]
//
//   (a) appends per second with 1 and 8 writer processes, each appending APPENDS messages to a
//       run / thread of its own (benches/postgres-writer.mjs): stategate `run.apply` of one
//       message (preview, one INSERT of its event, ingest) vs `PostgresSaver.put` of the step's
//       checkpoint (its messages channel holds the whole list: the blob a graph step that appends
//       a message writes). Each write is committed before the next. Rounds interleaved
//       stategate, LangGraph, stategate, … (each round in fresh schemas); median and min–max of
//       ROUNDS rounds, aggregate appends / wall time from "go" to the last writer's end.
//   (b) bytes stored per message at 100, 1k and 10k messages in one run / thread: the live rows
//       (sum of pg_column_size of every row of the run, i.e. as stored, TOAST-compressed) and the
//       tables on disk (pg_total_relation_size: heap, TOAST, indexes), against the messages' own
//       JSON (`{role, content}`, UTF-8). stategate: its events plus its latest checkpoint (every
//       1,000 events). PostgresSaver: its checkpoints, blobs and writes; at 10k it is not run
//       (each step stores the whole list: quadratic), the figure given is extrapolated.
//   (c) resume of a 10k-message run: stategate `log.open(runId)` (load the latest checkpoint and
//       the events after it, restore the store) — tail 0 (checkpoint at 10,000) and tail 999
//       (checkpoint at 9,000, 9,999 messages) — vs `PostgresSaver.getTuple` of a thread whose
//       latest checkpoint holds 10,000 messages (the read LangGraph makes to resume a thread).
//       Interleaved, median and min–max of RESUME_RUNS after one warm-up each.
//
// The workload: real tau-bench turns (benches/postgres-workload.mjs). Benchmarks never assert
// timings. With --write, the "postgres" section of BENCHMARKS.md is replaced.
//
// Results (benches/results/postgres.json, with --write; read by benches/standing.mjs): not rows
// of issue 17's table, the goals this bench has tracked — bytes stored per message at the largest
// size (≤ 1.5× its JSON), resume with tail 0 and with the longest tail (≤ 100 ms) — and the append
// rates' ratios to PostgresSaver (no goal; min–max over the interleaved rounds). BENCH_SMOKE=1
// (tests/js/bench-smoke.test.mjs, only where STATEGATE_PG_URL is set): 20 and 100 messages,
// checkpoints every 50, 1 and 2 writers × 20 appends, one round, one resume each.

import { spawn } from "node:child_process";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresLog } from "../pkg/postgres-log.js";
import { ROOT, machineRows, median, pick, pkgVersion, ratioStat, resultRow, stat, writeResults, writeSection } from "./lib.mjs";
import { workload, lcMessage, Checkpoints } from "./postgres-workload.mjs";

const URL_ = process.env.STATEGATE_PG_URL;
if (!URL_) {
  console.error("postgres.bench: STATEGATE_PG_URL is not set; run it under scripts/postgres.sh: bash scripts/postgres.sh run -- node benches/postgres.bench.mjs");
  process.exit(1);
}
const WRITE = process.argv.includes("--write");
const ROUNDS = Number(process.env.PG_BENCH_ROUNDS || pick(5, 1));
const APPENDS = Number(process.env.PG_BENCH_APPENDS || pick(300, 20));
const RESUME_RUNS = Number(process.env.PG_BENCH_RESUME_RUNS || pick(7, 1));
const WRITERS = pick([1, 8], [1, 2]);
const SIZES = pick([100, 1_000, 10_000], [20, 100]);
const LANGGRAPH_MAX = pick(1_000, 20); // PostgresSaver's storage grows with the square of the history
const CHECKPOINT_EVERY = pick(1_000, 50);
const TOP = SIZES.at(-1); // the run (c) resumes with tail 0
const TAIL_RUN = TOP - 1; // the run (c) resumes with the longest tail
const TAIL_CHECKPOINT = Math.floor(TAIL_RUN / CHECKPOINT_EVERY) * CHECKPOINT_EVERY;
const TAIL = TAIL_RUN - TAIL_CHECKPOINT;
const BATCH = pick(100, 10);
const GOAL_BYTES = 1.5; // × the message's JSON
const GOAL_RESUME = 100; // ms
const WRITER = path.join(ROOT, "benches/postgres-writer.mjs");

const db = new pg.Pool({ connectionString: URL_, max: 4 });
let schemas = 0;
const fresh = (what) => `bench_${what}_${schemas++}`;
const q = async (text, values) => (await db.query(text, values)).rows;
const fmt = (n) => Math.round(n).toLocaleString("en-US");
const range = (xs, f) => `${f(Math.min(...xs))}–${f(Math.max(...xs))}`;
const ms = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1)) + " ms";

// ---------------------------------------------------------------------------------------------
// (a) appends per second

/** Starts `n` writers, waits until all are ready, says go; resolves with appends per second. */
async function writers(system, n) {
  const schema = fresh(`${system}_w${n}`);
  if (system === "stategate") await (await PostgresLog.connect(db, { schema })).close();
  else await new PostgresSaver(db, undefined, { schema }).setup();
  const children = Array.from({ length: n }, (_, w) => {
    const p = spawn(process.execPath, [WRITER, system, schema, `w${w}`, String(APPENDS), String(w * APPENDS)], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    const ready = new Promise((resolve, reject) => {
      p.stdout.setEncoding("utf8").on("data", (d) => {
        out += d;
        if (out.includes("ready\n")) resolve();
      });
      p.on("close", (code) => (code === 0 ? null : reject(new Error(`${system} writer ${w} exited ${code}`))));
    });
    const done = new Promise((resolve, reject) => p.on("close", (code) => (code === 0 ? resolve(Number(/done (\S+)/.exec(out)[1])) : reject(new Error(`${system} writer ${w} exited ${code}: ${out}`)))));
    return { p, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.p.stdin.end("go\n");
  const times = await Promise.all(children.map((c) => c.done));
  // Every append is in the table.
  const stored = system === "stategate"
    ? (await q(`SELECT count(*)::int AS n FROM "${schema}".stategate_events`))[0].n
    : (await q(`SELECT count(*)::int AS n FROM "${schema}".checkpoints`))[0].n;
  if (stored !== n * APPENDS) throw new Error(`${system} with ${n} writers stored ${stored} of ${n * APPENDS}`);
  return (n * APPENDS) / (Math.max(...times) / 1000);
}

/** The floor under one writer's appends: the median commit of a one-row INSERT (fsync on), in ms. */
async function commitFloor() {
  const schema = fresh("floor");
  await q(`CREATE SCHEMA "${schema}"`);
  await q(`CREATE TABLE "${schema}".t (i int PRIMARY KEY, s text)`);
  const times = [];
  for (let i = 0; i < 200; i++) {
    const start = performance.now();
    await q(`INSERT INTO "${schema}".t VALUES ($1, $2)`, [i, "x".repeat(600)]);
    times.push(performance.now() - start);
  }
  return median(times);
}

const floors = [await commitFloor()];
const rates = { stategate: Object.fromEntries(WRITERS.map((n) => [n, []])), langgraph: Object.fromEntries(WRITERS.map((n) => [n, []])) };
for (let r = 0; r < ROUNDS; r++) {
  for (const n of WRITERS) {
    for (const system of r % 2 === 0 ? ["stategate", "langgraph"] : ["langgraph", "stategate"]) {
      const rate = await writers(system, n);
      rates[system][n].push(rate);
      console.log(`(a) round ${r + 1}: ${system}, ${n} writer${n > 1 ? "s" : ""}: ${fmt(rate)} appends/s`);
    }
  }
}

floors.push(await commitFloor());
console.log(`(a) one-row INSERT commit: ${floors.map(ms).join(" before, ")} after`);

// ---------------------------------------------------------------------------------------------
// (b) bytes per message, and the runs (c) resumes

const messages = workload(SIZES.at(-1));
const jsonBytes = (n) => messages.slice(0, n).reduce((sum, m) => sum + Buffer.byteLength(JSON.stringify(m)), 0);
const bytes = { stategate: {}, langgraph: {} };

const sgSchema = fresh("stategate_bytes");
const sgLog = await PostgresLog.connect(db, { schema: sgSchema, checkpointEvery: CHECKPOINT_EVERY });
const sgRun = await sgLog.open("run-10k");
const sgSize = async () => {
  await q(`VACUUM "${sgSchema}".stategate_checkpoints`);
  const [ev] = await q(`SELECT coalesce(sum(pg_column_size(e.*)), 0)::bigint AS b FROM "${sgSchema}".stategate_events e WHERE run_id = 'run-10k'`);
  const [cp] = await q(`SELECT coalesce(sum(pg_column_size(c.*)), 0)::bigint AS b FROM "${sgSchema}".stategate_checkpoints c WHERE run_id = 'run-10k'`);
  const [disk] = await q(`SELECT pg_total_relation_size('"${sgSchema}".stategate_events') + pg_total_relation_size('"${sgSchema}".stategate_checkpoints') AS b`);
  return { events: Number(ev.b), checkpoint: Number(cp.b), live: Number(ev.b) + Number(cp.b), disk: Number(disk.b) };
};
let t0 = performance.now();
for (let i = 0, k = 0; k < SIZES.length; k++) {
  for (; i < SIZES[k]; i++) await sgRun.apply({ author: messages[i].role, update: { messages: [messages[i]] } });
  bytes.stategate[SIZES[k]] = await sgSize();
  console.log(`(b) stategate at ${fmt(SIZES[k])} messages: ${JSON.stringify(bytes.stategate[SIZES[k]])} (${fmt(performance.now() - t0)} ms so far)`);
}
// Where a stored event's bytes go: its JSON line (the message as the store keeps it, with its id
// and origin, inside the event's envelope) and the rest of the row (key, hash columns, header).
const [anatomy] = await q(
  `SELECT avg(pg_column_size(e.*)) AS row, avg(octet_length(event)) AS line,
          avg(octet_length((event::json -> 'payload' -> 'messages' -> 0)::text)) AS message
   FROM "${sgSchema}".stategate_events e WHERE run_id = 'run-10k'`,
);
sgRun.store.free();
// The same history, 9,999 messages: its latest checkpoint at 9,000, so a resume replays 999 events.
const sgTail = await sgLog.open("run-9999");
for (let i = 0; i < TAIL_RUN; i += BATCH) await sgTail.applyBatch(messages.slice(i, Math.min(i + BATCH, TAIL_RUN)).map((m) => ({ author: m.role, update: { messages: [m] } })));
if ((await sgLog.load("run-9999")).checkpointSequence !== TAIL_CHECKPOINT) throw new Error(`run-9999: its checkpoint is not at ${TAIL_CHECKPOINT}`);
sgTail.store.free();

const lgSchema = fresh("langgraph_bytes");
const saver = new PostgresSaver(db, undefined, { schema: lgSchema });
await saver.setup();
const lgSize = async (thread) => {
  let live = 0;
  for (const table of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]) {
    const [row] = await q(`SELECT coalesce(sum(pg_column_size(t.*)), 0)::bigint AS b FROM "${lgSchema}".${table} t WHERE thread_id = $1`, [thread]);
    live += Number(row.b);
  }
  const [disk] = await q(`SELECT pg_total_relation_size('"${lgSchema}".checkpoints') + pg_total_relation_size('"${lgSchema}".checkpoint_blobs') + pg_total_relation_size('"${lgSchema}".checkpoint_writes') AS b`);
  return { live, disk: Number(disk.b) };
};
const lgThread = new Checkpoints(saver, "thread-growth");
t0 = performance.now();
for (let i = 0, k = 0; SIZES[k] <= LANGGRAPH_MAX; k++) {
  for (; i < SIZES[k]; i++) await lgThread.append([lcMessage(messages[i])]);
  bytes.langgraph[SIZES[k]] = await lgSize("thread-growth");
  console.log(`(b) PostgresSaver at ${fmt(SIZES[k])} messages: ${JSON.stringify(bytes.langgraph[SIZES[k]])} (${fmt(performance.now() - t0)} ms so far)`);
}
// A thread to resume: its latest checkpoint holds 10,000 messages (only the latest is read).
await new Checkpoints(saver, "thread-10k").append(messages.map(lcMessage));

// ---------------------------------------------------------------------------------------------
// (c) resume

const readers = { log: await PostgresLog.connect(db, { schema: sgSchema, checkpointEvery: CHECKPOINT_EVERY }), saver: new PostgresSaver(db, undefined, { schema: lgSchema }) };
const resumes = { tail0: [], tail999: [], langgraph: [] };
const once = {
  tail0: async () => {
    const run = await readers.log.open("run-10k");
    if (run.store.version !== TOP) throw new Error("run-10k resumed at the wrong version");
    run.store.free();
  },
  tail999: async () => {
    const run = await readers.log.open("run-9999");
    if (run.store.version !== TAIL_RUN) throw new Error("run-9999 resumed at the wrong version");
    run.store.free();
  },
  langgraph: async () => {
    const tuple = await readers.saver.getTuple({ configurable: { thread_id: "thread-10k" } });
    if (tuple.checkpoint.channel_values.messages.length !== TOP) throw new Error("thread-10k resumed with the wrong history");
  },
};
for (const f of Object.values(once)) await f(); // warm-up
for (let r = 0; r < RESUME_RUNS; r++) {
  for (const key of r % 2 === 0 ? ["tail0", "tail999", "langgraph"] : ["langgraph", "tail999", "tail0"]) {
    const start = performance.now();
    await once[key]();
    resumes[key].push(performance.now() - start);
  }
}
console.log(`(c) resume: ${JSON.stringify(Object.fromEntries(Object.entries(resumes).map(([k, v]) => [k, median(v).toFixed(1)])))}`);
await sgLog.close();
await readers.log.close();
await db.end();

// ---------------------------------------------------------------------------------------------
// Report

const rateRow = (n) => {
  const [a, b] = [rates.stategate[n], rates.langgraph[n]];
  return `| ${n} writer process${n > 1 ? "es" : ""} × ${APPENDS} appends | ${fmt(median(a))} (${range(a, fmt)}) | ${fmt(median(b))} (${range(b, fmt)}) | **${(median(a) / median(b)).toFixed(2)}×** |`;
};
const tableA = [
  "| (a) appends per second (aggregate) | stategate `run.apply` median (min–max) | PostgresSaver `put` median (min–max) | stategate / PostgresSaver |",
  "|---|---|---|---|",
  ...WRITERS.map(rateRow),
  `| the floor: one one-row \`INSERT\` committed (median, before and after) | ${floors.map(ms).join(", ")} | | |`,
].join("\n");

// LangGraph at 10k: a n² fit through its 1k figure (each step stores the whole list).
const lgAt = (n, key) => bytes.langgraph[n]?.[key] ?? bytes.langgraph[LANGGRAPH_MAX][key] * (n / LANGGRAPH_MAX) ** 2;
const per = (b, n) => b / n;
const tableB = [
  "| (b) messages in the run | message JSON per message | stategate per message: events + checkpoint, live (on disk) | × message JSON | PostgresSaver per message: live (on disk) | × message JSON | PostgresSaver / stategate (live) |",
  "|---|---|---|---|---|---|---|",
  ...SIZES.map((n) => {
    const j = per(jsonBytes(n), n);
    const s = bytes.stategate[n];
    const lgLive = per(lgAt(n, "live"), n);
    const lgDisk = per(lgAt(n, "disk"), n);
    const est = bytes.langgraph[n] ? "" : " (extrapolated, not run)";
    return `| ${fmt(n)} | ${fmt(j)} B | ${fmt(per(s.events, n))} + ${fmt(per(s.checkpoint, n))} = ${fmt(per(s.live, n))} B (${fmt(per(s.disk, n))} B) | ${(per(s.live, n) / j).toFixed(2)}× | ${fmt(lgLive)} B (${fmt(lgDisk)} B)${est} | ${(lgLive / j).toFixed(1)}× | ${(lgLive / per(s.live, n)).toFixed(1)}× |`;
  }),
].join("\n");
const resumeRow = (label, xs) => `| ${label} | ${ms(median(xs))} | ${range(xs, ms)} | ${(median(resumes.langgraph) / median(xs)).toFixed(2)}× |`;
const tableC = [
  `| (c) resume a ${fmt(TOP)}-message run | median | min–max | PostgresSaver / this |`,
  "|---|---|---|---|",
  resumeRow(`stategate \`log.open\`: checkpoint at ${fmt(TOP)}, tail 0`, resumes.tail0),
  resumeRow(`stategate \`log.open\`: checkpoint at ${fmt(TAIL_CHECKPOINT)}, tail ${fmt(TAIL)} (${fmt(TAIL_RUN)} messages)`, resumes.tail999),
  `| PostgresSaver \`getTuple\`: latest checkpoint of ${fmt(TOP)} messages | ${ms(median(resumes.langgraph))} | ${range(resumes.langgraph, ms)} | 1× |`,
].join("\n");

const sgPer = SIZES.map((n) => per(bytes.stategate[n].live, n) / per(jsonBytes(n), n));
const eventsPer = SIZES.map((n) => per(bytes.stategate[n].events, n) / per(jsonBytes(n), n));
const flat = Math.max(...sgPer.slice(1)) / Math.min(...sgPer.slice(1)) < 1.25;
const goalBytes = `Goal: per message stored ≤ ${GOAL_BYTES}× the message's JSON and flat with history length — ${sgPer.every((x) => x <= GOAL_BYTES) && flat ? "**met**" : "**not met**"}: ${sgPer.map((x, i) => `${x.toFixed(2)}× at ${fmt(SIZES[i])}`).join(", ")} with the checkpoint (the events alone: ${eventsPer.map((x) => `${x.toFixed(2)}×`).join(", ")}); ${flat ? `flat from ${fmt(SIZES[1])} on` : "not flat"}.`;
const anatomyLine = `Per event row (${fmt(TOP)}-message run, averages): ${fmt(anatomy.row)} B stored = the event's JSON line ${fmt(anatomy.line)} B (the message as kept, with its id and origin, ${fmt(anatomy.message)} B; the rest is the envelope: event id, run id, sequence, type, author, time, correlation and causation, and two 64-hex-digit hashes) + ${fmt(anatomy.row - anatomy.line)} B of row (tuple header, run id, sequence, the two 32-byte hash columns). The envelope and row are a fixed ~${fmt(anatomy.row - anatomy.message)} B per event, so the 1.5× goal holds only for messages of ~${fmt(2 * (anatomy.row - anatomy.message))} B of JSON and more; rows under 2 KB are never compressed by PostgreSQL (TOAST starts at ~2 KB).`;
const worst = Math.max(median(resumes.tail0), median(resumes.tail999));
const goalResume = `Goal: resume of a ${fmt(TOP)}-message run under ${GOAL_RESUME} ms — ${worst < GOAL_RESUME ? "**met**" : "**not met**"} (median ${ms(median(resumes.tail0))} with tail 0, ${ms(median(resumes.tail999))} with tail ${fmt(TAIL)}).`;

console.log(`\n${tableA}\n\n${tableB}\n\n${goalBytes}\n\n${anatomyLine}\n\n${tableC}\n\n${goalResume}`);

const one = (x) => ({ median: x, min: x, max: x, runs: 1 });
writeResults("postgres", [
  resultRow({
    id: "pg-bytes",
    label: `PostgresLog: bytes stored per message (events + checkpoint, live) at ${fmt(TOP)} messages`,
    unit: "B",
    figure: one(per(bytes.stategate[TOP].live, TOP)),
    ratio: { ...one(sgPer.at(-1)), of: "bytes stored per message / the message's JSON (one measurement)" },
    goal: { value: GOAL_BYTES, direction: "≤" },
    note: sgPer.map((x, i) => `${x.toFixed(2)}× at ${fmt(SIZES[i])}`).join(", "),
  }),
  resultRow({ id: "pg-resume-tail0", label: `PostgresLog: resume a ${fmt(TOP)}-message run, tail 0`, unit: "ms", figure: stat(resumes.tail0), goal: { value: GOAL_RESUME, direction: "≤" }, note: `PostgresSaver getTuple ${ms(median(resumes.langgraph))}` }),
  resultRow({ id: "pg-resume-tail", label: `PostgresLog: resume a ${fmt(TAIL_RUN)}-message run, tail ${fmt(TAIL)}`, unit: "ms", figure: stat(resumes.tail999), goal: { value: GOAL_RESUME, direction: "≤" } }),
  ...WRITERS.map((n) =>
    resultRow({
      id: `pg-appends-${n}`,
      label: `PostgresLog appends per second, ${n} writer process${n > 1 ? "es" : ""} × ${APPENDS}`,
      unit: "appends/s",
      figure: stat(rates.stategate[n]),
      ratio: ratioStat(rates.stategate[n], rates.langgraph[n], "stategate / PostgresSaver (ratio of the medians; min–max over the rounds)"),
    }),
  ),
]);

if (WRITE) {
  const [{ server_version: version }] = await (async () => {
    const c = new pg.Client({ connectionString: URL_ });
    await c.connect();
    try {
      return (await c.query("SHOW server_version")).rows;
    } finally {
      await c.end();
    }
  })();
  const body = `## PostgresLog vs LangGraph \`PostgresSaver\` on one PostgreSQL

Generated by \`bash scripts/postgres.sh run -- node benches/postgres.bench.mjs --write\` (\`make
bench\`). Numbers are indicative only (single machine, no isolation) and are never asserted.

| | |
|---|---|
${machineRows()}
| PostgreSQL | ${version}, the private cluster of scripts/postgres.sh (\`fsync\` and \`synchronous_commit\` on, data in ${"`"}$TMPDIR${"`"}) |
| pg | ${pkgVersion(path.join(ROOT, "node_modules/pg"))} |
| @langchain/langgraph-checkpoint-postgres | ${pkgVersion(path.join(ROOT, "node_modules/@langchain/langgraph-checkpoint-postgres"))} |

${tableA}

${tableB}

${goalBytes}

${anatomyLine}

${tableC}

${goalResume}

Method:

- Messages: the ${"`{role, content}`"} user and assistant turns with text of the 200 tau-bench
  airline runs (\`tests/fixtures/transcripts/\`), in order, repeated past 2,870. stategate
  stores each as one event (its JSON line in \`event\`, the two hashes in \`bytea\` columns) plus,
  every ${fmt(CHECKPOINT_EVERY)} events, the latest checkpoint (the whole state); PostgresSaver
  gets a \`HumanMessage\` / \`AIMessage\` and stores, per step, a checkpoint row and the
  \`messages\` channel's new version as a blob: the whole list, serialised.
- (a): each writer process appends to a run / thread of its own, each append committed before
  the next; ${ROUNDS} rounds, each in fresh schemas, interleaved stategate / PostgresSaver.
  The floor row is the commit latency of this cluster's disk (\`fsync\` on), measured before and
  after: it varies between runs on this virtual machine (two earlier runs of this benchmark
  measured 196–461 and 926–1,349 appends/s for stategate with one writer, 112–360 and 344–394
  for PostgresSaver), so compare the ratios, not the absolute rates.
  PostgresSaver's \`put\` is timed alone — a LangGraph graph step also writes its tasks' writes
  (\`putWrites\`) and an invoke makes two or more steps — so this favours it.
- (b): one run / thread grown message by message; at each size, the live rows of that run
  (\`sum(pg_column_size(row))\`: as stored, TOAST-compressed) and the tables on disk
  (\`pg_total_relation_size\`: heap, TOAST, indexes; after a \`VACUUM\` of the checkpoint table,
  whose upserts leave dead rows). PostgresSaver at ${fmt(TOP)} is a fit of its ${fmt(LANGGRAPH_MAX)} figure to n²
  (not run: it would store tens of gigabytes).
- (c): the runs of (b) and one of ${fmt(TAIL_RUN)} messages written in batches of ${BATCH} (same events); a
  warm-up, then ${RESUME_RUNS} interleaved runs of each. stategate's \`log.open\` includes both
  queries, parsing, and restoring the store (checkpoint digest, every event's hash and
  reproduction); PostgresSaver's \`getTuple\` includes its query and deserialising the messages.
`;
  writeSection("postgres", body);
}
