// Crash safety of FileLog (issue 14), tested the way trusted logs are tested: a child process
// (support/filelog-writer.mjs) writes a store through FileLog — single applies and batches,
// checkpoints every ~25 changes — and is killed with SIGKILL at a random moment; the parent then
// loads the directory and checks what a crash may and may not leave:
//   - nothing acknowledged is lost: the loaded version is >= the last version the child printed
//     as acknowledged, and every acknowledged version still has the hash the child saw;
//   - nothing is half-applied: every batch (its commands carry correlationId B:<iter>:<n>:<k>/<size>)
//     is in the log whole or not at all, and the version is at most acknowledged + the size of
//     the change in flight;
//   - the log is intact: verifyLog is ok, replay succeeds, restore from the checkpoint gives the
//     same store, the checkpoint is at least the last one acknowledged, and what an earlier load
//     returned is still the prefix of the file.
// Then a new child resumes the same directory (restore / replay, same onEvents), so the log grows
// across kills and each resumed run continues the chain. Every ROTATE kills a fresh directory
// starts, which keeps each replay short (the checks replay the whole log every time).
// Kill moments: 0–150 ms after "ready", right after the 1st–3rd checkpoint, right as the
// 1st–8th batch starts, or in the middle of the append of a batch of MB-sized tool results (a
// SIGKILL there makes Linux cut the write short: without the change's byte range recorded
// first, load() used to keep the batch's complete lines and drop only the torn one). The
// second test cuts such a batch's write at chosen bytes, so that case is checked every run.
//
// FILELOG_KILLS (default 40) sets the number of kills (`make fuzz` runs 500); FILELOG_SEED the
// seed (the kill moments are seeded, but where a kill lands also depends on the machine, so a
// failure is reproduced by the seed plus the iteration printed, usually after a few runs).
//
// Run: node --test tests/js/filelog-kill.test.mjs
//      FILELOG_KILLS=500 node --test tests/js/filelog-kill.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { StateStore, verifyLog } from "../../pkg/index.js";
import { FileLog } from "../../pkg/file-log.js";
import { mulberry32 } from "../support/prng.mjs";

const KILLS = Number(process.env.FILELOG_KILLS || 40);
const SEED = Number(process.env.FILELOG_SEED || 0xf11e1014) >>> 0;
const ROTATE = 25;
const WRITER = fileURLToPath(new URL("./support/filelog-writer.mjs", import.meta.url));
const GENESIS = "0".repeat(64);
const BATCH_TAG = /^B:(\d+):(\d+):(\d+)\/(\d+)$/;

/** Where to kill the child: a delay after "ready", or right at a checkpoint / a batch in flight. */
function pickPlan(rand) {
  const r = rand();
  if (r < 0.5) return { kind: "delay", delayMs: Math.floor(rand() * 151) };
  if (r < 0.7) return { kind: "checkpoint", nth: 1 + Math.floor(rand() * 3) };
  if (r < 0.8) return { kind: "batch", nth: 1 + Math.floor(rand() * 8), spinUs: Math.floor(rand() * 400) };
  // In the middle of the append of a batch of large results (several MB). Either as soon as the log
  // file is seen to grow (which also measures how long after "W" the write starts), or at a
  // random point around when the write started in the runs measured so far: the kernel then
  // cuts the write short, between two of its pages or folios.
  if (rand() < 0.3) return { kind: "big", watch: true, spinUs: Math.floor(rand() * 100), big: true };
  return { kind: "big", watch: false, around: 0.6 + rand() * 0.5, big: true };
}

function spin(us) {
  const end = process.hrtime.bigint() + BigInt(us) * 1000n;
  while (process.hrtime.bigint() < end);
}

/** How long after "W" the log file was seen to grow, in µs, in the runs that watched it. */
const writeStarts = [];

