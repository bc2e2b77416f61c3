// A writer process of benches/postgres.bench.mjs (appends per second with 1 and 8 writers).
//
//   node benches/postgres-writer.mjs <stategate|langgraph> <schema> <run> <appends> <first>
//
// Connects to STATEGATE_PG_URL, prepares (stategate: PostgresLog.connect + open; LangGraph:
// PostgresSaver on a pg.Pool), prints "ready", waits for one line on stdin ("go"), then appends
// <appends> messages to its own run / thread — messages <first>, <first> + 1, … of the workload
// (benches/postgres-workload.mjs) — each persisted before the next: stategate `run.apply` (one
// INSERT of one event), LangGraph `saver.put` of the next checkpoint (the messages channel holds
// the whole list, as a graph step that appends a message writes it). Prints "done <ms>" (from
// "go" to the last append acknowledged) and exits.

import readline from "node:readline";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresLog } from "../pkg/postgres-log.js";
import { workload, lcMessage, Checkpoints } from "./postgres-workload.mjs";

const [system, schema, runId, appendsArg, firstArg] = process.argv.slice(2);
const appends = Number(appendsArg);
const first = Number(firstArg);
const url = process.env.STATEGATE_PG_URL;
const messages = workload(first + appends).slice(first);

let append, close;
if (system === "stategate") {
  const log = await PostgresLog.connect(url, { schema });
  const run = await log.open(runId);
  append = (m) => run.apply({ author: m.role, update: { messages: [m] } });
  close = () => log.close();
} else {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const saver = new PostgresSaver(pool, undefined, { schema });
  const thread = new Checkpoints(saver, runId);
  append = (m) => thread.append([lcMessage(m)]);
  close = () => pool.end();
}

console.log("ready");
const lines = readline.createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once("line", resolve));
lines.close();
const t0 = performance.now();
for (const m of messages) await append(m);
const ms = performance.now() - t0;
await close();
console.log(`done ${ms}`);
