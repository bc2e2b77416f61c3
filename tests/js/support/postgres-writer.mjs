// The child processes of tests/js/postgres-log.test.mjs: writers of runs in one PostgreSQL
// (STATEGATE_PG_URL) through PostgresLog, each a process of its own.
//
//   node postgres-writer.mjs migrate <schema>
//       connects (running the migrations) and prints `M <schema version rows>`.
//   node postgres-writer.mjs race <schema> <writer> <commands> <seed> <runs>
//       applies <commands> commands, each to one of the runs r0 … r<runs-1> picked at random, every
//       command carrying correlationId `w<writer>:<k>`. Half of them say `expectedVersion`: the
//       version the writer's store is at (stale when another writer got there first: the INSERT
//       is refused) or, one in ten, a version behind it (refused by the store itself). A
//       VERSION_CONFLICT is answered by `run.sync()` and the same command again. Prints, one JSON
//       object a line: `{ack: id, run, version}` for each acknowledged command, then
//       `{final: {run: {version, lastHash, state}}}` (state: the store's toJSON() as text, before
//       any last sync) and `{conflicts: {table, store}}`.
//   node postgres-writer.mjs kill <schema> <seed> <iteration> <checkpointEvery>
//       the writer the test kills with SIGKILL: opens run `k` (resuming it from the table) and
//       applies changes until killed — single applies and batches of 2–3 commands, every command
//       of a batch carrying correlationId `B:<iteration>:<n>:<k>/<size>`. Prints (synchronously,
//       so a line printed is a line the parent reads even if the kill follows at once):
//         R <version> <lastHash>      resumed (or started), ready
//         P <size> <tag>              about to apply a change of <size> events (tag: batch id or -)
//         A <version> <lastHash>      that change was acknowledged (run.apply / applyBatch resolved)
//   node postgres-writer.mjs resume <schema> <run> <commands>
//       opens <run> (resuming it), applies <commands> user messages, prints
//       `{first: {sequence, prev_hash}, version, lastHash}` (first: its first new event).
// Every mode connects with application_name `stategate-test-<pid>`, so the parent can wait until
// a killed writer's session is gone from pg_stat_activity before it reads the table.
//
// Any unexpected error prints `E <code> <message>` and exits 1.

import fs from "node:fs";
import { PostgresLog } from "../../../pkg/postgres-log.js";
import { mulberry32 } from "../../support/prng.mjs";

const [mode, schema, ...args] = process.argv.slice(2);

function say(line) {
  const buf = Buffer.from(line + "\n");
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(1, buf, off);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
    }
  }
}

const url = new URL(process.env.STATEGATE_PG_URL);
url.searchParams.set("application_name", `stategate-test-${process.pid}`);

/** A few words, `n` characters. */
function text(rand, n) {
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];
  let s = "";
  while (s.length < n) s += words[Math.floor(rand() * words.length)] + " ";
  return s.slice(0, n);
}

async function race(log, writer, commands, seed, runCount) {
  const rand = mulberry32(seed >>> 0);
  const runs = [];
  for (let r = 0; r < runCount; r++) runs.push(await log.open(`r${r}`));
  const conflicts = { table: 0, store: 0 };
  for (let k = 0; k < commands; k++) {
    const run = runs[Math.floor(rand() * runs.length)];
    const id = `w${writer}:${k}`;
    const pick = rand();
    const update = pick < 0.6 ? { messages: [{ role: "user", content: `${id} ${text(rand, 20 + Math.floor(rand() * 60))}` }] } : { facts: { [`w${writer}`]: k, last: id } };
    const expect = rand() < 0.5 ? (rand() < 0.1 ? "behind" : "current") : null;
    for (let attempt = 0; ; attempt++) {
      const cmd = { author: `writer${writer}`, correlationId: id, update };
      // A deliberately stale version on the first try only, so the retry can succeed.
      if (expect === "behind" && attempt === 0 && run.store.version > 0) cmd.expectedVersion = run.store.version - 1;
      else if (expect !== null) cmd.expectedVersion = run.store.version;
      try {
        const { version } = await run.apply(cmd);
        say(JSON.stringify({ ack: id, run: run.runId, version }));
        break;
      } catch (e) {
        if (e?.code !== "VERSION_CONFLICT") throw e;
        if (/another writer got there first/.test(e.message)) conflicts.table++;
        else conflicts.store++;
        if (attempt > 1000) throw new Error(`command ${id} conflicted 1000 times`);
        await run.sync();
      }
    }
  }
  const final = {};
  for (const run of runs) final[run.runId] = { version: run.store.version, lastHash: run.store.lastHash, state: JSON.stringify(run.store.toJSON()) };
  say(JSON.stringify({ final }));
  say(JSON.stringify({ conflicts }));
}