/** Runs one child until it is killed per `plan`; resolves with its complete stdout lines. */
function runChild(dir, seed, iter, plan) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, dir, String(seed), String(iter), plan.big ? "big" : ""], { stdio: ["ignore", "pipe", "pipe"] });
    const lines = [];
    let pending = "";
    let stderr = "";
    let killed = false;
    let checkpoints = 0;
    let batches = 0;
    let bigInFlight = false;
    let safety = setTimeout(() => kill(), 30_000); // a child that never gets ready; not an assertion
    const kill = () => {
      if (killed) return;
      killed = true;
      child.kill("SIGKILL");
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        lines.push(line);
        if (killed) continue;
        const [kind, a, b, c] = line.split(" ");
        if (kind === "R") {
          if (plan.kind === "delay") setTimeout(kill, plan.delayMs);
          clearTimeout(safety);
          safety = setTimeout(kill, 5000); // only if a trigger never comes; not an assertion
        } else if (kind === "C" && plan.kind === "checkpoint" && ++checkpoints === plan.nth) {
          kill();
        } else if (kind === "P") {
          bigInFlight = c === "big";
          if (plan.kind === "batch" && b !== "-" && ++batches === plan.nth) {
            spin(plan.spinUs);
            kill();
          }
        } else if (kind === "W" && plan.kind === "big" && bigInFlight) {
          if (plan.watch) {
            const file = path.join(dir, "events.jsonl");
            const start = process.hrtime.bigint();
            const end = start + 50_000_000n; // 50 ms at most
            while (fs.statSync(file).size <= Number(b) && process.hrtime.bigint() < end);
            writeStarts.push(Number(process.hrtime.bigint() - start) / 1000);
            spin(plan.spinUs);
          } else {
            const known = writeStarts.length ? writeStarts.reduce((x, y) => x + y) / writeStarts.length : 3000;
            spin(Math.round(known * plan.around));
          }
          kill();
        }
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(safety);
      resolve({ lines, code, signal, stderr });
    });
  });
}

