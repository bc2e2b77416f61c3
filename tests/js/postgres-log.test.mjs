// PostgresLog (stategate/postgres-log) against a real PostgreSQL: the one scripts/postgres.sh
// starts (STATEGATE_PG_URL). Each test works in a schema of its own, so tests never see each
// other's rows. What is checked:
//   - migrations: run twice, and by several processes at once, they leave one set of tables and
//     one schema version; tables of a newer version are refused;
//   - the write path: apply / applyBatch give what a plain store gives (same events, ids and
//     hashes); a refused command, a direct store.apply and a closed log write nothing;
//   - two writers of one run at once: exactly one succeeds, the other gets VERSION_CONFLICT, and
//     after sync() its store equals the winner's; the chain never forks;
//   - many processes (PG_WRITERS × PG_COMMANDS, default 8 × 500) on the same runs with random
//     expectedVersion races: every acknowledged command is in the table exactly once, nothing
//     else is, every run's chain verifies, and every writer's final state equals the replay of
//     the table at its version;
//   - a writer killed with SIGKILL mid-append (PG_KILLS, default 12) loses nothing it saw
//     acknowledged and half-applies no batch; the next process resumes the run and continues
//     its chain;
//   - checkpoints every N events: load gives the checkpoint and the tail, restore equals replay;
//   - a keyed chain (chainKey) is written with HMACs and resumed only with its key;
//   - a row edited in the table is refused on open (TAMPERED_LOG): a replay reads the bytes written;
//     a row whose hash / prev_hash columns disagree with its line is refused by load, open and sync;
//     the message shows the difference even when the shortened hashes would look alike;
//   - a checkpoint row of another run, sequence or hash, or past the table's last event, is
//     refused by load and open (TAMPERED_LOG naming the field); load's version is the table's;
//   - run.store.registerChannel is refused: channels are declared in init.channels;
//   - the INSERT links only to the table's own row before it: a store changed outside run.apply
//     (store.ingest) and a writer continuing a lost row are TAMPERED_LOG, the table's chain whole;
//   - run ids with U+0000 and PostgreSQL's reserved schemas are INVALID_OPTION;
//   - private channels of a new run are registered from init.channels; run.claimOwnerKey.
//
// Without STATEGATE_PG_URL the tests are skipped with the reason printed, except under CI=true,
// where that is a failure. Counts: PG_WRITERS, PG_COMMANDS, PG_KILLS (`make fuzz` runs more);
// PG_SEED the seed.
//
// Run: bash scripts/postgres.sh run -- node --test tests/js/postgres-log.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { StateStore, verifyLog } from "../../pkg/index.js";
import { PostgresLog, PostgresRun } from "../../pkg/postgres-log.js";
import { mulberry32 } from "../support/prng.mjs";

const URL_ = process.env.STATEGATE_PG_URL;
const WRITERS = Number(process.env.PG_WRITERS || 8);
const COMMANDS = Number(process.env.PG_COMMANDS || 500);
const KILLS = Number(process.env.PG_KILLS || 12);
const SEED = Number(process.env.PG_SEED || 0x9057) >>> 0;
const RACE_RUNS = 3;
const WRITER = fileURLToPath(new URL("./support/postgres-writer.mjs", import.meta.url));
const GENESIS = "0".repeat(64);
const BATCH_TAG = /^B:(\d+):(\d+):(\d+)\/(\d+)$/;
const clock = () => 1_700_000_000_000;

if (!URL_) {
  const reason = "STATEGATE_PG_URL is not set: run under `bash scripts/postgres.sh run -- …` (make test does)";
  if (process.env.CI === "true") {
    test("PostgresLog: a PostgreSQL to test against (CI=true)", () => assert.fail(`${reason}; under CI=true the PostgreSQL tests must run`));
  } else {
    console.log(`postgres-log: skipped: ${reason}`);
    test("PostgresLog against PostgreSQL", { skip: reason }, () => {});
  }
} else {
  defineTests();
}

/** A fresh schema name for one test. */
let schemas = 0;
const freshSchema = (what) => `t_${what}_${process.pid}_${schemas++}`;

/** A pg.Pool on the test database (closed by the caller). */
const pool = () => new pg.Pool({ connectionString: URL_, max: 4 });

/** Runs `f(client)` on a client of its own. */
async function sql(f) {
  const client = new pg.Client({ connectionString: URL_ });
  await client.connect();
  try {
    return await f(client);
  } finally {
    await client.end();
  }
}

/** The rows of run `runId` in `schema`, in sequence order. */
const rowsOf = (schema, runId) =>
  sql((c) => c.query(`SELECT sequence::int AS sequence, encode(prev_hash, 'hex') AS prev_hash, encode(hash, 'hex') AS hash, event FROM "${schema}".stategate_events WHERE run_id = $1 ORDER BY sequence`, [runId])).then((r) => r.rows);

/** Runs a writer child to its end; resolves with its stdout lines (rejects if it failed). */
function child(args, env = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [WRITER, ...args.map(String)], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let out = "";
    let err = "";
    p.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    p.stderr.setEncoding("utf8").on("data", (d) => (err += d));
    p.on("error", reject);
    p.on("close", (code) => {
      const lines = out.split("\n").filter((l) => l.length > 0);
      if (code === 0) resolve(lines);
      else reject(new Error(`writer ${args.join(" ")} exited ${code}: ${lines.filter((l) => l.startsWith("E ")).join("; ")} ${err}`));
    });
  });
}

/** The sessions a writer child (application_name stategate-test-<pid>) still has open. */
const sessionsOf = (pid) => sql((c) => c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [`stategate-test-${pid}`])).then((r) => r.rows[0].n);