async function kill(log, seed, iter) {
  const rand = mulberry32(seed >>> 0);
  const run = await log.open("k");
  say(`R ${run.store.version} ${run.store.lastHash}`);
  for (let n = 0; n < 100_000; n++) {
    const tag = `B:${iter}:${n}`;
    const dangling = run.store.danglingToolCalls();
    let change;
    if (dangling.length > 0) {
      const k = Math.min(dangling.length, 3);
      const cmds = dangling.slice(0, k).map((d, j) => ({
        author: `tool:${d.toolCallId}`,
        correlationId: `${tag}:${j}/${k}`,
        update: { messages: [{ role: "tool", tool_call_id: d.toolCallId, content: `result of ${d.toolCallId}: ${text(rand, 20 + Math.floor(rand() * 400))}` }] },
      }));
      change = k > 1 ? { cmds, batch: true } : { cmds: [{ ...cmds[0], correlationId: undefined }], batch: false };
    } else {
      const r = rand();
      if (run.store.version === 0 || r < 0.3) {
        const update = { messages: [{ role: "user", content: `question ${iter}.${n}: ${text(rand, 10 + Math.floor(rand() * 80))}` }] };
        if (run.store.version === 0) update.run = { status: "running" };
        change = { cmds: [{ author: "user", update }], batch: false };
      } else if (r < 0.6) {
        const calls = Array.from({ length: 2 + Math.floor(rand() * 2) }, (_, k) => ({ id: `c${iter}_${n}_${k}`, type: "function", function: { name: "lookup", arguments: JSON.stringify({ q: text(rand, 12) }) } }));
        change = { cmds: [{ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: calls }] } }], batch: false };
      } else {
        const k = 2 + Math.floor(rand() * 2);
        const cmds = Array.from({ length: k }, (_, j) => ({ author: `worker${j}`, correlationId: `${tag}:${j}/${k}`, update: { facts: { [`w${j}_${Math.floor(rand() * 4)}`]: text(rand, 5 + Math.floor(rand() * 40)) } } }));
        change = { cmds, batch: true };
      }
    }
    say(`P ${change.cmds.length} ${change.batch ? tag : "-"}`);
    if (change.batch) await run.applyBatch(change.cmds);
    else await run.apply(change.cmds[0]);
    say(`A ${run.store.version} ${run.store.lastHash}`);
  }
}

async function resume(log, runId, commands) {
  const run = await log.open(runId);
  const from = run.store.version;
  for (let k = 0; k < commands; k++) await run.apply({ author: "user", update: { messages: [{ role: "user", content: `from process ${process.pid}, message ${k}` }] } });
  const [first] = run.store.events({ since: from, until: from + 1 });
  say(JSON.stringify({ first: { sequence: first.sequence, prev_hash: first.prev_hash }, version: run.store.version, lastHash: run.store.lastHash }));
}

let log;
try {
  if (mode === "kill") {
    log = await PostgresLog.connect(url.href, { schema, checkpointEvery: Number(args[2]) });
    await kill(log, Number(args[0]), Number(args[1]));
  } else {
    log = await PostgresLog.connect(url.href, { schema });
    if (mode === "migrate") {
      const pg = (await import("pg")).default;
      const client = new pg.Client({ connectionString: url.href });
      await client.connect();
      const { rows } = await client.query(`SELECT version FROM "${schema}".stategate_migrations ORDER BY version`);
      await client.end();
      say(`M ${rows.map((r) => r.version).join(",")}`);
    } else if (mode === "race") await race(log, Number(args[0]), Number(args[1]), Number(args[2]), Number(args[3]));
    else if (mode === "resume") await resume(log, args[0], Number(args[1]));
    else throw new Error(`unknown mode ${mode}`);
  }
  await log.close();
} catch (e) {
  say(`E ${e?.code ?? ""} ${String(e?.message ?? e).replace(/\n/g, " ")}`);
  process.exit(1);
}