test(`FileLog: ${KILLS} SIGKILLs of a writer lose nothing acknowledged and half-apply nothing`, async () => {
  const rand = mulberry32(SEED);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "stategate-kill-"));
  const stats = { kills: 0, acknowledged: 0, events: 0, batches: 0, inFlightKept: 0, inFlightDropped: 0, torn: 0, restored: 0, byPlan: {}, bigBatch: { torn: 0, dropped: 0, kept: 0 } };
  try {
    let dir, prevText, prevVersion, prevHash, hashes, knownCheckpoint;
    for (let iter = 0; iter < KILLS; iter++) {
      if (iter % ROTATE === 0) {
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
        dir = path.join(root, `epoch${iter / ROTATE}`);
        [prevText, prevVersion, prevHash, hashes, knownCheckpoint] = ["", 0, GENESIS, [], 0];
      }
      const plan = pickPlan(rand);
      const childSeed = Math.floor(rand() * 2 ** 32);
      const where = `seed 0x${SEED.toString(16)}, iteration ${iter}, plan ${JSON.stringify(plan)}, child seed ${childSeed}`;
      let run = await runChild(dir, childSeed, iter, plan);
      // pkg/ is rebuilt from time to time (it is missing for a while): a child that could not even
      // load the package wrote nothing, so wait for the package and run it again.
      for (let tries = 0; tries < 60 && run.code !== null && !run.lines.some((l) => l.startsWith("R ")) && /ERR_MODULE_NOT_FOUND|Cannot find module/.test(run.stderr); tries++) {
        await new Promise((r) => setTimeout(r, 2000));
        run = await runChild(dir, childSeed, iter, plan);
      }
      const errors = run.lines.filter((l) => l.startsWith("E "));
      assert.equal(run.signal, "SIGKILL", `child was not killed (${where}): exit ${run.code}, ${errors.join("; ")} ${run.stderr}`);
      stats.kills++;
      stats.byPlan[plan.kind] = (stats.byPlan[plan.kind] ?? 0) + 1;

      // What the child saw: where it resumed, what was acknowledged, what was in flight.
      const ready = run.lines.find((l) => l.startsWith("R "));
      let lastAck = prevVersion;
      let inFlight = 0;
      const acks = [];
      if (ready) {
        const [, v, h] = ready.split(" ");
        assert.equal(Number(v), prevVersion, `the child resumed at another version (${where})`);
        assert.equal(h, prevHash, `the child resumed at another hash (${where})`);
        for (const line of run.lines) {
          const [kind, a, b] = line.split(" ");
          if (kind === "P") inFlight = Number(a);
          else if (kind === "A") {
            acks.push([Number(a), b]);
            lastAck = Number(a);
            inFlight = 0;
          } else if (kind === "C") knownCheckpoint = Math.max(knownCheckpoint, Number(a));
        }
      }
      stats.acknowledged += acks.length;

      // What the directory holds now.
      const log = FileLog.open(dir);
      let loaded;
      try {
        loaded = log.load();
      } finally {
        log.close();
      }
      const { checkpoint, events, torn } = loaded;
      if (torn) stats.torn++;
      assert.ok(events.startsWith(prevText), `the log no longer starts with what the previous load returned (${where})`);
      const check = verifyLog(events);
      assert.deepEqual(check, { ok: true }, `verifyLog (${where})`);

      const fresh = events.slice(prevText.length).split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
      for (const e of fresh) hashes.push(e.hash);
      const store = StateStore.replay(events);
      try {
        const version = store.version;
        assert.equal(version, hashes.length, `replayed version vs events in the file (${where})`);
        assert.ok(version >= lastAck, `acknowledged change lost: loaded version ${version} < acknowledged ${lastAck} (${where})`);
        assert.ok(version <= lastAck + inFlight, `loaded version ${version} > acknowledged ${lastAck} + in-flight ${inFlight} (${where})`);
        assert.ok(version === lastAck || version === lastAck + inFlight, `the change in flight (${inFlight} events after version ${lastAck}) is half in the log: version ${version} (${where})`);
        if (inFlight > 0) version === lastAck ? stats.inFlightDropped++ : stats.inFlightKept++;
        if (plan.kind === "big") stats.bigBatch[torn ? "torn" : version === lastAck ? "dropped" : "kept"]++;
        for (const [v, h] of acks) assert.equal(hashes[v - 1], h, `acknowledged event ${v} changed (${where})`);

        // Every batch of this child is whole or absent: its events are consecutive, all `size` of them.
        const groups = new Map();
        for (const e of fresh) {
          const m = BATCH_TAG.exec(e.correlation_id ?? "");
          if (!m) continue;
          assert.equal(Number(m[1]), iter, `a batch event of another run among the new events (${where})`);
          const key = `${m[1]}:${m[2]}`;
          if (!groups.has(key)) groups.set(key, { size: Number(m[4]), seqs: [], ks: [] });
          groups.get(key).seqs.push(e.sequence);
          groups.get(key).ks.push(Number(m[3]));
        }
        for (const [key, g] of groups) {
          assert.deepEqual(g.ks, [...Array(g.size).keys()], `batch ${key} is half in the log: commands ${g.ks.join(",")} of ${g.size}, sequences ${g.seqs.join(",")} (${where})`);
          assert.equal(g.seqs.at(-1) - g.seqs[0], g.size - 1, `batch ${key} is not contiguous (${where})`);
        }
        stats.batches += groups.size;
        stats.events += fresh.length;

        // The checkpoint: at least the last one acknowledged, at most the log, and it restores the same store.
        if (knownCheckpoint > 0) assert.ok(checkpoint, `the acknowledged checkpoint of version ${knownCheckpoint} is gone (${where})`);
        if (checkpoint) {
          const cp = JSON.parse(Buffer.from(checkpoint).toString("utf8"));
          assert.ok(cp.last_sequence >= knownCheckpoint, `checkpoint ${cp.last_sequence} older than the acknowledged ${knownCheckpoint} (${where})`);
          assert.ok(cp.last_sequence <= version, `checkpoint ${cp.last_sequence} ahead of the log ${version} (${where})`);
          const again = StateStore.restore(checkpoint, events);
          try {
            assert.equal(again.version, version, `restore version (${where})`);
            assert.equal(again.lastHash, store.lastHash, `restore lastHash (${where})`);
            assert.deepEqual(again.toJSON(), store.toJSON(), `restore state vs replay (${where})`);
          } finally {
            again.free();
          }
          stats.restored++;
        }
        [prevText, prevVersion, prevHash] = [events, version, store.lastHash];
      } finally {
        store.free();
      }
    }
    // The run exercised what it claims to: batches were written, in-flight changes were cut.
    if (KILLS >= 20) {
      assert.ok(stats.acknowledged > KILLS, `too few acknowledged changes: ${JSON.stringify(stats)}`);
      assert.ok(stats.batches > 0 && stats.restored > 0 && stats.inFlightKept + stats.inFlightDropped > 0, `no batch, checkpoint or change in flight was exercised: ${JSON.stringify(stats)}`);
    }
    console.log(`filelog-kill: seed 0x${SEED.toString(16)} ${JSON.stringify(stats)}`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

// The kill above lands inside the write of a big batch only now and then (the write is short next
// to the rest of an append). This is that crash, every time: what a SIGKILL leaves when Linux cuts
// a batch's one write short (any prefix of its bytes: ending inside a line or, as pages fall,
// right after one), the rest of the directory as the append left it.
test("FileLog: a batch whose write was cut short at any byte is dropped whole, and the log goes on", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "stategate-cut-"));
  try {
    const dir = path.join(root, "log");
    const log = FileLog.open(dir);
    const clock = () => 1_700_000_000_000;
    const store = new StateStore({ runId: "r1", clock, onEvents: (events) => log.append(events) });
    const call = (id) => ({ id, type: "function", function: { name: "lookup", arguments: "{}" } });
    const result = (id) => ({ author: `tool:${id}`, update: { messages: [{ role: "tool", tool_call_id: id, content: `${id} `.repeat(1500) }] } });
    store.apply({ author: "user", update: { messages: [{ role: "user", content: "go" }], run: { status: "running" } } });
    store.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [call("a"), call("b"), call("c")] }] } });
    const file = path.join(dir, "events.jsonl");
    const from = fs.statSync(file).size;
    store.applyBatch([result("a"), result("b"), result("c")]);
    log.close();
    const whole = fs.readFileSync(file);
    const lineEnds = [...whole.subarray(from).entries()].filter(([, byte]) => byte === 0x0a).map(([i]) => from + i + 1);
    assert.equal(lineEnds.length, 3);
    const before = whole.subarray(0, from).toString("utf8");

    const cuts = [from + 1, lineEnds[0] - 1, lineEnds[0], lineEnds[0] + 700, lineEnds[1], lineEnds[1] + 1, whole.length - 1];
    for (const cut of cuts) {
      const copy = path.join(root, `cut-${cut}`);
      fs.cpSync(dir, copy, { recursive: true });
      fs.writeFileSync(path.join(copy, "events.jsonl"), whole.subarray(0, cut));
      const again = FileLog.open(copy);
      const { events, torn } = again.load();
      assert.equal(events, before, `cut at byte ${cut} of the batch's ${from}..${whole.length}: the batch is half in the log`);
      assert.equal(torn, true, `cut at ${cut}`);
      assert.equal(fs.readFileSync(path.join(copy, "events.jsonl"), "utf8"), before, `cut at ${cut}: truncated to the prefix`);
      const r = StateStore.replay(events, { clock, onEvents: (e) => again.append(e) });
      assert.equal(r.version, 2);
      assert.deepEqual(r.danglingToolCalls().map((d) => d.toolCallId), ["a", "b", "c"]);
      r.applyBatch([result("a"), result("b"), result("c")]);
      again.close();
      assert.equal(StateStore.replay(FileLog.open(copy).load().events).lastHash, store.lastHash, `cut at ${cut}: the log goes on`);
      r.free();
    }

    // A crash before the batch's first byte, then single changes that grow the file past where
    // the batch would have started: nothing of them is dropped later.
    const early = path.join(root, "early");
    fs.cpSync(dir, early, { recursive: true });
    fs.writeFileSync(path.join(early, "events.jsonl"), whole.subarray(0, from));
    const resumed = FileLog.open(early);
    assert.equal(resumed.load().torn, false);
    const r = StateStore.replay(before, { clock, onEvents: (e) => resumed.append(e) });
    r.apply(result("a"));
    r.apply(result("b"));
    resumed.close();
    const reloaded = FileLog.open(early).load();
    assert.equal(reloaded.torn, false);
    assert.equal(StateStore.replay(reloaded.events).lastHash, r.lastHash);
    r.free();
    store.free();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