function defineTests() {
  test("PostgresLog: migrations run twice and by several processes at once leave one schema version", async () => {
    const schema = freshSchema("migrate");
    // Four processes connect to a schema that does not exist yet, all at once.
    const outs = await Promise.all([0, 1, 2, 3].map(() => child(["migrate", schema])));
    for (const lines of outs) assert.deepEqual(lines, ["M 1"]);
    // And twice more in this process, one of them with several migrate() calls in flight.
    const p = pool();
    try {
      const log = await PostgresLog.connect(p, { schema });
      await Promise.all([log.migrate(), log.migrate(), log.migrate()]);
      await log.close(); // a pool passed in is not ended
      const again = await PostgresLog.connect(p, { schema });
      const tables = await p.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [schema]);
      assert.deepEqual(tables.rows.map((r) => r.table_name), ["stategate_checkpoints", "stategate_events", "stategate_migrations"]);
      assert.deepEqual((await p.query(`SELECT version FROM "${schema}".stategate_migrations`)).rows, [{ version: 1 }]);
      await again.close();
      // Tables of a newer stategate are refused, not written.
      await p.query(`INSERT INTO "${schema}".stategate_migrations (version) VALUES (2)`);
      await assert.rejects(PostgresLog.connect(p, { schema }), (e) => e.code === "STORAGE_ERROR" && /schema version 2, made by a newer stategate/.test(e.message));
    } finally {
      await p.end();
    }
  });

  test("PostgresLog: options, a direct store.apply, refused commands and a closed log are typed errors and write nothing", async () => {
    const schema = freshSchema("errors");
    await assert.rejects(PostgresLog.connect(URL_, { schema: "Not-an-identifier" }), { code: "INVALID_OPTION" });
    await assert.rejects(PostgresLog.connect(URL_, { checkpointEvery: -1 }), { code: "INVALID_OPTION" });
    await assert.rejects(PostgresLog.connect(URL_, { checkpointevery: 5 }), { code: "INVALID_OPTION" });
    await assert.rejects(PostgresLog.connect(42), { code: "INVALID_OPTION" });
    await assert.rejects(PostgresLog.connect("postgres://postgres@127.0.0.1:1/none"), (e) => e.code === "STORAGE_ERROR" && /ECONNREFUSED/.test(e.message));
    assert.throws(() => new PostgresRun({}), { code: "INVALID_OPTION" });

    const log = await PostgresLog.connect(URL_, { schema });
    await assert.rejects(log.open(""), { code: "INVALID_OPTION" });
    await assert.rejects(log.open("r1", { onEvents: () => {} }), { code: "INVALID_OPTION" });
    await assert.rejects(log.open("r1", { runId: "r2" }), { code: "INVALID_OPTION" });
    const run = await log.open("r1", { clock });
    await run.apply({ author: "user", update: { messages: [{ role: "user", content: "hi" }] } });
    // Straight to the store: refused, naming run.apply, the store unchanged.
    assert.throws(() => run.store.apply({ author: "user", update: { facts: { a: 1 } } }), (e) => e.code === "STORAGE_ERROR" && /run\.apply/.test(e.message));
    // Refused by the store before anything is written.
    await assert.rejects(run.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "nope", content: "x" }] } }), { code: "UNKNOWN_TOOL_CALL" });
    await assert.rejects(run.apply({ author: "user", expectedVersion: 0, update: { facts: { a: 1 } } }), (e) => e.code === "VERSION_CONFLICT" && !/another writer/.test(e.message));
    await assert.rejects(run.applyBatch([{ author: "a", update: { active_agent: "a" } }, { author: "b", update: { active_agent: "b" } }]), (e) => e.code === "CONCURRENT_WRITE" && e.details.command === 1);
    assert.equal(run.store.version, 1);
    assert.deepEqual((await rowsOf(schema, "r1")).map((r) => r.sequence), [1]);
    await log.close();
    await assert.rejects(run.apply({ author: "user", update: { facts: { a: 1 } } }), (e) => e.code === "STORAGE_ERROR" && /closed/.test(e.message));
    await assert.rejects(log.open("r1"), { code: "STORAGE_ERROR" });
    await log.close(); // a second close does nothing
    run.store.free();
  });

  test("PostgresLog: apply and applyBatch give a plain store's events, ids and hashes; the rows hold the exact JSON lines", async () => {
    const schema = freshSchema("same");
    const log = await PostgresLog.connect(URL_, { schema, checkpointEvery: 0 });
    const run = await log.open("r1", { clock });
    const plain = new StateStore({ runId: "r1", clock });
    const call = (id) => ({ id, type: "function", function: { name: "lookup", arguments: `{"q":"${id}"}` } });
    const steps = [
      { author: "user", update: { messages: [{ role: "user", content: "weather in Rome and Paris?" }], run: { status: "running" } } },
      { author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [call("c1"), call("c2")] }] } },
      [
        { author: "tool:c1", update: { messages: [{ role: "tool", tool_call_id: "c1", content: "18°C" }] } },
        { author: "tool:c2", update: { messages: [{ role: "tool", tool_call_id: "c2", content: "21°C" }], facts: { warmest: "Paris" } } },
      ],
      { author: "model", expectedVersion: 4, update: { messages: [{ role: "assistant", content: "Paris is warmer." }] } },
    ];
    for (const s of steps) {
      const ours = Array.isArray(s) ? await run.applyBatch(s) : await run.apply(s);
      const theirs = Array.isArray(s) ? plain.applyBatch(s) : plain.apply(s);
      assert.deepEqual(ours, theirs);
    }
    assert.equal(run.store.lastHash, plain.lastHash);
    assert.deepEqual(run.store.toJSON(), plain.toJSON());
    const rows = await rowsOf(schema, "r1");
    assert.deepEqual(rows.map((r) => r.event + "\n").join(""), plain.eventsJsonl());
    assert.deepEqual(rows.map((r) => [r.sequence, r.prev_hash, r.hash]), plain.events().map((e) => [e.sequence, e.prev_hash, e.hash]));
    assert.deepEqual(verifyLog(rows.map((r) => r.event).join("\n")), { ok: true });
    // A second process's view: the same run opened again replays the same store.
    const again = await log.open("r1");
    assert.equal(again.store.lastHash, plain.lastHash);
    assert.deepEqual(again.store.toJSON(), plain.toJSON());
    await log.close();
    for (const s of [run.store, again.store, plain]) s.free();
  });

  test("PostgresLog: run.repair answers a crash's dangling calls and run.compact records a compaction, each through the table, as the store's own repair and compact would", async () => {
    const schema = freshSchema("repair");
    const log = await PostgresLog.connect(URL_, { schema, checkpointEvery: 0 });
    const run = await log.open("r1", { clock });
    const plain = new StateStore({ runId: "r1", clock });
    const call = (id) => ({ id, type: "function", function: { name: "lookup", arguments: `{"q":"${id}"}` } });
    const steps = [
      { author: "user", update: { messages: [{ role: "user", content: "look up a and b" }] } },
      { author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [call("a"), call("b")] }] } },
      { author: "tool", update: { messages: [{ role: "tool", tool_call_id: "a", content: "found a" }] } },
    ];
    for (const s of steps) assert.deepEqual(await run.apply(s), plain.apply(s));
    // The process dies before b's result; the next one opens the run and repairs it.
    const resumed = await log.open("r1", { clock });
    assert.deepEqual(resumed.store.danglingToolCalls().map((d) => d.toolCallId), ["b"]);
    const reasons = { b: "interrupted" };
    const ours = await resumed.repair({ reasons });
    assert.deepEqual(ours, plain.repair({ reasons }));
    assert.equal(ours.version, 4);
    assert.deepEqual(ours.report.map((f) => [f.kind, f.toolCallId]), [["interrupted", "b"]]);
    assert.deepEqual(resumed.store.danglingToolCalls(), []);
    assert.deepEqual(await resumed.repair(), { version: 4, report: [], ids: [] }, "nothing left to repair writes nothing");
    // The first process, behind the table, conflicts, syncs and sees the repair.
    await assert.rejects(run.repair({ reasons }), { code: "VERSION_CONFLICT" });
    await run.sync();
    assert.equal(run.store.lastHash, plain.lastHash);
    for (let k = 0; k < 6; k++) {
      const s = { author: k % 2 ? "model" : "user", update: { messages: [{ role: k % 2 ? "assistant" : "user", content: `turn ${k}` }] } };
      assert.deepEqual(await run.apply(s), plain.apply(s));
    }
    const cut = run.store.compactionPlan({ keep: 2 });
    assert.deepEqual(await run.compact({ summary: "so far: a found, b interrupted", cut }), plain.compact({ summary: "so far: a found, b interrupted", cut }));
    await assert.rejects(run.compact({ summary: "x", cut: 2 }), { code: "INVALID_OPTION" }, "a cut inside a tool-call unit");
    const reopened = await log.open("r1", { clock });
    assert.equal(reopened.store.lastHash, plain.lastHash);
    assert.deepEqual(reopened.store.modelView({ budget: 10_000 }).messages, plain.modelView({ budget: 10_000 }).messages);
    const rows = await rowsOf(schema, "r1");
    assert.deepEqual(rows.map((r) => r.event + "\n").join(""), plain.eventsJsonl());
    await log.close();
    for (const s of [run.store, resumed.store, reopened.store, plain]) s.free();
  });

  test("PostgresLog: two writers of one run at once: one succeeds, the other gets VERSION_CONFLICT, sync() catches it up, the chain never forks", async () => {
    const schema = freshSchema("two");
    const [a, b] = [pool(), pool()];
    try {
      const logA = await PostgresLog.connect(a, { schema });
      const logB = await PostgresLog.connect(b, { schema });
      const runA = await logA.open("r1");
      const runB = await logB.open("r1");
      let conflicts = 0;
      for (let round = 0; round < 25; round++) {
        assert.equal(runA.store.version, runB.store.version);
        const before = runB.store.lastHash;
        const cmd = (who) => ({ author: who, expectedVersion: round === 0 ? undefined : runA.store.version, update: { messages: [{ role: "user", content: `${who} in round ${round}` }] } });
        const [ra, rb] = await Promise.allSettled([runA.apply(cmd("a")), runB.apply(cmd("b"))]);
        const ok = [ra, rb].filter((r) => r.status === "fulfilled");
        const lost = [ra, rb].filter((r) => r.status === "rejected");
        assert.equal(ok.length, 1, `round ${round}: exactly one success (${ra.status}, ${rb.status})`);
        assert.equal(lost[0].reason.code, "VERSION_CONFLICT");
        assert.match(lost[0].reason.message, /another writer got there first .*run\.sync\(\)/);
        conflicts++;
        const [winner, loser] = ra.status === "fulfilled" ? [runA, runB] : [runB, runA];
        assert.equal(loser.store.version, round * 2, "the loser's store is unchanged");
        if (loser === runB) assert.equal(runB.store.lastHash, before);
        assert.deepEqual(await loser.sync(), { version: round * 2 + 1, applied: 1 });
        assert.equal(loser.store.lastHash, winner.store.lastHash);
        // The loser retries and succeeds; the winner catches up.
        await loser.apply({ author: "retry", expectedVersion: loser.store.version, update: { facts: { [`round${round}`]: loser === runA ? "a" : "b" } } });
        assert.deepEqual(await winner.sync(), { version: round * 2 + 2, applied: 1 });
        assert.deepEqual(winner.store.toJSON(), loser.store.toJSON());
      }
      assert.equal(conflicts, 25);
      const rows = await rowsOf(schema, "r1");
      assert.deepEqual(rows.map((r) => r.sequence), Array.from({ length: 50 }, (_, i) => i + 1));
      assert.deepEqual(verifyLog(rows.map((r) => r.event).join("\n")), { ok: true });
      for (let i = 1; i < rows.length; i++) assert.equal(rows[i].prev_hash, rows[i - 1].hash);
      assert.equal(StateStore.replay(rows.map((r) => r.event).join("\n")).lastHash, runA.store.lastHash);
      await logA.close();
      await logB.close();
    } finally {
      await a.end();
      await b.end();
    }
  });

  test(`PostgresLog: ${WRITERS} processes × ${COMMANDS} commands on ${RACE_RUNS} runs with expectedVersion races: every acknowledged command once, chains verify, every replay equals its writer`, async () => {
    const schema = freshSchema("race");
    // The tables first, so that the writers' own migrations find them (they are tested above).
    await (await PostgresLog.connect(URL_, { schema })).close();
    const rand = mulberry32(SEED);
    const started = Date.now();
    const outs = await Promise.all(Array.from({ length: WRITERS }, (_, w) => child(["race", schema, w, COMMANDS, Math.floor(rand() * 2 ** 32), RACE_RUNS])));
    const elapsed = Date.now() - started;
    const acks = new Map(); // correlation id → {run, version}
    const finals = [];
    const conflicts = { table: 0, store: 0 };
    for (const lines of outs) {
      for (const line of lines) {
        const o = JSON.parse(line);
        if (o.ack) {
          assert.ok(!acks.has(o.ack), `${o.ack} acknowledged twice`);
          acks.set(o.ack, { run: o.run, version: o.version });
        } else if (o.final) finals.push(o.final);
        else if (o.conflicts) {
          conflicts.table += o.conflicts.table;
          conflicts.store += o.conflicts.store;
        }
      }
    }
    assert.equal(acks.size, WRITERS * COMMANDS);
    assert.equal(finals.length, WRITERS);
    // The run exercised both kinds of conflict (with a few hundred commands or more: ~5% are stale on purpose).
    if (WRITERS > 1 && WRITERS * COMMANDS >= 400) {
      assert.ok(conflicts.table > 0, `no two writers ever raced for a sequence: ${JSON.stringify(conflicts)}`);
      assert.ok(conflicts.store > 0, `no stale expectedVersion was refused by a store: ${JSON.stringify(conflicts)}`);
    }
    let events = 0;
    for (let r = 0; r < RACE_RUNS; r++) {
      const runId = `r${r}`;
      const rows = await rowsOf(schema, runId);
      events += rows.length;
      const text = rows.map((x) => x.event + "\n").join("");
      assert.deepEqual(verifyLog(text), { ok: true }, `run ${runId}`);
      assert.deepEqual(rows.map((x) => x.sequence), Array.from({ length: rows.length }, (_, i) => i + 1), `run ${runId}: sequences 1…n`);
      const replayed = StateStore.replay(text);
      try {
        // Every event is an acknowledged command, at the version it was acknowledged with.
        for (const row of rows) {
          const e = JSON.parse(row.event);
          const ack = acks.get(e.correlation_id);
          assert.ok(ack, `event ${runId}:${e.sequence} (${e.correlation_id}) was never acknowledged`);
          assert.deepEqual(ack, { run: runId, version: e.sequence }, `event ${runId}:${e.sequence}`);
          acks.delete(e.correlation_id);
        }
        for (const f of finals) {
          const mine = f[runId];
          if (mine.version === 0) continue;
          const past = replayed.at(mine.version);
          assert.equal(past.lastHash, mine.lastHash, `run ${runId}: a writer's last hash at ${mine.version}`);
          assert.equal(JSON.stringify(past.toJSON()), mine.state, `run ${runId}: a writer's final state vs the replay at ${mine.version}`);
          past.free();
        }
      } finally {
        replayed.free();
      }
    }
    assert.equal(acks.size, 0, `acknowledged commands missing from the table: ${[...acks.keys()].slice(0, 5)}`);
    assert.equal(events, WRITERS * COMMANDS);
    console.log(`postgres-log race: ${WRITERS}×${COMMANDS} commands on ${RACE_RUNS} runs in ${elapsed} ms; conflicts ${JSON.stringify(conflicts)}`);
  });

  test(`PostgresLog: ${KILLS} SIGKILLs of a writer mid-append lose nothing acknowledged and half-apply no batch; each next process continues the chain`, async () => {
    const schema = freshSchema("kill");
    await (await PostgresLog.connect(URL_, { schema })).close();
    const rand = mulberry32(SEED ^ 0x5157);
    const log = await PostgresLog.connect(URL_, { schema });
    const stats = { kills: 0, acknowledged: 0, inFlightKept: 0, inFlightDropped: 0, batches: 0, restored: 0 };
    let [prevVersion, prevHash, hashes] = [0, GENESIS, []];
    try {
      for (let iter = 0; iter < KILLS; iter++) {
        const plan = rand() < 0.5 ? { kind: "delay", ms: 20 + Math.floor(rand() * 200) } : { kind: "change", nth: 1 + Math.floor(rand() * 30), spinUs: Math.floor(rand() * 1500) };
        const every = 3 + Math.floor(rand() * 8);
        const where = `seed 0x${SEED.toString(16)}, iteration ${iter}, plan ${JSON.stringify(plan)}`;
        const run = await killedChild(schema, Math.floor(rand() * 2 ** 32), iter, every, plan);
        assert.equal(run.signal, "SIGKILL", `the writer was not killed (${where}): ${run.lines.filter((l) => l.startsWith("E ")).join("; ")} ${run.stderr}`);
        stats.kills++;
        // The database decides what was committed: wait until the killed writer's session is gone.
        for (let i = 0; (await sessionsOf(run.pid)) > 0; i++) {
          assert.ok(i < 200, `the killed writer's session is still open after 10 s (${where})`);
          await new Promise((r) => setTimeout(r, 50));
        }
        let lastAck = prevVersion;
        let inFlight = 0;
        const acks = [];
        const ready = run.lines.find((l) => l.startsWith("R "));
        if (ready) {
          const [, v, h] = ready.split(" ");
          assert.equal(Number(v), prevVersion, `the writer resumed at another version (${where})`);
          assert.equal(h, prevHash, `the writer resumed at another hash (${where})`);
          for (const line of run.lines) {
            const [kind, a, b] = line.split(" ");
            if (kind === "P") inFlight = Number(a);
            else if (kind === "A") {
              acks.push([Number(a), b]);
              lastAck = Number(a);
              inFlight = 0;
            }
          }
        }
        stats.acknowledged += acks.length;
        const rows = await rowsOf(schema, "k");
        const text = rows.map((r) => r.event + "\n").join("");
        assert.deepEqual(verifyLog(text), { ok: true }, `verifyLog (${where})`);
        for (const r of rows.slice(hashes.length)) hashes.push(r.hash);
        assert.deepEqual(rows.map((r) => r.hash), hashes, `an event already seen changed (${where})`);
        const version = rows.length;
        assert.ok(version >= lastAck, `acknowledged change lost: the table holds ${version} < acknowledged ${lastAck} (${where})`);
        assert.ok(version === lastAck || version === lastAck + inFlight, `the change in flight (${inFlight} events after ${lastAck}) is half in the table: ${version} (${where})`);
        if (inFlight > 0) version === lastAck ? stats.inFlightDropped++ : stats.inFlightKept++;
        for (const [v, h] of acks) assert.equal(hashes[v - 1], h, `acknowledged event ${v} changed (${where})`);
        // Every batch is whole or absent.
        const groups = new Map();
        for (const r of rows) {
          const e = JSON.parse(r.event);
          const m = BATCH_TAG.exec(e.correlation_id ?? "");
          if (!m) continue;
          const key = `${m[1]}:${m[2]}`;
          if (!groups.has(key)) groups.set(key, { size: Number(m[4]), ks: [], seqs: [] });
          groups.get(key).ks.push(Number(m[3]));
          groups.get(key).seqs.push(e.sequence);
        }
        for (const [key, g] of groups) {
          assert.deepEqual(g.ks, [...Array(g.size).keys()], `batch ${key} is half in the table (${where})`);
          assert.equal(g.seqs.at(-1) - g.seqs[0], g.size - 1, `batch ${key} is not contiguous (${where})`);
        }
        stats.batches = groups.size;
        // load(): the checkpoint and the tail restore what the whole log replays.
        const replayed = StateStore.replay(text);
        const loaded = await log.load("k");
        assert.equal(loaded.version, version);
        if (loaded.checkpoint) {
          assert.ok(loaded.checkpointSequence <= version && loaded.checkpointSequence > 0);
          assert.equal(loaded.events, rows.slice(loaded.checkpointSequence).map((r) => r.event + "\n").join(""));
          const restored = StateStore.restore(loaded.checkpoint, loaded.events);
          assert.equal(restored.lastHash, replayed.lastHash, `restore vs replay (${where})`);
          assert.deepEqual(restored.toJSON(), replayed.toJSON(), `restore vs replay (${where})`);
          restored.free();
          stats.restored++;
        }
        [prevVersion, prevHash] = [version, version ? replayed.lastHash : GENESIS];
        replayed.free();
      }
    } finally {
      await log.close();
    }
    if (KILLS >= 8) {
      assert.ok(stats.acknowledged > KILLS, `too few acknowledged changes: ${JSON.stringify(stats)}`);
      assert.ok(stats.batches > 0 && stats.restored > 0, `no batch or checkpoint was exercised: ${JSON.stringify(stats)}`);
    }
    console.log(`postgres-log kill: seed 0x${SEED.toString(16)} ${JSON.stringify(stats)}`);
  });

  test("PostgresLog: a run resumed in another process continues the chain", async () => {
    const schema = freshSchema("resume");
    await (await PostgresLog.connect(URL_, { schema })).close();
    const [first] = (await child(["resume", schema, "r1", 7])).map((l) => JSON.parse(l));
    assert.equal(first.version, 7);
    assert.deepEqual(first.first, { sequence: 1, prev_hash: GENESIS });
    const [second] = (await child(["resume", schema, "r1", 5])).map((l) => JSON.parse(l));
    assert.equal(second.version, 12);
    assert.deepEqual(second.first, { sequence: 8, prev_hash: first.lastHash });
    const rows = await rowsOf(schema, "r1");
    assert.deepEqual(verifyLog(rows.map((r) => r.event).join("\n")), { ok: true });
    assert.equal(rows.at(-1).hash, second.lastHash);
  });

  test("PostgresLog: a checkpoint every N events; load gives the checkpoint and the tail; restore equals replay", async () => {
    const schema = freshSchema("checkpoint");
    const log = await PostgresLog.connect(URL_, { schema, checkpointEvery: 5 });
    const run = await log.open("r1", { clock });
    const cps = async () => (await sql((c) => c.query(`SELECT sequence::int AS s, encode(hash, 'hex') AS h, checkpoint FROM "${schema}".stategate_checkpoints WHERE run_id = 'r1'`))).rows;
    const say = (k) => ({ author: "user", update: { messages: [{ role: "user", content: `message ${k}` }] } });
    for (let k = 1; k <= 4; k++) await run.apply(say(k));
    assert.deepEqual(await cps(), []);
    await run.apply(say(5));
    assert.deepEqual((await cps()).map((r) => [r.s, r.h]), [[5, run.store.lastHash]]);
    // A batch that crosses the next mark: the checkpoint is taken after it, at its end.
    await run.applyBatch([6, 7, 8, 9, 10, 11].map((k) => ({ author: `w${k}`, update: { facts: { [`k${k}`]: k } } })));
    assert.deepEqual((await cps()).map((r) => r.s), [11]);
    for (let k = 12; k <= 13; k++) await run.apply(say(k));
    const loaded = await log.load("r1");
    assert.equal(loaded.checkpointSequence, 11);
    assert.equal(loaded.version, 13);
    assert.deepEqual(loaded.events.split("\n").filter(Boolean).map((l) => JSON.parse(l).sequence), [12, 13]);
    assert.deepEqual([...loaded.checkpoint], [...(await cps())[0].checkpoint]);
    const restored = StateStore.restore(loaded.checkpoint, loaded.events);
    const replayed = StateStore.replay(run.store.eventsJsonl());
    assert.equal(restored.lastHash, replayed.lastHash);
    assert.deepEqual(restored.toJSON(), replayed.toJSON());
    assert.deepEqual(restored.toJSON(), run.store.toJSON());
    // open() restores from it, and an explicit checkpoint() saves the store as it is.
    const again = await log.open("r1");
    assert.deepEqual(again.store.toJSON(), run.store.toJSON());
    assert.equal(await run.checkpoint(), 13);
    assert.deepEqual((await cps()).map((r) => r.s), [13]);
    // An older writer's checkpoint never replaces a newer one.
    const stale = await (await PostgresLog.connect(URL_, { schema, checkpointEvery: 1 })).open("r1");
    assert.equal(await stale.checkpoint(), 13);
    assert.equal(run.checkpointError, null);
    assert.equal((await log.load("r1")).checkpointSequence, 13);
    await log.close();
    for (const s of [run.store, again.store, restored, replayed, stale.store]) s.free();
  });

  test("PostgresLog: a keyed chain (chainKey) is written with HMACs and resumed only with its key", async () => {
    const schema = freshSchema("keyed");
    const key = new Uint8Array(32).map((_, i) => i * 7 + 1);
    const log = await PostgresLog.connect(URL_, { schema, checkpointEvery: 2 });
    const run = await log.open("r1", { chainKey: key, clock });
    for (const city of ["Rome", "Paris", "Oslo"]) await run.apply({ author: "planner", update: { facts: { city } } });
    const plain = new StateStore({ runId: "r1", clock });
    for (const city of ["Rome", "Paris", "Oslo"]) plain.apply({ author: "planner", update: { facts: { city } } });
    const rows = await rowsOf(schema, "r1");
    const text = rows.map((r) => r.event).join("\n");
    assert.deepEqual(verifyLog(text, { chainKey: key }), { ok: true });
    assert.notEqual(rows[0].hash, plain.events()[0].hash, "the events are hashed with the key");
    await assert.rejects(log.open("r1"), { code: "INVALID_OPTION" }); // its checkpoint needs the key
    const again = await log.open("r1", { chainKey: key });
    assert.equal(again.store.lastHash, run.store.lastHash);
    await log.close();
    for (const s of [run.store, again.store, plain]) s.free();
  });

  test("PostgresLog: an event edited in the table is refused when the run is opened (TAMPERED_LOG)", async () => {
    const schema = freshSchema("tamper");
    const log = await PostgresLog.connect(URL_, { schema, checkpointEvery: 0 });
    const run = await log.open("r1");
    for (const city of ["Rome", "Paris", "Oslo"]) await run.apply({ author: "planner", update: { facts: { city } } });
    await sql((c) => c.query(`UPDATE "${schema}".stategate_events SET event = replace(event, '"Paris"', '"Lyon"') WHERE run_id = 'r1' AND sequence = 2`));
    await assert.rejects(log.open("r1"), (e) => e.code === "TAMPERED_LOG" && e.details.index === 1);
    // A writer already holding the run is unaffected until it reads the row; sync reads only newer rows.
    assert.deepEqual(await run.sync(), { version: 3, applied: 0 });
    await log.close();
    run.store.free();
  });

  test("PostgresLog: a store changed outside run.apply (store.ingest) is refused; past that, the database refuses the next insert (TAMPERED_LOG) and the run stays openable", async () => {
    const schema = freshSchema("ingest");
    const log = await PostgresLog.connect(URL_, { schema, checkpointEvery: 0 });
    const run = await log.open("ing", { clock });
    const side = new StateStore({ runId: "ing", clock });
    side.apply({ author: "user", update: { facts: { a: 1 } } });
    // A direct ingest is refused as a direct apply is, the store unchanged.
    assert.throws(() => run.store.ingest(side.events()), (e) => e.code === "STORAGE_ERROR" && /store\.ingest/.test(e.message) && /run\.sync/.test(e.message));
    assert.equal(run.store.version, 0);
    // Past that guard (the store's own method): the store holds an event 1 the table does not.
    Object.getPrototypeOf(run.store).ingest.call(run.store, side.events());
    assert.equal(run.store.version, 1);
    await assert.rejects(
      run.apply({ author: "user", update: { facts: { b: 2 } } }),
      (e) => e.code === "TAMPERED_LOG" && e.details.field === "prev_hash" && /events 2… not written: the table has no event 1, the store's last event \(hash [0-9a-f]{12}…\)/.test(e.message) && /outside run\.apply/.test(e.message),
    );
    await assert.rejects(run.applyBatch([{ author: "a", update: { facts: { c: 3 } } }]), { code: "TAMPERED_LOG" });
    assert.equal(run.store.version, 1, "a refused call changes nothing");
    assert.deepEqual(await rowsOf(schema, "ing"), [], "nothing was inserted: no event 2 without an event 1");
    // The table is whole: the run opens again and its chain starts at 1.
    const again = await log.open("ing", { clock });
    assert.deepEqual(await again.apply({ author: "user", update: { facts: { b: 2 } } }), { version: 1, ids: [] });
    const rows = await rowsOf(schema, "ing");
    assert.deepEqual(rows.map((r) => [r.sequence, r.prev_hash]), [[1, GENESIS]]);
    assert.equal((await log.open("ing")).store.lastHash, again.store.lastHash);
    await log.close();
    for (const s of [run.store, again.store, side]) s.free();
  });

  test("PostgresLog: after a row is lost, neither a writer continuing the lost row nor one continuing another history breaks the table's chain (TAMPERED_LOG)", async () => {
    const schema = freshSchema("lost");
    const logA = await PostgresLog.connect(URL_, { schema, checkpointEvery: 0 });
    const logB = await PostgresLog.connect(URL_, { schema, checkpointEvery: 0 });
    const a = await logA.open("r1", { clock });
    for (const city of ["Rome", "Paris", "Oslo", "Bern"]) await a.apply({ author: "planner", update: { facts: { city } } });
    const old4 = a.store.lastHash;
    // Row 4 is lost (a restore from a backup taken before it was written).
    await sql((c) => c.query(`DELETE FROM "${schema}".stategate_events WHERE run_id = 'r1' AND sequence = 4`));
    await assert.rejects(
      a.apply({ author: "planner", update: { facts: { city: "Lima" } } }),
      (e) => e.code === "TAMPERED_LOG" && new RegExp(`the table has no event 4, the store's last event \\(hash ${old4.slice(0, 12)}…\\)`).test(e.message) && /a row lost from the table/.test(e.message),
    );
    assert.equal(a.store.version, 4);
    // A second writer opens the table as it is (3 events) and writes a new event 4.
    const b = await logB.open("r1", { clock });
    assert.equal(b.store.version, 3);
    assert.deepEqual(await b.apply({ author: "planner", update: { facts: { city: "Kyiv" } } }), { version: 4, ids: [] });
    assert.notEqual(b.store.lastHash, old4);
    // The first writer's event 5 would link to the old row 4: refused, naming both hashes.
    await assert.rejects(
      a.apply({ author: "planner", update: { facts: { city: "Lima" } } }),
      (e) => e.code === "TAMPERED_LOG" && e.message.includes(`the table's event 4 has hash ${b.store.lastHash.slice(0, 12)}…, not the store's last event's ${old4.slice(0, 12)}…`) && /another history/.test(e.message),
    );
    assert.deepEqual(await a.sync(), { version: 4, applied: 0 }, "sync cannot reconcile it: the table's 4 is not the store's");
    // The table's chain is whole; the second writer goes on, and a reopened first writer too.
    await b.apply({ author: "planner", update: { facts: { city: "Quito" } } });
    const rows = await rowsOf(schema, "r1");
    assert.deepEqual(rows.map((r) => r.sequence), [1, 2, 3, 4, 5]);
    for (let i = 1; i < rows.length; i++) assert.equal(rows[i].prev_hash, rows[i - 1].hash);
    assert.deepEqual(verifyLog(rows.map((r) => r.event).join("\n")), { ok: true });
    const reopened = await logA.open("r1", { clock });
    assert.equal(reopened.store.lastHash, b.store.lastHash);
    assert.deepEqual(reopened.store.get("facts"), { city: "Quito" });
    await logA.close();
    await logB.close();
    for (const s of [a.store, b.store, reopened.store]) s.free();
  });

  test("PostgresLog: a row whose hash or prev_hash column disagrees with its event line is TAMPERED_LOG naming the sequence (load, open, sync)", async () => {
    const schema = freshSchema("columns");
    const log = await PostgresLog.connect(URL_, { schema, checkpointEvery: 0 });
    const run = await log.open("r1", { clock });
    const behind = await log.open("r1", { clock });
    for (const city of ["Rome", "Paris", "Oslo"]) await run.apply({ author: "planner", update: { facts: { city } } });
    const before = await rowsOf(schema, "r1");
    // The hash column of row 2 no longer matches its event (whose line, and so the chain of lines, is intact).
    await sql((c) => c.query(`UPDATE "${schema}".stategate_events SET hash = decode(repeat('ab', 32), 'hex') WHERE run_id = 'r1' AND sequence = 2`));
    const column = (field, sequence, index) => (e) => e.code === "TAMPERED_LOG" && e.details.field === field && e.details.index === index && e.message.includes(`row at sequence ${sequence} has ${field} `) && e.message.includes(`in its column but ${before[sequence - 1][field].slice(0, 12)}… in its event`);
    await assert.rejects(log.load("r1"), column("hash", 2, 1));
    await assert.rejects(log.open("r1"), column("hash", 2, 1));
    await assert.rejects(behind.sync(), column("hash", 2, 1));
    assert.equal(behind.store.version, 0, "the store is unchanged");
    // Put back, then the prev_hash column of row 3.
    await sql((c) => c.query(`UPDATE "${schema}".stategate_events SET hash = decode($1, 'hex') WHERE run_id = 'r1' AND sequence = 2`, [before[1].hash]));
    await sql((c) => c.query(`UPDATE "${schema}".stategate_events SET prev_hash = decode(repeat('cd', 32), 'hex') WHERE run_id = 'r1' AND sequence = 3`));
    await assert.rejects(log.open("r1"), column("prev_hash", 3, 2));
    assert.deepEqual(await behind.sync().catch((e) => [e.code, e.details.index]), ["TAMPERED_LOG", 2]);
    // A checkpoint's tail is read the same way: its index counts the rows after the checkpoint.
    await sql((c) => c.query(`UPDATE "${schema}".stategate_events SET prev_hash = decode($1, 'hex') WHERE run_id = 'r1' AND sequence = 3`, [before[2].prev_hash]));
    assert.deepEqual(await behind.sync(), { version: 3, applied: 3 }, "the rows are whole again");
    await run.checkpoint();
    await run.apply({ author: "planner", update: { facts: { city: "Bern" } } });
    await sql((c) => c.query(`UPDATE "${schema}".stategate_events SET hash = decode(repeat('ef', 32), 'hex') WHERE run_id = 'r1' AND sequence = 4`));
    await assert.rejects(log.open("r1"), (e) => e.code === "TAMPERED_LOG" && e.details.index === 0 && /row at sequence 4 has hash efefefefefef… in its column/.test(e.message));
    await assert.rejects(behind.sync(), (e) => e.code === "TAMPERED_LOG" && e.details.index === 0);
    assert.equal(behind.store.version, 3);
    // A column that starts as its event's hash, one byte longer (33 bytes): the message shows the difference.
    const h4 = JSON.parse((await rowsOf(schema, "r1"))[3].event).hash;
    await sql((c) => c.query(`UPDATE "${schema}".stategate_events SET hash = decode($1, 'hex') WHERE run_id = 'r1' AND sequence = 4`, [h4 + "00"]));
    await assert.rejects(log.load("r1"), (e) => e.code === "TAMPERED_LOG" && e.details.field === "hash" && e.message.includes(`has hash ${h4}00 (33 bytes) in its column but ${h4} (32 bytes) in its event`));
    // The same length, the same first 12 digits, another last byte: both shown in full.
    const flipped = h4.slice(0, 62) + (h4.slice(62) === "00" ? "01" : "00");
    await sql((c) => c.query(`UPDATE "${schema}".stategate_events SET hash = decode($1, 'hex') WHERE run_id = 'r1' AND sequence = 4`, [flipped]));
    await assert.rejects(log.load("r1"), (e) => e.code === "TAMPERED_LOG" && e.message.includes(`has hash ${flipped} (32 bytes) in its column but ${h4} (32 bytes) in its event`));
    await log.close();
    for (const s of [run.store, behind.store]) s.free();
  });

  test("PostgresLog: a checkpoint row that is not its run's (another run's, another sequence, another hash, past the table's last event) is TAMPERED_LOG naming the field (load, open)", async () => {
    const schema = freshSchema("cprow");
    const log = await PostgresLog.connect(URL_, { schema, checkpointEvery: 0 });
    const say = (k) => ({ author: "user", update: { messages: [{ role: "user", content: `message ${k}` }] } });
    const other = await log.open("other", { clock });
    for (let k = 1; k <= 8; k++) await other.apply(say(k));
    assert.equal(await other.checkpoint(), 8);
    const small = await log.open("small", { clock });
    for (let k = 1; k <= 2; k++) await small.apply(say(k));
    assert.deepEqual(await log.load("small").then((l) => [l.checkpoint, l.checkpointSequence, l.version]), [null, 0, 2], "no checkpoint: version is the table's last event");
    const cp = `"${schema}".stategate_checkpoints`;
    const copyOther = () => sql((c) => c.query(`INSERT INTO ${cp} (run_id, sequence, hash, checkpoint) SELECT 'small', sequence, hash, checkpoint FROM ${cp} WHERE run_id = 'other' ON CONFLICT (run_id) DO UPDATE SET sequence = EXCLUDED.sequence, hash = EXCLUDED.hash, checkpoint = EXCLUDED.checkpoint`));
    // Run other's checkpoint row (its sequence 8) copied into run small (2 events).
    await copyOther();
    const swapped = (e) => e.code === "TAMPERED_LOG" && e.details.field === "run_id" && e.message.includes(`run "small": its checkpoint row holds a checkpoint of run "other"`);
    await assert.rejects(log.load("small"), swapped);
    await assert.rejects(log.open("small"), swapped);
    // Its own checkpoint (the swapped row, newer, would block it: a checkpoint never replaces a newer one), then its row's sequence column changed.
    await sql((c) => c.query(`DELETE FROM ${cp} WHERE run_id = 'small'`));
    assert.equal(await small.checkpoint(), 2);
    assert.deepEqual(await log.load("small").then((l) => [l.checkpointSequence, l.version, l.events]), [2, 2, ""]);
    await sql((c) => c.query(`UPDATE ${cp} SET sequence = 1 WHERE run_id = 'small'`));
    await assert.rejects(log.load("small"), (e) => e.code === "TAMPERED_LOG" && e.details.field === "last_sequence" && /checkpoint row at sequence 1 holds a checkpoint of sequence 2/.test(e.message));
    await sql((c) => c.query(`UPDATE ${cp} SET sequence = 2, hash = decode(repeat('ab', 32), 'hex') WHERE run_id = 'small'`));
    await assert.rejects(log.open("small"), (e) => e.code === "TAMPERED_LOG" && e.details.field === "last_hash" && e.message.includes(`has hash abababababab… in its column but ${small.store.lastHash.slice(0, 12)}… in its checkpoint`));
    await sql((c) => c.query(`UPDATE ${cp} SET hash = decode($1, 'hex') WHERE run_id = 'small'`, [small.store.lastHash]));
    assert.equal((await log.open("small")).store.lastHash, small.store.lastHash, "whole again");
    // The events table restored from an older backup: the checkpoint is past its last event.
    await sql((c) => c.query(`DELETE FROM "${schema}".stategate_events WHERE run_id = 'small' AND sequence = 2`));
    const past = (e) => e.code === "TAMPERED_LOG" && e.details.field === "sequence" && /checkpoint of sequence 2 is past the table's last event, 1/.test(e.message);
    await assert.rejects(log.load("small"), past);
    await assert.rejects(log.open("small"), past);
    // Bytes that are not a checkpoint: CORRUPT_CHECKPOINT.
    await sql((c) => c.query(`UPDATE ${cp} SET checkpoint = '\\xfffe00'::bytea WHERE run_id = 'small'`));
    await assert.rejects(log.load("small"), (e) => e.code === "CORRUPT_CHECKPOINT" && e.details.field === "checkpoint");
    // Run other is untouched by all of it.
    const loaded = await log.load("other");
    assert.deepEqual([loaded.checkpointSequence, loaded.version, loaded.events], [8, 8, ""]);
    await log.close();
    for (const s of [other.store, small.store]) s.free();
  });

  test("PostgresLog: run.store.registerChannel is refused (STORAGE_ERROR naming init.channels); channels declared in every log.open work", async () => {
    const schema = freshSchema("register");
    const log = await PostgresLog.connect(URL_, { schema, checkpointEvery: 2 });
    const run = await log.open("r1", { clock });
    const channels = run.store.channels().length;
    assert.throws(() => run.store.registerChannel({ name: "itinerary", reducer: "replace" }), (e) => e.code === "STORAGE_ERROR" && /init\.channels/.test(e.message) && /log\.open/.test(e.message));
    assert.equal(run.store.channels().length, channels, "nothing registered");
    await assert.rejects(run.apply({ author: "planner", update: { itinerary: "FCO" } }), { code: "UNKNOWN_CHANNEL" });
    assert.equal(run.store.version, 0);
    // The documented way: the spec in init.channels of every open, new or restored.
    const itinerary = { name: "itinerary", reducer: "replace" };
    const declared = await log.open("r2", { channels: [itinerary], clock });
    assert.throws(() => declared.store.registerChannel({ name: "other", reducer: "replace" }), { code: "STORAGE_ERROR" });
    for (const v of ["FCO", "FCO 09:40", "FCO 09:40 14C"]) await declared.apply({ author: "planner", update: { itinerary: v } });
    const elsewhere = await PostgresLog.connect(URL_, { schema });
    const reopened = await elsewhere.open("r2", { channels: [itinerary] });
    assert.equal(reopened.store.get("itinerary"), "FCO 09:40 14C");
    assert.equal(reopened.store.lastHash, declared.store.lastHash);
    await log.close();
    await elsewhere.close();
    for (const s of [run.store, declared.store, reopened.store]) s.free();
  });

  test("PostgresLog: a run id with U+0000 and PostgreSQL's reserved schemas are INVALID_OPTION, before the database is touched", async () => {
    const nowhere = "postgres://postgres@127.0.0.1:1/none";
    for (const schema of ["information_schema", "pg_catalog", "pg_toast", "pg_temp_1", "pg_"]) {
      await assert.rejects(PostgresLog.connect(nowhere, { schema }), (e) => e.code === "INVALID_OPTION" && e.message.includes(`schema "${schema}" is reserved by PostgreSQL`), schema);
    }
    // Names near them are not reserved (the same unreachable server: refused only by the connection).
    for (const schema of ["pgx", "my_pg_schema", "information"]) await assert.rejects(PostgresLog.connect(nowhere, { schema }), { code: "STORAGE_ERROR" }, schema);
    const schema = freshSchema("nul");
    const log = await PostgresLog.connect(URL_, { schema });
    for (const id of ["a\u0000b", "\u0000"]) {
      await assert.rejects(log.open(id), (e) => e.code === "INVALID_OPTION" && /U\+0000/.test(e.message));
      await assert.rejects(log.load(id), (e) => e.code === "INVALID_OPTION" && /U\+0000/.test(e.message));
    }
    assert.equal((await sql((c) => c.query(`SELECT count(*)::int AS n FROM "${schema}".stategate_events`))).rows[0].n, 0);
    await log.close();
  });

  test("PostgresLog: private channels: a new run registers them from init.channels, the owner claims its key with run.claimOwnerKey, in this process and after a reopen", async () => {
    const schema = freshSchema("private");
    const scratch = { name: "scratch", reducer: "replace", visibility: "private", owner: "planner" };
    const notes = { name: "notes", reducer: "append", visibility: "private", owner: "planner" };
    const shared = { name: "shared", reducer: "merge" };
    const channels = [scratch, shared, notes];
    const log = await PostgresLog.connect(URL_, { schema, checkpointEvery: 2 });
    const run = await log.open("p1", { channels, clock });
    assert.deepEqual(run.store.channels().slice(-3).map((c) => [c.name, c.visibility ?? "model"]).map(([n, v]) => [n, v === "private" ? "private" : "public"]), [["scratch", "private"], ["shared", "public"], ["notes", "private"]]);
    // The store's own claim has nothing to give (registerChannel handed the key to the run).
    assert.throws(() => run.store.claimOwnerKey("planner"), { code: "NOT_OWNER" });
    const key = run.claimOwnerKey("planner");
    assert.match(key, /^sgk_/);
    assert.throws(() => run.claimOwnerKey("planner"), { code: "NOT_OWNER" });
    assert.throws(() => run.claimOwnerKey("nobody"), { code: "NOT_OWNER" });
    await run.apply({ author: "planner", update: { scratch: "the user is flexible on price", notes: ["Rome"], shared: { city: "Rome" } } });
    await run.apply({ author: "planner", update: { notes: ["Paris"] } });
    await run.apply({ author: "user", update: { messages: [{ role: "user", content: "and Oslo?" }] } });
    assert.deepEqual(run.store.private(key), { scratch: "the user is flexible on price", notes: ["Rome", "Paris"] });
    assert.ok(!JSON.stringify(run.store.systemView()).includes("flexible"));
    // Another process: the same specs in channels, the key claimed again (keys are never persisted).
    const other = await PostgresLog.connect(URL_, { schema });
    assert.equal((await other.load("p1")).checkpointSequence, 2, "restored from a checkpoint and a tail");
    const reopened = await other.open("p1", { channels, clock });
    assert.equal(reopened.store.lastHash, run.store.lastHash);
    const key2 = reopened.claimOwnerKey("planner");
    assert.throws(() => reopened.claimOwnerKey("planner"), { code: "NOT_OWNER" });
    assert.deepEqual(reopened.store.private(key2), { scratch: "the user is flexible on price", notes: ["Rome", "Paris"] });
    assert.throws(() => reopened.store.private(key), { code: "NOT_OWNER" });
    await reopened.apply({ author: "planner", update: { scratch: "budget €200" } });
    assert.deepEqual(await run.sync(), { version: 4, applied: 1 });
    assert.equal(run.store.private(key).scratch, "budget €200");
    // A bad private spec of a new run is refused and writes nothing.
    await assert.rejects(log.open("p2", { channels: [scratch, { ...notes, owner: 7 }] }), { code: "INVALID_OPTION" });
    assert.equal((await log.load("p2")).version, 0);
    await log.close();
    await other.close();
    for (const s of [run.store, reopened.store]) s.free();
  });
}

/** Runs a kill-mode writer and SIGKILLs it per `plan`; resolves with its lines, pid and signal. */
function killedChild(schema, seed, iter, every, plan) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [WRITER, "kill", schema, String(seed), String(iter), String(every)], { stdio: ["ignore", "pipe", "pipe"] });
    const lines = [];
    let pending = "";
    let stderr = "";
    let killed = false;
    let changes = 0;
    const kill = () => {
      if (killed) return;
      killed = true;
      p.kill("SIGKILL");
    };
    let safety = setTimeout(kill, 30_000); // a writer that never gets ready; not an assertion
    p.stdout.setEncoding("utf8").on("data", (chunk) => {
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        lines.push(line);
        if (killed) continue;
        if (line.startsWith("R ")) {
          if (plan.kind === "delay") setTimeout(kill, plan.ms);
          clearTimeout(safety);
          safety = setTimeout(kill, 5000);
        } else if (line.startsWith("P ") && plan.kind === "change" && ++changes === plan.nth) {
          // Right as a change starts: somewhere in its preview, INSERT, commit or ingest.
          const end = process.hrtime.bigint() + BigInt(plan.spinUs) * 1000n;
          while (process.hrtime.bigint() < end);
          kill();
        }
      }
    });
    p.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    p.on("error", reject);
    p.on("close", (code, signal) => {
      clearTimeout(safety);
      resolve({ lines, code, signal, stderr, pid: p.pid });
    });
  });
}
